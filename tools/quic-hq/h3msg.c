// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * HTTP/3 requests and responses for quic-hq (RFC 9114 4): building the
 * HEADERS of a GET and of a file's answer, and reading them back on the
 * other side, with the checks of 4.1.2 and 4.3 that matter to a file
 * client and server.
 */

#include <stdio.h>
#include <string.h>

#include "h3.h"

#define FIELD(n, v) { .name = (n), .nlen = strlen(n), .value = (v), \
		      .vlen = strlen(v) }

static int headers_frame(uint8_t *p, size_t cap, const struct qpack_field *f,
			 size_t n)
{
	uint8_t sec[H3_FIELDS_MAX];
	int len = qpack_encode(sec, sizeof(sec), f, n);
	size_t h;

	if (len < 0)
		return -H3_INTERNAL_ERROR;
	h = h3_frame_hdr_put(p, cap, H3_FRAME_HEADERS, (uint64_t)len);
	if (!h || cap - h < (size_t)len)
		return -H3_INTERNAL_ERROR;
	memcpy(p + h, sec, (size_t)len);
	return (int)h + len;
}

int h3_request(uint8_t *p, size_t cap, const char *method,
	       const char *authority, const char *path)
{
	struct qpack_field f[4] = {
		FIELD(":method", method),
		FIELD(":scheme", "https"),
		FIELD(":authority", authority),
		FIELD(":path", path),
	};

	return headers_frame(p, cap, f, 4);
}

int h3_response_head(uint8_t *p, size_t cap, int status, int64_t length,
		     int body)
{
	char st[8], cl[24];
	struct qpack_field f[2];
	int n;
	size_t k;

	if (status < 100 || status > 599)
		return -H3_INTERNAL_ERROR;
	snprintf(st, sizeof(st), "%d", status);
	snprintf(cl, sizeof(cl), "%lld", (long long)length);
	f[0] = (struct qpack_field)FIELD(":status", st);
	f[1] = (struct qpack_field)FIELD("content-length", cl);
	n = headers_frame(p, cap, f, length >= 0 ? 2 : 1);
	if (n < 0 || !body || length <= 0)
		return n;
	k = h3_frame_hdr_put(p + n, cap - (size_t)n, H3_FRAME_DATA, (uint64_t)length);
	return k ? n + (int)k : -H3_INTERNAL_ERROR;
}

/* ---- checks shared by requests and responses ------------------------- */

/* 4.2: names are lowercase tokens, values have no NUL, CR or LF. */
static int field_ok(const struct qpack_field *f)
{
	size_t i;

	if (!f->nlen)
		return 0;
	for (i = 0; i < f->nlen; i++) {
		unsigned char ch = (unsigned char)f->name[i];

		if (ch <= 0x20 || ch >= 0x7f || (ch >= 'A' && ch <= 'Z') ||
		    (ch == ':' && i))
			return 0;
	}
	for (i = 0; i < f->vlen; i++)
		if (f->value[i] == 0 || f->value[i] == '\r' || f->value[i] == '\n')
			return 0;
	return 1;
}

static int is(const struct qpack_field *f, const char *name)
{
	return f->nlen == strlen(name) && !memcmp(f->name, name, f->nlen);
}

/* A decimal number of at most 18 digits, or -1. */
static int64_t number(const char *s, size_t len)
{
	int64_t v = 0;
	size_t i;

	if (!len || len > 18)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* ---- server: requests ------------------------------------------------- */

struct req_fields {
	char *method, *path;
	size_t mlen, plen;
	int seen;		/* bit per pseudo-header */
	int regular;		/* a regular field came: no more pseudo */
};

enum { P_METHOD = 1, P_SCHEME = 2, P_AUTHORITY = 4, P_PATH = 8 };

static int copy_value(const struct qpack_field *f, char *out, size_t cap)
{
	if (f->vlen >= cap)
		return -1;
	memcpy(out, f->value, f->vlen);
	out[f->vlen] = 0;
	return 0;
}

static int req_field(void *arg, const struct qpack_field *f)
{
	struct req_fields *x = arg;
	int bit;

	if (!field_ok(f))
		return -H3_MESSAGE_ERROR;
	if (f->name[0] != ':') {
		x->regular = 1;
		return 0;
	}
	if (x->regular)
		return -H3_MESSAGE_ERROR;	/* pseudo after regular (4.3) */
	if (is(f, ":method"))
		bit = P_METHOD;
	else if (is(f, ":scheme"))
		bit = P_SCHEME;
	else if (is(f, ":authority"))
		bit = P_AUTHORITY;
	else if (is(f, ":path"))
		bit = P_PATH;
	else
		return -H3_MESSAGE_ERROR;	/* :status, or unknown */
	if (x->seen & bit)
		return -H3_MESSAGE_ERROR;	/* twice */
	x->seen |= bit;
	if (bit == P_METHOD && (!f->vlen || copy_value(f, x->method, x->mlen)))
		return -H3_MESSAGE_ERROR;
	if (bit == P_PATH && (!f->vlen || copy_value(f, x->path, x->plen)))
		return -H3_MESSAGE_ERROR;
	return 0;
}

int h3_req_feed(struct h3_req *r, const uint8_t *p, size_t n, int fin,
		char *method, size_t mlen, char *path, size_t plen)
{
	struct req_fields x = { method, path, mlen, plen, 0, 0 };
	struct h3_ev ev;
	int ret;

	if (r->done)
		return 0;	/* content and trailers: not ours to read */
	for (;;) {
		ret = h3_rd_next(&r->rd, &p, &n, &ev);
		if (ret)
			return ret;
		if (ev.type == H3_EV_NONE)
			break;
		if (ev.type == H3_EV_DATA)
			return -H3_FRAME_UNEXPECTED;	/* before HEADERS */
		if (ev.frame == H3_FRAME_HEADERS) {
			ret = qpack_decode(ev.p, ev.len, req_field, &x);
			if (ret)
				return ret;
			/* CONNECT has no :scheme and :path; we serve files */
			if ((x.seen & (P_METHOD | P_SCHEME | P_PATH)) !=
			    (P_METHOD | P_SCHEME | P_PATH))
				return -H3_MESSAGE_ERROR;
			r->done = 1;
			h3_rd_free(&r->rd);
			return 1;
		}
		/* SETTINGS, GOAWAY, MAX_PUSH_ID, CANCEL_PUSH, PUSH_PROMISE */
		return -H3_FRAME_UNEXPECTED;
	}
	return fin ? -H3_REQUEST_INCOMPLETE : 0;
}

void h3_req_free(struct h3_req *r)
{
	h3_rd_free(&r->rd);
}

/* ---- client: responses ------------------------------------------------ */

enum { RESP_HEAD, RESP_BODY, RESP_TRAILERS };

struct resp_fields {
	int status;		/* 0: none yet */
	int64_t length;		/* -1: none */
	int regular;
	int trailers;		/* no pseudo-headers at all */
};

static int resp_field(void *arg, const struct qpack_field *f)
{
	struct resp_fields *x = arg;
	int64_t v;

	if (!field_ok(f))
		return -H3_MESSAGE_ERROR;
	if (f->name[0] == ':') {
		if (x->regular || x->trailers || !is(f, ":status") || x->status)
			return -H3_MESSAGE_ERROR;
		v = f->vlen == 3 ? number(f->value, 3) : -1;
		if (v < 100 || v > 599 || v == 101)	/* no upgrades here */
			return -H3_MESSAGE_ERROR;
		x->status = (int)v;
		return 0;
	}
	x->regular = 1;
	if (x->trailers || !is(f, "content-length"))
		return 0;
	v = number(f->value, f->vlen);
	if (v < 0 || (x->length >= 0 && x->length != v))
		return -H3_MESSAGE_ERROR;	/* bad, or two that differ */
	x->length = v;
	return 0;
}

void h3_resp_init(struct h3_resp *r)
{
	memset(r, 0, sizeof(*r));
	r->state = RESP_HEAD;
	r->length = -1;
}

/* A HEADERS frame on a response stream: the head, or the trailers. */
static int resp_headers(struct h3_resp *r, const struct h3_ev *ev)
{
	struct resp_fields x = { 0, -1, 0, r->state == RESP_BODY };
	int ret;

	if (r->state == RESP_TRAILERS)
		return -H3_FRAME_UNEXPECTED;	/* nothing after trailers */
	ret = qpack_decode(ev->p, ev->len, resp_field, &x);
	if (ret)
		return ret;
	if (x.trailers) {
		r->state = RESP_TRAILERS;
		return 0;
	}
	if (!x.status)
		return -H3_MESSAGE_ERROR;
	r->status = x.status;
	if (x.status < 200)
		return 0;	/* interim (1xx): the final one follows */
	if (x.status != 200)
		return -H3_ERR_STATUS;
	r->length = x.length;
	r->state = RESP_BODY;
	return 0;
}

int h3_resp_feed(struct h3_resp *r, const uint8_t *p, size_t n, int fin,
		 h3_sink_fn sink, void *arg)
{
	struct h3_ev ev;
	int ret;

	for (;;) {
		ret = h3_rd_next(&r->rd, &p, &n, &ev);
		if (ret)
			return ret;
		if (ev.type == H3_EV_NONE)
			break;
		if (ev.type == H3_EV_DATA) {
			if (r->state != RESP_BODY)
				return -H3_FRAME_UNEXPECTED;
			r->got += ev.len;
			if (r->length >= 0 && r->got > (uint64_t)r->length)
				return -H3_MESSAGE_ERROR;	/* 4.1.2 */
			if (ev.len && sink(arg, ev.p, ev.len))
				return -H3_INTERNAL_ERROR;
			continue;
		}
		if (ev.frame == H3_FRAME_PUSH_PROMISE)
			return -H3_ID_ERROR;	/* we allowed no push id (7.2.5) */
		if (ev.frame != H3_FRAME_HEADERS)
			return -H3_FRAME_UNEXPECTED;
		ret = resp_headers(r, &ev);
		if (ret)
			return ret;
	}
	if (!fin)
		return 0;
	if (!h3_rd_idle(&r->rd))
		return -H3_FRAME_ERROR;		/* ends inside a frame (7.1) */
	if (r->state == RESP_HEAD)
		return -H3_MESSAGE_ERROR;	/* no final response */
	if (r->length >= 0 && r->got != (uint64_t)r->length)
		return -H3_MESSAGE_ERROR;	/* shorter than it said */
	return 1;
}

void h3_resp_free(struct h3_resp *r)
{
	h3_rd_free(&r->rd);
}

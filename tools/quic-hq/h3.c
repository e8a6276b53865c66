// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * HTTP/3 framing for quic-hq: varints, frame headers, SETTINGS, a frame
 * reader for streams whose bytes arrive in pieces, and the peer's
 * unidirectional streams (control, QPACK, push, reserved).  Requests and
 * responses are in h3msg.c.
 */

#include <stdlib.h>
#include <string.h>

#include "h3.h"

const char *h3_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case H3_ERR_STATUS:		return "HTTP status is not 200";
	case H3_NO_ERROR:		return "H3_NO_ERROR";
	case H3_GENERAL_PROTOCOL_ERROR:	return "H3_GENERAL_PROTOCOL_ERROR";
	case H3_INTERNAL_ERROR:		return "H3_INTERNAL_ERROR";
	case H3_STREAM_CREATION_ERROR:	return "H3_STREAM_CREATION_ERROR";
	case H3_CLOSED_CRITICAL_STREAM:	return "H3_CLOSED_CRITICAL_STREAM";
	case H3_FRAME_UNEXPECTED:	return "H3_FRAME_UNEXPECTED";
	case H3_FRAME_ERROR:		return "H3_FRAME_ERROR";
	case H3_EXCESSIVE_LOAD:		return "H3_EXCESSIVE_LOAD";
	case H3_ID_ERROR:		return "H3_ID_ERROR";
	case H3_SETTINGS_ERROR:		return "H3_SETTINGS_ERROR";
	case H3_MISSING_SETTINGS:	return "H3_MISSING_SETTINGS";
	case H3_REQUEST_REJECTED:	return "H3_REQUEST_REJECTED";
	case H3_REQUEST_CANCELLED:	return "H3_REQUEST_CANCELLED";
	case H3_REQUEST_INCOMPLETE:	return "H3_REQUEST_INCOMPLETE";
	case H3_MESSAGE_ERROR:		return "H3_MESSAGE_ERROR";
	case H3_CONNECT_ERROR:		return "H3_CONNECT_ERROR";
	case H3_VERSION_FALLBACK:	return "H3_VERSION_FALLBACK";
	case QPACK_DECOMPRESSION_FAILED: return "QPACK_DECOMPRESSION_FAILED";
	case QPACK_ENCODER_STREAM_ERROR: return "QPACK_ENCODER_STREAM_ERROR";
	case QPACK_DECODER_STREAM_ERROR: return "QPACK_DECODER_STREAM_ERROR";
	}
	return "unknown HTTP/3 error";
}

/* ---- varints and frame headers -------------------------------------- */

size_t h3_varint_len(uint64_t v)
{
	if (v < (1u << 6))
		return 1;
	if (v < (1u << 14))
		return 2;
	if (v < (1u << 30))
		return 4;
	return v <= H3_VARINT_MAX ? 8 : 0;
}

size_t h3_varint_put(uint8_t *p, size_t cap, uint64_t v)
{
	size_t n = h3_varint_len(v), i;
	static const uint8_t tag[9] = { [1] = 0x00, [2] = 0x40, [4] = 0x80,
					[8] = 0xc0 };

	if (!n || n > cap)
		return 0;
	for (i = n; i > 0; i--) {
		p[i - 1] = (uint8_t)v;
		v >>= 8;
	}
	p[0] |= tag[n];
	return n;
}

size_t h3_varint_get(const uint8_t *p, size_t len, uint64_t *v)
{
	size_t n, i;
	uint64_t x;

	if (!len)
		return 0;
	n = (size_t)1 << (p[0] >> 6);
	if (n > len)
		return 0;
	x = p[0] & 0x3f;
	for (i = 1; i < n; i++)
		x = (x << 8) | p[i];
	*v = x;
	return n;
}

size_t h3_frame_hdr_put(uint8_t *p, size_t cap, uint64_t type, uint64_t len)
{
	size_t a = h3_varint_put(p, cap, type), b;

	if (!a)
		return 0;
	b = h3_varint_put(p + a, cap - a, len);
	return b ? a + b : 0;
}

size_t h3_frame_hdr_get(const uint8_t *p, size_t len, uint64_t *type,
			uint64_t *flen)
{
	size_t a = h3_varint_get(p, len, type), b;

	if (!a)
		return 0;
	b = h3_varint_get(p + a, len - a, flen);
	return b ? a + b : 0;
}

/* ---- SETTINGS -------------------------------------------------------- */

void h3_settings_default(struct h3_settings *s)
{
	s->max_table_capacity = 0;
	s->max_field_section_size = UINT64_MAX;
	s->blocked_streams = 0;
}

int h3_settings_parse(const uint8_t *p, size_t len, struct h3_settings *s)
{
	unsigned int seen = 0;

	h3_settings_default(s);
	while (len) {
		uint64_t id, val;
		size_t a = h3_varint_get(p, len, &id), b;

		b = a ? h3_varint_get(p + a, len - a, &val) : 0;
		if (!b)
			return -H3_FRAME_ERROR;	/* a setting cut in half */
		p += a + b;
		len -= a + b;
		switch (id) {
		case 0x02: case 0x03: case 0x04: case 0x05:
			return -H3_SETTINGS_ERROR;	/* HTTP/2 only (7.2.4.1) */
		case H3_SETTING_QPACK_MAX_TABLE_CAPACITY:
		case H3_SETTING_MAX_FIELD_SECTION_SIZE:
		case H3_SETTING_QPACK_BLOCKED_STREAMS:
			if (seen & (1u << id))
				return -H3_SETTINGS_ERROR;	/* twice */
			seen |= 1u << id;
			if (id == H3_SETTING_QPACK_MAX_TABLE_CAPACITY)
				s->max_table_capacity = val;
			else if (id == H3_SETTING_MAX_FIELD_SECTION_SIZE)
				s->max_field_section_size = val;
			else
				s->blocked_streams = val;
			break;
		default:
			break;	/* unknown and reserved ones are ignored */
		}
	}
	return 0;
}

int h3_control_preface(uint8_t *p, size_t cap)
{
	uint8_t set[32];
	size_t n = 0, k;

	/* The two QPACK zeros are the defaults; saying them costs four bytes
	 * and makes the intent plain in a capture.  0x5f is a reserved id
	 * (0x1f * 2 + 0x21): peers must ignore it, and we help keep that so.
	 */
	n += h3_varint_put(set + n, sizeof(set) - n, H3_SETTING_QPACK_MAX_TABLE_CAPACITY);
	n += h3_varint_put(set + n, sizeof(set) - n, 0);
	n += h3_varint_put(set + n, sizeof(set) - n, H3_SETTING_QPACK_BLOCKED_STREAMS);
	n += h3_varint_put(set + n, sizeof(set) - n, 0);
	n += h3_varint_put(set + n, sizeof(set) - n, H3_SETTING_MAX_FIELD_SECTION_SIZE);
	n += h3_varint_put(set + n, sizeof(set) - n, H3_FIELDS_MAX);
	n += h3_varint_put(set + n, sizeof(set) - n, 0x5f);
	n += h3_varint_put(set + n, sizeof(set) - n, 0);
	if (cap < 1)
		return -H3_INTERNAL_ERROR;
	p[0] = H3_STREAM_CONTROL;
	k = h3_frame_hdr_put(p + 1, cap - 1, H3_FRAME_SETTINGS, n);
	if (!k || cap - 1 - k < n)
		return -H3_INTERNAL_ERROR;
	memcpy(p + 1 + k, set, n);
	return (int)(1 + k + n);
}

/* ---- frame reader ---------------------------------------------------- */

/* Frames whose payload we collect and hand out whole. */
static int collected(uint64_t type)
{
	switch (type) {
	case H3_FRAME_HEADERS:
	case H3_FRAME_SETTINGS:
	case H3_FRAME_GOAWAY:
	case H3_FRAME_MAX_PUSH_ID:
	case H3_FRAME_CANCEL_PUSH:
	case H3_FRAME_PUSH_PROMISE:
		return 1;
	}
	return 0;
}

/* A frame header is complete: check it; maybe an event for an empty one. */
static int frame_start(struct h3_rd *r, struct h3_ev *ev)
{
	switch (r->type) {
	case 0x02: case 0x06: case 0x08: case 0x09:
		return -H3_FRAME_UNEXPECTED;	/* HTTP/2 only (7.2.8) */
	}
	if (collected(r->type) && r->left > H3_FRAME_MAX)
		return -H3_EXCESSIVE_LOAD;
	r->in_frame = 1;
	r->blen = 0;
	if (r->left)
		return 0;
	r->in_frame = 0;
	if (r->type == H3_FRAME_DATA) {
		ev->type = H3_EV_DATA;
	} else if (collected(r->type)) {
		ev->type = H3_EV_FRAME;
		ev->frame = r->type;
	}
	ev->p = r->hdr;		/* not NULL: memcpy(.., p, 0) is fine */
	ev->len = 0;
	return 0;
}

int h3_rd_next(struct h3_rd *r, const uint8_t **p, size_t *n,
	       struct h3_ev *ev)
{
	ev->type = H3_EV_NONE;
	while (*n) {
		size_t take;

		if (!r->in_frame) {
			uint64_t type, len;
			int ret;

			/* a byte at a time: headers are small, payloads not */
			r->hdr[r->hlen++] = **p;
			(*p)++;
			(*n)--;
			if (!h3_frame_hdr_get(r->hdr, r->hlen, &type, &len))
				continue;	/* at most 16 bytes: always ends */
			r->hlen = 0;
			r->type = type;
			r->left = len;
			ret = frame_start(r, ev);
			if (ret || ev->type != H3_EV_NONE)
				return ret;
			continue;
		}
		take = *n < r->left ? *n : (size_t)r->left;
		if (r->type == H3_FRAME_DATA || !collected(r->type)) {
			if (r->type == H3_FRAME_DATA) {
				ev->type = H3_EV_DATA;
				ev->p = *p;
				ev->len = take;
			}
			*p += take;
			*n -= take;
			r->left -= take;
			if (!r->left)
				r->in_frame = 0;
			if (ev->type != H3_EV_NONE)
				return 0;
			continue;
		}
		if (!r->blen && take == r->left) {	/* all here: no copy */
			ev->p = *p;
			ev->len = take;
		} else {
			if (!r->blen && r->bcap < r->left) {
				uint8_t *b = realloc(r->buf, (size_t)r->left);

				if (!b)
					return -H3_INTERNAL_ERROR;
				r->buf = b;
				r->bcap = (size_t)r->left;
			}
			memcpy(r->buf + r->blen, *p, take);
			r->blen += take;
			ev->p = r->buf;
			ev->len = r->blen;
		}
		*p += take;
		*n -= take;
		r->left -= take;
		if (r->left)
			continue;
		r->in_frame = 0;
		ev->type = H3_EV_FRAME;
		ev->frame = r->type;
		return 0;
	}
	return 0;
}

int h3_rd_idle(const struct h3_rd *r)
{
	return !r->in_frame && !r->hlen;
}

void h3_rd_free(struct h3_rd *r)
{
	free(r->buf);
	r->buf = NULL;
	r->bcap = 0;
	r->blen = 0;
}

/* ---- the peer's unidirectional streams -------------------------------- */

#define H3_UNI_MAX	64	/* peers open 3 or 4; more is not worth tracking */

void h3_conn_init(struct h3_conn *c, int server)
{
	memset(c, 0, sizeof(*c));
	c->server = server;
	c->control = -1;
	c->goaway = -1;
	h3_settings_default(&c->peer);
}

void h3_conn_free(struct h3_conn *c)
{
	while (c->uni) {
		struct h3_uni *u = c->uni;

		c->uni = u->next;
		h3_rd_free(&u->rd);
		free(u);
	}
	c->nuni = 0;
}

static struct h3_uni *uni_get(struct h3_conn *c, int64_t sid)
{
	struct h3_uni *u;

	for (u = c->uni; u; u = u->next)
		if (u->sid == sid)
			return u;
	if (c->nuni == H3_UNI_MAX)
		return NULL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->sid = sid;
	u->type = -1;
	u->next = c->uni;
	c->uni = u;
	c->nuni++;
	return u;
}

static void uni_del(struct h3_conn *c, struct h3_uni *u)
{
	struct h3_uni **pp;

	for (pp = &c->uni; *pp; pp = &(*pp)->next) {
		if (*pp == u) {
			*pp = u->next;
			break;
		}
	}
	h3_rd_free(&u->rd);
	free(u);
	c->nuni--;
}

/* The stream type is known. */
static int uni_type(struct h3_conn *c, struct h3_uni *u)
{
	switch (u->type) {
	case H3_STREAM_CONTROL:
		if (c->control >= 0) {
			u->ignore = 1;
			return -H3_STREAM_CREATION_ERROR;	/* a second one */
		}
		c->control = u->sid;
		return 0;
	case H3_STREAM_PUSH:
		/* only servers push, and only after MAX_PUSH_ID, which we
		 * never send (4.6)
		 */
		u->ignore = 1;
		return c->server ? -H3_STREAM_CREATION_ERROR : -H3_ID_ERROR;
	default:
		/* QPACK encoder/decoder streams: with no dynamic table there
		 * is nothing in them for us; unknown and reserved types must
		 * be ignored (6.2)
		 */
		u->ignore = 1;
		return 0;
	}
}

/* A varint that must fill the whole payload (GOAWAY, MAX_PUSH_ID, ...). */
static int one_varint(const struct h3_ev *ev, uint64_t *v)
{
	size_t k = h3_varint_get(ev->p, ev->len, v);

	return k && k == ev->len ? 0 : -H3_FRAME_ERROR;
}

static int control_frame(struct h3_conn *c, struct h3_uni *u,
			 const struct h3_ev *ev)
{
	uint64_t id;
	int ret;

	if (ev->type == H3_EV_DATA)
		return -H3_FRAME_UNEXPECTED;
	if (!u->got_settings && ev->frame != H3_FRAME_SETTINGS)
		return -H3_MISSING_SETTINGS;
	switch (ev->frame) {
	case H3_FRAME_SETTINGS:
		if (u->got_settings)
			return -H3_FRAME_UNEXPECTED;
		u->got_settings = 1;
		ret = h3_settings_parse(ev->p, ev->len, &c->peer);
		if (!ret)
			c->have_settings = 1;
		return ret;
	case H3_FRAME_GOAWAY:
		ret = one_varint(ev, &id);
		if (ret)
			return ret;
		/* from a server: a client bidi stream id, never growing */
		if (!c->server && ((id & 3) || (c->goaway >= 0 &&
						 id > (uint64_t)c->goaway)))
			return -H3_ID_ERROR;
		c->goaway = (int64_t)id;
		return 0;
	case H3_FRAME_MAX_PUSH_ID:
		if (!c->server)
			return -H3_FRAME_UNEXPECTED;	/* client to server only */
		return one_varint(ev, &id);
	case H3_FRAME_CANCEL_PUSH:
		return one_varint(ev, &id);	/* we push nothing: no-op */
	default:				/* HEADERS, PUSH_PROMISE */
		return -H3_FRAME_UNEXPECTED;
	}
}

int h3_conn_uni(struct h3_conn *c, int64_t sid, const uint8_t *p, size_t n,
		int fin)
{
	struct h3_uni *u = uni_get(c, sid);
	int ret = 0;

	if (!u)
		return -H3_EXCESSIVE_LOAD;
	while (u->type < 0 && n) {
		uint64_t t;

		u->tbuf[u->tlen++] = *p++;
		n--;
		if (h3_varint_get(u->tbuf, u->tlen, &t)) {
			u->type = (int64_t)t;
			ret = uni_type(c, u);
			if (ret)
				return ret;	/* the stream is ignored from now */
		}
	}
	while (!u->ignore && n) {
		struct h3_ev ev;

		ret = h3_rd_next(&u->rd, &p, &n, &ev);
		if (!ret && ev.type == H3_EV_NONE)
			break;
		if (!ret)
			ret = control_frame(c, u, &ev);
		if (ret) {
			u->ignore = 1;
			return ret;
		}
	}
	if (!fin)
		return 0;
	if (u->sid == c->control) {
		u->ignore = 1;
		return -H3_CLOSED_CRITICAL_STREAM;	/* 6.2.1 */
	}
	uni_del(c, u);		/* done with it: keep room for others */
	return 0;
}

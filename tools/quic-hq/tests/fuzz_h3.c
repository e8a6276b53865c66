// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target of quic-hq's HTTP/3 decoders (make -C tools/quic-hq
 * fuzz).  The first input byte picks the decoder and how to cut the rest
 * into pieces; besides "never crash", it checks properties:
 *
 * - Huffman: what decodes re-encodes to the same bytes (the code and the
 *   padding rule leave one encoding per string);
 * - QPACK: what decodes re-encodes (static + literals) and decodes again
 *   to the same field lines;
 * - responses, requests, unidirectional streams: the result does not
 *   depend on where the stream was cut, and a response's content is the
 *   same however it arrived.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../h3.h"

#define ASSERT(c) do { if (!(c)) { \
	fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); abort(); } } while (0)

/* ---- field lines, flattened for comparison ---------------------------- */

struct flat {
	uint8_t buf[1 << 16];
	size_t len;
	struct qpack_field f[256];
	size_t n;
};

static int flatten(void *arg, const struct qpack_field *f)
{
	struct flat *x = arg;

	if (x->n == 256 || sizeof(x->buf) - x->len < f->nlen + f->vlen)
		return 1;	/* too much to compare: stop, not a failure */
	memcpy(x->buf + x->len, f->name, f->nlen);
	x->f[x->n].name = (const char *)x->buf + x->len;
	x->f[x->n].nlen = f->nlen;
	x->len += f->nlen;
	memcpy(x->buf + x->len, f->value, f->vlen);
	x->f[x->n].value = (const char *)x->buf + x->len;
	x->f[x->n].vlen = f->vlen;
	x->len += f->vlen;
	x->n++;
	return 0;
}

static void qpack(const uint8_t *p, size_t n)
{
	static struct flat a, b;
	static uint8_t enc[1 << 18];
	int len;
	size_t i;

	a.len = a.n = b.len = b.n = 0;
	if (qpack_decode(p, n, flatten, &a))
		return;
	len = qpack_encode(enc, sizeof(enc), a.f, a.n);
	ASSERT(len > 0);
	ASSERT(!qpack_decode(enc, (size_t)len, flatten, &b));
	ASSERT(a.n == b.n && a.len == b.len && !memcmp(a.buf, b.buf, a.len));
	for (i = 0; i < a.n; i++)
		ASSERT(a.f[i].nlen == b.f[i].nlen && a.f[i].vlen == b.f[i].vlen);
}

static void huffman(const uint8_t *p, size_t n)
{
	static char dec[1 << 16];
	static uint8_t enc[1 << 16];
	int d = h3_huff_decode(p, n, dec, sizeof(dec)), e;

	if (d < 0)
		return;
	e = h3_huff_encode((const uint8_t *)dec, (size_t)d, enc, sizeof(enc));
	ASSERT(e == (int)n && !memcmp(enc, p, n));
	ASSERT(h3_huff_len((const uint8_t *)dec, (size_t)d) == n);
}

/* ---- streams in pieces ------------------------------------------------ */

struct body {
	uint8_t buf[1 << 16];
	size_t len;
};

static int sink(void *arg, const uint8_t *p, size_t n)
{
	struct body *b = arg;

	if (sizeof(b->buf) - b->len < n)
		return -1;
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	return 0;
}

/* Feeds a response whole or in pieces of step; the final result. */
static int response(const uint8_t *p, size_t n, size_t step, struct body *b,
		    int *status)
{
	struct h3_resp r;
	size_t off = 0;
	int ret = 0;

	h3_resp_init(&r);
	b->len = 0;
	do {
		size_t k = step && step < n - off ? step : n - off;

		ret = h3_resp_feed(&r, p + off, k, off + k == n, sink, b);
		off += k;
	} while (!ret && off < n);
	*status = r.status;
	h3_resp_free(&r);
	return ret;
}

static int request(const uint8_t *p, size_t n, size_t step, char *m, char *path)
{
	struct h3_req r = { 0 };
	size_t off = 0;
	int ret = 0;

	do {
		size_t k = step && step < n - off ? step : n - off;

		ret = h3_req_feed(&r, p + off, k, off + k == n, m, 16, path, 256);
		off += k;
	} while (!ret && off < n);
	h3_req_free(&r);
	return ret;
}

/* A uni stream (id 3), whole or in pieces: the first error. */
static int uni(const uint8_t *p, size_t n, size_t step, int server,
	       struct h3_conn *c)
{
	size_t off = 0;
	int ret = 0;

	h3_conn_init(c, server);
	do {
		size_t k = step && step < n - off ? step : n - off;

		ret = h3_conn_uni(c, 3, p + off, k, off + k == n);
		off += k;
	} while (!ret && off < n);
	return ret;
}

/* Two uni streams from one input, interleaved: only "no crash" here,
 * as which one's error comes first depends on the cuts.
 */
static void two_unis(const uint8_t *p, size_t n, size_t step, int server)
{
	struct h3_conn c;
	size_t half = n / 2, off = 0;

	h3_conn_init(&c, server);
	while (off < half) {
		size_t k = step < half - off ? step : half - off;

		h3_conn_uni(&c, 2 + server, p + off, k, 0);
		h3_conn_uni(&c, 6 + server, p + half + off, k, off + k == half);
		off += k;
	}
	h3_conn_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct body b1, b2;
	struct h3_conn c1, c2;
	char m1[16], m2[16], p1[256], p2[256];
	size_t step;
	int r1, r2, s1, s2;

	if (size < 1)
		return 0;
	step = 1 + (data[0] >> 3);	/* 1..32 */
	switch (data[0] & 7) {
	case 0:
		qpack(data + 1, size - 1);
		break;
	case 1:
		huffman(data + 1, size - 1);
		break;
	case 2:
	case 3:
		r1 = response(data + 1, size - 1, 0, &b1, &s1);
		r2 = response(data + 1, size - 1, step, &b2, &s2);
		/* the same result however cut; the same content when it is
		 * good (after an error, how much was written may differ)
		 */
		ASSERT(r1 == r2 && s1 == s2);
		if (r1 >= 0)
			ASSERT(b1.len == b2.len && !memcmp(b1.buf, b2.buf, b1.len));
		break;
	case 4:
	case 5:
		r1 = request(data + 1, size - 1, 0, m1, p1);
		r2 = request(data + 1, size - 1, step, m2, p2);
		ASSERT(r1 == r2);
		if (r1 == 1)
			ASSERT(!strcmp(m1, m2) && !strcmp(p1, p2));
		break;
	default:
		r1 = uni(data + 1, size - 1, 0, data[0] & 1, &c1);
		r2 = uni(data + 1, size - 1, step, data[0] & 1, &c2);
		ASSERT(r1 == r2 && c1.control == c2.control &&
		       c1.have_settings == c2.have_settings &&
		       c1.goaway == c2.goaway &&
		       c1.peer.max_table_capacity == c2.peer.max_table_capacity);
		h3_conn_free(&c1);
		h3_conn_free(&c2);
		two_unis(data + 1, size - 1, step, data[0] & 1);
		break;
	}
	return 0;
}

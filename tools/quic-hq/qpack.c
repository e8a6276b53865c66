// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * QPACK field sections (RFC 9204 4.5) without a dynamic table.
 *
 * We tell peers QPACK_MAX_TABLE_CAPACITY 0, so a conforming encoder sends
 * us only Required Insert Count 0 and static references or literals; any
 * dynamic reference is an error (QPACK_DECOMPRESSION_FAILED), never a wait.
 * Our own encoder uses the static table and plain literals: no state, and
 * the Huffman code would save a few bytes on a handful of requests.
 */

#include <string.h>

#include "h3.h"

/* RFC 9204 Appendix A */
const struct qpack_static qpack_static[QPACK_STATIC_SIZE] = {
	/* 0 */	{ ":authority", "" },
	/* 1 */	{ ":path", "/" },
	/* 2 */	{ "age", "0" },
	/* 3 */	{ "content-disposition", "" },
	/* 4 */	{ "content-length", "0" },
	/* 5 */	{ "cookie", "" },
	/* 6 */	{ "date", "" },
	/* 7 */	{ "etag", "" },
	/* 8 */	{ "if-modified-since", "" },
	/* 9 */	{ "if-none-match", "" },
	/* 10 */	{ "last-modified", "" },
	/* 11 */	{ "link", "" },
	/* 12 */	{ "location", "" },
	/* 13 */	{ "referer", "" },
	/* 14 */	{ "set-cookie", "" },
	/* 15 */	{ ":method", "CONNECT" },
	/* 16 */	{ ":method", "DELETE" },
	/* 17 */	{ ":method", "GET" },
	/* 18 */	{ ":method", "HEAD" },
	/* 19 */	{ ":method", "OPTIONS" },
	/* 20 */	{ ":method", "POST" },
	/* 21 */	{ ":method", "PUT" },
	/* 22 */	{ ":scheme", "http" },
	/* 23 */	{ ":scheme", "https" },
	/* 24 */	{ ":status", "103" },
	/* 25 */	{ ":status", "200" },
	/* 26 */	{ ":status", "304" },
	/* 27 */	{ ":status", "404" },
	/* 28 */	{ ":status", "503" },
	/* 29 */	{ "accept", "*/*" },
	/* 30 */	{ "accept", "application/dns-message" },
	/* 31 */	{ "accept-encoding", "gzip, deflate, br" },
	/* 32 */	{ "accept-ranges", "bytes" },
	/* 33 */	{ "access-control-allow-headers", "cache-control" },
	/* 34 */	{ "access-control-allow-headers", "content-type" },
	/* 35 */	{ "access-control-allow-origin", "*" },
	/* 36 */	{ "cache-control", "max-age=0" },
	/* 37 */	{ "cache-control", "max-age=2592000" },
	/* 38 */	{ "cache-control", "max-age=604800" },
	/* 39 */	{ "cache-control", "no-cache" },
	/* 40 */	{ "cache-control", "no-store" },
	/* 41 */	{ "cache-control", "public, max-age=31536000" },
	/* 42 */	{ "content-encoding", "br" },
	/* 43 */	{ "content-encoding", "gzip" },
	/* 44 */	{ "content-type", "application/dns-message" },
	/* 45 */	{ "content-type", "application/javascript" },
	/* 46 */	{ "content-type", "application/json" },
	/* 47 */	{ "content-type", "application/x-www-form-urlencoded" },
	/* 48 */	{ "content-type", "image/gif" },
	/* 49 */	{ "content-type", "image/jpeg" },
	/* 50 */	{ "content-type", "image/png" },
	/* 51 */	{ "content-type", "text/css" },
	/* 52 */	{ "content-type", "text/html; charset=utf-8" },
	/* 53 */	{ "content-type", "text/plain" },
	/* 54 */	{ "content-type", "text/plain;charset=utf-8" },
	/* 55 */	{ "range", "bytes=0-" },
	/* 56 */	{ "strict-transport-security", "max-age=31536000" },
	/* 57 */	{ "strict-transport-security", "max-age=31536000; includesubdomains" },
	/* 58 */	{ "strict-transport-security", "max-age=31536000; includesubdomains; preload" },
	/* 59 */	{ "vary", "accept-encoding" },
	/* 60 */	{ "vary", "origin" },
	/* 61 */	{ "x-content-type-options", "nosniff" },
	/* 62 */	{ "x-xss-protection", "1; mode=block" },
	/* 63 */	{ ":status", "100" },
	/* 64 */	{ ":status", "204" },
	/* 65 */	{ ":status", "206" },
	/* 66 */	{ ":status", "302" },
	/* 67 */	{ ":status", "400" },
	/* 68 */	{ ":status", "403" },
	/* 69 */	{ ":status", "421" },
	/* 70 */	{ ":status", "425" },
	/* 71 */	{ ":status", "500" },
	/* 72 */	{ "accept-language", "" },
	/* 73 */	{ "access-control-allow-credentials", "FALSE" },
	/* 74 */	{ "access-control-allow-credentials", "TRUE" },
	/* 75 */	{ "access-control-allow-headers", "*" },
	/* 76 */	{ "access-control-allow-methods", "get" },
	/* 77 */	{ "access-control-allow-methods", "get, post, options" },
	/* 78 */	{ "access-control-allow-methods", "options" },
	/* 79 */	{ "access-control-expose-headers", "content-length" },
	/* 80 */	{ "access-control-request-headers", "content-type" },
	/* 81 */	{ "access-control-request-method", "get" },
	/* 82 */	{ "access-control-request-method", "post" },
	/* 83 */	{ "alt-svc", "clear" },
	/* 84 */	{ "authorization", "" },
	/* 85 */	{ "content-security-policy",
		  "script-src 'none'; object-src 'none'; base-uri 'none'" },
	/* 86 */	{ "early-data", "1" },
	/* 87 */	{ "expect-ct", "" },
	/* 88 */	{ "forwarded", "" },
	/* 89 */	{ "if-range", "" },
	/* 90 */	{ "origin", "" },
	/* 91 */	{ "purpose", "prefetch" },
	/* 92 */	{ "server", "" },
	/* 93 */	{ "timing-allow-origin", "*" },
	/* 94 */	{ "upgrade-insecure-requests", "1" },
	/* 95 */	{ "user-agent", "" },
	/* 96 */	{ "x-forwarded-for", "" },
	/* 97 */	{ "x-frame-options", "deny" },
	/* 98 */	{ "x-frame-options", "sameorigin" },
};

size_t qpack_int_put(uint8_t *p, size_t cap, int prefix, uint8_t first,
		     uint64_t v)
{
	uint64_t max = (1u << prefix) - 1;
	size_t n = 0;

	if (!cap)
		return 0;
	if (v < max) {
		p[0] = (uint8_t)(first | v);
		return 1;
	}
	p[n++] = (uint8_t)(first | max);
	v -= max;
	while (v >= 0x80) {
		if (n == cap)
			return 0;
		p[n++] = (uint8_t)(0x80 | (v & 0x7f));
		v >>= 7;
	}
	if (n == cap)
		return 0;
	p[n++] = (uint8_t)v;
	return n;
}

int qpack_int_get(const uint8_t *p, size_t len, int prefix, uint64_t *v)
{
	uint64_t max = (1u << prefix) - 1, val;
	unsigned int shift = 0;
	size_t i = 1;

	if (!len)
		return 0;
	val = p[0] & max;
	if (val < max) {
		*v = val;
		return 1;
	}
	for (;;) {
		uint64_t b;

		if (i == len)
			return 0;
		b = p[i++];
		/* 62 bits are the most QPACK needs (RFC 9204 4.1.1) */
		if (shift > 56 || ((b & 0x7f) << shift) > H3_VARINT_MAX - val)
			return -1;
		val += (b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	*v = val;
	return (int)i;
}

/* ---- encoder ------------------------------------------------------- */

/* A string literal with an N-bit prefix, H = 0 (4.1.2). */
static size_t put_string(uint8_t *p, size_t cap, int prefix, uint8_t first,
			 const char *s, size_t len)
{
	size_t n = qpack_int_put(p, cap, prefix - 1, first, len);

	if (!n || cap - n < len)
		return 0;
	memcpy(p + n, s, len);
	return n + len;
}

static int static_find(const struct qpack_field *f, int *name_only)
{
	int i, name = -1;

	for (i = 0; i < QPACK_STATIC_SIZE; i++) {
		const struct qpack_static *s = &qpack_static[i];

		if (strlen(s->name) != f->nlen || memcmp(s->name, f->name, f->nlen))
			continue;
		if (strlen(s->value) == f->vlen &&
		    !memcmp(s->value, f->value, f->vlen)) {
			*name_only = 0;
			return i;
		}
		if (name < 0)
			name = i;
	}
	*name_only = 1;
	return name;
}

int qpack_encode(uint8_t *p, size_t cap, const struct qpack_field *f,
		 size_t n)
{
	size_t off, k, i;

	if (cap < 2)
		return -1;
	p[0] = 0;	/* Required Insert Count 0 */
	p[1] = 0;	/* S = 0, Delta Base 0 */
	off = 2;
	for (i = 0; i < n; i++) {
		int name_only, idx = static_find(&f[i], &name_only);

		if (idx >= 0 && !name_only) {
			/* Indexed Field Line: 1 T=1 index(6+) */
			k = qpack_int_put(p + off, cap - off, 6, 0xc0, (uint64_t)idx);
		} else if (idx >= 0) {
			/* Literal with Name Reference: 0 1 N=0 T=1 index(4+) */
			k = qpack_int_put(p + off, cap - off, 4, 0x50, (uint64_t)idx);
			if (k) {
				size_t v = put_string(p + off + k, cap - off - k, 8,
						      0x00, f[i].value, f[i].vlen);

				k = v ? k + v : 0;
			}
		} else {
			/* Literal with Literal Name: 0 0 1 N=0 H=0 len(3+) */
			k = put_string(p + off, cap - off, 4, 0x20, f[i].name,
				       f[i].nlen);
			if (k) {
				size_t v = put_string(p + off + k, cap - off - k, 8,
						      0x00, f[i].value, f[i].vlen);

				k = v ? k + v : 0;
			}
		}
		if (!k)
			return -1;
		off += k;
	}
	return (int)off;
}

/* ---- decoder ------------------------------------------------------- */

struct cursor {
	const uint8_t *p;
	size_t left;
};

static int get_int(struct cursor *c, int prefix, uint64_t *v)
{
	int n = qpack_int_get(c->p, c->left, prefix, v);

	if (n <= 0)
		return -QPACK_DECOMPRESSION_FAILED;
	c->p += n;
	c->left -= (size_t)n;
	return 0;
}

/* A string literal with an N-bit prefix starting at the cursor.  Plain
 * strings point into the input; Huffman ones are decoded into buf.
 */
static int get_string(struct cursor *c, int prefix, char *buf,
		      const char **s, size_t *len)
{
	int huff, ret;
	uint64_t n;

	if (!c->left)
		return -QPACK_DECOMPRESSION_FAILED;
	huff = c->p[0] & (1u << (prefix - 1));
	ret = get_int(c, prefix - 1, &n);
	if (ret)
		return ret;
	if (n > c->left)
		return -QPACK_DECOMPRESSION_FAILED;
	if (!huff) {
		if (n > H3_STR_MAX)
			return -H3_EXCESSIVE_LOAD;
		*s = (const char *)c->p;
		*len = (size_t)n;
	} else {
		ret = h3_huff_decode(c->p, (size_t)n, buf, H3_STR_MAX);
		if (ret < 0)
			return (size_t)n * 8 / 5 > H3_STR_MAX ? -H3_EXCESSIVE_LOAD :
			       -QPACK_DECOMPRESSION_FAILED;
		*s = buf;
		*len = (size_t)ret;
	}
	c->p += n;
	c->left -= (size_t)n;
	return 0;
}

static int static_entry(uint64_t idx, struct qpack_field *f)
{
	if (idx >= QPACK_STATIC_SIZE)
		return -QPACK_DECOMPRESSION_FAILED;
	f->name = qpack_static[idx].name;
	f->nlen = strlen(f->name);
	f->value = qpack_static[idx].value;
	f->vlen = strlen(f->value);
	return 0;
}

/* One field line representation (4.5.2-4.5.6) into f. */
static int field_line(struct cursor *c, char *nbuf, char *vbuf,
		      struct qpack_field *f)
{
	uint8_t b = c->p[0];
	uint64_t idx;
	int ret;

	if (b & 0x80) {			/* 1 T index(6+): indexed */
		if (!(b & 0x40))
			return -QPACK_DECOMPRESSION_FAILED;	/* dynamic */
		ret = get_int(c, 6, &idx);
		return ret ? ret : static_entry(idx, f);
	}
	if (b & 0x40) {			/* 0 1 N T index(4+): name reference */
		if (!(b & 0x10))
			return -QPACK_DECOMPRESSION_FAILED;	/* dynamic */
		ret = get_int(c, 4, &idx);
		if (!ret)
			ret = static_entry(idx, f);
		if (!ret)
			ret = get_string(c, 8, vbuf, &f->value, &f->vlen);
		return ret;
	}
	if (b & 0x20) {			/* 0 0 1 N H len(3+): literal name */
		ret = get_string(c, 4, nbuf, &f->name, &f->nlen);
		if (!ret)
			ret = get_string(c, 8, vbuf, &f->value, &f->vlen);
		return ret;
	}
	/* 0001 (post-Base index) and 0000 (post-Base name reference) both
	 * point into the dynamic table
	 */
	return -QPACK_DECOMPRESSION_FAILED;
}

int qpack_decode(const uint8_t *p, size_t len, qpack_field_fn fn, void *arg)
{
	char nbuf[H3_STR_MAX], vbuf[H3_STR_MAX];	/* Huffman-decoded strings */
	struct cursor c = { p, len };
	uint64_t ric, base;
	int ret;

	/* Required Insert Count: with no dynamic table it must be 0 (4.5.1.1:
	 * any other value exceeds FullRange = 0).  Delta Base then does not
	 * matter, except that a negative Base is invalid (4.5.1.2).
	 */
	if (get_int(&c, 8, &ric) || ric || !c.left)
		return -QPACK_DECOMPRESSION_FAILED;
	if (c.p[0] & 0x80)
		return -QPACK_DECOMPRESSION_FAILED;	/* Base = 0 - Delta - 1 */
	if (get_int(&c, 7, &base))
		return -QPACK_DECOMPRESSION_FAILED;
	while (c.left) {
		struct qpack_field f;

		ret = field_line(&c, nbuf, vbuf, &f);
		if (!ret)
			ret = fn(arg, &f);
		if (ret)
			return ret;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The ClientHello ALPN parser (net/quic/tls_hello.c): well-formed hellos
 * with one or several protocols, GREASE extensions and names, without the
 * extension; every prefix of each (the bytes of a ClientHello that spans
 * several datagrams arrive in pieces); lengths that lie, huge ones
 * included; and the comma-separated lists of QUIC_SOCKOPT_ALPN.
 */
#include <stdio.h>
#include <string.h>
#include <linux/types.h>
#include <linux/errno.h>

#include "tls_hello.h"
#include "suites.h"
#include "tap.h"

struct hb {
	u8 b[4096];
	size_t n;
};

static void put(struct hb *h, const void *p, size_t n)
{
	if (n)
		memcpy(h->b + h->n, p, n);
	h->n += n;
}

static void put8(struct hb *h, u32 v)
{
	h->b[h->n++] = v;
}

static void put16(struct hb *h, u32 v)
{
	put8(h, v >> 8);
	put8(h, v);
}

/* An ALPN extension's body from the NULL-terminated list @names. */
static size_t alpn_body(u8 *out, const char *const *names)
{
	size_t n = 2;

	for (; *names; names++) {
		out[n++] = strlen(*names);
		memcpy(out + n, *names, strlen(*names));
		n += strlen(*names);
	}
	out[0] = (n - 2) >> 8;
	out[1] = n - 2;
	return n;
}

/* The ALPN extension with @body at @ext + @n; the new end. */
static size_t put_alpn_ext(u8 *ext, size_t n, const u8 *body, size_t b)
{
	ext[n++] = 0;
	ext[n++] = 16;
	ext[n++] = b >> 8;
	ext[n++] = b;
	memcpy(ext + n, body, b);
	return n + b;
}

/*
 * A ClientHello: @sid bytes of session id, 3 cipher suites, the
 * extensions @ext (@ext_len bytes, already encoded).  Returns where the
 * extensions start.
 */
static size_t hello(struct hb *h, size_t sid, const u8 *ext, size_t ext_len)
{
	static const u8 random[32] = { 1, 2, 3 };
	static const u8 suites[6] = { 0x13, 0x01, 0x13, 0x02, 0x13, 0x03 };
	static const u8 id[32] = { 9 };
	size_t body, at;

	h->n = 0;
	put8(h, 1);
	put8(h, 0);
	put16(h, 0);		/* length, below */
	put16(h, 0x0303);
	put(h, random, 32);
	put8(h, sid);
	put(h, id, sid);
	put16(h, sizeof(suites));
	put(h, suites, sizeof(suites));
	put8(h, 1);
	put8(h, 0);
	put16(h, ext_len);
	at = h->n;
	put(h, ext, ext_len);
	body = h->n - 4;
	h->b[1] = body >> 16;
	h->b[2] = body >> 8;
	h->b[3] = body;
	return at;
}

/* The names found, comma-joined, or the error as "-N". */
static void result(const u8 *buf, size_t len, char *out, size_t cap)
{
	const u8 *names, *name;
	size_t left, o = 0;
	u8 nlen;
	int err;

	err = quic_tls_hello_alpn(buf, len, &names, &left);
	if (err) {
		snprintf(out, cap, "%d", err);
		return;
	}
	out[0] = 0;
	while (quic_tls_alpn_next(&names, &left, &name, &nlen) > 0 &&
	       o + nlen + 2 < cap) {
		if (o)
			out[o++] = ',';
		memcpy(out + o, name, nlen);
		o += nlen;
		out[o] = 0;
	}
}

static void expect_result(const u8 *buf, size_t len, const char *want)
{
	char got[512];

	result(buf, len, got, sizeof(got));
	if (strcmp(got, want))
		printf("# got \"%s\", want \"%s\"\n", got, want);
	EXPECT(!strcmp(got, want));
}

/*
 * Every proper prefix of a well-formed hello needs more bytes, except
 * once the ALPN extension is complete (@found_at: its end, 0 if none).
 */
static void expect_prefixes(const struct hb *h, size_t found_at,
			    const char *want)
{
	char got[512], eagain[8];
	size_t i;
	int bad = 0;

	snprintf(eagain, sizeof(eagain), "%d", -EAGAIN);
	for (i = 0; i < h->n; i++) {
		const char *w = found_at && i >= found_at ? want : eagain;

		result(h->b, i, got, sizeof(got));
		if (strcmp(got, w) && bad++ < 3)
			printf("# prefix %zu: got \"%s\", want \"%s\"\n", i,
			       got, w);
	}
	EXPECT_EQ(bad, 0);
}

static void test_valid(void)
{
	static const char *const one[] = { "h3", NULL };
	static const char *const many[] = { "smb", "h3", "hq-interop", NULL };
	u8 ext[600], body[300];
	struct hb h;
	size_t n, b, at;

	tap_begin("tls_hello: one protocol, and every prefix");
	b = alpn_body(body, one);
	memcpy(ext, "\x00\x2b\x00\x03\x02\x03\x04", 7);	/* versions */
	n = 7;
	n = put_alpn_ext(ext, n, body, b);
	at = hello(&h, 32, ext, n);
	expect_result(h.b, h.n, "h3");
	expect_prefixes(&h, at + n, "h3");
	/* Bytes after the message are not looked at. */
	h.b[h.n] = 0xff;
	expect_result(h.b, h.n + 1, "h3");
	tap_end();

	tap_begin("tls_hello: several protocols in the client's order");
	b = alpn_body(body, many);
	n = 0;
	n = put_alpn_ext(ext, n, body, b);
	memcpy(ext + n, "\x00\x0d\x00\x04\x00\x02\x04\x03", 8);	/* sig algs */
	n += 8;
	at = hello(&h, 0, ext, n);
	expect_result(h.b, h.n, "smb,h3,hq-interop");
	expect_prefixes(&h, at + 4 + b, "smb,h3,hq-interop");
	tap_end();
}

static void test_absent_and_grease(void)
{
	static const char *const grease[] = { "\x1a\x1a", "h3", NULL };
	u8 ext[600], body[300];
	struct hb h;
	size_t n, b, at;
	char want[8];

	tap_begin("tls_hello: no ALPN extension, and every prefix");
	snprintf(want, sizeof(want), "%d", -ENOENT);
	memcpy(ext, "\x00\x2b\x00\x03\x02\x03\x04\x0a\x0a\x00\x00", 11);
	hello(&h, 8, ext, 11);
	expect_result(h.b, h.n, want);
	expect_prefixes(&h, 0, "");
	/* No extensions field at all. */
	hello(&h, 0, NULL, 0);
	h.n -= 2;
	h.b[3] -= 2;
	expect_result(h.b, h.n, want);
	tap_end();

	tap_begin("tls_hello: GREASE extensions and names");
	memcpy(ext, "\x3a\x3a\x00\x01\x00", 5);		/* GREASE ext */
	n = 5;
	b = alpn_body(body, grease);
	n = put_alpn_ext(ext, n, body, b);
	memcpy(ext + n, "\xfa\xfa\x00\x00", 4);
	n += 4;
	at = hello(&h, 32, ext, n);
	expect_result(h.b, h.n, "\x1a\x1a,h3");
	expect_prefixes(&h, at + 5 + 4 + b, "\x1a\x1a,h3");
	tap_end();
}

/* Set the 16-bit length at @off and expect @err from the whole hello. */
static void expect_bad(struct hb *h, size_t off, u32 len, int err)
{
	char want[8];
	u8 save[2] = { h->b[off], h->b[off + 1] };

	snprintf(want, sizeof(want), "%d", err);
	h->b[off] = len >> 8;
	h->b[off + 1] = len;
	expect_result(h->b, h->n, want);
	h->b[off] = save[0];
	h->b[off + 1] = save[1];
}

static void test_lies(void)
{
	static const char *const one[] = { "smb", NULL };
	u8 ext[64], body[64];
	struct hb h;
	size_t n, b, at, sid_at, suites_at;
	char want[8];

	tap_begin("tls_hello: lengths that lie, huge ones included");
	b = alpn_body(body, one);
	n = 0;
	n = put_alpn_ext(ext, n, body, b);
	at = hello(&h, 4, ext, n);
	sid_at = 4 + 2 + 32;
	suites_at = sid_at + 1 + 4;
	expect_result(h.b, h.n, "smb");

	/* The extensions' length past the message, short of it, huge. */
	expect_bad(&h, at - 2, n + 1, -EBADMSG);
	expect_bad(&h, at - 2, n - 1, -EBADMSG);
	expect_bad(&h, at - 2, 0xffff, -EBADMSG);
	/* The ALPN extension's length past the extensions. */
	expect_bad(&h, at + 2, b + 1, -EBADMSG);
	expect_bad(&h, at + 2, 0xffff, -EBADMSG);
	/* The name list's length: longer, shorter, empty, huge. */
	expect_bad(&h, at + 4, b - 1, -EBADMSG);
	expect_bad(&h, at + 4, b - 3, -EBADMSG);
	expect_bad(&h, at + 4, 0, -EBADMSG);
	expect_bad(&h, at + 4, 0xffff, -EBADMSG);
	/* Cipher suites: odd counts are fine to skip, none is not. */
	expect_bad(&h, suites_at, 0, -EBADMSG);
	expect_bad(&h, suites_at, 0xffff, -EBADMSG);

	snprintf(want, sizeof(want), "%d", -EBADMSG);
	/* A name of length 0, of length past the list. */
	h.b[at + 6] = 0;
	expect_result(h.b, h.n, want);
	h.b[at + 6] = 4;
	expect_result(h.b, h.n, want);
	h.b[at + 6] = 3;
	/* A session id over 32 bytes. */
	h.b[sid_at] = 33;
	expect_result(h.b, h.n, want);
	h.b[sid_at] = 4;
	/* Not a ClientHello. */
	h.b[0] = 2;
	expect_result(h.b, h.n, want);
	expect_result(h.b, 1, want);
	h.b[0] = 1;
	/* The message claims 16 MB: what is given is only a prefix. */
	h.b[1] = h.b[2] = h.b[3] = 0xff;
	snprintf(want, sizeof(want), "%d", -EBADMSG);
	expect_result(h.b, h.n, want);	/* extensions end before it */
	h.b[1] = 0;
	h.b[2] = (h.n - 4) >> 8;
	h.b[3] = h.n - 4;
	/* The message shorter than its fields. */
	h.b[3] -= 1;
	expect_result(h.b, h.n, want);
	h.b[2] = 0;
	h.b[3] = 10;
	expect_result(h.b, h.n, want);
	tap_end();
}

static void test_csv(void)
{
	tap_begin("tls_hello: comma-separated ALPN lists");
	EXPECT(quic_alpn_csv_has("h3", (const u8 *)"h3", 2));
	EXPECT(quic_alpn_csv_has("smb,h3", (const u8 *)"h3", 2));
	EXPECT(quic_alpn_csv_has(",h3,,", (const u8 *)"h3", 2));
	EXPECT(!quic_alpn_csv_has("h3-29,hq", (const u8 *)"h3", 2));
	EXPECT(!quic_alpn_csv_has("h3", (const u8 *)"h", 1));
	EXPECT(!quic_alpn_csv_has("", (const u8 *)"h3", 2));
	EXPECT(quic_alpn_csv_overlap("smb,h3", "hq-interop,h3"));
	EXPECT(!quic_alpn_csv_overlap("smb,h3", "hq-interop,h3-29"));
	EXPECT(!quic_alpn_csv_overlap("", "h3"));
	EXPECT(!quic_alpn_csv_overlap("h3", ""));
	tap_end();
}

void tls_hello_tests(void)
{
	test_valid();
	test_absent_and_grease();
	test_lies();
	test_csv();
}

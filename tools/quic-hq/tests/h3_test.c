// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host tests of quic-hq's HTTP/3 and QPACK codec (TAP): vectors from
 * RFC 9000, RFC 7541 and RFC 9204, bytes captured from nghttp3 (Debian's
 * gtlsserver/gtlsclient talking to a peer that advertised no dynamic
 * table; see capture_h3.py) and from ls-qpack (pylsqpack), round trips,
 * and truncated, malformed and random input.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../h3.h"

static int n, failed;

static void ok(int cond, const char *name)
{
	n++;
	if (!cond)
		failed++;
	printf("%sok %d - h3: %s\n", cond ? "" : "not ", n, name);
}

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t len = 0;
	unsigned int b;

	while (*s && len < cap) {
		if (*s == ' ') {
			s++;
			continue;
		}
		if (sscanf(s, "%2x", &b) != 1)
			break;
		out[len++] = (uint8_t)b;
		s += 2;
	}
	return len;
}

/* ---- collecting decoded fields ---------------------------------------- */

struct fields {
	int n;
	char name[16][64];
	char value[16][256];
};

static int collect(void *arg, const struct qpack_field *f)
{
	struct fields *x = arg;

	if (x->n == 16 || f->nlen >= 64 || f->vlen >= 256)
		return -1;
	memcpy(x->name[x->n], f->name, f->nlen);
	x->name[x->n][f->nlen] = 0;
	memcpy(x->value[x->n], f->value, f->vlen);
	x->value[x->n][f->vlen] = 0;
	x->n++;
	return 0;
}

static int decode_hex(const char *hex, struct fields *x)
{
	uint8_t buf[1024];
	size_t len = unhex(hex, buf, sizeof(buf));

	memset(x, 0, sizeof(*x));
	return qpack_decode(buf, len, collect, x);
}

static int has(const struct fields *x, int i, const char *name, const char *value)
{
	return i < x->n && !strcmp(x->name[i], name) && !strcmp(x->value[i], value);
}

/* ---- varints -------------------------------------------------------- */

static int varint_is(const char *hex, uint64_t want)
{
	uint8_t buf[8], out[8];
	size_t len = unhex(hex, buf, sizeof(buf)), i;
	uint64_t v;

	if (h3_varint_get(buf, len, &v) != len || v != want)
		return 0;
	for (i = 0; i < len; i++)	/* every shorter prefix: need more */
		if (h3_varint_get(buf, i, &v))
			return 0;
	/* we write the shortest form; RFC 9000's 0x4025 example is not */
	len = h3_varint_put(out, sizeof(out), want);
	return len == h3_varint_len(want) && h3_varint_get(out, len, &v) == len &&
	       v == want;
}

static void test_varint(void)
{
	static const uint64_t edges[] = { 0, 63, 64, 16383, 16384, 1073741823,
					  1073741824, H3_VARINT_MAX };
	uint8_t buf[8];
	uint64_t v;
	int good = 1;
	size_t i;

	ok(varint_is("c2197c5eff14e88c", 151288809941952652ULL) &&
	   varint_is("9d7f3e7d", 494878333) && varint_is("7bbd", 15293) &&
	   varint_is("25", 37) && varint_is("4025", 37),
	   "varints of RFC 9000 A.1");
	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		size_t k = h3_varint_put(buf, sizeof(buf), edges[i]);

		good &= k && h3_varint_get(buf, k, &v) == k && v == edges[i];
		good &= !h3_varint_put(buf, k - 1, edges[i]);	/* no room */
	}
	ok(good && !h3_varint_put(buf, 8, H3_VARINT_MAX + 1) &&
	   !h3_varint_len(H3_VARINT_MAX + 1) && !h3_varint_get(buf, 0, &v),
	   "varint edges, no room, too large, empty");
}

/* ---- prefixed integers ---------------------------------------------- */

static void test_prefix_int(void)
{
	uint8_t buf[16];
	uint64_t v;
	size_t k;
	int good = 1, i;

	/* RFC 7541 C.1.1-C.1.3 */
	k = qpack_int_put(buf, sizeof(buf), 5, 0, 10);
	good &= k == 1 && buf[0] == 0x0a;
	k = qpack_int_put(buf, sizeof(buf), 5, 0xe0, 1337);
	good &= k == 3 && buf[0] == 0xff && buf[1] == 0x9a && buf[2] == 0x0a;
	good &= qpack_int_get(buf, 3, 5, &v) == 3 && v == 1337;
	good &= qpack_int_get(buf, 2, 5, &v) == 0;	/* truncated */
	k = qpack_int_put(buf, sizeof(buf), 8, 0, 42);
	good &= k == 1 && buf[0] == 42;
	ok(good, "prefixed integers of RFC 7541 C.1");

	good = 1;
	for (i = 1; i <= 8; i++) {
		static const uint64_t vals[] = { 0, 1, 126, 127, 128, 255, 16510,
						 1ULL << 40, H3_VARINT_MAX };
		size_t j;

		for (j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
			k = qpack_int_put(buf, sizeof(buf), i, 0, vals[j]);
			good &= k && qpack_int_get(buf, k, i, &v) == (int)k &&
				v == vals[j];
		}
	}
	ok(good, "prefixed integers round trip, prefixes 1-8, up to 2^62-1");

	/* 2^62 and an endless continuation are refused */
	k = qpack_int_put(buf, sizeof(buf), 8, 0, H3_VARINT_MAX + 1);
	good = k && qpack_int_get(buf, k, 8, &v) < 0;
	memset(buf + 1, 0x80, 14);
	buf[15] = 0x01;
	ok(good && qpack_int_get(buf, 16, 8, &v) < 0 &&
	   qpack_int_get(buf, 0, 8, &v) == 0,
	   "prefixed integers above 62 bits are refused");
}

/* ---- Huffman --------------------------------------------------------- */

static int huff_is(const char *plain, const char *hex)
{
	uint8_t enc[128], mine[128];
	char dec[256];
	size_t len = unhex(hex, enc, sizeof(enc));
	int d = h3_huff_decode(enc, len, dec, sizeof(dec));
	int e = h3_huff_encode((const uint8_t *)plain, strlen(plain), mine,
			       sizeof(mine));

	return d == (int)strlen(plain) && !memcmp(dec, plain, (size_t)d) &&
	       e == (int)len && !memcmp(mine, enc, len) &&
	       h3_huff_len((const uint8_t *)plain, strlen(plain)) == len;
}

static void test_huffman(void)
{
	uint32_t code = 0;
	unsigned int prev = 0;
	uint64_t kraft = 0;	/* sum of 2^(30 - len) */
	uint8_t all[256], enc[1024];
	char dec[512];
	int good = 1, i, k;

	/* canonical: codes follow from the lengths, in symbol order within
	 * one length; complete: the Kraft sum is exactly 1
	 */
	for (k = 1; k <= 30; k++) {
		for (i = 0; i < 257; i++) {
			if (h3_huff_table[i].bits != k)
				continue;
			code <<= k - prev;
			prev = (unsigned int)k;
			good &= h3_huff_table[i].code == code;
			code++;
			kraft += 1ULL << (30 - k);
		}
	}
	ok(good && kraft == 1ULL << 30 && h3_huff_table[256].code == 0x3fffffff,
	   "Huffman table is canonical and complete, EOS is 30 ones");

	ok(huff_is("www.example.com", "f1e3 c2e5 f23a 6ba0 ab90 f4ff") &&
	   huff_is("no-cache", "a8eb 1064 9cbf") &&
	   huff_is("custom-key", "25a8 49e9 5ba9 7d7f") &&
	   huff_is("custom-value", "25a8 49e9 5bb8 e8b4 bf"),
	   "Huffman strings of RFC 7541 C.4");
	ok(huff_is("302", "6402") && huff_is("private", "aec3 771a 4b") &&
	   huff_is("Mon, 21 Oct 2013 20:13:21 GMT",
		   "d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff") &&
	   huff_is("https://www.example.com",
		   "9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3") &&
	   huff_is("307", "640e ff") &&
	   huff_is("Mon, 21 Oct 2013 20:13:22 GMT",
		   "d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff") &&
	   huff_is("gzip", "9bd9 ab") &&
	   huff_is("foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
		   "94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1"
		   "ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07"),
	   "Huffman strings of RFC 7541 C.6");

	for (i = 0; i < 256; i++)
		all[i] = (uint8_t)i;
	k = h3_huff_encode(all, 256, enc, sizeof(enc));
	ok(k > 0 && (size_t)k == h3_huff_len(all, 256) &&
	   h3_huff_decode(enc, (size_t)k, dec, sizeof(dec)) == 256 &&
	   !memcmp(dec, all, 256) && h3_huff_decode(enc, (size_t)k, dec, 255) < 0 &&
	   h3_huff_decode(enc, 0, dec, 1) == 0,
	   "Huffman round trip of all 256 symbols; output too small");

	/* "a" is 00011: padding must be ones (0x1f), not zeros (0x18);
	 * a byte of ones is padding longer than 7 bits; four bytes of
	 * ones hold EOS
	 */
	good = h3_huff_decode((const uint8_t *)"\x1f", 1, dec, 8) == 1 &&
	       dec[0] == 'a';
	ok(good && h3_huff_decode((const uint8_t *)"\x18", 1, dec, 8) < 0 &&
	   h3_huff_decode((const uint8_t *)"\x1f\xff", 2, dec, 8) < 0 &&
	   h3_huff_decode((const uint8_t *)"\xff", 1, dec, 8) < 0 &&
	   h3_huff_decode((const uint8_t *)"\xff\xff\xff\xff", 4, dec, 8) < 0,
	   "Huffman: zero padding, padding over 7 bits, EOS are refused");
}

/* ---- QPACK ----------------------------------------------------------- */

static void test_qpack_static(void)
{
	ok(!strcmp(qpack_static[0].name, ":authority") && !*qpack_static[0].value &&
	   !strcmp(qpack_static[17].value, "GET") &&
	   !strcmp(qpack_static[25].name, ":status") &&
	   !strcmp(qpack_static[25].value, "200") &&
	   !strcmp(qpack_static[52].value, "text/html; charset=utf-8") &&
	   !strcmp(qpack_static[85].value,
		   "script-src 'none'; object-src 'none'; base-uri 'none'") &&
	   !strcmp(qpack_static[95].name, "user-agent") &&
	   !strcmp(qpack_static[98].name, "x-frame-options") &&
	   !strcmp(qpack_static[98].value, "sameorigin"),
	   "QPACK static table (RFC 9204 Appendix A), spot checks");
}

static void test_qpack_decode(void)
{
	struct fields x;
	char want[64];
	int i, good = 1;

	ok(!decode_hex("0000 510b 2f69 6e64 6578 2e68 746d 6c", &x) && x.n == 1 &&
	   has(&x, 0, ":path", "/index.html"),
	   "RFC 9204 B.1: literal with static name reference");

	/* nghttp3 (gtlsserver) answering GET /hello.txt */
	ok(!decode_hex("0000d95f4d8faa69d29ad962a9924ac4a20b6772d9f5540136", &x) &&
	   x.n == 4 && has(&x, 0, ":status", "200") &&
	   has(&x, 1, "server", "nghttp3/ngtcp2 server") &&
	   has(&x, 2, "content-type", "text/plain") &&
	   has(&x, 3, "content-length", "6"),
	   "nghttp3 response: indexed, static name refs, Huffman value");

	/* nghttp3 (gtlsclient) asking for /some/file.bin */
	ok(!decode_hex("0000d1d7508b089d5c0b8170dc134d342f518a6107a4ac4a6a0abc66ab"
		       "5f508faa69d29ad962a9924ac4a128316a4f", &x) && x.n == 5 &&
	   has(&x, 0, ":method", "GET") && has(&x, 1, ":scheme", "https") &&
	   has(&x, 2, ":authority", "127.0.0.1:24442") &&
	   has(&x, 3, ":path", "/some/file.bin") &&
	   has(&x, 4, "user-agent", "nghttp3/ngtcp2 client"),
	   "nghttp3 request: Huffman :authority, :path, user-agent");

	/* ls-qpack (pylsqpack), with a literal Huffman name */
	ok(!decode_hex("0000d1d7508c2f91d35d055cf64d71a699675186606c46bc66ab5f50"
		       "8625b650c3cb83", &x) && x.n == 5 &&
	   has(&x, 2, ":authority", "example.org:4433") &&
	   has(&x, 3, ":path", "/a/b.bin") && has(&x, 4, "user-agent", "curl/8.0") &&
	   !decode_hex("0000d95486081a79b75c075f4d89198fdad31180ae25c12f04f2b12d"
		       "424f4ad3947216cf91dc7a4aa711d1697ed4f064cf06e4db2cbf", &x) &&
	   x.n == 4 && has(&x, 1, "content-length", "10485760") &&
	   has(&x, 2, "server", "aioquic/1.2.0") &&
	   has(&x, 3, "x-custom-header", "Some Value; with=Stuff"),
	   "ls-qpack request and response, Huffman literal name");

	/* ls-qpack's Huffman of bytes with long codes: 28 'a', the byte,
	 * 4 'a', as the value of x-test
	 */
	{
		static const struct { int sym; const char *hex; } v[] = {
			{ 0, "00002df2b24a84ff9618c6318c6318c6318c6318c6318c6318c63ffc0c631f" },
			{ 1, "00002df2b24a84ff9718c6318c6318c6318c6318c6318c6318c63ffffb0318c7" },
			{ 10, "00002df2b24a84ff9818c6318c6318c6318c6318c6318c6318c63fffffff06318f" },
			{ 127, "00002df2b24a84ff9818c6318c6318c6318c6318c6318c6318c63ffffffc18c63f" },
			{ 128, "00002df2b24a84ff9718c6318c6318c6318c6318c6318c6318c63fffe618c63f" },
			{ 153, "00002df2b24a84ff9718c6318c6318c6318c6318c6318c6318c63fffee0c631f" },
			{ 200, "00002df2b24a84ff9818c6318c6318c6318c6318c6318c6318c63fffff886318ff" },
			{ 255, "00002df2b24a84ff9818c6318c6318c6318c6318c6318c6318c63fffffb86318ff" },
		};

		for (i = 0; i < (int)(sizeof(v) / sizeof(v[0])); i++) {
			memset(want, 'a', 33);
			want[28] = (char)v[i].sym;
			want[33] = 0;
			good &= !decode_hex(v[i].hex, &x) && x.n == 1 &&
				!strcmp(x.name[0], "x-test") &&
				!memcmp(x.value[0], want, 33);
		}
		ok(good, "ls-qpack Huffman of symbols 0, 1, 10, 127, 128, 153, 200, 255");
	}
}

static void test_qpack_errors(void)
{
	static const char *bad[] = {
		"0200 d1",		/* Required Insert Count 2 */
		"0080 d1",		/* Base below Required Insert Count */
		"0000 81",		/* indexed, dynamic table */
		"0000 41 00",		/* name reference, dynamic table */
		"0000 10",		/* indexed, post-Base */
		"0000 00 00",		/* name reference, post-Base */
		"0000 ff24",		/* static index 99 */
		"0000 5f54 00",		/* static name index 99 */
		"0000 51 05 2f61",	/* value shorter than its length */
		"0000 23 61 62",	/* name cut short */
		"0000 51 81 00",	/* Huffman value: zero padding */
		"0000 51 84 ffffffff",	/* Huffman value: EOS */
		"0000 ff",		/* index cut short */
		"00",			/* prefix cut short */
		"",
	};
	uint8_t buf[128];
	struct fields x;
	size_t i, len;
	int good = 1, ret;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = decode_hex(bad[i], &x);
		if (ret != -QPACK_DECOMPRESSION_FAILED) {
			printf("# %s: %d\n", bad[i], ret);
			good = 0;
		}
	}
	ok(good, "QPACK: dynamic references, bad indexes, short and bad strings "
	   "are QPACK_DECOMPRESSION_FAILED");

	/* every prefix of a good section: a clean error or fewer fields */
	len = unhex("0000d1d7508b089d5c0b8170dc134d342f518a6107a4ac4a6a0abc66ab"
		    "5f508faa69d29ad962a9924ac4a128316a4f", buf, sizeof(buf));
	for (i = 0; i < len; i++) {
		memset(&x, 0, sizeof(x));
		ret = qpack_decode(buf, i, collect, &x);
		good &= ret == -QPACK_DECOMPRESSION_FAILED ||
			(!ret && x.n < 5);
	}
	ok(good, "QPACK: every truncation of a request fails cleanly");
}

static int encode_decode(const struct qpack_field *f, size_t nf, struct fields *x)
{
	uint8_t buf[2048];
	int len = qpack_encode(buf, sizeof(buf), f, nf);

	memset(x, 0, sizeof(*x));
	return len < 0 ? -1 : qpack_decode(buf, (size_t)len, collect, x);
}

#define F(n, v) { n, v, sizeof(n) - 1, sizeof(v) - 1 }

static void test_qpack_encode(void)
{
	static const struct qpack_field req[] = {
		F(":method", "GET"), F(":scheme", "https"),
		F(":authority", "h:4433"), F(":path", "/"),
	};
	static const struct qpack_field odd[] = {
		F(":status", "200"), F("content-length", "12345"),
		F("x-a-rather-long-header-name", "value"), F("server", ""),
		F(":path", "/x"), F("cache-control", "no-store"),
	};
	static const uint8_t want[] = { 0x00, 0x00, 0xd1, 0xd7, 0x50, 0x06, 'h',
					':', '4', '4', '3', '3', 0xc1 };
	uint8_t buf[64];
	struct fields x;
	int len = qpack_encode(buf, sizeof(buf), req, 4), i, good = 1;

	ok(len == (int)sizeof(want) && !memcmp(buf, want, sizeof(want)),
	   "QPACK encoder: static index, static name + literal value");
	ok(!encode_decode(odd, 6, &x) && x.n == 6 &&
	   has(&x, 0, ":status", "200") && has(&x, 1, "content-length", "12345") &&
	   has(&x, 2, "x-a-rather-long-header-name", "value") &&
	   has(&x, 3, "server", "") && has(&x, 4, ":path", "/x") &&
	   has(&x, 5, "cache-control", "no-store"),
	   "QPACK encoder round trip: literal names, empty value");
	for (i = 0; i < len; i++)
		good &= qpack_encode(buf, (size_t)i, req, 4) == -1;
	ok(good, "QPACK encoder: every too small buffer is refused");
}

/* ---- frames ----------------------------------------------------------- */

struct evlog {
	int n;
	uint64_t frame[16];
	int type[16];
	size_t len[16];
	uint8_t data[256];
	size_t dlen;
};

/* Feed a stream in pieces of step bytes; log the events. */
static int read_frames(const uint8_t *p, size_t len, size_t step,
		       struct evlog *l)
{
	struct h3_rd rd = { 0 };
	int ret = 0;

	memset(l, 0, sizeof(*l));
	while (len && !ret) {
		size_t k = len < step ? len : step, m = k;
		const uint8_t *q = p;

		for (;;) {
			struct h3_ev ev;

			ret = h3_rd_next(&rd, &q, &m, &ev);
			if (ret || ev.type == H3_EV_NONE)
				break;
			if (l->n < 16) {
				l->type[l->n] = ev.type;
				l->frame[l->n] = ev.frame;
				l->len[l->n] = ev.len;
				l->n++;
			}
			if (ev.type == H3_EV_DATA && l->dlen + ev.len <= sizeof(l->data)) {
				memcpy(l->data + l->dlen, ev.p, ev.len);
				l->dlen += ev.len;
			}
			if (ev.type == H3_EV_FRAME && ev.frame == H3_FRAME_HEADERS &&
			    (ev.len != 3 || memcmp(ev.p, "\x00\x00\xd9", 3)))
				ret = -1;	/* payload differs */
		}
		p += k;
		len -= k;
	}
	if (!ret && !h3_rd_idle(&rd))
		ret = 1;
	h3_rd_free(&rd);
	return ret;
}

static void test_frames(void)
{
	/* HEADERS(:status 200), reserved type 0x21 (3 bytes), DATA "hello",
	 * unknown type 0x1234 (2-byte varint, empty), DATA empty, DATA "!"
	 */
	static const char *hex = "0103 0000d9 2103 616263 000568656c6c6f 523400 0000 000121";
	uint8_t buf[64], hdr[16];
	struct evlog l;
	size_t len = unhex(hex, buf, sizeof(buf)), step;
	uint64_t t, fl;
	int good = 1;

	for (step = 1; step <= len; step++) {
		int i, empty = 0;

		/* DATA comes in as many pieces as the input had */
		good &= !read_frames(buf, len, step, &l) &&
			l.type[0] == H3_EV_FRAME && l.frame[0] == H3_FRAME_HEADERS &&
			l.dlen == 6 && !memcmp(l.data, "hello!", 6);
		for (i = 1; i < l.n; i++) {
			good &= l.type[i] == H3_EV_DATA;
			empty += !l.len[i];
		}
		good &= empty == 1;
	}
	ok(good, "frame reader: HEADERS, DATA, reserved and unknown frames "
	   "skipped, empty DATA, in pieces of every size");

	ok(read_frames(buf, len - 1, 1, &l) == 1 && read_frames(buf, 1, 1, &l) == 1,
	   "frame reader: a stream cut inside a frame is not idle");

	len = unhex("0200", buf, sizeof(buf));
	good = read_frames(buf, len, 1, &l) == -H3_FRAME_UNEXPECTED;
	len = unhex("0600 0800 0900", buf, sizeof(buf));
	good &= read_frames(buf, 2, 1, &l) == -H3_FRAME_UNEXPECTED &&
		read_frames(buf + 2, 2, 1, &l) == -H3_FRAME_UNEXPECTED &&
		read_frames(buf + 4, 2, 1, &l) == -H3_FRAME_UNEXPECTED;
	ok(good, "frame reader: HTTP/2-only frame types are H3_FRAME_UNEXPECTED");

	len = h3_frame_hdr_put(buf, sizeof(buf), H3_FRAME_HEADERS, H3_FRAME_MAX + 1);
	ok(read_frames(buf, len, 64, &l) == -H3_EXCESSIVE_LOAD,
	   "frame reader: HEADERS over 64 KiB is H3_EXCESSIVE_LOAD");

	len = h3_frame_hdr_put(hdr, sizeof(hdr), 0x3fffffffffffffffULL, H3_VARINT_MAX);
	ok(len == 16 && h3_frame_hdr_get(hdr, len, &t, &fl) == 16 &&
	   t == H3_VARINT_MAX && fl == H3_VARINT_MAX &&
	   !h3_frame_hdr_get(hdr, 15, &t, &fl) && !h3_frame_hdr_put(hdr, 15, t, fl),
	   "frame header of two 8-byte varints; short ones");
}

/* ---- settings and the peer's unidirectional streams -------------------- */

static int uni_hex(struct h3_conn *c, int64_t sid, const char *hex, int fin)
{
	uint8_t buf[128];
	size_t len = unhex(hex, buf, sizeof(buf)), i;
	int ret = 0;

	for (i = 0; i < len && !ret; i++)	/* a byte at a time */
		ret = h3_conn_uni(c, sid, buf + i, 1, fin && i == len - 1);
	if (!len)
		ret = h3_conn_uni(c, sid, buf, 0, fin);
	return ret;
}

static void test_settings(void)
{
	struct h3_settings s;
	uint8_t buf[64];
	size_t len;
	int k;

	/* nghttp3's: MAX_FIELD_SECTION_SIZE 2^62-1, capacity 4096, blocked 100 */
	len = unhex("06ffffffffffffffff 015000 074064", buf, sizeof(buf));
	ok(!h3_settings_parse(buf, len, &s) && s.max_field_section_size == H3_VARINT_MAX &&
	   s.max_table_capacity == 4096 && s.blocked_streams == 100,
	   "SETTINGS of nghttp3");
	len = unhex("0100 0101", buf, sizeof(buf));
	k = h3_settings_parse(buf, len, &s);
	len = unhex("0200", buf, sizeof(buf));
	ok(k == -H3_SETTINGS_ERROR && h3_settings_parse(buf, len, &s) == -H3_SETTINGS_ERROR &&
	   h3_settings_parse(buf, 1, &s) == -H3_FRAME_ERROR,
	   "SETTINGS: duplicate, HTTP/2 id, cut in half");
	len = unhex("2105 4040 0f 21 00", buf, sizeof(buf));
	ok(!h3_settings_parse(buf, len, &s) && s.max_table_capacity == 0,
	   "SETTINGS: reserved and unknown ids are ignored");

	k = h3_control_preface(buf, sizeof(buf));
	ok(k == 15 && !memcmp(buf, "\x00\x04\x0c\x01\x00\x07\x00\x06\x80\x00\x40\x00\x40\x5f\x00", 15) &&
	   h3_control_preface(buf, 14) < 0,
	   "our control stream: type 0, SETTINGS capacity 0, blocked 0, "
	   "field section 16384, one reserved");
}

static void test_uni(void)
{
	struct h3_conn c;
	int good;

	/* a client reading gtlsserver's streams */
	h3_conn_init(&c, 0);
	good = !uni_hex(&c, 3, "00040f06ffffffffffffffff015000074064", 0) &&
	       !uni_hex(&c, 7, "02", 0) && !uni_hex(&c, 11, "03", 0) &&
	       !uni_hex(&c, 7, "3fe11f", 0) && c.have_settings &&
	       c.peer.max_table_capacity == 4096 && c.control == 3;
	good &= !uni_hex(&c, 3, "0701 08", 0) && c.goaway == 8;
	good &= uni_hex(&c, 3, "0701 0c", 0) == -H3_ID_ERROR;	/* grew */
	ok(good, "client: nghttp3's control and QPACK streams, GOAWAY");
	h3_conn_free(&c);

	h3_conn_init(&c, 0);
	ok(uni_hex(&c, 3, "00 0701 00", 0) == -H3_MISSING_SETTINGS &&
	   !uni_hex(&c, 3, "0400", 0) /* ignored after the error */,
	   "control stream must start with SETTINGS");
	h3_conn_free(&c);

	h3_conn_init(&c, 1);
	good = !uni_hex(&c, 2, "00 0400", 0) &&
	       uni_hex(&c, 6, "00 0400", 0) == -H3_STREAM_CREATION_ERROR &&
	       uni_hex(&c, 2, "0400", 0) == -H3_FRAME_UNEXPECTED;
	ok(good, "server: second control stream, second SETTINGS");
	h3_conn_free(&c);

	h3_conn_init(&c, 1);
	good = !uni_hex(&c, 2, "00 0400 0d01 05 0301 00 2100", 0) &&
	       uni_hex(&c, 2, "", 1) == -H3_CLOSED_CRITICAL_STREAM;
	ok(good, "server: MAX_PUSH_ID, CANCEL_PUSH, reserved frame; control "
	   "stream closed is H3_CLOSED_CRITICAL_STREAM");
	h3_conn_free(&c);

	h3_conn_init(&c, 1);
	good = !uni_hex(&c, 2, "00 0400", 0) &&
	       uni_hex(&c, 6, "01", 0) == -H3_STREAM_CREATION_ERROR &&
	       !uni_hex(&c, 6, "0102", 0) &&
	       !uni_hex(&c, 10, "4054 ffffff", 1) &&	/* unknown type 0x54 */
	       !uni_hex(&c, 14, "", 1) && /* closed before its type */
	       uni_hex(&c, 2, "0001 00", 0) == -H3_FRAME_UNEXPECTED;
	ok(good, "server: push stream refused, unknown types and early close "
	   "tolerated, DATA on control is H3_FRAME_UNEXPECTED");
	h3_conn_free(&c);

	h3_conn_init(&c, 0);
	good = !uni_hex(&c, 3, "00 0400", 0) &&
	       uni_hex(&c, 7, "01 00", 0) == -H3_ID_ERROR &&
	       uni_hex(&c, 3, "0d01 00", 0) == -H3_FRAME_UNEXPECTED;
	ok(good, "client: push stream without MAX_PUSH_ID, MAX_PUSH_ID from a server");
	h3_conn_free(&c);
}

/* ---- responses (client) ------------------------------------------------ */

struct body {
	uint8_t buf[512];
	size_t len;
};

static int sink(void *arg, const uint8_t *p, size_t len)
{
	struct body *b = arg;

	if (b->len + len > sizeof(b->buf))
		return -1;
	memcpy(b->buf + b->len, p, len);
	b->len += len;
	return 0;
}

/* Feed a response in pieces of step bytes; the result of the last call. */
static int resp_hex(const char *hex, size_t step, struct h3_resp *r,
		    struct body *b)
{
	uint8_t buf[512];
	size_t len = unhex(hex, buf, sizeof(buf)), off = 0;
	int ret = 0;

	h3_resp_init(r);
	memset(b, 0, sizeof(*b));
	do {
		size_t k = len - off < step ? len - off : step;

		ret = h3_resp_feed(r, buf + off, k, off + k == len, sink, b);
		off += k;
	} while (!ret && off < len);
	h3_resp_free(r);
	return ret;
}

static void test_response(void)
{
	/* gtlsserver's answer to GET /hello.txt, as captured */
	static const char *hello =
		"01190000d95f4d8faa69d29ad962a9924ac4a20b6772d9f5540136"
		"000668656c6c6f0a";
	struct h3_resp r;
	struct body b;
	size_t step;
	int good = 1;

	for (step = 1; step <= 40; step++)
		good &= resp_hex(hello, step, &r, &b) == 1 && b.len == 6 &&
			!memcmp(b.buf, "hello\n", 6) && r.status == 200 &&
			r.length == 6;
	ok(good, "response of nghttp3: status 200, content in pieces of every size");

	ok(resp_hex("011b0000db5f4d8faa69d29ad962a9924ac4a20b6772d9f454033134370040"
		    "933c68746d6c3e", 1000, &r, &b) == -H3_ERR_STATUS &&
	   r.status == 404 && !b.len,
	   "response 404 of nghttp3: H3_ERR_STATUS, no content written");

	ok(resp_hex("0103 0000d8 0103 0000d9 0002 6869 0103 0000c2", 1000, &r, &b) == 1 &&
	   b.len == 2 && r.status == 200,
	   "interim 103, then 200, content, trailers");
	ok(resp_hex("0002 6869 0103 0000d9", 1000, &r, &b) == -H3_FRAME_UNEXPECTED &&
	   resp_hex("0103 0000d8 0002 6869", 1000, &r, &b) == -H3_FRAME_UNEXPECTED &&
	   resp_hex("0103 0000d9 0103 0000c2 0103 0000c2", 1000, &r, &b) == -H3_FRAME_UNEXPECTED &&
	   resp_hex("0103 0000d9 0400", 1000, &r, &b) == -H3_FRAME_UNEXPECTED &&
	   resp_hex("0103 0000d9 0501 00", 1000, &r, &b) == -H3_ID_ERROR,
	   "DATA before HEADERS or after 1xx, HEADERS after trailers, SETTINGS, "
	   "PUSH_PROMISE");
	ok(resp_hex("0103 0000d9 0005 6869", 1000, &r, &b) == -H3_FRAME_ERROR &&
	   resp_hex("0106 0000d9 540132 0001 68", 1000, &r, &b) == -H3_MESSAGE_ERROR &&
	   resp_hex("0106 0000d9 540131 0002 6869", 1000, &r, &b) == -H3_MESSAGE_ERROR &&
	   resp_hex("0103 0000d8", 1000, &r, &b) == -H3_MESSAGE_ERROR &&
	   resp_hex("", 1000, &r, &b) == -H3_MESSAGE_ERROR,
	   "cut inside DATA, shorter or longer than content-length, no final "
	   "status, nothing at all");
	ok(resp_hex("0102 0000", 1000, &r, &b) == -H3_MESSAGE_ERROR &&
	   resp_hex("0104 0000d9d9", 1000, &r, &b) == -H3_MESSAGE_ERROR &&
	   resp_hex("0104 0000c1d9", 1000, &r, &b) == -H3_MESSAGE_ERROR &&
	   resp_hex("0107 0000 5f09 023230", 1000, &r, &b) == -H3_MESSAGE_ERROR &&
	   resp_hex("0107 0000 2162 0131 d9", 1000, &r, &b) == -H3_MESSAGE_ERROR &&
	   resp_hex("0108 0000 5f09 03313031", 1000, &r, &b) == -H3_MESSAGE_ERROR &&
	   resp_hex("0107 0000d9 5402 3161", 1000, &r, &b) == -H3_MESSAGE_ERROR &&
	   resp_hex("0104 0000 8100", 1000, &r, &b) == -QPACK_DECOMPRESSION_FAILED,
	   "malformed heads: no :status, two, a request pseudo-header, status "
	   "\"20\", pseudo after regular, 101, bad content-length; dynamic reference");
}

/* ---- requests (server) ------------------------------------------------- */

static int req_hex(const char *hex, size_t step, char *method, char *path)
{
	uint8_t buf[512];
	size_t len = unhex(hex, buf, sizeof(buf)), off = 0;
	struct h3_req r = { 0 };
	int ret = 0;

	do {
		size_t k = len - off < step ? len - off : step;

		ret = h3_req_feed(&r, buf + off, k, off + k == len, method, 16,
				  path, 64);
		off += k;
	} while (!ret && off < len);
	if (!len)
		ret = h3_req_feed(&r, buf, 0, 1, method, 16, path, 64);
	h3_req_free(&r);
	return ret;
}

static void test_request(void)
{
	static const char *gtls =
		"012f0000d1d7508b089d5c0b8170dc134d342f518a6107a4ac4a6a0abc66ab"
		"5f508faa69d29ad962a9924ac4a128316a4f";
	char m[16], p[64];
	uint8_t buf[256];
	size_t step;
	int good = 1, len;

	for (step = 1; step <= 50; step++)
		good &= req_hex(gtls, step, m, p) == 1 && !strcmp(m, "GET") &&
			!strcmp(p, "/some/file.bin");
	ok(good, "request of nghttp3 (gtlsclient), in pieces of every size");

	len = h3_request(buf, sizeof(buf), "HEAD", "[::1]:4433", "/a?b=c");
	{
		struct h3_req r = { 0 };

		good = len > 0 && h3_req_feed(&r, buf, (size_t)len, 1, m, 16, p, 64) == 1 &&
		       !strcmp(m, "HEAD") && !strcmp(p, "/a?b=c");
		h3_req_free(&r);
	}
	ok(good, "our request builder, read back");

	ok(req_hex("0103 0000d1", 100, m, p) == -H3_MESSAGE_ERROR &&	/* :method only */
	   req_hex("0104 0000d1c1", 100, m, p) == -H3_MESSAGE_ERROR &&	/* no :scheme */
	   req_hex("0105 0000d1d7c1 ", 100, m, p) == 1 &&
	   req_hex("0106 0000d1d7c1c1", 100, m, p) == -H3_MESSAGE_ERROR &&
	   req_hex("0106 0000d1d7c1d9", 100, m, p) == -H3_MESSAGE_ERROR &&
	   req_hex("0109 0000d1d7 2141 0161 c1", 100, m, p) == -H3_MESSAGE_ERROR &&
	   req_hex("0107 0000d1d7 5100 c1", 100, m, p) == -H3_MESSAGE_ERROR &&
	   req_hex("010a 0000d1d7 51 04 2f610d0a", 100, m, p) == -H3_MESSAGE_ERROR,
	   "malformed requests: no :scheme or :path, :path twice, :status, "
	   "uppercase name, empty :path, CR LF in :path");
	ok(req_hex("", 100, m, p) == -H3_REQUEST_INCOMPLETE &&
	   req_hex("0103 0000", 100, m, p) == -H3_REQUEST_INCOMPLETE &&
	   req_hex("0001 61", 100, m, p) == -H3_FRAME_UNEXPECTED &&
	   req_hex("0400", 100, m, p) == -H3_FRAME_UNEXPECTED &&
	   req_hex("0700", 100, m, p) == -H3_FRAME_UNEXPECTED &&
	   req_hex("2100 0105 0000d1d7c1", 100, m, p) == 1,
	   "requests: ended early, DATA first, SETTINGS or GOAWAY on a request "
	   "stream; a reserved frame first is fine");

	len = h3_response_head(buf, sizeof(buf), 200, 1000000, 1);
	ok(len == 19 && !memcmp(buf, "\x01\x0c\x00\x00\xd9\x54\x07" "1000000"
				"\x00\x80\x0f\x42\x40", 19),
	   "response head: HEADERS 200 + content-length, DATA header of 1000000");
}

/* ---- random input --------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static int ignore_fields(void *arg, const struct qpack_field *f)
{
	(void)arg;
	(void)f;
	return 0;
}

static int drop(void *arg, const uint8_t *p, size_t len)
{
	(void)arg, (void)p, (void)len;
	return 0;
}

static void test_random(void)
{
	uint8_t buf[256];
	char out[512], m[16], p[64];
	int i, j;

	for (i = 0; i < 20000; i++) {
		size_t len = rnd() % sizeof(buf);
		struct h3_resp r;
		struct h3_req q = { 0 };
		struct h3_conn c;

		for (j = 0; j < (int)len; j++)
			buf[j] = (uint8_t)rnd();
		/* keep the first bytes plausible half of the time */
		if (i & 1 && len > 4) {
			buf[0] = 0x01;
			buf[1] = (uint8_t)(len - 2 < 63 ? len - 2 : 63);
			buf[2] = 0;
			buf[3] = 0;
		}
		qpack_decode(buf + 2, len > 2 ? len - 2 : 0, ignore_fields, NULL);
		h3_huff_decode(buf, len, out, sizeof(out));
		h3_resp_init(&r);
		h3_resp_feed(&r, buf, len, (int)(i & 2), drop, NULL);
		h3_resp_free(&r);
		h3_req_feed(&q, buf, len, (int)(i & 2), m, sizeof(m), p, sizeof(p));
		h3_req_free(&q);
		h3_conn_init(&c, i & 4);
		h3_conn_uni(&c, 2 + 4 * (i & 7), buf, len, (int)(i & 2));
		h3_conn_free(&c);
	}
	ok(1, "20000 random inputs to every decoder: no crash");
}

int main(void)
{
	test_varint();
	test_prefix_int();
	test_huffman();
	test_qpack_static();
	test_qpack_decode();
	test_qpack_errors();
	test_qpack_encode();
	test_frames();
	test_settings();
	test_uni();
	test_response();
	test_request();
	test_random();
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/* Variable-length integers: RFC 9000 §16 and Appendix A.1 vectors. */
#include <linux/types.h>
#include <linux/errno.h>

#include "varint.h"
#include "suites.h"
#include "tap.h"

static const struct {
	const char *hex;
	u64 value;
	bool minimal;
} rfc_vectors[] = {
	/* RFC 9000 Appendix A.1 */
	{ "c2197c5eff14e88c", 151288809941952652ULL, true },
	{ "9d7f3e7d", 494878333, true },
	{ "7bbd", 15293, true },
	{ "25", 37, true },
	{ "4025", 37, false },
};

static void test_rfc_vectors(void)
{
	size_t i;

	for (i = 0; i < sizeof(rfc_vectors) / sizeof(rfc_vectors[0]); i++) {
		u8 in[8], out[8];
		size_t n = hex2bin(rfc_vectors[i].hex, in, sizeof(in));
		u64 v = 0;

		tap_begin("varint: decode RFC 9000 A.1 %s", rfc_vectors[i].hex);
		EXPECT_EQ(quic_varint_decode(in, n, &v), n);
		EXPECT_EQ(v, rfc_vectors[i].value);
		EXPECT_EQ(quic_varint_len(v) == n, rfc_vectors[i].minimal);
		tap_end();

		tap_begin("varint: encode %s on %zu bytes", rfc_vectors[i].hex, n);
		EXPECT_EQ(quic_varint_encode_fixed(out, sizeof(out), v, n), n);
		EXPECT_MEM(out, in, n);
		if (rfc_vectors[i].minimal) {
			EXPECT_EQ(quic_varint_encode(out, sizeof(out), v), n);
			EXPECT_MEM(out, in, n);
		}
		tap_end();
	}
}

static void test_forced_lengths(void)
{
	static const char * const want[] = {
		"25", "4025", "80000025", "c000000000000025"
	};
	unsigned int n, i;

	for (i = 0, n = 1; n <= 8; n *= 2, i++) {
		u8 out[8], exp[8];
		u64 v;

		tap_begin("varint: 37 forced on %u bytes", n);
		hex2bin(want[i], exp, sizeof(exp));
		EXPECT_EQ(quic_varint_encode_fixed(out, n, 37, n), n);
		EXPECT_MEM(out, exp, n);
		EXPECT_EQ(quic_varint_decode(out, n, &v), n);
		EXPECT_EQ(v, 37);
		tap_end();
	}
}

static void test_boundaries(void)
{
	static const struct {
		u64 v;
		unsigned int len;
	} b[] = {
		{ 0, 1 }, { 63, 1 }, { 64, 2 }, { 16383, 2 }, { 16384, 4 },
		{ (1ULL << 30) - 1, 4 }, { 1ULL << 30, 8 },
		{ QUIC_VARINT_MAX, 8 },
	};
	size_t i;

	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		u8 out[8];
		u64 v;

		tap_begin("varint: boundary %llu takes %u bytes",
			  (unsigned long long)b[i].v, b[i].len);
		EXPECT_EQ(quic_varint_len(b[i].v), b[i].len);
		EXPECT_EQ(quic_varint_encode(out, sizeof(out), b[i].v), b[i].len);
		EXPECT_EQ(quic_varint_len_byte(out[0]), b[i].len);
		EXPECT_EQ(quic_varint_decode(out, b[i].len, &v), b[i].len);
		EXPECT_EQ(v, b[i].v);
		if (b[i].len > 1)
			EXPECT_EQ(quic_varint_encode_fixed(out, 8, b[i].v,
							   b[i].len / 2),
				  -EINVAL);
		tap_end();
	}
}

static void test_errors(void)
{
	u8 out[8] = { 0 };
	u64 v;
	int n;

	tap_begin("varint: 2^62 and above cannot be encoded");
	EXPECT_EQ(quic_varint_len(QUIC_VARINT_MAX + 1), 0);
	EXPECT_EQ(quic_varint_encode(out, 8, QUIC_VARINT_MAX + 1), -EINVAL);
	EXPECT_EQ(quic_varint_encode_fixed(out, 8, ~0ULL, 8), -EINVAL);
	tap_end();

	tap_begin("varint: forced length must be 1, 2, 4 or 8");
	EXPECT_EQ(quic_varint_encode_fixed(out, 8, 1, 0), -EINVAL);
	EXPECT_EQ(quic_varint_encode_fixed(out, 8, 1, 3), -EINVAL);
	EXPECT_EQ(quic_varint_encode_fixed(out, 8, 1, 16), -EINVAL);
	tap_end();

	tap_begin("varint: -ENOSPC for every short output, nothing written");
	for (n = 1; n <= 8; n *= 2) {
		int room;

		for (room = 0; room < n; room++) {
			memset(out, 0xee, sizeof(out));
			EXPECT_EQ(quic_varint_encode_fixed(out, room, 5, n),
				  -ENOSPC);
			EXPECT_EQ(out[0], 0xee);
		}
	}
	tap_end();

	tap_begin("varint: decode of empty and truncated input");
	EXPECT_EQ(quic_varint_decode(out, 0, &v), -EBADMSG);
	for (n = 1; n <= 8; n *= 2) {
		int have;

		quic_varint_encode_fixed(out, 8, 1, n);
		for (have = 0; have < n; have++)
			EXPECT_EQ(quic_varint_decode(out, have, &v), -EBADMSG);
	}
	tap_end();
}

static void test_random_roundtrip(void)
{
	u64 seed = 1, i;
	u8 buf[8];

	tap_begin("varint: 200000 random values round trip, minimal and forced");
	for (i = 0; i < 200000; i++) {
		u64 v = test_rand(&seed) >> (2 + test_rand(&seed) % 62);
		unsigned int len = quic_varint_len(v), n;
		u64 got;

		if (!EXPECT_EQ(quic_varint_encode(buf, 8, v), len))
			break;
		EXPECT_EQ(quic_varint_decode(buf, 8, &got), len);
		EXPECT_EQ(got, v);
		for (n = len; n <= 8; n *= 2) {
			EXPECT_EQ(quic_varint_encode_fixed(buf, 8, v, n), n);
			EXPECT_EQ(quic_varint_decode(buf, 8, &got), n);
			EXPECT_EQ(got, v);
		}
	}
	tap_end();
}

static void test_cursor(void)
{
	u8 buf[4] = { 0x40, 0x25, 0x01, 0x02 };
	struct quic_rd rd;
	struct quic_wr wr;
	const u8 *p;
	u64 v;
	u32 w;
	u8 b;

	tap_begin("varint: read cursor never passes its end");
	quic_rd_init(&rd, buf, sizeof(buf));
	EXPECT_EQ(quic_rd_varint(&rd, &v), 0);
	EXPECT_EQ(v, 37);
	EXPECT_EQ(quic_rd_be32(&rd, &w), -EBADMSG);
	EXPECT_EQ(quic_rd_ptr(&rd, 3, &p), -EBADMSG);
	EXPECT_EQ(quic_rd_ptr(&rd, ~0ULL, &p), -EBADMSG);
	EXPECT_EQ(quic_rd_left(&rd), 2);
	EXPECT_EQ(quic_rd_u8(&rd, &b), 0);
	EXPECT_EQ(quic_rd_u8(&rd, &b), 0);
	EXPECT_EQ(b, 2);
	EXPECT_EQ(quic_rd_u8(&rd, &b), -EBADMSG);
	tap_end();

	tap_begin("varint: write cursor refuses to overflow");
	quic_wr_init(&wr, buf, 3);
	EXPECT_EQ(quic_wr_be32(&wr, 1), -ENOSPC);
	EXPECT_EQ(quic_wr_varint(&wr, 16384), -ENOSPC);
	EXPECT_EQ(quic_wr_varint(&wr, 16383), 0);
	EXPECT_EQ(quic_wr_zero(&wr, 2), -ENOSPC);
	EXPECT_EQ(quic_wr_u8(&wr, 9), 0);
	EXPECT_EQ(quic_wr_left(&wr), 0);
	EXPECT_EQ(quic_wr_u8(&wr, 9), -ENOSPC);
	EXPECT_EQ(buf[3], 0x02);
	tap_end();
}

void varint_tests(void)
{
	test_rfc_vectors();
	test_forced_lengths();
	test_boundaries();
	test_errors();
	test_random_roundtrip();
	test_cursor();
}

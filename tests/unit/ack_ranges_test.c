// SPDX-License-Identifier: GPL-2.0
/* ACK range set, checked against a plain bitmap with seeded random ops. */
#include <stdio.h>
#include <linux/types.h>
#include <linux/errno.h>

#include "ack_ranges.h"
#include "frame.h"
#include "varint.h"
#include "suites.h"
#include "tap.h"

#define W 4096		/* packet numbers covered by the reference */

/* The reference: one byte per packet number, and the same floor rule. */
struct ref {
	u8 bit[W];
	u64 floor;
};

static int ref_ranges(const struct ref *r, struct quic_range *out, int max)
{
	int n = 0;
	int pn = W - 1;

	while (pn >= 0) {
		int end;

		if (!r->bit[pn]) {
			pn--;
			continue;
		}
		end = pn;
		while (pn >= 0 && r->bit[pn])
			pn--;
		if (n < max) {
			out[n].start = pn + 1;
			out[n].end = end;
		}
		n++;
	}
	return n;
}

/* Keep at most QUIC_ACK_RANGES_MAX ranges by dropping the lowest. */
static void ref_trim(struct ref *r)
{
	struct quic_range rr[QUIC_ACK_RANGES_MAX + 2];
	int n = ref_ranges(r, rr, QUIC_ACK_RANGES_MAX + 2);
	u64 pn;

	if (n <= QUIC_ACK_RANGES_MAX)
		return;
	for (pn = rr[n - 1].start; pn <= rr[n - 1].end; pn++)
		r->bit[pn] = 0;
	r->floor = rr[n - 1].end + 1;
}

/* A set grown to QUIC_ACK_RANGES_MAX, as a connection's becomes on a gap. */
static struct quic_range ext_buf[QUIC_ACK_RANGES_MAX];

static void ranges_init(struct quic_ack_ranges *s)
{
	quic_ack_ranges_init(s);
	quic_ack_ranges_grow(s, ext_buf);
}

static int ref_add_range(struct ref *r, u64 start, u64 end)
{
	int fresh = 0;
	u64 pn;

	if (end < r->floor)
		return -ERANGE;
	if (start < r->floor)
		start = r->floor;
	for (pn = start; pn <= end; pn++) {
		fresh |= !r->bit[pn];
		r->bit[pn] = 1;
	}
	if (fresh)
		ref_trim(r);
	return fresh;
}

static void ref_drop_below(struct ref *r, u64 pn)
{
	u64 i;

	if (pn <= r->floor)
		return;
	for (i = 0; i < pn; i++)
		r->bit[i] = 0;
	r->floor = pn;
}

static int same(const struct quic_ack_ranges *s, const struct ref *r)
{
	struct quic_range rr[QUIC_ACK_RANGES_MAX + 2];
	int n = ref_ranges(r, rr, QUIC_ACK_RANGES_MAX + 2), i;

	if (n != (int)s->n || s->floor != r->floor)
		return 0;
	for (i = 0; i < n; i++)
		if (rr[i].start != s->r[i].start || rr[i].end != s->r[i].end)
			return 0;
	return 1;
}

/* Encode the set as an ACK frame, decode it, walk it: same ranges? */
static int ack_frame_matches(const struct quic_ack_ranges *s)
{
	struct quic_ack_iter it;
	struct quic_frame f;
	u8 buf[1024];
	u64 ecn[3] = { 1, 2, 3 };
	u64 lo, hi;
	u32 terr;
	u32 i = 0;
	int n;

	if (!s->n)
		return 1;
	/* The bound is room enough for every range. */
	if (quic_ack_ranges_encode_max(s) > sizeof(buf))
		return 0;
	n = quic_ack_ranges_encode(s, buf, quic_ack_ranges_encode_max(s), 7,
				   ecn);
	if (n <= 0 || quic_frame_decode(buf, n, QUIC_PKT_1RTT, true, &f,
					&terr) != n)
		return 0;
	if (f.type != QUIC_FRAME_ACK_ECN || f.ack.delay != 7 || f.ack.ce != 3)
		return 0;
	quic_ack_iter_init(&it, &f.ack);
	while (quic_ack_iter_next(&it, &lo, &hi)) {
		if (i >= s->n || lo != s->r[i].start || hi != s->r[i].end)
			return 0;
		i++;
	}
	return i == s->n;
}

static struct ref ref;

static void test_random(u64 seed, int ops)
{
	struct quic_ack_ranges s;
	u64 top = 0;
	int i, bad = 0;

	tap_begin("ack_ranges: %d random ops vs bitmap, seed %llu", ops,
		  (unsigned long long)seed);
	memset(&ref, 0, sizeof(ref));
	ranges_init(&s);
	for (i = 0; i < ops && !bad; i++) {
		u64 r = test_rand(&seed) % 100, a, b, pn;
		int got, want;

		if (r < 60) {		/* mostly in order, some holes */
			top += 1 + (test_rand(&seed) % 8 == 0) *
			       (test_rand(&seed) % 4);
			a = b = top % W;
		} else if (r < 85) {	/* late or duplicate packets */
			a = b = test_rand(&seed) % (top % W + 1);
		} else if (r < 95) {	/* a range, as the sender side adds */
			a = test_rand(&seed) % W;
			b = a + test_rand(&seed) % 20;
			if (b >= W)
				b = W - 1;
		} else {
			pn = test_rand(&seed) % (top % W + 1);
			quic_ack_ranges_drop_below(&s, pn);
			ref_drop_below(&ref, pn);
			a = b = ~0ULL;
		}
		if (top >= W - 1)
			top = 0;
		if (a != ~0ULL) {
			got = quic_ack_ranges_add_range(&s, a, b);
			want = ref_add_range(&ref, a, b);
			bad |= !EXPECT_EQ(got, want);
		}
		bad |= !EXPECT(same(&s, &ref));
		pn = test_rand(&seed) % W;
		bad |= !EXPECT_EQ(quic_ack_ranges_contains(&s, pn), ref.bit[pn]);
		if (i % 16 == 0)
			bad |= !EXPECT(ack_frame_matches(&s));
	}
	if (bad)
		printf("#   at op %d\n", i);
	tap_end();
}

static void test_new_random(u64 seed)
{
	struct quic_range out[64], rr[64];
	struct quic_ack_ranges s;
	int i, bad = 0;

	tap_begin("ack_ranges: newly acked parts vs bitmap, seed %llu",
		  (unsigned long long)seed);
	for (i = 0; i < 2000 && !bad; i++) {
		struct ref sub;
		u64 a, b, pn;
		int k, n, m;

		memset(&ref, 0, sizeof(ref));
		ranges_init(&s);
		for (k = 0; k < 20; k++) {
			a = test_rand(&seed) % 200;
			b = a + test_rand(&seed) % 10;
			quic_ack_ranges_add_range(&s, a, b);
			ref_add_range(&ref, a, b);
		}
		a = test_rand(&seed) % 220;
		b = a + test_rand(&seed) % 40;
		memset(&sub, 0, sizeof(sub));
		for (pn = a; pn <= b; pn++)
			sub.bit[pn] = !ref.bit[pn];
		m = ref_ranges(&sub, rr, 64);
		n = quic_ack_ranges_new(&s, a, b, out, 64);
		bad |= !EXPECT_EQ(n, m);
		for (k = 0; k < n && k < m; k++) {
			bad |= !EXPECT_EQ(out[k].start, rr[k].start);
			bad |= !EXPECT_EQ(out[k].end, rr[k].end);
		}
		/* With little room, the highest parts come first. */
		if (m > 1) {
			n = quic_ack_ranges_new(&s, a, b, out, 1);
			bad |= !EXPECT_EQ(n, 1);
			bad |= !EXPECT_EQ(out[0].end, rr[0].end);
		}
	}
	tap_end();
}

static void test_basics(void)
{
	struct quic_ack_ranges s;
	u64 ecn[3] = { 1ULL << 40, 1ULL << 41, 1ULL << 42 };
	struct quic_range out[4];
	u8 buf[64], big[1024];
	int i;

	tap_begin("ack_ranges: in-order packets make one range");
	ranges_init(&s);
	EXPECT_EQ(quic_ack_ranges_largest(&s), ~0ULL);
	for (i = 0; i < 100; i++)
		EXPECT_EQ(quic_ack_ranges_add(&s, i), 1);
	EXPECT_EQ(s.n, 1);
	EXPECT_EQ(s.r[0].start, 0);
	EXPECT_EQ(s.r[0].end, 99);
	EXPECT_EQ(quic_ack_ranges_largest(&s), 99);
	tap_end();

	tap_begin("ack_ranges: duplicates are reported");
	EXPECT_EQ(quic_ack_ranges_add(&s, 50), 0);
	EXPECT_EQ(quic_ack_ranges_add_range(&s, 10, 20), 0);
	EXPECT_EQ(quic_ack_ranges_add_range(&s, 90, 100), 1);
	EXPECT_EQ(s.n, 1);
	tap_end();

	tap_begin("ack_ranges: a hole is filled and merges two ranges");
	ranges_init(&s);
	quic_ack_ranges_add(&s, 1);
	quic_ack_ranges_add(&s, 3);
	EXPECT_EQ(s.n, 2);
	EXPECT(!quic_ack_ranges_contains(&s, 2));
	EXPECT_EQ(quic_ack_ranges_add(&s, 2), 1);
	EXPECT_EQ(s.n, 1);
	EXPECT(quic_ack_ranges_contains(&s, 2));
	EXPECT(!quic_ack_ranges_contains(&s, 0));
	EXPECT(!quic_ack_ranges_contains(&s, 4));
	tap_end();

	tap_begin("ack_ranges: full set drops its oldest range, floor rises");
	ranges_init(&s);
	for (i = 0; i < QUIC_ACK_RANGES_MAX + 1; i++)
		EXPECT_EQ(quic_ack_ranges_add(&s, 10 + 2 * i), 1);
	EXPECT_EQ(s.n, QUIC_ACK_RANGES_MAX);
	EXPECT_EQ(s.floor, 11);
	EXPECT_EQ(quic_ack_ranges_add(&s, 10), -ERANGE);
	EXPECT_EQ(quic_ack_ranges_add(&s, 5), -ERANGE);
	EXPECT_EQ(quic_ack_ranges_add(&s, 11), 1);	/* joins 12 */
	EXPECT_EQ(s.n, QUIC_ACK_RANGES_MAX);
	EXPECT_EQ(quic_ack_ranges_add(&s, 1000), 1);
	EXPECT_EQ(s.r[0].start, 1000);
	EXPECT_EQ(s.floor, 13);
	tap_end();

	tap_begin("ack_ranges: inline set, then grown with its ranges kept");
	quic_ack_ranges_init(&s);
	EXPECT(!quic_ack_ranges_ext(&s));
	EXPECT_EQ(quic_ack_ranges_add(&s, 10), 1);
	EXPECT(!quic_ack_ranges_want_grow(&s));
	EXPECT_EQ(quic_ack_ranges_add(&s, 12), 1);
	EXPECT(quic_ack_ranges_want_grow(&s));
	/* Not grown: a third range drops the lowest, as a full set does. */
	EXPECT_EQ(quic_ack_ranges_add(&s, 14), 1);
	EXPECT_EQ(s.n, QUIC_ACK_RANGES_INLINE);
	EXPECT_EQ(s.floor, 11);
	quic_ack_ranges_grow(&s, ext_buf);
	EXPECT(quic_ack_ranges_ext(&s) == ext_buf);
	EXPECT(!quic_ack_ranges_want_grow(&s));
	EXPECT_EQ(s.n, 2);
	EXPECT_EQ(s.r[0].start, 14);
	EXPECT_EQ(s.r[1].start, 12);
	EXPECT_EQ(quic_ack_ranges_add(&s, 16), 1);
	EXPECT_EQ(s.n, 3);
	EXPECT_EQ(s.floor, 11);
	EXPECT(quic_ack_ranges_contains(&s, 12));
	tap_end();

	tap_begin("ack_ranges: drop_below trims and forgets");
	ranges_init(&s);
	quic_ack_ranges_add_range(&s, 0, 9);
	quic_ack_ranges_add_range(&s, 20, 29);
	quic_ack_ranges_drop_below(&s, 25);
	EXPECT_EQ(s.n, 1);
	EXPECT_EQ(s.r[0].start, 25);
	EXPECT_EQ(quic_ack_ranges_add(&s, 3), -ERANGE);
	EXPECT_EQ(quic_ack_ranges_add_range(&s, 20, 30), 1);
	EXPECT_EQ(s.r[0].start, 25);
	EXPECT_EQ(s.r[0].end, 30);
	tap_end();

	tap_begin("ack_ranges: bad ranges are refused");
	EXPECT_EQ(quic_ack_ranges_add_range(&s, 5, 4), -EINVAL);
	EXPECT_EQ(quic_ack_ranges_add(&s, QUIC_PN_MAX + 1), -EINVAL);
	EXPECT_EQ(quic_ack_ranges_add(&s, QUIC_PN_MAX), 1);
	tap_end();

	tap_begin("ack_ranges: ACK frame bytes for {0-2, 5, 7-9}");
	ranges_init(&s);
	quic_ack_ranges_add_range(&s, 0, 2);
	quic_ack_ranges_add(&s, 5);
	quic_ack_ranges_add_range(&s, 7, 9);
	EXPECT_EQ(quic_ack_ranges_encode(&s, buf, sizeof(buf), 3, NULL), 9);
	/* type, largest 9, delay 3, count 2, first 2, gap 0 len 0, gap 1 len 2 */
	EXPECT_MEM(buf, "\x02\x09\x03\x02\x02\x00\x00\x01\x02", 9);
	tap_end();

	tap_begin("ack_ranges: ACK frame keeps the highest ranges that fit");
	EXPECT_EQ(quic_ack_ranges_encode(&s, buf, 8, 3, NULL), 7);
	EXPECT_EQ(buf[3], 1);
	EXPECT_EQ(quic_ack_ranges_encode(&s, buf, 5, 3, NULL), 5);
	EXPECT_EQ(buf[3], 0);
	EXPECT_EQ(quic_ack_ranges_encode(&s, buf, 4, 3, NULL), -ENOSPC);
	ranges_init(&s);
	EXPECT_EQ(quic_ack_ranges_encode(&s, buf, 64, 3, NULL), -EINVAL);
	tap_end();

	tap_begin("ack_ranges: ACK frame bound, every field 8 bytes long");
	ranges_init(&s);
	for (i = 0; i < QUIC_ACK_RANGES_MAX; i++)
		quic_ack_ranges_add_range(&s, QUIC_PN_MAX - i * (1ULL << 40) -
					  (1ULL << 31),
					  QUIC_PN_MAX - i * (1ULL << 40));
	EXPECT_EQ(s.n, QUIC_ACK_RANGES_MAX);
	EXPECT_EQ(quic_ack_ranges_encode(&s, big, quic_ack_ranges_encode_max(&s),
					 1ULL << 40, ecn),
		  (int)quic_ack_ranges_encode_max(&s));
	EXPECT_EQ(big[17], QUIC_ACK_RANGES_MAX - 1);	/* no range left out */
	EXPECT_EQ(quic_ack_ranges_encode(&s, big,
					 quic_ack_ranges_encode_max(&s) - 1,
					 1ULL << 40, ecn),
		  (int)quic_ack_ranges_encode_max(&s) - 16);
	tap_end();

	tap_begin("ack_ranges: newly acked parts of a range");
	ranges_init(&s);
	quic_ack_ranges_add_range(&s, 10, 19);
	quic_ack_ranges_add_range(&s, 30, 39);
	EXPECT_EQ(quic_ack_ranges_new(&s, 0, 50, out, 4), 3);
	EXPECT_EQ(out[0].start, 40);
	EXPECT_EQ(out[0].end, 50);
	EXPECT_EQ(out[1].start, 20);
	EXPECT_EQ(out[1].end, 29);
	EXPECT_EQ(out[2].start, 0);
	EXPECT_EQ(out[2].end, 9);
	EXPECT_EQ(quic_ack_ranges_new(&s, 12, 18, out, 4), 0);
	EXPECT_EQ(quic_ack_ranges_new(&s, 5, 4, out, 4), 0);
	tap_end();
}

void ack_ranges_tests(void)
{
	test_basics();
	test_random(1, 20000);
	test_random(42, 20000);
	test_random(0xdeadbeef, 20000);
	test_new_random(5);
}

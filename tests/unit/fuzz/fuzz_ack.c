// SPDX-License-Identifier: GPL-2.0
/*
 * ACK range set.  Input: a list of 3-byte operations (op, packet number)
 * run against the set and a bitmap reference; then the set is encoded as
 * an ACK frame that must decode to the same ranges.
 */
#include "fuzz_common.h"
#include "ack_ranges.h"
#include "frame.h"

#define W 256		/* small, so overflow of the 32 ranges is easy */
#define MAX_OPS 128

static u8 bit[W];
static u64 floor_ref;

/* Ranges of the bitmap, highest first, into @r (if not NULL). */
static int ref_ranges(struct quic_range *r, u64 *lowest_start,
		      u64 *lowest_end)
{
	int n = 0, pn = W - 1;

	while (pn >= 0) {
		if (!bit[pn]) {
			pn--;
			continue;
		}
		*lowest_end = pn;
		while (pn >= 0 && bit[pn])
			pn--;
		*lowest_start = pn + 1;
		if (r && n < QUIC_ACK_RANGES_MAX) {
			r[n].start = *lowest_start;
			r[n].end = *lowest_end;
		}
		n++;
	}
	return n;
}

/* Number of ranges in the bitmap, kept up to date bit by bit. */
static int ref_n;

static void ref_set(u64 pn)
{
	bool left = pn > 0 && bit[pn - 1], right = pn + 1 < W && bit[pn + 1];

	bit[pn] = 1;
	ref_n += 1 - left - right;
}

static int ref_add(u64 a, u64 b)
{
	u64 ls, le, pn;
	int fresh = 0;

	if (b < floor_ref)
		return -ERANGE;
	if (a < floor_ref)
		a = floor_ref;
	for (pn = a; pn <= b; pn++) {
		if (bit[pn])
			continue;
		fresh = 1;
		ref_set(pn);
	}
	if (ref_n > QUIC_ACK_RANGES_MAX) {
		ref_ranges(NULL, &ls, &le);
		for (pn = ls; pn <= le; pn++)
			bit[pn] = 0;
		floor_ref = le + 1;
		ref_n--;
	}
	return fresh;
}

/* level 0: invariants; 1: same ranges as the bitmap; 2: also contains() */
static void check_set(const struct quic_ack_ranges *s, int level)
{
	struct quic_range r[QUIC_ACK_RANGES_MAX];
	u64 ls = 0, le = 0, pn;
	u32 i;

	FUZZ_ASSERT(s->n <= QUIC_ACK_RANGES_MAX);
	FUZZ_ASSERT(s->floor == floor_ref);
	for (i = 0; i < s->n; i++) {
		FUZZ_ASSERT(s->r[i].start <= s->r[i].end);
		FUZZ_ASSERT(s->r[i].start >= s->floor);
		if (i)
			FUZZ_ASSERT(s->r[i].end + 1 < s->r[i - 1].start);
	}
	if (!level)
		return;
	FUZZ_ASSERT((int)s->n == ref_ranges(r, &ls, &le));
	for (i = 0; i < s->n; i++) {
		FUZZ_ASSERT(s->r[i].start == r[i].start);
		FUZZ_ASSERT(s->r[i].end == r[i].end);
	}
	for (pn = 0; level > 1 && pn < W; pn++)
		FUZZ_ASSERT(quic_ack_ranges_contains(s, pn) == bit[pn]);
}

static void check_frame(const struct quic_ack_ranges *s, size_t room)
{
	struct quic_ack_iter it;
	struct quic_frame f;
	u8 buf[512];
	u64 lo, hi;
	u32 terr, i = 0;
	int n;

	if (room > sizeof(buf))
		room = sizeof(buf);
	n = quic_ack_ranges_encode(s, buf, room, 0, NULL);
	if (!s->n) {
		FUZZ_ASSERT(n == -EINVAL);
		return;
	}
	if (n == -ENOSPC)
		return;
	FUZZ_ASSERT(n > 0 && (size_t)n <= room);
	FUZZ_ASSERT(quic_frame_decode(buf, n, QUIC_PKT_1RTT, true, &f, &terr) == n);
	quic_ack_iter_init(&it, &f.ack);
	while (quic_ack_iter_next(&it, &lo, &hi)) {
		FUZZ_ASSERT(i < s->n);
		FUZZ_ASSERT(lo == s->r[i].start && hi == s->r[i].end);
		i++;
	}
	FUZZ_ASSERT(i >= 1);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct quic_range ext[QUIC_ACK_RANGES_MAX];
	struct quic_range parts[8];
	struct quic_ack_ranges s;
	size_t i;

	memset(bit, 0, sizeof(bit));
	floor_ref = 0;
	ref_n = 0;
	quic_ack_ranges_init(&s);
	for (i = 0; i + 3 <= size && i < 3 * MAX_OPS; i += 3) {
		u64 pn = ((data[i + 1] << 8) | data[i + 2]) % W;
		u64 end = pn + (data[i] >> 3) % 16;
		int k, n;

		if (end >= W)
			end = W - 1;
		/* As input.c does: the set grows once its inline ranges fill. */
		if (quic_ack_ranges_want_grow(&s))
			quic_ack_ranges_grow(&s, ext);
		switch (data[i] & 7) {
		case 0: case 1: case 2: case 3:
			FUZZ_ASSERT(quic_ack_ranges_add(&s, pn) == ref_add(pn, pn));
			break;
		case 4: case 5:
			FUZZ_ASSERT(quic_ack_ranges_add_range(&s, pn, end) ==
				    ref_add(pn, end));
			break;
		case 6:
			quic_ack_ranges_drop_below(&s, pn);
			if (pn > floor_ref) {
				u64 ls, le;

				memset(bit, 0, pn);
				floor_ref = pn;
				ref_n = ref_ranges(NULL, &ls, &le);
			}
			break;
		default:
			n = quic_ack_ranges_new(&s, pn, end, parts, 8);
			for (k = 0; k < n; k++) {
				u64 q;

				FUZZ_ASSERT(parts[k].start >= pn);
				FUZZ_ASSERT(parts[k].end <= end);
				for (q = parts[k].start; q <= parts[k].end; q++)
					FUZZ_ASSERT(!bit[q]);
			}
			break;
		}
		/* Ranges compared on every 4th op, contains() at the end. */
		check_set(&s, i % 12 == 9);
	}
	check_set(&s, 2);
	check_frame(&s, size + 5);
	return 0;
}

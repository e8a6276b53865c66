// SPDX-License-Identifier: GPL-2.0
/*
 * Reassembly in a ring (net/quic/reasm.c): the window and gap limits, then
 * a stream cut into random pieces that arrive in random order, overlapping
 * and repeated, checked byte for byte against what was sent, with the
 * ring never larger than the window.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <linux/errno.h>

#include "reasm.h"
#include "suites.h"
#include "tap.h"

#define MAX	(64 * 1024)

/* The caller's part, as crypto_frames.c does it: grow, insert, deliver. */
struct rx {
	struct quic_reasm ra;
	u8 out[4 * MAX];
	u64 delivered;
	u32 max_ring;
};

static int rx_piece(struct rx *rx, const u8 *stream, u64 off, u32 len)
{
	struct quic_reasm *ra = &rx->ra;
	const u8 *p;
	u32 size, n;
	int err;

	err = quic_reasm_need(ra, off, len, &size);
	if (err)
		return err;
	if (off + len <= ra->base)
		return 0;
	if (off <= ra->base) {
		u64 from = ra->base;

		memcpy(rx->out + from, stream + from, off + len - from);
		quic_reasm_advance(ra, off + len);
		while ((n = quic_reasm_peek(ra, &p))) {
			memcpy(rx->out + ra->base, p, n);
			quic_reasm_advance(ra, ra->base + n);
		}
		rx->delivered = ra->base;
	} else {
		/* The range array comes with the first ring only. */
		if (size > ra->size)
			free(quic_reasm_grow(ra, malloc(size), size,
					     ra->r ? NULL :
					     malloc(QUIC_REASM_RANGES_SIZE)));
		if (ra->size > rx->max_ring)
			rx->max_ring = ra->size;
		quic_reasm_insert(ra, off, stream + off, len);
	}
	if (!ra->held && ra->ring) {
		u8 *ring;

		free(quic_reasm_release(ra, &ring));
		free(ring);
		if (ra->ring || ra->r || ra->size || ra->n)
			return -EFAULT;	/* not left empty */
	}
	return 0;
}

static void test_limits(void)
{
	static u8 stream[MAX + 16];
	struct rx *rx = calloc(1, sizeof(*rx));
	u32 size, i;

	tap_begin("reasm: window, gap limit, duplicates");
	for (i = 0; i < sizeof(stream); i++)
		stream[i] = i * 7 + 1;
	quic_reasm_init(&rx->ra, MAX);
	EXPECT_EQ(quic_reasm_need(&rx->ra, MAX, 1, &size), -EMSGSIZE);
	EXPECT_EQ(quic_reasm_need(&rx->ra, MAX - 1, 1, &size), 0);
	EXPECT_EQ(size, MAX);
	EXPECT_EQ(quic_reasm_need(&rx->ra, 0, 10, &size), 0);
	EXPECT_EQ(size, 0);		/* in order: no ring */
	EXPECT_EQ(quic_reasm_need(&rx->ra, 1, 10, &size), 0);
	EXPECT_EQ(size, QUIC_REASM_RING_MIN);
	/* 1-byte pieces two apart: one gap each, up to the limit. */
	for (i = 0; i < QUIC_REASM_RANGES; i++)
		EXPECT_EQ(rx_piece(rx, stream, 2 + 2 * i, 1), 0);
	EXPECT_EQ(rx->ra.n, QUIC_REASM_RANGES);
	EXPECT_EQ(rx_piece(rx, stream, 100, 1), -ENOSPC);
	EXPECT_EQ(rx_piece(rx, stream, 2 + 2 * QUIC_REASM_RANGES, 1), -ENOSPC);
	/* Touching a held range is fine, and filling a gap merges two. */
	EXPECT_EQ(rx_piece(rx, stream, 3, 1), 0);
	EXPECT_EQ(rx->ra.n, QUIC_REASM_RANGES - 1);
	EXPECT_EQ(rx->ra.held, QUIC_REASM_RANGES + 1);
	EXPECT_EQ(rx_piece(rx, stream, 100, 1), 0);
	/* Repeats change nothing. */
	EXPECT_EQ(rx_piece(rx, stream, 100, 1), 0);
	EXPECT_EQ(rx->ra.n, QUIC_REASM_RANGES);
	/* The first two bytes deliver the first held range. */
	EXPECT_EQ(rx_piece(rx, stream, 0, 2), 0);
	EXPECT_EQ(rx->delivered, 5);
	EXPECT_EQ(rx->ra.n, QUIC_REASM_RANGES - 1);
	EXPECT_EQ(rx_piece(rx, stream, 0, 5), 0);	/* all old */
	EXPECT_EQ(rx->delivered, 5);
	/* A piece that spans everything delivers it all and frees the ring. */
	EXPECT_EQ(rx_piece(rx, stream, 4, 200), 0);
	EXPECT_EQ(rx->delivered, 204);
	EXPECT_EQ(rx->ra.n, 0);
	EXPECT_EQ(rx->ra.held, 0);
	EXPECT_EQ(rx->ra.ring == NULL, 1);
	EXPECT_EQ(rx->ra.r == NULL, 1);		/* the ranges went with it */
	/* In-order pieces need neither. */
	EXPECT_EQ(rx_piece(rx, stream, 204, 100), 0);
	EXPECT_EQ(rx->ra.r == NULL && rx->ra.ring == NULL, 1);
	/* A gap again: a new ring, new ranges, same results. */
	EXPECT_EQ(rx_piece(rx, stream, 400, 10), 0);
	EXPECT_EQ(rx->ra.r != NULL && rx->ra.n == 1 && rx->ra.held == 10, 1);
	EXPECT_EQ(rx_piece(rx, stream, 304, 96), 0);
	EXPECT_EQ(rx->delivered, 410);
	EXPECT_EQ(rx->ra.r == NULL && rx->ra.ring == NULL, 1);
	EXPECT_EQ(memcmp(rx->out, stream, 410), 0);
	tap_end();
	free(rx);
}

/* Pieces of [0, len) in random order, some overlapping, some twice. */
static void run_random(unsigned int seed, u32 len, u32 piece_max, u32 *max_ring,
		       int *ok)
{
	static u8 stream[4 * MAX];
	struct rx *rx = calloc(1, sizeof(*rx));
	u64 *offs = calloc(len, sizeof(*offs));
	u32 *lens = calloc(len, sizeof(*lens));
	u32 n = 0, i, tries = 0;
	u64 off = 0;

	srand(seed);
	for (i = 0; i < len; i++)
		stream[i] = rand();
	while (off < len) {
		u32 l = 1 + rand() % piece_max;

		if (off + l > len)
			l = len - off;
		offs[n] = off;
		lens[n++] = l;
		/* Every fourth piece also overlaps the next one. */
		if (!(rand() % 4) && off + l + 7 <= len)
			lens[n - 1] += 7;
		off += l;
	}
	quic_reasm_init(&rx->ra, MAX);
	/* Deliver in rounds: each round tries every piece left in a random
	 * order; what is refused (too many gaps, beyond the window) is tried
	 * again next round, as a peer retransmits what was not acknowledged.
	 */
	while (rx->delivered < len && tries++ < 100000) {
		for (i = 0; i < n; i++) {
			u32 j = i + rand() % (n - i);
			u64 o = offs[j];
			u32 l = lens[j];

			offs[j] = offs[i];
			lens[j] = lens[i];
			offs[i] = o;
			lens[i] = l;
			if (o + l <= rx->delivered)
				continue;
			rx_piece(rx, stream, o, l);
			if (rand() % 8 == 0)
				rx_piece(rx, stream, o, l);	/* a repeat */
		}
	}
	*ok = rx->delivered == len && !memcmp(rx->out, stream, len) &&
	      !rx->ra.held && !rx->ra.r && !rx->ra.ring;
	if (rx->max_ring > *max_ring)
		*max_ring = rx->max_ring;
	free(rx->ra.ring);
	free(rx->ra.r);
	free(offs);
	free(lens);
	free(rx);
}

static void test_random(void)
{
	u32 max_ring = 0;
	unsigned int seed;
	int ok, all = 1;

	tap_begin("reasm: random order, overlaps and repeats, 60 streams");
	for (seed = 1; seed <= 60; seed++) {
		/* 1-byte pieces of a short stream, or packet-sized ones of
		 * a stream three windows long.
		 */
		if (seed % 3)
			run_random(seed, 3000, 1, &max_ring, &ok);
		else
			run_random(seed, 3 * MAX, 1200, &max_ring, &ok);
		if (!ok) {
			printf("# seed %u: stream not reassembled\n", seed);
			all = 0;
		}
	}
	EXPECT_EQ(all, 1);
	EXPECT_EQ(max_ring <= MAX, 1);
	tap_end();
}

void reasm_tests(void)
{
	test_limits();
	test_random();
}

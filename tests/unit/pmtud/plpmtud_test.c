// SPDX-License-Identifier: GPL-2.0
/*
 * The DPLPMTUD search (net/quic/plpmtud.c, RFC 8899 §5, RFC 9000 §14.3) on
 * a virtual clock: a simulated path of a given MTU acknowledges or loses
 * each probe, and the search must end on the path's size.
 */
#include <linux/types.h>

#include "plpmtud.h"
#include "../tap.h"

#define SEC	1000000ULL
#define IVAL	(600 * SEC)

static u64 pn;

/* Send the probe the search wants and deliver or lose it on @path. */
static u32 step(struct quic_plpmtud *p, u32 path, u64 now)
{
	u32 size = quic_plpmtud_probe_size(p, now);

	if (!size)
		return 0;
	quic_plpmtud_probe_sent(p, ++pn, size);
	if (size <= path)
		quic_plpmtud_on_acked(p, pn, size, now);
	else
		quic_plpmtud_on_lost(p, pn, size, now);
	return size;
}

/* Run the search to its end on @path; returns the probes sent. */
static u32 run(struct quic_plpmtud *p, u32 path, u64 now)
{
	u32 n = 0;

	while (step(p, path, now) && n < 200)
		n++;
	return n;
}

/* Probes of run() take packet numbers from 1; the tests' own from 100. */
static void started(struct quic_plpmtud *p, u32 max)
{
	pn = 0;
	quic_plpmtud_init(p, IVAL, 1200);
	quic_plpmtud_start(p, max);
}

static void test_disabled(void)
{
	struct quic_plpmtud p;

	tap_begin("plpmtud: interval 0 stays DISABLED, no probe, route size kept");
	quic_plpmtud_init(&p, 0, 1452);
	quic_plpmtud_start(&p, 1452);
	EXPECT_EQ(p.state, QUIC_PLPMTUD_DISABLED);
	EXPECT_EQ(quic_plpmtud_probe_size(&p, 0), 0);
	EXPECT_EQ(p.plpmtu, 1452);
	/* No black hole detection either. */
	EXPECT_EQ(quic_plpmtud_on_pto(&p, 10), 1452);
	EXPECT_EQ(quic_plpmtud_on_lost(&p, 5, 1452, 0), 1452);
	EXPECT_EQ(quic_plpmtud_on_lost(&p, 6, 1452, 0), 1452);
	EXPECT_EQ(quic_plpmtud_on_lost(&p, 7, 1452, 0), 1452);
	tap_end();

	tap_begin("plpmtud: disabled, a PTB hint only lowers, never below 1200");
	EXPECT_EQ(quic_plpmtud_on_ptb(&p, 1100), 1452);
	EXPECT_EQ(quic_plpmtud_on_ptb(&p, 1500), 1452);
	EXPECT_EQ(quic_plpmtud_on_ptb(&p, 1252), 1252);
	EXPECT_EQ(quic_plpmtud_on_ptb(&p, 1400), 1252);
	tap_end();
}

static void test_first_probe_at_max(void)
{
	struct quic_plpmtud p;

	tap_begin("plpmtud: starts at 1200, first probe at the max, one probe on a 1500 path");
	started(&p, 1452);
	EXPECT_EQ(p.plpmtu, 1200);
	EXPECT_EQ(p.state, QUIC_PLPMTUD_SEARCHING);
	EXPECT_EQ(run(&p, 1452, 0), 1);
	EXPECT_EQ(p.plpmtu, 1452);
	EXPECT_EQ(p.state, QUIC_PLPMTUD_COMPLETE);
	EXPECT_EQ(quic_plpmtud_probe_size(&p, 1), 0);
	tap_end();

	tap_begin("plpmtud: jumbo route, 8972 found with one probe");
	started(&p, 8972);
	EXPECT_EQ(run(&p, 9000, 0), 1);
	EXPECT_EQ(p.plpmtu, 8972);
	tap_end();

	tap_begin("plpmtud: max clamped to [1200, 9000]");
	started(&p, 65527);
	EXPECT_EQ(p.max, 9000);
	started(&p, 500);
	EXPECT_EQ(p.max, 1200);
	EXPECT_EQ(run(&p, 1200, 0), 0);
	EXPECT_EQ(p.plpmtu, 1200);
	EXPECT_EQ(p.state, QUIC_PLPMTUD_COMPLETE);
	tap_end();
}

static void test_one_at_a_time(void)
{
	struct quic_plpmtud p;

	tap_begin("plpmtud: one probe in flight at a time");
	started(&p, 1452);
	EXPECT_EQ(quic_plpmtud_probe_size(&p, 0), 1452);
	quic_plpmtud_probe_sent(&p, 10, 1452);
	EXPECT_EQ(quic_plpmtud_probe_size(&p, 0), 0);
	EXPECT(quic_plpmtud_is_probe(&p, 10));
	EXPECT(!quic_plpmtud_is_probe(&p, 11));
	/* An ordinary packet acked changes nothing. */
	EXPECT_EQ(quic_plpmtud_on_acked(&p, 9, 1200, 0), 1200);
	EXPECT_EQ(quic_plpmtud_on_acked(&p, 10, 1452, 0), 1452);
	EXPECT(!quic_plpmtud_is_probe(&p, 10));
	tap_end();
}

static void test_max_probes(void)
{
	struct quic_plpmtud p;

	tap_begin("plpmtud: a size is given up after MAX_PROBES (3) losses in a row");
	started(&p, 1452);
	quic_plpmtud_probe_sent(&p, 1, quic_plpmtud_probe_size(&p, 0));
	quic_plpmtud_on_lost(&p, 1, 1452, 0);
	EXPECT_EQ(quic_plpmtud_probe_size(&p, 0), 1452);
	quic_plpmtud_probe_sent(&p, 2, 1452);
	quic_plpmtud_on_lost(&p, 2, 1452, 0);
	EXPECT_EQ(quic_plpmtud_probe_size(&p, 0), 1452);
	quic_plpmtud_probe_sent(&p, 3, 1452);
	quic_plpmtud_on_lost(&p, 3, 1452, 0);
	EXPECT_EQ(p.high, 1451);
	/* Then halfway between 1200 and 1451. */
	EXPECT_EQ(quic_plpmtud_probe_size(&p, 0), 1326);
	/* Probe losses are not black-hole evidence. */
	EXPECT_EQ(p.plpmtu, 1200);
	EXPECT_EQ(p.black_holes, 0);
	tap_end();

	tap_begin("plpmtud: two losses then an ack keep the size and reset the count");
	started(&p, 1452);
	quic_plpmtud_probe_sent(&p, 1, quic_plpmtud_probe_size(&p, 0));
	quic_plpmtud_on_lost(&p, 1, 1452, 0);
	quic_plpmtud_probe_sent(&p, 2, quic_plpmtud_probe_size(&p, 0));
	quic_plpmtud_on_lost(&p, 2, 1452, 0);
	quic_plpmtud_probe_sent(&p, 3, quic_plpmtud_probe_size(&p, 0));
	EXPECT_EQ(quic_plpmtud_on_acked(&p, 3, 1452, 0), 1452);
	EXPECT_EQ(p.probe_count, 0);
	tap_end();
}

static void test_binary_search(void)
{
	static const u32 paths[] = { 1200, 1252, 1280, 1300, 1400, 1420, 1451 };
	struct quic_plpmtud p;
	unsigned int i;

	tap_begin("plpmtud: binary search ends within STEP below the path, never above");
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		u32 n;

		started(&p, 1452);
		n = run(&p, paths[i], 0);
		EXPECT(p.plpmtu <= paths[i]);
		EXPECT(p.plpmtu + QUIC_PLPMTUD_STEP > paths[i]);
		EXPECT_EQ(p.state, QUIC_PLPMTUD_COMPLETE);
		/* 3 at 1452, then at most 3 per halving of 252 bytes. */
		EXPECT(n <= 3 + 3 * 8);
	}
	tap_end();
}

static void test_raise_timer(void)
{
	struct quic_plpmtud p;

	tap_begin("plpmtud: after the raise interval the search resumes up to the max");
	started(&p, 1452);
	run(&p, 1300, 0);
	EXPECT(p.plpmtu <= 1300);
	EXPECT_EQ(quic_plpmtud_probe_size(&p, IVAL - 1), 0);
	/* The path grew: the next search finds it. */
	run(&p, 1452, IVAL);
	EXPECT_EQ(p.plpmtu, 1452);
	EXPECT_EQ(p.searches, 2);
	EXPECT_EQ(p.raise_at, 2 * IVAL);
	tap_end();

	tap_begin("plpmtud: a shorter interval set later applies from now");
	quic_plpmtud_set_interval(&p, 5 * SEC, IVAL + 1);
	EXPECT_EQ(p.raise_at, IVAL + 1 + 5 * SEC);
	EXPECT(quic_plpmtud_probe_size(&p, IVAL + 1 + 5 * SEC) == 0);
	EXPECT_EQ(p.searches, 3);	/* at the max already: done at once */
	tap_end();
}

/* Ordinary packets: @n large ones lost after a small one was acked. */
static void lose_large(struct quic_plpmtud *p, u64 first, u32 n, u32 size)
{
	u32 i;

	for (i = 0; i < n; i++)
		quic_plpmtud_on_lost(p, first + i, size, 0);
}

static void test_black_hole_loss(void)
{
	struct quic_plpmtud p;

	tap_begin("plpmtud: large packets lost while a later small one is acked: black hole");
	started(&p, 1452);
	run(&p, 1452, 0);
	quic_plpmtud_on_acked(&p, 100, 1452, 0);
	lose_large(&p, 101, 2, 1452);
	EXPECT_EQ(p.plpmtu, 1452);
	quic_plpmtud_on_lost(&p, 103, 1452, 0);
	EXPECT_EQ(p.plpmtu, 1200);
	EXPECT_EQ(p.state, QUIC_PLPMTUD_BASE);
	EXPECT_EQ(p.black_holes, 1);
	/* More of the old flight lost: no second event. */
	lose_large(&p, 104, 5, 1452);
	EXPECT_EQ(p.black_holes, 1);
	tap_end();

	tap_begin("plpmtud: after a black hole, BASE confirmed, then search below the failed size");
	EXPECT_EQ(run(&p, 1252, 0) > 1, true);
	EXPECT(p.plpmtu <= 1252 && p.plpmtu + QUIC_PLPMTUD_STEP > 1252);
	EXPECT_EQ(p.state, QUIC_PLPMTUD_COMPLETE);
	tap_end();

	tap_begin("plpmtud: losses of large packets sent before an acked large one are congestion");
	started(&p, 1452);
	run(&p, 1452, 0);
	quic_plpmtud_on_acked(&p, 200, 1452, 0);
	lose_large(&p, 150, 40, 1452);
	EXPECT_EQ(p.plpmtu, 1452);
	EXPECT_EQ(p.black_holes, 0);
	/* Small packets lost say nothing about the size. */
	lose_large(&p, 201, 10, 1200);
	EXPECT_EQ(p.plpmtu, 1452);
	/* An acked large packet resets the count. */
	lose_large(&p, 211, 2, 1452);
	quic_plpmtud_on_acked(&p, 213, 1452, 0);
	lose_large(&p, 214, 2, 1452);
	EXPECT_EQ(p.plpmtu, 1452);
	tap_end();

	tap_begin("plpmtud: BASE not confirmed after MAX_PROBES: ERROR, BASE again after the interval");
	started(&p, 1452);
	run(&p, 1452, 0);
	quic_plpmtud_on_pto(&p, QUIC_PLPMTUD_BH_PTOS);
	EXPECT_EQ(p.state, QUIC_PLPMTUD_BASE);
	EXPECT_EQ(run(&p, 1000, 0), 3);
	EXPECT_EQ(p.state, QUIC_PLPMTUD_ERROR);
	EXPECT_EQ(p.plpmtu, 1200);
	EXPECT_EQ(quic_plpmtud_probe_size(&p, IVAL - 1), 0);
	EXPECT_EQ(quic_plpmtud_probe_size(&p, IVAL), 1200);
	EXPECT_EQ(p.state, QUIC_PLPMTUD_BASE);
	tap_end();
}

static void test_black_hole_pto(void)
{
	struct quic_plpmtud p;

	tap_begin("plpmtud: consecutive PTOs above 1200 are a black hole");
	started(&p, 1452);
	run(&p, 1452, 0);
	EXPECT_EQ(quic_plpmtud_on_pto(&p, QUIC_PLPMTUD_BH_PTOS - 1), 1452);
	EXPECT_EQ(quic_plpmtud_on_pto(&p, QUIC_PLPMTUD_BH_PTOS), 1200);
	EXPECT_EQ(p.black_holes, 1);
	/* At 1200 PTOs are plain congestion or an outage. */
	EXPECT_EQ(quic_plpmtud_on_pto(&p, 8), 1200);
	EXPECT_EQ(p.black_holes, 1);
	tap_end();
}

static void test_ptb(void)
{
	struct quic_plpmtud p;

	tap_begin("plpmtud: PTB below the size in use: 1200, then a probe at the hint");
	started(&p, 1452);
	run(&p, 1452, 0);
	EXPECT_EQ(quic_plpmtud_on_ptb(&p, 1252), 1200);
	EXPECT_EQ(p.state, QUIC_PLPMTUD_SEARCHING);
	EXPECT_EQ(quic_plpmtud_probe_size(&p, 0), 1252);
	EXPECT_EQ(run(&p, 1252, 0), 1);
	EXPECT_EQ(p.plpmtu, 1252);
	EXPECT_EQ(p.state, QUIC_PLPMTUD_COMPLETE);
	tap_end();

	tap_begin("plpmtud: PTB between the size and the probe: next probe at the hint");
	started(&p, 1452);
	quic_plpmtud_probe_sent(&p, 1, quic_plpmtud_probe_size(&p, 0));
	EXPECT_EQ(quic_plpmtud_on_ptb(&p, 1400), 1200);
	EXPECT(!quic_plpmtud_is_probe(&p, 1));
	/* A late ack of the failed probe is no probe ack. */
	EXPECT_EQ(quic_plpmtud_on_acked(&p, 1, 1452, 0), 1200);
	EXPECT_EQ(quic_plpmtud_probe_size(&p, 0), 1400);
	tap_end();

	tap_begin("plpmtud: PTB under 1200, or not below what we sent, is ignored");
	started(&p, 1452);
	run(&p, 1452, 0);
	EXPECT_EQ(quic_plpmtud_on_ptb(&p, 1199), 1452);
	EXPECT_EQ(quic_plpmtud_on_ptb(&p, 68), 1452);
	EXPECT_EQ(quic_plpmtud_on_ptb(&p, 1452), 1452);
	EXPECT_EQ(quic_plpmtud_on_ptb(&p, 9000), 1452);
	EXPECT_EQ(p.state, QUIC_PLPMTUD_COMPLETE);
	started(&p, 1452);
	quic_plpmtud_probe_sent(&p, 1, quic_plpmtud_probe_size(&p, 0));
	EXPECT_EQ(quic_plpmtud_on_ptb(&p, 1452), 1200);
	EXPECT(quic_plpmtud_is_probe(&p, 1));
	tap_end();
}

static void test_set_max(void)
{
	struct quic_plpmtud p;

	tap_begin("plpmtud: a smaller route max lowers the size and the bound");
	started(&p, 8972);
	run(&p, 9000, 0);
	quic_plpmtud_set_max(&p, 1452);
	EXPECT_EQ(p.plpmtu, 1452);
	EXPECT_EQ(p.high, 1452);
	tap_end();
}

static void test_quote(void)
{
	static const u8 cid[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	u8 s[1 + 8] = { 0x40, 1, 2, 3, 4, 5, 6, 7, 8 };
	u8 l[1 + 4 + 1 + 8] = { 0xc0, 0, 0, 0, 1, 8, 1, 2, 3, 4, 5, 6, 7, 8 };

	tap_begin("plpmtud: ICMP quote validated by the DCID, short and long header");
	EXPECT(quic_plpmtud_quote_match(s, sizeof(s), cid, 8));
	EXPECT(quic_plpmtud_quote_match(l, sizeof(l), cid, 8));
	/* Too short a quote, or none. */
	EXPECT(!quic_plpmtud_quote_match(s, sizeof(s) - 1, cid, 8));
	EXPECT(!quic_plpmtud_quote_match(l, 5, cid, 8));
	EXPECT(!quic_plpmtud_quote_match(s, 0, cid, 8));
	/* Another CID, another length. */
	s[8] ^= 1;
	EXPECT(!quic_plpmtud_quote_match(s, sizeof(s), cid, 8));
	l[5] = 7;
	EXPECT(!quic_plpmtud_quote_match(l, sizeof(l), cid, 8));
	/* A peer with zero-length CIDs: the addresses are all there is. */
	EXPECT(quic_plpmtud_quote_match(s, 1, cid, 0));
	tap_end();
}

int main(void)
{
	test_disabled();
	test_first_probe_at_max();
	test_one_at_a_time();
	test_max_probes();
	test_binary_search();
	test_raise_timer();
	test_black_hole_loss();
	test_black_hole_pto();
	test_ptb();
	test_set_max();
	test_quote();
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * UDP GSO trains (net/quic/gso.c): the size of a train's skb, and the
 * boundaries output.c draws with quic_gso_may_join() and quic_gso_added(),
 * checked against what __udp_gso_segment() needs to cut a train back into
 * the same datagrams: all gso_size bytes but the last, which may be
 * shorter, one ECN mark, at most 64 of them in the skb's room.
 */
#include <linux/types.h>
#include <stdlib.h>

#include "gso.h"
#include "suites.h"
#include "tap.h"

#define MAXB	65000		/* about QUIC_GSO_MAX_BYTES */

static void test_cap(void)
{
	tap_begin("gso cap: payload room and 64 segments");
	EXPECT_EQ(quic_gso_train_cap(1452, MAXB, 64, ~0ULL, true, ~0ULL), 44);
	EXPECT_EQ(quic_gso_train_cap(1200, 1000000, 64, ~0ULL, true, ~0ULL),
		  QUIC_GSO_MAX_SEGS);
	EXPECT_EQ(quic_gso_train_cap(8952, MAXB, 64, ~0ULL, true, ~0ULL), 7);
	EXPECT_EQ(quic_gso_train_cap(0, MAXB, 64, ~0ULL, true, ~0ULL), 0);
	tap_end();

	tap_begin("gso cap: the burst left");
	EXPECT_EQ(quic_gso_train_cap(1452, MAXB, 20, ~0ULL, true, ~0ULL), 20);
	EXPECT_EQ(quic_gso_train_cap(1452, MAXB, 1, ~0ULL, true, ~0ULL), 1);
	tap_end();

	tap_begin("gso cap: full datagrams the window takes, unless a probe");
	EXPECT_EQ(quic_gso_train_cap(1452, MAXB, 64, 1452 * 5, true, ~0ULL), 5);
	EXPECT_EQ(quic_gso_train_cap(1452, MAXB, 64, 1452 * 5 - 1, true,
				     ~0ULL), 4);
	EXPECT_EQ(quic_gso_train_cap(1452, MAXB, 64, 1451, true, ~0ULL), 0);
	EXPECT_EQ(quic_gso_train_cap(1452, MAXB, 64, 0, false, ~0ULL), 44);
	tap_end();

	tap_begin("gso cap: bytes queued, rounded up; one datagram is no train");
	EXPECT_EQ(quic_gso_train_cap(1452, MAXB, 64, ~0ULL, true, 1), 1);
	EXPECT_EQ(quic_gso_train_cap(1452, MAXB, 64, ~0ULL, true, 1452), 1);
	EXPECT_EQ(quic_gso_train_cap(1452, MAXB, 64, ~0ULL, true, 1453), 2);
	EXPECT_EQ(quic_gso_train_cap(1452, MAXB, 64, ~0ULL, true, 4352), 3);
	EXPECT_EQ(quic_gso_train_cap(1452, MAXB, 64, ~0ULL, true, 0), 0);
	EXPECT_EQ(quic_gso_train_cap(1452, MAXB, 64, ~0ULL, true, ~0ULL - 1),
		  44);
	tap_end();
}

static void test_join(void)
{
	struct quic_gso g;

	tap_begin("gso join: same room and mark, up to cap");
	quic_gso_init(&g, 3, 1452, 2);
	EXPECT(quic_gso_may_join(&g, 1452, 2));
	EXPECT(!quic_gso_may_join(&g, 1400, 2));	/* amplification */
	EXPECT(!quic_gso_may_join(&g, 1452, 0));	/* ECN changed */
	EXPECT(!quic_gso_added(&g, 1452));
	EXPECT(!quic_gso_added(&g, 1452));
	EXPECT(quic_gso_added(&g, 1452));		/* full */
	EXPECT(!quic_gso_may_join(&g, 1452, 2));
	EXPECT_EQ(g.n, 3);
	tap_end();

	tap_begin("gso join: a short datagram is the last");
	quic_gso_init(&g, 10, 1452, 0);
	EXPECT(!quic_gso_added(&g, 1452));
	EXPECT(quic_gso_added(&g, 700));
	EXPECT(!g.open);
	EXPECT(!quic_gso_may_join(&g, 1452, 0));
	EXPECT_EQ(g.n, 2);
	tap_end();

	tap_begin("gso join: a short first datagram goes alone");
	quic_gso_init(&g, 10, 1452, 0);
	EXPECT(quic_gso_added(&g, 100));
	EXPECT_EQ(g.n, 1);
	tap_end();
}

/*
 * Seeded random datagrams (length, mark, room) through the loop of
 * output.c; every train that leaves must segment back into its datagrams.
 */
static unsigned int seed = 12345;

static unsigned int rnd(unsigned int n)
{
	seed = seed * 1103515245 + 12345;
	return (seed >> 16) % n;
}

struct dg {
	u32 len;
	u8 ecn;
};

static int bad;
static u32 sent_total, sent_trains;

/* What __udp_gso_segment() would make of the train: its datagrams. */
static void check_train(const struct quic_gso *g, const struct dg *d, u32 n)
{
	u32 i, bytes = 0;

	if (n != g->n || n > QUIC_GSO_MAX_SEGS || n > g->cap)
		bad++;
	for (i = 0; i < n; i++) {
		bytes += d[i].len;
		if (d[i].ecn != g->ecn)
			bad++;
		if (i + 1 < n ? d[i].len != g->seg : d[i].len > g->seg)
			bad++;
	}
	if (bytes > (u64)g->cap * g->seg || bytes > MAXB)
		bad++;
	sent_total += n;
	sent_trains++;
}

static void test_random(void)
{
	struct dg train[QUIC_GSO_MAX_SEGS + 1];
	u32 k, n = 0, built = 0, seg = 1452;
	struct quic_gso g;
	bool have = false;

	tap_begin("gso random: trains segment back into their datagrams");
	for (k = 0; k < 200000; k++) {
		u32 room = rnd(20) ? seg : 1200 + rnd(200);
		u8 ecn = rnd(50) ? 2 : 0;
		u32 len = rnd(6) ? room : 40 + rnd(room - 40);
		u32 cap;

		if (have && !quic_gso_may_join(&g, room, ecn)) {
			check_train(&g, train, n);
			have = false;
		}
		if (!have) {
			cap = quic_gso_train_cap(room, MAXB, 1 + rnd(64),
						 rnd(1 << 20), rnd(8), rnd(1 << 17));
			if (cap < 2) {
				sent_total++;	/* alone */
				built++;
				continue;
			}
			quic_gso_init(&g, cap, room, ecn);
			have = true;
			n = 0;
		}
		train[n].len = len;
		train[n++].ecn = ecn;
		built++;
		if (quic_gso_added(&g, len)) {
			check_train(&g, train, n);
			have = false;
		}
	}
	if (have)
		check_train(&g, train, n);
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(sent_total, built);
	EXPECT(sent_trains > 1000);
	tap_end();
}

void gso_tests(void)
{
	test_cap();
	test_join();
	test_random();
}

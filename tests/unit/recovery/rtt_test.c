// SPDX-License-Identifier: GPL-2.0
/* RFC 9002 §5: RTT estimation. */
#include "rt.h"

#define MAD	(25 * MS)	/* peer's max_ack_delay */

static void rtt_first(struct quic_rtt *r, u64 sample)
{
	quic_rtt_init(r, 0);
	quic_rtt_update(r, sample, 0, MAD, QUIC_PN_SPACE_APP, true, T0);
}

static void init_default(void)
{
	struct quic_rtt r;

	quic_rtt_init(&r, 0);
	EXPECT_EQ(r.smoothed, 333 * MS);
	EXPECT_EQ(r.var, 333 * MS / 2);
	EXPECT(!r.has_sample);
}

static void init_resumed(void)
{
	struct quic_rtt r;

	quic_rtt_init(&r, 100 * MS);
	EXPECT_EQ(r.smoothed, 100 * MS);
	EXPECT_EQ(r.var, 50 * MS);
}

static void first_sample_resets_estimator(void)
{
	struct quic_rtt r;

	quic_rtt_init(&r, 0);
	/* ack_delay plays no part in the first sample */
	quic_rtt_update(&r, 100 * MS, 20 * MS, MAD, QUIC_PN_SPACE_APP, true,
			T0 + 5);
	EXPECT(r.has_sample);
	EXPECT_EQ(r.latest, 100 * MS);
	EXPECT_EQ(r.min, 100 * MS);
	EXPECT_EQ(r.smoothed, 100 * MS);
	EXPECT_EQ(r.var, 50 * MS);
	EXPECT_EQ(r.first_sample_time, T0 + 5);
}

static void second_sample_subtracts_ack_delay(void)
{
	struct quic_rtt r;

	rtt_first(&r, 100 * MS);
	quic_rtt_update(&r, 120 * MS, 10 * MS, MAD, QUIC_PN_SPACE_APP, true,
			T0 + MS);
	/* adjusted 110 ms: var = (3 * 50 + 10) / 4, srtt = (7 * 100 + 110) / 8 */
	EXPECT_EQ(r.var, 40000);
	EXPECT_EQ(r.smoothed, 101250);
	EXPECT_EQ(r.min, 100 * MS);
	EXPECT_EQ(r.first_sample_time, T0);
}

static void ack_delay_capped_after_confirmation(void)
{
	struct quic_rtt r;

	rtt_first(&r, 100 * MS);
	quic_rtt_update(&r, 200 * MS, 80 * MS, MAD, QUIC_PN_SPACE_APP, true,
			T0 + MS);
	/* ack_delay limited to 25 ms: adjusted 175 ms */
	EXPECT_EQ(r.smoothed, 109375);
	EXPECT_EQ(r.var, 56250);
}

static void ack_delay_uncapped_before_confirmation(void)
{
	struct quic_rtt r;

	rtt_first(&r, 100 * MS);
	quic_rtt_update(&r, 200 * MS, 80 * MS, MAD, QUIC_PN_SPACE_HANDSHAKE,
			false, T0 + MS);
	/* all 80 ms subtracted: adjusted 120 ms */
	EXPECT_EQ(r.smoothed, 102500);
}

static void ack_delay_ignored_for_initial(void)
{
	struct quic_rtt r;

	rtt_first(&r, 100 * MS);
	quic_rtt_update(&r, 150 * MS, 30 * MS, MAD, QUIC_PN_SPACE_INITIAL,
			false, T0 + MS);
	EXPECT_EQ(r.smoothed, (7 * 100 * MS + 150 * MS) / 8);
}

static void ack_delay_not_below_min_rtt(void)
{
	struct quic_rtt r;

	rtt_first(&r, 100 * MS);
	/* 105 - 10 would fall under min_rtt 100: use 105 unadjusted */
	quic_rtt_update(&r, 105 * MS, 10 * MS, MAD, QUIC_PN_SPACE_APP, true,
			T0 + MS);
	EXPECT_EQ(r.smoothed, 100625);
	EXPECT_EQ(r.var, (3 * 50 * MS + 5 * MS) / 4);
}

static void min_rtt_ignores_ack_delay(void)
{
	struct quic_rtt r;

	rtt_first(&r, 100 * MS);
	quic_rtt_update(&r, 80 * MS, 50 * MS, MAD, QUIC_PN_SPACE_APP, true,
			T0 + MS);
	EXPECT_EQ(r.min, 80 * MS);
	quic_rtt_update(&r, 90 * MS, 0, MAD, QUIC_PN_SPACE_APP, true,
			T0 + 2 * MS);
	EXPECT_EQ(r.min, 80 * MS);
	EXPECT_EQ(r.latest, 90 * MS);
}

static void min_rtt_reset_after_persistent_congestion(void)
{
	struct quic_rtt r;

	rtt_first(&r, 50 * MS);
	quic_rtt_update(&r, 100 * MS, 0, MAD, QUIC_PN_SPACE_APP, true,
			T0 + MS);
	EXPECT_EQ(r.min, 50 * MS);
	quic_rtt_reset_min(&r);
	EXPECT_EQ(r.min, 100 * MS);
}

static void huge_ack_delay_does_not_wrap(void)
{
	struct quic_rtt r;

	rtt_first(&r, 100 * MS);
	quic_rtt_update(&r, 120 * MS, ~0ULL, MAD, QUIC_PN_SPACE_APP, false,
			T0 + MS);
	EXPECT_EQ(r.smoothed, (7 * 100 * MS + 120 * MS) / 8);
}

static const struct rt_case cases[] = {
	RT_CASE(init_default),
	RT_CASE(init_resumed),
	RT_CASE(first_sample_resets_estimator),
	RT_CASE(second_sample_subtracts_ack_delay),
	RT_CASE(ack_delay_capped_after_confirmation),
	RT_CASE(ack_delay_uncapped_before_confirmation),
	RT_CASE(ack_delay_ignored_for_initial),
	RT_CASE(ack_delay_not_below_min_rtt),
	RT_CASE(min_rtt_ignores_ack_delay),
	RT_CASE(min_rtt_reset_after_persistent_congestion),
	RT_CASE(huge_ack_delay_does_not_wrap),
};

void rtt_tests(void)
{
	rt_run("rtt", cases, ARRAY_SIZE(cases));
}

// SPDX-License-Identifier: GPL-2.0
/* RFC 9002 §7.7 pacing: rate, intervals, burst, earliest departure times. */
#include "rt.h"
#include "cong.h"
#include "pacing.h"

#define MSS	1200
#define CWND	12000ULL
#define SRTT	(100 * MS)

static void rate_is_five_quarters_cwnd_per_rtt(void)
{
	EXPECT_EQ(quic_pacing_rate(CWND, SRTT), 150000);
	EXPECT_EQ(quic_pacing_rate(1000000, 10 * MS), 125000000);
}

static void interval_of_one_packet(void)
{
	/* 100 ms * 1200 / 12000 / 1.25 = 8 ms */
	EXPECT_EQ(quic_pacing_interval_ns(CWND, SRTT, MSS), 8000000);
	/* 10 ms * 1200 / 10 MB / 1.25 = 0.96 us */
	EXPECT_EQ(quic_pacing_interval_ns(10000000, 10 * MS, MSS), 960);
}

static void no_rtt_no_pacing(void)
{
	EXPECT_EQ(quic_pacing_rate(CWND, 0), ~0ULL);
	EXPECT_EQ(quic_pacing_interval_ns(CWND, 0, MSS), 0);
	EXPECT_EQ(quic_pacing_interval_ns(0, SRTT, MSS), 0);
}

static void burst_of_initial_window_leaves_at_once(void)
{
	struct quic_pacer p;
	int i;

	quic_pacer_init(&p, quic_cong_initial_window(MSS));
	for (i = 0; i < 10; i++)
		EXPECT_EQ(quic_pacer_departure(&p, CWND, SRTT, MSS, T0), T0);
	/* the 11th waits one interval */
	EXPECT_EQ(quic_pacer_departure(&p, CWND, SRTT, MSS, T0), T0 + 8 * MS);
}

static void steady_state_spacing(void)
{
	struct quic_pacer p;
	int i;

	quic_pacer_init(&p, CWND);
	for (i = 0; i < 10; i++)
		quic_pacer_departure(&p, CWND, SRTT, MSS, T0);
	EXPECT_EQ(quic_pacer_departure(&p, CWND, SRTT, MSS, T0), T0 + 8 * MS);
	EXPECT_EQ(quic_pacer_departure(&p, CWND, SRTT, MSS, T0), T0 + 16 * MS);
	/* asking later does not change the schedule */
	EXPECT_EQ(quic_pacer_departure(&p, CWND, SRTT, MSS, T0 + 20 * MS),
		  T0 + 24 * MS);
}

static void departure_is_never_before_now(void)
{
	struct quic_pacer p;

	quic_pacer_init(&p, CWND);
	EXPECT_EQ(quic_pacer_departure(&p, CWND, SRTT, MSS, T0 + 123),
		  T0 + 123);
}

static void idle_refills_burst(void)
{
	struct quic_pacer p;
	u64 later = T0 + 1000 * MS;
	int i;

	quic_pacer_init(&p, CWND);
	for (i = 0; i < 20; i++)
		quic_pacer_departure(&p, CWND, SRTT, MSS, T0);
	for (i = 0; i < 10; i++)
		EXPECT_EQ(quic_pacer_departure(&p, CWND, SRTT, MSS, later),
			  later);
	EXPECT_EQ(quic_pacer_departure(&p, CWND, SRTT, MSS, later),
		  later + 8 * MS);
}

static void partial_drain_allows_partial_burst(void)
{
	struct quic_pacer p;
	int i;

	quic_pacer_init(&p, CWND);
	for (i = 0; i < 10; i++)
		quic_pacer_departure(&p, CWND, SRTT, MSS, T0);
	/* 24 ms later three packets' worth has drained */
	for (i = 0; i < 3; i++)
		EXPECT_EQ(quic_pacer_departure(&p, CWND, SRTT, MSS,
					       T0 + 24 * MS), T0 + 24 * MS);
	EXPECT_EQ(quic_pacer_departure(&p, CWND, SRTT, MSS, T0 + 24 * MS),
		  T0 + 32 * MS);
}

static void peek_does_not_commit(void)
{
	struct quic_pacer p;
	int i;

	quic_pacer_init(&p, CWND);
	for (i = 0; i < 10; i++)
		quic_pacer_departure(&p, CWND, SRTT, MSS, T0);
	EXPECT_EQ(quic_pacer_peek(&p, CWND, SRTT, MSS, T0), T0 + 8 * MS);
	EXPECT_EQ(quic_pacer_peek(&p, CWND, SRTT, MSS, T0), T0 + 8 * MS);
	EXPECT_EQ(quic_pacer_departure(&p, CWND, SRTT, MSS, T0), T0 + 8 * MS);
}

static void sub_microsecond_intervals_accumulate(void)
{
	struct quic_pacer p;
	u64 cwnd = 10000000, d = 0;
	int i;

	quic_pacer_init(&p, quic_cong_initial_window(MSS));
	for (i = 0; i < 10 + 1000; i++)
		d = quic_pacer_departure(&p, cwnd, 10 * MS, MSS, T0);
	/* the 1010th packet: 1000 intervals of 0.96 us after the burst */
	EXPECT_EQ(d, T0 + 960);
}

static void smaller_packets_shorter_interval(void)
{
	struct quic_pacer p;
	int i;

	quic_pacer_init(&p, CWND);
	for (i = 0; i < 10; i++)
		quic_pacer_departure(&p, CWND, SRTT, MSS, T0);
	EXPECT_EQ(quic_pacer_departure(&p, CWND, SRTT, MSS / 2, T0),
		  T0 + 4 * MS);
}

/* The burst is the larger of the minimum and a millisecond at the rate. */
static void burst_one_millisecond_at_high_rates(void)
{
	struct quic_pacer p;

	quic_pacer_init(&p, 0);
	/* 12000 bytes per 100 ms: 150000 B/s, 150 bytes per ms */
	quic_pacer_set_burst(&p, 12000, 12000, 100 * MS);
	EXPECT_EQ(p.burst, 12000);
	/* 1 MB per 1 ms: 1.25 GB/s, 1.25 MB per ms */
	quic_pacer_set_burst(&p, 12000, 1000000, 1 * MS);
	EXPECT_EQ(p.burst, 1250000);
	/* no RTT yet: no limit */
	quic_pacer_set_burst(&p, 12000, 12000, 0);
	EXPECT(p.burst > 1ULL << 50);
}

static const struct rt_case cases[] = {
	RT_CASE(burst_one_millisecond_at_high_rates),
	RT_CASE(rate_is_five_quarters_cwnd_per_rtt),
	RT_CASE(interval_of_one_packet),
	RT_CASE(no_rtt_no_pacing),
	RT_CASE(burst_of_initial_window_leaves_at_once),
	RT_CASE(steady_state_spacing),
	RT_CASE(departure_is_never_before_now),
	RT_CASE(idle_refills_burst),
	RT_CASE(partial_drain_allows_partial_burst),
	RT_CASE(peek_does_not_commit),
	RT_CASE(sub_microsecond_intervals_accumulate),
	RT_CASE(smaller_packets_shorter_interval),
};

void pacing_tests(void)
{
	rt_run("pacing", cases, ARRAY_SIZE(cases));
}

// SPDX-License-Identifier: GPL-2.0
/* RFC 9000 §10.1 idle timeout and §8.1 anti-amplification. */
#include "rt.h"

static void idle_effective_is_minimum(void)
{
	struct quic_idle idle;

	quic_idle_init(&idle, T0);
	quic_idle_set_timeout(&idle, 30000 * MS, 10000 * MS);
	EXPECT_EQ(idle.timeout, 10000 * MS);
	quic_idle_set_timeout(&idle, 0, 10000 * MS);
	EXPECT_EQ(idle.timeout, 10000 * MS);
	quic_idle_set_timeout(&idle, 5000 * MS, 0);
	EXPECT_EQ(idle.timeout, 5000 * MS);
}

static void idle_disabled_when_both_zero(void)
{
	struct quic_idle idle;

	quic_idle_init(&idle, T0);
	quic_idle_set_timeout(&idle, 0, 0);
	EXPECT_EQ(quic_idle_deadline(&idle, 300 * MS), 0);
}

static void idle_at_least_three_pto(void)
{
	struct quic_idle idle;

	quic_idle_init(&idle, T0);
	quic_idle_set_timeout(&idle, 1000 * MS, 1000 * MS);
	EXPECT_EQ(quic_idle_deadline(&idle, 200 * MS), T0 + 1000 * MS);
	EXPECT_EQ(quic_idle_deadline(&idle, 400 * MS), T0 + 1200 * MS);
}

static void idle_restarts_on_receive(void)
{
	struct quic_idle idle;

	quic_idle_init(&idle, T0);
	quic_idle_set_timeout(&idle, 1000 * MS, 0);
	quic_idle_on_packet_received(&idle, T0 + 700 * MS);
	EXPECT_EQ(quic_idle_deadline(&idle, 1), T0 + 1700 * MS);
}

static void idle_restarts_on_first_send_after_receive(void)
{
	struct quic_idle idle;

	quic_idle_init(&idle, T0);
	quic_idle_set_timeout(&idle, 1000 * MS, 0);
	quic_idle_on_packet_received(&idle, T0 + 100 * MS);
	quic_idle_on_ack_eliciting_sent(&idle, T0 + 300 * MS);
	EXPECT_EQ(quic_idle_deadline(&idle, 1), T0 + 1300 * MS);
	/* later sends without a receive in between do not push it out */
	quic_idle_on_ack_eliciting_sent(&idle, T0 + 900 * MS);
	EXPECT_EQ(quic_idle_deadline(&idle, 1), T0 + 1300 * MS);
	quic_idle_on_packet_received(&idle, T0 + 950 * MS);
	quic_idle_on_ack_eliciting_sent(&idle, T0 + 960 * MS);
	EXPECT_EQ(quic_idle_deadline(&idle, 1), T0 + 1960 * MS);
}

static void amp_three_times_received(void)
{
	struct quic_amp amp;

	quic_amp_init(&amp, false);
	EXPECT_EQ(quic_amp_allowance(&amp), 0);
	quic_amp_on_received(&amp, 1200);
	EXPECT_EQ(quic_amp_allowance(&amp), 3600);
	quic_amp_on_sent(&amp, 1200);
	EXPECT_EQ(quic_amp_allowance(&amp), 2400);
	quic_amp_on_sent(&amp, 2400);
	EXPECT_EQ(quic_amp_allowance(&amp), 0);
	EXPECT(!quic_amp_can_send(&amp, 1));
}

static void amp_can_send_boundary(void)
{
	struct quic_amp amp;

	quic_amp_init(&amp, false);
	quic_amp_on_received(&amp, 1200);
	quic_amp_on_sent(&amp, 2400);
	EXPECT(quic_amp_can_send(&amp, 1200));
	EXPECT(!quic_amp_can_send(&amp, 1201));
}

static void amp_never_negative(void)
{
	struct quic_amp amp;

	quic_amp_init(&amp, false);
	quic_amp_on_received(&amp, 100);
	quic_amp_on_sent(&amp, 1200);	/* e.g. a full Initial was required */
	EXPECT_EQ(quic_amp_allowance(&amp), 0);
}

static void amp_unlimited_once_validated(void)
{
	struct quic_amp amp;

	quic_amp_init(&amp, false);
	quic_amp_on_received(&amp, 100);
	quic_amp_on_sent(&amp, 300);
	quic_amp_validate(&amp);
	EXPECT_EQ(quic_amp_allowance(&amp), ~0ULL);
	EXPECT(quic_amp_can_send(&amp, 65527));
	quic_amp_init(&amp, true);	/* client: server address is trusted */
	EXPECT(quic_amp_can_send(&amp, 1200));
}

static const struct rt_case cases[] = {
	RT_CASE(idle_effective_is_minimum),
	RT_CASE(idle_disabled_when_both_zero),
	RT_CASE(idle_at_least_three_pto),
	RT_CASE(idle_restarts_on_receive),
	RT_CASE(idle_restarts_on_first_send_after_receive),
	RT_CASE(amp_three_times_received),
	RT_CASE(amp_can_send_boundary),
	RT_CASE(amp_never_negative),
	RT_CASE(amp_unlimited_once_validated),
};

void conn_tests(void)
{
	rt_run("conn", cases, ARRAY_SIZE(cases));
}

// SPDX-License-Identifier: GPL-2.0
/* HyStart++ (RFC 9406): rounds, CSS entry and exit, spurious CSS. */
#include "rt.h"
#include "hystart.h"

/*
 * One round: the previous round's packets (sent before @start) are
 * acknowledged from @start on, 8 ACKs with RTT @rtt_us, one packet each;
 * the first ACK of a packet sent after the round began ends it.
 * Returns the growth over the round; *exit as the function says.
 */
static u32 round_of(struct quic_hystart *h, u64 start, u64 rtt_us, bool *exit)
{
	u32 grown = 0, i;

	*exit = false;
	for (i = 0; i < 8 && !*exit; i++)
		grown += quic_hystart_on_ack(h, start - 1, 1000, rtt_us,
					     start + i * MS, exit);
	return grown;
}

static void flat_rtt_stays_in_slow_start(void)
{
	struct quic_hystart h;
	bool exit;
	int r;

	quic_hystart_init(&h);
	for (r = 1; r <= 10; r++) {
		EXPECT_EQ(round_of(&h, T0 + r * 100 * MS, 40 * MS, &exit), 8000);
		EXPECT(!exit);
	}
	EXPECT(!h.in_css);
}

static void rtt_rise_enters_css_then_exits(void)
{
	struct quic_hystart h;
	bool exit;
	int r;

	quic_hystart_init(&h);
	round_of(&h, T0 + 100 * MS, 40 * MS, &exit);
	round_of(&h, T0 + 200 * MS, 40 * MS, &exit);
	/* +4 ms is below clamp(40 / 8 = 5 ms, 4, 16) */
	EXPECT_EQ(round_of(&h, T0 + 300 * MS, 44 * MS, &exit), 8000);
	EXPECT(!h.in_css);
	/* +5 ms over the last round's 44: CSS after the 8th sample */
	EXPECT_EQ(round_of(&h, T0 + 400 * MS, 50 * MS, &exit), 7000 + 250);
	EXPECT(h.in_css);
	EXPECT_EQ(h.css_baseline, 50 * MS);
	/* CSS rounds: a quarter of the growth; the 5th one ends slow start */
	for (r = 5; r <= 8; r++) {
		EXPECT_EQ(round_of(&h, T0 + r * 100 * MS, 50 * MS, &exit), 2000);
		EXPECT(!exit);
	}
	round_of(&h, T0 + 900 * MS, 50 * MS, &exit);
	EXPECT(exit);
}

static void rtt_back_down_leaves_css(void)
{
	struct quic_hystart h;
	bool exit;

	quic_hystart_init(&h);
	round_of(&h, T0 + 100 * MS, 40 * MS, &exit);
	round_of(&h, T0 + 200 * MS, 60 * MS, &exit);
	EXPECT(h.in_css);
	/* below the baseline of 60 ms: slow start again */
	EXPECT_EQ(round_of(&h, T0 + 300 * MS, 45 * MS, &exit), 7 * 250 + 1000);
	EXPECT(!h.in_css);
	EXPECT_EQ(h.css_baseline, U64_MAX);
}

/* Fewer than 8 samples in a round decide nothing. */
static void few_samples_no_decision(void)
{
	struct quic_hystart h;
	bool exit;
	int i;

	quic_hystart_init(&h);
	round_of(&h, T0 + 100 * MS, 40 * MS, &exit);
	for (i = 0; i < 7; i++)
		quic_hystart_on_ack(&h, T0 + 150 * MS, 1000, 80 * MS,
				    T0 + 200 * MS + i * MS, &exit);
	EXPECT(!h.in_css);
	/* one ACK, one sample: its packets share it */
	quic_hystart_on_ack(&h, T0 + 150 * MS, 1000, 80 * MS,
			    T0 + 206 * MS, &exit);
	EXPECT_EQ(h.samples, 7);
}

static const struct rt_case cases[] = {
	RT_CASE(flat_rtt_stays_in_slow_start),
	RT_CASE(rtt_rise_enters_css_then_exits),
	RT_CASE(rtt_back_down_leaves_css),
	RT_CASE(few_samples_no_decision),
};

void hystart_tests(void)
{
	rt_run("hystart", cases, ARRAY_SIZE(cases));
}

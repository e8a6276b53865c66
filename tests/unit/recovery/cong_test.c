// SPDX-License-Identifier: GPL-2.0
/* RFC 9002 §7 and Appendix B: NewReno and the common congestion code. */
#include <errno.h>

#include "rt.h"
#include "cong.h"

#define MSS	1200

static struct quic_rtt rtt;

static void reno(struct quic_cong *c)
{
	quic_rtt_init(&rtt, 0);
	quic_rtt_update(&rtt, 100 * MS, 0, 0, QUIC_PN_SPACE_APP, true, T0);
	EXPECT_EQ(quic_cong_init(c, QUIC_CONG_ALG_RENO, MSS), 0);
}

/* Send and acknowledge one full-size packet sent at @sent. */
static void ack_one(struct quic_cong *c, u64 pn, u64 sent, u64 now)
{
	struct quic_sent_meta p = rt_pkt(pn, sent, MSS, true);

	quic_cong_on_packet_sent(c, &p);
	quic_cong_on_packet_acked(c, &p, &rtt, now);
}

static void lose_one(struct quic_cong *c, u64 pn, u64 sent, u64 now)
{
	struct quic_sent_meta p = rt_pkt(pn, sent, MSS, true);

	quic_cong_on_packet_sent(c, &p);
	quic_cong_on_packets_lost(c, &p, 1, false, now);
}

static void initial_and_minimum_window(void)
{
	EXPECT_EQ(quic_cong_initial_window(1200), 12000);
	EXPECT_EQ(quic_cong_initial_window(1500), 14720);
	EXPECT_EQ(quic_cong_initial_window(9000), 18000);
	EXPECT_EQ(quic_cong_min_window(1200), 2400);
}

static void select_algorithms(void)
{
	struct quic_cong c;

	EXPECT_EQ(quic_cong_init(&c, QUIC_CONG_ALG_RENO, MSS), 0);
	EXPECT(c.ops == &quic_cong_reno_ops);
	EXPECT_EQ(quic_cong_init(&c, QUIC_CONG_ALG_CUBIC, MSS), 0);
	EXPECT(c.ops == &quic_cong_cubic_ops);
	EXPECT_EQ(quic_cong_init(&c, QUIC_CONG_ALG_BBR, MSS), 0);
	EXPECT(c.ops == &quic_cong_bbr_ops);
	EXPECT_EQ(quic_cong_init(&c, QUIC_CONG_ALG_MAX, MSS), -EINVAL);
	EXPECT_EQ(quic_cong_init(&c, QUIC_CONG_ALG_RENO, 0), -EINVAL);
}

static void initial_state(void)
{
	struct quic_cong c;

	reno(&c);
	EXPECT_EQ(c.cwnd, 12000);
	EXPECT_EQ(c.ssthresh, ~0ULL);
	EXPECT(quic_cong_in_slow_start(&c));
	EXPECT(!c.in_recovery);
	EXPECT_EQ(c.bytes_in_flight, 0);
}

static void bytes_in_flight_accounting(void)
{
	struct quic_sent_meta a = rt_pkt(0, T0, 1000, true);
	struct quic_sent_meta b = rt_pkt(1, T0, 300, false);
	struct quic_sent_meta ack_only = rt_pkt(2, T0, 40, false);
	struct quic_cong c;

	reno(&c);
	ack_only.in_flight = false;
	quic_cong_on_packet_sent(&c, &a);
	quic_cong_on_packet_sent(&c, &b);
	quic_cong_on_packet_sent(&c, &ack_only);
	EXPECT_EQ(c.bytes_in_flight, 1300);
	EXPECT_EQ(quic_cong_window_left(&c), 12000 - 1300);
	quic_cong_on_packet_removed(&c, &b);
	EXPECT_EQ(c.bytes_in_flight, 1000);
	quic_cong_on_packet_acked(&c, &a, &rtt, T0 + 1);
	EXPECT_EQ(c.bytes_in_flight, 0);
}

static void slow_start_grows_by_acked_bytes(void)
{
	struct quic_cong c;

	reno(&c);
	ack_one(&c, 0, T0, T0 + 100 * MS);
	EXPECT_EQ(c.cwnd, 12000 + MSS);
	ack_one(&c, 1, T0, T0 + 100 * MS);
	EXPECT_EQ(c.cwnd, 12000 + 2 * MSS);
}

/*
 * Rounds of 8 ACKs whose RTT rises by 10 ms a round (packets sent just
 * before the round began, so the first ACK of the next round ends it):
 * the window growth of the last of @rounds rounds.
 */
static u64 rising_rtt_rounds(struct quic_cong *c, int rounds)
{
	u64 before = 0, start;
	int r, i;

	for (r = 1; r <= rounds; r++) {
		start = T0 + r * 200 * MS;
		before = c->cwnd;
		rtt.latest = (40 + 10 * r) * MS;
		for (i = 0; i < 8; i++)
			ack_one(c, r * 8 + i, start - 1, start + i * MS);
	}
	return c->cwnd - before;
}

/* sysctl hystart 0: the rising RTT does not end the first slow start */
static void hystart_off_plain_slow_start(void)
{
	struct quic_cong c;

	reno(&c);
	EXPECT(!c.hystart_off);
	EXPECT(rising_rtt_rounds(&c, 6) < 8 * MSS);
	reno(&c);
	c.hystart_off = true;
	EXPECT_EQ(rising_rtt_rounds(&c, 6), 8 * MSS);
	EXPECT_EQ(c.cwnd, 12000 + 6 * 8 * MSS);
	EXPECT(quic_cong_in_slow_start(&c));
	/* and a loss still ends it */
	lose_one(&c, 100, T0 + 2 * 1000 * MS, T0 + 2 * 1000 * MS + 1);
	EXPECT(!quic_cong_in_slow_start(&c));
}

static void congestion_event_halves(void)
{
	struct quic_cong c;

	reno(&c);
	lose_one(&c, 0, T0, T0 + 200 * MS);
	EXPECT_EQ(c.ssthresh, 6000);
	EXPECT_EQ(c.cwnd, 6000);
	EXPECT(c.in_recovery);
	EXPECT_EQ(c.recovery_start, T0 + 200 * MS);
	EXPECT_EQ(c.bytes_in_flight, 0);
}

static void one_reduction_per_recovery_period(void)
{
	struct quic_cong c;

	reno(&c);
	lose_one(&c, 0, T0, T0 + 200 * MS);
	/* sent before the recovery started: same congestion event */
	lose_one(&c, 1, T0 + 10 * MS, T0 + 210 * MS);
	lose_one(&c, 2, T0 + 200 * MS, T0 + 220 * MS);
	EXPECT_EQ(c.cwnd, 6000);
	/* sent after it: a new event */
	lose_one(&c, 3, T0 + 201 * MS, T0 + 300 * MS);
	EXPECT_EQ(c.cwnd, 3000);
	EXPECT_EQ(c.recovery_start, T0 + 300 * MS);
}

static void no_growth_for_packets_sent_before_recovery(void)
{
	struct quic_cong c;

	reno(&c);
	lose_one(&c, 0, T0, T0 + 200 * MS);
	ack_one(&c, 1, T0 + 150 * MS, T0 + 250 * MS);
	EXPECT_EQ(c.cwnd, 6000);
	EXPECT(c.in_recovery);
}

static void recovery_exits_on_ack_of_later_packet(void)
{
	struct quic_cong c;

	reno(&c);
	lose_one(&c, 0, T0, T0 + 200 * MS);
	ack_one(&c, 1, T0 + 201 * MS, T0 + 300 * MS);
	EXPECT(!c.in_recovery);
	/* cwnd == ssthresh: congestion avoidance, 1200 of 6000 bytes */
	EXPECT_EQ(c.cwnd, 6000);
	EXPECT_EQ(c.reno.acked, MSS);
}

/*
 * B.2: the period ended (a later packet was acknowledged), but a packet
 * sent before it started, found lost only now, is still the same event:
 * with a window of a few packets the losses of its tail are found by the
 * acknowledgments of packets sent after the reduction.
 */
static void late_loss_of_old_packet_same_event(void)
{
	struct quic_cong c;

	reno(&c);
	lose_one(&c, 0, T0, T0 + 200 * MS);
	ack_one(&c, 2, T0 + 201 * MS, T0 + 300 * MS);
	EXPECT(!c.in_recovery);
	lose_one(&c, 1, T0 + 150 * MS, T0 + 300 * MS);
	EXPECT_EQ(c.cwnd, 6000);
	EXPECT_EQ(c.episode, 1);
	EXPECT_EQ(c.recovery_start, T0 + 200 * MS);
	/* nor does its late acknowledgment grow the window */
	ack_one(&c, 3, T0 + 199 * MS, T0 + 310 * MS);
	EXPECT_EQ(c.reno.acked, MSS);
}

/* An undone event gives the losses after the one before it their due. */
static void undo_restores_recovery_start(void)
{
	struct quic_sent_meta p = rt_pkt(1, T0 + 300 * MS, MSS, true);
	struct quic_cong c;

	reno(&c);
	lose_one(&c, 0, T0, T0 + 200 * MS);
	EXPECT_EQ(c.cwnd, 6000);
	quic_cong_on_packet_sent(&c, &p);
	quic_cong_on_packets_lost(&c, &p, 1, false, T0 + 400 * MS);
	EXPECT_EQ(c.cwnd, 3000);
	EXPECT(quic_cong_on_spurious_loss(&c, c.episode));
	EXPECT_EQ(c.cwnd, 6000);
	EXPECT_EQ(c.recovery_start, T0 + 200 * MS);
	lose_one(&c, 2, T0 + 250 * MS, T0 + 500 * MS);
	EXPECT_EQ(c.cwnd, 3000);
}

static void congestion_avoidance_one_mss_per_window(void)
{
	struct quic_cong c;
	int i;

	reno(&c);
	lose_one(&c, 0, T0, T0 + 200 * MS);
	/* 6000 bytes = 5 packets: cwnd grows by one mss after the 5th */
	for (i = 1; i <= 4; i++)
		ack_one(&c, i, T0 + 201 * MS, T0 + 300 * MS);
	EXPECT_EQ(c.cwnd, 6000);
	ack_one(&c, 5, T0 + 201 * MS, T0 + 300 * MS);
	EXPECT_EQ(c.cwnd, 6000 + MSS);
	EXPECT_EQ(c.reno.acked, 0);
}

static void minimum_window_floor(void)
{
	struct quic_cong c;

	reno(&c);
	c.cwnd = 3000;
	lose_one(&c, 0, T0, T0 + 200 * MS);
	EXPECT_EQ(c.ssthresh, 1500);
	EXPECT_EQ(c.cwnd, 2 * MSS);
}

static void persistent_congestion_collapses(void)
{
	struct quic_sent_meta p = rt_pkt(0, T0, MSS, true);
	struct quic_cong c;

	reno(&c);
	c.cwnd = 50000;
	quic_cong_on_packet_sent(&c, &p);
	quic_cong_on_packets_lost(&c, &p, 1, true, T0 + 2000 * MS);
	EXPECT_EQ(c.cwnd, 2 * MSS);
	EXPECT_EQ(c.ssthresh, 25000);
	EXPECT(!c.in_recovery);
	/* slow start from the minimum window again */
	ack_one(&c, 1, T0 + 2001 * MS, T0 + 2100 * MS);
	EXPECT_EQ(c.cwnd, 3 * MSS);
}

static void app_limited_no_growth(void)
{
	struct quic_cong c;

	reno(&c);
	quic_cong_set_app_limited(&c, true, T0);
	ack_one(&c, 0, T0, T0 + 100 * MS);
	EXPECT_EQ(c.cwnd, 12000);
}

static void app_limited_cleared_when_window_full(void)
{
	struct quic_sent_meta p;
	struct quic_cong c;
	int i;

	reno(&c);
	quic_cong_set_app_limited(&c, true, T0);
	for (i = 0; i < 10; i++) {
		EXPECT(c.app_limited);
		p = rt_pkt(i, T0, MSS, true);
		quic_cong_on_packet_sent(&c, &p);
	}
	EXPECT(!c.app_limited);
	quic_cong_on_packet_acked(&c, &p, &rtt, T0 + 100 * MS);
	EXPECT_EQ(c.cwnd, 12000 + MSS);
}

/* §7.8 from the TX path: idle with the window open, not when it is full */
static void tx_stop_marks_app_limited(void)
{
	struct quic_sent_meta p;
	struct quic_cong c;
	int i;

	reno(&c);
	quic_cong_on_tx_stop(&c, true, T0);
	EXPECT(c.app_limited);
	quic_cong_on_tx_stop(&c, false, T0);	/* the pacer stopped it */
	EXPECT(!c.app_limited);
	for (i = 0; i < 9; i++) {
		p = rt_pkt(i, T0, MSS, true);
		quic_cong_on_packet_sent(&c, &p);
	}
	quic_cong_on_tx_stop(&c, true, T0);	/* one datagram of room */
	EXPECT(c.app_limited);
	p = rt_pkt(9, T0, MSS, true);
	quic_cong_on_packet_sent(&c, &p);
	EXPECT(!c.app_limited);
	quic_cong_on_tx_stop(&c, true, T0);	/* window full */
	EXPECT(!c.app_limited);
}

static void ecn_ce_is_congestion_event(void)
{
	struct quic_cong c;
	u64 seen = 0;

	reno(&c);
	EXPECT(quic_cong_on_ecn(&c, &seen, 1, T0, T0 + 100 * MS));
	EXPECT_EQ(seen, 1);
	EXPECT_EQ(c.cwnd, 6000);
	EXPECT(c.in_recovery);
}

static void ecn_ce_unchanged_count_ignored(void)
{
	struct quic_cong c;
	u64 seen = 3;

	reno(&c);
	EXPECT(!quic_cong_on_ecn(&c, &seen, 3, T0, T0 + 100 * MS));
	EXPECT(!quic_cong_on_ecn(&c, &seen, 2, T0, T0 + 100 * MS));
	EXPECT_EQ(c.cwnd, 12000);
	EXPECT_EQ(seen, 3);
}

static void ecn_ce_within_recovery_no_second_reduction(void)
{
	struct quic_cong c;
	u64 seen = 0;

	reno(&c);
	EXPECT(quic_cong_on_ecn(&c, &seen, 1, T0, T0 + 100 * MS));
	EXPECT(quic_cong_on_ecn(&c, &seen, 2, T0 + 50 * MS, T0 + 150 * MS));
	EXPECT_EQ(c.cwnd, 6000);
}

static void lost_batch_uses_newest_in_flight_send_time(void)
{
	struct quic_sent_meta p[2];
	struct quic_cong c;

	reno(&c);
	p[0] = rt_pkt(0, T0, MSS, true);
	p[1] = rt_pkt(1, T0 + 300 * MS, MSS, true);
	p[1].in_flight = false;	/* not in flight: no congestion signal */
	quic_cong_on_packet_sent(&c, &p[0]);
	/* recovery already started at T0 + 100 ms */
	quic_cong_on_congestion_event(&c, T0, T0 + 100 * MS);
	EXPECT_EQ(c.cwnd, 6000);
	quic_cong_on_packets_lost(&c, p, 2, false, T0 + 400 * MS);
	EXPECT_EQ(c.cwnd, 6000);
	EXPECT_EQ(c.recovery_start, T0 + 100 * MS);
}

static void lost_non_in_flight_only_no_event(void)
{
	struct quic_sent_meta p = rt_pkt(0, T0, 50, false);
	struct quic_cong c;

	reno(&c);
	p.in_flight = false;
	quic_cong_on_packets_lost(&c, &p, 1, false, T0 + 400 * MS);
	EXPECT_EQ(c.cwnd, 12000);
	EXPECT(!c.in_recovery);
}

static void mss_change_keeps_minimum(void)
{
	struct quic_cong c;

	reno(&c);
	c.cwnd = 2400;
	quic_cong_set_mss(&c, 1450);
	EXPECT_EQ(c.mss, 1450);
	EXPECT_EQ(c.cwnd, 2900);
}

/* Every loss of the event acknowledged after all: the event is undone. */
static void spurious_losses_undo_the_event(void)
{
	struct quic_sent_meta p[2] = {
		rt_pkt(1, T0 + 1, MSS, true), rt_pkt(2, T0 + 2, MSS, true),
	};
	struct quic_cong c;
	u64 cwnd;
	u32 ep;

	reno(&c);
	cwnd = c.cwnd;
	quic_cong_on_packet_sent(&c, &p[0]);
	quic_cong_on_packet_sent(&c, &p[1]);
	quic_cong_on_packets_lost(&c, p, 2, false, T0 + 50 * MS);
	EXPECT_EQ(c.cwnd, cwnd / 2);
	ep = c.episode;
	EXPECT_EQ(c.episode_lost, 2);
	EXPECT(!quic_cong_on_spurious_loss(&c, ep - 1));	/* other event */
	EXPECT(!quic_cong_on_spurious_loss(&c, ep));		/* one of two */
	EXPECT_EQ(c.cwnd, cwnd / 2);
	EXPECT(quic_cong_on_spurious_loss(&c, ep));
	EXPECT_EQ(c.cwnd, cwnd);
	EXPECT_EQ(c.ssthresh, U64_MAX);
	EXPECT(!c.in_recovery);
	EXPECT(!quic_cong_on_spurious_loss(&c, ep));		/* once */
}

/* One real loss in the event keeps it; ECN events are never undone. */
static void real_loss_or_ecn_not_undone(void)
{
	struct quic_cong c;
	u64 ce = 0, cwnd;

	reno(&c);
	cwnd = c.cwnd;
	lose_one(&c, 1, T0 + 1, T0 + 50 * MS);
	lose_one(&c, 2, T0 + 2, T0 + 51 * MS);	/* same recovery period */
	EXPECT_EQ(c.episode_lost, 2);
	EXPECT(!quic_cong_on_spurious_loss(&c, c.episode));
	EXPECT_EQ(c.cwnd, cwnd / 2);

	reno(&c);
	EXPECT(quic_cong_on_ecn(&c, &ce, 1, T0 + 1, T0 + 50 * MS));
	lose_one(&c, 1, T0 + 1, T0 + 51 * MS);
	EXPECT(!quic_cong_on_spurious_loss(&c, c.episode));
	EXPECT_EQ(c.cwnd, cwnd / 2);
}

/* CUBIC gets its window, W_max and epoch back. */
static void cubic_undo_restores_state(void)
{
	struct quic_cong c;
	struct quic_cubic before;
	u64 cwnd;

	quic_rtt_init(&rtt, 0);
	quic_rtt_update(&rtt, 100 * MS, 0, 0, QUIC_PN_SPACE_APP, true, T0);
	EXPECT_EQ(quic_cong_init(&c, QUIC_CONG_ALG_CUBIC, MSS), 0);
	c.cwnd = 100 * MSS;
	c.ssthresh = 80 * MSS;
	before = c.cubic;
	cwnd = c.cwnd;
	lose_one(&c, 1, T0 + 1, T0 + 50 * MS);
	EXPECT_EQ(c.cwnd, 70 * MSS);
	EXPECT_EQ(c.cubic.w_max, 100 * MSS);
	EXPECT(quic_cong_on_spurious_loss(&c, c.episode));
	EXPECT_EQ(c.cwnd, cwnd);
	EXPECT_EQ(c.ssthresh, 80 * MSS);
	EXPECT_EQ(c.cubic.w_max, before.w_max);
	EXPECT_EQ(c.cubic.epoch_valid, before.epoch_valid);
}

static const struct rt_case cases[] = {
	RT_CASE(spurious_losses_undo_the_event),
	RT_CASE(real_loss_or_ecn_not_undone),
	RT_CASE(cubic_undo_restores_state),
	RT_CASE(initial_and_minimum_window),
	RT_CASE(select_algorithms),
	RT_CASE(initial_state),
	RT_CASE(bytes_in_flight_accounting),
	RT_CASE(slow_start_grows_by_acked_bytes),
	RT_CASE(hystart_off_plain_slow_start),
	RT_CASE(congestion_event_halves),
	RT_CASE(one_reduction_per_recovery_period),
	RT_CASE(no_growth_for_packets_sent_before_recovery),
	RT_CASE(recovery_exits_on_ack_of_later_packet),
	RT_CASE(late_loss_of_old_packet_same_event),
	RT_CASE(undo_restores_recovery_start),
	RT_CASE(congestion_avoidance_one_mss_per_window),
	RT_CASE(minimum_window_floor),
	RT_CASE(persistent_congestion_collapses),
	RT_CASE(app_limited_no_growth),
	RT_CASE(app_limited_cleared_when_window_full),
	RT_CASE(tx_stop_marks_app_limited),
	RT_CASE(ecn_ce_is_congestion_event),
	RT_CASE(ecn_ce_unchanged_count_ignored),
	RT_CASE(ecn_ce_within_recovery_no_second_reduction),
	RT_CASE(lost_batch_uses_newest_in_flight_send_time),
	RT_CASE(lost_non_in_flight_only_no_event),
	RT_CASE(mss_change_keeps_minimum),
};

void cong_tests(void)
{
	rt_run("reno", cases, ARRAY_SIZE(cases));
}

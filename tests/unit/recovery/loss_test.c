// SPDX-License-Identifier: GPL-2.0
/* RFC 9002 §6 loss detection and PTO, §7.6 persistent congestion. */
#include "rt.h"

/* smoothed_rtt = latest_rtt = 100 ms, rttvar 50 ms, sampled at T0 */
static void rtt100(struct quic_rtt *r)
{
	quic_rtt_init(r, 0);
	quic_rtt_update(r, 100 * MS, 0, 0, QUIC_PN_SPACE_APP, true, T0);
}

static void loss_delay_uses_larger_of_srtt_latest(void)
{
	struct quic_rtt r;

	rtt100(&r);
	EXPECT_EQ(quic_loss_delay(&r), 112500);
	r.latest = 120 * MS;
	EXPECT_EQ(quic_loss_delay(&r), 135000);
}

static void loss_delay_at_least_granularity(void)
{
	struct quic_rtt r;

	quic_rtt_init(&r, 0);
	quic_rtt_update(&r, 400, 0, 0, QUIC_PN_SPACE_APP, true, T0);
	EXPECT_EQ(quic_loss_delay(&r), QUIC_K_GRANULARITY);
}

static void packet_threshold(void)
{
	struct quic_sent_meta p[4];
	struct quic_rtt r;
	bool lost[4];
	u64 lt;
	int i;

	rtt100(&r);
	for (i = 0; i < 4; i++)
		p[i] = rt_pkt(i, T0 + i, 1200, true);
	/* packet 4 acknowledged 5 us later: far below the time threshold */
	EXPECT_EQ(quic_detect_lost(&r, 4, p, 4, lost, &lt, T0 + 10), 2);
	EXPECT(lost[0]);
	EXPECT(lost[1]);	/* 4 >= 1 + kPacketThreshold */
	EXPECT(!lost[2]);	/* 4 < 2 + 3 */
	EXPECT(!lost[3]);
	/* the survivors arm the time-threshold timer */
	EXPECT_EQ(lt, T0 + 2 + 112500);
}

static void time_threshold_exact_loss_time(void)
{
	struct quic_sent_meta p[2];
	struct quic_rtt r;
	bool lost[2];
	u64 lt;

	rtt100(&r);
	p[0] = rt_pkt(0, T0, 1200, true);
	p[1] = rt_pkt(1, T0 + 50 * MS, 1200, true);
	EXPECT_EQ(quic_detect_lost(&r, 2, p, 2, lost, &lt, T0 + 120 * MS), 1);
	EXPECT(lost[0]);	/* sent 120 ms ago > 112.5 ms */
	EXPECT(!lost[1]);
	EXPECT_EQ(lt, T0 + 50 * MS + 112500);
}

static void time_threshold_boundary_is_lost(void)
{
	struct quic_sent_meta p = rt_pkt(0, T0, 1200, true);
	struct quic_rtt r;
	bool lost;
	u64 lt;

	rtt100(&r);
	EXPECT_EQ(quic_detect_lost(&r, 1, &p, 1, &lost, &lt, T0 + 112499), 0);
	EXPECT_EQ(lt, T0 + 112500);
	EXPECT_EQ(quic_detect_lost(&r, 1, &p, 1, &lost, &lt, T0 + 112500), 1);
	EXPECT(lost);
	EXPECT_EQ(lt, 0);
}

static void loss_time_is_earliest(void)
{
	struct quic_sent_meta p[2];
	struct quic_rtt r;
	bool lost[2];
	u64 lt;

	rtt100(&r);
	/* send times need not follow packet numbers (clock steps, tests) */
	p[0] = rt_pkt(8, T0 + 30 * MS, 1200, true);
	p[1] = rt_pkt(9, T0 + 10 * MS, 1200, true);
	EXPECT_EQ(quic_detect_lost(&r, 10, p, 2, lost, &lt, T0 + 40 * MS), 0);
	EXPECT_EQ(lt, T0 + 10 * MS + 112500);
}

static void above_largest_acked_never_lost(void)
{
	struct quic_sent_meta p[2];
	struct quic_rtt r;
	bool lost[2];
	u64 lt;

	rtt100(&r);
	p[0] = rt_pkt(2, T0, 1200, true);
	p[1] = rt_pkt(9, T0, 1200, true);	/* sent long ago, not acked past */
	EXPECT_EQ(quic_detect_lost(&r, 3, p, 2, lost, &lt, T0 + 10 * 1000 * MS),
		  1);
	EXPECT(lost[0]);
	EXPECT(!lost[1]);
	EXPECT_EQ(lt, 0);
}

static void walk_verdicts(void)
{
	struct quic_sent_meta a = rt_pkt(1, T0, 1200, true);
	struct quic_sent_meta b = rt_pkt(3, T0 + 90 * MS, 1200, true);
	struct quic_sent_meta c = rt_pkt(6, T0 + 95 * MS, 1200, true);
	struct quic_loss_walk w;
	struct quic_rtt r;

	rtt100(&r);
	quic_loss_walk_begin(&w, &r, 5, T0 + 100 * MS);
	EXPECT_EQ(quic_loss_walk_step(&w, &a), QUIC_LOSS_LOST);
	EXPECT_EQ(quic_loss_walk_step(&w, &b), QUIC_LOSS_KEEP);
	EXPECT_EQ(quic_loss_walk_step(&w, &c), QUIC_LOSS_STOP);
	EXPECT_EQ(w.lost, 1);
	EXPECT_EQ(w.loss_time, T0 + 90 * MS + 112500);
}

static void pto_initial_rtt_is_one_second(void)
{
	struct quic_rtt r;

	quic_rtt_init(&r, 0);
	EXPECT_EQ(quic_pto_duration(&r, 25 * MS, QUIC_PN_SPACE_INITIAL),
		  999 * MS);
	EXPECT_EQ(quic_pto_duration(&r, 25 * MS, QUIC_PN_SPACE_HANDSHAKE),
		  999 * MS);
}

static void pto_app_adds_max_ack_delay(void)
{
	struct quic_rtt r;

	rtt100(&r);
	EXPECT_EQ(quic_pto_duration(&r, 25 * MS, QUIC_PN_SPACE_APP),
		  100 * MS + 200 * MS + 25 * MS);
}

static void pto_rttvar_term_at_least_granularity(void)
{
	struct quic_rtt r;

	quic_rtt_init(&r, 0);
	r.smoothed = 10 * MS;
	r.var = 100;
	EXPECT_EQ(quic_pto_duration(&r, 0, QUIC_PN_SPACE_HANDSHAKE),
		  10 * MS + QUIC_K_GRANULARITY);
}

static void pto_backoff_doubles_and_saturates(void)
{
	EXPECT_EQ(quic_pto_backoff(1000, 0), 1000);
	EXPECT_EQ(quic_pto_backoff(1000, 3), 8000);
	EXPECT_EQ(quic_pto_backoff(~0ULL >> 2, 5), ~0ULL);
}

/* The cap: a quarter of the idle timeout, at most QUIC_PTO_MAX_US. */
static void pto_cap_from_idle_timeout(void)
{
	EXPECT_EQ(quic_pto_cap(0), QUIC_PTO_MAX_US);
	EXPECT_EQ(quic_pto_cap(30000 * MS), 7500 * MS);
	EXPECT_EQ(quic_pto_cap(3600000 * MS), QUIC_PTO_MAX_US);
}

/* Backoff stops at the cap, but the period without backoff is never cut. */
static void pto_backoff_capped(void)
{
	EXPECT_EQ(quic_pto_backoff_capped(300 * MS, 0, 1000 * MS), 300 * MS);
	EXPECT_EQ(quic_pto_backoff_capped(300 * MS, 1, 1000 * MS), 600 * MS);
	EXPECT_EQ(quic_pto_backoff_capped(300 * MS, 2, 1000 * MS), 1000 * MS);
	EXPECT_EQ(quic_pto_backoff_capped(300 * MS, 16, 1000 * MS), 1000 * MS);
	EXPECT_EQ(quic_pto_backoff_capped(5000 * MS, 3, 1000 * MS), 5000 * MS);
	EXPECT_EQ(quic_pto_backoff_capped(~0ULL >> 2, 5, 1000 * MS),
		  ~0ULL >> 2);
}

static void ld_setup(struct quic_ld *ld, struct quic_rtt *r, bool server)
{
	rtt100(r);
	quic_ld_init(ld, server, 25 * MS);
}

static void ld_sent(struct quic_ld *ld, enum quic_pn_space s, u64 pn, u64 t)
{
	struct quic_sent_meta p = rt_pkt(pn, t, 1200, true);

	quic_ld_on_packet_sent(ld, s, &p);
}

static void ld_pto_from_last_ack_eliciting(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, true);
	ld_sent(&ld, QUIC_PN_SPACE_HANDSHAKE, 0, T0 + 10 * MS);
	ld_sent(&ld, QUIC_PN_SPACE_HANDSHAKE, 1, T0 + 20 * MS);
	quic_ld_timer(&ld, &r, T0 + 30 * MS, &t);
	EXPECT_EQ(t.mode, QUIC_LD_PTO);
	EXPECT_EQ(t.space, QUIC_PN_SPACE_HANDSHAKE);
	EXPECT_EQ(t.deadline, T0 + 20 * MS + 300 * MS);
}

static void ld_no_app_pto_before_confirmation(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, true);
	ld_sent(&ld, QUIC_PN_SPACE_APP, 0, T0);
	quic_ld_timer(&ld, &r, T0, &t);
	EXPECT_EQ(t.mode, QUIC_LD_NONE);
	EXPECT_EQ(t.deadline, 0);
	ld.handshake_confirmed = true;
	quic_ld_timer(&ld, &r, T0, &t);
	EXPECT_EQ(t.mode, QUIC_LD_PTO);
	EXPECT_EQ(t.space, QUIC_PN_SPACE_APP);
}

static void ld_app_pto_backoff_includes_max_ack_delay(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, true);
	ld.handshake_confirmed = true;
	ld_sent(&ld, QUIC_PN_SPACE_APP, 0, T0);
	quic_ld_on_pto(&ld);
	quic_ld_on_pto(&ld);
	quic_ld_timer(&ld, &r, T0, &t);
	EXPECT_EQ(t.deadline, T0 + 4 * (300 * MS + 25 * MS));
}

static void ld_handshake_pto_backoff_without_max_ack_delay(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, true);
	ld_sent(&ld, QUIC_PN_SPACE_HANDSHAKE, 0, T0);
	quic_ld_on_pto(&ld);
	quic_ld_timer(&ld, &r, T0, &t);
	EXPECT_EQ(t.deadline, T0 + 2 * 300 * MS);
}

/*
 * However many PTOs in a row, with a 4 s idle timeout the next probe is at
 * most 1 s after the last ack-eliciting packet: backoff alone never lets
 * the idle timer expire first.
 */
static void ld_pto_backoff_stays_below_idle_timeout(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;
	int i;

	ld_setup(&ld, &r, true);
	ld.handshake_confirmed = true;
	quic_ld_set_idle_timeout(&ld, 4000 * MS);
	ld_sent(&ld, QUIC_PN_SPACE_APP, 0, T0);
	for (i = 0; i < 20; i++)
		quic_ld_on_pto(&ld);
	quic_ld_timer(&ld, &r, T0, &t);
	EXPECT_EQ(t.mode, QUIC_LD_PTO);
	EXPECT_EQ(t.deadline, T0 + 1000 * MS);
	/* no idle timeout: a minute */
	quic_ld_set_idle_timeout(&ld, 0);
	quic_ld_timer(&ld, &r, T0, &t);
	EXPECT_EQ(t.deadline, T0 + QUIC_PTO_MAX_US);
}

static void ld_earliest_space_wins(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, true);
	ld.handshake_confirmed = true;
	ld_sent(&ld, QUIC_PN_SPACE_APP, 0, T0);		/* + 325 ms */
	ld_sent(&ld, QUIC_PN_SPACE_HANDSHAKE, 0, T0 + 10 * MS);	/* + 300 ms */
	quic_ld_timer(&ld, &r, T0 + 10 * MS, &t);
	EXPECT_EQ(t.space, QUIC_PN_SPACE_HANDSHAKE);
	EXPECT_EQ(t.deadline, T0 + 310 * MS);
	ld_sent(&ld, QUIC_PN_SPACE_INITIAL, 0, T0 + 5 * MS);
	quic_ld_timer(&ld, &r, T0 + 10 * MS, &t);
	EXPECT_EQ(t.space, QUIC_PN_SPACE_INITIAL);
	EXPECT_EQ(t.deadline, T0 + 305 * MS);
}

static void ld_loss_timer_overrides_pto(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, true);
	ld_sent(&ld, QUIC_PN_SPACE_INITIAL, 0, T0);
	ld.space[QUIC_PN_SPACE_HANDSHAKE].loss_time = T0 + 900 * MS;
	ld.space[QUIC_PN_SPACE_APP].loss_time = T0 + 800 * MS;
	quic_ld_timer(&ld, &r, T0, &t);
	EXPECT_EQ(t.mode, QUIC_LD_LOSS);
	EXPECT_EQ(t.space, QUIC_PN_SPACE_APP);
	EXPECT_EQ(t.deadline, T0 + 800 * MS);
}

static void ld_client_anti_deadlock(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, false);
	quic_ld_timer(&ld, &r, T0 + 7, &t);
	EXPECT_EQ(t.mode, QUIC_LD_ANTI_DEADLOCK);
	EXPECT_EQ(t.space, QUIC_PN_SPACE_INITIAL);
	EXPECT_EQ(t.deadline, T0 + 7 + 300 * MS);
	ld.has_handshake_keys = true;
	quic_ld_on_pto(&ld);
	quic_ld_timer(&ld, &r, T0 + 7, &t);
	EXPECT_EQ(t.space, QUIC_PN_SPACE_HANDSHAKE);
	EXPECT_EQ(t.deadline, T0 + 7 + 600 * MS);
	/* once the server validated us: nothing in flight, no timer */
	ld.handshake_ack_received = true;
	quic_ld_timer(&ld, &r, T0 + 7, &t);
	EXPECT_EQ(t.mode, QUIC_LD_NONE);
}

/*
 * A client with only 0-RTT packets in flight, before the server acknowledged
 * a Handshake packet: the anti-deadlock PTO, not no timer at all.
 */
static void ld_client_anti_deadlock_with_0rtt(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, false);
	ld.has_handshake_keys = true;
	ld_sent(&ld, QUIC_PN_SPACE_APP, 0, T0);
	quic_ld_timer(&ld, &r, T0 + 7, &t);
	EXPECT_EQ(t.mode, QUIC_LD_ANTI_DEADLOCK);
	EXPECT_EQ(t.space, QUIC_PN_SPACE_HANDSHAKE);
	EXPECT_EQ(t.deadline, T0 + 7 + 300 * MS);
	/* validated: the 0-RTT packets wait for confirmation, no timer */
	ld.handshake_ack_received = true;
	quic_ld_timer(&ld, &r, T0 + 7, &t);
	EXPECT_EQ(t.mode, QUIC_LD_NONE);
}

/* The anti-deadlock probe leaves PTO after it was armed, not never. */
static void ld_client_anti_deadlock_armed_once(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, false);
	ld.has_handshake_keys = true;
	quic_ld_arm(&ld, &r, T0, &t);
	EXPECT_EQ(t.mode, QUIC_LD_ANTI_DEADLOCK);
	EXPECT_EQ(t.deadline, T0 + 300 * MS);
	/* recomputed later (an ACK-only packet went out): still due then */
	quic_ld_arm(&ld, &r, T0 + 200 * MS, &t);
	EXPECT_EQ(t.deadline, T0 + 300 * MS);
	quic_ld_arm(&ld, &r, T0 + 300 * MS, &t);
	EXPECT_EQ(t.mode, QUIC_LD_ANTI_DEADLOCK);
	EXPECT_EQ(t.space, QUIC_PN_SPACE_HANDSHAKE);
	EXPECT(t.deadline <= T0 + 300 * MS);
	/* the probe could not leave: the next one is due a doubled PTO on */
	quic_ld_on_pto(&ld);
	quic_ld_arm(&ld, &r, T0 + 300 * MS, &t);
	EXPECT_EQ(t.deadline, T0 + 300 * MS + 600 * MS);
	/* the probe left: an ordinary PTO, and the armed deadline is gone */
	ld_sent(&ld, QUIC_PN_SPACE_HANDSHAKE, 0, T0 + 310 * MS);
	quic_ld_arm(&ld, &r, T0 + 310 * MS, &t);
	EXPECT_EQ(t.mode, QUIC_LD_PTO);
	EXPECT_EQ(ld.anti_deadlock_deadline, 0);
}

/*
 * Discarding the Initial keys restarts the timers (§6.2.2): the client's
 * anti-deadlock PTO armed while it waited for the server's first flight
 * is due a PTO after the discard, not at the deadline armed before.
 */
static void ld_client_anti_deadlock_restarts_on_discard(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, false);
	quic_ld_arm(&ld, &r, T0, &t);
	EXPECT_EQ(t.space, QUIC_PN_SPACE_INITIAL);
	EXPECT_EQ(t.deadline, T0 + 300 * MS);
	ld.has_handshake_keys = true;
	quic_ld_arm(&ld, &r, T0 + 250 * MS, &t);
	EXPECT_EQ(t.deadline, T0 + 300 * MS);	/* kept: no RFC event */
	quic_ld_discard_space(&ld, QUIC_PN_SPACE_INITIAL);
	quic_ld_arm(&ld, &r, T0 + 250 * MS, &t);
	EXPECT_EQ(t.mode, QUIC_LD_ANTI_DEADLOCK);
	EXPECT_EQ(t.space, QUIC_PN_SPACE_HANDSHAKE);
	EXPECT_EQ(t.deadline, T0 + 550 * MS);
}

/*
 * An ack-eliciting Initial or Handshake packet from the server restarts a
 * client's anti-deadlock PTO: due a PTO after it, not after the ACK that
 * armed it.  A server's timers do not move.
 */
static void ld_client_anti_deadlock_restarts_on_rx(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, false);
	quic_ld_arm(&ld, &r, T0, &t);
	EXPECT_EQ(t.mode, QUIC_LD_ANTI_DEADLOCK);
	EXPECT_EQ(t.deadline, T0 + 300 * MS);
	quic_ld_on_handshake_rx(&ld);
	quic_ld_arm(&ld, &r, T0 + 250 * MS, &t);
	EXPECT_EQ(t.mode, QUIC_LD_ANTI_DEADLOCK);
	EXPECT_EQ(t.space, QUIC_PN_SPACE_INITIAL);
	EXPECT_EQ(t.deadline, T0 + 550 * MS);
	/* without news it stays where it is */
	quic_ld_arm(&ld, &r, T0 + 400 * MS, &t);
	EXPECT_EQ(t.deadline, T0 + 550 * MS);

	ld_setup(&ld, &r, true);
	ld.anti_deadlock_deadline = T0 + 300 * MS;
	quic_ld_on_handshake_rx(&ld);
	EXPECT_EQ(ld.anti_deadlock_deadline, T0 + 300 * MS);
}

/* A client's ACK-only Handshake packet takes a PING until it is validated. */
static void ld_client_handshake_ping(void)
{
	struct quic_sent_meta p = rt_pkt(0, T0, 50, true);
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, false);
	ld.has_handshake_keys = true;
	EXPECT(quic_ld_handshake_ping(&ld));
	/* the PING went: an ordinary PTO, and no second PING meanwhile */
	quic_ld_on_packet_sent(&ld, QUIC_PN_SPACE_HANDSHAKE, &p);
	EXPECT(!quic_ld_handshake_ping(&ld));
	quic_ld_timer(&ld, &r, T0, &t);
	EXPECT_EQ(t.mode, QUIC_LD_PTO);
	EXPECT_EQ(t.space, QUIC_PN_SPACE_HANDSHAKE);
	/* lost: the next ACK-only packet carries one again */
	quic_ld_on_packet_removed(&ld, QUIC_PN_SPACE_HANDSHAKE, &p);
	EXPECT(quic_ld_handshake_ping(&ld));
	/* acknowledged: validated, no PING, and with nothing in flight no timer */
	ld.handshake_ack_received = true;
	EXPECT(!quic_ld_handshake_ping(&ld));
	quic_ld_timer(&ld, &r, T0, &t);
	EXPECT_EQ(t.mode, QUIC_LD_NONE);
	/* with 0-RTT packets in flight the anti-deadlock PTO stays */
	ld.handshake_ack_received = false;
	ld_sent(&ld, QUIC_PN_SPACE_APP, 0, T0);
	EXPECT(!quic_ld_handshake_ping(&ld));
	quic_ld_timer(&ld, &r, T0, &t);
	EXPECT_EQ(t.mode, QUIC_LD_ANTI_DEADLOCK);
	/* a server never needs one */
	ld_setup(&ld, &r, true);
	EXPECT(!quic_ld_handshake_ping(&ld));
}

static void ld_server_idle_no_timer(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, true);
	quic_ld_timer(&ld, &r, T0, &t);
	EXPECT_EQ(t.mode, QUIC_LD_NONE);
	EXPECT_EQ(t.deadline, 0);
}

static void ld_server_amplification_limited_no_timer(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, true);
	ld_sent(&ld, QUIC_PN_SPACE_INITIAL, 0, T0);
	ld.at_amplification_limit = true;
	quic_ld_timer(&ld, &r, T0, &t);
	EXPECT_EQ(t.mode, QUIC_LD_NONE);
}

static void ld_client_keeps_backoff_until_validated(void)
{
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, false);
	quic_ld_on_pto(&ld);
	quic_ld_on_pto(&ld);
	quic_ld_on_ack_received(&ld);	/* an Initial ACK */
	EXPECT_EQ(ld.pto_count, 2);
	ld.handshake_ack_received = true;
	quic_ld_on_ack_received(&ld);
	EXPECT_EQ(ld.pto_count, 0);
}

static void ld_server_resets_backoff_on_ack(void)
{
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, true);
	quic_ld_on_pto(&ld);
	quic_ld_on_ack_received(&ld);
	EXPECT_EQ(ld.pto_count, 0);
}

static void ld_discard_space_resets(void)
{
	struct quic_ld_timer t;
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, true);
	ld_sent(&ld, QUIC_PN_SPACE_INITIAL, 0, T0);
	ld.space[QUIC_PN_SPACE_INITIAL].loss_time = T0 + 5;
	quic_ld_on_pto(&ld);
	quic_ld_discard_space(&ld, QUIC_PN_SPACE_INITIAL);
	EXPECT_EQ(ld.pto_count, 0);
	EXPECT_EQ(ld.space[QUIC_PN_SPACE_INITIAL].loss_time, 0);
	EXPECT_EQ(ld.space[QUIC_PN_SPACE_INITIAL].ack_eliciting_in_flight, 0);
	quic_ld_timer(&ld, &r, T0, &t);
	EXPECT_EQ(t.mode, QUIC_LD_NONE);
}

static void ld_removed_packets_leave_flight(void)
{
	struct quic_sent_meta a = rt_pkt(0, T0, 1200, true);
	struct quic_sent_meta b = rt_pkt(1, T0, 50, false);
	struct quic_ld ld;
	struct quic_rtt r;

	ld_setup(&ld, &r, true);
	quic_ld_on_packet_sent(&ld, QUIC_PN_SPACE_APP, &a);
	quic_ld_on_packet_sent(&ld, QUIC_PN_SPACE_APP, &b);
	EXPECT_EQ(ld.space[QUIC_PN_SPACE_APP].ack_eliciting_in_flight, 1);
	quic_ld_on_packet_removed(&ld, QUIC_PN_SPACE_APP, &b);
	EXPECT_EQ(ld.space[QUIC_PN_SPACE_APP].ack_eliciting_in_flight, 1);
	quic_ld_on_packet_removed(&ld, QUIC_PN_SPACE_APP, &a);
	EXPECT_EQ(ld.space[QUIC_PN_SPACE_APP].ack_eliciting_in_flight, 0);
}

/*
 * §7.6.3 example, unit U = 100 ms: smoothed 100, 4 * rttvar 80,
 * max_ack_delay 20 -> PTO base 2U, persistent congestion duration 6U.
 */
#define U	(100 * MS)
#define PC_MAD	(20 * MS)

static void pc_rtt(struct quic_rtt *r, u64 first_sample)
{
	quic_rtt_init(r, 0);
	quic_rtt_update(r, 100 * MS, 0, 0, QUIC_PN_SPACE_APP, true,
			first_sample);
	r->var = 20 * MS;
}

/* packets 2..8 sent at 1, 2, 3, 4, 5, 6, 8 U */
static void pc_lost(struct quic_sent_meta *p)
{
	static const u64 at[] = { 1, 2, 3, 4, 5, 6, 8 };
	int i;

	for (i = 0; i < 7; i++)
		p[i] = rt_pkt(2 + i, T0 + at[i] * U, 1200, true);
}

static void pc_duration_formula(void)
{
	struct quic_rtt r;

	pc_rtt(&r, T0);
	EXPECT_EQ(quic_pc_duration(&r, PC_MAD), 6 * U);
}

static void pc_rfc_example(void)
{
	struct quic_sent_meta p[7];
	struct quic_rtt r;

	pc_rtt(&r, T0 + U / 2);
	pc_lost(p);
	EXPECT(quic_persistent_congestion(&r, PC_MAD, p, 7));
}

static void pc_span_equal_to_duration_is_not(void)
{
	struct quic_sent_meta p[7];
	struct quic_rtt r;

	pc_rtt(&r, T0 + U / 2);
	pc_lost(p);
	EXPECT(!quic_persistent_congestion(&r, PC_MAD, p + 1, 6)); /* 2U..8U */
}

static void pc_needs_rtt_sample(void)
{
	struct quic_sent_meta p[7];
	struct quic_rtt r;

	pc_rtt(&r, T0 + U / 2);
	r.has_sample = false;
	pc_lost(p);
	EXPECT(!quic_persistent_congestion(&r, PC_MAD, p, 7));
}

static void pc_ignores_packets_before_first_sample(void)
{
	struct quic_sent_meta p[7];
	struct quic_rtt r;

	/* first sample at 1.5U: packet 2 (sent at 1U) does not count */
	pc_rtt(&r, T0 + U + U / 2);
	pc_lost(p);
	EXPECT(!quic_persistent_congestion(&r, PC_MAD, p, 7));
}

static void pc_acked_packet_between_breaks_period(void)
{
	struct quic_sent_meta p[7];
	struct quic_rtt r;

	pc_rtt(&r, T0 + U / 2);
	pc_lost(p);
	/* packet 5 was acknowledged: lost are 2, 3, 4, 6, 7, 8 */
	p[3] = p[4];
	p[4] = p[5];
	p[5] = p[6];
	EXPECT(!quic_persistent_congestion(&r, PC_MAD, p, 6));
}

static void pc_endpoints_must_be_ack_eliciting(void)
{
	struct quic_sent_meta p[7];
	struct quic_rtt r;

	pc_rtt(&r, T0 + U / 2);
	pc_lost(p);
	p[0].ack_eliciting = false;
	p[6].ack_eliciting = false;
	/* 3U..6U remains: not persistent */
	EXPECT(!quic_persistent_congestion(&r, PC_MAD, p, 7));
	/* a non-eliciting loss inside the period does not end it: 1U..8U */
	p[0].ack_eliciting = true;
	p[3].ack_eliciting = false;
	p[6].ack_eliciting = true;
	EXPECT(quic_persistent_congestion(&r, PC_MAD, p, 7));
}

/* A packet-threshold loss that was only reordered raises the threshold. */
static void reorder_raises_packet_threshold(void)
{
	struct quic_reorder ro;
	struct quic_loss_walk w;
	struct quic_sent_meta p;
	struct quic_rtt r;

	rtt100(&r);
	quic_reorder_init(&ro);
	EXPECT_EQ(ro.pkt_threshold, QUIC_K_PACKET_THRESHOLD);
	quic_reorder_on_spurious(&ro, 5, false);
	EXPECT_EQ(ro.pkt_threshold, 6);
	quic_reorder_on_spurious(&ro, 4, false);	/* smaller: no change */
	EXPECT_EQ(ro.pkt_threshold, 6);
	EXPECT_EQ(ro.time_num, QUIC_K_TIME_THRESHOLD_NUM);
	quic_reorder_on_spurious(&ro, 1000, false);
	EXPECT_EQ(ro.pkt_threshold, QUIC_REORDER_PKT_MAX);

	/* distance 5 with threshold 6: kept, for the time threshold */
	quic_reorder_init(&ro);
	quic_reorder_on_spurious(&ro, 5, false);
	p = rt_pkt(10, T0, 1200, true);
	quic_loss_walk_begin(&w, &r, 15, T0 + 10);
	quic_loss_walk_adapt(&w, &r, &ro);
	EXPECT_EQ(quic_loss_walk_step(&w, &p), QUIC_LOSS_KEEP);
	quic_loss_walk_begin(&w, &r, 16, T0 + 10);
	quic_loss_walk_adapt(&w, &r, &ro);
	EXPECT_EQ(quic_loss_walk_step(&w, &p), QUIC_LOSS_LOST);
	EXPECT(!w.by_time);
}

/* A time-threshold loss that was only reordered widens the time window. */
static void reorder_raises_time_threshold(void)
{
	struct quic_reorder ro;
	struct quic_loss_walk w;
	struct quic_sent_meta p = rt_pkt(10, T0, 1200, true);
	struct quic_rtt r;
	int i;

	rtt100(&r);
	quic_reorder_init(&ro);
	quic_loss_walk_begin(&w, &r, 11, T0 + 120 * MS);
	quic_loss_walk_adapt(&w, &r, &ro);
	EXPECT_EQ(w.loss_delay, 112500);
	EXPECT_EQ(quic_loss_walk_step(&w, &p), QUIC_LOSS_LOST);
	EXPECT(w.by_time);
	quic_reorder_on_spurious(&ro, 1, true);
	EXPECT_EQ(ro.pkt_threshold, QUIC_K_PACKET_THRESHOLD);
	quic_loss_walk_begin(&w, &r, 11, T0 + 120 * MS);
	quic_loss_walk_adapt(&w, &r, &ro);
	EXPECT_EQ(w.loss_delay, 125000);	/* 10/8 RTT */
	EXPECT_EQ(quic_loss_walk_step(&w, &p), QUIC_LOSS_KEEP);
	EXPECT_EQ(w.loss_time, T0 + 125000);
	for (i = 0; i < 20; i++)
		quic_reorder_on_spurious(&ro, 1, true);
	EXPECT_EQ(ro.time_num, QUIC_REORDER_TIME_NUM_MAX);
}

static void lost_log_finds_acked_losses(void)
{
	struct quic_lost_log log;
	struct quic_lost_rec rec, *r;
	int i;

	quic_lost_log_init(&log);
	EXPECT(!quic_lost_log_take(&log, 0, 100, &rec));
	r = quic_lost_log_add(&log, 7, 3, false);
	r->episode = 2;
	quic_lost_log_add(&log, 9, 1, true);
	EXPECT(!quic_lost_log_take(&log, 10, 20, &rec));
	EXPECT(!quic_lost_log_take(&log, 0, 6, &rec));
	EXPECT(quic_lost_log_take(&log, 5, 8, &rec));
	EXPECT_EQ(rec.pn, 7);
	EXPECT_EQ(rec.distance, 3);
	EXPECT_EQ(rec.episode, 2);
	EXPECT(!rec.by_time);
	EXPECT(!quic_lost_log_take(&log, 5, 8, &rec));	/* taken once */
	EXPECT(quic_lost_log_take(&log, 9, 9, &rec));
	EXPECT(rec.by_time);
	EXPECT_EQ(log.count, 0);

	/* a full ring forgets the oldest */
	for (i = 0; i < QUIC_LOST_LOG_SIZE + 4; i++)
		quic_lost_log_add(&log, 100 + i, 3, false);
	EXPECT_EQ(log.count, QUIC_LOST_LOG_SIZE);
	EXPECT(!quic_lost_log_take(&log, 100, 103, &rec));
	EXPECT(quic_lost_log_take(&log, 104, 104, &rec));
}

static const struct rt_case cases[] = {
	RT_CASE(reorder_raises_packet_threshold),
	RT_CASE(reorder_raises_time_threshold),
	RT_CASE(lost_log_finds_acked_losses),
	RT_CASE(loss_delay_uses_larger_of_srtt_latest),
	RT_CASE(loss_delay_at_least_granularity),
	RT_CASE(packet_threshold),
	RT_CASE(time_threshold_exact_loss_time),
	RT_CASE(time_threshold_boundary_is_lost),
	RT_CASE(loss_time_is_earliest),
	RT_CASE(above_largest_acked_never_lost),
	RT_CASE(walk_verdicts),
	RT_CASE(pto_initial_rtt_is_one_second),
	RT_CASE(pto_app_adds_max_ack_delay),
	RT_CASE(pto_rttvar_term_at_least_granularity),
	RT_CASE(pto_backoff_doubles_and_saturates),
	RT_CASE(pto_cap_from_idle_timeout),
	RT_CASE(pto_backoff_capped),
	RT_CASE(ld_pto_backoff_stays_below_idle_timeout),
	RT_CASE(ld_pto_from_last_ack_eliciting),
	RT_CASE(ld_no_app_pto_before_confirmation),
	RT_CASE(ld_app_pto_backoff_includes_max_ack_delay),
	RT_CASE(ld_handshake_pto_backoff_without_max_ack_delay),
	RT_CASE(ld_earliest_space_wins),
	RT_CASE(ld_loss_timer_overrides_pto),
	RT_CASE(ld_client_anti_deadlock),
	RT_CASE(ld_client_anti_deadlock_armed_once),
	RT_CASE(ld_client_anti_deadlock_with_0rtt),
	RT_CASE(ld_client_anti_deadlock_restarts_on_discard),
	RT_CASE(ld_client_anti_deadlock_restarts_on_rx),
	RT_CASE(ld_client_handshake_ping),
	RT_CASE(ld_server_idle_no_timer),
	RT_CASE(ld_server_amplification_limited_no_timer),
	RT_CASE(ld_client_keeps_backoff_until_validated),
	RT_CASE(ld_server_resets_backoff_on_ack),
	RT_CASE(ld_discard_space_resets),
	RT_CASE(ld_removed_packets_leave_flight),
	RT_CASE(pc_duration_formula),
	RT_CASE(pc_rfc_example),
	RT_CASE(pc_span_equal_to_duration_is_not),
	RT_CASE(pc_needs_rtt_sample),
	RT_CASE(pc_ignores_packets_before_first_sample),
	RT_CASE(pc_acked_packet_between_breaks_period),
	RT_CASE(pc_endpoints_must_be_ack_eliciting),
};

void loss_tests(void)
{
	rt_run("loss", cases, ARRAY_SIZE(cases));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * RFC 9000 §13.2 and draft-ietf-quic-ack-frequency: when to acknowledge,
 * and the ACK Delay field.
 */
#include <errno.h>
#include <stdio.h>

#include "rt.h"
#include "ackdelay.h"
#include "constants.h"

#define MAD	(25 * MS)

struct rx {
	struct quic_ack_timing at;
	struct quic_ack_ranges rcvd;
};

static void rx_init(struct rx *r, enum quic_pn_space space)
{
	quic_ack_timing_init(&r->at, space, MAD);
	quic_ack_ranges_init(&r->rcvd);
}

static enum quic_ack_action rx_pkt(struct rx *r, u64 pn, bool eliciting,
				   u64 now)
{
	struct quic_ack_rx p = { .pn = pn, .ack_eliciting = eliciting };

	quic_ack_ranges_add(&r->rcvd, pn);
	return quic_ack_on_packet(&r->at, &p, &r->rcvd, now);
}

static enum quic_ack_action rx_full(struct rx *r, const struct quic_ack_rx *p,
				    u64 now)
{
	quic_ack_ranges_add(&r->rcvd, p->pn);
	return quic_ack_on_packet(&r->at, p, &r->rcvd, now);
}

/* Send an ACK for everything received so far. */
static void rx_ack(struct rx *r)
{
	quic_ack_on_sent(&r->at, quic_ack_ranges_largest(&r->rcvd));
}

static void initial_acked_immediately(void)
{
	struct rx r;

	rx_init(&r, QUIC_PN_SPACE_INITIAL);
	EXPECT_EQ(rx_pkt(&r, 0, true, T0), QUIC_ACK_NOW);
	EXPECT(quic_ack_due(&r.at, T0));
}

static void handshake_acked_immediately(void)
{
	struct rx r;

	rx_init(&r, QUIC_PN_SPACE_HANDSHAKE);
	EXPECT_EQ(rx_pkt(&r, 0, true, T0), QUIC_ACK_NOW);
}

static void first_app_packet_arms_max_ack_delay(void)
{
	struct rx r;

	rx_init(&r, QUIC_PN_SPACE_APP);
	EXPECT_EQ(rx_pkt(&r, 0, true, T0), QUIC_ACK_DELAYED);
	EXPECT_EQ(r.at.deadline, T0 + MAD);
	EXPECT(!quic_ack_due(&r.at, T0 + MAD - 1));
	EXPECT(quic_ack_due(&r.at, T0 + MAD));
}

static void second_ack_eliciting_acks_now(void)
{
	struct rx r;

	rx_init(&r, QUIC_PN_SPACE_APP);
	rx_pkt(&r, 0, true, T0);
	EXPECT_EQ(rx_pkt(&r, 1, true, T0 + 1), QUIC_ACK_NOW);
}

static void non_ack_eliciting_never_triggers(void)
{
	struct rx r;

	rx_init(&r, QUIC_PN_SPACE_APP);
	EXPECT_EQ(rx_pkt(&r, 0, false, T0), QUIC_ACK_NONE);
	EXPECT_EQ(rx_pkt(&r, 5, false, T0), QUIC_ACK_NONE);
	EXPECT(r.at.pending);
	EXPECT_EQ(r.at.deadline, 0);
	rx_init(&r, QUIC_PN_SPACE_INITIAL);
	EXPECT_EQ(rx_pkt(&r, 0, false, T0), QUIC_ACK_NONE);
}

static void deadline_from_first_unacked(void)
{
	struct rx r;
	u32 terr;

	rx_init(&r, QUIC_PN_SPACE_APP);
	EXPECT_EQ(quic_ack_on_frequency(&r.at, 1, 10, MAD, 1, 0, &terr), 0);
	rx_pkt(&r, 0, true, T0);
	EXPECT_EQ(rx_pkt(&r, 1, true, T0 + 5 * MS), QUIC_ACK_DELAYED);
	EXPECT_EQ(r.at.deadline, T0 + MAD);
}

static void ack_sent_resets_state(void)
{
	struct rx r;

	rx_init(&r, QUIC_PN_SPACE_APP);
	rx_pkt(&r, 0, true, T0);
	rx_pkt(&r, 1, true, T0);
	rx_ack(&r);
	EXPECT(!quic_ack_due(&r.at, T0 + 10 * MAD));
	EXPECT_EQ(r.at.unacked_eliciting, 0);
	EXPECT_EQ(r.at.largest_acked, 1);
	EXPECT_EQ(rx_pkt(&r, 2, true, T0 + MS), QUIC_ACK_DELAYED);
	EXPECT_EQ(r.at.deadline, T0 + MS + MAD);
}

static void reordered_below_largest_acks_now(void)
{
	struct rx r;

	rx_init(&r, QUIC_PN_SPACE_APP);
	rx_pkt(&r, 0, true, T0);
	rx_pkt(&r, 2, true, T0);
	rx_ack(&r);
	EXPECT_EQ(rx_pkt(&r, 1, true, T0 + 1), QUIC_ACK_NOW);
}

static void gap_above_largest_acks_now(void)
{
	struct rx r;

	rx_init(&r, QUIC_PN_SPACE_APP);
	rx_pkt(&r, 0, true, T0);
	rx_ack(&r);
	EXPECT_EQ(rx_pkt(&r, 2, true, T0 + 1), QUIC_ACK_NOW);
}

static void no_gap_through_non_eliciting(void)
{
	struct rx r;

	rx_init(&r, QUIC_PN_SPACE_APP);
	rx_pkt(&r, 0, true, T0);
	rx_ack(&r);
	rx_pkt(&r, 1, false, T0 + 1);
	EXPECT_EQ(rx_pkt(&r, 2, true, T0 + 2), QUIC_ACK_DELAYED);
}

static void immediate_ack_frame(void)
{
	struct quic_ack_rx p = { .pn = 0, .ack_eliciting = true,
				 .immediate_ack = true };
	struct rx r;

	rx_init(&r, QUIC_PN_SPACE_APP);
	EXPECT_EQ(rx_full(&r, &p, T0), QUIC_ACK_NOW);
}

static void ecn_ce_acks_now(void)
{
	struct quic_ack_rx p = { .pn = 0, .ack_eliciting = true,
				 .ecn_ce = true };
	struct rx r;

	rx_init(&r, QUIC_PN_SPACE_APP);
	EXPECT_EQ(rx_full(&r, &p, T0), QUIC_ACK_NOW);
}

static void ecn_ce_transition_only_above_threshold_one(void)
{
	struct quic_ack_rx p = { .ack_eliciting = true, .ecn_ce = true };
	struct rx r;
	u32 terr;

	rx_init(&r, QUIC_PN_SPACE_APP);
	quic_ack_on_frequency(&r.at, 1, 10, MAD, 1, 0, &terr);
	p.pn = 0;
	EXPECT_EQ(rx_full(&r, &p, T0), QUIC_ACK_NOW);	/* non-CE -> CE */
	rx_ack(&r);
	p.pn = 1;
	EXPECT_EQ(rx_full(&r, &p, T0), QUIC_ACK_DELAYED); /* CE -> CE */
	p.pn = 2;
	p.ecn_ce = false;
	EXPECT_EQ(rx_full(&r, &p, T0), QUIC_ACK_DELAYED);
	p.pn = 3;
	p.ecn_ce = true;
	EXPECT_EQ(rx_full(&r, &p, T0), QUIC_ACK_NOW);
}

static void ack_frequency_threshold(void)
{
	struct rx r;
	u32 terr;
	int i;

	rx_init(&r, QUIC_PN_SPACE_APP);
	EXPECT_EQ(quic_ack_on_frequency(&r.at, 1, 3, MAD, 1, 0, &terr), 0);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(rx_pkt(&r, i, true, T0), QUIC_ACK_DELAYED);
	EXPECT_EQ(rx_pkt(&r, 3, true, T0), QUIC_ACK_NOW);
}

static void ack_frequency_threshold_zero_acks_every_packet(void)
{
	struct rx r;
	u32 terr;

	rx_init(&r, QUIC_PN_SPACE_APP);
	EXPECT_EQ(quic_ack_on_frequency(&r.at, 1, 0, MAD, 1, 0, &terr), 0);
	EXPECT_EQ(rx_pkt(&r, 0, true, T0), QUIC_ACK_NOW);
}

static void ack_frequency_obsolete_ignored(void)
{
	struct rx r;
	u32 terr;

	rx_init(&r, QUIC_PN_SPACE_APP);
	EXPECT_EQ(quic_ack_on_frequency(&r.at, 5, 4, 40 * MS, 2, 0, &terr), 0);
	EXPECT_EQ(quic_ack_on_frequency(&r.at, 5, 9, 50 * MS, 3, 0, &terr), 0);
	EXPECT_EQ(quic_ack_on_frequency(&r.at, 3, 9, 50 * MS, 3, 0, &terr), 0);
	EXPECT_EQ(r.at.threshold, 4);
	EXPECT_EQ(r.at.max_ack_delay, 40 * MS);
	EXPECT_EQ(r.at.reorder_threshold, 2);
	EXPECT_EQ(quic_ack_on_frequency(&r.at, 6, 9, 50 * MS, 3, 0, &terr), 0);
	EXPECT_EQ(r.at.threshold, 9);
}

static void ack_frequency_invalid_max_ack_delay(void)
{
	struct rx r;
	u32 terr = 0;

	rx_init(&r, QUIC_PN_SPACE_APP);
	EXPECT_EQ(quic_ack_on_frequency(&r.at, 1, 2, 16384 * MS, 1, 0, &terr),
		  -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION);
	terr = 0;
	EXPECT_EQ(quic_ack_on_frequency(&r.at, 2, 2, 500, 1, 1000, &terr),
		  -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION);
	EXPECT_EQ(quic_ack_on_frequency(&r.at, 3, 2, 16383 * MS, 1, 1000,
					&terr), 0);
	EXPECT_EQ(r.at.threshold, 2);
}

static void ack_frequency_sets_max_ack_delay(void)
{
	struct rx r;
	u32 terr;

	rx_init(&r, QUIC_PN_SPACE_APP);
	quic_ack_on_frequency(&r.at, 1, 1, 7 * MS, 1, 0, &terr);
	rx_pkt(&r, 0, true, T0);
	EXPECT_EQ(r.at.deadline, T0 + 7 * MS);
}

static void reorder_threshold_zero_ignores_gaps(void)
{
	struct rx r;
	u32 terr;

	rx_init(&r, QUIC_PN_SPACE_APP);
	quic_ack_on_frequency(&r.at, 1, 10, MAD, 0, 0, &terr);
	rx_pkt(&r, 0, true, T0);
	EXPECT_EQ(rx_pkt(&r, 5, true, T0), QUIC_ACK_DELAYED);
	EXPECT_EQ(rx_pkt(&r, 2, true, T0), QUIC_ACK_DELAYED);
}

/* Play a table of the draft: ACK whenever told to, as the draft assumes. */
static int play(u32 threshold, const u64 *pns, const bool *want, int n)
{
	struct rx r;
	u32 terr;
	int i, bad = 0;

	rx_init(&r, QUIC_PN_SPACE_APP);
	quic_ack_on_frequency(&r.at, 1, 100, MAD, threshold, 0, &terr);
	for (i = 0; i < n; i++) {
		bool now = rx_pkt(&r, pns[i], true, T0) == QUIC_ACK_NOW;

		if (now != want[i]) {
			printf("#   packet %llu: ack %d, want %d\n",
			       (unsigned long long)pns[i], now, want[i]);
			bad++;
		}
		if (now)
			rx_ack(&r);
	}
	return bad;
}

static void reorder_threshold_3_draft_table(void)
{
	static const u64 pns[] = { 0, 1, 3, 4, 5, 8, 9, 10 };
	static const bool want[] = { 0, 0, 0, 0, 1, 0, 1, 1 };

	EXPECT_EQ(play(3, pns, want, 8), 0);
}

static void reorder_threshold_5_draft_table(void)
{
	static const u64 pns[] = { 0, 1, 3, 5, 6, 7, 8, 9 };
	static const bool want[] = { 0, 0, 0, 0, 0, 1, 0, 1 };

	EXPECT_EQ(play(5, pns, want, 8), 0);
}

static void reorder_late_packet_below_reported_acks_now(void)
{
	struct rx r;
	u32 terr;

	rx_init(&r, QUIC_PN_SPACE_APP);
	quic_ack_on_frequency(&r.at, 1, 100, MAD, 3, 0, &terr);
	rx_pkt(&r, 0, true, T0);
	rx_pkt(&r, 2, true, T0);
	rx_pkt(&r, 3, true, T0);
	rx_pkt(&r, 4, true, T0);
	rx_pkt(&r, 5, true, T0);
	rx_ack(&r);	/* largest acked 5: the peer may declare 1, 2 lost */
	EXPECT_EQ(rx_pkt(&r, 1, true, T0), QUIC_ACK_NOW);
}

static void ack_delay_encode_decode(void)
{
	EXPECT_EQ(quic_ack_delay_encode(1000, 3), 125);
	EXPECT_EQ(quic_ack_delay_encode(1007, 3), 125);
	EXPECT_EQ(quic_ack_delay_decode(125, 3), 1000);
	EXPECT_EQ(quic_ack_delay_encode(1000, 0), 1000);
	EXPECT_EQ(quic_ack_delay_decode(1, 20), 1 << 20);
	EXPECT_EQ(quic_ack_delay_decode(1ULL << 62, 20), ~0ULL);
}

static void ack_delay_measured_from_largest(void)
{
	struct rx r;

	rx_init(&r, QUIC_PN_SPACE_APP);
	rx_pkt(&r, 5, true, T0);
	rx_pkt(&r, 3, true, T0 + 2 * MS);	/* not the largest */
	EXPECT_EQ(quic_ack_delay_field(&r.at, T0 + 7 * MS, 3), 875);
	rx_pkt(&r, 6, false, T0 + 4 * MS);
	EXPECT_EQ(quic_ack_delay_field(&r.at, T0 + 7 * MS, 3), 375);
}

/* Send an ACK in a packet with application data (@data) or without. */
static void rx_ack_in(struct rx *r, bool data)
{
	rx_ack(r);
	quic_ack_on_sent_packet(&r->at, data, r->at.largest_rx_time);
}

/* An answer (a packet with data) carries the ACK of packets 0 and 1. */
static void rx_pingpong(struct rx *r)
{
	rx_init(r, QUIC_PN_SPACE_APP);
	rx_pkt(r, 0, true, T0);
	rx_pkt(r, 1, true, T0);
	rx_ack_in(r, true);
	EXPECT(r->at.pingpong);
}

static void pingpong_waits_for_the_answer(void)
{
	struct rx r;

	rx_pingpong(&r);
	EXPECT_EQ(rx_pkt(&r, 2, true, T0 + MS), QUIC_ACK_DELAYED);
	EXPECT_EQ(r.at.deadline, T0 + MS + MAD);
	/* the second would be acknowledged now; it waits QUIC_ACK_REPLY_DELAY */
	EXPECT_EQ(rx_pkt(&r, 3, true, T0 + 2 * MS), QUIC_ACK_DELAYED);
	EXPECT_EQ(r.at.deadline, T0 + 2 * MS + QUIC_ACK_REPLY_DELAY);
	EXPECT_EQ(rx_pkt(&r, 4, true, T0 + 2 * MS + 10), QUIC_ACK_DELAYED);
	EXPECT_EQ(r.at.deadline, T0 + 2 * MS + QUIC_ACK_REPLY_DELAY);
	EXPECT_EQ(rx_pkt(&r, 5, true, T0 + 2 * MS + 20), QUIC_ACK_DELAYED);
	EXPECT(!quic_ack_due(&r.at, T0 + 2 * MS + QUIC_ACK_REPLY_DELAY - 1));
	EXPECT(quic_ack_due(&r.at, T0 + 2 * MS + QUIC_ACK_REPLY_DELAY));
	/* more than QUIC_ACK_PINGPONG_MAX: now */
	EXPECT_EQ(rx_pkt(&r, 6, true, T0 + 2 * MS + 30), QUIC_ACK_NOW);
	/* the answer carries it: the next message waits again */
	rx_ack_in(&r, true);
	rx_pkt(&r, 7, true, T0 + 3 * MS);
	EXPECT_EQ(rx_pkt(&r, 8, true, T0 + 3 * MS), QUIC_ACK_DELAYED);
}

/*
 * An ACK-only packet (the timer's) ends the mode if it acknowledged
 * ack-eliciting packets, and leaves it if it acknowledged none.
 */
static void pingpong_ends_with_an_ack_alone(void)
{
	int eliciting;
	struct rx r;

	for (eliciting = 0; eliciting < 2; eliciting++) {
		rx_pingpong(&r);
		rx_pkt(&r, 2, eliciting, T0 + MS);
		rx_ack_in(&r, false);
		EXPECT_EQ(r.at.pingpong, !eliciting);
		rx_pkt(&r, 3, true, T0 + 2 * MS);
		EXPECT_EQ(rx_pkt(&r, 4, true, T0 + 2 * MS),
			  eliciting ? QUIC_ACK_NOW : QUIC_ACK_DELAYED);
	}
}

/*
 * An answer after its ACK went alone, within max_ack_delay of the last
 * packet received, enters the mode again; a later one, or a packet
 * without data, does not.
 */
static void pingpong_again_after_a_late_answer(void)
{
	static const u64 late[] = { 0, MAD, MAD + 1 };
	unsigned int i;
	struct rx r;

	for (i = 0; i < 3; i++) {
		rx_pingpong(&r);
		rx_pkt(&r, 2, true, T0 + MS);
		rx_pkt(&r, 3, true, T0 + MS);
		rx_ack_in(&r, false);		/* the timer's ACK */
		EXPECT(!r.at.pingpong);
		quic_ack_on_sent_packet(&r.at, false, T0 + MS);	/* no data */
		EXPECT(!r.at.pingpong);
		/* the answer, without an ACK frame */
		quic_ack_on_sent_packet(&r.at, true, T0 + MS + late[i]);
		EXPECT_EQ(r.at.pingpong, i < 2);
		rx_pkt(&r, 4, true, T0 + 2 * MAD);
		EXPECT_EQ(rx_pkt(&r, 5, true, T0 + 2 * MAD),
			  i < 2 ? QUIC_ACK_DELAYED : QUIC_ACK_NOW);
		/* only the first answer after the ACK alone counts */
		if (i == 2) {
			quic_ack_on_sent_packet(&r.at, true, T0 + 2 * MAD);
			EXPECT(!r.at.pingpong);
		}
	}
}

static void pingpong_not_entered_without_data(void)
{
	struct rx r;

	rx_init(&r, QUIC_PN_SPACE_APP);
	rx_pkt(&r, 0, true, T0);
	rx_ack_in(&r, false);	/* e.g. with MAX_DATA alone */
	EXPECT(!r.at.pingpong);
	rx_pkt(&r, 1, true, T0);
	EXPECT_EQ(rx_pkt(&r, 2, true, T0), QUIC_ACK_NOW);
}

static void pingpong_keeps_immediate_rules(void)
{
	struct quic_ack_rx p = { .pn = 4, .ack_eliciting = true,
				 .immediate_ack = true };
	struct rx r;

	rx_pingpong(&r);
	/* a gap: at once */
	EXPECT_EQ(rx_pkt(&r, 3, true, T0 + MS), QUIC_ACK_NOW);
	rx_ack_in(&r, true);
	EXPECT_EQ(rx_full(&r, &p, T0 + MS), QUIC_ACK_NOW);
	rx_ack_in(&r, true);
	p.pn = 5;
	p.immediate_ack = false;
	p.ecn_ce = true;
	EXPECT_EQ(rx_full(&r, &p, T0 + MS), QUIC_ACK_NOW);
}

static void pingpong_not_with_ack_frequency(void)
{
	struct rx r;
	u32 terr;

	rx_pingpong(&r);
	EXPECT_EQ(quic_ack_on_frequency(&r.at, 1, 1, MAD, 1, 0, &terr), 0);
	rx_pkt(&r, 2, true, T0 + MS);
	EXPECT_EQ(rx_pkt(&r, 3, true, T0 + MS), QUIC_ACK_NOW);
}

static void pingpong_reply_delay_within_max_ack_delay(void)
{
	struct rx r;

	rx_pingpong(&r);
	r.at.max_ack_delay = QUIC_ACK_REPLY_DELAY / 2;
	rx_pkt(&r, 2, true, T0 + MS);
	EXPECT_EQ(rx_pkt(&r, 3, true, T0 + MS + 10), QUIC_ACK_DELAYED);
	EXPECT_EQ(r.at.deadline, T0 + MS + QUIC_ACK_REPLY_DELAY / 2);
}

static const struct rt_case cases[] = {
	RT_CASE(initial_acked_immediately),
	RT_CASE(handshake_acked_immediately),
	RT_CASE(first_app_packet_arms_max_ack_delay),
	RT_CASE(second_ack_eliciting_acks_now),
	RT_CASE(non_ack_eliciting_never_triggers),
	RT_CASE(deadline_from_first_unacked),
	RT_CASE(ack_sent_resets_state),
	RT_CASE(reordered_below_largest_acks_now),
	RT_CASE(gap_above_largest_acks_now),
	RT_CASE(no_gap_through_non_eliciting),
	RT_CASE(immediate_ack_frame),
	RT_CASE(ecn_ce_acks_now),
	RT_CASE(ecn_ce_transition_only_above_threshold_one),
	RT_CASE(ack_frequency_threshold),
	RT_CASE(ack_frequency_threshold_zero_acks_every_packet),
	RT_CASE(ack_frequency_obsolete_ignored),
	RT_CASE(ack_frequency_invalid_max_ack_delay),
	RT_CASE(ack_frequency_sets_max_ack_delay),
	RT_CASE(reorder_threshold_zero_ignores_gaps),
	RT_CASE(reorder_threshold_3_draft_table),
	RT_CASE(reorder_threshold_5_draft_table),
	RT_CASE(reorder_late_packet_below_reported_acks_now),
	RT_CASE(ack_delay_encode_decode),
	RT_CASE(ack_delay_measured_from_largest),
	RT_CASE(pingpong_waits_for_the_answer),
	RT_CASE(pingpong_ends_with_an_ack_alone),
	RT_CASE(pingpong_again_after_a_late_answer),
	RT_CASE(pingpong_not_entered_without_data),
	RT_CASE(pingpong_keeps_immediate_rules),
	RT_CASE(pingpong_not_with_ack_frequency),
	RT_CASE(pingpong_reply_delay_within_max_ack_delay),
};

void ack_tests(void)
{
	rt_run("ack", cases, ARRAY_SIZE(cases));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC loss recovery arithmetic (RFC 9002 §5, §6, §7.6), idle timeout
 * (RFC 9000 §10.1) and anti-amplification (RFC 9000 §8.1).  The rules are
 * listed in recovery.h; this file only computes, the caller owns the
 * packets, timers and clock.
 */

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>

#include "recovery.h"

/* §5: estimator before any sample, from kInitialRtt or a resumed value */
void quic_rtt_init(struct quic_rtt *rtt, u64 initial_rtt)
{
	if (!initial_rtt)
		initial_rtt = QUIC_K_INITIAL_RTT;
	rtt->latest = 0;
	rtt->min = 0;
	rtt->smoothed = initial_rtt;
	rtt->var = initial_rtt / 2;
	rtt->first_sample_time = 0;
	rtt->has_sample = false;
}

/* §5.3 and Appendix A.7 (UpdateRtt) */
void quic_rtt_update(struct quic_rtt *rtt, u64 latest_rtt, u64 ack_delay,
		     u64 max_ack_delay, enum quic_pn_space space,
		     bool handshake_confirmed, u64 now)
{
	u64 adjusted, diff;

	rtt->latest = latest_rtt;
	if (!rtt->has_sample) {
		rtt->min = latest_rtt;
		rtt->smoothed = latest_rtt;
		rtt->var = latest_rtt / 2;
		rtt->first_sample_time = now;
		rtt->has_sample = true;
		return;
	}

	/* §5.2: min_rtt ignores acknowledgment delay */
	if (latest_rtt < rtt->min)
		rtt->min = latest_rtt;

	/* Initial packets are acknowledged without delay (RFC 9000 §13.2.1) */
	if (space == QUIC_PN_SPACE_INITIAL)
		ack_delay = 0;
	else if (handshake_confirmed && ack_delay > max_ack_delay)
		ack_delay = max_ack_delay;

	/* latest_rtt >= min_rtt + ack_delay, without overflowing */
	adjusted = latest_rtt;
	if (latest_rtt - rtt->min >= ack_delay)
		adjusted = latest_rtt - ack_delay;

	diff = rtt->smoothed > adjusted ? rtt->smoothed - adjusted :
					  adjusted - rtt->smoothed;
	rtt->var = (3 * rtt->var + diff) / 4;
	rtt->smoothed = (7 * rtt->smoothed + adjusted) / 8;
}

/* §5.2: "set the min_rtt to the newest RTT sample after persistent congestion" */
void quic_rtt_reset_min(struct quic_rtt *rtt)
{
	if (rtt->has_sample)
		rtt->min = rtt->latest;
}

/* §6.1.2, with a time threshold of @num / QUIC_K_TIME_THRESHOLD_DEN */
static u64 quic_loss_delay_num(const struct quic_rtt *rtt, u32 num)
{
	u64 base = max(rtt->smoothed, rtt->latest);
	u64 delay;

	delay = div_u64(base * num, QUIC_K_TIME_THRESHOLD_DEN);
	return max(delay, QUIC_K_GRANULARITY);
}

u64 quic_loss_delay(const struct quic_rtt *rtt)
{
	return quic_loss_delay_num(rtt, QUIC_K_TIME_THRESHOLD_NUM);
}

void quic_loss_walk_begin(struct quic_loss_walk *w, const struct quic_rtt *rtt,
			  u64 largest_acked, u64 now)
{
	w->largest_acked = largest_acked;
	w->loss_delay = quic_loss_delay(rtt);
	w->now = now;
	w->pkt_threshold = QUIC_K_PACKET_THRESHOLD;
	w->loss_time = 0;
	w->lost = 0;
	w->by_time = false;
}

void quic_reorder_init(struct quic_reorder *r)
{
	r->pkt_threshold = QUIC_K_PACKET_THRESHOLD;
	r->time_num = QUIC_K_TIME_THRESHOLD_NUM;
}

void quic_reorder_on_spurious(struct quic_reorder *r, u64 distance,
			      bool by_time)
{
	if (distance >= r->pkt_threshold)
		r->pkt_threshold = min_t(u64, distance + 1,
					 QUIC_REORDER_PKT_MAX);
	if (by_time && r->time_num < QUIC_REORDER_TIME_NUM_MAX)
		r->time_num++;
}

void quic_loss_walk_adapt(struct quic_loss_walk *w, const struct quic_rtt *rtt,
			  const struct quic_reorder *r)
{
	w->pkt_threshold = r->pkt_threshold;
	w->loss_delay = quic_loss_delay_num(rtt, r->time_num);
}

void quic_lost_log_init(struct quic_lost_log *log)
{
	memset(log, 0, sizeof(*log));
}

struct quic_lost_rec *quic_lost_log_add(struct quic_lost_log *log, u64 pn,
					u32 distance, bool by_time)
{
	struct quic_lost_rec *r = &log->rec[log->next];

	if (!r->valid)
		log->count++;
	r->pn = pn;
	r->distance = distance;
	r->episode = 0;
	r->by_time = by_time;
	r->valid = true;
	log->next = (log->next + 1) % QUIC_LOST_LOG_SIZE;
	return r;
}

bool quic_lost_log_take(struct quic_lost_log *log, u64 smallest, u64 largest,
			struct quic_lost_rec *out)
{
	u32 i;

	if (!log->count)
		return false;
	for (i = 0; i < QUIC_LOST_LOG_SIZE; i++) {
		struct quic_lost_rec *r = &log->rec[i];

		if (!r->valid || r->pn < smallest || r->pn > largest)
			continue;
		*out = *r;
		r->valid = false;
		log->count--;
		return true;
	}
	return false;
}

/* One iteration of DetectAndRemoveLostPackets (Appendix A.10) */
enum quic_loss_verdict quic_loss_walk_step(struct quic_loss_walk *w,
					   const struct quic_sent_meta *p)
{
	u64 when;

	if (p->pn > w->largest_acked)
		return QUIC_LOSS_STOP;

	/* §6.1.1: largest_acked >= pn + kPacketThreshold */
	if (w->largest_acked - p->pn >= w->pkt_threshold) {
		w->by_time = false;
		goto lost;
	}

	/* §6.1.2: sent_time <= now - loss_delay */
	when = p->sent_time + w->loss_delay;
	if (when <= w->now) {
		w->by_time = true;
		goto lost;
	}

	if (!w->loss_time || when < w->loss_time)
		w->loss_time = when;
	return QUIC_LOSS_KEEP;

lost:
	w->lost++;
	return QUIC_LOSS_LOST;
}

u32 quic_detect_lost(const struct quic_rtt *rtt, u64 largest_acked,
		     const struct quic_sent_meta *pkts, u32 n, bool *lost,
		     u64 *loss_time, u64 now)
{
	struct quic_loss_walk w;
	u32 i;

	quic_loss_walk_begin(&w, rtt, largest_acked, now);
	for (i = 0; i < n; i++)
		lost[i] = false;
	for (i = 0; i < n; i++) {
		enum quic_loss_verdict v = quic_loss_walk_step(&w, &pkts[i]);

		if (v == QUIC_LOSS_STOP)
			break;
		lost[i] = v == QUIC_LOSS_LOST;
	}
	*loss_time = w.loss_time;
	return w.lost;
}

static u64 quic_rtt_pto_base(const struct quic_rtt *rtt)
{
	return rtt->smoothed + max(4 * rtt->var, QUIC_K_GRANULARITY);
}

/* §6.2.1 */
u64 quic_pto_duration(const struct quic_rtt *rtt, u64 max_ack_delay,
		      enum quic_pn_space space)
{
	u64 pto = quic_rtt_pto_base(rtt);

	if (space == QUIC_PN_SPACE_APP)
		pto += max_ack_delay;
	return pto;
}

u64 quic_pto_backoff(u64 duration, u32 pto_count)
{
	if (pto_count > QUIC_PTO_COUNT_MAX)
		pto_count = QUIC_PTO_COUNT_MAX;
	if (duration > (U64_MAX >> pto_count))
		return U64_MAX;
	return duration << pto_count;
}

u64 quic_pto_cap(u64 idle_timeout)
{
	if (!idle_timeout)
		return QUIC_PTO_MAX_US;
	return min(idle_timeout / QUIC_PTO_IDLE_DIV, QUIC_PTO_MAX_US);
}

u64 quic_pto_backoff_capped(u64 duration, u32 pto_count, u64 cap)
{
	return min(quic_pto_backoff(duration, pto_count), max(duration, cap));
}

/* §7.6.1 */
u64 quic_pc_duration(const struct quic_rtt *rtt, u64 max_ack_delay)
{
	return (quic_rtt_pto_base(rtt) + max_ack_delay) *
	       QUIC_K_PERSISTENT_CONGESTION_THRESHOLD;
}

void quic_pc_walk_begin(struct quic_pc_walk *w, const struct quic_rtt *rtt,
			u64 max_ack_delay)
{
	w->duration = quic_pc_duration(rtt, max_ack_delay);
	w->first_sample_time = rtt->first_sample_time;
	w->has_sample = rtt->has_sample;
	w->start = 0;
	w->prev_pn = 0;
	w->in_run = false;
	w->has_start = false;
	w->persistent = false;
}

/* §7.6.2 and Appendix B.8 (only packets sent after the first RTT sample) */
void quic_pc_walk_step(struct quic_pc_walk *w, const struct quic_sent_meta *p)
{
	if (w->persistent || !w->has_sample)
		return;
	if (p->sent_time <= w->first_sample_time) {
		w->in_run = false;
		w->has_start = false;
		return;
	}
	/* A packet number gap: something between was acknowledged */
	if (w->in_run && p->pn != w->prev_pn + 1)
		w->has_start = false;
	w->in_run = true;
	w->prev_pn = p->pn;

	if (!p->ack_eliciting)
		return;
	if (!w->has_start) {
		w->start = p->sent_time;
		w->has_start = true;
		return;
	}
	if (p->sent_time > w->start && p->sent_time - w->start > w->duration)
		w->persistent = true;
}

bool quic_persistent_congestion(const struct quic_rtt *rtt, u64 max_ack_delay,
				const struct quic_sent_meta *lost, u32 n)
{
	struct quic_pc_walk w;
	u32 i;

	quic_pc_walk_begin(&w, rtt, max_ack_delay);
	for (i = 0; i < n; i++)
		quic_pc_walk_step(&w, &lost[i]);
	return w.persistent;
}

void quic_ld_init(struct quic_ld *ld, bool is_server, u64 max_ack_delay)
{
	memset(ld, 0, sizeof(*ld));
	ld->is_server = is_server;
	ld->max_ack_delay = max_ack_delay;
	ld->pto_max = quic_pto_cap(0);
}

void quic_ld_set_idle_timeout(struct quic_ld *ld, u64 idle_timeout)
{
	ld->pto_max = quic_pto_cap(idle_timeout);
}

void quic_ld_on_packet_sent(struct quic_ld *ld, enum quic_pn_space space,
			    const struct quic_sent_meta *p)
{
	struct quic_ld_space *s = &ld->space[space];

	if (!p->ack_eliciting)
		return;
	s->last_ack_eliciting_time = p->sent_time;
	s->ack_eliciting_in_flight++;
}

void quic_ld_on_packet_removed(struct quic_ld *ld, enum quic_pn_space space,
			       const struct quic_sent_meta *p)
{
	struct quic_ld_space *s = &ld->space[space];

	if (p->ack_eliciting && s->ack_eliciting_in_flight)
		s->ack_eliciting_in_flight--;
}

/* Appendix A.8 PeerCompletedAddressValidation() */
bool quic_ld_peer_completed_address_validation(const struct quic_ld *ld)
{
	return ld->is_server || ld->handshake_ack_received ||
	       ld->handshake_confirmed;
}

void quic_ld_on_ack_received(struct quic_ld *ld)
{
	if (quic_ld_peer_completed_address_validation(ld))
		ld->pto_count = 0;
}

void quic_ld_on_pto(struct quic_ld *ld)
{
	if (ld->pto_count < QUIC_PTO_COUNT_MAX)
		ld->pto_count++;
}

/*
 * §6.2.2.1: a client probes until the server acknowledges one of its
 * Handshake packets, and an ACK-only one is never acknowledged: with
 * nothing of its own in flight it would wait for the anti-deadlock PTO
 * and send a PING then.  Sent with its first ACK instead, the PING is
 * acknowledged at once (RFC 9000 §13.2.1) and no probe is needed.  Not
 * with 0-RTT packets in flight: until the address is validated, the
 * anti-deadlock PTO is what takes the client's Finished out past a
 * window they fill (their acknowledgments come in 1-RTT packets).
 */
bool quic_ld_handshake_ping(const struct quic_ld *ld)
{
	return !quic_ld_peer_completed_address_validation(ld) &&
	       !ld->space[QUIC_PN_SPACE_HANDSHAKE].ack_eliciting_in_flight &&
	       !ld->space[QUIC_PN_SPACE_APP].ack_eliciting_in_flight;
}

/*
 * §6.2.2.1's anti-deadlock probe is for a server that waits for the
 * client: its flight lost, or its amplification limit reached.  An
 * ack-eliciting Initial or Handshake packet from the server shows neither
 * holds now (and the client's immediate ACK of it raises that limit); the
 * wait that follows is the client's own, for its TLS stack to read what
 * came.  So the probe counts from that packet.  Under TCG a key exchange
 * outlasts three loopback RTTs: before this, 61 of a handshake run's 62
 * PTOs were such client Initial probes (1,200 bytes each, for nothing).
 */
void quic_ld_on_handshake_rx(struct quic_ld *ld)
{
	if (!ld->is_server)
		ld->anti_deadlock_deadline = 0;
}

/* Appendix A.11 OnPacketNumberSpaceDiscarded() */
void quic_ld_discard_space(struct quic_ld *ld, enum quic_pn_space space)
{
	struct quic_ld_space *s = &ld->space[space];

	s->loss_time = 0;
	s->last_ack_eliciting_time = 0;
	s->ack_eliciting_in_flight = 0;
	ld->pto_count = 0;
	/* §6.2.2: the timers restart, an anti-deadlock probe from now */
	ld->anti_deadlock_deadline = 0;
}

/* Appendix A.8 GetLossTimeAndSpace() */
static bool quic_ld_loss_time(const struct quic_ld *ld, struct quic_ld_timer *t)
{
	int i;

	t->deadline = 0;
	for (i = 0; i < QUIC_PN_SPACE_MAX; i++) {
		u64 lt = ld->space[i].loss_time;

		if (lt && (!t->deadline || lt < t->deadline)) {
			t->deadline = lt;
			t->space = i;
		}
	}
	return t->deadline != 0;
}

static u64 quic_time_add(u64 a, u64 b)
{
	return a > U64_MAX - b ? U64_MAX : a + b;
}

/* Appendix A.8 GetPtoTimeAndSpace() */
static void quic_ld_pto_time(const struct quic_ld *ld,
			     const struct quic_rtt *rtt, u64 now,
			     struct quic_ld_timer *t)
{
	u64 base = quic_rtt_pto_base(rtt);
	int i;

	t->mode = QUIC_LD_NONE;
	t->deadline = 0;

	/*
	 * §6.2.2.1: anti-deadlock PTO starts from the current time.  A client
	 * arms it until its address is validated even with 0-RTT packets in
	 * flight ("even if there are no packets in flight"): theirs waits for
	 * confirmation, and with them filling the window only a probe can
	 * take its Handshake Finished out.
	 */
	if (!ld->space[QUIC_PN_SPACE_INITIAL].ack_eliciting_in_flight &&
	    !ld->space[QUIC_PN_SPACE_HANDSHAKE].ack_eliciting_in_flight &&
	    (!ld->space[QUIC_PN_SPACE_APP].ack_eliciting_in_flight ||
	     !quic_ld_peer_completed_address_validation(ld))) {
		t->mode = QUIC_LD_ANTI_DEADLOCK;
		t->space = ld->has_handshake_keys ? QUIC_PN_SPACE_HANDSHAKE :
						    QUIC_PN_SPACE_INITIAL;
		t->deadline = quic_time_add(now,
					    quic_pto_backoff_capped(base,
								    ld->pto_count,
								    ld->pto_max));
		return;
	}

	for (i = 0; i < QUIC_PN_SPACE_MAX; i++) {
		const struct quic_ld_space *s = &ld->space[i];
		u64 d = base, when;

		if (!s->ack_eliciting_in_flight)
			continue;
		if (i == QUIC_PN_SPACE_APP) {
			/* No Application Data PTO before confirmation */
			if (!ld->handshake_confirmed)
				return;
			d += ld->max_ack_delay;
		}
		when = quic_time_add(s->last_ack_eliciting_time,
				     quic_pto_backoff_capped(d, ld->pto_count,
							     ld->pto_max));
		if (t->mode == QUIC_LD_NONE || when < t->deadline) {
			t->mode = QUIC_LD_PTO;
			t->deadline = when;
			t->space = i;
		}
	}
}

static bool quic_ld_any_in_flight(const struct quic_ld *ld)
{
	int i;

	for (i = 0; i < QUIC_PN_SPACE_MAX; i++)
		if (ld->space[i].ack_eliciting_in_flight)
			return true;
	return false;
}

/* Appendix A.8 SetLossDetectionTimer() */
void quic_ld_timer(const struct quic_ld *ld, const struct quic_rtt *rtt,
		   u64 now, struct quic_ld_timer *t)
{
	t->space = QUIC_PN_SPACE_INITIAL;
	if (quic_ld_loss_time(ld, t)) {
		t->mode = QUIC_LD_LOSS;
		return;
	}
	t->mode = QUIC_LD_NONE;
	t->deadline = 0;

	/* The server's timer is not set if nothing can be sent */
	if (ld->at_amplification_limit)
		return;
	if (!quic_ld_any_in_flight(ld) &&
	    quic_ld_peer_completed_address_validation(ld))
		return;

	quic_ld_pto_time(ld, rtt, now, t);
}

/*
 * The anti-deadlock deadline of quic_ld_timer() counts from @now, which is
 * what SetLossDetectionTimer() means when the RFC calls it on a send or an
 * ACK.  Recomputed when the timer fires, though, it would always lie a PTO
 * ahead and the probe would never leave: so the deadline armed first is
 * kept until the probe goes (pto_count grows) or the mode changes.
 */
void quic_ld_arm(struct quic_ld *ld, const struct quic_rtt *rtt, u64 now,
		 struct quic_ld_timer *t)
{
	quic_ld_timer(ld, rtt, now, t);
	if (t->mode != QUIC_LD_ANTI_DEADLOCK) {
		ld->anti_deadlock_deadline = 0;
		return;
	}
	if (ld->anti_deadlock_deadline &&
	    ld->anti_deadlock_pto_count == ld->pto_count) {
		t->deadline = ld->anti_deadlock_deadline;
		return;
	}
	ld->anti_deadlock_deadline = t->deadline;
	ld->anti_deadlock_pto_count = ld->pto_count;
}

/* RFC 9000 §10.1 */
void quic_idle_init(struct quic_idle *idle, u64 now)
{
	idle->timeout = 0;
	idle->last_restart = now;
	idle->sent_since_rx = false;
}

void quic_idle_set_timeout(struct quic_idle *idle, u64 local, u64 peer)
{
	if (!local || !peer)
		idle->timeout = max(local, peer);
	else
		idle->timeout = min(local, peer);
}

void quic_idle_on_packet_received(struct quic_idle *idle, u64 now)
{
	idle->last_restart = now;
	idle->sent_since_rx = false;
}

void quic_idle_on_ack_eliciting_sent(struct quic_idle *idle, u64 now)
{
	if (idle->sent_since_rx)
		return;
	idle->last_restart = now;
	idle->sent_since_rx = true;
}

u64 quic_idle_deadline(const struct quic_idle *idle, u64 pto)
{
	u64 period;

	if (!idle->timeout)
		return 0;
	period = pto > U64_MAX / 3 ? U64_MAX : 3 * pto;
	period = max(idle->timeout, period);
	return quic_time_add(idle->last_restart, period);
}

/* RFC 9000 §8.1 */
u64 quic_amp_allowance(const struct quic_amp *amp)
{
	u64 limit;

	if (amp->validated)
		return U64_MAX;
	limit = amp->received * QUIC_AMPLIFICATION_FACTOR;
	return limit > amp->sent ? limit - amp->sent : 0;
}

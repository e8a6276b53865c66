// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC congestion control, the part common to every algorithm: windows,
 * bytes in flight, recovery period, app-limited state (RFC 9002 §7 and
 * Appendix B; rules listed in cong.h).  The algorithms are in
 * cong_reno.c and cong_cubic.c.
 */

#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/string.h>

#include "cong.h"
#include "pacing.h"

/* §7.2 */
u64 quic_cong_initial_window(u32 mss)
{
	u64 m = mss;

	return min_t(u64, QUIC_CONG_INIT_WINDOW_PACKETS * m,
		     max_t(u64, QUIC_CONG_INIT_WINDOW_BYTES,
			   QUIC_CONG_MIN_WINDOW_PACKETS * m));
}

u64 quic_cong_min_window(u32 mss)
{
	return (u64)QUIC_CONG_MIN_WINDOW_PACKETS * mss;
}

static const struct quic_cong_ops *quic_cong_lookup(enum quic_cong_algo algo)
{
	switch (algo) {
	case QUIC_CONG_ALG_RENO:
		return &quic_cong_reno_ops;
	case QUIC_CONG_ALG_CUBIC:
		return &quic_cong_cubic_ops;
	case QUIC_CONG_ALG_BBR:
		return &quic_cong_bbr_ops;
	default:
		return NULL;
	}
}

int quic_cong_init(struct quic_cong *c, enum quic_cong_algo algo, u32 mss)
{
	const struct quic_cong_ops *ops;

	ops = quic_cong_lookup(algo);
	if (!ops || !mss)
		return -EINVAL;

	memset(c, 0, sizeof(*c));
	c->ops = ops;
	c->algo = algo;
	c->mss = mss;
	c->cwnd = quic_cong_initial_window(mss);
	c->ssthresh = U64_MAX;
	quic_hystart_init(&c->hystart);
	ops->init(c);
	return 0;
}

/* §7.2: the window never stays below the minimum for the new size */
void quic_cong_set_mss(struct quic_cong *c, u32 mss)
{
	if (!mss)
		return;
	c->mss = mss;
	c->cwnd = max(c->cwnd, quic_cong_min_window(mss));
}

/* Appendix B.4 OnPacketSentCC() */
void quic_cong_on_packet_sent(struct quic_cong *c,
			      const struct quic_sent_meta *p)
{
	if (!p->in_flight)
		return;
	c->bytes_in_flight += p->size;
	/* §7.8: using the whole window means not app-limited */
	if (c->bytes_in_flight >= c->cwnd)
		quic_cong_set_app_limited(c, false, p->sent_time);
}

void quic_cong_on_packet_removed(struct quic_cong *c,
				 const struct quic_sent_meta *p)
{
	if (!p->in_flight)
		return;
	c->bytes_in_flight -= min_t(u64, c->bytes_in_flight, p->size);
}

/* §7.3.1, HyStart++ in the initial slow start unless it is off */
static void quic_cong_slow_start(struct quic_cong *c,
				 const struct quic_sent_meta *p,
				 const struct quic_rtt *rtt, u64 now)
{
	bool exit;

	if (c->ssthresh != U64_MAX || c->hystart_off) {
		c->cwnd += p->size;
		return;
	}
	c->cwnd += quic_hystart_on_ack(&c->hystart, p->sent_time, p->size,
				       rtt->has_sample ? rtt->latest : 0, now,
				       &exit);
	if (exit)
		c->ssthresh = c->cwnd;
}

/* Appendix B.5 OnPacketAcked() */
void quic_cong_on_packet_acked(struct quic_cong *c,
			       const struct quic_sent_meta *p,
			       const struct quic_rtt *rtt, u64 now)
{
	bool in_recovery;

	if (!p->in_flight)
		return;
	quic_cong_on_packet_removed(c, p);
	in_recovery = quic_cong_in_recovery(c, p->sent_time);
	/* §7.3.2: a packet sent during recovery was acknowledged */
	if (!in_recovery)
		c->in_recovery = false;
	if (c->ops->on_packet_acked) {
		c->ops->on_packet_acked(c, p, rtt, now);
		return;
	}
	if (in_recovery || c->app_limited)
		return;
	if (quic_cong_in_slow_start(c)) {
		quic_cong_slow_start(c, p, rtt, now);
		return;
	}
	c->ops->on_ack(c, p->size, rtt, now);
}

static void quic_cong_save(struct quic_cong *c)
{
	struct quic_cong_undo *u = &c->undo;

	u->cwnd = c->cwnd;
	u->ssthresh = c->ssthresh;
	u->recovery_start = c->recovery_start;
	if (c->algo == QUIC_CONG_ALG_CUBIC)
		u->cubic = c->cubic;
	else if (c->algo == QUIC_CONG_ALG_RENO)
		u->reno = c->reno;
	u->valid = true;
}

/* Appendix B.6 OnCongestionEvent() */
void quic_cong_on_congestion_event(struct quic_cong *c, u64 sent_time,
				   u64 now)
{
	if (quic_cong_in_recovery(c, sent_time))
		return;
	quic_cong_save(c);
	c->episode++;
	c->episode_lost = 0;
	c->episode_spurious = 0;
	c->in_recovery = true;
	c->recovery_start = now;
	c->ops->on_congestion(c, now);
}

bool quic_cong_on_spurious_loss(struct quic_cong *c, u32 episode)
{
	struct quic_cong_undo *u = &c->undo;

	if (!u->valid || episode != c->episode || !c->episode_lost)
		return false;
	if (++c->episode_spurious < c->episode_lost)
		return false;
	c->cwnd = max(c->cwnd, u->cwnd);
	c->ssthresh = u->ssthresh;
	if (c->algo == QUIC_CONG_ALG_CUBIC)
		c->cubic = u->cubic;
	else if (c->algo == QUIC_CONG_ALG_RENO)
		c->reno = u->reno;
	/* losses of what was sent since the last real event count again */
	c->recovery_start = u->recovery_start;
	c->in_recovery = false;
	u->valid = false;
	return true;
}

void quic_cong_on_persistent_congestion(struct quic_cong *c, u64 now)
{
	c->undo.valid = false;
	c->cwnd = quic_cong_min_window(c->mss);
	c->in_recovery = false;
	c->recovery_start = 0;
	if (c->ops->on_persistent)
		c->ops->on_persistent(c, now);
}

/* Appendix B.8 OnPacketsLost() */
void quic_cong_on_packets_lost(struct quic_cong *c,
			       const struct quic_sent_meta *lost, u32 n,
			       bool persistent, u64 now)
{
	u64 last_sent = 0;
	u32 i, in_flight = 0;

	for (i = 0; i < n; i++) {
		if (!lost[i].in_flight)
			continue;
		quic_cong_on_packet_removed(c, &lost[i]);
		last_sent = max(last_sent, lost[i].sent_time);
		in_flight++;
	}
	if (in_flight) {
		/* May start a new event; these losses count in it either way. */
		quic_cong_on_congestion_event(c, last_sent, now);
		c->episode_lost += in_flight;
	}
	if (persistent)
		quic_cong_on_persistent_congestion(c, now);
}

/* Appendix B.7 ProcessECN() */
bool quic_cong_on_ecn(struct quic_cong *c, u64 *ce_seen, u64 ce_reported,
		      u64 sent_time, u64 now)
{
	if (ce_reported <= *ce_seen)
		return false;
	*ce_seen = ce_reported;
	quic_cong_on_congestion_event(c, sent_time, now);
	c->undo.valid = false;	/* the network said so: not to be undone */
	return true;
}

void quic_cong_on_tx_stop(struct quic_cong *c, bool idle, u64 now)
{
	quic_cong_set_app_limited(c, idle && quic_cong_window_left(c) >= c->mss,
				  now);
}

/* §7.8 */
void quic_cong_set_app_limited(struct quic_cong *c, bool limited, u64 now)
{
	if (c->app_limited == limited)
		return;
	c->app_limited = limited;
	if (c->ops->on_app_limited)
		c->ops->on_app_limited(c, limited, now);
}

u64 quic_cong_pacing_window(const struct quic_cong *c, u64 srtt)
{
	u64 rate;

	if (!c->ops->pacing_rate || !srtt)
		return c->cwnd;
	/* rate = 1.25 * window / srtt */
	rate = min(c->ops->pacing_rate(c, srtt), QUIC_CONG_RATE_MAX);
	srtt = min(srtt, QUIC_CONG_TIME_MAX);
	return max_t(u64, div64_u64(rate * srtt * QUIC_PACING_N_DEN,
				    QUIC_PACING_N_NUM * 1000000ULL), c->mss);
}

const char *quic_cong_state_name(const struct quic_cong *c)
{
	if (READ_ONCE(c->algo) == QUIC_CONG_ALG_BBR)
		return quic_bbr_mode_name(c);
	if (READ_ONCE(c->cwnd) < READ_ONCE(c->ssthresh))
		return "slow_start";
	return READ_ONCE(c->in_recovery) ? "recovery" : "avoidance";
}

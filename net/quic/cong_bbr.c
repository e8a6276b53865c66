// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC BBR, a simplified BBRv1 (draft-ietf-ccwg-bbr's model, without its
 * v3 loss and ECN responses).  Rules and omissions are listed in cong.h.
 *
 * Units: windows and delivered data in bytes, rates in bytes per second,
 * times in microseconds, gains in 1/256 (QUIC_BBR_UNIT).
 */

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>

#include "cong.h"

#define QUIC_BBR_UNIT		256
/* Startup: 2/ln(2) = 2.885 for pacing and cwnd (BBRv1's high gain) */
#define QUIC_BBR_HIGH_GAIN	739
/* Drain: its inverse */
#define QUIC_BBR_DRAIN_GAIN	89
#define QUIC_BBR_CWND_GAIN	512	/* 2 in ProbeBW */
#define QUIC_BBR_FULL_BW_THRESH	320	/* 1.25: growth that is still growth */
#define QUIC_BBR_FULL_BW_ROUNDS	3
#define QUIC_BBR_MIN_PIPE_PKTS	4	/* BBR.MinPipeCwnd */
#define QUIC_BBR_QUANTA_PKTS	3	/* cwnd headroom for ACK aggregation */
#define QUIC_BBR_MIN_RTT_WIN_US	(10 * 1000000ULL)	/* MinRTTFilterLen */
#define QUIC_BBR_PROBE_RTT_US	(200 * 1000ULL)		/* ProbeRTTDuration */
/* extra_acked: a max over two windows of 5 round trips, 10 in all */
#define QUIC_BBR_EA_WIN_ROUNDS	5
#define QUIC_BBR_USEC_PER_SEC	1000000ULL

/* ProbeBW: one phase per min_rtt, probe up, drain the probe, cruise. */
static const u16 quic_bbr_cycle[QUIC_BBR_CYCLE_LEN] = {
	320, 192, 256, 256, 256, 256, 256, 256,
};

/* The cycle starts in a cruise phase: not probing before it has a model. */
#define QUIC_BBR_CYCLE_START	2

static const char * const quic_bbr_mode_names[] = {
	[QUIC_BBR_STARTUP]	= "startup",
	[QUIC_BBR_DRAIN]	= "drain",
	[QUIC_BBR_PROBE_BW]	= "probe_bw",
	[QUIC_BBR_PROBE_RTT]	= "probe_rtt",
};

/* Also read without the socket lock (/proc): bounded whatever it reads. */
const char *quic_bbr_mode_name(const struct quic_cong *c)
{
	u8 mode = READ_ONCE(c->bbr.mode);

	return mode < ARRAY_SIZE(quic_bbr_mode_names) ?
	       quic_bbr_mode_names[mode] : "-";
}

static void quic_bbr_init(struct quic_cong *c)
{
	memset(&c->bbr, 0, sizeof(c->bbr));
	c->bbr.mode = QUIC_BBR_STARTUP;
}

/* bytes delivered over @us microseconds, in bytes per second */
u64 quic_bbr_rate(u64 bytes, u64 us)
{
	if (!us)
		return 0;
	bytes = min(bytes, QUIC_CONG_RATE_MAX);
	return min(div64_u64(bytes * QUIC_BBR_USEC_PER_SEC, us),
		   QUIC_CONG_RATE_MAX);
}

/* BDP times @gain: the bandwidth-delay product the window aims at */
u64 quic_bbr_bdp(const struct quic_cong *c, u32 gain)
{
	const struct quic_bbr *b = &c->bbr;
	u64 rtt = min(b->min_rtt, QUIC_CONG_TIME_MAX);

	if (!b->btl_bw || !b->min_rtt)
		return quic_cong_initial_window(c->mss);
	/* below 2^61, then below 2^41 before the gain */
	return div_u64(div64_u64(b->btl_bw * rtt, QUIC_BBR_USEC_PER_SEC) * gain,
		       QUIC_BBR_UNIT);
}

static u32 quic_bbr_pacing_gain(const struct quic_cong *c)
{
	switch (c->bbr.mode) {
	case QUIC_BBR_STARTUP:
		return QUIC_BBR_HIGH_GAIN;
	case QUIC_BBR_DRAIN:
		return QUIC_BBR_DRAIN_GAIN;
	case QUIC_BBR_PROBE_BW:
		return quic_bbr_cycle[c->bbr.cycle_idx];
	default:
		return QUIC_BBR_UNIT;
	}
}

static u32 quic_bbr_cwnd_gain(const struct quic_cong *c)
{
	return c->bbr.mode == QUIC_BBR_PROBE_BW ? QUIC_BBR_CWND_GAIN :
						 QUIC_BBR_HIGH_GAIN;
}

/*
 * Pacing rate: gain times the bottleneck bandwidth; in Startup at least
 * the gain times the window over @srtt, as draft-ietf-ccwg-bbr's Startup
 * never paces below its initial rate.  The first round's sample can be
 * far below the path's rate: it spans the handshake, when the sender had
 * little to send (at 100 ms, 14 KB over the 3 s of a TCG handshake: one
 * packet per 100 ms, and Startup took a second to climb back).
 */
static u64 quic_bbr_pacing_rate(const struct quic_cong *c, u64 srtt)
{
	u64 gain = quic_bbr_pacing_gain(c), bw = c->bbr.btl_bw;

	if (!bw || !c->bbr.filled_pipe)
		bw = max(bw, quic_bbr_rate(c->cwnd, srtt));
	return div_u64(bw * gain, QUIC_BBR_UNIT);
}

/* Bottleneck bandwidth: the largest of the last rounds' samples. */
static void quic_bbr_bw_sample(struct quic_cong *c, u64 bw)
{
	struct quic_bbr *b = &c->bbr;
	u32 i;

	b->bw[b->rounds % QUIC_BBR_BW_ROUNDS] = bw;
	b->btl_bw = 0;
	for (i = 0; i < QUIC_BBR_BW_ROUNDS; i++)
		b->btl_bw = max(b->btl_bw, b->bw[i]);
}

/*
 * Startup ends when three rounds in a row did not grow it by 25%; rounds
 * in which the sender ran out of data do not count.
 */
static void quic_bbr_check_full_pipe(struct quic_cong *c, bool app_limited)
{
	struct quic_bbr *b = &c->bbr;

	if (b->filled_pipe || app_limited)
		return;
	if (b->btl_bw * QUIC_BBR_UNIT >= b->full_bw * QUIC_BBR_FULL_BW_THRESH) {
		b->full_bw = b->btl_bw;
		b->full_bw_count = 0;
		return;
	}
	if (++b->full_bw_count >= QUIC_BBR_FULL_BW_ROUNDS)
		b->filled_pipe = true;
}

static void quic_bbr_enter_probe_bw(struct quic_cong *c, u64 now)
{
	c->bbr.mode = QUIC_BBR_PROBE_BW;
	c->bbr.cycle_idx = QUIC_BBR_CYCLE_START;
	c->bbr.cycle_stamp = now;
}

/* ProbeBW: next phase after a min_rtt; the drain phase ends once drained */
static void quic_bbr_cycle_phase(struct quic_cong *c, u64 now)
{
	struct quic_bbr *b = &c->bbr;
	bool next = now - b->cycle_stamp > b->min_rtt;

	if (quic_bbr_cycle[b->cycle_idx] < QUIC_BBR_UNIT &&
	    c->bytes_in_flight <= quic_bbr_bdp(c, QUIC_BBR_UNIT))
		next = true;
	if (!next)
		return;
	b->cycle_idx = (b->cycle_idx + 1) % QUIC_BBR_CYCLE_LEN;
	b->cycle_stamp = now;
}

static u64 quic_bbr_min_pipe(const struct quic_cong *c)
{
	return (u64)QUIC_BBR_MIN_PIPE_PKTS * c->mss;
}

/* min_rtt over 10 s; when it expires, ProbeRTT drains the queue to see it */
static void quic_bbr_update_min_rtt(struct quic_cong *c,
				    const struct quic_rtt *rtt, u64 now)
{
	struct quic_bbr *b = &c->bbr;
	bool expired = b->min_rtt &&
		       now - b->min_rtt_stamp > QUIC_BBR_MIN_RTT_WIN_US;

	if (rtt->has_sample && rtt->latest &&
	    (!b->min_rtt || rtt->latest <= b->min_rtt || expired)) {
		b->min_rtt = rtt->latest;
		b->min_rtt_stamp = now;
	}
	if (expired && b->mode != QUIC_BBR_PROBE_RTT) {
		b->mode = QUIC_BBR_PROBE_RTT;
		b->prior_cwnd = c->cwnd;
		b->probe_rtt_done = 0;
		b->probe_rtts++;
	}
}

static void quic_bbr_probe_rtt(struct quic_cong *c, u64 now)
{
	struct quic_bbr *b = &c->bbr;

	if (!b->probe_rtt_done) {
		if (c->bytes_in_flight > quic_bbr_min_pipe(c))
			return;
		b->probe_rtt_done = now + QUIC_BBR_PROBE_RTT_US;
		b->probe_rtt_round = b->rounds;
		return;
	}
	if (now < b->probe_rtt_done || b->rounds == b->probe_rtt_round)
		return;
	b->min_rtt_stamp = now;
	c->cwnd = max(c->cwnd, b->prior_cwnd);
	if (b->filled_pipe)
		quic_bbr_enter_probe_bw(c, now);
	else
		b->mode = QUIC_BBR_STARTUP;
}

/*
 * ACK aggregation (draft-ietf-ccwg-bbr, BBR.extra_acked): data acknowledged
 * beyond btl_bw's share of the time since the ACK rate last fell below
 * btl_bw, at most cwnd; its max over the last windows.
 */
static void quic_bbr_ack_aggregation(struct quic_cong *c, u32 bytes,
				     bool round_end, u64 now)
{
	struct quic_bbr *b = &c->bbr;
	u64 expected, extra;

	if (round_end && (!b->filled_pipe ||
			  b->rounds - b->ea_round >= QUIC_BBR_EA_WIN_ROUNDS)) {
		b->ea_round = b->rounds;
		b->ea_idx ^= 1;
		b->extra_acked[b->ea_idx] = 0;
	}
	if (!b->btl_bw)
		return;
	expected = div64_u64(b->btl_bw * min(now - b->ea_start,
					     QUIC_CONG_TIME_MAX),
			     QUIC_BBR_USEC_PER_SEC);
	if (b->ea_delivered <= expected) {
		b->ea_delivered = 0;
		b->ea_start = now;
		expected = 0;
	}
	b->ea_delivered += bytes;
	extra = min(b->ea_delivered - expected, c->cwnd);
	b->extra_acked[b->ea_idx] = max(b->extra_acked[b->ea_idx], extra);
}

/*
 * ACK aggregation's share of the window: extra_acked, at most one BDP.
 * Uncapped, a sender whose ACKs came in bursts longer than a round trip
 * (a busy receiver) had a window of several BDP, all of it queued: at 20
 * ms a smoothed RTT of 100 to 450 ms, so that a hole took as long to
 * fill and the receiver's flow-control credit ran out behind it.
 */
u64 quic_bbr_aggregation(const struct quic_cong *c)
{
	const struct quic_bbr *b = &c->bbr;

	return min(max(b->extra_acked[0], b->extra_acked[1]),
		   quic_bbr_bdp(c, QUIC_BBR_UNIT));
}

/*
 * cwnd: grows by what was acknowledged up to cwnd_gain * BDP plus a few
 * packets and the ACK aggregation allowance (before the pipe is full,
 * without the cap once below the target, and without any before the
 * first round's rate: until then the BDP is a guess, the initial window,
 * and the first round ends two round trips after the first data left),
 * never below the minimum pipe, and held at it in ProbeRTT.
 */
static void quic_bbr_set_cwnd(struct quic_cong *c, u32 acked)
{
	struct quic_bbr *b = &c->bbr;
	u64 target = quic_bbr_bdp(c, quic_bbr_cwnd_gain(c)) +
		     (u64)QUIC_BBR_QUANTA_PKTS * c->mss +
		     quic_bbr_aggregation(c);

	if (b->filled_pipe)
		c->cwnd = min(c->cwnd + acked, target);
	else if (c->cwnd < target || !b->btl_bw)
		c->cwnd += acked;
	c->cwnd = max(c->cwnd, quic_bbr_min_pipe(c));
	if (b->mode == QUIC_BBR_PROBE_RTT)
		c->cwnd = min(c->cwnd, quic_bbr_min_pipe(c));
}

/*
 * One acknowledged packet.  A round trip ends when a packet sent after
 * the round started is acknowledged; its delivery rate sample is what was
 * delivered in it over its duration (no per-packet delivery state).
 */
static void quic_bbr_on_packet_acked(struct quic_cong *c,
				     const struct quic_sent_meta *p,
				     const struct quic_rtt *rtt, u64 now)
{
	struct quic_bbr *b = &c->bbr;
	bool round_end = false;

	b->delivered += p->size;
	if (!b->round_start) {
		b->round_start = now;
		b->round_sent = p->sent_time;
		b->round_delivered = b->delivered;
	} else if (p->sent_time > b->round_start) {
		/*
		 * Over the longer of the time the round's data took to be
		 * acknowledged and to be sent: ACKs that arrive bunched
		 * (compressed on the way back, or a busy receiver) do not
		 * make the path look faster than the sender sent.
		 */
		u64 us = max(now - b->round_start,
			     p->sent_time - min(b->round_sent, p->sent_time));
		u64 bw = quic_bbr_rate(b->delivered - b->round_delivered,
				       min(us, QUIC_CONG_TIME_MAX));
		bool app_limited = (b->round_app_limited || c->app_limited) &&
				   !b->round_net_limited;

		b->rounds++;
		/* app-limited rounds only count when they raise the max */
		if (!app_limited || bw > b->btl_bw)
			quic_bbr_bw_sample(c, bw);
		quic_bbr_check_full_pipe(c, app_limited);
		b->round_start = now;
		b->round_sent = p->sent_time;
		b->round_delivered = b->delivered;
		b->round_app_limited = c->app_limited;
		b->round_net_limited = false;
		round_end = true;
	}
	quic_bbr_ack_aggregation(c, p->size, round_end, now);
	quic_bbr_update_min_rtt(c, rtt, now);

	switch (b->mode) {
	case QUIC_BBR_STARTUP:
		if (b->filled_pipe)
			b->mode = QUIC_BBR_DRAIN;
		break;
	case QUIC_BBR_DRAIN:
		if (c->bytes_in_flight <= quic_bbr_bdp(c, QUIC_BBR_UNIT))
			quic_bbr_enter_probe_bw(c, now);
		break;
	case QUIC_BBR_PROBE_BW:
		quic_bbr_cycle_phase(c, now);
		break;
	case QUIC_BBR_PROBE_RTT:
		quic_bbr_probe_rtt(c, now);
		break;
	}
	quic_bbr_set_cwnd(c, p->size);
}

/*
 * Out of data with the window open, or no longer: then the window or the
 * pacer stopped the sender (cong.c), which had data.
 */
static void quic_bbr_on_app_limited(struct quic_cong *c, bool limited,
				    u64 now)
{
	if (limited)
		c->bbr.round_app_limited = true;
	else
		c->bbr.round_net_limited = true;
}

/* Loss is no congestion signal to BBRv1: the window stays. */
static void quic_bbr_on_congestion(struct quic_cong *c, u64 now)
{
}

/* The window went to the minimum: grow back from there, model kept. */
static void quic_bbr_on_persistent(struct quic_cong *c, u64 now)
{
	c->bbr.round_start = 0;
}

const struct quic_cong_ops quic_cong_bbr_ops = {
	.name		= "bbr",
	.init		= quic_bbr_init,
	.on_congestion	= quic_bbr_on_congestion,
	.on_persistent	= quic_bbr_on_persistent,
	.on_app_limited	= quic_bbr_on_app_limited,
	.on_packet_acked = quic_bbr_on_packet_acked,
	.pacing_rate	= quic_bbr_pacing_rate,
};

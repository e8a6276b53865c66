// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC NewReno (RFC 9002 §7.3, Appendix B.5, B.6): halve on a congestion
 * event, one mss per window of acknowledged bytes in congestion avoidance.
 */

#include <linux/kernel.h>
#include <linux/math64.h>

#include "cong.h"

static void quic_reno_init(struct quic_cong *c)
{
	c->reno.acked = 0;
}

/*
 * cwnd += mss * acked / cwnd, done as RFC 3465 byte counting so integer
 * windows do not lose the fractions.
 */
static void quic_reno_on_ack(struct quic_cong *c, u32 bytes,
			     const struct quic_rtt *rtt, u64 now)
{
	u64 inc;

	c->reno.acked += bytes;
	if (c->reno.acked < c->cwnd)
		return;
	inc = div64_u64(c->reno.acked, c->cwnd);
	c->reno.acked -= inc * c->cwnd;
	c->cwnd += inc * c->mss;
}

/* kLossReductionFactor = 0.5 */
static void quic_reno_on_congestion(struct quic_cong *c, u64 now)
{
	c->ssthresh = c->cwnd / 2;
	c->cwnd = max(c->ssthresh, quic_cong_min_window(c->mss));
	c->reno.acked = 0;
}

static void quic_reno_on_persistent(struct quic_cong *c, u64 now)
{
	c->reno.acked = 0;
}

const struct quic_cong_ops quic_cong_reno_ops = {
	.name		= "reno",
	.init		= quic_reno_init,
	.on_ack		= quic_reno_on_ack,
	.on_congestion	= quic_reno_on_congestion,
	.on_persistent	= quic_reno_on_persistent,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC CUBIC (RFC 9438), integer only.  Rules and omissions are listed in
 * cong.h.
 *
 * Units: windows in bytes, times in microseconds at the interface.  The
 * cubic term runs on a time base of 2^-10 s ticks, so that (t - K)^3 fits
 * in 64 bits for |t - K| up to 2^20 ticks (about 17 minutes, far beyond
 * any real K):
 *
 *	C * d^3 segments, d in seconds
 *	= 0.4 * dt^3 / 2^30 segments, dt in ticks
 *	= ((dt^3 * 4 / 10) >> 20) / 2^10 segments
 *
 * K^3 = (W_max - cwnd_epoch) / C seconds^3, in ticks^3:
 *	diff_segments * 2^30 * 10 / 4 = (diff_bytes * 2^20 / mss) * 5 * 2^9
 */

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>

#include "cong.h"

#define QUIC_CUBIC_TICK_SHIFT	10
#define QUIC_CUBIC_MAX_TICKS	0x100000ULL	/* 2^20 */
#define QUIC_CUBIC_USEC_PER_SEC	1000000ULL
/* C = 0.4 */
#define QUIC_CUBIC_C_NUM	4
#define QUIC_CUBIC_C_DEN	10
/* beta_cubic = 0.7; fast convergence (1 + beta) / 2 = 0.85 */
#define QUIC_CUBIC_BETA_NUM	7
#define QUIC_CUBIC_BETA_DEN	10
#define QUIC_CUBIC_FC_NUM	17
#define QUIC_CUBIC_FC_DEN	20
/* alpha_cubic = 3 * (1 - beta) / (1 + beta) = 0.9 / 1.7 = 9 / 17 */
#define QUIC_CUBIC_ALPHA_NUM	9
#define QUIC_CUBIC_ALPHA_DEN	17

/* floor(cbrt(x)): bit by bit, c^3 <= x tested as c^2 <= x / c */
u64 quic_cbrt(u64 x)
{
	u64 r = 0;
	int b;

	for (b = 21; b >= 0; b--) {
		u64 c = r | (1ULL << b);

		if (c * c <= div64_u64(x, c))
			r = c;
	}
	return r;
}

static u64 quic_cubic_ticks(u64 us)
{
	if (us >= QUIC_CUBIC_MAX_TICKS * QUIC_CUBIC_USEC_PER_SEC)
		return QUIC_CUBIC_MAX_TICKS;
	return div64_u64(us << QUIC_CUBIC_TICK_SHIFT, QUIC_CUBIC_USEC_PER_SEC);
}

/* C * dt^3 in bytes, dt in ticks */
static u64 quic_cubic_term(u64 dt, u32 mss)
{
	u64 seg_q10;

	dt = min(dt, QUIC_CUBIC_MAX_TICKS);
	seg_q10 = div_u64(dt * dt * dt * QUIC_CUBIC_C_NUM, QUIC_CUBIC_C_DEN);
	seg_q10 >>= 2 * QUIC_CUBIC_TICK_SHIFT;
	return (seg_q10 * mss) >> QUIC_CUBIC_TICK_SHIFT;
}

/* §4.2 K in ticks */
u64 quic_cubic_k(u64 w_max, u64 cwnd_epoch, u32 mss)
{
	u64 diff, q;

	if (w_max <= cwnd_epoch || !mss)
		return 0;
	diff = min(w_max - cwnd_epoch, 1ULL << 43);
	q = div64_u64(diff << 20, mss);
	q = min(q, 1ULL << 52);
	return quic_cbrt((q * 5) << 9);
}

/* §4.2 W_cubic(t) */
u64 quic_cubic_window(const struct quic_cong *c, u64 t)
{
	const struct quic_cubic *cu = &c->cubic;
	u64 dt = quic_cubic_ticks(t), off;

	if (dt >= cu->k)
		return cu->w_max + quic_cubic_term(dt - cu->k, c->mss);
	off = quic_cubic_term(cu->k - dt, c->mss);
	return cu->w_max > off ? cu->w_max - off : 0;
}

static void quic_cubic_start_epoch(struct quic_cong *c, u64 now)
{
	struct quic_cubic *cu = &c->cubic;

	cu->epoch_start = now;
	cu->epoch_valid = true;
	cu->app_limited_since = now;
	cu->w_est = c->cwnd;
	cu->est_acc = 0;
	cu->cwnd_acc = 0;
	if (c->cwnd >= cu->w_max) {
		cu->k = 0;
		cu->w_max = c->cwnd;
	} else {
		cu->k = quic_cubic_k(cu->w_max, c->cwnd, c->mss);
	}
}

static void quic_cubic_init(struct quic_cong *c)
{
	memset(&c->cubic, 0, sizeof(c->cubic));
}

/* §4.3: W_est += alpha_cubic * acked / cwnd (segments), in bytes */
static void quic_cubic_grow_est(struct quic_cong *c, u32 bytes)
{
	struct quic_cubic *cu = &c->cubic;
	u64 num = QUIC_CUBIC_ALPHA_NUM, den = QUIC_CUBIC_ALPHA_DEN, div, inc;

	if (cu->w_est >= cu->cwnd_prior) {
		num = 1;
		den = 1;
	}
	cu->est_acc += (u64)bytes * c->mss * num;
	div = den * c->cwnd;
	inc = div64_u64(cu->est_acc, div);
	cu->est_acc -= inc * div;
	cu->w_est += inc;
}

static void quic_cubic_on_ack(struct quic_cong *c, u32 bytes,
			      const struct quic_rtt *rtt, u64 now)
{
	struct quic_cubic *cu = &c->cubic;
	u64 t, target, inc;

	if (!cu->epoch_valid)
		quic_cubic_start_epoch(c, now);
	t = now > cu->epoch_start ? now - cu->epoch_start : 0;

	quic_cubic_grow_est(c, bytes);
	/* §4.3 Reno-friendly region */
	if (quic_cubic_window(c, t) < cu->w_est) {
		c->cwnd = max(c->cwnd, cu->w_est);
		return;
	}

	/* §4.4, §4.5 concave and convex regions */
	target = quic_cubic_window(c, t + rtt->smoothed);
	target = min(max(target, c->cwnd), c->cwnd + c->cwnd / 2);
	cu->cwnd_acc += (target - c->cwnd) * bytes;
	inc = div64_u64(cu->cwnd_acc, c->cwnd);
	cu->cwnd_acc -= inc * c->cwnd;
	c->cwnd += inc;
}

/* §4.6 multiplicative decrease, §4.7 fast convergence */
static void quic_cubic_on_congestion(struct quic_cong *c, u64 now)
{
	struct quic_cubic *cu = &c->cubic;

	if (c->cwnd < cu->w_max)
		cu->w_max = div_u64(c->cwnd * QUIC_CUBIC_FC_NUM,
				    QUIC_CUBIC_FC_DEN);
	else
		cu->w_max = c->cwnd;
	cu->cwnd_prior = c->cwnd;
	c->ssthresh = max(div_u64(c->cwnd * QUIC_CUBIC_BETA_NUM,
				  QUIC_CUBIC_BETA_DEN),
			  quic_cong_min_window(c->mss));
	c->cwnd = c->ssthresh;
	quic_cubic_start_epoch(c, now);
}

/* §4.8: the next congestion avoidance stage starts with K = 0 */
static void quic_cubic_on_persistent(struct quic_cong *c, u64 now)
{
	c->cubic.epoch_valid = false;
	c->cubic.w_max = 0;
}

/* §5.8 (RFC 9438): application-limited time does not advance the curve */
static void quic_cubic_on_app_limited(struct quic_cong *c, bool limited,
				      u64 now)
{
	struct quic_cubic *cu = &c->cubic;

	if (limited) {
		cu->app_limited = true;
		cu->app_limited_since = now;
		return;
	}
	if (cu->app_limited && cu->epoch_valid && now > cu->app_limited_since)
		cu->epoch_start = min(cu->epoch_start +
				      (now - cu->app_limited_since), now);
	cu->app_limited = false;
}

const struct quic_cong_ops quic_cong_cubic_ops = {
	.name		= "cubic",
	.init		= quic_cubic_init,
	.on_ack		= quic_cubic_on_ack,
	.on_congestion	= quic_cubic_on_congestion,
	.on_persistent	= quic_cubic_on_persistent,
	.on_app_limited	= quic_cubic_on_app_limited,
};

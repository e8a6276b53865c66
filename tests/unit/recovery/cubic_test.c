// SPDX-License-Identifier: GPL-2.0
/*
 * RFC 9438 CUBIC against a reference evaluated in double precision (the
 * test may use floating point, the code may not).
 */
#include <math.h>
#include <stdio.h>

#include "rt.h"
#include "cong.h"

#define MSS	1200
#define RTT	(100 * MS)

static struct quic_rtt rtt;

static void cubic(struct quic_cong *c, u64 rtt_us)
{
	quic_rtt_init(&rtt, 0);
	quic_rtt_update(&rtt, rtt_us, 0, 0, QUIC_PN_SPACE_APP, true, T0);
	EXPECT_EQ(quic_cong_init(c, QUIC_CONG_ALG_CUBIC, MSS), 0);
}

/* A loss at T0 with cwnd = @segs segments in congestion avoidance. */
static void cubic_loss_at(struct quic_cong *c, u64 segs)
{
	struct quic_sent_meta p = rt_pkt(0, T0 - 1, MSS, true);

	c->cwnd = segs * MSS;
	c->ssthresh = segs * MSS / 2;
	quic_cong_on_packet_sent(c, &p);
	quic_cong_on_packets_lost(c, &p, 1, false, T0);
}

/* W_cubic(t) = C (t - K)^3 + W_max, segments and seconds */
static double ref_w(double w_max, double w_epoch, double t)
{
	double k = cbrt((w_max - w_epoch) / 0.4);

	return 0.4 * (t - k) * (t - k) * (t - k) + w_max;
}

static int close_to(double got, double want, double rel)
{
	return fabs(got - want) <= rel * want;
}

/* Acknowledge one round trip's worth (the whole cwnd) at @now. */
static void ack_round(struct quic_cong *c, u64 *pn, u64 now)
{
	u64 n = c->cwnd / MSS, i;

	for (i = 0; i < n; i++) {
		struct quic_sent_meta p = rt_pkt((*pn)++, now - RTT, MSS, true);

		quic_cong_on_packet_sent(c, &p);
		quic_cong_on_packet_acked(c, &p, &rtt, now);
	}
}

static void cbrt_exact_and_floor(void)
{
	static const u64 v[] = { 0, 1, 7, 8, 26, 27, 999, 1000, 1001,
				 1ULL << 30, 1ULL << 63, ~0ULL };
	u64 seed = 42;
	unsigned int i;
	int bad = 0;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		u64 r = quic_cbrt(v[i]);

		/* r^3 <= x < (r + 1)^3, without overflowing */
		if (r * r > v[i] / (r ? r : 1) ||
		    ((r + 1) * (r + 1) <= v[i] / (r + 1)))
			bad++;
	}
	EXPECT_EQ(quic_cbrt(27), 3);
	EXPECT_EQ(quic_cbrt(26), 2);
	EXPECT_EQ(quic_cbrt(~0ULL), 2642245);
	for (i = 0; i < 2000; i++) {
		u64 x = test_rand(&seed) >> (test_rand(&seed) % 64);
		double want = floor(cbrt((double)x));
		u64 r = quic_cbrt(x);

		if (fabs((double)r - want) > 1.0)
			bad++;
	}
	EXPECT_EQ(bad, 0);
}

static void k_matches_reference(void)
{
	/* K in 2^-10 s ticks for W_max = 100, cwnd_epoch = 70 segments */
	double want = cbrt(30 / 0.4) * 1024;
	u64 k = quic_cubic_k(100 * MSS, 70 * MSS, MSS);

	EXPECT(fabs((double)k - want) <= 1.0);
	EXPECT_EQ(quic_cubic_k(70 * MSS, 100 * MSS, MSS), 0);
	want = cbrt(300000 / 0.4) * 1024;
	k = quic_cubic_k(1000000ULL * MSS, 700000ULL * MSS, MSS);
	EXPECT(fabs((double)k - want) <= 1.0);
}

static void multiplicative_decrease(void)
{
	struct quic_cong c;

	cubic(&c, RTT);
	cubic_loss_at(&c, 100);
	EXPECT_EQ(c.cwnd, 70 * MSS);
	EXPECT_EQ(c.ssthresh, 70 * MSS);
	EXPECT_EQ(c.cubic.w_max, 100 * MSS);
	EXPECT_EQ(c.cubic.cwnd_prior, 100 * MSS);
	EXPECT(c.cubic.epoch_valid);
	EXPECT_EQ(c.cubic.epoch_start, T0);
}

static void fast_convergence(void)
{
	struct quic_cong c;
	struct quic_sent_meta p = rt_pkt(1, T0 + 1, MSS, true);

	cubic(&c, RTT);
	cubic_loss_at(&c, 100);
	/* second loss below the previous W_max: W_max = cwnd * 0.85 */
	quic_cong_on_packet_sent(&c, &p);
	quic_cong_on_packets_lost(&c, &p, 1, false, T0 + 10 * MS);
	EXPECT_EQ(c.cubic.w_max, 70 * MSS * 17 / 20);
	EXPECT_EQ(c.cwnd, 70 * MSS * 7 / 10);
}

static void window_function_matches_reference(void)
{
	static const double ts[] = { 0, 0.5, 1, 2, 3, 4.2, 5, 6, 8, 10 };
	struct quic_cong c;
	unsigned int i;
	int bad = 0;

	cubic(&c, RTT);
	cubic_loss_at(&c, 100);
	for (i = 0; i < ARRAY_SIZE(ts); i++) {
		double want = ref_w(100, 70, ts[i]) * MSS;
		u64 got = quic_cubic_window(&c, (u64)(ts[i] * 1e6));

		/* within 0.5% or 1 segment */
		if (fabs((double)got - want) > fmax(0.005 * want, MSS)) {
			printf("#   t=%.1f got %llu want %.0f\n", ts[i],
			       (unsigned long long)got, want);
			bad++;
		}
	}
	EXPECT_EQ(bad, 0);
}

/*
 * cwnd-limited for 8 s at RTT 100 ms after a loss at W_max = 100: cwnd
 * follows max(W_cubic(t), W_est(t)) (the Reno-friendly estimate catches up
 * around t = 7 s), within 1%.
 */
static void window_growth_tracks_reference(void)
{
	struct quic_cong c;
	u64 pn = 1, now;
	double w_est = 70;
	int bad = 0;

	cubic(&c, RTT);
	cubic_loss_at(&c, 100);
	for (now = T0 + RTT; now <= T0 + 8000 * MS; now += RTT) {
		u64 t = now - T0;

		ack_round(&c, &pn, now);
		/* the first round was sent before the recovery started */
		if (now > T0 + RTT)
			w_est += w_est >= 100 ? 1 : 9.0 / 17;
		if (t % (1000 * MS) == 0) {
			double want = fmax(ref_w(100, 70, t / 1e6), w_est) * MSS;

			if (!close_to((double)c.cwnd, want, 0.01)) {
				printf("#   t=%llu cwnd %llu want %.0f\n",
				       (unsigned long long)t,
				       (unsigned long long)c.cwnd, want);
				bad++;
			}
		}
	}
	EXPECT_EQ(bad, 0);
}

/* §4.4: one ACK moves cwnd by (W_cubic(t + RTT) - cwnd) * acked / cwnd */
static void increment_targets_one_rtt_ahead(void)
{
	struct quic_sent_meta p = rt_pkt(1, T0 + 1, MSS, true);
	struct quic_cong c;
	u64 target, want;

	cubic(&c, RTT);
	cubic_loss_at(&c, 100);
	target = quic_cubic_window(&c, 1100 * MS);
	EXPECT(close_to((double)target, ref_w(100, 70, 1.1) * MSS, 0.005));
	want = 70 * MSS + (target - 70 * MSS) * MSS / (70 * MSS);
	quic_cong_on_packet_sent(&c, &p);
	quic_cong_on_packet_acked(&c, &p, &rtt, T0 + 1000 * MS);
	EXPECT_EQ(c.cwnd, want);
	EXPECT(c.cwnd > 70 * MSS);
}

static void concave_region_stays_below_w_max(void)
{
	struct quic_cong c;
	u64 pn = 1, now;

	cubic(&c, RTT);
	cubic_loss_at(&c, 100);
	for (now = T0 + RTT; now <= T0 + 4000 * MS; now += RTT)
		ack_round(&c, &pn, now);
	/* K = 4.22 s: still on the plateau below W_max, close to it */
	EXPECT(c.cwnd <= 100 * MSS);
	EXPECT(c.cwnd >= 99 * MSS);
}

static void reno_friendly_region(void)
{
	struct quic_cong c;
	u64 pn = 1, now, t = 0;
	double w_est = 14;

	/* short RTT, small window: Reno's per-RTT growth beats the curve */
	cubic(&c, 10 * MS);
	cubic_loss_at(&c, 20);
	EXPECT_EQ(c.cwnd, 14 * MSS);
	for (now = T0 + 10 * MS; now <= T0 + 50 * MS; now += 10 * MS) {
		u64 n = c.cwnd / MSS, i;

		for (i = 0; i < n; i++) {
			struct quic_sent_meta p = rt_pkt(pn++, now - 10 * MS,
							 MSS, true);

			quic_cong_on_packet_sent(&c, &p);
			quic_cong_on_packet_acked(&c, &p, &rtt, now);
		}
		t = now - T0;
		if (now > T0 + 10 * MS)	/* first round acked pre-recovery */
			w_est += 9.0 / 17 * n / (c.cwnd / (double)MSS);
	}
	EXPECT(c.cwnd > quic_cubic_window(&c, t));
	EXPECT_EQ(c.cwnd, c.cubic.w_est);
	EXPECT(close_to((double)c.cwnd / MSS, w_est, 0.05));
}

static void app_limited_no_growth_and_epoch_shift(void)
{
	struct quic_cong c;
	u64 pn = 1, cwnd;

	cubic(&c, RTT);
	cubic_loss_at(&c, 100);
	ack_round(&c, &pn, T0 + RTT);
	ack_round(&c, &pn, T0 + 2 * RTT);
	cwnd = c.cwnd;
	quic_cong_set_app_limited(&c, true, T0 + 2 * RTT);
	ack_round(&c, &pn, T0 + 3 * RTT);
	EXPECT_EQ(c.cwnd, cwnd);
	quic_cong_set_app_limited(&c, false, T0 + 2 * RTT + 1000 * MS);
	/* one second app-limited does not count towards t */
	EXPECT_EQ(c.cubic.epoch_start, T0 + 1000 * MS);
}

static void persistent_congestion_restarts_curve(void)
{
	struct quic_sent_meta p = rt_pkt(1, T0 + 1, MSS, true);
	struct quic_cong c;
	u64 pn = 2;

	cubic(&c, RTT);
	cubic_loss_at(&c, 100);
	quic_cong_on_persistent_congestion(&c, T0 + 10 * MS);
	EXPECT_EQ(c.cwnd, 2 * MSS);
	EXPECT(!c.cubic.epoch_valid);
	/* slow start up to ssthresh (70), then a K = 0 epoch */
	c.cwnd = 70 * MSS;
	quic_cong_on_packet_sent(&c, &p);
	quic_cong_on_packet_acked(&c, &p, &rtt, T0 + 500 * MS);
	EXPECT(c.cubic.epoch_valid);
	EXPECT_EQ(c.cubic.k, 0);
	EXPECT_EQ(c.cubic.w_max, 70 * MSS);
	ack_round(&c, &pn, T0 + 600 * MS);
	EXPECT(c.cwnd >= 70 * MSS);
}

static void slow_start_same_as_reno(void)
{
	struct quic_sent_meta p = rt_pkt(0, T0, MSS, true);
	struct quic_cong c;

	cubic(&c, RTT);
	quic_cong_on_packet_sent(&c, &p);
	quic_cong_on_packet_acked(&c, &p, &rtt, T0 + RTT);
	EXPECT_EQ(c.cwnd, 12000 + MSS);
	EXPECT(!c.cubic.epoch_valid);
}

static const struct rt_case cases[] = {
	RT_CASE(cbrt_exact_and_floor),
	RT_CASE(k_matches_reference),
	RT_CASE(multiplicative_decrease),
	RT_CASE(fast_convergence),
	RT_CASE(window_function_matches_reference),
	RT_CASE(window_growth_tracks_reference),
	RT_CASE(increment_targets_one_rtt_ahead),
	RT_CASE(concave_region_stays_below_w_max),
	RT_CASE(reno_friendly_region),
	RT_CASE(app_limited_no_growth_and_epoch_shift),
	RT_CASE(persistent_congestion_restarts_curve),
	RT_CASE(slow_start_same_as_reno),
};

void cubic_tests(void)
{
	rt_run("cubic", cases, ARRAY_SIZE(cases));
}

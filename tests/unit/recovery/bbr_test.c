// SPDX-License-Identifier: GPL-2.0
/*
 * BBR (cong_bbr.c): the arithmetic, and the state machine over a simulated
 * bottleneck (FIFO link of a given rate, fixed propagation delay, random
 * loss), paced by the pacer of pacing.c as the TX path does.
 */
#include <stdio.h>
#include <string.h>

#include "rt.h"
#include "cong.h"
#include "pacing.h"

#define MSS	1200

static void bbr(struct quic_cong *c)
{
	EXPECT_EQ(quic_cong_init(c, QUIC_CONG_ALG_BBR, MSS), 0);
}

static void select_bbr(void)
{
	struct quic_cong c;

	bbr(&c);
	EXPECT(c.ops == &quic_cong_bbr_ops);
	EXPECT_EQ(c.cwnd, 12000);
	EXPECT_EQ(c.bbr.mode, QUIC_BBR_STARTUP);
	EXPECT(!strcmp(quic_cong_state_name(&c), "startup"));
}

static void rate_and_bdp(void)
{
	struct quic_cong c;

	EXPECT_EQ(quic_bbr_rate(12000, 100 * MS), 120000);
	EXPECT_EQ(quic_bbr_rate(12000, 0), 0);
	/* clamped, not wrapped */
	EXPECT_EQ(quic_bbr_rate(~0ULL, 1), 1ULL << 36);
	bbr(&c);
	/* no model yet: the initial window */
	EXPECT_EQ(quic_bbr_bdp(&c, 256), 12000);
	c.bbr.btl_bw = 1000000;		/* 1 MB/s */
	c.bbr.min_rtt = 40 * MS;
	EXPECT_EQ(quic_bbr_bdp(&c, 256), 40000);
	EXPECT_EQ(quic_bbr_bdp(&c, 512), 80000);
}

/* Pacing: BBR's rate, others 1.25 cwnd / srtt (the window unchanged). */
static void pacing_window(void)
{
	struct quic_cong c;

	EXPECT_EQ(quic_cong_init(&c, QUIC_CONG_ALG_CUBIC, MSS), 0);
	EXPECT_EQ(quic_cong_pacing_window(&c, 40 * MS), c.cwnd);
	bbr(&c);
	c.bbr.btl_bw = 1000000;
	c.bbr.mode = QUIC_BBR_PROBE_BW;
	c.bbr.cycle_idx = 2;		/* gain 1 */
	/* 1 MB/s over 40 ms is 40000 bytes; the pacer adds its 1.25 */
	EXPECT_EQ(quic_cong_pacing_window(&c, 40 * MS), 32000);
	EXPECT_EQ(quic_pacing_rate(quic_cong_pacing_window(&c, 40 * MS),
				   40 * MS), 1000000);
	c.bbr.cycle_idx = 0;		/* gain 1.25 */
	EXPECT_EQ(quic_cong_pacing_window(&c, 40 * MS), 40000);
}

/*
 * Startup paces at least at its gain times the window over srtt: a first
 * round's rate far below the path's (it spanned the handshake) paced
 * 27 KB at one packet per 100 ms.  Once the pipe is full, the model only.
 */
static void startup_pacing_floor(void)
{
	struct quic_cong c;

	bbr(&c);
	c.cwnd = 27104;
	c.bbr.btl_bw = 5000;
	c.bbr.min_rtt = 100 * MS;
	EXPECT(quic_cong_pacing_window(&c, 100 * MS) >= 2 * c.cwnd);
	c.bbr.filled_pipe = true;
	c.bbr.mode = QUIC_BBR_PROBE_BW;
	c.bbr.cycle_idx = 2;
	EXPECT_EQ(quic_cong_pacing_window(&c, 100 * MS), MSS);
}

/* Loss does not reduce BBR's window; persistent congestion does. */
static void loss_keeps_window(void)
{
	struct quic_sent_meta p = rt_pkt(0, T0, MSS, true);
	struct quic_cong c;

	bbr(&c);
	quic_cong_on_packet_sent(&c, &p);
	quic_cong_on_packets_lost(&c, &p, 1, false, T0 + 50 * MS);
	EXPECT_EQ(c.cwnd, 12000);
	EXPECT_EQ(c.bytes_in_flight, 0);
	quic_cong_on_packet_sent(&c, &p);
	quic_cong_on_packets_lost(&c, &p, 1, true, T0 + 50 * MS);
	EXPECT_EQ(c.cwnd, 2 * MSS);
}

/*
 * Before the first round's delivery rate there is no BDP to aim at: the
 * window grows by what is acknowledged, as in slow start, instead of
 * waiting at the initial window plus a few packets for the round to end
 * (two round trips after the first data left).
 */
static void startup_before_model(void)
{
	struct quic_sent_meta p[10];
	struct quic_rtt rtt;
	struct quic_cong c;
	int i;

	bbr(&c);
	quic_rtt_init(&rtt, 0);
	for (i = 0; i < 10; i++) {
		p[i] = rt_pkt(i, T0, MSS, true);
		quic_cong_on_packet_sent(&c, &p[i]);
	}
	quic_rtt_update(&rtt, 100 * MS, 0, 0, QUIC_PN_SPACE_APP, true,
			T0 + 100 * MS);
	for (i = 0; i < 10; i++)
		quic_cong_on_packet_acked(&c, &p[i], &rtt, T0 + 100 * MS);
	EXPECT_EQ(c.bbr.btl_bw, 0);
	EXPECT_EQ(c.cwnd, 24000);
}

/* ---- simulated path ------------------------------------------------ */

#define SIM_RING	(1 << 16)

struct sim {
	struct quic_cong c;
	struct quic_rtt rtt;
	struct quic_pacer pacer;
	struct quic_sent_meta pkt[SIM_RING];
	u64 ack_at[SIM_RING];
	bool lost[SIM_RING];
	u64 head, tail;		/* in flight: [head, tail) */
	u64 now, link_free;
	u64 rate;		/* bytes/s */
	u64 delay;		/* round-trip propagation, us */
	u32 loss_ppm;
	u64 ack_quantum;	/* ACKs held and sent together every this, us */
	u64 stall_every;	/* the application has no data for stall_len */
	u64 stall_len;		/* us at the start of every stall_every us */
	u32 seed;
	u64 delivered;
	bool saw_probe_rtt;
	bool saw_drain;
};

static u32 sim_rand(struct sim *s)
{
	s->seed = s->seed * 1103515245 + 12345;
	return (s->seed >> 8) % 1000000;
}

static void sim_init(struct sim *s, enum quic_cong_algo algo, u64 rate,
		     u64 delay, u32 loss_ppm)
{
	memset(s, 0, sizeof(*s));
	EXPECT_EQ(quic_cong_init(&s->c, algo, MSS), 0);
	quic_rtt_init(&s->rtt, 0);
	quic_pacer_init(&s->pacer, quic_cong_initial_window(MSS));
	s->now = T0;
	s->link_free = T0;
	s->rate = rate;
	s->delay = delay;
	s->loss_ppm = loss_ppm;
	s->seed = 1;
}

static void sim_ack_head(struct sim *s)
{
	u64 i = s->head++ % SIM_RING;
	struct quic_sent_meta *p = &s->pkt[i];

	if (s->lost[i]) {
		quic_cong_on_packets_lost(&s->c, p, 1, false, s->now);
		return;
	}
	quic_rtt_update(&s->rtt, s->now - p->sent_time, 0, 0,
			QUIC_PN_SPACE_APP, true, s->now);
	quic_cong_on_packet_acked(&s->c, p, &s->rtt, s->now);
	s->delivered += p->size;
}

static u64 sim_departure(struct sim *s)
{
	u64 w = quic_cong_pacing_window(&s->c, s->rtt.smoothed);

	if (!s->rtt.has_sample)
		return s->now;
	quic_pacer_set_burst(&s->pacer, quic_cong_initial_window(MSS), w,
			     s->rtt.smoothed);
	return quic_pacer_peek(&s->pacer, w, s->rtt.smoothed, MSS, s->now);
}

static void sim_send(struct sim *s)
{
	u64 i = s->tail % SIM_RING, done;

	s->pkt[i] = rt_pkt(s->tail, s->now, MSS, true);
	quic_cong_on_packet_sent(&s->c, &s->pkt[i]);
	if (s->rtt.has_sample)
		quic_pacer_departure(&s->pacer,
				     quic_cong_pacing_window(&s->c,
							     s->rtt.smoothed),
				     s->rtt.smoothed, MSS, s->now);
	s->lost[i] = sim_rand(s) < s->loss_ppm;
	done = max(s->now, s->link_free) + MSS * 1000000ULL / s->rate;
	s->link_free = done;
	/* a loss is found about when the next packets are acknowledged */
	s->ack_at[i] = done + s->delay;
	if (s->ack_quantum)
		s->ack_at[i] += s->ack_quantum - 1 -
				(s->ack_at[i] - 1) % s->ack_quantum;
	s->tail++;
}

/* Run until @end; returns the bytes delivered from @from on. */
static u64 sim_run(struct sim *s, u64 end, u64 from)
{
	u64 start = 0;

	while (s->now < end) {
		u64 next = end;

		while (s->head < s->tail && s->ack_at[s->head % SIM_RING] <= s->now)
			sim_ack_head(s);
		if (s->c.bbr.mode == QUIC_BBR_PROBE_RTT &&
		    s->c.algo == QUIC_CONG_ALG_BBR)
			s->saw_probe_rtt = true;
		if (s->c.bbr.mode == QUIC_BBR_DRAIN &&
		    s->c.algo == QUIC_CONG_ALG_BBR)
			s->saw_drain = true;
		if (!start && s->now >= from)
			start = s->delivered + 1;
		if (s->stall_every &&
		    (s->now - T0) % s->stall_every < s->stall_len) {
			/* out of data: app-limited if the window is open */
			quic_cong_on_tx_stop(&s->c, true, s->now);
			next = min(next, s->now - (s->now - T0) % s->stall_every +
					 s->stall_len);
		} else if (s->tail - s->head < SIM_RING - 1 &&
			   quic_cong_window_left(&s->c) >= MSS) {
			u64 d = sim_departure(s);

			if (d <= s->now) {
				sim_send(s);
				continue;
			}
			quic_cong_on_tx_stop(&s->c, false, s->now);
			next = min(next, d);
		}
		if (s->head < s->tail)
			next = min(next, s->ack_at[s->head % SIM_RING]);
		s->now = max(next, s->now + 1);
	}
	return start ? s->delivered - (start - 1) : 0;
}

/* 10 MB/s, 40 ms: BDP 400 KB */
#define LINK_RATE	10000000ULL
#define LINK_RTT	(40 * MS)
#define LINK_BDP	(LINK_RATE * LINK_RTT / 1000000)

static struct sim sim;

static void startup_drain_probe_bw(void)
{
	struct sim *s = &sim;
	u64 got;

	sim_init(s, QUIC_CONG_ALG_BBR, LINK_RATE, LINK_RTT, 0);
	got = sim_run(s, T0 + 5000 * MS, T0 + 3000 * MS);
	EXPECT(s->saw_drain);
	EXPECT_EQ(s->c.bbr.mode, QUIC_BBR_PROBE_BW);
	EXPECT(s->c.bbr.filled_pipe);
	EXPECT(s->c.bbr.rounds > 20);
	/* the model: bandwidth within 10%, min_rtt the propagation delay */
	EXPECT(s->c.bbr.btl_bw >= LINK_RATE * 9 / 10);
	EXPECT(s->c.bbr.btl_bw <= LINK_RATE * 11 / 10);
	EXPECT(s->c.bbr.min_rtt >= LINK_RTT);
	EXPECT(s->c.bbr.min_rtt <= LINK_RTT + 2 * MS);
	/* the window about 2 BDP, and the link full */
	EXPECT(s->c.cwnd >= LINK_BDP * 3 / 2);
	EXPECT(s->c.cwnd <= LINK_BDP * 5 / 2);
	EXPECT(got >= LINK_RATE * 2 * 9 / 10);
}

/* 5% random loss: BBR keeps the link near full, CUBIC cannot. */
static void random_loss(void)
{
	struct sim *s = &sim;
	u64 bbr_got, cubic_got;

	sim_init(s, QUIC_CONG_ALG_BBR, LINK_RATE, LINK_RTT, 50000);
	bbr_got = sim_run(s, T0 + 5000 * MS, T0 + 3000 * MS);
	EXPECT(s->c.bbr.filled_pipe);
	EXPECT(s->c.cwnd >= LINK_BDP);
	/* 95% of the link delivered */
	EXPECT(bbr_got >= LINK_RATE * 2 * 95 / 100 * 9 / 10);

	sim_init(s, QUIC_CONG_ALG_CUBIC, LINK_RATE, LINK_RTT, 50000);
	cubic_got = sim_run(s, T0 + 5000 * MS, T0 + 3000 * MS);
	printf("# 2 s at 5%% loss: bbr %llu bytes, cubic %llu\n",
		 (unsigned long long)bbr_got, (unsigned long long)cubic_got);
	EXPECT(bbr_got > 4 * cubic_got);
}

/*
 * min_rtt not seen again for 10 s (the path's delay grew by 5 ms after
 * the first second): ProbeRTT, then back to ProbeBW with the new one.
 */
static void probe_rtt(void)
{
	struct sim *s = &sim;
	u64 stamp;

	sim_init(s, QUIC_CONG_ALG_BBR, LINK_RATE, LINK_RTT - 5 * MS, 0);
	sim_run(s, T0 + 1000 * MS, T0);
	stamp = s->c.bbr.min_rtt_stamp;
	EXPECT(s->c.bbr.min_rtt < LINK_RTT - 4 * MS);
	s->delay = LINK_RTT;
	sim_run(s, stamp + 10000 * MS, T0);
	EXPECT(!s->saw_probe_rtt);
	sim_run(s, stamp + 11000 * MS, T0);
	EXPECT(s->saw_probe_rtt);
	EXPECT(s->c.bbr.min_rtt >= LINK_RTT);
	EXPECT_EQ(s->c.bbr.probe_rtts, 1);
	EXPECT_EQ(s->c.bbr.mode, QUIC_BBR_PROBE_BW);
	EXPECT(s->c.cwnd > 4 * MSS);
}

/* BBR over the link with ACKs held and sent together every @quantum us */
static u64 sim_bursty_acks(struct sim *s, u64 quantum)
{
	u64 got;

	sim_init(s, QUIC_CONG_ALG_BBR, LINK_RATE, LINK_RTT, 0);
	s->ack_quantum = quantum;
	got = sim_run(s, T0 + 5000 * MS, T0 + 3000 * MS);
	printf("# ACKs every %llu us: bw %llu, min_rtt %llu, extra_acked %llu, cwnd %llu, 2 s: %llu bytes\n",
	       (unsigned long long)quantum,
	       (unsigned long long)s->c.bbr.btl_bw,
	       (unsigned long long)s->c.bbr.min_rtt,
	       (unsigned long long)max(s->c.bbr.extra_acked[0],
				       s->c.bbr.extra_acked[1]),
	       (unsigned long long)s->c.cwnd, (unsigned long long)got);
	return got;
}

/*
 * ACKs come in bursts every 30 ms (an aggregating hop): extra_acked
 * measures it and the window holds it, so the link stays full.
 */
static void ack_aggregation(void)
{
	struct sim *s = &sim;
	u64 got;

	got = sim_bursty_acks(s, 30 * MS);
	EXPECT(max(s->c.bbr.extra_acked[0], s->c.bbr.extra_acked[1]) >=
	       LINK_RATE * 20 / 1000);
	EXPECT(got >= LINK_RATE * 2 * 9 / 10);
}

/*
 * ACKs held for 100 ms at a time, longer than the 40 ms round trip (a
 * receiver busy elsewhere): a round's rate is taken over the time its
 * data took to be sent if that is longer than the bunched ACKs took, so
 * the bandwidth stays the link's (it was 1.7 times it); the window holds
 * at most one BDP for the aggregation, 3 BDP in all, not the several BDP
 * of queue the bursts would justify; the link stays full.
 */
static void ack_aggregation_capped(void)
{
	struct sim *s = &sim;
	u64 got;

	got = sim_bursty_acks(s, 100 * MS);
	EXPECT(s->c.bbr.btl_bw <= LINK_RATE * 11 / 10);
	EXPECT(max(s->c.bbr.extra_acked[0], s->c.bbr.extra_acked[1]) >
	       quic_bbr_bdp(&s->c, 256));
	EXPECT(s->c.cwnd <= quic_bbr_bdp(&s->c, 3 * 256) + 3 * MSS);
	EXPECT(got >= LINK_RATE * 2 * 9 / 10);
}

/*
 * The application runs out of data for 4 ms of every 40 (a sender short
 * of flow-control credit, or of CPU): every round trip sees the sender
 * app-limited for a moment, but most packets are sent with data waiting.
 * Only the delivery samples of packets sent while app-limited (until what
 * was in flight then is delivered) are app-limited, so Startup still
 * finds the pipe full and ends; marking whole rounds app-limited kept
 * BBR in Startup, its window at 2.89 BDP and more.
 */
static void app_limited_moments(void)
{
	struct sim *s = &sim;
	u64 got;

	sim_init(s, QUIC_CONG_ALG_BBR, LINK_RATE, LINK_RTT, 10000);
	s->stall_every = 40 * MS;
	s->stall_len = 4 * MS;
	got = sim_run(s, T0 + 5000 * MS, T0 + 3000 * MS);
	printf("# app-limited 10%% of the time, 1%% loss: mode %s, cwnd %llu (BDP %llu), 2 s: %llu bytes\n",
	       quic_bbr_mode_name(&s->c), (unsigned long long)s->c.cwnd,
	       LINK_BDP, (unsigned long long)got);
	EXPECT(s->c.bbr.filled_pipe);
	EXPECT(s->c.bbr.mode == QUIC_BBR_PROBE_BW ||
	       s->c.bbr.mode == QUIC_BBR_PROBE_RTT);
	EXPECT(s->c.cwnd <= LINK_BDP * 5 / 2);
	EXPECT(got >= LINK_RATE * 2 * 80 / 100);
}

/*
 * 2 MB over 100 ms at 10 MB/s, from the first packet: BBR's Startup
 * within a round trip and a half of CUBIC's slow start (waiting at the
 * initial window for the first rate sample cost it two).
 */
static u64 time_to(struct sim *s, u64 bytes)
{
	u64 t;

	for (t = 10; t < 5000 && s->delivered < bytes; t += 10)
		sim_run(s, T0 + t * MS, T0);
	return t;
}

static void startup_long_rtt(void)
{
	struct sim *s = &sim;
	u64 bbr_ms, cubic_ms;

	sim_init(s, QUIC_CONG_ALG_CUBIC, LINK_RATE, 100 * MS, 0);
	cubic_ms = time_to(s, 2 << 20);
	sim_init(s, QUIC_CONG_ALG_BBR, LINK_RATE, 100 * MS, 0);
	bbr_ms = time_to(s, 2 << 20);
	printf("# 2 MB at 100 ms: cubic %llu ms, bbr %llu ms\n",
	       (unsigned long long)cubic_ms, (unsigned long long)bbr_ms);
	EXPECT(bbr_ms <= cubic_ms + 150);
}

/* RFC 9002 sanity on the same path: CUBIC without loss fills it too. */
static void cubic_no_loss(void)
{
	struct sim *s = &sim;
	u64 got;

	sim_init(s, QUIC_CONG_ALG_CUBIC, LINK_RATE, LINK_RTT, 0);
	got = sim_run(s, T0 + 5000 * MS, T0 + 3000 * MS);
	EXPECT(got >= LINK_RATE * 2 * 9 / 10);
}

/*
 * HyStart++ on the same path (unbounded queue, no loss): the queue's RTT
 * growth ends CUBIC's slow start, which without it would never end.  The
 * RTT rises by a round trip of queue the round after the window passed
 * the BDP; five rounds of CSS (x1.25 each) follow: about 10 BDP.
 */
static void cubic_hystart_ends_slow_start(void)
{
	struct sim *s = &sim;

	sim_init(s, QUIC_CONG_ALG_CUBIC, LINK_RATE, LINK_RTT, 0);
	sim_run(s, T0 + 2000 * MS, T0);
	printf("# CUBIC slow start ended at %llu bytes (BDP %llu)\n",
	       (unsigned long long)s->c.ssthresh, LINK_BDP);
	EXPECT(s->c.ssthresh >= LINK_BDP / 2);
	EXPECT(s->c.ssthresh <= 12 * LINK_BDP);
}

static const struct rt_case cases[] = {
	RT_CASE(select_bbr),
	RT_CASE(rate_and_bdp),
	RT_CASE(pacing_window),
	RT_CASE(startup_pacing_floor),
	RT_CASE(loss_keeps_window),
	RT_CASE(startup_before_model),
	RT_CASE(startup_drain_probe_bw),
	RT_CASE(random_loss),
	RT_CASE(probe_rtt),
	RT_CASE(ack_aggregation),
	RT_CASE(ack_aggregation_capped),
	RT_CASE(app_limited_moments),
	RT_CASE(startup_long_rtt),
	RT_CASE(cubic_no_loss),
	RT_CASE(cubic_hystart_ends_slow_start),
};

void bbr_tests(void)
{
	rt_run("bbr", cases, ARRAY_SIZE(cases));
}


/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC congestion control (RFC 9002 §7, Appendix B) behind a small ops
 * table selected by enum quic_cong_algo.  Pure arithmetic: times are u64
 * microseconds passed in as @now, windows are bytes.
 *
 * Common rules, applied here whatever the algorithm:
 *
 * §7.2  Initial window min(10 * mss, max(14720, 2 * mss)); minimum window
 *       2 * mss (kMinimumWindow); a changed mss keeps cwnd at least the new
 *       minimum.
 * §7.3.1 Slow start while cwnd < ssthresh: cwnd grows by the acknowledged
 *       bytes; in the initial one (ssthresh not set), as HyStart++
 *       (RFC 9406, hystart.h) says, which may end it (ssthresh = cwnd).
 *       BBR has its own Startup.
 * §7.3.2 A congestion event (loss of an in-flight packet, or a larger
 *       ECN-CE count, §7.1) starts a recovery period at now, unless the
 *       packet that signalled it was sent at or before the latest recovery
 *       start: one reduction per recovery period.  That holds after the
 *       period ended too (B.2 InCongestionRecovery() compares send times
 *       only): a packet sent before the reduction and found lost only
 *       after a later packet was acknowledged was sent at the old rate and
 *       does not reduce the window again.  Packets sent at or before the
 *       recovery start do not grow cwnd when acknowledged; the
 *       acknowledgment of a packet sent after it ends the period
 *       (in_recovery, for /proc and the tests).
 * §7.6.2 Persistent congestion collapses cwnd to the minimum window and
 *       ends recovery.
 * §7.8  No growth while the sender is application or flow-control limited:
 *       the TX path says whether it stopped with nothing to send and the
 *       window open (quic_cong_on_tx_stop()); stopping for the pacer or
 *       the window, or sending until bytes_in_flight reaches cwnd, clears
 *       it.
 *
 * Per algorithm (ops->on_ack in congestion avoidance, ops->on_congestion
 * for the reduction):
 *
 * NewReno (RFC 9002 §7.3.2, §7.3.3, B.5, B.6): ssthresh = cwnd / 2
 *       (kLossReductionFactor 0.5), cwnd = max(ssthresh, kMinimumWindow);
 *       congestion avoidance adds one mss per cwnd of acknowledged bytes
 *       (RFC 3465 byte counting, as B.5 suggests for integer windows).
 *
 * CUBIC (RFC 9438): C = 0.4, beta_cubic = 0.7.
 *   §4.2  W_cubic(t) = C * (t - K)^3 + W_max, with t the time since the
 *         start of the congestion avoidance stage (minus application-limited
 *         time) and K = cbrt((W_max - cwnd_epoch) / C); K = 0 and
 *         W_max = cwnd when the stage starts above W_max (after slow start
 *         or persistent congestion, §4.8).
 *   §4.3  Reno-friendly estimate W_est starts at cwnd_epoch and grows by
 *         alpha_cubic * acked / cwnd, alpha_cubic = 3(1 - beta)/(1 + beta)
 *         until W_est reaches cwnd_prior, then 1; if W_cubic(t) < W_est,
 *         cwnd = W_est.
 *   §4.4, §4.5 Otherwise target = W_cubic(t + RTT) (smoothed RTT), clamped
 *         to [cwnd, 1.5 * cwnd], and cwnd grows by
 *         (target - cwnd) * acked / cwnd.
 *   §4.6  On congestion: ssthresh = cwnd * beta_cubic,
 *         cwnd = max(ssthresh, kMinimumWindow).
 *   §4.7  Fast convergence: W_max = cwnd * (1 + beta) / 2 when cwnd was
 *         below the previous W_max, else cwnd.
 *   §4.9  A congestion event all of whose losses were spurious is undone
 *         (quic_cong_on_spurious_loss()).
 *   §4.10 HyStart++: the common slow start's.
 *   Time is kept in 2^-10 s ticks inside; the cube root is an integer
 *   bitwise search.
 *
 * BBR (cong_bbr.c): a simplified BBRv1 in the terms of draft-ietf-ccwg-bbr.
 *   It models the path as a bottleneck bandwidth (the largest delivery
 *   rate of the last 10 round trips) and a minimum RTT (10 s window), and
 *   sends at pacing_gain * btl_bw (pacing, quic_cong_pacing_window()) with
 *   cwnd = cwnd_gain * BDP + 3 packets, at least 4 packets (MinPipeCwnd).
 *   Startup: gains 2/ln 2 until three round trips in a row grew the
 *   bandwidth by less than 25% (before the first round's rate, cwnd grows
 *   by what is acknowledged, as in slow start); Drain: the inverse pacing gain until
 *   in flight is down to one BDP; ProbeBW: pacing gains 1.25, 0.75, then
 *   six times 1, one min_rtt each (the 0.75 phase ends early once in
 *   flight is down to one BDP), cwnd gain 2; ProbeRTT: when min_rtt was
 *   not refreshed for 10 s, cwnd 4 packets for 200 ms and a round trip.
 *   A round trip ends when a packet sent after it started is acknowledged;
 *   its delivery rate sample is the bytes acknowledged in it over its
 *   duration, or over the time between the sending of the packets whose
 *   ACKs started and ended it if longer (bunched ACKs; no per-packet
 *   delivery state); app-limited rounds count
 *   only if they raise the estimate, and not towards Startup's end.  A
 *   round is app-limited if the sender ran out of data in it and neither
 *   the window nor the pacer held data back at any other time in it (a
 *   sender short of data a moment every round trip, as one waiting for
 *   flow-control credit behind a loss, still finds the pipe full).
 *   The window also holds extra_acked, the data acknowledged beyond what
 *   btl_bw explains since the ACK rate last fell below it (ACK
 *   aggregation), the largest over 10 round trips (1 in Startup), at
 *   most one BDP.  Startup paces at least at its gain times cwnd/srtt.
 *   Left out: BBRv3's responses to loss and ECN (loss and CE marks do not
 *   change the window; persistent congestion does, through the common
 *   rule), the randomized ProbeBW start, the idle restart.
 *   The common recovery period still runs, for the undo bookkeeping only.
 */

#ifndef _NET_QUIC_CONG_H
#define _NET_QUIC_CONG_H

#include <linux/bits.h>
#include <linux/types.h>
#include <uapi/linux/quic.h>

#include "hystart.h"
#include "recovery.h"

#define QUIC_CONG_INIT_WINDOW_PACKETS	10
#define QUIC_CONG_INIT_WINDOW_BYTES	14720
#define QUIC_CONG_MIN_WINDOW_PACKETS	2
/* Rates and times are clamped so that their products fit in 64 bits. */
#define QUIC_CONG_RATE_MAX		BIT_ULL(36)	/* bytes/s: 64 GB/s */
#define QUIC_CONG_TIME_MAX		BIT_ULL(25)	/* us: 33 s */

struct quic_cong;

struct quic_cong_ops {
	const char *name;
	void (*init)(struct quic_cong *c);
	/* Congestion avoidance growth: cwnd >= ssthresh, not in recovery, not
	 * app-limited.
	 */
	void (*on_ack)(struct quic_cong *c, u32 bytes, const struct quic_rtt *rtt,
		       u64 now);
	/* New congestion event: set ssthresh and cwnd. */
	void (*on_congestion)(struct quic_cong *c, u64 now);
	/* Persistent congestion, after cwnd went to the minimum window. */
	void (*on_persistent)(struct quic_cong *c, u64 now);
	/* Optional: the sender became (or stopped being) app-limited. */
	void (*on_app_limited)(struct quic_cong *c, bool limited, u64 now);
	/*
	 * Optional: every acknowledged in-flight packet, out of flight
	 * already; replaces the common slow start / recovery / on_ack rules.
	 */
	void (*on_packet_acked)(struct quic_cong *c,
				const struct quic_sent_meta *p,
				const struct quic_rtt *rtt, u64 now);
	/* Optional: bytes per second to pace at, instead of 1.25 cwnd/srtt. */
	u64 (*pacing_rate)(const struct quic_cong *c, u64 srtt);
};

struct quic_reno {
	u64 acked;		/* bytes acked towards the next mss of growth */
};

struct quic_cubic {
	u64 w_max;		/* bytes */
	u64 cwnd_prior;		/* cwnd before the last reduction */
	u64 w_est;		/* Reno-friendly estimate, bytes */
	u64 est_acc;		/* W_est growth remainder, see cong_cubic.c */
	u64 cwnd_acc;		/* cwnd growth remainder */
	u64 k;			/* K in 2^-10 s ticks */
	u64 epoch_start;	/* start of the congestion avoidance stage */
	u64 app_limited_since;
	bool epoch_valid;
	bool app_limited;
};

enum quic_bbr_mode {
	QUIC_BBR_STARTUP,
	QUIC_BBR_DRAIN,
	QUIC_BBR_PROBE_BW,
	QUIC_BBR_PROBE_RTT,
};

#define QUIC_BBR_BW_ROUNDS	10	/* max filter of btl_bw, round trips */
#define QUIC_BBR_CYCLE_LEN	8	/* ProbeBW phases */

struct quic_bbr {
	u64 bw[QUIC_BBR_BW_ROUNDS];	/* per-round samples, bytes/s */
	u64 btl_bw;		/* max of bw[] */
	u64 full_bw;		/* Startup: btl_bw at the last 25% growth */
	u64 min_rtt;		/* us, 0: none yet */
	u64 min_rtt_stamp;
	u64 delivered;		/* bytes acknowledged */
	u64 round_delivered;	/* delivered when the round started */
	u64 round_start;	/* 0: no round started */
	u64 round_sent;		/* send time of the packet that started it */
	u64 rounds;		/* round trips ended */
	u64 cycle_stamp;	/* ProbeBW phase start */
	u64 probe_rtt_done;	/* ProbeRTT end, 0: not down to 4 packets */
	u64 probe_rtt_round;
	u64 prior_cwnd;		/* before ProbeRTT */
	u64 extra_acked[2];	/* ACK aggregation max, this and last window */
	u64 ea_start;		/* aggregation interval start */
	u64 ea_delivered;	/* delivered since ea_start */
	u64 ea_round;		/* round the current window began */
	u8 ea_idx;
	u32 probe_rtts;		/* ProbeRTT entries */
	u8 full_bw_count;
	u8 cycle_idx;
	u8 mode;		/* enum quic_bbr_mode */
	bool filled_pipe;
	bool round_app_limited;	/* app-limited at some time in the round */
	bool round_net_limited;	/* and the window or pacer held data back */
};

/*
 * What a congestion event changed, to put back if every loss that caused
 * it proves spurious (RFC 9438 §4.9; the same for NewReno).
 */
struct quic_cong_undo {
	u64 cwnd;
	u64 ssthresh;
	u64 recovery_start;
	union {
		struct quic_reno reno;
		struct quic_cubic cubic;
	};
	bool valid;
};

struct quic_cong {
	const struct quic_cong_ops *ops;
	u64 cwnd;
	u64 ssthresh;		/* U64_MAX until the first congestion event */
	u64 bytes_in_flight;
	u64 recovery_start;	/* congestion_recovery_start_time */
	u32 mss;		/* max_datagram_size */
	bool in_recovery;
	bool app_limited;
	bool hystart_off;	/* plain slow start: sysctl hystart 0 */
	union {
		struct quic_reno reno;
		struct quic_cubic cubic;
		struct quic_bbr bbr;
	};
	struct quic_hystart hystart;	/* initial slow start (hystart.h) */
	u32 episode;		/* congestion events so far */
	u32 episode_lost;	/* in-flight packets lost in the current one */
	u32 episode_spurious;	/* of those, acknowledged after all */
	enum quic_cong_algo algo;	/* here, where it leaves no hole */
	struct quic_cong_undo undo;
};

u64 quic_cong_initial_window(u32 mss);
u64 quic_cong_min_window(u32 mss);

/* 0 or -EINVAL (unknown algorithm or mss 0). */
int quic_cong_init(struct quic_cong *c, enum quic_cong_algo algo, u32 mss);
void quic_cong_set_mss(struct quic_cong *c, u32 mss);

/* TX path, for each packet that counts in flight. */
void quic_cong_on_packet_sent(struct quic_cong *c,
			      const struct quic_sent_meta *p);
/* ACK path, for each newly acknowledged packet, after the RTT update. */
void quic_cong_on_packet_acked(struct quic_cong *c,
			       const struct quic_sent_meta *p,
			       const struct quic_rtt *rtt, u64 now);
/* Lost or discarded (keys dropped) packet: out of bytes_in_flight only. */
void quic_cong_on_packet_removed(struct quic_cong *c,
				 const struct quic_sent_meta *p);
/* §7.3.2 OnCongestionEvent(sent_time) */
void quic_cong_on_congestion_event(struct quic_cong *c, u64 sent_time,
				   u64 now);
/* §7.6.2 */
void quic_cong_on_persistent_congestion(struct quic_cong *c, u64 now);
/*
 * Appendix B.8 OnPacketsLost() over what one loss walk found: removes them
 * from flight, a congestion event for the newest in-flight one, and
 * @persistent (from quic_persistent_congestion()) collapses the window.
 */
void quic_cong_on_packets_lost(struct quic_cong *c,
			       const struct quic_sent_meta *lost, u32 n,
			       bool persistent, u64 now);
/*
 * Appendix B.7 ProcessECN(): @ce_seen is the space's stored ECN-CE count.
 * A larger @ce_reported is a congestion event for the largest acknowledged
 * packet, sent at @sent_time.  Returns true if it was one.
 */
bool quic_cong_on_ecn(struct quic_cong *c, u64 *ce_seen, u64 ce_reported,
		      u64 sent_time, u64 now);
void quic_cong_set_app_limited(struct quic_cong *c, bool limited, u64 now);
/*
 * The TX path stopped sending: @idle, it had nothing (more) to send (an
 * empty queue or flow control), else the pacer or the window stopped it.
 * App-limited (§7.8) if idle with room in the window for a datagram.
 */
void quic_cong_on_tx_stop(struct quic_cong *c, bool idle, u64 now);
/*
 * A packet declared lost during congestion event @episode was acknowledged.
 * Once every loss counted in the current event has been, the event is
 * undone: window, threshold and algorithm state as before it.  Returns
 * true if it was.  ECN events and persistent congestion are never undone.
 */
bool quic_cong_on_spurious_loss(struct quic_cong *c, u32 episode);

static inline bool quic_cong_in_slow_start(const struct quic_cong *c)
{
	return c->cwnd < c->ssthresh;
}

/* B.2 InCongestionRecovery(); recovery_start 0: none (send times are not) */
static inline bool quic_cong_in_recovery(const struct quic_cong *c,
					 u64 sent_time)
{
	return sent_time <= c->recovery_start;
}

/* Bytes the window still allows in flight. */
static inline u64 quic_cong_window_left(const struct quic_cong *c)
{
	return c->cwnd > c->bytes_in_flight ? c->cwnd - c->bytes_in_flight : 0;
}

/*
 * The window the pacer (pacing.h, rate 1.25 * window / @srtt) is to be
 * given so that it paces at the algorithm's rate: cwnd unless the
 * algorithm sets its own rate (BBR).
 */
u64 quic_cong_pacing_window(const struct quic_cong *c, u64 srtt);
/* "slow_start", "recovery", "avoidance", or BBR's mode: for /proc */
const char *quic_cong_state_name(const struct quic_cong *c);

/* sysctl net.quic.congestion_control (sysctl.c): a new connection's algo */
extern int sysctl_quic_congestion_control;
/* sysctl net.quic.hystart: 0, a connection starting sets hystart_off */
extern int sysctl_quic_hystart;

extern const struct quic_cong_ops quic_cong_reno_ops;
extern const struct quic_cong_ops quic_cong_cubic_ops;
extern const struct quic_cong_ops quic_cong_bbr_ops;

/* CUBIC internals, exposed for the tests. */
u64 quic_cbrt(u64 x);
u64 quic_cubic_k(u64 w_max, u64 cwnd_epoch, u32 mss);
/* W_cubic(t) in bytes, @t microseconds since the epoch. */
u64 quic_cubic_window(const struct quic_cong *c, u64 t);

/* BBR internals, exposed for the tests. */
u64 quic_bbr_rate(u64 bytes, u64 us);
u64 quic_bbr_bdp(const struct quic_cong *c, u32 gain);
u64 quic_bbr_aggregation(const struct quic_cong *c);
const char *quic_bbr_mode_name(const struct quic_cong *c);

#endif /* _NET_QUIC_CONG_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HyStart++ (RFC 9406; the copy in /work/shared/specs is its draft -04,
 * whose algorithm and constants are the RFC's) for the initial slow start
 * of NewReno and CUBIC (cong.c).  Pure arithmetic, times in microseconds.
 *
 * Rounds: one ends when a packet sent after it started is acknowledged.
 * Per round, the least RTT sample of its ACKs (one sample per ACK: the
 * packets an ACK acknowledges share it).
 * Slow start: once a round has N_RTT_SAMPLE (8) samples and the last round
 *	had a minimum, a minimum at least
 *	clamp(last / 8, MIN_RTT_THRESH 4 ms, MAX_RTT_THRESH 16 ms) above the
 *	last round's enters Conservative Slow Start (CSS), with that minimum
 *	as its baseline.
 * CSS: the window grows by a quarter of what is acknowledged
 *	(CSS_GROWTH_DIVISOR 4); a round minimum below the baseline (8
 *	samples) goes back to slow start; after CSS_ROUNDS (5) rounds, the
 *	partial first one included, slow start ends: ssthresh = cwnd.
 * Only the initial slow start (ssthresh not set yet) uses it; a loss or
 * ECN-CE ends it as it ends slow start (the algorithm's reduction).
 */

#ifndef _NET_QUIC_HYSTART_H
#define _NET_QUIC_HYSTART_H

#include <linux/types.h>

#define QUIC_HYSTART_MIN_RTT_THRESH	4000ULL		/* us */
#define QUIC_HYSTART_MAX_RTT_THRESH	16000ULL	/* us */
#define QUIC_HYSTART_MIN_RTT_DIVISOR	8
#define QUIC_HYSTART_N_RTT_SAMPLE	8
#define QUIC_HYSTART_CSS_GROWTH_DIVISOR	4
#define QUIC_HYSTART_CSS_ROUNDS		5

struct quic_hystart {
	u64 round_start;	/* 0: no round yet */
	u64 last_round_min;	/* U64_MAX: none (infinity) */
	u64 cur_round_min;
	u64 css_baseline;
	u64 last_ack;		/* time of the last sample counted */
	u32 samples;		/* in the current round */
	u8 css_rounds;		/* CSS rounds, the current one included */
	bool in_css;
};

void quic_hystart_init(struct quic_hystart *h);
/*
 * A packet sent at @sent_time and @bytes long was acknowledged at @now in
 * the initial slow start, the ACK's RTT sample @rtt_sample (0: none).
 * Returns the window growth; *@exit set: slow start is over.
 */
u32 quic_hystart_on_ack(struct quic_hystart *h, u64 sent_time, u32 bytes,
			u64 rtt_sample, u64 now, bool *exit);

#endif /* _NET_QUIC_HYSTART_H */

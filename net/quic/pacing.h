/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC pacing (RFC 9002 §7.7), EDT style: the TX path asks for the
 * earliest departure time of each packet it builds and stamps the skb with
 * it.  Pure arithmetic: @now and the returned times are u64 microseconds.
 *
 * §7.7  rate = N * cwnd / smoothed_rtt with N = 1.25, i.e. a packet of
 *       size bytes costs interval = smoothed_rtt * size / cwnd / N.
 *       Bursts are limited to the initial congestion window
 *       (quic_cong_initial_window()); after an idle period the full burst
 *       is available again.  Packets that carry only ACK frames SHOULD NOT
 *       be paced: the glue sends them without asking.
 *
 * The pacer is a leaky bucket in GCRA form: @tat_ns is the theoretical
 * time at which everything paced so far has drained; a packet may leave
 * once tat + its own cost is within the burst tolerance of now.  It keeps
 * nanoseconds inside so that sub-microsecond intervals at high rates still
 * add up.
 */

#ifndef _NET_QUIC_PACING_H
#define _NET_QUIC_PACING_H

#include <linux/types.h>

#define QUIC_PACING_N_NUM	5	/* N = 1.25 */
#define QUIC_PACING_N_DEN	4

struct quic_pacer {
	u64 tat_ns;		/* theoretical drain time of the bucket */
	u64 burst;		/* bytes that may leave back to back */
};

/* Bytes per second, U64_MAX when there is no RTT estimate to pace on. */
u64 quic_pacing_rate(u64 cwnd, u64 srtt);
/* Time on the wire of @bytes at that rate, in nanoseconds. */
u64 quic_pacing_interval_ns(u64 cwnd, u64 srtt, u64 bytes);

void quic_pacer_init(struct quic_pacer *p, u64 burst);
/*
 * Burst for the current rate: @min_burst, or what the rate sends in
 * 1/QUIC_PACING_BURST_HZ s if more, as TCP sizes its bursts to about a
 * millisecond: below that, timers cost more than pacing gains.
 */
#define QUIC_PACING_BURST_HZ	1000
void quic_pacer_set_burst(struct quic_pacer *p, u64 min_burst, u64 cwnd,
			  u64 srtt);
/* Earliest departure of a @bytes packet, without committing it. */
u64 quic_pacer_peek(const struct quic_pacer *p, u64 cwnd, u64 srtt,
		    u32 bytes, u64 now);
/* Same, and account the packet as leaving then. */
u64 quic_pacer_departure(struct quic_pacer *p, u64 cwnd, u64 srtt,
			 u32 bytes, u64 now);

#endif /* _NET_QUIC_PACING_H */

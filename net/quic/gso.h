/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UDP GSO trains on transmit (output.c): which datagrams may leave
 * together as one SKB_GSO_UDP_L4 skb, and how much room such an skb is
 * given.  Pure arithmetic: no skb, no socket, no clock.
 *
 * A train is a run of datagrams the transmit loop sends "now", one after
 * another, to the same peer with the same ECN mark, that the kernel's UDP
 * GSO (udp_offload.c, __udp_gso_segment()) cuts back into the same
 * datagrams: every segment is gso_size bytes except possibly the last,
 * which may be shorter.  So:
 *  - gso_size (@seg) is the length of its first datagram, the connection's
 *    full datagram size;
 *  - a datagram joins only if the room it was built in is @seg and it
 *    carries the train's ECN mark; one shorter than @seg is the train's
 *    last;
 *  - at most QUIC_GSO_MAX_SEGS datagrams (UDP_MAX_SEGMENTS is 64 in
 *    6.12; the kernel refuses more from sendmsg, and skb_segment() has no
 *    such limit, but a device's gso_max_segs may be lower, in which case
 *    the stack segments in software, see output.c) and the skb's payload
 *    room, which the caller sizes to one 64 KB allocation.
 * The caller decides which datagrams are candidates at all (1-RTT only,
 * the current path, no PMTU probe) before asking.
 */

#ifndef _NET_QUIC_GSO_H
#define _NET_QUIC_GSO_H

#include <linux/types.h>

#define QUIC_GSO_MAX_SEGS	64

struct quic_gso {
	u32	seg;	/* gso_size: the full datagram size */
	u32	n;	/* datagrams in the train */
	u32	cap;	/* datagrams its skb has room for */
	u8	ecn;	/* the ECN codepoint all of them carry */
	bool	open;	/* every datagram so far was @seg long */
};

/*
 * Datagrams of @seg bytes a new train's skb should have room for, the
 * first one included: bounded by the payload room @max_bytes, by
 * QUIC_GSO_MAX_SEGS, by what the transmit loop may still send in this
 * burst (@burst_left datagrams), by the congestion window (@cwnd_left
 * bytes; @window_bound false for PTO probes, which the window does not
 * hold) and by an estimate of the bytes waiting to be sent (@queued).
 * Below 2 there is no train: the datagram goes alone, in an skb of its
 * own, as it would without GSO.
 */
u32 quic_gso_train_cap(u32 seg, u32 max_bytes, u32 burst_left,
		       u64 cwnd_left, bool window_bound, u64 queued);

/* An empty train of at most @cap datagrams of @seg bytes, marked @ecn. */
void quic_gso_init(struct quic_gso *g, u32 cap, u32 seg, u8 ecn);

/*
 * May a datagram built in @room bytes, marked @ecn, be added to the train?
 * False when there is none, it is closed or full, or the datagram would
 * not be cut back out of it unchanged.
 */
bool quic_gso_may_join(const struct quic_gso *g, u32 room, u8 ecn);

/*
 * The datagram just added is @len bytes long.  Returns true when the
 * train is complete and must leave now: it is full, or this datagram was
 * short and so must be its last.
 */
bool quic_gso_added(struct quic_gso *g, u32 len);

/* net.quic.gso (output.c, sysctl.c) */
extern int sysctl_quic_gso;

#endif /* _NET_QUIC_GSO_H */

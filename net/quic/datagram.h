/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RFC 9221 unreliable datagrams (DATAGRAM frames).
 *
 * Negotiation: we accept DATAGRAM frames only when we advertised
 * max_datagram_frame_size (QUIC_SOCKOPT_TRANSPORT_PARAM), and send them
 * only when the peer did.  Datagrams go in 1-RTT packets only, never in
 * 0-RTT (RFC 9221 §5 allows it; we keep it simple): sendmsg() with
 * MSG_QUIC_DATAGRAM needs an established connection.
 *
 * Send: sendmsg(MSG_QUIC_DATAGRAM) queues one datagram on @send_q, charged
 * to sk_wmem_queued and bounded by SO_SNDBUF as stream data is (the call
 * blocks or fails with EAGAIN).  The packet builder writes whole datagrams
 * into 1-RTT packets, beside other frames, and frees them at once: they are
 * never sent again.  A packet that carried datagrams holds a marker frame
 * (struct quic_frame_tx of type QUIC_FRAME_DATAGRAM, which never goes on
 * the wire as such) so that its loss is counted (datagrams_lost).  The
 * packet counts toward congestion control and bytes in flight as any
 * ack-eliciting packet.
 *
 * Receive: each DATAGRAM frame becomes one skb of kind QUIC_RCV_DATAGRAM on
 * sk_receive_queue, charged to sk_rmem_alloc; recvmsg() returns it whole,
 * with MSG_QUIC_DATAGRAM in msg_flags.  The datagrams queued are bounded to
 * half of SO_RCVBUF (@rmem): a new one that does not fit pushes out the
 * oldest ones (datagrams_rx_dropped in /proc/net/quic_stats).
 *
 * Locking: everything under the socket lock; @rmem is atomic because the
 * skb destructor that lowers it runs wherever the skb is freed.
 */

#ifndef _NET_QUIC_DATAGRAM_H
#define _NET_QUIC_DATAGRAM_H

#include <linux/skbuff.h>
#include <linux/types.h>

#include "varint.h"

struct sock;
struct msghdr;
struct quic_wr;
struct quic_frame_tx;
struct list_head;

struct quic_dgram {
	struct sk_buff_head	send_q;	/* to send; socket lock */
	atomic_t		rmem;	/* truesize of the received ones */
};

/* Bytes of the DATAGRAM frame, with its Length field, of @len bytes. */
static inline u64 quic_datagram_frame_len(u64 len)
{
	return 1 + quic_varint_len(len) + len;
}

void quic_datagram_init(struct sock *sk);
void quic_datagram_free(struct sock *sk);
int quic_datagram_sendmsg(struct sock *sk, struct msghdr *msg, size_t len,
			  u32 flags);
bool quic_datagram_pending(const struct sock *sk);
bool quic_datagram_fill(struct sock *sk, struct quic_wr *wr,
			struct list_head *sent);
bool quic_datagram_frame_lost(struct sock *sk, const struct quic_frame_tx *f);
int quic_datagram_rcv(struct sock *sk, const u8 *data, u64 len);

#endif /* _NET_QUIC_DATAGRAM_H */

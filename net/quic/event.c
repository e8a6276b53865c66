// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC events (QUIC_SOCKOPT_EVENT): notifications read in-band by
 * recvmsg() with MSG_QUIC_NOTIFICATION.  The buffer holds the event type
 * in its first byte and the union quic_event member after it.
 *
 * Events are charged to the receive buffer like data; when it is full an
 * event is dropped (and counted) rather than grow memory without bound.
 */

#include <linux/skbuff.h>
#include <net/sock.h>

#include "socket.h"

int quic_event_queue(struct sock *sk, u8 type, const void *data, u32 len)
{
	struct sk_buff *skb;

	if (!(quic_sk(sk)->events & BIT(type)))
		return 0;
	if (atomic_read(&sk->sk_rmem_alloc) >= READ_ONCE(sk->sk_rcvbuf)) {
		QUIC_DROP(sk, RCVBUF);
		return -ENOBUFS;
	}
	skb = alloc_skb(1 + len, GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	*(u8 *)skb_put(skb, 1) = type;
	skb_put_data(skb, data, len);
	memset(QUIC_RCV_CB(skb), 0, sizeof(struct quic_rcv_cb));
	QUIC_RCV_CB(skb)->kind = QUIC_RCV_EVENT;
	QUIC_RCV_CB(skb)->stream_id = -1;
	skb_set_owner_r(skb, sk);
	__skb_queue_tail(&sk->sk_receive_queue, skb);
	sk->sk_data_ready(sk);
	return 0;
}

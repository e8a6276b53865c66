// SPDX-License-Identifier: GPL-2.0
/*
 * CRYPTO frame data (RFC 9000 §19.6, §7.5): the TLS handshake bytes of
 * each encryption level.  What libquic writes is kept until the level is
 * dropped, so lost CRYPTO frames can be sent again from it; what arrives is
 * reassembled in order and queued for recvmsg() with the level attached.
 */

#include <linux/slab.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "socket.h"

void quic_crypto_frames_init(struct quic_space *space)
{
	skb_queue_head_init(&space->crypto_rx.ooo);
}

void quic_crypto_frames_free(struct quic_space *space)
{
	skb_queue_purge(&space->crypto_rx.ooo);
	space->crypto_rx.ooo_bytes = 0;
	kvfree(space->crypto_tx.buf);
	space->crypto_tx.buf = NULL;
	space->crypto_tx.len = 0;
	space->crypto_tx.cap = 0;
	space->crypto_tx.sent = 0;
}

/* sendmsg() with QUIC_HANDSHAKE_INFO: append handshake bytes of @level. */
int quic_crypto_frames_write(struct sock *sk, u8 level, struct msghdr *msg,
			     size_t len)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *space;
	struct quic_crypto_tx *tx;
	u8 *buf;

	if (level == QUIC_CRYPTO_EARLY || level >= QUIC_CRYPTO_MAX)
		return -EINVAL;
	space = &qs->space[quic_space_of_level(level)];
	tx = &space->crypto_tx;
	if (space->discarded || !quic_crypto_ready(&qs->crypto, level, true))
		return -EINVAL;
	if (len > QUIC_CRYPTO_BUF_MAX - tx->len)
		return -EMSGSIZE;

	if (tx->len + len > tx->cap) {
		u32 cap = min_t(u32, QUIC_CRYPTO_BUF_MAX,
				max_t(u32, 2 * tx->cap, tx->len + len));

		buf = kvrealloc(tx->buf, cap, GFP_KERNEL);
		if (!buf)
			return -ENOBUFS;
		tx->buf = buf;
		tx->cap = cap;
	}
	if (copy_from_iter(tx->buf + tx->len, len, &msg->msg_iter) != len)
		return -EFAULT;
	tx->len += len;
	return len;
}

/*
 * A client's 1-RTT CRYPTO data is the server's NewSessionTicket messages:
 * kept whole for QUIC_SOCKOPT_SESSION_TICKET (libquic feeds them to GnuTLS
 * for resumption) and announced by QUIC_EVENT_NEW_SESSION_TICKET, never
 * given to recvmsg() as if it were application data.  What does not fit in
 * QUIC_TICKET_MAX is dropped.
 */
static int quic_crypto_keep_ticket(struct sock *sk, const u8 *data, u32 len)
{
	struct quic_sock *qs = quic_sk(sk);
	u8 *buf;

	if (len > QUIC_TICKET_MAX - qs->ticket_len)
		return 0;
	buf = krealloc(qs->ticket, qs->ticket_len + len, GFP_ATOMIC);
	if (!buf)
		return -ENOMEM;
	memcpy(buf + qs->ticket_len, data, len);
	qs->ticket = buf;
	qs->ticket_len += len;
	quic_event_queue(sk, QUIC_EVENT_NEW_SESSION_TICKET, data, len);
	return 0;
}

/* Queue in-order handshake bytes for recvmsg(). */
static int quic_crypto_deliver(struct sock *sk, u8 level, u64 offset,
			       const u8 *data, u32 len)
{
	struct sk_buff *skb;

	if (level == QUIC_CRYPTO_APP && !quic_sk(sk)->is_server)
		return quic_crypto_keep_ticket(sk, data, len);
	skb = alloc_skb(len, GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	skb_put_data(skb, data, len);
	memset(QUIC_RCV_CB(skb), 0, sizeof(struct quic_rcv_cb));
	QUIC_RCV_CB(skb)->kind = QUIC_RCV_HANDSHAKE;
	QUIC_RCV_CB(skb)->level = level;
	QUIC_RCV_CB(skb)->offset = offset;
	QUIC_RCV_CB(skb)->stream_id = -1;
	skb_set_owner_r(skb, sk);
	__skb_queue_tail(&sk->sk_receive_queue, skb);
	sk->sk_data_ready(sk);
	return 0;
}

/* Keep an out-of-order piece, sorted by offset. */
static int quic_crypto_hold(struct quic_crypto_rx *rx, u64 offset,
			    const u8 *data, u32 len)
{
	struct sk_buff *skb, *pos;

	skb = alloc_skb(len, GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	skb_put_data(skb, data, len);
	QUIC_RCV_CB(skb)->offset = offset;

	skb_queue_walk(&rx->ooo, pos) {
		if (QUIC_RCV_CB(pos)->offset > offset) {
			__skb_queue_before(&rx->ooo, pos, skb);
			goto queued;
		}
	}
	__skb_queue_tail(&rx->ooo, skb);
queued:
	rx->ooo_bytes += len;
	return 0;
}

/*
 * A CRYPTO frame of @level arrived.  Data beyond what we buffer is
 * CRYPTO_BUFFER_EXCEEDED (RFC 9000 §7.5).
 */
int quic_crypto_frames_rcv(struct sock *sk, u8 level, u64 offset,
			   const u8 *data, u64 len, u32 *terr)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_crypto_rx *rx;
	struct sk_buff *skb;
	u64 end = offset + len;
	int err;

	rx = &qs->space[quic_space_of_level(level)].crypto_rx;
	if (end <= rx->delivered || !len)
		return 0;		/* a retransmission of what we have */
	if (end - rx->delivered > QUIC_CRYPTO_BUF_MAX ||
	    rx->ooo_bytes + len > QUIC_CRYPTO_BUF_MAX) {
		*terr = QUIC_TRANSPORT_ERROR_CRYPTO_BUF_EXCEEDED;
		return -EPROTO;
	}
	if (offset > rx->delivered)
		return quic_crypto_hold(rx, offset, data, len);

	data += rx->delivered - offset;
	err = quic_crypto_deliver(sk, level, rx->delivered, data,
				  end - rx->delivered);
	if (err)
		return err;
	rx->delivered = end;

	/* Whatever was waiting for this may now follow. */
	while ((skb = skb_peek(&rx->ooo)) &&
	       QUIC_RCV_CB(skb)->offset <= rx->delivered) {
		u64 off = QUIC_RCV_CB(skb)->offset, e = off + skb->len;

		__skb_unlink(skb, &rx->ooo);
		rx->ooo_bytes -= skb->len;
		if (e > rx->delivered) {
			err = quic_crypto_deliver(sk, level, rx->delivered,
						  skb->data + (rx->delivered - off),
						  e - rx->delivered);
			if (err) {
				kfree_skb(skb);
				return err;
			}
			rx->delivered = e;
		}
		kfree_skb(skb);
	}
	return 0;
}

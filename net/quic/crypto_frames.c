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

#include "reasm.h"
#include "socket.h"

void quic_crypto_frames_init(struct quic_space *space)
{
	quic_reasm_init(&space->crypto_rx, QUIC_CRYPTO_BUF_MAX);
}

/*
 * What a ring costs the receive buffer: its bytes and the range array that
 * comes with it (reasm.h).
 */
static u32 quic_crypto_ring_charge(u32 size)
{
	return size ? size + QUIC_REASM_RANGES_SIZE : 0;
}

/* The ring and its ranges go, and their charge. */
static void quic_crypto_ring_free(struct sock *sk, struct quic_reasm *ra)
{
	u32 charge = quic_crypto_ring_charge(ra->size);
	u8 *ring;

	if (ra->ring)
		atomic_sub(charge, &sk->sk_rmem_alloc);
	kfree(quic_reasm_release(ra, &ring));
	kfree(ring);
}

/* The level is gone: what was held for it goes, and its charge. */
void quic_crypto_frames_rx_free(struct sock *sk, struct quic_space *space)
{
	quic_crypto_ring_free(sk, &space->crypto_rx);
}

/*
 * The space is discarded (connection.c): its handshake bytes never go out
 * again.  The buffer goes; the count of bytes sent stays (early_data.c
 * reads Initial's) and nothing is left to send.
 */
void quic_crypto_frames_tx_release(struct quic_space *space)
{
	kvfree(space->crypto_tx.buf);
	space->crypto_tx.buf = NULL;
	space->crypto_tx.cap = 0;
	space->crypto_tx.len = space->crypto_tx.sent;
}

void quic_crypto_frames_free(struct sock *sk, struct quic_space *space)
{
	quic_crypto_frames_rx_free(sk, space);
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
	buf = kmalloc(qs->ticket_len + len, GFP_ATOMIC);
	if (!buf)
		return -ENOMEM;
	if (qs->ticket_len)
		memcpy(buf, qs->ticket, qs->ticket_len);
	memcpy(buf + qs->ticket_len, data, len);
	quic_ticket_set(sk, buf, qs->ticket_len + len);
	quic_event_queue(sk, QUIC_EVENT_NEW_SESSION_TICKET, data, len);
	return 0;
}

/* Room a handshake skb is given, so that small pieces share one. */
#define QUIC_CRYPTO_SKB_MIN	1024

/*
 * Queue in-order handshake bytes for recvmsg(), appended to the last
 * handshake skb of @level when they continue it and fit: a peer sending
 * 1-byte pieces costs a byte per byte, not an sk_buff per byte.  What is
 * queued is charged to the socket and bounded by its receive buffer,
 * unless it was @charged already as held out-of-order data.
 */
static int quic_crypto_deliver(struct sock *sk, u8 level, u64 offset,
			       const u8 *data, u32 len, bool charged)
{
	struct sk_buff *skb = skb_peek_tail(&sk->sk_receive_queue);
	u32 room;

	if (level == QUIC_CRYPTO_APP && !quic_sk(sk)->is_server)
		return quic_crypto_keep_ticket(sk, data, len);
	if (skb && QUIC_RCV_CB(skb)->kind == QUIC_RCV_HANDSHAKE &&
	    QUIC_RCV_CB(skb)->level == level &&
	    QUIC_RCV_CB(skb)->offset + skb->len == offset) {
		room = min_t(u32, skb_tailroom(skb), len);
		skb_put_data(skb, data, room);
		data += room;
		offset += room;
		len -= room;
		if (!len)
			return 0;
	}
	if (!charged &&
	    atomic_read(&sk->sk_rmem_alloc) >= READ_ONCE(sk->sk_rcvbuf)) {
		QUIC_DROP(sk, RCVBUF);
		return -ENOBUFS;
	}
	skb = alloc_skb(max_t(u32, len, QUIC_CRYPTO_SKB_MIN), GFP_ATOMIC);
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
	return 0;
}

/*
 * Give the reassembly a ring of @size bytes, and with the first one its
 * range array, charged to the socket.
 */
static int quic_crypto_ring_grow(struct sock *sk, struct quic_reasm *ra,
				 u32 size)
{
	u32 old = quic_crypto_ring_charge(ra->size);
	u32 charge = quic_crypto_ring_charge(size);
	struct quic_reasm_range *r = NULL;
	u8 *ring;

	if (atomic_read(&sk->sk_rmem_alloc) + charge - old >
	    READ_ONCE(sk->sk_rcvbuf)) {
		QUIC_DROP(sk, RCVBUF);
		return -ENOBUFS;
	}
	if (!ra->r) {
		r = kmalloc(QUIC_REASM_RANGES_SIZE, GFP_ATOMIC | __GFP_NOWARN);
		if (!r)
			return -ENOMEM;
	}
	ring = kmalloc(size, GFP_ATOMIC | __GFP_NOWARN);
	if (!ring) {
		kfree(r);
		return -ENOMEM;
	}
	kfree(quic_reasm_grow(ra, ring, size, r));
	atomic_add(charge - old, &sk->sk_rmem_alloc);
	return 0;
}

/* Nothing held any more: the ring and its ranges go until the next gap. */
static void quic_crypto_ring_put(struct sock *sk, struct quic_reasm *ra)
{
	if (ra->held || !ra->ring)
		return;
	quic_crypto_ring_free(sk, ra);
}

/*
 * Deliver what the ring holds at the next offset, if anything.  The ring
 * was charged already, so the receive buffer does not hold it back: held
 * data only waits for its gap, never for the reader.
 */
static void quic_crypto_drain(struct sock *sk, u8 level, struct quic_reasm *ra)
{
	const u8 *p;
	u32 n;

	while ((n = quic_reasm_peek(ra, &p))) {
		if (quic_crypto_deliver(sk, level, ra->base, p, n, true))
			break;	/* no memory: the next frame tries again */
		quic_reasm_advance(ra, ra->base + n);
	}
	quic_crypto_ring_put(sk, ra);
	sk->sk_data_ready(sk);
}

/*
 * A CRYPTO frame of @level arrived.  Handshake levels carry at most
 * QUIC_CRYPTO_BUF_MAX bytes in all (as much as we ever send in one), and
 * 1-RTT at most that much beyond what was delivered: more is
 * CRYPTO_BUFFER_EXCEEDED (RFC 9000 §7.5).  A client's handshake ends with
 * its Finished: TLS has nothing for it to send in 1-RTT (RFC 9001 §4.1.3
 * forbids KeyUpdate, and a QUIC server never asks for post-handshake
 * authentication), so CRYPTO data from a client there is a TLS
 * unexpected_message (RFC 9001 §4.8).  -ENOBUFS (a full receive buffer,
 * too many gaps) or -ENOMEM leave the packet unacknowledged: it comes
 * again.
 */
int quic_crypto_frames_rcv(struct sock *sk, u8 level, u64 offset,
			   const u8 *data, u64 len, u32 *terr)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_reasm *ra;
	u64 end = offset + len;
	u32 size;
	int err;

	if (level == QUIC_CRYPTO_APP && qs->is_server) {
		*terr = QUIC_TRANSPORT_ERROR_CRYPTO +
			QUIC_TLS_ALERT_UNEXPECTED_MESSAGE;
		return -EPROTO;
	}
	ra = &qs->space[quic_space_of_level(level)].crypto_rx;
	if (!len)
		return 0;
	if (level != QUIC_CRYPTO_APP && end > QUIC_CRYPTO_BUF_MAX) {
		*terr = QUIC_TRANSPORT_ERROR_CRYPTO_BUF_EXCEEDED;
		return -EPROTO;
	}
	err = quic_reasm_need(ra, offset, len, &size);
	if (err == -EMSGSIZE) {
		*terr = QUIC_TRANSPORT_ERROR_CRYPTO_BUF_EXCEEDED;
		return -EPROTO;
	}
	if (err) {
		QUIC_DROP(sk, CRYPTO_GAPS);
		return -ENOBUFS;
	}
	if (end <= ra->base)
		return 0;		/* a retransmission of what we have */
	quic_crypto_drain(sk, level, ra);

	if (offset > ra->base) {
		/* Out of order: held in the ring until the gap fills. */
		if (size > ra->size) {
			err = quic_crypto_ring_grow(sk, ra, size);
			if (err)
				return err;
		}
		quic_reasm_insert(ra, offset, data, len);
		return 0;
	}

	err = quic_crypto_deliver(sk, level, ra->base,
				  data + (ra->base - offset), end - ra->base,
				  false);
	if (err)
		return err;
	quic_reasm_advance(ra, end);

	quic_crypto_drain(sk, level, ra);
	return 0;
}

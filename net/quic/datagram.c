// SPDX-License-Identifier: GPL-2.0
/*
 * RFC 9221 unreliable datagrams: the send queue, the DATAGRAM frames of
 * the packet builder and the receive queue.  See datagram.h.
 */

#include <linux/skbuff.h>
#include <net/sock.h>

#include "datagram.h"
#include "frame.h"
#include "socket.h"
#include "txcache.h"
#include "varint.h"

/* The short header at its largest: first byte, DCID, 4-byte PN. */
static u32 quic_datagram_hdr_len(struct sock *sk)
{
	const struct quic_cid *dcid;

	dcid = quic_cid_active_dcid(&quic_sk(sk)->cids);
	return 1 + (dcid ? dcid->len : QUIC_CID_MAX_LEN) + 4;
}

/*
 * May a datagram of @len bytes be sent now: its DATAGRAM frame (with the
 * Length field) within the peer's max_datagram_frame_size and within an
 * empty 1-RTT packet of the current datagram size (which DPLPMTUD may
 * lower later).
 */
static bool quic_datagram_fits(struct sock *sk, u64 len)
{
	struct quic_sock *qs = quic_sk(sk);
	u64 frame = quic_datagram_frame_len(len);
	u32 over = quic_datagram_hdr_len(sk) + QUIC_CRYPTO_TAG_LEN;

	return frame <= qs->peer_tp.max_datagram_frame_size &&
	       qs->max_datagram > over && frame <= qs->max_datagram - over;
}

void quic_datagram_init(struct sock *sk)
{
	struct quic_dgram *d = &quic_sk(sk)->dgram;

	skb_queue_head_init(&d->send_q);
	atomic_set(&d->rmem, 0);
}

static void quic_datagram_send_free(struct sock *sk, struct sk_buff *skb)
{
	__skb_unlink(skb, &quic_sk(sk)->dgram.send_q);
	sk_wmem_queued_add(sk, -skb->truesize);
	consume_skb(skb);
}

/* The datagrams not sent yet go; received ones go with the receive queue. */
void quic_datagram_free(struct sock *sk)
{
	struct sk_buff *skb;

	while ((skb = skb_peek(&quic_sk(sk)->dgram.send_q)))
		quic_datagram_send_free(sk, skb);
}

static bool quic_datagram_sndbuf_free(struct sock *sk, s64 unused)
{
	return READ_ONCE(sk->sk_wmem_queued) < READ_ONCE(sk->sk_sndbuf);
}

/*
 * sendmsg(MSG_QUIC_DATAGRAM): queue @len bytes as one datagram; @flags are
 * the message and stream flags (MSG_DONTWAIT is read).  Socket lock held.
 * ENOTCONN before the handshake completes (datagrams go in 1-RTT only),
 * EINVAL when the peer did not advertise max_datagram_frame_size, EMSGSIZE
 * when it does not fit the peer's limit or one packet, EAGAIN when the
 * send buffer is full and the call may not wait.
 */
int quic_datagram_sendmsg(struct sock *sk, struct msghdr *msg, size_t len,
			  u32 flags)
{
	struct quic_sock *qs = quic_sk(sk);
	long timeo = sock_sndtimeo(sk, flags & MSG_DONTWAIT);
	struct sk_buff *skb;
	int err;

	if (sk->sk_state != QUIC_SS_ESTABLISHED)
		return -ENOTCONN;
	if (!qs->peer_tp.max_datagram_frame_size)
		return -EINVAL;
	if (!quic_datagram_fits(sk, len))
		return -EMSGSIZE;
	/* The wait of a stream writer: sk_write_space() wakes it. */
	err = quic_stream_wait(sk, &timeo, quic_datagram_sndbuf_free, 0);
	if (err)
		return err;
	/* The path may have shrunk while we waited. */
	if (!quic_datagram_fits(sk, len))
		return -EMSGSIZE;
	skb = alloc_skb(len, sk->sk_allocation);
	if (!skb)
		return -ENOBUFS;
	skb_put(skb, len);
	err = skb_copy_datagram_from_iter(skb, 0, &msg->msg_iter, len);
	if (err) {
		kfree_skb(skb);
		return err;
	}
	__skb_queue_tail(&qs->dgram.send_q, skb);
	sk_wmem_queued_add(sk, skb->truesize);
	quic_output(sk);
	return len;
}

bool quic_datagram_pending(const struct sock *sk)
{
	return !skb_queue_empty(&quic_sk(sk)->dgram.send_q);
}

/*
 * Write the queued datagrams that fit in @wr, whole, in DATAGRAM frames;
 * one that no longer fits any packet (the datagram size went down) is
 * dropped and counted.  The frame takes the Length field unless it ends
 * the packet exactly.  A marker frame on @sent stands for them, so that a
 * loss of the packet is counted.  Returns true if any went in.
 */
bool quic_datagram_fill(struct sock *sk, struct quic_wr *wr,
			struct list_head *sent)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_dgram *d = &qs->dgram;
	bool initial_gone = qs->space[QUIC_PN_SPACE_INITIAL].discarded;
	struct quic_frame_tx *marker = NULL;
	struct quic_frame fr = {};
	struct sk_buff *skb;
	bool freed = false;
	size_t left;
	int ret;

	if (sk->sk_state != QUIC_SS_ESTABLISHED)
		return false;
	while ((skb = skb_peek(&d->send_q))) {
		if (!quic_datagram_fits(sk, skb->len)) {
			QUIC_INC_STATS(DGRAM_TX_DROPPED, 1);
			quic_datagram_send_free(sk, skb);
			freed = true;
			continue;
		}
		left = quic_wr_left(wr);
		if (1 + skb->len > left)
			break;		/* in the next packet */
		/*
		 * Without Length only when it ends the packet exactly and
		 * no Initial packet may be padded after it in the datagram.
		 */
		fr.type = 1 + skb->len == left && initial_gone ?
			  QUIC_FRAME_DATAGRAM : QUIC_FRAME_DATAGRAM_LEN;
		if (fr.type == QUIC_FRAME_DATAGRAM_LEN &&
		    quic_datagram_frame_len(skb->len) > left)
			break;
		if (!marker) {
			/* A PING if it ever went out as a frame. */
			marker = quic_frame_tx_alloc(QUIC_FRAME_DATAGRAM,
						     QUIC_CRYPTO_APP, 1);
			if (!marker)
				break;
			marker->raw[0] = QUIC_FRAME_PING;
			list_add_tail(&marker->list, sent);
		}
		fr.datagram.len = skb->len;
		fr.datagram.data = skb->data;
		ret = quic_frame_encode(wr->p, left, &fr);
		if (ret < 0)
			break;
		wr->p += ret;
		marker->offset++;	/* datagrams in the packet */
		QUIC_INC_STATS(DGRAM_SENT, 1);
		quic_datagram_send_free(sk, skb);
		freed = true;
		if (fr.type == QUIC_FRAME_DATAGRAM)
			break;		/* it runs to the packet's end */
	}
	if (freed)
		sk->sk_write_space(sk);
	return marker && marker->offset;
}

/* A lost packet's frame @f: a datagram marker is counted and freed. */
bool quic_datagram_frame_lost(struct sock *sk, const struct quic_frame_tx *f)
{
	if (f->type != QUIC_FRAME_DATAGRAM)
		return false;
	QUIC_INC_STATS(DGRAM_LOST, f->offset);
	return true;
}

static void quic_datagram_rfree(struct sk_buff *skb)
{
	atomic_sub(skb->truesize, &quic_sk(skb->sk)->dgram.rmem);
	sock_rfree(skb);
}

/* Drop the oldest received datagram still queued; false if there is none. */
static bool quic_datagram_drop_oldest(struct sock *sk)
{
	struct sk_buff *skb;

	skb_queue_walk(&sk->sk_receive_queue, skb) {
		if (QUIC_RCV_CB(skb)->kind != QUIC_RCV_DATAGRAM)
			continue;
		__skb_unlink(skb, &sk->sk_receive_queue);
		kfree_skb(skb);
		QUIC_INC_STATS(DGRAM_RX_DROPPED, 1);
		return true;
	}
	return false;
}

/*
 * A DATAGRAM frame of @len bytes at @data (its size already checked
 * against what we advertised): one record for recvmsg().  Datagrams take
 * at most half of SO_RCVBUF; the oldest make room for the new one.
 */
int quic_datagram_rcv(struct sock *sk, const u8 *data, u64 len)
{
	struct quic_dgram *d = &quic_sk(sk)->dgram;
	int limit = READ_ONCE(sk->sk_rcvbuf) / 2;
	struct sk_buff *skb;

	skb = alloc_skb(len, GFP_ATOMIC);
	if (!skb) {
		QUIC_INC_STATS(DGRAM_RX_DROPPED, 1);
		return 0;
	}
	skb_put_data(skb, data, len);
	while (atomic_read(&d->rmem) + (int)skb->truesize > limit)
		if (!quic_datagram_drop_oldest(sk))
			break;
	if (atomic_read(&d->rmem) + (int)skb->truesize > limit) {
		/* Larger than the whole share on its own. */
		QUIC_INC_STATS(DGRAM_RX_DROPPED, 1);
		kfree_skb(skb);
		return 0;
	}
	memset(QUIC_RCV_CB(skb), 0, sizeof(struct quic_rcv_cb));
	QUIC_RCV_CB(skb)->kind = QUIC_RCV_DATAGRAM;
	QUIC_RCV_CB(skb)->stream_id = -1;
	skb_set_owner_r(skb, sk);
	skb->destructor = quic_datagram_rfree;
	atomic_add(skb->truesize, &d->rmem);
	__skb_queue_tail(&sk->sk_receive_queue, skb);
	QUIC_INC_STATS(DGRAM_RECV, 1);
	sk->sk_data_ready(sk);
	return 0;
}

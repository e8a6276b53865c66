// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC stream receive side (RFC 9000 §2.2, §3.2, §4): STREAM frames are
 * checked against flow control and the final size, reassembled in order
 * per stream, and read by recvmsg() one stream at a time with the stream
 * id (and FIN) in a QUIC_STREAM_INFO cmsg.  Reading opens the windows
 * again: MAX_STREAM_DATA and MAX_DATA go out once half a window has been
 * consumed.
 *
 * Memory: received data is charged to sk_rmem_alloc.  Out-of-order data is
 * accepted only while the receive buffer has room; data that continues
 * the in-order part up to twice that, so that the piece filling a gap is
 * never refused for the sake of what waits behind it.  A frame refused for
 * memory drops its whole packet unacknowledged: the peer sends it again.
 *
 * What a byte costs must not depend on how the peer cuts the data, or a
 * peer sending 1-byte pieces would make every byte cost an sk_buff (about
 * 800 bytes): small in-order pieces are appended to the stream's last
 * buffer, and out-of-order pieces, copied into buffers of their own size,
 * are refused once their buffers would cost more than two and a half times
 * the data they hold, plus QUIC_OOO_SLACK.  A full-size packet's piece
 * costs under twice its size, so a genuine peer is not refused; a peer
 * cutting its data small can make it cost no more than 2.5 times what it
 * sent, and the windows bound what it may send.
 *
 * Merging (issue 17): a message of several datagrams would wait as one
 * skb per datagram, each copied out by a pass of its own and freed on its
 * own in recvmsg().  Where a piece's bytes lie in a page (the datagram's
 * head is a page fragment: our trains, txcache.c, and most NICs' skbs),
 * the piece is not cloned but referenced as a page fragment of the
 * stream's last ready skb, as TCP's skb_try_coalesce() steals a head, so
 * that consecutive in-order data waits in one skb of up to MAX_SKB_FRAGS
 * pieces and is copied out in one pass.  Each piece is charged what its
 * clone would have been (the datagram's truesize: its share of a train),
 * added to the merged skb's truesize and to sk_rmem_alloc together, so
 * the skb's destructor gives back exactly what was charged.  A partial
 * read leaves a ready skb whole (a page-fragment skb cannot be pulled
 * without copying): the first one's consumed part is what lies below
 * quic_stream.read.  Ready skbs are only ever touched under the socket
 * lock (in softirq with it held, or by its owner).
 */

#include <linux/skbuff.h>
#include <net/sock.h>

#include "socket.h"
#include "stream.h"

/* In-order frames this small are copied; bigger ones share the packet's buffer. */
#define QUIC_RX_COPY_MAX	256
/* Room of a copied in-order buffer, so that small pieces share one. */
#define QUIC_RX_COPY_ROOM	1024
/* Out-of-order pieces up to this size are copied into a buffer their size. */
#define QUIC_RX_OOO_COPY_MAX	SKB_MAX_HEAD(0)
/* Buffer overhead allowed beyond the out-of-order data held, per connection. */
#define QUIC_OOO_SLACK		(64 * 1024)

#define QUIC_STREAM_RX_OFF(skb)	(QUIC_RCV_CB(skb)->offset)

static void quic_stream_ooo_insert(struct sock *sk, struct quic_stream *s,
				   struct sk_buff *skb)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	u64 offset = QUIC_STREAM_RX_OFF(skb);
	struct rb_node **link = &s->ooo.rb_node, *parent = NULL;

	/* Offsets held are distinct: its place is by offset. */
	while (*link) {
		parent = *link;
		if (QUIC_STREAM_RX_OFF(rb_to_skb(parent)) < offset)
			link = &parent->rb_right;
		else
			link = &parent->rb_left;
	}
	rb_link_node(&skb->rbnode, parent, link);
	rb_insert_color(&skb->rbnode, &s->ooo);
	st->ooo_len += skb->len;
	st->ooo_mem += skb->truesize;
}

static void quic_stream_ooo_erase(struct sock *sk, struct quic_stream *s,
				  struct sk_buff *skb)
{
	struct quic_streams *st = &quic_sk(sk)->streams;

	rb_erase(&skb->rbnode, &s->ooo);
	st->ooo_len -= skb->len;
	st->ooo_mem -= skb->truesize;
}

void quic_stream_recv_free(struct sock *sk, struct quic_stream *s)
{
	struct sk_buff *skb;

	__skb_queue_purge(&s->ready);
	while ((skb = skb_rb_first(&s->ooo))) {
		quic_stream_ooo_erase(sk, s, skb);
		kfree_skb(skb);
	}
}

static bool quic_rmem_ok(const struct sock *sk, bool in_order)
{
	u64 limit = READ_ONCE(sk->sk_rcvbuf);

	if (in_order)
		limit *= 2;
	return atomic_read(&sk->sk_rmem_alloc) < limit;
}

/* Make @skb a ready piece of stream data at @offset, charged to @sk. */
static void quic_stream_skb_own(struct sock *sk, struct sk_buff *skb,
				u64 offset)
{
	memset(QUIC_RCV_CB(skb), 0, sizeof(struct quic_rcv_cb));
	QUIC_RCV_CB(skb)->kind = QUIC_RCV_STREAM;
	QUIC_STREAM_RX_OFF(skb) = offset;
	skb_set_owner_r(skb, sk);
}

/*
 * An skb holding @len bytes at @data, which points into @pkt: a copy with
 * room for at least @room bytes when @len is at most @copy_max, else a
 * clone of the packet.
 */
static struct sk_buff *quic_stream_data_skb(struct sock *sk,
					    struct sk_buff *pkt,
					    const u8 *data, u32 len, u64 offset,
					    u32 copy_max, u32 room)
{
	struct sk_buff *skb;

	if (len <= copy_max) {
		skb = alloc_skb(max(len, room), GFP_ATOMIC);
		if (!skb)
			return NULL;
		skb_put_data(skb, data, len);
	} else {
		skb = skb_clone(pkt, GFP_ATOMIC);
		if (!skb)
			return NULL;
		skb_dst_drop(skb);
		__skb_pull(skb, data - skb->data);
		skb_trim(skb, len);
	}
	quic_stream_skb_own(sk, skb, offset);
	return skb;
}

/*
 * Can a piece of @pkt be referenced as a page fragment (see "Merging"
 * above)?  Its bytes must lie in a head that is a page fragment of its
 * own (not kmalloc()ed), and not in a page pool's page, whose references
 * are counted apart (skb_try_coalesce() refuses those too).
 */
static bool quic_stream_page_piece(const struct sk_buff *pkt)
{
	return pkt->head_frag && !pkt->pp_recycle && !skb_is_nonlinear(pkt);
}

/*
 * Append @len bytes at @data, in @pkt's head, to the stream's ready queue
 * as a page fragment: to @tail, the queue's last skb, if it ends where
 * they start, owns its shared info (not a clone) and has a slot left;
 * else to a new skb without linear data.  Returns false on allocation
 * failure.  Socket lock held.
 */
static bool quic_stream_merge(struct sock *sk, struct quic_stream *s,
			      struct sk_buff *tail, struct sk_buff *pkt,
			      const u8 *data, u32 len)
{
	struct page *page = virt_to_head_page(pkt->head);
	u32 off = data - (const u8 *)page_address(page);
	u32 charge = pkt->truesize;

	if (tail && !skb_cloned(tail) && !skb_has_frag_list(tail) &&
	    skb_shinfo(tail)->nr_frags < MAX_SKB_FRAGS &&
	    QUIC_STREAM_RX_OFF(tail) + tail->len == s->delivered) {
		get_page(page);
		skb_fill_page_desc(tail, skb_shinfo(tail)->nr_frags, page,
				   off, len);
		tail->len += len;
		tail->data_len += len;
		/* Charged as skb_set_owner_r() charges, given back with it. */
		tail->truesize += charge;
		atomic_add(charge, &sk->sk_rmem_alloc);
		sk_mem_charge(sk, charge);
		QUIC_INC_STATS(RX_SKBS_MERGED, 1);
		return true;
	}
	tail = alloc_skb(0, GFP_ATOMIC);
	if (!tail)
		return false;
	get_page(page);
	skb_fill_page_desc(tail, 0, page, off, len);
	tail->len = len;
	tail->data_len = len;
	tail->truesize += charge;
	quic_stream_skb_own(sk, tail, s->delivered);
	__skb_queue_tail(&s->ready, tail);
	return true;
}

/* Data at s->delivered: make it readable, with what it lets follow. */
static int quic_stream_deliver(struct sock *sk, struct quic_stream *s,
			       struct sk_buff *pkt, const u8 *data, u32 len)
{
	struct sk_buff *skb;
	u64 off, end;

	if (!quic_rmem_ok(sk, true)) {
		QUIC_DROP(sk, RCVBUF);
		return -ENOBUFS;
	}
	/* A small piece joins the last one when that was copied with room. */
	skb = skb_peek_tail(&s->ready);
	if (len <= QUIC_RX_COPY_MAX && skb && !skb_cloned(skb) &&
	    !skb_is_nonlinear(skb) && skb_tailroom(skb) >= len &&
	    QUIC_STREAM_RX_OFF(skb) + skb->len == s->delivered) {
		skb_put_data(skb, data, len);
	} else if (len > QUIC_RX_COPY_MAX && quic_stream_page_piece(pkt)) {
		if (!quic_stream_merge(sk, s, skb, pkt, data, len))
			return -ENOMEM;
	} else {
		skb = quic_stream_data_skb(sk, pkt, data, len, s->delivered,
					   QUIC_RX_COPY_MAX, QUIC_RX_COPY_ROOM);
		if (!skb)
			return -ENOMEM;
		__skb_queue_tail(&s->ready, skb);
	}
	s->delivered += len;

	while ((skb = skb_rb_first(&s->ooo)) &&
	       QUIC_STREAM_RX_OFF(skb) <= s->delivered) {
		quic_stream_ooo_erase(sk, s, skb);
		off = QUIC_STREAM_RX_OFF(skb);
		end = off + skb->len;
		if (end <= s->delivered) {
			kfree_skb(skb);
			continue;
		}
		skb_pull(skb, s->delivered - off);
		QUIC_STREAM_RX_OFF(skb) = s->delivered;
		__skb_queue_tail(&s->ready, skb);
		s->delivered = end;
	}
	return 0;
}

/* The held piece with the largest offset <= @offset, or NULL. */
static struct sk_buff *quic_stream_ooo_floor(struct rb_root *root, u64 offset)
{
	struct rb_node *n = root->rb_node;
	struct sk_buff *best = NULL, *skb;

	while (n) {
		skb = rb_to_skb(n);
		if (QUIC_STREAM_RX_OFF(skb) <= offset) {
			best = skb;
			n = n->rb_right;
		} else {
			n = n->rb_left;
		}
	}
	return best;
}

/*
 * Would holding @skb out of order, instead of the pieces it covers
 * (@covered_len bytes in @covered_mem of buffers), keep the connection's
 * out-of-order buffers within 2.5 times the data they hold, plus the slack?
 */
static bool quic_stream_ooo_affordable(struct sock *sk,
				       const struct sk_buff *skb,
				       u64 covered_len, u64 covered_mem)
{
	const struct quic_streams *st = &quic_sk(sk)->streams;
	u64 mem = st->ooo_mem - covered_mem + skb->truesize;
	u64 len = st->ooo_len - covered_len + skb->len;

	return 2 * mem <= 5 * len + 2 * QUIC_OOO_SLACK;
}

/*
 * Keep data beyond a gap in an rbtree by offset (as TCP keeps its
 * out-of-order queue), without overlaps: what is already held is not
 * stored twice, what the new piece covers is replaced.  Finding the place
 * is O(log n) whatever order pieces come in; each piece is removed at most
 * once, so covering costs nothing extra in total.
 */
static int quic_stream_ooo_add(struct sock *sk, struct quic_stream *s,
			       struct sk_buff *pkt, u64 offset,
			       const u8 *data, u64 len)
{
	u64 end = offset + len, pend, covered_len = 0, covered_mem = 0;
	struct sk_buff *prev, *first, *next, *skb;

	if (!quic_rmem_ok(sk, false)) {
		QUIC_DROP(sk, RCVBUF);
		return -ENOBUFS;
	}
	prev = quic_stream_ooo_floor(&s->ooo, offset);
	if (prev) {
		pend = QUIC_STREAM_RX_OFF(prev) + prev->len;
		if (pend >= end)
			return 0;
		if (pend > offset) {
			data += pend - offset;
			offset = pend;
		}
	}
	/* The pieces it covers whole; it ends where one goes beyond it. */
	first = prev ? skb_rb_next(prev) : skb_rb_first(&s->ooo);
	for (next = first; next && QUIC_STREAM_RX_OFF(next) < end;
	     next = skb_rb_next(next)) {
		if (QUIC_STREAM_RX_OFF(next) + next->len > end) {
			end = QUIC_STREAM_RX_OFF(next);
			break;
		}
		covered_len += next->len;
		covered_mem += next->truesize;
	}
	if (end <= offset)
		return 0;
	/*
	 * A piece of a train held out of order would keep the whole train
	 * (udp.c) for as long as a gap lasts: copied.
	 */
	skb = quic_stream_data_skb(sk, pkt, data, end - offset, offset,
				   QUIC_INPUT_CB(pkt)->train ? U32_MAX :
				   QUIC_RX_OOO_COPY_MAX, 0);
	if (!skb)
		return -ENOMEM;
	if (!quic_stream_ooo_affordable(sk, skb, covered_len, covered_mem)) {
		kfree_skb(skb);
		QUIC_DROP(sk, OOO_OVERHEAD);
		return -ENOBUFS;
	}
	while (first && QUIC_STREAM_RX_OFF(first) < end) {
		next = skb_rb_next(first);
		quic_stream_ooo_erase(sk, s, first);
		kfree_skb(first);
		first = next;
	}
	quic_stream_ooo_insert(sk, s, skb);
	return 0;
}

/* Is there something for recvmsg() on @s: data, or the FIN to report? */
static void quic_stream_check_readable(struct sock *sk, struct quic_stream *s)
{
	bool fin = s->rx.final_known && s->delivered == s->rx.final_size;

	if (fin && s->recv_state == QUIC_STREAM_RECV_STATE_SIZE_KNOWN)
		s->recv_state = QUIC_STREAM_RECV_STATE_RECVD;
	if (skb_queue_empty(&s->ready) && (!fin || s->fin_read))
		return;
	if (s->peel == QUIC_STREAM_PEEL_CLOSED) {
		quic_stream_recv_discard(sk, s);
		return;
	}
	/* A peeled stream is read through its own fd, not recvmsg(). */
	if (list_empty(&s->read_node) && s->peel == QUIC_STREAM_PEEL_NONE)
		list_add_tail(&s->read_node,
			      &quic_sk(sk)->streams.read_list);
	quic_rx_data_ready(sk);
}

/*
 * A STREAM frame: @data points into the decrypted packet @pkt.  Returns 0,
 * -EPROTO with *terr set (the connection closes), or -ENOBUFS/-ENOMEM (the
 * packet is dropped).
 */
int quic_stream_rcv(struct sock *sk, struct sk_buff *pkt, u64 id, u64 offset,
		    const u8 *data, u64 len, bool fin, u32 *terr)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	struct quic_stream *s;
	u64 end = offset + len;
	int err;

	s = quic_stream_for_frame(sk, id, false, terr);
	if (IS_ERR_OR_NULL(s))
		return PTR_ERR_OR_ZERO(s);
	err = quic_flow_rx_data(&s->rx, &st->rx, offset, len, fin, terr);
	if (err)
		return err;
	if (s->recv_state != QUIC_STREAM_RECV_STATE_RECV &&
	    s->recv_state != QUIC_STREAM_RECV_STATE_SIZE_KNOWN)
		return 0;	/* all there already, or reset */
	if (fin && s->recv_state == QUIC_STREAM_RECV_STATE_RECV)
		s->recv_state = QUIC_STREAM_RECV_STATE_SIZE_KNOWN;
	if (end > s->delivered) {
		if (offset <= s->delivered)
			err = quic_stream_deliver(sk, s, pkt,
						  data + (s->delivered - offset),
						  end - s->delivered);
		else
			err = quic_stream_ooo_add(sk, s, pkt, offset, data, len);
		if (err)
			return err;
	}
	quic_stream_check_readable(sk, s);
	return 0;
}

/* Open the windows again once half of one has been read. */
static void quic_stream_update_windows(struct sock *sk, struct quic_stream *s)
{
	struct quic_streams *st = &quic_sk(sk)->streams;

	if (s && s->window && s->recv_state == QUIC_STREAM_RECV_STATE_RECV &&
	    quic_flow_should_update(s->rx.max, s->read, s->window)) {
		s->rx.max = s->read + s->window;
		quic_stream_set_ctrl(sk, s, QUIC_STREAM_CTRL_MAX_DATA);
	}
	if (st->rx_window &&
	    quic_flow_should_update(st->rx.max, st->rx_read, st->rx_window)) {
		st->rx.max = st->rx_read + st->rx_window;
		st->ctrl |= QUIC_CONN_CTRL_MAX_DATA;
	}
}

/* RESET_STREAM: drop what is unread and tell the user (§3.2). */
int quic_stream_on_reset(struct sock *sk, u64 id, u64 errcode,
			 u64 final_size, u32 *terr)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	struct quic_stream *s;
	int err;

	s = quic_stream_for_frame(sk, id, false, terr);
	if (IS_ERR_OR_NULL(s))
		return PTR_ERR_OR_ZERO(s);
	err = quic_flow_rx_reset(&s->rx, &st->rx, final_size, terr);
	if (err)
		return err;
	if (s->recv_state != QUIC_STREAM_RECV_STATE_RECV &&
	    s->recv_state != QUIC_STREAM_RECV_STATE_SIZE_KNOWN)
		return 0;
	quic_stream_recv_free(sk, s);
	/* Whatever the user will never read still counts as consumed. */
	st->rx_read += final_size - s->read;
	s->read = final_size;
	s->delivered = final_size;
	list_del_init(&s->read_node);
	s->recv_state = QUIC_STREAM_RECV_STATE_RESET_RECVD;
	errcode = min_t(u64, errcode, U32_MAX);
	quic_stream_event(sk, id, s->recv_state, errcode, final_size);
	quic_stream_update_windows(sk, NULL);
	if (s->peel == QUIC_STREAM_PEEL_OPEN) {
		/* Its fd reports the reset, then lets it go. */
		quic_rx_data_ready(sk);
		return 0;
	}
	s->recv_state = QUIC_STREAM_RECV_STATE_RESET_READ;
	quic_stream_try_free(sk, s);
	return 0;
}

/* QUIC_SOCKOPT_STREAM_STOP_SENDING */
int quic_stream_stop_sending(struct sock *sk, u64 id, u32 errcode)
{
	struct quic_stream *s = quic_stream_find(sk, id);

	if (!s || !quic_stream_id_can_recv(id, quic_sk(sk)->is_server))
		return -EINVAL;
	if (s->recv_state != QUIC_STREAM_RECV_STATE_RECV &&
	    s->recv_state != QUIC_STREAM_RECV_STATE_SIZE_KNOWN)
		return 0;
	s->stop_code = errcode;
	quic_stream_set_ctrl(sk, s, QUIC_STREAM_CTRL_STOP);
	quic_output(sk);
	return 0;
}

/*
 * Copy up to @len bytes of @s's data in order to @to, consuming them unless
 * @peek.  Returns the bytes copied, or an error if none were.  The ready
 * skbs hold the stream's bytes from s->read on, back to back; the first
 * may begin below it, where a partial read stopped (an skb is kept whole
 * until all of it is read: see "Merging" above).
 */
static int quic_stream_copy_ready(struct quic_stream *s, struct iov_iter *to,
				  size_t len, bool peek)
{
	struct sk_buff *skb, *tmp;
	u64 pos = s->read;
	size_t copied = 0;
	int err = 0;

	skb_queue_walk_safe(&s->ready, skb, tmp) {
		u64 skip = pos - QUIC_STREAM_RX_OFF(skb);
		u32 n;

		if (WARN_ON_ONCE(pos < QUIC_STREAM_RX_OFF(skb) ||
				 skip >= skb->len)) {
			err = -EFAULT;
			break;
		}
		n = min_t(u64, len - copied, skb->len - skip);
		if (!n)
			break;
		err = skb_copy_datagram_iter(skb, skip, to, n);
		if (err)
			break;
		copied += n;
		pos += n;
		if (skip + n < skb->len)
			break;
		if (!peek) {
			__skb_unlink(skb, &s->ready);
			kfree_skb(skb);
		}
	}
	return copied ? copied : err;
}

/*
 * The user consumed @n more bytes of @s, and its end with them if @fin:
 * windows open again, and @s is freed if it is done (not to be used then).
 */
static void quic_stream_read_done(struct sock *sk, struct quic_stream *s,
				  u64 n, bool fin)
{
	struct quic_streams *st = &quic_sk(sk)->streams;

	s->read += n;
	st->rx_read += n;
	if (fin) {
		s->fin_read = true;
		s->recv_state = QUIC_STREAM_RECV_STATE_READ;
		list_del_init(&s->read_node);
	} else if (skb_queue_empty(&s->ready)) {
		list_del_init(&s->read_node);
	}
	quic_stream_update_windows(sk, s);
	if (fin)
		quic_stream_try_free(sk, s);
}

/*
 * recvmsg() of stream data: as much as fits of the first readable stream,
 * with its id and, once the last byte is read, MSG_QUIC_STREAM_FIN.
 */
int quic_stream_recvmsg(struct sock *sk, struct msghdr *msg, size_t len,
			int flags)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	struct quic_stream_info info = {};
	bool peek = flags & MSG_PEEK;
	struct quic_stream *s;
	int copied, err;
	bool fin;

	s = list_first_entry(&st->read_list, struct quic_stream, read_node);
	copied = quic_stream_copy_ready(s, &msg->msg_iter, len, peek);
	if (copied < 0)
		return copied;

	fin = s->rx.final_known && s->read + copied == s->rx.final_size;
	info.stream_id = s->id;
	info.stream_flags = fin ? MSG_QUIC_STREAM_FIN : 0;
	err = put_cmsg(msg, SOL_QUIC, QUIC_STREAM_INFO, sizeof(info), &info);
	if (err)
		return err;
	if (fin)
		msg->msg_flags |= MSG_QUIC_STREAM_FIN;
	if (peek)
		return copied;

	quic_stream_read_done(sk, s, copied, fin);
	quic_output(sk);
	return copied;
}

/*
 * read() of a peeled stream's fd (stream_fd.c): the bytes read, 0 at the
 * end of the stream (or for a stream that is gone: its end was read),
 * -ECONNRESET once for a reset, -EAGAIN when there is nothing yet.
 */
int quic_stream_recv_one(struct sock *sk, u64 id, struct iov_iter *to)
{
	struct quic_stream *s = quic_stream_find(sk, id);
	int copied;
	bool fin;

	if (!s || s->recv_state == QUIC_STREAM_RECV_STATE_READ ||
	    s->recv_state == QUIC_STREAM_RECV_STATE_RESET_READ)
		return 0;
	if (s->recv_state == QUIC_STREAM_RECV_STATE_RESET_RECVD) {
		quic_stream_recv_discard(sk, s);	/* the reset is read */
		return -ECONNRESET;
	}
	if (skb_queue_empty(&s->ready) &&
	    s->recv_state != QUIC_STREAM_RECV_STATE_RECVD)
		return -EAGAIN;
	copied = quic_stream_copy_ready(s, to, iov_iter_count(to), false);
	if (copied < 0)
		return copied;
	fin = s->rx.final_known && s->read + copied == s->rx.final_size;
	quic_stream_read_done(sk, s, copied, fin);
	quic_output(sk);
	return copied;
}

/*
 * Nobody reads @s any more (its fd was closed): what it holds, a reset
 * and its end count as read.  @s may be freed.
 */
void quic_stream_recv_discard(struct sock *sk, struct quic_stream *s)
{
	bool fin;

	if (s->recv_state == QUIC_STREAM_RECV_STATE_RESET_RECVD) {
		s->recv_state = QUIC_STREAM_RECV_STATE_RESET_READ;
		quic_stream_try_free(sk, s);
		return;
	}
	if (s->recv_state == QUIC_STREAM_RECV_STATE_READ ||
	    s->recv_state == QUIC_STREAM_RECV_STATE_RESET_READ)
		return;
	__skb_queue_purge(&s->ready);
	fin = s->rx.final_known && s->delivered == s->rx.final_size;
	quic_stream_read_done(sk, s, s->delivered - s->read, fin);
}

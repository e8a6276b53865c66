// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC stream send side (RFC 9000 §2.2, §3.1, §4): sendmsg() copies user
 * data once into the stream's send buffer; the packet builder takes STREAM
 * frames from it round robin over the streams that have data; an ACK
 * frees the acknowledged prefix; a lost STREAM frame is rebuilt from the
 * buffer.  Flow-control and stream-state frames are written from pending
 * bits (see stream.h).
 *
 * What the user may write is bounded by the peer's flow-control credit
 * (connection and stream) and by the socket send buffer, so that every
 * buffered byte may be sent at once and a peer that never reads cannot
 * make us buffer without bound.  A sender out of credit waits, or gets
 * -EAGAIN with MSG_DONTWAIT or MSG_QUIC_STREAM_DONTWAIT, and the
 * DATA_BLOCKED or STREAM_DATA_BLOCKED frame goes out (§4.1).
 */

#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "frame.h"
#include "socket.h"
#include "txcache.h"
#include "stream.h"
#include "varint.h"

/* Stream offset of a send-buffer skb's first byte. */
struct quic_send_cb {
	u64	offset;
};

#define QUIC_SEND_CB(skb)	((struct quic_send_cb *)&((skb)->cb[0]))

/* One skb of send buffer holds at most this much; small writes are linear. */
#define QUIC_SEND_CHUNK_MAX	(16 * PAGE_SIZE)
#define QUIC_SEND_LINEAR_MAX	1024
/* A STREAM frame's Length is always written in two bytes. */
#define QUIC_STREAM_FRAME_MAX	16383
/* Do not start a STREAM frame for less data than this if more is waiting. */
#define QUIC_STREAM_FRAME_MIN	64

enum quic_fill_result {
	QUIC_FILL_NONE,		/* nothing to send */
	QUIC_FILL_ROOM,		/* no room left in the packet */
	QUIC_FILL_WROTE,
	QUIC_FILL_HELD,		/* a small write waits for an ACK (Nagle) */
};

static bool quic_sndbuf_free(const struct sock *sk)
{
	return READ_ONCE(sk->sk_wmem_queued) < READ_ONCE(sk->sk_sndbuf);
}

/* Bytes the user may still write on @s under the peer's limits. */
static u64 quic_stream_credit(const struct quic_streams *st,
			      const struct quic_stream *s)
{
	return min(quic_flow_credit(s->send_max, s->written),
		   quic_flow_credit(st->send_max, st->written));
}

/* poll(): can a write make progress on some stream? */
bool quic_streams_writable(const struct sock *sk)
{
	const struct quic_streams *st = &quic_sk(sk)->streams;

	return READ_ONCE(st->ready) && quic_sndbuf_free(sk) &&
	       READ_ONCE(st->written) < READ_ONCE(st->send_max);
}

/* Is any data (or FIN) the user wrote still unacknowledged? */
bool quic_streams_unacked(struct sock *sk)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	struct quic_stream *s;
	int i;

	for (i = 0; i < quic_streams_buckets(st); i++) {
		hlist_for_each_entry(s, quic_streams_bucket(st, i), node) {
			if (s->send_state != QUIC_STREAM_SEND_STATE_SEND &&
			    s->send_state != QUIC_STREAM_SEND_STATE_SENT)
				continue;
			if (s->acked < s->written ||
			    (s->fin_written && !s->fin_acked))
				return true;
		}
	}
	return false;
}

static void quic_send_skb_free(struct sock *sk, struct quic_stream *s,
			       struct sk_buff *skb)
{
	if (s->cursor == skb)
		s->cursor = NULL;
	__skb_unlink(skb, &s->send_buf);
	sk_wmem_queued_add(sk, -skb->truesize);
	consume_skb(skb);
}

void quic_stream_send_free(struct sock *sk, struct quic_stream *s)
{
	struct quic_stream_range *r, *tmp;
	struct sk_buff *skb;

	while ((skb = skb_peek(&s->send_buf)))
		quic_send_skb_free(sk, s, skb);
	list_for_each_entry_safe(r, tmp, &s->acked_ranges, list) {
		list_del(&r->list);
		quic_obj_free(sk, r, sizeof(*r));
	}
}

/* Append @n bytes of the user's message to the stream's send buffer. */
static int quic_stream_append(struct sock *sk, struct quic_stream *s,
			      struct msghdr *msg, size_t n)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	struct sk_buff *skb;
	int err = -ENOBUFS;

	if (n <= QUIC_SEND_LINEAR_MAX) {
		skb = alloc_skb(n, sk->sk_allocation);
		if (skb)
			skb_put(skb, n);
	} else {
		skb = alloc_skb_with_frags(0, n, 0, &err, sk->sk_allocation);
		if (skb) {
			skb->data_len = n;
			skb->len = n;
		}
	}
	if (!skb)
		return err;
	err = skb_copy_datagram_from_iter(skb, 0, &msg->msg_iter, n);
	if (err) {
		kfree_skb(skb);
		return err;
	}
	QUIC_SEND_CB(skb)->offset = s->written;
	__skb_queue_tail(&s->send_buf, skb);
	sk_wmem_queued_add(sk, skb->truesize);
	s->written += n;
	st->written += n;
	if (s->send_state == QUIC_STREAM_SEND_STATE_READY)
		s->send_state = QUIC_STREAM_SEND_STATE_SEND;
	return 0;
}

/* The packet builder should look at @s. */
static void quic_stream_mark_send(struct sock *sk, struct quic_stream *s)
{
	if (list_empty(&s->send_node))
		list_add_tail(&s->send_node, &quic_sk(sk)->streams.send_list);
}

/* Out of credit: tell the peer, once per limit (RFC 9000 §4.1). */
static void quic_stream_note_blocked(struct sock *sk, struct quic_stream *s)
{
	struct quic_streams *st = &quic_sk(sk)->streams;

	if (s->written >= s->send_max && s->blocked_at != s->send_max)
		quic_stream_set_ctrl(sk, s, QUIC_STREAM_CTRL_BLOCKED);
	if (st->written >= st->send_max && st->blocked_at != st->send_max)
		st->ctrl |= QUIC_CONN_CTRL_DATA_BLOCKED;
}

static bool quic_stream_writable(const struct quic_stream *s)
{
	return !s->fin_written && s->send_state <= QUIC_STREAM_SEND_STATE_SEND;
}

static bool quic_cond_can_open(struct sock *sk, s64 uni)
{
	return quic_stream_can_open(sk, uni);
}

static bool quic_cond_can_write(struct sock *sk, s64 id)
{
	struct quic_stream *s = quic_stream_find(sk, id);

	/* A stream that went away or was reset: the caller finds out. */
	if (!s || !quic_stream_writable(s))
		return true;
	return quic_sndbuf_free(sk) &&
	       quic_stream_credit(&quic_sk(sk)->streams, s) > 0;
}

/* poll() of a peeled stream's fd: would a write to @id not block? */
bool quic_stream_send_ready(struct sock *sk, u64 id)
{
	return quic_cond_can_write(sk, id);
}

/*
 * Sleep until @cond holds (checked with the socket lock held), the
 * connection fails or ends, a signal arrives or the timeout runs out.
 * Wake-ups come from sk_write_space() (credit, buffer space, streams),
 * sk_state_change() and sk_error_report().
 */
int quic_stream_wait(struct sock *sk, long *timeo, quic_send_cond cond,
		     s64 arg)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	int err;

	add_wait_queue(sk_sleep(sk), &wait);
	for (;;) {
		err = -READ_ONCE(sk->sk_err);
		if (err)
			break;
		err = -EPIPE;
		if (!quic_early_data_stream_live(sk) ||
		    (sk->sk_shutdown & SEND_SHUTDOWN))
			break;
		err = 0;
		if (cond(sk, arg))
			break;
		err = -EAGAIN;
		if (!*timeo)
			break;
		err = sock_intr_errno(*timeo);
		if (signal_pending(current))
			break;
		if (sk->sk_socket)
			set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		/*
		 * The condition proper walks the stream table, so it is only
		 * checked with the lock held; a wake-up that comes after the
		 * check above is not lost (wait_woken()).
		 */
		sk_wait_event(sk, timeo, READ_ONCE(sk->sk_err) ||
			      !quic_early_data_stream_live(sk), &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return err;
}

/*
 * Our stream @id, or the next one of its type (-1), opened for the user:
 * waits for the peer's MAX_STREAMS unless MSG_QUIC_STREAM_DONTWAIT is in
 * @flags or *timeo is 0.
 */
static int quic_stream_open_wait(struct sock *sk, s64 id, u32 flags,
				 long *timeo, struct quic_stream **out)
{
	bool uni = flags & MSG_QUIC_STREAM_UNI;
	int err;

	for (;;) {
		err = quic_stream_open_local(sk, id, uni, out);
		if (err != -EAGAIN || (flags & MSG_QUIC_STREAM_DONTWAIT))
			break;
		quic_output(sk);	/* STREAMS_BLOCKED */
		err = quic_stream_wait(sk, timeo, quic_cond_can_open, uni);
		if (err)
			break;
	}
	if (err == -EAGAIN)
		quic_output(sk);
	return err;
}

/* QUIC_SOCKOPT_STREAM_OPEN: the id of the stream opened. */
int quic_stream_open_user(struct sock *sk, s64 id, u32 flags, bool nonblock,
			  s64 *opened)
{
	long timeo = sock_sndtimeo(sk, nonblock);
	struct quic_stream *s;
	int err;

	if (sk->sk_state != QUIC_SS_ESTABLISHED)
		return -ENOTCONN;
	err = quic_stream_open_wait(sk, id, flags, &timeo, &s);
	if (!err)
		*opened = s->id;
	return err;
}

/*
 * Write @len bytes of @msg to our stream @s, waiting for credit and buffer
 * space as @flags and *@timeo allow, and end it after them with
 * MSG_QUIC_STREAM_FIN.  Returns the bytes taken, or an error if none were.
 */
static int quic_stream_write(struct sock *sk, struct quic_stream *s,
			     struct msghdr *msg, size_t len, u32 flags,
			     long *timeo)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	bool credit_wait = !(flags & MSG_QUIC_STREAM_DONTWAIT);
	u64 id = s->id;
	size_t copied = 0;
	int err = 0;

	while (copied < len) {
		u64 credit = quic_stream_credit(st, s);
		size_t n;

		if (!credit || !quic_sndbuf_free(sk)) {
			if (!credit)
				quic_stream_note_blocked(sk, s);
			quic_output(sk);
			if (copied && (flags & MSG_DONTWAIT))
				break;
			err = -EAGAIN;
			if (!credit && !credit_wait)
				break;
			err = quic_stream_wait(sk, timeo, quic_cond_can_write,
					       id);
			if (err)
				break;
			s = quic_stream_find(sk, id);
			err = -EPIPE;
			if (!s || !quic_stream_writable(s))
				break;
			err = 0;
			continue;
		}
		n = min_t(u64, len - copied, min_t(u64, credit,
						   QUIC_SEND_CHUNK_MAX));
		err = quic_stream_append(sk, s, msg, n);
		if (err)
			break;
		copied += n;
		quic_stream_mark_send(sk, s);
		if (copied < len)
			quic_output(sk);
	}
	if (!err && copied == len && (flags & MSG_QUIC_STREAM_FIN)) {
		s->fin_written = true;
		if (s->send_state == QUIC_STREAM_SEND_STATE_READY)
			s->send_state = QUIC_STREAM_SEND_STATE_SEND;
		quic_stream_mark_send(sk, s);
	}
	quic_output(sk);
	return copied ? copied : err;
}

/*
 * sendmsg() of stream data: @id is the stream (-1: open the next one,
 * unidirectional with MSG_QUIC_STREAM_UNI), @flags the message and stream
 * flags.  Returns the bytes taken, or an error if none were.  Running out
 * of credit always queues DATA_BLOCKED or STREAM_DATA_BLOCKED (once per
 * limit), so MSG_QUIC_STREAM_SNDBLOCK asks for what is done anyway.
 */
int quic_stream_sendmsg(struct sock *sk, struct msghdr *msg, size_t len,
			s64 id, u32 flags)
{
	struct quic_sock *qs = quic_sk(sk);
	long timeo = sock_sndtimeo(sk, flags & MSG_DONTWAIT);
	struct quic_stream *s;
	int err;

	/* MSG_QUIC_STREAM_NEW opens a stream: one already open is -EEXIST. */
	if ((flags & MSG_QUIC_STREAM_NEW) && id >= 0 && quic_stream_find(sk, id))
		return -EEXIST;
	err = quic_stream_open_wait(sk, id, flags, &timeo, &s);
	if (err)
		return err;
	if (!quic_stream_id_can_send(s->id, qs->is_server))
		return -EINVAL;
	if (s->peel)
		return -EBUSY;		/* it has a file descriptor of its own */
	if (!quic_stream_writable(s))
		return -EPIPE;
	qs->streams.last_send_id = s->id;
	return quic_stream_write(sk, s, msg, len, flags, &timeo);
}

/*
 * write() of a peeled stream's fd (stream_fd.c): as sendmsg() on our
 * stream @id, which must still be open for writing (else -EPIPE).
 */
int quic_stream_send_one(struct sock *sk, u64 id, struct msghdr *msg,
			 size_t len, u32 flags)
{
	long timeo = sock_sndtimeo(sk, flags & MSG_DONTWAIT);
	struct quic_stream *s = quic_stream_find(sk, id);

	if (!s || !quic_stream_id_can_send(id, quic_sk(sk)->is_server) ||
	    !quic_stream_writable(s))
		return -EPIPE;
	return quic_stream_write(sk, s, msg, len, flags, &timeo);
}

/* Copy @len bytes of @s's send data from stream offset @off to @to. */
static int quic_send_copy(struct quic_stream *s, u64 off, u8 *to, u32 len)
{
	struct sk_buff *skb = s->cursor;

	if (!skb || QUIC_SEND_CB(skb)->offset > off)
		skb = skb_peek(&s->send_buf);
	while (len) {
		u64 start, end;
		u32 n;

		if (!skb)
			return -EFAULT;		/* cannot happen: data is kept */
		start = QUIC_SEND_CB(skb)->offset;
		end = start + skb->len;
		if (off >= end) {
			skb = skb_queue_is_last(&s->send_buf, skb) ? NULL :
			      skb_queue_next(&s->send_buf, skb);
			continue;
		}
		if (off < start)
			return -EFAULT;
		n = min_t(u64, len, end - off);
		if (skb_copy_bits(skb, off - start, to, n))
			return -EFAULT;
		s->cursor = skb;
		to += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* Bytes of a STREAM frame header: type, id, offset unless 0, length. */
static u32 quic_stream_hdr_len(u64 id, u64 off)
{
	return 1 + quic_varint_len(id) + (off ? quic_varint_len(off) : 0) + 2;
}

/* Write a STREAM frame of @len bytes at @off; nothing on failure. */
static int quic_put_stream(struct quic_wr *wr, struct quic_stream *s, u64 off,
			   u32 len, bool fin)
{
	u8 type = QUIC_FRAME_STREAM | QUIC_STREAM_BIT_LEN;
	u8 *start = wr->p;

	if (off)
		type |= QUIC_STREAM_BIT_OFF;
	if (fin)
		type |= QUIC_STREAM_BIT_FIN;
	if (quic_wr_u8(wr, type) || quic_wr_varint(wr, s->id) ||
	    (off && quic_wr_varint(wr, off)) ||
	    quic_wr_varint_fixed(wr, len, 2) || quic_wr_left(wr) < len ||
	    quic_send_copy(s, off, wr->p, len)) {
		wr->p = start;
		return -ENOSPC;
	}
	wr->p += len;
	return 0;
}

/* How much of @avail bytes fit after a header of @hdr bytes; 0: none. */
static u32 quic_stream_fit(const struct quic_wr *wr, u32 hdr, u64 avail)
{
	size_t room = quic_wr_left(wr);

	if (room < hdr + min_t(u64, avail, QUIC_STREAM_FRAME_MIN))
		return 0;
	return min_t(u64, avail, min_t(size_t, room - hdr,
				       QUIC_STREAM_FRAME_MAX));
}

/*
 * Nagle's rule (RFC 896), per stream, as TCP applies it unless
 * TCP_NODELAY: new data of @s that would not fill the packet waits while
 * data of @s sent before is unacknowledged, so that small writes go out
 * together once the ACK comes.  QUIC_SOCKOPT_CONFIG's stream_data_nodelay
 * turns it off; FIN sends at once.  A request and its response each leave
 * at once (nothing is in flight on the stream by then: the response
 * carries the ACK of the request).  A PTO probe is never held: with new
 * data queued the probe is that data (quic_retransmit_space()), and were
 * it held, no probe would leave and a lost tail would stall the stream
 * until the idle timeout.
 */
static bool quic_stream_nagle(struct sock *sk, const struct quic_stream *s,
			      const struct quic_wr *wr, u64 avail)
{
	if (quic_sk(sk)->config.stream_data_nodelay || s->fin_written ||
	    quic_sk(sk)->probes)
		return false;
	return s->acked < s->sent &&
	       quic_stream_hdr_len(s->id, s->sent) + avail < quic_wr_left(wr);
}

/* New data (and FIN) of @s into the packet. */
static int quic_stream_fill_new(struct sock *sk, struct quic_stream *s,
				struct quic_wr *wr, struct list_head *sent)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	u64 avail = s->written - s->sent;
	struct quic_frame_tx *f;
	bool fin;
	u32 n;

	if (!avail && (!s->fin_written || s->fin_sent))
		return QUIC_FILL_NONE;
	if (quic_stream_nagle(sk, s, wr, avail))
		return QUIC_FILL_HELD;
	n = quic_stream_fit(wr, quic_stream_hdr_len(s->id, s->sent), avail);
	if (!n && avail)
		return QUIC_FILL_ROOM;
	if (quic_wr_left(wr) < quic_stream_hdr_len(s->id, s->sent))
		return QUIC_FILL_ROOM;
	fin = s->fin_written && s->sent + n == s->written;
	f = quic_frame_tx_alloc(QUIC_FRAME_STREAM, QUIC_CRYPTO_APP, 0);
	if (!f)
		return QUIC_FILL_ROOM;
	if (quic_put_stream(wr, s, s->sent, n, fin)) {
		quic_frame_tx_free(f);
		return QUIC_FILL_ROOM;
	}
	f->stream_id = s->id;
	f->offset = s->sent;
	f->len = n;
	f->fin = fin;
	list_add_tail(&f->list, sent);
	s->sent += n;
	st->sent += n;
	if (fin) {
		s->fin_sent = true;
		s->send_state = QUIC_STREAM_SEND_STATE_SENT;
	}
	return QUIC_FILL_WROTE;
}

/* Encode @fr into the packet and remember it as sent for stream @id. */
static bool quic_put_ctrl(struct quic_wr *wr, struct list_head *sent,
			  const struct quic_frame *fr, u64 id)
{
	struct quic_frame_tx *f;
	int n;

	f = quic_frame_tx_alloc(fr->type, QUIC_CRYPTO_APP, 0);
	if (!f)
		return false;
	n = quic_frame_encode(wr->p, quic_wr_left(wr), fr);
	if (n < 0) {
		quic_frame_tx_free(f);
		return false;
	}
	wr->p += n;
	f->stream_id = id;
	list_add_tail(&f->list, sent);
	return true;
}

/*
 * The connection-level frame for pending bit @bit: false if it is no
 * longer needed (*fr untouched).
 */
static bool quic_conn_ctrl_frame(struct quic_streams *st, u8 bit,
				 struct quic_frame *fr)
{
	switch (bit) {
	case QUIC_CONN_CTRL_MAX_DATA:
		fr->type = QUIC_FRAME_MAX_DATA;
		fr->limit = st->rx.max;
		return true;
	case QUIC_CONN_CTRL_DATA_BLOCKED:
		fr->type = QUIC_FRAME_DATA_BLOCKED;
		fr->limit = st->send_max;
		return st->written >= st->send_max;
	case QUIC_CONN_CTRL_MAX_STREAMS_BIDI:
	case QUIC_CONN_CTRL_MAX_STREAMS_UNI: {
		bool uni = bit == QUIC_CONN_CTRL_MAX_STREAMS_UNI;

		fr->type = uni ? QUIC_FRAME_MAX_STREAMS_UNI :
				 QUIC_FRAME_MAX_STREAMS_BIDI;
		fr->limit = st->peer_max[uni];
		return true;
	}
	case QUIC_CONN_CTRL_STREAMS_BLOCKED_BIDI:
	case QUIC_CONN_CTRL_STREAMS_BLOCKED_UNI: {
		bool uni = bit == QUIC_CONN_CTRL_STREAMS_BLOCKED_UNI;

		fr->type = uni ? QUIC_FRAME_STREAMS_BLOCKED_UNI :
				 QUIC_FRAME_STREAMS_BLOCKED_BIDI;
		fr->limit = st->local_max[uni];
		return st->local_next[uni] >= st->local_max[uni];
	}
	}
	return false;
}

/* The stream-level frame for pending bit @bit of @s, as above. */
static bool quic_stream_ctrl_frame(struct quic_stream *s, u8 bit,
				   struct quic_frame *fr)
{
	bool receiving = s->recv_state == QUIC_STREAM_RECV_STATE_RECV ||
			 s->recv_state == QUIC_STREAM_RECV_STATE_SIZE_KNOWN;

	switch (bit) {
	case QUIC_STREAM_CTRL_MAX_DATA:
		fr->type = QUIC_FRAME_MAX_STREAM_DATA;
		fr->stream_limit.id = s->id;
		fr->stream_limit.limit = s->rx.max;
		return s->recv_state == QUIC_STREAM_RECV_STATE_RECV;
	case QUIC_STREAM_CTRL_BLOCKED:
		fr->type = QUIC_FRAME_STREAM_DATA_BLOCKED;
		fr->stream_limit.id = s->id;
		fr->stream_limit.limit = s->send_max;
		return s->written >= s->send_max &&
		       s->send_state <= QUIC_STREAM_SEND_STATE_SEND;
	case QUIC_STREAM_CTRL_RESET:
		fr->type = QUIC_FRAME_RESET_STREAM;
		fr->reset_stream.id = s->id;
		fr->reset_stream.error_code = s->reset_code;
		fr->reset_stream.final_size = s->sent;
		return s->send_state == QUIC_STREAM_SEND_STATE_RESET_SENT;
	case QUIC_STREAM_CTRL_STOP:
		fr->type = QUIC_FRAME_STOP_SENDING;
		fr->stop_sending.id = s->id;
		fr->stop_sending.error_code = s->stop_code;
		return receiving;
	}
	return false;
}

/* Pending flow-control and stream-state frames.  False: out of room. */
static bool quic_streams_fill_ctrl(struct sock *sk, struct quic_wr *wr,
				   struct list_head *sent, bool *eliciting)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	struct quic_stream *s, *tmp;
	struct quic_frame fr;
	u8 bit;

	while (st->ctrl) {
		bit = st->ctrl & -st->ctrl;
		memset(&fr, 0, sizeof(fr));
		if (quic_conn_ctrl_frame(st, bit, &fr)) {
			if (!quic_put_ctrl(wr, sent, &fr, 0))
				return false;
			*eliciting = true;
			if (bit == QUIC_CONN_CTRL_DATA_BLOCKED)
				st->blocked_at = fr.limit;
			else if (bit == QUIC_CONN_CTRL_STREAMS_BLOCKED_BIDI)
				st->local_blocked[0] = fr.limit;
			else if (bit == QUIC_CONN_CTRL_STREAMS_BLOCKED_UNI)
				st->local_blocked[1] = fr.limit;
		}
		st->ctrl &= ~bit;
	}
	list_for_each_entry_safe(s, tmp, &st->ctrl_list, ctrl_node) {
		while (s->ctrl) {
			bit = s->ctrl & -s->ctrl;
			memset(&fr, 0, sizeof(fr));
			if (quic_stream_ctrl_frame(s, bit, &fr)) {
				if (!quic_put_ctrl(wr, sent, &fr, s->id))
					return false;
				*eliciting = true;
				if (bit == QUIC_STREAM_CTRL_BLOCKED)
					s->blocked_at = fr.stream_limit.limit;
			}
			s->ctrl &= ~bit;
		}
		list_del_init(&s->ctrl_node);
	}
	return true;
}

bool quic_streams_send_pending(struct sock *sk)
{
	struct quic_streams *st = &quic_sk(sk)->streams;

	return st->ctrl || !list_empty(&st->ctrl_list) ||
	       !list_empty(&st->send_list);
}

/*
 * Fill the rest of a 1-RTT packet: control frames, then new stream data,
 * one frame per stream in turn.  Returns whether anything was written.
 */
bool quic_streams_fill(struct sock *sk, struct quic_wr *wr,
		       struct list_head *sent)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	bool eliciting = false;
	struct quic_stream *s;
	LIST_HEAD(held);
	int ret;

	if (!quic_streams_fill_ctrl(sk, wr, sent, &eliciting))
		return eliciting;
	while (!list_empty(&st->send_list)) {
		s = list_first_entry(&st->send_list, struct quic_stream,
				     send_node);
		ret = quic_stream_fill_new(sk, s, wr, sent);
		if (ret == QUIC_FILL_ROOM)
			break;
		if (ret == QUIC_FILL_HELD) {
			list_move_tail(&s->send_node, &held);
			continue;
		}
		if (ret == QUIC_FILL_WROTE)
			eliciting = true;
		if (s->sent == s->written && (!s->fin_written || s->fin_sent))
			list_del_init(&s->send_node);
		else
			list_move_tail(&s->send_node, &st->send_list);
	}
	/* Held streams keep their turn for the next packet. */
	list_splice(&held, &st->send_list);
	return eliciting;
}

/*
 * A queued STREAM frame (a retransmission) into the packet: what is
 * acknowledged meanwhile is trimmed, a frame of a reset or freed stream is
 * dropped, a frame that does not fit whole is split.
 */
enum quic_retx_result quic_stream_fill_retx(struct sock *sk,
					    struct quic_wr *wr,
					    struct quic_frame_tx *f,
					    struct list_head *sent)
{
	struct quic_stream *s = quic_stream_find(sk, f->stream_id);
	struct quic_frame_tx *head = NULL;
	u32 hdr, n;
	bool fin;

	if (!s || s->send_state >= QUIC_STREAM_SEND_STATE_RESET_SENT)
		return QUIC_RETX_DROP;
	if (f->offset < s->acked) {
		u64 d = min_t(u64, s->acked - f->offset, f->len);

		f->offset += d;
		f->len -= d;
	}
	if (!f->len && (!f->fin || s->fin_acked))
		return QUIC_RETX_DROP;
	hdr = quic_stream_hdr_len(s->id, f->offset);
	n = quic_stream_fit(wr, hdr, f->len);
	if ((!n && f->len) || quic_wr_left(wr) < hdr)
		return QUIC_RETX_ROOM;
	fin = f->fin && n == f->len;
	if (n < f->len) {
		head = quic_frame_tx_alloc(QUIC_FRAME_STREAM, QUIC_CRYPTO_APP, 0);
		if (!head)
			return QUIC_RETX_ROOM;
	}
	if (quic_put_stream(wr, s, f->offset, n, fin)) {
		quic_frame_tx_free(head);
		return QUIC_RETX_ROOM;
	}
	if (!head) {
		list_move_tail(&f->list, sent);
		return QUIC_RETX_SENT;
	}
	head->stream_id = f->stream_id;
	head->offset = f->offset;
	head->len = n;
	list_add_tail(&head->list, sent);
	f->offset += n;
	f->len -= n;
	return QUIC_RETX_PART;
}

/*
 * Free the send buffer below the acknowledged prefix.  Writers are woken
 * only if one found the buffer full (SOCK_NOSPACE: quic_stream_wait(),
 * poll()), as TCP does (tcp_check_space()): the socket's one wait queue
 * also holds a reader blocked in recvmsg(), whose entry takes any wake-up,
 * and in request/response the ACK of a request comes with its answer:
 * the reader woke on the ACK, before the answer's data was in, and spun
 * on the socket's lock while the softirq went on with the datagrams.
 */
static void quic_stream_free_acked(struct sock *sk, struct quic_stream *s)
{
	struct sk_buff *skb;
	bool freed = false;

	while ((skb = skb_peek(&s->send_buf)) &&
	       QUIC_SEND_CB(skb)->offset + skb->len <= s->acked) {
		quic_send_skb_free(sk, s, skb);
		freed = true;
	}
	if (freed && sk->sk_socket &&
	    test_and_clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags))
		sk->sk_write_space(sk);
}

/*
 * Note [@start, @end) of @s as acknowledged.  Ranges above a gap are kept
 * in ascending order until the gap fills.  -ENOMEM: could not note it.
 */
static int quic_stream_ack_range(struct sock *sk, struct quic_stream *s,
				 u64 start, u64 end)
{
	struct quic_stream_range *r, *tmp, *n;

	if (end <= s->acked)
		return 0;
	if (start <= s->acked) {
		s->acked = end;
		list_for_each_entry_safe(r, tmp, &s->acked_ranges, list) {
			if (r->start > s->acked)
				break;
			s->acked = max(s->acked, r->end);
			list_del(&r->list);
			quic_obj_free(sk, r, sizeof(*r));
		}
		quic_stream_free_acked(sk, s);
		return 0;
	}
	list_for_each_entry(r, &s->acked_ranges, list) {
		if (end < r->start)
			break;
		if (start <= r->end) {
			r->start = min(r->start, start);
			r->end = max(r->end, end);
			while (!list_is_last(&r->list, &s->acked_ranges)) {
				n = list_next_entry(r, list);
				if (n->start > r->end)
					break;
				r->end = max(r->end, n->end);
				list_del(&n->list);
				quic_obj_free(sk, n, sizeof(*n));
			}
			return 0;
		}
	}
	n = quic_obj_alloc(sk, sizeof(*n), GFP_ATOMIC);
	if (!n)
		return -ENOMEM;
	n->start = start;
	n->end = end;
	list_add_tail(&n->list, &r->list);	/* before r, or at the end */
	return 0;
}

/* A packet carrying @f was acknowledged. */
void quic_stream_frame_acked(struct sock *sk, const struct quic_frame_tx *f)
{
	struct quic_stream *s = quic_stream_find(sk, f->stream_id);

	if (!s)
		return;
	if (f->type == QUIC_FRAME_RESET_STREAM) {
		if (s->send_state == QUIC_STREAM_SEND_STATE_RESET_SENT) {
			s->send_state = QUIC_STREAM_SEND_STATE_RESET_RECVD;
			quic_stream_try_free(sk, s);
		}
		return;
	}
	if (f->type != QUIC_FRAME_STREAM ||
	    s->send_state >= QUIC_STREAM_SEND_STATE_RESET_SENT)
		return;
	if (quic_stream_ack_range(sk, s, f->offset, f->offset + f->len)) {
		/* Not noted: send it again, its ACK will come again. */
		quic_output_requeue(sk, f);
		return;
	}
	if (f->fin)
		s->fin_acked = true;
	if (s->fin_acked && s->acked == s->written &&
	    s->send_state != QUIC_STREAM_SEND_STATE_RECVD) {
		s->send_state = QUIC_STREAM_SEND_STATE_RECVD;
		quic_stream_event(sk, s->id, s->send_state, 0, s->written);
		quic_stream_try_free(sk, s);
	}
}

/*
 * A packet carrying @f was lost.  Flow-control and stream-state frames are
 * not resent as they were: their pending bit is set again, if the frame is
 * still needed, so the current value goes out.  Returns false for other
 * frames, which the caller queues again as they are.
 */
bool quic_stream_frame_lost(struct sock *sk, const struct quic_frame_tx *f)
{
	static const struct {
		u8 type;
		u8 conn_bit;		/* QUIC_CONN_CTRL_*, or 0 */
		u8 stream_bit;		/* QUIC_STREAM_CTRL_*, or 0 */
	} map[] = {
		{ QUIC_FRAME_MAX_DATA, QUIC_CONN_CTRL_MAX_DATA, 0 },
		{ QUIC_FRAME_DATA_BLOCKED, QUIC_CONN_CTRL_DATA_BLOCKED, 0 },
		{ QUIC_FRAME_MAX_STREAMS_BIDI, QUIC_CONN_CTRL_MAX_STREAMS_BIDI, 0 },
		{ QUIC_FRAME_MAX_STREAMS_UNI, QUIC_CONN_CTRL_MAX_STREAMS_UNI, 0 },
		{ QUIC_FRAME_STREAMS_BLOCKED_BIDI,
		  QUIC_CONN_CTRL_STREAMS_BLOCKED_BIDI, 0 },
		{ QUIC_FRAME_STREAMS_BLOCKED_UNI,
		  QUIC_CONN_CTRL_STREAMS_BLOCKED_UNI, 0 },
		{ QUIC_FRAME_MAX_STREAM_DATA, 0, QUIC_STREAM_CTRL_MAX_DATA },
		{ QUIC_FRAME_STREAM_DATA_BLOCKED, 0, QUIC_STREAM_CTRL_BLOCKED },
		{ QUIC_FRAME_RESET_STREAM, 0, QUIC_STREAM_CTRL_RESET },
		{ QUIC_FRAME_STOP_SENDING, 0, QUIC_STREAM_CTRL_STOP },
	};
	struct quic_stream *s;
	int i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		if (map[i].type != f->type)
			continue;
		if (map[i].conn_bit) {
			quic_sk(sk)->streams.ctrl |= map[i].conn_bit;
			return true;
		}
		s = quic_stream_find(sk, f->stream_id);
		if (s)
			quic_stream_set_ctrl(sk, s, map[i].stream_bit);
		return true;
	}
	return false;
}

/* Abandon the send side of @s with @errcode (RFC 9000 §3.1, §19.4). */
static void quic_stream_do_reset(struct sock *sk, struct quic_stream *s,
				 u32 errcode)
{
	struct quic_streams *st = &quic_sk(sk)->streams;

	/* Unsent data never counted against the peer's limits. */
	st->written -= s->written - s->sent;
	s->written = s->sent;
	s->send_state = QUIC_STREAM_SEND_STATE_RESET_SENT;
	s->reset_code = errcode;
	list_del_init(&s->send_node);
	quic_stream_send_free(sk, s);
	quic_stream_set_ctrl(sk, s, QUIC_STREAM_CTRL_RESET);
	sk->sk_write_space(sk);
}

/* QUIC_SOCKOPT_STREAM_RESET */
int quic_stream_reset(struct sock *sk, u64 id, u32 errcode)
{
	struct quic_stream *s = quic_stream_find(sk, id);

	if (!s || !quic_stream_id_can_send(id, quic_sk(sk)->is_server))
		return -EINVAL;
	if (s->send_state > QUIC_STREAM_SEND_STATE_SENT)
		return 0;	/* all acknowledged, or reset already */
	quic_stream_do_reset(sk, s, errcode);
	quic_output(sk);
	return 0;
}

/* STOP_SENDING: the peer wants no more; reset the stream (§3.5). */
int quic_stream_on_stop_sending(struct sock *sk, u64 id, u32 errcode,
				u32 *terr)
{
	struct quic_stream *s = quic_stream_for_frame(sk, id, true, terr);

	if (IS_ERR_OR_NULL(s))
		return PTR_ERR_OR_ZERO(s);
	if (s->send_state > QUIC_STREAM_SEND_STATE_SENT)
		return 0;
	quic_stream_do_reset(sk, s, errcode);
	quic_stream_event(sk, id, QUIC_STREAM_SEND_STATE_RESET_SENT, errcode,
			  s->sent);
	return 0;
}

/* MAX_STREAM_DATA from the peer. */
int quic_stream_on_max_stream_data(struct sock *sk, u64 id, u64 max,
				   u32 *terr)
{
	struct quic_stream_max_data md = { .id = id, .max_data = max };
	struct quic_stream *s = quic_stream_for_frame(sk, id, true, terr);

	if (IS_ERR_OR_NULL(s))
		return PTR_ERR_OR_ZERO(s);
	if (max <= s->send_max)
		return 0;
	s->send_max = max;
	quic_event_queue(sk, QUIC_EVENT_STREAM_MAX_DATA, &md, sizeof(md));
	sk->sk_write_space(sk);
	return 0;
}

/* MAX_DATA from the peer. */
void quic_streams_on_max_data(struct sock *sk, u64 max)
{
	struct quic_streams *st = &quic_sk(sk)->streams;

	if (max <= st->send_max)
		return;
	st->send_max = max;
	sk->sk_write_space(sk);
}

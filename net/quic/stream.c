// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC stream table and stream life cycle (RFC 9000 §2-3): finding a
 * stream by id, opening streams (ours on sendmsg, the peer's on its first
 * frame, with every lower stream of the same type, §3.2), stream limits
 * (MAX_STREAMS, §4.6) and freeing a stream once both of its halves are
 * done.
 *
 * A stream is freed when its send side is done (all data and FIN
 * acknowledged, or RESET_STREAM acknowledged, or it has no send side) and
 * its receive side is done (the user read the FIN, or the stream was
 * reset, or it has no receive side).  Frames that arrive for a freed
 * stream are recognised by its id being below the next one to open, and
 * ignored.
 */

#include <linux/hash.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "socket.h"
#include "stream.h"

void quic_streams_init(struct sock *sk)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	int i;

	memset(st, 0, sizeof(*st));
	st->hash_bits = QUIC_STREAM_HASH_BITS_MIN;
	for (i = 0; i < ARRAY_SIZE(st->hash_small); i++)
		INIT_HLIST_HEAD(&st->hash_small[i]);
	INIT_LIST_HEAD(&st->send_list);
	INIT_LIST_HEAD(&st->ctrl_list);
	INIT_LIST_HEAD(&st->read_list);
	st->last_send_id = -1;
	st->blocked_at = U64_MAX;
	st->local_blocked[0] = U64_MAX;
	st->local_blocked[1] = U64_MAX;
}

static void quic_stream_destroy(struct sock *sk, struct quic_stream *s)
{
	hlist_del(&s->node);
	list_del(&s->send_node);
	list_del(&s->ctrl_node);
	list_del(&s->read_node);
	quic_stream_send_free(sk, s);
	quic_stream_recv_free(sk, s);
	quic_sk(sk)->streams.count--;
	quic_obj_free(sk, s, sizeof(*s));
}

void quic_streams_free(struct sock *sk)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	struct quic_stream *s;
	struct hlist_node *tmp;
	int i;

	for (i = 0; i < quic_streams_buckets(st); i++)
		hlist_for_each_entry_safe(s, tmp, quic_streams_bucket(st, i),
					  node)
			quic_stream_destroy(sk, s);
	if (st->hash)
		quic_obj_free(sk, st->hash, sizeof(*st->hash) << st->hash_bits);
	st->hash = NULL;
	st->hash_bits = QUIC_STREAM_HASH_BITS_MIN;
}

/*
 * Two streams a bucket: the table doubles, up to QUIC_STREAM_HASH_BITS_MAX
 * bits; the streams a peer opens are bounded by the MAX_STREAMS we give.
 * Without memory the chains grow longer instead.
 */
static void quic_streams_grow(struct sock *sk, gfp_t gfp)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	u32 i, bits = st->hash_bits + 1;
	struct hlist_head *tab;
	struct hlist_node *tmp;
	struct quic_stream *s;

	if (st->hash_bits >= QUIC_STREAM_HASH_BITS_MAX ||
	    st->count < 2 * quic_streams_buckets(st))
		return;
	tab = quic_obj_alloc(sk, sizeof(*tab) << bits, gfp);
	if (!tab)
		return;
	for (i = 0; i < (1U << bits); i++)
		INIT_HLIST_HEAD(&tab[i]);
	for (i = 0; i < quic_streams_buckets(st); i++)
		hlist_for_each_entry_safe(s, tmp, quic_streams_bucket(st, i),
					  node) {
			hlist_del(&s->node);
			hlist_add_head(&s->node, &tab[hash_64(s->id, bits)]);
		}
	if (st->hash)
		quic_obj_free(sk, st->hash, sizeof(*tab) << st->hash_bits);
	st->hash = tab;
	st->hash_bits = bits;
}

/*
 * Both transport parameters are known: stream limits and windows.  Called
 * when the peer's parameters arrive, before any stream exists.
 */
void quic_streams_set_params(struct sock *sk,
			     const struct quic_transport_params *local,
			     const struct quic_transport_params *peer)
{
	struct quic_streams *st = &quic_sk(sk)->streams;

	if (st->count)
		return;
	st->local_max[0] = peer->initial_max_streams_bidi;
	st->local_max[1] = peer->initial_max_streams_uni;
	st->peer_max[0] = local->initial_max_streams_bidi;
	st->peer_max[1] = local->initial_max_streams_uni;
	st->peer_window[0] = st->peer_max[0];
	st->peer_window[1] = st->peer_max[1];
	st->send_max = peer->initial_max_data;
	st->rx.max = local->initial_max_data;
	st->rx_window = local->initial_max_data;
	st->ready = true;
}

struct quic_stream *quic_stream_find(struct sock *sk, u64 id)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	struct hlist_head *head;
	struct quic_stream *s;

	head = quic_streams_bucket(st, hash_64(id, st->hash_bits));
	hlist_for_each_entry(s, head, node)
		if (s->id == id)
			return s;
	return NULL;
}

/* A new stream with the limits the transport parameters give it. */
static struct quic_stream *quic_stream_new(struct sock *sk, u64 id, gfp_t gfp)
{
	struct quic_sock *qs = quic_sk(sk);
	const struct quic_transport_params *lt = &qs->local_tp, *pt = &qs->peer_tp;
	bool local = quic_stream_id_is_local(id, qs->is_server);
	bool uni = quic_stream_id_is_uni(id);
	struct quic_stream *s;

	s = quic_obj_alloc(sk, sizeof(*s), gfp);
	if (!s)
		return NULL;
	s->id = id;
	INIT_LIST_HEAD(&s->send_node);
	INIT_LIST_HEAD(&s->ctrl_node);
	INIT_LIST_HEAD(&s->read_node);
	INIT_LIST_HEAD(&s->acked_ranges);
	__skb_queue_head_init(&s->send_buf);
	__skb_queue_head_init(&s->ready);
	s->ooo = RB_ROOT;
	s->blocked_at = U64_MAX;

	if (quic_stream_id_can_send(id, qs->is_server)) {
		s->send_state = QUIC_STREAM_SEND_STATE_READY;
		s->send_max = uni ? pt->initial_max_stream_data_uni :
			      local ? pt->initial_max_stream_data_bidi_remote :
				      pt->initial_max_stream_data_bidi_local;
	} else {
		s->send_state = QUIC_STREAM_SEND_STATE_RECVD;	/* nothing to do */
	}
	if (quic_stream_id_can_recv(id, qs->is_server)) {
		s->recv_state = QUIC_STREAM_RECV_STATE_RECV;
		s->window = uni ? lt->initial_max_stream_data_uni :
			    local ? lt->initial_max_stream_data_bidi_local :
				    lt->initial_max_stream_data_bidi_remote;
		s->rx.max = s->window;
	} else {
		s->recv_state = QUIC_STREAM_RECV_STATE_READ;	/* nothing to do */
		s->fin_read = true;
	}
	quic_streams_grow(sk, gfp);
	hlist_add_head(&s->node,
		       quic_streams_bucket(&qs->streams,
					   hash_64(id, qs->streams.hash_bits)));
	qs->streams.count++;
	return s;
}

bool quic_stream_can_open(struct sock *sk, bool uni)
{
	struct quic_streams *st = &quic_sk(sk)->streams;

	return st->local_next[uni] < st->local_max[uni];
}

/*
 * A stream of ours for sendmsg: @id, or the next one of its type when @id
 * is -1.  -EAGAIN when the peer's MAX_STREAMS does not allow it yet (and a
 * STREAMS_BLOCKED is queued), -EINVAL for an id that is not ours to open
 * or was closed.
 */
int quic_stream_open_local(struct sock *sk, s64 id, bool uni,
			   struct quic_stream **out)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_streams *st = &qs->streams;
	struct quic_stream *s;
	u64 index;

	if (!st->ready)
		return -ENOTCONN;
	if (id >= 0) {
		s = quic_stream_find(sk, id);
		if (s) {
			*out = s;
			return 0;
		}
		/* Peer streams are opened by the peer; a gone one is gone. */
		if (!quic_stream_id_is_local(id, qs->is_server) ||
		    id > QUIC_VARINT_MAX)
			return -EINVAL;
		uni = quic_stream_id_is_uni(id);
		index = quic_stream_id_index(id);
		if (index < st->local_next[uni])
			return -EINVAL;
	} else {
		index = st->local_next[uni];
		id = quic_stream_id_make(index, qs->is_server, uni);
	}
	if (index >= st->local_max[uni]) {
		if (st->local_blocked[uni] != st->local_max[uni])
			st->ctrl |= uni ? QUIC_CONN_CTRL_STREAMS_BLOCKED_UNI :
					  QUIC_CONN_CTRL_STREAMS_BLOCKED_BIDI;
		return -EAGAIN;
	}
	s = quic_stream_new(sk, id, sk->sk_allocation);
	if (!s)
		return -ENOBUFS;
	st->local_next[uni] = index + 1;
	*out = s;
	return 0;
}

/*
 * The stream a received frame names.  Returns the stream; NULL for a
 * stream that was closed and freed (the frame is ignored); or an error
 * pointer with *terr set: a stream of ours not opened yet is
 * STREAM_STATE_ERROR, a peer stream above our MAX_STREAMS is
 * STREAM_LIMIT_ERROR (§4.6).
 */
struct quic_stream *quic_stream_get_peer(struct sock *sk, u64 id, u32 *terr)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_streams *st = &qs->streams;
	bool uni = quic_stream_id_is_uni(id);
	u64 index = quic_stream_id_index(id), i;
	struct quic_stream *s;

	s = quic_stream_find(sk, id);
	if (s)
		return s;
	if (!st->ready) {
		*terr = QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
		return ERR_PTR(-EPROTO);
	}
	if (quic_stream_id_is_local(id, qs->is_server)) {
		if (index >= st->local_next[uni]) {
			*terr = QUIC_TRANSPORT_ERROR_STREAM_STATE;
			return ERR_PTR(-EPROTO);
		}
		return NULL;
	}
	if (index < st->peer_next[uni])
		return NULL;
	if (index >= st->peer_max[uni]) {
		*terr = QUIC_TRANSPORT_ERROR_STREAM_LIMIT;
		return ERR_PTR(-EPROTO);
	}
	/* Opening it opens every lower stream of its type (§3.2). */
	for (i = st->peer_next[uni]; i <= index; i++) {
		s = quic_stream_new(sk, quic_stream_id_make(i, !qs->is_server,
							    uni), GFP_ATOMIC);
		if (!s)
			return ERR_PTR(-ENOMEM);
		st->peer_next[uni] = i + 1;
	}
	return s;
}

/*
 * The stream a frame about our send side (@send) or receive side names, as
 * quic_stream_get_peer(); a stream without that side is
 * STREAM_STATE_ERROR (§19.4, §19.5, §19.8, §19.10, §19.13).
 */
struct quic_stream *quic_stream_for_frame(struct sock *sk, u64 id, bool send,
					  u32 *terr)
{
	bool is_server = quic_sk(sk)->is_server;

	if (send ? !quic_stream_id_can_send(id, is_server) :
		   !quic_stream_id_can_recv(id, is_server)) {
		*terr = QUIC_TRANSPORT_ERROR_STREAM_STATE;
		return ERR_PTR(-EPROTO);
	}
	return quic_stream_get_peer(sk, id, terr);
}

void quic_stream_set_ctrl(struct sock *sk, struct quic_stream *s, u8 bits)
{
	s->ctrl |= bits;
	if (list_empty(&s->ctrl_node))
		list_add_tail(&s->ctrl_node, &quic_sk(sk)->streams.ctrl_list);
}

/*
 * A peer stream is gone: let the peer open another.  MAX_STREAMS goes out
 * once a quarter of the window has come free, not for every stream.
 */
static void quic_streams_peer_closed(struct sock *sk, bool uni)
{
	struct quic_streams *st = &quic_sk(sk)->streams;
	u64 max, step = max_t(u64, st->peer_window[uni] / 4, 1);

	st->peer_closed[uni]++;
	max = st->peer_closed[uni] + st->peer_window[uni];
	if (max > QUIC_MAX_STREAMS_LIMIT)
		max = QUIC_MAX_STREAMS_LIMIT;
	if (max >= st->peer_max[uni] + step) {
		st->peer_max[uni] = max;
		st->ctrl |= uni ? QUIC_CONN_CTRL_MAX_STREAMS_UNI :
				  QUIC_CONN_CTRL_MAX_STREAMS_BIDI;
	}
}

static bool quic_stream_send_done(const struct quic_stream *s)
{
	return s->send_state == QUIC_STREAM_SEND_STATE_RECVD ||
	       s->send_state == QUIC_STREAM_SEND_STATE_RESET_RECVD;
}

static bool quic_stream_recv_done(const struct quic_stream *s)
{
	return s->recv_state == QUIC_STREAM_RECV_STATE_READ ||
	       s->recv_state == QUIC_STREAM_RECV_STATE_RESET_READ;
}

/* Free @s if both halves are done; @s must not be used afterwards. */
void quic_stream_try_free(struct sock *sk, struct quic_stream *s)
{
	struct quic_sock *qs = quic_sk(sk);
	u64 id = s->id;

	if (!quic_stream_send_done(s) || !quic_stream_recv_done(s))
		return;
	if (qs->streams.last_send_id == (s64)id)
		qs->streams.last_send_id = -1;
	quic_stream_destroy(sk, s);
	if (!quic_stream_id_is_local(id, qs->is_server))
		quic_streams_peer_closed(sk, quic_stream_id_is_uni(id));
}

/* MAX_STREAMS from the peer: more streams of ours may open. */
void quic_streams_on_max_streams(struct sock *sk, bool uni, u64 max)
{
	struct quic_streams *st = &quic_sk(sk)->streams;

	if (max <= st->local_max[uni])
		return;
	st->local_max[uni] = max;
	quic_event_queue(sk, QUIC_EVENT_STREAM_MAX_STREAM, &max, sizeof(max));
	sk->sk_write_space(sk);
}

/* QUIC_EVENT_STREAM_UPDATE, if the user asked for it. */
void quic_stream_event(struct sock *sk, u64 id, u8 state, u32 errcode,
		       u64 final_size)
{
	struct quic_stream_update up = {
		.id = id,
		.state = state,
		.errcode = errcode,
		.finalsz = final_size,
	};

	quic_event_queue(sk, QUIC_EVENT_STREAM_UPDATE, &up, sizeof(up));
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC streams (RFC 9000 §2-4): the per-connection stream table, each
 * stream's send and receive state, and connection-level flow control.
 *
 * Send side: what the user writes is kept in the stream's send_buf (skbs
 * with page fragments, charged to sk_wmem_queued) from the first
 * unacknowledged byte on; STREAM frames in flight refer to it by offset, so
 * a lost frame is rebuilt from the buffer.  Receive side: data in order
 * waits in the stream's ready queue for recvmsg(), data out of order in its
 * ooo queue; both are charged to sk_rmem_alloc.
 *
 * Flow-control and stream-limit frames (MAX_DATA, MAX_STREAM_DATA,
 * MAX_STREAMS, the *_BLOCKED frames, RESET_STREAM, STOP_SENDING) are not
 * queued as bytes: a pending bit says one is due, and the packet builder
 * writes the value current at that time.  A lost one sets its bit again.
 *
 * Locking: everything here is protected by the socket lock.
 */

#ifndef _NET_QUIC_STREAM_H
#define _NET_QUIC_STREAM_H

#include <linux/list.h>
#include <linux/skbuff.h>
#include <linux/types.h>

#include "flow.h"
#include "stream_id.h"

struct sock;
struct msghdr;
struct iov_iter;
struct quic_wr;
struct quic_frame_tx;
struct quic_transport_params;

/*
 * Streams by ID: a table of 2^QUIC_STREAM_HASH_BITS_MIN buckets inside
 * struct quic_streams, as most connections have a few streams, that
 * doubles once it holds two streams a bucket, up to
 * 2^QUIC_STREAM_HASH_BITS_MAX buckets (2 KiB) charged to the socket.
 */
#define QUIC_STREAM_HASH_BITS_MIN	2
#define QUIC_STREAM_HASH_BITS_MAX	8

/* Control frames a stream owes the peer (quic_stream.ctrl). */
enum {
	QUIC_STREAM_CTRL_MAX_DATA	= BIT(0),	/* MAX_STREAM_DATA */
	QUIC_STREAM_CTRL_BLOCKED	= BIT(1),	/* STREAM_DATA_BLOCKED */
	QUIC_STREAM_CTRL_RESET		= BIT(2),	/* RESET_STREAM */
	QUIC_STREAM_CTRL_STOP		= BIT(3),	/* STOP_SENDING */
};

/* Control frames the connection owes the peer (quic_streams.ctrl). */
enum {
	QUIC_CONN_CTRL_MAX_DATA		= BIT(0),
	QUIC_CONN_CTRL_DATA_BLOCKED	= BIT(1),
	QUIC_CONN_CTRL_MAX_STREAMS_BIDI	= BIT(2),
	QUIC_CONN_CTRL_MAX_STREAMS_UNI	= BIT(3),
	QUIC_CONN_CTRL_STREAMS_BLOCKED_BIDI = BIT(4),
	QUIC_CONN_CTRL_STREAMS_BLOCKED_UNI = BIT(5),
};

/* Who reads and writes a stream (quic_stream.peel, stream_fd.c). */
enum {
	QUIC_STREAM_PEEL_NONE,		/* the socket: recvmsg() and sendmsg() */
	QUIC_STREAM_PEEL_OPEN,		/* its own file descriptor */
	QUIC_STREAM_PEEL_CLOSED,	/* nobody: that fd closed, data dropped */
};

/* A range of a stream's send data acknowledged above its acked prefix. */
struct quic_stream_range {
	struct list_head	list;
	u64			start;
	u64			end;	/* exclusive */
};

struct quic_stream {
	struct hlist_node	node;		/* in quic_streams.hash */
	struct list_head	send_node;	/* in quic_streams.send_list */
	struct list_head	ctrl_node;	/* in quic_streams.ctrl_list */
	struct list_head	read_node;	/* in quic_streams.read_list */
	u64			id;
	u8			ctrl;		/* QUIC_STREAM_CTRL_* due */
	u8			peel;		/* QUIC_STREAM_PEEL_* */

	/* Send side (unused on a unidirectional stream the peer opened). */
	u8			send_state;	/* QUIC_STREAM_SEND_STATE_* */
	bool			fin_written;	/* final size = written */
	bool			fin_sent;	/* a FIN went out (maybe lost) */
	bool			fin_acked;
	u64			send_max;	/* the peer's MAX_STREAM_DATA */
	u64			written;	/* bytes the user wrote */
	u64			sent;		/* next new byte to send */
	u64			acked;		/* all below acknowledged, freed */
	u64			blocked_at;	/* STREAM_DATA_BLOCKED limit sent */
	struct list_head	acked_ranges;	/* quic_stream_range above acked */
	struct sk_buff_head	send_buf;	/* data from acked on */
	struct sk_buff		*cursor;	/* send_buf skb last copied from */
	u32			reset_code;	/* RESET_STREAM error code */

	/* Receive side (unused on a unidirectional stream we opened). */
	u8			recv_state;	/* QUIC_STREAM_RECV_STATE_* */
	bool			fin_read;	/* the user got the FIN */
	struct quic_flow_stream_rx rx;	/* advertised limit, final size */
	u64			window;		/* MAX_STREAM_DATA window */
	u64			delivered;	/* bytes in order (ready or read) */
	u64			read;		/* bytes the user read */
	struct sk_buff_head	ready;		/* in order, for recvmsg */
	struct rb_root		ooo;		/* out of order, by offset */
	u32			stop_code;	/* STOP_SENDING error code */
};

struct quic_streams {
	struct hlist_head	*hash;		/* a larger table, or NULL */
	struct hlist_head	hash_small[1 << QUIC_STREAM_HASH_BITS_MIN];
	struct list_head	send_list;	/* streams with new data to send */
	struct list_head	ctrl_list;	/* streams with ctrl bits set */
	struct list_head	read_list;	/* streams recvmsg can read */
	u32			count;
	u8			ctrl;		/* QUIC_CONN_CTRL_* due */
	u8			hash_bits;	/* of the table in use */
	bool			ready;		/* transport parameters known */
	s64			last_send_id;	/* default for sendmsg, -1 none */

	/* Streams we open, [0] bidirectional, [1] unidirectional. */
	u64			local_next[2];	/* index of the next one */
	u64			local_max[2];	/* the peer's MAX_STREAMS */
	u64			local_blocked[2]; /* STREAMS_BLOCKED limit sent */
	/* Streams the peer opens. */
	u64			peer_next[2];	/* index of the lowest unopened */
	u64			peer_max[2];	/* MAX_STREAMS we gave */
	u64			peer_closed[2];	/* how many of them are gone */
	u64			peer_window[2];	/* initial MAX_STREAMS */

	/* Connection flow control, send: the peer's MAX_DATA. */
	u64			send_max;
	u64			sent;		/* new stream bytes sent */
	u64			written;	/* stream bytes users wrote */
	u64			blocked_at;	/* DATA_BLOCKED limit sent */
	/* ... receive: what we advertised and what arrived. */
	struct quic_flow_conn_rx rx;
	u64			rx_window;
	u64			rx_read;	/* bytes the user consumed */
	/* Out-of-order data held by all streams: bytes, and their truesize. */
	u64			ooo_len;
	u64			ooo_mem;
};

static inline u32 quic_streams_buckets(const struct quic_streams *st)
{
	return 1U << st->hash_bits;
}

static inline struct hlist_head *quic_streams_bucket(struct quic_streams *st,
						     u32 i)
{
	return &(st->hash ?: st->hash_small)[i];
}

/* What became of a queued STREAM frame offered to a packet. */
enum quic_retx_result {
	QUIC_RETX_DROP,		/* no longer needed: free it */
	QUIC_RETX_ROOM,		/* does not fit: stays queued */
	QUIC_RETX_SENT,		/* moved to the packet's frames */
	QUIC_RETX_PART,		/* its head went; the rest stays queued */
};

/* stream.c: table, life cycle, limits */
void quic_streams_init(struct sock *sk);
void quic_streams_free(struct sock *sk);
void quic_streams_set_params(struct sock *sk,
			     const struct quic_transport_params *local,
			     const struct quic_transport_params *peer);
struct quic_stream *quic_stream_find(struct sock *sk, u64 id);
int quic_stream_open_local(struct sock *sk, s64 id, bool uni,
			   struct quic_stream **out);
struct quic_stream *quic_stream_get_peer(struct sock *sk, u64 id,
					 u32 *terr);
struct quic_stream *quic_stream_for_frame(struct sock *sk, u64 id, bool send,
					  u32 *terr);
void quic_stream_try_free(struct sock *sk, struct quic_stream *s);
bool quic_stream_can_open(struct sock *sk, bool uni);
void quic_stream_set_ctrl(struct sock *sk, struct quic_stream *s, u8 bits);
void quic_streams_on_max_streams(struct sock *sk, bool uni, u64 max);
void quic_stream_event(struct sock *sk, u64 id, u8 state, u32 errcode,
		       u64 final_size);

/* stream_send.c: the send side */

/*
 * The stream_flags a stream opened without sending takes (STREAM_OPEN,
 * STREAM_PEELOFF): the type of the next stream, and no wait for MAX_STREAMS.
 */
#define QUIC_STREAM_OPEN_FLAGS	(MSG_QUIC_STREAM_UNI | MSG_QUIC_STREAM_DONTWAIT)

int quic_stream_open_user(struct sock *sk, s64 id, u32 flags, bool nonblock,
			  s64 *opened);
int quic_stream_sendmsg(struct sock *sk, struct msghdr *msg, size_t len,
			s64 id, u32 flags);
bool quic_streams_send_pending(struct sock *sk);
bool quic_streams_fill(struct sock *sk, struct quic_wr *wr,
		       struct list_head *sent);
enum quic_retx_result quic_stream_fill_retx(struct sock *sk,
					    struct quic_wr *wr,
					    struct quic_frame_tx *f,
					    struct list_head *sent);
void quic_stream_frame_acked(struct sock *sk, const struct quic_frame_tx *f);
bool quic_stream_frame_lost(struct sock *sk, const struct quic_frame_tx *f);
int quic_stream_reset(struct sock *sk, u64 id, u32 errcode);
void quic_streams_on_max_data(struct sock *sk, u64 max);
int quic_stream_on_max_stream_data(struct sock *sk, u64 id, u64 max,
				   u32 *terr);
int quic_stream_on_stop_sending(struct sock *sk, u64 id, u32 errcode,
				u32 *terr);
void quic_stream_send_free(struct sock *sk, struct quic_stream *s);
bool quic_streams_writable(const struct sock *sk);
int quic_stream_send_one(struct sock *sk, u64 id, struct msghdr *msg,
			 size_t len, u32 flags);
bool quic_stream_send_ready(struct sock *sk, u64 id);
/* Has the wait for a sendmsg() condition come to an end? */
typedef bool (*quic_send_cond)(struct sock *sk, s64 arg);
/* Also for datagrams (datagram.c). */
int quic_stream_wait(struct sock *sk, long *timeo, quic_send_cond cond,
		     s64 arg);
bool quic_streams_unacked(struct sock *sk);

/* stream_recv.c: the receive side */
int quic_stream_rcv(struct sock *sk, struct sk_buff *skb, u64 id, u64 offset,
		    const u8 *data, u64 len, bool fin, u32 *terr);
int quic_stream_on_reset(struct sock *sk, u64 id, u64 errcode,
			 u64 final_size, u32 *terr);
int quic_stream_stop_sending(struct sock *sk, u64 id, u32 errcode);
int quic_stream_recvmsg(struct sock *sk, struct msghdr *msg, size_t len,
			int flags);
void quic_stream_recv_free(struct sock *sk, struct quic_stream *s);
int quic_stream_recv_one(struct sock *sk, u64 id, struct iov_iter *to);
bool quic_stream_recv_ready(struct sock *sk, u64 id);
void quic_stream_recv_discard(struct sock *sk, struct quic_stream *s);

#endif /* _NET_QUIC_STREAM_H */

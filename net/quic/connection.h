/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC connection state carried by each connected socket: packet-number
 * spaces, CRYPTO streams, frames queued and in flight, and the hooks the
 * receive path, transmit path and timers call.
 *
 * Locking: all of it is protected by the socket lock.  Softirq code (UDP
 * receive, timers) takes bh_lock_sock() and, when a user holds the socket,
 * defers its work to release_cb (receive: the socket backlog; timers: the
 * deferred bits below).
 */

#ifndef _NET_QUIC_CONNECTION_H
#define _NET_QUIC_CONNECTION_H

#include <linux/list.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include <net/tcp_states.h>

#include "ack_ranges.h"
#include "ackdelay.h"
#include "packet_header.h"
#include "reasm.h"
#include "recovery.h"

struct sock;
union quic_addr;

/*
 * Connection states, kept in sk->sk_state with TCP's numbers so that the
 * generic socket code (poll, inet_sk_state_load) reads them sensibly.
 */
enum quic_state {
	QUIC_SS_CLOSED		= TCP_CLOSE,
	QUIC_SS_LISTENING	= TCP_LISTEN,
	QUIC_SS_CONNECTING	= TCP_SYN_SENT,		/* handshake running */
	QUIC_SS_ESTABLISHED	= TCP_ESTABLISHED,
	QUIC_SS_CLOSING		= TCP_CLOSING,		/* we sent CONNECTION_CLOSE */
	QUIC_SS_DRAINING	= TCP_CLOSE_WAIT,	/* the peer did */
};

/* The largest UDP payload we send: a 1500-byte MTU less IPv6 and UDP. */
#define QUIC_MAX_DATAGRAM	1452

/* The biggest amount of CRYPTO data we keep per level (RFC 9000 §7.5). */
#define QUIC_CRYPTO_BUF_MAX	(64 * 1024)

/* Received CRYPTO data of one level, reassembled for recvmsg. */

/* CRYPTO data of one level written by the user, kept until the level ends. */
struct quic_crypto_tx {
	u8			*buf;
	u32			len;		/* bytes written by the user */
	u32			cap;
	u32			sent;		/* next new byte to send */
};

/*
 * A frame queued for sending or carried by a packet in flight.  CRYPTO and
 * STREAM frames refer to their send buffer by offset; flow-control and
 * stream-state frames (stream.h) only name their type and stream, the
 * value is written when a packet is built; other control frames carry
 * their encoding in raw[].
 */
struct quic_frame_tx {
	struct list_head	list;
	u8			type;		/* QUIC_FRAME_*, STREAM for all 0x08-0x0f */
	u8			level;		/* enum quic_crypto_level */
	bool			fin;		/* STREAM */
	u16			len;		/* CRYPTO, STREAM: data bytes */
	u16			raw_len;	/* bytes in raw[] */
	u64			offset;		/* CRYPTO, STREAM */
	u64			stream_id;	/* STREAM and stream frames */
	u8			raw[];		/* control frames, encoded */
};

/* A packet we sent that carried something to acknowledge. */
struct quic_sent_pkt {
	struct list_head	list;		/* in its space, ascending pn */
	struct list_head	frames;		/* struct quic_frame_tx */
	struct quic_sent_meta	meta;
	bool			ect0;		/* sent ECT(0) (ecn.h) */
};

/* One packet-number space (RFC 9000 §12.3); 0-RTT shares the APP one. */
struct quic_space {
	u64			next_pn;
	u64			largest_acked;	/* QUIC_PN_NONE: none yet */
	u64			largest_rx;	/* QUIC_PN_NONE: none yet */
	u64			largest_rx_time;
	struct quic_ack_ranges	rx;		/* packet numbers received */
	struct quic_ack_timing	ack;		/* when our ACK is due */
	struct list_head	sent;		/* struct quic_sent_pkt */
	struct list_head	acked;		/* newly acked, while an ACK is processed */
	u64			last_eliciting_time;
	struct list_head	frames;		/* struct quic_frame_tx, to send */
	struct quic_reasm	crypto_rx;	/* its base: next to recvmsg() */
	struct quic_crypto_tx	crypto_tx;
	/* Together at the end, without holes: there are three spaces. */
	u32			in_flight;	/* ack-eliciting packets unacked */
	bool			ack_pending;	/* an ACK must go out now */
	bool			discarded;	/* keys gone: nothing more here */
};

/* What a receive-queue skb holds, for recvmsg. */
enum quic_rcv_kind {
	QUIC_RCV_HANDSHAKE,	/* CRYPTO data; level gives the level */
	QUIC_RCV_STREAM,
	QUIC_RCV_DATAGRAM,
	QUIC_RCV_EVENT,
};

struct quic_rcv_cb {
	u8	kind;		/* enum quic_rcv_kind */
	u8	level;
	u32	flags;		/* MSG_QUIC_STREAM_FIN ... */
	s64	stream_id;
	u64	offset;		/* CRYPTO or STREAM offset of skb->data */
};

#define QUIC_RCV_CB(skb)	((struct quic_rcv_cb *)&((skb)->cb[0]))

/*
 * Bits of quic_sock.deferred (atomic bitops).  The first ones are timer
 * work deferred to release_cb when a user held the socket, each holding a
 * socket reference until run.  The others hold none: the receive work
 * deferred to a reader (input.c, "Receiving in the reader's context").
 */
enum quic_deferred {
	QUIC_DEFER_RETRANSMIT,
	QUIC_DEFER_IDLE,
	QUIC_DEFER_CLOSE,
	QUIC_DEFER_ACK,
	QUIC_DEFER_PACE,
	QUIC_DEFER_KEY,
	/* Datagrams from the backlog processed, not yet answered. */
	QUIC_DEFER_INPUT,
	/* A reader sleeps in recvmsg(): set and cleared by it, locked. */
	QUIC_RX_WAIT_RECV,
	/* A poll() for POLLIN found nothing: set by it, without the lock. */
	QUIC_RX_WAIT_POLL,
	/*
	 * Softirq processes a train under bh_lock_sock() (udp.c): stream data
	 * wake-ups wait for its end (quic_rx_data_ready()).  Set and cleared
	 * within one hold of the spinlock, so no other context sees it.
	 */
	QUIC_RX_BATCH,
	/* Of that train, readable data arrived: one wake-up is owed. */
	QUIC_RX_WAKE_OWED,
};

static inline u8 quic_space_of_level(u8 level)
{
	switch (level) {
	case QUIC_CRYPTO_INITIAL:
		return QUIC_PN_SPACE_INITIAL;
	case QUIC_CRYPTO_HANDSHAKE:
		return QUIC_PN_SPACE_HANDSHAKE;
	default:
		return QUIC_PN_SPACE_APP;
	}
}

static inline u8 quic_level_of_space(u8 space)
{
	switch (space) {
	case QUIC_PN_SPACE_INITIAL:
		return QUIC_CRYPTO_INITIAL;
	case QUIC_PN_SPACE_HANDSHAKE:
		return QUIC_CRYPTO_HANDSHAKE;
	default:
		return QUIC_CRYPTO_APP;
	}
}

/*
 * A user's close code that is a CRYPTO_ERROR, 0x100 to 0x1ff (RFC 9001
 * §4.8: a TLS alert), is sent as a transport error; any other is an
 * application's.
 */
static inline bool quic_conn_is_crypto_error(u32 errcode)
{
	return (errcode & ~0xffU) == QUIC_TRANSPORT_ERROR_CRYPTO;
}

/* connection.c */
void quic_conn_init(struct sock *sk);
void quic_conn_free(struct sock *sk);
void quic_set_state(struct sock *sk, int state);
int quic_conn_connect(struct sock *sk, const union quic_addr *peer);
int quic_conn_inherit(struct sock *lsk, struct sock *sk);
void quic_conn_local_tp_changed(struct sock *sk);
int quic_conn_accept(struct sock *sk, struct sk_buff *skb);
void quic_conn_established(struct sock *sk);
void quic_conn_close(struct sock *sk, u32 errcode, u8 frame_type,
		     bool app);
void quic_conn_close_user(struct sock *sk);
void quic_conn_abort(struct sock *sk, u32 errcode, u8 frame_type);
void quic_conn_closing_rcv(struct sock *sk);
void quic_conn_close_pending(struct sock *sk);
void quic_conn_discard_space(struct sock *sk, u8 space);
void quic_space_rx_grow(struct sock *sk, struct quic_space *space);
void quic_conn_peer_closed(struct sock *sk, u64 errcode, u64 frame_type,
			   const u8 *reason, u64 reason_len);
void quic_conn_end(struct sock *sk, int err);
void quic_conn_idle_timeout(struct sock *sk);
u64 quic_now(void);

/* crypto_frames.c */
void quic_crypto_frames_init(struct quic_space *space);
void quic_crypto_frames_rx_free(struct sock *sk, struct quic_space *space);
void quic_crypto_frames_tx_release(struct quic_space *space);
void quic_crypto_frames_free(struct sock *sk, struct quic_space *space);
int quic_crypto_frames_write(struct sock *sk, u8 level, struct msghdr *msg,
			     size_t len);
int quic_crypto_frames_rcv(struct sock *sk, u8 level, u64 offset,
			   const u8 *data, u64 len, u32 *terr);

/* input.c */
int quic_input(struct sock *sk, struct sk_buff *skb);
bool quic_input_one(struct sock *sk, struct sk_buff *skb);
void quic_input_done(struct sock *sk);
int quic_listen_rcv(struct sock *sk, struct sk_buff *skb);
int quic_backlog_rcv(struct sock *sk, struct sk_buff *skb);
void quic_input_flush(struct sock *sk);

/* Where softirq takes a datagram for a socket no user owns (input.c). */
enum quic_rx_where {
	QUIC_RX_HERE,	/* processed at once */
	QUIC_RX_BEHIND,	/* to the backlog, behind what waits there */
	QUIC_RX_WAKE,	/* to the backlog, and the reader is woken */
};

struct poll_table_struct;

enum quic_rx_where quic_rx_where(struct sock *sk, bool train);
void quic_rx_wake(struct sock *sk);
void quic_rx_data_ready(struct sock *sk);
void quic_rx_batch_begin(struct sock *sk);
void quic_rx_batch_end(struct sock *sk);
struct sk_buff *quic_rx_backlog_detach(struct sock *sk);
void quic_rx_drain_bh(struct sock *sk);
void quic_rx_wait(struct sock *sk, long *timeo);
void quic_rx_poll_drain(struct sock *sk);
void quic_rx_poll_wait(struct sock *sk, struct poll_table_struct *wait);
void quic_input_hold_retry(struct sock *sk);

/* output.c */
void quic_output_requeue(struct sock *sk, const struct quic_frame_tx *f);
void quic_output(struct sock *sk);
bool quic_output_pending(struct sock *sk);
int quic_output_ctrl(struct sock *sk, u8 level, const u8 *raw, u16 len,
		     u8 type);
void quic_output_ack_now(struct sock *sk, u8 space);
void quic_output_close(struct sock *sk, bool app);
void quic_frames_free(struct list_head *frames);
void quic_sent_free(struct quic_space *space);
struct quic_frame_ack;
void quic_on_ack(struct sock *sk, u8 space, const struct quic_frame_ack *ack);
void quic_on_ack_done(struct sock *sk, u8 space,
		      const struct quic_frame_ack *ack);
void quic_retransmit_space(struct sock *sk, u8 space, bool pto);

/* timer.c */
int quic_timer_wq_init(void);
void quic_timer_wq_exit(void);
void quic_timers_init(struct sock *sk);
void quic_timers_stop(struct sock *sk);
void quic_timer_rearm(struct sock *sk);
void quic_timer_close(struct sock *sk, u64 delay_us);
void quic_timer_ack(struct sock *sk, u64 deadline);
void quic_timer_release_orphan(struct sock *sk);
void quic_timer_pace(struct sock *sk, u64 when);
void quic_timer_key(struct sock *sk, u64 deadline);
void quic_queue_work(struct sock *sk, struct work_struct *work);
void quic_release_cb(struct sock *sk);

#endif /* _NET_QUIC_CONNECTION_H */

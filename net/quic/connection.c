// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC connection life cycle: set-up on connect() and on accept(), the
 * handshake milestones, discarding Initial and Handshake state, and close.
 * Every function here runs with the socket lock held.
 */

#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "compatvn.h"
#include "retry.h"
#include "socket.h"
#include "udp.h"

/* Microseconds on the monotonic clock; never 0, which recovery reads as unset. */
u64 quic_now(void)
{
	return div_u64(ktime_get_ns(), NSEC_PER_USEC) + 1;
}

void quic_set_state(struct sock *sk, int state)
{
	int old = sk->sk_state;

	inet_sk_set_state(sk, state);
	if (old != state)
		sk->sk_state_change(sk);
}

/*
 * Process context, keys_work: free what the Initial and Handshake spaces
 * that quic_conn_discard_space() gave up still hold: their keys, their
 * handshake bytes and queued frames.
 */
static void quic_conn_keys_work(struct work_struct *work)
{
	struct quic_sock *qs = container_of(work, struct quic_sock, keys_work);
	struct sock *sk = &qs->inet.sk;
	struct quic_space *space;
	u8 id;

	lock_sock(sk);
	for (id = QUIC_PN_SPACE_INITIAL; id < QUIC_PN_SPACE_APP; id++) {
		space = &qs->space[id];
		if (!space->discarded)
			continue;
		quic_crypto_discard(&qs->crypto, quic_level_of_space(id));
		quic_crypto_frames_tx_release(space);
		quic_frames_free(&space->frames);
	}
	release_sock(sk);
	sock_put(sk);		/* quic_queue_work()'s */
}

static void quic_space_init(struct quic_space *space)
{
	memset(space, 0, sizeof(*space));
	space->largest_acked = QUIC_PN_NONE;
	space->largest_rx = QUIC_PN_NONE;
	quic_ack_ranges_init(&space->rx);
	INIT_LIST_HEAD(&space->sent);
	INIT_LIST_HEAD(&space->acked);
	INIT_LIST_HEAD(&space->frames);
	quic_crypto_frames_init(space);
}

/*
 * A gap in the space's received packet numbers: its ACK ranges move from
 * the two inline ones to QUIC_ACK_RANGES_MAX (ack_ranges.h), charged to
 * the socket.  Once per space, so a peer gets no more than that; without
 * memory the set stays small and drops its lowest range, as a full one
 * does.  Socket lock held (the receive path).
 */
void quic_space_rx_grow(struct sock *sk, struct quic_space *space)
{
	struct quic_range *ext;

	ext = quic_obj_alloc(sk, QUIC_ACK_RANGES_MAX * sizeof(*ext),
			     GFP_ATOMIC);
	if (ext)
		quic_ack_ranges_grow(&space->rx, ext);
}

static void quic_space_free(struct sock *sk, struct quic_space *space)
{
	quic_obj_free(sk, quic_ack_ranges_ext(&space->rx),
		      QUIC_ACK_RANGES_MAX * sizeof(struct quic_range));
	quic_ack_ranges_init(&space->rx);
	quic_sent_free(space);
	quic_frames_free(&space->frames);
	quic_crypto_frames_free(sk, space);
}

/* Our transport parameters before the application changes any. */
static void quic_local_tp_defaults(struct quic_transport_params *tp)
{
	quic_tp_init(tp);
	quic_tp_set(tp, QUIC_TPB_MAX_IDLE_TIMEOUT, 30000);
	quic_tp_set(tp, QUIC_TPB_MAX_UDP_PAYLOAD_SIZE, 1472);
	quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_DATA, 8 << 20);
	quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL, 2 << 20);
	quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE, 2 << 20);
	quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_STREAM_DATA_UNI, 2 << 20);
	quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_STREAMS_BIDI, 100);
	quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_STREAMS_UNI, 100);
	quic_tp_set(tp, QUIC_TPB_ACTIVE_CONNECTION_ID_LIMIT, 4);
}

/* Congestion window, pacer and loss thresholds of a connection starting. */
static int quic_conn_recovery_init(struct quic_sock *qs,
				   enum quic_cong_algo algo)
{
	int err = quic_cong_init(&qs->cong, algo, qs->max_datagram);

	if (err)
		return err;
	qs->cong.hystart_off = !READ_ONCE(sysctl_quic_hystart);
	quic_pacer_init(&qs->pacer, quic_cong_initial_window(qs->max_datagram));
	quic_reorder_init(&qs->reorder);
	if (qs->lost_log)
		quic_lost_log_init(qs->lost_log);
	return 0;
}

void quic_conn_init(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	int i;

	qs->version = QUIC_VERSION_V1;
	qs->config.version = QUIC_VERSION_V1;
	/* The sysctl's (CUBIC) unless QUIC_SOCKOPT_CONFIG says otherwise. */
	qs->config.congestion_control_algo = sysctl_quic_congestion_control;
	qs->max_datagram = QUIC_MIN_UDP_PAYLOAD;
	quic_cid_set_init(&qs->cids);
	quic_crypto_ctx_init(&qs->crypto);
	for (i = 0; i < QUIC_PN_SPACE_MAX; i++) {
		quic_space_init(&qs->space[i]);
		quic_ack_timing_init(&qs->space[i].ack, i, 0);
	}
	quic_local_tp_defaults(&qs->local_tp);
	quic_version_tp_defaults(&qs->local_tp);
	quic_tp_init(&qs->peer_tp);
	quic_rtt_init(&qs->rtt, QUIC_K_INITIAL_RTT);
	quic_ld_init(&qs->ld, false, QUIC_DEF_MAX_ACK_DELAY_MS * 1000ULL);
	quic_conn_recovery_init(qs, QUIC_CONG_ALG_RENO);
	quic_idle_init(&qs->idle, quic_now());
	quic_amp_init(&qs->amp, true);
	quic_streams_init(sk);
	quic_timers_init(sk);
	quic_key_update_init(sk);
	quic_retry_init(sk);
	quic_compat_init(sk);
	quic_early_data_sock_init(sk);
	INIT_WORK(&qs->keys_work, quic_conn_keys_work);
	quic_pmtud_init(sk);
	quic_path_init(sk);
}

void quic_conn_free(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	int i;

	quic_timers_stop(sk);
	quic_path_free(sk);
	quic_key_update_free(sk);
	quic_retry_free(sk);
	quic_compat_free(sk);
	quic_early_data_sock_free(sk);
	if (cancel_work_sync(&qs->keys_work))
		__sock_put(sk);	/* the reference of the work not run */
	quic_streams_free(sk);
	quic_obj_free(sk, qs->lost_log, sizeof(*qs->lost_log));
	qs->lost_log = NULL;
	quic_cid_set_free(sk, &qs->cids);
	for (i = 0; i < QUIC_PN_SPACE_MAX; i++)
		quic_space_free(sk, &qs->space[i]);
	quic_crypto_ctx_free(&qs->crypto);
	memzero_explicit(&qs->local_tp.stateless_reset_token,
			 sizeof(qs->local_tp.stateless_reset_token));
}

/*
 * Our windows must fit the receive buffer: data is charged with its skb
 * overhead, about twice its size, so the connection window is at most
 * half of it, and no stream window is above the connection's.
 */
static void quic_conn_fit_windows(struct sock *sk)
{
	struct quic_transport_params *tp = &quic_sk(sk)->local_tp;
	u64 max = READ_ONCE(sk->sk_rcvbuf) / 2;

	if (tp->initial_max_data > max)
		quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_DATA, max);
	max = tp->initial_max_data;
	if (tp->initial_max_stream_data_bidi_local > max)
		quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL, max);
	if (tp->initial_max_stream_data_bidi_remote > max)
		quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE,
			    max);
	if (tp->initial_max_stream_data_uni > max)
		quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_STREAM_DATA_UNI, max);
}

/* What a connection takes from our transport parameters. */
static void quic_conn_apply_local_tp(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	int i;

	quic_conn_fit_windows(sk);
	/*
	 * Acknowledge within half of the max_ack_delay we announce: the
	 * timer runs on jiffies, and a late ACK costs the peer a PTO.
	 */
	for (i = 0; i < QUIC_PN_SPACE_MAX; i++)
		qs->space[i].ack.max_ack_delay =
			qs->local_tp.max_ack_delay * USEC_PER_MSEC / 2;
}

/*
 * The user changed our transport parameters after connect() or accept(),
 * before they were sent (sockopt.c): the connection follows them, and so
 * do the streams' limits if the peer's parameters are in already.
 */
void quic_conn_local_tp_changed(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	quic_conn_apply_local_tp(sk);
	if (qs->peer_tp_set) {
		quic_idle_set_timeout(&qs->idle,
				      qs->local_tp.max_idle_timeout * USEC_PER_MSEC,
				      qs->peer_tp.max_idle_timeout * USEC_PER_MSEC);
		quic_ld_set_idle_timeout(&qs->ld, qs->idle.timeout);
		quic_streams_set_params(sk, &qs->local_tp, &qs->peer_tp);
	}
}

/* Both ends: the CIDs and keys every new connection starts with. */
static int quic_conn_setup(struct sock *sk, const struct quic_cid *dcid,
			   const struct quic_cid *odcid)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_cid scid;
	int err;

	quic_conn_apply_local_tp(sk);
	err = quic_crypto_set_version(&qs->crypto, qs->version);
	if (err)
		return err;
	err = quic_cid_new_scid(sk, &qs->cids, &scid);
	if (err)
		return err;
	err = quic_cid_add_dcid(sk, &qs->cids, dcid, 0, NULL);
	if (err)
		return err;
	qs->odcid = *odcid;
	err = quic_crypto_set_initial(&qs->crypto, odcid->data, odcid->len,
				      qs->is_server);
	if (err)
		return err;

	qs->local_tp.initial_scid = scid;
	quic_tp_mark(&qs->local_tp, QUIC_TPB_INITIAL_SCID);
	quic_version_tp_start(sk);
	if (qs->is_server) {
		qs->local_tp.original_dcid = *odcid;
		quic_tp_mark(&qs->local_tp, QUIC_TPB_ORIGINAL_DCID);
	}
	quic_ld_init(&qs->ld, qs->is_server, qs->ld.max_ack_delay);
	/* QUIC_SOCKOPT_CONFIG's initial_smoothed_rtt, or kInitialRtt if 0. */
	quic_rtt_init(&qs->rtt, qs->config.initial_smoothed_rtt);
	err = quic_conn_recovery_init(qs, qs->config.congestion_control_algo);
	if (err)
		return err;
	quic_amp_init(&qs->amp, !qs->is_server);
	quic_idle_init(&qs->idle, quic_now());
	quic_set_state(sk, QUIC_SS_CONNECTING);
	return 0;
}

/*
 * Client: choose the connection IDs and derive the Initial keys; the first
 * flight leaves when libquic writes the ClientHello.
 */
int quic_conn_connect(struct sock *sk, const union quic_addr *peer)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_cid dcid;

	qs->is_server = false;
	qs->peer = *peer;
	if (qs->config.version)
		qs->version = qs->config.version;
	/* RFC 9000 §7.2: at least 8 unpredictable bytes. */
	quic_cid_random(&dcid, 8);
	return quic_conn_setup(sk, &dcid, &dcid);
}

/*
 * Server: the new socket @sk takes the address and settings of the
 * listener @lsk, whose lock is held.  @sk is not reachable by anyone else
 * yet, so it needs no lock of its own (socket.c, quic_accept_one()).
 * Fails only without memory for the ALPN list.
 */
int quic_conn_inherit(struct sock *lsk, struct sock *sk)
{
	struct quic_sock *lqs = quic_sk(lsk), *qs = quic_sk(sk);

	qs->local = lqs->local;
	qs->udp = lqs->udp;
	quic_udp_sock_hold(qs->udp);
	qs->config = lqs->config;
	qs->local_tp = lqs->local_tp;
	qs->events = lqs->events;
	/* So do its SO_MARK and SO_BINDTODEVICE (udp.c's routes). */
	WRITE_ONCE(sk->sk_mark, READ_ONCE(lsk->sk_mark));
	WRITE_ONCE(sk->sk_bound_dev_if, READ_ONCE(lsk->sk_bound_dev_if));
	/* Buffer sizes the user set on the listener carry over. */
	sk->sk_userlocks = lsk->sk_userlocks;
	WRITE_ONCE(sk->sk_sndbuf, READ_ONCE(lsk->sk_sndbuf));
	WRITE_ONCE(sk->sk_rcvbuf, READ_ONCE(lsk->sk_rcvbuf));
	/*
	 * The listener's session ticket key (made now if it has none), so
	 * that a ticket issued on one of its connections resumes on another.
	 * Without memory, the connection makes its own when it is asked.
	 */
	if (!quic_ticket_key_make(lsk)) {
		u8 *key = kmemdup(lqs->ticket, lqs->ticket_len, GFP_KERNEL);

		if (key)
			quic_ticket_set(sk, key, lqs->ticket_len);
	}
	inet_sk(sk)->inet_sport = inet_sk(lsk)->inet_sport;
	inet_sk(sk)->inet_num = inet_sk(lsk)->inet_num;
	quic_path_inherit(lsk, sk);	/* the preferred address */
	return quic_alpn_set(sk, lqs->alpn);
}

/*
 * Server: @sk, set up by quic_conn_inherit(), becomes the connection whose
 * first datagram is @skb, and processes it.  Consumes @skb.  An error
 * means there is no connection to hand to accept(): -EBADMSG if no packet
 * of the datagram was authentic, -ECONNABORTED if it closed the connection.
 */
int quic_conn_accept(struct sock *sk, struct sk_buff *skb)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_cid odcid, dcid;
	struct quic_hdr hdr;
	int err;

	err = quic_hdr_parse(skb->data, skb->len, QUIC_SCID_LEN, &hdr);
	if (!err && hdr.type != QUIC_PKT_INITIAL)
		err = -EPROTO;
	if (err)
		goto drop;

	qs->is_server = true;
	qs->version = hdr.version;
	qs->peer = QUIC_INPUT_CB(skb)->peer;
	/* Answer from the address the client wrote to, not the wildcard. */
	if (qs->local.sa.sa_family == AF_INET)
		qs->local.v4.sin_addr.s_addr = QUIC_INPUT_CB(skb)->local_ip.v4;
	else if (qs->peer.sa.sa_family == AF_INET6)
		qs->local.v6.sin6_addr = QUIC_INPUT_CB(skb)->local_ip.v6;
	else
		ipv6_addr_set_v4mapped(QUIC_INPUT_CB(skb)->local_ip.v4,
				       &qs->local.v6.sin6_addr);

	odcid = hdr.dcid;
	dcid = hdr.scid;
	qs->peer_scid = hdr.scid;
	qs->peer_scid_set = true;
	err = quic_conn_setup(sk, &dcid, &odcid);
	if (err)
		goto drop;
	/* Retransmitted client Initials still carry the original DCID. */
	err = quic_cid_add_scid(sk, &qs->cids, &odcid);
	if (err && err != -EEXIST)
		goto drop;
	err = quic_path_pref_start(sk);	/* path.c */
	if (err)
		goto drop;
	/* A token: the address is validated, and after Retry, the ODCID. */
	quic_retry_conn_accept(sk, &hdr, &qs->peer);
	err = quic_input(sk, skb);
	if (err)
		return err;
	/*
	 * Only a connection whose first datagram held an authentic Initial
	 * that broke no rule is handed to accept(): one that decrypted
	 * nothing (forged, or corrupted on the way) goes without a word,
	 * and one that broke a rule closes as it began to; neither costs
	 * the application a handshake.
	 */
	if (sk->sk_state != QUIC_SS_CONNECTING)
		return -ECONNABORTED;
	if (qs->space[QUIC_PN_SPACE_INITIAL].largest_rx == QUIC_PN_NONE) {
		quic_set_state(sk, QUIC_SS_CLOSED);
		return -EBADMSG;
	}
	return 0;

drop:
	kfree_skb(skb);
	return err;
}

/*
 * The datagram size after the handshake: DPLPMTUD's (pmtud.c), or without
 * it the route's, at most QUIC_MAX_DATAGRAM.
 */
static void quic_conn_set_datagram_size(struct sock *sk)
{
	quic_pmtud_start(sk);
}

/* Both APP secrets are installed: libquic says the handshake is done. */
void quic_conn_established(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	static const u8 handshake_done = QUIC_FRAME_HANDSHAKE_DONE;

	if (qs->handshake_done)
		return;
	qs->handshake_done = true;
	/* No longer a pending connection of the listener (socket.c). */
	quic_pending_done(sk);
	quic_conn_set_datagram_size(sk);
	quic_set_state(sk, QUIC_SS_ESTABLISHED);
	if (qs->is_server) {
		/* RFC 9001 §4.1.2: complete means confirmed, for a server. */
		qs->handshake_confirmed = true;
		qs->ld.handshake_confirmed = true;
		quic_output_ctrl(sk, QUIC_CRYPTO_APP, &handshake_done, 1,
				 QUIC_FRAME_HANDSHAKE_DONE);
		/* RFC 9000 §8.1.3: a token for the client's next connection. */
		if (READ_ONCE(sysctl_quic_new_token))
			quic_new_token_send(sk);
		quic_conn_discard_space(sk, QUIC_PN_SPACE_HANDSHAKE);
	}
}

/*
 * Stop using a space (RFC 9001 §4.9): no more packets are sent or accepted
 * in it, and what it had in flight no longer counts.  Its keys (AEAD and
 * header protection transforms, a generic GHASH table of 4 kB each) are
 * freed by keys_work: this may run in softirq context, where transforms
 * may not be freed.  Until then the space's discarded flag keeps every
 * path off them; after, the level is not ready and has no keys (crypto.c).
 */
void quic_conn_discard_space(struct sock *sk, u8 space_id)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *space = &qs->space[space_id];
	struct quic_sent_pkt *p;

	if (space->discarded)
		return;
	space->discarded = true;
	list_for_each_entry(p, &space->sent, list)
		quic_cong_on_packet_removed(&qs->cong, &p->meta);
	quic_sent_free(space);
	quic_crypto_frames_rx_free(sk, space);
	quic_ld_discard_space(&qs->ld, space_id);
	quic_timer_rearm(sk);
	if (space_id != QUIC_PN_SPACE_APP)
		quic_queue_work(sk, &qs->keys_work);
}

/* RFC 9000 §10.2: closing and draining last three times the PTO. */
static u64 quic_closing_period(const struct quic_sock *qs)
{
	return 3 * quic_pto_duration(&qs->rtt, 0, QUIC_PN_SPACE_APP);
}

/*
 * Close the connection from our side (RFC 9000 §10.2): send
 * CONNECTION_CLOSE, then stay in the closing state for three PTOs.
 */
void quic_conn_close(struct sock *sk, u32 errcode, u8 frame_type, bool app)
{
	struct quic_sock *qs = quic_sk(sk);
	int state = sk->sk_state;

	if (state != QUIC_SS_CONNECTING && state != QUIC_SS_ESTABLISHED)
		return;
	qs->close_info.errcode = errcode;
	qs->close_info.frame = frame_type;
	qs->close_app = app;
	qs->closing_rx = 0;
	/* Closing first: the close packet carries nothing else. */
	quic_set_state(sk, QUIC_SS_CLOSING);
	quic_output_close(sk, app);
	quic_timer_close(sk, quic_closing_period(qs));
}

/*
 * Close the connection because of an error the peer made (a transport
 * error code), or one of ours (INTERNAL_ERROR): the user learns it as
 * EPROTO, or ECONNABORTED, once the data already received has been read;
 * QUIC_SOCKOPT_CONNECTION_CLOSE tells the code sent.
 */
void quic_conn_abort(struct sock *sk, u32 errcode, u8 frame_type)
{
	int state = sk->sk_state;

	if (state != QUIC_SS_CONNECTING && state != QUIC_SS_ESTABLISHED)
		return;
	/* The error before the state, so that whoever wakes sees both. */
	WRITE_ONCE(sk->sk_err, errcode == QUIC_TRANSPORT_ERROR_INTERNAL ?
		   ECONNABORTED : EPROTO);
	sk->sk_shutdown = SHUTDOWN_MASK;
	quic_conn_close(sk, errcode, frame_type, false);
	sk_error_report(sk);
	sk->sk_write_space(sk);
}

/*
 * The close the user asked for (close(), shutdown()): the error set with
 * QUIC_SOCKOPT_CONNECTION_CLOSE, an application close unless it carries a
 * TLS alert (a CRYPTO_ERROR, which is a transport error).  Only the
 * transport CONNECTION_CLOSE (0x1c) has a frame type (RFC 9000 §19.19):
 * the user's goes there; sockopt.c refuses one that would make an
 * application close.
 */
void quic_conn_close_user(struct sock *sk)
{
	const struct quic_connection_close *ci = &quic_sk(sk)->close_info;
	bool app = !quic_conn_is_crypto_error(ci->errcode);

	quic_conn_close(sk, ci->errcode, app ? 0 : ci->frame, app);
}

/*
 * A datagram for a connection in the closing state (RFC 9000 §10.2.1):
 * answer with CONNECTION_CLOSE again, for the 1st, 2nd, 4th, 8th ...
 * datagram, so that the answers cannot be used to amplify.
 */
void quic_conn_closing_rcv(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	qs->closing_rx++;
	if (!(qs->closing_rx & (qs->closing_rx - 1)))
		quic_output_close(sk, qs->close_app);
}

/*
 * The peer closed (RFC 9000 §10.2.2): drain.  Reads return what is
 * buffered, then end of file after a close with no error, or ECONNRESET
 * after a close with one; writes fail with EPIPE.
 */
void quic_conn_peer_closed(struct sock *sk, u64 errcode, u64 frame_type,
			   const u8 *reason, u64 reason_len)
{
	struct quic_sock *qs = quic_sk(sk);
	size_t n = min_t(u64, reason_len, QUIC_CLOSE_PHRASE_BUFFER_SIZE - 1);

	if (sk->sk_state == QUIC_SS_DRAINING || sk->sk_state == QUIC_SS_CLOSED)
		return;
	qs->close_info.errcode = (u32)min_t(u64, errcode, U32_MAX);
	qs->close_info.frame = (u8)min_t(u64, frame_type, U8_MAX);
	memset(qs->close_info.phrase, 0, sizeof(qs->close_info.phrase));
	memcpy(qs->close_info.phrase, reason, n);
	/* The error before the state, so that whoever wakes sees both. */
	if (errcode)
		WRITE_ONCE(sk->sk_err, ECONNRESET);
	sk->sk_shutdown = SHUTDOWN_MASK;
	quic_set_state(sk, QUIC_SS_DRAINING);
	quic_event_queue(sk, QUIC_EVENT_CONNECTION_CLOSE, &qs->close_info,
			 sizeof(qs->close_info));
	if (errcode)
		sk_error_report(sk);
	sk->sk_write_space(sk);
	quic_timer_close(sk, quic_closing_period(qs));
}

/*
 * End the connection at once, with no closing or draining period and
 * nothing sent: a stateless reset came (ECONNRESET, RFC 9000 §10.3), or a
 * client's Version Negotiation (EPROTONOSUPPORT).  Reads and writes fail
 * with @err.
 */
void quic_conn_end(struct sock *sk, int err)
{
	/* The error before the state, so that whoever wakes sees both. */
	WRITE_ONCE(sk->sk_err, err);
	sk->sk_shutdown = SHUTDOWN_MASK;
	quic_set_state(sk, QUIC_SS_CLOSED);
	sk_error_report(sk);
	sk->sk_write_space(sk);
	quic_timers_stop(sk);
	quic_timer_release_orphan(sk);
}

/* Silent close on idle timeout (RFC 9000 §10.1). */
void quic_conn_idle_timeout(struct sock *sk)
{
	/* The error before the state, so that whoever wakes sees both. */
	WRITE_ONCE(sk->sk_err, ETIMEDOUT);
	quic_set_state(sk, QUIC_SS_CLOSED);
	sk_error_report(sk);
	quic_timers_stop(sk);
	quic_timer_release_orphan(sk);
}

/*
 * A socket closed by its user while stream data was unacknowledged sends
 * it all first (quic_sock_close()); once the peer has it, the connection
 * closes as close() would have.
 */
void quic_conn_close_pending(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	if (!qs->close_pending || quic_streams_unacked(sk))
		return;
	qs->close_pending = false;
	quic_conn_close_user(sk);
}

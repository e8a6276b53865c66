// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC receive path: a UDP datagram for this socket is split into its
 * coalesced packets; each is unprotected, checked against the packets
 * already seen, and its frames are processed.
 *
 * Runs with the socket lock held: from the UDP receive path under
 * bh_lock_sock() when no user holds the socket, otherwise from the socket
 * backlog when the user releases it; and from the backlog in the reader's
 * context when a reader waits (below, "Receiving in the reader's
 * context").  Packets that cannot be processed are
 * dropped silently with a counter; protocol errors in authenticated packets
 * close the connection with the transport error the decoder reported.
 */

#include <linux/poll.h>
#include <net/sock.h>

#include "frame.h"
#include "compatvn.h"
#include "retry.h"
#include "socket.h"
#include "udp.h"
#include "varint.h"
#include "version.h"

/*
 * Datagrams of a level whose keys are not installed yet are kept a while:
 * a few, and only so many bytes of them, since anyone can send them.
 */
#define QUIC_HOLD_MAX	16
#define QUIC_HOLD_BYTES	(32 * 1024)

static u8 quic_level_of_type(u8 type)
{
	switch (type) {
	case QUIC_PKT_INITIAL:
		return QUIC_CRYPTO_INITIAL;
	case QUIC_PKT_HANDSHAKE:
		return QUIC_CRYPTO_HANDSHAKE;
	case QUIC_PKT_0RTT:
		return QUIC_CRYPTO_EARLY;
	default:
		return QUIC_CRYPTO_APP;
	}
}

/* Keep a packet (and what follows it in the datagram) until keys arrive. */
static void quic_input_hold(struct sock *sk, struct sk_buff *skb,
			    unsigned int off)
{
	struct quic_sock *qs = quic_sk(sk);
	unsigned int len = skb->len - off, held = 0;
	struct sk_buff *copy;

	skb_queue_walk(&qs->hold_queue, copy)
		held += copy->len;
	if (skb_queue_len(&qs->hold_queue) >= QUIC_HOLD_MAX ||
	    held + len > QUIC_HOLD_BYTES) {
		QUIC_DROP(sk, HOLD_FULL);
		return;
	}
	/* Only the bytes still to process, with who sent them. */
	copy = alloc_skb(len, GFP_ATOMIC);
	if (!copy)
		return;
	skb_put_data(copy, skb->data + off, len);
	*QUIC_INPUT_CB(copy) = *QUIC_INPUT_CB(skb);
	__skb_queue_tail(&qs->hold_queue, copy);
}

/* New keys are in: run the held packets again. */
void quic_input_hold_retry(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct sk_buff_head q;
	struct sk_buff *skb;

	__skb_queue_head_init(&q);
	skb_queue_splice_init(&qs->hold_queue, &q);
	while ((skb = __skb_dequeue(&q)))
		quic_input(sk, skb);
}

/* An ACK frame, in a packet opened with @keys (1-RTT: which phase's). */
static int quic_rcv_ack(struct sock *sk, u8 space_id, u8 keys,
			const struct quic_frame_ack *ack, u32 *terr)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *space = &qs->space[space_id];
	bool app = space_id == QUIC_PN_SPACE_APP;

	if (space->next_pn == 0 || ack->largest >= space->next_pn) {
		*terr = QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
		return -EPROTO;	/* acknowledges a packet we never sent */
	}
	if (app && !quic_key_update_ack_allowed(sk, keys, ack->largest)) {
		*terr = QUIC_TRANSPORT_ERROR_KEY_UPDATE;
		return -EPROTO;	/* our update seen, not followed */
	}
	quic_on_ack(sk, space_id, ack);
	quic_on_ack_done(sk, space_id, ack);
	if (app)
		quic_key_update_on_ack(sk, ack->largest);
	return 0;
}

/* Frames of streams and flow control (RFC 9000 §19.4-19.14). */
static int quic_rcv_stream_frame(struct sock *sk, struct sk_buff *skb,
				 const struct quic_frame *f, u32 *terr)
{
	switch (f->type) {
	case QUIC_FRAME_RESET_STREAM:
		return quic_stream_on_reset(sk, f->reset_stream.id,
					    f->reset_stream.error_code,
					    f->reset_stream.final_size, terr);
	case QUIC_FRAME_STOP_SENDING:
		return quic_stream_on_stop_sending(sk, f->stop_sending.id,
			(u32)min_t(u64, f->stop_sending.error_code, U32_MAX),
			terr);
	case QUIC_FRAME_MAX_DATA:
		quic_streams_on_max_data(sk, f->limit);
		return 0;
	case QUIC_FRAME_MAX_STREAM_DATA:
		return quic_stream_on_max_stream_data(sk, f->stream_limit.id,
						      f->stream_limit.limit,
						      terr);
	case QUIC_FRAME_MAX_STREAMS_BIDI:
	case QUIC_FRAME_MAX_STREAMS_UNI:
		quic_streams_on_max_streams(sk, f->type ==
					    QUIC_FRAME_MAX_STREAMS_UNI,
					    f->limit);
		return 0;
	case QUIC_FRAME_STREAM_DATA_BLOCKED: {
		struct quic_stream *s;

		/*
		 * Only checked and counted: our updates follow what the user
		 * reads.
		 */
		s = quic_stream_for_frame(sk, f->stream_limit.id, false, terr);
		if (IS_ERR(s))
			return PTR_ERR(s);
		QUIC_INC_STATS(STREAM_BLOCKED_RX, 1);
		return 0;
	}
	case QUIC_FRAME_DATA_BLOCKED:
		QUIC_INC_STATS(DATA_BLOCKED_RX, 1);
		return 0;
	case QUIC_FRAME_STREAMS_BLOCKED_BIDI:
	case QUIC_FRAME_STREAMS_BLOCKED_UNI:
		return 0;
	}
	return quic_stream_rcv(sk, skb, f->stream.id, f->stream.offset,
			       f->stream.data, f->stream.len,
			       f->type & QUIC_STREAM_BIT_FIN, terr);
}

static int quic_rcv_frame(struct sock *sk, struct sk_buff *skb, u8 level,
			  u8 keys, const struct quic_frame *f, u32 *terr)
{
	struct quic_sock *qs = quic_sk(sk);
	u8 space_id = quic_space_of_level(level);

	if (quic_frame_is_stream(f->type) ||
	    (f->type >= QUIC_FRAME_RESET_STREAM &&
	     f->type <= QUIC_FRAME_STOP_SENDING) ||
	    (f->type >= QUIC_FRAME_MAX_DATA &&
	     f->type <= QUIC_FRAME_STREAMS_BLOCKED_UNI))
		return quic_rcv_stream_frame(sk, skb, f, terr);

	switch (f->type) {
	case QUIC_FRAME_PADDING:
	case QUIC_FRAME_PING:
		return 0;
	case QUIC_FRAME_ACK:
	case QUIC_FRAME_ACK_ECN:
		return quic_rcv_ack(sk, space_id, keys, &f->ack, terr);
	case QUIC_FRAME_CRYPTO:
		quic_early_data_hello(sk, level, f->crypto.offset,
				      f->crypto.data, f->crypto.len);
		return quic_crypto_frames_rcv(sk, level, f->crypto.offset,
					      f->crypto.data, f->crypto.len,
					      terr);
	case QUIC_FRAME_HANDSHAKE_DONE:
		/* RFC 9001 §4.1.2: the client's handshake is confirmed. */
		if (!qs->handshake_confirmed) {
			qs->handshake_confirmed = true;
			qs->ld.handshake_confirmed = true;
			quic_conn_discard_space(sk, QUIC_PN_SPACE_HANDSHAKE);
			quic_path_pref_migrate(sk);	/* path.c */
		}
		return 0;
	case QUIC_FRAME_CONNECTION_CLOSE:
	case QUIC_FRAME_CONNECTION_CLOSE_APP:
		quic_conn_peer_closed(sk, f->close.error_code,
				      f->close.frame_type, f->close.reason,
				      f->close.reason_len);
		return 0;
	case QUIC_FRAME_NEW_CONNECTION_ID:
		return quic_cid_new_cid_rcv(sk, f->new_cid.seq,
					    f->new_cid.retire_prior_to,
					    &f->new_cid.cid, f->new_cid.token,
					    terr);
	case QUIC_FRAME_PATH_CHALLENGE:
		quic_path_on_challenge(sk, skb, f->path_data);	/* path.c */
		return 0;
	case QUIC_FRAME_PATH_RESPONSE:
		quic_path_on_response(sk, f->path_data);
		return 0;
	case QUIC_FRAME_RETIRE_CONNECTION_ID:
		return quic_cid_retire_rcv(sk, f->retire_seq, terr);
	case QUIC_FRAME_ACK_FREQUENCY:
	case QUIC_FRAME_IMMEDIATE_ACK:
		/* ack-frequency §3: only to who advertised min_ack_delay. */
		if (!qs->local_tp.min_ack_delay)
			goto violation;
		return 0;
	case QUIC_FRAME_NEW_TOKEN:
		/* Only a client gets here (frame.c); retry.c keeps it. */
		return quic_new_token_rcv(sk, f->new_token.token,
					  f->new_token.len);
	case QUIC_FRAME_DATAGRAM:
	case QUIC_FRAME_DATAGRAM_LEN:
		/*
		 * RFC 9221 §3: only as large as we advertised, and not at all
		 * if we did not.  One record for recvmsg() (datagram.c).
		 */
		if (1 + f->datagram.len +
		    (f->type == QUIC_FRAME_DATAGRAM_LEN ?
		     quic_varint_len(f->datagram.len) : 0) >
		    qs->local_tp.max_datagram_frame_size)
			goto violation;
		return quic_datagram_rcv(sk, f->datagram.data, f->datagram.len);
	default:
		return 0;
	}

violation:
	*terr = QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
	return -EPROTO;
}

/* When to acknowledge (RFC 9000 §13.2.1): now, or within max_ack_delay. */
static void quic_rcv_ack_timing(struct sock *sk, struct quic_space *space,
				u64 pn, bool eliciting, bool ce)
{
	struct quic_ack_rx rx = { .pn = pn, .ack_eliciting = eliciting,
				  .ecn_ce = ce };
	enum quic_ack_action act;

	act = quic_ack_on_packet(&space->ack, &rx, &space->rx, quic_now());
	if (act == QUIC_ACK_NOW)
		space->ack_pending = true;
	else if (act == QUIC_ACK_DELAYED)
		quic_timer_ack(sk, space->ack.deadline);
}

/*
 * One packet at @off in @skb.  Returns the bytes it occupies (so the next
 * coalesced packet can follow), or a negative errno to drop the rest of
 * the datagram.
 */
static int quic_rcv_packet(struct sock *sk, struct sk_buff *skb,
			   unsigned int off, bool *ack_eliciting)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_crypto_pkt cpkt = {};
	struct quic_crypto_ctx *ctx;
	struct quic_crypto_batch batch = {};
	struct quic_space *space;
	u8 *pkt = skb->data + off;
	size_t left = skb->len - off;
	struct quic_frame f = {};	/* f.type names the frame in a close */
	struct quic_hdr hdr;
	u32 trunc_pn, terr = 0;
	u8 level, key_phase;
	size_t hlen, plen;
	bool eliciting = false, probing = true;
	int ret, err;

	ret = quic_hdr_parse(pkt, left, quic_cid_port_len(sk), &hdr);
	if (ret) {
		QUIC_DROP(sk, BAD_HEADER);
		return -EBADMSG;
	}
	if (hdr.type == QUIC_PKT_VERSION_NEGOTIATION) {
		quic_version_vn_rcv(sk, &hdr);
		return -EBADMSG;
	}
	if (hdr.type == QUIC_PKT_RETRY) {
		/* retry.c: a client follows one, before anything else. */
		quic_retry_rcv(sk, pkt, &hdr);
		return -EBADMSG;	/* a Retry ends its datagram */
	}
	/*
	 * RFC 9000 §7.2: once a client has its server's connection ID, it
	 * drops long-header packets from any other, such as a second server
	 * connection made of a late copy of its Initial: that one's
	 * ServerHello and Handshake keys are not the ones it goes on with.
	 */
	if (!qs->is_server && qs->peer_scid_set && hdr.type != QUIC_PKT_1RTT &&
	    !quic_cid_eq(&hdr.scid, &qs->peer_scid)) {
		QUIC_DROP(sk, OTHER_SCID);
		return hdr.pkt_len;
	}
	/* compatvn.c: another version's keys, or a move to it. */
	ctx = quic_compat_rx_ctx(sk, &hdr);
	if (!ctx) {
		if (quic_compat_client_rcv(sk, &hdr)) {
			quic_input_hold(sk, skb, off);
			return -EAGAIN;	/* the rest is held with it */
		}
		QUIC_DROP(sk, BAD_HEADER);
		return hdr.pkt_len;
	}
	/* RFC 9000 §17.2: 0 is allowed only if we asked for grease (RFC 9287). */
	if (!hdr.fixed_bit && !qs->local_tp.grease_quic_bit) {
		QUIC_DROP(sk, BAD_HEADER);
		return hdr.pkt_len;
	}

	level = quic_level_of_type(hdr.type);
	space = &qs->space[quic_space_of_level(level)];
	if (level == QUIC_CRYPTO_EARLY) {
		switch (quic_early_data_rx(sk)) {
		case QUIC_EARLY_RX_DROP:
			QUIC_DROP(sk, EARLY);
			return hdr.pkt_len;
		case QUIC_EARLY_RX_HOLD:
			quic_input_hold(sk, skb, off);
			return hdr.pkt_len;
		default:
			break;
		}
	}
	if (space->discarded) {
		QUIC_DROP(sk, NO_KEYS);
		return hdr.pkt_len;
	}
	if (!quic_crypto_ready(ctx, level, false)) {
		quic_input_hold(sk, skb, off);
		return hdr.pkt_len;
	}

	cpkt.skb = skb;
	cpkt.off = off;
	cpkt.len = hdr.pkt_len;
	cpkt.pn_off = hdr.pn_offset;
	cpkt.level = level;
	ret = quic_crypto_unprotect_header(ctx, &cpkt, &trunc_pn,
					   &key_phase);
	if (ret) {
		QUIC_DROP(sk, BAD_HEADER);
		return hdr.pkt_len;
	}
	ret = quic_hdr_finish(&hdr, pkt, hdr.pkt_len, space->largest_rx);
	if (ret < 0 || hdr.pkt_len < (size_t)ret + QUIC_CRYPTO_TAG_LEN) {
		QUIC_DROP(sk, BAD_HEADER);
		return hdr.pkt_len;
	}
	hlen = ret;
	cpkt.pn = hdr.pn;
	cpkt.key = level == QUIC_CRYPTO_APP ?
		   quic_crypto_rx_key(&qs->crypto, key_phase, hdr.pn) :
		   QUIC_CRYPTO_KEY_CUR;

	batch.pkts = &cpkt;
	batch.n = 1;
	ret = quic_crypto_decrypt_batch(ctx, &batch);
	if (ret || cpkt.err) {
		QUIC_DROP(sk, DECRYPT);
		/* RFC 9001 §6.6: too many forgeries end the connection. */
		if (!ret && cpkt.err == -EBADMSG &&
		    quic_key_update_integrity_exceeded(sk)) {
			terr = QUIC_TRANSPORT_ERROR_AEAD_LIMIT_REACHED;
			goto violation;
		}
		return hdr.pkt_len;
	}
	if (quic_ack_ranges_contains(&space->rx, hdr.pn) ||
	    (space->rx.floor && hdr.pn < space->rx.floor)) {
		QUIC_DROP(sk, DUPLICATE);
		return hdr.pkt_len;
	}
	/* path.c: from a peer address we refuse (RFC 9000 §9). */
	if (quic_path_rx_drop(sk, skb, level))
		return hdr.pkt_len;
	/* From here the packet is authentic: errors close the connection. */
	if (quic_hdr_check_reserved(&hdr, &terr))
		goto violation;
	/* RFC 9001 §6.2: a packet of the peer's next key phase. */
	if (level == QUIC_CRYPTO_APP &&
	    quic_key_update_on_rx(sk, cpkt.key, hdr.pn, &terr))
		goto violation;

	/* RFC 9000 §7.2: the server's first packet names its connection ID. */
	if (!qs->is_server && !qs->peer_scid_set && hdr.type != QUIC_PKT_1RTT) {
		qs->peer_scid = hdr.scid;
		qs->peer_scid_set = true;
		quic_cid_set_first_dcid(&qs->cids, &hdr.scid);
	}

	plen = hdr.pkt_len - hlen - QUIC_CRYPTO_TAG_LEN;
	if (!plen) {
		terr = QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
		goto violation;
	}
	pkt += hlen;
	while (plen) {
		ret = quic_frame_decode(pkt, plen, hdr.type, !qs->is_server,
					&f, &terr);
		if (ret < 0)
			goto violation;
		eliciting |= quic_frame_ack_eliciting(f.type);
		probing &= quic_frame_probing(f.type);
		err = quic_rcv_frame(sk, skb, level, cpkt.key, &f, &terr);
		if (err == -ENOBUFS || err == -ENOMEM) {
			/*
			 * No memory for its data: unacknowledged, it comes
			 * again.  -ENOBUFS (a limit) was counted by its reason
			 * where it was refused.
			 */
			if (err == -ENOMEM)
				QUIC_DROP(sk, RCVBUF);
			return hdr.pkt_len;
		}
		if (err) {
			if (!terr)
				terr = QUIC_TRANSPORT_ERROR_INTERNAL;
			goto violation;
		}
		if (sk->sk_state == QUIC_SS_DRAINING)
			return -ECONNRESET;
		pkt += ret;
		plen -= ret;
	}

	if (quic_ack_ranges_want_grow(&space->rx))
		quic_space_rx_grow(sk, space);
	quic_ack_ranges_add(&space->rx, hdr.pn);
	quic_path_on_rx(sk, skb, level, space->largest_rx == QUIC_PN_NONE ||
			hdr.pn > space->largest_rx, probing);	/* path.c */
	if (space->largest_rx == QUIC_PN_NONE || hdr.pn > space->largest_rx) {
		space->largest_rx = hdr.pn;
		space->largest_rx_time = quic_now();
	}
	quic_rcv_ack_timing(sk, space, hdr.pn, eliciting,
			    quic_ecn_on_rcv(sk, quic_space_of_level(level), skb));
	QUIC_INC_STATS(PKT_RECV, 1);
	quic_early_data_on_rx(sk, level);
	*ack_eliciting |= eliciting;
	if (eliciting && (level == QUIC_CRYPTO_INITIAL ||
			  level == QUIC_CRYPTO_HANDSHAKE))
		quic_ld_on_handshake_rx(&qs->ld);
	quic_idle_on_packet_received(&qs->idle, quic_now());

	/* RFC 9001 §4.9.1: a server drops Initial keys on its first Handshake packet. */
	if (qs->is_server && level == QUIC_CRYPTO_HANDSHAKE) {
		quic_amp_validate(&qs->amp);
		quic_conn_discard_space(sk, QUIC_PN_SPACE_INITIAL);
	}
	return hdr.pkt_len;

violation:
	quic_conn_abort(sk, terr, (u8)f.type);
	return -EPROTO;
}

/*
 * One datagram, without sending what it calls for: true if the caller
 * must call quic_input_done() (at once, or after more datagrams of the
 * same train, so that they are answered together).  Consumes @skb.
 */
bool quic_input_one(struct sock *sk, struct sk_buff *skb)
{
	struct quic_sock *qs = quic_sk(sk);
	bool ack_eliciting = false;
	unsigned int off = 0;
	int ret;

	switch (sk->sk_state) {
	case QUIC_SS_LISTENING:
		quic_listen_rcv(sk, skb);
		return false;
	case QUIC_SS_CONNECTING:
	case QUIC_SS_ESTABLISHED:
		break;
	case QUIC_SS_CLOSING:
		/* Nothing more is processed, but the peer hears why. */
		quic_conn_closing_rcv(sk);
		kfree_skb(skb);
		return false;
	default:
		/* Draining or closed: silence (RFC 9000 §10.2.2). */
		kfree_skb(skb);
		return false;
	}

	/* A stateless reset from the peer (stateless_reset.c). */
	if (quic_sr_detect(sk, skb)) {
		consume_skb(skb);
		return false;
	}
	quic_amp_on_received(&qs->amp, skb->len);
	while (off < skb->len) {
		ret = quic_rcv_packet(sk, skb, off, &ack_eliciting);
		if (ret <= 0)
			break;
		off += ret;
	}
	consume_skb(skb);
	return true;
}

/* What the datagrams just processed call for: a close, ACKs, data. */
void quic_input_done(struct sock *sk)
{
	quic_conn_close_pending(sk);
	if (sk->sk_state == QUIC_SS_CONNECTING ||
	    sk->sk_state == QUIC_SS_ESTABLISHED) {
		quic_output(sk);
		quic_timer_rearm(sk);
	}
}

int quic_input(struct sock *sk, struct sk_buff *skb)
{
	if (sk->sk_state == QUIC_SS_LISTENING)
		return quic_listen_rcv(sk, skb);
	if (quic_input_one(sk, skb))
		quic_input_done(sk);
	return 0;
}

/*
 * A datagram for a listener: client Initials of new connections wait for
 * accept(), within the cap on pending connections (socket.c).  RFC 9000
 * §14.1 and §7.2: Initials in datagrams under 1200 bytes, or with a
 * Destination CID under 8 bytes, are dropped.  Some are answered with a
 * Retry instead (retry.c).
 */
int quic_listen_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_hdr hdr;

	/* 0-RTT of a queued connection waits with it (early_data.c). */
	if (quic_early_data_listen_keep(sk, skb))
		return quic_accept_enqueue(sk, skb);
	if (skb->len < QUIC_MIN_INITIAL_DATAGRAM ||
	    quic_hdr_parse(skb->data, skb->len, QUIC_SCID_LEN, &hdr) ||
	    hdr.type != QUIC_PKT_INITIAL || hdr.dcid.len < 8 ||
	    (!hdr.fixed_bit && !quic_sk(sk)->local_tp.grease_quic_bit) ||
	    (hdr.version != QUIC_VERSION_V1 && hdr.version != QUIC_VERSION_V2)) {
		QUIC_DROP(sk, LISTEN);
		kfree_skb(skb);
		return 0;
	}
	if (quic_retry_listen(qs->udp, sk, qs->config.validate_peer_address,
			      skb, &hdr))
		return 0;
	return quic_accept_enqueue(sk, skb);
}

/*
 * Receiving in the reader's context.
 *
 * Over veth or loopback a datagram is received in the softirq its
 * sender's transmit raises, on the sender's CPU: processed there, its
 * decryption and frames would cost the sender's CPU, while the reader's
 * CPU only copies the data out.  So, as kTLS decrypts in recvmsg(), the
 * datagrams of a long train (a UDP GSO skb received whole, udp.c: how a
 * local sender's bulk data comes; QUIC_RX_DEFER_MIN_SEGS datagrams or
 * more) for a connection whose reader waits are not processed in softirq
 * but queued to the socket backlog, and the reader
 * woken: it processes the backlog on its own CPU, the socket lock owned,
 * and whatever arrives meanwhile goes to the backlog too (the socket is
 * owned) and is processed by the same loop (__release_sock()).  A lone
 * datagram or a short train (a request, an ACK; and any datagram from a
 * NIC, which receives on a CPU of its own anyway) is processed in softirq
 * as before: nothing would overlap with its processing, which would only
 * come after the reader's wake-up instead of before it (RR with 4 KiB
 * messages, trains of 3, went 0.67x when they were left to the reader).
 *
 * The handshake is the exception: while a connection is connecting, every
 * datagram is left to its waiting reader, a lone one too.  There the
 * sender does not wait for an answer after its send but goes on with TLS
 * work of its own (a server signs after its early ServerHello, a client
 * checks the certificate after acknowledging the server's flight, and
 * returns to its application after its Finished), while its peer's user
 * sits in the handshake's poll() or recvmsg(): processed in softirq, the
 * peer's decryption, its ACK (a padded 1200-byte Initial after a
 * ServerHello, RFC 9000 §14.1) and the sender's processing of that ACK
 * would all run in the sender's syscall, ahead of its next step, while
 * the reader's CPU idled.  The handshake's datagrams are few, so the
 * extra wake-ups are too.
 *
 * A reader waits in one of two ways:
 *  - in recvmsg() (quic_rx_wait()): it sets QUIC_RX_WAIT_RECV with the
 *    lock owned before it sleeps, and takes the lock again when woken, for
 *    whatever reason (data, a signal, its timeout), so the backlog is
 *    processed by that thread's release_sock() at the latest;
 *  - in poll() (quic_rx_poll()): a poll for POLLIN that finds nothing
 *    sets QUIC_RX_WAIT_POLL, without the lock.  A poller woken polls
 *    again, and poll() processes the backlog first (lock_sock(),
 *    release_sock()), so that its answer is what recvmsg() would find:
 *    no POLLIN for a datagram that carried no stream data.  A poller may
 *    also have gone (poll() returned for another file, epoll_wait() is
 *    not called): so a datagram is deferred for a poller only if the
 *    socket has a sleeper at all, and the ACK timer is pulled in to
 *    QUIC_RX_DEFER_MAX_US, whose handler processes the backlog itself if
 *    nobody did (quic_timer_run()).
 * Each flag is taken by the first datagram deferred (one wake-up per
 * wait); the datagrams after it go behind it while it waits.
 *
 * Order: datagrams are processed in the order they came.  While the
 * backlog is not empty, softirq processes nothing of the connection ahead
 * of it: datagrams go behind (QUIC_RX_BEHIND), and the timers (and the
 * path validation timer) process the backlog first (quic_rx_drain_bh()).
 * The backlog, as the socket's other state, is touched by softirq only
 * under bh_lock_sock() with no user owning the socket; a user owning it
 * always processes it in release_sock(), or in sk_flush_backlog().
 *
 * Nothing is stranded: only a live connection (connecting or established)
 * defers, the flags are cleared in close(), and a backlog left with no
 * user owning the socket is processed by a reader taking the lock (the
 * recvmsg() case), by poll(), or by the ACK timer at the latest.  Its
 * memory is bounded as any backlog's (udp.c: the receive and send buffer
 * sizes; beyond, QUIC_DROP_BACKLOG).
 *
 * The datagrams of a train in the backlog are answered together, as in
 * softirq (udp.c): QUIC_INPUT_CB(skb)->more marks those that have more of
 * their train behind them, and QUIC_DEFER_INPUT that an answer is due
 * (quic_input_flush(): at the train's end, and from release_cb()).
 */

/* How long datagrams deferred for a poller may wait for it. */
#define QUIC_RX_DEFER_MAX_US	1000

/* Is anyone on the socket's wait queue (a poller, an epoll set)? */
static bool quic_rx_sleeper(struct sock *sk)
{
	bool ret;

	rcu_read_lock();
	ret = skwq_has_sleeper(rcu_dereference(sk->sk_wq));
	rcu_read_unlock();
	return ret;
}

/*
 * Wake the reader a datagram was left to.  Not a "sync" wake-up as data's
 * (sock_def_readable()): the sender's CPU is not about to sleep, and the
 * point is that the reader runs on its own.
 */
void quic_rx_wake(struct sock *sk)
{
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_poll(&wq->wait, EPOLLIN | EPOLLRDNORM);
	rcu_read_unlock();
}

/*
 * Stream data became readable (stream_recv.c).  A 4 KiB message comes as
 * a train of 3 datagrams; woken by the first, the reader would spin on the
 * socket lock softirq holds for the other two, then copy the message out
 * piece by piece, woken again for each (RR 4 KiB: 6 sk_data_ready() per
 * transaction against kTLS's 2).  So within a train processed in softirq
 * (quic_rx_batch_begin()) the wake-up waits for its end, one for the
 * whole train; a lone datagram's is immediate.
 */
void quic_rx_data_ready(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	if (!test_bit(QUIC_RX_BATCH, &qs->deferred)) {
		sk->sk_data_ready(sk);
		return;
	}
	if (test_and_set_bit(QUIC_RX_WAKE_OWED, &qs->deferred))
		QUIC_INC_STATS(RX_WAKES_SAVED, 1);
}

/* Softirq, bh_lock_sock() held: the datagrams of a train follow. */
void quic_rx_batch_begin(struct sock *sk)
{
	set_bit(QUIC_RX_BATCH, &quic_sk(sk)->deferred);
}

/*
 * The train ends, before bh_unlock_sock() and whatever stopped it (the
 * last datagram, another connection's, an error; a connection closed by
 * it too): the wake-up it owes, if any, is delivered now, so that no
 * readable data is left without one.
 */
void quic_rx_batch_end(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	clear_bit(QUIC_RX_BATCH, &qs->deferred);
	if (test_and_clear_bit(QUIC_RX_WAKE_OWED, &qs->deferred))
		sk->sk_data_ready(sk);
}

/*
 * Softirq, bh_lock_sock() held and no user owning @sk: may a datagram (of
 * a long @train, or any while @sk is connecting) be processed here, or
 * must it go to the backlog, for the reader?
 */
enum quic_rx_where quic_rx_where(struct sock *sk, bool train)
{
	struct quic_sock *qs = quic_sk(sk);

	if (sk->sk_backlog.tail)
		return QUIC_RX_BEHIND;
	if (!(READ_ONCE(qs->deferred) &
	      (BIT(QUIC_RX_WAIT_RECV) | BIT(QUIC_RX_WAIT_POLL))) ||
	    !(sk->sk_state == QUIC_SS_CONNECTING ||
	      (train && sk->sk_state == QUIC_SS_ESTABLISHED)))
		return QUIC_RX_HERE;
	if (test_and_clear_bit(QUIC_RX_WAIT_RECV, &qs->deferred))
		return QUIC_RX_WAKE;
	if (test_and_clear_bit(QUIC_RX_WAIT_POLL, &qs->deferred) &&
	    quic_rx_sleeper(sk)) {
		quic_timer_ack(sk, quic_now() + QUIC_RX_DEFER_MAX_US);
		return QUIC_RX_WAKE;
	}
	return QUIC_RX_HERE;
}

/* The answer to the datagrams processed from the backlog, if one is due. */
void quic_input_flush(struct sock *sk)
{
	if (test_and_clear_bit(QUIC_DEFER_INPUT, &quic_sk(sk)->deferred))
		quic_input_done(sk);
}

/*
 * A datagram from the backlog: one that arrived while a user held the
 * socket, or one deferred to the reader.
 */
int quic_backlog_rcv(struct sock *sk, struct sk_buff *skb)
{
	bool more = QUIC_INPUT_CB(skb)->more;

	if (sk->sk_state == QUIC_SS_LISTENING)
		return quic_listen_rcv(sk, skb);
	if (quic_input_one(sk, skb))
		set_bit(QUIC_DEFER_INPUT, &quic_sk(sk)->deferred);
	if (!more)
		quic_input_flush(sk);
	return 0;
}

/*
 * The whole backlog, taken off the socket as a list, for its caller to
 * process or free; sk_lock.slock held (bh_lock_sock() or spin_lock_bh()).
 */
struct sk_buff *quic_rx_backlog_detach(struct sock *sk)
{
	struct sk_buff *skb = sk->sk_backlog.head;

	sk->sk_backlog.head = NULL;
	sk->sk_backlog.tail = NULL;
	sk->sk_backlog.len = 0;
	return skb;
}

/*
 * Softirq, bh_lock_sock() held and no user owning @sk: process what waits
 * in the backlog (for a reader that did not come), before anything newer.
 */
void quic_rx_drain_bh(struct sock *sk)
{
	struct sk_buff *skb = quic_rx_backlog_detach(sk), *next;

	if (!skb)
		return;
	for (; skb; skb = next) {
		next = skb->next;
		skb_mark_not_on_list(skb);
		QUIC_INC_STATS(RX_LATE, 1);
		quic_backlog_rcv(sk, skb);
	}
	quic_input_flush(sk);
}

/*
 * recvmsg() waits for something to read, the lock owned (released while
 * it sleeps): datagrams that come meanwhile are left to it.
 */
void quic_rx_wait(struct sock *sk, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct quic_sock *qs = quic_sk(sk);

	add_wait_queue(sk_sleep(sk), &wait);
	sk_set_bit(SOCKWQ_ASYNC_WAITDATA, sk);
	set_bit(QUIC_RX_WAIT_RECV, &qs->deferred);
	sk_wait_event(sk, timeo,
		      !skb_queue_empty_lockless(&sk->sk_receive_queue) ||
		      !list_empty(&qs->streams.read_list) ||
		      READ_ONCE(sk->sk_backlog.tail), &wait);
	clear_bit(QUIC_RX_WAIT_RECV, &qs->deferred);
	sk_clear_bit(SOCKWQ_ASYNC_WAITDATA, sk);
	remove_wait_queue(sk_sleep(sk), &wait);
}

/*
 * poll(), before its answer: the datagrams deferred to the reader are
 * processed, unless a user owns the socket (its release_sock() does, and
 * what that makes readable wakes the poller again).  Without the lock.
 */
void quic_rx_poll_drain(struct sock *sk)
{
	if (READ_ONCE(sk->sk_backlog.tail) && !sock_owned_by_user_nocheck(sk)) {
		lock_sock(sk);
		release_sock(sk);
	}
}

/*
 * poll() found nothing to read for a caller asking for POLLIN, who may
 * sleep on it: the next datagram is left to it.  Without the lock.
 */
void quic_rx_poll_wait(struct sock *sk, struct poll_table_struct *wait)
{
	if (wait && (poll_requested_events(wait) & (EPOLLIN | EPOLLRDNORM)))
		set_bit(QUIC_RX_WAIT_POLL, &quic_sk(sk)->deferred);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC transmit path: frames wait in their packet-number space; the packet
 * builder fills packets level by level, coalesces them into one datagram
 * (Initial, Handshake, 1-RTT), pads datagrams with Initial packets to
 * 1200 bytes, respects the anti-amplification limit and the congestion
 * window, encrypts them in one batch and hands the datagram to UDP.
 *
 * Packets that carry frames to acknowledge are remembered with their frames,
 * so an acknowledgment frees them and a loss sends the frames (not the
 * packet) again.  Everything here runs with the socket lock held.
 */

#include <linux/sizes.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "frame.h"
#include "gso.h"
#include "socket.h"
#include "txcache.h"
#include "udp.h"
#include "varint.h"
#include "version.h"

/* Room UDP, IP and the link layer need in front of a datagram. */
#define QUIC_TX_HEADROOM	(MAX_HEADER + sizeof(struct ipv6hdr) + \
				 sizeof(struct udphdr))
/* Datagrams sent per quic_output() call, so one call cannot run on. */
#define QUIC_TX_BURST		64
/* A packet that could not be protected (crypto.c: FPU busy) waits this. */
#define QUIC_OUTPUT_RETRY_US	1000
/* A long header with two CIDs of 20 bytes, a 2-byte Length and PN. */
#define QUIC_HDR_MAX		(1 + 4 + 1 + 20 + 1 + 20 + 1 + 2 + 4)

/* Send @f again as it is, in its level's queue. */
void quic_output_requeue(struct sock *sk, const struct quic_frame_tx *f)
{
	struct quic_space *space;
	struct quic_frame_tx *copy;

	space = &quic_sk(sk)->space[quic_space_of_level(f->level)];
	if (space->discarded)
		return;
	copy = quic_frame_tx_dup(f);
	if (copy)
		list_add_tail(&copy->list, &space->frames);
}

/* Queue a control frame, already encoded, for @level. */
int quic_output_ctrl(struct sock *sk, u8 level, const u8 *raw, u16 len,
		     u8 type)
{
	struct quic_space *space;
	struct quic_frame_tx *f;

	space = &quic_sk(sk)->space[quic_space_of_level(level)];
	if (space->discarded)
		return 0;
	f = quic_frame_tx_alloc(type, level, len);
	if (!f)
		return -ENOMEM;
	memcpy(f->raw, raw, len);
	list_add_tail(&f->list, &space->frames);
	return 0;
}

static bool quic_space_has_data(const struct quic_space *space)
{
	return !list_empty(&space->frames) ||
	       space->crypto_tx.sent < space->crypto_tx.len;
}

static bool quic_space_wants_send(struct sock *sk, u8 id)
{
	struct quic_sock *qs = quic_sk(sk);
	const struct quic_space *space = &qs->space[id];
	u8 level = quic_level_of_space(id);

	if (space->discarded)
		return false;
	if (!quic_crypto_ready(&qs->crypto, level, true) &&
	    !(id == QUIC_PN_SPACE_APP && quic_early_data_can_send(sk)))
		return false;
	if (space->ack_pending || quic_space_has_data(space))
		return true;
	return id == QUIC_PN_SPACE_APP &&
	       (qs->path_resp_pending || quic_path_wants_send(sk) ||
		quic_streams_send_pending(sk) || quic_datagram_pending(sk));
}

/* Write a CRYPTO frame of at most @room bytes; returns bytes written or 0. */
static int quic_put_crypto(struct quic_wr *wr, const struct quic_crypto_tx *tx,
			   u64 offset, u32 *len)
{
	size_t room = quic_wr_left(wr);
	size_t over = 1 + quic_varint_len(offset) + 2;
	u32 n;

	if (room <= over)
		return 0;
	n = min_t(u32, *len, room - over);
	if (quic_wr_u8(wr, QUIC_FRAME_CRYPTO) ||
	    quic_wr_varint(wr, offset) || quic_wr_varint_fixed(wr, n, 2) ||
	    quic_wr_bytes(wr, tx->buf + offset, n))
		return 0;
	*len = n;
	return n;
}

/*
 * Fill @wr with frames of @space: ACK first, then queued frames, then new
 * CRYPTO data.  Frames that need acknowledging move to @sent.  *@acked is
 * the largest packet number the ACK frame acknowledges, if one went in.
 * @early: a 0-RTT packet, which carries none of the frames RFC 9000 §12.4
 * keeps out of it (ACK, CRYPTO, PATH_RESPONSE, ...): a client can have
 * 1-RTT packets to acknowledge before its 1-RTT send key is in, and those
 * wait for it.
 */
static bool quic_fill_frames(struct sock *sk, u8 id, struct quic_wr *wr,
			     bool ack_only, bool early, struct list_head *sent,
			     u64 now, u64 *acked)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *space = &qs->space[id];
	struct quic_crypto_tx *tx = &space->crypto_tx;
	struct quic_frame_tx *f, *tmp;
	bool eliciting = false;
	int ret;

	/* path.c: a datagram on another path carries its frames alone. */
	if (quic_path_probing(sk))
		return id == QUIC_PN_SPACE_APP && !early &&
		       quic_path_fill(sk, wr);

	/* An ACK due now, or anything unacknowledged when a packet goes. */
	if (!early && (space->ack_pending || space->ack.pending) &&
	    space->rx.n) {
		u64 delay = quic_ack_delay_field(&space->ack, now,
						 qs->local_tp.ack_delay_exponent);

		ret = quic_ack_ranges_encode(&space->rx, wr->p, quic_wr_left(wr),
					     delay, quic_ecn_ack(sk, id));
		if (ret > 0) {
			wr->p += ret;
			space->ack_pending = false;
			*acked = quic_ack_ranges_largest(&space->rx);
			quic_ack_on_sent(&space->ack, *acked);
		}
	}
	/* PATH_CHALLENGE/RESPONSE (path.c), whatever the window. */
	if (id == QUIC_PN_SPACE_APP && !early && quic_path_fill(sk, wr))
		eliciting = true;
	/* A PMTU probe (pmtud.c) is an ack_only datagram with a PING. */
	if (ack_only)
		return quic_pmtud_fill(sk, wr) || eliciting;

	list_for_each_entry_safe(f, tmp, &space->frames, list) {
		if (early && !quic_frame_allowed(f->type, QUIC_PKT_0RTT))
			continue;	/* it waits for 1-RTT */
		if (f->type == QUIC_FRAME_STREAM) {
			enum quic_retx_result r;

			r = quic_stream_fill_retx(sk, wr, f, sent);
			if (r == QUIC_RETX_DROP) {
				list_del(&f->list);
				quic_frame_tx_free(f);
				continue;
			}
			if (r == QUIC_RETX_ROOM)
				break;
			QUIC_INC_STATS(STREAM_RETX, 1);
			eliciting = true;
			if (r == QUIC_RETX_PART)
				break;
			continue;
		}
		if (f->type == QUIC_FRAME_CRYPTO) {
			u32 len = f->len;

			if (!quic_put_crypto(wr, tx, f->offset, &len))
				break;
			if (len < f->len) {
				/* Send the head now; the rest stays queued. */
				struct quic_frame_tx *head;

				head = quic_frame_tx_alloc(f->type, f->level, 0);
				if (!head)
					break;
				head->offset = f->offset;
				head->len = len;
				f->offset += len;
				f->len -= len;
				list_add_tail(&head->list, sent);
				eliciting = true;
				break;
			}
		} else {
			if (quic_wr_bytes(wr, f->raw, f->len))
				continue;	/* try it in the next packet */
		}
		list_move_tail(&f->list, sent);
		eliciting = true;
	}

	while (!early && tx->sent < tx->len) {
		u32 len = min_t(u32, tx->len - tx->sent, U16_MAX);

		f = quic_frame_tx_alloc(QUIC_FRAME_CRYPTO,
					quic_level_of_space(id), 0);
		if (!f)
			break;
		if (!quic_put_crypto(wr, tx, tx->sent, &len)) {
			quic_frame_tx_free(f);
			break;
		}
		f->offset = tx->sent;
		f->len = len;
		tx->sent += len;
		list_add_tail(&f->list, sent);
		eliciting = true;
	}
	if (id == QUIC_PN_SPACE_APP && !early &&
	    quic_datagram_fill(sk, wr, sent))
		eliciting = true;
	if (id == QUIC_PN_SPACE_APP && sk->sk_state != QUIC_SS_CLOSING &&
	    quic_streams_fill(sk, wr, sent))
		eliciting = true;
	/*
	 * A client's ACK of the server's Handshake flight takes a PING
	 * (recovery.h, RFC 9002 §6.2.2.1): the server's ACK of it shows
	 * the address validated, at once rather than after a probe.
	 */
	if (!eliciting && id == QUIC_PN_SPACE_HANDSHAKE &&
	    *acked != QUIC_PN_NONE && !qs->is_server &&
	    quic_ld_handshake_ping(&qs->ld) &&
	    !quic_wr_u8(wr, QUIC_FRAME_PING))
		eliciting = true;
	return eliciting;
}

/*
 * The APP space's packets: 1-RTT, or 0-RTT on a client before its 1-RTT
 * keys (early_data.c).  A 0-RTT packet carries no ACK (nothing of the APP
 * space was received yet) nor any frame the client sends only in 1-RTT.
 */
static u8 quic_output_app_type(struct sock *sk)
{
	return quic_crypto_ready(&quic_sk(sk)->crypto, QUIC_CRYPTO_APP, true) ?
	       QUIC_PKT_1RTT : QUIC_PKT_0RTT;
}

/* The keys a packet being built is protected with. */
static u8 quic_output_level(const struct quic_hdr *hdr, u8 space)
{
	return hdr->type == QUIC_PKT_0RTT ? QUIC_CRYPTO_EARLY :
	       quic_level_of_space(space);
}

/* Application data among @frames: STREAM or DATAGRAM frames. */
static bool quic_frames_carry_data(const struct list_head *frames)
{
	const struct quic_frame_tx *f;

	list_for_each_entry(f, frames, list)
		if (f->type == QUIC_FRAME_STREAM ||
		    f->type == QUIC_FRAME_DATAGRAM ||
		    f->type == QUIC_FRAME_DATAGRAM_LEN)
			return true;
	return false;
}

struct quic_tx_pkt {
	struct quic_hdr		hdr;
	unsigned int		start;		/* offset in the skb */
	u8			space;
	bool			eliciting;
	u64			acked;		/* its ACK's largest, or NONE */
	struct list_head	frames;
};

/*
 * Append one packet of space @id to @skb, using at most @room bytes.
 * Returns false if the space had nothing that fits.
 */
static bool quic_build_packet(struct sock *sk, struct sk_buff *skb, u8 id,
			      unsigned int room, bool ack_only,
			      struct quic_tx_pkt *tp, u64 now)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *space = &qs->space[id];
	const struct quic_cid *dcid = quic_cid_active_dcid(&qs->cids);
	const struct quic_cid *scid = quic_cid_first_scid(&qs->cids);
	struct quic_hdr *hdr = &tp->hdr;
	struct quic_wr wr;
	u8 *p = skb_tail_pointer(skb);
	int hlen;

	if (!dcid || !scid || room < QUIC_HDR_MAX + QUIC_CRYPTO_TAG_LEN + 8)
		return false;

	memset(hdr, 0, sizeof(*hdr));
	hdr->type = id == QUIC_PN_SPACE_INITIAL ? QUIC_PKT_INITIAL :
		    id == QUIC_PN_SPACE_HANDSHAKE ? QUIC_PKT_HANDSHAKE :
		    quic_output_app_type(sk);
	hdr->fixed_bit = quic_version_fixed_bit(sk);
	hdr->version = qs->version;
	hdr->dcid = *dcid;
	hdr->scid = *scid;
	hdr->length_len = 2;
	/* A client's Initials carry its token (QUIC_SOCKOPT_TOKEN). */
	if (id == QUIC_PN_SPACE_INITIAL && !qs->is_server) {
		hdr->token = qs->token;
		hdr->token_len = qs->token_len;
		if (qs->retry_token) {		/* retry.c */
			hdr->token = qs->retry_token;
			hdr->token_len = qs->retry_token_len;
		}
	}
	hdr->pn = space->next_pn;
	hdr->pn_len = quic_pn_encode_len(hdr->pn, space->largest_acked);
	if (hdr->type == QUIC_PKT_1RTT)
		hdr->key_phase = quic_crypto_key_phase(&qs->crypto);
	hlen = quic_hdr_encode(p, room, hdr);
	/* A token can take up to QUIC_TOKEN_MAX of the room. */
	if (hlen < 0 || hlen + QUIC_CRYPTO_TAG_LEN + 8 > room)
		return false;

	quic_wr_init(&wr, p + hlen, room - hlen - QUIC_CRYPTO_TAG_LEN);
	INIT_LIST_HEAD(&tp->frames);
	tp->acked = QUIC_PN_NONE;
	tp->eliciting = quic_fill_frames(sk, id, &wr, ack_only,
					 hdr->type == QUIC_PKT_0RTT,
					 &tp->frames, now, &tp->acked);
	if (wr.p == p + hlen)
		return false;		/* nothing fitted */
	/* ackdelay.h: does an answer carry our ACKs (request/response)? */
	if (quic_ack_watch_data(&space->ack))
		quic_ack_on_sent_packet(&space->ack,
					quic_frames_carry_data(&tp->frames),
					now);

	/* The header protection sample needs 4 bytes after the PN start. */
	while (wr.p - (p + hlen) + hdr->pn_len < 4)
		quic_wr_u8(&wr, QUIC_FRAME_PADDING);

	space->next_pn++;
	tp->start = p - skb->data;
	tp->space = id;
	skb_put(skb, wr.p - p);
	return true;
}

/* Fill in the Length field of a long-header packet ending at skb->len. */
static void quic_set_packet_length(struct sk_buff *skb,
				   const struct quic_tx_pkt *tp)
{
	if (tp->hdr.type != QUIC_PKT_1RTT)
		quic_hdr_set_length(skb->data + tp->start, &tp->hdr,
				    skb->len - tp->start - tp->hdr.pn_offset);
}

/* Close the packet just built: room for its AEAD tag, then its Length. */
static void quic_seal_packet(struct sk_buff *skb, const struct quic_tx_pkt *tp)
{
	skb_put_zero(skb, QUIC_CRYPTO_TAG_LEN);
	quic_set_packet_length(skb, tp);
}

/* Grow the last, sealed packet by @pad bytes of PADDING before its tag. */
static void quic_pad_last_packet(struct sk_buff *skb,
				 const struct quic_tx_pkt *tp,
				 unsigned int pad)
{
	u8 *tag = skb_tail_pointer(skb) - QUIC_CRYPTO_TAG_LEN;

	skb_put(skb, pad);
	memmove(tag + pad, tag, QUIC_CRYPTO_TAG_LEN);
	memset(tag, 0, pad);
	quic_set_packet_length(skb, tp);
}

static void quic_record_sent(struct sock *sk, struct quic_tx_pkt *tp,
			     unsigned int size, u64 now)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *space = &qs->space[tp->space];
	struct quic_sent_pkt *sp;

	if (!tp->eliciting)
		return;
	sp = quic_sent_pkt_alloc();
	if (!sp) {
		/* Unrecorded: its frames go back to be sent again. */
		list_splice_tail_init(&tp->frames, &space->frames);
		return;
	}
	list_splice_tail_init(&tp->frames, &sp->frames);
	sp->meta.pn = tp->hdr.pn;
	sp->meta.sent_time = now;
	sp->meta.size = size;
	sp->meta.ack_eliciting = true;
	sp->meta.in_flight = true;
	sp->ect0 = quic_ecn_marking(sk);
	list_add_tail(&sp->list, &space->sent);
	space->last_eliciting_time = now;
	quic_ld_on_packet_sent(&qs->ld, tp->space, &sp->meta);
	quic_cong_on_packet_sent(&qs->cong, &sp->meta);
	quic_idle_on_ack_eliciting_sent(&qs->idle, now);
}

/*
 * UDP GSO on transmit (gso.h): the full-size 1-RTT datagrams the loop of
 * quic_output() sends back to back are built one after another in one
 * skb and leave as one SKB_GSO_UDP_L4 super-packet, so that the IP stack,
 * netfilter and the device are walked once per train, not per datagram;
 * GSO (in the device, or in software before it) cuts it back into the
 * same datagrams.  Nothing else changes: each packet is built, protected
 * in place (at its offset in the train), recorded sent, charged to the
 * pacer, the congestion window and the amplification limit when it is
 * built, exactly when it would have been sent alone, and the train leaves
 * within the same quic_output() call: before the loop waits for the pace
 * timer, when it ends, and before anything else is sent on the socket
 * (quic_output_xmit()), so datagrams still leave in the order they were
 * built.
 *
 * Who may join (quic_output_gso_ok()): datagrams holding one 1-RTT packet
 * alone, on the connection's current path, built in the full datagram
 * size.  Not coalesced long-header datagrams (Initial, Handshake, 0-RTT:
 * while the handshake runs nothing is bulk, and their padding rules
 * differ), not PMTU probes (quic_output_probe(): another size, sent on
 * their own) nor PATH_CHALLENGE/RESPONSE for another path
 * (quic_path_probing(): another peer address), not the ACK-only
 * datagrams the window or the pacer allow (small; they end the train, as
 * they are sent at once), and only datagrams with the train's ECN
 * codepoint (quic_ecn_on_sent() may stop marking mid-burst, and an skb
 * has one TOS).  A datagram shorter than gso_size is the train's last.
 *
 * Memory: a train's skb is one allocation, sized for the datagrams it can
 * take (gso.h: the burst, the window, the bytes queued), at most 64 KB
 * with its overhead (an order-4 page, from txcache.c's per-CPU pages when
 * one is free again); it is asked for with GFP_ATOMIC as today's
 * per-datagram skbs are, and if it fails the datagrams go one by one as
 * before.  Like those skbs it has no owner:
 * nothing charged it to a socket (udp_tunnel_xmit_skb() takes it as is),
 * and it lives only until the end of quic_output().
 *
 * A train crossing veth or loopback reaches the peer's UDP socket still
 * GSO; our tunnel sockets take it whole and process its datagrams in
 * place, one ACK for the train (udp.c, quic_udp_rcv_train()).
 */
struct quic_train {
	struct sk_buff	*skb;	/* built, protected, recorded: not sent */
	struct quic_gso	gso;
	u32		burst_left;	/* datagrams the loop may still send */
	bool		nomem;		/* an allocation failed: no more trains */
};

/* A train's payload: 64 KB with the skb's overhead, one page allocation. */
#define QUIC_GSO_MAX_BYTES	(SKB_WITH_OVERHEAD(SZ_64K) - QUIC_TX_HEADROOM)

/* net.quic.gso: 1 (default) sends trains; 0 sends every datagram alone. */
int sysctl_quic_gso = 1;

/*
 * A train that came out much shorter than its allocation (a short first
 * datagram, such as one DATAGRAM frame, closes it at once) is copied to
 * an skb of its size before it leaves.  A receiver on this host that
 * takes it whole is charged its truesize: a socket without UDP GRO gets
 * a lone datagram as it is, and 1 KB datagrams in 20-60 KB skbs filled
 * aioquic's 208 KB receive buffer after a few (27 of 84 dropped).  If the
 * copy cannot be had, the train leaves as it is.
 */
static struct sk_buff *quic_train_fit(struct sk_buff *skb)
{
	unsigned int used = skb_headroom(skb) + skb->len;
	struct sk_buff *fit;

	if (skb_end_offset(skb) <= 2 * used)
		return skb;
	fit = skb_copy_expand(skb, skb_headroom(skb), 0,
			      GFP_ATOMIC | __GFP_NOWARN);
	if (!fit)
		return skb;
	consume_skb(skb);
	return fit;
}

/* Send what the train holds, if anything. */
static void quic_train_flush(struct sock *sk, struct quic_train *t)
{
	struct sk_buff *skb = t->skb;

	if (!skb)
		return;
	t->skb = NULL;
	quic_sk(sk)->tx_train = NULL;
	if (!t->gso.n) {
		consume_skb(skb);	/* its first datagram was refused */
		return;
	}
	if (t->gso.n > 1) {
		QUIC_INC_STATS(GSO_TRAINS, 1);
		QUIC_INC_STATS(GSO_SEGS, t->gso.n);
	}
	skb = quic_train_fit(skb);
	/* One drop counted for the whole train, as it was one skb. */
	if (quic_udp_xmit_train(sk, skb, t->gso.seg, t->gso.n, t->gso.ecn))
		QUIC_DROP(sk, XMIT);
}

/* Send one datagram of @sk, after any train still being built. */
static void quic_output_xmit(struct sock *sk, struct sk_buff *skb, u8 ecn)
{
	struct quic_train *t = quic_sk(sk)->tx_train;

	if (t)
		quic_train_flush(sk, t);
	if (quic_udp_xmit_train(sk, skb, 0, 1, ecn))
		QUIC_DROP(sk, XMIT);
}

/* Can the next datagram, built in @room bytes, be part of a train? */
static bool quic_output_gso_ok(struct sock *sk, unsigned int room,
			       bool ack_only)
{
	struct quic_sock *qs = quic_sk(sk);

	return READ_ONCE(sysctl_quic_gso) && !ack_only &&
	       room == qs->max_datagram && sk->sk_state == QUIC_SS_ESTABLISHED &&
	       !quic_path_probing(sk) &&
	       quic_output_app_type(sk) == QUIC_PKT_1RTT &&
	       !quic_space_wants_send(sk, QUIC_PN_SPACE_INITIAL) &&
	       !quic_space_wants_send(sk, QUIC_PN_SPACE_HANDSHAKE);
}

/*
 * Bytes waiting to be sent, for sizing a train: new stream data within
 * the connection's flow control, with a sixteenth for frame and packet
 * headers; with retransmissions or datagrams queued, no bound (the window
 * and the burst bound the train).  An estimate: a train that fills up
 * leaves and the next one starts.
 */
static u64 quic_output_queued(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	const struct quic_streams *st = &qs->streams;
	u64 data;

	if (!list_empty(&qs->space[QUIC_PN_SPACE_APP].frames) ||
	    quic_datagram_pending(sk))
		return U64_MAX;
	data = st->written - st->sent;
	if (st->send_max > st->sent)
		data = min(data, st->send_max - st->sent);
	else
		data = 0;
	return data + data / 16;
}

/*
 * The skb the next datagram (@room bytes, ECN @ecn) is built at the end
 * of: the train's if it may join, a new train's if several could follow,
 * else NULL, after sending any train that may not take it.
 */
static struct sk_buff *quic_train_tail(struct sock *sk, struct quic_train *t,
				       bool gso, unsigned int room, u8 ecn)
{
	struct quic_sock *qs = quic_sk(sk);
	struct sk_buff *skb;
	u32 cap;

	if (t->skb && gso && quic_gso_may_join(&t->gso, room, ecn))
		return t->skb;
	quic_train_flush(sk, t);
	if (!gso || t->nomem)
		return NULL;
	cap = quic_gso_train_cap(room, QUIC_GSO_MAX_BYTES, t->burst_left,
				 quic_cong_window_left(&qs->cong), !qs->probes,
				 quic_output_queued(sk));
	if (cap < 2)
		return NULL;
	skb = quic_train_skb_alloc(QUIC_TX_HEADROOM + cap * room);
	if (!skb) {
		t->nomem = true;
		return NULL;
	}
	skb_reserve(skb, QUIC_TX_HEADROOM);
	quic_gso_init(&t->gso, cap, room, ecn);
	t->skb = skb;
	qs->tx_train = t;
	return skb;
}

/*
 * The bytes the next datagram, of at most @room bytes, needs, told before
 * an skb is allocated for it: 0 if nothing would go in it, a bound if it
 * would carry an ACK frame alone, else @room.  The kernel zeroes every
 * allocation (init_on_alloc), so a full-size skb cost a 2 KB memset for
 * each ACK a receiver sends, and each time a full window (@ack_only)
 * left nothing to acknowledge; a bulk profile had that as much as the
 * zeroing of the trains.  Mirrors quic_fill_frames(): with nothing but an
 * ACK due in the APP space, that is all a 1-RTT packet gets; anything
 * else (other spaces, path frames that pad their datagram, a PMTU probe)
 * keeps the full room.  An underestimate would only split what is sent
 * into more datagrams, as quic_output() builds until nothing is left.
 */
static unsigned int quic_output_need(struct sock *sk, unsigned int room,
				     bool ack_only)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *space;
	unsigned int need = 0;
	int i;

	for (i = 0; i < QUIC_PN_SPACE_MAX; i++) {
		if (!quic_space_wants_send(sk, i))
			continue;
		space = &qs->space[i];
		if (i != QUIC_PN_SPACE_APP ||
		    quic_output_app_type(sk) != QUIC_PKT_1RTT ||
		    quic_path_probing(sk) || qs->path_resp_pending ||
		    quic_path_wants_send(sk) || qs->pmtud.building)
			return room;
		if (!ack_only && (quic_space_has_data(space) ||
				  quic_streams_send_pending(sk) ||
				  quic_datagram_pending(sk)))
			return room;
		if ((space->ack_pending || space->ack.pending) && space->rx.n)
			need = QUIC_HDR_MAX + QUIC_CRYPTO_TAG_LEN + 8 +
			       quic_ack_ranges_encode_max(&space->rx);
	}
	return min(need, room);
}

/* Has quic_output() a datagram to send now (key_update.c)? */
bool quic_output_pending(struct sock *sk)
{
	return quic_output_need(sk, quic_sk(sk)->max_datagram, false) != 0;
}

/*
 * Build, protect and send one datagram: alone, or at the end of the train
 * @t (NULL: never in one).  Returns false when there was nothing (more)
 * to send.
 */
static bool quic_output_datagram(struct sock *sk, u64 now, bool ack_only,
				 struct quic_train *t)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_crypto_pkt cpkts[QUIC_PN_SPACE_MAX] = {};
	struct quic_tx_pkt tps[QUIC_PN_SPACE_MAX];
	struct quic_crypto_batch batch = {};
	unsigned int room = qs->max_datagram, n = 0, i, base, len, need;
	bool has_initial = false, eliciting = false, gso = false;
	struct sk_buff *skb = NULL;
	u64 allowance;
	u8 ecn;
	int err;

	allowance = quic_amp_allowance(&qs->amp);
	qs->ld.at_amplification_limit = allowance < QUIC_MIN_UDP_PAYLOAD;
	if (allowance < room)
		room = allowance;
	if (room < QUIC_MIN_UDP_PAYLOAD && !qs->amp.validated &&
	    !quic_path_small_ok(sk))
		return false;
	/*
	 * PTO probes go out whatever the window (RFC 9002 §7.5), and so does
	 * CONNECTION_CLOSE: while closing, no ACK is processed that could
	 * open the window, so a close held back by it never left.
	 */
	ack_only |= quic_cong_window_left(&qs->cong) < room && !qs->probes &&
		    sk->sk_state != QUIC_SS_CLOSING;

	/*
	 * Most calls find nothing to send (quic_output() runs after every
	 * read and every packet received): no skb, and no train tail, for
	 * them; an ACK alone gets a small skb (quic_output_need()).
	 */
	need = quic_output_need(sk, room, ack_only);
	if (!need)
		return false;

	/* The mark it is sent with, read before quic_ecn_on_sent() below. */
	ecn = quic_ecn_tos(sk);
	if (t) {
		gso = quic_output_gso_ok(sk, room, ack_only);
		skb = quic_train_tail(sk, t, gso, room, ecn);
	}
	if (!skb) {
		/*
		 * An ACK alone: a small skb.  A datagram that may carry stream
		 * data: on a page fragment as trains are, so that a receiver
		 * on this host can merge that data (txcache.c).
		 */
		skb = need < room ? alloc_skb(QUIC_TX_HEADROOM + need,
					      GFP_ATOMIC) :
				    quic_train_skb_alloc(QUIC_TX_HEADROOM + room);
		room = need;
		if (!skb)
			return false;
		skb_reserve(skb, QUIC_TX_HEADROOM);
	}
	base = skb->len;

	/* In a train, the APP space alone (quic_output_gso_ok()). */
	for (i = gso ? QUIC_PN_SPACE_APP : 0; i < QUIC_PN_SPACE_MAX; i++) {
		if (!quic_space_wants_send(sk, i))
			continue;
		if (!quic_build_packet(sk, skb, i, room - (skb->len - base),
				       ack_only, &tps[n], now))
			continue;
		quic_seal_packet(skb, &tps[n]);
		has_initial |= i == QUIC_PN_SPACE_INITIAL;
		eliciting |= tps[n].eliciting;
		n++;
		if (skb->len - base + QUIC_HDR_MAX + 64 > room)
			break;
	}
	if (!n)
		goto none;

	/* RFC 9000 §14.1: datagrams with Initial packets fill 1200 bytes. */
	if (has_initial && (!qs->is_server || eliciting) &&
	    skb->len - base < QUIC_MIN_UDP_PAYLOAD)
		quic_pad_last_packet(skb, &tps[n - 1],
				     QUIC_MIN_UDP_PAYLOAD - (skb->len - base));

	for (i = 0; i < n; i++) {
		unsigned int end = i + 1 < n ? tps[i + 1].start : skb->len;

		cpkts[i].skb = skb;
		cpkts[i].off = tps[i].start;
		cpkts[i].len = end - tps[i].start;
		cpkts[i].pn_off = tps[i].hdr.pn_offset;
		cpkts[i].pn_len = tps[i].hdr.pn_len;
		cpkts[i].level = quic_output_level(&tps[i].hdr, tps[i].space);
		cpkts[i].pn = tps[i].hdr.pn;
	}
	batch.pkts = cpkts;
	batch.n = n;
	err = quic_crypto_encrypt_batch(&qs->crypto, &batch);
	for (i = 0; i < n; i++)
		if (cpkts[i].err)
			err = cpkts[i].err;

	for (i = 0; i < n; i++) {
		if (err) {
			/* Nothing left: the frames go back to their queue. */
			list_splice_tail_init(&tps[i].frames,
					      &qs->space[tps[i].space].frames);
			continue;
		}
		quic_record_sent(sk, &tps[i], cpkts[i].len, now);
		if (tps[i].hdr.type == QUIC_PKT_0RTT)
			quic_early_data_on_sent(sk, tps[i].hdr.pn);
		else if (tps[i].space == QUIC_PN_SPACE_APP)
			quic_key_update_on_sent(sk, tps[i].hdr.pn,
						tps[i].acked);
	}
	if (err) {
		/*
		 * crypto.c: the FPU was taken where we ran; try again soon.
		 * In a train the refused datagram is cut off its end, so the
		 * datagrams before it leave (quic_output() flushes) with no
		 * hole, and its frames wait in their queue like the rest.
		 */
		if (err == -EAGAIN)
			quic_timer_pace(sk, now + QUIC_OUTPUT_RETRY_US);
		goto none;
	}
	len = skb->len - base;

	if (eliciting && qs->probes)
		qs->probes--;
	/*
	 * Packets sent before the first RTT sample are not paced, nor are
	 * they charged to the pacer: at kInitialRtt (333 ms) a server's
	 * 1200-byte Initial cost about 20 ms, which held its Handshake
	 * flight that long once a sample of a few milliseconds came.
	 */
	if (eliciting && qs->rtt.has_sample)
		quic_pacer_departure(&qs->pacer,
				     quic_cong_pacing_window(&qs->cong,
							     qs->rtt.smoothed),
				     qs->rtt.smoothed, len, now);
	QUIC_INC_STATS(PKT_SENT, n);
	quic_amp_on_sent(&qs->amp, len);
	if (t && skb == t->skb) {
		if (quic_gso_added(&t->gso, len))
			quic_train_flush(sk, t);
	} else {
		quic_output_xmit(sk, skb, ecn);
	}
	for (i = 0; i < n; i++)
		quic_ecn_on_sent(sk, tps[i].space);

	/* RFC 9001 §4.9.1: a client drops Initial keys once it sends Handshake. */
	for (i = 0; i < n; i++)
		if (!qs->is_server && tps[i].space == QUIC_PN_SPACE_HANDSHAKE)
			quic_conn_discard_space(sk, QUIC_PN_SPACE_INITIAL);
	return true;

none:
	if (t && skb == t->skb)
		skb_trim(skb, base);	/* the train as it was */
	else
		kfree_skb(skb);
	return false;
}

/*
 * A PMTU probe (pmtud.c, RFC 9000 §14.4): one 1-RTT packet, @size bytes
 * with its ACK if one is due, a PING and PADDING.  It keeps no frames, so
 * a lost probe is not sent again.  False if it could not be sent.
 */
bool quic_output_probe(struct sock *sk, u32 size, u64 now)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_crypto_pkt cpkt = {};
	struct quic_crypto_batch batch = { .pkts = &cpkt, .n = 1 };
	struct quic_tx_pkt tp;
	struct sk_buff *skb;
	int err;

	skb = alloc_skb(QUIC_TX_HEADROOM + size, GFP_ATOMIC);
	if (!skb)
		return false;
	skb_reserve(skb, QUIC_TX_HEADROOM);
	if (quic_output_app_type(sk) != QUIC_PKT_1RTT ||
	    !quic_build_packet(sk, skb, QUIC_PN_SPACE_APP, size, true, &tp,
			       now)) {
		kfree_skb(skb);
		return false;
	}
	quic_seal_packet(skb, &tp);
	if (skb->len < size)
		quic_pad_last_packet(skb, &tp, size - skb->len);
	cpkt.skb = skb;
	cpkt.off = tp.start;
	cpkt.len = skb->len - tp.start;
	cpkt.pn_off = tp.hdr.pn_offset;
	cpkt.pn_len = tp.hdr.pn_len;
	cpkt.level = QUIC_CRYPTO_APP;
	cpkt.pn = tp.hdr.pn;
	err = quic_crypto_encrypt_batch(&qs->crypto, &batch) ?: cpkt.err;
	if (err) {
		kfree_skb(skb);
		return false;
	}
	quic_record_sent(sk, &tp, skb->len, now);
	quic_key_update_on_sent(sk, tp.hdr.pn, tp.acked);
	if (qs->rtt.has_sample)
		quic_pacer_departure(&qs->pacer,
				     quic_cong_pacing_window(&qs->cong,
							     qs->rtt.smoothed),
				     qs->rtt.smoothed, skb->len, now);
	QUIC_INC_STATS(PKT_SENT, 1);
	quic_output_xmit(sk, skb, quic_ecn_tos(sk));
	return true;
}

/*
 * When the pacer (RFC 9002 §7.7) lets the next full datagram leave: now
 * unless the window allows sending and the last packets went out faster
 * than 1.25 * cwnd / smoothed_rtt.  No pacing before an RTT sample, nor
 * for PTO probes.
 */
static u64 quic_output_departure(struct sock *sk, u64 now)
{
	struct quic_sock *qs = quic_sk(sk);
	u64 w;

	if (!qs->rtt.has_sample || qs->probes ||
	    quic_cong_window_left(&qs->cong) < qs->max_datagram)
		return now;
	/* cwnd, or the window that gives BBR's pacing rate (cong.h) */
	w = quic_cong_pacing_window(&qs->cong, qs->rtt.smoothed);
	quic_pacer_set_burst(&qs->pacer,
			     quic_cong_initial_window(qs->max_datagram),
			     w, qs->rtt.smoothed);
	return quic_pacer_peek(&qs->pacer, w, qs->rtt.smoothed,
			       qs->max_datagram, now);
}

void quic_output(struct sock *sk)
{
	struct quic_train train = {};
	u64 now = quic_now(), when;
	bool idle = false;
	int i;

	if (sk->sk_state != QUIC_SS_CONNECTING &&
	    sk->sk_state != QUIC_SS_ESTABLISHED)
		return;
	/* Called from within a train's loop: what it built leaves first. */
	if (quic_sk(sk)->tx_train)
		quic_train_flush(sk, quic_sk(sk)->tx_train);
	quic_pmtud_output(sk, now);
	quic_cid_output(sk);	/* NEW_CONNECTION_ID frames due (conn_id.c) */
	/* path.c: a PATH_RESPONSE owed on another path. */
	if (quic_path_probe_begin(sk)) {
		quic_output_datagram(sk, now, false, NULL);
		quic_path_probe_end(sk);
	}
	for (i = 0; i < QUIC_TX_BURST; i++) {
		/* Its close, if any, went after the train (quic_output_xmit()) */
		if (quic_key_update_auto(sk)) {
			quic_train_flush(sk, &train);
			return;		/* closed: AEAD limit */
		}
		when = quic_output_departure(sk, now);
		if (when > now) {
			/* ACKs are not paced; the rest waits for the timer. */
			quic_output_datagram(sk, now, true, &train);
			quic_timer_pace(sk, when);
			break;
		}
		train.burst_left = QUIC_TX_BURST - i;
		if (!quic_output_datagram(sk, now, false, &train)) {
			idle = true;
			break;
		}
	}
	quic_train_flush(sk, &train);
	/* RFC 9002 §7.8: app-limited if it stopped with the window open */
	quic_cong_on_tx_stop(&quic_sk(sk)->cong, idle, now);
	quic_timer_rearm(sk);
}

/*
 * CONNECTION_CLOSE in every space we still have send keys for (RFC 9000
 * §10.2.3: the peer may not have the newer keys yet).  An application
 * close becomes a transport APPLICATION_ERROR outside 1-RTT packets.
 */
void quic_output_close(struct sock *sk, bool app)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_connection_close *ci = &qs->close_info;
	size_t phrase = strnlen(ci->phrase, sizeof(ci->phrase) - 1);
	u8 raw[1 + 8 + 8 + 2 + QUIC_CLOSE_PHRASE_BUFFER_SIZE];
	struct quic_wr wr;
	int i;

	/* Only the close goes out from now on: drop what was queued. */
	for (i = 0; i < QUIC_PN_SPACE_MAX; i++)
		quic_frames_free(&qs->space[i].frames);
	for (i = 0; i < QUIC_PN_SPACE_MAX; i++) {
		u8 level = quic_level_of_space(i);
		bool in_app = app && i == QUIC_PN_SPACE_APP;

		if (qs->space[i].discarded ||
		    !quic_crypto_ready(&qs->crypto, level, true))
			continue;
		quic_wr_init(&wr, raw, sizeof(raw));
		quic_wr_u8(&wr, in_app ? QUIC_FRAME_CONNECTION_CLOSE_APP :
					 QUIC_FRAME_CONNECTION_CLOSE);
		quic_wr_varint(&wr, app && !in_app ?
			       QUIC_TRANSPORT_ERROR_APPLICATION : ci->errcode);
		if (!in_app)
			quic_wr_varint(&wr, app ? 0 : ci->frame);
		quic_wr_varint(&wr, in_app ? phrase : 0);
		if (in_app)
			quic_wr_bytes(&wr, ci->phrase, phrase);
		quic_output_ctrl(sk, level, raw, wr.p - raw,
				 QUIC_FRAME_CONNECTION_CLOSE);
	}
	/* No more handshake data after the close. */
	for (i = 0; i < QUIC_PN_SPACE_MAX; i++)
		qs->space[i].crypto_tx.sent = qs->space[i].crypto_tx.len;
	quic_output_datagram(sk, quic_now(), false, NULL);
}

void quic_frames_free(struct list_head *frames)
{
	struct quic_frame_tx *f, *tmp;

	list_for_each_entry_safe(f, tmp, frames, list) {
		list_del(&f->list);
		quic_frame_tx_free(f);
	}
}

static void quic_sent_pkt_free(struct quic_sent_pkt *sp)
{
	quic_frames_free(&sp->frames);
	quic_sent_pkt_free_rec(sp);
}

void quic_sent_free(struct quic_space *space)
{
	struct quic_sent_pkt *sp, *tmp;

	list_for_each_entry_safe(sp, tmp, &space->sent, list) {
		list_del(&sp->list);
		quic_sent_pkt_free(sp);
	}
	list_for_each_entry_safe(sp, tmp, &space->acked, list) {
		list_del(&sp->list);
		quic_sent_pkt_free(sp);
	}
}

/*
 * Packets the ACK range covers that were declared lost: they were only
 * reordered.  The loss thresholds adapt, and a congestion event caused by
 * nothing but such losses is undone.
 */
static void quic_on_spurious_loss(struct sock *sk, u64 smallest, u64 largest)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_lost_rec rec;

	while (qs->lost_log &&
	       quic_lost_log_take(qs->lost_log, smallest, largest, &rec)) {
		QUIC_INC_STATS(PKT_SPURIOUS, 1);
		quic_reorder_on_spurious(&qs->reorder, rec.distance,
					 rec.by_time);
		if (quic_cong_on_spurious_loss(&qs->cong, rec.episode))
			QUIC_INC_STATS(CONG_UNDO, 1);
	}
}

/*
 * A received ACK frame: move what it covers to space->acked.  Its ranges
 * come largest first and the sent list is in packet number order, so one
 * walk down the list meets them all: a frame of many ranges over many
 * packets in flight costs their sum, not their product.
 */
void quic_on_ack(struct sock *sk, u8 id, const struct quic_frame_ack *ack)
{
	struct quic_space *space = &quic_sk(sk)->space[id];
	struct quic_sent_pkt *sp, *tmp;
	struct quic_ack_iter it;
	u64 smallest, largest;
	bool more;

	quic_ack_iter_init(&it, ack);
	more = quic_ack_iter_next(&it, &smallest, &largest);
	if (id == QUIC_PN_SPACE_APP && more)
		quic_on_spurious_loss(sk, smallest, largest);
	list_for_each_entry_safe_reverse(sp, tmp, &space->sent, list) {
		while (more && sp->meta.pn < smallest) {
			more = quic_ack_iter_next(&it, &smallest, &largest);
			if (id == QUIC_PN_SPACE_APP && more)
				quic_on_spurious_loss(sk, smallest, largest);
		}
		if (!more)
			break;
		if (sp->meta.pn <= largest)
			list_move(&sp->list, &space->acked);
	}
	/* Ranges below everything in flight may still undo a loss. */
	while (id == QUIC_PN_SPACE_APP && more) {
		more = quic_ack_iter_next(&it, &smallest, &largest);
		if (more)
			quic_on_spurious_loss(sk, smallest, largest);
	}
}

/* The frames of a packet just acknowledged: streams learn of it. */
static void quic_frames_acked(struct sock *sk, struct list_head *frames)
{
	struct quic_frame_tx *f;

	list_for_each_entry(f, frames, list)
		if (f->type == QUIC_FRAME_STREAM ||
		    f->type == QUIC_FRAME_RESET_STREAM)
			quic_stream_frame_acked(sk, f);
}

/*
 * Send the frames of a lost packet again and forget the packet.  Stream
 * flow-control and state frames are rewritten with current values.
 */
static void quic_on_lost(struct sock *sk, struct quic_space *space,
			 struct quic_sent_pkt *sp)
{
	struct quic_frame_tx *f, *tmp;

	list_del(&sp->list);
	list_for_each_entry_safe(f, tmp, &sp->frames, list) {
		if (quic_datagram_frame_lost(sk, f) ||
		    quic_stream_frame_lost(sk, f)) {
			list_del(&f->list);
			quic_frame_tx_free(f);
			continue;
		}
		list_move_tail(&f->list, &space->frames);
	}
	quic_sent_pkt_free_rec(sp);
}

#define QUIC_LOST_BATCH	32

/*
 * An APP packet declared lost goes into the log that shows later whether
 * the loss was spurious (recovery.h).  The log is allocated at the first
 * loss, as a connection without loss never needs it, and charged to the
 * socket: one per connection.  Without memory the loss is not logged, so
 * if it was spurious nothing is undone, as when the log has wrapped.
 */
static struct quic_lost_rec *quic_lost_log_rec(struct sock *sk, u64 pn,
					       u64 distance, bool by_time)
{
	struct quic_sock *qs = quic_sk(sk);

	if (!qs->lost_log) {
		qs->lost_log = quic_obj_alloc(sk, sizeof(*qs->lost_log),
					      GFP_ATOMIC);
		if (!qs->lost_log)
			return NULL;
	}
	return quic_lost_log_add(qs->lost_log, pn,
				 min_t(u64, distance, U32_MAX), by_time);
}

/* The lost packets just given to congestion control: which event was it. */
static void quic_lost_recs_episode(const struct quic_cong *c,
				   struct quic_lost_rec **recs, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (recs[i])
			recs[i]->episode = c->episode;
}

static void quic_detect_loss(struct sock *sk, u8 id, u64 now)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *space = &qs->space[id];
	struct quic_sent_meta lost[QUIC_LOST_BATCH];
	struct quic_lost_rec *recs[QUIC_LOST_BATCH];
	bool app = id == QUIC_PN_SPACE_APP;
	struct quic_sent_pkt *sp, *tmp;
	struct quic_loss_walk w;
	struct quic_pc_walk pc;
	u32 n = 0;

	if (space->largest_acked == QUIC_PN_NONE)
		return;
	quic_loss_walk_begin(&w, &qs->rtt, space->largest_acked, now);
	/* §7.6.2 over every packet this walk declares lost, not per batch */
	quic_pc_walk_begin(&pc, &qs->rtt, qs->ld.max_ack_delay);
	if (app)
		quic_loss_walk_adapt(&w, &qs->rtt, &qs->reorder);
	list_for_each_entry_safe(sp, tmp, &space->sent, list) {
		enum quic_loss_verdict v = quic_loss_walk_step(&w, &sp->meta);

		if (v == QUIC_LOSS_STOP)
			break;
		if (v != QUIC_LOSS_LOST)
			continue;
		quic_ld_on_packet_removed(&qs->ld, id, &sp->meta);
		if (quic_pmtud_lost(sk, id, &sp->meta)) {
			/* A lost PMTU probe is no congestion (§14.4). */
			quic_cong_on_packet_removed(&qs->cong, &sp->meta);
			quic_on_lost(sk, space, sp);
			continue;
		}
		QUIC_INC_STATS(PKT_LOST, 1);
		recs[n] = !app ? NULL :
			  quic_lost_log_rec(sk, sp->meta.pn,
					    w.largest_acked - sp->meta.pn,
					    w.by_time);
		lost[n++] = sp->meta;
		quic_pc_walk_step(&pc, &sp->meta);
		quic_on_lost(sk, space, sp);
		if (n == QUIC_LOST_BATCH) {
			quic_cong_on_packets_lost(&qs->cong, lost, n, false, now);
			quic_lost_recs_episode(&qs->cong, recs, n);
			n = 0;
		}
	}
	qs->ld.space[id].loss_time = w.loss_time;
	if (n || pc.persistent) {
		quic_cong_on_packets_lost(&qs->cong, lost, n, pc.persistent,
					  now);
		quic_lost_recs_episode(&qs->cong, recs, n);
		if (pc.persistent) {
			QUIC_INC_STATS(PERSISTENT, 1);
			quic_rtt_reset_min(&qs->rtt);
		}
	}
}

/* After all ranges of an ACK frame: RTT, congestion control, loss. */
void quic_on_ack_done(struct sock *sk, u8 id, const struct quic_frame_ack *ack)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *space = &qs->space[id];
	struct quic_sent_pkt *sp, *tmp, *largest = NULL;
	bool eliciting = false;
	u64 now = quic_now();

	if (list_empty(&space->acked))
		return;
	list_for_each_entry(sp, &space->acked, list) {
		eliciting |= sp->meta.ack_eliciting;
		if (sp->meta.pn == ack->largest)
			largest = sp;
	}
	quic_ecn_on_ack(sk, id, ack, now);
	if (space->largest_acked == QUIC_PN_NONE ||
	    ack->largest > space->largest_acked)
		space->largest_acked = ack->largest;

	/* RFC 9002 §5.1: a sample only when the largest is newly acked. */
	if (largest && eliciting) {
		u64 delay = id == QUIC_PN_SPACE_APP ?
			    ack->delay << qs->peer_tp.ack_delay_exponent : 0;

		quic_rtt_update(&qs->rtt, now - largest->meta.sent_time,
				delay, qs->ld.max_ack_delay, id,
				qs->handshake_confirmed, now);
	}
	if (id == QUIC_PN_SPACE_HANDSHAKE && !qs->is_server)
		qs->ld.handshake_ack_received = true;

	list_for_each_entry_safe(sp, tmp, &space->acked, list) {
		quic_ld_on_packet_removed(&qs->ld, id, &sp->meta);
		quic_cong_on_packet_acked(&qs->cong, &sp->meta, &qs->rtt, now);
		quic_pmtud_acked(sk, id, &sp->meta);
		list_del(&sp->list);
		quic_frames_acked(sk, &sp->frames);
		quic_sent_pkt_free(sp);
	}
	quic_detect_loss(sk, id, now);
	quic_ld_on_ack_received(&qs->ld);
}

/*
 * Loss timer: time-threshold loss in @id, or a PTO probe (RFC 9002 §6.2.4):
 * send the data still unacknowledged in @id again, or a PING if none.
 */
void quic_retransmit_space(struct sock *sk, u8 id, bool pto)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *space = &qs->space[id];
	static const u8 ping = QUIC_FRAME_PING;
	struct quic_frame_tx *f, *copy;
	struct quic_sent_pkt *sp;
	bool queued = false;
	int packets = 0;

	if (!pto) {
		quic_detect_loss(sk, id, quic_now());
		return;
	}
	quic_ld_on_pto(&qs->ld);
	quic_pmtud_pto(sk);
	QUIC_INC_STATS(PTO, 1);
	qs->probes = 2;
	/*
	 * The oldest frames in flight make the probes (§6.2.4), even with new
	 * data waiting: if they were lost, the receiver's hole fills now, not
	 * one round trip later.  Queued frames go before new data.
	 */
	list_for_each_entry(sp, &space->sent, list) {
		if (id == QUIC_PN_SPACE_APP && packets++ == 2)
			break;
		list_for_each_entry(f, &sp->frames, list) {
			/* Datagrams are never sent again. */
			if (f->type == QUIC_FRAME_DATAGRAM ||
			    quic_stream_frame_lost(sk, f))
				continue;
			copy = quic_frame_tx_dup(f);
			if (!copy)
				break;
			list_add_tail(&copy->list, &space->frames);
			queued = true;
		}
	}
	if (!queued && !space->discarded)
		quic_output_ctrl(sk, quic_level_of_space(id), &ping, 1,
				 QUIC_FRAME_PING);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Retry (RFC 9000 §8.1.2, §17.2.5; RFC 9001 §5.8) and NEW_TOKEN (RFC 9000
 * §8.1.3, §19.7).
 *
 * Server.  A listener answers a client Initial that carries no valid token
 * with a Retry, statelessly, from its receive path (input.c for a lone
 * listener, dispatch.c with several): when QUIC_SOCKOPT_CONFIG's
 * validate_peer_address is set, and on its own when the port's pending
 * connections reach net.quic.retry_threshold, the defence against Initial
 * floods (a spoofed source never returns the token).  The Retry token
 * (token.c) carries the original DCID and is bound to the client's address
 * and port and to the Retry's SCID, so the connection made from the next
 * Initial recovers the ODCID for original_destination_connection_id and
 * knows retry_source_connection_id without any state kept in between.  A
 * valid token, Retry or NEW_TOKEN, validates the client's address: no
 * amplification limit.  An Initial with a Retry token that fails (forged,
 * expired, for another address) is dropped; a NEW_TOKEN token that fails
 * is ignored (§8.1.3), as is a token that is not ours.
 *
 * Client.  It follows at most one Retry, only before any other packet of
 * the server: the integrity tag checked with the original DCID, the
 * Retry's SCID becomes the DCID, the Initial keys are derived again from
 * it, and the ClientHello goes again, from offset 0, in Initials that
 * carry the token; packet numbers go on increasing (§17.2.5.3).  Deriving
 * keys sleeps, so that part runs in retry_work.  sockopt.c checks the
 * server's retry_source_connection_id against the Retry's SCID.
 *
 * A Retry sent while an earlier copy of the same Initial waits in a
 * listener's queue (the threshold was reached meanwhile: a client
 * retransmits when the server runs behind) supersedes that copy: the
 * client goes on with the Retry's SCID and keys, and a connection made of
 * the copy could never complete.  So the Retries of the last
 * QUIC_RETRIED_RING Initials are remembered, by a hash of their port and
 * DCID, and accept() drops the copies queued before them
 * (quic_retry_superseded(), drop_retry_superseded).  Each is dropped
 * once: if the Retry was lost, the client's next copy makes the
 * connection.
 *
 * NEW_TOKEN.  A server queues one when its handshake completes
 * (net.quic.new_token, on by default) and when the application asks
 * (QUIC_SOCKOPT_TOKEN set with no value).  A client keeps the last one
 * (QUIC_SOCKOPT_TOKEN reads it) and raises QUIC_EVENT_NEW_TOKEN.
 */

#include <linux/jhash.h>
#include <linux/random.h>

#include "retry.h"
#include "socket.h"
#include "udp.h"
#include "varint.h"

/* Retry: header, CIDs, token, tag; within a minimal UDP payload. */
#define QUIC_RETRY_MAX	(7 + 2 * QUIC_CID_MAX_LEN + QUIC_TOKEN_LEN_MAX + \
			 QUIC_CRYPTO_TAG_LEN)
#define QUIC_RETRY_HEADROOM	(MAX_HEADER + sizeof(struct ipv6hdr) + \
				 sizeof(struct udphdr))

/*
 * Hashes of the port and DCID of the last Initials answered with a Retry,
 * for all ports: written in softirq, read and cleared by accept(); a slot
 * is one word, written and cleared whole, and a stale or lost one costs
 * at most one connection made or one Initial dropped.  0 is a free slot.
 */
#define QUIC_RETRIED_RING	256
static u32 quic_retried[QUIC_RETRIED_RING];
static atomic_t quic_retried_next;
static u32 quic_retried_seed __read_mostly;

static u32 quic_retried_hash(const struct quic_udp_sock *us,
			     const struct quic_cid *dcid)
{
	u32 h;

	net_get_random_once(&quic_retried_seed, sizeof(quic_retried_seed));
	h = jhash(dcid->data, dcid->len,
		  quic_retried_seed ^ hash32_ptr(us));
	return h ?: 1;
}

static void quic_retried_add(const struct quic_udp_sock *us,
			     const struct quic_cid *dcid)
{
	unsigned int i = atomic_inc_return(&quic_retried_next);

	WRITE_ONCE(quic_retried[i % QUIC_RETRIED_RING],
		   quic_retried_hash(us, dcid));
}

/**
 * quic_retry_superseded - was a Retry sent for this queued Initial?
 * @us: the port it came to
 * @dcid: its Destination Connection ID
 *
 * accept(), for an Initial about to make a connection: true if a Retry
 * answered a copy of it since (see the top of this file); the mark goes.
 */
bool quic_retry_superseded(const struct quic_udp_sock *us,
			   const struct quic_cid *dcid)
{
	u32 h;
	int i;

	if (!atomic_read(&quic_retried_next))
		return false;
	h = quic_retried_hash(us, dcid);
	for (i = 0; i < QUIC_RETRIED_RING; i++)
		if (READ_ONCE(quic_retried[i]) == h &&
		    cmpxchg(&quic_retried[i], h, 0) == h)
			return true;
	return false;
}

/* Answer the client Initial @in (header @hdr) with a Retry. */
static void quic_retry_send(struct quic_udp_sock *us, struct sock *sk,
			    const struct sk_buff *in,
			    const struct quic_hdr *hdr)
{
	struct quic_token t = { .type = QUIC_TOKEN_RETRY };
	u8 tok[QUIC_TOKEN_LEN_MAX];
	struct quic_cid rscid;
	struct sk_buff *skb;
	int tlen, n;
	u8 *p;

	quic_cid_random(&rscid, QUIC_SCID_LEN);
	t.expiry = quic_now() + QUIC_TOKEN_RETRY_LIFE;
	t.odcid = hdr->dcid;
	tlen = quic_token_make(us, &t, &QUIC_INPUT_CB(in)->peer, &rscid, tok,
			       sizeof(tok));
	if (tlen < 0)
		return;
	skb = alloc_skb(QUIC_RETRY_HEADROOM + QUIC_RETRY_MAX, GFP_ATOMIC);
	if (!skb)
		return;
	skb_reserve(skb, QUIC_RETRY_HEADROOM);
	p = skb_tail_pointer(skb);
	n = quic_hdr_encode_retry(p, QUIC_RETRY_MAX - QUIC_CRYPTO_TAG_LEN,
				  hdr->version, get_random_u8(), &hdr->scid,
				  &rscid, tok, tlen);
	if (n < 0 || quic_crypto_retry_tag(hdr->version, hdr->dcid.data,
					   hdr->dcid.len, p, n, p + n)) {
		kfree_skb(skb);
		return;
	}
	skb_put(skb, n + QUIC_CRYPTO_TAG_LEN);
	quic_retried_add(us, &hdr->dcid);
	if (!quic_udp_xmit_reply(us, sk, skb, QUIC_INPUT_CB(in)))
		QUIC_INC_STATS(RETRY_SENT, 1);
}

/**
 * quic_retry_listen - a listener's decision on a client Initial
 * @us: the port it came to
 * @sk: the listener (its SO_MARK and device route the Retry), or NULL
 * @validate: a Retry is owed to every client without a valid token
 * @skb: the datagram, whose first packet is the Initial
 * @hdr: its header
 *
 * Softirq or the listener's backlog.  Return: true if @skb was answered
 * with a Retry or dropped (consumed); false if it goes on to make a
 * connection.
 */
bool quic_retry_listen(struct quic_udp_sock *us, struct sock *sk,
		       bool validate, struct sk_buff *skb,
		       const struct quic_hdr *hdr)
{
	int threshold = READ_ONCE(sysctl_quic_retry_threshold);
	struct quic_token t;
	int err;

	if (hdr->token_len) {
		err = quic_token_check(us, hdr->token, hdr->token_len,
				       &QUIC_INPUT_CB(skb)->peer, &hdr->dcid,
				       quic_now(), &t);
		if (!err) {
			QUIC_INC_STATS(TOKEN_OK, 1);
			return false;
		}
		QUIC_INC_STATS(TOKEN_BAD, 1);
		if (t.type == QUIC_TOKEN_RETRY) {
			/* §8.1.2: to drop is allowed; it costs us nothing. */
			QUIC_DROP(sk, TOKEN);
			kfree_skb(skb);
			return true;
		}
		/* §8.1.3: a NEW_TOKEN token, or not ours: ignored. */
	}
	if (!validate &&
	    !(threshold && atomic_read(&us->pending) >= threshold))
		return false;
	quic_retry_send(us, sk, skb, hdr);
	consume_skb(skb);
	return true;
}

/*
 * Server, the new connection @sk from an Initial of @peer with header
 * @hdr, keys and CIDs set up: a valid token validates the address, and a
 * Retry token gives the ODCID and the Retry SCID for our transport
 * parameters.  The listener checked expiry already.
 */
void quic_retry_conn_accept(struct sock *sk, const struct quic_hdr *hdr,
			    const union quic_addr *peer)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_token t;

	if (!hdr->token_len ||
	    quic_token_check(qs->udp, hdr->token, hdr->token_len, peer,
			     &hdr->dcid, 0, &t))
		return;
	if (t.type == QUIC_TOKEN_NEW &&
	    quic_token_expired(&t, quic_now()))
		return;
	if (t.type == QUIC_TOKEN_RETRY) {
		qs->odcid = t.odcid;
		qs->local_tp.original_dcid = t.odcid;
		qs->retry_scid = hdr->dcid;
		qs->retry_done = true;
		qs->local_tp.retry_scid = hdr->dcid;
		quic_tp_mark(&qs->local_tp, QUIC_TPB_RETRY_SCID);
	}
	/* RFC 9000 §8.1: the client proved it receives at its address. */
	quic_amp_validate(&qs->amp);
}

static void quic_retry_work(struct work_struct *work);

void quic_retry_init(struct sock *sk)
{
	INIT_WORK(&quic_sk(sk)->retry_work, quic_retry_work);
}

/* Process context, no socket lock held: the socket is being destroyed. */
void quic_retry_free(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	if (cancel_work_sync(&qs->retry_work))
		__sock_put(sk);	/* the reference of the work not run */
	if (qs->retry_token)
		quic_obj_free(sk, qs->retry_token, qs->retry_token_len);
	qs->retry_token = NULL;
	qs->retry_token_len = 0;
}

/**
 * quic_retry_rcv - a client receives a Retry
 * @sk: the connection, socket lock held
 * @pkt: the Retry packet, the rest of its datagram
 * @hdr: its parsed header (the token is not empty)
 *
 * Followed only once, before any other packet of the server, and only
 * with a valid integrity tag (RFC 9000 §17.2.5.2); anything else is
 * dropped.
 */
void quic_retry_rcv(struct sock *sk, const u8 *pkt, const struct quic_hdr *hdr)
{
	struct quic_sock *qs = quic_sk(sk);
	u8 *token;

	if (qs->is_server || qs->retry_done || qs->peer_scid_set ||
	    sk->sk_state != QUIC_SS_CONNECTING ||
	    qs->space[QUIC_PN_SPACE_INITIAL].largest_rx != QUIC_PN_NONE ||
	    hdr->version != qs->version || !hdr->token_len ||
	    hdr->token_len > QUIC_TOKEN_MAX ||
	    quic_crypto_retry_verify(qs->version, qs->odcid.data,
				     qs->odcid.len, pkt, hdr->pkt_len)) {
		QUIC_DROP(sk, RETRY);
		return;
	}
	token = quic_obj_alloc(sk, hdr->token_len, GFP_ATOMIC);
	if (!token)
		return;		/* the server's next Retry may do */
	memcpy(token, hdr->token, hdr->token_len);
	qs->retry_token = token;
	qs->retry_token_len = hdr->token_len;
	qs->retry_scid = hdr->scid;
	qs->retry_done = true;
	QUIC_INC_STATS(RETRY_RECV, 1);
	quic_queue_work(sk, &qs->retry_work);
}

/*
 * The client's Initial space starts again: what was in flight is gone
 * without being declared lost (RFC 9002 §6.3), and the ClientHello is to
 * be sent again from its first byte.
 */
static void quic_retry_restart_initial(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *space = &qs->space[QUIC_PN_SPACE_INITIAL];
	struct quic_sent_pkt *p;

	list_for_each_entry(p, &space->sent, list)
		quic_cong_on_packet_removed(&qs->cong, &p->meta);
	quic_sent_free(space);
	quic_frames_free(&space->frames);
	space->in_flight = 0;
	space->crypto_tx.sent = 0;
	quic_ld_discard_space(&qs->ld, QUIC_PN_SPACE_INITIAL);
}

static void quic_retry_work(struct work_struct *work)
{
	struct quic_sock *qs = container_of(work, struct quic_sock, retry_work);
	struct sock *sk = &qs->inet.sk;
	int err;

	lock_sock(sk);
	if (sk->sk_state == QUIC_SS_CONNECTING && !qs->peer_scid_set) {
		err = quic_crypto_set_initial(&qs->crypto, qs->retry_scid.data,
					      qs->retry_scid.len, false);
		if (err) {
			quic_conn_abort(sk, QUIC_TRANSPORT_ERROR_INTERNAL, 0);
		} else {
			quic_cid_set_first_dcid(&qs->cids, &qs->retry_scid);
			quic_retry_restart_initial(sk);
			quic_output(sk);
			quic_timer_rearm(sk);
		}
	}
	release_sock(sk);
	sock_put(sk);		/* quic_queue_work()'s */
}

/*
 * Server, handshake complete: queue a NEW_TOKEN frame with a token for the
 * client's IP address.  Socket lock held.
 */
int quic_new_token_send(struct sock *sk)
{
	struct quic_token t = { .type = QUIC_TOKEN_NEW };
	struct quic_sock *qs = quic_sk(sk);
	u8 raw[1 + 1 + QUIC_TOKEN_LEN_MAX];
	struct quic_wr wr;
	int n, err;

	BUILD_BUG_ON(QUIC_TOKEN_LEN_MAX >= 64);
	t.expiry = quic_now() + QUIC_TOKEN_NEW_LIFE;
	get_random_bytes(t.nonce, sizeof(t.nonce));
	quic_wr_init(&wr, raw, sizeof(raw));
	quic_wr_u8(&wr, QUIC_FRAME_NEW_TOKEN);
	n = quic_token_make(qs->udp, &t, &qs->peer, NULL, raw + 2,
			    sizeof(raw) - 2);
	if (n < 0)
		return n;
	raw[1] = n;		/* a 1-byte varint: n < 64 */
	err = quic_output_ctrl(sk, QUIC_CRYPTO_APP, raw, 2 + n,
			       QUIC_FRAME_NEW_TOKEN);
	if (!err)
		QUIC_INC_STATS(NEW_TOKEN_SENT, 1);
	return err;
}

/*
 * Client: a NEW_TOKEN frame (the decoder refused it to a server).  The
 * token replaces the one kept; one too long to keep is ignored.  Socket
 * lock held.
 */
int quic_new_token_rcv(struct sock *sk, const u8 *token, u64 len)
{
	u8 *buf;

	if (len > QUIC_TOKEN_MAX)
		return 0;
	buf = kmemdup(token, len, GFP_ATOMIC);
	if (!buf)
		return -ENOMEM;
	quic_token_set(sk, buf, len);
	quic_event_queue(sk, QUIC_EVENT_NEW_TOKEN, token, len);
	return 0;
}

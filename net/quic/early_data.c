// SPDX-License-Identifier: GPL-2.0
/*
 * 0-RTT: the client's early stream data, the server's reading of it, the
 * rejection of it, and the module's replay filter (early_data.h).
 *
 * Client.  The transport parameters remembered from an earlier connection
 * (QUIC_SOCKOPT_TRANSPORT_PARAM, remote = 1) open the streams at the first
 * sendmsg() of a connecting socket; what is written goes out in 0-RTT
 * packets (APP packet-number space, EARLY keys) once libquic has installed
 * the 0-RTT send key and the ClientHello is written, coalesced after the
 * Initial.  Only those remembered limits apply to 0-RTT (RFC 9000 §7.4.1):
 * the server's real parameters, which arrive in the handshake, are applied
 * to the streams when the 1-RTT send key is installed.  Then, if the
 * server accepted 0-RTT, none of the limits may be below the remembered
 * ones (PROTOCOL_VIOLATION); if it rejected it (libquic's signal), the
 * streams start again from offset 0 under the new limits (RFC 9001 §4.6.2:
 * the client resets the streams' state; the application's data is kept
 * and sent again, so it loses nothing).  If the new limits cannot carry
 * what was already written, the connection fails with ECONNABORTED.
 *
 * Server.  0-RTT packets are read once libquic installs the 0-RTT receive
 * key; until then, while the handshake may still give one, they wait in
 * the hold queue (input.c, bounded); once the handshake is complete without
 * one they are dropped (counted as drop_zero_rtt).  Their stream data is
 * readable after the handshake completes (recvmsg() gives no stream data
 * to a connecting socket, where libquic reads handshake messages).  0-RTT
 * keys stop being used three PTOs after the first 1-RTT packet (RFC 9001
 * §4.9.3), and are freed (discard_work) at the first packet read after
 * that; a client frees its 0-RTT key when its 1-RTT keys are in.
 *
 * Replay filter.  The ClientHello.random of every connection whose 0-RTT
 * receive key is installed is remembered, per network namespace (a
 * replayed flight reaches the namespace of the address it was sent to),
 * for QUIC_REPLAY_WINDOW; a second install for the same random (a replayed
 * first flight, whoever runs the handshake: another process, another
 * listener socket on the same port) is refused with -EALREADY, so that its
 * 0-RTT packets are never read.  The filter holds QUIC_REPLAY_SLOTS
 * entries, allocated at the namespace's first 0-RTT key (or -ENOMEM: no
 * 0-RTT) and freed with the namespace; when all are younger than the
 * window, installs are refused with -EBUSY: no 0-RTT rather than an
 * unprotected one.  Older replays are refused by TLS itself (libquic's
 * GnuTLS anti-replay window, 10 s).
 */

#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>

#include "compatvn.h"
#include "socket.h"
#include "txcache.h"

#define QUIC_REPLAY_SLOTS	4096
#define QUIC_REPLAY_WINDOW	(60 * HZ)

/* Where ClientHello.random lies in the CRYPTO stream: after the handshake
 * header (4 bytes) and legacy_version (2 bytes).
 */
#define QUIC_HELLO_RANDOM_OFF	6
#define QUIC_HELLO_RANDOM_FULL	U32_MAX

struct quic_replay_slot {
	u8		random[QUIC_HELLO_RANDOM_LEN];
	unsigned long	expires;	/* jiffies */
	bool		used;
};

/* A network namespace's replay filter. */
struct quic_replay_net {
	spinlock_t		lock;	/* protects slots and next */
	/* QUIC_REPLAY_SLOTS of them, made at first use */
	struct quic_replay_slot	*slots;
	unsigned int		next;	/* the oldest slot, written next */
};

static unsigned int quic_replay_net_id __read_mostly;

/*
 * Remember @random in @net's filter; -EALREADY if it was seen, -EBUSY if
 * there is no room, -ENOMEM.  Process context.
 */
static int quic_replay_check(struct net *net, const u8 *random)
{
	struct quic_replay_net *rn = net_generic(net, quic_replay_net_id);
	struct quic_replay_slot *slot, *slots = NULL;
	unsigned long now = jiffies;
	int i, err = 0;

	if (!READ_ONCE(rn->slots)) {
		slots = kvcalloc(QUIC_REPLAY_SLOTS, sizeof(*slots), GFP_KERNEL);
		if (!slots)
			return -ENOMEM;
	}
	spin_lock_bh(&rn->lock);
	if (!rn->slots) {
		WRITE_ONCE(rn->slots, slots);
		slots = NULL;
	}
	for (i = 0; i < QUIC_REPLAY_SLOTS; i++) {
		slot = &rn->slots[i];
		if (slot->used && time_before(now, slot->expires) &&
		    !memcmp(slot->random, random, QUIC_HELLO_RANDOM_LEN)) {
			err = -EALREADY;
			goto out;
		}
	}
	slot = &rn->slots[rn->next];
	if (slot->used && time_before(now, slot->expires)) {
		err = -EBUSY;
		goto out;
	}
	memcpy(slot->random, random, QUIC_HELLO_RANDOM_LEN);
	slot->expires = now + QUIC_REPLAY_WINDOW;
	slot->used = true;
	rn->next = (rn->next + 1) % QUIC_REPLAY_SLOTS;
out:
	spin_unlock_bh(&rn->lock);
	kvfree(slots);		/* another install made them first */
	return err;
}

static int __net_init quic_replay_net_init(struct net *net)
{
	struct quic_replay_net *rn = net_generic(net, quic_replay_net_id);

	spin_lock_init(&rn->lock);
	rn->slots = NULL;
	rn->next = 0;
	return 0;
}

static void __net_exit quic_replay_net_exit(struct net *net)
{
	struct quic_replay_net *rn = net_generic(net, quic_replay_net_id);

	kvfree(rn->slots);
	rn->slots = NULL;
}

static struct pernet_operations quic_replay_net_ops = {
	.init = quic_replay_net_init,
	.exit = quic_replay_net_exit,
	.id = &quic_replay_net_id,
	.size = sizeof(struct quic_replay_net),
};

int quic_early_data_init(void)
{
	return register_pernet_subsys(&quic_replay_net_ops);
}

void quic_early_data_exit(void)
{
	unregister_pernet_subsys(&quic_replay_net_ops);
}

/*
 * Process context, socket lock held: the 0-RTT keys can no longer be used
 * (a client's once its 1-RTT keys are in, a server's once rx_closed): they
 * go now rather than with the socket.
 */
static void quic_early_data_discard(struct sock *sk)
{
	quic_crypto_discard(&quic_sk(sk)->crypto, QUIC_CRYPTO_EARLY);
}

static void quic_early_data_discard_work(struct work_struct *work)
{
	struct quic_sock *qs = container_of(work, struct quic_sock,
					    early.discard_work);
	struct sock *sk = &qs->inet.sk;

	lock_sock(sk);
	if (qs->early.rx_closed)
		quic_early_data_discard(sk);
	release_sock(sk);
	sock_put(sk);		/* quic_queue_work()'s */
}

void quic_early_data_sock_init(struct sock *sk)
{
	INIT_WORK(&quic_sk(sk)->early.discard_work,
		  quic_early_data_discard_work);
}

/* Process context, no socket lock held: the socket is being destroyed. */
void quic_early_data_sock_free(struct sock *sk)
{
	struct quic_early *e = &quic_sk(sk)->early;

	if (cancel_work_sync(&e->discard_work))
		__sock_put(sk);	/* the reference of the work not run */
	quic_obj_free(sk, e->tp, sizeof(*e->tp));
	e->tp = NULL;
}

/* Server: 0-RTT packets are no longer read; their keys go soon. */
static void quic_early_data_rx_close(struct sock *sk)
{
	struct quic_early *e = &quic_sk(sk)->early;

	if (e->rx_closed)
		return;
	e->rx_closed = true;
	if (quic_crypto_ready(&quic_sk(sk)->crypto, QUIC_CRYPTO_EARLY, false))
		quic_queue_work(sk, &e->discard_work);
}

/* Client: the server's parameters remembered for 0-RTT (sockopt.c). */
int quic_early_data_remote_tp(struct sock *sk,
			      const struct quic_transport_params *tp)
{
	struct quic_early *e = &quic_sk(sk)->early;

	if (!e->tp) {
		e->tp = quic_obj_alloc(sk, sizeof(*e->tp), GFP_KERNEL);
		if (!e->tp)
			return -ENOMEM;
	}
	*e->tp = *tp;
	return 0;
}

static bool quic_early_data_client(const struct sock *sk)
{
	const struct quic_sock *qs = quic_sk(sk);

	return !qs->is_server && qs->peer_tp_saved &&
	       sk->sk_state == QUIC_SS_CONNECTING;
}

/*
 * sendmsg() on streams: an established connection, or a connecting client
 * with remembered parameters (0-RTT), whose streams open under them at the
 * first call.  -ENOTCONN otherwise, as without 0-RTT.
 */
int quic_early_data_send_check(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	if (sk->sk_state == QUIC_SS_ESTABLISHED)
		return 0;
	if (!quic_early_data_client(sk))
		return -ENOTCONN;
	if (!qs->streams.ready) {
		qs->peer_tp = *qs->early.tp;
		quic_streams_set_params(sk, &qs->local_tp, qs->early.tp);
		qs->early.tp_applied = true;
	}
	return qs->early.tp_applied ? 0 : -ENOTCONN;
}

/* May a stream sender wait on this socket (stream_send.c)? */
bool quic_early_data_stream_live(const struct sock *sk)
{
	int state = READ_ONCE(sk->sk_state);

	return state == QUIC_SS_ESTABLISHED ||
	       (state == QUIC_SS_CONNECTING && quic_sk(sk)->early.tp_applied);
}

/*
 * Output: may the APP space go out in 0-RTT packets now?  Only after the
 * ClientHello is written, so that the first 0-RTT packet follows the
 * Initial in the same datagram, and never after 1-RTT keys (§4.9.3).
 * Never once the server moved us to another version either (RFC 9369 §4.1:
 * no 0-RTT in the negotiated version, and every packet we send is in it):
 * what waits, or is lost, goes in 1-RTT.
 */
bool quic_early_data_can_send(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	return !qs->is_server && qs->early.tp_applied && !qs->early.rejected &&
	       !qs->compat_orig && !qs->compat_to &&
	       qs->space[QUIC_PN_SPACE_INITIAL].crypto_tx.sent &&
	       quic_crypto_ready(&qs->crypto, QUIC_CRYPTO_EARLY, true) &&
	       !quic_crypto_ready(&qs->crypto, QUIC_CRYPTO_APP, true);
}

void quic_early_data_on_sent(struct sock *sk, u64 pn)
{
	struct quic_early *e = &quic_sk(sk)->early;

	e->used = true;
	e->last_pn = pn;
	QUIC_INC_STATS(EARLY_SENT, 1);
}

/*
 * The 0-RTT packets in flight no longer count (RFC 9001 §4.6.2: rejected,
 * or gone with a Retry): out of recovery and congestion control without a
 * loss.  @keep: their frames are queued again; else they are freed, as the
 * streams send their data again from the start.
 */
static void quic_early_data_drop_flight(struct sock *sk, bool keep)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *space = &qs->space[QUIC_PN_SPACE_APP];
	struct quic_sent_pkt *sp, *tmp;
	struct quic_frame_tx *f, *ftmp;

	list_for_each_entry_safe(sp, tmp, &space->sent, list) {
		if (sp->meta.pn > qs->early.last_pn)
			break;
		list_del(&sp->list);
		quic_ld_on_packet_removed(&qs->ld, QUIC_PN_SPACE_APP, &sp->meta);
		quic_cong_on_packet_removed(&qs->cong, &sp->meta);
		list_for_each_entry_safe(f, ftmp, &sp->frames, list) {
			list_del(&f->list);
			if (quic_stream_frame_lost(sk, f) ||
			    (!keep && f->type == QUIC_FRAME_STREAM)) {
				quic_frame_tx_free(f);
				continue;
			}
			list_add_tail(&f->list, &space->frames);
		}
		quic_sent_pkt_free_rec(sp);
	}
	if (!keep)
		quic_frames_free(&space->frames);
	quic_timer_rearm(sk);
}

/*
 * For the Retry of a client (connection.c): the 0-RTT packets sent so far
 * were not read; their frames go again, in new 0-RTT packets (RFC 9000
 * §17.2.5.3) or in 1-RTT ones.
 */
void quic_early_data_reset(struct sock *sk)
{
	if (!quic_sk(sk)->early.used)
		return;
	quic_early_data_drop_flight(sk, true);
}

/* The limits a stream of ours gets from the peer's parameters @tp. */
static u64 quic_early_stream_max(const struct quic_stream *s,
				 const struct quic_transport_params *tp)
{
	return quic_stream_id_is_uni(s->id) ?
	       tp->initial_max_stream_data_uni :
	       tp->initial_max_stream_data_bidi_remote;
}

/*
 * Rejected: every stream of ours starts again from offset 0 under the
 * server's real parameters.  -ENOSPC if those cannot carry what was
 * written already.
 */
static int quic_early_data_restart_streams(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	const struct quic_transport_params *tp = &qs->peer_tp;
	struct quic_streams *st = &qs->streams;
	struct quic_stream *s;
	int i;

	if (st->written > tp->initial_max_data ||
	    st->local_next[0] > tp->initial_max_streams_bidi ||
	    st->local_next[1] > tp->initial_max_streams_uni)
		return -ENOSPC;
	st->send_max = tp->initial_max_data;
	st->local_max[0] = tp->initial_max_streams_bidi;
	st->local_max[1] = tp->initial_max_streams_uni;
	st->sent = 0;
	st->blocked_at = U64_MAX;
	st->local_blocked[0] = U64_MAX;
	st->local_blocked[1] = U64_MAX;
	for (i = 0; i < quic_streams_buckets(st); i++) {
		hlist_for_each_entry(s, quic_streams_bucket(st, i), node) {
			if (!quic_stream_id_is_local(s->id, false))
				continue;
			s->send_max = quic_early_stream_max(s, tp);
			if (s->written > s->send_max)
				return -ENOSPC;
			s->sent = 0;
			s->fin_sent = false;
			s->blocked_at = U64_MAX;
			if (s->send_state == QUIC_STREAM_SEND_STATE_SENT)
				s->send_state = QUIC_STREAM_SEND_STATE_SEND;
			if ((s->written || s->fin_written) &&
			    list_empty(&s->send_node))
				list_add_tail(&s->send_node, &st->send_list);
		}
	}
	return 0;
}

/* libquic: the server rejected 0-RTT (early_data.h). */
static int quic_early_data_reject(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	if (quic_crypto_ready(&qs->crypto, QUIC_CRYPTO_APP, true))
		return -EISCONN;	/* too late: 1-RTT is in use */
	if (!quic_crypto_ready(&qs->crypto, QUIC_CRYPTO_EARLY, true))
		return -EINVAL;		/* nothing to withdraw */
	if (qs->early.rejected)
		return 0;
	qs->early.rejected = true;
	QUIC_INC_STATS(EARLY_REJECTED, 1);
	if (!qs->early.tp_applied)
		return 0;
	if (!qs->peer_tp_set)
		return -EINVAL;		/* before the server's parameters? */
	if (qs->early.used)
		quic_early_data_drop_flight(sk, false);
	if (quic_early_data_restart_streams(sk)) {
		quic_conn_abort(sk, QUIC_TRANSPORT_ERROR_INTERNAL, 0);
		return -ECONNABORTED;
	}
	return 0;
}

/*
 * QUIC_SOCKOPT_CRYPTO_SECRET of level QUIC_CRYPTO_EARLY: a client's send
 * key (type 0: the rejection), a server's receive key, which the replay
 * filter must let through.
 */
int quic_early_data_secret(struct sock *sk, const struct quic_crypto_secret *s)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_early *e = &qs->early;
	int err;

	/* As quic_crypto_set_secret() checks them, before any effect. */
	if (s->send > 1 || s->reserved)
		return -EINVAL;
	if (qs->is_server == !!s->send)
		return -EINVAL;	/* client: send only; server: receive only */
	if (!qs->is_server) {
		if (!s->type)
			return quic_early_data_reject(sk);
		if (quic_crypto_ready(&qs->crypto, QUIC_CRYPTO_APP, true))
			return -EISCONN;
		return quic_crypto_set_secret(&qs->crypto, s);
	}
	if (qs->handshake_done || e->rx_closed)
		return -EISCONN;
	if (e->hello_mask != QUIC_HELLO_RANDOM_FULL)
		return -ENODATA;	/* no ClientHello seen whole */
	if (!quic_crypto_cipher(s->type))
		return -EINVAL;
	err = quic_replay_check(sock_net(sk), e->hello_random);
	if (err) {
		QUIC_INC_STATS(EARLY_REPLAY, 1);
		return err;
	}
	return quic_compat_early_secret(sk, s);
}

/*
 * Client, the 1-RTT send key is in: 0-RTT is over.  If it was accepted,
 * the server's parameters may not be below the remembered ones (RFC 9000
 * §7.4.1: -EPROTO, the connection closes with PROTOCOL_VIOLATION), and
 * the streams take the higher limits.  If it was never tried (TLS gave no
 * 0-RTT key: a ticket without early_data), streams written under the
 * remembered limits take the server's, as after a rejection.
 */
static int quic_early_data_app_limits(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	const struct quic_transport_params *old = qs->early.tp;
	const struct quic_transport_params *tp = &qs->peer_tp;
	struct quic_streams *st = &qs->streams;
	struct quic_stream *s;
	int i;

	if (qs->is_server || !qs->early.tp_applied || qs->early.rejected ||
	    !qs->peer_tp_set)
		return 0;
	/* No 0-RTT key, nothing sent: the new parameters simply apply. */
	if (!quic_crypto_ready(&qs->crypto, QUIC_CRYPTO_EARLY, true)) {
		if (quic_early_data_restart_streams(sk)) {
			quic_conn_abort(sk, QUIC_TRANSPORT_ERROR_INTERNAL, 0);
			return -ECONNABORTED;
		}
		sk->sk_write_space(sk);
		return 0;
	}
	if (tp->active_connection_id_limit < old->active_connection_id_limit ||
	    tp->initial_max_data < old->initial_max_data ||
	    tp->initial_max_stream_data_bidi_local <
	    old->initial_max_stream_data_bidi_local ||
	    tp->initial_max_stream_data_bidi_remote <
	    old->initial_max_stream_data_bidi_remote ||
	    tp->initial_max_stream_data_uni < old->initial_max_stream_data_uni ||
	    tp->initial_max_streams_bidi < old->initial_max_streams_bidi ||
	    tp->initial_max_streams_uni < old->initial_max_streams_uni) {
		quic_conn_abort(sk, QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION, 0);
		return -EPROTO;
	}
	st->send_max = max(st->send_max, tp->initial_max_data);
	st->local_max[0] = max(st->local_max[0], tp->initial_max_streams_bidi);
	st->local_max[1] = max(st->local_max[1], tp->initial_max_streams_uni);
	for (i = 0; i < quic_streams_buckets(st); i++)
		hlist_for_each_entry(s, quic_streams_bucket(st, i), node)
			if (quic_stream_id_is_local(s->id, false))
				s->send_max = max(s->send_max,
						  quic_early_stream_max(s, tp));
	sk->sk_write_space(sk);
	return 0;
}

/*
 * The 1-RTT send key is in (process context, socket lock held).  Client:
 * the limits above, then the 0-RTT key goes (RFC 9001 §4.9.3: no 0-RTT
 * after 1-RTT keys).  Server: the handshake is complete (libquic installs
 * its 1-RTT keys then), and the original version's Initial keys of a
 * compatible version negotiation go (compatvn.c).
 */
int quic_early_data_app_key(struct sock *sk)
{
	int err;

	if (quic_sk(sk)->is_server) {
		quic_compat_discard(sk);
		return 0;
	}
	err = quic_early_data_app_limits(sk);
	quic_early_data_discard(sk);
	return err;
}

/* Server: what to do with a 0-RTT packet that arrived. */
enum quic_early_rx quic_early_data_rx(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_early *e = &qs->early;

	if (!qs->is_server || e->rx_closed)
		return QUIC_EARLY_RX_DROP;
	if (quic_crypto_ready(&qs->crypto, QUIC_CRYPTO_EARLY, false)) {
		if (!e->rx_close_at || quic_now() < e->rx_close_at)
			return QUIC_EARLY_RX_READ;
		quic_early_data_rx_close(sk);
		return QUIC_EARLY_RX_DROP;
	}
	/* No 0-RTT key once the 1-RTT ones are in: it was not accepted. */
	if (qs->handshake_done ||
	    quic_crypto_ready(&qs->crypto, QUIC_CRYPTO_APP, false))
		return QUIC_EARLY_RX_DROP;
	return QUIC_EARLY_RX_HOLD;
}

/* A packet of @level was read: count 0-RTT, time the end of its keys. */
void quic_early_data_on_rx(struct sock *sk, u8 level)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_early *e = &qs->early;

	if (level == QUIC_CRYPTO_EARLY) {
		QUIC_INC_STATS(EARLY_RECV, 1);
		return;
	}
	if (level != QUIC_CRYPTO_APP || !qs->is_server || e->rx_closed ||
	    !quic_crypto_ready(&qs->crypto, QUIC_CRYPTO_EARLY, false))
		return;
	/* The keys go at the first 1-RTT packet after the 3 PTO. */
	if (e->rx_close_at) {
		if (quic_now() >= e->rx_close_at)
			quic_early_data_rx_close(sk);
		return;
	}
	e->rx_close_at = quic_now() +
			 3 * quic_pto_duration(&qs->rtt, 0, QUIC_PN_SPACE_APP);
}

/* Server: CRYPTO data of the client's Initials, for ClientHello.random. */
void quic_early_data_hello(struct sock *sk, u8 level, u64 offset,
			   const u8 *data, u64 len)
{
	struct quic_early *e = &quic_sk(sk)->early;
	u64 start = QUIC_HELLO_RANDOM_OFF, end = start + QUIC_HELLO_RANDOM_LEN;
	u64 i;

	if (!quic_sk(sk)->is_server || level != QUIC_CRYPTO_INITIAL ||
	    e->hello_mask == QUIC_HELLO_RANDOM_FULL ||
	    offset >= end || offset + len <= start)
		return;
	/* The first copy of each byte counts, as in reassembly. */
	for (i = max(offset, start); i < min(offset + len, end); i++) {
		if (e->hello_mask & BIT(i - start))
			continue;
		e->hello_random[i - start] = data[i - offset];
		e->hello_mask |= BIT(i - start);
	}
}

/*
 * A listener: is @skb a datagram of 0-RTT packets for a connection whose
 * Initial waits in the accept queue?  Then it waits there too (a pending
 * slot each, as any queued datagram), and accept() feeds it to the
 * connection after its Initial (socket.c), rather than dropping it: a
 * client that sends its 0-RTT data in datagrams of their own would lose
 * them all to a server that accepts later than they come.  0-RTT packets
 * carry the Destination Connection ID of the Initial (RFC 9000 §7.2).
 */
bool quic_early_data_listen_keep(struct sock *sk, struct sk_buff *skb)
{
	struct quic_hdr hdr, queued;
	struct sk_buff *q;

	if (quic_hdr_parse(skb->data, skb->len, QUIC_SCID_LEN, &hdr) ||
	    hdr.type != QUIC_PKT_0RTT || hdr.dcid.len < 8)
		return false;
	/* Its Initial is with accept() now, which takes it next. */
	if (quic_cid_eq(&quic_sk(sk)->early.accepting, &hdr.dcid))
		return true;
	skb_queue_walk(&quic_sk(sk)->accept_queue, q) {
		if (quic_hdr_parse(q->data, q->len, QUIC_SCID_LEN, &queued) ||
		    queued.type != QUIC_PKT_INITIAL ||
		    queued.version != hdr.version ||
		    !quic_cid_eq(&queued.dcid, &hdr.dcid))
			continue;
		return true;
	}
	return false;
}

/*
 * Listener, socket lock held: accept() took the Initial @skb off the queue
 * and sets its connection up, without the listener's lock; until it takes
 * the datagrams queued behind it (NULL), 0-RTT ones are still kept.
 */
void quic_early_data_accepting(struct sock *sk, const struct sk_buff *skb)
{
	struct quic_cid *cid = &quic_sk(sk)->early.accepting;
	struct quic_hdr hdr;

	memset(cid, 0, sizeof(*cid));
	if (skb && !quic_hdr_parse(skb->data, skb->len, QUIC_SCID_LEN, &hdr))
		*cid = hdr.dcid;
}

/* recvmsg() and poll(): stream data waits for the handshake to complete. */
bool quic_early_data_stream_readable(const struct sock *sk)
{
	return !list_empty(&quic_sk(sk)->streams.read_list) &&
	       READ_ONCE(sk->sk_state) != QUIC_SS_CONNECTING;
}

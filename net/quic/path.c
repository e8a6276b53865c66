// SPDX-License-Identifier: GPL-2.0
/*
 * Paths: validation (RFC 9000 §8.2), client-initiated migration and the
 * server's response to a peer that moved or was rebound by a NAT (§9),
 * with the anti-amplification limit on the new path until it is validated
 * (§9.3.1) and congestion control and RTT estimation starting again on it
 * (§9.4, RFC 9002 §9.4).  See path.h for the state.
 *
 * Decisions:
 * - Our client migrates by sending non-probing packets from its new local
 *   address at once (§9.2 allows it: the server's address is validated)
 *   and validates the new path with PATH_CHALLENGE; it goes back to the
 *   old path if no PATH_RESPONSE comes.  It needs an unused connection ID
 *   of the server's (§9.5) and retires the one it leaves.
 * - The server moves to a new path (a new peer address, or its preferred
 *   address as the local one) on the highest-numbered non-probing packet
 *   on it (§9.3, §9.6.3) and validates it; probing packets on another
 *   path get their PATH_RESPONSE on that path only.  A server tells paths
 *   apart by both addresses; a client by the server's.
 * - Preferred address (§9.6): set on the listener, which binds a tunnel
 *   socket there; each connection advertises it with a connection ID of
 *   sequence number 1.  Our client moves there (as for a migration, and
 *   with the same fallback) once the handshake is confirmed.
 * - disable_active_migration that we advertised: §9 lets us drop packets
 *   from a new peer address or proceed.  A change of the peer's IP address
 *   is the active migration the peer was asked not to make: dropped.  A
 *   port-only change is what NAT rebinding mostly looks like (RFC 9002
 *   §9.4), which the peer cannot help: it is validated and followed.
 * - A client discards packets from a server address it does not know
 *   (§9): after the handshake, only the address it sends to, the one the
 *   handshake came from and the path it left are known.
 * - The congestion controller and RTT estimator restart when the new path
 *   is validated, unless only a port changed (RFC 9002 §9.4 allows keeping
 *   them); bytes already in flight stay counted, so that their ACKs do not
 *   underflow the new count.
 * - A path validation sends up to three PATH_CHALLENGEs, one per
 *   max(PTO, PTO with kInitialRtt), and is abandoned after three of those
 *   (§8.2.4).  The challenge is padded to fill its datagram (at least
 *   1200 bytes, §8.2.1), within the anti-amplification limit of the path.
 *
 * Every field is protected by the socket lock (path.h).
 */

#include <linux/random.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "frame.h"
#include "socket.h"
#include "udp.h"
#include "varint.h"

/* An IPv4-mapped IPv6 address compares as the IPv4 address. */
static bool quic_path_v4(const union quic_addr *a, __be32 *ip)
{
	if (a->sa.sa_family == AF_INET) {
		*ip = a->v4.sin_addr.s_addr;
		return true;
	}
	if (ipv6_addr_v4mapped(&a->v6.sin6_addr)) {
		*ip = a->v6.sin6_addr.s6_addr32[3];
		return true;
	}
	return false;
}

static bool quic_path_ip_eq(const union quic_addr *a, const union quic_addr *b)
{
	__be32 ia, ib;
	bool va = quic_path_v4(a, &ia), vb = quic_path_v4(b, &ib);

	if (va || vb)
		return va && vb && ia == ib;
	return ipv6_addr_equal(&a->v6.sin6_addr, &b->v6.sin6_addr);
}

static bool quic_path_addr_eq(const union quic_addr *a,
			      const union quic_addr *b)
{
	return quic_addr_port(a) == quic_addr_port(b) && quic_path_ip_eq(a, b);
}

static void quic_path_event(struct sock *sk, bool local)
{
	u8 local_migration = local;

	quic_sk(sk)->paths.migrations++;
	QUIC_INC_STATS(PATH_CHANGE, 1);
	quic_event_queue(sk, QUIC_EVENT_CONNECTION_MIGRATION, &local_migration,
			 sizeof(local_migration));
}

/*
 * The active path changed (a move, or back after a failed validation).
 * What depends on the path starts again: the route is looked up again,
 * the datagram size is the new route's or searched again from 1200
 * (pmtud.c, RFC 9000 §14.3), and ECN is tested again (ecn_sock.c,
 * RFC 9000 §13.4.2).
 */
void quic_path_changed(struct sock *sk)
{
	dst_cache_reset(&quic_sk(sk)->dst_cache);
	quic_pmtud_reset(sk);
	quic_ecn_reset(sk);
}

/* Exchange the active path with @alt (both complete paths). */
static void quic_path_swap(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_path *alt = &qs->paths.alt;
	union quic_addr a;
	struct quic_udp_sock *us;
	struct dst_cache dc;
	struct quic_amp amp;

	a = qs->peer;
	qs->peer = alt->peer;
	alt->peer = a;
	a = qs->local;
	qs->local = alt->local;
	alt->local = a;
	us = qs->udp;
	qs->udp = alt->udp;
	alt->udp = us;
	dc = qs->dst_cache;
	qs->dst_cache = alt->dst_cache;
	alt->dst_cache = dc;
	amp = qs->amp;
	qs->amp = alt->amp;
	alt->amp = amp;
}

/* Process context: the stale tunnel socket's last reference goes. */
static void quic_path_udp_work(struct work_struct *work)
{
	struct quic_sock *qs = container_of(work, struct quic_sock,
					    paths.udp_work);
	struct sock *sk = &qs->inet.sk;
	struct quic_udp_sock *us;

	lock_sock(sk);
	us = qs->paths.stale;
	qs->paths.stale = NULL;
	release_sock(sk);
	if (us)
		quic_udp_sock_put(us);
	sock_put(sk);	/* quic_queue_work()'s */
}

/*
 * Put our reference of @us.  The active path's tunnel socket and the
 * preferred address's have another one, so that put cannot be the last;
 * any other may be, and may sleep:
 * it goes to @udp_work.  One at most is waiting: a client does not
 * migrate again before (quic_path_set_migration()).
 */
static void quic_path_udp_put(struct sock *sk, struct quic_udp_sock *us)
{
	struct quic_paths *p = &quic_sk(sk)->paths;

	if (us == quic_sk(sk)->udp || us == p->pref_udp ||
	    WARN_ON_ONCE(p->stale)) {
		quic_udp_sock_put(us);
		return;
	}
	p->stale = us;
	quic_queue_work(sk, &p->udp_work);
}

static void quic_path_alt_release(struct sock *sk)
{
	struct quic_paths *p = &quic_sk(sk)->paths;

	if (p->alt.udp)
		quic_path_udp_put(sk, p->alt.udp);
	p->alt.udp = NULL;
	p->alt_state = QUIC_PATH_ALT_NONE;
	p->alt_resp_due = false;
	if (p->dst_ready)
		dst_cache_reset(&p->alt.dst_cache);
}

static bool quic_path_dst_ready(struct quic_paths *p)
{
	if (!p->dst_ready && !dst_cache_init(&p->alt.dst_cache, GFP_ATOMIC))
		p->dst_ready = true;
	return p->dst_ready;
}

static void quic_path_timer(struct timer_list *t)
{
	struct quic_sock *qs = from_timer(qs, t, paths.timer);
	struct sock *sk = &qs->inet.sk;
	struct quic_paths *p = &qs->paths;

	bh_lock_sock(sk);
	if (sk->sk_state != QUIC_SS_ESTABLISHED || !p->validating)
		goto out;
	if (sock_owned_by_user(sk)) {
		/* Soon again: the user may be done by then. */
		sk_reset_timer(sk, &p->timer, jiffies + 1);
		goto out;
	}
	/* What came before, first (input.c); it may end the validation. */
	quic_rx_drain_bh(sk);
	if (sk->sk_state != QUIC_SS_ESTABLISHED || !p->validating)
		goto out;
	if (quic_now() >= p->abandon_at || p->tries >= QUIC_PATH_MAX_TRIES) {
		/* §9.3.2: the new path failed; back to the one we left. */
		p->validating = false;
		p->challenge_due = false;
		if (p->alt_state == QUIC_PATH_ALT_OLD) {
			quic_path_swap(sk);
			quic_amp_validate(&qs->amp);
			quic_path_alt_release(sk);
			quic_path_changed(sk);
			quic_path_event(sk, p->local_move);
		}
	} else {
		p->challenge_due = true;
		sk_reset_timer(sk, &p->timer,
			       jiffies + usecs_to_jiffies(p->interval) + 1);
	}
	quic_output(sk);
out:
	bh_unlock_sock(sk);
	sock_put(sk);
}

/* One PTO for the validation: the larger of now's and kInitialRtt's. */
static u64 quic_path_pto(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_rtt fresh;
	u64 a, b;

	quic_rtt_init(&fresh, QUIC_K_INITIAL_RTT);
	a = quic_pto_duration(&qs->rtt, qs->ld.max_ack_delay,
			      QUIC_PN_SPACE_APP);
	b = quic_pto_duration(&fresh, qs->ld.max_ack_delay, QUIC_PN_SPACE_APP);
	return max(a, b);
}

/* Validate the active path, which just became so. */
static void quic_path_validate(struct sock *sk)
{
	struct quic_paths *p = &quic_sk(sk)->paths;

	get_random_bytes(p->challenge, sizeof(p->challenge));
	p->validating = true;
	p->challenge_due = true;
	p->tries = 0;
	p->interval = quic_path_pto(sk);
	p->abandon_at = quic_now() + 3 * p->interval;
	sk_reset_timer(sk, &p->timer,
		       jiffies + usecs_to_jiffies(p->interval) + 1);
}

/*
 * RFC 9002 §9.4 (RFC 9000 §9.4): a validated new path starts with the
 * initial window and RTT.  What is in flight stays counted.
 */
static void quic_path_reset_cc(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	u64 in_flight = qs->cong.bytes_in_flight;
	u32 episode = qs->cong.episode;

	quic_rtt_init(&qs->rtt, qs->config.initial_smoothed_rtt);
	if (!quic_cong_init(&qs->cong, qs->cong.algo, qs->max_datagram)) {
		qs->cong.bytes_in_flight = in_flight;
		qs->cong.episode = episode;
	}
	quic_pacer_init(&qs->pacer, quic_cong_initial_window(qs->max_datagram));
	if (qs->lost_log)
		quic_lost_log_init(qs->lost_log);
}

/*
 * The local address a datagram came to (@skb's), of the family of the
 * address it came from.
 */
static void quic_path_to(struct sk_buff *skb, union quic_addr *l)
{
	const struct quic_input_cb *cb = QUIC_INPUT_CB(skb);

	memset(l, 0, sizeof(*l));
	l->sa.sa_family = cb->peer.sa.sa_family;
	if (l->sa.sa_family == AF_INET) {
		l->v4.sin_addr.s_addr = cb->local_ip.v4;
		l->v4.sin_port = cb->local_port;
	} else {
		l->v6.sin6_addr = cb->local_ip.v6;
		l->v6.sin6_port = cb->local_port;
	}
}

static bool quic_path_any(const union quic_addr *a)
{
	return a->sa.sa_family == AF_INET ? !a->v4.sin_addr.s_addr :
	       ipv6_addr_any(&a->v6.sin6_addr);
}

/* Is @l (quic_path_to()) the local address @a of a path? */
static bool quic_path_local_eq(const union quic_addr *a,
			       const union quic_addr *l)
{
	return quic_addr_port(a) == quic_addr_port(l) &&
	       (quic_path_any(a) || quic_path_ip_eq(a, l));
}

/* The tunnel socket of our local address @l: the preferred address's? */
static struct quic_udp_sock *quic_path_udp_of(struct sock *sk,
					      const union quic_addr *l)
{
	struct quic_paths *p = &quic_sk(sk)->paths;

	if (p->pref_udp && quic_path_local_eq(&p->pref, l))
		return p->pref_udp;
	return quic_sk(sk)->udp;
}

/*
 * Make the path from our local address @local on @us to @peer the active
 * one and validate it; the path left is kept as @alt until then.  @us is
 * not given to us: the path takes its own reference.  @ours: we started
 * the change (a client's migration, or its move to the server's preferred
 * address).  @rx: bytes received on the new path so far, for the
 * anti-amplification limit of a peer address not validated.
 */
static int quic_path_move(struct sock *sk, const union quic_addr *peer,
			  const union quic_addr *local,
			  struct quic_udp_sock *us, bool ours, u32 rx)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_paths *p = &qs->paths;
	struct quic_path *alt = &p->alt;
	bool same_ips, same_peer;

	if (!quic_path_dst_ready(p))
		return -ENOMEM;
	if (p->alt_state == QUIC_PATH_ALT_PROBE) {
		/* A challenge from there is now answered on the active path. */
		if (p->alt_resp_due &&
		    quic_path_addr_eq(&alt->peer, peer) &&
		    quic_path_addr_eq(&alt->local, local)) {
			memcpy(qs->path_resp, p->alt_resp, sizeof(qs->path_resp));
			qs->path_resp_pending = true;
		}
		quic_path_alt_release(sk);
	}
	if (p->alt_state == QUIC_PATH_ALT_OLD &&
	    quic_path_addr_eq(&alt->peer, peer) &&
	    quic_path_addr_eq(&alt->local, local)) {
		/* Back to the path we left, validated before (§9.3). */
		quic_path_swap(sk);
		quic_path_alt_release(sk);
		p->validating = false;
		p->challenge_due = false;
		sk_stop_timer(sk, &p->timer);
		quic_path_changed(sk);
		quic_path_event(sk, ours);
		return 0;
	}

	same_peer = quic_path_addr_eq(peer, &qs->peer);
	same_ips = quic_path_ip_eq(peer, &qs->peer) &&
		   quic_path_ip_eq(local, &qs->local);
	quic_udp_sock_hold(us);
	if (p->alt_state == QUIC_PATH_ALT_OLD) {
		/* From a path not validated yet: @alt stays the one we know. */
		quic_path_udp_put(sk, qs->udp);
		qs->udp = us;
	} else {
		quic_path_swap(sk);	/* @alt is the path we leave */
		qs->peer = alt->peer;
		qs->udp = us;
		p->alt_state = QUIC_PATH_ALT_OLD;
		p->reset_cc = false;
	}
	qs->peer = *peer;
	qs->local = *local;
	dst_cache_reset(&qs->dst_cache);
	/* A peer address we know, or ours to choose: no limit (§9.3.1). */
	quic_amp_init(&qs->amp, ours || same_peer);
	quic_amp_on_received(&qs->amp, rx);
	p->reset_cc |= !same_ips;
	p->local_move = ours;
	quic_path_validate(sk);
	quic_path_changed(sk);
	quic_path_event(sk, ours);
	return 0;
}

/* Where a datagram came from. */
static const union quic_addr *quic_path_from(struct sk_buff *skb)
{
	return &QUIC_INPUT_CB(skb)->peer;
}

/*
 * Is a datagram on the active path (a server: from its peer, to its local
 * address; a client: from the server address it sends to)?
 */
static bool quic_path_on_active(struct sock *sk, struct sk_buff *skb,
				const union quic_addr *l)
{
	struct quic_sock *qs = quic_sk(sk);

	return quic_path_addr_eq(quic_path_from(skb), &qs->peer) &&
	       (!qs->is_server || quic_path_local_eq(&qs->local, l));
}

/* Is a datagram on @alt (see quic_path_on_active())? */
static bool quic_path_on_alt(struct sock *sk, struct sk_buff *skb,
			     const union quic_addr *l)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_path *alt = &qs->paths.alt;

	return qs->paths.alt_state != QUIC_PATH_ALT_NONE &&
	       quic_path_addr_eq(quic_path_from(skb), &alt->peer) &&
	       (!qs->is_server || quic_path_local_eq(&alt->local, l));
}

/**
 * quic_path_rx_drop - is an authentic packet from an address we refuse?
 * @sk: the connection
 * @skb: the datagram
 * @level: the packet's encryption level
 *
 * Before its frames are processed.  See the decisions at the top.
 *
 * Return: true to drop the packet (counted).
 */
bool quic_path_rx_drop(struct sock *sk, struct sk_buff *skb, u8 level)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_paths *p = &qs->paths;
	const union quic_addr *from = quic_path_from(skb);
	union quic_addr l;

	quic_path_to(skb, &l);
	if (quic_path_on_active(sk, skb, &l) ||
	    (p->alt_state == QUIC_PATH_ALT_OLD && quic_path_on_alt(sk, skb, &l)))
		return false;
	if (!qs->is_server) {
		/* §9: only known server addresses. */
		if (!qs->handshake_confirmed) {
			if (!p->hs_peer_set) {
				p->hs_peer = *from;
				p->hs_peer_set = true;
			}
			return false;
		}
		if (p->hs_peer_set &&
		    quic_path_addr_eq(from, &p->hs_peer))
			return false;
		goto drop;
	}
	/* §9: no migration before the handshake is confirmed. */
	if (level != QUIC_CRYPTO_APP || !qs->handshake_confirmed)
		goto drop;
	/* §9: not the peer's to do, unless it acted on our preferred one. */
	if (qs->local_tp.disable_active_migration && !p->pref_used &&
	    quic_path_udp_of(sk, &l) != p->pref_udp &&
	    !quic_path_ip_eq(from, &qs->peer))
		goto drop;
	return false;
drop:
	QUIC_DROP(sk, PATH);
	return true;
}

/**
 * quic_path_on_rx - a packet was processed: has the peer moved?
 * @sk: the connection
 * @skb: the datagram
 * @level: the packet's encryption level
 * @newest: its packet number is the largest received
 * @probing: it carried only probing frames (RFC 9000 §9.1)
 */
void quic_path_on_rx(struct sock *sk, struct sk_buff *skb, u8 level,
		     bool newest, bool probing)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_udp_sock *us;
	union quic_addr l;

	if (!qs->is_server || level != QUIC_CRYPTO_APP || probing || !newest ||
	    sk->sk_state != QUIC_SS_ESTABLISHED)
		return;
	quic_path_to(skb, &l);
	if (quic_path_on_active(sk, skb, &l))
		return;
	us = quic_path_udp_of(sk, &l);
	if (us == qs->paths.pref_udp)
		qs->paths.pref_used = true;
	/* §9.3, §9.6.3: the highest-numbered non-probing packet moves us. */
	quic_path_move(sk, quic_path_from(skb), &l, us, false, skb->len);
}

/* A PATH_CHALLENGE: answered on the path it came on (§8.2.2). */
void quic_path_on_challenge(struct sock *sk, struct sk_buff *skb,
			    const u8 *data)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_paths *p = &qs->paths;
	struct quic_path *alt = &p->alt;
	union quic_addr l;

	quic_path_to(skb, &l);
	if (quic_path_on_active(sk, skb, &l)) {
		/* The latest challenge replaces any unanswered one. */
		memcpy(qs->path_resp, data, QUIC_PATH_CHALLENGE_LEN);
		qs->path_resp_pending = true;
		return;
	}
	if (!qs->is_server)
		return;		/* from the path we left */
	if (p->alt_state == QUIC_PATH_ALT_OLD && !quic_path_on_alt(sk, skb, &l))
		return;		/* one other path at a time */
	if (p->alt_state == QUIC_PATH_ALT_PROBE && !quic_path_on_alt(sk, skb, &l))
		quic_path_alt_release(sk);	/* the latest probe wins */
	if (p->alt_state == QUIC_PATH_ALT_NONE) {
		if (!quic_path_dst_ready(p))
			return;
		alt->peer = *quic_path_from(skb);
		alt->local = l;
		alt->udp = quic_path_udp_of(sk, &l);
		quic_udp_sock_hold(alt->udp);
		dst_cache_reset(&alt->dst_cache);
		quic_amp_init(&alt->amp, false);
		quic_amp_on_received(&alt->amp, skb->len);
		p->alt_state = QUIC_PATH_ALT_PROBE;
	}
	memcpy(p->alt_resp, data, QUIC_PATH_CHALLENGE_LEN);
	p->alt_resp_due = true;
}

/* A PATH_RESPONSE: the active path is validated if it echoes ours. */
void quic_path_on_response(struct sock *sk, const u8 *data)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_paths *p = &qs->paths;

	if (!p->validating ||
	    memcmp(data, p->challenge, QUIC_PATH_CHALLENGE_LEN))
		return;
	p->validating = false;
	p->challenge_due = false;
	sk_stop_timer(sk, &p->timer);
	quic_amp_validate(&qs->amp);
	QUIC_INC_STATS(PATH_VALID, 1);
	if (p->reset_cc)
		quic_path_reset_cc(sk);
	p->reset_cc = false;
	if (p->alt_state == QUIC_PATH_ALT_OLD)
		quic_path_alt_release(sk);
}

bool quic_path_wants_send(struct sock *sk)
{
	struct quic_paths *p = &quic_sk(sk)->paths;

	return p->challenge_due || (p->swapped && p->alt_resp_due);
}

static bool quic_path_put(struct quic_wr *wr, u8 type, const u8 *data)
{
	if (quic_wr_left(wr) < 1 + QUIC_PATH_CHALLENGE_LEN)
		return false;
	quic_wr_u8(wr, type);
	quic_wr_bytes(wr, data, QUIC_PATH_CHALLENGE_LEN);
	return true;
}

/**
 * quic_path_fill - PATH_CHALLENGE and PATH_RESPONSE frames for a packet
 * @sk: the connection
 * @wr: the 1-RTT packet's frames
 *
 * They are not remembered with the packet: a lost PATH_RESPONSE is not
 * sent again (§13.3), a PATH_CHALLENGE is on the path timer.  A packet
 * with one is padded to fill its datagram (§8.2.1, §8.2.2), which the
 * caller sized within the path's anti-amplification limit.
 *
 * Return: true if a frame went in.
 */
bool quic_path_fill(struct sock *sk, struct quic_wr *wr)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_paths *p = &qs->paths;
	bool put = false;
	size_t left;

	if (p->swapped) {
		if (p->alt_resp_due &&
		    quic_path_put(wr, QUIC_FRAME_PATH_RESPONSE, p->alt_resp)) {
			p->alt_resp_due = false;
			put = true;
		}
	} else {
		if (qs->path_resp_pending &&
		    quic_path_put(wr, QUIC_FRAME_PATH_RESPONSE, qs->path_resp)) {
			qs->path_resp_pending = false;
			put = true;
		}
		if (p->challenge_due &&
		    quic_path_put(wr, QUIC_FRAME_PATH_CHALLENGE,
				  p->challenge)) {
			p->challenge_due = false;
			p->tries++;
			put = true;
		}
	}
	if (put) {
		left = quic_wr_left(wr);
		memset(wr->p, QUIC_FRAME_PADDING, left);
		wr->p += left;
	}
	return put;
}

/*
 * A datagram under 1200 bytes may go to a peer address not validated: a
 * PATH_CHALLENGE or PATH_RESPONSE the anti-amplification limit keeps
 * smaller (§8.2.1), once the handshake is over.
 */
bool quic_path_small_ok(struct sock *sk)
{
	struct quic_paths *p = &quic_sk(sk)->paths;

	return p->validating || p->swapped;
}

/*
 * A PATH_RESPONSE owed on the other path: make it the active one while
 * quic_output() sends one datagram with it alone.
 */
bool quic_path_probe_begin(struct sock *sk)
{
	struct quic_paths *p = &quic_sk(sk)->paths;

	if (p->alt_state == QUIC_PATH_ALT_NONE || !p->alt_resp_due)
		return false;
	quic_path_swap(sk);
	p->swapped = true;
	return true;
}

void quic_path_probe_end(struct sock *sk)
{
	struct quic_paths *p = &quic_sk(sk)->paths;

	quic_path_swap(sk);
	p->swapped = false;
	p->alt_resp_due = false;	/* sent, or not at all (§13.3) */
}

bool quic_path_probing(struct sock *sk)
{
	return quic_sk(sk)->paths.swapped;
}

/*
 * A listener's preferred address (RFC 9000 §9.6): a tunnel socket there,
 * and the address its connections advertise.  Socket lock held, process
 * context.
 */
static int quic_path_set_pref(struct sock *sk, const union quic_addr *a)
{
	struct quic_paths *p = &quic_sk(sk)->paths;
	struct quic_udp_sock *us;

	us = quic_udp_sock_get(sk, a);
	if (IS_ERR(us))
		return PTR_ERR(us);
	if (p->pref_udp)
		quic_udp_sock_put(p->pref_udp);
	p->pref_udp = us;
	p->pref = us->addr;
	return 0;
}

/**
 * quic_path_set_migration - QUIC_SOCKOPT_CONNECTION_MIGRATION
 * @sk: the socket, locked
 * @optval: a struct sockaddr_in or sockaddr_in6
 * @optlen: its length
 *
 * A client moves its connection to the new local address @optval (port
 * 0: any).  On a listener, @optval becomes the preferred address of the
 * connections it accepts from now on.
 *
 * Return: 0; -ENOTCONN without a connection or listener; -EISCONN on a
 * server's connection (the preferred address is the listener's); -EPERM
 * if the peer sent disable_active_migration; -EAGAIN before the handshake
 * is confirmed or while the peer has given no unused connection ID;
 * -EBUSY while a path change is being validated; -EINVAL for a malformed
 * address or one of another family; or what binding the address returned
 * (e.g. -EADDRNOTAVAIL).
 */
int quic_path_set_migration(struct sock *sk, sockptr_t optval,
			    unsigned int optlen)
{
	struct quic_sock *qs = quic_sk(sk);
	union quic_addr a = {}, peer, local;
	struct quic_udp_sock *us;
	int err;

	if (optlen < sizeof(struct sockaddr_in))
		return -EINVAL;
	if (copy_from_sockptr(&a, optval, min_t(unsigned int, optlen,
						sizeof(a))))
		return -EFAULT;
	if (a.sa.sa_family != sk->sk_family ||
	    (a.sa.sa_family == AF_INET6 && optlen < sizeof(a.v6)))
		return -EINVAL;
	if (sk->sk_state == QUIC_SS_LISTENING)
		return quic_path_set_pref(sk, &a);
	if (qs->is_server)
		return -EISCONN;
	if (sk->sk_state != QUIC_SS_CONNECTING &&
	    sk->sk_state != QUIC_SS_ESTABLISHED)
		return -ENOTCONN;
	if (qs->peer_tp.disable_active_migration)
		return -EPERM;
	if (!qs->handshake_confirmed)
		return -EAGAIN;
	if (qs->paths.alt_state != QUIC_PATH_ALT_NONE ||
	    qs->paths.validating || qs->paths.stale)
		return -EBUSY;
	if (list_is_singular(&qs->cids.dcids))
		return -EAGAIN;
	if (!quic_path_dst_ready(&qs->paths))
		return -ENOMEM;
	us = quic_udp_sock_get(sk, &a);
	if (IS_ERR(us))
		return PTR_ERR(us);
	local = us->addr;
	peer = qs->peer;	/* not a pointer into what the move changes */
	err = quic_cid_next_dcid(sk) ? 0 : -EAGAIN;
	if (!err)
		err = quic_path_move(sk, &peer, &local, us, true, 0);
	quic_udp_sock_put(us);	/* the path has its own reference */
	if (err)
		return err;
	quic_output(sk);
	return 0;
}

/* Server: a new connection of @lsk advertises its preferred address. */
void quic_path_inherit(struct sock *lsk, struct sock *sk)
{
	struct quic_paths *lp = &quic_sk(lsk)->paths, *p = &quic_sk(sk)->paths;

	if (!lp->pref_udp)
		return;
	p->pref = lp->pref;
	p->pref_udp = lp->pref_udp;
	quic_udp_sock_hold(p->pref_udp);
}

/*
 * Server, once its connection IDs are made: the preferred_address
 * transport parameter, with a connection ID of sequence number 1 and its
 * stateless reset token (§5.1.1, conn_id.c).
 */
int quic_path_pref_start(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_tp_preferred_address *pa = &qs->local_tp.preferred_address;
	const union quic_addr *a = &qs->paths.pref;
	int err;

	if (!qs->paths.pref_udp)
		return 0;
	err = quic_cid_issue_pref(sk, &pa->cid, pa->token);
	if (err)
		return err;
	if (a->sa.sa_family == AF_INET) {
		memcpy(pa->ipv4, &a->v4.sin_addr, sizeof(pa->ipv4));
		pa->ipv4_port = ntohs(a->v4.sin_port);
	} else {
		memcpy(pa->ipv6, &a->v6.sin6_addr, sizeof(pa->ipv6));
		pa->ipv6_port = ntohs(a->v6.sin6_port);
	}
	quic_tp_mark(&qs->local_tp, QUIC_TPB_PREFERRED_ADDRESS);
	return 0;
}

/*
 * Client, handshake confirmed: move to the server's preferred address of
 * the family we use, if it gave one (§9.6.1), with its connection ID.
 * disable_active_migration does not forbid it (§18.2).
 */
void quic_path_pref_migrate(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	const struct quic_tp_preferred_address *pa =
		&qs->peer_tp.preferred_address;
	union quic_addr to = {}, peer = qs->peer, local = qs->local;
	__be32 v4;

	if (qs->is_server ||
	    !quic_tp_has(&qs->peer_tp, QUIC_TPB_PREFERRED_ADDRESS) ||
	    qs->paths.alt_state != QUIC_PATH_ALT_NONE || qs->paths.validating)
		return;
	if (quic_path_v4(&peer, &v4)) {
		if (!pa->ipv4_port)
			return;
		to.v4.sin_family = AF_INET;
		memcpy(&to.v4.sin_addr, pa->ipv4, sizeof(pa->ipv4));
		to.v4.sin_port = htons(pa->ipv4_port);
		if (peer.sa.sa_family == AF_INET6) {
			to.v6.sin6_family = AF_INET6;
			ipv6_addr_set_v4mapped(to.v4.sin_addr.s_addr,
					       &to.v6.sin6_addr);
			to.v6.sin6_port = htons(pa->ipv4_port);
		}
	} else {
		if (!pa->ipv6_port)
			return;
		to.v6.sin6_family = AF_INET6;
		memcpy(&to.v6.sin6_addr, pa->ipv6, sizeof(pa->ipv6));
		to.v6.sin6_port = htons(pa->ipv6_port);
	}
	if (quic_path_addr_eq(&to, &peer) ||
	    quic_cid_add_dcid(sk, &qs->cids, &pa->cid, 1, pa->token) ||
	    quic_cid_use_dcid(sk, 1))
		return;
	quic_path_move(sk, &to, &local, qs->udp, true, 0);
}

void quic_path_init(struct sock *sk)
{
	struct quic_paths *p = &quic_sk(sk)->paths;

	memset(p, 0, sizeof(*p));
	timer_setup(&p->timer, quic_path_timer, 0);
	INIT_WORK(&p->udp_work, quic_path_udp_work);
}

void quic_path_free(struct sock *sk)
{
	struct quic_paths *p = &quic_sk(sk)->paths;

	sk_stop_timer(sk, &p->timer);
	if (cancel_work_sync(&p->udp_work))
		sock_put(sk);	/* the work's reference */
	p->validating = false;
	/* Process context: every reference goes now. */
	if (p->stale)
		quic_udp_sock_put(p->stale);
	p->stale = NULL;
	if (p->alt.udp)
		quic_udp_sock_put(p->alt.udp);
	p->alt.udp = NULL;
	p->alt_state = QUIC_PATH_ALT_NONE;
	if (p->pref_udp)
		quic_udp_sock_put(p->pref_udp);
	p->pref_udp = NULL;
	if (p->dst_ready)
		dst_cache_destroy(&p->alt.dst_cache);
	p->dst_ready = false;
}

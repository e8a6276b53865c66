// SPDX-License-Identifier: GPL-2.0
/*
 * UDP tunnel sockets under QUIC sockets.
 *
 * A bind() of a QUIC socket creates one kernel UDP socket bound to the
 * same address; the UDP layer then enforces address-in-use and picks the
 * ephemeral port for port 0.  The first socket bound decides whether the
 * port is shared: if it had SO_REUSEPORT or QUIC_SOCKOPT_ALPN set before
 * bind(), later sockets of the same owner (sk_uid, as TCP's SO_REUSEPORT
 * requires, so that another user cannot take a share of the port's
 * connections) bound to the same network namespace, address, port and
 * IPV6_V6ONLY join its tunnel socket, with or without those options (one
 * without ALPN becomes the default listener); otherwise the UDP layer
 * says EADDRINUSE as before.
 * The listeners of a tunnel socket and how new connections are spread
 * among them are in dispatch.c.
 */

#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/dsfield.h>
#include <net/dst_cache.h>
#include <net/inet_ecn.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include "gso.h"
#include "socket.h"
#include "udp.h"

/*
 * Trains this long are left to a waiting reader (input.c): a bulk
 * sender's, not a 4 KiB request's (3 datagrams at MTU 1500), whose
 * processing would only move after the reader's wake-up.
 */
#define QUIC_RX_DEFER_MIN_SEGS	4

/* The tunnel socket's receive queue limit (see quic_udp_sock_create()). */
#define QUIC_UDP_RCVBUF		(2 * 1024 * 1024)

static DEFINE_MUTEX(quic_udp_table_lock);
static DEFINE_HASHTABLE(quic_udp_table, 6);	/* protected by quic_udp_table_lock */

/* Record who sent @skb and to which of our addresses, before the pull. */
static void quic_udp_input_cb(struct sk_buff *skb)
{
	struct quic_input_cb *cb = QUIC_INPUT_CB(skb);
	__be16 sport = udp_hdr(skb)->source;

	BUILD_BUG_ON(sizeof(*cb) > sizeof(skb->cb));

	if (ip_hdr(skb)->version == 4) {
		__be32 saddr = ip_hdr(skb)->saddr, daddr = ip_hdr(skb)->daddr;

		memset(cb, 0, sizeof(*cb));
		cb->peer.v4.sin_family = AF_INET;
		cb->peer.v4.sin_addr.s_addr = saddr;
		cb->peer.v4.sin_port = sport;
		cb->local_ip.v4 = daddr;
		cb->ecn = ipv4_get_dsfield(ip_hdr(skb)) & INET_ECN_MASK;
	} else {
		struct in6_addr saddr = ipv6_hdr(skb)->saddr;
		struct in6_addr daddr = ipv6_hdr(skb)->daddr;
		int ifindex = inet6_iif(skb);

		memset(cb, 0, sizeof(*cb));
		cb->peer.v6.sin6_family = AF_INET6;
		cb->peer.v6.sin6_addr = saddr;
		cb->peer.v6.sin6_port = sport;
		if (ipv6_addr_type(&saddr) & IPV6_ADDR_LINKLOCAL)
			cb->peer.v6.sin6_scope_id = ifindex;
		cb->local_ip.v6 = daddr;
		cb->ecn = ipv6_get_dsfield(ipv6_hdr(skb)) & INET_ECN_MASK;
	}
	cb->local_port = udp_hdr(skb)->dest;
}

/*
 * A datagram of the port, its addresses in its cb and its data at the QUIC
 * packet.  Find the connection by its Destination Connection ID; long-header
 * packets of unknown connections go to the listener, if any.  Always
 * consumes the skb.
 */
static void quic_udp_deliver(struct quic_udp_sock *us, struct sock *usk,
			     struct sk_buff *skb)
{
	enum quic_rx_where where;
	struct quic_invariant inv;
	struct sock *sk = NULL;

	if (quic_hdr_parse_invariant(skb->data, skb->len, us->cid_len, &inv) < 0)
		goto drop;

	sk = quic_cid_lookup_port(us, inv.dcid, inv.dcid_len);
	/* Unknown CID: a stateless reset, for us or from us. */
	if (!sk && !inv.long_form)
		sk = quic_sr_rcv(us, skb, &inv);
	/* A version we do not speak: Version Negotiation (version.c). */
	if (!sk && quic_version_vn_reply(us, skb, &inv)) {
		consume_skb(skb);
		return;
	}
	if (!sk && inv.long_form) {
		sk = rcu_dereference(us->listener);
		if (!sk && !list_empty(&us->listeners)) {
			/* Several listeners: see dispatch.c. */
			quic_dispatch_rcv(us, skb);
			return;
		}
		/*
		 * A flood of Initials is refused here, before the listener's
		 * lock and backlog; quic_listen_rcv() checks again under the
		 * lock, where it counts.
		 */
		if (sk && quic_pending_full(us, sk)) {
			QUIC_DROP(sk, PENDING);
			kfree_skb(skb);
			return;
		}
		if (sk && !refcount_inc_not_zero(&sk->sk_refcnt))
			sk = NULL;
	}
	if (!sk)
		goto drop;

	/*
	 * The backlog holds what arrives while a user holds the socket, and
	 * what is left to a waiting reader (input.c); as in TCP it may take a
	 * receive and a send buffer's worth, since ACKs for what we send come
	 * in with the data.
	 */
	bh_lock_sock(sk);
	where = sock_owned_by_user(sk) ? QUIC_RX_BEHIND :
					 quic_rx_where(sk, false);
	if (where == QUIC_RX_HERE) {
		quic_input(sk, skb);
	} else if (sk_add_backlog(sk, skb, READ_ONCE(sk->sk_rcvbuf) +
					  READ_ONCE(sk->sk_sndbuf))) {
		QUIC_DROP(sk, BACKLOG);
		kfree_skb(skb);
	} else if (!sock_owned_by_user(sk)) {
		QUIC_INC_STATS(RX_DEFERRED, 1);
	}
	if (where == QUIC_RX_WAKE)
		quic_rx_wake(sk);
	bh_unlock_sock(sk);
	sock_put(sk);
	return;

drop:
	QUIC_DROP(usk, NO_SOCKET);
	kfree_skb(skb);
}

/*
 * The datagrams of one train for one connection, processed under its lock
 * held across them, and answered once (quic_input_done()): one ACK for the
 * train, not one per two datagrams, and one pass of the transmit loop.
 */
struct quic_udp_batch {
	struct sock	*sk;		/* locked, with a reference */
	bool		direct;		/* processed here, not in the backlog */
	bool		done;		/* quic_input_done() is due */
	bool		wake;		/* the reader is woken at the end */
	struct sk_buff	*last;		/* the last one put in the backlog */
	bool		long_train;	/* one a waiting reader may take */
};

static void quic_udp_batch_end(struct quic_udp_batch *b)
{
	struct sock *sk = b->sk;

	if (!sk)
		return;
	if (b->done)
		quic_input_done(sk);
	/*
	 * After the answer: the reader woken now takes a lock about to be
	 * free, instead of spinning while the ACK is built.
	 */
	if (b->direct)
		quic_rx_batch_end(sk);
	/* The train ends here: answered after this one (input.c). */
	if (b->last)
		QUIC_INPUT_CB(b->last)->more = 0;
	if (b->wake)
		quic_rx_wake(sk);
	bh_unlock_sock(sk);
	sock_put(sk);
	b->sk = NULL;
}

/*
 * One datagram @d of a train.  Short-header packets of a connection are
 * processed in place, sharing the train's memory; anything else (long
 * headers, unknown connection IDs: never what our trains carry) gets a
 * copy of its own and the ordinary path, so that no listener, accept
 * queue or dispatcher holds on to a piece of a train.
 */
static void quic_udp_batch_rcv(struct quic_udp_batch *b,
			       struct quic_udp_sock *us, struct sock *usk,
			       struct sk_buff *d)
{
	struct quic_invariant inv;
	struct sk_buff *copy;
	struct sock *sk = NULL;

	if (quic_hdr_parse_invariant(d->data, d->len, us->cid_len, &inv) < 0) {
		QUIC_DROP(usk, NO_SOCKET);
		kfree_skb(d);
		return;
	}
	if (!inv.long_form)
		sk = quic_cid_lookup_port(us, inv.dcid, inv.dcid_len);
	if (!sk) {
		quic_udp_batch_end(b);
		copy = alloc_skb(d->len, GFP_ATOMIC);
		if (copy) {
			skb_put_data(copy, d->data, d->len);
			*QUIC_INPUT_CB(copy) = *QUIC_INPUT_CB(d);
			QUIC_INPUT_CB(copy)->train = 0;
			quic_udp_deliver(us, usk, copy);
		}
		consume_skb(d);
		return;
	}
	if (sk != b->sk) {
		enum quic_rx_where where;

		quic_udp_batch_end(b);
		bh_lock_sock(sk);
		where = sock_owned_by_user(sk) ? QUIC_RX_BEHIND :
						 quic_rx_where(sk, b->long_train);
		b->sk = sk;
		b->direct = where == QUIC_RX_HERE;
		if (b->direct)
			quic_rx_batch_begin(sk);
		b->wake = where == QUIC_RX_WAKE;
		b->done = false;
		b->last = NULL;
	} else {
		sock_put(sk);	/* the batch holds one */
	}
	if (b->direct) {
		b->done |= quic_input_one(sk, d);
		return;
	}
	/*
	 * The backlog is not processed before the batch unlocks the socket,
	 * so the last datagram put there can still be marked as the end.
	 */
	QUIC_INPUT_CB(d)->more = 1;
	if (sk_add_backlog(sk, d, READ_ONCE(sk->sk_rcvbuf) +
			   READ_ONCE(sk->sk_sndbuf))) {
		QUIC_DROP(sk, BACKLOG);
		kfree_skb(d);
		return;
	}
	b->last = d;
	if (!sock_owned_by_user(sk))
		QUIC_INC_STATS(RX_DEFERRED, 1);
}

/*
 * A UDP GSO skb received whole: a train of gso_size datagrams (the last
 * may be shorter), from a sender on this host over veth or loopback (ours
 * send them, output.c).  The UDP layer would cut it up with skb_segment(),
 * copying every datagram and, on a tunnel socket (convert_csum), summing
 * it; instead the skb is made ours once (unshared, linear: a no-op for
 * the trains our senders build) and each datagram becomes a clone of it,
 * pulled and trimmed to its bytes, unprotected in place.  Each is charged
 * its share of the train's truesize, so the whole train is charged once;
 * a train is freed when its last datagram is, and the pieces a connection
 * keeps (in-order stream data until read; out-of-order data is copied,
 * stream_recv.c) can hold at most QUIC_GSO_MAX_SEGS times what they are
 * charged.  A datagram that fails, however, drops alone.
 */
static void quic_udp_rcv_train(struct quic_udp_sock *us, struct sock *usk,
			       struct sk_buff *skb)
{
	unsigned int seg = skb_shinfo(skb)->gso_size, segs, share, off, len;
	struct quic_udp_batch b = {};
	struct sk_buff *d;

	if (!seg || skb_unclone(skb, GFP_ATOMIC) || skb_linearize(skb))
		goto drop;
	segs = DIV_ROUND_UP(skb->len, seg);
	if (segs > QUIC_GSO_MAX_SEGS)
		goto drop;
	b.long_train = segs >= QUIC_RX_DEFER_MIN_SEGS;
	QUIC_INC_STATS(GRO_TRAINS, 1);
	QUIC_INC_STATS(GRO_SEGS, segs);
	/* The clones are plain datagrams; the shared info is ours now. */
	skb_shinfo(skb)->gso_size = 0;
	skb_shinfo(skb)->gso_segs = 0;
	skb_shinfo(skb)->gso_type = 0;
	quic_udp_input_cb(skb);
	QUIC_INPUT_CB(skb)->train = 1;
	share = skb->truesize / segs;

	for (off = 0; off < skb->len; off += len) {
		len = min_t(unsigned int, seg, skb->len - off);
		if (off + len == skb->len) {
			/* The last datagram is the skb itself. */
			skb->truesize -= share * (segs - 1);
			__skb_pull(skb, off);
			quic_udp_batch_rcv(&b, us, usk, skb);
			break;
		}
		d = skb_clone(skb, GFP_ATOMIC);
		if (!d) {
			QUIC_DROP(usk, TRAIN);
			continue;
		}
		d->truesize = share;
		__skb_pull(d, off);
		__skb_trim(d, len);
		quic_udp_batch_rcv(&b, us, usk, d);
	}
	quic_udp_batch_end(&b);
	return;

drop:
	QUIC_DROP(usk, TRAIN);
	kfree_skb(skb);
}

/* One skb from the UDP socket's queue: a datagram, or a train of them. */
static void quic_udp_rcv(struct quic_udp_sock *us, struct sock *usk,
			 struct sk_buff *skb)
{
	/*
	 * UDP leaves the checksum to its reader; a GSO skb is only ever
	 * CHECKSUM_PARTIAL (a local sender) or checked by GRO.
	 */
	if (!udp_skb_csum_unnecessary(skb) &&
	    (skb_is_gso(skb) || __udp_lib_checksum_complete(skb))) {
		QUIC_DROP(usk, CSUM);
		kfree_skb(skb);
		return;
	}
	/* The queue kept its accounting where skb->dev was (dev_scratch). */
	skb->dev = NULL;
	if (skb_is_gso(skb)) {
		quic_udp_rcv_train(us, usk, skb);
		return;
	}
	if (skb_linearize(skb)) {
		QUIC_DROP(usk, NO_SOCKET);
		kfree_skb(skb);
		return;
	}
	quic_udp_input_cb(skb);
	quic_udp_deliver(us, usk, skb);
}

/*
 * The tunnel socket's sk_data_ready: UDP queued datagrams (UDP's own
 * receive path: IP input, socket lookup, queueing; the UDP header pulled)
 * and we take them at once, in the same softirq.  Not encap_rcv: UDP cuts
 * a GSO skb up before an encap_rcv hook (udp_unexpected_gso()), and the
 * queue takes it whole (UDP_FLAGS_ACCEPT_L4).
 */
static void quic_udp_data_ready(struct sock *usk)
{
	struct quic_udp_sock *us;
	struct sk_buff *skb;
	int err;

	local_bh_disable();
	rcu_read_lock();
	us = rcu_dereference_sk_user_data(usk);
	while ((skb = skb_recv_udp(usk, MSG_DONTWAIT, &err))) {
		if (!us) {
			kfree_skb(skb);
			continue;
		}
		quic_udp_rcv(us, usk, skb);
	}
	rcu_read_unlock();
	local_bh_enable();
}

/*
 * The fast path of quic_udp_deliver(): the only listener, which gets
 * every new connection, as when ports were not shared (its TLS refuses an
 * ALPN it does not serve).  quic_udp_table_lock held.
 */
static void quic_udp_fast_path(struct quic_udp_sock *us)
{
	struct quic_listener *l;

	l = list_first_entry_or_null(&us->listeners, struct quic_listener,
				     node);
	if (l && list_is_singular(&us->listeners))
		rcu_assign_pointer(us->listener, l->sk);
	else
		RCU_INIT_POINTER(us->listener, NULL);
}

/*
 * @sk starts or stops listening on @us: -EADDRINUSE if another listener
 * serves the same ALPN, unless both are of one SO_REUSEPORT group
 * (quic_dispatch_listen()).
 */
int quic_udp_set_listener(struct quic_udp_sock *us, struct sock *sk, bool on)
{
	struct quic_listener *l;
	int err = 0;

	/* A port without connection IDs cannot tell connections apart. */
	if (on && !us->cid_len)
		return -EINVAL;
	mutex_lock(&quic_udp_table_lock);
	if (on) {
		err = quic_dispatch_listen(us, sk, &us->listeners);
	} else {
		list_for_each_entry(l, &us->listeners, node) {
			if (l->sk == sk) {
				list_del_rcu(&l->node);
				kfree_rcu(l, rcu);
				break;
			}
		}
	}
	quic_udp_fast_path(us);
	mutex_unlock(&quic_udp_table_lock);
	/* Decisions of the dispatcher that name it go with it. */
	if (!on)
		quic_dispatch_forget(&us->dispatch, sk);
	return err;
}

/*
 * The SO_MARK and SO_BINDTODEVICE of the QUIC socket (not of the UDP
 * tunnel socket, which many connections share) steer its route lookups,
 * and the mark goes with its packets (netfilter, tc).  They are set with
 * SOL_SOCKET, which the module does not see: a change is noticed here and
 * drops the cached route.  Socket lock held.
 */
static void quic_udp_route_key(struct sock *sk, u32 *mark, int *oif)
{
	struct quic_sock *qs = quic_sk(sk);

	*mark = READ_ONCE(sk->sk_mark);
	*oif = READ_ONCE(sk->sk_bound_dev_if);
	if (*mark == qs->route_mark && *oif == qs->route_oif)
		return;
	dst_cache_reset(&qs->dst_cache);
	qs->route_mark = *mark;
	qs->route_oif = *oif;
}

/*
 * The route to the peer, from the connection's cache or looked up and
 * cached; a reference for the caller.  *saddr gets the source address.
 */
static struct rtable *quic_udp_route4(struct sock *sk, struct sock *usk,
				      const struct sockaddr_in *src,
				      const struct sockaddr_in *dst,
				      __be32 *saddr)
{
	struct dst_cache *cache = &quic_sk(sk)->dst_cache;
	struct net *net = sock_net(usk);
	struct flowi4 fl4;
	struct rtable *rt;
	u32 mark;
	int oif;

	quic_udp_route_key(sk, &mark, &oif);
	rt = dst_cache_get_ip4(cache, saddr);
	if (rt)
		return rt;
	flowi4_init_output(&fl4, oif, mark, 0, RT_SCOPE_UNIVERSE, IPPROTO_UDP,
			   0, dst->sin_addr.s_addr, src->sin_addr.s_addr,
			   dst->sin_port, src->sin_port, sock_net_uid(net, sk));
	rt = ip_route_output_flow(net, &fl4, usk);
	if (IS_ERR(rt))
		return rt;
	*saddr = fl4.saddr;
	dst_cache_set_ip4(cache, &rt->dst, fl4.saddr);
	return rt;
}

static struct dst_entry *quic_udp_route6(struct sock *sk, struct sock *usk,
					 const struct sockaddr_in6 *src,
					 const struct sockaddr_in6 *dst,
					 struct in6_addr *saddr)
{
	struct dst_cache *cache = &quic_sk(sk)->dst_cache;
	struct flowi6 fl6 = {
		.flowi6_proto	= IPPROTO_UDP,
		.daddr		= dst->sin6_addr,
		.saddr		= src->sin6_addr,
		.fl6_dport	= dst->sin6_port,
		.fl6_sport	= src->sin6_port,
	};
	struct dst_entry *dst_ent;
	u32 mark;
	int oif;

	quic_udp_route_key(sk, &mark, &oif);
	/* A link-local peer's scope wins over the bound device. */
	fl6.flowi6_oif = dst->sin6_scope_id ?: oif;
	fl6.flowi6_mark = mark;
	fl6.flowi6_uid = sock_net_uid(sock_net(usk), sk);
	dst_ent = dst_cache_get_ip6(cache, saddr);
	if (dst_ent)
		return dst_ent;
	dst_ent = ip6_dst_lookup_flow(sock_net(usk), usk, &fl6, NULL);
	if (IS_ERR(dst_ent))
		return dst_ent;
	*saddr = fl6.saddr;
	dst_cache_set_ip6(cache, dst_ent, &fl6.saddr);
	return dst_ent;
}

/* A dual-stack socket talks to IPv4 peers from a v4-mapped address. */
static void quic_udp_src4(const union quic_addr *local, union quic_addr *src)
{
	*src = *local;
	if (src->sa.sa_family == AF_INET6) {
		__be16 port = src->v6.sin6_port;
		__be32 a = ipv6_addr_v4mapped(&src->v6.sin6_addr) ?
			   src->v6.sin6_addr.s6_addr32[3] : 0;

		memset(src, 0, sizeof(*src));
		src->v4.sin_family = AF_INET;
		src->v4.sin_port = port;
		src->v4.sin_addr.s_addr = a;
	}
}

/*
 * The TOS (traffic class) and TTL (hop limit) the user set with IP_TOS and
 * IP_TTL, or IPV6_TCLASS and IPV6_UNICAST_HOPS on an AF_INET6 socket (for
 * its IPv4 peers too); the route's TTL by default.  The ECN bits are ours
 * (ecn.h), never the user's.
 */
static void quic_udp_tos_ttl(struct sock *sk, struct dst_entry *dst, bool v4,
			     u8 ecn, u8 *tos, u8 *ttl)
{
	int hops;

	if (sk->sk_family == AF_INET6) {
		*tos = READ_ONCE(inet6_sk(sk)->tclass);
		hops = READ_ONCE(inet6_sk(sk)->hop_limit);
	} else {
		*tos = READ_ONCE(inet_sk(sk)->tos);
		hops = READ_ONCE(inet_sk(sk)->uc_ttl);
	}
	*tos = (*tos & ~INET_ECN_MASK) | ecn;
	if (hops < 0)
		hops = v4 ? ip4_dst_hoplimit(dst) : ip6_dst_hoplimit(dst);
	*ttl = hops;
}

/*
 * A train of @segs datagrams of @seg bytes (the last may be shorter) made
 * one UDP GSO skb (output.c, gso.h).  udp_tunnel_xmit_skb() and
 * udp_tunnel6_xmit_skb() take it as it is: udp_set_csum() and
 * udp6_set_csum() see skb_is_gso() and write only the pseudo-header sum
 * into the UDP header, leaving the rest to whoever segments, so the skb
 * must already be CHECKSUM_PARTIAL with csum_start at the UDP header, as
 * __udp_gso_segment() checks (-EINVAL otherwise); that is what
 * udp_send_skb() sets up for a UDP_SEGMENT send.  A device with
 * NETIF_F_GSO_UDP_L4 (veth, loopback) carries the skb whole; for any other
 * validate_xmit_skb() segments it in software (netif_needs_gso(),
 * skb_gso_segment(), udp4_ufo_fragment() or udp6_ufo_fragment(),
 * __udp_gso_segment()), which also fills in each segment's checksum, and
 * ip_finish_output_gso() checks every segment against the MTU as it would
 * the datagrams sent one by one.  IP lengths: a train's payload is at
 * most 64 KB less the skb's overhead (output.c), under the 65,507 bytes
 * an IPv4 total length leaves for it.  Before the UDP header is pushed.
 */
static void quic_udp_gso_setup(struct sk_buff *skb, u16 seg, u16 segs)
{
	if (segs < 2)
		return;
	skb_shinfo(skb)->gso_size = seg;
	skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4;
	skb_shinfo(skb)->gso_segs = segs;
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_headroom(skb) - sizeof(struct udphdr);
	skb->csum_offset = offsetof(struct udphdr, check);
}

/* quic_udp_xmit_train() with bottom halves off. */
static int quic_udp_xmit_bh(struct sock *sk, struct sk_buff *skb, u16 seg,
			    u16 segs, u8 ecn)
{
	struct quic_sock *qs = quic_sk(sk);
	struct sock *usk = qs->udp->sock->sk;
	const union quic_addr *peer = &qs->peer;
	union quic_addr src;
	u8 tos, ttl;

	skb->mark = READ_ONCE(sk->sk_mark);	/* SO_MARK */
	quic_udp_gso_setup(skb, seg, segs);
	if (peer->sa.sa_family == AF_INET) {
		struct rtable *rt;
		__be32 saddr;

		quic_udp_src4(&qs->local, &src);
		rt = quic_udp_route4(sk, usk, &src.v4, &peer->v4, &saddr);
		if (IS_ERR(rt)) {
			kfree_skb(skb);
			return PTR_ERR(rt);
		}
		quic_udp_tos_ttl(sk, &rt->dst, true, ecn, &tos, &ttl);
		/* RFC 9000 §14: QUIC datagrams must not be fragmented. */
		udp_tunnel_xmit_skb(rt, usk, skb, saddr, peer->v4.sin_addr.s_addr,
				    tos, ttl, htons(IP_DF),
				    src.v4.sin_port, peer->v4.sin_port, false,
				    false);
	} else {
		struct dst_entry *dst;
		struct in6_addr saddr;

		src = qs->local;
		dst = quic_udp_route6(sk, usk, &src.v6, &peer->v6, &saddr);
		if (IS_ERR(dst)) {
			kfree_skb(skb);
			return PTR_ERR(dst);
		}
		quic_udp_tos_ttl(sk, dst, false, ecn, &tos, &ttl);
		skb->ignore_df = 0;
		udp_tunnel6_xmit_skb(dst, usk, skb, NULL, &saddr,
				     &peer->v6.sin6_addr, tos, ttl, 0,
				     src.v6.sin6_port, peer->v6.sin6_port,
				     false);
	}
	return 0;
}

/*
 * The route cache (dst_cache) is per CPU, and so must be used with bottom
 * halves off, which process context (a system call sending) does not have
 * of itself: otherwise a preempted sender could move to another CPU with
 * this one's entry in hand.
 */

/*
 * Send @segs QUIC datagrams of @sk to its peer, back to back in @skb, each
 * @seg bytes but the last (one datagram: @segs 1, @seg unused), with the
 * ECN codepoint @ecn.  Consumes @skb.
 */
int quic_udp_xmit_train(struct sock *sk, struct sk_buff *skb, u16 seg,
			u16 segs, u8 ecn)
{
	int err;

	local_bh_disable();
	err = quic_udp_xmit_bh(sk, skb, seg, segs, ecn);
	local_bh_enable();
	return err;
}

/* quic_udp_path_payload() with bottom halves off. */
/**
 * quic_udp_xmit_reply - send a stateless reply (Retry, Version Negotiation)
 * @us: the port the datagram being answered came to
 * @sk: the listener whose SO_MARK and device route it, or NULL
 * @skb: the reply, consumed
 * @cb: the addresses of the datagram being answered
 *
 * From @us to where the datagram came from, from the address it was sent
 * to: no connection, no cached route.  Softirq or process context.
 *
 * Return: 0, or -EHOSTUNREACH with no route (@skb freed).
 */
int quic_udp_xmit_reply(struct quic_udp_sock *us, struct sock *sk,
			struct sk_buff *skb, const struct quic_input_cb *cb)
{
	struct sock *usk = us->sock->sk;
	__be16 sport = quic_addr_port(&us->addr);
	struct net *net = sock_net(usk);
	int oif = sk ? READ_ONCE(sk->sk_bound_dev_if) : 0;
	u32 mark = sk ? READ_ONCE(sk->sk_mark) : 0;

	skb->mark = mark;
	local_bh_disable();
	if (cb->peer.sa.sa_family == AF_INET) {
		const struct sockaddr_in *peer = &cb->peer.v4;
		struct flowi4 fl4;
		struct rtable *rt;

		flowi4_init_output(&fl4, oif, mark, 0, RT_SCOPE_UNIVERSE,
				   IPPROTO_UDP, 0, peer->sin_addr.s_addr,
				   cb->local_ip.v4, peer->sin_port, sport,
				   sock_net_uid(net, NULL));
		rt = ip_route_output_flow(net, &fl4, usk);
		if (IS_ERR(rt))
			goto drop;
		udp_tunnel_xmit_skb(rt, usk, skb, fl4.saddr,
				    peer->sin_addr.s_addr, 0,
				    ip4_dst_hoplimit(&rt->dst), htons(IP_DF),
				    sport, peer->sin_port, false, false);
	} else {
		const struct sockaddr_in6 *peer = &cb->peer.v6;
		struct flowi6 fl6 = {
			.flowi6_proto	= IPPROTO_UDP,
			.flowi6_oif	= peer->sin6_scope_id ?: oif,
			.flowi6_mark	= mark,
			.daddr		= peer->sin6_addr,
			.saddr		= cb->local_ip.v6,
			.fl6_dport	= peer->sin6_port,
			.fl6_sport	= sport,
		};
		struct dst_entry *dst;

		dst = ip6_dst_lookup_flow(net, usk, &fl6, NULL);
		if (IS_ERR(dst))
			goto drop;
		skb->ignore_df = 0;
		udp_tunnel6_xmit_skb(dst, usk, skb, NULL, &fl6.saddr,
				     &peer->sin6_addr, 0,
				     ip6_dst_hoplimit(dst), 0, sport,
				     peer->sin6_port, false);
	}
	local_bh_enable();
	return 0;
drop:
	local_bh_enable();
	kfree_skb(skb);
	return -EHOSTUNREACH;
}

static u32 quic_udp_path_payload_bh(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct sock *usk = qs->udp->sock->sk;
	const union quic_addr *peer = &qs->peer;
	union quic_addr src;
	u32 mtu;

	if (peer->sa.sa_family == AF_INET) {
		struct rtable *rt;
		__be32 saddr;

		quic_udp_src4(&qs->local, &src);
		rt = quic_udp_route4(sk, usk, &src.v4, &peer->v4, &saddr);
		if (IS_ERR(rt))
			return 0;
		mtu = dst_mtu(&rt->dst);
		ip_rt_put(rt);
		return mtu > 28 ? mtu - 28 : 0;
	}
	{
		struct dst_entry *dst;
		struct in6_addr saddr;

		src = qs->local;
		dst = quic_udp_route6(sk, usk, &src.v6, &peer->v6, &saddr);
		if (IS_ERR(dst))
			return 0;
		mtu = dst_mtu(dst);
		dst_release(dst);
		return mtu > 48 ? mtu - 48 : 0;
	}
}

/*
 * The largest UDP payload the route to the peer carries without
 * fragmentation (its MTU less the IP and UDP headers), or 0 without one.
 */
u32 quic_udp_path_payload(struct sock *sk)
{
	u32 payload;

	local_bh_disable();
	payload = quic_udp_path_payload_bh(sk);
	local_bh_enable();
	return payload;
}

static int quic_udp_cfg(const union quic_addr *addr, bool v6only,
			struct udp_port_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->family = addr->sa.sa_family;
	if (cfg->family == AF_INET) {
		cfg->local_ip = addr->v4.sin_addr;
		cfg->local_udp_port = addr->v4.sin_port;
		return 0;
	}
	if (cfg->family == AF_INET6) {
		cfg->local_ip6 = addr->v6.sin6_addr;
		cfg->local_udp_port = addr->v6.sin6_port;
		cfg->ipv6_v6only = v6only;
		cfg->bind_ifindex = addr->v6.sin6_scope_id;
		return 0;
	}
	return -EAFNOSUPPORT;
}

/* A new tunnel socket; quic_udp_table_lock held. */
static struct quic_udp_sock *quic_udp_sock_create(struct net *net,
						  const union quic_addr *addr,
						  bool v6only)
{
	struct udp_tunnel_sock_cfg tunnel_cfg = {};
	struct udp_port_cfg cfg;
	struct quic_udp_sock *us;
	struct socket *sock;
	int err;

	err = quic_udp_cfg(addr, v6only, &cfg);
	if (err)
		return ERR_PTR(err);

	us = kzalloc(sizeof(*us), GFP_KERNEL);
	if (!us)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&us->listeners);
	quic_dispatch_init(&us->dispatch);
	get_random_bytes(us->token_key, sizeof(us->token_key));
	quic_ratelimit_init(&us->vn, QUIC_VN_BURST);
	us->cid_len = READ_ONCE(sysctl_quic_cid_len);
	quic_ratelimit_init(&us->sr, QUIC_SR_BURST);
	quic_ratelimit_init(&us->ptb, QUIC_PTB_BURST);

	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		goto err_free;

	/* Read back the port the UDP layer chose for port 0. */
	err = kernel_getsockname(sock, &us->addr.sa);
	if (err < 0)
		goto err_release;

	/*
	 * A tunnel socket for its ICMP errors (encap_err_rcv, with encap_type
	 * set) and its user data; datagrams are read from its queue
	 * (quic_udp_data_ready()), GSO skbs included.  The queue is drained
	 * in the softirq that fills it, and so holds only what the other CPUs
	 * add meanwhile; its limit, in truesize, is a few trains.
	 */
	tunnel_cfg.sk_user_data = us;
	tunnel_cfg.encap_type = 1;
	tunnel_cfg.encap_err_rcv = quic_pmtud_icmp;	/* PTB hints */
	setup_udp_tunnel_sock(net, sock, &tunnel_cfg);
	udp_set_bit(ACCEPT_L4, sock->sk);
	WRITE_ONCE(sock->sk->sk_rcvbuf, QUIC_UDP_RCVBUF);
	write_lock_bh(&sock->sk->sk_callback_lock);
	sock->sk->sk_data_ready = quic_udp_data_ready;
	write_unlock_bh(&sock->sk->sk_callback_lock);

	us->sock = sock;
	us->net = net;
	us->v6only = v6only;
	refcount_set(&us->refcnt, 1);
	hash_add(quic_udp_table, &us->node,
		 (__force u32)quic_addr_port(&us->addr));
	return us;

err_release:
	udp_tunnel_sock_release(sock);
err_free:
	kfree(us);
	return ERR_PTR(err);
}

/* Does @sk, binding first, share its tunnel socket with later ones? */
static bool quic_udp_may_share(const struct sock *sk)
{
	return sk->sk_reuseport || quic_sk(sk)->alpn;
}

/* Is @us the shared tunnel socket @sk asks for with @addr? */
static bool quic_udp_match(const struct quic_udp_sock *us,
			   const struct sock *sk, const union quic_addr *addr)
{
	const union quic_addr *a = &us->addr;

	if (!us->shared || us->net != sock_net(sk) ||
	    us->v6only != ipv6_only_sock(sk) ||
	    !uid_eq(us->uid, sk->sk_uid) ||
	    a->sa.sa_family != addr->sa.sa_family ||
	    quic_addr_port(a) != quic_addr_port(addr))
		return false;
	if (a->sa.sa_family == AF_INET)
		return a->v4.sin_addr.s_addr == addr->v4.sin_addr.s_addr;
	return ipv6_addr_equal(&a->v6.sin6_addr, &addr->v6.sin6_addr);
}

/*
 * The tunnel socket for @sk bound to @addr, with a reference: the shared
 * one of that address if there is one @sk may join, else a new one.
 */
struct quic_udp_sock *quic_udp_sock_get(struct sock *sk,
					const union quic_addr *addr)
{
	bool share = quic_udp_may_share(sk);
	struct quic_udp_sock *us;

	mutex_lock(&quic_udp_table_lock);
	if (quic_addr_port(addr)) {
		hash_for_each_possible(quic_udp_table, us, node,
				       (__force u32)quic_addr_port(addr)) {
			if (quic_udp_match(us, sk, addr)) {
				refcount_inc(&us->refcnt);
				goto out;
			}
		}
	}
	us = quic_udp_sock_create(sock_net(sk), addr, ipv6_only_sock(sk));
	if (!IS_ERR(us)) {
		us->shared = share;
		us->uid = sk->sk_uid;
	}
out:
	mutex_unlock(&quic_udp_table_lock);
	return us;
}

void quic_udp_sock_put(struct quic_udp_sock *us)
{
	if (!refcount_dec_and_mutex_lock(&us->refcnt, &quic_udp_table_lock))
		return;
	hash_del(&us->node);
	mutex_unlock(&quic_udp_table_lock);

	/* From here no datagram reaches the dispatcher. */
	udp_tunnel_sock_release(us->sock);
	if (quic_dispatch_stop(&us->dispatch))
		return;		/* we are its work item: it frees @us */
	quic_udp_sock_free(us);
}

/* The end of a tunnel socket whose UDP socket is released. */
void quic_udp_sock_free(struct quic_udp_sock *us)
{
	/* The listeners and every connection gave their pending slots back. */
	WARN_ON_ONCE(atomic_read(&us->pending));
	WARN_ON_ONCE(!list_empty(&us->listeners));
	kfree_rcu(us, rcu);
}

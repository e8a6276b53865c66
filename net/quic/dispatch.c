// SPDX-License-Identifier: GPL-2.0
/*
 * ALPN dispatch and SO_REUSEPORT: one UDP port, several listeners.
 *
 * Sockets that set QUIC_SOCKOPT_ALPN or SO_REUSEPORT before bind() share
 * one UDP tunnel socket (udp.c), whatever process they are in.  Each that
 * listens gets an entry in the tunnel socket's list of listeners, with the
 * ALPNs it had at listen() (none: the default listener).  listen() fails
 * with EADDRINUSE if another listener serves an ALPN of its own, or if both
 * serve none, unless both have SO_REUSEPORT: they then form a group.
 *
 * New connections: with one listener, the client's first Initial goes
 * straight to it, as it always has (quic_udp_deliver()), whatever its
 * ALPNs: its TLS stack refuses one it does not serve (a
 * no_application_protocol alert, CRYPTO_ERROR 0x178, RFC 9001 §8.1), and a
 * lone server keeps today's cost and behaviour for every ClientHello,
 * however large or slow.  With several, Initials of unknown connections
 * take a pending slot (the cap
 * of socket.c: the largest of the listeners' caps, so that a flood costs
 * what it costs one listener) and are queued for this file's work item,
 * which, in process context and one datagram at a time:
 *
 *  1. hands the datagram to its connection if accept() created it
 *     meanwhile, or to the listener already chosen for its Destination
 *     Connection ID (a decision, remembered QUIC_DISPATCH_DECISION_TIME
 *     and at most QUIC_DISPATCH_DECIDED of them); or drops it if that
 *     listener accepted the connection and it is gone (below);
 *  2. otherwise derives the Initial keys of the DCID (crypto.c), removes
 *     header protection from a copy and decrypts it: forgeries go no
 *     further; the CRYPTO frames' data is reassembled (reasm.c) into the
 *     first QUIC_DISPATCH_HELLO_MAX bytes of the client's TLS stream,
 *     across datagrams, for at most QUIC_DISPATCH_ASSEMBLING connections
 *     at once (the oldest gives way) and QUIC_DISPATCH_ASSEMBLY_TIME;
 *  3. reads the ALPN extension of the ClientHello (tls_hello.c) once it
 *     is there, and chooses: the first of the client's ALPNs, in its
 *     order, that a listener serves; else the default listener.  Within a
 *     group (several listeners serving that ALPN, or several defaults) a
 *     hash of the DCID and the client's address picks one, so that a
 *     connection's datagrams all go the same way;
 *  4. queues the datagrams, with their slots, on that listener's accept
 *     queue, where accept() finds them as before; or, when no listener
 *     fits, refuses the connection (RFC 9001 §8.1): a server socket of no
 *     listener processes the Initial and closes at once with
 *     CONNECTION_REFUSED, which the client sees in an Initial packet, then
 *     goes through its closing period like any closed connection
 *     (connections_refused in /proc/net/quic_stats).
 *
 * A client's Initial may wait here longer than its connection lives: the
 * work item decrypts the Initials of every new connection one after the
 * other, so with a few hundred at once (or a slow host) it runs seconds
 * behind, long enough for the client to send its Initial again (its PTO),
 * and for the connection to be accepted, to finish and to close before
 * that copy is looked at.  Queued again on the listener it would make a
 * second connection, which accept() hands out and whose handshake can
 * only fail.  So accept() marks the decision of the connection it made
 * (quic_dispatch_accepted()), and an Initial of a marked decision whose
 * connection is not in the table (looked up again, under the mutex,
 * after the mark was seen) is dropped: drop_dispatch_stale.  So is one
 * the work item queued on the listener just before the mark, which
 * accept() finds after the connection ended (quic_dispatch_stale()).  A
 * copy that comes after its decision was forgotten
 * (QUIC_DISPATCH_DECISION_TIME from the accept(), or QUIC_DISPATCH_DECIDED
 * newer decisions) is taken as a new connection.
 *
 * A ClientHello whose ALPN extension cannot be read (none, malformed, or
 * not within the first QUIC_DISPATCH_HELLO_MAX bytes) goes to the default
 * listener, or is refused.  A listener that closes leaves the list first;
 * decisions naming it are forgotten (quic_dispatch_forget()) and datagrams
 * the work item still carries for it are dropped when it finds the
 * listener closed, under that listener's lock.
 */

#include <linux/jhash.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <linux/tls.h>

#include "dispatch.h"
#include "frame.h"
#include "retry.h"
#include "socket.h"
#include "tls_hello.h"
#include "udp.h"

#define QUIC_DISPATCH_ASSEMBLING	16
#define QUIC_DISPATCH_HELLO_MAX		(16 * 1024)
#define QUIC_DISPATCH_ASSEMBLY_TIME	(2 * HZ)
#define QUIC_DISPATCH_DECIDED		256
#define QUIC_DISPATCH_DECISION_TIME	(10 * HZ)

/* A new connection: its ClientHello being put together, or a decision. */
struct quic_dispatch_conn {
	struct list_head	node;		/* in d->conns, oldest first */
	struct quic_cid		dcid;
	unsigned long		expires;	/* jiffies */
	struct sock		*lsk;		/* decided: a reference, or NULL */
	bool			accepted;	/* decided, and accept() made it */
	/* While assembling: */
	struct sk_buff_head	skbs;		/* each with a pending slot */
	struct quic_crypto_ctx	crypto;		/* Initial keys of the DCID */
	struct quic_reasm	hello;		/* CRYPTO data from offset 0 */
};

static void quic_dispatch_work(struct work_struct *work);

void quic_dispatch_init(struct quic_dispatch *d)
{
	skb_queue_head_init(&d->queue);
	INIT_DELAYED_WORK(&d->work, quic_dispatch_work);
	mutex_init(&d->lock);
	INIT_LIST_HEAD(&d->conns);
}

static struct quic_udp_sock *quic_dispatch_udp(struct quic_dispatch *d)
{
	return container_of(d, struct quic_udp_sock, dispatch);
}

static void quic_dispatch_drop(struct quic_udp_sock *us, struct sk_buff *skb)
{
	quic_pending_put(us);
	kfree_skb(skb);
}

/* Under d->lock. */
static void quic_dispatch_conn_free(struct quic_udp_sock *us,
				    struct quic_dispatch_conn *c)
{
	struct quic_dispatch *d = &us->dispatch;
	struct sk_buff *skb;
	u8 *ring;

	list_del(&c->node);
	if (c->lsk) {
		d->decided--;
		sock_put(c->lsk);
	} else {
		d->assembling--;
		while ((skb = __skb_dequeue(&c->skbs)))
			quic_dispatch_drop(us, skb);
		quic_crypto_ctx_free(&c->crypto);
		kfree(quic_reasm_release(&c->hello, &ring));
		kfree(ring);
	}
	kfree(c);
}

/* Is the connection of @dcid in the connection ID table? */
static bool quic_dispatch_conn_alive(struct quic_udp_sock *us,
				     const struct quic_cid *dcid)
{
	struct sock *sk;

	rcu_read_lock();
	sk = quic_cid_lookup(us->net, dcid->data, dcid->len);
	rcu_read_unlock();
	if (sk)
		sock_put(sk);
	return !!sk;
}

/*
 * Drop what has expired, and return when the next expires.  The mark of
 * an accepted connection stays while the connection lives, and
 * QUIC_DISPATCH_DECISION_TIME after: copies of its Initial can wait in
 * the queues as long as it lives.  Under d->lock, in the work item (a
 * connection's last reference may go here: quic_dispatch_work() checks
 * d->stopping after).
 */
static unsigned long quic_dispatch_expire(struct quic_udp_sock *us)
{
	unsigned long next = jiffies + QUIC_DISPATCH_DECISION_TIME;
	struct quic_dispatch_conn *c, *tmp;

	list_for_each_entry_safe(c, tmp, &us->dispatch.conns, node) {
		if (time_after_eq(jiffies, c->expires) && c->accepted &&
		    quic_dispatch_conn_alive(us, &c->dcid))
			c->expires = jiffies + QUIC_DISPATCH_DECISION_TIME;
		if (time_before(jiffies, c->expires)) {
			if (time_before(c->expires, next))
				next = c->expires;
			continue;
		}
		if (!c->lsk)
			QUIC_DROP(us->sock->sk, DISPATCH);
		quic_dispatch_conn_free(us, c);
	}
	return next;
}

/* Room for one more of a kind: the oldest of it gives way.  d->lock. */
static void quic_dispatch_make_room(struct quic_udp_sock *us, bool decided)
{
	struct quic_dispatch *d = &us->dispatch;
	struct quic_dispatch_conn *c;

	if (decided ? d->decided < QUIC_DISPATCH_DECIDED :
		      d->assembling < QUIC_DISPATCH_ASSEMBLING)
		return;
	list_for_each_entry(c, &d->conns, node) {
		if (!!c->lsk == decided) {
			if (!decided)
				QUIC_DROP(us->sock->sk, DISPATCH);
			quic_dispatch_conn_free(us, c);
			return;
		}
	}
}

static struct quic_dispatch_conn *
quic_dispatch_find(struct quic_dispatch *d, const struct quic_cid *dcid)
{
	struct quic_dispatch_conn *c;

	list_for_each_entry(c, &d->conns, node)
		if (quic_cid_eq(&c->dcid, dcid))
			return c;
	return NULL;
}

static struct quic_dispatch_conn *
quic_dispatch_conn_new(struct quic_udp_sock *us, const struct quic_hdr *hdr)
{
	struct quic_dispatch_conn *c;
	int err;

	quic_dispatch_make_room(us, false);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return ERR_PTR(-ENOMEM);
	c->dcid = hdr->dcid;
	c->expires = jiffies + QUIC_DISPATCH_ASSEMBLY_TIME;
	__skb_queue_head_init(&c->skbs);
	quic_reasm_init(&c->hello, QUIC_DISPATCH_HELLO_MAX);
	quic_crypto_ctx_init(&c->crypto);
	err = quic_crypto_set_version(&c->crypto, hdr->version);
	if (!err)
		err = quic_crypto_set_initial(&c->crypto, hdr->dcid.data,
					      hdr->dcid.len, true);
	if (err) {
		quic_crypto_ctx_free(&c->crypto);
		kfree(c);
		return ERR_PTR(err);
	}
	list_add_tail(&c->node, &us->dispatch.conns);
	us->dispatch.assembling++;
	return c;
}

/* Remember that the connection of @dcid goes to @lsk.  Under d->lock. */
static struct quic_dispatch_conn *
quic_dispatch_decide(struct quic_udp_sock *us, const struct quic_cid *dcid,
		     struct sock *lsk)
{
	struct quic_dispatch_conn *c;

	quic_dispatch_make_room(us, true);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	c->dcid = *dcid;
	c->expires = jiffies + QUIC_DISPATCH_DECISION_TIME;
	c->lsk = lsk;
	sock_hold(lsk);
	list_add_tail(&c->node, &us->dispatch.conns);
	us->dispatch.decided++;
	return c;
}

/* Keep CRYPTO data of the first QUIC_DISPATCH_HELLO_MAX bytes. */
static void quic_dispatch_crypto(struct quic_dispatch_conn *c, u64 off,
				 const u8 *data, u64 len)
{
	struct quic_reasm *ra = &c->hello;
	u32 size, want = QUIC_REASM_RING_MIN;
	struct quic_reasm_range *r = NULL;
	u8 *ring;

	if (!len || off >= QUIC_DISPATCH_HELLO_MAX)
		return;
	len = min_t(u64, len, QUIC_DISPATCH_HELLO_MAX - off);
	if (quic_reasm_need(ra, off, len, &size))
		return;		/* one gap too many: it comes again */
	while (want < off + len)
		want <<= 1;
	if (want > ra->size) {
		if (!ra->r) {
			r = kmalloc(QUIC_REASM_RANGES_SIZE, GFP_KERNEL);
			if (!r)
				return;
		}
		ring = kzalloc(want, GFP_KERNEL);
		if (!ring) {
			kfree(r);
			return;
		}
		kfree(quic_reasm_grow(ra, ring, want, r));
	}
	quic_reasm_insert(ra, off, data, len);
}

/*
 * Decrypt a copy of the first packet of @skb, an Initial of @c, and keep
 * its CRYPTO data.  -EBADMSG if it is not authentic.
 */
static int quic_dispatch_open(struct quic_dispatch_conn *c,
			      struct sk_buff *skb, struct quic_hdr *hdr)
{
	struct quic_crypto_batch batch = {};
	struct quic_crypto_pkt cpkt = {};
	struct quic_frame f;
	struct sk_buff *copy;
	size_t plen;
	u32 trunc, terr;
	u8 *p, phase;
	int ret;

	copy = skb_copy(skb, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	cpkt.skb = copy;
	cpkt.len = hdr->pkt_len;
	cpkt.pn_off = hdr->pn_offset;
	cpkt.level = QUIC_CRYPTO_INITIAL;
	ret = quic_crypto_unprotect_header(&c->crypto, &cpkt, &trunc, &phase);
	if (!ret)
		ret = quic_hdr_finish(hdr, copy->data, hdr->pkt_len,
				      QUIC_PN_NONE);
	if (ret < 0 || hdr->pkt_len < (size_t)ret + QUIC_CRYPTO_TAG_LEN)
		goto bad;
	p = copy->data + ret;
	plen = hdr->pkt_len - ret - QUIC_CRYPTO_TAG_LEN;
	cpkt.pn = hdr->pn;
	cpkt.key = QUIC_CRYPTO_KEY_CUR;
	batch.pkts = &cpkt;
	batch.n = 1;
	if (quic_crypto_decrypt_batch(&c->crypto, &batch) || cpkt.err)
		goto bad;
	while (plen) {
		ret = quic_frame_decode(p, plen, QUIC_PKT_INITIAL, false, &f,
					&terr);
		if (ret < 0)
			break;	/* the connection will say why, if it lives */
		if (f.type == QUIC_FRAME_CRYPTO)
			quic_dispatch_crypto(c, f.crypto.offset, f.crypto.data,
					     f.crypto.len);
		p += ret;
		plen -= ret;
	}
	kfree_skb(copy);
	return 0;
bad:
	kfree_skb(copy);
	return -EBADMSG;
}

/* Spreads a group's connections; the same for all of a connection's. */
static u32 quic_dispatch_hash(const struct quic_cid *dcid,
			      const union quic_addr *peer)
{
	static u32 seed __read_mostly;
	u32 h;

	net_get_random_once(&seed, sizeof(seed));
	h = jhash(dcid->data, dcid->len, seed);
	if (peer->sa.sa_family == AF_INET)
		return jhash_2words((__force u32)peer->v4.sin_addr.s_addr,
				    (__force u32)peer->v4.sin_port, h);
	return jhash2((const u32 *)peer->v6.sin6_addr.s6_addr32, 4,
		      h ^ (__force u32)peer->v6.sin6_port);
}

static bool quic_dispatch_serves(const struct quic_listener *l,
				 const u8 *name, u8 len)
{
	return name ? quic_alpn_csv_has(l->alpn, name, len) : !l->alpn[0];
}

/*
 * The listener of @us for ALPN @name (NULL: the default one), by @hash
 * within its group, with a reference; NULL if none.  RCU read side.
 */
static struct sock *quic_dispatch_pick(struct quic_udp_sock *us,
				       const u8 *name, u8 len, u32 hash)
{
	struct quic_listener *l;
	u32 n = 0, i;

	list_for_each_entry_rcu(l, &us->listeners, node)
		n += quic_dispatch_serves(l, name, len);
	if (!n)
		return NULL;
	i = reciprocal_scale(hash, n);
	list_for_each_entry_rcu(l, &us->listeners, node) {
		if (!quic_dispatch_serves(l, name, len) || i--)
			continue;
		return refcount_inc_not_zero(&l->sk->sk_refcnt) ? l->sk : NULL;
	}
	return NULL;
}

/*
 * The listener for @c, with a reference, NULL to refuse it, or
 * ERR_PTR(-EAGAIN) until more of its ClientHello is in.
 */
static struct sock *quic_dispatch_choose(struct quic_udp_sock *us,
					 struct quic_dispatch_conn *c)
{
	const u8 *hello, *names = NULL, *name;
	size_t n, len = 0;
	struct sock *sk = NULL;
	u32 hash;
	u8 nlen;
	int err;

	n = quic_reasm_peek(&c->hello, &hello);
	err = n ? quic_tls_hello_alpn(hello, n, &names, &len) : -EAGAIN;
	if (err == -EAGAIN && n < QUIC_DISPATCH_HELLO_MAX)
		return ERR_PTR(-EAGAIN);
	if (err)
		len = 0;	/* none that we can read: the default */

	hash = quic_dispatch_hash(&c->dcid,
				  &QUIC_INPUT_CB(skb_peek(&c->skbs))->peer);
	rcu_read_lock();
	while (!sk && quic_tls_alpn_next(&names, &len, &name, &nlen) > 0)
		sk = quic_dispatch_pick(us, name, nlen, hash);
	if (!sk)
		sk = quic_dispatch_pick(us, NULL, 0, hash);
	rcu_read_unlock();
	return sk;
}

/* Queue @skb on the listener @lsk; it holds a pending slot. */
static void quic_dispatch_deliver(struct sock *lsk, struct sk_buff *skb)
{
	lock_sock(lsk);
	quic_accept_enqueue_slot(lsk, skb);
	release_sock(lsk);
}

/*
 * Refuse the connection of the datagrams @q (RFC 9001 §8.1): a socket of
 * no listener takes the first, and closes at once with CONNECTION_REFUSED.
 * Nothing of @us may be used after this: the socket's end may be the end
 * of @us (quic_dispatch_stop()).
 */
static void quic_dispatch_refuse(struct quic_udp_sock *us,
				 struct sk_buff_head *q)
{
	struct sk_buff *skb = __skb_dequeue(q), *rest;
	struct socket *sock;
	struct sock *sk;
	int err;

	while ((rest = __skb_dequeue(q)))
		quic_dispatch_drop(us, rest);
	QUIC_INC_STATS(REFUSED, 1);
	err = sock_create_kern(us->net, us->addr.sa.sa_family, SOCK_DGRAM,
			       IPPROTO_QUIC, &sock);
	if (err)
		goto drop;
	sk = sock->sk;
	/* It outlives this call (its closing period): keep the netns. */
	sk_net_refcnt_upgrade(sk);
	lock_sock(sk);
	err = quic_sock_attach_udp(sk, us);
	if (err) {
		release_sock(sk);
		sock_release(sock);
		goto drop;
	}
	quic_sk(sk)->pending = true;	/* the Initial's slot */
	if (!quic_conn_accept(sk, skb))
		quic_conn_close(sk, QUIC_TRANSPORT_ERROR_CONNECTION_REFUSED, 0,
				false);
	release_sock(sk);
	sock_release(sock);
	return;
drop:
	quic_dispatch_drop(us, skb);
}

/*
 * If accept() made the connection of @dcid meanwhile, hand it @skb (whose
 * slot goes back) and say so.  Consumes @skb then.
 */
static bool quic_dispatch_to_conn(struct quic_udp_sock *us,
				  const struct quic_cid *dcid,
				  struct sk_buff *skb)
{
	struct sock *sk;

	rcu_read_lock();
	sk = quic_cid_lookup(us->net, dcid->data, dcid->len);
	rcu_read_unlock();
	if (!sk)
		return false;
	quic_pending_put(us);
	lock_sock(sk);
	quic_input(sk, skb);
	release_sock(sk);
	sock_put(sk);
	return true;
}

/* One Initial of a connection unknown when it arrived.  Consumes @skb. */
static void quic_dispatch_one(struct quic_udp_sock *us, struct sk_buff *skb)
{
	struct quic_dispatch *d = &us->dispatch;
	struct quic_dispatch_conn *c;
	struct sk_buff_head q;
	struct quic_hdr hdr;
	struct sock *sk;

	if (quic_hdr_parse(skb->data, skb->len, QUIC_SCID_LEN, &hdr))
		goto drop;
	if (quic_dispatch_to_conn(us, &hdr.dcid, skb))
		return;

	mutex_lock(&d->lock);
	quic_dispatch_expire(us);
	c = quic_dispatch_find(d, &hdr.dcid);
	if (c && c->accepted) {
		/*
		 * Accepted, and not in the table when looked up above: gone,
		 * unless the lookup came just before accept() added it; the
		 * mark comes after that, so a second lookup tells.
		 */
		mutex_unlock(&d->lock);
		if (quic_dispatch_to_conn(us, &hdr.dcid, skb))
			return;
		QUIC_DROP(us->sock->sk, DISPATCH_STALE);
		goto drop;
	}
	if (c && c->lsk) {
		sk = c->lsk;
		sock_hold(sk);
		mutex_unlock(&d->lock);
		quic_dispatch_deliver(sk, skb);
		sock_put(sk);
		return;
	}
	if (!c) {
		c = quic_dispatch_conn_new(us, &hdr);
		if (IS_ERR(c))
			goto unlock_drop;
	}
	if (quic_dispatch_open(c, skb, &hdr)) {
		QUIC_DROP(us->sock->sk, DECRYPT);
		if (skb_queue_empty(&c->skbs))
			quic_dispatch_conn_free(us, c);
		goto unlock_drop;
	}
	__skb_queue_tail(&c->skbs, skb);
	sk = quic_dispatch_choose(us, c);
	if (sk == ERR_PTR(-EAGAIN)) {
		mutex_unlock(&d->lock);
		return;
	}

	__skb_queue_head_init(&q);
	skb_queue_splice_init(&c->skbs, &q);
	quic_dispatch_conn_free(us, c);
	/* Remembered for its later datagrams. */
	if (sk)
		quic_dispatch_decide(us, &hdr.dcid, sk);
	mutex_unlock(&d->lock);

	if (!sk) {
		if (list_empty(&us->listeners)) {
			/* Nobody listens any more: silence. */
			while ((skb = __skb_dequeue(&q)))
				quic_dispatch_drop(us, skb);
			return;
		}
		quic_dispatch_refuse(us, &q);
		return;
	}
	while ((skb = __skb_dequeue(&q)))
		quic_dispatch_deliver(sk, skb);
	sock_put(sk);
	return;

unlock_drop:
	mutex_unlock(&d->lock);
drop:
	quic_dispatch_drop(us, skb);
}

/* Everything held goes, with its pending slots. */
static void quic_dispatch_purge(struct quic_udp_sock *us)
{
	struct quic_dispatch *d = &us->dispatch;
	struct quic_dispatch_conn *c, *tmp;
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&d->queue)))
		quic_dispatch_drop(us, skb);
	mutex_lock(&d->lock);
	list_for_each_entry_safe(c, tmp, &d->conns, node)
		quic_dispatch_conn_free(us, c);
	mutex_unlock(&d->lock);
}

static void quic_dispatch_work(struct work_struct *work)
{
	struct quic_dispatch *d = container_of(to_delayed_work(work),
					       struct quic_dispatch, work);
	struct quic_udp_sock *us = quic_dispatch_udp(d);
	unsigned long next = 0;
	struct sk_buff *skb;
	bool held = false;

	while (!d->stopping && (skb = skb_dequeue(&d->queue))) {
		quic_dispatch_one(us, skb);
		cond_resched();
	}
	if (!d->stopping) {
		mutex_lock(&d->lock);
		next = quic_dispatch_expire(us);
		held = !list_empty(&d->conns);
		mutex_unlock(&d->lock);
	}
	if (d->stopping) {
		/* The last reference to @us went in this work item. */
		cancel_delayed_work(&d->work);
		quic_dispatch_purge(us);
		quic_udp_sock_free(us);
		return;
	}
	/* Come back to expire what is held. */
	if (held)
		queue_delayed_work(system_unbound_wq, &d->work,
				   max_t(long, (long)(next - jiffies), HZ / 2));
}

/*
 * An Initial of an unknown connection, for a tunnel socket with several
 * listeners or ALPNs: within the pending cap, to the work item.  Softirq,
 * RCU read side.  Consumes @skb.
 */
void quic_dispatch_rcv(struct quic_udp_sock *us, struct sk_buff *skb)
{
	struct sock *usk = us->sock->sk;
	struct quic_listener *l;
	unsigned int cap = 0;
	bool validate = false;
	struct quic_hdr hdr;

	/* As quic_listen_rcv() checks for a listener of its own. */
	if (skb->len < QUIC_MIN_INITIAL_DATAGRAM ||
	    quic_hdr_parse(skb->data, skb->len, QUIC_SCID_LEN, &hdr) ||
	    hdr.type != QUIC_PKT_INITIAL || hdr.dcid.len < 8 ||
	    (hdr.version != QUIC_VERSION_V1 &&
	     hdr.version != QUIC_VERSION_V2)) {
		QUIC_DROP(usk, LISTEN);
		kfree_skb(skb);
		return;
	}
	list_for_each_entry_rcu(l, &us->listeners, node) {
		cap = max(cap, quic_pending_cap(l->sk));
		/* The ALPN is not known yet: one listener asking is enough. */
		validate |= READ_ONCE(quic_sk(l->sk)->config.validate_peer_address);
	}
	if (quic_retry_listen(us, NULL, validate, skb, &hdr))
		return;
	if (!quic_pending_try_get(us, cap)) {
		QUIC_DROP(usk, PENDING);
		kfree_skb(skb);
		return;
	}
	/* Kept past the RCU section of the receive path. */
	skb_dst_drop(skb);
	skb_queue_tail(&us->dispatch.queue, skb);
	mod_delayed_work(system_unbound_wq, &us->dispatch.work, 0);
}

/*
 * The tunnel socket's last reference is gone and its UDP socket released:
 * stop the work item and drop what it holds.  Returns true when called
 * from the work item itself, which then frees @us as it ends.
 */
bool quic_dispatch_stop(struct quic_dispatch *d)
{
	if (current_work() == &d->work.work) {
		d->stopping = true;
		return true;
	}
	cancel_delayed_work_sync(&d->work);
	quic_dispatch_purge(quic_dispatch_udp(d));
	return false;
}

/*
 * accept() on @lsk made the connection whose client's first Initial had
 * @dcid, and it is in the connection ID table: later copies of that
 * Initial that find it gone are stale (see the top of this file).
 * Process context, no socket lock held.
 */
void quic_dispatch_accepted(struct quic_dispatch *d, struct sock *lsk,
			    const struct quic_cid *dcid)
{
	struct quic_udp_sock *us = quic_dispatch_udp(d);
	struct quic_dispatch_conn *c;

	mutex_lock(&d->lock);
	c = quic_dispatch_find(d, dcid);
	/*
	 * Its decision may have been forgotten while the Initial waited in
	 * the listener's queue: the mark is made anew, but not for the lone
	 * listener of a port, whose Initials never come here.
	 */
	if (!c && !rcu_access_pointer(us->listener))
		c = quic_dispatch_decide(us, dcid, lsk);
	if (c && c->lsk == lsk) {
		c->accepted = true;
		c->expires = jiffies + QUIC_DISPATCH_DECISION_TIME;
		/* The work item expires it (if idle, it comes then). */
		queue_delayed_work(system_unbound_wq, &d->work,
				   QUIC_DISPATCH_DECISION_TIME);
	}
	mutex_unlock(&d->lock);
}

/*
 * Is an Initial with @dcid that accept() on @lsk took from its queue, and
 * whose connection is not in the table, a stale copy: of a connection
 * accept() made that is gone?  The work item queues a copy on the listener
 * when it looks before the mark of quic_dispatch_accepted(); if that is
 * after accept() took the connection's datagrams (quic_accept_alive()),
 * the copy waits for the next accept(), which may come after the
 * connection ended.  Socket lock of @lsk held.
 */
bool quic_dispatch_stale(struct quic_dispatch *d, struct sock *lsk,
			 const struct quic_cid *dcid)
{
	struct quic_dispatch_conn *c;
	bool stale;

	mutex_lock(&d->lock);
	c = quic_dispatch_find(d, dcid);
	stale = c && c->lsk == lsk && c->accepted;
	mutex_unlock(&d->lock);
	return stale;
}

/* The listener @lsk has left: its decisions go. */
void quic_dispatch_forget(struct quic_dispatch *d, struct sock *lsk)
{
	struct quic_udp_sock *us = quic_dispatch_udp(d);
	struct quic_dispatch_conn *c, *tmp;

	mutex_lock(&d->lock);
	list_for_each_entry_safe(c, tmp, &d->conns, node)
		if (c->lsk == lsk)
			quic_dispatch_conn_free(us, c);
	mutex_unlock(&d->lock);
}

/*
 * @sk listens on @us: -EADDRINUSE if a listener serves an ALPN it serves,
 * or both serve none, and they are not both SO_REUSEPORT of one owner.
 * quic_udp_table_lock held.
 */
int quic_dispatch_listen(struct quic_udp_sock *us, struct sock *sk,
			 struct list_head *listeners)
{
	const char *alpn = quic_alpn(quic_sk(sk));
	struct quic_listener *l, *new;
	size_t len = strnlen(alpn, QUIC_ALPN_MAX - 1);
	bool clash;

	list_for_each_entry(l, listeners, node) {
		if (l->sk == sk)
			return 0;
		clash = (!l->alpn[0] && !alpn[0]) ||
			quic_alpn_csv_overlap(l->alpn, alpn);
		if (clash && !(l->reuseport && sk->sk_reuseport &&
			       uid_eq(l->uid, sk->sk_uid)))
			return -EADDRINUSE;
	}
	new = kzalloc(struct_size(new, alpn, len + 1), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->sk = sk;
	new->uid = sk->sk_uid;
	new->reuseport = sk->sk_reuseport;
	memcpy(new->alpn, alpn, len);
	list_add_tail_rcu(&new->node, listeners);
	return 0;
}

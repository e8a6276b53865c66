// SPDX-License-Identifier: GPL-2.0
/*
 * Stateless reset (RFC 9000 §10.3).
 *
 * Tokens.  The token of a connection ID we issue is a keyed BLAKE2s of the
 * CID bytes under a random key of the network namespace, made when the
 * namespace is and never shown to anyone: whoever knows a CID of ours
 * cannot compute its token, and an endpoint of this namespace that lost
 * the connection (its socket closed abruptly, or it was another socket of
 * the port) can still compute it from the CID alone (§10.3.2).  A server
 * sends the token of its first CID in the stateless_reset_token transport
 * parameter; every NEW_CONNECTION_ID carries one.
 *
 * Sending.  A short-header datagram arriving at a port whose CID length
 * is not 0 and naming no connection there is answered with a reset from
 * that port: the first byte 01xxxxxx, unpredictable bytes, then the token
 * of the CID the datagram named.  §10.3.3: it is one byte smaller than the
 * datagram (so two endpoints cannot answer each other's resets forever),
 * at most QUIC_SR_MAX_LEN bytes, and never sent for a datagram under
 * QUIC_SR_MIN_TRIGGER bytes, where it could not be both smaller and as
 * long as a real packet.  A port sends at most QUIC_SR_BURST of them at
 * once and QUIC_SR_RATE a second after that.
 *
 * Detecting.  The peer's tokens of its CIDs we have are in a table of the
 * namespace, so that a reset whose first bytes name no connection of ours
 * (the usual case: they are random) still finds it; a short-header
 * datagram whose last 16 bytes are the token of the connection's active
 * DCID (§10.3.1: not of CIDs it did not use) closes it at once: no
 * draining period, sk_err ECONNRESET, the state closed.
 */

#include <crypto/algapi.h>
#include <crypto/blake2s.h>
#include <linux/random.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <net/netns/generic.h>

#include "socket.h"
#include "stateless_reset.h"
#include "udp.h"

#define QUIC_SR_KEY_LEN		32
#define QUIC_SR_MIN_TRIGGER	43	/* datagrams below are not answered */
#define QUIC_SR_MAX_LEN		64
#define QUIC_SR_HEADROOM	(MAX_HEADER + sizeof(struct ipv6hdr) + \
				 sizeof(struct udphdr))

struct quic_sr_net {
	u8	key[QUIC_SR_KEY_LEN];	/* constant from the netns's birth */
};

static unsigned int quic_sr_net_id;
static struct rhashtable quic_sr_table;

static const struct rhashtable_params quic_sr_params = {
	.head_offset		= offsetof(struct quic_sr_entry, node),
	.key_offset		= offsetof(struct quic_sr_entry, key),
	.key_len		= sizeof(struct quic_sr_key),
	.automatic_shrinking	= true,
};

static int __net_init quic_sr_net_init(struct net *net)
{
	struct quic_sr_net *sn = net_generic(net, quic_sr_net_id);

	get_random_bytes(sn->key, sizeof(sn->key));
	return 0;
}

static void __net_exit quic_sr_net_exit(struct net *net)
{
	struct quic_sr_net *sn = net_generic(net, quic_sr_net_id);

	memzero_explicit(sn->key, sizeof(sn->key));
}

static struct pernet_operations quic_sr_net_ops = {
	.init	= quic_sr_net_init,
	.exit	= quic_sr_net_exit,
	.id	= &quic_sr_net_id,
	.size	= sizeof(struct quic_sr_net),
};

int quic_sr_init(void)
{
	int err;

	err = rhashtable_init(&quic_sr_table, &quic_sr_params);
	if (err)
		return err;
	err = register_pernet_subsys(&quic_sr_net_ops);
	if (err)
		rhashtable_destroy(&quic_sr_table);
	return err;
}

/* Sockets hold module references, so the table is empty by now. */
void quic_sr_exit(void)
{
	unregister_pernet_subsys(&quic_sr_net_ops);
	rhashtable_destroy(&quic_sr_table);
}

/* The token of our CID @cid in @net. */
void quic_sr_token(const struct net *net, const struct quic_cid *cid,
		   u8 *token)
{
	struct quic_sr_net *sn = net_generic(net, quic_sr_net_id);
	u8 msg[1 + QUIC_CID_MAX_LEN];

	msg[0] = cid->len;
	memcpy(msg + 1, cid->data, cid->len);
	blake2s(token, msg, sn->key, QUIC_STATELESS_RESET_TOKEN_LEN,
		1 + cid->len, sizeof(sn->key));
}

/*
 * Make the peer's @token find @sk.  NULL without memory or if another
 * entry has the same token (then only the connection's own datagrams
 * can carry its reset).  Socket lock held.
 */
struct quic_sr_entry *quic_sr_add(struct sock *sk, const u8 *token)
{
	struct quic_sr_entry *e;

	e = kzalloc(sizeof(*e), GFP_ATOMIC);
	if (!e)
		return NULL;
	e->key.net = sock_net(sk);
	memcpy(e->key.token, token, QUIC_STATELESS_RESET_TOKEN_LEN);
	e->sk = sk;
	if (rhashtable_lookup_insert_fast(&quic_sr_table, &e->node,
					  quic_sr_params)) {
		kfree(e);
		return NULL;
	}
	quic_obj_charge(sk, sizeof(*e));
	return e;
}

/* Socket lock held: the entry's charge goes back to its socket. */
void quic_sr_del(struct quic_sr_entry *e)
{
	if (!e)
		return;
	rhashtable_remove_fast(&quic_sr_table, &e->node, quic_sr_params);
	quic_obj_charge(e->sk, -(int)sizeof(*e));
	kfree_rcu(e, rcu);
}

/* Answer @skb, for the unknown CID @inv names, with a reset. */
static void quic_sr_send(struct quic_udp_sock *us, struct sk_buff *skb,
			 const struct quic_invariant *inv)
{
	struct quic_cid cid = {};
	struct sk_buff *r;
	size_t len;
	u8 *p;

	if (!us->cid_len || inv->dcid_len != us->cid_len ||
	    skb->len < QUIC_SR_MIN_TRIGGER)
		return;
	if (!quic_ratelimit_take(&us->sr, QUIC_SR_RATE, QUIC_SR_BURST))
		return;
	len = min_t(size_t, skb->len - 1, QUIC_SR_MAX_LEN);
	r = alloc_skb(QUIC_SR_HEADROOM + len, GFP_ATOMIC);
	if (!r)
		return;
	skb_reserve(r, QUIC_SR_HEADROOM);
	p = skb_put(r, len);
	get_random_bytes(p, len - QUIC_STATELESS_RESET_TOKEN_LEN);
	p[0] = 0x40 | (p[0] & 0x3f);	/* short header, fixed bit */
	cid.len = inv->dcid_len;
	memcpy(cid.data, inv->dcid, cid.len);
	quic_sr_token(us->net, &cid, p + len - QUIC_STATELESS_RESET_TOKEN_LEN);
	quic_udp_xmit_reply(us, NULL, r, QUIC_INPUT_CB(skb));
}

/**
 * quic_sr_rcv - a short-header datagram of no known connection
 * @us: the port it came to
 * @skb: the datagram, UDP header pulled, QUIC_INPUT_CB() filled
 * @inv: its invariant header
 *
 * Softirq, RCU.  Does not consume @skb.
 *
 * Return: the connection whose peer's token ends @skb, with a reference
 * (quic_sr_detect() decides under its lock), or NULL after a reset was
 * sent if one may be.
 */
struct sock *quic_sr_rcv(struct quic_udp_sock *us, struct sk_buff *skb,
			 const struct quic_invariant *inv)
{
	struct quic_sr_key key = { .net = us->net };
	struct quic_sr_entry *e;
	struct sock *sk;

	if (skb->len >= QUIC_STATELESS_RESET_MIN_LEN) {
		memcpy(key.token, skb->data + skb->len -
		       QUIC_STATELESS_RESET_TOKEN_LEN, sizeof(key.token));
		e = rhashtable_lookup(&quic_sr_table, &key, quic_sr_params);
		if (e) {
			/* QUIC sockets are SOCK_RCU_FREE. */
			sk = e->sk;
			if (refcount_inc_not_zero(&sk->sk_refcnt))
				return sk;
		}
	}
	quic_sr_send(us, skb, inv);
	return NULL;
}

/*
 * Is @skb, received by @sk, a reset from its peer?  Then the connection is
 * closed with ECONNRESET.  Socket lock held.
 */
bool quic_sr_detect(struct sock *sk, struct sk_buff *skb)
{
	struct quic_sock *qs = quic_sk(sk);
	const struct quic_dcid *d = qs->cids.active;

	if (skb->len < QUIC_STATELESS_RESET_MIN_LEN || (skb->data[0] & 0x80) ||
	    !d || !d->has_token ||
	    crypto_memneq(skb->data + skb->len - QUIC_STATELESS_RESET_TOKEN_LEN,
			  d->reset_token, QUIC_STATELESS_RESET_TOKEN_LEN))
		return false;
	quic_conn_end(sk, ECONNRESET);
	return true;
}

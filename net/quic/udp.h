/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UDP tunnel sockets: QUIC runs over kernel UDP sockets, one per local
 * address and port, shared (by reference) by the QUIC sockets bound to it
 * (several, with SO_REUSEPORT or QUIC_SOCKOPT_ALPN: dispatch.c) and the
 * connections their listeners accept.
 */

#ifndef _NET_QUIC_UDP_H
#define _NET_QUIC_UDP_H

#include <linux/refcount.h>
#include <linux/types.h>

#include "dispatch.h"
#include "ratelimit.h"
#include "token.h"
#include "socket.h"
#include "version.h"

struct quic_udp_sock {
	struct hlist_node	node;	/* in quic_udp_table, under its mutex */
	refcount_t		refcnt;
	struct net		*net;
	struct socket		*sock;
	union quic_addr		addr;	/* the bound address, port filled in */
	struct rcu_head		rcu;	/* receive may still see us in RCU */
	/* Who may bind it too (SO_REUSEPORT or ALPN, same uid): constant. */
	bool			shared;
	bool			v6only;
	kuid_t			uid;
	/*
	 * Listeners: struct quic_listener, RCU, written under
	 * quic_udp_table_lock.  @listener is the fast path: the only
	 * listener, which gets Initials of new connections straight from
	 * quic_udp_deliver(); with several it is NULL and they go to
	 * @dispatch.
	 */
	struct list_head	listeners;
	struct sock __rcu	*listener;
	struct quic_dispatch	dispatch;
	/*
	 * Server connections of this port not yet established: queued on
	 * the listener or accepted with the handshake running (socket.c).
	 * Raised only under the listener's socket lock, so that the check
	 * against the cap and the increment do not race; lowered anywhere.
	 */
	atomic_t		pending;
	/*
	 * Key of the address-validation tokens of this port (token.c):
	 * random, constant, never leaves the kernel.
	 */
	u8			token_key[QUIC_TOKEN_KEY_LEN];
	/* Version Negotiation packets it may send (version.c). */
	struct quic_ratelimit	vn;
	/* Our CID length on this port and its stateless resets (conn_id.c). */
	u8			cid_len;
	struct quic_ratelimit	sr;
	/* ICMP Packet Too Big it takes as hints (pmtud.c). */
	struct quic_ratelimit	ptb;
};

struct quic_udp_sock *quic_udp_sock_get(struct sock *sk,
					const union quic_addr *addr);
void quic_udp_sock_put(struct quic_udp_sock *us);
void quic_udp_sock_free(struct quic_udp_sock *us);
int quic_udp_set_listener(struct quic_udp_sock *us, struct sock *sk, bool on);
int quic_udp_xmit_train(struct sock *sk, struct sk_buff *skb, u16 seg,
			u16 segs, u8 ecn);
int quic_udp_xmit_reply(struct quic_udp_sock *us, struct sock *sk,
			struct sk_buff *skb, const struct quic_input_cb *cb);
u32 quic_udp_path_payload(struct sock *sk);

static inline void quic_udp_sock_hold(struct quic_udp_sock *us)
{
	refcount_inc(&us->refcnt);
}

#endif /* _NET_QUIC_UDP_H */

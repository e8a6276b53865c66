/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stateless reset (RFC 9000 §10.3): tokens derived from a per-netns key,
 * resets sent for short-header packets of unknown connections, and
 * resets received for ours (stateless_reset.c).
 */

#ifndef _NET_QUIC_STATELESS_RESET_H
#define _NET_QUIC_STATELESS_RESET_H

#include <linux/rhashtable-types.h>
#include <linux/spinlock.h>
#include <net/sock.h>

#include "constants.h"
#include "packet_header.h"

struct quic_udp_sock;

/* §10.3: 5 unpredictable bits and 16 of token need 21 bytes. */
#define QUIC_STATELESS_RESET_MIN_LEN	21

/* A peer's reset token, findable by the receive path (RCU). */
struct quic_sr_key {
	const struct net	*net;
	u8			token[QUIC_STATELESS_RESET_TOKEN_LEN];
};

struct quic_sr_entry {
	struct rhash_head	node;
	struct quic_sr_key	key;
	struct sock		*sk;
	struct rcu_head		rcu;
};

/* Stateless resets a port sends (ratelimit.h). */
#define QUIC_SR_RATE	32	/* a second */
#define QUIC_SR_BURST	64

int quic_sr_init(void);
void quic_sr_exit(void);

void quic_sr_token(const struct net *net, const struct quic_cid *cid,
		   u8 *token);
struct quic_sr_entry *quic_sr_add(struct sock *sk, const u8 *token);
void quic_sr_del(struct quic_sr_entry *e);

struct sock *quic_sr_rcv(struct quic_udp_sock *us, struct sk_buff *skb,
			 const struct quic_invariant *inv);
bool quic_sr_detect(struct sock *sk, struct sk_buff *skb);

#endif /* _NET_QUIC_STATELESS_RESET_H */

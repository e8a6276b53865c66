/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Datagram PLPMTU discovery of a connection (RFC 9000 §14, RFC 8899): the
 * glue between the pure search (plpmtud.c) and the socket.  It sets
 * qs->max_datagram (and the congestion controller's mss) from the search,
 * has output.c send the probes (PING + PADDING 1-RTT packets, never sent
 * again when lost, whose loss is no congestion signal), hears of acked and
 * lost packets and PTOs, and takes ICMP Packet Too Big / Fragmentation
 * Needed for the connection's path as a hint (RFC 8899 §4.6).
 *
 * QUIC_SOCKOPT_CONFIG plpmtud_probe_interval (microseconds): 0, the
 * default, leaves DPLPMTUD off: the size is the route's, at most
 * QUIC_MAX_DATAGRAM (1452), lowered (never raised) by validated ICMP.  Any
 * other value turns it on: the size starts at 1200 once the handshake is
 * done, probes search up to the route's and the peer's limit (at most
 * 9000), and the search runs again that long after it completed.
 */

#ifndef _NET_QUIC_PMTUD_H
#define _NET_QUIC_PMTUD_H

#include <linux/spinlock.h>
#include <linux/types.h>

#include "plpmtud.h"
#include "varint.h"

struct net;
struct sock;
struct sk_buff;

/* The quoted bytes of an ICMP error kept: header byte, version, CID. */
#define QUIC_PMTUD_QUOTE	(1 + 4 + 1 + 20)
/*
 * Packet Too Big messages a port hands its connections, a second and at
 * once: each costs a walk over the namespace's connections, so a forged
 * ICMP flood is cut down to this.
 */
#define QUIC_PTB_RATE		64
#define QUIC_PTB_BURST		64

struct quic_pmtud {
	/* Under the socket lock. */
	struct quic_plpmtud	search;
	bool			building;	/* output.c builds a probe */
	/*
	 * The latest ICMP hint, written by the UDP error handler (softirq,
	 * without the socket lock) and taken by quic_pmtud_output(), which
	 * validates its quoted bytes against our DCID.  Under @lock.
	 */
	spinlock_t		lock;
	u32			ptb_size;	/* UDP payload; 0: none */
	u8			ptb_quote_len;
	u8			ptb_quote[QUIC_PMTUD_QUOTE];
};

void quic_pmtud_init(struct sock *sk);
/* The handshake is done: the first datagram size, and the search. */
void quic_pmtud_start(struct sock *sk);
/* A new path (migration): the search starts again from 1200. */
void quic_pmtud_reset(struct sock *sk);
/* QUIC_SOCKOPT_CONFIG changed plpmtud_probe_interval. */
void quic_pmtud_config(struct sock *sk);
/* From quic_output(): a pending ICMP hint, then a probe if one is due. */
void quic_pmtud_output(struct sock *sk, u64 now);
/* From quic_fill_frames(): a probe's PING, when one is being built. */
bool quic_pmtud_fill(struct sock *sk, struct quic_wr *wr);
/* Acked, lost (true: it was a probe, not congestion) packets, PTO. */
struct quic_sent_meta;
void quic_pmtud_acked(struct sock *sk, u8 space,
		      const struct quic_sent_meta *m);
bool quic_pmtud_lost(struct sock *sk, u8 space,
		     const struct quic_sent_meta *m);
void quic_pmtud_pto(struct sock *sk);
/* encap_err_rcv of the UDP tunnel socket @usk. */
void quic_pmtud_icmp(struct sock *usk, struct sk_buff *skb, int err,
		     __be16 port, u32 info, u8 *payload);
/* output.c: send a probe of @size bytes now.  False if it could not. */
bool quic_output_probe(struct sock *sk, u32 size, u64 now);
/* proc.c: call @fn on every QUIC socket of @net (softirq-safe lock). */
void quic_proc_for_each(struct net *net, void (*fn)(struct sock *sk, void *arg),
			void *arg);
/* getsockopt(SOL_IP, IP_MTU) / (SOL_IPV6, IPV6_MTU): true if it is one. */
bool quic_pmtud_is_mtu_opt(int level, int optname);
int quic_pmtud_get_mtu(struct sock *sk, char __user *optval,
		       int __user *optlen);

#endif /* _NET_QUIC_PMTUD_H */

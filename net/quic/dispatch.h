/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ALPN dispatch and SO_REUSEPORT: several listeners on one UDP tunnel
 * socket (dispatch.c has the design).
 *
 * Locking:
 *  - the list of listeners of a UDP socket (struct quic_udp_sock,
 *    listeners) is written under quic_udp_table_lock (udp.c) and read
 *    under RCU; entries are freed with kfree_rcu() after list_del_rcu(),
 *    and the socket they name is SOCK_RCU_FREE, so a reader may try
 *    refcount_inc_not_zero() on it;
 *  - the dispatcher's queue is an sk_buff_head used with its own spinlock
 *    (softirq adds, the work item takes);
 *  - its connections (assemblies and decisions) are protected by @lock, a
 *    mutex taken only by the work item, by accept() (marking a decision,
 *    no socket lock held) and by a listener leaving (its socket lock
 *    held); nothing takes a socket lock while holding it.
 */

#ifndef _NET_QUIC_DISPATCH_H
#define _NET_QUIC_DISPATCH_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/skbuff.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

struct quic_cid;
struct quic_udp_sock;
struct sock;

/* One listening socket of a UDP socket, as it was at listen(). */
struct quic_listener {
	struct list_head	node;	/* in us->listeners, see above */
	struct sock		*sk;	/* no reference: leaves the list first */
	kuid_t			uid;
	bool			reuseport;
	struct rcu_head		rcu;
	char			alpn[];	/* comma-separated; "" is the default */
};

struct quic_dispatch {
	struct sk_buff_head	queue;	/* Initials to look at, each with a slot */
	struct delayed_work	work;
	struct mutex		lock;	/* protects the lists below */
	struct list_head	conns;	/* struct quic_dispatch_conn, oldest first */
	u32			assembling;	/* conns without a decision */
	u32			decided;	/* conns with one */
	bool			stopping;	/* the work item frees the UDP socket */
};

void quic_dispatch_init(struct quic_dispatch *d);
bool quic_dispatch_stop(struct quic_dispatch *d);
void quic_dispatch_forget(struct quic_dispatch *d, struct sock *lsk);
void quic_dispatch_accepted(struct quic_dispatch *d, struct sock *lsk,
			    const struct quic_cid *dcid);
bool quic_dispatch_stale(struct quic_dispatch *d, struct sock *lsk,
			 const struct quic_cid *dcid);
void quic_dispatch_rcv(struct quic_udp_sock *us, struct sk_buff *skb);
int quic_dispatch_listen(struct quic_udp_sock *us, struct sock *sk,
			 struct list_head *listeners);

#endif /* _NET_QUIC_DISPATCH_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * UDP tunnel sockets under QUIC sockets.
 *
 * Each bind() of a QUIC socket creates one kernel UDP socket bound to the
 * same address; the UDP layer then enforces address-in-use and picks the
 * ephemeral port for port 0.  The table lets later code (accepted
 * connections, connection-ID lookup) find the tunnel socket for a local
 * address.
 */

#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <net/udp_tunnel.h>

#include "udp.h"

static DEFINE_MUTEX(quic_udp_table_lock);
static DEFINE_HASHTABLE(quic_udp_table, 6);	/* protected by quic_udp_table_lock */

/* Packets are not processed yet: drop them, and tell UDP they were consumed. */
static int quic_udp_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	kfree_skb(skb);
	return 0;
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

struct quic_udp_sock *quic_udp_sock_create(struct net *net,
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

	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		goto err_free;

	/* Read back the port the UDP layer chose for port 0. */
	err = kernel_getsockname(sock, &us->addr.sa);
	if (err < 0)
		goto err_release;

	tunnel_cfg.sk_user_data = us;
	tunnel_cfg.encap_type = 1;
	tunnel_cfg.encap_rcv = quic_udp_encap_rcv;
	setup_udp_tunnel_sock(net, sock, &tunnel_cfg);

	us->sock = sock;
	us->net = net;
	refcount_set(&us->refcnt, 1);

	mutex_lock(&quic_udp_table_lock);
	hash_add(quic_udp_table, &us->node,
		 (__force u32)(cfg.family == AF_INET ? us->addr.v4.sin_port :
						       us->addr.v6.sin6_port));
	mutex_unlock(&quic_udp_table_lock);
	return us;

err_release:
	udp_tunnel_sock_release(sock);
err_free:
	kfree(us);
	return ERR_PTR(err);
}

void quic_udp_sock_put(struct quic_udp_sock *us)
{
	if (!refcount_dec_and_mutex_lock(&us->refcnt, &quic_udp_table_lock))
		return;
	hash_del(&us->node);
	mutex_unlock(&quic_udp_table_lock);

	udp_tunnel_sock_release(us->sock);
	kfree_rcu(us, rcu);
}

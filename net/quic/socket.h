/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC socket core: the per-socket state and the struct proto callbacks.
 */

#ifndef _NET_QUIC_SOCKET_H
#define _NET_QUIC_SOCKET_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ipv6.h>
#include <net/inet_sock.h>
#include <net/sock.h>
#include <linux/quic.h>

struct quic_udp_sock;

union quic_addr {
	struct sockaddr		sa;
	struct sockaddr_in	v4;
	struct sockaddr_in6	v6;
};

struct quic_sock {
	struct inet_sock	inet;	/* must be first: this is an inet socket */

	/* All fields below are protected by the socket lock. */
	union quic_addr		local;	/* valid once bound */
	struct quic_udp_sock	*udp;	/* the UDP tunnel socket we are bound to */
};

/* IPv6 sockets carry struct ipv6_pinfo after the QUIC state. */
struct quic6_sock {
	struct quic_sock	quic;
	struct ipv6_pinfo	inet6;
};

static inline struct quic_sock *quic_sk(const struct sock *sk)
{
	return (struct quic_sock *)sk;
}

static inline bool quic_is_bound(const struct sock *sk)
{
	return !!quic_sk(sk)->udp;
}

int quic_sock_init(struct sock *sk);
void quic_sock_destroy(struct sock *sk);
void quic_sock_close(struct sock *sk, long timeout);
int quic_sock_bind(struct sock *sk, struct sockaddr *addr, int addr_len);
int quic_sock_hash(struct sock *sk);
void quic_sock_unhash(struct sock *sk);
int quic_sock_sendmsg(struct sock *sk, struct msghdr *msg, size_t len);
int quic_sock_recvmsg(struct sock *sk, struct msghdr *msg, size_t len,
		      int flags, int *addr_len);

int quic_inet_bind(struct socket *sock, struct sockaddr *addr, int addr_len);
int quic_inet_connect(struct socket *sock, struct sockaddr *addr,
		      int addr_len, int flags);
int quic_inet_listen(struct socket *sock, int backlog);
int quic_inet_accept(struct socket *sock, struct socket *newsock,
		     struct proto_accept_arg *arg);
int quic_inet_getname(struct socket *sock, struct sockaddr *addr, int peer);
__poll_t quic_inet_poll(struct file *file, struct socket *sock,
			struct poll_table_struct *wait);
int quic_inet_shutdown(struct socket *sock, int how);

/* sockopt.c */
int quic_sock_setsockopt(struct sock *sk, int level, int optname,
			 sockptr_t optval, unsigned int optlen);
int quic_sock_getsockopt(struct sock *sk, int level, int optname,
			 char __user *optval, int __user *optlen);

#endif /* _NET_QUIC_SOCKET_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC socket core: socket life cycle, bind and address reporting.
 *
 * Connections, streams and the handshake arrive in later components; until
 * then the calls that need them fail with a proper errno instead of
 * pretending to work.
 */

#include <linux/capability.h>
#include <linux/poll.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "socket.h"
#include "udp.h"

int quic_sock_init(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	memset(&qs->local, 0, sizeof(qs->local));
	qs->udp = NULL;
	return 0;
}

void quic_sock_destroy(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	if (qs->udp) {
		quic_udp_sock_put(qs->udp);
		qs->udp = NULL;
	}
}

void quic_sock_close(struct sock *sk, long timeout)
{
	lock_sock(sk);
	sk->sk_shutdown = SHUTDOWN_MASK;
	inet_sk_set_state(sk, TCP_CLOSE);
	release_sock(sk);

	/* Calls ->destroy(), ->unhash() and drops the last reference. */
	sk_common_release(sk);
}

/* QUIC sockets are found by connection ID, not by the inet hash tables. */
int quic_sock_hash(struct sock *sk)
{
	return 0;
}

void quic_sock_unhash(struct sock *sk)
{
}

/*
 * Validate a user address for this socket's family and copy it into @out.
 * The rules follow inet_bind() and inet6_bind(): short lengths are -EINVAL,
 * a foreign family is -EAFNOSUPPORT.
 */
static int quic_addr_from_user(struct sock *sk, const struct sockaddr *addr,
			       int addr_len, union quic_addr *out)
{
	memset(out, 0, sizeof(*out));

	if (addr_len < (int)sizeof(addr->sa_family))
		return -EINVAL;

	if (sk->sk_family == AF_INET) {
		if (addr_len < (int)sizeof(struct sockaddr_in))
			return -EINVAL;
		if (addr->sa_family != AF_INET)
			return -EAFNOSUPPORT;
		memcpy(&out->v4, addr, sizeof(out->v4));
		memset(out->v4.sin_zero, 0, sizeof(out->v4.sin_zero));
		return 0;
	}

	if (addr_len < SIN6_LEN_RFC2133)
		return -EINVAL;
	if (addr->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	memcpy(&out->v6, addr, SIN6_LEN_RFC2133);
	if (ipv6_addr_v4mapped(&out->v6.sin6_addr) && ipv6_only_sock(sk))
		return -EINVAL;
	return 0;
}

static __be16 quic_addr_port(const union quic_addr *addr)
{
	return addr->sa.sa_family == AF_INET ? addr->v4.sin_port :
					       addr->v6.sin6_port;
}

static int __quic_sock_bind(struct sock *sk, union quic_addr *addr)
{
	struct quic_sock *qs = quic_sk(sk);
	struct net *net = sock_net(sk);
	struct quic_udp_sock *us;
	unsigned short port;

	sock_owned_by_me(sk);

	if (quic_is_bound(sk))
		return -EINVAL;

	/* The UDP socket is a kernel socket, so it skips this check for us. */
	port = ntohs(quic_addr_port(addr));
	if (port && inet_port_requires_bind_service(net, port) &&
	    !ns_capable(net->user_ns, CAP_NET_BIND_SERVICE))
		return -EACCES;

	us = quic_udp_sock_create(net, addr, ipv6_only_sock(sk));
	if (IS_ERR(us))
		return PTR_ERR(us);

	qs->udp = us;
	qs->local = us->addr;
	inet_sk(sk)->inet_sport = quic_addr_port(&us->addr);
	inet_sk(sk)->inet_num = ntohs(inet_sk(sk)->inet_sport);
	return 0;
}

int quic_sock_bind(struct sock *sk, struct sockaddr *addr, int addr_len)
{
	union quic_addr a;
	int err;

	err = quic_addr_from_user(sk, addr, addr_len, &a);
	if (err)
		return err;

	lock_sock(sk);
	err = __quic_sock_bind(sk, &a);
	release_sock(sk);
	return err;
}

int quic_sock_sendmsg(struct sock *sk, struct msghdr *msg, size_t len)
{
	return -ENOTCONN;
}

int quic_sock_recvmsg(struct sock *sk, struct msghdr *msg, size_t len,
		      int flags, int *addr_len)
{
	return -ENOTCONN;
}

int quic_inet_bind(struct socket *sock, struct sockaddr *addr, int addr_len)
{
	return quic_sock_bind(sock->sk, addr, addr_len);
}

/* Connections are not built yet. */
int quic_inet_connect(struct socket *sock, struct sockaddr *addr,
		      int addr_len, int flags)
{
	return -EOPNOTSUPP;
}

int quic_inet_listen(struct socket *sock, int backlog)
{
	return -EOPNOTSUPP;
}

/* As for TCP, accept() on a socket that is not listening is -EINVAL. */
int quic_inet_accept(struct socket *sock, struct socket *newsock,
		     struct proto_accept_arg *arg)
{
	return -EINVAL;
}

int quic_inet_getname(struct socket *sock, struct sockaddr *addr, int peer)
{
	struct sock *sk = sock->sk;
	int len;

	if (peer)
		return -ENOTCONN;

	lock_sock(sk);
	if (sk->sk_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)addr;

		len = sizeof(*sin);
		memset(sin, 0, len);
		sin->sin_family = AF_INET;
		if (quic_is_bound(sk)) {
			sin->sin_addr = quic_sk(sk)->local.v4.sin_addr;
			sin->sin_port = quic_sk(sk)->local.v4.sin_port;
		}
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)addr;

		len = sizeof(*sin6);
		memset(sin6, 0, len);
		sin6->sin6_family = AF_INET6;
		if (quic_is_bound(sk)) {
			sin6->sin6_addr = quic_sk(sk)->local.v6.sin6_addr;
			sin6->sin6_port = quic_sk(sk)->local.v6.sin6_port;
			sin6->sin6_scope_id = quic_sk(sk)->local.v6.sin6_scope_id;
		}
	}
	release_sock(sk);
	return len;
}

/* Without a connection a socket is closed: like TCP, report hang-up. */
__poll_t quic_inet_poll(struct file *file, struct socket *sock,
			struct poll_table_struct *wait)
{
	struct sock *sk = sock->sk;
	__poll_t mask = 0;

	sock_poll_wait(file, sock, wait);

	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (inet_sk_state_load(sk) == TCP_CLOSE)
		mask |= EPOLLHUP;
	return mask;
}

int quic_inet_shutdown(struct socket *sock, int how)
{
	return -ENOTCONN;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC socket options (SOL_QUIC) and the IP-level options we pass through.
 *
 * An option the module does not implement yet fails with -ENOPROTOOPT:
 * reporting success for something we did not do would let programs believe
 * a setting is in force.
 */

#include <net/ip.h>
#include <net/ipv6.h>

#include "socket.h"

static int quic_setsockopt_quic(struct sock *sk, int optname,
				sockptr_t optval, unsigned int optlen)
{
	switch (optname) {
	/* QUIC_SOCKOPT_CRYPTO_SECRET: installed by the crypto component. */
	default:
		return -ENOPROTOOPT;
	}
}

static int quic_getsockopt_quic(struct sock *sk, int optname,
				char __user *optval, int __user *optlen)
{
	int len;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;

	switch (optname) {
	default:
		return -ENOPROTOOPT;
	}
}

int quic_sock_setsockopt(struct sock *sk, int level, int optname,
			 sockptr_t optval, unsigned int optlen)
{
	if (level == SOL_QUIC)
		return quic_setsockopt_quic(sk, optname, optval, optlen);
	/* IP options (TOS, TTL, IPV6_V6ONLY, ...) apply to the UDP path. */
	if (level == SOL_IP && sk->sk_family == AF_INET)
		return ip_setsockopt(sk, level, optname, optval, optlen);
	if (level == SOL_IPV6 && sk->sk_family == AF_INET6)
		return ipv6_setsockopt(sk, level, optname, optval, optlen);
	return -ENOPROTOOPT;
}

int quic_sock_getsockopt(struct sock *sk, int level, int optname,
			 char __user *optval, int __user *optlen)
{
	if (level == SOL_QUIC)
		return quic_getsockopt_quic(sk, optname, optval, optlen);
	if (level == SOL_IP && sk->sk_family == AF_INET)
		return ip_getsockopt(sk, level, optname, optval, optlen);
	if (level == SOL_IPV6 && sk->sk_family == AF_INET6)
		return ipv6_getsockopt(sk, level, optname, optval, optlen);
	return -ENOPROTOOPT;
}

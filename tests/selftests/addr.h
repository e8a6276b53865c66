/* SPDX-License-Identifier: GPL-2.0 */
/* Socket addresses for the selftests: one helper for every program. */
#ifndef QUIC_SELFTEST_ADDR_H
#define QUIC_SELFTEST_ADDR_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

/* @ip:@port of @family in @ss; returns the address length. */
static inline socklen_t make_addr(int family, const char *ip,
				  unsigned short port,
				  struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		inet_pton(AF_INET, ip, &sin->sin_addr);
		return sizeof(*sin);
	}
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	inet_pton(AF_INET6, ip, &sin6->sin6_addr);
	return sizeof(*sin6);
}

/* The loopback address of @family with @port. */
static inline socklen_t loopback_addr(int family, unsigned short port,
				      struct sockaddr_storage *ss)
{
	return make_addr(family, family == AF_INET ? "127.0.0.1" : "::1",
			 port, ss);
}

#endif

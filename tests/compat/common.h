/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/compat: small programs written the way users of the draft API
 * ("Sockets API Extensions for In-kernel QUIC Implementations") write
 * them.  They use only the draft's header, its library calls and the
 * socket behaviours programs rely on (../shared/API.md), nothing of our
 * own, so that they prove a program written for the draft builds with
 * -lquic against ours and runs on our module.  Errors follow the draft's
 * library: -1 with errno set.
 */
#ifndef COMPAT_COMMON_H
#define COMPAT_COMMON_H

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/quic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static inline __attribute__((noreturn, format(printf, 1, 2)))
void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s[%d]: ", program_invocation_short_name, getpid());
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/*
 * "host:port" or "[v6]:port" into @ss; returns its length.  Programs of
 * the draft open an AF_INET6 socket for either family: an IPv4 address is
 * passed to an AF_INET6 socket as a plain sockaddr_in (the socket maps it).
 */
static inline socklen_t parse_addr(const char *s, struct sockaddr_storage *ss)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(s, ':');
	size_t n;

	if (!colon)
		die("bad address %s", s);
	n = colon - s;
	if (n >= sizeof(host))
		die("bad address %s", s);
	memcpy(host, s, n);
	host[n] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (host[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		host[n - 1] = '\0';
		a->sin6_family = AF_INET6;
		a->sin6_port = htons(atoi(colon + 1));
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
			die("bad address %s", s);
		return sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(atoi(colon + 1));
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			die("bad address %s", s);
		return sizeof(*a);
	}
}

/* A QUIC socket connect()ed to "host:port" (the handshake still to run). */
static inline int connect_to(const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t len = parse_addr(addr, &ss);
	int fd = socket(AF_INET6, SOCK_STREAM, IPPROTO_QUIC);

	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&ss, len) < 0)
		die("connect: %s", strerror(errno));
	return fd;
}

/* Read a whole stream (until FIN) into @buf; returns its length or -1. */
static inline ssize_t read_stream(int fd, char *buf, size_t size, int64_t *sid)
{
	size_t got = 0;

	for (;;) {
		uint32_t flags = 0;
		ssize_t n;

		n = quic_recvmsg(fd, buf + got, size - got, sid, &flags);
		if (n < 0)
			return -1;
		if (flags & MSG_QUIC_NOTIFICATION)
			continue;	/* an event the caller did not ask for */
		got += n;
		if (flags & MSG_QUIC_STREAM_FIN)
			return got;
		if (n == 0 || got == size) {
			errno = n == 0 ? ECONNRESET : EMSGSIZE;
			return -1;
		}
	}
}

#endif

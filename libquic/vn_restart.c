// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Version Negotiation, client side (RFC 9000 §6.2, RFC 9368 §4): the new
 * connection attempt that quic_client_handshake() makes by itself.
 *
 * The kernel ends a connection attempt that gets a Version Negotiation
 * packet with EPROTONOSUPPORT and, when the server listed a version it
 * speaks, has QUIC_SOCKOPT_CONFIG's version read that version.  The
 * attempt cannot go on in the same socket: its ClientHello (whose
 * version_information names the version it was sent in) is in the TLS
 * transcript, and the kernel does not connect() a socket twice.  So
 * libquic makes a new socket in its place, under the same descriptor
 * (dup2(), which keeps the descriptor's number; its close-on-exec and
 * non-blocking flags are set again), with what the application set on the
 * old one that applies to a new attempt:
 *   - QUIC_SOCKOPT_CONFIG (with the new version), QUIC_SOCKOPT_ALPN, the
 *     local QUIC_SOCKOPT_TRANSPORT_PARAM and the QUIC_SOCKOPT_EVENT ones
 *     that are on;
 *   - SO_RCVTIMEO, SO_SNDTIMEO, SO_SNDBUF, SO_RCVBUF, SO_MARK and
 *     SO_BINDTODEVICE, and the local address (its port too when it can be
 *     had again, else any port);
 * and not the session ticket, the token or the server's remembered
 * transport parameters: those are of the version the server refused
 * (RFC 9369 §5: never used across versions), so the new attempt makes a
 * full handshake without 0-RTT.  Other socket options of the application
 * are not carried.  One restart only: a second Version Negotiation fails
 * with EPROTONOSUPPORT, as does one that lists no version the kernel
 * speaks.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "internal.h"

/* An option of @level/@name copied from @from to @to, if @from has one. */
static void copy_opt(int from, int to, int level, int name)
{
	unsigned char buf[256];
	socklen_t len = sizeof(buf);

	if (getsockopt(from, level, name, buf, &len) || !len)
		return;
	if (setsockopt(to, level, name, buf, len))
		quic_log(QUIC_LOG_INFO, "client: option %d/%d not carried to the new attempt: %s",
			 level, name, strerror(errno));
}

static int copy_quic_opts(int from, int to, const struct quic_config *cfg)
{
	struct quic_transport_param tp;
	struct quic_event_option ev;
	char alpn[256];
	socklen_t len;
	uint8_t type;

	if (setsockopt(to, SOL_QUIC, QUIC_SOCKOPT_CONFIG, cfg, sizeof(*cfg)))
		return -errno;
	memset(&tp, 0, sizeof(tp));
	len = sizeof(tp);
	if (!getsockopt(from, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &tp, &len) &&
	    setsockopt(to, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &tp, sizeof(tp)))
		return -errno;
	memset(alpn, 0, sizeof(alpn));
	len = sizeof(alpn) - 1;
	if (!getsockopt(from, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn, &len) &&
	    alpn[0] && setsockopt(to, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn,
				  strlen(alpn)))
		return -errno;
	for (type = QUIC_EVENT_NONE + 1; type < QUIC_EVENT_MAX; type++) {
		memset(&ev, 0, sizeof(ev));
		ev.type = type;
		len = sizeof(ev);
		if (getsockopt(from, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, &len) ||
		    !ev.on)
			continue;
		if (setsockopt(to, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, sizeof(ev)))
			return -errno;
	}
	return 0;
}

static void copy_sock_opts(int from, int to)
{
	static const int names[] = { SO_RCVTIMEO, SO_SNDTIMEO, SO_SNDBUF,
				     SO_RCVBUF, SO_MARK, SO_BINDTODEVICE };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		copy_opt(from, to, SOL_SOCKET, names[i]);
}

/* The old socket's local address @ss on @fd: its port if free, else any. */
static void bind_again(int fd, struct sockaddr_storage *ss, socklen_t len)
{
	if (!bind(fd, (struct sockaddr *)ss, len))
		return;
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = 0;
	else
		((struct sockaddr_in6 *)ss)->sin6_port = 0;
	if (bind(fd, (struct sockaddr *)ss, len))
		quic_log(QUIC_LOG_INFO, "client: the new attempt binds any address: %s",
			 strerror(errno));
}

/**
 * quic_vn_restart - connect again after Version Negotiation
 * @fd: the client socket whose attempt ended with EPROTONOSUPPORT
 * @tried: the version that attempt used
 * @peer: the address it was connected to
 * @peer_len: its length
 *
 * Return: 0 when @fd is a new socket, connecting to @peer in the version
 * the server listed; -EPROTONOSUPPORT when there is none (@fd is left as
 * it was), or another negative errno.
 */
int quic_vn_restart(int fd, uint32_t tried, const struct sockaddr *peer,
		    socklen_t peer_len)
{
	struct sockaddr_storage local;
	socklen_t llen = sizeof(local);
	struct quic_config cfg;
	int nfd, fdflags, flflags, err;

	memset(&cfg, 0, sizeof(cfg));
	quic_sock_config(fd, &cfg);
	if (!cfg.version || cfg.version == tried)
		return -EPROTONOSUPPORT;	/* no version in common */
	fdflags = fcntl(fd, F_GETFD);
	flflags = fcntl(fd, F_GETFL);
	if (fdflags < 0 || flflags < 0 ||
	    getsockname(fd, (struct sockaddr *)&local, &llen))
		return -errno;
	/* The family of the old socket (AF_INET6 may reach v4-mapped peers). */
	nfd = socket(local.ss_family, SOCK_DGRAM, IPPROTO_QUIC);
	if (nfd < 0)
		return -errno;
	err = copy_quic_opts(fd, nfd, &cfg);
	if (err) {
		close(nfd);
		return err;
	}
	copy_sock_opts(fd, nfd);
	quic_log(QUIC_LOG_INFO, "client: Version Negotiation: connecting again in version 0x%x",
		 cfg.version);
	/* The old socket goes; its local port is free for the new one. */
	if (dup2(nfd, fd) < 0) {
		err = -errno;
		close(nfd);
		return err;
	}
	close(nfd);
	bind_again(fd, &local, llen);
	if (fcntl(fd, F_SETFD, fdflags) < 0 || fcntl(fd, F_SETFL, flflags) < 0)
		return -errno;
	if (connect(fd, peer, peer_len) < 0 && errno != EINPROGRESS)
		return -errno;
	return 0;
}

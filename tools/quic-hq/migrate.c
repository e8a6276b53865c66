// SPDX-License-Identifier: GPL-2.0-or-later
/* quic-hq client --migrate BYTES: once BYTES of stream data have arrived,
 * move the connection to a new local port on the address the route to the
 * server uses (QUIC_SOCKOPT_CONNECTION_MIGRATION, RFC 9000 9.2).  The
 * kernel validates the new path and switches to a new connection ID of
 * the server's; EAGAIN (handshake not confirmed) or EBUSY (a validation
 * running) leave it due for the next chunk, any other error ends the
 * asking and fails the run.
 */

#include <netinet/in.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netinet/quic.h>

#include "proto.h"

/* The address the route to @fd's peer leaves from, port 0. */
static int route_source(int fd, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	int u, ret = -1;

	if (getpeername(fd, (struct sockaddr *)&peer, &plen))
		return -1;
	u = socket(peer.ss_family, SOCK_DGRAM, 0);
	if (u < 0)
		return -1;
	*len = sizeof(*ss);
	if (!connect(u, (struct sockaddr *)&peer, plen) &&
	    !getsockname(u, (struct sockaddr *)ss, len))
		ret = 0;
	close(u);
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = 0;
	else
		((struct sockaddr_in6 *)ss)->sin6_port = 0;
	return ret;
}

void hq_migrate(int fd, struct hq_mig *m, uint64_t total)
{
	char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";
	struct sockaddr_storage ss;
	socklen_t len;

	if (!m->at || m->done || m->err || total < m->at)
		return;
	if (route_source(fd, &ss, &len) ||
	    setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_MIGRATION, &ss,
		       len)) {
		if (errno == EAGAIN || errno == EBUSY)
			return;
		m->err = errno;
		fprintf(stderr, "quic-hq: migration after %llu bytes "
			"(QUIC_SOCKOPT_CONNECTION_MIGRATION) failed: %s\n",
			(unsigned long long)total, strerror(errno));
		return;
	}
	m->done = 1;
	len = sizeof(ss);
	if (!getsockname(fd, (struct sockaddr *)&ss, &len))
		getnameinfo((struct sockaddr *)&ss, len, host, sizeof(host),
			    port, sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV);
	fprintf(stderr, "quic-hq: migrated to %s port %s after %llu bytes\n",
		host, port, (unsigned long long)total);
}

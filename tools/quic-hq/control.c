// SPDX-License-Identifier: GPL-2.0-or-later
/* quic-hq: socket work shared by client and server: opening our HTTP/3
 * control stream, the close code, key update events and requests.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/quic.h>

#include "proto.h"

/* Opens a unidirectional stream and sends the protocol's preface on it
 * (h3: stream type 0x00 and SETTINGS).  The stream stays open for the
 * life of the connection: closing it is an error (RFC 9114 6.2.1).  The
 * peer must allow us three unidirectional streams (6.2), so there is
 * credit for this one right after the handshake: no waiting.
 */
int hq_open_control(int fd, const struct hq_proto *p, const char *who)
{
	struct quic_stream_info si = { .stream_id = -1,
		.stream_flags = MSG_QUIC_STREAM_UNI | MSG_QUIC_STREAM_DONTWAIT };
	socklen_t len = sizeof(si);
	uint8_t buf[64];
	int n = p->preface(buf, sizeof(buf));
	ssize_t ret;

	if (n <= 0)
		return n;	/* hq-interop: nothing to open */
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_OPEN, &si, &len) < 0) {
		fprintf(stderr, "quic-hq: %s: opening the control stream: %s\n",
			who, strerror(errno));
		return -1;
	}
	ret = quic_sendmsg(fd, buf, (size_t)n, si.stream_id, 0);
	if (ret != n) {
		fprintf(stderr, "quic-hq: %s: sending SETTINGS: %s\n", who,
			ret < 0 ? strerror(errno) : "short write");
		return -1;
	}
	return 0;
}

/* Before close(2) of a connection that got going: h3 closes with
 * H3_NO_ERROR (an application close carries an HTTP/3 code, RFC 9114
 * 5.2, 8.1); hq-interop leaves the kernel's default.
 */
void hq_close_code(int fd, const struct hq_proto *p)
{
	struct quic_connection_close cc = { .errcode = H3_NO_ERROR };

	if (p->h3)
		setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE, &cc,
			   sizeof(cc));
}

int hq_key_update_events(int fd, const char *who)
{
	struct quic_event_option ev = { QUIC_EVENT_KEY_UPDATE, 1 };

	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, sizeof(ev))) {
		fprintf(stderr, "quic-hq: %s: cannot count key updates "
			"(QUIC_EVENT_KEY_UPDATE): %s\n", who, strerror(errno));
		return -1;
	}
	return 0;
}

void hq_key_update(int fd, struct hq_ku *k, uint64_t total, const char *who)
{
	int err = 0;

	if (!hq_ku_due(k, total))
		return;
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_KEY_UPDATE, NULL, 0))
		err = -errno;
	hq_ku_result(k, total, err);
	if (err && err != -EAGAIN)
		fprintf(stderr, "quic-hq: %s: key update after %llu bytes "
			"(QUIC_SOCKOPT_KEY_UPDATE) failed: %s; no more requested\n",
			who, (unsigned long long)total, strerror(-err));
}

/* The connection's QUIC version (QUIC_SOCKOPT_CONFIG), 0 if unknown. */
uint32_t hq_sock_version(int fd)
{
	struct quic_config c;
	socklen_t len = sizeof(c);

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &c, &len))
		return 0;
	return c.version;
}

/* --idle-timeout: our max_idle_timeout transport parameter, before the
 * handshake (a listener's passes to the connections it accepts).  The
 * fields left zero keep their values (QUIC_SOCKOPT_TRANSPORT_PARAM).
 */
int hq_set_idle_timeout(int fd, unsigned int secs)
{
	struct quic_transport_param p = { 0 };

	if (!secs)
		return 0;
	p.max_idle_timeout = secs * 1000000u;
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
		       sizeof(p))) {
		fprintf(stderr, "quic-hq: --idle-timeout %u: %s\n", secs,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* The handshake gives up after SO_RCVTIMEO, 30 s when it is not set
 * (libquic): with --idle-timeout it gets that long, and 0 afterwards puts
 * the socket back as it was.
 */
int hq_handshake_time_limit(int fd, unsigned int secs)
{
	struct timeval tv = { .tv_sec = secs };

	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

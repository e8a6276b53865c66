// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quic-perf server: accept connections one at a time, run the handshake,
 * then read the client's first control line ("QPERF1 mode=... ...") and
 * serve that test.  A connection that closes without one was a handshake
 * of --handshakes.  "mode=idle" connections are kept open (--idle), on an
 * epoll set, until their client closes them.  At the end of each test the
 * client asks "stats" and the server answers with its own view: bytes,
 * seconds and the CPU time (user, system) it used since the test began.
 */

#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <netinet/quic.h>

#include "perf.h"
#include "bulk.h"

/* CPU mark of the last "QPERF1" line, and handshakes since it */
static struct perf_cpu mark;
static unsigned long handshakes, hs_failed;

static int reply(int fd, uint64_t bytes, uint64_t count)
{
	struct perf_cpu now, d;

	perf_cpu_get(&now);
	perf_cpu_sub(&d, &now, &mark);
	return perf_ctl_printf(fd, "result bytes=%llu count=%llu secs=%.6f "
			       "user=%.6f sys=%.6f handshakes=%lu hs_failed=%lu\n",
			       (unsigned long long)bytes,
			       (unsigned long long)count, d.wall, d.user, d.sys,
			       handshakes, hs_failed);
}

/* RR: echo a message of len bytes for each len bytes received on a stream. */
static int serve_rr(int fd, size_t len, struct perf_ctl *ctl)
{
	uint8_t *buf = malloc(len > 65536 ? len : 65536), *out = malloc(len);
	char line[PERF_LINE_MAX];
	uint64_t acc = 0, count = 0;
	int ret = -1;

	if (!buf || !out || perf_recv_timeout(fd, 30000))
		goto out;
	perf_fill(out, len);
	for (;;) {
		uint32_t flags = 0;
		int64_t sid = 0;
		ssize_t n;

		n = quic_recvmsg(fd, buf, len > 65536 ? len : 65536, &sid, &flags);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 && !(flags & MSG_QUIC_STREAM_FIN))
			goto out;
		if (sid == PERF_CTL_SID) {
			if (perf_ctl_add(ctl, buf, (size_t)n))
				goto out;
			if (perf_ctl_line(ctl, line, sizeof(line)))
				break;	/* "stats" */
			continue;
		}
		for (acc += (uint64_t)n; acc >= len; acc -= len, count++)
			if (perf_send(fd, out, len, sid, 0))
				goto out;
	}
	ret = perf_recv_timeout(fd, 0) ? -1 : reply(fd, count * len, count);
out:
	free(buf);
	free(out);
	return ret;
}

static int serve_test(int fd, const struct perf_opts *so, const char *first,
		      struct perf_ctl *ctl)
{
	struct perf_opts o = *so;
	char mode[16], line[PERF_LINE_MAX];
	uint64_t bytes = 0;
	double t;

	if (perf_kv(first, "mode", mode, sizeof(mode)))
		return -1;
	if (!strcmp(mode, "hs")) {	/* --handshakes begins */
		perf_cpu_get(&mark);
		handshakes = 0;
		hs_failed = 0;
		return perf_ctl_printf(fd, "ok\n") ? -1 : 1;
	}
	if (!strcmp(mode, "hsstats"))
		return reply(fd, 0, handshakes);
	perf_cpu_get(&mark);
	o.len = perf_kv_u64(first, "len", 65536);
	if (!o.len || o.len > (64u << 20))
		return -1;
	if (!strcmp(mode, "rr")) {	/* answers leave at once */
		o.nodelay = 1;
		if (perf_set_config(fd, &o))
			fprintf(stderr, "quic-perf: stream_data_nodelay: %s\n",
				strerror(errno));
		return serve_rr(fd, o.len, ctl);
	}
	if (strcmp(mode, "bulk"))
		return -1;
	if (perf_kv_u64(first, "reverse", 0)) {
		o.streams = (int)perf_kv_u64(first, "streams", 1);
		o.time = perf_kv_double(first, "time", 0);
		o.bytes = perf_kv_u64(first, "bytes", 0);
		o.stream_size = perf_kv_u64(first, "stream_size", 0);
		if (o.streams < 1 || o.streams > 1024 || o.time > 86400 ||
		    perf_bulk_send(fd, &o, NULL, &bytes))
			return -1;
	} else if (perf_bulk_recv(fd, ctl, NULL, &bytes, &t)) {
		return -1;
	}
	if (perf_ctl_read(fd, ctl, line, sizeof(line), 60000))	/* "stats" */
		return -1;
	return reply(fd, bytes, 0);
}

/*
 * Wait for the client's first line and serve its test: 2 if one ran, 1 if
 * this is an idle connection to keep, 0 otherwise.
 */
static int serve_conn(int fd, const struct perf_opts *o)
{
	struct perf_ctl ctl = { .len = 0 };
	char line[PERF_LINE_MAX];
	int err;

	if (perf_tls_server(fd, o)) {
		hs_failed++;
		return 0;
	}
	handshakes++;
	if (perf_ctl_read(fd, &ctl, line, sizeof(line), 10000))
		return 0;	/* a handshake of --handshakes, closed */
	if (!strncmp(line, "QPERF1 ", 7) && strstr(line, "mode=idle"))
		return 1;
	err = strncmp(line, "QPERF1 ", 7) ? -1 : serve_test(fd, o, line, &ctl);
	if (err < 0) {
		fprintf(stderr, "quic-perf: test failed: %s\n", line);
		return 0;
	}
	/* the client closes first: its CONNECTION_CLOSE, or 5 s */
	perf_wait_readable(fd, 5000);
	return err == 1 ? 0 : 2;
}

/* Listener: idle timeout of 600 s, for the connections of --idle. */
static int listen_on(const struct perf_opts *o)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM,
				  .ai_flags = AI_PASSIVE }, *res;
	struct quic_transport_param tp = { 0 };
	socklen_t len = sizeof(tp);
	int fd, ret;

	ret = getaddrinfo(o->bind, o->port, &hints, &res);
	if (ret) {
		fprintf(stderr, "quic-perf: %s: %s\n", o->bind ? o->bind : "*",
			gai_strerror(ret));
		return -1;
	}
	fd = socket(res->ai_family, SOCK_DGRAM, IPPROTO_QUIC);
	if (fd < 0 ||
	    getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &tp, &len))
		goto err;
	tp.max_idle_timeout = 600000000u;
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &tp, sizeof(tp)) ||
	    perf_set_config(fd, o) ||
	    setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, PERF_ALPN, strlen(PERF_ALPN)) ||
	    bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 4096))
		goto err;
	freeaddrinfo(res);
	return fd;
err:
	fprintf(stderr, "quic-perf: listening on port %s: %s\n", o->port,
		strerror(errno));
	freeaddrinfo(res);
	if (fd >= 0)
		close(fd);
	return -1;
}

int perf_server(const struct perf_opts *o)
{
	struct perf_opts so = *o;
	struct epoll_event ev = { .events = EPOLLIN };
	struct rlimit rl;
	int lfd, ep;

	signal(SIGPIPE, SIG_IGN);
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (perf_tls_server_init(o))
		return 1;
	lfd = listen_on(&so);
	ep = epoll_create1(0);
	if (lfd < 0 || ep < 0)
		return 1;
	ev.data.fd = lfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	printf("quic-perf server: listening on port %s\n", o->port);
	fflush(stdout);
	for (;;) {
		struct epoll_event evs[64];
		int i, n, fd;

		n = epoll_wait(ep, evs, 64, -1);
		if (n < 0 && errno != EINTR)
			return 1;
		for (i = 0; i < n; i++) {
			int r;

			if (evs[i].data.fd != lfd) {	/* an idle one closed */
				epoll_ctl(ep, EPOLL_CTL_DEL, evs[i].data.fd, NULL);
				close(evs[i].data.fd);
				continue;
			}
			fd = accept(lfd, NULL, NULL);
			if (fd < 0)
				continue;
			r = serve_conn(fd, &so);
			if (r == 1) {
				ev.data.fd = fd;
				if (!epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
					continue;
			}
			close(fd);
			if (r == 2 && o->one_off)
				return 0;
		}
	}
}

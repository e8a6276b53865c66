// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quic-perf client: one connection per test (bulk, RR), one per handshake
 * (--handshakes) or --idle N of them held open.  It sends the test's
 * parameters on its first bidirectional stream (the control stream, id
 * 0), runs the test, asks the server for its figures ("stats") and prints
 * the result: a summary, or with --json one JSON object on stdout.
 */

#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <netinet/quic.h>

#include "perf.h"
#include "bulk.h"

struct result {
	uint64_t bytes, count, failed;
	double secs;
	struct perf_cpu local, remote;
	int have_remote;
};

static int connect_to(const struct perf_opts *o, int quiet)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res, *ai;
	struct quic_transport_param tp = { 0 };
	socklen_t len = sizeof(tp);
	int fd = -1, ret;

	ret = getaddrinfo(o->host, o->port, &hints, &res);
	if (ret) {
		fprintf(stderr, "quic-perf: %s: %s\n", o->host, gai_strerror(ret));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, SOCK_DGRAM, IPPROTO_QUIC);
		if (fd < 0)
			continue;
		if (o->mode == MODE_IDLE &&
		    !getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &tp, &len)) {
			tp.max_idle_timeout = 600000000u;	/* us */
			setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM,
				   &tp, sizeof(tp));
		}
		if (!perf_set_config(fd, o) &&
		    !connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		fprintf(stderr, "quic-perf: cannot connect to %s port %s: %s\n",
			o->host, o->port, strerror(errno));
		return -1;
	}
	ret = perf_tls_client(fd, o);
	if (ret) {
		if (!quiet)
			fprintf(stderr, "quic-perf: handshake failed: %s\n",
				strerror(-ret));
		close(fd);
		return -1;
	}
	return fd;
}

/* Open the control stream (id 0) with the test's line. */
static int hello(int fd, const struct perf_opts *o, const char *mode)
{
	struct quic_stream_info si = { .stream_id = -1 };
	socklen_t len = sizeof(si);

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_OPEN, &si, &len) < 0 ||
	    si.stream_id != PERF_CTL_SID)
		return -1;
	return perf_ctl_printf(fd, "QPERF1 mode=%s reverse=%d len=%zu "
			       "streams=%d time=%.3f bytes=%llu stream_size=%llu\n",
			       mode, o->reverse, o->len, o->streams, o->time,
			       (unsigned long long)o->bytes,
			       (unsigned long long)o->stream_size);
}

/* Ask for the server's figures. */
static int stats(int fd, struct perf_ctl *ctl, struct result *r)
{
	char line[PERF_LINE_MAX];

	if (perf_ctl_printf(fd, "stats\n") ||
	    perf_ctl_read(fd, ctl, line, sizeof(line), 60000) ||
	    strncmp(line, "result ", 7)) {
		fprintf(stderr, "quic-perf: no result from the server\n");
		return -1;
	}
	r->remote.user = perf_kv_double(line, "user", 0);
	r->remote.sys = perf_kv_double(line, "sys", 0);
	r->remote.wall = perf_kv_double(line, "secs", 0);
	r->have_remote = 1;
	if (!r->bytes)
		r->bytes = perf_kv_u64(line, "bytes", 0);
	if (!r->count)
		r->count = perf_kv_u64(line, "count", 0);
	return 0;
}

static int run_bulk(int fd, const struct perf_opts *o, struct result *r)
{
	struct perf_ctl ctl = { .len = 0 };
	struct perf_progress pg;
	uint64_t n = 0;
	double t0, t1;

	if (hello(fd, o, "bulk"))
		return -1;
	perf_progress_init(&pg, o);
	t0 = pg.t0;
	if (o->reverse) {
		if (perf_bulk_recv(fd, &ctl, &pg, &n, &t1))
			return -1;
		r->bytes = n;
	} else if (perf_bulk_send(fd, o, &pg, &n)) {
		return -1;
	}
	if (stats(fd, &ctl, r))
		return -1;
	if (!o->reverse)
		t1 = perf_now();	/* the server has counted it all */
	r->secs = t1 - t0;
	return 0;
}

static int run_rr(int fd, const struct perf_opts *o, struct result *r)
{
	struct quic_stream_info si = { .stream_id = -1 };
	struct perf_ctl ctl = { .len = 0 };
	socklen_t sl = sizeof(si);
	size_t bsz = o->len > 65536 ? o->len : 65536;
	uint8_t *buf = malloc(bsz), *msg = malloc(o->len);
	double end, t0;
	struct perf_progress pg;
	uint64_t count = 0;
	int ret = -1;

	if (!buf || !msg || hello(fd, o, "rr") ||
	    getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_OPEN, &si, &sl) < 0 ||
	    perf_recv_timeout(fd, 30000))
		goto out;
	perf_fill(msg, o->len);
	perf_progress_init(&pg, o);
	t0 = pg.t0;
	end = t0 + o->time;
	while (o->time ? perf_now() < end : count * o->len < o->bytes) {
		size_t got = 0;

		if (perf_send(fd, msg, o->len, si.stream_id, 0))
			goto err;
		while (got < o->len) {
			uint32_t flags = 0;
			int64_t sid = 0;
			ssize_t n;

			n = quic_recvmsg(fd, buf, bsz, &sid, &flags);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				errno = ETIMEDOUT;
			if (n <= 0)
				goto err;
			if (sid == si.stream_id)
				got += (size_t)n;
		}
		count++;
		perf_progress(&pg, count, "transactions/s", 1);
	}
	r->secs = perf_now() - t0;
	r->count = count;
	r->bytes = count * o->len;
	if (perf_recv_timeout(fd, 0))
		goto err;
	ret = stats(fd, &ctl, r);
	goto out;
err:
	fprintf(stderr, "quic-perf: RR: %s\n", strerror(errno));
out:
	free(buf);
	free(msg);
	return ret;
}

/* One connection with a control line and its answer. */
static int ctl_conn(const struct perf_opts *o, const char *mode,
		    struct result *r)
{
	struct perf_ctl ctl = { .len = 0 };
	char line[PERF_LINE_MAX];
	int fd = connect_to(o, 0), ret = -1;

	if (fd < 0)
		return -1;
	if (hello(fd, o, mode))
		goto out;
	if (r)
		ret = stats(fd, &ctl, r);
	else
		ret = perf_ctl_read(fd, &ctl, line, sizeof(line), 30000);
out:
	close(fd);
	return ret;
}

static int run_hs(const struct perf_opts *o, struct result *r)
{
	struct perf_progress pg;
	uint64_t count = 0, failed = 0;
	double end, t0;

	if (ctl_conn(o, "hs", NULL))
		return -1;
	perf_progress_init(&pg, o);
	t0 = pg.t0;
	end = t0 + o->time;
	while (o->time ? perf_now() < end : count < o->bytes) {
		int fd = connect_to(o, 1);

		if (fd < 0) {
			if (++failed > 10 && failed > count / 10) {
				fprintf(stderr, "quic-perf: too many failed handshakes\n");
				return -1;
			}
			continue;
		}
		close(fd);
		count++;
		perf_progress(&pg, count, "handshakes/s", 1);
	}
	r->secs = perf_now() - t0;
	r->count = count;
	r->failed = failed;
	return ctl_conn(o, "hsstats", r) ? -1 : 0;
}

/*
 * --idle N: N connections, each with its control line, held open for
 * --time seconds once all are up ("holding N connections" on stderr).
 */
static int run_idle(const struct perf_opts *o, struct result *r)
{
	int *fds = calloc((size_t)o->conns, sizeof(*fds));
	struct perf_progress pg;
	double t0;
	int i, n = 0;

	if (!fds)
		return -1;
	perf_progress_init(&pg, o);
	t0 = pg.t0;
	for (i = 0; i < o->conns; i++) {
		fds[i] = connect_to(o, 0);
		if (fds[i] < 0 || hello(fds[i], o, "idle"))
			break;
		n++;
		perf_progress(&pg, (uint64_t)n, "connections/s", 1);
	}
	r->secs = perf_now() - t0;
	r->count = (uint64_t)n;
	fprintf(stderr, "quic-perf: holding %d connections\n", n);
	if (n == o->conns)
		sleep((unsigned int)(o->time + 0.5));
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	return n == o->conns ? 0 : -1;
}

static double pct(double cpu, double wall)
{
	return wall > 0 ? 100.0 * cpu / wall : 0;
}

static void print_json(const struct perf_opts *o, const struct result *r)
{
	static const char *const names[] = { "bulk", "rr", "handshake", "idle" };
	double s = r->secs > 0 ? r->secs : 1e-9;
	double gb = (double)r->bytes / 1e9;

	printf("{\"tool\": \"quic-perf\", \"mode\": \"%s\", \"direction\": \"%s\", "
	       "\"streams\": %d, \"write_size\": %zu, \"stream_size\": %llu, "
	       "\"seconds\": %.6f, \"bytes\": %llu, \"MBps\": %.3f, \"Mbps\": %.3f, "
	       "\"count\": %llu, \"rate\": %.3f, \"failed\": %llu",
	       names[o->mode], o->reverse ? "download" : "upload", o->streams,
	       o->len, (unsigned long long)o->stream_size, r->secs,
	       (unsigned long long)r->bytes, (double)r->bytes / 1e6 / s,
	       (double)r->bytes * 8 / 1e6 / s, (unsigned long long)r->count,
	       (double)r->count / s, (unsigned long long)r->failed);
	printf(", \"cpu_utilization_percent\": {\"host_total\": %.2f, "
	       "\"host_user\": %.2f, \"host_system\": %.2f",
	       pct(r->local.user + r->local.sys, r->local.wall),
	       pct(r->local.user, r->local.wall), pct(r->local.sys, r->local.wall));
	if (r->have_remote)
		printf(", \"remote_total\": %.2f, \"remote_user\": %.2f, "
		       "\"remote_system\": %.2f",
		       pct(r->remote.user + r->remote.sys, r->remote.wall),
		       pct(r->remote.user, r->remote.wall),
		       pct(r->remote.sys, r->remote.wall));
	printf("}, \"cpu_seconds\": {\"host\": %.6f", r->local.user + r->local.sys);
	if (r->have_remote)
		printf(", \"remote\": %.6f", r->remote.user + r->remote.sys);
	printf("}");
	if (gb > 0)
		printf(", \"cpu_s_per_gb\": {\"host\": %.3f%s",
		       (r->local.user + r->local.sys) / gb, r->have_remote ? "" : "}");
	if (gb > 0 && r->have_remote)
		printf(", \"remote\": %.3f}", (r->remote.user + r->remote.sys) / gb);
	printf("}\n");
}

static void print_text(const struct perf_opts *o, const struct result *r)
{
	double s = r->secs > 0 ? r->secs : 1e-9;

	printf("- - - - - - - - - - - - - - - - - - - - - - - - -\n");
	switch (o->mode) {
	case MODE_BULK:
		printf("%s %llu bytes in %.2f s: %.2f MB/s (%.1f Mbit/s), "
		       "%d stream(s), %zu-byte writes\n",
		       o->reverse ? "received" : "sent",
		       (unsigned long long)r->bytes, r->secs,
		       (double)r->bytes / 1e6 / s,
		       (double)r->bytes * 8 / 1e6 / s, o->streams, o->len);
		break;
	case MODE_RR:
		printf("%llu transactions of %zu bytes in %.2f s: %.1f/s "
		       "(%.1f us per round trip)\n", (unsigned long long)r->count,
		       o->len, r->secs, (double)r->count / s,
		       r->count ? r->secs * 1e6 / (double)r->count : 0);
		break;
	case MODE_HS:
		printf("%llu handshakes in %.2f s: %.1f/s (%llu failed)\n",
		       (unsigned long long)r->count, r->secs,
		       (double)r->count / s, (unsigned long long)r->failed);
		break;
	case MODE_IDLE:
		printf("%llu connections held (opened in %.2f s)\n",
		       (unsigned long long)r->count, r->secs);
		break;
	}
	printf("CPU utilization: local %.1f%% (%.1f%% user, %.1f%% system)",
	       pct(r->local.user + r->local.sys, r->local.wall),
	       pct(r->local.user, r->local.wall), pct(r->local.sys, r->local.wall));
	if (r->have_remote)
		printf(", remote %.1f%% (%.1f%% user, %.1f%% system)",
		       pct(r->remote.user + r->remote.sys, r->remote.wall),
		       pct(r->remote.user, r->remote.wall),
		       pct(r->remote.sys, r->remote.wall));
	printf("\n");
}

int perf_client(const struct perf_opts *o)
{
	struct perf_cpu c0, c1;
	struct result r = { 0 };
	struct rlimit rl;
	int fd = -1, ret;

	signal(SIGPIPE, SIG_IGN);
	if (o->mode == MODE_IDLE && !getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (!o->json)
		printf("quic-perf: connecting to %s port %s\n", o->host, o->port);
	perf_cpu_get(&c0);
	if (o->mode == MODE_HS) {
		ret = run_hs(o, &r);
	} else if (o->mode == MODE_IDLE) {
		ret = run_idle(o, &r);
	} else {
		fd = connect_to(o, 0);
		if (fd < 0)
			return 1;
		perf_cpu_get(&c0);	/* the handshake is not the test */
		ret = o->mode == MODE_RR ? run_rr(fd, o, &r) : run_bulk(fd, o, &r);
	}
	perf_cpu_get(&c1);
	perf_cpu_sub(&r.local, &c1, &c0);
	if (fd >= 0)
		close(fd);
	if (ret)
		return 1;
	if (o->json)
		print_json(o, &r);
	else
		print_text(o, &r);
	return 0;
}

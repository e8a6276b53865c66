// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quic-perf: the bulk transfer, for whichever side sends (the client, or
 * the server with -R) and whichever receives.  The sender writes o->len
 * bytes at a time round-robin over o->streams unidirectional streams of
 * its own; with o->stream_size each stream ends (FIN) after that many
 * bytes and the next one opens.  When the time or the byte count is
 * reached every stream gets its FIN and "end bytes=N" goes on the control
 * stream; the receiver counts stream bytes until it has N.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/quic.h>

#include "perf.h"
#include "bulk.h"

static int64_t open_uni(int fd)
{
	struct quic_stream_info si = { .stream_id = -1,
				       .stream_flags = MSG_QUIC_STREAM_UNI };
	socklen_t len = sizeof(si);

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_OPEN, &si, &len) < 0)
		return -1;
	return si.stream_id;
}

void perf_progress(struct perf_progress *p, uint64_t total, const char *unit,
		   double scale)
{
	double now = perf_now();

	if (!p->interval || now < p->next)
		return;
	fprintf(p->out, "[%6.1f s] %10.2f %s\n", now - p->t0,
		(double)(total - p->last) / scale / (now - p->prev), unit);
	fflush(p->out);
	p->last = total;
	p->prev = now;
	while (p->next <= now)
		p->next += p->interval;
}

void perf_progress_init(struct perf_progress *p, const struct perf_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->t0 = perf_now();
	p->prev = p->t0;
	p->interval = o->interval;
	p->next = p->t0 + o->interval;
	p->out = o->json ? stderr : stdout;
}

int perf_bulk_send(int fd, const struct perf_opts *o, struct perf_progress *pg,
		   uint64_t *sent)
{
	int64_t *sid = calloc((size_t)o->streams, sizeof(*sid));
	uint64_t *done = calloc((size_t)o->streams, sizeof(*done));
	uint8_t *buf = malloc(o->len);
	double end = perf_now() + o->time;
	uint64_t total = 0;
	int i = 0, ret = -1;

	if (!sid || !done || !buf)
		goto out;
	perf_fill(buf, o->len);
	for (i = 0; i < o->streams; i++) {
		sid[i] = open_uni(fd);
		if (sid[i] < 0)
			goto err;
	}
	for (i = 0;; i = (i + 1) % o->streams) {
		size_t n = o->len;
		uint32_t fl = 0;

		if (o->time ? perf_now() >= end : total >= o->bytes)
			break;
		if (!o->time && o->bytes - total < n)
			n = (size_t)(o->bytes - total);
		if (o->stream_size && o->stream_size - done[i] <= n) {
			n = (size_t)(o->stream_size - done[i]);
			fl = MSG_QUIC_STREAM_FIN;
		}
		if (perf_send(fd, buf, n, sid[i], fl))
			goto err;
		total += n;
		done[i] += n;
		if (fl) {
			done[i] = 0;
			sid[i] = open_uni(fd);
			if (sid[i] < 0)
				goto err;
		}
		if (pg)
			perf_progress(pg, total, "MB/s", 1e6);
	}
	for (i = 0; i < o->streams; i++)
		if (perf_send(fd, NULL, 0, sid[i], MSG_QUIC_STREAM_FIN))
			goto err;
	if (perf_ctl_printf(fd, "end bytes=%llu\n", (unsigned long long)total))
		goto err;
	*sent = total;
	ret = 0;
	goto out;
err:
	fprintf(stderr, "quic-perf: sending: %s\n", strerror(errno));
out:
	free(sid);
	free(done);
	free(buf);
	return ret;
}

int perf_bulk_recv(int fd, struct perf_ctl *ctl, struct perf_progress *pg,
		   uint64_t *got, double *t_last)
{
	size_t bsz = 65536;
	uint8_t *buf = malloc(bsz);
	uint64_t total = 0, target = UINT64_MAX;
	char line[PERF_LINE_MAX];
	int ret = -1;

	if (!buf)
		return -1;
	total = ctl->early_bytes;	/* read by perf_ctl_read() already */
	ctl->early_bytes = 0;
	while (total < target) {
		uint32_t flags = 0;
		int64_t sid = 0;
		ssize_t n;

		if (perf_wait_readable(fd, 30000) <= 0) {
			fprintf(stderr,
				"quic-perf: no data for 30 s (%llu bytes read, %s)\n",
				(unsigned long long)total,
				target == UINT64_MAX ? "no end line yet" :
				"the end line said more");
			goto out;
		}
		n = quic_recvmsg(fd, buf, bsz, &sid, &flags);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 && !(flags & MSG_QUIC_STREAM_FIN)) {
			fprintf(stderr, "quic-perf: receiving: %s\n",
				n ? strerror(errno) : "connection closed");
			goto out;
		}
		if (sid == PERF_CTL_SID) {
			if (perf_ctl_add(ctl, buf, (size_t)n))
				goto out;
			while (target == UINT64_MAX &&
			       perf_ctl_line(ctl, line, sizeof(line)))
				if (!strncmp(line, "end ", 4))
					target = perf_kv_u64(line, "bytes", 0);
			continue;
		}
		total += (uint64_t)n;
		if (pg)
			perf_progress(pg, total, "MB/s", 1e6);
	}
	*t_last = perf_now();
	*got = total;
	ret = 0;
out:
	free(buf);
	return ret;
}

/*
 * The next control line: from what was read already, else from the
 * socket (stream data of other streams is dropped, and counted in
 * ctl->early_bytes for perf_bulk_recv()).  0, or -1.
 */
int perf_ctl_read(int fd, struct perf_ctl *ctl, char *line, size_t lsz,
		  int timeout_ms)
{
	uint8_t buf[4096];

	while (!perf_ctl_line(ctl, line, lsz)) {
		uint32_t flags = 0;
		int64_t sid = 0;
		ssize_t n;

		if (perf_wait_readable(fd, timeout_ms) <= 0)
			return -1;
		n = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 && !(flags & MSG_QUIC_STREAM_FIN))
			return -1;
		if (sid != PERF_CTL_SID)
			ctl->early_bytes += n > 0 ? (uint64_t)n : 0;
		else if (perf_ctl_add(ctl, buf, (size_t)n))
			return -1;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quic-hq server: accept connections, run the TLS handshake with libquic,
 * and on each client bidirectional stream read "GET /path", answer with the
 * file's bytes and FIN (or reset the stream when there is no such file).
 *
 * One thread per connection, one poll loop per thread over its socket:
 * read every chunk that is there (each belongs to a stream's request), then
 * give every stream that has a file to send one chunk, without blocking
 * (MSG_DONTWAIT, MSG_QUIC_STREAM_DONTWAIT: a stream out of credit waits).
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <netinet/quic.h>

#include "hq.h"

#define HQ_CHUNK	65536
#define HQ_IDLE_MS	60000
#define HQ_BUSY_MS	2	/* wait when every sender is blocked */
#define HQ_ERR_NOTFOUND	0x1	/* application error code of a reset */

/* A stream's request, kept until both its answer is done and its FIN has
 * arrived, so that late data or a late FIN is recognised as this stream's.
 */
enum req_state { REQ_READING, REQ_SENDING, REQ_DONE };

struct req {
	struct req *next;
	int64_t sid;
	enum req_state state;
	int got_fin;
	char line[HQ_PATH_MAX + 16];
	size_t len;
	int file;		/* REQ_SENDING: the file */
	off_t off, size;
};

struct conn {
	int fd;
	const struct hq_server_opts *o;
	const char *root;	/* resolved --root */
	char peer[NI_MAXHOST + NI_MAXSERV + 8];
	struct req *reqs;
	uint64_t bytes;
	int streams;
	char buf[HQ_CHUNK];
};

static struct req *req_get(struct conn *c, int64_t sid)
{
	struct req *r;

	for (r = c->reqs; r; r = r->next)
		if (r->sid == sid)
			return r;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->sid = sid;
	r->file = -1;
	r->next = c->reqs;
	c->reqs = r;
	c->streams++;
	return r;
}

static void req_free(struct conn *c, struct req *r)
{
	struct req **p;

	for (p = &c->reqs; *p; p = &(*p)->next) {
		if (*p == r) {
			*p = r->next;
			break;
		}
	}
	if (r->file >= 0)
		close(r->file);
	free(r);
}

/* The answer is over (all sent, or reset). */
static void req_done(struct conn *c, struct req *r)
{
	if (r->file >= 0)
		close(r->file);
	r->file = -1;
	r->state = REQ_DONE;
	if (r->got_fin)
		req_free(c, r);
}

static void req_reset(struct conn *c, struct req *r)
{
	struct quic_errinfo ei = { .stream_id = r->sid, .errcode = HQ_ERR_NOTFOUND };

	setsockopt(c->fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_RESET, &ei, sizeof(ei));
	req_done(c, r);
}

/* The file for a request path, opened, or -1.  The path has no ".." and
 * the resolved name must still be inside the root (symbolic links too).
 */
static int open_file(struct conn *c, const char *path, off_t *size)
{
	char name[PATH_MAX], real[PATH_MAX];
	size_t rlen = strlen(c->root);
	struct stat st;
	int fd;

	if (!hq_path_is_safe(path))
		return -1;
	if (snprintf(name, sizeof(name), "%s%s%s", c->root, path,
		     path[strlen(path) - 1] == '/' ? "index.html" : "") >=
	    (int)sizeof(name))
		return -1;
	if (!realpath(name, real) || strncmp(real, c->root, rlen) ||
	    real[rlen] != '/')
		return -1;
	fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	*size = st.st_size;
	return fd;
}

/* A chunk of a request arrived on stream sid. */
static void on_data(struct conn *c, int64_t sid, const char *data, size_t n,
		    int fin)
{
	char path[HQ_PATH_MAX];
	struct req *r;
	int ret;

	if (sid < 0 || (sid & QUIC_STREAM_TYPE_MASK))
		return;		/* only client-initiated bidirectional streams */
	r = req_get(c, sid);
	if (!r)
		return;
	if (fin)
		r->got_fin = 1;
	if (r->state != REQ_READING) {	/* after the request line */
		if (r->state == REQ_DONE && r->got_fin)
			req_free(c, r);
		return;
	}
	if (n > sizeof(r->line) - r->len) {
		req_reset(c, r);
		return;
	}
	memcpy(r->line + r->len, data, n);
	r->len += n;
	ret = hq_parse_request(r->line, r->len, fin, path, sizeof(path));
	if (ret < 0) {
		req_reset(c, r);
	} else if (ret > 0) {
		r->file = open_file(c, path, &r->size);
		if (r->file < 0)
			req_reset(c, r);
		else
			r->state = REQ_SENDING;
	}
}

/* Read whatever is there.  Returns -1 when the connection is over. */
static int read_some(struct conn *c)
{
	int i;

	for (i = 0; i < 64; i++) {
		uint32_t flags = MSG_DONTWAIT;
		int64_t sid = -1;
		ssize_t n;

		n = quic_recvmsg(c->fd, c->buf, sizeof(c->buf), &sid, &flags);
		if (n == -EAGAIN || n == -EINTR)
			return 0;
		if (n < 0)
			return -1;
		if (flags & (MSG_QUIC_NOTIFICATION | MSG_QUIC_DATAGRAM))
			continue;
		if (!n && sid < 0 && !(flags & MSG_QUIC_STREAM_FIN))
			return -1;	/* closed */
		on_data(c, sid, c->buf, (size_t)n, !!(flags & MSG_QUIC_STREAM_FIN));
	}
	return 0;
}

/* One chunk for every stream that is sending.  Returns the number of
 * streams that made progress, -1 when the connection is over.
 */
static int send_some(struct conn *c, int *sending)
{
	struct req *r, *next;
	int progress = 0;

	*sending = 0;
	for (r = c->reqs; r; r = next) {
		uint32_t flags = MSG_DONTWAIT | MSG_QUIC_STREAM_DONTWAIT;
		size_t want;
		ssize_t n = 0;

		next = r->next;
		if (r->state != REQ_SENDING)
			continue;
		(*sending)++;
		want = (size_t)(r->size - r->off) > sizeof(c->buf) ?
		       sizeof(c->buf) : (size_t)(r->size - r->off);
		if (want) {
			n = pread(r->file, c->buf, want, r->off);
			if (n <= 0) {
				req_reset(c, r);	/* file shrank or I/O error */
				continue;
			}
			want = (size_t)n;
		}
		if (r->off + (off_t)want == r->size)
			flags |= MSG_QUIC_STREAM_FIN;
		n = quic_sendmsg(c->fd, c->buf, want, r->sid, flags);
		if (n == -EAGAIN || n == -EINTR)
			continue;
		if (n < 0)
			return -1;
		progress++;
		r->off += n;
		c->bytes += (uint64_t)n;
		if ((size_t)n == want && (flags & MSG_QUIC_STREAM_FIN))
			req_done(c, r);		/* all sent, with FIN */
	}
	return progress;
}

static void *serve(void *arg)
{
	struct conn *c = arg;
	const struct hq_server_opts *o = c->o;
	double t0 = hq_now();
	int err;

	err = quic_server_handshake(c->fd, o->key, o->cert, HQ_ALPN);
	if (err) {
		fprintf(stderr, "quic-hq: %s: handshake failed: %s\n", c->peer,
			strerror(-err));
		goto out;
	}
	for (;;) {
		struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
		int progress, sending, n;

		progress = send_some(c, &sending);
		if (progress < 0)
			break;
		n = poll(&pfd, 1, progress ? 0 : sending ? HQ_BUSY_MS : HQ_IDLE_MS);
		if (n < 0 && errno != EINTR)
			break;
		if (n == 0 && !progress && !sending)
			break;		/* idle: the client went away */
		if (n > 0 && read_some(c) < 0)
			break;
	}
	printf("quic-hq server: %s: %llu bytes, %.3f s, %d streams\n", c->peer,
	       (unsigned long long)c->bytes, hq_now() - t0, c->streams);
	fflush(stdout);
out:
	while (c->reqs)
		req_free(c, c->reqs);
	close(c->fd);
	free(c);
	return NULL;
}

int hq_server(struct hq_server_opts *o)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *res;
	static char root[PATH_MAX];
	int lfd, ret;

	if (!realpath(o->root, root)) {
		fprintf(stderr, "quic-hq: --root %s: %s\n", o->root, strerror(errno));
		return 1;
	}
	if (access(o->cert, R_OK) || access(o->key, R_OK)) {
		fprintf(stderr, "quic-hq: cannot read %s or %s\n", o->cert, o->key);
		return 1;
	}
	ret = getaddrinfo(o->host, o->port, &hints, &res);
	if (ret) {
		fprintf(stderr, "quic-hq: %s: %s\n", o->host, gai_strerror(ret));
		return 1;
	}
	lfd = socket(res->ai_family, SOCK_DGRAM, IPPROTO_QUIC);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_ALPN, HQ_ALPN, strlen(HQ_ALPN)) ||
	    bind(lfd, res->ai_addr, res->ai_addrlen) || listen(lfd, 128)) {
		fprintf(stderr, "quic-hq: listening on %s port %s: %s\n", o->host,
			o->port, strerror(errno));
		freeaddrinfo(res);
		return 1;
	}
	freeaddrinfo(res);
	signal(SIGPIPE, SIG_IGN);
	printf("quic-hq server: listening on %s port %s, serving %s\n", o->host,
	       o->port, root);
	fflush(stdout);

	for (;;) {
		struct sockaddr_storage sa;
		socklen_t salen = sizeof(sa);
		char host[NI_MAXHOST], serv[NI_MAXSERV];
		struct conn *c;
		pthread_t t;
		int fd;

		fd = accept(lfd, (struct sockaddr *)&sa, &salen);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			fprintf(stderr, "quic-hq: accept: %s\n", strerror(errno));
			break;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->o = o;
		c->root = root;
		if (getnameinfo((struct sockaddr *)&sa, salen, host, sizeof(host), serv,
				sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV))
			snprintf(c->peer, sizeof(c->peer), "?");
		else
			snprintf(c->peer, sizeof(c->peer), "%s port %s", host, serv);
		if (pthread_create(&t, NULL, serve, c)) {
			close(fd);
			free(c);
			continue;
		}
		pthread_detach(t);
	}
	close(lfd);
	return 1;
}

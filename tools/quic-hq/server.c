// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quic-hq server: accept connections, run the TLS handshake with libquic,
 * and on each client bidirectional stream read the request, answer with
 * the file and FIN.  hq-interop: "GET /path", then the file's bytes; no
 * such file resets the stream.  h3: HEADERS, then HEADERS + DATA; no such
 * file is a 404; we open a control stream and read the client's
 * unidirectional streams.  The protocol hooks are in proto.c.
 *
 * One thread per connection, one poll loop per thread over its socket:
 * read every chunk that is there (each belongs to a stream's request), then
 * give every stream that has a file to send one chunk, without blocking
 * (MSG_DONTWAIT, MSG_QUIC_STREAM_DONTWAIT: a stream out of credit waits).
 * Key updates (QUIC_EVENT_KEY_UPDATE, turned on in the listener, which
 * passes it on) are counted per connection; with --key-update BYTES one is
 * asked for each time another BYTES of stream data have been sent.
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
#include <unistd.h>
#include <netinet/quic.h>

#include "proto.h"

#define HQ_CHUNK	65536
#define HQ_IDLE_MS	60000
#define HQ_BUSY_MS	2	/* wait when every sender is blocked */

/* A stream's request, kept until both its answer is done and its FIN has
 * arrived, so that late data or a late FIN is recognised as this stream's.
 */
enum req_state { REQ_READING, REQ_SENDING, REQ_DONE };

struct req {
	struct req *next;
	int64_t sid;
	enum req_state state;
	int got_fin;
	struct hq_stream st;	/* the request's parse state */
	struct hq_answer ans;	/* REQ_SENDING: head bytes, then the file */
	off_t off;		/* of head + file, sent so far */
};

struct conn {
	int fd;
	const struct hq_server_opts *o;
	const struct hq_proto *p;
	struct hq_conn hc;	/* the client's unidirectional streams */
	const char *root;	/* resolved --root */
	char peer[NI_MAXHOST + NI_MAXSERV + 8];
	struct req *reqs;
	uint64_t bytes;		/* of files */
	uint64_t sent;		/* all stream data */
	struct hq_ku ku;
	int streams;
	gnutls_session_t session;
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
	r->ans.file = -1;
	c->p->stream_init(&r->st, 1);
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
	if (r->ans.file >= 0)
		close(r->ans.file);
	c->p->stream_free(&r->st);
	free(r);
}

/* The answer is over (all sent, or reset). */
static void req_done(struct conn *c, struct req *r)
{
	if (r->ans.file >= 0)
		close(r->ans.file);
	r->ans.file = -1;
	r->state = REQ_DONE;
	if (r->got_fin)
		req_free(c, r);
}

static void req_reset(struct conn *c, struct req *r, uint32_t code)
{
	struct quic_errinfo ei = { .stream_id = r->sid, .errcode = code };

	setsockopt(c->fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_RESET, &ei, sizeof(ei));
	req_done(c, r);
}

/* A chunk of a request arrived on stream sid. */
static void on_data(struct conn *c, int64_t sid, const uint8_t *data, size_t n,
		    int fin)
{
	char path[HQ_PATH_MAX], why[256];
	enum hq_method m;
	struct req *r;
	int ret;

	if (sid >= 0 && (sid & QUIC_STREAM_TYPE_MASK) == QUIC_STREAM_TYPE_UNI_MASK) {
		/* the client's control and QPACK streams (h3) */
		if (c->p->uni(&c->hc, sid, data, n, fin, why, sizeof(why)))
			fprintf(stderr, "quic-hq: %s: %s\n", c->peer, why);
		return;
	}
	if (sid < 0 || (sid & QUIC_STREAM_TYPE_MASK))
		return;		/* only client-initiated bidirectional streams */
	r = req_get(c, sid);
	if (!r)
		return;
	if (fin)
		r->got_fin = 1;
	if (r->state != REQ_READING) {	/* after the request */
		if (r->state == REQ_DONE && r->got_fin)
			req_free(c, r);
		return;
	}
	ret = c->p->on_request(&r->st, data, n, fin, &m, path, sizeof(path));
	if (!ret)
		return;		/* more to come */
	if (ret > 0)
		ret = hq_serve(c->p, c->root, m, path, &r->ans);
	if (ret < 0)
		req_reset(c, r, (uint32_t)-ret);	/* -ret: the error code */
	else
		r->state = REQ_SENDING;
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
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n < 0)
			return -1;
		if (flags & MSG_QUIC_NOTIFICATION)
			hq_ku_event(&c->ku, c->buf, (size_t)n);
		if (flags & (MSG_QUIC_NOTIFICATION | MSG_QUIC_DATAGRAM))
			continue;
		if (!n && sid < 0 && !(flags & MSG_QUIC_STREAM_FIN))
			return -1;	/* closed */
		on_data(c, sid, (uint8_t *)c->buf, (size_t)n,
			!!(flags & MSG_QUIC_STREAM_FIN));
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
		off_t hlen = (off_t)r->ans.hlen, total = hlen + r->ans.size;
		size_t want, k = 0;
		ssize_t n;

		next = r->next;
		if (r->state != REQ_SENDING)
			continue;
		(*sending)++;
		want = (size_t)(total - r->off) > sizeof(c->buf) ?
		       sizeof(c->buf) : (size_t)(total - r->off);
		if (r->off < hlen) {	/* what is left of the head first */
			k = (size_t)(hlen - r->off) < want ?
			    (size_t)(hlen - r->off) : want;
			memcpy(c->buf, r->ans.head + r->off, k);
		}
		if (want > k) {
			n = pread(r->ans.file, c->buf + k, want - k,
				  r->off + (off_t)k - hlen);
			if (n <= 0) {	/* file shrank or I/O error */
				req_reset(c, r, c->p->h3 ? H3_INTERNAL_ERROR :
						   HQ_ERR_NOTFOUND);
				continue;
			}
			want = k + (size_t)n;
		}
		if (r->off + (off_t)want == total)
			flags |= MSG_QUIC_STREAM_FIN;
		n = quic_sendmsg(c->fd, c->buf, want, r->sid, flags);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return -1;
		progress++;
		/* count the file's bytes, not the head's */
		c->bytes += (uint64_t)n - (k < (size_t)n ? k : (size_t)n);
		c->sent += (uint64_t)n;
		r->off += n;
		if ((size_t)n == want && (flags & MSG_QUIC_STREAM_FIN))
			req_done(c, r);		/* all sent, with FIN */
	}
	return progress;
}

static gnutls_certificate_credentials_t cred;	/* of every connection */

/*
 * The TLS handshake of a connection, as quic_server_handshake() would run
 * it, with a session of our own so that the summary can say whether it
 * was resumed and took 0-RTT data.  Session tickets with the listener's
 * ticket key (QUIC_SOCKOPT_SESSION_TICKET, made by the kernel) that allow
 * early data, which is accepted unless --no-0rtt.
 */
static int handshake(struct conn *c)
{
	unsigned int flags = GNUTLS_SERVER | GNUTLS_NO_END_OF_EARLY_DATA;
	uint8_t key[256];
	socklen_t klen = sizeof(key);
	int ret;

	if (!c->o->no_early)
		flags |= GNUTLS_ENABLE_EARLY_DATA;
	ret = gnutls_init(&c->session, flags);
	/* RFC 9001 4.6.1: the max_early_data_size of QUIC tickets */
	if (ret >= 0)
		ret = gnutls_record_set_max_early_data_size(c->session, 0xffffffffu);
	if (ret >= 0)
		ret = gnutls_credentials_set(c->session, GNUTLS_CRD_CERTIFICATE, cred);
	if (ret >= 0)
		ret = gnutls_priority_set_direct(c->session, QUIC_PRIORITY, NULL);
	if (ret < 0) {
		fprintf(stderr, "quic-hq: %s: TLS setup: %s\n", c->peer,
			gnutls_strerror(ret));
		return -EINVAL;
	}
	ret = quic_session_set_alpn(c->session, c->o->alpn, strlen(c->o->alpn));
	if (!ret && getsockopt(c->fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, key,
			       &klen) < 0)
		ret = -errno;
	if (!ret)
		ret = quic_session_set_data(c->session, key, klen);
	memset(key, 0, sizeof(key));
	if (ret) {
		fprintf(stderr, "quic-hq: %s: ALPN or ticket key: %s\n", c->peer,
			strerror(-ret));
		return ret;
	}
	gnutls_transport_set_int(c->session, c->fd);
	quic_handshake_early_hello(c->session);
	if (c->o->idle_timeout &&
	    hq_handshake_time_limit(c->fd, c->o->idle_timeout))
		return -errno;
	ret = quic_handshake(c->session);
	if (!ret && c->o->idle_timeout && hq_handshake_time_limit(c->fd, 0))
		ret = -errno;
	return ret;
}

static void *serve(void *arg)
{
	struct conn *c = arg;
	double t0 = hq_now();
	int err;

	err = handshake(c);
	if (err) {
		fprintf(stderr, "quic-hq: %s: handshake failed: %s\n", c->peer,
			strerror(-err));
		goto out;
	}
	hq_key_update_events(c->fd, c->peer);
	if (hq_open_control(c->fd, c->p, c->peer))
		goto out;
	for (;;) {
		struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
		int progress, sending, n;

		progress = send_some(c, &sending);
		if (progress < 0)
			break;
		hq_key_update(c->fd, &c->ku, c->sent, c->peer);
		n = poll(&pfd, 1, progress ? 0 : sending ? HQ_BUSY_MS : HQ_IDLE_MS);
		if (n < 0 && errno != EINTR)
			break;
		if (n == 0 && !progress && !sending)
			break;		/* idle: the client went away */
		if (n > 0 && read_some(c) < 0)
			break;
	}
	hq_close_code(c->fd, c->p);
	printf("quic-hq server: %s: %llu bytes, %.3f s, %d streams, "
	       "key updates: %u", c->peer, (unsigned long long)c->bytes,
	       hq_now() - t0, c->streams, c->ku.events);
	if (c->ku.every)
		printf(" (%u asked for)", c->ku.initiated);
	if (hq_sock_version(c->fd) != 0x1)
		printf(", QUIC %s", hq_version_name(hq_sock_version(c->fd)));
	printf(", resumed: %s, 0-RTT: %s\n",
	       gnutls_session_is_resumed(c->session) ? "yes" : "no",
	       gnutls_session_get_flags(c->session) & GNUTLS_SFLAGS_EARLY_DATA ?
	       "accepted" : "no");
	fflush(stdout);
out:
	while (c->reqs)
		req_free(c, c->reqs);
	c->p->conn_free(&c->hc);
	if (c->session)
		gnutls_deinit(c->session);
	close(c->fd);
	free(c);
	return NULL;
}

/*
 * --retry: every client's address is validated with a Retry first.
 * --version: the listener's preferred version (v2: v1 clients that offer
 * v2 are moved to it, RFC 9368 compatible version negotiation).
 * --cc: the congestion controller, which connections take from it.
 */
static int set_config(int lfd, const struct hq_server_opts *o)
{
	struct quic_config c;
	socklen_t len = sizeof(c);

	if (!o->retry && !o->version && !o->cc)
		return 0;
	if (getsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &c, &len))
		return -1;
	if (o->retry)
		c.validate_peer_address = 1;
	if (o->version)
		c.version = o->version;
	if (o->cc)
		c.congestion_control_algo = o->cc - 1;
	return setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &c, sizeof(c));
}

/*
 * --ticket-key FILE: the listener's session ticket key
 * (QUIC_SOCKOPT_SESSION_TICKET), 16 to 256 bytes of FILE, instead of one
 * the kernel makes: tickets then outlive this process (a server started
 * again with the same FILE resumes them).
 */
static int set_ticket_key(int lfd, const char *path)
{
	uint8_t key[257];
	ssize_t n = -1;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, key, sizeof(key));
		err = errno;
		close(fd);
		errno = err;
	}
	if (n < 16 || n > 256) {
		fprintf(stderr, "quic-hq: --ticket-key %s: %s\n", path,
			n < 0 ? strerror(errno) : "not 16 to 256 bytes");
		return -1;
	}
	err = setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, key,
			 (socklen_t)n);
	memset(key, 0, sizeof(key));
	if (err)
		fprintf(stderr, "quic-hq: --ticket-key: QUIC_SOCKOPT_SESSION_TICKET: %s\n",
			strerror(errno));
	return err;
}

int hq_server(struct hq_server_opts *o)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_flags = AI_PASSIVE };
	struct quic_event_option kev = { QUIC_EVENT_KEY_UPDATE, 1 };
	struct addrinfo *res;
	static char root[PATH_MAX];
	int lfd, ret;

	if (!realpath(o->root, root)) {
		fprintf(stderr, "quic-hq: --root %s: %s\n", o->root, strerror(errno));
		return 1;
	}
	ret = gnutls_certificate_allocate_credentials(&cred);
	if (ret >= 0)
		ret = gnutls_certificate_set_x509_key_file2(cred, o->cert, o->key,
							    GNUTLS_X509_FMT_PEM, NULL, 0);
	if (ret < 0) {
		fprintf(stderr, "quic-hq: %s / %s: %s\n", o->cert, o->key,
			gnutls_strerror(ret));
		return 1;
	}
	ret = getaddrinfo(o->host, o->port, &hints, &res);
	if (ret) {
		fprintf(stderr, "quic-hq: %s: %s\n", o->host, gai_strerror(ret));
		return 1;
	}
	lfd = socket(res->ai_family, SOCK_DGRAM, IPPROTO_QUIC);
	if (lfd >= 0 && o->ticket_key && set_ticket_key(lfd, o->ticket_key)) {
		freeaddrinfo(res);
		close(lfd);
		return 1;
	}
	/* accepted sockets inherit it: no update goes uncounted */
	if (lfd >= 0)
		setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &kev, sizeof(kev));
	if (lfd < 0 || set_config(lfd, o) ||
	    hq_set_idle_timeout(lfd, o->idle_timeout) ||
	    setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_ALPN, o->alpn, strlen(o->alpn)) ||
	    bind(lfd, res->ai_addr, res->ai_addrlen) || listen(lfd, 128)) {
		fprintf(stderr, "quic-hq: listening on %s port %s: %s\n", o->host,
			o->port, strerror(errno));
		freeaddrinfo(res);
		return 1;
	}
	freeaddrinfo(res);
	signal(SIGPIPE, SIG_IGN);
	printf("quic-hq server: listening on %s port %s, serving %s, ALPN %s\n",
	       o->host, o->port, root, o->alpn);
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
		hq_ku_init(&c->ku, o->key_update);
		c->p = hq_proto_find(o->alpn);
		c->p->conn_init(&c->hc, 1);
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

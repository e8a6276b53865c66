// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quic-hq client: every URL over one connection, one bidirectional stream
 * each: the request and FIN ("GET /path\r\n", or an HTTP/3 HEADERS frame),
 * then the answer up to the FIN (the file, or HTTP/3 HEADERS and DATA).
 *
 * One poll loop over the one socket: open streams while fewer than
 * HQ_INFLIGHT are running, and hand each received chunk to the transfer of
 * its stream id, whose protocol hook (proto.h) writes the content to the
 * file; the end of a whole answer completes it, a stream reset
 * (QUIC_EVENT_STREAM_UPDATE) or a bad answer fails it.  With h3 a control
 * stream is opened first, and the server's unidirectional streams are read.
 * Key updates (QUIC_EVENT_KEY_UPDATE) are counted; with --key-update BYTES
 * one is asked for each time another BYTES of stream data have arrived.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/quic.h>

#include "proto.h"

#define HQ_INFLIGHT	64
/* Without data this long the client gives up: --idle-timeout, or 30 s. */
#define HQ_IDLE_MS	30000

enum xfer_state { XFER_WAITING, XFER_RUNNING, XFER_DONE, XFER_FAILED };

struct xfer {
	enum xfer_state state;
	int64_t sid;
	int out;
	uint64_t bytes;
	struct hq_stream st;	/* the answer's parse state */
};

static int connect_to(const struct hq_url *u, uint32_t version)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res, *ai;
	struct quic_config c = { .version = version };
	int fd = -1, ret;

	ret = getaddrinfo(u->host, u->port, &hints, &res);
	if (ret) {
		fprintf(stderr, "quic-hq: %s: %s\n", u->host, gai_strerror(ret));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, SOCK_DGRAM, IPPROTO_QUIC);
		if (fd < 0)
			continue;
		if ((!version ||
		     !setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &c,
				 sizeof(c))) &&
		    !connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		fprintf(stderr, "quic-hq: cannot connect to %s port %s: %s\n",
			u->host, u->port, strerror(errno));
	return fd;
}

/* Say why the handshake failed; for a certificate, what was wrong with it. */
static void handshake_error(gnutls_session_t session, int err)
{
	unsigned int status = gnutls_session_get_verify_cert_status(session);
	gnutls_datum_t out = { NULL, 0 };

	if (err == -EKEYREJECTED && status &&
	    !gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509,
							  &out, 0)) {
		fprintf(stderr, "quic-hq: handshake failed: server certificate "
			"verification failed: %s\n", (const char *)out.data);
		gnutls_free(out.data);
		return;
	}
	fprintf(stderr, "quic-hq: handshake failed: %s\n", strerror(-err));
}

/* --token-file: the token kept from an earlier connection, if any. */
static int token_load(int fd, const char *path)
{
	uint8_t tok[HQ_TOKEN_MAX];
	ssize_t n;
	int tfd;

	tfd = open(path, O_RDONLY);
	if (tfd < 0) {
		if (errno == ENOENT)
			return 0;	/* none yet */
		fprintf(stderr, "quic-hq: %s: %s\n", path, strerror(errno));
		return -1;
	}
	n = read(tfd, tok, sizeof(tok));
	close(tfd);
	if (n < 0 || (n && setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, tok,
				      (socklen_t)n))) {
		fprintf(stderr, "quic-hq: token from %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* --token-file: the last NEW_TOKEN of the server, for the next time. */
static void token_save(int fd, const char *path)
{
	uint8_t tok[HQ_TOKEN_MAX];
	socklen_t len = sizeof(tok);
	int tfd;

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, tok, &len) || !len)
		return;
	tfd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (tfd < 0 || write(tfd, tok, len) != (ssize_t)len)
		fprintf(stderr, "quic-hq: %s: %s\n", path, strerror(errno));
	if (tfd >= 0)
		close(tfd);
}

/*
 * The client's TLS session: certificate checks as asked, the ALPN, and
 * with a loaded --session-file its session data (resumption) and, for
 * --0rtt, early data.  Kept after the handshake for the new ticket.
 */
static int tls_setup(int fd, const struct hq_client_opts *o,
		     const struct hq_sess *sess, gnutls_session_t *psession,
		     gnutls_certificate_credentials_t *pcred)
{
	unsigned int flags = GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA;
	const char *host = o->urls[0].host;
	unsigned char addr[16];
	int ret;

	*psession = NULL;
	*pcred = NULL;
	if (sess && o->early)
		flags |= GNUTLS_ENABLE_EARLY_DATA;
	ret = gnutls_init(psession, flags);
	if (ret >= 0)
		ret = gnutls_certificate_allocate_credentials(pcred);
	if (ret >= 0 && o->ca)
		ret = gnutls_certificate_set_x509_trust_file(*pcred, o->ca,
							     GNUTLS_X509_FMT_PEM);
	else if (ret >= 0 && !o->insecure)
		ret = gnutls_certificate_set_x509_system_trust(*pcred);
	if (ret >= 0)
		ret = gnutls_credentials_set(*psession, GNUTLS_CRD_CERTIFICATE, *pcred);
	if (ret >= 0)
		ret = gnutls_priority_set_direct(*psession, QUIC_PRIORITY, NULL);
	if (ret >= 0 && inet_pton(AF_INET, host, addr) != 1 &&
	    inet_pton(AF_INET6, host, addr) != 1)
		ret = gnutls_server_name_set(*psession, GNUTLS_NAME_DNS, host,
					     strlen(host));
	if (ret < 0) {
		fprintf(stderr, "quic-hq: TLS setup: %s\n", gnutls_strerror(ret));
		return -1;
	}
	if (!o->insecure)
		gnutls_session_set_verify_cert(*psession, host, 0);
	ret = quic_session_set_alpn(*psession, o->alpn, strlen(o->alpn));
	if (ret) {
		fprintf(stderr, "quic-hq: ALPN: %s\n", strerror(-ret));
		return -1;
	}
	if (sess) {
		ret = quic_session_set_data(*psession, sess->tls, sess->tls_len);
		if (ret)	/* expired or damaged: a full handshake */
			fprintf(stderr, "quic-hq: %s: session not usable: %s\n",
				o->session_file, strerror(-ret));
	}
	gnutls_transport_set_int(*psession, fd);
	return 0;
}

/*
 * Open the next stream and send its request.  @early: before the
 * handshake (--0rtt), where QUIC_SOCKOPT_STREAM_OPEN cannot be used: the
 * request opens stream 4 * i itself (requests 0, 1, ... in order);
 * without waiting, and quiet: a failure only means the request goes after
 * the handshake.
 */
static int start(int fd, const struct hq_client_opts *o,
		 const struct hq_proto *p, int i, struct xfer *x, int early)
{
	struct quic_stream_info si = { .stream_id = -1,
				       .stream_flags = MSG_QUIC_STREAM_DONTWAIT };
	socklen_t len = sizeof(si);
	uint8_t req[HQ_PATH_MAX + HQ_HOST_MAX + 64];
	char file[4096];
	ssize_t n;
	int rlen;

	rlen = p->request(&o->urls[i], req, sizeof(req));
	if (rlen < 0) {
		fprintf(stderr, "quic-hq: %s: request too long\n", o->urls[i].path);
		return -EINVAL;
	}
	if (early)	/* before the handshake: our i-th bidi stream, opened by its data */
		si.stream_id = 4 * (int64_t)i;
	else if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_OPEN, &si, &len) < 0)
		return -errno;	/* EAGAIN: no stream credit now */
	snprintf(file, sizeof(file), "%s/%s", o->out, o->names[i]);
	x->out = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (x->out < 0) {
		fprintf(stderr, "quic-hq: %s: %s\n", file, strerror(errno));
		return -errno;
	}
	n = quic_sendmsg(fd, req, (size_t)rlen, si.stream_id, MSG_QUIC_STREAM_FIN |
			 (early ? MSG_QUIC_STREAM_NEW | MSG_DONTWAIT |
				  MSG_QUIC_STREAM_DONTWAIT : 0));
	if (n != rlen) {
		int err = n < 0 ? errno : EIO;

		if (!early)
			fprintf(stderr, "quic-hq: sending the request for %s: %s\n",
				o->urls[i].path, n < 0 ? strerror(err) : "short write");
		close(x->out);
		x->out = -1;
		return -err;
	}
	p->stream_init(&x->st, 0);
	x->sid = si.stream_id;
	x->state = XFER_RUNNING;
	return 0;
}

static struct xfer *find(struct xfer *x, int n, int64_t sid)
{
	int i;

	for (i = 0; i < n; i++)
		if (x[i].state == XFER_RUNNING && x[i].sid == sid)
			return &x[i];
	return NULL;
}

static void finish(const struct hq_proto *p, struct xfer *x,
		   enum xfer_state state, int *inflight)
{
	if (x->out >= 0 && close(x->out) < 0)
		state = XFER_FAILED;
	x->out = -1;
	x->state = state;
	p->stream_free(&x->st);
	(*inflight)--;
}

static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The content of an answer: to the file. */
static int sink(void *arg, const uint8_t *p, size_t n)
{
	struct xfer *x = arg;

	if (write_all(x->out, p, n))
		return -1;
	x->bytes += n;
	return 0;
}

/* One notification: a reset stream fails its transfer. */
static void event(const struct hq_proto *p, char *buf, ssize_t n,
		  struct xfer *x, int nx, int *inflight)
{
	struct quic_stream_update up;
	struct xfer *t;

	if (n < 1 + (ssize_t)sizeof(up) || buf[0] != QUIC_EVENT_STREAM_UPDATE)
		return;
	memcpy(&up, buf + 1, sizeof(up));
	if (up.state != QUIC_STREAM_RECV_STATE_RESET_RECVD)
		return;
	t = find(x, nx, up.id);
	if (t) {
		fprintf(stderr, "quic-hq: stream %lld reset by the server (error 0x%x)\n",
			(long long)up.id, up.errcode);
		finish(p, t, XFER_FAILED, inflight);
	}
}

/* A chunk of a request stream's answer.  Returns 1 if that ended it. */
static int answer(const struct hq_client_opts *o, const struct hq_proto *p,
		   int fd, struct xfer *x, struct xfer *t, const uint8_t *buf,
		   size_t n, int fin, int *inflight)
{
	char why[256];
	int ret = p->response(&t->st, buf, n, fin, sink, t, why, sizeof(why));

	if (ret < 0) {
		struct quic_errinfo ei = { .stream_id = t->sid,
					   .errcode = H3_REQUEST_CANCELLED };

		fprintf(stderr, "quic-hq: %s: %s\n", o->urls[t - x].path, why);
		/* h3: no use sending us the rest */
		if (!fin && p->h3)
			setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_STOP_SENDING,
				   &ei, sizeof(ei));
		finish(p, t, XFER_FAILED, inflight);
		return 1;
	}
	if (ret > 0)
		finish(p, t, XFER_DONE, inflight);
	return ret > 0;
}

/* --session-file and --0rtt: what was loaded, what this connection did. */
struct sess_state {
	struct hq_sess s;
	int loaded;		/* s holds the file's session */
	int tickets;		/* QUIC_EVENT_NEW_SESSION_TICKET events seen */
	int early;		/* requests written before the handshake */
	int early_err;		/* why none could be (errno), 0: not tried */
};

static int is_ticket_event(const uint8_t *buf, ssize_t n)
{
	return n >= 1 && buf[0] == QUIC_EVENT_NEW_SESSION_TICKET;
}

/*
 * Before the handshake: the file's session, and the server's transport
 * parameters it remembers (QUIC_SOCKOPT_TRANSPORT_PARAM, remote = 1),
 * which 0-RTT needs.  No file yet, or one that does not fit: a full
 * handshake.
 */
static void session_load(int fd, const struct hq_client_opts *o,
			 struct sess_state *st)
{
	struct quic_event_option ev = { QUIC_EVENT_NEW_SESSION_TICKET, 1 };
	int ret;

	if (!o->session_file)
		return;
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, sizeof(ev)))
		fprintf(stderr, "quic-hq: QUIC_EVENT_NEW_SESSION_TICKET: %s\n",
			strerror(errno));
	ret = hq_sess_load(o->session_file, &st->s);
	if (ret == -ENOENT)
		return;		/* a first run */
	if (ret) {
		fprintf(stderr, "quic-hq: %s: %s; a full handshake\n",
			o->session_file, ret == -EINVAL ? "not a quic-hq session file" :
			strerror(-ret));
		return;
	}
	if (strcmp(st->s.alpn, o->alpn)) {
		fprintf(stderr, "quic-hq: %s: a session of ALPN %s, not %s; a full handshake\n",
			o->session_file, st->s.alpn, o->alpn);
		return;
	}
	st->loaded = 1;
	st->s.tp.remote = 1;
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &st->s.tp,
		       sizeof(st->s.tp))) {
		st->early_err = errno;
		fprintf(stderr, "quic-hq: the remembered transport parameters "
			"(QUIC_SOCKOPT_TRANSPORT_PARAM, remote): %s\n", strerror(errno));
	}
}

/*
 * After the transfer: the server's ticket (QUIC_EVENT_NEW_SESSION_TICKET;
 * waited for a little if none came yet), as session data with the
 * server's transport parameters, to the file.
 */
static void session_save(int fd, const struct hq_client_opts *o,
			 gnutls_session_t session, struct sess_state *st)
{
	static struct hq_sess out;
	static uint8_t buf[4096];
	double end = hq_now() + 3;
	socklen_t len = sizeof(out.tp);
	size_t dlen = sizeof(out.tls);
	int ret;

	if (!o->session_file)
		return;
	while (!st->tickets && hq_now() < end) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint32_t flags = MSG_DONTWAIT;
		int64_t sid = -1;
		ssize_t n;

		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			break;
		n = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
		if (n > 0 && (flags & MSG_QUIC_NOTIFICATION) && is_ticket_event(buf, n))
			st->tickets++;
	}
	if (!st->tickets) {
		fprintf(stderr, "quic-hq: no session ticket from the server: %s not written\n",
			o->session_file);
		return;
	}
	memset(&out, 0, sizeof(out));
	snprintf(out.alpn, sizeof(out.alpn), "%s", o->alpn);
	out.tp.remote = 1;
	ret = quic_session_get_data(session, out.tls, &dlen);
	if (!ret && getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &out.tp,
			       &len) < 0)
		ret = -errno;
	out.tls_len = dlen;
	out.tp.remote = 1;
	if (!ret)
		ret = hq_sess_save(o->session_file, &out);
	if (ret)
		fprintf(stderr, "quic-hq: %s: saving the session: %s\n",
			o->session_file, strerror(-ret));
}

/*
 * --0rtt with a session: the requests go out before the handshake, for
 * the kernel to send in 0-RTT packets.  Where it cannot take them yet
 * (no 0-RTT keys to come, no stream credit), they wait for the handshake.
 */
static int early_requests(int fd, const struct hq_client_opts *o,
			  const struct hq_proto *p, struct xfer *x,
			  struct sess_state *st)
{
	int n = 0, err = 0;

	if (!o->early || !st->loaded || st->early_err)
		return 0;
	while (n < o->nurls && n < HQ_INFLIGHT) {
		err = start(fd, o, p, n, &x[n], 1);
		if (err)
			break;
		n++;
	}
	if (!n)
		st->early_err = -err;
	st->early = n;
	return n;
}

/* The summary's end: ", resumed: yes|no[, 0-RTT: ...]" */
static void summary_session(const struct hq_client_opts *o,
			    gnutls_session_t session, const struct sess_state *st)
{
	printf(", resumed: %s", gnutls_session_is_resumed(session) ? "yes" : "no");
	if (!o->early)
		return;
	if (!st->loaded)
		printf(", 0-RTT: not sent (no session)");
	else if (!st->early)
		printf(", 0-RTT: not sent (%s)", strerror(st->early_err));
	else if (gnutls_session_get_flags(session) & GNUTLS_SFLAGS_EARLY_DATA)
		printf(", 0-RTT: accepted (%d requests)", st->early);
	else
		printf(", 0-RTT: rejected (%d requests sent again in 1-RTT)",
		       st->early);
}

/* Before the summary: the key update events already queued (say, of an
 * update our last ACKs started) are counted too.  What else is there goes.
 */
static void drain_events(int fd, struct hq_ku *ku, struct sess_state *st)
{
	static uint8_t buf[4096];
	int i;

	for (i = 0; i < 1024; i++) {
		uint32_t flags = MSG_DONTWAIT;
		int64_t sid = -1;
		ssize_t n = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);

		if (n < 0 || (!n && sid < 0 && !(flags & MSG_QUIC_STREAM_FIN)))
			break;
		if ((flags & MSG_QUIC_NOTIFICATION) && !hq_ku_event(ku, buf, (size_t)n) &&
		    is_ticket_event(buf, n))
			st->tickets++;
	}
}

/*
 * After Version Negotiation: 0 if the socket's config names a version
 * other than *@version (v1 if 0), which becomes *@version.
 */
static int version_retry(uint32_t *version, int fd)
{
	uint32_t tried = *version ? *version : 0x1, offered;

	offered = hq_sock_version(fd);
	if (!offered || offered == tried)
		return -1;
	fprintf(stderr, "quic-hq: version negotiation: connecting again with QUIC %s\n",
		hq_version_name(offered));
	*version = offered;
	return 0;
}

/* A request written before a failed attempt, as if never started. */
static void xfer_reset(const struct hq_proto *p, struct xfer *x)
{
	if (x->state == XFER_RUNNING)
		p->stream_free(&x->st);
	if (x->out >= 0)
		close(x->out);
	memset(x, 0, sizeof(*x));
	x->out = -1;
}

int hq_client(struct hq_client_opts *o)
{
	struct quic_event_option ev = { QUIC_EVENT_STREAM_UPDATE, 1 };
	const struct hq_proto *p = hq_proto_find(o->alpn);
	int fd, i, next = 0, inflight = 0, done = 0, failed = 0, ret = 1;
	static uint8_t buf[65536];
	struct hq_conn conn;
	uint64_t bytes = 0, received = 0;
	static struct sess_state st;
	gnutls_certificate_credentials_t cred = NULL;
	gnutls_session_t session = NULL;
	uint32_t version = o->version;
	struct hq_mig mig = { .at = o->migrate };
	struct hq_ku ku;
	struct xfer *x;
	double t0 = hq_now();
	int idle_ms = o->idle_timeout ? (int)o->idle_timeout * 1000 : HQ_IDLE_MS;

	x = calloc((size_t)o->nurls, sizeof(*x));
	if (!x || !p) {
		free(x);
		return 1;
	}
	p->conn_init(&conn, 0);
	hq_ku_init(&ku, o->key_update);
	for (i = 0; i < o->nurls; i++)
		x[i].out = -1;
	for (;;) {
		fd = connect_to(&o->urls[0], version);
		if (fd < 0)
			goto out;
		if (o->idle_timeout &&
		    (hq_set_idle_timeout(fd, o->idle_timeout) ||
		     hq_handshake_time_limit(fd, o->idle_timeout)))
			goto out;
		setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, sizeof(ev));
		if (o->token_file && token_load(fd, o->token_file))
			goto out;
		session_load(fd, o, &st);
		if (tls_setup(fd, o, st.loaded ? &st.s : NULL, &session, &cred))
			goto out;
		next = inflight = early_requests(fd, o, p, x, &st);
		ret = quic_handshake(session);
		if (ret != -EPROTONOSUPPORT || version_retry(&version, fd))
			break;
		/*
		 * Version Negotiation (EPROTONOSUPPORT) listed a version the
		 * kernel speaks, which the socket's config now names: once
		 * more, from scratch, with it.
		 */
		close(fd);
		gnutls_deinit(session);
		gnutls_certificate_free_credentials(cred);
		session = NULL;
		cred = NULL;
		for (i = 0; i < next; i++)
			xfer_reset(p, &x[i]);
		memset(&st, 0, sizeof(st));
	}
	if (ret) {
		handshake_error(session, ret);
		ret = 1;
		goto out;
	}
	ret = 1;
	if (o->idle_timeout && hq_handshake_time_limit(fd, 0))
		goto out;
	if (hq_sock_version(fd) != 0x1)
		fprintf(stderr, "quic-hq: QUIC version %s\n",
			hq_version_name(hq_sock_version(fd)));
	hq_key_update_events(fd, o->urls[0].host);
	if (hq_open_control(fd, p, o->urls[0].host))
		goto out;

	while (done < o->nurls) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint32_t flags = MSG_DONTWAIT;
		int64_t sid = -1;
		struct xfer *t;
		ssize_t n;
		int err;

		while (next < o->nurls && inflight < HQ_INFLIGHT) {
			err = start(fd, o, p, next, &x[next], 0);
			if (err == -EAGAIN && inflight)
				break;		/* wait for streams to finish */
			if (err) {
				x[next].state = XFER_FAILED;
				done++;
				next++;
				continue;
			}
			next++;
			inflight++;
		}
		if (done == o->nurls)
			break;
		n = poll(&pfd, 1, idle_ms);
		if (n == 0) {
			fprintf(stderr, "quic-hq: no data for %d s, giving up\n",
				idle_ms / 1000);
			break;
		}
		if (n < 0 && errno != EINTR)
			break;
		n = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0) {
			fprintf(stderr, "quic-hq: connection: %s\n", strerror(errno));
			break;
		}
		if (flags & MSG_QUIC_NOTIFICATION) {
			int before = inflight;

			if (hq_ku_event(&ku, buf, (size_t)n))
				continue;
			if (is_ticket_event(buf, n)) {
				st.tickets++;
				continue;
			}
			event(p, (char *)buf, n, x, o->nurls, &inflight);
			done += before - inflight;
			continue;
		}
		if (flags & MSG_QUIC_DATAGRAM)
			continue;
		if (!n && !(flags & MSG_QUIC_STREAM_FIN) && sid < 0) {
			fprintf(stderr, "quic-hq: connection closed by the server\n");
			break;
		}
		received += (uint64_t)n;
		hq_key_update(fd, &ku, received, o->urls[0].host);
		hq_migrate(fd, &mig, received);
		if (sid >= 0 && (sid & QUIC_STREAM_TYPE_UNI_MASK)) {
			char why[256];

			/* the server's control and QPACK streams (h3) */
			if (p->uni(&conn, sid, buf, (size_t)n,
				   !!(flags & MSG_QUIC_STREAM_FIN), why, sizeof(why)))
				fprintf(stderr, "quic-hq: %s\n", why);
			continue;
		}
		t = find(x, o->nurls, sid);
		if (!t)
			continue;	/* not ours (or already failed) */
		done += answer(o, p, fd, x, t, buf, (size_t)n,
			       !!(flags & MSG_QUIC_STREAM_FIN), &inflight);
	}

	for (i = 0; i < o->nurls; i++) {
		bytes += x[i].bytes;
		if (x[i].state == XFER_RUNNING)
			finish(p, &x[i], XFER_FAILED, &inflight);
		if (x[i].state != XFER_DONE) {
			fprintf(stderr, "quic-hq: %s: incomplete\n", o->urls[i].path);
			failed++;
		}
	}
	drain_events(fd, &ku, &st);
	session_save(fd, o, session, &st);
	if (o->token_file)
		token_save(fd, o->token_file);
	hq_close_code(fd, p);
	printf("quic-hq client: %d/%d files, %llu bytes, %.3f s, %d streams, "
	       "key updates: %u", o->nurls - failed, o->nurls,
	       (unsigned long long)bytes, hq_now() - t0, next, ku.events);
	if (o->key_update)
		printf(" (%u asked for)", ku.initiated);
	summary_session(o, session, &st);
	printf("\n");
	if (o->migrate && !mig.done && !mig.err)
		fprintf(stderr, "quic-hq: no migration: the transfer ended "
			"before %llu bytes\n", (unsigned long long)o->migrate);
	ret = failed || ku.err || (o->migrate && !mig.done) ? 1 : 0;
out:
	if (fd >= 0)
		close(fd);
	for (i = 0; i < o->nurls; i++) {
		if (x[i].state == XFER_RUNNING)
			p->stream_free(&x[i].st);
		if (x[i].out >= 0)
			close(x[i].out);
	}
	p->conn_free(&conn);
	free(x);
	if (session)
		gnutls_deinit(session);
	if (cred)
		gnutls_certificate_free_credentials(cred);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * TLS session resumption over kernel QUIC sockets (issue 14): a second
 * connection resumes with the ticket of the first, and the server's
 * certificate does not travel again: no Certificate message reaches the
 * client (a GnuTLS hook counts them) and the client receives fewer
 * Handshake-level CRYPTO bytes than in the full handshake, at least the
 * certificate's size fewer (counted on the step API's recvmsg calls).
 * With the session API on both sides, with quic_client_handshake() given
 * the session data by QUIC_SOCKOPT_SESSION_TICKET, and with
 * quic_server_handshake() issuing tickets with its listener's key.  Also
 * QUIC_EVENT_NEW_SESSION_TICKET (the event's message alone makes a
 * resumable session; no event unless it is on), QUIC_SOCKOPT_SESSION_TICKET
 * on a client (what it reads back before and after the handshake, its
 * limits) and on a server (a ticket of another key gives a full
 * handshake), and receive_session_ticket.
 */

#include "quic_conn.h"

#define RS_ALPN		"hq-interop"
#define RS_TICKET_MAX	4096	/* QUIC_SOCKOPT_SESSION_TICKET, quic(7) */

static char certdir[64];
static char cert_pem[96], key_pem[96];

/* A self-signed ECDSA certificate for localhost (clients here verify nothing). */
static int make_cert(void)
{
	char cmd[512];

	strcpy(certdir, "/tmp/quic-resume.XXXXXX");
	if (!mkdtemp(certdir))
		return -1;
	snprintf(cert_pem, sizeof(cert_pem), "%s/cert.pem", certdir);
	snprintf(key_pem, sizeof(key_pem), "%s/key.pem", certdir);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && (printf 'cn = localhost\\ndns_name = localhost\\n"
		 "tls_www_server\\nsigning_key\\nexpiration_days = 2\\n' > t && "
		 "certtool --generate-privkey --key-type=ecdsa --outfile key.pem && "
		 "certtool --generate-self-signed --load-privkey key.pem "
		 "--template t --outfile cert.pem) > gen.log 2>&1", certdir);
	return system(cmd) ? -1 : 0;
}

/* ---- one end of a connection ---- */

struct ep {
	/* set-up */
	int simple;			/* quic_{client,server}_handshake() */
	const gnutls_datum_t *data;	/* client: session data to resume with */
	int data_sockopt;		/* ... given by QUIC_SOCKOPT_SESSION_TICKET */
	const gnutls_datum_t *key;	/* server: ticket key (simple: the listener's) */
	int ticket_event;		/* client: QUIC_EVENT_NEW_SESSION_TICKET on */
	int receive_ticket;		/* client: receive_session_ticket */
	/* results */
	int fd, ret;
	gnutls_session_t session;
	gnutls_certificate_credentials_t cred;
	size_t in[QUIC_CRYPTO_MAX];	/* CRYPTO bytes received, per level */
	int certs;			/* Certificate messages in (client) / out */
	size_t cert_len;		/* the last one's size */
};

static int cert_hook(gnutls_session_t session, unsigned int htype,
		     unsigned int when, unsigned int incoming,
		     const gnutls_datum_t *msg)
{
	struct ep *e = gnutls_session_get_ptr(session);

	(void)htype;
	(void)when;
	(void)incoming;
	e->certs++;
	e->cert_len = msg->size;
	return 0;
}

static int ep_session(struct ep *e, int server)
{
	int ret;

	ret = gnutls_init(&e->session, (server ? GNUTLS_SERVER : GNUTLS_CLIENT) |
			  GNUTLS_NO_END_OF_EARLY_DATA);
	if (ret < 0)
		return ret;
	gnutls_session_set_ptr(e->session, e);
	gnutls_handshake_set_hook_function(e->session, GNUTLS_HANDSHAKE_CERTIFICATE_PKT,
					   GNUTLS_HOOK_POST, cert_hook);
	ret = gnutls_certificate_allocate_credentials(&e->cred);
	if (ret >= 0 && server)
		ret = gnutls_certificate_set_x509_key_file(e->cred, cert_pem, key_pem,
							   GNUTLS_X509_FMT_PEM);
	if (ret >= 0 && server)
		ret = gnutls_session_ticket_enable_server(e->session, e->key);
	if (ret >= 0)
		ret = gnutls_credentials_set(e->session, GNUTLS_CRD_CERTIFICATE, e->cred);
	if (ret >= 0)
		ret = gnutls_priority_set_direct(e->session, QUIC_PRIORITY, NULL);
	if (ret >= 0)
		ret = quic_session_set_alpn(e->session, RS_ALPN, strlen(RS_ALPN));
	if (ret >= 0 && !server && e->data)
		ret = quic_session_set_data(e->session, e->data->data, e->data->size);
	gnutls_transport_set_int(e->session, e->fd);
	return ret;
}

/* The level of a msghdr's QUIC_HANDSHAKE_INFO cmsg, or -1. */
static int msg_level(const struct msghdr *m)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR((struct msghdr *)m); c;
	     c = CMSG_NXTHDR((struct msghdr *)m, c))
		if (c->cmsg_level == SOL_QUIC && c->cmsg_type == QUIC_HANDSHAKE_INFO)
			return *(uint8_t *)CMSG_DATA(c);
	return -1;
}

/* The step API, counting the CRYPTO bytes received per level. */
static int ep_steps(struct ep *e)
{
	struct quic_handshake_step *step;
	int err, level;

	err = quic_handshake_init(e->session, &step);
	while (!err && step) {
		int out = step->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG;
		ssize_t n;

		if (!wait_poll(e->fd, out ? POLLOUT : POLLIN, TIMEO_SEC * 1000)) {
			err = -ETIMEDOUT;
			break;
		}
		if (out) {
			n = sendmsg(e->fd, step->s_sendmsg.msg, step->s_sendmsg.flags);
			step->s_sendmsg.retval = n;
		} else {
			n = recvmsg(e->fd, step->s_recvmsg.msg, step->s_recvmsg.flags);
			step->s_recvmsg.retval = n;
			level = n > 0 ? msg_level(step->s_recvmsg.msg) : -1;
			if (level >= 0 && level < QUIC_CRYPTO_MAX)
				e->in[level] += (size_t)n;
		}
		err = quic_handshake_step(e->session, &step);
	}
	quic_handshake_deinit(e->session);
	return err;
}

static void ep_handshake(struct ep *e, int server)
{
	if (e->simple && server) {
		e->ret = quic_server_handshake(e->fd, key_pem, cert_pem, RS_ALPN);
		return;
	}
	if (e->simple) {
		if (e->data && e->data_sockopt &&
		    setsockopt(e->fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET,
			       e->data->data, e->data->size)) {
			e->ret = -errno;
			return;
		}
		e->ret = quic_client_handshake(e->fd, NULL, NULL, RS_ALPN);
		return;
	}
	e->ret = ep_session(e, server);
	if (e->ret >= 0)
		e->ret = ep_steps(e);
}

struct rs_pair {
	struct ep cli, srv;
	int lfd;
};

static void *srv_main(void *arg)
{
	struct rs_pair *p = arg;

	p->srv.fd = accept(p->lfd, NULL, NULL);
	if (p->srv.fd < 0) {
		p->srv.ret = -errno;
		return NULL;
	}
	set_timeouts(p->srv.fd, TIMEO_SEC);
	ep_handshake(&p->srv, 1);
	return NULL;
}

/*
 * A connection on loopback with both handshakes done and a request and
 * answer carried over it.  Returns 0, or -1 after a failed CHECK (the
 * sockets are closed then).
 */
static int rs_connect(struct rs_pair *p, int family)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, 0, &ss);
	struct quic_event_option ev = { QUIC_EVENT_NEW_SESSION_TICKET, 1 };
	struct quic_config cfg = { .receive_session_ticket = 1 };
	pthread_t th;

	p->cli.fd = p->srv.fd = -1;
	p->lfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(p->lfd >= 0);
	CHECK_OK(set_timeouts(p->lfd, TIMEO_SEC));
	if (p->srv.simple && p->srv.key)
		CHECK_OK(setsockopt(p->lfd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET,
				    p->srv.key->data, p->srv.key->size));
	CHECK_OK(bind(p->lfd, (struct sockaddr *)&ss, len));
	CHECK_OK(listen(p->lfd, 4));
	CHECK_OK(getsockname(p->lfd, (struct sockaddr *)&ss, &len));
	p->cli.fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(p->cli.fd >= 0);
	CHECK_OK(set_timeouts(p->cli.fd, TIMEO_SEC));
	if (p->cli.ticket_event)
		CHECK_OK(setsockopt(p->cli.fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev,
				    sizeof(ev)));
	if (p->cli.receive_ticket)
		CHECK_OK(setsockopt(p->cli.fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg,
				    sizeof(cfg)));
	if (tap_failed_checks) {
		close(p->lfd);
		return -1;
	}
	pthread_create(&th, NULL, srv_main, p);
	CHECK_OK(connect(p->cli.fd, (struct sockaddr *)&ss, len));
	ep_handshake(&p->cli, 0);
	if (p->cli.ret) {	/* the server's handshake fails too */
		close(p->cli.fd);
		p->cli.fd = -1;
	}
	pthread_join(th, NULL);
	close(p->lfd);
	if (p->cli.ret || p->srv.ret) {
		printf("# handshake: client %d (%s), server %d (%s)\n",
		       p->cli.ret, strerror(-p->cli.ret), p->srv.ret,
		       strerror(-p->srv.ret));
		CHECK(!p->cli.ret && !p->srv.ret);
		return -1;
	}
	/* the keys work both ways */
	char buf[8];
	int64_t sid = -1;
	uint32_t flags = 0;

	CHECK(quic_sendmsg(p->cli.fd, "GET /\r\n", 7, -1,
			   MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN) == 7);
	CHECK(quic_recvmsg(p->srv.fd, buf, sizeof(buf), &sid, &flags) == 7);
	CHECK(quic_sendmsg(p->srv.fd, "ok", 2, sid, MSG_QUIC_STREAM_FIN) == 2);
	return tap_failed_checks ? -1 : 0;
}

/* @buf holds whole NewSessionTicket messages (type 4) only. */
static int is_tickets(const uint8_t *buf, size_t len)
{
	size_t off = 0;

	while (len && off + 4 <= len && buf[off] == 4)
		off += 4 + ((size_t)buf[off + 1] << 16 | (size_t)buf[off + 2] << 8 |
			    buf[off + 3]);
	return len && off == len;
}

/* QUIC_SOCKOPT_SESSION_TICKET of @fd once it holds tickets: their length. */
static int wait_tickets(int fd, uint8_t *buf, size_t cap)
{
	long long end = now_ms() + TIMEO_SEC * 1000;
	socklen_t len;

	do {
		len = (socklen_t)cap;
		if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, buf, &len))
			return -1;
		if (is_tickets(buf, len))
			return (int)len;
		sleep_ms(10);
	} while (now_ms() < end);
	return -1;
}

/* The client's session data after the server's ticket came. */
static int session_data(struct ep *cli, gnutls_datum_t *d)
{
	uint8_t t[RS_TICKET_MAX];
	size_t len = 0;

	if (wait_tickets(cli->fd, t, sizeof(t)) < 0 ||
	    quic_session_get_data(cli->session, NULL, &len) || !len)
		return -1;
	d->data = gnutls_malloc(len);
	d->size = (unsigned int)len;
	if (!d->data || quic_session_get_data(cli->session, d->data, &len))
		return -1;
	return 0;
}

static gnutls_datum_t tkey, tkey2;	/* ticket keys, made by main() */

/* A first connection to a server of @key: the session data to resume with. */
static int first_session(int family, int simple_srv, const gnutls_datum_t *key,
			 gnutls_datum_t *d, struct ep *full)
{
	struct rs_pair p;
	int ret = -1;

	memset(&p, 0, sizeof(p));
	p.srv.simple = simple_srv;
	p.srv.key = key;
	if (!rs_connect(&p, family)) {
		CHECK(!gnutls_session_is_resumed(p.cli.session));
		ret = session_data(&p.cli, d);
		CHECK(ret == 0);
		if (full) {
			*full = p.cli;
			full->session = NULL;	/* counts only */
		}
	}
	tls_pair_free(&p);
	return ret;
}

/* What a resumed client saw: no certificate, fewer Handshake bytes. */
static void check_no_cert(const struct ep *full, const struct ep *res)
{
	unsigned int n = 0;
	const gnutls_datum_t *peers;

	printf("# Handshake-level CRYPTO bytes to the client: full %zu "
	       "(Certificate %zu), resumed %zu\n", full->in[QUIC_CRYPTO_HANDSHAKE],
	       full->cert_len, res->in[QUIC_CRYPTO_HANDSHAKE]);
	CHECK(full->certs == 1 && full->cert_len > 100);
	CHECK(res->certs == 0);
	CHECK(res->in[QUIC_CRYPTO_HANDSHAKE] > 0);
	CHECK(res->in[QUIC_CRYPTO_HANDSHAKE] + full->cert_len <=
	      full->in[QUIC_CRYPTO_HANDSHAKE]);
	/* GnuTLS keeps the first connection's certificate in the session
	 * data: what the peer list says tells nothing of this handshake
	 */
	peers = gnutls_certificate_get_peers(res->session, &n);
	printf("# gnutls_certificate_get_peers on the resumed session: %u (%s)\n",
	       n, peers ? "from the session data" : "none");
}

/*
 * A first connection to a server of the ticket key tkey, then a second one
 * that resumes with its session data, its ends as @rc says; @rc->check
 * judges the second.
 */
struct resume_case {
	int srv1_simple;		/* the first connection's server */
	int cli_simple, srv_simple;	/* the second connection's ends */
	const gnutls_datum_t *key;	/* the second server's ticket key */
	void (*check)(const struct ep *full, const gnutls_datum_t *d,
		      struct rs_pair *p);
};

static void resume_run(int family, const struct resume_case *rc)
{
	gnutls_datum_t d = { NULL, 0 };
	struct ep full;
	struct rs_pair p;

	memset(&full, 0, sizeof(full));
	if (first_session(family, rc->srv1_simple, &tkey, &d, &full))
		goto out;
	memset(&p, 0, sizeof(p));
	p.cli.simple = rc->cli_simple;
	p.cli.data = &d;
	p.cli.data_sockopt = rc->cli_simple;
	p.srv.simple = rc->srv_simple;
	p.srv.key = rc->key;
	if (!rs_connect(&p, family))
		rc->check(&full, &d, &p);
	tls_pair_free(&p);
out:
	gnutls_free(d.data);
}

/* ---- tests ---- */

static void resumed_both(const struct ep *full, const gnutls_datum_t *d,
			 struct rs_pair *p)
{
	(void)d;
	CHECK(gnutls_session_is_resumed(p->cli.session));
	CHECK(gnutls_session_is_resumed(p->srv.session));
	check_no_cert(full, &p->cli);
	CHECK(p->srv.certs == 0);	/* the server sent none */
}

static void test_resume_session_api(int family)
{
	const struct resume_case rc = { 0, 0, 0, &tkey, resumed_both };

	resume_run(family, &rc);
}

/*
 * quic_client_handshake() resumes with session data set on the socket
 * (QUIC_SOCKOPT_SESSION_TICKET) before the handshake; the server (the
 * session API) sees a resumed session and sends no certificate.
 */
static void resumed_server(const struct ep *full, const gnutls_datum_t *d,
			   struct rs_pair *p)
{
	uint8_t t[RS_TICKET_MAX];

	(void)full;
	(void)d;
	CHECK(gnutls_session_is_resumed(p->srv.session));
	CHECK(p->srv.certs == 0);
	/* the data served: the socket now holds the new tickets */
	CHECK(wait_tickets(p->cli.fd, t, sizeof(t)) > 0);
}

static void test_resume_simple_client(int family)
{
	const struct resume_case rc = { 0, 1, 0, &tkey, resumed_server };

	resume_run(family, &rc);
}

/*
 * quic_server_handshake() issues tickets with its listener's key
 * (QUIC_SOCKOPT_SESSION_TICKET set on it): another listener with the same
 * key resumes them, without its certificate.
 */
static void resumed_client(const struct ep *full, const gnutls_datum_t *d,
			   struct rs_pair *p)
{
	(void)d;
	CHECK(gnutls_session_is_resumed(p->cli.session));
	check_no_cert(full, &p->cli);
}

static void test_resume_simple_server(int family)
{
	const struct resume_case rc = { 1, 0, 1, &tkey, resumed_client };

	resume_run(family, &rc);
}

/*
 * A server whose listener has another ticket key cannot read the ticket:
 * a full handshake, with the certificate, and the connection works.
 */
static void not_resumed(const struct ep *full, const gnutls_datum_t *d,
			struct rs_pair *p)
{
	(void)full;
	(void)d;
	CHECK(!gnutls_session_is_resumed(p->cli.session));
	CHECK(p->cli.certs == 1);
}

static void test_other_key_full(int family)
{
	const struct resume_case rc = { 1, 0, 1, &tkey2, not_resumed };

	resume_run(family, &rc);
}

/*
 * QUIC_EVENT_NEW_SESSION_TICKET, on: the event carries the server's
 * NewSessionTicket, the same bytes QUIC_SOCKOPT_SESSION_TICKET gives, and
 * that message alone, given to GnuTLS, makes session data that resumes.
 */
static void test_event_ticket_resumes(int family)
{
	uint8_t ev[RS_TICKET_MAX + 1], t[RS_TICKET_MAX];
	gnutls_datum_t d = { NULL, 0 };
	struct rs_pair p;
	int64_t sid = -1;
	uint32_t flags = 0;
	ssize_t n;
	int tl;

	memset(&p, 0, sizeof(p));
	p.cli.ticket_event = 1;
	p.srv.key = &tkey;
	if (rs_connect(&p, family))
		goto out;
	CHECK(wait_poll(p.cli.fd, POLLIN, TIMEO_SEC * 1000) & POLLIN);
	/* the answer "ok" may come first; the event is what we want */
	do {
		flags = 0;
		n = quic_recvmsg(p.cli.fd, ev, sizeof(ev), &sid, &flags);
	} while (n > 0 && !(flags & MSG_QUIC_NOTIFICATION));
	CHECK(n > 5 && (flags & MSG_QUIC_NOTIFICATION) &&
	      ev[0] == QUIC_EVENT_NEW_SESSION_TICKET);
	if (tap_failed_checks)
		goto out;
	CHECK(is_tickets(ev + 1, (size_t)n - 1));
	tl = wait_tickets(p.cli.fd, t, sizeof(t));
	CHECK(tl >= n - 1 && !memcmp(t, ev + 1, (size_t)n - 1));
	CHECK(gnutls_handshake_write(p.cli.session, GNUTLS_ENCRYPTION_LEVEL_APPLICATION,
				     ev + 1, (size_t)n - 1) == 0);
	CHECK(gnutls_session_get_data2(p.cli.session, &d) == 0);
	tls_pair_free(&p);
	if (tap_failed_checks)
		goto out;

	memset(&p, 0, sizeof(p));
	p.cli.data = &d;
	p.srv.key = &tkey;
	if (!rs_connect(&p, family)) {
		CHECK(gnutls_session_is_resumed(p.cli.session));
		CHECK(gnutls_session_is_resumed(p.srv.session));
		CHECK(p.cli.certs == 0);
	}
out:
	tls_pair_free(&p);
	gnutls_free(d.data);
}

/* QUIC_EVENT_NEW_SESSION_TICKET off (the default): the ticket comes, no event. */
static void test_no_event_unless_on(int family)
{
	uint8_t buf[RS_TICKET_MAX];
	struct rs_pair p;
	int64_t sid = -1;
	uint32_t flags;
	ssize_t n;

	memset(&p, 0, sizeof(p));
	p.srv.key = &tkey;
	if (rs_connect(&p, family))
		goto out;
	CHECK(wait_tickets(p.cli.fd, buf, sizeof(buf)) > 0);
	/* the server's answer, then nothing: no notification queued */
	for (;;) {
		flags = MSG_DONTWAIT;
		n = quic_recvmsg(p.cli.fd, buf, sizeof(buf), &sid, &flags);
		if (n < 0)
			break;
		CHECK(!(flags & MSG_QUIC_NOTIFICATION));
	}
	CHECK(errno == EAGAIN);
out:
	tls_pair_free(&p);
}

/*
 * QUIC_SOCKOPT_SESSION_TICKET on a client: the session data set reads back
 * until the handshake; afterwards the option gives the server's
 * NewSessionTicket messages instead.  More than 4096 bytes, or a get into
 * a buffer too short for what it holds: EINVAL.
 */
static void new_tickets(const struct ep *full, const gnutls_datum_t *d,
			struct rs_pair *p)
{
	uint8_t buf[RS_TICKET_MAX];
	int n = wait_tickets(p->cli.fd, buf, sizeof(buf));

	(void)full;
	CHECK(n > 0 && ((size_t)n != d->size || memcmp(buf, d->data, d->size)));
}

static void test_client_sockopt(int family)
{
	const struct resume_case rc = { 0, 1, 0, &tkey, new_tickets };
	uint8_t big[RS_TICKET_MAX + 1], buf[RS_TICKET_MAX];
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;

	/* before the handshake: what was set */
	fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(fd >= 0);
	len = sizeof(buf);
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, buf, &len));
	CHECK(len == 0);
	memset(big, 0xab, sizeof(big));
	CHECK_OK(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, big, 300));
	len = sizeof(buf);
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, buf, &len));
	CHECK(len == 300 && !memcmp(buf, big, 300));
	len = 299;
	CHECK_ERR(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, buf, &len),
		  EINVAL);
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, big,
			     sizeof(big)), EINVAL);
	/* after connect(), still */
	loopback_addr(family, 9, &ss);
	CHECK_OK(connect(fd, (struct sockaddr *)&ss,
			 family == AF_INET ? sizeof(struct sockaddr_in) :
			 sizeof(struct sockaddr_in6)));
	CHECK_OK(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, big, 100));
	len = sizeof(buf);
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, buf, &len));
	CHECK(len == 100);
	close(fd);

	/* a resumed connection's socket: the new tickets, not the data */
	resume_run(family, &rc);
}

/*
 * receive_session_ticket: quic_client_handshake() returns only once the
 * ticket is there, so QUIC_SOCKOPT_SESSION_TICKET has it at once.
 */
static void test_receive_session_ticket(int family)
{
	uint8_t buf[RS_TICKET_MAX];
	socklen_t len = sizeof(buf);
	struct rs_pair p;

	memset(&p, 0, sizeof(p));
	p.cli.simple = 1;
	p.cli.receive_ticket = 1;
	p.srv.simple = 1;
	p.srv.key = &tkey;
	if (!rs_connect(&p, family)) {
		CHECK_OK(getsockopt(p.cli.fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET,
				    buf, &len));
		CHECK(is_tickets(buf, len));
	}
	tls_pair_free(&p);
}

static const struct conn_test tests[] = {
	{ "session API: resumed on both sides, no Certificate, fewer CRYPTO bytes",
	  test_resume_session_api, FAM_BOTH },
	{ "quic_client_handshake resumes with QUIC_SOCKOPT_SESSION_TICKET data",
	  test_resume_simple_client, FAM_BOTH },
	{ "quic_server_handshake's tickets (listener key) resume without Certificate",
	  test_resume_simple_server, FAM_BOTH },
	{ "a ticket of another server key: full handshake, connection works",
	  test_other_key_full, 0 },
	{ "QUIC_EVENT_NEW_SESSION_TICKET: its message alone resumes",
	  test_event_ticket_resumes, 0 },
	{ "QUIC_EVENT_NEW_SESSION_TICKET off: ticket kept, no event",
	  test_no_event_unless_on, 0 },
	{ "QUIC_SOCKOPT_SESSION_TICKET on a client: data, then tickets; limits",
	  test_client_sockopt, FAM_BOTH },
	{ "receive_session_ticket: quic_client_handshake returns with the ticket",
	  test_receive_session_ticket, 0 },
};

int main(void)
{
	char cmd[128];
	int ret;

	if (make_cert() || gnutls_session_ticket_key_generate(&tkey) ||
	    gnutls_session_ticket_key_generate(&tkey2)) {
		printf("TAP version 13\n1..1\nnot ok 1 - certificate (certtool) and ticket keys\n");
		return 1;
	}
	ret = conn_tests_main(tests, sizeof(tests) / sizeof(tests[0]));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", certdir);
	if (system(cmd))
		ret = ret ? ret : 1;
	return ret;
}

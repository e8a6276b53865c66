// SPDX-License-Identifier: GPL-2.0
/*
 * libquic over real kernel sockets on loopback, with certificates made at
 * start with certtool: mutual TLS accepted and refused through
 * quic_server_handshake() and the socket's certificate_request, the
 * QUIC_CA_FILE environment variable, quic_client_handshake() with a NULL
 * host name, payload_cipher_type pinning each of the four ciphers (the
 * connection then carries data, so quic.ko protects packets with it),
 * receive_session_ticket and a resumed second connection, and the step API
 * driven by the caller's own poll/sendmsg/recvmsg.
 *
 * The libquic unit tests (libquic/tests) check the same against a fake
 * kernel, in detail; this is the proof that the real module agrees.
 */

#include "quic_conn.h"

#include <linux/tls.h>

#define HQ_ALPN		"hq-interop"

static char dir[64];		/* certificates, made by main() */

static const char *cert(const char *name)
{
	static char buf[8][128];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/*
 * A CA and another CA; a server certificate for localhost and a client
 * certificate of the CA, and a client certificate of the other CA.
 */
static const char gen_script[] =
	"set -e; cd \"$1\"\n"
	"key() { certtool --generate-privkey --key-type=ecdsa --curve=secp256r1 --outfile $1.key; }\n"
	"ca() { key $1; printf 'cn = \"%s\"\\nca\\ncert_signing_key\\nexpiration_days = 2\\n' \"$2\" > $1.tmpl;\n"
	"  certtool --generate-self-signed --load-privkey $1.key --template $1.tmpl --outfile $1.pem; }\n"
	"issue() { key $1; printf \"$3\"'signing_key\\nexpiration_days = 2\\n' > $1.tmpl;\n"
	"  certtool --generate-certificate --load-privkey $1.key --load-ca-certificate $2.pem\\\n"
	"    --load-ca-privkey $2.key --template $1.tmpl --outfile $1.pem; }\n"
	"ca ca 'selftest CA'; ca other-ca 'selftest other CA'\n"
	"issue server ca 'cn = \"localhost\"\\ndns_name = \"localhost\"\\ntls_www_server\\n'\n"
	"issue client ca 'cn = \"selftest client\"\\ntls_www_client\\n'\n"
	"issue other-client other-ca 'cn = \"other client\"\\ntls_www_client\\n'\n";

static int make_certs(void)
{
	char cmd[sizeof(gen_script) + 128];
	FILE *p;
	int ret;

	strcpy(dir, "/tmp/quic-certs.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(cmd, sizeof(cmd), "sh -s '%s' >'%s/gen.log' 2>&1", dir, dir);
	p = popen(cmd, "w");
	if (!p)
		return -1;
	fputs(gen_script, p);
	ret = pclose(p);
	if (ret) {
		snprintf(cmd, sizeof(cmd), "sed 's/^/# /' '%s/gen.log'", dir);
		ret = system(cmd);
		return -1;
	}
	return 0;
}

/* ---- one connection, each side as a test wants it ---- */

enum hs_how {
	HS_SIMPLE,	/* quic_client_handshake() / quic_server_handshake() */
	HS_SESSION,	/* own gnutls session, quic_handshake() */
	HS_STEP,	/* own gnutls session, the step API with our own I/O */
};

struct hs_side {
	enum hs_how how;
	const char *host;		/* client: the host name (or NULL) */
	const char *ccert;		/* client, own session: its certificate */
	const char *ca;			/* client, own session: verify with it */
	const void *data;		/* client, own session: session data */
	size_t data_len;
	const gnutls_datum_t *tkey;	/* server, own session: ticket key */
	const gnutls_datum_t *lkey;	/* server: the listener's ticket key */
	struct quic_config cfg;		/* client: set before connect(); */
	int set_cfg;			/* server: on the listener */
	/* results */
	int ret;
	int fd;
	gnutls_session_t session;	/* own session, kept */
	gnutls_certificate_credentials_t cred;
};

struct hs_pair {
	struct hs_side cli, srv;
	int lfd;
};

/* A session of our own, certificate mode, with QUIC_PRIORITY. */
static int own_session(struct hs_side *sd, int server)
{
	int ret;

	ret = gnutls_init(&sd->session, (server ? GNUTLS_SERVER : GNUTLS_CLIENT) |
			  GNUTLS_NO_END_OF_EARLY_DATA);
	if (ret < 0)
		return ret;
	ret = gnutls_certificate_allocate_credentials(&sd->cred);
	if (ret >= 0 && server)
		ret = gnutls_certificate_set_x509_key_file(sd->cred, cert("server.pem"),
							   cert("server.key"),
							   GNUTLS_X509_FMT_PEM);
	if (ret >= 0 && server && sd->tkey)
		ret = gnutls_session_ticket_enable_server(sd->session, sd->tkey);
	if (ret >= 0 && !server && sd->ccert) {
		char key[128];

		snprintf(key, sizeof(key), "%.*s.key",
			 (int)(strlen(sd->ccert) - 4), sd->ccert);
		ret = gnutls_certificate_set_x509_key_file(sd->cred, sd->ccert, key,
							   GNUTLS_X509_FMT_PEM);
	}
	if (ret >= 0 && !server && sd->ca) {
		ret = gnutls_certificate_set_x509_trust_file(sd->cred, sd->ca,
							     GNUTLS_X509_FMT_PEM);
		if (ret >= 0)
			gnutls_session_set_verify_cert(sd->session, "localhost", 0);
	}
	if (ret >= 0)
		ret = gnutls_credentials_set(sd->session, GNUTLS_CRD_CERTIFICATE,
					     sd->cred);
	if (ret >= 0)
		ret = gnutls_priority_set_direct(sd->session, QUIC_PRIORITY, NULL);
	if (ret >= 0)
		ret = quic_session_set_alpn(sd->session, HQ_ALPN, strlen(HQ_ALPN));
	if (ret >= 0 && sd->data)
		ret = quic_session_set_data(sd->session, sd->data, sd->data_len);
	if (ret < 0)
		printf("# own session set-up failed: %d\n", ret);
	gnutls_transport_set_int(sd->session, sd->fd);
	return ret < 0 ? -EINVAL : 0;
}

/* The step API as an event loop would drive it: poll, then the call. */
static int step_loop(gnutls_session_t session, int fd)
{
	struct quic_handshake_step *step;
	int err, rounds = 0;

	err = quic_handshake_init(session, &step);
	while (!err && step && rounds++ < 100000) {
		struct pollfd pfd = { .fd = fd };

		if (step->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG) {
			pfd.events = POLLOUT;
			if (poll(&pfd, 1, TIMEO_SEC * 1000) != 1)
				err = -ETIMEDOUT;
			else
				step->s_sendmsg.retval = sendmsg(fd, step->s_sendmsg.msg,
								 step->s_sendmsg.flags);
		} else {
			pfd.events = POLLIN;
			if (poll(&pfd, 1, TIMEO_SEC * 1000) != 1)
				err = -ETIMEDOUT;
			else
				step->s_recvmsg.retval = recvmsg(fd, step->s_recvmsg.msg,
								 step->s_recvmsg.flags);
		}
		if (!err)
			err = quic_handshake_step(session, &step);
	}
	quic_handshake_deinit(session);
	return err;
}

static void side_handshake(struct hs_side *sd, int server)
{
	if (sd->how == HS_SIMPLE) {
		if (server)
			sd->ret = quic_server_handshake(sd->fd, cert("server.key"),
							cert("server.pem"), HQ_ALPN);
		else
			sd->ret = quic_client_handshake(sd->fd, NULL, sd->host, HQ_ALPN);
		return;
	}
	sd->ret = own_session(sd, server);
	if (sd->ret)
		return;
	if (sd->how == HS_STEP)
		sd->ret = step_loop(sd->session, sd->fd);
	else
		sd->ret = quic_handshake(sd->session);
}

static void *srv_thread(void *arg)
{
	struct hs_pair *p = arg;

	p->srv.fd = accept(p->lfd, NULL, NULL);
	if (p->srv.fd < 0) {
		p->srv.ret = -errno;
		return NULL;
	}
	set_timeouts(p->srv.fd, TIMEO_SEC);
	side_handshake(&p->srv, 1);
	if (p->srv.ret) {		/* send the CONNECTION_CLOSE it set */
		close(p->srv.fd);
		p->srv.fd = -1;
	}
	return NULL;
}

/* Connect, both handshakes; 0 when the socket calls worked (see ret). */
static int pair_run(struct hs_pair *p, int family)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, 0, &ss);
	pthread_t th;

	p->cli.fd = p->srv.fd = -1;
	p->lfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(p->lfd >= 0);
	if (p->lfd < 0)
		return -1;
	CHECK_OK(set_timeouts(p->lfd, TIMEO_SEC));
	if (p->srv.set_cfg)
		CHECK_OK(setsockopt(p->lfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG,
				    &p->srv.cfg, sizeof(p->srv.cfg)));
	if (p->srv.lkey)
		CHECK_OK(setsockopt(p->lfd, SOL_QUIC,
				    QUIC_SOCKOPT_SESSION_TICKET,
				    p->srv.lkey->data, p->srv.lkey->size));
	CHECK_OK(bind(p->lfd, (struct sockaddr *)&ss, len));
	CHECK_OK(listen(p->lfd, 8));
	CHECK_OK(getsockname(p->lfd, (struct sockaddr *)&ss, &len));
	p->cli.fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(p->cli.fd >= 0);
	CHECK_OK(set_timeouts(p->cli.fd, TIMEO_SEC));
	if (p->cli.set_cfg)
		CHECK_OK(setsockopt(p->cli.fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG,
				    &p->cli.cfg, sizeof(p->cli.cfg)));
	if (tap_failed_checks)
		return -1;
	pthread_create(&th, NULL, srv_thread, p);
	CHECK_OK(connect(p->cli.fd, (struct sockaddr *)&ss, len));
	side_handshake(&p->cli, 0);
	if (p->cli.ret) {	/* send the CONNECTION_CLOSE it set */
		close(p->cli.fd);
		p->cli.fd = -1;
	}
	pthread_join(th, NULL);
	close(p->lfd);
	if (p->cli.ret || p->srv.ret)
		printf("# handshake: client %d (%s), server %d (%s)\n",
		       p->cli.ret, strerror(-p->cli.ret), p->srv.ret,
		       strerror(-p->srv.ret));
	return tap_failed_checks ? -1 : 0;
}

/* The connection carries data both ways (with the keys just installed). */
static void check_data(struct hs_pair *p)
{
	char buf[64];
	int64_t sid = -2;
	uint32_t flags = 0;
	ssize_t n;

	CHECK(quic_sendmsg(p->cli.fd, "ping", 4, -1,
			   MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN) == 4);
	n = quic_recvmsg(p->srv.fd, buf, sizeof(buf), &sid, &flags);
	CHECK(n == 4 && !memcmp(buf, "ping", 4) && sid == 0 &&
	      (flags & MSG_QUIC_STREAM_FIN));
	CHECK(quic_sendmsg(p->srv.fd, "pong", 4, 0, MSG_QUIC_STREAM_FIN) == 4);
	skip_hs_msgs(p->cli.fd);
	flags = 0;
	n = quic_recvmsg(p->cli.fd, buf, sizeof(buf), &sid, &flags);
	CHECK(n == 4 && !memcmp(buf, "pong", 4) && sid == 0 &&
	      (flags & MSG_QUIC_STREAM_FIN));
}

/*
 * A server that refused the client's certificate: in TLS 1.3 the client
 * completed first; its next read fails with ECONNRESET and the server's
 * CONNECTION_CLOSE carries CRYPTO_ERROR + @alert.
 */
static void check_refused(struct hs_pair *p, int alert)
{
	struct quic_connection_close cc;
	socklen_t len = sizeof(cc);
	char buf[16];
	int64_t sid;
	uint32_t flags = 0;

	CHECK(p->srv.ret == -EKEYREJECTED);
	if (p->cli.ret) {	/* the close may beat the client's return */
		CHECK(p->cli.ret == -ECONNRESET);
		return;
	}
	CHECK_ERR(quic_recvmsg(p->cli.fd, buf, sizeof(buf), &sid, &flags),
		  ECONNRESET);
	memset(&cc, 0, sizeof(cc));
	CHECK_OK(getsockopt(p->cli.fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE,
			    &cc, &len));
	if (cc.errcode != QUIC_TRANSPORT_ERROR_CRYPTO + (uint32_t)alert)
		printf("# close errcode 0x%x, want 0x%x\n", cc.errcode,
		       QUIC_TRANSPORT_ERROR_CRYPTO + alert);
	CHECK(cc.errcode == QUIC_TRANSPORT_ERROR_CRYPTO + (uint32_t)alert);
}

static void mtls_pair(struct hs_pair *p, int request, const char *ccert)
{
	memset(p, 0, sizeof(*p));
	p->srv.how = HS_SIMPLE;
	p->srv.cfg.certificate_request = request;
	p->srv.set_cfg = 1;
	p->cli.how = HS_SESSION;
	p->cli.ca = cert("ca.pem");
	p->cli.ccert = ccert;
}

/* ---- tests ---- */

/*
 * Run @p, which must succeed and carry data; @requested: the client must
 * have been asked for a certificate.
 */
static void pair_ok(struct hs_pair *p, int family, int requested)
{
	if (pair_run(p, family))
		goto out;
	CHECK(p->cli.ret == 0 && p->srv.ret == 0);
	if (p->cli.ret || p->srv.ret)
		goto out;
	if (requested)
		CHECK(gnutls_certificate_client_get_request_status(p->cli.session) == 1);
	check_data(p);
out:
	tls_pair_free(p);
}

static void test_mtls_accepted(int family)
{
	struct hs_pair p;

	setenv("QUIC_CA_FILE", cert("ca.pem"), 1);
	mtls_pair(&p, 2, cert("client.pem"));
	pair_ok(&p, family, 1);
}

static void test_mtls_request_optional(int family)
{
	struct hs_pair p;

	setenv("QUIC_CA_FILE", cert("ca.pem"), 1);
	mtls_pair(&p, 1, NULL);
	pair_ok(&p, family, 1);
}

static void test_mtls_missing(int family)
{
	struct hs_pair p;

	setenv("QUIC_CA_FILE", cert("ca.pem"), 1);
	mtls_pair(&p, 2, NULL);
	if (!pair_run(&p, family))
		check_refused(&p, GNUTLS_A_CERTIFICATE_REQUIRED);
	tls_pair_free(&p);
}

static void test_mtls_untrusted(int family)
{
	struct hs_pair p;

	/* no CA names in the CertificateRequest without QUIC_CA_FILE, so
	 * the client sends its certificate; the system store lacks its CA
	 */
	unsetenv("QUIC_CA_FILE");
	mtls_pair(&p, 2, cert("other-client.pem"));
	if (!pair_run(&p, family))
		check_refused(&p, GNUTLS_A_UNKNOWN_CA);
	tls_pair_free(&p);
}

static void test_null_hostname(int family)
{
	struct hs_pair p;

	unsetenv("QUIC_CA_FILE");
	memset(&p, 0, sizeof(p));
	p.cli.host = NULL;	/* no SNI, no name, no chain check */
	p.srv.how = HS_SESSION;
	if (pair_run(&p, family))
		goto out;
	CHECK(p.cli.ret == 0 && p.srv.ret == 0);
	if (!p.cli.ret && !p.srv.ret) {
		char name[256];
		size_t len = sizeof(name);
		unsigned int type;

		CHECK(gnutls_server_name_get(p.srv.session, name, &len, &type, 0) ==
		      GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE);
		check_data(&p);
	}
out:
	tls_pair_free(&p);
}

static void test_ca_file_client(int family)
{
	struct hs_pair p;

	/* the right CA and name */
	setenv("QUIC_CA_FILE", cert("ca.pem"), 1);
	memset(&p, 0, sizeof(p));
	p.cli.host = "localhost";
	if (!pair_run(&p, family))
		CHECK(p.cli.ret == 0 && p.srv.ret == 0);
	tls_pair_free(&p);

	/* another CA: the chain fails, with or without a host name */
	setenv("QUIC_CA_FILE", cert("other-ca.pem"), 1);
	memset(&p, 0, sizeof(p));
	if (!pair_run(&p, family))
		CHECK(p.cli.ret == -EKEYREJECTED && p.srv.ret < 0);
	tls_pair_free(&p);
	memset(&p, 0, sizeof(p));
	p.cli.host = "localhost";
	if (!pair_run(&p, family))
		CHECK(p.cli.ret == -EKEYREJECTED && p.srv.ret < 0);
	tls_pair_free(&p);
}

static const struct {
	uint32_t type;
	gnutls_cipher_algorithm_t cipher;
	const char *name;
} ciphers[] = {
	{ TLS_CIPHER_AES_GCM_128, GNUTLS_CIPHER_AES_128_GCM, "AES-128-GCM" },
	{ TLS_CIPHER_AES_GCM_256, GNUTLS_CIPHER_AES_256_GCM, "AES-256-GCM" },
	{ TLS_CIPHER_CHACHA20_POLY1305, GNUTLS_CIPHER_CHACHA20_POLY1305,
	  "CHACHA20-POLY1305" },
	{ TLS_CIPHER_AES_CCM_128, GNUTLS_CIPHER_AES_128_CCM, "AES-128-CCM" },
};

/*
 * payload_cipher_type on one side's socket, quic_client_handshake() or
 * quic_server_handshake() there; the other side offers QUIC_PRIORITY (all
 * four): the pinned cipher is the one negotiated, and data flows.
 */
static void test_cipher_pinned(int family)
{
	size_t i;
	int server;

	unsetenv("QUIC_CA_FILE");
	for (i = 0; i < sizeof(ciphers) / sizeof(ciphers[0]); i++) {
		for (server = 0; server < 2; server++) {
			struct hs_pair p;
			struct hs_side *pinned, *other;
			gnutls_cipher_algorithm_t got;

			memset(&p, 0, sizeof(p));
			pinned = server ? &p.srv : &p.cli;
			other = server ? &p.cli : &p.srv;
			pinned->how = HS_SIMPLE;
			pinned->cfg.payload_cipher_type = ciphers[i].type;
			pinned->set_cfg = 1;
			other->how = HS_SESSION;
			other->ca = cert("ca.pem");
			p.cli.host = NULL;
			if (pair_run(&p, family)) {
				tls_pair_free(&p);
				return;
			}
			got = other->session ? gnutls_cipher_get(other->session) :
			      GNUTLS_CIPHER_UNKNOWN;
			printf("# %s pinned on the %s: %s negotiated\n",
			       ciphers[i].name, server ? "server" : "client",
			       gnutls_cipher_get_name(got) ?: "none");
			CHECK(p.cli.ret == 0 && p.srv.ret == 0 &&
			      got == ciphers[i].cipher);
			if (!p.cli.ret && !p.srv.ret)
				check_data(&p);
			tls_pair_free(&p);
		}
	}
}

/*
 * receive_session_ticket: quic_handshake() returns with the ticket; the
 * session data then resumes a second connection, on both sides.  @simple:
 * the server is quic_server_handshake() (its tickets, with the socket's
 * ticket key or libquic's), else our own session.  Each round has a
 * listener of its own, so in @simple mode both get one ticket key with
 * QUIC_SOCKOPT_SESSION_TICKET, as servers sharing tickets do: a kernel
 * that makes a key per listener would otherwise give each its own.
 */
static void resume(int family, int simple)
{
	unsigned char data[8192];
	size_t len = sizeof(data);
	gnutls_datum_t tkey = { NULL, 0 };
	struct hs_pair p;
	int round;

	unsetenv("QUIC_CA_FILE");
	CHECK(gnutls_session_ticket_key_generate(&tkey) == 0);
	for (round = 0; round < 2; round++) {
		memset(&p, 0, sizeof(p));
		p.cli.how = HS_SESSION;
		p.cli.ca = cert("ca.pem");
		p.cli.cfg.receive_session_ticket = 1;
		p.cli.set_cfg = 1;
		p.srv.how = simple ? HS_SIMPLE : HS_SESSION;
		if (simple)
			p.srv.lkey = &tkey;
		else
			p.srv.tkey = &tkey;
		if (round) {
			p.cli.data = data;
			p.cli.data_len = len;
		}
		if (pair_run(&p, family))
			break;
		CHECK(p.cli.ret == 0 && p.srv.ret == 0);
		if (p.cli.ret || p.srv.ret)
			break;
		CHECK(gnutls_session_is_resumed(p.cli.session) == round);
		if (!simple)
			CHECK(gnutls_session_is_resumed(p.srv.session) == round);
		if (!round) {
			int ret = quic_session_get_data(p.cli.session, data, &len);

			printf("# session data: %zu bytes (%d)\n", len, ret);
			CHECK(ret == 0 && len > 0);
		}
		check_data(&p);
		tls_pair_free(&p);
	}
	tls_pair_free(&p);
	gnutls_free(tkey.data);
}

static void test_resume_own(int family) { resume(family, 0); }
static void test_resume_simple(int family) { resume(family, 1); }

static void test_step_api(int family)
{
	struct hs_pair p;

	unsetenv("QUIC_CA_FILE");
	memset(&p, 0, sizeof(p));
	p.cli.how = HS_STEP;
	p.cli.ca = cert("ca.pem");
	pair_ok(&p, family, 0);
}

static void test_step_api_server(int family)
{
	struct hs_pair p;

	unsetenv("QUIC_CA_FILE");
	memset(&p, 0, sizeof(p));
	p.srv.how = HS_STEP;
	pair_ok(&p, family, 0);
}

static const struct conn_test tests[] = {
	{ "mutual TLS: a required client certificate of QUIC_CA_FILE's CA is accepted",
	  test_mtls_accepted, FAM_BOTH },
	{ "mutual TLS: certificate_request 1, a client without one is accepted",
	  test_mtls_request_optional, 0 },
	{ "mutual TLS: certificate_request 2, a client without one is refused",
	  test_mtls_missing, FAM_BOTH },
	{ "mutual TLS: a client certificate of an unknown CA is refused",
	  test_mtls_untrusted, 0 },
	{ "quic_client_handshake with a NULL host name: no SNI, no verification",
	  test_null_hostname, FAM_BOTH },
	{ "QUIC_CA_FILE: the client verifies against that CA", test_ca_file_client, 0 },
	{ "payload_cipher_type pins each of the four ciphers, on either side",
	  test_cipher_pinned, 0 },
	{ "receive_session_ticket, then a resumed connection (both sides)",
	  test_resume_own, 0 },
	{ "quic_server_handshake's tickets resume a second connection",
	  test_resume_simple, 0 },
	{ "step API client with its own poll/sendmsg/recvmsg", test_step_api, FAM_BOTH },
	{ "step API server with its own poll/sendmsg/recvmsg", test_step_api_server, 0 },
};

int main(void)
{
	char cmd[128];
	int ret;

	if (make_certs()) {
		printf("TAP version 13\n1..1\nnot ok 1 - making certificates with certtool\n");
		return 1;
	}
	ret = conn_tests_main(tests, sizeof(tests) / sizeof(tests[0]));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		ret = ret ? ret : 1;
	return ret;
}

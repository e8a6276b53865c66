// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libquic handshake tests against the fake kernel (fake_kernel.c), TAP.
 *
 *	handshake_test DIR
 *
 * DIR holds the files tests/run.sh generates: ca.pem, server.pem,
 * server.key (CN/SAN localhost, signed by ca), other-ca.pem (an unrelated
 * CA), psk.txt and psk-wrong.txt (same identity, other key).
 */

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/tls.h>

#include "fake_kernel.h"
#include "step_msg.h"

static const char *dir;
static int test_no, failures;

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	test_no++;
	if (!cond)
		failures++;
	printf("%sok %d - ", cond ? "" : "not ", test_no);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static char *path(const char *name)
{
	static char buf[8][512];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* ---- one side of a connection ---- */

enum side_mode {
	MODE_WRAPPER,	/* quic_client_handshake / quic_server_handshake */
	MODE_SESSION,	/* own gnutls session + quic_handshake() */
	MODE_NONE,	/* nobody on this side */
};

struct side {
	enum side_mode mode;
	int server;
	int fd;
	/* wrapper and session mode */
	const char *psk;		/* PSK file */
	const char *host;
	const char *alpns;
	const char *cert, *key;
	/* session mode */
	const char *ca;			/* trust file (client) */
	const char *priority;
	const void *data;		/* session data (client) */
	size_t data_len;
	int keep_session;		/* leave session for the caller */
	const char *ccert, *ckey;	/* client certificate (session mode) */
	int no_tickets;			/* server: GNUTLS_NO_TICKETS */
	int early_hello;		/* server: quic_handshake_early_hello() */
	/* results */
	int ret;
	size_t ticket_len;		/* client: SESSION_TICKET at return */
	int resumed;
	gnutls_cipher_algorithm_t cipher;
	gnutls_group_t group;
	char alpn[64];
	gnutls_session_t session;
	gnutls_certificate_credentials_t xcred;
};

/* What the kernel holds for QUIC_SOCKOPT_SESSION_TICKET right now. */
static size_t ticket_now(int fd)
{
	uint8_t buf[8192];
	socklen_t len = sizeof(buf);

	return getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, buf, &len) ?
	       0 : len;
}

static void *side_run(void *arg)
{
	struct side *sd = arg;
	gnutls_session_t session;
	size_t len;
	int ret;

	if (sd->mode == MODE_WRAPPER) {
		if (sd->server)
			sd->ret = quic_server_handshake(sd->fd, sd->psk ? sd->psk : sd->key,
							sd->psk ? NULL : sd->cert, sd->alpns);
		else
			sd->ret = quic_client_handshake(sd->fd, sd->psk, sd->host, sd->alpns);
		if (!sd->server)
			sd->ticket_len = ticket_now(sd->fd);
		return NULL;
	}

	ret = gnutls_init(&session, (sd->server ? GNUTLS_SERVER : GNUTLS_CLIENT) |
			  GNUTLS_NO_END_OF_EARLY_DATA |
			  (sd->no_tickets ? GNUTLS_NO_TICKETS : 0));
	if (ret < 0)
		goto fail;
	gnutls_certificate_allocate_credentials(&sd->xcred);
	if (sd->server) {
		ret = gnutls_certificate_set_x509_key_file(sd->xcred, sd->cert, sd->key,
							   GNUTLS_X509_FMT_PEM);
	} else {
		ret = gnutls_certificate_set_x509_trust_file(sd->xcred, sd->ca,
							     GNUTLS_X509_FMT_PEM);
		if (ret >= 0 && sd->ccert)
			ret = gnutls_certificate_set_x509_key_file(sd->xcred, sd->ccert,
								   sd->ckey,
								   GNUTLS_X509_FMT_PEM);
		if (ret >= 0)
			gnutls_session_set_verify_cert(session, sd->host, 0);
		if (ret >= 0 && sd->host)
			ret = gnutls_server_name_set(session, GNUTLS_NAME_DNS, sd->host,
						     strlen(sd->host));
	}
	if (ret >= 0)
		ret = gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, sd->xcred);
	if (ret >= 0)
		ret = gnutls_priority_set_direct(session, sd->priority ? sd->priority :
						 QUIC_PRIORITY, NULL);
	if (ret < 0)
		goto fail;
	if (sd->alpns && quic_session_set_alpn(session, sd->alpns, strlen(sd->alpns)))
		goto fail;
	if (sd->data && quic_session_set_data(session, sd->data, sd->data_len))
		goto fail;
	gnutls_transport_set_int(session, sd->fd);
	if (sd->early_hello && quic_handshake_early_hello(session))
		goto fail;
	sd->ret = quic_handshake(session);
	if (!sd->server)
		sd->ticket_len = ticket_now(sd->fd);
	sd->resumed = gnutls_session_is_resumed(session);
	sd->cipher = gnutls_cipher_get(session);
	sd->group = gnutls_group_get(session);
	len = sizeof(sd->alpn);
	if (quic_session_get_alpn(session, sd->alpn, &len))
		sd->alpn[0] = 0;
	if (sd->keep_session) {
		sd->session = session;
		return NULL;
	}
	gnutls_deinit(session);
	gnutls_certificate_free_credentials(sd->xcred);
	return NULL;
fail:
	diag("side setup failed: %s", gnutls_strerror(ret));
	sd->ret = -1000;
	return NULL;
}

static void side_free(struct side *sd)
{
	if (sd->session)
		gnutls_deinit(sd->session);
	if (sd->xcred && sd->session)
		gnutls_certificate_free_credentials(sd->xcred);
	sd->session = NULL;
}

struct conn {
	struct fk_sock *c, *s;
	struct side cli, srv;
	struct quic_config ccfg, scfg;	/* QUIC_SOCKOPT_CONFIG of each side */
	int timeout;			/* SO_RCVTIMEO, seconds; 0: 10 */
	double seconds;
	const uint8_t *skey;		/* server: QUIC_SOCKOPT_SESSION_TICKET */
	size_t skey_len;
};

static void set_timeout(int fd, int sec)
{
	struct timeval tv = { .tv_sec = sec };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* Run both sides in threads. */
static void conn_run(struct conn *cn)
{
	struct timespec t0, t1;
	pthread_t tc, ts;

	if (fk_pair(&cn->c, &cn->s))
		abort();
	cn->cli.fd = cn->c->fd;
	cn->srv.fd = cn->s->fd;
	cn->srv.server = 1;
	cn->c->config = cn->ccfg;
	cn->s->config = cn->scfg;
	memcpy(cn->s->ticket, cn->skey, cn->skey_len);
	cn->s->ticket_len = cn->skey_len;
	set_timeout(cn->c->fd, cn->timeout ? cn->timeout : 10);
	set_timeout(cn->s->fd, cn->timeout ? cn->timeout : 10);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (cn->srv.mode != MODE_NONE)
		pthread_create(&ts, NULL, side_run, &cn->srv);
	if (cn->cli.mode != MODE_NONE)
		pthread_create(&tc, NULL, side_run, &cn->cli);
	if (cn->cli.mode != MODE_NONE)
		pthread_join(tc, NULL);
	if (cn->srv.mode != MODE_NONE)
		pthread_join(ts, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cn->seconds = (double)(t1.tv_sec - t0.tv_sec) +
		      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

static void conn_free(struct conn *cn)
{
	side_free(&cn->cli);
	side_free(&cn->srv);
	fk_pair_free(cn->c, cn->s);
}

static void default_sides(struct conn *cn, enum side_mode cmode,
			  enum side_mode smode)
{
	memset(cn, 0, sizeof(*cn));
	cn->cli.mode = cmode;
	cn->srv.mode = smode;
	cn->cli.ca = path("ca.pem");
	cn->cli.host = "localhost";
	cn->srv.cert = path("server.pem");
	cn->srv.key = path("server.key");
}

/* ---- checks ---- */

static int secrets_match(struct conn *cn, uint8_t level, int type, char *why,
			 size_t whylen)
{
	int dir;

	for (dir = 0; dir < 2; dir++) {
		const struct quic_crypto_secret *a = fk_secret(cn->c, level, dir);
		const struct quic_crypto_secret *b = fk_secret(cn->s, level, !dir);
		size_t size = type == TLS_CIPHER_AES_GCM_256 ? 48 : 32;
		static const uint8_t zero[48];

		if (!a || !b) {
			snprintf(why, whylen, "level %u: a secret is missing", level);
			return 0;
		}
		if (memcmp(a->secret, b->secret, sizeof(a->secret))) {
			snprintf(why, whylen, "level %u: client %s != server %s", level,
				 dir ? "send" : "receive", dir ? "receive" : "send");
			return 0;
		}
		if ((int)a->type != type || (int)b->type != type) {
			snprintf(why, whylen, "level %u: types %u/%u, expected %d", level,
				 a->type, b->type, type);
			return 0;
		}
		if (!memcmp(a->secret, zero, size) ||
		    memcmp(a->secret + size, zero, sizeof(a->secret) - size)) {
			snprintf(why, whylen, "level %u: secret not %zu bytes", level, size);
			return 0;
		}
	}
	return 1;
}

/* APP secrets: installed last, receive then send, after this side's
 * handshake is complete (client: after sending Finished; server: after
 * receiving all the client's HANDSHAKE bytes), before any APP-level send.
 */
static int app_order_ok(struct fk_sock *k, char *why, size_t whylen)
{
	int rx = fk_event_find(k, FK_EV_SECRET, QUIC_CRYPTO_APP, 0, 0);
	int tx = fk_event_find(k, FK_EV_SECRET, QUIC_CRYPTO_APP, 1, 0);
	int last_secret = fk_event_find(k, FK_EV_SECRET, -1, -1, 1);
	int alpn = fk_event_find(k, FK_EV_ALPN, -1, -1, 1);
	int app_send = fk_event_find(k, FK_EV_SEND, QUIC_CRYPTO_APP, -1, 0);
	const char *who = k->is_server ? "server" : "client";

	if (rx < 0 || tx < 0 || !(rx < tx) || tx != last_secret) {
		snprintf(why, whylen, "%s: APP secrets not installed rx, tx, last", who);
		return 0;
	}
	if (alpn > rx) {
		snprintf(why, whylen, "%s: ALPN set after the APP secrets", who);
		return 0;
	}
	if (app_send >= 0 && app_send < tx) {
		snprintf(why, whylen, "%s: APP data sent before the APP keys", who);
		return 0;
	}
	if (!k->is_server) {
		int fin = fk_event_find(k, FK_EV_SEND, QUIC_CRYPTO_HANDSHAKE, -1, 1);

		if (fin < 0 || fin > rx) {
			snprintf(why, whylen, "client: Finished not sent before the APP secrets");
			return 0;
		}
	} else if (!k->events[rx].hs_recvd ||
		   k->events[rx].hs_recvd != k->events[rx].peer_hs_sent) {
		snprintf(why, whylen, "server: APP secrets before the client's Finished arrived");
		return 0;
	}
	return 1;
}

static int tp_ok(struct conn *cn)
{
	return cn->c->tp_set_count == 1 && cn->s->tp_set_count == 1 &&
	       cn->c->tp_peer_len == cn->s->tp_local_len &&
	       !memcmp(cn->c->tp_peer, cn->s->tp_local, cn->s->tp_local_len) &&
	       cn->s->tp_peer_len == cn->c->tp_local_len &&
	       !memcmp(cn->s->tp_peer, cn->c->tp_local, cn->c->tp_local_len);
}

/* The usual assertions on a connection that should have worked. */
static void check_success(struct conn *cn, const char *name, int type,
			  const char *alpn)
{
	char why[160] = "";
	int good;

	ok(cn->cli.ret == 0 && cn->srv.ret == 0 && cn->c->established &&
	   cn->s->established, "%s: handshake completes on both sides", name);
	if (cn->cli.ret || cn->srv.ret)
		diag("client %d (%s), server %d (%s)", cn->cli.ret, strerror(-cn->cli.ret),
		     cn->srv.ret, strerror(-cn->srv.ret));

	good = secrets_match(cn, QUIC_CRYPTO_HANDSHAKE, type, why, sizeof(why)) &&
	       secrets_match(cn, QUIC_CRYPTO_APP, type, why, sizeof(why));
	ok(good, "%s: each send secret equals the peer's receive secret, type %d",
	   name, type);
	if (!good)
		diag("%s", why);

	good = app_order_ok(cn->c, why, sizeof(why)) &&
	       app_order_ok(cn->s, why, sizeof(why));
	ok(good, "%s: APP secrets installed after completion, receive then send", name);
	if (!good)
		diag("%s", why);

	ok(tp_ok(cn), "%s: each side got exactly the other's transport parameters", name);

	if (alpn)
		good = !strcmp(cn->c->alpn_selected, alpn) &&
		       !strcmp(cn->s->alpn_selected, alpn) &&
		       cn->c->alpn_set_count == 1 && cn->s->alpn_set_count == 1;
	else
		good = !cn->c->alpn_set_count && !cn->s->alpn_set_count;
	ok(good, "%s: ALPN %s set with QUIC_SOCKOPT_ALPN on both sides", name,
	   alpn ? alpn : "(none)");
	if (!good)
		diag("client '%s' x%d, server '%s' x%d", cn->c->alpn_selected,
		     cn->c->alpn_set_count, cn->s->alpn_selected, cn->s->alpn_set_count);

	if (cn->c->violations || cn->s->violations || cn->c->close_set ||
	    cn->s->close_set)
		diag("violations: client %d '%s', server %d '%s'; close %d/%d",
		     cn->c->violations, cn->c->violation, cn->s->violations,
		     cn->s->violation, cn->c->close_set, cn->s->close_set);
	if (cn->c->violations || cn->s->violations || cn->c->close_set ||
	    cn->s->close_set)
		ok(0, "%s: no kernel contract violation and no close", name);
}

/* A connection that must fail: the side that detects it (fk) returns
 * -want and closed with errcode CRYPTO + alert (alert < 0: any alert);
 * the other side fails too; nobody reaches ESTABLISHED.
 */
static void check_failure(struct conn *cn, const char *name, int server_detects,
			  int want, int alert)
{
	struct fk_sock *k = server_detects ? cn->s : cn->c;
	struct side *sd = server_detects ? &cn->srv : &cn->cli;
	struct side *other = server_detects ? &cn->cli : &cn->srv;
	uint32_t code = k->close.errcode;
	int good;

	good = sd->ret == -want && (other->mode == MODE_NONE || other->ret < 0) &&
	       !cn->c->established && !cn->s->established;
	ok(good, "%s: fails with %s on the %s, the peer fails too", name,
	   strerror(want), server_detects ? "server" : "client");
	if (!good)
		diag("client %d (%s), server %d (%s)", cn->cli.ret, strerror(-cn->cli.ret),
		     cn->srv.ret, strerror(-cn->srv.ret));

	good = k->close_set && code >= QUIC_TRANSPORT_ERROR_CRYPTO &&
	       code <= QUIC_TRANSPORT_ERROR_CRYPTO + 0xff &&
	       (alert < 0 || code == QUIC_TRANSPORT_ERROR_CRYPTO + (uint32_t)alert);
	ok(good, "%s: CONNECTION_CLOSE set with CRYPTO + alert %s", name,
	   alert < 0 ? "(any)" : gnutls_alert_get_name(alert));
	if (!good)
		diag("close_set %d errcode 0x%x", k->close_set, code);
}

/* ---- tests ---- */

static void test_cert(void)
{
	struct conn cn;

	default_sides(&cn, MODE_SESSION, MODE_WRAPPER);
	cn.cli.alpns = "h3,hq-interop";
	cn.srv.alpns = "hq-interop,h3";
	cn.cli.keep_session = 1;
	conn_run(&cn);
	check_success(&cn, "certificate", TLS_CIPHER_AES_GCM_128, "hq-interop");
	ok(!strcmp(cn.cli.alpn, "hq-interop"),
	   "certificate: quic_session_get_alpn returns the negotiated protocol");
	ok(cn.c->hs_sent[QUIC_CRYPTO_INITIAL] && cn.c->hs_sent[QUIC_CRYPTO_HANDSHAKE] &&
	   cn.s->hs_sent[QUIC_CRYPTO_INITIAL] && cn.s->hs_sent[QUIC_CRYPTO_HANDSHAKE] &&
	   !cn.c->hs_sent[QUIC_CRYPTO_APP] && !fk_secret(cn.c, QUIC_CRYPTO_EARLY, 1),
	   "certificate: handshake bytes flow at INITIAL and HANDSHAKE levels only");
	conn_free(&cn);
}

static void test_suite(const char *cipher, int type)
{
	char prio[512], name[64];
	struct conn cn;

	snprintf(prio, sizeof(prio), "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+%s:"
		 "%%DISABLE_TLS13_COMPAT_MODE", cipher);
	snprintf(name, sizeof(name), "suite %s", cipher);
	default_sides(&cn, MODE_SESSION, MODE_WRAPPER);
	cn.cli.priority = prio;
	cn.cli.alpns = "h3";
	cn.srv.alpns = "h3";
	conn_run(&cn);
	check_success(&cn, name, type, "h3");
	conn_free(&cn);
}

static void test_group(void)
{
	struct conn cn;

	/* the server only has P-256; the client sends X25519 and P-384 key
	 * shares: HelloRetryRequest
	 */
	default_sides(&cn, MODE_SESSION, MODE_SESSION);
	cn.cli.priority = QUIC_PRIORITY ":-GROUP-ALL:+GROUP-X25519:+GROUP-SECP384R1:"
			  "+GROUP-SECP256R1";
	cn.srv.priority = QUIC_PRIORITY ":-GROUP-ALL:+GROUP-SECP256R1";
	conn_run(&cn);
	check_success(&cn, "P-256 server", TLS_CIPHER_AES_GCM_128, NULL);
	ok(cn.cli.ret == 0 && cn.cli.group == GNUTLS_GROUP_SECP256R1,
	   "P-256 server: the group is secp256r1");
	ok(fk_event_find(cn.c, FK_EV_SEND, QUIC_CRYPTO_INITIAL, -1, 1) >
	   fk_event_find(cn.c, FK_EV_SEND, QUIC_CRYPTO_INITIAL, -1, 0),
	   "P-256 server: after a HelloRetryRequest (two ClientHellos)");
	conn_free(&cn);
}

/*
 * Did the server's ServerHello (its Initial-level bytes) leave before it
 * installed its handshake keys, that is from the hook, before GnuTLS went
 * on to sign?  Without the hook it leaves with the whole flight, after.
 */
static int hello_early(struct conn *cn)
{
	int sent = fk_event_find(cn->s, FK_EV_SEND, QUIC_CRYPTO_INITIAL, -1, 0);
	int keys = fk_event_find(cn->s, FK_EV_SECRET, QUIC_CRYPTO_HANDSHAKE, -1, 0);

	return sent >= 0 && keys >= 0 && sent < keys;
}

static void test_early_hello(void)
{
	gnutls_session_t session;
	struct conn cn;

	default_sides(&cn, MODE_SESSION, MODE_WRAPPER);
	conn_run(&cn);
	check_success(&cn, "early ServerHello (quic_server_handshake)",
		      TLS_CIPHER_AES_GCM_128, NULL);
	ok(hello_early(&cn), "quic_server_handshake: the ServerHello leaves before the rest of the flight is made");
	ok(fk_event_find(cn.s, FK_EV_SEND, QUIC_CRYPTO_INITIAL, -1, 1) ==
	   fk_event_find(cn.s, FK_EV_SEND, QUIC_CRYPTO_INITIAL, -1, 0),
	   "quic_server_handshake: and only once");
	conn_free(&cn);

	default_sides(&cn, MODE_SESSION, MODE_SESSION);
	conn_run(&cn);
	ok(cn.cli.ret == 0 && cn.srv.ret == 0 && !hello_early(&cn),
	   "quic_handshake() without quic_handshake_early_hello(): the ServerHello leaves with the flight");
	conn_free(&cn);

	default_sides(&cn, MODE_SESSION, MODE_SESSION);
	cn.srv.early_hello = 1;
	conn_run(&cn);
	check_success(&cn, "early ServerHello (quic_handshake)",
		      TLS_CIPHER_AES_GCM_128, NULL);
	ok(hello_early(&cn), "quic_handshake() after quic_handshake_early_hello(): the ServerHello leaves first");
	conn_free(&cn);

	/* a HelloRetryRequest, then the ServerHello early */
	default_sides(&cn, MODE_SESSION, MODE_SESSION);
	cn.srv.early_hello = 1;
	cn.cli.priority = QUIC_PRIORITY ":-GROUP-ALL:+GROUP-X25519:+GROUP-SECP384R1:"
			  "+GROUP-SECP256R1";
	cn.srv.priority = QUIC_PRIORITY ":-GROUP-ALL:+GROUP-SECP256R1";
	conn_run(&cn);
	check_success(&cn, "early ServerHello after a HelloRetryRequest",
		      TLS_CIPHER_AES_GCM_128, NULL);
	ok(fk_event_find(cn.c, FK_EV_SEND, QUIC_CRYPTO_INITIAL, -1, 1) >
	   fk_event_find(cn.c, FK_EV_SEND, QUIC_CRYPTO_INITIAL, -1, 0),
	   "early ServerHello after a HelloRetryRequest: two ClientHellos");
	conn_free(&cn);

	ok(quic_handshake_early_hello(NULL) == -EINVAL,
	   "quic_handshake_early_hello(NULL): -EINVAL");
	if (gnutls_init(&session, GNUTLS_CLIENT) >= 0) {
		ok(quic_handshake_early_hello(session) == -EINVAL,
		   "quic_handshake_early_hello(client session): -EINVAL");
		gnutls_deinit(session);
	}
}

static void test_psk(void)
{
	struct conn cn;

	default_sides(&cn, MODE_WRAPPER, MODE_WRAPPER);
	cn.cli.psk = path("psk.txt");
	cn.srv.psk = path("psk.txt");
	cn.cli.host = NULL;
	cn.cli.alpns = "hq-interop";
	cn.srv.alpns = "hq-interop";
	conn_run(&cn);
	check_success(&cn, "PSK", TLS_CIPHER_AES_GCM_128, "hq-interop");
	conn_free(&cn);

	default_sides(&cn, MODE_WRAPPER, MODE_WRAPPER);
	cn.cli.psk = path("psk-wrong.txt");
	cn.srv.psk = path("psk.txt");
	cn.cli.alpns = "hq-interop";
	cn.srv.alpns = "hq-interop";
	conn_run(&cn);
	check_failure(&cn, "PSK with the wrong key", 1, EKEYREJECTED, -1);
	conn_free(&cn);

	ok(quic_client_handshake(0, path("missing-psk.txt"), NULL, NULL) == -ENOENT,
	   "PSK: a missing PSK file gives -ENOENT");
	ok(quic_client_handshake(0, path("ca.pem"), NULL, NULL) == -EINVAL,
	   "PSK: a malformed PSK file gives -EINVAL");
}

static int saw_cert_message;

static void log_capture(int level, const char *msg)
{
	if (level == QUIC_LOG_ERROR && strstr(msg, "certificate verification failed"))
		saw_cert_message = 1;
}

static void test_verify(void)
{
	struct conn cn;

	quic_set_log_func(log_capture);
	default_sides(&cn, MODE_SESSION, MODE_WRAPPER);
	cn.cli.host = "wrong.example";
	conn_run(&cn);
	check_failure(&cn, "wrong host name", 0, EKEYREJECTED, GNUTLS_A_BAD_CERTIFICATE);
	ok(saw_cert_message, "wrong host name: the log function got the reason");
	conn_free(&cn);
	quic_set_log_func(NULL);

	default_sides(&cn, MODE_SESSION, MODE_WRAPPER);
	cn.cli.ca = path("other-ca.pem");
	conn_run(&cn);
	check_failure(&cn, "untrusted CA", 0, EKEYREJECTED, GNUTLS_A_UNKNOWN_CA);
	conn_free(&cn);

	/* quic_client_handshake always verifies, against the system store */
	default_sides(&cn, MODE_WRAPPER, MODE_WRAPPER);
	conn_run(&cn);
	check_failure(&cn, "system trust store, test CA", 0, EKEYREJECTED,
		      GNUTLS_A_UNKNOWN_CA);
	conn_free(&cn);

}

/*
 * quic_client_handshake() with a NULL host name: no SNI, no name check, the
 * chain verified only with QUIC_CA_FILE.  QUIC_CA_FILE replaces the system
 * store for a host name too.
 */
static void test_no_hostname(void)
{
	struct conn cn;
	char name[256];
	size_t len = sizeof(name);
	unsigned int type;

	default_sides(&cn, MODE_WRAPPER, MODE_SESSION);
	cn.cli.host = NULL;
	cn.srv.keep_session = 1;
	conn_run(&cn);
	check_success(&cn, "NULL host name, no QUIC_CA_FILE", TLS_CIPHER_AES_GCM_128, NULL);
	ok(cn.srv.session &&
	   gnutls_server_name_get(cn.srv.session, name, &len, &type, 0) ==
	   GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE,
	   "NULL host name: no SNI sent");
	conn_free(&cn);

	setenv("QUIC_CA_FILE", path("other-ca.pem"), 1);
	default_sides(&cn, MODE_WRAPPER, MODE_WRAPPER);
	cn.cli.host = NULL;
	conn_run(&cn);
	check_failure(&cn, "NULL host name, QUIC_CA_FILE of another CA", 0,
		      EKEYREJECTED, GNUTLS_A_UNKNOWN_CA);
	conn_free(&cn);

	setenv("QUIC_CA_FILE", path("ca.pem"), 1);
	default_sides(&cn, MODE_WRAPPER, MODE_WRAPPER);
	cn.cli.host = NULL;
	conn_run(&cn);
	check_success(&cn, "NULL host name, QUIC_CA_FILE of the server's CA",
		      TLS_CIPHER_AES_GCM_128, NULL);
	conn_free(&cn);

	default_sides(&cn, MODE_WRAPPER, MODE_WRAPPER);
	conn_run(&cn);
	check_success(&cn, "host name, QUIC_CA_FILE of the server's CA",
		      TLS_CIPHER_AES_GCM_128, NULL);
	conn_free(&cn);

	default_sides(&cn, MODE_WRAPPER, MODE_WRAPPER);
	cn.cli.host = "wrong.example";
	conn_run(&cn);
	check_failure(&cn, "wrong host name, QUIC_CA_FILE of the server's CA", 0,
		      EKEYREJECTED, GNUTLS_A_BAD_CERTIFICATE);
	conn_free(&cn);

	setenv("QUIC_CA_FILE", path("missing-ca.pem"), 1);
	ok(quic_client_handshake(0, NULL, "localhost", NULL) == -ENOENT,
	   "QUIC_CA_FILE that cannot be read: -ENOENT");
	unsetenv("QUIC_CA_FILE");
}

/* QUIC_PRIORITY is what API.md says, and GnuTLS 3.7 takes it. */
static void test_priority(void)
{
	static const unsigned int want_ciphers[] = {
		GNUTLS_CIPHER_AES_128_GCM, GNUTLS_CIPHER_AES_256_GCM,
		GNUTLS_CIPHER_CHACHA20_POLY1305, GNUTLS_CIPHER_AES_128_CCM,
	};
	static const unsigned int want_groups[] = {
		GNUTLS_GROUP_SECP256R1, GNUTLS_GROUP_X25519,
		GNUTLS_GROUP_SECP384R1, GNUTLS_GROUP_SECP521R1,
	};
	const unsigned int *list;
	gnutls_priority_t prio;
	const char *err = NULL;
	int n, i, good, psk = 0, ecdhe_psk = 0;

	n = gnutls_priority_init(&prio, QUIC_PRIORITY, &err);
	ok(n == 0, "QUIC_PRIORITY: gnutls_priority_init accepts it (GnuTLS %s)",
	   gnutls_check_version(NULL));
	if (n)
		return;
	n = gnutls_priority_cipher_list(prio, &list);
	good = n == 4;
	for (i = 0; good && i < n; i++)
		good = list[i] == want_ciphers[i];
	ok(good, "QUIC_PRIORITY: ciphers AES-128-GCM, AES-256-GCM, CHACHA20-POLY1305, AES-128-CCM");
	n = gnutls_priority_group_list(prio, &list);
	good = n == 4;
	for (i = 0; good && i < n; i++)
		good = list[i] == want_groups[i];
	ok(good, "QUIC_PRIORITY: groups SECP256R1, X25519, SECP384R1, SECP521R1");
	n = gnutls_priority_protocol_list(prio, &list);
	ok(n == 1 && list[0] == GNUTLS_TLS1_3, "QUIC_PRIORITY: TLS 1.3 only");
	n = gnutls_priority_kx_list(prio, &list);
	for (i = 0; i < n; i++) {
		psk |= list[i] == GNUTLS_KX_PSK;
		ecdhe_psk |= list[i] == GNUTLS_KX_ECDHE_PSK;
	}
	ok(psk && ecdhe_psk, "QUIC_PRIORITY: PSK and ECDHE-PSK key exchange");
	ok(strstr(QUIC_PRIORITY, "%DISABLE_TLS13_COMPAT_MODE") != NULL,
	   "QUIC_PRIORITY: middlebox compatibility mode off");
	gnutls_priority_deinit(prio);
}

static int log_a_calls;

static void log_a(int level, const char *msg)
{
	(void)level;
	(void)msg;
	log_a_calls++;
}

/* The log setters return the previous function and level. */
static void test_log_setters(void)
{
	quic_set_log_func_t old;
	int level;

	old = quic_set_log_func(log_a);
	ok(quic_set_log_func(NULL) == log_a && quic_set_log_func(old) == NULL,
	   "quic_set_log_func returns the previous function");
	level = quic_set_log_level(QUIC_LOG_DEBUG);
	ok(quic_set_log_level(QUIC_LOG_INFO) == QUIC_LOG_DEBUG &&
	   quic_set_log_level(level) == QUIC_LOG_INFO,
	   "quic_set_log_level returns the previous level");
	quic_set_log_func(log_a);
	level = quic_set_log_level(QUIC_LOG_ERROR);
	quic_client_handshake(0, path("missing-psk.txt"), NULL, NULL);
	ok(log_a_calls > 0, "the log function set gets the messages (%d)", log_a_calls);
	quic_set_log_level(level);
	quic_set_log_func(old);
}

static void test_alpn(void)
{
	struct conn cn;

	default_sides(&cn, MODE_SESSION, MODE_WRAPPER);
	cn.cli.alpns = "h3";
	cn.srv.alpns = "hq-interop";
	conn_run(&cn);
	check_failure(&cn, "no common ALPN", 1, EPROTO, GNUTLS_A_NO_APPLICATION_PROTOCOL);
	conn_free(&cn);
}

/* The socket's ALPN list is used when alpns is NULL. */
static void test_alpn_socket(void)
{
	struct fk_sock *c, *s;
	struct side cli, srv;
	pthread_t tc, ts;

	if (fk_pair(&c, &s))
		abort();
	memcpy(s->alpn_preset, "foo,hq-interop", 14);
	s->alpn_preset_len = 14;
	memset(&cli, 0, sizeof(cli));
	memset(&srv, 0, sizeof(srv));
	cli.mode = MODE_SESSION;
	cli.fd = c->fd;
	cli.ca = path("ca.pem");
	cli.host = "localhost";
	cli.alpns = "hq-interop";
	srv.mode = MODE_WRAPPER;
	srv.server = 1;
	srv.fd = s->fd;
	srv.cert = path("server.pem");
	srv.key = path("server.key");
	pthread_create(&ts, NULL, side_run, &srv);
	pthread_create(&tc, NULL, side_run, &cli);
	pthread_join(tc, NULL);
	pthread_join(ts, NULL);
	ok(cli.ret == 0 && srv.ret == 0 && !strcmp(s->alpn_selected, "hq-interop") &&
	   !strcmp(c->alpn_selected, "hq-interop"),
	   "ALPN: with alpns NULL the server uses the socket's QUIC_SOCKOPT_ALPN list");
	fk_pair_free(c, s);
}

static void test_tp_rejected(void)
{
	struct fk_sock *c, *s;
	struct side cli, srv;
	pthread_t tc, ts;

	if (fk_pair(&c, &s))
		abort();
	s->fail_tp_set = EINVAL;
	memset(&cli, 0, sizeof(cli));
	memset(&srv, 0, sizeof(srv));
	cli.mode = MODE_SESSION;
	cli.fd = c->fd;
	cli.ca = path("ca.pem");
	cli.host = "localhost";
	srv.mode = MODE_WRAPPER;
	srv.server = 1;
	srv.fd = s->fd;
	srv.cert = path("server.pem");
	srv.key = path("server.key");
	set_timeout(c->fd, 10);
	pthread_create(&ts, NULL, side_run, &srv);
	pthread_create(&tc, NULL, side_run, &cli);
	pthread_join(tc, NULL);
	pthread_join(ts, NULL);
	ok(srv.ret == -EINVAL && cli.ret < 0 && s->close_set &&
	   s->close.errcode == QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM && !s->established,
	   "transport parameters rejected by the kernel: -EINVAL, TRANSPORT_PARAMETER_ERROR");
	if (!(srv.ret == -EINVAL && s->close_set))
		diag("server %d close %d 0x%x", srv.ret, s->close_set, s->close.errcode);
	fk_pair_free(c, s);
}

static void test_timeout(void)
{
	struct timespec t0, t1;
	struct conn cn;
	double sec;

	default_sides(&cn, MODE_SESSION, MODE_NONE);
	if (fk_pair(&cn.c, &cn.s))
		abort();
	cn.cli.fd = cn.c->fd;
	set_timeout(cn.c->fd, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	side_run(&cn.cli);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ok(cn.cli.ret == -ETIMEDOUT && sec >= 0.9 && sec < 5,
	   "no server: -ETIMEDOUT after SO_RCVTIMEO (%.1f s)", sec);
	fk_pair_free(cn.c, cn.s);
}

static void test_resumption(void)
{
	uint8_t data[8192];
	size_t len = 0;
	struct conn cn, cn2;
	int ret;

	default_sides(&cn, MODE_SESSION, MODE_WRAPPER);
	cn.cli.keep_session = 1;
	cn.cli.alpns = "h3";
	cn.srv.alpns = "h3";
	conn_run(&cn);
	ok(cn.cli.ret == 0 && cn.c->ticket_len > 0 &&
	   cn.s->hs_sent[QUIC_CRYPTO_APP] == cn.c->ticket_len,
	   "resumption: the server's NewSessionTicket went out at APP level after its keys");
	ret = quic_session_get_data(cn.cli.session, NULL, &len);
	ok(ret == 0 && len > 0 && len <= sizeof(data) &&
	   quic_session_get_data(cn.cli.session, data, &len) == 0,
	   "resumption: quic_session_get_data returns session data (%zu bytes)", len);
	conn_free(&cn);

	default_sides(&cn2, MODE_SESSION, MODE_WRAPPER);
	cn2.cli.data = data;
	cn2.cli.data_len = len;
	cn2.cli.alpns = "h3";
	cn2.srv.alpns = "h3";
	conn_run(&cn2);
	check_success(&cn2, "resumed", TLS_CIPHER_AES_GCM_128, "h3");
	ok(cn2.cli.resumed, "resumed: GnuTLS reports the session resumed");
	conn_free(&cn2);

	/* quic_client_handshake takes session data from the socket */
	default_sides(&cn2, MODE_NONE, MODE_NONE);
	if (fk_pair(&cn2.c, &cn2.s))
		abort();
	memcpy(cn2.c->ticket, data, len);
	cn2.c->ticket_len = len;
	{
		struct side cli = { .mode = MODE_WRAPPER, .fd = cn2.c->fd,
				    .host = "localhost", .alpns = "h3" };
		struct side srv = { .mode = MODE_WRAPPER, .server = 1, .fd = cn2.s->fd,
				    .cert = path("server.pem"), .key = path("server.key"),
				    .alpns = "h3" };
		pthread_t tc, ts;

		pthread_create(&ts, NULL, side_run, &srv);
		pthread_create(&tc, NULL, side_run, &cli);
		pthread_join(tc, NULL);
		pthread_join(ts, NULL);
		ok(cli.ret == 0 && srv.ret == 0 && cn2.c->established,
		   "resumption: quic_client_handshake resumes with QUIC_SOCKOPT_SESSION_TICKET data");
		if (cli.ret || srv.ret)
			diag("client %d server %d", cli.ret, srv.ret);
	}
	fk_pair_free(cn2.c, cn2.s);
}

/*
 * A ticket from a quic_server_handshake() whose socket has the ticket key
 * @k1, used on one whose socket has @k2: 1 resumed, 0 not, -1 failed.
 */
static int ticket_resumes(const uint8_t *k1, size_t l1, const uint8_t *k2,
			  size_t l2)
{
	uint8_t data[8192];
	size_t len = sizeof(data);
	struct conn cn;
	int resumed;

	default_sides(&cn, MODE_SESSION, MODE_WRAPPER);
	cn.cli.keep_session = 1;
	cn.skey = k1;
	cn.skey_len = l1;
	conn_run(&cn);
	if (cn.cli.ret || cn.srv.ret ||
	    quic_session_get_data(cn.cli.session, data, &len)) {
		conn_free(&cn);
		return -1;
	}
	conn_free(&cn);
	default_sides(&cn, MODE_SESSION, MODE_WRAPPER);
	cn.cli.data = data;
	cn.cli.data_len = len;
	cn.skey = k2;
	cn.skey_len = l2;
	conn_run(&cn);
	resumed = cn.cli.ret || cn.srv.ret ? -1 : cn.cli.resumed;
	conn_free(&cn);
	return resumed;
}

/* quic_server_handshake() issues tickets with the socket's ticket key. */
static void test_server_ticket_key(void)
{
	uint8_t k1[64], k2[64];
	int i, r;

	for (i = 0; i < 64; i++) {
		k1[i] = (uint8_t)i;
		k2[i] = (uint8_t)(255 - i);
	}
	r = ticket_resumes(k1, 64, k1, 64);
	ok(r == 1, "server ticket key: same 64-byte socket key, resumed (%d)", r);
	r = ticket_resumes(k1, 64, k2, 64);
	ok(r == 0, "server ticket key: another socket key, full handshake (%d)", r);
	r = ticket_resumes(k1, 32, k1, 32);
	ok(r == 1, "server ticket key: a 32-byte socket key (stretched), resumed (%d)", r);
	r = ticket_resumes(k1, 32, k2, 32);
	ok(r == 0, "server ticket key: another 32-byte socket key, full handshake (%d)", r);
	r = ticket_resumes(NULL, 0, NULL, 0);
	ok(r == 1, "server ticket key: none on the socket, the process key resumes (%d)", r);
	{
		gnutls_session_t srv;

		gnutls_init(&srv, GNUTLS_SERVER);
		ok(quic_session_set_data(srv, k1, 64) == 0 &&
		   quic_session_set_data(srv, k1, 32) == 0 &&
		   quic_session_set_data(srv, k1, 15) == -EINVAL,
		   "quic_session_set_data on a server: 64 bytes, 32 (stretched), not 15");
		gnutls_deinit(srv);
	}
}

/* Both sides quic_client/server_handshake() with the same PSK. */
static void psk_sides(struct conn *cn)
{
	default_sides(cn, MODE_WRAPPER, MODE_WRAPPER);
	cn->cli.psk = path("psk.txt");
	cn->srv.psk = path("psk.txt");
}

/* QUIC_SOCKOPT_CONFIG's payload_cipher_type: the ready-made handshakes
 * offer or accept that cipher only.
 */
static void test_config_cipher(void)
{
	struct conn cn;

	default_sides(&cn, MODE_SESSION, MODE_WRAPPER);
	cn.scfg.payload_cipher_type = TLS_CIPHER_AES_GCM_256;
	conn_run(&cn);
	check_success(&cn, "server payload_cipher_type AES-256-GCM",
		      TLS_CIPHER_AES_GCM_256, NULL);
	conn_free(&cn);

	psk_sides(&cn);
	cn.ccfg.payload_cipher_type = TLS_CIPHER_CHACHA20_POLY1305;
	conn_run(&cn);
	check_success(&cn, "client payload_cipher_type CHACHA20-POLY1305",
		      TLS_CIPHER_CHACHA20_POLY1305, NULL);
	conn_free(&cn);

	/* a caller's own session that negotiates another cipher fails */
	default_sides(&cn, MODE_SESSION, MODE_WRAPPER);
	cn.ccfg.payload_cipher_type = TLS_CIPHER_AES_GCM_256;
	cn.cli.priority = QUIC_PRIORITY ":-CIPHER-ALL:+AES-128-GCM";
	conn_run(&cn);
	check_failure(&cn, "own session, another cipher than payload_cipher_type",
		      0, EPROTO, GNUTLS_A_HANDSHAKE_FAILURE);
	conn_free(&cn);
}

/*
 * A server that refused the client's certificate: in TLS 1.3 the client
 * has completed by then, so only the server fails, and closes.
 */
static void check_cert_refused(struct conn *cn, const char *name, int alert)
{
	uint32_t code = cn->s->close.errcode;

	ok(cn->srv.ret == -EKEYREJECTED && !cn->s->established && cn->s->close_set &&
	   code == QUIC_TRANSPORT_ERROR_CRYPTO + (uint32_t)alert,
	   "%s: the server fails with %s, closing with alert %s", name,
	   strerror(EKEYREJECTED), gnutls_alert_get_name(alert));
	if (cn->srv.ret != -EKEYREJECTED || !cn->s->close_set)
		diag("client %d, server %d, close_set %d errcode 0x%x", cn->cli.ret,
		     cn->srv.ret, cn->s->close_set, code);
}

/* QUIC_SOCKOPT_CONFIG's certificate_request on quic_server_handshake(). */
static void test_config_cert_request(void)
{
	static const struct {
		int request, client_cert, alert;	/* alert 0: success */
		const char *name;
	} cases[] = {
		{ 2, 0, GNUTLS_A_CERTIFICATE_REQUIRED,
		  "certificate_request 2, client without certificate" },
		{ 2, 1, GNUTLS_A_UNKNOWN_CA,
		  "certificate_request 2, client chain not in the system store" },
		{ 1, 1, GNUTLS_A_UNKNOWN_CA,
		  "certificate_request 1, client chain not in the system store" },
		{ 1, 0, 0, "certificate_request 1, client without certificate" },
	};
	struct conn cn;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		default_sides(&cn, MODE_SESSION, MODE_WRAPPER);
		if (cases[i].client_cert) {
			cn.cli.ccert = path("client.pem");
			cn.cli.ckey = path("client.key");
		}
		cn.scfg.certificate_request = cases[i].request;
		conn_run(&cn);
		if (cases[i].alert)
			check_cert_refused(&cn, cases[i].name, cases[i].alert);
		else
			check_success(&cn, cases[i].name, TLS_CIPHER_AES_GCM_128, NULL);
		conn_free(&cn);
	}

	/* QUIC_CA_FILE: the client's chain against that CA */
	for (i = 0; i < 2; i++) {
		setenv("QUIC_CA_FILE", path(i ? "other-ca.pem" : "ca.pem"), 1);
		default_sides(&cn, MODE_SESSION, MODE_WRAPPER);
		cn.cli.ccert = path("client.pem");
		cn.cli.ckey = path("client.key");
		cn.scfg.certificate_request = 2;
		conn_run(&cn);
		/* the CertificateRequest names the CA file's CAs: the
		 * client has no certificate of theirs and sends none
		 */
		if (i)
			check_cert_refused(&cn, "certificate_request 2, QUIC_CA_FILE of another CA",
					   GNUTLS_A_CERTIFICATE_REQUIRED);
		else
			check_success(&cn, "certificate_request 2, QUIC_CA_FILE of the client's CA",
				      TLS_CIPHER_AES_GCM_128, NULL);
		conn_free(&cn);
	}
	unsetenv("QUIC_CA_FILE");

	default_sides(&cn, MODE_NONE, MODE_NONE);
	if (fk_pair(&cn.c, &cn.s))
		abort();
	cn.s->config.certificate_request = 2;
	ok(quic_server_handshake(cn.s->fd, path("psk.txt"), NULL, NULL) == -EINVAL,
	   "certificate_request with a PSK server gives -EINVAL");
	fk_pair_free(cn.c, cn.s);
}

/* QUIC_SOCKOPT_CONFIG's receive_session_ticket on the client. */
static void test_config_ticket(void)
{
	struct conn cn;
	int wrapper;

	for (wrapper = 0; wrapper < 2; wrapper++) {
		if (wrapper)
			psk_sides(&cn);
		else
			default_sides(&cn, MODE_SESSION, MODE_WRAPPER);
		cn.ccfg.receive_session_ticket = 1;
		conn_run(&cn);
		ok(cn.cli.ret == 0 && cn.srv.ret == 0 && cn.cli.ticket_len > 0,
		   "receive_session_ticket: %s returns with the ticket in the kernel (%zu bytes)",
		   wrapper ? "quic_client_handshake" : "quic_handshake",
		   cn.cli.ticket_len);
		conn_free(&cn);
	}

	default_sides(&cn, MODE_SESSION, MODE_SESSION);
	cn.srv.no_tickets = 1;
	cn.ccfg.receive_session_ticket = 1;
	cn.timeout = 1;
	conn_run(&cn);
	ok(cn.cli.ret == -ETIMEDOUT && cn.srv.ret == 0 && cn.c->established,
	   "receive_session_ticket: no ticket from the server: -ETIMEDOUT (%.1f s)",
	   cn.seconds);
	conn_free(&cn);
}

/* Both sides driven through the step API in this one thread; the bytes
 * move directly between the steps' msghdrs, the fake kernel only sees
 * setsockopts.  Sends are taken in two halves (a short sendmsg), and each
 * RECVMSG first fails with EAGAIN, to see the same step come back.
 */
static void test_step_api(void)
{
	gnutls_certificate_credentials_t ccred, scred;
	struct quic_handshake_step *cs = NULL, *ss = NULL;
	gnutls_session_t cli, srv;
	struct fk_sock *c, *s;
	int cerr, serr, rounds = 0, sends = 0, flags_ok = 1, repeat_ok = 1;
	int short_ok = 1, tickets = 0;
	char why[160] = "";
	struct conn cn;

	if (fk_pair(&c, &s))
		abort();
	gnutls_certificate_allocate_credentials(&ccred);
	gnutls_certificate_allocate_credentials(&scred);
	gnutls_certificate_set_x509_trust_file(ccred, path("ca.pem"), GNUTLS_X509_FMT_PEM);
	gnutls_certificate_set_x509_key_file(scred, path("server.pem"), path("server.key"),
					     GNUTLS_X509_FMT_PEM);
	gnutls_init(&cli, GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA);
	gnutls_init(&srv, GNUTLS_SERVER | GNUTLS_NO_END_OF_EARLY_DATA);
	gnutls_credentials_set(cli, GNUTLS_CRD_CERTIFICATE, ccred);
	gnutls_credentials_set(srv, GNUTLS_CRD_CERTIFICATE, scred);
	gnutls_priority_set_direct(cli, QUIC_PRIORITY ":-CIPHER-ALL:+CHACHA20-POLY1305", NULL);
	gnutls_priority_set_direct(srv, QUIC_PRIORITY, NULL);
	gnutls_session_set_verify_cert(cli, "localhost", 0);
	quic_session_set_alpn(cli, "hq-interop", 10);
	quic_session_set_alpn(srv, "hq-interop", 10);
	gnutls_transport_set_int(cli, c->fd);
	gnutls_transport_set_int(srv, s->fd);

	serr = quic_handshake_init(srv, &ss);
	cerr = quic_handshake_init(cli, &cs);
	ok(!cerr && !serr && cs && ss && cs->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG &&
	   step_msg_level(cs->s_sendmsg.msg) == QUIC_CRYPTO_INITIAL &&
	   ss->op == QUIC_HANDSHAKE_STEP_OP_RECVMSG,
	   "step API: the client starts with SENDMSG at INITIAL, the server with RECVMSG");

	/* deliver a SENDMSG of one side into the other's RECVMSG */
	while (!cerr && !serr && rounds++ < 200 && (cs || ss)) {
		struct quic_handshake_step **from, **to;
		gnutls_session_t fs, ts;
		const struct msghdr *m;
		size_t len, half;
		int level, *ferr, *terr;
		struct quic_handshake_step *before;

		if (cs && ss && cs->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG &&
		    ss->op == QUIC_HANDSHAKE_STEP_OP_RECVMSG) {
			from = &cs; to = &ss; fs = cli; ts = srv;
			ferr = &cerr; terr = &serr;
		} else if (cs && ss && ss->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG &&
			   cs->op == QUIC_HANDSHAKE_STEP_OP_RECVMSG) {
			from = &ss; to = &cs; fs = srv; ts = cli;
			ferr = &serr; terr = &cerr;
		} else if (!cs && ss && ss->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG &&
			   step_msg_level(ss->s_sendmsg.msg) == QUIC_CRYPTO_APP) {
			/* the ticket after the client is done: drop it */
			ss->s_sendmsg.retval =
				(ssize_t)ss->s_sendmsg.msg->msg_iov[0].iov_len;
			serr = quic_handshake_step(srv, &ss);
			tickets++;
			continue;
		} else {
			break;
		}
		m = (*from)->s_sendmsg.msg;
		if ((*from)->s_sendmsg.flags != (MSG_DONTWAIT | MSG_NOSIGNAL) ||
		    (*to)->s_recvmsg.flags != MSG_DONTWAIT)
			flags_ok = 0;
		len = m->msg_iov[0].iov_len;
		level = step_msg_level(m);

		/* the receiver's call fails with EAGAIN first */
		before = *to;
		(*to)->s_recvmsg.retval = -1;
		errno = EAGAIN;
		*terr = quic_handshake_step(ts, to);
		if (*terr || *to != before ||
		    (*to)->op != QUIC_HANDSHAKE_STEP_OP_RECVMSG)
			repeat_ok = 0;

		/* the sender's sendmsg takes half, then the rest */
		half = len / 2;
		if (half) {
			const uint8_t *first = m->msg_iov[0].iov_base;

			if (step_msg_fill((*to)->s_recvmsg.msg, first, half, level) != (ssize_t)half)
				break;
			(*to)->s_recvmsg.retval = (ssize_t)half;
			(*from)->s_sendmsg.retval = (ssize_t)half;
			*ferr = quic_handshake_step(fs, from);
			*terr = quic_handshake_step(ts, to);
			if (*ferr || !*from ||
			    (*from)->op != QUIC_HANDSHAKE_STEP_OP_SENDMSG ||
			    (*from)->s_sendmsg.msg->msg_iov[0].iov_len != len - half ||
			    (*from)->s_sendmsg.msg->msg_iov[0].iov_base != first + half ||
			    step_msg_level((*from)->s_sendmsg.msg) != level)
				short_ok = 0;
			if (*ferr || *terr || !*from || !*to ||
			    (*to)->op != QUIC_HANDSHAKE_STEP_OP_RECVMSG)
				break;
			m = (*from)->s_sendmsg.msg;
		}
		(*to)->s_recvmsg.retval = step_msg_fill((*to)->s_recvmsg.msg, m->msg_iov[0].iov_base,
						       m->msg_iov[0].iov_len, level);
		(*from)->s_sendmsg.retval = (ssize_t)m->msg_iov[0].iov_len;
		sends++;
		*ferr = quic_handshake_step(fs, from);
		if (!*ferr)
			*terr = quic_handshake_step(ts, to);
	}
	ok(!cerr && !serr && !cs && !ss && c->established && s->established,
	   "step API: both sides end with a NULL step in one thread (%d messages, %d tickets)",
	   sends, tickets);
	if (cerr || serr || cs || ss)
		diag("client %d %s, server %d %s", cerr, cs ? "step" : "NULL",
		     serr, ss ? "step" : "NULL");
	ok(flags_ok, "step API: SENDMSG flags MSG_DONTWAIT|MSG_NOSIGNAL, RECVMSG MSG_DONTWAIT");
	ok(repeat_ok, "step API: a RECVMSG that failed with EAGAIN comes back");
	ok(short_ok, "step API: a short sendmsg gives a SENDMSG step with the rest");
	memset(&cn, 0, sizeof(cn));
	cn.c = c;
	cn.s = s;
	ok(secrets_match(&cn, QUIC_CRYPTO_HANDSHAKE, TLS_CIPHER_CHACHA20_POLY1305, why, sizeof(why)) &&
	   secrets_match(&cn, QUIC_CRYPTO_APP, TLS_CIPHER_CHACHA20_POLY1305, why, sizeof(why)) &&
	   !strcmp(c->alpn_selected, "hq-interop"),
	   "step API: secrets match (ChaCha20-Poly1305) and ALPN set");
	if (why[0])
		diag("%s", why);
	ok(quic_handshake_step(cli, &cs) == 0 && !cs,
	   "step API: quic_handshake_step after the end gives a NULL step again");
	quic_handshake_deinit(cli);
	quic_handshake_deinit(srv);
	ok(quic_handshake_step(cli, &cs) == -EINVAL,
	   "step API: quic_handshake_step after deinit gives -EINVAL");
	gnutls_deinit(cli);
	gnutls_deinit(srv);
	gnutls_certificate_free_credentials(ccred);
	gnutls_certificate_free_credentials(scred);
	fk_pair_free(c, s);
}

/* A caller's socket call that fails ends the handshake with its errno. */
static void test_step_errors(void)
{
	gnutls_certificate_credentials_t cred;
	struct quic_handshake_step *step;
	gnutls_session_t cli;
	struct fk_sock *c, *s;
	int err;

	if (fk_pair(&c, &s))
		abort();
	gnutls_certificate_allocate_credentials(&cred);
	gnutls_init(&cli, GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA);
	gnutls_credentials_set(cli, GNUTLS_CRD_CERTIFICATE, cred);
	gnutls_priority_set_direct(cli, QUIC_PRIORITY, NULL);
	gnutls_transport_set_int(cli, c->fd);

	err = quic_handshake_init(cli, &step);
	if (!err && step && step->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG) {
		step->s_sendmsg.retval = -1;
		errno = ECONNREFUSED;
		err = quic_handshake_step(cli, &step);
	}
	ok(err == -ECONNREFUSED && !step,
	   "step API: sendmsg failing with -1/ECONNREFUSED: -ECONNREFUSED, NULL step");
	ok(quic_handshake_step(cli, &step) == -ECONNREFUSED,
	   "step API: the failure sticks until quic_handshake_deinit");
	quic_handshake_deinit(cli);
	gnutls_deinit(cli);

	/* a recvmsg that returns 0 without a cmsg: the connection is gone */
	gnutls_init(&cli, GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA);
	gnutls_credentials_set(cli, GNUTLS_CRD_CERTIFICATE, cred);
	gnutls_priority_set_direct(cli, QUIC_PRIORITY, NULL);
	gnutls_transport_set_int(cli, c->fd);
	err = quic_handshake_init(cli, &step);
	if (!err && step) {
		step->s_sendmsg.retval = (ssize_t)step->s_sendmsg.msg->msg_iov[0].iov_len;
		err = quic_handshake_step(cli, &step);
	}
	if (!err && step && step->op == QUIC_HANDSHAKE_STEP_OP_RECVMSG) {
		step->s_recvmsg.msg->msg_controllen = 0;
		step->s_recvmsg.retval = 0;
		err = quic_handshake_step(cli, &step);
	}
	ok(err == -ECONNRESET && !step,
	   "step API: recvmsg returning 0 without a cmsg: -ECONNRESET");
	quic_handshake_deinit(cli);
	gnutls_deinit(cli);
	gnutls_certificate_free_credentials(cred);
	fk_pair_free(c, s);
}

/* A TLS client that does not send quic_transport_parameters. */
static int raw_msg(gnutls_session_t session, gnutls_record_encryption_level_t level,
		   gnutls_handshake_description_t htype, const void *data, size_t size)
{
	struct fk_sock *c = gnutls_session_get_ptr(session);
	struct quic_handshake_info info = {
		.crypto_level = level == GNUTLS_ENCRYPTION_LEVEL_INITIAL ?
				QUIC_CRYPTO_INITIAL : QUIC_CRYPTO_HANDSHAKE,
	};
	char cbuf[CMSG_SPACE(sizeof(info))];
	struct iovec iov = { (void *)data, size };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	(void)htype;
	cmsg->cmsg_level = SOL_QUIC;
	cmsg->cmsg_type = QUIC_HANDSHAKE_INFO;
	cmsg->cmsg_len = CMSG_LEN(sizeof(info));
	memcpy(CMSG_DATA(cmsg), &info, sizeof(info));
	return sendmsg(c->fd, &msg, 0) < 0 ? -1 : 0;
}

static void *missing_tp_server(void *arg)
{
	struct side *sd = arg;

	sd->ret = quic_server_handshake(sd->fd, sd->key, sd->cert, NULL);
	return NULL;
}

static void test_missing_tp(void)
{
	gnutls_certificate_credentials_t cred;
	gnutls_session_t session;
	struct fk_sock *c, *s;
	struct side srv;
	pthread_t ts;

	if (fk_pair(&c, &s))
		abort();
	memset(&srv, 0, sizeof(srv));
	srv.fd = s->fd;
	srv.cert = path("server.pem");
	srv.key = path("server.key");
	set_timeout(s->fd, 5);
	pthread_create(&ts, NULL, missing_tp_server, &srv);

	gnutls_certificate_allocate_credentials(&cred);
	gnutls_init(&session, GNUTLS_CLIENT);
	gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, cred);
	gnutls_priority_set_direct(session, QUIC_PRIORITY, NULL);
	gnutls_session_set_ptr(session, c);
	gnutls_handshake_set_read_function(session, raw_msg);
	gnutls_handshake(session);	/* writes the ClientHello, then EAGAIN */
	pthread_join(ts, NULL);
	ok(srv.ret == -EPROTO && s->close_set &&
	   s->close.errcode == QUIC_TRANSPORT_ERROR_CRYPTO + GNUTLS_A_MISSING_EXTENSION,
	   "a client without quic_transport_parameters gets missing_extension");
	if (srv.ret != -EPROTO)
		diag("server %d close 0x%x", srv.ret, s->close.errcode);
	gnutls_deinit(session);
	gnutls_certificate_free_credentials(cred);
	fk_pair_free(c, s);
}

static void test_stream_msgs(void)
{
	struct fk_sock *c, *s;
	char buf[64];
	int64_t sid = 0;
	uint32_t flags;
	ssize_t n;

	if (fk_pair(&c, &s))
		abort();
	n = quic_sendmsg(c->fd, "GET /index.html\r\n", 17, -1,
			 MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN);
	ok(n == 17 && c->last_sinfo.stream_id == -1 &&
	   c->last_sinfo.stream_flags == (MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN) &&
	   c->last_send_flags == 0,
	   "quic_sendmsg: QUIC_STREAM_INFO cmsg {-1, NEW|FIN}, no sendmsg flags");

	/* the fake returns the id the sender gave; fix it as a kernel would */
	flags = 0;
	n = quic_recvmsg(s->fd, buf, 4, &sid, &flags);
	ok(n == 4 && !memcmp(buf, "GET ", 4) && sid == -1 && !(flags & MSG_QUIC_STREAM_FIN),
	   "quic_recvmsg: a partial read has no FIN");
	flags = 0;
	n = quic_recvmsg(s->fd, buf, sizeof(buf), &sid, &flags);
	ok(n == 13 && !memcmp(buf, "/index.html\r\n", 13) && (flags & MSG_QUIC_STREAM_FIN),
	   "quic_recvmsg: the last chunk reports MSG_QUIC_STREAM_FIN");
	flags = MSG_DONTWAIT;
	n = quic_recvmsg(s->fd, buf, sizeof(buf), &sid, &flags);
	ok(n == -1 && errno == EAGAIN,
	   "quic_recvmsg: *flags in (MSG_DONTWAIT), errors as -1 and errno");
	n = quic_sendmsg(c->fd, "x", 1, 4, MSG_DONTWAIT | MSG_QUIC_STREAM_DONTWAIT |
			 MSG_QUIC_STREAM_UNI | MSG_QUIC_STREAM_SNDBLOCK);
	ok(n == 1 && c->last_sinfo.stream_id == 4 &&
	   c->last_sinfo.stream_flags == (MSG_QUIC_STREAM_DONTWAIT |
					  MSG_QUIC_STREAM_UNI |
					  MSG_QUIC_STREAM_SNDBLOCK) &&
	   c->last_send_flags == MSG_DONTWAIT,
	   "quic_sendmsg: stream id passed; stream bits in the cmsg, the rest as sendmsg flags");
	s->close_set = 1;	/* the fake then fails sends with EPIPE */
	n = quic_sendmsg(s->fd, "x", 1, 1, 0);
	ok(n == -1 && errno == EPIPE, "quic_sendmsg: errors as -1 and errno (EPIPE)");
	fk_pair_free(c, s);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);

	test_cert();
	test_suite("AES-128-GCM", TLS_CIPHER_AES_GCM_128);
	test_suite("AES-256-GCM", TLS_CIPHER_AES_GCM_256);
	test_suite("CHACHA20-POLY1305", TLS_CIPHER_CHACHA20_POLY1305);
	test_suite("AES-128-CCM", TLS_CIPHER_AES_CCM_128);
	test_group();
	test_early_hello();
	test_psk();
	test_verify();
	test_no_hostname();
	test_priority();
	test_log_setters();
	test_alpn();
	test_alpn_socket();
	test_tp_rejected();
	test_missing_tp();
	test_timeout();
	test_resumption();
	test_server_ticket_key();
	test_step_api();
	test_step_errors();
	test_stream_msgs();
	test_config_cipher();
	test_config_cert_request();
	test_config_ticket();

	printf("1..%d\n", test_no);
	return failures ? 1 : 0;
}

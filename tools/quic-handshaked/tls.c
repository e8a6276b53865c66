// SPDX-License-Identifier: GPL-2.0
/*
 * The QUIC handshake on a socket net/handshake gave us: a GnuTLS session
 * built from the request (client or server, X.509 or PSK, keys from the
 * keyring or the configuration file) and run with libquic's step API under
 * the request's deadline.  The kernel user already set the ALPN list and
 * the transport parameters on the socket; libquic installs the secrets and
 * the negotiated ALPN on it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/handshake.h>
#include <netinet/quic.h>
#include <gnutls/x509.h>

#include "hsd.h"

#define HSD_PSK_MAX	64

struct hsd_tls {
	gnutls_session_t session;
	gnutls_certificate_credentials_t cert;
	gnutls_psk_client_credentials_t psk_client;
	gnutls_psk_server_credentials_t psk_server;
	gnutls_pcert_st pcerts[16];
	unsigned int n_pcerts;
	gnutls_privkey_t privkey;
	struct hsd_psk psks[HSD_PSK_MAX];	/* a server's accepted keys */
	int n_psks, matched;
	int psk_unknown;			/* the client named another PSK */
	const struct hsd_conf *conf;
	struct hsd_result *res;
};

/* noinline: the reason is cut to fit, as meant */
static __attribute__((noinline)) void why(struct hsd_result *res,
					  const char *fmt, const char *a,
					  const char *b)
{
	if (!res->why[0])
		snprintf(res->why, sizeof(res->why), fmt, a, b);
}

unsigned int hsd_done_status(int err)
{
	switch (err) {
	case 0:
		return 0;
	case -EKEYREJECTED:
		return EACCES;		/* tls-handshake.rst: authentication failed */
	default:
		return err < 0 && err > -4096 ? (unsigned int)-err : EIO;
	}
}

/* ---- credentials ---- */

/* A key's payload as a gnutls datum; PEM is tried first, then DER. */
static int load_key_cert(struct hsd_tls *t, int32_t cert, int32_t key)
{
	gnutls_datum_t d;
	uint8_t *data;
	size_t len;
	int err, ret;

	err = hsd_key_read(cert, &data, &len);
	if (err) {
		why(t->res, "certificate key %s: %s", "", strerror(-err));
		return -ENOKEY;
	}
	d.data = data;
	d.size = (unsigned int)len;
	t->n_pcerts = sizeof(t->pcerts) / sizeof(t->pcerts[0]);
	ret = gnutls_pcert_list_import_x509_raw(t->pcerts, &t->n_pcerts, &d,
						GNUTLS_X509_FMT_PEM, 0);
	if (ret < 0) {
		t->n_pcerts = 1;
		ret = gnutls_pcert_import_x509_raw(t->pcerts, &d,
						   GNUTLS_X509_FMT_DER, 0);
	}
	free(data);
	if (ret < 0) {
		t->n_pcerts = 0;
		why(t->res, "certificate key: %s%s", gnutls_strerror(ret), "");
		return -ENOKEY;
	}
	err = hsd_key_read(key, &data, &len);
	if (err) {
		why(t->res, "private key %s: %s", "", strerror(-err));
		return -ENOKEY;
	}
	d.data = data;
	d.size = (unsigned int)len;
	ret = gnutls_privkey_init(&t->privkey);
	if (ret >= 0) {
		ret = gnutls_privkey_import_x509_raw(t->privkey, &d,
						     GNUTLS_X509_FMT_PEM, NULL, 0);
		if (ret < 0)
			ret = gnutls_privkey_import_x509_raw(t->privkey, &d,
							     GNUTLS_X509_FMT_DER,
							     NULL, 0);
	}
	memset(data, 0, len);
	free(data);
	if (ret >= 0)
		ret = gnutls_certificate_set_key(t->cert, NULL, 0, t->pcerts,
						 (int)t->n_pcerts, t->privkey);
	if (ret < 0) {
		why(t->res, "private key: %s%s", gnutls_strerror(ret), "");
		return -ENOKEY;
	}
	t->privkey = NULL;	/* the credentials own it and the certs now */
	t->n_pcerts = 0;
	return 0;
}

/* The server's (or the client's own) certificate: the request's key
 * serials, else the configuration file's; none is fine for a client.
 */
static int own_cert(struct hsd_tls *t, const struct hsd_req *req, int server,
		    int anon)
{
	int ret;

	if (anon)
		return 0;
	if (req->cert > 0 && req->privkey > 0)
		return load_key_cert(t, req->cert, req->privkey);
	if (t->conf->cert[0]) {
		ret = gnutls_certificate_set_x509_key_file2(t->cert, t->conf->cert,
							    t->conf->key,
							    GNUTLS_X509_FMT_PEM,
							    NULL, 0);
		if (ret < 0) {
			why(t->res, "%s: %s", t->conf->cert, gnutls_strerror(ret));
			return -ENOKEY;
		}
		return 0;
	}
	if (server) {
		why(t->res, "no certificate: the request names none and the configuration has none%s%s",
		    "", "");
		return -ENOKEY;
	}
	return 0;
}

static int trust(struct hsd_tls *t)
{
	int ret;

	if (t->conf->ca[0])
		ret = gnutls_certificate_set_x509_trust_file(t->cert, t->conf->ca,
							     GNUTLS_X509_FMT_PEM);
	else
		ret = gnutls_certificate_set_x509_system_trust(t->cert);
	if (ret <= 0) {
		why(t->res, "trust anchors %s: %s", t->conf->ca[0] ? t->conf->ca :
		    "(system)", ret ? gnutls_strerror(ret) : "none");
		return -ENOKEY;
	}
	return 0;
}

/* A client certificate the server asked for: verified if one came. */
static int verify_client(gnutls_session_t session)
{
	unsigned int n = 0, status = 0;

	if (!gnutls_certificate_get_peers(session, &n) || !n)
		return 0;
	if (gnutls_certificate_verify_peers2(session, &status) < 0 || status)
		return -1;
	return 0;
}

/* The PSKs of the configuration file, appended to t->psks. */
static int conf_psks(struct hsd_tls *t)
{
	char *text;
	size_t len = 0;
	int n, bad = 0;
	FILE *f;

	if (!t->conf->psk[0])
		return 0;
	f = fopen(t->conf->psk, "re");
	if (!f) {
		why(t->res, "%s: %s", t->conf->psk, strerror(errno));
		return -ENOKEY;
	}
	text = calloc(1, 65536);
	if (text)
		len = fread(text, 1, 65535, f);
	fclose(f);
	if (!text)
		return -ENOMEM;
	text[len] = 0;
	n = hsd_psk_parse(text, t->psks + t->n_psks, HSD_PSK_MAX - t->n_psks, &bad);
	memset(text, 0, 65536);
	free(text);
	if (n < 0) {
		why(t->res, "%s: bad line%s", t->conf->psk, "");
		return -ENOKEY;
	}
	t->n_psks += n;
	return 0;
}

/* PSKs named by the request: description = identity, payload = key. */
static int req_psks(struct hsd_tls *t, const struct hsd_req *req)
{
	unsigned int i;

	for (i = 0; i < req->n_peerids && t->n_psks < HSD_PSK_MAX; i++) {
		struct hsd_psk *e = &t->psks[t->n_psks];
		uint8_t *data;
		size_t len;
		int err;

		if (req->peerids[i] <= 0)
			continue;
		err = hsd_key_desc(req->peerids[i], e->identity, sizeof(e->identity));
		if (!err)
			err = hsd_key_read(req->peerids[i], &data, &len);
		if (err) {
			why(t->res, "PSK key: %s%s", strerror(-err), "");
			return -ENOKEY;
		}
		if (!len || len > sizeof(e->key)) {
			free(data);
			why(t->res, "PSK key: bad length%s%s", "", "");
			return -ENOKEY;
		}
		memcpy(e->key, data, len);
		e->key_len = len;
		e->serial = req->peerids[i];
		memset(data, 0, len);
		free(data);
		t->n_psks++;
	}
	return 0;
}

static int psk_lookup(gnutls_session_t session, const char *username,
		      gnutls_datum_t *key)
{
	struct hsd_tls *t = gnutls_session_get_ptr(session);
	int i;

	for (i = 0; i < t->n_psks; i++) {
		if (strcmp(t->psks[i].identity, username))
			continue;
		key->data = gnutls_malloc(t->psks[i].key_len);
		if (!key->data)
			return -1;
		memcpy(key->data, t->psks[i].key, t->psks[i].key_len);
		key->size = (unsigned int)t->psks[i].key_len;
		t->matched = i;
		return 0;
	}
	why(t->res, "unknown PSK identity '%s'%s", username, "");
	t->psk_unknown = 1;
	return -1;
}

static int setup_psk(struct hsd_tls *t, const struct hsd_req *req, int server)
{
	gnutls_datum_t key;
	int err, ret;

	/* the request's keys first; the file's only when it names none */
	err = req_psks(t, req);
	if (!err && !t->n_psks)
		err = conf_psks(t);
	if (err)
		return err;
	if (!t->n_psks) {
		why(t->res, "no PSK: the request names none and the configuration has none%s%s",
		    "", "");
		return -ENOKEY;
	}
	if (server) {
		ret = gnutls_psk_allocate_server_credentials(&t->psk_server);
		if (ret < 0)
			return -ENOMEM;
		gnutls_psk_set_server_credentials_function(t->psk_server, psk_lookup);
		gnutls_session_set_ptr(t->session, t);
		ret = gnutls_credentials_set(t->session, GNUTLS_CRD_PSK, t->psk_server);
	} else {
		key.data = t->psks[0].key;
		key.size = (unsigned int)t->psks[0].key_len;
		ret = gnutls_psk_allocate_client_credentials(&t->psk_client);
		if (ret < 0)
			return -ENOMEM;
		ret = gnutls_psk_set_client_credentials(t->psk_client,
							t->psks[0].identity, &key,
							GNUTLS_PSK_KEY_RAW);
		if (ret >= 0)
			ret = gnutls_credentials_set(t->session, GNUTLS_CRD_PSK,
						     t->psk_client);
		t->matched = 0;
	}
	return ret < 0 ? -EINVAL : 0;
}

static int is_ip_literal(const char *host)
{
	unsigned char a[16];

	return inet_pton(AF_INET, host, a) == 1 || inet_pton(AF_INET6, host, a) == 1;
}

static int setup_x509(struct hsd_tls *t, const struct hsd_req *req, int server,
		      int anon)
{
	struct quic_config cfg;
	socklen_t len = sizeof(cfg);
	int err, ret;

	ret = gnutls_certificate_allocate_credentials(&t->cert);
	if (ret < 0)
		return -ENOMEM;
	err = own_cert(t, req, server, anon);
	if (err)
		return err;
	memset(&cfg, 0, sizeof(cfg));
	if (server && getsockopt(req->sockfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg,
				 &len) == 0 && cfg.certificate_request) {
		err = trust(t);
		if (err)
			return err;
		gnutls_certificate_set_verify_function(t->cert, verify_client);
	}
	if (!server) {
		err = trust(t);
		if (err)
			return err;
		/* the chain always; the name when the kernel user gave one */
		gnutls_session_set_verify_cert(t->session, req->has_peername ?
					       req->peername : NULL, 0);
		if (req->has_peername && !is_ip_literal(req->peername))
			gnutls_server_name_set(t->session, GNUTLS_NAME_DNS,
					       req->peername, strlen(req->peername));
	}
	ret = gnutls_credentials_set(t->session, GNUTLS_CRD_CERTIFICATE, t->cert);
	return ret < 0 ? -EINVAL : 0;
}

/* The ALPN list the kernel user set on the socket; 0 if none. */
static int setup_alpn(struct hsd_tls *t, int fd)
{
	char buf[1024];
	socklen_t len = sizeof(buf);
	int err;

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, buf, &len) < 0 || !len)
		return 0;
	err = quic_session_set_alpn(t->session, buf, len);
	return err ? err : 1;
}

/* A server's session tickets, with the socket's ticket key if it has one. */
static void setup_tickets(struct hsd_tls *t, int fd)
{
	uint8_t key[256];
	socklen_t len = sizeof(key);

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, key, &len) == 0 &&
	    len >= 16)
		quic_session_set_data(t->session, key, len);
	memset(key, 0, sizeof(key));
}

/*
 * libquic's quic_handshake() under the request's time limit, which it takes
 * from the socket's SO_RCVTIMEO: set for the handshake, then put back as
 * the kernel user had it.
 */
static int run_handshake(gnutls_session_t session, int fd, unsigned int ms)
{
	struct timeval old, tv = { ms / 1000, (ms % 1000) * 1000 };
	socklen_t len = sizeof(old);
	int err, saved;

	saved = getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &old, &len) == 0;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	err = quic_handshake(session);
	if (saved)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &old, sizeof(old));
	return err;
}

/*
 * The certificate the peer authenticated with (verified: a client always
 * verifies the server's; a server verifies a client's when it asked for
 * one, and then only a verified one gets here) as a key for the kernel
 * user, as tlshd reports it: a "user" key, description "quic peer:
 * SUBJECT DN", payload the DER of the peer's own certificate.  None when
 * the peer showed no certificate (a client without one).
 */
static void peer_identity(struct hsd_tls *t, struct hsd_result *res)
{
	const gnutls_datum_t *certs;
	gnutls_x509_crt_t crt;
	char desc[256] = "quic peer: ";
	size_t dlen = sizeof(desc) - strlen(desc);
	unsigned int n = 0;
	int err, link_err = 0;

	certs = gnutls_certificate_get_peers(t->session, &n);
	if (!certs || !n)
		return;
	if (gnutls_x509_crt_init(&crt) >= 0) {
		if (gnutls_x509_crt_import(crt, &certs[0], GNUTLS_X509_FMT_DER) < 0 ||
		    gnutls_x509_crt_get_dn(crt, desc + strlen(desc), &dlen) < 0)
			snprintf(desc, sizeof(desc), "quic peer: (no subject)");
		gnutls_x509_crt_deinit(crt);
	}
	err = hsd_peer_key(desc, certs[0].data, certs[0].size,
			   &res->peerids[0], &link_err);
	if (err) {
		/* the handshake stands; the kernel user gets TLS_NO_PEERID */
		why(res, "peer certificate key: %s%s", strerror(-err), "");
		return;
	}
	res->n_peerids = 1;
	if (link_err)
		why(res, "peer certificate key not linked into the request's keyring: %s%s",
		    strerror(-link_err), "");
}

static void tls_free(struct hsd_tls *t)
{
	unsigned int i;

	if (t->session)
		gnutls_deinit(t->session);
	if (t->cert)
		gnutls_certificate_free_credentials(t->cert);
	if (t->psk_client)
		gnutls_psk_free_client_credentials(t->psk_client);
	if (t->psk_server)
		gnutls_psk_free_server_credentials(t->psk_server);
	for (i = 0; i < t->n_pcerts; i++)
		gnutls_pcert_deinit(&t->pcerts[i]);
	if (t->privkey)
		gnutls_privkey_deinit(t->privkey);
	memset(t->psks, 0, sizeof(t->psks));
}

void hsd_quic_handshake(const struct hsd_req *req, const struct hsd_conf *conf,
			struct hsd_result *res)
{
	int server = req->msg_type == HANDSHAKE_MSG_TYPE_SERVERHELLO;
	unsigned int timeout = req->timeout_ms ? req->timeout_ms : conf->timeout_ms;
	struct hsd_tls *t;
	int err, ret, alpns;
	size_t len;

	t = calloc(1, sizeof(*t));
	if (!t) {
		res->err = -ENOMEM;
		return;
	}
	t->conf = conf;
	t->res = res;
	t->matched = -1;
	res->auth = req->auth == HANDSHAKE_AUTH_PSK ? "psk" :
		    req->auth == HANDSHAKE_AUTH_X509 ? "x509" :
		    req->auth == HANDSHAKE_AUTH_UNAUTH ? "anon" : "?";
	if (!server && req->msg_type != HANDSHAKE_MSG_TYPE_CLIENTHELLO) {
		why(res, "unknown message type%s%s", "", "");
		err = -EINVAL;
		goto out;
	}
	ret = gnutls_init(&t->session, (server ? GNUTLS_SERVER : GNUTLS_CLIENT) |
			  GNUTLS_NO_END_OF_EARLY_DATA);
	if (ret < 0) {
		err = -ENOMEM;
		goto out;
	}
	ret = gnutls_priority_set_direct(t->session, QUIC_PRIORITY, NULL);
	if (ret < 0) {
		err = -EINVAL;
		goto out;
	}
	switch (req->auth) {
	case HANDSHAKE_AUTH_PSK:
		err = setup_psk(t, req, server);
		break;
	case HANDSHAKE_AUTH_X509:
		err = setup_x509(t, req, server, 0);
		break;
	case HANDSHAKE_AUTH_UNAUTH:	/* a client that shows no certificate */
		err = server ? -EINVAL : setup_x509(t, req, 0, 1);
		break;
	default:
		why(res, "unknown auth mode%s%s", "", "");
		err = -EINVAL;
	}
	if (err)
		goto out;
	alpns = setup_alpn(t, req->sockfd);
	if (alpns < 0) {
		err = alpns;
		why(res, "bad ALPN list on the socket%s%s", "", "");
		goto out;
	}
	if (server) {
		setup_tickets(t, req->sockfd);
		quic_handshake_early_hello(t->session);
	}
	gnutls_transport_set_int(t->session, req->sockfd);
	err = run_handshake(t->session, req->sockfd, timeout);
	if (err && t->psk_unknown)
		err = -EKEYREJECTED;	/* authentication, not a TLS fault */
	if (err) {
		if (err == -ETIMEDOUT)
			why(res, "no answer in time%s%s", "", "");
		else
			why(res, "%s%s", strerror(-err), "");
		goto out;
	}
	len = sizeof(res->alpn);
	if (quic_session_get_alpn(t->session, res->alpn, &len))
		res->alpn[0] = 0;
	if (alpns > 0 && !res->alpn[0]) {
		why(res, "no ALPN in common%s%s", "", "");
		err = -EPROTO;
		goto out;
	}
	if (req->auth == HANDSHAKE_AUTH_PSK && t->matched >= 0 &&
	    t->psks[t->matched].serial > 0) {
		res->peerids[0] = t->psks[t->matched].serial;
		res->n_peerids = 1;
	} else if (req->auth != HANDSHAKE_AUTH_PSK) {
		peer_identity(t, res);
	}
out:
	res->err = err;
	tls_free(t);
	free(t);
}

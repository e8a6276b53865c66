// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * quic_client_handshake(), quic_server_handshake(): sessions and credentials
 * built by libquic (certificates verified against the system trust store
 * or the CA file of QUIC_CA_FILE, or PSK), and the session data / ALPN
 * helpers.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/tls.h>

#include <gnutls/crypto.h>

#include "internal.h"

#define QUIC_ALPN_MAX		64	/* protocols in one list */
#define QUIC_TICKET_KEY_SIZE	64	/* GnuTLS's */
#define QUIC_TICKET_KEY_MIN	16	/* shorter ones are not used */
#define QUIC_TICKET_KEY_MAX	256
#define QUIC_SESSION_MAX	8192

/* ---- PSK files: "identity:hexkey" per line ---- */

struct psk_entry {
	char *identity;
	char *hexkey;
};

struct psk_file {
	struct psk_entry *entries;
	size_t count;
	int matched;		/* server: a client's identity was found */
};

static void psk_file_free(struct psk_file *pf)
{
	size_t i;

	for (i = 0; i < pf->count; i++) {
		free(pf->entries[i].identity);
		if (pf->entries[i].hexkey) {
			memset(pf->entries[i].hexkey, 0, strlen(pf->entries[i].hexkey));
			free(pf->entries[i].hexkey);
		}
	}
	free(pf->entries);
	pf->entries = NULL;
	pf->count = 0;
}

static int is_hex(const char *s)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (!isxdigit((unsigned char)*s))
			return 0;
	return n && !(n & 1);
}

static int psk_file_load(const char *path, struct psk_file *pf)
{
	char line[2048];
	unsigned int lineno = 0;
	FILE *f;
	int err = 0;

	memset(pf, 0, sizeof(*pf));
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		quic_log(QUIC_LOG_ERROR, "PSK file %s: %s", path, strerror(errno));
		return err;
	}
	while (fgets(line, sizeof(line), f)) {
		struct psk_entry *e;
		char *colon, *p;

		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (!*p || *p == '#')
			continue;
		colon = strrchr(p, ':');
		if (!colon || colon == p || !is_hex(colon + 1)) {
			quic_log(QUIC_LOG_ERROR, "PSK file %s:%u: expected identity:hexkey",
				 path, lineno);
			err = -EINVAL;
			break;
		}
		*colon = 0;
		e = realloc(pf->entries, (pf->count + 1) * sizeof(*e));
		if (!e) {
			err = -ENOMEM;
			break;
		}
		pf->entries = e;
		e = &pf->entries[pf->count];
		e->identity = strdup(p);
		e->hexkey = strdup(colon + 1);
		pf->count++;
		if (!e->identity || !e->hexkey) {
			err = -ENOMEM;
			break;
		}
	}
	memset(line, 0, sizeof(line));
	fclose(f);
	if (!err && !pf->count) {
		quic_log(QUIC_LOG_ERROR, "PSK file %s: no entry", path);
		err = -EINVAL;
	}
	if (err)
		psk_file_free(pf);
	return err;
}

static int psk_server_lookup(gnutls_session_t session, const char *username,
			     gnutls_datum_t *key)
{
	struct psk_file *pf = gnutls_session_get_ptr(session);
	size_t i;

	for (i = 0; pf && i < pf->count; i++) {
		if (!strcmp(pf->entries[i].identity, username)) {
			pf->matched = 1;
			gnutls_datum_t hex = {
				(unsigned char *)pf->entries[i].hexkey,
				(unsigned int)strlen(pf->entries[i].hexkey),
			};

			return gnutls_hex_decode2(&hex, key) < 0 ? -1 : 0;
		}
	}
	quic_log(QUIC_LOG_ERROR, "server: unknown PSK identity '%s'", username);
	return -1;
}

/* ---- ALPN ---- */

static int alpn_set(gnutls_session_t session, const char *list, size_t size,
		    int server)
{
	gnutls_datum_t protos[QUIC_ALPN_MAX];
	unsigned int n = 0, flags = GNUTLS_ALPN_MANDATORY;
	size_t i = 0, start;
	int ret;

	while (i < size) {
		start = i;
		while (i < size && list[i] != ',' && list[i])
			i++;
		if (i > start) {
			if (i - start > 255 || n == QUIC_ALPN_MAX)
				return -EINVAL;
			protos[n].data = (unsigned char *)list + start;
			protos[n].size = (unsigned int)(i - start);
			n++;
		}
		if (i < size && !list[i])
			break;
		i++;
	}
	if (!n)
		return 0;
	if (server)
		flags |= GNUTLS_ALPN_SERVER_PRECEDENCE;
	ret = gnutls_alpn_set_protocols(session, protos, n, flags);
	return ret < 0 ? quic_gnutls_errno(ret) : (int)n;
}

/* alpns, or else the socket's QUIC_SOCKOPT_ALPN list.  Returns the number
 * of protocols set.
 */
static int alpn_setup(gnutls_session_t session, int fd, const char *alpns,
		      int server)
{
	char buf[1024];
	socklen_t len = sizeof(buf);

	if (alpns)
		return alpn_set(session, alpns, strlen(alpns), server);
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, buf, &len) < 0 || !len)
		return 0;
	return alpn_set(session, buf, len, server);
}

QUIC_EXPORT int quic_session_set_alpn(gnutls_session_t session,
				      const void *data, size_t size)
{
	int ret;

	if (!session || (!data && size))
		return -EINVAL;
	ret = alpn_set(session, data, size, quic_session_is_server(session));
	return ret < 0 ? ret : 0;
}

QUIC_EXPORT int quic_session_get_alpn(gnutls_session_t session, void *data,
				      size_t *size)
{
	gnutls_datum_t alpn;

	if (!session || !size)
		return -EINVAL;
	if (gnutls_alpn_get_selected_protocol(session, &alpn) < 0 || !alpn.size)
		return -ENOENT;
	if (!data || *size < (size_t)alpn.size + 1) {
		*size = alpn.size;
		return data ? -ENOSPC : 0;
	}
	memcpy(data, alpn.data, alpn.size);
	((char *)data)[alpn.size] = 0;
	*size = alpn.size;
	return 0;
}

/* ---- session data ---- */

int quic_is_ticket_messages(const uint8_t *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return 0;
	while (off < len) {
		size_t mlen;

		if (len - off < 4 || buf[off] != GNUTLS_HANDSHAKE_NEW_SESSION_TICKET)
			return 0;
		mlen = ((size_t)buf[off + 1] << 16) | ((size_t)buf[off + 2] << 8) |
		       buf[off + 3];
		if (mlen > len - off - 4)
			return 0;
		off += 4 + mlen;
	}
	return 1;
}

QUIC_EXPORT int quic_session_get_data(gnutls_session_t session, void *data,
				      size_t *size)
{
	uint8_t ticket[QUIC_SESSION_MAX];
	socklen_t len = sizeof(ticket);
	gnutls_datum_t d;
	int fd, ret;

	if (!session || !size)
		return -EINVAL;
	if (quic_session_is_server(session))
		return -EINVAL;

	/* The NewSessionTicket the kernel received after the handshake */
	fd = gnutls_transport_get_int(session);
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, ticket, &len) == 0 &&
	    quic_is_ticket_messages(ticket, len)) {
		ret = gnutls_handshake_write(session, GNUTLS_ENCRYPTION_LEVEL_APPLICATION,
					     ticket, len);
		if (ret < 0)
			quic_log(QUIC_LOG_ERROR, "client: the session ticket was not accepted: %s",
				 gnutls_strerror(ret));
	}

	ret = gnutls_session_get_data2(session, &d);
	if (ret < 0)
		return quic_gnutls_errno(ret);
	if (!data || *size < d.size) {
		*size = d.size;
		ret = data ? -ENOSPC : 0;
	} else {
		memcpy(data, d.data, d.size);
		*size = d.size;
		ret = 0;
	}
	gnutls_free(d.data);
	return ret;
}

/*
 * A server's ticket key.  GnuTLS takes 64 bytes; a key of another size (16
 * bytes at least, such as a kernel-generated one) is stretched to 64 with
 * SHA-512, the same way in every process that shares it.
 */
static int ticket_key_enable(gnutls_session_t session, const void *key,
			     size_t len)
{
	uint8_t stretched[QUIC_TICKET_KEY_SIZE];
	gnutls_datum_t d = { (unsigned char *)key, QUIC_TICKET_KEY_SIZE };
	int ret;

	if (len < QUIC_TICKET_KEY_MIN)
		return GNUTLS_E_INVALID_REQUEST;
	if (len != QUIC_TICKET_KEY_SIZE) {
		ret = gnutls_hash_fast(GNUTLS_DIG_SHA512, key, len, stretched);
		if (ret < 0)
			return ret;
		d.data = stretched;
	}
	ret = gnutls_session_ticket_enable_server(session, &d);
	memset(stretched, 0, sizeof(stretched));
	return ret;
}

QUIC_EXPORT int quic_session_set_data(gnutls_session_t session,
				      const void *data, size_t size)
{
	int ret;

	if (!session || !data || !size)
		return -EINVAL;
	if (quic_session_is_server(session))
		ret = ticket_key_enable(session, data, size);
	else
		ret = gnutls_session_set_data(session, data, size);
	return ret < 0 ? quic_gnutls_errno(ret) : 0;
}

/* ---- the two ready-made handshakes ---- */

static gnutls_datum_t process_ticket_key;
static int process_ticket_key_err;
static pthread_once_t ticket_key_once = PTHREAD_ONCE_INIT;

static void ticket_key_init(void)
{
	process_ticket_key_err = gnutls_session_ticket_key_generate(&process_ticket_key);
}

/*
 * The ticket key: the socket's (set by the application, or generated by the
 * kernel), else a random one per process.
 */
static int server_tickets(gnutls_session_t session, int fd)
{
	uint8_t key[QUIC_TICKET_KEY_MAX];
	socklen_t len = sizeof(key);
	int ret;

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, key, &len) == 0 &&
	    len >= QUIC_TICKET_KEY_MIN) {
		ret = ticket_key_enable(session, key, len);
		memset(key, 0, sizeof(key));
		return ret;
	}
	pthread_once(&ticket_key_once, ticket_key_init);
	if (process_ticket_key_err < 0)
		return process_ticket_key_err;
	return gnutls_session_ticket_enable_server(session, &process_ticket_key);
}

/* QUIC_CA_FILE: the CA file the ready-made handshakes trust, or NULL. */
static const char *ca_file(void)
{
	const char *path = secure_getenv("QUIC_CA_FILE");

	return path && *path ? path : NULL;
}

/*
 * Trust anchors for verification: the CA file of QUIC_CA_FILE, else the
 * system trust store.  Returns the number of CAs (> 0) or a GnuTLS error.
 */
static int trust_setup(gnutls_certificate_credentials_t cert, const char *who)
{
	const char *path = ca_file();
	int ret;

	if (path) {
		ret = gnutls_certificate_set_x509_trust_file(cert, path,
							     GNUTLS_X509_FMT_PEM);
		if (ret <= 0) {
			quic_log(QUIC_LOG_ERROR, "%s: CA file %s: %s", who, path,
				 ret ? gnutls_strerror(ret) : "no certificate");
			return ret ? ret : GNUTLS_E_FILE_ERROR;
		}
		return ret;
	}
	ret = gnutls_certificate_set_x509_system_trust(cert);
	if (ret == 0)
		quic_log(QUIC_LOG_ERROR, "%s: the system trust store is empty", who);
	return ret;
}

static void client_resume(gnutls_session_t session, int fd)
{
	uint8_t data[QUIC_SESSION_MAX];
	socklen_t len = sizeof(data);
	int ret;

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, data, &len) < 0 ||
	    !len)
		return;
	ret = gnutls_session_set_data(session, data, len);
	if (ret < 0)
		quic_log(QUIC_LOG_INFO, "client: session data on the socket not usable: %s",
			 gnutls_strerror(ret));
}

/*
 * The priorities of the ready-made handshakes: @base, with only the cipher
 * of the socket's payload_cipher_type (QUIC_SOCKOPT_CONFIG) if it has one.
 */
static int priority_set(gnutls_session_t session, const char *base,
			const struct quic_config *config)
{
	static const struct { uint32_t type; const char *name; } ciphers[] = {
		{ TLS_CIPHER_AES_GCM_128, "AES-128-GCM" },
		{ TLS_CIPHER_AES_GCM_256, "AES-256-GCM" },
		{ TLS_CIPHER_AES_CCM_128, "AES-128-CCM" },
		{ TLS_CIPHER_CHACHA20_POLY1305, "CHACHA20-POLY1305" },
	};
	char prio[512];
	size_t i;

	if (!config->payload_cipher_type)
		return gnutls_priority_set_direct(session, base, NULL);
	for (i = 0; i < sizeof(ciphers) / sizeof(ciphers[0]); i++) {
		if (ciphers[i].type != config->payload_cipher_type)
			continue;
		snprintf(prio, sizeof(prio), "%s:-CIPHER-ALL:+%s", base,
			 ciphers[i].name);
		return gnutls_priority_set_direct(session, prio, NULL);
	}
	quic_log(QUIC_LOG_ERROR, "payload_cipher_type %u is not a QUIC cipher",
		 config->payload_cipher_type);
	return GNUTLS_E_INVALID_REQUEST;
}

/*
 * The server's check of a client certificate it asked for: the chain
 * against the system trust store or the CA file of QUIC_CA_FILE.  No certificate at all passes here;
 * GnuTLS itself fails a handshake without one when it is required.
 */
static int verify_client(gnutls_session_t session)
{
	unsigned int n = 0, status = 0;

	if (!gnutls_certificate_get_peers(session, &n) || !n)
		return 0;
	if (gnutls_certificate_verify_peers2(session, &status) < 0 || status)
		return -1;	/* the handshake fails: GNUTLS_E_CERTIFICATE_ERROR */
	return 0;
}

static int is_ip_literal(const char *host)
{
	unsigned char addr[16];

	return inet_pton(AF_INET, host, addr) == 1 ||
	       inet_pton(AF_INET6, host, addr) == 1;
}

static int gnutls_fail(const char *what, int ret)
{
	quic_log(QUIC_LOG_ERROR, "%s: %s", what, gnutls_strerror(ret));
	return quic_gnutls_errno(ret);
}

static int client_handshake_once(int sockfd, const char *pkey_file,
				 const char *hostname, const char *alpns)
{
	gnutls_certificate_credentials_t cert = NULL;
	gnutls_psk_client_credentials_t psk = NULL;
	gnutls_session_t session = NULL;
	struct quic_config config;
	unsigned int flags = 0;
	struct psk_file pf;
	int ret, err;

	if (sockfd < 0)
		return -EINVAL;
	quic_sock_config(sockfd, &config);
	if (hostname && !*hostname)
		hostname = NULL;
	ret = gnutls_init(&session, GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA |
			  quic_early_client_flags(sockfd));
	if (ret < 0)
		return gnutls_fail("gnutls_init", ret);

	if (pkey_file) {
		gnutls_datum_t key;

		err = psk_file_load(pkey_file, &pf);
		if (err)
			goto out;
		key.data = (unsigned char *)pf.entries[0].hexkey;
		key.size = (unsigned int)strlen(pf.entries[0].hexkey);
		ret = gnutls_psk_allocate_client_credentials(&psk);
		if (ret >= 0)
			ret = gnutls_psk_set_client_credentials(psk, pf.entries[0].identity,
								&key, GNUTLS_PSK_KEY_HEX);
		psk_file_free(&pf);
		if (ret >= 0)
			ret = gnutls_credentials_set(session, GNUTLS_CRD_PSK, psk);
		if (ret >= 0)
			ret = priority_set(session, QUIC_PRIORITY, &config);
	} else {
		/* no host name: the chain only, and only with QUIC_CA_FILE */
		int verify = hostname || ca_file();

		ret = gnutls_certificate_allocate_credentials(&cert);
		if (ret >= 0 && verify)
			ret = trust_setup(cert, "client");
		if (ret >= 0)
			ret = gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, cert);
		if (ret >= 0)
			ret = priority_set(session, QUIC_PRIORITY, &config);
		if (ret >= 0 && verify)
			gnutls_session_set_verify_cert(session, hostname, 0);
		if (!verify)
			quic_log(QUIC_LOG_INFO, "client: no host name: the server certificate is not verified");
	}
	if (ret >= 0 && hostname && !is_ip_literal(hostname))
		ret = gnutls_server_name_set(session, GNUTLS_NAME_DNS, hostname,
					     strlen(hostname));
	if (ret < 0) {
		err = gnutls_fail("client setup", ret);
		goto out;
	}

	err = alpn_setup(session, sockfd, alpns, 0);
	if (err < 0)
		goto out;
	if (err > 0)
		flags |= QUIC_HS_ALPN_REQUIRED;
	client_resume(session, sockfd);
	gnutls_transport_set_int(session, sockfd);
	err = quic_hs_run_blocking(session, flags, NULL);
out:
	gnutls_deinit(session);
	if (cert)
		gnutls_certificate_free_credentials(cert);
	if (psk)
		gnutls_psk_free_client_credentials(psk);
	return err;
}

/*
 * The handshake; after a Version Negotiation that lists a version the
 * kernel speaks, once more on a new socket in that version, under the
 * same descriptor (vn_restart.c).
 */
QUIC_EXPORT int quic_client_handshake(int sockfd, const char *pkey_file,
				      const char *hostname, const char *alpns)
{
	struct sockaddr_storage peer;
	socklen_t peer_len = sizeof(peer);
	struct quic_config config;
	int err;

	if (sockfd < 0)
		return -EINVAL;
	quic_sock_config(sockfd, &config);
	if (getpeername(sockfd, (struct sockaddr *)&peer, &peer_len))
		peer_len = 0;
	err = client_handshake_once(sockfd, pkey_file, hostname, alpns);
	if (err != -EPROTONOSUPPORT || !peer_len || !config.version ||
	    quic_vn_restart(sockfd, config.version, (struct sockaddr *)&peer,
			    peer_len))
		return err;
	return client_handshake_once(sockfd, pkey_file, hostname, alpns);
}

QUIC_EXPORT int quic_server_handshake(int sockfd, const char *pkey_file,
				      const char *cert_file, const char *alpns)
{
	gnutls_certificate_credentials_t cert = NULL;
	gnutls_psk_server_credentials_t psk = NULL;
	gnutls_session_t session = NULL;
	struct psk_file pf = { NULL, 0, 0 };
	struct quic_config config;
	unsigned int flags = 0;
	int ret, err, alert;

	if (sockfd < 0 || !pkey_file)
		return -EINVAL;
	quic_sock_config(sockfd, &config);
	if (config.certificate_request && !cert_file) {
		quic_log(QUIC_LOG_ERROR, "server: certificate_request needs a certificate, not PSK");
		return -EINVAL;
	}
	ret = gnutls_init(&session, GNUTLS_SERVER | GNUTLS_NO_END_OF_EARLY_DATA |
			  quic_early_server_flags());
	if (ret < 0)
		return gnutls_fail("gnutls_init", ret);

	if (cert_file) {
		ret = gnutls_certificate_allocate_credentials(&cert);
		if (ret >= 0) {
			ret = gnutls_certificate_set_x509_key_file2(cert, cert_file,
					pkey_file, GNUTLS_X509_FMT_PEM, NULL, 0);
			if (ret < 0)
				quic_log(QUIC_LOG_ERROR, "server: loading %s / %s: %s",
					 cert_file, pkey_file, gnutls_strerror(ret));
		}
		/* certificate_request: client chains verified like servers' */
		if (ret >= 0 && config.certificate_request) {
			ret = trust_setup(cert, "server");
			gnutls_certificate_set_verify_function(cert, verify_client);
			/* the names of a CA file's CAs, not of every CA in the
			 * system store (kilobytes)
			 */
			if (!ca_file())
				gnutls_certificate_send_x509_rdn_sequence(session, 1);
		}
		if (ret >= 0)
			ret = gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, cert);
		if (ret >= 0)
			ret = priority_set(session, QUIC_PRIORITY, &config);
	} else {
		err = psk_file_load(pkey_file, &pf);
		if (err)
			goto out;
		gnutls_session_set_ptr(session, &pf);
		ret = gnutls_psk_allocate_server_credentials(&psk);
		if (ret >= 0) {
			gnutls_psk_set_server_credentials_function(psk, psk_server_lookup);
			ret = gnutls_credentials_set(session, GNUTLS_CRD_PSK, psk);
		}
		if (ret >= 0)
			ret = priority_set(session, QUIC_PRIORITY, &config);
	}
	if (ret >= 0)
		ret = server_tickets(session, sockfd);
	if (ret < 0) {
		err = ret == GNUTLS_E_FILE_ERROR ? -ENOENT :
		      ret == GNUTLS_E_MEMORY_ERROR ? -ENOMEM : -EINVAL;
		quic_log(QUIC_LOG_ERROR, "server setup: %s", gnutls_strerror(ret));
		goto out;
	}

	err = alpn_setup(session, sockfd, alpns, 1);
	if (err < 0)
		goto out;
	if (err > 0)
		flags |= QUIC_HS_ALPN_REQUIRED;
	gnutls_transport_set_int(session, sockfd);
	quic_handshake_early_hello(session);	/* our own session: no hook */
	err = quic_hs_run_blocking(session, flags, &alert);
	if (err == -EPROTO && !cert_file && pf.matched &&
	    alert == GNUTLS_A_ILLEGAL_PARAMETER) {
		/* GnuTLS's way of saying that the ClientHello's PSK binder
		 * did not verify: the client has another key
		 */
		quic_log(QUIC_LOG_ERROR, "server: the client's PSK did not match");
		err = -EKEYREJECTED;
	}
out:
	gnutls_deinit(session);
	if (cert)
		gnutls_certificate_free_credentials(cert);
	if (psk)
		gnutls_psk_free_server_credentials(psk);
	psk_file_free(&pf);
	return err;
}

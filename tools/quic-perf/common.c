// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quic-perf: what client and server share: clocks and CPU use, the TLS
 * handshake (certificate, ephemeral self-signed certificate, or PSK), and
 * the text lines of the control stream.
 */

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <gnutls/crypto.h>
#include <gnutls/x509.h>
#include <netinet/quic.h>

#include "perf.h"

double perf_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void perf_cpu_get(struct perf_cpu *c)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	c->user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	c->sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	c->wall = perf_now();
}

void perf_cpu_sub(struct perf_cpu *d, const struct perf_cpu *a,
		  const struct perf_cpu *b)
{
	d->user = a->user - b->user;
	d->sys = a->sys - b->sys;
	d->wall = a->wall - b->wall;
}

void perf_fill(uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)('a' + i % 26);
}

/* QUIC_SOCKOPT_CONFIG before connect()/listen(): stream_data_nodelay */
int perf_set_config(int fd, const struct perf_opts *o)
{
	struct quic_config c;
	socklen_t len = sizeof(c);

	if (!o->nodelay)
		return 0;
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &c, &len))
		return -1;
	c.stream_data_nodelay = 1;
	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &c, sizeof(c));
}

/* ---- TLS ---------------------------------------------------------------- */

static gnutls_certificate_credentials_t srv_cred;

/* An ephemeral ECDSA P-256 certificate for CN=quic-perf, self-signed. */
static int selfsign(gnutls_certificate_credentials_t cred)
{
	gnutls_x509_privkey_t key = NULL;
	gnutls_x509_crt_t crt = NULL;
	unsigned char serial[8];
	time_t now = time(NULL);
	int ret;

	ret = gnutls_x509_privkey_init(&key);
	if (!ret)
		ret = gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
				GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0);
	if (!ret)
		ret = gnutls_x509_crt_init(&crt);
	if (!ret)
		ret = gnutls_x509_crt_set_version(crt, 3);
	if (!ret)
		ret = gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial));
	serial[0] &= 0x7f;
	if (!ret)
		ret = gnutls_x509_crt_set_serial(crt, serial, sizeof(serial));
	if (!ret)
		ret = gnutls_x509_crt_set_activation_time(crt, now - 3600);
	if (!ret)
		ret = gnutls_x509_crt_set_expiration_time(crt, now + 86400 * 30);
	if (!ret)
		ret = gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME,
						    0, "quic-perf", 9);
	if (!ret)
		ret = gnutls_x509_crt_set_key(crt, key);
	if (!ret)
		ret = gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0);
	if (!ret)
		ret = gnutls_certificate_set_x509_key(cred, &crt, 1, key);
	if (crt)
		gnutls_x509_crt_deinit(crt);
	if (key)
		gnutls_x509_privkey_deinit(key);
	return ret;
}

int perf_tls_server_init(const struct perf_opts *o)
{
	int ret;

	if (o->psk)
		return 0;
	ret = gnutls_certificate_allocate_credentials(&srv_cred);
	if (!ret && o->cert)
		ret = gnutls_certificate_set_x509_key_file(srv_cred, o->cert, o->key,
							   GNUTLS_X509_FMT_PEM);
	else if (!ret)
		ret = selfsign(srv_cred);
	if (ret < 0) {
		fprintf(stderr, "quic-perf: server certificate: %s\n",
			gnutls_strerror(ret));
		return -1;
	}
	return 0;
}

static int run_session(gnutls_session_t s, int fd)
{
	int ret = quic_session_set_alpn(s, PERF_ALPN, strlen(PERF_ALPN));

	if (ret)
		return ret;
	gnutls_transport_set_int(s, fd);
	return quic_handshake(s);
}

int perf_tls_server(int fd, const struct perf_opts *o)
{
	gnutls_session_t s;
	int ret;

	if (o->psk)
		return quic_server_handshake(fd, o->psk, NULL, PERF_ALPN);
	ret = gnutls_init(&s, GNUTLS_SERVER | GNUTLS_NO_TICKETS);
	if (!ret)
		ret = quic_handshake_early_hello(s);
	if (!ret)
		ret = gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, srv_cred);
	if (!ret)
		ret = gnutls_priority_set_direct(s, QUIC_PRIORITY, NULL);
	if (ret) {
		fprintf(stderr, "quic-perf: TLS setup: %s\n", gnutls_strerror(ret));
		ret = -EINVAL;
	} else {
		ret = run_session(s, fd);
	}
	gnutls_deinit(s);
	return ret;
}

/*
 * The client's trust (--ca or the system store), loaded once: each
 * handshake of --handshakes then costs what a TLS client's does, not a
 * parse of the trust store as well.
 */
static gnutls_certificate_credentials_t cli_cred;

static int client_cred(const struct perf_opts *o)
{
	int ret;

	if (cli_cred)
		return 0;
	ret = gnutls_certificate_allocate_credentials(&cli_cred);
	if (ret)
		return ret;
	if (o->ca)
		ret = gnutls_certificate_set_x509_trust_file(cli_cred, o->ca,
							     GNUTLS_X509_FMT_PEM) < 0;
	else if (!o->insecure)
		ret = gnutls_certificate_set_x509_system_trust(cli_cred) < 0;
	if (ret) {
		gnutls_certificate_free_credentials(cli_cred);
		cli_cred = NULL;
	}
	return ret;
}

int perf_tls_client(int fd, const struct perf_opts *o)
{
	gnutls_session_t s;
	int ret;

	if (o->psk)
		return quic_client_handshake(fd, o->psk, NULL, PERF_ALPN);
	ret = client_cred(o);
	if (ret) {
		fprintf(stderr, "quic-perf: TLS setup failed (trust store)\n");
		return -EINVAL;
	}
	ret = gnutls_init(&s, GNUTLS_CLIENT);
	if (ret) {
		fprintf(stderr, "quic-perf: TLS setup failed\n");
		return -ENOMEM;
	}
	ret = gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cli_cred);
	if (!ret)
		ret = gnutls_priority_set_direct(s, QUIC_PRIORITY, NULL);
	if (!ret && !o->insecure)
		gnutls_session_set_verify_cert(s, o->host, 0);
	if (ret) {
		fprintf(stderr, "quic-perf: TLS setup failed\n");
		ret = -EINVAL;
	} else {
		ret = run_session(s, fd);
	}
	gnutls_deinit(s);
	return ret;
}

/* ---- streams and the control stream ------------------------------------- */

/* All of buf on stream sid (blocking); 0 or -1 with errno. */
int perf_send(int fd, const void *buf, size_t len, int64_t sid, uint32_t flags)
{
	const uint8_t *p = buf;
	ssize_t n;

	do {
		n = quic_sendmsg(fd, p, len, sid, flags);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	} while (len);
	return 0;
}

int perf_ctl_printf(int fd, const char *fmt, ...)
{
	char line[PERF_LINE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -1;
	return perf_send(fd, line, (size_t)n, PERF_CTL_SID, 0);
}

int perf_ctl_add(struct perf_ctl *c, const uint8_t *data, size_t n)
{
	if (n > sizeof(c->buf) - c->len)
		return -1;
	memcpy(c->buf + c->len, data, n);
	c->len += n;
	return 0;
}

/* The next complete line (without its newline): 1, or 0 if none yet. */
int perf_ctl_line(struct perf_ctl *c, char *line, size_t lsz)
{
	char *nl = memchr(c->buf, '\n', c->len);
	size_t l;

	if (!nl)
		return 0;
	l = (size_t)(nl - c->buf);
	if (l >= lsz)
		l = lsz - 1;
	memcpy(line, c->buf, l);
	line[l] = 0;
	l = (size_t)(nl - c->buf) + 1;
	memmove(c->buf, c->buf + l, c->len - l);
	c->len -= l;
	return 1;
}

/* "key=value" in a line of space-separated words */
int perf_kv(const char *line, const char *key, char *val, size_t len)
{
	size_t kl = strlen(key);
	const char *p = line;

	while (*p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, " ");

			if (n >= len)
				return -1;
			memcpy(val, p + kl + 1, n);
			val[n] = 0;
			return 0;
		}
		p += strcspn(p, " ");
	}
	return -1;
}

uint64_t perf_kv_u64(const char *line, const char *key, uint64_t def)
{
	char v[32];

	return perf_kv(line, key, v, sizeof(v)) ? def : strtoull(v, NULL, 10);
}

double perf_kv_double(const char *line, const char *key, double def)
{
	char v[32];

	return perf_kv(line, key, v, sizeof(v)) ? def : strtod(v, NULL);
}

/*
 * Blocking reads of @fd give up after @ms with EAGAIN (0: never), as RR's
 * loops read without poll(): one system call a read, as ktls_perf's
 * recv() has, instead of poll() and recvmsg().
 */
int perf_recv_timeout(int fd, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000,
			      .tv_usec = (ms % 1000) * 1000 };

	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* 1 readable, 0 timeout, -1 error */
int perf_wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, ms);
	while (n < 0 && errno == EINTR);
	return n;
}

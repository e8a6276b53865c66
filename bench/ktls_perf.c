// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktls_perf: the TCP and kTLS side of bench/run, with quic-perf's modes.
 *
 *   ktls_perf -s [-p PORT] --cert F --key F
 *   ktls_perf -c HOST [-p PORT] [--tls] [--bulk|--rr|--handshakes|--idle N]
 *             [-t SECS] [-l LEN[K|M]] [--ca FILE]
 *
 * The client sends a 16-byte header in clear (mode, TLS or not, length,
 * milliseconds); with --tls a GnuTLS 1.3 handshake (AES-128-GCM, no
 * tickets) follows and both ends move the keys into the kernel (TCP_ULP
 * "tls", TLS_TX and TLS_RX): all data then goes through kTLS.  Bulk: the
 * client writes LEN bytes at a time for SECS; RR: LEN bytes each way per
 * transaction; --handshakes: connect, handshake, close, repeat (always
 * TLS, no kTLS); --idle N: N connections held for SECS.  With --ca the
 * client verifies the server's chain against FILE and its name HOST, as
 * quic-perf --ca does (loaded once); without it the chain is not checked.
 * The client ends with shutdown(SHUT_WR); the server answers with a line
 * of its figures.
 * The result is one JSON object on stdout, like quic-perf --json.
 */

#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <linux/tls.h>
#include <gnutls/gnutls.h>

#include "size.h"

#ifndef SOL_TLS
#define SOL_TLS 282
#endif

enum { M_BULK, M_RR, M_HS, M_IDLE };

struct hdr {
	char magic[4];
	uint8_t mode, tls, pad[2];
	uint32_t len, ms;
};

static const char *prio = "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM";
static gnutls_certificate_credentials_t cred;
static const char *verify_host;	/* client with --ca: the name to check */

/*
 * -l LEN through quic-perf's own parser (tools/quic-perf/size.c): bench/ab
 * and bench/rr_count give both tools the same "4K", read alike.  With
 * atoi() it was 4 bytes: every kTLS "RR 4 KiB" run before 2026-11-28 moved
 * 4-byte messages.  0 (refused by main()) for junk or over 32 bits.
 */
static uint32_t parse_len(const char *s)
{
	int err = 0;
	uint64_t v = perf_parse_size(s, &err);

	return err || v > UINT32_MAX ? 0 : (uint32_t)v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int full(int fd, void *buf, size_t len, int wr)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = wr ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int ktls_dir(int fd, gnutls_session_t s, int rx)
{
	struct tls12_crypto_info_aes_gcm_128 ci = { 0 };
	gnutls_datum_t mac, iv, key;
	unsigned char seq[8];

	if (gnutls_record_get_state(s, rx, &mac, &iv, &key, seq) ||
	    iv.size != 12 || key.size != 16)
		return -1;
	ci.info.version = TLS_1_3_VERSION;
	ci.info.cipher_type = TLS_CIPHER_AES_GCM_128;
	memcpy(ci.salt, iv.data, 4);
	memcpy(ci.iv, iv.data + 4, 8);
	memcpy(ci.key, key.data, 16);
	memcpy(ci.rec_seq, seq, 8);
	return setsockopt(fd, SOL_TLS, rx ? TLS_RX : TLS_TX, &ci, sizeof(ci));
}

/* GnuTLS handshake on a TCP socket; with ktls, keys into the kernel. */
static int tls(int fd, int server, int ktls)
{
	gnutls_session_t s;
	int ret;

	ret = gnutls_init(&s, server ? GNUTLS_SERVER | GNUTLS_NO_TICKETS : GNUTLS_CLIENT);
	if (!ret)
		ret = gnutls_priority_set_direct(s, prio, NULL);
	if (!ret)
		ret = gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cred);
	if (ret) {
		gnutls_deinit(s);
		return -1;
	}
	if (!server && verify_host)
		gnutls_session_set_verify_cert(s, verify_host, 0);
	gnutls_transport_set_int(s, fd);
	do
		ret = gnutls_handshake(s);
	while (ret < 0 && !gnutls_error_is_fatal(ret));
	if (!ret && ktls &&
	    (setsockopt(fd, SOL_TCP, TCP_ULP, "tls", sizeof("tls")) ||
	     ktls_dir(fd, s, 0) || ktls_dir(fd, s, 1)))
		ret = -1;
	gnutls_deinit(s);
	return ret ? -1 : 0;
}

static int nodelay(int fd)
{
	int one = 1;

	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ---- server ----------------------------------------------------------- */

static void serve(int fd, int ep)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
	static uint8_t buf[1 << 20];
	double c0, t0 = now();
	uint64_t bytes = 0, count = 0, acc = 0;
	struct hdr h;
	char line[256];
	ssize_t n;

	if (full(fd, &h, sizeof(h), 0) || memcmp(h.magic, "KTP1", 4) ||
	    h.len > sizeof(buf) || !h.len)
		goto out;
	if (h.tls && tls(fd, 1, h.mode != M_HS))
		goto out;
	if (h.mode == M_HS)
		goto out;
	if (h.mode == M_RR)
		nodelay(fd);
	if (full(fd, "G", 1, 1))
		goto out;
	if (h.mode == M_IDLE) {
		if (!epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
			return;
		goto out;
	}
	c0 = cpu();
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		bytes += (uint64_t)n;
		if (h.mode != M_RR)
			continue;
		for (acc += (uint64_t)n; acc >= h.len; acc -= h.len, count++)
			if (full(fd, buf, h.len, 1))
				goto out;
	}
	snprintf(line, sizeof(line), "%llu %llu %.6f %.6f\n",
		 (unsigned long long)bytes, (unsigned long long)count,
		 cpu() - c0, now() - t0);
	full(fd, line, strlen(line), 1);
out:
	close(fd);
}

static int server(const char *port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
	struct epoll_event ev = { .events = EPOLLIN };
	int lfd = socket(AF_INET6, SOCK_STREAM, 0), one = 1, ep = epoll_create1(0);

	a.sin6_port = htons((uint16_t)atoi(port));
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || ep < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(lfd, 4096)) {
		perror("ktls_perf: listen");
		return 1;
	}
	ev.data.fd = lfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	printf("ktls_perf server: port %s\n", port);
	fflush(stdout);
	for (;;) {
		struct epoll_event evs[64];
		int i, n = epoll_wait(ep, evs, 64, -1);

		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == lfd) {
				fd = accept(lfd, NULL, NULL);
				if (fd >= 0)
					serve(fd, ep);
				continue;
			}
			epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);	/* idle one closed */
			close(fd);
		}
	}
}

/* ---- client ----------------------------------------------------------- */

static int conn(const char *host, const char *port, const struct hdr *h)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	char g;
	int fd;

	if (getaddrinfo(host, port, &hints, &res))
		return -1;
	fd = socket(res->ai_family, SOCK_STREAM, 0);
	if (fd >= 0 && (connect(fd, res->ai_addr, res->ai_addrlen) ||
			full(fd, (void *)h, sizeof(*h), 1) ||
			(h->tls && tls(fd, 0, h->mode != M_HS)) ||
			(h->mode == M_RR && nodelay(fd)) ||
			(h->mode != M_HS && full(fd, &g, 1, 0)))) {
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

static int client(const char *host, const char *port, struct hdr *h, int conns)
{
	static uint8_t buf[1 << 20];
	static const char *const names[] = { "bulk", "rr", "handshake", "idle" };
	double t0, t1, c0, end, rcpu = 0;
	uint64_t bytes = 0, count = 0, rbytes = 0, rcount = 0;
	char line[256] = "";
	size_t got = 0;
	int fd = -1, i;

	memset(buf, 'k', sizeof(buf));
	c0 = cpu();
	t0 = now();
	end = t0 + h->ms / 1000.0;
	if (h->mode == M_HS || h->mode == M_IDLE) {
		int *fds = calloc((size_t)conns + 1, sizeof(int));

		while (fds && (h->mode == M_HS ? now() < end : (int)count < conns)) {
			fd = conn(host, port, h);
			if (fd < 0)
				return 1;
			if (h->mode == M_HS)
				close(fd);
			else
				fds[count] = fd;
			count++;
		}
		t1 = now();
		if (h->mode == M_IDLE) {
			fprintf(stderr, "ktls_perf: holding %llu connections\n",
				(unsigned long long)count);
			sleep(h->ms / 1000);
			for (i = 0; i < (int)count; i++)
				close(fds[i]);
		}
		free(fds);
		goto print;
	}
	fd = conn(host, port, h);
	if (fd < 0) {
		perror("ktls_perf: connect");
		return 1;
	}
	c0 = cpu();
	t0 = now();
	end = t0 + h->ms / 1000.0;
	while (now() < end) {
		if (full(fd, buf, h->len, 1))
			return 1;
		bytes += h->len;
		if (h->mode == M_RR) {
			if (full(fd, buf, h->len, 0))
				return 1;
			count++;
		}
	}
	shutdown(fd, SHUT_WR);
	while (got < sizeof(line) - 1) {
		ssize_t n = recv(fd, line + got, sizeof(line) - 1 - got, 0);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	line[got] = 0;
	t1 = now();
	close(fd);
	if (sscanf(line, "%llu %llu %lf", (unsigned long long *)&rbytes,
		   (unsigned long long *)&rcount, &rcpu) != 3 || rbytes != bytes) {
		fprintf(stderr, "ktls_perf: bad result from the server: %s\n", line);
		return 1;
	}
print:
	printf("{\"tool\": \"ktls_perf\", \"tls\": %d, \"mode\": \"%s\", "
	       "\"write_size\": %u, \"seconds\": %.6f, \"bytes\": %llu, "
	       "\"MBps\": %.3f, \"count\": %llu, \"rate\": %.3f, "
	       "\"cpu_seconds\": {\"host\": %.6f, \"remote\": %.6f}}\n",
	       h->tls, names[h->mode], h->len, t1 - t0, (unsigned long long)bytes,
	       (double)bytes / 1e6 / (t1 - t0), (unsigned long long)count,
	       (double)count / (t1 - t0), cpu() - c0, rcpu);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "tls", no_argument, NULL, 'T' }, { "bulk", no_argument, NULL, 'b' },
		{ "rr", no_argument, NULL, 'r' }, { "handshakes", no_argument, NULL, 'H' },
		{ "idle", required_argument, NULL, 'I' }, { "cert", required_argument, NULL, 'C' },
		{ "key", required_argument, NULL, 'K' }, { "ca", required_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 } };
	struct hdr h = { .magic = "KTP1", .len = 65536, .ms = 5000 };
	const char *host = NULL, *port = "5301", *cert = NULL, *key = NULL, *ca = NULL;
	int c, srv = 0, conns = 0, have_len = 0;

	while ((c = getopt_long(argc, argv, "sc:p:t:l:", lo, NULL)) != -1) {
		switch (c) {
		case 's': srv = 1; break;
		case 'c': host = optarg; break;
		case 'p': port = optarg; break;
		case 't': h.ms = (uint32_t)(atof(optarg) * 1000); break;
		case 'l': h.len = parse_len(optarg); have_len = 1; break;
		case 'T': h.tls = 1; break;
		case 'b': h.mode = M_BULK; break;
		case 'r': h.mode = M_RR; break;
		case 'H': h.mode = M_HS; h.tls = 1; break;
		case 'I': h.mode = M_IDLE; conns = atoi(optarg); break;
		case 'C': cert = optarg; break;
		case 'K': key = optarg; break;
		case 'A': ca = optarg; break;
		default: return 2;
		}
	}
	if (h.mode == M_RR && !have_len)
		h.len = 1;
	if (srv == !!host || !h.len || h.len > (1u << 20)) {
		fprintf(stderr, "usage: see the top of bench/ktls_perf.c\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	{
		struct rlimit rl;

		if (!getrlimit(RLIMIT_NOFILE, &rl)) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	if (gnutls_certificate_allocate_credentials(&cred))
		return 1;
	if (srv) {
		if (!cert || !key ||
		    gnutls_certificate_set_x509_key_file(cred, cert, key,
							 GNUTLS_X509_FMT_PEM) < 0) {
			fprintf(stderr, "ktls_perf: server needs --cert and --key\n");
			return 1;
		}
		return server(port);
	}
	if (ca) {
		if (gnutls_certificate_set_x509_trust_file(cred, ca,
							   GNUTLS_X509_FMT_PEM) <= 0) {
			fprintf(stderr, "ktls_perf: no CA certificate in %s\n", ca);
			return 1;
		}
		verify_host = host;
	}
	return client(host, port, &h, conns);
}

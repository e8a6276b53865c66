// SPDX-License-Identifier: GPL-2.0
/*
 * dgram_peer: RFC 9221 datagram echo over a kernel QUIC socket, the
 * counterpart of aioquic_dgram.py for tests/interop (case "datagram").
 *
 *   dgram_peer server --listen ADDR:PORT --cert F --key F [--alpn A]
 *   dgram_peer client [--ca F] [--alpn A] [--count N] [--size BYTES]
 *                     [--timeout S] HOST:PORT
 *
 * Both advertise max_datagram_frame_size 65535; the ALPN is "dgram-echo".
 * The server accepts connections one at a time and sends every datagram
 * back (sendmsg(MSG_QUIC_DATAGRAM)), printing "dgram server: echoed N"
 * when a connection ends.  The client sends --count datagrams (50) of
 * --size bytes (1000), each starting with its 4-byte big-endian index,
 * collects the echoes for up to --timeout seconds (10) and prints
 *   dgram client: sent N, echoed M, bad B
 * exiting 0 only if all came back whole.  --ca sets QUIC_CA_FILE for
 * libquic's certificate check (the host name is checked too).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/quic.h>

#define MAX_FRAME	65535
#define BUF		65536

struct opts {
	const char *listen, *cert, *key, *ca, *alpn, *target;
	int count, size, timeout;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void payload(uint8_t *buf, uint32_t i, int size)
{
	uint32_t be = htonl(i);
	int k;

	for (k = 0; k < size; k++)
		buf[k] = (uint8_t)(i * 7 + k);
	memcpy(buf, &be, size < 4 ? size : 4);
}

/* HOST:PORT or [V6]:PORT into @ss; 0 or -1. */
static int resolve(const char *hp, struct sockaddr_storage *ss,
		   socklen_t *len, char *host, size_t hlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *ai;
	const char *colon = strrchr(hp, ':');
	size_t n;

	if (!colon)
		return -1;
	n = colon - hp;
	if (hp[0] == '[' && n >= 2 && hp[n - 1] == ']') {
		hp++;
		n -= 2;
	}
	if (n >= hlen)
		return -1;
	memcpy(host, hp, n);
	host[n] = 0;
	if (getaddrinfo(host, colon + 1, &hints, &ai))
		return -1;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static int set_dgram_tp(int fd)
{
	struct quic_transport_param p;
	socklen_t len = sizeof(p);

	memset(&p, 0, sizeof(p));
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p, &len))
		return -1;
	p.remote = 0;
	p.max_datagram_frame_size = MAX_FRAME;
	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
			  sizeof(p));
}

/* recvmsg(): bytes, *flags its msg_flags; -1 on error. */
static ssize_t rcv(int fd, void *buf, size_t len, int *flags)
{
	struct iovec iov = { buf, len };
	char cbuf[256];
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	ssize_t n = recvmsg(fd, &mh, 0);

	*flags = mh.msg_flags;
	return n;
}

static void serve_one(int fd)
{
	static uint8_t buf[BUF];
	long echoed = 0;
	int flags;
	ssize_t n;

	for (;;) {
		n = rcv(fd, buf, sizeof(buf), &flags);
		if (n < 0 || (!n && !flags))
			break;		/* error or the connection's end */
		if (!(flags & MSG_QUIC_DATAGRAM))
			continue;	/* stream data, events: not ours */
		if (send(fd, buf, n, MSG_QUIC_DATAGRAM) == n)
			echoed++;
		else
			fprintf(stderr, "dgram server: echo: %s\n",
				strerror(errno));
	}
	fprintf(stderr, "dgram server: echoed %ld\n", echoed);
}

static int run_server(const struct opts *o)
{
	struct sockaddr_storage ss;
	char host[256];
	socklen_t len;
	int lfd, fd;

	if (resolve(o->listen, &ss, &len, host, sizeof(host))) {
		fprintf(stderr, "dgram server: bad --listen %s\n", o->listen);
		return 2;
	}
	lfd = socket(ss.ss_family, SOCK_DGRAM, IPPROTO_QUIC);
	if (lfd < 0 || set_dgram_tp(lfd) ||
	    bind(lfd, (struct sockaddr *)&ss, len) || listen(lfd, 8)) {
		perror("dgram server");
		return 1;
	}
	fprintf(stderr, "dgram server: listening on %s\n", o->listen);
	for (;;) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			perror("dgram server: accept");
			continue;
		}
		if (quic_server_handshake(fd, o->key, o->cert, o->alpn))
			fprintf(stderr, "dgram server: handshake failed\n");
		else
			serve_one(fd);
		close(fd);
	}
}

static int run_client(const struct opts *o)
{
	static uint8_t buf[BUF], want[BUF];
	int fd, i, got = 0, bad = 0, flags;
	struct sockaddr_storage ss;
	long long t0 = now_ms(), end;
	struct pollfd pfd;
	char host[256];
	uint8_t *seen;
	socklen_t len;
	uint32_t idx;
	ssize_t n;

	if (resolve(o->target, &ss, &len, host, sizeof(host))) {
		fprintf(stderr, "dgram client: bad target %s\n", o->target);
		return 2;
	}
	if (o->ca)
		setenv("QUIC_CA_FILE", o->ca, 1);
	fd = socket(ss.ss_family, SOCK_DGRAM, IPPROTO_QUIC);
	if (fd < 0 || set_dgram_tp(fd) ||
	    connect(fd, (struct sockaddr *)&ss, len)) {
		perror("dgram client");
		return 1;
	}
	if (quic_client_handshake(fd, NULL, host, o->alpn)) {
		fprintf(stderr, "dgram client: handshake failed\n");
		return 1;
	}
	seen = calloc(o->count, 1);
	for (i = 0; i < o->count; i++) {
		payload(buf, i, o->size);
		if (send(fd, buf, o->size, MSG_QUIC_DATAGRAM) != o->size) {
			fprintf(stderr, "dgram client: send %d: %s\n", i,
				strerror(errno));
			return 1;
		}
	}
	end = now_ms() + o->timeout * 1000LL;
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (got < o->count && now_ms() < end) {
		if (poll(&pfd, 1, end - now_ms()) <= 0)
			break;
		n = rcv(fd, buf, sizeof(buf), &flags);
		if (n < 0 || (!n && !flags))
			break;
		if (!(flags & MSG_QUIC_DATAGRAM))
			continue;
		memcpy(&idx, buf, n >= 4 ? 4 : 0);
		idx = ntohl(idx);
		payload(want, idx, o->size);
		if (n != o->size || idx >= (uint32_t)o->count || seen[idx] ||
		    memcmp(buf, want, n)) {
			bad++;
			continue;
		}
		seen[idx] = 1;
		got++;
	}
	printf("dgram client: sent %d, echoed %d, bad %d, %.3f s\n", o->count,
	       got, bad, (now_ms() - t0) / 1000.0);
	close(fd);
	free(seen);
	return got == o->count && !bad ? 0 : 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: dgram_peer server --listen ADDR:PORT --cert F --key F [--alpn A]\n"
		"       dgram_peer client [--ca F] [--alpn A] [--count N] [--size B]\n"
		"                         [--timeout S] HOST:PORT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct opts o = { .alpn = "dgram-echo", .count = 50, .size = 1000,
			  .timeout = 10 };
	int i, server;

	if (argc < 2)
		usage();
	server = !strcmp(argv[1], "server");
	if (!server && strcmp(argv[1], "client"))
		usage();
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (a[0] != '-') {
			o.target = a;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--listen"))
			o.listen = v;
		else if (!strcmp(a, "--cert"))
			o.cert = v;
		else if (!strcmp(a, "--key"))
			o.key = v;
		else if (!strcmp(a, "--ca"))
			o.ca = v;
		else if (!strcmp(a, "--alpn"))
			o.alpn = v;
		else if (!strcmp(a, "--count"))
			o.count = atoi(v);
		else if (!strcmp(a, "--size"))
			o.size = atoi(v);
		else if (!strcmp(a, "--timeout"))
			o.timeout = atoi(v);
		else
			usage();
	}
	if (server && (!o.listen || !o.cert || !o.key))
		usage();
	if (!server && (!o.target || o.count < 1 || o.size < 4 ||
			o.size > BUF))
		usage();
	return server ? run_server(&o) : run_client(&o);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * compat_server: an echo server in the style of the draft API's users.
 *
 *   compat_server --listen ADDR:PORT --name NAME [--alpn LIST]
 *                 (--cert CERT --key KEY | --psk PSKFILE) [--ready FILE]
 *
 * One listening socket bound with QUIC_SOCKOPT_ALPN (several such servers,
 * in separate processes, share the port: the kernel hands each the
 * connections whose ClientHello asks for its ALPNs).  Each connection is
 * served by a child process: quic_server_handshake(), then every stream
 * the client sends is answered on the same stream with
 * "NAME ALPN: <the bytes>" and FIN.  A stream whose bytes are "sink"
 * followed by anything is counted instead, and answered with the count.
 * The listener's address is AF_INET6 ([::] takes IPv4 clients too).
 */
#include <signal.h>
#include <sys/wait.h>
#include "common.h"

static const char *name = "server", *cert, *key, *psk, *alpns;

static void serve(int fd)
{
	char alpn[64] = "", *buf;
	socklen_t alen = sizeof(alpn) - 1;
	size_t size = 1 << 20;
	int ret;

	ret = psk ? quic_server_handshake(fd, psk, NULL, alpns) :
		    quic_server_handshake(fd, key, cert, alpns);
	if (ret) {
		/* A client that gave up or failed to verify us: not our error. */
		fprintf(stderr, "note: handshake failed: %s\n", strerror(-ret));
		exit(0);
	}
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn, &alen) < 0)
		alen = 0;
	alpn[alen] = '\0';
	buf = malloc(size + 128);
	if (!buf)
		die("out of memory");
	for (;;) {
		int64_t sid = 0;
		uint32_t flags = 0;
		char reply[256];
		ssize_t n, len;

		n = quic_recvmsg(fd, buf, size, &sid, &flags);
		if (n <= 0)
			break;		/* the client closed: done */
		if (flags & MSG_QUIC_NOTIFICATION)
			continue;
		if (n >= 4 && !memcmp(buf, "sink", 4)) {
			/* Count the stream to its end: a throughput test. */
			unsigned long long total = n;

			while (!(flags & MSG_QUIC_STREAM_FIN)) {
				flags = 0;
				n = quic_recvmsg(fd, buf, size, &sid, &flags);
				if (n < 0)
					die("recv: %s", strerror(errno));
				if (n == 0 && !(flags & MSG_QUIC_STREAM_FIN))
					die("connection ended mid-stream");
				total += n;
			}
			len = snprintf(reply, sizeof(reply), "%llu", total);
			if (quic_sendmsg(fd, reply, len, sid, MSG_QUIC_STREAM_FIN) < 0)
				die("send: %s", strerror(errno));
			continue;
		}
		while (!(flags & MSG_QUIC_STREAM_FIN)) {
			ssize_t m;

			if ((size_t)n >= size)
				die("message too long");
			flags = 0;
			m = quic_recvmsg(fd, buf + n, size - n, &sid, &flags);
			if (m < 0)
				die("recv: %s", strerror(errno));
			if (m == 0 && !(flags & MSG_QUIC_STREAM_FIN))
				die("connection ended mid-stream");
			n += m;
		}
		len = snprintf(reply, sizeof(reply), "%s %s: ", name, alpn);
		if (quic_sendmsg(fd, reply, len, sid, 0) < 0 ||
		    quic_sendmsg(fd, buf, n, sid, MSG_QUIC_STREAM_FIN) < 0)
			die("send: %s", strerror(errno));
	}
	free(buf);
	close(fd);
	exit(0);
}

int main(int argc, char **argv)
{
	const char *listen_at = NULL, *ready = NULL;
	struct sockaddr_storage ss;
	socklen_t len;
	int i, lfd;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--listen"))
			listen_at = argv[i + 1];
		else if (!strcmp(argv[i], "--name"))
			name = argv[i + 1];
		else if (!strcmp(argv[i], "--alpn"))
			alpns = argv[i + 1];
		else if (!strcmp(argv[i], "--cert"))
			cert = argv[i + 1];
		else if (!strcmp(argv[i], "--key"))
			key = argv[i + 1];
		else if (!strcmp(argv[i], "--psk"))
			psk = argv[i + 1];
		else if (!strcmp(argv[i], "--ready"))
			ready = argv[i + 1];
		else
			die("unknown option %s", argv[i]);
	}
	if (i != argc || !listen_at || (!psk && (!cert || !key)))
		die("usage: compat_server --listen ADDR:PORT --name NAME [--alpn LIST] (--cert C --key K | --psk F) [--ready FILE]");
	signal(SIGCHLD, SIG_IGN);	/* children reap themselves */

	len = parse_addr(listen_at, &ss);
	lfd = socket(AF_INET6, SOCK_STREAM, IPPROTO_QUIC);
	if (lfd < 0)
		die("socket: %s", strerror(errno));
	/* The draft's servers set the ALPN before bind(): the key of dispatch. */
	if (alpns && setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpns,
				strlen(alpns)) < 0)
		die("QUIC_SOCKOPT_ALPN: %s", strerror(errno));
	if (bind(lfd, (struct sockaddr *)&ss, len) < 0)
		die("bind %s: %s", listen_at, strerror(errno));
	if (listen(lfd, 64) < 0)
		die("listen: %s", strerror(errno));
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (!f)
			die("%s: %s", ready, strerror(errno));
		fclose(f);
	}
	for (;;) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			die("accept: %s", strerror(errno));
		}
		switch (fork()) {
		case -1:
			die("fork: %s", strerror(errno));
		case 0:
			close(lfd);
			serve(fd);
		}
		close(fd);
	}
}

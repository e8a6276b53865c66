// SPDX-License-Identifier: GPL-2.0
/*
 * compat_client: a client that uses only the draft library's simple call.
 *
 *   compat_client --connect ADDR:PORT --alpn LIST --msg TEXT
 *                 (--psk PSKFILE | --cert | --verify HOSTNAME)
 *
 * --psk      quic_client_handshake(fd, PSKFILE, NULL, alpns)
 * --cert     quic_client_handshake(fd, NULL, NULL, alpns): a certificate,
 *            no host name (no SNI, no name check: the caller opted out)
 * --verify   quic_client_handshake(fd, NULL, HOSTNAME, alpns): the chain
 *            and the name are verified (the CA comes from the library's
 *            environment, QUIC_CA_FILE)
 *
 * Sends TEXT on a new stream with FIN, prints the reply to stdout and
 * exits 0.  A failed handshake prints "handshake: <errno name>" on stdout
 * and exits 2, so that a test can check that a refusal is one.
 */
#include "common.h"

int main(int argc, char **argv)
{
	const char *addr = NULL, *alpns = NULL, *msg = NULL, *psk = NULL;
	const char *host = NULL;
	char reply[4096];
	int64_t sid = -1;
	int i, fd, cert = 0, ret;
	ssize_t n;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cert")) {
			cert = 1;
			continue;
		}
		if (i + 1 >= argc)
			die("option %s needs a value", argv[i]);
		if (!strcmp(argv[i], "--connect"))
			addr = argv[++i];
		else if (!strcmp(argv[i], "--alpn"))
			alpns = argv[++i];
		else if (!strcmp(argv[i], "--msg"))
			msg = argv[++i];
		else if (!strcmp(argv[i], "--psk"))
			psk = argv[++i];
		else if (!strcmp(argv[i], "--verify"))
			host = argv[++i];
		else
			die("unknown option %s", argv[i]);
	}
	if (!addr || !msg || (!psk && !cert && !host))
		die("usage: compat_client --connect ADDR:PORT --alpn LIST --msg TEXT (--psk F | --cert | --verify HOST)");

	fd = connect_to(addr);
	ret = quic_client_handshake(fd, psk, host, alpns);
	if (ret) {
		printf("handshake: %s\n", strerrorname_np(-ret) ?: "?");
		return 2;
	}
	if (quic_sendmsg(fd, msg, strlen(msg), -1,
			 MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN) < 0)
		die("send: %s", strerror(errno));
	n = read_stream(fd, reply, sizeof(reply) - 1, &sid);
	if (n < 0)
		die("recv: %s", strerror(errno));
	reply[n] = '\0';
	printf("%s\n", reply);
	close(fd);
	return 0;
}

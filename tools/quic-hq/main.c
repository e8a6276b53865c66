// SPDX-License-Identifier: GPL-2.0-or-later
/* quic-hq: HTTP/0.9 over QUIC (ALPN "hq-interop") file client and server. */

#include <stdio.h>
#include <string.h>

#include "hq.h"

static const char usage[] =
"usage: quic-hq server --listen ADDR:PORT --cert FILE --key FILE --root DIR\n"
"       quic-hq client [--ca FILE | --insecure] [--out DIR] URL...\n"
"\n"
"HTTP/0.9 over QUIC with ALPN \"" HQ_ALPN "\", on the kernel's IPPROTO_QUIC\n"
"sockets and libquic.\n"
"\n"
"server  accepts connections on ADDR:PORT ([ADDR]:PORT for IPv6), answers\n"
"        \"GET /path\" on each stream with the file under DIR (a directory\n"
"        path gives its index.html) and FIN; anything else, or a path\n"
"        leaving DIR, gets the stream reset.  Prints one line per\n"
"        connection: bytes, seconds, streams.\n"
"client  downloads every URL (https://HOST[:PORT]/PATH, all on the same\n"
"        host and port) over one connection, one stream each, all at once,\n"
"        into DIR (default .) under the path's last name.  The server\n"
"        certificate is checked against the system trust store, or --ca\n"
"        FILE; --insecure checks nothing.  Prints one line: files, bytes,\n"
"        seconds, streams.  Exit status 0 only if every file arrived whole.\n";

int main(int argc, char **argv)
{
	char err[512];

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "client")) {
		static struct hq_client_opts o;

		if (hq_client_args(argc - 2, argv + 2, &o, err, sizeof(err))) {
			fprintf(stderr, "quic-hq: %s\n%s", err, usage);
			return 2;
		}
		return hq_client(&o);
	}
	if (!strcmp(argv[1], "server")) {
		static struct hq_server_opts o;

		if (hq_server_args(argc - 2, argv + 2, &o, err, sizeof(err))) {
			fprintf(stderr, "quic-hq: %s\n%s", err, usage);
			return 2;
		}
		return hq_server(&o);
	}
	fprintf(stderr, "quic-hq: unknown command %s\n%s", argv[1], usage);
	return 2;
}

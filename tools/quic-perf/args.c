// SPDX-License-Identifier: GPL-2.0-or-later
/* quic-perf: the command line (quic-perf.1 has the same text). */

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

static const char usage[] =
"usage: quic-perf -s [options]            server\n"
"       quic-perf -c HOST [options]       client\n"
"\n"
"An iperf3-like tool over IPPROTO_QUIC sockets (quic.ko) and libquic.\n"
"\n"
"common:\n"
"  -s, --server           run the server\n"
"  -c, --client HOST      run a client against HOST (one of -s, -c)\n"
"  -p, --port PORT        UDP port (default " PERF_PORT ")\n"
"      --psk FILE         PSK handshake, FILE of identity:hexkey lines\n"
"      --nodelay          stream_data_nodelay for what this end sends (RR\n"
"                         always sets it on the client)\n"
"  -h, --help             this text\n"
"server:\n"
"  -B, --bind ADDR        listen on ADDR (default: all)\n"
"      --cert FILE --key FILE\n"
"                         certificate and key (PEM), both or neither;\n"
"                         without them an ephemeral self-signed\n"
"                         certificate is made\n"
"  -1, --one-off          exit after one test\n"
"client:\n"
"  -J, --json             the result as one JSON object on stdout\n"
"                         (progress lines go to stderr)\n"
"  -i, --interval SECS    progress line period, 0 for none (default 1)\n"
"  -t, --time SECS        test length (default 10, none with -n; RR,\n"
"                         handshakes, bulk; --idle: how long to hold the\n"
"                         connections)\n"
"  -n, --bytes N[KMG]     bulk: send N bytes instead; RR: N bytes of\n"
"                         messages; --handshakes: N handshakes (not with\n"
"                         -t, nor with --idle)\n"
"  -l, --len N[KMG]       write size (default 64K); RR: message size\n"
"                         (default 1); 1 byte to 64M\n"
"  -P, --parallel N       bulk: N streams at once, 1 to 1024 (default 1)\n"
"      --stream-size N[KMG]\n"
"                         bulk: end each stream after N bytes and open the\n"
"                         next (default: one stream for the whole test)\n"
"  -R, --reverse          bulk: the server sends (download)\n"
"      --rr               request/response: send a message, wait for the\n"
"                         server's message of the same size, repeat\n"
"      --handshakes       handshake rate: connect, handshake, close, repeat\n"
"      --idle N           open N connections (at least 1) and hold them for\n"
"                         --time\n"
"      --insecure         do not verify the server's certificate\n"
"      --ca FILE          verify it against the CAs in FILE, and its name\n"
"                         (default: the system trust store)\n"
"\n"
"Exit status: 0 on success, 1 when the test failed, 2 on a usage error\n"
"(an option of the other side is one).\n";

enum { OPT_PSK = 256, OPT_CERT, OPT_KEY, OPT_SSIZE, OPT_RR, OPT_HS,
       OPT_IDLE, OPT_NODELAY, OPT_INSECURE, OPT_CA };

static const struct option longopts[] = {
	{ "server", no_argument, NULL, 's' },
	{ "client", required_argument, NULL, 'c' },
	{ "port", required_argument, NULL, 'p' },
	{ "bind", required_argument, NULL, 'B' },
	{ "json", no_argument, NULL, 'J' },
	{ "interval", required_argument, NULL, 'i' },
	{ "one-off", no_argument, NULL, '1' },
	{ "time", required_argument, NULL, 't' },
	{ "bytes", required_argument, NULL, 'n' },
	{ "len", required_argument, NULL, 'l' },
	{ "parallel", required_argument, NULL, 'P' },
	{ "reverse", no_argument, NULL, 'R' },
	{ "help", no_argument, NULL, 'h' },
	{ "psk", required_argument, NULL, OPT_PSK },
	{ "cert", required_argument, NULL, OPT_CERT },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "stream-size", required_argument, NULL, OPT_SSIZE },
	{ "rr", no_argument, NULL, OPT_RR },
	{ "handshakes", no_argument, NULL, OPT_HS },
	{ "idle", required_argument, NULL, OPT_IDLE },
	{ "nodelay", no_argument, NULL, OPT_NODELAY },
	{ "insecure", no_argument, NULL, OPT_INSECURE },
	{ "ca", required_argument, NULL, OPT_CA },
	{ NULL, 0, NULL, 0 }
};

static double parse_double(const char *s, int *err)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v < 0)
		*err = 1;
	return v;
}

/*
 * 0: run; 1: --help printed; -1: bad usage (message printed).  An option
 * of the other side (a client's on the server, a server's on a client)
 * would do nothing: it is a usage error, named.
 */
int perf_parse_args(int argc, char **argv, struct perf_opts *o)
{
	int c, err = 0, have_len = 0, have_time = 0, have_bytes = 0, role = 0;
	const char *client_opt = NULL, *server_opt = NULL;

	memset(o, 0, sizeof(*o));
	o->port = PERF_PORT;
	o->streams = 1;
	o->interval = 1;
	while ((c = getopt_long(argc, argv, "sc:p:B:Ji:1t:n:l:P:Rh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 's': o->server = 1; role++; break;
		case 'c': o->host = optarg; role++; break;
		case 'p': o->port = optarg; break;
		case 'B': o->bind = optarg; server_opt = "-B"; break;
		case 'J': o->json = 1; client_opt = "-J"; break;
		case 'i': o->interval = parse_double(optarg, &err); client_opt = "-i"; break;
		case '1': o->one_off = 1; server_opt = "-1"; break;
		case 't': o->time = parse_double(optarg, &err); have_time = 1; break;
		case 'n': o->bytes = perf_parse_size(optarg, &err); have_bytes = 1; break;
		case 'l': o->len = (size_t)perf_parse_size(optarg, &err); have_len = 1; break;
		case 'P': o->streams = atoi(optarg); client_opt = "-P"; break;
		case 'R': o->reverse = 1; client_opt = "-R"; break;
		case 'h': fputs(usage, stdout); return 1;
		case OPT_PSK: o->psk = optarg; break;
		case OPT_CERT: o->cert = optarg; server_opt = "--cert"; break;
		case OPT_KEY: o->key = optarg; server_opt = "--key"; break;
		case OPT_SSIZE:
			o->stream_size = perf_parse_size(optarg, &err);
			client_opt = "--stream-size";
			break;
		case OPT_RR: o->mode = MODE_RR; client_opt = "--rr"; break;
		case OPT_HS: o->mode = MODE_HS; client_opt = "--handshakes"; break;
		case OPT_IDLE:
			o->mode = MODE_IDLE;
			o->conns = atoi(optarg);
			client_opt = "--idle";
			break;
		case OPT_NODELAY: o->nodelay = 1; break;	/* both ends */
		case OPT_INSECURE: o->insecure = 1; client_opt = "--insecure"; break;
		case OPT_CA: o->ca = optarg; client_opt = "--ca"; break;
		default: err = 1; break;
		}
	}
	if (err || optind != argc || role != 1) {
		fputs(usage, stderr);
		return -1;
	}
	if (have_time || have_bytes || have_len)
		client_opt = have_time ? "-t" : have_bytes ? "-n" : "-l";
	if (o->server && client_opt) {
		fprintf(stderr, "quic-perf: %s is a client option\n", client_opt);
		return -1;
	}
	if (!o->server && server_opt) {
		fprintf(stderr, "quic-perf: %s is a server option\n", server_opt);
		return -1;
	}
	if (!have_time)
		o->time = have_bytes ? 0 : 10;
	if (have_time && have_bytes && o->mode != MODE_IDLE) {
		fprintf(stderr, "quic-perf: --time or --bytes, not both\n");
		return -1;
	}
	if (!have_len)
		o->len = o->mode == MODE_RR ? 1 : 65536;
	if (o->mode == MODE_RR)
		o->nodelay = 1;
	if (!o->len || o->len > (64u << 20) || o->streams < 1 ||
	    o->streams > 1024 || (o->mode == MODE_IDLE && o->conns < 1) ||
	    (!!o->cert != !!o->key) || (o->mode == MODE_IDLE && have_bytes)) {
		fprintf(stderr, "quic-perf: bad value (see --help)\n");
		return -1;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/* quic-hq: HTTP/0.9 ("hq-interop") or HTTP/3 ("h3") over QUIC, file client
 * and server.
 */

#include <stdio.h>
#include <string.h>

#include "hq.h"

static const char usage[] =
"usage: quic-hq server [--alpn A] [--key-update BYTES] [--retry] [--no-0rtt]\n"
"                      [--ticket-key FILE] [--version v1|v2] [--cc ALG]\n"
"                      [--idle-timeout SECS]\n"
"                      --listen ADDR:PORT --cert FILE --key FILE --root DIR\n"
"       quic-hq client [--alpn A] [--key-update BYTES] [--ca FILE | --insecure]\n"
"                      [--token-file FILE] [--version v1|v2] [--migrate BYTES]\n"
"                      [--session-file FILE [--0rtt]] [--idle-timeout SECS]\n"
"                      [--out DIR] URL...\n"
"       quic-hq --help\n"
"\n"
"Files over QUIC, on the kernel's IPPROTO_QUIC sockets and libquic, with\n"
"ALPN A: \"" HQ_ALPN "\" (HTTP/0.9, the default) or \"" HQ_ALPN_H3 "\" (HTTP/3, with\n"
"QPACK's static table only: no dynamic table, no server push).\n"
"\n"
"server  accepts connections on ADDR:PORT ([ADDR]:PORT for IPv6) and answers\n"
"        each request for /path with the file under DIR (a directory path\n"
"        gives its index.html) and FIN.\n"
"        " HQ_ALPN ": the request is \"GET /path\"; anything else, a path\n"
"        leaving DIR or no such file gets the stream reset.\n"
"        " HQ_ALPN_H3 ": GET and HEAD get status 200 and content-length; a\n"
"        missing file or a path leaving DIR gets 404, other methods 405; a\n"
"        malformed request gets the stream reset.\n"
"        It issues TLS session tickets (with the listener's ticket key,\n"
"        QUIC_SOCKOPT_SESSION_TICKET: one the kernel makes, or the 16 to\n"
"        256 bytes of --ticket-key FILE, so that a server started again\n"
"        resumes them) that allow early data, and accepts early data\n"
"        (0-RTT) on resumed connections.  --no-0rtt refuses early data:\n"
"        clients that send 0-RTT requests (say, with a ticket of this\n"
"        server's earlier run) send them again in 1-RTT.\n"
"        Prints one line per connection: bytes, seconds, streams, key\n"
"        updates, \"resumed: yes|no\" and \"0-RTT: accepted|no\" (whether\n"
"        TLS accepted the client's early data).\n"
"        --retry validates every client's address with a Retry\n"
"        first (QUIC_SOCKOPT_CONFIG validate_peer_address); a client that\n"
"        brings a token from an earlier connection's NEW_TOKEN skips it.\n"
"        --version v2: prefer QUIC v2: a v1 client that lists v2 in its\n"
"        version_information is moved to v2 (RFC 9368 compatible version\n"
"        negotiation; the line then ends \", QUIC v2\").  Without it, or\n"
"        with v1, each client is answered in the version it uses.\n"
"        --cc reno|cubic|bbr: the connections' congestion controller\n"
"        (QUIC_SOCKOPT_CONFIG congestion_control_algo); without it, the\n"
"        sysctl net.quic.congestion_control's.\n"
"client  downloads every URL (https://HOST[:PORT]/PATH, all on the same\n"
"        host and port, at most 1024, no two with the same last name) over\n"
"        one connection, one stream each, all at once, into DIR (default .)\n"
"        under the path's last name (index.html for a directory).  The server\n"
"        certificate is checked against the system trust store, or --ca\n"
"        FILE; --insecure checks nothing.  A file fails on a reset stream,\n"
"        and with " HQ_ALPN_H3 " on a status other than 200 or a malformed or\n"
"        short answer.  Prints one line: files, bytes, seconds, streams,\n"
"        key updates, and whether the TLS session was resumed (\"resumed:\n"
"        yes\" or \"no\").  Exit status 0 only if every file arrived whole\n"
"        (and no key update asked for failed).\n"
"        --session-file FILE: resume the TLS session kept in FILE, if there\n"
"        is one (no FILE yet, a damaged one or one of another ALPN: a full\n"
"        handshake), and after the transfer write the server's new session\n"
"        ticket there (waiting up to 3 s for one), with the server's\n"
"        transport parameters (QUIC_SOCKOPT_TRANSPORT_PARAM, remote = 1),\n"
"        which 0-RTT needs.  The file is text, mode 0600.\n"
"        --0rtt (with --session-file): with a session, write the requests\n"
"        before the handshake, for the kernel to send as 0-RTT data; the\n"
"        summary then adds \"0-RTT: accepted (N requests)\", \"rejected (N\n"
"        requests sent again in 1-RTT)\" or \"not sent (why)\" (no session,\n"
"        or the kernel did not take them before the handshake: they go\n"
"        after it).\n"
"        --migrate BYTES: once BYTES (K, M, G) of stream data have\n"
"        arrived, move to a new local port on the address the route to\n"
"        the server uses (QUIC_SOCKOPT_CONNECTION_MIGRATION: the kernel\n"
"        validates the path and takes a new connection ID); prints\n"
"        \"migrated to ADDR port P after N bytes\" on stderr.  The run fails\n"
"        if the kernel refuses it or the transfer ends first.\n"
"        --token-file FILE: the\n"
"        address-validation token in FILE, if it exists, goes in the\n"
"        Initial (QUIC_SOCKOPT_TOKEN); the last NEW_TOKEN the server sent is\n"
"        written to FILE at the end (not when none came).\n"
"        --version: the QUIC version to connect with, v1 (the default) or\n"
"        v2 (RFC 9369); a version other than v1 is printed (\"QUIC version\n"
"        v2\").  A server that answers with Version Negotiation listing\n"
"        the other one is connected to again with it (\"version\n"
"        negotiation: connecting again with QUIC v1\"); with none in\n"
"        common the handshake fails with \"Protocol not supported\".\n"
"        A client connecting in v1 offers v2 as a compatible version: a\n"
"        server that prefers v2 moves the connection to it (printed).\n"
"\n"
"Both count the connection's 1-RTT key updates, ours and the peer's\n"
"(QUIC_EVENT_KEY_UPDATE): \"key updates: N\".  --key-update BYTES (K, M, G:\n"
"powers of 1024; more than 0, at most 1 TiB, as for --migrate) asks the\n"
"kernel for one (QUIC_SOCKOPT_KEY_UPDATE) each time another BYTES of\n"
"stream data have arrived (client) or been sent (server, per\n"
"connection); one the kernel cannot start yet (EAGAIN: the\n"
"handshake is not confirmed or our last update not acknowledged) is asked\n"
"for again at the next chunk, any other error is printed and ends the\n"
"asking.  The summary then adds \"(M asked for)\", the requests the kernel\n"
"took.  Updates the kernel starts by itself (sysctl\n"
"net.quic.key_update_packets) count in N only.\n"
"\n"
"Both take --idle-timeout SECS (1 to 4294): the max_idle_timeout transport\n"
"parameter they send (30 s by default; a connection closes after the\n"
"smaller of both ends' values without a packet) and the time a handshake\n"
"may take before it fails with \"Connection timed out\" (30 s by\n"
"default); the client also waits that long without data before it gives\n"
"up (\"no data for N s\", 30 s by default).  For slow links and slow test\n"
"kernels.\n";

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

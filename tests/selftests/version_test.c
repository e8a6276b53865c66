// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC versions over kernel sockets: v2 connections (RFC 9369), Version
 * Negotiation sent by a listener and received by a client (RFC 9000 §6),
 * the version_information transport parameter (RFC 9368) and the greased
 * fixed bit (RFC 9287).  Crafted datagrams come from plain UDP sockets.
 */

#include "quic_conn.h"
#include "craft.h"
#include "sysctl_guard.h"
#include "../hostile/procfs.h"

#include <sys/random.h>

#define V1		0x00000001u
#define V2		0x6b3343cfu
#define UNKNOWN		0x1a2a3a4au	/* a reserved version: never ours */
#define GREASE_SYSCTL	"/proc/sys/net/quic/grease_quic_bit"

/* ---- helpers ---- */

static void cfg_v2(struct quic_config *c)
{
	c->version = V2;
}

static uint32_t sock_version(int fd)
{
	struct quic_config c;
	socklen_t len = sizeof(c);

	memset(&c, 0, sizeof(c));
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &c, &len))
		return 0;
	return c.version;
}

static int peer_tp(int fd, struct quic_transport_param *p)
{
	socklen_t len = sizeof(*p);

	memset(p, 0, sizeof(*p));
	p->remote = 1;
	return getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, p, &len);
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* Data one way and back on a connection. */
static void ping_pong(struct conn *c)
{
	struct rinfo ri;
	char buf[16];

	CHECK(qsend(c->cfd, "ping", 4, -1, MSG_QUIC_STREAM_NEW, 0) == 4);
	CHECK(qrecv(c->sfd, buf, sizeof(buf), 0, &ri) == 4 &&
	      !memcmp(buf, "ping", 4));
	CHECK(qsend(c->sfd, "pong", 4, ri.sid, 0, 0) == 4);
	CHECK(qrecv(c->cfd, buf, sizeof(buf), 0, &ri) == 4 &&
	      !memcmp(buf, "pong", 4));
}

/* A listener (with @alpn if not NULL) on loopback; its address in @ss. */
static int listener(int family, const char *alpn, struct sockaddr_storage *ss,
		    socklen_t *len)
{
	int fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);

	*len = loopback_addr(family, 0, ss);
	if (fd < 0)
		return -1;
	if ((alpn && setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn,
				strlen(alpn))) ||
	    bind(fd, (struct sockaddr *)ss, *len) || listen(fd, 8) ||
	    getsockname(fd, (struct sockaddr *)ss, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A UDP socket of @family on loopback, with a receive timeout. */
static int udp_sock(int family)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, 0, &ss);
	int fd = socket(family, SOCK_DGRAM, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&ss, len) ||
	    set_timeout_ms(fd, SO_RCVTIMEO, 5000)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A long header datagram of @len bytes, version @version, DCID of 8 bytes
 * @tag, SCID of 5 bytes @tag + 1, padded with zeros.
 */
static size_t craft_long(uint8_t *buf, size_t len, uint32_t version,
			 uint8_t tag)
{
	memset(buf, 0, len);
	buf[0] = 0xc0;
	put_be32(buf + 1, version);
	buf[5] = 8;
	memset(buf + 6, tag, 8);
	buf[14] = 5;
	memset(buf + 15, tag + 1, 5);
	return len;
}

/*
 * Check a Version Negotiation packet answering craft_long(@tag): CIDs
 * swapped, v1 and v2 listed, whole versions.
 */
static void check_vn(const uint8_t *p, ssize_t n, uint8_t tag, size_t sent)
{
	uint8_t dcid[5], scid[8];
	int v1 = 0, v2 = 0, reserved = 0;
	ssize_t i;

	memset(dcid, tag + 1, sizeof(dcid));
	memset(scid, tag, sizeof(scid));
	CHECK(n >= 7 + 5 + 8 + 4);
	if (n < 7 + 5 + 8 + 4)
		return;
	CHECK((size_t)n <= sent);
	CHECK(p[0] & 0x80);
	CHECK(get_be32(p + 1) == 0);
	CHECK(p[5] == 5 && !memcmp(p + 6, dcid, 5));
	CHECK(p[11] == 8 && !memcmp(p + 12, scid, 8));
	CHECK((n - 20) % 4 == 0);
	for (i = 20; i + 4 <= n; i += 4) {
		uint32_t v = get_be32(p + i);

		v1 |= v == V1;
		v2 |= v == V2;
		reserved |= (v & 0x0f0f0f0f) == 0x0a0a0a0a;
	}
	CHECK(v1 && v2);
	if (!reserved)
		printf("# no reserved version listed\n");
}

/* ---- v2 ---- */

static void test_v2_connection(int family)
{
	struct conn_cfg cfg = { .client_config = cfg_v2 };
	struct conn c;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK(sock_version(c.cfd) == V2);
	CHECK(sock_version(c.sfd) == V2);
	ping_pong(&c);
	conn_close(&c);
}

static void test_v1_default(int family)
{
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK(sock_version(c.cfd) == V1);
	CHECK(sock_version(c.sfd) == V1);
	ping_pong(&c);
	conn_close(&c);
}

/* ---- compatible version negotiation (RFC 9368 §2.3, RFC 9369 §3) ---- */

#define COMPAT_STAT	"compatible_negotiations"

/*
 * A default (v1) client to a listener with @server_config and the client
 * options @client_tp: both sockets end in @want, data flows, and the
 * compatible_negotiations counter moved by @moves (one per side moved).
 */
static void compat_case(int family, config_fn server_config, tp_fn client_tp,
			uint32_t want, long moves)
{
	struct conn_cfg cfg = { .server_config = server_config,
				.client_tp = client_tp };
	long before = hp_stat(COMPAT_STAT);
	struct conn c;

	CHECK(before >= 0);
	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK(sock_version(c.cfd) == want);
	CHECK(sock_version(c.sfd) == want);
	ping_pong(&c);
	if (sock_version(c.cfd) != want || sock_version(c.sfd) != want)
		printf("# client 0x%x, server 0x%x\n", sock_version(c.cfd),
		       sock_version(c.sfd));
	CHECK(hp_stat(COMPAT_STAT) - before == moves);
	conn_close(&c);
}

static void tp_no_vi(struct quic_transport_param *p);

/* The listener prefers v2: the v1 client offering v2 moves, both ends. */
static void test_compat_to_v2(int family)
{
	compat_case(family, cfg_v2, NULL, V2, 2);
}

/* No preference: the client's v1 stays. */
static void test_compat_no_pref(int family)
{
	compat_case(family, NULL, NULL, V1, 0);
}

/* disable_compatible_version on the client: nothing offered, v1 stays. */
static void test_compat_client_off(int family)
{
	compat_case(family, cfg_v2, tp_no_vi, V1, 0);
}

/* ---- version_information ---- */

static void tp_no_vi(struct quic_transport_param *p)
{
	p->disable_compatible_version = 1;
}

static void test_version_information(int family)
{
	struct quic_transport_param p;
	struct conn c;

	if (conn_open(&c, family))
		return;
	/* disable_compatible_version 0: version_information came. */
	CHECK_OK(peer_tp(c.cfd, &p));
	CHECK(!p.disable_compatible_version);
	CHECK_OK(peer_tp(c.sfd, &p));
	CHECK(!p.disable_compatible_version);
	conn_close(&c);
}

static void test_version_information_off(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_no_vi };
	struct quic_transport_param p;
	socklen_t len = sizeof(p);
	struct conn c;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK_OK(peer_tp(c.cfd, &p));
	CHECK(p.disable_compatible_version);
	CHECK_OK(peer_tp(c.sfd, &p));
	CHECK(!p.disable_compatible_version);
	memset(&p, 0, sizeof(p));
	CHECK_OK(getsockopt(c.sfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
			    &len));
	CHECK(p.disable_compatible_version);
	ping_pong(&c);
	conn_close(&c);
}

/* ---- Version Negotiation sent ---- */

static void vn_answer(int family, const char *alpn1, const char *alpn2)
{
	struct sockaddr_storage ss;
	uint8_t out[1400], in[1500];
	long before = hp_stat("version_negotiation_sent");
	int lfd, lfd2 = -1, ufd;
	socklen_t len;
	ssize_t n;

	lfd = listener(family, alpn1, &ss, &len);
	CHECK(lfd >= 0);
	if (alpn2) {
		struct sockaddr_storage ss2 = ss;

		lfd2 = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
		CHECK_OK(setsockopt(lfd2, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn2,
				    strlen(alpn2)));
		CHECK_OK(bind(lfd2, (struct sockaddr *)&ss2, len));
		CHECK_OK(listen(lfd2, 8));
	}
	ufd = udp_sock(family);
	CHECK(ufd >= 0);
	if (tap_failed_checks)
		return;
	/* Too short (1199 bytes), then a VN packet: neither is answered. */
	CHECK(sendto(ufd, out, craft_long(out, 1199, UNKNOWN, 0x30), 0,
		     (struct sockaddr *)&ss, len) == 1199);
	CHECK(sendto(ufd, out, craft_long(out, 1300, 0, 0x40), 0,
		     (struct sockaddr *)&ss, len) == 1300);
	/* 1200 bytes of an unknown version: answered. */
	CHECK(sendto(ufd, out, craft_long(out, 1200, UNKNOWN, 0x50), 0,
		     (struct sockaddr *)&ss, len) == 1200);
	n = recv(ufd, in, sizeof(in), 0);
	CHECK(n > 0);
	if (n > 0)
		check_vn(in, n, 0x50, 1200);
	/* The answers come in order: nothing came for the first two. */
	CHECK(wait_poll(ufd, POLLIN, 300) == 0);
	CHECK(hp_stat("version_negotiation_sent") > before);
	close(ufd);
	if (lfd2 >= 0)
		close(lfd2);
	close(lfd);
}

static void test_vn_sent(int family)
{
	vn_answer(family, NULL, NULL);
}

static void test_vn_sent_dispatch(int family)
{
	vn_answer(family, "alpn-a", "alpn-b");
}

/* No listener on the port: a client's tunnel socket says nothing. */
static void test_vn_not_from_client(int family)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	uint8_t out[1300], in[1500];
	int fd, ufd;

	fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(fd >= 0);
	loopback_addr(family, 0, &ss);
	CHECK_OK(bind(fd, (struct sockaddr *)&ss, family == AF_INET ?
		      sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)));
	CHECK_OK(getsockname(fd, (struct sockaddr *)&ss, &len));
	ufd = udp_sock(family);
	CHECK(ufd >= 0);
	if (tap_failed_checks)
		return;
	CHECK(sendto(ufd, out, craft_long(out, 1200, UNKNOWN, 0x60), 0,
		     (struct sockaddr *)&ss, len) == 1200);
	CHECK(wait_poll(ufd, POLLIN, 500) == 0);
	(void)in;
	close(ufd);
	close(fd);
}

/* A flood of unknown versions gets a bounded number of answers. */
static void test_vn_rate_limited(int family)
{
	long limited = hp_stat("drop_vn_rate_limited");
	struct sockaddr_storage ss;
	uint8_t out[1200], in[1500];
	int lfd, ufd, i, got = 0;
	long long t0 = now_ms();
	socklen_t len;
	double secs;

	lfd = listener(family, NULL, &ss, &len);
	CHECK(lfd >= 0);
	ufd = udp_sock(family);
	CHECK(ufd >= 0);
	if (tap_failed_checks)
		return;
	craft_long(out, sizeof(out), UNKNOWN, 0x70);
	for (i = 0; i < 300; i++) {
		CHECK(sendto(ufd, out, sizeof(out), 0, (struct sockaddr *)&ss,
			     len) == sizeof(out));
		/* Keep the receive buffer from overflowing. */
		while (recv(ufd, in, sizeof(in), MSG_DONTWAIT) > 0)
			got++;
	}
	while (wait_poll(ufd, POLLIN, 500) & POLLIN &&
	       recv(ufd, in, sizeof(in), 0) > 0)
		got++;
	secs = (now_ms() - t0) / 1000.0;
	printf("# %d answers to 300 datagrams in %.2f s\n", got, secs);
	/* A burst of 64, then 32 a second. */
	CHECK(got >= 1);
	CHECK(got <= 64 + (int)(32 * secs) + 2);
	CHECK(hp_stat("drop_vn_rate_limited") > limited);
	close(ufd);
	close(lfd);
}

/* ---- Version Negotiation received ---- */

struct hs_arg {
	int fd;
	int ret;
	volatile int done;
};

static void *client_hs(void *p)
{
	struct hs_arg *a = p;

	a->ret = quic_client_handshake(a->fd, psk_file, NULL, ALPN);
	a->done = 1;
	return NULL;
}

/*
 * A QUIC client connecting (in a thread) to the UDP socket @ufd, whose
 * first Initial is read into @buf: its DCID and SCID are returned.
 */
static int client_to_udp(int family, int ufd, uint32_t version,
			 struct hs_arg *a, pthread_t *th,
			 struct sockaddr_storage *from, socklen_t *fromlen,
			 uint8_t *dcid, uint8_t *dcid_len, uint8_t *scid,
			 uint8_t *scid_len)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct quic_config c = { .version = version };
	uint8_t buf[1500];
	ssize_t n;

	CHECK_OK(getsockname(ufd, (struct sockaddr *)&ss, &len));
	a->fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(a->fd >= 0);
	CHECK_OK(set_timeouts(a->fd, TIMEO_SEC));
	CHECK_OK(setsockopt(a->fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &c,
			    sizeof(c)));
	CHECK_OK(connect(a->fd, (struct sockaddr *)&ss, len));
	if (tap_failed_checks)
		return -1;
	CHECK_OK(pthread_create(th, NULL, client_hs, a));
	*fromlen = sizeof(*from);
	n = recvfrom(ufd, buf, sizeof(buf), 0, (struct sockaddr *)from,
		     fromlen);
	CHECK(n >= 1200);
	if (n < 1200)
		return -1;
	CHECK((buf[0] & 0x80) && get_be32(buf + 1) == version);
	*dcid_len = buf[5];
	memcpy(dcid, buf + 6, buf[5]);
	*scid_len = buf[6 + buf[5]];
	memcpy(scid, buf + 7 + buf[5], *scid_len);
	return 0;
}

/* Send a VN packet listing @versions to whoever sent the Initial. */
static void send_vn(int ufd, const struct sockaddr_storage *to, socklen_t tolen,
		    const uint8_t *dcid, uint8_t dcid_len, const uint8_t *scid,
		    uint8_t scid_len, const uint32_t *versions, int nv)
{
	uint8_t buf[256];
	size_t n = 0;
	int i;

	buf[n++] = 0xc0;
	put_be32(buf + n, 0);
	n += 4;
	buf[n++] = dcid_len;
	memcpy(buf + n, dcid, dcid_len);
	n += dcid_len;
	buf[n++] = scid_len;
	memcpy(buf + n, scid, scid_len);
	n += scid_len;
	for (i = 0; i < nv; i++, n += 4)
		put_be32(buf + n, versions[i]);
	CHECK(sendto(ufd, buf, n, 0, (const struct sockaddr *)to, tolen) ==
	      (ssize_t)n);
}

/*
 * A client in @version gets a VN listing @offer.  With @restart, a version
 * of it the kernel speaks, libquic connects again by itself on a new
 * socket under the same descriptor: its Initial comes in @restart, with
 * the socket options carried over, and a VN listing nothing in common
 * ends that attempt.  The handshake fails with EPROTONOSUPPORT, the
 * config reading @want_version.
 */
static void vn_received(int family, uint32_t version, const uint32_t *offer,
			int n_offer, uint32_t restart, uint32_t want_version)
{
	static const uint32_t none[] = { 0x0a1a2a3a };
	uint8_t dcid[20], scid[20], dlen = 0, slen = 0, buf[1500];
	struct sockaddr_storage client, again;
	socklen_t clen, alen = sizeof(again);
	struct hs_arg a = { .fd = -1 };
	struct timeval tv;
	socklen_t tvlen = sizeof(tv);
	long long t0;
	pthread_t th;
	ssize_t n;
	int ufd;

	ufd = udp_sock(family);
	CHECK(ufd >= 0);
	if (tap_failed_checks ||
	    client_to_udp(family, ufd, version, &a, &th, &client, &clen, dcid,
			  &dlen, scid, &slen))
		return;
	/* To the client: its SCID as DCID, its DCID as SCID. */
	send_vn(ufd, &client, clen, scid, slen, dcid, dlen, offer, n_offer);
	t0 = now_ms();
	if (restart) {
		n = recvfrom(ufd, buf, sizeof(buf), 0,
			     (struct sockaddr *)&again, &alen);
		CHECK(n >= 1200 && (buf[0] & 0x80) &&
		      get_be32(buf + 1) == restart);
		if (n >= 1200) {
			dlen = buf[5];
			memcpy(dcid, buf + 6, dlen);
			slen = buf[6 + dlen];
			memcpy(scid, buf + 7 + dlen, slen);
			send_vn(ufd, &again, alen, scid, slen, dcid, dlen,
				none, 1);
		}
	}
	pthread_join(th, NULL);
	printf("# handshake returned %d after %lld ms\n", a.ret,
	       now_ms() - t0);
	CHECK(a.ret == -EPROTONOSUPPORT);
	CHECK(now_ms() - t0 < 5000);
	CHECK(sock_version(a.fd) == want_version);
	/* The new socket has the old one's receive timeout. */
	CHECK_OK(getsockopt(a.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &tvlen));
	CHECK(tv.tv_sec == TIMEO_SEC);
	close(a.fd);
	close(ufd);
}

static void test_vn_no_common(int family)
{
	static const uint32_t offer[] = { 0x0a1a2a3a, 0xff00001d };

	vn_received(family, V1, offer, 2, 0, V1);
}

static void test_vn_offers_v2(int family)
{
	static const uint32_t offer[] = { 0x0a1a2a3a, V2 };

	vn_received(family, V1, offer, 2, V2, V2);
}

static void test_vn_offers_v1(int family)
{
	static const uint32_t offer[] = { V1 };

	vn_received(family, V2, offer, 1, V1, V1);
}

/* ---- Version Negotiation restart through libquic, end to end ---- */

/*
 * A UDP relay in front of a listener that answers every long header
 * packet of version @refuse with a VN listing only v1, as a server that
 * does not speak @refuse would, and passes everything else on.
 */
struct vn_relay {
	int fd;
	uint32_t refuse;
	struct sockaddr_storage srv, cli;
	socklen_t srv_len, cli_len;
	int vn_sent;
	int stop;
};

static void *vn_relay_main(void *arg)
{
	static const uint32_t v1_only[] = { V1 };
	struct vn_relay *r = arg;
	struct sockaddr_storage from;
	uint8_t buf[2048];
	socklen_t flen;
	ssize_t n;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		if (!(wait_poll(r->fd, POLLIN, 100) & POLLIN))
			continue;
		flen = sizeof(from);
		n = recvfrom(r->fd, buf, sizeof(buf), 0,
			     (struct sockaddr *)&from, &flen);
		if (n <= 0)
			continue;
		if (flen == r->srv_len && !memcmp(&from, &r->srv, flen)) {
			if (r->cli_len)
				sendto(r->fd, buf, n, 0,
				       (struct sockaddr *)&r->cli, r->cli_len);
			continue;
		}
		if (n >= 7 && (buf[0] & 0x80) && get_be32(buf + 1) == r->refuse &&
		    7 + buf[5] < n && 7 + buf[5] + buf[6 + buf[5]] <= n) {
			send_vn(r->fd, &from, flen, buf + 7 + buf[5],
				buf[6 + buf[5]], buf + 6, buf[5], v1_only, 1);
			r->vn_sent++;
			continue;
		}
		r->cli = from;
		r->cli_len = flen;
		sendto(r->fd, buf, n, 0, (struct sockaddr *)&r->srv,
		       r->srv_len);
	}
	return NULL;
}

/*
 * A v2 client against a "server" that speaks only v1 (our listener behind
 * the relay): the VN ends the first attempt and quic_client_handshake()
 * alone connects again, in v1, under the same descriptor; data flows.
 */
static void test_vn_restart(int family)
{
	struct server_arg sa = { .fd = -1 };
	struct quic_config cfg = { .version = V2 };
	struct sockaddr_storage front;
	socklen_t flen;
	struct vn_relay r = { .refuse = V2 };
	pthread_t sth, rth;
	int cfd;
	int ret = -1;

	sa.lfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	r.fd = udp_sock(family);
	CHECK(sa.lfd >= 0 && r.fd >= 0);
	r.srv_len = loopback_addr(family, 0, &r.srv);
	CHECK_OK(set_timeouts(sa.lfd, TIMEO_SEC));
	CHECK_OK(bind(sa.lfd, (struct sockaddr *)&r.srv, r.srv_len));
	CHECK_OK(listen(sa.lfd, 8));
	CHECK_OK(getsockname(sa.lfd, (struct sockaddr *)&r.srv, &r.srv_len));
	flen = sizeof(front);
	CHECK_OK(getsockname(r.fd, (struct sockaddr *)&front, &flen));
	cfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(cfd >= 0);
	CHECK_OK(set_timeouts(cfd, TIMEO_SEC));
	CHECK_OK(setsockopt(cfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg,
			    sizeof(cfg)));
	if (tap_failed_checks)
		goto out;
	pthread_create(&rth, NULL, vn_relay_main, &r);
	pthread_create(&sth, NULL, server_main, &sa);
	CHECK_OK(connect(cfd, (struct sockaddr *)&front, flen));
	ret = quic_client_handshake(cfd, psk_file, NULL, ALPN);
	if (ret) {
		close(cfd);	/* the server's handshake fails too */
		cfd = -1;
	}
	pthread_join(sth, NULL);
	printf("# client %d, server %d, VN sent %d\n", ret, sa.ret, r.vn_sent);
	CHECK(ret == 0 && sa.ret == 0);
	CHECK(r.vn_sent >= 1);
	CHECK(sock_version(cfd) == V1);
	if (!ret && !sa.ret) {
		struct conn c = { .family = family, .cfd = cfd, .sfd = sa.fd };

		ping_pong(&c);
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(rth, NULL);
	if (sa.fd >= 0)
		close(sa.fd);
out:
	if (cfd >= 0)
		close(cfd);
	close(r.fd);
	close(sa.lfd);
}

/*
 * A VN listing the version we used, or not echoing our DCID, is ignored:
 * the client goes on sending Initials (PTO) and its handshake runs on.
 */
static void test_vn_ignored(int family)
{
	static const uint32_t lists_ours[] = { V2, V1 };
	static const uint32_t other[] = { V2 };
	static const uint32_t none[] = { 0x0a1a2a3a };
	uint8_t dcid[20], scid[20], bad[20], dlen = 0, slen = 0, buf[1500];
	long vn_recv = hp_stat("version_negotiation_received");
	struct sockaddr_storage client;
	struct hs_arg a = { .fd = -1 };
	socklen_t clen;
	pthread_t th;
	int ufd;

	ufd = udp_sock(family);
	CHECK(ufd >= 0);
	if (tap_failed_checks ||
	    client_to_udp(family, ufd, V1, &a, &th, &client, &clen, dcid,
			  &dlen, scid, &slen))
		return;
	send_vn(ufd, &client, clen, scid, slen, dcid, dlen, lists_ours, 2);
	memcpy(bad, dcid, dlen);
	bad[0] ^= 1;
	send_vn(ufd, &client, clen, scid, slen, bad, dlen, other, 1);
	/* The Initial comes again, and the handshake is still running. */
	CHECK(recv(ufd, buf, sizeof(buf), 0) >= 1200);
	CHECK(!a.done);
	CHECK(hp_stat("version_negotiation_received") == vn_recv);
	/* Now a valid one ends it (nothing in common: no new attempt). */
	send_vn(ufd, &client, clen, scid, slen, dcid, dlen, none, 1);
	pthread_join(th, NULL);
	CHECK(a.ret == -EPROTONOSUPPORT);
	close(a.fd);
	close(ufd);
}

/* ---- grease ---- */

static void test_grease_on(int family)
{
	long before = hp_stat("packets_greased");
	struct quic_transport_param p;
	struct conn c;
	int i;

	CHECK_OK(sysctl_set(GREASE_SYSCTL, "1"));
	if (conn_open(&c, family))
		return;
	CHECK_OK(peer_tp(c.cfd, &p));
	CHECK(p.grease_quic_bit);
	CHECK_OK(peer_tp(c.sfd, &p));
	CHECK(p.grease_quic_bit);
	for (i = 0; i < 20 && !tap_failed_checks; i++)
		ping_pong(&c);
	printf("# %ld packets greased\n", hp_stat("packets_greased") - before);
	CHECK(hp_stat("packets_greased") > before);
	conn_close(&c);
	sysctl_restore();
}

static void test_grease_off(int family)
{
	struct quic_transport_param p;
	long before;
	struct conn c;
	int i;

	CHECK_OK(sysctl_set(GREASE_SYSCTL, "0"));
	before = hp_stat("packets_greased");
	if (conn_open(&c, family))
		return;
	CHECK_OK(peer_tp(c.cfd, &p));
	CHECK(!p.grease_quic_bit);
	for (i = 0; i < 20 && !tap_failed_checks; i++)
		ping_pong(&c);
	CHECK(hp_stat("packets_greased") == before);
	conn_close(&c);
	sysctl_restore();
}

/* Header and packet number offset of send_initial()'s packets. */
#define INITIAL_HDR	(1 + 4 + 1 + 8 + 1 + 8 + 1 + 2 + 4)
#define INITIAL_PN_OFF	(INITIAL_HDR - 4)

/*
 * A client Initial (a ClientHello of junk: the kernel does not read it)
 * to the listener @fd is connected to, with a random DCID (a connection
 * of an earlier test may still hold a fixed one in its closing period),
 * with the fixed bit 0 if @greased: the bit is not under header
 * protection but it is in the AEAD's associated data, so the packet is
 * opened, changed and sealed again.
 */
static int send_initial(int fd, uint8_t tag, int greased)
{
	uint8_t dcid[8], scid[8], hello[300], frame[400], pkt[1500], pt[1500];
	struct cr_keys k;
	size_t n, pn_len;
	uint32_t pn;
	int len, ptlen;

	if (getrandom(dcid, sizeof(dcid), 0) != sizeof(dcid))
		return -1;
	memset(scid, tag + 1, sizeof(scid));
	memset(hello, 0x5a, sizeof(hello));
	hello[0] = 1;
	hello[1] = 0;
	hello[2] = (sizeof(hello) - 4) >> 8;
	hello[3] = (sizeof(hello) - 4) & 0xff;
	n = cr_put_crypto(frame, 0, hello, sizeof(hello));
	if (cr_initial_keys(&k, dcid, sizeof(dcid), 0))
		return -1;
	len = cr_initial_build(&k, dcid, sizeof(dcid), scid, sizeof(scid), 0,
			       frame, n, 1200, pkt, sizeof(pkt));
	if (len < 0)
		return -1;
	if (greased) {
		if (cr_unprotect_header(&k, pkt, len, INITIAL_PN_OFF, &pn,
					&pn_len) || pn_len != 4)
			return -1;
		ptlen = cr_open_payload(&k, pkt, len, INITIAL_HDR, pn, pt);
		if (ptlen < 0)
			return -1;
		pkt[0] &= ~0x40;
		memcpy(pkt + INITIAL_HDR, pt, ptlen);
		len = cr_protect(&k, pkt, INITIAL_HDR, INITIAL_PN_OFF, pn,
				 ptlen);
		if (len < 0)
			return -1;
	}
	return send(fd, pkt, len, 0) == len ? 0 : -1;
}

/*
 * RFC 9287 §3: a listener that advertises grease_quic_bit takes a first
 * Initial with the fixed bit 0 (a client may send one with a token of a
 * server that advertised it); one that does not drops it.
 */
static void greased_first_initial(int family, int grease)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int lfd, ufd, a, b = -1;

	CHECK_OK(sysctl_set(GREASE_SYSCTL, grease ? "1" : "0"));
	lfd = listener(family, NULL, &ss, &len);
	CHECK(lfd >= 0);
	ufd = udp_sock(family);
	CHECK(ufd >= 0);
	CHECK_OK(set_timeouts(lfd, 5));
	CHECK_OK(connect(ufd, (struct sockaddr *)&ss, len));
	if (tap_failed_checks)
		return;
	/* The greased one first, then a normal one: two, or one, to accept. */
	CHECK_OK(send_initial(ufd, 0x10, 1));
	CHECK_OK(send_initial(ufd, 0x20, 0));
	a = accept(lfd, NULL, NULL);
	CHECK(a >= 0);
	if (grease) {
		b = accept(lfd, NULL, NULL);
		CHECK(b >= 0);
	} else {
		CHECK(!(wait_poll(lfd, POLLIN, 500) & POLLIN));
	}
	if (tap_failed_checks)
		printf("# drops: bad_header %ld listener_refused %ld decrypt %ld "
		       "pending %ld packets_received %ld\n",
		       hp_stat("drop_bad_header"), hp_stat("drop_listener_refused"),
		       hp_stat("drop_decrypt_failed"), hp_stat("drop_pending_full"),
		       hp_stat("packets_received"));
	if (b >= 0)
		close(b);
	if (a >= 0)
		close(a);
	close(ufd);
	close(lfd);
	sysctl_restore();
}

static void test_greased_initial_accepted(int family)
{
	greased_first_initial(family, 1);
}

static void test_greased_initial_dropped(int family)
{
	greased_first_initial(family, 0);
}

static const struct conn_test tests[] = {
	{ "v2 (RFC 9369): client config v2, both ends v2, data flows",
	  test_v2_connection, FAM_BOTH },
	{ "v1 by default on both ends", test_v1_default, 0 },
	{ "version_information exchanged both ways", test_version_information, 0 },
	{ "compatible VN: listener preferring v2 moves a v1 client, both end in v2",
	  test_compat_to_v2, FAM_BOTH },
	{ "compatible VN: listener without preference keeps v1",
	  test_compat_no_pref, 0 },
	{ "compatible VN: client with disable_compatible_version stays v1",
	  test_compat_client_off, 0 },
	{ "disable_compatible_version: no version_information sent",
	  test_version_information_off, 0 },
	{ "VN sent for 1200 bytes of an unknown version, not for 1199 or a VN",
	  test_vn_sent, FAM_BOTH },
	{ "VN sent with ALPN dispatch listeners", test_vn_sent_dispatch, FAM_BOTH },
	{ "no VN from a port without listener", test_vn_not_from_client, 0 },
	{ "VN rate limited per listening port", test_vn_rate_limited, 0 },
	{ "VN received, no common version: EPROTONOSUPPORT", test_vn_no_common,
	  FAM_BOTH },
	{ "VN offering v2 to v1: libquic connects again in v2 (then no common)",
	  test_vn_offers_v2, 0 },
	{ "VN offering v1 to v2: libquic connects again in v1 (then no common)",
	  test_vn_offers_v1, 0 },
	{ "VN restart: a v2 client to a v1-only server connects in v1 via libquic",
	  test_vn_restart, FAM_BOTH },
	{ "VN listing our version or with a wrong SCID is ignored",
	  test_vn_ignored, 0 },
	{ "grease_quic_bit advertised by default: packets greased",
	  test_grease_on, FAM_BOTH },
	{ "grease_quic_bit sysctl 0: not advertised, nothing greased",
	  test_grease_off, 0 },
	{ "listener advertising grease_quic_bit takes a greased first Initial",
	  test_greased_initial_accepted, 0 },
	{ "listener not advertising it drops a greased first Initial",
	  test_greased_initial_dropped, 0 },
};

int main(void)
{
	return sysctl_guarded_main(GREASE_SYSCTL, tests,
				   sizeof(tests) / sizeof(tests[0]));
}

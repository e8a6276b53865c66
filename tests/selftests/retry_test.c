// SPDX-License-Identifier: GPL-2.0
/*
 * Retry and NEW_TOKEN (RFC 9000 §8.1, RFC 9001 §5.8; net/quic/retry.c,
 * token.c).
 *
 * Server: a listener with validate_peer_address answers a tokenless
 * Initial with a Retry, and the connection made from the Initial that
 * brings its token back completes; so does one made while an Initial
 * flood holds more pending connections than net.quic.retry_threshold.
 * NEW_TOKEN comes after the handshake (net.quic.new_token) and on request
 * (QUIC_SOCKOPT_TOKEN set with no value); the client keeps it, raises
 * QUIC_EVENT_NEW_TOKEN, and a reconnection that carries it is not
 * Retried.  Forged tokens: a NEW_TOKEN one is ignored, a Retry one drops
 * the Initial.
 *
 * Client: a UDP socket plays the server and answers the kernel client's
 * Initial with crafted Retries (craft.h): a wrong tag and a second Retry
 * are ignored, a good one is followed (new DCID, token, keys, ClientHello
 * from offset 0, packet numbers going on), and the server's
 * retry_source_connection_id is checked.
 *
 * Counters of /proc/net/quic_stats are module-wide: each test compares
 * before and after.
 */

#include "quic_conn.h"
#include "craft.h"
#include "sysctl_guard.h"
#include "../hostile/procfs.h"

#include <sys/random.h>

#define SYSCTL_RETRY		"/proc/sys/net/quic/retry_threshold"
#define SYSCTL_NEW_TOKEN	"/proc/sys/net/quic/new_token"
#define WAIT_MS			8000	/* for the receive path (TCG guest) */
#define TOKEN_LEN		33	/* a NEW_TOKEN token of ours */

/* The counter @name once it reaches @want, or what it is after @ms. */
static long stat_reach(const char *name, long want, int ms)
{
	long long end = now_ms() + ms;
	long v;

	while ((v = hp_stat(name)) < want && now_ms() < end)
		sleep_ms(20);
	return v;
}

/* ---- kernel client and server ---- */

struct opts {
	int validate;		/* the listener's validate_peer_address */
	const uint8_t *token;	/* the client's QUIC_SOCKOPT_TOKEN */
	size_t token_len;
	int token_event;	/* the client turns QUIC_EVENT_NEW_TOKEN on */
	const char *alpn;	/* the listener's QUIC_SOCKOPT_ALPN */
};

static int set_validate(int fd)
{
	struct quic_config c;
	socklen_t len = sizeof(c);

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &c, &len))
		return -1;
	c.validate_peer_address = 1;
	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &c, sizeof(c));
}

/*
 * A listener on loopback; *ss and *len get its address (with *len 0), or
 * give it.
 */
static int listener_open(int family, const struct opts *o,
			 struct sockaddr_storage *ss, socklen_t *len)
{
	int fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);

	if (!*len)
		*len = loopback_addr(family, 0, ss);
	CHECK(fd >= 0);
	if (fd < 0)
		return -1;
	CHECK_OK(set_timeouts(fd, TIMEO_SEC));
	if (o->validate)
		CHECK_OK(set_validate(fd));
	if (o->alpn)
		CHECK_OK(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, o->alpn,
				    strlen(o->alpn)));
	CHECK_OK(bind(fd, (struct sockaddr *)ss, *len));
	CHECK_OK(listen(fd, 64));
	CHECK_OK(getsockname(fd, (struct sockaddr *)ss, len));
	return fd;
}

/*
 * A client of the listener @lfd at @ss, handshake done on both ends (the
 * server accepts the first connection queued).  0, or -1.
 */
static int pair_open_on(struct conn *c, int family, int lfd,
			const struct sockaddr_storage *ss, socklen_t len,
			const struct opts *o)
{
	struct server_arg sa = { .lfd = lfd, .fd = -1 };
	pthread_t th;
	int ret;

	c->family = family;
	c->sfd = -1;
	c->cfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(c->cfd >= 0);
	CHECK_OK(set_timeouts(c->cfd, TIMEO_SEC));
	if (o->token_event)
		CHECK_OK(enable_event(c->cfd, QUIC_EVENT_NEW_TOKEN));
	if (o->token_len)
		CHECK_OK(setsockopt(c->cfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN,
				    o->token, o->token_len));
	if (tap_failed_checks)
		return -1;
	pthread_create(&th, NULL, server_main, &sa);
	CHECK_OK(connect(c->cfd, (const struct sockaddr *)ss, len));
	ret = quic_client_handshake(c->cfd, psk_file, NULL, ALPN);
	if (ret) {		/* so that the server's fails too */
		close(c->cfd);
		c->cfd = -1;
	}
	pthread_join(th, NULL);
	c->sfd = sa.fd;
	if (!ret && !sa.ret)
		return 0;
	printf("# handshake: client %d, server %d\n", ret, sa.ret);
	CHECK(0);
	conn_close(c);
	return -1;
}

static int pair_open(struct conn *c, int family, const struct opts *o)
{
	struct sockaddr_storage ss;
	socklen_t len = 0;
	int lfd, ret;

	lfd = listener_open(family, o, &ss, &len);
	if (lfd < 0)
		return -1;
	ret = pair_open_on(c, family, lfd, &ss, len, o);
	close(lfd);
	return ret;
}

/* A message on a new stream each way: the connection works. */
static void exchange(struct conn *c)
{
	char buf[16];
	struct rinfo ri;

	CHECK(qsend(c->cfd, "ping", 4, C_BIDI(0), MSG_QUIC_STREAM_FIN, 0) == 4);
	CHECK(qrecv(c->sfd, buf, sizeof(buf), 0, &ri) == 4);
	CHECK(!memcmp(buf, "ping", 4));
	CHECK(qsend(c->sfd, "pong", 4, C_BIDI(0), MSG_QUIC_STREAM_FIN, 0) == 4);
	CHECK(qrecv(c->cfd, buf, sizeof(buf), 0, &ri) == 4);
	CHECK(!memcmp(buf, "pong", 4));
}

/* A QUIC_EVENT_NEW_TOKEN on @fd: the token's length, into @tok; or -1. */
static int recv_token_event(int fd, uint8_t *tok, size_t cap)
{
	uint8_t buf[1 + 512];
	struct rinfo ri;
	ssize_t n;

	n = qrecv(fd, buf, sizeof(buf), 0, &ri);
	if (n < 2 || !(ri.msg_flags & MSG_QUIC_NOTIFICATION) ||
	    buf[0] != QUIC_EVENT_NEW_TOKEN || (size_t)n - 1 > cap) {
		printf("# want a NEW_TOKEN event: %zd bytes, flags %#x, type %d\n",
		       n, ri.msg_flags, n > 0 ? buf[0] : -1);
		return -1;
	}
	memcpy(tok, buf + 1, n - 1);
	return n - 1;
}

static int get_token(int fd, uint8_t *tok, size_t cap)
{
	socklen_t len = cap;

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, tok, &len))
		return -1;
	return len;
}

/* ---- server tests ---- */

/* validate_peer_address: a Retry, followed; the connection works. */
static void test_forced_retry(int family)
{
	long sent = hp_stat("retry_sent"), rcvd = hp_stat("retry_received");
	long ok = hp_stat("tokens_accepted");
	struct opts o = { .validate = 1 };
	struct conn c;

	if (pair_open(&c, family, &o))
		return;
	printf("# retry_sent +%ld, retry_received +%ld, tokens_accepted +%ld\n",
	       hp_stat("retry_sent") - sent, hp_stat("retry_received") - rcvd,
	       hp_stat("tokens_accepted") - ok);
	CHECK(hp_stat("retry_sent") > sent);
	CHECK(hp_stat("retry_received") > rcvd);
	CHECK(hp_stat("tokens_accepted") > ok);
	exchange(&c);
	conn_close(&c);
}

/*
 * Through ALPN dispatch (two listeners on one port): the Retry is sent
 * before the listener is known, and the connection reaches its own.
 */
static void test_dispatch_retry(int family)
{
	struct opts o = { .validate = 1, .alpn = ALPN };
	struct opts other = { .alpn = "other" };
	struct sockaddr_storage ss;
	long sent = hp_stat("retry_sent"), ok = hp_stat("tokens_accepted");
	socklen_t len = 0;
	struct conn c;
	int lfd, lfd2;

	lfd = listener_open(family, &o, &ss, &len);
	lfd2 = listener_open(family, &other, &ss, &len);
	CHECK(lfd >= 0 && lfd2 >= 0);
	if (!tap_failed_checks && !pair_open_on(&c, family, lfd, &ss, len, &o)) {
		CHECK(hp_stat("retry_sent") > sent);
		CHECK(hp_stat("tokens_accepted") > ok);
		exchange(&c);
		conn_close(&c);
	}
	close(lfd2);
	close(lfd);
}

/* Without validation nor flood, no Retry. */
static void test_no_retry(int family)
{
	long sent = hp_stat("retry_sent"), rcvd = hp_stat("retry_received");
	struct opts o = {};
	struct conn c;

	if (pair_open(&c, family, &o))
		return;
	CHECK(hp_stat("retry_sent") == sent);
	CHECK(hp_stat("retry_received") == rcvd);
	exchange(&c);
	conn_close(&c);
}

/* A crafted first Initial of a new connection, with @token if any. */
static int send_initial(int fd, const uint8_t *token, size_t token_len)
{
	uint8_t dcid[8], scid[8], hello[300], frame[400];
	int n;

	if (getrandom(dcid, sizeof(dcid), 0) != sizeof(dcid) ||
	    getrandom(scid, sizeof(scid), 0) != sizeof(scid))
		return -1;
	memset(hello, 0x5a, sizeof(hello));
	hello[0] = 1;			/* TLS ClientHello */
	hello[1] = 0;
	hello[2] = (sizeof(hello) - 4) >> 8;
	hello[3] = (sizeof(hello) - 4) & 0xff;
	n = cr_put_crypto(frame, 0, hello, sizeof(hello));
	return cr_initial_send(fd, dcid, 8, scid, 8, token, token_len, 0,
			       frame, n);
}

/* A UDP socket connected to @ss, with a receive timeout of 1 s. */
static int udp_peer(int family, const struct sockaddr_storage *ss,
		    socklen_t len)
{
	struct timeval tv = { .tv_sec = 1 };
	int fd = socket(family, SOCK_DGRAM, 0);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    connect(fd, (const struct sockaddr *)ss, len)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Retry packets @fd receives within @ms, or until there are @want. */
static int count_retries(int fd, int want, int ms)
{
	long long end = now_ms() + ms;
	struct cr_long_hdr h;
	uint8_t buf[2048];
	int n = 0;
	ssize_t r;

	while (n < want && now_ms() < end) {
		r = recv(fd, buf, sizeof(buf), 0);
		if (r > 0 && !cr_long_parse(buf, r, &h) &&
		    h.type == CR_LONG_RETRY && h.version == 1)
			n++;
	}
	return n;
}

/*
 * An Initial flood: past net.quic.retry_threshold pending connections,
 * new Initials get a Retry (counted), no connection; a real client
 * follows its Retry and connects.
 */
static void test_flood_retry(int family)
{
	struct opts o = {};
	struct sockaddr_storage ss;
	long sent = hp_stat("retry_sent");
	int lfd, ufd, fds[4], i, n;
	socklen_t len = 0;
	struct conn c;

	CHECK_OK(sysctl_set(SYSCTL_RETRY, "4"));
	lfd = listener_open(family, &o, &ss, &len);
	ufd = udp_peer(family, &ss, len);
	CHECK(lfd >= 0 && ufd >= 0);
	if (tap_failed_checks)
		goto out;
	for (i = 0; i < 4; i++)
		CHECK_OK(send_initial(ufd, NULL, 0));
	/* The four are pending; accepted, they stay so (no handshake). */
	fcntl(lfd, F_SETFL, O_NONBLOCK);
	for (i = 0, n = 0; i < 4 && n < 200; n++) {
		fds[i] = accept(lfd, NULL, NULL);
		if (fds[i] >= 0)
			i++;
		else
			sleep_ms(25);
	}
	CHECK(i == 4);
	CHECK(count_retries(ufd, 1, 200) == 0);	/* the kernel's ACKs only */
	for (n = 0; n < 6; n++)
		CHECK_OK(send_initial(ufd, NULL, 0));
	n = count_retries(ufd, 7, 3000);
	printf("# %d Retries to 6 Initials, retry_sent +%ld\n", n,
	       hp_stat("retry_sent") - sent);
	CHECK(n == 6);
	CHECK(hp_stat("retry_sent") >= sent + 6);
	CHECK_ERR(accept(lfd, NULL, NULL), EAGAIN);
	fcntl(lfd, F_SETFL, 0);

	sent = hp_stat("retry_sent");
	if (!pair_open_on(&c, family, lfd, &ss, len, &o)) {
		CHECK(hp_stat("retry_sent") > sent);
		exchange(&c);
		conn_close(&c);
	}
	for (n = 0; n < i; n++)
		close(fds[n]);
out:
	close(ufd);
	close(lfd);
	sysctl_restore();
}

/* net.quic.retry_threshold: default 64, 0 turns it off, range checked. */
static void test_sysctl(int family)
{
	char buf[32];
	int n;

	(void)family;
	n = sysctl_read(SYSCTL_RETRY, buf, sizeof(buf));
	CHECK(n > 0);
	buf[n > 0 ? n : 0] = 0;
	CHECK(atoi(buf) == 64);
	CHECK_OK(sysctl_set(SYSCTL_RETRY, "0"));
	CHECK(sysctl_write(SYSCTL_RETRY, "-1", 2) == -1);
	CHECK(sysctl_write(SYSCTL_RETRY, "65537", 5) == -1);
	sysctl_restore();
	n = sysctl_read(SYSCTL_NEW_TOKEN, buf, sizeof(buf));
	buf[n > 0 ? n : 0] = 0;
	CHECK(n > 0 && atoi(buf) == 1);
	CHECK(sysctl_write(SYSCTL_NEW_TOKEN, "2", 1) == -1);
}

/*
 * NEW_TOKEN by default: the client raises the event and reads the token
 * back; a new connection with it is not Retried once the listener
 * validates addresses.  The key of tokens is the port's (token.c): the
 * same listener takes both.
 */
static void test_new_token_default(int family)
{
	uint8_t tok[512], got[512];
	struct opts o = { .token_event = 1 };
	struct sockaddr_storage ss;
	long sent, ok;
	struct conn c;
	socklen_t len = 0;
	int n, lfd;

	lfd = listener_open(family, &o, &ss, &len);
	if (lfd < 0 || pair_open_on(&c, family, lfd, &ss, len, &o))
		goto out;
	n = recv_token_event(c.cfd, tok, sizeof(tok));
	printf("# NEW_TOKEN of %d bytes\n", n);
	CHECK(n == TOKEN_LEN);
	CHECK(get_token(c.cfd, got, sizeof(got)) == n);
	CHECK(n > 0 && !memcmp(tok, got, n));
	conn_close(&c);
	if (n <= 0)
		goto out;

	o = (struct opts){ .token = tok, .token_len = n };
	CHECK_OK(set_validate(lfd));
	sent = hp_stat("retry_sent");
	ok = hp_stat("tokens_accepted");
	if (!pair_open_on(&c, family, lfd, &ss, len, &o)) {
		CHECK(hp_stat("retry_sent") == sent);
		CHECK(hp_stat("tokens_accepted") > ok);
		exchange(&c);
		conn_close(&c);
	}
out:
	close(lfd);
}

/* net.quic.new_token 0: none unasked; QUIC_SOCKOPT_TOKEN asks for one. */
static void test_new_token_request(int family)
{
	struct opts o = { .token_event = 1 };
	uint8_t t1[512], t2[512];
	long nt;
	struct conn c;
	int n1, n2;

	CHECK_OK(sysctl_set(SYSCTL_NEW_TOKEN, "0"));
	nt = hp_stat("new_token_sent");
	if (pair_open(&c, family, &o)) {
		sysctl_restore();
		return;
	}
	exchange(&c);		/* the handshake's last packets are in */
	CHECK(hp_stat("new_token_sent") == nt);
	CHECK(get_token(c.cfd, t1, sizeof(t1)) == 0);
	CHECK_OK(setsockopt(c.sfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, NULL, 0));
	n1 = recv_token_event(c.cfd, t1, sizeof(t1));
	CHECK_OK(setsockopt(c.sfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, NULL, 0));
	n2 = recv_token_event(c.cfd, t2, sizeof(t2));
	CHECK(n1 == TOKEN_LEN && n2 == TOKEN_LEN);
	CHECK(memcmp(t1, t2, TOKEN_LEN));	/* every token is new */
	CHECK(get_token(c.cfd, t1, sizeof(t1)) == n2);
	CHECK(!memcmp(t1, t2, TOKEN_LEN));	/* the last one is kept */
	CHECK(hp_stat("new_token_sent") == nt + 2);
	conn_close(&c);
	sysctl_restore();
}

/*
 * A forged NEW_TOKEN token is ignored, not fatal: counted as rejected,
 * and a validating listener Retries the client, which connects.
 */
static void test_forged_new_token(int family)
{
	uint8_t tok[TOKEN_LEN];
	long bad = hp_stat("tokens_rejected"), sent = hp_stat("retry_sent");
	struct opts o = { .token = tok, .token_len = sizeof(tok) };
	struct conn c;

	CHECK(getrandom(tok, sizeof(tok), 0) == sizeof(tok));
	tok[0] = 0xa5;		/* our NEW type byte, a MAC that is not */
	if (!pair_open(&c, family, &o)) {
		CHECK(hp_stat("tokens_rejected") > bad);
		CHECK(hp_stat("retry_sent") == sent);
		exchange(&c);
		conn_close(&c);
	}
	o.validate = 1;
	bad = hp_stat("tokens_rejected");
	if (!pair_open(&c, family, &o)) {
		CHECK(hp_stat("tokens_rejected") > bad);
		CHECK(hp_stat("retry_sent") > sent);
		exchange(&c);
		conn_close(&c);
	}
}

/* An Initial with a forged Retry token is dropped without an answer. */
static void test_forged_retry_token(int family)
{
	struct opts o = { .validate = 1 };
	struct sockaddr_storage ss;
	uint8_t tok[47];
	long drop = hp_stat("drop_retry_token_invalid");
	int lfd, ufd, got = 0;
	socklen_t len = 0;
	char buf[2048];

	CHECK(getrandom(tok, sizeof(tok), 0) == sizeof(tok));
	tok[0] = 0x5a;		/* our Retry type byte */
	tok[9] = 20;		/* an ODCID of 20 bytes: 1 + 8 + 1 + 20 + 16 */
	lfd = listener_open(family, &o, &ss, &len);
	ufd = udp_peer(family, &ss, len);
	CHECK(lfd >= 0 && ufd >= 0);
	if (tap_failed_checks)
		return;
	CHECK_OK(send_initial(ufd, tok, 46));
	CHECK(stat_reach("drop_retry_token_invalid", drop + 1, WAIT_MS) ==
	      drop + 1);
	while (recv(ufd, buf, sizeof(buf), 0) > 0)
		got++;
	CHECK(got == 0);
	fcntl(lfd, F_SETFL, O_NONBLOCK);
	CHECK_ERR(accept(lfd, NULL, NULL), EAGAIN);
	close(ufd);
	close(lfd);
}

/* QUIC_SOCKOPT_TOKEN and the NEW_TOKEN event: what each socket may do. */
static void test_token_errno(int family)
{
	struct quic_event_option ev = { .type = QUIC_EVENT_NEW_TOKEN, .on = 1 };
	struct opts o = {};
	struct sockaddr_storage ss;
	uint8_t buf[64];
	socklen_t len = 0;
	struct conn c;
	int lfd;

	lfd = listener_open(family, &o, &ss, &len);
	CHECK_ERR(setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, NULL, 0),
		  ENOTCONN);
	CHECK_ERR(setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, "x", 1),
		  EINVAL);
	CHECK_OK(setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev,
			    sizeof(ev)));
	close(lfd);
	if (pair_open(&c, family, &o))
		return;
	CHECK_ERR(setsockopt(c.sfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, "x", 1),
		  EINVAL);
	CHECK_ERR(get_token(c.sfd, buf, sizeof(buf)), EINVAL);
	CHECK_OK(setsockopt(c.sfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, NULL, 0));
	/* Address validation is the listener's: too late for a connection. */
	CHECK_ERR(set_validate(c.cfd), EISCONN);
	CHECK_ERR(set_validate(c.sfd), EISCONN);
	/* The client's Initials are gone: its token can no longer change. */
	CHECK_ERR(setsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_TOKEN, "x", 1),
		  EISCONN);
	conn_close(&c);
}

/* ---- the client side, against a crafted server ---- */

static const uint8_t retry_key[16] = {
	0xbe, 0x0c, 0x69, 0x0b, 0x9f, 0x66, 0x57, 0x5a,
	0x1d, 0x76, 0x6b, 0x54, 0xe3, 0x68, 0xc8, 0x4e };
static const uint8_t retry_nonce[12] = {
	0x46, 0x15, 0x99, 0xd3, 0x5d, 0x63, 0x2b, 0xf2,
	0x23, 0x98, 0x25, 0xbb };

/*
 * A QUIC v1 Retry to the client @cid from the new @scid with @token, its
 * tag computed over @odcid (RFC 9001 §5.8).  Its length.
 */
static int build_retry(uint8_t *out, const struct cr_long_hdr *ci,
		       const uint8_t *scid, const char *token)
{
	struct cr_keys k = { .cipher = CR_AES128GCM, .key_len = 16 };
	uint8_t ad[256];
	size_t n = 0, tl = strlen(token);

	memcpy(k.key, retry_key, 16);
	memcpy(k.iv, retry_nonce, 12);
	out[n++] = 0xf0;		/* long, fixed, Retry */
	out[n++] = 0;
	out[n++] = 0;
	out[n++] = 0;
	out[n++] = 1;
	out[n++] = ci->scid_len;
	memcpy(out + n, ci->scid, ci->scid_len);
	n += ci->scid_len;
	out[n++] = 8;
	memcpy(out + n, scid, 8);
	n += 8;
	memcpy(out + n, token, tl);
	n += tl;
	ad[0] = ci->dcid_len;		/* the pseudo-packet: ODCID first */
	memcpy(ad + 1, ci->dcid, ci->dcid_len);
	memcpy(ad + 1 + ci->dcid_len, out, n);
	if (cr_seal(&k, 0, ad, 1 + ci->dcid_len + n, NULL, 0, out + n))
		return -1;
	return n + CR_TAG_LEN;
}

/* A client Initial as the crafted server sees it. */
struct seen {
	struct cr_long_hdr h;
	uint8_t token[256];
	size_t token_len;
	uint64_t pn;
	int crypto_at_0;	/* a CRYPTO frame at offset 0 */
};

/*
 * The next client Initial @fd receives whose DCID is @dcid, opened with
 * the keys of that DCID.  0, or -1 after @ms.
 */
static int next_initial(int fd, const uint8_t *dcid, size_t dcid_len,
			struct seen *s, int ms)
{
	long long end = now_ms() + ms;
	uint8_t pkt[2048], pt[2048];
	struct cr_keys k;
	uint32_t trunc;
	size_t pn_len, off;
	uint64_t v = 0;
	ssize_t r;
	int n, m;

	if (cr_initial_keys(&k, dcid, dcid_len, 0))
		return -1;
	while (now_ms() < end) {
		r = recv(fd, pkt, sizeof(pkt), 0);
		if (r <= 0 || cr_long_parse(pkt, r, &s->h) ||
		    s->h.type != CR_LONG_INITIAL || s->h.dcid_len != dcid_len ||
		    memcmp(s->h.dcid, dcid, dcid_len))
			continue;
		off = 7 + s->h.dcid_len + s->h.scid_len;
		off += cr_get_varint(pkt + off, r - off, &v);
		s->token_len = v < sizeof(s->token) ? v : 0;
		memcpy(s->token, pkt + off, s->token_len);
		if (cr_unprotect_header(&k, pkt, s->h.pkt_len, s->h.pn_off,
					&trunc, &pn_len))
			continue;
		s->pn = trunc;
		n = cr_open_payload(&k, pkt, s->h.pkt_len, s->h.pn_off + pn_len,
				    s->pn, pt);
		if (n < 0)
			continue;
		s->crypto_at_0 = 0;
		for (off = 0; off < (size_t)n; off += m) {
			struct cr_frame f;

			m = cr_frame_parse(pt + off, n - off, &f);
			if (m <= 0)
				break;
			if (f.type == CR_FRAME_CRYPTO && !f.offset)
				s->crypto_at_0 = 1;
		}
		return 0;
	}
	return -1;
}

/* The server's transport parameters as libquic would set them. */
static int set_peer_tp(int fd, const struct cr_long_hdr *first,
		       const uint8_t *rscid)
{
	uint8_t tp[128];
	size_t n = 0;

	n += cr_tp_put_bytes(tp + n, CR_TP_ORIGINAL_DCID, first->dcid,
			     first->dcid_len);
	n += cr_tp_put_bytes(tp + n, CR_TP_INITIAL_SCID, NULL, 0);
	if (rscid)
		n += cr_tp_put_bytes(tp + n, CR_TP_RETRY_SCID, rscid, 8);
	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, tp,
			  n);
}

/* A UDP socket bound on loopback, as the crafted server. */
static int udp_server(int family, struct sockaddr_storage *ss, socklen_t *len)
{
	struct timeval tv = { .tv_sec = 1 };
	int fd = socket(family, SOCK_DGRAM, 0);

	*len = loopback_addr(family, 0, ss);
	if (fd < 0 || bind(fd, (struct sockaddr *)ss, *len) ||
	    getsockname(fd, (struct sockaddr *)ss, len) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/*
 * A kernel client *@cfd that sent its first Initial to the crafted server
 * *@sfd, now connected to it; @first gets that Initial's header (the
 * datagram stays queued).  0, or -1.
 */
static int crafted_start(int family, int *sfd, int *cfd,
			 struct cr_long_hdr *first)
{
	struct quic_handshake_info info = { .crypto_level = QUIC_CRYPTO_INITIAL };
	static const char hello[64] = { 1 };	/* a ClientHello's type */
	struct sockaddr_storage ss, from;
	socklen_t len, flen = sizeof(from);
	uint8_t buf[2048];
	ssize_t n;

	*sfd = udp_server(family, &ss, &len);
	*cfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	if (*sfd < 0 || *cfd < 0 ||
	    connect(*cfd, (struct sockaddr *)&ss, len) ||
	    qsend_cmsg(*cfd, hello, sizeof(hello), QUIC_HANDSHAKE_INFO, &info,
		       sizeof(info), MSG_DONTWAIT) != sizeof(hello))
		return -1;
	n = recvfrom(*sfd, buf, sizeof(buf), MSG_PEEK,
		     (struct sockaddr *)&from, &flen);
	if (n <= 0 || connect(*sfd, (struct sockaddr *)&from, flen) ||
	    cr_long_parse(buf, n, first) || first->type != CR_LONG_INITIAL)
		return -1;
	return 0;
}

static void test_client_follows_retry(int family)
{
	uint8_t scid[8], wrong[8], retry[256];
	long ign = hp_stat("drop_retry_ignored");
	long rcvd = hp_stat("retry_received");
	struct seen first, s;
	int sfd, cfd, n;

	CHECK_OK(crafted_start(family, &sfd, &cfd, &first.h));
	if (tap_failed_checks)
		goto out;
	CHECK_OK(next_initial(sfd, first.h.dcid, first.h.dcid_len, &first,
			      WAIT_MS));
	CHECK(first.crypto_at_0 && !first.token_len);

	CHECK(getrandom(scid, 8, 0) == 8 && getrandom(wrong, 8, 0) == 8);
	/* A wrong tag: ignored. */
	n = build_retry(retry, &first.h, scid, "a token");
	retry[n - 1] ^= 1;
	CHECK(send(sfd, retry, n, 0) == n);
	CHECK(stat_reach("drop_retry_ignored", ign + 1, WAIT_MS) >= ign + 1);
	CHECK(hp_stat("retry_received") == rcvd);

	/* A good one: followed. */
	n = build_retry(retry, &first.h, scid, "the token");
	CHECK(send(sfd, retry, n, 0) == n);
	CHECK(stat_reach("retry_received", rcvd + 1, WAIT_MS) == rcvd + 1);
	CHECK_OK(next_initial(sfd, scid, 8, &s, WAIT_MS));
	printf("# after Retry: pn %llu (first %llu), token %zu bytes, CRYPTO at 0: %d\n",
	       (unsigned long long)s.pn, (unsigned long long)first.pn,
	       s.token_len, s.crypto_at_0);
	CHECK(s.token_len == 9 && !memcmp(s.token, "the token", 9));
	CHECK(s.crypto_at_0);
	CHECK(s.pn > first.pn);
	CHECK(s.h.scid_len == first.h.scid_len &&
	      !memcmp(s.h.scid, first.h.scid, s.h.scid_len));

	/* A second Retry: ignored, the Initials stay as they were. */
	ign = hp_stat("drop_retry_ignored");
	n = build_retry(retry, &first.h, wrong, "another token");
	CHECK(send(sfd, retry, n, 0) == n);
	CHECK(stat_reach("drop_retry_ignored", ign + 1, WAIT_MS) >= ign + 1);
	CHECK(hp_stat("retry_received") == rcvd + 1);

	/* retry_source_connection_id: required, and the Retry's SCID. */
	CHECK_ERR(set_peer_tp(cfd, &first.h, NULL), EINVAL);
	CHECK_ERR(set_peer_tp(cfd, &first.h, wrong), EINVAL);
	CHECK_OK(set_peer_tp(cfd, &first.h, scid));
out:
	if (cfd >= 0)
		close(cfd);
	if (sfd >= 0)
		close(sfd);
}

/* Before any Retry, the server must not send retry_source_connection_id. */
static void test_client_no_retry_tp(int family)
{
	uint8_t rscid[8] = { 1 };
	struct cr_long_hdr h;
	int sfd, cfd;

	CHECK_OK(crafted_start(family, &sfd, &cfd, &h));
	if (!tap_failed_checks) {
		CHECK_ERR(set_peer_tp(cfd, &h, rscid), EINVAL);
		CHECK_OK(set_peer_tp(cfd, &h, NULL));
	}
	if (cfd >= 0)
		close(cfd);
	if (sfd >= 0)
		close(sfd);
}

static const struct conn_test tests[] = {
	{ "retry_threshold and new_token sysctls", test_sysctl, 0 },
	{ "validate_peer_address: Retry, followed, the connection works",
	  test_forced_retry, FAM_BOTH },
	{ "no Retry without validation or flood", test_no_retry, 0 },
	{ "validate_peer_address through ALPN dispatch", test_dispatch_retry,
	  FAM_BOTH },
	{ "Initial flood past retry_threshold: Retries, a client connects",
	  test_flood_retry, FAM_BOTH },
	{ "NEW_TOKEN by default: event, TOKEN reads it, reconnect not Retried",
	  test_new_token_default, FAM_BOTH },
	{ "NEW_TOKEN on request (QUIC_SOCKOPT_TOKEN with no value)",
	  test_new_token_request, 0 },
	{ "a forged NEW_TOKEN token is ignored, not fatal",
	  test_forged_new_token, 0 },
	{ "an Initial with a forged Retry token is dropped",
	  test_forged_retry_token, FAM_BOTH },
	{ "TOKEN sockopt and NEW_TOKEN event: errno cases", test_token_errno, 0 },
	{ "client: bad tag and second Retry ignored, good one followed, TP checked",
	  test_client_follows_retry, FAM_BOTH },
	{ "client: retry_source_connection_id without a Retry is refused",
	  test_client_no_retry_tp, 0 },
};

int main(void)
{
	return sysctl_guarded_main(SYSCTL_RETRY, tests,
				   sizeof(tests) / sizeof(tests[0]));
}

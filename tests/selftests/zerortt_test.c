// SPDX-License-Identifier: GPL-2.0
/*
 * 0-RTT over real kernel sockets with libquic on both sides: a first
 * connection gets a session ticket and the server's transport parameters;
 * a second one writes stream data right after connect(), before its
 * handshake, and the data goes out in 0-RTT packets.  The counters of
 * /proc/net/quic_stats tell that it did (zero_rtt_packets_sent and
 * _received), that a server with 0-RTT off (QUIC_EARLY_DATA=0) rejected it
 * and the data came in 1-RTT all the same, and that a replayed first
 * flight (captured by a UDP relay between the two and sent again to the
 * server, whose second accept() runs in another process) gives the
 * application nothing: the kernel's replay filter refuses its 0-RTT key.
 */

#include "quic_conn.h"
#include "../hostile/procfs.h"

#include <sys/wait.h>

#define HQ_ALPN		"hq-interop"
#define EARLY_MSG	"early data, sent before the handshake"

static char dir[64];		/* the server's certificate, made by main() */

static const char *cert(const char *name)
{
	static char buf[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static int make_cert(void)
{
	char cmd[512];

	strcpy(dir, "/tmp/quic-0rtt.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "(cd '%s' && certtool --generate-privkey --key-type=ecdsa --curve=secp256r1 --outfile server.key && "
		 "printf 'cn = \"localhost\"\\ndns_name = \"localhost\"\\ntls_www_server\\nsigning_key\\nexpiration_days = 2\\n' > server.tmpl && "
		 "certtool --generate-self-signed --load-privkey server.key --template server.tmpl --outfile server.pem) >/dev/null 2>&1",
		 dir);
	return system(cmd) ? -1 : 0;
}

enum { ST_SENT, ST_RECV, ST_REJECTED, ST_REPLAY, ST_DROP, ST_MAX };

static const char *const st_names[ST_MAX] = {
	"zero_rtt_packets_sent", "zero_rtt_packets_received",
	"zero_rtt_rejected", "zero_rtt_replays_refused", "drop_zero_rtt",
};

static void stats_read(long long *v)
{
	int i;

	for (i = 0; i < ST_MAX; i++)
		v[i] = hp_stat(st_names[i]);
}

static void stats_delta(const long long *before, long long *d)
{
	long long now[ST_MAX];
	int i;

	stats_read(now);
	for (i = 0; i < ST_MAX; i++) {
		d[i] = now[i] - before[i];
		printf("# %s +%lld\n", st_names[i], d[i]);
	}
}

/* ---- a UDP relay between client and server, which records ---- */

#define RELAY_MAX	8

struct relay {
	int fd;				/* bound on loopback, seen as the client */
	struct sockaddr_storage srv, cli;
	socklen_t srv_len, cli_len;
	int stop;
	pthread_t th;
	/* The client's datagrams that begin with an Initial or a 0-RTT packet. */
	unsigned char dgram[RELAY_MAX][1500];
	size_t len[RELAY_MAX];
	int n;
	int zrtt_v1, zrtt_v2;	/* the client's 0-RTT packets, by version */
};

#define QUIC_V1		0x00000001u
#define QUIC_V2		0x6b3343cfu

static int get_varint(const unsigned char *p, size_t len, size_t *off,
		      uint64_t *v)
{
	size_t n, i;

	if (*off >= len)
		return -1;
	n = (size_t)1 << (p[*off] >> 6);
	if (*off + n > len)
		return -1;
	*v = p[*off] & 0x3f;
	for (i = 1; i < n; i++)
		*v = (*v << 8) | p[*off + i];
	*off += n;
	return 0;
}

/*
 * Count the 0-RTT packets among the coalesced long header packets of a
 * datagram: type 1 in v1, type 2 in v2 (RFC 9369 §3.2); Initials (type 0
 * in v1, 1 in v2) have a token before the Length.
 */
static void relay_count_0rtt(struct relay *r, const unsigned char *p,
			     size_t len)
{
	size_t off = 0, pos;
	uint64_t v, plen;
	uint32_t version;
	int type, initial;

	while (off + 7 <= len && (p[off] & 0x80)) {
		version = (uint32_t)p[off + 1] << 24 | p[off + 2] << 16 |
			  p[off + 3] << 8 | p[off + 4];
		type = (p[off] >> 4) & 3;
		pos = off + 5;
		pos += 1 + p[pos];			/* DCID */
		if (pos >= len)
			return;
		pos += 1 + p[pos];			/* SCID */
		initial = version == QUIC_V2 ? type == 1 : type == 0;
		if (initial && (get_varint(p, len, &pos, &v) || (pos += v) > len))
			return;
		if (get_varint(p, len, &pos, &plen))
			return;
		if (version == QUIC_V1 && type == 1)
			r->zrtt_v1++;
		if (version == QUIC_V2 && type == 2)
			r->zrtt_v2++;
		off = pos + plen;
	}
}

static int same_addr(const struct sockaddr_storage *a, socklen_t alen,
		     const struct sockaddr_storage *b, socklen_t blen)
{
	return alen == blen && !memcmp(a, b, alen);
}

static void *relay_main(void *arg)
{
	struct relay *r = arg;
	unsigned char buf[2048];
	struct sockaddr_storage from;
	socklen_t flen;
	ssize_t n;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		struct pollfd pfd = { .fd = r->fd, .events = POLLIN };

		if (poll(&pfd, 1, 100) != 1)
			continue;
		flen = sizeof(from);
		n = recvfrom(r->fd, buf, sizeof(buf), 0, (struct sockaddr *)&from,
			     &flen);
		if (n <= 0)
			continue;
		if (same_addr(&from, flen, &r->srv, r->srv_len)) {
			if (r->cli_len)
				sendto(r->fd, buf, n, 0, (struct sockaddr *)&r->cli,
				       r->cli_len);
			continue;
		}
		r->cli = from;
		r->cli_len = flen;
		relay_count_0rtt(r, buf, n);
		/* Long header, Initial (0xc0) or 0-RTT (0xd0), fixed bit set. */
		if ((buf[0] & 0xe0) == 0xc0 && r->n < RELAY_MAX &&
		    (size_t)n <= sizeof(r->dgram[0])) {
			memcpy(r->dgram[r->n], buf, n);
			r->len[r->n++] = n;
		}
		sendto(r->fd, buf, n, 0, (struct sockaddr *)&r->srv, r->srv_len);
	}
	return NULL;
}

static int relay_start(struct relay *r, int family,
		       const struct sockaddr_storage *srv, socklen_t srv_len,
		       struct sockaddr_storage *front, socklen_t *front_len)
{
	memset(r, 0, sizeof(*r));
	r->srv = *srv;
	r->srv_len = srv_len;
	r->fd = socket(family, SOCK_DGRAM, 0);
	if (r->fd < 0)
		return -1;
	*front_len = loopback_addr(family, 0, front);
	if (bind(r->fd, (struct sockaddr *)front, *front_len) ||
	    getsockname(r->fd, (struct sockaddr *)front, front_len))
		return -1;
	return pthread_create(&r->th, NULL, relay_main, r) ? -1 : 0;
}

static void relay_stop(struct relay *r)
{
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
	pthread_join(r->th, NULL);
}

/* The recorded first flight, to the server again, from the relay's address. */
static void relay_replay(struct relay *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		sendto(r->fd, r->dgram[i], r->len[i], 0,
		       (struct sockaddr *)&r->srv, r->srv_len);
}

/* ---- connections ---- */

struct side {
	int fd, ret;
	gnutls_session_t session;	/* client */
	gnutls_certificate_credentials_t cred;
};

/* What a round of the test needs from the one before it. */
struct memo {
	unsigned char data[8192];	/* session data */
	size_t len;
	struct quic_transport_param tp;	/* the server's, remote = 1 */
	int have_tp;
};

struct round {
	int family;
	int lfd;
	struct sockaddr_storage addr;	/* where the client connects */
	socklen_t addr_len;
	struct side cli, srv;
	const struct memo *in;		/* resume with these, if set */
	int set_tp;			/* ... and set the remembered parameters */
	int no_early;			/* ... but do not ask GnuTLS for early data */
	const void *early;		/* written after connect(), before the handshake */
	size_t early_len;
	int early_ret;			/* what that sendmsg() returned, or -errno */
};

static void *srv_main(void *arg)
{
	struct round *rd = arg;

	rd->srv.fd = accept(rd->lfd, NULL, NULL);
	if (rd->srv.fd < 0) {
		rd->srv.ret = -errno;
		return NULL;
	}
	set_timeouts(rd->srv.fd, TIMEO_SEC);
	rd->srv.ret = quic_server_handshake(rd->srv.fd, cert("server.key"),
					    cert("server.pem"), HQ_ALPN);
	return NULL;
}

static int client_session(struct round *rd)
{
	struct side *c = &rd->cli;
	unsigned int flags = GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA;
	int ret;

	if (rd->in && !rd->no_early)
		flags |= GNUTLS_ENABLE_EARLY_DATA;
	ret = gnutls_init(&c->session, flags);
	if (ret >= 0)
		ret = gnutls_certificate_allocate_credentials(&c->cred);
	if (ret >= 0)
		ret = gnutls_credentials_set(c->session, GNUTLS_CRD_CERTIFICATE,
					     c->cred);
	if (ret >= 0)
		ret = gnutls_priority_set_direct(c->session, QUIC_PRIORITY, NULL);
	if (ret >= 0)
		ret = quic_session_set_alpn(c->session, HQ_ALPN, strlen(HQ_ALPN));
	if (ret >= 0 && rd->in)
		ret = quic_session_set_data(c->session, rd->in->data, rd->in->len);
	gnutls_transport_set_int(c->session, c->fd);
	return ret < 0 ? -1 : 0;
}

/*
 * A listener on loopback, for every round of a test.  The kernel gives it
 * one ticket key, which its connections share.
 */
static int listener_open(struct round *rd, int family)
{
	rd->family = family;
	rd->lfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	if (rd->lfd < 0)
		return -1;
	rd->addr_len = loopback_addr(family, 0, &rd->addr);
	if (set_timeouts(rd->lfd, TIMEO_SEC) ||
	    bind(rd->lfd, (struct sockaddr *)&rd->addr, rd->addr_len) ||
	    listen(rd->lfd, 8) ||
	    getsockname(rd->lfd, (struct sockaddr *)&rd->addr, &rd->addr_len))
		return -1;
	return 0;
}

/* One connection: both handshakes; 0 if both succeeded. */
static int round_run(struct round *rd)
{
	struct quic_config cfg = { .receive_session_ticket = 1 };
	pthread_t th;

	rd->cli.fd = rd->srv.fd = -1;
	rd->cli.fd = socket(rd->family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(rd->cli.fd >= 0);
	CHECK_OK(set_timeouts(rd->cli.fd, TIMEO_SEC));
	CHECK_OK(setsockopt(rd->cli.fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg,
			    sizeof(cfg)));
	if (rd->in && rd->set_tp)
		CHECK_OK(setsockopt(rd->cli.fd, SOL_QUIC,
				    QUIC_SOCKOPT_TRANSPORT_PARAM, &rd->in->tp,
				    sizeof(rd->in->tp)));
	CHECK_OK(client_session(rd));
	if (tap_failed_checks)
		return -1;
	pthread_create(&th, NULL, srv_main, rd);
	CHECK_OK(connect(rd->cli.fd, (struct sockaddr *)&rd->addr,
			 rd->addr_len));
	if (rd->early) {
		rd->early_ret = qsend(rd->cli.fd, rd->early, rd->early_len, -1,
				      MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN,
				      MSG_DONTWAIT);
		if (rd->early_ret < 0)
			rd->early_ret = -errno;
	}
	rd->cli.ret = quic_handshake(rd->cli.session);
	pthread_join(th, NULL);
	if (rd->cli.ret || rd->srv.ret)
		printf("# handshake: client %d (%s), server %d (%s)\n",
		       rd->cli.ret, strerror(-rd->cli.ret), rd->srv.ret,
		       strerror(-rd->srv.ret));
	return rd->cli.ret || rd->srv.ret ? -1 : 0;
}

/* The first connection: a ticket and the server's parameters. */
static int first_round(struct round *rd, struct memo *m)
{
	socklen_t len = sizeof(m->tp);
	int ret;

	if (round_run(rd))
		return -1;
	m->len = sizeof(m->data);
	ret = quic_session_get_data(rd->cli.session, m->data, &m->len);
	CHECK(ret == 0 && m->len > 0);
	memset(&m->tp, 0, sizeof(m->tp));
	m->tp.remote = 1;
	CHECK_OK(getsockopt(rd->cli.fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM,
			    &m->tp, &len));
	m->tp.remote = 1;
	m->have_tp = 1;
	printf("# session data %zu bytes; server max_data %llu, max_streams_bidi %u\n",
	       m->len, (unsigned long long)m->tp.max_data, m->tp.max_streams_bidi);
	tls_pair_free(rd);
	return tap_failed_checks ? -1 : 0;
}

/* The server reads stream 0 to its FIN: it must be @data. */
static void check_early_read(int sfd, const void *data, size_t len)
{
	static unsigned char buf[65536];
	ssize_t n;

	n = recv_stream_fin(sfd, 0, buf, sizeof(buf));
	if (n != (ssize_t)len)
		printf("# the server read %zd bytes of %zu\n", n, len);
	CHECK(n == (ssize_t)len && !memcmp(buf, data, len));
}

/* ---- tests ---- */

/*
 * Accepted: the data written before the handshake is read by the server
 * after its handshake, and it went in 0-RTT packets, both ways of telling.
 */
static void accepted(int family, size_t len)
{
	static unsigned char data[6000];
	long long before[ST_MAX], d[ST_MAX];
	struct round rd = {};
	struct memo m = {};

	pattern_fill(data, 0, 0, sizeof(data));
	CHECK_OK(listener_open(&rd, family));
	if (first_round(&rd, &m))
		return;
	stats_read(before);
	rd.in = &m;
	rd.set_tp = 1;
	rd.early = data;
	rd.early_len = len;
	CHECK(round_run(&rd) == 0);
	CHECK(rd.early_ret == (int)len);
	CHECK(gnutls_session_is_resumed(rd.cli.session));
	CHECK(gnutls_session_get_flags(rd.cli.session) & GNUTLS_SFLAGS_EARLY_DATA);
	if (!rd.cli.ret && !rd.srv.ret)
		check_early_read(rd.srv.fd, data, len);
	stats_delta(before, d);
	CHECK(d[ST_SENT] >= 1 && d[ST_RECV] >= 1 && d[ST_REJECTED] == 0);
	/*
	 * Every 0-RTT packet was read, those in datagrams of their own too,
	 * which came before accept() (they wait with the Initial).
	 */
	CHECK(d[ST_RECV] == d[ST_SENT] && d[ST_DROP] == 0);
	if (len > 2000)
		CHECK(d[ST_SENT] >= 3);
	tls_pair_free(&rd);
	close(rd.lfd);
}

/* One 0-RTT packet, after the Initial in its datagram. */
static void test_accepted(int family) { accepted(family, 100); }
/* Several: the rest in datagrams of their own. */
static void test_accepted_long(int family) { accepted(family, 6000); }

/*
 * Rejected by a server with 0-RTT off (QUIC_EARLY_DATA=0): the client sent
 * 0-RTT packets, the server read none, and the data (several packets of
 * it) arrives intact in 1-RTT.
 */
static void test_rejected(int family)
{
	static unsigned char data[6000];
	long long before[ST_MAX], d[ST_MAX];
	struct round rd = {};
	struct memo m = {};

	pattern_fill(data, 0, 0, sizeof(data));
	CHECK_OK(listener_open(&rd, family));
	if (first_round(&rd, &m))
		return;
	setenv("QUIC_EARLY_DATA", "0", 1);
	stats_read(before);
	rd.in = &m;
	rd.set_tp = 1;
	rd.early = data;
	rd.early_len = sizeof(data);
	CHECK(round_run(&rd) == 0);
	unsetenv("QUIC_EARLY_DATA");
	CHECK(rd.early_ret == (int)sizeof(data));
	CHECK(gnutls_session_is_resumed(rd.cli.session));
	CHECK(!(gnutls_session_get_flags(rd.cli.session) & GNUTLS_SFLAGS_EARLY_DATA));
	if (!rd.cli.ret && !rd.srv.ret)
		check_early_read(rd.srv.fd, data, sizeof(data));
	stats_delta(before, d);
	CHECK(d[ST_SENT] >= 2 && d[ST_RECV] == 0 && d[ST_REJECTED] == 1);
	tls_pair_free(&rd);
	close(rd.lfd);
}

/*
 * Compatible version negotiation (RFC 9369 §4.1): a v1 client with 0-RTT
 * data to a listener that now prefers v2.  Its first flight carries 0-RTT
 * in v1, which the server, moved to v2, reads with the keys of v1; the
 * client sends no 0-RTT packet in v2 (with more data than the first
 * flight carries, what is left after the move goes in 1-RTT), and the
 * server reads all of it, once.
 */
static void compat_v2(int family, size_t dlen)
{
	static unsigned char data[20000];
	struct quic_config v2 = { .version = QUIC_V2 };
	long long before[ST_MAX], d[ST_MAX];
	struct sockaddr_storage front;
	socklen_t front_len;
	struct round rd = {};
	struct memo m = {};
	struct relay r;
	struct quic_config c;
	socklen_t len = sizeof(c);

	pattern_fill(data, 0, 0, sizeof(data));
	CHECK_OK(listener_open(&rd, family));
	if (first_round(&rd, &m))
		return;
	CHECK_OK(setsockopt(rd.lfd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &v2,
			    sizeof(v2)));
	if (tap_failed_checks || relay_start(&r, family, &rd.addr, rd.addr_len,
					     &front, &front_len)) {
		CHECK(0);
		close(rd.lfd);
		return;
	}
	rd.addr = front;
	rd.addr_len = front_len;
	rd.in = &m;
	rd.set_tp = 1;
	rd.early = data;
	rd.early_len = dlen;
	stats_read(before);
	CHECK(round_run(&rd) == 0);
	CHECK(rd.early_ret == (int)dlen);
	CHECK_OK(getsockopt(rd.cli.fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &c, &len));
	CHECK(c.version == QUIC_V2);
	if (!rd.cli.ret && !rd.srv.ret)
		check_early_read(rd.srv.fd, data, dlen);
	stats_delta(before, d);
	relay_stop(&r);
	close(r.fd);
	printf("# 0-RTT packets from the client: %d in v1, %d in v2\n",
	       r.zrtt_v1, r.zrtt_v2);
	CHECK(r.zrtt_v1 >= 1 && r.zrtt_v2 == 0);
	CHECK(d[ST_RECV] >= 1);
	tls_pair_free(&rd);
	close(rd.lfd);
}

/* One 0-RTT packet, in the first datagram. */
static void test_compat_v2(int family) { compat_v2(family, 100); }
/* More than the first flight carries: some is written after the move. */
static void test_compat_v2_long(int family) { compat_v2(family, 20000); }

/*
 * Without the server's remembered parameters there is no 0-RTT: a stream
 * write before the handshake is ENOTCONN, as it always was, even with a
 * ticket that allows early data; after the handshake it works.
 */
static void test_no_remote_tp(int family)
{
	long long before[ST_MAX], d[ST_MAX];
	struct round rd = {};
	struct memo m = {};

	CHECK_OK(listener_open(&rd, family));
	if (first_round(&rd, &m))
		return;
	stats_read(before);
	rd.in = &m;
	rd.set_tp = 0;
	rd.early = EARLY_MSG;
	rd.early_len = strlen(EARLY_MSG);
	CHECK(round_run(&rd) == 0);
	CHECK(rd.early_ret == -ENOTCONN);
	CHECK(qsend(rd.cli.fd, EARLY_MSG, strlen(EARLY_MSG), -1,
		    MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN, 0) ==
	      (ssize_t)strlen(EARLY_MSG));
	if (!rd.cli.ret && !rd.srv.ret)
		check_early_read(rd.srv.fd, EARLY_MSG, strlen(EARLY_MSG));
	stats_delta(before, d);
	CHECK(d[ST_SENT] == 0 && d[ST_RECV] == 0);
	tls_pair_free(&rd);
	close(rd.lfd);
}

/*
 * Remembered parameters, but TLS gives no 0-RTT key (the client's session
 * does not ask for early data): what was written before the handshake is
 * sent in 1-RTT, under the server's parameters.
 */
static void test_no_early_key(int family)
{
	long long before[ST_MAX], d[ST_MAX];
	struct round rd = {};
	struct memo m = {};

	CHECK_OK(listener_open(&rd, family));
	if (first_round(&rd, &m))
		return;
	stats_read(before);
	rd.in = &m;
	rd.set_tp = 1;
	rd.no_early = 1;
	rd.early = EARLY_MSG;
	rd.early_len = strlen(EARLY_MSG);
	CHECK(round_run(&rd) == 0);
	CHECK(rd.early_ret == (int)strlen(EARLY_MSG));
	CHECK(gnutls_session_is_resumed(rd.cli.session));
	if (!rd.cli.ret && !rd.srv.ret)
		check_early_read(rd.srv.fd, EARLY_MSG, strlen(EARLY_MSG));
	stats_delta(before, d);
	CHECK(d[ST_SENT] == 0 && d[ST_RECV] == 0 && d[ST_REJECTED] == 0);
	tls_pair_free(&rd);
	close(rd.lfd);
}

/*
 * QUIC_SOCKOPT_TRANSPORT_PARAM with remote = 1: none to read before it is
 * set (ENOTCONN); what is set reads back; a server has none to set
 * (EINVAL); once a stream was written under them they are fixed (EISCONN).
 */
static void test_remote_tp_sockopt(int family)
{
	struct quic_transport_param p, q;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(q), alen;
	int fd, lfd;

	fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	lfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(fd >= 0 && lfd >= 0);
	memset(&q, 0, sizeof(q));
	q.remote = 1;
	CHECK_ERR(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &q,
			     &len), ENOTCONN);
	memset(&p, 0, sizeof(p));
	p.remote = 1;
	p.max_data = 65536;
	p.max_stream_data_bidi_remote = 32768;
	p.max_streams_bidi = 3;
	CHECK_OK(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
			    sizeof(p)));
	len = sizeof(q);
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &q, &len));
	CHECK(len == sizeof(q) && q.max_data == 65536 &&
	      q.max_stream_data_bidi_remote == 32768 && q.max_streams_bidi == 3);

	alen = loopback_addr(family, 0, &ss);
	CHECK_OK(bind(lfd, (struct sockaddr *)&ss, alen));
	CHECK_OK(listen(lfd, 1));
	CHECK_ERR(setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
			     sizeof(p)), EINVAL);
	CHECK_OK(getsockname(lfd, (struct sockaddr *)&ss, &alen));
	CHECK_OK(connect(fd, (struct sockaddr *)&ss, alen));
	/* 0-RTT streams open under them, within their limits ... */
	CHECK(qsend(fd, "x", 1, -1, MSG_QUIC_STREAM_NEW, MSG_DONTWAIT) == 1);
	/* ... which are the remembered ones: 3 streams, then no more. */
	CHECK(qsend(fd, "x", 1, -1, MSG_QUIC_STREAM_NEW, MSG_DONTWAIT) == 1);
	CHECK(qsend(fd, "x", 1, -1, MSG_QUIC_STREAM_NEW, MSG_DONTWAIT) == 1);
	CHECK_ERR(qsend(fd, "x", 1, -1, MSG_QUIC_STREAM_NEW,
			MSG_DONTWAIT | MSG_QUIC_STREAM_DONTWAIT), EAGAIN);
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
			     sizeof(p)), EISCONN);
	close(fd);
	close(lfd);
}

/*
 * The server that takes a replay: accept(), a handshake that cannot
 * complete, and a read; what it got goes to @res_fd as three ints
 * (accepted, the handshake's result, the bytes the read returned).
 */
static void replay_serve(int lfd, int res_fd)
{
	int out[3] = { 0, 0, 0 }, fd;

	fd = accept(lfd, NULL, NULL);
	out[0] = fd >= 0;
	if (fd >= 0) {
		char buf[256];
		struct rinfo ri;

		set_timeouts(fd, 3);
		out[1] = quic_server_handshake(fd, cert("server.key"),
					       cert("server.pem"), HQ_ALPN);
		out[2] = (int)qrecv(fd, buf, sizeof(buf), MSG_DONTWAIT, &ri);
		close(fd);
	}
	if (write(res_fd, out, sizeof(out)) != sizeof(out))
		perror("write");
}

struct replay_arg {
	int lfd, res_fd;
};

static void *replay_thread(void *p)
{
	struct replay_arg *a = p;

	replay_serve(a->lfd, a->res_fd);
	return NULL;
}

/*
 * libquic's GnuTLS anti-replay context of this process starts now, as a
 * long-running server's would have: GnuTLS refuses the early data of
 * tickets older than the context, so without this a new process would
 * refuse the replay for that reason alone.
 */
static void anti_replay_warm(int family)
{
	struct quic_handshake_step *step;
	gnutls_session_t s;
	int fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);

	if (fd < 0 || gnutls_init(&s, GNUTLS_SERVER) < 0)
		return;
	gnutls_transport_set_int(s, fd);
	quic_handshake_init(s, &step);
	quic_handshake_deinit(s);
	gnutls_deinit(s);
	close(fd);
}

/*
 * The replay: a UDP relay records the client's first flight (Initial and
 * 0-RTT) of a connection whose early data the server read; once that
 * connection is gone, the flight is sent to the listener again.  @other:
 * a server in another process takes it, with a GnuTLS anti-replay store of
 * its own, which has not seen it: the kernel's replay filter must refuse
 * its 0-RTT key.  Else this process takes it: libquic's store refuses the
 * early data first (TLS rejects it, no key is installed).  Either way the
 * handshake cannot complete and nothing is read.
 */
static void replay(int family, int other)
{
	long long before[ST_MAX], d[ST_MAX];
	struct sockaddr_storage front;
	socklen_t front_len;
	struct round rd = {};
	struct replay_arg arg;
	struct relay r;
	struct memo m = {};
	int go[2], res[2], i;
	int got[3] = { -1, -1, -1 };	/* accepted, handshake, bytes read */
	pthread_t th;
	pid_t pid = -1;
	char c;

	memset(&r, 0, sizeof(r));
	r.fd = -1;
	CHECK_OK(pipe(go));
	CHECK_OK(pipe(res));
	CHECK_OK(listener_open(&rd, family));
	if (tap_failed_checks)
		return;
	if (other) {
		pid = fork();
		if (!pid) {
			/* The other server process: ready, then the replay. */
			anti_replay_warm(family);
			if (write(res[1], "r", 1) != 1 ||
			    read(go[0], &c, 1) != 1)
				_exit(1);
			replay_serve(rd.lfd, res[1]);
			_exit(0);
		}
		CHECK(pid > 0);
		CHECK(read(res[0], &c, 1) == 1 && c == 'r');
		sleep_ms(1100);		/* the ticket comes after, surely */
	}

	if (first_round(&rd, &m))
		goto out;
	/* The second round goes through the relay, which records it. */
	CHECK_OK(relay_start(&r, family, &rd.addr, rd.addr_len, &front,
			     &front_len));
	rd.addr = front;
	rd.addr_len = front_len;
	rd.in = &m;
	rd.set_tp = 1;
	rd.early = EARLY_MSG;
	rd.early_len = strlen(EARLY_MSG);
	stats_read(before);
	CHECK(round_run(&rd) == 0);
	if (!rd.cli.ret && !rd.srv.ret)
		check_early_read(rd.srv.fd, EARLY_MSG, strlen(EARLY_MSG));
	stats_delta(before, d);
	CHECK(d[ST_RECV] >= 1);
	relay_stop(&r);
	printf("# recorded %d datagrams of the first flight\n", r.n);
	CHECK(r.n >= 1);
	tls_pair_free(&rd);
	if (tap_failed_checks)
		goto out;

	/*
	 * Replay until the listener takes it: the first connection's IDs
	 * route it there only once that connection is gone (closing period).
	 */
	stats_read(before);
	if (other) {
		CHECK(write(go[1], "g", 1) == 1);
	} else {
		arg.lfd = rd.lfd;
		arg.res_fd = res[1];
		pthread_create(&th, NULL, replay_thread, &arg);
	}
	for (i = 0; i < 100; i++) {
		struct pollfd pfd = { .fd = res[0], .events = POLLIN };

		relay_replay(&r);
		if (poll(&pfd, 1, 200) == 1)
			break;
	}
	CHECK(read(res[0], got, sizeof(got)) == sizeof(got));
	if (!other)
		pthread_join(th, NULL);
	printf("# replayed: accepted %d, handshake %d, read %d\n", got[0],
	       got[1], got[2]);
	stats_delta(before, d);
	CHECK(got[0] == 1);		/* the replay reached a server */
	CHECK(got[1] != 0);		/* whose handshake did not complete */
	CHECK(got[2] <= 0);		/* and which read nothing */
	CHECK(d[ST_RECV] == 0);		/* no 0-RTT packet was read */
	/* Who refused it: the kernel's filter, or libquic's store first. */
	CHECK(other ? d[ST_REPLAY] >= 1 : d[ST_REPLAY] == 0);
out:
	if (r.fd >= 0)
		close(r.fd);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	close(rd.lfd);
}

static void test_replay_other(int family) { replay(family, 1); }
static void test_replay_same(int family) { replay(family, 0); }

static const struct conn_test tests[] = {
	{ "0-RTT accepted: the server reads data written before the handshake",
	  test_accepted, FAM_BOTH },
	{ "0-RTT accepted, several packets: all read, none sent again",
	  test_accepted_long, FAM_BOTH },
	{ "0-RTT rejected (QUIC_EARLY_DATA=0): the data comes in 1-RTT, intact",
	  test_rejected, FAM_BOTH },
	{ "no remembered transport parameters: no 0-RTT, ENOTCONN as before",
	  test_no_remote_tp, 0 },
	{ "remembered parameters but no 0-RTT key: the data goes in 1-RTT",
	  test_no_early_key, 0 },
	{ "QUIC_SOCKOPT_TRANSPORT_PARAM remote = 1: set, read, limits, fixed",
	  test_remote_tp_sockopt, FAM_BOTH },
	{ "0-RTT to a listener preferring v2: v1 0-RTT read, none in v2, data once",
	  test_compat_v2, FAM_BOTH },
	{ "the same with more data than the first flight: the rest in 1-RTT",
	  test_compat_v2_long, FAM_BOTH },
	{ "a replayed first flight delivers no early data (same process)",
	  test_replay_same, 0 },
	{ "a replayed first flight delivers no early data (another process)",
	  test_replay_other, 0 },
};

int main(void)
{
	char cmd[128];
	int ret;

	if (make_cert()) {
		printf("TAP version 13\n1..1\nnot ok 1 - making a certificate with certtool\n");
		return 1;
	}
	ret = conn_tests_main(tests, sizeof(tests) / sizeof(tests[0]));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		ret = ret ? ret : 1;
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The connection-ID life cycle (RFC 9000 §5.1) and stateless reset
 * (§10.3), between two kernel sockets unless said otherwise:
 * NEW_CONNECTION_ID up to the peer's active_connection_id_limit (a limit
 * of 64 clamped to what we keep, 8), RETIRE_CONNECTION_ID and the
 * replacement, retire_prior_to, the CID lengths 0, 4 and 20 (sysctl
 * net.quic.cid_len), QUIC_SOCKOPT_CONNECTION_ID and
 * QUIC_EVENT_CONNECTION_ID, CIDs supplied by the application
 * (QUIC_SOCKOPT_CONNECTION_ID_LIST) and the same CID in two network
 * namespaces, stateless resets sent for unknown CIDs and detected (a
 * crafted one, and a server whose connection vanished without a
 * CONNECTION_CLOSE), and CONNECTION_ID_LIMIT_ERROR from a crafted peer.
 */

#include "craft_peer.h"
#include "sysctl_guard.h"
#include "../hostile/procfs.h"

#include <sched.h>

#define CID_LEN_SYSCTL	"/proc/sys/net/quic/cid_len"
#define CID_LIMIT_ERROR	0x09
#define OUR_LIMIT	4	/* the default active_connection_id_limit */
#define ISSUE_MAX	8	/* QUIC_CID_ISSUE_MAX */

/*
 * Read the QUIC_EVENT_CONNECTION_ID events that arrive within @ms, until
 * @max of them; the last one in @last.  Returns how many.
 */
static int cid_events(int fd, int max, int ms,
		      struct quic_connection_id_info *last)
{
	unsigned char buf[1 + sizeof(union quic_event)];
	long long deadline = now_ms() + ms;
	struct rinfo ri;
	int n = 0;
	ssize_t r;

	while (n < max && now_ms() < deadline) {
		if (!(wait_poll(fd, POLLIN, deadline - now_ms()) & POLLIN))
			break;
		r = qrecv(fd, buf, sizeof(buf), MSG_DONTWAIT, &ri);
		if (r < 0)
			continue;
		if (!(ri.msg_flags & MSG_QUIC_NOTIFICATION) ||
		    buf[0] != QUIC_EVENT_CONNECTION_ID) {
			printf("# unexpected message: %zd bytes, flags %#x\n",
			       r, ri.msg_flags);
			continue;
		}
		if (last)
			memcpy(last, buf + 1, sizeof(*last));
		n++;
	}
	return n;
}

static int get_cid(int fd, int dest, struct quic_connection_id_info *i)
{
	socklen_t len = sizeof(*i);

	memset(i, 0, sizeof(*i));
	i->dest = dest;
	return getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_ID, i, &len);
}

static int set_cid(int fd, int dest, uint32_t active, uint32_t prior_to)
{
	struct quic_connection_id_info i = {
		.dest = dest, .active = active, .prior_to = prior_to,
	};

	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_ID, &i,
			  sizeof(i));
}

/* "hello" from @from arrives on @to's stream @sid (events skipped). */
static void exchange(int from, int to, int64_t sid)
{
	char buf[64];
	struct rinfo ri;
	ssize_t n;

	CHECK(qsend(from, "hello", 5, sid, MSG_QUIC_STREAM_NEW |
		    MSG_QUIC_STREAM_FIN, 0) == 5);
	do {
		n = qrecv(to, buf, sizeof(buf), 0, &ri);
	} while (n > 0 && (ri.msg_flags & MSG_QUIC_NOTIFICATION));
	CHECK(n == 5 && ri.sid == sid && !memcmp(buf, "hello", 5) &&
	      (ri.msg_flags & MSG_QUIC_STREAM_FIN));
}

static const struct conn_cfg events_cfg = {
	.client_events = { QUIC_EVENT_CONNECTION_ID },
	.server_events = { QUIC_EVENT_CONNECTION_ID },
};

/* The defaults: each end gets OUR_LIMIT - 1 new CIDs, no more. */
static void test_issue_limit(int family)
{
	struct quic_connection_id_info i;
	struct conn c;

	if (conn_open_cfg(&c, family, &events_cfg))
		return;
	CHECK(cid_events(c.cfd, OUR_LIMIT - 1, 5000, &i) == OUR_LIMIT - 1);
	CHECK(cid_events(c.sfd, OUR_LIMIT - 1, 5000, &i) == OUR_LIMIT - 1);
	CHECK(i.dest == 1 && i.active == 0 && i.prior_to == 0);
	/* And no more. */
	CHECK(cid_events(c.cfd, 1, 500, NULL) == 0);
	CHECK_OK(get_cid(c.cfd, 1, &i));
	CHECK(i.active == 0 && i.prior_to == 0);
	CHECK_OK(get_cid(c.cfd, 0, &i));
	CHECK(i.active == 0 && i.prior_to == 0);
	exchange(c.cfd, c.sfd, C_BIDI(0));
	conn_close(&c);
}

static void limit_64(struct quic_transport_param *p)
{
	p->active_connection_id_limit = 64;
}

/* A peer limit of 64 is accepted and clamped to the 8 we keep. */
static void test_limit_64(int family)
{
	struct conn_cfg cfg = events_cfg;
	struct conn c;

	cfg.server_tp = limit_64;
	cfg.client_tp = limit_64;
	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK(cid_events(c.cfd, 64, 3000, NULL) == ISSUE_MAX - 1);
	CHECK(cid_events(c.sfd, 64, 1000, NULL) == ISSUE_MAX - 1);
	exchange(c.cfd, c.sfd, C_BIDI(0));
	exchange(c.sfd, c.cfd, S_BIDI(0));
	conn_close(&c);
}

/*
 * The client moves to the server's CID 2 and retires 0: the server takes
 * 0 away and issues 4 in its place.
 */
static void test_retire_replace(int family)
{
	struct quic_connection_id_info i;
	long long deadline;
	struct conn c;

	if (conn_open_cfg(&c, family, &events_cfg))
		return;
	CHECK(cid_events(c.cfd, OUR_LIMIT - 1, 5000, NULL) == OUR_LIMIT - 1);
	CHECK_ERR(set_cid(c.cfd, 1, 9, 0), EINVAL);	/* not given */
	CHECK_OK(set_cid(c.cfd, 1, 2, 0));
	CHECK(cid_events(c.cfd, 1, 1000, &i) == 1);	/* the switch */
	CHECK(i.active == 2);
	/* The replacement of 0 comes. */
	CHECK(cid_events(c.cfd, 1, 5000, &i) == 1);
	CHECK_OK(get_cid(c.cfd, 1, &i));
	CHECK(i.active == 2 && i.prior_to == 0);
	deadline = now_ms() + 3000;
	do {
		CHECK_OK(get_cid(c.sfd, 0, &i));
	} while (i.active != 1 && now_ms() < deadline && (sleep_ms(20), 1));
	printf("# server: lowest active CID %u\n", i.active);
	CHECK(i.active == 1);
	exchange(c.cfd, c.sfd, C_BIDI(0));
	exchange(c.sfd, c.cfd, S_BIDI(0));
	conn_close(&c);
}

/* The server retires its CIDs below 3: the client moves to 3. */
static void test_retire_prior_to(int family)
{
	struct quic_connection_id_info i;
	long long deadline;
	struct conn c;

	if (conn_open_cfg(&c, family, &events_cfg))
		return;
	CHECK(cid_events(c.cfd, OUR_LIMIT - 1, 5000, NULL) == OUR_LIMIT - 1);
	CHECK_ERR(set_cid(c.sfd, 0, 0, 99), EINVAL);	/* never issued */
	CHECK_OK(set_cid(c.sfd, 0, 0, 3));
	CHECK_OK(get_cid(c.sfd, 0, &i));
	CHECK(i.prior_to == 3 && i.active >= 3);
	/* Seqs 4, 5, 6; the first retires 0-2 and moves the client to 3. */
	CHECK(cid_events(c.cfd, 3, 5000, &i) == 3);
	CHECK(i.active == 3 && i.prior_to == 3);
	CHECK_OK(get_cid(c.cfd, 1, &i));
	CHECK(i.active == 3 && i.prior_to == 3);
	exchange(c.cfd, c.sfd, C_BIDI(0));
	exchange(c.sfd, c.cfd, S_BIDI(0));
	/* The client's RETIRE_CONNECTION_IDs reach the server. */
	deadline = now_ms() + 3000;
	do {
		CHECK_OK(get_cid(c.sfd, 0, &i));
	} while (i.active != 3 && now_ms() < deadline && (sleep_ms(20), 1));
	CHECK(i.active == 3);
	conn_close(&c);
}

static int cid_len_want;

static void client_cid_len(struct quic_config *cfg)
{
	char v[8];

	(void)cfg;
	snprintf(v, sizeof(v), "%d", cid_len_want);
	CHECK_OK(sysctl_set(CID_LEN_SYSCTL, v));
}

/* A connection whose ports have CIDs of @len bytes (the client's only). */
static void cid_len_conn(int family, int len, int client_only)
{
	struct conn_cfg cfg = events_cfg;
	int want = len ? OUR_LIMIT - 1 : 0;
	struct conn c;
	char v[8];

	snprintf(v, sizeof(v), "%d", len);
	if (client_only) {
		cid_len_want = len;
		cfg.client_config = client_cid_len;
	} else if (sysctl_set(CID_LEN_SYSCTL, v)) {
		SKIP_TEST("no sysctl net.quic.cid_len");
	}
	if (conn_open_cfg(&c, family, &cfg))
		return;
	sysctl_restore();
	/* The server's CIDs reach the client; the client's, if any, it. */
	CHECK(cid_events(c.cfd, OUR_LIMIT - 1, 5000, NULL) == OUR_LIMIT - 1);
	CHECK(cid_events(c.sfd, OUR_LIMIT, 1000, NULL) == want);
	exchange(c.cfd, c.sfd, C_BIDI(0));
	exchange(c.sfd, c.cfd, S_BIDI(0));
	conn_close(&c);
}

static void test_cid_len_0(int family)
{
	cid_len_conn(family, 0, 1);
}

static void test_cid_len_4(int family)
{
	cid_len_conn(family, 4, 0);
}

static void test_cid_len_20(int family)
{
	cid_len_conn(family, 20, 0);
}

/* A port without CIDs cannot listen. */
static void test_cid_len_0_listen(int family)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, 0, &ss);
	int fd;

	if (sysctl_set(CID_LEN_SYSCTL, "0"))
		SKIP_TEST("no sysctl net.quic.cid_len");
	fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK_OK(bind(fd, (struct sockaddr *)&ss, len));
	sysctl_restore();
	CHECK_ERR(listen(fd, 1), EINVAL);
	close(fd);
}

/* The application's CIDs: 0xc1 @tag @i ..., tokens 0x70 + @i. */
static void lb_entry(struct quic_connection_id *e, int tag, int i)
{
	memset(e, 0, sizeof(*e));
	e->len = 8;
	memset(e->data, 0xc1, 8);
	e->data[1] = tag;
	e->data[2] = i;
	/* Unlike those of a test before, which may still be closing. */
	e->data[3] = getpid();
	e->data[4] = getpid() >> 8;
	memset(e->reset_token, 0x70 + i, sizeof(e->reset_token));
	memcpy(e->reset_token + 1, e->data, 8);
}

/*
 * The server installs @n supplied CIDs and retires its own: the client
 * moves to the first supplied one (seq 4).  0, or -1.
 */
static int lb_install(struct conn *c, int tag, int n)
{
	struct quic_connection_id list[4];
	struct quic_connection_id_info i;
	int k;

	for (k = 0; k < n; k++)
		lb_entry(&list[k], tag, k);
	if (cid_events(c->cfd, OUR_LIMIT - 1, 5000, NULL) != OUR_LIMIT - 1) {
		CHECK(0);
		return -1;
	}
	list[0].reserved[0] = 1;
	CHECK_ERR(setsockopt(c->sfd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_ID_LIST,
			     list, sizeof(list[0])), EINVAL);
	list[0].reserved[0] = 0;
	CHECK_ERR(setsockopt(c->sfd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_ID_LIST,
			     list, sizeof(list[0]) - 1), EINVAL);
	CHECK_OK(setsockopt(c->sfd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_ID_LIST,
			    list, n * sizeof(list[0])));
	CHECK_OK(set_cid(c->sfd, 0, 0, 4));
	CHECK(cid_events(c->cfd, n, 5000, &i) == n);
	CHECK_OK(get_cid(c->cfd, 1, &i));
	printf("# client: active DCID %u, prior_to %u\n", i.active, i.prior_to);
	CHECK(i.active == 4 && i.prior_to == 4);
	return tap_failed_checks ? -1 : 0;
}

/* A UDP socket of @family, and @fd's address in @ss. */
static int udp_to(int family, int fd, struct sockaddr_storage *ss,
		  socklen_t *len)
{
	*len = sizeof(*ss);
	if (getsockname(fd, (struct sockaddr *)ss, len))
		return -1;
	return socket(family, SOCK_DGRAM, 0);
}

/* Send a short-header datagram of @n bytes to @cid; the reply's length. */
static ssize_t probe(int u, const struct sockaddr_storage *ss, socklen_t len,
		     const uint8_t *cid, size_t n, uint8_t *reply)
{
	uint8_t pkt[200];

	memset(pkt, 0x5a, sizeof(pkt));
	pkt[0] = 0x41;
	memcpy(pkt + 1, cid, 8);
	if (sendto(u, pkt, n, 0, (const struct sockaddr *)ss, len) != (ssize_t)n)
		return -2;
	if (!(wait_poll(u, POLLIN, 1000) & POLLIN))
		return -1;
	return recv(u, reply, 200, 0);
}

/*
 * Supplied CIDs: the client's packets carry them (the server's port finds
 * the connection by them, and sends no reset), a reset with a supplied
 * token closes the client.  Unknown CIDs get a reset: smaller than what
 * came, at least 21 bytes, a short header; none for under 43 bytes.
 */
static void test_supplied_and_reset(int family)
{
	struct quic_connection_id e;
	struct sockaddr_storage ss;
	uint8_t unknown[8], reply[200], rst[50];
	socklen_t len;
	char buf[16];
	long long t0;
	struct conn c;
	ssize_t n;
	int u;

	if (conn_open_cfg(&c, family, &events_cfg) || lb_install(&c, 1, 2))
		goto out;
	exchange(c.cfd, c.sfd, C_BIDI(0));

	u = udp_to(family, c.sfd, &ss, &len);
	CHECK(u >= 0);
	lb_entry(&e, 1, 0);
	CHECK(probe(u, &ss, len, e.data, 100, reply) == -1);
	memset(unknown, 0xee, sizeof(unknown));
	n = probe(u, &ss, len, unknown, 100, reply);
	printf("# reset for 100 bytes: %zd bytes, first %#x\n", n, reply[0]);
	CHECK(n >= 21 && n < 100 && (reply[0] & 0xc0) == 0x40);
	CHECK(probe(u, &ss, len, unknown, 42, reply) == -1);
	n = probe(u, &ss, len, unknown, 43, reply);
	CHECK(n >= 21 && n < 43);
	close(u);

	/* A reset with the client's active DCID's token: ECONNRESET. */
	u = udp_to(family, c.cfd, &ss, &len);
	memset(rst, 0x33, sizeof(rst));
	rst[0] = 0x4b;
	memcpy(rst + sizeof(rst) - 16, e.reset_token, 16);
	t0 = now_ms();
	CHECK(sendto(u, rst, sizeof(rst), 0, (struct sockaddr *)&ss, len) ==
	      sizeof(rst));
	CHECK(wait_poll(c.cfd, POLLIN, 3000) & POLLERR);
	errno = 0;
	CHECK(recv(c.cfd, buf, sizeof(buf), 0) < 0 && errno == ECONNRESET);
	printf("# client reset after %lld ms (errno %d)\n", now_ms() - t0,
	       errno);
	CHECK(qsend(c.cfd, "x", 1, C_BIDI(1), MSG_QUIC_STREAM_NEW, 0) < 0);
	close(u);
out:
	conn_close(&c);
}

/* A private network namespace with loopback up. */
static int private_netns(void)
{
	if (unshare(CLONE_NEWNET))
		return -1;
	return system("ip link set lo up");
}

/* The same supplied CID in two namespaces: both connections have it. */
static void test_two_netns(int family)
{
	struct conn a, b;

	if (private_netns()) {
		printf("# no private network namespace\n");
		CHECK(0);
		return;
	}
	if (conn_open_cfg(&a, family, &events_cfg))
		return;
	if (lb_install(&a, 2, 1))
		goto out_a;
	CHECK_OK(private_netns());
	if (conn_open_cfg(&b, family, &events_cfg))
		goto out_a;
	lb_install(&b, 2, 1);
	exchange(a.cfd, a.sfd, C_BIDI(0));
	exchange(b.cfd, b.sfd, C_BIDI(0));
	exchange(a.sfd, a.cfd, S_BIDI(0));
	exchange(b.sfd, b.cfd, S_BIDI(0));
	conn_close(&b);
out_a:
	conn_close(&a);
}

/* Drop every UDP datagram from now on (@on), or no longer. */
static int blackhole(int on)
{
	if (!on)
		return system("nft delete table inet blackhole");
	return system("nft -f - <<'EOF'\n"
		      "table inet blackhole {\n"
		      "	chain out {\n"
		      "		type filter hook output priority 0;\n"
		      "		meta l4proto udp drop\n"
		      "	}\n"
		      "}\n"
		      "EOF\n");
}

static void *accept_hs(void *p)
{
	int *fd = p, lfd = *fd;

	*fd = accept(lfd, NULL, NULL);
	if (*fd >= 0 && quic_server_handshake(*fd, psk_file, NULL, ALPN))
		*fd = -1;
	return NULL;
}

/*
 * The server's connection goes without a word (its CONNECTION_CLOSE is
 * lost) while its listener keeps the port: the client's next packets
 * get a stateless reset, and it fails with ECONNRESET in well under its
 * idle timeout.
 */
static void test_reset_after_close(int family)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, 0, &ss);
	int lfd, sfd, cfd = -1;
	char buf[16];
	long long t0;
	pthread_t th;

	if (system("command -v nft > /dev/null"))
		SKIP_TEST("no nft (apt install nftables)");
	if (private_netns()) {
		printf("# no private network namespace\n");
		CHECK(0);
		return;
	}
	lfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK_OK(bind(lfd, (struct sockaddr *)&ss, len));
	CHECK_OK(listen(lfd, 4));
	CHECK_OK(getsockname(lfd, (struct sockaddr *)&ss, &len));
	cfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK_OK(set_timeouts(cfd, TIMEO_SEC));
	sfd = lfd;
	pthread_create(&th, NULL, accept_hs, &sfd);
	CHECK_OK(connect(cfd, (struct sockaddr *)&ss, len));
	CHECK_OK(quic_client_handshake(cfd, psk_file, NULL, ALPN));
	pthread_join(th, NULL);
	CHECK(sfd >= 0);
	if (tap_failed_checks)
		goto out;
	exchange(cfd, sfd, C_BIDI(0));

	CHECK_OK(blackhole(1));
	CHECK_OK(setsockopt(sfd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	close(sfd);
	sleep_ms(2000);		/* its closing period ends */
	CHECK_OK(blackhole(0));

	t0 = now_ms();
	CHECK(qsend(cfd, buf, sizeof(buf), C_BIDI(1), MSG_QUIC_STREAM_NEW,
		    0) == sizeof(buf));
	errno = 0;
	while (recv(cfd, buf, sizeof(buf), 0) >= 0 && now_ms() - t0 < 8000)
		;
	printf("# client: errno %d after %lld ms\n", errno, now_ms() - t0);
	CHECK(errno == ECONNRESET && now_ms() - t0 < 3000);
out:
	if (cfd >= 0)
		close(cfd);
	close(lfd);
}

/* More CIDs from the peer than our limit: CONNECTION_ID_LIMIT_ERROR. */
static void test_limit_error(int family)
{
	uint8_t frames[4 * 48], cid[8], token[16];
	struct peer p;
	struct kpkt k;
	size_t n = 0;
	int closed, s;

	if (peer_open(&p, family, 1))
		goto out;
	for (s = 1; s <= OUR_LIMIT; s++) {
		memset(cid, s, sizeof(cid));
		memset(token, 0x80 + s, sizeof(token));
		n += cr_put_new_connection_id(frames + n, s, 0, cid,
					      sizeof(cid), token);
	}
	CHECK(peer_send(&p, frames, n, 1) != CR_PN_NONE);
	closed = wait_close(&p, &k, WAIT_MS);
	check_local_close(&p, &k, closed, CID_LIMIT_ERROR);
	CHECK(closed || k.close_frame == CR_FRAME_NEW_CONNECTION_ID);
out:
	peer_close(&p);
}

/* As many as the limit, with retire_prior_to: accepted. */
static void test_limit_ok_with_retire(int family)
{
	uint8_t frames[4 * 48], cid[8], token[16];
	struct peer p;
	struct kpkt k;
	size_t n = 0;
	uint64_t pn;
	int s;

	if (peer_open(&p, family, 1))
		goto out;
	for (s = 1; s <= OUR_LIMIT; s++) {
		memset(cid, s, sizeof(cid));
		memset(token, 0x80 + s, sizeof(token));
		n += cr_put_new_connection_id(frames + n, s, s == OUR_LIMIT,
					      cid, sizeof(cid), token);
	}
	pn = peer_send(&p, frames, n, 1);
	CHECK(pn != CR_PN_NONE);
	CHECK(!wait_ack_of(&p, pn, 0, &k, WAIT_MS));
	CHECK(!k.has_close);
out:
	peer_close(&p);
}

/*
 * The kernel client's next datagram to @fd, an Initial: its header in
 * @lh.  0, or -1 if none came within WAIT_MS.
 */
static int kernel_initial(int fd, struct cr_long_hdr *lh)
{
	uint8_t dgram[2048];
	int n;

	if (!(wait_poll(fd, POLLIN, WAIT_MS) & POLLIN))
		return -1;
	n = recv(fd, dgram, sizeof(dgram), 0);
	if (n < 0 || cr_long_parse(dgram, n, lh) ||
	    lh->type != CR_LONG_INITIAL)
		return -1;
	return 0;
}

/*
 * RFC 9000 §7.2: once a client has the server's connection ID from its
 * first Initial, it drops long-header packets from any other.  A second
 * server connection, made of a late copy of the client's Initial (a
 * server whose queues ran behind), must not feed it another ServerHello.
 * Here a plain UDP socket plays both: an Initial with a PING from SCID
 * a, which the client takes and acknowledges to a; then one from SCID b,
 * which it drops (drop_other_scid) and never answers.
 */
static void test_other_server_scid(int family)
{
	struct sockaddr_storage ss, kaddr;
	socklen_t len = loopback_addr(family, 0, &ss), klen = sizeof(kaddr);
	uint8_t a[8], b[8], ping = CR_FRAME_PING, pkt[1500], dgram[2048];
	long before = hp_stat("drop_other_scid");
	struct cr_long_hdr lh, kh;
	long long end;
	struct cr_keys k;
	int fd, kfd, n;

	memset(a, 0xaa, sizeof(a));
	memset(b, 0xbb, sizeof(b));
	fd = socket(family, SOCK_DGRAM, 0);
	CHECK_OK(bind(fd, (struct sockaddr *)&ss, len));
	CHECK_OK(getsockname(fd, (struct sockaddr *)&ss, &len));
	kfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK_OK(set_timeouts(kfd, TIMEO_SEC));
	CHECK_OK(connect(kfd, (struct sockaddr *)&ss, len));
	CHECK(send_initial_crypto(kfd) > 0);
	CHECK(wait_poll(fd, POLLIN, WAIT_MS) & POLLIN);
	CHECK((n = recvfrom(fd, dgram, sizeof(dgram), MSG_DONTWAIT,
			    (struct sockaddr *)&kaddr, &klen)) >= 1200);
	if (n < 1200 || cr_long_parse(dgram, n, &kh) ||
	    cr_initial_keys(&k, kh.dcid, kh.dcid_len, 1)) {
		CHECK(0);
		goto out;
	}
	/* From a: taken, and acknowledged to a. */
	n = cr_long_build(&k, CR_LONG_INITIAL, kh.scid, kh.scid_len, a, 8,
			  NULL, 0, 0, &ping, 1, 1200, pkt, sizeof(pkt));
	CHECK(n > 0 && sendto(fd, pkt, n, 0, (struct sockaddr *)&kaddr,
			      klen) == n);
	end = now_ms() + WAIT_MS;
	while (!kernel_initial(fd, &lh) && now_ms() < end &&
	       memcmp(lh.dcid, a, 8))
		;
	CHECK(lh.dcid_len == 8 && !memcmp(lh.dcid, a, 8));
	/* From b: dropped. */
	n = cr_long_build(&k, CR_LONG_INITIAL, kh.scid, kh.scid_len, b, 8,
			  NULL, 0, 1, &ping, 1, 1200, pkt, sizeof(pkt));
	CHECK(n > 0 && sendto(fd, pkt, n, 0, (struct sockaddr *)&kaddr,
			      klen) == n);
	end = now_ms() + WAIT_MS;
	while (hp_stat("drop_other_scid") == before && now_ms() < end)
		sleep_ms(20);
	printf("# drop_other_scid +%ld\n", hp_stat("drop_other_scid") - before);
	CHECK(hp_stat("drop_other_scid") == before + 1);
	/* Whatever it sends next still goes to a. */
	if (!kernel_initial(fd, &lh))
		CHECK(!memcmp(lh.dcid, a, 8));
out:
	close(kfd);
	close(fd);
}

static const struct conn_test tests[] = {
	{ "NEW_CONNECTION_ID up to the peer's limit, event each", test_issue_limit, FAM_BOTH },
	{ "peer limit 64: accepted, 8 CIDs issued", test_limit_64, 0 },
	{ "switch DCID: old one retired, replacement issued", test_retire_replace, 0 },
	{ "retire_prior_to: the peer moves to the first kept", test_retire_prior_to, 0 },
	{ "CID length 0 (client)", test_cid_len_0, FAM_BOTH },
	{ "CID length 4", test_cid_len_4, 0 },
	{ "CID length 20", test_cid_len_20, FAM_BOTH },
	{ "CID length 0 port cannot listen: EINVAL", test_cid_len_0_listen, 0 },
	{ "supplied CIDs used by the peer; stateless reset sent and detected",
	  test_supplied_and_reset, FAM_BOTH },
	{ "same supplied CID in two network namespaces", test_two_netns, 0 },
	{ "server connection gone without a word: client ECONNRESET by stateless reset",
	  test_reset_after_close, FAM_BOTH },
	{ "more CIDs than active_connection_id_limit: CONNECTION_ID_LIMIT_ERROR",
	  test_limit_error, 0 },
	{ "limit reached with retire_prior_to: accepted", test_limit_ok_with_retire, 0 },
	{ "a client drops long-header packets of a second server CID (RFC 9000 7.2)",
	  test_other_server_scid, FAM_BOTH },
};

int main(void)
{
	return sysctl_guarded_main(CID_LEN_SYSCTL, tests,
				   sizeof(tests) / sizeof(tests[0]));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Paths (net/quic/path.c): client migration with
 * QUIC_SOCKOPT_CONNECTION_MIGRATION during a transfer, a NAT rebinding the
 * server follows during a transfer, and the errno of each refusal.  Each
 * test runs in a private network namespace (gone with its process), with
 * a netem delay on loopback so that the path has a round-trip time.
 * Transfer times with and without the path change are printed as TAP
 * diagnostics ("# time: ...").
 */

#define _GNU_SOURCE
#include <sched.h>

#include "quic_conn.h"

#define XFER		(2 << 20)	/* bytes of the transfers */
#define DELAY_MS	5		/* one-way netem delay on loopback */
#define WINDOW		(256 << 10)	/* the client's flow-control windows */
#define CHUNK		(64 << 10)	/* read at a time */

/* A private network namespace: loopback up, ::2 on it, @delay_ms each way. */
static int private_netns(int delay_ms)
{
	char cmd[160];

	if (unshare(CLONE_NEWNET))
		return -1;
	if (system("ip link set lo up && ip -6 addr add ::2/128 dev lo nodad"))
		return -1;
	if (!delay_ms)
		return 0;
	snprintf(cmd, sizeof(cmd),
		 "tc qdisc add dev lo root netem delay %dms limit 10000",
		 delay_ms);
	return system(cmd);
}

/* The second local address of @family (the first is the loopback one). */
static socklen_t second_addr(int family, struct sockaddr_storage *ss)
{
	return make_addr(family, family == AF_INET ? "127.0.0.2" : "::2", 0,
			 ss);
}

static int migrate(int fd, int family)
{
	struct sockaddr_storage ss;
	socklen_t len = second_addr(family, &ss);

	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_MIGRATION, &ss,
			  len);
}

/* The IP (no port) of @ss as text. */
static const char *ip_str(const struct sockaddr_storage *ss, char *buf)
{
	const void *a = ss->ss_family == AF_INET ?
		(const void *)&((const struct sockaddr_in *)ss)->sin_addr :
		(const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;

	return inet_ntop(ss->ss_family, a, buf, INET6_ADDRSTRLEN);
}

static unsigned short port_of(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET ?
		     ((const struct sockaddr_in *)ss)->sin_port :
		     ((const struct sockaddr_in6 *)ss)->sin6_port);
}

struct sender {
	int fd;
	ssize_t ret;
};

/* The server sends XFER bytes of the pattern on its first stream, FIN. */
static void *send_main(void *p)
{
	struct sender *s = p;
	uint8_t *buf = malloc(XFER);

	pattern_fill(buf, S_BIDI(0), 0, XFER);
	s->ret = qsend(s->fd, buf, XFER, S_BIDI(0),
		       MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN, 0);
	free(buf);
	return NULL;
}

/*
 * Receive the transfer on the client; when @at bytes are in, call @change
 * (the path change) once.  Events are counted in *@events.  Returns the
 * milliseconds it took, or -1 after a failed CHECK.
 */
static long long receive(struct conn *c, size_t at, int (*change)(struct conn *),
			 int *events)
{
	uint8_t *buf = malloc(XFER);
	long long t0 = now_ms(), bad;
	struct sender s = { .fd = c->sfd };
	size_t got = 0;
	struct rinfo ri;
	pthread_t th;
	int fin = 0;
	ssize_t n;

	pthread_create(&th, NULL, send_main, &s);
	while (!fin) {
		if (change && got >= at) {
			CHECK_OK(change(c));
			change = NULL;
		}
		n = qrecv(c->cfd, buf + got,
			  XFER - got < CHUNK ? XFER - got : CHUNK, 0, &ri);
		if (n < 0) {
			CHECK(n >= 0);
			break;
		}
		if (ri.msg_flags & MSG_QUIC_NOTIFICATION) {
			if (buf[got] == QUIC_EVENT_CONNECTION_MIGRATION)
				(*events)++;
			continue;
		}
		CHECK(ri.sid == S_BIDI(0));
		got += n;
		fin = !!(ri.msg_flags & MSG_QUIC_STREAM_FIN);
		if (!n && !fin)
			break;
	}
	pthread_join(th, NULL);
	if (change)
		printf("# the transfer ended before the path change\n");
	CHECK(!change);
	CHECK(s.ret == XFER);
	CHECK(got == XFER);
	bad = pattern_check(buf, S_BIDI(0), 0, got);
	if (bad >= 0)
		printf("# first wrong byte at %lld\n", bad);
	CHECK(bad < 0);
	free(buf);
	return tap_failed_checks ? -1 : now_ms() - t0;
}

/* The next event on @fd is a migration one: its local_migration, or -1. */
static int migration_event(int fd)
{
	union quic_event ev;

	if (recv_event(fd, QUIC_EVENT_CONNECTION_MIGRATION, &ev))
		return -1;
	return ev.local_migration;
}

/*
 * The local (@peer 0) or peer address of @fd is on the second address,
 * the one of the path change.
 */
static void check_second(int fd, int peer, const char *what)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	struct sockaddr_storage ss, want;
	socklen_t len = sizeof(ss);

	if (peer)
		CHECK_OK(getpeername(fd, (struct sockaddr *)&ss, &len));
	else
		CHECK_OK(getsockname(fd, (struct sockaddr *)&ss, &len));
	second_addr(ss.ss_family, &want);
	printf("# %s %s port %u\n", what, ip_str(&ss, a), port_of(&ss));
	CHECK(!strcmp(ip_str(&ss, a), ip_str(&want, b)));
}

/*
 * One migration event on each end: local_migration 1 on the client (seen
 * with the data, @events, or still to come), 0 on the server.
 */
static void check_events(struct conn *c, int events)
{
	if (!events)
		CHECK(migration_event(c->cfd) == 1);
	else
		CHECK(events == 1);
	CHECK(migration_event(c->sfd) == 0);
}

/*
 * Small windows of the client: the server cannot send the whole transfer
 * before the client has read half of it, so the path changes halfway.
 */
static void small_windows(struct quic_transport_param *p)
{
	p->max_data = WINDOW;
	p->max_stream_data_bidi_local = WINDOW;
	p->max_stream_data_bidi_remote = WINDOW;
}

static const struct conn_cfg events_cfg = {
	.server_events = { QUIC_EVENT_CONNECTION_MIGRATION },
	.client_events = { QUIC_EVENT_CONNECTION_MIGRATION },
	.client_tp = small_windows,
};

/* The client has a spare connection ID once the server's arrived. */
static int migrate_when_ready(struct conn *c)
{
	long long t0 = now_ms();
	int ret;

	while ((ret = migrate(c->cfd, c->family)) && errno == EAGAIN &&
	       now_ms() - t0 < 5000)
		sleep_ms(10);
	return ret;
}

/*
 * A connection with migration events on, in a private namespace with a
 * delay of @delay_ms: 0, or -1 (skipped, or a failed CHECK).
 */
static int netns_conn(struct conn *c, int family, int delay_ms)
{
	if (private_netns(delay_ms)) {
		snprintf(tap_skip_why, sizeof(tap_skip_buf),
			 "no private netns with netem (tc, sch_netem)");
		return -1;
	}
	return conn_open_cfg(c, family, &events_cfg);
}

static void test_baseline(int family)
{
	struct conn c;
	long long ms;
	int events = 0;

	if (netns_conn(&c, family, DELAY_MS))
		return;
	ms = receive(&c, 0, NULL, &events);
	printf("# time: %d MB, no path change: %lld ms\n", XFER >> 20, ms);
	CHECK(events == 0);
	conn_close(&c);
}

/*
 * The client moves to its second address halfway: the data arrives
 * intact, both ends see the event (local_migration 1 on the client, 0 on
 * the server), and each end's addresses are the new ones.
 */
static void test_client_migration(int family)
{
	struct conn c;
	long long ms;
	int events = 0;

	if (netns_conn(&c, family, DELAY_MS))
		return;
	ms = receive(&c, XFER / 2, migrate_when_ready, &events);
	printf("# time: %d MB, client migration halfway: %lld ms\n",
	       XFER >> 20, ms);
	check_second(c.cfd, 0, "client local");
	check_second(c.sfd, 1, "server peer");
	check_events(&c, events);
	/* The connection works on: a reply on the new path. */
	CHECK(qsend(c.cfd, "ok", 2, C_BIDI(0),
		    MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN, 0) == 2);
	{
		char r[8];

		CHECK(recv_stream_fin(c.sfd, C_BIDI(0), r, sizeof(r)) == 2);
	}
	conn_close(&c);
}

static int nat_port;	/* the port the NAT gives the client from now */

/*
 * A NAT rebinding: from now, the client's datagrams leave with source port
 * nat_port, and the server's to nat_port come back to the client's port.
 */
static int rebind(struct conn *c)
{
	struct sockaddr_storage cl, sv;
	socklen_t len = sizeof(cl);
	char cmd[512];

	if (getsockname(c->cfd, (struct sockaddr *)&cl, &len))
		return -1;
	len = sizeof(sv);
	if (getpeername(c->cfd, (struct sockaddr *)&sv, &len))
		return -1;
	nat_port = port_of(&cl) + 1;
	if (nat_port > 65000)
		nat_port = port_of(&cl) - 1;
	snprintf(cmd, sizeof(cmd),
		 "nft -f - <<'EOF'\n"
		 "table inet rebind {\n"
		 "	chain out {\n"
		 "		type filter hook output priority -300;\n"
		 "		udp sport %u udp dport %u udp sport set %u\n"
		 "	}\n"
		 "	chain in {\n"
		 "		type filter hook prerouting priority -300;\n"
		 "		udp sport %u udp dport %u udp dport set %u\n"
		 "	}\n"
		 "}\n"
		 "EOF\n",
		 port_of(&cl), port_of(&sv), nat_port,
		 port_of(&sv), nat_port, port_of(&cl));
	return system(cmd);
}

/*
 * A NAT gives the client a new port halfway through a transfer to it: the
 * server validates the new address, follows it (the event, local 0;
 * getpeername), and the data arrives intact.
 */
static void test_nat_rebinding(int family)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct conn c;
	long long ms;
	int events = 0;

	if (system("command -v nft > /dev/null"))
		SKIP_TEST("no nft (apt install nftables)");
	if (netns_conn(&c, family, DELAY_MS))
		return;
	ms = receive(&c, XFER / 2, rebind, &events);
	printf("# time: %d MB, NAT rebinding halfway: %lld ms\n",
	       XFER >> 20, ms);
	CHECK(events == 0);	/* the client did not move */
	CHECK_OK(getpeername(c.sfd, (struct sockaddr *)&ss, &len));
	printf("# server peer port %u, NAT port %d\n", port_of(&ss), nat_port);
	CHECK(port_of(&ss) == nat_port);
	CHECK(migration_event(c.sfd) == 0);
	conn_close(&c);
}

static void no_migration_tp(struct quic_transport_param *p)
{
	p->disable_active_migration = 1;
}

/*
 * The errno of each refusal: not connected ENOTCONN, a server's
 * connection EISCONN (its listener has the preferred address), a
 * malformed address or one of another family EINVAL (on a listener too),
 * disable_active_migration from the peer EPERM.
 */
static void test_refusals(int family)
{
	struct conn_cfg cfg = { .server_tp = no_migration_tp };
	struct sockaddr_storage ss;
	socklen_t len = second_addr(family, &ss);
	struct conn c;
	int fd;

	if (private_netns(0))
		SKIP_TEST("no private network namespace");
	fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(fd >= 0);
	CHECK_ERR(migrate(fd, family), ENOTCONN);
	CHECK_OK(bind(fd, (struct sockaddr *)&ss, len));
	CHECK_OK(listen(fd, 1));
	CHECK_ERR(migrate(fd, family == AF_INET ? AF_INET6 : AF_INET), EINVAL);
	close(fd);

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK_ERR(migrate(c.sfd, family), EISCONN);
	CHECK_ERR(setsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_MIGRATION,
			     &ss, 4), EINVAL);
	second_addr(family == AF_INET ? AF_INET6 : AF_INET, &ss);
	CHECK_ERR(setsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_MIGRATION,
			     &ss, sizeof(struct sockaddr_in6)), EINVAL);
	CHECK_ERR(migrate(c.cfd, family), EPERM);
	conn_close(&c);
}

/*
 * A second migration while the first is being validated is EBUSY (the
 * netem delay keeps the PATH_RESPONSE 400 ms away); once it is done, a
 * second one goes, on another of the server's spare connection IDs.
 */
static void test_busy_then_again(int family)
{
	struct conn c;
	long long t0;
	int ret;

	if (netns_conn(&c, family, 200))
		return;
	CHECK_OK(migrate_when_ready(&c));
	CHECK_ERR(migrate(c.cfd, family), EBUSY);
	CHECK(migration_event(c.cfd) == 1);
	CHECK(migration_event(c.sfd) == 0);
	/* Validated within a few round trips: then a second move goes. */
	t0 = now_ms();
	while ((ret = migrate(c.cfd, family)) && errno == EBUSY &&
	       now_ms() - t0 < 20000)
		sleep_ms(50);
	CHECK_OK(ret);
	CHECK(migration_event(c.cfd) == 1);
	conn_close(&c);
}

/* The listener's preferred address: the second address, any port. */
static int set_pref(int lfd)
{
	struct sockaddr_storage ss;

	getsockname(lfd, (struct sockaddr *)&ss, &(socklen_t){ sizeof(ss) });
	return migrate(lfd, ss.ss_family);
}

static const struct conn_cfg pref_cfg = {
	.server_events = { QUIC_EVENT_CONNECTION_MIGRATION },
	.client_events = { QUIC_EVENT_CONNECTION_MIGRATION },
	.client_tp = small_windows,
	.server_after_listen = set_pref,
};

/*
 * The server's preferred address (RFC 9000 §9.6): the client moves there
 * once the handshake is confirmed (event local_migration 1; the server's
 * 0), the transfer runs intact, and the client's peer address and the
 * server's local address are the preferred one.
 */
static void test_preferred_address(int family)
{
	struct conn c;
	long long ms;
	int events = 0;

	if (private_netns(DELAY_MS)) {
		snprintf(tap_skip_why, sizeof(tap_skip_buf),
			 "no private netns with netem (tc, sch_netem)");
		return;
	}
	if (conn_open_cfg(&c, family, &pref_cfg))
		return;
	ms = receive(&c, 0, NULL, &events);
	printf("# time: %d MB, to the preferred address: %lld ms\n",
	       XFER >> 20, ms);
	check_second(c.cfd, 1, "client peer");
	check_second(c.sfd, 0, "server local");
	check_events(&c, events);
	conn_close(&c);
}

static const struct conn_test tests[] = {
	{ "transfer without a path change", test_baseline, FAM_BOTH },
	{ "client migration during a transfer", test_client_migration,
	  FAM_BOTH },
	{ "NAT rebinding during a transfer", test_nat_rebinding, FAM_BOTH },
	{ "migration refusals", test_refusals, FAM_BOTH },
	{ "EBUSY while validating, then a second migration goes", test_busy_then_again, 0 },
	{ "preferred address", test_preferred_address, FAM_BOTH },
};

int main(void)
{
	return conn_tests_main(tests, sizeof(tests) / sizeof(tests[0]));
}

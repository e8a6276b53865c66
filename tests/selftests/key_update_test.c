// SPDX-License-Identifier: GPL-2.0
/*
 * 1-RTT key updates (RFC 9001 §6) between two kernel sockets, as the
 * socket API shows them:
 *
 * - QUIC_SOCKOPT_KEY_UPDATE initiates an update; the initiator may be
 *   the client, the server, or each in turn, many times in one
 *   connection, with stream data moving both ways in between and arriving
 *   intact;
 * - every update gives both ends exactly one QUIC_EVENT_KEY_UPDATE, whose
 *   phase goes 1, 0, 1, ... and /proc/net/quic counts the same;
 * - the option fails with EAGAIN until the previous update is
 *   acknowledged, and with ENOTCONN without a connection;
 * - with the sysctl net.quic.key_update_packets set low, both ends update
 *   on their own during a large transfer, which stays intact.
 * - once the handshake is confirmed, both ends free their Initial and
 *   Handshake keys: /proc/net/quic's key_levels shows 1-RTT keys only,
 *   and the connection still moves data and updates its keys.
 *
 * The packet-level behaviour (what the kernel acknowledges in which phase,
 * KEY_UPDATE_ERROR, the AEAD integrity limit) is in key_update_craft_test,
 * which plays the peer with crafted packets.
 */

#include "quic_conn.h"
#include "sysctl_guard.h"

#define ROUND_BYTES	20000		/* each way between two updates */
#define UPDATES		5
#define AUTO_BYTES	(4 << 20)	/* each way in the automatic test */
#define AUTO_PACKETS	"50"
#define SYSCTL_KU	"/proc/sys/net/quic/key_update_packets"

/* ---- key updates and their events ---- */

static int key_update(int fd)
{
	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_KEY_UPDATE, NULL, 0);
}

/* The QUIC_EVENT_KEY_UPDATE events read from one socket. */
struct ku_log {
	const char *who;
	int n;
	int bad_phase;		/* events whose phase was not (n + 1) % 2 */
	int other;		/* other events, which no test enables */
};

/* A notification that recvmsg() returned in @buf (@n bytes). */
static void ku_log_event(struct ku_log *log, const uint8_t *buf, ssize_t n)
{
	if (n < 2 || buf[0] != QUIC_EVENT_KEY_UPDATE) {
		printf("# %s: event %d (%zd bytes), not KEY_UPDATE\n", log->who,
		       n > 0 ? buf[0] : -1, n);
		log->other++;
		return;
	}
	log->n++;
	if (buf[1] != log->n % 2) {
		printf("# %s: key update %d has phase %d\n", log->who, log->n,
		       buf[1]);
		log->bad_phase++;
	}
}

/*
 * Read stream @sid up to its FIN, checking every byte against the pattern
 * of @key: @len bytes must come.  Events met on the way are logged.  0, or
 * -1 with the reason printed (no CHECK: readers also run in threads).
 */
static int read_pattern(int fd, int64_t sid, int64_t key, size_t len,
			struct ku_log *log)
{
	uint8_t *buf = malloc(65536);
	size_t got = 0;
	struct rinfo ri;
	long long bad;
	ssize_t n;
	int ret = -1;

	if (!buf)
		return -1;
	for (;;) {
		n = qrecv(fd, buf, 65536, 0, &ri);
		if (n < 0) {
			printf("# %s: recv on stream %lld after %zu bytes: %s\n",
			       log->who, (long long)sid, got, strerror(errno));
			break;
		}
		if (ri.msg_flags & MSG_QUIC_NOTIFICATION) {
			ku_log_event(log, buf, n);
			continue;
		}
		if (ri.sid != sid) {
			printf("# %s: data of stream %lld, want %lld\n",
			       log->who, (long long)ri.sid, (long long)sid);
			break;
		}
		bad = pattern_check(buf, key, got, n);
		if (bad >= 0) {
			printf("# %s: stream %lld: wrong byte at offset %lld\n",
			       log->who, (long long)sid, bad);
			break;
		}
		got += n;
		if (ri.msg_flags & MSG_QUIC_STREAM_FIN) {
			ret = got == len ? 0 : -1;
			if (ret)
				printf("# %s: stream %lld: %zu bytes, want %zu\n",
				       log->who, (long long)sid, got, len);
			break;
		}
		if (!n) {
			printf("# %s: end of file after %zu bytes\n", log->who,
			       got);
			break;
		}
	}
	free(buf);
	return ret;
}

/* Write @len bytes of the pattern of @key on stream @sid, then FIN. */
static int write_pattern(int fd, int64_t sid, int64_t key, size_t len,
			 int new_stream)
{
	uint8_t *buf = malloc(65536);
	uint32_t fl = new_stream ? MSG_QUIC_STREAM_NEW : 0;
	size_t off = 0, n;
	ssize_t r;

	if (!buf)
		return -1;
	while (off < len) {
		n = len - off < 65536 ? len - off : 65536;
		pattern_fill(buf, key, off, n);
		if (off + n == len)
			fl |= MSG_QUIC_STREAM_FIN;
		r = qsend(fd, buf, n, sid, fl, 0);
		if (r <= 0) {
			printf("# send on stream %lld at %zu: %s\n",
			       (long long)sid, off, strerror(errno));
			free(buf);
			return -1;
		}
		fl &= ~MSG_QUIC_STREAM_NEW;
		off += r;
	}
	free(buf);
	return 0;
}

/* The pattern key of the answer on a bidirectional stream. */
#define ANSWER(sid)	((sid) | (1LL << 40))

/*
 * @a writes ROUND_BYTES on its new stream @sid, @b reads them and answers
 * as many on the same stream, @a reads the answer.  Afterwards each end has
 * read what the other sent before, and @a's packets so far have been
 * acknowledged (the answer carries the ACK).
 */
static int round_trip(int a, struct ku_log *la, int b, struct ku_log *lb,
		      int64_t sid)
{
	if (write_pattern(a, sid, sid, ROUND_BYTES, 1) ||
	    read_pattern(b, sid, sid, ROUND_BYTES, lb) ||
	    write_pattern(b, sid, ANSWER(sid), ROUND_BYTES, 0) ||
	    read_pattern(a, sid, ANSWER(sid), ROUND_BYTES, la))
		return -1;
	return 0;
}

/*
 * Read notifications until @log has @n key updates; data or a timeout
 * fails.  Then nothing else may wait.
 */
static void wait_updates(int fd, struct ku_log *log, int n)
{
	uint8_t buf[256];
	struct rinfo ri;
	ssize_t r;

	while (log->n < n) {
		r = qrecv(fd, buf, sizeof(buf), 0, &ri);
		if (r < 0 || !(ri.msg_flags & MSG_QUIC_NOTIFICATION)) {
			printf("# %s: %d key updates, want %d; then %zd (%s)\n",
			       log->who, log->n, n, r,
			       r < 0 ? strerror(errno) : "data");
			CHECK(0);
			return;
		}
		ku_log_event(log, buf, r);
	}
	CHECK_ERR(qrecv(fd, buf, sizeof(buf), MSG_DONTWAIT, &ri), EAGAIN);
}

/* ---- /proc/net/quic ---- */

static int port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

static int ends_with_port(const char *s, int port)
{
	const char *colon = strrchr(s, ':');

	return colon && atoi(colon + 1) == port;
}

/*
 * The column @name of the connection of @fd in /proc/net/quic, into @v.
 * 0, or -1 if there is no such column or connection.
 */
static int proc_column(int fd, const char *name, long *v)
{
	struct sockaddr_storage l, r;
	socklen_t ll = sizeof(l), rl = sizeof(r);
	int col = -1, i, found = -1;
	char line[1024], *tok, *save;
	FILE *f;

	if (getsockname(fd, (struct sockaddr *)&l, &ll) ||
	    getpeername(fd, (struct sockaddr *)&r, &rl))
		return -1;
	f = fopen("/proc/net/quic", "r");
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		for (i = 0, tok = strtok_r(line, " \n", &save); tok;
		     i++, tok = strtok_r(NULL, " \n", &save))
			if (!strcmp(tok, name))
				col = i;
	while (found && col >= 0 && fgets(line, sizeof(line), f)) {
		int match = 0;

		for (i = 0, tok = strtok_r(line, " \n", &save); tok;
		     i++, tok = strtok_r(NULL, " \n", &save)) {
			if (i == 0 && ends_with_port(tok, port_of(&l)))
				match++;
			if (i == 1 && ends_with_port(tok, port_of(&r)))
				match++;
			if (match == 2 && i == col) {
				*v = atol(tok);
				found = 0;
			}
		}
	}
	fclose(f);
	if (col < 0)
		printf("# /proc/net/quic has no %s column\n", name);
	return found;
}

/* key_phase and key_updates of the connection of @fd in /proc/net/quic. */
static int proc_key_state(int fd, int *phase, long *updates)
{
	long p;

	if (proc_column(fd, "key_phase", &p) ||
	    proc_column(fd, "key_updates", updates))
		return -1;
	*phase = (int)p;
	return 0;
}

/* /proc/net/quic agrees with the @n updates the events told of. */
static void check_proc(int fd, const char *who, int n)
{
	long updates = -1;
	int phase = -1;

	if (proc_key_state(fd, &phase, &updates)) {
		printf("# %s: not found in /proc/net/quic\n", who);
		CHECK(0);
		return;
	}
	if (updates != n || phase != n % 2) {
		printf("# %s: /proc/net/quic key_phase %d key_updates %ld, want %d %d\n",
		       who, phase, updates, n % 2, n);
		CHECK(0);
	}
}

/* ---- tests ---- */

static const struct conn_cfg ku_cfg = {
	.server_events = { QUIC_EVENT_KEY_UPDATE },
};

/* A connection whose both ends report key updates. */
static int ku_open(struct conn *c, int family, struct ku_log *lc,
		   struct ku_log *ls)
{
	memset(lc, 0, sizeof(*lc));
	memset(ls, 0, sizeof(*ls));
	lc->who = "client";
	ls->who = "server";
	if (conn_open_cfg(c, family, &ku_cfg))
		return -1;
	CHECK_OK(enable_event(c->cfd, QUIC_EVENT_KEY_UPDATE));
	return tap_failed_checks ? -1 : 0;
}

#define BY_CLIENT	0
#define BY_SERVER	1
#define BY_TURNS	2

/*
 * UPDATES key updates through the option, by @who, each after a round
 * trip of data that the initiator starts; both ends must have seen one
 * event per update after each round trip.
 */
static void updates_by(int family, int who)
{
	struct ku_log lc, ls;
	int i, nc = 0, ns = 0, srv;
	struct conn c;
	int64_t sid;

	if (ku_open(&c, family, &lc, &ls))
		return;
	for (i = 0; i <= UPDATES && !tap_failed_checks; i++) {
		srv = who == BY_SERVER || (who == BY_TURNS && i % 2);
		sid = srv ? S_BIDI(ns++) : C_BIDI(nc++);
		if (srv)
			CHECK(!round_trip(c.sfd, &ls, c.cfd, &lc, sid));
		else
			CHECK(!round_trip(c.cfd, &lc, c.sfd, &ls, sid));
		/* The previous update reached both ends, once. */
		if (lc.n != i || ls.n != i) {
			printf("# after round trip %d: %d and %d key updates, want %d\n",
			       i, lc.n, ls.n, i);
			CHECK(0);
		}
		if (i == UPDATES)
			break;
		if (key_update(srv ? c.sfd : c.cfd)) {
			printf("# update %d by the %s: %s\n", i + 1,
			       srv ? "server" : "client", strerror(errno));
			CHECK(0);
		}
	}
	CHECK(!lc.bad_phase && !ls.bad_phase && !lc.other && !ls.other);
	wait_updates(c.cfd, &lc, UPDATES);
	wait_updates(c.sfd, &ls, UPDATES);
	check_proc(c.cfd, "client", UPDATES);
	check_proc(c.sfd, "server", UPDATES);
	conn_close(&c);
}

static void test_client_updates(int family)
{
	updates_by(family, BY_CLIENT);
}

static void test_server_updates(int family)
{
	updates_by(family, BY_SERVER);
}

static void test_alternating_updates(int family)
{
	updates_by(family, BY_TURNS);
}

/*
 * A second update right after the first is refused with EAGAIN, as its
 * PING in the new phase cannot have been acknowledged yet; after a round
 * trip of data it works again.
 */
static void test_eagain_until_acked(int family)
{
	struct ku_log lc, ls;
	struct conn c;

	if (ku_open(&c, family, &lc, &ls))
		return;
	CHECK(!round_trip(c.cfd, &lc, c.sfd, &ls, C_BIDI(0)));
	CHECK_OK(key_update(c.cfd));
	CHECK_ERR(key_update(c.cfd), EAGAIN);
	CHECK(!round_trip(c.cfd, &lc, c.sfd, &ls, C_BIDI(1)));
	CHECK_OK(key_update(c.cfd));
	/* The server too must wait for the acknowledgment of its new phase. */
	CHECK(!round_trip(c.sfd, &ls, c.cfd, &lc, S_BIDI(0)));
	CHECK_OK(key_update(c.sfd));
	CHECK_ERR(key_update(c.sfd), EAGAIN);
	CHECK(!round_trip(c.cfd, &lc, c.sfd, &ls, C_BIDI(2)));
	CHECK(!lc.bad_phase && !ls.bad_phase && !lc.other && !ls.other);
	wait_updates(c.cfd, &lc, 3);
	wait_updates(c.sfd, &ls, 3);
	check_proc(c.cfd, "client", 3);
	check_proc(c.sfd, "server", 3);
	conn_close(&c);
}

/* No connection, a listener, a client whose handshake has not run. */
static void test_enotconn(int family)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, 0, &ss);
	int fd, lfd;

	fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(fd >= 0);
	CHECK_ERR(key_update(fd), ENOTCONN);

	lfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(lfd >= 0);
	CHECK_OK(bind(lfd, (struct sockaddr *)&ss, len));
	CHECK_OK(listen(lfd, 8));
	CHECK_ERR(key_update(lfd), ENOTCONN);

	CHECK_OK(getsockname(lfd, (struct sockaddr *)&ss, &len));
	CHECK_OK(connect(fd, (struct sockaddr *)&ss, len));
	CHECK_ERR(key_update(fd), ENOTCONN);
	close(fd);
	close(lfd);
}

struct xfer {
	int fd;
	int64_t sid;
	struct ku_log *log;	/* readers */
	int ret;
};

static void *writer_main(void *p)
{
	struct xfer *x = p;

	x->ret = write_pattern(x->fd, x->sid, x->sid, AUTO_BYTES, 1);
	return NULL;
}

static void *reader_main(void *p)
{
	struct xfer *x = p;

	x->ret = read_pattern(x->fd, x->sid, x->sid, AUTO_BYTES, x->log);
	return NULL;
}

/*
 * Read the events of both ends until they have seen as many updates as
 * each other and as /proc/net/quic counts: the last update may still be
 * on its way when the transfer ends.
 */
static void settle_updates(struct conn *c, struct ku_log *lc,
			   struct ku_log *ls)
{
	long long deadline = now_ms() + 10000;
	long pc = -1, ps = -1;
	int phase, i;

	for (;;) {
		struct pollfd pfd[2] = { { c->cfd, POLLIN, 0 },
					 { c->sfd, POLLIN, 0 } };
		struct ku_log *logs[2] = { lc, ls };
		uint8_t buf[256];
		struct rinfo ri;
		ssize_t n;

		for (i = 0; i < 2; i++) {
			while ((n = qrecv(pfd[i].fd, buf, sizeof(buf),
					  MSG_DONTWAIT, &ri)) >= 0) {
				if (!(ri.msg_flags & MSG_QUIC_NOTIFICATION)) {
					printf("# %s: %zd bytes of data after the transfer\n",
					       logs[i]->who, n);
					CHECK(0);
					return;
				}
				ku_log_event(logs[i], buf, n);
			}
		}
		if (!proc_key_state(c->cfd, &phase, &pc) &&
		    !proc_key_state(c->sfd, &phase, &ps) &&
		    lc->n == ls->n && pc == lc->n && ps == ls->n)
			return;
		if (now_ms() > deadline) {
			printf("# events: client %d server %d; /proc/net/quic: client %ld server %ld\n",
			       lc->n, ls->n, pc, ps);
			CHECK(0);
			return;
		}
		poll(pfd, 2, 200);
	}
}

/*
 * net.quic.key_update_packets: both ends update on their own every few
 * packets during a transfer of AUTO_BYTES each way; the data is intact and
 * both ends count the same updates, more than one.
 */
static void test_automatic_updates(int family)
{
	struct xfer x[4];
	struct ku_log lc, ls;
	pthread_t th[4];
	long long t0;
	struct conn c;
	int i;

	if (sysctl_set(SYSCTL_KU, AUTO_PACKETS)) {
		printf("# cannot set %s\n", SYSCTL_KU);
		CHECK(0);
		return;
	}
	if (ku_open(&c, family, &lc, &ls)) {
		sysctl_restore();
		return;
	}
	t0 = now_ms();
	x[0] = (struct xfer){ .fd = c.cfd, .sid = C_BIDI(0) };
	x[1] = (struct xfer){ .fd = c.sfd, .sid = S_BIDI(0) };
	x[2] = (struct xfer){ .fd = c.sfd, .sid = C_BIDI(0), .log = &ls };
	x[3] = (struct xfer){ .fd = c.cfd, .sid = S_BIDI(0), .log = &lc };
	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, i < 2 ? writer_main : reader_main,
			       &x[i]);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < 4; i++)
		CHECK(!x[i].ret);
	settle_updates(&c, &lc, &ls);
	printf("# %d MB each way in %.2f s: %d key updates seen by the client, %d by the server\n",
	       AUTO_BYTES >> 20, (now_ms() - t0) / 1000.0, lc.n, ls.n);
	CHECK(lc.n > 1 && lc.n == ls.n);
	CHECK(!lc.bad_phase && !ls.bad_phase && !lc.other && !ls.other);
	check_proc(c.cfd, "client", lc.n);
	check_proc(c.sfd, "server", ls.n);
	conn_close(&c);
	sysctl_restore();
}

/*
 * After the handshake (confirmed at both ends: the round trip carried
 * HANDSHAKE_DONE), the Initial and Handshake keys are freed (RFC 9001
 * §4.9): key_levels (a bit per enum quic_crypto_level) is APP alone, at
 * both ends, within a second (a work item frees them).  The connection
 * keeps working, key updates included.
 */
static void test_handshake_keys_freed(int family)
{
	const long want = 1L << QUIC_CRYPTO_APP;
	long kc = -1, ks = -1;
	struct ku_log lc, ls;
	struct conn c;
	int i;

	if (ku_open(&c, family, &lc, &ls))
		return;
	CHECK(!round_trip(c.cfd, &lc, c.sfd, &ls, C_BIDI(0)));
	for (i = 0; i < 100; i++) {
		if (proc_column(c.cfd, "key_levels", &kc) ||
		    proc_column(c.sfd, "key_levels", &ks))
			break;
		if (kc == want && ks == want)
			break;
		sleep_ms(10 * test_slow());
	}
	if (kc != want || ks != want) {
		printf("# key_levels: client %ld, server %ld, want %ld (APP only)\n",
		       kc, ks, want);
		CHECK(0);
	}
	/* Late use of the connection: data and a key update still work. */
	CHECK_OK(key_update(c.cfd));
	CHECK(!round_trip(c.cfd, &lc, c.sfd, &ls, C_BIDI(1)));
	CHECK(!round_trip(c.sfd, &ls, c.cfd, &lc, S_BIDI(0)));
	CHECK(lc.n == 1 && ls.n == 1);
	conn_close(&c);
}

static const struct conn_test tests[] = {
	{ "client initiates 5 updates, data both ways between them",
	  test_client_updates, FAM_BOTH },
	{ "server initiates 5 updates, data both ways between them",
	  test_server_updates, FAM_BOTH },
	{ "client and server initiate updates in turn",
	  test_alternating_updates, FAM_BOTH },
	{ "second update before the first is acknowledged: EAGAIN",
	  test_eagain_until_acked, FAM_BOTH },
	{ "no connection, listener, handshake not run: ENOTCONN",
	  test_enotconn, FAM_BOTH },
	{ "automatic updates (key_update_packets=" AUTO_PACKETS
	  "): transfer intact, same count on both ends",
	  test_automatic_updates, FAM_BOTH },
	{ "Initial and Handshake keys freed after the handshake",
	  test_handshake_keys_freed, FAM_BOTH },
};

int main(void)
{
	return sysctl_guarded_main(SYSCTL_KU, tests,
				   sizeof(tests) / sizeof(tests[0]));
}

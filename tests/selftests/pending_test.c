// SPDX-License-Identifier: GPL-2.0
/*
 * Pending connections of a listener: server connections whose handshake
 * has not completed, queued for accept() or accepted.  Their number is
 * capped by min(listen() backlog, net.quic.max_pending_connections) and
 * the queued Initials by the listener's receive buffer; what is beyond is
 * dropped (drop_pending_full, drop_receive_buffer_full in
 * /proc/net/quic_stats) and the slots come back when a connection is
 * established or its socket freed.  pending_connections in quic_stats is
 * the module-wide count: every test starts and ends with it at 0.
 *
 * Clients are played by a plain UDP socket sending client Initials built
 * with craft.h, each with a fresh Destination Connection ID, and a few
 * bytes posing as a ClientHello: the kernel decrypts them and queues the
 * bytes for the server application, which never answers.
 */

#include "quic_conn.h"
#include "craft.h"
#include "sysctl_guard.h"

#include <sys/random.h>

#define SYSCTL_PENDING	"/proc/sys/net/quic/max_pending_connections"
#define SYSCTL_RETRY	"/proc/sys/net/quic/retry_threshold"
#define DEFAULT_PENDING	256
/* Closed pending connections keep their slot for 3 PTOs (about 3 s). */
#define SETTLE_MS	20000
#define WAIT_MS		3000	/* for the receive path (TCG guest) */
#define MEM_N		200	/* connections of the memory measure */

/* ---- /proc/net/quic_stats ---- */

static long stat_read(const char *name)
{
	FILE *f = fopen("/proc/net/quic_stats", "r");
	char key[64];
	long v, ret = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", key, &v) == 2) {
		if (!strcmp(key, name)) {
			ret = v;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* Wait up to @ms for stat @name to read @want; returns its last value. */
static long stat_wait(const char *name, long want, int ms)
{
	long long end = now_ms() + ms;
	long v;

	for (;;) {
		v = stat_read(name);
		if (v == want || now_ms() >= end)
			return v;
		sleep_ms(20);
	}
}

#define PENDING		"pending_connections"
#define DROP_PENDING	"drop_pending_full"
#define DROP_RCVBUF	"drop_receive_buffer_full"

/* Every test starts with no pending connection left by earlier ones. */
static void settle(void)
{
	long v = stat_wait(PENDING, 0, SETTLE_MS);

	if (v)
		printf("# %s %ld before the test\n", PENDING, v);
	CHECK(v == 0);
}

/* ---- the listener and its clients ---- */

/*
 * A test's listener, the UDP socket playing its clients, the connections
 * accepted, and drop_pending_full when it started.
 */
struct bench {
	int lfd;
	int cfd;
	int fds[MEM_N];
	int n;
	long drops;
};

/*
 * After settle(): a nonblocking listener on loopback with @backlog (and
 * SO_RCVBUF @rcvbuf, if not 0), and a UDP socket connected to it.
 */
static void bench_open(struct bench *b, int family, int backlog, int rcvbuf)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, 0, &ss);

	settle();
	b->n = 0;
	b->drops = stat_read(DROP_PENDING);
	b->lfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	b->cfd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	CHECK(b->lfd >= 0 && b->cfd >= 0);
	if (rcvbuf)
		CHECK_OK(setsockopt(b->lfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				    sizeof(rcvbuf)));
	CHECK_OK(bind(b->lfd, (struct sockaddr *)&ss, len));
	CHECK_OK(listen(b->lfd, backlog));
	CHECK_OK(fcntl(b->lfd, F_SETFL, O_NONBLOCK));
	CHECK_OK(getsockname(b->lfd, (struct sockaddr *)&ss, &len));
	CHECK_OK(connect(b->cfd, (struct sockaddr *)&ss, len));
}

/* Close everything; every slot must come back. */
static void bench_close(struct bench *b)
{
	while (b->n--)
		if (b->fds[b->n] >= 0)
			close(b->fds[b->n]);
	if (b->lfd >= 0)
		close(b->lfd);
	close(b->cfd);
	CHECK(stat_wait(PENDING, 0, SETTLE_MS) == 0);
}

/* accept() up to @max more connections; how many it gave. */
static int bench_accept(struct bench *b, int max)
{
	int i;

	for (i = 0; i < max && b->n < MEM_N; i++) {
		b->fds[b->n] = accept(b->lfd, NULL, NULL);
		if (b->fds[b->n] < 0)
			break;
		b->n++;
	}
	return i;
}

/* Stat @name reaches @want soon (the receive path is asynchronous). */
#define EXPECT_STAT(name, want) do {					\
	long _w = (want), _v = stat_wait((name), _w, WAIT_MS);		\
	if (_v != _w)							\
		printf("# %s is %ld, want %ld\n", (name), _v, _w);	\
	CHECK(_v == _w);						\
} while (0)

/*
 * A client Initial from @fd: packet number @pn, Destination Connection
 * ID @dcid (8 bytes), or a fresh one if @dcid is NULL; CRYPTO data posing
 * as a ClientHello, then @extra (@extra_len bytes of frames), the datagram
 * padded to 1200 bytes; with @forge, its AEAD tag is broken.  0, or -1.
 */
static int send_initial_with(int fd, const uint8_t *dcid, uint32_t pn,
			     const uint8_t *extra, size_t extra_len, int forge)
{
	uint8_t id[8], scid[8], hello[300], frame[400], pkt[1500];
	size_t n;
	int len;

	if (!dcid) {
		if (getrandom(id, sizeof(id), 0) != sizeof(id))
			return -1;
		dcid = id;
	}
	if (getrandom(scid, sizeof(scid), 0) != sizeof(scid))
		return -1;
	memset(hello, 0x5a, sizeof(hello));
	hello[0] = 1;			/* TLS ClientHello, length 296 */
	hello[1] = 0;
	hello[2] = (sizeof(hello) - 4) >> 8;
	hello[3] = (sizeof(hello) - 4) & 0xff;
	n = cr_put_crypto(frame, 0, hello, sizeof(hello));
	if (extra_len > sizeof(frame) - n)
		return -1;
	memcpy(frame + n, extra, extra_len);
	n += extra_len;
	len = cr_initial_make(dcid, 8, scid, sizeof(scid), NULL, 0, pn, frame,
			      n, pkt, sizeof(pkt));
	if (len < 0)
		return -1;
	if (forge)
		pkt[len - 1] ^= 0x80;
	if (send(fd, pkt, len, 0) != len)
		return -1;
	return 0;
}

static int send_initial(int fd, const uint8_t *dcid, uint32_t pn)
{
	return send_initial_with(fd, dcid, pn, NULL, 0, 0);
}

/* @n new connections' Initials; 0, or -1. */
static int send_initials(int fd, int n)
{
	while (n--)
		if (send_initial(fd, NULL, 0))
			return -1;
	return 0;
}

/* Throw away what the kernel sent the clients (its ACKs). */
static void drain(int fd)
{
	char buf[2048];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/* ---- tests ---- */

static void test_craft_vectors(int family)
{
	(void)family;
	CHECK(cr_initial_selftest() == 0);
}

/* Write @val to the sysctl: 0, or -1 with the errno of write(). */
static int sysctl_try(const char *val)
{
	int fd = open(SYSCTL_PENDING, O_WRONLY), n, e;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	e = errno;
	close(fd);
	errno = e;
	return n == (int)strlen(val) ? 0 : -1;
}

static void test_sysctl(int family)
{
	char buf[32];
	int n;

	(void)family;
	n = sysctl_read(SYSCTL_PENDING, buf, sizeof(buf));
	CHECK(n > 0);
	if (n <= 0)
		return;
	buf[n] = 0;
	CHECK(atoi(buf) == DEFAULT_PENDING);
	CHECK_OK(sysctl_set(SYSCTL_PENDING, "17"));
	CHECK_ERR(sysctl_try("0"), EINVAL);
	CHECK_ERR(sysctl_try("-1"), EINVAL);
	CHECK_ERR(sysctl_try("65537"), EINVAL);
	CHECK_ERR(sysctl_try("99999999999999999999"), EINVAL);
	CHECK_ERR(sysctl_try("many"), EINVAL);
	n = sysctl_read(SYSCTL_PENDING, buf, sizeof(buf));
	buf[n > 0 ? n : 0] = 0;
	CHECK(atoi(buf) == 17);		/* the bad writes changed nothing */
	CHECK_OK(sysctl_try("65536"));
	CHECK_OK(sysctl_try("1"));
	sysctl_restore();
	n = sysctl_read(SYSCTL_PENDING, buf, sizeof(buf));
	buf[n > 0 ? n : 0] = 0;
	CHECK(atoi(buf) == DEFAULT_PENDING);
}

/*
 * listen(fd, 4): four connections wait, eight more are dropped; accepted,
 * the four still count until their handshake ends, so more are dropped.
 */
static void test_backlog_caps(int family)
{
	struct bench b;

	bench_open(&b, family, 4, 0);
	CHECK_OK(send_initials(b.cfd, 12));
	EXPECT_STAT(PENDING, 4);
	EXPECT_STAT(DROP_PENDING, b.drops + 8);

	CHECK(bench_accept(&b, 8) == 4);
	CHECK(errno == EAGAIN);
	CHECK(stat_read(PENDING) == 4);
	CHECK_OK(send_initials(b.cfd, 3));
	EXPECT_STAT(DROP_PENDING, b.drops + 11);
	CHECK_ERR(accept(b.lfd, NULL, NULL), EAGAIN);
	CHECK(stat_read(PENDING) == 4);
	bench_close(&b);
}

/* The sysctl caps a listener whose backlog is larger, as soon as it changes. */
static void test_sysctl_caps(int family)
{
	struct bench b;

	CHECK_OK(sysctl_set(SYSCTL_PENDING, "3"));
	bench_open(&b, family, 64, 0);
	CHECK_OK(send_initials(b.cfd, 10));
	EXPECT_STAT(PENDING, 3);
	EXPECT_STAT(DROP_PENDING, b.drops + 7);
	CHECK(bench_accept(&b, 8) == 3);

	sysctl_restore();
	CHECK_OK(send_initials(b.cfd, 2));
	EXPECT_STAT(PENDING, 5);
	CHECK(stat_read(DROP_PENDING) == b.drops + 7);
	CHECK(bench_accept(&b, 8) == 2);
	bench_close(&b);
}

/* A pending connection closed gives its slot back (after its closing period). */
static void test_close_frees_slot(int family)
{
	struct bench b;

	bench_open(&b, family, 2, 0);
	CHECK_OK(send_initials(b.cfd, 2));
	EXPECT_STAT(PENDING, 2);
	CHECK(bench_accept(&b, 2) == 2);
	CHECK_OK(send_initials(b.cfd, 1));
	EXPECT_STAT(DROP_PENDING, b.drops + 1);

	close(b.fds[0]);
	b.fds[0] = -1;
	CHECK(stat_wait(PENDING, 1, SETTLE_MS) == 1);
	CHECK_OK(send_initials(b.cfd, 1));
	EXPECT_STAT(PENDING, 2);
	CHECK(stat_read(DROP_PENDING) == b.drops + 1);
	CHECK(bench_accept(&b, 1) == 1);
	bench_close(&b);
}

/* Initials queued and never accepted go with the listener, at once. */
static void test_listener_close(int family)
{
	struct bench b;

	bench_open(&b, family, 8, 0);
	CHECK_OK(send_initials(b.cfd, 5));
	EXPECT_STAT(PENDING, 5);
	close(b.lfd);
	b.lfd = -1;
	EXPECT_STAT(PENDING, 0);
	bench_close(&b);
}

/*
 * A client Initial sent again before the first was accepted takes a
 * second slot while queued; accept() feeds it to the connection the first
 * one made and gives the slot back.  Once accepted, the connection gets
 * its Initials itself.
 */
static void test_retransmitted_initial(int family)
{
	struct bench b;
	uint8_t dcid[8];

	bench_open(&b, family, 8, 0);
	CHECK(getrandom(dcid, sizeof(dcid), 0) == sizeof(dcid));
	CHECK_OK(send_initial(b.cfd, dcid, 0));
	CHECK_OK(send_initial(b.cfd, dcid, 1));
	EXPECT_STAT(PENDING, 2);
	CHECK(bench_accept(&b, 2) == 1);
	CHECK(errno == EAGAIN);
	CHECK(stat_read(PENDING) == 1);
	CHECK_OK(send_initial(b.cfd, dcid, 2));
	sleep_ms(200);
	CHECK(stat_read(PENDING) == 1);
	CHECK_ERR(accept(b.lfd, NULL, NULL), EAGAIN);
	bench_close(&b);
}

/*
 * accept() hands out only connections whose first Initial was authentic
 * and broke no rule: a forged one (its tag broken) is dropped silently
 * and its slot comes back at once; one carrying a frame a client may not
 * send closes with CONNECTION_CLOSE and keeps its slot for its closing
 * period.  Neither is returned by accept(); a good one after them is.
 */
static void test_bad_first_initial(int family)
{
	static const uint8_t handshake_done = CR_FRAME_HANDSHAKE_DONE;
	long decrypt = stat_read("drop_decrypt_failed");
	struct bench b;
	char buf[2048];

	bench_open(&b, family, 8, 0);
	CHECK_OK(send_initial_with(b.cfd, NULL, 0, NULL, 0, 1));
	EXPECT_STAT(PENDING, 1);
	CHECK_ERR(accept(b.lfd, NULL, NULL), EAGAIN);
	EXPECT_STAT(PENDING, 0);
	CHECK(stat_read("drop_decrypt_failed") > decrypt);
	CHECK_ERR(recv(b.cfd, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);

	CHECK_OK(send_initial_with(b.cfd, NULL, 0, &handshake_done, 1, 0));
	EXPECT_STAT(PENDING, 1);
	CHECK_ERR(accept(b.lfd, NULL, NULL), EAGAIN);
	CHECK(wait_poll(b.cfd, POLLIN, WAIT_MS) & POLLIN);	/* its close */
	CHECK(stat_wait(PENDING, 0, SETTLE_MS) == 0);
	drain(b.cfd);

	CHECK_OK(send_initials(b.cfd, 1));
	EXPECT_STAT(PENDING, 1);
	CHECK(bench_accept(&b, 1) == 1);
	bench_close(&b);
}

/* Queued Initials are charged to the listener's receive buffer. */
static void test_rcvbuf_caps(int family)
{
	long drops, queued = -1;
	struct bench b;
	long long end;

	bench_open(&b, family, 64, 4096);
	drops = stat_read(DROP_RCVBUF);
	CHECK_OK(send_initials(b.cfd, 10));
	/* All ten seen: each is queued or dropped. */
	for (end = now_ms() + WAIT_MS; now_ms() < end; sleep_ms(20)) {
		queued = stat_read(PENDING);
		if (queued + stat_read(DROP_RCVBUF) - drops == 10)
			break;
	}
	printf("# %ld of 10 Initials queued with SO_RCVBUF 4096\n", queued);
	CHECK(queued >= 1 && queued < 10);
	CHECK(stat_read(DROP_RCVBUF) - drops == 10 - queued);
	bench_close(&b);
}

/*
 * With listen(fd, 1), connections can only follow one another if each
 * one's slot comes back when its handshake completes.
 */
static void test_established_frees_slot(int family)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, 0, &ss);
	struct server_arg sv[3];
	int lfd, cfd[3], i, ret;
	pthread_t th;

	settle();
	lfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(lfd >= 0);
	CHECK_OK(set_timeouts(lfd, TIMEO_SEC));
	CHECK_OK(bind(lfd, (struct sockaddr *)&ss, len));
	CHECK_OK(listen(lfd, 1));
	CHECK_OK(getsockname(lfd, (struct sockaddr *)&ss, &len));
	for (i = 0; i < 3; i++) {
		sv[i].lfd = lfd;
		sv[i].fd = -1;
		cfd[i] = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
		CHECK(cfd[i] >= 0);
		CHECK_OK(set_timeouts(cfd[i], TIMEO_SEC));
		pthread_create(&th, NULL, server_main, &sv[i]);
		CHECK_OK(connect(cfd[i], (struct sockaddr *)&ss, len));
		ret = quic_client_handshake(cfd[i], psk_file, NULL, ALPN);
		pthread_join(th, NULL);
		if (ret || sv[i].ret)
			printf("# handshake %d: client %d, server %d\n", i, ret,
			       sv[i].ret);
		CHECK(!ret && !sv[i].ret);
		CHECK(stat_read(PENDING) == 0);
	}
	close(lfd);
	for (i = 0; i < 3; i++) {
		close(cfd[i]);
		if (sv[i].fd >= 0)
			close(sv[i].fd);
	}
	CHECK(stat_wait(PENDING, 0, SETTLE_MS) == 0);
}

/* ---- memory ---- */

/* Kernel memory in slabs and per-CPU areas, in kB (/proc/meminfo). */
static long mem_read(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	long slab = 0, percpu = 0, v;
	char key[64];

	while (f && fscanf(f, "%63s %ld kB", key, &v) == 2) {
		if (!strcmp(key, "Slab:"))
			slab = v;
		else if (!strcmp(key, "Percpu:"))
			percpu = v;
	}
	if (f)
		fclose(f);
	return slab + percpu;
}

/*
 * What one pending connection costs, queued and then accepted, for the
 * numbers stated in socket.c and quic(7) (36 kB accepted on Debian's
 * kernel).  Pass/fail only against a bound loose enough for debug kernels
 * (KASAN redzones), which a leak of the crypto pool or of skbs would still
 * cross.
 */
static void test_memory(int family)
{
	long m0, m1, m2, q, a;
	struct bench b;

	/* MEM_N pending: no Retry for a flood (retry_test's business). */
	CHECK_OK(sysctl_set(SYSCTL_RETRY, "0"));
	bench_open(&b, family, MEM_N, 0);
	sleep_ms(200);
	m0 = mem_read();
	CHECK_OK(send_initials(b.cfd, MEM_N));
	EXPECT_STAT(PENDING, MEM_N);
	sleep_ms(200);
	m1 = mem_read();
	CHECK(bench_accept(&b, MEM_N) == MEM_N);
	sleep_ms(200);
	drain(b.cfd);
	m2 = mem_read();
	q = (m1 - m0) * 1024 / MEM_N;
	a = (m2 - m0) * 1024 / MEM_N;
	printf("# per pending connection (slab and per-CPU): queued %ld B, accepted %ld B\n",
	       q, a);
	CHECK(q < 16384);
	CHECK(a < 131072);
	CHECK(stat_read(PENDING) == MEM_N);
	bench_close(&b);
	sysctl_restore();
}

static void test_none_left(int family)
{
	(void)family;
	CHECK(stat_wait(PENDING, 0, SETTLE_MS) == 0);
}

static const struct conn_test tests[] = {
	{ "crafter builds RFC 9001 A.2's client Initial", test_craft_vectors, 0 },
	{ "max_pending_connections: default, range, EINVAL for bad values", test_sysctl, 0 },
	{ "listen() backlog caps pending connections, queued and accepted", test_backlog_caps, FAM_BOTH },
	{ "max_pending_connections caps a larger backlog", test_sysctl_caps, 0 },
	{ "a closed pending connection gives its slot back", test_close_frees_slot, 0 },
	{ "closing the listener frees its queued Initials' slots", test_listener_close, FAM_BOTH },
	{ "a repeated Initial goes to its accepted connection", test_retransmitted_initial, 0 },
	{ "queued Initials are bounded by the listener's SO_RCVBUF", test_rcvbuf_caps, 0 },
	{ "an established connection gives its slot back", test_established_frees_slot, 0 },
	{ "memory of a pending connection", test_memory, 0 },
	{ "a forged or rule-breaking first Initial is never accepted",
	  test_bad_first_initial, FAM_BOTH },
	{ "no pending connection left", test_none_left, 0 },
};

int main(void)
{
	return sysctl_guarded_main(SYSCTL_PENDING, tests,
				   sizeof(tests) / sizeof(tests[0]));
}

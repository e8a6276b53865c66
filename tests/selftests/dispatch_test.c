// SPDX-License-Identifier: GPL-2.0
/*
 * One UDP port, several listeners: ALPN dispatch and SO_REUSEPORT
 * (net/quic/dispatch.c, quic(7) "ALPN DISPATCH AND SO_REUSEPORT").
 *
 * Servers are forked processes, each with its own listener on the shared
 * port, that accept, run the server handshake (libquic, PSK) in a thread
 * per connection and send their name on a stream; clients are threads
 * that connect with an ALPN and check which server answered.  Counters
 * live in shared memory.  Tests that only count where Initials went send
 * client Initials built with craft.h, with a ClientHello holding an ALPN
 * extension, and count what each listener's accept() returns.
 */

#include "quic_conn.h"
#include "craft.h"
#include "sysctl_guard.h"
#include "../hostile/procfs.h"

#include <sched.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>

#define SYSCTL_PENDING	"/proc/sys/net/quic/max_pending_connections"
#define SYSCTL_RETRY	"/proc/sys/net/quic/retry_threshold"
#define LONG_ALARM	(170 * test_slow()) /* tests with hundreds of connections */
#define MAX_SERVERS	4
#define MAX_CLIENTS	200
#define HS_TIMEO	60	/* seconds a client waits for its handshake */

/* ---- listeners ---- */

/*
 * A QUIC socket of @family with @alpn (NULL: none) and SO_REUSEPORT if
 * @reuse, bound to @ip:@port; -1 with errno if any step fails.
 */
static int bound_sock(int family, const char *ip, int port, const char *alpn,
		      int reuse)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(family, ip, port, &ss);
	int fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC), one = 1, e;

	if (fd < 0)
		return -1;
	if ((alpn && setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn,
				strlen(alpn))) ||
	    (reuse && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one,
				 sizeof(one))) ||
	    (family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &(int){0}, sizeof(int))) ||
	    bind(fd, (struct sockaddr *)&ss, len)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* bound_sock() and listen(); -1 with errno. */
static int listener(int family, const char *ip, int port, const char *alpn,
		    int reuse)
{
	int fd = bound_sock(family, ip, port, alpn, reuse), e;
	int big = 4 << 20;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (listen(fd, 1024)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* The local port of the socket @fd of @family, or -1. */
static int local_port(int fd, int family)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return -1;
	return ntohs(family == AF_INET ?
		     ((struct sockaddr_in *)&ss)->sin_port :
		     ((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* A free port of @family on loopback: bound once, then let go. */
static int free_port(int family)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, 0, &ss);
	int fd = socket(family, SOCK_DGRAM, 0), port = -1;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&ss, len))
		port = local_port(fd, family);
	if (fd >= 0)
		close(fd);
	return port;
}

/* accept() on the non-blocking listener @lfd, trying for @ms; or -1. */
static int accept_within(int lfd, int ms)
{
	long long end = now_ms() + ms;
	int fd;

	while ((fd = accept(lfd, NULL, NULL)) < 0 && now_ms() < end)
		sleep_ms(20);
	return fd;
}

/* ---- servers: forked processes, a thread per connection ---- */

struct shared {
	int stop;
	int served[MAX_SERVERS];	/* handshakes completed */
	int failed[MAX_SERVERS];	/* handshakes that failed */
	int active[MAX_SERVERS];	/* connection threads running */
};

static struct shared *shm;

struct srv_conn {
	int fd;
	int idx;
	const char *tag;
	const char *alpns;
};

static void *srv_conn_main(void *p)
{
	struct srv_conn *c = p;

	set_timeouts(c->fd, HS_TIMEO);
	if (!quic_server_handshake(c->fd, psk_file, NULL, c->alpns) &&
	    qsend(c->fd, c->tag, strlen(c->tag), S_BIDI(0),
		  MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN, 0) ==
	    (ssize_t)strlen(c->tag))
		__atomic_fetch_add(&shm->served[c->idx], 1, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_add(&shm->failed[c->idx], 1, __ATOMIC_SEQ_CST);
	/* Closed once the client has read the tag (or given up). */
	wait_poll(c->fd, POLLIN | POLLRDHUP, HS_TIMEO * 1000);
	close(c->fd);
	__atomic_fetch_sub(&shm->active[c->idx], 1, __ATOMIC_SEQ_CST);
	free(c);
	return NULL;
}

/*
 * Server @idx: accept on @lfd until told to stop; each connection's
 * handshake offers @alpns (NULL: the socket's, inherited from @lfd) and
 * sends @tag.  Never returns.
 */
static void serve(int lfd, int idx, const char *tag, const char *alpns)
{
	pthread_attr_t attr;
	pthread_t th;
	int fd;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 << 10);
	while (!__atomic_load_n(&shm->stop, __ATOMIC_SEQ_CST)) {
		struct srv_conn *c;

		if (!(wait_poll(lfd, POLLIN, 200) & POLLIN))
			continue;
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			continue;
		c = calloc(1, sizeof(*c));
		c->fd = fd;
		c->idx = idx;
		c->tag = tag;
		c->alpns = alpns;
		__atomic_fetch_add(&shm->active[idx], 1, __ATOMIC_SEQ_CST);
		if (pthread_create(&th, &attr, srv_conn_main, c)) {
			__atomic_fetch_sub(&shm->active[idx], 1,
					   __ATOMIC_SEQ_CST);
			close(fd);
			free(c);
		}
	}
	while (__atomic_load_n(&shm->active[idx], __ATOMIC_SEQ_CST))
		sleep_ms(50);
	close(lfd);
	_exit(0);
}

static pid_t fork_server(int lfd, int idx, const char *tag, const char *alpns)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid)
		serve(lfd, idx, tag, alpns);
	close(lfd);
	return pid;
}

static void shm_init(void)
{
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(shm != MAP_FAILED);
	if (shm == MAP_FAILED)
		exit(1);
	memset(shm, 0, sizeof(*shm));
}

static void stop_servers(pid_t *pids, int n)
{
	int i, status;

	__atomic_store_n(&shm->stop, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < n; i++) {
		if (pids[i] <= 0)
			continue;
		waitpid(pids[i], &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
}

/* ---- clients: a thread each ---- */

struct client {
	int family;
	const char *ip;
	int port;
	const char *alpn;	/* offered */
	const char *want;	/* the server tag expected, NULL: refused */
	int ok;
	int hs_err;		/* quic_client_handshake()'s result */
	uint32_t close_code;	/* QUIC_SOCKOPT_CONNECTION_CLOSE after it */
	char got[32];
};

static void *client_main(void *p)
{
	struct client *c = p;
	struct sockaddr_storage ss;
	socklen_t len = make_addr(c->family, c->ip, c->port, &ss);
	struct quic_connection_close cc;
	socklen_t cclen = sizeof(cc);
	struct rinfo ri;
	int fd, n, got = 0;

	fd = socket(c->family, SOCK_DGRAM, IPPROTO_QUIC);
	if (fd < 0)
		return NULL;
	set_timeouts(fd, HS_TIMEO);
	if (connect(fd, (struct sockaddr *)&ss, len))
		goto out;
	c->hs_err = quic_client_handshake(fd, psk_file, NULL, c->alpn);
	memset(&cc, 0, sizeof(cc));
	if (!getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE, &cc,
			&cclen))
		c->close_code = cc.errcode;
	if (c->hs_err)
		goto out;
	for (;;) {
		n = qrecv(fd, c->got + got, sizeof(c->got) - 1 - got, 0, &ri);
		if (n <= 0 || (ri.msg_flags & MSG_QUIC_NOTIFICATION))
			goto out;
		got += n;
		if (ri.msg_flags & MSG_QUIC_STREAM_FIN)
			break;
	}
	c->got[got] = 0;
	c->ok = c->want && !strcmp(c->got, c->want);
out:
	close(fd);
	return NULL;
}

/* Run @n clients at once; how many got what they wanted. */
static int run_clients(struct client *cl, int n)
{
	pthread_t th[MAX_CLIENTS];
	pthread_attr_t attr;
	int i, ok = 0, bad = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], &attr, client_main, &cl[i]))
			th[i] = 0;
	for (i = 0; i < n; i++) {
		if (th[i])
			pthread_join(th[i], NULL);
		ok += cl[i].ok;
		if (!cl[i].ok && cl[i].want && bad++ < 5)
			printf("# client %d (%s, want %s): handshake %d, got \"%s\"\n",
			       i, cl[i].alpn, cl[i].want, cl[i].hs_err,
			       cl[i].got);
	}
	return ok;
}

/* ---- crafted client Initials with a real-looking ClientHello ---- */

/*
 * A ClientHello offering @alpn (comma-separated), after a padding
 * extension of @pad bytes; its length.
 */
static size_t build_hello(uint8_t *out, const char *alpn, size_t pad)
{
	uint8_t names[128];
	size_t n = 0, nl = 0, at;
	const char *p = alpn;

	while (*p) {
		size_t l = strcspn(p, ",");

		names[nl++] = l;
		memcpy(names + nl, p, l);
		nl += l;
		p += l + (p[l] == ',');
	}
	out[n++] = 1;
	n += 3;				/* length, below */
	out[n++] = 3;
	out[n++] = 3;
	if (getrandom(out + n, 32, 0) != 32)
		memset(out + n, 7, 32);
	n += 32;
	out[n++] = 0;			/* session id */
	memcpy(out + n, "\x00\x02\x13\x01\x01\x00", 6);
	n += 6;
	at = n;
	n += 2;				/* extensions' length, below */
	memcpy(out + n, "\x00\x2b\x00\x03\x02\x03\x04", 7);
	n += 7;
	out[n++] = 0;
	out[n++] = 21;			/* padding */
	out[n++] = pad >> 8;
	out[n++] = pad;
	memset(out + n, 0, pad);
	n += pad;
	out[n++] = 0;
	out[n++] = 16;
	out[n++] = (nl + 2) >> 8;
	out[n++] = nl + 2;
	out[n++] = nl >> 8;
	out[n++] = nl;
	memcpy(out + n, names, nl);
	n += nl;
	out[at] = (n - at - 2) >> 8;
	out[at + 1] = n - at - 2;
	out[1] = 0;
	out[2] = (n - 4) >> 8;
	out[3] = n - 4;
	return n;
}

/*
 * A client Initial from the connected UDP socket @fd: DCID @dcid (8
 * bytes), packet number @pn, a ClientHello offering @alpn (if not NULL)
 * and @extra frames, padded to 1200 bytes.  0, or -1.
 */
static int send_initial(int fd, const uint8_t *dcid, uint32_t pn,
			const char *alpn, const uint8_t *extra,
			size_t extra_len)
{
	uint8_t hello[300], frame[1200], scid[8];
	size_t n = 0;

	if (getrandom(scid, sizeof(scid), 0) != sizeof(scid))
		return -1;
	if (alpn)
		n = cr_put_crypto(frame, 0, hello, build_hello(hello, alpn, 0));
	memcpy(frame + n, extra, extra_len);
	n += extra_len;
	return cr_initial_send(fd, dcid, 8, scid, sizeof(scid), NULL, 0, pn,
			       frame, n);
}

/* A client Initial from @fd carrying @len bytes at @off of @hello. */
static int send_hello_piece(int fd, const uint8_t *dcid, uint32_t pn,
			    const uint8_t *hello, size_t off, size_t len)
{
	uint8_t frame[1100];

	return send_initial(fd, dcid, pn, NULL, frame,
			    cr_put_crypto(frame, off, hello + off, len));
}

/* A UDP socket connected to @ip:@port. */
static int udp_to(int family, const char *ip, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(family, ip, port, &ss);
	int fd = socket(family, SOCK_DGRAM, 0);

	if (fd >= 0 && connect(fd, (struct sockaddr *)&ss, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- the tests ---- */

static const char *ip_of(int family)
{
	return family == AF_INET ? "127.0.0.1" : "::1";
}

/*
 * The first socket bound decides: without ALPN or SO_REUSEPORT, a second
 * bind() of the same address and port is refused as before, whatever it
 * sets; with one of them, others join, with or without.
 */
static void test_bind_in_use(int family)
{
	int port = free_port(family), a, b, c;

	a = bound_sock(family, ip_of(family), port, NULL, 0);
	CHECK(a >= 0);
	CHECK_ERR(bound_sock(family, ip_of(family), port, NULL, 0),
		  EADDRINUSE);
	CHECK_ERR(bound_sock(family, ip_of(family), port, "h3", 1),
		  EADDRINUSE);
	close(a);
	a = bound_sock(family, ip_of(family), port, "h3", 0);
	CHECK(a >= 0);
	b = bound_sock(family, ip_of(family), port, "smb", 0);
	CHECK(b >= 0);
	c = bound_sock(family, ip_of(family), port, NULL, 0);
	CHECK(c >= 0);
	close(a);
	close(b);
	close(c);
	a = bound_sock(family, ip_of(family), port, NULL, 1);
	CHECK(a >= 0);
	b = bound_sock(family, ip_of(family), port, NULL, 0);
	CHECK(b >= 0);
	close(a);
	close(b);
}

/*
 * listen(): overlapping ALPNs conflict, two defaults conflict, unless
 * both have SO_REUSEPORT; disjoint ones coexist.
 */
static void test_listen_conflicts(int family)
{
	int port = free_port(family), fds[8], n = 0, i, x;
	const char *ip = ip_of(family);

	fds[n++] = listener(family, ip, port, "h3,smb", 0);
	CHECK(fds[0] >= 0);
	x = bound_sock(family, ip, port, "smb", 0);
	CHECK(x >= 0);
	CHECK_ERR(listen(x, 8), EADDRINUSE);
	close(x);
	fds[n++] = listener(family, ip, port, "hq-interop", 0);
	CHECK(fds[n - 1] >= 0);
	/* A default (no ALPN, SO_REUSEPORT) beside them. */
	fds[n++] = listener(family, ip, port, NULL, 1);
	CHECK(fds[n - 1] >= 0);
	/* A second default: only as a SO_REUSEPORT group. */
	fds[n++] = listener(family, ip, port, NULL, 1);
	CHECK(fds[n - 1] >= 0);
	x = bound_sock(family, ip, port, NULL, 0);
	CHECK(x >= 0);
	CHECK_ERR(listen(x, 8), EADDRINUSE);
	close(x);
	/* h3 with SO_REUSEPORT cannot join a listener without it. */
	CHECK_ERR(listener(family, ip, port, "h3", 1), EADDRINUSE);
	/* Once it is gone, h3 is free again. */
	close(fds[0]);
	fds[0] = listener(family, ip, port, "h3", 0);
	CHECK(fds[0] >= 0);
	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Another user cannot join a port, even with SO_REUSEPORT. */
static void test_other_uid(int family)
{
	int port = free_port(family), a, status;
	pid_t pid;

	a = listener(family, ip_of(family), port, NULL, 1);
	CHECK(a >= 0);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(3);
		fd = bound_sock(family, ip_of(family), port, NULL, 1);
		if (fd >= 0 || errno != EADDRINUSE)
			_exit(1);
		fd = bound_sock(family, ip_of(family), port, "h3", 1);
		_exit(fd >= 0 || errno != EADDRINUSE ? 2 : 0);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(a);
}

/*
 * Three listeners in three processes with the ALPNs smb, h3 and
 * hq-interop, and a default one in a fourth, on one port; 200 clients at
 * once, each offering one of them or another ALPN: each reaches the
 * server of its ALPN (the default for the other), and only that one.
 */
static void dispatch_run(int family, int n)
{
	static const char *const alpn[] = { "smb", "h3", "hq-interop", NULL };
	static const char *const tag[] = { "srv-smb", "srv-h3", "srv-hq",
					   "srv-default" };
	static struct client cl[MAX_CLIENTS];
	int port = free_port(family), i, ok, lfd, want[MAX_SERVERS] = {};
	pid_t pids[MAX_SERVERS];
	long stale = hp_stat("drop_dispatch_stale");

	alarm(LONG_ALARM);
	shm_init();
	for (i = 0; i < MAX_SERVERS; i++) {
		lfd = listener(family, ip_of(family), port, alpn[i], 0);
		CHECK(lfd >= 0);
		if (lfd < 0)
			return;
		/* The default server speaks "other", unknown to the kernel. */
		pids[i] = fork_server(lfd, i, tag[i], alpn[i] ? NULL : "other");
	}
	for (i = 0; i < n; i++) {
		cl[i].family = family;
		cl[i].ip = ip_of(family);
		cl[i].port = port;
		cl[i].alpn = alpn[i % 4] ? alpn[i % 4] : "other";
		/* Some offer more than one: the first served one wins. */
		if (i % 8 == 1)
			cl[i].alpn = "nope,h3,smb";
		if (i % 8 == 4)
			cl[i].alpn = "other,smb";
		cl[i].want = tag[i % 4];
		want[i % 4]++;
	}
	ok = run_clients(cl, n);
	stop_servers(pids, MAX_SERVERS);
	printf("# %d of %d clients reached their server; served %d %d %d %d, failed %d %d %d %d\n",
	       ok, n, shm->served[0], shm->served[1],
	       shm->served[2], shm->served[3], shm->failed[0],
	       shm->failed[1], shm->failed[2], shm->failed[3]);
	/* Late copies of accepted Initials, dropped: none may fail above. */
	printf("# drop_dispatch_stale +%ld\n",
	       hp_stat("drop_dispatch_stale") - stale);
	CHECK(ok == n);
	for (i = 0; i < MAX_SERVERS; i++) {
		CHECK(shm->served[i] == want[i]);
		CHECK(shm->failed[i] == 0);
	}
}

/*
 * On the debug kernel (QUIC_TEST_SLOW=4) a handshake costs about 40 times
 * what it does on Debian's, and 200 did not finish within the stretched
 * alarm (682 s, 2026-11-28): there a quarter of them, still 50 at once.
 */
static void test_dispatch_processes(int family)
{
	int n = MAX_CLIENTS / test_slow();

	if (n < 24)
		n = 24;
	if (n != MAX_CLIENTS)
		printf("# %d clients (QUIC_TEST_SLOW=%d)\n", n, test_slow());
	dispatch_run(family, n);
}

/* The same with fewer clients, over IPv6. */
static void test_dispatch_v6(int family)
{
	dispatch_run(family, 24);
}

/*
 * No listener for the client's ALPN and no default: the connection is
 * refused with CONNECTION_REFUSED in an Initial (RFC 9001 §8.1), and
 * counted.
 */
static void test_refused(int family)
{
	int port = free_port(family), lfd;
	long before = hp_stat("connections_refused");
	struct client c = { .family = family, .ip = ip_of(family),
			    .port = port, .alpn = "smb" };
	pid_t pids[2];

	shm_init();
	lfd = listener(family, ip_of(family), port, "h3", 0);
	CHECK(lfd >= 0);
	pids[0] = fork_server(lfd, 0, "srv-h3", NULL);
	lfd = listener(family, ip_of(family), port, "hq-interop", 0);
	CHECK(lfd >= 0);
	pids[1] = fork_server(lfd, 1, "srv-hq", NULL);
	run_clients(&c, 1);
	stop_servers(pids, 2);
	printf("# handshake %d, close code %#x\n", c.hs_err, c.close_code);
	CHECK(c.hs_err != 0);
	CHECK(c.close_code == QUIC_TRANSPORT_ERROR_CONNECTION_REFUSED);
	CHECK(shm->served[0] == 0 && shm->failed[0] == 0);
	CHECK(shm->served[1] == 0 && shm->failed[1] == 0);
	CHECK(hp_stat("connections_refused") > before);
}

/*
 * A lone listener gets every connection, as before ports were shared:
 * its TLS refuses an ALPN it does not serve, the kernel does not.
 */
static void test_lone_listener(int family)
{
	int port = free_port(family), lfd;
	long before = hp_stat("connections_refused");
	struct client c = { .family = family, .ip = ip_of(family),
			    .port = port, .alpn = "smb" };
	pid_t pid;

	shm_init();
	lfd = listener(family, ip_of(family), port, "h3", 0);
	CHECK(lfd >= 0);
	pid = fork_server(lfd, 0, "srv-h3", NULL);
	run_clients(&c, 1);
	stop_servers(&pid, 1);
	printf("# handshake %d, close code %#x\n", c.hs_err, c.close_code);
	CHECK(c.hs_err != 0);
	/* CRYPTO_ERROR with the no_application_protocol alert (120). */
	CHECK(c.close_code == (QUIC_TRANSPORT_ERROR_CRYPTO | 120));
	CHECK(shm->served[0] == 0 && shm->failed[0] == 1);
	CHECK(hp_stat("connections_refused") == before);
}

/*
 * Four SO_REUSEPORT listeners with one ALPN: 400 new connections (client
 * Initials), each listener's accept() gets at least 10% of them.
 */
static void test_reuseport_balance(int family)
{
	int port = free_port(family), lfd[4], count[4] = {}, total = 0, i, fd;
	uint8_t dcid[8];
	long long end;
	int ufd;

	alarm(LONG_ALARM);
	CHECK_OK(sysctl_set(SYSCTL_PENDING, "1024"));
	/* 400 pending: no Retry for a flood (retry_test's business). */
	CHECK_OK(sysctl_set(SYSCTL_RETRY, "0"));
	for (i = 0; i < 4; i++) {
		lfd[i] = listener(family, ip_of(family), port, "h3", 1);
		CHECK(lfd[i] >= 0);
		if (lfd[i] < 0) {
			sysctl_restore();
			return;
		}
		fcntl(lfd[i], F_SETFL, O_NONBLOCK);
	}
	ufd = udp_to(family, ip_of(family), port);
	CHECK(ufd >= 0);
	for (i = 0; i < 400; i++) {
		CHECK(getrandom(dcid, 8, 0) == 8);
		CHECK_OK(send_initial(ufd, dcid, 0, "h3", NULL, 0));
		if (i % 50 == 49)
			sleep_ms(50);
	}
	end = now_ms() + 120000;
	while (total < 400 && now_ms() < end) {
		int got = 0;

		for (i = 0; i < 4; i++) {
			fd = accept(lfd[i], NULL, NULL);
			if (fd < 0)
				continue;
			count[i]++;
			total++;
			got++;
			close(fd);
		}
		if (!got)
			sleep_ms(20);
	}
	printf("# accepted %d %d %d %d of 400\n", count[0], count[1],
	       count[2], count[3]);
	CHECK(total == 400);
	for (i = 0; i < 4; i++) {
		CHECK(count[i] >= 40);
		close(lfd[i]);
	}
	close(ufd);
	sysctl_restore();
}

/*
 * A SO_REUSEPORT group of four processes: full handshakes, each process
 * serving some.
 */
static void test_reuseport_handshakes(int family)
{
	static const char *const tag[] = { "g0", "g1", "g2", "g3" };
	static struct client cl[40];
	int port = free_port(family), i, lfd, ok;
	pid_t pids[4];

	alarm(LONG_ALARM);
	shm_init();
	for (i = 0; i < 4; i++) {
		lfd = listener(family, ip_of(family), port, "h3", 1);
		CHECK(lfd >= 0);
		if (lfd < 0)
			return;
		pids[i] = fork_server(lfd, i, tag[i], NULL);
	}
	for (i = 0; i < 40; i++) {
		cl[i].family = family;
		cl[i].ip = ip_of(family);
		cl[i].port = port;
		cl[i].alpn = "h3";
	}
	run_clients(cl, 40);
	stop_servers(pids, 4);
	for (ok = 0, i = 0; i < 40; i++)
		ok += cl[i].hs_err == 0 && cl[i].got[0] == 'g';
	printf("# %d handshakes; served %d %d %d %d\n", ok, shm->served[0],
	       shm->served[1], shm->served[2], shm->served[3]);
	CHECK(ok == 40);
	for (i = 0; i < 4; i++)
		CHECK(shm->served[i] >= 1);
}

/* An unprivileged process listens on a high port, with ALPN, and accepts. */
static void test_unprivileged(int family)
{
	struct client c = { .family = family, .ip = ip_of(family),
			    .port = free_port(family), .alpn = "h3",
			    .want = "nobody" };
	pid_t pid;
	int fd;

	/* The server, uid 65534, reads the PSK file too. */
	CHECK_OK(chmod(psk_file, 0644));
	CHECK(c.port >= 1024);
	shm_init();
	fflush(stdout);
	pid = fork();
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		/* Two, so that the port is shared and dispatched. */
		if (listener(family, ip_of(family), c.port, "smb", 0) < 0)
			_exit(1);
		fd = listener(family, ip_of(family), c.port, "h3", 0);
		if (fd < 0) {
			printf("# listen as uid 65534: %s\n", strerror(errno));
			_exit(1);
		}
		serve(fd, 0, "nobody", NULL);
	}
	sleep_ms(500);
	run_clients(&c, 1);
	stop_servers(&pid, 1);
	CHECK(c.ok);
	CHECK(shm->served[0] == 1);
}

/*
 * A dual-stack listener pair ([::], IPV6_V6ONLY 0) with ALPN h3 and a
 * default: IPv4 clients are dispatched like IPv6 ones.
 */
static void test_dual_stack(int family)
{
	static struct client cl[8];
	int port = free_port(AF_INET6), i, lfd;
	pid_t pids[2];

	(void)family;
	shm_init();
	lfd = listener(AF_INET6, "::", port, "h3", 0);
	CHECK(lfd >= 0);
	pids[0] = fork_server(lfd, 0, "v6-h3", NULL);
	lfd = listener(AF_INET6, "::", port, NULL, 0);
	CHECK(lfd >= 0);
	pids[1] = fork_server(lfd, 1, "v6-default", "other");
	for (i = 0; i < 8; i++) {
		cl[i].family = i < 4 ? AF_INET : AF_INET6;
		cl[i].ip = i < 4 ? "127.0.0.1" : "::1";
		cl[i].port = port;
		cl[i].alpn = i % 2 ? "h3" : "other";
		cl[i].want = i % 2 ? "v6-h3" : "v6-default";
	}
	CHECK(run_clients(cl, 8) == 8);
	stop_servers(pids, 2);
}

/* Bring up lo in this network namespace. */
static int lo_up(void)
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret;

	strcpy(ifr.ifr_name, "lo");
	ret = ioctl(fd, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	if (!ret)
		ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
	close(fd);
	return ret;
}

/* Two network namespaces, a listener on the same port in each. */
static void test_netns(int family)
{
	struct client c = { .family = family, .ip = ip_of(family),
			    .alpn = "h3" };
	int port = free_port(family), lfd, other, status;
	pid_t pids[1], child;

	c.port = port;
	shm_init();
	/* Two listeners in each, so that each port is shared. */
	other = listener(family, ip_of(family), port, "smb", 0);
	CHECK(other >= 0);
	lfd = listener(family, ip_of(family), port, "h3", 0);
	CHECK(lfd >= 0);
	pids[0] = fork_server(lfd, 0, "init-ns", NULL);
	fflush(stdout);
	child = fork();
	if (!child) {
		struct client cc = c;
		pid_t spid;

		if (unshare(CLONE_NEWNET) || lo_up())
			_exit(3);
		if (listener(family, ip_of(family), port, "smb", 0) < 0)
			_exit(4);
		lfd = listener(family, ip_of(family), port, "h3", 0);
		if (lfd < 0)
			_exit(4);
		spid = fork_server(lfd, 1, "new-ns", NULL);
		cc.want = "new-ns";
		run_clients(&cc, 1);
		stop_servers(&spid, 1);
		_exit(cc.ok ? 0 : 5);
	}
	c.want = "init-ns";
	run_clients(&c, 1);
	waitpid(child, &status, 0);
	printf("# namespace child: %d\n", WEXITSTATUS(status));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	stop_servers(pids, 1);
	close(other);
	CHECK(c.ok);
	CHECK(shm->served[0] == 1 && shm->served[1] == 1);
}

/*
 * A client sends its Initial and closes (CONNECTION_CLOSE in an Initial)
 * before the server calls accept(): accept() does not hand out that dead
 * connection, nor fail; it returns the next one, which works.  With a
 * plain listener and with ALPN dispatch.
 */
static void dead_before_accept(int family, const char *alpn)
{
	static const uint8_t close_frame[] = { 0x1c, 0x00, 0x00, 0x00 };
	int port = free_port(family), lfd, ufd, fd, other;
	struct client c = { .family = family, .ip = ip_of(family),
			    .port = port, .alpn = alpn ? alpn : "other",
			    .want = "live" };
	struct srv_conn *sc;
	uint8_t dcid[8];
	pthread_t th;

	shm_init();
	lfd = listener(family, ip_of(family), port, alpn, 0);
	/* With an ALPN, a second listener: the port is dispatched. */
	other = alpn ? listener(family, ip_of(family), port, "smb", 0) : -1;
	ufd = udp_to(family, ip_of(family), port);
	CHECK(lfd >= 0 && ufd >= 0 && (!alpn || other >= 0));
	CHECK(getrandom(dcid, 8, 0) == 8);
	CHECK_OK(send_initial(ufd, dcid, 0, alpn ? alpn : "x", NULL, 0));
	CHECK_OK(send_initial(ufd, dcid, 1, NULL, close_frame,
			      sizeof(close_frame)));
	sleep_ms(1000);		/* both are queued */
	pthread_create(&th, NULL, client_main, &c);
	set_timeouts(lfd, 30);
	fd = accept(lfd, NULL, NULL);
	CHECK(fd >= 0);
	if (fd >= 0) {
		sc = calloc(1, sizeof(*sc));
		sc->fd = fd;
		sc->tag = "live";
		sc->alpns = alpn ? NULL : "other";
		__atomic_fetch_add(&shm->active[0], 1, __ATOMIC_SEQ_CST);
		srv_conn_main(sc);
	}
	pthread_join(th, NULL);
	CHECK(c.ok);
	CHECK(shm->served[0] == 1);
	close(lfd);
	close(ufd);
	if (other >= 0)
		close(other);
}

/*
 * A ClientHello of two datagrams, whose ALPN extension is in the second,
 * which arrives first: the connection waits for both and goes to the
 * listener of that ALPN, with both datagrams.
 */
static void test_hello_two_datagrams(int family)
{
	int port = free_port(family), smb, h3, ufd, fd, got = 0, n;
	uint8_t hello[2000], dcid[8], buf[2048];
	size_t len = build_hello(hello, "h3", 1200), half = len / 2;
	long long end;

	smb = listener(family, ip_of(family), port, "smb", 0);
	h3 = listener(family, ip_of(family), port, "h3", 0);
	ufd = udp_to(family, ip_of(family), port);
	CHECK(smb >= 0 && h3 >= 0 && ufd >= 0);
	fcntl(smb, F_SETFL, O_NONBLOCK);
	fcntl(h3, F_SETFL, O_NONBLOCK);
	CHECK(getrandom(dcid, 8, 0) == 8);
	CHECK_OK(send_hello_piece(ufd, dcid, 1, hello, half, len - half));
	sleep_ms(300);
	CHECK_ERR(accept(h3, NULL, NULL), EAGAIN);
	CHECK_OK(send_hello_piece(ufd, dcid, 0, hello, 0, half));
	end = now_ms() + 5000;
	fd = accept_within(h3, 5000);
	CHECK(fd >= 0);
	CHECK_ERR(accept(smb, NULL, NULL), EAGAIN);
	/* The whole ClientHello is there for the server's TLS. */
	while (fd >= 0 && got < (int)len && now_ms() < end) {
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0)
			got += n;
		else
			sleep_ms(20);
	}
	printf("# %d of %zu ClientHello bytes for the server\n", got, len);
	CHECK(got == (int)len);
	CHECK_ERR(accept(h3, NULL, NULL), EAGAIN);
	if (fd >= 0)
		close(fd);
	close(smb);
	close(h3);
	close(ufd);
}

/*
 * Does a connection of the local port @port with the peer port @peer show
 * in /proc/net/quic?  Every line is read: earlier cases leave hundreds of
 * connections in their closing periods, listed before ours.
 */
#define PROC_CONNS_MAX 16384
static int conn_of_ports(int port, int peer)
{
	static struct hp_conn conns[PROC_CONNS_MAX];
	int n = hp_conns_read(conns, PROC_CONNS_MAX), i;

	CHECK(n >= 0 && n < PROC_CONNS_MAX);
	for (i = 0; i < n; i++)
		if (hp_port(conns[i].local) == port &&
		    hp_port(conns[i].remote) == peer)
			return 1;
	return 0;
}

/*
 * A copy of a client's Initial that reaches the dispatcher after its
 * connection was accepted and is gone (a retransmission that waited
 * behind hundreds of other connections' Initials) makes no second
 * connection: it is dropped (drop_dispatch_stale).  The connection made
 * again would be handed to accept(), and its handshake could only fail.
 */
static void test_stale_initial(int family)
{
	int port = free_port(family), smb, h3, ufd, fd, uport;
	long before = hp_stat("drop_dispatch_stale");
	uint8_t dcid[8];
	long long end;

	smb = listener(family, ip_of(family), port, "smb", 0);
	h3 = listener(family, ip_of(family), port, "h3", 0);
	ufd = udp_to(family, ip_of(family), port);
	CHECK(smb >= 0 && h3 >= 0 && ufd >= 0);
	uport = ufd >= 0 ? local_port(ufd, family) : -1;
	fcntl(smb, F_SETFL, O_NONBLOCK);
	fcntl(h3, F_SETFL, O_NONBLOCK);
	CHECK(getrandom(dcid, 8, 0) == 8);
	CHECK_OK(send_initial(ufd, dcid, 0, "h3", NULL, 0));
	fd = accept_within(h3, 10000);
	CHECK(fd >= 0);
	CHECK(conn_of_ports(port, uport));
	if (fd >= 0)
		close(fd);
	/* Its closing period over, the connection is gone. */
	end = now_ms() + 8000;
	while (conn_of_ports(port, uport) && now_ms() < end)
		sleep_ms(20);
	CHECK(!conn_of_ports(port, uport));
	/* The same Initial again, as the client's PTO would send it. */
	CHECK_OK(send_initial(ufd, dcid, 1, "h3", NULL, 0));
	end = now_ms() + 5000;
	while (hp_stat("drop_dispatch_stale") == before && now_ms() < end)
		sleep_ms(20);
	printf("# drop_dispatch_stale +%ld\n",
	       hp_stat("drop_dispatch_stale") - before);
	CHECK(hp_stat("drop_dispatch_stale") == before + 1);
	CHECK_ERR(accept(h3, NULL, NULL), EAGAIN);
	CHECK_ERR(accept(smb, NULL, NULL), EAGAIN);
	close(smb);
	close(h3);
	close(ufd);
}

/*
 * A copy of a client's Initial answered with a Retry (the port's pending
 * connections reached retry_threshold) supersedes the copy queued before
 * it: the client goes on with the Retry's keys, so accept() makes no
 * connection of the queued one, which could never complete
 * (drop_retry_superseded).  Had the Retry been lost, the client's next
 * copy makes the connection.
 */
static void test_retry_superseded(int family)
{
	int port = free_port(family), lfd, ufd, fd, n;
	long before = hp_stat("drop_retry_superseded");
	long sent = hp_stat("retry_sent");
	uint8_t dcid[8], buf[1500];

	CHECK_OK(sysctl_set(SYSCTL_RETRY, "1"));
	lfd = listener(family, ip_of(family), port, "h3", 0);
	ufd = udp_to(family, ip_of(family), port);
	CHECK(lfd >= 0 && ufd >= 0);
	fcntl(lfd, F_SETFL, O_NONBLOCK);
	CHECK(getrandom(dcid, 8, 0) == 8);
	/* Queued: one pending connection, the threshold. */
	CHECK_OK(send_initial(ufd, dcid, 0, "h3", NULL, 0));
	CHECK(wait_poll(lfd, POLLIN, 5000) & POLLIN);
	/* Its copy gets a Retry. */
	CHECK_OK(send_initial(ufd, dcid, 1, "h3", NULL, 0));
	CHECK(wait_poll(ufd, POLLIN, 5000) & POLLIN);
	n = recv(ufd, buf, sizeof(buf), MSG_DONTWAIT);
	CHECK(n > 0 && (buf[0] & 0xf0) == 0xf0);	/* v1 Retry */
	CHECK(hp_stat("retry_sent") == sent + 1);
	CHECK_ERR(accept(lfd, NULL, NULL), EAGAIN);
	printf("# drop_retry_superseded +%ld\n",
	       hp_stat("drop_retry_superseded") - before);
	CHECK(hp_stat("drop_retry_superseded") == before + 1);
	/* The Retry lost: the next copy makes the connection. */
	CHECK_OK(send_initial(ufd, dcid, 2, "h3", NULL, 0));
	fd = accept_within(lfd, 10000);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	close(lfd);
	close(ufd);
	sysctl_restore();
}

static void test_dead_plain(int family)
{
	dead_before_accept(family, NULL);
}

static void test_dead_dispatch(int family)
{
	dead_before_accept(family, "h3");
}

static int quic_loaded(void)
{
	FILE *f = fopen("/proc/modules", "r");
	char line[256];
	int found = 0;

	while (f && fgets(line, sizeof(line), f))
		found |= !strncmp(line, "quic ", 5);
	if (f)
		fclose(f);
	return found;
}

/*
 * rmmod while listeners share a port and the dispatcher holds a
 * ClientHello being put together and decisions: refused; once they are
 * closed (and the connections' closing periods over), it goes cleanly,
 * and socket() loads the module again.
 */
static void test_rmmod(int family)
{
	int port = free_port(family), a, b, ufd, i, fd;
	uint8_t hello[2000], dcid[8];
	size_t len = build_hello(hello, "h3", 1200);

	alarm(LONG_ALARM);
	a = listener(family, ip_of(family), port, "smb", 0);
	b = listener(family, ip_of(family), port, "h3", 0);
	ufd = udp_to(family, ip_of(family), port);
	CHECK(a >= 0 && b >= 0 && ufd >= 0);
	CHECK(getrandom(dcid, 8, 0) == 8);
	CHECK_OK(send_initial(ufd, dcid, 0, "smb", NULL, 0));
	CHECK(getrandom(dcid, 8, 0) == 8);
	CHECK_OK(send_hello_piece(ufd, dcid, 1, hello, len / 2,
				  len - len / 2));
	sleep_ms(300);
	CHECK(system("rmmod quic 2>/dev/null") != 0);
	CHECK(quic_loaded());
	close(a);
	close(b);
	close(ufd);
	/* Connections of earlier tests may be in their closing period. */
	for (i = 0; i < 600 && quic_loaded(); i++) {
		if (system("rmmod quic 2>/dev/null"))
			sleep_ms(200);
	}
	CHECK(!quic_loaded());
	fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(fd >= 0);
	close(fd);
	CHECK(quic_loaded());
}

static const struct conn_test tests[] = {
	{ "bind: a port bound without ALPN or SO_REUSEPORT is not shared",
	  test_bind_in_use, FAM_BOTH },
	{ "listen: overlapping ALPNs and two defaults: EADDRINUSE",
	  test_listen_conflicts, FAM_BOTH },
	{ "another uid cannot join a port", test_other_uid, 0 },
	{ "ALPN dispatch: smb, h3, hq-interop, default in 4 processes, 200 clients",
	  test_dispatch_processes, 0 },
	{ "ALPN dispatch, 24 clients", test_dispatch_v6, FAM_V6 },
	{ "no listener for the ALPN: CONNECTION_REFUSED", test_refused,
	  FAM_BOTH },
	{ "a lone listener with ALPN: its TLS refuses, not the kernel",
	  test_lone_listener, 0 },
	{ "SO_REUSEPORT: 4 listeners, 400 connections, each >= 10%",
	  test_reuseport_balance, 0 },
	{ "SO_REUSEPORT group of 4 processes: handshakes",
	  test_reuseport_handshakes, 0 },
	{ "unprivileged listen and accept (uid 65534)", test_unprivileged,
	  0 },
	{ "dual-stack listeners: IPv4 and IPv6 clients dispatched",
	  test_dual_stack, 0 },
	{ "two network namespaces, one port each", test_netns, 0 },
	{ "ClientHello across two datagrams, out of order",
	  test_hello_two_datagrams, FAM_BOTH },
	{ "ALPN dispatch: a stale copy of an accepted Initial makes no connection",
	  test_stale_initial, FAM_BOTH },
	{ "client closed before accept(): dropped, next accepted",
	  test_dead_plain, FAM_BOTH },
	{ "client closed before accept(), ALPN dispatch: dropped",
	  test_dead_dispatch, 0 },
	{ "a Retry supersedes the queued copy of its Initial: no connection made of it",
	  test_retry_superseded, FAM_BOTH },
	{ "rmmod with listeners and dispatcher state: refused, then clean",
	  test_rmmod, 0 },
};

int main(void)
{
	return sysctl_guarded_main(SYSCTL_PENDING, tests,
				   sizeof(tests) / sizeof(tests[0]));
}

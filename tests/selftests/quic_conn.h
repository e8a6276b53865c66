/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the selftests that need an established connection between two
 * kernel QUIC sockets on loopback (stream_test, reset_test, flow_test,
 * close_test):
 * connection setup with libquic and a PSK, stream send/receive helpers over
 * raw sendmsg()/recvmsg() with the QUIC_STREAM_INFO cmsg, events, a byte
 * pattern for large transfers, and a TAP runner that runs each test in its
 * own child process under alarm(), so that a hang or crash in one test is
 * reported as that test's failure and the rest still run.
 *
 * Tests that matter per address family are listed once and run for IPv4
 * and for IPv6 ("(IPv4)"/"(IPv6)" appended to the name).  TEST_CASE=REGEX
 * in the environment runs only the tests whose name matches.
 */

#ifndef QUIC_SELFTEST_CONN_H
#define QUIC_SELFTEST_CONN_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/quic.h>
#include <netinet/quic.h>

#include "tap.h"
#include "addr.h"
#include "cmsg.h"

#define ALPN		"selftest"

/*
 * QUIC_TEST_SLOW=N (1 to 20) multiplies the socket timeouts and each
 * test's alarm: the debug kernel (KASAN, lockdep, kmemleak) under TCG
 * moves data about 40 times slower than Debian's, and tests/vm/debug-suite
 * sets it.  Limits that a test asserts on stay as they are.
 */
static inline int test_slow(void)
{
	const char *v = getenv("QUIC_TEST_SLOW");
	int n = v ? atoi(v) : 1;

	return n < 1 ? 1 : n > 20 ? 20 : n;
}

#define TIMEO_SEC	(10 * test_slow())	/* SO_RCVTIMEO/SO_SNDTIMEO */
#define TEST_ALARM	(45 * test_slow())	/* seconds one test may take */

static char psk_file[64];

/* ---- time ---- */

static inline long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static inline void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- connection setup ---- */

typedef void (*tp_fn)(struct quic_transport_param *p);
typedef void (*config_fn)(struct quic_config *c);

struct conn_cfg {
	tp_fn server_tp;	/* applied to the listener before listen() */
	tp_fn client_tp;	/* applied to the client before connect() */
	config_fn client_config;	/* QUIC_SOCKOPT_CONFIG, before connect() */
	int server_events[4];	/* QUIC_EVENT_* to enable on the listener */
	int server_rcvbuf;	/* SO_RCVBUF of the listener, if not 0 */
	int client_events[4];	/* QUIC_EVENT_* to enable on the client */
	/* Called between the client's connect() and its handshake. */
	int (*client_after_connect)(int fd);
	config_fn server_config;	/* QUIC_SOCKOPT_CONFIG of the listener */
	/* Called on the listener after listen(). */
	int (*server_after_listen)(int lfd);
};

struct conn {
	int family;
	int cfd;	/* client socket */
	int sfd;	/* accepted server socket */
};

static inline int set_timeouts(int fd, int sec)
{
	struct timeval tv = { .tv_sec = sec };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -1;
	return 0;
}

static inline int set_timeout_ms(int fd, int opt, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	return setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv));
}

/* Read our transport parameters, let @fn change them, write them back. */
static inline int apply_tp(int fd, tp_fn fn)
{
	struct quic_transport_param p;
	socklen_t len = sizeof(p);

	memset(&p, 0, sizeof(p));
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p, &len))
		return -1;
	fn(&p);
	p.remote = 0;
	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
			  sizeof(p));
}

/* Read the socket's config, let @fn change it, write it back. */
static inline int apply_config(int fd, config_fn fn)
{
	struct quic_config c;
	socklen_t len = sizeof(c);

	memset(&c, 0, sizeof(c));
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &c, &len))
		return -1;
	fn(&c);
	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &c, sizeof(c));
}

static inline int enable_event(int fd, int type)
{
	struct quic_event_option ev = { .type = type, .on = 1 };

	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, sizeof(ev));
}

struct server_arg {
	int lfd;
	int fd;
	int ret;
};

static void *server_main(void *p)
{
	struct server_arg *a = p;

	a->fd = accept(a->lfd, NULL, NULL);
	if (a->fd < 0) {
		a->ret = -errno;
		return NULL;
	}
	set_timeouts(a->fd, TIMEO_SEC);
	a->ret = quic_server_handshake(a->fd, psk_file, NULL, ALPN);
	return NULL;
}

/*
 * A connection between two kernel sockets on loopback, handshake done on
 * both ends.  Returns 0, or -1 after a failed CHECK.
 */
static inline int conn_open_cfg(struct conn *c, int family,
				const struct conn_cfg *cfg)
{
	struct server_arg sa = { .fd = -1 };
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, 0, &ss);
	pthread_t th;
	int ret, i;

	c->family = family;
	c->cfd = c->sfd = -1;
	sa.lfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(sa.lfd >= 0);
	if (sa.lfd < 0)
		return -1;
	CHECK_OK(set_timeouts(sa.lfd, TIMEO_SEC));
	if (cfg && cfg->server_tp)
		CHECK_OK(apply_tp(sa.lfd, cfg->server_tp));
	if (cfg && cfg->server_config)
		CHECK_OK(apply_config(sa.lfd, cfg->server_config));
	if (cfg && cfg->server_rcvbuf)
		CHECK_OK(setsockopt(sa.lfd, SOL_SOCKET, SO_RCVBUF,
				    &cfg->server_rcvbuf, sizeof(int)));
	for (i = 0; cfg && i < 4 && cfg->server_events[i]; i++)
		CHECK_OK(enable_event(sa.lfd, cfg->server_events[i]));
	CHECK_OK(bind(sa.lfd, (struct sockaddr *)&ss, len));
	CHECK_OK(listen(sa.lfd, 8));
	if (cfg && cfg->server_after_listen)
		CHECK_OK(cfg->server_after_listen(sa.lfd));
	CHECK_OK(getsockname(sa.lfd, (struct sockaddr *)&ss, &len));

	c->cfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(c->cfd >= 0);
	CHECK_OK(set_timeouts(c->cfd, TIMEO_SEC));
	if (cfg && cfg->client_tp)
		CHECK_OK(apply_tp(c->cfd, cfg->client_tp));
	if (cfg && cfg->client_config)
		CHECK_OK(apply_config(c->cfd, cfg->client_config));
	for (i = 0; cfg && i < 4 && cfg->client_events[i]; i++)
		CHECK_OK(enable_event(c->cfd, cfg->client_events[i]));
	if (tap_failed_checks) {
		close(sa.lfd);
		return -1;
	}

	pthread_create(&th, NULL, server_main, &sa);
	CHECK_OK(connect(c->cfd, (struct sockaddr *)&ss, len));
	if (cfg && cfg->client_after_connect)
		CHECK_OK(cfg->client_after_connect(c->cfd));
	ret = quic_client_handshake(c->cfd, psk_file, NULL, ALPN);
	if (ret)
		close(c->cfd);	/* let the server's handshake fail too */
	pthread_join(th, NULL);
	close(sa.lfd);
	c->sfd = sa.fd;
	if (ret || sa.ret) {
		printf("# handshake: client %d, server %d\n", ret, sa.ret);
		CHECK(!ret && !sa.ret);
		if (!ret)
			close(c->cfd);
		if (c->sfd >= 0)
			close(c->sfd);
		c->cfd = c->sfd = -1;
		return -1;
	}
	return 0;
}

static inline int conn_open(struct conn *c, int family)
{
	return conn_open_cfg(c, family, NULL);
}

static inline void conn_close(struct conn *c)
{
	if (c->cfd >= 0)
		close(c->cfd);
	if (c->sfd >= 0)
		close(c->sfd);
	c->cfd = c->sfd = -1;
}

/* ---- stream data ---- */

/* sendmsg() on stream @sid with the stream flags @sflags. */
static inline ssize_t qsend(int fd, const void *buf, size_t len, int64_t sid,
			    uint32_t sflags, int flags)
{
	struct quic_stream_info info = { .stream_id = sid,
					 .stream_flags = sflags };

	return qsend_cmsg(fd, buf, len, QUIC_STREAM_INFO, &info, sizeof(info),
			  flags);
}

/* Client stream ids: bidi 0, 4, 8 ...; uni 2, 6 ...  Server: +1. */
#define C_BIDI(n)	(4 * (n))
#define C_UNI(n)	(4 * (n) + 2)
#define S_BIDI(n)	(4 * (n) + 1)
#define S_UNI(n)	(4 * (n) + 3)

/* QUIC_SOCKOPT_STREAM_OPEN: the id opened, or -1000 - errno. */
static inline int64_t stream_open(int fd, int64_t id, uint32_t flags)
{
	struct quic_stream_info si = { .stream_id = id, .stream_flags = flags };
	socklen_t len = sizeof(si);

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_OPEN, &si, &len))
		return -1000 - errno;
	return si.stream_id;
}

/* What one recvmsg() gave: msg_flags, and the QUIC_STREAM_INFO cmsg. */
struct rinfo {
	int msg_flags;
	int has_info;		/* a QUIC_STREAM_INFO cmsg came */
	int64_t sid;
	uint32_t sflags;
};

/*
 * Handshake messages (QUIC_HANDSHAKE_INFO cmsg) that recvmsg() returned
 * after the handshake, and that qrecv() skipped: the server's
 * NewSessionTicket, which libquic's contract says the kernel keeps for
 * QUIC_SOCKOPT_SESSION_TICKET instead.  stream_test checks that there are
 * none; the other tests step over them so that they test their own thing.
 */
static int hs_msgs_skipped;

static inline ssize_t __qrecv(int fd, void *buf, size_t len, int flags,
			      struct rinfo *ri, int *hs_level);

static inline ssize_t qrecv(int fd, void *buf, size_t len, int flags,
			    struct rinfo *ri)
{
	int level;
	ssize_t n;

	for (;;) {
		n = __qrecv(fd, buf, len, flags, ri, &level);
		if (n < 0 || level < 0)
			return n;
		hs_msgs_skipped++;
		if (flags & MSG_PEEK)	/* take it away, peek again */
			__qrecv(fd, buf, len, flags & ~MSG_PEEK, ri, &level);
	}
}

/* Read a handshake message that waits at the head of the queue, if any. */
static inline void skip_hs_msgs(int fd)
{
	struct rinfo ri;
	char c;

	qrecv(fd, &c, 1, MSG_PEEK, &ri);
}

/* One recvmsg(); *hs_level: level of a QUIC_HANDSHAKE_INFO cmsg, or -1. */
static inline ssize_t __qrecv(int fd, void *buf, size_t len, int flags,
			      struct rinfo *ri, int *hs_level)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct quic_stream_info)) +
			 CMSG_SPACE(sizeof(struct quic_handshake_info))];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { buf, len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf),
	};
	struct cmsghdr *cmsg;
	struct quic_stream_info info;
	ssize_t n;

	memset(ri, 0, sizeof(*ri));
	ri->sid = -1;
	*hs_level = -1;
	n = recvmsg(fd, &mh, flags);
	if (n < 0)
		return n;
	ri->msg_flags = mh.msg_flags;
	for (cmsg = CMSG_FIRSTHDR(&mh); cmsg; cmsg = CMSG_NXTHDR(&mh, cmsg)) {
		if (cmsg->cmsg_level == SOL_QUIC &&
		    cmsg->cmsg_type == QUIC_HANDSHAKE_INFO)
			*hs_level = *(uint8_t *)CMSG_DATA(cmsg);
		if (cmsg->cmsg_level != SOL_QUIC ||
		    cmsg->cmsg_type != QUIC_STREAM_INFO ||
		    cmsg->cmsg_len != CMSG_LEN(sizeof(info)))
			continue;
		memcpy(&info, CMSG_DATA(cmsg), sizeof(info));
		ri->has_info = 1;
		ri->sid = info.stream_id;
		ri->sflags = info.stream_flags;
	}
	return n;
}

/* Wait up to @ms for @events on @fd; returns revents (0 on timeout). */
static inline int wait_poll(int fd, short events, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	return pfd.revents;
}

/*
 * Receive stream @sid up to its FIN into @buf (at most @cap bytes), failing
 * on data of another stream, an event or an error.  Returns the length, or
 * -1 after a failed CHECK.
 */
static inline ssize_t recv_stream_fin(int fd, int64_t sid, void *buf,
				      size_t cap)
{
	size_t got = 0;
	struct rinfo ri;
	ssize_t n;

	for (;;) {
		n = qrecv(fd, (char *)buf + got, cap - got, 0, &ri);
		if (n < 0) {
			CHECK(n >= 0);
			return -1;
		}
		if (ri.sid != sid || (ri.msg_flags & MSG_QUIC_NOTIFICATION)) {
			printf("# recv_stream_fin: want stream %lld, got %lld flags %#x (%zd bytes)\n",
			       (long long)sid, (long long)ri.sid,
			       ri.msg_flags, n);
			CHECK(ri.sid == sid);
			return -1;
		}
		got += n;
		if (ri.msg_flags & MSG_QUIC_STREAM_FIN)
			return got;
		if (!n || got == cap) {
			printf("# recv_stream_fin: no FIN after %zu bytes\n", got);
			CHECK(0);
			return -1;
		}
	}
}

/* Receive one event of @type into @ev; 0, or -1 after a failed CHECK. */
static inline int recv_event(int fd, int type, union quic_event *ev)
{
	unsigned char buf[1 + sizeof(union quic_event)];
	struct rinfo ri;
	ssize_t n;

	memset(buf, 0, sizeof(buf));
	n = qrecv(fd, buf, sizeof(buf), 0, &ri);
	if (n < 1 || !(ri.msg_flags & MSG_QUIC_NOTIFICATION) ||
	    buf[0] != type) {
		printf("# recv_event: want event %d, got %zd bytes, flags %#x, sid %lld, first byte %d\n",
		       type, n, ri.msg_flags, (long long)ri.sid, buf[0]);
		CHECK(0);
		return -1;
	}
	memcpy(ev, buf + 1, sizeof(*ev));
	return 0;
}

/*
 * One end of a test connection with its own GnuTLS session: its socket,
 * session and credentials closed and freed, the fields left empty.
 */
static inline void tls_end_free(int *fd, gnutls_session_t *session,
				gnutls_certificate_credentials_t *cred)
{
	if (*fd >= 0)
		close(*fd);
	if (*session)
		gnutls_deinit(*session);
	if (*cred)
		gnutls_certificate_free_credentials(*cred);
	*fd = -1;
	*session = NULL;
	*cred = NULL;
}

/* Both ends of @p, a struct with members cli and srv (fd, session, cred). */
#define tls_pair_free(p) do {						\
	tls_end_free(&(p)->cli.fd, &(p)->cli.session, &(p)->cli.cred);	\
	tls_end_free(&(p)->srv.fd, &(p)->srv.session, &(p)->srv.cred);	\
} while (0)

/* ---- a byte pattern that shows any lost, repeated or moved byte ---- */

static inline uint8_t pattern_byte(int64_t sid, uint64_t off)
{
	uint64_t x = (off >> 3) + ((uint64_t)sid << 48) + 0x9e3779b97f4a7c15ULL;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x >> ((off & 7) * 8);
}

static inline void pattern_fill(uint8_t *buf, int64_t sid, uint64_t off,
				size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern_byte(sid, off + i);
}

/* Offset in the stream of the first wrong byte, or -1 if all are right. */
static inline long long pattern_check(const uint8_t *buf, int64_t sid,
				      uint64_t off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != pattern_byte(sid, off + i))
			return off + i;
	return -1;
}

/* ---- the runner: each test in a child process, with alarm() ---- */

#define FAM_V4		1
#define FAM_V6		2
#define FAM_BOTH	(FAM_V4 | FAM_V6)

struct conn_test {
	const char *name;
	void (*fn)(int family);
	int families;	/* FAM_*; 0 means IPv4 only, without a suffix */
};

static inline int run_one(const char *name, void (*fn)(int), int family,
			  int num)
{
	long long t0 = now_ms();
	int status, ok;
	pid_t pid;

	/* The child's SKIP_TEST() reason must reach us: shared memory. */
	if (tap_skip_why == tap_skip_buf) {
		void *p = mmap(NULL, sizeof(tap_skip_buf), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			exit(2);
		tap_skip_why = p;
	}
	tap_skip_why[0] = 0;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		exit(2);
	if (!pid) {
		sigset_t chld;

		setpgid(0, 0);	/* its own group: see the kill() below */

		/*
		 * A test that runs a command (system()) while other threads
		 * sit in recvmsg() or sendmsg() under SO_RCVTIMEO/SO_SNDTIMEO
		 * would have the child's SIGCHLD land on one of them and cut
		 * its call short with EINTR, as for any socket.  Blocked in
		 * every thread, it stays pending; waitpid() still works.
		 */
		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigprocmask(SIG_BLOCK, &chld, NULL);
		alarm(TEST_ALARM);
		tap_failed_checks = 0;
		fn(family);
		fflush(stdout);
		_exit(tap_failed_checks ? 1 : 0);
	}
	setpgid(pid, pid);
	waitpid(pid, &status, 0);
	/*
	 * Servers a test forked outlive it when it is killed (alarm): they
	 * would hold their sockets, and quic.ko, into the next tests.
	 */
	kill(-pid, SIGKILL);
	ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	if (WIFSIGNALED(status))
		printf("# killed by signal %d%s\n", WTERMSIG(status),
		       WTERMSIG(status) == SIGALRM ? " (test timed out)" : "");
	printf("# %.2f s\n", (now_ms() - t0) / 1000.0);
	tap_result(num, name, ok);
	return ok;
}

static inline int conn_tests_main(const struct conn_test *tests, int n)
{
	const char *filter = getenv("TEST_CASE");
	struct { const char *name; void (*fn)(int); int family; } *list;
	char names[256][160];
	int count = 0, failed = 0, i, f;
	regex_t re;
	int fd;

	if (filter && regcomp(&re, filter, REG_EXTENDED | REG_NOSUB))
		return 2;
	list = calloc(2 * n, sizeof(*list));
	for (i = 0; i < n; i++) {
		for (f = 0; f < 2; f++) {
			int fams = tests[i].families ? tests[i].families : FAM_V4;

			if (!(fams & (1 << f)))
				continue;
			if (tests[i].families)
				snprintf(names[count], sizeof(names[count]),
					 "%s (%s)", tests[i].name,
					 f ? "IPv6" : "IPv4");
			else
				snprintf(names[count], sizeof(names[count]),
					 "%s", tests[i].name);
			if (filter && regexec(&re, names[count], 0, NULL, 0))
				continue;
			list[count].name = names[count];
			list[count].fn = tests[i].fn;
			list[count].family = f ? AF_INET6 : AF_INET;
			count++;
		}
	}

	signal(SIGPIPE, SIG_IGN);
	strcpy(psk_file, "/tmp/quic-psk.XXXXXX");
	fd = mkstemp(psk_file);
	if (fd < 0 || dprintf(fd, "selftest:%s\n",
			      "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff") < 0)
		return 2;
	close(fd);

	printf("TAP version 13\n1..%d\n", count);
	for (i = 0; i < count; i++)
		if (!run_one(list[i].name, list[i].fn, list[i].family, i + 1))
			failed++;
	unlink(psk_file);
	free(list);
	printf("# %d passed, %d failed, %d skipped\n",
	       count - failed - tap_skipped, failed, tap_skipped);
	return failed ? 1 : 0;
}

#endif /* QUIC_SELFTEST_CONN_H */

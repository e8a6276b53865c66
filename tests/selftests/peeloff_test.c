// SPDX-License-Identifier: GPL-2.0
/*
 * Stream file descriptors (QUIC_SOCKOPT_STREAM_PEELOFF, quic(7) STREAM FILE
 * DESCRIPTORS) over real connections: read/write both ways, EOF at the
 * peer's FIN, FIN at close(), sendfile() into and splice() out of a stream
 * fd, poll() on one stream only, the socket no longer reading or writing a
 * peeled stream, resets, the end of the connection, timeouts, signals, the
 * module reference, and the option's errors.
 */

#include "quic_conn.h"

#include <sys/sendfile.h>
#include <sys/uio.h>

/* QUIC_SOCKOPT_STREAM_PEELOFF: the new fd (and *sid), or -1 with errno. */
static int peel(int fd, int64_t *sid, uint32_t sflags, uint32_t flags)
{
	struct quic_stream_peeloff p = {
		.stream_id = *sid, .stream_flags = sflags, .flags = flags,
		.fd = -1,
	};
	socklen_t len = sizeof(p);

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_STREAM_PEELOFF, &p, &len))
		return -1;
	CHECK(len == sizeof(p));
	*sid = p.stream_id;
	return p.fd;
}

/* Read exactly @n bytes from @fd (a stream fd); the count read. */
static size_t read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = read(fd, (char *)buf + got, n - got);
		if (r <= 0) {
			printf("# read_full: %zd after %zu of %zu (errno %d)\n",
			       r, got, n, errno);
			break;
		}
		got += r;
	}
	return got;
}

/* Receive exactly @n bytes of stream @sid on the socket @fd. */
static int recv_n(int fd, int64_t sid, void *buf, size_t n)
{
	size_t got = 0;
	struct rinfo ri;
	ssize_t r;

	while (got < n) {
		r = qrecv(fd, (char *)buf + got, n - got, 0, &ri);
		if (r <= 0 || ri.sid != sid) {
			printf("# recv_n: %zd of stream %lld, want %lld\n", r,
			       (long long)ri.sid, (long long)sid);
			CHECK(0);
			return -1;
		}
		got += r;
	}
	return 0;
}

/*
 * A connection and a peeled client stream that the server knows of: the
 * client opens the next bidirectional stream with the fd and writes "x",
 * which the server reads.  The fd, or -1.
 */
static int open_peeled(struct conn *c, int family, int64_t *sid)
{
	char b;
	int fd;

	if (conn_open(c, family))
		return -1;
	*sid = -1;
	fd = peel(c->cfd, sid, 0, 0);
	CHECK(fd >= 0);
	if (fd < 0)
		return -1;
	CHECK(*sid == C_BIDI(0));
	CHECK(write(fd, "x", 1) == 1);
	CHECK_OK(recv_n(c->sfd, *sid, &b, 1));
	CHECK(b == 'x');
	if (tap_failed_checks) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Run @fn on a connection with a peeled client stream; @fn closes the fd. */
static void run_peeled(int family,
		       void (*fn)(struct conn *c, int fd, int64_t sid))
{
	struct conn c;
	int64_t sid;
	int fd;

	fd = open_peeled(&c, family, &sid);
	if (fd >= 0)
		fn(&c, fd, sid);
	conn_close(&c);
}

#define PEELED_TEST(name)				\
static void test_##name(int family)			\
{							\
	run_peeled(family, on_##name);			\
}

static void on_rw_both_ways(struct conn *c, int fd, int64_t sid)
{
	struct iovec wv[2] = { { "he", 2 }, { "llo", 3 } };
	char buf[64] = {}, a[3] = {}, b[3] = {};
	struct iovec rv[2] = { { a, 3 }, { b, 3 } };
	ssize_t n;

	CHECK(write(fd, "hello", 5) == 5);
	CHECK_OK(recv_n(c->sfd, sid, buf, 5));
	CHECK(!memcmp(buf, "hello", 5));
	CHECK(qsend(c->sfd, "world!", 6, sid, 0, 0) == 6);
	CHECK(read_full(fd, buf, 6) == 6);
	CHECK(!memcmp(buf, "world!", 6));

	/* readv() and writev() */
	CHECK(writev(fd, wv, 2) == 5);
	CHECK_OK(recv_n(c->sfd, sid, buf, 5));
	CHECK(!memcmp(buf, "hello", 5));
	CHECK(qsend(c->sfd, "abcdef", 6, sid, 0, 0) == 6);
	n = readv(fd, rv, 2);
	CHECK(n > 0 && n <= 6);
	if (n > 0 && n <= 6) {
		memcpy(buf, a, 3);
		memcpy(buf + 3, b, 3);
		CHECK(read_full(fd, buf + n, 6 - n) == (size_t)(6 - n));
		CHECK(!memcmp(buf, "abcdef", 6));
	}
	close(fd);
}
PEELED_TEST(rw_both_ways)

static void on_eof_at_fin(struct conn *c, int fd, int64_t sid)
{
	char buf[64];

	CHECK(qsend(c->sfd, "last", 4, sid, MSG_QUIC_STREAM_FIN, 0) == 4);
	CHECK(read_full(fd, buf, 4) == 4);
	CHECK(!memcmp(buf, "last", 4));
	CHECK(read(fd, buf, sizeof(buf)) == 0);
	CHECK(read(fd, buf, sizeof(buf)) == 0);	/* and stays at the end */
	close(fd);
}
PEELED_TEST(eof_at_fin)

static void on_close_sends_fin(struct conn *c, int fd, int64_t sid)
{
	char buf[64];

	CHECK(write(fd, "bye", 3) == 3);
	CHECK_OK(close(fd));
	CHECK(recv_stream_fin(c->sfd, sid, buf, sizeof(buf)) == 3);
	CHECK(!memcmp(buf, "bye", 3));
}
PEELED_TEST(close_sends_fin)

#define SENDFILE_SIZE	(3 << 20)

struct fin_reader {
	int fd;
	int64_t sid;
	uint8_t *buf;
	size_t cap;
	ssize_t got;
};

static void *fin_reader_main(void *p)
{
	struct fin_reader *r = p;

	r->got = recv_stream_fin(r->fd, r->sid, r->buf, r->cap);
	return NULL;
}

/* sendfile() from a regular file into the stream fd: identical bytes. */
static void on_sendfile(struct conn *c, int fd, int64_t sid)
{
	char path[] = "/tmp/quic-peeloff.XXXXXX";
	struct fin_reader r = { .fd = c->sfd, .sid = sid,
				.cap = SENDFILE_SIZE + 1 };
	uint8_t *data = malloc(SENDFILE_SIZE);
	int ffd = mkstemp(path);
	off_t off = 0;
	pthread_t th;
	ssize_t n;

	r.buf = malloc(r.cap);
	CHECK(data && r.buf && ffd >= 0);
	if (!data || !r.buf || ffd < 0)
		goto out;
	unlink(path);
	pattern_fill(data, 7, 0, SENDFILE_SIZE);
	CHECK(write(ffd, data, SENDFILE_SIZE) == SENDFILE_SIZE);

	pthread_create(&th, NULL, fin_reader_main, &r);
	while (off < SENDFILE_SIZE) {
		n = sendfile(fd, ffd, &off, SENDFILE_SIZE - off);
		if (n <= 0) {
			CHECK(n > 0);
			break;
		}
	}
	CHECK(off == SENDFILE_SIZE);
	close(fd);
	fd = -1;
	pthread_join(th, NULL);
	CHECK(r.got == SENDFILE_SIZE);
	if (r.got == SENDFILE_SIZE)
		CHECK(pattern_check(r.buf, 7, 0, SENDFILE_SIZE) == -1);
out:
	if (fd >= 0)
		close(fd);
	if (ffd >= 0)
		close(ffd);
	free(data);
	free(r.buf);
}
PEELED_TEST(sendfile)

#define SPLICE_SIZE	(256 << 10)

struct sender {
	int fd;
	int64_t sid;
	size_t len;
	int ok;
};

/* Send the pattern of stream @sid, @len bytes, then FIN. */
static void *sender_main(void *p)
{
	struct sender *s = p;
	static uint8_t chunk[16384];
	size_t off = 0, n;

	s->ok = 1;
	while (off < s->len) {
		n = s->len - off < sizeof(chunk) ? s->len - off : sizeof(chunk);
		pattern_fill(chunk, s->sid, off, n);
		if (qsend(s->fd, chunk, n, s->sid,
			  off + n == s->len ? MSG_QUIC_STREAM_FIN : 0, 0) !=
		    (ssize_t)n) {
			s->ok = 0;
			break;
		}
		off += n;
	}
	return NULL;
}

/* splice() from the stream fd into a pipe, up to the end of the stream. */
static void on_splice_to_pipe(struct conn *c, int fd, int64_t sid)
{
	struct sender s = { .len = SPLICE_SIZE };
	static uint8_t buf[65536];
	size_t total = 0;
	int pfd[2] = { -1, -1 };
	pthread_t th;
	ssize_t n, m;

	if (pipe(pfd)) {
		CHECK(0);
		close(fd);
		return;
	}
	s.fd = c->sfd;
	s.sid = sid;
	pthread_create(&th, NULL, sender_main, &s);
	for (;;) {
		n = splice(fd, NULL, pfd[1], NULL, sizeof(buf), 0);
		if (n <= 0) {
			CHECK(n == 0);
			break;
		}
		m = read_full(pfd[0], buf, n);
		CHECK(m == n);
		if (m != n || pattern_check(buf, sid, total, n) != -1) {
			CHECK(0);
			break;
		}
		total += n;
	}
	pthread_join(th, NULL);
	CHECK(s.ok);
	CHECK(total == SPLICE_SIZE);
	close(pfd[0]);
	close(pfd[1]);
	close(fd);
}
PEELED_TEST(splice_to_pipe)

struct delayed_send {
	int fd;
	int64_t sid;
	int delay_ms;
};

static void *delayed_send_main(void *p)
{
	struct delayed_send *d = p;

	sleep_ms(d->delay_ms);
	CHECK(qsend(d->fd, "B", 1, d->sid, 0, 0) == 1);
	return NULL;
}

/* A poll() on stream A is not ended by data for stream B. */
static void test_poll_one_stream(int family)
{
	struct delayed_send d = { .delay_ms = 200 };
	struct pollfd pfd;
	int64_t sa, sb = -1;
	pthread_t th;
	struct conn c;
	int fa, fb = -1;
	char b;

	fa = open_peeled(&c, family, &sa);
	if (fa < 0)
		goto out;
	fb = peel(c.cfd, &sb, 0, 0);
	CHECK(fb >= 0);
	CHECK(sb == C_BIDI(1));
	CHECK(write(fb, "y", 1) == 1);
	CHECK_OK(recv_n(c.sfd, sb, &b, 1));
	if (tap_failed_checks)
		goto out;

	d.fd = c.sfd;
	d.sid = sb;
	pthread_create(&th, NULL, delayed_send_main, &d);
	pfd.fd = fa;
	pfd.events = POLLIN;
	pfd.revents = 0;
	CHECK(poll(&pfd, 1, 1500) == 0);	/* B's data comes meanwhile */
	pthread_join(th, NULL);
	CHECK(wait_poll(fb, POLLIN, 5000) & POLLIN);
	CHECK(read(fb, &b, 1) == 1 && b == 'B');
	/* ... and is ended by A's. */
	CHECK(qsend(c.sfd, "A", 1, sa, 0, 0) == 1);
	CHECK(wait_poll(fa, POLLIN, 5000) & POLLIN);
	CHECK(read(fa, &b, 1) == 1 && b == 'A');
	CHECK(wait_poll(fa, POLLOUT, 0) & POLLOUT);
out:
	if (fb >= 0)
		close(fb);
	if (fa >= 0)
		close(fa);
	conn_close(&c);
}

#define CREDIT_WIN	16384

static void small_stream_window(struct quic_transport_param *p)
{
	p->max_stream_data_bidi_remote = CREDIT_WIN;
}

/*
 * POLLOUT follows the stream's credit: a non-blocking writer takes the
 * window and gets EAGAIN, poll() waits, and the peer's reading (its
 * MAX_STREAM_DATA) brings POLLOUT; a blocking write then waits for credit
 * as long as it takes.
 */
static void test_pollout_credit(int family)
{
	struct conn_cfg cfg = { .server_tp = small_stream_window };
	static char buf[4 * CREDIT_WIN], rbuf[sizeof(buf) + 1];
	struct fin_reader r = { .buf = (uint8_t *)rbuf, .cap = sizeof(rbuf) };
	size_t total = 0;
	int64_t sid = -1;
	struct conn c;
	pthread_t th;
	ssize_t n;
	int fd;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	fd = peel(c.cfd, &sid, 0, O_NONBLOCK);
	CHECK(fd >= 0);
	if (fd < 0)
		goto out;
	while ((n = write(fd, buf, sizeof(buf))) > 0)
		total += n;
	CHECK(n < 0 && errno == EAGAIN);
	CHECK(total == CREDIT_WIN);
	CHECK(wait_poll(fd, POLLOUT, 300) == 0);
	CHECK_OK(recv_n(c.sfd, sid, rbuf, total));
	CHECK(wait_poll(fd, POLLOUT, 5000) & POLLOUT);

	/* Blocking: four windows go out as the server reads them. */
	CHECK_OK(fcntl(fd, F_SETFL, 0));
	r.fd = c.sfd;
	r.sid = sid;
	pthread_create(&th, NULL, fin_reader_main, &r);
	CHECK(write(fd, buf, sizeof(buf)) == sizeof(buf));
	close(fd);
	pthread_join(th, NULL);
	CHECK(r.got == sizeof(buf));
out:
	conn_close(&c);
}

/*
 * The socket's recvmsg() no longer returns a peeled stream's data, and
 * data that waited for recvmsg() moves to the fd; sendmsg() to it: EBUSY.
 */
static void test_socket_loses_stream(int family)
{
	int64_t sid = S_BIDI(0), other = -1;
	struct rinfo ri;
	struct conn c;
	char buf[16];
	int fd = -1;

	if (conn_open(&c, family))
		return;
	/* The server opens a stream; its data waits for the client's recvmsg. */
	CHECK(qsend(c.sfd, "early", 5, sid, 0, 0) == 5);
	CHECK(qrecv(c.cfd, buf, 1, MSG_PEEK, &ri) == 1 && ri.sid == sid);
	fd = peel(c.cfd, &sid, 0, 0);
	CHECK(fd >= 0);
	if (fd < 0)
		goto out;
	CHECK(sid == S_BIDI(0));
	CHECK(read_full(fd, buf, 5) == 5 && !memcmp(buf, "early", 5));

	/* Later data of the peeled stream, and of another one. */
	CHECK(qsend(c.sfd, "peeled", 6, sid, 0, 0) == 6);
	CHECK(qsend(c.sfd, "other", 5, S_BIDI(1), 0, 0) == 5);
	other = S_BIDI(1);
	CHECK(qrecv(c.cfd, buf, sizeof(buf), 0, &ri) == 5);
	CHECK(ri.sid == other && !memcmp(buf, "other", 5));
	CHECK(read_full(fd, buf, 6) == 6 && !memcmp(buf, "peeled", 6));
	CHECK_ERR(qrecv(c.cfd, buf, sizeof(buf), MSG_DONTWAIT, &ri), EAGAIN);

	CHECK_ERR(qsend(c.cfd, "no", 2, sid, 0, 0), EBUSY);
	CHECK(qsend(c.cfd, "yes", 3, other, 0, 0) == 3);
	CHECK_OK(recv_n(c.sfd, other, buf, 3));
	CHECK(write(fd, "fd", 2) == 2);
	CHECK_OK(recv_n(c.sfd, sid, buf, 2));
	CHECK(!memcmp(buf, "fd", 2));
	close(fd);
out:
	conn_close(&c);
}

/* Unidirectional streams: the fd has the one direction there is. */
static void test_uni_streams(int family)
{
	int64_t sid = -1, psid = S_UNI(0);
	struct rinfo ri;
	struct conn c;
	char buf[16];
	int fd, pfd;

	if (conn_open(&c, family))
		return;
	fd = peel(c.cfd, &sid, MSG_QUIC_STREAM_UNI, 0);
	CHECK(fd >= 0);
	if (fd < 0)
		goto out;
	CHECK(sid == C_UNI(0));
	CHECK_ERR(read(fd, buf, 1), EBADF);
	CHECK(write(fd, "uni", 3) == 3);
	close(fd);
	CHECK(recv_stream_fin(c.sfd, sid, buf, sizeof(buf)) == 3);
	CHECK(!memcmp(buf, "uni", 3));

	/* The peer's unidirectional stream: read only. */
	CHECK(qsend(c.sfd, "to", 2, psid, MSG_QUIC_STREAM_FIN, 0) == 2);
	CHECK(qrecv(c.cfd, buf, 1, MSG_PEEK, &ri) == 1 && ri.sid == psid);
	pfd = peel(c.cfd, &psid, 0, 0);
	CHECK(pfd >= 0);
	if (pfd < 0)
		goto out;
	CHECK_ERR(write(pfd, "x", 1), EBADF);
	CHECK(read_full(pfd, buf, 2) == 2 && !memcmp(buf, "to", 2));
	CHECK(read(pfd, buf, 1) == 0);
	close(pfd);
out:
	conn_close(&c);
}

/* A reset reads as ECONNRESET, once; then the end. */
static void on_reset_reads_econnreset(struct conn *c, int fd, int64_t sid)
{
	struct quic_errinfo ei = { .errcode = 9 };
	char buf[8];

	ei.stream_id = sid;

	CHECK(qsend(c->sfd, "abc", 3, sid, 0, 0) == 3);
	CHECK(read_full(fd, buf, 3) == 3);
	CHECK_OK(setsockopt(c->sfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_RESET, &ei,
			    sizeof(ei)));
	CHECK(wait_poll(fd, POLLIN | POLLRDHUP, 5000) & POLLRDHUP);
	CHECK_ERR(read(fd, buf, sizeof(buf)), ECONNRESET);
	CHECK(read(fd, buf, sizeof(buf)) == 0);
	close(fd);
}
PEELED_TEST(reset_reads_econnreset)

/* STOP_SENDING from the peer: writes fail with EPIPE. */
static void on_stop_sending_epipe(struct conn *c, int fd, int64_t sid)
{
	struct quic_errinfo ei = { .errcode = 5 };
	ssize_t n = 0;
	int i;

	ei.stream_id = sid;

	CHECK_OK(setsockopt(c->sfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_STOP_SENDING,
			    &ei, sizeof(ei)));
	for (i = 0; i < 100; i++) {
		n = write(fd, "z", 1);
		if (n < 0)
			break;
		sleep_ms(50);
	}
	CHECK(n < 0 && errno == EPIPE);
	close(fd);
}
PEELED_TEST(stop_sending_epipe)

/* Closing the socket first: the connection lives while the stream fd does. */
static void on_socket_closed_first(struct conn *c, int fd, int64_t sid)
{
	struct rinfo ri;
	char buf[16];

	CHECK_OK(close(c->cfd));
	c->cfd = -1;
	CHECK(write(fd, "still", 5) == 5);
	CHECK_OK(recv_n(c->sfd, sid, buf, 5));
	CHECK(!memcmp(buf, "still", 5));
	CHECK(qsend(c->sfd, "here", 4, sid, 0, 0) == 4);
	CHECK(read_full(fd, buf, 4) == 4 && !memcmp(buf, "here", 4));
	CHECK_OK(close(fd));
	/* The FIN, then the connection's end (EOF). */
	CHECK(recv_stream_fin(c->sfd, sid, buf, sizeof(buf)) == 0);
	CHECK(qrecv(c->sfd, buf, sizeof(buf), 0, &ri) == 0);
}
PEELED_TEST(socket_closed_first)

/* The connection ends before the stream does: POLLHUP, ECONNRESET. */
static void on_connection_end(struct conn *c, int fd, int64_t sid)
{
	char buf[8];
	int ev;

	(void)sid;
	CHECK_OK(shutdown(c->sfd, SHUT_RDWR));
	ev = wait_poll(fd, POLLIN, 5000);
	CHECK(ev & POLLHUP);
	CHECK_ERR(read(fd, buf, sizeof(buf)), ECONNRESET);
	CHECK_ERR(write(fd, "x", 1), EPIPE);
	close(fd);
}
PEELED_TEST(connection_end)

/* O_NONBLOCK: EAGAIN; SO_RCVTIMEO of the socket bounds a blocking read. */
static void test_nonblock_and_timeout(int family)
{
	int64_t sid = -1;
	long long t0;
	struct conn c;
	char buf[8];
	int fd, nb;

	if (conn_open(&c, family))
		return;
	nb = peel(c.cfd, &sid, 0, O_NONBLOCK | O_CLOEXEC);
	CHECK(nb >= 0);
	if (nb < 0)
		goto out;
	CHECK(fcntl(nb, F_GETFD) & FD_CLOEXEC);
	CHECK(fcntl(nb, F_GETFL) & O_NONBLOCK);
	CHECK_ERR(read(nb, buf, sizeof(buf)), EAGAIN);
	CHECK_ERR(lseek(nb, 0, SEEK_SET), ESPIPE);

	sid = -1;
	fd = peel(c.cfd, &sid, 0, 0);
	CHECK(fd >= 0);
	if (fd < 0)
		goto out_nb;
	CHECK(!(fcntl(fd, F_GETFD) & FD_CLOEXEC));
	CHECK_OK(set_timeout_ms(c.cfd, SO_RCVTIMEO, 300));
	t0 = now_ms();
	CHECK_ERR(read(fd, buf, sizeof(buf)), EAGAIN);
	CHECK(now_ms() - t0 >= 250);
	close(fd);
out_nb:
	close(nb);
out:
	conn_close(&c);
}

static void on_usr1(int sig)
{
	(void)sig;
}

struct killer {
	pthread_t target;
};

static void *killer_main(void *p)
{
	struct killer *k = p;

	sleep_ms(300);
	pthread_kill(k->target, SIGUSR1);
	return NULL;
}

/* A signal (without SA_RESTART) interrupts a blocking read: EINTR. */
static void on_signal_eintr(struct conn *c, int fd, int64_t sid)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct killer k = { .target = pthread_self() };
	pthread_t th;
	char buf[8];

	(void)c;
	(void)sid;
	sigemptyset(&sa.sa_mask);
	CHECK_OK(sigaction(SIGUSR1, &sa, NULL));
	pthread_create(&th, NULL, killer_main, &k);
	CHECK_ERR(read(fd, buf, sizeof(buf)), EINTR);
	pthread_join(th, NULL);
	close(fd);
}
PEELED_TEST(signal_eintr)

static long module_refcnt(void)
{
	FILE *f = fopen("/sys/module/quic/refcnt", "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/*
 * The stream fd holds a reference to the module.  Sockets of earlier tests
 * that end meanwhile change the count too: a few tries.
 */
static void test_module_reference(int family)
{
	long before, open, after;
	int64_t sid = -1;
	struct conn c;
	int i, fd, ok = 0;

	if (module_refcnt() < 0)
		SKIP_TEST("no /sys/module/quic/refcnt");
	if (conn_open(&c, family))
		return;
	for (i = 0; i < 5 && !ok; i++) {
		sid = -1;
		before = module_refcnt();
		fd = peel(c.cfd, &sid, 0, 0);
		CHECK(fd >= 0);
		if (fd < 0)
			break;
		open = module_refcnt();
		close(fd);
		after = module_refcnt();
		printf("# refcnt %ld, with the stream fd %ld, after %ld\n",
		       before, open, after);
		ok = open == before + 1 && after == before;
	}
	CHECK(ok);
	conn_close(&c);
}

/* The option's errors. */
static void test_errors(int family)
{
	struct quic_stream_peeloff p;
	int64_t sid;
	socklen_t len;
	struct conn c;
	char buf[8];
	int fd, u, i;

	u = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(u >= 0);
	sid = -1;
	CHECK_ERR(peel(u, &sid, 0, 0), ENOTCONN);
	close(u);

	fd = open_peeled(&c, family, &sid);
	if (fd < 0)
		goto out;
	CHECK_ERR(peel(c.cfd, &sid, 0, 0), EBUSY);		/* twice */
	sid = C_BIDI(100);
	CHECK_ERR(peel(c.cfd, &sid, 0, 0), EINVAL);		/* never opened */
	sid = S_BIDI(3);
	CHECK_ERR(peel(c.cfd, &sid, 0, 0), EINVAL);		/* the peer's, not opened */
	sid = -2;
	CHECK_ERR(peel(c.cfd, &sid, 0, 0), EINVAL);
	sid = -1;
	CHECK_ERR(peel(c.cfd, &sid, 0, O_APPEND), EINVAL);	/* flags */
	CHECK_ERR(peel(c.cfd, &sid, MSG_QUIC_STREAM_FIN, 0), EINVAL);
	sid = C_BIDI(0);
	CHECK_ERR(peel(c.cfd, &sid, MSG_QUIC_STREAM_UNI, 0), EINVAL);
	memset(&p, 0, sizeof(p));
	p.stream_id = -1;
	p.reserved = 1;
	len = sizeof(p);
	CHECK_ERR(getsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_PEELOFF, &p,
			     &len), EINVAL);
	p.reserved = 0;
	len = sizeof(p) - 1;
	CHECK_ERR(getsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_PEELOFF, &p,
			     &len), EINVAL);
	CHECK_ERR(setsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_PEELOFF, &p,
			     sizeof(p)), ENOPROTOOPT);

	/* A stream done both ways (FINs sent, read and acknowledged) is gone. */
	CHECK(qsend(c.sfd, "f", 1, C_BIDI(0), MSG_QUIC_STREAM_FIN, 0) == 1);
	CHECK(read_full(fd, buf, 1) == 1);
	CHECK(read(fd, buf, 1) == 0);
	close(fd);
	CHECK(recv_stream_fin(c.sfd, C_BIDI(0), buf, sizeof(buf)) == 0);
	/* Our FIN's ACK comes with the next exchange on another stream. */
	CHECK(qsend(c.cfd, "p", 1, C_BIDI(1), 0, 0) == 1);
	CHECK_OK(recv_n(c.sfd, C_BIDI(1), buf, 1));
	CHECK(qsend(c.sfd, "q", 1, C_BIDI(1), 0, 0) == 1);
	CHECK_OK(recv_n(c.cfd, C_BIDI(1), buf, 1));
	/* Its fd was closed: EBUSY until it is gone, then EINVAL. */
	for (i = 0; i < 100; i++) {
		sid = C_BIDI(0);
		if (peel(c.cfd, &sid, 0, 0) >= 0 || errno != EBUSY)
			break;
		sleep_ms(20);
	}
	CHECK_ERR(peel(c.cfd, &sid, 0, 0), EINVAL);
out:
	conn_close(&c);
}

static const struct conn_test tests[] = {
	{ "stream fd: module reference while open", test_module_reference, 0 },
	{ "stream fd: read and write both ways", test_rw_both_ways, FAM_BOTH },
	{ "stream fd: EOF at the peer's FIN", test_eof_at_fin, 0 },
	{ "stream fd: close() sends FIN", test_close_sends_fin, 0 },
	{ "stream fd: sendfile() of 3 MiB, identical bytes", test_sendfile, FAM_BOTH },
	{ "stream fd: splice() into a pipe up to the end", test_splice_to_pipe, 0 },
	{ "stream fd: poll on stream A not ended by data on B", test_poll_one_stream, 0 },
	{ "stream fd: POLLOUT and blocking writes follow credit", test_pollout_credit, 0 },
	{ "stream fd: socket recvmsg skips, sendmsg EBUSY", test_socket_loses_stream, 0 },
	{ "stream fd: uni streams, the other direction EBADF", test_uni_streams, 0 },
	{ "stream fd: peer reset reads ECONNRESET, then EOF", test_reset_reads_econnreset, 0 },
	{ "stream fd: STOP_SENDING makes writes EPIPE", test_stop_sending_epipe, 0 },
	{ "stream fd: socket closed first, connection lives on", test_socket_closed_first, 0 },
	{ "stream fd: connection end is POLLHUP, ECONNRESET, EPIPE", test_connection_end, 0 },
	{ "stream fd: O_NONBLOCK, O_CLOEXEC, SO_RCVTIMEO, ESPIPE", test_nonblock_and_timeout, 0 },
	{ "stream fd: a signal interrupts a read with EINTR", test_signal_eintr, 0 },
	{ "QUIC_SOCKOPT_STREAM_PEELOFF errors", test_errors, 0 },
};

int main(void)
{
	return conn_tests_main(tests, sizeof(tests) / sizeof(tests[0]));
}

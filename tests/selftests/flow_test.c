// SPDX-License-Identifier: GPL-2.0
/*
 * Flow control and stream limits over an established connection: small
 * windows set with QUIC_SOCKOPT_TRANSPORT_PARAM on the receiver (the
 * listener, whose settings accepted sockets take), short counts and EAGAIN
 * for non-blocking writers, MSG_QUIC_STREAM_DONTWAIT, blocked writers that
 * resume when the reader reads, POLLOUT following connection credit,
 * MAX_STREAMS limits with QUIC_SOCKOPT_STREAM_OPEN, and reading the peer's
 * transport parameters.
 */

#include "quic_conn.h"

#define WIN	65536

static void tp_stream_win(struct quic_transport_param *p)
{
	p->max_stream_data_bidi_remote = WIN;
}

static void tp_conn_win(struct quic_transport_param *p)
{
	p->max_data = 100000;
}

static void tp_conn_win64k(struct quic_transport_param *p)
{
	p->max_data = WIN;
}

static void tp_two_streams(struct quic_transport_param *p)
{
	p->max_streams_bidi = 2;
	p->max_streams_uni = 2;
}

static void tp_four_streams(struct quic_transport_param *p)
{
	p->max_streams_bidi = 4;
}

static int set_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	return fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

/*
 * Read until @len bytes of stream @sid came (data of other streams is
 * read and dropped); returns the bytes of @sid read.
 */
static size_t read_bytes(int fd, int64_t sid, size_t len)
{
	static uint8_t buf[65536];
	size_t got = 0;
	struct rinfo ri;
	ssize_t n;

	while (got < len) {
		size_t want = len - got < sizeof(buf) ? len - got : sizeof(buf);

		n = qrecv(fd, buf, want, 0, &ri);
		if (n <= 0 || (ri.msg_flags & MSG_QUIC_NOTIFICATION)) {
			printf("# read_bytes: %zd (%s) on %lld after %zu\n", n,
			       n < 0 ? strerror(errno) : "", (long long)ri.sid,
			       got);
			break;
		}
		if (ri.sid == sid)
			got += n;
	}
	return got;
}

/* A non-blocking writer gets what the stream window allows, then EAGAIN. */
static void test_stream_window_nonblock(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_stream_win };
	static char buf[100000];
	struct conn c;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK_OK(set_nonblock(c.cfd, 1));
	CHECK(qsend(c.cfd, buf, sizeof(buf), -1, 0, 0) == WIN);
	CHECK_ERR(qsend(c.cfd, buf, 1, 0, 0, 0), EAGAIN);
	/* Another stream has its own window. */
	CHECK(qsend(c.cfd, buf, 1000, -1, 0, 0) == 1000);
	/* The reader gets the window's worth, and no more. */
	CHECK(read_bytes(c.sfd, 0, WIN) == WIN);
	/* Reading opened the window again: a blocking write goes through. */
	CHECK_OK(set_nonblock(c.cfd, 0));
	CHECK(qsend(c.cfd, buf, 1000, 0, 0, 0) == 1000);
	conn_close(&c);
}

/* MSG_DONTWAIT and the connection window, shared by all streams. */
static void test_conn_window_dontwait(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_conn_win };
	static char buf[60000];
	struct conn c;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK(qsend(c.cfd, buf, 60000, -1, 0, MSG_DONTWAIT) == 60000);
	CHECK(qsend(c.cfd, buf, 60000, -1, 0, MSG_DONTWAIT) == 40000);
	CHECK_ERR(qsend(c.cfd, buf, 1, -1, 0, MSG_DONTWAIT), EAGAIN);
	CHECK_ERR(qsend(c.cfd, buf, 1, 0, 0, MSG_DONTWAIT), EAGAIN);
	conn_close(&c);
}

/* POLLOUT goes with connection credit: away when used up, back on read. */
static void test_pollout_credit(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_conn_win };
	static char buf[100000];
	struct conn c;
	int ev;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK(wait_poll(c.cfd, POLLOUT, 0) & POLLOUT);
	CHECK(qsend(c.cfd, buf, sizeof(buf), -1, 0, MSG_DONTWAIT) == 100000);
	ev = wait_poll(c.cfd, POLLOUT, 0);
	CHECK(!(ev & POLLOUT));
	/* Still no POLLOUT while the reader has not read. */
	ev = wait_poll(c.cfd, POLLOUT, 300);
	CHECK(!(ev & POLLOUT));
	CHECK(read_bytes(c.sfd, 0, 100000) == 100000);
	ev = wait_poll(c.cfd, POLLOUT, 5000);
	CHECK(ev & POLLOUT);
	CHECK(qsend(c.cfd, buf, 1000, 0, 0, MSG_DONTWAIT) == 1000);
	conn_close(&c);
}

/* MSG_QUIC_STREAM_DONTWAIT: no waiting for credit on a blocking socket. */
static void test_stream_dontwait_flag(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_stream_win };
	static char buf[100000];
	struct conn c;
	long long t;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	t = now_ms();
	CHECK(quic_sendmsg(c.cfd, buf, sizeof(buf), -1,
			   MSG_QUIC_STREAM_DONTWAIT) == WIN);
	CHECK_ERR(quic_sendmsg(c.cfd, buf, 1, 0, MSG_QUIC_STREAM_DONTWAIT), EAGAIN);
	CHECK_ERR(qsend(c.cfd, buf, 1, 0, MSG_QUIC_STREAM_DONTWAIT, 0), EAGAIN);
	t = now_ms() - t;
	if (t >= 3000)
		printf("# took %lld ms\n", t);
	CHECK(t < 3000);	/* SO_SNDTIMEO is 10 s */
	conn_close(&c);
}

struct writer {
	int fd;
	size_t len;
	ssize_t ret;
	int err;
	volatile int done;
};

static void *write_blocking(void *p)
{
	struct writer *w = p;
	uint8_t *buf = malloc(w->len);

	pattern_fill(buf, 0, 0, w->len);
	w->ret = qsend(w->fd, buf, w->len, -1, MSG_QUIC_STREAM_FIN, 0);
	w->err = errno;
	w->done = 1;
	free(buf);
	return NULL;
}

/*
 * A blocking writer with 4 windows' worth waits while the reader does not
 * read, and completes once it does.
 */
static void blocked_writer(int family, tp_fn tp)
{
	struct conn_cfg cfg = { .server_tp = tp };
	struct writer w = { .len = 4 * WIN };
	uint8_t *buf = malloc(4 * WIN + 1);
	struct conn c;
	pthread_t th;
	ssize_t n;

	if (conn_open_cfg(&c, family, &cfg))
		goto out;
	w.fd = c.cfd;
	pthread_create(&th, NULL, write_blocking, &w);
	CHECK(wait_poll(c.sfd, POLLIN, 5000) & POLLIN);
	sleep_ms(300);
	CHECK(!w.done);		/* nobody read: it cannot have finished */
	n = recv_stream_fin(c.sfd, 0, buf, 4 * WIN + 1);
	pthread_join(th, NULL);
	CHECK(w.done);
	if (w.ret != 4 * WIN)
		printf("# writer: %zd (%s)\n", w.ret, strerror(w.err));
	CHECK(w.ret == 4 * WIN);
	CHECK(n == 4 * WIN);
	if (n == 4 * WIN)
		CHECK(pattern_check(buf, 0, 0, n) < 0);
	conn_close(&c);
out:
	free(buf);
}

static void test_blocked_writer_stream(int family)
{
	blocked_writer(family, tp_stream_win);
}

static void test_blocked_writer_conn(int family)
{
	blocked_writer(family, tp_conn_win64k);
}

/* SO_SNDTIMEO bounds the wait for credit: short count, then EAGAIN. */
static void test_sndtimeo(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_stream_win };
	static char buf[100000];
	struct conn c;
	long long t;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK_OK(set_timeout_ms(c.cfd, SO_SNDTIMEO, 300));
	t = now_ms();
	CHECK(qsend(c.cfd, buf, sizeof(buf), -1, 0, 0) == WIN);
	t = now_ms() - t;
	CHECK(t >= 250 && t < 5000);
	t = now_ms();
	CHECK_ERR(qsend(c.cfd, buf, 1, 0, 0, 0), EAGAIN);
	t = now_ms() - t;
	if (t < 250 || t >= 5000)
		printf("# EAGAIN after %lld ms\n", t);
	CHECK(t >= 250 && t < 5000);
	conn_close(&c);
}

/* QUIC_EVENT_STREAM_MAX_DATA when the reader opens the window. */
static void test_max_data_event(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_stream_win };
	static char buf[WIN];
	union quic_event ev;
	struct conn c;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK_OK(enable_event(c.cfd, QUIC_EVENT_STREAM_MAX_DATA));
	CHECK(qsend(c.cfd, buf, WIN, -1, 0, MSG_DONTWAIT) == WIN);
	CHECK(read_bytes(c.sfd, 0, WIN) == WIN);
	if (!recv_event(c.cfd, QUIC_EVENT_STREAM_MAX_DATA, &ev)) {
		printf("# stream %lld max_data %llu\n", (long long)ev.max_data.id,
		       (unsigned long long)ev.max_data.max_data);
		CHECK(ev.max_data.id == 0);
		CHECK(ev.max_data.max_data > WIN);
	}
	conn_close(&c);
}

/*
 * The bytes of a stream the writer reset, never read by the receiver,
 * do not keep the connection window used up (RFC 9000 §4.5: the final size
 * counts, and the data is discarded).
 */
static void test_reset_frees_conn_window(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_conn_win };
	struct quic_errinfo ei = { .stream_id = 0, .errcode = 1 };
	static char buf[100000];
	struct conn c;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK(qsend(c.cfd, buf, sizeof(buf), -1, 0, MSG_DONTWAIT) == 100000);
	CHECK(!(wait_poll(c.cfd, POLLOUT, 0) & POLLOUT));
	CHECK(wait_poll(c.sfd, POLLIN, 5000) & POLLIN);
	CHECK_OK(setsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_RESET, &ei,
			    sizeof(ei)));
	CHECK(wait_poll(c.cfd, POLLOUT, 5000) & POLLOUT);
	CHECK(qsend(c.cfd, buf, 1000, -1, 0, MSG_DONTWAIT) == 1000);
	conn_close(&c);
}

/* Finish bidi stream @sid both ways: FIN from each end, each read. */
static void finish_bidi(struct conn *c, int64_t sid)
{
	char buf[16];

	CHECK(qsend(c->cfd, "q", 1, sid, MSG_QUIC_STREAM_FIN, 0) == 1);
	CHECK(recv_stream_fin(c->sfd, sid, buf, sizeof(buf)) == 1);
	CHECK(qsend(c->sfd, "r", 1, sid, MSG_QUIC_STREAM_FIN, 0) == 1);
	CHECK(recv_stream_fin(c->cfd, sid, buf, sizeof(buf)) == 1);
}

/* max_streams_bidi 2: a third stream waits until one is done. */
static void test_stream_limit(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_two_streams };
	struct conn c;
	long long t;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK(stream_open(c.cfd, -1, MSG_QUIC_STREAM_DONTWAIT) == 0);
	CHECK(stream_open(c.cfd, -1, MSG_QUIC_STREAM_DONTWAIT) == 4);
	CHECK(stream_open(c.cfd, -1, MSG_QUIC_STREAM_DONTWAIT) == -1000 - EAGAIN);
	CHECK_ERR(qsend(c.cfd, "x", 1, -1, MSG_QUIC_STREAM_DONTWAIT, 0), EAGAIN);
	CHECK_ERR(qsend(c.cfd, "x", 1, -1, 0, MSG_DONTWAIT), EAGAIN);
	/* The server's own streams are not limited by it. */
	CHECK(stream_open(c.sfd, -1, MSG_QUIC_STREAM_DONTWAIT) == 1);
	finish_bidi(&c, 0);
	finish_bidi(&c, 4);
	/* Both done: MAX_STREAMS comes, a blocking open gets stream 8. */
	t = now_ms();
	CHECK(stream_open(c.cfd, -1, 0) == 8);
	CHECK(now_ms() - t < 5000);
	conn_close(&c);
}

struct opener {
	int fd;
	int64_t sid;
	volatile int done;
};

static void *open_blocking(void *p)
{
	struct opener *o = p;

	o->sid = stream_open(o->fd, -1, 0);
	o->done = 1;
	return NULL;
}

/* A blocking STREAM_OPEN at the limit waits, and wakes on MAX_STREAMS. */
static void test_stream_open_blocks(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_two_streams };
	struct opener o = { .sid = -2 };
	struct conn c;
	pthread_t th;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK(stream_open(c.cfd, -1, 0) == 0);
	CHECK(stream_open(c.cfd, -1, 0) == 4);
	o.fd = c.cfd;
	pthread_create(&th, NULL, open_blocking, &o);
	sleep_ms(300);
	CHECK(!o.done);
	finish_bidi(&c, 0);
	pthread_join(th, NULL);
	if (o.sid != 8)
		printf("# opened %lld\n", (long long)o.sid);
	CHECK(o.sid == 8);
	conn_close(&c);
}

/* SO_RCVBUF on the listener bounds the windows it advertises (half). */
static void test_rcvbuf_bounds_windows(int family)
{
	struct conn_cfg cfg = { .server_rcvbuf = 128 * 1024 };
	struct quic_transport_param p;
	socklen_t len = sizeof(p);
	int rcvbuf = 0;
	struct conn c;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	len = sizeof(rcvbuf);
	CHECK_OK(getsockopt(c.sfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &len));
	printf("# accepted socket SO_RCVBUF %d\n", rcvbuf);
	CHECK(rcvbuf > 0 && rcvbuf <= 2 * 128 * 1024);
	memset(&p, 0, sizeof(p));
	p.remote = 1;
	len = sizeof(p);
	CHECK_OK(getsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
			    &len));
	printf("# peer max_data %llu, bidi_remote %llu\n",
	       (unsigned long long)p.max_data,
	       (unsigned long long)p.max_stream_data_bidi_remote);
	CHECK(p.max_data > 0 && p.max_data <= (unsigned int)rcvbuf / 2);
	CHECK(p.max_stream_data_bidi_local <= (unsigned int)rcvbuf / 2);
	CHECK(p.max_stream_data_bidi_remote <= (unsigned int)rcvbuf / 2);
	CHECK(p.max_stream_data_uni <= (unsigned int)rcvbuf / 2);
	conn_close(&c);
}

/* QUIC_EVENT_STREAM_MAX_STREAM when the peer allows more (uni) streams. */
static void test_max_streams_event(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_two_streams };
	union quic_event ev;
	char buf[16];
	struct conn c;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK_OK(enable_event(c.cfd, QUIC_EVENT_STREAM_MAX_STREAM));
	CHECK(qsend(c.cfd, "a", 1, -1, MSG_QUIC_STREAM_UNI | MSG_QUIC_STREAM_FIN, 0) == 1);
	CHECK(qsend(c.cfd, "b", 1, -1, MSG_QUIC_STREAM_UNI | MSG_QUIC_STREAM_FIN, 0) == 1);
	CHECK(stream_open(c.cfd, -1, MSG_QUIC_STREAM_UNI | MSG_QUIC_STREAM_DONTWAIT) ==
	      -1000 - EAGAIN);
	CHECK(recv_stream_fin(c.sfd, 2, buf, sizeof(buf)) == 1);
	CHECK(recv_stream_fin(c.sfd, 6, buf, sizeof(buf)) == 1);
	if (!recv_event(c.cfd, QUIC_EVENT_STREAM_MAX_STREAM, &ev)) {
		printf("# max_stream %llu\n", (unsigned long long)ev.max_stream);
		CHECK(ev.max_stream >= 3);
	}
	CHECK(stream_open(c.cfd, -1, MSG_QUIC_STREAM_UNI | MSG_QUIC_STREAM_DONTWAIT) == 10);
	conn_close(&c);
}

/* 40 streams one after another with a limit of 4: the limit moves on. */
static void test_streams_recycled(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_four_streams };
	struct conn c;
	int i;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	for (i = 0; i < 40 && !tap_failed_checks; i++) {
		int64_t sid = stream_open(c.cfd, -1, 0);

		if (sid != 4 * i)
			printf("# open %d: %lld\n", i, (long long)sid);
		CHECK(sid == 4 * i);
		finish_bidi(&c, 4 * i);
	}
	conn_close(&c);
}

static void tp_distinct_server(struct quic_transport_param *p)
{
	p->max_idle_timeout = 33000000;
	p->max_streams_bidi = 17;
	p->max_streams_uni = 9;
	p->max_data = 1000000;
	p->max_stream_data_bidi_local = 300000;
	p->max_stream_data_bidi_remote = 200000;
	p->max_stream_data_uni = 150000;
}

static void tp_distinct_client(struct quic_transport_param *p)
{
	p->max_idle_timeout = 44000000;
	p->max_streams_bidi = 21;
	p->max_streams_uni = 5;
	p->max_data = 900000;
	p->max_stream_data_bidi_local = 250000;
	p->max_stream_data_bidi_remote = 260000;
	p->max_stream_data_uni = 270000;
}

static void check_tp(const struct quic_transport_param *got, tp_fn fn)
{
	struct quic_transport_param want = *got;

	fn(&want);
	CHECK(got->max_idle_timeout == want.max_idle_timeout);
	CHECK(got->max_streams_bidi == want.max_streams_bidi);
	CHECK(got->max_streams_uni == want.max_streams_uni);
	CHECK(got->max_data == want.max_data);
	CHECK(got->max_stream_data_bidi_local == want.max_stream_data_bidi_local);
	CHECK(got->max_stream_data_bidi_remote == want.max_stream_data_bidi_remote);
	CHECK(got->max_stream_data_uni == want.max_stream_data_uni);
}

static int get_tp(int fd, int remote, struct quic_transport_param *p)
{
	socklen_t len = sizeof(*p);

	memset(p, 0, sizeof(*p));
	p->remote = remote;
	return getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, p, &len);
}

/* remote = 1 reads the peer's parameters; the listener's are inherited. */
static void test_remote_params(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_distinct_server,
				.client_tp = tp_distinct_client };
	struct quic_transport_param p;
	struct conn c;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK_OK(get_tp(c.cfd, 1, &p));
	check_tp(&p, tp_distinct_server);
	CHECK_OK(get_tp(c.sfd, 1, &p));
	check_tp(&p, tp_distinct_client);
	CHECK_OK(get_tp(c.sfd, 0, &p));
	check_tp(&p, tp_distinct_server);
	CHECK_OK(get_tp(c.cfd, 0, &p));
	check_tp(&p, tp_distinct_client);
	conn_close(&c);
}

/* Our parameters cannot change once the connection started. */
static void test_params_after_connect(int family)
{
	struct quic_transport_param p;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK_OK(get_tp(c.cfd, 0, &p));
	p.max_data = 12345;
	CHECK_ERR(setsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
			     sizeof(p)), EISCONN);
	CHECK_OK(get_tp(c.sfd, 0, &p));
	p.max_data = 12345;
	CHECK_ERR(setsockopt(c.sfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p,
			     sizeof(p)), EISCONN);
	CHECK_OK(get_tp(c.cfd, 0, &p));
	CHECK(p.max_data != 12345);
	conn_close(&c);
}

static const struct conn_test tests[] = {
	{ "stream window: short count then EAGAIN, non-blocking", test_stream_window_nonblock, FAM_BOTH },
	{ "connection window: MSG_DONTWAIT short count then EAGAIN", test_conn_window_dontwait, 0 },
	{ "POLLOUT off without connection credit, on after read", test_pollout_credit, FAM_BOTH },
	{ "MSG_QUIC_STREAM_DONTWAIT: EAGAIN on a blocking socket", test_stream_dontwait_flag, 0 },
	{ "blocked writer (stream window) resumes when peer reads", test_blocked_writer_stream, FAM_BOTH },
	{ "blocked writer (connection window) resumes when peer reads", test_blocked_writer_conn, 0 },
	{ "SO_SNDTIMEO: short count, then EAGAIN after the timeout", test_sndtimeo, 0 },
	{ "STREAM_MAX_DATA event when the reader opens the window", test_max_data_event, 0 },
	{ "reset stream's unread bytes give the connection window back", test_reset_frees_conn_window, 0 },
	{ "max_streams_bidi 2: STREAM_OPEN EAGAIN, then opens after done", test_stream_limit, FAM_BOTH },
	{ "blocking STREAM_OPEN at the limit waits for MAX_STREAMS", test_stream_open_blocks, 0 },
	{ "SO_RCVBUF on the listener bounds the advertised windows", test_rcvbuf_bounds_windows, 0 },
	{ "STREAM_MAX_STREAM event when uni streams free up", test_max_streams_event, 0 },
	{ "40 streams in turn under max_streams_bidi 4", test_streams_recycled, 0 },
	{ "TRANSPORT_PARAM remote=1 reads the peer's values", test_remote_params, FAM_BOTH },
	{ "TRANSPORT_PARAM set after the handshake: EISCONN", test_params_after_connect, 0 },
};

int main(void)
{
	return conn_tests_main(tests, sizeof(tests) / sizeof(tests[0]));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The end of a connection as the socket calls see it: the peer's close()
 * (buffered data, then end of file; writes fail with EPIPE), a close with
 * an application error code and reason (ECONNRESET, the code and reason in
 * QUIC_SOCKOPT_CONNECTION_CLOSE, QUIC_EVENT_CONNECTION_CLOSE), shutdown(),
 * blocked readers and writers woken by the close, and the idle timeout
 * (ETIMEDOUT, POLLERR).
 */

#include "quic_conn.h"

static int set_close_info(int fd, uint32_t code, const char *phrase)
{
	struct quic_connection_close cc;

	memset(&cc, 0, sizeof(cc));
	cc.errcode = code;
	strncpy((char *)cc.phrase, phrase, sizeof(cc.phrase) - 1);
	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE, &cc,
			  sizeof(cc));
}

/* Set the close error code @code with the frame type @frame. */
static int set_close_frame(int fd, uint32_t code, uint8_t frame)
{
	struct quic_connection_close cc = { .errcode = code, .frame = frame };

	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE, &cc,
			  sizeof(cc));
}

/* The close code, frame type and reason the socket reports. */
static int get_close_info(int fd, struct quic_connection_close *cc)
{
	socklen_t len = sizeof(*cc);

	memset(cc, 0xff, sizeof(*cc));
	return getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE, cc,
			  &len);
}

/* Wait for the peer's CONNECTION_CLOSE to have arrived (no check). */
static void wait_closed(int fd)
{
	wait_poll(fd, POLLRDHUP, 3000);
}

/* The peer closes: what it sent before is read first, then EOF. */
static void test_peer_close_data_then_eof(int family)
{
	char buf[16];
	struct rinfo ri;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK(qsend(c.cfd, "bye", 3, -1, 0, 0) == 3);
	CHECK(wait_poll(c.sfd, POLLIN, 5000) & POLLIN);
	close(c.cfd);
	c.cfd = -1;
	wait_closed(c.sfd);
	CHECK(qrecv(c.sfd, buf, sizeof(buf), 0, &ri) == 3);
	CHECK(!memcmp(buf, "bye", 3) && ri.sid == 0);
	CHECK(qrecv(c.sfd, buf, sizeof(buf), 0, &ri) == 0);
	CHECK(!(ri.msg_flags & MSG_QUIC_STREAM_FIN));
	CHECK(qrecv(c.sfd, buf, sizeof(buf), MSG_DONTWAIT, &ri) == 0);
	conn_close(&c);
}

static void test_send_after_peer_close(int family)
{
	char buf[16];
	struct rinfo ri;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK(qsend(c.cfd, "open", 4, -1, 0, 0) == 4);
	close(c.sfd);
	c.sfd = -1;
	CHECK(qrecv(c.cfd, buf, sizeof(buf), 0, &ri) == 0);
	CHECK_ERR(qsend(c.cfd, "more", 4, 0, 0, 0), EPIPE);
	CHECK_ERR(qsend(c.cfd, "new", 3, -1, 0, 0), EPIPE);
	CHECK_ERR(send(c.cfd, "x", 1, 0), EPIPE);
	conn_close(&c);
}

/* After the peer's close, poll() wakes a reader (POLLIN or POLLHUP). */
static void test_poll_after_peer_close(int family)
{
	struct conn c;
	int ev;

	if (conn_open(&c, family))
		return;
	CHECK(!(wait_poll(c.sfd, POLLIN, 0) & (POLLIN | POLLHUP)));
	close(c.cfd);
	c.cfd = -1;
	ev = wait_poll(c.sfd, POLLIN, 5000);
	printf("# revents %#x\n", ev);
	CHECK(ev & (POLLIN | POLLHUP));
	CHECK(!(ev & POLLOUT));
	conn_close(&c);
}

/* An application error code and reason reach the peer. */
static void test_close_app_error(int family)
{
	struct quic_connection_close cc;
	char buf[16];
	struct rinfo ri;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK_OK(set_close_info(c.sfd, 0x2a, "going away"));
	close(c.sfd);
	c.sfd = -1;
	CHECK_ERR(qrecv(c.cfd, buf, sizeof(buf), 0, &ri), ECONNRESET);
	CHECK_OK(get_close_info(c.cfd, &cc));
	if (cc.errcode != 0x2a)
		printf("# errcode %#x\n", cc.errcode);
	CHECK(cc.errcode == 0x2a);
	cc.phrase[sizeof(cc.phrase) - 1] = 0;
	if (strcmp((char *)cc.phrase, "going away"))
		printf("# phrase '%s'\n", cc.phrase);
	CHECK(!strcmp((char *)cc.phrase, "going away"));
	CHECK_ERR(qsend(c.cfd, "x", 1, -1, 0, 0), EPIPE);
	conn_close(&c);
}

/*
 * The frame type of QUIC_SOCKOPT_CONNECTION_CLOSE goes out with a
 * CRYPTO_ERROR code (0x100 to 0x1ff: a transport close, RFC 9000 §19.19);
 * an application close (0x1d) has no frame type, so one set with another
 * code on an established connection is EINVAL.
 */
static void test_close_frame_type(int family)
{
	struct quic_connection_close cc;
	char buf[16];
	struct rinfo ri;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK_ERR(set_close_frame(c.cfd, 0x2a, 0x08), EINVAL);
	/* Not a CRYPTO_ERROR, though bit 0x100 is set. */
	CHECK_ERR(set_close_frame(c.cfd, 0x32a, 0x08), EINVAL);
	/* CRYPTO_ERROR of unexpected_message, found in a CRYPTO frame. */
	CHECK_OK(set_close_frame(c.cfd, QUIC_TRANSPORT_ERROR_CRYPTO + 0x0a,
				 0x06));
	shutdown(c.cfd, SHUT_RDWR);
	CHECK_ERR(qrecv(c.sfd, buf, sizeof(buf), 0, &ri), ECONNRESET);
	CHECK_OK(get_close_info(c.sfd, &cc));
	if (cc.errcode != 0x10a || cc.frame != 0x06)
		printf("# errcode %#x frame %#x\n", cc.errcode, cc.frame);
	CHECK(cc.errcode == 0x10a && cc.frame == 0x06);
	conn_close(&c);
}

/* QUIC_EVENT_CONNECTION_CLOSE comes first, then the error. */
static void test_close_event(int family)
{
	union quic_event ev;
	char buf[16];
	struct rinfo ri;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK_OK(enable_event(c.cfd, QUIC_EVENT_CONNECTION_CLOSE));
	CHECK_OK(set_close_info(c.sfd, 0x2b, "bye now"));
	close(c.sfd);
	c.sfd = -1;
	if (!recv_event(c.cfd, QUIC_EVENT_CONNECTION_CLOSE, &ev)) {
		CHECK(ev.close.errcode == 0x2b);
		ev.close.phrase[sizeof(ev.close.phrase) - 1] = 0;
		CHECK(!strcmp((char *)ev.close.phrase, "bye now"));
	}
	CHECK_ERR(qrecv(c.cfd, buf, sizeof(buf), 0, &ri), ECONNRESET);
	conn_close(&c);
}

/* A close without error: the event with code 0, then end of file. */
static void test_close_event_no_error(int family)
{
	union quic_event ev;
	char buf[16];
	struct rinfo ri;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK_OK(enable_event(c.cfd, QUIC_EVENT_CONNECTION_CLOSE));
	close(c.sfd);
	c.sfd = -1;
	if (!recv_event(c.cfd, QUIC_EVENT_CONNECTION_CLOSE, &ev))
		CHECK(ev.close.errcode == 0);
	CHECK(qrecv(c.cfd, buf, sizeof(buf), 0, &ri) == 0);
	conn_close(&c);
}

/* shutdown(SHUT_RDWR) closes the connection, the socket stays readable. */
static void test_shutdown_readable(int family)
{
	char buf[16];
	struct rinfo ri;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK(qsend(c.cfd, "abc", 3, -1, MSG_QUIC_STREAM_FIN, 0) == 3);
	CHECK(wait_poll(c.sfd, POLLIN, 5000) & POLLIN);
	CHECK_OK(shutdown(c.sfd, SHUT_RDWR));
	CHECK(qrecv(c.sfd, buf, sizeof(buf), 0, &ri) == 3);
	CHECK(!memcmp(buf, "abc", 3) && ri.sid == 0);
	CHECK(ri.msg_flags & MSG_QUIC_STREAM_FIN);
	CHECK(qrecv(c.sfd, buf, sizeof(buf), 0, &ri) == 0);
	CHECK_ERR(qsend(c.sfd, "x", 1, -1, 0, 0), EPIPE);
	/* The peer sees the connection end without an error. */
	CHECK(qrecv(c.cfd, buf, sizeof(buf), 0, &ri) == 0);
	CHECK_ERR(qsend(c.cfd, "x", 1, -1, 0, 0), EPIPE);
	CHECK_ERR(shutdown(c.sfd, SHUT_RDWR), ENOTCONN);
	conn_close(&c);
}

/* shutdown(SHUT_WR) too ends the whole connection (no half-close). */
static void test_shutdown_wr(int family)
{
	char buf[16];
	struct rinfo ri;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK_OK(shutdown(c.cfd, SHUT_WR));
	CHECK_ERR(qsend(c.cfd, "x", 1, -1, 0, 0), EPIPE);
	CHECK(qrecv(c.sfd, buf, sizeof(buf), 0, &ri) == 0);
	CHECK(qrecv(c.cfd, buf, sizeof(buf), 0, &ri) == 0);
	conn_close(&c);
}

/* shutdown() with an error code set: the peer gets ECONNRESET. */
static void test_shutdown_app_error(int family)
{
	struct quic_connection_close cc;
	char buf[16];
	struct rinfo ri;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK_OK(set_close_info(c.cfd, 0x99, "shut"));
	CHECK_OK(shutdown(c.cfd, SHUT_RDWR));
	CHECK_ERR(qrecv(c.sfd, buf, sizeof(buf), 0, &ri), ECONNRESET);
	CHECK_OK(get_close_info(c.sfd, &cc));
	CHECK(cc.errcode == 0x99);
	conn_close(&c);
}

struct blocked {
	int fd;
	int write;		/* 1: sendmsg, 0: recvmsg */
	ssize_t ret;
	int err;
	long long ms;		/* how long the call took */
};

static void *blocked_call(void *p)
{
	struct blocked *b = p;
	static char buf[256 * 1024];
	long long t0 = now_ms();
	struct rinfo ri;

	if (b->write)
		b->ret = qsend(b->fd, buf, sizeof(buf), -1, 0, 0);
	else
		b->ret = qrecv(b->fd, buf, sizeof(buf), 0, &ri);
	b->err = errno;
	b->ms = now_ms() - t0;
	return NULL;
}

/* A reader blocked in recvmsg() returns 0 when the peer closes. */
static void test_blocked_reader_woken(int family)
{
	struct blocked b = { .write = 0 };
	struct conn c;
	pthread_t th;

	if (conn_open(&c, family))
		return;
	b.fd = c.cfd;
	pthread_create(&th, NULL, blocked_call, &b);
	sleep_ms(300);
	close(c.sfd);
	c.sfd = -1;
	pthread_join(th, NULL);
	if (b.ret)
		printf("# recvmsg %zd (%s) after %lld ms\n", b.ret,
		       strerror(b.err), b.ms);
	CHECK(b.ret == 0);
	CHECK(b.ms < 5000);	/* not SO_RCVTIMEO */
	conn_close(&c);
}

static void tp_small_window(struct quic_transport_param *p)
{
	p->max_stream_data_bidi_remote = 65536;
}

/* A writer blocked on flow control returns when the peer closes. */
static void test_blocked_writer_woken(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_small_window };
	struct blocked b = { .write = 1 };
	struct conn c;
	pthread_t th;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	b.fd = c.cfd;
	pthread_create(&th, NULL, blocked_call, &b);
	CHECK(wait_poll(c.sfd, POLLIN, 5000) & POLLIN);
	sleep_ms(300);
	close(c.sfd);
	c.sfd = -1;
	pthread_join(th, NULL);
	printf("# sendmsg %zd (%s) after %lld ms\n", b.ret,
	       b.ret < 0 ? strerror(b.err) : "", b.ms);
	/* The bytes taken before, or EPIPE; not EAGAIN after SO_SNDTIMEO. */
	CHECK(b.ret == 65536 || (b.ret == -1 && b.err == EPIPE));
	CHECK(b.ms < 5000);
	CHECK_ERR(qsend(c.cfd, "x", 1, 0, 0, 0), EPIPE);
	conn_close(&c);
}

/*
 * close() with megabytes written and not yet acknowledged: the peer reads
 * a prefix of what was written, then the end; nothing hangs, nothing leaks
 * (the guest log is checked for warnings after the run).
 */
static void test_close_in_flight(int family)
{
	size_t chunk = 256 * 1024, sent = 0, got = 0;
	uint8_t *buf = malloc(chunk);
	long long bad = -1;
	struct rinfo ri;
	struct conn c;
	ssize_t n;

	if (conn_open(&c, family))
		goto out;
	CHECK_OK(fcntl(c.cfd, F_SETFL, fcntl(c.cfd, F_GETFL) | O_NONBLOCK));
	while (sent < 16 << 20) {
		pattern_fill(buf, 0, sent, chunk);
		n = qsend(c.cfd, buf, chunk, sent ? 0 : -1, 0, 0);
		if (n <= 0)
			break;
		sent += n;
	}
	close(c.cfd);
	c.cfd = -1;
	for (;;) {
		n = qrecv(c.sfd, buf, chunk, 0, &ri);
		if (n <= 0)
			break;
		if (bad < 0)
			bad = pattern_check(buf, 0, got, n);
		got += n;
	}
	printf("# wrote %zu, peer read %zu, then %zd (%s)\n", sent, got, n,
	       n < 0 ? strerror(errno) : "EOF");
	CHECK(sent > 0);
	CHECK(got <= sent);
	CHECK(bad < 0);
	CHECK(n == 0);
out:
	conn_close(&c);
	free(buf);
}

static void tp_idle_1s(struct quic_transport_param *p)
{
	p->max_idle_timeout = 1000000;	/* microseconds */
}

/* Nothing happens for the idle timeout: the next call fails, ETIMEDOUT. */
static void test_idle_timeout(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_idle_1s, .client_tp = tp_idle_1s };
	char buf[16];
	struct rinfo ri;
	struct conn c;
	long long t;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	t = now_ms();
	/* A reader blocked in recvmsg() (server) ... */
	CHECK_ERR(qrecv(c.sfd, buf, sizeof(buf), 0, &ri), ETIMEDOUT);
	t = now_ms() - t;
	printf("# ETIMEDOUT after %lld ms\n", t);
	CHECK(t >= 500 && t < 4500);
	/* ... and the next call on the other end (client). */
	sleep_ms(500);
	CHECK_ERR(qsend(c.cfd, "x", 1, -1, 0, 0), ETIMEDOUT);
	/* The error was reported; the connection is gone. */
	CHECK_ERR(qsend(c.cfd, "x", 1, -1, 0, 0), EPIPE);
	conn_close(&c);
}

static void config_keepalive(struct quic_config *c)
{
	c->keepalive_probe_interval = 300000;	/* microseconds */
}

/*
 * The client's keepalive PINGs (every 300 ms of silence) keep a connection
 * with a 1 s idle timeout open for 3 s of nothing from the application.
 */
static void test_keepalive(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_idle_1s, .client_tp = tp_idle_1s,
				.client_config = config_keepalive };
	char buf[16];
	struct rinfo ri;
	struct conn c;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	/* The server's reader waits 3 s and times out itself, not the link. */
	CHECK_OK(set_timeout_ms(c.sfd, SO_RCVTIMEO, 3000));
	CHECK_ERR(qrecv(c.sfd, buf, sizeof(buf), 0, &ri), EAGAIN);
	CHECK(qsend(c.cfd, "ping", 4, C_BIDI(0), MSG_QUIC_STREAM_FIN, 0) == 4);
	CHECK(qrecv(c.sfd, buf, sizeof(buf), 0, &ri) == 4);
	CHECK(ri.sid == C_BIDI(0) && !memcmp(buf, "ping", 4));
	conn_close(&c);
}

struct poller {
	int fd;
	int first;	/* revents of the wake-up */
	int again;	/* revents right after */
	long long ms;
};

static void *idle_poller(void *p)
{
	struct poller *pl = p;
	long long t0 = now_ms();

	pl->first = wait_poll(pl->fd, POLLIN, 5000);
	pl->ms = now_ms() - t0;
	pl->again = wait_poll(pl->fd, POLLIN, 0);
	return NULL;
}

/*
 * Pollers are woken by the idle timeout with POLLERR, not with POLLHUP
 * alone (TCP sets the error before the state).  The wake-up races with
 * the timer that sets the error, so NPOLL connections time out at once,
 * each with a poller, and each wake-up must show POLLERR.
 */
#define NPOLL	12

static void test_idle_timeout_pollerr(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_idle_1s, .client_tp = tp_idle_1s };
	struct poller pl[NPOLL];
	pthread_t th[NPOLL];
	struct conn c[NPOLL];
	int i, n, bad = 0;

	for (n = 0; n < NPOLL; n++) {
		if (conn_open_cfg(&c[n], family, &cfg))
			break;
		pl[n].fd = c[n].sfd;
		pthread_create(&th[n], NULL, idle_poller, &pl[n]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		if (!(pl[i].first & POLLERR) || pl[i].ms < 500 ||
		    pl[i].ms >= 4500 || !(pl[i].again & POLLERR)) {
			printf("# connection %d: revents %#x after %lld ms, then %#x\n",
			       i, pl[i].first, pl[i].ms, pl[i].again);
			bad++;
		}
		conn_close(&c[i]);
	}
	CHECK(n == NPOLL);
	CHECK(bad == 0);
}

static void tp_idle_2s(struct quic_transport_param *p)
{
	p->max_idle_timeout = 2000000;
}

/* Traffic keeps the connection alive past the idle timeout. */
static void test_idle_timeout_traffic(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_idle_2s, .client_tp = tp_idle_2s };
	long long t0;
	char buf[16];
	struct rinfo ri;
	struct conn c;
	int i = 0;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK(qsend(c.cfd, "p", 1, -1, 0, 0) == 1);
	t0 = now_ms();
	while (now_ms() - t0 < 3500 && !tap_failed_checks) {
		CHECK(qrecv(c.sfd, buf, sizeof(buf), 0, &ri) == 1);
		CHECK(qsend(c.sfd, "q", 1, 0, 0, 0) == 1);
		CHECK(qrecv(c.cfd, buf, sizeof(buf), 0, &ri) == 1);
		sleep_ms(200);
		CHECK(qsend(c.cfd, "p", 1, 0, 0, 0) == 1);
		i++;
	}
	printf("# %d round trips\n", i);
	CHECK(!(wait_poll(c.cfd, POLLIN, 0) & POLLERR));
	conn_close(&c);
}

static const struct conn_test tests[] = {
	{ "peer close: buffered data, then EOF", test_peer_close_data_then_eof, FAM_BOTH },
	{ "peer close: sendmsg fails with EPIPE", test_send_after_peer_close, 0 },
	{ "peer close: poll wakes with POLLIN or POLLHUP", test_poll_after_peer_close, 0 },
	{ "CONNECTION_CLOSE errcode/phrase: ECONNRESET, getsockopt", test_close_app_error, FAM_BOTH },
	{ "CONNECTION_CLOSE frame type: shutdown() sends it with a CRYPTO_ERROR, EINVAL with an application code",
	  test_close_frame_type, FAM_BOTH },
	{ "QUIC_EVENT_CONNECTION_CLOSE, then ECONNRESET", test_close_event, 0 },
	{ "QUIC_EVENT_CONNECTION_CLOSE errcode 0, then EOF", test_close_event_no_error, 0 },
	{ "shutdown(SHUT_RDWR): closed, still readable", test_shutdown_readable, FAM_BOTH },
	{ "shutdown(SHUT_WR) ends the connection", test_shutdown_wr, 0 },
	{ "shutdown with CONNECTION_CLOSE errcode: peer ECONNRESET", test_shutdown_app_error, 0 },
	{ "blocked recvmsg returns 0 on peer close", test_blocked_reader_woken, 0 },
	{ "sendmsg blocked on flow control returns on peer close", test_blocked_writer_woken, 0 },
	{ "close() with megabytes in flight: peer reads a prefix, EOF", test_close_in_flight, FAM_BOTH },
	{ "idle timeout: ETIMEDOUT on both ends, then EPIPE", test_idle_timeout, FAM_BOTH },
	{ "keepalive_probe_interval keeps an idle connection past its idle timeout",
	  test_keepalive, FAM_BOTH },
	{ "idle timeout: poll wakes with POLLERR", test_idle_timeout_pollerr, 0 },
	{ "idle timeout does not fire while traffic flows", test_idle_timeout_traffic, 0 },
};

int main(void)
{
	return conn_tests_main(tests, sizeof(tests) / sizeof(tests[0]));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Stream resets and write errors over an established connection:
 * QUIC_SOCKOPT_STREAM_RESET and QUIC_SOCKOPT_STREAM_STOP_SENDING with the
 * QUIC_EVENT_STREAM_UPDATE events they cause, writers that learn of them
 * by EPIPE (also while blocked), the stream-update event for data all
 * acknowledged, and the errnos of writing where one cannot: after FIN or
 * reset (EPIPE), on a peer's unidirectional or unopened stream, or with a
 * malformed cmsg (EINVAL).
 */

#include "quic_conn.h"

/* Make sure the server has stream 0 open by reading its first bytes. */
static int open_client_stream(struct conn *c)
{
	char buf[16];
	struct rinfo ri;

	CHECK(qsend(c->cfd, "abc", 3, -1, 0, 0) == 3);
	CHECK(qrecv(c->sfd, buf, sizeof(buf), 0, &ri) == 3);
	CHECK(ri.sid == 0);
	return tap_failed_checks ? -1 : 0;
}

/* Events turned on on the listener are on for the sockets it accepts. */
static void test_listener_events_inherited(int family)
{
	struct conn_cfg cfg = { .server_events = { QUIC_EVENT_STREAM_UPDATE } };
	struct quic_errinfo ei = { .stream_id = 0, .errcode = 3 };
	struct quic_event_option eo = { .type = QUIC_EVENT_STREAM_UPDATE };
	socklen_t len = sizeof(eo);
	union quic_event ev;
	struct conn c;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	CHECK_OK(getsockopt(c.sfd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &eo, &len));
	CHECK(eo.on == 1);
	if (open_client_stream(&c))
		goto out;
	CHECK_OK(setsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_RESET, &ei,
			    sizeof(ei)));
	if (!recv_event(c.sfd, QUIC_EVENT_STREAM_UPDATE, &ev)) {
		CHECK(ev.update.id == 0);
		CHECK(ev.update.state == QUIC_STREAM_RECV_STATE_RESET_RECVD);
	}
out:
	conn_close(&c);
}

/* RESET_STREAM: the peer learns of it from QUIC_EVENT_STREAM_UPDATE. */
static void test_reset_event(int family)
{
	struct quic_errinfo ei = { .stream_id = 0, .errcode = 0x1234 };
	union quic_event ev;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK_OK(enable_event(c.sfd, QUIC_EVENT_STREAM_UPDATE));
	if (open_client_stream(&c))
		goto out;
	CHECK_OK(setsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_RESET, &ei,
			    sizeof(ei)));
	if (!recv_event(c.sfd, QUIC_EVENT_STREAM_UPDATE, &ev)) {
		CHECK(ev.update.id == 0);
		CHECK(ev.update.state == QUIC_STREAM_RECV_STATE_RESET_RECVD);
		CHECK(ev.update.errcode == 0x1234);
		CHECK(ev.update.finalsz == 3);
	}
out:
	conn_close(&c);
}

static void test_send_after_reset(int family)
{
	struct quic_errinfo ei = { .stream_id = 0, .errcode = 7 };
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK(qsend(c.cfd, "abc", 3, -1, 0, 0) == 3);
	CHECK_OK(setsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_RESET, &ei,
			    sizeof(ei)));
	CHECK_ERR(qsend(c.cfd, "def", 3, 0, 0, 0), EPIPE);
	CHECK_ERR(qsend(c.cfd, NULL, 0, 0, MSG_QUIC_STREAM_FIN, 0), EPIPE);
	/* Other streams are not affected. */
	CHECK(qsend(c.cfd, "ghi", 3, -1, MSG_QUIC_STREAM_FIN, 0) == 3);
	conn_close(&c);
}

/* STOP_SENDING resets the peer's sending side with our code. */
static void test_stop_sending_events(int family)
{
	struct quic_errinfo ei = { .stream_id = 0, .errcode = 0x77 };
	union quic_event ev;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK_OK(enable_event(c.cfd, QUIC_EVENT_STREAM_UPDATE));
	CHECK_OK(enable_event(c.sfd, QUIC_EVENT_STREAM_UPDATE));
	if (open_client_stream(&c))
		goto out;
	CHECK_OK(setsockopt(c.sfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_STOP_SENDING,
			    &ei, sizeof(ei)));
	/* The sender resets the stream with the code of STOP_SENDING ... */
	if (!recv_event(c.cfd, QUIC_EVENT_STREAM_UPDATE, &ev)) {
		CHECK(ev.update.id == 0);
		CHECK(ev.update.state == QUIC_STREAM_SEND_STATE_RESET_SENT);
		CHECK(ev.update.errcode == 0x77);
	}
	CHECK_ERR(qsend(c.cfd, "more", 4, 0, 0, 0), EPIPE);
	/* ... and the receiver gets that RESET_STREAM. */
	if (!recv_event(c.sfd, QUIC_EVENT_STREAM_UPDATE, &ev)) {
		CHECK(ev.update.id == 0);
		CHECK(ev.update.state == QUIC_STREAM_RECV_STATE_RESET_RECVD);
		CHECK(ev.update.errcode == 0x77);
		CHECK(ev.update.finalsz == 3);
	}
out:
	conn_close(&c);
}

/* Without events, the writer learns of STOP_SENDING by EPIPE. */
static void test_stop_sending_epipe(int family)
{
	struct quic_errinfo ei = { .stream_id = 0, .errcode = 9 };
	long long t0;
	struct conn c;
	ssize_t n;

	if (conn_open(&c, family))
		return;
	if (open_client_stream(&c))
		goto out;
	CHECK_OK(setsockopt(c.sfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_STOP_SENDING,
			    &ei, sizeof(ei)));
	t0 = now_ms();
	do {
		n = qsend(c.cfd, "x", 1, 0, 0, 0);
		if (n == 1)
			sleep_ms(20);
	} while (n == 1 && now_ms() - t0 < 5000);
	CHECK(n == -1 && errno == EPIPE);
	if (n != -1 || errno != EPIPE)
		printf("# sendmsg: %zd (%s)\n", n, strerror(errno));
out:
	conn_close(&c);
}

static void test_send_after_fin(int family)
{
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK(qsend(c.cfd, "end", 3, -1, MSG_QUIC_STREAM_FIN, 0) == 3);
	CHECK_ERR(qsend(c.cfd, "more", 4, 0, 0, 0), EPIPE);
	CHECK_ERR(qsend(c.cfd, NULL, 0, 0, MSG_QUIC_STREAM_FIN, 0), EPIPE);
	/* Also through libquic, which returns -1 with errno set. */
	CHECK_ERR(quic_sendmsg(c.cfd, "more", 4, 0, 0), EPIPE);
	conn_close(&c);
}

/* A peer's unidirectional stream is receive-only for us. */
static void test_send_on_peer_uni(int family)
{
	char buf[16];
	struct rinfo ri;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK(qsend(c.sfd, "uni", 3, -1, MSG_QUIC_STREAM_UNI, 0) == 3);
	CHECK(qrecv(c.cfd, buf, sizeof(buf), 0, &ri) == 3);
	CHECK(ri.sid == S_UNI(0));
	CHECK_ERR(qsend(c.cfd, "back", 4, S_UNI(0), 0, 0), EINVAL);
	conn_close(&c);
}

/* Peer streams the peer has not opened cannot be written to. */
static void test_send_on_unopened_peer_stream(int family)
{
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK_ERR(qsend(c.cfd, "x", 1, S_BIDI(0), 0, 0), EINVAL);
	CHECK_ERR(qsend(c.cfd, "x", 1, S_BIDI(5), 0, 0), EINVAL);
	CHECK_ERR(qsend(c.cfd, "x", 1, S_UNI(0), 0, 0), EINVAL);
	CHECK_ERR(qsend(c.sfd, "x", 1, C_BIDI(0), 0, 0), EINVAL);
	/* The connection is fine afterwards. */
	CHECK(qsend(c.cfd, "ok", 2, -1, MSG_QUIC_STREAM_FIN, 0) == 2);
	conn_close(&c);
}

/* QUIC_EVENT_STREAM_UPDATE when all of a stream's data is acknowledged. */
static void test_all_acked_event(int family)
{
	union quic_event ev;
	char buf[16];
	struct rinfo ri;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK_OK(enable_event(c.cfd, QUIC_EVENT_STREAM_UPDATE));
	CHECK(qsend(c.cfd, "done", 4, -1,
		    MSG_QUIC_STREAM_UNI | MSG_QUIC_STREAM_FIN, 0) == 4);
	CHECK(qrecv(c.sfd, buf, sizeof(buf), 0, &ri) == 4);
	if (!recv_event(c.cfd, QUIC_EVENT_STREAM_UPDATE, &ev)) {
		CHECK(ev.update.id == C_UNI(0));
		CHECK(ev.update.state == QUIC_STREAM_SEND_STATE_RECVD);
	}
	conn_close(&c);
}

/* Malformed or unknown SOL_QUIC cmsgs are refused. */
static void test_bad_cmsg(int family)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct quic_stream_info))];
		struct cmsghdr align;
	} cbuf;
	struct quic_stream_info info = { .stream_id = -1 };
	struct iovec iov = { "x", 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf),
	};
	struct cmsghdr *cmsg;
	struct conn c;
	char buf[16];

	if (conn_open(&c, family))
		return;
	memset(&cbuf, 0, sizeof(cbuf));
	cmsg = CMSG_FIRSTHDR(&mh);
	cmsg->cmsg_level = SOL_QUIC;
	cmsg->cmsg_type = QUIC_STREAM_INFO;
	cmsg->cmsg_len = CMSG_LEN(sizeof(info.stream_id));	/* short */
	memcpy(CMSG_DATA(cmsg), &info, sizeof(info.stream_id));
	mh.msg_controllen = CMSG_SPACE(sizeof(info.stream_id));
	CHECK_ERR(sendmsg(c.cfd, &mh, 0), EINVAL);
	cmsg->cmsg_type = 77;		/* no such cmsg */
	cmsg->cmsg_len = CMSG_LEN(sizeof(info));
	mh.msg_controllen = sizeof(cbuf.buf);
	CHECK_ERR(sendmsg(c.cfd, &mh, 0), EINVAL);
	/* Nothing was sent: the first good send opens stream 0. */
	CHECK(qsend(c.cfd, "ok", 2, -1, MSG_QUIC_STREAM_FIN, 0) == 2);
	CHECK(recv_stream_fin(c.sfd, 0, buf, sizeof(buf)) == 2);
	conn_close(&c);
}

/* RESET_STREAM needs a send side, STOP_SENDING a receive side. */
static void test_reset_stop_wrong_stream(int family)
{
	struct quic_errinfo ei = { .errcode = 1 };
	char buf[16];
	struct rinfo ri;
	struct conn c;

	if (conn_open(&c, family))
		return;
	CHECK(qsend(c.sfd, "u", 1, -1, MSG_QUIC_STREAM_UNI, 0) == 1);
	CHECK(qrecv(c.cfd, buf, sizeof(buf), 0, &ri) == 1 && ri.sid == S_UNI(0));
	CHECK(qsend(c.cfd, "v", 1, -1, MSG_QUIC_STREAM_UNI, 0) == 1);
	ei.stream_id = S_UNI(0);	/* the peer's uni: receive only */
	CHECK_ERR(setsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_RESET, &ei,
			     sizeof(ei)), EINVAL);
	ei.stream_id = C_UNI(0);	/* our uni: send only */
	CHECK_ERR(setsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_STOP_SENDING,
			     &ei, sizeof(ei)), EINVAL);
	ei.stream_id = C_BIDI(9);	/* not open */
	CHECK_ERR(setsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_RESET, &ei,
			     sizeof(ei)), EINVAL);
	CHECK_ERR(setsockopt(c.cfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_STOP_SENDING,
			     &ei, sizeof(ei)), EINVAL);
	conn_close(&c);
}

static void tp_small_window(struct quic_transport_param *p)
{
	p->max_stream_data_bidi_remote = 65536;
}

struct big_writer {
	int fd;
	ssize_t ret;
	int err;
};

static void *write_big(void *p)
{
	struct big_writer *w = p;
	static char buf[256 * 1024];

	w->ret = qsend(w->fd, buf, sizeof(buf), 0, 0, 0);
	w->err = errno;
	return NULL;
}

/* STOP_SENDING wakes a writer blocked on the stream's credit. */
static void test_stop_sending_wakes_writer(int family)
{
	struct conn_cfg cfg = { .server_tp = tp_small_window };
	struct quic_errinfo ei = { .stream_id = 0, .errcode = 5 };
	struct big_writer w;
	struct conn c;
	pthread_t th;
	long long t;

	if (conn_open_cfg(&c, family, &cfg))
		return;
	if (open_client_stream(&c))
		goto out;
	w.fd = c.cfd;
	t = now_ms();
	pthread_create(&th, NULL, write_big, &w);
	sleep_ms(300);
	CHECK_OK(setsockopt(c.sfd, SOL_QUIC, QUIC_SOCKOPT_STREAM_STOP_SENDING,
			    &ei, sizeof(ei)));
	pthread_join(th, NULL);
	t = now_ms() - t;
	printf("# sendmsg %zd (%s) after %lld ms\n", w.ret,
	       w.ret < 0 ? strerror(w.err) : "", t);
	/* What was taken before (the window less "abc"), or EPIPE. */
	CHECK(w.ret == 65536 - 3 || (w.ret == -1 && w.err == EPIPE));
	CHECK(t < 5000);
	CHECK_ERR(qsend(c.cfd, "x", 1, 0, 0, 0), EPIPE);
out:
	conn_close(&c);
}

static const struct conn_test tests[] = {
	{ "STREAM_RESET: peer gets STREAM_UPDATE RESET_RECVD", test_reset_event, FAM_BOTH },
	{ "sendmsg on a stream we reset: EPIPE", test_send_after_reset, 0 },
	{ "events enabled on the listener apply to accepted sockets", test_listener_events_inherited, 0 },
	{ "STOP_SENDING: RESET_SENT on the writer, RESET_RECVD back", test_stop_sending_events, 0 },
	{ "STOP_SENDING: the writer's sendmsg fails with EPIPE", test_stop_sending_epipe, 0 },
	{ "STOP_SENDING wakes a writer blocked on credit", test_stop_sending_wakes_writer, 0 },
	{ "RESET/STOP_SENDING on a stream without that side: EINVAL", test_reset_stop_wrong_stream, 0 },
	{ "malformed or unknown SOL_QUIC cmsg: EINVAL", test_bad_cmsg, 0 },
	{ "sendmsg after FIN: EPIPE", test_send_after_fin, 0 },
	{ "sendmsg on a peer uni stream: EINVAL", test_send_on_peer_uni, 0 },
	{ "sendmsg on a peer stream not opened: EINVAL", test_send_on_unopened_peer_stream, 0 },
	{ "STREAM_UPDATE SEND_STATE_RECVD when all data is acked", test_all_acked_event, 0 },
};

int main(void)
{
	return conn_tests_main(tests, sizeof(tests) / sizeof(tests[0]));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * compat_events: an event-driven client that turns on every event of the
 * draft (QUIC_EVENT_STREAM_UPDATE .. QUIC_EVENT_NEW_SESSION_TICKET) and
 * checks that each one it could turn on fires, with a sane payload.  The
 * events a module refuses must be refused with EOPNOTSUPP (what quic(7)
 * documents for the events of features not built yet), never accepted and
 * left silent.  TAP on stdout.
 *
 *   compat_events --port PORT --cert CERT --key KEY
 *
 * It forks its own server on 127.0.0.1:PORT: the server allows 4
 * bidirectional streams and 64 KiB per stream, so the client's traffic
 * needs MAX_STREAMS and MAX_STREAM_DATA; the client migrates to 127.0.0.2;
 * then the server updates its keys, and closes with application error
 * 0x1234 and the phrase "bye".
 */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include "common.h"

#define ALPN		"compat-events"
#define STREAMS		8		/* > the server's 4: MAX_STREAMS */
#define BIG		(512 * 1024)	/* > 64 KiB: MAX_STREAM_DATA */
#define CLOSE_CODE	0x1234

static const char *cert, *key;
static int port;

static void server(int lfd)
{
	struct quic_connection_close cl = { .errcode = CLOSE_CODE };
	static char buf[1 << 20];
	int fd, i, ret;

	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept: %s", strerror(errno));
	ret = quic_server_handshake(fd, key, cert, ALPN);
	if (ret)
		die("server handshake: %s", strerror(-ret));
	/* Stream 0: BIG bytes, then one small request per stream. */
	for (i = 0; i <= STREAMS; i++) {
		int64_t sid;
		ssize_t n = read_stream(fd, buf, sizeof(buf), &sid);

		if (n < 0)
			die("server recv: %s", strerror(errno));
		if (quic_sendmsg(fd, "ok", 2, sid, MSG_QUIC_STREAM_FIN) < 0)
			die("server send: %s", strerror(errno));
	}
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_KEY_UPDATE, NULL, 0) < 0)
		die("server key update: %s", strerror(errno));
	/* A last exchange in the new keys, then the close. */
	{
		int64_t sid;

		if (read_stream(fd, buf, sizeof(buf), &sid) < 0 ||
		    quic_sendmsg(fd, "ok", 2, sid, MSG_QUIC_STREAM_FIN) < 0)
			die("server last exchange: %s", strerror(errno));
	}
	strcpy((char *)cl.phrase, "bye");
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE, &cl,
		       sizeof(cl)) < 0)
		die("server close code: %s", strerror(errno));
	/* close() sends the CONNECTION_CLOSE once "ok" is acknowledged. */
	close(fd);
	exit(0);
}

static int tap_n;

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static int seen[QUIC_EVENT_MAX];
static struct quic_connection_close close_ev;

/* Read the reply of stream @want ("ok" and FIN), counting events. */
/*
 * QUIC_EVENT_CONNECTION_MIGRATION: the client moves to 127.0.0.2 (any
 * port).  EAGAIN until the server's spare connection IDs have arrived.
 */
static void migrate(int fd)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	int tries;

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1);
	for (tries = 0; tries < 500; tries++) {
		if (!setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_MIGRATION,
				&to, sizeof(to)))
			return;
		if (errno != EAGAIN && errno != EBUSY)
			break;
		usleep(10000);
	}
	die("migration: %s", strerror(errno));
}

static void read_reply(int fd, int64_t want)
{
	char buf[4096];
	size_t got = 0;

	for (;;) {
		uint32_t flags = 0;
		int64_t sid = -1;
		ssize_t n = quic_recvmsg(fd, buf, sizeof(buf), &sid, &flags);

		if (n < 0)
			die("client recv: %s", strerror(errno));
		if (flags & MSG_QUIC_NOTIFICATION) {
			union quic_event *ev = (void *)&buf[1];

			if (n < 1 || buf[0] <= 0 || buf[0] >= QUIC_EVENT_MAX)
				die("bad event of %zd bytes, type %d", n, buf[0]);
			seen[(int)buf[0]]++;
			if (buf[0] == QUIC_EVENT_CONNECTION_CLOSE &&
			    n >= 1 + (ssize_t)sizeof(close_ev))
				memcpy(&close_ev, ev, sizeof(close_ev));
			if (buf[0] == QUIC_EVENT_CONNECTION_CLOSE)
				return;
			continue;
		}
		if (n == 0 && !(flags & MSG_QUIC_STREAM_FIN))
			return;		/* the connection ended */
		if (sid != want)
			die("data of stream %lld, expected %lld",
			    (long long)sid, (long long)want);
		got += n;
		if (flags & MSG_QUIC_STREAM_FIN)
			break;
	}
	if (got != 2)
		die("reply of %zu bytes", got);
}

int main(int argc, char **argv)
{
	struct quic_transport_param tp;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	static char big[BIG];
	int i, lfd, fd, ret, status, on[QUIC_EVENT_MAX] = {};
	int64_t sid;
	pid_t pid;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--port"))
			port = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--cert"))
			cert = argv[i + 1];
		else if (!strcmp(argv[i], "--key"))
			key = argv[i + 1];
		else
			die("unknown option %s", argv[i]);
	}
	if (i != argc || !port || !cert || !key)
		die("usage: compat_events --port PORT --cert CERT --key KEY");
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	alarm(120);	/* a stall fails the test rather than hanging it */

	lfd = socket(AF_INET, SOCK_STREAM, IPPROTO_QUIC);
	if (lfd < 0)
		die("socket: %s", strerror(errno));
	/* Only the fields that matter: zeros keep their values. */
	memset(&tp, 0, sizeof(tp));
	tp.max_streams_bidi = 4;
	tp.max_stream_data_bidi_remote = 64 * 1024;
	if (setsockopt(lfd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &tp,
		       sizeof(tp)) < 0)
		die("server transport params: %s", strerror(errno));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(lfd, 4) < 0)
		die("listen: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid)
		server(lfd);
	close(lfd);

	printf("TAP version 13\n");
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_QUIC);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	for (i = QUIC_EVENT_NONE + 1; i < QUIC_EVENT_MAX; i++) {
		struct quic_event_option ev = { .type = i, .on = 1 };
		socklen_t len = sizeof(ev);

		if (!setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, sizeof(ev))) {
			ev.on = 0;
			ok(!getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, &len) &&
			   ev.on == 1, "event %d turns on and reads back on", i);
			on[i] = 1;
		} else {
			ok(errno == EOPNOTSUPP,
			   "event %d refused with EOPNOTSUPP (%s)", i,
			   strerrorname_np(errno) ?: "?");
		}
	}
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		die("connect: %s", strerror(errno));
	ret = quic_client_handshake(fd, NULL, NULL, ALPN);
	if (ret)
		die("client handshake: %s", strerror(-ret));

	memset(big, 'e', sizeof(big));
	if (quic_sendmsg(fd, big, sizeof(big), -1,
			 MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN) != sizeof(big))
		die("client send big: %s", strerror(errno));
	read_reply(fd, 0);
	if (on[QUIC_EVENT_CONNECTION_MIGRATION])
		migrate(fd);
	for (i = 1; i <= STREAMS; i++) {
		sid = 4 * i;
		if (quic_sendmsg(fd, "hi", 2, sid,
				 MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN) != 2)
			die("client send on stream %lld: %s", (long long)sid,
			    strerror(errno));
		read_reply(fd, sid);
	}
	sid = 4 * (STREAMS + 1);
	if (quic_sendmsg(fd, "hi", 2, sid,
			 MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN) != 2)
		die("client last send: %s", strerror(errno));
	read_reply(fd, sid);
	/* Then the server closes: wait for its close. */
	read_reply(fd, -2);

	for (i = QUIC_EVENT_NONE + 1; i < QUIC_EVENT_MAX; i++)
		if (on[i])
			ok(seen[i] > 0, "event %d fired (%d times)", i, seen[i]);
	if (on[QUIC_EVENT_CONNECTION_CLOSE])
		ok(close_ev.errcode == CLOSE_CODE &&
		   !strcmp((char *)close_ev.phrase, "bye"),
		   "close event carries the peer's code 0x%x and phrase \"%s\"",
		   close_ev.errcode, close_ev.phrase);
	close(fd);
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	   !WEXITSTATUS(status), "the server finished cleanly");
	printf("1..%d\n", tap_n);
	return 0;
}

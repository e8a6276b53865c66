// SPDX-License-Identifier: GPL-2.0
/*
 * quic-handshaked: the main process listens to the "tlshd" multicast group
 * of the "handshake" generic netlink family and keeps a pool of idle worker
 * processes (at most max-handshakes workers in all).  Each READY
 * notification (and, at start or after a lost notification, a drain of the
 * queue) writes one token into a pipe; the idle worker that reads it takes
 * the next request with ACCEPT at once.  That matters: net/handshake
 * refuses new requests (-EAGAIN to the kernel user) while a few (3 to 50,
 * by memory size) wait unaccepted.  The worker then runs the handshake,
 * reports DONE and exits: a crash, a hang past the request's timeout or a
 * SIGTERM in one handshake still reports DONE (from a signal handler, with
 * a message built beforehand) and touches no other.  A worker that took a
 * request passes the main process a duplicate of the socket's descriptor
 * with its note: if the worker dies without answering (SIGKILL, the OOM
 * killer), the main process reports DONE with EIO for it, so that the
 * kernel user is not left waiting.  A process per request also gives each
 * its own process keyring, which the kernel links the request's keyring
 * into.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/handshake.h>
#include <linux/netlink.h>
#include <netinet/quic.h>

#include "hsd.h"

#define HSD_IDLE_MAX	16	/* idle workers kept ready */

/*
 * What a worker tells the main process: one datagram on a socketpair; 'A'
 * carries the request's socket descriptor (SCM_RIGHTS).
 */
struct hsd_note {
	pid_t pid;
	int kind;		/* 'A': took a request, 'E': the queue was empty */
};

static const char usage[] =
"Usage: quic-handshaked [OPTIONS]\n"
"The TLS handshake agent of in-kernel QUIC sockets: takes the handshake\n"
"requests that kernel users make with tls_client_hello_*() and\n"
"tls_server_hello_*() (net/handshake, handler class tlshd), runs the QUIC\n"
"handshake with libquic and reports the result to the kernel.\n"
"Requests for plain TCP sockets are declined (EOPNOTSUPP): see the man page.\n"
"\n"
"  -c, --config FILE        configuration file (default " HSD_CONF_DEFAULT ",\n"
"                           optional when not given)\n"
"  -j, --max-handshakes N   handshakes at the same time, 1 to 4096\n"
"                           (default 64)\n"
"  -t, --timeout MS         handshake time limit when the request has none,\n"
"                           1 to 3600000 (default 30000)\n"
"  -v, --verbose            also log libquic's messages (twice: its debug\n"
"                           messages too)\n"
"      --check-config       read the configuration, print it and exit\n"
"  -V, --version            print the version and exit\n"
"  -h, --help               this help\n"
"\n"
"Logs go to stderr, one line per handshake:\n"
"  handshake peer=ADDR side=client|server alpn=PROTO auth=x509|psk|anon\n"
"            result=ok|ERRNO ms=N [peerid=KEY]\n"
"Signals: SIGTERM/SIGINT stop (handshakes in progress report ECANCELED),\n"
"SIGHUP reads the configuration file again.\n";

static struct hsd_conf conf;
static const char *conf_path = HSD_CONF_DEFAULT;
static int conf_explicit;
/* Bumped by SIGHUP in a page shared with the workers, which were forked
 * earlier: a worker that sees it changed reads the file again.
 */
static volatile unsigned int *conf_gen;
static int tok_rd = -1, tok_wr = -1, note_rd = -1, note_wr = -1;

static int load_conf(const char *path, int explicit_path);

void hsd_log(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "quic-handshaked[%d]: ", (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;	/* nowhere to say it */
}

static void libquic_log(int level, const char *msg)
{
	(void)level;
	hsd_log("libquic: %s", msg);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- a worker: one request ---- */

/* DONE messages built before the handshake, sent from signal handlers */
static struct {
	int nlfd;
	char timeout[128], fatal[128], cancel[128];
	size_t timeout_len, fatal_len, cancel_len;
} emergency = { .nlfd = -1 };

static void emergency_send(const char *buf, size_t len)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	if (len)
		sendto(emergency.nlfd, buf, len, 0, (struct sockaddr *)&to,
		       sizeof(to));
}

/* A worker's exit codes after it answered DONE itself */
#define HSD_EXIT_DONE		0
#define HSD_EXIT_TIMEOUT	4
#define HSD_EXIT_CANCEL		5

static void on_alarm(int sig)
{
	(void)sig;
	emergency_send(emergency.timeout, emergency.timeout_len);
	_exit(HSD_EXIT_TIMEOUT);
}

static void on_term(int sig)
{
	(void)sig;
	emergency_send(emergency.cancel, emergency.cancel_len);
	_exit(HSD_EXIT_CANCEL);
}

static void on_fatal(int sig)
{
	emergency_send(emergency.fatal, emergency.fatal_len);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void arm_watchdog(struct hsd_genl *g, const struct hsd_req *req,
			 unsigned int timeout_ms)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
	struct sigaction sa;
	size_t i;

	emergency.nlfd = g->fd;
	emergency.timeout_len = hsd_genl_build_done(emergency.timeout,
			sizeof(emergency.timeout), g->family, ++g->seq,
			req->sockfd, ETIMEDOUT, NULL, 0);
	emergency.fatal_len = hsd_genl_build_done(emergency.fatal,
			sizeof(emergency.fatal), g->family, ++g->seq,
			req->sockfd, EIO, NULL, 0);
	emergency.cancel_len = hsd_genl_build_done(emergency.cancel,
			sizeof(emergency.cancel), g->family, ++g->seq,
			req->sockfd, ECANCELED, NULL, 0);
	memset(&sa, 0, sizeof(sa));
	sigfillset(&sa.sa_mask);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_fatal;
	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	/* the handshake keeps its own deadline; this is the backstop */
	alarm(timeout_ms / 1000 + 5);
}

static void disarm_watchdog(void)
{
	sigset_t set;

	alarm(0);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

static void peer_string(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char a[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET) {
			struct sockaddr_in *s = (void *)&ss;

			inet_ntop(AF_INET, &s->sin_addr, a, sizeof(a));
			port = ntohs(s->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *s = (void *)&ss;

			inet_ntop(AF_INET6, &s->sin6_addr, a, sizeof(a));
			port = ntohs(s->sin6_port);
			snprintf(buf, len, "[%s]:%u", a, port);
			return;
		}
	}
	snprintf(buf, len, "%s:%u", a, port);
}

/* Tell the main process; @fd (>= 0) goes with the note. */
static void note(int kind, int fd)
{
	struct hsd_note n = { getpid(), kind };
	struct iovec iov = { &n, sizeof(n) };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		memset(&c, 0, sizeof(c));
		msg.msg_control = c.buf;
		msg.msg_controllen = sizeof(c.buf);
		c.h.cmsg_level = SOL_SOCKET;
		c.h.cmsg_type = SCM_RIGHTS;
		c.h.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&c.h), &fd, sizeof(int));
	}
	while (sendmsg(note_wr, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;	/* else the main process is gone; nothing to tell */
}

/* Idle: wait for a token, then ACCEPT; returns with a request, or exits. */
static void take_request(struct hsd_genl *g, struct hsd_req *req)
{
	for (;;) {
		ssize_t r;
		char b;
		int err;

		r = read(tok_rd, &b, 1);
		if (r == 0)
			_exit(0);		/* the main process stopped */
		if (r < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		err = hsd_genl_accept(g, req);
		if (!err) {
			note('A', req->sockfd);
			return;
		}
		if (err != -EAGAIN) {
			hsd_log("accept: %s", strerror(-err));
			usleep(100000);
		}
		note('E', -1);
	}
}

static int worker(void)
{
	unsigned int gen = *conf_gen;
	struct hsd_result res;
	struct hsd_genl g;
	struct hsd_req req;
	char peer[80], ids[32] = "";
	int64_t t0;
	int err, proto = 0;
	socklen_t len = sizeof(proto);
	unsigned int status, timeout;

	err = hsd_genl_open(&g);
	if (err) {
		hsd_log("worker: netlink: %s", strerror(-err));
		return 1;
	}
	take_request(&g, &req);
	t0 = now_ms();
	if (*conf_gen != gen)
		load_conf(conf_path, conf_explicit);
	timeout = req.timeout_ms ? req.timeout_ms : conf.timeout_ms;
	arm_watchdog(&g, &req, timeout);
	peer_string(req.sockfd, peer, sizeof(peer));
	memset(&res, 0, sizeof(res));
	res.auth = "?";
	if (getsockopt(req.sockfd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) < 0 ||
	    proto != IPPROTO_QUIC) {
		/* tlshd's work (TLS over TCP and kTLS): declined */
		res.err = -EOPNOTSUPP;
		snprintf(res.why, sizeof(res.why),
			 "not a QUIC socket (protocol %d): plain TLS is declined",
			 proto);
	} else {
		hsd_quic_handshake(&req, &conf, &res);
	}
	disarm_watchdog();
	status = hsd_done_status(res.err);
	err = hsd_genl_done(&g, req.sockfd, status, res.peerids, res.n_peerids);
	if (res.n_peerids)
		snprintf(ids, sizeof(ids), " peerid=%d", (int)res.peerids[0]);
	hsd_log("handshake peer=%s side=%s alpn=%s auth=%s result=%s%s%s%s ms=%lld%s%s%s",
		peer, req.msg_type == HANDSHAKE_MSG_TYPE_SERVERHELLO ? "server" : "client",
		res.alpn[0] ? res.alpn : "-", res.auth,
		status ? strerrorname_np((int)status) ?: "error" : "ok",
		res.why[0] ? " (" : "", res.why, res.why[0] ? ")" : "",
		(long long)(now_ms() - t0), ids, err ? " done-failed=" : "",
		err ? strerror(-err) : "");
	close(req.sockfd);
	hsd_genl_close(&g);
	return 0;
}

/* ---- the main process ---- */

struct hsd_child {
	pid_t pid;
	int busy;		/* took a request */
	int sockfd;		/* its socket (a duplicate), or -1 */
};

static struct hsd_child *children;
static unsigned int n_children, n_busy;
/* DONE for the requests of workers that died without answering; not the
 * multicast socket, whose notifications nl_wait() would skip
 */
static struct hsd_genl done_g = { .fd = -1 };

static struct hsd_child *child_find(pid_t pid)
{
	unsigned int i;

	for (i = 0; i < n_children; i++)
		if (children[i].pid == pid)
			return &children[i];
	return NULL;
}

static int spawn(int *close_fds, int n_close, const sigset_t *oldmask)
{
	pid_t pid = fork();
	int i;

	if (pid < 0) {
		hsd_log("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		for (i = 0; i < n_close; i++)
			close(close_fds[i]);
		/* other requests' sockets: an idle worker would hold them */
		for (i = 0; i < (int)n_children; i++)
			if (children[i].sockfd >= 0)
				close(children[i].sockfd);
		hsd_genl_close(&done_g);
		close(tok_wr);
		close(note_rd);
		signal(SIGCHLD, SIG_DFL);
		sigprocmask(SIG_SETMASK, oldmask, NULL);
		_exit(worker());
	}
	children[n_children].pid = pid;
	children[n_children].sockfd = -1;
	children[n_children++].busy = 0;
	return 0;
}

static void token(void)
{
	char b = 1;

	if (write(tok_wr, &b, 1) < 0 && errno != EAGAIN)
		hsd_log("token pipe: %s", strerror(errno));
}

/*
 * A worker with a request ended: if it did not exit normally (it answers
 * before it does; its signal handlers answer for the signals they catch),
 * answer for it with @status.  A second DONE for an answered request is
 * a no-op in the kernel: the request is complete.
 */
static void answer_for(struct hsd_child *c, int exited_ok, unsigned int status)
{
	int err;

	if (c->sockfd < 0)
		return;
	if (!exited_ok) {
		err = done_g.fd >= 0 ? hsd_genl_done(&done_g, c->sockfd, status,
						      NULL, 0) : -EBADF;
		hsd_log("worker %d ended with a request: answered %s%s%s",
			(int)c->pid, strerrorname_np((int)status),
			err ? ", failed: " : "", err ? strerror(-err) : "");
	}
	close(c->sockfd);
	c->sockfd = -1;
}

/* A worker ended (wait status @wstatus); @err answers its request if it
 * did not.
 */
static void child_gone(struct hsd_child *c, int wstatus, unsigned int err)
{
	int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;

	if (c->busy)
		n_busy--;
	answer_for(c, code == HSD_EXIT_DONE || code == HSD_EXIT_TIMEOUT ||
		   code == HSD_EXIT_CANCEL, err);
	*c = children[--n_children];
}

/* Workers' notes: who took a request (and its socket); whether the queue
 * ran empty.
 */
static void read_notes(int *drain)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct hsd_note n;
	struct iovec iov = { &n, sizeof(n) };
	struct msghdr msg;
	struct hsd_child *c;
	struct cmsghdr *h;
	int fd;

	for (;;) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = cm.buf;
		msg.msg_controllen = sizeof(cm.buf);
		if (recvmsg(note_rd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) !=
		    sizeof(n))
			break;
		fd = -1;
		h = CMSG_FIRSTHDR(&msg);
		if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
		    h->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(h), sizeof(int));
		if (n.kind == 'E') {
			*drain = 0;
			continue;
		}
		c = child_find(n.pid);
		if (c && !c->busy) {
			c->busy = 1;
			n_busy++;
			c->sockfd = fd;
			fd = -1;
		}
		if (fd >= 0)
			close(fd);
		if (*drain)
			token();	/* more may be queued */
	}
}

static void reap(int *drain)
{
	struct hsd_child *c;
	int status;
	pid_t pid;

	read_notes(drain);	/* a dead worker's last note first */
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		c = child_find(pid);
		if (!c)
			continue;
		if (WIFSIGNALED(status))
			hsd_log("worker %d killed by signal %d", (int)pid,
				WTERMSIG(status));
		child_gone(c, status, EIO);
	}
}

static void stop_children(void)
{
	int64_t end = now_ms() + 3000;
	unsigned int i;
	int status;
	pid_t pid;

	close(tok_wr);		/* idle workers see the end and exit */
	for (i = 0; i < n_children; i++)
		if (children[i].busy)
			kill(children[i].pid, SIGTERM);
	while (n_children && now_ms() < end) {
		pid = waitpid(-1, &status, WNOHANG);
		if (pid > 0) {
			struct hsd_child *c = child_find(pid);

			if (c)
				child_gone(c, status, EIO);
		} else {
			usleep(10000);
		}
	}
	/* those that did not stop: ended here, answered for */
	while (n_children) {
		kill(children[0].pid, SIGKILL);
		waitpid(children[0].pid, &status, 0);
		child_gone(&children[0], status, ECANCELED);
	}
}

/* The multicast socket: READY notifications, or a lost one (ENOBUFS). */
static void read_notifications(struct hsd_genl *g, int *drain)
{
	char buf[8192] __attribute__((aligned(8)));

	for (;;) {
		struct nlmsghdr *nh;
		ssize_t n = recv(g->fd, buf, sizeof(buf), MSG_DONTWAIT);
		size_t left;

		if (n < 0) {
			if (errno == ENOBUFS) {
				*drain = 1;	/* notifications lost: drain */
				token();
			}
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			return;
		}
		left = (size_t)n;
		for (nh = (void *)buf; NLMSG_OK(nh, left); nh = NLMSG_NEXT(nh, left)) {
			if (nh->nlmsg_type == g->family &&
			    hsd_is_ready(NLMSG_DATA(nh), nh->nlmsg_len - NLMSG_HDRLEN))
				token();
		}
	}
}

/* The command line, which wins over the file */
static unsigned int cli_max, cli_timeout;
static int cli_verbose;

static int load_conf(const char *path, int explicit_path)
{
	struct hsd_conf c;
	char err[256];

	hsd_conf_defaults(&c);
	if (hsd_conf_load(&c, path, !explicit_path, err, sizeof(err))) {
		hsd_log("configuration: %s", err);
		return -1;
	}
	if (cli_max)
		c.max_handshakes = cli_max;
	if (cli_timeout)
		c.timeout_ms = cli_timeout;
	if (cli_verbose)
		c.verbose = cli_verbose;
	conf = c;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "max-handshakes", required_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int check = 0, drain = 1, c, sfd, err;
	struct signalfd_siginfo si;
	struct pollfd pfd[3];
	sigset_t mask, oldmask;
	struct hsd_genl g;
	char *end;

	while ((c = getopt_long(argc, argv, "c:j:t:vVh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			conf_path = optarg;
			conf_explicit = 1;
			break;
		case 'j':
			cli_max = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || !cli_max || cli_max > 4096) {
				fprintf(stderr, "quic-handshaked: --max-handshakes: 1 to 4096\n");
				return 2;
			}
			break;
		case 't':
			cli_timeout = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || !cli_timeout || cli_timeout > 3600000) {
				fprintf(stderr, "quic-handshaked: --timeout: 1 to 3600000 ms\n");
				return 2;
			}
			break;
		case 'v':
			cli_verbose++;
			break;
		case 'C':
			check = 1;
			break;
		case 'V':
			printf("quic-handshaked %s\n", HSD_VERSION);
			return 0;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fputs(usage, stderr);
		return 2;
	}
	if (load_conf(conf_path, conf_explicit))
		return 1;
	if (check) {
		printf("cert=%s\nkey=%s\nca=%s\npsk=%s\ntimeout=%u\nmax-handshakes=%u\nverbose=%d\n",
		       conf.cert, conf.key, conf.ca, conf.psk, conf.timeout_ms,
		       conf.max_handshakes, conf.verbose);
		return 0;
	}
	if (conf.verbose) {
		quic_set_log_func(libquic_log);
		quic_set_log_level(conf.verbose >= 2 ? QUIC_LOG_DEBUG : QUIC_LOG_INFO);
	}

	/* the main process keeps a descriptor per handshake in progress */
	{
		struct rlimit rl;

		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	children = calloc(4096, sizeof(*children));
	conf_gen = mmap(NULL, sizeof(*conf_gen), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!children || conf_gen == MAP_FAILED)
		return 1;
	{
		int tok[2], notes[2];

		if (pipe2(tok, O_CLOEXEC) ||
		    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, notes)) {
			hsd_log("pipe: %s", strerror(errno));
			return 1;
		}
		tok_rd = tok[0];
		tok_wr = tok[1];
		note_rd = notes[0];
		note_wr = notes[1];
		fcntl(tok_wr, F_SETFL, O_NONBLOCK);
		fcntl(note_rd, F_SETFL, O_NONBLOCK);
	}
	err = hsd_genl_open(&g);
	if (!err)
		err = hsd_genl_join(&g);
	if (!err)
		err = hsd_genl_open(&done_g);
	if (err) {
		hsd_log("the handshake netlink family: %s%s", strerror(-err),
			err == -ENOENT ? " (kernel without CONFIG_NET_HANDSHAKE?)" : "");
		return 1;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		hsd_log("signalfd: %s", strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	hsd_log("ready: family %u, group %u, max %u handshakes, timeout %u ms",
		g.family, g.mcgrp, conf.max_handshakes, conf.timeout_ms);

	pfd[0].fd = g.fd;
	pfd[0].events = POLLIN;
	pfd[1].fd = sfd;
	pfd[1].events = POLLIN;
	pfd[2].fd = note_rd;
	pfd[2].events = POLLIN;
	token();	/* requests queued while no agent ran: drain */
	for (;;) {
		int close_fds[2] = { g.fd, sfd };
		unsigned int idle_max = conf.max_handshakes < HSD_IDLE_MAX ?
					conf.max_handshakes : HSD_IDLE_MAX;

		/* keep idle workers ready, within max-handshakes in all */
		while (n_children - n_busy < idle_max &&
		       n_children < conf.max_handshakes &&
		       !spawn(close_fds, 2, &oldmask))
			;
		if (poll(pfd, 3, -1) < 0 && errno != EINTR) {
			hsd_log("poll: %s", strerror(errno));
			break;
		}
		if (pfd[0].revents)
			read_notifications(&g, &drain);
		if (pfd[2].revents)
			read_notes(&drain);
		if (!(pfd[1].revents & POLLIN))
			continue;
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGCHLD) {
				reap(&drain);
			} else if (si.ssi_signo == SIGHUP) {
				if (!load_conf(conf_path, conf_explicit)) {
					(*conf_gen)++;
					hsd_log("configuration read again");
				}
			} else {
				hsd_log("stopping: %u handshakes in progress", n_busy);
				stop_children();
				return 0;
			}
		}
	}
	stop_children();
	return 1;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Socket calls on IPPROTO_QUIC sockets before any connection exists:
 * socket(), bind() (with port 0 auto-bind), getsockname(), socket options
 * and close(), and the errnos of calls whose machinery is not built yet.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/quic.h>

#include "tap.h"
#include "addr.h"

static const int families[] = { AF_INET, AF_INET6 };
static const int types[] = { SOCK_STREAM, SOCK_DGRAM };

static int quic_socket(int family)
{
	return socket(family, SOCK_DGRAM, IPPROTO_QUIC);
}

static const char *loopback(int family)
{
	return family == AF_INET ? "127.0.0.1" : "::1";
}

static unsigned short bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* A port that is free right now: let UDP choose one and give it back. */
static unsigned short free_port(int family)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(family, loopback(family), 0, &ss);
	int fd = socket(family, SOCK_DGRAM, 0);
	unsigned short port;

	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len))
		return 0;
	port = bound_port(fd);
	close(fd);
	return port;
}

static int bind_to(int fd, int family, const char *ip, unsigned short port)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(family, ip, port, &ss);

	return bind(fd, (struct sockaddr *)&ss, len);
}

static void test_socket_all_kinds(void)
{
	for (unsigned int f = 0; f < 2; f++) {
		for (unsigned int t = 0; t < 2; t++) {
			int fd = socket(families[f], types[t], IPPROTO_QUIC);
			int val = 0;
			socklen_t len = sizeof(val);

			CHECK(fd >= 0);
			if (fd < 0)
				continue;
			CHECK_OK(getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &val, &len));
			CHECK(val == IPPROTO_QUIC);
			CHECK_OK(getsockopt(fd, SOL_SOCKET, SO_TYPE, &val, &len));
			CHECK(val == types[t]);
			CHECK_OK(getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &val, &len));
			CHECK(val == families[f]);
			CHECK_OK(close(fd));
		}
	}
}

static void test_bind_port0(int family)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char ip[INET6_ADDRSTRLEN] = "";
	int fd = quic_socket(family);

	CHECK(fd >= 0);
	CHECK_OK(bind_to(fd, family, loopback(family), 0));
	CHECK_OK(getsockname(fd, (struct sockaddr *)&ss, &len));
	CHECK(ss.ss_family == family);
	if (family == AF_INET) {
		CHECK(len == sizeof(struct sockaddr_in));
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, ip, sizeof(ip));
	} else {
		CHECK(len == sizeof(struct sockaddr_in6));
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, ip, sizeof(ip));
	}
	CHECK(strcmp(ip, loopback(family)) == 0);
	CHECK(bound_port(fd) != 0);
	close(fd);
}

static void test_bind_port0_v4(void) { test_bind_port0(AF_INET); }
static void test_bind_port0_v6(void) { test_bind_port0(AF_INET6); }

static void test_getsockname_unbound(void)
{
	struct sockaddr_in6 sin6;
	socklen_t len = sizeof(sin6);
	int fd = quic_socket(AF_INET6);

	memset(&sin6, 0xff, sizeof(sin6));
	CHECK_OK(getsockname(fd, (struct sockaddr *)&sin6, &len));
	CHECK(sin6.sin6_family == AF_INET6);
	CHECK(sin6.sin6_port == 0);
	close(fd);
}

static void test_bind_explicit_port(void)
{
	for (unsigned int f = 0; f < 2; f++) {
		unsigned short port = free_port(families[f]);
		int fd = quic_socket(families[f]);

		CHECK(port != 0);
		CHECK_OK(bind_to(fd, families[f], loopback(families[f]), port));
		CHECK(bound_port(fd) == port);
		close(fd);
	}
}

static void test_bind_in_use_by_quic(void)
{
	int a = quic_socket(AF_INET), b = quic_socket(AF_INET);

	CHECK_OK(bind_to(a, AF_INET, "127.0.0.1", 0));
	CHECK_ERR(bind_to(b, AF_INET, "127.0.0.1", bound_port(a)), EADDRINUSE);
	/* The failed bind left b unbound: it can still bind elsewhere. */
	CHECK_OK(bind_to(b, AF_INET, "127.0.0.1", 0));
	close(a);
	close(b);
}

/* The QUIC socket really holds the UDP port, in both directions. */
static void test_bind_in_use_by_udp(void)
{
	int udp = socket(AF_INET, SOCK_DGRAM, 0), q = quic_socket(AF_INET);

	CHECK_OK(bind_to(udp, AF_INET, "127.0.0.1", 0));
	CHECK_ERR(bind_to(q, AF_INET, "127.0.0.1", bound_port(udp)), EADDRINUSE);
	close(udp);
	close(q);

	q = quic_socket(AF_INET);
	udp = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK_OK(bind_to(q, AF_INET, "127.0.0.1", 0));
	CHECK_ERR(bind_to(udp, AF_INET, "127.0.0.1", bound_port(q)), EADDRINUSE);
	close(udp);
	close(q);
}

static void test_bind_twice(void)
{
	int fd = quic_socket(AF_INET);

	CHECK_OK(bind_to(fd, AF_INET, "127.0.0.1", 0));
	CHECK_ERR(bind_to(fd, AF_INET, "127.0.0.1", 0), EINVAL);
	close(fd);
}

static void test_bind_bad_address(void)
{
	struct sockaddr_storage ss;
	int fd4 = quic_socket(AF_INET), fd6 = quic_socket(AF_INET6), one = 1;
	socklen_t len;

	/* A dual-stack socket maps IPv4 addresses (compat_sock_test); not this one. */
	CHECK_OK(setsockopt(fd6, SOL_IPV6, IPV6_V6ONLY, &one, sizeof(one)));
	len = make_addr(AF_INET, "127.0.0.1", 0, &ss);
	CHECK_ERR(bind(fd4, (struct sockaddr *)&ss, len - 1), EINVAL);
	CHECK_ERR(bind(fd4, (struct sockaddr *)&ss, 1), EINVAL);
	CHECK_ERR(bind(fd6, (struct sockaddr *)&ss, len - 1), EINVAL);
	CHECK_ERR(bind(fd6, (struct sockaddr *)&ss, len), EAFNOSUPPORT);
	len = make_addr(AF_INET6, "::1", 0, &ss);
	CHECK_ERR(bind(fd4, (struct sockaddr *)&ss, len), EAFNOSUPPORT);
	CHECK_ERR(bind(fd6, (struct sockaddr *)&ss, 8), EINVAL);
	((struct sockaddr *)&ss)->sa_family = AF_INET;
	CHECK_ERR(bind(fd6, (struct sockaddr *)&ss, len), EAFNOSUPPORT);
	CHECK_ERR(bind(fd4, NULL, 0), EINVAL);
	/* None of that bound anything. */
	CHECK(bound_port(fd4) == 0);
	CHECK(bound_port(fd6) == 0);
	close(fd4);
	close(fd6);
}

static void test_bind_nonlocal(void)
{
	int fd4 = quic_socket(AF_INET), fd6 = quic_socket(AF_INET6);

	/* TEST-NET-1 and the documentation prefix are on no interface. */
	CHECK_ERR(bind_to(fd4, AF_INET, "192.0.2.1", 0), EADDRNOTAVAIL);
	CHECK_ERR(bind_to(fd6, AF_INET6, "2001:db8::1", 0), EADDRNOTAVAIL);
	close(fd4);
	close(fd6);
}

static void test_bind_privileged_port(void)
{
	pid_t pid = fork();
	int status = -1;

	if (pid == 0) {
		int fd = quic_socket(AF_INET);

		if (setgid(65534) || setuid(65534))
			_exit(2);
		errno = 0;
		if (bind_to(fd, AF_INET, "127.0.0.1", 443) == 0)
			_exit(3);
		_exit(errno == EACCES ? 0 : 4);
	}
	CHECK(pid > 0);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_close_releases_port(void)
{
	int fd = quic_socket(AF_INET6);
	unsigned short port;

	CHECK_OK(bind_to(fd, AF_INET6, "::1", 0));
	port = bound_port(fd);
	CHECK_OK(close(fd));
	fd = quic_socket(AF_INET6);
	CHECK_OK(bind_to(fd, AF_INET6, "::1", port));
	close(fd);
}

static void test_ipv6_v6only(void)
{
	int one = 1, zero = 0, v6, v4;
	unsigned short port;

	/* v6only: the IPv4 wildcard on the same port stays free. */
	v6 = quic_socket(AF_INET6);
	CHECK_OK(setsockopt(v6, SOL_IPV6, IPV6_V6ONLY, &one, sizeof(one)));
	CHECK_OK(bind_to(v6, AF_INET6, "::", 0));
	port = bound_port(v6);
	v4 = quic_socket(AF_INET);
	CHECK_OK(bind_to(v4, AF_INET, "0.0.0.0", port));
	close(v4);
	close(v6);

	/* dual stack: [::] takes the IPv4 port too. */
	v6 = quic_socket(AF_INET6);
	CHECK_OK(setsockopt(v6, SOL_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)));
	CHECK_OK(bind_to(v6, AF_INET6, "::", 0));
	v4 = quic_socket(AF_INET);
	CHECK_ERR(bind_to(v4, AF_INET, "0.0.0.0", bound_port(v6)), EADDRINUSE);
	close(v4);
	close(v6);
}

/* SOL_QUIC options that are implemented; every other one must fail. */
static const int built_options[] = {
	QUIC_SOCKOPT_EVENT, QUIC_SOCKOPT_CONNECTION_CLOSE, QUIC_SOCKOPT_CONFIG,
	QUIC_SOCKOPT_ALPN, QUIC_SOCKOPT_SESSION_TICKET,
	QUIC_SOCKOPT_CRYPTO_SECRET, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT,
	QUIC_SOCKOPT_TRANSPORT_PARAM, QUIC_SOCKOPT_TOKEN,
	/* CONNECTION_MIGRATION refused with EOPNOTSUPP (issue 15): sockopt_test */
	QUIC_SOCKOPT_CONNECTION_ID, QUIC_SOCKOPT_CONNECTION_MIGRATION,
};

/* Options that only set (1) or only get (0): the other way is ENOPROTOOPT. */
static const struct { int opt, set; } one_way_options[] = {
	{ QUIC_SOCKOPT_STREAM_OPEN, 0 },
	{ QUIC_SOCKOPT_STREAM_RESET, 1 },
	{ QUIC_SOCKOPT_STREAM_STOP_SENDING, 1 },
	{ QUIC_SOCKOPT_KEY_UPDATE, 1 },
};

static int is_built(int optname)
{
	for (unsigned int i = 0; i < sizeof(built_options) / sizeof(built_options[0]); i++)
		if (built_options[i] == optname)
			return 1;
	for (unsigned int i = 0; i < sizeof(one_way_options) / sizeof(one_way_options[0]); i++)
		if (one_way_options[i].opt == optname)
			return 1;
	return 0;
}

static void test_sockopt_not_built(void)
{
	unsigned char buf[256];
	socklen_t len;
	int fd = quic_socket(AF_INET);

	for (int opt = QUIC_SOCKOPT_EVENT; opt <= QUIC_SOCKOPT_TRANSPORT_PARAM_EXT + 1; opt++) {
		if (is_built(opt))
			continue;
		memset(buf, 0, sizeof(buf));
		len = sizeof(buf);
		CHECK_ERR(setsockopt(fd, SOL_QUIC, opt, buf, sizeof(buf)), ENOPROTOOPT);
		CHECK_ERR(getsockopt(fd, SOL_QUIC, opt, buf, &len), ENOPROTOOPT);
	}
	/* One-way options: the missing way is ENOPROTOOPT, the other needs a
	 * connection.
	 */
	for (unsigned int i = 0; i < sizeof(one_way_options) / sizeof(one_way_options[0]); i++) {
		int opt = one_way_options[i].opt;

		memset(buf, 0, sizeof(buf));
		len = sizeof(buf);
		if (one_way_options[i].set) {
			CHECK_ERR(getsockopt(fd, SOL_QUIC, opt, buf, &len), ENOPROTOOPT);
			CHECK_ERR(setsockopt(fd, SOL_QUIC, opt, buf, sizeof(buf)), ENOTCONN);
		} else {
			CHECK_ERR(setsockopt(fd, SOL_QUIC, opt, buf, sizeof(buf)), ENOPROTOOPT);
			CHECK_ERR(getsockopt(fd, SOL_QUIC, opt, buf, &len), ENOTCONN);
		}
	}
	len = sizeof(buf);
	CHECK_ERR(setsockopt(fd, SOL_QUIC, 9999, buf, 4), ENOPROTOOPT);
	CHECK_ERR(getsockopt(fd, SOL_QUIC, -1, buf, &len), ENOPROTOOPT);
	close(fd);
}

static void test_sockopt_other_levels(void)
{
	int fd = quic_socket(AF_INET), val = 0x10, got = 0;
	socklen_t len = sizeof(got);

	/* IP_TOS is in force (sockopt_test: on the wire); read back. */
	CHECK_OK(setsockopt(fd, SOL_IP, IP_TOS, &val, sizeof(val)));
	CHECK_OK(getsockopt(fd, SOL_IP, IP_TOS, &got, &len));
	CHECK(got == val);
	/* Generic socket options work as on any socket. */
	val = 65536;
	CHECK_OK(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)));
	/* A level QUIC sockets do not have. */
	CHECK_ERR(setsockopt(fd, IPPROTO_TCP, 1, &val, sizeof(val)), ENOPROTOOPT);
	len = sizeof(got);
	CHECK_ERR(getsockopt(fd, IPPROTO_TCP, 1, &got, &len), ENOPROTOOPT);
	CHECK_ERR(setsockopt(fd, SOL_IPV6, 26, &val, sizeof(val)), ENOPROTOOPT);
	close(fd);
}

static void fcntl_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void test_unconnected_calls(void)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char byte = 0;
	int fd = quic_socket(AF_INET);

	CHECK_OK(bind_to(fd, AF_INET, "127.0.0.1", 0));
	CHECK_ERR(getpeername(fd, (struct sockaddr *)&ss, &len), ENOTCONN);
	CHECK_ERR(send(fd, &byte, 1, MSG_DONTWAIT), ENOTCONN);
	CHECK_ERR(recv(fd, &byte, 1, MSG_DONTWAIT), ENOTCONN);
	CHECK_ERR(shutdown(fd, SHUT_RDWR), ENOTCONN);
	CHECK_ERR(accept(fd, NULL, NULL), EINVAL);
	close(fd);

	/* An unbound socket must not be auto-bound by send(). */
	fd = quic_socket(AF_INET6);
	CHECK_ERR(send(fd, &byte, 1, MSG_DONTWAIT), ENOTCONN);
	CHECK(bound_port(fd) == 0);
	close(fd);
}

static void test_connect_semantics(void)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(AF_INET, "127.0.0.1", 4433, &ss);
	int fd = quic_socket(AF_INET), lfd = quic_socket(AF_INET);

	/* connect() binds an unbound socket and does not wait. */
	CHECK_OK(connect(fd, (struct sockaddr *)&ss, len));
	CHECK(bound_port(fd) != 0);
	CHECK_ERR(connect(fd, (struct sockaddr *)&ss, len), EISCONN);
	CHECK_ERR(listen(fd, 8), EINVAL);
	CHECK_ERR(bind_to(fd, AF_INET, "127.0.0.1", 0), EINVAL);
	len = sizeof(ss);
	CHECK_OK(getpeername(fd, (struct sockaddr *)&ss, &len));
	CHECK(ntohs(((struct sockaddr_in *)&ss)->sin_port) == 4433);
	close(fd);

	/* A listener: accept() would block, connect() is refused. */
	CHECK_OK(bind_to(lfd, AF_INET, "127.0.0.1", 0));
	CHECK_OK(listen(lfd, 4));
	CHECK_OK(listen(lfd, 8));	/* again: only the backlog changes */
	fcntl_nonblock(lfd);
	CHECK_ERR(accept(lfd, NULL, NULL), EAGAIN);
	len = make_addr(AF_INET, "127.0.0.1", 4433, &ss);
	CHECK_ERR(connect(lfd, (struct sockaddr *)&ss, len), EINVAL);
	close(lfd);

	/* listen() on an unbound socket binds it first. */
	lfd = quic_socket(AF_INET);
	CHECK_OK(listen(lfd, 1));	/* listen() binds an unbound socket */
	CHECK(bound_port(lfd) != 0);
	close(lfd);
}

static void test_sockopt_values(void)
{
	struct quic_crypto_secret secret = { .send = 1, .level = QUIC_CRYPTO_HANDSHAKE,
					     .type = 51 };
	struct quic_event_option ev = { .type = QUIC_EVENT_STREAM_UPDATE, .on = 1 };
	struct quic_config cfg, got;
	struct sockaddr_storage ss;
	unsigned char buf[512];
	char alpn[64];
	socklen_t len, alen = sizeof(alpn);
	int fd = quic_socket(AF_INET);

	/* Secrets need a connection, and a well-formed struct. */
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, &secret,
			     sizeof(secret)), ENOTCONN);
	len = make_addr(AF_INET, "127.0.0.1", 4433, &ss);
	CHECK_OK(connect(fd, (struct sockaddr *)&ss, len));
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, &secret,
			     sizeof(secret) - 1), EINVAL);
	secret.type = 99;
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, &secret,
			     sizeof(secret)), EINVAL);
	secret.type = 51;
	secret.level = QUIC_CRYPTO_MAX;
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, &secret,
			     sizeof(secret)), EINVAL);

	/* Our transport parameters, encoded, once connecting. */
	len = sizeof(buf);
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, buf, &len));
	CHECK(len > 10 && len < sizeof(buf));
	len = 4;
	CHECK_ERR(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, buf, &len),
		  EINVAL);
	/* A malformed peer extension is refused. */
	memset(buf, 0xff, 8);
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, buf, 8),
		  EINVAL);
	close(fd);

	fd = quic_socket(AF_INET6);
	CHECK_OK(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, "h3,hq-interop", 13));
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn, &alen));
	CHECK(alen == 13 && !memcmp(alpn, "h3,hq-interop", 13));
	memset(buf, 'a', sizeof(buf));
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, buf, sizeof(buf)), EINVAL);

	CHECK_OK(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, sizeof(ev)));
	ev.on = 0;
	len = sizeof(ev);
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, &len));
	CHECK(ev.on == 1);
	ev.type = QUIC_EVENT_MAX;
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_EVENT, &ev, sizeof(ev)), EINVAL);

	len = sizeof(cfg);
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, &len));
	CHECK(len == sizeof(cfg) && cfg.version == QUIC_VERSION_V1);
	cfg.version = QUIC_VERSION_V2;
	CHECK_OK(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, sizeof(cfg)));
	len = sizeof(got);
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &got, &len));
	CHECK(got.version == QUIC_VERSION_V2);
	cfg.version = 0x12345678;
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, &cfg, sizeof(cfg)), EINVAL);

	CHECK_OK(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, "ticket", 6));
	len = sizeof(buf);
	CHECK_OK(getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, buf, &len));
	CHECK(len == 6 && !memcmp(buf, "ticket", 6));
	close(fd);
}

/*
 * A 0-RTT secret (QUIC_CRYPTO_EARLY) with send above 1 or a reserved field
 * set is EINVAL, as other levels' are; the rejection (type 0) included,
 * which took them before.
 */
static void test_early_secret_fields(void)
{
	struct quic_crypto_secret s = { .send = 1, .level = QUIC_CRYPTO_EARLY,
					.type = 51 };	/* TLS_CIPHER_AES_GCM_128 */
	struct sockaddr_storage ss;
	socklen_t len = make_addr(AF_INET, "127.0.0.1", 4433, &ss);
	int fd = quic_socket(AF_INET);

	CHECK_OK(connect(fd, (struct sockaddr *)&ss, len));
	s.send = 2;
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, &s,
			     sizeof(s)), EINVAL);
	s.send = 1;
	CHECK_OK(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, &s,
			    sizeof(s)));
	s.type = 0;		/* withdraw it: the server rejected 0-RTT */
	s.send = 2;
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, &s,
			     sizeof(s)), EINVAL);
	s.send = 1;
	s.reserved = 1;
	CHECK_ERR(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, &s,
			     sizeof(s)), EINVAL);
	s.reserved = 0;
	CHECK_OK(setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, &s,
			    sizeof(s)));
	close(fd);
}

static void test_poll_unconnected(void)
{
	struct pollfd pfd = { .events = POLLIN | POLLOUT };

	pfd.fd = quic_socket(AF_INET);
	CHECK(poll(&pfd, 1, 0) == 1);
	CHECK(pfd.revents & POLLHUP);
	CHECK(!(pfd.revents & POLLIN));
	close(pfd.fd);
}

static void test_many_sockets(void)
{
	int fds[256];

	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 256; i++) {
			int family = families[i & 1];

			fds[i] = quic_socket(family);
			CHECK(fds[i] >= 0);
			CHECK_OK(bind_to(fds[i], family, loopback(family), 0));
		}
		for (int i = 0; i < 256; i++)
			CHECK_OK(close(fds[i]));
	}
}

static const struct tap_test tests[] = {
	{ "socket() for AF_INET/AF_INET6 x SOCK_STREAM/SOCK_DGRAM", test_socket_all_kinds },
	{ "bind() port 0 auto-binds (IPv4)", test_bind_port0_v4 },
	{ "bind() port 0 auto-binds (IPv6)", test_bind_port0_v6 },
	{ "getsockname() on an unbound socket", test_getsockname_unbound },
	{ "bind() to an explicit port", test_bind_explicit_port },
	{ "bind() to a port another QUIC socket holds is EADDRINUSE", test_bind_in_use_by_quic },
	{ "QUIC and UDP sockets exclude each other's ports", test_bind_in_use_by_udp },
	{ "bind() twice is EINVAL", test_bind_twice },
	{ "bind() with bad length or family fails and binds nothing", test_bind_bad_address },
	{ "bind() to a non-local address is EADDRNOTAVAIL", test_bind_nonlocal },
	{ "bind() to a privileged port without CAP_NET_BIND_SERVICE is EACCES", test_bind_privileged_port },
	{ "close() releases the port", test_close_releases_port },
	{ "IPV6_V6ONLY decides whether [::] takes the IPv4 port", test_ipv6_v6only },
	{ "SOL_QUIC options not built yet are ENOPROTOOPT, one-way options too the other way", test_sockopt_not_built },
	{ "SOL_IP and SOL_SOCKET options work, other levels ENOPROTOOPT", test_sockopt_other_levels },
	{ "calls needing a connection are ENOTCONN/EINVAL", test_unconnected_calls },
	{ "connect() binds and never blocks; listen(), accept(), EISCONN/EINVAL", test_connect_semantics },
	{ "socket option values are checked and read back", test_sockopt_values },
	{ "0-RTT secret: send above 1 or reserved set is EINVAL", test_early_secret_fields },
	{ "poll() on an unconnected socket reports POLLHUP only", test_poll_unconnected },
	{ "1024 sockets bound and closed", test_many_sockets },
};

int main(void)
{
	return tap_main(tests, sizeof(tests) / sizeof(tests[0]));
}

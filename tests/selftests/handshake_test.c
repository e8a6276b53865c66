// SPDX-License-Identifier: GPL-2.0
/*
 * Handshakes between two kernel QUIC sockets on loopback, driven by
 * libquic: connect/listen/accept, CRYPTO data both ways at every level,
 * secrets installed, ESTABLISHED on both ends, and a failed handshake
 * reported on both ends.  A connecting socket's datagrams are left to its
 * user waiting in the handshake (net/quic/input.c, "Receiving in the
 * reader's context"), counted as rx_deferred.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/quic.h>
#include <netinet/quic.h>

#include "tap.h"
#include "addr.h"
#include "../hostile/procfs.h"

static char psk_file[64], bad_psk_file[64];

struct server_arg {
	int lfd;
	const char *psk;
	const char *alpn;
	int fd;		/* out: accepted socket */
	int ret;	/* out: handshake result */
};

static void *server_main(void *p)
{
	struct server_arg *a = p;

	a->fd = accept(a->lfd, NULL, NULL);
	if (a->fd < 0) {
		a->ret = -errno;
		return NULL;
	}
	a->ret = quic_server_handshake(a->fd, a->psk, NULL, a->alpn);
	return NULL;
}

static int quic_socket_timeo(int family)
{
	struct timeval tv = { .tv_sec = 20 };
	int fd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static int listener(int family, unsigned short *port)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, 0, &ss);
	int fd = quic_socket_timeo(family);

	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 8))
		return -1;
	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return -1;
	*port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
					  ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

static int client(int family, unsigned short port)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, port, &ss);
	int fd = quic_socket_timeo(family);

	if (connect(fd, (struct sockaddr *)&ss, len))
		return -1;
	return fd;
}

static void handshake(int family, const char *cpsk, int want_ok)
{
	struct server_arg sa = { .psk = psk_file, .alpn = "hq-interop", .fd = -1 };
	char alpn[64] = "";
	socklen_t alen = sizeof(alpn);
	unsigned short port = 0;
	pthread_t th;
	int cfd, ret;

	sa.lfd = listener(family, &port);
	CHECK(sa.lfd >= 0);
	if (sa.lfd < 0)
		return;
	pthread_create(&th, NULL, server_main, &sa);
	cfd = client(family, port);
	CHECK(cfd >= 0);
	ret = quic_client_handshake(cfd, cpsk, NULL, "hq-interop");
	if (!want_ok)
		close(cfd);	/* let the server see the failure too */
	pthread_join(th, NULL);
	if (want_ok) {
		CHECK(ret == 0);
		CHECK(sa.ret == 0);
		CHECK_OK(getsockopt(cfd, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn, &alen));
		CHECK(alen == strlen("hq-interop") && !memcmp(alpn, "hq-interop", alen));
		close(cfd);
	} else {
		CHECK(ret < 0);
		CHECK(sa.ret < 0);
		printf("# client %d (%s), server %d (%s)\n", ret, strerror(-ret),
		       sa.ret, strerror(-sa.ret));
	}
	if (sa.fd >= 0)
		close(sa.fd);
	close(sa.lfd);
}

static void test_psk_v4(void) { handshake(AF_INET, psk_file, 1); }
static void test_psk_v6(void) { handshake(AF_INET6, psk_file, 1); }
static void test_psk_wrong_key(void) { handshake(AF_INET, bad_psk_file, 0); }

static void test_many_handshakes(void)
{
	for (int i = 0; i < 5; i++)
		handshake(i & 1 ? AF_INET6 : AF_INET, psk_file, 1);
}

/*
 * libquic waits for each flight in poll(): the peer's datagrams that come
 * meanwhile go to the backlog and are processed by that poll(), on the
 * waiter's CPU, not in the softirq of the peer's send.  Each handshake
 * has at least one such datagram (the client waits for the server's
 * answer to its ClientHello, the server for the client's Finished); none
 * is a train, which is all the data path leaves to a reader.
 */
static void test_handshake_to_reader(void)
{
	long before = hp_stat("rx_deferred"), late = hp_stat("rx_deferred_late");

	CHECK(before >= 0);
	for (int i = 0; i < 5; i++)
		handshake(i & 1 ? AF_INET6 : AF_INET, psk_file, 1);
	printf("# rx_deferred +%ld, rx_deferred_late +%ld\n",
	       hp_stat("rx_deferred") - before,
	       hp_stat("rx_deferred_late") - late);
	CHECK(hp_stat("rx_deferred") >= before + 5);
}

static const struct tap_test tests[] = {
	{ "PSK handshake between kernel sockets (IPv4)", test_psk_v4 },
	{ "PSK handshake between kernel sockets (IPv6)", test_psk_v6 },
	{ "five handshakes in a row", test_many_handshakes },
	{ "a wrong PSK fails the handshake on both ends", test_psk_wrong_key },
	{ "handshake datagrams are left to the user waiting in poll() (rx_deferred)",
	  test_handshake_to_reader },
};

static void write_file(char *path, const char *tmpl, const char *content)
{
	int fd;

	strcpy(path, tmpl);
	fd = mkstemp(path);
	if (fd < 0 || write(fd, content, strlen(content)) < 0)
		exit(2);
	close(fd);
}

int main(void)
{
	int ret;

	write_file(psk_file, "/tmp/quic-psk.XXXXXX",
		   "selftest:00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n");
	write_file(bad_psk_file, "/tmp/quic-psk.XXXXXX",
		   "selftest:ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100\n");
	ret = tap_main(tests, sizeof(tests) / sizeof(tests[0]));
	unlink(psk_file);
	unlink(bad_psk_file);
	return ret;
}

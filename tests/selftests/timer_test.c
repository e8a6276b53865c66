// SPDX-License-Identifier: GPL-2.0
/*
 * Timers that must run however busy the user keeps the socket.  Every
 * sendmsg() recomputes the loss/PTO and idle timers; a timer already due
 * must not be moved on each time, or a writer that calls faster than
 * softirqs expire timers keeps the PTO from ever firing and the
 * connection goes silent (seen under netem loss in a loaded guest).
 *
 * Each test runs in its own network namespace, where nftables drops every
 * datagram once the connection is up.
 */

#include "quic_conn.h"

#include <sched.h>

/*
 * The writers keep calling until the server's PTO has fired MIN_PTOS
 * times, or POKE_MS have passed.  With backoff, three PTOs take 7 PTO
 * periods: about 1.5 s on Debian's kernel, more on the debug kernel
 * (make check-debug), where the RTT the handshake measured is longer.
 */
#define POKE_MS		15000
#define MIN_PTOS	3

/* A private network namespace with loopback up. */
static int private_netns(void)
{
	if (unshare(CLONE_NEWNET))
		return -1;
	return system("ip link set lo up");
}

/* Drop every UDP datagram from now on (@on), or no longer. */
static int blackhole(int on)
{
	if (!on)
		return system("nft delete table inet blackhole");
	return system("nft -f - <<'EOF'\n"
		      "table inet blackhole {\n"
		      "	chain out {\n"
		      "		type filter hook output priority 0;\n"
		      "		meta l4proto udp drop\n"
		      "	}\n"
		      "}\n"
		      "EOF\n");
}

/* pto_count of the server's connection in /proc/net/quic, or -1. */
static int server_pto_count(void)
{
	char line[512], rem[128];
	int server, pto = -1, p;
	FILE *f = fopen("/proc/net/quic", "r");

	if (!f)
		return -1;
	/* local remote state server cwnd in_flight srtt_us pto_count ... */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %127s %*d %d %*u %*u %*u %d", rem,
			   &server, &p) == 3 && server == 1 && strcmp(rem, "-"))
			pto = p;
	}
	fclose(f);
	return pto;
}

struct poker {
	int fd;
	int cpu;
	volatile int *stop;
	long calls;
};

/* Call sendmsg() without pause on one CPU until told to stop. */
static void *poke(void *p)
{
	struct poker *k = p;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(k->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (!__atomic_load_n(k->stop, __ATOMIC_RELAXED)) {
		qsend(k->fd, "x", 1, S_BIDI(0), 0,
		      MSG_DONTWAIT | MSG_QUIC_STREAM_DONTWAIT);
		k->calls++;
	}
	return NULL;
}

/*
 * The server sends, then every datagram is lost.  While two writers call
 * sendmsg() on the server as fast as they can, the PTO keeps firing.
 */
static void test_pto_fires_while_writing(int family)
{
	static char data[65536];
	volatile int stop = 0;
	struct poker k[2];
	long long start;
	pthread_t th[2];
	struct conn c;
	int i, ptos;

	if (system("command -v nft > /dev/null"))
		SKIP_TEST("no nft (apt install nftables)");
	if (private_netns()) {
		printf("# no private network namespace\n");
		CHECK(0);
		return;
	}
	if (conn_open(&c, family))
		return;
	CHECK(qsend(c.sfd, data, sizeof(data), S_BIDI(0),
		    MSG_QUIC_STREAM_NEW, MSG_DONTWAIT) > 0);
	CHECK_OK(blackhole(1));
	CHECK(qsend(c.sfd, data, sizeof(data), S_BIDI(0), 0,
		    MSG_DONTWAIT) > 0);
	start = now_ms();
	for (i = 0; i < 2; i++) {
		k[i] = (struct poker){ .fd = c.sfd, .cpu = i, .stop = &stop };
		pthread_create(&th[i], NULL, poke, &k[i]);
	}
	do {
		usleep(100 * 1000);
		ptos = server_pto_count();
	} while (ptos < MIN_PTOS && now_ms() - start < POKE_MS);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ptos = server_pto_count();
	printf("# %ld and %ld sendmsg calls in %lld ms, pto_count %d\n",
	       k[0].calls, k[1].calls, now_ms() - start, ptos);
	CHECK(ptos >= MIN_PTOS);
	/* The link back, so that the close is heard and nothing lingers. */
	CHECK_OK(blackhole(0));
	conn_close(&c);
}

static const struct conn_test tests[] = {
	{ "PTO fires while writers call sendmsg without pause",
	  test_pto_fires_while_writing, FAM_BOTH },
};

int main(void)
{
	return conn_tests_main(tests, sizeof(tests) / sizeof(tests[0]));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * UDP GSO trains received whole (net/quic/udp.c, quic_udp_rcv_train()): a
 * crafted server (craft_peer.h) sends the kernel client several 1-RTT
 * packets with one sendmsg() and UDP_SEGMENT; loopback carries the GSO skb
 * whole to the kernel's tunnel socket, which takes it apart itself.  The
 * good packets of a train are acknowledged; a bad datagram anywhere in it
 * (a forged tag, garbage, a long header) is dropped alone, and the forged
 * packet is never acknowledged; a train of 64 datagrams is taken whole;
 * a train for a connection whose reader sleeps in recvmsg() is left to
 * that reader, and acknowledged.
 * (PING packets: the crafted peer sends no transport parameters, so the
 * client has no streams to receive on.)
 */

#include "craft_peer.h"
#include "../hostile/procfs.h"

#include <netinet/udp.h>
#include <pthread.h>
#include <sys/syscall.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT	103
#endif

/* Datagrams of a train, each @seg bytes but the last, built into @buf. */
struct train {
	uint8_t buf[65000];
	size_t len;
	size_t seg;
};

/*
 * A 1-RTT packet with a PING, padded to @len bytes, its tag broken if
 * @corrupt, at the end of @t.
 */
static int train_add_ping(struct peer *p, struct train *t, uint64_t pn,
			  size_t len, int corrupt)
{
	size_t hdr = 1 + p->dcid_len + 2, n;
	uint8_t frames[1500];
	int plen;

	if (hdr + 1 + CR_TAG_LEN > len || len > sizeof(frames))
		return -1;
	n = cr_put_ping(frames);
	n += cr_put_padding(frames + n, len - hdr - n - CR_TAG_LEN);
	plen = cr_short_build(&p->tx[p->tx_gen], p->dcid, p->dcid_len,
			      p->tx_gen & 1, pn, 2, frames, n,
			      t->buf + t->len, sizeof(t->buf) - t->len);
	if (plen != (int)len)
		return -1;
	if (corrupt)
		t->buf[t->len + plen - 1] ^= 0x01;	/* the tag */
	t->len += plen;
	return 0;
}

/*
 * The kernel client connected to the crafted peer @p, an empty train of
 * @seg-byte datagrams, and @n packet numbers reserved for it from *pn0.
 */
static int train_open(struct peer *p, struct train *t, int family,
		      size_t seg, int n, uint64_t *pn0)
{
	if (peer_open(p, family, 1))
		return -1;
	memset(t, 0, sizeof(*t));
	t->seg = seg;
	*pn0 = p->next_pn;
	p->next_pn += n;
	return 0;
}

/* Send the train with UDP GSO: one skb of t->len bytes. */
static int train_send(struct peer *p, struct train *t)
{
	int seg = t->seg, off = 0;
	ssize_t n;

	if (setsockopt(p->fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg)))
		return -1;
	n = sendto(p->fd, t->buf, t->len, 0, (struct sockaddr *)&p->kaddr,
		   p->kaddr_len);
	setsockopt(p->fd, SOL_UDP, UDP_SEGMENT, &off, sizeof(off));
	return n == (ssize_t)t->len ? 0 : -1;
}

/*
 * The first ACK of the kernel that covers @pn, in *k; -1 if none came or
 * the kernel closed.
 */
static int wait_ack(struct peer *p, uint64_t pn, struct kpkt *k)
{
	long long deadline = now_ms() + WAIT_MS;

	while (peer_recv(p, k, deadline - now_ms()) > 0) {
		if (k->has_close)
			return -1;
		if (k->has_ack && cr_ack_covers(&k->ack, pn))
			return 0;
	}
	return -1;
}

/*
 * good, forged tag, garbage to another connection ID and to ours, a long
 * header, good, a short good one last: the good ones are acknowledged (in
 * one ACK), the forged one never, and the connection goes on.
 */
static void test_bad_in_train(int family)
{
	static struct train t;
	const size_t seg = 1200;
	long trains = hp_stat("rx_trains");
	long decrypt = hp_stat("drop_decrypt_failed");
	uint64_t pn0, pn;
	struct peer p;
	struct kpkt k;
	uint8_t *d;

	if (train_open(&p, &t, family, seg, 4, &pn0))
		goto out;
	CHECK_OK(train_add_ping(&p, &t, pn0, seg, 0));
	CHECK_OK(train_add_ping(&p, &t, pn0 + 1, seg, 1));
	/* garbage: a short header with no connection ID of ours */
	d = t.buf + t.len;
	memset(d, 0x41, seg);
	t.len += seg;
	/* garbage to our connection ID: processed in place, and dropped */
	d = t.buf + t.len;
	memset(d, 0x41, seg);
	memcpy(d + 1, p.dcid, p.dcid_len);
	t.len += seg;
	/* a long header (Initial, v1) to our connection ID, not protected */
	d = t.buf + t.len;
	memset(d, 0, seg);
	d[0] = 0xc0;
	d[4] = 1;
	d[5] = p.dcid_len;
	memcpy(d + 6, p.dcid, p.dcid_len);
	t.len += seg;
	CHECK_OK(train_add_ping(&p, &t, pn0 + 2, seg, 0));
	CHECK_OK(train_add_ping(&p, &t, pn0 + 3, 300, 0));
	if (tap_failed_checks)
		goto out;
	CHECK_OK(train_send(&p, &t));
	CHECK_OK(wait_ack(&p, pn0 + 3, &k));
	CHECK(cr_ack_covers(&k.ack, pn0));
	CHECK(cr_ack_covers(&k.ack, pn0 + 2));
	CHECK(!cr_ack_covers(&k.ack, pn0 + 1));
	printf("# rx_trains +%ld, drop_decrypt_failed +%ld\n",
	       hp_stat("rx_trains") - trains,
	       hp_stat("drop_decrypt_failed") - decrypt);
	CHECK(hp_stat("rx_trains") > trains);
	CHECK(hp_stat("drop_decrypt_failed") >= decrypt + 2);
	/* and the connection goes on: a PING alone is acknowledged */
	pn = peer_send(&p, (const uint8_t *)"\x01", 1, 1);
	CHECK(pn != CR_PN_NONE && !wait_ack(&p, pn, &k));
	CHECK(!cr_ack_covers(&k.ack, pn0 + 1));
	/*
	 * The garbage to an unknown connection ID may be answered with a
	 * stateless reset (RFC 9000 §10.3), which the peer cannot open.
	 */
	printf("# packets the peer could not open: %d\n", p.undecryptable);
	CHECK(p.undecryptable <= 1);
	p.undecryptable = 0;
	check_clean(&p);
out:
	peer_close(&p);
}

/* 64 datagrams of 1000 bytes in one train: every one is acknowledged. */
static void test_full_train(int family)
{
	static struct train t;
	const size_t seg = 1000;
	uint64_t pn0;
	struct peer p;
	struct kpkt k;
	int i;

	if (train_open(&p, &t, family, seg, 64, &pn0))
		goto out;
	for (i = 0; i < 64; i++)
		CHECK_OK(train_add_ping(&p, &t, pn0 + i, seg, 0));
	if (tap_failed_checks)
		goto out;
	CHECK_OK(train_send(&p, &t));
	CHECK_OK(wait_ack(&p, pn0 + 63, &k));
	for (i = 0; i < 64; i++)
		CHECK(cr_ack_covers(&k.ack, pn0 + i));
	check_clean(&p);
out:
	peer_close(&p);
}

/* A reader blocked in recvmsg() on the kernel socket, and its thread id. */
struct blocked_reader {
	int fd;
	volatile pid_t tid;
};

static void *reader_main(void *arg)
{
	struct blocked_reader *r = arg;
	char c;

	r->tid = syscall(SYS_gettid);
	/* Nothing is ever readable: it returns at SO_RCVTIMEO. */
	(void)!recv(r->fd, &c, 1, 0);
	return NULL;
}

/* Is thread @tid asleep ('S' in /proc/self/task/TID/stat)? */
static int thread_sleeping(pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		ret = p && p[1] == ' ' && p[2] == 'S';
	}
	fclose(f);
	return ret;
}

/*
 * A train for a connection whose reader sleeps in recvmsg() is left to
 * that reader (input.c, "Receiving in the reader's context"): counted in
 * rx_deferred, processed in the reader's context, and every datagram is
 * still acknowledged.
 */
static void test_train_to_reader(int family)
{
	static struct train t;
	struct blocked_reader r = { .tid = 0 };
	struct timeval tv = { .tv_sec = 2 * WAIT_MS / 1000 };
	long deferred = hp_stat("rx_deferred");
	long long deadline;
	const size_t seg = 1000;
	pthread_t th;
	uint64_t pn0;
	struct peer p;
	struct kpkt k;
	int i;

	if (train_open(&p, &t, family, seg, 16, &pn0))
		goto out;
	for (i = 0; i < 16; i++)
		CHECK_OK(train_add_ping(&p, &t, pn0 + i, seg, 0));
	r.fd = p.kfd;
	CHECK_OK(setsockopt(p.kfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	if (tap_failed_checks)
		goto out;
	CHECK_OK(pthread_create(&th, NULL, reader_main, &r));
	/* Sent once the reader sleeps, not after a guess at how long. */
	deadline = now_ms() + WAIT_MS;
	while (now_ms() < deadline && !(r.tid && thread_sleeping(r.tid)))
		usleep(10000);
	CHECK(r.tid && thread_sleeping(r.tid));
	CHECK_OK(train_send(&p, &t));
	CHECK_OK(wait_ack(&p, pn0 + 15, &k));
	for (i = 0; i < 16; i++)
		CHECK(cr_ack_covers(&k.ack, pn0 + i));
	printf("# rx_deferred +%ld\n", hp_stat("rx_deferred") - deferred);
	CHECK(hp_stat("rx_deferred") >= deferred + 16);
	pthread_join(th, NULL);
	check_clean(&p);
out:
	peer_close(&p);
}

static const struct conn_test tests[] = {
	{ "train: a forged, a garbage and a long-header datagram drop alone",
	  test_bad_in_train, FAM_BOTH },
	{ "train: 64 datagrams, all acknowledged", test_full_train, FAM_BOTH },
	{ "train: left to a reader asleep in recvmsg(), all acknowledged",
	  test_train_to_reader, FAM_BOTH },
};

int main(void)
{
	return conn_tests_main(tests, sizeof(tests) / sizeof(tests[0]));
}

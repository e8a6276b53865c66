// SPDX-License-Identifier: GPL-2.0
/*
 * Key updates on the wire (RFC 9001 §6): a kernel QUIC socket against a
 * plain UDP socket that plays its peer (craft_peer.h), which knows every
 * key of every key phase, so it sees what the kernel sends in which phase
 * and can send what a well-behaved peer would not.
 *
 * The first test checks the crafter itself against RFC 9001 Appendix A;
 * run on the host with TEST_CASE=Appendix.
 */

#include "craft_peer.h"
#include "sysctl_guard.h"

#define SYSCTL_AEAD	"/proc/sys/net/quic/aead_integrity_limit"
#define INTEGRITY_LIMIT	20

static int key_update(int fd)
{
	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_KEY_UPDATE, NULL, 0);
}

/* The KEY_UPDATE event of the kernel socket, with phase @phase. */
static void check_event(struct peer *p, int phase)
{
	union quic_event ev;

	if (!recv_event(p->kfd, QUIC_EVENT_KEY_UPDATE, &ev) &&
	    ev.key_update_phase != phase) {
		printf("# KEY_UPDATE event with phase %d, want %d\n",
		       ev.key_update_phase, phase);
		CHECK(0);
	}
}

static void check_no_event(struct peer *p)
{
	struct rinfo ri;
	char buf[64];

	CHECK_ERR(qrecv(p->kfd, buf, sizeof(buf), MSG_DONTWAIT, &ri), EAGAIN);
}

/* ---- tests ---- */

static void test_vectors(int family)
{
	(void)family;
	CHECK(cr_selftest() == 0);
}

/*
 * The option refuses a key update before HANDSHAKE_DONE, and before any of
 * the kernel's 1-RTT packets is acknowledged (EAGAIN); once they are, the
 * kernel updates and says so with a PING in phase 1 at once.
 */
static void test_kernel_update_eagain(int family)
{
	struct peer p;
	struct kpkt k;
	uint8_t done = CR_FRAME_HANDSHAKE_DONE;
	long long deadline;
	uint64_t pn;

	if (peer_open(&p, family, 0))
		goto out;
	CHECK_ERR(key_update(p.kfd), EAGAIN);	/* not confirmed */
	p.auto_ack = 0;
	pn = peer_send(&p, &done, 1, 0);
	CHECK(!wait_ack_of(&p, pn, 0, &k, WAIT_MS));
	CHECK_ERR(key_update(p.kfd), EAGAIN);	/* nothing of it acknowledged */
	CHECK(!peer_ack_kernel_packets(&p));
	CHECK_OK(key_update(p.kfd));
	check_event(&p, 1);
	deadline = now_ms() + WAIT_MS;
	memset(&k, 0, sizeof(k));
	while (!k.has_ping && peer_recv(&p, &k, deadline - now_ms()) > 0)
		;
	if (!k.has_ping || k.gen != 1) {
		printf("# no PING in generation 1 (last packet %llu, generation %d)\n",
		       (unsigned long long)k.pn, k.gen);
		CHECK(0);
	}
	check_clean(&p);
out:
	peer_close(&p);
}

/*
 * We update keys, several times, each after the kernel acknowledged the
 * previous update in the new phase: it answers every time in the new phase,
 * never acknowledges a new-phase packet in an old-phase one, and its socket
 * reports each update.
 */
static void test_peer_updates(int family)
{
	struct peer p;
	struct kpkt k;
	int g, sent;

	if (peer_open(&p, family, 1))
		goto out;
	for (g = 1; g <= 4 && !tap_failed_checks; g++) {
		p.tx_gen = g;
		sent = ping_until_acked(&p, g, &k);
		if (sent < 0) {
			printf("# update to generation %d not acknowledged in it\n",
			       g);
			CHECK(0);
			break;
		}
		if (sent > 1)
			printf("# generation %d: %d PINGs before its ACK\n", g,
			       sent);
		CHECK(k.gen == g);
		check_event(&p, g & 1);
	}
	check_no_event(&p);
	check_clean(&p);
out:
	peer_close(&p);
}

/*
 * We update twice without waiting for the kernel's ACK in the new phase:
 * a packet of generation 1 that asks for no ACK (so none comes), then
 * PINGs of generation 2.  The kernel closes with KEY_UPDATE_ERROR.
 *
 * The kernel derives the keys of the phase after the current one in a
 * work item after each update: the first PINGs may come before they
 * exist and be dropped.  So a PING goes every GEN2_RETX_MS, as a peer
 * would retransmit, until the close comes.
 */
#define GEN2_RETX_MS	200

static void test_peer_updates_twice(int family)
{
	uint8_t buf[64], ping = CR_FRAME_PING;
	long long deadline;
	struct peer p;
	struct kpkt k;
	int sent = 0, closed = -1;
	size_t n;

	if (peer_open(&p, family, 1))
		goto out;
	p.auto_ack = 0;
	n = peer_put_ack(&p, buf);
	n += cr_put_padding(buf + n, 8);
	p.tx_gen = 1;
	CHECK(peer_send(&p, buf, n, 0) != CR_PN_NONE);
	p.tx_gen = 2;
	deadline = now_ms() + 2 * WAIT_MS;
	while (closed && now_ms() < deadline) {
		CHECK(peer_send(&p, &ping, 1, 0) != CR_PN_NONE);
		sent++;
		memset(&k, 0, sizeof(k));
		while (!k.has_close && peer_recv(&p, &k, GEN2_RETX_MS) > 0)
			;
		closed = k.has_close ? 0 : -1;
	}
	if (sent > 1)
		printf("# %d PINGs of generation 2 before the close\n", sent);
	if (closed)
		printf("# no CONNECTION_CLOSE after %d PINGs of generation 2\n",
		       sent);
	check_local_close(&p, &k, closed, QUIC_TRANSPORT_ERROR_KEY_UPDATE);
out:
	peer_close(&p);
}

/*
 * A packet of the old phase, older than the first of the new one, comes
 * late (within 3 PTO): the kernel accepts it and acknowledges it in the
 * new phase, and does not take it for another update.
 */
static void test_late_old_phase(int family)
{
	uint8_t ping = CR_FRAME_PING;
	struct peer p;
	struct kpkt k;
	uint64_t late;

	if (peer_open(&p, family, 1))
		goto out;
	late = p.next_pn++;		/* held back */
	p.tx_gen = 1;
	CHECK(ping_until_acked(&p, 1, &k) > 0);
	check_event(&p, 1);
	CHECK(!peer_send_pn(&p, 0, late, &ping, 1, 0));
	CHECK(!wait_ack_of(&p, late, 1, &k, WAIT_MS));
	/* Still in phase 1 both ways: no close, no second update. */
	CHECK(ping_until_acked(&p, 1, &k) == 1);
	CHECK(p.rx_gen == 1);
	check_no_event(&p);
	check_clean(&p);
out:
	peer_close(&p);
}

/*
 * net.quic.aead_integrity_limit=20: 19 packets that fail authentication
 * leave the connection up; the 20th closes it with AEAD_LIMIT_REACHED.
 */
static void test_integrity_limit(int family)
{
	uint8_t frames[32];
	struct peer p;
	struct kpkt k;
	int i;

	if (sysctl_set(SYSCTL_AEAD, "20")) {
		printf("# cannot set %s\n", SYSCTL_AEAD);
		CHECK(0);
		return;
	}
	if (peer_open(&p, family, 1))
		goto out;
	/* Long enough that the sample does not reach the tag. */
	frames[0] = CR_FRAME_PING;
	cr_put_padding(frames + 1, sizeof(frames) - 1);
	for (i = 0; i < INTEGRITY_LIMIT - 1; i++)
		CHECK(!peer_send_pn(&p, 0, p.next_pn++, frames, sizeof(frames),
				    1));
	/* Still up: a good packet is acknowledged, nothing closes. */
	CHECK(ping_until_acked(&p, 0, &k) == 1);
	CHECK(!peer_send_pn(&p, 0, p.next_pn++, frames, sizeof(frames), 1));
	check_local_close(&p, &k, wait_close(&p, &k, WAIT_MS),
			  QUIC_TRANSPORT_ERROR_AEAD_LIMIT_REACHED);
out:
	peer_close(&p);
	sysctl_restore();
}

/*
 * The kernel initiates, three times: a PING in the new phase at once,
 * EAGAIN for another until we acknowledge in the new phase, and we
 * respond as RFC 9001 §6.2 says: no error.
 */
static void test_kernel_updates(int family)
{
	long long deadline;
	struct peer p;
	struct kpkt k;
	int g;

	if (peer_open(&p, family, 1))
		goto out;
	CHECK(!peer_ack_kernel_packets(&p));
	p.auto_ack = 0;
	for (g = 1; g <= 3 && !tap_failed_checks; g++) {
		CHECK_OK(key_update(p.kfd));
		CHECK_ERR(key_update(p.kfd), EAGAIN);
		check_event(&p, g & 1);
		deadline = now_ms() + WAIT_MS;
		memset(&k, 0, sizeof(k));
		while (!k.has_ping && peer_recv(&p, &k, deadline - now_ms()) > 0)
			;
		if (!k.has_ping || k.gen != g) {
			printf("# update %d: no PING in generation %d\n", g, g);
			CHECK(0);
			break;
		}
		/* Respond: our keys too, and the ACK of its PING in them. */
		p.tx_gen = g;
		CHECK(ping_until_acked(&p, g, &k) > 0);
		CHECK(!k.has_close);
	}
	check_no_event(&p);
	check_clean(&p);
out:
	peer_close(&p);
}

/*
 * The kernel initiates; we acknowledge its PING of the new phase in a
 * packet of the old phase, as a peer that did not update would: the kernel
 * closes with KEY_UPDATE_ERROR.
 */
static void test_old_phase_ack_of_new(int family)
{
	long long deadline;
	uint8_t buf[64];
	struct peer p;
	struct kpkt k;
	uint64_t ping_pn = 0;
	size_t n;

	if (peer_open(&p, family, 1))
		goto out;
	CHECK(!peer_ack_kernel_packets(&p));
	p.auto_ack = 0;
	CHECK_OK(key_update(p.kfd));
	deadline = now_ms() + WAIT_MS;
	memset(&k, 0, sizeof(k));
	while (!k.has_ping && peer_recv(&p, &k, deadline - now_ms()) > 0)
		;
	if (!k.has_ping || k.gen != 1) {
		printf("# no PING in generation 1\n");
		CHECK(0);
		goto out;
	}
	ping_pn = k.pn;
	n = peer_put_ack(&p, buf);
	n += cr_put_padding(buf + n, 8);
	CHECK(p.tx_gen == 0);
	CHECK(peer_send(&p, buf, n, 0) != CR_PN_NONE);
	printf("# the kernel's PING %llu acknowledged in phase 0\n",
	       (unsigned long long)ping_pn);
	check_local_close(&p, &k, wait_close(&p, &k, WAIT_MS),
			  QUIC_TRANSPORT_ERROR_KEY_UPDATE);
out:
	peer_close(&p);
}

static const struct conn_test tests[] = {
	{ "crafter matches RFC 9001 Appendix A", test_vectors, 0 },
	{ "kernel update: EAGAIN before HANDSHAKE_DONE and before an ACK, then PING in phase 1",
	  test_kernel_update_eagain, 0 },
	{ "peer updates 4 times: acknowledged in the new phase, events",
	  test_peer_updates, FAM_BOTH },
	{ "peer updates twice without waiting: KEY_UPDATE_ERROR",
	  test_peer_updates_twice, FAM_BOTH },
	{ "late old-phase packet after an update is acknowledged",
	  test_late_old_phase, 0 },
	{ "aead_integrity_limit=20: 19 forgeries pass, the 20th closes with AEAD_LIMIT_REACHED",
	  test_integrity_limit, 0 },
	{ "kernel updates 3 times, EAGAIN until acknowledged in the new phase",
	  test_kernel_updates, 0 },
	{ "ACK of a new-phase packet in an old-phase packet: KEY_UPDATE_ERROR",
	  test_old_phase_ack_of_new, 0 },
};

int main(void)
{
	return sysctl_guarded_main(SYSCTL_AEAD, tests,
				   sizeof(tests) / sizeof(tests[0]));
}

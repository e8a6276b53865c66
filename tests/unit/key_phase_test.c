// SPDX-License-Identifier: GPL-2.0
/*
 * 1-RTT key phases, RFC 9001 §6 (net/quic/key_phase.c): the rules one by
 * one, then two endpoints updating keys at random over a lossy, reordering
 * network, with a simple model of their key generations standing in for
 * crypto.c.
 */
#include <linux/types.h>
#include <linux/errno.h>

#include "key_phase.h"
#include "packet_header.h"
#include "suites.h"
#include "tap.h"

#define MS	1000ULL
#define PTO	(10 * MS)
#define T0	(1000 * MS)

/* A connection whose first 1-RTT packets went both ways and were acked. */
static void kp_running(struct quic_key_phase *kp)
{
	quic_kp_init(kp);
	EXPECT_EQ(quic_kp_on_received(kp, QUIC_CRYPTO_KEY_CUR, 0, T0, PTO),
		  QUIC_KP_OK);
	quic_kp_on_sent(kp, 0, 0);
	quic_kp_on_acked(kp, 0, T0);
}

static void test_initiate(void)
{
	struct quic_key_phase kp;

	tap_begin("key phase: §6.1 no update before confirmation and an ACK");
	quic_kp_init(&kp);
	EXPECT_EQ(quic_kp_may_initiate(&kp, true), -EAGAIN);
	quic_kp_on_sent(&kp, 3, QUIC_PN_NONE);
	EXPECT_EQ(kp.tx_first_pn, 3);
	quic_kp_on_sent(&kp, 4, QUIC_PN_NONE);
	EXPECT_EQ(kp.tx_first_pn, 3);
	quic_kp_on_acked(&kp, 2, T0);		/* older packets only */
	EXPECT_EQ(quic_kp_may_initiate(&kp, true), -EAGAIN);
	quic_kp_on_acked(&kp, 3, T0 + MS);
	EXPECT_EQ(quic_kp_may_initiate(&kp, false), -EAGAIN);
	EXPECT_EQ(quic_kp_may_initiate(&kp, true), 0);
	EXPECT_EQ(kp.confirmed_at, T0 + MS);
	quic_kp_on_acked(&kp, 4, T0 + 2 * MS);	/* the first ACK counts */
	EXPECT_EQ(kp.confirmed_at, T0 + MS);
	tap_end();

	tap_begin("key phase: §6.1 our update, then none until it is acked");
	quic_kp_commit(&kp, QUIC_PN_NONE, T0 + 3 * MS, PTO);
	EXPECT_EQ(kp.updates & 1, 1);	/* the phase bit crypto.c flips */
	EXPECT_EQ(kp.updates, 1);
	EXPECT_EQ(quic_kp_may_initiate(&kp, true), -EAGAIN);
	quic_kp_on_sent(&kp, 5, QUIC_PN_NONE);
	quic_kp_on_acked(&kp, 4, T0 + 4 * MS);	/* an old-phase packet */
	EXPECT_EQ(quic_kp_may_initiate(&kp, true), -EAGAIN);
	quic_kp_on_acked(&kp, 5, T0 + 5 * MS);
	EXPECT_EQ(quic_kp_may_initiate(&kp, true), 0);
	tap_end();

	tap_begin("key phase: §6.1 a receiver asks for an ACK once per phase");
	EXPECT(!quic_kp_want_ack(&kp));		/* acked already */
	quic_kp_commit(&kp, 77, T0 + 6 * MS, PTO);
	quic_kp_on_sent(&kp, 6, 77);
	EXPECT(quic_kp_want_ack(&kp));
	EXPECT(!quic_kp_want_ack(&kp));
	quic_kp_on_acked(&kp, 6, T0 + 7 * MS);
	EXPECT(!quic_kp_want_ack(&kp));
	quic_kp_commit(&kp, QUIC_PN_NONE, T0 + 8 * MS, PTO);
	EXPECT(quic_kp_want_ack(&kp));
	/* back to the phase the next test expects */
	quic_kp_init(&kp);
	quic_kp_commit(&kp, QUIC_PN_NONE, T0 + 3 * MS, PTO);
	quic_kp_on_sent(&kp, 5, QUIC_PN_NONE);
	quic_kp_on_acked(&kp, 5, T0 + 5 * MS);
	tap_end();

	tap_begin("key phase: §6.5 automatic updates wait 3 PTO after the ACK");
	EXPECT(!quic_kp_auto_due(&kp, true, T0 + 5 * MS, PTO));
	EXPECT(!quic_kp_auto_due(&kp, true, T0 + 5 * MS + 3 * PTO - 1, PTO));
	EXPECT(quic_kp_auto_due(&kp, true, T0 + 5 * MS + 3 * PTO, PTO));
	EXPECT(!quic_kp_auto_due(&kp, false, T0 + 5 * MS + 3 * PTO, PTO));
	tap_end();
}

static void test_peer_update(void)
{
	struct quic_key_phase kp;
	u64 now = T0;

	tap_begin("key phase: §6.2 the peer's update, followed, several times");
	kp_running(&kp);
	EXPECT(kp.rx_acked);
	for (int i = 1; i <= 4; i++) {
		u64 pn = 10 * i;

		EXPECT_EQ(quic_kp_on_received(&kp, QUIC_CRYPTO_KEY_NEXT, pn,
					      now, PTO), QUIC_KP_UPDATE);
		quic_kp_commit(&kp, pn, now, PTO);
		EXPECT_EQ(kp.updates & 1, i & 1);
		EXPECT_EQ(kp.updates, i);
		EXPECT_EQ(kp.rx_first_pn, pn);
		EXPECT_EQ(quic_kp_discard_deadline(&kp), now + 3 * PTO);
		EXPECT(!kp.rx_acked);
		/* an ACK-only packet of ours that covers it */
		quic_kp_on_sent(&kp, 100 + i, pn);
		EXPECT(kp.rx_acked);
		now += MS;
	}
	tap_end();

	tap_begin("key phase: §6.2 a second update before our ACK is an error");
	kp_running(&kp);
	EXPECT_EQ(quic_kp_on_received(&kp, QUIC_CRYPTO_KEY_NEXT, 7, T0, PTO),
		  QUIC_KP_UPDATE);
	quic_kp_commit(&kp, 7, T0, PTO);
	/* packets that leave without an ACK, or with an older one */
	quic_kp_on_sent(&kp, 1, QUIC_PN_NONE);
	quic_kp_on_sent(&kp, 2, 6);
	EXPECT(!kp.rx_acked);
	EXPECT_EQ(quic_kp_on_received(&kp, QUIC_CRYPTO_KEY_CUR, 8, T0, PTO),
		  QUIC_KP_OK);
	EXPECT_EQ(quic_kp_on_received(&kp, QUIC_CRYPTO_KEY_NEXT, 9, T0, PTO),
		  QUIC_KP_ERROR);
	tap_end();

	tap_begin("key phase: §6.2 the very first update needs our first ACK");
	quic_kp_init(&kp);
	EXPECT_EQ(quic_kp_on_received(&kp, QUIC_CRYPTO_KEY_NEXT, 0, T0, PTO),
		  QUIC_KP_ERROR);
	tap_end();
}

static void test_old_keys(void)
{
	struct quic_key_phase kp;

	tap_begin("key phase: §6.5 old keys go 3 PTO after the peer's new ones");
	kp_running(&kp);
	quic_kp_on_sent(&kp, 1, QUIC_PN_NONE);
	quic_kp_commit(&kp, QUIC_PN_NONE, T0, PTO);	/* ours */
	EXPECT_EQ(quic_kp_discard_deadline(&kp), 0);
	/* the peer's old-phase packets keep coming, then it follows */
	EXPECT_EQ(quic_kp_on_received(&kp, QUIC_CRYPTO_KEY_PREV, 5, T0 + MS,
				      PTO), QUIC_KP_OK);
	EXPECT_EQ(quic_kp_discard_deadline(&kp), 0);
	EXPECT_EQ(quic_kp_on_received(&kp, QUIC_CRYPTO_KEY_CUR, 9, T0 + 2 * MS,
				      PTO), QUIC_KP_OK);
	EXPECT_EQ(quic_kp_discard_deadline(&kp), T0 + 2 * MS + 3 * PTO);
	/* a reordered earlier one of the new phase lowers the first pn */
	EXPECT_EQ(quic_kp_on_received(&kp, QUIC_CRYPTO_KEY_CUR, 7, T0 + 3 * MS,
				      PTO), QUIC_KP_OK);
	EXPECT_EQ(kp.rx_first_pn, 7);
	EXPECT_EQ(quic_kp_discard_deadline(&kp), T0 + 2 * MS + 3 * PTO);
	EXPECT(!quic_kp_discard_due(&kp, T0 + 2 * MS + 3 * PTO - 1));
	EXPECT(quic_kp_discard_due(&kp, T0 + 2 * MS + 3 * PTO));
	quic_kp_discarded(&kp);
	EXPECT_EQ(quic_kp_discard_deadline(&kp), 0);
	EXPECT(!quic_kp_discard_due(&kp, T0 + 10 * PTO));
	/* new packets of the phase no longer arm anything */
	EXPECT_EQ(quic_kp_on_received(&kp, QUIC_CRYPTO_KEY_CUR, 3, T0 + 4 * MS,
				      PTO), QUIC_KP_OK);
	EXPECT_EQ(quic_kp_discard_deadline(&kp), 0);
	tap_end();

	tap_begin("key phase: §6.2 an ACK of our new phase in an old packet");
	kp_running(&kp);
	quic_kp_commit(&kp, QUIC_PN_NONE, T0, PTO);
	quic_kp_on_sent(&kp, 20, QUIC_PN_NONE);
	EXPECT(quic_kp_ack_allowed(&kp, QUIC_CRYPTO_KEY_PREV, 19));
	EXPECT(!quic_kp_ack_allowed(&kp, QUIC_CRYPTO_KEY_PREV, 20));
	EXPECT(quic_kp_ack_allowed(&kp, QUIC_CRYPTO_KEY_CUR, 20));
	tap_end();
}

static void test_limits(void)
{
	const u64 gcm = 1ULL << 23, ccm = 2965820ULL;

	tap_begin("key phase: §6.6 update thresholds and limits");
	EXPECT_EQ(quic_kp_threshold(gcm, 0), 6291456);
	EXPECT_EQ(quic_kp_threshold(ccm, 0), 2224365);
	EXPECT_EQ(quic_kp_threshold(gcm, 1000), 1000);
	EXPECT_EQ(quic_kp_threshold(gcm, 1ULL << 40), 6291456);
	EXPECT(quic_kp_threshold(~0ULL, 0) > (1ULL << 62));
	EXPECT_EQ(quic_kp_threshold(~0ULL, 1000), 1000);
	EXPECT(quic_kp_close_point(gcm) > quic_kp_threshold(gcm, 0));
	EXPECT(quic_kp_close_point(gcm) < gcm);
	EXPECT_EQ(quic_kp_integrity_limit(1ULL << 52, 0), 1ULL << 52);
	EXPECT_EQ(quic_kp_integrity_limit(1ULL << 52, 20), 20);
	EXPECT_EQ(quic_kp_integrity_limit(1ULL << 36, 1ULL << 40), 1ULL << 36);
	tap_end();
}

/*
 * Two endpoints.  The model of crypto.c: send keys of generation gen,
 * receive keys gen (current), gen + 1 (next, always derived) and gen - 1
 * (previous, while held); the receive keys of a packet are chosen from its
 * Key Phase bit and packet number as quic_crypto_rx_key() does, and open
 * it only if their generation is the packet's.
 */
struct sim_end {
	struct quic_key_phase kp;
	u32 gen;
	u64 crypto_first;	/* lowest pn opened with current keys */
	u64 next_pn;
	u64 largest_rx;		/* QUIC_PN_NONE: nothing yet */
	bool ack_due;
	u32 errors;
};

struct sim_pkt {
	u64 pn;
	u32 gen;
	u64 ack;		/* QUIC_PN_NONE: no ACK frame */
	int to;
};

#define SIM_NET	64

static void sim_commit(struct sim_end *e, u64 first, u64 now)
{
	e->gen++;
	e->crypto_first = first;
	quic_kp_commit(&e->kp, first, now, PTO);
}

static void sim_send(struct sim_end *e, struct sim_pkt *net, int *n, int to)
{
	struct sim_pkt *p;
	u64 ack = e->ack_due ? e->largest_rx : QUIC_PN_NONE;

	if (*n == SIM_NET)
		return;
	p = &net[(*n)++];
	p->pn = e->next_pn++;
	p->gen = e->gen;
	p->ack = ack;
	p->to = to;
	e->ack_due = false;
	quic_kp_on_sent(&e->kp, p->pn, ack);
}

static void sim_receive(struct sim_end *e, const struct sim_pkt *p, u64 now)
{
	enum quic_crypto_key_role keys;
	u32 gen;

	if ((p->gen & 1) == (e->gen & 1)) {
		keys = QUIC_CRYPTO_KEY_CUR;
		gen = e->gen;
	} else if (e->kp.prev_keys && p->pn < e->crypto_first) {
		keys = QUIC_CRYPTO_KEY_PREV;
		gen = e->gen - 1;
	} else {
		keys = QUIC_CRYPTO_KEY_NEXT;
		gen = e->gen + 1;
	}
	if (gen != p->gen)
		return;		/* fails authentication: dropped */
	if (keys == QUIC_CRYPTO_KEY_CUR && p->pn < e->crypto_first)
		e->crypto_first = p->pn;
	switch (quic_kp_on_received(&e->kp, keys, p->pn, now, PTO)) {
	case QUIC_KP_ERROR:
		e->errors++;
		return;
	case QUIC_KP_UPDATE:
		sim_commit(e, p->pn, now);
		break;
	default:
		break;
	}
	if (p->ack != QUIC_PN_NONE) {
		if (!quic_kp_ack_allowed(&e->kp, keys, p->ack))
			e->errors++;
		quic_kp_on_acked(&e->kp, p->ack, now);
	}
	if (e->largest_rx == QUIC_PN_NONE || p->pn > e->largest_rx)
		e->largest_rx = p->pn;
	e->ack_due = true;
}

static void test_random(void)
{
	uint64_t seed = 0x5eed;

	tap_begin("key phase: random updates over loss and reordering agree");
	for (int run = 0; run < 200; run++) {
		struct sim_end end[2];
		struct sim_pkt net[SIM_NET];
		int n = 0, updates = 0;
		u64 now = T0;

		for (int i = 0; i < 2; i++) {
			memset(&end[i], 0, sizeof(end[i]));
			quic_kp_init(&end[i].kp);
			end[i].crypto_first = QUIC_PN_NONE;
			end[i].largest_rx = QUIC_PN_NONE;
		}
		for (int step = 0; step < 3000; step++) {
			uint64_t r = test_rand(&seed);
			int who = r & 1;
			struct sim_end *e = &end[who];

			now += MS / 4;
			for (int i = 0; i < 2; i++)
				if (quic_kp_discard_due(&end[i].kp, now))
					quic_kp_discarded(&end[i].kp);
			switch ((r >> 1) % 8) {
			case 0:	/* an update, if allowed */
				if (!quic_kp_may_initiate(&e->kp, true)) {
					sim_commit(e, QUIC_PN_NONE, now);
					updates++;
				}
				break;
			case 1: case 2: case 3:
				sim_send(e, net, &n, !who);
				break;
			default: {	/* deliver one of the first few */
				int k;

				if (!n)
					break;
				k = (r >> 8) % (n < 4 ? n : 4);
				if ((r >> 16) % 10)	/* 10% are lost */
					sim_receive(&end[net[k].to], &net[k],
						    now);
				net[k] = net[--n];
				break;
			}
			}
		}
		/* quiet: deliver what is left, then one exchange */
		while (n)
			sim_receive(&end[net[n - 1].to], &net[n - 1], now),
			n--;
		sim_send(&end[0], net, &n, 1);
		sim_receive(&end[1], &net[0], now);
		n = 0;
		sim_send(&end[1], net, &n, 0);
		sim_receive(&end[0], &net[0], now);
		if (!EXPECT_EQ(end[0].errors + end[1].errors, 0) ||
		    !EXPECT_EQ(end[0].gen, end[1].gen) ||
		    !EXPECT_EQ(end[0].kp.updates, end[1].kp.updates) ||
		    !EXPECT(updates > 0))
			break;
	}
	tap_end();
}

void key_phase_tests(void)
{
	test_initiate();
	test_peer_update();
	test_old_keys();
	test_limits();
	test_random();
}

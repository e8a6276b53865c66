// SPDX-License-Identifier: GPL-2.0
/*
 * RFC 9000 §13.4 and Appendix A.4: the ECN state of a path, the validation
 * of the peer's ECN counts, the counts we report (net/quic/ecn.c).
 */
#include "rt.h"
#include "ecn.h"

#define APP	QUIC_PN_SPACE_APP

/* @n packets of @space sent while marking (or not). */
static void sent(struct quic_ecn *e, u8 space, int n)
{
	while (n--)
		quic_ecn_sent(e, space, quic_ecn_state_marks(e), true);
}

static void testing_marks_ten_then_waits(void)
{
	struct quic_ecn e;

	quic_ecn_init(&e);
	EXPECT(quic_ecn_state_marks(&e));
	sent(&e, APP, QUIC_ECN_TEST_PKTS - 1);
	EXPECT_EQ(e.state, QUIC_ECN_TESTING);
	sent(&e, APP, 1);
	EXPECT_EQ(e.state, QUIC_ECN_UNKNOWN);
	EXPECT(!quic_ecn_state_marks(&e));
	sent(&e, APP, 5);
	EXPECT_EQ(e.sent[APP], QUIC_ECN_TEST_PKTS);
	EXPECT_EQ(e.ect0_sent, QUIC_ECN_TEST_PKTS);
}

static void valid_counts_make_capable(void)
{
	struct quic_ecn e;
	u64 c[3] = { 3, 0, 0 };

	quic_ecn_init(&e);
	sent(&e, APP, 4);
	EXPECT(quic_ecn_validate(&e, APP, c, 3, 0));
	EXPECT_EQ(e.state, QUIC_ECN_CAPABLE);
	EXPECT(quic_ecn_state_marks(&e));
	/* ACK-only packets of ours may be counted too: more is fine. */
	c[0] = 4;
	EXPECT(quic_ecn_validate(&e, APP, c, 0, 0));
	EXPECT_EQ(e.state, QUIC_ECN_CAPABLE);
}

static void missing_counts_fail(void)
{
	struct quic_ecn e;

	quic_ecn_init(&e);
	sent(&e, APP, 2);
	/* An ACK of unmarked packets only says nothing. */
	EXPECT(!quic_ecn_validate(&e, APP, NULL, 0, 1));
	EXPECT_EQ(e.state, QUIC_ECN_TESTING);
	EXPECT(!quic_ecn_validate(&e, APP, NULL, 1, 0));
	EXPECT_EQ(e.state, QUIC_ECN_FAILED);
	EXPECT_EQ(e.fail, QUIC_ECN_FAIL_MISSING);
	EXPECT_EQ(e.failures, 1);
	EXPECT(!quic_ecn_state_marks(&e));
	/* Failed stays failed; nothing counts twice. */
	EXPECT(!quic_ecn_validate(&e, APP, NULL, 1, 0));
	EXPECT_EQ(e.failures, 1);
}

static void bleached_fails(void)
{
	struct quic_ecn e;
	u64 c[3] = { 1, 0, 0 };

	quic_ecn_init(&e);
	sent(&e, APP, 4);
	EXPECT(!quic_ecn_validate(&e, APP, c, 2, 0));
	EXPECT_EQ(e.fail, QUIC_ECN_FAIL_BLEACHED);
}

static void ce_covers_marked(void)
{
	struct quic_ecn e;
	u64 c[3] = { 1, 0, 1 };

	quic_ecn_init(&e);
	sent(&e, APP, 2);
	EXPECT(quic_ecn_validate(&e, APP, c, 2, 0));
	EXPECT_EQ(e.state, QUIC_ECN_CAPABLE);
	/* The CE count is the caller's to take (quic_cong_on_ecn()). */
	EXPECT_EQ(e.peer[APP][QUIC_ECN_IDX_CE], 0);
	EXPECT_EQ(e.peer[APP][QUIC_ECN_IDX_ECT0], 1);
}

static void decrease_fails(void)
{
	struct quic_ecn e;
	u64 c[3] = { 2, 0, 0 };

	quic_ecn_init(&e);
	sent(&e, APP, 3);
	EXPECT(quic_ecn_validate(&e, APP, c, 2, 0));
	c[0] = 1;
	EXPECT(!quic_ecn_validate(&e, APP, c, 0, 0));
	EXPECT_EQ(e.fail, QUIC_ECN_FAIL_DECREASED);
}

static void remarked_fails(void)
{
	struct quic_ecn e;
	u64 c[3] = { 3, 0, 0 };

	quic_ecn_init(&e);
	sent(&e, APP, 2);
	EXPECT(!quic_ecn_validate(&e, APP, c, 2, 0));
	EXPECT_EQ(e.fail, QUIC_ECN_FAIL_REMARKED);

	quic_ecn_init(&e);
	sent(&e, APP, 2);
	c[0] = 1;
	c[1] = 1;
	EXPECT(!quic_ecn_validate(&e, APP, c, 2, 0));
	EXPECT_EQ(e.fail, QUIC_ECN_FAIL_REMARKED);
}

/* Spaces are separate: counts of one never validate another's packets. */
static void spaces_separate(void)
{
	struct quic_ecn e;
	u64 c[3] = { 1, 0, 0 };

	quic_ecn_init(&e);
	sent(&e, QUIC_PN_SPACE_INITIAL, 1);
	EXPECT(!quic_ecn_validate(&e, APP, c, 0, 0));
	EXPECT_EQ(e.fail, QUIC_ECN_FAIL_REMARKED);
}

static void test_packets_lost_fail(void)
{
	struct quic_ecn e;

	quic_ecn_init(&e);
	sent(&e, APP, QUIC_ECN_TEST_PKTS);
	sent(&e, APP, 2);	/* unmarked, after the test */
	EXPECT_EQ(e.state, QUIC_ECN_UNKNOWN);
	EXPECT(!quic_ecn_validate(&e, APP, NULL, 0, 2));
	EXPECT_EQ(e.state, QUIC_ECN_FAILED);
	EXPECT_EQ(e.fail, QUIC_ECN_FAIL_LOST);
}

static void new_path_tests_again(void)
{
	struct quic_ecn e;
	u64 c[3] = { 2, 0, 0 };

	quic_ecn_init(&e);
	sent(&e, APP, 2);
	EXPECT(quic_ecn_validate(&e, APP, c, 2, 0));
	quic_ecn_new_path(&e);
	EXPECT_EQ(e.state, QUIC_ECN_TESTING);
	EXPECT(!e.acked_marked);
	/* The old counts are the baseline. */
	sent(&e, APP, 1);
	c[0] = 3;
	EXPECT(quic_ecn_validate(&e, APP, c, 1, 0));
	EXPECT_EQ(e.state, QUIC_ECN_CAPABLE);
}

static void off_never_marks(void)
{
	struct quic_ecn e;

	quic_ecn_init(&e);
	quic_ecn_sent(&e, APP, false, false);
	EXPECT_EQ(e.state, QUIC_ECN_OFF);
	EXPECT(!quic_ecn_state_marks(&e));
	quic_ecn_new_path(&e);
	EXPECT_EQ(e.state, QUIC_ECN_OFF);
	EXPECT(!quic_ecn_validate(&e, APP, NULL, 0, 3));
}

static void received_counts(void)
{
	struct quic_ecn e;
	const u64 *c;

	quic_ecn_init(&e);
	EXPECT(!quic_ecn_received(&e, APP, QUIC_ECN_NOT_ECT));
	EXPECT(!quic_ecn_ack_counts(&e, APP));
	EXPECT(!quic_ecn_received(&e, APP, QUIC_ECN_ECT0));
	EXPECT(!quic_ecn_received(&e, APP, QUIC_ECN_ECT1));
	EXPECT(quic_ecn_received(&e, APP, QUIC_ECN_CE_MARK));
	c = quic_ecn_ack_counts(&e, APP);
	EXPECT(c && c[0] == 1 && c[1] == 1 && c[2] == 1);
	EXPECT(!quic_ecn_ack_counts(&e, QUIC_PN_SPACE_HANDSHAKE));
	EXPECT_EQ(e.ce_rcvd, 1);
}

static const struct rt_case cases[] = {
	RT_CASE(testing_marks_ten_then_waits),
	RT_CASE(valid_counts_make_capable),
	RT_CASE(missing_counts_fail),
	RT_CASE(bleached_fails),
	RT_CASE(ce_covers_marked),
	RT_CASE(decrease_fails),
	RT_CASE(remarked_fails),
	RT_CASE(spaces_separate),
	RT_CASE(test_packets_lost_fail),
	RT_CASE(new_path_tests_again),
	RT_CASE(off_never_marks),
	RT_CASE(received_counts),
};

void ecn_tests(void)
{
	rt_run("ecn", cases, ARRAY_SIZE(cases));
}

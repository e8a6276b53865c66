// SPDX-License-Identifier: GPL-2.0
/*
 * ECN state of a connection's path and the validation of the peer's ECN
 * counts (RFC 9000 §13.4, Appendix A.4).  The rules are listed in ecn.h;
 * pure code, the caller owns the socket and its lock.
 */

#include <linux/kernel.h>
#include <linux/string.h>

#include "ecn.h"

void quic_ecn_init(struct quic_ecn *e)
{
	memset(e, 0, sizeof(*e));
	e->state = QUIC_ECN_TESTING;
}

void quic_ecn_new_path(struct quic_ecn *e)
{
	if (e->state == QUIC_ECN_OFF)
		return;
	e->state = QUIC_ECN_TESTING;
	e->acked_marked = false;
	e->test_sent = 0;
}

bool quic_ecn_state_marks(const struct quic_ecn *e)
{
	return e->state == QUIC_ECN_TESTING || e->state == QUIC_ECN_CAPABLE;
}

void quic_ecn_sent(struct quic_ecn *e, u8 space, bool marked, bool enabled)
{
	if (e->state == QUIC_ECN_TESTING && !enabled && !e->test_sent) {
		e->state = QUIC_ECN_OFF;
		return;
	}
	if (!marked || space >= QUIC_PN_SPACE_MAX)
		return;
	e->sent[space]++;
	e->ect0_sent++;
	if (e->state == QUIC_ECN_TESTING &&
	    ++e->test_sent >= QUIC_ECN_TEST_PKTS)
		e->state = QUIC_ECN_UNKNOWN;
}

bool quic_ecn_received(struct quic_ecn *e, u8 space, u8 ecn)
{
	u64 *rx;

	if (space >= QUIC_PN_SPACE_MAX)
		return false;
	rx = e->rx[space];
	switch (ecn & QUIC_ECN_CE_MARK) {
	case QUIC_ECN_ECT0:
		rx[QUIC_ECN_IDX_ECT0]++;
		return false;
	case QUIC_ECN_ECT1:
		rx[QUIC_ECN_IDX_ECT1]++;
		return false;
	case QUIC_ECN_CE_MARK:
		rx[QUIC_ECN_IDX_CE]++;
		e->ce_rcvd++;
		return true;
	default:
		return false;
	}
}

const u64 *quic_ecn_ack_counts(const struct quic_ecn *e, u8 space)
{
	const u64 *rx;

	if (space >= QUIC_PN_SPACE_MAX)
		return NULL;
	rx = e->rx[space];
	if (!rx[QUIC_ECN_IDX_ECT0] && !rx[QUIC_ECN_IDX_ECT1] &&
	    !rx[QUIC_ECN_IDX_CE])
		return NULL;
	return rx;
}

static bool quic_ecn_failed(struct quic_ecn *e, enum quic_ecn_fail why)
{
	e->state = QUIC_ECN_FAILED;
	e->fail = why;
	e->failures++;
	return false;
}

/* The test packets were lost: only unmarked ones came through. */
static bool quic_ecn_test_lost(const struct quic_ecn *e, u64 newly_unmarked)
{
	return e->state == QUIC_ECN_UNKNOWN && !e->acked_marked &&
	       newly_unmarked;
}

bool quic_ecn_validate(struct quic_ecn *e, u8 space, const u64 *counts,
		       u64 newly_marked, u64 newly_unmarked)
{
	u64 *prev;

	if (space >= QUIC_PN_SPACE_MAX || e->state == QUIC_ECN_FAILED ||
	    e->state == QUIC_ECN_OFF)
		return false;
	prev = e->peer[space];
	if (!counts) {
		if (newly_marked)
			return quic_ecn_failed(e, QUIC_ECN_FAIL_MISSING);
		if (quic_ecn_test_lost(e, newly_unmarked))
			return quic_ecn_failed(e, QUIC_ECN_FAIL_LOST);
		return false;
	}
	if (counts[QUIC_ECN_IDX_ECT0] < prev[QUIC_ECN_IDX_ECT0] ||
	    counts[QUIC_ECN_IDX_ECT1] < prev[QUIC_ECN_IDX_ECT1] ||
	    counts[QUIC_ECN_IDX_CE] < prev[QUIC_ECN_IDX_CE])
		return quic_ecn_failed(e, QUIC_ECN_FAIL_DECREASED);
	if (counts[QUIC_ECN_IDX_ECT0] > e->sent[space] ||
	    counts[QUIC_ECN_IDX_ECT1])
		return quic_ecn_failed(e, QUIC_ECN_FAIL_REMARKED);
	/* Each is at most e->sent[space] here: no overflow. */
	if ((counts[QUIC_ECN_IDX_ECT0] - prev[QUIC_ECN_IDX_ECT0]) +
	    min(counts[QUIC_ECN_IDX_CE] - prev[QUIC_ECN_IDX_CE],
		(u64)U32_MAX) < newly_marked)
		return quic_ecn_failed(e, QUIC_ECN_FAIL_BLEACHED);
	if (!newly_marked && quic_ecn_test_lost(e, newly_unmarked))
		return quic_ecn_failed(e, QUIC_ECN_FAIL_LOST);
	prev[QUIC_ECN_IDX_ECT0] = counts[QUIC_ECN_IDX_ECT0];
	prev[QUIC_ECN_IDX_ECT1] = counts[QUIC_ECN_IDX_ECT1];
	if (newly_marked) {
		e->acked_marked = true;
		e->state = QUIC_ECN_CAPABLE;
	}
	return true;
}

const char *quic_ecn_state_name(u8 state)
{
	static const char *const names[] = {
		[QUIC_ECN_TESTING]	= "testing",
		[QUIC_ECN_UNKNOWN]	= "unknown",
		[QUIC_ECN_CAPABLE]	= "capable",
		[QUIC_ECN_FAILED]	= "failed",
		[QUIC_ECN_OFF]		= "off",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "?";
}

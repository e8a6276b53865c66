// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC ACK generation timing (RFC 9000 §13.2, draft-ietf-quic-ack-frequency)
 * and ACK Delay encoding.  Rules are listed in ackdelay.h.
 */

#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "constants.h"
#include "ackdelay.h"

void quic_ack_timing_init(struct quic_ack_timing *at, enum quic_pn_space space,
			  u64 max_ack_delay)
{
	memset(at, 0, sizeof(*at));
	at->space = space;
	at->max_ack_delay = max_ack_delay;
	at->threshold = QUIC_ACK_DEF_THRESHOLD;
	at->reorder_threshold = QUIC_ACK_DEF_REORDER_THRESHOLD;
}

/*
 * Smallest packet number in [lo, hi] that is not in @s, into *pn.  Numbers
 * below the set's floor are no longer tracked and count as received.
 */
static bool quic_ack_first_missing(const struct quic_ack_ranges *s, u64 lo,
				   u64 hi, u64 *pn)
{
	u64 x = max(lo, s->floor);
	bool moved = true;
	u32 i;

	while (moved && x <= hi) {
		moved = false;
		for (i = 0; i < s->n; i++) {
			if (s->r[i].start <= x && x <= s->r[i].end) {
				if (s->r[i].end == U64_MAX)
					return false;
				x = s->r[i].end + 1;
				moved = true;
				break;
			}
		}
	}
	if (x > hi)
		return false;
	*pn = x;
	return true;
}

/* RFC 9000 §13.2.1 out-of-order rules (Reordering Threshold 1) */
static bool quic_ack_reordered_rfc9000(const struct quic_ack_timing *at,
				       u64 pn,
				       const struct quic_ack_ranges *rcvd)
{
	u64 miss;

	if (!at->has_eliciting)
		return false;
	if (pn < at->largest_eliciting)
		return true;
	return pn > at->largest_eliciting + 1 &&
	       quic_ack_first_missing(rcvd, at->largest_eliciting + 1, pn - 1,
				      &miss);
}

/* ack-frequency §6.2, Reordering Threshold above 1 */
static bool quic_ack_reordered_af(const struct quic_ack_timing *at, u64 pn,
				  const struct quic_ack_ranges *rcvd)
{
	u64 t = at->reorder_threshold, lu = pn, lo = 0, miss;

	if (at->has_eliciting) {
		if (pn < at->largest_eliciting && at->has_acked &&
		    at->largest_acked >= t && pn <= at->largest_acked - t)
			return true;
		lu = max(lu, at->largest_eliciting);
	}
	/* Unreported Missing lies above Largest Reported Missing */
	if (at->has_acked && at->largest_acked >= t)
		lo = at->largest_acked - t + 1;
	if (!lu || !quic_ack_first_missing(rcvd, lo, lu - 1, &miss))
		return false;
	return lu - miss >= t;
}

static bool quic_ack_reordered(const struct quic_ack_timing *at, u64 pn,
			       const struct quic_ack_ranges *rcvd)
{
	switch (at->reorder_threshold) {
	case 0:
		return false;
	case 1:
		return quic_ack_reordered_rfc9000(at, pn, rcvd);
	default:
		return quic_ack_reordered_af(at, pn, rcvd);
	}
}

/* RFC 9000 §13.2.1 and ack-frequency §6.3 */
static bool quic_ack_ce_now(const struct quic_ack_timing *at, bool ce,
			    bool ce_prev)
{
	if (!ce)
		return false;
	return at->threshold <= 1 || !ce_prev;
}

/*
 * Request/response (ackdelay.h): may the Ack-Eliciting Threshold just
 * crossed wait for the application's answer?  Not if the peer chose the
 * threshold with ACK_FREQUENCY.
 */
static bool quic_ack_reply_wait(const struct quic_ack_timing *at)
{
	return at->pingpong && !at->af_seen &&
	       at->unacked_eliciting <= QUIC_ACK_PINGPONG_MAX;
}

enum quic_ack_action quic_ack_on_packet(struct quic_ack_timing *at,
					const struct quic_ack_rx *rx,
					const struct quic_ack_ranges *rcvd,
					u64 now)
{
	bool now_ack = false, reply = false, ce_prev = at->last_ce;

	if (!at->has_largest || rx->pn > at->largest_pn) {
		at->largest_pn = rx->pn;
		at->largest_rx_time = now;
		at->has_largest = true;
	}
	at->pending = true;
	at->last_ce = rx->ecn_ce;
	if (!rx->ack_eliciting)
		return at->immediate ? QUIC_ACK_NOW :
		       at->deadline ? QUIC_ACK_DELAYED : QUIC_ACK_NONE;

	if (at->space != QUIC_PN_SPACE_APP || rx->immediate_ack)
		now_ack = true;
	if (quic_ack_reordered(at, rx->pn, rcvd))
		now_ack = true;
	if (quic_ack_ce_now(at, rx->ecn_ce, ce_prev))
		now_ack = true;

	if (!at->has_eliciting || rx->pn > at->largest_eliciting) {
		at->largest_eliciting = rx->pn;
		at->has_eliciting = true;
	}
	if (at->unacked_eliciting < U32_MAX)
		at->unacked_eliciting++;
	if (at->unacked_eliciting > at->threshold) {
		if (quic_ack_reply_wait(at))
			reply = true;
		else
			now_ack = true;
	}

	if (now_ack)
		at->immediate = true;
	if (at->immediate)
		return QUIC_ACK_NOW;
	if (!at->deadline)
		at->deadline = now + at->max_ack_delay;
	if (reply)
		at->deadline = min(at->deadline, now + QUIC_ACK_REPLY_DELAY);
	return QUIC_ACK_DELAYED;
}

void quic_ack_on_sent(struct quic_ack_timing *at, u64 largest_acked)
{
	at->acked_eliciting = at->unacked_eliciting > 0;
	at->unacked_eliciting = 0;
	at->deadline = 0;
	at->immediate = false;
	at->pending = false;
	if (!at->has_acked || largest_acked > at->largest_acked)
		at->largest_acked = largest_acked;
	at->has_acked = true;
}

void quic_ack_on_sent_packet(struct quic_ack_timing *at, bool data, u64 now)
{
	/* Only an ACK of ack-eliciting packets says whether answers carry them. */
	if (at->acked_eliciting) {
		at->pingpong = data;
		at->acked_alone = !data;
		at->acked_eliciting = false;
		return;
	}
	/*
	 * An answer that came after its ACK went alone (the timer's, or more
	 * than QUIC_ACK_PINGPONG_MAX packets): still request/response if it
	 * leaves within max_ack_delay of the last packet received.  Without
	 * this a single late answer (a loaded host) ended the mode until an
	 * answer happened to carry an ACK again, and with every message then
	 * acknowledged at once, alone, none did.
	 */
	if (data && at->acked_alone) {
		at->acked_alone = false;
		if (at->has_largest && now - at->largest_rx_time <= at->max_ack_delay)
			at->pingpong = true;
	}
}

bool quic_ack_due(const struct quic_ack_timing *at, u64 now)
{
	return at->immediate || (at->deadline && at->deadline <= now);
}

int quic_ack_on_frequency(struct quic_ack_timing *at, u64 seq, u64 threshold,
			  u64 max_ack_delay, u64 reorder_threshold,
			  u64 min_ack_delay, u32 *terr)
{
	if (max_ack_delay >= QUIC_ACK_MAX_DELAY_LIMIT ||
	    max_ack_delay < min_ack_delay) {
		*terr = QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
		return -EPROTO;
	}
	if (at->af_seen && seq <= at->af_seq)
		return 0;
	at->af_seen = true;
	at->af_seq = seq;
	at->threshold = min_t(u64, threshold, U32_MAX);
	at->max_ack_delay = max_ack_delay;
	at->reorder_threshold = min_t(u64, reorder_threshold, U32_MAX);
	return 0;
}

u64 quic_ack_delay_encode(u64 delay, u8 exponent)
{
	if (exponent > QUIC_MAX_ACK_DELAY_EXPONENT)
		exponent = QUIC_MAX_ACK_DELAY_EXPONENT;
	return min(delay >> exponent, QUIC_VARINT_MAX);
}

u64 quic_ack_delay_field(const struct quic_ack_timing *at, u64 now,
			 u8 exponent)
{
	u64 delay = 0;

	if (at->has_largest && now > at->largest_rx_time)
		delay = now - at->largest_rx_time;
	return quic_ack_delay_encode(delay, exponent);
}

u64 quic_ack_delay_decode(u64 field, u8 exponent)
{
	if (exponent > QUIC_MAX_ACK_DELAY_EXPONENT)
		exponent = QUIC_MAX_ACK_DELAY_EXPONENT;
	if (field > (U64_MAX >> exponent))
		return U64_MAX;
	return field << exponent;
}

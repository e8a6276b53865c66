// SPDX-License-Identifier: GPL-2.0
/*
 * The DPLPMTUD search (RFC 8899 §5, RFC 9000 §14.3): see plpmtud.h for the
 * states and the rules.  Pure: the caller owns packets, clock and locks.
 */

#include <linux/kernel.h>
#include <linux/string.h>

#include "plpmtud.h"

void quic_plpmtud_init(struct quic_plpmtud *p, u64 interval, u32 size)
{
	memset(p, 0, sizeof(*p));
	p->state = QUIC_PLPMTUD_DISABLED;
	p->interval = interval;
	p->plpmtu = max_t(u32, size, QUIC_BASE_PLPMTU);
	p->max = p->plpmtu;
	p->high = p->plpmtu;
	p->probe_pn = QUIC_PLPMTUD_NO_PN;
	p->large_acked_pn = QUIC_PLPMTUD_NO_PN;
}

static u32 quic_plpmtud_clamp(u32 max)
{
	return min_t(u32, max_t(u32, max, QUIC_BASE_PLPMTU),
		     QUIC_MAX_PLPMTU);
}

/* Search from the size in use up to @high, first probing @high itself. */
static void quic_plpmtud_search(struct quic_plpmtud *p, u32 high)
{
	p->state = QUIC_PLPMTUD_SEARCHING;
	p->high = high;
	p->at_high = high > p->plpmtu;
	p->probe_count = 0;
	p->probe_out = false;
}

static void quic_plpmtud_complete(struct quic_plpmtud *p, u64 now)
{
	p->state = QUIC_PLPMTUD_COMPLETE;
	p->probe_out = false;
	p->raise_at = now + p->interval;
	p->searches++;
}

void quic_plpmtud_start(struct quic_plpmtud *p, u32 max)
{
	p->max = quic_plpmtud_clamp(max);
	if (!p->interval || p->state != QUIC_PLPMTUD_DISABLED)
		return;
	/* §14.3.1: the handshake confirmed BASE_PLPMTU; start from it. */
	p->plpmtu = QUIC_BASE_PLPMTU;
	p->bh_lost = 0;
	quic_plpmtud_search(p, p->max);
}

void quic_plpmtud_set_interval(struct quic_plpmtud *p, u64 interval,
			       u64 now)
{
	p->interval = interval;
	if (!interval) {
		p->state = QUIC_PLPMTUD_DISABLED;
		p->probe_out = false;
	} else if (p->state == QUIC_PLPMTUD_COMPLETE ||
		   p->state == QUIC_PLPMTUD_ERROR) {
		p->raise_at = now + interval;
	}
}

void quic_plpmtud_set_max(struct quic_plpmtud *p, u32 max)
{
	p->max = quic_plpmtud_clamp(max);
	p->high = min(p->high, p->max);
	p->plpmtu = min(p->plpmtu, p->max);
	if (p->probe_out && p->probed > p->max)
		p->probe_out = false;
}

/* The next size to probe in SEARCHING, or 0 when the search is over. */
static u32 quic_plpmtud_next(const struct quic_plpmtud *p)
{
	if (p->high <= p->plpmtu)
		return 0;
	if (p->at_high)
		return p->high;
	if (p->high - p->plpmtu < QUIC_PLPMTUD_STEP)
		return 0;
	return p->plpmtu + (p->high - p->plpmtu + 1) / 2;
}

u32 quic_plpmtud_probe_size(struct quic_plpmtud *p, u64 now)
{
	u32 size;

	if (p->probe_out)
		return 0;
	switch (p->state) {
	case QUIC_PLPMTUD_BASE:
		return QUIC_BASE_PLPMTU;
	case QUIC_PLPMTUD_COMPLETE:
		if (now < p->raise_at)
			return 0;
		/* PMTU_RAISE_TIMER: the path may carry more now. */
		quic_plpmtud_search(p, p->max);
		break;
	case QUIC_PLPMTUD_ERROR:
		if (now < p->raise_at)
			return 0;
		p->state = QUIC_PLPMTUD_BASE;
		p->probe_count = 0;
		return QUIC_BASE_PLPMTU;
	case QUIC_PLPMTUD_SEARCHING:
		break;
	default:
		return 0;
	}
	size = quic_plpmtud_next(p);
	if (!size)
		quic_plpmtud_complete(p, now);
	return size;
}

void quic_plpmtud_probe_sent(struct quic_plpmtud *p, u64 pn, u32 size)
{
	p->probe_out = true;
	p->probe_pn = pn;
	p->probed = size;
}

/* Large packets stopped getting through: back to BASE_PLPMTU (§4.3). */
static void quic_plpmtud_black_hole(struct quic_plpmtud *p)
{
	u32 failed = p->plpmtu;

	p->black_holes++;
	p->plpmtu = QUIC_BASE_PLPMTU;
	p->state = QUIC_PLPMTUD_BASE;
	p->probe_count = 0;
	p->probe_out = false;
	p->bh_lost = 0;
	/* The size in use failed: search below it once BASE is confirmed. */
	p->high = max_t(u32, failed - 1, QUIC_BASE_PLPMTU);
	p->at_high = false;
}

u32 quic_plpmtud_on_acked(struct quic_plpmtud *p, u64 pn, u32 size, u64 now)
{
	if (size > QUIC_BASE_PLPMTU &&
	    (p->large_acked_pn == QUIC_PLPMTUD_NO_PN || pn > p->large_acked_pn)) {
		p->large_acked_pn = pn;
		p->bh_lost = 0;
	}
	if (!quic_plpmtud_is_probe(p, pn))
		return p->plpmtu;
	p->probe_out = false;
	p->probe_count = 0;
	if (p->state == QUIC_PLPMTUD_BASE) {
		/* BASE_PLPMTU confirmed: search below the size that failed. */
		p->state = QUIC_PLPMTUD_SEARCHING;
		return p->plpmtu;
	}
	if (p->state != QUIC_PLPMTUD_SEARCHING)
		return p->plpmtu;
	p->plpmtu = max(p->plpmtu, p->probed);
	p->at_high = false;
	if (p->plpmtu >= p->high)
		quic_plpmtud_complete(p, now);
	return p->plpmtu;
}

u32 quic_plpmtud_on_lost(struct quic_plpmtud *p, u64 pn, u32 size, u64 now)
{
	if (quic_plpmtud_is_probe(p, pn)) {
		p->probe_out = false;
		if (++p->probe_count < QUIC_PLPMTUD_MAX_PROBES)
			return p->plpmtu;	/* the same size again */
		p->probe_count = 0;
		if (p->state == QUIC_PLPMTUD_BASE) {
			p->state = QUIC_PLPMTUD_ERROR;
			p->raise_at = now + p->interval;
		} else if (p->state == QUIC_PLPMTUD_SEARCHING) {
			p->high = max(p->probed - 1, p->plpmtu);
			p->at_high = false;
		}
		return p->plpmtu;
	}
	if (p->state == QUIC_PLPMTUD_DISABLED || size <= QUIC_BASE_PLPMTU ||
	    p->plpmtu <= QUIC_BASE_PLPMTU)
		return p->plpmtu;
	/* Sent before a large packet that arrived: congestion, not size. */
	if (p->large_acked_pn != QUIC_PLPMTUD_NO_PN && pn < p->large_acked_pn)
		return p->plpmtu;
	if (++p->bh_lost >= QUIC_PLPMTUD_BH_LOST)
		quic_plpmtud_black_hole(p);
	return p->plpmtu;
}

u32 quic_plpmtud_on_pto(struct quic_plpmtud *p, u32 pto_count)
{
	if (p->state != QUIC_PLPMTUD_DISABLED &&
	    p->plpmtu > QUIC_BASE_PLPMTU && pto_count >= QUIC_PLPMTUD_BH_PTOS)
		quic_plpmtud_black_hole(p);
	return p->plpmtu;
}

bool quic_plpmtud_quote_match(const u8 *q, u32 len, const u8 *dcid,
			      u8 dcid_len)
{
	u32 off = 1;

	if (!len)
		return false;
	if (q[0] & 0x80) {		/* long header: version, DCID length */
		if (len < 1 + 4 + 1 || q[5] != dcid_len)
			return false;
		off = 1 + 4 + 1;
	}
	return len >= off + dcid_len && !memcmp(q + off, dcid, dcid_len);
}

u32 quic_plpmtud_on_ptb(struct quic_plpmtud *p, u32 size)
{
	if (size < QUIC_BASE_PLPMTU)
		return p->plpmtu;		/* RFC 9000 §14.2.1 */
	if (p->state == QUIC_PLPMTUD_DISABLED) {
		/* Classic PMTUD: only ever lowers the size. */
		p->plpmtu = min(p->plpmtu, size);
		return p->plpmtu;
	}
	if (p->probe_out && size >= p->plpmtu && size < p->probed) {
		/* The probe was too large: the next one at the hint. */
		quic_plpmtud_search(p, size);
		return p->plpmtu;
	}
	if (size >= p->plpmtu)
		return p->plpmtu;		/* inconsistent: ignored */
	/* §4.6.2: BASE_PLPMTU <= PL_PTB_SIZE < PLPMTU. */
	p->plpmtu = QUIC_BASE_PLPMTU;
	quic_plpmtud_search(p, size);
	return p->plpmtu;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reassembly of a byte stream that arrives in pieces at any offset, the
 * pure part: used for CRYPTO data (RFC 9000 §7.5), whose pieces a peer,
 * authenticated or not, may send in any order and any size.
 *
 * Pieces beyond the next offset to deliver (@base) are copied into a ring
 * indexed by offset, so what they cost is the ring, not one buffer per
 * piece: at most @max bytes (the window; data ending further out is the
 * caller's CRYPTO_BUFFER_EXCEEDED) whatever the insert order.  The ring is
 * given by the caller, which allocates and charges it; quic_reasm_need()
 * says when a larger one is needed.  Held data is tracked as at most
 * QUIC_REASM_RANGES disjoint ranges in ascending order, so an insert costs
 * O(QUIC_REASM_RANGES) plus the copy; a piece that would open one gap too
 * many is refused and its packet goes unacknowledged, to come again.  The
 * range array (QUIC_REASM_RANGES_SIZE bytes) exists only while there is a
 * ring, given by the caller with the first one and taken back with the
 * last: an idle connection has three of these, one per packet number
 * space, and holds nothing out of order.
 *
 * Locking: none here; the caller's (the socket lock for CRYPTO data).
 */

#ifndef _NET_QUIC_REASM_H
#define _NET_QUIC_REASM_H

#include <linux/types.h>

#define QUIC_REASM_RANGES	16	/* gaps held at once */
#define QUIC_REASM_RING_MIN	4096	/* the smallest ring, a power of two */

struct quic_reasm_range {
	u64 start;		/* first byte */
	u64 end;		/* one past the last byte */
};

#define QUIC_REASM_RANGES_SIZE	(QUIC_REASM_RANGES * sizeof(struct quic_reasm_range))

struct quic_reasm {
	u8 *ring;		/* @size bytes, or NULL */
	/*
	 * QUIC_REASM_RANGES entries, ascending, disjoint, not adjacent, all
	 * above @base; NULL exactly when @ring is (quic_reasm_grow()).
	 */
	struct quic_reasm_range *r;
	u32 size;		/* 0 or a power of two, <= @max */
	u32 max;		/* window: a power of two */
	u64 base;		/* the next offset to deliver */
	u32 held;		/* bytes in @r */
	u32 n;			/* ranges in @r */
};

void quic_reasm_init(struct quic_reasm *ra, u32 max);
int quic_reasm_need(const struct quic_reasm *ra, u64 offset, u64 len,
		    u32 *size);
u8 *quic_reasm_grow(struct quic_reasm *ra, u8 *ring, u32 size,
		    struct quic_reasm_range *r);
struct quic_reasm_range *quic_reasm_release(struct quic_reasm *ra, u8 **ring);
void quic_reasm_insert(struct quic_reasm *ra, u64 offset, const u8 *data,
		       u32 len);
void quic_reasm_advance(struct quic_reasm *ra, u64 to);
u32 quic_reasm_peek(const struct quic_reasm *ra, const u8 **p);

#endif /* _NET_QUIC_REASM_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC ACK range set: packet numbers received (to build ACK frames) or
 * acknowledged (to find what a received ACK newly covers).
 *
 * No allocation here: at most @cap disjoint ranges kept in descending
 * order.  When a new range would exceed that, the lowest range is dropped
 * and "floor" rises above it: packet numbers below floor are no longer
 * tracked (RFC 9000 §13.2.3 lets a receiver stop reporting old ranges).
 * Error convention: see varint.h.
 *
 * A set starts with QUIC_ACK_RANGES_INLINE ranges inside it: in-order
 * traffic needs one, and a connection has three sets, most idle.  Once
 * they are all in use (a gap), the caller may move the set into an array
 * of QUIC_ACK_RANGES_MAX it allocated (quic_ack_ranges_grow()), and frees
 * that array when the set goes (quic_ack_ranges_ext()).  @r points into
 * the set itself, so a set is never copied by assignment.
 */

#ifndef _NET_QUIC_ACK_RANGES_H
#define _NET_QUIC_ACK_RANGES_H

#include <linux/types.h>

#define QUIC_ACK_RANGES_MAX	32
#define QUIC_ACK_RANGES_INLINE	2

struct quic_range {
	u64 start;		/* inclusive, start <= end */
	u64 end;
};

struct quic_ack_ranges {
	struct quic_range *r;	/* @in or the caller's array; r[0] highest */
	u32 n;
	u32 cap;		/* entries of @r */
	u64 floor;		/* lowest packet number still tracked */
	struct quic_range in[QUIC_ACK_RANGES_INLINE];
};

void quic_ack_ranges_init(struct quic_ack_ranges *s);
void quic_ack_ranges_grow(struct quic_ack_ranges *s, struct quic_range *ext);

/* Every inline range is used: time to grow, if the caller can. */
static inline bool quic_ack_ranges_want_grow(const struct quic_ack_ranges *s)
{
	return s->r == s->in && s->n == QUIC_ACK_RANGES_INLINE;
}

/* The array quic_ack_ranges_grow() was given, or NULL. */
static inline struct quic_range *quic_ack_ranges_ext(struct quic_ack_ranges *s)
{
	return s->r == s->in ? NULL : s->r;
}

int quic_ack_ranges_add_range(struct quic_ack_ranges *s, u64 start, u64 end);
int quic_ack_ranges_add(struct quic_ack_ranges *s, u64 pn);
bool quic_ack_ranges_contains(const struct quic_ack_ranges *s, u64 pn);
void quic_ack_ranges_drop_below(struct quic_ack_ranges *s, u64 pn);
int quic_ack_ranges_encode(const struct quic_ack_ranges *s, u8 *buf,
			   size_t len, u64 ack_delay, const u64 *ecn);
int quic_ack_ranges_new(const struct quic_ack_ranges *s, u64 start, u64 end,
			struct quic_range *out, int max);

/*
 * Bytes the set's ACK frame takes at most, every range and the ECN counts
 * in: a buffer this big loses no range in quic_ack_ranges_encode().  Type,
 * Largest Acknowledged, ACK Delay, Range Count (one byte, fewer than 64
 * ranges), First ACK Range and three counts, then a Gap and an ACK Range
 * Length per further range; varints of at most 8 bytes.
 */
static inline size_t quic_ack_ranges_encode_max(const struct quic_ack_ranges *s)
{
	return 1 + 8 + 8 + 1 + 8 + 3 * 8 + (s->n ? s->n - 1 : 0) * (8 + 8);
}

/* Largest packet number in the set, or QUIC_PN_NONE (~0) if empty. */
static inline u64 quic_ack_ranges_largest(const struct quic_ack_ranges *s)
{
	return s->n ? s->r[0].end : ~0ULL;
}

#endif /* _NET_QUIC_ACK_RANGES_H */

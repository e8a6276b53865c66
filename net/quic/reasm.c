// SPDX-License-Identifier: GPL-2.0
/*
 * Byte-stream reassembly in a ring indexed by offset (see reasm.h).
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "reasm.h"

void quic_reasm_init(struct quic_reasm *ra, u32 max)
{
	memset(ra, 0, sizeof(*ra));
	ra->max = max;
}

/* Copy @len bytes at stream offset @off into a ring of @size. */
static void quic_ring_in(u8 *ring, u32 size, u64 off, const u8 *src, u32 len)
{
	u32 at = off & (size - 1), first = min(len, size - at);

	memcpy(ring + at, src, first);
	memcpy(ring, src + first, len - first);
}

static u32 quic_reasm_sum(const struct quic_reasm *ra)
{
	u32 i, held = 0;

	for (i = 0; i < ra->n; i++)
		held += ra->r[i].end - ra->r[i].start;
	return held;
}

/**
 * quic_reasm_need - can the piece [@offset, @offset + @len) be kept?
 * @ra: the reassembly
 * @offset: its first byte
 * @len: its length, > 0
 * @size: the ring size it needs: 0 if it needs none (it reaches @base and
 *	is delivered at once, or holds nothing new), else at least the
 *	current size; a larger one is to be given with quic_reasm_grow()
 *
 * Return: 0; -EMSGSIZE if it ends beyond the window; -ENOSPC if it would
 * open more than QUIC_REASM_RANGES gaps.
 */
int quic_reasm_need(const struct quic_reasm *ra, u64 offset, u64 len,
		    u32 *size)
{
	u64 end = offset + len, start = max(offset, ra->base);
	u32 i, merged = 0, want = QUIC_REASM_RING_MIN;

	*size = 0;
	if (end <= ra->base)
		return 0;
	if (end - ra->base > ra->max)
		return -EMSGSIZE;
	if (offset <= ra->base)
		return 0;
	/* Ranges it touches merge with it into one. */
	for (i = 0; i < ra->n; i++)
		if (ra->r[i].start <= end && ra->r[i].end >= start)
			merged++;
	if (ra->n - merged + 1 > QUIC_REASM_RANGES)
		return -ENOSPC;
	while (want < end - ra->base)
		want <<= 1;
	*size = min(max(want, ra->size), ra->max);
	return 0;
}

/**
 * quic_reasm_grow - move the held data into a larger ring
 * @ra: the reassembly
 * @ring: the new ring
 * @size: its size, a power of two larger than the current one
 * @r: with the first ring (@ra has none), the range array,
 *	QUIC_REASM_RANGES_SIZE bytes; NULL otherwise
 *
 * Return: the previous ring (NULL if there was none), for the caller to free.
 */
u8 *quic_reasm_grow(struct quic_reasm *ra, u8 *ring, u32 size,
		    struct quic_reasm_range *r)
{
	u8 *old = ra->ring;
	u32 i;

	if (!ra->r) {
		ra->r = r;
		ra->n = 0;
	}

	for (i = 0; i < ra->n; i++) {
		u64 off = ra->r[i].start;

		while (off < ra->r[i].end) {
			u32 at = off & (ra->size - 1);
			u32 n = min_t(u64, ra->r[i].end - off, ra->size - at);

			quic_ring_in(ring, size, off, old + at, n);
			off += n;
		}
	}
	ra->ring = ring;
	ra->size = size;
	return old;
}

/**
 * quic_reasm_insert - keep a piece beyond @base
 * @ra: the reassembly
 * @offset: its first byte
 * @data: its bytes
 * @len: its length
 *
 * quic_reasm_need() said yes and the ring is large enough.  Bytes held
 * already are overwritten: a peer that sends different bytes for the same
 * offset gets the later ones, and only itself to blame.
 */
void quic_reasm_insert(struct quic_reasm *ra, u64 offset, const u8 *data,
		       u32 len)
{
	u64 end = offset + len, start = max(offset, ra->base);
	u32 i, j;

	if (end <= start || !ra->ring || !ra->r)
		return;
	quic_ring_in(ra->ring, ra->size, start, data + (start - offset),
		     end - start);

	for (i = 0; i < ra->n && ra->r[i].end < start; i++)
		;
	if (i == ra->n || ra->r[i].start > end) {
		/* A new gap-bounded range at @i. */
		memmove(&ra->r[i + 1], &ra->r[i],
			(ra->n - i) * sizeof(ra->r[0]));
		ra->r[i].start = start;
		ra->r[i].end = end;
		ra->n++;
	} else {
		/* Ranges @i..@j-1 touch it: one range now. */
		ra->r[i].start = min(ra->r[i].start, start);
		for (j = i; j < ra->n && ra->r[j].start <= end; j++)
			end = max(end, ra->r[j].end);
		ra->r[i].end = end;
		memmove(&ra->r[i + 1], &ra->r[j],
			(ra->n - j) * sizeof(ra->r[0]));
		ra->n -= j - i - 1;
	}
	ra->held = quic_reasm_sum(ra);
}

/* Everything below @to has been delivered: forget what was held of it. */
void quic_reasm_advance(struct quic_reasm *ra, u64 to)
{
	u32 i;

	if (to <= ra->base)
		return;
	ra->base = to;
	if (!ra->n)
		return;
	for (i = 0; i < ra->n && ra->r[i].end <= to; i++)
		;
	memmove(&ra->r[0], &ra->r[i], (ra->n - i) * sizeof(ra->r[0]));
	ra->n -= i;
	if (ra->n && ra->r[0].start < to)
		ra->r[0].start = to;
	ra->held = quic_reasm_sum(ra);
}

/**
 * quic_reasm_peek - held bytes at @base that lie in one piece of the ring
 * @ra: the reassembly
 * @p: where they start
 *
 * Return: how many (0 if none continue @base); quic_reasm_advance() past
 * what was taken, and peek again for the part after the ring's wrap.
 */
u32 quic_reasm_peek(const struct quic_reasm *ra, const u8 **p)
{
	u32 at = ra->base & (ra->size - 1);

	if (!ra->n || ra->r[0].start > ra->base)
		return 0;
	*p = ra->ring + at;
	return min_t(u64, ra->r[0].end - ra->base, ra->size - at);
}

/**
 * quic_reasm_release - take back the ring and the range array
 * @ra: the reassembly, holding nothing (or being thrown away)
 * @ring: set to the ring, NULL if there was none
 *
 * Return: the range array, NULL if there was none; both are the caller's
 * to free.  @ra is left empty, ready for a new first ring.
 */
struct quic_reasm_range *quic_reasm_release(struct quic_reasm *ra, u8 **ring)
{
	struct quic_reasm_range *r = ra->r;

	*ring = ra->ring;
	ra->ring = NULL;
	ra->r = NULL;
	ra->size = 0;
	ra->n = 0;
	ra->held = 0;
	return r;
}

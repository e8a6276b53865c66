// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC ACK range set.  Almost every insertion extends r[0] (packets arrive
 * mostly in order), which is O(1); reordering costs a memmove of at most
 * QUIC_ACK_RANGES_MAX entries.
 */

#include <linux/kernel.h>

#include "ack_ranges.h"
#include "varint.h"

void quic_ack_ranges_init(struct quic_ack_ranges *s)
{
	s->r = s->in;
	s->cap = QUIC_ACK_RANGES_INLINE;
	s->n = 0;
	s->floor = 0;
}

/* Move the set into @ext, QUIC_ACK_RANGES_MAX ranges the caller owns. */
void quic_ack_ranges_grow(struct quic_ack_ranges *s, struct quic_range *ext)
{
	memcpy(ext, s->r, s->n * sizeof(s->r[0]));
	s->r = ext;
	s->cap = QUIC_ACK_RANGES_MAX;
}

static void quic_ack_ranges_del(struct quic_ack_ranges *s, u32 i, u32 cnt)
{
	memmove(&s->r[i], &s->r[i + cnt], (s->n - i - cnt) * sizeof(s->r[0]));
	s->n -= cnt;
}

/* Insert [start, end] at @i, touching no other range; drop the lowest. */
static void quic_ack_ranges_ins(struct quic_ack_ranges *s, u32 i, u64 start,
				u64 end)
{
	if (s->n == s->cap) {
		if (i == s->n) {
			/* Lower than everything kept: it is the oldest. */
			s->floor = end + 1;
			return;
		}
		s->floor = s->r[s->n - 1].end + 1;
		s->n--;
	}
	memmove(&s->r[i + 1], &s->r[i], (s->n - i) * sizeof(s->r[0]));
	s->r[i].start = start;
	s->r[i].end = end;
	s->n++;
}

/**
 * quic_ack_ranges_add_range - add packet numbers [@start, @end]
 * @s: set
 * @start: first packet number
 * @end: last packet number, >= @start, at most 2^62-1
 *
 * The part below s->floor is ignored.
 *
 * Return: 1 if at least one number was new, 0 if all were present,
 * -ERANGE if all are below floor, -EINVAL for a bad range.
 */
int quic_ack_ranges_add_range(struct quic_ack_ranges *s, u64 start, u64 end)
{
	u64 before = 0, lo, hi;
	u32 i, j;

	if (start > end || end > QUIC_PN_MAX)
		return -EINVAL;
	if (end < s->floor)
		return -ERANGE;
	start = max(start, s->floor);

	/* Skip ranges strictly above, with at least one number between. */
	for (i = 0; i < s->n && s->r[i].start > end + 1; i++)
		;
	/* Ranges i..j-1 touch or overlap the new one: merge them. */
	lo = start;
	hi = end;
	for (j = i; j < s->n && s->r[j].end + 1 >= start; j++) {
		before += s->r[j].end - s->r[j].start + 1;
		lo = min(lo, s->r[j].start);
		hi = max(hi, s->r[j].end);
	}
	if (j == i) {
		quic_ack_ranges_ins(s, i, start, end);
		return 1;
	}
	s->r[i].start = lo;
	s->r[i].end = hi;
	quic_ack_ranges_del(s, i + 1, j - i - 1);
	return hi - lo + 1 > before;
}

/* Return: 1 if @pn is new, 0 if a duplicate, -ERANGE if below floor. */
int quic_ack_ranges_add(struct quic_ack_ranges *s, u64 pn)
{
	return quic_ack_ranges_add_range(s, pn, pn);
}

bool quic_ack_ranges_contains(const struct quic_ack_ranges *s, u64 pn)
{
	u32 i;

	for (i = 0; i < s->n && s->r[i].start > pn; i++)
		;
	return i < s->n && s->r[i].end >= pn;
}

/* Forget everything below @pn, e.g. once an ACK of them was acked. */
void quic_ack_ranges_drop_below(struct quic_ack_ranges *s, u64 pn)
{
	u32 i;

	if (pn <= s->floor)
		return;
	s->floor = pn;
	for (i = 0; i < s->n && s->r[i].end >= pn; i++)
		if (s->r[i].start < pn)
			s->r[i].start = pn;
	s->n = i;
}

/**
 * quic_ack_ranges_encode - write an ACK frame for the set
 * @s: set, not empty
 * @buf: output
 * @len: room
 * @ack_delay: ACK Delay field, already scaled by ack_delay_exponent
 * @ecn: NULL for ACK (0x02), or ECT(0), ECT(1), ECN-CE counts for 0x03
 *
 * Takes as many ranges as fit in @len, highest first, so a full packet
 * still carries the most recent information.
 *
 * Return: bytes written, -ENOSPC if not even one range fits, -EINVAL if
 * the set is empty.
 */
int quic_ack_ranges_encode(const struct quic_ack_ranges *s, u8 *buf,
			   size_t len, u64 ack_delay, const u64 *ecn)
{
	size_t need, pair;
	struct quic_wr wr;
	u32 cnt, i;
	int ret;

	if (!s->n)
		return -EINVAL;
	need = 1 + quic_varint_len(s->r[0].end) + quic_varint_len(ack_delay) +
	       1 + quic_varint_len(s->r[0].end - s->r[0].start);
	if (ecn)
		need += quic_varint_len(ecn[0]) + quic_varint_len(ecn[1]) +
			quic_varint_len(ecn[2]);
	if (!quic_varint_len(ack_delay))
		return -EINVAL;
	if (need > len)
		return -ENOSPC;
	/* Range Count stays one byte: QUIC_ACK_RANGES_MAX < 64. */
	BUILD_BUG_ON(QUIC_ACK_RANGES_MAX > 64);
	for (cnt = 1; cnt < s->n; cnt++) {
		pair = quic_varint_len(s->r[cnt - 1].start - s->r[cnt].end - 2) +
		       quic_varint_len(s->r[cnt].end - s->r[cnt].start);
		if (need + pair > len)
			break;
		need += pair;
	}

	quic_wr_init(&wr, buf, len);
	ret = quic_wr_varint(&wr, ecn ? QUIC_FRAME_ACK_ECN : QUIC_FRAME_ACK);
	ret = ret ?: quic_wr_varint(&wr, s->r[0].end);
	ret = ret ?: quic_wr_varint(&wr, ack_delay);
	ret = ret ?: quic_wr_varint(&wr, cnt - 1);
	ret = ret ?: quic_wr_varint(&wr, s->r[0].end - s->r[0].start);
	for (i = 1; !ret && i < cnt; i++) {
		ret = quic_wr_varint(&wr, s->r[i - 1].start - s->r[i].end - 2);
		ret = ret ?: quic_wr_varint(&wr, s->r[i].end - s->r[i].start);
	}
	for (i = 0; !ret && ecn && i < 3; i++)
		ret = quic_wr_varint(&wr, ecn[i]);
	return ret ?: wr.p - buf;
}

static void quic_range_out(struct quic_range *out, int *n, u64 start, u64 end)
{
	out[*n].start = start;
	out[*n].end = end;
	(*n)++;
}

/**
 * quic_ack_ranges_new - the parts of [@start, @end] not in @s
 * @s: what is already known (e.g. acknowledged packet numbers)
 * @start: first packet number of a range from a received ACK frame
 * @end: last one
 * @out: the new parts, highest first
 * @max: room in @out
 *
 * Packet numbers below s->floor count as not known.  If more than @max
 * parts exist, the @max highest are returned: add them to @s and call
 * again for the rest.
 *
 * Return: number of parts written.
 */
int quic_ack_ranges_new(const struct quic_ack_ranges *s, u64 start, u64 end,
			struct quic_range *out, int max)
{
	u64 cur = end;
	int n = 0;
	u32 i;

	if (start > end || max <= 0)
		return 0;
	for (i = 0; i < s->n && n < max; i++) {
		const struct quic_range *r = &s->r[i];

		if (r->start > cur)
			continue;
		if (r->end < start)
			break;
		if (r->end < cur)
			quic_range_out(out, &n, r->end + 1, cur);
		if (r->start <= start)
			return n;
		cur = r->start - 1;
	}
	if (n < max)
		quic_range_out(out, &n, start, cur);
	return n;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * UDP GSO trains: the arithmetic of output.c's trains.  See gso.h.
 */

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "gso.h"

u32 quic_gso_train_cap(u32 seg, u32 max_bytes, u32 burst_left,
		       u64 cwnd_left, bool window_bound, u64 queued)
{
	u32 rem;
	u64 cap;

	if (!seg)
		return 0;
	cap = min_t(u32, max_bytes / seg, QUIC_GSO_MAX_SEGS);
	cap = min_t(u64, cap, burst_left);
	/* Only full datagrams leave while the window is open (output.c). */
	if (window_bound)
		cap = min_t(u64, cap, div_u64(cwnd_left, seg));
	/* What is queued may end in a short datagram: round up. */
	queued = div_u64_rem(queued, seg, &rem);
	cap = min_t(u64, cap, queued + !!rem);
	return cap;
}

void quic_gso_init(struct quic_gso *g, u32 cap, u32 seg, u8 ecn)
{
	memset(g, 0, sizeof(*g));
	g->seg = seg;
	g->cap = cap;
	g->ecn = ecn;
	g->open = true;
}

bool quic_gso_may_join(const struct quic_gso *g, u32 room, u8 ecn)
{
	return g->open && g->n < g->cap && room == g->seg && ecn == g->ecn;
}

bool quic_gso_added(struct quic_gso *g, u32 len)
{
	g->n++;
	if (len != g->seg)
		g->open = false;
	return !g->open || g->n >= g->cap;
}

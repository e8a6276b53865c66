// SPDX-License-Identifier: GPL-2.0
/* Token buckets for stateless replies: see ratelimit.h. */

#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include "ratelimit.h"

void quic_ratelimit_init(struct quic_ratelimit *l, u32 burst)
{
	spin_lock_init(&l->lock);
	l->last = jiffies;
	l->tokens = burst;
}

/* Take a token from @l, refilled at @rate a second up to @burst. */
bool quic_ratelimit_take(struct quic_ratelimit *l, u32 rate, u32 burst)
{
	unsigned long now = jiffies, elapsed;
	bool ok = false;
	u64 add;

	spin_lock(&l->lock);
	elapsed = min_t(unsigned long, now - l->last, 60 * HZ);
	add = div_u64((u64)elapsed * rate, HZ);
	if (add) {
		l->tokens = min_t(u64, burst, l->tokens + add);
		l->last = now;
	}
	if (l->tokens) {
		l->tokens--;
		ok = true;
	}
	spin_unlock(&l->lock);
	return ok;
}

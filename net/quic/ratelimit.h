/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A token bucket for the stateless packets a tunnel socket (a port)
 * sends in answer to what arrives: Version Negotiation (version.c) and
 * stateless resets (stateless_reset.c).  Neither may be an amplifier or
 * a flood on command, so each port sends at most @burst of a kind at once
 * and @rate a second after that.
 */

#ifndef _NET_QUIC_RATELIMIT_H
#define _NET_QUIC_RATELIMIT_H

#include <linux/spinlock.h>
#include <linux/types.h>

struct quic_ratelimit {
	spinlock_t	lock;		/* taken in softirq only */
	unsigned long	last;		/* jiffies of the last refill */
	u32		tokens;		/* protected by @lock */
};

void quic_ratelimit_init(struct quic_ratelimit *l, u32 burst);
bool quic_ratelimit_take(struct quic_ratelimit *l, u32 rate, u32 burst);

#endif /* _NET_QUIC_RATELIMIT_H */

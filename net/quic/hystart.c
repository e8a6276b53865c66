// SPDX-License-Identifier: GPL-2.0
/*
 * HyStart++ (RFC 9406) for the initial slow start; rules in hystart.h.
 */

#include <linux/kernel.h>
#include <linux/string.h>

#include "hystart.h"

void quic_hystart_init(struct quic_hystart *h)
{
	memset(h, 0, sizeof(*h));
	h->last_round_min = U64_MAX;
	h->cur_round_min = U64_MAX;
	h->css_baseline = U64_MAX;
}

/* Start of a round; true if CSS has had its CSS_ROUNDS rounds. */
static bool quic_hystart_new_round(struct quic_hystart *h, u64 now)
{
	h->round_start = now;
	h->last_round_min = h->cur_round_min;
	h->cur_round_min = U64_MAX;
	h->samples = 0;
	return h->in_css && ++h->css_rounds > QUIC_HYSTART_CSS_ROUNDS;
}

u32 quic_hystart_on_ack(struct quic_hystart *h, u64 sent_time, u32 bytes,
			u64 rtt_sample, u64 now, bool *exit)
{
	u64 thresh;

	*exit = false;
	if (!h->round_start || sent_time > h->round_start) {
		if (quic_hystart_new_round(h, now)) {
			*exit = true;
			return 0;
		}
	}
	if (rtt_sample && now != h->last_ack) {
		h->last_ack = now;
		h->cur_round_min = min(h->cur_round_min, rtt_sample);
		h->samples++;
	}
	if (h->samples < QUIC_HYSTART_N_RTT_SAMPLE ||
	    h->cur_round_min == U64_MAX)
		goto grow;
	if (h->in_css) {
		if (h->cur_round_min < h->css_baseline) {
			/* the RTT went down again: a spurious exit */
			h->in_css = false;
			h->css_baseline = U64_MAX;
		}
		goto grow;
	}
	if (h->last_round_min == U64_MAX)
		goto grow;
	thresh = clamp(h->last_round_min / QUIC_HYSTART_MIN_RTT_DIVISOR,
		       QUIC_HYSTART_MIN_RTT_THRESH,
		       QUIC_HYSTART_MAX_RTT_THRESH);
	if (h->cur_round_min >= h->last_round_min + thresh) {
		h->in_css = true;
		h->css_baseline = h->cur_round_min;
		h->css_rounds = 1;
	}
grow:
	return h->in_css ? bytes / QUIC_HYSTART_CSS_GROWTH_DIVISOR : bytes;
}

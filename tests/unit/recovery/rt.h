/* SPDX-License-Identifier: GPL-2.0 */
/* Host tests of the recovery, congestion, pacing and ACK timing code. */
#ifndef _TESTS_UNIT_RECOVERY_RT_H
#define _TESTS_UNIT_RECOVERY_RT_H

#include <linux/kernel.h>
#include <linux/types.h>

#include "../tap.h"
#include "recovery.h"

/* The virtual clock starts here: 0 means "not set" to the code. */
#define T0	1000000ULL
#define MS	1000ULL

struct rt_case {
	const char *name;
	void (*fn)(void);
};

#define RT_CASE(f)	{ #f, f }

static inline struct quic_sent_meta rt_pkt(u64 pn, u64 sent, u32 size,
					   bool eliciting)
{
	struct quic_sent_meta m = {
		.pn = pn, .sent_time = sent, .size = size,
		.ack_eliciting = eliciting, .in_flight = true,
	};
	return m;
}

void rt_run(const char *suite, const struct rt_case *c, unsigned int n);

void rtt_tests(void);
void loss_tests(void);
void cong_tests(void);
void cubic_tests(void);
void bbr_tests(void);
void hystart_tests(void);
void pacing_tests(void);
void ack_tests(void);
void conn_tests(void);
void ecn_tests(void);

#endif

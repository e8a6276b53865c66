// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC pacing (RFC 9002 §7.7): rate from cwnd and smoothed_rtt, earliest
 * departure times for the TX path.  See pacing.h.
 */

#include <linux/kernel.h>
#include <linux/math64.h>

#include "pacing.h"

#define QUIC_PACING_NSEC_PER_USEC	1000ULL
#define QUIC_PACING_USEC_PER_SEC	1000000ULL
/* Clamp of smoothed_rtt in the arithmetic below: 2^32 us is over an hour */
#define QUIC_PACING_RTT_MAX		0x100000000ULL	/* 2^32 */

u64 quic_pacing_rate(u64 cwnd, u64 srtt)
{
	u64 den;

	if (!srtt)
		return U64_MAX;
	den = srtt * QUIC_PACING_N_DEN;
	/* cwnd * 10^6 * 5 stays below 2^64 for any window under 2^41 */
	if (cwnd < (1ULL << 41))
		return div64_u64(cwnd * QUIC_PACING_USEC_PER_SEC *
				 QUIC_PACING_N_NUM, den);
	return div64_u64(cwnd, den) * QUIC_PACING_USEC_PER_SEC *
	       QUIC_PACING_N_NUM;
}

/* interval = smoothed_rtt * bytes / cwnd / N */
u64 quic_pacing_interval_ns(u64 cwnd, u64 srtt, u64 bytes)
{
	u64 num, den;

	if (!cwnd || !srtt)
		return 0;
	srtt = min(srtt, QUIC_PACING_RTT_MAX);
	num = srtt * QUIC_PACING_NSEC_PER_USEC * QUIC_PACING_N_DEN;
	den = cwnd * QUIC_PACING_N_NUM;
	if (den < cwnd)		/* cwnd above 2^61: no pacing needed */
		return 0;
	/* num < 2^45: exact while bytes < 2^19, else per byte first */
	if (bytes < (1ULL << 19))
		return div64_u64(num * bytes, den);
	return div64_u64(num, den) * bytes;
}

void quic_pacer_init(struct quic_pacer *p, u64 burst)
{
	p->tat_ns = 0;
	p->burst = burst;
}

void quic_pacer_set_burst(struct quic_pacer *p, u64 min_burst, u64 cwnd,
			  u64 srtt)
{
	u64 rate = quic_pacing_rate(cwnd, srtt);

	p->burst = max(min_burst, div_u64(rate, QUIC_PACING_BURST_HZ));
}

static u64 quic_pacer_depart_ns(const struct quic_pacer *p, u64 tau,
				u64 cwnd, u64 srtt, u64 now_ns)
{
	u64 tol = quic_pacing_interval_ns(cwnd, srtt, p->burst);
	u64 drain = p->tat_ns + tau;

	if (drain <= now_ns + tol)
		return now_ns;
	return drain - tol;
}

u64 quic_pacer_peek(const struct quic_pacer *p, u64 cwnd, u64 srtt,
		    u32 bytes, u64 now)
{
	u64 now_ns = now * QUIC_PACING_NSEC_PER_USEC;
	u64 tau = quic_pacing_interval_ns(cwnd, srtt, bytes);

	return div_u64(quic_pacer_depart_ns(p, tau, cwnd, srtt, now_ns),
		       QUIC_PACING_NSEC_PER_USEC);
}

u64 quic_pacer_departure(struct quic_pacer *p, u64 cwnd, u64 srtt,
			 u32 bytes, u64 now)
{
	u64 now_ns = now * QUIC_PACING_NSEC_PER_USEC;
	u64 tau = quic_pacing_interval_ns(cwnd, srtt, bytes);
	u64 d = quic_pacer_depart_ns(p, tau, cwnd, srtt, now_ns);

	p->tat_ns = max(p->tat_ns, now_ns) + tau;
	return div_u64(d, QUIC_PACING_NSEC_PER_USEC);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DPLPMTUD search (RFC 8899 §5, as RFC 9000 §14.3 applies it to
 * QUIC): which probe to send, what an acknowledged or lost probe, a lost
 * or acknowledged ordinary packet, a PTO or an ICMP Packet Too Big hint
 * means for the maximum datagram size.  Pure arithmetic: no packets, no
 * clock (times are u64 microseconds passed in), no locks (the caller
 * serialises, pmtud.c with the socket lock).  Sizes are UDP payloads.
 *
 * States (§5.2):
 *  DISABLED  before the handshake is confirmed, or when the application
 *            did not ask for DPLPMTUD (plpmtud_probe_interval 0): nothing
 *            is probed; the size is the caller's (pmtud.c: the route's).
 *  BASE      probing BASE_PLPMTU (1200) after a black hole: a probe of
 *            that size acknowledged confirms it and the search starts.
 *  SEARCHING probes go out, one at a time: first at the upper bound (the
 *            route's size, or a PTB hint), then by binary search between
 *            the confirmed size (low) and the bound (high).  A probe size
 *            lost MAX_PROBES times in a row lowers the bound below it.
 *            The search completes once high - low < QUIC_PLPMTUD_STEP.
 *  SEARCH_COMPLETE  the size holds until the raise interval
 *            (plpmtud_probe_interval) has passed; then the bound goes back
 *            to the maximum and the search resumes (PMTU_RAISE_TIMER).
 *            QUIC is acknowledged, so no CONFIRMATION_TIMER (RFC 9000
 *            §14.3.2): black holes are found by loss instead.
 *  ERROR     BASE_PLPMTU itself was not confirmed: the size stays 1200
 *            and BASE is probed again after the raise interval.
 *
 * Black hole (§4.3, §5.2): the path stops carrying datagrams above 1200
 * while smaller ones get through.  Seen as QUIC_PLPMTUD_BH_LOST packets
 * larger than BASE_PLPMTU declared lost, each sent after the last large
 * packet that was acknowledged (so the path carried none of them while
 * a later, smaller, packet was acknowledged: loss is declared only then),
 * or as QUIC_PLPMTUD_BH_PTOS consecutive PTOs while above BASE_PLPMTU
 * (nothing at all gets through: the probes of a PTO are full-size).
 * Either sets the size to BASE_PLPMTU and enters BASE.
 *
 * ICMP PTB (§4.6.2), PL_PTB_SIZE already converted to a UDP payload:
 *  < BASE_PLPMTU, or at least the size in use when no probe is out, or
 *  at least the probe's size: ignored (RFC 9000 §14.2.1 "MUST ignore").
 *  BASE_PLPMTU <= size < PLPMTU: the size drops to BASE_PLPMTU and the
 *  search resumes, its next probe at the hinted size.
 *  PLPMTU < size < PROBED_SIZE: the probe out is taken as failed and the
 *  next one is at the hinted size.
 *  With DPLPMTUD disabled, a valid hint below the size in use lowers it
 *  to the hint (classic PMTUD, RFC 9000 §14.2): never below 1200, never
 *  raised by ICMP.
 */

#ifndef _NET_QUIC_PLPMTUD_H
#define _NET_QUIC_PLPMTUD_H

#include <linux/types.h>

#define QUIC_BASE_PLPMTU	1200	/* BASE_PLPMTU = MIN_PLPMTU (§14.3) */
#define QUIC_MAX_PLPMTU	9000	/* largest UDP payload ever probed */
#define QUIC_PLPMTUD_MAX_PROBES	3	/* MAX_PROBES */
#define QUIC_PLPMTUD_STEP	8	/* search resolution, bytes */
#define QUIC_PLPMTUD_BH_LOST	3	/* large packets lost: black hole */
#define QUIC_PLPMTUD_BH_PTOS	3	/* consecutive PTOs: black hole */
#define QUIC_PLPMTUD_NO_PN	((u64)-1)

enum quic_plpmtud_state {
	QUIC_PLPMTUD_DISABLED,
	QUIC_PLPMTUD_BASE,
	QUIC_PLPMTUD_SEARCHING,
	QUIC_PLPMTUD_COMPLETE,
	QUIC_PLPMTUD_ERROR,
};

struct quic_plpmtud {
	u8	state;		/* enum quic_plpmtud_state */
	u8	probe_count;	/* PROBE_COUNT: losses of this size in a row */
	bool	at_high;	/* the next probe is at @high, not halfway */
	bool	probe_out;	/* a probe is in flight, packet @probe_pn */
	u32	plpmtu;		/* PLPMTU: the size in use */
	u32	max;		/* MAX_PLPMTU: route, peer and our limit */
	u32	high;		/* the search's bound: larger failed */
	u32	probed;		/* PROBED_SIZE of the probe out, or last */
	u64	probe_pn;
	u64	raise_at;	/* COMPLETE/ERROR: when to search again */
	u64	interval;	/* plpmtud_probe_interval, us; 0: disabled */
	u64	large_acked_pn;	/* newest acked packet above BASE, or NO_PN */
	u32	bh_lost;	/* large packets lost since, sent after it */
	u32	searches;	/* times the search completed (diagnostics) */
	u32	black_holes;	/* black holes detected (diagnostics) */
};

/* DISABLED, size @size (the caller's choice while disabled). */
void quic_plpmtud_init(struct quic_plpmtud *p, u64 interval, u32 size);
/*
 * The handshake is confirmed (the path carries BASE_PLPMTU: Initials are
 * that size): with an interval, search up to @max from BASE_PLPMTU.
 */
void quic_plpmtud_start(struct quic_plpmtud *p, u32 max);
/* The raise interval changed (0: off again, the size stays). */
void quic_plpmtud_set_interval(struct quic_plpmtud *p, u64 interval,
			       u64 now);
/* A new MAX_PLPMTU (route or peer changed): the bound follows it down. */
void quic_plpmtud_set_max(struct quic_plpmtud *p, u32 max);
/*
 * Size of the probe to send now, or 0.  May move COMPLETE or ERROR back
 * to searching once the raise interval has passed.
 */
u32 quic_plpmtud_probe_size(struct quic_plpmtud *p, u64 now);
void quic_plpmtud_probe_sent(struct quic_plpmtud *p, u64 pn, u32 size);
static inline bool quic_plpmtud_is_probe(const struct quic_plpmtud *p,
					 u64 pn)
{
	return p->probe_out && p->probe_pn == pn;
}

/*
 * An acknowledged packet @pn of @size bytes, or the probe.  Returns the
 * size in use afterwards (PLPMTU).
 */
u32 quic_plpmtud_on_acked(struct quic_plpmtud *p, u64 pn, u32 size,
			  u64 now);
/* A packet declared lost (the probe, or an ordinary one).  Same return. */
u32 quic_plpmtud_on_lost(struct quic_plpmtud *p, u64 pn, u32 size, u64 now);
/* The @pto_count-th consecutive PTO fired.  Same return. */
u32 quic_plpmtud_on_pto(struct quic_plpmtud *p, u32 pto_count);
/* A validated ICMP PTB hint of @size UDP payload bytes.  Same return. */
u32 quic_plpmtud_on_ptb(struct quic_plpmtud *p, u32 size);

/*
 * RFC 9000 §14.2.1: do the @len quoted bytes of a packet we sent (from
 * its first byte) carry the Destination Connection ID @dcid of @dcid_len
 * bytes, in a short or a long header?  False if too few are quoted.
 */
bool quic_plpmtud_quote_match(const u8 *q, u32 len, const u8 *dcid,
			      u8 dcid_len);

#endif /* _NET_QUIC_PLPMTUD_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Explicit Congestion Notification (RFC 9000 §13.4, RFC 9002 §7.1, the
 * sample algorithm of RFC 9000 Appendix A.4).
 *
 * Pure part (ecn.c, host-tested): struct quic_ecn, one per connection,
 * for its one active path.  Glue (ecn_sock.c): the hooks the packet paths
 * call, the net.quic.ecn sysctl and the /proc columns.
 *
 * Sending.  A path starts "testing": its first QUIC_ECN_TEST_PKTS packets
 * are marked ECT(0); then it is "unknown" and its packets are Not-ECT
 * until an ACK frame validates the marks ("capable": every packet ECT(0)
 * from then on) or shows they went wrong ("failed": Not-ECT for the rest
 * of the path).  So a path that drops ECT packets costs at most the test
 * packets, which are sent again unmarked.  With net.quic.ecn 0 a
 * connection that has not sent yet never marks ("off"), and no connection
 * marks while it is 0.
 *
 * Validation (RFC 9000 §13.4.2.1), on each ACK frame that newly
 * acknowledges packets and raises the largest acknowledged (a reordered
 * ACK is never validated): it fails when
 *   - it acknowledges a packet we marked and has no ECN counts;
 *   - a count went down;
 *   - the increase of ECT(0) plus ECN-CE is below the number of marked
 *     packets it newly acknowledges (the marks were bleached);
 *   - the ECT(0) count exceeds the ECT(0) packets we sent in the space,
 *     or ECT(1) is not 0 (we never send it): marks were added on the way;
 *   - the path is "unknown", no marked packet was ever acknowledged on it
 *     and the ACK acknowledges unmarked ones: the test packets were lost.
 *
 * Congestion (RFC 9002 §7.1, Appendix B.7): an increase of the ECN-CE
 * count in a validated ACK frame is a congestion event for the largest
 * packet it acknowledges; as with losses, one per round trip (a recovery
 * period ignores events for packets sent before it began).
 *
 * Receiving (RFC 9000 §13.4.1): the ECN field of each datagram counts
 * once per QUIC packet processed from it (not duplicates), in the packet's
 * space; ACK frames carry the counts (ACK_ECN) once one is not 0, whatever
 * net.quic.ecn says (§13.4.1: feedback is due even when we do not mark).
 */

#ifndef _NET_QUIC_ECN_H
#define _NET_QUIC_ECN_H

#include <linux/types.h>

#include "recovery.h"

#define QUIC_ECN_TEST_PKTS	10	/* RFC 9000 §13.4.2: "first ten" */

/* The ECN field of an IP header (RFC 3168). */
#define QUIC_ECN_NOT_ECT	0
#define QUIC_ECN_ECT1		1
#define QUIC_ECN_ECT0		2
#define QUIC_ECN_CE_MARK	3

enum quic_ecn_state {
	QUIC_ECN_TESTING,	/* marking the test packets; the initial state */
	QUIC_ECN_UNKNOWN,	/* test packets sent, not validated: Not-ECT */
	QUIC_ECN_CAPABLE,	/* validated: ECT(0) */
	QUIC_ECN_FAILED,	/* validation failed: Not-ECT */
	QUIC_ECN_OFF,		/* net.quic.ecn was 0 at the first packet */
};

/* Why validation failed, for /proc. */
enum quic_ecn_fail {
	QUIC_ECN_FAIL_NONE,
	QUIC_ECN_FAIL_MISSING,		/* marked packet acked without counts */
	QUIC_ECN_FAIL_DECREASED,	/* a count went down */
	QUIC_ECN_FAIL_BLEACHED,		/* counts below the marked acked */
	QUIC_ECN_FAIL_REMARKED,		/* more ECT than we sent, or ECT(1) */
	QUIC_ECN_FAIL_LOST,		/* the test packets were lost */
};

/* Indexes of ECN counts, the order of the ACK_ECN frame's fields. */
enum {
	QUIC_ECN_IDX_ECT0,
	QUIC_ECN_IDX_ECT1,
	QUIC_ECN_IDX_CE,
	QUIC_ECN_IDX_MAX,
};

/* Socket lock held for every access (read unlocked by /proc only). */
struct quic_ecn {
	u8	state;			/* enum quic_ecn_state */
	u8	fail;			/* enum quic_ecn_fail, the last */
	bool	acked_marked;		/* a marked packet acked on this path */
	u32	test_sent;		/* packets marked while testing */
	/* What we received, per space: what our ACK frames report. */
	u64	rx[QUIC_PN_SPACE_MAX][QUIC_ECN_IDX_MAX];
	/* Packets we sent ECT(0), per space, over the connection. */
	u64	sent[QUIC_PN_SPACE_MAX];
	/* The peer's counts of the last validated ACK frame, per space. */
	u64	peer[QUIC_PN_SPACE_MAX][QUIC_ECN_IDX_MAX];
	/* Statistics of the connection. */
	u64	ect0_sent;		/* packets sent ECT(0) */
	u64	ce_rcvd;		/* packets received ECN-CE */
	u32	ce_events;		/* congestion events from ECN-CE */
	u32	failures;		/* validation failures */
};

/* Pure (ecn.c). */
void quic_ecn_init(struct quic_ecn *e);
/* A new path: validate again (the counts so far are the baseline). */
void quic_ecn_new_path(struct quic_ecn *e);
/* Are packets marked ECT(0) now (before net.quic.ecn)? */
bool quic_ecn_state_marks(const struct quic_ecn *e);
/* A packet of @space left, marked if @marked; @enabled: net.quic.ecn. */
void quic_ecn_sent(struct quic_ecn *e, u8 space, bool marked, bool enabled);
/* A packet of @space was processed from a datagram with ECN field @ecn. */
bool quic_ecn_received(struct quic_ecn *e, u8 space, u8 ecn);
/* The counts our ACK frame of @space carries, NULL: a plain ACK. */
const u64 *quic_ecn_ack_counts(const struct quic_ecn *e, u8 space);
/*
 * An ACK frame of @space that raised the largest acknowledged, with
 * @counts (NULL: no ECN counts), newly acknowledging @newly_marked marked
 * and @newly_unmarked unmarked packets.  Returns true if the counts were
 * valid: the caller then takes an ECN-CE increase as congestion, with
 * e->peer[space][QUIC_ECN_IDX_CE] as the count seen so far.
 */
bool quic_ecn_validate(struct quic_ecn *e, u8 space, const u64 *counts,
		       u64 newly_marked, u64 newly_unmarked);
const char *quic_ecn_state_name(u8 state);

/* Glue (ecn_sock.c); socket lock held unless said otherwise. */
struct sock;
struct sk_buff;
struct seq_file;
struct quic_frame_ack;
extern int sysctl_quic_ecn;
/* The ECN field of the next datagram of @sk (udp.c). */
u8 quic_ecn_tos(struct sock *sk);
/* quic_ecn_tos() != Not-ECT: for the packets being recorded (output.c). */
bool quic_ecn_marking(struct sock *sk);
/* After a datagram left: one call per packet of it, in @space. */
void quic_ecn_on_sent(struct sock *sk, u8 space);
/* A packet of @space from @skb was processed; true if it was ECN-CE. */
bool quic_ecn_on_rcv(struct sock *sk, u8 space, const struct sk_buff *skb);
/* ACK_ECN counts for our ACK frame of @space, or NULL. */
const u64 *quic_ecn_ack(struct sock *sk, u8 space);
/*
 * An ACK frame of @space: its newly acknowledged packets are on the
 * space's acked list, the space's largest_acked not updated yet.
 */
void quic_ecn_on_ack(struct sock *sk, u8 space,
		     const struct quic_frame_ack *ack, u64 now);
/* The path changed (migration): ECN is validated again on the new one. */
void quic_ecn_reset(struct sock *sk);
/* /proc/net/quic columns (unlocked). */
void quic_ecn_proc_show(struct seq_file *seq, struct sock *sk);

#endif /* _NET_QUIC_ECN_H */

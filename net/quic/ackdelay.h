/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When to send an ACK frame (RFC 9000 §13.2, draft-ietf-quic-ack-frequency)
 * and the ACK Delay field.  One struct quic_ack_timing per packet number
 * space on the receive side.  Pure: @now is u64 microseconds, 0 = not set.
 *
 * Rules implemented:
 *
 * RFC 9000 §13.2.1 Ack-eliciting Initial and Handshake packets are
 *       acknowledged immediately; 0-RTT and 1-RTT ones within max_ack_delay
 *       (the deadline is armed at the first unacknowledged ack-eliciting
 *       packet).  A non-ack-eliciting packet never triggers an ACK on its
 *       own.  An ack-eliciting packet is acknowledged immediately when its
 *       number is below that of an ack-eliciting packet already received,
 *       or above the largest one with a gap in between; and when it carries
 *       ECN-CE.
 * RFC 9000 §13.2.2 An ACK after at least two ack-eliciting packets: the
 *       ack-frequency draft's Ack-Eliciting Threshold default of 1 ("more
 *       than 1 received without an ACK").
 * ack-frequency §4 ACK_FREQUENCY: ignored unless its sequence number is
 *       above the largest processed; Requested Max Ack Delay of 2^14 ms or
 *       more, or below our min_ack_delay, is a PROTOCOL_VIOLATION; it sets
 *       the Ack-Eliciting Threshold (an ACK once more than that many
 *       ack-eliciting packets are unacknowledged; 0: every one),
 *       max_ack_delay and the Reordering Threshold.
 * ack-frequency §5 IMMEDIATE_ACK: acknowledge now.
 * ack-frequency §6.2 Reordering Threshold 1 keeps the RFC 9000 rules above;
 *       0 never acknowledges early for reordering; above 1, acknowledge now
 *       when (Largest Unacked - smallest Unreported Missing) >= threshold,
 *       or when the packet is <= Largest Acked - threshold.
 * ack-frequency §6.3 With an Ack-Eliciting Threshold above 1, only a
 *       non-CE to CE transition is acknowledged immediately.
 * RFC 9000 §13.2.5, §19.3 ACK Delay is the time since the largest packet
 *       number was received, in units of 2^ack_delay_exponent microseconds.
 * Request/response ("ping-pong", as TCP calls it): once an ACK of
 *       ack-eliciting packets went out in a packet of ours with application
 *       data (STREAM or DATAGRAM frames: the answer carried the ACK), the
 *       "at least two" of §13.2.2, a SHOULD, is stretched to
 *       QUIC_ACK_PINGPONG_MAX packets: the next message of a few datagrams
 *       is not acknowledged by an ACK-only packet after its second one, as
 *       the answer carries the ACK a moment later.  The ACK is then due
 *       QUIC_ACK_REPLY_DELAY after the packet that would have sent it (or at
 *       max_ack_delay, if sooner; the ACK timer rounds it up to a jiffy):
 *       a peer held by its congestion window waits that long at most.  An
 *       ACK that goes out alone for ack-eliciting packets (the answer did
 *       not come in time, or more than QUIC_ACK_PINGPONG_MAX packets came)
 *       ends the mode until the next answer carries one.  Nothing else
 *       changes: out-of-order, CE and IMMEDIATE_ACK packets are
 *       acknowledged at once, and a peer that sent ACK_FREQUENCY gets
 *       exactly the threshold it asked for.  An answer that leaves after
 *       its ACK went alone, within max_ack_delay of the last packet
 *       received, enters the mode again: the answer was only late.
 *
 * Not done: the "no ACK for over an RTT" hint of ack-frequency §6.1.
 */

#ifndef _NET_QUIC_ACKDELAY_H
#define _NET_QUIC_ACKDELAY_H

#include <linux/types.h>

#include "ack_ranges.h"
#include "recovery.h"

#define QUIC_ACK_DEF_THRESHOLD		1	/* ack every other packet */
#define QUIC_ACK_DEF_REORDER_THRESHOLD	1
#define QUIC_ACK_MAX_DELAY_LIMIT	(16384ULL * 1000)	/* 2^14 ms */
/* Request/response: ack-eliciting packets left unacknowledged, at most. */
#define QUIC_ACK_PINGPONG_MAX		4
/* ... and for how long after the one that would have been acknowledged. */
#define QUIC_ACK_REPLY_DELAY		1000	/* microseconds */

enum quic_ack_action {
	QUIC_ACK_NONE,		/* nothing new to acknowledge promptly */
	QUIC_ACK_DELAYED,	/* within quic_ack_timing.deadline */
	QUIC_ACK_NOW,
};

/* What the RX path learnt of one successfully processed packet. */
struct quic_ack_rx {
	u64 pn;
	bool ack_eliciting;
	bool ecn_ce;
	bool immediate_ack;	/* carried an IMMEDIATE_ACK frame */
};

struct quic_ack_timing {
	u64 max_ack_delay;	/* ours, microseconds */
	u64 deadline;		/* max_ack_delay timer, 0: not armed */
	u64 largest_pn;		/* largest packet number received */
	u64 largest_rx_time;	/* when it was received */
	u64 largest_eliciting;	/* Largest Unacked: largest ack-eliciting */
	u64 largest_acked;	/* Largest Acknowledged of our last ACK */
	u64 af_seq;		/* largest ACK_FREQUENCY sequence processed */
	u32 threshold;		/* Ack-Eliciting Threshold */
	u32 reorder_threshold;
	u32 unacked_eliciting;	/* ack-eliciting received since our last ACK */
	u8 space;		/* enum quic_pn_space: u8 keeps this 80 bytes */
	bool acked_eliciting;	/* the last ACK sent covered some */
	bool has_largest;
	bool has_eliciting;
	bool has_acked;
	bool af_seen;
	bool pending;		/* anything received since our last ACK */
	bool immediate;		/* an ACK is due now */
	bool last_ce;		/* previous packet was CE marked */
	bool pingpong;		/* our answers carry our ACKs (see above) */
	bool acked_alone;	/* our last ACK of some went without data */
};

void quic_ack_timing_init(struct quic_ack_timing *at, enum quic_pn_space space,
			  u64 max_ack_delay);
/*
 * RX path, after the packet was processed and its number added to @rcvd
 * (the space's received set; duplicates are dropped before this).
 */
enum quic_ack_action quic_ack_on_packet(struct quic_ack_timing *at,
					const struct quic_ack_rx *rx,
					const struct quic_ack_ranges *rcvd,
					u64 now);
/* TX path: an ACK frame with this Largest Acknowledged was sent. */
void quic_ack_on_sent(struct quic_ack_timing *at, u64 largest_acked);
/*
 * TX path, for a packet of the space sent at @now: it carries application
 * data (@data: STREAM or DATAGRAM frames), or not.  Called after
 * quic_ack_on_sent() if it carries an ACK frame; needed only while
 * quic_ack_watch_data() holds.
 */
void quic_ack_on_sent_packet(struct quic_ack_timing *at, bool data, u64 now);

/* Does quic_ack_on_sent_packet() need to know of the next packet? */
static inline bool quic_ack_watch_data(const struct quic_ack_timing *at)
{
	return at->acked_eliciting || at->acked_alone;
}

/* Should an ACK go out now (immediate, or the delay timer has expired)? */
bool quic_ack_due(const struct quic_ack_timing *at, u64 now);
/*
 * ACK_FREQUENCY received.  @min_ack_delay is what we advertised.  Returns
 * 0 (applied or ignored as obsolete) or -EPROTO with *terr set.
 */
int quic_ack_on_frequency(struct quic_ack_timing *at, u64 seq, u64 threshold,
			  u64 max_ack_delay, u64 reorder_threshold,
			  u64 min_ack_delay, u32 *terr);

/* ACK Delay field for an ACK sent at @now. */
u64 quic_ack_delay_field(const struct quic_ack_timing *at, u64 now,
			 u8 exponent);
u64 quic_ack_delay_encode(u64 delay, u8 exponent);
/* Decoded microseconds, saturating. */
u64 quic_ack_delay_decode(u64 field, u8 exponent);

#endif /* _NET_QUIC_ACKDELAY_H */

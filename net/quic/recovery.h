/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC loss recovery arithmetic (RFC 9002), plus the idle timeout
 * (RFC 9000 §10.1) and anti-amplification (RFC 9000 §8.1) accounting.
 *
 * Pure code: no clock reads, timers, locks or allocation.  Every time is a
 * u64 in microseconds on the caller's clock and the current time comes in as
 * @now.  A time of 0 means "not set" (the RFC pseudocode's convention), so
 * the caller's clock must never read 0.
 *
 * Rules implemented here:
 *
 * §5.1  An RTT sample is latest_rtt = ack_time - send time of the largest
 *       acknowledged packet; only taken when the largest acknowledged is
 *       newly acknowledged and at least one newly acknowledged packet was
 *       ack-eliciting (the caller checks both before quic_rtt_update()).
 * §5.2  min_rtt is the first sample, then the lesser of min_rtt and
 *       latest_rtt; it ignores ack_delay.
 * §5.3  The first sample sets smoothed_rtt = latest_rtt and
 *       rttvar = latest_rtt / 2.  Later samples: ack_delay is ignored for
 *       Initial packets, capped by max_ack_delay once the handshake is
 *       confirmed, and subtracted only if latest_rtt >= min_rtt + ack_delay;
 *       smoothed_rtt = 7/8 smoothed_rtt + 1/8 adjusted_rtt,
 *       rttvar = 3/4 rttvar + 1/4 |smoothed_rtt - adjusted_rtt|.
 * §6.1.1 A packet is lost once a packet kPacketThreshold (3) numbers later
 *       in the same space is acknowledged.
 * §6.1.2 ... or once it was sent more than
 *       max(9/8 * max(smoothed_rtt, latest_rtt), kGranularity) before now;
 *       an unacknowledged packet below the largest acknowledged that is not
 *       yet lost arms the loss timer at sent_time + that delay.
 * §6.2.1 PTO = smoothed_rtt + max(4 * rttvar, kGranularity) + max_ack_delay,
 *       max_ack_delay counting only for the Application Data space, doubled
 *       per consecutive PTO (pto_count) up to a cap (QUIC_PTO_MAX_US, a
 *       quarter of the idle timeout); no Application Data PTO before the
 *       handshake is confirmed; the earliest space wins; the time-threshold
 *       loss timer takes precedence over the PTO.
 * §6.2.2.1 A client that has not seen its address validated arms the
 *       anti-deadlock PTO from now, even with nothing in flight, and does not
 *       reset pto_count on acknowledgments until then.  Until then its
 *       ACK-only Handshake packets carry a PING while none of its
 *       Handshake or 0-RTT packets is in flight (quic_ld_handshake_ping()).
 *       An ack-eliciting Initial or Handshake packet from the server
 *       restarts that PTO (quic_ld_on_handshake_rx()): the server is not
 *       blocked, the client's own processing is what it waits for.
 * §6.4  Discarding Initial or Handshake keys resets that space's timers and
 *       pto_count; the timers restart then (§6.2.2 "MUST be reset"), an
 *       anti-deadlock PTO from that time.
 * §7.6  Persistent congestion: two ack-eliciting lost packets, with nothing
 *       between them acknowledged, sent more than
 *       3 * (smoothed_rtt + max(4 * rttvar, kGranularity) + max_ack_delay)
 *       apart, both sent after the first RTT sample.
 */

#ifndef _NET_QUIC_RECOVERY_H
#define _NET_QUIC_RECOVERY_H

#include <linux/types.h>

/* RFC 9002 Appendix A.2 and B.1 constants */
#define QUIC_K_PACKET_THRESHOLD		3
#define QUIC_K_TIME_THRESHOLD_NUM	9	/* kTimeThreshold = 9/8 */
#define QUIC_K_TIME_THRESHOLD_DEN	8
#define QUIC_K_GRANULARITY		1000ULL		/* 1 ms */
#define QUIC_K_INITIAL_RTT		333000ULL	/* 333 ms */
#define QUIC_K_PERSISTENT_CONGESTION_THRESHOLD	3

/* A PTO backoff exponent above this is clamped (2^16 PTOs is hours). */
#define QUIC_PTO_COUNT_MAX		16
/*
 * The backed-off PTO period is capped too (§6.2.1 leaves the backoff's end
 * to the sender): at a quarter of the idle timeout, so that a peer which
 * is alive behind a lossy path gets at least three probes before the idle
 * timer runs out, and at QUIC_PTO_MAX_US without one.  The period without
 * backoff is never cut.
 */
#define QUIC_PTO_MAX_US			(60 * 1000000ULL)
#define QUIC_PTO_IDLE_DIV		4

/* Packet number spaces (RFC 9000 §12.3) */
enum quic_pn_space {
	QUIC_PN_SPACE_INITIAL,
	QUIC_PN_SPACE_HANDSHAKE,
	QUIC_PN_SPACE_APP,
	QUIC_PN_SPACE_MAX,
};

/*
 * What recovery needs to know of a sent packet (RFC 9002 Appendix A.1.1).
 * The kernel glue embeds it in its own per-packet record.
 */
struct quic_sent_meta {
	u64 pn;
	u64 sent_time;
	u32 size;		/* sent_bytes */
	bool ack_eliciting;
	bool in_flight;		/* counts towards bytes_in_flight */
};

/* RTT estimator of one path (RFC 9002 §5) */
struct quic_rtt {
	u64 latest;		/* latest_rtt */
	u64 min;		/* min_rtt, valid once has_sample */
	u64 smoothed;		/* smoothed_rtt */
	u64 var;		/* rttvar */
	u64 first_sample_time;	/* when the first sample was taken */
	bool has_sample;
};

void quic_rtt_init(struct quic_rtt *rtt, u64 initial_rtt);
void quic_rtt_update(struct quic_rtt *rtt, u64 latest_rtt, u64 ack_delay,
		     u64 max_ack_delay, enum quic_pn_space space,
		     bool handshake_confirmed, u64 now);
/* §5.2: after persistent congestion, min_rtt restarts from the next sample */
void quic_rtt_reset_min(struct quic_rtt *rtt);

/* max(9/8 * max(smoothed_rtt, latest_rtt), kGranularity) */
u64 quic_loss_delay(const struct quic_rtt *rtt);

/*
 * Loss detection walk over one space's unacknowledged packets, in the
 * caller's own list, ascending packet number order (§6.1, Appendix A.10):
 *
 *	quic_loss_walk_begin(&w, rtt, largest_acked, now);
 *	for each unacked packet p:
 *		v = quic_loss_walk_step(&w, &p->meta);
 *		if (v == QUIC_LOSS_STOP) break;
 *		if (v == QUIC_LOSS_LOST) unlink p, hand it to congestion control;
 *	space->loss_time = w.loss_time;
 */
enum quic_loss_verdict {
	QUIC_LOSS_KEEP,		/* not lost (yet) */
	QUIC_LOSS_LOST,		/* declare it lost now */
	QUIC_LOSS_STOP,		/* pn above largest acked: nothing later can be lost */
};

struct quic_loss_walk {
	u64 largest_acked;
	u64 loss_delay;
	u64 now;
	u32 pkt_threshold;
	u64 loss_time;		/* out: earliest future loss time, 0 if none */
	u32 lost;		/* out: packets declared lost */
	bool by_time;		/* out: the last LOST verdict was the time's */
};

void quic_loss_walk_begin(struct quic_loss_walk *w, const struct quic_rtt *rtt,
			  u64 largest_acked, u64 now);

/*
 * Reordering (§6.1.1 and §6.1.2 allow adaptive thresholds): a packet
 * declared lost and acknowledged afterwards was reordered, not lost.  Its
 * distance from the largest acknowledged packet at the time raises the
 * packet threshold above that distance; if the time threshold declared it,
 * that threshold grows by 1/8 RTT.  Both are capped, so that real losses
 * are still found within two RTTs.  They never shrink during a connection.
 */
#define QUIC_REORDER_PKT_MAX		64
#define QUIC_REORDER_TIME_NUM_MAX	16	/* 16/8: two RTTs */

struct quic_reorder {
	u32 pkt_threshold;	/* kPacketThreshold at first */
	u32 time_num;		/* kTimeThreshold = time_num / 8 */
};

void quic_reorder_init(struct quic_reorder *r);
void quic_reorder_on_spurious(struct quic_reorder *r, u64 distance,
			      bool by_time);
/* After quic_loss_walk_begin(): walk with @r's thresholds instead. */
void quic_loss_walk_adapt(struct quic_loss_walk *w, const struct quic_rtt *rtt,
			  const struct quic_reorder *r);

/*
 * The last packets declared lost, so that a later acknowledgment of one
 * shows the loss was spurious.  A small ring: the oldest record goes.
 */
#define QUIC_LOST_LOG_SIZE	32

struct quic_lost_rec {
	u64 pn;
	u32 distance;		/* largest_acked - pn when declared lost */
	u32 episode;		/* congestion recovery period it caused */
	bool by_time;
	bool valid;
};

struct quic_lost_log {
	struct quic_lost_rec rec[QUIC_LOST_LOG_SIZE];
	u32 next;
	u32 count;		/* valid records */
};

void quic_lost_log_init(struct quic_lost_log *log);
struct quic_lost_rec *quic_lost_log_add(struct quic_lost_log *log, u64 pn,
					u32 distance, bool by_time);
/* Remove one record with @smallest <= pn <= @largest into @out. */
bool quic_lost_log_take(struct quic_lost_log *log, u64 smallest, u64 largest,
			struct quic_lost_rec *out);
enum quic_loss_verdict quic_loss_walk_step(struct quic_loss_walk *w,
					   const struct quic_sent_meta *p);

/*
 * Array form of the same walk: @pkts in ascending pn order, @lost[i] set to
 * whether pkts[i] is lost.  Returns the number lost; *loss_time gets the
 * next loss timer (0: none).
 */
u32 quic_detect_lost(const struct quic_rtt *rtt, u64 largest_acked,
		     const struct quic_sent_meta *pkts, u32 n, bool *lost,
		     u64 *loss_time, u64 now);

/* §6.2.1 PTO period of @space without backoff, at least kGranularity. */
u64 quic_pto_duration(const struct quic_rtt *rtt, u64 max_ack_delay,
		      enum quic_pn_space space);
/* ... times 2^pto_count, saturating. */
u64 quic_pto_backoff(u64 duration, u32 pto_count);
/* The cap of a backed-off PTO for an effective idle timeout (0: none). */
u64 quic_pto_cap(u64 idle_timeout);
/* quic_pto_backoff(), at most max(@duration, @cap). */
u64 quic_pto_backoff_capped(u64 duration, u32 pto_count, u64 cap);

/* §7.6.1 persistent congestion duration (max_ack_delay always counted) */
u64 quic_pc_duration(const struct quic_rtt *rtt, u64 max_ack_delay);

/*
 * §7.6.2 over the packets one ACK declared lost, ascending pn order.  A gap
 * in packet numbers between two lost packets means the packets between were
 * acknowledged (or never sent), which ends the candidate period.  Only the
 * space the ACK was for is considered (allowed by §7.6.2).
 */
struct quic_pc_walk {
	u64 duration;
	u64 first_sample_time;
	u64 start;		/* sent time of the period's first ack-eliciting */
	u64 prev_pn;
	bool has_sample;
	bool in_run;		/* prev_pn valid */
	bool has_start;
	bool persistent;	/* out */
};

void quic_pc_walk_begin(struct quic_pc_walk *w, const struct quic_rtt *rtt,
			u64 max_ack_delay);
void quic_pc_walk_step(struct quic_pc_walk *w, const struct quic_sent_meta *p);
bool quic_persistent_congestion(const struct quic_rtt *rtt, u64 max_ack_delay,
				const struct quic_sent_meta *lost, u32 n);

/*
 * Loss detection timer state of a connection (Appendix A.3, A.8, A.9).
 * The glue owns one, updates the per-space counters from its TX/ACK paths
 * and the flags as the handshake progresses, and calls quic_ld_timer()
 * whenever the RFC says SetLossDetectionTimer().
 */
struct quic_ld_space {
	u64 loss_time;			/* §6.1.2 timer, 0: not armed */
	u64 last_ack_eliciting_time;	/* time_of_last_ack_eliciting_packet */
	u32 ack_eliciting_in_flight;	/* unacked, not lost ack-eliciting */
};

struct quic_ld {
	struct quic_ld_space space[QUIC_PN_SPACE_MAX];
	u64 max_ack_delay;		/* peer's, the largest in force or in flight */
	u64 pto_max;			/* backed-off PTO cap, quic_pto_cap() */
	u32 pto_count;
	bool is_server;
	bool handshake_confirmed;
	bool has_handshake_keys;
	bool handshake_ack_received;	/* client: an ACK of a Handshake packet */
	bool at_amplification_limit;	/* server: nothing may be sent */
	/* quic_ld_arm(): when the armed anti-deadlock probe is due, 0: none */
	u64 anti_deadlock_deadline;
	u32 anti_deadlock_pto_count;	/* pto_count when it was armed */
};

enum quic_ld_mode {
	QUIC_LD_NONE,		/* cancel the timer */
	QUIC_LD_LOSS,		/* time threshold: run loss detection on space */
	QUIC_LD_PTO,		/* send one or two probes in space */
	QUIC_LD_ANTI_DEADLOCK,	/* client: probe in space with nothing in flight */
};

struct quic_ld_timer {
	u64 deadline;		/* 0 with QUIC_LD_NONE */
	enum quic_ld_mode mode;
	enum quic_pn_space space;
};

void quic_ld_init(struct quic_ld *ld, bool is_server, u64 max_ack_delay);
void quic_ld_on_packet_sent(struct quic_ld *ld, enum quic_pn_space space,
			    const struct quic_sent_meta *p);
/* Packet acknowledged, declared lost or discarded: out of flight. */
void quic_ld_on_packet_removed(struct quic_ld *ld, enum quic_pn_space space,
			       const struct quic_sent_meta *p);
bool quic_ld_peer_completed_address_validation(const struct quic_ld *ld);
/* The effective idle timeout changed (quic_idle_set_timeout()). */
void quic_ld_set_idle_timeout(struct quic_ld *ld, u64 idle_timeout);
/* §6.2.1: after processing an ACK, reset pto_count unless §6.2.2.1 says no */
void quic_ld_on_ack_received(struct quic_ld *ld);
/* §6.2.1: a PTO (or anti-deadlock probe) fired */
void quic_ld_on_pto(struct quic_ld *ld);
/*
 * Should a client's ACK-only Handshake packet carry a PING: its address
 * not known validated, nothing ack-eliciting of it in flight in Handshake
 * nor 0-RTT packets.
 */
bool quic_ld_handshake_ping(const struct quic_ld *ld);
/*
 * A client received an ack-eliciting Initial or Handshake packet: its
 * anti-deadlock probe counts from now (the server is not the one waiting).
 */
void quic_ld_on_handshake_rx(struct quic_ld *ld);
/* §6.4: Initial or Handshake keys discarded (§6.2.2: timers restart) */
void quic_ld_discard_space(struct quic_ld *ld, enum quic_pn_space space);
void quic_ld_timer(const struct quic_ld *ld, const struct quic_rtt *rtt,
		   u64 now, struct quic_ld_timer *t);
/*
 * quic_ld_timer() as the glue arms and fires the timer: an anti-deadlock
 * probe stays due PTO after it was first armed, however often the timer
 * is recomputed before then.
 */
void quic_ld_arm(struct quic_ld *ld, const struct quic_rtt *rtt, u64 now,
		 struct quic_ld_timer *t);

/*
 * Idle timeout (RFC 9000 §10.1).  The effective timeout is the lesser of the
 * two advertised max_idle_timeout values, or the only non-zero one; 0
 * disables it.  The timer restarts when a packet is received and processed,
 * and when an ack-eliciting packet is sent if none was sent since the last
 * receive.  The period is at least 3 * PTO (the caller passes the current
 * PTO, e.g. quic_pto_duration() of the Application Data space).
 */
struct quic_idle {
	u64 timeout;		/* effective, 0: disabled */
	u64 last_restart;
	bool sent_since_rx;	/* ack-eliciting sent since the last receive */
};

void quic_idle_init(struct quic_idle *idle, u64 now);
void quic_idle_set_timeout(struct quic_idle *idle, u64 local, u64 peer);
void quic_idle_on_packet_received(struct quic_idle *idle, u64 now);
void quic_idle_on_ack_eliciting_sent(struct quic_idle *idle, u64 now);
/* Absolute expiry, 0 if disabled. */
u64 quic_idle_deadline(const struct quic_idle *idle, u64 pto);

/*
 * Anti-amplification (RFC 9000 §8.1): until the peer's address is
 * validated, at most three times the bytes received from it may be sent.
 * Byte counts are whole UDP payloads of datagrams, including those later
 * dropped as undecryptable (§8.1 counts all received datagrams that were
 * uniquely attributed to the connection).
 */
#define QUIC_AMPLIFICATION_FACTOR	3

struct quic_amp {
	u64 received;
	u64 sent;
	bool validated;
};

static inline void quic_amp_init(struct quic_amp *amp, bool validated)
{
	amp->received = 0;
	amp->sent = 0;
	amp->validated = validated;
}

static inline void quic_amp_on_received(struct quic_amp *amp, u32 bytes)
{
	amp->received += bytes;
}

static inline void quic_amp_on_sent(struct quic_amp *amp, u32 bytes)
{
	amp->sent += bytes;
}

static inline void quic_amp_validate(struct quic_amp *amp)
{
	amp->validated = true;
}

/* Bytes that may be sent now; U64_MAX once validated. */
u64 quic_amp_allowance(const struct quic_amp *amp);

static inline bool quic_amp_can_send(const struct quic_amp *amp, u32 bytes)
{
	return quic_amp_allowance(amp) >= bytes;
}

#endif /* _NET_QUIC_RECOVERY_H */

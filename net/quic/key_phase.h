/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 1-RTT key phases (RFC 9001 §6), the pure part: when we may start a new
 * key phase, what a packet opened with another phase's keys means, and how
 * long the previous receive keys are kept.  Packet numbers and times
 * (quic_now() microseconds) go in, decisions come out; no keys, socket or
 * clock here, so that host tests drive it on a virtual clock.  The keys
 * themselves are in crypto.c; key_update.c commits updates on a connection.
 *
 * The rules, with the section of RFC 9001 each comes from:
 * §6.1  We may start a new phase once the handshake is confirmed and the
 *       peer has acknowledged a packet we sent with the current keys
 *       (tx_first_pn <= the largest it acknowledged).  For automatic
 *       updates we also wait three PTOs after that acknowledgment (§6.5),
 *       so that a peer keeping only two sets of keys has the next ones.
 *       A receiver whose packets carry nothing but ACKs is never
 *       acknowledged: when its update is due it sends one PING, once per
 *       phase, to be (quic_kp_want_ack()).
 * §6.2  A packet opened with the next keys means the peer updated: we
 *       follow at once, so that every ACK of it leaves with the new keys.
 *       If it updates again before we have sent, with our updated keys,
 *       an ACK of a packet of its current phase, it did not wait for
 *       confirmation: KEY_UPDATE_ERROR (we choose to enforce this MAY).
 *       An ACK carried in a packet of its previous phase that acknowledges
 *       a packet we sent with our current keys means it saw our update but
 *       did not follow: KEY_UPDATE_ERROR too (also a MAY).
 * §6.5  The previous receive keys are kept for three PTOs after the first
 *       packet opened with the current ones, for late packets.
 * §6.6  The automatic update comes well before the AEAD's confidentiality
 *       limit; if none is possible when the limit is near, the connection
 *       closes with AEAD_LIMIT_REACHED.
 *
 * Locking: one per connection, under the socket lock.
 */

#ifndef _NET_QUIC_KEY_PHASE_H
#define _NET_QUIC_KEY_PHASE_H

#include <linux/types.h>

/* Which receive keys open a 1-RTT packet (see quic_crypto_rx_key()). */
enum quic_crypto_key_role {
	QUIC_CRYPTO_KEY_CUR,
	QUIC_CRYPTO_KEY_NEXT,
	QUIC_CRYPTO_KEY_PREV,
};

struct quic_key_phase {
	u64	tx_first_pn;	/* first pn we sent with the current keys */
	u64	rx_first_pn;	/* lowest pn opened with the current keys */
	u64	confirmed_at;	/* when an ACK covered tx_first_pn; 0: not yet */
	u64	discard_at;	/* when the previous rx keys go; 0: not set */
	u32	updates;	/* key updates so far, ours and the peer's */
	bool	rx_acked;	/* we acked rx_first_pn with the current keys */
	bool	prev_keys;	/* the previous receive keys are still held */
	bool	probed;		/* asked for an ACK of the current phase */
};

/* What a packet opened with some 1-RTT keys means. */
enum quic_kp_verdict {
	QUIC_KP_OK,		/* nothing changes */
	QUIC_KP_UPDATE,		/* the peer started a new phase: follow it */
	QUIC_KP_ERROR,		/* KEY_UPDATE_ERROR */
};

void quic_kp_init(struct quic_key_phase *kp);

void quic_kp_on_sent(struct quic_key_phase *kp, u64 pn, u64 ack_largest);
void quic_kp_on_acked(struct quic_key_phase *kp, u64 largest, u64 now);
enum quic_kp_verdict quic_kp_on_received(struct quic_key_phase *kp,
					 enum quic_crypto_key_role keys,
					 u64 pn, u64 now, u64 pto);
bool quic_kp_ack_allowed(const struct quic_key_phase *kp,
			 enum quic_crypto_key_role keys, u64 largest);

int quic_kp_may_initiate(const struct quic_key_phase *kp, bool confirmed);
bool quic_kp_auto_due(const struct quic_key_phase *kp, bool confirmed,
		      u64 now, u64 pto);
bool quic_kp_want_ack(struct quic_key_phase *kp);
void quic_kp_commit(struct quic_key_phase *kp, u64 first_rx, u64 now,
		    u64 pto);

u64 quic_kp_discard_deadline(const struct quic_key_phase *kp);
bool quic_kp_discard_due(const struct quic_key_phase *kp, u64 now);
void quic_kp_discarded(struct quic_key_phase *kp);

u64 quic_kp_threshold(u64 conf_limit, u64 packets);
u64 quic_kp_close_point(u64 conf_limit);
u64 quic_kp_integrity_limit(u64 aead_limit, u64 limit);

#endif /* _NET_QUIC_KEY_PHASE_H */

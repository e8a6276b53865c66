// SPDX-License-Identifier: GPL-2.0
/*
 * 1-RTT key phases (RFC 9001 §6): the decisions, see key_phase.h.
 */

#include <linux/errno.h>
#include <linux/kernel.h>

#include "key_phase.h"
#include "packet_header.h"

/* RFC 9001 §6.5: three times the PTO, for old keys and between updates. */
#define QUIC_KP_PTOS	3

void quic_kp_init(struct quic_key_phase *kp)
{
	memset(kp, 0, sizeof(*kp));
	kp->tx_first_pn = QUIC_PN_NONE;
	kp->rx_first_pn = QUIC_PN_NONE;
}

/*
 * A 1-RTT packet of ours left, protected with the current keys.
 * @ack_largest: the largest packet number its ACK frame acknowledges, or
 * QUIC_PN_NONE if it carried none.
 */
void quic_kp_on_sent(struct quic_key_phase *kp, u64 pn, u64 ack_largest)
{
	if (kp->tx_first_pn == QUIC_PN_NONE)
		kp->tx_first_pn = pn;
	/* An ACK frame always names the largest packet received so far. */
	if (ack_largest != QUIC_PN_NONE && kp->rx_first_pn != QUIC_PN_NONE &&
	    ack_largest >= kp->rx_first_pn)
		kp->rx_acked = true;
}

/* An ACK frame of the 1-RTT space acknowledges up to @largest, at @now. */
void quic_kp_on_acked(struct quic_key_phase *kp, u64 largest, u64 now)
{
	if (!kp->confirmed_at && kp->tx_first_pn != QUIC_PN_NONE &&
	    largest >= kp->tx_first_pn)
		kp->confirmed_at = now;
}

/*
 * A 1-RTT packet @pn was opened with @keys (it is authentic).  @pto is the
 * current PTO, for how long the previous keys stay.
 */
enum quic_kp_verdict quic_kp_on_received(struct quic_key_phase *kp,
					 enum quic_crypto_key_role keys,
					 u64 pn, u64 now, u64 pto)
{
	switch (keys) {
	case QUIC_CRYPTO_KEY_CUR:
		if (kp->rx_first_pn != QUIC_PN_NONE && pn >= kp->rx_first_pn)
			return QUIC_KP_OK;
		/*
		 * The peer's first packet with the keys we moved to on our own
		 * update: from now on its old ones serve only late packets.
		 */
		if (kp->rx_first_pn == QUIC_PN_NONE && kp->prev_keys &&
		    !kp->discard_at)
			kp->discard_at = now + QUIC_KP_PTOS * pto;
		kp->rx_first_pn = pn;
		return QUIC_KP_OK;
	case QUIC_CRYPTO_KEY_NEXT:
		return kp->rx_acked ? QUIC_KP_UPDATE : QUIC_KP_ERROR;
	case QUIC_CRYPTO_KEY_PREV:
	default:
		return QUIC_KP_OK;
	}
}

/*
 * May an ACK frame up to @largest come in a packet opened with @keys?  Not
 * in one of the peer's previous phase if it covers a packet we sent with
 * our current keys: the peer saw our update without following it.
 */
bool quic_kp_ack_allowed(const struct quic_key_phase *kp,
			 enum quic_crypto_key_role keys, u64 largest)
{
	return keys != QUIC_CRYPTO_KEY_PREV ||
	       kp->tx_first_pn == QUIC_PN_NONE || largest < kp->tx_first_pn;
}

/* 0 if we may start a new key phase now, -EAGAIN if not yet (§6.1). */
int quic_kp_may_initiate(const struct quic_key_phase *kp, bool confirmed)
{
	if (!confirmed || !kp->confirmed_at)
		return -EAGAIN;
	return 0;
}

/*
 * The automatic update, once its packet threshold is reached: allowed,
 * and three PTOs after the peer confirmed the previous one (§6.5).
 */
bool quic_kp_auto_due(const struct quic_key_phase *kp, bool confirmed,
		      u64 now, u64 pto)
{
	return !quic_kp_may_initiate(kp, confirmed) &&
	       now >= kp->confirmed_at + QUIC_KP_PTOS * pto;
}

/*
 * An update is due but none of our packets of this phase has been
 * acknowledged: true once per phase, for the caller to send something
 * ack-eliciting.  Packets with only ACK frames are not acknowledged, so a
 * pure receiver would otherwise wait for ever, until the confidentiality
 * limit closed its connection.
 */
bool quic_kp_want_ack(struct quic_key_phase *kp)
{
	if (kp->confirmed_at || kp->probed)
		return false;
	kp->probed = true;
	return true;
}

/*
 * A new key phase is in force, started by the peer with packet @first_rx,
 * or by us (@first_rx QUIC_PN_NONE).  The previous receive keys go three
 * PTOs after the peer's first packet with the new ones: now if it started
 * the update, when that packet comes if we did.
 */
void quic_kp_commit(struct quic_key_phase *kp, u64 first_rx, u64 now,
		    u64 pto)
{
	kp->updates++;
	kp->tx_first_pn = QUIC_PN_NONE;
	kp->confirmed_at = 0;
	kp->rx_first_pn = first_rx;
	kp->rx_acked = false;
	kp->probed = false;
	kp->prev_keys = true;
	kp->discard_at = first_rx == QUIC_PN_NONE ? 0 :
			 now + QUIC_KP_PTOS * pto;
}

/* When the previous receive keys are to go, 0 if not (yet) known. */
u64 quic_kp_discard_deadline(const struct quic_key_phase *kp)
{
	return kp->prev_keys ? kp->discard_at : 0;
}

bool quic_kp_discard_due(const struct quic_key_phase *kp, u64 now)
{
	u64 at = quic_kp_discard_deadline(kp);

	return at && now >= at;
}

void quic_kp_discarded(struct quic_key_phase *kp)
{
	kp->prev_keys = false;
	kp->discard_at = 0;
}

/*
 * Packets protected with one key before the automatic update: @packets
 * (a test setting; 0 for none) but never beyond three quarters of the
 * AEAD's confidentiality limit @conf_limit (§6.6; U64_MAX: no limit).
 */
u64 quic_kp_threshold(u64 conf_limit, u64 packets)
{
	u64 max = conf_limit - conf_limit / 4;

	return packets ? min(packets, max) : max;
}

/*
 * Packets protected with one key after which the connection closes with
 * AEAD_LIMIT_REACHED when no update was possible: the limit less a
 * sixteenth, left for the packets that carry the close.
 */
u64 quic_kp_close_point(u64 conf_limit)
{
	return conf_limit - conf_limit / 16;
}

/*
 * Packets that may fail authentication on a connection before it closes
 * with AEAD_LIMIT_REACHED: the AEAD's integrity limit @aead_limit, or the
 * lower @limit if one is set (not 0).
 */
u64 quic_kp_integrity_limit(u64 aead_limit, u64 limit)
{
	return limit ? min(aead_limit, limit) : aead_limit;
}

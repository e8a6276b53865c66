// SPDX-License-Identifier: GPL-2.0
/*
 * 1-RTT key update on a connection (RFC 9001 §6): following the peer's
 * updates, starting ours (QUIC_SOCKOPT_KEY_UPDATE, or automatically before
 * the AEAD's confidentiality limit) and the AEAD limits (§6.6).
 *
 * The decisions are the pure key_phase.c's; the keys are crypto.c's.  A
 * commit only moves key pointers, so it runs wherever the packet that
 * causes it is processed (softirq included); deriving the keys of the
 * phase after it allocates and may sleep, so it runs afterwards from a
 * work item (key_work), and the previous receive keys go when the key
 * timer fires.
 *
 * Locking: everything here runs under the socket lock (the work item takes
 * it with lock_sock()).
 */

#include <net/sock.h>

#include "frame.h"
#include "socket.h"

static const u8 quic_ping = QUIC_FRAME_PING;

static void quic_key_update_work(struct work_struct *work);

void quic_key_update_init(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	quic_kp_init(&qs->key_phase);
	INIT_WORK(&qs->key_work, quic_key_update_work);
}

/* Process context, no socket lock held: the socket is being destroyed. */
void quic_key_update_free(struct sock *sk)
{
	if (cancel_work_sync(&quic_sk(sk)->key_work))
		__sock_put(sk);	/* the reference of the work not run */
}

static u64 quic_key_update_pto(const struct quic_sock *qs)
{
	return quic_pto_duration(&qs->rtt, qs->ld.max_ack_delay,
				 QUIC_PN_SPACE_APP);
}

/*
 * Derive the keys of the phase after the current one, in process context.
 * Without them the next update, ours or the peer's, cannot happen: a
 * failure (no memory) closes the connection rather than leave it to die
 * when the peer updates.
 */
static void quic_key_update_work(struct work_struct *work)
{
	struct quic_sock *qs = container_of(work, struct quic_sock, key_work);
	struct sock *sk = &qs->inet.sk;
	int err;

	lock_sock(sk);
	if (sk->sk_state == QUIC_SS_ESTABLISHED) {
		err = quic_crypto_key_update_prepare(&qs->crypto);
		if (err) {
			net_warn_ratelimited("quic: %p: next 1-RTT keys: %d\n",
					     sk, err);
			quic_conn_abort(sk, QUIC_TRANSPORT_ERROR_INTERNAL, 0);
		} else {
			/* An automatic update may have waited for them. */
			quic_output(sk);
		}
	}
	release_sock(sk);
	sock_put(sk);		/* quic_queue_work()'s */
}

/*
 * Move to the next key phase: started by the peer's packet @first_rx, or
 * by us (@first_rx QUIC_PN_NONE).  The next keys must be ready.
 */
static int quic_key_update_commit(struct sock *sk, u64 first_rx)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_key_phase *kp = &qs->key_phase;
	u8 phase;
	int err;

	err = quic_crypto_key_update(&qs->crypto, first_rx);
	if (err)
		return err;
	quic_kp_commit(kp, first_rx, quic_now(), quic_key_update_pto(qs));
	QUIC_INC_STATS(KEY_UPDATE, 1);
	phase = quic_crypto_key_phase(&qs->crypto);	/* the bit we send */
	quic_event_queue(sk, QUIC_EVENT_KEY_UPDATE, &phase, sizeof(phase));
	quic_timer_key(sk, quic_kp_discard_deadline(kp));
	quic_queue_work(sk, &qs->key_work);
	return 0;
}

/*
 * A 1-RTT packet @pn opened with @keys, authentic: follow a peer's update.
 * Returns 0, or -EPROTO with *@terr set when the connection must close.
 */
int quic_key_update_on_rx(struct sock *sk, enum quic_crypto_key_role keys,
			  u64 pn, u32 *terr)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_key_phase *kp = &qs->key_phase;
	u64 discard = quic_kp_discard_deadline(kp);

	switch (quic_kp_on_received(kp, keys, pn, quic_now(),
				    quic_key_update_pto(qs))) {
	case QUIC_KP_OK:
		if (quic_kp_discard_deadline(kp) != discard)
			quic_timer_key(sk, quic_kp_discard_deadline(kp));
		return 0;
	case QUIC_KP_UPDATE:
		/*
		 * The next receive keys opened it, so the next send keys
		 * were derived with them: this cannot fail.
		 */
		if (quic_key_update_commit(sk, pn)) {
			*terr = QUIC_TRANSPORT_ERROR_INTERNAL;
			return -EPROTO;
		}
		return 0;
	case QUIC_KP_ERROR:
	default:
		net_dbg_ratelimited("quic: %p: peer updated keys twice\n", sk);
		*terr = QUIC_TRANSPORT_ERROR_KEY_UPDATE;
		return -EPROTO;
	}
}

/* May an ACK frame up to @largest come in a packet opened with @keys? */
bool quic_key_update_ack_allowed(struct sock *sk,
				 enum quic_crypto_key_role keys, u64 largest)
{
	return quic_kp_ack_allowed(&quic_sk(sk)->key_phase, keys, largest);
}

/* An ACK frame of the 1-RTT space acknowledged up to @largest. */
void quic_key_update_on_ack(struct sock *sk, u64 largest)
{
	quic_kp_on_acked(&quic_sk(sk)->key_phase, largest, quic_now());
}

/* A 1-RTT packet left; @ack_largest as in quic_kp_on_sent(). */
void quic_key_update_on_sent(struct sock *sk, u64 pn, u64 ack_largest)
{
	quic_kp_on_sent(&quic_sk(sk)->key_phase, pn, ack_largest);
}

/*
 * A packet failed authentication: has the connection seen as many as the
 * AEAD's integrity limit (or net.quic.aead_integrity_limit) allows?  Then
 * it must close with AEAD_LIMIT_REACHED (§6.6).
 */
bool quic_key_update_integrity_exceeded(struct sock *sk)
{
	struct quic_crypto_ctx *ctx = &quic_sk(sk)->crypto;
	u64 limit;

	limit = quic_kp_integrity_limit(ctx->integ_limit,
					READ_ONCE(sysctl_quic_aead_integrity_limit));
	return quic_crypto_auth_failed(ctx) >= limit;
}

/*
 * QUIC_SOCKOPT_KEY_UPDATE, process context: start a key update now.  A
 * PING in the new phase tells the peer at once.
 */
int quic_key_update_initiate(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	int err;

	if (sk->sk_state != QUIC_SS_ESTABLISHED)
		return -ENOTCONN;
	err = quic_kp_may_initiate(&qs->key_phase, qs->handshake_confirmed);
	if (err)
		return err;
	/* The work item may not have run yet: derive them here. */
	err = quic_crypto_key_update_prepare(&qs->crypto);
	if (err)
		return err;
	err = quic_key_update_commit(sk, QUIC_PN_NONE);
	if (err)
		return err;
	quic_output_ctrl(sk, QUIC_CRYPTO_APP, &quic_ping, 1,
			 QUIC_FRAME_PING);
	quic_output(sk);
	return 0;
}

/*
 * Before a datagram is built: the automatic update once the current send
 * keys have protected their share of packets (asking for an ACK first if
 * none of them was acknowledged), or the close when the confidentiality
 * limit nears and no update could happen.  Returns true if the connection
 * closed.
 *
 * The update waits for a datagram to carry it: quic_output() also runs
 * with nothing to send (after every ACK received), and an update made
 * then is one the peer never learns of if the connection ends first, so
 * the two ends' counts (QUIC_EVENT_KEY_UPDATE) would differ.  Only sent
 * packets bring the confidentiality limit nearer, so the wait costs
 * nothing there.
 */
bool quic_key_update_auto(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_crypto_ctx *ctx = &qs->crypto;
	u64 packets, limit;

	if (!qs->handshake_done)
		return false;
	packets = quic_crypto_tx_packets(ctx);
	limit = quic_crypto_conf_limit(ctx);
	if (packets < quic_kp_threshold(limit,
					READ_ONCE(sysctl_quic_key_update_packets)))
		return false;
	if (quic_crypto_key_update_ready(ctx) &&
	    quic_kp_auto_due(&qs->key_phase, qs->handshake_confirmed,
			     quic_now(), quic_key_update_pto(qs)) &&
	    quic_output_pending(sk) &&
	    !quic_key_update_commit(sk, QUIC_PN_NONE))
		return false;
	if (qs->handshake_confirmed && quic_kp_want_ack(&qs->key_phase))
		quic_output_ctrl(sk, QUIC_CRYPTO_APP, &quic_ping, 1,
				 QUIC_FRAME_PING);
	if (packets < quic_kp_close_point(limit))
		return false;
	quic_conn_abort(sk, QUIC_TRANSPORT_ERROR_AEAD_LIMIT_REACHED, 0);
	return true;
}

/* The key timer: the previous receive keys have served their time. */
void quic_key_update_discard_prev(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_key_phase *kp = &qs->key_phase;
	u64 now = quic_now();

	if (!quic_kp_discard_deadline(kp))
		return;
	if (!quic_kp_discard_due(kp, now)) {
		quic_timer_key(sk, quic_kp_discard_deadline(kp));
		return;
	}
	quic_crypto_key_discard_prev(&qs->crypto);
	quic_kp_discarded(kp);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Compatible version negotiation (RFC 9368 §2.3) between QUIC v1 and v2
 * (RFC 9369 §3).
 *
 * Client.  Its version_information lists as available the version it
 * starts in and the other one (version.c), unless the application set
 * disable_compatible_version: then none is sent and the server cannot
 * move it.  The first server Initial in the other version, before any
 * CRYPTO data of the server in the original one (RFC 9369 §3: that would
 * mean the server kept it), moves the connection: the packet and the rest
 * of its datagram wait in the hold queue while compat_work derives the
 * Initial keys of the new version from the same Destination Connection ID
 * (the original one, or the Retry's SCID after a Retry), both directions;
 * then they are read again, and every packet we send, Initials included,
 * is in the new version.  Packets of the original version are dropped from
 * then on (input.c's version check).  The server's version_information
 * must then choose the new version (quic_tp_check_version()).
 *
 * Server.  A listener whose QUIC_SOCKOPT_CONFIG version is v2 prefers v2:
 * a client that connects in v1 and lists v2 as available is moved when
 * libquic hands over its transport parameters (quic_compat_server(),
 * process context, before libquic reads ours back and before the
 * ServerHello is written).  Our Initial keys become v2's, derived from the
 * same DCID, and our version_information chooses v2.  What we sent
 * before, in v1, can only be ACKs (RFC 9369 §3 allows that: the server
 * cannot send CRYPTO data before it has the client's parameters).  The
 * client's Initials in v1 are still read, with the original keys kept in
 * compat_rx (charged to the socket), until the handshake is complete:
 * then a Handshake packet of the negotiated version was read (RFC 9369
 * §4.1 allows no sooner) and quic_compat_discard() frees them.  A listener preferring v1
 * (the default) answers in the client's version, as before.
 *
 * 0-RTT (RFC 9369 §4.1).  A client never sends 0-RTT packets once it moved
 * (early_data.c): only its first flight, in the original version, can
 * carry some.  A server that moved reads 0-RTT packets of the original
 * version only: their keys are derived with its labels (RFC 9369 §3.3.2,
 * quic_compat_early_secret()); 0-RTT packets in the negotiated version,
 * which the client must not send, are dropped.
 */

#include "compatvn.h"
#include "connection.h"
#include "socket.h"

static void quic_compat_work(struct work_struct *work);

void quic_compat_init(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	qs->compat_orig = 0;
	qs->compat_to = 0;
	qs->compat_rx = NULL;
	INIT_WORK(&qs->compat_work, quic_compat_work);
}

/* The original version's Initial keys of a server that moved. */
static void quic_compat_rx_free(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	if (!qs->compat_rx)
		return;
	quic_crypto_ctx_free(qs->compat_rx);
	quic_obj_free(sk, qs->compat_rx, sizeof(*qs->compat_rx));
	qs->compat_rx = NULL;
}

/**
 * quic_compat_discard - a server's handshake is complete
 * @sk: the connection, socket lock held, process context
 *
 * The client's Finished came in a Handshake packet of the negotiated
 * version: the original version's Initial keys may go (RFC 9369 §4.1).
 */
void quic_compat_discard(struct sock *sk)
{
	if (quic_sk(sk)->handshake_done ||
	    quic_sk(sk)->space[QUIC_PN_SPACE_HANDSHAKE].largest_rx !=
	    QUIC_PN_NONE)
		quic_compat_rx_free(sk);
}

/* Process context, no socket lock held: the socket is being destroyed. */
void quic_compat_free(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	if (cancel_work_sync(&qs->compat_work))
		__sock_put(sk);	/* the reference of the work not run */
	quic_compat_rx_free(sk);
}

/* The DCID the Initial keys come from (RFC 9001 §5.2, §5.8). */
static const struct quic_cid *quic_compat_key_dcid(struct quic_sock *qs)
{
	return qs->retry_done ? &qs->retry_scid : &qs->odcid;
}

/* Our version_information offers @version as a compatible one. */
static bool quic_compat_offered(const struct quic_transport_params *tp,
				u32 version)
{
	int i;

	if (!quic_tp_has(tp, QUIC_TPB_VERSION_INFORMATION))
		return false;
	for (i = 0; i < tp->version_info.n_available; i++)
		if (tp->version_info.available[i] == version)
			return true;
	return false;
}

static bool quic_compat_pair(u32 from, u32 to)
{
	return (from == QUIC_VERSION_V1 && to == QUIC_VERSION_V2) ||
	       (from == QUIC_VERSION_V2 && to == QUIC_VERSION_V1);
}

/* Initial keys of @version from @dcid in @ctx, for our role. */
static int quic_compat_keys(struct quic_crypto_ctx *ctx, u32 version,
			    const struct quic_cid *dcid, bool is_server)
{
	int err = quic_crypto_set_version(ctx, version);

	if (err)
		return err;
	return quic_crypto_set_initial(ctx, dcid->data, dcid->len, is_server);
}

/**
 * quic_compat_rx_ctx - the keys a received long header packet is read with
 * @sk: the connection, socket lock held
 * @hdr: its header
 *
 * Return: the connection's keys for a packet of its version; a server's
 * original Initial keys for a client Initial of the original version
 * after a switch; NULL for a packet to drop.
 */
struct quic_crypto_ctx *quic_compat_rx_ctx(struct sock *sk,
					   const struct quic_hdr *hdr)
{
	struct quic_sock *qs = quic_sk(sk);

	if (hdr->type == QUIC_PKT_0RTT && qs->compat_orig)
		return qs->is_server && hdr->version == qs->compat_orig ?
		       &qs->crypto : NULL;
	if (hdr->type == QUIC_PKT_1RTT || hdr->version == qs->version)
		return &qs->crypto;
	if (qs->is_server && qs->compat_rx && hdr->type == QUIC_PKT_INITIAL &&
	    hdr->version == qs->compat_orig)
		return qs->compat_rx;
	return NULL;
}

/**
 * quic_compat_client_rcv - a client sees a long header of another version
 * @sk: the connection, socket lock held
 * @hdr: the packet's header (its version is not the connection's)
 *
 * Return: true if the packet (and the rest of its datagram) is to be held
 * for the keys of its version, which compat_work derives; false if it is
 * to be dropped.
 */
bool quic_compat_client_rcv(struct sock *sk, const struct quic_hdr *hdr)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *is = &qs->space[QUIC_PN_SPACE_INITIAL];

	if (qs->is_server || sk->sk_state != QUIC_SS_CONNECTING)
		return false;
	if (qs->compat_to)	/* switching: wait for it */
		return hdr->version == qs->compat_to;
	if (qs->compat_orig || hdr->type != QUIC_PKT_INITIAL ||
	    !quic_compat_pair(qs->version, hdr->version) ||
	    !quic_compat_offered(&qs->local_tp, hdr->version) ||
	    is->discarded || is->crypto_rx.base || is->crypto_rx.n)
		return false;
	qs->compat_to = hdr->version;
	quic_queue_work(sk, &qs->compat_work);
	return true;
}

static void quic_compat_work(struct work_struct *work)
{
	struct quic_sock *qs = container_of(work, struct quic_sock,
					    compat_work);
	struct sock *sk = &qs->inet.sk;
	int err;

	lock_sock(sk);
	if (sk->sk_state == QUIC_SS_CONNECTING && qs->compat_to) {
		err = quic_compat_keys(&qs->crypto, qs->compat_to,
				       quic_compat_key_dcid(qs), false);
		if (err) {
			quic_conn_abort(sk, QUIC_TRANSPORT_ERROR_INTERNAL, 0);
		} else {
			qs->compat_orig = qs->version;
			qs->version = qs->compat_to;
			qs->compat_to = 0;
			QUIC_INC_STATS(COMPAT_VN, 1);
			quic_input_hold_retry(sk);
			quic_output(sk);
			quic_timer_rearm(sk);
		}
	}
	release_sock(sk);
	sock_put(sk);		/* quic_queue_work()'s */
}

/**
 * quic_compat_server - a server has the client's transport parameters
 * @sk: the connection, socket lock held, process context
 * @tp: the client's parameters, checked against the original version
 *
 * Moves a v1 connection to v2 when the listener prefers v2 (its config
 * version) and the client listed v2; nothing otherwise.
 *
 * Return: 0, or a negative errno (the handshake cannot go on).
 */
int quic_compat_server(struct sock *sk, const struct quic_transport_params *tp)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *is = &qs->space[QUIC_PN_SPACE_INITIAL];
	const u32 to = QUIC_VERSION_V2;
	struct quic_crypto_ctx *orig;
	int err;

	if (!qs->is_server || qs->compat_orig || qs->config.version != to ||
	    qs->version != QUIC_VERSION_V1 ||
	    sk->sk_state != QUIC_SS_CONNECTING || is->discarded ||
	    is->crypto_tx.len ||
	    !quic_tp_has(&qs->local_tp, QUIC_TPB_VERSION_INFORMATION) ||
	    !quic_compat_offered(tp, to))
		return 0;
	orig = quic_obj_alloc(sk, sizeof(*orig), GFP_KERNEL);
	if (!orig)
		return -ENOMEM;
	quic_crypto_ctx_init(orig);
	err = quic_compat_keys(orig, qs->version, quic_compat_key_dcid(qs),
			       true);
	if (!err)
		err = quic_compat_keys(&qs->crypto, to,
				       quic_compat_key_dcid(qs), true);
	if (err) {
		quic_crypto_ctx_free(orig);
		quic_obj_free(sk, orig, sizeof(*orig));
		return err;
	}
	qs->compat_rx = orig;
	qs->compat_orig = qs->version;
	qs->version = to;
	qs->local_tp.version_info.chosen = to;
	QUIC_INC_STATS(COMPAT_VN, 1);
	return 0;
}

/**
 * quic_compat_early_secret - a server installs its 0-RTT receive key
 * @sk: the connection, socket lock held
 * @s: the secret
 *
 * The client's 0-RTT packets are in the version its ClientHello was sent
 * in: after a move, the key is derived with that version's labels.
 *
 * Return: 0, or a negative errno.
 */
int quic_compat_early_secret(struct sock *sk,
			     const struct quic_crypto_secret *s)
{
	struct quic_sock *qs = quic_sk(sk);
	int err;

	if (!qs->compat_orig)
		return quic_crypto_set_secret(&qs->crypto, s);
	err = quic_crypto_set_version(&qs->crypto, qs->compat_orig);
	if (!err)
		err = quic_crypto_set_secret(&qs->crypto, s);
	quic_crypto_set_version(&qs->crypto, qs->version);
	return err;
}

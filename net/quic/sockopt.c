// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC socket options (SOL_QUIC) and the IP-level options that reach our
 * packets.
 *
 * An option the module does not implement yet fails with -ENOPROTOOPT, and
 * a value it cannot honour with -EOPNOTSUPP (or -EINVAL when it is not a
 * value at all): reporting success for something we did not do would let
 * programs believe a setting is in force.
 */

#include <linux/slab.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <linux/quic.h>

#include "compatvn.h"
#include "retry.h"
#include "socket.h"
#include "stream_fd.h"

/* Copy @len bytes of @data out to a getsockopt() caller. */
static int quic_put_opt(sockptr_t optval, sockptr_t optlen, int len,
			const void *data, int dlen)
{
	if (len < dlen)
		return -EINVAL;
	if (copy_to_sockptr(optlen, &dlen, sizeof(dlen)))
		return -EFAULT;
	if (dlen && copy_to_sockptr(optval, data, dlen))
		return -EFAULT;
	return 0;
}

static int quic_set_crypto_secret(struct sock *sk, sockptr_t optval,
				  unsigned int optlen)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_crypto_secret secret;
	int err;

	if (!qs->peer.sa.sa_family)
		return -ENOTCONN;
	if (optlen != sizeof(secret))
		return -EINVAL;
	/* One copy from userspace: what we check is what we install. */
	if (copy_from_sockptr(&secret, optval, sizeof(secret)))
		return -EFAULT;
	/* QUIC_SOCKOPT_CONFIG's payload_cipher_type allows no other. */
	if (qs->config.payload_cipher_type && secret.type &&
	    secret.type != qs->config.payload_cipher_type)
		err = -EINVAL;
	else if (secret.level == QUIC_CRYPTO_EARLY)
		err = quic_early_data_secret(sk, &secret);	/* 0-RTT */
	else
		err = quic_crypto_set_secret(&qs->crypto, &secret);
	memzero_explicit(secret.secret, sizeof(secret.secret));
	if (!err && secret.level == QUIC_CRYPTO_APP && secret.send)
		err = quic_early_data_app_key(sk);
	if (err)
		return err;

	/*
	 * A client's APP CRYPTO data is the server's NewSessionTickets, kept
	 * in qs->ticket (crypto_frames.c): the session data set there for
	 * resumption has served once a key that reads them is in, before
	 * the packets held for it are read below.
	 */
	if (!qs->is_server && secret.level == QUIC_CRYPTO_APP && !secret.send)
		quic_ticket_set(sk, NULL, 0);

	/* RFC 9002 §6.2.2.1: a client's anti-deadlock probe is a Handshake packet now. */
	if (secret.level == QUIC_CRYPTO_HANDSHAKE && secret.send)
		qs->ld.has_handshake_keys = true;
	/* libquic installs the APP send secret last: the handshake is done. */
	if (secret.level == QUIC_CRYPTO_APP &&
	    quic_crypto_ready(&qs->crypto, QUIC_CRYPTO_APP, true) &&
	    quic_crypto_ready(&qs->crypto, QUIC_CRYPTO_APP, false))
		quic_conn_established(sk);
	/* Packets that waited for these keys can be read now. */
	quic_input_hold_retry(sk);
	quic_output(sk);
	return 0;
}

/* The peer's transport parameters, from its TLS extension (RFC 9000 §7.4). */
static int quic_set_tp_ext(struct sock *sk, sockptr_t optval,
			   unsigned int optlen)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_transport_params tp;
	u32 terr = 0;
	u8 *buf;
	int err;

	if (optlen > QUIC_TICKET_MAX)
		return -EINVAL;
	buf = memdup_sockptr(optval, optlen);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	err = quic_tp_decode(buf, optlen, !qs->is_server, &tp, &terr);
	kfree(buf);
	if (err)
		return -EINVAL;
	if (qs->peer.sa.sa_family) {	/* a connection's */
		if (quic_tp_check_cids(&tp, !qs->is_server, &qs->peer_scid,
				       &qs->odcid,
				       qs->retry_done ? &qs->retry_scid : NULL,
				       &terr))
			return -EINVAL;
		/* RFC 9368 §4: a forged version: VERSION_NEGOTIATION_ERROR. */
		if (quic_tp_check_version(&tp, qs->version, &terr)) {
			quic_conn_abort(sk, terr, 0);
			return -EPROTO;
		}
		/* A listener preferring v2 moves a v1 client (compatvn.c). */
		err = quic_compat_server(sk, &tp);
		if (err)
			return err;
	}
	qs->peer_tp = tp;
	qs->peer_tp_set = true;
	qs->ld.max_ack_delay = tp.max_ack_delay * USEC_PER_MSEC;
	quic_idle_set_timeout(&qs->idle,
			      qs->local_tp.max_idle_timeout * USEC_PER_MSEC,
			      tp.max_idle_timeout * USEC_PER_MSEC);
	quic_ld_set_idle_timeout(&qs->ld, qs->idle.timeout);
	quic_streams_set_params(sk, &qs->local_tp, &qs->peer_tp);
	return 0;
}

/*
 * The ABI form of transport parameters, from ours (or the peer's).  Fields
 * for what the module does not do report it: 1-RTT is always encrypted,
 * and compatible version negotiation (RFC 9368) is off unless
 * version_information was exchanged.  stateless_reset tells whether a
 * stateless_reset_token is (to be) sent: see quic_tp_from_user().
 */
static void quic_tp_to_user(const struct quic_transport_params *tp,
			    struct quic_transport_param *p)
{
	p->disable_active_migration = tp->disable_active_migration;
	p->grease_quic_bit = tp->grease_quic_bit;
	p->stateless_reset = quic_tp_has(tp, QUIC_TPB_STATELESS_RESET_TOKEN);
	p->disable_1rtt_encryption = 0;
	p->disable_compatible_version =
		!quic_tp_has(tp, QUIC_TPB_VERSION_INFORMATION);
	p->active_connection_id_limit =
		min_t(u64, tp->active_connection_id_limit, U8_MAX);
	p->ack_delay_exponent = tp->ack_delay_exponent;
	p->max_datagram_frame_size =
		min_t(u64, tp->max_datagram_frame_size, U16_MAX);
	p->max_udp_payload_size = min_t(u64, tp->max_udp_payload_size, U16_MAX);
	p->max_idle_timeout = min_t(u64, tp->max_idle_timeout * USEC_PER_MSEC,
				    U32_MAX);
	p->max_ack_delay = tp->max_ack_delay * USEC_PER_MSEC;
	p->max_streams_bidi = min_t(u64, tp->initial_max_streams_bidi, U16_MAX);
	p->max_streams_uni = min_t(u64, tp->initial_max_streams_uni, U16_MAX);
	p->max_data = tp->initial_max_data;
	p->max_stream_data_bidi_local = tp->initial_max_stream_data_bidi_local;
	p->max_stream_data_bidi_remote = tp->initial_max_stream_data_bidi_remote;
	p->max_stream_data_uni = tp->initial_max_stream_data_uni;
}

/*
 * Our transport parameters from the ABI form, each checked as RFC 9000
 * §18.2 bounds it.  As the draft API says, a zero field keeps the current
 * value (flags included: a set flag stays set).  What the module cannot
 * honour is refused rather than dropped: unencrypted 1-RTT.
 * disable_compatible_version stops sending version_information (RFC 9368),
 * which we send by default (version.c); like the other flags it cannot be
 * cleared again.
 *
 * stateless_reset asks for the stateless_reset_token parameter.  A server
 * always sends the token of its first CID (a listener's port has CIDs:
 * conn_id.c), so on a server it is what happens anyway; a client must not
 * send one (RFC 9000 §18.2).  The request is kept as the parameter's bit,
 * without a token: quic_set_tp() refuses it on a client, connect() on a
 * socket that has it (a server's connection fills the token in).
 */
static int quic_tp_from_user(struct quic_transport_params *tp,
			     const struct quic_transport_param *p)
{
	const struct {
		enum quic_tp_bit bit;
		u64 value;
	} v[] = {
		/* Microseconds in the ABI, milliseconds on the wire. */
		{ QUIC_TPB_MAX_IDLE_TIMEOUT,
		  DIV_ROUND_UP(p->max_idle_timeout, USEC_PER_MSEC) },
		{ QUIC_TPB_MAX_ACK_DELAY,
		  DIV_ROUND_UP(p->max_ack_delay, USEC_PER_MSEC) },
		{ QUIC_TPB_INITIAL_MAX_DATA, p->max_data },
		{ QUIC_TPB_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL,
		  p->max_stream_data_bidi_local },
		{ QUIC_TPB_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE,
		  p->max_stream_data_bidi_remote },
		{ QUIC_TPB_INITIAL_MAX_STREAM_DATA_UNI, p->max_stream_data_uni },
		{ QUIC_TPB_INITIAL_MAX_STREAMS_BIDI, p->max_streams_bidi },
		{ QUIC_TPB_INITIAL_MAX_STREAMS_UNI, p->max_streams_uni },
		{ QUIC_TPB_ACK_DELAY_EXPONENT, p->ack_delay_exponent },
		{ QUIC_TPB_MAX_UDP_PAYLOAD_SIZE, p->max_udp_payload_size },
		{ QUIC_TPB_ACTIVE_CONNECTION_ID_LIMIT,
		  p->active_connection_id_limit },
		/* We never check the fixed bit: RFC 9287 §3 holds. */
		{ QUIC_TPB_GREASE_QUIC_BIT, !!p->grease_quic_bit },
		{ QUIC_TPB_DISABLE_ACTIVE_MIGRATION, !!p->disable_active_migration },
		/* RFC 9221: advertised, so DATAGRAM frames are welcome. */
		{ QUIC_TPB_MAX_DATAGRAM_FRAME_SIZE,
		  p->max_datagram_frame_size },
	};
	struct quic_transport_params t = *tp;
	unsigned int i;

	if (p->disable_1rtt_encryption)
		return -EOPNOTSUPP;
	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (v[i].value && quic_tp_set(&t, v[i].bit, v[i].value))
			return -EINVAL;
	if (p->disable_compatible_version)
		t.present &= ~BIT(QUIC_TPB_VERSION_INFORMATION);
	if (p->stateless_reset)
		quic_tp_mark(&t, QUIC_TPB_STATELESS_RESET_TOKEN);
	*tp = t;
	return 0;
}

/* A listener, or a connection accepted by one. */
static bool quic_is_server_sock(const struct sock *sk)
{
	return quic_sk(sk)->is_server || sk->sk_state == QUIC_SS_LISTENING;
}

/*
 * The peer's parameters that a client remembers from an earlier connection
 * (remote = 1), for 0-RTT: kept, read back with remote = 1 until the
 * server's own arrive and replace them.  Stream data written before the
 * handshake completes goes out in 0-RTT under them (early_data.c).
 */
static int quic_set_tp_remote(struct sock *sk,
			      const struct quic_transport_param *p)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_transport_param limits = *p, *saved;
	struct quic_transport_params tp;
	int err;

	if (quic_is_server_sock(sk))
		return -EINVAL;
	if (qs->peer_tp_set || qs->handshake_done || qs->early.tp_applied)
		return -EISCONN;
	/*
	 * Checked as ours would be, and kept as they read back.  What a
	 * server told of itself that 0-RTT does not use is kept too, not
	 * refused as it is among our own parameters: a getsockopt() of the
	 * last connection's (stateless reset, RFC 9000 §7.4.1) must set
	 * back as it came.  max_datagram_frame_size is checked and kept:
	 * we send datagrams in 1-RTT only, under the server's new value.
	 */
	limits.stateless_reset = 0;
	limits.disable_1rtt_encryption = 0;
	quic_tp_init(&tp);
	err = quic_tp_from_user(&tp, &limits);
	if (err)
		return err;
	/* Allocated as only a resuming client needs it; at most once. */
	saved = qs->peer_tp_saved ?: quic_obj_alloc(sk, sizeof(*p), GFP_KERNEL);
	if (!saved)
		return -ENOMEM;
	err = quic_early_data_remote_tp(sk, &tp);
	if (err) {
		if (saved != qs->peer_tp_saved)
			quic_obj_free(sk, saved, sizeof(*saved));
		return err;
	}
	*saved = *p;
	qs->peer_tp_saved = saved;
	return 0;
}

/*
 * QUIC_SOCKOPT_TRANSPORT_PARAM: ours, until they are sent: before the
 * handshake starts, or, after connect() (or accept()), until libquic reads
 * the encoded extension to send it (-EISCONN after).
 */
static int quic_set_tp(struct sock *sk, sockptr_t optval, unsigned int optlen)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_transport_param p;
	int err;

	if (optlen < sizeof(p))
		return -EINVAL;
	if (copy_from_sockptr(&p, optval, sizeof(p)))
		return -EFAULT;
	if (p.remote)
		return quic_set_tp_remote(sk, &p);
	if (qs->local_tp_sent || qs->handshake_done ||
	    (qs_was_connected(sk) && sk->sk_state != QUIC_SS_CONNECTING))
		return -EISCONN;
	/* RFC 9000 §18.2: a client sends no stateless_reset_token. */
	if (p.stateless_reset && qs_was_connected(sk) && !qs->is_server)
		return -EINVAL;
	err = quic_tp_from_user(&qs->local_tp, &p);
	if (!err && qs_was_connected(sk))
		quic_conn_local_tp_changed(sk);
	return err;
}

static int quic_get_tp(struct sock *sk, sockptr_t optval,
		       sockptr_t optlen, int len)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_transport_param p;

	if (len < sizeof(p))
		return -EINVAL;
	if (copy_from_sockptr(&p, optval, sizeof(p)))
		return -EFAULT;
	if (p.remote && !qs->peer_tp_set) {
		if (!qs->peer_tp_saved)
			return -ENOTCONN;
		p = *qs->peer_tp_saved;
		return quic_put_opt(optval, optlen, len, &p, sizeof(p));
	}
	quic_tp_to_user(p.remote ? &qs->peer_tp : &qs->local_tp, &p);
	/* A server's connections all send a token (quic_tp_from_user()). */
	if (!p.remote && quic_is_server_sock(sk))
		p.stateless_reset = 1;
	return quic_put_opt(optval, optlen, len, &p, sizeof(p));
}

/* QUIC_SOCKOPT_STREAM_RESET and QUIC_SOCKOPT_STREAM_STOP_SENDING */
static int quic_set_stream_err(struct sock *sk, int optname, sockptr_t optval,
			       unsigned int optlen)
{
	struct quic_errinfo ei;

	if (optlen < sizeof(ei))
		return -EINVAL;
	if (copy_from_sockptr(&ei, optval, sizeof(ei)))
		return -EFAULT;
	if (ei.stream_id < 0)
		return -EINVAL;
	if (sk->sk_state != QUIC_SS_ESTABLISHED)
		return -ENOTCONN;
	if (optname == QUIC_SOCKOPT_STREAM_RESET)
		return quic_stream_reset(sk, ei.stream_id, ei.errcode);
	return quic_stream_stop_sending(sk, ei.stream_id, ei.errcode);
}

/*
 * QUIC_SOCKOPT_STREAM_OPEN: open a stream without sending on it.  Of
 * stream_flags, MSG_QUIC_STREAM_UNI picks the type of the next stream (-1)
 * and MSG_QUIC_STREAM_DONTWAIT does not wait for the peer's MAX_STREAMS;
 * other bits, and UNI with the id of a bidirectional stream, are refused,
 * as QUIC_SOCKOPT_STREAM_PEELOFF refuses them (stream_fd.c).
 */
static int quic_get_stream_open(struct sock *sk, sockptr_t optval,
				sockptr_t optlen, int len)
{
	struct socket *sock = sk->sk_socket;
	struct quic_stream_info si;
	bool nonblock;
	int err;

	if (len < sizeof(si))
		return -EINVAL;
	if (copy_from_sockptr(&si, optval, sizeof(si)))
		return -EFAULT;
	if ((si.stream_flags & ~QUIC_STREAM_OPEN_FLAGS) ||
	    ((si.stream_flags & MSG_QUIC_STREAM_UNI) && si.stream_id >= 0 &&
	     !(si.stream_id & QUIC_STREAM_TYPE_UNI_MASK)))
		return -EINVAL;
	nonblock = !sock || !sock->file || (sock->file->f_flags & O_NONBLOCK);
	err = quic_stream_open_user(sk, si.stream_id, si.stream_flags,
				    nonblock, &si.stream_id);
	if (err)
		return err;
	return quic_put_opt(optval, optlen, len, &si, sizeof(si));
}

static int quic_set_alpn(struct sock *sk, sockptr_t optval,
			 unsigned int optlen)
{
	char alpn[QUIC_ALPN_MAX] = {};

	/* Through the stack, NUL-terminated; the socket keeps a copy. */
	if (optlen >= sizeof(alpn))
		return -EINVAL;
	if (copy_from_sockptr(alpn, optval, optlen))
		return -EFAULT;
	return quic_alpn_set(sk, alpn);
}

static int quic_set_close(struct sock *sk, sockptr_t optval,
			  unsigned int optlen)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_connection_close ci = {};

	if (optlen < offsetof(struct quic_connection_close, phrase) ||
	    optlen > sizeof(ci))
		return -EINVAL;
	if (copy_from_sockptr(&ci, optval, optlen))
		return -EFAULT;
	/*
	 * A frame type goes only in a transport CONNECTION_CLOSE (RFC 9000
	 * §19.19): during the handshake (below), or with a CRYPTO_ERROR
	 * code; an application close (0x1d) has no room for one.
	 */
	if (ci.frame && sk->sk_state != QUIC_SS_CONNECTING &&
	    !quic_conn_is_crypto_error(ci.errcode))
		return -EINVAL;
	ci.phrase[sizeof(ci.phrase) - 1] = 0;
	qs->close_info = ci;
	qs->close_set = true;
	/* A failed handshake (libquic: TLS alert) closes right away. */
	if (sk->sk_state == QUIC_SS_CONNECTING)
		quic_conn_close(sk, ci.errcode, ci.frame, false);
	return 0;
}

static int quic_set_ticket(struct sock *sk, sockptr_t optval,
			   unsigned int optlen)
{
	u8 *buf = NULL;

	if (optlen > QUIC_TICKET_MAX)
		return -EINVAL;
	if (optlen) {
		buf = memdup_sockptr(optval, optlen);
		if (IS_ERR(buf))
			return PTR_ERR(buf);
	}
	quic_ticket_set(sk, buf, optlen);
	return 0;
}

/* The longest initial_smoothed_rtt taken, in microseconds (a minute). */
#define QUIC_CONFIG_MAX_INITIAL_RTT	(60 * USEC_PER_SEC)

/*
 * QUIC_SOCKOPT_CONFIG values the module can honour (every congestion
 * controller of enum quic_cong_algo, cong.h).  plpmtud_probe_interval turns DPLPMTUD on
 * (pmtud.h).  validate_peer_address makes a listener send Retry (retry.c).  libquic
 * reads payload_cipher_type, receive_session_ticket and
 * certificate_request back from the socket;
 * stream_data_nodelay turns off the coalescing of small writes
 * (stream_send.c).
 */
static int quic_config_check(const struct quic_config *c)
{
	if (c->version && c->version != QUIC_VERSION_V1 &&
	    c->version != QUIC_VERSION_V2)
		return -EINVAL;
	if (c->congestion_control_algo >= QUIC_CONG_ALG_MAX ||
	    c->initial_smoothed_rtt > QUIC_CONFIG_MAX_INITIAL_RTT ||
	    (c->payload_cipher_type && !quic_crypto_cipher(c->payload_cipher_type)) ||
	    c->validate_peer_address > 1 || c->stream_data_nodelay > 1 ||
	    c->receive_session_ticket > 1 || c->certificate_request > 2)
		return -EINVAL;
	return 0;
}

/*
 * A zero field keeps the current value, as the draft API says, except
 * congestion_control_algo before the connection starts, where 0 is
 * QUIC_CONG_ALG_RENO (@started: 0 keeps it too).
 */
static void quic_config_merge(struct quic_config *cur,
			      const struct quic_config *c, bool started)
{
	cur->version = c->version ?: cur->version;
	cur->initial_smoothed_rtt =
		c->initial_smoothed_rtt ?: cur->initial_smoothed_rtt;
	cur->payload_cipher_type =
		c->payload_cipher_type ?: cur->payload_cipher_type;
	if (!started || c->congestion_control_algo)
		cur->congestion_control_algo = c->congestion_control_algo;
	cur->stream_data_nodelay =
		c->stream_data_nodelay ?: cur->stream_data_nodelay;
	cur->receive_session_ticket =
		c->receive_session_ticket ?: cur->receive_session_ticket;
	cur->certificate_request =
		c->certificate_request ?: cur->certificate_request;
	cur->validate_peer_address =
		c->validate_peer_address ?: cur->validate_peer_address;
	cur->keepalive_probe_interval =
		c->keepalive_probe_interval ?: cur->keepalive_probe_interval;
	cur->plpmtud_probe_interval =
		c->plpmtud_probe_interval ?: cur->plpmtud_probe_interval;
}

/*
 * QUIC_SOCKOPT_CONFIG on a connection (after connect() or accept()).  The
 * version, the congestion controller and the initial RTT took effect when
 * it started: a different value is -EISCONN, except the initial RTT while
 * no RTT sample was taken (it is applied then).  The other fields can
 * change at any time.  A connection that is over takes nothing.
 */
static int quic_config_started(struct sock *sk, const struct quic_config *c)
{
	struct quic_sock *qs = quic_sk(sk);

	if (sk->sk_state != QUIC_SS_CONNECTING &&
	    sk->sk_state != QUIC_SS_ESTABLISHED)
		return -EISCONN;
	/* Address validation was the listener's, before the connection. */
	if (c->validate_peer_address && !qs->config.validate_peer_address)
		return -EISCONN;
	if ((c->version && c->version != qs->version) ||
	    (c->congestion_control_algo &&
	     c->congestion_control_algo != qs->cong.algo) ||
	    (c->payload_cipher_type &&
	     c->payload_cipher_type != qs->config.payload_cipher_type &&
	     (quic_crypto_ready(&qs->crypto, QUIC_CRYPTO_HANDSHAKE, true) ||
	      qs->space[QUIC_PN_SPACE_HANDSHAKE].discarded)))
		return -EISCONN;
	if (c->initial_smoothed_rtt &&
	    c->initial_smoothed_rtt != qs->config.initial_smoothed_rtt) {
		if (qs->rtt.has_sample)
			return -EISCONN;
		quic_rtt_init(&qs->rtt, c->initial_smoothed_rtt);
		quic_timer_rearm(sk);
	}
	return 0;
}

static int quic_set_config(struct sock *sk, sockptr_t optval,
			   unsigned int optlen)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_config c;
	int err;

	if (optlen < sizeof(c))
		return -EINVAL;
	if (copy_from_sockptr(&c, optval, sizeof(c)))
		return -EFAULT;
	err = quic_config_check(&c);
	if (err)
		return err;
	if (qs_was_connected(sk)) {
		err = quic_config_started(sk, &c);
		if (err)
			return err;
	}
	quic_config_merge(&qs->config, &c, qs_was_connected(sk));
	if (!qs_was_connected(sk))
		qs->version = qs->config.version;
	else if (c.plpmtud_probe_interval)
		quic_pmtud_config(sk);
	return 0;
}

/* QUIC_SOCKOPT_CONNECTION_ID (conn_id.c). */
static int quic_set_cid(struct sock *sk, sockptr_t optval, unsigned int optlen)
{
	struct quic_connection_id_info i;

	if (optlen < sizeof(i))
		return -EINVAL;
	if (copy_from_sockptr(&i, optval, sizeof(i)))
		return -EFAULT;
	return quic_cid_sockopt_set(sk, &i);
}

static int quic_get_cid(struct sock *sk, sockptr_t optval,
			sockptr_t optlen, int len)
{
	struct quic_connection_id_info i;
	int err;

	if (len < sizeof(i))
		return -EINVAL;
	if (copy_from_sockptr(&i, optval, sizeof(i)))
		return -EFAULT;
	err = quic_cid_sockopt_get(sk, &i);
	return err ?: quic_put_opt(optval, optlen, len, &i, sizeof(i));
}

static int quic_set_event(struct sock *sk, sockptr_t optval,
			  unsigned int optlen)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_event_option ev;

	if (optlen < sizeof(ev))
		return -EINVAL;
	if (copy_from_sockptr(&ev, optval, sizeof(ev)))
		return -EFAULT;
	if (ev.type == QUIC_EVENT_NONE || ev.type >= QUIC_EVENT_MAX)
		return -EINVAL;
	if (ev.on)
		qs->events |= BIT(ev.type);
	else
		qs->events &= ~BIT(ev.type);
	return 0;
}

/*
 * QUIC_SOCKOPT_TOKEN, client: the address-validation token its Initials
 * carry (RFC 9000 §8.1.3), from a NEW_TOKEN of an earlier connection; an
 * empty one clears it.  It can change until the first Initial is sent
 * (-EISCONN after: every Initial carries the same token).  A server
 * connection's set with no value sends a NEW_TOKEN frame (retry.c) once
 * its handshake is complete (-ENOTCONN before, and on a listener); any
 * other set on a server is -EINVAL.
 */
static int quic_set_token_server(struct sock *sk, sockptr_t optval,
				 unsigned int optlen)
{
	int err;

	if (!sockptr_is_null(optval) || optlen)
		return -EINVAL;
	if (sk->sk_state != QUIC_SS_ESTABLISHED)
		return -ENOTCONN;
	err = quic_new_token_send(sk);
	if (err)
		return err;
	quic_output(sk);
	return 0;
}

static int quic_set_token(struct sock *sk, sockptr_t optval,
			  unsigned int optlen)
{
	struct quic_sock *qs = quic_sk(sk);
	u8 *buf = NULL;

	if (quic_is_server_sock(sk))
		return quic_set_token_server(sk, optval, optlen);
	if (optlen > QUIC_TOKEN_MAX)
		return -EINVAL;
	if (qs->space[QUIC_PN_SPACE_INITIAL].next_pn)
		return -EISCONN;
	if (optlen) {
		buf = memdup_sockptr(optval, optlen);
		if (IS_ERR(buf))
			return PTR_ERR(buf);
	}
	quic_token_set(sk, buf, optlen);
	return 0;
}

static int quic_setsockopt_quic(struct sock *sk, int optname,
				sockptr_t optval, unsigned int optlen)
{
	switch (optname) {
	case QUIC_SOCKOPT_CRYPTO_SECRET:
		return quic_set_crypto_secret(sk, optval, optlen);
	case QUIC_SOCKOPT_TRANSPORT_PARAM_EXT:
		return quic_set_tp_ext(sk, optval, optlen);
	case QUIC_SOCKOPT_ALPN:
		return quic_set_alpn(sk, optval, optlen);
	case QUIC_SOCKOPT_CONNECTION_CLOSE:
		return quic_set_close(sk, optval, optlen);
	case QUIC_SOCKOPT_SESSION_TICKET:
		return quic_set_ticket(sk, optval, optlen);
	case QUIC_SOCKOPT_CONFIG:
		return quic_set_config(sk, optval, optlen);
	case QUIC_SOCKOPT_EVENT:
		return quic_set_event(sk, optval, optlen);
	case QUIC_SOCKOPT_TRANSPORT_PARAM:
		return quic_set_tp(sk, optval, optlen);
	case QUIC_SOCKOPT_STREAM_RESET:
	case QUIC_SOCKOPT_STREAM_STOP_SENDING:
		return quic_set_stream_err(sk, optname, optval, optlen);
	case QUIC_SOCKOPT_KEY_UPDATE:
		/* No value: the call itself is the request. */
		return quic_key_update_initiate(sk);
	case QUIC_SOCKOPT_TOKEN:
		return quic_set_token(sk, optval, optlen);
	case QUIC_SOCKOPT_CONNECTION_ID:
		return quic_set_cid(sk, optval, optlen);
	case QUIC_SOCKOPT_CONNECTION_ID_LIST:
		return quic_cid_list_set(sk, optval, optlen);
	case QUIC_SOCKOPT_CONNECTION_MIGRATION:
		return quic_path_set_migration(sk, optval, optlen); /* path.c */
	default:
		return -ENOPROTOOPT;
	}
}

/*
 * Our encoded transport parameters.  Read on a connection, they are about
 * to be sent (libquic puts them in the ClientHello or the
 * EncryptedExtensions): from then on QUIC_SOCKOPT_TRANSPORT_PARAM cannot
 * change them.
 */
static int quic_get_tp_ext(struct sock *sk, sockptr_t optval,
			   sockptr_t optlen, int len)
{
	u8 buf[QUIC_TP_EXT_MAX];
	int n, err;

	n = quic_tp_encode(buf, sizeof(buf), &quic_sk(sk)->local_tp);
	if (n < 0)
		return n;
	err = quic_put_opt(optval, optlen, len, buf, n);
	if (!err && qs_was_connected(sk))
		quic_sk(sk)->local_tp_sent = true;
	return err;
}

/*
 * The client's token, possibly empty.  A server has none to give:
 * -EINVAL, which tells a library (as the draft's reference does) that the
 * socket is a server's.
 */
static int quic_get_token(struct sock *sk, sockptr_t optval,
			  sockptr_t optlen, int len)
{
	struct quic_sock *qs = quic_sk(sk);

	if (quic_is_server_sock(sk))
		return -EINVAL;
	/* A kmalloc()ed buffer of its own: no usercopy concern. */
	return quic_put_opt(optval, optlen, len, qs->token, qs->token_len);
}

/*
 * QUIC_SOCKOPT_SESSION_TICKET, read: a client's session data (or the
 * NewSessionTicket messages received), a server's ticket key, which the
 * kernel makes if the user set none.
 */
static int quic_get_ticket(struct sock *sk, sockptr_t optval,
			   sockptr_t optlen, int len)
{
	struct quic_sock *qs = quic_sk(sk);
	int err;

	if (quic_is_server_sock(sk)) {
		err = quic_ticket_key_make(sk);
		if (err)
			return err;
	}
	return quic_put_opt(optval, optlen, len, qs->ticket, qs->ticket_len);
}

static int quic_get_event(struct sock *sk, sockptr_t optval,
			  sockptr_t optlen, int len)
{
	struct quic_event_option ev;

	if (len < sizeof(ev))
		return -EINVAL;
	if (copy_from_sockptr(&ev, optval, sizeof(ev)))
		return -EFAULT;
	if (ev.type == QUIC_EVENT_NONE || ev.type >= QUIC_EVENT_MAX)
		return -EINVAL;
	ev.on = !!(quic_sk(sk)->events & BIT(ev.type));
	return quic_put_opt(optval, optlen, len, &ev, sizeof(ev));
}

static int quic_getsockopt_quic(struct sock *sk, int optname,
				sockptr_t optval, sockptr_t optlen, int len)
{
	struct quic_sock *qs = quic_sk(sk);
	/*
	 * Hardened usercopy refuses copies straight out of the socket's slab
	 * object, so values go through the stack.
	 */
	union {
		char alpn[QUIC_ALPN_MAX];
		struct quic_connection_close close;
		struct quic_config config;
	} u;

	switch (optname) {
	case QUIC_SOCKOPT_TRANSPORT_PARAM_EXT:
		return quic_get_tp_ext(sk, optval, optlen, len);
	case QUIC_SOCKOPT_ALPN:
		strscpy(u.alpn, quic_alpn(qs), sizeof(u.alpn));
		return quic_put_opt(optval, optlen, len, u.alpn,
				    strlen(u.alpn));
	case QUIC_SOCKOPT_CONNECTION_CLOSE:
		u.close = qs->close_info;
		return quic_put_opt(optval, optlen, len, &u.close,
				    sizeof(u.close));
	case QUIC_SOCKOPT_SESSION_TICKET:
		return quic_get_ticket(sk, optval, optlen, len);
	case QUIC_SOCKOPT_TOKEN:
		return quic_get_token(sk, optval, optlen, len);
	case QUIC_SOCKOPT_CONFIG:
		u.config = qs->config;
		u.config.version = qs->version;	/* a server's: the client's */
		return quic_put_opt(optval, optlen, len, &u.config,
				    sizeof(u.config));
	case QUIC_SOCKOPT_EVENT:
		return quic_get_event(sk, optval, optlen, len);
	case QUIC_SOCKOPT_TRANSPORT_PARAM:
		return quic_get_tp(sk, optval, optlen, len);
	case QUIC_SOCKOPT_STREAM_OPEN:
		return quic_get_stream_open(sk, optval, optlen, len);
	case QUIC_SOCKOPT_CONNECTION_ID:
		return quic_get_cid(sk, optval, optlen, len);
	case QUIC_SOCKOPT_STREAM_PEELOFF:
		/* A file descriptor means nothing to a kernel caller. */
		if (optval.is_kernel || optlen.is_kernel)
			return -EOPNOTSUPP;
		return quic_stream_peeloff(sk, optval.user, optlen.user, len);
	default:
		return -ENOPROTOOPT;
	}
}

/*
 * The IP-level options that do something on a QUIC socket: the TOS (traffic
 * class) and TTL (hop limit) of its packets, which quic_udp_xmit_train() takes
 * from here (an AF_INET6 socket's IPv6 values serve its IPv4 peers too),
 * and IPV6_V6ONLY, which bind() follows.  Anything else would be kept on a
 * socket that no packet leaves from: ENOPROTOOPT.
 */
static bool quic_ip_opt_ok(const struct sock *sk, int level, int optname)
{
	if (level == SOL_IP)
		return sk->sk_family == AF_INET &&
		       (optname == IP_TOS || optname == IP_TTL);
	if (level == SOL_IPV6)
		return sk->sk_family == AF_INET6 &&
		       (optname == IPV6_TCLASS || optname == IPV6_UNICAST_HOPS ||
			optname == IPV6_V6ONLY);
	return false;
}

/*
 * The ECN field of our packets is the connection's (RFC 9000 §13.4, ecn.h):
 * a TOS or traffic class with ECN bits is refused, only DSCP is the user's.
 */
static int quic_ip_tos_check(int level, int optname, sockptr_t optval,
			     unsigned int optlen)
{
	int val;
	u8 v8;

	if (!(level == SOL_IP && optname == IP_TOS) &&
	    !(level == SOL_IPV6 && optname == IPV6_TCLASS))
		return 0;
	if (optlen >= sizeof(val)) {
		if (copy_from_sockptr(&val, optval, sizeof(val)))
			return -EFAULT;
	} else if (optlen && level == SOL_IP) {
		if (copy_from_sockptr(&v8, optval, 1))
			return -EFAULT;
		val = v8;
	} else {
		return 0;	/* the IP layer refuses the length */
	}
	return val > 0 && (val & INET_ECN_MASK) ? -EINVAL : 0;
}

/**
 * quic_do_setsockopt - set a SOL_QUIC option of a QUIC socket
 * @sk: the QUIC socket
 * @optname: a QUIC_SOCKOPT_* option
 * @optval: its value, in user (USER_SOCKPTR) or kernel (KERNEL_SOCKPTR)
 *	memory
 * @optlen: the length of @optval
 *
 * What setsockopt(fd, SOL_QUIC, ...) does, for kernel users too; it takes
 * the socket lock, so the caller must not hold it.
 *
 * Return: 0, or a negative errno as setsockopt(2) reports it (quic(7)).
 */
int quic_do_setsockopt(struct sock *sk, int optname, sockptr_t optval,
		       unsigned int optlen)
{
	int err;

	if (sk->sk_protocol != IPPROTO_QUIC)
		return -EOPNOTSUPP;
	lock_sock(sk);
	err = quic_setsockopt_quic(sk, optname, optval, optlen);
	release_sock(sk);
	return err;
}
EXPORT_SYMBOL_GPL(quic_do_setsockopt);

/**
 * quic_do_getsockopt - read a SOL_QUIC option of a QUIC socket
 * @sk: the QUIC socket
 * @optname: a QUIC_SOCKOPT_* option
 * @optval: the buffer (for some options also the input), user or kernel
 * @optlen: an int: the size of @optval in, the length of the value out
 *
 * What getsockopt(fd, SOL_QUIC, ...) does, for kernel users too; it takes
 * the socket lock.  QUIC_SOCKOPT_STREAM_PEELOFF, which makes a file
 * descriptor, is -EOPNOTSUPP with kernel buffers.
 *
 * Return: 0, or a negative errno as getsockopt(2) reports it (quic(7)).
 */
int quic_do_getsockopt(struct sock *sk, int optname, sockptr_t optval,
		       sockptr_t optlen)
{
	int len, err;

	if (sk->sk_protocol != IPPROTO_QUIC)
		return -EOPNOTSUPP;
	if (copy_from_sockptr(&len, optlen, sizeof(len)))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	lock_sock(sk);
	/* Datagrams left to a reader count as received (input.c). */
	sk_flush_backlog(sk);
	err = quic_getsockopt_quic(sk, optname, optval, optlen, len);
	release_sock(sk);
	return err;
}
EXPORT_SYMBOL_GPL(quic_do_getsockopt);

int quic_sock_setsockopt(struct sock *sk, int level, int optname,
			 sockptr_t optval, unsigned int optlen)
{
	int err;

	if (level == SOL_QUIC)
		return quic_do_setsockopt(sk, optname, optval, optlen);
	if (!quic_ip_opt_ok(sk, level, optname))
		return -ENOPROTOOPT;
	err = quic_ip_tos_check(level, optname, optval, optlen);
	if (err)
		return err;
	if (level == SOL_IP)
		return ip_setsockopt(sk, level, optname, optval, optlen);
	return ipv6_setsockopt(sk, level, optname, optval, optlen);
}

int quic_sock_getsockopt(struct sock *sk, int level, int optname,
			 char __user *optval, int __user *optlen)
{
	if (level == SOL_QUIC)
		return quic_do_getsockopt(sk, optname, USER_SOCKPTR(optval),
					  USER_SOCKPTR(optlen));
	if (quic_pmtud_is_mtu_opt(level, optname))
		return quic_pmtud_get_mtu(sk, optval, optlen);
	if (!quic_ip_opt_ok(sk, level, optname))
		return -ENOPROTOOPT;
	if (level == SOL_IP)
		return ip_getsockopt(sk, level, optname, optval, optlen);
	return ipv6_getsockopt(sk, level, optname, optval, optlen);
}

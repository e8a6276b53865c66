// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC versions.
 *
 * Version Negotiation sent (RFC 9000 §6.1, §17.2.1).  A datagram of at
 * least 1200 bytes whose long header names a version we do not speak,
 * arriving at a port with a listener (alone or with ALPN dispatch: the
 * answer is given in quic_udp_deliver() before either), is answered
 * statelessly with a Version Negotiation packet from the tunnel socket:
 * the connection IDs echoed and swapped, v1, v2 and a reserved version
 * 0x?a?a?a?a (RFC 9000 §15).  It is never larger than what prompted it,
 * never sent for a Version Negotiation packet, and the port sends at most
 * QUIC_VN_BURST of them at once and QUIC_VN_RATE a second after that
 * (a struct quic_ratelimit, one per tunnel socket, i.e. per listening
 * address and port, which all its listeners share): a flood of unknown
 * versions cannot make us a reflector.  Counted as
 * version_negotiation_sent, or dropped as vn_rate_limited.
 *
 * Version Negotiation received (RFC 9000 §6.2, RFC 9368 §2.1, §4).  A
 * client takes one only while connecting and before any other packet of
 * the server was processed, only if its Source Connection ID is the
 * Destination Connection ID we chose, and never if it lists the version
 * we used (the downgrade rule).  Then the connection attempt ends with
 * EPROTONOSUPPORT: the handshake's recvmsg() wakes with it, and libquic
 * returns it.  We do not start a new first flight ourselves: RFC 9368
 * §4 has the new ClientHello's version_information name the new version,
 * and the ClientHello is libquic's, already sent, in the TLS transcript.
 * When the server listed a version we support, QUIC_SOCKOPT_CONFIG's
 * version then reads back that version, so the application can connect
 * again with it on a new socket (libquic's quic_client_handshake() does,
 * libquic/vn_restart.c; quic-hq does with its own session).
 *
 * version_information (RFC 9368 §3).  Sent by default: our Chosen Version
 * is the connection's; a client lists it and the other one as Available
 * (a server may move it: compatvn.c), a server lists v1 and v2.  The
 * peer's is checked by quic_tp_check_version() (transport_param.c) when
 * libquic hands it over; a mismatch closes with VERSION_NEGOTIATION_ERROR.
 * Setting disable_compatible_version in QUIC_SOCKOPT_TRANSPORT_PARAM stops
 * sending it (and so refuses compatible version negotiation).  A server
 * answers in the client's version unless its listener prefers v2
 * (compatible version negotiation, RFC 9368 §2.3: compatvn.c).
 *
 * Greasing the fixed bit (RFC 9287).  We advertise grease_quic_bit unless
 * the sysctl net.quic.grease_quic_bit is 0 (then a new socket does not),
 * and accept packets with the fixed bit 0 when we do (input.c), first
 * Initials on a listener included (§3: a server that advertises it must).
 * Toward a peer that advertised it, each long or short header packet we
 * send has its fixed bit cleared with probability one half; never before
 * the peer's transport parameters are known, so never in a client's first
 * Initials, and never in Version Negotiation (which has no fixed bit to
 * begin with here: we set it, as RFC 9000 §17.2.1 advises).  Counted as
 * packets_greased.
 */

#include <linux/random.h>
#include <linux/unaligned.h>

#include "socket.h"
#include "udp.h"
#include "version.h"

/* Room UDP, IP and the link layer need in front of the reply. */
#define QUIC_VN_HEADROOM	(MAX_HEADER + sizeof(struct ipv6hdr) + \
				 sizeof(struct udphdr))

int sysctl_quic_grease_quic_bit = 1;

/**
 * quic_version_vn_reply - answer a datagram of an unknown version
 * @us: the tunnel socket it came to
 * @skb: the datagram, UDP header pulled, QUIC_INPUT_CB() filled
 * @inv: its invariant header
 *
 * Called from the receive path (softirq, RCU) for datagrams of no known
 * connection.  Does not consume @skb.
 *
 * Return: true if @skb was of an unknown version (answered, or dropped
 * with its reason counted): the caller frees it; false if its version is
 * one we speak.
 */
bool quic_version_vn_reply(struct quic_udp_sock *us, struct sk_buff *skb,
			   const struct quic_invariant *inv)
{
	u32 versions[] = { QUIC_VERSION_V1, QUIC_VERSION_V2,
			   (get_random_u32() & 0xf0f0f0f0) | 0x0a0a0a0a };
	struct sock *usk = us->sock->sk;
	struct sk_buff *vn;
	size_t room;
	int len;

	if (!inv->long_form || quic_version_supported(inv->version))
		return false;
	/* Never for a port without listener, a VN packet, a short datagram. */
	if (!rcu_access_pointer(us->listener) && list_empty(&us->listeners)) {
		QUIC_DROP(usk, NO_SOCKET);
		return true;
	}
	room = 7 + inv->dcid_len + inv->scid_len + sizeof(versions);
	if (inv->version == QUIC_VERSION_NEGOTIATION ||
	    skb->len < QUIC_MIN_INITIAL_DATAGRAM || room > skb->len) {
		QUIC_DROP(usk, LISTEN);
		return true;
	}
	if (!quic_ratelimit_take(&us->vn, QUIC_VN_RATE, QUIC_VN_BURST)) {
		QUIC_DROP(usk, VN_RATE);
		return true;
	}
	vn = alloc_skb(QUIC_VN_HEADROOM + room, GFP_ATOMIC);
	if (!vn)
		return true;
	skb_reserve(vn, QUIC_VN_HEADROOM);
	/* §17.2.1: the fixed bit set, so that we look like QUIC to others. */
	len = quic_hdr_encode_vn(skb_tail_pointer(vn), room,
				 QUIC_HDR_FIXED_BIT | (get_random_u8() & 0x3f),
				 inv->scid, inv->scid_len,
				 inv->dcid, inv->dcid_len,
				 versions, ARRAY_SIZE(versions));
	if (len < 0) {
		kfree_skb(vn);
		return true;
	}
	skb_put(vn, len);
	if (quic_udp_xmit_reply(us, NULL, vn, QUIC_INPUT_CB(skb)))
		QUIC_DROP(usk, XMIT);
	else
		QUIC_INC_STATS(VN_SENT, 1);
	return true;
}

/* The first version of @hdr's list we speak, or 0. */
static u32 quic_version_pick(const struct quic_hdr *hdr)
{
	size_t i;
	u32 v;

	for (i = 0; i < hdr->n_versions; i++) {
		v = get_unaligned_be32(hdr->versions + 4 * i);
		if (quic_version_supported(v))
			return v;
	}
	return 0;
}

/* Does @hdr's list hold @version? */
static bool quic_version_listed(const struct quic_hdr *hdr, u32 version)
{
	size_t i;

	for (i = 0; i < hdr->n_versions; i++)
		if (get_unaligned_be32(hdr->versions + 4 * i) == version)
			return true;
	return false;
}

/**
 * quic_version_vn_rcv - a Version Negotiation packet for a socket
 * @sk: the socket its Destination Connection ID led to
 * @hdr: the parsed packet
 *
 * Socket lock held.  Ignored (counted as unsupported_packet) unless it may
 * end a client's connection attempt; see the top of this file.
 */
void quic_version_vn_rcv(struct sock *sk, const struct quic_hdr *hdr)
{
	struct quic_sock *qs = quic_sk(sk);
	u32 v;

	if (qs->is_server || qs->peer_scid_set ||
	    sk->sk_state != QUIC_SS_CONNECTING ||
	    !quic_cid_eq(&hdr->scid, &qs->odcid) ||
	    quic_version_listed(hdr, qs->version)) {
		QUIC_DROP(sk, UNSUPPORTED);
		return;
	}
	QUIC_INC_STATS(VN_RECV, 1);
	v = quic_version_pick(hdr);
	if (v)
		qs->version = v;	/* what a new attempt would use */
	quic_conn_end(sk, EPROTONOSUPPORT);
}

/* Our version_information before the connection starts: v1's. */
void quic_version_tp_defaults(struct quic_transport_params *tp)
{
	tp->version_info.chosen = QUIC_VERSION_V1;
	tp->version_info.available[0] = QUIC_VERSION_V1;
	tp->version_info.n_available = 1;
	quic_tp_mark(tp, QUIC_TPB_VERSION_INFORMATION);
	if (READ_ONCE(sysctl_quic_grease_quic_bit))
		quic_tp_set(tp, QUIC_TPB_GREASE_QUIC_BIT, 1);
}

/*
 * The connection starts in qs->version: our version_information names it,
 * unless the user turned it off (disable_compatible_version).
 */
void quic_version_tp_start(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_tp_version_info *vi = &qs->local_tp.version_info;

	if (!quic_tp_has(&qs->local_tp, QUIC_TPB_VERSION_INFORMATION))
		return;
	vi->chosen = qs->version;
	vi->available[0] = qs->version;
	vi->n_available = 1;
	if (qs->is_server) {
		vi->available[0] = QUIC_VERSION_V1;
		vi->available[1] = QUIC_VERSION_V2;
		vi->n_available = 2;
	} else {
		/* Compatible: the server may move us (compatvn.c). */
		vi->available[1] = qs->version == QUIC_VERSION_V1 ?
				   QUIC_VERSION_V2 : QUIC_VERSION_V1;
		vi->n_available = 2;
	}
}

/* The fixed bit of a packet we are about to send (RFC 9287 §3). */
bool quic_version_fixed_bit(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	if (!qs->peer_tp_set || !qs->peer_tp.grease_quic_bit ||
	    (get_random_u8() & 1))
		return true;
	QUIC_INC_STATS(GREASED, 1);
	return false;
}

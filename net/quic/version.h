/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC versions: Version Negotiation sent and received (RFC 9000 §6,
 * RFC 8999 §6), the version_information transport parameter (RFC 9368)
 * and the greased fixed bit (RFC 9287).
 */

#ifndef _NET_QUIC_VERSION_H
#define _NET_QUIC_VERSION_H

#include <linux/spinlock.h>
#include <linux/types.h>

struct sk_buff;
struct sock;
struct quic_hdr;
struct quic_invariant;
struct quic_transport_params;
struct quic_udp_sock;

/* Version Negotiation packets a port sends (ratelimit.h). */
#define QUIC_VN_RATE	32	/* a second */
#define QUIC_VN_BURST	64

bool quic_version_vn_reply(struct quic_udp_sock *us, struct sk_buff *skb,
			   const struct quic_invariant *inv);
void quic_version_vn_rcv(struct sock *sk, const struct quic_hdr *hdr);

void quic_version_tp_defaults(struct quic_transport_params *tp);
void quic_version_tp_start(struct sock *sk);
bool quic_version_fixed_bit(struct sock *sk);

extern int sysctl_quic_grease_quic_bit;

#endif /* _NET_QUIC_VERSION_H */

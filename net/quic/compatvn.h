/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compatible version negotiation between QUIC v1 and v2 (RFC 9368 §2.3,
 * RFC 9369 §3): compatvn.c.
 */

#ifndef _NET_QUIC_COMPATVN_H
#define _NET_QUIC_COMPATVN_H

#include <linux/types.h>

struct sock;
struct quic_hdr;
struct quic_crypto_ctx;
struct quic_transport_params;
struct quic_crypto_secret;

void quic_compat_init(struct sock *sk);
void quic_compat_free(struct sock *sk);
void quic_compat_discard(struct sock *sk);
struct quic_crypto_ctx *quic_compat_rx_ctx(struct sock *sk,
					   const struct quic_hdr *hdr);
bool quic_compat_client_rcv(struct sock *sk, const struct quic_hdr *hdr);
int quic_compat_server(struct sock *sk,
		       const struct quic_transport_params *tp);
int quic_compat_early_secret(struct sock *sk,
			     const struct quic_crypto_secret *s);

#endif /* _NET_QUIC_COMPATVN_H */

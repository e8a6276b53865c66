/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address validation (RFC 9000 §8.1): the tokens a server makes and
 * checks (token.c), the Retry a listener sends and a client follows, and
 * NEW_TOKEN (retry.c).
 */

#ifndef _NET_QUIC_RETRY_H
#define _NET_QUIC_RETRY_H

#include <linux/types.h>

#include "token.h"

struct sock;
struct sk_buff;
struct quic_hdr;
struct quic_udp_sock;
union quic_addr;

/* token.c */
int quic_token_make(const struct quic_udp_sock *us, struct quic_token *t,
		    const union quic_addr *peer, const struct quic_cid *rscid,
		    u8 *buf, size_t len);
int quic_token_check(const struct quic_udp_sock *us, const u8 *tok, u32 len,
		     const union quic_addr *peer, const struct quic_cid *rscid,
		     u64 now, struct quic_token *t);

/* retry.c */
bool quic_retry_listen(struct quic_udp_sock *us, struct sock *sk,
		       bool validate, struct sk_buff *skb,
		       const struct quic_hdr *hdr);
bool quic_retry_superseded(const struct quic_udp_sock *us,
			   const struct quic_cid *dcid);
void quic_retry_conn_accept(struct sock *sk, const struct quic_hdr *hdr,
			    const union quic_addr *peer);
void quic_retry_rcv(struct sock *sk, const u8 *pkt, const struct quic_hdr *hdr);
void quic_retry_init(struct sock *sk);
void quic_retry_free(struct sock *sk);
int quic_new_token_send(struct sock *sk);
int quic_new_token_rcv(struct sock *sk, const u8 *token, u64 len);

#endif /* _NET_QUIC_RETRY_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address-validation tokens (RFC 9000 §8.1): the Retry token and the
 * NEW_TOKEN token a server makes and checks.  This is the pure part: the
 * token layout and the message the MAC covers.  The key and the MAC
 * (keyed BLAKE2s) are in token.c.
 *
 * A token, all of it visible to the client:
 *
 *	type		1 byte: QUIC_TOKEN_RETRY or QUIC_TOKEN_NEW
 *	expiry		8 bytes, big endian: quic_now() microseconds
 *	Retry:	odcid_len 1 byte, odcid (at most 20 bytes)
 *	NEW:	nonce 8 random bytes (two tokens never look alike)
 *	mac		QUIC_TOKEN_MAC_LEN bytes
 *
 * The MAC covers those bytes and what the token is bound to without
 * carrying it: the client's IP address; for Retry also its port and the
 * Retry's Source Connection ID, which the client's next Initial names as
 * its Destination Connection ID.  The type byte is covered, so a token of
 * one type never passes for the other.
 *
 * Locking: none; pure functions on (buffer, length).
 */

#ifndef _NET_QUIC_TOKEN_H
#define _NET_QUIC_TOKEN_H

#include <linux/types.h>

#include "packet_header.h"

#define QUIC_TOKEN_RETRY	0x5a	/* in a Retry: short-lived */
#define QUIC_TOKEN_NEW		0xa5	/* in a NEW_TOKEN frame */

#define QUIC_TOKEN_KEY_LEN	32	/* BLAKE2s key */
#define QUIC_TOKEN_MAC_LEN	16
#define QUIC_TOKEN_NONCE_LEN	8
#define QUIC_TOKEN_BODY_MAX	(1 + 8 + 1 + QUIC_CID_MAX_LEN)
#define QUIC_TOKEN_LEN_MAX	(QUIC_TOKEN_BODY_MAX + QUIC_TOKEN_MAC_LEN)
/* Body, address family, IP, port, Retry SCID length and Retry SCID. */
#define QUIC_TOKEN_MSG_MAX	(QUIC_TOKEN_BODY_MAX + 1 + 16 + 2 + 1 + \
				 QUIC_CID_MAX_LEN)

/* Lifetimes, in microseconds of quic_now(). */
#define QUIC_TOKEN_RETRY_LIFE	(10ULL * 1000 * 1000)		/* 10 s */
#define QUIC_TOKEN_NEW_LIFE	(24ULL * 3600 * 1000 * 1000)	/* 24 h */

struct quic_token {
	u8			type;
	u64			expiry;
	struct quic_cid		odcid;				/* Retry */
	u8			nonce[QUIC_TOKEN_NONCE_LEN];	/* NEW */
};

/* What a token is bound to: the client's address, and Retry's SCID. */
struct quic_token_bind {
	u8			ip[16];
	u8			ip_len;		/* 4 or 16 */
	u8			port[2];	/* network order; Retry only */
	struct quic_cid		rscid;		/* Retry only */
};

int quic_token_encode(u8 *buf, size_t len, const struct quic_token *t);
int quic_token_decode(const u8 *buf, size_t len, struct quic_token *t);
int quic_token_msg(u8 *buf, size_t len, const u8 *body, size_t body_len,
		   const struct quic_token *t,
		   const struct quic_token_bind *b);
bool quic_token_expired(const struct quic_token *t, u64 now);

#endif /* _NET_QUIC_TOKEN_H */

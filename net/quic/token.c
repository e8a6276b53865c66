// SPDX-License-Identifier: GPL-2.0
/*
 * Address-validation tokens, made and checked by the server (token.h for
 * their layout).  The MAC is keyed BLAKE2s from lib/crypto: no
 * allocation, no sleeping, so a listener checks and makes tokens in its
 * receive path, in softirq.
 *
 * The key is per UDP tunnel socket, that is per local address and port
 * (udp.h): random when the port is first bound, constant while anything
 * uses it, never copied out of the kernel.  Per port rather than per
 * listener, because with several listeners on a port (ALPN dispatch,
 * dispatch.c) the Retry is decided before the listener is known; and a
 * port's connections, which issue NEW_TOKEN tokens, share its tunnel
 * socket with the listeners that will check them.  When the last socket
 * of the port goes, so does the key, and older tokens are then ignored
 * (a NEW_TOKEN token) or answered with a new Retry.
 */

#include <crypto/algapi.h>
#include <crypto/blake2s.h>
#include <net/ipv6.h>

#include "retry.h"
#include "socket.h"
#include "udp.h"

/* The client's IP (IPv4 even when seen on a dual-stack socket), port. */
static void quic_token_bind_addr(struct quic_token_bind *b,
				 const union quic_addr *a)
{
	if (a->sa.sa_family == AF_INET) {
		memcpy(b->ip, &a->v4.sin_addr, 4);
		b->ip_len = 4;
		memcpy(b->port, &a->v4.sin_port, 2);
	} else if (ipv6_addr_v4mapped(&a->v6.sin6_addr)) {
		memcpy(b->ip, &a->v6.sin6_addr.s6_addr32[3], 4);
		b->ip_len = 4;
		memcpy(b->port, &a->v6.sin6_port, 2);
	} else {
		memcpy(b->ip, &a->v6.sin6_addr, 16);
		b->ip_len = 16;
		memcpy(b->port, &a->v6.sin6_port, 2);
	}
}

static int quic_token_mac(const struct quic_udp_sock *us, const u8 *body,
			  int body_len, const struct quic_token *t,
			  const union quic_addr *peer,
			  const struct quic_cid *rscid, u8 *mac)
{
	struct quic_token_bind b = {};
	u8 msg[QUIC_TOKEN_MSG_MAX];
	int n;

	quic_token_bind_addr(&b, peer);
	if (rscid)
		b.rscid = *rscid;
	n = quic_token_msg(msg, sizeof(msg), body, body_len, t, &b);
	if (n < 0)
		return n;
	blake2s(mac, msg, us->token_key, QUIC_TOKEN_MAC_LEN, n,
		sizeof(us->token_key));
	return 0;
}

/**
 * quic_token_make - a token for the client at @peer
 * @us: the port whose key signs it
 * @t: type, expiry and ODCID (Retry) or nonce (NEW)
 * @peer: the client's address
 * @rscid: Retry: the Retry's SCID; NULL for a NEW token
 * @buf: output
 * @len: room, QUIC_TOKEN_LEN_MAX is enough
 *
 * Return: the token's length, or a negative errno.
 */
int quic_token_make(const struct quic_udp_sock *us, struct quic_token *t,
		    const union quic_addr *peer, const struct quic_cid *rscid,
		    u8 *buf, size_t len)
{
	int n, err;

	n = quic_token_encode(buf, len, t);
	if (n < 0)
		return n;
	if (len < (size_t)n + QUIC_TOKEN_MAC_LEN)
		return -ENOSPC;
	err = quic_token_mac(us, buf, n, t, peer, rscid, buf + n);
	return err ?: n + QUIC_TOKEN_MAC_LEN;
}

/**
 * quic_token_check - is @tok a token of ours for the client at @peer?
 * @us: the port whose key signed it
 * @tok: the token of an Initial
 * @len: its length
 * @peer: where the Initial came from
 * @rscid: the Initial's DCID, which a Retry token must be bound to
 * @now: quic_now(), or 0 not to check expiry
 * @t: the token decoded; t->type is 0 if it is not one of ours at all
 *
 * Return: 0 if the token is authentic, bound to @peer (and @rscid) and
 * not expired; -EINVAL if it is not ours, -EBADMSG if forged or bound to
 * another client, -ETIMEDOUT if expired.
 */
int quic_token_check(const struct quic_udp_sock *us, const u8 *tok, u32 len,
		     const union quic_addr *peer, const struct quic_cid *rscid,
		     u64 now, struct quic_token *t)
{
	u8 mac[QUIC_TOKEN_MAC_LEN];
	int body;

	body = quic_token_decode(tok, len, t);
	if (body < 0) {
		t->type = 0;
		return -EINVAL;
	}
	if (quic_token_mac(us, tok, body, t, peer,
			   t->type == QUIC_TOKEN_RETRY ? rscid : NULL, mac))
		return -EINVAL;
	if (crypto_memneq(mac, tok + body, sizeof(mac)))
		return -EBADMSG;
	if (now && quic_token_expired(t, now))
		return -ETIMEDOUT;
	return 0;
}

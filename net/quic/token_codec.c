// SPDX-License-Identifier: GPL-2.0
/*
 * The layout of address-validation tokens and of the message their MAC
 * covers (token.h).  No key here: token.c computes the MAC.
 */

#include <linux/errno.h>
#include <linux/string.h>

#include "token.h"
#include "varint.h"

static int quic_token_wr_be64(struct quic_wr *wr, u64 v)
{
	return quic_wr_be32(wr, v >> 32) ?: quic_wr_be32(wr, (u32)v);
}

/**
 * quic_token_encode - write a token's body (everything but its MAC)
 * @buf: output, at least QUIC_TOKEN_BODY_MAX bytes to be safe
 * @len: room
 * @t: the token; @t->type says which fields are used
 *
 * Return: bytes written, or -EINVAL (unknown type, ODCID too long) or
 * -ENOSPC.
 */
int quic_token_encode(u8 *buf, size_t len, const struct quic_token *t)
{
	struct quic_wr wr;
	int ret;

	if ((t->type != QUIC_TOKEN_RETRY && t->type != QUIC_TOKEN_NEW) ||
	    t->odcid.len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	quic_wr_init(&wr, buf, len);
	ret = quic_wr_u8(&wr, t->type);
	ret = ret ?: quic_token_wr_be64(&wr, t->expiry);
	if (t->type == QUIC_TOKEN_RETRY) {
		ret = ret ?: quic_wr_u8(&wr, t->odcid.len);
		ret = ret ?: quic_wr_bytes(&wr, t->odcid.data, t->odcid.len);
	} else {
		ret = ret ?: quic_wr_bytes(&wr, t->nonce, sizeof(t->nonce));
	}
	return ret ?: (int)(wr.p - buf);
}

/**
 * quic_token_decode - parse a token received in an Initial
 * @buf: the token
 * @len: its length
 * @t: result
 *
 * The token must be exactly a body and a MAC; the MAC is not checked here.
 *
 * Return: the length of the body (the MAC follows it), or -EINVAL for
 * anything that is not a token of ours.
 */
int quic_token_decode(const u8 *buf, size_t len, struct quic_token *t)
{
	struct quic_rd rd;
	u32 hi, lo;
	size_t body;

	memset(t, 0, sizeof(*t));
	if (len <= QUIC_TOKEN_MAC_LEN)
		return -EINVAL;
	body = len - QUIC_TOKEN_MAC_LEN;
	quic_rd_init(&rd, buf, body);
	if (quic_rd_u8(&rd, &t->type) || quic_rd_be32(&rd, &hi) ||
	    quic_rd_be32(&rd, &lo))
		return -EINVAL;
	t->expiry = (u64)hi << 32 | lo;
	if (t->type == QUIC_TOKEN_RETRY) {
		if (quic_rd_u8(&rd, &t->odcid.len) ||
		    t->odcid.len > QUIC_CID_MAX_LEN ||
		    quic_rd_copy(&rd, t->odcid.data, t->odcid.len))
			return -EINVAL;
	} else if (t->type == QUIC_TOKEN_NEW) {
		if (quic_rd_copy(&rd, t->nonce, sizeof(t->nonce)))
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	if (quic_rd_left(&rd))
		return -EINVAL;
	return body;
}

/**
 * quic_token_msg - the message a token's MAC covers
 * @buf: output, QUIC_TOKEN_MSG_MAX bytes
 * @len: room
 * @body: the token's body, from quic_token_encode() or the token received
 * @body_len: its length
 * @t: the token (its type says what it is bound to)
 * @b: the client's address, and for Retry the port and the Retry's SCID
 *
 * Return: the message's length, or -EINVAL or -ENOSPC.
 */
int quic_token_msg(u8 *buf, size_t len, const u8 *body, size_t body_len,
		   const struct quic_token *t, const struct quic_token_bind *b)
{
	bool retry = t->type == QUIC_TOKEN_RETRY;
	struct quic_wr wr;
	int ret;

	if ((b->ip_len != 4 && b->ip_len != 16) ||
	    b->rscid.len > QUIC_CID_MAX_LEN || body_len > QUIC_TOKEN_BODY_MAX)
		return -EINVAL;
	quic_wr_init(&wr, buf, len);
	ret = quic_wr_bytes(&wr, body, body_len);
	ret = ret ?: quic_wr_u8(&wr, b->ip_len);
	ret = ret ?: quic_wr_bytes(&wr, b->ip, b->ip_len);
	if (retry) {
		ret = ret ?: quic_wr_bytes(&wr, b->port, sizeof(b->port));
		ret = ret ?: quic_wr_u8(&wr, b->rscid.len);
		ret = ret ?: quic_wr_bytes(&wr, b->rscid.data, b->rscid.len);
	}
	return ret ?: (int)(wr.p - buf);
}

/* Past its expiry at @now, or claiming a lifetime longer than its type's. */
bool quic_token_expired(const struct quic_token *t, u64 now)
{
	u64 life = t->type == QUIC_TOKEN_RETRY ? QUIC_TOKEN_RETRY_LIFE :
						  QUIC_TOKEN_NEW_LIFE;

	return now >= t->expiry || t->expiry - now > life;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The Retry Integrity Tag (RFC 9001 §5.8, RFC 9369 §3.3.3): AES-128-GCM with
 * a fixed, published key and nonce over an empty plaintext, the associated
 * data being the Retry pseudo-packet (ODCID length, ODCID, then the Retry
 * packet without its tag).  With an empty plaintext GCM reduces to GMAC:
 *
 *	tag = E(K, nonce | 1) ^ GHASH(H, A | pad | len(A) | len(C) = 0)
 *
 * A server sends Retry statelessly from softirq and a client checks it in
 * its receive path, so this must not allocate nor sleep, and the pseudo
 * packet must not need a contiguous copy.  We therefore compose GMAC from the
 * AES library and gf128mul_lle(), streaming the ODCID prefix and the packet
 * through GHASH.  The key is public, so the timing of these generic
 * implementations has no secret to leak; the self-tests check them against
 * the RFC vectors.
 */

#include <crypto/aes.h>
#include <crypto/algapi.h>
#include <crypto/b128ops.h>
#include <crypto/gf128mul.h>
#include <linux/string.h>

#include "crypto.h"

#define QUIC_RETRY_BLOCK	16

static const u8 quic_retry_key_v1[16] = {
	0xbe, 0x0c, 0x69, 0x0b, 0x9f, 0x66, 0x57, 0x5a,
	0x1d, 0x76, 0x6b, 0x54, 0xe3, 0x68, 0xc8, 0x4e,
};

static const u8 quic_retry_nonce_v1[QUIC_CRYPTO_IV_LEN] = {
	0x46, 0x15, 0x99, 0xd3, 0x5d, 0x63, 0x2b, 0xf2,
	0x23, 0x98, 0x25, 0xbb,
};

static const u8 quic_retry_key_v2[16] = {
	0x8f, 0xb4, 0xb0, 0x1b, 0x56, 0xac, 0x48, 0xe2,
	0x60, 0xfb, 0xcb, 0xce, 0xad, 0x7c, 0xcc, 0x92,
};

static const u8 quic_retry_nonce_v2[QUIC_CRYPTO_IV_LEN] = {
	0xd8, 0x69, 0x69, 0xbc, 0x2d, 0x7c, 0x6d, 0x99,
	0x90, 0xef, 0xb0, 0x4a,
};

struct quic_ghash {
	be128		h;
	be128		y;
	u8		buf[QUIC_RETRY_BLOCK];
	unsigned int	fill;		/* bytes in buf */
	u64		len;		/* bytes hashed so far */
};

static void quic_ghash_block(struct quic_ghash *g, const u8 *block)
{
	crypto_xor((u8 *)&g->y, block, QUIC_RETRY_BLOCK);
	gf128mul_lle(&g->y, &g->h);
}

static void quic_ghash_update(struct quic_ghash *g, const u8 *p,
			      unsigned int len)
{
	unsigned int n;

	g->len += len;
	while (len) {
		n = min(len, QUIC_RETRY_BLOCK - g->fill);
		memcpy(g->buf + g->fill, p, n);
		g->fill += n;
		p += n;
		len -= n;
		if (g->fill == QUIC_RETRY_BLOCK) {
			quic_ghash_block(g, g->buf);
			g->fill = 0;
		}
	}
}

int quic_crypto_retry_tag(u32 version, const u8 *odcid,
			  unsigned int odcid_len, const u8 *pkt,
			  unsigned int len, u8 *tag)
{
	const u8 *key = quic_retry_key_v1, *nonce = quic_retry_nonce_v1;
	u8 j0[QUIC_RETRY_BLOCK], odcid_len8 = odcid_len;
	struct crypto_aes_ctx aes;
	struct quic_ghash g = {};
	be128 lens;
	int err;

	if (odcid_len > QUIC_CRYPTO_CID_MAX_LEN)
		return -EINVAL;
	if (version == QUIC_VERSION_V2) {
		key = quic_retry_key_v2;
		nonce = quic_retry_nonce_v2;
	}

	err = aes_expandkey(&aes, key, sizeof(quic_retry_key_v1));
	if (err)
		return err;
	memset(j0, 0, sizeof(j0));
	aes_encrypt(&aes, (u8 *)&g.h, j0);		/* H = E(K, 0^128) */

	quic_ghash_update(&g, &odcid_len8, 1);
	quic_ghash_update(&g, odcid, odcid_len);
	quic_ghash_update(&g, pkt, len);
	if (g.fill) {
		memset(g.buf + g.fill, 0, QUIC_RETRY_BLOCK - g.fill);
		quic_ghash_block(&g, g.buf);
	}
	lens.a = cpu_to_be64(g.len * 8);	/* bits of A */
	lens.b = 0;				/* bits of C */
	quic_ghash_block(&g, (u8 *)&lens);

	memcpy(j0, nonce, QUIC_CRYPTO_IV_LEN);
	j0[QUIC_RETRY_BLOCK - 1] = 1;
	aes_encrypt(&aes, tag, j0);
	crypto_xor(tag, (u8 *)&g.y, QUIC_CRYPTO_TAG_LEN);
	return 0;
}

/* @len includes the tag; -EBADMSG when the tag does not match. */
int quic_crypto_retry_verify(u32 version, const u8 *odcid,
			     unsigned int odcid_len, const u8 *pkt,
			     unsigned int len)
{
	u8 tag[QUIC_CRYPTO_TAG_LEN];
	int err;

	if (len < QUIC_CRYPTO_TAG_LEN)
		return -EBADMSG;
	len -= QUIC_CRYPTO_TAG_LEN;
	err = quic_crypto_retry_tag(version, odcid, odcid_len, pkt, len, tag);
	if (err)
		return err;
	if (crypto_memneq(tag, pkt + len, QUIC_CRYPTO_TAG_LEN))
		return -EBADMSG;
	return 0;
}

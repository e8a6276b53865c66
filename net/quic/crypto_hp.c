// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC header protection (RFC 9001 §5.4): a 5-byte mask computed from a
 * 16-byte sample of the ciphertext hides the low bits of the first byte and
 * the packet number.
 *
 * AES suites encrypt one block with the AES library (aes_expandkey() and
 * aes_encrypt()), its key schedule kept in the direction itself: a crypto
 * API transform ("ecb(aes)" over "aes-aesni") took two 1 KB objects per
 * direction, 2 KB of every idle connection's memory per side.  The library
 * is the generic AES, hardened against cache timing (lib/crypto/aes.c),
 * and needs no FPU, so it runs anywhere; one block per packet is little
 * next to the AEAD.  ChaCha20 uses the ChaCha library:
 * its 16-byte IV is a 32-bit little-endian block counter followed by the
 * 96-bit nonce, exactly QUIC's split of the sample (§5.4.4), and the mask is
 * the keystream that encrypts five zero bytes.
 *
 * Nothing here allocates: this runs for every packet, in softirq context too.
 */

#include <crypto/aes.h>
#include <crypto/chacha.h>
#include <linux/err.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include "crypto.h"

#define QUIC_HP_MASK_LEN	5

#define QUIC_HDR_LONG		0x80
#define QUIC_HDR_LONG_MASK	0x0f	/* reserved bits and pn length */
#define QUIC_HDR_SHORT_MASK	0x1f	/* ... and the key phase */
#define QUIC_HDR_KEY_PHASE	0x04
#define QUIC_HDR_PN_LEN		0x03

int quic_crypto_hp_setup(struct quic_crypto_dir *dir,
			 const struct quic_cipher *cipher, const u8 *hp)
{
	unsigned int i;

	if (cipher->hp_chacha) {
		for (i = 0; i < ARRAY_SIZE(dir->hp.chacha); i++)
			dir->hp.chacha[i] = get_unaligned_le32(hp + 4 * i);
		return 0;
	}
	return aes_expandkey(&dir->hp.aes, hp, cipher->hplen);
}

void quic_crypto_hp_free(struct quic_crypto_dir *dir)
{
	memzero_explicit(&dir->hp, sizeof(dir->hp));
}

/* mask: QUIC_CRYPTO_SAMPLE_LEN bytes, of which the first five are used. */
void quic_crypto_hp_mask(const struct quic_crypto_dir *dir, const u8 *sample,
			 u8 *mask)
{
	u8 in[QUIC_CRYPTO_SAMPLE_LEN], out[QUIC_CRYPTO_SAMPLE_LEN];
	u32 state[CHACHA_STATE_WORDS];

	if (dir->cipher->hp_chacha) {
		memset(in, 0, QUIC_HP_MASK_LEN);
		chacha_init(state, dir->hp.chacha, sample);
		chacha_crypt(state, out, in, QUIC_HP_MASK_LEN, 20);
		memzero_explicit(state, sizeof(state));
	} else {
		aes_encrypt(&dir->hp.aes, out, sample);
	}
	memcpy(mask, out, QUIC_HP_MASK_LEN);
	memzero_explicit(out, sizeof(out));
}

static struct quic_crypto_dir *quic_crypto_hp_dir(struct quic_crypto_ctx *ctx,
						  u8 level, bool send)
{
	struct quic_crypto *c;

	if (level >= QUIC_CRYPTO_MAX)
		return NULL;
	c = ctx->level[level];
	if (!c)
		return NULL;
	if (send)
		return c->tx.cipher ? &c->tx : NULL;
	return c->rx.cipher ? &c->rx : NULL;
}

/*
 * The sample starts 4 bytes after the packet number offset, whatever the
 * packet number length (§5.4.2); a packet too short for it is invalid.
 */
static const u8 *quic_crypto_sample(const struct quic_crypto_pkt *pkt,
				    u8 *buf)
{
	unsigned int off = pkt->pn_off + QUIC_CRYPTO_PN_MAX_LEN;

	if (pkt->len < off + QUIC_CRYPTO_SAMPLE_LEN ||
	    pkt->off + pkt->len > pkt->skb->len)
		return NULL;
	return skb_header_pointer(pkt->skb, pkt->off + off,
				  QUIC_CRYPTO_SAMPLE_LEN, buf);
}

/* Tx, after AEAD: mask the first byte and the pn_len packet number bytes. */
int quic_crypto_protect_header(struct quic_crypto_ctx *ctx,
			       const struct quic_crypto_pkt *pkt)
{
	u8 buf[QUIC_CRYPTO_SAMPLE_LEN], mask[QUIC_CRYPTO_SAMPLE_LEN];
	struct quic_crypto_dir *dir;
	const u8 *sample;
	unsigned int i;
	u8 *p;

	dir = quic_crypto_hp_dir(ctx, pkt->level, true);
	if (!dir)
		return -ENOKEY;
	if (!pkt->pn_len || pkt->pn_len > QUIC_CRYPTO_PN_MAX_LEN ||
	    pkt->off + pkt->pn_off + pkt->pn_len > skb_headlen(pkt->skb))
		return -EINVAL;
	sample = quic_crypto_sample(pkt, buf);
	if (!sample)
		return -EINVAL;
	quic_crypto_hp_mask(dir, sample, mask);

	p = pkt->skb->data + pkt->off;
	p[0] ^= mask[0] & ((p[0] & QUIC_HDR_LONG) ? QUIC_HDR_LONG_MASK :
						    QUIC_HDR_SHORT_MASK);
	for (i = 0; i < pkt->pn_len; i++)
		p[pkt->pn_off + i] ^= mask[1 + i];
	memzero_explicit(mask, sizeof(mask));
	return 0;
}

/*
 * Rx, before AEAD: unmask the first byte, learn the packet number length
 * from it, then unmask that many packet number bytes.  Sets pkt->pn_len and
 * returns the truncated packet number and (short header) the key phase bit;
 * the caller decodes the full packet number (RFC 9000 §A.3) into pkt->pn.
 * On error the packet is left as it was received.
 */
int quic_crypto_unprotect_header(struct quic_crypto_ctx *ctx,
				 struct quic_crypto_pkt *pkt, u32 *trunc_pn,
				 u8 *key_phase)
{
	u8 buf[QUIC_CRYPTO_SAMPLE_LEN], mask[QUIC_CRYPTO_SAMPLE_LEN];
	struct quic_crypto_dir *dir;
	u8 *p, first, pn_len;
	const u8 *sample;
	unsigned int i;
	u32 pn = 0;

	dir = quic_crypto_hp_dir(ctx, pkt->level, false);
	if (!dir)
		return -ENOKEY;
	if (pkt->off + pkt->pn_off >= skb_headlen(pkt->skb))
		return -EINVAL;
	sample = quic_crypto_sample(pkt, buf);
	if (!sample)
		return -EINVAL;
	quic_crypto_hp_mask(dir, sample, mask);

	p = pkt->skb->data + pkt->off;
	first = p[0] ^ (mask[0] & ((p[0] & QUIC_HDR_LONG) ?
				   QUIC_HDR_LONG_MASK : QUIC_HDR_SHORT_MASK));
	pn_len = (first & QUIC_HDR_PN_LEN) + 1;
	/* Only now is it known how much of the header must be linear. */
	if (pkt->off + pkt->pn_off + pn_len > skb_headlen(pkt->skb)) {
		memzero_explicit(mask, sizeof(mask));
		return -EINVAL;
	}
	p[0] = first;
	pkt->pn_len = pn_len;
	for (i = 0; i < pkt->pn_len; i++) {
		p[pkt->pn_off + i] ^= mask[1 + i];
		pn = (pn << 8) | p[pkt->pn_off + i];
	}
	memzero_explicit(mask, sizeof(mask));

	*trunc_pn = pn;
	*key_phase = (p[0] & QUIC_HDR_LONG) ? 0 : !!(p[0] & QUIC_HDR_KEY_PHASE);
	return 0;
}

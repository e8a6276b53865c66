// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC header protection (RFC 9001 §5.4): a 5-byte mask computed from a
 * 16-byte sample of the ciphertext hides the low bits of the first byte and
 * the packet number.
 *
 * AES suites use one AES-ECB block through an "ecb(aes)" lskcipher, which
 * works on linear buffers, so the sample and the mask can live on the stack
 * without a scatterlist or a request.  ChaCha20 uses the ChaCha library:
 * its 16-byte IV is a 32-bit little-endian block counter followed by the
 * 96-bit nonce, exactly QUIC's split of the sample (§5.4.4), and the mask is
 * the keystream that encrypts five zero bytes.
 *
 * Nothing here allocates: this runs for every packet, in softirq context too.
 */

#include <crypto/chacha.h>
#include <crypto/skcipher.h>
#include <linux/bottom_half.h>
#include <linux/err.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include "crypto.h"

#define QUIC_HP_MASK_LEN	5
/* Our stack buffers are aligned to this, see quic_crypto_hp_setup(). */
#define QUIC_HP_ALIGN		16

#define QUIC_HDR_LONG		0x80
#define QUIC_HDR_LONG_MASK	0x0f	/* reserved bits and pn length */
#define QUIC_HDR_SHORT_MASK	0x1f	/* ... and the key phase */
#define QUIC_HDR_KEY_PHASE	0x04
#define QUIC_HDR_PN_LEN		0x03

int quic_crypto_hp_setup(struct quic_crypto_dir *dir,
			 const struct quic_cipher *cipher, const u8 *hp)
{
	struct crypto_lskcipher *tfm;
	unsigned int i;
	int err;

	if (cipher->hp_chacha) {
		for (i = 0; i < ARRAY_SIZE(dir->hp_chacha); i++)
			dir->hp_chacha[i] = get_unaligned_le32(hp + 4 * i);
		return 0;
	}

	tfm = crypto_alloc_lskcipher(cipher->hp_name, 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	/*
	 * A misaligned buffer makes the lskcipher bounce through kmalloc();
	 * refuse an implementation needing more than our stack alignment.
	 */
	err = -EINVAL;
	if (crypto_lskcipher_alignmask(tfm) >= QUIC_HP_ALIGN)
		goto err;
	err = crypto_lskcipher_setkey(tfm, hp, cipher->hplen);
	if (err)
		goto err;
	dir->hp_aes = tfm;
	return 0;
err:
	crypto_free_lskcipher(tfm);
	return err;
}

void quic_crypto_hp_free(struct quic_crypto_dir *dir)
{
	if (dir->hp_aes)
		crypto_free_lskcipher(dir->hp_aes);	/* zeroizes the key */
	dir->hp_aes = NULL;
	memzero_explicit(dir->hp_chacha, sizeof(dir->hp_chacha));
}

/* mask: QUIC_CRYPTO_SAMPLE_LEN bytes, of which the first five are used. */
int quic_crypto_hp_mask(const struct quic_crypto_dir *dir, const u8 *sample,
			u8 *mask)
{
	u8 in[QUIC_CRYPTO_SAMPLE_LEN] __aligned(QUIC_HP_ALIGN);
	u8 out[QUIC_CRYPTO_SAMPLE_LEN] __aligned(QUIC_HP_ALIGN);
	u32 state[CHACHA_STATE_WORDS];
	int err = 0;

	if (dir->cipher->hp_chacha) {
		memset(in, 0, QUIC_HP_MASK_LEN);
		chacha_init(state, dir->hp_chacha, sample);
		chacha_crypt(state, out, in, QUIC_HP_MASK_LEN, 20);
		memzero_explicit(state, sizeof(state));
	} else {
		memcpy(in, sample, sizeof(in));
		/*
		 * aes-aesni's FPU section leaves bottom halves on (6.12): in
		 * process context a softirq of ours could land inside it and
		 * find the FPU taken (crypto.c, quic_crypto_submit()).
		 */
		local_bh_disable();
		err = crypto_lskcipher_encrypt(dir->hp_aes, in, out,
					       sizeof(in), NULL);
		local_bh_enable();
	}
	memcpy(mask, out, QUIC_HP_MASK_LEN);
	memzero_explicit(out, sizeof(out));
	return err;
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
	int err;

	dir = quic_crypto_hp_dir(ctx, pkt->level, true);
	if (!dir)
		return -ENOKEY;
	if (!pkt->pn_len || pkt->pn_len > QUIC_CRYPTO_PN_MAX_LEN ||
	    pkt->off + pkt->pn_off + pkt->pn_len > skb_headlen(pkt->skb))
		return -EINVAL;
	sample = quic_crypto_sample(pkt, buf);
	if (!sample)
		return -EINVAL;
	err = quic_crypto_hp_mask(dir, sample, mask);
	if (err)
		return err;

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
	int err;

	dir = quic_crypto_hp_dir(ctx, pkt->level, false);
	if (!dir)
		return -ENOKEY;
	if (pkt->off + pkt->pn_off >= skb_headlen(pkt->skb))
		return -EINVAL;
	sample = quic_crypto_sample(pkt, buf);
	if (!sample)
		return -EINVAL;
	err = quic_crypto_hp_mask(dir, sample, mask);
	if (err)
		return err;

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

// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC key derivation: HKDF-Extract and HKDF-Expand (RFC 5869) over the
 * crypto API's "hmac(sha256)" and "hmac(sha384)", the TLS 1.3
 * HKDF-Expand-Label construction (RFC 8446 §7.1) with the QUIC labels of
 * RFC 9001 §5.1 and RFC 9369 §3.3.2, and the Initial secrets of RFC 9001
 * §5.2 and RFC 9369 §3.3.1.
 *
 * These run when keys are installed or prepared for a key update, in
 * process context: they may allocate and sleep.
 */

#include <crypto/hash.h>
#include <linux/bottom_half.h>
#include <linux/err.h>
#include <linux/string.h>

#include "crypto.h"

#define QUIC_HKDF_HASH_MAX	QUIC_CRYPTO_SECRET_MAX
#define QUIC_HKDF_LABEL_MAX	32
/* u16 length, u8 label length, "tls13 " + label, u8 context length (0) */
#define QUIC_HKDF_INFO_MAX	(2 + 1 + 6 + QUIC_HKDF_LABEL_MAX + 1)

static const u8 quic_salt_v1[QUIC_CRYPTO_SALT_LEN] = {
	0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
	0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a,
};

static const u8 quic_salt_v2[QUIC_CRYPTO_SALT_LEN] = {
	0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93,
	0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9,
};

static const char * const quic_labels_v1[QUIC_CRYPTO_LABEL_MAX] = {
	[QUIC_CRYPTO_LABEL_KEY]	= "quic key",
	[QUIC_CRYPTO_LABEL_IV]	= "quic iv",
	[QUIC_CRYPTO_LABEL_HP]	= "quic hp",
	[QUIC_CRYPTO_LABEL_KU]	= "quic ku",
};

static const char * const quic_labels_v2[QUIC_CRYPTO_LABEL_MAX] = {
	[QUIC_CRYPTO_LABEL_KEY]	= "quicv2 key",
	[QUIC_CRYPTO_LABEL_IV]	= "quicv2 iv",
	[QUIC_CRYPTO_LABEL_HP]	= "quicv2 hp",
	[QUIC_CRYPTO_LABEL_KU]	= "quicv2 ku",
};

/* Every version other than 2 uses the version 1 labels. */
const char *quic_crypto_label(u32 version, enum quic_crypto_label label)
{
	if (version == QUIC_VERSION_V2)
		return quic_labels_v2[label];
	return quic_labels_v1[label];
}

/* The Initial salt of RFC 9001 §5.2 or RFC 9369 §3.3.1. */
const u8 *quic_crypto_initial_salt(u32 version)
{
	return version == QUIC_VERSION_V2 ? quic_salt_v2 : quic_salt_v1;
}

struct crypto_shash *quic_hkdf_alloc(u8 hash)
{
	return crypto_alloc_shash(hash == QUIC_CRYPTO_SHA384 ?
				  "hmac(sha384)" : "hmac(sha256)", 0, 0);
}

/*
 * The hash may be a SIMD one (sha256-avx2, sha256-ni) whose FPU section,
 * in 6.12, leaves bottom halves on: a softirq of ours landing inside it
 * could not use the AES-NI GCM and would drop its packet (crypto.c,
 * quic_crypto_submit()).  Key derivation runs in process context, so it
 * keeps bottom halves off around the hashing: nothing here sleeps.
 */

/* PRK = HMAC-Hash(salt, IKM); prk holds the digest size of @tfm. */
int quic_hkdf_extract(struct crypto_shash *tfm, const u8 *salt,
		      unsigned int saltlen, const u8 *ikm, unsigned int ikmlen,
		      u8 *prk)
{
	int err;

	local_bh_disable();
	err = crypto_shash_setkey(tfm, salt, saltlen);
	if (!err)
		err = crypto_shash_tfm_digest(tfm, ikm, ikmlen, prk);
	local_bh_enable();
	return err;
}

/* OKM = T(1) | T(2) | ..., T(i) = HMAC-Hash(PRK, T(i-1) | info | i). */
static int quic_hkdf_expand(struct crypto_shash *tfm, const u8 *prk,
			    unsigned int prklen, const u8 *info,
			    unsigned int infolen, u8 *out, unsigned int outlen)
{
	unsigned int hlen = crypto_shash_digestsize(tfm);
	SHASH_DESC_ON_STACK(desc, tfm);
	u8 t[QUIC_HKDF_HASH_MAX];
	unsigned int done, n;
	u8 i;
	int err;

	if (hlen > sizeof(t) || outlen > 255 * hlen)
		return -EINVAL;

	local_bh_disable();	/* see quic_hkdf_extract() */
	err = crypto_shash_setkey(tfm, prk, prklen);
	if (err)
		goto out;

	desc->tfm = tfm;
	for (i = 1, done = 0; done < outlen; i++) {
		err = crypto_shash_init(desc);
		if (!err && i > 1)
			err = crypto_shash_update(desc, t, hlen);
		if (!err)
			err = crypto_shash_update(desc, info, infolen);
		if (!err)
			err = crypto_shash_finup(desc, &i, 1, t);
		if (err)
			goto out;
		n = min(hlen, outlen - done);
		memcpy(out + done, t, n);
		done += n;
	}
out:
	local_bh_enable();
	shash_desc_zero(desc);
	memzero_explicit(t, sizeof(t));
	return err;
}

/*
 * HKDF-Expand-Label(Secret, Label, "", Length): the info is the TLS 1.3
 * HkdfLabel struct with an empty context, which is all QUIC uses.
 */
int quic_hkdf_expand_label(struct crypto_shash *tfm, const u8 *secret,
			   unsigned int secretlen, const char *label,
			   u8 *out, unsigned int outlen)
{
	static const char prefix[] = "tls13 ";
	u8 info[QUIC_HKDF_INFO_MAX];
	size_t llen = strlen(label);
	unsigned int n = 0;

	if (llen > QUIC_HKDF_LABEL_MAX || outlen > U16_MAX)
		return -EINVAL;

	info[n++] = outlen >> 8;
	info[n++] = outlen & 0xff;
	info[n++] = sizeof(prefix) - 1 + llen;
	memcpy(&info[n], prefix, sizeof(prefix) - 1);
	n += sizeof(prefix) - 1;
	memcpy(&info[n], label, llen);
	n += llen;
	info[n++] = 0;

	return quic_hkdf_expand(tfm, secret, secretlen, info, n, out, outlen);
}

/*
 * client/server receive the 32-byte client and server Initial secrets
 * derived from the client's first Destination Connection ID.
 */
int quic_crypto_initial_secrets(u32 version, const u8 *dcid,
				unsigned int dcid_len, u8 *client, u8 *server)
{
	u8 prk[QUIC_HKDF_HASH_MAX];
	struct crypto_shash *tfm;
	int err;

	if (dcid_len > QUIC_CRYPTO_CID_MAX_LEN)
		return -EINVAL;
	tfm = quic_hkdf_alloc(QUIC_CRYPTO_SHA256);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);

	err = quic_hkdf_extract(tfm, quic_crypto_initial_salt(version),
				QUIC_CRYPTO_SALT_LEN, dcid, dcid_len, prk);
	if (err)
		goto out;
	err = quic_hkdf_expand_label(tfm, prk, 32, "client in", client, 32);
	if (err)
		goto out;
	err = quic_hkdf_expand_label(tfm, prk, 32, "server in", server, 32);
out:
	memzero_explicit(prk, sizeof(prk));
	crypto_free_shash(tfm);
	return err;
}

/*
 * The packet protection key, IV and (when @hp is not NULL) header
 * protection key of @secret, RFC 9001 §5.1.
 */
int quic_crypto_derive(struct crypto_shash *tfm, u32 version,
		       const struct quic_cipher *cipher, const u8 *secret,
		       u8 *key, u8 *iv, u8 *hp)
{
	unsigned int slen = cipher->secretlen;
	int err;

	err = quic_hkdf_expand_label(tfm, secret, slen,
				     quic_crypto_label(version,
						       QUIC_CRYPTO_LABEL_KEY),
				     key, cipher->keylen);
	if (err)
		return err;
	err = quic_hkdf_expand_label(tfm, secret, slen,
				     quic_crypto_label(version,
						       QUIC_CRYPTO_LABEL_IV),
				     iv, QUIC_CRYPTO_IV_LEN);
	if (err || !hp)
		return err;
	return quic_hkdf_expand_label(tfm, secret, slen,
				      quic_crypto_label(version,
							QUIC_CRYPTO_LABEL_HP),
				      hp, cipher->hplen);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC key derivation: HKDF-Extract and HKDF-Expand (RFC 5869) over the
 * crypto API's "hmac(sha256)" and "hmac(sha384)", the TLS 1.3
 * HKDF-Expand-Label construction (RFC 8446 §7.1) with the QUIC labels of
 * RFC 9001 §5.1 and RFC 9369 §3.3.2, and the Initial secrets of RFC 9001
 * §5.2 and RFC 9369 §3.3.1.
 *
 * These run when keys are installed or prepared for a key update, in
 * process context, on transforms allocated at module load.
 */

#include <crypto/hash.h>
#include <linux/bottom_half.h>
#include <linux/err.h>
#include <linux/percpu.h>
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

/*
 * One HMAC transform per CPU and hash, allocated at module load: a key
 * install used to allocate its own "hmac(sha256)" (an algorithm lookup
 * and two transforms, the HMAC and its hash) and free it after a handful
 * of digests, about a third of the cost of installing a secret.  HMAC keys
 * are set for each use, so a transform carries nothing from one use to
 * the next and can be shared: each use runs on this CPU's with bottom
 * halves off from setkey to the last digest, so nothing else on the CPU
 * (our softirqs included; on PREEMPT_RT the BH lock serializes) can take
 * it in between, and it is rekeyed with an empty key before bottom halves
 * come back on, so no derived key is left behind in it.
 *
 * Bottom halves off is also what the hash needs: it may be a SIMD one
 * (sha256-avx2, sha256-ni) whose FPU section, in 6.12, leaves them on, and
 * a softirq of ours landing inside it could not use the AES-NI GCM and
 * would drop its packet (crypto.c, quic_crypto_submit()).  Nothing here
 * sleeps.
 */
static struct crypto_shash * __percpu *quic_hkdf_tfms[2];

static const char * const quic_hkdf_names[2] = {
	[QUIC_CRYPTO_SHA256]	= "hmac(sha256)",
	[QUIC_CRYPTO_SHA384]	= "hmac(sha384)",
};

void quic_hkdf_exit(void)
{
	struct crypto_shash *tfm;
	unsigned int h;
	int cpu;

	for (h = 0; h < ARRAY_SIZE(quic_hkdf_tfms); h++) {
		if (!quic_hkdf_tfms[h])
			continue;
		for_each_possible_cpu(cpu) {
			tfm = *per_cpu_ptr(quic_hkdf_tfms[h], cpu);
			if (!IS_ERR_OR_NULL(tfm))
				crypto_free_shash(tfm);
		}
		free_percpu(quic_hkdf_tfms[h]);
		quic_hkdf_tfms[h] = NULL;
	}
}

/*
 * A hash the kernel lacks is not an error here: only the suites using it
 * fail, when their keys are installed (-ENOENT, as before).
 */
int quic_hkdf_init(void)
{
	struct crypto_shash *tfm;
	unsigned int h;
	int cpu;

	for (h = 0; h < ARRAY_SIZE(quic_hkdf_tfms); h++) {
		quic_hkdf_tfms[h] = alloc_percpu(struct crypto_shash *);
		if (!quic_hkdf_tfms[h])
			goto nomem;
		for_each_possible_cpu(cpu) {
			tfm = crypto_alloc_shash(quic_hkdf_names[h], 0, 0);
			*per_cpu_ptr(quic_hkdf_tfms[h], cpu) = tfm;
			if (IS_ERR(tfm) && PTR_ERR(tfm) != -ENOENT)
				goto nomem;
		}
	}
	return 0;
nomem:
	quic_hkdf_exit();
	return -ENOMEM;
}

/*
 * This CPU's transform of @hash, with bottom halves off until
 * quic_hkdf_put(); or an ERR_PTR, bottom halves as they were.
 */
static struct crypto_shash *quic_hkdf_get(u8 hash)
{
	struct crypto_shash *tfm = ERR_PTR(-ENOENT);

	local_bh_disable();
	if (hash < ARRAY_SIZE(quic_hkdf_tfms) && quic_hkdf_tfms[hash])
		tfm = *this_cpu_ptr(quic_hkdf_tfms[hash]) ?: tfm;
	if (IS_ERR(tfm))
		local_bh_enable();
	return tfm;
}

/* Leave no key in the shared transform (see quic_hkdf_tfms). */
static void quic_hkdf_put(struct crypto_shash *tfm)
{
	static const u8 none[1];

	crypto_shash_setkey(tfm, none, 0);
	local_bh_enable();
}

/* PRK = HMAC-Hash(salt, IKM); prk holds the digest size of @tfm. */
static int quic_hkdf_extract_tfm(struct crypto_shash *tfm, const u8 *salt,
				 unsigned int saltlen, const u8 *ikm,
				 unsigned int ikmlen, u8 *prk)
{
	int err;

	err = crypto_shash_setkey(tfm, salt, saltlen);
	if (!err)
		err = crypto_shash_tfm_digest(tfm, ikm, ikmlen, prk);
	return err;
}

int quic_hkdf_extract(u8 hash, const u8 *salt, unsigned int saltlen,
		      const u8 *ikm, unsigned int ikmlen, u8 *prk)
{
	struct crypto_shash *tfm = quic_hkdf_get(hash);
	int err;

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	err = quic_hkdf_extract_tfm(tfm, salt, saltlen, ikm, ikmlen, prk);
	quic_hkdf_put(tfm);
	return err;
}

/*
 * OKM = T(1) | T(2) | ..., T(i) = HMAC-Hash(PRK, T(i-1) | info | i), with
 * @tfm keyed with PRK.
 */
static int quic_hkdf_expand(struct crypto_shash *tfm, const u8 *info,
			    unsigned int infolen, u8 *out, unsigned int outlen)
{
	unsigned int hlen = crypto_shash_digestsize(tfm);
	SHASH_DESC_ON_STACK(desc, tfm);
	u8 t[QUIC_HKDF_HASH_MAX];
	unsigned int done, n;
	u8 i;
	int err = 0;

	if (hlen > sizeof(t) || outlen > 255 * hlen)
		return -EINVAL;

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
			break;
		n = min(hlen, outlen - done);
		memcpy(out + done, t, n);
		done += n;
	}
	shash_desc_zero(desc);
	memzero_explicit(t, sizeof(t));
	return err;
}

/*
 * HKDF-Expand-Label(Secret, Label, "", Length) with @tfm keyed with the
 * secret: the info is the TLS 1.3 HkdfLabel struct with an empty context,
 * which is all QUIC uses.
 */
static int quic_hkdf_label_tfm(struct crypto_shash *tfm, const char *label,
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

	return quic_hkdf_expand(tfm, info, n, out, outlen);
}

int quic_hkdf_expand_label(u8 hash, const u8 *secret, unsigned int secretlen,
			   const char *label, u8 *out, unsigned int outlen)
{
	struct crypto_shash *tfm = quic_hkdf_get(hash);
	int err;

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	err = crypto_shash_setkey(tfm, secret, secretlen) ?:
	      quic_hkdf_label_tfm(tfm, label, out, outlen);
	quic_hkdf_put(tfm);
	return err;
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
	tfm = quic_hkdf_get(QUIC_CRYPTO_SHA256);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	err = quic_hkdf_extract_tfm(tfm, quic_crypto_initial_salt(version),
				    QUIC_CRYPTO_SALT_LEN, dcid, dcid_len, prk);
	err = err ?: crypto_shash_setkey(tfm, prk, 32);
	err = err ?: quic_hkdf_label_tfm(tfm, "client in", client, 32);
	err = err ?: quic_hkdf_label_tfm(tfm, "server in", server, 32);
	quic_hkdf_put(tfm);
	memzero_explicit(prk, sizeof(prk));
	return err;
}

/*
 * The packet protection key, IV and (when @hp is not NULL) header
 * protection key of @secret, RFC 9001 §5.1, with the hash of @cipher.
 */
int quic_crypto_derive(u32 version, const struct quic_cipher *cipher,
		       const u8 *secret, u8 *key, u8 *iv, u8 *hp)
{
	struct crypto_shash *tfm = quic_hkdf_get(cipher->hash);
	int err;

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	err = crypto_shash_setkey(tfm, secret, cipher->secretlen);
	err = err ?: quic_hkdf_label_tfm(tfm,
					 quic_crypto_label(version,
							   QUIC_CRYPTO_LABEL_KEY),
					 key, cipher->keylen);
	err = err ?: quic_hkdf_label_tfm(tfm,
					 quic_crypto_label(version,
							   QUIC_CRYPTO_LABEL_IV),
					 iv, QUIC_CRYPTO_IV_LEN);
	if (!err && hp)
		err = quic_hkdf_label_tfm(tfm,
					  quic_crypto_label(version,
							    QUIC_CRYPTO_LABEL_HP),
					  hp, cipher->hplen);
	quic_hkdf_put(tfm);
	return err;
}

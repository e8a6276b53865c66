// SPDX-License-Identifier: GPL-2.0
/*
 * Self-tests of packet protection, run at module load with quic.selftest=1:
 * every vector of RFC 9001 Appendix A and RFC 9369 Appendix A byte for byte,
 * key update, round trips of every cipher with forgeries rejected, the AEAD
 * limits, the async completion path, the default AES-GCM against the generic
 * one, and a check that the per-packet path does not allocate memory.
 */

#include <crypto/aead.h>
#include <crypto/hash.h>
#include <crypto/skcipher.h>
#include <linux/completion.h>
#include <linux/kprobes.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tls.h>

#include "crypto.h"
#include "selftest.h"
#include "crypto_selftest_vectors.h"

static const u8 quic_st_dcid[] = {
	0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08,
};

/* RFC 9001 §5.8 and RFC 9369 §3.3.3 */
static const u8 quic_v1_retry_secret[] = {
	0xd9, 0xc9, 0x94, 0x3e, 0x61, 0x01, 0xfd, 0x20, 0x00, 0x21, 0x50, 0x6b,
	0xcc, 0x02, 0x81, 0x4c, 0x73, 0x03, 0x0f, 0x25, 0xc7, 0x9d, 0x71, 0xce,
	0x87, 0x6e, 0xca, 0x87, 0x6e, 0x6f, 0xca, 0x8e,
};

static const u8 quic_v1_retry_key[] = {
	0xbe, 0x0c, 0x69, 0x0b, 0x9f, 0x66, 0x57, 0x5a, 0x1d, 0x76, 0x6b, 0x54,
	0xe3, 0x68, 0xc8, 0x4e,
};

static const u8 quic_v1_retry_nonce[] = {
	0x46, 0x15, 0x99, 0xd3, 0x5d, 0x63, 0x2b, 0xf2, 0x23, 0x98, 0x25, 0xbb,
};

static const u8 quic_v2_retry_secret[] = {
	0xc4, 0xdd, 0x24, 0x84, 0xd6, 0x81, 0xae, 0xfa, 0x4f, 0xf4, 0xd6, 0x9c,
	0x2c, 0x20, 0x29, 0x99, 0x84, 0xa7, 0x65, 0xa5, 0xd3, 0xc3, 0x19, 0x82,
	0xf3, 0x8f, 0xc7, 0x41, 0x62, 0x15, 0x5e, 0x9f,
};

static const u8 quic_v2_retry_key[] = {
	0x8f, 0xb4, 0xb0, 0x1b, 0x56, 0xac, 0x48, 0xe2, 0x60, 0xfb, 0xcb, 0xce,
	0xad, 0x7c, 0xcc, 0x92,
};

static const u8 quic_v2_retry_nonce[] = {
	0xd8, 0x69, 0x69, 0xbc, 0x2d, 0x7c, 0x6d, 0x99, 0x90, 0xef, 0xb0, 0x4a,
};

#define QUIC_ST_CLIENT_PAYLOAD	1162	/* CRYPTO frame plus PADDING */
#define QUIC_ST_CHACHA_PN	654360564ULL
#define QUIC_ST_ASYNC_AEAD	"cryptd(gcm_base(ctr(aes-generic),ghash-generic))"

/* One QUIC version's vectors. */
struct quic_st_vectors {
	const char	*name;
	u32		version;
	const u8	*initial_secret;
	const u8	*client_secret, *client_key, *client_iv, *client_hp;
	const u8	*server_secret, *server_key, *server_iv, *server_hp;
	const u8	*client_crypto, *client_hdr, *client_packet;
	const u8	*server_payload, *server_hdr, *server_packet;
	const u8	*retry, *retry_secret, *retry_key, *retry_nonce;
	const u8	*chacha_secret, *chacha_key, *chacha_iv, *chacha_hp;
	const u8	*chacha_ku, *chacha_hdr, *chacha_packet;
};

#define QUIC_ST_VECTORS(v, ver) {					\
	.name = #v, .version = ver,					\
	.initial_secret = quic_##v##_initial_secret,			\
	.client_secret = quic_##v##_client_secret,			\
	.client_key = quic_##v##_client_key,				\
	.client_iv = quic_##v##_client_iv,				\
	.client_hp = quic_##v##_client_hp,				\
	.server_secret = quic_##v##_server_secret,			\
	.server_key = quic_##v##_server_key,				\
	.server_iv = quic_##v##_server_iv,				\
	.server_hp = quic_##v##_server_hp,				\
	.client_crypto = quic_##v##_client_crypto,			\
	.client_hdr = quic_##v##_client_hdr,				\
	.client_packet = quic_##v##_client_packet,			\
	.server_payload = quic_##v##_server_payload,			\
	.server_hdr = quic_##v##_server_hdr,				\
	.server_packet = quic_##v##_server_packet,			\
	.retry = quic_##v##_retry,					\
	.retry_secret = quic_##v##_retry_secret,			\
	.retry_key = quic_##v##_retry_key,				\
	.retry_nonce = quic_##v##_retry_nonce,				\
	.chacha_secret = quic_##v##_chacha_secret,			\
	.chacha_key = quic_##v##_chacha_key,				\
	.chacha_iv = quic_##v##_chacha_iv,				\
	.chacha_hp = quic_##v##_chacha_hp,				\
	.chacha_ku = quic_##v##_chacha_ku,				\
	.chacha_hdr = quic_##v##_chacha_hdr,				\
	.chacha_packet = quic_##v##_chacha_packet,			\
}

static const struct quic_st_vectors quic_st_versions[] = {
	QUIC_ST_VECTORS(v1, QUIC_VERSION_V1),
	QUIC_ST_VECTORS(v2, QUIC_VERSION_V2),
};

struct quic_st_wait {
	struct completion	done;
	unsigned int		calls;
};

static void quic_st_done(struct quic_crypto_batch *batch)
{
	struct quic_st_wait *w = batch->data;

	w->calls++;
	complete(&w->done);
}

/*
 * Run a batch; if it went async, wait for its callback.  Returns the batch
 * status (per-packet results are in pkts[i].err).
 */
static int quic_st_batch(struct quic_crypto_ctx *ctx,
			 struct quic_crypto_pkt *pkts, unsigned int n,
			 bool enc, bool *async)
{
	struct quic_crypto_batch batch = {
		.pkts = pkts,
		.n = n,
		.done = quic_st_done,
	};
	struct quic_st_wait w = {};
	int err;

	init_completion(&w.done);
	batch.data = &w;
	/*
	 * Where the caller asks whether the batch went async, bottom halves
	 * (and so preemption) are off while it is submitted: cryptd finishes
	 * a request in a work item of this CPU, which then cannot run before
	 * the last packet is in.  Otherwise that work item may finish them
	 * all first, and the batch end without -EINPROGRESS: on a debug
	 * kernel, preempted between two packets, it did.
	 */
	if (async)
		local_bh_disable();
	err = enc ? quic_crypto_encrypt_batch(ctx, &batch) :
		    quic_crypto_decrypt_batch(ctx, &batch);
	if (async) {
		local_bh_enable();
		*async = err == -EINPROGRESS;
	}
	if (err == -EINPROGRESS) {
		/* The batch lives on this stack: it must finish first. */
		wait_for_completion(&w.done);
		err = w.calls == 1 ? 0 : -EIO;
	} else if (w.calls) {
		err = -EIO;	/* done must not run for a synchronous batch */
	}
	return err;
}

/* A zeroed linear skb of @len bytes with some head and tail room. */
static struct sk_buff *quic_st_skb(unsigned int len)
{
	struct sk_buff *skb = alloc_skb(len + 64, GFP_KERNEL);

	if (!skb)
		return NULL;
	skb_reserve(skb, 32);
	skb_put_zero(skb, len);
	return skb;
}

static int quic_st_protect(struct quic_crypto_ctx *ctx, struct sk_buff *skb,
			   u8 level, u16 pn_off, u8 pn_len, u64 pn)
{
	struct quic_crypto_pkt pkt = {
		.skb = skb, .len = skb->len, .pn_off = pn_off,
		.pn_len = pn_len, .level = level, .pn = pn,
	};
	int err;

	err = quic_st_batch(ctx, &pkt, 1, true, NULL);
	return err ?: pkt.err;
}

/*
 * Remove header protection, rebuild the packet number from @pn (what the
 * packet layer's decoder would find), choose the keys and decrypt.
 * -ERANGE: the unmasked packet number or its length is not the expected one.
 */
static int quic_st_unprotect(struct quic_crypto_ctx *ctx, struct sk_buff *skb,
			     u8 level, u16 pn_off, u8 pn_len, u64 pn)
{
	struct quic_crypto_pkt pkt = {
		.skb = skb, .len = skb->len, .pn_off = pn_off, .level = level,
	};
	bool bad_pn;
	u64 mask;
	u32 trunc;
	u8 phase;
	int err;

	err = quic_crypto_unprotect_header(ctx, &pkt, &trunc, &phase);
	if (err)
		return err;
	mask = (1ULL << (8 * pkt.pn_len)) - 1;
	bad_pn = pkt.pn_len != pn_len || trunc != (pn & mask);
	pkt.pn = (pn & ~mask) | trunc;
	pkt.key = quic_crypto_rx_key(ctx, phase, pkt.pn);
	err = quic_st_batch(ctx, &pkt, 1, false, NULL);
	err = err ?: pkt.err;
	return err ?: (bad_pn ? -ERANGE : 0);
}

static bool quic_st_eq(const struct sk_buff *skb, const u8 *a, unsigned int len)
{
	return skb->len == len && !memcmp(skb->data, a, len);
}

static void quic_st_keys(struct quic_ktap *ktap,
			 const struct quic_st_vectors *v)
{
	const struct quic_cipher *aes = quic_crypto_cipher(TLS_CIPHER_AES_GCM_128);
	u8 prk[32], client[32], server[32], key[16], iv[12], hp[16];
	int err;

	err = quic_hkdf_extract(QUIC_CRYPTO_SHA256,
				quic_crypto_initial_salt(v->version),
				QUIC_CRYPTO_SALT_LEN, quic_st_dcid,
				sizeof(quic_st_dcid), prk);
	quic_ktap_check(ktap, !err && !memcmp(prk, v->initial_secret, 32),
			"%s initial_secret = HKDF-Extract(salt, dcid)", v->name);

	err = quic_crypto_initial_secrets(v->version, quic_st_dcid,
					  sizeof(quic_st_dcid), client, server);
	quic_ktap_check(ktap, !err && !memcmp(client, v->client_secret, 32),
			"%s client_initial_secret", v->name);
	quic_ktap_check(ktap, !err && !memcmp(server, v->server_secret, 32),
			"%s server_initial_secret", v->name);

	err = quic_crypto_derive(v->version, aes, client, key, iv, hp);
	quic_ktap_check(ktap, !err && !memcmp(key, v->client_key, 16),
			"%s client Initial key", v->name);
	quic_ktap_check(ktap, !err && !memcmp(iv, v->client_iv, 12),
			"%s client Initial iv", v->name);
	quic_ktap_check(ktap, !err && !memcmp(hp, v->client_hp, 16),
			"%s client Initial hp", v->name);

	err = quic_crypto_derive(v->version, aes, server, key, iv, hp);
	quic_ktap_check(ktap, !err && !memcmp(key, v->server_key, 16),
			"%s server Initial key", v->name);
	quic_ktap_check(ktap, !err && !memcmp(iv, v->server_iv, 12),
			"%s server Initial iv", v->name);
	quic_ktap_check(ktap, !err && !memcmp(hp, v->server_hp, 16),
			"%s server Initial hp", v->name);

	/* The Retry key and nonce are HKDF-Expand-Label of a fixed secret. */
	err = quic_crypto_derive(v->version, aes, v->retry_secret, key, iv,
				 NULL);
	quic_ktap_check(ktap, !err && !memcmp(key, v->retry_key, 16) &&
			!memcmp(iv, v->retry_nonce, 12),
			"%s Retry key and nonce from the Retry secret", v->name);
}

/* The client or server Initial packet of Appendix A: protect, unprotect. */
static void quic_st_initial(struct quic_ktap *ktap,
			    const struct quic_st_vectors *v, bool client)
{
	const char *who = client ? "client" : "server";
	unsigned int hlen = client ? 22 : 20, plen, len;
	struct quic_crypto_ctx *tx, *rx;
	u8 pn_len = client ? 4 : 2;
	u64 pn = client ? 2 : 1;
	struct sk_buff *skb;
	const u8 *expect;
	int err;

	tx = kmalloc(sizeof(*tx), GFP_KERNEL);
	rx = kmalloc(sizeof(*rx), GFP_KERNEL);
	if (!tx || !rx)
		goto out_free;
	quic_crypto_ctx_init(tx);
	quic_crypto_ctx_init(rx);
	err = quic_crypto_set_version(tx, v->version) ?:
	      quic_crypto_set_version(rx, v->version) ?:
	      quic_crypto_set_initial(tx, quic_st_dcid, sizeof(quic_st_dcid),
				      !client) ?:
	      quic_crypto_set_initial(rx, quic_st_dcid, sizeof(quic_st_dcid),
				      client);

	plen = client ? QUIC_ST_CLIENT_PAYLOAD : 99;
	len = hlen + plen + QUIC_CRYPTO_TAG_LEN;
	expect = client ? v->client_packet : v->server_packet;
	skb = quic_st_skb(len);
	if (!skb || err) {
		quic_ktap_check(ktap, false, "%s %s Initial keys installed",
				v->name, who);
		goto out;
	}
	memcpy(skb->data, client ? v->client_hdr : v->server_hdr, hlen);
	if (client)
		memcpy(skb->data + hlen, v->client_crypto, 245);
	else
		memcpy(skb->data + hlen, v->server_payload, plen);

	err = quic_st_protect(tx, skb, QUIC_CRYPTO_INITIAL, hlen - pn_len,
			      pn_len, pn);
	quic_ktap_check(ktap, !err && quic_st_eq(skb, expect, len),
			"%s %s Initial protected packet", v->name, who);

	memcpy(skb->data, expect, len);
	err = quic_st_unprotect(rx, skb, QUIC_CRYPTO_INITIAL, hlen - pn_len,
				pn_len, pn);
	quic_ktap_check(ktap, !err &&
			!memcmp(skb->data, client ? v->client_hdr :
				v->server_hdr, hlen) &&
			!memcmp(skb->data + hlen, client ? v->client_crypto :
				v->server_payload, client ? 245 : plen) &&
			(!client || !memchr_inv(skb->data + hlen + 245, 0,
						plen - 245)),
			"%s %s Initial unprotected by the peer", v->name, who);
	kfree_skb(skb);
out:
	quic_crypto_ctx_free(tx);
	quic_crypto_ctx_free(rx);
out_free:
	kfree(tx);
	kfree(rx);
}

static void quic_st_retry(struct quic_ktap *ktap,
			  const struct quic_st_vectors *v)
{
	unsigned int len = 36 - QUIC_CRYPTO_TAG_LEN;
	u8 tag[QUIC_CRYPTO_TAG_LEN], *pkt;
	int err;

	pkt = kmemdup(v->retry, 36, GFP_KERNEL);
	if (!pkt) {
		quic_ktap_check(ktap, false, "%s Retry", v->name);
		return;
	}
	err = quic_crypto_retry_tag(v->version, quic_st_dcid,
				    sizeof(quic_st_dcid), pkt, len, tag);
	quic_ktap_check(ktap, !err && !memcmp(tag, v->retry + len, 16),
			"%s Retry integrity tag", v->name);
	err = quic_crypto_retry_verify(v->version, quic_st_dcid,
				       sizeof(quic_st_dcid), pkt, 36);
	quic_ktap_check(ktap, !err, "%s Retry verified", v->name);
	pkt[10] ^= 1;
	err = quic_crypto_retry_verify(v->version, quic_st_dcid,
				       sizeof(quic_st_dcid), pkt, 36);
	quic_ktap_check(ktap, err == -EBADMSG,
			"%s Retry with a modified token rejected", v->name);
	pkt[10] ^= 1;
	err = quic_crypto_retry_verify(v->version, quic_st_dcid,
				       sizeof(quic_st_dcid) - 1, pkt, 36);
	quic_ktap_check(ktap, err == -EBADMSG,
			"%s Retry with another ODCID rejected", v->name);
	kfree(pkt);
}

/* The ChaCha20-Poly1305 short header packet of Appendix A. */
static void quic_st_chacha(struct quic_ktap *ktap,
			   const struct quic_st_vectors *v)
{
	const struct quic_cipher *cc;
	u8 key[32], iv[12], hp[32], ku[32];
	struct quic_crypto_ctx *tx, *rx;
	struct sk_buff *skb;
	int err;

	cc = quic_crypto_cipher(TLS_CIPHER_CHACHA20_POLY1305);
	err = quic_crypto_derive(v->version, cc, v->chacha_secret, key, iv,
				 hp);
	quic_ktap_check(ktap, !err && !memcmp(key, v->chacha_key, 32),
			"%s ChaCha20 key", v->name);
	quic_ktap_check(ktap, !err && !memcmp(iv, v->chacha_iv, 12),
			"%s ChaCha20 iv", v->name);
	quic_ktap_check(ktap, !err && !memcmp(hp, v->chacha_hp, 32),
			"%s ChaCha20 hp", v->name);
	err = quic_hkdf_expand_label(QUIC_CRYPTO_SHA256, v->chacha_secret, 32,
				     quic_crypto_label(v->version,
						       QUIC_CRYPTO_LABEL_KU),
				     ku, 32);
	quic_ktap_check(ktap, !err && !memcmp(ku, v->chacha_ku, 32),
			"%s ChaCha20 ku (next generation secret)", v->name);

	tx = kmalloc(sizeof(*tx), GFP_KERNEL);
	rx = kmalloc(sizeof(*rx), GFP_KERNEL);
	if (!tx || !rx)
		goto out_free;
	quic_crypto_ctx_init(tx);
	quic_crypto_ctx_init(rx);
	err = quic_crypto_set_version(tx, v->version) ?:
	      quic_crypto_set_version(rx, v->version) ?:
	      __quic_crypto_install(tx, QUIC_CRYPTO_APP, true, cc,
				    v->chacha_secret, NULL) ?:
	      __quic_crypto_install(rx, QUIC_CRYPTO_APP, false, cc,
				    v->chacha_secret, NULL);
	quic_ktap_check(ktap, !err &&
			!memcmp(rx->level[QUIC_CRYPTO_APP]->rx.gen[1].secret,
				v->chacha_ku, 32),
			"%s ChaCha20 1-RTT keys installed, next ready", v->name);

	skb = quic_st_skb(4 + 1 + QUIC_CRYPTO_TAG_LEN);
	if (!skb)
		goto out;
	memcpy(skb->data, v->chacha_hdr, 4);
	skb->data[4] = 0x01;	/* PING */
	err = quic_st_protect(tx, skb, QUIC_CRYPTO_APP, 1, 3,
			      QUIC_ST_CHACHA_PN);
	quic_ktap_check(ktap, !err && quic_st_eq(skb, v->chacha_packet, 21),
			"%s ChaCha20-Poly1305 short header packet", v->name);
	memcpy(skb->data, v->chacha_packet, 21);
	err = quic_st_unprotect(rx, skb, QUIC_CRYPTO_APP, 1, 3,
				QUIC_ST_CHACHA_PN);
	quic_ktap_check(ktap, !err && !memcmp(skb->data, v->chacha_hdr, 4) &&
			skb->data[4] == 0x01,
			"%s ChaCha20-Poly1305 short header unprotected",
			v->name);
	kfree_skb(skb);
out:
	quic_crypto_ctx_free(tx);
	quic_crypto_ctx_free(rx);
out_free:
	kfree(tx);
	kfree(rx);
}

/*
 * Build a test packet: a short header (8-byte DCID) or a v1 Handshake long
 * header, then @plen payload bytes from @payload and room for the tag.
 * Returns the packet number offset.
 */
#define QUIC_ST_SHORT_PN_OFF	9
#define QUIC_ST_LONG_PN_OFF	25

static struct sk_buff *quic_st_packet(bool lng, u8 phase, u64 pn, u8 pn_len,
				      const u8 *payload, unsigned int plen,
				      u16 *pn_off)
{
	unsigned int off = lng ? QUIC_ST_LONG_PN_OFF : QUIC_ST_SHORT_PN_OFF;
	unsigned int len = off + pn_len + plen + QUIC_CRYPTO_TAG_LEN, i;
	struct sk_buff *skb = quic_st_skb(len);
	u8 *p;

	if (!skb)
		return NULL;
	p = skb->data;
	if (lng) {
		p[0] = 0xe0 | (pn_len - 1);	/* v1 Handshake */
		p[4] = 1;			/* version */
		p[5] = 8;
		memcpy(p + 6, quic_st_dcid, 8);
		p[14] = 8;
		memset(p + 15, 0xab, 8);
		p[23] = 0x40 | ((len - off) >> 8);	/* 2-byte Length */
		p[24] = (len - off) & 0xff;
	} else {
		p[0] = 0x40 | (phase << 2) | (pn_len - 1);
		memcpy(p + 1, quic_st_dcid, 8);
	}
	for (i = 0; i < pn_len; i++)
		p[off + i] = pn >> (8 * (pn_len - 1 - i));
	memcpy(p + off + pn_len, payload, plen);
	*pn_off = off;
	return skb;
}

struct quic_st_cipher {
	const char	*name;
	u32		type;
};

static const struct quic_st_cipher quic_st_ciphers[] = {
	{ "AES-128-GCM", TLS_CIPHER_AES_GCM_128 },
	{ "AES-256-GCM", TLS_CIPHER_AES_GCM_256 },
	{ "ChaCha20-Poly1305", TLS_CIPHER_CHACHA20_POLY1305 },
	{ "AES-128-CCM", TLS_CIPHER_AES_CCM_128 },
};

enum quic_st_tamper {
	QUIC_ST_NONE,
	QUIC_ST_CIPHERTEXT,
	QUIC_ST_TAG,
	QUIC_ST_HEADER,
};

static const char * const quic_st_tamper_names[] = {
	"round trip", "modified ciphertext rejected", "modified tag rejected",
	"modified header rejected",
};

/*
 * Protect a packet with fixed keys, optionally damage it, and unprotect it
 * with the same keys.  A damaged packet must fail with -EBADMSG and its
 * payload must not be readable afterwards.
 */
static void quic_st_roundtrip(struct quic_ktap *ktap,
			      struct quic_crypto_ctx *ctx,
			      const struct quic_st_cipher *sc, bool lng,
			      enum quic_st_tamper tamper)
{
	u8 level = lng ? QUIC_CRYPTO_HANDSHAKE : QUIC_CRYPTO_APP;
	unsigned int plen = 100, hlen;
	u8 payload[100], hdr[32];
	struct sk_buff *skb;
	u64 pn = 0x12345;
	u16 pn_off;
	bool ok;
	int err;

	get_random_bytes(payload, sizeof(payload));
	skb = quic_st_packet(lng, 0, pn, 2, payload, plen, &pn_off);
	if (!skb)
		return;
	hlen = pn_off + 2;
	memcpy(hdr, skb->data, hlen);
	err = quic_st_protect(ctx, skb, level, pn_off, 2, pn);
	ok = !err && memcmp(skb->data + hlen, payload, plen);

	switch (tamper) {
	case QUIC_ST_NONE:
		break;
	case QUIC_ST_CIPHERTEXT:
		skb->data[skb->len - QUIC_CRYPTO_TAG_LEN - 3] ^= 0x10;
		break;
	case QUIC_ST_TAG:
		skb->data[skb->len - 1] ^= 0x01;
		break;
	case QUIC_ST_HEADER:
		skb->data[lng ? 8 : 2] ^= 0x80;	/* in the DCID */
		break;
	}
	err = quic_st_unprotect(ctx, skb, level, pn_off, 2, pn);
	if (tamper == QUIC_ST_NONE)
		ok = ok && !err && !memcmp(skb->data, hdr, hlen) &&
		     !memcmp(skb->data + hlen, payload, plen);
	else
		ok = ok && err == -EBADMSG &&
		     !memchr_inv(skb->data + hlen, 0, skb->len - hlen);
	quic_ktap_check(ktap, ok, "%s %s header: %s", sc->name,
			lng ? "long" : "short", quic_st_tamper_names[tamper]);
	kfree_skb(skb);
}

static void quic_st_ciphers_roundtrip(struct quic_ktap *ktap)
{
	const struct quic_st_cipher *sc;
	struct quic_crypto_ctx *ctx;
	unsigned int i, t;
	int err, lng;
	s64 failed;

	ctx = kmalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return;
	for (i = 0; i < ARRAY_SIZE(quic_st_ciphers); i++) {
		sc = &quic_st_ciphers[i];
		quic_crypto_ctx_init(ctx);
		err = quic_crypto_set_fixed_keys(ctx, QUIC_CRYPTO_APP,
						 sc->type) ?:
		      quic_crypto_set_fixed_keys(ctx, QUIC_CRYPTO_HANDSHAKE,
						 sc->type);
		if (!quic_ktap_check(ktap, !err, "%s fixed keys installed",
				     sc->name)) {
			quic_crypto_ctx_free(ctx);
			continue;
		}
		for (lng = 0; lng < 2; lng++)
			for (t = QUIC_ST_NONE; t <= QUIC_ST_HEADER; t++)
				quic_st_roundtrip(ktap, ctx, sc, lng, t);
		failed = atomic64_read(&ctx->auth_failed);
		quic_ktap_check(ktap, failed == 6 &&
				!quic_crypto_integ_limit_reached(ctx),
				"%s forgeries counted for the integrity limit",
				sc->name);
		quic_crypto_ctx_free(ctx);
	}
	kfree(ctx);
}

/* A packet whose payload is in a page frag, not in the skb head. */
static void quic_st_frags(struct quic_ktap *ktap)
{
	unsigned int hlen = QUIC_ST_SHORT_PN_OFF + 2, plen = 1000;
	unsigned int flen = plen + QUIC_CRYPTO_TAG_LEN;
	struct quic_crypto_ctx *ctx;
	struct sk_buff *skb = NULL;
	struct page *page = NULL;
	u8 *payload = NULL, *out = NULL;
	bool ok = false;
	int err;

	ctx = kmalloc(sizeof(*ctx), GFP_KERNEL);
	payload = kmalloc(plen, GFP_KERNEL);
	out = kmalloc(hlen + flen, GFP_KERNEL);
	page = alloc_page(GFP_KERNEL);
	skb = alloc_skb(64, GFP_KERNEL);
	if (!ctx || !payload || !out || !page || !skb)
		goto out;
	quic_crypto_ctx_init(ctx);
	err = quic_crypto_set_fixed_keys(ctx, QUIC_CRYPTO_APP,
					 TLS_CIPHER_AES_GCM_256);
	if (err)
		goto out_ctx;

	get_random_bytes(payload, plen);
	skb_put_zero(skb, hlen);
	skb->data[0] = 0x41;
	memcpy(skb->data + 1, quic_st_dcid, 8);
	skb->data[10] = 7;
	memset(page_address(page), 0, PAGE_SIZE);
	memcpy(page_address(page) + 100, payload, plen);
	skb_add_rx_frag(skb, 0, page, 100, flen, PAGE_SIZE);
	page = NULL;	/* the skb owns it */

	err = quic_st_protect(ctx, skb, QUIC_CRYPTO_APP, QUIC_ST_SHORT_PN_OFF,
			      2, 7);
	ok = !err && skb_is_nonlinear(skb);
	err = quic_st_unprotect(ctx, skb, QUIC_CRYPTO_APP,
				QUIC_ST_SHORT_PN_OFF, 2, 7);
	ok = ok && !err && !skb_copy_bits(skb, 0, out, hlen + flen) &&
	     !memcmp(out + hlen, payload, plen);
out_ctx:
	quic_crypto_ctx_free(ctx);
out:
	quic_ktap_check(ktap, ok, "payload in a page frag: round trip");
	kfree_skb(skb);
	if (page)
		__free_page(page);
	kfree(out);
	kfree(payload);
	kfree(ctx);
}

/* A packet must hold a full sample 4 bytes after the packet number. */
static void quic_st_short_sample(struct quic_ktap *ktap)
{
	struct quic_crypto_pkt pkt = {};
	struct quic_crypto_ctx *ctx;
	struct sk_buff *skb = NULL;
	u8 payload = 0x01, copy[32];
	bool ok = false;
	u32 trunc;
	u8 phase;

	ctx = kmalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		goto out;
	quic_crypto_ctx_init(ctx);
	if (quic_crypto_set_fixed_keys(ctx, QUIC_CRYPTO_APP,
				       TLS_CIPHER_AES_GCM_128))
		goto out_ctx;
	/* 9 + 2 + 1 + 16 = 28 bytes, the sample would end at 29 */
	skb = quic_st_packet(false, 0, 5, 2, &payload, 1, &pkt.pn_off);
	if (!skb)
		goto out_ctx;
	memcpy(copy, skb->data, skb->len);
	pkt.skb = skb;
	pkt.len = skb->len;
	pkt.level = QUIC_CRYPTO_APP;
	ok = quic_crypto_unprotect_header(ctx, &pkt, &trunc, &phase) ==
	     -EINVAL && !memcmp(copy, skb->data, skb->len);
	kfree_skb(skb);
out_ctx:
	quic_crypto_ctx_free(ctx);
out:
	quic_ktap_check(ktap, ok,
			"header protection: packet too short for the sample rejected, untouched");
	kfree(ctx);
}

static void quic_st_install(struct quic_ktap *ktap)
{
	struct quic_crypto_secret s = {};
	struct quic_crypto_ctx *a, *b;
	unsigned int i, l, d;
	bool ok = true;
	int err;

	a = kmalloc(sizeof(*a), GFP_KERNEL);
	b = kmalloc(sizeof(*b), GFP_KERNEL);
	if (!a || !b)
		goto out;
	quic_crypto_ctx_init(a);
	quic_crypto_ctx_init(b);

	s.level = QUIC_CRYPTO_HANDSHAKE;
	s.type = 57;	/* TLS_CIPHER_ARIA_GCM_128: no QUIC header protection */
	quic_ktap_check(ktap, quic_crypto_set_secret(a, &s) == -EINVAL,
			"install rejects an unknown cipher");
	s.type = TLS_CIPHER_AES_GCM_128;
	s.level = QUIC_CRYPTO_MAX;
	quic_ktap_check(ktap, quic_crypto_set_secret(a, &s) == -EINVAL,
			"install rejects a bad level");
	s.level = QUIC_CRYPTO_HANDSHAKE;
	s.send = 2;
	quic_ktap_check(ktap, quic_crypto_set_secret(a, &s) == -EINVAL,
			"install rejects a bad direction");
	s.send = 1;
	s.reserved = 1;
	quic_ktap_check(ktap, quic_crypto_set_secret(a, &s) == -EINVAL,
			"install rejects non-zero reserved bits");
	s.reserved = 0;
	err = quic_crypto_setsockopt_secret(a, KERNEL_SOCKPTR(&s),
					    sizeof(s) - 1);
	quic_ktap_check(ktap, err == -EINVAL && !quic_crypto_ready(a, 2, 1),
			"setsockopt rejects a short option");
	err = quic_crypto_setsockopt_secret(a, KERNEL_SOCKPTR(&s), sizeof(s));
	quic_ktap_check(ktap, !err && quic_crypto_ready(a, 2, 1) &&
			!quic_crypto_ready(a, 2, 0),
			"setsockopt installs one direction");

	for (i = 0; i < ARRAY_SIZE(quic_st_ciphers); i++) {
		for (l = 0; l < QUIC_CRYPTO_MAX; l++) {
			for (d = 0; d < 2; d++) {
				s.type = quic_st_ciphers[i].type;
				s.level = l;
				s.send = d;
				get_random_bytes(s.secret, sizeof(s.secret));
				err = quic_crypto_set_secret(a, &s);
				ok = ok && !err && quic_crypto_ready(a, l, d);
			}
		}
	}
	quic_ktap_check(ktap, ok,
			"every cipher installs (and replaces) at every level");

	/* Only a SHA-384 suite's key depends on secret bytes 32..47. */
	s.level = QUIC_CRYPTO_HANDSHAKE;
	s.send = 1;
	for (i = 0; i < 2; i++) {
		s.type = i ? TLS_CIPHER_AES_GCM_256 : TLS_CIPHER_AES_GCM_128;
		memset(s.secret, 0x5a, sizeof(s.secret));
		err = quic_crypto_set_secret(a, &s);
		s.secret[40] ^= 1;
		err = err ?: quic_crypto_set_secret(b, &s);
		ok = !err && !memcmp(a->level[2]->tx.gen[0].iv,
				     b->level[2]->tx.gen[0].iv,
				     QUIC_CRYPTO_IV_LEN);
		quic_ktap_check(ktap, !err && ok == !i,
				"%s uses a %u-byte secret",
				quic_st_ciphers[i].name, i ? 48 : 32);
	}

	quic_ktap_check(ktap, quic_crypto_set_version(a, 0xff00001d) ==
			-EINVAL && a->version == QUIC_VERSION_V1,
			"unknown QUIC version refused for labels");
	quic_crypto_ctx_free(a);
	quic_crypto_ctx_free(b);
out:
	kfree(a);
	kfree(b);
}

/* Two endpoints with 1-RTT keys: a sends with s1, b sends with s2. */
static int quic_st_pair(struct quic_crypto_ctx *a, struct quic_crypto_ctx *b,
			u32 version)
{
	const struct quic_cipher *c = quic_crypto_cipher(TLS_CIPHER_AES_GCM_128);
	u8 s1[32], s2[32];
	int err;

	get_random_bytes(s1, sizeof(s1));
	get_random_bytes(s2, sizeof(s2));
	quic_crypto_ctx_init(a);
	quic_crypto_ctx_init(b);
	err = quic_crypto_set_version(a, version) ?:
	      quic_crypto_set_version(b, version) ?:
	      __quic_crypto_install(a, QUIC_CRYPTO_APP, true, c, s1, NULL) ?:
	      __quic_crypto_install(a, QUIC_CRYPTO_APP, false, c, s2, NULL) ?:
	      __quic_crypto_install(b, QUIC_CRYPTO_APP, true, c, s2, NULL) ?:
	      __quic_crypto_install(b, QUIC_CRYPTO_APP, false, c, s1, NULL);
	memzero_explicit(s1, sizeof(s1));
	memzero_explicit(s2, sizeof(s2));
	return err;
}

/* Protect a short header packet from @from with its current key phase. */
static struct sk_buff *quic_st_send(struct quic_crypto_ctx *from, u64 pn)
{
	u8 payload[32] = { 0x01 };
	struct sk_buff *skb;
	u16 pn_off;

	skb = quic_st_packet(false, quic_crypto_key_phase(from), pn, 2,
			     payload, sizeof(payload), &pn_off);
	if (skb && quic_st_protect(from, skb, QUIC_CRYPTO_APP, pn_off, 2, pn)) {
		kfree_skb(skb);
		skb = NULL;
	}
	return skb;
}

static int quic_st_recv(struct quic_crypto_ctx *to, struct sk_buff *skb,
			u64 pn)
{
	if (!skb)
		return -ENOMEM;
	return quic_st_unprotect(to, skb, QUIC_CRYPTO_APP,
				 QUIC_ST_SHORT_PN_OFF, 2, pn);
}

static void quic_st_key_update_ku(struct quic_ktap *ktap, u32 version)
{
	struct quic_crypto_ctx *a, *b;
	struct quic_crypto *ca;
	u8 next[32];
	int err;

	a = kmalloc(sizeof(*a), GFP_KERNEL);
	b = kmalloc(sizeof(*b), GFP_KERNEL);
	if (!a || !b)
		goto out;
	err = quic_st_pair(a, b, version);
	ca = a->level[QUIC_CRYPTO_APP];
	if (!ca || !b->level[QUIC_CRYPTO_APP])
		err = -ENOKEY;
	err = err ?: quic_hkdf_expand_label(QUIC_CRYPTO_SHA256,
					    ca->tx.gen[0].secret, 32,
					    quic_crypto_label(version,
							      QUIC_CRYPTO_LABEL_KU),
					    next, 32);
	quic_ktap_check(ktap, !err &&
			!memcmp(ca->tx.gen[1].secret, next, 32) &&
			!memcmp(b->level[QUIC_CRYPTO_APP]->rx.gen[1].secret,
				next, 32),
			"%s key update: next secret is HKDF-Expand-Label(secret, \"%s\")",
			version == QUIC_VERSION_V2 ? "v2" : "v1",
			quic_crypto_label(version, QUIC_CRYPTO_LABEL_KU));
	quic_crypto_ctx_free(a);
	quic_crypto_ctx_free(b);
out:
	kfree(a);
	kfree(b);
}

static void quic_st_key_update(struct quic_ktap *ktap)
{
	struct sk_buff *old = NULL, *skb = NULL;
	struct quic_crypto_ctx *a, *b;
	struct quic_crypto_key *k;
	int err;

	quic_st_key_update_ku(ktap, QUIC_VERSION_V1);
	quic_st_key_update_ku(ktap, QUIC_VERSION_V2);

	a = kmalloc(sizeof(*a), GFP_KERNEL);
	b = kmalloc(sizeof(*b), GFP_KERNEL);
	if (!a || !b)
		goto out;
	err = quic_st_pair(a, b, QUIC_VERSION_V1);
	quic_ktap_check(ktap, !err && quic_crypto_key_update_ready(a) &&
			quic_crypto_key_update_ready(b),
			"key update: 1-RTT keys installed with the next generation");

	skb = quic_st_send(a, 3);
	err = quic_st_recv(b, skb, 3);
	kfree_skb(skb);
	old = quic_st_send(a, 4);	/* phase 0, delivered late */

	/* a initiates */
	err = err ?: quic_crypto_key_update(a, QUIC_CRYPTO_PN_NONE);
	k = &a->level[QUIC_CRYPTO_APP]->tx.gen[0];
	quic_ktap_check(ktap, !err && quic_crypto_key_phase(a) == 1 &&
			!k->ready && !memchr_inv(k->secret, 0, sizeof(k->secret)),
			"key update: initiator flips the phase, old send secret wiped");
	quic_ktap_check(ktap, quic_crypto_key_update(a, QUIC_CRYPTO_PN_NONE) ==
			-EAGAIN,
			"key update: refused until the next keys are prepared");

	skb = quic_st_send(a, 5);
	quic_ktap_check(ktap, skb && quic_crypto_rx_key(b, 1, 5) ==
			QUIC_CRYPTO_KEY_NEXT && !quic_st_recv(b, skb, 5),
			"key update: peer decrypts the new phase with its next keys");
	kfree_skb(skb);
	err = quic_crypto_key_update(b, 5);
	quic_ktap_check(ktap, !err && quic_crypto_key_phase(b) == 1,
			"key update: peer commits and flips its phase");

	quic_ktap_check(ktap, old && quic_crypto_rx_key(b, 0, 4) ==
			QUIC_CRYPTO_KEY_PREV && !quic_st_recv(b, old, 4),
			"key update: delayed packet of the old phase uses the previous keys");
	kfree_skb(old);
	old = NULL;

	skb = quic_st_send(b, 9);
	quic_ktap_check(ktap, skb && quic_crypto_rx_key(a, 1, 9) ==
			QUIC_CRYPTO_KEY_CUR && !quic_st_recv(a, skb, 9),
			"key update: the peer's reply decrypts with current keys");
	kfree_skb(skb);

	err = quic_crypto_key_update_prepare(a) ?:
	      quic_crypto_key_update_prepare(b);
	quic_ktap_check(ktap, !err && quic_crypto_key_update_ready(a) &&
			quic_crypto_key_update_ready(b),
			"key update: prepare derives the following generation");

	old = quic_st_send(a, 6);	/* phase 1 */
	quic_crypto_key_discard_prev(b);
	quic_ktap_check(ktap, quic_crypto_rx_key(b, 0, 4) ==
			QUIC_CRYPTO_KEY_NEXT,
			"key update: discarded previous keys are not selected");

	/* A second update, initiated by b this time. */
	err = quic_crypto_key_update(b, QUIC_CRYPTO_PN_NONE);
	skb = quic_st_send(b, 10);
	quic_ktap_check(ktap, !err && skb && quic_crypto_rx_key(a, 0, 10) ==
			QUIC_CRYPTO_KEY_NEXT && !quic_st_recv(a, skb, 10) &&
			!quic_crypto_key_update(a, 10) &&
			quic_crypto_key_phase(a) == 0,
			"key update: second update in the other direction");
	kfree_skb(skb);
	quic_ktap_check(ktap, old && quic_crypto_rx_key(b, 1, 6) ==
			QUIC_CRYPTO_KEY_PREV && !quic_st_recv(b, old, 6),
			"key update: previous keys again after the second update");

	quic_crypto_ctx_free(a);
	quic_crypto_ctx_free(b);
out:
	kfree_skb(old);
	kfree(a);
	kfree(b);
}

static void quic_st_limits(struct quic_ktap *ktap)
{
	const struct quic_cipher *gcm, *cc, *ccm;
	struct quic_crypto_key *k;
	struct quic_crypto_ctx *ctx;
	struct sk_buff *skb;
	u8 payload[32] = {};
	u16 pn_off;
	int err;

	gcm = quic_crypto_cipher(TLS_CIPHER_AES_GCM_128);
	cc = quic_crypto_cipher(TLS_CIPHER_CHACHA20_POLY1305);
	ccm = quic_crypto_cipher(TLS_CIPHER_AES_CCM_128);
	quic_ktap_check(ktap, gcm->conf_limit == 1ULL << 23 &&
			gcm->integ_limit == 1ULL << 52 &&
			cc->conf_limit == U64_MAX &&
			cc->integ_limit == 1ULL << 36 &&
			ccm->conf_limit == 2965820 &&
			ccm->integ_limit == 2965820,
			"AEAD limits are those of RFC 9001 section 6.6");

	ctx = kmalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return;
	quic_crypto_ctx_init(ctx);
	err = quic_crypto_set_fixed_keys(ctx, QUIC_CRYPTO_APP,
					 TLS_CIPHER_AES_GCM_128);
	if (err)
		goto out;

	k = &ctx->level[QUIC_CRYPTO_APP]->tx.gen[0];
	atomic64_set(&k->packets, gcm->conf_limit - 1);
	skb = quic_st_packet(false, 0, 1, 2, payload, sizeof(payload), &pn_off);
	err = skb ? quic_st_protect(ctx, skb, QUIC_CRYPTO_APP, pn_off, 2, 1) :
		    -ENOMEM;
	quic_ktap_check(ktap, !err &&
			quic_crypto_conf_limit_reached(ctx, QUIC_CRYPTO_APP),
			"confidentiality limit reached after the last allowed packet");
	kfree_skb(skb);
	skb = quic_st_packet(false, 0, 2, 2, payload, sizeof(payload), &pn_off);
	err = skb ? quic_st_protect(ctx, skb, QUIC_CRYPTO_APP, pn_off, 2, 2) :
		    -ENOMEM;
	quic_ktap_check(ktap, err == -EKEYEXPIRED,
			"confidentiality limit: no packet beyond it");
	kfree_skb(skb);

	/* A fresh key generation starts counting again. */
	err = quic_crypto_key_update(ctx, QUIC_CRYPTO_PN_NONE);
	quic_ktap_check(ktap, !err &&
			!quic_crypto_conf_limit_reached(ctx, QUIC_CRYPTO_APP),
			"confidentiality limit: a key update resets it");

	atomic64_set(&ctx->auth_failed, gcm->integ_limit - 2);
	skb = quic_st_send(ctx, 3);
	if (skb)
		skb->data[skb->len - 1] ^= 1;
	err = quic_st_recv(ctx, skb, 3);
	quic_ktap_check(ktap, err == -EBADMSG &&
			!quic_crypto_integ_limit_reached(ctx),
			"integrity limit: one forgery below the limit");
	kfree_skb(skb);
	skb = quic_st_send(ctx, 4);
	if (skb)
		skb->data[skb->len - 1] ^= 1;
	err = quic_st_recv(ctx, skb, 4);
	quic_ktap_check(ktap, err == -EBADMSG &&
			quic_crypto_integ_limit_reached(ctx),
			"integrity limit reached at the limit");
	kfree_skb(skb);
	skb = quic_st_send(ctx, 5);
	err = quic_st_recv(ctx, skb, 5);
	quic_ktap_check(ktap, err == -EKEYEXPIRED,
			"integrity limit: no packet accepted beyond it");
	kfree_skb(skb);
out:
	quic_crypto_ctx_free(ctx);
	kfree(ctx);
}

/* Build @n short header packets with payload byte i, protected or not. */
static int quic_st_pkts(struct quic_crypto_pkt *pkts, unsigned int n,
			u8 level, bool lng)
{
	u8 payload[48];
	unsigned int i;
	u16 pn_off;

	for (i = 0; i < n; i++) {
		memset(payload, i, sizeof(payload));
		pkts[i] = (struct quic_crypto_pkt){};
		pkts[i].skb = quic_st_packet(lng, 0, 100 + i, 2, payload,
					     sizeof(payload), &pn_off);
		if (!pkts[i].skb)
			return -ENOMEM;
		pkts[i].len = pkts[i].skb->len;
		pkts[i].pn_off = pn_off;
		pkts[i].pn_len = 2;
		pkts[i].level = level;
		pkts[i].pn = 100 + i;
	}
	return 0;
}

static void quic_st_pkts_free(struct quic_crypto_pkt *pkts, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		kfree_skb(pkts[i].skb);
		pkts[i].skb = NULL;
	}
}

/* Unprotect the headers of a batch; the packet numbers are known. */
static bool quic_st_pkts_unprotect_headers(struct quic_crypto_ctx *ctx,
					   struct quic_crypto_pkt *pkts,
					   unsigned int n)
{
	unsigned int i;
	u32 trunc;
	u8 phase;

	for (i = 0; i < n; i++) {
		if (quic_crypto_unprotect_header(ctx, &pkts[i], &trunc, &phase) ||
		    trunc != pkts[i].pn)
			return false;
		pkts[i].key = quic_crypto_rx_key(ctx, phase, pkts[i].pn);
	}
	return true;
}

static bool quic_st_pkts_ok(struct quic_crypto_pkt *pkts, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (pkts[i].err)
			return false;
	return true;
}

/*
 * Batches: sixteen packets per call, the default (synchronous here) AEAD
 * against an async one (cryptd, completing from a workqueue) with the same
 * keys, which must give the same bytes.
 */
static void quic_st_batches(struct quic_ktap *ktap)
{
	const struct quic_cipher *gcm = quic_crypto_cipher(TLS_CIPHER_AES_GCM_128);
	struct quic_crypto_pkt *sp = NULL, *ap = NULL;
	static const u8 zero[QUIC_CRYPTO_SECRET_MAX];
	struct quic_crypto_ctx *sync = NULL, *async;
	unsigned int n = QUIC_CRYPTO_BATCH, i;
	bool went_async = false, same = true;
	struct quic_crypto_batch big = {};
	int err;

	async = kmalloc(sizeof(*async), GFP_KERNEL);
	sync = kmalloc(sizeof(*sync), GFP_KERNEL);
	sp = kcalloc(n + 1, sizeof(*sp), GFP_KERNEL);
	ap = kcalloc(n, sizeof(*ap), GFP_KERNEL);
	if (!async || !sync || !sp || !ap)
		goto out_free;
	quic_crypto_ctx_init(sync);
	quic_crypto_ctx_init(async);

	err = quic_crypto_set_fixed_keys(sync, QUIC_CRYPTO_APP,
					 TLS_CIPHER_AES_GCM_128) ?:
	      quic_st_pkts(sp, n, QUIC_CRYPTO_APP, false) ?:
	      quic_st_batch(sync, sp, n, true, NULL);
	quic_ktap_check(ktap, !err && quic_st_pkts_ok(sp, n),
			"batch: %u packets protected in one call", n);
	err = quic_st_pkts_unprotect_headers(sync, sp, n) ?
	      quic_st_batch(sync, sp, n, false, NULL) : -EINVAL;
	quic_ktap_check(ktap, !err && quic_st_pkts_ok(sp, n) &&
			sp[n - 1].skb->data[QUIC_ST_SHORT_PN_OFF + 2] == n - 1,
			"batch: %u packets unprotected in one call", n);

	big.pkts = sp;
	big.n = n + 1;
	big.done = quic_st_done;
	quic_ktap_check(ktap, quic_crypto_encrypt_batch(sync, &big) == -EINVAL,
			"batch: more than %u packets refused", n);

	/* The default mode takes no callback, and no async AEAD either. */
	quic_st_pkts_free(sp, n);
	big.n = 1;
	big.done = NULL;
	err = quic_st_pkts(sp, 1, QUIC_CRYPTO_APP, false) ?:
	      quic_crypto_encrypt_batch(sync, &big);
	quic_ktap_check(ktap, !err && !sp[0].err,
			"sync mode: batch without a callback");
	quic_st_pkts_free(sp, 1);
	err = __quic_crypto_install(async, QUIC_CRYPTO_APP, true, gcm, zero,
				    QUIC_ST_ASYNC_AEAD);
	quic_ktap_check(ktap, err < 0,
			"sync mode: an async-only AEAD is refused (%d)", err);

	/* Same keys, same packets, through cryptd. */
	quic_crypto_set_async(async, true);
	quic_ktap_check(ktap, quic_crypto_decrypt_batch(async, &big) ==
			-EINVAL, "async mode: batch without a callback refused");
	err = __quic_crypto_install(async, QUIC_CRYPTO_APP, true, gcm, zero,
				    QUIC_ST_ASYNC_AEAD) ?:
	      __quic_crypto_install(async, QUIC_CRYPTO_APP, false, gcm, zero,
				    QUIC_ST_ASYNC_AEAD);
	if (!quic_ktap_check(ktap, !err, "async: %s installed (%d)",
			     QUIC_ST_ASYNC_AEAD, err))
		goto out;
	err = quic_st_pkts(sp, n, QUIC_CRYPTO_APP, false) ?:
	      quic_st_pkts(ap, n, QUIC_CRYPTO_APP, false) ?:
	      quic_st_batch(sync, sp, n, true, NULL) ?:
	      quic_st_batch(async, ap, n, true, &went_async);
	quic_ktap_check(ktap, !err && went_async && quic_st_pkts_ok(ap, n),
			"async: batch returned -EINPROGRESS, callback completed it");
	for (i = 0; i < n && !err; i++)
		same = same && sp[i].skb->len == ap[i].skb->len &&
		       !memcmp(sp[i].skb->data, ap[i].skb->data,
			       sp[i].skb->len);
	quic_ktap_check(ktap, !err && same,
			"async: protected packets identical to the sync path");

	ap[3].skb->data[ap[3].skb->len - 1] ^= 1;
	went_async = false;
	err = quic_st_pkts_unprotect_headers(async, ap, n) ?
	      quic_st_batch(async, ap, n, false, &went_async) : -EINVAL;
	same = true;
	for (i = 0; i < n && !err; i++)
		same = same && ap[i].err == (i == 3 ? -EBADMSG : 0) &&
		       ap[i].skb->data[QUIC_ST_SHORT_PN_OFF + 2] ==
		       (i == 3 ? 0 : i);
	quic_ktap_check(ktap, !err && went_async && same,
			"async: batch unprotected, the forged packet alone rejected");
out:
	quic_st_pkts_free(sp, n);
	quic_st_pkts_free(ap, n);
	quic_crypto_ctx_free(sync);
	quic_crypto_ctx_free(async);
out_free:
	kfree(sp);
	kfree(ap);
	kfree(sync);
	kfree(async);
}

#define QUIC_ST_IMPL_PKTS	8
#define QUIC_ST_IMPL_PLEN	1300
/* Payload lengths 3 to 1270, odd and even (a sample needs 2 at least). */
#define QUIC_ST_IMPL_LEN(i)	(3 + 181 * (i))

/*
 * A copy of the linear packet @lin whose first @hlen bytes stay in the head
 * and the rest lies in two page frags, cut @cut bytes in at odd offsets:
 * AES blocks then straddle the frags.
 */
static struct sk_buff *quic_st_split(const struct sk_buff *lin,
				     unsigned int hlen, unsigned int cut)
{
	unsigned int rest = lin->len - hlen - cut;
	struct page *p1 = alloc_page(GFP_KERNEL);
	struct page *p2 = alloc_page(GFP_KERNEL);
	struct sk_buff *skb = alloc_skb(hlen + 32, GFP_KERNEL);

	if (!skb || !p1 || !p2) {
		kfree_skb(skb);
		if (p1)
			__free_page(p1);
		if (p2)
			__free_page(p2);
		return NULL;
	}
	skb_put_data(skb, lin->data, hlen);
	memcpy(page_address(p1) + 3, lin->data + hlen, cut);
	memcpy(page_address(p2) + 5, lin->data + hlen + cut, rest);
	skb_add_rx_frag(skb, 0, p1, 3, cut, PAGE_SIZE);
	skb_add_rx_frag(skb, 1, p2, 5, rest, PAGE_SIZE);
	return skb;
}

/*
 * Whether every transform of @dir (current and next; rx has no previous
 * one before a key update) is (@simd) or is not the SIMD one.
 */
static bool quic_st_dir_simd(const struct quic_crypto_dir *dir, bool simd)
{
	unsigned int i;

	for (i = 0; i < dir->ngen; i++)
		if ((!dir->gen[i].aead && i < 2) ||
		    (dir->gen[i].aead && dir->gen[i].simd != simd))
			return false;
	return true;
}

/*
 * One GCM suite: the default implementation (on x86 the AES-NI GCM called
 * without its async wrapper, crypto.c: quic_crypto_aead_alloc()) against
 * the suite's own "gcm(aes)" (the generic template: the fallback, and what
 * machines without AES-NI use).  Both must write the same bytes and read
 * each other's packets, of many lengths, linear or over page frags.
 */
static void quic_st_impl_cipher(struct quic_ktap *ktap,
				const struct quic_st_cipher *sc)
{
	const struct quic_cipher *cipher = quic_crypto_cipher(sc->type);
	unsigned int n = QUIC_ST_IMPL_PKTS, hlen = QUIC_ST_SHORT_PN_OFF + 2;
	struct quic_crypto_pkt *dp = NULL, *gp = NULL;
	static const u8 zero[QUIC_CRYPTO_SECRET_MAX];
	struct quic_crypto_ctx *def, *gen;
	struct sk_buff *lin = NULL, *nl = NULL;
	bool want, same = true, ok = false;
	struct quic_crypto *dc, *gc;
	unsigned int i, plen;
	u8 *payload, *out;
	u16 pn_off;
	int err;

	def = kmalloc(sizeof(*def), GFP_KERNEL);
	gen = kmalloc(sizeof(*gen), GFP_KERNEL);
	dp = kcalloc(n, sizeof(*dp), GFP_KERNEL);
	gp = kcalloc(n, sizeof(*gp), GFP_KERNEL);
	payload = kmalloc(QUIC_ST_IMPL_PLEN, GFP_KERNEL);
	out = kmalloc(hlen + QUIC_ST_IMPL_PLEN + QUIC_CRYPTO_TAG_LEN,
		      GFP_KERNEL);
	if (!def || !gen || !dp || !gp || !payload || !out)
		goto out_free;
	quic_crypto_ctx_init(def);
	quic_crypto_ctx_init(gen);
	get_random_bytes(payload, QUIC_ST_IMPL_PLEN);

	/* The internal SIMD GCM is used exactly when there is one. */
	want = crypto_has_aead(cipher->simd_name, CRYPTO_ALG_INTERNAL,
			       CRYPTO_ALG_INTERNAL | CRYPTO_ALG_ASYNC) > 0;
	err = quic_crypto_set_fixed_keys(def, QUIC_CRYPTO_APP, sc->type) ?:
	      __quic_crypto_install(gen, QUIC_CRYPTO_APP, true, cipher, zero,
				    cipher->aead_name) ?:
	      __quic_crypto_install(gen, QUIC_CRYPTO_APP, false, cipher, zero,
				    cipher->aead_name);
	if (!quic_ktap_check(ktap, !err, "%s: both implementations installed (%d)",
			     sc->name, err))
		goto out;
	dc = def->level[QUIC_CRYPTO_APP];
	gc = gen->level[QUIC_CRYPTO_APP];
	quic_ktap_check(ktap, quic_st_dir_simd(&dc->tx, want) &&
			quic_st_dir_simd(&dc->rx, want) &&
			quic_st_dir_simd(&gc->tx, false) &&
			quic_st_dir_simd(&gc->rx, false),
			"%s: AEAD %s (internal SIMD %s), fallback %s",
			sc->name, crypto_aead_driver_name(dc->tx.gen[0].aead),
			want ? "used" : "absent",
			crypto_aead_driver_name(gc->tx.gen[0].aead));

	/* One batch each, of packets of many lengths. */
	for (i = 0; i < n; i++) {
		plen = QUIC_ST_IMPL_LEN(i);
		dp[i] = (struct quic_crypto_pkt){};
		gp[i] = (struct quic_crypto_pkt){};
		dp[i].skb = quic_st_packet(false, 0, 100 + i, 2, payload, plen,
					   &pn_off);
		gp[i].skb = quic_st_packet(false, 0, 100 + i, 2, payload, plen,
					   &pn_off);
		if (!dp[i].skb || !gp[i].skb)
			goto out;
		dp[i].len = dp[i].skb->len;
		gp[i].len = gp[i].skb->len;
		dp[i].pn_off = pn_off;
		gp[i].pn_off = pn_off;
		dp[i].pn_len = 2;
		gp[i].pn_len = 2;
		dp[i].level = QUIC_CRYPTO_APP;
		gp[i].level = QUIC_CRYPTO_APP;
		dp[i].pn = 100 + i;
		gp[i].pn = 100 + i;
	}
	err = quic_st_batch(def, dp, n, true, NULL) ?:
	      quic_st_batch(gen, gp, n, true, NULL);
	for (i = 0; i < n && !err; i++)
		same = same && !dp[i].err && !gp[i].err &&
		       dp[i].skb->len == gp[i].skb->len &&
		       !memcmp(dp[i].skb->data, gp[i].skb->data,
			       dp[i].skb->len);
	quic_ktap_check(ktap, !err && same,
			"%s: the same packets from both implementations",
			sc->name);

	/* Each reads the other's; a forged packet is refused. */
	gp[n - 1].skb->data[gp[n - 1].skb->len - 1] ^= 0x20;
	err = (quic_st_pkts_unprotect_headers(gen, dp, n) &&
	       quic_st_pkts_unprotect_headers(def, gp, n)) ?
	      quic_st_batch(gen, dp, n, false, NULL) ?:
	      quic_st_batch(def, gp, n, false, NULL) : -EINVAL;
	same = true;
	for (i = 0; i < n && !err; i++)
		same = same && !dp[i].err &&
		       gp[i].err == (i == n - 1 ? -EBADMSG : 0) &&
		       !memcmp(dp[i].skb->data + hlen, payload, QUIC_ST_IMPL_LEN(i)) &&
		       (i == n - 1 ||
			!memcmp(gp[i].skb->data + hlen, payload, QUIC_ST_IMPL_LEN(i)));
	quic_ktap_check(ktap, !err && same,
			"%s: each reads the other's packets, a forgery refused",
			sc->name);

	/* Over page frags, blocks straddling them, against a linear packet. */
	lin = quic_st_packet(false, 0, 7, 2, payload, QUIC_ST_IMPL_PLEN,
			     &pn_off);
	nl = lin ? quic_st_split(lin, hlen, 333) : NULL;
	if (!nl)
		goto out;
	err = quic_st_protect(def, nl, QUIC_CRYPTO_APP, pn_off, 2, 7) ?:
	      quic_st_protect(gen, lin, QUIC_CRYPTO_APP, pn_off, 2, 7) ?:
	      skb_copy_bits(nl, 0, out, nl->len);
	ok = !err && nl->len == lin->len && !memcmp(out, lin->data, lin->len);
	err = quic_st_unprotect(def, nl, QUIC_CRYPTO_APP, pn_off, 2, 7) ?:
	      skb_copy_bits(nl, 0, out, nl->len);
	ok = ok && !err && !memcmp(out + hlen, payload, QUIC_ST_IMPL_PLEN);
	quic_ktap_check(ktap, ok,
			"%s: a packet over page frags, as the generic one writes it",
			sc->name);
out:
	kfree_skb(lin);
	kfree_skb(nl);
	quic_st_pkts_free(dp, n);
	quic_st_pkts_free(gp, n);
	quic_crypto_ctx_free(def);
	quic_crypto_ctx_free(gen);
out_free:
	kfree(out);
	kfree(payload);
	kfree(gp);
	kfree(dp);
	kfree(gen);
	kfree(def);
}

static void quic_st_impl(struct quic_ktap *ktap)
{
	quic_st_impl_cipher(ktap, &quic_st_ciphers[0]);
	quic_st_impl_cipher(ktap, &quic_st_ciphers[1]);
}

/*
 * No allocation on the per-packet path, checked at run time: kprobes on the
 * slab and page allocator entry points count calls made by this task (in
 * task context, so interrupts that happen to hit us are not counted) while
 * packets are protected, unprotected and keys rotated.
 */
static const char * const quic_st_alloc_syms[] = {
	"__kmalloc_noprof", "__kmalloc_node_noprof",
	"__kmalloc_cache_noprof", "__kmalloc_cache_node_noprof",
	"kmem_cache_alloc_noprof", "kmem_cache_alloc_lru_noprof",
	"kmem_cache_alloc_node_noprof", "__kmalloc_large_noprof",
	"__kmalloc_large_node_noprof", "__kmalloc_node_track_caller_noprof",
	"__alloc_pages_noprof", "__vmalloc_node_range_noprof",
};

static struct task_struct *quic_st_alloc_task;
static atomic_t quic_st_allocs;

static int quic_st_alloc_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (READ_ONCE(quic_st_alloc_task) == current && in_task())
		atomic_inc(&quic_st_allocs);
	return 0;
}

/*
 * Submit a batch with bottom halves disabled, as the receive path runs,
 * counting allocations; wait for an async batch only afterwards.
 */
static int quic_st_batch_bh(struct quic_crypto_ctx *ctx,
			    struct quic_crypto_pkt *pkts, unsigned int n,
			    bool enc)
{
	struct quic_crypto_batch batch = {
		.pkts = pkts,
		.n = n,
		.done = quic_st_done,
	};
	struct quic_st_wait w = {};
	int err;

	init_completion(&w.done);
	batch.data = &w;
	local_bh_disable();
	WRITE_ONCE(quic_st_alloc_task, current);
	err = enc ? quic_crypto_encrypt_batch(ctx, &batch) :
		    quic_crypto_decrypt_batch(ctx, &batch);
	WRITE_ONCE(quic_st_alloc_task, NULL);
	local_bh_enable();
	if (err == -EINPROGRESS) {
		wait_for_completion(&w.done);
		err = 0;
	}
	return err;
}

static void quic_st_noalloc(struct quic_ktap *ktap)
{
	unsigned int n = QUIC_CRYPTO_BATCH, i, probes = 0;
	struct quic_crypto_pkt *pkts = NULL;
	struct quic_crypto_ctx *ctx = NULL;
	struct kprobe *kp;
	int err, before;
	void *p;

	kp = kcalloc(ARRAY_SIZE(quic_st_alloc_syms), sizeof(*kp), GFP_KERNEL);
	pkts = kcalloc(n, sizeof(*pkts), GFP_KERNEL);
	ctx = kmalloc(sizeof(*ctx), GFP_KERNEL);
	if (!kp || !pkts || !ctx)
		goto out_free;
	quic_crypto_ctx_init(ctx);
	err = quic_crypto_set_fixed_keys(ctx, QUIC_CRYPTO_APP,
					 TLS_CIPHER_CHACHA20_POLY1305) ?:
	      quic_crypto_set_fixed_keys(ctx, QUIC_CRYPTO_HANDSHAKE,
					 TLS_CIPHER_AES_GCM_256);
	if (err)
		goto out;

	for (i = 0; i < ARRAY_SIZE(quic_st_alloc_syms); i++) {
		kp[i].symbol_name = quic_st_alloc_syms[i];
		kp[i].pre_handler = quic_st_alloc_pre;
		if (!register_kprobe(&kp[i]))
			probes++;
		else
			kp[i].symbol_name = NULL;
	}
	if (!probes) {
		quic_ktap_skip(ktap, "allocation probes see kmalloc",
			       "kprobes unavailable");
		quic_ktap_skip(ktap,
			       "no allocation while protecting, unprotecting and updating keys",
			       "kprobes unavailable");
		goto out;
	}

	/* The probes must see an allocation when there is one. */
	atomic_set(&quic_st_allocs, 0);
	WRITE_ONCE(quic_st_alloc_task, current);
	p = kmalloc(64, GFP_KERNEL);
	WRITE_ONCE(quic_st_alloc_task, NULL);
	kfree(p);
	quic_ktap_check(ktap, atomic_read(&quic_st_allocs) > 0,
			"allocation probes see kmalloc (%u probes)", probes);

	/* Warm up outside the measurement, then measure in BH context. */
	err = quic_st_pkts(pkts, n, QUIC_CRYPTO_HANDSHAKE, true) ?:
	      quic_st_batch(ctx, pkts, n, true, NULL);
	quic_st_pkts_free(pkts, n);
	err = err ?: quic_st_pkts(pkts, n / 2, QUIC_CRYPTO_HANDSHAKE, true) ?:
	      quic_st_pkts(pkts + n / 2, n / 2, QUIC_CRYPTO_APP, false);
	if (err)
		goto out_probes;

	atomic_set(&quic_st_allocs, 0);
	err = quic_st_batch_bh(ctx, pkts, n, true);
	before = atomic_read(&quic_st_allocs);
	local_bh_disable();
	WRITE_ONCE(quic_st_alloc_task, current);
	if (!err && !quic_st_pkts_unprotect_headers(ctx, pkts, n))
		err = -EINVAL;
	WRITE_ONCE(quic_st_alloc_task, NULL);
	local_bh_enable();
	err = err ?: quic_st_batch_bh(ctx, pkts, n, false);
	local_bh_disable();
	WRITE_ONCE(quic_st_alloc_task, current);
	err = err ?: quic_crypto_key_update(ctx, QUIC_CRYPTO_PN_NONE);
	quic_crypto_rx_key(ctx, 0, 5);
	WRITE_ONCE(quic_st_alloc_task, NULL);
	local_bh_enable();

	quic_ktap_check(ktap, !err && quic_st_pkts_ok(pkts, n) && !before &&
			!atomic_read(&quic_st_allocs),
			"no allocation while protecting, unprotecting and updating keys (%d, %d)",
			before, atomic_read(&quic_st_allocs));
	quic_st_pkts_free(pkts, n);
out_probes:
	for (i = 0; i < ARRAY_SIZE(quic_st_alloc_syms); i++)
		if (kp[i].symbol_name)
			unregister_kprobe(&kp[i]);
out:
	quic_crypto_ctx_free(ctx);
out_free:
	kfree(ctx);
	kfree(pkts);
	kfree(kp);
}

void quic_crypto_selftest(struct quic_ktap *ktap)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(quic_st_versions); i++) {
		quic_st_keys(ktap, &quic_st_versions[i]);
		quic_st_initial(ktap, &quic_st_versions[i], true);
		quic_st_initial(ktap, &quic_st_versions[i], false);
		quic_st_retry(ktap, &quic_st_versions[i]);
		quic_st_chacha(ktap, &quic_st_versions[i]);
	}
	quic_st_install(ktap);
	quic_st_ciphers_roundtrip(ktap);
	quic_st_frags(ktap);
	quic_st_short_sample(ktap);
	quic_st_key_update(ktap);
	quic_st_limits(ktap);
	quic_st_batches(ktap);
	quic_st_impl(ktap);
	quic_st_noalloc(ktap);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC packet protection (RFC 9001, RFC 9369): key derivation, AEAD payload
 * protection, header protection, key update, AEAD usage limits and the Retry
 * integrity tag.
 *
 * One struct quic_crypto_ctx lives in each QUIC socket.  It holds one
 * struct quic_crypto per encryption level, allocated when the first secret
 * of that level is installed.  A level has a send (tx) and a receive (rx)
 * direction; each direction keeps its AEAD keys in a small ring of
 * generations (current, next and, for rx, previous) so that a key update is
 * a pointer rotation that can run in softirq context, while everything that
 * allocates or calls setkey runs in process context.
 *
 * Locking: every function below is called with the socket lock held (or
 * from the socket's own backlog processing), except the AEAD completion
 * callbacks, which touch only the packet they complete, atomic counters and
 * the batch they belong to.
 *
 * Per-packet work (quic_crypto_encrypt_batch(), quic_crypto_decrypt_batch(),
 * quic_crypto_unprotect_header(), quic_crypto_rx_key() and
 * quic_crypto_key_update()) never allocates memory: requests, scatterlists
 * and IV buffers are preallocated, per CPU at module load for sync sockets
 * (crypto.c, quic_crypto_cpu_slot), per socket when keys are installed
 * otherwise.
 */

#ifndef _NET_QUIC_CRYPTO_H
#define _NET_QUIC_CRYPTO_H

#include <crypto/aes.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/skbuff.h>
#include <linux/sockptr.h>
#include <linux/types.h>
#include <linux/quic.h>

#include "key_phase.h"

struct crypto_aead;
struct crypto_shash;

#define QUIC_CRYPTO_SECRET_MAX		48	/* SHA-384 output */
#define QUIC_CRYPTO_KEY_MAX		32	/* AES-256, ChaCha20 */
#define QUIC_CRYPTO_IV_LEN		12	/* every QUIC AEAD nonce */
#define QUIC_CRYPTO_TAG_LEN		16	/* every QUIC AEAD tag */
#define QUIC_CRYPTO_SAMPLE_LEN		16	/* header protection sample */
#define QUIC_CRYPTO_PN_MAX_LEN		4
#define QUIC_CRYPTO_CID_MAX_LEN		20
#define QUIC_CRYPTO_SALT_LEN		20
#define QUIC_CRYPTO_BATCH		16	/* packets per batch call */
/* ...before 1-RTT keys: the coalesced packets of one datagram at most. */
#define QUIC_CRYPTO_BATCH_HS		3

/* Marks "no packet number yet" for quic_crypto_key_update(). */
#define QUIC_CRYPTO_PN_NONE		U64_MAX

enum quic_crypto_hash {
	QUIC_CRYPTO_SHA256,
	QUIC_CRYPTO_SHA384,
};

/* HKDF-Expand-Label labels whose text depends on the QUIC version. */
enum quic_crypto_label {
	QUIC_CRYPTO_LABEL_KEY,
	QUIC_CRYPTO_LABEL_IV,
	QUIC_CRYPTO_LABEL_HP,
	QUIC_CRYPTO_LABEL_KU,
	QUIC_CRYPTO_LABEL_MAX,
};

/*
 * A cipher suite, one entry of the descriptor table in crypto.c.  The limits
 * are those of RFC 9001 §6.6: conf_limit packets may be encrypted with one
 * key, integ_limit packets may fail authentication per connection.
 */
struct quic_cipher {
	u32		type;		/* TLS_CIPHER_* from <linux/tls.h> */
	const char	*aead_name;	/* crypto API AEAD */
	const char	*simd_name;	/* internal SIMD AEAD, tried first */
	u8		hash;		/* enum quic_crypto_hash */
	u8		secretlen;
	u8		keylen;
	u8		hplen;
	bool		hp_chacha;	/* ChaCha20 header protection */
	bool		ccm;		/* 16-byte CCM IV layout */
	u64		conf_limit;
	u64		integ_limit;
};

/* One generation of AEAD keys (key phase) of one direction. */
struct quic_crypto_key {
	struct crypto_aead	*aead;		/* keyed with this generation */
	u8			secret[QUIC_CRYPTO_SECRET_MAX];
	u8			iv[QUIC_CRYPTO_IV_LEN];
	bool			ready;		/* usable for packets */
	bool			simd;		/* aead is an internal SIMD one */
	atomic64_t		packets;	/* encrypted, or decrypted fine */
};

/* A ring of generations: tx uses two (cur, next), rx three (+ prev). */
#define QUIC_CRYPTO_GENS	3

struct quic_crypto_dir {
	const struct quic_cipher	*cipher;	/* NULL: not installed */
	const char			*aead_name;	/* crypto API name */
	const char			*simd_name;	/* or NULL */
	bool				async;		/* async AEAD allowed */
	struct quic_crypto_key		gen[QUIC_CRYPTO_GENS];
	u8				ngen;
	u8				cur;		/* index of the current gen */
	/* Header protection key: an AES key schedule, or ChaCha20's key. */
	union {
		struct crypto_aes_ctx	aes;
		u32			chacha[QUIC_CRYPTO_KEY_MAX / 4];
	} hp;
};

/* One encryption level (Initial, 0-RTT, Handshake, 1-RTT). */
struct quic_crypto {
	struct quic_crypto_dir	tx;
	struct quic_crypto_dir	rx;
	u8			level;		/* enum quic_crypto_level */
	u8			key_phase;	/* 1-RTT: phase of the current keys */
	/*
	 * 1-RTT: lowest packet number decrypted with the current rx keys, to
	 * tell a delayed packet of the previous phase from one of the next
	 * phase (RFC 9001 §6.5).
	 */
	atomic64_t		rx_first_pn;
};

struct quic_crypto_pool;

/* The per-socket state. */
struct quic_crypto_ctx {
	struct quic_crypto	*level[QUIC_CRYPTO_MAX];
	u32			version;	/* selects salts and labels */
	bool			async;		/* see quic_crypto_set_async() */
	u64			integ_limit;	/* lowest of the rx ciphers' */
	atomic64_t		auth_failed;	/* all levels and keys */
	/* Async: in-flight AEAD requests plus one, see quic_crypto_wait(). */
	atomic_t		pending;
	struct completion	idle;
	unsigned long		busy;		/* bit 0 tx, 1 rx: a batch runs */
	/* tx, rx request slots; NULL: the CPU's slot serves (crypto.c) */
	struct quic_crypto_pool	*pool[2];
};

/*
 * One packet of a batch.  The packet lies at skb->data + off, len bytes long
 * including its header and the 16-byte tag; the caller makes these bytes
 * writable (not shared with a clone) and the header linear up to the end of
 * the packet number (pskb_may_pull(); on rx pulling pn_off + 4 is simplest
 * as the packet number length is not known before header protection is
 * removed).  Payload and tag may be in page frags or a frag_list.
 *
 * Tx: the header is final with its packet number in clear, the payload
 * follows and the last 16 bytes receive the tag.  The call encrypts in place
 * and then applies header protection.
 * Rx: header protection has been removed by quic_crypto_unprotect_header(),
 * pn holds the decoded packet number and key the keys chosen by
 * quic_crypto_rx_key().  The call decrypts in place: on success the payload
 * is plaintext, on -EBADMSG the packet must be dropped.
 */
struct quic_crypto_pkt {
	struct sk_buff	*skb;
	unsigned int	off;
	unsigned int	len;
	u16		pn_off;		/* packet number offset in the packet */
	u8		pn_len;		/* 1..4; set by unprotect_header on rx */
	u8		level;		/* enum quic_crypto_level */
	u8		key;		/* enum quic_crypto_key_role, rx only */
	u64		pn;
	int		err;		/* result: 0, -EBADMSG, -ENOKEY, ... */
};

/*
 * A batch of up to QUIC_CRYPTO_BATCH packets of one direction.  The caller
 * owns it and fills pkts, n, done and data.  done is required on a socket in
 * async mode and optional otherwise.  See quic_crypto_encrypt_batch().
 */
struct quic_crypto_batch {
	struct quic_crypto_pkt	*pkts;
	unsigned int		n;
	void			(*done)(struct quic_crypto_batch *batch);
	void			*data;		/* for the caller */
	/* private to crypto.c */
	struct quic_crypto_ctx	*ctx;
	atomic_t		pending;
	bool			encrypt;
};

/* crypto.c: life cycle, installing keys, key update, limits, AEAD */
int quic_crypto_init(void);
void quic_crypto_exit(void);
void quic_crypto_ctx_init(struct quic_crypto_ctx *ctx);
void quic_crypto_ctx_free(struct quic_crypto_ctx *ctx);
int quic_crypto_set_version(struct quic_crypto_ctx *ctx, u32 version);
void quic_crypto_set_async(struct quic_crypto_ctx *ctx, bool async);
const struct quic_cipher *quic_crypto_cipher(u32 type);
int quic_crypto_set_secret(struct quic_crypto_ctx *ctx,
			   const struct quic_crypto_secret *secret);
int quic_crypto_setsockopt_secret(struct quic_crypto_ctx *ctx,
				  sockptr_t optval, unsigned int optlen);
int __quic_crypto_install(struct quic_crypto_ctx *ctx, u8 level, bool send,
			  const struct quic_cipher *cipher, const u8 *secret,
			  const char *aead_name);
int quic_crypto_set_initial(struct quic_crypto_ctx *ctx, const u8 *dcid,
			    unsigned int dcid_len, bool is_server);
int quic_crypto_set_fixed_keys(struct quic_crypto_ctx *ctx, u8 level,
			       u32 type);
void quic_crypto_discard(struct quic_crypto_ctx *ctx, u8 level);
bool quic_crypto_ready(const struct quic_crypto_ctx *ctx, u8 level, bool send);
u8 quic_crypto_levels(const struct quic_crypto_ctx *ctx);
void quic_crypto_wait(struct quic_crypto_ctx *ctx);

u8 quic_crypto_key_phase(const struct quic_crypto_ctx *ctx);
enum quic_crypto_key_role quic_crypto_rx_key(struct quic_crypto_ctx *ctx,
					     u8 key_phase, u64 pn);
int quic_crypto_key_update(struct quic_crypto_ctx *ctx, u64 first_pn);
int quic_crypto_key_update_prepare(struct quic_crypto_ctx *ctx);
bool quic_crypto_key_update_ready(const struct quic_crypto_ctx *ctx);
void quic_crypto_key_discard_prev(struct quic_crypto_ctx *ctx);

bool quic_crypto_conf_limit_reached(const struct quic_crypto_ctx *ctx,
				    u8 level);
u64 quic_crypto_tx_packets(const struct quic_crypto_ctx *ctx);
u64 quic_crypto_conf_limit(const struct quic_crypto_ctx *ctx);
u64 quic_crypto_auth_failed(const struct quic_crypto_ctx *ctx);
bool quic_crypto_integ_limit_reached(const struct quic_crypto_ctx *ctx);

int quic_crypto_encrypt_batch(struct quic_crypto_ctx *ctx,
			      struct quic_crypto_batch *batch);
int quic_crypto_decrypt_batch(struct quic_crypto_ctx *ctx,
			      struct quic_crypto_batch *batch);

/* crypto_hp.c: header protection */
int quic_crypto_hp_setup(struct quic_crypto_dir *dir,
			 const struct quic_cipher *cipher, const u8 *hp);
void quic_crypto_hp_free(struct quic_crypto_dir *dir);
void quic_crypto_hp_mask(const struct quic_crypto_dir *dir, const u8 *sample,
			 u8 *mask);
int quic_crypto_protect_header(struct quic_crypto_ctx *ctx,
			       const struct quic_crypto_pkt *pkt);
int quic_crypto_unprotect_header(struct quic_crypto_ctx *ctx,
				 struct quic_crypto_pkt *pkt, u32 *trunc_pn,
				 u8 *key_phase);

/*
 * crypto_hkdf.c: HKDF (RFC 5869) and TLS 1.3 HKDF-Expand-Label, on
 * transforms of the module (quic_hkdf_init()); @hash is an enum
 * quic_crypto_hash.
 */
int quic_hkdf_init(void);
void quic_hkdf_exit(void);
int quic_hkdf_extract(u8 hash, const u8 *salt, unsigned int saltlen,
		      const u8 *ikm, unsigned int ikmlen, u8 *prk);
int quic_hkdf_expand_label(u8 hash, const u8 *secret, unsigned int secretlen,
			   const char *label, u8 *out, unsigned int outlen);
const char *quic_crypto_label(u32 version, enum quic_crypto_label label);
const u8 *quic_crypto_initial_salt(u32 version);
int quic_crypto_initial_secrets(u32 version, const u8 *dcid,
				unsigned int dcid_len, u8 *client, u8 *server);
int quic_crypto_derive(u32 version, const struct quic_cipher *cipher,
		       const u8 *secret, u8 *key, u8 *iv, u8 *hp);

/* crypto_retry.c: the Retry integrity tag (RFC 9001 §5.8, RFC 9369 §3.3.3) */
int quic_crypto_retry_tag(u32 version, const u8 *odcid,
			  unsigned int odcid_len, const u8 *pkt,
			  unsigned int len, u8 *tag);
int quic_crypto_retry_verify(u32 version, const u8 *odcid,
			     unsigned int odcid_len, const u8 *pkt,
			     unsigned int len);

#endif /* _NET_QUIC_CRYPTO_H */

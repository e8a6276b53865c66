// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC packet protection: installing secrets, AEAD payload protection in
 * batches, key update and the AEAD usage limits (RFC 9001 §5 and §6).
 *
 * Contexts.  Installing keys, preparing the next key generation and
 * discarding a level run in process context under the socket lock: they
 * allocate transforms (GFP_KERNEL) and call setkey, which for some AEADs
 * (the generic gcm template) allocates and may sleep.  The per-packet
 * functions (the batches, header protection, key selection and the key
 * update commit) may run in softirq context and use only memory allocated
 * beforehand: the request pool below, the transforms and stack buffers.
 *
 * Async crypto, as kTLS does it: every request carries a completion
 * callback and CRYPTO_TFM_REQ_MAY_BACKLOG; -EINPROGRESS and -EBUSY both mean
 * "will complete later".  A batch counts its requests in flight
 * (batch->pending, biased by one while it is being submitted) and the socket
 * counts all of them (ctx->pending, biased by one forever) so that process
 * context can wait until nothing uses a transform before rekeying or freeing
 * it (quic_crypto_wait()).  With a synchronous AEAD every request completes
 * inside the submission and a batch call simply returns 0.
 *
 * A socket is in sync mode unless quic_crypto_set_async() says otherwise:
 * its AEADs are then allocated synchronous only (CRYPTO_ALG_ASYNC in the
 * mask), so a caller that cannot wait for a callback never sees
 * -EINPROGRESS.  On x86 the AES-NI GCM is offered as an async algorithm
 * only; sync sockets take its inner algorithm directly, see
 * quic_crypto_aead_alloc().
 */

#include <crypto/aead.h>
#include <crypto/hash.h>
#include <crypto/internal/simd.h>
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/percpu.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tls.h>
#include <asm/simd.h>

#include "crypto.h"

/* Enough for a packet spread over the head and every frag of an skb. */
#define QUIC_CRYPTO_MAX_SG	(MAX_SKB_FRAGS + 2)
#define QUIC_CRYPTO_SG_DEPTH	4	/* nested frag_list levels we walk */
#define QUIC_CRYPTO_AEAD_IV_MAX	16	/* ccm(aes) wants 16 */

/* 2^21.5, RFC 9001 §6.6 and §B.2 */
#define QUIC_CRYPTO_CCM_LIMIT	2965820ULL

static const struct quic_cipher quic_ciphers[] = {
	{
		.type		= TLS_CIPHER_AES_GCM_128,
		.aead_name	= "gcm(aes)",
		.simd_name	= "__gcm(aes)",
		.hash		= QUIC_CRYPTO_SHA256,
		.secretlen	= 32,
		.keylen		= 16,
		.hplen		= 16,
		.conf_limit	= 1ULL << 23,
		.integ_limit	= 1ULL << 52,
	},
	{
		.type		= TLS_CIPHER_AES_GCM_256,
		.aead_name	= "gcm(aes)",
		.simd_name	= "__gcm(aes)",
		.hash		= QUIC_CRYPTO_SHA384,
		.secretlen	= 48,
		.keylen		= 32,
		.hplen		= 32,
		.conf_limit	= 1ULL << 23,
		.integ_limit	= 1ULL << 52,
	},
	{
		.type		= TLS_CIPHER_CHACHA20_POLY1305,
		.aead_name	= "rfc7539(chacha20,poly1305)",
		.hash		= QUIC_CRYPTO_SHA256,
		.secretlen	= 32,
		.keylen		= 32,
		.hplen		= 32,
		.hp_chacha	= true,
		/* more than the 2^62 packet numbers: no limit */
		.conf_limit	= U64_MAX,
		.integ_limit	= 1ULL << 36,
	},
	{
		.type		= TLS_CIPHER_AES_CCM_128,
		.aead_name	= "ccm(aes)",
		.hash		= QUIC_CRYPTO_SHA256,
		.secretlen	= 32,
		.keylen		= 16,
		.hplen		= 16,
		.ccm		= true,
		.conf_limit	= QUIC_CRYPTO_CCM_LIMIT,
		.integ_limit	= QUIC_CRYPTO_CCM_LIMIT,
	},
};

/* One AEAD request with everything it points to. */
struct quic_crypto_slot {
	struct quic_crypto_batch	*batch;
	struct quic_crypto_pkt		*pkt;
	struct quic_crypto		*c;
	struct quic_crypto_key		*key;
	unsigned int			nsg;
	u8				iv[QUIC_CRYPTO_AEAD_IV_MAX];
	struct scatterlist		sg[QUIC_CRYPTO_MAX_SG];
	struct aead_request		req;	/* last: tfm context follows */
};

/*
 * The requests of one direction, one per packet of a batch.  Each slot is
 * its own kmalloc() so that hardware drivers may DMA from the request
 * context.  One batch at a time per direction (ctx->busy).  A slot takes 1
 * to 2 kB (under 1 kB with the AES-NI GCM, whose requests need no
 * context), so a connection gets only QUIC_CRYPTO_BATCH_HS of them until
 * its 1-RTT keys are in: a server keeps many connections in their
 * handshake, and their memory is bounded by their number (socket.c,
 * pending connections).  In sync mode every request completes before the
 * next one is submitted, so one slot serves the whole batch, in turn: a
 * pool of sync transforms only has one (an idle connection kept 32 slots,
 * 64 kB, before), and mostly none at all, see quic_crypto_cpu_slot.
 */
struct quic_crypto_pool {
	unsigned int		reqsize;
	unsigned int		nslots;
	struct quic_crypto_slot	*slot[QUIC_CRYPTO_BATCH];
};

/*
 * Sync mode: one slot per CPU for all sockets.  A synchronous request is
 * finished when crypto_aead_encrypt()/decrypt() returns, and a packet is
 * submitted with bottom halves off (quic_crypto_batch_run()), so nothing
 * else on this CPU (our softirqs included; on PREEMPT_RT the BH lock) can
 * use the CPU's slot between filling it and the request's end: each socket
 * then needs no request memory of its own, which was two 1 kB slots of
 * every idle connection.  The slots are kmalloc()ed like the sockets' own
 * (request contexts may be given to sg_set_buf()), each large enough for a
 * request context of QUIC_CRYPTO_CPU_REQSIZE bytes: the AES-NI GCM needs
 * none, the generic templates about 1 kB.  A transform wanting more, an
 * async socket, or a module whose slots could not be allocated, uses a
 * pool of the socket's own as before.
 */
#define QUIC_CRYPTO_CPU_SLOT_SIZE	4096
#define QUIC_CRYPTO_CPU_REQSIZE		\
	(QUIC_CRYPTO_CPU_SLOT_SIZE - sizeof(struct quic_crypto_slot))

static DEFINE_PER_CPU(struct quic_crypto_slot *, quic_crypto_cpu_slot);
static bool quic_crypto_cpu_slots;	/* every possible CPU has one */

/*
 * The levels' struct quic_crypto, about 1.5 kB with the two header
 * protection key schedules: a cache of their own packs 21 in 32 kB, where
 * kmalloc() would round each up to 2 kB.  An idle connection holds one per
 * side (the 1-RTT level).
 */
static struct kmem_cache *quic_crypto_cache;

static void quic_crypto_slots_free(void)
{
	int cpu;

	quic_crypto_cpu_slots = false;
	for_each_possible_cpu(cpu) {
		kfree_sensitive(per_cpu(quic_crypto_cpu_slot, cpu));
		per_cpu(quic_crypto_cpu_slot, cpu) = NULL;
	}
}

int quic_crypto_init(void)
{
	struct quic_crypto_slot *s;
	int cpu, err;

	err = quic_hkdf_init();
	if (err)
		return err;
	quic_crypto_cache = KMEM_CACHE(quic_crypto, 0);
	if (!quic_crypto_cache) {
		quic_hkdf_exit();
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		s = kzalloc_node(QUIC_CRYPTO_CPU_SLOT_SIZE, GFP_KERNEL,
				 cpu_to_node(cpu));
		if (!s) {
			/* Degrade: every socket allocates its own slots. */
			quic_crypto_slots_free();
			return 0;
		}
		per_cpu(quic_crypto_cpu_slot, cpu) = s;
	}
	quic_crypto_cpu_slots = true;
	return 0;
}

void quic_crypto_exit(void)
{
	quic_crypto_slots_free();
	kmem_cache_destroy(quic_crypto_cache);
	quic_crypto_cache = NULL;
	quic_hkdf_exit();
}

const struct quic_cipher *quic_crypto_cipher(u32 type)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(quic_ciphers); i++)
		if (quic_ciphers[i].type == type)
			return &quic_ciphers[i];
	return NULL;
}

static struct quic_crypto_key *quic_crypto_gen(struct quic_crypto_dir *dir,
					       enum quic_crypto_key_role role)
{
	switch (role) {
	case QUIC_CRYPTO_KEY_CUR:
		return &dir->gen[dir->cur];
	case QUIC_CRYPTO_KEY_NEXT:
		return &dir->gen[(dir->cur + 1) % dir->ngen];
	case QUIC_CRYPTO_KEY_PREV:
		if (dir->ngen < QUIC_CRYPTO_GENS)
			return NULL;	/* tx keeps no previous keys */
		return &dir->gen[(dir->cur + dir->ngen - 1) % dir->ngen];
	}
	return NULL;
}

void quic_crypto_ctx_init(struct quic_crypto_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->version = QUIC_VERSION_V1;
	ctx->async = false;
	ctx->integ_limit = U64_MAX;
	atomic64_set(&ctx->auth_failed, 0);
	atomic_set(&ctx->pending, 1);
	init_completion(&ctx->idle);
}

/* Process context: wait until no AEAD request of this socket is in flight. */
void quic_crypto_wait(struct quic_crypto_ctx *ctx)
{
	might_sleep();
	if (!atomic_dec_and_test(&ctx->pending))
		wait_for_completion(&ctx->idle);
	reinit_completion(&ctx->idle);
	atomic_inc(&ctx->pending);
}

int quic_crypto_set_version(struct quic_crypto_ctx *ctx, u32 version)
{
	if (version != QUIC_VERSION_V1 && version != QUIC_VERSION_V2)
		return -EINVAL;
	ctx->version = version;
	return 0;
}

/*
 * Async mode: AEADs installed from now on may complete later, and every
 * batch must then carry a done callback.  Call it before installing keys.
 */
void quic_crypto_set_async(struct quic_crypto_ctx *ctx, bool async)
{
	ctx->async = async;
}

/* Forget a generation's keys but keep its transform for reuse. */
static void quic_crypto_key_retire(struct quic_crypto_key *k)
{
	k->ready = false;
	memzero_explicit(k->secret, sizeof(k->secret));
	memzero_explicit(k->iv, sizeof(k->iv));
}

static void quic_crypto_dir_free(struct quic_crypto_dir *dir)
{
	unsigned int i;

	for (i = 0; i < QUIC_CRYPTO_GENS; i++) {
		/* crypto_free_aead() zeroizes the transform's key schedule. */
		if (dir->gen[i].aead)
			crypto_free_aead(dir->gen[i].aead);
		dir->gen[i].aead = NULL;
		dir->gen[i].simd = false;
		quic_crypto_key_retire(&dir->gen[i]);
	}
	quic_crypto_hp_free(dir);
	dir->cipher = NULL;
}

/*
 * The fast AES-GCM of x86 (aesni-intel: AES-NI and PCLMULQDQ, with AVX
 * where present) is registered twice: as "__gcm(aes)", an internal
 * synchronous algorithm that takes the FPU itself (kernel_fpu_begin()), and
 * as "gcm(aes)" behind crypto/simd.c's async wrapper, which hands a request
 * to cryptd when the FPU cannot be used where it is called.  A synchronous
 * "gcm(aes)" is thus the generic template: generic AES and ghash-generic,
 * slow, and with a 4 KB multiplication table per key, 16 KB of an idle
 * connection's memory per side.
 *
 * Why calling the internal algorithm is safe: its contract is the one the
 * wrapper keeps in its own fast path, call it only where
 * crypto_simd_usable() is true, and quic_crypto_submit() checks that for
 * every packet before the request is made.  On x86 it is true in task
 * context, and in softirq context unless the softirq interrupted a kernel
 * FPU section: in 6.12 kernel_fpu_begin() disables preemption only, so a
 * softirq run on an interrupt's exit may find this CPU's FPU taken.  Our
 * own task-context calls keep bottom halves off across the AEAD, so our
 * softirqs never land inside them; an FPU section of other kernel code
 * (checksums, other crypto) can still be interrupted so, rarely.  Then the
 * packet fails with -EAGAIN: a tx packet's frames go back to their queue
 * and sending is retried from the pace timer (output.c), an rx packet is
 * dropped (counted as undecryptable, not as a forgery) and the peer sends
 * it again.  We keep no generic transform for that case: its GHASH table
 * is the memory this saves.  Its setkey has a fallback of its own and may
 * run anywhere.
 *
 * Elsewhere (no AES-NI, other architectures, where a sync "gcm(aes)" is
 * already the fastest there is, as arm64's) the lookup fails and the
 * suite's own name is used.  A failed lookup asks for modules
 * (request_module() for the name and for a "__gcm" template), so the
 * first -ENOENT is remembered for the module's lifetime: key installs of
 * later connections go straight to the suite's name.  Async sockets use
 * the suite's name too (the wrapper is what they want), and so does an
 * install naming its own implementation (the self-tests).
 */
static bool quic_crypto_no_simd;

static struct crypto_aead *quic_crypto_aead_alloc(struct quic_crypto_dir *dir,
						  bool *simd)
{
	struct crypto_aead *tfm;

	*simd = false;
	if (!dir->async && dir->simd_name && !READ_ONCE(quic_crypto_no_simd)) {
		tfm = crypto_alloc_aead(dir->simd_name, CRYPTO_ALG_INTERNAL,
					CRYPTO_ALG_INTERNAL | CRYPTO_ALG_ASYNC);
		if (!IS_ERR(tfm)) {
			*simd = true;
			return tfm;
		}
		if (PTR_ERR(tfm) == -ENOENT)
			WRITE_ONCE(quic_crypto_no_simd, true);
	}
	return crypto_alloc_aead(dir->aead_name, 0,
				 dir->async ? 0 : CRYPTO_ALG_ASYNC);
}

/* Process context: key a generation, allocating its transform if needed. */
static int quic_crypto_key_set(struct quic_crypto_dir *dir,
			       struct quic_crypto_key *k, const u8 *secret,
			       const u8 *key, const u8 *iv)
{
	const struct quic_cipher *cipher = dir->cipher;
	struct crypto_aead *tfm = k->aead;
	int err;

	k->ready = false;
	if (!tfm) {
		tfm = quic_crypto_aead_alloc(dir, &k->simd);
		if (IS_ERR(tfm))
			return PTR_ERR(tfm);
		k->aead = tfm;
	}
	err = crypto_aead_setauthsize(tfm, QUIC_CRYPTO_TAG_LEN);
	if (err)
		return err;
	err = crypto_aead_setkey(tfm, key, cipher->keylen);
	if (err)
		return err;
	memcpy(k->secret, secret, cipher->secretlen);
	memcpy(k->iv, iv, QUIC_CRYPTO_IV_LEN);
	atomic64_set(&k->packets, 0);
	k->ready = true;
	return 0;
}

/*
 * Process context: derive the next generation from the current one, RFC
 * 9001 §6.1: secret_<n+1> = HKDF-Expand-Label(secret_<n>, "quic ku", "",
 * Hash.length).  The header protection key does not change.
 */
static int quic_crypto_dir_prepare(u32 version, struct quic_crypto_dir *dir)
{
	struct quic_crypto_key *cur = quic_crypto_gen(dir, QUIC_CRYPTO_KEY_CUR);
	struct quic_crypto_key *next = quic_crypto_gen(dir, QUIC_CRYPTO_KEY_NEXT);
	const struct quic_cipher *cipher = dir->cipher;
	u8 secret[QUIC_CRYPTO_SECRET_MAX];
	u8 key[QUIC_CRYPTO_KEY_MAX];
	u8 iv[QUIC_CRYPTO_IV_LEN];
	int err;

	if (next->ready)
		return 0;
	err = quic_hkdf_expand_label(cipher->hash, cur->secret,
				     cipher->secretlen,
				     quic_crypto_label(version,
						       QUIC_CRYPTO_LABEL_KU),
				     secret, cipher->secretlen);
	if (err)
		goto out;
	err = quic_crypto_derive(version, cipher, secret, key, iv, NULL);
	if (err)
		goto out;
	err = quic_crypto_key_set(dir, next, secret, key, iv);
out:
	memzero_explicit(secret, sizeof(secret));
	memzero_explicit(key, sizeof(key));
	memzero_explicit(iv, sizeof(iv));
	return err;
}

static void quic_crypto_pool_free(struct quic_crypto_pool *pool)
{
	unsigned int i;

	if (!pool)
		return;
	for (i = 0; i < QUIC_CRYPTO_BATCH; i++)
		kfree_sensitive(pool->slot[i]);
	kfree(pool);
}

/*
 * Process context: make the pool of a direction fit @dir's transforms, and
 * batches of @nslots packets.
 */
static int quic_crypto_pool_reserve(struct quic_crypto_ctx *ctx, bool send,
				    const struct quic_crypto_dir *dir,
				    unsigned int nslots)
{
	struct quic_crypto_pool **pp = &ctx->pool[send ? 0 : 1];
	struct quic_crypto_pool *pool;
	unsigned int i, reqsize = 0;

	if (!ctx->async)
		nslots = 1;	/* reused packet after packet */
	for (i = 0; i < QUIC_CRYPTO_GENS; i++)
		if (dir->gen[i].aead)
			reqsize = max(reqsize,
				      crypto_aead_reqsize(dir->gen[i].aead));
	/* The CPU's slot serves, see quic_crypto_cpu_slot. */
	if (!*pp && !ctx->async && quic_crypto_cpu_slots &&
	    reqsize <= QUIC_CRYPTO_CPU_REQSIZE)
		return 0;
	if (*pp) {
		if ((*pp)->reqsize >= reqsize && (*pp)->nslots >= nslots)
			return 0;
		/* The other levels' transforms keep using it. */
		reqsize = max(reqsize, (*pp)->reqsize);
		nslots = max(nslots, (*pp)->nslots);
	}

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return -ENOMEM;
	pool->reqsize = reqsize;
	pool->nslots = nslots;
	for (i = 0; i < nslots; i++) {
		pool->slot[i] = kzalloc(sizeof(*pool->slot[i]) + reqsize,
					GFP_KERNEL);
		if (!pool->slot[i]) {
			quic_crypto_pool_free(pool);
			return -ENOMEM;
		}
	}

	quic_crypto_wait(ctx);
	quic_crypto_pool_free(*pp);
	*pp = pool;
	return 0;
}

static struct quic_crypto *quic_crypto_level_get(struct quic_crypto_ctx *ctx,
						 u8 level)
{
	struct quic_crypto *c = ctx->level[level];

	if (c)
		return c;
	c = kmem_cache_zalloc(quic_crypto_cache, GFP_KERNEL);
	if (!c)
		return NULL;
	c->level = level;
	c->tx.ngen = QUIC_CRYPTO_GENS - 1;
	c->rx.ngen = QUIC_CRYPTO_GENS;
	atomic64_set(&c->rx_first_pn, QUIC_CRYPTO_PN_NONE);
	WRITE_ONCE(ctx->level[level], c);	/* read by quic_crypto_levels() */
	return c;
}

/*
 * Install the secret of one direction of one level and derive its keys;
 * 1-RTT also gets its next generation ready for a key update.  The new keys
 * are built aside and swapped in only when complete, so a failure leaves the
 * old ones in place.  @aead_name overrides the suite's AEAD implementation
 * (self-tests use it to force an async one); NULL for the default.
 */
int __quic_crypto_install(struct quic_crypto_ctx *ctx, u8 level, bool send,
			  const struct quic_cipher *cipher, const u8 *secret,
			  const char *aead_name)
{
	u8 key[QUIC_CRYPTO_KEY_MAX], hp[QUIC_CRYPTO_KEY_MAX];
	struct quic_crypto_dir *dir, *old;
	u8 iv[QUIC_CRYPTO_IV_LEN];
	struct quic_crypto *c;
	int err;

	if (level >= QUIC_CRYPTO_MAX || !cipher)
		return -EINVAL;
	c = quic_crypto_level_get(ctx, level);
	if (!c)
		return -ENOMEM;

	dir = kzalloc(sizeof(*dir), GFP_KERNEL);
	if (!dir)
		return -ENOMEM;
	dir->cipher = cipher;
	dir->aead_name = aead_name ?: cipher->aead_name;
	dir->simd_name = aead_name ? NULL : cipher->simd_name;
	dir->async = ctx->async;
	dir->ngen = send ? c->tx.ngen : c->rx.ngen;

	err = quic_crypto_derive(ctx->version, cipher, secret, key, iv, hp);
	if (err)
		goto out;
	err = quic_crypto_hp_setup(dir, cipher, hp);
	if (err)
		goto out;
	err = quic_crypto_key_set(dir, &dir->gen[0], secret, key, iv);
	if (err)
		goto out;
	if (level == QUIC_CRYPTO_APP) {
		err = quic_crypto_dir_prepare(ctx->version, dir);
		if (err)
			goto out;
	}
	err = quic_crypto_pool_reserve(ctx, send, dir,
				       level == QUIC_CRYPTO_APP ?
				       QUIC_CRYPTO_BATCH : QUIC_CRYPTO_BATCH_HS);
	if (err)
		goto out;

	/* Nothing may use the old transforms while they are freed. */
	quic_crypto_wait(ctx);
	old = send ? &c->tx : &c->rx;
	quic_crypto_dir_free(old);
	*old = *dir;
	memset(dir, 0, sizeof(*dir));	/* now owned by the level */
	if (level == QUIC_CRYPTO_APP) {
		c->key_phase = 0;
		atomic64_set(&c->rx_first_pn, QUIC_CRYPTO_PN_NONE);
	}
	if (!send)
		ctx->integ_limit = min(ctx->integ_limit, cipher->integ_limit);
out:
	memzero_explicit(key, sizeof(key));
	memzero_explicit(iv, sizeof(iv));
	memzero_explicit(hp, sizeof(hp));
	quic_crypto_dir_free(dir);
	kfree_sensitive(dir);
	return err;
}

int quic_crypto_set_secret(struct quic_crypto_ctx *ctx,
			   const struct quic_crypto_secret *s)
{
	const struct quic_cipher *cipher;

	if (s->level >= QUIC_CRYPTO_MAX || s->send > 1 || s->reserved)
		return -EINVAL;
	cipher = quic_crypto_cipher(s->type);
	if (!cipher)
		return -EINVAL;
	/*
	 * The secret is the first secretlen bytes of the 48-byte buffer, its
	 * length being fixed by the suite's hash; the rest is ignored.
	 */
	return __quic_crypto_install(ctx, s->level, s->send, cipher, s->secret,
				     NULL);
}

/* QUIC_SOCKOPT_CRYPTO_SECRET; the caller holds the socket lock. */
int quic_crypto_setsockopt_secret(struct quic_crypto_ctx *ctx,
				  sockptr_t optval, unsigned int optlen)
{
	struct quic_crypto_secret s;
	int err;

	if (optlen != sizeof(s))
		return -EINVAL;
	if (copy_from_sockptr(&s, optval, sizeof(s)))
		return -EFAULT;
	err = quic_crypto_set_secret(ctx, &s);
	memzero_explicit(&s, sizeof(s));
	return err;
}

/*
 * Initial keys (RFC 9001 §5.2) from the client's first Destination
 * Connection ID, for the version set by quic_crypto_set_version().  A
 * client after Retry, or either side after compatible version negotiation,
 * calls this again to replace them.
 */
int quic_crypto_set_initial(struct quic_crypto_ctx *ctx, const u8 *dcid,
			    unsigned int dcid_len, bool is_server)
{
	const struct quic_cipher *cipher;
	u8 client[32], server[32];
	int err;

	cipher = quic_crypto_cipher(TLS_CIPHER_AES_GCM_128);
	err = quic_crypto_initial_secrets(ctx->version, dcid, dcid_len,
					  client, server);
	if (err)
		goto out;
	err = __quic_crypto_install(ctx, QUIC_CRYPTO_INITIAL, true, cipher,
				    is_server ? server : client, NULL);
	if (err)
		goto out;
	err = __quic_crypto_install(ctx, QUIC_CRYPTO_INITIAL, false, cipher,
				    is_server ? client : server, NULL);
out:
	memzero_explicit(client, sizeof(client));
	memzero_explicit(server, sizeof(server));
	return err;
}

/*
 * The test seam: an all-zero secret in both directions of @level, as kTLS
 * self-tests install zeroed keys.  Two sockets that both do this protect
 * packets the other can read, so socket tests can run without a handshake.
 * Real packet protection still runs; only the secrets are not secret.
 */
int quic_crypto_set_fixed_keys(struct quic_crypto_ctx *ctx, u8 level,
			       u32 type)
{
	static const u8 zero[QUIC_CRYPTO_SECRET_MAX];
	const struct quic_cipher *cipher = quic_crypto_cipher(type);
	int err;

	if (!cipher)
		return -EINVAL;
	err = __quic_crypto_install(ctx, level, true, cipher, zero, NULL);
	if (err)
		return err;
	return __quic_crypto_install(ctx, level, false, cipher, zero, NULL);
}

/*
 * Process context: drop a level's keys (RFC 9001 §4.9), transforms
 * included.  Lookups of the level then find no keys (-ENOKEY, not ready).
 */
void quic_crypto_discard(struct quic_crypto_ctx *ctx, u8 level)
{
	struct quic_crypto *c;

	if (level >= QUIC_CRYPTO_MAX || !ctx->level[level])
		return;
	quic_crypto_wait(ctx);
	c = ctx->level[level];
	WRITE_ONCE(ctx->level[level], NULL);
	quic_crypto_dir_free(&c->tx);
	quic_crypto_dir_free(&c->rx);
	memzero_explicit(c, sizeof(*c));
	kmem_cache_free(quic_crypto_cache, c);
}

void quic_crypto_ctx_free(struct quic_crypto_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < QUIC_CRYPTO_MAX; i++)
		quic_crypto_discard(ctx, i);
	quic_crypto_wait(ctx);
	quic_crypto_pool_free(ctx->pool[0]);
	quic_crypto_pool_free(ctx->pool[1]);
	ctx->pool[0] = NULL;
	ctx->pool[1] = NULL;
}

/*
 * The levels that hold keys, a bit per enum quic_crypto_level: for
 * /proc/net/quic, which reads it without the socket lock.
 */
u8 quic_crypto_levels(const struct quic_crypto_ctx *ctx)
{
	u8 mask = 0;
	int i;

	for (i = 0; i < QUIC_CRYPTO_MAX; i++)
		if (READ_ONCE(ctx->level[i]))
			mask |= BIT(i);
	return mask;
}

bool quic_crypto_ready(const struct quic_crypto_ctx *ctx, u8 level, bool send)
{
	const struct quic_crypto *c;

	if (level >= QUIC_CRYPTO_MAX)
		return false;
	c = ctx->level[level];
	return c && (send ? c->tx.cipher : c->rx.cipher);
}

/* The Key Phase bit to put in 1-RTT packets we send. */
u8 quic_crypto_key_phase(const struct quic_crypto_ctx *ctx)
{
	const struct quic_crypto *c = ctx->level[QUIC_CRYPTO_APP];

	return c ? c->key_phase : 0;
}

/*
 * Choose the receive keys of a 1-RTT packet from its (unprotected) Key
 * Phase bit and decoded packet number, RFC 9001 §6.3 and §6.5: a phase other
 * than ours is the previous phase if the packet is older than the first one
 * we decrypted with the current keys, and the next phase otherwise.
 */
enum quic_crypto_key_role quic_crypto_rx_key(struct quic_crypto_ctx *ctx,
					     u8 key_phase, u64 pn)
{
	struct quic_crypto *c = ctx->level[QUIC_CRYPTO_APP];
	struct quic_crypto_key *prev;

	if (!c || key_phase == c->key_phase)
		return QUIC_CRYPTO_KEY_CUR;
	prev = quic_crypto_gen(&c->rx, QUIC_CRYPTO_KEY_PREV);
	if (c->rx.cipher && prev->ready &&
	    pn < (u64)atomic64_read(&c->rx_first_pn))
		return QUIC_CRYPTO_KEY_PREV;
	return QUIC_CRYPTO_KEY_NEXT;
}

bool quic_crypto_key_update_ready(const struct quic_crypto_ctx *ctx)
{
	struct quic_crypto *c = ctx->level[QUIC_CRYPTO_APP];

	return c && c->tx.cipher && c->rx.cipher &&
	       quic_crypto_gen(&c->tx, QUIC_CRYPTO_KEY_NEXT)->ready &&
	       quic_crypto_gen(&c->rx, QUIC_CRYPTO_KEY_NEXT)->ready;
}

/*
 * Commit a key update (RFC 9001 §6.1, §6.2): the next keys become current
 * in both directions, the current receive keys stay as previous ones for
 * delayed packets and the phase bit flips.  Call it when initiating an
 * update (@first_pn = QUIC_CRYPTO_PN_NONE) or after a packet decrypted with
 * QUIC_CRYPTO_KEY_NEXT (@first_pn = its packet number).  Only pointers move,
 * so softirq context is fine; the new next generation is derived later by
 * quic_crypto_key_update_prepare(), in process context.
 */
int quic_crypto_key_update(struct quic_crypto_ctx *ctx, u64 first_pn)
{
	struct quic_crypto *c = ctx->level[QUIC_CRYPTO_APP];

	if (!c || !c->tx.cipher || !c->rx.cipher)
		return -ENOKEY;
	if (!quic_crypto_key_update_ready(ctx))
		return -EAGAIN;

	/* We never send with old keys. */
	quic_crypto_key_retire(quic_crypto_gen(&c->tx, QUIC_CRYPTO_KEY_CUR));
	c->tx.cur = (c->tx.cur + 1) % c->tx.ngen;

	/*
	 * The previous rx keys go, the current ones become previous: their
	 * secret is no longer needed, only their transform and IV.
	 */
	quic_crypto_key_retire(quic_crypto_gen(&c->rx, QUIC_CRYPTO_KEY_PREV));
	memzero_explicit(quic_crypto_gen(&c->rx, QUIC_CRYPTO_KEY_CUR)->secret,
			 QUIC_CRYPTO_SECRET_MAX);
	c->rx.cur = (c->rx.cur + 1) % c->rx.ngen;

	c->key_phase ^= 1;
	atomic64_set(&c->rx_first_pn, first_pn);
	return 0;
}

/* Process context: derive and key the next generation after an update. */
int quic_crypto_key_update_prepare(struct quic_crypto_ctx *ctx)
{
	struct quic_crypto *c = ctx->level[QUIC_CRYPTO_APP];
	struct quic_crypto_dir *dirs[2];
	unsigned int i;
	int err = 0;

	if (!c || !c->tx.cipher || !c->rx.cipher)
		return -ENOKEY;
	if (quic_crypto_key_update_ready(ctx))
		return 0;
	/* The spare transform may still be finishing an old request. */
	quic_crypto_wait(ctx);
	dirs[0] = &c->tx;
	dirs[1] = &c->rx;
	for (i = 0; i < 2 && !err; i++) {
		err = quic_crypto_dir_prepare(ctx->version, dirs[i]);
		if (!err)
			err = quic_crypto_pool_reserve(ctx, !i, dirs[i],
						       QUIC_CRYPTO_BATCH);
	}
	return err;
}

/* The previous receive keys are no longer needed (3 PTO, §6.5). */
void quic_crypto_key_discard_prev(struct quic_crypto_ctx *ctx)
{
	struct quic_crypto *c = ctx->level[QUIC_CRYPTO_APP];

	if (c && c->rx.cipher)
		quic_crypto_key_retire(quic_crypto_gen(&c->rx,
						       QUIC_CRYPTO_KEY_PREV));
}

/* The current send keys of @level have protected all they may (§6.6). */
bool quic_crypto_conf_limit_reached(const struct quic_crypto_ctx *ctx,
				    u8 level)
{
	struct quic_crypto *c;

	if (level >= QUIC_CRYPTO_MAX)
		return false;
	c = ctx->level[level];
	if (!c || !c->tx.cipher)
		return false;
	return atomic64_read(&quic_crypto_gen(&c->tx,
					      QUIC_CRYPTO_KEY_CUR)->packets) >=
	       c->tx.cipher->conf_limit;
}

/* Packets protected so far with the current 1-RTT send keys. */
u64 quic_crypto_tx_packets(const struct quic_crypto_ctx *ctx)
{
	struct quic_crypto *c = ctx->level[QUIC_CRYPTO_APP];

	if (!c || !c->tx.cipher)
		return 0;
	return atomic64_read(&quic_crypto_gen(&c->tx,
					      QUIC_CRYPTO_KEY_CUR)->packets);
}

/* The confidentiality limit of the 1-RTT send keys, U64_MAX if none. */
u64 quic_crypto_conf_limit(const struct quic_crypto_ctx *ctx)
{
	struct quic_crypto *c = ctx->level[QUIC_CRYPTO_APP];

	return c && c->tx.cipher ? c->tx.cipher->conf_limit : U64_MAX;
}

/* Received packets that failed authentication, all levels and keys. */
u64 quic_crypto_auth_failed(const struct quic_crypto_ctx *ctx)
{
	return atomic64_read(&ctx->auth_failed);
}

/* Too many forgeries: close with AEAD_LIMIT_REACHED (§6.6). */
bool quic_crypto_integ_limit_reached(const struct quic_crypto_ctx *ctx)
{
	return (u64)atomic64_read(&ctx->auth_failed) >= ctx->integ_limit;
}

/* nonce = iv ^ packet number, left-padded to the IV size (§5.3) */
static void quic_crypto_nonce(u8 *out, const u8 *iv, u64 pn, bool ccm)
{
	unsigned int i;
	u8 *n = out;

	if (ccm) {
		/* ccm(aes) takes L' = 15 - 1 - nonce length, then the nonce */
		memset(out, 0, QUIC_CRYPTO_AEAD_IV_MAX);
		out[0] = 15 - 1 - QUIC_CRYPTO_IV_LEN;
		n = out + 1;
	}
	memcpy(n, iv, QUIC_CRYPTO_IV_LEN);
	for (i = 0; i < 8; i++)
		n[QUIC_CRYPTO_IV_LEN - 1 - i] ^= pn >> (8 * i);
}

/*
 * An upper bound of the scatterlist entries skb_to_sgvec() fills for
 * [off, off + len), walking the skb the same way.
 */
static int quic_crypto_sg_count(const struct sk_buff *skb, int off, int len,
				int depth)
{
	int start = skb_headlen(skb), end, i, n = 0, r;
	const struct sk_buff *frag;

	if (depth > QUIC_CRYPTO_SG_DEPTH)
		return -EMSGSIZE;
	if (off < start)
		n++;
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		end = start + skb_frag_size(&skb_shinfo(skb)->frags[i]);
		if (off < end && off + len > start)
			n++;
		start = end;
	}
	skb_walk_frags(skb, frag) {
		end = start + frag->len;
		if (off < end && off + len > start) {
			r = quic_crypto_sg_count(frag, max(off - start, 0),
						 min(off + len, end) -
						 max(off, start), depth + 1);
			if (r < 0)
				return r;
			n += r;
		}
		start = end;
	}
	return n;
}

/*
 * A request finished, synchronously or from the crypto completion: record
 * the result, count it against the limits and, for tx, apply header
 * protection now that the ciphertext exists.
 */
static void quic_crypto_complete(struct quic_crypto_slot *s, int err)
{
	struct quic_crypto_batch *batch = s->batch;
	struct quic_crypto_ctx *ctx = batch->ctx;
	struct quic_crypto_pkt *pkt = s->pkt;
	s64 first;

	if (batch->encrypt) {
		if (!err)
			err = quic_crypto_protect_header(ctx, pkt);
	} else if (err == -EBADMSG) {
		atomic64_inc(&ctx->auth_failed);
		/*
		 * Some AEADs write the plaintext before checking the tag: wipe
		 * it so that a forged payload cannot be read even by mistake.
		 */
		sg_zero_buffer(s->sg, s->nsg, pkt->len - s->req.assoclen,
			       s->req.assoclen);
	} else if (!err) {
		atomic64_inc(&s->key->packets);
		if (pkt->key == QUIC_CRYPTO_KEY_CUR) {
			first = atomic64_read(&s->c->rx_first_pn);
			while ((u64)first > pkt->pn &&
			       !atomic64_try_cmpxchg(&s->c->rx_first_pn, &first,
						     pkt->pn))
				;
		}
	}
	pkt->err = err;

	/* Last use of s: once the pool is free the slot may be reused. */
	if (atomic_dec_and_test(&batch->pending)) {
		clear_bit_unlock(batch->encrypt ? 0 : 1, &ctx->busy);
		if (batch->done)
			batch->done(batch);
	}
	if (atomic_dec_and_test(&ctx->pending))
		complete(&ctx->idle);
}

static void quic_crypto_done(void *data, int err)
{
	/* A backlogged request has just entered the queue: not done yet. */
	if (err == -EINPROGRESS)
		return;
	quic_crypto_complete(data, err);
}

/*
 * Submit one packet.  Returns an error if it was not submitted; otherwise 0,
 * the result arriving in pkt->err through quic_crypto_complete().
 */
static int quic_crypto_submit(struct quic_crypto_ctx *ctx,
			      struct quic_crypto_slot *s,
			      struct quic_crypto_batch *batch,
			      struct quic_crypto_pkt *pkt)
{
	bool enc = batch->encrypt;
	struct quic_crypto_dir *dir;
	struct quic_crypto_key *k;
	struct quic_crypto *c;
	unsigned int hlen;
	int nsg, err;

	if (pkt->level >= QUIC_CRYPTO_MAX || !ctx->level[pkt->level])
		return -ENOKEY;
	c = ctx->level[pkt->level];
	dir = enc ? &c->tx : &c->rx;
	if (!dir->cipher)
		return -ENOKEY;
	k = quic_crypto_gen(dir, enc ? QUIC_CRYPTO_KEY_CUR : pkt->key);
	if (!k || !k->ready)
		return -ENOKEY;
	/* The internal SIMD AEAD's condition, see quic_crypto_aead_alloc(). */
	if (k->simd && unlikely(!crypto_simd_usable())) {
		pr_warn_once("quic: FPU busy under a softirq, packet deferred or dropped\n");
		return -EAGAIN;
	}

	hlen = pkt->pn_off + pkt->pn_len;
	if (!pkt->skb || !pkt->pn_len || pkt->pn_len > QUIC_CRYPTO_PN_MAX_LEN ||
	    pkt->len < hlen + QUIC_CRYPTO_TAG_LEN ||
	    pkt->off + pkt->len > pkt->skb->len)
		return -EINVAL;
	/* Fail closed once a limit is reached: these keys must not be used. */
	if (enc && (u64)atomic64_read(&k->packets) >= dir->cipher->conf_limit)
		return -EKEYEXPIRED;
	if (!enc && quic_crypto_integ_limit_reached(ctx))
		return -EKEYEXPIRED;

	nsg = quic_crypto_sg_count(pkt->skb, pkt->off, pkt->len, 0);
	if (nsg <= 0 || nsg > QUIC_CRYPTO_MAX_SG)
		return -EMSGSIZE;
	sg_init_table(s->sg, nsg);
	nsg = skb_to_sgvec(pkt->skb, s->sg, pkt->off, pkt->len);
	if (nsg < 0)
		return nsg;

	s->nsg = nsg;
	s->batch = batch;
	s->pkt = pkt;
	s->c = c;
	s->key = k;
	quic_crypto_nonce(s->iv, k->iv, pkt->pn, dir->cipher->ccm);
	aead_request_set_tfm(&s->req, k->aead);
	aead_request_set_callback(&s->req, CRYPTO_TFM_REQ_MAY_BACKLOG,
				  quic_crypto_done, s);
	aead_request_set_ad(&s->req, hlen);
	aead_request_set_crypt(&s->req, s->sg, s->sg,
			       pkt->len - hlen -
			       (enc ? QUIC_CRYPTO_TAG_LEN : 0), s->iv);

	/* A nonce is spent when it is submitted, whatever the outcome. */
	if (enc)
		atomic64_inc(&k->packets);
	atomic_inc(&batch->pending);
	atomic_inc(&ctx->pending);
	/* No softirq of ours inside this FPU section: see above. */
	if (k->simd)
		local_bh_disable();
	err = enc ? crypto_aead_encrypt(&s->req) : crypto_aead_decrypt(&s->req);
	if (k->simd)
		local_bh_enable();
	if (err != -EINPROGRESS && err != -EBUSY)
		quic_crypto_complete(s, err);
	return 0;
}

/*
 * The slot of a batch's packet @i: its own, or the only one of a pool of
 * sync transforms (quic_crypto_pool_reserve()), free again by now.
 */
static struct quic_crypto_slot *
quic_crypto_slot_of(const struct quic_crypto_pool *pool, unsigned int i)
{
	return pool->slot[pool->nslots == 1 ? 0 : i];
}

/*
 * Submit a packet of a sync socket without a pool through its CPU's slot,
 * bottom halves off from filling the slot to the request's end (the request
 * is synchronous: it has ended when submit returns).
 */
static int quic_crypto_submit_cpu(struct quic_crypto_ctx *ctx,
				  struct quic_crypto_batch *batch,
				  struct quic_crypto_pkt *pkt)
{
	int err;

	local_bh_disable();
	err = quic_crypto_submit(ctx, this_cpu_read(quic_crypto_cpu_slot),
				 batch, pkt);
	local_bh_enable();
	return err;
}

static int quic_crypto_batch_run(struct quic_crypto_ctx *ctx,
				 struct quic_crypto_batch *batch, bool enc)
{
	struct quic_crypto_pool *pool = ctx->pool[enc ? 0 : 1];
	struct quic_crypto_pkt *pkt;
	unsigned int i;
	int err;

	if (!batch->pkts || !batch->n || batch->n > QUIC_CRYPTO_BATCH ||
	    (ctx->async && !batch->done))
		return -EINVAL;
	/* No pool: sync sockets use their CPU's slot (pool_reserve()). */
	if (!pool && (ctx->async || !quic_crypto_cpu_slots))
		return -ENOKEY;
	if (pool && pool->nslots > 1 && batch->n > pool->nslots)
		return -EINVAL;
	if (test_and_set_bit_lock(enc ? 0 : 1, &ctx->busy))
		return -EBUSY;

	batch->ctx = ctx;
	batch->encrypt = enc;
	atomic_set(&batch->pending, 1);
	for (i = 0; i < batch->n; i++) {
		pkt = &batch->pkts[i];
		pkt->err = -EINPROGRESS;
		/* A shared slot still in use (cannot happen with sync AEADs) */
		if ((!pool || pool->nslots == 1) &&
		    atomic_read(&batch->pending) > 1) {
			pkt->err = -EBUSY;
			continue;
		}
		if (pool)
			err = quic_crypto_submit(ctx,
						 quic_crypto_slot_of(pool, i),
						 batch, pkt);
		else
			err = quic_crypto_submit_cpu(ctx, batch, pkt);
		if (err)
			pkt->err = err;
	}
	if (!atomic_dec_and_test(&batch->pending))
		return -EINPROGRESS;
	clear_bit_unlock(enc ? 0 : 1, &ctx->busy);
	return 0;
}

/*
 * Protect up to QUIC_CRYPTO_BATCH packets (AEAD, then header protection),
 * in place.  Returns
 *   0		    every packet is finished, its result in pkt->err;
 *		    batch->done is not called;
 *   -EINPROGRESS   (async mode only) some packets complete later:
 *		    batch->done(batch) runs once, from the crypto completion
 *		    (possibly softirq), when the last one has; the batch and its
 *		    skbs must stay alive until then;
 *   -EBUSY	    a batch of this direction is still in flight, nothing
 *		    was submitted: retry from its done callback;
 *   -EINVAL, -ENOKEY  the batch itself is unusable (too many packets:
 *		    more than QUIC_CRYPTO_BATCH, or in async mode
 *		    QUIC_CRYPTO_BATCH_HS before 1-RTT keys; no done callback
 *		    in async mode; no keys installed yet), nothing was
 *		    submitted.
 * A packet's err is 0 or a negative errno; the packet must not be sent
 * unless it is 0.
 */
int quic_crypto_encrypt_batch(struct quic_crypto_ctx *ctx,
			      struct quic_crypto_batch *batch)
{
	return quic_crypto_batch_run(ctx, batch, true);
}

/*
 * Remove packet protection of up to QUIC_CRYPTO_BATCH packets, in place,
 * same return convention.  pkt->err -EBADMSG: authentication failed, drop
 * the packet (it was counted for the integrity limit); -ENOKEY: no such
 * keys (for instance the next phase before quic_crypto_key_update_prepare()).
 */
int quic_crypto_decrypt_batch(struct quic_crypto_ctx *ctx,
			      struct quic_crypto_batch *batch)
{
	return quic_crypto_batch_run(ctx, batch, false);
}

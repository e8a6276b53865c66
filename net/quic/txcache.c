// SPDX-License-Identifier: GPL-2.0
/*
 * Slab caches of the transmit path's per-packet records (txcache.h).
 */

#include <linux/slab.h>
#include <linux/string.h>

#include "socket.h"
#include "txcache.h"

static struct kmem_cache *quic_frame_cache __read_mostly;
static struct kmem_cache *quic_sent_cache __read_mostly;

static size_t quic_frame_tx_size(u16 raw_len)
{
	return sizeof(struct quic_frame_tx) + raw_len;
}

static bool quic_frame_tx_cached(u16 raw_len)
{
	return raw_len <= QUIC_FRAME_TX_INLINE;
}

struct quic_frame_tx *quic_frame_tx_alloc(u8 type, u8 level, u16 raw_len)
{
	struct quic_frame_tx *f;

	if (quic_frame_tx_cached(raw_len))
		f = kmem_cache_zalloc(quic_frame_cache, GFP_ATOMIC);
	else
		f = kzalloc(quic_frame_tx_size(raw_len), GFP_ATOMIC);
	if (f) {
		f->type = type;
		f->level = level;
		f->len = raw_len;
		f->raw_len = raw_len;
	}
	return f;
}

struct quic_frame_tx *quic_frame_tx_dup(const struct quic_frame_tx *f)
{
	struct quic_frame_tx *copy;

	copy = quic_frame_tx_alloc(f->type, f->level, f->raw_len);
	if (copy)
		memcpy(copy, f, quic_frame_tx_size(f->raw_len));
	return copy;
}

void quic_frame_tx_free(struct quic_frame_tx *f)
{
	if (!f)
		return;
	if (quic_frame_tx_cached(f->raw_len))
		kmem_cache_free(quic_frame_cache, f);
	else
		kfree(f);
}

struct quic_sent_pkt *quic_sent_pkt_alloc(void)
{
	struct quic_sent_pkt *sp;

	sp = kmem_cache_zalloc(quic_sent_cache, GFP_ATOMIC);
	if (sp)
		INIT_LIST_HEAD(&sp->frames);
	return sp;
}

void quic_sent_pkt_free_rec(struct quic_sent_pkt *sp)
{
	if (sp)
		kmem_cache_free(quic_sent_cache, sp);
}

int quic_txcache_init(void)
{
	quic_frame_cache = kmem_cache_create("quic_frame_tx",
					     quic_frame_tx_size(QUIC_FRAME_TX_INLINE),
					     0, SLAB_HWCACHE_ALIGN, NULL);
	if (!quic_frame_cache)
		return -ENOMEM;
	quic_sent_cache = KMEM_CACHE(quic_sent_pkt, SLAB_HWCACHE_ALIGN);
	if (!quic_sent_cache) {
		kmem_cache_destroy(quic_frame_cache);
		return -ENOMEM;
	}
	return 0;
}

void quic_txcache_exit(void)
{
	kmem_cache_destroy(quic_sent_cache);
	kmem_cache_destroy(quic_frame_cache);
}

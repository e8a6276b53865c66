// SPDX-License-Identifier: GPL-2.0
/*
 * Slab caches of the transmit path's per-packet records (txcache.h).
 */

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "socket.h"
#include "txcache.h"

static struct kmem_cache *quic_frame_cache __read_mostly;
static struct kmem_cache *quic_sent_cache __read_mostly;

/*
 * The pages of GSO trains.  A train larger than a slab's largest object
 * (KMALLOC_MAX_CACHE_SIZE) was a page allocation of its own (16, 32 or
 * 64 KB), which the kernel zeroes (init_on_alloc): in a bulk profile that
 * clear_page_erms was about a fifth of the AES-GCM encryption's samples,
 * for memory the train overwrites.  Each CPU keeps up to
 * QUIC_TRAIN_POOL_PAGES pages of each of the three sizes, and a train
 * takes one whose count is down to the pool's own reference, that is,
 * whose last skb (the train, its copy in quic_train_fit(), a receiver's
 * pieces of it) is gone: the page is used again as it is, as
 * skb_page_frag_refill() does with a socket's page.  The skb is built on
 * it whole (build_skb(): the head is a page fragment of the same size as
 * the allocation it replaces, so the train's truesize is unchanged), and
 * frees it with a put_page(), anywhere, module or not.  Nothing else
 * takes a reference to a page once no skb points into it, so the count
 * seen is stable.  When every page of the size is in use, or one cannot
 * be had, the train is alloc_skb()ed as before.  Bounded: at most
 * QUIC_TRAIN_POOL_PAGES * 112 KB per CPU that sent trains, freed when the
 * module goes (pages still in skbs are freed with their skb).
 *
 * A smaller train (a request or an answer of a few KB), and a lone
 * datagram that may carry stream data (output.c), are built on a
 * page fragment of the networking core's per-CPU cache (netdev_alloc_frag(),
 * what drivers build received skbs on), not kmalloc()ed: a receiver on
 * this host then finds the stream data of its datagrams in a page, which
 * it can queue as page fragments of one skb instead of an skb per
 * datagram (stream_recv.c, "Merging").  The fragment is not zeroed, as a
 * kmalloc()ed head is on every allocation (init_on_alloc).  If the cache
 * has no room, the skb is alloc_skb()ed as before.
 */
#define QUIC_TRAIN_POOL_PAGES	4
#define QUIC_TRAIN_POOL_SIZES	3	/* SZ_16K, SZ_32K, SZ_64K */

struct quic_train_pool {
	struct page	*page[QUIC_TRAIN_POOL_SIZES][QUIC_TRAIN_POOL_PAGES];
};

static DEFINE_PER_CPU(struct quic_train_pool, quic_train_pool);

/* A train of @size bytes (@obj with the shared info) on a page fragment. */
static struct sk_buff *quic_train_frag_alloc(unsigned int size,
					     unsigned int obj)
{
	struct sk_buff *skb;
	void *data;

	data = netdev_alloc_frag(obj);
	if (data) {
		skb = build_skb(data, obj);
		if (skb)
			return skb;
		skb_free_frag(data);
	}
	return alloc_skb(size, GFP_ATOMIC | __GFP_NOWARN);
}

struct sk_buff *quic_train_skb_alloc(unsigned int size)
{
	unsigned int obj = SKB_HEAD_ALIGN(size), bytes = SZ_16K, i, c = 0;
	struct page **slot, *page = NULL;
	struct sk_buff *skb;

	if (obj <= KMALLOC_MAX_CACHE_SIZE)
		return quic_train_frag_alloc(size, obj);
	if (obj > SZ_64K)
		return alloc_skb(size, GFP_ATOMIC | __GFP_NOWARN);
	while (bytes < obj) {
		bytes <<= 1;
		c++;
	}
	/* Bottom halves off: this CPU's pool, from process or softirq. */
	local_bh_disable();
	slot = this_cpu_ptr(&quic_train_pool)->page[c];
	for (i = 0; i < QUIC_TRAIN_POOL_PAGES; i++) {
		if (!slot[i]) {
			/* Not from the reserves: a receiver not in memalloc
			 * would drop every skb built on it.
			 */
			slot[i] = alloc_pages(GFP_ATOMIC | __GFP_COMP |
					      __GFP_NOWARN | __GFP_NOMEMALLOC,
					      get_order(bytes));
			if (!slot[i])
				break;
		}
		if (page_ref_count(slot[i]) == 1) {
			page = slot[i];
			get_page(page);		/* the skb's */
			break;
		}
	}
	local_bh_enable();
	if (!page)
		return alloc_skb(size, GFP_ATOMIC | __GFP_NOWARN);
	skb = build_skb(page_address(page), bytes);
	if (!skb)
		put_page(page);
	return skb;
}

static void quic_train_pool_free(void)
{
	struct quic_train_pool *pool;
	int cpu, c, i;

	for_each_possible_cpu(cpu) {
		pool = per_cpu_ptr(&quic_train_pool, cpu);
		for (c = 0; c < QUIC_TRAIN_POOL_SIZES; c++)
			for (i = 0; i < QUIC_TRAIN_POOL_PAGES; i++) {
				if (pool->page[c][i])
					put_page(pool->page[c][i]);
				pool->page[c][i] = NULL;
			}
	}
}

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
	quic_train_pool_free();
	kmem_cache_destroy(quic_sent_cache);
	kmem_cache_destroy(quic_frame_cache);
}

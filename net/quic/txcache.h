/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records the transmit path keeps per packet in flight: struct
 * quic_sent_pkt and struct quic_frame_tx (connection.h) come from slab
 * caches of their own, not kmalloc, as one or two of each are allocated
 * and freed per packet sent.  A control frame whose encoding does not fit
 * the cache's object (QUIC_FRAME_TX_INLINE bytes) is kmalloc()ed.  And
 * the pages of the larger GSO trains are kept per CPU, to be used again.
 *
 * Every function may run in softirq context (GFP_ATOMIC); the frees take
 * NULL.
 */

#ifndef _NET_QUIC_TXCACHE_H
#define _NET_QUIC_TXCACHE_H

#include <linux/types.h>

struct sk_buff;
struct quic_frame_tx;
struct quic_sent_pkt;

/* raw[] bytes a cached frame record holds (its object is 64 bytes). */
#define QUIC_FRAME_TX_INLINE	24

int quic_txcache_init(void);
void quic_txcache_exit(void);

struct quic_frame_tx *quic_frame_tx_alloc(u8 type, u8 level, u16 raw_len);
struct quic_frame_tx *quic_frame_tx_dup(const struct quic_frame_tx *f);
void quic_frame_tx_free(struct quic_frame_tx *f);

/* A zeroed record with empty frames list. */
struct quic_sent_pkt *quic_sent_pkt_alloc(void);
/* The record alone: its frames must have been freed or moved. */
void quic_sent_pkt_free_rec(struct quic_sent_pkt *sp);

/*
 * The skb of a GSO train (output.c) with @size bytes of head room and
 * data, for GFP_ATOMIC callers; NULL if none could be had.  Trains larger
 * than a slab object come from pages kept per CPU (txcache.c).
 */
struct sk_buff *quic_train_skb_alloc(unsigned int size);

#endif /* _NET_QUIC_TXCACHE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connection IDs: the ones we issue (source CIDs), each findable in a
 * global table so that received packets reach their socket, and the ones
 * the peer issued (destination CIDs) that we address packets to.
 */

#ifndef _NET_QUIC_CONN_ID_H
#define _NET_QUIC_CONN_ID_H

#include <linux/list.h>
#include <linux/rhashtable-types.h>
#include <net/sock.h>

#include "packet_header.h"

/*
 * Every source CID we issue has this length, so that short headers (which
 * carry no CID length) can be parsed.
 */
#define QUIC_SCID_LEN		8

/* A source CID, in the global table while the socket uses it. */
struct quic_scid {
	struct rhash_head	node;
	struct quic_cid		cid;	/* the table key; bytes past len are 0 */
	struct list_head	list;	/* in quic_cid_set.list */
	struct sock		*sk;
	u64			seq;
	struct rcu_head		rcu;
};

/* A destination CID the peer gave us. */
struct quic_dcid {
	struct list_head	list;
	struct quic_cid		cid;
	u64			seq;
	u8			reset_token[16];
	bool			has_token;
};

struct quic_cid_set {
	struct list_head	scids;	/* struct quic_scid, ours */
	struct list_head	dcids;	/* struct quic_dcid, the peer's */
	u64			next_scid_seq;
	u32			n_scids;
	u32			n_dcids;
};

int quic_cid_table_init(void);
void quic_cid_table_exit(void);

void quic_cid_set_init(struct quic_cid_set *set);
void quic_cid_set_free(struct sock *sk, struct quic_cid_set *set);

int quic_cid_add_scid(struct sock *sk, struct quic_cid_set *set,
		      const struct quic_cid *cid);
int quic_cid_new_scid(struct sock *sk, struct quic_cid_set *set,
		      struct quic_cid *out);
int quic_cid_add_dcid(struct sock *sk, struct quic_cid_set *set,
		      const struct quic_cid *cid, u64 seq,
		      const u8 *reset_token);
void quic_cid_set_first_dcid(struct quic_cid_set *set,
			     const struct quic_cid *cid);
const struct quic_cid *quic_cid_active_dcid(struct quic_cid_set *set);
const struct quic_cid *quic_cid_first_scid(struct quic_cid_set *set);
void quic_cid_random(struct quic_cid *cid, u8 len);

struct sock *quic_cid_lookup(const struct net *net, const u8 *cid, u8 len);

#endif /* _NET_QUIC_CONN_ID_H */

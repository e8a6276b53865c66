/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connection IDs: the ones we issue (source CIDs), each findable in the
 * table of its network namespace so that received packets reach their
 * socket, and the ones the peer issued (destination CIDs) that we address
 * packets to.  The life cycle (RFC 9000 §5.1) is in conn_id.c.
 */

#ifndef _NET_QUIC_CONN_ID_H
#define _NET_QUIC_CONN_ID_H

#include <linux/list.h>
#include <linux/rhashtable-types.h>
#include <linux/sockptr.h>
#include <linux/quic.h>
#include <net/sock.h>

#include "packet_header.h"
#include "stateless_reset.h"

/*
 * The default length of the source CIDs we issue (sysctl net.quic.cid_len,
 * 0..20).  Every connection of one UDP port uses the length the port was
 * created with, so that short headers (which carry no CID length) can be
 * parsed.
 */
#define QUIC_SCID_LEN		8

/* Source CIDs a connection keeps active for its peer, at most. */
#define QUIC_CID_ISSUE_MAX	8
/* Application-supplied CIDs (QUIC_SOCKOPT_CONNECTION_ID_LIST), at most. */
#define QUIC_CID_LIST_MAX	16

/* Not issued by us: the client's original DCID, findable on a server. */
#define QUIC_CID_SEQ_ALIAS	U64_MAX

struct quic_udp_sock;

/*
 * The table key: the network namespace (or, for a zero-length CID, the
 * UDP port, which then serves one connection) and the CID bytes.
 */
struct quic_cid_key {
	const void		*scope;
	struct quic_cid		cid;	/* bytes past len are 0 */
};

/* A source CID, in the table while the socket uses it. */
struct quic_scid {
	struct rhash_head	node;
	struct quic_cid_key	key;
	struct list_head	list;	/* in quic_cid_set.scids */
	struct sock		*sk;
	u64			seq;	/* QUIC_CID_SEQ_ALIAS: not issued */
	u8			reset_token[QUIC_STATELESS_RESET_TOKEN_LEN];
	struct rcu_head		rcu;
};

/* A destination CID the peer gave us. */
struct quic_dcid {
	struct list_head	list;	/* in quic_cid_set.dcids, seq order */
	struct quic_cid		cid;
	u64			seq;
	u8			reset_token[QUIC_STATELESS_RESET_TOKEN_LEN];
	bool			has_token;
	struct quic_sr_entry	*sr;	/* in the reset-token table */
};

/* An application-supplied CID waiting to be issued. */
struct quic_cid_supplied {
	struct quic_cid		cid;
	u8			reset_token[QUIC_STATELESS_RESET_TOKEN_LEN];
};

/* Socket lock held for all of it. */
struct quic_cid_set {
	struct list_head	scids;	/* struct quic_scid, ours */
	struct list_head	dcids;	/* struct quic_dcid, the peer's */
	struct quic_dcid	*active;	/* the DCID we send with */
	u64			next_scid_seq;
	u64			scid_prior_to;	/* ours sent in NCIDs */
	u64			dcid_prior_to;	/* the peer's, largest seen */
	u32			n_scids;
	u32			n_dcids;
	u32			n_active;	/* issued, not retired */
	u8			scid_len;	/* the port's length */
	u8			n_supplied;
	struct quic_cid_supplied *supplied;	/* QUIC_CID_LIST_MAX */
};

extern int sysctl_quic_cid_len;

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
struct sock *quic_cid_lookup_port(const struct quic_udp_sock *us,
				  const u8 *cid, u8 len);
u8 quic_cid_port_len(const struct sock *sk);

/* The life cycle, socket lock held. */
void quic_cid_output(struct sock *sk);
int quic_cid_new_cid_rcv(struct sock *sk, const u64 seq, u64 prior_to,
			 const struct quic_cid *cid, const u8 *token,
			 u32 *terr);
int quic_cid_retire_rcv(struct sock *sk, u64 seq, u32 *terr);
const struct quic_cid *quic_cid_next_dcid(struct sock *sk);
int quic_cid_use_dcid(struct sock *sk, u64 seq);
int quic_cid_issue_pref(struct sock *sk, struct quic_cid *cid, u8 *token);
void quic_cid_server_tp(struct sock *sk);

int quic_cid_sockopt_get(struct sock *sk, struct quic_connection_id_info *i);
int quic_cid_sockopt_set(struct sock *sk,
			 const struct quic_connection_id_info *i);
int quic_cid_list_set(struct sock *sk, sockptr_t optval, unsigned int optlen);

#endif /* _NET_QUIC_CONN_ID_H */

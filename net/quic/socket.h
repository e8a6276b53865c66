/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC socket core: the per-socket state and the struct proto callbacks.
 */

#ifndef _NET_QUIC_SOCKET_H
#define _NET_QUIC_SOCKET_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ipv6.h>
#include <net/dst_cache.h>
#include <net/inet_sock.h>
#include <net/sock.h>
#include <linux/quic.h>

#include "conn_id.h"
#include "cong.h"
#include "connection.h"
#include "crypto.h"
#include "datagram.h"
#include "early_data.h"
#include "ecn.h"
#include "key_phase.h"
#include "pacing.h"
#include "pmtud.h"
#include "path.h"
#include "recovery.h"
#include "stream.h"
#include "transport_param.h"

struct quic_udp_sock;

#define QUIC_ALPN_MAX		128	/* bytes of the comma-separated list */
#define QUIC_TP_EXT_MAX		512	/* our encoded transport parameters */
#define QUIC_TICKET_MAX		4096	/* session data or ticket key */
#define QUIC_TICKET_KEY_LEN	64	/* a server's key made by the kernel */
#define QUIC_TOKEN_MAX		512	/* a client's address-validation token */

static inline __be16 quic_addr_port(const union quic_addr *addr)
{
	return addr->sa.sa_family == AF_INET ? addr->v4.sin_port :
					       addr->v6.sin6_port;
}

struct quic_train;

/*
 * Size matters: an idle connection holds one per side, in the "QUIC" slab
 * cache, which rounds objects up to 64 bytes.  At 5,440 bytes or less six
 * fit a 32 KB slab (5,461 bytes each); above, five (6,553): with Debian's
 * 6.12 it is 5,440 (pahole), no margin left.  Keep flags together and
 * fields out of holes.
 */
struct quic_sock {
	struct inet_sock	inet;	/* must be first: this is an inet socket */

	/* All fields below are protected by the socket lock. */
	union quic_addr		local;	/* valid once bound */
	union quic_addr		peer;	/* valid once connecting */
	struct quic_udp_sock	*udp;	/* the UDP tunnel socket we are bound to */
	struct dst_cache	dst_cache;	/* route to the peer */
	u32			route_mark;	/* SO_MARK of the cached route */
	int			route_oif;	/* SO_BINDTODEVICE of it */
	/*
	 * The UDP GSO train quic_output() is building, on its stack, while
	 * it runs: anything else sent first sends it (output.c).
	 */
	struct quic_train	*tx_train;
	struct list_head	proc_node;	/* in /proc/net/quic's list */

	bool			is_server;
	bool			handshake_done;		/* both APP keys in */
	bool			handshake_confirmed;	/* RFC 9001 §4.1.2 */
	bool			peer_tp_set;
	bool			peer_scid_set;	/* client: server's SCID seen */
	/* Accepted, handshake running: we hold a pending slot of @udp. */
	bool			pending;
	u32			version;
	struct quic_config	config;
	struct quic_cid_set	cids;
	struct quic_cid		odcid;		/* the client's first DCID */
	struct quic_cid		peer_scid;	/* peer's Initial SCID */
	bool			retry_done;	/* Retry (below) */
	struct quic_cid		retry_scid;
	struct quic_transport_params local_tp;
	struct quic_transport_params peer_tp;
	struct quic_crypto_ctx	crypto;
	struct quic_space	space[QUIC_PN_SPACE_MAX];
	struct quic_rtt		rtt;
	struct quic_ld		ld;
	struct quic_cong	cong;
	struct quic_pacer	pacer;
	struct quic_reorder	reorder;	/* loss thresholds, APP space */
	/* APP packets declared lost: NULL until the first (output.c). */
	struct quic_lost_log	*lost_log;
	struct quic_idle	idle;
	u64			keepalive_sent;	/* last keepalive PING, us */
	struct quic_amp		amp;
	struct quic_ecn		ecn;		/* ECN of the path (ecn.h) */
	struct quic_key_phase	key_phase;	/* 1-RTT key updates */
	struct quic_pmtud	pmtud;		/* its discovery (pmtud.c) */
	u8			probes;		/* PTO probes that may ignore cwnd */
	/*
	 * PATH_RESPONSE owed (RFC 9000 §8.2.2): the latest challenge's data,
	 * sent once in the next 1-RTT packet and never again (§13.3), so a
	 * flood of challenges costs nothing but this.
	 */
	u8			path_resp[QUIC_PATH_CHALLENGE_LEN];
	bool			path_resp_pending;
	struct quic_paths	paths;		/* path.c */
	struct quic_streams	streams;
	struct quic_dgram	dgram;		/* datagram.c */
	/*
	 * The ALPN list, NUL-terminated, kmalloc()ed to its length (at most
	 * QUIC_ALPN_MAX bytes) and charged to sk_omem_alloc; NULL: none.
	 * Set and read under the socket lock (quic_alpn_set()).
	 */
	char			*alpn;
	struct quic_connection_close close_info;	/* sent or received */

	/* Timers; softirq handlers defer to release_cb via @deferred. */
	struct timer_list	retransmit_timer;	/* loss and PTO */
	struct timer_list	idle_timer;
	struct timer_list	close_timer;		/* closing/draining end */
	struct timer_list	ack_timer;		/* delayed ACKs */
	struct hrtimer		pace_timer;		/* paced sending resumes */
	struct timer_list	key_timer;		/* previous 1-RTT rx keys go */
	unsigned long		deferred;		/* BIT(enum quic_deferred) */

	/*
	 * Listener: client Initials of connections not yet accepted, each
	 * charged to sk_rmem_alloc and holding a pending slot of @udp.
	 */
	struct sk_buff_head	accept_queue;
	/* Datagrams of levels whose keys are not installed yet. */
	struct sk_buff_head	hold_queue;

	u8			*ticket;	/* QUIC_SOCKOPT_SESSION_TICKET */
	u8			*token;		/* client: QUIC_SOCKOPT_TOKEN */
	u32			ticket_len;
	u32			token_len;
	/*
	 * Client: the peer's parameters remembered for 0-RTT (remote = 1),
	 * as set; allocated then and charged to sk_omem_alloc.  NULL: none.
	 */
	struct quic_transport_param *peer_tp_saved;
	struct quic_early	early;		/* 0-RTT (early_data.c) */
	/* Our part of sk_omem_alloc (quic_obj_alloc()): 0 once freed. */
	u32			omem;
	u32			events;		/* BIT(enum quic_event_type) on */
	bool			close_set;	/* close_info given by the user */
	bool			close_app;	/* our close is an application one */
	bool			close_pending;	/* orphan: close once data is acked */
	/* Our transport parameters were read (to be sent): they are fixed. */
	bool			local_tp_sent;
	u32			closing_rx;	/* datagrams seen while closing */
	u32			max_datagram;	/* UDP payload we send */
	struct work_struct	release_work;	/* orphan: release after closing */
	struct work_struct	key_work;	/* derive the next 1-RTT keys */
	struct work_struct	keys_work;	/* free discarded spaces' keys */

	/*
	 * Retry (retry.c).  Client: the Retry it follows, at most one: its
	 * SCID (our DCID from then on, and what retry_source_connection_id
	 * must be) and its token, which our Initials carry from then on;
	 * retry_work re-derives the Initial keys and sends the ClientHello
	 * again.  Server: the Retry SCID its connection's first Initial came
	 * to, when it carried a valid Retry token.  retry_done and retry_scid
	 * are above, beside the other CIDs, where they leave no hole.
	 */
	u8			*retry_token;	/* charged to sk_omem_alloc */
	u32			retry_token_len;
	struct work_struct	retry_work;

	/*
	 * Compatible version negotiation (compatvn.c).  compat_orig: the
	 * original version once the connection moved from it (0: it did
	 * not).  Client: compat_to, the version a server Initial moves us to
	 * while compat_work derives its keys.  Server: compat_rx, the
	 * original version's Initial keys, which read the client's Initials
	 * of that version until the Initial space goes.
	 */
	u32			compat_orig;
	u32			compat_to;
	struct quic_crypto_ctx	*compat_rx;
	struct work_struct	compat_work;
};

/*
 * Objects a connection allocates as its peer's traffic asks (streams, the
 * peer's connection IDs, ranges of acknowledged stream data, the session
 * ticket) are charged to sk_omem_alloc, beside the buffers charged to
 * sk_rmem_alloc and sk_wmem_queued, so that SO_MEMINFO and /proc/net/quic
 * show what a peer costs.  Their number is bounded by the protocol:
 * MAX_STREAMS, active_connection_id_limit, the data in flight and
 * QUIC_TICKET_MAX.  Socket lock held.
 */
void *quic_obj_alloc(struct sock *sk, size_t size, gfp_t gfp);
void quic_obj_free(struct sock *sk, void *obj, size_t size);
void quic_obj_charge(struct sock *sk, int delta);
void quic_ticket_set(struct sock *sk, u8 *buf, u32 len);
void quic_token_set(struct sock *sk, u8 *buf, u32 len);
int quic_ticket_key_make(struct sock *sk);
int quic_alpn_set(struct sock *sk, const char *alpn);

/* The ALPN list, "" if none was set. */
static inline const char *quic_alpn(const struct quic_sock *qs)
{
	return qs->alpn ?: "";
}

/* Where a received datagram came from, while quic_input() runs. */
struct quic_input_cb {
	union quic_addr		peer;
	union {
		__be32		v4;
		struct in6_addr	v6;
	} local_ip;			/* the address it was sent to */
	u8			ecn:2;	/* ECN field of its IP header */
	/*
	 * One datagram of a UDP GSO skb received whole (udp.c): it shares
	 * that skb's memory, and is charged only its share of it.
	 */
	u8			train:1;
	/*
	 * In the backlog: more datagrams of the same train follow, and are
	 * answered with it (quic_backlog_rcv()).
	 */
	u8			more:1;
	__be16			local_port;	/* and port (path.c) */
};

#define QUIC_INPUT_CB(skb)	((struct quic_input_cb *)&((skb)->cb[0]))

/* Silent receive drops, each with its own counter (/proc/net/quic_stats). */
enum quic_drop_reason {
	QUIC_DROP_BAD_HEADER,
	QUIC_DROP_UNSUPPORTED,
	QUIC_DROP_NO_KEYS,
	QUIC_DROP_HOLD_FULL,
	QUIC_DROP_DECRYPT,
	QUIC_DROP_DUPLICATE,
	QUIC_DROP_NO_SOCKET,
	QUIC_DROP_LISTEN,
	QUIC_DROP_BACKLOG,
	QUIC_DROP_XMIT,
	QUIC_DROP_RCVBUF,
	QUIC_DROP_PENDING,
	QUIC_DROP_OOO_OVERHEAD,
	QUIC_DROP_CRYPTO_GAPS,
	QUIC_DROP_DISPATCH,
	QUIC_DROP_RETRY,	/* a Retry a client must not follow */
	QUIC_DROP_TOKEN,	/* an Initial with a bad Retry token */
	QUIC_DROP_VN_RATE,
	QUIC_DROP_EARLY,	/* 0-RTT packets not read (early_data.c) */
	QUIC_DROP_PATH,		/* from a peer address refused (path.c) */
	QUIC_DROP_TRAIN,	/* a UDP GSO skb not taken apart (udp.c) */
	QUIC_DROP_CSUM,		/* a bad UDP checksum (udp.c) */
	QUIC_DROP_DISPATCH_STALE, /* an Initial of a connection gone */
	QUIC_DROP_OTHER_SCID,	/* a client's: not its server's SCID */
	QUIC_DROP_RETRY_SUPERSEDED, /* a queued Initial a Retry answered */
	QUIC_DROP_MAX,
};

extern atomic_long_t quic_drops[QUIC_DROP_MAX];
extern const char *const quic_drop_names[QUIC_DROP_MAX];

#define QUIC_DROP(sk, reason) do {					\
	atomic_long_inc(&quic_drops[QUIC_DROP_##reason]);		\
	net_dbg_ratelimited("quic: %p: drop: %s\n", (sk),		\
			    quic_drop_names[QUIC_DROP_##reason]);	\
} while (0)

/* Counters of packets and recovery events (/proc/net/quic_stats). */
enum quic_stat {
	QUIC_STAT_PKT_SENT,
	QUIC_STAT_PKT_RECV,
	QUIC_STAT_PKT_LOST,
	QUIC_STAT_PTO,
	QUIC_STAT_PERSISTENT,
	QUIC_STAT_STREAM_RETX,
	QUIC_STAT_PKT_SPURIOUS,
	QUIC_STAT_CONG_UNDO,
	QUIC_STAT_KEY_UPDATE,
	QUIC_STAT_PENDING,	/* a gauge: pending connections now (socket.c) */
	QUIC_STAT_REFUSED,	/* no listener for the ALPN (dispatch.c) */
	QUIC_STAT_DATA_BLOCKED_RX,	/* the peer's DATA_BLOCKED frames */
	QUIC_STAT_STREAM_BLOCKED_RX,	/* and its STREAM_DATA_BLOCKED */
	QUIC_STAT_RETRY_SENT,		/* Retry packets a listener sent */
	QUIC_STAT_RETRY_RECV,		/* Retry packets a client followed */
	QUIC_STAT_TOKEN_OK,		/* valid tokens in Initials */
	QUIC_STAT_TOKEN_BAD,		/* forged, expired or foreign ones */
	QUIC_STAT_NEW_TOKEN_SENT,	/* NEW_TOKEN frames queued */
	QUIC_STAT_VN_SENT,	/* Version Negotiation (version.c) */
	QUIC_STAT_VN_RECV,
	QUIC_STAT_GREASED,	/* packets sent with the fixed bit 0 */
	QUIC_STAT_EARLY_SENT,		/* 0-RTT packets (early_data.c) */
	QUIC_STAT_EARLY_RECV,
	QUIC_STAT_EARLY_REJECTED,	/* client connections whose 0-RTT was */
	QUIC_STAT_EARLY_REPLAY,		/* 0-RTT keys the replay filter refused */
	QUIC_STAT_COMPAT_VN,	/* connections moved to another version */
	QUIC_STAT_ECN_ECT0_SENT,	/* packets sent ECT(0) (ecn.h) */
	QUIC_STAT_ECN_CE_RECV,		/* packets received ECN-CE */
	QUIC_STAT_ECN_CE_EVENT,		/* congestion events from ECN-CE */
	QUIC_STAT_ECN_FAILED,		/* ECN validation failures */
	QUIC_STAT_DGRAM_SENT,		/* RFC 9221 (datagram.c) */
	QUIC_STAT_DGRAM_RECV,
	QUIC_STAT_DGRAM_LOST,		/* in packets declared lost */
	QUIC_STAT_DGRAM_TX_DROPPED,	/* no longer fitting a packet */
	QUIC_STAT_DGRAM_RX_DROPPED,	/* receive queue full: the oldest */
	QUIC_STAT_PATH_CHANGE,	/* active paths changed (path.c) */
	QUIC_STAT_PATH_VALID,	/* new paths validated */
	QUIC_STAT_GSO_TRAINS,	/* UDP GSO skbs of 2 or more datagrams */
	QUIC_STAT_GSO_SEGS,	/* the datagrams in them (output.c) */
	QUIC_STAT_GRO_TRAINS,	/* UDP GSO skbs received whole (udp.c) */
	QUIC_STAT_GRO_SEGS,	/* the datagrams in them */
	QUIC_STAT_RX_DEFERRED,	/* datagrams left to a reader (input.c) */
	QUIC_STAT_RX_LATE,	/* of them, processed by a timer instead */
	QUIC_STAT_RX_WAKES_SAVED,	/* data wake-ups merged in a train's */
	QUIC_STAT_RX_SKBS_MERGED,	/* stream pieces added to a ready skb */
	QUIC_STAT_MAX,
};

extern atomic_long_t quic_stats[QUIC_STAT_MAX];

#define QUIC_INC_STATS(name, n)	\
	atomic_long_add((n), &quic_stats[QUIC_STAT_##name])

/* proc.c */
int quic_proc_init(void);
void quic_proc_exit(void);
void quic_proc_add(struct sock *sk);
void quic_proc_del(struct sock *sk);

/* IPv6 sockets carry struct ipv6_pinfo after the QUIC state. */
struct quic6_sock {
	struct quic_sock	quic;
	struct ipv6_pinfo	inet6;
};

static inline struct quic_sock *quic_sk(const struct sock *sk)
{
	return (struct quic_sock *)sk;
}

static inline bool quic_is_bound(const struct sock *sk)
{
	return !!quic_sk(sk)->udp;
}

/* Has this socket ever had a connection (it cannot be reused for another)? */
static inline bool qs_was_connected(const struct sock *sk)
{
	return quic_sk(sk)->peer.sa.sa_family != 0;
}

static inline bool qs_never_connected(const struct sock *sk)
{
	return !qs_was_connected(sk);
}

int quic_sock_init(struct sock *sk);
void quic_sock_destroy(struct sock *sk);
void quic_sock_close(struct sock *sk, long timeout);
int quic_sock_bind(struct sock *sk, struct sockaddr *addr, int addr_len);
int quic_sock_hash(struct sock *sk);
int quic_sock_bind_any(struct sock *sk);
void quic_sock_unhash(struct sock *sk);
int quic_sock_sendmsg(struct sock *sk, struct msghdr *msg, size_t len);
int quic_sock_recvmsg(struct sock *sk, struct msghdr *msg, size_t len,
		      int flags, int *addr_len);

int quic_inet_bind(struct socket *sock, struct sockaddr *addr, int addr_len);
int quic_inet_connect(struct socket *sock, struct sockaddr *addr,
		      int addr_len, int flags);
int quic_inet_listen(struct socket *sock, int backlog);
int quic_inet_accept(struct socket *sock, struct socket *newsock,
		     struct proto_accept_arg *arg);
int quic_accept_enqueue(struct sock *sk, struct sk_buff *skb);
void quic_accept_enqueue_slot(struct sock *sk, struct sk_buff *skb);
unsigned int quic_pending_cap(const struct sock *lsk);
bool quic_pending_full(const struct quic_udp_sock *us, const struct sock *lsk);
bool quic_pending_try_get(struct quic_udp_sock *us, unsigned int cap);
void quic_pending_put(struct quic_udp_sock *us);
void quic_pending_done(struct sock *sk);
int quic_sock_attach_udp(struct sock *sk, struct quic_udp_sock *us);
int quic_inet_getname(struct socket *sock, struct sockaddr *addr, int peer);
__poll_t quic_inet_poll(struct file *file, struct socket *sock,
			struct poll_table_struct *wait);
int quic_inet_shutdown(struct socket *sock, int how);

/* sysctl.c */
extern int sysctl_quic_wmem_default;
extern int sysctl_quic_rmem_default;
extern unsigned long sysctl_quic_key_update_packets;
extern unsigned long sysctl_quic_aead_integrity_limit;
extern int sysctl_quic_max_pending_connections;
extern int sysctl_quic_retry_threshold;
extern int sysctl_quic_new_token;
int quic_sysctl_init(void);
void quic_sysctl_exit(void);

/* event.c */
int quic_event_queue(struct sock *sk, u8 type, const void *data, u32 len);

/* key_update.c */
void quic_key_update_init(struct sock *sk);
void quic_key_update_free(struct sock *sk);
int quic_key_update_on_rx(struct sock *sk, enum quic_crypto_key_role keys,
			  u64 pn, u32 *terr);
bool quic_key_update_ack_allowed(struct sock *sk,
				 enum quic_crypto_key_role keys, u64 largest);
void quic_key_update_on_ack(struct sock *sk, u64 largest);
void quic_key_update_on_sent(struct sock *sk, u64 pn, u64 ack_largest);
bool quic_key_update_integrity_exceeded(struct sock *sk);
int quic_key_update_initiate(struct sock *sk);
bool quic_key_update_auto(struct sock *sk);
void quic_key_update_discard_prev(struct sock *sk);

/* sockopt.c */
int quic_sock_setsockopt(struct sock *sk, int level, int optname,
			 sockptr_t optval, unsigned int optlen);
int quic_sock_getsockopt(struct sock *sk, int level, int optname,
			 char __user *optval, int __user *optlen);

#endif /* _NET_QUIC_SOCKET_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Paths (RFC 9000 §8.2, §9; RFC 9002 §9.4).  A connection has one active
 * path: the peer address, local address, UDP tunnel socket, route cache
 * and anti-amplification count in struct quic_sock.  Here is the one other
 * path it may know while a path changes:
 *
 * - QUIC_PATH_ALT_OLD: the connection moved (the client to a new local
 *   address with QUIC_SOCKOPT_CONNECTION_MIGRATION, or the server to the
 *   peer's new address after a non-probing packet from it, §9.3) and the
 *   new path is being validated; @alt is the path it left, which it goes
 *   back to if validation fails (§9.3.2), and is released when it succeeds.
 * - QUIC_PATH_ALT_PROBE: a server got a probing packet with a
 *   PATH_CHALLENGE from another peer address (§9.1): @alt is that path, on
 *   which the PATH_RESPONSE goes (§8.2.2), while everything else stays on
 *   the active path.
 *
 * All fields are protected by the socket lock.
 */

#ifndef _NET_QUIC_PATH_H
#define _NET_QUIC_PATH_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/sockptr.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <net/dst_cache.h>

#include "constants.h"
#include "recovery.h"

struct sock;
struct sk_buff;
struct quic_udp_sock;
struct quic_wr;

/* A socket address of ours: 28 bytes where sockaddr_storage takes 128. */
union quic_addr {
	struct sockaddr		sa;
	struct sockaddr_in	v4;
	struct sockaddr_in6	v6;
};

/* PATH_CHALLENGEs sent for one validation before it is abandoned. */
#define QUIC_PATH_MAX_TRIES	5

enum quic_path_alt {
	QUIC_PATH_ALT_NONE,
	QUIC_PATH_ALT_OLD,
	QUIC_PATH_ALT_PROBE,
};

/* A path that is not the active one: the fields of struct quic_sock's. */
struct quic_path {
	union quic_addr		peer;
	union quic_addr		local;
	struct quic_udp_sock	*udp;	/* a reference of ours */
	struct dst_cache	dst_cache;
	struct quic_amp		amp;
};

struct quic_paths {
	struct quic_path	alt;
	u8			alt_state;	/* enum quic_path_alt */
	bool			dst_ready;	/* alt.dst_cache allocated */
	bool			swapped;	/* @alt is active for one probe */
	/* Validation of the active path (RFC 9000 §8.2.1). */
	bool			validating;
	bool			challenge_due;	/* in the next 1-RTT packet */
	bool			local_move;	/* the move was ours (event) */
	bool			reset_cc;	/* not a port-only change */
	u8			tries;
	u8			challenge[QUIC_PATH_CHALLENGE_LEN];
	u64			abandon_at;	/* quic_now() microseconds */
	u64			interval;	/* between challenges, us */
	/* PATH_RESPONSE owed on @alt (QUIC_PATH_ALT_PROBE). */
	bool			alt_resp_due;
	u8			alt_resp[QUIC_PATH_CHALLENGE_LEN];
	/* Client: the server address the handshake came from (§9). */
	union quic_addr		hs_peer;
	bool			hs_peer_set;
	/*
	 * Server's preferred address (RFC 9000 §9.6): set on the listener,
	 * which holds a tunnel socket there; its connections hold it too.
	 */
	union quic_addr		pref;
	struct quic_udp_sock	*pref_udp;	/* a reference of ours */
	bool			pref_used;	/* a packet came to it */
	u32			migrations;	/* path changes so far */
	struct timer_list	timer;		/* PATH_CHALLENGE again */
	/*
	 * The last reference of a tunnel socket a client left (or failed to
	 * move to): put by @udp_work, since the put may sleep.
	 */
	struct quic_udp_sock	*stale;
	struct work_struct	udp_work;
};

void quic_path_init(struct sock *sk);
void quic_path_free(struct sock *sk);

/* input.c */
bool quic_path_rx_drop(struct sock *sk, struct sk_buff *skb, u8 level);
void quic_path_on_rx(struct sock *sk, struct sk_buff *skb, u8 level,
		     bool newest, bool probing);
void quic_path_on_challenge(struct sock *sk, struct sk_buff *skb,
			    const u8 *data);
void quic_path_on_response(struct sock *sk, const u8 *data);

/* output.c */
bool quic_path_wants_send(struct sock *sk);
bool quic_path_fill(struct sock *sk, struct quic_wr *wr);
bool quic_path_small_ok(struct sock *sk);
bool quic_path_probe_begin(struct sock *sk);
void quic_path_probe_end(struct sock *sk);
bool quic_path_probing(struct sock *sk);

/* connection.c, input.c: the preferred address */
void quic_path_inherit(struct sock *lsk, struct sock *sk);
int quic_path_pref_start(struct sock *sk);
void quic_path_pref_migrate(struct sock *sk);

/* sockopt.c */
int quic_path_set_migration(struct sock *sk, sockptr_t optval,
			    unsigned int optlen);

/* The active path changed: what depends on it starts again. */
void quic_path_changed(struct sock *sk);

#endif /* _NET_QUIC_PATH_H */

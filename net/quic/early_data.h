/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 0-RTT (RFC 9000 §7.4.1, RFC 9001 §4.6, §4.9.3): a client that has a
 * session ticket and the server's remembered transport parameters sends
 * stream data in 0-RTT packets before the handshake completes; a server
 * reads them once libquic installs the 0-RTT receive key, which it does
 * only when TLS accepted early data and the replay filter below let the
 * ClientHello through.
 *
 * The signal of rejection, libquic to kernel: on a client,
 * QUIC_SOCKOPT_CRYPTO_SECRET with level QUIC_CRYPTO_EARLY, send = 1 and
 * type = 0 (no cipher) withdraws the 0-RTT send key.  Given before the 1-RTT
 * secrets, it means "the server rejected 0-RTT": the 0-RTT packets in
 * flight leave recovery without a congestion penalty and the streams send
 * everything again from offset 0 in 1-RTT, under the server's real
 * transport parameters.  1-RTT keys installed without it mean "accepted".
 *
 * Locking: all of it under the socket lock, except the replay filter,
 * which is shared by every socket of the module and has its own spinlock.
 */

#ifndef _NET_QUIC_EARLY_DATA_H
#define _NET_QUIC_EARLY_DATA_H

#include <linux/types.h>
#include <linux/workqueue.h>

#include "transport_param.h"

struct sock;
struct sk_buff;
struct quic_crypto_secret;

#define QUIC_HELLO_RANDOM_LEN	32

struct quic_early {
	/* The flags first, without holes between them. */
	bool	tp_applied;	/* client: streams opened under the remembered TPs */
	bool	used;		/* client: some 0-RTT packet went out */
	bool	rejected;	/* client, libquic: the server rejected 0-RTT */
	bool	rx_closed;	/* server: 0-RTT packets are no longer read */
	u32	hello_mask;	/* server: bytes of ClientHello.random seen */
	u64	last_pn;	/* client: largest packet number sent in 0-RTT */
	/*
	 * Client: the server's parameters remembered for 0-RTT (remote = 1):
	 * set with peer_tp_saved, allocated then as only a resuming
	 * client needs them (charged to the socket).
	 */
	struct quic_transport_params *tp;
	/* Server. */
	u64	rx_close_at;	/* us: the first 1-RTT packet + 3 PTO */
	u8	hello_random[QUIC_HELLO_RANDOM_LEN];
	/* Listener: the DCID of the Initial accept() is setting up. */
	struct quic_cid accepting;
	/* Server: drops the 0-RTT keys once rx_closed (process context). */
	struct work_struct discard_work;
};

/* What to do with a received 0-RTT packet (quic_early_data_rx()). */
enum quic_early_rx {
	QUIC_EARLY_RX_READ,
	QUIC_EARLY_RX_HOLD,	/* its key may come: keep it a while */
	QUIC_EARLY_RX_DROP,
};

int quic_early_data_init(void);
void quic_early_data_exit(void);
void quic_early_data_sock_init(struct sock *sk);
void quic_early_data_sock_free(struct sock *sk);
int quic_early_data_remote_tp(struct sock *sk,
			      const struct quic_transport_params *tp);
int quic_early_data_send_check(struct sock *sk);
bool quic_early_data_stream_live(const struct sock *sk);
bool quic_early_data_can_send(struct sock *sk);
void quic_early_data_on_sent(struct sock *sk, u64 pn);
int quic_early_data_secret(struct sock *sk,
			   const struct quic_crypto_secret *s);
int quic_early_data_app_key(struct sock *sk);
void quic_early_data_reset(struct sock *sk);
enum quic_early_rx quic_early_data_rx(struct sock *sk);
void quic_early_data_on_rx(struct sock *sk, u8 level);
void quic_early_data_hello(struct sock *sk, u8 level, u64 offset,
			   const u8 *data, u64 len);
bool quic_early_data_stream_readable(const struct sock *sk);
bool quic_early_data_listen_keep(struct sock *sk, struct sk_buff *skb);
void quic_early_data_accepting(struct sock *sk, const struct sk_buff *skb);

#endif /* _NET_QUIC_EARLY_DATA_H */

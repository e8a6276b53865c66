/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A fake QUIC kernel for host tests of libquic.  The test binary is linked
 * with --wrap=sendmsg,recvmsg,setsockopt,getsockopt,poll: calls on a fake
 * socket get the QUIC semantics below, calls on any other fd go to libc.
 *
 * A pair of fake sockets is a connected client and server.  Each fd is one
 * end of a real socketpair (for identity, and so SOL_SOCKET options such as
 * SO_RCVTIMEO work); the data never goes through it.
 *  - sendmsg with QUIC_HANDSHAKE_INFO queues the bytes to the peer at that
 *    level (refused at a level whose send secret is not installed, and at
 *    APP before the handshake is complete); recvmsg returns them with the
 *    same cmsg.  A client keeps APP-level handshake bytes (NewSessionTicket)
 *    for getsockopt(QUIC_SOCKOPT_SESSION_TICKET), in place of the session
 *    data set there, from when its APP receive secret is installed (those
 *    that come before wait for it).
 *  - sendmsg with QUIC_STREAM_INFO queues stream data to the peer, recvmsg
 *    returns it with a QUIC_STREAM_INFO cmsg (FIN in stream_flags).
 *  - setsockopt CRYPTO_SECRET / TRANSPORT_PARAM_EXT / ALPN /
 *    CONNECTION_CLOSE / SESSION_TICKET are recorded; the second APP secret
 *    makes the socket ESTABLISHED; CONNECTION_CLOSE wakes the peer, whose
 *    recvmsg then fails with ECONNRESET.
 *  - getsockopt TRANSPORT_PARAM_EXT returns tp_local, ALPN alpn_preset,
 *    SESSION_TICKET the stored bytes, CONNECTION_CLOSE the peer's close,
 *    CONFIG the config the test set.
 *  - poll on a fake fd waits for queued data (POLLIN), always POLLOUT.
 */

#ifndef FAKE_KERNEL_H
#define FAKE_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <netinet/quic.h>

#define FK_MAX_SECRETS	16
#define FK_MAX_EVENTS	128

enum fk_event_type {
	FK_EV_SEND,	/* handshake bytes sent */
	FK_EV_RECV,	/* handshake bytes received */
	FK_EV_SECRET,
	FK_EV_ALPN,
	FK_EV_TP,
	FK_EV_CLOSE,
};

struct fk_event {
	enum fk_event_type type;
	uint8_t level;
	uint8_t send;
	size_t len;
	size_t hs_recvd;	/* HANDSHAKE-level bytes received so far */
	size_t peer_hs_sent;	/* HANDSHAKE-level bytes the peer sent so far */
};

struct fk_chunk;

struct fk_sock {
	int fd, other_fd;
	struct fk_sock *peer;
	int is_server;

	/* set up by the test */
	uint8_t tp_local[256];
	size_t tp_local_len;
	char alpn_preset[256];
	size_t alpn_preset_len;
	int fail_tp_set;		/* errno for TRANSPORT_PARAM_EXT set */
	struct quic_config config;	/* what getsockopt CONFIG returns */

	/* kernel state */
	struct fk_chunk *rx_head, *rx_tail;
	int peer_closed;
	struct quic_connection_close peer_close;
	int tx_key[QUIC_CRYPTO_MAX];
	int app_keys;
	int established;
	uint8_t ticket[8192];
	size_t ticket_len;
	int app_rx;			/* client: APP receive key installed */
	uint8_t held[8192];		/* tickets that came before it */
	size_t held_len;

	/* records */
	struct quic_crypto_secret secrets[FK_MAX_SECRETS];
	int nsecrets;
	struct fk_event events[FK_MAX_EVENTS];
	int nevents;
	uint8_t tp_peer[4096];
	size_t tp_peer_len;
	int tp_set_count;
	char alpn_selected[256];
	int alpn_set_count;
	struct quic_connection_close close;
	int close_set;
	size_t hs_sent[QUIC_CRYPTO_MAX], hs_recvd[QUIC_CRYPTO_MAX];
	int violations;
	char violation[256];
	struct quic_stream_info last_sinfo;
	int last_send_flags;
};

/* A connected client/server pair; client->fd and server->fd are the fds. */
int fk_pair(struct fk_sock **client, struct fk_sock **server);
void fk_pair_free(struct fk_sock *client, struct fk_sock *server);

/* The recorded secret (send or receive) at a level, NULL if none. */
const struct quic_crypto_secret *fk_secret(const struct fk_sock *s,
					   uint8_t level, int send);
/* Index of the first/last event matching, -1 if none. */
int fk_event_find(const struct fk_sock *s, enum fk_event_type type, int level,
		  int send, int last);
/* Bytes queued to s not yet read. */
size_t fk_pending(struct fk_sock *s);

#endif /* FAKE_KERNEL_H */

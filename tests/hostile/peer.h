/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The attacking client of the hostile-traffic suite: a QUIC v1 client
 * over a plain UDP socket that completes a real TLS 1.3 handshake with a
 * server, then knows every key and can send any frame in any packet.
 *
 * TLS is libquic's, driven through its step API (quic_handshake_init/
 * quic_handshake_step), so no socket I/O of libquic is involved: we move
 * the handshake bytes ourselves, in CRYPTO frames of Initial and
 * Handshake packets.  The remaining calls libquic makes on its socket
 * (getsockopt of our transport parameters and config, setsockopt of the
 * secrets, the server's transport parameters, the ALPN and a close) land
 * on a fake fd: the program is linked with
 *	-Wl,--wrap=setsockopt,--wrap=getsockopt
 * and peer.c plays the kernel for that fd (calls on other fds go to libc).
 *
 * Packet protection, headers, frames and transport parameters come from
 * tests/selftests/craft.h.  The client:
 *  - pads every datagram with an Initial to 1200 bytes, coalesces
 *    Initial, Handshake and 1-RTT packets, and splits CRYPTO data over as
 *    many packets as it takes;
 *  - ACKs what the server sends (unless told not to: ap_conn.auto_ack),
 *    follows its key updates and can start its own;
 *  - retransmits its own CRYPTO data on a timeout until it is ACKed, and
 *    takes the server's retransmissions, reordering and coalescing;
 *  - discards Initial keys when it first sends a Handshake packet and
 *    Handshake keys on HANDSHAKE_DONE (RFC 9001 §4.9);
 *  - reads hq-interop answers ("GET /path\r\n") to FIN, with flow-control
 *    credit given as they arrive; a request is sent again every second
 *    until it is ACKed (nothing else of ours in 1-RTT is retransmitted).
 * Every received frame is also handed to an optional callback, with the
 * kernel's receive timestamp of its datagram, for the attacks to count.
 *
 * Single-threaded: one process may run several connections and must
 * drive them from one thread (ap_run() and friends).
 */

#ifndef QUIC_HOSTILE_PEER_H
#define QUIC_HOSTILE_PEER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <gnutls/gnutls.h>

#include "craft.h"
#include "procfs.h"

#define AP_INITIAL	0
#define AP_HANDSHAKE	1
#define AP_APP		2
#define AP_SPACES	3

#define AP_RANGES_MAX	256	/* oldest ranges are forgotten past this */
#define AP_CRYPTO_MAX	65536	/* CRYPTO bytes per level either way */
#define AP_SENT_MAX	256	/* our Initial/Handshake packets remembered */
#define AP_STREAMS_MAX	16	/* answers read per connection */
#define AP_HOLD_MAX	8	/* packets held until their keys come */

/* A set of integers (packet numbers, byte offsets) as ranges. */
struct ap_ranges {
	int n;
	struct cr_range r[AP_RANGES_MAX];	/* highest first, disjoint */
};

void ap_ranges_init(struct ap_ranges *s);
/* Add [lo, hi]; when full, the lowest range is dropped. */
void ap_ranges_add(struct ap_ranges *s, uint64_t lo, uint64_t hi);
int ap_ranges_has(const struct ap_ranges *s, uint64_t v);
/* The end (exclusive) of the run of values starting at @from; @from if none. */
uint64_t ap_ranges_run_end(const struct ap_ranges *s, uint64_t from);

/* One of our Initial or Handshake packets that carried CRYPTO data. */
struct ap_sent {
	uint64_t pn;
	uint64_t off, len;
};

struct ap_space {
	struct cr_keys tx, rx;
	int tx_ready, rx_ready, discarded;
	uint64_t next_pn;
	struct ap_ranges rcvd;		/* the server's packet numbers */
	uint64_t largest_rx;		/* CR_PN_NONE while none */
	int ack_needed;			/* an ack-eliciting one not ACKed */
	uint64_t largest_acked;		/* of ours, CR_PN_NONE while none */
	/* CRYPTO of the server, and how far TLS has read it */
	uint8_t crx[AP_CRYPTO_MAX];
	struct ap_ranges crx_have;
	uint64_t crx_read;
	/* our CRYPTO, what of it was sent and what was ACKed */
	uint8_t ctx[AP_CRYPTO_MAX];
	uint64_t ctx_len, ctx_sent;
	struct ap_ranges ctx_acked;
	struct ap_sent sent[AP_SENT_MAX];
	int n_sent;
};

/* An answer being read on one of our bidirectional streams. */
struct ap_stream {
	int64_t id;			/* -1: free */
	uint8_t *buf;			/* NULL: only counted */
	size_t cap;
	struct ap_ranges have;		/* byte ranges received */
	uint64_t fin;			/* final size, UINT64_MAX while unknown */
	uint64_t bytes;			/* new bytes received */
	uint64_t credit;		/* the MAX_STREAM_DATA we gave */
	int reset;
	uint64_t reset_code;
	/* our request on it, sent again until ACKed or answered */
	uint8_t req[1100];
	size_t req_len;
	uint64_t req_pn;
	long long req_at;
	int req_acked;
};

/* How a connection ended, as the server told us. */
struct ap_close {
	int closed;			/* a CONNECTION_CLOSE came */
	int app;			/* 0x1d rather than 0x1c */
	uint64_t error, frame_type;
	char reason[128];
	int space;			/* AP_* it came in */
};

struct ap_conn;
struct quic_handshake_step;

/*
 * Called for every frame of every packet of the server, after the
 * client's own processing: @space is AP_*, conn->rx_ts_ns the datagram's
 * arrival (CLOCK_REALTIME, from SO_TIMESTAMPNS), conn->rx_pn its number.
 */
typedef void (*ap_frame_cb)(struct ap_conn *c, int space,
			    const struct cr_frame *f, void *arg);

struct ap_opts {
	const char *server;		/* "ADDR:PORT" or "[V6]:PORT" */
	const char *alpn;		/* default "hq-interop" */
	const char *sni;		/* default "localhost" */
	int chacha;			/* offer ChaCha20-Poly1305 only */
	int verbose;			/* every packet on stderr */
	int timeout_ms;			/* of the handshake, default 20000 */
};

struct ap_conn {
	struct ap_opts o;
	int fd;				/* UDP, connected to the server */
	int fake_fd;			/* what libquic calls the kernel */
	uint16_t local_port;
	gnutls_session_t tls;
	gnutls_certificate_credentials_t cred;
	struct quic_handshake_step *step;
	int tls_done, tls_err;
	char alpn[32];

	uint8_t scid[8];		/* ours */
	uint8_t odcid[8];		/* our first DCID */
	uint8_t dcid[CR_MAX_CID];	/* the server's SCID */
	size_t dcid_len;
	int dcid_set;

	struct ap_space sp[AP_SPACES];
	/* 1-RTT keys by generation g, at [g % 4]: rx of rx_gen - 1 to + 1 */
	struct cr_keys app_tx[4], app_rx[4];
	int tx_gen, rx_gen;
	uint64_t ku_first_pn;		/* our first packet of tx_gen */
	int ku_confirmed;		/* the server ACKed it in our phase */
	int key_updates_ours, key_updates_server;

	struct cr_tp peer_tp;		/* the server's transport parameters */
	int have_peer_tp;
	uint8_t tp_local[256];
	size_t tp_local_len;

	int established;		/* 1-RTT keys both ways */
	int confirmed;			/* HANDSHAKE_DONE came */
	struct ap_close close;
	int auto_ack;			/* ACK the server's packets (default 1) */

	/* held packets of a level whose keys were not there yet */
	uint8_t *hold[AP_HOLD_MAX];
	size_t hold_len[AP_HOLD_MAX];
	int n_hold;

	/* streams */
	struct ap_stream st[AP_STREAMS_MAX];
	int64_t next_bidi;		/* the next stream id we open */
	uint64_t max_data_given, rx_stream_bytes;
	uint64_t peer_max_streams_bidi;	/* from the TPs and MAX_STREAMS */

	/* counters */
	uint64_t tx_bytes, tx_dgrams, rx_bytes, rx_dgrams, rx_packets;
	uint64_t rx_undecryptable, rx_dropped;
	uint64_t rx_ts_ns;		/* the datagram being processed */
	uint64_t rx_pn;			/* the packet being processed */
	int rx_key_phase;

	long long pto_deadline;		/* of our CRYPTO retransmission */
	int pto_ms;

	/* the server socket's charge (procfs), -1 when unknown */
	long long charge_last, charge_peak;
	struct hp_conn peak_line;	/* its line at the peak */

	ap_frame_cb on_frame;
	void *cb_arg;
};

/* ---- life cycle ---- */

/*
 * Set up @c and send the first Initial (libquic's ClientHello, padded to
 * 1200 bytes).  0, or -1 with a message on stderr.
 */
int ap_start(struct ap_conn *c, const struct ap_opts *o);
/*
 * ap_start() and run until the handshake is complete and confirmed
 * (HANDSHAKE_DONE), within o->timeout_ms.  0 or -1.
 */
int ap_connect(struct ap_conn *c, const struct ap_opts *o);
/* Send CONNECTION_CLOSE (transport, @error; unless the server closed). */
void ap_close(struct ap_conn *c, uint64_t error);
/* Free everything; the socket is closed (after ap_close() or not). */
void ap_free(struct ap_conn *c);

/* ---- running ---- */

long long ap_now_ms(void);		/* CLOCK_MONOTONIC */
uint64_t ap_realtime_ns(void);		/* CLOCK_REALTIME, as rx_ts_ns */

/*
 * Read and process what the server sent for at most @ms (0: only what is
 * there), then send the ACKs due and any retransmission.  Returns the
 * packets processed, or -1 on a socket error.
 */
int ap_run(struct ap_conn *c, int ms);
/* ap_run() on several connections at once, for at most @ms. */
int ap_run_many(struct ap_conn **cs, int n, int ms);
/* Run until @done(c, arg) is true, the server closes, or @ms pass; 0 if done. */
int ap_run_until(struct ap_conn *c, int (*done)(struct ap_conn *, void *),
		 void *arg, int ms);

/* ---- sending ---- */

/*
 * One 1-RTT packet with @frames (@len bytes, at most ap_room()), after an
 * ACK of what we received if @with_ack.  Returns its packet number, or
 * CR_PN_NONE.
 */
uint64_t ap_send(struct ap_conn *c, const uint8_t *frames, size_t len,
		 int with_ack);
/* Bytes of frames that fit a 1-RTT packet of a 1200-byte datagram. */
size_t ap_room(const struct ap_conn *c, int with_ack);
/* A packet with only an ACK of the space's received packets, if any. */
void ap_send_ack(struct ap_conn *c, int space);
/*
 * One Initial or Handshake packet (@space) with @frames, padded to
 * @min_len bytes, alone in its datagram.  Its packet number or CR_PN_NONE.
 */
uint64_t ap_send_long(struct ap_conn *c, int space, const uint8_t *frames,
		      size_t len, size_t min_len);
/* Start a key update (RFC 9001 §6): -1 if the last one is unconfirmed. */
int ap_key_update(struct ap_conn *c);

/*
 * Open the next bidirectional stream and send "GET @path\r\n" with FIN
 * (hq-interop); the answer is kept (@keep) or only counted.  The stream
 * id, or -1.
 */
int64_t ap_request(struct ap_conn *c, const char *path, int keep);
struct ap_stream *ap_stream_find(struct ap_conn *c, int64_t id);
/* Track an answer on @id (counted only). */
struct ap_stream *ap_stream_track(struct ap_conn *c, int64_t id, int keep);

/* ---- the server's side ---- */

/*
 * The line of /proc/net/quic of this connection's server socket (server
 * 1, remote port ours) in @out: 0, or -1 when there is none (no procfs
 * here: not in the guest; or the connection is gone).
 */
int ap_server_line(struct ap_conn *c, struct hp_conn *out);

/*
 * Sample the charge of the server socket of this connection (procfs.h's
 * hp_charge() of its line): updates charge_last and charge_peak, returns
 * it, or -1 when there is no line.
 */
long long ap_charge_sample(struct ap_conn *c);

/* "PROTOCOL_VIOLATION" and the like, for reports; "CRYPTO_ERROR" for 0x1xx. */
const char *ap_error_name(uint64_t error);

#endif /* QUIC_HOSTILE_PEER_H */

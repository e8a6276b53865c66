// SPDX-License-Identifier: GPL-2.0
/*
 * flood: unauthenticated hostile traffic against a QUIC server, from plain
 * UDP sockets.  Nothing here needs a handshake: every packet is junk, or a
 * client Initial protected with the Initial keys anyone can derive from
 * the Destination Connection ID (RFC 9001 §5.2, craft.h).
 *
 *   flood ATTACK --port PORT [--host ADDR] [--count N] [--conns N]
 *                [--seconds S] [--seed N] [--cap N] [--hold-ms MS]
 *
 * Attacks (what each sends is described above its function):
 *   random          random datagrams, with and without a plausible header
 *   dcid            every DCID (and SCID) length 0-255, each packet type
 *   truncated       Initials cut at every length, Length fields that lie
 *   oversized       datagrams up to 65507 bytes, Initials as large
 *   initial-flood   thousands of Initials with fresh connection IDs
 *   frames          an Initial per frame type with malformed fields
 *   crypto-ooo      CRYPTO in 1-byte pieces at scattered offsets
 *   idle            nothing for --seconds (default 5): the runner's control
 *
 * The connections an attack makes carry the start of a ClientHello that
 * announces 60000 bytes, so the server's TLS stack waits for the rest
 * instead of failing at once: the connection stays open (pending) for as
 * long as the attack needs it, and whatever closes it is the kernel's
 * doing.  At its end every attack closes its connections with a
 * CONNECTION_CLOSE in an Initial, so that the server does not keep them
 * until its handshake timeout.
 *
 * Output, as hostile_peer's: TAP lines "ok N - what" or "not ok N - what"
 * for each check of the server (described with each attack), "# text"
 * for a reader, "# key=value" for the numbers (attacker_bytes,
 * server_bytes...), and the plan "1..N" last.  Exit status 0 if every
 * check held, 1 if one failed, 2 if the attack could not run.  Memory is
 * measured by the runner (memwatch), not here.  --seed makes a run's junk
 * again (each run prints its seed).
 */

#include "craft.h"
#include "addr.h"
#include "procfs.h"
#include "report.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#define FL_SOCKS	8		/* source ports the attack uses */
#define FL_HELLO	200		/* ClientHello bytes sent at offset 0 */
#define FL_HELLO_ANNOUNCED 60000	/* ... of the length it announces */
#define FL_MAX_DGRAM	65507		/* largest UDP payload over IPv4 */
#define FL_WAIT_MS	8000		/* for the server's answers (TCG guest) */

#define QUIC_V2		0x6b3343cfu

/* RFC 9000 §20.1 transport error codes the server may close with. */
#define ERR_FRAME_ENCODING	0x07
#define ERR_PROTOCOL_VIOLATION	0x0a
#define ERR_CRYPTO_BUFFER	0x0d

/* ---- the run ---- */

static struct {
	struct sockaddr_storage ss;
	socklen_t len;
	int family;
	int fds[FL_SOCKS];
	uint64_t rng;
	uint8_t tag[4];		/* in every SCID of this run */
	/* what went each way */
	uint64_t tx_bytes, tx_dgrams, rx_bytes, rx_dgrams;
	uint64_t vn;		/* Version Negotiation packets */
	uint64_t rx_unknown;	/* datagrams for no connection of ours */
	uint64_t rx_long_cid;	/* long headers with a DCID over 20 bytes */
	uint64_t send_errors;
	long long t_end;	/* --seconds: when to stop sending */
} g;

/* xorshift64*: reproducible junk from --seed. */
static uint64_t rnd(void)
{
	g.rng ^= g.rng >> 12;
	g.rng ^= g.rng << 25;
	g.rng ^= g.rng >> 27;
	return g.rng * 2685821657736338717ULL;
}

static uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(rnd() >> 32) % n;
}

static void rnd_fill(uint8_t *p, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(i % 8))
			v = rnd();
		p[i] = v >> (8 * (i % 8));
	}
}

static int time_left(void)
{
	return hp_now_ms() < g.t_end;
}

/* ---- sockets ---- */

static int socks_open(const char *host, int port)
{
	int i, buf = 4 << 20;

	g.family = strchr(host, ':') ? AF_INET6 : AF_INET;
	g.len = make_addr(g.family, host, port, &g.ss);
	for (i = 0; i < FL_SOCKS; i++) {
		g.fds[i] = socket(g.family, SOCK_DGRAM, 0);
		if (g.fds[i] < 0 ||
		    connect(g.fds[i], (struct sockaddr *)&g.ss, g.len)) {
			perror("flood: socket");
			return -1;
		}
		/* the server's answers must not be lost to a full buffer */
		setsockopt(g.fds[i], SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
		setsockopt(g.fds[i], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	}
	return 0;
}

/*
 * One datagram from socket @s.  A full socket buffer waits; other errors
 * are counted (an attacker does not care) and the datagram is lost.
 */
static void tx(int s, const void *buf, size_t len)
{
	int fd = g.fds[s % FL_SOCKS];

	for (;;) {
		if (send(fd, buf, len, 0) == (ssize_t)len) {
			g.tx_bytes += len;
			g.tx_dgrams++;
			return;
		}
		if (errno == EAGAIN || errno == ENOBUFS || errno == EINTR) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };

			poll(&p, 1, 10);
			continue;
		}
		g.send_errors++;
		return;
	}
}

/* ---- attacking connections ---- */

/*
 * A connection as the attacker sees it: the IDs it chose, both Initial
 * keys (the server's too: its Initials are read to see ACKs and
 * CONNECTION_CLOSE), and what the server said.
 */
struct conn {
	uint8_t dcid[255];	/* any length, for the dcid attack */
	size_t dcid_len;
	uint8_t scid[255];	/* tag, index, any bytes: the server's DCID */
	size_t scid_len;	/* 8, but for the dcid attack */
	int opened;		/* the server may hold it: close it at the end */
	int bye;		/* we closed it (CONNECTION_CLOSE sent) */
	struct cr_keys tx, rx;
	uint32_t pn;		/* our next packet number */
	int sock;
	uint64_t sent, rcvd;	/* bytes each way */
	uint64_t acked;		/* our packet numbers < 64 the server ACKed */
	uint64_t watch_pn;	/* the last PING's packet number */
	int watch_acked;	/* ... and whether the server ACKed it */
	uint64_t rx_largest;	/* of the server's packets, CR_PN_NONE */
	int replied;		/* the server sent an Initial we could open */
	int closed;		/* ... with CONNECTION_CLOSE */
	uint64_t err, frame_type;
};

/* Never reallocated: attacks keep pointers to their connections. */
#define FL_MAX_CONNS	8192

static struct conn *conns;
static int nconns;

static struct conn *conn_new(size_t dcid_len)
{
	struct conn *c;
	int i = nconns;

	if (!conns)
		conns = calloc(FL_MAX_CONNS, sizeof(*conns));
	if (!conns || nconns == FL_MAX_CONNS) {
		fprintf(stderr, "flood: more than %d connections\n",
			FL_MAX_CONNS);
		exit(2);
	}
	c = &conns[nconns++];
	memset(c, 0, sizeof(*c));
	c->dcid_len = dcid_len;
	rnd_fill(c->dcid, dcid_len);
	c->scid_len = 8;
	memcpy(c->scid, g.tag, 4);
	c->scid[4] = i >> 24;
	c->scid[5] = i >> 16;
	c->scid[6] = i >> 8;
	c->scid[7] = i;
	c->sock = i;
	c->rx_largest = CR_PN_NONE;
	if (cr_initial_keys(&c->tx, c->dcid, dcid_len, 0) ||
	    cr_initial_keys(&c->rx, c->dcid, dcid_len, 1)) {
		fprintf(stderr, "flood: Initial keys\n");
		exit(2);
	}
	return c;
}

/* The connection whose SCID the server wrote as its DCID, or NULL. */
static struct conn *conn_of(const uint8_t *dcid, size_t len)
{
	uint32_t i;

	if (len < 8 || memcmp(dcid, g.tag, 4))
		return NULL;
	i = (uint32_t)dcid[4] << 24 | dcid[5] << 16 | dcid[6] << 8 | dcid[7];
	if (i >= (uint32_t)nconns || conns[i].scid_len != len ||
	    memcmp(conns[i].scid, dcid, len))
		return NULL;
	return &conns[i];
}

/* Where build_initial() put the fields: for attacks that rewrite them. */
struct layout {
	size_t len_off;		/* the Length field, a 4-byte varint */
	size_t pn_off;
	size_t hdr_len;
};

/*
 * A client Initial of @c (QUIC v1, no token, 4-byte packet number, Length
 * as a 4-byte varint): @payload, then PADDING up to @min_len bytes of
 * packet.  Returns its length, or -1.
 */
static int build_initial(struct conn *c, const uint8_t *payload, size_t len,
			 size_t min_len, uint8_t *out, size_t cap,
			 struct layout *lay)
{
	size_t off = 0, hdr_len, pad = 0, body;
	uint32_t pn = c->pn++;

	hdr_len = 1 + 4 + 1 + c->dcid_len + 1 + c->scid_len + 1 + 4 + 4;
	if (hdr_len + len + CR_TAG_LEN < min_len)
		pad = min_len - hdr_len - len - CR_TAG_LEN;
	body = 4 + len + pad + CR_TAG_LEN;
	if (hdr_len + len + pad + CR_TAG_LEN > cap || body >= (1u << 30))
		return -1;
	out[off++] = 0xc3;		/* Initial, 4-byte packet number */
	out[off++] = 0;
	out[off++] = 0;
	out[off++] = 0;
	out[off++] = 1;
	out[off++] = c->dcid_len;
	memcpy(out + off, c->dcid, c->dcid_len);
	off += c->dcid_len;
	out[off++] = c->scid_len;
	memcpy(out + off, c->scid, c->scid_len);
	off += c->scid_len;
	out[off++] = 0;			/* token length */
	if (lay)
		lay->len_off = off;
	out[off++] = 0x80 | body >> 24;
	out[off++] = body >> 16;
	out[off++] = body >> 8;
	out[off++] = body;
	if (lay) {
		lay->pn_off = off;
		lay->hdr_len = hdr_len;
	}
	out[off++] = pn >> 24;
	out[off++] = pn >> 16;
	out[off++] = pn >> 8;
	out[off++] = pn;
	memcpy(out + off, payload, len);
	memset(out + off + len, 0, pad);
	return cr_protect(&c->tx, out, hdr_len, hdr_len - 4, pn, len + pad);
}

/* Build and send an Initial of @c padded to a 1200-byte datagram. */
static int send_initial(struct conn *c, const uint8_t *payload, size_t len)
{
	static uint8_t pkt[FL_MAX_DGRAM];
	int n = build_initial(c, payload, len, 1200, pkt, sizeof(pkt), NULL);

	if (n < 0)
		return -1;
	tx(c->sock, pkt, n);
	c->sent += n;
	return 0;
}

/*
 * The first FL_HELLO bytes of a ClientHello announcing FL_HELLO_ANNOUNCED:
 * a TLS stack waits for the rest.  CRYPTO at offset 0.
 */
static size_t put_hello(uint8_t *p)
{
	uint8_t hello[FL_HELLO];

	memset(hello, 0x5a, sizeof(hello));
	hello[0] = 1;				/* client_hello */
	hello[1] = FL_HELLO_ANNOUNCED >> 16;
	hello[2] = FL_HELLO_ANNOUNCED >> 8 & 0xff;
	hello[3] = FL_HELLO_ANNOUNCED & 0xff;
	hello[4] = 3;				/* legacy_version 1.2 */
	hello[5] = 3;
	return cr_put_crypto(p, 0, hello, sizeof(hello));
}

/* Open @c on the server: its first Initial, the start of a ClientHello. */
static int conn_open(struct conn *c)
{
	uint8_t frames[512];

	return send_initial(c, frames, put_hello(frames));
}

/* CONNECTION_CLOSE (NO_ERROR) in an Initial: the server drops @c. */
static void conn_close(struct conn *c)
{
	uint8_t f[8] = { CR_FRAME_CONNECTION_CLOSE, 0, 0, 0 };

	send_initial(c, f, 4);
}

/* A PING the server must ACK if @c is alive. */
static void conn_ping(struct conn *c)
{
	uint8_t f[1] = { CR_FRAME_PING };

	c->watch_pn = c->pn;
	c->watch_acked = 0;
	send_initial(c, f, 1);
}

static int conn_acked(const struct conn *c, uint32_t pn)
{
	return pn < 64 && (c->acked >> pn & 1);
}

/* ---- what the server sends ---- */

static const char *err_name(uint64_t e)
{
	switch (e) {
	case 0x00: return "NO_ERROR";
	case 0x01: return "INTERNAL_ERROR";
	case 0x03: return "FLOW_CONTROL_ERROR";
	case 0x04: return "STREAM_LIMIT_ERROR";
	case 0x05: return "STREAM_STATE_ERROR";
	case 0x06: return "FINAL_SIZE_ERROR";
	case ERR_FRAME_ENCODING: return "FRAME_ENCODING_ERROR";
	case 0x08: return "TRANSPORT_PARAMETER_ERROR";
	case 0x09: return "CONNECTION_ID_LIMIT_ERROR";
	case ERR_PROTOCOL_VIOLATION: return "PROTOCOL_VIOLATION";
	case ERR_CRYPTO_BUFFER: return "CRYPTO_BUFFER_EXCEEDED";
	}
	return e >= 0x100 && e <= 0x1ff ? "CRYPTO_ERROR" : "?";
}

/* One of the server's Initials to @c, at @pkt (@len bytes). */
static void rx_initial(struct conn *c, uint8_t *pkt, size_t len,
		       size_t pn_off)
{
	static uint8_t pt[FL_MAX_DGRAM];
	uint32_t trunc;
	size_t pn_len, off = 0;
	uint64_t pn;
	int n, k, i;

	if (cr_unprotect_header(&c->rx, pkt, len, pn_off, &trunc, &pn_len))
		return;
	pn = cr_decode_pn(c->rx_largest, trunc, pn_len);
	n = cr_open_payload(&c->rx, pkt, len, pn_off + pn_len, pn, pt);
	if (n < 0)
		return;
	if (c->rx_largest == CR_PN_NONE || pn > c->rx_largest)
		c->rx_largest = pn;
	c->replied = 1;
	while (off < (size_t)n) {
		struct cr_frame f;

		k = cr_frame_parse(pt + off, n - off, &f);
		if (k <= 0)
			break;
		off += k;
		if (f.type == CR_FRAME_ACK || f.type == CR_FRAME_ACK_ECN) {
			for (i = 0; i < f.n_ranges; i++) {
				uint64_t p;

				for (p = f.ranges[i].lo; p <= f.ranges[i].hi &&
				     p < 64; p++)
					c->acked |= 1ULL << p;
				if (c->watch_pn >= f.ranges[i].lo &&
				    c->watch_pn <= f.ranges[i].hi)
					c->watch_acked = 1;
			}
		} else if (f.type == CR_FRAME_CONNECTION_CLOSE ||
			   f.type == CR_FRAME_CONNECTION_CLOSE_APP) {
			if (!c->closed) {
				c->closed = 1;
				c->err = f.error;
				c->frame_type = f.frame_type;
			}
		}
	}
}

/* A datagram from the server: its packets, coalesced. */
static void rx_datagram(uint8_t *d, size_t n)
{
	size_t off = 0;

	while (off < n && (d[off] & 0x80)) {
		struct cr_long_hdr h;
		struct conn *c;

		/*
		 * v1 forbids IDs over 20 bytes: our long SCIDs echoed?  Not
		 * in Version Negotiation (version 0), which echoes the IDs of
		 * an unknown version as they came, up to 255 bytes (RFC 8999
		 * §5.1, RFC 9000 §17.2.1).
		 */
		if (n - off > 6 && d[off + 5] > CR_MAX_CID &&
		    (d[off + 1] | d[off + 2] | d[off + 3] | d[off + 4]))
			g.rx_long_cid++;
		if (cr_long_parse(d + off, n - off, &h))
			break;
		if (!h.version) {
			g.vn++;
			break;
		}
		c = conn_of(h.dcid, h.dcid_len);
		if (!c && !off)
			g.rx_unknown++;		/* VN counted above */
		if (c && !off)
			c->rcvd += n;
		if (c && h.type == CR_LONG_INITIAL && h.version == 1)
			rx_initial(c, d + off, h.pkt_len, h.pn_off);
		off += h.pkt_len;
	}
}

/* Read what the server sent, for up to @ms (0: what is there now). */
static void pump(int ms)
{
	static uint8_t buf[FL_MAX_DGRAM];
	struct pollfd p[FL_SOCKS];
	int i, got;

	for (i = 0; i < FL_SOCKS; i++) {
		p[i].fd = g.fds[i];
		p[i].events = POLLIN;
	}
	do {
		got = 0;
		for (i = 0; i < FL_SOCKS; i++) {
			ssize_t n;

			while ((n = recv(g.fds[i], buf, sizeof(buf),
					 MSG_DONTWAIT)) >= 0) {
				g.rx_bytes += n;
				g.rx_dgrams++;
				rx_datagram(buf, n);
				got = 1;
			}
		}
	} while (got || (ms > 0 && poll(p, FL_SOCKS, ms) > 0));
}

/* Pump until @done(arg) holds or @ms pass; whether it holds. */
static int pump_until(int (*done)(void *), void *arg, int ms);

static int ping_answered(void *arg)
{
	const struct conn *c = arg;

	return c->watch_acked;
}

/*
 * Is @c alive?  A PING, sent again every second as a client would (the
 * server may be slow, or the datagram lost), ACKed within @ms.
 */
static int ping_acked(struct conn *c, int ms)
{
	long long end = hp_now_ms() + ms;

	while (hp_now_ms() < end) {
		conn_ping(c);
		if (pump_until(ping_answered, c, 1000))
			return 1;
		if (c->closed)
			return 0;
	}
	return 0;
}

static int pump_until(int (*done)(void *), void *arg, int ms)
{
	long long end = hp_now_ms() + ms;

	for (;;) {
		pump(0);
		if (done(arg))
			return 1;
		if (hp_now_ms() >= end)
			return 0;
		pump(50);
	}
}

/* Connections [from, to). */
struct span {
	int from, to;
};

static int all_pinged(void *arg)
{
	const struct span *s = arg;
	int i;

	for (i = s->from; i < s->to; i++)
		if (!conns[i].closed && !conns[i].watch_acked)
			return 0;
	return 1;
}

/*
 * ping_acked() for every connection of @s not closed, at once: each ACKs
 * a PING (watch_acked), or is closed, or neither within @ms.
 */
static void ping_all(struct span *s, int ms)
{
	long long end = hp_now_ms() + ms;
	int i;

	while (hp_now_ms() < end) {
		for (i = s->from; i < s->to; i++)
			if (!conns[i].closed && !conns[i].watch_acked)
				conn_ping(&conns[i]);
		if (pump_until(all_pinged, s, 1000))
			return;
	}
}

static int all_closed(void *arg)
{
	struct span *s = arg;
	int i;

	for (i = s->from; i < s->to; i++)
		if (!conns[i].closed)
			return 0;
	return 1;
}

static int all_replied(void *arg)
{
	struct span *s = arg;
	int i;

	for (i = s->from; i < s->to; i++)
		if (!conns[i].replied)
			return 0;
	return 1;
}

/*
 * Close every connection the server may hold (it answered, or we sent it
 * a valid first Initial) and has not closed itself.
 */
static void close_all(void)
{
	int i, n = 0;

	for (i = 0; i < nconns; i++) {
		if ((conns[i].replied || conns[i].opened) && !conns[i].closed &&
		    !conns[i].bye) {
			conn_close(&conns[i]);
			n++;
		}
		if (!(i % 64))
			pump(0);
	}
	pump(200);
	note("closed %d connections with CONNECTION_CLOSE", n);
}

/*
 * Before validation the server may send at most three times what it
 * received (RFC 9000 §8.1): for each connection, what came back.
 */
static void check_amplification(void)
{
	double worst = 0;
	int i, worst_i = -1;

	for (i = 0; i < nconns; i++) {
		double r;

		if (!conns[i].sent)
			continue;
		r = (double)conns[i].rcvd / conns[i].sent;
		if (r > worst) {
			worst = r;
			worst_i = i;
		}
	}
	if (worst_i < 0)
		return;
	check(worst <= 3.0,
	      "before validation the server sent at most 3 times what it received: at most %.2f times (%llu bytes in, %llu out)",
	      worst, (unsigned long long)conns[worst_i].sent,
	      (unsigned long long)conns[worst_i].rcvd);
}

/*
 * The server still takes new connections: one opened as a client would,
 * its Initial sent again every second until the server answers, within
 * @ms (slots held by closed connections come back after their closing
 * period).  It is closed with the others.
 */
static void healthy(const char *when, int ms)
{
	struct conn *c = conn_new(8);
	long long t0 = hp_now_ms(), end = t0 + ms, next = 0;

	c->opened = 1;
	while (!c->replied && hp_now_ms() < end) {
		if (hp_now_ms() >= next) {
			conn_open(c);
			next = hp_now_ms() + 1000;
		}
		pump(50);
	}
	check(c->replied, "%s, the server answers a new connection (%lld ms)",
	      when, hp_now_ms() - t0);
}

static int count_replied(void)
{
	int i, n = 0;

	for (i = 0; i < nconns; i++)
		n += conns[i].replied;
	return n;
}

/* ---- attacks ---- */

/*
 * random: --count datagrams of random bytes and random lengths (1-64,
 * 65-1199, 1200-1500 bytes), in four kinds taken in turn: all random; a
 * long header's first byte (fixed bit set, any type) and a version (1, 2,
 * 0, a reserved one, any) before random bytes, often with a DCID length of
 * 8-20; a short header's first byte before random bytes; and a plausible
 * Initial (v1, DCID 8-20 bytes, Length matching the datagram) whose
 * payload is random, so that it fails only at decryption.  Those last ones
 * are registered as connections, since the server may create one for
 * them, and closed at the end with a valid CONNECTION_CLOSE.  Check: the
 * server still answers a new connection.
 */
static void attack_random(int count)
{
	static const uint32_t versions[] = { 1, QUIC_V2, 0, 0x1a2a3a4a };
	static uint8_t d[1600];
	int i, plausible = 0;

	for (i = 0; i < count && time_left(); i++) {
		uint32_t r = rnd_below(8), v;
		size_t len;

		len = r < 2 ? 1 + rnd_below(64) : r < 4 ? 65 + rnd_below(1135) :
		      1200 + rnd_below(301);
		rnd_fill(d, len);
		switch (i % 4) {
		case 1:
			d[0] = 0xc0 | (d[0] & 0x3f);
			if (len < 6)
				break;
			v = rnd_below(5) < 4 ? versions[rnd_below(4)] : (uint32_t)rnd();
			d[1] = v >> 24;
			d[2] = v >> 16;
			d[3] = v >> 8;
			d[4] = v;
			if (rnd_below(2))
				d[5] = 8 + rnd_below(13);
			break;
		case 2:
			d[0] = 0x40 | (d[0] & 0x3f);
			break;
		case 3: {
			struct conn *c = conn_new(8 + rnd_below(13));
			size_t off = 0, body;

			len = len < 1200 ? 1200 : len;
			c->opened = 1;
			plausible++;
			d[off++] = 0xc0 | (d[0] & 0x0f);
			memcpy(d + off, "\0\0\0\1", 4);
			off += 4;
			d[off++] = c->dcid_len;
			memcpy(d + off, c->dcid, c->dcid_len);
			off += c->dcid_len;
			d[off++] = 8;
			memcpy(d + off, c->scid, 8);
			off += 8;
			d[off++] = 0;			/* token */
			body = len - off - 2;
			d[off++] = 0x40 | body >> 8;
			d[off++] = body & 0xff;
			break;
		}
		}
		tx(i, d, len);
		if (!(i % 128))
			pump(0);
	}
	pump(500);
	note("%d datagrams, %d of them plausible Initials with a random payload",
	     i, plausible);
	check(!count_replied() && !g.rx_unknown,
	      "no answer to junk (%d Initials answered, %llu other datagrams)",
	      count_replied(), (unsigned long long)g.rx_unknown);
	healthy("after the random datagrams", 20000);
}

/*
 * The long header packet of @type and @version with a @dcid_len-byte DCID
 * and a @scid_len-byte SCID, Length matching a @total-byte datagram, the
 * rest random.  Its length.
 */
static size_t junk_long(uint8_t *d, int type, uint32_t version,
			size_t dcid_len, size_t scid_len, size_t total)
{
	size_t off = 0, body;

	d[off++] = 0xc0 | type << 4 | 3;
	d[off++] = version >> 24;
	d[off++] = version >> 16;
	d[off++] = version >> 8;
	d[off++] = version;
	d[off++] = dcid_len;
	rnd_fill(d + off, dcid_len);
	off += dcid_len;
	d[off++] = scid_len;
	rnd_fill(d + off, scid_len);
	off += scid_len;
	if (type == CR_LONG_INITIAL)
		d[off++] = 0;			/* token */
	if (total < off + 2 + 20)
		total = off + 2 + 20;
	body = total - off - 2;
	d[off++] = 0x40 | body >> 8;
	d[off++] = body & 0xff;
	rnd_fill(d + off, body);
	return off + body;
}

/*
 * dcid: every Destination Connection ID length from 0 to 255, in 1200-byte
 * datagrams:
 * - a valid client Initial (protected with the keys of that DCID, the
 *   start of a ClientHello): the server answers it for 8-20 bytes, and
 *   must drop it beyond 20 (RFC 9000 §17.2: a v1 connection ID is at most
 *   20 bytes); under 8 it drops it too (RFC 9000 §7.2, quic_listen_rcv());
 * - a valid Initial with an 8-byte DCID and an SCID of each length: beyond
 *   20 bytes it must be dropped;
 * - 0-RTT and Handshake packets of v1, and v2 Initials outside 8-20 bytes:
 *   no connection has them, the listener takes only Initials;
 * - a long header of an unknown version, where RFC 8999 allows IDs up to
 *   255 bytes (a Version Negotiation answer is counted, not required);
 * - short headers of 1 + length and 1 + length + 21 bytes.
 * Checks: the valid Initials are answered exactly when both IDs are valid
 * (an SCID under 8 bytes cannot carry our index, so those answers are not
 * told apart), no answer carries an ID over 20 bytes, and the server still
 * answers a new connection.
 */
static int dcid_answered(void *arg)
{
	const int *want = arg;
	int i;

	for (i = 0; i < nconns; i++)
		if (want[i] && !conns[i].replied)
			return 0;
	return 1;
}

static void attack_dcid(void)
{
	static uint8_t d[1600];
	uint8_t frames[512];
	size_t nf = put_hello(frames), len;
	int l, i, bad = 0, *want;

	want = calloc(3 * 256 + 1, sizeof(*want));
	if (!want)
		exit(2);
	for (l = 0; l < 256; l++) {
		struct conn *c = conn_new(l);

		/* valid Initial, DCID of l bytes */
		c->opened = l >= 8 && l <= 20;
		want[c - conns] = c->opened;
		send_initial(c, frames, nf);

		/* valid Initial, SCID of l bytes: ours, then random */
		c = conn_new(8);
		c->scid_len = l;
		rnd_fill(c->scid + 8, l > 8 ? l - 8 : 0);
		c->opened = l <= 20;
		want[c - conns] = l >= 8 && l <= 20;
		send_initial(c, frames, nf);

		/* 0-RTT and Handshake of v1; v2 Initials with invalid IDs */
		len = junk_long(d, CR_LONG_0RTT, 1, l, 8, 1200);
		tx(l, d, len);
		len = junk_long(d, CR_LONG_HANDSHAKE, 1, l, 8, 1200);
		tx(l, d, len);
		if (l < 8 || l > 20) {
			len = junk_long(d, 1 /* Initial in v2 */, QUIC_V2, l, 8,
					1200);
			tx(l, d, len);
		}
		/* an unknown version, with RFC 8999's IDs of up to 255 */
		len = junk_long(d, rnd_below(4), 0x0a1a2a3a, l, l, 1200);
		tx(l, d, len);
		/* short headers */
		rnd_fill(d, 1 + l + 21);
		d[0] = 0x40 | (d[0] & 0x3f);
		tx(l, d, 1 + l);
		tx(l, d, 1 + l + 21);
		pump(0);
	}
	pump_until(dcid_answered, want, FL_WAIT_MS);
	pump(1000);		/* time for answers that should not come */
	for (i = 0; i < nconns; i++) {
		struct conn *c = &conns[i];

		if (c->replied == want[i] || c->scid_len < 8)
			continue;
		if (bad++ < 10)
			note("DCID of %zu bytes, SCID of %zu: %s", c->dcid_len,
			     c->scid_len, c->replied ? "answered" : "not answered");
	}
	check(!bad, "valid Initials answered when both IDs are 8-20 bytes, never otherwise (%d wrong; %d answered)",
	      bad, count_replied());
	check(!g.rx_long_cid, "no answer carries a connection ID over 20 bytes (%llu)",
	      (unsigned long long)g.rx_long_cid);
	note("%llu Version Negotiation packets", (unsigned long long)g.vn);
	free(want);
	healthy("after every DCID length", 20000);
}

/*
 * truncated: a connection is opened, then its Initials are sent cut at
 * every length from 1 to 1199 bytes (the whole packet is 1200), each in
 * three ways: just cut (a datagram under 1200 bytes, which only a
 * connection, not the listener, considers); cut with the Length field
 * saying so and zero bytes after it up to 1200 (a coalesced packet of
 * zeros); and cut with its Length field left as it was, so that it runs
 * past the datagram.  Then the first Initials of 24 new connections, cut
 * at lengths across the packet in the second way, reach the listener.
 * Checks: the connection survived all this (it ACKs a PING) and the
 * server still answers a new connection.
 */
static void send_cut(struct conn *c, int cut, int how)
{
	static uint8_t pkt[1600], d[1600];
	uint8_t f[512];
	struct layout lay;
	size_t nf;
	int n;

	nf = c->pn ? (f[0] = CR_FRAME_PING, 1) : put_hello(f);
	n = build_initial(c, f, nf, 1200, pkt, sizeof(pkt), &lay);
	if (n < 0 || cut >= n)
		return;
	memcpy(d, pkt, cut);
	c->sent += how == 1 ? 1200 : cut;
	if (how == 0) {
		tx(c->sock, d, cut);
		return;
	}
	if (how == 1) {
		uint32_t body = cut > (int)lay.pn_off ? cut - lay.pn_off : 0;

		if (cut >= (int)lay.len_off + 4) {
			d[lay.len_off] = 0x80 | body >> 24;
			d[lay.len_off + 1] = body >> 16;
			d[lay.len_off + 2] = body >> 8;
			d[lay.len_off + 3] = body;
		}
		memset(d + cut, 0, 1200 - cut);
		tx(c->sock, d, 1200);
		return;
	}
	tx(c->sock, d, cut);	/* Length as it was: past the end */
}

static void attack_truncated(void)
{
	struct conn *c = conn_new(8);
	struct span s;
	int cut, how;

	c->opened = 1;
	conn_open(c);
	s.from = c - conns;
	s.to = s.from + 1;
	if (!check(pump_until(all_replied, &s, FL_WAIT_MS),
		   "a connection is opened"))
		return;
	for (cut = 1; cut < 1200; cut++) {
		for (how = 0; how < 3; how++)
			send_cut(c, cut, how);
		if (!(cut % 64))
			pump(0);
	}
	for (cut = 25; cut < 1200; cut += 50) {
		struct conn *n = conn_new(8);

		n->opened = 1;
		send_cut(n, cut, 1);
	}
	pump(500);
	check(ping_acked(c, FL_WAIT_MS),
	      "the connection ACKs a PING after %d truncated packets",
	      3 * 1199);
	healthy("after the truncated packets", 20000);
}

/*
 * oversized: datagrams from 1201 bytes up to the largest UDP payload
 * (65507 bytes over IPv4 loopback), at each of a few sizes:
 * - random bytes;
 * - a valid first Initial of a new connection as large as the datagram
 *   (the start of a ClientHello, then PADDING);
 * - a valid 1200-byte first Initial followed by random bytes (a coalesced
 *   packet of junk);
 * - an Initial whose Length field says 60000 bytes, in a datagram of that
 *   size or less, and one whose Length is 2^62 - 1 as an 8-byte varint.
 * Then one connection gets its ClientHello continued by a 50000-byte
 * CRYPTO frame in a 50 kB Initial, which fits the 64 KiB the Initial and
 * Handshake levels may carry, and 20000 bytes more, which do not.
 * Checks: the first large CRYPTO is ACKed and the second closes the
 * connection (CRYPTO_BUFFER_EXCEEDED, RFC 9000 §7.5, or another error);
 * the server still answers a new connection.  How many of the large
 * Initials were answered is counted, not checked: nothing obliges a
 * server to take datagrams beyond its max_udp_payload_size.
 */
static void attack_oversized(void)
{
	static const size_t sizes[] = {
		1201, 1500, 1501, 2048, 4096, 8192, 9000, 16384, 32768, 65507 };
	static uint8_t d[FL_MAX_DGRAM], f[FL_MAX_DGRAM];
	size_t nf, i, len;
	struct conn *c;
	struct span s;
	int n, big = 0, big_answered = 0, junk = 0, junk_answered = 0;
	int first = nconns;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t size = sizes[i];
		struct layout lay;

		rnd_fill(d, size);
		tx(i, d, size);

		c = conn_new(8);
		c->opened = 1;
		nf = put_hello(f);
		n = build_initial(c, f, nf, size, d, sizeof(d), NULL);
		if (n > 0) {
			tx(c->sock, d, n);
			c->sent += n;
		}
		big++;

		c = conn_new(8);
		c->opened = 1;
		n = build_initial(c, f, nf, 1200, d, sizeof(d), NULL);
		if (n > 0 && size > 1200) {
			rnd_fill(d + n, size - n);
			tx(c->sock, d, size);
			c->sent += size;
		}
		junk++;

		c = conn_new(8);
		c->opened = size >= 60000;	/* then the Length fits */
		n = build_initial(c, f, nf, 1200, d, sizeof(d), &lay);
		d[lay.len_off] = 0x80;		/* Length 60000 */
		d[lay.len_off + 1] = 0;
		d[lay.len_off + 2] = 60000 >> 8;
		d[lay.len_off + 3] = 60000 & 0xff;
		rnd_fill(d + n, size - n);
		tx(c->sock, d, size);

		/*
		 * Length 2^62 - 1: an 8-byte varint in place of the 2 bytes
		 * of junk_long(), whose Length is at 24 with these IDs.
		 */
		len = junk_long(d, CR_LONG_INITIAL, 1, 8, 8, size - 6);
		memmove(d + 24 + 8, d + 24 + 2, len - 24 - 2);
		memset(d + 24, 0xff, 8);
		tx(i, d, len + 6);
		pump(0);
	}
	s.from = first;
	s.to = nconns;
	pump_until(all_replied, &s, FL_WAIT_MS);
	for (n = first; n < nconns; n++) {
		/* three connections per size: big, junk after, Length 60000 */
		if ((n - first) % 3 == 0)
			big_answered += conns[n].replied;
		else if ((n - first) % 3 == 1)
			junk_answered += conns[n].replied;
	}
	note("answered: %d of %d Initials as large as their datagram, %d of %d followed by junk",
	     big_answered, big, junk_answered, junk);

	/* CRYPTO within the 64 KiB of the Initial level, then beyond it */
	c = conn_new(8);
	c->opened = 1;
	conn_open(c);
	s.from = c - conns;
	s.to = s.from + 1;
	if (!check(pump_until(all_replied, &s, FL_WAIT_MS),
		   "a connection is opened"))
		return;
	memset(d, 0x5a, 50000);
	nf = cr_put_crypto(f, FL_HELLO, d, 50000);
	n = build_initial(c, f, nf, 1200, d, sizeof(d), NULL);
	c->watch_pn = c->pn - 1;
	c->watch_acked = 0;
	tx(c->sock, d, n);
	check(pump_until(ping_answered, c, FL_WAIT_MS),
	      "50000 bytes of CRYPTO in a %d-byte Initial are ACKed", n);
	nf = cr_put_crypto(f, FL_HELLO + 50000, d, 20000);
	n = build_initial(c, f, nf, 1200, d, sizeof(d), NULL);
	tx(c->sock, d, n);
	s.from = c - conns;
	n = pump_until(all_closed, &s, FL_WAIT_MS);
	check(n, "20000 bytes more, past the 64 KiB of the Initial level, close the connection (0x%llx %s)",
	      (unsigned long long)c->err, err_name(c->err));
	healthy("after the oversized datagrams", 20000);
}

/*
 * initial-flood: --count first Initials (default 3000), each of a new
 * connection with a fresh DCID, from 8 source ports as fast as they go;
 * each carries the start of a ClientHello, so that the connections the
 * server takes stay pending.  They are held for --hold-ms, then closed.
 * Checks: pending_connections in /proc/net/quic_stats never exceeds the
 * cap, min(--cap, the listener's backlog, and
 * net.quic.max_pending_connections), nor do the connections answered;
 * what was refused is counted; once they are closed the server answers a
 * new connection (the slots come back).
 */
static long sysctl_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void sample_pending(long *max)
{
	long p = hp_stat("pending_connections");

	if (p > *max)
		*max = p;
}

static void attack_initial_flood(int count, long cap, int hold_ms)
{
	long d0 = hp_stat("drop_pending_full");
	long r0 = hp_stat("drop_receive_buffer_full");
	long sys = sysctl_long("/proc/sys/net/quic/max_pending_connections");
	long pend_max = 0;
	long long end, t0 = hp_now_ms();
	int i, replied, last = -1;

	if (sys > 0 && (cap <= 0 || sys < cap))
		cap = sys;
	for (i = 0; i < count && time_left(); i++) {
		conn_open(conn_new(8));
		if (!(i % 32)) {
			pump(0);
			sample_pending(&pend_max);
		}
	}
	note("%d Initials of new connections in %lld ms", i,
	     hp_now_ms() - t0);
	/* the server answers as its application accepts: until that stops */
	for (end = hp_now_ms() + 2 * FL_WAIT_MS; hp_now_ms() < end;) {
		replied = count_replied();
		if (replied == last)
			break;
		last = replied;
		pump(1500);
		sample_pending(&pend_max);
	}
	for (end = hp_now_ms() + hold_ms; hp_now_ms() < end;) {
		pump(100);
		sample_pending(&pend_max);
	}
	replied = count_replied();
	note("answered %d of %d; pending_connections at most %ld (cap %ld); refused: drop_pending_full +%ld, drop_receive_buffer_full +%ld",
	     replied, i, pend_max, cap, hp_stat("drop_pending_full") - d0,
	     hp_stat("drop_receive_buffer_full") - r0);
	check(cap > 0 && pend_max <= cap,
	      "pending_connections at most the cap of %ld (%ld)", cap, pend_max);
	check(cap > 0 && replied <= cap,
	      "at most the cap of %ld connections answered (%d)", cap, replied);
	close_all();
	healthy("after the flood", 30000);
}

/*
 * frames: one new connection per case, whose first Initial carries the
 * start of a ClientHello, PADDING, then the case's frame, which ends the
 * packet (so that lengths run past the packet, and varints are cut by
 * its end).  Cases: every frame type 0x00-0x1e, 0x30 and 0x31, and
 * unknown ones, with fields cut short, at 2^62 - 1, lengths past the
 * packet, offsets near 2^62, and well-formed frames that an Initial may
 * not carry (RFC 9000 §12.4, Table 3) or a client may not send.
 * What the server did with each: closed the connection (CONNECTION_CLOSE,
 * with which error), dropped the packet (not ACKed; the connection ACKs a
 * later PING, or is gone), or accepted it (ACKed, no close).
 * Cases go in batches of 32, each once pending_connections has room,
 * and we close each batch's connections after it.
 * Checks: every case marked "refuse" closes the connection (RFC 9000
 * §12.4 makes each a connection error; the Initial is authentic, its
 * keys being the connection's); no case's Initial was
 * refused for the pending cap; the server still answers a new
 * connection.  The error codes are printed, not checked.
 */
struct fcase {
	char name[32];
	uint8_t b[80];
	size_t n;
	int refuse;		/* must not be accepted */
	int conn;
	const char *outcome;	/* what the server did */
};

static struct fcase *fcases;
static int nfcases;

static struct fcase *fc(const char *name, int refuse)
{
	struct fcase *f;

	fcases = realloc(fcases, (nfcases + 1) * sizeof(*fcases));
	if (!fcases)
		exit(2);
	f = &fcases[nfcases++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->refuse = refuse;
	return f;
}

static void fc_bytes(struct fcase *f, const void *b, size_t n)
{
	memcpy(f->b + f->n, b, n);
	f->n += n;
}

static void fc_var(struct fcase *f, uint64_t v)
{
	f->n += cr_put_varint(f->b + f->n, v);
}

#define V62	((1ULL << 62) - 1)
#define CUT	"\xc0\x00"	/* an 8-byte varint with one byte of it */

/* The frames of one type: bare, cut, every field 2^62 - 1, valid. */
static void fc_type(uint8_t type, const char *name, int nvar,
		    const void *valid, size_t nvalid, int refuse_valid)
{
	char n[32];
	struct fcase *f;
	int i;

	snprintf(n, sizeof(n), "%s-bare", name);
	fc_bytes(fc(n, 1), &type, 1);
	snprintf(n, sizeof(n), "%s-cut", name);
	f = fc(n, 1);
	fc_bytes(f, &type, 1);
	fc_bytes(f, CUT, 2);
	if (nvar) {
		snprintf(n, sizeof(n), "%s-max", name);
		f = fc(n, 1);
		fc_bytes(f, &type, 1);
		for (i = 0; i < nvar; i++)
			fc_var(f, V62);
	}
	if (valid) {
		snprintf(n, sizeof(n), "%s-valid", name);
		f = fc(n, refuse_valid);
		fc_bytes(f, &type, 1);
		fc_bytes(f, valid, nvalid);
	}
}

static void frame_cases(void)
{
	static const char token16[17] = "0123456789abcdef";
	struct fcase *f;
	int t;

	/* ACK (0x02) and ACK_ECN (0x03): fields, ranges, counts */
	fc_type(0x02, "ack", 4, NULL, 0, 0);
	fc_bytes(fc("ack-never-sent", 0), "\x02\x05\x00\x00\x00", 5);
	fc_bytes(fc("ack-first-range-over", 1), "\x02\x05\x00\x00\x06", 5);
	fc_bytes(fc("ack-gap-under", 1), "\x02\x05\x00\x01\x00\x0a\x00", 7);
	fc_bytes(fc("ack-ranges-missing", 1), "\x02\x05\x00\x43\xe8\x00", 6);
	f = fc("ack-count-max", 1);
	fc_bytes(f, "\x02\x05\x00", 3);
	fc_var(f, V62);
	fc_bytes(f, "\x00", 1);
	f = fc("ack-largest-max", 0);
	fc_bytes(f, "\x02", 1);
	fc_var(f, V62);
	fc_bytes(f, "\x00\x00\x00", 3);
	f = fc("ack-delay-max", 0);
	fc_bytes(f, "\x02\x00", 2);
	fc_var(f, V62);
	fc_bytes(f, "\x00\x00", 2);
	fc_type(0x03, "ack-ecn", 7, NULL, 0, 0);
	fc_bytes(fc("ack-ecn-no-counts", 1), "\x03\x00\x00\x00\x00", 5);
	f = fc("ack-ecn-counts-max", 0);
	fc_bytes(f, "\x03\x00\x00\x00\x00", 5);
	fc_var(f, V62);
	fc_var(f, V62);
	fc_var(f, V62);

	/* RESET_STREAM, STOP_SENDING: not in Initial */
	fc_type(0x04, "reset-stream", 3, "\x00\x00\x00", 3, 1);
	fc_type(0x05, "stop-sending", 2, "\x00\x00", 2, 1);

	/* CRYPTO: offsets and lengths */
	fc_type(0x06, "crypto", 2, NULL, 0, 0);
	fc_bytes(fc("crypto-len-past", 1), "\x06\x40\xc8\x43\xe8xxxxx", 10);
	f = fc("crypto-off-max", 1);
	fc_bytes(f, "\x06", 1);
	fc_var(f, V62);
	fc_bytes(f, "\x01x", 2);
	f = fc("crypto-off-2^62-2", 1);
	fc_bytes(f, "\x06", 1);
	fc_var(f, V62 - 1);
	fc_bytes(f, "\x01x", 2);
	f = fc("crypto-off-2^62-2-len2", 1);
	fc_bytes(f, "\x06", 1);
	fc_var(f, V62 - 1);
	fc_bytes(f, "\x02xy", 3);
	f = fc("crypto-off-past-64k", 1);
	fc_bytes(f, "\x06", 1);
	fc_var(f, FL_HELLO + 65536);
	fc_bytes(f, "\x01x", 2);
	f = fc("crypto-off-2^30", 1);
	fc_bytes(f, "\x06", 1);
	fc_var(f, 1u << 30);
	fc_bytes(f, "\x01x", 2);
	f = fc("crypto-empty-at-max", 0);
	fc_bytes(f, "\x06", 1);
	fc_var(f, V62);
	fc_bytes(f, "\x00", 1);

	/* NEW_TOKEN: a client may not send it; never empty */
	fc_type(0x07, "new-token", 1, "\x04" "abcd", 5, 1);
	fc_bytes(fc("new-token-empty", 1), "\x07\x00", 2);
	fc_bytes(fc("new-token-len-past", 1), "\x07\x43\xe8xx", 5);

	/* STREAM 0x08-0x0f: not in Initial */
	for (t = 0x08; t <= 0x0f; t++) {
		uint8_t valid[8];
		size_t n = 0;
		char name[16];

		valid[n++] = 0;			/* stream 0 */
		if (t & 0x04)
			valid[n++] = 0;		/* offset */
		if (t & 0x02)
			valid[n++] = 1;		/* length */
		valid[n++] = 'x';
		snprintf(name, sizeof(name), "stream%02x", t);
		fc_type(t, name, 1 + !!(t & 4) + !!(t & 2), valid, n, 1);
	}
	f = fc("stream-off-over-2^62", 1);
	fc_bytes(f, "\x0e\x00", 2);
	fc_var(f, V62 - 1);
	fc_bytes(f, "\x05xxxxx", 6);

	/* flow control and stream limits: not in Initial */
	fc_type(0x10, "max-data", 1, "\x50\x00", 2, 1);
	fc_type(0x11, "max-stream-data", 2, "\x00\x50\x00", 3, 1);
	fc_type(0x12, "max-streams-bidi", 1, "\x10", 1, 1);
	fc_type(0x13, "max-streams-uni", 1, "\x10", 1, 1);
	fc_type(0x14, "data-blocked", 1, "\x10", 1, 1);
	fc_type(0x15, "stream-data-blocked", 2, "\x00\x10", 2, 1);
	fc_type(0x16, "streams-blocked-bidi", 1, "\x10", 1, 1);
	fc_type(0x17, "streams-blocked-uni", 1, "\x10", 1, 1);

	/* NEW_CONNECTION_ID: not in Initial; lengths 0 and 21 never valid */
	f = fc("new-cid-valid", 1);
	fc_bytes(f, "\x18\x01\x00\x08" "ABCDEFGH", 12);
	fc_bytes(f, token16, 16);
	fc_type(0x18, "new-cid", 2, NULL, 0, 0);
	f = fc("new-cid-len0", 1);
	fc_bytes(f, "\x18\x01\x00\x00", 4);
	fc_bytes(f, token16, 16);
	f = fc("new-cid-len21", 1);
	fc_bytes(f, "\x18\x01\x00\x15" "ABCDEFGHIJKLMNOPQRSTU", 25);
	fc_bytes(f, token16, 16);
	f = fc("new-cid-retire-over-seq", 1);
	fc_bytes(f, "\x18\x01\x02\x08" "ABCDEFGH", 12);
	fc_bytes(f, token16, 16);
	fc_bytes(fc("new-cid-cut-cid", 1), "\x18\x01\x00\x08" "ABC", 7);
	fc_type(0x19, "retire-cid", 1, "\x00", 1, 1);

	/* PATH_CHALLENGE, PATH_RESPONSE: not in Initial */
	fc_type(0x1a, "path-challenge", 0, "12345678", 8, 1);
	fc_bytes(fc("path-challenge-short", 1), "\x1a" "1234", 5);
	fc_type(0x1b, "path-response", 0, "12345678", 8, 1);
	fc_bytes(fc("path-response-short", 1), "\x1b" "1234", 5);

	/* CONNECTION_CLOSE: 0x1c ends the connection anyway, 0x1d not in Initial */
	fc_type(0x1c, "close", 3, NULL, 0, 0);
	fc_bytes(fc("close-reason-past", 1), "\x1c\x00\x00\x43\xe8xx", 7);
	fc_type(0x1d, "close-app", 2, "\x00\x00", 2, 1);
	fc_bytes(fc("close-app-reason-past", 1), "\x1d\x00\x43\xe8xx", 6);

	/* HANDSHAKE_DONE: a client may not send it */
	fc_bytes(fc("handshake-done", 1), "\x1e", 1);

	/* DATAGRAM: not negotiated, not in Initial */
	fc_bytes(fc("datagram30", 1), "\x30" "xyz", 4);
	fc_type(0x31, "datagram31", 1, "\x03" "xyz", 4, 1);
	fc_bytes(fc("datagram31-len-past", 1), "\x31\x43\xe8xx", 5);

	/* unknown and reserved types (RFC 9000 §12.4: FRAME_ENCODING_ERROR) */
	fc_bytes(fc("type-1f", 1), "\x1f", 1);
	fc_bytes(fc("type-20", 1), "\x20", 1);
	fc_bytes(fc("type-2f", 1), "\x2f\x00\x00", 3);
	fc_bytes(fc("type-32", 1), "\x32", 1);
	fc_bytes(fc("type-3f", 1), "\x3f", 1);
	fc_bytes(fc("type-ack-frequency", 1), "\x40\xaf\x00\x01\x01\x00", 6);
	fc_bytes(fc("type-4byte-unknown", 1), "\x80\x00\x40\x00", 4);
	fc_bytes(fc("type-max", 1), "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
	fc_bytes(fc("type-cut-2byte", 1), "\x40", 1);
	fc_bytes(fc("type-cut-8byte", 1), "\xc0\x00\x00", 3);
	/* known types in longer encodings than needed: MAY refuse */
	fc_bytes(fc("padding-2byte", 0), "\x40\x00", 2);
	fc_bytes(fc("ping-2byte", 0), "\x40\x01", 2);
	fc_bytes(fc("ping-4byte", 0), "\x80\x00\x00\x01", 4);
}

/* One Initial of @c: the start of a ClientHello, PADDING, then @f. */
static void send_case(struct conn *c, const struct fcase *f)
{
	/* 1200-byte packet, 32-byte header with 8-byte IDs, 16-byte tag */
	uint8_t p[1200 - 32 - CR_TAG_LEN];
	size_t n = put_hello(p);

	memset(p + n, 0, sizeof(p) - n - f->n);
	memcpy(p + sizeof(p) - f->n, f->b, f->n);
	send_initial(c, p, sizeof(p));
}

static int all_answered_or_closed(void *arg)
{
	struct span *s = arg;
	int i;

	for (i = s->from; i < s->to; i++)
		if (!conns[i].replied && !conns[i].closed)
			return 0;
	return 1;
}

/* The outcomes, one line each: "outcome (count): case case ...". */
static void print_outcomes(void)
{
	char line[160];
	int i, j, k, len, count;

	for (i = 0; i < nfcases; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(fcases[j].outcome, fcases[i].outcome))
				break;
		if (j < i)
			continue;	/* printed with its first */
		for (count = 0, k = i; k < nfcases; k++)
			count += !strcmp(fcases[k].outcome, fcases[i].outcome);
		len = snprintf(line, sizeof(line), "%s (%d):",
			       fcases[i].outcome, count);
		for (k = i; k < nfcases; k++) {
			if (strcmp(fcases[k].outcome, fcases[i].outcome))
				continue;
			if (len + strlen(fcases[k].name) + 2 > 100) {
				note("frames: %s", line);
				len = snprintf(line, sizeof(line), "  ");
			}
			len += snprintf(line + len, sizeof(line) - len, " %s",
					fcases[k].name);
		}
		note("frames: %s", line);
	}
}

/* pending_connections at most *(long *)@arg. */
static int pending_at_most(void *arg)
{
	long p = hp_stat("pending_connections");

	return p >= 0 && p <= *(long *)arg;
}

static void attack_frames(void)
{
	static char outcomes[64][48];
	int nout = 0, i, b, batch = 32, bad = 0;
	long room = 16, full0 = hp_stat("drop_pending_full"), full;

	frame_cases();
	for (b = 0; b < nfcases; b += batch) {
		int to = b + batch < nfcases ? b + batch : nfcases;
		struct span s = { nconns, nconns + to - b };

		/*
		 * Room for the batch: a first Initial refused for the pending
		 * cap (drop_pending_full) would be a drop that says nothing
		 * of its frame.  The previous batch's connections were closed
		 * by one end or the other and leave the count within their
		 * closing period (3 PTOs).
		 */
		if (!pump_until(pending_at_most, &room, 30000))
			note("frames: pending_connections still %ld after 30 s",
			     hp_stat("pending_connections"));
		for (i = b; i < to; i++) {
			struct conn *c = conn_new(8);

			c->opened = 1;
			fcases[i].conn = c - conns;
			send_case(c, &fcases[i]);
		}
		pump_until(all_answered_or_closed, &s, FL_WAIT_MS);
		/*
		 * Alive or not: a PING to each connection not closed.  An
		 * ACK of it says the connection lives on (having taken the
		 * frame if its packet was ACKed); a close on its way comes
		 * first.
		 */
		ping_all(&s, 3000);
		for (i = b; i < to; i++) {
			struct conn *c = &conns[fcases[i].conn];
			char o[48];
			int k;

			if (c->closed)
				snprintf(o, sizeof(o), "closed 0x%02llx %s",
					 (unsigned long long)c->err,
					 err_name(c->err));
			else if (conn_acked(c, 0))
				snprintf(o, sizeof(o), c->watch_acked ?
					 "ACCEPTED" : "ACKed, connection gone");
			else
				snprintf(o, sizeof(o), c->watch_acked ?
					 "dropped, connection alive" :
					 "dropped, connection gone");
			for (k = 0; k < nout && strcmp(outcomes[k], o); k++)
				;
			if (k == nout && nout < 64)
				snprintf(outcomes[nout++], sizeof(outcomes[0]),
					 "%s", o);
			fcases[i].outcome = outcomes[k < 64 ? k : 63];
			bad += fcases[i].refuse && !c->closed;
			if (!c->closed) {
				conn_close(c);
				c->bye = 1;
			}
		}
	}
	full = hp_stat("drop_pending_full") - full0;
	print_outcomes();
	check(!bad, "every malformed or forbidden frame closed the connection (%d cases, %d not closed)",
	      nfcases, bad);
	check(full == 0, "no case's Initial was refused for the pending cap (drop_pending_full +%ld)",
	      full);
	close_all();
	healthy("after the malformed frames", 20000);
}

/*
 * crypto-ooo: --conns connections (default 8) open with the start of a
 * ClientHello, then get Initials full of 1-byte CRYPTO frames until
 * --seconds (default 15) have passed.  Every other packet extends, one
 * byte at a time in scattered order, 16 ranges spread over the 64 KiB
 * the Initial level may hold, with a byte missing before each, so that
 * nothing is ever delivered and the held ranges stay 16; the packets in
 * between put their bytes at random offsets in that window, most of
 * which would open a 17th gap.  This was the CPU attack of #12 (a sorted
 * list of one sk_buff per byte); the runner measures the server's answers
 * (PING probe, downloads) during it.
 * Checks: none of the attacker's own, beyond the server answering a new
 * connection at the end; how many connections the server kept open is
 * printed.
 */
#define OOO_RANGES	16
#define OOO_LIMIT	(65536 - 1024)	/* stay inside the level's 64 KiB */

static void attack_crypto_ooo(int nc)
{
	uint64_t slot = (OOO_LIMIT - FL_HELLO) / OOO_RANGES;
	uint64_t (*cur)[OOO_RANGES];
	uint8_t p[1200 - 32 - CR_TAG_LEN];
	struct span s = { nconns, nconns + nc };
	int i, k, alive = 0, closed = 0;
	uint64_t pkts = 0, pieces = 0;

	cur = calloc(nc, sizeof(*cur));
	if (!cur)
		exit(2);
	for (i = 0; i < nc; i++) {
		struct conn *c = conn_new(8);

		c->opened = 1;
		conn_open(c);
		for (k = 0; k < OOO_RANGES; k++)
			cur[i][k] = FL_HELLO + 1 + k * slot;
	}
	if (!check(pump_until(all_replied, &s, FL_WAIT_MS),
		   "%d connections are opened", nc)) {
		free(cur);
		return;
	}
	while (time_left()) {
		for (i = 0; i < nc; i++) {
			struct conn *c = &conns[s.from + i];
			size_t n = 0;
			uint8_t byte = 'x';

			if (c->closed)
				continue;
			while (n + 7 <= sizeof(p)) {
				uint64_t off;

				if (pkts % 2) {
					off = FL_HELLO + 1 +
					      rnd_below(OOO_LIMIT - FL_HELLO - 1);
				} else {
					k = rnd_below(OOO_RANGES);
					off = cur[i][k];
					if (off < FL_HELLO + (k + 1) * slot)
						cur[i][k]++;
					else	/* the range is full: again */
						off = FL_HELLO + 1 + k * slot +
						      rnd_below(slot - 1);
				}
				n += cr_put_crypto(p + n, off, &byte, 1);
				pieces++;
			}
			memset(p + n, 0, sizeof(p) - n);
			send_initial(c, p, sizeof(p));
			pkts++;
		}
		pump(0);
	}
	for (i = 0; i < nc; i++) {
		struct conn *c = &conns[s.from + i];

		if (c->closed) {
			closed++;
			note("connection %d closed by the server: 0x%llx %s", i,
			     (unsigned long long)c->err, err_name(c->err));
		} else {
			alive += ping_acked(c, 5000);
		}
	}
	note("%llu packets, %llu one-byte CRYPTO frames, %llu bytes per connection; %d connections alive at the end, %d closed by the server",
	     (unsigned long long)pkts, (unsigned long long)pieces,
	     (unsigned long long)(g.tx_bytes / nc), alive, closed);
	free(cur);
	close_all();
	healthy("after the out-of-order CRYPTO", 20000);
}

/* ---- main ---- */

static void usage(void)
{
	fprintf(stderr,
		"usage: flood ATTACK --port PORT [--host ADDR] [--count N] [--conns N]\n"
		"             [--seconds S] [--seed N] [--cap N] [--hold-ms MS]\n"
		"ATTACK: random dcid truncated oversized initial-flood frames crypto-ooo idle\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "host", required_argument, NULL, 'h' },
		{ "port", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'n' },
		{ "conns", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'r' },
		{ "cap", required_argument, NULL, 'C' },
		{ "hold-ms", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	const char *host = "127.0.0.1", *attack;
	int port = 0, count = 0, nc = 8, seconds = 0, hold_ms = 2000, o;
	unsigned long long seed = 0;
	long cap = 0;
	long long t0;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'h': host = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': count = atoi(optarg); break;
		case 'c': nc = atoi(optarg); break;
		case 's': seconds = atoi(optarg); break;
		case 'r': seed = strtoull(optarg, NULL, 0); break;
		case 'C': cap = atol(optarg); break;
		case 'H': hold_ms = atoi(optarg); break;
		default: usage();
		}
	}
	if (optind != argc - 1 || port <= 0 || port > 65535 || nc < 1)
		usage();
	attack = argv[optind];
	if (!seed && getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = (unsigned long long)hp_now_ms();
	g.rng = seed | 1;
	rnd_fill(g.tag, sizeof(g.tag));
	note("flood %s against %s port %d, seed %llu", attack, host, port, seed);
	if (socks_open(host, port))
		return 2;
	t0 = hp_now_ms();
	g.t_end = t0 + 1000LL * (seconds ? seconds : !strcmp(attack, "idle") ? 5 : 60);

	if (!strcmp(attack, "random"))
		attack_random(count ? count : 6000);
	else if (!strcmp(attack, "dcid"))
		attack_dcid();
	else if (!strcmp(attack, "truncated"))
		attack_truncated();
	else if (!strcmp(attack, "oversized"))
		attack_oversized();
	else if (!strcmp(attack, "initial-flood"))
		attack_initial_flood(count ? count : 3000, cap, hold_ms);
	else if (!strcmp(attack, "frames"))
		attack_frames();
	else if (!strcmp(attack, "idle"))
		while (time_left())
			pump(100);
	else if (!strcmp(attack, "crypto-ooo")) {
		g.t_end = hp_now_ms() + 1000LL * (seconds ? seconds : 15);
		attack_crypto_ooo(nc);
	} else
		usage();

	close_all();
	check_amplification();
	kv("attacker_bytes", g.tx_bytes);
	kv("attacker_packets", g.tx_dgrams);
	kv("attacker_connections", nconns);
	kv("answered_connections", count_replied());
	kv("server_bytes", g.rx_bytes);
	kv("server_packets", g.rx_dgrams);
	kv("send_errors", g.send_errors);
	kv("attack_ms", hp_now_ms() - t0);
	return report_end();
}

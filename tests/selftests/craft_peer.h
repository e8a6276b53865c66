/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A crafted peer for selftests: a kernel QUIC client socket against a
 * plain UDP socket that plays its server with packets built by craft.h.
 *
 * No handshake runs.  The kernel socket connect()s to the UDP socket and
 * writes a few bytes of Initial CRYPTO data, so that its Initial tells its
 * connection IDs; then both 1-RTT secrets are installed with
 * QUIC_SOCKOPT_CRYPTO_SECRET (the socket is established) and the peer
 * sends HANDSHAKE_DONE (its handshake is confirmed).  The peer knows every
 * key of every key phase, so it sees what the kernel sends in which phase
 * and can send what a well-behaved peer would not.  The kernel's Initial
 * retransmissions are read and ignored.
 *
 * Used by key_update_craft_test.c and frame_rules_test.c.
 */

#ifndef QUIC_SELFTEST_CRAFT_PEER_H
#define QUIC_SELFTEST_CRAFT_PEER_H

#include "quic_conn.h"
#include "craft.h"

#include <linux/tls.h>

#define WAIT_MS		5000	/* for any answer of the kernel (TCG guest) */
#define RETX_MS		1000	/* our PTO, roughly */
#define MAX_GEN		16	/* key generations prepared */

/* ---- the peer ---- */

/* TEST_KU_TRACE=1 in the environment: every packet each way, with the time. */
static int trace __attribute__((unused));
static long long trace_t0 __attribute__((unused));

#define TRACE(fmt, ...) do {						\
	if (trace)							\
		printf("# %6lld ms " fmt "\n", now_ms() - trace_t0,	\
		       ##__VA_ARGS__);					\
} while (0)

/* What one 1-RTT packet of the kernel held. */
struct kpkt {
	uint64_t pn;
	int gen;		/* key generation it was protected with */
	int eliciting;
	int has_ping;
	int has_ack;
	struct cr_frame ack;
	int has_close;
	uint64_t close_err, close_frame;
	int close_app;
	int has_path_response;
	uint8_t path_data[8];
};

struct peer {
	int family;
	int fd;				/* the UDP socket: us */
	int kfd;			/* the kernel's QUIC socket */
	struct sockaddr_storage kaddr;	/* and its address */
	socklen_t kaddr_len;
	uint8_t dcid[CR_MAX_CID];	/* the kernel's SCID: our DCID */
	size_t dcid_len;
	size_t kdcid_len;		/* DCID length in the kernel's packets */
	struct cr_keys tx[MAX_GEN];	/* ours, by key generation */
	struct cr_keys rx[MAX_GEN];	/* the kernel's */
	int tx_gen;			/* the generation we send with */
	uint64_t next_pn;
	struct cr_pnset rcvd;		/* the kernel's 1-RTT packets */
	int rx_gen;			/* newest generation the kernel used */
	int auto_ack;			/* ACK its ack-eliciting packets at once */
	/* what went wrong on the kernel's side */
	int regress;			/* packets in a generation older than one seen */
	int undecryptable;
	int reserved_bits;
};

/* The 1-RTT secrets: the kernel's (its "client" send secret) and ours. */
static inline void secret_bytes(uint8_t *s, uint8_t seed)
{
	int i;

	for (i = 0; i < 32; i++)
		s[i] = seed + 7 * i;
}

static inline int install_secret(int fd, int send, const uint8_t *secret)
{
	struct quic_crypto_secret s;

	memset(&s, 0, sizeof(s));
	s.send = send;
	s.level = QUIC_CRYPTO_APP;
	s.type = TLS_CIPHER_AES_GCM_128;
	memcpy(s.secret, secret, 32);
	return setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, &s,
			  sizeof(s));
}

/* Handshake bytes at the Initial level: the kernel sends an Initial. */
static inline ssize_t send_initial_crypto(int fd)
{
	struct quic_handshake_info info = { .crypto_level = QUIC_CRYPTO_INITIAL };
	static const char hello[] = "not a ClientHello";

	return qsend_cmsg(fd, hello, sizeof(hello), QUIC_HANDSHAKE_INFO,
			  &info, sizeof(info), 0);
}

/* One packet in generation @gen with packet number @pn. */
static inline int peer_send_pn(struct peer *p, int gen, uint64_t pn,
			const uint8_t *frames, size_t len, int corrupt)
{
	uint8_t pkt[1500];
	int n;

	n = cr_short_build(&p->tx[gen], p->dcid, p->dcid_len, gen & 1, pn, 2,
			   frames, len, pkt, sizeof(pkt));
	if (n < 0)
		return -1;
	if (corrupt)
		pkt[n - 1] ^= 0x01;	/* the last byte of the tag */
	TRACE("> %llu gen %d, %zu bytes of frames, first %#x%s",
	      (unsigned long long)pn, gen, len, len ? frames[0] : 0,
	      corrupt ? ", bad tag" : "");
	if (sendto(p->fd, pkt, n, 0, (struct sockaddr *)&p->kaddr,
		   p->kaddr_len) != n)
		return -1;
	return 0;
}

/* An ACK of every packet of the kernel we have; its length (0 if none). */
static inline size_t peer_put_ack(struct peer *p, uint8_t *buf)
{
	struct cr_range r[16];
	int n = cr_pnset_ranges(&p->rcvd, r, 16);

	return n ? cr_put_ack(buf, r, n, 0) : 0;
}

/*
 * The next packet in our current generation: @frames after an ACK of all
 * we received (with @with_ack).  Its packet number, or CR_PN_NONE.
 */
static inline uint64_t peer_send(struct peer *p, const uint8_t *frames, size_t len,
			  int with_ack)
{
	uint8_t buf[1200];
	size_t n = with_ack ? peer_put_ack(p, buf) : 0;
	uint64_t pn = p->next_pn++;

	memcpy(buf + n, frames, len);
	if (peer_send_pn(p, p->tx_gen, pn, buf, n + len, 0))
		return CR_PN_NONE;
	return pn;
}

static inline void peer_ack(struct peer *p)
{
	uint8_t pad = CR_FRAME_PADDING;

	if (p->rcvd.largest != CR_PN_NONE)
		peer_send(p, &pad, 1, 1);
}

/* The frames of a 1-RTT packet of the kernel; -1 if one is malformed. */
static inline int parse_frames(const uint8_t *pt, size_t len, struct kpkt *k)
{
	struct cr_frame f;
	size_t off = 0;
	int n;

	while (off < len) {
		n = cr_frame_parse(pt + off, len - off, &f);
		if (n <= 0) {
			printf("# malformed frame %#x at %zu of %zu\n", pt[off],
			       off, len);
			return -1;
		}
		off += n;
		k->eliciting |= cr_frame_ack_eliciting(f.type);
		switch (f.type) {
		case CR_FRAME_PING:
			k->has_ping = 1;
			break;
		case CR_FRAME_ACK:
		case CR_FRAME_ACK_ECN:
			k->has_ack = 1;
			k->ack = f;
			break;
		case CR_FRAME_CONNECTION_CLOSE:
		case CR_FRAME_CONNECTION_CLOSE_APP:
			k->has_close = 1;
			k->close_err = f.error;
			k->close_frame = f.frame_type;
			k->close_app = f.type == CR_FRAME_CONNECTION_CLOSE_APP;
			break;
		case CR_FRAME_PATH_RESPONSE:
			k->has_path_response = 1;
			memcpy(k->path_data, f.path_data, 8);
			break;
		}
	}
	return 0;
}

/*
 * Open the short header packet @pkt (@len bytes) of the kernel: the key
 * generation is the newest one seen if the Key Phase bit says so, else
 * the next one, else the one before.  1 if it opened into @k, 0 if not.
 */
static inline int peer_open_packet(struct peer *p, uint8_t *pkt, size_t len,
			    struct kpkt *k)
{
	static uint8_t pt[65536];
	struct cr_short_hdr h;
	int tries[3], i, n = -1, gen = -1;

	if (cr_short_unprotect(&p->rx[0], pkt, len, p->kdcid_len, &h))
		return 0;
	memset(k, 0, sizeof(*k));
	k->pn = cr_decode_pn(p->rcvd.largest, h.trunc_pn, h.pn_len);
	tries[0] = (p->rx_gen & 1) == h.key_phase ? p->rx_gen : p->rx_gen + 1;
	tries[1] = tries[0] == p->rx_gen ? -1 : p->rx_gen - 1;
	tries[2] = -1;
	for (i = 0; i < 3 && n < 0; i++) {
		if (tries[i] < 0 || tries[i] >= MAX_GEN)
			continue;
		gen = tries[i];
		n = cr_open_payload(&p->rx[gen], pkt, len, h.hdr_len, k->pn, pt);
	}
	if (n < 0) {
		printf("# kernel packet %llu, phase %d: opens with no key we expect (newest generation %d)\n",
		       (unsigned long long)k->pn, h.key_phase, p->rx_gen);
		p->undecryptable++;
		return 0;
	}
	if (h.reserved) {
		printf("# kernel packet %llu has reserved bits %d\n",
		       (unsigned long long)k->pn, h.reserved);
		p->reserved_bits++;
	}
	k->gen = gen;
	if (gen < p->rx_gen) {
		printf("# kernel packet %llu in generation %d after one in %d\n",
		       (unsigned long long)k->pn, gen, p->rx_gen);
		p->regress++;
	}
	if (gen > p->rx_gen)
		p->rx_gen = gen;
	cr_pnset_add(&p->rcvd, k->pn);
	if (parse_frames(pt, n, k))
		return -1;
	TRACE("< %llu gen %d%s%s%s%s, ack %llu-%llu",
	      (unsigned long long)k->pn, gen, k->has_ping ? " PING" : "",
	      k->has_close ? " CLOSE" : "",
	      k->has_path_response ? " PATH_RESPONSE" : "",
	      k->eliciting ? " eliciting" : "",
	      k->has_ack ? (unsigned long long)k->ack.ranges[0].lo : 0ULL,
	      k->has_ack ? (unsigned long long)k->ack.ranges[0].hi : 0ULL);
	return 1;
}

/*
 * The next 1-RTT packet of the kernel, within @ms: 1 with it in @k, 0 on
 * timeout, -1 on a socket error or a malformed frame.  Long header packets
 * (its Initials) are stepped over.
 */
static inline int peer_recv(struct peer *p, struct kpkt *k, int ms)
{
	long long deadline = now_ms() + ms;
	static uint8_t dgram[65536];
	struct cr_long_hdr lh;
	ssize_t n;
	size_t off;
	int r;

	for (;;) {
		long long left = deadline - now_ms();

		if (left < 0 || !(wait_poll(p->fd, POLLIN, left) & POLLIN))
			return 0;
		n = recv(p->fd, dgram, sizeof(dgram), MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		for (off = 0; off < (size_t)n; off += lh.pkt_len) {
			if (!(dgram[off] & 0x80))
				break;
			if (cr_long_parse(dgram + off, n - off, &lh))
				return -1;
		}
		if (off >= (size_t)n)
			continue;	/* long headers only */
		r = peer_open_packet(p, dgram + off, n - off, k);
		if (r < 0)
			return -1;
		if (!r)
			continue;
		if (p->auto_ack && k->eliciting && !k->has_close)
			peer_ack(p);
		return 1;
	}
}

/*
 * Wait for a packet of the kernel that acknowledges our packet @pn; it
 * must be protected with generation @min_gen or newer.  0 with it in @k,
 * or -1 (printed) on timeout or a close.
 */
static inline int wait_ack_of(struct peer *p, uint64_t pn, int min_gen,
		       struct kpkt *k, int ms)
{
	long long deadline = now_ms() + ms;
	int r;

	for (;;) {
		r = peer_recv(p, k, deadline - now_ms());
		if (r <= 0)
			break;
		if (k->has_close) {
			printf("# kernel closed with %#llx while we waited for the ACK of %llu\n",
			       (unsigned long long)k->close_err,
			       (unsigned long long)pn);
			return -1;
		}
		if (!k->has_ack || !cr_ack_covers(&k->ack, pn))
			continue;
		if (k->gen < min_gen) {
			printf("# our packet %llu (generation %d) acknowledged in the kernel's packet %llu of generation %d\n",
			       (unsigned long long)pn, min_gen,
			       (unsigned long long)k->pn, k->gen);
			return -1;
		}
		return 0;
	}
	printf("# no ACK of our packet %llu (%s)\n", (unsigned long long)pn,
	       r < 0 ? "error" : "timeout");
	return -1;
}

/*
 * PING (with an ACK of everything) in our current generation until one is
 * acknowledged in a packet of generation @min_gen or newer: a lost first
 * packet of a key phase is sent again after RETX_MS, as a real peer's PTO
 * would.  The number of PINGs sent, or -1.
 */
static inline int ping_until_acked(struct peer *p, int min_gen, struct kpkt *k)
{
	uint8_t ping = CR_FRAME_PING;
	long long deadline = now_ms() + 2 * WAIT_MS;
	uint64_t pn;
	int sent = 0;

	while (now_ms() < deadline) {
		pn = peer_send(p, &ping, 1, 1);
		if (pn == CR_PN_NONE)
			return -1;
		sent++;
		if (!wait_ack_of(p, pn, min_gen, k, RETX_MS))
			return sent;
		if (k->has_close || p->regress)
			return -1;
		printf("# PING %llu (generation %d): no ACK in %d ms, again\n",
		       (unsigned long long)pn, p->tx_gen, RETX_MS);
	}
	return -1;
}

/* Wait for the kernel's CONNECTION_CLOSE; its packet in @k.  0 or -1. */
static inline int wait_close(struct peer *p, struct kpkt *k, int ms)
{
	long long deadline = now_ms() + ms;

	while (peer_recv(p, k, deadline - now_ms()) > 0)
		if (k->has_close)
			return 0;
	printf("# no CONNECTION_CLOSE from the kernel\n");
	return -1;
}

/* Send HANDSHAKE_DONE until the kernel acknowledges it. */
static inline int peer_confirm(struct peer *p)
{
	uint8_t done = CR_FRAME_HANDSHAKE_DONE;
	struct kpkt k;
	uint64_t pn;
	int i;

	for (i = 0; i < 3; i++) {
		pn = peer_send(p, &done, 1, 1);
		if (pn != CR_PN_NONE && !wait_ack_of(p, pn, 0, &k, WAIT_MS))
			return 0;
	}
	return -1;
}

static inline void peer_close(struct peer *p)
{
	if (p->kfd >= 0)
		close(p->kfd);
	if (p->fd >= 0)
		close(p->fd);
	p->fd = p->kfd = -1;
}

/*
 * The kernel socket connected to us, established with the secrets of
 * generation 0, and with its handshake confirmed if @confirm.
 */
static inline int peer_open(struct peer *p, int family, int confirm)
{
	uint8_t ksecret[32], psecret[32], dgram[2048];
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, 0, &ss);
	struct cr_long_hdr lh;
	ssize_t n;
	int g;

	memset(p, 0, sizeof(*p));
	trace = getenv("TEST_KU_TRACE") != NULL;
	trace_t0 = now_ms();
	p->family = family;
	p->fd = p->kfd = -1;
	p->auto_ack = 1;
	cr_pnset_init(&p->rcvd);
	secret_bytes(ksecret, 0x11);
	secret_bytes(psecret, 0x5a);
	if (cr_keys_derive(&p->rx[0], CR_AES128GCM, ksecret) ||
	    cr_keys_derive(&p->tx[0], CR_AES128GCM, psecret)) {
		CHECK(0);
		return -1;
	}
	for (g = 1; g < MAX_GEN; g++)
		if (cr_keys_next(&p->rx[g], &p->rx[g - 1]) ||
		    cr_keys_next(&p->tx[g], &p->tx[g - 1])) {
			CHECK(0);
			return -1;
		}

	p->fd = socket(family, SOCK_DGRAM, 0);
	CHECK(p->fd >= 0);
	CHECK_OK(bind(p->fd, (struct sockaddr *)&ss, len));
	CHECK_OK(getsockname(p->fd, (struct sockaddr *)&ss, &len));
	p->kfd = socket(family, SOCK_DGRAM, IPPROTO_QUIC);
	CHECK(p->kfd >= 0);
	CHECK_OK(set_timeouts(p->kfd, TIMEO_SEC));
	CHECK_OK(enable_event(p->kfd, QUIC_EVENT_KEY_UPDATE));
	CHECK_OK(connect(p->kfd, (struct sockaddr *)&ss, len));
	CHECK(send_initial_crypto(p->kfd) > 0);
	if (tap_failed_checks)
		return -1;

	/* Its Initial: the connection IDs. */
	p->kaddr_len = sizeof(p->kaddr);
	if (!(wait_poll(p->fd, POLLIN, WAIT_MS) & POLLIN) ||
	    (n = recvfrom(p->fd, dgram, sizeof(dgram), 0,
			  (struct sockaddr *)&p->kaddr, &p->kaddr_len)) < 0 ||
	    cr_long_parse(dgram, n, &lh) || lh.type != CR_LONG_INITIAL ||
	    lh.version != QUIC_VERSION_V1) {
		printf("# no Initial from the kernel\n");
		CHECK(0);
		return -1;
	}
	CHECK(n >= 1200);
	memcpy(p->dcid, lh.scid, lh.scid_len);
	p->dcid_len = lh.scid_len;
	p->kdcid_len = lh.dcid_len;

	CHECK_OK(install_secret(p->kfd, 0, psecret));
	CHECK_OK(install_secret(p->kfd, 1, ksecret));
	if (tap_failed_checks)
		return -1;
	if (confirm && peer_confirm(p)) {
		printf("# HANDSHAKE_DONE not acknowledged\n");
		CHECK(0);
		return -1;
	}
	return 0;
}

/*
 * Get the kernel to send an ack-eliciting 1-RTT packet (PATH_RESPONSE)
 * and acknowledge it, then make sure that our ACK was processed (the ACK
 * of a PING sent after it came back): from now on the kernel may initiate
 * a key update.
 */
static inline int peer_ack_kernel_packets(struct peer *p)
{
	static const uint8_t data[8] = { 'k', 'e', 'y', 'u', 'p', 'd', 'a', 't' };
	uint8_t frame[9];
	long long deadline = now_ms() + WAIT_MS;
	struct kpkt k;
	int auto_ack = p->auto_ack, ret = -1;

	p->auto_ack = 1;
	cr_put_path_challenge(frame, data);
	if (peer_send(p, frame, sizeof(frame), 1) == CR_PN_NONE)
		goto out;
	while (peer_recv(p, &k, deadline - now_ms()) > 0) {
		if (k.has_path_response && !memcmp(k.path_data, data, 8)) {
			ret = 0;
			break;
		}
	}
	if (ret)
		printf("# no PATH_RESPONSE\n");
	else
		ret = ping_until_acked(p, p->tx_gen, &k) > 0 ? 0 : -1;
out:
	p->auto_ack = auto_ack;
	return ret;
}

static inline void check_clean(struct peer *p)
{
	CHECK(!p->regress);
	CHECK(!p->undecryptable);
	CHECK(!p->reserved_bits);
}

/*
 * The kernel closed the connection with transport error @code because of
 * the peer: its CONNECTION_CLOSE @k (@closed: 0 if one came, as
 * wait_close() returns) carries the code as a transport close, and its
 * socket shows it: QUIC_SOCKOPT_CONNECTION_CLOSE gives the code, poll() reports the end of
 * the connection and the error (POLLIN, POLLRDHUP and POLLERR), and
 * recvmsg() fails with EPROTO after the events queued before, then
 * returns 0, end of file.  (A close by the peer with an error reads as
 * ECONNRESET instead; see close_test.)
 */
static inline void check_local_close(struct peer *p, const struct kpkt *k,
			      int closed, uint32_t code)
{
	struct quic_connection_close cc;
	socklen_t len = sizeof(cc);
	struct rinfo ri;
	char buf[256];
	ssize_t n;
	int ev;

	if (closed) {
		CHECK(0);	/* wait_close() said why */
	} else if (k->close_err != code || k->close_app) {
		printf("# closed with %#llx%s, want %#x\n",
		       (unsigned long long)k->close_err,
		       k->close_app ? " (application)" : "", code);
		CHECK(0);
	}
	memset(&cc, 0, sizeof(cc));
	CHECK_OK(getsockopt(p->kfd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE,
			    &cc, &len));
	if (cc.errcode != code) {
		printf("# QUIC_SOCKOPT_CONNECTION_CLOSE errcode %#x, want %#x\n",
		       cc.errcode, code);
		CHECK(0);
	}
	ev = wait_poll(p->kfd, POLLIN | POLLRDHUP, WAIT_MS);
	do {
		errno = 0;
		n = qrecv(p->kfd, buf, sizeof(buf), MSG_DONTWAIT, &ri);
	} while (n > 0 && (ri.msg_flags & MSG_QUIC_NOTIFICATION));
	if ((ev & (POLLIN | POLLRDHUP | POLLERR)) !=
	    (POLLIN | POLLRDHUP | POLLERR) || n != -1 || errno != EPROTO) {
		printf("# after the close: poll %#x, recv %zd (%s); want POLLIN|POLLRDHUP|POLLERR and EPROTO\n",
		       ev, n, n < 0 ? strerror(errno) : "");
		CHECK(0);
	}
	n = qrecv(p->kfd, buf, sizeof(buf), MSG_DONTWAIT, &ri);
	if (n != 0) {
		printf("# after EPROTO: recv %zd, want 0 (end of file)\n", n);
		CHECK(0);
	}
}

#endif /* QUIC_SELFTEST_CRAFT_PEER_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * What a hostile server may send a kernel QUIC client after the handshake
 * (craft_peer.h plays the server): frames the connection forbids close it
 * with PROTOCOL_VIOLATION; a flood of PATH_CHALLENGE costs one pending
 * PATH_RESPONSE, never sent twice (RFC 9000 §8.2.2, §13.3); a packet whose
 * fixed bit is 0 is dropped (§17.3.1) when the client did not advertise
 * grease_quic_bit (sysctl net.quic.grease_quic_bit 0), and accepted when
 * it did (RFC 9287 §3, the default); CRYPTO data out
 * of order is held in a bounded ring, a piece that opens one gap too many
 * goes unacknowledged and comes again, and data beyond the window is
 * CRYPTO_BUFFER_EXCEEDED (§7.5).
 */

#include "craft_peer.h"
#include "sysctl_guard.h"

#include <linux/sock_diag.h>

#define PROTOCOL_VIOLATION	0x0a
#define CRYPTO_BUFFER_EXCEEDED	0x0d
#define FRAME_IMMEDIATE_ACK	0x1f
#define CRYPTO_WINDOW		(64 * 1024)
#define REASM_GAPS		16	/* QUIC_REASM_RANGES */

/* The receive memory charged to the kernel socket (SO_MEMINFO). */
static long rmem_alloc(int fd)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len))
		return -1;
	return mem[SK_MEMINFO_RMEM_ALLOC];
}

/* Is our packet @pn acknowledged within @ms?  1, 0 if not, -1 on a close. */
static int acked_within(struct peer *p, uint64_t pn, int ms)
{
	long long deadline = now_ms() + ms;
	struct kpkt k;

	while (peer_recv(p, &k, deadline - now_ms()) > 0) {
		if (k.has_close)
			return -1;
		if (k.has_ack && cr_ack_covers(&k.ack, pn))
			return 1;
	}
	return 0;
}

/* @frame closes the connection with PROTOCOL_VIOLATION naming @type. */
static void expect_violation(int family, const uint8_t *frame, size_t len,
			     uint64_t type)
{
	struct peer p;
	struct kpkt k;
	int closed;

	if (peer_open(&p, family, 1))
		goto out;
	CHECK(peer_send(&p, frame, len, 1) != CR_PN_NONE);
	closed = wait_close(&p, &k, WAIT_MS);
	check_local_close(&p, &k, closed, PROTOCOL_VIOLATION);
	if (!closed && k.close_frame != type) {
		printf("# close names frame %#llx, want %#llx\n",
		       (unsigned long long)k.close_frame,
		       (unsigned long long)type);
		CHECK(0);
	}
out:
	peer_close(&p);
}

/* RFC 9221 §3: we did not advertise max_datagram_frame_size. */
static void test_datagram(int family)
{
	static const uint8_t f[] = { CR_FRAME_DATAGRAM | 1, 3, 'a', 'b', 'c' };

	expect_violation(family, f, sizeof(f), f[0]);
}

/* ack-frequency §3: we did not advertise min_ack_delay. */
static void test_immediate_ack(int family)
{
	static const uint8_t f[] = { FRAME_IMMEDIATE_ACK };

	expect_violation(family, f, sizeof(f), f[0]);
}

/* RFC 9000 §19.16: a sequence number we never issued. */
static void test_retire_unknown(int family)
{
	static const uint8_t f[] = { CR_FRAME_RETIRE_CONNECTION_ID, 7 };

	expect_violation(family, f, sizeof(f), f[0]);
}

/*
 * 20 packets of 30 PATH_CHALLENGE each, none of the kernel's packets
 * acknowledged for two seconds (its PTO sends again what it would): each
 * PATH_RESPONSE echoes the last challenge of one of our packets, and no
 * challenge is answered twice.
 */
#define PC_PACKETS	20
#define PC_PER_PACKET	30

static void test_path_challenge_flood(int family)
{
	uint8_t frames[PC_PER_PACKET * 9], seen[PC_PACKETS] = { 0 };
	uint8_t data[8];
	long long deadline;
	int i, j, responses = 0;
	struct peer p;
	struct kpkt k;

	if (peer_open(&p, family, 1))
		goto out;
	p.auto_ack = 0;
	for (i = 0; i < PC_PACKETS; i++) {
		for (j = 0; j < PC_PER_PACKET; j++) {
			memset(data, 0, sizeof(data));
			data[0] = i;
			data[1] = j;
			cr_put_path_challenge(frames + 9 * j, data);
		}
		CHECK(peer_send(&p, frames, sizeof(frames), 0) != CR_PN_NONE);
	}
	deadline = now_ms() + 2 * RETX_MS;
	while (peer_recv(&p, &k, deadline - now_ms()) > 0) {
		if (!k.has_path_response)
			continue;
		responses++;
		if (k.path_data[0] >= PC_PACKETS ||
		    k.path_data[1] != PC_PER_PACKET - 1) {
			printf("# PATH_RESPONSE %u/%u is not a packet's last challenge\n",
			       k.path_data[0], k.path_data[1]);
			CHECK(0);
		} else if (seen[k.path_data[0]]++) {
			printf("# PATH_RESPONSE %u/%u sent twice\n",
			       k.path_data[0], k.path_data[1]);
			CHECK(0);
		}
	}
	printf("# %d PATH_RESPONSE for %d packets of %d challenges\n",
	       responses, PC_PACKETS, PC_PER_PACKET);
	CHECK(responses >= 1 && responses <= PC_PACKETS);
	check_clean(&p);
out:
	peer_close(&p);
}

#define GREASE_SYSCTL	"/proc/sys/net/quic/grease_quic_bit"

/*
 * A PING whose fixed bit is 0 (built here: craft.h always sets it) is
 * dropped, unacknowledged, by a client that did not advertise
 * grease_quic_bit (@grease 0), acknowledged by one that did; the next,
 * normal one is acknowledged.
 */
static void fixed_bit_zero(int family, int grease)
{
	uint8_t ping = CR_FRAME_PING, pkt[64];
	size_t hdr_len;
	uint64_t pn;
	struct peer p;
	int n;

	CHECK_OK(sysctl_set(GREASE_SYSCTL, grease ? "1" : "0"));
	if (peer_open(&p, family, 1))
		goto out;
	pn = p.next_pn++;
	hdr_len = 1 + p.dcid_len + 2;
	pkt[0] = 0x01;			/* short header, 2-byte packet number */
	memcpy(pkt + 1, p.dcid, p.dcid_len);
	pkt[1 + p.dcid_len] = pn >> 8;
	pkt[2 + p.dcid_len] = pn;
	memset(pkt + hdr_len, 0, 4);	/* PING and PADDING: a sample */
	pkt[hdr_len] = ping;
	n = cr_protect(&p.tx[0], pkt, hdr_len, 1 + p.dcid_len, pn, 4);
	CHECK(n > 0);
	CHECK(sendto(p.fd, pkt, n, 0, (struct sockaddr *)&p.kaddr,
		     p.kaddr_len) == n);
	if (acked_within(&p, pn, grease ? WAIT_MS : RETX_MS) != grease) {
		printf("# the packet with fixed bit 0 was %sacknowledged\n",
		       grease ? "not " : "");
		CHECK(0);
	}
	pn = peer_send(&p, &ping, 1, 1);
	CHECK(acked_within(&p, pn, WAIT_MS) == 1);
	check_clean(&p);
out:
	peer_close(&p);
	sysctl_restore();
}

static void test_fixed_bit_zero(int family)
{
	fixed_bit_zero(family, 0);
}

static void test_fixed_bit_zero_grease(int family)
{
	fixed_bit_zero(family, 1);
}

/*
 * 1-RTT CRYPTO data to a client (its session tickets) out of order:
 * 1-byte pieces opening 16 gaps are held and acknowledged; one more gap
 * is refused, its packet unacknowledged; once the gaps fill, that piece
 * sent again is taken.  The receive memory charged stays within the
 * window, and the data is gone from it once delivered.  Then data ending
 * beyond the window closes with CRYPTO_BUFFER_EXCEEDED.
 */
static void test_crypto_gaps(int family)
{
	uint8_t frame[64], bytes[64];
	struct peer p;
	struct kpkt k;
	uint64_t pn;
	size_t n;
	long mem;
	int i, closed;

	for (i = 0; i < (int)sizeof(bytes); i++)
		bytes[i] = 0x40 + i;
	if (peer_open(&p, family, 1))
		goto out;
	for (i = 1; i <= REASM_GAPS; i++) {
		n = cr_put_crypto(frame, 2 * i, bytes + 2 * i, 1);
		pn = peer_send(&p, frame, n, 1);
		CHECK(acked_within(&p, pn, WAIT_MS) == 1);
	}
	/* The last gap is far out: the ring grows to the whole window. */
	n = cr_put_crypto(frame, CRYPTO_WINDOW - 1, bytes, 1);
	pn = peer_send(&p, frame, n, 1);
	if (acked_within(&p, pn, RETX_MS) != 0) {
		printf("# a piece opening gap %d was acknowledged\n",
		       REASM_GAPS + 1);
		CHECK(0);
	}
	mem = rmem_alloc(p.kfd);
	printf("# %d gaps held: rmem_alloc %ld\n", REASM_GAPS, mem);
	CHECK(mem >= 0 && mem <= 8192);
	/* Fill every gap at once; then the far piece is taken. */
	n = cr_put_crypto(frame, 0, bytes, 2 * REASM_GAPS + 2);
	pn = peer_send(&p, frame, n, 1);
	CHECK(acked_within(&p, pn, WAIT_MS) == 1);
	n = cr_put_crypto(frame, CRYPTO_WINDOW - 1, bytes, 1);
	pn = peer_send(&p, frame, n, 1);
	CHECK(acked_within(&p, pn, WAIT_MS) == 1);
	mem = rmem_alloc(p.kfd);
	printf("# far piece held: rmem_alloc %ld\n", mem);
	CHECK(mem >= CRYPTO_WINDOW && mem <= CRYPTO_WINDOW + 8192);
	/* 64 KiB beyond what was delivered (34 bytes) is too far. */
	n = cr_put_crypto(frame, 2 * REASM_GAPS + 2 + CRYPTO_WINDOW, bytes, 1);
	CHECK(peer_send(&p, frame, n, 1) != CR_PN_NONE);
	closed = wait_close(&p, &k, WAIT_MS);
	check_local_close(&p, &k, closed, CRYPTO_BUFFER_EXCEEDED);
out:
	peer_close(&p);
}

static const struct conn_test tests[] = {
	{ "DATAGRAM not advertised: PROTOCOL_VIOLATION", test_datagram, 0 },
	{ "IMMEDIATE_ACK without min_ack_delay: PROTOCOL_VIOLATION",
	  test_immediate_ack, 0 },
	{ "RETIRE_CONNECTION_ID never issued: PROTOCOL_VIOLATION",
	  test_retire_unknown, 0 },
	{ "600 PATH_CHALLENGE: one PATH_RESPONSE per packet at most, never twice",
	  test_path_challenge_flood, FAM_BOTH },
	{ "fixed bit 0 without grease_quic_bit: dropped", test_fixed_bit_zero, 0 },
	{ "fixed bit 0 with grease_quic_bit advertised: accepted",
	  test_fixed_bit_zero_grease, 0 },
	{ "CRYPTO gaps: 16 held, the 17th unacknowledged, window bound",
	  test_crypto_gaps, FAM_BOTH },
};

int main(void)
{
	return sysctl_guarded_main(GREASE_SYSCTL, tests,
				   sizeof(tests) / sizeof(tests[0]));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Frame decoder.  Input: byte 0 = packet type (low 2 bits: Initial, 0-RTT,
 * Handshake, 1-RTT) and sender role (bit 2), then a packet payload.
 * Property: each decoded frame encodes and decodes back to an equal frame,
 * no longer than the input, and is allowed in the packet type.
 */
#include "fuzz_common.h"
#include "frame.h"
#include "../frame_eq.h"

static const u8 pkt_types[4] = {
	QUIC_PKT_INITIAL, QUIC_PKT_0RTT, QUIC_PKT_HANDSHAKE, QUIC_PKT_1RTT
};

static u8 out[65536];

static void check_ack(const struct quic_frame *f)
{
	struct quic_ack_iter it;
	u64 lo, hi, prev_lo = 0, count = 0;

	quic_ack_iter_init(&it, &f->ack);
	while (quic_ack_iter_next(&it, &lo, &hi)) {
		FUZZ_ASSERT(lo <= hi);
		if (count)
			FUZZ_ASSERT(hi + 1 < prev_lo);
		prev_lo = lo;
		count++;
	}
	FUZZ_ASSERT(count == f->ack.range_count + 1);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct quic_frame f, g;
	bool server;
	size_t off = 0, len;
	u8 pt, *buf;
	u32 terr;
	int n, m;

	if (size < 1)
		return 0;
	pt = pkt_types[data[0] & 3];
	server = data[0] & 4;
	len = size - 1;
	buf = fuzz_dup(data + 1, len);

	while (off < len) {
		terr = ~0U;
		n = quic_frame_decode(buf + off, len - off, pt, server, &f, &terr);
		if (n < 0) {
			FUZZ_ASSERT(n == -EPROTO);
			FUZZ_ASSERT(terr == QUIC_TRANSPORT_ERROR_FRAME_ENCODING ||
				    terr == QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION);
			break;
		}
		FUZZ_ASSERT(n > 0 && (size_t)n <= len - off);
		FUZZ_ASSERT(quic_frame_allowed(f.type, pt));
		if (f.type == QUIC_FRAME_ACK || f.type == QUIC_FRAME_ACK_ECN)
			check_ack(&f);

		m = quic_frame_encode(out, sizeof(out), &f);
		FUZZ_ASSERT(m > 0 && m <= n);
		FUZZ_ASSERT(quic_frame_decode(out, m, pt, server, &g, &terr) == m);
		FUZZ_ASSERT(frame_eq(&f, &g));
		off += n;
	}
	free(buf);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Varint decoder.  Property: whatever decodes re-encodes on the same
 * length to the same bytes, and minimally to something that decodes to
 * the same value.
 */
#include "fuzz_common.h"
#include "varint.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u8 *buf = fuzz_dup(data, size), out[8];
	struct quic_rd rd;
	size_t off = 0;
	u64 v, w;
	int n, m;

	while (off < size) {
		n = quic_varint_decode(buf + off, size - off, &v);
		if (n < 0) {
			FUZZ_ASSERT(n == -EBADMSG);
			FUZZ_ASSERT(size - off < quic_varint_len_byte(buf[off]));
			break;
		}
		FUZZ_ASSERT(v <= QUIC_VARINT_MAX);
		FUZZ_ASSERT(quic_varint_encode_fixed(out, sizeof(out), v, n) == n);
		FUZZ_ASSERT(!memcmp(out, buf + off, n));
		m = quic_varint_encode(out, sizeof(out), v);
		FUZZ_ASSERT(m > 0 && m <= n);
		FUZZ_ASSERT(quic_varint_decode(out, m, &w) == m && w == v);
		off += n;
	}

	/* The cursor must agree with the raw decoder. */
	quic_rd_init(&rd, buf, size);
	while (!quic_rd_varint(&rd, &v))
		;
	FUZZ_ASSERT(rd.p == buf + off);
	free(buf);
	return 0;
}

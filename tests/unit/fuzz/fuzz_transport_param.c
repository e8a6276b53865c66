// SPDX-License-Identifier: GPL-2.0
/*
 * Transport parameters decoder.  Input: byte 0 bit 0 = sent by a server,
 * then the extension body.  Property: accepted parameters encode and
 * decode back to an identical struct, and encode is stable.
 */
#include "fuzz_common.h"
#include "transport_param.h"

static u8 out[8192], out2[8192];

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct quic_transport_params tp, tp2;
	struct quic_cid cid = { 0 };
	bool server;
	u32 terr = 0;
	u8 *buf;
	int r, n;

	if (size < 1)
		return 0;
	server = data[0] & 1;
	buf = fuzz_dup(data + 1, size - 1);
	r = quic_tp_decode(buf, size - 1, server, &tp, &terr);
	if (r) {
		FUZZ_ASSERT(r == -EPROTO);
		FUZZ_ASSERT(terr == QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM);
		goto out;
	}
	n = quic_tp_encode(out, sizeof(out), &tp);
	FUZZ_ASSERT(n >= 0);
	FUZZ_ASSERT(quic_tp_decode(out, n, server, &tp2, &terr) == 0);
	FUZZ_ASSERT(!memcmp(&tp, &tp2, sizeof(tp)));
	FUZZ_ASSERT(quic_tp_encode(out2, sizeof(out2), &tp2) == n);
	FUZZ_ASSERT(!memcmp(out, out2, n));
	r = quic_tp_check_cids(&tp, server, &tp.initial_scid, &cid, NULL, &terr);
	FUZZ_ASSERT(r == 0 || r == -EPROTO);
out:
	free(buf);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Packet header parser.  Input: byte 0 = our CID length (low 5 bits, capped
 * at 20), then 8 bytes of largest packet number, then the packet.
 * Property: a parsed header re-encodes to one that parses the same.
 */
#include <linux/unaligned.h>

#include "fuzz_common.h"
#include "packet_header.h"

static u8 out[4096];

static void check_same(const struct quic_hdr *a, const struct quic_hdr *b)
{
	FUZZ_ASSERT(a->type == b->type);
	FUZZ_ASSERT(a->version == b->version);
	FUZZ_ASSERT(quic_cid_eq(&a->dcid, &b->dcid));
	FUZZ_ASSERT(quic_cid_eq(&a->scid, &b->scid));
	FUZZ_ASSERT(a->token_len == b->token_len);
	FUZZ_ASSERT(!a->token_len || !memcmp(a->token, b->token, a->token_len));
	FUZZ_ASSERT(a->length == b->length);
}

static void roundtrip_pn(struct quic_hdr *h, const u8 *pkt, size_t len,
			 u64 largest)
{
	struct quic_hdr e = *h, g;
	size_t payload;
	u32 terr = 0;
	int n, r;

	r = quic_hdr_finish(h, pkt, len, largest);
	if (r < 0) {
		FUZZ_ASSERT(r == -EBADMSG);
		return;
	}
	FUZZ_ASSERT((size_t)r <= len && (size_t)r <= h->pkt_len);
	FUZZ_ASSERT(h->pn <= QUIC_PN_MAX);
	if (quic_hdr_check_reserved(h, &terr))
		FUZZ_ASSERT(terr == QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION);

	/* Re-encode with an 8-byte Length, copy the payload after it. */
	e = *h;
	e.length_len = 8;
	n = quic_hdr_encode(out, sizeof(out), &e);
	FUZZ_ASSERT(n > 0);
	payload = h->pkt_len - r;
	if (n + payload > sizeof(out))
		return;
	memcpy(out + n, pkt + r, payload);
	FUZZ_ASSERT(quic_hdr_parse(out, n + payload, h->dcid.len, &g) == 0);
	check_same(h, &g);
	FUZZ_ASSERT(quic_hdr_finish(&g, out, n + payload, largest) == n);
	FUZZ_ASSERT(g.pn == h->pn && g.pn_len == h->pn_len);
	FUZZ_ASSERT(g.key_phase == h->key_phase && g.spin == h->spin);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct quic_invariant inv;
	struct quic_hdr h, g;
	u8 dcid_len, *pkt;
	u64 largest;
	size_t len;
	int r, n;

	if (size < 9)
		return 0;
	dcid_len = data[0] & 0x1f;
	if (dcid_len > 20)
		dcid_len = 20;
	largest = get_unaligned_be64(data + 1);
	if (largest != QUIC_PN_NONE)
		largest &= QUIC_PN_MAX;
	len = size - 9;
	pkt = fuzz_dup(data + 9, len);

	r = quic_hdr_parse_invariant(pkt, len, dcid_len, &inv);
	FUZZ_ASSERT(r == -EBADMSG || (r > 0 && (size_t)r <= len));

	r = quic_hdr_parse(pkt, len, dcid_len, &h);
	if (r == -EPROTONOSUPPORT) {
		FUZZ_ASSERT(inv.long_form && !quic_version_supported(inv.version));
		goto out;
	}
	if (r) {
		FUZZ_ASSERT(r == -EBADMSG);
		goto out;
	}
	FUZZ_ASSERT(h.pkt_len <= len);
	switch (h.type) {
	case QUIC_PKT_VERSION_NEGOTIATION: {
		u32 vers[64];
		size_t i, nv = h.n_versions < 64 ? h.n_versions : 64;

		for (i = 0; i < nv; i++)
			vers[i] = get_unaligned_be32(h.versions + 4 * i);
		n = quic_hdr_encode_vn(out, sizeof(out), pkt[0], h.dcid.data,
				       h.dcid.len, h.scid.data, h.scid.len,
				       vers, nv);
		FUZZ_ASSERT(n > 0);
		FUZZ_ASSERT(quic_hdr_parse(out, n, 0, &g) == 0);
		FUZZ_ASSERT(g.type == h.type && g.n_versions == nv);
		FUZZ_ASSERT(!memcmp(g.versions, h.versions, 4 * nv));
		break;
	}
	case QUIC_PKT_RETRY:
		n = quic_hdr_encode_retry(out, sizeof(out), h.version, pkt[0],
					  &h.dcid, &h.scid, h.token,
					  h.token_len);
		if (n < 0 || n + 16 > (int)sizeof(out))
			break;
		memcpy(out + n, h.retry_tag, 16);
		FUZZ_ASSERT(quic_hdr_parse(out, n + 16, 0, &g) == 0);
		check_same(&h, &g);
		FUZZ_ASSERT(!memcmp(g.retry_tag, h.retry_tag, 16));
		/* Only the fixed bit may differ in the first byte. */
		FUZZ_ASSERT(((out[0] ^ pkt[0]) & ~QUIC_HDR_FIXED_BIT) == 0);
		break;
	default:
		roundtrip_pn(&h, pkt, len, largest);
		break;
	}
out:
	free(pkt);
	return 0;
}

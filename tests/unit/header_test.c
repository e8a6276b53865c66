// SPDX-License-Identifier: GPL-2.0
/* Packet headers and packet numbers: RFC 9000 §17, A.2, A.3; RFC 9001 and
 * RFC 9369 Appendix A.
 */
#include <linux/types.h>
#include <linux/errno.h>

#include "packet_header.h"
#include "varint.h"
#include "suites.h"
#include "tap.h"
#include "vectors.h"

static u8 pkt[2048];

/* Header @hex followed by zeros up to its Length. */
static size_t build_long(const char *hex, size_t total)
{
	size_t n = hex2bin(hex, pkt, sizeof(pkt));

	memset(pkt + n, 0, total - n);
	return total;
}

static void test_rfc9001_client(void)
{
	u8 dcid[8] = { 0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08 };
	struct quic_hdr h;
	size_t len;

	/* 18-byte header before the pn, then Length = 1182 bytes */
	len = build_long(RFC9001_CLIENT_HDR, 18 + 1182);
	tap_begin("header: RFC 9001 A.2 client Initial, unprotected");
	EXPECT_EQ(quic_hdr_parse(pkt, len, 0, &h), 0);
	EXPECT_EQ(h.type, QUIC_PKT_INITIAL);
	EXPECT_EQ(h.version, QUIC_VERSION_V1);
	EXPECT_EQ(h.dcid.len, 8);
	EXPECT_MEM(h.dcid.data, dcid, 8);
	EXPECT_EQ(h.scid.len, 0);
	EXPECT_EQ(h.token_len, 0);
	EXPECT_EQ(h.length, 1182);
	EXPECT_EQ(h.pn_offset, 18);
	EXPECT_EQ(h.pkt_len, len);
	EXPECT(h.fixed_bit);
	EXPECT_EQ(quic_hdr_finish(&h, pkt, len, QUIC_PN_NONE), 22);
	EXPECT_EQ(h.pn_len, 4);
	EXPECT_EQ(h.pn, 2);
	tap_end();

	tap_begin("header: RFC 9001 A.2 client Initial, protected form");
	hex2bin(RFC9001_CLIENT_HDR_PROT, pkt, sizeof(pkt));
	EXPECT_EQ(quic_hdr_parse(pkt, len, 0, &h), 0);
	EXPECT_EQ(h.type, QUIC_PKT_INITIAL);
	EXPECT_EQ(h.pn_offset, 18);
	EXPECT_EQ(h.first, 0xc0);
	tap_end();
}

static void test_rfc9001_server(void)
{
	u8 scid[8] = { 0xf0, 0x67, 0xa5, 0x50, 0x2a, 0x42, 0x62, 0xb5 };
	struct quic_hdr h;
	size_t len = build_long(RFC9001_SERVER_HDR, 18 + 0x75);

	tap_begin("header: RFC 9001 A.3 server Initial, unprotected");
	EXPECT_EQ(quic_hdr_parse(pkt, len, 8, &h), 0);
	EXPECT_EQ(h.type, QUIC_PKT_INITIAL);
	EXPECT_EQ(h.dcid.len, 0);
	EXPECT_EQ(h.scid.len, 8);
	EXPECT_MEM(h.scid.data, scid, 8);
	EXPECT_EQ(h.length, 0x75);
	EXPECT_EQ(h.pn_offset, 18);
	EXPECT_EQ(quic_hdr_finish(&h, pkt, len, QUIC_PN_NONE), 20);
	EXPECT_EQ(h.pn_len, 2);
	EXPECT_EQ(h.pn, 1);
	tap_end();

	tap_begin("header: RFC 9001 A.3 server Initial, protected form");
	hex2bin(RFC9001_SERVER_HDR_PROT, pkt, sizeof(pkt));
	EXPECT_EQ(quic_hdr_parse(pkt, len, 8, &h), 0);
	EXPECT_EQ(h.pn_offset, 18);
	EXPECT_EQ(h.first, 0xcf);
	tap_end();
}

static void test_encode_rfc_headers(void)
{
	struct quic_hdr h = { 0 };
	u8 out[64], exp[64];
	size_t n;

	tap_begin("header: encode reproduces RFC 9001 A.2 client header");
	n = hex2bin(RFC9001_CLIENT_HDR, exp, sizeof(exp));
	h.type = QUIC_PKT_INITIAL;
	h.version = QUIC_VERSION_V1;
	h.fixed_bit = true;
	quic_cid_set(&h.dcid, exp + 6, 8);
	h.length = 1182;
	h.length_len = 2;
	h.pn = 2;
	h.pn_len = 4;
	EXPECT_EQ(quic_hdr_encode(out, sizeof(out), &h), n);
	EXPECT_MEM(out, exp, n);
	EXPECT_EQ(h.pn_offset, 18);
	tap_end();

	tap_begin("header: encode reproduces RFC 9369 client header (v2 bits)");
	n = hex2bin(RFC9369_CLIENT_HDR, exp, sizeof(exp));
	h.version = QUIC_VERSION_V2;
	EXPECT_EQ(quic_hdr_encode(out, sizeof(out), &h), n);
	EXPECT_MEM(out, exp, n);
	tap_end();

	tap_begin("header: encode reproduces RFC 9001 A.3 server header");
	memset(&h, 0, sizeof(h));
	n = hex2bin(RFC9001_SERVER_HDR, exp, sizeof(exp));
	h.type = QUIC_PKT_INITIAL;
	h.version = QUIC_VERSION_V1;
	h.fixed_bit = true;
	quic_cid_set(&h.scid, exp + 7, 8);
	h.length = 0x75;
	h.length_len = 2;
	h.pn = 1;
	h.pn_len = 2;
	EXPECT_EQ(quic_hdr_encode(out, sizeof(out), &h), n);
	EXPECT_MEM(out, exp, n);
	tap_end();

	tap_begin("header: encode reproduces RFC 9369 server header");
	n = hex2bin(RFC9369_SERVER_HDR, exp, sizeof(exp));
	h.version = QUIC_VERSION_V2;
	EXPECT_EQ(quic_hdr_encode(out, sizeof(out), &h), n);
	EXPECT_MEM(out, exp, n);
	tap_end();

	tap_begin("header: encode -ENOSPC at every short length");
	for (n = 0; n < 20; n++)
		EXPECT_EQ(quic_hdr_encode(out, n, &h), -ENOSPC);
	tap_end();

	tap_begin("header: set_length patches a reserved 2-byte Length");
	EXPECT_EQ(quic_hdr_encode(out, sizeof(out), &h), 20);
	EXPECT_EQ(quic_hdr_set_length(out, &h, 0x1234), 0);
	EXPECT_EQ(out[16], 0x52);
	EXPECT_EQ(out[17], 0x34);
	EXPECT_EQ(quic_hdr_set_length(out, &h, 0x4000), -EINVAL);
	tap_end();
}

static void test_v2(void)
{
	struct quic_hdr h;
	size_t len;

	tap_begin("header: RFC 9369 client Initial parses as v2 Initial");
	len = build_long(RFC9369_CLIENT_HDR, 18 + 1182);
	EXPECT_EQ(quic_hdr_parse(pkt, len, 0, &h), 0);
	EXPECT_EQ(h.type, QUIC_PKT_INITIAL);
	EXPECT_EQ(h.version, QUIC_VERSION_V2);
	EXPECT_EQ(quic_hdr_finish(&h, pkt, len, QUIC_PN_NONE), 22);
	EXPECT_EQ(h.pn, 2);
	tap_end();

	tap_begin("header: RFC 9369 server Initial parses as v2 Initial");
	len = build_long(RFC9369_SERVER_HDR, 18 + 0x75);
	EXPECT_EQ(quic_hdr_parse(pkt, len, 8, &h), 0);
	EXPECT_EQ(h.type, QUIC_PKT_INITIAL);
	EXPECT_EQ(quic_hdr_finish(&h, pkt, len, QUIC_PN_NONE), 20);
	EXPECT_EQ(h.pn, 1);
	tap_end();

	tap_begin("header: long type bits map v1 and v2 both ways");
	EXPECT_EQ(quic_long_type_to_bits(QUIC_VERSION_V1, QUIC_PKT_INITIAL), 0);
	EXPECT_EQ(quic_long_type_to_bits(QUIC_VERSION_V1, QUIC_PKT_0RTT), 1);
	EXPECT_EQ(quic_long_type_to_bits(QUIC_VERSION_V1, QUIC_PKT_HANDSHAKE), 2);
	EXPECT_EQ(quic_long_type_to_bits(QUIC_VERSION_V1, QUIC_PKT_RETRY), 3);
	EXPECT_EQ(quic_long_type_to_bits(QUIC_VERSION_V2, QUIC_PKT_INITIAL), 1);
	EXPECT_EQ(quic_long_type_to_bits(QUIC_VERSION_V2, QUIC_PKT_0RTT), 2);
	EXPECT_EQ(quic_long_type_to_bits(QUIC_VERSION_V2, QUIC_PKT_HANDSHAKE), 3);
	EXPECT_EQ(quic_long_type_to_bits(QUIC_VERSION_V2, QUIC_PKT_RETRY), 0);
	EXPECT_EQ(quic_long_bits_to_type(QUIC_VERSION_V2, 0), QUIC_PKT_RETRY);
	EXPECT_EQ(quic_long_bits_to_type(QUIC_VERSION_V1, 3), QUIC_PKT_RETRY);
	EXPECT_EQ(quic_long_type_to_bits(0x12345678, QUIC_PKT_INITIAL), -EINVAL);
	EXPECT_EQ(quic_long_type_to_bits(QUIC_VERSION_V1, QUIC_PKT_1RTT), -EINVAL);
	tap_end();
}

static void test_long_roundtrip(void)
{
	static const u32 versions[] = { QUIC_VERSION_V1, QUIC_VERSION_V2 };
	static const u8 types[] = {
		QUIC_PKT_INITIAL, QUIC_PKT_0RTT, QUIC_PKT_HANDSHAKE
	};
	u8 token[5] = "tokn";
	size_t v, t;

	for (v = 0; v < 2; v++) {
		for (t = 0; t < 3; t++) {
			struct quic_hdr h = { 0 }, g;
			u8 out[256] = { 0 };
			int n, i;

			tap_begin("header: v%zu type %u round trip, CIDs 0..20",
				  v + 1, types[t]);
			for (i = 0; i <= 20; i++) {
				memset(&h, 0, sizeof(h));
				h.type = types[t];
				h.version = versions[v];
				h.fixed_bit = true;
				h.dcid.len = i;
				memset(h.dcid.data, 0xd0 + i, i);
				h.scid.len = 20 - i;
				memset(h.scid.data, 0x50, 20 - i);
				h.token = token;
				h.token_len = types[t] == QUIC_PKT_INITIAL ? 4 : 0;
				h.length = 100;
				h.pn = 0x1234567 + i;
				h.pn_len = 1 + i % 4;
				n = quic_hdr_encode(out, sizeof(out), &h);
				EXPECT(n > 0);
				EXPECT_EQ(quic_hdr_parse(out, n - h.pn_len + 100,
							 0, &g), 0);
				EXPECT_EQ(g.type, h.type);
				EXPECT_EQ(g.version, h.version);
				EXPECT(quic_cid_eq(&g.dcid, &h.dcid));
				EXPECT(quic_cid_eq(&g.scid, &h.scid));
				EXPECT_EQ(g.token_len, h.token_len);
				EXPECT_EQ(g.length, 100);
				EXPECT_EQ(g.pn_offset, h.pn_offset);
				EXPECT_EQ(quic_hdr_finish(&g, out, sizeof(out),
							  h.pn - 1), n);
				EXPECT_EQ(g.pn, h.pn);
				EXPECT_EQ(quic_hdr_check_reserved(&g, NULL), 0);
			}
			tap_end();
		}
	}
}

static void test_retry(void)
{
	struct quic_cid scid, dcid = { 0 };
	u8 exp[64], out[64];
	struct quic_hdr h;
	size_t n;

	tap_begin("header: RFC 9001 A.4 Retry parses");
	n = hex2bin(RFC9001_RETRY, pkt, sizeof(pkt));
	EXPECT_EQ(quic_hdr_parse(pkt, n, 0, &h), 0);
	EXPECT_EQ(h.type, QUIC_PKT_RETRY);
	EXPECT_EQ(h.scid.len, 8);
	EXPECT_EQ(h.token_len, 5);
	EXPECT_MEM(h.token, "token", 5);
	EXPECT(h.retry_tag == pkt + n - 16);
	EXPECT_EQ(h.retry_tag[0], 0x04);
	tap_end();

	tap_begin("header: Retry encode reproduces RFC 9001 A.4 and RFC 9369");
	n = hex2bin(RFC9001_RETRY, exp, sizeof(exp));
	quic_cid_set(&scid, exp + 7, 8);
	EXPECT_EQ(quic_hdr_encode_retry(out, sizeof(out), QUIC_VERSION_V1, 0xf,
					&dcid, &scid, (const u8 *)"token", 5),
		  n - 16);
	EXPECT_MEM(out, exp, n - 16);
	n = hex2bin(RFC9369_RETRY, exp, sizeof(exp));
	EXPECT_EQ(quic_hdr_encode_retry(out, sizeof(out), QUIC_VERSION_V2, 0xf,
					&dcid, &scid, (const u8 *)"token", 5),
		  n - 16);
	EXPECT_MEM(out, exp, n - 16);
	EXPECT_EQ(quic_hdr_parse(exp, n, 0, &h), 0);
	EXPECT_EQ(h.type, QUIC_PKT_RETRY);
	EXPECT_EQ(h.version, QUIC_VERSION_V2);
	tap_end();

	tap_begin("header: Retry with an empty token is dropped");
	n = hex2bin(RFC9001_RETRY, pkt, sizeof(pkt));
	memmove(pkt + 15, pkt + 20, 16);	/* drop "token" */
	EXPECT_EQ(quic_hdr_parse(pkt, 31, 0, &h), -EBADMSG);
	EXPECT_EQ(quic_hdr_parse(pkt, 15, 0, &h), -EBADMSG);
	EXPECT_EQ(quic_hdr_encode_retry(out, sizeof(out), QUIC_VERSION_V1, 0,
					&dcid, &scid, NULL, 0), -EINVAL);
	tap_end();

	tap_begin("header: Retry pseudo-packet prefix");
	quic_cid_set(&dcid, (const u8 *)"\x83\x94\xc8\xf0\x3e\x51\x57\x08", 8);
	EXPECT_EQ(quic_retry_pseudo_prefix(out, sizeof(out), &dcid), 9);
	EXPECT_EQ(out[0], 8);
	EXPECT_EQ(out[1], 0x83);
	EXPECT_EQ(quic_retry_pseudo_prefix(out, 8, &dcid), -ENOSPC);
	tap_end();
}

static void test_short(void)
{
	struct quic_hdr h = { 0 }, g;
	u8 out[64];
	size_t n;
	int i;

	tap_begin("header: RFC 9001 A.5 short header, PN 654360564");
	n = hex2bin(RFC9001_SHORT_HDR, pkt, sizeof(pkt));
	memset(pkt + n, 0, 17);
	EXPECT_EQ(quic_hdr_parse(pkt, 21, 0, &h), 0);
	EXPECT_EQ(h.type, QUIC_PKT_1RTT);
	EXPECT_EQ(h.pn_offset, 1);
	EXPECT_EQ(quic_hdr_finish(&h, pkt, 21, 654360563), 4);
	EXPECT_EQ(h.pn_len, 3);
	EXPECT_EQ(h.pn, 654360564);
	EXPECT(!h.key_phase);
	EXPECT(!h.spin);
	EXPECT_EQ(quic_hdr_check_reserved(&h, NULL), 0);
	tap_end();

	tap_begin("header: RFC 9001 A.5 protected packet parses");
	n = hex2bin(RFC9001_SHORT_PACKET, pkt, sizeof(pkt));
	EXPECT_EQ(quic_hdr_parse(pkt, n, 0, &h), 0);
	EXPECT_EQ(h.pn_offset, 1);
	EXPECT_EQ(h.pkt_len, 21);
	tap_end();

	tap_begin("header: short header round trip, key phase and spin");
	for (i = 0; i < 16; i++) {
		memset(&h, 0, sizeof(h));
		h.type = QUIC_PKT_1RTT;
		h.fixed_bit = true;
		h.key_phase = i & 1;
		h.spin = i & 2;
		h.pn_len = 1 + i % 4;
		h.pn = 1000 + i;
		quic_cid_set(&h.dcid, (const u8 *)"0123456789abcdefghij", i);
		n = quic_hdr_encode(out, sizeof(out), &h);
		EXPECT_EQ(n, 1 + i + h.pn_len);
		EXPECT_EQ(quic_hdr_parse(out, n, i, &g), 0);
		EXPECT(quic_cid_eq(&g.dcid, &h.dcid));
		EXPECT_EQ(quic_hdr_finish(&g, out, n, 999), n);
		EXPECT_EQ(g.pn, h.pn);
		EXPECT_EQ(g.key_phase, h.key_phase);
		EXPECT_EQ(g.spin, h.spin);
	}
	tap_end();

	tap_begin("header: short header without a packet number byte is dropped");
	out[0] = 0x40;
	EXPECT_EQ(quic_hdr_parse(out, 9, 8, &g), -EBADMSG);
	EXPECT_EQ(quic_hdr_parse(out, 10, 8, &g), 0);
	EXPECT_EQ(quic_hdr_parse(out, 40, 21, &g), -EINVAL);
	tap_end();
}

static void test_vn(void)
{
	static const u32 vers[] = { QUIC_VERSION_V2, QUIC_VERSION_V1 };
	struct quic_invariant inv;
	struct quic_hdr h;
	u8 out[64];
	int n;

	tap_begin("header: Version Negotiation round trip");
	n = quic_hdr_encode_vn(out, sizeof(out), 0x55, (const u8 *)"abcd", 4,
			       (const u8 *)"xyz", 3, vers, 2);
	EXPECT_EQ(n, 1 + 4 + 1 + 4 + 1 + 3 + 8);
	EXPECT_EQ(out[0] & 0x80, 0x80);
	EXPECT_EQ(quic_hdr_parse(out, n, 0, &h), 0);
	EXPECT_EQ(h.type, QUIC_PKT_VERSION_NEGOTIATION);
	EXPECT_EQ(h.version, 0);
	EXPECT_EQ(h.n_versions, 2);
	EXPECT_EQ(get_unaligned_be32(h.versions), QUIC_VERSION_V2);
	EXPECT_EQ(h.dcid.len, 4);
	EXPECT_EQ(h.scid.len, 3);
	tap_end();

	tap_begin("header: Version Negotiation with a partial version is dropped");
	EXPECT_EQ(quic_hdr_parse(out, n - 1, 0, &h), -EBADMSG);
	EXPECT_EQ(quic_hdr_parse(out, n - 8, 0, &h), -EBADMSG);
	EXPECT_EQ(quic_hdr_encode_vn(out, sizeof(out), 0, NULL, 0, NULL, 0,
				     vers, 0), -EINVAL);
	tap_end();

	tap_begin("header: unknown version: -EPROTONOSUPPORT, invariants with 255-byte CIDs");
	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0xc0;
	put_unaligned_be32(0x1a2a3a4a, pkt + 1);
	pkt[5] = 255;
	pkt[6 + 255] = 255;
	EXPECT_EQ(quic_hdr_parse(pkt, 1200, 0, &h), -EPROTONOSUPPORT);
	EXPECT_EQ(quic_hdr_parse_invariant(pkt, 1200, 0, &inv), 1 + 4 + 1 + 255 + 1 + 255);
	EXPECT(inv.long_form);
	EXPECT_EQ(inv.version, 0x1a2a3a4a);
	EXPECT_EQ(inv.dcid_len, 255);
	EXPECT_EQ(inv.scid_len, 255);
	EXPECT(inv.scid == pkt + 7 + 255);
	EXPECT(quic_version_is_reserved(0x1a2a3a4a));
	EXPECT(!quic_version_is_reserved(QUIC_VERSION_V1));
	EXPECT_EQ(quic_hdr_parse_invariant(pkt, 300, 0, &inv), -EBADMSG);
	tap_end();
}

static void test_rejects(void)
{
	struct quic_hdr h;
	size_t len, i;
	int bad = 0;
	u32 terr = 0;

	tap_begin("header: v1 connection ID of 21 bytes is dropped");
	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0xc0;
	put_unaligned_be32(QUIC_VERSION_V1, pkt + 1);
	pkt[5] = 21;
	EXPECT_EQ(quic_hdr_parse(pkt, 1200, 0, &h), -EBADMSG);
	pkt[5] = 20;
	EXPECT_EQ(quic_hdr_parse(pkt, 1200, 0, &h), -EBADMSG); /* Length 0 */
	pkt[5 + 1 + 20 + 1 + 1] = 1;	/* Length = 1 */
	EXPECT_EQ(quic_hdr_parse(pkt, 1200, 0, &h), 0);
	tap_end();

	tap_begin("header: Length beyond the datagram is dropped");
	len = build_long(RFC9001_CLIENT_HDR, 18 + 1182);
	EXPECT_EQ(quic_hdr_parse(pkt, len - 1, 0, &h), -EBADMSG);
	EXPECT_EQ(quic_hdr_parse(pkt, len + 5, 0, &h), 0);
	EXPECT_EQ(h.pkt_len, len);
	tap_end();

	tap_begin("header: Initial truncated at every byte is dropped");
	len = build_long(RFC9001_CLIENT_HDR, 18 + 1182);
	for (i = 0; i < 18; i++)
		bad += quic_hdr_parse(pkt, i, 0, &h) != -EBADMSG;
	EXPECT_EQ(bad, 0);
	tap_end();

	tap_begin("header: packet number past Length or buffer is dropped");
	len = build_long(RFC9001_CLIENT_HDR, 18 + 1182);
	EXPECT_EQ(quic_hdr_parse(pkt, len, 0, &h), 0);
	EXPECT_EQ(quic_hdr_finish(&h, pkt, 20, QUIC_PN_NONE), -EBADMSG);
	pkt[16] = 0x40;		/* Length 2 with a 4-byte packet number */
	pkt[17] = 2;
	EXPECT_EQ(quic_hdr_parse(pkt, len, 0, &h), 0);
	EXPECT_EQ(quic_hdr_finish(&h, pkt, len, QUIC_PN_NONE), -EBADMSG);
	tap_end();

	tap_begin("header: reserved bits set after unprotection: PROTOCOL_VIOLATION");
	len = build_long(RFC9001_CLIENT_HDR, 18 + 1182);
	EXPECT_EQ(quic_hdr_parse(pkt, len, 0, &h), 0);
	pkt[0] |= 0x04;
	EXPECT_EQ(quic_hdr_finish(&h, pkt, len, QUIC_PN_NONE), 22);
	EXPECT_EQ(quic_hdr_check_reserved(&h, &terr), -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION);
	tap_end();

	tap_begin("header: short header reserved bits: PROTOCOL_VIOLATION");
	hex2bin(RFC9001_SHORT_HDR, pkt, sizeof(pkt));
	pkt[0] |= 0x10;
	EXPECT_EQ(quic_hdr_parse(pkt, 21, 0, &h), 0);
	EXPECT_EQ(quic_hdr_finish(&h, pkt, 21, 0), 4);
	terr = 0;
	EXPECT_EQ(quic_hdr_check_reserved(&h, &terr), -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION);
	tap_end();

	tap_begin("header: fixed bit 0 is reported, not dropped (RFC 9287)");
	len = build_long(RFC9001_CLIENT_HDR, 18 + 1182);
	pkt[0] &= ~0x40;
	EXPECT_EQ(quic_hdr_parse(pkt, len, 0, &h), 0);
	EXPECT(!h.fixed_bit);
	tap_end();

	tap_begin("header: finish refuses Retry and VN, empty input");
	h.type = QUIC_PKT_RETRY;
	EXPECT_EQ(quic_hdr_finish(&h, pkt, len, 0), -EINVAL);
	h.type = QUIC_PKT_1RTT;
	EXPECT_EQ(quic_hdr_finish(&h, pkt, 0, 0), -EBADMSG);
	EXPECT_EQ(quic_hdr_parse(pkt, 0, 0, &h), -EBADMSG);
	tap_end();
}

static void test_pn(void)
{
	u64 seed = 7;
	int i;

	tap_begin("pn: RFC 9000 A.2 example 0xac5c02 needs 16 bits");
	EXPECT_EQ(quic_pn_encode_len(0xac5c02, 0xabe8b3), 2);
	tap_end();

	tap_begin("pn: RFC 9000 A.2 example 0xace8fe needs 24 bits");
	EXPECT_EQ(quic_pn_encode_len(0xace8fe, 0xabe8b3), 3);
	tap_end();

	tap_begin("pn: RFC 9000 A.3 example 0x9b32 after 0xa82f30ea");
	EXPECT_EQ(quic_pn_decode(0xa82f30ea, 0x9b32, 16), 0xa82f9b32);
	tap_end();

	tap_begin("pn: nothing acknowledged yet");
	EXPECT_EQ(quic_pn_encode_len(0, QUIC_PN_NONE), 1);
	EXPECT_EQ(quic_pn_encode_len(127, QUIC_PN_NONE), 1);
	EXPECT_EQ(quic_pn_encode_len(128, QUIC_PN_NONE), 2);
	EXPECT_EQ(quic_pn_decode(QUIC_PN_NONE, 0, 8), 0);
	EXPECT_EQ(quic_pn_decode(QUIC_PN_NONE, 5, 32), 5);
	tap_end();

	tap_begin("pn: decoding across window edges");
	EXPECT_EQ(quic_pn_decode(0xff, 0x00, 8), 0x100);
	EXPECT_EQ(quic_pn_decode(0x100, 0xff, 8), 0xff);
	EXPECT_EQ(quic_pn_decode(0x17f, 0x00, 8), 0x200);
	EXPECT_EQ(quic_pn_decode(0x17f, 0xff, 8), 0x1ff);
	EXPECT_EQ(quic_pn_decode(10, 0xf0, 8), 0xf0);
	tap_end();

	tap_begin("pn: decoding never exceeds 2^62 - 1");
	EXPECT_EQ(quic_pn_decode(QUIC_PN_MAX - 1, 0, 8), QUIC_PN_MAX - 255);
	EXPECT(quic_pn_decode(QUIC_PN_MAX - 1, 0xff, 8) <= QUIC_PN_MAX);
	tap_end();

	tap_begin("pn: largest 2^62-1 never decodes past it (fuzz finding)");
	for (i = 0; i < 256; i++)
		EXPECT(quic_pn_decode(QUIC_PN_MAX, i, 8) <= QUIC_PN_MAX);
	EXPECT_EQ(quic_pn_decode(QUIC_PN_MAX, 0xff, 8), QUIC_PN_MAX);
	EXPECT_EQ(quic_pn_decode(QUIC_PN_MAX, 0x00, 8), QUIC_PN_MAX - 0xff);
	EXPECT(quic_pn_decode(QUIC_PN_MAX, 0x1234, 32) <= QUIC_PN_MAX);
	tap_end();

	tap_begin("pn: encode length covers the largest span");
	EXPECT_EQ(quic_pn_encode_len(1ULL << 40, 0), 4);
	EXPECT_EQ(quic_pn_encode_len(0x800000 + 5, 5), 3);
	EXPECT_EQ(quic_pn_encode_len(0x800001 + 5, 5), 4);
	tap_end();

	tap_begin("pn: 100000 random encode/decode round trips");
	for (i = 0; i < 100000; i++) {
		u64 acked = test_rand(&seed) % (1ULL << 40);
		u64 pn = acked + 1 + test_rand(&seed) % (1ULL << (test_rand(&seed) % 31));
		unsigned int len = quic_pn_encode_len(pn, acked);
		u64 largest = acked + test_rand(&seed) % (pn - acked);
		u64 trunc = pn & ((1ULL << (8 * len)) - 1);

		if (!EXPECT_EQ(quic_pn_decode(largest, trunc, 8 * len), pn))
			break;
	}
	tap_end();
}

void header_tests(void)
{
	test_rfc9001_client();
	test_rfc9001_server();
	test_encode_rfc_headers();
	test_v2();
	test_long_roundtrip();
	test_retry();
	test_short();
	test_vn();
	test_rejects();
	test_pn();
}

// SPDX-License-Identifier: GPL-2.0
/* Transport parameters: RFC 9000 §18, RFC 9221, 9287, 9368, ack-frequency. */
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/unaligned.h>

#include "transport_param.h"
#include "varint.h"
#include "suites.h"
#include "tap.h"

static void full_server_params(struct quic_transport_params *tp)
{
	struct quic_tp_preferred_address *pa = &tp->preferred_address;

	quic_tp_init(tp);
	quic_cid_set(&tp->original_dcid, (const u8 *)"\x83\x94\xc8\xf0", 4);
	quic_tp_mark(tp, QUIC_TPB_ORIGINAL_DCID);
	quic_cid_set(&tp->initial_scid, (const u8 *)"serverid", 8);
	quic_tp_mark(tp, QUIC_TPB_INITIAL_SCID);
	quic_cid_set(&tp->retry_scid, (const u8 *)"retry", 5);
	quic_tp_mark(tp, QUIC_TPB_RETRY_SCID);
	memset(tp->stateless_reset_token, 0x5a, 16);
	quic_tp_mark(tp, QUIC_TPB_STATELESS_RESET_TOKEN);
	quic_tp_set(tp, QUIC_TPB_MAX_IDLE_TIMEOUT, 30000);
	quic_tp_set(tp, QUIC_TPB_MAX_UDP_PAYLOAD_SIZE, 1472);
	quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_DATA, 1 << 20);
	quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL, 1 << 16);
	quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE, 1 << 17);
	quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_STREAM_DATA_UNI, 1 << 18);
	quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_STREAMS_BIDI, 100);
	quic_tp_set(tp, QUIC_TPB_INITIAL_MAX_STREAMS_UNI, QUIC_MAX_STREAMS_LIMIT);
	quic_tp_set(tp, QUIC_TPB_ACK_DELAY_EXPONENT, 20);
	quic_tp_set(tp, QUIC_TPB_MAX_ACK_DELAY, 16383);
	quic_tp_set(tp, QUIC_TPB_DISABLE_ACTIVE_MIGRATION, 1);
	quic_tp_set(tp, QUIC_TPB_ACTIVE_CONNECTION_ID_LIMIT, 8);
	quic_tp_set(tp, QUIC_TPB_MAX_DATAGRAM_FRAME_SIZE, 1200);
	quic_tp_set(tp, QUIC_TPB_GREASE_QUIC_BIT, 1);
	quic_tp_set(tp, QUIC_TPB_MIN_ACK_DELAY, 1000);
	memcpy(pa->ipv4, "\x0a\x00\x00\x01", 4);
	pa->ipv4_port = 4433;
	memset(pa->ipv6, 0x20, 16);
	pa->ipv6_port = 4434;
	quic_cid_set(&pa->cid, (const u8 *)"preferred", 9);
	memset(pa->token, 0x11, 16);
	quic_tp_mark(tp, QUIC_TPB_PREFERRED_ADDRESS);
	tp->version_info.chosen = QUIC_VERSION_V1;
	tp->version_info.available[0] = QUIC_VERSION_V2;
	tp->version_info.available[1] = QUIC_VERSION_V1;
	tp->version_info.n_available = 2;
	quic_tp_mark(tp, QUIC_TPB_VERSION_INFORMATION);
}

static void test_defaults(void)
{
	struct quic_transport_params tp;
	u32 terr = 0;
	u8 buf[8];

	tap_begin("tp: empty extension gives the RFC 9000 §18.2 defaults");
	EXPECT_EQ(quic_tp_decode(buf, 0, true, &tp, &terr), 0);
	EXPECT_EQ(tp.present, 0);
	EXPECT_EQ(tp.max_udp_payload_size, 65527);
	EXPECT_EQ(tp.ack_delay_exponent, 3);
	EXPECT_EQ(tp.max_ack_delay, 25);
	EXPECT_EQ(tp.active_connection_id_limit, 2);
	EXPECT_EQ(tp.initial_max_data, 0);
	EXPECT_EQ(tp.max_datagram_frame_size, 0);
	EXPECT(!tp.grease_quic_bit);
	EXPECT_EQ(quic_tp_encode(buf, sizeof(buf), &tp), 0);
	tap_end();
}

static void test_roundtrip(void)
{
	struct quic_transport_params tp, got;
	u8 buf[512], buf2[512];
	u32 terr = 0;
	int n, i;

	tap_begin("tp: every parameter round trips (server)");
	full_server_params(&tp);
	n = quic_tp_encode(buf, sizeof(buf), &tp);
	EXPECT(n > 0);
	EXPECT_EQ(quic_tp_decode(buf, n, true, &got, &terr), 0);
	EXPECT_MEM(&got, &tp, sizeof(tp));
	EXPECT_EQ(quic_tp_encode(buf2, sizeof(buf2), &got), n);
	EXPECT_MEM(buf2, buf, n);
	tap_end();

	tap_begin("tp: encode -ENOSPC at every short length");
	for (i = 0; i < n; i++)
		EXPECT_EQ(quic_tp_encode(buf2, i, &tp), -ENOSPC);
	tap_end();

	tap_begin("tp: truncated at every byte is TRANSPORT_PARAMETER_ERROR");
	for (i = 1; i < n; i++) {
		int r;

		terr = 0;
		r = quic_tp_decode(buf, i, true, &got, &terr);
		/* A cut exactly between two parameters is a valid prefix. */
		if (r == 0)
			continue;
		EXPECT_EQ(r, -EPROTO);
		EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM);
	}
	tap_end();

	tap_begin("tp: client parameters round trip, server-only ones refused");
	quic_tp_init(&tp);
	quic_cid_set(&tp.initial_scid, (const u8 *)"c", 1);
	quic_tp_mark(&tp, QUIC_TPB_INITIAL_SCID);
	quic_tp_set(&tp, QUIC_TPB_INITIAL_MAX_DATA, 1000);
	n = quic_tp_encode(buf, sizeof(buf), &tp);
	EXPECT_EQ(quic_tp_decode(buf, n, false, &got, &terr), 0);
	EXPECT_MEM(&got, &tp, sizeof(tp));
	full_server_params(&tp);
	n = quic_tp_encode(buf, sizeof(buf), &tp);
	EXPECT_EQ(quic_tp_decode(buf, n, false, &got, &terr), -EPROTO);
	tap_end();
}

static void expect_tp(const char *name, const char *hex, bool from_server,
		      int want)
{
	struct quic_transport_params tp;
	u8 buf[128];
	size_t n = hex2bin(hex, buf, sizeof(buf));
	u32 terr = 0;

	tap_begin("tp: %s %s", want ? "reject" : "accept", name);
	EXPECT_EQ(quic_tp_decode(buf, n, from_server, &tp, &terr), want);
	if (want)
		EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM);
	tap_end();
}

static void test_rejects(void)
{
	expect_tp("duplicate parameter", "0401 05 0401 06", true, -EPROTO);
	expect_tp("duplicate flag", "0c00 0c00", true, -EPROTO);
	expect_tp("max_udp_payload_size 1199", "0302 44af", true, -EPROTO);
	expect_tp("max_udp_payload_size 1200", "0302 44b0", true, 0);
	expect_tp("ack_delay_exponent 21", "0a01 15", true, -EPROTO);
	expect_tp("ack_delay_exponent 20", "0a01 14", true, 0);
	expect_tp("max_ack_delay 2^14", "0b04 80004000", true, -EPROTO);
	expect_tp("max_ack_delay 2^14-1", "0b02 7fff", true, 0);
	expect_tp("active_connection_id_limit 1", "0e01 01", true, -EPROTO);
	expect_tp("active_connection_id_limit 2", "0e01 02", true, 0);
	expect_tp("initial_max_streams_bidi 2^60+1", "0808 d000000000000001",
		  true, -EPROTO);
	expect_tp("initial_max_streams_uni 2^60+1", "0908 d000000000000001",
		  true, -EPROTO);
	expect_tp("initial_max_streams_uni 2^60", "0908 d000000000000000",
		  true, 0);
	expect_tp("stateless_reset_token of 15 bytes",
		  "020f 000000000000000000000000000000", true, -EPROTO);
	expect_tp("original_destination_connection_id from a client",
		  "0001 aa", false, -EPROTO);
	expect_tp("stateless_reset_token from a client",
		  "0210 00000000000000000000000000000000", false, -EPROTO);
	expect_tp("preferred_address from a client",
		  "0d2a 00000000 0000 00000000000000000000000000000000 0000 01 aa"
		  " 00000000000000000000000000000000", false, -EPROTO);
	expect_tp("retry_source_connection_id from a client", "1001 aa", false,
		  -EPROTO);
	expect_tp("preferred_address from a server",
		  "0d2a 00000000 0000 00000000000000000000000000000000 0000 01 aa"
		  " 00000000000000000000000000000000", true, 0);
	expect_tp("preferred_address with empty CID",
		  "0d29 00000000 0000 00000000000000000000000000000000 0000 00"
		  " 00000000000000000000000000000000", true, -EPROTO);
	expect_tp("preferred_address longer than its fields",
		  "0d2b 00000000 0000 00000000000000000000000000000000 0000 01 aa"
		  " 00000000000000000000000000000000 00", true, -EPROTO);
	expect_tp("preferred_address with a zero-length server CID",
		  "0f00 0d2a 00000000 0000 00000000000000000000000000000000 0000"
		  " 01 aa 00000000000000000000000000000000", true, -EPROTO);
	expect_tp("connection ID of 21 bytes",
		  "0f15 000000000000000000000000000000000000000000", true,
		  -EPROTO);
	expect_tp("disable_active_migration with a value", "0c01 00", true,
		  -EPROTO);
	expect_tp("grease_quic_bit with a value", "6ab201 00", true, -EPROTO);
	expect_tp("integer with trailing bytes", "0402 0500", true, -EPROTO);
	expect_tp("integer value longer than its length", "0401 4005", true,
		  -EPROTO);
	expect_tp("integer with non-minimal varint", "0402 4005", true, 0);
	expect_tp("parameter length beyond the extension", "0405 05", true,
		  -EPROTO);
	expect_tp("version_information not a multiple of 4", "1105 0000000101",
		  true, -EPROTO);
	expect_tp("version_information chosen version 0", "1108 00000000"
		  "00000001", true, -EPROTO);
	expect_tp("version_information available version 0", "1108 00000001"
		  "00000000", true, -EPROTO);
	expect_tp("version_information empty", "1100", true, -EPROTO);
	expect_tp("client chosen version not in its available list",
		  "1108 00000001 6b3343cf", false, -EPROTO);
	expect_tp("client version_information listing its chosen version",
		  "1108 00000001 00000001", false, 0);
	expect_tp("server version_information with only chosen version",
		  "1104 00000001", true, 0);
	expect_tp("min_ack_delay above max_ack_delay", "0b01 01 c0000000ff04de1b"
		  "02 43e9", true, -EPROTO);
	expect_tp("min_ack_delay equal to max_ack_delay",
		  "0b01 01 c0000000ff04de1b 02 43e8", true, 0);
	expect_tp("unknown and reserved ids skipped, even repeated",
		  "1b00 1b00 3a02 aaaa 4a34 02 0102 80ffffff 00 401b 01 ff",
		  true, 0);
}

static void test_misc(void)
{
	struct quic_transport_params tp;

	tap_begin("tp: reserved ids are 31 * N + 27");
	EXPECT(quic_tp_id_is_reserved(27));
	EXPECT(quic_tp_id_is_reserved(58));
	EXPECT(quic_tp_id_is_reserved(31ULL * 1000000 + 27));
	EXPECT(!quic_tp_id_is_reserved(0));
	EXPECT(!quic_tp_id_is_reserved(26));
	EXPECT(!quic_tp_id_is_reserved(28));
	tap_end();

	tap_begin("tp: setter validates ranges and kinds");
	quic_tp_init(&tp);
	EXPECT_EQ(quic_tp_set(&tp, QUIC_TPB_ACK_DELAY_EXPONENT, 21), -EINVAL);
	EXPECT_EQ(quic_tp_set(&tp, QUIC_TPB_MAX_UDP_PAYLOAD_SIZE, 1000), -EINVAL);
	EXPECT_EQ(quic_tp_set(&tp, QUIC_TPB_INITIAL_SCID, 1), -EINVAL);
	EXPECT_EQ(quic_tp_set(&tp, QUIC_TPB_MAX, 1), -EINVAL);
	EXPECT_EQ(tp.present, 0);
	EXPECT_EQ(quic_tp_set(&tp, QUIC_TPB_GREASE_QUIC_BIT, 1), 0);
	EXPECT(quic_tp_has(&tp, QUIC_TPB_GREASE_QUIC_BIT));
	EXPECT_EQ(quic_tp_set(&tp, QUIC_TPB_GREASE_QUIC_BIT, 0), 0);
	EXPECT(!quic_tp_has(&tp, QUIC_TPB_GREASE_QUIC_BIT));
	tap_end();

	tap_begin("tp: encoder refuses out-of-range values");
	{
		u8 buf[64];

		quic_tp_init(&tp);
		tp.ack_delay_exponent = 30;
		quic_tp_mark(&tp, QUIC_TPB_ACK_DELAY_EXPONENT);
		EXPECT_EQ(quic_tp_encode(buf, sizeof(buf), &tp), -EINVAL);
		quic_tp_init(&tp);
		quic_tp_mark(&tp, QUIC_TPB_PREFERRED_ADDRESS);
		EXPECT_EQ(quic_tp_encode(buf, sizeof(buf), &tp), -EINVAL);
		quic_tp_init(&tp);
		quic_tp_mark(&tp, QUIC_TPB_VERSION_INFORMATION);
		EXPECT_EQ(quic_tp_encode(buf, sizeof(buf), &tp), -EINVAL);
	}
	tap_end();
}

static void test_many_versions(void)
{
	struct quic_transport_params tp, got;
	u8 buf[256], out[256];
	u32 terr = 0;
	int i, n;

	tap_begin("tp: 20 available versions keep 16, and the chosen one");
	n = 0;
	buf[n++] = QUIC_TP_VERSION_INFORMATION;
	buf[n++] = 0x40;		/* two-byte varint length: 84 */
	buf[n++] = 4 * 21;
	put_unaligned_be32(0x0a0a0a14, buf + n);	/* chosen: the 20th */
	n += 4;
	for (i = 1; i <= 20; i++, n += 4)
		put_unaligned_be32(0x0a0a0a00 + i, buf + n);
	EXPECT_EQ(quic_tp_decode(buf, n, false, &tp, &terr), 0);
	EXPECT_EQ(tp.version_info.n_available, QUIC_TP_MAX_VERSIONS);
	EXPECT_EQ(tp.version_info.available[0], 0x0a0a0a01);
	EXPECT_EQ(tp.version_info.available[14], 0x0a0a0a0f);
	EXPECT_EQ(tp.version_info.available[15], 0x0a0a0a14);
	n = quic_tp_encode(out, sizeof(out), &tp);
	EXPECT(n > 0);
	EXPECT_EQ(quic_tp_decode(out, n, false, &got, &terr), 0);
	EXPECT_MEM(&got, &tp, sizeof(tp));
	tap_end();
}

static void test_cids(void)
{
	struct quic_cid peer = { 0 }, odcid = { 0 }, retry = { 0 };
	struct quic_transport_params tp;
	u32 terr = 0;

	quic_cid_set(&peer, (const u8 *)"peer", 4);
	quic_cid_set(&odcid, (const u8 *)"odcid", 5);
	quic_cid_set(&retry, (const u8 *)"retry", 5);

	quic_tp_init(&tp);
	tp.initial_scid = peer;
	quic_tp_mark(&tp, QUIC_TPB_INITIAL_SCID);
	tap_begin("tp: §7.3 client parameters with matching initial_scid");
	EXPECT_EQ(quic_tp_check_cids(&tp, false, &peer, NULL, NULL, &terr), 0);
	tap_end();

	tap_begin("tp: §7.3 server without original_destination_connection_id");
	EXPECT_EQ(quic_tp_check_cids(&tp, true, &peer, &odcid, NULL, &terr),
		  -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM);
	tap_end();

	tp.original_dcid = odcid;
	quic_tp_mark(&tp, QUIC_TPB_ORIGINAL_DCID);
	tap_begin("tp: §7.3 server parameters, no Retry");
	EXPECT_EQ(quic_tp_check_cids(&tp, true, &peer, &odcid, NULL, &terr), 0);
	tap_end();

	tap_begin("tp: §7.3 missing retry_source_connection_id after a Retry");
	EXPECT_EQ(quic_tp_check_cids(&tp, true, &peer, &odcid, &retry, &terr),
		  -EPROTO);
	tap_end();

	tp.retry_scid = retry;
	quic_tp_mark(&tp, QUIC_TPB_RETRY_SCID);
	tap_begin("tp: §7.3 retry_source_connection_id without a Retry");
	EXPECT_EQ(quic_tp_check_cids(&tp, true, &peer, &odcid, NULL, &terr),
		  -EPROTO);
	EXPECT_EQ(quic_tp_check_cids(&tp, true, &peer, &odcid, &retry, &terr),
		  0);
	tap_end();

	tap_begin("tp: §7.3 mismatched initial_source_connection_id");
	EXPECT_EQ(quic_tp_check_cids(&tp, true, &odcid, &odcid, &retry, &terr),
		  -EPROTO);
	tp.present = 0;
	EXPECT_EQ(quic_tp_check_cids(&tp, false, &peer, NULL, NULL, &terr),
		  -EPROTO);
	tap_end();
}

static void test_version_check(void)
{
	struct quic_transport_params tp;
	u32 terr = 0;

	quic_tp_init(&tp);
	tap_begin("tp: RFC 9368 §4 no version_information is accepted");
	EXPECT_EQ(quic_tp_check_version(&tp, QUIC_VERSION_V2, &terr), 0);
	EXPECT_EQ(quic_tp_check_version(&tp, QUIC_VERSION_V1, &terr), 0);
	tap_end();

	tp.version_info.chosen = QUIC_VERSION_V2;
	tp.version_info.available[0] = QUIC_VERSION_V2;
	tp.version_info.n_available = 1;
	quic_tp_mark(&tp, QUIC_TPB_VERSION_INFORMATION);
	tap_begin("tp: RFC 9368 §4 chosen version equal to the packets'");
	EXPECT_EQ(quic_tp_check_version(&tp, QUIC_VERSION_V2, &terr), 0);
	EXPECT_EQ(quic_tp_check_version(&tp, QUIC_VERSION_V2, &terr), 0);
	tap_end();

	tap_begin("tp: RFC 9368 §4 client's chosen version differs: VERSION_NEGOTIATION_ERROR");
	terr = 0;
	EXPECT_EQ(quic_tp_check_version(&tp, QUIC_VERSION_V1, &terr),
		  -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_VERSION_NEGOTIATION);
	tap_end();

	tap_begin("tp: RFC 9368 §4 server's chosen version differs: VERSION_NEGOTIATION_ERROR");
	terr = 0;
	EXPECT_EQ(quic_tp_check_version(&tp, QUIC_VERSION_V1, &terr),
		  -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_VERSION_NEGOTIATION);
	tap_end();
}

void tp_tests(void)
{
	test_defaults();
	test_roundtrip();
	test_rejects();
	test_misc();
	test_many_versions();
	test_cids();
	test_version_check();
}

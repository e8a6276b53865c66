// SPDX-License-Identifier: GPL-2.0
/* Frames: RFC 9000 §19, RFC 9221, ack-frequency; RFC 9001 payloads. */
#include <stdio.h>
#include <linux/types.h>
#include <linux/errno.h>

#include "frame.h"
#include "transport_param.h"
#include "varint.h"
#include "suites.h"
#include "tap.h"
#include "vectors.h"
#include "frame_eq.h"

#define NSAMPLES 40

static struct quic_frame samples[NSAMPLES];
static const char *sample_names[NSAMPLES];
static int nsamples;
static const u8 ack_ranges_raw[] = { 0x01, 0x02, 0x00, 0x00 };
static const u8 cid20[20] = "0123456789abcdefghij";

static struct quic_frame *add(u64 type, const char *name)
{
	struct quic_frame *f = &samples[nsamples];

	sample_names[nsamples++] = name;
	memset(f, 0, sizeof(*f));
	f->type = type;
	return f;
}

static void build_samples(void)
{
	static char stream_names[8][32];
	struct quic_frame *f;
	int i;

	add(QUIC_FRAME_PADDING, "PADDING")->padding_len = 5;
	add(QUIC_FRAME_PING, "PING");
	for (i = 0; i < 2; i++) {
		f = add(QUIC_FRAME_ACK + i, i ? "ACK_ECN" : "ACK");
		f->ack.largest = 100;
		f->ack.delay = 10;
		f->ack.range_count = 2;
		f->ack.first_range = 3;
		f->ack.ranges = ack_ranges_raw;
		f->ack.ranges_len = sizeof(ack_ranges_raw);
		if (i) {
			f->ack.ect0 = 1;
			f->ack.ect1 = 2;
			f->ack.ce = 70000;
		}
	}
	f = add(QUIC_FRAME_RESET_STREAM, "RESET_STREAM");
	f->reset_stream.id = 4;
	f->reset_stream.error_code = 0x1234;
	f->reset_stream.final_size = 100000;
	f = add(QUIC_FRAME_STOP_SENDING, "STOP_SENDING");
	f->stop_sending.id = 8;
	f->stop_sending.error_code = 77;
	f = add(QUIC_FRAME_CRYPTO, "CRYPTO");
	f->crypto.offset = 1000;
	f->crypto.len = 5;
	f->crypto.data = (const u8 *)"hello";
	f = add(QUIC_FRAME_NEW_TOKEN, "NEW_TOKEN");
	f->new_token.len = 4;
	f->new_token.token = (const u8 *)"tokn";
	for (i = 0; i < 8; i++) {
		snprintf(stream_names[i], sizeof(stream_names[i]),
			 "STREAM 0x%02x%s%s%s", 8 + i, i & 4 ? " OFF" : "",
			 i & 2 ? " LEN" : "", i & 1 ? " FIN" : "");
		f = add(QUIC_FRAME_STREAM + i, stream_names[i]);
		f->stream.id = 0x44;
		f->stream.offset = i & 4 ? 70000 : 0;
		f->stream.len = 3;
		f->stream.data = (const u8 *)"abc";
	}
	add(QUIC_FRAME_MAX_DATA, "MAX_DATA")->limit = 1ULL << 40;
	f = add(QUIC_FRAME_MAX_STREAM_DATA, "MAX_STREAM_DATA");
	f->stream_limit.id = 3;
	f->stream_limit.limit = 65536;
	add(QUIC_FRAME_MAX_STREAMS_BIDI, "MAX_STREAMS bidi 2^60")->limit =
		QUIC_MAX_STREAMS_LIMIT;
	add(QUIC_FRAME_MAX_STREAMS_UNI, "MAX_STREAMS uni")->limit = 7;
	add(QUIC_FRAME_DATA_BLOCKED, "DATA_BLOCKED")->limit = 12345;
	f = add(QUIC_FRAME_STREAM_DATA_BLOCKED, "STREAM_DATA_BLOCKED");
	f->stream_limit.id = 2;
	f->stream_limit.limit = 99;
	add(QUIC_FRAME_STREAMS_BLOCKED_BIDI, "STREAMS_BLOCKED bidi")->limit = 0;
	add(QUIC_FRAME_STREAMS_BLOCKED_UNI, "STREAMS_BLOCKED uni 2^60")->limit =
		QUIC_MAX_STREAMS_LIMIT;
	f = add(QUIC_FRAME_NEW_CONNECTION_ID, "NEW_CONNECTION_ID");
	f->new_cid.seq = 5;
	f->new_cid.retire_prior_to = 2;
	quic_cid_set(&f->new_cid.cid, cid20, 20);
	memset(f->new_cid.token, 0x7e, 16);
	add(QUIC_FRAME_RETIRE_CONNECTION_ID, "RETIRE_CONNECTION_ID")->retire_seq = 3;
	f = add(QUIC_FRAME_PATH_CHALLENGE, "PATH_CHALLENGE");
	memcpy(f->path_data, "chalenge", 8);
	f = add(QUIC_FRAME_PATH_RESPONSE, "PATH_RESPONSE");
	memcpy(f->path_data, "response", 8);
	f = add(QUIC_FRAME_CONNECTION_CLOSE, "CONNECTION_CLOSE");
	f->close.error_code = QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
	f->close.frame_type = 0x08;
	f->close.reason_len = 3;
	f->close.reason = (const u8 *)"bad";
	f = add(QUIC_FRAME_CONNECTION_CLOSE_APP, "CONNECTION_CLOSE app");
	f->close.error_code = 0x100;
	add(QUIC_FRAME_HANDSHAKE_DONE, "HANDSHAKE_DONE");
	add(QUIC_FRAME_IMMEDIATE_ACK, "IMMEDIATE_ACK");
	f = add(QUIC_FRAME_DATAGRAM, "DATAGRAM 0x30");
	f->datagram.len = 5;
	f->datagram.data = (const u8 *)"dgram";
	f = add(QUIC_FRAME_DATAGRAM_LEN, "DATAGRAM 0x31");
	f->datagram.len = 5;
	f->datagram.data = (const u8 *)"dgram";
	f = add(QUIC_FRAME_ACK_FREQUENCY, "ACK_FREQUENCY");
	f->ack_freq.seq = 1;
	f->ack_freq.ack_eliciting_threshold = 10;
	f->ack_freq.request_max_ack_delay = 25000;
	f->ack_freq.reordering_threshold = 3;
}

/* Frames whose last field runs to the end of the packet. */
static bool runs_to_end(u64 type)
{
	return (quic_frame_is_stream(type) && !(type & QUIC_STREAM_BIT_LEN)) ||
	       type == QUIC_FRAME_DATAGRAM || type == QUIC_FRAME_PADDING;
}

static void test_samples(void)
{
	int i;

	for (i = 0; i < nsamples; i++) {
		struct quic_frame g, h;
		u8 buf[128], buf2[128];
		u32 terr = 0;
		int n, m;

		tap_begin("frame: %s round trip", sample_names[i]);
		n = quic_frame_encode(buf, sizeof(buf), &samples[i]);
		EXPECT(n > 0);
		EXPECT_EQ(quic_frame_decode(buf, n, QUIC_PKT_1RTT, true, &g,
					    &terr), n);
		EXPECT(frame_eq(&g, &samples[i]));
		m = quic_frame_encode(buf2, sizeof(buf2), &g);
		EXPECT_EQ(m, n);
		EXPECT_MEM(buf2, buf, n);
		EXPECT_EQ(quic_frame_decode(buf2, m, QUIC_PKT_1RTT, true, &h,
					    &terr), m);
		EXPECT(frame_eq(&h, &g));
		tap_end();

		tap_begin("frame: %s truncated at every byte", sample_names[i]);
		for (m = 0; m < n; m++) {
			int r;

			terr = 0;
			r = quic_frame_decode(buf, m, QUIC_PKT_1RTT, true, &g,
					      &terr);
			if (runs_to_end(samples[i].type) && r == m && m)
				continue;
			EXPECT_EQ(r, -EPROTO);
			EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_FRAME_ENCODING);
		}
		tap_end();
	}

	tap_begin("frame: every sample gives -ENOSPC when 1 byte short");
	for (i = 0; i < nsamples; i++) {
		u8 buf[128];
		int n = quic_frame_encode(buf, sizeof(buf), &samples[i]), m;

		for (m = 0; m < n; m++)
			EXPECT_EQ(quic_frame_encode(buf, m, &samples[i]), -ENOSPC);
	}
	tap_end();
}

static u8 payload[1200];

static void test_rfc9001_payloads(void)
{
	struct quic_transport_params tp;
	struct quic_frame f;
	size_t n, i;
	u32 terr = 0;
	int r;

	memset(payload, 0, sizeof(payload));
	n = hex2bin(RFC9001_CLIENT_CRYPTO, payload, sizeof(payload));

	tap_begin("frame: RFC 9001 A.2 client CRYPTO frame");
	r = quic_frame_decode(payload, RFC9001_CLIENT_PAYLOAD_LEN,
			      QUIC_PKT_INITIAL, false, &f, &terr);
	EXPECT_EQ(r, n);
	EXPECT_EQ(f.type, QUIC_FRAME_CRYPTO);
	EXPECT_EQ(f.crypto.offset, 0);
	EXPECT_EQ(f.crypto.len, 241);
	EXPECT_EQ(f.crypto.data[0], 0x01);	/* ClientHello */
	tap_end();

	tap_begin("frame: RFC 9001 A.2 client PADDING run is one frame");
	r = quic_frame_decode(payload + n, RFC9001_CLIENT_PAYLOAD_LEN - n,
			      QUIC_PKT_INITIAL, false, &f, &terr);
	EXPECT_EQ(r, RFC9001_CLIENT_PAYLOAD_LEN - n);
	EXPECT_EQ(f.type, QUIC_FRAME_PADDING);
	EXPECT_EQ(f.padding_len, 917);
	tap_end();

	tap_begin("tp: RFC 9001 A.2 ClientHello transport parameters");
	for (i = 0; i + 4 < n; i++)
		if (!memcmp(payload + i, "\x00\x39\x00\x32", 4))
			break;
	EXPECT(i + 4 < n);
	EXPECT_EQ(quic_tp_decode(payload + i + 4, 0x32, false, &tp, &terr), 0);
	EXPECT_EQ(tp.initial_max_data, QUIC_VARINT_MAX);
	EXPECT_EQ(tp.initial_max_stream_data_bidi_local, 0xffff);
	EXPECT_EQ(tp.initial_max_stream_data_bidi_remote, 0xffff);
	EXPECT_EQ(tp.initial_max_stream_data_uni, 0xffff);
	EXPECT_EQ(tp.initial_max_streams_bidi, 16);
	EXPECT_EQ(tp.initial_max_streams_uni, 16);
	EXPECT_EQ(tp.max_idle_timeout, 30000);
	EXPECT_EQ(tp.initial_scid.len, 8);
	EXPECT_EQ(tp.initial_scid.data[0], 0x83);
	EXPECT_EQ(tp.ack_delay_exponent, 3);
	EXPECT_EQ(tp.max_udp_payload_size, 65527);
	EXPECT(!quic_tp_has(&tp, QUIC_TPB_MAX_ACK_DELAY));
	tap_end();

	tap_begin("frame: RFC 9001 A.3 server ACK then CRYPTO");
	n = hex2bin(RFC9001_SERVER_PAYLOAD, payload, sizeof(payload));
	r = quic_frame_decode(payload, n, QUIC_PKT_INITIAL, true, &f, &terr);
	EXPECT_EQ(r, 5);
	EXPECT_EQ(f.type, QUIC_FRAME_ACK);
	EXPECT_EQ(f.ack.largest, 0);
	EXPECT_EQ(f.ack.range_count, 0);
	EXPECT_EQ(quic_frame_decode(payload + 5, n - 5, QUIC_PKT_INITIAL, true,
				    &f, &terr), n - 5);
	EXPECT_EQ(f.type, QUIC_FRAME_CRYPTO);
	EXPECT_EQ(f.crypto.len, 90);
	EXPECT_EQ(f.crypto.data[0], 0x02);	/* ServerHello */
	tap_end();
}

/* Decode @hex at @pkt_type from a server; expect -EPROTO with @want. */
static void expect_reject(const char *name, const char *hex, u8 pkt_type,
			  bool from_server, u32 want)
{
	struct quic_frame f;
	u8 buf[128];
	size_t n = hex2bin(hex, buf, sizeof(buf));
	u32 terr = 0;

	tap_begin("frame: reject %s", name);
	EXPECT_EQ(quic_frame_decode(buf, n, pkt_type, from_server, &f, &terr),
		  -EPROTO);
	EXPECT_EQ(terr, want);
	tap_end();
}

#define FE QUIC_TRANSPORT_ERROR_FRAME_ENCODING
#define PV QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION

static void test_rejects(void)
{
	expect_reject("non-minimal frame type (PING as 0x4001)", "4001",
		      QUIC_PKT_1RTT, true, PV);
	expect_reject("non-minimal STREAM type 0x4008", "400800",
		      QUIC_PKT_1RTT, true, PV);
	expect_reject("unknown frame type 0x20", "20", QUIC_PKT_1RTT, true, FE);
	expect_reject("unknown frame type 0x4020", "4020", QUIC_PKT_1RTT, true,
		      FE);
	expect_reject("truncated frame type", "40", QUIC_PKT_1RTT, true, FE);
	expect_reject("ACK first range above largest", "0205000006",
		      QUIC_PKT_1RTT, true, FE);
	expect_reject("ACK gap underflow", "020a000103 06 00",
		      QUIC_PKT_1RTT, true, FE);
	expect_reject("ACK range length underflow", "020a000103 00 06",
		      QUIC_PKT_1RTT, true, FE);
	expect_reject("ACK huge range count", "020a00bfffffff00",
		      QUIC_PKT_1RTT, true, FE);
	expect_reject("ACK_ECN missing counts", "030a00000001 02",
		      QUIC_PKT_1RTT, true, FE);
	expect_reject("NEW_TOKEN empty", "0700", QUIC_PKT_1RTT, true, FE);
	expect_reject("NEW_TOKEN from a client", "070161", QUIC_PKT_1RTT, false,
		      PV);
	expect_reject("HANDSHAKE_DONE from a client", "1e", QUIC_PKT_1RTT,
		      false, PV);
	expect_reject("MAX_STREAMS bidi above 2^60", "12d000000000000001",
		      QUIC_PKT_1RTT, true, FE);
	expect_reject("MAX_STREAMS uni above 2^60", "13d000000000000001",
		      QUIC_PKT_1RTT, true, FE);
	expect_reject("STREAMS_BLOCKED above 2^60", "16d000000000000001",
		      QUIC_PKT_1RTT, true, FE);
	expect_reject("NEW_CONNECTION_ID with empty CID",
		      "180100 00 00000000000000000000000000000000",
		      QUIC_PKT_1RTT, true, FE);
	expect_reject("NEW_CONNECTION_ID with 21-byte CID",
		      "180100 15 000000000000000000000000000000000000000000"
		      "00000000000000000000000000000000",
		      QUIC_PKT_1RTT, true, FE);
	expect_reject("NEW_CONNECTION_ID retire prior to above sequence",
		      "180102 01aa 00000000000000000000000000000000",
		      QUIC_PKT_1RTT, true, FE);
	expect_reject("STREAM offset + length above 2^62-1",
		      "0e00 ffffffffffffffff 01 61", QUIC_PKT_1RTT, true, FE);
	expect_reject("STREAM length beyond packet", "0a00 05 6162",
		      QUIC_PKT_1RTT, true, FE);
	expect_reject("CRYPTO offset + length above 2^62-1",
		      "06 ffffffffffffffff 01 61", QUIC_PKT_1RTT, true, FE);
	expect_reject("CONNECTION_CLOSE reason beyond packet", "1c0a0005616263",
		      QUIC_PKT_1RTT, true, FE);
	expect_reject("DATAGRAM length beyond packet", "310561", QUIC_PKT_1RTT,
		      true, FE);
	expect_reject("ACK_FREQUENCY max ack delay of 2^14 ms", "40af 01 01 "
		      "80fa0000 01", QUIC_PKT_1RTT, true, PV);
	expect_reject("PATH_CHALLENGE short", "1a01020304050607",
		      QUIC_PKT_1RTT, true, FE);

	/* §12.4 Table 3 and §12.5: frame not allowed in the packet type */
	expect_reject("STREAM in Initial", "080061", QUIC_PKT_INITIAL, true, PV);
	expect_reject("STREAM in Handshake", "080061", QUIC_PKT_HANDSHAKE, true,
		      PV);
	expect_reject("ACK in 0-RTT", "0200000000", QUIC_PKT_0RTT, false, PV);
	expect_reject("CRYPTO in 0-RTT", "06000161", QUIC_PKT_0RTT, false, PV);
	expect_reject("application CONNECTION_CLOSE in Initial", "1d0000",
		      QUIC_PKT_INITIAL, true, PV);
	expect_reject("application CONNECTION_CLOSE in Handshake", "1d0000",
		      QUIC_PKT_HANDSHAKE, true, PV);
	expect_reject("NEW_TOKEN in Handshake", "070161", QUIC_PKT_HANDSHAKE,
		      true, PV);
	expect_reject("HANDSHAKE_DONE in Handshake", "1e", QUIC_PKT_HANDSHAKE,
		      true, PV);
	expect_reject("PATH_RESPONSE in 0-RTT", "1b0000000000000000",
		      QUIC_PKT_0RTT, false, PV);
	expect_reject("RETIRE_CONNECTION_ID in 0-RTT", "1900", QUIC_PKT_0RTT,
		      false, PV);
	expect_reject("DATAGRAM in Initial", "3000", QUIC_PKT_INITIAL, true, PV);
	expect_reject("DATAGRAM in Handshake", "3000", QUIC_PKT_HANDSHAKE, true,
		      PV);
	expect_reject("IMMEDIATE_ACK in 0-RTT", "1f", QUIC_PKT_0RTT, false, PV);
	expect_reject("ACK_FREQUENCY in Handshake", "40af00000000",
		      QUIC_PKT_HANDSHAKE, true, PV);
	expect_reject("MAX_DATA in Initial", "1000", QUIC_PKT_INITIAL, true, PV);
	expect_reject("any frame in a Retry packet", "01", QUIC_PKT_RETRY, true,
		      PV);
}

/* RFC 9000 Table 3 as written, checked against the implementation. */
static void test_table(void)
{
	static const char * const pkts[0x1f] = {
		"IH01", "IH01", "IH_1", "IH_1", "__01", "__01", "IH_1", "___1",
		"__01", "__01", "__01", "__01", "__01", "__01", "__01", "__01",
		"__01", "__01", "__01", "__01", "__01", "__01", "__01", "__01",
		"__01", "__01", "__01", "___1", "IH01", "__01", "___1",
	};
	static const u8 order[4] = {
		QUIC_PKT_INITIAL, QUIC_PKT_HANDSHAKE, QUIC_PKT_0RTT, QUIC_PKT_1RTT
	};
	u64 t;
	int k;

	tap_begin("frame table: packet types match RFC 9000 Table 3");
	for (t = 0; t < 0x1f; t++) {
		for (k = 0; k < 4; k++) {
			bool want = pkts[t][k] != '_';

			/* §12.5/§17.2.3 forbid RETIRE_CONNECTION_ID in 0-RTT */
			if (t == QUIC_FRAME_RETIRE_CONNECTION_ID && k == 2)
				want = false;
			if (quic_frame_allowed(t, order[k]) != want)
				printf("#   type 0x%02llx pkt %d\n",
				       (unsigned long long)t, k);
			EXPECT_EQ(quic_frame_allowed(t, order[k]), want);
		}
	}
	tap_end();

	tap_begin("frame table: ack-eliciting is everything but PADDING, ACK, CONNECTION_CLOSE");
	for (t = 0; t < 0x20; t++)
		EXPECT_EQ(quic_frame_ack_eliciting(t),
			  !(t == 0 || t == 2 || t == 3 || t == 0x1c || t == 0x1d));
	EXPECT(quic_frame_ack_eliciting(QUIC_FRAME_DATAGRAM));
	EXPECT(quic_frame_ack_eliciting(QUIC_FRAME_DATAGRAM_LEN));
	EXPECT(quic_frame_ack_eliciting(QUIC_FRAME_ACK_FREQUENCY));
	EXPECT(!quic_frame_ack_eliciting(0x20));
	tap_end();

	tap_begin("frame table: in flight = ack-eliciting or PADDING (RFC 9002 §2)");
	for (t = 0; t < 0x20; t++)
		EXPECT_EQ(quic_frame_in_flight(t),
			  quic_frame_ack_eliciting(t) || t == 0);
	EXPECT(quic_frame_in_flight(QUIC_FRAME_DATAGRAM));
	tap_end();

	tap_begin("frame table: probing frames are PADDING, NEW_CONNECTION_ID, PATH_*");
	for (t = 0; t < 0x20; t++)
		EXPECT_EQ(quic_frame_probing(t),
			  t == 0 || t == 0x18 || t == 0x1a || t == 0x1b);
	EXPECT(!quic_frame_probing(QUIC_FRAME_DATAGRAM));
	tap_end();

	tap_begin("frame table: flow-controlled and server-only flags");
	for (t = 0; t < 0x20; t++) {
		EXPECT_EQ(quic_frame_has(t, QUIC_FRAME_F_FLOW_CONTROLLED),
			  quic_frame_is_stream(t));
		EXPECT_EQ(quic_frame_has(t, QUIC_FRAME_F_SERVER_ONLY),
			  t == 0x07 || t == 0x1e);
	}
	EXPECT(!quic_frame_info(0x32));
	EXPECT(!quic_frame_info(1ULL << 40));
	EXPECT(!quic_frame_allowed(QUIC_FRAME_PING, QUIC_PKT_MAX + 10));
	tap_end();

	tap_begin("frame table: DATAGRAM in 0-RTT and 1-RTT only; ack-frequency 1-RTT only");
	for (k = 0; k < QUIC_PKT_MAX; k++) {
		EXPECT_EQ(quic_frame_allowed(QUIC_FRAME_DATAGRAM, k),
			  k == QUIC_PKT_0RTT || k == QUIC_PKT_1RTT);
		EXPECT_EQ(quic_frame_allowed(QUIC_FRAME_ACK_FREQUENCY, k),
			  k == QUIC_PKT_1RTT);
		EXPECT_EQ(quic_frame_allowed(QUIC_FRAME_IMMEDIATE_ACK, k),
			  k == QUIC_PKT_1RTT);
	}
	tap_end();
}

static void test_ack_iter(void)
{
	/* largest 100, first 3 -> 97..100; gap 1, len 2 -> 92..94; gap 0 len 0 -> 90 */
	struct quic_ack_iter it;
	u64 lo, hi;

	tap_begin("frame: ACK range iteration, largest first");
	quic_ack_iter_init(&it, &samples[2].ack);
	EXPECT(quic_ack_iter_next(&it, &lo, &hi));
	EXPECT_EQ(lo, 97);
	EXPECT_EQ(hi, 100);
	EXPECT(quic_ack_iter_next(&it, &lo, &hi));
	EXPECT_EQ(lo, 92);
	EXPECT_EQ(hi, 94);
	EXPECT(quic_ack_iter_next(&it, &lo, &hi));
	EXPECT_EQ(lo, 90);
	EXPECT_EQ(hi, 90);
	EXPECT(!quic_ack_iter_next(&it, &lo, &hi));
	tap_end();
}

static void test_encode_invalid(void)
{
	struct quic_frame f;
	u8 buf[64];

	tap_begin("frame: encoder refuses frames the wire cannot carry");
	memset(&f, 0, sizeof(f));
	f.type = 0x20;
	EXPECT_EQ(quic_frame_encode(buf, sizeof(buf), &f), -EINVAL);
	f.type = QUIC_FRAME_PADDING;
	EXPECT_EQ(quic_frame_encode(buf, sizeof(buf), &f), -EINVAL);
	f.type = QUIC_FRAME_NEW_TOKEN;
	EXPECT_EQ(quic_frame_encode(buf, sizeof(buf), &f), -EINVAL);
	f.type = QUIC_FRAME_NEW_CONNECTION_ID;
	EXPECT_EQ(quic_frame_encode(buf, sizeof(buf), &f), -EINVAL);
	f.type = QUIC_FRAME_MAX_STREAMS_UNI;
	f.limit = QUIC_MAX_STREAMS_LIMIT + 1;
	EXPECT_EQ(quic_frame_encode(buf, sizeof(buf), &f), -EINVAL);
	f.type = QUIC_FRAME_MAX_DATA;
	f.limit = QUIC_VARINT_MAX + 1;
	EXPECT_EQ(quic_frame_encode(buf, sizeof(buf), &f), -EINVAL);
	memset(&f, 0, sizeof(f));
	f.type = QUIC_FRAME_STREAM;	/* no OFF bit but an offset */
	f.stream.offset = 5;
	EXPECT_EQ(quic_frame_encode(buf, sizeof(buf), &f), -EINVAL);
	f.type = QUIC_FRAME_ACK;
	f.ack.largest = 1;
	f.ack.first_range = 2;
	EXPECT_EQ(quic_frame_encode(buf, sizeof(buf), &f), -EINVAL);
	tap_end();
}

void frame_tests(void)
{
	build_samples();
	test_samples();
	test_rfc9001_payloads();
	test_rejects();
	test_table();
	test_ack_iter();
	test_encode_invalid();
}

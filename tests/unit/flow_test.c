// SPDX-License-Identifier: GPL-2.0
/* Stream IDs, stream limits and flow control: RFC 9000 §2.1, §4, §19. */
#include <linux/types.h>
#include <linux/errno.h>

#include "flow.h"
#include "suites.h"
#include "tap.h"

static void test_stream_ids(void)
{
	tap_begin("stream id: §2.1 Table 1 type bits");
	EXPECT(!quic_stream_id_is_server(0) && !quic_stream_id_is_uni(0));
	EXPECT(quic_stream_id_is_server(1) && !quic_stream_id_is_uni(1));
	EXPECT(!quic_stream_id_is_server(2) && quic_stream_id_is_uni(2));
	EXPECT(quic_stream_id_is_server(3) && quic_stream_id_is_uni(3));
	tap_end();

	tap_begin("stream id: index, make, next, count");
	EXPECT_EQ(quic_stream_id_index(0x44), 0x11);
	EXPECT_EQ(quic_stream_id_make(0x11, false, false), 0x44);
	EXPECT_EQ(quic_stream_id_make(5, true, true), 23);
	EXPECT_EQ(quic_stream_id_next(23), 27);
	EXPECT_EQ(quic_stream_id_count(0), 1);
	EXPECT_EQ(quic_stream_id_count(7), 2);
	tap_end();

	tap_begin("stream id: direction from each endpoint's view");
	EXPECT(quic_stream_id_is_local(0, false));
	EXPECT(quic_stream_id_is_local(1, true));
	EXPECT(quic_stream_id_can_send(2, false));
	EXPECT(!quic_stream_id_can_recv(2, false));
	EXPECT(!quic_stream_id_can_send(2, true));
	EXPECT(quic_stream_id_can_recv(2, true));
	EXPECT(quic_stream_id_can_send(1, false) && quic_stream_id_can_recv(1, false));
	tap_end();

	tap_begin("stream id: limits, up to 2^60 streams");
	EXPECT(quic_stream_id_allowed(0, 1));
	EXPECT(!quic_stream_id_allowed(4, 1));
	EXPECT(!quic_stream_id_allowed(0, 0));
	EXPECT(quic_stream_id_allowed(QUIC_VARINT_MAX, QUIC_MAX_STREAMS_LIMIT));
	EXPECT(quic_stream_open_ok(8, 3));
	EXPECT(!quic_stream_open_ok(12, 3));
	tap_end();
}

static void expect_check(const char *name, bool server, u64 type, u64 id,
			 int want, u32 want_terr)
{
	struct quic_stream_limits l = {
		.is_server = server,
		.local_opened = { 2, 1 },
		.peer_max = { 3, 1 },
	};
	u32 terr = 0;

	tap_begin("stream check: %s", name);
	EXPECT_EQ(quic_stream_check_rx(&l, type, id, &terr), want);
	EXPECT_EQ(terr, want ? want_terr : 0);
	tap_end();
}

#define SS QUIC_TRANSPORT_ERROR_STREAM_STATE
#define SL QUIC_TRANSPORT_ERROR_STREAM_LIMIT

static void test_stream_check(void)
{
	expect_check("STREAM on a peer bidi stream within limit", true, 0x08,
		     8, 0, 0);
	expect_check("STREAM on a peer bidi stream beyond MAX_STREAMS", true,
		     0x08, 12, -EPROTO, SL);
	expect_check("STREAM on a peer uni stream beyond MAX_STREAMS", false,
		     0x0a, 7, -EPROTO, SL);
	expect_check("STREAM on our own uni stream", false, 0x08, 2, -EPROTO,
		     SS);
	expect_check("RESET_STREAM on our own uni stream", true,
		     QUIC_FRAME_RESET_STREAM, 3, -EPROTO, SS);
	expect_check("STREAM_DATA_BLOCKED on our own uni stream", true,
		     QUIC_FRAME_STREAM_DATA_BLOCKED, 3, -EPROTO, SS);
	expect_check("STOP_SENDING on a peer uni stream", false,
		     QUIC_FRAME_STOP_SENDING, 3, -EPROTO, SS);
	expect_check("MAX_STREAM_DATA on a peer uni stream", true,
		     QUIC_FRAME_MAX_STREAM_DATA, 2, -EPROTO, SS);
	expect_check("MAX_STREAM_DATA on our own uni stream", true,
		     QUIC_FRAME_MAX_STREAM_DATA, 3, 0, 0);
	expect_check("STREAM on our bidi stream not opened yet", false, 0x08, 8,
		     -EPROTO, SS);
	expect_check("STOP_SENDING on our opened bidi stream", false,
		     QUIC_FRAME_STOP_SENDING, 4, 0, 0);
}

static void test_flow(void)
{
	struct quic_flow_stream_rx s = { .max = 100 };
	struct quic_flow_conn_rx c = { .max = 150 };
	struct quic_flow_stream_rx s2 = { .max = 100 };
	u32 terr = 0;

	tap_begin("flow: data within both limits is accounted once");
	EXPECT_EQ(quic_flow_rx_data(&s, &c, 0, 50, false, &terr), 0);
	EXPECT_EQ(quic_flow_rx_data(&s, &c, 0, 50, false, &terr), 0);
	EXPECT_EQ(quic_flow_rx_data(&s, &c, 20, 10, false, &terr), 0);
	EXPECT_EQ(s.highest, 50);
	EXPECT_EQ(c.highest, 50);
	tap_end();

	tap_begin("flow: beyond the stream limit is FLOW_CONTROL_ERROR");
	EXPECT_EQ(quic_flow_rx_data(&s, &c, 90, 11, false, &terr), -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_FLOW_CONTROL);
	EXPECT_EQ(s.highest, 50);
	EXPECT_EQ(quic_flow_rx_data(&s, &c, 90, 10, false, &terr), 0);
	tap_end();

	tap_begin("flow: beyond the connection limit is FLOW_CONTROL_ERROR");
	terr = 0;
	EXPECT_EQ(quic_flow_rx_data(&s2, &c, 0, 51, false, &terr), -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_FLOW_CONTROL);
	EXPECT_EQ(c.highest, 100);
	EXPECT_EQ(s2.highest, 0);
	EXPECT_EQ(quic_flow_rx_data(&s2, &c, 0, 50, false, &terr), 0);
	EXPECT_EQ(c.highest, 150);
	tap_end();

	tap_begin("flow: FIN below data already received is FINAL_SIZE_ERROR");
	terr = 0;
	EXPECT_EQ(quic_flow_rx_data(&s, &c, 0, 99, true, &terr), -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_FINAL_SIZE);
	EXPECT(!s.final_known);
	tap_end();

	tap_begin("flow: known final size: data past it is FINAL_SIZE_ERROR");
	EXPECT_EQ(quic_flow_rx_data(&s, &c, 100, 0, true, &terr), 0);
	EXPECT(s.final_known);
	EXPECT_EQ(s.final_size, 100);
	terr = 0;
	EXPECT_EQ(quic_flow_rx_data(&s, &c, 100, 1, false, &terr), -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_FINAL_SIZE);
	tap_end();

	tap_begin("flow: known final size: a different FIN is FINAL_SIZE_ERROR");
	terr = 0;
	EXPECT_EQ(quic_flow_rx_data(&s, &c, 0, 90, true, &terr), -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_FINAL_SIZE);
	EXPECT_EQ(quic_flow_rx_data(&s, &c, 90, 10, true, &terr), 0);
	tap_end();

	tap_begin("flow: RESET_STREAM final size rules");
	terr = 0;
	EXPECT_EQ(quic_flow_rx_reset(&s, &c, 99, &terr), -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_FINAL_SIZE);
	EXPECT_EQ(quic_flow_rx_reset(&s, &c, 100, &terr), 0);
	s2 = (struct quic_flow_stream_rx){ .max = 100, .highest = 10 };
	c = (struct quic_flow_conn_rx){ .max = 1000, .highest = 10 };
	terr = 0;
	EXPECT_EQ(quic_flow_rx_reset(&s2, &c, 5, &terr), -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_FINAL_SIZE);
	terr = 0;
	EXPECT_EQ(quic_flow_rx_reset(&s2, &c, 101, &terr), -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_FLOW_CONTROL);
	EXPECT_EQ(quic_flow_rx_reset(&s2, &c, 60, &terr), 0);
	EXPECT_EQ(c.highest, 60);
	tap_end();

	tap_begin("flow: offset + length above 2^62-1 is refused");
	s2 = (struct quic_flow_stream_rx){ .max = ~0ULL };
	terr = 0;
	EXPECT_EQ(quic_flow_rx_data(&s2, &c, QUIC_VARINT_MAX, 1, false, &terr),
		  -EPROTO);
	EXPECT_EQ(terr, QUIC_TRANSPORT_ERROR_FRAME_ENCODING);
	tap_end();

	tap_begin("flow: send credit, limit raises, window updates");
	EXPECT_EQ(quic_flow_credit(100, 30), 70);
	EXPECT_EQ(quic_flow_credit(100, 130), 0);
	EXPECT_EQ(quic_flow_raise(100, 50), 100);
	EXPECT_EQ(quic_flow_raise(100, 150), 150);
	EXPECT(!quic_flow_should_update(1000, 100, 1000));
	EXPECT(quic_flow_should_update(1000, 500, 1000));
	EXPECT(!quic_flow_should_update(5000, 0, 1000));
	tap_end();
}

void flow_tests(void)
{
	test_stream_ids();
	test_stream_check();
	test_flow();
}

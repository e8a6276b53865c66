// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC flow control and stream limit rules.
 *
 * The receive functions check first and commit after, so that a frame
 * that closes the connection leaves the accounting as it was.
 */

#include <linux/errno.h>
#include <linux/kernel.h>

#include "flow.h"

static int quic_flow_err(u32 *terr, u32 code)
{
	*terr = code;
	return -EPROTO;
}

/*
 * Final size rules of §4.5, for a new end offset @end that is (@fin) or is
 * not the final size.
 */
static int quic_flow_final_check(const struct quic_flow_stream_rx *s,
				 u64 end, bool fin, u32 *terr)
{
	if (s->final_known) {
		if (end > s->final_size || (fin && end != s->final_size))
			return quic_flow_err(terr,
					     QUIC_TRANSPORT_ERROR_FINAL_SIZE);
		return 0;
	}
	if (fin && end < s->highest)
		return quic_flow_err(terr, QUIC_TRANSPORT_ERROR_FINAL_SIZE);
	return 0;
}

/* Account for data up to @end: stream then connection limit (§4.1). */
static int quic_flow_account(struct quic_flow_stream_rx *s,
			     struct quic_flow_conn_rx *c, u64 end, u32 *terr)
{
	u64 inc = end > s->highest ? end - s->highest : 0;

	if (end > s->max || c->highest > c->max || inc > c->max - c->highest)
		return quic_flow_err(terr, QUIC_TRANSPORT_ERROR_FLOW_CONTROL);
	s->highest += inc;
	c->highest += inc;
	return 0;
}

/**
 * quic_flow_rx_data - account a received STREAM frame
 * @s: the stream
 * @c: the connection
 * @offset: frame offset
 * @len: frame length (offset + len <= 2^62-1, checked by the decoder)
 * @fin: FIN bit set
 * @terr: FINAL_SIZE_ERROR or FLOW_CONTROL_ERROR on -EPROTO
 *
 * Return: 0, or -EPROTO.
 */
int quic_flow_rx_data(struct quic_flow_stream_rx *s,
		      struct quic_flow_conn_rx *c, u64 offset, u64 len,
		      bool fin, u32 *terr)
{
	u64 end = offset + len;
	int ret;

	if (len > QUIC_VARINT_MAX - offset)
		return quic_flow_err(terr, QUIC_TRANSPORT_ERROR_FRAME_ENCODING);
	ret = quic_flow_final_check(s, end, fin, terr);
	ret = ret ?: quic_flow_account(s, c, end, terr);
	if (ret)
		return ret;
	if (fin) {
		s->final_size = end;
		s->final_known = true;
	}
	return 0;
}

/**
 * quic_flow_rx_reset - account a received RESET_STREAM
 * @s: the stream
 * @c: the connection
 * @final_size: its Final Size field
 * @terr: FINAL_SIZE_ERROR or FLOW_CONTROL_ERROR on -EPROTO
 *
 * The final size counts against flow control like data would (§4.5).
 *
 * Return: 0, or -EPROTO.
 */
int quic_flow_rx_reset(struct quic_flow_stream_rx *s,
		       struct quic_flow_conn_rx *c, u64 final_size, u32 *terr)
{
	int ret;

	ret = quic_flow_final_check(s, final_size, true, terr);
	ret = ret ?: quic_flow_account(s, c, final_size, terr);
	if (ret)
		return ret;
	s->final_size = final_size;
	s->final_known = true;
	return 0;
}

/* Frames sent by a stream's sender part, that we must be able to receive. */
static bool quic_frame_from_sender(u64 type)
{
	return (type >= QUIC_FRAME_STREAM && type <= QUIC_FRAME_STREAM_LAST) ||
	       type == QUIC_FRAME_RESET_STREAM ||
	       type == QUIC_FRAME_STREAM_DATA_BLOCKED;
}

/* Frames sent by a stream's receiver part, about our sending. */
static bool quic_frame_from_receiver(u64 type)
{
	return type == QUIC_FRAME_STOP_SENDING ||
	       type == QUIC_FRAME_MAX_STREAM_DATA;
}

/**
 * quic_stream_check_rx - may a received frame refer to stream @id?
 * @l: our view of stream counts
 * @frame_type: STREAM*, RESET_STREAM, STOP_SENDING, MAX_STREAM_DATA or
 *              STREAM_DATA_BLOCKED
 * @id: the frame's Stream ID
 * @terr: transport error on -EPROTO
 *
 * Errors: STREAM_STATE_ERROR for a frame on the wrong direction of a uni
 * stream (§19.4-§19.13) or for a stream of ours not opened yet (§19.5,
 * §19.8, §19.10); STREAM_LIMIT_ERROR for a peer stream above the
 * MAX_STREAMS we allowed (§4.6).
 *
 * Return: 0 if the frame may be processed, or -EPROTO.
 */
int quic_stream_check_rx(const struct quic_stream_limits *l, u64 frame_type,
			 u64 id, u32 *terr)
{
	bool uni = quic_stream_id_is_uni(id);

	if ((quic_frame_from_sender(frame_type) &&
	     !quic_stream_id_can_recv(id, l->is_server)) ||
	    (quic_frame_from_receiver(frame_type) &&
	     !quic_stream_id_can_send(id, l->is_server)))
		return quic_flow_err(terr, QUIC_TRANSPORT_ERROR_STREAM_STATE);
	if (quic_stream_id_is_local(id, l->is_server)) {
		if (quic_stream_id_index(id) >= l->local_opened[uni])
			return quic_flow_err(terr,
					     QUIC_TRANSPORT_ERROR_STREAM_STATE);
		return 0;
	}
	if (!quic_stream_id_allowed(id, l->peer_max[uni]))
		return quic_flow_err(terr, QUIC_TRANSPORT_ERROR_STREAM_LIMIT);
	return 0;
}

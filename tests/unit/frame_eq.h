/* SPDX-License-Identifier: GPL-2.0 */
/* Field-by-field frame comparison, following pointers (tests and fuzzers). */
#ifndef _TESTS_UNIT_FRAME_EQ_H
#define _TESTS_UNIT_FRAME_EQ_H

#include <string.h>

#include "frame.h"

static inline int bytes_eq(const u8 *a, const u8 *b, u64 n)
{
	return !n || !memcmp(a, b, n);
}

static inline int frame_eq(const struct quic_frame *a,
			   const struct quic_frame *b)
{
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case QUIC_FRAME_PADDING:
		return a->padding_len == b->padding_len;
	case QUIC_FRAME_PING:
	case QUIC_FRAME_HANDSHAKE_DONE:
	case QUIC_FRAME_IMMEDIATE_ACK:
		return 1;
	case QUIC_FRAME_ACK:
	case QUIC_FRAME_ACK_ECN:
		return a->ack.largest == b->ack.largest &&
		       a->ack.delay == b->ack.delay &&
		       a->ack.range_count == b->ack.range_count &&
		       a->ack.first_range == b->ack.first_range &&
		       a->ack.ranges_len == b->ack.ranges_len &&
		       bytes_eq(a->ack.ranges, b->ack.ranges, a->ack.ranges_len) &&
		       a->ack.ect0 == b->ack.ect0 && a->ack.ect1 == b->ack.ect1 &&
		       a->ack.ce == b->ack.ce;
	case QUIC_FRAME_RESET_STREAM:
		return !memcmp(&a->reset_stream, &b->reset_stream,
			       sizeof(a->reset_stream));
	case QUIC_FRAME_STOP_SENDING:
		return !memcmp(&a->stop_sending, &b->stop_sending,
			       sizeof(a->stop_sending));
	case QUIC_FRAME_CRYPTO:
		return a->crypto.offset == b->crypto.offset &&
		       a->crypto.len == b->crypto.len &&
		       bytes_eq(a->crypto.data, b->crypto.data, a->crypto.len);
	case QUIC_FRAME_NEW_TOKEN:
		return a->new_token.len == b->new_token.len &&
		       bytes_eq(a->new_token.token, b->new_token.token,
				a->new_token.len);
	case QUIC_FRAME_MAX_DATA:
	case QUIC_FRAME_MAX_STREAMS_BIDI:
	case QUIC_FRAME_MAX_STREAMS_UNI:
	case QUIC_FRAME_DATA_BLOCKED:
	case QUIC_FRAME_STREAMS_BLOCKED_BIDI:
	case QUIC_FRAME_STREAMS_BLOCKED_UNI:
		return a->limit == b->limit;
	case QUIC_FRAME_MAX_STREAM_DATA:
	case QUIC_FRAME_STREAM_DATA_BLOCKED:
		return a->stream_limit.id == b->stream_limit.id &&
		       a->stream_limit.limit == b->stream_limit.limit;
	case QUIC_FRAME_NEW_CONNECTION_ID:
		return a->new_cid.seq == b->new_cid.seq &&
		       a->new_cid.retire_prior_to == b->new_cid.retire_prior_to &&
		       quic_cid_eq(&a->new_cid.cid, &b->new_cid.cid) &&
		       !memcmp(a->new_cid.token, b->new_cid.token, 16);
	case QUIC_FRAME_RETIRE_CONNECTION_ID:
		return a->retire_seq == b->retire_seq;
	case QUIC_FRAME_PATH_CHALLENGE:
	case QUIC_FRAME_PATH_RESPONSE:
		return !memcmp(a->path_data, b->path_data, 8);
	case QUIC_FRAME_CONNECTION_CLOSE:
	case QUIC_FRAME_CONNECTION_CLOSE_APP:
		return a->close.error_code == b->close.error_code &&
		       a->close.frame_type == b->close.frame_type &&
		       a->close.reason_len == b->close.reason_len &&
		       bytes_eq(a->close.reason, b->close.reason,
				a->close.reason_len);
	case QUIC_FRAME_DATAGRAM:
	case QUIC_FRAME_DATAGRAM_LEN:
		return a->datagram.len == b->datagram.len &&
		       bytes_eq(a->datagram.data, b->datagram.data,
				a->datagram.len);
	case QUIC_FRAME_ACK_FREQUENCY:
		return !memcmp(&a->ack_freq, &b->ack_freq, sizeof(a->ack_freq));
	}
	if (quic_frame_is_stream(a->type))
		return a->stream.id == b->stream.id &&
		       a->stream.offset == b->stream.offset &&
		       a->stream.len == b->stream.len &&
		       bytes_eq(a->stream.data, b->stream.data, a->stream.len);
	return 0;
}

#endif

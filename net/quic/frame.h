/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC frames (RFC 9000 §19, RFC 9221, ack-frequency draft): decoding into
 * and encoding from struct quic_frame, and the per-type rules (which packet
 * types may carry a frame, ack-eliciting, in flight, probing) as a table.
 * Error convention: see varint.h.  Decoded byte fields (data, token,
 * reason, ACK ranges) point into the input buffer.
 */

#ifndef _NET_QUIC_FRAME_H
#define _NET_QUIC_FRAME_H

#include <linux/types.h>

#include "constants.h"
#include "packet_header.h"

/* ACK frame; ranges stay in wire form and are walked with quic_ack_iter. */
struct quic_frame_ack {
	u64 largest;
	u64 delay;		/* as sent, before ack_delay_exponent scaling */
	u64 range_count;	/* ranges after the first one */
	u64 first_range;
	const u8 *ranges;	/* range_count (Gap, ACK Range Length) pairs */
	size_t ranges_len;
	u64 ect0, ect1, ce;	/* QUIC_FRAME_ACK_ECN only */
	bool ecn;		/* decoded: the frame was ACK_ECN */
};

struct quic_frame_stream {
	u64 id;
	u64 offset;		/* 0 unless QUIC_STREAM_BIT_OFF */
	u64 len;
	const u8 *data;		/* without QUIC_STREAM_BIT_LEN: to the end */
};

struct quic_frame_new_cid {
	u64 seq;
	u64 retire_prior_to;
	struct quic_cid cid;	/* 1..20 bytes */
	u8 token[QUIC_STATELESS_RESET_TOKEN_LEN];
};

struct quic_frame_close {
	u64 error_code;
	u64 frame_type;		/* QUIC_FRAME_CONNECTION_CLOSE only */
	u64 reason_len;
	const u8 *reason;
};

struct quic_frame_ack_frequency {
	u64 seq;
	u64 ack_eliciting_threshold;
	u64 request_max_ack_delay;	/* microseconds */
	u64 reordering_threshold;
};

struct quic_frame {
	u64 type;		/* as on the wire, e.g. 0x0b for STREAM+LEN+FIN */
	union {
		u64 padding_len;	/* a run of PADDING counts as one */
		struct quic_frame_ack ack;
		struct {
			u64 id;
			u64 error_code;
			u64 final_size;
		} reset_stream;
		struct {
			u64 id;
			u64 error_code;
		} stop_sending;
		struct {
			u64 offset;
			u64 len;
			const u8 *data;
		} crypto;
		struct {
			u64 len;
			const u8 *token;
		} new_token;
		struct quic_frame_stream stream;
		/* MAX_DATA, MAX_STREAMS, DATA_BLOCKED, STREAMS_BLOCKED */
		u64 limit;
		/* MAX_STREAM_DATA, STREAM_DATA_BLOCKED */
		struct {
			u64 id;
			u64 limit;
		} stream_limit;
		struct quic_frame_new_cid new_cid;
		u64 retire_seq;
		u8 path_data[QUIC_PATH_CHALLENGE_LEN];
		struct quic_frame_close close;
		struct {
			u64 len;
			const u8 *data;	/* without length (0x30): to the end */
		} datagram;
		struct quic_frame_ack_frequency ack_freq;
	};
};

int quic_frame_decode(const u8 *buf, size_t len, u8 pkt_type,
		      bool peer_is_server, struct quic_frame *f, u32 *terr);
int quic_frame_encode(u8 *buf, size_t len, const struct quic_frame *f);

/* Walk the ranges of a decoded ACK frame, largest first. */
struct quic_ack_iter {
	const u8 *p;
	const u8 *end;
	u64 left;		/* ranges still to return */
	u64 next_largest;
	u64 next_len;
};

void quic_ack_iter_init(struct quic_ack_iter *it,
			const struct quic_frame_ack *ack);
bool quic_ack_iter_next(struct quic_ack_iter *it, u64 *smallest,
			u64 *largest);

/* Frame rules, RFC 9000 §12.4 Table 3 and the extensions. */
enum {
	QUIC_FRAME_F_ACK_ELICITING	= 0x01,
	QUIC_FRAME_F_IN_FLIGHT		= 0x02,
	QUIC_FRAME_F_PROBING		= 0x04,
	QUIC_FRAME_F_FLOW_CONTROLLED	= 0x08,
	QUIC_FRAME_F_SERVER_ONLY	= 0x10,	/* a client must not send it */
};

struct quic_frame_info {
	u8 pkts;		/* bit n: allowed in enum quic_packet_type n */
	u8 flags;		/* QUIC_FRAME_F_* */
};

const struct quic_frame_info *quic_frame_info(u64 type);

static inline bool quic_frame_has(u64 type, u8 flag)
{
	const struct quic_frame_info *fi = quic_frame_info(type);

	return fi && (fi->flags & flag);
}

static inline bool quic_frame_allowed(u64 type, u8 pkt_type)
{
	const struct quic_frame_info *fi = quic_frame_info(type);

	return fi && pkt_type < 8 && (fi->pkts & (1U << pkt_type));
}

static inline bool quic_frame_ack_eliciting(u64 type)
{
	return quic_frame_has(type, QUIC_FRAME_F_ACK_ELICITING);
}

static inline bool quic_frame_in_flight(u64 type)
{
	return quic_frame_has(type, QUIC_FRAME_F_IN_FLIGHT);
}

static inline bool quic_frame_probing(u64 type)
{
	return quic_frame_has(type, QUIC_FRAME_F_PROBING);
}

static inline bool quic_frame_is_stream(u64 type)
{
	return type >= QUIC_FRAME_STREAM && type <= QUIC_FRAME_STREAM_LAST;
}

#endif /* _NET_QUIC_FRAME_H */

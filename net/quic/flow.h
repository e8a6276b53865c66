/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC flow control and stream limit rules (RFC 9000 §4, §19) as pure
 * helpers over small structs.  Error convention: see varint.h.
 */

#ifndef _NET_QUIC_FLOW_H
#define _NET_QUIC_FLOW_H

#include <linux/types.h>

#include "stream_id.h"

/* Connection-level receive accounting. */
struct quic_flow_conn_rx {
	u64 max;		/* MAX_DATA we advertised */
	u64 highest;		/* sum over streams of highest offsets seen */
};

/* Stream-level receive accounting. */
struct quic_flow_stream_rx {
	u64 max;		/* MAX_STREAM_DATA we advertised */
	u64 highest;		/* highest offset seen */
	u64 final_size;		/* valid if final_known */
	bool final_known;
};

int quic_flow_rx_data(struct quic_flow_stream_rx *s,
		      struct quic_flow_conn_rx *c, u64 offset, u64 len,
		      bool fin, u32 *terr);
int quic_flow_rx_reset(struct quic_flow_stream_rx *s,
		       struct quic_flow_conn_rx *c, u64 final_size, u32 *terr);

/* Streams each side may use, per direction ([0] bidi, [1] uni). */
struct quic_stream_limits {
	bool is_server;		/* which endpoint we are */
	u64 local_opened[2];	/* how many we have opened */
	u64 peer_max[2];	/* MAX_STREAMS we gave the peer */
};

int quic_stream_check_rx(const struct quic_stream_limits *l, u64 frame_type,
			 u64 id, u32 *terr);

/* Bytes we may still send under limit @max after @used. */
static inline u64 quic_flow_credit(u64 max, u64 used)
{
	return max > used ? max - used : 0;
}

/*
 * A new MAX_DATA, MAX_STREAM_DATA or MAX_STREAMS value; frames that do not
 * raise the limit are ignored (§4.1, §4.6), since they can arrive
 * reordered.
 */
static inline u64 quic_flow_raise(u64 cur, u64 proposed)
{
	return proposed > cur ? proposed : cur;
}

/*
 * Whether to advertise a new limit: once the reader has consumed half of
 * the window, so the sender is never blocked for want of an update.
 */
static inline bool quic_flow_should_update(u64 max, u64 consumed, u64 window)
{
	return consumed + window >= max &&
	       consumed + window - max >= window / 2;
}

/* Can we open stream @id, under the peer's MAX_STREAMS @peer_limit? */
static inline bool quic_stream_open_ok(u64 id, u64 peer_limit)
{
	return quic_stream_id_allowed(id, peer_limit);
}

#endif /* _NET_QUIC_FLOW_H */

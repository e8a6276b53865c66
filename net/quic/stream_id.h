/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC stream ID arithmetic (RFC 9000 §2.1, §4.6).  The two low bits of a
 * stream ID give the initiator (0x1: server) and direction (0x2: uni); the
 * rest is the stream's index among streams of its type.
 */

#ifndef _NET_QUIC_STREAM_ID_H
#define _NET_QUIC_STREAM_ID_H

#include <linux/types.h>

#include "constants.h"

enum {
	QUIC_STREAM_ID_SERVER	= 0x01,
	QUIC_STREAM_ID_UNI	= 0x02,
	QUIC_STREAM_ID_TYPE	= 0x03,
};

static inline bool quic_stream_id_is_uni(u64 id)
{
	return id & QUIC_STREAM_ID_UNI;
}

static inline bool quic_stream_id_is_server(u64 id)
{
	return id & QUIC_STREAM_ID_SERVER;
}

/* Did this endpoint (@is_server says which one we are) open it? */
static inline bool quic_stream_id_is_local(u64 id, bool is_server)
{
	return quic_stream_id_is_server(id) == is_server;
}

/* May we send on it: bidi, or uni opened by us. */
static inline bool quic_stream_id_can_send(u64 id, bool is_server)
{
	return !quic_stream_id_is_uni(id) || quic_stream_id_is_local(id, is_server);
}

/* May we receive on it: bidi, or uni opened by the peer. */
static inline bool quic_stream_id_can_recv(u64 id, bool is_server)
{
	return !quic_stream_id_is_uni(id) || !quic_stream_id_is_local(id, is_server);
}

/* 0-based position among the streams of the same type. */
static inline u64 quic_stream_id_index(u64 id)
{
	return id >> 2;
}

static inline u64 quic_stream_id_make(u64 index, bool server, bool uni)
{
	return index << 2 | (uni ? QUIC_STREAM_ID_UNI : 0) |
	       (server ? QUIC_STREAM_ID_SERVER : 0);
}

static inline u64 quic_stream_id_next(u64 id)
{
	return id + 4;
}

/*
 * Opening @id needs a stream count (MAX_STREAMS) of at least index + 1,
 * since streams of a type open in order (§3.2).
 */
static inline u64 quic_stream_id_count(u64 id)
{
	return quic_stream_id_index(id) + 1;
}

/* Is @id within a MAX_STREAMS limit of @max_streams for its type? */
static inline bool quic_stream_id_allowed(u64 id, u64 max_streams)
{
	return quic_stream_id_index(id) < max_streams;
}

#endif /* _NET_QUIC_STREAM_ID_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC variable-length integers (RFC 9000 §16) and the byte cursors that
 * every wire-layer codec is built on.
 *
 * Error convention of the whole wire layer (varint, packet_header, frame,
 * transport_param, ack_ranges, flow):
 *
 *   Functions return an int: >= 0 on success (bytes consumed or written, or
 *   0), or a negative errno:
 *
 *   -EPROTO    the peer broke the protocol.  Only functions that take a
 *              "u32 *terr" argument return it, and they then store in *terr
 *              the QUIC transport error code (enum quic_transport_error of
 *              <uapi/linux/quic.h>) to close the connection with.  *terr is
 *              left untouched on any other return.
 *   -EBADMSG   malformed or truncated input where RFC 9000 says to drop
 *              rather than close (varints on their own, packet headers).
 *   -EPROTONOSUPPORT  long header of a version we do not speak.
 *   -ENOSPC    an encoder's output buffer is too small; nothing useful was
 *              written.
 *   -EINVAL    the caller asked to encode something the wire cannot carry
 *              (value above 2^62-1, connection ID above 20 bytes...).
 *   -ERANGE    a value is outside what a local structure can track.
 *
 *   No decoder reads outside [buf, buf + len), whatever the input.
 */

#ifndef _NET_QUIC_VARINT_H
#define _NET_QUIC_VARINT_H

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include "constants.h"

/* Minimal encoded length of @v: 1, 2, 4 or 8; 0 if @v is above 2^62-1. */
static inline unsigned int quic_varint_len(u64 v)
{
	if (v < (1ULL << 6))
		return 1;
	if (v < (1ULL << 14))
		return 2;
	if (v < (1ULL << 30))
		return 4;
	if (v <= QUIC_VARINT_MAX)
		return 8;
	return 0;
}

/* Encoded length announced by the first byte of a varint. */
static inline unsigned int quic_varint_len_byte(u8 first)
{
	return 1U << (first >> 6);
}

int quic_varint_encode(u8 *buf, size_t len, u64 v);
int quic_varint_encode_fixed(u8 *buf, size_t len, u64 v, unsigned int n);
int quic_varint_decode(const u8 *buf, size_t len, u64 *v);

/*
 * Read cursor.  Every quic_rd_*() returns 0 or -EBADMSG and never moves
 * past @end; on failure the cursor is left where it was.
 */
struct quic_rd {
	const u8 *p;
	const u8 *end;
};

static inline void quic_rd_init(struct quic_rd *rd, const u8 *buf, size_t len)
{
	rd->p = buf;
	rd->end = buf + len;
}

static inline size_t quic_rd_left(const struct quic_rd *rd)
{
	return rd->end - rd->p;
}

/* Also reports the encoded length in @n (may be NULL), for minimality. */
static inline int quic_rd_varint_n(struct quic_rd *rd, u64 *v, unsigned int *n)
{
	int ret = quic_varint_decode(rd->p, quic_rd_left(rd), v);

	if (ret < 0)
		return ret;
	rd->p += ret;
	if (n)
		*n = ret;
	return 0;
}

static inline int quic_rd_varint(struct quic_rd *rd, u64 *v)
{
	return quic_rd_varint_n(rd, v, NULL);
}

static inline int quic_rd_u8(struct quic_rd *rd, u8 *v)
{
	if (rd->p >= rd->end)
		return -EBADMSG;
	*v = *rd->p++;
	return 0;
}

static inline int quic_rd_be16(struct quic_rd *rd, u16 *v)
{
	if (quic_rd_left(rd) < 2)
		return -EBADMSG;
	*v = get_unaligned_be16(rd->p);
	rd->p += 2;
	return 0;
}

static inline int quic_rd_be32(struct quic_rd *rd, u32 *v)
{
	if (quic_rd_left(rd) < 4)
		return -EBADMSG;
	*v = get_unaligned_be32(rd->p);
	rd->p += 4;
	return 0;
}

/* Point @out at the next @n bytes without copying them. */
static inline int quic_rd_ptr(struct quic_rd *rd, u64 n, const u8 **out)
{
	if (quic_rd_left(rd) < n)
		return -EBADMSG;
	*out = rd->p;
	rd->p += n;
	return 0;
}

static inline int quic_rd_copy(struct quic_rd *rd, void *dst, size_t n)
{
	if (quic_rd_left(rd) < n)
		return -EBADMSG;
	memcpy(dst, rd->p, n);
	rd->p += n;
	return 0;
}

/*
 * Write cursor.  Every quic_wr_*() returns 0, -ENOSPC when the bytes do not
 * fit (nothing is written then) or -EINVAL for an unencodable value.
 */
struct quic_wr {
	u8 *p;
	u8 *end;
};

static inline void quic_wr_init(struct quic_wr *wr, u8 *buf, size_t len)
{
	wr->p = buf;
	wr->end = buf + len;
}

static inline size_t quic_wr_left(const struct quic_wr *wr)
{
	return wr->end - wr->p;
}

static inline int quic_wr_varint(struct quic_wr *wr, u64 v)
{
	int ret = quic_varint_encode(wr->p, quic_wr_left(wr), v);

	if (ret < 0)
		return ret;
	wr->p += ret;
	return 0;
}

static inline int quic_wr_varint_fixed(struct quic_wr *wr, u64 v,
				       unsigned int n)
{
	int ret = quic_varint_encode_fixed(wr->p, quic_wr_left(wr), v, n);

	if (ret < 0)
		return ret;
	wr->p += ret;
	return 0;
}

static inline int quic_wr_u8(struct quic_wr *wr, u8 v)
{
	if (wr->p >= wr->end)
		return -ENOSPC;
	*wr->p++ = v;
	return 0;
}

static inline int quic_wr_be16(struct quic_wr *wr, u16 v)
{
	if (quic_wr_left(wr) < 2)
		return -ENOSPC;
	put_unaligned_be16(v, wr->p);
	wr->p += 2;
	return 0;
}

static inline int quic_wr_be32(struct quic_wr *wr, u32 v)
{
	if (quic_wr_left(wr) < 4)
		return -ENOSPC;
	put_unaligned_be32(v, wr->p);
	wr->p += 4;
	return 0;
}

static inline int quic_wr_bytes(struct quic_wr *wr, const void *src, u64 n)
{
	if (quic_wr_left(wr) < n)
		return -ENOSPC;
	if (n)
		memcpy(wr->p, src, n);
	wr->p += n;
	return 0;
}

static inline int quic_wr_zero(struct quic_wr *wr, u64 n)
{
	if (quic_wr_left(wr) < n)
		return -ENOSPC;
	memset(wr->p, 0, n);
	wr->p += n;
	return 0;
}

#endif /* _NET_QUIC_VARINT_H */

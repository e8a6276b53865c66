// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC variable-length integers (RFC 9000 §16).
 *
 * The two most significant bits of the first byte give the length
 * (1, 2, 4 or 8 bytes); the rest is the value in network byte order.
 */

#include "varint.h"

/**
 * quic_varint_encode_fixed - encode @v on exactly @n bytes
 * @buf: output
 * @len: room in @buf
 * @v: value, at most 2^62-1
 * @n: 1, 2, 4 or 8; larger than needed is allowed (RFC 9000 §16), which
 *     lets a Length field be reserved before the length is known.
 *
 * Return: @n, -EINVAL if @v does not fit in @n bytes, -ENOSPC if @len < @n.
 */
int quic_varint_encode_fixed(u8 *buf, size_t len, u64 v, unsigned int n)
{
	switch (n) {
	case 1:
		if (v >= (1ULL << 6))
			return -EINVAL;
		if (len < 1)
			return -ENOSPC;
		buf[0] = v;
		return 1;
	case 2:
		if (v >= (1ULL << 14))
			return -EINVAL;
		if (len < 2)
			return -ENOSPC;
		put_unaligned_be16((u16)v | 0x4000, buf);
		return 2;
	case 4:
		if (v >= (1ULL << 30))
			return -EINVAL;
		if (len < 4)
			return -ENOSPC;
		put_unaligned_be32((u32)v | 0x80000000U, buf);
		return 4;
	case 8:
		if (v > QUIC_VARINT_MAX)
			return -EINVAL;
		if (len < 8)
			return -ENOSPC;
		put_unaligned_be64(v | 0xc000000000000000ULL, buf);
		return 8;
	}
	return -EINVAL;
}

/**
 * quic_varint_encode - encode @v on the fewest bytes
 * @buf: output
 * @len: room in @buf
 * @v: value, at most 2^62-1
 *
 * Return: bytes written, -EINVAL if @v is too large, -ENOSPC if no room.
 */
int quic_varint_encode(u8 *buf, size_t len, u64 v)
{
	unsigned int n = quic_varint_len(v);

	if (!n)
		return -EINVAL;
	return quic_varint_encode_fixed(buf, len, v, n);
}

/**
 * quic_varint_decode - decode one varint
 * @buf: input
 * @len: bytes available at @buf
 * @v: decoded value
 *
 * Non-minimal encodings are accepted: §16 allows them everywhere except
 * where a caller (frame types) says otherwise, and the caller can compare
 * the return value with quic_varint_len(*v).
 *
 * Return: bytes consumed (1, 2, 4 or 8), or -EBADMSG if truncated.
 */
int quic_varint_decode(const u8 *buf, size_t len, u64 *v)
{
	unsigned int n;

	if (!len)
		return -EBADMSG;
	n = quic_varint_len_byte(buf[0]);
	if (len < n)
		return -EBADMSG;
	switch (n) {
	case 1:
		*v = buf[0];
		break;
	case 2:
		*v = get_unaligned_be16(buf) & 0x3fff;
		break;
	case 4:
		*v = get_unaligned_be32(buf) & 0x3fffffffU;
		break;
	default:
		*v = get_unaligned_be64(buf) & QUIC_VARINT_MAX;
		break;
	}
	return n;
}

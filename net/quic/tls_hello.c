// SPDX-License-Identifier: GPL-2.0
/*
 * The ALPN extension of a TLS ClientHello, and comma-separated ALPN lists
 * (QUIC_SOCKOPT_ALPN), see tls_hello.h.
 *
 *   struct {
 *	HandshakeType msg_type;			1 byte, client_hello (1)
 *	uint24 length;
 *	ProtocolVersion legacy_version;		2 bytes
 *	opaque random[32];
 *	opaque legacy_session_id<0..32>;	1-byte length
 *	CipherSuite cipher_suites<2..2^16-2>;	2-byte length
 *	opaque legacy_compression_methods<1..2^8-1>;
 *	Extension extensions<8..2^16-1>;	2-byte length, to the end
 *   }
 *   Extension: uint16 type, opaque data<0..2^16-1>
 *   ALPN (type 16): ProtocolName protocol_name_list<2..2^16-1>, each
 *	ProtocolName an opaque <1..2^8-1>.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "tls_hello.h"

#define QUIC_TLS_RANDOM_LEN	32
#define QUIC_TLS_SESSION_ID_MAX	32

/*
 * A cursor in a message of which only a prefix may be known: a field that
 * runs past the structure holding it is malformed (-EBADMSG), one that
 * runs past the bytes known so far needs more of them (-EAGAIN).
 */
struct quic_hello_rd {
	const u8	*buf;
	size_t		pos;
	size_t		known;	/* bytes of the message given */
};

/* May [pos, pos + n) be read, inside a structure ending at @end? */
static int quic_hello_need(const struct quic_hello_rd *rd, size_t n,
			   size_t end)
{
	if (n > end || rd->pos > end - n)
		return -EBADMSG;
	if (rd->pos + n > rd->known)
		return -EAGAIN;
	return 0;
}

/* Step over @n bytes, which need not be known yet. */
static int quic_hello_skip(struct quic_hello_rd *rd, size_t n, size_t end)
{
	if (n > end || rd->pos > end - n)
		return -EBADMSG;
	rd->pos += n;
	return 0;
}

/* A big-endian integer of @n bytes (1 to 3). */
static int quic_hello_int(struct quic_hello_rd *rd, size_t n, size_t end,
			  u32 *v)
{
	int err = quic_hello_need(rd, n, end);

	if (err)
		return err;
	*v = 0;
	while (n--)
		*v = (*v << 8) | rd->buf[rd->pos++];
	return 0;
}

/* Step over a vector with an @n-byte length of @min to @max bytes. */
static int quic_hello_skip_vec(struct quic_hello_rd *rd, size_t n, u32 min,
			       u32 max, size_t end)
{
	u32 len;
	int err;

	err = quic_hello_int(rd, n, end, &len);
	if (err)
		return err;
	if (len < min || len > max)
		return -EBADMSG;
	return quic_hello_skip(rd, len, end);
}

/* Check the ProtocolNameList in [pos, end), all of it known. */
static int quic_hello_alpn_ext(struct quic_hello_rd *rd, size_t end,
			       const u8 **names, size_t *names_len)
{
	const u8 *p, *name;
	size_t left;
	u32 len;
	u8 nlen;
	int err;

	err = quic_hello_int(rd, 2, end, &len);
	if (err)
		return err;
	if (len < 2 || rd->pos + len != end)
		return -EBADMSG;
	err = quic_hello_need(rd, len, end);
	if (err)
		return err;
	p = rd->buf + rd->pos;
	left = len;
	while ((err = quic_tls_alpn_next(&p, &left, &name, &nlen)) > 0)
		;
	if (err)
		return err;
	*names = rd->buf + rd->pos;
	*names_len = len;
	return 0;
}

/**
 * quic_tls_hello_alpn - the ALPN extension of a ClientHello
 * @buf: the handshake message, from its first byte
 * @len: how many of its bytes are known (a prefix, or all of it, or more:
 *	bytes after the message are not looked at)
 * @names: the ProtocolNameList's content, inside @buf
 * @names_len: its length
 *
 * Return: 0 if found, all its names well formed; -ENOENT if the message
 * is complete and has no ALPN extension; -EAGAIN if the bytes known end
 * before either is certain; -EBADMSG if the message is not a ClientHello
 * or a length in it is wrong.
 */
int quic_tls_hello_alpn(const u8 *buf, size_t len, const u8 **names,
			size_t *names_len)
{
	struct quic_hello_rd rd = { .buf = buf, .known = len };
	size_t end, ext_end;
	u32 v, type;
	int err;

	if (len && buf[0] != QUIC_TLS_HS_CLIENT_HELLO)
		return -EBADMSG;
	err = quic_hello_int(&rd, 4, SIZE_MAX, &v);	/* type, length */
	if (err)
		return err;
	end = 4 + (v & 0xffffff);
	rd.known = min(len, end);

	err = quic_hello_skip(&rd, 2 + QUIC_TLS_RANDOM_LEN, end);
	if (!err)
		err = quic_hello_skip_vec(&rd, 1, 0, QUIC_TLS_SESSION_ID_MAX,
					  end);
	if (!err)
		err = quic_hello_skip_vec(&rd, 2, 2, 0xfffe, end);
	if (!err)
		err = quic_hello_skip_vec(&rd, 1, 1, 0xff, end);
	if (err)
		return err;
	if (rd.pos == end)
		return -ENOENT;		/* no extensions at all */
	err = quic_hello_int(&rd, 2, end, &v);
	if (err)
		return err;
	if (rd.pos + v != end)
		return -EBADMSG;	/* extensions end the message */
	ext_end = end;

	while (rd.pos < ext_end) {
		err = quic_hello_int(&rd, 2, ext_end, &type);
		if (!err)
			err = quic_hello_int(&rd, 2, ext_end, &v);
		if (err)
			return err;
		if (type == QUIC_TLS_EXT_ALPN) {
			if (v > ext_end - rd.pos)
				return -EBADMSG;
			return quic_hello_alpn_ext(&rd, rd.pos + v, names,
						   names_len);
		}
		err = quic_hello_skip(&rd, v, ext_end);
		if (err)
			return err;
	}
	return -ENOENT;
}

/**
 * quic_tls_alpn_next - the next name of a ProtocolNameList
 * @p: cursor, advanced past the name
 * @left: bytes left at @p
 * @name: the name
 * @name_len: its length, 1 to 255
 *
 * Return: 1 with a name, 0 at the end, -EBADMSG if the list is malformed.
 */
int quic_tls_alpn_next(const u8 **p, size_t *left, const u8 **name,
		       u8 *name_len)
{
	u8 n;

	if (!*left)
		return 0;
	n = (*p)[0];
	if (!n || n > *left - 1)
		return -EBADMSG;
	*name = *p + 1;
	*name_len = n;
	*p += 1 + n;
	*left -= 1 + n;
	return 1;
}

/* The next entry of the comma-separated list at *@s; its length. */
static size_t quic_alpn_csv_next(const char **s, const char **tok)
{
	size_t n;

	while (**s == ',')
		(*s)++;
	*tok = *s;
	for (n = 0; (*s)[n] && (*s)[n] != ','; n++)
		;
	*s += n;
	return n;
}

/* Is @name one of the entries of the comma-separated list @csv? */
bool quic_alpn_csv_has(const char *csv, const u8 *name, u8 name_len)
{
	const char *tok;
	size_t n;

	while ((n = quic_alpn_csv_next(&csv, &tok)))
		if (n == name_len && !memcmp(tok, name, n))
			return true;
	return false;
}

/* Do the comma-separated lists @a and @b share an entry? */
bool quic_alpn_csv_overlap(const char *a, const char *b)
{
	const char *tok;
	size_t n;

	while ((n = quic_alpn_csv_next(&a, &tok)))
		if (n <= 255 && quic_alpn_csv_has(b, (const u8 *)tok, n))
			return true;
	return false;
}

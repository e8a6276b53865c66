/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ALPN extension (RFC 7301) of a TLS 1.3 ClientHello (RFC 8446 §4.1.2),
 * the pure part of ALPN dispatch (dispatch.c): a listener is chosen by the
 * protocols the client offers before any TLS library sees the connection.
 *
 * The parser reads the handshake message as it comes out of the client's
 * CRYPTO frames, possibly only a prefix of it: it walks the message and
 * its extensions with every length checked against the message's own
 * length and against the bytes given, never reading past either.
 *
 * Locking: none; pure functions on (buffer, length).
 */

#ifndef _NET_QUIC_TLS_HELLO_H
#define _NET_QUIC_TLS_HELLO_H

#include <linux/types.h>

#define QUIC_TLS_HS_CLIENT_HELLO	1	/* HandshakeType client_hello */
#define QUIC_TLS_EXT_ALPN		16	/* application_layer_protocol_negotiation */

/*
 * quic_tls_hello_alpn() results: the ProtocolNameList's names (1-byte
 * length, then the name, repeated) are at *names, *names_len bytes.
 */
int quic_tls_hello_alpn(const u8 *buf, size_t len, const u8 **names,
			size_t *names_len);
int quic_tls_alpn_next(const u8 **p, size_t *left, const u8 **name,
		       u8 *name_len);
bool quic_alpn_csv_has(const char *csv, const u8 *name, u8 name_len);
bool quic_alpn_csv_overlap(const char *a, const char *b);

#endif /* _NET_QUIC_TLS_HELLO_H */

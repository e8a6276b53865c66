/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC protocol constants: frame types, transport parameter ids, packet
 * types, versions and wire limits, all in one place.
 *
 * Transport error codes (enum quic_transport_error) and the version numbers
 * QUIC_VERSION_V1/V2 are part of the user ABI, so they live in
 * <uapi/linux/quic.h> and are only pulled in here, never redefined.
 */

#ifndef _NET_QUIC_CONSTANTS_H
#define _NET_QUIC_CONSTANTS_H

#include <linux/bits.h>
#include <linux/types.h>
#include <uapi/linux/quic.h>

/* RFC 9000 §12.4, RFC 9221 §4, draft-ietf-quic-ack-frequency §4-5 */
enum quic_frame_type {
	QUIC_FRAME_PADDING			= 0x00,
	QUIC_FRAME_PING				= 0x01,
	QUIC_FRAME_ACK				= 0x02,
	QUIC_FRAME_ACK_ECN			= 0x03,
	QUIC_FRAME_RESET_STREAM			= 0x04,
	QUIC_FRAME_STOP_SENDING			= 0x05,
	QUIC_FRAME_CRYPTO			= 0x06,
	QUIC_FRAME_NEW_TOKEN			= 0x07,
	QUIC_FRAME_STREAM			= 0x08,	/* 0x08..0x0f */
	QUIC_FRAME_STREAM_LAST			= 0x0f,
	QUIC_FRAME_MAX_DATA			= 0x10,
	QUIC_FRAME_MAX_STREAM_DATA		= 0x11,
	QUIC_FRAME_MAX_STREAMS_BIDI		= 0x12,
	QUIC_FRAME_MAX_STREAMS_UNI		= 0x13,
	QUIC_FRAME_DATA_BLOCKED			= 0x14,
	QUIC_FRAME_STREAM_DATA_BLOCKED		= 0x15,
	QUIC_FRAME_STREAMS_BLOCKED_BIDI		= 0x16,
	QUIC_FRAME_STREAMS_BLOCKED_UNI		= 0x17,
	QUIC_FRAME_NEW_CONNECTION_ID		= 0x18,
	QUIC_FRAME_RETIRE_CONNECTION_ID		= 0x19,
	QUIC_FRAME_PATH_CHALLENGE		= 0x1a,
	QUIC_FRAME_PATH_RESPONSE		= 0x1b,
	QUIC_FRAME_CONNECTION_CLOSE		= 0x1c,
	QUIC_FRAME_CONNECTION_CLOSE_APP		= 0x1d,
	QUIC_FRAME_HANDSHAKE_DONE		= 0x1e,
	QUIC_FRAME_IMMEDIATE_ACK		= 0x1f,
	QUIC_FRAME_DATAGRAM			= 0x30,
	QUIC_FRAME_DATAGRAM_LEN			= 0x31,
	QUIC_FRAME_ACK_FREQUENCY		= 0xaf,
};

/* Flag bits carried in the STREAM frame type (RFC 9000 §19.8) */
enum {
	QUIC_STREAM_BIT_FIN	= 0x01,
	QUIC_STREAM_BIT_LEN	= 0x02,
	QUIC_STREAM_BIT_OFF	= 0x04,
};

/* RFC 9000 §18.2, RFC 9221 §3, RFC 9287 §3, RFC 9368 §5, ack-frequency §3 */
enum quic_transport_param_id {
	QUIC_TP_ORIGINAL_DESTINATION_CONNECTION_ID	= 0x00,
	QUIC_TP_MAX_IDLE_TIMEOUT			= 0x01,
	QUIC_TP_STATELESS_RESET_TOKEN			= 0x02,
	QUIC_TP_MAX_UDP_PAYLOAD_SIZE			= 0x03,
	QUIC_TP_INITIAL_MAX_DATA			= 0x04,
	QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL	= 0x05,
	QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE	= 0x06,
	QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI		= 0x07,
	QUIC_TP_INITIAL_MAX_STREAMS_BIDI		= 0x08,
	QUIC_TP_INITIAL_MAX_STREAMS_UNI			= 0x09,
	QUIC_TP_ACK_DELAY_EXPONENT			= 0x0a,
	QUIC_TP_MAX_ACK_DELAY				= 0x0b,
	QUIC_TP_DISABLE_ACTIVE_MIGRATION		= 0x0c,
	QUIC_TP_PREFERRED_ADDRESS			= 0x0d,
	QUIC_TP_ACTIVE_CONNECTION_ID_LIMIT		= 0x0e,
	QUIC_TP_INITIAL_SOURCE_CONNECTION_ID		= 0x0f,
	QUIC_TP_RETRY_SOURCE_CONNECTION_ID		= 0x10,
	QUIC_TP_VERSION_INFORMATION			= 0x11,
	QUIC_TP_MAX_DATAGRAM_FRAME_SIZE			= 0x20,
	QUIC_TP_GREASE_QUIC_BIT				= 0x2ab2,
};

/* Above INT_MAX, so not an enumerator */
#define QUIC_TP_MIN_ACK_DELAY		0xff04de1bULL

/*
 * Packet types as this implementation names them, independent of the
 * version-specific long header type bits (RFC 9000 §17.2, RFC 9369 §3.2).
 */
enum quic_packet_type {
	QUIC_PKT_INITIAL,
	QUIC_PKT_0RTT,
	QUIC_PKT_HANDSHAKE,
	QUIC_PKT_RETRY,
	QUIC_PKT_VERSION_NEGOTIATION,
	QUIC_PKT_1RTT,
	QUIC_PKT_MAX,
};

/* Header first-byte bits (RFC 9000 §17.2, §17.3.1) */
enum {
	QUIC_HDR_FORM_LONG	= 0x80,
	QUIC_HDR_FIXED_BIT	= 0x40,
	QUIC_HDR_LONG_TYPE	= 0x30,
	QUIC_HDR_LONG_RESERVED	= 0x0c,
	QUIC_HDR_SHORT_SPIN	= 0x20,
	QUIC_HDR_SHORT_RESERVED	= 0x18,
	QUIC_HDR_SHORT_KEY_PHASE = 0x04,
	QUIC_HDR_PN_LEN_MASK	= 0x03,
};

/* Wire limits */
enum {
	QUIC_CID_MAX_LEN		= 20,	/* v1/v2, RFC 9000 §17.2 */
	QUIC_CID_MAX_LEN_INVARIANT	= 255,	/* RFC 8999 §5.1 */
	QUIC_PN_MAX_LEN			= 4,
	QUIC_STATELESS_RESET_TOKEN_LEN	= 16,
	QUIC_PATH_CHALLENGE_LEN		= 8,
	QUIC_RETRY_INTEGRITY_TAG_LEN	= 16,
	QUIC_MIN_INITIAL_DATAGRAM	= 1200,	/* RFC 9000 §14.1 */
	QUIC_MIN_UDP_PAYLOAD		= 1200,
	QUIC_MAX_UDP_PAYLOAD		= 65527,
	QUIC_MAX_ACK_DELAY_EXPONENT	= 20,
	QUIC_MAX_ACK_DELAY_LIMIT_MS	= 1 << 14,
	QUIC_MIN_ACTIVE_CID_LIMIT	= 2,
	/* version_information: how many available versions we keep */
	QUIC_TP_MAX_VERSIONS		= 16,
};

/* TLS alerts (RFC 8446 §6) we raise ourselves, as CRYPTO_ERROR + alert */
enum {
	QUIC_TLS_ALERT_UNEXPECTED_MESSAGE	= 10,
};

/* RFC defaults of transport parameters that are not zero (§18.2) */
enum {
	QUIC_DEF_MAX_UDP_PAYLOAD_SIZE	= 65527,
	QUIC_DEF_ACK_DELAY_EXPONENT	= 3,
	QUIC_DEF_MAX_ACK_DELAY_MS	= 25,
	QUIC_DEF_ACTIVE_CID_LIMIT	= 2,
};

#define QUIC_VARINT_MAX		((1ULL << 62) - 1)
/* Stream counts above 2^60 would need stream ids above 2^62 (§4.6) */
#define QUIC_MAX_STREAMS_LIMIT	BIT_ULL(60)
#define QUIC_PN_MAX		((1ULL << 62) - 1)

/* Version 0 marks Version Negotiation packets (RFC 8999 §6) */
#define QUIC_VERSION_NEGOTIATION	0x00000000U

/* Reserved transport parameter ids are 31 * N + 27 (RFC 9000 §18.1) */
static inline bool quic_tp_id_is_reserved(u64 id)
{
	return id >= 27 && (id - 27) % 31 == 0;
}

/* Reserved versions used to force version negotiation: 0x?a?a?a?a */
static inline bool quic_version_is_reserved(u32 v)
{
	return (v & 0x0f0f0f0f) == 0x0a0a0a0a;
}

static inline bool quic_version_supported(u32 v)
{
	return v == QUIC_VERSION_V1 || v == QUIC_VERSION_V2;
}

#endif /* _NET_QUIC_CONSTANTS_H */

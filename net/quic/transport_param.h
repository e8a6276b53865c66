/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC transport parameters (RFC 9000 §18, RFC 9221, RFC 9287, RFC 9368,
 * ack-frequency draft): the quic_transport_parameters TLS extension body.
 * Error convention: see varint.h; every decode failure is -EPROTO with
 * TRANSPORT_PARAMETER_ERROR.
 */

#ifndef _NET_QUIC_TRANSPORT_PARAM_H
#define _NET_QUIC_TRANSPORT_PARAM_H

#include <linux/types.h>

#include "constants.h"
#include "packet_header.h"

/* Bit numbers in quic_transport_params.present */
enum quic_tp_bit {
	QUIC_TPB_ORIGINAL_DCID,
	QUIC_TPB_MAX_IDLE_TIMEOUT,
	QUIC_TPB_STATELESS_RESET_TOKEN,
	QUIC_TPB_MAX_UDP_PAYLOAD_SIZE,
	QUIC_TPB_INITIAL_MAX_DATA,
	QUIC_TPB_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL,
	QUIC_TPB_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE,
	QUIC_TPB_INITIAL_MAX_STREAM_DATA_UNI,
	QUIC_TPB_INITIAL_MAX_STREAMS_BIDI,
	QUIC_TPB_INITIAL_MAX_STREAMS_UNI,
	QUIC_TPB_ACK_DELAY_EXPONENT,
	QUIC_TPB_MAX_ACK_DELAY,
	QUIC_TPB_DISABLE_ACTIVE_MIGRATION,
	QUIC_TPB_PREFERRED_ADDRESS,
	QUIC_TPB_ACTIVE_CONNECTION_ID_LIMIT,
	QUIC_TPB_INITIAL_SCID,
	QUIC_TPB_RETRY_SCID,
	QUIC_TPB_VERSION_INFORMATION,
	QUIC_TPB_MAX_DATAGRAM_FRAME_SIZE,
	QUIC_TPB_GREASE_QUIC_BIT,
	QUIC_TPB_MIN_ACK_DELAY,
	QUIC_TPB_MAX,
};

struct quic_tp_preferred_address {
	u8 ipv4[4];
	u16 ipv4_port;
	u8 ipv6[16];
	u16 ipv6_port;
	struct quic_cid cid;
	u8 token[QUIC_STATELESS_RESET_TOKEN_LEN];
};

struct quic_tp_version_info {
	u32 chosen;
	u8 n_available;		/* more are checked, then dropped; chosen kept */
	u32 available[QUIC_TP_MAX_VERSIONS];
};

/*
 * Decoded parameters with the RFC defaults for absent ones.  A value is
 * encoded only if its bit is set in @present (quic_tp_set() does both).
 */
struct quic_transport_params {
	u32 present;			/* BIT(enum quic_tp_bit) */
	struct quic_cid original_dcid;
	struct quic_cid initial_scid;
	struct quic_cid retry_scid;
	u8 stateless_reset_token[QUIC_STATELESS_RESET_TOKEN_LEN];
	u64 max_idle_timeout;		/* ms */
	u64 max_udp_payload_size;
	u64 initial_max_data;
	u64 initial_max_stream_data_bidi_local;
	u64 initial_max_stream_data_bidi_remote;
	u64 initial_max_stream_data_uni;
	u64 initial_max_streams_bidi;
	u64 initial_max_streams_uni;
	u64 ack_delay_exponent;
	u64 max_ack_delay;		/* ms */
	u64 active_connection_id_limit;
	u64 max_datagram_frame_size;
	u64 min_ack_delay;		/* us */
	bool disable_active_migration;
	bool grease_quic_bit;
	struct quic_tp_preferred_address preferred_address;
	struct quic_tp_version_info version_info;
};

static inline bool quic_tp_has(const struct quic_transport_params *tp,
			       enum quic_tp_bit bit)
{
	return tp->present & (1U << bit);
}

static inline void quic_tp_mark(struct quic_transport_params *tp,
				enum quic_tp_bit bit)
{
	tp->present |= 1U << bit;
}

void quic_tp_init(struct quic_transport_params *tp);
int quic_tp_set(struct quic_transport_params *tp, enum quic_tp_bit bit,
		u64 value);
int quic_tp_encode(u8 *buf, size_t len,
		   const struct quic_transport_params *tp);
int quic_tp_decode(const u8 *buf, size_t len, bool peer_is_server,
		   struct quic_transport_params *tp, u32 *terr);
int quic_tp_check_cids(const struct quic_transport_params *tp,
		       bool peer_is_server, const struct quic_cid *peer_scid,
		       const struct quic_cid *odcid,
		       const struct quic_cid *retry_scid, u32 *terr);
int quic_tp_check_version(const struct quic_transport_params *tp,
			  u32 version, u32 *terr);

#endif /* _NET_QUIC_TRANSPORT_PARAM_H */

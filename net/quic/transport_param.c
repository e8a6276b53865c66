// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC transport parameters codec.
 *
 * Each known parameter is described once in quic_tp_table (id, kind, where
 * it lives in the struct, allowed range, whether only a server may send it),
 * and the encoder, decoder and setter are driven by that table.
 */

#include <linux/kernel.h>
#include <linux/stddef.h>

#include "transport_param.h"
#include "varint.h"

enum quic_tp_kind {
	QUIC_TPK_INT,		/* one varint */
	QUIC_TPK_FLAG,		/* empty value */
	QUIC_TPK_CID,		/* 0..20 bytes */
	QUIC_TPK_TOKEN,		/* 16 bytes */
	QUIC_TPK_PREF_ADDR,
	QUIC_TPK_VERSION_INFO,
};

struct quic_tp_desc {
	u64 id;
	u8 bit;			/* enum quic_tp_bit */
	u8 kind;		/* enum quic_tp_kind */
	bool server_only;	/* §18.2: a client must not send it */
	u16 off;		/* offset of the field in the struct */
	u64 min, max;		/* QUIC_TPK_INT: valid values */
};

#define TP_INT(i, b, field, lo, hi) { .id = i, .bit = b, .kind = QUIC_TPK_INT, \
	.off = offsetof(struct quic_transport_params, field), .min = lo, .max = hi }
#define TP_FLAG(i, b, field) { .id = i, .bit = b, .kind = QUIC_TPK_FLAG, \
	.off = offsetof(struct quic_transport_params, field) }
#define TP_CID(i, b, field, so) { .id = i, .bit = b, .kind = QUIC_TPK_CID, \
	.off = offsetof(struct quic_transport_params, field), .server_only = so }

/* In encoding order, which is id order. */
static const struct quic_tp_desc quic_tp_table[] = {
	TP_CID(QUIC_TP_ORIGINAL_DESTINATION_CONNECTION_ID,
	       QUIC_TPB_ORIGINAL_DCID, original_dcid, true),
	TP_INT(QUIC_TP_MAX_IDLE_TIMEOUT, QUIC_TPB_MAX_IDLE_TIMEOUT,
	       max_idle_timeout, 0, QUIC_VARINT_MAX),
	{ .id = QUIC_TP_STATELESS_RESET_TOKEN,
	  .bit = QUIC_TPB_STATELESS_RESET_TOKEN,
	  .kind = QUIC_TPK_TOKEN, .server_only = true },
	TP_INT(QUIC_TP_MAX_UDP_PAYLOAD_SIZE, QUIC_TPB_MAX_UDP_PAYLOAD_SIZE,
	       max_udp_payload_size, QUIC_MIN_UDP_PAYLOAD, QUIC_VARINT_MAX),
	TP_INT(QUIC_TP_INITIAL_MAX_DATA, QUIC_TPB_INITIAL_MAX_DATA,
	       initial_max_data, 0, QUIC_VARINT_MAX),
	TP_INT(QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL,
	       QUIC_TPB_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL,
	       initial_max_stream_data_bidi_local, 0, QUIC_VARINT_MAX),
	TP_INT(QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE,
	       QUIC_TPB_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE,
	       initial_max_stream_data_bidi_remote, 0, QUIC_VARINT_MAX),
	TP_INT(QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI,
	       QUIC_TPB_INITIAL_MAX_STREAM_DATA_UNI,
	       initial_max_stream_data_uni, 0, QUIC_VARINT_MAX),
	TP_INT(QUIC_TP_INITIAL_MAX_STREAMS_BIDI,
	       QUIC_TPB_INITIAL_MAX_STREAMS_BIDI,
	       initial_max_streams_bidi, 0, QUIC_MAX_STREAMS_LIMIT),
	TP_INT(QUIC_TP_INITIAL_MAX_STREAMS_UNI,
	       QUIC_TPB_INITIAL_MAX_STREAMS_UNI,
	       initial_max_streams_uni, 0, QUIC_MAX_STREAMS_LIMIT),
	TP_INT(QUIC_TP_ACK_DELAY_EXPONENT, QUIC_TPB_ACK_DELAY_EXPONENT,
	       ack_delay_exponent, 0, QUIC_MAX_ACK_DELAY_EXPONENT),
	TP_INT(QUIC_TP_MAX_ACK_DELAY, QUIC_TPB_MAX_ACK_DELAY,
	       max_ack_delay, 0, QUIC_MAX_ACK_DELAY_LIMIT_MS - 1),
	TP_FLAG(QUIC_TP_DISABLE_ACTIVE_MIGRATION,
		QUIC_TPB_DISABLE_ACTIVE_MIGRATION, disable_active_migration),
	{ .id = QUIC_TP_PREFERRED_ADDRESS, .bit = QUIC_TPB_PREFERRED_ADDRESS,
	  .kind = QUIC_TPK_PREF_ADDR, .server_only = true },
	TP_INT(QUIC_TP_ACTIVE_CONNECTION_ID_LIMIT,
	       QUIC_TPB_ACTIVE_CONNECTION_ID_LIMIT,
	       active_connection_id_limit, QUIC_MIN_ACTIVE_CID_LIMIT,
	       QUIC_VARINT_MAX),
	TP_CID(QUIC_TP_INITIAL_SOURCE_CONNECTION_ID, QUIC_TPB_INITIAL_SCID,
	       initial_scid, false),
	TP_CID(QUIC_TP_RETRY_SOURCE_CONNECTION_ID, QUIC_TPB_RETRY_SCID,
	       retry_scid, true),
	{ .id = QUIC_TP_VERSION_INFORMATION,
	  .bit = QUIC_TPB_VERSION_INFORMATION,
	  .kind = QUIC_TPK_VERSION_INFO },
	TP_INT(QUIC_TP_MAX_DATAGRAM_FRAME_SIZE,
	       QUIC_TPB_MAX_DATAGRAM_FRAME_SIZE,
	       max_datagram_frame_size, 0, QUIC_VARINT_MAX),
	TP_FLAG(QUIC_TP_GREASE_QUIC_BIT, QUIC_TPB_GREASE_QUIC_BIT,
		grease_quic_bit),
	TP_INT(QUIC_TP_MIN_ACK_DELAY, QUIC_TPB_MIN_ACK_DELAY,
	       min_ack_delay, 0, QUIC_VARINT_MAX),
};

#undef TP_INT
#undef TP_FLAG
#undef TP_CID

static const struct quic_tp_desc *quic_tp_lookup(u64 id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(quic_tp_table); i++)
		if (quic_tp_table[i].id == id)
			return &quic_tp_table[i];
	return NULL;
}

static const struct quic_tp_desc *quic_tp_by_bit(enum quic_tp_bit bit)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(quic_tp_table); i++)
		if (quic_tp_table[i].bit == bit)
			return &quic_tp_table[i];
	return NULL;
}

static u64 *quic_tp_u64(struct quic_transport_params *tp,
			const struct quic_tp_desc *d)
{
	return (u64 *)((u8 *)tp + d->off);
}

static bool *quic_tp_bool(struct quic_transport_params *tp,
			  const struct quic_tp_desc *d)
{
	return (bool *)((u8 *)tp + d->off);
}

static struct quic_cid *quic_tp_cid(struct quic_transport_params *tp,
				    const struct quic_tp_desc *d)
{
	return (struct quic_cid *)((u8 *)tp + d->off);
}

/* Everything absent, with the defaults of RFC 9000 §18.2. */
void quic_tp_init(struct quic_transport_params *tp)
{
	memset(tp, 0, sizeof(*tp));
	tp->max_udp_payload_size = QUIC_DEF_MAX_UDP_PAYLOAD_SIZE;
	tp->ack_delay_exponent = QUIC_DEF_ACK_DELAY_EXPONENT;
	tp->max_ack_delay = QUIC_DEF_MAX_ACK_DELAY_MS;
	tp->active_connection_id_limit = QUIC_DEF_ACTIVE_CID_LIMIT;
}

/**
 * quic_tp_set - set an integer or flag parameter and mark it present
 * @tp: parameters
 * @bit: which one
 * @value: the value (0 or 1 for flags)
 *
 * Return: 0, or -EINVAL if @bit is not an integer/flag parameter or
 * @value is outside its valid range.
 */
int quic_tp_set(struct quic_transport_params *tp, enum quic_tp_bit bit,
		u64 value)
{
	const struct quic_tp_desc *d = quic_tp_by_bit(bit);

	if (!d)
		return -EINVAL;
	if (d->kind == QUIC_TPK_FLAG) {
		*quic_tp_bool(tp, d) = value;
		if (value)
			quic_tp_mark(tp, bit);
		else
			tp->present &= ~(1U << bit);
		return 0;
	}
	if (d->kind != QUIC_TPK_INT || value < d->min || value > d->max)
		return -EINVAL;
	*quic_tp_u64(tp, d) = value;
	quic_tp_mark(tp, bit);
	return 0;
}

/* Varint holding the value length, then the value: kept minimal. */
static int quic_tp_put_hdr(struct quic_wr *wr, u64 id, u64 len)
{
	int ret = quic_wr_varint(wr, id);

	return ret ?: quic_wr_varint(wr, len);
}

static int quic_tp_encode_pa(struct quic_wr *wr,
			     const struct quic_tp_preferred_address *pa)
{
	int ret;

	if (pa->cid.len < 1 || pa->cid.len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	ret = quic_tp_put_hdr(wr, QUIC_TP_PREFERRED_ADDRESS,
			      41 + pa->cid.len);
	ret = ret ?: quic_wr_bytes(wr, pa->ipv4, sizeof(pa->ipv4));
	ret = ret ?: quic_wr_be16(wr, pa->ipv4_port);
	ret = ret ?: quic_wr_bytes(wr, pa->ipv6, sizeof(pa->ipv6));
	ret = ret ?: quic_wr_be16(wr, pa->ipv6_port);
	ret = ret ?: quic_wr_u8(wr, pa->cid.len);
	ret = ret ?: quic_wr_bytes(wr, pa->cid.data, pa->cid.len);
	return ret ?: quic_wr_bytes(wr, pa->token, sizeof(pa->token));
}

static int quic_tp_encode_vi(struct quic_wr *wr,
			     const struct quic_tp_version_info *vi)
{
	int ret, i;

	if (!vi->chosen || vi->n_available > QUIC_TP_MAX_VERSIONS)
		return -EINVAL;
	ret = quic_tp_put_hdr(wr, QUIC_TP_VERSION_INFORMATION,
			      4 * (1 + vi->n_available));
	ret = ret ?: quic_wr_be32(wr, vi->chosen);
	for (i = 0; !ret && i < vi->n_available; i++) {
		if (!vi->available[i])
			return -EINVAL;
		ret = quic_wr_be32(wr, vi->available[i]);
	}
	return ret;
}

static int quic_tp_encode_one(struct quic_wr *wr,
			      const struct quic_transport_params *tp,
			      const struct quic_tp_desc *d)
{
	struct quic_transport_params *t = (struct quic_transport_params *)tp;
	const struct quic_cid *cid;
	u64 v;
	int ret;

	switch (d->kind) {
	case QUIC_TPK_INT:
		v = *quic_tp_u64(t, d);
		if (v < d->min || v > d->max)
			return -EINVAL;
		ret = quic_tp_put_hdr(wr, d->id, quic_varint_len(v));
		return ret ?: quic_wr_varint(wr, v);
	case QUIC_TPK_FLAG:
		return quic_tp_put_hdr(wr, d->id, 0);
	case QUIC_TPK_CID:
		cid = quic_tp_cid(t, d);
		if (cid->len > QUIC_CID_MAX_LEN)
			return -EINVAL;
		ret = quic_tp_put_hdr(wr, d->id, cid->len);
		return ret ?: quic_wr_bytes(wr, cid->data, cid->len);
	case QUIC_TPK_TOKEN:
		ret = quic_tp_put_hdr(wr, d->id, QUIC_STATELESS_RESET_TOKEN_LEN);
		return ret ?: quic_wr_bytes(wr, tp->stateless_reset_token,
					    QUIC_STATELESS_RESET_TOKEN_LEN);
	case QUIC_TPK_PREF_ADDR:
		return quic_tp_encode_pa(wr, &tp->preferred_address);
	case QUIC_TPK_VERSION_INFO:
		return quic_tp_encode_vi(wr, &tp->version_info);
	}
	return -EINVAL;
}

/**
 * quic_tp_encode - encode the parameters marked present in @tp
 * @buf: output
 * @len: room
 * @tp: parameters
 *
 * Return: bytes written, -ENOSPC, or -EINVAL if a present value is out of
 * range (so that we never send what quic_tp_decode() would refuse).
 */
int quic_tp_encode(u8 *buf, size_t len, const struct quic_transport_params *tp)
{
	struct quic_wr wr;
	size_t i;
	int ret;

	quic_wr_init(&wr, buf, len);
	for (i = 0; i < ARRAY_SIZE(quic_tp_table); i++) {
		if (!quic_tp_has(tp, quic_tp_table[i].bit))
			continue;
		ret = quic_tp_encode_one(&wr, tp, &quic_tp_table[i]);
		if (ret)
			return ret;
	}
	return wr.p - buf;
}

static int quic_tp_decode_pa(struct quic_rd *rd,
			     struct quic_tp_preferred_address *pa)
{
	if (quic_rd_copy(rd, pa->ipv4, sizeof(pa->ipv4)) ||
	    quic_rd_be16(rd, &pa->ipv4_port) ||
	    quic_rd_copy(rd, pa->ipv6, sizeof(pa->ipv6)) ||
	    quic_rd_be16(rd, &pa->ipv6_port) ||
	    quic_rd_u8(rd, &pa->cid.len))
		return -EBADMSG;
	/* §18.2: a zero-length CID is not allowed here. */
	if (pa->cid.len < 1 || pa->cid.len > QUIC_CID_MAX_LEN)
		return -EBADMSG;
	if (quic_rd_copy(rd, pa->cid.data, pa->cid.len) ||
	    quic_rd_copy(rd, pa->token, sizeof(pa->token)))
		return -EBADMSG;
	return 0;
}

static int quic_tp_decode_vi(struct quic_rd *rd, bool peer_is_server,
			     struct quic_tp_version_info *vi)
{
	bool found = false;
	u32 v;

	/* RFC 9368 §4: whole versions, none of them 0. */
	if (quic_rd_left(rd) % 4 || quic_rd_be32(rd, &vi->chosen) ||
	    !vi->chosen)
		return -EBADMSG;
	while (quic_rd_left(rd)) {
		if (quic_rd_be32(rd, &v) || !v)
			return -EBADMSG;
		/*
		 * Only the first QUIC_TP_MAX_VERSIONS are kept, but the chosen
		 * one always is, so what we keep still passes this check.
		 */
		if (v == vi->chosen && !found &&
		    vi->n_available == QUIC_TP_MAX_VERSIONS)
			vi->available[QUIC_TP_MAX_VERSIONS - 1] = v;
		if (v == vi->chosen)
			found = true;
		if (vi->n_available < QUIC_TP_MAX_VERSIONS)
			vi->available[vi->n_available++] = v;
	}
	/* A client's Chosen Version must be one it offers. */
	if (!peer_is_server && !found)
		return -EBADMSG;
	return 0;
}

static int quic_tp_decode_value(struct quic_rd *rd, bool peer_is_server,
				struct quic_transport_params *tp,
				const struct quic_tp_desc *d)
{
	struct quic_cid *cid;
	u64 v;

	switch (d->kind) {
	case QUIC_TPK_INT:
		if (quic_rd_varint(rd, &v) || v < d->min || v > d->max)
			return -EBADMSG;
		*quic_tp_u64(tp, d) = v;
		return 0;
	case QUIC_TPK_FLAG:
		*quic_tp_bool(tp, d) = true;
		return 0;
	case QUIC_TPK_CID:
		cid = quic_tp_cid(tp, d);
		if (quic_rd_left(rd) > QUIC_CID_MAX_LEN)
			return -EBADMSG;
		cid->len = quic_rd_left(rd);
		return quic_rd_copy(rd, cid->data, cid->len);
	case QUIC_TPK_TOKEN:
		return quic_rd_copy(rd, tp->stateless_reset_token,
				    QUIC_STATELESS_RESET_TOKEN_LEN);
	case QUIC_TPK_PREF_ADDR:
		return quic_tp_decode_pa(rd, &tp->preferred_address);
	case QUIC_TPK_VERSION_INFO:
		return quic_tp_decode_vi(rd, peer_is_server, &tp->version_info);
	}
	return -EBADMSG;
}

/* Rules that involve more than one parameter. */
static int quic_tp_check(const struct quic_transport_params *tp)
{
	/* ack-frequency §3: min_ack_delay (us) <= max_ack_delay (ms). */
	if (quic_tp_has(tp, QUIC_TPB_MIN_ACK_DELAY) &&
	    tp->min_ack_delay > tp->max_ack_delay * 1000)
		return -EBADMSG;
	/* §18.2: no preferred address with a zero-length server CID. */
	if (quic_tp_has(tp, QUIC_TPB_PREFERRED_ADDRESS) &&
	    quic_tp_has(tp, QUIC_TPB_INITIAL_SCID) && !tp->initial_scid.len)
		return -EBADMSG;
	return 0;
}

/**
 * quic_tp_decode - decode and validate a peer's transport parameters
 * @buf: the extension body
 * @len: its length
 * @peer_is_server: the peer is the server (else server-only parameters
 *                  are refused)
 * @tp: result, RFC defaults for what is absent
 * @terr: TRANSPORT_PARAMETER_ERROR on failure
 *
 * Refused: truncation, a value that does not fill its length exactly, a
 * duplicate, an out-of-range value (§18.2), a server-only parameter from a
 * client, malformed preferred_address or version_information, min_ack_delay
 * above max_ack_delay.  Unknown and reserved (31 * N + 27) ids are skipped;
 * duplicates of those are not detected (that would need unbounded state).
 * The connection ID checks of §7.3 need the packets: quic_tp_check_cids().
 *
 * Return: 0, or -EPROTO.
 */
int quic_tp_decode(const u8 *buf, size_t len, bool peer_is_server,
		   struct quic_transport_params *tp, u32 *terr)
{
	const struct quic_tp_desc *d;
	struct quic_rd rd, val;
	const u8 *p;
	u64 id, vlen;

	quic_tp_init(tp);
	quic_rd_init(&rd, buf, len);
	while (quic_rd_left(&rd)) {
		if (quic_rd_varint(&rd, &id) || quic_rd_varint(&rd, &vlen) ||
		    quic_rd_ptr(&rd, vlen, &p))
			goto err;
		d = quic_tp_lookup(id);
		if (!d)
			continue;
		if (quic_tp_has(tp, d->bit) ||
		    (d->server_only && !peer_is_server))
			goto err;
		quic_rd_init(&val, p, vlen);
		if (quic_tp_decode_value(&val, peer_is_server, tp, d) ||
		    quic_rd_left(&val))
			goto err;
		quic_tp_mark(tp, d->bit);
	}
	if (quic_tp_check(tp))
		goto err;
	return 0;
err:
	*terr = QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM;
	return -EPROTO;
}

static bool quic_tp_cid_matches(const struct quic_transport_params *tp,
				enum quic_tp_bit bit,
				const struct quic_cid *have,
				const struct quic_cid *want)
{
	if (!want)
		return !quic_tp_has(tp, bit);
	return quic_tp_has(tp, bit) && quic_cid_eq(have, want);
}

/**
 * quic_tp_check_cids - authenticate the connection IDs (RFC 9000 §7.3)
 * @tp: the peer's decoded parameters
 * @peer_is_server: the peer is the server
 * @peer_scid: Source Connection ID of the peer's Initial packets
 * @odcid: server only: DCID of the client's first Initial (we are client)
 * @retry_scid: SCID of the Retry we acted on, or NULL if none
 * @terr: TRANSPORT_PARAMETER_ERROR on failure
 *
 * Both sides need initial_source_connection_id; a server also owes
 * original_destination_connection_id, and retry_source_connection_id
 * exactly when a Retry was sent.
 *
 * Return: 0, or -EPROTO.
 */
int quic_tp_check_cids(const struct quic_transport_params *tp,
		       bool peer_is_server, const struct quic_cid *peer_scid,
		       const struct quic_cid *odcid,
		       const struct quic_cid *retry_scid, u32 *terr)
{
	if (!quic_tp_cid_matches(tp, QUIC_TPB_INITIAL_SCID, &tp->initial_scid,
				 peer_scid))
		goto err;
	if (peer_is_server &&
	    (!quic_tp_cid_matches(tp, QUIC_TPB_ORIGINAL_DCID,
				  &tp->original_dcid, odcid) ||
	     !quic_tp_cid_matches(tp, QUIC_TPB_RETRY_SCID, &tp->retry_scid,
				  retry_scid)))
		goto err;
	return 0;
err:
	*terr = QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM;
	return -EPROTO;
}

/**
 * quic_tp_check_version - the peer's version_information (RFC 9368 §4)
 * @tp: the peer's decoded parameters
 * @version: the version of the connection's long header packets
 * @terr: VERSION_NEGOTIATION_ERROR on failure
 *
 * Without the parameter the handshake goes on (§4 allows it when the
 * client did not react to a Version Negotiation packet, and ours never
 * does: version.c).  With it, the Chosen Version must be @version: a
 * server checks the client's against the version its first Initial
 * used (before any move to another version), and a client the server's
 * against the version it ended in: the one it started in, or the one the
 * server's Initials moved it to (compatvn.c).
 *
 * Return: 0, or -EPROTO.
 */
int quic_tp_check_version(const struct quic_transport_params *tp,
			  u32 version, u32 *terr)
{
	if (!quic_tp_has(tp, QUIC_TPB_VERSION_INFORMATION) ||
	    tp->version_info.chosen == version)
		return 0;
	*terr = QUIC_TRANSPORT_ERROR_VERSION_NEGOTIATION;
	return -EPROTO;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC frame codec and frame rules.
 *
 * The decoder checks everything that can be checked from the bytes and the
 * packet type alone; rules that need connection state (stream limits, flow
 * control, whether we advertised max_datagram_frame_size...) are left to the
 * caller, with helpers in flow.h.
 */

#include <linux/kernel.h>

#include "frame.h"
#include "varint.h"

#define PI	BIT(QUIC_PKT_INITIAL)
#define PZ	BIT(QUIC_PKT_0RTT)
#define PH	BIT(QUIC_PKT_HANDSHAKE)
#define P1	BIT(QUIC_PKT_1RTT)

#define AE	QUIC_FRAME_F_ACK_ELICITING
#define IF	QUIC_FRAME_F_IN_FLIGHT
#define PR	QUIC_FRAME_F_PROBING
#define FC	QUIC_FRAME_F_FLOW_CONTROLLED
#define SO	QUIC_FRAME_F_SERVER_ONLY

/*
 * RFC 9000 Table 3, with two deliberate readings:
 * - 0-RTT excludes ACK, CRYPTO, HANDSHAKE_DONE, NEW_TOKEN, PATH_RESPONSE
 *   and RETIRE_CONNECTION_ID (§12.5, §17.2.3), which is stricter than the
 *   table for RETIRE_CONNECTION_ID;
 * - CONNECTION_CLOSE is not in flight: RFC 9002 §2 counts only
 *   ack-eliciting packets and PADDING, and nothing would ever ack it.
 */
static const struct quic_frame_info quic_frame_table[] = {
	[QUIC_FRAME_PADDING]		= { PI | PH | PZ | P1, IF | PR },
	[QUIC_FRAME_PING]		= { PI | PH | PZ | P1, AE | IF },
	[QUIC_FRAME_ACK]		= { PI | PH | P1, 0 },
	[QUIC_FRAME_ACK_ECN]		= { PI | PH | P1, 0 },
	[QUIC_FRAME_RESET_STREAM]	= { PZ | P1, AE | IF },
	[QUIC_FRAME_STOP_SENDING]	= { PZ | P1, AE | IF },
	[QUIC_FRAME_CRYPTO]		= { PI | PH | P1, AE | IF },
	[QUIC_FRAME_NEW_TOKEN]		= { P1, AE | IF | SO },
	[0x08 ... 0x0f]			= { PZ | P1, AE | IF | FC },
	[QUIC_FRAME_MAX_DATA]		= { PZ | P1, AE | IF },
	[QUIC_FRAME_MAX_STREAM_DATA]	= { PZ | P1, AE | IF },
	[QUIC_FRAME_MAX_STREAMS_BIDI]	= { PZ | P1, AE | IF },
	[QUIC_FRAME_MAX_STREAMS_UNI]	= { PZ | P1, AE | IF },
	[QUIC_FRAME_DATA_BLOCKED]	= { PZ | P1, AE | IF },
	[QUIC_FRAME_STREAM_DATA_BLOCKED] = { PZ | P1, AE | IF },
	[QUIC_FRAME_STREAMS_BLOCKED_BIDI] = { PZ | P1, AE | IF },
	[QUIC_FRAME_STREAMS_BLOCKED_UNI] = { PZ | P1, AE | IF },
	[QUIC_FRAME_NEW_CONNECTION_ID]	= { PZ | P1, AE | IF | PR },
	[QUIC_FRAME_RETIRE_CONNECTION_ID] = { P1, AE | IF },
	[QUIC_FRAME_PATH_CHALLENGE]	= { PZ | P1, AE | IF | PR },
	[QUIC_FRAME_PATH_RESPONSE]	= { P1, AE | IF | PR },
	[QUIC_FRAME_CONNECTION_CLOSE]	= { PI | PH | PZ | P1, 0 },
	[QUIC_FRAME_CONNECTION_CLOSE_APP] = { PZ | P1, 0 },
	[QUIC_FRAME_HANDSHAKE_DONE]	= { P1, AE | IF | SO },
	/* ack-frequency §4: not in 0-RTT, min_ack_delay is not remembered */
	[QUIC_FRAME_IMMEDIATE_ACK]	= { P1, AE | IF },
};

static const struct quic_frame_info quic_frame_datagram_info = {
	PZ | P1, AE | IF
};

static const struct quic_frame_info quic_frame_ack_freq_info = {
	P1, AE | IF
};

/* Return: the rules for frame @type, or NULL if we do not know it. */
const struct quic_frame_info *quic_frame_info(u64 type)
{
	if (type < ARRAY_SIZE(quic_frame_table))
		return &quic_frame_table[type];
	if (type == QUIC_FRAME_DATAGRAM || type == QUIC_FRAME_DATAGRAM_LEN)
		return &quic_frame_datagram_info;
	if (type == QUIC_FRAME_ACK_FREQUENCY)
		return &quic_frame_ack_freq_info;
	return NULL;
}

#undef PI
#undef PZ
#undef PH
#undef P1
#undef AE
#undef IF
#undef PR
#undef FC
#undef SO

/*
 * Body decoders return 0, -EBADMSG when the bytes run out or a field is
 * malformed (FRAME_ENCODING_ERROR), or -EPROTO with *terr set for the
 * other errors.
 */

static int quic_ack_decode(struct quic_rd *rd, struct quic_frame *f)
{
	struct quic_frame_ack *ack = &f->ack;
	u64 smallest, gap, rlen, i;

	if (quic_rd_varint(rd, &ack->largest) ||
	    quic_rd_varint(rd, &ack->delay) ||
	    quic_rd_varint(rd, &ack->range_count) ||
	    quic_rd_varint(rd, &ack->first_range))
		return -EBADMSG;
	if (ack->first_range > ack->largest)
		return -EBADMSG;
	smallest = ack->largest - ack->first_range;
	/* Each pair takes at least two bytes: bounds the loop by @len. */
	if (ack->range_count > quic_rd_left(rd) / 2)
		return -EBADMSG;
	ack->ranges = rd->p;
	for (i = 0; i < ack->range_count; i++) {
		if (quic_rd_varint(rd, &gap) || quic_rd_varint(rd, &rlen))
			return -EBADMSG;
		/* §19.3.1: a range below packet number 0 is malformed. */
		if (smallest < gap + 2 || smallest - gap - 2 < rlen)
			return -EBADMSG;
		smallest = smallest - gap - 2 - rlen;
	}
	ack->ranges_len = rd->p - ack->ranges;
	ack->ecn = f->type == QUIC_FRAME_ACK_ECN;
	if (ack->ecn &&
	    (quic_rd_varint(rd, &ack->ect0) ||
	     quic_rd_varint(rd, &ack->ect1) ||
	     quic_rd_varint(rd, &ack->ce)))
		return -EBADMSG;
	return 0;
}

static int quic_stream_decode(struct quic_rd *rd, struct quic_frame *f)
{
	struct quic_frame_stream *s = &f->stream;

	if (quic_rd_varint(rd, &s->id))
		return -EBADMSG;
	if ((f->type & QUIC_STREAM_BIT_OFF) && quic_rd_varint(rd, &s->offset))
		return -EBADMSG;
	if (!(f->type & QUIC_STREAM_BIT_LEN))
		s->len = quic_rd_left(rd);
	else if (quic_rd_varint(rd, &s->len))
		return -EBADMSG;
	if (quic_rd_ptr(rd, s->len, &s->data))
		return -EBADMSG;
	/* §19.8: offset + length may not pass 2^62 - 1. */
	if (s->len > QUIC_VARINT_MAX - s->offset)
		return -EBADMSG;
	return 0;
}

static int quic_crypto_decode(struct quic_rd *rd, struct quic_frame *f)
{
	if (quic_rd_varint(rd, &f->crypto.offset) ||
	    quic_rd_varint(rd, &f->crypto.len) ||
	    quic_rd_ptr(rd, f->crypto.len, &f->crypto.data))
		return -EBADMSG;
	if (f->crypto.len > QUIC_VARINT_MAX - f->crypto.offset)
		return -EBADMSG;
	return 0;
}

static int quic_new_cid_decode(struct quic_rd *rd, struct quic_frame *f)
{
	struct quic_frame_new_cid *nc = &f->new_cid;
	u8 cid_len;

	if (quic_rd_varint(rd, &nc->seq) ||
	    quic_rd_varint(rd, &nc->retire_prior_to) ||
	    quic_rd_u8(rd, &cid_len))
		return -EBADMSG;
	/* §19.15: length 1..20, Retire Prior To <= Sequence Number. */
	if (cid_len < 1 || cid_len > QUIC_CID_MAX_LEN ||
	    nc->retire_prior_to > nc->seq)
		return -EBADMSG;
	nc->cid.len = cid_len;
	if (quic_rd_copy(rd, nc->cid.data, cid_len) ||
	    quic_rd_copy(rd, nc->token, sizeof(nc->token)))
		return -EBADMSG;
	return 0;
}

static int quic_close_decode(struct quic_rd *rd, struct quic_frame *f)
{
	struct quic_frame_close *c = &f->close;

	if (quic_rd_varint(rd, &c->error_code))
		return -EBADMSG;
	if (f->type == QUIC_FRAME_CONNECTION_CLOSE &&
	    quic_rd_varint(rd, &c->frame_type))
		return -EBADMSG;
	if (quic_rd_varint(rd, &c->reason_len) ||
	    quic_rd_ptr(rd, c->reason_len, &c->reason))
		return -EBADMSG;
	return 0;
}

static int quic_datagram_decode(struct quic_rd *rd, struct quic_frame *f)
{
	if (f->type == QUIC_FRAME_DATAGRAM)
		f->datagram.len = quic_rd_left(rd);
	else if (quic_rd_varint(rd, &f->datagram.len))
		return -EBADMSG;
	return quic_rd_ptr(rd, f->datagram.len, &f->datagram.data);
}

static int quic_ack_freq_decode(struct quic_rd *rd, struct quic_frame *f,
				u32 *terr)
{
	struct quic_frame_ack_frequency *af = &f->ack_freq;

	if (quic_rd_varint(rd, &af->seq) ||
	    quic_rd_varint(rd, &af->ack_eliciting_threshold) ||
	    quic_rd_varint(rd, &af->request_max_ack_delay) ||
	    quic_rd_varint(rd, &af->reordering_threshold))
		return -EBADMSG;
	/*
	 * 2^14 ms and above is never a valid max_ack_delay; the comparison
	 * with our min_ack_delay is the caller's.
	 */
	if (af->request_max_ack_delay >= QUIC_MAX_ACK_DELAY_LIMIT_MS * 1000ULL) {
		*terr = QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
		return -EPROTO;
	}
	return 0;
}

static int quic_padding_decode(struct quic_rd *rd, struct quic_frame *f)
{
	/* A run of PADDING is one frame: one call per padded packet. */
	f->padding_len = 1;
	while (rd->p < rd->end && !*rd->p) {
		rd->p++;
		f->padding_len++;
	}
	return 0;
}

static int quic_limit_decode(struct quic_rd *rd, struct quic_frame *f)
{
	if (quic_rd_varint(rd, &f->limit))
		return -EBADMSG;
	/* §19.11, §19.14: more than 2^60 streams cannot be addressed. */
	if (f->type >= QUIC_FRAME_MAX_STREAMS_BIDI &&
	    f->type != QUIC_FRAME_DATA_BLOCKED &&
	    f->limit > QUIC_MAX_STREAMS_LIMIT)
		return -EBADMSG;
	return 0;
}

static int quic_frame_body_decode(struct quic_rd *rd, struct quic_frame *f,
				  u32 *terr)
{
	switch (f->type) {
	case QUIC_FRAME_PADDING:
		return quic_padding_decode(rd, f);
	case QUIC_FRAME_PING:
	case QUIC_FRAME_HANDSHAKE_DONE:
	case QUIC_FRAME_IMMEDIATE_ACK:
		return 0;
	case QUIC_FRAME_ACK:
	case QUIC_FRAME_ACK_ECN:
		return quic_ack_decode(rd, f);
	case QUIC_FRAME_RESET_STREAM:
		if (quic_rd_varint(rd, &f->reset_stream.id) ||
		    quic_rd_varint(rd, &f->reset_stream.error_code) ||
		    quic_rd_varint(rd, &f->reset_stream.final_size))
			return -EBADMSG;
		return 0;
	case QUIC_FRAME_STOP_SENDING:
		if (quic_rd_varint(rd, &f->stop_sending.id) ||
		    quic_rd_varint(rd, &f->stop_sending.error_code))
			return -EBADMSG;
		return 0;
	case QUIC_FRAME_CRYPTO:
		return quic_crypto_decode(rd, f);
	case QUIC_FRAME_NEW_TOKEN:
		if (quic_rd_varint(rd, &f->new_token.len) ||
		    quic_rd_ptr(rd, f->new_token.len, &f->new_token.token))
			return -EBADMSG;
		/* §19.7: an empty token is a FRAME_ENCODING_ERROR. */
		return f->new_token.len ? 0 : -EBADMSG;
	case QUIC_FRAME_MAX_DATA:
	case QUIC_FRAME_MAX_STREAMS_BIDI:
	case QUIC_FRAME_MAX_STREAMS_UNI:
	case QUIC_FRAME_DATA_BLOCKED:
	case QUIC_FRAME_STREAMS_BLOCKED_BIDI:
	case QUIC_FRAME_STREAMS_BLOCKED_UNI:
		return quic_limit_decode(rd, f);
	case QUIC_FRAME_MAX_STREAM_DATA:
	case QUIC_FRAME_STREAM_DATA_BLOCKED:
		if (quic_rd_varint(rd, &f->stream_limit.id) ||
		    quic_rd_varint(rd, &f->stream_limit.limit))
			return -EBADMSG;
		return 0;
	case QUIC_FRAME_NEW_CONNECTION_ID:
		return quic_new_cid_decode(rd, f);
	case QUIC_FRAME_RETIRE_CONNECTION_ID:
		return quic_rd_varint(rd, &f->retire_seq);
	case QUIC_FRAME_PATH_CHALLENGE:
	case QUIC_FRAME_PATH_RESPONSE:
		return quic_rd_copy(rd, f->path_data, sizeof(f->path_data));
	case QUIC_FRAME_CONNECTION_CLOSE:
	case QUIC_FRAME_CONNECTION_CLOSE_APP:
		return quic_close_decode(rd, f);
	case QUIC_FRAME_DATAGRAM:
	case QUIC_FRAME_DATAGRAM_LEN:
		return quic_datagram_decode(rd, f);
	case QUIC_FRAME_ACK_FREQUENCY:
		return quic_ack_freq_decode(rd, f, terr);
	}
	if (quic_frame_is_stream(f->type))
		return quic_stream_decode(rd, f);
	return -EBADMSG;
}

/**
 * quic_frame_decode - decode the frame at @buf
 * @buf: frame bytes, the rest of the packet payload
 * @len: bytes left in the payload
 * @pkt_type: enum quic_packet_type of the packet carrying it
 * @peer_is_server: the sender is a server (for server-only frames)
 * @f: result
 * @terr: transport error on -EPROTO
 *
 * Errors (all -EPROTO):
 * - FRAME_ENCODING_ERROR: unknown type, truncated or malformed body;
 * - PROTOCOL_VIOLATION: type not minimally encoded (§12.4), frame not
 *   allowed in @pkt_type (§12.4) or from a client (§19.7, §19.20), an
 *   impossible ACK_FREQUENCY delay.
 *
 * Return: bytes consumed (> 0), or -EPROTO.
 */
int quic_frame_decode(const u8 *buf, size_t len, u8 pkt_type,
		      bool peer_is_server, struct quic_frame *f, u32 *terr)
{
	const struct quic_frame_info *fi;
	struct quic_rd rd;
	unsigned int n;
	int ret;

	memset(f, 0, sizeof(*f));
	quic_rd_init(&rd, buf, len);
	if (quic_rd_varint_n(&rd, &f->type, &n))
		goto encoding;
	fi = quic_frame_info(f->type);
	if (!fi)
		goto encoding;
	if (n != quic_varint_len(f->type) || !quic_frame_allowed(f->type, pkt_type))
		goto violation;
	if ((fi->flags & QUIC_FRAME_F_SERVER_ONLY) && !peer_is_server)
		goto violation;
	ret = quic_frame_body_decode(&rd, f, terr);
	if (ret == -EPROTO)
		return ret;
	if (ret)
		goto encoding;
	return len - quic_rd_left(&rd);

encoding:
	*terr = QUIC_TRANSPORT_ERROR_FRAME_ENCODING;
	return -EPROTO;
violation:
	*terr = QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
	return -EPROTO;
}

void quic_ack_iter_init(struct quic_ack_iter *it,
			const struct quic_frame_ack *ack)
{
	it->p = ack->ranges;
	it->end = ack->ranges + ack->ranges_len;
	it->left = ack->range_count + 1;
	it->next_largest = ack->largest;
	it->next_len = ack->first_range;
}

/**
 * quic_ack_iter_next - next acknowledged range, largest first
 * @it: iterator set up on a frame that quic_frame_decode() accepted
 * @smallest: first packet number of the range
 * @largest: last packet number of the range
 *
 * Underflow is checked again, so a hand-built frame cannot make it wrap.
 *
 * Return: true if a range was returned.
 */
bool quic_ack_iter_next(struct quic_ack_iter *it, u64 *smallest,
			u64 *largest)
{
	struct quic_rd rd;
	u64 gap, len;

	if (!it->left || it->next_len > it->next_largest)
		return false;
	*largest = it->next_largest;
	*smallest = it->next_largest - it->next_len;
	it->left--;
	if (!it->left)
		return true;
	quic_rd_init(&rd, it->p, it->end - it->p);
	if (quic_rd_varint(&rd, &gap) || quic_rd_varint(&rd, &len) ||
	    *smallest < gap + 2) {
		it->left = 0;
		return true;
	}
	it->p = rd.p;
	it->next_largest = *smallest - gap - 2;
	it->next_len = len;
	return true;
}

static int quic_ack_encode(struct quic_wr *wr, const struct quic_frame *f)
{
	const struct quic_frame_ack *ack = &f->ack;
	int ret;

	if (ack->first_range > ack->largest)
		return -EINVAL;
	ret = quic_wr_varint(wr, ack->largest);
	ret = ret ?: quic_wr_varint(wr, ack->delay);
	ret = ret ?: quic_wr_varint(wr, ack->range_count);
	ret = ret ?: quic_wr_varint(wr, ack->first_range);
	ret = ret ?: quic_wr_bytes(wr, ack->ranges, ack->ranges_len);
	if (!ret && f->type == QUIC_FRAME_ACK_ECN) {
		ret = quic_wr_varint(wr, ack->ect0);
		ret = ret ?: quic_wr_varint(wr, ack->ect1);
		ret = ret ?: quic_wr_varint(wr, ack->ce);
	}
	return ret;
}

static int quic_stream_encode(struct quic_wr *wr, const struct quic_frame *f)
{
	const struct quic_frame_stream *s = &f->stream;
	int ret;

	if ((!(f->type & QUIC_STREAM_BIT_OFF) && s->offset) ||
	    s->len > QUIC_VARINT_MAX - s->offset)
		return -EINVAL;
	ret = quic_wr_varint(wr, s->id);
	if (!ret && (f->type & QUIC_STREAM_BIT_OFF))
		ret = quic_wr_varint(wr, s->offset);
	if (!ret && (f->type & QUIC_STREAM_BIT_LEN))
		ret = quic_wr_varint(wr, s->len);
	return ret ?: quic_wr_bytes(wr, s->data, s->len);
}

static int quic_new_cid_encode(struct quic_wr *wr, const struct quic_frame *f)
{
	const struct quic_frame_new_cid *nc = &f->new_cid;
	int ret;

	if (nc->cid.len < 1 || nc->cid.len > QUIC_CID_MAX_LEN ||
	    nc->retire_prior_to > nc->seq)
		return -EINVAL;
	ret = quic_wr_varint(wr, nc->seq);
	ret = ret ?: quic_wr_varint(wr, nc->retire_prior_to);
	ret = ret ?: quic_wr_u8(wr, nc->cid.len);
	ret = ret ?: quic_wr_bytes(wr, nc->cid.data, nc->cid.len);
	return ret ?: quic_wr_bytes(wr, nc->token, sizeof(nc->token));
}

static int quic_close_encode(struct quic_wr *wr, const struct quic_frame *f)
{
	const struct quic_frame_close *c = &f->close;
	int ret;

	ret = quic_wr_varint(wr, c->error_code);
	if (!ret && f->type == QUIC_FRAME_CONNECTION_CLOSE)
		ret = quic_wr_varint(wr, c->frame_type);
	ret = ret ?: quic_wr_varint(wr, c->reason_len);
	return ret ?: quic_wr_bytes(wr, c->reason, c->reason_len);
}

static int quic_frame_body_encode(struct quic_wr *wr,
				  const struct quic_frame *f)
{
	const struct quic_frame_ack_frequency *af = &f->ack_freq;
	int ret;

	switch (f->type) {
	case QUIC_FRAME_PING:
	case QUIC_FRAME_HANDSHAKE_DONE:
	case QUIC_FRAME_IMMEDIATE_ACK:
		return 0;
	case QUIC_FRAME_ACK:
	case QUIC_FRAME_ACK_ECN:
		return quic_ack_encode(wr, f);
	case QUIC_FRAME_RESET_STREAM:
		ret = quic_wr_varint(wr, f->reset_stream.id);
		ret = ret ?: quic_wr_varint(wr, f->reset_stream.error_code);
		return ret ?: quic_wr_varint(wr, f->reset_stream.final_size);
	case QUIC_FRAME_STOP_SENDING:
		ret = quic_wr_varint(wr, f->stop_sending.id);
		return ret ?: quic_wr_varint(wr, f->stop_sending.error_code);
	case QUIC_FRAME_CRYPTO:
		if (f->crypto.len > QUIC_VARINT_MAX - f->crypto.offset)
			return -EINVAL;
		ret = quic_wr_varint(wr, f->crypto.offset);
		ret = ret ?: quic_wr_varint(wr, f->crypto.len);
		return ret ?: quic_wr_bytes(wr, f->crypto.data, f->crypto.len);
	case QUIC_FRAME_NEW_TOKEN:
		if (!f->new_token.len)
			return -EINVAL;
		ret = quic_wr_varint(wr, f->new_token.len);
		return ret ?: quic_wr_bytes(wr, f->new_token.token,
					    f->new_token.len);
	case QUIC_FRAME_MAX_STREAMS_BIDI:
	case QUIC_FRAME_MAX_STREAMS_UNI:
	case QUIC_FRAME_STREAMS_BLOCKED_BIDI:
	case QUIC_FRAME_STREAMS_BLOCKED_UNI:
		if (f->limit > QUIC_MAX_STREAMS_LIMIT)
			return -EINVAL;
		fallthrough;
	case QUIC_FRAME_MAX_DATA:
	case QUIC_FRAME_DATA_BLOCKED:
		return quic_wr_varint(wr, f->limit);
	case QUIC_FRAME_MAX_STREAM_DATA:
	case QUIC_FRAME_STREAM_DATA_BLOCKED:
		ret = quic_wr_varint(wr, f->stream_limit.id);
		return ret ?: quic_wr_varint(wr, f->stream_limit.limit);
	case QUIC_FRAME_NEW_CONNECTION_ID:
		return quic_new_cid_encode(wr, f);
	case QUIC_FRAME_RETIRE_CONNECTION_ID:
		return quic_wr_varint(wr, f->retire_seq);
	case QUIC_FRAME_PATH_CHALLENGE:
	case QUIC_FRAME_PATH_RESPONSE:
		return quic_wr_bytes(wr, f->path_data, sizeof(f->path_data));
	case QUIC_FRAME_CONNECTION_CLOSE:
	case QUIC_FRAME_CONNECTION_CLOSE_APP:
		return quic_close_encode(wr, f);
	case QUIC_FRAME_DATAGRAM_LEN:
		ret = quic_wr_varint(wr, f->datagram.len);
		if (ret)
			return ret;
		fallthrough;
	case QUIC_FRAME_DATAGRAM:
		return quic_wr_bytes(wr, f->datagram.data, f->datagram.len);
	case QUIC_FRAME_ACK_FREQUENCY:
		ret = quic_wr_varint(wr, af->seq);
		ret = ret ?: quic_wr_varint(wr, af->ack_eliciting_threshold);
		ret = ret ?: quic_wr_varint(wr, af->request_max_ack_delay);
		return ret ?: quic_wr_varint(wr, af->reordering_threshold);
	}
	if (quic_frame_is_stream(f->type))
		return quic_stream_encode(wr, f);
	return -EINVAL;
}

/**
 * quic_frame_encode - encode @f
 * @buf: output
 * @len: room
 * @f: frame; f->type selects the form (ACK vs ACK_ECN, STREAM flag bits,
 *     DATAGRAM with or without Length).  PADDING writes padding_len zero
 *     bytes.  ACK ranges are copied as given (see quic_ack_ranges_encode()
 *     to build them from a set).
 *
 * Return: bytes written, -ENOSPC if it does not fit, -EINVAL if @f cannot
 * be encoded.
 */
int quic_frame_encode(u8 *buf, size_t len, const struct quic_frame *f)
{
	struct quic_wr wr;
	int ret;

	if (!quic_frame_info(f->type))
		return -EINVAL;
	quic_wr_init(&wr, buf, len);
	if (f->type == QUIC_FRAME_PADDING) {
		if (!f->padding_len)
			return -EINVAL;
		ret = quic_wr_zero(&wr, f->padding_len);
	} else {
		ret = quic_wr_varint(&wr, f->type);
		ret = ret ?: quic_frame_body_encode(&wr, f);
	}
	return ret ?: wr.p - buf;
}

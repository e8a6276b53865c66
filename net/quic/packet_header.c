// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC packet headers: parsing of protected headers, completion after
 * header protection removal, encoding, and packet number arithmetic.
 */

#include <linux/kernel.h>

#include "packet_header.h"
#include "varint.h"

int quic_cid_set(struct quic_cid *cid, const u8 *data, size_t len)
{
	if (len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	cid->len = len;
	if (len)
		memcpy(cid->data, data, len);
	return 0;
}

/*
 * Long header type bits: v2 rotates them so that middleboxes do not
 * ossify on v1's values (RFC 9369 §3.2).
 */
static const u8 quic_v1_type_bits[] = {
	[QUIC_PKT_INITIAL]	= 0,
	[QUIC_PKT_0RTT]		= 1,
	[QUIC_PKT_HANDSHAKE]	= 2,
	[QUIC_PKT_RETRY]	= 3,
};

static const u8 quic_v2_type_bits[] = {
	[QUIC_PKT_INITIAL]	= 1,
	[QUIC_PKT_0RTT]		= 2,
	[QUIC_PKT_HANDSHAKE]	= 3,
	[QUIC_PKT_RETRY]	= 0,
};

static const u8 *quic_type_bits_map(u32 version)
{
	if (version == QUIC_VERSION_V1)
		return quic_v1_type_bits;
	if (version == QUIC_VERSION_V2)
		return quic_v2_type_bits;
	return NULL;
}

/* Return: the two type bits (0..3), or -EINVAL. */
int quic_long_type_to_bits(u32 version, u8 type)
{
	const u8 *map = quic_type_bits_map(version);

	if (!map || type > QUIC_PKT_RETRY)
		return -EINVAL;
	return map[type];
}

/* Return: enum quic_packet_type, or -EPROTONOSUPPORT. */
int quic_long_bits_to_type(u32 version, u8 bits)
{
	const u8 *map = quic_type_bits_map(version);
	int t;

	if (!map)
		return -EPROTONOSUPPORT;
	for (t = QUIC_PKT_INITIAL; t <= QUIC_PKT_RETRY; t++)
		if (map[t] == (bits & 3))
			return t;
	return -EPROTONOSUPPORT;	/* not reached: the map is a bijection */
}

/**
 * quic_hdr_parse_invariant - parse the version-independent fields
 * @buf: datagram
 * @len: its length
 * @short_dcid_len: length of our connection IDs, which short headers omit
 * @inv: result; CID pointers point into @buf
 *
 * Return: bytes parsed, or -EBADMSG if truncated.
 */
int quic_hdr_parse_invariant(const u8 *buf, size_t len, u8 short_dcid_len,
			     struct quic_invariant *inv)
{
	struct quic_rd rd;
	u8 first;

	quic_rd_init(&rd, buf, len);
	memset(inv, 0, sizeof(*inv));
	if (quic_rd_u8(&rd, &first))
		return -EBADMSG;
	inv->long_form = first & QUIC_HDR_FORM_LONG;
	if (!inv->long_form) {
		inv->dcid_len = short_dcid_len;
		if (quic_rd_ptr(&rd, short_dcid_len, &inv->dcid))
			return -EBADMSG;
		goto out;
	}
	if (quic_rd_be32(&rd, &inv->version) ||
	    quic_rd_u8(&rd, &inv->dcid_len) ||
	    quic_rd_ptr(&rd, inv->dcid_len, &inv->dcid) ||
	    quic_rd_u8(&rd, &inv->scid_len) ||
	    quic_rd_ptr(&rd, inv->scid_len, &inv->scid))
		return -EBADMSG;
out:
	inv->len = len - quic_rd_left(&rd);
	return inv->len;
}

static int quic_hdr_parse_vn(struct quic_rd *rd, struct quic_hdr *hdr)
{
	size_t left = quic_rd_left(rd);

	/* A list that is empty or not whole versions is not a VN packet. */
	if (!left || left % 4)
		return -EBADMSG;
	hdr->type = QUIC_PKT_VERSION_NEGOTIATION;
	hdr->versions = rd->p;
	hdr->n_versions = left / 4;
	rd->p = rd->end;
	return 0;
}

static int quic_hdr_parse_retry(struct quic_rd *rd, struct quic_hdr *hdr)
{
	size_t left = quic_rd_left(rd);

	/* §17.2.5.2: a client discards a Retry with an empty token. */
	if (left <= QUIC_RETRY_INTEGRITY_TAG_LEN)
		return -EBADMSG;
	hdr->token = rd->p;
	hdr->token_len = left - QUIC_RETRY_INTEGRITY_TAG_LEN;
	hdr->retry_tag = rd->end - QUIC_RETRY_INTEGRITY_TAG_LEN;
	rd->p = rd->end;
	return 0;
}

/* Initial, 0-RTT and Handshake: [token], Length, then the packet number. */
static int quic_hdr_parse_length(struct quic_rd *rd, struct quic_hdr *hdr)
{
	if (hdr->type == QUIC_PKT_INITIAL) {
		if (quic_rd_varint(rd, &hdr->token_len) ||
		    quic_rd_ptr(rd, hdr->token_len, &hdr->token))
			return -EBADMSG;
	}
	if (quic_rd_varint(rd, &hdr->length))
		return -EBADMSG;
	/* The Length covers at least a packet number byte (§17.2). */
	if (!hdr->length || hdr->length > quic_rd_left(rd))
		return -EBADMSG;
	return 0;
}

static int quic_hdr_parse_long(const u8 *buf, size_t len,
			       const struct quic_invariant *inv,
			       struct quic_hdr *hdr)
{
	struct quic_rd rd;
	int type;

	hdr->version = inv->version;
	quic_rd_init(&rd, buf + inv->len, len - inv->len);
	if (inv->version == QUIC_VERSION_NEGOTIATION) {
		if (quic_cid_set(&hdr->dcid, inv->dcid, inv->dcid_len) ||
		    quic_cid_set(&hdr->scid, inv->scid, inv->scid_len))
			return -EBADMSG;
		return quic_hdr_parse_vn(&rd, hdr);
	}
	type = quic_long_bits_to_type(inv->version, (buf[0] >> 4) & 3);
	if (type < 0)
		return type;
	hdr->type = type;
	/* v1 and v2 cap CIDs at 20 bytes (§17.2: drop, do not answer). */
	if (quic_cid_set(&hdr->dcid, inv->dcid, inv->dcid_len) ||
	    quic_cid_set(&hdr->scid, inv->scid, inv->scid_len))
		return -EBADMSG;
	if (type == QUIC_PKT_RETRY)
		return quic_hdr_parse_retry(&rd, hdr);
	if (quic_hdr_parse_length(&rd, hdr))
		return -EBADMSG;
	hdr->pn_offset = len - quic_rd_left(&rd);
	hdr->pkt_len = hdr->pn_offset + hdr->length;
	return 0;
}

/**
 * quic_hdr_parse - parse a protected packet header up to the packet number
 * @buf: start of the packet (a datagram may hold several long ones)
 * @len: bytes from @buf to the end of the datagram
 * @short_dcid_len: length of our connection IDs (short headers omit it)
 * @hdr: result; token/versions/retry_tag point into @buf
 *
 * For Retry and Version Negotiation, pn_offset is 0 and pkt_len is @len.
 * The fixed bit is reported, not enforced: whether 0 is acceptable depends
 * on whether we advertised grease_quic_bit (RFC 9287 §3).
 *
 * Return: 0; -EBADMSG (drop); -EPROTONOSUPPORT for an unknown version (use
 * quic_hdr_parse_invariant() to build the Version Negotiation reply).
 */
int quic_hdr_parse(const u8 *buf, size_t len, u8 short_dcid_len,
		   struct quic_hdr *hdr)
{
	struct quic_invariant inv;
	int ret;

	memset(hdr, 0, sizeof(*hdr));
	if (short_dcid_len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	ret = quic_hdr_parse_invariant(buf, len, short_dcid_len, &inv);
	if (ret < 0)
		return ret;
	hdr->first = buf[0];
	hdr->fixed_bit = buf[0] & QUIC_HDR_FIXED_BIT;
	hdr->pkt_len = len;
	if (inv.long_form)
		return quic_hdr_parse_long(buf, len, &inv, hdr);

	hdr->type = QUIC_PKT_1RTT;
	quic_cid_set(&hdr->dcid, inv.dcid, inv.dcid_len);
	hdr->pn_offset = inv.len;
	if (hdr->pn_offset >= len)
		return -EBADMSG;
	return 0;
}

/**
 * quic_hdr_finish - decode what header protection hid
 * @hdr: from quic_hdr_parse() of a packet that carries a packet number
 * @pkt: the same packet, header protection removed
 * @len: bytes at @pkt
 * @largest_pn: largest packet number processed in this space, or
 *              QUIC_PN_NONE
 *
 * Sets first, pn_len, pn, and for short headers key_phase and spin.
 *
 * Return: the header length (offset of the payload; the AEAD associated
 * data), or -EBADMSG if the packet number runs past the packet.
 */
int quic_hdr_finish(struct quic_hdr *hdr, const u8 *pkt, size_t len,
		    u64 largest_pn)
{
	u64 truncated = 0;
	size_t end;
	int i;

	if (hdr->type > QUIC_PKT_HANDSHAKE && hdr->type != QUIC_PKT_1RTT)
		return -EINVAL;
	if (!len)
		return -EBADMSG;
	hdr->first = pkt[0];
	hdr->pn_len = (pkt[0] & QUIC_HDR_PN_LEN_MASK) + 1;
	end = hdr->pn_offset + hdr->pn_len;
	if (end > len || end > hdr->pkt_len)
		return -EBADMSG;
	for (i = 0; i < hdr->pn_len; i++)
		truncated = truncated << 8 | pkt[hdr->pn_offset + i];
	hdr->pn = quic_pn_decode(largest_pn, truncated, hdr->pn_len * 8);
	if (hdr->type == QUIC_PKT_1RTT) {
		hdr->key_phase = pkt[0] & QUIC_HDR_SHORT_KEY_PHASE;
		hdr->spin = pkt[0] & QUIC_HDR_SHORT_SPIN;
	}
	return end;
}

/**
 * quic_hdr_check_reserved - enforce the reserved header bits
 * @hdr: after quic_hdr_finish() and a successful AEAD open
 * @terr: transport error on failure
 *
 * Return: 0, or -EPROTO with PROTOCOL_VIOLATION (§17.2, §17.3.1).
 */
int quic_hdr_check_reserved(const struct quic_hdr *hdr, u32 *terr)
{
	u8 mask = hdr->type == QUIC_PKT_1RTT ? QUIC_HDR_SHORT_RESERVED :
					       QUIC_HDR_LONG_RESERVED;

	if (hdr->first & mask) {
		*terr = QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
		return -EPROTO;
	}
	return 0;
}

static int quic_wr_pn(struct quic_wr *wr, u64 pn, unsigned int pn_len)
{
	int i;

	if (quic_wr_left(wr) < pn_len)
		return -ENOSPC;
	for (i = pn_len - 1; i >= 0; i--)
		*wr->p++ = pn >> (8 * i);
	return 0;
}

static int quic_hdr_encode_long(struct quic_wr *wr, struct quic_hdr *hdr)
{
	int bits = quic_long_type_to_bits(hdr->version, hdr->type);
	unsigned int llen;
	u8 first;
	int ret;

	if (bits < 0 || hdr->type == QUIC_PKT_RETRY)
		return -EINVAL;
	llen = hdr->length_len ? hdr->length_len : quic_varint_len(hdr->length);
	first = QUIC_HDR_FORM_LONG | bits << 4 | (hdr->pn_len - 1);
	if (hdr->fixed_bit)
		first |= QUIC_HDR_FIXED_BIT;
	ret = quic_wr_u8(wr, first);
	ret = ret ?: quic_wr_be32(wr, hdr->version);
	ret = ret ?: quic_wr_u8(wr, hdr->dcid.len);
	ret = ret ?: quic_wr_bytes(wr, hdr->dcid.data, hdr->dcid.len);
	ret = ret ?: quic_wr_u8(wr, hdr->scid.len);
	ret = ret ?: quic_wr_bytes(wr, hdr->scid.data, hdr->scid.len);
	if (!ret && hdr->type == QUIC_PKT_INITIAL) {
		ret = quic_wr_varint(wr, hdr->token_len);
		ret = ret ?: quic_wr_bytes(wr, hdr->token, hdr->token_len);
	}
	ret = ret ?: quic_wr_varint_fixed(wr, hdr->length, llen);
	return ret;
}

/**
 * quic_hdr_encode - write an Initial, 0-RTT, Handshake or 1-RTT header
 * @buf: output
 * @len: room
 * @hdr: type, version, dcid, scid, token, length (and length_len to reserve
 *       a fixed size for it, see quic_hdr_set_length()), fixed_bit,
 *       key_phase, spin, pn and pn_len.  The reserved bits are written 0.
 *
 * Sets hdr->pn_offset and hdr->first.
 *
 * Return: header length including the packet number, -ENOSPC or -EINVAL.
 */
int quic_hdr_encode(u8 *buf, size_t len, struct quic_hdr *hdr)
{
	struct quic_wr wr;
	u8 first;
	int ret;

	if (hdr->pn_len < 1 || hdr->pn_len > QUIC_PN_MAX_LEN ||
	    hdr->dcid.len > QUIC_CID_MAX_LEN ||
	    hdr->scid.len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	quic_wr_init(&wr, buf, len);
	if (hdr->type != QUIC_PKT_1RTT) {
		ret = quic_hdr_encode_long(&wr, hdr);
	} else {
		first = hdr->pn_len - 1;
		if (hdr->fixed_bit)
			first |= QUIC_HDR_FIXED_BIT;
		if (hdr->spin)
			first |= QUIC_HDR_SHORT_SPIN;
		if (hdr->key_phase)
			first |= QUIC_HDR_SHORT_KEY_PHASE;
		ret = quic_wr_u8(&wr, first);
		ret = ret ?: quic_wr_bytes(&wr, hdr->dcid.data, hdr->dcid.len);
	}
	if (ret)
		return ret;
	hdr->pn_offset = wr.p - buf;
	ret = quic_wr_pn(&wr, hdr->pn, hdr->pn_len);
	if (ret)
		return ret;
	hdr->first = buf[0];
	return wr.p - buf;
}

/**
 * quic_hdr_set_length - fill in the Length field once the payload is known
 * @pkt: packet written by quic_hdr_encode() with a fixed hdr->length_len
 * @hdr: the header used to write it
 * @length: packet number + payload + AEAD tag length
 *
 * Return: 0, or -EINVAL if @length does not fit in hdr->length_len bytes.
 */
int quic_hdr_set_length(u8 *pkt, const struct quic_hdr *hdr, u64 length)
{
	unsigned int llen = hdr->length_len;
	int ret;

	if (!llen || hdr->type == QUIC_PKT_1RTT || hdr->pn_offset < llen)
		return -EINVAL;
	ret = quic_varint_encode_fixed(pkt + hdr->pn_offset - llen, llen,
				       length, llen);
	return ret < 0 ? ret : 0;
}

/**
 * quic_hdr_encode_retry - write a Retry packet without its integrity tag
 * @buf: output
 * @len: room
 * @version: QUIC version
 * @unused: value of the four unused first-byte bits (low nibble)
 * @dcid: the client's SCID
 * @scid: the server's new CID
 * @token: Retry token, not empty
 * @token_len: its length
 *
 * The crypto code computes the tag over quic_retry_pseudo_prefix() plus
 * these bytes (RFC 9001 §5.8) and appends it.
 *
 * Return: bytes written, -ENOSPC or -EINVAL.
 */
int quic_hdr_encode_retry(u8 *buf, size_t len, u32 version, u8 unused,
			  const struct quic_cid *dcid,
			  const struct quic_cid *scid,
			  const u8 *token, size_t token_len)
{
	int bits = quic_long_type_to_bits(version, QUIC_PKT_RETRY);
	struct quic_wr wr;
	int ret;

	if (bits < 0 || !token_len || dcid->len > QUIC_CID_MAX_LEN ||
	    scid->len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	quic_wr_init(&wr, buf, len);
	ret = quic_wr_u8(&wr, QUIC_HDR_FORM_LONG | QUIC_HDR_FIXED_BIT |
			 bits << 4 | (unused & 0x0f));
	ret = ret ?: quic_wr_be32(&wr, version);
	ret = ret ?: quic_wr_u8(&wr, dcid->len);
	ret = ret ?: quic_wr_bytes(&wr, dcid->data, dcid->len);
	ret = ret ?: quic_wr_u8(&wr, scid->len);
	ret = ret ?: quic_wr_bytes(&wr, scid->data, scid->len);
	ret = ret ?: quic_wr_bytes(&wr, token, token_len);
	return ret ?: wr.p - buf;
}

/* ODCID Length and ODCID that precede a Retry in its pseudo-packet. */
int quic_retry_pseudo_prefix(u8 *buf, size_t len,
			     const struct quic_cid *odcid)
{
	if (odcid->len > QUIC_CID_MAX_LEN)
		return -EINVAL;
	if (len < 1U + odcid->len)
		return -ENOSPC;
	buf[0] = odcid->len;
	memcpy(buf + 1, odcid->data, odcid->len);
	return 1 + odcid->len;
}

/**
 * quic_hdr_encode_vn - write a Version Negotiation packet (RFC 8999 §6)
 * @buf: output
 * @len: room
 * @unused: arbitrary value for the 7 low bits of the first byte
 * @dcid: the SCID of the packet that prompted it (up to 255 bytes)
 * @dcid_len: its length
 * @scid: the DCID of that packet
 * @scid_len: its length
 * @versions: versions we support, host order
 * @n_versions: how many, at least one
 *
 * Return: bytes written, -ENOSPC or -EINVAL.
 */
int quic_hdr_encode_vn(u8 *buf, size_t len, u8 unused,
		       const u8 *dcid, u8 dcid_len,
		       const u8 *scid, u8 scid_len,
		       const u32 *versions, size_t n_versions)
{
	struct quic_wr wr;
	size_t i;
	int ret;

	if (!n_versions)
		return -EINVAL;
	quic_wr_init(&wr, buf, len);
	ret = quic_wr_u8(&wr, QUIC_HDR_FORM_LONG | (unused & 0x7f));
	ret = ret ?: quic_wr_be32(&wr, QUIC_VERSION_NEGOTIATION);
	ret = ret ?: quic_wr_u8(&wr, dcid_len);
	ret = ret ?: quic_wr_bytes(&wr, dcid, dcid_len);
	ret = ret ?: quic_wr_u8(&wr, scid_len);
	ret = ret ?: quic_wr_bytes(&wr, scid, scid_len);
	for (i = 0; !ret && i < n_versions; i++)
		ret = quic_wr_be32(&wr, versions[i]);
	return ret ?: wr.p - buf;
}

/**
 * quic_pn_decode - recover a full packet number (RFC 9000 Appendix A.3)
 * @largest_pn: largest packet number processed in the space, or
 *              QUIC_PN_NONE before the first one (expected is then 0)
 * @truncated_pn: value of the Packet Number field
 * @pn_nbits: 8, 16, 24 or 32
 *
 * Return: the packet number closest to largest_pn + 1 whose low bits are
 * @truncated_pn, kept within [0, 2^62) (found by fuzzing: the RFC's
 * pseudocode can return 2^62 + x when largest_pn is 2^62 - 1).
 */
u64 quic_pn_decode(u64 largest_pn, u64 truncated_pn, unsigned int pn_nbits)
{
	u64 expected = largest_pn + 1;	/* QUIC_PN_NONE wraps to 0 */
	u64 win = 1ULL << pn_nbits;
	u64 hwin = win / 2;
	u64 mask = win - 1;
	u64 cand = (expected & ~mask) | (truncated_pn & mask);

	/* Written as in the RFC but without unsigned underflow. */
	if (cand + hwin <= expected && cand < (1ULL << 62) - win)
		return cand + win;
	if (cand > expected + hwin && cand >= win)
		return cand - win;
	/*
	 * With largest_pn at 2^62 - 1 the RFC's formula can land past the
	 * largest packet number there is; the only valid answer is below.
	 */
	if (cand > QUIC_PN_MAX)
		return cand - win;
	return cand;
}

/**
 * quic_pn_encode_len - bytes needed to send @full_pn (Appendix A.2)
 * @full_pn: packet number to send
 * @largest_acked: largest acknowledged in the space, or QUIC_PN_NONE
 *
 * The encoding must cover twice the distance to the largest acknowledged
 * packet so that the peer's decoder picks the right window.
 *
 * Return: 1..4.
 */
unsigned int quic_pn_encode_len(u64 full_pn, u64 largest_acked)
{
	/* With QUIC_PN_NONE this is full_pn + 1, as the RFC wants. */
	u64 range = (full_pn - largest_acked) * 2;

	if (range <= 1ULL << 8)
		return 1;
	if (range <= 1ULL << 16)
		return 2;
	if (range <= 1ULL << 24)
		return 3;
	return 4;
}

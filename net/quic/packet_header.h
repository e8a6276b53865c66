/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC packet headers (RFC 8999, RFC 9000 §17, RFC 9369) and packet number
 * encoding (RFC 9000 §17.1, Appendix A.2/A.3).  Error convention: see
 * varint.h.
 *
 * Receive side, in three steps because header protection hides the packet
 * number length and the low bits of the first byte:
 *   1. quic_hdr_parse() on the still protected packet: form, version, CIDs,
 *      token, Length, and the packet number offset the crypto code needs to
 *      take its sample.  Packets it rejects are dropped, never answered with
 *      a close (RFC 9000 §5.2).
 *   2. the crypto code removes header protection in place.
 *   3. quic_hdr_finish() reads the unmasked first byte and packet number;
 *      after AEAD succeeds, quic_hdr_check_reserved() enforces the reserved
 *      bits (§17.2: only an authenticated packet may close the connection).
 */

#ifndef _NET_QUIC_PACKET_HEADER_H
#define _NET_QUIC_PACKET_HEADER_H

#include <linux/types.h>
#include <linux/string.h>

#include "constants.h"

struct quic_cid {
	u8 len;
	u8 data[QUIC_CID_MAX_LEN];
};

int quic_cid_set(struct quic_cid *cid, const u8 *data, size_t len);

static inline bool quic_cid_eq(const struct quic_cid *a,
			       const struct quic_cid *b)
{
	return a->len == b->len && !memcmp(a->data, b->data, a->len);
}

/*
 * Version-independent view (RFC 8999).  CIDs point into the packet and may
 * be up to 255 bytes long in a long header of an unknown version, which is
 * what a Version Negotiation reply must echo.
 */
struct quic_invariant {
	bool long_form;
	u32 version;		/* long header only */
	const u8 *dcid;
	u8 dcid_len;
	const u8 *scid;		/* long header only */
	u8 scid_len;
	size_t len;		/* bytes parsed: through SCID, or DCID (short) */
};

int quic_hdr_parse_invariant(const u8 *buf, size_t len, u8 short_dcid_len,
			     struct quic_invariant *inv);

struct quic_hdr {
	u8 type;		/* enum quic_packet_type */
	u8 first;		/* first byte; unmasked after quic_hdr_finish() */
	bool fixed_bit;		/* 0 is legal only with grease_quic_bit */
	u32 version;		/* long header */
	struct quic_cid dcid;
	struct quic_cid scid;	/* long header */
	const u8 *token;	/* Initial token, Retry token */
	u64 token_len;
	u64 length;		/* Length field: packet number + payload */
	u8 length_len;		/* encode: bytes for Length, 0 = minimal */
	size_t pn_offset;	/* from the first byte of the packet */
	size_t pkt_len;		/* whole packet; the next coalesced one follows */
	const u8 *retry_tag;	/* Retry: integrity tag, 16 bytes */
	const u8 *versions;	/* VN: list of big-endian u32 */
	size_t n_versions;
	/* after header protection removal, or to encode */
	u8 pn_len;		/* 1..4 */
	bool key_phase;		/* short header */
	bool spin;		/* short header */
	u64 pn;			/* full packet number */
};

int quic_hdr_parse(const u8 *buf, size_t len, u8 short_dcid_len,
		   struct quic_hdr *hdr);
int quic_hdr_finish(struct quic_hdr *hdr, const u8 *pkt, size_t len,
		    u64 largest_pn);
int quic_hdr_check_reserved(const struct quic_hdr *hdr, u32 *terr);

int quic_hdr_encode(u8 *buf, size_t len, struct quic_hdr *hdr);
int quic_hdr_set_length(u8 *pkt, const struct quic_hdr *hdr, u64 length);
int quic_hdr_encode_retry(u8 *buf, size_t len, u32 version, u8 unused,
			  const struct quic_cid *dcid,
			  const struct quic_cid *scid,
			  const u8 *token, size_t token_len);
int quic_retry_pseudo_prefix(u8 *buf, size_t len,
			     const struct quic_cid *odcid);
int quic_hdr_encode_vn(u8 *buf, size_t len, u8 unused,
		       const u8 *dcid, u8 dcid_len,
		       const u8 *scid, u8 scid_len,
		       const u32 *versions, size_t n_versions);

int quic_long_type_to_bits(u32 version, u8 type);
int quic_long_bits_to_type(u32 version, u8 bits);

/* Packet numbers.  "None yet" is U64_MAX for @largest_acked/@largest_pn. */
#define QUIC_PN_NONE	(~0ULL)

u64 quic_pn_decode(u64 largest_pn, u64 truncated_pn, unsigned int pn_nbits);
unsigned int quic_pn_encode_len(u64 full_pn, u64 largest_acked);

#endif /* _NET_QUIC_PACKET_HEADER_H */

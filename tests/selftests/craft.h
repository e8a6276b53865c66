/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal QUIC packet crafter for selftests that play the peer of a
 * kernel socket from a plain UDP socket, with secrets the test chose
 * (RFC 9001 §5 and §6), on GnuTLS:
 *
 * - HKDF-Extract and the TLS 1.3 HKDF-Expand-Label with SHA-256; packet
 *   protection keys from a secret ("quic key", "quic iv", "quic hp") and
 *   the next generation's secret ("quic ku");
 * - AES-128-GCM and ChaCha20-Poly1305 packet protection, AES-ECB and
 *   ChaCha20 header protection;
 * - packets: short headers (Key Phase bit, 1-4 byte packet numbers)
 *   built and read, long headers read and stepped over, packet number
 *   decoding (RFC 9000 §A.3);
 * - frames: PING, PADDING, ACK, HANDSHAKE_DONE, STREAM, PATH_CHALLENGE
 *   written; every RFC 9000 frame parsed (ACK ranges, STREAM,
 *   CONNECTION_CLOSE and PATH_* with their fields, the rest stepped over).
 *
 * cr_selftest() checks it against RFC 9001 Appendix A.
 */

#ifndef QUIC_SELFTEST_CRAFT_H
#define QUIC_SELFTEST_CRAFT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

#define CR_AES128GCM	1
#define CR_CHACHA20	2

#define CR_TAG_LEN	16
#define CR_SAMPLE_LEN	16
#define CR_MAX_CID	20
#define CR_MAX_RANGES	32

/* ---- variable-length integers (RFC 9000 §16) ---- */

static inline size_t cr_varint_len(uint64_t v)
{
	return v < 64 ? 1 : v < 16384 ? 2 : v < (1u << 30) ? 4 : 8;
}

static inline size_t cr_put_varint(uint8_t *p, uint64_t v)
{
	size_t n = cr_varint_len(v), i;
	static const uint8_t prefix[9] = { 0, 0x00, 0x40, 0, 0x80, 0, 0, 0, 0xc0 };

	for (i = 0; i < n; i++)
		p[i] = v >> (8 * (n - 1 - i));
	p[0] |= prefix[n];
	return n;
}

/* Bytes read, or 0 if @len is too short. */
static inline size_t cr_get_varint(const uint8_t *p, size_t len, uint64_t *v)
{
	size_t n, i;

	if (!len)
		return 0;
	n = (size_t)1 << (p[0] >> 6);
	if (len < n)
		return 0;
	*v = p[0] & 0x3f;
	for (i = 1; i < n; i++)
		*v = (*v << 8) | p[i];
	return n;
}

/* ---- keys ---- */

struct cr_keys {
	int cipher;			/* CR_AES128GCM or CR_CHACHA20 */
	uint8_t secret[32];		/* SHA-256 output */
	uint8_t key[32];
	uint8_t iv[12];
	uint8_t hp[32];
	size_t key_len;			/* 16 for AES-128, 32 for ChaCha20 */
};

static inline int cr_hkdf_extract(const uint8_t *salt, size_t salt_len,
				  const uint8_t *ikm, size_t ikm_len,
				  uint8_t out[32])
{
	gnutls_datum_t key = { (unsigned char *)ikm, ikm_len };
	gnutls_datum_t s = { (unsigned char *)salt, salt_len };

	return gnutls_hkdf_extract(GNUTLS_MAC_SHA256, &key, &s, out) ? -1 : 0;
}

/* HKDF-Expand-Label(secret, label, "", len), TLS 1.3 §7.1, SHA-256. */
static inline int cr_hkdf_expand_label(const uint8_t *secret,
				       size_t secret_len, const char *label,
				       uint8_t *out, size_t len)
{
	uint8_t info[2 + 1 + 255 + 1];
	size_t llen = strlen(label), n = 0;
	gnutls_datum_t key = { (unsigned char *)secret, secret_len };
	gnutls_datum_t inf;

	if (6 + llen > 255 || len > 0xffff)
		return -1;
	info[n++] = len >> 8;
	info[n++] = len;
	info[n++] = 6 + llen;
	memcpy(info + n, "tls13 ", 6);
	n += 6;
	memcpy(info + n, label, llen);
	n += llen;
	info[n++] = 0;			/* empty Context */
	inf.data = info;
	inf.size = n;
	return gnutls_hkdf_expand(GNUTLS_MAC_SHA256, &key, &inf, out, len) ?
	       -1 : 0;
}

/* Key, IV and header protection key of @secret (32 bytes). */
static inline int cr_keys_derive(struct cr_keys *k, int cipher,
				 const uint8_t *secret)
{
	memset(k, 0, sizeof(*k));
	k->cipher = cipher;
	k->key_len = cipher == CR_CHACHA20 ? 32 : 16;
	memcpy(k->secret, secret, 32);
	if (cr_hkdf_expand_label(secret, 32, "quic key", k->key, k->key_len) ||
	    cr_hkdf_expand_label(secret, 32, "quic iv", k->iv, 12) ||
	    cr_hkdf_expand_label(secret, 32, "quic hp", k->hp, k->key_len))
		return -1;
	return 0;
}

/*
 * The keys after a key update (RFC 9001 §6.1): a new secret from "quic
 * ku", its key and IV; the header protection key stays.
 */
static inline int cr_keys_next(struct cr_keys *next, const struct cr_keys *cur)
{
	uint8_t secret[32], hp[32];

	memcpy(hp, cur->hp, sizeof(hp));
	if (cr_hkdf_expand_label(cur->secret, 32, "quic ku", secret, 32) ||
	    cr_keys_derive(next, cur->cipher, secret))
		return -1;
	memcpy(next->hp, hp, sizeof(hp));
	return 0;
}

/* ---- packet protection (RFC 9001 §5.3, §5.4) ---- */

static inline gnutls_cipher_algorithm_t cr_aead_alg(const struct cr_keys *k)
{
	return k->cipher == CR_CHACHA20 ? GNUTLS_CIPHER_CHACHA20_POLY1305 :
					  GNUTLS_CIPHER_AES_128_GCM;
}

static inline void cr_nonce(const struct cr_keys *k, uint64_t pn,
			    uint8_t nonce[12])
{
	int i;

	memcpy(nonce, k->iv, 12);
	for (i = 0; i < 8; i++)
		nonce[11 - i] ^= pn >> (8 * i);
}

/* @pt (@pt_len) sealed into @ct: @pt_len + CR_TAG_LEN bytes. */
static inline int cr_seal(const struct cr_keys *k, uint64_t pn,
			  const uint8_t *ad, size_t ad_len,
			  const uint8_t *pt, size_t pt_len, uint8_t *ct)
{
	gnutls_datum_t key = { (unsigned char *)k->key, k->key_len };
	gnutls_aead_cipher_hd_t h;
	size_t out_len = pt_len + CR_TAG_LEN;
	uint8_t nonce[12];
	int err;

	if (gnutls_aead_cipher_init(&h, cr_aead_alg(k), &key))
		return -1;
	cr_nonce(k, pn, nonce);
	err = gnutls_aead_cipher_encrypt(h, nonce, 12, ad, ad_len, CR_TAG_LEN,
					 pt, pt_len, ct, &out_len);
	gnutls_aead_cipher_deinit(h);
	return err || out_len != pt_len + CR_TAG_LEN ? -1 : 0;
}

/* @ct (@ct_len, tag included) opened into @pt; -1 if it does not verify. */
static inline int cr_open(const struct cr_keys *k, uint64_t pn,
			  const uint8_t *ad, size_t ad_len,
			  const uint8_t *ct, size_t ct_len, uint8_t *pt)
{
	gnutls_datum_t key = { (unsigned char *)k->key, k->key_len };
	gnutls_aead_cipher_hd_t h;
	size_t out_len = ct_len;
	uint8_t nonce[12];
	int err;

	if (ct_len < CR_TAG_LEN ||
	    gnutls_aead_cipher_init(&h, cr_aead_alg(k), &key))
		return -1;
	cr_nonce(k, pn, nonce);
	err = gnutls_aead_cipher_decrypt(h, nonce, 12, ad, ad_len, CR_TAG_LEN,
					 ct, ct_len, pt, &out_len);
	gnutls_aead_cipher_deinit(h);
	return err || out_len != ct_len - CR_TAG_LEN ? -1 : 0;
}

/*
 * The header protection mask of a 16-byte @sample (RFC 9001 §5.4.3,
 * §5.4.4).  AES-ECB of one block is AES-CBC with a zero IV; ChaCha20 takes
 * the sample as its counter (little endian) and nonce, as GnuTLS's 32-bit
 * counter variant lays out its 16-byte IV.
 */
static inline int cr_hp_mask(const struct cr_keys *k, const uint8_t *sample,
			     uint8_t mask[5])
{
	gnutls_datum_t key = { (unsigned char *)k->hp, k->key_len };
	uint8_t zero[16] = { 0 }, out[16];
	gnutls_datum_t iv;
	gnutls_cipher_hd_t h;
	int err;

	if (k->cipher == CR_CHACHA20) {
		iv.data = (unsigned char *)sample;
		iv.size = 16;
		if (gnutls_cipher_init(&h, GNUTLS_CIPHER_CHACHA20_32, &key, &iv))
			return -1;
		err = gnutls_cipher_encrypt2(h, zero, 5, out, 5);
	} else {
		iv.data = zero;
		iv.size = 16;
		if (gnutls_cipher_init(&h, GNUTLS_CIPHER_AES_128_CBC, &key, &iv))
			return -1;
		err = gnutls_cipher_encrypt2(h, sample, 16, out, 16);
	}
	gnutls_cipher_deinit(h);
	if (err)
		return -1;
	memcpy(mask, out, 5);
	return 0;
}

/*
 * Protect a packet in place.  @pkt holds the unprotected header, whose
 * last field is the packet number (@pn_off to @hdr_len), then @pt_len
 * bytes of plaintext payload; @pkt must have room for the tag.  The
 * header's packet number length bits must match hdr_len - pn_off, and
 * for a long header its Length field must count the tag.  Returns the
 * packet's length, or -1.
 */
static inline int cr_protect(const struct cr_keys *k, uint8_t *pkt,
			     size_t hdr_len, size_t pn_off, uint64_t pn,
			     size_t pt_len)
{
	size_t pn_len = hdr_len - pn_off, i;
	uint8_t buf[2048], mask[5], *ct = buf;
	int err;

	if (pn_len < 1 || pn_len > 4 ||
	    pn_len + pt_len < 4)	/* no room for the sample */
		return -1;
	/* Beyond a datagram of 2 kB (oversized attacks): on the heap. */
	if (pt_len + CR_TAG_LEN > sizeof(buf)) {
		ct = malloc(pt_len + CR_TAG_LEN);
		if (!ct)
			return -1;
	}
	err = cr_seal(k, pn, pkt, hdr_len, pkt + hdr_len, pt_len, ct);
	if (!err)
		memcpy(pkt + hdr_len, ct, pt_len + CR_TAG_LEN);
	if (ct != buf)
		free(ct);
	if (err || cr_hp_mask(k, pkt + pn_off + 4, mask))
		return -1;
	pkt[0] ^= mask[0] & (pkt[0] & 0x80 ? 0x0f : 0x1f);
	for (i = 0; i < pn_len; i++)
		pkt[pn_off + i] ^= mask[1 + i];
	return hdr_len + pt_len + CR_TAG_LEN;
}

/*
 * Remove header protection in place from the packet of @len bytes whose
 * packet number starts at @pn_off; the truncated packet number and its
 * length come back.  -1 if the packet is too short for the sample.
 */
static inline int cr_unprotect_header(const struct cr_keys *k, uint8_t *pkt,
				      size_t len, size_t pn_off,
				      uint32_t *trunc_pn, size_t *pn_len)
{
	uint8_t mask[5];
	size_t i;

	if (len < pn_off + 4 + CR_SAMPLE_LEN || cr_hp_mask(k, pkt + pn_off + 4,
							   mask))
		return -1;
	pkt[0] ^= mask[0] & (pkt[0] & 0x80 ? 0x0f : 0x1f);
	*pn_len = (pkt[0] & 0x03) + 1;
	*trunc_pn = 0;
	for (i = 0; i < *pn_len; i++) {
		pkt[pn_off + i] ^= mask[1 + i];
		*trunc_pn = (*trunc_pn << 8) | pkt[pn_off + i];
	}
	return 0;
}

/* ---- packet numbers (RFC 9000 §17.1, §A.2, §A.3) ---- */

#define CR_PN_NONE	UINT64_MAX

/* The full packet number from its @pn_len low bytes; @largest: CR_PN_NONE if none yet. */
static inline uint64_t cr_decode_pn(uint64_t largest, uint32_t trunc,
				    size_t pn_len)
{
	uint64_t expected = largest == CR_PN_NONE ? 0 : largest + 1;
	uint64_t win = 1ULL << (pn_len * 8), hwin = win / 2, mask = win - 1;
	uint64_t cand = (expected & ~mask) | trunc;

	if (cand + hwin <= expected && cand < (1ULL << 62) - win)
		return cand + win;
	if (cand > expected + hwin && cand >= win)
		return cand - win;
	return cand;
}

/* Bytes needed to send @pn while the peer has acknowledged up to @acked. */
static inline size_t cr_pn_len(uint64_t pn, uint64_t acked)
{
	uint64_t range = acked == CR_PN_NONE ? pn + 1 : pn - acked;
	size_t n = 1;

	while (n < 4 && 2 * range >= 1ULL << (8 * n))
		n++;
	return n;
}

/* ---- short header packets (RFC 9000 §17.3.1) ---- */

/*
 * A 1-RTT packet: header with @dcid, @key_phase and @pn in @pn_len bytes,
 * @payload (padded with PADDING frames so that there is a sample),
 * protected with @k.  Returns its length, or -1.
 */
static inline int cr_short_build(const struct cr_keys *k, const uint8_t *dcid,
				 size_t dcid_len, int key_phase, uint64_t pn,
				 size_t pn_len, const uint8_t *payload,
				 size_t len, uint8_t *out, size_t cap)
{
	size_t hdr_len = 1 + dcid_len + pn_len, pad = 0, i;

	if (pn_len + len < 4)
		pad = 4 - pn_len - len;
	if (pn_len < 1 || pn_len > 4 || dcid_len > CR_MAX_CID ||
	    hdr_len + len + pad + CR_TAG_LEN > cap)
		return -1;
	out[0] = 0x40 | (key_phase ? 0x04 : 0) | (pn_len - 1);
	memcpy(out + 1, dcid, dcid_len);
	for (i = 0; i < pn_len; i++)
		out[1 + dcid_len + i] = pn >> (8 * (pn_len - 1 - i));
	memcpy(out + hdr_len, payload, len);
	memset(out + hdr_len + len, 0, pad);
	return cr_protect(k, out, hdr_len, 1 + dcid_len, pn, len + pad);
}

/* Header protection removed from a short header packet: what it says. */
struct cr_short_hdr {
	int key_phase;
	int reserved;		/* the two reserved bits */
	uint32_t trunc_pn;
	size_t pn_len;
	size_t hdr_len;		/* up to and including the packet number */
};

/*
 * Remove the header protection of the short header packet @pkt (@len
 * bytes, Destination Connection ID of @dcid_len bytes) with @hp_keys (only
 * the header protection key is used, the same in every key phase).
 */
static inline int cr_short_unprotect(const struct cr_keys *hp_keys,
				     uint8_t *pkt, size_t len,
				     size_t dcid_len, struct cr_short_hdr *h)
{
	if (len < 1 || (pkt[0] & 0xc0) != 0x40 ||
	    cr_unprotect_header(hp_keys, pkt, len, 1 + dcid_len, &h->trunc_pn,
				&h->pn_len))
		return -1;
	h->key_phase = !!(pkt[0] & 0x04);
	h->reserved = (pkt[0] >> 3) & 0x03;
	h->hdr_len = 1 + dcid_len + h->pn_len;
	return 0;
}

/*
 * Open the payload of a packet whose header protection is removed: the
 * plaintext goes to @pt, its length is returned; -1 if it does not
 * authenticate with @k.  The packet is left as it was.
 */
static inline int cr_open_payload(const struct cr_keys *k, const uint8_t *pkt,
				  size_t len, size_t hdr_len, uint64_t pn,
				  uint8_t *pt)
{
	if (len < hdr_len + CR_TAG_LEN ||
	    cr_open(k, pn, pkt, hdr_len, pkt + hdr_len, len - hdr_len, pt))
		return -1;
	return len - hdr_len - CR_TAG_LEN;
}

/* ---- long header packets (RFC 9000 §17.2), read only ---- */

#define CR_LONG_INITIAL		0
#define CR_LONG_0RTT		1
#define CR_LONG_HANDSHAKE	2
#define CR_LONG_RETRY		3

struct cr_long_hdr {
	uint32_t version;
	int type;			/* CR_LONG_*, of QUIC v1 */
	uint8_t dcid[CR_MAX_CID], scid[CR_MAX_CID];
	size_t dcid_len, scid_len;
	size_t pn_off;			/* 0 for Retry and Version Negotiation */
	size_t pkt_len;			/* the whole packet, header included */
};

/* Parse the long header packet at @p (@len bytes left in the datagram). */
static inline int cr_long_parse(const uint8_t *p, size_t len,
				struct cr_long_hdr *h)
{
	size_t off = 5, n;
	uint64_t v;

	memset(h, 0, sizeof(*h));
	if (len < 7 || !(p[0] & 0x80))
		return -1;
	h->version = (uint32_t)p[1] << 24 | p[2] << 16 | p[3] << 8 | p[4];
	h->type = (p[0] >> 4) & 0x03;
	h->dcid_len = p[off++];
	if (h->dcid_len > CR_MAX_CID || off + h->dcid_len + 1 > len)
		return -1;
	memcpy(h->dcid, p + off, h->dcid_len);
	off += h->dcid_len;
	h->scid_len = p[off++];
	if (h->scid_len > CR_MAX_CID || off + h->scid_len > len)
		return -1;
	memcpy(h->scid, p + off, h->scid_len);
	off += h->scid_len;
	if (!h->version || h->type == CR_LONG_RETRY) {
		h->pkt_len = len;	/* the rest of the datagram */
		return 0;
	}
	if (h->type == CR_LONG_INITIAL) {
		n = cr_get_varint(p + off, len - off, &v);
		if (!n || v > len - off - n)
			return -1;
		off += n + v;		/* the token */
	}
	n = cr_get_varint(p + off, len - off, &v);
	if (!n || v > len - off - n)
		return -1;
	off += n;
	h->pn_off = off;
	h->pkt_len = off + v;
	return 0;
}

/* ---- frames (RFC 9000 §19) ---- */

#define CR_FRAME_PADDING		0x00
#define CR_FRAME_PING			0x01
#define CR_FRAME_ACK			0x02
#define CR_FRAME_ACK_ECN		0x03
#define CR_FRAME_RESET_STREAM		0x04
#define CR_FRAME_STOP_SENDING		0x05
#define CR_FRAME_CRYPTO			0x06
#define CR_FRAME_NEW_TOKEN		0x07
#define CR_FRAME_STREAM			0x08	/* to 0x0f */
#define CR_FRAME_MAX_DATA		0x10
#define CR_FRAME_MAX_STREAM_DATA	0x11
#define CR_FRAME_MAX_STREAMS_BIDI	0x12
#define CR_FRAME_MAX_STREAMS_UNI	0x13
#define CR_FRAME_DATA_BLOCKED		0x14
#define CR_FRAME_STREAM_DATA_BLOCKED	0x15
#define CR_FRAME_STREAMS_BLOCKED_BIDI	0x16
#define CR_FRAME_STREAMS_BLOCKED_UNI	0x17
#define CR_FRAME_NEW_CONNECTION_ID	0x18
#define CR_FRAME_RETIRE_CONNECTION_ID	0x19
#define CR_FRAME_PATH_CHALLENGE		0x1a
#define CR_FRAME_PATH_RESPONSE		0x1b
#define CR_FRAME_CONNECTION_CLOSE	0x1c
#define CR_FRAME_CONNECTION_CLOSE_APP	0x1d
#define CR_FRAME_HANDSHAKE_DONE		0x1e
#define CR_FRAME_DATAGRAM		0x30	/* and 0x31 */

struct cr_range {
	uint64_t lo, hi;	/* inclusive */
};

struct cr_frame {
	uint64_t type;
	/* ACK: ranges from the largest down */
	uint64_t ack_delay;
	int n_ranges;
	struct cr_range ranges[CR_MAX_RANGES];
	int ranges_truncated;
	/* STREAM, CRYPTO (offset, data) */
	uint64_t stream_id, offset;
	const uint8_t *data;
	size_t len;
	int fin;
	/* CONNECTION_CLOSE */
	uint64_t error, frame_type;
	const uint8_t *reason;
	size_t reason_len;
	/* PATH_CHALLENGE, PATH_RESPONSE */
	uint8_t path_data[8];
	/*
	 * The number the frame carries: the limit of MAX_DATA, MAX_STREAMS,
	 * MAX_STREAM_DATA and the *_BLOCKED frames, the final size of
	 * RESET_STREAM, the sequence number of NEW_CONNECTION_ID and
	 * RETIRE_CONNECTION_ID.
	 */
	uint64_t value;
	/* NEW_CONNECTION_ID */
	uint64_t retire_prior_to;
	uint8_t cid[CR_MAX_CID];
	size_t cid_len;
	const uint8_t *reset_token;	/* 16 bytes */
};

static inline int cr_frame_ack_eliciting(uint64_t type)
{
	return type != CR_FRAME_PADDING && type != CR_FRAME_ACK &&
	       type != CR_FRAME_ACK_ECN && type != CR_FRAME_CONNECTION_CLOSE &&
	       type != CR_FRAME_CONNECTION_CLOSE_APP;
}

/* Does ACK frame @f acknowledge packet @pn? */
static inline int cr_ack_covers(const struct cr_frame *f, uint64_t pn)
{
	int i;

	for (i = 0; i < f->n_ranges; i++)
		if (pn >= f->ranges[i].lo && pn <= f->ranges[i].hi)
			return 1;
	return 0;
}

/* Read @n varints into @v; bytes read or 0. */
static inline size_t cr_get_varints(const uint8_t *p, size_t len,
				    uint64_t *v, int n)
{
	size_t off = 0, k;
	int i;

	for (i = 0; i < n; i++) {
		k = cr_get_varint(p + off, len - off, &v[i]);
		if (!k)
			return 0;
		off += k;
	}
	return off;
}

/* One frame at @p: bytes it takes, or -1 if malformed or unknown. */
static inline int cr_frame_parse(const uint8_t *p, size_t len,
				 struct cr_frame *f)
{
	size_t off, n;
	uint64_t v[4] = { 0 }, i, count;

	memset(f, 0, sizeof(*f));
	off = cr_get_varint(p, len, &f->type);
	if (!off)
		return -1;
	switch (f->type) {
	case CR_FRAME_PADDING:
	case CR_FRAME_PING:
	case CR_FRAME_HANDSHAKE_DONE:
		return off;
	case CR_FRAME_ACK:
	case CR_FRAME_ACK_ECN:
		/* Largest, delay, range count, first range. */
		n = cr_get_varints(p + off, len - off, v, 4);
		if (!n || v[3] > v[0])
			return -1;
		off += n;
		f->ack_delay = v[1];
		count = v[2];
		f->ranges[0].hi = v[0];
		f->ranges[0].lo = v[0] - v[3];
		f->n_ranges = 1;
		for (i = 0; i < count; i++) {
			uint64_t lo = f->ranges[f->n_ranges - 1].lo;

			n = cr_get_varints(p + off, len - off, v, 2);
			if (!n || v[0] + 2 > lo || v[1] > lo - v[0] - 2)
				return -1;
			off += n;
			if (f->n_ranges == CR_MAX_RANGES) {
				f->ranges_truncated = 1;
				continue;
			}
			f->ranges[f->n_ranges].hi = lo - v[0] - 2;
			f->ranges[f->n_ranges].lo = lo - v[0] - 2 - v[1];
			f->n_ranges++;
		}
		if (f->type == CR_FRAME_ACK_ECN) {
			n = cr_get_varints(p + off, len - off, v, 3);
			if (!n)
				return -1;
			off += n;
		}
		return off;
	case CR_FRAME_RESET_STREAM:
		n = cr_get_varints(p + off, len - off, v, 3);
		f->stream_id = v[0];
		f->error = v[1];
		f->value = v[2];
		return n ? (int)(off + n) : -1;
	case CR_FRAME_STOP_SENDING:
		n = cr_get_varints(p + off, len - off, v, 2);
		f->stream_id = v[0];
		f->error = v[1];
		return n ? (int)(off + n) : -1;
	case CR_FRAME_CRYPTO:
		n = cr_get_varints(p + off, len - off, v, 2);
		if (!n || v[1] > len - off - n)
			return -1;
		f->offset = v[0];
		f->data = p + off + n;
		f->len = v[1];
		return off + n + v[1];
	case CR_FRAME_NEW_TOKEN:
		n = cr_get_varint(p + off, len - off, &v[0]);
		if (!n || !v[0] || v[0] > len - off - n)
			return -1;
		f->data = p + off + n;
		f->len = v[0];
		return off + n + v[0];
	case CR_FRAME_MAX_DATA:
	case CR_FRAME_MAX_STREAMS_BIDI:
	case CR_FRAME_MAX_STREAMS_UNI:
	case CR_FRAME_DATA_BLOCKED:
	case CR_FRAME_STREAMS_BLOCKED_BIDI:
	case CR_FRAME_STREAMS_BLOCKED_UNI:
	case CR_FRAME_RETIRE_CONNECTION_ID:
		n = cr_get_varint(p + off, len - off, &f->value);
		return n ? (int)(off + n) : -1;
	case CR_FRAME_MAX_STREAM_DATA:
	case CR_FRAME_STREAM_DATA_BLOCKED:
		n = cr_get_varints(p + off, len - off, v, 2);
		f->stream_id = v[0];
		f->value = v[1];
		return n ? (int)(off + n) : -1;
	case CR_FRAME_NEW_CONNECTION_ID:
		n = cr_get_varints(p + off, len - off, v, 2);
		if (!n || off + n >= len)
			return -1;
		f->value = v[0];
		f->retire_prior_to = v[1];
		off += n;
		n = p[off++];		/* the CID length */
		if (n < 1 || n > CR_MAX_CID || off + n + 16 > len)
			return -1;
		memcpy(f->cid, p + off, n);
		f->cid_len = n;
		f->reset_token = p + off + n;
		return off + n + 16;
	case CR_FRAME_PATH_CHALLENGE:
	case CR_FRAME_PATH_RESPONSE:
		if (off + 8 > len)
			return -1;
		memcpy(f->path_data, p + off, 8);
		return off + 8;
	case CR_FRAME_CONNECTION_CLOSE:
	case CR_FRAME_CONNECTION_CLOSE_APP:
		n = cr_get_varint(p + off, len - off, &f->error);
		if (!n)
			return -1;
		off += n;
		if (f->type == CR_FRAME_CONNECTION_CLOSE) {
			n = cr_get_varint(p + off, len - off, &f->frame_type);
			if (!n)
				return -1;
			off += n;
		}
		n = cr_get_varint(p + off, len - off, &v[0]);
		if (!n || v[0] > len - off - n)
			return -1;
		f->reason = p + off + n;
		f->reason_len = v[0];
		return off + n + v[0];
	case CR_FRAME_DATAGRAM:
		f->data = p + off;
		f->len = len - off;
		return len;
	case CR_FRAME_DATAGRAM + 1:
		n = cr_get_varint(p + off, len - off, &v[0]);
		if (!n || v[0] > len - off - n)
			return -1;
		f->data = p + off + n;
		f->len = v[0];
		return off + n + v[0];
	}
	if (f->type >= CR_FRAME_STREAM && f->type <= CR_FRAME_STREAM + 7) {
		n = cr_get_varint(p + off, len - off, &f->stream_id);
		if (!n)
			return -1;
		off += n;
		if (f->type & 0x04) {
			n = cr_get_varint(p + off, len - off, &f->offset);
			if (!n)
				return -1;
			off += n;
		}
		if (f->type & 0x02) {
			n = cr_get_varint(p + off, len - off, &v[0]);
			if (!n || v[0] > len - off - n)
				return -1;
			off += n;
			f->len = v[0];
		} else {
			f->len = len - off;
		}
		f->data = p + off;
		f->fin = f->type & 0x01;
		return off + f->len;
	}
	return -1;
}

/* Writers: each returns the bytes written at @p. */

static inline size_t cr_put_ping(uint8_t *p)
{
	p[0] = CR_FRAME_PING;
	return 1;
}

static inline size_t cr_put_handshake_done(uint8_t *p)
{
	p[0] = CR_FRAME_HANDSHAKE_DONE;
	return 1;
}

static inline size_t cr_put_padding(uint8_t *p, size_t n)
{
	memset(p, CR_FRAME_PADDING, n);
	return n;
}

static inline size_t cr_put_path_challenge(uint8_t *p, const uint8_t data[8])
{
	p[0] = CR_FRAME_PATH_CHALLENGE;
	memcpy(p + 1, data, 8);
	return 9;
}

/* STREAM with offset and length fields. */
static inline size_t cr_put_stream(uint8_t *p, uint64_t id, uint64_t offset,
				   const void *data, size_t len, int fin)
{
	size_t off = 0;

	p[off++] = CR_FRAME_STREAM | 0x04 | 0x02 | (fin ? 0x01 : 0);
	off += cr_put_varint(p + off, id);
	off += cr_put_varint(p + off, offset);
	off += cr_put_varint(p + off, len);
	memcpy(p + off, data, len);
	return off + len;
}

/* ACK of @n ranges, from the largest down, disjoint and not adjacent. */
static inline size_t cr_put_ack(uint8_t *p, const struct cr_range *r, int n,
				uint64_t ack_delay)
{
	size_t off = 0;
	int i;

	p[off++] = CR_FRAME_ACK;
	off += cr_put_varint(p + off, r[0].hi);
	off += cr_put_varint(p + off, ack_delay);
	off += cr_put_varint(p + off, n - 1);
	off += cr_put_varint(p + off, r[0].hi - r[0].lo);
	for (i = 1; i < n; i++) {
		off += cr_put_varint(p + off, r[i - 1].lo - r[i].hi - 2);
		off += cr_put_varint(p + off, r[i].hi - r[i].lo);
	}
	return off;
}

/*
 * A frame made of its type and @n varints: RESET_STREAM (id, error, final
 * size), STOP_SENDING (id, error), MAX_DATA, MAX_STREAM_DATA (id, limit),
 * MAX_STREAMS, the *_BLOCKED frames, RETIRE_CONNECTION_ID (sequence).
 */
static inline size_t cr_put_varint_frame(uint8_t *p, uint64_t type,
					 const uint64_t *v, int n)
{
	size_t off = cr_put_varint(p, type);
	int i;

	for (i = 0; i < n; i++)
		off += cr_put_varint(p + off, v[i]);
	return off;
}

static inline size_t cr_put_new_connection_id(uint8_t *p, uint64_t seq,
					      uint64_t retire_prior_to,
					      const uint8_t *cid,
					      size_t cid_len,
					      const uint8_t token[16])
{
	size_t off = 0;

	p[off++] = CR_FRAME_NEW_CONNECTION_ID;
	off += cr_put_varint(p + off, seq);
	off += cr_put_varint(p + off, retire_prior_to);
	p[off++] = cid_len;
	memcpy(p + off, cid, cid_len);
	off += cid_len;
	memcpy(p + off, token, 16);
	return off + 16;
}

/* CONNECTION_CLOSE of the transport (0x1c, with @frame_type) or the application (0x1d). */
static inline size_t cr_put_connection_close(uint8_t *p, int app,
					     uint64_t error,
					     uint64_t frame_type,
					     const char *reason)
{
	size_t off = 0, rlen = reason ? strlen(reason) : 0;

	p[off++] = app ? CR_FRAME_CONNECTION_CLOSE_APP :
			 CR_FRAME_CONNECTION_CLOSE;
	off += cr_put_varint(p + off, error);
	if (!app)
		off += cr_put_varint(p + off, frame_type);
	off += cr_put_varint(p + off, rlen);
	if (rlen)
		memcpy(p + off, reason, rlen);
	return off + rlen;
}

/* ---- a set of received packet numbers, for ACK frames ---- */

#define CR_PNSET_MAX	16384

struct cr_pnset {
	uint8_t bits[CR_PNSET_MAX / 8];
	uint64_t largest;	/* CR_PN_NONE while empty */
};

static inline void cr_pnset_init(struct cr_pnset *s)
{
	memset(s->bits, 0, sizeof(s->bits));
	s->largest = CR_PN_NONE;
}

static inline int cr_pnset_has(const struct cr_pnset *s, uint64_t pn)
{
	return pn < CR_PNSET_MAX && (s->bits[pn / 8] >> (pn % 8)) & 1;
}

/* -1 if @pn does not fit the set. */
static inline int cr_pnset_add(struct cr_pnset *s, uint64_t pn)
{
	if (pn >= CR_PNSET_MAX)
		return -1;
	s->bits[pn / 8] |= 1 << (pn % 8);
	if (s->largest == CR_PN_NONE || pn > s->largest)
		s->largest = pn;
	return 0;
}

/* The set as at most @max ranges, the newest ones; their count. */
static inline int cr_pnset_ranges(const struct cr_pnset *s,
				  struct cr_range *r, int max)
{
	uint64_t pn;
	int n = 0;

	if (s->largest == CR_PN_NONE)
		return 0;
	pn = s->largest;
	for (;;) {
		r[n].hi = pn;
		while (pn > 0 && cr_pnset_has(s, pn - 1))
			pn--;
		r[n].lo = pn;
		n++;
		if (n == max)
			break;
		while (pn > 0 && !cr_pnset_has(s, pn - 1))
			pn--;
		if (pn == 0)
			break;
		pn--;
	}
	return n;
}

/* ---- checks against RFC 9001 Appendix A ---- */

static inline int cr_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	unsigned int b;

	while (*hex) {
		if (*hex == ' ' || *hex == '\n') {
			hex++;
			continue;
		}
		if (n == cap || sscanf(hex, "%2x", &b) != 1)
			return -1;
		out[n++] = b;
		hex += 2;
	}
	return n;
}

static inline int cr_check_hex(const char *what, const uint8_t *got,
			       size_t len, const char *hex)
{
	uint8_t want[1500];
	int n = cr_hex(hex, want, sizeof(want));
	size_t i;

	if (n == (int)len && !memcmp(got, want, len))
		return 0;
	printf("# %s: got ", what);
	for (i = 0; i < len && i < 64; i++)
		printf("%02x", got[i]);
	printf("%s (%zu bytes), want %s\n", len > 64 ? "..." : "", len, hex);
	return 1;
}

/*
 * The crafter against RFC 9001 Appendix A: the Initial secrets and keys of
 * both sides (A.1), the client Initial (A.2) and the server Initial (A.3)
 * protected byte for byte, both opened again, the ChaCha20-Poly1305 short
 * header packet (A.5) built and read, the key update secret ("quic ku"),
 * and the packet number decoding example of RFC 9000 §A.3.  Returns the
 * number of mismatches.
 */
static inline int cr_selftest(void)
{
	static const char *client_payload_hex =
		"060040f1010000ed0303ebf8fa56f12939b9584a3896472ec40bb863cfd3e868"
		"04fe3a47f06a2b69484c00000413011302010000c000000010000e00000b6578"
		"616d706c652e636f6dff01000100000a00080006001d00170018001000070005"
		"04616c706e000500050100000000003300260024001d00209370b2c9caa47fba"
		"baf4559fedba753de171fa71f50f1ce15d43e994ec74d748002b000302030400"
		"0d0010000e0403050306030203080408050806002d00020101001c0002400100"
		"3900320408ffffffffffffffff05048000ffff07048000ffff08011001048000"
		"75300901100f088394c8f03e51570806048000ffff";
	static const char *client_packet_head_hex =
		"c000000001088394c8f03e5157080000449e7b9aec34d1b1c98dd7689fb8ec11"
		"d242b123dc9bd8bab936b47d92ec356c0bab7df5976d27cd449f63300099f399";
	static const char *client_packet_tail_hex =
		"e221af44860018ab0856972e194cd934";
	static const char *server_payload_hex =
		"02000000000600405a020000560303eefce7f7b37ba1d1632e96677825ddf739"
		"88cfc79825df566dc5430b9a045a1200130100002e00330024001d00209d3c94"
		"0d89690b84d08a60993c144eca684d1081287c834d5311bcf32bb9da1a002b00"
		"020304";
	static const char *server_packet_hex =
		"cf000000010008f067a5502a4262b5004075c0d95a482cd0991cd25b0aac406a"
		"5816b6394100f37a1c69797554780bb38cc5a99f5ede4cf73c3ec2493a1839b3"
		"dbcba3f6ea46c5b7684df3548e7ddeb9c3bf9c73cc3f3bded74b562bfb19fb84"
		"022f8ef4cdd93795d77d06edbb7aaf2f58891850abbdca3d20398c276456cbc4"
		"2158407dd074ee";
	static const uint8_t salt[20] = {
		0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
		0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a };
	static const uint8_t cid[8] = {
		0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08 };
	uint8_t initial[32], secret[32], pkt[1500], pt[1500], copy[1500];
	struct cr_keys client, server, cc, next;
	struct cr_short_hdr sh;
	uint32_t trunc;
	size_t pn_len, n;
	int bad = 0, len;
	uint64_t pn;

	/* A.1: the secrets and keys. */
	if (cr_hkdf_extract(salt, sizeof(salt), cid, sizeof(cid), initial))
		return 1;
	bad += cr_check_hex("initial_secret", initial, 32,
			    "7db5df06e7a69e432496adedb00851923595221596ae2ae9fb8115c1e9ed0a44");
	if (cr_hkdf_expand_label(initial, 32, "client in", secret, 32) ||
	    cr_keys_derive(&client, CR_AES128GCM, secret))
		return bad + 1;
	bad += cr_check_hex("client_initial_secret", client.secret, 32,
			    "c00cf151ca5be075ed0ebfb5c80323c42d6b7db67881289af4008f1f6c357aea");
	bad += cr_check_hex("client key", client.key, 16,
			    "1f369613dd76d5467730efcbe3b1a22d");
	bad += cr_check_hex("client iv", client.iv, 12,
			    "fa044b2f42a3fd3b46fb255c");
	bad += cr_check_hex("client hp", client.hp, 16,
			    "9f50449e04a0e810283a1e9933adedd2");
	if (cr_hkdf_expand_label(initial, 32, "server in", secret, 32) ||
	    cr_keys_derive(&server, CR_AES128GCM, secret))
		return bad + 1;
	bad += cr_check_hex("server_initial_secret", server.secret, 32,
			    "3c199828fd139efd216c155ad844cc81fb82fa8d7446fa7d78be803acdda951b");
	bad += cr_check_hex("server key", server.key, 16,
			    "cf3a5331653c364c88f0f379b6067e37");
	bad += cr_check_hex("server iv", server.iv, 12,
			    "0ac1493ca1905853b0bba03e");
	bad += cr_check_hex("server hp", server.hp, 16,
			    "c206b8d9b9f0f37644430b490eeaa314");

	/* A.2: the client Initial, 4-byte packet number 2, 1162-byte payload. */
	len = cr_hex("c300000001088394c8f03e5157080000449e00000002", pkt,
		     sizeof(pkt));
	n = cr_hex(client_payload_hex, pkt + len, sizeof(pkt) - len);
	memset(pkt + len + n, 0, 1162 - n);
	len = cr_protect(&client, pkt, 22, 18, 2, 1162);
	if (len != 1200)
		return bad + 1;
	bad += cr_check_hex("client Initial (head)", pkt, 64,
			    client_packet_head_hex);
	bad += cr_check_hex("client Initial (tail)", pkt + 1200 - 16, 16,
			    client_packet_tail_hex);
	/* ...and opened again. */
	if (cr_unprotect_header(&client, pkt, 1200, 18, &trunc, &pn_len) ||
	    pn_len != 4 || trunc != 2 ||
	    cr_open_payload(&client, pkt, 1200, 22, 2, pt) != 1162 ||
	    cr_hex(client_payload_hex, copy, sizeof(copy)) != (int)n ||
	    memcmp(pt, copy, n)) {
		printf("# client Initial does not open again\n");
		bad++;
	}

	/* A.3: the server Initial, 2-byte packet number 1. */
	len = cr_hex("c1000000010008f067a5502a4262b50040750001", pkt,
		     sizeof(pkt));
	n = cr_hex(server_payload_hex, pkt + len, sizeof(pkt) - len);
	len = cr_protect(&server, pkt, 20, 18, 1, n);
	n = cr_hex(server_packet_hex, copy, sizeof(copy));
	bad += cr_check_hex("server Initial", pkt, len, server_packet_hex);
	{
		struct cr_long_hdr lh;

		if (cr_long_parse(copy, n, &lh) || lh.type != CR_LONG_INITIAL ||
		    lh.pn_off != 18 || lh.pkt_len != n || lh.scid_len != 8 ||
		    lh.dcid_len != 0 ||
		    cr_unprotect_header(&server, copy, n, lh.pn_off, &trunc,
					&pn_len) ||
		    pn_len != 2 || trunc != 1 ||
		    cr_open_payload(&server, copy, n, 20, 1, pt) != 99) {
			printf("# server Initial does not parse and open again\n");
			bad++;
		} else {
			struct cr_frame f;

			/* ACK of packet 0, then CRYPTO of 90 bytes at 0. */
			if (cr_frame_parse(pt, 99, &f) != 5 ||
			    f.type != CR_FRAME_ACK || f.n_ranges != 1 ||
			    f.ranges[0].hi != 0 || f.ranges[0].lo != 0 ||
			    cr_frame_parse(pt + 5, 94, &f) != 94 ||
			    f.type != CR_FRAME_CRYPTO || f.len != 90) {
				printf("# server Initial frames\n");
				bad++;
			}
		}
	}

	/* A.5: ChaCha20-Poly1305, short header, PING at 654360564. */
	cr_hex("9ac312a7f877468ebe69422748ad00a15443f18203a07d6060f688f30f21632b",
	       secret, sizeof(secret));
	if (cr_keys_derive(&cc, CR_CHACHA20, secret) || cr_keys_next(&next, &cc))
		return bad + 1;
	bad += cr_check_hex("chacha key", cc.key, 32,
			    "c6d98ff3441c3fe1b2182094f69caa2ed4b716b65488960a7a984979fb23e1c8");
	bad += cr_check_hex("chacha iv", cc.iv, 12, "e0459b3474bdd0e44a41c144");
	bad += cr_check_hex("chacha hp", cc.hp, 32,
			    "25a282b9e82f06f21f488917a4fc8f1b73573685608597d0efcb076b0ab7a7a4");
	bad += cr_check_hex("quic ku", next.secret, 32,
			    "1223504755036d556342ee9361d253421a826c9ecdf3c7148684b36b714881f9");
	if (memcmp(next.hp, cc.hp, 32)) {
		printf("# the header protection key changed with the update\n");
		bad++;
	}
	pt[0] = CR_FRAME_PING;
	len = cr_short_build(&cc, NULL, 0, 0, 654360564, 3, pt, 1, pkt,
			     sizeof(pkt));
	if (len != 21)
		return bad + 1;
	bad += cr_check_hex("ChaCha20 short header packet", pkt, len,
			    "4cfe4189655e5cd55c41f69080575d7999c25a5bfb");
	if (cr_short_unprotect(&cc, pkt, len, 0, &sh) || sh.key_phase ||
	    sh.pn_len != 3 || sh.hdr_len != 4 ||
	    (pn = cr_decode_pn(654360563, sh.trunc_pn, sh.pn_len)) != 654360564 ||
	    cr_open_payload(&cc, pkt, len, sh.hdr_len, pn, pt) != 1 ||
	    pt[0] != CR_FRAME_PING) {
		printf("# ChaCha20 short header packet does not open again\n");
		bad++;
	}

	/* Our own round trips: AES short headers of every pn length, phase 1. */
	for (n = 1; n <= 4; n++) {
		static const uint8_t dcid[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
		uint64_t full = 0x12345678 & ((1ULL << (8 * n)) - 1);

		pt[0] = CR_FRAME_PING;
		len = cr_short_build(&client, dcid, 8, 1, full, n, pt, 1, pkt,
				     sizeof(pkt));
		if (len < 0 || cr_short_unprotect(&client, pkt, len, 8, &sh) ||
		    !sh.key_phase || sh.reserved || sh.pn_len != n ||
		    cr_decode_pn(full - 1, sh.trunc_pn, n) != full ||
		    cr_open_payload(&client, pkt, len, sh.hdr_len, full, pt) !=
		    (int)(4 - (n < 3 ? n : 3)) || pt[0] != CR_FRAME_PING) {
			printf("# short header with a %zu-byte packet number\n",
			       n);
			bad++;
		}
	}

	/* ACK ranges: written from a set of packet numbers, read back. */
	{
		static const uint64_t pns[] = { 0, 1, 2, 5, 6, 9, 300 };
		struct cr_range r[4];
		struct cr_pnset *s = malloc(sizeof(*s));
		struct cr_frame f;
		int nr;

		cr_pnset_init(s);
		for (n = 0; n < sizeof(pns) / sizeof(pns[0]); n++)
			cr_pnset_add(s, pns[n]);
		nr = cr_pnset_ranges(s, r, 4);
		free(s);
		len = cr_put_ack(pkt, r, nr, 7);
		if (nr != 4 || cr_frame_parse(pkt, len, &f) != len ||
		    f.type != CR_FRAME_ACK || f.ack_delay != 7 ||
		    f.n_ranges != 4 || f.ranges[0].lo != 300 ||
		    f.ranges[0].hi != 300 || f.ranges[1].lo != 9 ||
		    f.ranges[2].lo != 5 || f.ranges[2].hi != 6 ||
		    f.ranges[3].lo != 0 || f.ranges[3].hi != 2 ||
		    !cr_ack_covers(&f, 1) || cr_ack_covers(&f, 3) ||
		    cr_ack_covers(&f, 301)) {
			printf("# ACK frame round trip\n");
			bad++;
		}
		len = cr_put_stream(pkt, 4, 70000, "abc", 3, 1);
		if (cr_frame_parse(pkt, len, &f) != len || f.stream_id != 4 ||
		    f.offset != 70000 || f.len != 3 || !f.fin ||
		    memcmp(f.data, "abc", 3)) {
			printf("# STREAM frame round trip\n");
			bad++;
		}
	}

	/* RFC 9000 §A.3 and §17.1 examples. */
	if (cr_decode_pn(0xa82f30ea, 0x9b32, 2) != 0xa82f9b32 ||
	    cr_pn_len(0xac5c02, 0xabe8b3) != 2 ||
	    cr_pn_len(0xace8fe, 0xabe8b3) != 3) {
		printf("# packet number examples of RFC 9000\n");
		bad++;
	}
	return bad;
}

/*
 * ---- client Initial packets (RFC 9001 §5.2, RFC 9000 §17.2.2) ----
 *
 * Kept apart from the rest: the Initial keys of a Destination Connection
 * ID, a CRYPTO frame writer, the Initial and Handshake packet builder and
 * the transport parameters (RFC 9000 §18), for tests that play clients
 * (pending_test, and tests/hostile's client, which runs a real TLS
 * handshake).  QUIC v1 only.
 */

/* The Initial keys of either side for the client's first DCID @dcid. */
static inline int cr_initial_keys(struct cr_keys *k, const uint8_t *dcid,
				  size_t dcid_len, int server)
{
	static const uint8_t salt_v1[20] = {
		0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
		0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a };
	uint8_t initial[32], secret[32];

	if (cr_hkdf_extract(salt_v1, sizeof(salt_v1), dcid, dcid_len,
			    initial) ||
	    cr_hkdf_expand_label(initial, 32, server ? "server in" : "client in",
				 secret, 32))
		return -1;
	return cr_keys_derive(k, CR_AES128GCM, secret);
}

/* CRYPTO with its offset and length fields. */
static inline size_t cr_put_crypto(uint8_t *p, uint64_t offset,
				   const void *data, size_t len)
{
	size_t n = 0;

	p[n++] = CR_FRAME_CRYPTO;
	n += cr_put_varint(p + n, offset);
	n += cr_put_varint(p + n, len);
	memcpy(p + n, data, len);
	return n + len;
}

/*
 * A long header packet of QUIC v1, Initial (with @token of @token_len
 * bytes, which may be 0) or Handshake (@token unused): @dcid, @scid,
 * packet number @pn in 4 bytes, @payload followed by PADDING frames so
 * that the packet takes at least @min_len bytes (a client's Initial
 * datagram: 1200 in all, RFC 9000 §14.1), protected with @k.  Returns its
 * length, or -1.
 */
static inline int cr_long_build(const struct cr_keys *k, int type,
				const uint8_t *dcid, size_t dcid_len,
				const uint8_t *scid, size_t scid_len,
				const uint8_t *token, size_t token_len,
				uint32_t pn, const uint8_t *payload, size_t len,
				size_t min_len, uint8_t *out, size_t cap)
{
	size_t hdr_len, pad = 0, off = 0, body;

	if (type != CR_LONG_INITIAL)
		token_len = 0;
	hdr_len = 1 + 4 + 1 + dcid_len + 1 + scid_len + 2 + 4 +
		  (type == CR_LONG_INITIAL ?
		   cr_varint_len(token_len) + token_len : 0);
	if (dcid_len > CR_MAX_CID || scid_len > CR_MAX_CID ||
	    (type != CR_LONG_INITIAL && type != CR_LONG_HANDSHAKE))
		return -1;
	if (hdr_len + len + CR_TAG_LEN < min_len)
		pad = min_len - hdr_len - len - CR_TAG_LEN;
	body = 4 + len + pad + CR_TAG_LEN;
	if (hdr_len + len + pad + CR_TAG_LEN > cap || body > 16383)
		return -1;
	out[off++] = 0xc0 | (type << 4) | 0x03;	/* 4-byte pn */
	out[off++] = 0;
	out[off++] = 0;
	out[off++] = 0;
	out[off++] = 1;
	out[off++] = dcid_len;
	memcpy(out + off, dcid, dcid_len);
	off += dcid_len;
	out[off++] = scid_len;
	memcpy(out + off, scid, scid_len);
	off += scid_len;
	if (type == CR_LONG_INITIAL) {
		off += cr_put_varint(out + off, token_len);
		if (token_len)
			memcpy(out + off, token, token_len);
		off += token_len;
	}
	out[off++] = 0x40 | body >> 8;		/* Length, 2-byte varint */
	out[off++] = body & 0xff;
	out[off++] = pn >> 24;
	out[off++] = pn >> 16;
	out[off++] = pn >> 8;
	out[off++] = pn;
	memcpy(out + off, payload, len);
	memset(out + off + len, 0, pad);
	return cr_protect(k, out, hdr_len, hdr_len - 4, pn, len + pad);
}

/* A client Initial of QUIC v1 with no token: cr_long_build(). */
static inline int cr_initial_build(const struct cr_keys *k,
				   const uint8_t *dcid, size_t dcid_len,
				   const uint8_t *scid, size_t scid_len,
				   uint32_t pn, const uint8_t *payload,
				   size_t len, size_t min_len, uint8_t *out,
				   size_t cap)
{
	return cr_long_build(k, CR_LONG_INITIAL, dcid, dcid_len, scid,
			     scid_len, NULL, 0, pn, payload, len, min_len, out,
			     cap);
}

/*
 * A client Initial of QUIC v1 with its keys from @dcid (and @token, or
 * none), padded to 1200 bytes, in @out: its length, or -1.
 */
static inline int cr_initial_make(const uint8_t *dcid, size_t dcid_len,
				  const uint8_t *scid, size_t scid_len,
				  const uint8_t *token, size_t token_len,
				  uint32_t pn, const uint8_t *payload,
				  size_t len, uint8_t *out, size_t cap)
{
	struct cr_keys k;

	if (cr_initial_keys(&k, dcid, dcid_len, 0))
		return -1;
	return cr_long_build(&k, CR_LONG_INITIAL, dcid, dcid_len, scid,
			     scid_len, token, token_len, pn, payload, len,
			     1200, out, cap);
}

/* cr_initial_make(), sent on the connected socket @fd: 0 or -1. */
static inline int cr_initial_send(int fd, const uint8_t *dcid,
				  size_t dcid_len, const uint8_t *scid,
				  size_t scid_len, const uint8_t *token,
				  size_t token_len, uint32_t pn,
				  const uint8_t *payload, size_t len)
{
	uint8_t pkt[1500];
	int n;

	n = cr_initial_make(dcid, dcid_len, scid, scid_len, token, token_len,
			    pn, payload, len, pkt, sizeof(pkt));
	if (n < 0 || send(fd, pkt, n, 0) != n)
		return -1;
	return 0;
}

/* ---- transport parameters (RFC 9000 §18) ---- */

#define CR_TP_ORIGINAL_DCID		0x00
#define CR_TP_MAX_IDLE_TIMEOUT		0x01
#define CR_TP_STATELESS_RESET_TOKEN	0x02
#define CR_TP_MAX_UDP_PAYLOAD_SIZE	0x03
#define CR_TP_INITIAL_MAX_DATA		0x04
#define CR_TP_MAX_STREAM_DATA_BIDI_LOCAL 0x05
#define CR_TP_MAX_STREAM_DATA_BIDI_REMOTE 0x06
#define CR_TP_MAX_STREAM_DATA_UNI	0x07
#define CR_TP_INITIAL_MAX_STREAMS_BIDI	0x08
#define CR_TP_INITIAL_MAX_STREAMS_UNI	0x09
#define CR_TP_ACK_DELAY_EXPONENT	0x0a
#define CR_TP_MAX_ACK_DELAY		0x0b
#define CR_TP_DISABLE_ACTIVE_MIGRATION	0x0c
#define CR_TP_PREFERRED_ADDRESS		0x0d
#define CR_TP_ACTIVE_CID_LIMIT		0x0e
#define CR_TP_INITIAL_SCID		0x0f
#define CR_TP_RETRY_SCID		0x10
#define CR_TP_COUNT			0x11

/* One side's parameters: integers by id, the connection IDs, the token. */
struct cr_tp {
	uint32_t present;		/* bit (1 << id) of those of RFC 9000 */
	uint64_t ints[CR_TP_COUNT];	/* integer ones; 0 elsewhere */
	uint8_t odcid[CR_MAX_CID], iscid[CR_MAX_CID], rscid[CR_MAX_CID];
	size_t odcid_len, iscid_len, rscid_len;
	uint8_t reset_token[16];
};

static inline int cr_tp_is_int(uint64_t id)
{
	return (id >= CR_TP_MAX_IDLE_TIMEOUT && id <= CR_TP_MAX_ACK_DELAY &&
		id != CR_TP_STATELESS_RESET_TOKEN) ||
	       id == CR_TP_ACTIVE_CID_LIMIT;
}

/* The defaults of §18.2 for what is absent. */
static inline void cr_tp_init(struct cr_tp *tp)
{
	memset(tp, 0, sizeof(*tp));
	tp->ints[CR_TP_MAX_UDP_PAYLOAD_SIZE] = 65527;
	tp->ints[CR_TP_ACK_DELAY_EXPONENT] = 3;
	tp->ints[CR_TP_MAX_ACK_DELAY] = 25;
	tp->ints[CR_TP_ACTIVE_CID_LIMIT] = 2;
}

/* An integer parameter: id, length, the value as a varint. */
static inline size_t cr_tp_put_int(uint8_t *p, uint64_t id, uint64_t v)
{
	size_t off = cr_put_varint(p, id);

	off += cr_put_varint(p + off, cr_varint_len(v));
	return off + cr_put_varint(p + off, v);
}

/* A parameter of bytes (connection IDs, the reset token; none for a flag). */
static inline size_t cr_tp_put_bytes(uint8_t *p, uint64_t id,
				     const void *b, size_t len)
{
	size_t off = cr_put_varint(p, id);

	off += cr_put_varint(p + off, len);
	if (len)
		memcpy(p + off, b, len);
	return off + len;
}

/*
 * Parse the body of a quic_transport_parameters extension into @tp (set
 * to the defaults first); unknown ids are stepped over.  -1 if it is
 * malformed: a length past the end, an integer whose varint does not take
 * its whole length, a connection ID over 20 bytes, a token not of 16
 * bytes, or an id of RFC 9000 seen twice.
 */
static inline int cr_tp_parse(const uint8_t *p, size_t len, struct cr_tp *tp)
{
	size_t off = 0, n, m;
	uint64_t id, vlen, v;

	cr_tp_init(tp);
	while (off < len) {
		n = cr_get_varint(p + off, len - off, &id);
		if (!n)
			return -1;
		off += n;
		m = cr_get_varint(p + off, len - off, &vlen);
		if (!m || vlen > len - off - m)
			return -1;
		off += m;
		if (id < CR_TP_COUNT) {
			if (tp->present & (1u << id))
				return -1;
			tp->present |= 1u << id;
		}
		if (id < CR_TP_COUNT && cr_tp_is_int(id)) {
			if (!vlen || cr_get_varint(p + off, vlen, &v) != vlen)
				return -1;
			tp->ints[id] = v;
		} else if (id == CR_TP_ORIGINAL_DCID ||
			   id == CR_TP_INITIAL_SCID || id == CR_TP_RETRY_SCID) {
			uint8_t *cid = id == CR_TP_ORIGINAL_DCID ? tp->odcid :
				       id == CR_TP_INITIAL_SCID ? tp->iscid :
				       tp->rscid;
			size_t *cl = id == CR_TP_ORIGINAL_DCID ? &tp->odcid_len :
				     id == CR_TP_INITIAL_SCID ? &tp->iscid_len :
				     &tp->rscid_len;

			if (vlen > CR_MAX_CID)
				return -1;
			memcpy(cid, p + off, vlen);
			*cl = vlen;
		} else if (id == CR_TP_STATELESS_RESET_TOKEN) {
			if (vlen != 16)
				return -1;
			memcpy(tp->reset_token, p + off, 16);
		} else if (id == CR_TP_DISABLE_ACTIVE_MIGRATION && vlen) {
			return -1;
		}
		off += vlen;
	}
	return 0;
}

/*
 * The transport parameters and the Handshake builder, against RFC 9001
 * Appendix A.2: the client's quic_transport_parameters of the example
 * ClientHello, written in the same order and parsed back; a Handshake
 * packet built, parsed, opened again; and the frame writers the hostile
 * client uses, read back by cr_frame_parse().  Returns the mismatches.
 */
static inline int cr_client_selftest(void)
{
	static const uint8_t cid[8] = {
		0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08 };
	static const uint8_t token[16] = "0123456789abcdef";
	uint8_t buf[1500], pt[1500], pkt[1500];
	struct cr_long_hdr h;
	struct cr_frame f;
	struct cr_keys k;
	struct cr_tp tp;
	uint64_t v[3];
	uint32_t trunc;
	size_t n = 0, pn_len;
	int len, bad = 0;

	/* A.2's extension 0x39, 50 bytes, minimal varints throughout. */
	n += cr_tp_put_int(buf + n, CR_TP_INITIAL_MAX_DATA,
			   0x3fffffffffffffffULL);
	n += cr_tp_put_int(buf + n, CR_TP_MAX_STREAM_DATA_BIDI_LOCAL, 65535);
	n += cr_tp_put_int(buf + n, CR_TP_MAX_STREAM_DATA_UNI, 65535);
	n += cr_tp_put_int(buf + n, CR_TP_INITIAL_MAX_STREAMS_BIDI, 16);
	n += cr_tp_put_int(buf + n, CR_TP_MAX_IDLE_TIMEOUT, 30000);
	n += cr_tp_put_int(buf + n, CR_TP_INITIAL_MAX_STREAMS_UNI, 16);
	n += cr_tp_put_bytes(buf + n, CR_TP_INITIAL_SCID, cid, sizeof(cid));
	n += cr_tp_put_int(buf + n, CR_TP_MAX_STREAM_DATA_BIDI_REMOTE, 65535);
	bad += cr_check_hex("transport parameters of A.2", buf, n,
			    "0408ffffffffffffffff05048000ffff07048000ffff0801"
			    "100104800075300901100f088394c8f03e51570806048000"
			    "ffff");
	if (cr_tp_parse(buf, n, &tp) ||
	    tp.ints[CR_TP_INITIAL_MAX_DATA] != 0x3fffffffffffffffULL ||
	    tp.ints[CR_TP_MAX_STREAM_DATA_BIDI_REMOTE] != 65535 ||
	    tp.ints[CR_TP_INITIAL_MAX_STREAMS_BIDI] != 16 ||
	    tp.ints[CR_TP_MAX_IDLE_TIMEOUT] != 30000 ||
	    tp.ints[CR_TP_ACTIVE_CID_LIMIT] != 2 ||	/* the default */
	    tp.iscid_len != 8 || memcmp(tp.iscid, cid, 8) ||
	    (tp.present & (1u << CR_TP_ORIGINAL_DCID))) {
		printf("# transport parameters of A.2 do not parse back\n");
		bad++;
	}
	buf[n] = CR_TP_INITIAL_MAX_STREAMS_BIDI;	/* the same id again */
	buf[n + 1] = 1;
	buf[n + 2] = 1;
	if (!cr_tp_parse(buf, n + 3, &tp) || !cr_tp_parse(buf, n - 1, &tp)) {
		printf("# a repeated or truncated transport parameter parses\n");
		bad++;
	}

	/* A Handshake packet, with the client's Initial keys of A.1. */
	if (cr_initial_keys(&k, cid, sizeof(cid), 0))
		return bad + 1;
	n = cr_put_crypto(buf, 0, "Finished", 8);
	len = cr_long_build(&k, CR_LONG_HANDSHAKE, cid, 8, cid + 4, 4, token,
			    sizeof(token), 7, buf, n, 0, pkt, sizeof(pkt));
	if (len != (int)(1 + 4 + 1 + 8 + 1 + 4 + 2 + 4 + n + CR_TAG_LEN) ||
	    cr_long_parse(pkt, len, &h) || h.type != CR_LONG_HANDSHAKE ||
	    h.pkt_len != (size_t)len || h.scid_len != 4 || h.dcid_len != 8 ||
	    cr_unprotect_header(&k, pkt, len, h.pn_off, &trunc, &pn_len) ||
	    pn_len != 4 || trunc != 7 || (pkt[0] & 0xf0) != 0xe0 ||
	    cr_open_payload(&k, pkt, len, h.pn_off + 4, 7, pt) != (int)n ||
	    memcmp(pt, buf, n)) {
		printf("# Handshake packet round trip\n");
		bad++;
	}
	/* An Initial with a token, padded to 1200. */
	len = cr_long_build(&k, CR_LONG_INITIAL, cid, 8, NULL, 0, token,
			    sizeof(token), 1, buf, n, 1200, pkt, sizeof(pkt));
	if (len != 1200 || cr_long_parse(pkt, len, &h) ||
	    h.type != CR_LONG_INITIAL || h.pn_off != 1 + 4 + 1 + 8 + 1 + 1 +
	    16 + 2 || h.pkt_len != 1200) {
		printf("# Initial with a token\n");
		bad++;
	}

	/* Frame writers, read back. */
	v[0] = 4;
	v[1] = 0x101;
	v[2] = 70000;
	len = cr_put_varint_frame(buf, CR_FRAME_RESET_STREAM, v, 3);
	if (cr_frame_parse(buf, len, &f) != len || f.stream_id != 4 ||
	    f.error != 0x101 || f.value != 70000) {
		printf("# RESET_STREAM round trip\n");
		bad++;
	}
	len = cr_put_varint_frame(buf, CR_FRAME_MAX_STREAM_DATA, v, 2);
	if (cr_frame_parse(buf, len, &f) != len || f.stream_id != 4 ||
	    f.value != 0x101) {
		printf("# MAX_STREAM_DATA round trip\n");
		bad++;
	}
	len = cr_put_new_connection_id(buf, 9, 3, cid, 8, token);
	if (cr_frame_parse(buf, len, &f) != len || f.value != 9 ||
	    f.retire_prior_to != 3 || f.cid_len != 8 ||
	    memcmp(f.cid, cid, 8) || memcmp(f.reset_token, token, 16)) {
		printf("# NEW_CONNECTION_ID round trip\n");
		bad++;
	}
	len = cr_put_connection_close(buf, 0, 0x10a, CR_FRAME_CRYPTO, "why");
	if (cr_frame_parse(buf, len, &f) != len ||
	    f.type != CR_FRAME_CONNECTION_CLOSE || f.error != 0x10a ||
	    f.frame_type != CR_FRAME_CRYPTO || f.reason_len != 3 ||
	    memcmp(f.reason, "why", 3)) {
		printf("# CONNECTION_CLOSE round trip\n");
		bad++;
	}
	return bad;
}

/*
 * The builder against RFC 9001 Appendix A.1 and A.2 (whose payload
 * cr_selftest() checks byte for byte): the client's Initial key of the
 * example DCID, and the header A.2 shows, read back from a packet built
 * with a CRYPTO frame and opened again.  Returns the number of mismatches.
 */
static inline int cr_initial_selftest(void)
{
	static const uint8_t dcid[8] = {
		0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08 };
	uint8_t frame[256], pt[1500], pkt[1500];
	const char hello[] = "ClientHello";
	struct cr_long_hdr h;
	struct cr_keys k;
	uint32_t trunc;
	size_t pn_len;
	int n, len, bad = 0;

	if (cr_initial_keys(&k, dcid, sizeof(dcid), 0))
		return 1;
	bad += cr_check_hex("client Initial key", k.key, 16,
			    "1f369613dd76d5467730efcbe3b1a22d");
	n = cr_put_crypto(frame, 0, hello, sizeof(hello));
	len = cr_initial_build(&k, dcid, sizeof(dcid), NULL, 0, 2, frame, n,
			       1200, pkt, sizeof(pkt));
	if (len != 1200 || cr_long_parse(pkt, len, &h) ||
	    h.type != CR_LONG_INITIAL || h.pkt_len != 1200 ||
	    cr_unprotect_header(&k, pkt, len, h.pn_off, &trunc, &pn_len) ||
	    cr_open_payload(&k, pkt, len, h.pn_off + pn_len, 2, pt) !=
	    1200 - 22 - CR_TAG_LEN)
		return bad + 1;
	bad += cr_check_hex("built client Initial header", pkt, 22,
			    "c300000001088394c8f03e5157080000449e00000002");
	if (memcmp(pt, frame, n) || pt[n] || pt[1161]) {
		printf("# built client Initial: payload\n");
		bad++;
	}
	return bad + cr_client_selftest();
}

#endif /* QUIC_SELFTEST_CRAFT_H */

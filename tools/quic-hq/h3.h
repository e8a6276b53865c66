/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * quic-hq: the small part of HTTP/3 (RFC 9114) and QPACK (RFC 9204) that a
 * file client and server need.  Pure codec and state machines: bytes in,
 * bytes or events out, no I/O, every decoder bounds-checked.
 *
 * QPACK runs without a dynamic table: we advertise
 * QPACK_MAX_TABLE_CAPACITY 0 and QPACK_BLOCKED_STREAMS 0, so peers may only
 * use static-table references and literals with us, and we never open
 * QPACK encoder or decoder streams (RFC 9204 4.2 allows that).  The peer's
 * QPACK streams are accepted and their bytes ignored.
 *
 * Errors are returned as negative HTTP/3 or QPACK error codes (enum
 * h3_error), ready for a stream reset or a log line; h3_strerror() names
 * them.
 */

#ifndef QUIC_HQ_H3_H
#define QUIC_HQ_H3_H

#include <stddef.h>
#include <stdint.h>

#define H3_VARINT_MAX	((1ULL << 62) - 1)
#define H3_FRAME_MAX	65536	/* largest non-DATA frame we collect */
#define H3_FIELDS_MAX	16384	/* our SETTINGS_MAX_FIELD_SECTION_SIZE */
#define H3_STR_MAX	16384	/* longest decoded field name or value */

enum h3_frame_type {
	H3_FRAME_DATA		= 0x00,
	H3_FRAME_HEADERS	= 0x01,
	H3_FRAME_CANCEL_PUSH	= 0x03,
	H3_FRAME_SETTINGS	= 0x04,
	H3_FRAME_PUSH_PROMISE	= 0x05,
	H3_FRAME_GOAWAY		= 0x07,
	H3_FRAME_MAX_PUSH_ID	= 0x0d,
};

enum h3_stream_type {
	H3_STREAM_CONTROL	= 0x00,
	H3_STREAM_PUSH		= 0x01,
	H3_STREAM_QPACK_ENCODER	= 0x02,
	H3_STREAM_QPACK_DECODER	= 0x03,
};

enum h3_setting_id {
	H3_SETTING_QPACK_MAX_TABLE_CAPACITY	= 0x01,
	H3_SETTING_MAX_FIELD_SECTION_SIZE	= 0x06,
	H3_SETTING_QPACK_BLOCKED_STREAMS	= 0x07,
};

enum h3_error {
	/* not on the wire: the response's final status is not 200 */
	H3_ERR_STATUS			= 0x1,
	H3_NO_ERROR			= 0x100,
	H3_GENERAL_PROTOCOL_ERROR	= 0x101,
	H3_INTERNAL_ERROR		= 0x102,
	H3_STREAM_CREATION_ERROR	= 0x103,
	H3_CLOSED_CRITICAL_STREAM	= 0x104,
	H3_FRAME_UNEXPECTED		= 0x105,
	H3_FRAME_ERROR			= 0x106,
	H3_EXCESSIVE_LOAD		= 0x107,
	H3_ID_ERROR			= 0x108,
	H3_SETTINGS_ERROR		= 0x109,
	H3_MISSING_SETTINGS		= 0x10a,
	H3_REQUEST_REJECTED		= 0x10b,
	H3_REQUEST_CANCELLED		= 0x10c,
	H3_REQUEST_INCOMPLETE		= 0x10d,
	H3_MESSAGE_ERROR		= 0x10e,
	H3_CONNECT_ERROR		= 0x10f,
	H3_VERSION_FALLBACK		= 0x110,
	QPACK_DECOMPRESSION_FAILED	= 0x200,
	QPACK_ENCODER_STREAM_ERROR	= 0x201,
	QPACK_DECODER_STREAM_ERROR	= 0x202,
};

const char *h3_strerror(int err);	/* err: negative or positive code */

/* ---- varint.c-like primitives (h3.c) ---------------------------------- */

/* QUIC variable-length integers (RFC 9000 16).  put: bytes written, 0 if
 * cap is too small or v > H3_VARINT_MAX.  get: bytes read, 0 if len is too
 * short (any byte string is a valid prefix, so there is no other error).
 */
size_t h3_varint_len(uint64_t v);
size_t h3_varint_put(uint8_t *p, size_t cap, uint64_t v);
size_t h3_varint_get(const uint8_t *p, size_t len, uint64_t *v);

/* A frame header: type and payload length.  Same conventions. */
size_t h3_frame_hdr_put(uint8_t *p, size_t cap, uint64_t type, uint64_t len);
size_t h3_frame_hdr_get(const uint8_t *p, size_t len, uint64_t *type,
			uint64_t *flen);

/* Reserved ("GREASE") frame, stream, setting and error code values have
 * the form 0x1f * N + 0x21 (RFC 9114 7.2.8, 6.2.3, 7.2.4.1, 8.1).
 */
static inline int h3_is_reserved(uint64_t v)
{
	return v >= 0x21 && (v - 0x21) % 0x1f == 0;
}

/* ---- settings (h3.c) ------------------------------------------------ */

struct h3_settings {
	uint64_t max_table_capacity;	/* QPACK, default 0 */
	uint64_t max_field_section_size;	/* default: unlimited */
	uint64_t blocked_streams;	/* QPACK, default 0 */
};

void h3_settings_default(struct h3_settings *s);
/* A SETTINGS payload: 0 or -H3_SETTINGS_ERROR (HTTP/2 ids, duplicates,
 * bad layout: -H3_FRAME_ERROR).
 */
int h3_settings_parse(const uint8_t *p, size_t len, struct h3_settings *s);

/* The start of our control stream: stream type 0x00 and a SETTINGS frame
 * (QPACK_MAX_TABLE_CAPACITY 0, QPACK_BLOCKED_STREAMS 0,
 * MAX_FIELD_SECTION_SIZE, one reserved setting).  Returns its length or
 * -H3_INTERNAL_ERROR when cap is too small.
 */
int h3_control_preface(uint8_t *p, size_t cap);

/* ---- frame reader (h3.c) -------------------------------------------- */

/* Reads the frames of one stream as its bytes arrive in pieces.  DATA
 * payloads are handed out as they come (no copy); the payload of the other
 * frames we know is collected whole (up to H3_FRAME_MAX) and handed out as
 * one event; unknown and reserved frame types are skipped; the HTTP/2
 * types that HTTP/3 reserves (0x2, 0x6, 0x8, 0x9) are an error.
 */
struct h3_rd {
	uint8_t hdr[16];	/* frame header bytes so far */
	size_t hlen;
	int in_frame;		/* type/left are valid */
	uint64_t type, left;	/* current frame, payload bytes still to come */
	uint8_t *buf;		/* payload being collected (malloc) */
	size_t blen, bcap;
};

enum h3_ev_type { H3_EV_NONE, H3_EV_FRAME, H3_EV_DATA };

struct h3_ev {
	enum h3_ev_type type;
	uint64_t frame;		/* H3_EV_FRAME: the frame type */
	const uint8_t *p;	/* FRAME: whole payload; DATA: a piece of it */
	size_t len;		/* a DATA frame of length 0 gives one event of 0 */
};

/* Consumes bytes from *p, *n (advancing them) up to the next event.
 * Returns 0 (ev->type H3_EV_NONE once the input is used up) or -error.
 * Event pointers stay valid until the next call.
 */
int h3_rd_next(struct h3_rd *r, const uint8_t **p, size_t *n,
	       struct h3_ev *ev);
/* Between frames?  (A stream that ends elsewhere was truncated.) */
int h3_rd_idle(const struct h3_rd *r);
void h3_rd_free(struct h3_rd *r);

/* ---- the peer's unidirectional streams (h3.c) ----------------------- */

struct h3_uni {
	struct h3_uni *next;
	int64_t sid;
	int64_t type;		/* -1 until its first varint is read */
	uint8_t tbuf[8];
	size_t tlen;
	int ignore;		/* after an error, or a type we do not read */
	int got_settings;
	struct h3_rd rd;	/* the control stream's frames */
};

struct h3_conn {
	int server;		/* we are the server */
	struct h3_uni *uni;
	int nuni;
	int64_t control;	/* the peer's control stream, -1 until seen */
	int have_settings;
	struct h3_settings peer;
	int64_t goaway;		/* from the peer's GOAWAY, -1: none */
};

void h3_conn_init(struct h3_conn *c, int server);
void h3_conn_free(struct h3_conn *c);
/* Bytes of the peer's unidirectional stream sid.  Returns 0, or a negative
 * connection error (a second control stream, frames out of place, the
 * control stream ending, ...); after an error that stream is ignored.
 */
int h3_conn_uni(struct h3_conn *c, int64_t sid, const uint8_t *p, size_t n,
		int fin);

/* ---- requests and responses (h3.c) ---------------------------------- */

/* Field lines as QPACK sees them; strings need not be NUL-terminated. */
struct qpack_field {
	const char *name, *value;
	size_t nlen, vlen;
};

/* The HEADERS frame of a request (:method, :scheme https, :authority,
 * :path).  Returns its length or -H3_INTERNAL_ERROR (no room).
 */
int h3_request(uint8_t *p, size_t cap, const char *method,
	       const char *authority, const char *path);

/* The start of a response: HEADERS (:status, content-length unless
 * length < 0) and, with body and length > 0, the header of one DATA frame
 * of length bytes, so that the body can follow as it is.
 */
int h3_response_head(uint8_t *p, size_t cap, int status, int64_t length,
		     int body);

/* Server: one request stream.  h3_req_feed() returns 1 once the request's
 * HEADERS frame is complete and valid (method and path copied out, NUL
 * terminated), 0 for more, or -error (-H3_MESSAGE_ERROR for a malformed
 * request, -H3_REQUEST_INCOMPLETE when it ends first, ...).  After 1, the
 * rest of the stream (content, trailers) is read and ignored.
 */
struct h3_req {
	struct h3_rd rd;
	int done;
};

int h3_req_feed(struct h3_req *r, const uint8_t *p, size_t n, int fin,
		char *method, size_t mlen, char *path, size_t plen);
void h3_req_free(struct h3_req *r);

/* Client: one response.  Content goes to sink as it arrives, once the
 * final status is known to be 200.  Returns 1 when the stream ended with a
 * whole response (content-length checked when given), 0 for more, or
 * -error: -H3_ERR_STATUS (status in ->status), -H3_FRAME_UNEXPECTED,
 * -H3_MESSAGE_ERROR, -H3_FRAME_ERROR (truncated), -QPACK_*, or
 * -H3_INTERNAL_ERROR when sink failed.
 */
typedef int (*h3_sink_fn)(void *arg, const uint8_t *p, size_t n);

struct h3_resp {
	struct h3_rd rd;
	int state;		/* enum in h3.c */
	int status;		/* the last :status seen, 0 before */
	int64_t length;		/* content-length, -1 if none */
	uint64_t got;		/* content bytes so far */
};

void h3_resp_init(struct h3_resp *r);
int h3_resp_feed(struct h3_resp *r, const uint8_t *p, size_t n, int fin,
		 h3_sink_fn sink, void *arg);
void h3_resp_free(struct h3_resp *r);

/* ---- QPACK field sections (qpack.c) ---------------------------------- */

#define QPACK_STATIC_SIZE	99

extern const struct qpack_static {
	const char *name, *value;
} qpack_static[QPACK_STATIC_SIZE];

/* Prefixed integers (RFC 7541 5.1) with an N-bit prefix; put ORs the
 * prefix into the first byte's high bits, which the caller sets.  get
 * returns bytes read, 0 if truncated, -1 if above 2^62 - 1.
 */
size_t qpack_int_put(uint8_t *p, size_t cap, int prefix, uint8_t first,
		     uint64_t v);
int qpack_int_get(const uint8_t *p, size_t len, int prefix, uint64_t *v);

/* Encodes a field section with static-table references and literals
 * only (Required Insert Count 0, no Huffman).  Returns its length or -1
 * when cap is too small.
 */
int qpack_encode(uint8_t *p, size_t cap, const struct qpack_field *f,
		 size_t n);

/* Decodes a field section, calling fn for each field line in order; fn
 * returning non-zero stops with that value.  Static references, literals
 * with static or literal names and Huffman strings are understood; any
 * reference to the dynamic table (which we allow no entries) is
 * -QPACK_DECOMPRESSION_FAILED, as is anything malformed.  Strings longer
 * than H3_STR_MAX decoded are -H3_EXCESSIVE_LOAD.
 */
typedef int (*qpack_field_fn)(void *arg, const struct qpack_field *f);
int qpack_decode(const uint8_t *p, size_t len, qpack_field_fn fn, void *arg);

/* ---- Huffman code of RFC 7541 Appendix B (huff.c) -------------------- */

struct h3_huff_code {
	uint32_t code;
	uint8_t bits;
};

extern const struct h3_huff_code h3_huff_table[257];

/* Decoded length, or -1: bad padding, EOS inside, output too small. */
int h3_huff_decode(const uint8_t *in, size_t len, char *out, size_t cap);
size_t h3_huff_len(const uint8_t *in, size_t len);
int h3_huff_encode(const uint8_t *in, size_t len, uint8_t *out, size_t cap);

#endif /* QUIC_HQ_H3_H */

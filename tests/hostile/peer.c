// SPDX-License-Identifier: GPL-2.0
/*
 * The attacking client of the hostile-traffic suite: see peer.h.
 */

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/tls.h>
#include <netinet/in.h>
#include <netinet/quic.h>

#include "peer.h"
#include "tests/step_msg.h"	/* libquic/tests: making the steps */

#define AP_DGRAM	1200	/* what we send: the minimum every path takes */
#define AP_PTO_MS	1000	/* our first CRYPTO retransmission (TCG guest) */
#define AP_PTO_MAX_MS	4000
#define AP_ACK_RANGES	32	/* in the ACK frames we send */
#define AP_MAX_DATA	(16ULL << 20)	/* connection credit, kept ahead */
#define AP_STREAM_DATA	(8ULL << 20)	/* per stream we open */
#define AP_KEEP_MAX	(256u << 20)	/* bytes of one answer we keep */

/* ---- ranges ---- */

void ap_ranges_init(struct ap_ranges *s)
{
	s->n = 0;
}

int ap_ranges_has(const struct ap_ranges *s, uint64_t v)
{
	int i;

	for (i = 0; i < s->n; i++) {
		if (v > s->r[i].hi)
			return 0;
		if (v >= s->r[i].lo)
			return 1;
	}
	return 0;
}

void ap_ranges_add(struct ap_ranges *s, uint64_t lo, uint64_t hi)
{
	int i = 0, j;

	/* the first range not entirely above [lo, hi] (nor adjacent) */
	while (i < s->n && s->r[i].lo > hi + 1)
		i++;
	if (i == s->n || s->r[i].hi + 1 < lo) {
		/* disjoint: insert at i */
		if (s->n == AP_RANGES_MAX) {
			if (i == s->n)
				return;		/* lower than all we keep */
			s->n--;			/* forget the lowest */
		}
		memmove(&s->r[i + 1], &s->r[i], (s->n - i) * sizeof(s->r[0]));
		s->r[i].lo = lo;
		s->r[i].hi = hi;
		s->n++;
		return;
	}
	/* merge with r[i] and every lower range it now touches */
	if (hi > s->r[i].hi)
		s->r[i].hi = hi;
	if (lo < s->r[i].lo)
		s->r[i].lo = lo;
	for (j = i + 1; j < s->n && s->r[j].hi + 1 >= s->r[i].lo; j++)
		if (s->r[j].lo < s->r[i].lo)
			s->r[i].lo = s->r[j].lo;
	memmove(&s->r[i + 1], &s->r[j], (s->n - j) * sizeof(s->r[0]));
	s->n -= j - i - 1;
}

uint64_t ap_ranges_run_end(const struct ap_ranges *s, uint64_t from)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (from >= s->r[i].lo && from <= s->r[i].hi)
			return s->r[i].hi + 1;
	return from;
}

static uint64_t ranges_total(const struct ap_ranges *s)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < s->n; i++)
		t += s->r[i].hi - s->r[i].lo + 1;
	return t;
}

/* ---- time ---- */

long long ap_now_ms(void)
{
	return hp_now_ms();
}

uint64_t ap_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void trace(const struct ap_conn *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->o.verbose)
		return;
	fprintf(stderr, "peer:%u: ", c->local_port);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char *space_name(int space)
{
	return space == AP_INITIAL ? "Initial" :
	       space == AP_HANDSHAKE ? "Handshake" : "1-RTT";
}

/* ---- the fake kernel libquic talks to ---- */

#define AP_CONNS_MAX	64

static struct ap_conn *registry[AP_CONNS_MAX];

static struct ap_conn *conn_of_fd(int fd)
{
	int i;

	for (i = 0; i < AP_CONNS_MAX; i++)
		if (registry[i] && registry[i]->fake_fd == fd)
			return registry[i];
	return NULL;
}

static int conn_register(struct ap_conn *c)
{
	int i;

	for (i = 0; i < AP_CONNS_MAX; i++) {
		if (!registry[i]) {
			registry[i] = c;
			return 0;
		}
	}
	return -1;
}

static void conn_unregister(struct ap_conn *c)
{
	int i;

	for (i = 0; i < AP_CONNS_MAX; i++)
		if (registry[i] == c)
			registry[i] = NULL;
}

int __real_setsockopt(int fd, int level, int name, const void *val,
		      socklen_t len);
int __real_getsockopt(int fd, int level, int name, void *val, socklen_t *len);
int __wrap_setsockopt(int fd, int level, int name, const void *val,
		      socklen_t len);
int __wrap_getsockopt(int fd, int level, int name, void *val, socklen_t *len);

static int space_of_level(uint8_t level)
{
	return level == QUIC_CRYPTO_INITIAL ? AP_INITIAL :
	       level == QUIC_CRYPTO_HANDSHAKE ? AP_HANDSHAKE : AP_APP;
}

static uint8_t level_of_space(int space)
{
	return space == AP_INITIAL ? QUIC_CRYPTO_INITIAL :
	       space == AP_HANDSHAKE ? QUIC_CRYPTO_HANDSHAKE : QUIC_CRYPTO_APP;
}

/* A secret libquic installs: the keys of its level and direction. */
static int install_secret(struct ap_conn *c, const struct quic_crypto_secret *s)
{
	int cipher, space = space_of_level(s->level);
	struct cr_keys k;

	switch (s->type) {
	case TLS_CIPHER_AES_GCM_128:
		cipher = CR_AES128GCM;
		break;
	case TLS_CIPHER_CHACHA20_POLY1305:
		cipher = CR_CHACHA20;
		break;
	default:
		/* craft.h has SHA-256 suites only; we offer no other */
		fprintf(stderr, "peer: cipher type %u not supported\n", s->type);
		return -EINVAL;
	}
	if (s->level == QUIC_CRYPTO_EARLY || cr_keys_derive(&k, cipher, s->secret))
		return -EINVAL;
	trace(c, "%s %s secret installed", space_name(space),
	      s->send ? "send" : "receive");
	if (space != AP_APP) {
		if (s->send) {
			c->sp[space].tx = k;
			c->sp[space].tx_ready = 1;
		} else {
			c->sp[space].rx = k;
			c->sp[space].rx_ready = 1;
		}
		return 0;
	}
	/* 1-RTT: generation 0, and the receive side's next one ready */
	if (s->send) {
		c->app_tx[0] = k;
		c->sp[AP_APP].tx_ready = 1;
	} else {
		c->app_rx[0] = k;
		if (cr_keys_next(&c->app_rx[1], &k))
			return -EINVAL;
		c->sp[AP_APP].rx_ready = 1;
	}
	c->established = c->sp[AP_APP].tx_ready && c->sp[AP_APP].rx_ready;
	return 0;
}

int __wrap_setsockopt(int fd, int level, int name, const void *val,
		      socklen_t len)
{
	struct ap_conn *c = conn_of_fd(fd);
	int err = 0;

	if (!c || level != SOL_QUIC)
		return __real_setsockopt(fd, level, name, val, len);
	switch (name) {
	case QUIC_SOCKOPT_CRYPTO_SECRET:
		if (len != sizeof(struct quic_crypto_secret))
			err = -EINVAL;
		else
			err = install_secret(c, val);
		break;
	case QUIC_SOCKOPT_TRANSPORT_PARAM_EXT:
		/* the server's; what the kernel would check, we check */
		if (cr_tp_parse(val, len, &c->peer_tp)) {
			fprintf(stderr, "peer: the server's transport parameters are malformed\n");
			err = -EINVAL;
			break;
		}
		c->have_peer_tp = 1;
		c->peer_max_streams_bidi =
			c->peer_tp.ints[CR_TP_INITIAL_MAX_STREAMS_BIDI];
		break;
	case QUIC_SOCKOPT_ALPN:
		if (len >= sizeof(c->alpn)) {
			err = -EINVAL;
			break;
		}
		memcpy(c->alpn, val, len);
		c->alpn[len] = 0;
		break;
	case QUIC_SOCKOPT_CONNECTION_CLOSE: {
		const struct quic_connection_close *cc = val;

		/* TLS failed on our side: say it with CONNECTION_CLOSE */
		if (len >= sizeof(*cc)) {
			fprintf(stderr, "peer: TLS closes with 0x%x\n", cc->errcode);
			ap_close(c, cc->errcode);
		}
		break;
	}
	default:
		err = -ENOPROTOOPT;
	}
	if (err) {
		errno = -err;
		return -1;
	}
	return 0;
}

int __wrap_getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct ap_conn *c = conn_of_fd(fd);

	if (!c || level != SOL_QUIC)
		return __real_getsockopt(fd, level, name, val, len);
	switch (name) {
	case QUIC_SOCKOPT_TRANSPORT_PARAM_EXT:
		if (*len < c->tp_local_len)
			break;
		memcpy(val, c->tp_local, c->tp_local_len);
		*len = c->tp_local_len;
		return 0;
	case QUIC_SOCKOPT_CONFIG:
		/* every field 0: libquic's defaults */
		if (*len < sizeof(struct quic_config))
			break;
		memset(val, 0, sizeof(struct quic_config));
		*len = sizeof(struct quic_config);
		return 0;
	default:
		errno = ENOPROTOOPT;
		return -1;
	}
	errno = EINVAL;
	return -1;
}

/* Our transport parameters, in the ClientHello. */
static void local_tp(struct ap_conn *c)
{
	uint8_t *p = c->tp_local;
	size_t n = 0;

	n += cr_tp_put_bytes(p + n, CR_TP_INITIAL_SCID, c->scid, sizeof(c->scid));
	n += cr_tp_put_int(p + n, CR_TP_MAX_IDLE_TIMEOUT, 30000);
	n += cr_tp_put_int(p + n, CR_TP_INITIAL_MAX_DATA, AP_MAX_DATA);
	n += cr_tp_put_int(p + n, CR_TP_MAX_STREAM_DATA_BIDI_LOCAL,
			   AP_STREAM_DATA);
	n += cr_tp_put_int(p + n, CR_TP_MAX_STREAM_DATA_BIDI_REMOTE, 1 << 20);
	n += cr_tp_put_int(p + n, CR_TP_MAX_STREAM_DATA_UNI, 1 << 20);
	n += cr_tp_put_int(p + n, CR_TP_INITIAL_MAX_STREAMS_BIDI, 16);
	n += cr_tp_put_int(p + n, CR_TP_INITIAL_MAX_STREAMS_UNI, 16);
	n += cr_tp_put_int(p + n, CR_TP_ACTIVE_CID_LIMIT, 4);
	c->tp_local_len = n;
	c->max_data_given = AP_MAX_DATA;
}

/* ---- sending ---- */

static int send_dgram(struct ap_conn *c, const uint8_t *d, size_t len)
{
	ssize_t n;

	do {
		n = send(c->fd, d, len, 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		/* a full socket buffer loses the datagram, as a network would */
		if (errno != EAGAIN && errno != ENOBUFS && errno != ECONNREFUSED)
			return -1;
		return 0;
	}
	c->tx_bytes += n;
	c->tx_dgrams++;
	return 0;
}

/* An ACK frame of what @sp received, at @p; its length, 0 if nothing. */
static size_t put_ack(struct ap_space *sp, uint8_t *p)
{
	struct cr_range r[AP_ACK_RANGES];
	int n = sp->rcvd.n < AP_ACK_RANGES ? sp->rcvd.n : AP_ACK_RANGES;

	if (!n)
		return 0;
	memcpy(r, sp->rcvd.r, n * sizeof(r[0]));
	sp->ack_needed = 0;
	return cr_put_ack(p, r, n, 0);
}

/* The DCID we send to: the server's SCID once we know it. */
static const uint8_t *dcid(const struct ap_conn *c, size_t *len)
{
	if (c->dcid_set) {
		*len = c->dcid_len;
		return c->dcid;
	}
	*len = sizeof(c->odcid);
	return c->odcid;
}

static int build_long(struct ap_conn *c, int space, const uint8_t *frames,
		      size_t len, size_t min_len, uint8_t *out, size_t cap)
{
	struct ap_space *sp = &c->sp[space];
	const uint8_t *d;
	size_t dlen;
	int n;

	d = dcid(c, &dlen);
	n = cr_long_build(&sp->tx, space == AP_INITIAL ? CR_LONG_INITIAL :
			  CR_LONG_HANDSHAKE, d, dlen, c->scid, sizeof(c->scid),
			  NULL, 0, sp->next_pn, frames, len, min_len, out, cap);
	if (n > 0) {
		trace(c, "> %s %llu, %zu bytes of frames, first %#x",
		      space_name(space), (unsigned long long)sp->next_pn, len,
		      len ? frames[0] : 0);
		sp->next_pn++;
	}
	return n;
}

/* Header and tag of our long header packets, the longest case. */
static size_t long_overhead(const struct ap_conn *c)
{
	size_t dlen;

	dcid(c, &dlen);
	return 1 + 4 + 1 + dlen + 1 + sizeof(c->scid) + 1 + 2 + 4 + CR_TAG_LEN;
}

/*
 * The frames of one long header packet of @space: an ACK if one is due,
 * then what fits of the CRYPTO data not sent yet, recorded for
 * retransmission.  Returns their length.
 */
static size_t fill_long(struct ap_conn *c, int space, uint8_t *buf,
			size_t budget)
{
	struct ap_space *sp = &c->sp[space];
	size_t n = 0, take;

	if (sp->ack_needed && sp->rcvd.n)
		n = put_ack(sp, buf);
	if (sp->ctx_sent < sp->ctx_len && budget > n + 16) {
		take = sp->ctx_len - sp->ctx_sent;
		if (take > budget - n - 8)
			take = budget - n - 8;
		n += cr_put_crypto(buf + n, sp->ctx_sent, sp->ctx + sp->ctx_sent,
				   take);
		if (sp->n_sent == AP_SENT_MAX) {	/* the oldest goes */
			memmove(sp->sent, sp->sent + 1,
				(AP_SENT_MAX - 1) * sizeof(sp->sent[0]));
			sp->n_sent--;
		}
		sp->sent[sp->n_sent].pn = sp->next_pn;
		sp->sent[sp->n_sent].off = sp->ctx_sent;
		sp->sent[sp->n_sent].len = take;
		sp->n_sent++;
		sp->ctx_sent += take;
		c->pto_deadline = ap_now_ms() + c->pto_ms;
	}
	return n;
}

static int long_has_work(const struct ap_conn *c, int space)
{
	const struct ap_space *sp = &c->sp[space];

	return sp->tx_ready && !sp->discarded &&
	       ((sp->ack_needed && sp->rcvd.n) || sp->ctx_sent < sp->ctx_len);
}

/* RFC 9001 §4.9: a space's keys go, and nothing of it is sent again. */
static void discard_space(struct ap_conn *c, int space)
{
	if (c->sp[space].discarded)
		return;
	trace(c, "%s keys discarded", space_name(space));
	c->sp[space].discarded = 1;
	c->sp[space].ack_needed = 0;
}

/*
 * Send what the Initial and Handshake spaces have: ACKs and CRYPTO data,
 * Initial and Handshake coalesced when both have something, datagrams
 * with an Initial padded to 1200 bytes.
 */
static int flush_long(struct ap_conn *c)
{
	uint8_t dgram[2 * AP_DGRAM], frames[AP_DGRAM], hs[AP_DGRAM];
	size_t ovh = long_overhead(c), flen;
	int hlen, ilen, sent_hs;

	while (long_has_work(c, AP_INITIAL) || long_has_work(c, AP_HANDSHAKE)) {
		hlen = 0;
		sent_hs = 0;
		if (long_has_work(c, AP_HANDSHAKE)) {
			flen = fill_long(c, AP_HANDSHAKE, frames, AP_DGRAM - ovh);
			hlen = build_long(c, AP_HANDSHAKE, frames, flen, 0, hs,
					  sizeof(hs));
			if (hlen < 0)
				return -1;
			sent_hs = 1;
		}
		ilen = 0;
		if (long_has_work(c, AP_INITIAL) &&
		    (size_t)(AP_DGRAM - hlen) > ovh + 64) {
			flen = fill_long(c, AP_INITIAL, frames,
					 AP_DGRAM - hlen - ovh);
			ilen = build_long(c, AP_INITIAL, frames, flen,
					  AP_DGRAM - hlen, dgram, sizeof(dgram));
			if (ilen < 0)
				return -1;
		}
		memcpy(dgram + ilen, hs, hlen);
		if (send_dgram(c, dgram, ilen + hlen))
			return -1;
		/* RFC 9001 §4.9.1: a client's first Handshake packet ends Initial */
		if (sent_hs)
			discard_space(c, AP_INITIAL);
	}
	return 0;
}

uint64_t ap_send_long(struct ap_conn *c, int space, const uint8_t *frames,
		      size_t len, size_t min_len)
{
	uint8_t dgram[2048];
	uint64_t pn = c->sp[space].next_pn;
	int n;

	if (space == AP_APP || !c->sp[space].tx_ready)
		return CR_PN_NONE;
	n = build_long(c, space, frames, len, min_len, dgram, sizeof(dgram));
	if (n < 0 || send_dgram(c, dgram, n))
		return CR_PN_NONE;
	return pn;
}

size_t ap_room(const struct ap_conn *c, int with_ack)
{
	/* header: flags, DCID, 4-byte pn; the tag */
	size_t room = AP_DGRAM - 1 - c->dcid_len - 4 - CR_TAG_LEN;
	int n = c->sp[AP_APP].rcvd.n + 2;	/* and a couple more by then */

	if (!with_ack)
		return room;
	/* an ACK: type, 3 varints, then 2 per range, 8 bytes at most each */
	if (n > AP_ACK_RANGES)
		n = AP_ACK_RANGES;
	return room - 1 - 3 * 8 - 2 * 8 * n;
}

uint64_t ap_send(struct ap_conn *c, const uint8_t *frames, size_t len,
		 int with_ack)
{
	struct ap_space *sp = &c->sp[AP_APP];
	uint8_t buf[4096], pkt[4096 + 64];
	uint64_t pn = sp->next_pn;
	size_t n = 0;
	int plen;

	if (!sp->tx_ready || len > sizeof(buf) - 600)
		return CR_PN_NONE;
	if (with_ack)
		n = put_ack(sp, buf);
	memcpy(buf + n, frames, len);
	n += len;
	plen = cr_short_build(&c->app_tx[c->tx_gen % 4], c->dcid, c->dcid_len,
			      c->tx_gen & 1, pn, 4, buf, n, pkt, sizeof(pkt));
	if (plen < 0)
		return CR_PN_NONE;
	trace(c, "> 1-RTT %llu gen %d, %zu bytes of frames, first %#x",
	      (unsigned long long)pn, c->tx_gen, n, n ? buf[0] : 0);
	sp->next_pn++;
	if (send_dgram(c, pkt, plen))
		return CR_PN_NONE;
	return pn;
}

void ap_send_ack(struct ap_conn *c, int space)
{
	uint8_t buf[1024];
	size_t n;

	if (!c->sp[space].rcvd.n || c->close.closed)
		return;
	if (space == AP_APP) {
		if (c->sp[AP_APP].tx_ready)
			ap_send(c, NULL, 0, 1);
		return;
	}
	if (!c->sp[space].tx_ready || c->sp[space].discarded)
		return;
	n = put_ack(&c->sp[space], buf);
	ap_send_long(c, space, buf, n, space == AP_INITIAL ? AP_DGRAM : 0);
}

int ap_key_update(struct ap_conn *c)
{
	int g = c->tx_gen + 1;

	if (!c->ku_confirmed || c->rx_gen != c->tx_gen)
		return -1;
	if (cr_keys_next(&c->app_tx[g % 4], &c->app_tx[(g - 1) % 4]))
		return -1;
	c->tx_gen = g;
	c->ku_first_pn = c->sp[AP_APP].next_pn;
	c->ku_confirmed = 0;
	c->key_updates_ours++;
	trace(c, "key update: we send in generation %d from packet %llu", g,
	      (unsigned long long)c->ku_first_pn);
	return 0;
}

void ap_close(struct ap_conn *c, uint64_t error)
{
	uint8_t buf[64];
	size_t n;
	int space;

	if (c->close.closed || c->fd < 0)
		return;
	n = cr_put_connection_close(buf, 0, error, 0, NULL);
	if (c->sp[AP_APP].tx_ready) {
		ap_send(c, buf, n, 0);
		return;
	}
	space = c->sp[AP_HANDSHAKE].tx_ready ? AP_HANDSHAKE : AP_INITIAL;
	if (!c->sp[space].discarded)
		ap_send_long(c, space, buf, n, space == AP_INITIAL ? AP_DGRAM : 0);
}

/* ---- streams ---- */

struct ap_stream *ap_stream_find(struct ap_conn *c, int64_t id)
{
	int i;

	for (i = 0; i < AP_STREAMS_MAX; i++)
		if (c->st[i].id == id)
			return &c->st[i];
	return NULL;
}

struct ap_stream *ap_stream_track(struct ap_conn *c, int64_t id, int keep)
{
	struct ap_stream *s = ap_stream_find(c, id);

	if (s)
		return s;
	s = ap_stream_find(c, -1);
	if (!s)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->fin = UINT64_MAX;
	s->credit = AP_STREAM_DATA;
	s->cap = keep ? 1 : 0;		/* a marker until the first byte */
	ap_ranges_init(&s->have);
	return s;
}

int64_t ap_request(struct ap_conn *c, const char *path, int keep)
{
	struct ap_stream *s;
	char req[1024];
	int64_t id = c->next_bidi;
	int n = snprintf(req, sizeof(req), "GET %s\r\n", path);

	if (n < 0 || n >= (int)sizeof(req) || !ap_stream_track(c, id, keep))
		return -1;
	s = ap_stream_find(c, id);
	s->req_len = cr_put_stream(s->req, id, 0, req, n, 1);
	s->req_pn = ap_send(c, s->req, s->req_len, 1);
	s->req_at = ap_now_ms();
	if (s->req_pn == CR_PN_NONE)
		return -1;
	c->next_bidi += 4;
	return id;
}

/* Stream data from the server; flow-control credit given as it comes. */
static void stream_rx(struct ap_conn *c, const struct cr_frame *f)
{
	struct ap_stream *s = ap_stream_find(c, f->stream_id);
	uint64_t before, end = f->offset + f->len, v[2];
	uint8_t buf[64];
	size_t n;

	if (!s)
		s = ap_stream_track(c, f->stream_id, 0);
	if (!s)
		return;
	if (f->fin)
		s->fin = end;
	if (!f->len)
		return;
	if (s->cap && end <= AP_KEEP_MAX) {
		if (end > s->cap) {
			size_t cap = s->cap < 65536 ? 65536 : s->cap;
			uint8_t *p;

			while (cap < end)
				cap *= 2;
			p = realloc(s->buf, cap);
			if (!p)
				return;
			s->buf = p;
			s->cap = cap;
		}
		memcpy(s->buf + f->offset, f->data, f->len);
	}
	before = ranges_total(&s->have);
	ap_ranges_add(&s->have, f->offset, end - 1);
	s->bytes += ranges_total(&s->have) - before;
	c->rx_stream_bytes += ranges_total(&s->have) - before;

	/* keep the credit well ahead: the server never waits for us */
	if (c->rx_stream_bytes + AP_MAX_DATA / 2 > c->max_data_given) {
		c->max_data_given = c->rx_stream_bytes + AP_MAX_DATA;
		v[0] = c->max_data_given;
		n = cr_put_varint_frame(buf, CR_FRAME_MAX_DATA, v, 1);
		ap_send(c, buf, n, 0);
	}
	if (end + AP_STREAM_DATA / 2 > s->credit) {
		s->credit = end + AP_STREAM_DATA;
		v[0] = s->id;
		v[1] = s->credit;
		n = cr_put_varint_frame(buf, CR_FRAME_MAX_STREAM_DATA, v, 2);
		ap_send(c, buf, n, 0);
	}
}

/* ---- receiving ---- */

static void on_ack(struct ap_conn *c, int space, const struct cr_frame *f,
		   int gen)
{
	struct ap_space *sp = &c->sp[space];
	int i, j;

	if (sp->largest_acked == CR_PN_NONE || f->ranges[0].hi > sp->largest_acked)
		sp->largest_acked = f->ranges[0].hi;
	if (space == AP_APP) {
		/*
		 * Our key phase is confirmed by an ACK, in a packet of the same
		 * phase, of one of our packets of it (RFC 9001 §6.1, §6.2).
		 */
		if (gen == c->tx_gen && f->ranges[0].hi >= c->ku_first_pn)
			c->ku_confirmed = 1;
		for (i = 0; i < AP_STREAMS_MAX; i++)
			if (c->st[i].id >= 0 && c->st[i].req_len &&
			    cr_ack_covers(f, c->st[i].req_pn))
				c->st[i].req_acked = 1;
		return;
	}
	for (i = 0, j = 0; i < sp->n_sent; i++) {
		if (cr_ack_covers(f, sp->sent[i].pn)) {
			if (sp->sent[i].len)
				ap_ranges_add(&sp->ctx_acked, sp->sent[i].off,
					      sp->sent[i].off + sp->sent[i].len - 1);
			c->pto_ms = AP_PTO_MS;
			continue;
		}
		sp->sent[j++] = sp->sent[i];
	}
	sp->n_sent = j;
}

static void on_crypto(struct ap_conn *c, int space, const struct cr_frame *f)
{
	struct ap_space *sp = &c->sp[space];

	if (!f->len)
		return;
	if (space == AP_APP || f->offset + f->len > AP_CRYPTO_MAX) {
		/* NewSessionTicket and the like: not for us */
		c->rx_dropped++;
		return;
	}
	memcpy(sp->crx + f->offset, f->data, f->len);
	ap_ranges_add(&sp->crx_have, f->offset, f->offset + f->len - 1);
}

/* Frames of one packet; 1 if it was ack-eliciting, -1 if one is malformed. */
static int on_frames(struct ap_conn *c, int space, const uint8_t *pt,
		     size_t len, int gen)
{
	struct cr_frame f;
	size_t off = 0;
	int n, eliciting = 0;

	while (off < len) {
		n = cr_frame_parse(pt + off, len - off, &f);
		if (n <= 0) {
			fprintf(stderr, "peer: malformed frame %#x from the server in %s packet %llu\n",
				pt[off], space_name(space),
				(unsigned long long)c->rx_pn);
			return -1;
		}
		off += n;
		eliciting |= cr_frame_ack_eliciting(f.type);
		switch (f.type) {
		case CR_FRAME_ACK:
		case CR_FRAME_ACK_ECN:
			on_ack(c, space, &f, gen);
			break;
		case CR_FRAME_CRYPTO:
			on_crypto(c, space, &f);
			break;
		case CR_FRAME_HANDSHAKE_DONE:
			if (!c->confirmed)
				trace(c, "HANDSHAKE_DONE");
			c->confirmed = 1;
			discard_space(c, AP_HANDSHAKE);
			break;
		case CR_FRAME_CONNECTION_CLOSE:
		case CR_FRAME_CONNECTION_CLOSE_APP:
			if (!c->close.closed) {
				c->close.closed = 1;
				c->close.app = f.type == CR_FRAME_CONNECTION_CLOSE_APP;
				c->close.error = f.error;
				c->close.frame_type = f.frame_type;
				c->close.space = space;
				snprintf(c->close.reason, sizeof(c->close.reason),
					 "%.*s", (int)f.reason_len, f.reason);
				trace(c, "CONNECTION_CLOSE %#llx", (unsigned long long)f.error);
			}
			break;
		case CR_FRAME_RESET_STREAM: {
			struct ap_stream *s = ap_stream_find(c, f.stream_id);

			if (s) {
				s->reset = 1;
				s->reset_code = f.error;
			}
			break;
		}
		case CR_FRAME_MAX_STREAMS_BIDI:
			if (f.value > c->peer_max_streams_bidi)
				c->peer_max_streams_bidi = f.value;
			break;
		case CR_FRAME_PATH_CHALLENGE: {
			uint8_t r[9];

			r[0] = CR_FRAME_PATH_RESPONSE;
			memcpy(r + 1, f.path_data, 8);
			ap_send(c, r, 9, 0);
			break;
		}
		default:
			if (f.type >= CR_FRAME_STREAM &&
			    f.type <= CR_FRAME_STREAM + 7)
				stream_rx(c, &f);
			break;
		}
		if (c->on_frame)
			c->on_frame(c, space, &f, c->cb_arg);
	}
	return eliciting;
}

/* The packet @pn of @space opened: count it and process its frames. */
static void on_packet(struct ap_conn *c, int space, uint64_t pn,
		      const uint8_t *pt, size_t len, int gen)
{
	struct ap_space *sp = &c->sp[space];
	int e;

	if (ap_ranges_has(&sp->rcvd, pn)) {
		c->rx_dropped++;	/* a duplicate */
		return;
	}
	c->rx_pn = pn;
	c->rx_packets++;
	trace(c, "< %s %llu gen %d, %zu bytes of frames, first %#x",
	      space_name(space), (unsigned long long)pn, gen, len,
	      len ? pt[0] : 0);
	e = on_frames(c, space, pt, len, gen);
	ap_ranges_add(&sp->rcvd, pn, pn);
	if (sp->largest_rx == CR_PN_NONE || pn > sp->largest_rx)
		sp->largest_rx = pn;
	if (e > 0)
		sp->ack_needed = 1;
}

static void hold(struct ap_conn *c, const uint8_t *pkt, size_t len)
{
	uint8_t *copy = c->n_hold < AP_HOLD_MAX ? malloc(len) : NULL;

	if (!copy) {
		c->rx_dropped++;
		return;
	}
	memcpy(copy, pkt, len);
	c->hold[c->n_hold] = copy;
	c->hold_len[c->n_hold] = len;
	c->n_hold++;
}

/* 1 if processed, 0 if held or dropped. */
static int rx_long(struct ap_conn *c, uint8_t *pkt, const struct cr_long_hdr *lh)
{
	static uint8_t pt[65536];
	int space = lh->type == CR_LONG_INITIAL ? AP_INITIAL : AP_HANDSHAKE;
	struct ap_space *sp = &c->sp[space];
	uint32_t trunc;
	size_t pn_len;
	uint64_t pn;
	int n;

	if (lh->type != CR_LONG_INITIAL && lh->type != CR_LONG_HANDSHAKE) {
		c->rx_dropped++;	/* 0-RTT and Retry: not from a server we know */
		return 0;
	}
	if (sp->discarded) {
		c->rx_dropped++;
		return 0;
	}
	if (!sp->rx_ready) {
		hold(c, pkt, lh->pkt_len);
		return 0;
	}
	if (cr_unprotect_header(&sp->rx, pkt, lh->pkt_len, lh->pn_off, &trunc,
				&pn_len)) {
		c->rx_undecryptable++;
		return 0;
	}
	pn = cr_decode_pn(sp->largest_rx, trunc, pn_len);
	n = cr_open_payload(&sp->rx, pkt, lh->pkt_len, lh->pn_off + pn_len, pn,
			    pt);
	if (n < 0) {
		c->rx_undecryptable++;
		return 0;
	}
	/* RFC 9000 §7.2: the server's first packet names its connection ID */
	if (!c->dcid_set) {
		memcpy(c->dcid, lh->scid, lh->scid_len);
		c->dcid_len = lh->scid_len;
		c->dcid_set = 1;
	}
	on_packet(c, space, pn, pt, n, 0);
	return 1;
}

/* Try the 1-RTT keys of generation @g; the plaintext length or -1. */
static int open_gen(struct ap_conn *c, int g, const uint8_t *pkt, size_t len,
		    size_t hdr_len, uint64_t pn, uint8_t *pt)
{
	if (g < 0 || g < c->rx_gen - 1 || g > c->rx_gen + 1)
		return -1;
	return cr_open_payload(&c->app_rx[g % 4], pkt, len, hdr_len, pn, pt);
}

static int rx_short(struct ap_conn *c, uint8_t *pkt, size_t len)
{
	static uint8_t pt[65536];
	struct ap_space *sp = &c->sp[AP_APP];
	struct cr_short_hdr h;
	int n, g, tries[2], i;
	uint64_t pn;

	if (!sp->rx_ready) {
		hold(c, pkt, len);
		return 0;
	}
	/* the header protection key is the same in every generation */
	if (cr_short_unprotect(&c->app_rx[c->rx_gen % 4], pkt, len,
			       sizeof(c->scid), &h)) {
		c->rx_undecryptable++;
		return 0;
	}
	pn = cr_decode_pn(sp->largest_rx, h.trunc_pn, h.pn_len);
	if (h.key_phase == (c->rx_gen & 1)) {
		tries[0] = c->rx_gen;
		tries[1] = -1;
	} else {
		tries[0] = c->rx_gen + 1;	/* the server's next phase */
		tries[1] = c->rx_gen - 1;	/* or a late packet */
	}
	for (i = 0, n = -1; i < 2 && n < 0; i++) {
		g = tries[i];
		n = open_gen(c, g, pkt, len, h.hdr_len, pn, pt);
	}
	if (n < 0) {
		c->rx_undecryptable++;
		return 0;
	}
	if (g > c->rx_gen) {
		c->rx_gen = g;
		if (cr_keys_next(&c->app_rx[(g + 1) % 4], &c->app_rx[g % 4]))
			return 0;
		if (g > c->tx_gen) {
			/* the server updated: follow it before we ACK (§6.2) */
			if (cr_keys_next(&c->app_tx[g % 4],
					 &c->app_tx[c->tx_gen % 4]))
				return 0;
			c->tx_gen = g;
			c->ku_first_pn = sp->next_pn;
			c->ku_confirmed = 0;
			c->key_updates_server++;
			trace(c, "the server updated its keys: generation %d", g);
		}
	}
	c->rx_key_phase = h.key_phase;
	on_packet(c, AP_APP, pn, pt, n, g);
	return 1;
}

/* The datagram @d: every packet in it. */
static void rx_dgram(struct ap_conn *c, uint8_t *d, size_t len);

/*
 * Let libquic read what CRYPTO data is in order and write its answers: we
 * make its SENDMSG and RECVMSG steps ourselves, as the kernel would, on the
 * CRYPTO streams of our spaces.
 */
static void tls_pump(struct ap_conn *c)
{
	struct quic_handshake_step *step;
	int space, level, err = 0;

	while (!c->tls_done && !c->tls_err && (step = c->step)) {
		if (step->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG) {
			const struct msghdr *m = step->s_sendmsg.msg;
			struct ap_space *sp;
			size_t len;

			level = step_msg_level(m);	/* and one iovec */
			if (level < 0) {
				err = -EINVAL;
				break;
			}
			len = m->msg_iov[0].iov_len;
			sp = &c->sp[space_of_level(level)];
			if (len > AP_CRYPTO_MAX - sp->ctx_len) {
				err = -EMSGSIZE;
				break;
			}
			memcpy(sp->ctx + sp->ctx_len, m->msg_iov[0].iov_base, len);
			sp->ctx_len += len;
			step->s_sendmsg.retval = (ssize_t)len;
			trace(c, "TLS writes %zu bytes at %s level", len,
			      space_name(space_of_level(level)));
		} else {
			struct msghdr *m = step->s_recvmsg.msg;
			struct ap_space *sp = NULL;
			uint64_t end = 0;
			size_t len;
			ssize_t n;

			for (space = AP_INITIAL; space <= AP_HANDSHAKE; space++) {
				sp = &c->sp[space];
				end = ap_ranges_run_end(&sp->crx_have, sp->crx_read);
				if (end > sp->crx_read)
					break;
			}
			if (space > AP_HANDSHAKE)
				break;		/* nothing new: wait */
			len = m->msg_iovlen == 1 ? m->msg_iov[0].iov_len : 0;
			if (end - sp->crx_read < len)
				len = end - sp->crx_read;
			n = step_msg_fill(m, sp->crx + sp->crx_read, len,
					  level_of_space(space));
			if (n <= 0) {
				err = -EINVAL;
				break;
			}
			step->s_recvmsg.retval = n;
			sp->crx_read += len;
			trace(c, "TLS reads %zu bytes at %s level", len,
			      space_name(space));
		}
		err = quic_handshake_step(c->tls, &c->step);
		if (err)
			break;
		if (!c->step) {
			c->tls_done = 1;
			trace(c, "TLS handshake complete, ALPN %s", c->alpn);
		}
	}
	if (err) {
		c->tls_err = err;
		fprintf(stderr, "peer: the TLS handshake failed: %s\n",
			strerror(-err));
	}
	if (c->tls_done || c->tls_err) {
		quic_handshake_deinit(c->tls);	/* it is over */
		c->step = NULL;
	}
}

/* Held packets whose keys have come. */
static void retry_held(struct ap_conn *c)
{
	int i, n = c->n_hold;
	uint8_t *h[AP_HOLD_MAX];
	size_t hl[AP_HOLD_MAX];

	if (!n)
		return;
	memcpy(h, c->hold, sizeof(h));
	memcpy(hl, c->hold_len, sizeof(hl));
	c->n_hold = 0;
	for (i = 0; i < n; i++) {
		rx_dgram(c, h[i], hl[i]);	/* held again if still no keys */
		free(h[i]);
	}
}

static void rx_dgram(struct ap_conn *c, uint8_t *d, size_t len)
{
	struct cr_long_hdr lh;
	size_t off = 0;
	int held = c->n_hold;

	while (off < len) {
		if (!(d[off] & 0x80)) {
			rx_short(c, d + off, len - off);
			break;
		}
		if (cr_long_parse(d + off, len - off, &lh) || lh.version != 1) {
			c->rx_dropped++;
			break;
		}
		rx_long(c, d + off, &lh);
		off += lh.pkt_len;
		/* the next packet may need the keys this one brought */
		tls_pump(c);
	}
	tls_pump(c);
	if (c->n_hold > held || !c->n_hold)
		return;
	retry_held(c);
}

/* After a batch of datagrams: the ACKs due, CRYPTO to send, a retransmission. */
static void after_rx(struct ap_conn *c)
{
	int space, i;

	if (c->close.closed)
		return;
	if (c->n_hold)
		retry_held(c);
	if (!c->confirmed && ap_now_ms() >= c->pto_deadline) {
		/* send again what was not ACKed, at every level still there */
		for (space = AP_INITIAL; space <= AP_HANDSHAKE; space++) {
			struct ap_space *sp = &c->sp[space];

			if (sp->discarded || !sp->tx_ready)
				continue;
			sp->ctx_sent = ap_ranges_run_end(&sp->ctx_acked, 0);
			if (sp->ctx_sent < sp->ctx_len)
				trace(c, "PTO: %s CRYPTO again from %llu",
				      space_name(space),
				      (unsigned long long)sp->ctx_sent);
		}
		c->pto_ms = c->pto_ms * 2 > AP_PTO_MAX_MS ? AP_PTO_MAX_MS :
			    c->pto_ms * 2;
		c->pto_deadline = ap_now_ms() + c->pto_ms;
		if (c->tls_done && !c->sp[AP_HANDSHAKE].discarded &&
		    c->sp[AP_HANDSHAKE].ctx_sent >= c->sp[AP_HANDSHAKE].ctx_len &&
		    c->sp[AP_APP].tx_ready) {
			/* Finished ACKed, no HANDSHAKE_DONE yet: a PING asks */
			uint8_t ping = CR_FRAME_PING;

			ap_send(c, &ping, 1, 1);
		}
	}
	flush_long(c);
	if (c->auto_ack && c->sp[AP_APP].ack_needed)
		ap_send_ack(c, AP_APP);
	for (i = 0; i < AP_STREAMS_MAX; i++) {
		struct ap_stream *s = &c->st[i];

		/* a request lost, or its ACK: again, as a PTO would */
		if (s->id < 0 || !s->req_len || s->req_acked || s->bytes ||
		    s->reset || ap_now_ms() - s->req_at < 1000)
			continue;
		trace(c, "request on stream %lld again", (long long)s->id);
		s->req_pn = ap_send(c, s->req, s->req_len, 1);
		s->req_at = ap_now_ms();
	}
}

/* Read every datagram there is (at most a batch); the packets processed. */
static int rx_batch(struct ap_conn *c)
{
	static uint8_t d[65536];
	union {
		char buf[CMSG_SPACE(sizeof(struct timespec))];
		struct cmsghdr align;
	} cbuf;
	uint64_t before = c->rx_packets;
	int i;

	for (i = 0; i < 256; i++) {
		struct iovec iov = { d, sizeof(d) };
		struct msghdr m = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf),
		};
		struct cmsghdr *cm;
		ssize_t n = recvmsg(c->fd, &m, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR ||
			    errno == ECONNREFUSED)
				break;
			return -1;
		}
		c->rx_bytes += n;
		c->rx_dgrams++;
		c->rx_ts_ns = ap_realtime_ns();
		for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
			if (cm->cmsg_level == SOL_SOCKET &&
			    cm->cmsg_type == SCM_TIMESTAMPNS) {
				struct timespec ts;

				memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
				c->rx_ts_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
			}
		}
		rx_dgram(c, d, n);
	}
	after_rx(c);
	return c->rx_packets - before;
}

int ap_run_many(struct ap_conn **cs, int n, int ms)
{
	struct pollfd pfd[AP_CONNS_MAX];
	long long deadline = ap_now_ms() + ms, now;
	int i, r, total = 0, wait;

	if (n > AP_CONNS_MAX)
		return -1;
	for (;;) {
		now = ap_now_ms();
		wait = deadline > now ? deadline - now : 0;
		if (wait > 200)
			wait = 200;	/* retransmissions are checked as time goes */
		for (i = 0; i < n; i++) {
			pfd[i].fd = cs[i]->fd;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
			/* wake up for a retransmission that is due */
			if (!cs[i]->confirmed && !cs[i]->close.closed &&
			    cs[i]->pto_deadline - now < wait)
				wait = cs[i]->pto_deadline > now ?
				       cs[i]->pto_deadline - now : 0;
		}
		r = poll(pfd, n, wait);
		if (r < 0 && errno != EINTR)
			return -1;
		for (i = 0; i < n; i++) {
			int k = rx_batch(cs[i]);

			if (k < 0)
				return -1;
			total += k;
		}
		if (total || ap_now_ms() >= deadline)
			return total;
	}
}

int ap_run(struct ap_conn *c, int ms)
{
	return ap_run_many(&c, 1, ms);
}

int ap_run_until(struct ap_conn *c, int (*done)(struct ap_conn *, void *),
		 void *arg, int ms)
{
	long long deadline = ap_now_ms() + ms;

	while (!done(c, arg)) {
		long long left = deadline - ap_now_ms();

		if (left <= 0 || c->close.closed || c->tls_err)
			return done(c, arg) ? 0 : -1;
		if (ap_run(c, left) < 0)
			return -1;
	}
	return 0;
}

/* ---- life cycle ---- */

static int resolve(const char *server, struct sockaddr_storage *ss,
		   socklen_t *len)
{
	char host[256], *port;
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res;

	if (snprintf(host, sizeof(host), "%s", server) >= (int)sizeof(host))
		return -1;
	port = strrchr(host, ':');
	if (!port)
		return -1;
	*port++ = 0;
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = 0;
	}
	if (getaddrinfo(host, port, &hints, &res))
		return -1;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static int random_bytes(uint8_t *p, size_t n)
{
	return gnutls_rnd(GNUTLS_RND_NONCE, p, n) ? -1 : 0;
}

static int tls_setup(struct ap_conn *c)
{
	const char *prio = c->o.chacha ?
		"NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+CHACHA20-POLY1305:"
		"-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:%DISABLE_TLS13_COMPAT_MODE" :
		"NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:"
		"-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:%DISABLE_TLS13_COMPAT_MODE";
	gnutls_datum_t alpn = { (unsigned char *)c->o.alpn,
				(unsigned int)strlen(c->o.alpn) };

	/* no trust anchors and no verification: whoever answers will do */
	if (gnutls_certificate_allocate_credentials(&c->cred) ||
	    gnutls_init(&c->tls, GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA) ||
	    gnutls_priority_set_direct(c->tls, prio, NULL) ||
	    gnutls_credentials_set(c->tls, GNUTLS_CRD_CERTIFICATE, c->cred) ||
	    gnutls_server_name_set(c->tls, GNUTLS_NAME_DNS, c->o.sni,
				   strlen(c->o.sni)) ||
	    gnutls_alpn_set_protocols(c->tls, &alpn, 1, GNUTLS_ALPN_MANDATORY))
		return -1;
	gnutls_transport_set_int(c->tls, c->fake_fd);
	return 0;
}

int ap_start(struct ap_conn *c, const struct ap_opts *o)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	int one = 1, buf = 4 << 20, i, err;

	memset(c, 0, sizeof(*c));
	c->fd = c->fake_fd = -1;
	c->o = *o;
	if (!c->o.alpn)
		c->o.alpn = "hq-interop";
	if (!c->o.sni)
		c->o.sni = "localhost";
	if (!c->o.timeout_ms)
		c->o.timeout_ms = 20000;
	c->auto_ack = 1;
	c->pto_ms = AP_PTO_MS;
	c->charge_last = c->charge_peak = -1;
	for (i = 0; i < AP_SPACES; i++) {
		c->sp[i].largest_rx = CR_PN_NONE;
		c->sp[i].largest_acked = CR_PN_NONE;
	}
	for (i = 0; i < AP_STREAMS_MAX; i++)
		c->st[i].id = -1;

	if (resolve(o->server, &ss, &sslen)) {
		fprintf(stderr, "peer: cannot resolve %s (ADDR:PORT)\n", o->server);
		return -1;
	}
	c->fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&ss, sslen)) {
		perror("peer: UDP socket");
		return -1;
	}
	/* floods of answers must not be lost here; their arrival time kept */
	setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	setsockopt(c->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	sslen = sizeof(ss);
	getsockname(c->fd, (struct sockaddr *)&ss, &sslen);
	c->local_port = ntohs(ss.ss_family == AF_INET ?
			      ((struct sockaddr_in *)&ss)->sin_port :
			      ((struct sockaddr_in6 *)&ss)->sin6_port);

	c->fake_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (c->fake_fd < 0 || conn_register(c)) {
		fprintf(stderr, "peer: too many connections\n");
		return -1;
	}
	if (random_bytes(c->scid, sizeof(c->scid)) ||
	    random_bytes(c->odcid, sizeof(c->odcid)) ||
	    cr_initial_keys(&c->sp[AP_INITIAL].tx, c->odcid, sizeof(c->odcid), 0) ||
	    cr_initial_keys(&c->sp[AP_INITIAL].rx, c->odcid, sizeof(c->odcid), 1))
		return -1;
	c->sp[AP_INITIAL].tx_ready = c->sp[AP_INITIAL].rx_ready = 1;
	local_tp(c);
	if (tls_setup(c)) {
		fprintf(stderr, "peer: GnuTLS session set-up failed\n");
		return -1;
	}
	err = quic_handshake_init(c->tls, &c->step);
	if (err) {
		fprintf(stderr, "peer: quic_handshake_init: %s\n", strerror(-err));
		return -1;
	}
	tls_pump(c);		/* the ClientHello */
	c->pto_deadline = ap_now_ms() + c->pto_ms;
	return flush_long(c);
}

static int connected(struct ap_conn *c, void *arg)
{
	(void)arg;
	return c->tls_done && c->established && c->confirmed;
}

int ap_connect(struct ap_conn *c, const struct ap_opts *o)
{
	if (ap_start(c, o))
		return -1;
	if (ap_run_until(c, connected, NULL, c->o.timeout_ms)) {
		fprintf(stderr, "peer: no handshake with %s in %d ms: %s%s%s\n",
			o->server, c->o.timeout_ms,
			c->tls_err ? "TLS failed" :
			c->close.closed ? "the server closed with " :
			!c->tls_done ? "TLS not complete" :
			"no HANDSHAKE_DONE",
			c->close.closed ? ap_error_name(c->close.error) : "",
			c->close.closed ? c->close.reason : "");
		return -1;
	}
	if (!c->have_peer_tp ||
	    c->peer_tp.odcid_len != sizeof(c->odcid) ||
	    memcmp(c->peer_tp.odcid, c->odcid, sizeof(c->odcid)) ||
	    c->peer_tp.iscid_len != c->dcid_len ||
	    memcmp(c->peer_tp.iscid, c->dcid, c->dcid_len)) {
		/* RFC 9000 §7.3: what a client must check of the server */
		fprintf(stderr, "peer: the server's connection IDs in its transport parameters do not match its packets\n");
		ap_close(c, 0x08);	/* TRANSPORT_PARAMETER_ERROR */
		return -1;
	}
	return 0;
}

void ap_free(struct ap_conn *c)
{
	int i;

	if (c->tls) {
		quic_handshake_deinit(c->tls);	/* nothing if already done */
		gnutls_deinit(c->tls);
	}
	if (c->cred)
		gnutls_certificate_free_credentials(c->cred);
	c->tls = NULL;
	c->cred = NULL;
	c->step = NULL;
	conn_unregister(c);
	if (c->fake_fd >= 0)
		close(c->fake_fd);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = c->fake_fd = -1;
	for (i = 0; i < c->n_hold; i++)
		free(c->hold[i]);
	c->n_hold = 0;
	for (i = 0; i < AP_STREAMS_MAX; i++) {
		if (c->st[i].id >= 0 && c->st[i].cap > 1)
			free(c->st[i].buf);
		c->st[i].buf = NULL;
	}
}

/* ---- the server's side ---- */

int ap_server_line(struct ap_conn *c, struct hp_conn *out)
{
	static struct hp_conn conns[1024];
	int n = hp_conns_read(conns, 1024), i;

	for (i = 0; i < n; i++) {
		if (conns[i].server && hp_port(conns[i].remote) == c->local_port) {
			*out = conns[i];
			return 0;
		}
	}
	return -1;
}

long long ap_charge_sample(struct ap_conn *c)
{
	struct hp_conn line;

	c->charge_last = ap_server_line(c, &line) ? -1 : hp_charge(&line);
	if (c->charge_last > c->charge_peak) {
		c->charge_peak = c->charge_last;
		c->peak_line = line;
	}
	return c->charge_last;
}

const char *ap_error_name(uint64_t error)
{
	static const char *const names[] = {
		"NO_ERROR", "INTERNAL_ERROR", "CONNECTION_REFUSED",
		"FLOW_CONTROL_ERROR", "STREAM_LIMIT_ERROR", "STREAM_STATE_ERROR",
		"FINAL_SIZE_ERROR", "FRAME_ENCODING_ERROR",
		"TRANSPORT_PARAMETER_ERROR", "CONNECTION_ID_LIMIT_ERROR",
		"PROTOCOL_VIOLATION", "INVALID_TOKEN", "APPLICATION_ERROR",
		"CRYPTO_BUFFER_EXCEEDED", "KEY_UPDATE_ERROR",
		"AEAD_LIMIT_REACHED", "NO_VIABLE_PATH",
	};

	if (error < sizeof(names) / sizeof(names[0]))
		return names[error];
	if (error >= 0x100 && error <= 0x1ff)
		return "CRYPTO_ERROR";
	return "?";
}

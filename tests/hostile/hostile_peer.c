// SPDX-License-Identifier: GPL-2.0
/*
 * hostile_peer: attacks that need an authenticated QUIC client, against a
 * quic-hq server (hq-interop) on quic.ko, from the guest it runs in.
 *
 *   hostile_peer ATTACK --server ADDR:PORT [options]
 *   hostile_peer selftest          craft.h's checks (RFC 9001 vectors), no server
 *
 * ATTACK is one of:
 *   handshake             complete the handshake, GET --path to FIN
 *   ping                  a PING every 100 ms for --duration s; the time to
 *                         the ACK covering each, max < --max-ms
 *   crypto-flood          CRYPTO frames in 1-RTT packets: closed with
 *                         CRYPTO_ERROR 0x10a (unexpected_message)
 *   path-challenge-flood  --count packets full of PATH_CHALLENGE, the server's
 *                         packets never ACKed: at most one PATH_RESPONSE per
 *                         packet of ours, none sent twice
 *   bogus-ack             an ACK of a packet never sent (PROTOCOL_VIOLATION);
 *                         then ACK frames with as many ranges as fit a
 *                         packet, for --duration s (or --count of them),
 *                         while a second connection measures PING latency
 *   stream-exhaust        --phase streams|ooo|resets|blocked|limits|all
 *                         (default all): every stream the server allows,
 *                         half open, then each holding data past a gap,
 *                         then one stream more (STREAM_LIMIT_ERROR);
 *                         1-byte STREAM pieces at scattered offsets of the
 *                         window; RESET_STREAM and STOP_SENDING floods;
 *                         MAX_STREAM_DATA, *_BLOCKED and MAX_DATA floods;
 *                         stream and connection windows overrun
 *                         (FLOW_CONTROL_ERROR), a final size changed
 *                         (FINAL_SIZE_ERROR), the server's uni stream
 *                         written (STREAM_STATE_ERROR)
 *   cid-flood             NEW_CONNECTION_ID past the server's
 *                         active_connection_id_limit, with and without
 *                         retire_prior_to; RETIRE_CONNECTION_ID of a
 *                         sequence never issued (PROTOCOL_VIOLATION)
 *   event-exhaust         --count key updates (the event quic-hq enables),
 *                         then streams opened and reset (events it does not)
 *   amplification         one real client Initial (ClientHello, 1200 bytes)
 *                         from a fresh port and nothing else, then 2 and 3 of
 *                         them (--initials N: only that variant): every byte
 *                         the server sends for --duration s (default 10),
 *                         at most 3x what it received (RFC 9000 §8.1)
 *
 * Options (defaults in brackets):
 *   --server ADDR:PORT   the quic-hq server ("127.0.0.1:4433", "[::1]:4433")
 *   --path P             a file the server has [/]: handshake downloads it,
 *                        bogus-ack downloads it to make the server send
 *                        packets before it ACKs them all at once (2 MB
 *                        make the 1,100 packets a full ACK frame needs;
 *                        short of that, PATH_CHALLENGEs make up the rest)
 *   --size N             handshake: the file's size, checked
 *   --sha256 HEX         handshake: the file's SHA-256, checked
 *   --duration S         ping [10], amplification [10], bogus-ack's flood [5]
 *   --max-ms MS          PING latency bound [1000]
 *   --max-charge BYTES   bound of the server socket's charge [262144]
 *   --count N            packets (path-challenge-flood [200], crypto-flood
 *                        [200], bogus-ack [no limit], cid-flood [1000] frames,
 *                        stream-exhaust ooo [20000] pieces, resets [20]
 *                        rounds, blocked [100] packets, event-exhaust [50]
 *                        key updates)
 *   --phase P            stream-exhaust: one phase
 *   --initials N         amplification: 1, 2 or 3 Initials only
 *   --alpn A             [hq-interop]
 *   --chacha             offer ChaCha20-Poly1305 only (AES-128-GCM otherwise)
 *   --timeout MS         of each handshake [20000]
 *   --verbose            every packet, both ways, on stderr
 *
 * Output on stdout, TAP without the version line:
 *   ok N - what                 a check that held
 *   not ok N - what             one that failed
 *   ok N - what # SKIP why      one that could not run here (no /proc/net/quic:
 *                               not in the guest)
 *   # key=value                 a number measured (bytes, ms, counts,
 *                               error codes in hex), one per line
 *   # text                      what happened, for a reader
 *   1..N                        the plan, last
 * Diagnostics go to stderr.  Exit status: 0 if every check held, 1 if one
 * failed, 2 on a usage error.
 *
 * The charge of the attacked server socket is read from /proc/net/quic
 * (procfs.h's hp_charge(): rmem_alloc + wmem_queued + omem_alloc of the
 * line whose remote port is the attacker's UDP port), sampled during the
 * attack; its peak is printed as "# charge_bytes=N" and checked against
 * --max-charge.  Each attack says what bounds that memory in the kernel
 * ("# ATTACK: bounded by ...").
 */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gnutls/crypto.h>

#include "peer.h"
#include "procfs.h"
#include "report.h"

struct opts {
	struct ap_opts ap;
	const char *path;
	long long size;
	const char *sha256;
	double duration;
	int max_ms;
	long long max_charge;
	long count;
	const char *phase;
	int initials;
};

static struct opts o = {
	.path = "/",
	.size = -1,
	.duration = -1,
	.max_ms = 1000,
	.max_charge = 262144,
	.count = -1,
};

static void kvx(const char *key, unsigned long long v)
{
	printf("# %s=%#llx\n", key, v);
}

static long count_or(long def)
{
	return o.count > 0 ? o.count : def;
}

/* ---- pieces the attacks share ---- */

static int connect_or_fail(struct ap_conn *c, const char *what)
{
	long long t0 = ap_now_ms();

	if (ap_connect(c, &o.ap)) {
		check(0, "%s: handshake with %s", what, o.ap.server);
		ap_free(c);
		return -1;
	}
	kv("handshake_ms", ap_now_ms() - t0);
	return 0;
}

/*
 * "# charge_bytes=N" and the check against --max-charge, with what bounds
 * it in the kernel (@bound).
 */
static void check_charge(struct ap_conn *c, const char *what,
			 const char *bound)
{
	if (c->charge_peak < 0) {
		skip("no line of this connection in /proc/net/quic (not in the guest?)",
		     "%s: server socket charge under %lld bytes", what,
		     o.max_charge);
		return;
	}
	kv("charge_bytes", c->charge_peak);
	kv("charge_rmem_alloc", c->peak_line.rmem_alloc);
	kv("charge_wmem_queued", c->peak_line.wmem_queued);
	kv("charge_omem_alloc", c->peak_line.omem_alloc);
	note("%s: bounded by %s", what, bound);
	check(c->charge_peak <= o.max_charge,
	      "%s: server socket charge %lld bytes at the peak, under %lld",
	      what, c->charge_peak, o.max_charge);
}

static int acked(struct ap_conn *c, void *arg)
{
	uint64_t pn = *(uint64_t *)arg;

	return c->sp[AP_APP].largest_acked != CR_PN_NONE &&
	       c->sp[AP_APP].largest_acked >= pn;
}

/* A PING, ACKed within 5 s (again every second): the connection works. */
static int alive(struct ap_conn *c)
{
	uint8_t ping = CR_FRAME_PING;
	int i;

	for (i = 0; i < 5 && !c->close.closed; i++) {
		uint64_t pn = ap_send(c, &ping, 1, 1);

		if (pn != CR_PN_NONE && !ap_run_until(c, acked, &pn, 1000))
			return 1;
	}
	return 0;
}

static int closed(struct ap_conn *c, void *arg)
{
	(void)arg;
	return c->close.closed;
}

static void print_close(const struct ap_conn *c)
{
	if (!c->close.closed)
		return;
	kvx("close_error", c->close.error);
	kvx("close_frame_type", c->close.frame_type);
	note("the server closed with %s %#llx (%s), frame type %#llx%s%s",
	     c->close.app ? "application error" : "transport error",
	     (unsigned long long)c->close.error,
	     c->close.app ? "-" : ap_error_name(c->close.error),
	     (unsigned long long)c->close.frame_type,
	     c->close.reason[0] ? ", reason: " : "", c->close.reason);
}

/* Closed by the server with transport error @err? */
static int check_close(struct ap_conn *c, uint64_t err, const char *what)
{
	ap_run_until(c, closed, NULL, 10000);
	print_close(c);
	return check(c->close.closed && !c->close.app && c->close.error == err,
		     "%s: closed with %s (%#llx)%s", what, ap_error_name(err),
		     (unsigned long long)err,
		     !c->close.closed ? ": no CONNECTION_CLOSE in 10 s" : "");
}

static void attacker_bytes(const struct ap_conn *c)
{
	kv("attacker_bytes", c->tx_bytes);
	kv("attacker_packets", c->tx_dgrams);
	kv("server_bytes", c->rx_bytes);
}

/*
 * The end of an attack on @c: what it sent and got, the server's close if
 * any, the charge against --max-charge with what bounds it (@bound), and
 * a PING if the connection is still open; then @c is closed and freed.
 */
static void conclude(struct ap_conn *c, const char *what, const char *bound)
{
	attacker_bytes(c);
	print_close(c);
	check_charge(c, what, bound);
	if (!c->close.closed)
		check(alive(c), "%s: the connection still works (PING ACKed)",
		      what);
	ap_close(c, 0);
	ap_free(c);
}

/* Send @frames packed into as few packets as fit; burst-wise, reading between. */
struct packer {
	struct ap_conn *c;
	uint8_t buf[1500];
	size_t len, room;
	int with_ack;
	long packets;
};

static void packer_init(struct packer *p, struct ap_conn *c, int with_ack)
{
	p->c = c;
	p->len = 0;
	p->with_ack = with_ack;
	p->room = ap_room(c, with_ack);
	p->packets = 0;
}

static void packer_flush(struct packer *p)
{
	if (!p->len)
		return;
	ap_send(p->c, p->buf, p->len, p->with_ack);
	p->len = 0;
	/* read what came, every 16 packets, and sample the charge */
	if (++p->packets % 16 == 0) {
		ap_run(p->c, 0);
		ap_charge_sample(p->c);
	}
}

static void packer_add(struct packer *p, const uint8_t *f, size_t n)
{
	if (p->len + n > p->room)
		packer_flush(p);
	memcpy(p->buf + p->len, f, n);
	p->len += n;
}

/* ---- handshake ---- */

static void hex(const uint8_t *b, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

struct get_state {
	int64_t id;
};

static int answered(struct ap_conn *c, void *arg)
{
	struct ap_stream *s = ap_stream_find(c, ((struct get_state *)arg)->id);

	return !s || s->reset ||
	       (s->fin != UINT64_MAX &&
		ap_ranges_run_end(&s->have, 0) >= s->fin);
}

static int attack_handshake(void)
{
	struct ap_conn c;
	struct get_state g;
	struct ap_stream *s;
	long long t0;
	uint8_t sum[32];
	char sumhex[65];

	if (connect_or_fail(&c, "handshake"))
		return 1;
	check(1, "handshake with %s, ALPN %s, HANDSHAKE_DONE received",
	      o.ap.server, c.alpn);
	check(!strcmp(c.alpn, o.ap.alpn ? o.ap.alpn : "hq-interop"),
	      "the server chose ALPN %s", c.alpn);
	t0 = ap_now_ms();
	g.id = ap_request(&c, o.path, 1);
	if (g.id < 0) {
		check(0, "GET %s", o.path);
		ap_free(&c);
		return 1;
	}
	ap_run_until(&c, answered, &g, 60000);
	ap_charge_sample(&c);
	s = ap_stream_find(&c, g.id);
	kv("bytes", s->bytes);
	kv("download_ms", ap_now_ms() - t0);
	check(!s->reset && s->fin != UINT64_MAX &&
	      ap_ranges_run_end(&s->have, 0) == s->fin,
	      "GET %s: %llu bytes to FIN%s", o.path,
	      (unsigned long long)s->bytes,
	      s->reset ? " (the server reset the stream)" : "");
	if (o.size >= 0)
		check(s->fin == (uint64_t)o.size, "GET %s: %lld bytes expected",
		      o.path, o.size);
	if (s->fin != UINT64_MAX && s->fin <= s->cap && s->buf &&
	    !gnutls_hash_fast(GNUTLS_DIG_SHA256, s->buf, s->fin, sum)) {
		hex(sum, 32, sumhex);
		note("sha256=%s", sumhex);
		if (o.sha256)
			check(!strcasecmp(sumhex, o.sha256), "GET %s: SHA-256 %s",
			      o.path, o.sha256);
	} else if (o.sha256) {
		check(0, "GET %s: SHA-256 (no whole answer kept)", o.path);
	}
	attacker_bytes(&c);
	check(!c.close.closed, "the connection is still open");
	print_close(&c);
	ap_close(&c, 0);
	ap_free(&c);
	return 0;
}

/* ---- PING latency ---- */

#define PINGS_MAX	4096

struct pinger {
	struct ap_conn c;
	uint64_t pn[PINGS_MAX];
	uint64_t sent_ns[PINGS_MAX];
	double lat_ms[PINGS_MAX];	/* -1 while not ACKed */
	int n, acked;
	long long next;
};

/* An ACK from the server: the PINGs it covers, timed by its arrival. */
static void pinger_frame(struct ap_conn *c, int space,
			 const struct cr_frame *f, void *arg)
{
	struct pinger *p = arg;
	int i;

	if (space != AP_APP || f->type != CR_FRAME_ACK)
		return;
	for (i = p->n - 1; i >= 0; i--) {
		if (p->lat_ms[i] >= 0 || !cr_ack_covers(f, p->pn[i]))
			continue;
		p->lat_ms[i] = (c->rx_ts_ns - p->sent_ns[i]) / 1e6;
		p->acked++;
	}
}

static int pinger_start(struct pinger *p)
{
	memset(p, 0, sizeof(*p));
	if (ap_connect(&p->c, &o.ap))
		return -1;
	p->c.on_frame = pinger_frame;
	p->c.cb_arg = p;
	p->next = ap_now_ms();
	return 0;
}

/* A PING if the next one is due. */
static void pinger_tick(struct pinger *p)
{
	uint8_t ping = CR_FRAME_PING;
	uint64_t ns = ap_realtime_ns(), pn;

	if (ap_now_ms() < p->next || p->n == PINGS_MAX || p->c.close.closed)
		return;
	p->next += 100;
	if (p->next < ap_now_ms())
		p->next = ap_now_ms() + 100;
	pn = ap_send(&p->c, &ping, 1, 1);
	if (pn == CR_PN_NONE)
		return;
	p->pn[p->n] = pn;
	p->sent_ns[p->n] = ns;
	p->lat_ms[p->n] = -1;
	p->n++;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Wait for the last ACKs, then report; the number of failed checks. */
static int pinger_report(struct pinger *p, const char *what)
{
	long long deadline = ap_now_ms() + o.max_ms + 1000;
	double sorted[PINGS_MAX], max = 0;
	int i, k = 0;

	while (p->acked < p->n && ap_now_ms() < deadline && !p->c.close.closed)
		ap_run(&p->c, deadline - ap_now_ms());
	for (i = 0; i < p->n; i++)
		if (p->lat_ms[i] >= 0)
			sorted[k++] = p->lat_ms[i];
	qsort(sorted, k, sizeof(double), cmp_double);
	if (k)
		max = sorted[k - 1];
	kv("pings", p->n);
	kv("pings_acked", p->acked);
	printf("# ping_max_ms=%.1f\n", max);
	printf("# ping_median_ms=%.1f\n", k ? sorted[k / 2] : 0.0);
	printf("# ping_p99_ms=%.1f\n", k ? sorted[k * 99 / 100] : 0.0);
	print_close(&p->c);
	i = !check(p->n > 0 && p->acked == p->n && !p->c.close.closed,
		   "%s: every PING ACKed (%d of %d)", what, p->acked, p->n);
	i += !check(k && max < o.max_ms, "%s: PING answered within %d ms (max %.1f ms)",
		    what, o.max_ms, max);
	return i;
}

static int attack_ping(void)
{
	static struct pinger p;
	long long end;

	if (pinger_start(&p)) {
		check(0, "ping: handshake with %s", o.ap.server);
		return 1;
	}
	end = ap_now_ms() + (long long)((o.duration > 0 ? o.duration : 10) * 1000);
	while (ap_now_ms() < end && !p.c.close.closed) {
		pinger_tick(&p);
		ap_run(&p.c, p.next > ap_now_ms() ? p.next - ap_now_ms() : 0);
	}
	pinger_report(&p, "ping");
	ap_close(&p.c, 0);
	ap_free(&p.c);
	return 0;
}

/* ---- crypto-flood ---- */

static int attack_crypto_flood(void)
{
	struct ap_conn c;
	uint8_t data[1000], f[1100];
	long n = count_or(200), i;
	uint64_t off = 0;
	long long charge0;
	size_t len;

	if (connect_or_fail(&c, "crypto-flood"))
		return 1;
	charge0 = ap_charge_sample(&c);
	kv("charge_before", charge0);
	memset(data, 0x16, sizeof(data));	/* a TLS handshake type byte */
	for (i = 0; i < n && !c.close.closed; i++) {
		len = cr_put_crypto(f, off, data, sizeof(data));
		off += sizeof(data);
		ap_send(&c, f, len, 1);
		if (i % 8 == 7) {
			ap_run(&c, 0);
			ap_charge_sample(&c);
		}
	}
	kv("crypto_frames", i);
	kv("crypto_bytes", off);
	check_close(&c, 0x10a, "CRYPTO in 1-RTT");
	/*
	 * What the server holds for the connection may not grow by more than
	 * its CONNECTION_CLOSE: the CRYPTO data is not kept anywhere.
	 */
	if (c.charge_peak >= 0)
		check(c.charge_peak <= (charge0 > 0 ? charge0 : 0) + 4096,
		      "crypto-flood: the server socket's charge did not grow (%lld bytes before, %lld at the peak)",
		      charge0, c.charge_peak);
	/*
	 * The first CRYPTO frame closes the connection: what follows meets a
	 * closing socket, which processes nothing and answers each packet
	 * with CONNECTION_CLOSE (rate-limited by the closing period).
	 */
	conclude(&c, "crypto-flood",
		 "the close on the first CRYPTO frame (nothing of it is kept)");
	return 0;
}

/* ---- path-challenge-flood ---- */

struct pc_state {
	long packets;			/* of ours sent so far */
	int per_packet;
	uint8_t *seen;			/* responses per challenge of ours */
	uint8_t *answered;		/* responses per packet of ours */
	long responses, dups, multi, not_latest, unknown;
};

static void pc_frame(struct ap_conn *c, int space, const struct cr_frame *f,
		     void *arg)
{
	struct pc_state *s = arg;
	uint64_t v = 0;
	long pkt;
	int i, j;

	(void)c;
	if (space != AP_APP || f->type != CR_FRAME_PATH_RESPONSE)
		return;
	for (i = 0; i < 8; i++)
		v = v << 8 | f->path_data[i];
	/* our data: 0x5043 ("PC"), packet index (32 bits), challenge (16) */
	pkt = (v >> 16) & 0xffffffff;
	j = v & 0xffff;
	s->responses++;
	if (v >> 48 != 0x5043 || pkt >= s->packets) {
		s->unknown++;
		return;
	}
	if (j >= s->per_packet) {
		s->unknown++;
		return;
	}
	if (s->seen[pkt * s->per_packet + j]++)
		s->dups++;		/* the same challenge answered again */
	if (s->answered[pkt]++)
		s->multi++;		/* another challenge of the same packet */
	if (j != s->per_packet - 1)
		s->not_latest++;
}

static int attack_path_challenge_flood(void)
{
	struct ap_conn c;
	struct pc_state s = { 0 };
	long n = count_or(200), i;
	uint8_t pkt[1500];
	long long end;
	int j, len;

	if (connect_or_fail(&c, "path-challenge-flood"))
		return 1;
	s.per_packet = ap_room(&c, 0) / 9;
	s.seen = calloc(n, s.per_packet);
	s.answered = calloc(n, 1);
	c.on_frame = pc_frame;
	c.cb_arg = &s;
	c.auto_ack = 0;		/* the server's packets are never ACKed */
	for (i = 0; i < n && !c.close.closed; i++) {
		for (j = 0, len = 0; j < s.per_packet; j++) {
			uint8_t d[8];
			uint64_t v = 0x5043ULL << 48 | (uint64_t)i << 16 | j;
			int k;

			for (k = 0; k < 8; k++)
				d[k] = v >> (56 - 8 * k);
			len += cr_put_path_challenge(pkt + len, d);
		}
		s.packets = i + 1;
		ap_send(&c, pkt, len, 0);
		if (i % 8 == 7) {
			ap_run(&c, 0);
			ap_charge_sample(&c);
		}
	}
	/* unACKed, the server's PTO fires: no PATH_RESPONSE may come again */
	end = ap_now_ms() + 3000;
	while (ap_now_ms() < end && !c.close.closed) {
		ap_run(&c, end - ap_now_ms());
		ap_charge_sample(&c);
	}
	kv("challenges_sent", s.packets * s.per_packet);
	kv("packets_sent", s.packets);
	kv("path_responses", s.responses);
	kv("path_responses_repeated", s.dups);
	kv("path_responses_same_packet", s.multi);
	kv("path_responses_not_latest", s.not_latest);
	check(s.responses > 0, "the server answers PATH_CHALLENGE");
	check(!s.multi && !s.unknown,
	      "at most one PATH_RESPONSE per packet of challenges (%ld for %ld packets, %ld more for a packet answered already)",
	      s.responses, s.packets, s.multi);
	check(!s.dups, "no PATH_RESPONSE sent twice (RFC 9000 §13.3), %ld were",
	      s.dups);
	note("%ld PATH_RESPONSEs answered an earlier challenge of their packet than the last",
	     s.not_latest);
	c.auto_ack = 1;
	conclude(&c, "path-challenge-flood",
		 "one pending PATH_RESPONSE per path, never retransmitted");
	free(s.seen);
	free(s.answered);
	return 0;
}

/* ---- bogus-ack ---- */

/* Packets of the server until its largest packet number is @target. */
static int server_sent(struct ap_conn *c, void *arg)
{
	uint64_t target = *(uint64_t *)arg;

	return c->sp[AP_APP].largest_rx != CR_PN_NONE &&
	       c->sp[AP_APP].largest_rx >= target;
}

/*
 * Make the server send at least @target packets: the file of --path,
 * then PATH_CHALLENGEs one by one (each answered in a packet), within
 * @ms.
 */
static void make_server_send(struct ap_conn *c, uint64_t target, int ms)
{
	long long deadline = ap_now_ms() + ms;
	struct get_state g;
	uint8_t f[9], d[8] = "fillpns";
	uint64_t last;

	g.id = ap_request(c, o.path, 0);
	if (g.id >= 0)
		ap_run_until(c, answered, &g, ms / 2);
	while (!server_sent(c, &target) && ap_now_ms() < deadline &&
	       !c->close.closed) {
		last = c->sp[AP_APP].largest_rx;
		d[7]++;
		cr_put_path_challenge(f, d);
		ap_send(c, f, sizeof(f), 1);
		last = last == CR_PN_NONE ? 0 : last + 1;
		ap_run_until(c, server_sent, &last, 1000);
	}
}

/*
 * An ACK frame of @nr ranges below @largest: [largest, largest], then
 * one packet number every other one (gap 0, length 0), 2 bytes each.
 */
static size_t put_huge_ack(uint8_t *p, uint64_t largest, int nr)
{
	size_t off = 0;
	int i;

	p[off++] = CR_FRAME_ACK;
	off += cr_put_varint(p + off, largest);
	off += cr_put_varint(p + off, 0);
	off += cr_put_varint(p + off, nr - 1);
	off += cr_put_varint(p + off, 0);
	for (i = 1; i < nr; i++) {
		p[off++] = 0;
		p[off++] = 0;
	}
	return off;
}

static int attack_bogus_ack(void)
{
	static struct pinger p;
	struct ap_conn c, *both[2];
	uint8_t buf[1500];
	long n = count_or(LONG_MAX), i;
	uint64_t largest, target;
	size_t len;
	int nr, max_nr;
	long long t0, end;

	/* 1. An ACK of a packet number the server has not reached. */
	if (connect_or_fail(&c, "bogus-ack"))
		return 1;
	largest = c.sp[AP_APP].largest_rx == CR_PN_NONE ? 0 :
		  c.sp[AP_APP].largest_rx;
	{
		struct cr_range r = { largest + 1000, largest + 1000 };

		len = cr_put_ack(buf, &r, 1, 0);
	}
	buf[len++] = CR_FRAME_PING;
	ap_send(&c, buf, len, 0);
	kv("acked_pn", largest + 1000);
	check_close(&c, 0x0a, "ACK of a packet never sent");
	ap_free(&c);

	/* 2. The biggest ACK frames a packet holds, over and over. */
	if (pinger_start(&p)) {
		check(0, "bogus-ack: handshake of the PING connection");
		return 1;
	}
	if (connect_or_fail(&c, "bogus-ack (huge ACKs)")) {
		ap_free(&p.c);
		return 1;
	}
	/* header, largest, delay, count, first range, then 2 bytes a range */
	max_nr = (ap_room(&c, 0) - 1 - 8 - 1 - 2 - 1) / 2;
	target = 2 * max_nr;
	t0 = ap_now_ms();
	make_server_send(&c, target, 30000);
	largest = c.sp[AP_APP].largest_rx;
	nr = largest / 2 < (uint64_t)max_nr ? (int)(largest / 2) : max_nr;
	kv("server_packets_before", largest + 1);
	kv("fill_ms", ap_now_ms() - t0);
	kv("ack_ranges", nr);
	if (nr < 2) {
		check(0, "the server sent packets enough for a big ACK frame");
		goto out;
	}
	len = put_huge_ack(buf, largest, nr);
	kv("ack_frame_bytes", len);
	both[0] = &c;
	both[1] = &p.c;
	p.next = ap_now_ms();
	t0 = ap_now_ms();
	end = t0 + (long long)((o.duration > 0 ? o.duration : 5) * 1000);
	for (i = 0; i < n && !c.close.closed && ap_now_ms() < end; i++) {
		ap_send(&c, buf, len, 0);
		pinger_tick(&p);
		if (i % 16 == 15) {
			ap_run_many(both, 2, 0);
			ap_charge_sample(&c);
		}
	}
	kv("huge_acks_sent", i);
	kv("flood_ms", ap_now_ms() - t0);
	/* pings for 1 s more, as the last ACKs are processed */
	t0 = ap_now_ms() + 1000;
	while (ap_now_ms() < t0) {
		pinger_tick(&p);
		ap_run_many(both, 2, 20);
	}
	ap_charge_sample(&c);
	check(!c.close.closed, "ACKs of real packets with %d ranges do not close the connection",
	      nr);
	pinger_report(&p, "during the huge ACKs");
	conclude(&c, "bogus-ack",
		 "ACK frames are not kept: one walk of the sent list each");
	ap_close(&p.c, 0);
	ap_free(&p.c);
	return 0;
out:
	ap_close(&c, 0);
	ap_free(&c);
	ap_close(&p.c, 0);
	ap_free(&p.c);
	return 0;
}

/* ---- stream-exhaust ---- */

static int stream_limit(struct ap_conn *c)
{
	return (int)(c->peer_max_streams_bidi > 100000 ? 100000 :
		     c->peer_max_streams_bidi);
}

/* Our streams @first to @last - 1 opened, each with @req and no FIN. */
static void open_streams(struct ap_conn *c, int first, int last,
			 const char *req)
{
	struct packer pk;
	uint8_t f[64];
	size_t n;
	int i;

	packer_init(&pk, c, 1);
	for (i = first; i < last; i++) {
		n = cr_put_stream(f, 4 * i, 0, req, strlen(req), 0);
		packer_add(&pk, f, n);
	}
	packer_flush(&pk);
}

/* Every stream the server allows, each with a partial request; then one more. */
static int se_streams(void)
{
	struct ap_conn c;
	struct hp_conn line;
	uint8_t f[64], big[1200], data[1100];
	uint64_t win;
	size_t n, held;
	int limit, i;

	if (connect_or_fail(&c, "stream-exhaust streams"))
		return 1;
	limit = stream_limit(&c);
	kv("max_streams_bidi", limit);
	open_streams(&c, 0, limit, "GET /half-open");
	ap_run(&c, 500);
	ap_charge_sample(&c);
	ap_run(&c, 500);
	ap_charge_sample(&c);
	if (!ap_server_line(&c, &line))
		kv("server_streams", line.streams);
	kv("streams_opened", limit);
	check_charge(&c, "stream-exhaust streams",
		     "MAX_STREAMS: each stream charged to optmem (omem_alloc), its data to the receive buffer");
	check(alive(&c), "%d half-open streams: the connection works", limit);

	/*
	 * Then on each of them data the server must hold: past a gap (the
	 * request's first 14 bytes came, then nothing until 64), as much as
	 * the windows allow, up to 1100 bytes a stream.
	 */
	c.charge_peak = -1;
	memset(data, 'x', sizeof(data));
	win = c.peer_tp.ints[CR_TP_INITIAL_MAX_DATA] / (limit ? limit : 1);
	if (win > c.peer_tp.ints[CR_TP_MAX_STREAM_DATA_BIDI_REMOTE])
		win = c.peer_tp.ints[CR_TP_MAX_STREAM_DATA_BIDI_REMOTE];
	held = win > 64 + sizeof(data) ? sizeof(data) : win > 64 ? win - 64 : 0;
	for (i = 0; i < limit && held && !c.close.closed; i++) {
		n = cr_put_stream(big, 4 * i, 64, data, held, 0);
		ap_send(&c, big, n, 0);
		if (i % 16 == 15) {
			ap_run(&c, 0);
			ap_charge_sample(&c);
		}
	}
	ap_run(&c, 300);
	ap_charge_sample(&c);
	kv("held_bytes_sent", (long long)held * limit);
	check_charge(&c, "stream-exhaust streams with data held",
		     "MAX_STREAMS streams in optmem, plus out-of-order data up to the receive buffer");
	check(alive(&c), "%d half-open streams holding data: the connection works",
	      limit);
	limit = stream_limit(&c);	/* a MAX_STREAMS may have raised it */
	n = cr_put_stream(f, 4ULL * limit, 0, "GET /", 5, 1);
	ap_send(&c, f, n, 1);
	kv("stream_beyond_limit", 4LL * limit);
	check_close(&c, 0x04, "a stream beyond MAX_STREAMS");
	attacker_bytes(&c);
	ap_free(&c);
	return 0;
}

/* 1-byte STREAM pieces at scattered offsets of the stream's window, none at 0. */
static int se_ooo(void)
{
	struct ap_conn c;
	struct packer pk;
	uint8_t f[32];
	uint64_t win, off;
	long n = count_or(20000), i;
	size_t len;

	if (connect_or_fail(&c, "stream-exhaust ooo"))
		return 1;
	win = c.peer_tp.ints[CR_TP_MAX_STREAM_DATA_BIDI_REMOTE];
	if (c.peer_tp.ints[CR_TP_INITIAL_MAX_DATA] < win)
		win = c.peer_tp.ints[CR_TP_INITIAL_MAX_DATA];
	kv("stream_window", win);
	if (win < 16) {
		check(0, "the server gives a stream window to attack");
		ap_free(&c);
		return 1;
	}
	if ((uint64_t)n > win - 1)
		n = win - 1;
	packer_init(&pk, &c, 1);
	for (i = 0; i < n && !c.close.closed; i++) {
		/* 7919 is prime: i * 7919 mod (win - 1) visits offsets out of order */
		off = 1 + (uint64_t)i * 7919 % (win - 1);
		len = cr_put_stream(f, 0, off, "x", 1, 0);
		packer_add(&pk, f, len);
	}
	packer_flush(&pk);
	ap_run(&c, 300);
	ap_charge_sample(&c);
	kv("pieces", i);
	if (c.charge_peak >= 0)
		printf("# charge_per_piece_sent=%.1f\n", (double)c.charge_peak / i);
	check(!c.close.closed ||
	      (!c.close.app && c.close.error == 0x03),
	      "1-byte pieces within the window: the connection stays, or FLOW_CONTROL_ERROR");
	/*
	 * Each piece is an skb of its own (about 800 bytes of truesize for
	 * one byte), charged to sk_rmem_alloc; out-of-order data is refused
	 * once that reaches sk_rcvbuf (stream_recv.c), its packet dropped
	 * unACKed.
	 */
	conclude(&c, "stream-exhaust ooo",
		 "the receive buffer (sk_rcvbuf): pieces past it are dropped unACKed");
	return 0;
}

/* RESET_STREAM and STOP_SENDING on every stream, round after round, nothing ACKed. */
struct rs_state {
	long resets, stops;
	int per_stream[1024];
};

static void rs_frame(struct ap_conn *c, int space, const struct cr_frame *f,
		     void *arg)
{
	struct rs_state *s = arg;

	(void)c;
	if (space != AP_APP)
		return;
	if (f->type == CR_FRAME_RESET_STREAM) {
		s->resets++;
		if (f->stream_id / 4 < 1024)
			s->per_stream[f->stream_id / 4]++;
	} else if (f->type == CR_FRAME_STOP_SENDING) {
		s->stops++;
	}
}

static int se_resets(void)
{
	struct ap_conn c;
	struct packer pk;
	struct rs_state s;
	uint8_t f[64];
	long rounds = count_or(20), r;
	int limit, i, most = 0;
	uint64_t v[3];
	size_t n;

	if (connect_or_fail(&c, "stream-exhaust resets"))
		return 1;
	memset(&s, 0, sizeof(s));
	c.on_frame = rs_frame;
	c.cb_arg = &s;
	limit = stream_limit(&c) < 1024 ? stream_limit(&c) : 1024;
	open_streams(&c, 0, limit, "GET /");
	ap_run(&c, 200);
	c.auto_ack = 0;
	packer_init(&pk, &c, 0);
	for (r = 0; r < rounds && !c.close.closed; r++) {
		for (i = 0; i < limit; i++) {
			v[0] = 4 * i;
			v[1] = 0x10 + r;	/* error code */
			v[2] = 5;		/* final size: what was sent */
			n = cr_put_varint_frame(f, CR_FRAME_RESET_STREAM, v, 3);
			packer_add(&pk, f, n);
			n = cr_put_varint_frame(f, CR_FRAME_STOP_SENDING, v, 2);
			packer_add(&pk, f, n);
		}
	}
	packer_flush(&pk);
	ap_run(&c, 1000);
	ap_charge_sample(&c);
	for (i = 0; i < limit; i++)
		if (s.per_stream[i] > most)
			most = s.per_stream[i];
	kv("streams", limit);
	kv("rounds", r);
	kv("frames_sent", 2LL * r * limit);
	kv("server_reset_streams", s.resets);
	kv("server_reset_streams_max_per_stream", most);
	check(!c.close.closed || c.close.app,
	      "RESET_STREAM/STOP_SENDING floods: no transport error");
	c.auto_ack = 1;
	conclude(&c, "stream-exhaust resets",
		 "one RESET_STREAM per stream's send side, retransmitted but never duplicated; MAX_STREAMS");
	return 0;
}

/* MAX_STREAM_DATA, STREAM_DATA_BLOCKED, MAX_DATA, DATA_BLOCKED, STREAMS_BLOCKED. */
static int se_blocked(void)
{
	struct ap_conn c;
	struct packer pk;
	uint8_t f[64];
	long pkts = count_or(100), frames = 0;
	int limit, i;
	uint64_t v[2], k = 0;
	size_t n;

	if (connect_or_fail(&c, "stream-exhaust blocked"))
		return 1;
	limit = stream_limit(&c) < 16 ? stream_limit(&c) : 16;
	open_streams(&c, 0, limit, "GET /");
	packer_init(&pk, &c, 1);
	while (pk.packets < pkts && !c.close.closed) {
		i = k % (limit ? limit : 1);
		v[0] = 4 * i;
		v[1] = (8 << 20) + k;		/* always growing */
		switch (k % 5) {
		case 0:
			n = cr_put_varint_frame(f, CR_FRAME_MAX_STREAM_DATA, v, 2);
			break;
		case 1:
			v[1] = 5;
			n = cr_put_varint_frame(f, CR_FRAME_STREAM_DATA_BLOCKED, v, 2);
			break;
		case 2:
			n = cr_put_varint_frame(f, CR_FRAME_MAX_DATA, v + 1, 1);
			break;
		case 3:
			v[1] = 5 * limit;
			n = cr_put_varint_frame(f, CR_FRAME_DATA_BLOCKED, v + 1, 1);
			break;
		default:
			v[1] = limit;
			n = cr_put_varint_frame(f, CR_FRAME_STREAMS_BLOCKED_BIDI, v + 1, 1);
			break;
		}
		packer_add(&pk, f, n);
		frames++;
		k++;
	}
	packer_flush(&pk);
	ap_run(&c, 500);
	ap_charge_sample(&c);
	kv("frames_sent", frames);
	check(!c.close.closed, "flow-control frame floods: the connection stays");
	conclude(&c, "stream-exhaust blocked",
		 "limits are numbers, overwritten; no frame is queued per frame received");
	return 0;
}

/*
 * Flow control and stream rules broken once each, on a connection of its
 * own: the RFC's error must close it.
 */
static int se_limits(void)
{
	static const struct {
		const char *what;
		uint64_t err;
	} cases[] = {
		{ "a STREAM byte past MAX_STREAM_DATA", 0x03 },
		{ "the last byte of each stream's window, past the connection's MAX_DATA",
		  0x03 },
		{ "RESET_STREAM with a final size below the data received", 0x06 },
		{ "STREAM on the server's unidirectional stream 3", 0x05 },
	};
	uint8_t buf[1200];
	uint64_t v[3], win, conn_win;
	struct ap_conn c;
	size_t n = 0;
	int i, k;

	for (k = 0; k < 4; k++) {
		if (connect_or_fail(&c, "stream-exhaust limits"))
			return 1;
		win = c.peer_tp.ints[CR_TP_MAX_STREAM_DATA_BIDI_REMOTE];
		conn_win = c.peer_tp.ints[CR_TP_INITIAL_MAX_DATA];
		switch (k) {
		case 0:
			n = cr_put_stream(buf, 0, win, "x", 1, 0);
			kv("stream_window", win);
			break;
		case 1:
			for (i = 0, n = 0; (uint64_t)i * win <= conn_win && i < 64; i++)
				n += cr_put_stream(buf + n, 4 * i, win - 1, "x", 1, 0);
			kv("connection_window", conn_win);
			break;
		case 2:
			n = cr_put_stream(buf, 0, 0, "GET /01234", 10, 0);
			v[0] = 0;
			v[1] = 0;
			v[2] = 5;
			n += cr_put_varint_frame(buf + n, CR_FRAME_RESET_STREAM, v, 3);
			break;
		default:
			n = cr_put_stream(buf, 3, 0, "x", 1, 0);
			break;
		}
		ap_send(&c, buf, n, 1);
		check_close(&c, cases[k].err, cases[k].what);
		ap_free(&c);
	}
	return 0;
}

static int attack_stream_exhaust(void)
{
	const char *ph = o.phase ? o.phase : "all";
	int all = !strcmp(ph, "all"), done = 0;

	if (all || !strcmp(ph, "streams"))
		done++, se_streams();
	if (all || !strcmp(ph, "ooo"))
		done++, se_ooo();
	if (all || !strcmp(ph, "resets"))
		done++, se_resets();
	if (all || !strcmp(ph, "blocked"))
		done++, se_blocked();
	if (all || !strcmp(ph, "limits"))
		done++, se_limits();
	if (!done) {
		fprintf(stderr, "hostile_peer: --phase streams, ooo, resets, blocked, limits or all\n");
		return 2;
	}
	return 0;
}

/* ---- cid-flood ---- */

struct cid_state {
	long retires;
	uint64_t retire_max;
};

static void cid_frame(struct ap_conn *c, int space, const struct cr_frame *f,
		      void *arg)
{
	struct cid_state *s = arg;

	(void)c;
	if (space == AP_APP && f->type == CR_FRAME_RETIRE_CONNECTION_ID) {
		s->retires++;
		if (f->value > s->retire_max)
			s->retire_max = f->value;
	}
}

/* NEW_CONNECTION_ID 1..@n, retire_prior_to 0 (@games: seq - 1). */
static void cid_new(struct ap_conn *c, long n, int games)
{
	struct packer pk;
	uint8_t f[64], cid[8], token[16];
	long i;
	size_t len;

	packer_init(&pk, c, 1);
	for (i = 1; i <= n && !c->close.closed; i++) {
		memcpy(cid, c->scid, 8);
		cid[0] ^= i;
		cid[1] ^= i >> 8;
		cid[2] ^= i >> 16;
		cid[3] ^= 0x80;		/* never our SCID itself */
		memset(token, i, sizeof(token));
		len = cr_put_new_connection_id(f, i, games ? i - 1 : 0, cid, 8,
					       token);
		packer_add(&pk, f, len);
	}
	packer_flush(&pk);
	ap_run(c, 500);
	ap_charge_sample(c);
}

static int attack_cid_flood(void)
{
	struct ap_conn c;
	struct cid_state s;
	long n = count_or(1000);
	uint8_t f[16];
	uint64_t v;
	size_t len;

	/* 1. Past the limit, none retired. */
	if (connect_or_fail(&c, "cid-flood"))
		return 1;
	memset(&s, 0, sizeof(s));
	c.on_frame = cid_frame;
	c.cb_arg = &s;
	kv("server_active_connection_id_limit",
	   c.peer_tp.ints[CR_TP_ACTIVE_CID_LIMIT]);
	cid_new(&c, n, 0);
	kv("new_connection_ids", n);
	if (c.close.closed && !c.close.app && c.close.error == 0x09)
		note("the server closed with CONNECTION_ID_LIMIT_ERROR, as RFC 9000 §5.1.1 says");
	else
		note("the server did not close with CONNECTION_ID_LIMIT_ERROR (RFC 9000 §5.1.1) when given %ld connection IDs for a limit of %llu: %s",
		     n + 1, (unsigned long long)c.peer_tp.ints[CR_TP_ACTIVE_CID_LIMIT],
		     c.close.closed ? "it closed otherwise" : "it kept the connection");
	conclude(&c, "cid-flood past the limit",
		 "active_connection_id_limit: connection IDs past it are not kept");

	/* 2. retire_prior_to games: each one retires all before it. */
	if (connect_or_fail(&c, "cid-flood retire_prior_to"))
		return 1;
	memset(&s, 0, sizeof(s));
	c.on_frame = cid_frame;
	c.cb_arg = &s;
	cid_new(&c, n, 1);
	ap_run(&c, 500);
	kv("new_connection_ids", n);
	kv("server_retire_connection_ids", s.retires);
	kv("server_retire_max_seq", s.retire_max);
	note("the server sent %ld RETIRE_CONNECTION_ID for %ld connection IDs retired by retire_prior_to (RFC 9000 §5.1.2 wants each retired)",
	     s.retires, n - 1);
	conclude(&c, "cid-flood retire_prior_to",
		 "active_connection_id_limit: connection IDs past it are not kept");

	/* 3. RETIRE_CONNECTION_ID of a sequence number never issued. */
	if (connect_or_fail(&c, "cid-flood retire"))
		return 1;
	v = 1000;
	len = cr_put_varint_frame(f, CR_FRAME_RETIRE_CONNECTION_ID, &v, 1);
	ap_send(&c, f, len, 1);
	check_close(&c, 0x0a, "RETIRE_CONNECTION_ID of sequence 1000, never issued");
	ap_free(&c);
	return 0;
}

/* ---- event-exhaust ---- */

static int ku_done(struct ap_conn *c, void *arg)
{
	(void)arg;
	return c->ku_confirmed;
}

static int more_streams(struct ap_conn *c, void *arg)
{
	return stream_limit(c) > *(int *)arg;
}

static int attack_event_exhaust(void)
{
	struct ap_conn c;
	struct packer pk;
	long n = count_or(50), i;
	uint8_t ping = CR_FRAME_PING, f[64];
	uint64_t v[3];
	int limit, j, tries, r, first = 0;
	size_t len;
	long long t0;

	if (connect_or_fail(&c, "event-exhaust"))
		return 1;
	/* our first 1-RTT packet ACKed: updates may start (RFC 9001 §6.1) */
	check(alive(&c), "event-exhaust: connection up");
	t0 = ap_now_ms();
	for (i = 0; i < n && !c.close.closed; i++) {
		if (ap_key_update(&c))
			break;
		for (tries = 0; tries < 5 && !c.ku_confirmed &&
		     !c.close.closed; tries++) {
			ap_send(&c, &ping, 1, 1);
			ap_run_until(&c, ku_done, NULL, 1000);
		}
		if (!c.ku_confirmed)
			break;
		if (i % 4 == 3)
			ap_charge_sample(&c);
	}
	kv("key_updates", c.key_updates_ours);
	kv("key_updates_ms", ap_now_ms() - t0);
	print_close(&c);
	check(c.key_updates_ours == n && !c.close.closed,
	      "%ld key updates, each followed by the server (%d done)", n,
	      c.key_updates_ours);

	/*
	 * Streams opened and closed both ways (RESET_STREAM, and STOP_SENDING
	 * for the server's RESET_STREAM), as often as MAX_STREAMS lets: the
	 * stream events quic-hq does not subscribe to, and stream churn.
	 */
	for (r = 0; r < 5 && !c.close.closed; r++) {
		limit = stream_limit(&c);
		if (limit > first + 1024)
			limit = first + 1024;
		packer_init(&pk, &c, 1);
		for (j = first; j < limit; j++) {
			len = cr_put_stream(f, 4 * j, 0, "GET /", 5, 0);
			packer_add(&pk, f, len);
			v[0] = 4 * j;
			v[1] = 1;
			v[2] = 5;
			len = cr_put_varint_frame(f, CR_FRAME_RESET_STREAM, v, 3);
			packer_add(&pk, f, len);
			len = cr_put_varint_frame(f, CR_FRAME_STOP_SENDING, v, 2);
			packer_add(&pk, f, len);
		}
		packer_flush(&pk);
		first = limit;
		/* the server gives streams back as they close */
		ap_run_until(&c, more_streams, &first, 2000);
		ap_charge_sample(&c);
	}
	kv("streams_opened_and_reset", first);
	kv("stream_rounds", r);
	check(first > 100, "streams given back as they close: %d opened in %d rounds",
	      first, r);
	conclude(&c, "event-exhaust",
		 "events only of the types the application enabled (quic-hq: KEY_UPDATE), which one update at a time bounds; quic-hq reads them; closed streams are freed");
	return 0;
}

/* ---- amplification ---- */

static int amp_once(int initials)
{
	struct ap_conn c;
	uint8_t d[65536], f[AP_CRYPTO_MAX + 16];
	long long end, next;
	int sent = 1;
	ssize_t n;
	double factor;
	size_t len;

	if (ap_start(&c, &o.ap)) {
		check(0, "amplification: first Initial to %s", o.ap.server);
		ap_free(&c);
		return 1;
	}
	/* from now on nothing is read into the client: bytes are counted */
	c.rx_bytes = c.rx_dgrams = 0;
	end = ap_now_ms() + (long long)((o.duration > 0 ? o.duration : 10) * 1000);
	next = ap_now_ms() + 300;
	for (;;) {
		long long now = ap_now_ms(), wait = end - now;
		struct pollfd pfd = { .fd = c.fd, .events = POLLIN };

		if (wait <= 0)
			break;
		if (sent < initials && next - now < wait)
			wait = next - now > 0 ? next - now : 0;
		if (poll(&pfd, 1, wait) > 0) {
			while ((n = recv(c.fd, d, sizeof(d), MSG_DONTWAIT)) >= 0) {
				c.rx_bytes += n;
				c.rx_dgrams++;
			}
		}
		if (sent < initials && ap_now_ms() >= next) {
			/* the ClientHello again, as a client's PTO would send it */
			struct ap_space *sp = &c.sp[AP_INITIAL];

			len = cr_put_crypto(f, 0, sp->ctx, sp->ctx_len < 1100 ?
							   sp->ctx_len : 1100);
			ap_send_long(&c, AP_INITIAL, f, len, 1200);
			sent++;
			next = ap_now_ms() + 300;
		}
	}
	factor = c.tx_bytes ? (double)c.rx_bytes / c.tx_bytes : 0;
	printf("# initials=%d\n", initials);
	kv("amp_sent_bytes", c.tx_bytes);
	kv("amp_received_bytes", c.rx_bytes);
	kv("amp_received_datagrams", c.rx_dgrams);
	printf("# amp_factor=%.2f\n", factor);
	check(c.rx_bytes > 0, "%d Initial(s): the server answers", initials);
	check(c.rx_bytes <= 3 * c.tx_bytes,
	      "%d Initial(s), %llu bytes: the server sent %llu bytes, %.2fx, at most 3x (RFC 9000 §8.1)",
	      initials, (unsigned long long)c.tx_bytes,
	      (unsigned long long)c.rx_bytes, factor);
	ap_free(&c);
	return 0;
}

static int attack_amplification(void)
{
	int i;

	if (o.initials) {
		if (o.initials < 1 || o.initials > 3) {
			fprintf(stderr, "hostile_peer: --initials 1, 2 or 3\n");
			return 2;
		}
		return amp_once(o.initials);
	}
	for (i = 1; i <= 3; i++)
		amp_once(i);
	return 0;
}

/* ---- main ---- */

/*
 * peer.c's range sets against a plain bitmap, with seeded random inserts
 * (single values and runs, in any order): membership, the run from 0,
 * ranges sorted and disjoint; past AP_RANGES_MAX ranges only the lowest
 * may be forgotten.  Returns the mismatches.
 */
static int ranges_selftest(void)
{
	static struct ap_ranges s;
	uint8_t ref[4096];
	int round, i, bad = 0;

	srand(12);
	for (round = 0; round < 200 && !bad; round++) {
		int max = round < 100 ? 4096 : 600;	/* dense, then sparse */

		ap_ranges_init(&s);
		memset(ref, 0, sizeof(ref));
		for (i = 0; i < 300; i++) {
			uint64_t lo = rand() % max, len = rand() % 4 ? 1 : rand() % 40;
			uint64_t hi = lo + len < 4096 ? lo + len : 4095, v;

			ap_ranges_add(&s, lo, hi);
			for (v = lo; v <= hi; v++)
				ref[v] = 1;
		}
		for (i = 1; i < s.n; i++)
			if (s.r[i].hi + 1 >= s.r[i - 1].lo)
				bad++;		/* not sorted, or not merged */
		for (i = 0; i < 4096; i++) {
			int has = ap_ranges_has(&s, i);

			/* a forgotten value is only below every kept range */
			if (has != ref[i] && (has || s.n < AP_RANGES_MAX ||
					      (uint64_t)i >= s.r[s.n - 1].lo))
				bad++;
		}
		for (i = 0; i < 4096 && ref[i]; i++)
			;
		if (s.n < AP_RANGES_MAX && ap_ranges_run_end(&s, 0) != (uint64_t)i)
			bad++;
	}
	return bad;
}

static int selftest(void)
{
	int bad = cr_selftest();

	check(!bad, "craft.h against RFC 9001 Appendix A (%d mismatches)", bad);
	bad = cr_initial_selftest();
	check(!bad, "craft.h Initial, Handshake and transport parameters (%d mismatches)",
	      bad);
	bad = ranges_selftest();
	check(!bad, "peer.c range sets against a bitmap, random inserts (%d mismatches)",
	      bad);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
	int needs_server;
} attacks[] = {
	{ "selftest", selftest, 0 },
	{ "handshake", attack_handshake, 1 },
	{ "ping", attack_ping, 1 },
	{ "crypto-flood", attack_crypto_flood, 1 },
	{ "path-challenge-flood", attack_path_challenge_flood, 1 },
	{ "bogus-ack", attack_bogus_ack, 1 },
	{ "stream-exhaust", attack_stream_exhaust, 1 },
	{ "cid-flood", attack_cid_flood, 1 },
	{ "event-exhaust", attack_event_exhaust, 1 },
	{ "amplification", attack_amplification, 1 },
};

static void usage(void)
{
	int i;

	fprintf(stderr, "usage: hostile_peer ATTACK --server ADDR:PORT [options]\nattacks:");
	for (i = 0; i < (int)(sizeof(attacks) / sizeof(attacks[0])); i++)
		fprintf(stderr, " %s", attacks[i].name);
	fprintf(stderr, "\n(the header of tests/hostile/hostile_peer.c has the options and the output)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "server", 1, NULL, 's' }, { "path", 1, NULL, 'p' },
		{ "size", 1, NULL, 'S' }, { "sha256", 1, NULL, 'H' },
		{ "duration", 1, NULL, 'd' }, { "max-ms", 1, NULL, 'm' },
		{ "max-charge", 1, NULL, 'c' }, { "count", 1, NULL, 'n' },
		{ "phase", 1, NULL, 'P' }, { "initials", 1, NULL, 'i' },
		{ "alpn", 1, NULL, 'a' }, { "chacha", 0, NULL, 'C' },
		{ "timeout", 1, NULL, 't' }, { "verbose", 0, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	int i, ch, ret;

	if (argc < 2 || argv[1][0] == '-')
		usage();
	while ((ch = getopt_long(argc - 1, argv + 1, "", lo, NULL)) != -1) {
		switch (ch) {
		case 's':
			o.ap.server = optarg;
			break;
		case 'p':
			o.path = optarg;
			break;
		case 'S':
			o.size = atoll(optarg);
			break;
		case 'H':
			o.sha256 = optarg;
			break;
		case 'd':
			o.duration = atof(optarg);
			break;
		case 'm':
			o.max_ms = atoi(optarg);
			break;
		case 'c':
			o.max_charge = atoll(optarg);
			break;
		case 'n':
			o.count = atol(optarg);
			break;
		case 'P':
			o.phase = optarg;
			break;
		case 'i':
			o.initials = atoi(optarg);
			break;
		case 'a':
			o.ap.alpn = optarg;
			break;
		case 'C':
			o.ap.chacha = 1;
			break;
		case 't':
			o.ap.timeout_ms = atoi(optarg);
			break;
		case 'v':
			o.ap.verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	for (i = 0; i < (int)(sizeof(attacks) / sizeof(attacks[0])); i++) {
		if (strcmp(argv[1], attacks[i].name))
			continue;
		if (attacks[i].needs_server && !o.ap.server)
			usage();
		setvbuf(stdout, NULL, _IOLBF, 0);
		ret = attacks[i].fn();
		if (ret == 2) {
			report_end();
			return 2;
		}
		return report_end();
	}
	usage();
	return 2;
}

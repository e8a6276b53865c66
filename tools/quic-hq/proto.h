/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * quic-hq: what the client and server loops need from the protocol they
 * speak, "hq-interop" (HTTP/0.9) or "h3" (HTTP/3).  The loops do the
 * socket work (open streams, send, receive, reset) the same way for both;
 * these hooks turn the bytes of a stream into requests, answers and file
 * content, and back.  Nothing here touches a socket, so tests can drive a
 * client and a server against each other in memory.
 */

#ifndef QUIC_HQ_PROTO_H
#define QUIC_HQ_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "h3.h"
#include "hq.h"

#define HQ_HEAD_MAX	256	/* bytes before an answer's content */
#define HQ_ERR_NOTFOUND	0x1	/* hq-interop: the error code of a reset */

/* Per request stream, on either side. */
struct hq_stream {
	int server;
	union {
		struct {		/* hq-interop server: the request line */
			char line[HQ_PATH_MAX + 16];
			size_t len;
		} h09;
		struct h3_req req;	/* h3 server */
		struct h3_resp resp;	/* h3 client */
	} u;
};

/* Per connection: the peer's unidirectional streams (h3 only). */
struct hq_conn {
	struct h3_conn h3;
};

enum hq_method { HQ_GET, HQ_HEAD, HQ_OTHER };

/* What the server does with a request. */
struct hq_answer {
	uint8_t head[HQ_HEAD_MAX];	/* sent first */
	size_t hlen;
	int file;		/* then this file's bytes, or -1 for none */
	off_t size;		/* of the file's bytes to send */
	int status;		/* for the log */
};

typedef int (*hq_sink_fn)(void *arg, const uint8_t *p, size_t n);

struct hq_proto {
	const char *alpn;
	int h3;

	/* Connection.  preface: bytes to open our control stream with,
	 * 0 when the protocol has none.  uni: bytes of the peer's
	 * unidirectional stream sid; 0, or -error with a message in why
	 * (the caller logs it and goes on).
	 */
	void (*conn_init)(struct hq_conn *c, int server);
	void (*conn_free)(struct hq_conn *c);
	int (*preface)(uint8_t *buf, size_t cap);
	int (*uni)(struct hq_conn *c, int64_t sid, const uint8_t *p, size_t n,
		   int fin, char *why, size_t wlen);

	void (*stream_init)(struct hq_stream *s, int server);
	void (*stream_free)(struct hq_stream *s);

	/* Client.  request: the bytes of the request for u, sent with FIN;
	 * length or -1.  response: bytes of the answer; the content goes to
	 * sink; 1 when the stream ended with a whole answer, 0 for more,
	 * -error with a message in why.
	 */
	int (*request)(const struct hq_url *u, uint8_t *buf, size_t cap);
	int (*response)(struct hq_stream *s, const uint8_t *p, size_t n,
			int fin, hq_sink_fn sink, void *arg, char *why,
			size_t wlen);

	/* Server.  on_request: bytes of the request; 1 with method and path
	 * once it is whole, 0 for more, or -code: reset the stream with
	 * that application error code.  answer: fills a->head with what
	 * goes before the content for status, or returns -code: reset the
	 * stream instead.
	 */
	int (*on_request)(struct hq_stream *s, const uint8_t *p, size_t n,
			  int fin, enum hq_method *m, char *path, size_t plen);
	int (*answer)(struct hq_answer *a, int status, enum hq_method m);
	/* (200: a->size is the file's size; the file itself is sent by
	 * the caller after a->head)
	 */
};

extern const struct hq_proto hq_proto_h09, hq_proto_h3;

/* The protocol of an ALPN name, or NULL. */
const struct hq_proto *hq_proto_find(const char *alpn);

/* Opens the file for a request path under root (a resolved path): no
 * "..", the real path must stay inside root, a directory path gives its
 * index.html.  Returns the descriptor with *size set, or -1.
 */
int hq_open_file(const char *root, const char *path, off_t *size);

/* The whole server side of one request: open the file for path under
 * root and fill a (200, 404 or 405).  Returns 0, or -code to reset.
 */
int hq_serve(const struct hq_proto *p, const char *root, enum hq_method m,
	     const char *path, struct hq_answer *a);

/* control.c: opens our control stream and sends p's preface on it (h3);
 * 0, or -1 with a message naming who.
 */
int hq_open_control(int fd, const struct hq_proto *p, const char *who);
/* control.c: --idle-timeout on a socket (see HQ_IDLE_TIMEOUT_MAX) */
int hq_set_idle_timeout(int fd, unsigned int secs);
int hq_handshake_time_limit(int fd, unsigned int secs);
/* control.c: before close(2), after a handshake that worked: the close's
 * error code (h3: H3_NO_ERROR).
 */
void hq_close_code(int fd, const struct hq_proto *p);
/* control.c: turn on QUIC_EVENT_KEY_UPDATE on fd; 0, or -1 with a message
 * naming who.
 */
int hq_key_update_events(int fd, const char *who);
uint32_t hq_sock_version(int fd);
/* control.c: with total bytes so far, ask the kernel for the key update
 * that k says is due, if one is; a failure other than EAGAIN is printed,
 * naming who, and ends the asking.
 */
void hq_key_update(int fd, struct hq_ku *k, uint64_t total, const char *who);

/* migrate.c: --migrate BYTES, a client's move to a new local port. */
struct hq_mig {
	uint64_t at;		/* after this many bytes; 0: never */
	int done;		/* the kernel took it */
	int err;		/* errno of a refusal: no more asking */
};

void hq_migrate(int fd, struct hq_mig *m, uint64_t total);

#endif /* QUIC_HQ_PROTO_H */

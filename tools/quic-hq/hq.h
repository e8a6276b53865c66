/* SPDX-License-Identifier: GPL-2.0-or-later */
/* quic-hq: HTTP/0.9 ("hq-interop") or HTTP/3 ("h3") over QUIC, client and
 * server.
 */

#ifndef QUIC_HQ_H
#define QUIC_HQ_H

#include <stddef.h>
#include <stdint.h>
#include <linux/quic.h>

#define HQ_ALPN		"hq-interop"	/* the default */
#define HQ_ALPN_H3	"h3"
#define HQ_MAX_URLS	1024
#define HQ_PATH_MAX	1024
#define HQ_HOST_MAX	256
#define HQ_PORT_MAX	8

struct hq_url {
	char host[HQ_HOST_MAX];		/* without [] for IPv6 */
	char port[HQ_PORT_MAX];		/* "443" when absent */
	char path[HQ_PATH_MAX];		/* starts with '/' */
};

#define HQ_TOKEN_MAX	512	/* the kernel's QUIC_TOKEN_MAX */

struct hq_client_opts {
	const char *alpn;		/* HQ_ALPN or HQ_ALPN_H3 */
	const char *ca;			/* NULL: system trust store */
	int insecure;
	const char *out;		/* output directory */
	uint64_t key_update;		/* --key-update: bytes, 0: none */
	uint64_t migrate;		/* --migrate: bytes, 0: none */
	const char *token_file;		/* --token-file: NEW_TOKEN kept */
	uint32_t version;		/* --version: QUIC version, 0: v1 */
	const char *session_file;	/* --session-file, or NULL */
	int early;			/* --0rtt: requests before the handshake */
	unsigned int idle_timeout;	/* --idle-timeout: seconds, 0: 30 */
	int nurls;
	struct hq_url urls[HQ_MAX_URLS];
	char names[HQ_MAX_URLS][256];	/* output file names */
};

struct hq_server_opts {
	const char *alpn;		/* HQ_ALPN or HQ_ALPN_H3 */
	char host[HQ_HOST_MAX];
	char port[HQ_PORT_MAX];
	const char *cert, *key, *root;
	uint64_t key_update;		/* --key-update: bytes, 0: none */
	int retry;			/* --retry: validate_peer_address */
	int cc;				/* --cc: QUIC_CONG_ALG_* + 1, 0: none */
	int no_early;			/* --no-0rtt: refuse early data */
	const char *ticket_key;		/* --ticket-key FILE, or NULL */
	uint32_t version;		/* --version: preferred, 0: none */
	unsigned int idle_timeout;	/* --idle-timeout: seconds, 0: 30 */
};

/* --key-update BYTES: when to ask the kernel for a 1-RTT key update
 * (QUIC_SOCKOPT_KEY_UPDATE), and the QUIC_EVENT_KEY_UPDATE count.
 */
struct hq_ku {
	uint64_t every;		/* bytes between updates; 0: never ask */
	uint64_t next;		/* ask once this many bytes have passed */
	unsigned int initiated;	/* requests the kernel took */
	unsigned int events;	/* QUIC_EVENT_KEY_UPDATE seen, either side's */
	int phase;		/* the last event's key phase, -1: none yet */
	int err;		/* errno of a failed request: asking stopped */
};

/* --session-file: a TLS session and the server's transport parameters */
#define HQ_SESS_TLS_MAX	8192

struct hq_sess {
	char alpn[32];
	uint8_t tls[HQ_SESS_TLS_MAX];	/* quic_session_get_data() */
	size_t tls_len;
	struct quic_transport_param tp;	/* remote = 1 */
};

/* sessfile.c: decode 0 or -1; encode the length or -1; load and save 0 or
 * a negative errno (load: -ENOENT when there is no file yet)
 */
int hq_sess_decode(const char *buf, size_t len, struct hq_sess *s);
long hq_sess_encode(const struct hq_sess *s, char *buf, size_t cap);
int hq_sess_load(const char *path, struct hq_sess *s);
int hq_sess_save(const char *path, const struct hq_sess *s);

/* args.c: all return 0, or -1 with a message in err */
int hq_parse_url(const char *s, struct hq_url *u, char *err, size_t errlen);
int hq_parse_hostport(const char *s, char *host, char *port, char *err,
		      size_t errlen);
int hq_out_name(const char *path, char *name, size_t len);
int hq_parse_request(const char *buf, size_t len, int fin, char *path,
		     size_t pathlen);
int hq_path_is_safe(const char *path);
int hq_parse_size(const char *s, uint64_t *v);
int hq_parse_version(const char *s, uint32_t *v);
const char *hq_version_name(uint32_t v);
/*
 * --idle-timeout SECS: the max_idle_timeout transport parameter and the
 * handshake's time limit (SO_RCVTIMEO, which libquic reads), 1 to 4294
 * (the parameter is in microseconds, 32 bits).
 */
#define HQ_IDLE_TIMEOUT_MAX	4294
int hq_parse_idle_timeout(const char *s, unsigned int *secs);

int hq_client_args(int argc, char **argv, struct hq_client_opts *o, char *err,
		   size_t errlen);
int hq_server_args(int argc, char **argv, struct hq_server_opts *o, char *err,
		   size_t errlen);

/* keyupdate.c: the schedule and event count, without a socket */
void hq_ku_init(struct hq_ku *k, uint64_t every);
int hq_ku_due(const struct hq_ku *k, uint64_t total);
void hq_ku_result(struct hq_ku *k, uint64_t total, int err);
int hq_ku_event(struct hq_ku *k, const void *buf, size_t len);

int hq_client(struct hq_client_opts *o);
int hq_server(struct hq_server_opts *o);
double hq_now(void);

#endif /* QUIC_HQ_H */

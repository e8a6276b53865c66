/* SPDX-License-Identifier: GPL-2.0 */
/*
 * quic-handshaked: the userspace handshake agent of net/handshake for
 * in-kernel QUIC sockets (and the declining of plain TLS ones).
 *
 * main.c     arguments, the multicast loop, one worker process per request
 * genl.c     the "handshake" generic netlink family: ACCEPT and DONE
 * conf.c     the configuration file
 * keys.c     key material from the kernel keyring (keyctl) and from files
 * tls.c      the QUIC handshake on the accepted socket (libquic, GnuTLS)
 */
#ifndef QUIC_HANDSHAKED_H
#define QUIC_HANDSHAKED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HSD_VERSION		"1.0"
#define HSD_CONF_DEFAULT	"/etc/quic-handshaked.conf"
#define HSD_MAX_PEERIDS		5	/* net/handshake's th_peerid[] */
#define HSD_DEFAULT_TIMEOUT_MS	30000
#define HSD_DEFAULT_MAX		64
#define HSD_PATH_MAX		4096

/* ---- configuration (conf.c) ---- */
struct hsd_conf {
	char cert[HSD_PATH_MAX];	/* PEM chain used when the request names none */
	char key[HSD_PATH_MAX];		/* its PEM private key */
	char ca[HSD_PATH_MAX];		/* PEM CAs to verify peers; "" = system store */
	char psk[HSD_PATH_MAX];		/* identity:hexkey lines; "" = none */
	unsigned int timeout_ms;	/* when the request carries no timeout */
	unsigned int max_handshakes;	/* concurrent worker processes */
	int verbose;
};

void hsd_conf_defaults(struct hsd_conf *c);
/* Parse @text (a whole file).  Returns 0, or -1 with a message in @err
 * naming the line.
 */
int hsd_conf_parse(struct hsd_conf *c, const char *text, char *err,
		   size_t errlen);
/* Read and parse @path; a missing file is fine when @optional. */
int hsd_conf_load(struct hsd_conf *c, const char *path, int optional,
		  char *err, size_t errlen);

/* ---- one handshake request (genl.c) ---- */
struct hsd_req {
	int sockfd;
	uint32_t msg_type;		/* HANDSHAKE_MSG_TYPE_* */
	uint32_t timeout_ms;		/* 0: none given */
	uint32_t auth;			/* HANDSHAKE_AUTH_* */
	unsigned int n_peerids;
	int32_t peerids[HSD_MAX_PEERIDS];
	int32_t cert, privkey;		/* key serials, 0: none */
	int has_peername;
	char peername[256];
};

struct hsd_genl {
	int fd;
	uint16_t family;
	uint32_t mcgrp;			/* the "tlshd" group id */
	uint32_t seq;
};

/* Open a generic netlink socket and resolve the family (and the group).
 * Returns 0 or a negative errno (-ENOENT: no "handshake" family).
 */
int hsd_genl_open(struct hsd_genl *g);
int hsd_genl_join(struct hsd_genl *g);
void hsd_genl_close(struct hsd_genl *g);
/* Ask for the next request of class tlshd.  0, -EAGAIN (none), or errno. */
int hsd_genl_accept(struct hsd_genl *g, struct hsd_req *req);
/* Report the result.  0 or a negative errno. */
int hsd_genl_done(struct hsd_genl *g, int sockfd, unsigned int status,
		  const int32_t *peerids, unsigned int n);
/* Build a DONE message into @buf (at least 64 bytes): its length. */
size_t hsd_genl_build_done(void *buf, size_t cap, uint16_t family,
			   uint32_t seq, int sockfd, unsigned int status,
			   const int32_t *peerids, unsigned int n);
/* Parse an ACCEPT reply (the genl header and attributes after the
 * nlmsghdr).  0, or -EINVAL for a malformed message or one without a fd.
 */
int hsd_parse_accept(const void *payload, size_t len, struct hsd_req *req);
/* Nonzero if @payload (after the nlmsghdr) is a READY notification. */
int hsd_is_ready(const void *payload, size_t len);

/* ---- keys (keys.c) ---- */
/* The payload of key @serial: malloc()ed in *data.  0 or a negative errno. */
int hsd_key_read(int32_t serial, uint8_t **data, size_t *len);
/* The description of key @serial (after "type;uid;gid;perm;"). */
int hsd_key_desc(int32_t serial, char *buf, size_t len);
/* The description field of a KEYCTL_DESCRIBE string, or NULL. */
const char *hsd_desc_field(const char *describe);

/*
 * A "user" key with @der (a peer's certificate) in our process keyring,
 * also linked into the request's keyring if it named one; its serial in
 * *serial.  0 or a negative errno; a failed link (the key exists) is
 * *link_err.
 */
int hsd_peer_key(const char *desc, const void *der, size_t len,
		 int32_t *serial, int *link_err);

struct hsd_psk {
	char identity[256];
	uint8_t key[128];
	size_t key_len;
	int32_t serial;			/* 0: from the PSK file */
};
/* Parse a PSK file's text ("identity:hexkey" lines) into @out (at most
 * @max).  The count, or -EINVAL (line number in *bad_line).
 */
int hsd_psk_parse(const char *text, struct hsd_psk *out, int max,
		  int *bad_line);

/* ---- the handshake (tls.c) ---- */
struct hsd_result {
	int err;			/* 0 or a negative errno */
	char alpn[256];
	const char *auth;		/* "x509", "psk", "none" */
	unsigned int n_peerids;
	int32_t peerids[HSD_MAX_PEERIDS];
	char why[160];			/* a failure's reason for the log */
};

/* Run the QUIC handshake that @req asks for on req->sockfd. */
void hsd_quic_handshake(const struct hsd_req *req, const struct hsd_conf *conf,
			struct hsd_result *res);
/* The DONE status for a handshake result (positive errno, 0 on success). */
unsigned int hsd_done_status(int err);

/* ---- logging (main.c) ---- */
void hsd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

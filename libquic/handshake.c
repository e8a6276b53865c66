// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The TLS 1.3 handshake of a QUIC socket, run by GnuTLS in userspace.
 *
 * THE KERNEL CONTRACT (quic.ko implements exactly this; README.md repeats it)
 *
 * Handshake bytes.  Outgoing TLS handshake messages are written with
 *	sendmsg(fd, msg, MSG_DONTWAIT | MSG_NOSIGNAL)
 * carrying one cmsg (SOL_QUIC, QUIC_HANDSHAKE_INFO, struct quic_handshake_info
 * {crypto_level}); the bytes go into the CRYPTO stream of that level.
 * Several whole messages of one level may come in one call.  The kernel
 * takes all bytes or fails; a short count is retried with the rest.
 * Incoming handshake bytes are read with recvmsg(fd, msg, MSG_DONTWAIT)
 * after poll(POLLIN): each call returns in-order bytes of ONE level's
 * CRYPTO stream (at most the buffer size, 64 KiB; the rest stays queued)
 * with the same cmsg telling the level.  recvmsg() returning 0 without the
 * cmsg means the connection is gone; a failing recvmsg() (e.g. the peer
 * sent CONNECTION_CLOSE) ends the handshake with that errno.  In-band
 * events (MSG_QUIC_NOTIFICATION) met during the handshake are skipped, and
 * so are RFC 9221 datagrams (MSG_QUIC_DATAGRAM; only a peer's 1-RTT packet
 * overtaking its Finished puts one before it): lost, as a datagram may be.
 * Levels: QUIC_CRYPTO_INITIAL, QUIC_CRYPTO_HANDSHAKE, QUIC_CRYPTO_EARLY and
 * QUIC_CRYPTO_APP (post-handshake messages: the server's NewSessionTicket).
 *
 * Secrets.  setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET,
 * struct quic_crypto_secret {send, level, type, secret}) with type
 * TLS_CIPHER_AES_GCM_128 (51), TLS_CIPHER_AES_GCM_256 (52),
 * TLS_CIPHER_AES_CCM_128 (53) or TLS_CIPHER_CHACHA20_POLY1305 (54) and
 * the traffic secret in the first 32 bytes (48 for AES_GCM_256, whose hash
 * is SHA-384), zero padded.
 * Order:
 *   - HANDSHAKE: as soon as GnuTLS derives them, receive then send;
 *   - EARLY (0-RTT): when GnuTLS derives it (client: send, server: receive;
 *     a server's refused by the kernel's replay filter means no 0-RTT, not
 *     an error); a client whose server rejected early data withdraws its
 *     send key before the APP secrets: EARLY, send 1, type 0 (early_data.c);
 *   - APP (1-RTT): only once GnuTLS reports the handshake complete on this
 *     side, and after every non-APP handshake byte has been sent (the
 *     client's Finished): receive direction first, send direction last.
 *     Installing the second APP secret means "handshake complete": a
 *     client becomes ESTABLISHED, a server becomes ESTABLISHED and sends
 *     HANDSHAKE_DONE.  APP-level handshake bytes (the server's
 *     NewSessionTicket) are sent after that.
 * Before installing the APP secrets libquic sets the negotiated ALPN (see
 * below).  A failing CRYPTO_SECRET setsockopt aborts the handshake with
 * CONNECTION_CLOSE errcode QUIC_TRANSPORT_ERROR_INTERNAL.
 *
 * Transport parameters.  Before the first handshake message,
 * getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, buf, &len)
 * (len up to 4096) returns the kernel-encoded body of the local
 * quic_transport_parameters extension (0x39), which libquic sends in the
 * ClientHello / EncryptedExtensions.  The peer's extension body is given
 * to the kernel with setsockopt(QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, body,
 * len) as soon as it is received (the server also gets it again if a
 * HelloRetryRequest makes the client send a different one).  The kernel
 * validates it; if the setsockopt fails, libquic aborts the handshake with
 * CONNECTION_CLOSE errcode QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM and returns
 * the setsockopt's errno.  A peer sending no extension gets the
 * missing_extension alert.
 *
 * ALPN.  After negotiation, setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_ALPN,
 * name, strlen(name)) (no NUL) with the selected protocol.
 *
 * Errors.  When TLS fails (locally detected, e.g. verification, or GnuTLS
 * generated an alert), libquic does setsockopt(QUIC_SOCKOPT_CONNECTION_CLOSE,
 * struct quic_connection_close {errcode = QUIC_TRANSPORT_ERROR_CRYPTO +
 * alert, frame = 0, phrase = the alert's name}) with optlen the full
 * struct, then returns a negative errno; the kernel sends CONNECTION_CLOSE
 * with that code.  If the connection fails on the kernel's side (recvmsg
 * error), getsockopt(QUIC_SOCKOPT_CONNECTION_CLOSE) is read for the log.
 *
 * Session tickets (resumption, see session.c).  Client: before the
 * handshake getsockopt(QUIC_SOCKOPT_SESSION_TICKET) returns session data
 * the application set; from the installation of the APP receive secret
 * on, the kernel keeps the NewSessionTicket message(s) received at APP
 * level (raw TLS handshake messages) and returns them from the same
 * getsockopt.  Server:
 * getsockopt(QUIC_SOCKOPT_SESSION_TICKET) returns the 64-byte ticket key
 * the application set (on the listener or the socket), if any.
 */

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/tls.h>

#include "internal.h"

#define QUIC_TP_EXT_ID		0x39
#define QUIC_TP_EXT_MAX		4096
#define QUIC_RECV_BUF		65536
#define QUIC_TIMEOUT_MS		30000

/* TLS alerts used here (RFC 8446) */
#define QUIC_ALERT_HANDSHAKE_FAILURE	40
#define QUIC_ALERT_INTERNAL_ERROR	80
#define QUIC_ALERT_MISSING_EXTENSION	109
#define QUIC_ALERT_NO_APP_PROTOCOL	120
#define QUIC_ALERT_BAD_CERTIFICATE	42
#define QUIC_ALERT_CERT_REVOKED		44
#define QUIC_ALERT_CERT_EXPIRED		45
#define QUIC_ALERT_UNKNOWN_CA		48

struct quic_chunk {
	struct quic_chunk *next;
	uint8_t level;
	size_t len, cap;
	size_t sent;		/* bytes the caller's sendmsg() took */
	uint8_t *data;
};

/* Room for the cmsgs of a step's msghdr */
union quic_hs_cmsgs {
	char buf[CMSG_SPACE(sizeof(struct quic_handshake_info)) +
		 CMSG_SPACE(sizeof(struct quic_stream_info))];
	struct cmsghdr align;
};

enum quic_hs_state {
	QUIC_HS_RUN,		/* inside GnuTLS, no step outstanding */
	QUIC_HS_SEND,		/* a SENDMSG step is with the caller */
	QUIC_HS_RECV,		/* a RECVMSG step is with the caller */
	QUIC_HS_DONE,
	QUIC_HS_FAILED,
};

/* libquic's state for one session between init and deinit.  Only the
 * thread driving the session touches it; the registry lock protects the
 * list links only.
 */
struct quic_hs {
	struct quic_hs *next;
	gnutls_session_t session;
	int fd;
	unsigned int flags;
	enum quic_hs_state state;
	int result;			/* FAILED: negative errno */
	unsigned int complete:1;	/* gnutls_handshake() returned 0 */
	unsigned int app_installed:1;
	unsigned int tp_received:1;
	struct quic_handshake_step step;
	struct msghdr msg;		/* the step's */
	struct iovec iov;
	union quic_hs_cmsgs cmsgs;
	struct quic_chunk *head, *tail;	/* outgoing handshake bytes */
	uint8_t *rbuf;
	uint8_t tp_local[QUIC_TP_EXT_MAX];
	size_t tp_local_len;
	uint8_t *tp_peer;
	size_t tp_peer_len;
	struct quic_crypto_secret app_rx, app_tx;
	unsigned int have_app_rx:1, have_app_tx:1;
	unsigned int early_tx:1;	/* client: the 0-RTT send key is in */
	unsigned int no_early_rx:1;	/* server: no anti-replay, no 0-RTT */
	struct quic_config config;	/* the socket's QUIC_SOCKOPT_CONFIG */
	int alert;			/* fatal alert GnuTLS sent, or -1 */
	uint32_t errcode;		/* close code chosen by libquic, or 0 */
	int err;			/* error raised in a hook, or 0 */
	/* server: the ServerHello sent from hook_server_hello(), whole
	 * (header and body), until GnuTLS hands it over again
	 */
	uint8_t *hello_sent;
	size_t hello_len;
};

static pthread_mutex_t hs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct quic_hs *hs_list;

static struct quic_hs *hs_find(gnutls_session_t session)
{
	struct quic_hs *hs;

	pthread_mutex_lock(&hs_lock);
	for (hs = hs_list; hs; hs = hs->next)
		if (hs->session == session)
			break;
	pthread_mutex_unlock(&hs_lock);
	return hs;
}

static struct quic_hs *hs_unlink(gnutls_session_t session)
{
	struct quic_hs **p, *hs = NULL;

	pthread_mutex_lock(&hs_lock);
	for (p = &hs_list; *p; p = &(*p)->next) {
		if ((*p)->session == session) {
			hs = *p;
			*p = hs->next;
			break;
		}
	}
	pthread_mutex_unlock(&hs_lock);
	return hs;
}

static void hs_free(struct quic_hs *hs)
{
	struct quic_chunk *c;

	while ((c = hs->head)) {
		hs->head = c->next;
		free(c->data);
		free(c);
	}
	free(hs->rbuf);
	free(hs->tp_peer);
	free(hs->hello_sent);
	memset(&hs->app_rx, 0, sizeof(hs->app_rx));
	memset(&hs->app_tx, 0, sizeof(hs->app_tx));
	free(hs);
}

static const char *level_name(uint8_t level)
{
	switch (level) {
	case QUIC_CRYPTO_INITIAL:	return "initial";
	case QUIC_CRYPTO_HANDSHAKE:	return "handshake";
	case QUIC_CRYPTO_APP:		return "app";
	case QUIC_CRYPTO_EARLY:		return "early";
	}
	return "?";
}

static uint8_t level_from_gnutls(gnutls_record_encryption_level_t level)
{
	switch (level) {
	case GNUTLS_ENCRYPTION_LEVEL_INITIAL:	return QUIC_CRYPTO_INITIAL;
	case GNUTLS_ENCRYPTION_LEVEL_EARLY:	return QUIC_CRYPTO_EARLY;
	case GNUTLS_ENCRYPTION_LEVEL_HANDSHAKE:	return QUIC_CRYPTO_HANDSHAKE;
	default:				return QUIC_CRYPTO_APP;
	}
}

static gnutls_record_encryption_level_t level_to_gnutls(uint8_t level)
{
	switch (level) {
	case QUIC_CRYPTO_INITIAL:	return GNUTLS_ENCRYPTION_LEVEL_INITIAL;
	case QUIC_CRYPTO_EARLY:		return GNUTLS_ENCRYPTION_LEVEL_EARLY;
	case QUIC_CRYPTO_HANDSHAKE:	return GNUTLS_ENCRYPTION_LEVEL_HANDSHAKE;
	default:			return GNUTLS_ENCRYPTION_LEVEL_APPLICATION;
	}
}

static int cipher_type(gnutls_cipher_algorithm_t cipher)
{
	switch (cipher) {
	case GNUTLS_CIPHER_AES_128_GCM:		return TLS_CIPHER_AES_GCM_128;
	case GNUTLS_CIPHER_AES_256_GCM:		return TLS_CIPHER_AES_GCM_256;
	case GNUTLS_CIPHER_CHACHA20_POLY1305:	return TLS_CIPHER_CHACHA20_POLY1305;
	case GNUTLS_CIPHER_AES_128_CCM:		return TLS_CIPHER_AES_CCM_128;
	default:				return -1;
	}
}

/* Map a GnuTLS error to the errno a handshake returns. */
int quic_gnutls_errno(int err)
{
	switch (err) {
	case GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR:
	case GNUTLS_E_CERTIFICATE_ERROR:
	case GNUTLS_E_CERTIFICATE_REQUIRED:
	case GNUTLS_E_NO_CERTIFICATE_FOUND:
	case GNUTLS_E_PK_SIG_VERIFY_FAILED:
	case GNUTLS_E_DECRYPTION_FAILED:
	case GNUTLS_E_UNKNOWN_PK_ALGORITHM:
		return -EKEYREJECTED;
	case GNUTLS_E_MEMORY_ERROR:
		return -ENOMEM;
	case GNUTLS_E_TIMEDOUT:
		return -ETIMEDOUT;
	case GNUTLS_E_FILE_ERROR:
		return -ENOENT;
	case GNUTLS_E_INVALID_REQUEST:
		return -EINVAL;
	default:
		return -EPROTO;
	}
}

static int session_is_server(gnutls_session_t session)
{
	size_t cur = gnutls_record_get_max_early_data_size(session);

	/* GnuTLS accepts this call on server sessions only */
	return gnutls_record_set_max_early_data_size(session, cur) == 0;
}

int quic_session_is_server(gnutls_session_t session)
{
	return session_is_server(session);
}

void quic_sock_config(int fd, struct quic_config *config)
{
	socklen_t len = sizeof(*config);

	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONFIG, config, &len) < 0 ||
	    len != sizeof(*config))
		memset(config, 0, sizeof(*config));
}

static const char *side(const struct quic_hs *hs)
{
	return session_is_server(hs->session) ? "server" : "client";
}

/* ---- socket calls ---- */

static int hs_close(struct quic_hs *hs, uint32_t errcode, const char *phrase)
{
	struct quic_connection_close close;

	memset(&close, 0, sizeof(close));
	close.errcode = errcode;
	if (phrase)
		strncpy((char *)close.phrase, phrase, sizeof(close.phrase) - 1);
	if (setsockopt(hs->fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE,
		       &close, sizeof(close)) < 0) {
		quic_log(QUIC_LOG_DEBUG, "fd %d: CONNECTION_CLOSE setsockopt: %s",
			 hs->fd, strerror(errno));
		return -errno;
	}
	return 0;
}

static int install_secret(struct quic_hs *hs, const struct quic_crypto_secret *s)
{
	if (setsockopt(hs->fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, s,
		       sizeof(*s)) < 0) {
		int err = -errno;

		quic_log(QUIC_LOG_ERROR, "%s: installing the %s %s secret failed: %s",
			 side(hs), level_name(s->level), s->send ? "send" : "receive",
			 strerror(-err));
		return err;
	}
	quic_log(QUIC_LOG_DEBUG, "%s: installed %s %s secret (type %u)", side(hs),
		 level_name(s->level), s->send ? "send" : "receive", s->type);
	return 0;
}

/* A msghdr's only cmsg: QUIC_HANDSHAKE_INFO with @level. */
static void hs_msg_level(struct msghdr *msg, uint8_t level)
{
	struct quic_handshake_info info = { .crypto_level = level };
	struct cmsghdr *cmsg;

	msg->msg_controllen = CMSG_SPACE(sizeof(info));
	cmsg = CMSG_FIRSTHDR(msg);
	cmsg->cmsg_level = SOL_QUIC;
	cmsg->cmsg_type = QUIC_HANDSHAKE_INFO;
	cmsg->cmsg_len = CMSG_LEN(sizeof(info));
	memcpy(CMSG_DATA(cmsg), &info, sizeof(info));
}

/* ---- GnuTLS hooks ---- */

/* GnuTLS hands over a handshake message to send. */
static int hook_message(gnutls_session_t session,
			gnutls_record_encryption_level_t glevel,
			gnutls_handshake_description_t htype,
			const void *data, size_t size)
{
	struct quic_hs *hs = hs_find(session);
	uint8_t level = level_from_gnutls(glevel);
	struct quic_chunk *c;

	if (htype == GNUTLS_HANDSHAKE_CHANGE_CIPHER_SPEC || !size)
		return 0;	/* no compatibility-mode CCS in QUIC */
	if (!hs)
		return 0;
	if (hs->hello_sent) {	/* the flight's first message: the same */
		int same = size == hs->hello_len &&
			   !memcmp(data, hs->hello_sent, size);

		free(hs->hello_sent);
		hs->hello_sent = NULL;
		if (same)
			return 0;	/* it left from hook_server_hello() */
		quic_log(QUIC_LOG_ERROR, "server: GnuTLS's ServerHello is not the one sent early");
		hs->err = -EPROTO;
		hs->errcode = QUIC_TRANSPORT_ERROR_INTERNAL;
		return GNUTLS_E_INTERNAL_ERROR;
	}
	quic_log(QUIC_LOG_DEBUG, "%s: out %s at %s level, %zu bytes", side(hs),
		 gnutls_handshake_description_get_name(htype), level_name(level),
		 size);

	c = hs->tail;
	if (!c || c->level != level) {
		c = calloc(1, sizeof(*c));
		if (!c)
			goto nomem;
		c->level = level;
		if (hs->tail)
			hs->tail->next = c;
		else
			hs->head = c;
		hs->tail = c;
	}
	if (c->len + size > c->cap) {
		size_t cap = (c->len + size) * 2;
		uint8_t *p = realloc(c->data, cap);

		if (!p)
			goto nomem;
		c->data = p;
		c->cap = cap;
	}
	memcpy(c->data + c->len, data, size);
	c->len += size;
	return 0;
nomem:
	hs->err = -ENOMEM;
	return GNUTLS_E_MEMORY_ERROR;
}

/*
 * GnuTLS hands over a server's flight only once it is complete: after the
 * CertificateVerify, whose signature is most of the server's work.  The
 * ServerHello alone lets the client derive its handshake keys (its share
 * of the key exchange, most of the client's work before it verifies) in
 * the meantime, as it does over TCP, where GnuTLS writes the ServerHello
 * before it signs.  This handshake hook (GNUTLS_HOOK_POST on the server's
 * SERVER_HELLO) sends it at once, at the Initial level, and hook_message()
 * then skips it, after checking that it is the same message.
 *
 * Only the blocking driver sends from here: a step API caller makes its
 * own sendmsg() calls.  Nothing else may be queued before it (a
 * HelloRetryRequest's flight has left by then: the blocking driver sends
 * every chunk before it reads again).  If the socket does not take it now,
 * it leaves with the flight, as without the hook.
 */
static int hook_server_hello(gnutls_session_t session, unsigned int htype,
			     unsigned int when, unsigned int incoming,
			     const gnutls_datum_t *msg)
{
	struct quic_hs *hs = hs_find(session);
	union quic_hs_cmsgs cmsgs;
	struct msghdr mh;
	struct iovec iov;
	uint8_t *buf;
	size_t len;
	ssize_t n;

	if (!hs || !(hs->flags & QUIC_HS_BLOCKING) || incoming ||
	    when != GNUTLS_HOOK_POST || htype != GNUTLS_HANDSHAKE_SERVER_HELLO ||
	    hs->hello_sent || hs->head || !msg || msg->size > 0xffffff)
		return 0;
	len = 4 + (size_t)msg->size;	/* type, 24-bit length, body */
	buf = malloc(len);
	if (!buf)
		return 0;
	buf[0] = GNUTLS_HANDSHAKE_SERVER_HELLO;
	buf[1] = (uint8_t)(msg->size >> 16);
	buf[2] = (uint8_t)(msg->size >> 8);
	buf[3] = (uint8_t)msg->size;
	if (msg->size)
		memcpy(buf + 4, msg->data, msg->size);

	memset(&mh, 0, sizeof(mh));
	memset(&cmsgs, 0, sizeof(cmsgs));
	iov.iov_base = buf;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cmsgs.buf;
	hs_msg_level(&mh, QUIC_CRYPTO_INITIAL);
	n = sendmsg(hs->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n == (ssize_t)len) {
		quic_log(QUIC_LOG_DEBUG, "server: ServerHello sent early, %zu bytes",
			 len);
		hs->hello_sent = buf;
		hs->hello_len = len;
		return 0;
	}
	free(buf);
	if (n > 0) {	/* the kernel takes all or nothing: not a QUIC socket? */
		quic_log(QUIC_LOG_ERROR, "server: sendmsg took %zd of the ServerHello's %zu bytes",
			 n, len);
		hs->err = -EIO;
		return GNUTLS_E_INTERNAL_ERROR;
	}
	return 0;
}

QUIC_EXPORT int quic_handshake_early_hello(gnutls_session_t session)
{
	if (!session || !quic_session_is_server(session))
		return -EINVAL;
	gnutls_handshake_set_hook_function(session, GNUTLS_HANDSHAKE_SERVER_HELLO,
					   GNUTLS_HOOK_POST, hook_server_hello);
	return 0;
}

static int hook_secret(gnutls_session_t session,
		       gnutls_record_encryption_level_t glevel,
		       const void *rsecret, const void *wsecret, size_t size)
{
	struct quic_hs *hs = hs_find(session);
	uint8_t level = level_from_gnutls(glevel);
	struct quic_crypto_secret s;
	gnutls_cipher_algorithm_t cipher;
	int type, err;

	if (!hs)
		return GNUTLS_E_INTERNAL_ERROR;
	if (level == QUIC_CRYPTO_HANDSHAKE && !hs->tp_received &&
	    session_is_server(session)) {
		/* the ClientHello has been processed: it must have had one */
		quic_log(QUIC_LOG_ERROR, "server: the client sent no quic_transport_parameters");
		hs->alert = QUIC_ALERT_MISSING_EXTENSION;
		hs->err = -EPROTO;
		return GNUTLS_E_MISSING_EXTENSION;
	}
	cipher = level == QUIC_CRYPTO_EARLY ? gnutls_early_cipher_get(session)
					    : gnutls_cipher_get(session);
	type = cipher_type(cipher);
	if (type < 0 || size > sizeof(s.secret)) {
		quic_log(QUIC_LOG_ERROR, "%s: cipher %s cannot be used with QUIC",
			 side(hs), gnutls_cipher_get_name(cipher));
		hs->alert = QUIC_ALERT_INTERNAL_ERROR;
		hs->err = -EPROTO;
		return GNUTLS_E_UNWANTED_ALGORITHM;
	}

	if (hs->config.payload_cipher_type &&
	    (uint32_t)type != hs->config.payload_cipher_type) {
		/* the kernel would refuse the secret: say why */
		quic_log(QUIC_LOG_ERROR, "%s: cipher %s negotiated, the socket's payload_cipher_type is %u",
			 side(hs), gnutls_cipher_get_name(cipher),
			 hs->config.payload_cipher_type);
		hs->alert = QUIC_ALERT_HANDSHAKE_FAILURE;
		hs->err = -EPROTO;
		return GNUTLS_E_UNWANTED_ALGORITHM;
	}

	memset(&s, 0, sizeof(s));
	s.level = level;
	s.type = type;
	if (level == QUIC_CRYPTO_APP) {
		/* kept until the handshake is complete on this side */
		if (rsecret) {
			hs->app_rx = s;
			memcpy(hs->app_rx.secret, rsecret, size);
			hs->have_app_rx = 1;
		}
		if (wsecret) {
			hs->app_tx = s;
			hs->app_tx.send = 1;
			memcpy(hs->app_tx.secret, wsecret, size);
			hs->have_app_tx = 1;
		}
		return 0;
	}

	err = 0;
	if (rsecret && level == QUIC_CRYPTO_EARLY && hs->no_early_rx)
		rsecret = NULL;		/* never read 0-RTT unprotected */
	if (rsecret) {
		memcpy(s.secret, rsecret, size);
		err = install_secret(hs, &s);
		/* The kernel's replay filter: no 0-RTT, the handshake goes on. */
		if (err && level == QUIC_CRYPTO_EARLY) {
			quic_log(QUIC_LOG_INFO, "server: 0-RTT packets will not be read");
			err = 0;
		}
	}
	if (!err && wsecret) {
		s.send = 1;
		memcpy(s.secret, wsecret, size);
		err = install_secret(hs, &s);
		if (!err && level == QUIC_CRYPTO_EARLY)
			hs->early_tx = 1;
	}
	memset(&s, 0, sizeof(s));
	if (err) {
		hs->err = err;
		hs->errcode = QUIC_TRANSPORT_ERROR_INTERNAL;
		return GNUTLS_E_INTERNAL_ERROR;
	}
	return 0;
}

/* GnuTLS wants to send an alert: in QUIC it becomes CONNECTION_CLOSE. */
static int hook_alert(gnutls_session_t session,
		      gnutls_record_encryption_level_t level,
		      gnutls_alert_level_t alert_level,
		      gnutls_alert_description_t desc)
{
	struct quic_hs *hs = hs_find(session);

	(void)level;
	if (hs && alert_level == GNUTLS_AL_FATAL && hs->alert < 0)
		hs->alert = desc;
	return 0;
}

static int hook_tp_send(gnutls_session_t session, gnutls_buffer_t extdata)
{
	struct quic_hs *hs = hs_find(session);
	int ret;

	if (!hs)
		return 0;
	if (!hs->tp_local_len)
		return GNUTLS_E_INT_RET_0;	/* empty: every default */
	ret = gnutls_buffer_append_data(extdata, hs->tp_local, hs->tp_local_len);
	if (ret < 0)
		return ret;
	return (int)hs->tp_local_len;
}

static int hook_tp_recv(gnutls_session_t session, const unsigned char *data,
			size_t len)
{
	struct quic_hs *hs = hs_find(session);
	uint8_t *copy;

	if (!hs)
		return 0;
	if (hs->tp_received && len == hs->tp_peer_len &&
	    !memcmp(data, hs->tp_peer, len))
		return 0;	/* same again after a HelloRetryRequest */
	if (setsockopt(hs->fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, data,
		       len) < 0) {
		hs->err = -errno;
		hs->errcode = QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM;
		quic_log(QUIC_LOG_ERROR, "%s: the kernel rejected the peer's transport parameters: %s",
			 side(hs), strerror(errno));
		return GNUTLS_E_RECEIVED_ILLEGAL_PARAMETER;
	}
	copy = malloc(len ? len : 1);
	if (!copy) {
		hs->err = -ENOMEM;
		return GNUTLS_E_MEMORY_ERROR;
	}
	memcpy(copy, data, len);
	free(hs->tp_peer);
	hs->tp_peer = copy;
	hs->tp_peer_len = len;
	hs->tp_received = 1;
	quic_log(QUIC_LOG_DEBUG, "%s: peer transport parameters, %zu bytes",
		 side(hs), len);
	/*
	 * A server's own may have changed with them (compatible version
	 * negotiation, RFC 9368: version_information names the new version):
	 * read them again, before EncryptedExtensions carries them.
	 */
	if (session_is_server(session)) {
		socklen_t tlen = sizeof(hs->tp_local);

		if (getsockopt(hs->fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT,
			       hs->tp_local, &tlen) < 0) {
			hs->err = -errno;
			return GNUTLS_E_INTERNAL_ERROR;
		}
		hs->tp_local_len = tlen;
	}
	return 0;
}

/* GnuTLS must never touch the socket itself. */
static ssize_t no_pull(gnutls_transport_ptr_t ptr, void *data, size_t len)
{
	(void)data;
	(void)len;
	(void)ptr;
	errno = EAGAIN;
	return -1;
}

static int no_pull_timeout(gnutls_transport_ptr_t ptr, unsigned int ms)
{
	(void)ptr;
	(void)ms;
	return 1;	/* "readable": the pull then says EAGAIN */
}

static ssize_t no_push(gnutls_transport_ptr_t ptr, const void *data, size_t len)
{
	(void)ptr;
	(void)data;
	return (ssize_t)len;	/* nothing may leave as a TLS record */
}

static ssize_t no_vec_push(gnutls_transport_ptr_t ptr, const giovec_t *iov,
			   int iovcnt)
{
	ssize_t n = 0;
	int i;

	(void)ptr;
	for (i = 0; i < iovcnt; i++)
		n += (ssize_t)iov[i].iov_len;
	return n;
}

/* ---- the state machine ---- */

static int hs_fail(struct quic_hs *hs, int gnutls_err)
{
	unsigned int status = 0;
	int err, alert = hs->alert;
	uint32_t errcode = hs->errcode;
	const char *what = gnutls_strerror(gnutls_err);

	err = hs->err ? hs->err : quic_gnutls_errno(gnutls_err);
	if (gnutls_err == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR)
		status = gnutls_session_get_verify_cert_status(hs->session);
	else if (gnutls_err == GNUTLS_E_CERTIFICATE_ERROR &&	/* a verify */
		 gnutls_certificate_verify_peers2(hs->session, &status) < 0)
		status = 0;				/* function said no */
	if (status) {
		gnutls_datum_t out = { NULL, 0 };

		if (status & GNUTLS_CERT_REVOKED)
			alert = QUIC_ALERT_CERT_REVOKED;
		else if (status & GNUTLS_CERT_EXPIRED)
			alert = QUIC_ALERT_CERT_EXPIRED;
		else if (status & (GNUTLS_CERT_SIGNER_NOT_FOUND |
				   GNUTLS_CERT_SIGNER_NOT_CA))
			alert = QUIC_ALERT_UNKNOWN_CA;
		else
			alert = QUIC_ALERT_BAD_CERTIFICATE;
		if (!gnutls_certificate_verification_status_print(status,
				GNUTLS_CRT_X509, &out, 0)) {
			quic_log(QUIC_LOG_ERROR, "%s: certificate verification failed: %s",
				 side(hs), out.data);
			gnutls_free(out.data);
		}
	}
	if (alert < 0) {
		int lvl;

		alert = gnutls_error_to_alert(gnutls_err, &lvl);
		if (alert < 0)
			alert = QUIC_ALERT_INTERNAL_ERROR;
	}
	if (!errcode)
		errcode = QUIC_TRANSPORT_ERROR_CRYPTO + (alert & 0xff);
	quic_log(QUIC_LOG_ERROR, "%s: handshake failed: %s (%s), closing with error 0x%x",
		 side(hs), hs->err ? strerror(-hs->err) : what,
		 gnutls_alert_get_name(alert) ? gnutls_alert_get_name(alert) : "?",
		 errcode);
	hs_close(hs, errcode, gnutls_alert_get_name(alert));
	hs->alert = alert;
	hs->state = QUIC_HS_FAILED;
	hs->result = err;
	return err;
}

/* Fail with an alert chosen by libquic. */
static int hs_fail_alert(struct quic_hs *hs, int alert, int err)
{
	hs->alert = alert;
	hs->err = err;
	return hs_fail(hs, GNUTLS_E_INTERNAL_ERROR);
}

/* gnutls_handshake() returned 0: check what TLS alone does not. */
static int hs_complete(struct quic_hs *hs)
{
	gnutls_datum_t alpn;
	char *desc;

	hs->complete = 1;
	if (!hs->tp_received) {
		quic_log(QUIC_LOG_ERROR, "%s: the peer sent no quic_transport_parameters",
			 side(hs));
		return hs_fail_alert(hs, QUIC_ALERT_MISSING_EXTENSION, -EPROTO);
	}
	if (!gnutls_alpn_get_selected_protocol(hs->session, &alpn) && alpn.size) {
		if (setsockopt(hs->fd, SOL_QUIC, QUIC_SOCKOPT_ALPN, alpn.data,
			       alpn.size) < 0) {
			hs->errcode = QUIC_TRANSPORT_ERROR_INTERNAL;
			hs->err = -errno;
			quic_log(QUIC_LOG_ERROR, "%s: setting the ALPN failed: %s",
				 side(hs), strerror(errno));
			return hs_fail(hs, GNUTLS_E_INTERNAL_ERROR);
		}
		quic_log(QUIC_LOG_INFO, "%s: ALPN %.*s", side(hs),
			 (int)alpn.size, alpn.data);
	} else if (hs->flags & QUIC_HS_ALPN_REQUIRED) {
		quic_log(QUIC_LOG_ERROR, "%s: no application protocol in common",
			 side(hs));
		return hs_fail_alert(hs, QUIC_ALERT_NO_APP_PROTOCOL, -EPROTO);
	}
	if (!session_is_server(hs->session) &&
	    quic_early_client_done(hs->session, hs->fd, hs->early_tx)) {
		hs->errcode = QUIC_TRANSPORT_ERROR_INTERNAL;
		return hs_fail_alert(hs, QUIC_ALERT_INTERNAL_ERROR, -EPROTO);
	}
	if (!hs->have_app_rx || !hs->have_app_tx) {
		quic_log(QUIC_LOG_ERROR, "%s: GnuTLS gave no application secrets",
			 side(hs));
		hs->errcode = QUIC_TRANSPORT_ERROR_INTERNAL;
		return hs_fail_alert(hs, QUIC_ALERT_INTERNAL_ERROR, -EPROTO);
	}
	if (quic_log_enabled(QUIC_LOG_INFO)) {
		desc = gnutls_session_get_desc(hs->session);
		quic_log(QUIC_LOG_INFO, "%s: handshake complete: %s%s", side(hs),
			 desc ? desc : "", gnutls_session_is_resumed(hs->session) ?
			 " (resumed)" : "");
		gnutls_free(desc);
	}
	return 0;
}

static int hs_handshake(struct quic_hs *hs)
{
	int ret;

	if (hs->complete)
		return 0;
	hs->state = QUIC_HS_RUN;
	ret = gnutls_handshake(hs->session);
	if (ret == GNUTLS_E_AGAIN || ret == GNUTLS_E_INTERRUPTED) {
		if (hs->err)
			return hs_fail(hs, GNUTLS_E_INTERNAL_ERROR);
		return 0;
	}
	if (ret < 0)
		return hs_fail(hs, ret);
	return hs_complete(hs);
}

static int hs_install_app(struct quic_hs *hs)
{
	int err;

	err = install_secret(hs, &hs->app_rx);
	if (!err)
		err = install_secret(hs, &hs->app_tx);
	memset(hs->app_rx.secret, 0, sizeof(hs->app_rx.secret));
	memset(hs->app_tx.secret, 0, sizeof(hs->app_tx.secret));
	if (err) {
		hs->err = err;
		hs->errcode = QUIC_TRANSPORT_ERROR_INTERNAL;
		return hs_fail(hs, GNUTLS_E_INTERNAL_ERROR);
	}
	hs->app_installed = 1;
	quic_log(QUIC_LOG_INFO, "%s: 1-RTT keys installed", side(hs));
	return 0;
}

/* The msghdr of a step: one iovec, room for the cmsgs. */
static void hs_msg_reset(struct quic_hs *hs, void *base, size_t len)
{
	memset(&hs->msg, 0, sizeof(hs->msg));
	memset(&hs->cmsgs, 0, sizeof(hs->cmsgs));
	hs->iov.iov_base = base;
	hs->iov.iov_len = len;
	hs->msg.msg_iov = &hs->iov;
	hs->msg.msg_iovlen = 1;
	hs->msg.msg_control = hs->cmsgs.buf;
	hs->msg.msg_controllen = sizeof(hs->cmsgs.buf);
}

/* Choose the next step for the caller; NULL when the handshake is done. */
static int hs_next(struct quic_hs *hs, struct quic_handshake_step **pstep)
{
	struct quic_handshake_step *step = &hs->step;
	int err;

	for (;;) {
		struct quic_chunk *c = hs->head;

		if (c && (c->level != QUIC_CRYPTO_APP || hs->app_installed)) {
			hs_msg_reset(hs, c->data + c->sent, c->len - c->sent);
			hs_msg_level(&hs->msg, c->level);
			memset(step, 0, sizeof(*step));
			step->op = QUIC_HANDSHAKE_STEP_OP_SENDMSG;
			step->s_sendmsg.msg = &hs->msg;
			step->s_sendmsg.flags = MSG_DONTWAIT | MSG_NOSIGNAL;
			step->s_sendmsg.retval = -EAGAIN;	/* not made yet */
			hs->state = QUIC_HS_SEND;
			break;
		}
		if (!hs->complete) {
			hs_msg_reset(hs, hs->rbuf, QUIC_RECV_BUF);
			memset(step, 0, sizeof(*step));
			step->op = QUIC_HANDSHAKE_STEP_OP_RECVMSG;
			step->s_recvmsg.msg = &hs->msg;
			step->s_recvmsg.flags = MSG_DONTWAIT;
			step->s_recvmsg.retval = -EAGAIN;	/* not made yet */
			hs->state = QUIC_HS_RECV;
			break;
		}
		if (!hs->app_installed) {
			err = hs_install_app(hs);
			if (err)
				return err;
			continue;
		}
		hs->state = QUIC_HS_DONE;
		*pstep = NULL;
		return 0;
	}
	*pstep = step;
	return 0;
}

static void hs_setup_session(struct quic_hs *hs)
{
	gnutls_session_t session = hs->session;
	int ret;

	gnutls_handshake_set_read_function(session, hook_message);
	gnutls_handshake_set_secret_function(session, hook_secret);
	gnutls_alert_set_read_function(session, hook_alert);
	gnutls_transport_set_pull_function(session, no_pull);
	gnutls_transport_set_pull_timeout_function(session, no_pull_timeout);
	gnutls_transport_set_push_function(session, no_push);
	gnutls_transport_set_vec_push_function(session, no_vec_push);
	gnutls_handshake_set_timeout(session, 0);	/* libquic keeps time */

	ret = gnutls_session_ext_register(session, "quic_transport_parameters",
					  QUIC_TP_EXT_ID, GNUTLS_EXT_TLS,
					  hook_tp_recv, hook_tp_send, NULL, NULL,
					  NULL, GNUTLS_EXT_FLAG_TLS |
					  GNUTLS_EXT_FLAG_CLIENT_HELLO |
					  GNUTLS_EXT_FLAG_EE);
	if (ret < 0 && ret != GNUTLS_E_ALREADY_REGISTERED)
		quic_log(QUIC_LOG_DEBUG, "registering extension 0x39: %s",
			 gnutls_strerror(ret));
}

int quic_hs_start(gnutls_session_t session, unsigned int flags,
		  struct quic_handshake_step **pstep)
{
	struct quic_hs *hs, *old;
	socklen_t len;
	int err;

	if (!session || !pstep)
		return -EINVAL;
	*pstep = NULL;
	hs = calloc(1, sizeof(*hs));
	if (!hs)
		return -ENOMEM;
	hs->rbuf = malloc(QUIC_RECV_BUF);
	if (!hs->rbuf) {
		free(hs);
		return -ENOMEM;
	}
	hs->session = session;
	hs->fd = gnutls_transport_get_int(session);
	hs->flags = flags;
	hs->alert = -1;

	len = sizeof(hs->tp_local);
	if (getsockopt(hs->fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM_EXT,
		       hs->tp_local, &len) < 0) {
		err = -errno;
		quic_log(QUIC_LOG_ERROR, "fd %d: getting the local transport parameters failed: %s",
			 hs->fd, strerror(errno));
		hs_free(hs);
		return err;
	}
	hs->tp_local_len = len;
	quic_sock_config(hs->fd, &hs->config);
	if (session_is_server(session) && quic_early_server_setup(session))
		hs->no_early_rx = 1;	/* 0-RTT needs anti-replay */
	if (hs->config.certificate_request && session_is_server(session))
		gnutls_certificate_server_set_request(session,
				hs->config.certificate_request == 1 ?
				GNUTLS_CERT_REQUEST : GNUTLS_CERT_REQUIRE);

	old = hs_unlink(session);
	if (old)
		hs_free(old);
	pthread_mutex_lock(&hs_lock);
	hs->next = hs_list;
	hs_list = hs;
	pthread_mutex_unlock(&hs_lock);

	hs_setup_session(hs);
	quic_log(QUIC_LOG_DEBUG, "%s: handshake starts on fd %d, %zu bytes of transport parameters",
		 side(hs), hs->fd, hs->tp_local_len);

	err = hs_handshake(hs);		/* a client writes its ClientHello */
	if (err)
		return err;
	return hs_next(hs, pstep);
}

QUIC_EXPORT int quic_handshake_init(gnutls_session_t session,
				    struct quic_handshake_step **pstep)
{
	return quic_hs_start(session, 0, pstep);
}

static void log_peer_close(int fd)
{
	struct quic_connection_close close;
	socklen_t len = sizeof(close);

	if (!quic_log_enabled(QUIC_LOG_ERROR))
		return;
	memset(&close, 0, sizeof(close));
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CONNECTION_CLOSE, &close,
		       &len) < 0 || !close.errcode)
		return;
	close.phrase[sizeof(close.phrase) - 1] = 0;
	if (close.errcode >= QUIC_TRANSPORT_ERROR_CRYPTO &&
	    close.errcode <= QUIC_TRANSPORT_ERROR_CRYPTO + 0xff)
		quic_log(QUIC_LOG_ERROR, "the connection was closed with TLS alert %s (0x%x) %s",
			 gnutls_alert_get_name(close.errcode & 0xff) ?: "?",
			 close.errcode, close.phrase);
	else
		quic_log(QUIC_LOG_ERROR, "the connection was closed with error 0x%x %s",
			 close.errcode, close.phrase);
}

/*
 * The errno of a step's call that returned @retval < 0 (-1: errno, else a
 * negative errno), or 0 when the call is to be made again.
 */
static int step_errno(ssize_t retval, int saved_errno)
{
	int err = retval == -1 ? saved_errno : (int)-retval;

	if (retval < -4095 || err <= 0)
		return -EINVAL;
	if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR)
		return 0;
	return -err;
}

/* The caller's socket call failed: the handshake is over. */
static int hs_io_fail(struct quic_hs *hs, int err, const char *what)
{
	quic_log(QUIC_LOG_ERROR, "%s: %s during the handshake: %s", side(hs),
		 what, strerror(-err));
	if (err != -EPROTO)
		log_peer_close(hs->fd);
	hs->state = QUIC_HS_FAILED;
	hs->result = err;
	return err;
}

/* A SENDMSG step was made: drop what the socket took. */
static int hs_sent(struct quic_hs *hs, ssize_t n, int saved_errno)
{
	struct quic_chunk *c = hs->head;

	if (n < 0) {
		int err = step_errno(n, saved_errno);

		return err ? hs_io_fail(hs, err, "sendmsg") : 0;
	}
	if (!n || (size_t)n > c->len - c->sent)
		return hs_io_fail(hs, n ? -EINVAL : -EIO, "sendmsg");
	c->sent += (size_t)n;
	if (c->sent < c->len)
		return 0;	/* a SENDMSG step with the rest */
	hs->head = c->next;
	if (!hs->head)
		hs->tail = NULL;
	free(c->data);
	free(c);
	return 0;
}

/* A RECVMSG step was made: give GnuTLS the handshake bytes. */
static int hs_received(struct quic_hs *hs, ssize_t n, int saved_errno)
{
	struct msghdr *msg = &hs->msg;
	struct cmsghdr *cmsg;
	int found = 0, ret;
	uint8_t level = 0;

	if (n < 0) {
		int err = step_errno(n, saved_errno);

		return err ? hs_io_fail(hs, err, "recvmsg") : 0;
	}
	if ((size_t)n > QUIC_RECV_BUF)
		return hs_io_fail(hs, -EINVAL, "recvmsg");
	if (msg->msg_flags & (MSG_QUIC_NOTIFICATION | MSG_QUIC_DATAGRAM))
		return 0;	/* an event or a datagram: not ours */
	for (cmsg = CMSG_FIRSTHDR(msg); cmsg; cmsg = CMSG_NXTHDR(msg, cmsg)) {
		if (cmsg->cmsg_level == SOL_QUIC &&
		    cmsg->cmsg_type == QUIC_HANDSHAKE_INFO &&
		    cmsg->cmsg_len >= CMSG_LEN(sizeof(struct quic_handshake_info))) {
			struct quic_handshake_info info;

			memcpy(&info, CMSG_DATA(cmsg), sizeof(info));
			level = info.crypto_level;
			found = 1;
		}
	}
	if (!found) {
		if (!n)
			return hs_io_fail(hs, -ECONNRESET, "connection closed");
		quic_log(QUIC_LOG_ERROR, "%s: %zd bytes of non-handshake data",
			 side(hs), n);
		return hs_io_fail(hs, -EPROTO, "recvmsg");
	}
	if (level >= QUIC_CRYPTO_MAX)
		return hs_io_fail(hs, -EPROTO, "recvmsg (bad crypto level)");
	if (!n)
		return 0;
	quic_log(QUIC_LOG_DEBUG, "%s: in %zd bytes at %s level", side(hs), n,
		 level_name(level));
	hs->state = QUIC_HS_RUN;
	ret = gnutls_handshake_write(hs->session, level_to_gnutls(level),
				     hs->rbuf, (size_t)n);
	if (ret < 0)
		return hs_fail(hs, ret);
	if (hs->err)
		return hs_fail(hs, GNUTLS_E_INTERNAL_ERROR);
	return hs_handshake(hs);
}

QUIC_EXPORT int quic_handshake_step(gnutls_session_t session,
				    struct quic_handshake_step **pstep)
{
	int saved_errno = errno;	/* of the caller's sendmsg/recvmsg */
	struct quic_hs *hs = hs_find(session);
	struct quic_handshake_step *step;
	int err;

	if (!hs || !pstep)
		return -EINVAL;
	*pstep = NULL;
	step = &hs->step;

	switch (hs->state) {
	case QUIC_HS_SEND:
		err = hs_sent(hs, step->s_sendmsg.retval, saved_errno);
		break;
	case QUIC_HS_RECV:
		err = hs_received(hs, step->s_recvmsg.retval, saved_errno);
		break;
	case QUIC_HS_DONE:
		return 0;
	case QUIC_HS_FAILED:
		return hs->result;
	case QUIC_HS_RUN:
	default:
		return -EINVAL;
	}
	if (err)
		return err;
	return hs_next(hs, pstep);
}

QUIC_EXPORT void quic_handshake_deinit(gnutls_session_t session)
{
	struct quic_hs *hs = hs_unlink(session);

	if (hs)
		hs_free(hs);
}

/* ---- the blocking driver ---- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int64_t left;
	int n;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int handshake_timeout_ms(int fd)
{
	struct timeval tv;
	socklen_t len = sizeof(tv);

	if (getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &len) == 0 &&
	    (tv.tv_sec > 0 || tv.tv_usec > 0)) {
		if (tv.tv_sec >= 86400)
			return 86400 * 1000;
		return (int)(tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000);
	}
	return QUIC_TIMEOUT_MS;
}

/*
 * QUIC_SOCKOPT_CONFIG's receive_session_ticket: a client returns once the
 * kernel holds the server's NewSessionTicket (which arrives after the
 * handshake), so that quic_session_get_data() has a ticket to give.
 */
static int wait_ticket(int fd, int64_t deadline)
{
	uint8_t ticket[8192];
	socklen_t len;

	for (;;) {
		len = sizeof(ticket);
		if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, ticket,
			       &len) < 0)
			return -errno;
		if (quic_is_ticket_messages(ticket, len))
			return 0;
		if (now_ms() >= deadline) {
			quic_log(QUIC_LOG_ERROR, "fd %d: no session ticket from the server",
				 fd);
			return -ETIMEDOUT;
		}
		nanosleep(&(struct timespec){ 0, 10 * 1000000 }, NULL);
	}
}

int quic_hs_run_blocking(gnutls_session_t session, unsigned int flags,
			 int *alert)
{
	int fd = gnutls_transport_get_int(session);
	struct quic_handshake_step *step;
	int64_t deadline;
	ssize_t n;
	int err;

	deadline = now_ms() + handshake_timeout_ms(fd);
	err = quic_hs_start(session, flags | QUIC_HS_BLOCKING, &step);
	while (!err && step) {
		if (step->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG) {
			n = sendmsg(fd, step->s_sendmsg.msg, step->s_sendmsg.flags);
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				err = wait_fd(fd, POLLOUT, deadline);
				continue;
			}
			step->s_sendmsg.retval = n < 0 ? -errno : n;
		} else {
			err = wait_fd(fd, POLLIN, deadline);
			if (err)
				continue;
			n = recvmsg(fd, step->s_recvmsg.msg, step->s_recvmsg.flags);
			step->s_recvmsg.retval = n < 0 ? -errno : n;
		}
		err = quic_handshake_step(session, &step);
	}
	if (err == -ETIMEDOUT)
		quic_log(QUIC_LOG_ERROR, "fd %d: handshake timed out", fd);
	if (!err && !session_is_server(session)) {
		struct quic_config config;

		quic_sock_config(fd, &config);
		if (config.receive_session_ticket)
			err = wait_ticket(fd, deadline);
	}
	if (alert) {
		struct quic_hs *hs = hs_find(session);

		*alert = hs && hs->state == QUIC_HS_FAILED ? hs->alert : -1;
	}
	quic_handshake_deinit(session);
	return err;
}

QUIC_EXPORT int quic_handshake(gnutls_session_t session)
{
	if (!session)
		return -EINVAL;
	return quic_hs_run_blocking(session, 0, NULL);
}

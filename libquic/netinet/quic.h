/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libquic: the userspace half of in-kernel QUIC.
 *
 * The kernel (quic.ko) does everything of QUIC except the TLS 1.3 handshake
 * messages; libquic runs the handshake with GnuTLS over an IPPROTO_QUIC
 * socket.  It moves handshake bytes with sendmsg()/recvmsg() and a
 * QUIC_HANDSHAKE_INFO cmsg, installs the traffic secrets with
 * setsockopt(QUIC_SOCKOPT_CRYPTO_SECRET) and exchanges the transport
 * parameters extension (0x39).  The exact contract with the kernel is in
 * libquic/README.md.
 *
 * Return values: every int/ssize_t function returns a negative errno on
 * failure.  Handshakes return:
 *   -EINVAL       bad arguments (e.g. no host name given to a client that
 *                 verifies certificates), or a malformed PSK file
 *   -ENOENT       a certificate, key or PSK file cannot be read
 *   -EKEYREJECTED authentication failed: the server certificate chain or
 *                 host name did not verify, or the PSK did not match
 *   -EPROTO       any other TLS failure (no common ALPN, cipher suite or
 *                 group, missing transport parameters, unexpected message)
 *   -ETIMEDOUT    the handshake did not finish in time (see below)
 *   -ENOMEM       out of memory
 *   other         the errno of a failing socket call (for example the
 *                 kernel rejecting the peer's transport parameters, or the
 *                 peer closing the connection)
 * When the handshake fails because of TLS, libquic has already set
 * QUIC_SOCKOPT_CONNECTION_CLOSE on the socket with errcode
 * QUIC_TRANSPORT_ERROR_CRYPTO + the TLS alert, so closing the socket sends
 * the right CONNECTION_CLOSE to the peer.
 *
 * Time limit: quic_client_handshake(), quic_server_handshake() and
 * quic_handshake() give up with -ETIMEDOUT when the whole handshake takes
 * longer than the socket's SO_RCVTIMEO, or 30 seconds when it is not set.
 *
 * Messages: the library never prints by itself.  Set a log function with
 * quic_set_log_func(), or set the environment variable QUIC_LOG to a level
 * (1 errors, 2 progress, 3 debug) to have messages printed on stderr when no
 * function is set.
 */

#ifndef _NETINET_QUIC_H
#define _NETINET_QUIC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <linux/quic.h>
#include <gnutls/gnutls.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * quic_client_handshake - run the client handshake on a connected socket
 * @sockfd:    IPPROTO_QUIC socket, connect()ed
 * @pkey_file: NULL: certificate mode.  Otherwise a PSK file (format below):
 *             the first entry's identity and key are used.
 * @hostname:  certificate mode: the server name, sent as SNI (unless an IP
 *             literal) and checked against the certificate; required.
 * @alpns:     comma-separated ALPN list ("h3,hq-interop"), or NULL to use
 *             the socket's QUIC_SOCKOPT_ALPN list (if any).
 *
 * In certificate mode the server's chain is always verified against the
 * system trust store, and its host name against @hostname.  Callers that
 * need another CA file, client certificates or no verification at all set
 * up their own gnutls session and credentials and call quic_handshake().
 *
 * Resumption: if the socket holds session data (setsockopt
 * QUIC_SOCKOPT_SESSION_TICKET with the bytes from quic_session_get_data()
 * of an earlier connection), it is used.
 *
 * The socket's QUIC_SOCKOPT_CONFIG: payload_cipher_type limits the
 * offered ciphers to that one; receive_session_ticket makes the call
 * return only once the server's NewSessionTicket has arrived (or fail
 * with -ETIMEDOUT), so that quic_session_get_data() has a ticket.
 */
int quic_client_handshake(int sockfd, const char *pkey_file,
			  const char *hostname, const char *alpns);

/*
 * quic_server_handshake - run the server handshake on an accept()ed socket
 * @pkey_file: the PEM private key, or with @cert_file NULL a PSK file
 * @cert_file: the PEM certificate chain, or NULL for PSK mode
 * @alpns:     comma-separated ALPN list in the server's order of preference,
 *             or NULL to use the socket's QUIC_SOCKOPT_ALPN list (if any).
 *
 * Session tickets are issued with the key found in the socket's
 * QUIC_SOCKOPT_SESSION_TICKET (64 bytes), or else with a random key that
 * lives as long as the process.
 *
 * The socket's QUIC_SOCKOPT_CONFIG: payload_cipher_type limits the
 * accepted ciphers to that one; certificate_request 1 asks the client for
 * a certificate, 2 requires one, and a certificate sent is verified
 * against the system trust store (-EKEYREJECTED if it fails, -EINVAL in
 * PSK mode).
 */
int quic_server_handshake(int sockfd, const char *pkey_file,
			  const char *cert_file, const char *alpns);

/*
 * PSK files: text, one entry per line, "identity:hexkey", the format of
 * GnuTLS's psktool (for example "alice:8c3f...9a").  Empty lines and lines
 * starting with '#' are ignored.  A client uses the first entry; a server
 * accepts any entry of the file.
 */

/*
 * quic_handshake - run the handshake on a caller-built gnutls session
 *
 * The session must have been created with gnutls_init(GNUTLS_CLIENT or
 * GNUTLS_SERVER | GNUTLS_NO_END_OF_EARLY_DATA), have its credentials and
 * priorities set (TLS 1.3 only; see QUIC_PRIORITY below), ALPNs set if
 * wanted (gnutls_alpn_set_protocols() or quic_session_set_alpn()), and the
 * socket attached with gnutls_transport_set_int(session, sockfd).  libquic
 * replaces the session's transport pull/push functions and installs its
 * QUIC hooks; it does not touch credentials, verification or priorities.
 * Of the socket's QUIC_SOCKOPT_CONFIG it applies certificate_request to a
 * server session (gnutls_certificate_server_set_request(); verification
 * stays the caller's), fails (-EPROTO) when another cipher than
 * payload_cipher_type is negotiated, and on a client honours
 * receive_session_ticket as quic_client_handshake() does (the step API
 * below does not wait for the ticket).
 * Blocks until the handshake is done, fails, or times out.
 */
int quic_handshake(gnutls_session_t session);

/* The priority string quic_client/server_handshake() use; a good base for
 * callers building their own session (add ":+ECDHE-PSK:+PSK" for PSK).
 */
#define QUIC_PRIORITY \
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:" \
	"+CHACHA20-POLY1305:-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:" \
	"%DISABLE_TLS13_COMPAT_MODE"

/*
 * Non-blocking handshake, driven by the caller (tlshd and other event
 * loops).  libquic still makes the setsockopt()/getsockopt() calls on the
 * socket of gnutls_transport_get_int(session) (secrets, transport
 * parameters, ALPN, CONNECTION_CLOSE: none of them blocks); the caller
 * moves the handshake bytes:
 *
 *	struct quic_handshake_step *step;
 *	int err = quic_handshake_init(session, &step);
 *
 *	while (!err && step->op != QUIC_HANDSHAKE_STEP_DONE) {
 *		if (step->op == QUIC_HANDSHAKE_STEP_SEND)
 *			send all step->len bytes of step->data at step->level
 *			(sendmsg with a QUIC_HANDSHAKE_INFO cmsg);
 *		else	// QUIC_HANDSHAKE_STEP_RECV
 *			wait for the socket to be readable, recvmsg() at most
 *			step->len bytes into step->data, then set step->len to
 *			the count and step->level to the cmsg's crypto_level;
 *		err = quic_handshake_step(session, &step);
 *	}
 *	quic_handshake_deinit(session);
 *
 * A RECV step completed with step->len = 0 is allowed (nothing arrived);
 * the same RECV step comes back.  If the caller's own I/O fails it just
 * stops and calls quic_handshake_deinit().  On failure both functions
 * return a negative errno (the list at the top of this file) and have
 * already set QUIC_SOCKOPT_CONNECTION_CLOSE when TLS failed; *pstep is then
 * NULL.  The step memory belongs to libquic and stays valid until the next
 * call.  quic_handshake_deinit() frees libquic's state for the session (not
 * the session itself) and may be called at any time.
 */
enum quic_handshake_step_op {
	QUIC_HANDSHAKE_STEP_SEND = 1,	/* send data[0..len) at level */
	QUIC_HANDSHAKE_STEP_RECV,	/* receive into data[0..len), report
					 * len and level
					 */
	QUIC_HANDSHAKE_STEP_DONE,	/* handshake complete, keys installed */
};

struct quic_handshake_step {
	enum quic_handshake_step_op op;
	uint8_t level;		/* enum quic_crypto_level of the bytes */
	uint8_t *data;		/* SEND: bytes to send; RECV: buffer */
	size_t len;		/* SEND: byte count; RECV: in: buffer size,
				 * out (set by the caller): bytes received
				 */
};

int quic_handshake_init(gnutls_session_t session,
			struct quic_handshake_step **pstep);
int quic_handshake_step(gnutls_session_t session,
			struct quic_handshake_step **pstep);
void quic_handshake_deinit(gnutls_session_t session);

/*
 * Session data (resumption).
 * Client: quic_session_get_data() first feeds GnuTLS the NewSessionTicket
 * the kernel holds (getsockopt QUIC_SOCKOPT_SESSION_TICKET on the session's
 * socket), then returns gnutls session data; quic_session_set_data() sets
 * such data on a new session before its handshake.
 * Server: quic_session_set_data() sets the 64-byte session ticket key
 * (gnutls_session_ticket_key_generate()); get_data returns -EINVAL.
 * With data NULL, get_data stores the size needed in *size and returns 0;
 * a too small buffer gives -ENOSPC (and the size needed in *size).
 * 0-RTT (early data) is not supported yet.
 */
int quic_session_get_data(gnutls_session_t session, void *data, size_t *size);
int quic_session_set_data(gnutls_session_t session, const void *data,
			  size_t size);

/*
 * ALPN.  set: @data is a comma-separated list of @size bytes (no NUL
 * needed).  get: after the handshake, the negotiated protocol, NUL
 * terminated, *size set to its length without the NUL; -ENOENT if none was
 * negotiated, -ENOSPC if the buffer is too small.
 */
int quic_session_get_alpn(gnutls_session_t session, void *data, size_t *size);
int quic_session_set_alpn(gnutls_session_t session, const void *data,
			  size_t size);

/*
 * Stream data.  quic_sendmsg() sends @len bytes on stream @sid (-1 with
 * MSG_QUIC_STREAM_NEW opens the next bidirectional stream, with
 * MSG_QUIC_STREAM_UNI too the next unidirectional one): it passes a
 * QUIC_STREAM_INFO cmsg {stream_id = sid, stream_flags = the
 * MSG_QUIC_STREAM_* bits of flags} and all of @flags as the sendmsg() flags
 * (so MSG_DONTWAIT, MSG_QUIC_DATAGRAM, ... work too).  quic_recvmsg() receives: *flags (if
 * flags is not NULL) is passed in as the recvmsg() flags (MSG_DONTWAIT,
 * ...); on return it holds the message flags ORed with the stream_flags of
 * the QUIC_STREAM_INFO cmsg (MSG_QUIC_STREAM_FIN on a stream's last chunk,
 * MSG_QUIC_DATAGRAM, MSG_QUIC_NOTIFICATION), and *sid the stream id, or -1
 * when the message carries no stream (datagram, event).
 */
ssize_t quic_sendmsg(int sockfd, const void *msg, size_t len, int64_t sid,
		     uint32_t flags);
ssize_t quic_recvmsg(int sockfd, void *msg, size_t len, int64_t *sid,
		     uint32_t *flags);

/*
 * Logging.  Levels: QUIC_LOG_ERROR (why a handshake failed),
 * QUIC_LOG_INFO (progress: suite, ALPN, keys installed), QUIC_LOG_DEBUG
 * (every message and socket call).  quic_set_log_func(NULL) restores the
 * default (print on stderr only if QUIC_LOG is set in the environment).
 */
#define QUIC_LOG_ERROR	1
#define QUIC_LOG_INFO	2
#define QUIC_LOG_DEBUG	3

void quic_set_log_func(void (*func)(int level, const char *msg));
void quic_set_log_level(int level);

#ifdef __cplusplus
}
#endif

#endif /* _NETINET_QUIC_H */

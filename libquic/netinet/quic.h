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
 * libquic/README.md.  The declarations are those of the reference library
 * of draft-lxin-quic-socket-apis, so programs written for it build
 * unchanged with -lquic.
 *
 * Return values.  quic_sendmsg() and quic_recvmsg() return -1 and set errno
 * on failure, as sendmsg()/recvmsg() do.  Every other int function returns
 * 0 on success and a negative errno on failure.  The handshakes return:
 *   -EINVAL       bad arguments, a malformed PSK file, certificate_request
 *                 in PSK mode, or a payload_cipher_type that is no QUIC
 *                 cipher
 *   -ENOENT       a certificate, key, CA or PSK file cannot be read
 *   -EKEYREJECTED authentication failed: a certificate chain or host name
 *                 did not verify, a required client certificate was
 *                 missing, or the PSK did not match
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
 * Environment: QUIC_CA_FILE names a PEM file of CA certificates that
 * quic_client_handshake() and quic_server_handshake() trust instead of the
 * system trust store (ignored in setuid programs: secure_getenv()).
 * QUIC_LOG prints messages on stderr (see quic_set_log_func()).
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
#include <gnutls/abstract.h>

#ifndef SOL_QUIC
#define SOL_QUIC	288
#endif
#ifndef IPPROTO_QUIC
#define IPPROTO_QUIC	261
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The GnuTLS priority string of quic_client_handshake() and
 * quic_server_handshake() (with only the socket's payload_cipher_type when
 * it has one), and a good base for callers building their own session:
 * TLS 1.3 only, certificates, PSK and (EC)DHE-PSK key exchange, the four
 * ciphers QUIC packet protection has (RFC 9001 5.3), the groups P-256,
 * X25519, P-384 and P-521, and no middlebox compatibility mode (RFC 9001
 * 8.4).
 */
#define QUIC_PRIORITY \
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+PSK:+ECDHE-PSK:" \
	"-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:+AES-128-CCM:" \
	"-GROUP-ALL:+GROUP-SECP256R1:+GROUP-X25519:+GROUP-SECP384R1:" \
	"+GROUP-SECP521R1:%DISABLE_TLS13_COMPAT_MODE"

/*
 * quic_client_handshake - run the client handshake on a connected socket
 * @sockfd:    IPPROTO_QUIC socket, connect()ed
 * @pkey_file: NULL: certificate mode.  Otherwise a PSK file (format below):
 *             the first entry's identity and key are used.
 * @hostname:  the server name, sent as SNI (unless an IP literal) and, in
 *             certificate mode, checked against the certificate; or NULL.
 * @alpns:     comma-separated ALPN list ("h3,hq-interop"), or NULL to use
 *             the socket's QUIC_SOCKOPT_ALPN list (if any).
 *
 * Certificate mode with a @hostname: the server's chain is verified against
 * the system trust store (or the CA file of QUIC_CA_FILE), and its name
 * against @hostname.  With @hostname NULL the caller opted out of the name
 * check: no SNI is sent and no name is checked; the chain is verified only
 * when QUIC_CA_FILE names a CA file, and not at all otherwise.  Callers
 * that need client certificates or other trust rules set up their own
 * gnutls session and call quic_handshake().
 *
 * Resumption: if the socket holds session data (setsockopt
 * QUIC_SOCKOPT_SESSION_TICKET with the bytes from quic_session_get_data()
 * of an earlier connection), it is used.
 *
 * The socket's QUIC_SOCKOPT_CONFIG: payload_cipher_type limits the
 * offered ciphers to that one; receive_session_ticket makes the call
 * return only once the server's NewSessionTicket has arrived (or fail
 * with -ETIMEDOUT), so that quic_session_get_data() has a ticket.
 *
 * Returns 0, or a negative errno (the list at the top of this file).
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
 * Session tickets are issued with the ticket key of the socket's
 * getsockopt(QUIC_SOCKOPT_SESSION_TICKET) (the one the application set on
 * the listener, or one the kernel generated), or else with a random key
 * that lives as long as the process.
 *
 * The socket's QUIC_SOCKOPT_CONFIG: payload_cipher_type limits the
 * accepted ciphers to that one; certificate_request 1 asks the client for
 * a certificate, 2 requires one, and a certificate sent is verified
 * against the system trust store, or the CA file of QUIC_CA_FILE
 * (-EKEYREJECTED if it fails or a required one is missing; -EINVAL in PSK
 * mode).
 *
 * Returns 0, or a negative errno (the list at the top of this file).
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
 * Non-blocking handshake, driven by the caller (tlshd and other event
 * loops).  The library describes each socket call to make in a step; the
 * caller makes it on the session's socket and reports the result:
 *
 *	struct quic_handshake_step *step;
 *	int err = quic_handshake_init(session, &step);
 *
 *	while (!err && step) {
 *		if (step->op == QUIC_HANDSHAKE_STEP_OP_SENDMSG)
 *			step->s_sendmsg.retval = sendmsg(fd,
 *				step->s_sendmsg.msg, step->s_sendmsg.flags);
 *		else
 *			step->s_recvmsg.retval = recvmsg(fd,
 *				step->s_recvmsg.msg, step->s_recvmsg.flags);
 *		err = quic_handshake_step(session, &step);
 *	}
 *	quic_handshake_deinit(session);
 *
 * A NULL step with 0 returned means the handshake is complete (keys
 * installed, ALPN set).  SENDMSG steps carry handshake bytes of one level
 * with a QUIC_HANDSHAKE_INFO cmsg; RECVMSG steps a 64 KiB buffer and room
 * for the cmsgs.  The flags are MSG_DONTWAIT (and MSG_NOSIGNAL to send):
 * an event loop waits for POLLOUT/POLLIN first; a retval of -1 with errno
 * EAGAIN, EWOULDBLOCK or EINTR (or -EAGAIN, -EINTR stored directly) gives
 * the same step back.  retval is what the call returned: the byte count,
 * or -1 with errno still set (or a negative errno).  A short send gives a
 * SENDMSG step with the rest.  Any other failure ends the handshake with
 * that errno.  The session's socket is gnutls_transport_get_int(session);
 * libquic still makes the setsockopt()/getsockopt() calls on it itself
 * (secrets, transport parameters, ALPN, CONNECTION_CLOSE: none blocks).
 *
 * Both functions return 0 or a negative errno (the list at the top of this
 * file; *pstep is then NULL, and QUIC_SOCKOPT_CONNECTION_CLOSE is already
 * set when TLS failed).  The step and its msghdr belong to libquic and stay
 * valid until the next call.  The step API keeps no time (the caller
 * does) and does not wait for a session ticket (receive_session_ticket).
 * quic_handshake_deinit() frees libquic's state for the session (not the
 * session itself) and may be called at any time.
 */
enum quic_handshake_step_op {
	QUIC_HANDSHAKE_STEP_OP_SENDMSG = 1,
	QUIC_HANDSHAKE_STEP_OP_RECVMSG,
};

struct quic_handshake_step_sendmsg {
	const struct msghdr *msg;
	int flags;
	ssize_t retval;
};

struct quic_handshake_step_recvmsg {
	struct msghdr *msg;
	int flags;
	ssize_t retval;
};

struct quic_handshake_step {
	enum quic_handshake_step_op op;
	union {
		struct quic_handshake_step_sendmsg s_sendmsg;
		struct quic_handshake_step_recvmsg s_recvmsg;
	};
};

int quic_handshake_init(gnutls_session_t session,
			struct quic_handshake_step **pstep);
int quic_handshake_step(gnutls_session_t session,
			struct quic_handshake_step **pstep);
void quic_handshake_deinit(gnutls_session_t session);

/*
 * quic_handshake - run the handshake on a caller-built gnutls session
 *
 * The session must have been created with gnutls_init(GNUTLS_CLIENT or
 * GNUTLS_SERVER | GNUTLS_NO_END_OF_EARLY_DATA), have its credentials and
 * priorities set (TLS 1.3 only; see QUIC_PRIORITY), ALPNs set if wanted
 * (gnutls_alpn_set_protocols() or quic_session_set_alpn()), and the socket
 * attached with gnutls_transport_set_int(session, sockfd).  libquic
 * replaces the session's transport pull/push functions and installs its
 * QUIC hooks; it does not touch credentials, verification or priorities.
 * A server session issues session tickets only if the caller enabled them
 * (quic_session_set_data() with the socket's key, for example).
 * Of the socket's QUIC_SOCKOPT_CONFIG it applies certificate_request to a
 * server session (gnutls_certificate_server_set_request(); verification
 * stays the caller's), fails (-EPROTO) when another cipher than
 * payload_cipher_type is negotiated, and on a client honours
 * receive_session_ticket as quic_client_handshake() does.
 * Blocks until the handshake is done, fails, or times out: the step API
 * with poll(), sendmsg() and recvmsg().  Returns 0 or a negative errno.
 */
int quic_handshake(gnutls_session_t session);

/*
 * quic_handshake_early_hello - send a server's ServerHello before the rest
 * of its flight
 *
 * GnuTLS hands libquic the server's first flight only once it is whole,
 * after the CertificateVerify has been signed.  With this call, libquic
 * takes the session's GnuTLS handshake hook
 * (gnutls_handshake_set_hook_function(), GNUTLS_HANDSHAKE_SERVER_HELLO,
 * GNUTLS_HOOK_POST) and quic_handshake() sends the ServerHello as soon as
 * it is made, so that the client derives its handshake keys while the
 * server signs, as over TCP.  A session has one hook: this replaces one
 * the application set, and one it sets afterwards replaces libquic's
 * (the ServerHello then leaves with the flight).  The step API
 * (quic_handshake_init()) does not send early: its caller makes the
 * sendmsg() calls.  quic_server_handshake() does this on its own session.
 * Returns 0, or -EINVAL for a NULL or client session.
 */
int quic_handshake_early_hello(gnutls_session_t session);

/*
 * Session data (resumption).
 * Client: quic_session_get_data() first feeds GnuTLS the NewSessionTicket
 * the kernel holds (getsockopt QUIC_SOCKOPT_SESSION_TICKET on the session's
 * socket), then returns gnutls session data; quic_session_set_data() sets
 * such data on a new session before its handshake.
 * Server: quic_session_set_data() sets the session ticket key: 64 bytes
 * (gnutls_session_ticket_key_generate()) are used as they are, another
 * size of at least 16 bytes (such as the key getsockopt
 * QUIC_SOCKOPT_SESSION_TICKET returns on a server socket) is stretched to
 * 64 with SHA-512, as quic_server_handshake() does; get_data returns
 * -EINVAL.
 * With data NULL, get_data stores the size needed in *size and returns 0;
 * a too small buffer gives -ENOSPC (and the size needed in *size).
 * 0-RTT (early data) is not supported yet.
 * Both return 0 or a negative errno.
 */
int quic_session_get_data(gnutls_session_t session, void *data, size_t *size);
int quic_session_set_data(gnutls_session_t session, const void *data,
			  size_t size);

/*
 * ALPN.  set: @data is a comma-separated list of @size bytes (no NUL
 * needed).  get: after the handshake, the negotiated protocol, NUL
 * terminated, *size set to its length without the NUL; -ENOENT if none was
 * negotiated, -ENOSPC if the buffer is too small.  Both return 0 or a
 * negative errno.
 */
int quic_session_get_alpn(gnutls_session_t session, void *data, size_t *size);
int quic_session_set_alpn(gnutls_session_t session, const void *data,
			  size_t size);

/*
 * Stream data, like sendmsg()/recvmsg(): the byte count, or -1 with errno
 * set.
 *
 * quic_sendmsg() sends @len bytes on stream @sid (-1 with
 * MSG_QUIC_STREAM_NEW opens the next bidirectional stream, with
 * MSG_QUIC_STREAM_UNI too the next unidirectional one).  The stream flags
 * of @flags (MSG_QUIC_STREAM_NEW, _FIN, _UNI, _DONTWAIT, _SNDBLOCK) go in
 * the QUIC_STREAM_INFO cmsg {stream_id = sid, stream_flags}; the other
 * bits of @flags are the sendmsg() flags (MSG_DONTWAIT, MSG_NOSIGNAL,
 * MSG_QUIC_DATAGRAM, ...).
 *
 * quic_recvmsg() receives: *flags (if flags is not NULL) is passed in as
 * the recvmsg() flags (MSG_DONTWAIT, MSG_PEEK, ...); on return it holds the
 * message flags ORed with the stream_flags of the QUIC_STREAM_INFO cmsg
 * (MSG_QUIC_STREAM_FIN on a stream's last chunk, MSG_QUIC_DATAGRAM,
 * MSG_QUIC_NOTIFICATION), and *sid (if not NULL) the stream id, or -1 when
 * the message carries no stream (datagram, event).
 */
ssize_t quic_sendmsg(int sockfd, const void *msg, size_t len, int64_t sid,
		     uint32_t flags);
ssize_t quic_recvmsg(int sockfd, void *msg, size_t len, int64_t *sid,
		     uint32_t *flags);

/*
 * Logging.  Levels: QUIC_LOG_ERROR (why a handshake failed),
 * QUIC_LOG_INFO (progress: suite, ALPN, keys installed), QUIC_LOG_DEBUG
 * (every message and socket call); a higher level includes the lower ones.
 * quic_set_log_func() returns the previous function; NULL restores the
 * default (print on stderr only if QUIC_LOG is set in the environment).
 * Setting a function while the level is 0 (nothing) raises it to
 * QUIC_LOG_ERROR.  quic_set_log_level() returns the previous level.
 */
#define QUIC_LOG_ERROR	1
#define QUIC_LOG_INFO	2
#define QUIC_LOG_DEBUG	3

typedef void (*quic_set_log_func_t)(int level, const char *msg);
quic_set_log_func_t quic_set_log_func(quic_set_log_func_t func);
int quic_set_log_level(int level);

#ifdef __cplusplus
}
#endif

#endif /* _NETINET_QUIC_H */

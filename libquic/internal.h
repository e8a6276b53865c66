/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libquic internals shared by its source files. */

#ifndef _LIBQUIC_INTERNAL_H
#define _LIBQUIC_INTERNAL_H

#include <netinet/quic.h>

#define QUIC_EXPORT	__attribute__((visibility("default")))

/* quic_hs_start() flags */
#define QUIC_HS_ALPN_REQUIRED	0x1	/* fail unless an ALPN was negotiated */
#define QUIC_HS_BLOCKING	0x2	/* quic_hs_run_blocking(): hooks may send */

void quic_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int quic_log_enabled(int level);

/* handshake.c */
int quic_hs_start(gnutls_session_t session, unsigned int flags,
		  struct quic_handshake_step **pstep);
/* alert: set to the TLS alert the handshake failed with, or -1 */
int quic_hs_run_blocking(gnutls_session_t session, unsigned int flags,
			 int *alert);
int quic_gnutls_errno(int gnutls_err);
int quic_session_is_server(gnutls_session_t session);
/* The socket's QUIC_SOCKOPT_CONFIG; all zero (defaults) if it has none. */
void quic_sock_config(int fd, struct quic_config *config);

/* session.c */
/* Does buf hold whole TLS NewSessionTicket messages? */
int quic_is_ticket_messages(const uint8_t *buf, size_t len);

/* early_data.c: 0-RTT */
unsigned int quic_early_client_flags(int fd);	/* gnutls_init() flags */
unsigned int quic_early_server_flags(void);
/* Anti-replay and max_early_data_size; non-zero: never accept 0-RTT. */
int quic_early_server_setup(gnutls_session_t session);
/* Client, handshake complete: tell the kernel if 0-RTT was rejected. */
int quic_early_client_done(gnutls_session_t session, int fd, int early_tx);

/* vn_restart.c: a new attempt after Version Negotiation */
int quic_vn_restart(int fd, uint32_t tried, const struct sockaddr *peer,
		    socklen_t peer_len);

#endif /* _LIBQUIC_INTERNAL_H */

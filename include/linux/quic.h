/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the in-kernel consumer API.  The user ABI lives in
 * <uapi/linux/quic.h>; Documentation: quic(7) and tests/kernel/README.
 *
 * A kernel user (SMB, NFS, tests/kernel/quic_sample.c) works with a QUIC
 * socket as userspace does, through the ordinary kernel socket calls:
 *
 *   sock_create_kern(net, AF_INET or AF_INET6, SOCK_STREAM or SOCK_DGRAM,
 *                    IPPROTO_QUIC, &sock);
 *   kernel_bind(), kernel_connect(), kernel_listen(), kernel_accept();
 *   kernel_sendmsg() / kernel_recvmsg() with kvec iterators and the same
 *   SOL_QUIC cmsgs as userspace (QUIC_STREAM_INFO, QUIC_HANDSHAKE_INFO),
 *   msg_control pointing to kernel memory; MSG_QUIC_DATAGRAM for RFC 9221
 *   datagrams and MSG_QUIC_NOTIFICATION for events, as in quic(7);
 *   quic_do_setsockopt() / quic_do_getsockopt() below for SOL_QUIC options
 *   (kernel_setsockopt() no longer exists), with KERNEL_SOCKPTR() buffers.
 *
 * The TLS handshake runs in userspace through net/handshake
 * (<net/handshake.h>): a handshake agent (tools/quic-handshaked) gets the
 * socket as a file descriptor and runs the QUIC handshake on it with
 * libquic.  Before calling tls_client_hello_x509(), tls_client_hello_psk(),
 * tls_server_hello_x509() or tls_server_hello_psk(), the kernel user:
 *
 *   1. gives the socket a file: sock_alloc_file(sock, 0, NULL) (net/handshake
 *      passes the file to the agent; the kernel user then owns the socket
 *      through that file and releases it with fput(sock->file), not
 *      sock_release());
 *   2. a client: kernel_connect() to the server (the socket then waits, in
 *      QUIC_SS_CONNECTING, for the handshake); a server: kernel_accept()
 *      on a listener, which returns a socket holding the client's Initial;
 *   3. sets the ALPN list with QUIC_SOCKOPT_ALPN (comma separated; the agent
 *      reads it back from the socket, net/handshake has no ALPN attribute),
 *      and any transport parameters (QUIC_SOCKOPT_TRANSPORT_PARAM) and
 *      configuration (QUIC_SOCKOPT_CONFIG) it wants, as they are sent in
 *      the handshake;
 *   4. fills struct tls_handshake_args: ta_sock, ta_done, ta_data,
 *      ta_timeout_ms (the agent's bound for the handshake), ta_peername (a
 *      client's server name: SNI, and the name the agent checks the
 *      server's certificate for; with NULL the agent still checks the
 *      chain against its trust anchors), and ta_my_cert + ta_my_privkey
 *      (x509: key serials of keys the agent can read, as tlshd expects
 *      them; 0 for none: a client without certificate, or the agent's
 *      configured ones), or ta_my_peerids[0] (psk: the serial of a key
 *      whose description is the PSK identity, ta_num_peerids 1 for a
 *      client), and ta_keyring when the keys are in a keyring the agent
 *      must link first.  tls_client_hello_anon() is a client without
 *      certificate.  quic-handshaked(8) says which key types it reads.
 *
 * ta_done(ta_data, status, peerid) is called once: status 0 when the
 * handshake completed (the socket is then QUIC_SS_ESTABLISHED and ready for
 * kernel_sendmsg()/kernel_recvmsg(); the agent has closed its descriptor),
 * or a negative errno.  peerid is TLS_NO_PEERID unless the peer
 * authenticated: with X.509 the serial of a "user" key whose payload is the
 * DER of the peer's verified certificate (quic-handshaked makes it; it
 * exists during ta_done, which may take a reference with key_lookup(), and
 * stays in ta_keyring if one was given), with PSK the serial of the PSK
 * key used.  net/handshake itself never times out: a caller
 * waits for ta_done with a bound of its own and, when it expires, calls
 * tls_handshake_cancel(sock->sk); if that returns true ta_done will not be
 * called.  With no agent listening the hello call fails at once with
 * -ESRCH.  Closing the socket (fput) with a handshake pending is safe.
 */

#ifndef _LINUX_QUIC_H
#define _LINUX_QUIC_H

#include <linux/sockptr.h>
#include <uapi/linux/quic.h>

struct sock;

int quic_do_setsockopt(struct sock *sk, int optname, sockptr_t optval,
		       unsigned int optlen);
int quic_do_getsockopt(struct sock *sk, int optname, sockptr_t optval,
		       sockptr_t optlen);

#endif /* _LINUX_QUIC_H */

/* SPDX-License-Identifier: GPL-2.0+ WITH Linux-syscall-note */
/*
 * QUIC sockets: the user API of "Sockets API Extensions for In-kernel QUIC
 * Implementations" (draft-lxin-quic-socket-apis).
 *
 * Names, numbers, field order and types are ABI: programs built for that API
 * must work with this header unchanged.  tests/unit/abi_test.c pins every
 * size, offset and value below.
 */

#ifndef _UAPI_LINUX_QUIC_H
#define _UAPI_LINUX_QUIC_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/socket.h>
#else
#include <sys/socket.h>
#endif

#ifndef IPPROTO_QUIC
enum {
	IPPROTO_QUIC = 261,		/* not (yet) in <linux/in.h> */
};
#define IPPROTO_QUIC		IPPROTO_QUIC
#endif

#define SOL_QUIC		288

/* Send and receive flags: aliases of MSG_* bits that QUIC sockets do not
 * otherwise use.
 */
enum quic_msg_flags {
	/* sendmsg only */
	MSG_QUIC_STREAM_NEW		= MSG_SYN,
	MSG_QUIC_STREAM_FIN		= MSG_FIN,
	MSG_QUIC_STREAM_UNI		= MSG_CONFIRM,
	MSG_QUIC_STREAM_DONTWAIT	= MSG_WAITFORONE,
	MSG_QUIC_STREAM_SNDBLOCK	= MSG_ERRQUEUE,
	/* sendmsg and recvmsg */
	MSG_QUIC_DATAGRAM		= MSG_RST,
	/* recvmsg only */
	MSG_QUIC_NOTIFICATION		= MSG_MORE,
};

/* cmsg types, at level SOL_QUIC */
enum quic_cmsg_type {
	QUIC_STREAM_INFO,
	QUIC_HANDSHAKE_INFO,
};

#define QUIC_STREAM_TYPE_SERVER_MASK	0x01
#define QUIC_STREAM_TYPE_UNI_MASK	0x02
#define QUIC_STREAM_TYPE_MASK		0x03

struct quic_handshake_info {
	__u8	crypto_level;
};

struct quic_stream_info {
	__s64	stream_id;
	__u32	stream_flags;
};

enum quic_crypto_level {
	QUIC_CRYPTO_APP,
	QUIC_CRYPTO_INITIAL,
	QUIC_CRYPTO_HANDSHAKE,
	QUIC_CRYPTO_EARLY,
	QUIC_CRYPTO_MAX,
};

#define QUIC_CRYPTO_SECRET_BUFFER_SIZE	48

struct quic_crypto_secret {
	__u8	send;	/* 1: our send direction, 0: receive */
	__u8	level;	/* enum quic_crypto_level */
	__u16	reserved;
	__u32	type;	/* TLS_CIPHER_* from <linux/tls.h> */
	__u8	secret[QUIC_CRYPTO_SECRET_BUFFER_SIZE];
};

enum quic_cong_algo {
	QUIC_CONG_ALG_RENO,
	QUIC_CONG_ALG_CUBIC,
	QUIC_CONG_ALG_BBR,
	QUIC_CONG_ALG_MAX,
};

struct quic_transport_param {
	__u8	remote;
	__u8	disable_active_migration;
	__u8	grease_quic_bit;
	__u8	stateless_reset;
	__u8	disable_1rtt_encryption;
	__u8	disable_compatible_version;
	__u8	active_connection_id_limit;
	__u8	ack_delay_exponent;
	__u16	max_datagram_frame_size;
	__u16	max_udp_payload_size;
	__u32	max_idle_timeout;	/* microseconds */
	__u32	max_ack_delay;		/* microseconds */
	__u16	max_streams_bidi;
	__u16	max_streams_uni;
	__u64	max_data;
	__u64	max_stream_data_bidi_local;
	__u64	max_stream_data_bidi_remote;
	__u64	max_stream_data_uni;
};

struct quic_config {
	__u32	version;
	__u32	plpmtud_probe_interval;
	__u32	initial_smoothed_rtt;
	__u32	payload_cipher_type;
	__u8	congestion_control_algo;
	__u8	validate_peer_address;
	__u8	stream_data_nodelay;
	__u8	receive_session_ticket;
	__u8	certificate_request;
	__u8	reserved[3];
	__u32	keepalive_probe_interval;
};

#define QUIC_CLOSE_PHRASE_BUFFER_SIZE	64

struct quic_connection_close {
	__u32	errcode;
	__u8	frame;
	__u8	reserved[3];
	__u8	phrase[QUIC_CLOSE_PHRASE_BUFFER_SIZE];
};

struct quic_connection_id_info {
	__u8	dest;
	__u8	reserved[3];
	__u32	active;
	__u32	prior_to;
};

struct quic_event_option {
	__u8	type;
	__u8	on;
};

struct quic_errinfo {
	__s64	stream_id;
	__u32	errcode;
};

/* Socket options, at level SOL_QUIC */
#define QUIC_SOCKOPT_EVENT			0
#define QUIC_SOCKOPT_STREAM_OPEN		1
#define QUIC_SOCKOPT_STREAM_RESET		2
#define QUIC_SOCKOPT_STREAM_STOP_SENDING	3
#define QUIC_SOCKOPT_CONNECTION_ID		4
#define QUIC_SOCKOPT_CONNECTION_CLOSE		5
#define QUIC_SOCKOPT_CONNECTION_MIGRATION	6
#define QUIC_SOCKOPT_KEY_UPDATE			7
#define QUIC_SOCKOPT_TRANSPORT_PARAM		8
#define QUIC_SOCKOPT_CONFIG			9
#define QUIC_SOCKOPT_TOKEN			10
#define QUIC_SOCKOPT_ALPN			11
#define QUIC_SOCKOPT_SESSION_TICKET		12
#define QUIC_SOCKOPT_CRYPTO_SECRET		13
#define QUIC_SOCKOPT_TRANSPORT_PARAM_EXT	14

/*
 * Beyond the draft API, numbered away from its range: a stream's own file
 * descriptor (quic(7), STREAM FILE DESCRIPTORS).  Get only.
 */
#define QUIC_SOCKOPT_STREAM_PEELOFF		64
/*
 * Set only: the connection IDs to issue as ours from now on (QUIC-LB
 * style routing), an array of struct quic_connection_id (quic(7)).
 */
#define QUIC_SOCKOPT_CONNECTION_ID_LIST		65

struct quic_connection_id {
	__u8	len;		/* 1..20: the CID length of the socket's port */
	__u8	data[20];
	__u8	reset_token[16];	/* its stateless reset token */
	__u8	reserved[3];	/* 0 */
};

struct quic_stream_peeloff {
	__s64	stream_id;	/* -1: open the next stream; returned */
	__u32	stream_flags;	/* with -1: MSG_QUIC_STREAM_UNI, _DONTWAIT */
	__u32	flags;		/* O_CLOEXEC, O_NONBLOCK of the new fd */
	__s32	fd;		/* returned: the stream's file descriptor */
	__u32	reserved;	/* 0 */
};

#define QUIC_VERSION_V1		0x1
#define QUIC_VERSION_V2		0x6b3343cf

/* In-band events: recvmsg() with MSG_QUIC_NOTIFICATION set returns a buffer
 * whose first byte is the event type and whose payload (union quic_event)
 * follows.
 */
enum quic_event_type {
	QUIC_EVENT_NONE,
	QUIC_EVENT_STREAM_UPDATE,
	QUIC_EVENT_STREAM_MAX_DATA,
	QUIC_EVENT_STREAM_MAX_STREAM,
	QUIC_EVENT_CONNECTION_ID,
	QUIC_EVENT_CONNECTION_CLOSE,
	QUIC_EVENT_CONNECTION_MIGRATION,
	QUIC_EVENT_KEY_UPDATE,
	QUIC_EVENT_NEW_TOKEN,
	QUIC_EVENT_NEW_SESSION_TICKET,
	QUIC_EVENT_MAX,
};

/* quic_stream_update.state */
enum {
	QUIC_STREAM_SEND_STATE_READY,
	QUIC_STREAM_SEND_STATE_SEND,
	QUIC_STREAM_SEND_STATE_SENT,
	QUIC_STREAM_SEND_STATE_RECVD,
	QUIC_STREAM_SEND_STATE_RESET_SENT,
	QUIC_STREAM_SEND_STATE_RESET_RECVD,

	QUIC_STREAM_RECV_STATE_RECV,
	QUIC_STREAM_RECV_STATE_SIZE_KNOWN,
	QUIC_STREAM_RECV_STATE_RECVD,
	QUIC_STREAM_RECV_STATE_READ,
	QUIC_STREAM_RECV_STATE_RESET_RECVD,
	QUIC_STREAM_RECV_STATE_RESET_READ,
};

struct quic_stream_update {
	__s64	id;
	__u8	state;
	__u8	reserved[3];
	__u32	errcode;
	__u64	finalsz;
};

struct quic_stream_max_data {
	__s64	id;
	__u64	max_data;
};

union quic_event {
	struct quic_stream_update	update;
	struct quic_stream_max_data	max_data;
	struct quic_connection_close	close;
	struct quic_connection_id_info	info;
	__u64	max_stream;
	__u8	local_migration;
	__u8	key_update_phase;
};

enum quic_transport_error {
	QUIC_TRANSPORT_ERROR_NONE			= 0x00,
	QUIC_TRANSPORT_ERROR_INTERNAL			= 0x01,
	QUIC_TRANSPORT_ERROR_CONNECTION_REFUSED		= 0x02,
	QUIC_TRANSPORT_ERROR_FLOW_CONTROL		= 0x03,
	QUIC_TRANSPORT_ERROR_STREAM_LIMIT		= 0x04,
	QUIC_TRANSPORT_ERROR_STREAM_STATE		= 0x05,
	QUIC_TRANSPORT_ERROR_FINAL_SIZE			= 0x06,
	QUIC_TRANSPORT_ERROR_FRAME_ENCODING		= 0x07,
	QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM		= 0x08,
	QUIC_TRANSPORT_ERROR_CONNECTION_ID_LIMIT	= 0x09,
	QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION		= 0x0a,
	QUIC_TRANSPORT_ERROR_INVALID_TOKEN		= 0x0b,
	QUIC_TRANSPORT_ERROR_APPLICATION		= 0x0c,
	QUIC_TRANSPORT_ERROR_CRYPTO_BUF_EXCEEDED	= 0x0d,
	QUIC_TRANSPORT_ERROR_KEY_UPDATE			= 0x0e,
	QUIC_TRANSPORT_ERROR_AEAD_LIMIT_REACHED		= 0x0f,
	QUIC_TRANSPORT_ERROR_NO_VIABLE_PATH		= 0x10,
	QUIC_TRANSPORT_ERROR_VERSION_NEGOTIATION	= 0x11,

	/* 0x100-0x1ff: the TLS alert (low byte) that ended the handshake */
	QUIC_TRANSPORT_ERROR_CRYPTO			= 0x100,
};

#endif /* _UAPI_LINUX_QUIC_H */

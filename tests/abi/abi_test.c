// SPDX-License-Identifier: GPL-2.0
/*
 * Pins the user ABI of <linux/quic.h> (../shared/API.md): the size and
 * offset of every struct member and the value of every constant.  Built as
 * both C99 and C11 with -Wall -Wextra -Werror -pedantic, so the header
 * stays usable from either.
 */

#include <stddef.h>
#include <stdio.h>
#include <linux/tls.h>
#include <linux/quic.h>

static int n, failed;

static void check(int ok, const char *what, long long got, long long want)
{
	n++;
	if (!ok)
		failed++;
	printf("%sok %d - %s", ok ? "" : "not ", n, what);
	if (!ok)
		printf(" (got %lld, want %lld)", got, want);
	printf("\n");
}

#define VAL(name, want) \
	check((long long)(name) == (long long)(want), "value " #name, (long long)(name), (want))
#define SIZE(type, want) \
	check(sizeof(type) == (want), "sizeof(" #type ")", (long long)sizeof(type), (want))
#define OFF(type, member, want) \
	check(offsetof(type, member) == (want), "offsetof(" #type ", " #member ")", \
	      (long long)offsetof(type, member), (want))
/* Member width, so a __u16 cannot silently become a __u32. */
#define WIDTH(type, member, want) \
	check(sizeof(((type *)0)->member) == (want), "sizeof(" #type "." #member ")", \
	      (long long)sizeof(((type *)0)->member), (want))
#define SIGNED(type, member) \
	do { type _v; _v.member = 0; _v.member = ~_v.member; \
	     check(_v.member < 0, "signedness of " #type "." #member, _v.member < 0, 1); } while (0)

static void constants(void)
{
	VAL(IPPROTO_QUIC, 261);
	VAL(SOL_QUIC, 288);
	VAL(QUIC_VERSION_V1, 0x1);
	VAL(QUIC_VERSION_V2, 0x6b3343cf);
	VAL(QUIC_STREAM_TYPE_SERVER_MASK, 0x01);
	VAL(QUIC_STREAM_TYPE_UNI_MASK, 0x02);
	VAL(QUIC_STREAM_TYPE_MASK, 0x03);
	VAL(QUIC_STREAM_INFO, 0);
	VAL(QUIC_HANDSHAKE_INFO, 1);
	VAL(QUIC_CRYPTO_APP, 0);
	VAL(QUIC_CRYPTO_INITIAL, 1);
	VAL(QUIC_CRYPTO_HANDSHAKE, 2);
	VAL(QUIC_CRYPTO_EARLY, 3);
	VAL(QUIC_CRYPTO_MAX, 4);
	VAL(QUIC_CONG_ALG_RENO, 0);
	VAL(QUIC_CONG_ALG_CUBIC, 1);
	VAL(QUIC_CONG_ALG_BBR, 2);
	VAL(QUIC_CONG_ALG_MAX, 3);
	VAL(QUIC_CRYPTO_SECRET_BUFFER_SIZE, 48);
	VAL(QUIC_CLOSE_PHRASE_BUFFER_SIZE, 64);

	VAL(MSG_QUIC_STREAM_NEW, MSG_SYN);
	VAL(MSG_QUIC_STREAM_FIN, MSG_FIN);
	VAL(MSG_QUIC_STREAM_UNI, MSG_CONFIRM);
	VAL(MSG_QUIC_STREAM_DONTWAIT, MSG_WAITFORONE);
	VAL(MSG_QUIC_STREAM_SNDBLOCK, MSG_ERRQUEUE);
	VAL(MSG_QUIC_DATAGRAM, MSG_RST);
	VAL(MSG_QUIC_NOTIFICATION, MSG_MORE);
	/* and the raw bits, in case libc and kernel ever disagreed */
	VAL(MSG_QUIC_STREAM_NEW, 0x400);
	VAL(MSG_QUIC_STREAM_FIN, 0x200);
	VAL(MSG_QUIC_STREAM_UNI, 0x800);
	VAL(MSG_QUIC_STREAM_DONTWAIT, 0x10000);
	VAL(MSG_QUIC_STREAM_SNDBLOCK, 0x2000);
	VAL(MSG_QUIC_DATAGRAM, 0x1000);
	VAL(MSG_QUIC_NOTIFICATION, 0x8000);

	VAL(QUIC_SOCKOPT_EVENT, 0);
	VAL(QUIC_SOCKOPT_STREAM_OPEN, 1);
	VAL(QUIC_SOCKOPT_STREAM_RESET, 2);
	VAL(QUIC_SOCKOPT_STREAM_STOP_SENDING, 3);
	VAL(QUIC_SOCKOPT_CONNECTION_ID, 4);
	VAL(QUIC_SOCKOPT_CONNECTION_CLOSE, 5);
	VAL(QUIC_SOCKOPT_CONNECTION_MIGRATION, 6);
	VAL(QUIC_SOCKOPT_KEY_UPDATE, 7);
	VAL(QUIC_SOCKOPT_TRANSPORT_PARAM, 8);
	VAL(QUIC_SOCKOPT_CONFIG, 9);
	VAL(QUIC_SOCKOPT_TOKEN, 10);
	VAL(QUIC_SOCKOPT_ALPN, 11);
	VAL(QUIC_SOCKOPT_SESSION_TICKET, 12);
	VAL(QUIC_SOCKOPT_CRYPTO_SECRET, 13);
	VAL(QUIC_SOCKOPT_TRANSPORT_PARAM_EXT, 14);
	/* Ours, beyond the draft's range (quic(7) STREAM FILE DESCRIPTORS). */
	VAL(QUIC_SOCKOPT_STREAM_PEELOFF, 64);

	VAL(QUIC_EVENT_NONE, 0);
	VAL(QUIC_EVENT_STREAM_UPDATE, 1);
	VAL(QUIC_EVENT_STREAM_MAX_DATA, 2);
	VAL(QUIC_EVENT_STREAM_MAX_STREAM, 3);
	VAL(QUIC_EVENT_CONNECTION_ID, 4);
	VAL(QUIC_EVENT_CONNECTION_CLOSE, 5);
	VAL(QUIC_EVENT_CONNECTION_MIGRATION, 6);
	VAL(QUIC_EVENT_KEY_UPDATE, 7);
	VAL(QUIC_EVENT_NEW_TOKEN, 8);
	VAL(QUIC_EVENT_NEW_SESSION_TICKET, 9);
	VAL(QUIC_EVENT_MAX, 10);

	VAL(QUIC_STREAM_SEND_STATE_READY, 0);
	VAL(QUIC_STREAM_SEND_STATE_SEND, 1);
	VAL(QUIC_STREAM_SEND_STATE_SENT, 2);
	VAL(QUIC_STREAM_SEND_STATE_RECVD, 3);
	VAL(QUIC_STREAM_SEND_STATE_RESET_SENT, 4);
	VAL(QUIC_STREAM_SEND_STATE_RESET_RECVD, 5);
	VAL(QUIC_STREAM_RECV_STATE_RECV, 6);
	VAL(QUIC_STREAM_RECV_STATE_SIZE_KNOWN, 7);
	VAL(QUIC_STREAM_RECV_STATE_RECVD, 8);
	VAL(QUIC_STREAM_RECV_STATE_READ, 9);
	VAL(QUIC_STREAM_RECV_STATE_RESET_RECVD, 10);
	VAL(QUIC_STREAM_RECV_STATE_RESET_READ, 11);

	VAL(QUIC_TRANSPORT_ERROR_NONE, 0x00);
	VAL(QUIC_TRANSPORT_ERROR_INTERNAL, 0x01);
	VAL(QUIC_TRANSPORT_ERROR_CONNECTION_REFUSED, 0x02);
	VAL(QUIC_TRANSPORT_ERROR_FLOW_CONTROL, 0x03);
	VAL(QUIC_TRANSPORT_ERROR_STREAM_LIMIT, 0x04);
	VAL(QUIC_TRANSPORT_ERROR_STREAM_STATE, 0x05);
	VAL(QUIC_TRANSPORT_ERROR_FINAL_SIZE, 0x06);
	VAL(QUIC_TRANSPORT_ERROR_FRAME_ENCODING, 0x07);
	VAL(QUIC_TRANSPORT_ERROR_TRANSPORT_PARAM, 0x08);
	VAL(QUIC_TRANSPORT_ERROR_CONNECTION_ID_LIMIT, 0x09);
	VAL(QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION, 0x0a);
	VAL(QUIC_TRANSPORT_ERROR_INVALID_TOKEN, 0x0b);
	VAL(QUIC_TRANSPORT_ERROR_APPLICATION, 0x0c);
	VAL(QUIC_TRANSPORT_ERROR_CRYPTO_BUF_EXCEEDED, 0x0d);
	VAL(QUIC_TRANSPORT_ERROR_KEY_UPDATE, 0x0e);
	VAL(QUIC_TRANSPORT_ERROR_AEAD_LIMIT_REACHED, 0x0f);
	VAL(QUIC_TRANSPORT_ERROR_NO_VIABLE_PATH, 0x10);
	VAL(QUIC_TRANSPORT_ERROR_VERSION_NEGOTIATION, 0x11);
	VAL(QUIC_TRANSPORT_ERROR_CRYPTO, 0x100);

	/* The cipher ids quic_crypto_secret.type carries, from <linux/tls.h>. */
	VAL(TLS_CIPHER_AES_GCM_128, 51);
	VAL(TLS_CIPHER_AES_GCM_256, 52);
	VAL(TLS_CIPHER_CHACHA20_POLY1305, 54);
}

static void structs(void)
{
	SIZE(struct quic_handshake_info, 1);
	OFF(struct quic_handshake_info, crypto_level, 0);

	SIZE(struct quic_stream_info, 16);
	OFF(struct quic_stream_info, stream_id, 0);
	OFF(struct quic_stream_info, stream_flags, 8);
	WIDTH(struct quic_stream_info, stream_id, 8);
	WIDTH(struct quic_stream_info, stream_flags, 4);
	SIGNED(struct quic_stream_info, stream_id);
	SIZE(struct quic_stream_peeloff, 24);
	OFF(struct quic_stream_peeloff, stream_id, 0);
	OFF(struct quic_stream_peeloff, stream_flags, 8);
	OFF(struct quic_stream_peeloff, flags, 12);
	OFF(struct quic_stream_peeloff, fd, 16);
	OFF(struct quic_stream_peeloff, reserved, 20);
	SIGNED(struct quic_stream_peeloff, stream_id);
	SIGNED(struct quic_stream_peeloff, fd);

	SIZE(struct quic_crypto_secret, 56);
	OFF(struct quic_crypto_secret, send, 0);
	OFF(struct quic_crypto_secret, level, 1);
	OFF(struct quic_crypto_secret, reserved, 2);
	OFF(struct quic_crypto_secret, type, 4);
	OFF(struct quic_crypto_secret, secret, 8);
	WIDTH(struct quic_crypto_secret, reserved, 2);
	WIDTH(struct quic_crypto_secret, type, 4);
	WIDTH(struct quic_crypto_secret, secret, 48);

	SIZE(struct quic_transport_param, 56);
	OFF(struct quic_transport_param, remote, 0);
	OFF(struct quic_transport_param, disable_active_migration, 1);
	OFF(struct quic_transport_param, grease_quic_bit, 2);
	OFF(struct quic_transport_param, stateless_reset, 3);
	OFF(struct quic_transport_param, disable_1rtt_encryption, 4);
	OFF(struct quic_transport_param, disable_compatible_version, 5);
	OFF(struct quic_transport_param, active_connection_id_limit, 6);
	OFF(struct quic_transport_param, ack_delay_exponent, 7);
	OFF(struct quic_transport_param, max_datagram_frame_size, 8);
	OFF(struct quic_transport_param, max_udp_payload_size, 10);
	OFF(struct quic_transport_param, max_idle_timeout, 12);
	OFF(struct quic_transport_param, max_ack_delay, 16);
	OFF(struct quic_transport_param, max_streams_bidi, 20);
	OFF(struct quic_transport_param, max_streams_uni, 22);
	OFF(struct quic_transport_param, max_data, 24);
	OFF(struct quic_transport_param, max_stream_data_bidi_local, 32);
	OFF(struct quic_transport_param, max_stream_data_bidi_remote, 40);
	OFF(struct quic_transport_param, max_stream_data_uni, 48);
	WIDTH(struct quic_transport_param, max_datagram_frame_size, 2);
	WIDTH(struct quic_transport_param, max_udp_payload_size, 2);
	WIDTH(struct quic_transport_param, max_idle_timeout, 4);
	WIDTH(struct quic_transport_param, max_ack_delay, 4);
	WIDTH(struct quic_transport_param, max_streams_bidi, 2);
	WIDTH(struct quic_transport_param, max_streams_uni, 2);
	WIDTH(struct quic_transport_param, max_data, 8);

	SIZE(struct quic_config, 28);
	OFF(struct quic_config, version, 0);
	OFF(struct quic_config, plpmtud_probe_interval, 4);
	OFF(struct quic_config, initial_smoothed_rtt, 8);
	OFF(struct quic_config, payload_cipher_type, 12);
	OFF(struct quic_config, congestion_control_algo, 16);
	OFF(struct quic_config, validate_peer_address, 17);
	OFF(struct quic_config, stream_data_nodelay, 18);
	OFF(struct quic_config, receive_session_ticket, 19);
	OFF(struct quic_config, certificate_request, 20);
	OFF(struct quic_config, reserved, 21);
	OFF(struct quic_config, keepalive_probe_interval, 24);
	WIDTH(struct quic_config, reserved, 3);

	SIZE(struct quic_connection_close, 72);
	OFF(struct quic_connection_close, errcode, 0);
	OFF(struct quic_connection_close, frame, 4);
	OFF(struct quic_connection_close, reserved, 5);
	OFF(struct quic_connection_close, phrase, 8);
	WIDTH(struct quic_connection_close, phrase, 64);

	SIZE(struct quic_connection_id_info, 12);
	OFF(struct quic_connection_id_info, dest, 0);
	OFF(struct quic_connection_id_info, reserved, 1);
	OFF(struct quic_connection_id_info, active, 4);
	OFF(struct quic_connection_id_info, prior_to, 8);

	SIZE(struct quic_event_option, 2);
	OFF(struct quic_event_option, type, 0);
	OFF(struct quic_event_option, on, 1);

	SIZE(struct quic_errinfo, 16);
	OFF(struct quic_errinfo, stream_id, 0);
	OFF(struct quic_errinfo, errcode, 8);
	SIGNED(struct quic_errinfo, stream_id);

	SIZE(struct quic_stream_update, 24);
	OFF(struct quic_stream_update, id, 0);
	OFF(struct quic_stream_update, state, 8);
	OFF(struct quic_stream_update, reserved, 9);
	OFF(struct quic_stream_update, errcode, 12);
	OFF(struct quic_stream_update, finalsz, 16);
	SIGNED(struct quic_stream_update, id);

	SIZE(struct quic_stream_max_data, 16);
	OFF(struct quic_stream_max_data, id, 0);
	OFF(struct quic_stream_max_data, max_data, 8);

	SIZE(union quic_event, 72);
	OFF(union quic_event, update, 0);
	OFF(union quic_event, max_data, 0);
	OFF(union quic_event, close, 0);
	OFF(union quic_event, info, 0);
	OFF(union quic_event, max_stream, 0);
	OFF(union quic_event, local_migration, 0);
	OFF(union quic_event, key_update_phase, 0);
	WIDTH(union quic_event, max_stream, 8);
}

int main(void)
{
	printf("TAP version 13\n");
	constants();
	structs();
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * <netinet/quic.h> against the draft library's declarations (API.md,
 * "libquic"): built as C and as C++ with only this header included, every
 * function assigned to a pointer of the exact type (a mismatch does not
 * compile with -Werror), the step structures' layout, the constants.
 * Prints TAP when run.
 */

#include <netinet/quic.h>

#include <stdio.h>

#ifdef __cplusplus
#define HT_ASSERT(cond, msg) static_assert(cond, msg)
#define HT_LANG "C++"
#else
#define HT_ASSERT(cond, msg) _Static_assert(cond, msg)
#define HT_LANG "C"
#endif

HT_ASSERT(SOL_QUIC == 288, "SOL_QUIC");
HT_ASSERT(IPPROTO_QUIC == 261, "IPPROTO_QUIC");
HT_ASSERT(QUIC_HANDSHAKE_STEP_OP_SENDMSG == 1, "OP_SENDMSG");
HT_ASSERT(QUIC_HANDSHAKE_STEP_OP_RECVMSG == 2, "OP_RECVMSG");
HT_ASSERT(offsetof(struct quic_handshake_step_sendmsg, msg) == 0, "s_sendmsg.msg");
HT_ASSERT(offsetof(struct quic_handshake_step_sendmsg, flags) == sizeof(void *),
	  "s_sendmsg.flags");
HT_ASSERT(offsetof(struct quic_handshake_step_sendmsg, retval) ==
	  (sizeof(void *) == 8 ? 16 : 8), "s_sendmsg.retval");
HT_ASSERT(sizeof(struct quic_handshake_step_sendmsg) ==
	  sizeof(struct quic_handshake_step_recvmsg), "sendmsg/recvmsg size");
HT_ASSERT(offsetof(struct quic_handshake_step_recvmsg, retval) ==
	  offsetof(struct quic_handshake_step_sendmsg, retval), "s_recvmsg.retval");
HT_ASSERT(offsetof(struct quic_handshake_step, s_sendmsg) == sizeof(void *),
	  "step union after op");
HT_ASSERT(offsetof(struct quic_handshake_step, s_recvmsg) ==
	  offsetof(struct quic_handshake_step, s_sendmsg), "one union");

/* The exact types of the draft's declarations */
static int (*const f_client)(int, const char *, const char *, const char *) =
	quic_client_handshake;
static int (*const f_server)(int, const char *, const char *, const char *) =
	quic_server_handshake;
static int (*const f_init)(gnutls_session_t, struct quic_handshake_step **) =
	quic_handshake_init;
static int (*const f_step)(gnutls_session_t, struct quic_handshake_step **) =
	quic_handshake_step;
static void (*const f_deinit)(gnutls_session_t) = quic_handshake_deinit;
static int (*const f_handshake)(gnutls_session_t) = quic_handshake;
static int (*const f_get_data)(gnutls_session_t, void *, size_t *) =
	quic_session_get_data;
static int (*const f_set_data)(gnutls_session_t, const void *, size_t) =
	quic_session_set_data;
static int (*const f_get_alpn)(gnutls_session_t, void *, size_t *) =
	quic_session_get_alpn;
static int (*const f_set_alpn)(gnutls_session_t, const void *, size_t) =
	quic_session_set_alpn;
static ssize_t (*const f_send)(int, const void *, size_t, int64_t, uint32_t) =
	quic_sendmsg;
static ssize_t (*const f_recv)(int, void *, size_t, int64_t *, uint32_t *) =
	quic_recvmsg;
static quic_set_log_func_t (*const f_log_func)(quic_set_log_func_t) =
	quic_set_log_func;
static int (*const f_log_level)(int) = quic_set_log_level;
static void (*const log_fn)(int, const char *) = (quic_set_log_func_t)0;

int main(void)
{
	const void *all[] = {
		(const void *)f_client, (const void *)f_server, (const void *)f_init,
		(const void *)f_step, (const void *)f_deinit, (const void *)f_handshake,
		(const void *)f_get_data, (const void *)f_set_data,
		(const void *)f_get_alpn, (const void *)f_set_alpn,
		(const void *)f_send, (const void *)f_recv,
		(const void *)f_log_func, (const void *)f_log_level,
	};
	gnutls_privkey_t key = NULL;	/* <gnutls/abstract.h> is there */
	struct quic_handshake_step step;
	size_t i, n = sizeof(all) / sizeof(all[0]);
	int linked = 1;

	for (i = 0; i < n; i++)
		linked &= all[i] != NULL;
	printf("ok 1 - %s: <netinet/quic.h> declares the draft library's %zu functions with their exact types, linked %s\n",
	       HT_LANG, n, linked ? "yes" : "no");
	printf("ok 2 - %s: step structures (%zu bytes), SOL_QUIC, IPPROTO_QUIC, gnutls abstract types%s\n",
	       HT_LANG, sizeof(step), key || log_fn ? " (?)" : "");
	printf("%sok 3 - %s: QUIC_PRIORITY is a string literal: %s\n",
	       sizeof(QUIC_PRIORITY) > 1 ? "" : "not ", HT_LANG, QUIC_PRIORITY);
	printf("1..3\n");
	return linked ? 0 : 1;
}

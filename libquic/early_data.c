// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * 0-RTT in libquic: GnuTLS early data for QUIC sockets, and the server's
 * anti-replay store (RFC 8446 §8, RFC 9001 §4.6, §9.2).
 *
 * Client.  quic_client_handshake() asks GnuTLS for early data
 * (GNUTLS_ENABLE_EARLY_DATA) when the socket has session data and the
 * server's remembered transport parameters (QUIC_SOCKOPT_TRANSPORT_PARAM
 * with remote = 1); a program with its own session passes that flag to
 * gnutls_init() itself.  GnuTLS then gives the 0-RTT send secret with the
 * ClientHello, which the hooks install at level QUIC_CRYPTO_EARLY.  If the
 * server's EncryptedExtensions had no early_data (GnuTLS's session flags
 * lack GNUTLS_SFLAGS_EARLY_DATA), libquic withdraws that secret before the
 * 1-RTT ones: QUIC_SOCKOPT_CRYPTO_SECRET, level QUIC_CRYPTO_EARLY, send 1,
 * type 0, and the kernel sends the data again in 1-RTT.
 *
 * Server.  quic_server_handshake() accepts early data
 * (GNUTLS_ENABLE_EARLY_DATA) unless QUIC_EARLY_DATA=0 is in the
 * environment.  Every server session gets max_early_data_size 0xffffffff
 * (RFC 9001 §4.6.1) and this process's anti-replay context: GnuTLS refuses
 * early data of a ClientHello whose ticket age is outside a 10 s window,
 * and of one already in the store below, which keeps what GnuTLS gives it
 * for that window in at most QUIC_AR_SLOTS entries; with no room left,
 * early data is refused.  The store is per process; the kernel's replay
 * filter (net/quic/early_data.c) covers every process that uses the same
 * port, by refusing the 0-RTT receive key of a ClientHello seen before.
 * A refused key is not an error: the handshake goes on, 0-RTT packets are
 * dropped and the client sends that data again in 1-RTT.
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gnutls/crypto.h>

#include "internal.h"

#define QUIC_AR_WINDOW_MS	10000
#define QUIC_AR_SLOTS		4096
#define QUIC_AR_KEY_LEN		32	/* SHA-256 of GnuTLS's key */

struct quic_ar_slot {
	uint8_t key[QUIC_AR_KEY_LEN];
	time_t expires;
	int used;
};

static pthread_mutex_t ar_lock = PTHREAD_MUTEX_INITIALIZER;
static struct quic_ar_slot ar_slots[QUIC_AR_SLOTS];
static unsigned int ar_next;		/* the oldest slot, written next */
static gnutls_anti_replay_t ar;		/* NULL: none could be made */
static pthread_once_t ar_once = PTHREAD_ONCE_INIT;

/* GnuTLS asks to remember @key until @exp_time: refuse what is known. */
static int ar_add(void *ptr, time_t exp_time, const gnutls_datum_t *key,
		  const gnutls_datum_t *data)
{
	uint8_t h[QUIC_AR_KEY_LEN];
	time_t now = time(NULL);
	struct quic_ar_slot *slot;
	int i, ret = 0;

	(void)ptr;
	(void)data;
	if (gnutls_hash_fast(GNUTLS_DIG_SHA256, key->data, key->size, h) < 0)
		return GNUTLS_E_DB_ERROR;
	pthread_mutex_lock(&ar_lock);
	for (i = 0; i < QUIC_AR_SLOTS; i++) {
		slot = &ar_slots[i];
		if (slot->used && slot->expires >= now &&
		    !memcmp(slot->key, h, sizeof(h))) {
			ret = GNUTLS_E_DB_ENTRY_EXISTS;
			goto out;
		}
	}
	slot = &ar_slots[ar_next];
	if (slot->used && slot->expires >= now) {
		/* all fresh: no room, no early data */
		ret = GNUTLS_E_DB_ENTRY_EXISTS;
		goto out;
	}
	memcpy(slot->key, h, sizeof(h));
	slot->expires = exp_time > now ? exp_time : now + QUIC_AR_WINDOW_MS / 1000;
	slot->used = 1;
	ar_next = (ar_next + 1) % QUIC_AR_SLOTS;
out:
	pthread_mutex_unlock(&ar_lock);
	if (ret)
		quic_log(QUIC_LOG_INFO, "server: early data refused: ClientHello seen before, or the anti-replay store is full");
	return ret;
}

static void ar_init(void)
{
	if (gnutls_anti_replay_init(&ar) < 0) {
		ar = NULL;
		return;
	}
	gnutls_anti_replay_set_window(ar, QUIC_AR_WINDOW_MS);
	gnutls_anti_replay_set_add_function(ar, ar_add);
}

/* Is 0-RTT turned off for this process (QUIC_EARLY_DATA=0)? */
static int early_data_off(void)
{
	const char *v = getenv("QUIC_EARLY_DATA");

	return v && !strcmp(v, "0");
}

unsigned int quic_early_client_flags(int fd)
{
	struct quic_transport_param p;
	socklen_t len = sizeof(p);
	uint8_t ticket[4096];	/* QUIC_TICKET_MAX of the kernel */

	if (early_data_off())
		return 0;
	memset(&p, 0, sizeof(p));
	p.remote = 1;
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_TRANSPORT_PARAM, &p, &len) < 0)
		return 0;	/* no remembered parameters: no 0-RTT */
	len = sizeof(ticket);
	if (getsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_SESSION_TICKET, ticket, &len) < 0 ||
	    !len)
		return 0;	/* no session data: a full handshake */
	return GNUTLS_ENABLE_EARLY_DATA;
}

unsigned int quic_early_server_flags(void)
{
	return early_data_off() ? 0 : GNUTLS_ENABLE_EARLY_DATA;
}

int quic_early_server_setup(gnutls_session_t session)
{
	pthread_once(&ar_once, ar_init);
	if (!ar) {
		/* no 0-RTT key will be installed, whatever GnuTLS decides */
		quic_log(QUIC_LOG_INFO, "server: no anti-replay context: early data refused");
		return -ENOMEM;
	}
	gnutls_anti_replay_enable(session, ar);
	gnutls_record_set_max_early_data_size(session, 0xffffffffu);
	return 0;
}

int quic_early_client_done(gnutls_session_t session, int fd, int early_tx)
{
	struct quic_crypto_secret s;

	if (!early_tx)
		return 0;
	if (gnutls_session_get_flags(session) & GNUTLS_SFLAGS_EARLY_DATA) {
		quic_log(QUIC_LOG_INFO, "client: the server accepted 0-RTT");
		return 0;
	}
	quic_log(QUIC_LOG_INFO, "client: the server rejected 0-RTT: sending it again in 1-RTT");
	memset(&s, 0, sizeof(s));
	s.send = 1;
	s.level = QUIC_CRYPTO_EARLY;
	if (setsockopt(fd, SOL_QUIC, QUIC_SOCKOPT_CRYPTO_SECRET, &s, sizeof(s)) < 0) {
		quic_log(QUIC_LOG_ERROR, "client: withdrawing the 0-RTT key failed: %s",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

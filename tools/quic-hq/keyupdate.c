// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quic-hq --key-update BYTES: when to ask the kernel for a 1-RTT key
 * update, and the count of QUIC_EVENT_KEY_UPDATE notifications.  No socket
 * here (host-testable); the loops call setsockopt(QUIC_SOCKOPT_KEY_UPDATE)
 * when hq_ku_due() says so and report the outcome with hq_ku_result().
 *
 * An update is due each time the connection's stream bytes (received by
 * the client, sent by the server) pass another multiple of BYTES.  The
 * kernel refuses with EAGAIN while the handshake is not confirmed or our
 * previous update is not acknowledged yet: the update stays due and is
 * asked for again at the next chunk.  Once it is taken, the next one is
 * due at the next multiple of BYTES above the bytes so far, so updates
 * refused for a while do not come in a burst later.  Any other error stops
 * the asking for the rest of the connection.
 */

#include <errno.h>
#include <string.h>
#include <linux/quic.h>

#include "hq.h"

void hq_ku_init(struct hq_ku *k, uint64_t every)
{
	memset(k, 0, sizeof(*k));
	k->every = every;
	k->next = every;
	k->phase = -1;
}

int hq_ku_due(const struct hq_ku *k, uint64_t total)
{
	return k->every && !k->err && total >= k->next;
}

/* The outcome of the request made at total bytes: 0 or a negative errno. */
void hq_ku_result(struct hq_ku *k, uint64_t total, int err)
{
	if (err == -EAGAIN)
		return;		/* still due: again at the next chunk */
	if (err) {
		k->err = -err;
		return;
	}
	k->initiated++;
	k->next = (total / k->every + 1) * k->every;
}

/* One notification (type byte, then its payload).  Returns 1 if it was a
 * key update, which is counted.
 */
int hq_ku_event(struct hq_ku *k, const void *buf, size_t len)
{
	const unsigned char *b = buf;

	if (len < 1 + sizeof(__u8) || b[0] != QUIC_EVENT_KEY_UPDATE)
		return 0;
	k->events++;
	k->phase = b[1];
	return 1;
}

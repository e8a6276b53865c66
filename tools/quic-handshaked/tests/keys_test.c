// SPDX-License-Identifier: GPL-2.0
/*
 * The peer-certificate key (hsd_peer_key()) in the host's kernel keyring:
 * a "user" key in our process keyring with the payload, description and
 * permissions the man page gives, linked into a keyring that the process
 * keyring holds (as net/handshake links the request's ta_keyring).
 * Skipped where keyrings are not allowed (container seccomp profiles).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/keyctl.h>
#include "hsd.h"
#include "tap.h"

void hsd_log(const char *fmt, ...)
{
	(void)fmt;
}

static long kc(int cmd, long a, long b, long c)
{
	return syscall(SYS_keyctl, cmd, a, b, c, 0L);
}

/* Whether keyring @ring holds key @id */
static int holds(int32_t ring, int32_t id)
{
	int32_t ids[64];
	long n = kc(KEYCTL_READ, ring, (long)ids, sizeof(ids)), i;

	for (i = 0; n > 0 && i < n / (long)sizeof(ids[0]) && i < 64; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

int main(void)
{
	static const char der[] = "\x30\x82\x01\x00 not really DER";
	int32_t id = 0, ring;
	int link_err = -1, err;
	uint8_t *data = NULL;
	size_t len = 0;
	char d[512];

	/* a fresh process keyring for this test */
	ring = (int32_t)syscall(SYS_add_key, "keyring", "hsd-test-ring", NULL, 0,
				KEY_SPEC_PROCESS_KEYRING);
	if (ring < 0) {
		printf("ok 1 # SKIP no kernel keyrings here: %s\n1..1\n",
		       strerror(errno));
		return 0;
	}
	err = hsd_peer_key("quic peer: CN=test", der, sizeof(der) - 1, &id,
			   &link_err);
	CHECK(!err && id > 0 && !link_err, "a peer key is made and linked");
	CHECK(!hsd_key_read(id, &data, &len) && len == sizeof(der) - 1 &&
	      !memcmp(data, der, len), "its payload is the certificate");
	free(data);
	CHECK(kc(KEYCTL_DESCRIBE, id, (long)d, sizeof(d)) > 0 &&
	      !strncmp(d, "user;", 5) && strstr(d, ";3f0b0000;quic peer: CN=test"),
	      "a user key, perm 3f0b0000, described by the subject");
	CHECK(holds(KEY_SPEC_PROCESS_KEYRING, id), "in the process keyring");
	CHECK(holds(ring, id), "and in the request's keyring");
	kc(KEYCTL_CLEAR, KEY_SPEC_PROCESS_KEYRING, 0, 0);
	return tap_end();
}

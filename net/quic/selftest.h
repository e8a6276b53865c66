/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-module self-tests, run at module load when the "selftest" parameter is
 * set, reported as flat KTAP in the kernel log (one "ok N name",
 * "not ok N name" or "ok N name # SKIP reason" line per test case).
 * tests/selftests/ktap.sh collects them.
 */

#ifndef _NET_QUIC_SELFTEST_H
#define _NET_QUIC_SELFTEST_H

#include <linux/types.h>

struct quic_ktap {
	unsigned int	run;
	unsigned int	failed;
	unsigned int	skipped;
};

__printf(3, 4)
bool quic_ktap_check(struct quic_ktap *ktap, bool ok, const char *fmt, ...);
/* A case that cannot run here: "ok N name # SKIP reason". */
void quic_ktap_skip(struct quic_ktap *ktap, const char *name,
		    const char *reason);

/*
 * The suites: each component declares its own here and adds it to the table
 * in selftest.c.  A suite reports every case through quic_ktap_check().
 */

void quic_crypto_selftest(struct quic_ktap *ktap);

int quic_selftest_run(void);

#endif /* _NET_QUIC_SELFTEST_H */

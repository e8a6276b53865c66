/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP for the in-VM selftests: one TEST() per behaviour, each
 * printed as "ok N - name" or "not ok N - name" with the failing check.
 */

#ifndef QUIC_SELFTEST_TAP_H
#define QUIC_SELFTEST_TAP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tap_test {
	const char *name;
	void (*fn)(void);
};

static int tap_failed_checks;	/* failures in the running test */
static int tap_run, tap_failed;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: check failed: %s (errno %d %s)\n",	\
		       __FILE__, __LINE__, #cond, errno, strerror(errno)); \
		tap_failed_checks++;					\
	}								\
} while (0)

/* Expect a call to fail with a particular errno. */
#define CHECK_ERR(call, err) do {					\
	errno = 0;							\
	long _r = (long)(call);						\
	if (_r != -1 || errno != (err)) {				\
		printf("# %s:%d: %s returned %ld errno %d (%s), want -1 errno %d (%s)\n", \
		       __FILE__, __LINE__, #call, _r, errno,		\
		       strerror(errno), (err), strerror(err));		\
		tap_failed_checks++;					\
	}								\
} while (0)

#define CHECK_OK(call) do {						\
	errno = 0;							\
	long _r = (long)(call);						\
	if (_r < 0) {							\
		printf("# %s:%d: %s failed: errno %d (%s)\n",		\
		       __FILE__, __LINE__, #call, errno, strerror(errno)); \
		tap_failed_checks++;					\
	}								\
} while (0)

static inline int tap_main(const struct tap_test *tests, int n)
{
	int i;

	printf("TAP version 13\n1..%d\n", n);
	for (i = 0; i < n; i++) {
		tap_failed_checks = 0;
		tests[i].fn();
		tap_run++;
		if (tap_failed_checks)
			tap_failed++;
		printf("%sok %d - %s\n", tap_failed_checks ? "not " : "",
		       i + 1, tests[i].name);
		fflush(stdout);
	}
	return tap_failed ? 1 : 0;
}

#endif /* QUIC_SELFTEST_TAP_H */

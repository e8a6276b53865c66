/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP for the in-VM selftests: one TEST() per behaviour, each
 * printed as "ok N - name" or "not ok N - name" with the failing check,
 * or "ok N - name # SKIP reason" when it could not run here (SKIP_TEST()),
 * which tests/check counts as skipped, not passed.
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
static int tap_run, tap_failed, tap_skipped;
static char tap_skip_buf[160];
/* Why the running test was skipped, "" if it was not (may be shared). */
static char *tap_skip_why = tap_skip_buf;

/* Skip the running test: it cannot run here.  Returns from the test. */
#define SKIP_TEST(...) do {						\
	snprintf(tap_skip_why, sizeof(tap_skip_buf), __VA_ARGS__);	\
	return;								\
} while (0)

/* The TAP line of test @num: ok, not ok, or ok with a SKIP directive. */
static inline void tap_result(int num, const char *name, int ok)
{
	if (!ok) {
		tap_failed++;
		printf("not ok %d - %s\n", num, name);
	} else if (tap_skip_why[0]) {
		tap_skipped++;
		printf("ok %d - %s # SKIP %s\n", num, name, tap_skip_why);
	} else {
		printf("ok %d - %s\n", num, name);
	}
	fflush(stdout);
}

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
		tap_skip_why[0] = 0;
		tests[i].fn();
		tap_run++;
		tap_result(i + 1, tests[i].name, !tap_failed_checks);
	}
	return tap_failed ? 1 : 0;
}

#endif /* QUIC_SELFTEST_TAP_H */

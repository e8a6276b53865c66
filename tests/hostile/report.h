/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the hostile-traffic programs print, as tests/hostile/run reads it
 * (README.md, "Adding attacks"): a TAP line per check of the server,
 * "# text" for a reader, "# key=value" for the numbers, and the plan
 * "1..N" last; exit status 1 if a check failed.
 */

#ifndef QUIC_HOSTILE_REPORT_H
#define QUIC_HOSTILE_REPORT_H

#include <stdarg.h>
#include <stdio.h>

#include "tap.h"

static int report_n;	/* checks printed */

/* A check of the server: "ok N - what" or "not ok N - what".  @ok back. */
static inline int __attribute__((format(printf, 2, 3)))
check(int ok, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	tap_result(++report_n, name, ok);
	return ok;
}

/* A check that could not run here: "ok N - what # SKIP why". */
static inline void __attribute__((format(printf, 2, 3)))
skip(const char *why, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	snprintf(tap_skip_why, sizeof(tap_skip_buf), "%s", why);
	tap_result(++report_n, name, 1);
	tap_skip_why[0] = 0;
}

/* "# text", for a reader. */
static inline void __attribute__((format(printf, 1, 2)))
note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* "# key=value", a number for the runner's summary. */
static inline void kv(const char *key, long long v)
{
	printf("# %s=%lld\n", key, v);
}

/* The plan; the exit status: 1 if a check failed, else 0. */
static inline int report_end(void)
{
	printf("1..%d\n", report_n);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#endif /* QUIC_HOSTILE_REPORT_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sysctl changed for one selftest and restored even if the test dies
 * (alarm, crash): sysctl_set() saves the old value and installs signal
 * handlers that write it back; sysctl_restore() does it on the normal
 * path; sysctl_guarded_main() runs a test program that way.  Up to
 * GUARD_MAX sysctls at a time.  Include quic_conn.h first.
 */

#ifndef QUIC_SELFTEST_SYSCTL_GUARD_H
#define QUIC_SELFTEST_SYSCTL_GUARD_H

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

/* The value of sysctl file @path into @buf: its length, or -1. */
static int sysctl_read(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY), n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	return n > 0 ? n : -1;
}

/* Write @len bytes of @val to sysctl file @path: 0, or -1.  Async-signal-
 * safe: open(), write() and close() only.
 */
static int sysctl_write(const char *path, const char *val, int len)
{
	int fd = open(path, O_WRONLY), n;

	if (fd < 0)
		return -1;
	n = write(fd, val, len);
	close(fd);
	return n == len ? 0 : -1;
}

/* The sysctls changed, oldest first: a few at a time. */
#define GUARD_MAX	4
static const char *guard_path[GUARD_MAX];
static char guard_old[GUARD_MAX][32];
static int guard_old_len[GUARD_MAX];
static int guard_n;

/* Every sysctl changed goes back, the last changed first. */
static void sysctl_restore(void)
{
	while (guard_n > 0) {
		guard_n--;
		sysctl_write(guard_path[guard_n], guard_old[guard_n],
			     guard_old_len[guard_n]);
	}
}

static void guard_signal(int sig)
{
	sysctl_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static int sysctl_set(const char *path, const char *val)
{
	static const int sigs[] = { SIGALRM, SIGSEGV, SIGABRT, SIGBUS,
				    SIGTERM, SIGINT };
	size_t i;
	int n;

	if (guard_n == GUARD_MAX)
		return -1;
	n = sysctl_read(path, guard_old[guard_n], sizeof(guard_old[0]));
	if (n < 0)
		return -1;
	guard_old_len[guard_n] = n;
	guard_path[guard_n++] = path;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], guard_signal);
	return sysctl_write(path, val, strlen(val));
}

/*
 * conn_tests_main() with sysctl @path put back afterwards by the parent
 * too, whatever became of a test that changed it.
 */
static int sysctl_guarded_main(const char *path, const struct conn_test *tests,
			       int n)
{
	char old[32];
	int len = sysctl_read(path, old, sizeof(old));
	int ret = conn_tests_main(tests, n);

	if (len > 0 && sysctl_write(path, old, len))
		ret = 1;
	return ret;
}

#endif /* QUIC_SELFTEST_SYSCTL_GUARD_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sysctl changed for one selftest and restored even if the test dies
 * (alarm, crash): sysctl_set() saves the old value and installs signal
 * handlers that write it back; sysctl_restore() does it on the normal
 * path.  One sysctl at a time.
 */

#ifndef QUIC_SELFTEST_SYSCTL_GUARD_H
#define QUIC_SELFTEST_SYSCTL_GUARD_H

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static const char *guard_path;
static char guard_old[32];
static int guard_old_len;

static void sysctl_restore(void)
{
	int fd;

	if (!guard_path)
		return;
	fd = open(guard_path, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, guard_old, guard_old_len) < 0)
			guard_old_len = 0;
		close(fd);
	}
	guard_path = NULL;
}

/* Async-signal-safe: open(), write() and close() only. */
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
	int fd, n;
	size_t i;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, guard_old, sizeof(guard_old) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	guard_old_len = n;
	guard_path = path;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], guard_signal);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (int)strlen(val) ? 0 : -1;
}

#endif /* QUIC_SELFTEST_SYSCTL_GUARD_H */

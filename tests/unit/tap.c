// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static int tap_num, tap_failed, case_failed;
static char case_name[256];

void tap_begin(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(case_name, sizeof(case_name), fmt, ap);
	va_end(ap);
	case_failed = 0;
}

void tap_end(void)
{
	tap_num++;
	printf("%sok %d - %s\n", case_failed ? "not " : "", tap_num, case_name);
	if (case_failed)
		tap_failed++;
	fflush(stdout);
}

int tap_done(void)
{
	printf("1..%d\n", tap_num);
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_num);
	return tap_failed ? 1 : 0;
}

int tap_expect(int cond, const char *expr, const char *file, int line)
{
	if (!cond) {
		printf("#   failed: %s (%s:%d)\n", expr, file, line);
		case_failed = 1;
	}
	return cond;
}

int tap_expect_eq(uint64_t a, uint64_t b, const char *ea, const char *eb,
		  const char *file, int line)
{
	if (a != b) {
		printf("#   failed: %s == %s: 0x%llx != 0x%llx (%s:%d)\n", ea, eb,
		       (unsigned long long)a, (unsigned long long)b, file, line);
		case_failed = 1;
	}
	return a == b;
}

int tap_expect_mem(const void *a, const void *b, size_t n, const char *ea,
		   const char *file, int line)
{
	if (memcmp(a, b, n)) {
		printf("#   failed: %s differs (%s:%d)\n", ea, file, line);
		case_failed = 1;
		return 0;
	}
	return 1;
}

size_t hex2bin(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex; hex++) {
		int v;

		if (isspace((unsigned char)*hex))
			continue;
		v = isdigit((unsigned char)*hex) ? *hex - '0' :
		    tolower((unsigned char)*hex) - 'a' + 10;
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (n == max)
			abort();
		out[n++] = hi << 4 | v;
		hi = -1;
	}
	return n;
}

uint64_t test_rand(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

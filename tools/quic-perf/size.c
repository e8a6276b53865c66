// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quic-perf's sizes (-l, -n, --stream-size), in a file of its own so that
 * bench/ktls_perf, the kTLS side of the benchmarks, reads the same "4K"
 * the same way (it once read it with atoi() as 4).
 */

#include <stdint.h>
#include <stdlib.h>

#include "size.h"

uint64_t perf_parse_size(const char *s, int *err)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = 0;

	if (end == s)
		*err = 1;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	}
	if (*end || v > (UINT64_MAX >> shift))
		*err = 1;
	return (uint64_t)v << shift;
}

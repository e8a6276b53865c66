/* SPDX-License-Identifier: GPL-2.0 */
/* Shared bits of the wire-layer libFuzzer targets. */
#ifndef _TESTS_UNIT_FUZZ_COMMON_H
#define _TESTS_UNIT_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>
#include <linux/errno.h>

/* A broken property is a crash, so libFuzzer records the input. */
#define FUZZ_ASSERT(c)							\
	do {								\
		if (!(c)) {						\
			fprintf(stderr, "%s:%d: property failed: %s\n",	\
				__FILE__, __LINE__, #c);		\
			abort();					\
		}							\
	} while (0)

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

/*
 * Copy the input to an exact-size heap buffer so that ASan catches any
 * read past the end (libFuzzer's own buffer may have slack).
 */
static inline u8 *fuzz_dup(const u8 *data, size_t size)
{
	u8 *p = malloc(size ? size : 1);

	FUZZ_ASSERT(p);
	if (size)
		memcpy(p, data, size);
	return p;
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP producer for the wire-layer host tests.
 *
 *	tap_begin("varint: %s", name);
 *	EXPECT(x == 1);
 *	EXPECT_EQ(got, want);
 *	tap_end();		prints "ok N - name" or "not ok N - name"
 */
#ifndef _TESTS_UNIT_TAP_H
#define _TESTS_UNIT_TAP_H

#include <stddef.h>
#include <stdint.h>

void tap_begin(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tap_end(void);
int tap_done(void);
int tap_expect(int cond, const char *expr, const char *file, int line);
int tap_expect_eq(uint64_t a, uint64_t b, const char *ea, const char *eb,
		  const char *file, int line);
int tap_expect_mem(const void *a, const void *b, size_t n, const char *ea,
		   const char *file, int line);

#define EXPECT(c)	tap_expect(!!(c), #c, __FILE__, __LINE__)
#define EXPECT_EQ(a, b) \
	tap_expect_eq((uint64_t)(a), (uint64_t)(b), #a, #b, __FILE__, __LINE__)
#define EXPECT_MEM(a, b, n) tap_expect_mem(a, b, n, #a, __FILE__, __LINE__)

/* Parse hex (spaces ignored) into @out; returns the byte count. */
size_t hex2bin(const char *hex, uint8_t *out, size_t max);

/* Deterministic PRNG for seeded random tests. */
uint64_t test_rand(uint64_t *state);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* A few lines of TAP for the host tests of quic-handshaked. */
#ifndef HSD_TAP_H
#define HSD_TAP_H
#include <stdio.h>

static int tap_n, tap_bad;

#define CHECK(cond, name) do {						\
	tap_n++;							\
	if (cond) {							\
		printf("ok %d - %s\n", tap_n, name);			\
	} else {							\
		tap_bad++;						\
		printf("not ok %d - %s (%s:%d: %s)\n", tap_n, name,	\
		       __FILE__, __LINE__, #cond);			\
	}								\
} while (0)

static inline int tap_end(void)
{
	printf("1..%d\n", tap_n);
	return tap_bad ? 1 : 0;
}
#endif

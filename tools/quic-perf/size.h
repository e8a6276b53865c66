/* SPDX-License-Identifier: GPL-2.0-or-later */
/* quic-perf's size parser (size.c), shared with bench/ktls_perf. */
#ifndef QUIC_PERF_SIZE_H
#define QUIC_PERF_SIZE_H

#include <stdint.h>

/* N with an optional K, M or G (powers of 1024); *err set on junk */
uint64_t perf_parse_size(const char *s, int *err);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef QUIC_PERF_BULK_H
#define QUIC_PERF_BULK_H

#include "perf.h"

/* the progress line each o->interval seconds */
struct perf_progress {
	double t0, prev, next, interval;
	uint64_t last;
	FILE *out;
};

void perf_progress_init(struct perf_progress *p, const struct perf_opts *o);
void perf_progress(struct perf_progress *p, uint64_t total, const char *unit,
		   double scale);
int perf_bulk_send(int fd, const struct perf_opts *o, struct perf_progress *pg,
		   uint64_t *sent);
int perf_bulk_recv(int fd, struct perf_ctl *ctl, struct perf_progress *pg,
		   uint64_t *got, double *t_last);
int perf_ctl_read(int fd, struct perf_ctl *ctl, char *line, size_t lsz,
		  int timeout_ms);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the hostile-traffic programs read of the guest kernel: the
 * per-connection lines of /proc/net/quic (by column name, so that new
 * columns do not break them), the module's counters in
 * /proc/net/quic_stats and the slab size in /proc/meminfo.
 *
 * The memory a connection is charged with is what its socket counts:
 * rmem_alloc (received data, CRYPTO reassembly, events), wmem_queued
 * (data and frames waiting to be sent or acknowledged) and, where the
 * module has the column, omem_alloc (streams, connection IDs, tickets and
 * other per-connection objects).
 */

#ifndef QUIC_HOSTILE_PROCFS_H
#define QUIC_HOSTILE_PROCFS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROCFS_MAX_COLS	48

static inline long long hp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* One line of /proc/net/quic. */
struct hp_conn {
	char local[64], remote[64];	/* "addr:port", "[v6]:port" or "-" */
	int state, server;
	long long rmem_alloc, wmem_queued, omem_alloc;
	long long streams, pto_count;
};

/* The port at the end of "1.2.3.4:5" or "[::1]:5"; -1 for "-". */
static inline int hp_port(const char *addr)
{
	const char *c = strrchr(addr, ':');

	return c && c[1] ? atoi(c + 1) : -1;
}

/* The charge of @c in bytes. */
static inline long long hp_charge(const struct hp_conn *c)
{
	return c->rmem_alloc + c->wmem_queued + c->omem_alloc;
}

/*
 * Read at most @max lines of /proc/net/quic into @out; the count, or -1.
 * Missing columns read as 0.
 */
static inline int hp_conns_read(struct hp_conn *out, int max)
{
	char line[1024], *names[PROCFS_MAX_COLS], *tok, *save;
	int ncol = 0, n = 0, i;
	FILE *f = fopen("/proc/net/quic", "r");
	char head[1024];

	if (!f)
		return -1;
	if (!fgets(head, sizeof(head), f)) {
		fclose(f);
		return -1;
	}
	for (tok = strtok_r(head, " \n", &save); tok && ncol < PROCFS_MAX_COLS;
	     tok = strtok_r(NULL, " \n", &save))
		names[ncol++] = tok;
	while (n < max && fgets(line, sizeof(line), f)) {
		struct hp_conn *c = &out[n];

		memset(c, 0, sizeof(*c));
		i = 0;
		for (tok = strtok_r(line, " \n", &save); tok && i < ncol;
		     tok = strtok_r(NULL, " \n", &save), i++) {
			const char *k = names[i];
			long long v = strtoll(tok, NULL, 10);

			if (!strcmp(k, "local"))
				snprintf(c->local, sizeof(c->local), "%s", tok);
			else if (!strcmp(k, "remote"))
				snprintf(c->remote, sizeof(c->remote), "%s", tok);
			else if (!strcmp(k, "state"))
				c->state = (int)v;
			else if (!strcmp(k, "server"))
				c->server = (int)v;
			else if (!strcmp(k, "rmem_alloc"))
				c->rmem_alloc = v;
			else if (!strcmp(k, "wmem_queued"))
				c->wmem_queued = v;
			else if (!strcmp(k, "omem_alloc"))
				c->omem_alloc = v;
			else if (!strcmp(k, "streams"))
				c->streams = v;
			else if (!strcmp(k, "pto_count"))
				c->pto_count = v;
		}
		n++;
	}
	fclose(f);
	return n;
}

/* A counter of /proc/net/quic_stats, or -1. */
static inline long hp_stat(const char *name)
{
	FILE *f = fopen("/proc/net/quic_stats", "r");
	char key[64];
	long v, ret = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", key, &v) == 2) {
		if (!strcmp(key, name)) {
			ret = v;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* A field of /proc/meminfo in bytes ("Slab", "SUnreclaim"...), or -1. */
static inline long long hp_meminfo(const char *name)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char key[64];
	long long kb, ret = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%63[^:]: %lld%*[^\n]\n", key, &kb) == 2) {
		if (!strcmp(key, name)) {
			ret = kb * 1024;
			break;
		}
	}
	fclose(f);
	return ret;
}

#endif /* QUIC_HOSTILE_PROCFS_H */

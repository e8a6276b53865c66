// SPDX-License-Identifier: GPL-2.0
/*
 * memwatch: what the guest kernel holds while an attack runs, sampled
 * until SIGTERM or SIGINT, then printed as one line of key=value:
 *
 *   memwatch [--legit PREFIX] [--interval-ms N] [--max-seconds S]
 *
 * An attacking connection is a server-side QUIC socket (server 1 in
 * /proc/net/quic) whose peer is not a legitimate client: with --legit,
 * whose remote address does not start with PREFIX (the runner's clients
 * live in a namespace of their own); without it, whose remote port is
 * not the local port of any client socket seen on this host.  So any
 * attack program is measured the same way, whatever it is written with.
 *
 * Per sample: the attacking connections, the charge of each
 * (rmem_alloc + wmem_queued + omem_alloc, procfs.h) and their sum, the
 * pending_connections gauge, the receive memory of listeners (queued
 * Initials), and from /proc/meminfo the slab (Slab, SUnreclaim) and the
 * kernel's memory outside the page cache and anonymous memory (MemTotal -
 * MemFree - Active - Inactive - Unevictable: slab, but also the page
 * allocations slab does not show, such as kmalloc() above 8 KiB, page
 * fragments of sk_buffs, kernel stacks and page tables).  The first
 * sample is the baseline ("_base"), the maxima are the peaks ("_peak",
 * "_max"); the last sample is "_end".  Prints "# memwatch: ready" once the
 * baseline is taken.  Where the slab grew: /proc/slabinfo at the baseline
 * and at the slab's peak, the caches that grew most, as a "#" line.
 */

#include "procfs.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CONNS	16384
#define MAX_PORTS	65536
#define MAX_CACHES	512
#define TOP_CACHES	6

static volatile sig_atomic_t stop;
static const char *legit;
static unsigned char client_port[MAX_PORTS];	/* ports of client sockets */

struct sample {
	long long conns, charge_max, charge_sum, pending, listener_rmem;
	long long slab, sunreclaim, kmem;
};

/* The slab caches: name and bytes (slabs x pages per slab x page size). */
struct caches {
	int n;
	char name[MAX_CACHES][64];
	long long bytes[MAX_CACHES];
};

static void caches_read(struct caches *c)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	char line[512], name[64];
	long long pages, slabs;
	long page = sysconf(_SC_PAGESIZE);

	c->n = 0;
	if (!f)
		return;
	while (c->n < MAX_CACHES && fgets(line, sizeof(line), f)) {
		/* name active num objsize perslab pagesperslab : tunables
		 * ... : slabdata active_slabs num_slabs shared */
		if (sscanf(line, "%63s %*d %*d %*d %*d %lld : tunables %*d %*d %*d : slabdata %*d %lld",
			   name, &pages, &slabs) != 3)
			continue;
		snprintf(c->name[c->n], sizeof(c->name[0]), "%s", name);
		c->bytes[c->n++] = slabs * pages * page;
	}
	fclose(f);
}

/* The caches that grew most from @a to @b, as one comment line. */
static void caches_top(const struct caches *a, const struct caches *b)
{
	long long grew[MAX_CACHES];
	int i, j, k;

	for (i = 0; i < b->n; i++) {
		grew[i] = b->bytes[i];
		for (j = 0; j < a->n; j++)
			if (!strcmp(a->name[j], b->name[i])) {
				grew[i] -= a->bytes[j];
				break;
			}
	}
	printf("# memwatch: slab growth at the peak:");
	for (k = 0; k < TOP_CACHES; k++) {
		int best = -1;

		for (i = 0; i < b->n; i++)
			if (grew[i] > 0 && (best < 0 || grew[i] > grew[best]))
				best = i;
		if (best < 0)
			break;
		printf(" %s +%lld KiB", b->name[best], grew[best] / 1024);
		grew[best] = 0;
	}
	printf("\n");
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static long long kernel_other(void)
{
	return hp_meminfo("MemTotal") - hp_meminfo("MemFree") -
	       hp_meminfo("Active") - hp_meminfo("Inactive") -
	       hp_meminfo("Unevictable");
}

static int attacking(const struct hp_conn *c)
{
	int port = hp_port(c->remote);

	if (!c->server || port < 0)
		return 0;
	if (legit)
		return strncmp(c->remote, legit, strlen(legit)) != 0;
	return !client_port[port];
}

static void take(struct sample *s, struct hp_conn *conns)
{
	int n = hp_conns_read(conns, MAX_CONNS), i;

	memset(s, 0, sizeof(*s));
	/* client sockets first: their ports tell legitimate peers apart */
	for (i = 0; i < n; i++) {
		int port = hp_port(conns[i].local);

		if (!conns[i].server && hp_port(conns[i].remote) >= 0 &&
		    port >= 0 && port < MAX_PORTS)
			client_port[port] = 1;
	}
	for (i = 0; i < n; i++) {
		const struct hp_conn *c = &conns[i];

		if (!c->server && hp_port(c->remote) < 0)	/* a listener */
			s->listener_rmem += c->rmem_alloc;
		if (!attacking(c))
			continue;
		s->conns++;
		s->charge_sum += hp_charge(c);
		if (hp_charge(c) > s->charge_max)
			s->charge_max = hp_charge(c);
	}
	s->pending = hp_stat("pending_connections");
	s->slab = hp_meminfo("Slab");
	s->sunreclaim = hp_meminfo("SUnreclaim");
	s->kmem = kernel_other();
}

#define PEAK(f)	do { if (s.f > peak.f) peak.f = s.f; } while (0)

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "legit", required_argument, NULL, 'l' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "max-seconds", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct sample base, peak, s;
	struct hp_conn *conns = calloc(MAX_CONNS, sizeof(*conns));
	struct caches *cbase = calloc(1, sizeof(*cbase));
	struct caches *cpeak = calloc(1, sizeof(*cpeak));
	int interval = 200, max_s = 900, o, samples = 1;
	long long end;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'l': legit = optarg; break;
		case 'i': interval = atoi(optarg); break;
		case 'm': max_s = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: memwatch [--legit PREFIX] [--interval-ms N] [--max-seconds S]\n");
			return 2;
		}
	}
	if (!conns || !cbase || !cpeak)
		return 2;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	take(&base, conns);
	caches_read(cbase);
	*cpeak = *cbase;
	peak = base;
	printf("# memwatch: ready\n");
	fflush(stdout);
	end = hp_now_ms() + 1000LL * max_s;
	while (!stop && hp_now_ms() < end) {
		usleep(interval * 1000);
		take(&s, conns);
		samples++;
		PEAK(conns);
		PEAK(charge_max);
		PEAK(charge_sum);
		if (s.slab > peak.slab)
			caches_read(cpeak);
		PEAK(pending);
		PEAK(listener_rmem);
		PEAK(slab);
		PEAK(sunreclaim);
		PEAK(kmem);
	}
	take(&s, conns);
	printf("memwatch: samples=%d conns_max=%lld charge_max=%lld charge_sum_max=%lld pending_max=%lld listener_rmem_max=%lld slab_base=%lld slab_peak=%lld slab_end=%lld sunreclaim_base=%lld sunreclaim_peak=%lld kmem_base=%lld kmem_peak=%lld kmem_end=%lld\n",
	       samples, peak.conns, peak.charge_max, peak.charge_sum,
	       peak.pending, peak.listener_rmem, base.slab, peak.slab, s.slab,
	       base.sunreclaim, peak.sunreclaim, base.kmem, peak.kmem, s.kmem);
	caches_top(cbase, cpeak);
	free(conns);
	free(cbase);
	free(cpeak);
	return 0;
}

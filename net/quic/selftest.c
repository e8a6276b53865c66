// SPDX-License-Identifier: GPL-2.0
/*
 * Self-test driver: with quic.selftest=1 every suite runs once at module
 * load and prints flat KTAP.  Debian's kernel has no KUnit, so this follows
 * WireGuard's approach of tests compiled into the module behind a switch.
 */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/printk.h>

#include "selftest.h"

static bool selftest;
module_param(selftest, bool, 0444);
MODULE_PARM_DESC(selftest, "Run the in-module self-tests at load and print KTAP");

bool quic_ktap_check(struct quic_ktap *ktap, bool ok, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	ktap->run++;
	if (!ok)
		ktap->failed++;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("%sok %u %pV\n", ok ? "" : "not ", ktap->run, &vaf);
	va_end(args);
	return ok;
}

void quic_ktap_skip(struct quic_ktap *ktap, const char *name,
		    const char *reason)
{
	ktap->run++;
	ktap->skipped++;
	pr_info("ok %u %s # SKIP %s\n", ktap->run, name, reason);
}

typedef void (*quic_selftest_suite_t)(struct quic_ktap *ktap);

static const quic_selftest_suite_t quic_selftest_suites[] = {
	quic_crypto_selftest,
};

/* Returns -EINVAL when any case failed, so a failing module load is loud. */
int quic_selftest_run(void)
{
	struct quic_ktap ktap = {};
	unsigned int i;

	if (!selftest)
		return 0;

	pr_info("KTAP version 1\n");
	for (i = 0; i < ARRAY_SIZE(quic_selftest_suites); i++)
		quic_selftest_suites[i](&ktap);
	pr_info("1..%u\n", ktap.run);
	pr_info("# quic selftest: %u passed, %u failed, %u skipped\n",
		ktap.run - ktap.failed - ktap.skipped, ktap.failed,
		ktap.skipped);
	return ktap.failed ? -EINVAL : 0;
}

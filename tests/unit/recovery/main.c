// SPDX-License-Identifier: GPL-2.0
/* Host tests of RTT, loss detection, PTO, congestion control, pacing, ACK
 * timing, idle timeout and anti-amplification, on a virtual clock.
 */
#include "rt.h"

void rt_run(const char *suite, const struct rt_case *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		tap_begin("%s: %s", suite, c[i].name);
		c[i].fn();
		tap_end();
	}
}

int main(void)
{
	rtt_tests();
	loss_tests();
	cong_tests();
	cubic_tests();
	bbr_tests();
	hystart_tests();
	pacing_tests();
	ack_tests();
	conn_tests();
	ecn_tests();
	return tap_done();
}

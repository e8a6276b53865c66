// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of the QUIC wire layer: one TAP stream for all suites. */
#include "suites.h"
#include "tap.h"

int main(void)
{
	varint_tests();
	header_tests();
	frame_tests();
	tp_tests();
	ack_ranges_tests();
	flow_tests();
	key_phase_tests();
	reasm_tests();
	tls_hello_tests();
	token_tests();
	gso_tests();
	return tap_done();
}

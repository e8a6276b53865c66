// SPDX-License-Identifier: GPL-2.0-or-later
/* quic-perf: iperf3-like measurements over QUIC sockets (quic-perf.1). */

#include "perf.h"

int main(int argc, char **argv)
{
	struct perf_opts o;
	int ret = perf_parse_args(argc, argv, &o);

	if (ret)
		return ret > 0 ? 0 : 2;
	return o.server ? perf_server(&o) : perf_client(&o);
}

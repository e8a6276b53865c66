// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC sysctls, under /proc/sys/net/quic/:
 *
 *   wmem_default	send buffer (SO_SNDBUF) of a new socket, bytes
 *   rmem_default	receive buffer (SO_RCVBUF) of a new socket, bytes
 *
 * The receive buffer also bounds the flow-control windows we advertise
 * (half of it for the connection), so its default is what a connection
 * may have in flight towards us.  SO_SNDBUF and SO_RCVBUF override them
 * per socket, within net.core.wmem_max and rmem_max.
 */

#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include "socket.h"

int sysctl_quic_wmem_default = 4 << 20;
int sysctl_quic_rmem_default = 16 << 20;

static int quic_buf_min = SOCK_MIN_RCVBUF;
static int quic_buf_max = INT_MAX / 2;

static struct ctl_table quic_sysctl_table[] = {
	{
		.procname	= "wmem_default",
		.data		= &sysctl_quic_wmem_default,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &quic_buf_min,
		.extra2		= &quic_buf_max,
	},
	{
		.procname	= "rmem_default",
		.data		= &sysctl_quic_rmem_default,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &quic_buf_min,
		.extra2		= &quic_buf_max,
	},
};

static struct ctl_table_header *quic_sysctl_header;

int quic_sysctl_init(void)
{
	quic_sysctl_header = register_net_sysctl(&init_net, "net/quic",
						 quic_sysctl_table);
	return quic_sysctl_header ? 0 : -ENOMEM;
}

void quic_sysctl_exit(void)
{
	unregister_net_sysctl_table(quic_sysctl_header);
}

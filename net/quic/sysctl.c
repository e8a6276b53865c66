// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC sysctls, under /proc/sys/net/quic/:
 *
 *   wmem_default	send buffer (SO_SNDBUF) of a new socket, bytes
 *   rmem_default	receive buffer (SO_RCVBUF) of a new socket, bytes
 *   key_update_packets	packets protected with one 1-RTT key before the
 *			connection updates it (RFC 9001 §6); 0, the default:
 *			at three quarters of the AEAD's confidentiality limit
 *			(never for ChaCha20-Poly1305).  Lower values are for
 *			testing; the limit's share always caps them.
 *   aead_integrity_limit  received packets that may fail authentication on
 *			a connection before it closes with AEAD_LIMIT_REACHED;
 *			0, the default: the AEAD's limit (RFC 9001 §6.6).
 *			Lower values are for testing.
 *   max_pending_connections  server connections of a listener whose
 *			handshake has not completed (queued for accept() or
 *			accepted) beyond which new Initials are dropped; the
 *			listen() backlog caps it too.  Default 256, from 1 to
 *			65536: each costs about 36 kB until it is established
 *			(socket.c), 9 MB for 256.
 *   retry_threshold	pending connections of a port (as above) from which
 *			a listener answers Initials without a valid token
 *			with a Retry (RFC 9000 §8.1.2), the defence against
 *			Initial floods; 0 turns it off.  Default 64.
 *   new_token		1, the default: a server sends a NEW_TOKEN frame
 *			when the handshake completes (RFC 9000 §8.1.3);
 *			0: only when asked (QUIC_SOCKOPT_TOKEN).
 *   cid_len		the length of the connection IDs we issue, 0..20,
 *			default 8, taken by a UDP port when it is created
 *			(the first bind of its address): all connections of
 *			the port use it.  0 is for clients only: such a port
 *			cannot listen, and serves one connection (conn_id.c).
 *   grease_quic_bit	1, the default: a new socket advertises the
 *			grease_quic_bit transport parameter (RFC 9287) and so
 *			accepts packets with the fixed bit 0; 0: it does not
 *			(version.c).
 *   ecn		1, the default: connections mark their packets ECT(0)
 *			while ECN is being validated or once it is (ecn.h);
 *			0: a connection that has not sent yet never marks,
 *			and no connection marks while it is 0.  ECN counts
 *			received are reported (ACK_ECN) either way.
 *   congestion_control	the congestion controller of a new connection
 *			when QUIC_SOCKOPT_CONFIG does not choose one:
 *			0 NewReno, 1 CUBIC (the default), 2 BBR, the values
 *			of enum quic_cong_algo (cong.h); others EINVAL.
 *   hystart		1, the default: NewReno's and CUBIC's first slow
 *			start ends as HyStart++ (RFC 9406) says, when the
 *			RTT grows (hystart.h); 0: only at the first loss or
 *			ECN-CE (RFC 9002 §7.3.1).  Taken when a connection
 *			starts; others EINVAL.
 *   gso		1, the default: full-size 1-RTT datagrams sent back
 *			to back leave as one UDP GSO skb (output.c, gso.h);
 *			0: every datagram is an skb of its own, as before
 *			(for comparison).  Read for each datagram.
 *
 * The receive buffer also bounds the flow-control windows we advertise
 * (half of it for the connection), so its default is what a connection
 * may have in flight towards us.  SO_SNDBUF and SO_RCVBUF override them
 * per socket, within net.core.wmem_max and rmem_max.
 */

#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include "gso.h"
#include "socket.h"
#include "version.h"

int sysctl_quic_wmem_default = 4 << 20;
int sysctl_quic_rmem_default = 16 << 20;
unsigned long sysctl_quic_key_update_packets;
unsigned long sysctl_quic_aead_integrity_limit;
int sysctl_quic_max_pending_connections = 256;
int sysctl_quic_retry_threshold = 64;
int sysctl_quic_new_token = 1;
int sysctl_quic_congestion_control = QUIC_CONG_ALG_CUBIC;
int sysctl_quic_hystart = 1;

static int quic_buf_min = SOCK_MIN_RCVBUF;
static int quic_buf_max = INT_MAX / 2;

static unsigned long quic_ulong_max = ULONG_MAX;

static int quic_pending_min = 1;
static int quic_pending_max = 65536;
static int quic_cid_len_max = QUIC_CID_MAX_LEN;
static int quic_cong_max = QUIC_CONG_ALG_BBR;

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
	{
		.procname	= "key_update_packets",
		.data		= &sysctl_quic_key_update_packets,
		.maxlen		= sizeof(unsigned long),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
		.extra2		= &quic_ulong_max,
	},
	{
		.procname	= "aead_integrity_limit",
		.data		= &sysctl_quic_aead_integrity_limit,
		.maxlen		= sizeof(unsigned long),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
		.extra2		= &quic_ulong_max,
	},
	{
		.procname	= "max_pending_connections",
		.data		= &sysctl_quic_max_pending_connections,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &quic_pending_min,
		.extra2		= &quic_pending_max,
	},
	{
		.procname	= "retry_threshold",
		.data		= &sysctl_quic_retry_threshold,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &quic_pending_max,
	},
	{
		.procname	= "new_token",
		.data		= &sysctl_quic_new_token,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "gso",
		.data		= &sysctl_quic_gso,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "ecn",
		.data		= &sysctl_quic_ecn,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "cid_len",
		.data		= &sysctl_quic_cid_len,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &quic_cid_len_max,
	},
	{
		.procname	= "congestion_control",
		.data		= &sysctl_quic_congestion_control,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &quic_cong_max,
	},
	{
		.procname	= "hystart",
		.data		= &sysctl_quic_hystart,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "grease_quic_bit",
		.data		= &sysctl_quic_grease_quic_bit,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
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

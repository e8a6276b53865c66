// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC protocol registration: IPPROTO_QUIC sockets for AF_INET and AF_INET6,
 * SOCK_STREAM and SOCK_DGRAM (both types behave alike), and module
 * initialisation.
 */

#include <linux/module.h>
#include <net/inet_common.h>
#include <net/ipv6.h>
#include <net/protocol.h>
#include <net/transp_v6.h>

#include "selftest.h"
#include "socket.h"
#include "txcache.h"

static struct proto quic_prot = {
	.name		= "QUIC",
	.owner		= THIS_MODULE,
	.init		= quic_sock_init,
	.destroy	= quic_sock_destroy,
	.close		= quic_sock_close,
	.bind		= quic_sock_bind,
	.setsockopt	= quic_sock_setsockopt,
	.getsockopt	= quic_sock_getsockopt,
	.sendmsg	= quic_sock_sendmsg,
	.recvmsg	= quic_sock_recvmsg,
	.backlog_rcv	= quic_backlog_rcv,
	.release_cb	= quic_release_cb,
	.hash		= quic_sock_hash,
	.no_autobind	= true,
	.unhash		= quic_sock_unhash,
	.obj_size	= sizeof(struct quic_sock),
};

static struct proto quicv6_prot = {
	.name		= "QUICv6",
	.owner		= THIS_MODULE,
	.init		= quic_sock_init,
	.destroy	= quic_sock_destroy,
	.close		= quic_sock_close,
	.bind		= quic_sock_bind,
	.setsockopt	= quic_sock_setsockopt,
	.getsockopt	= quic_sock_getsockopt,
	.sendmsg	= quic_sock_sendmsg,
	.recvmsg	= quic_sock_recvmsg,
	.backlog_rcv	= quic_backlog_rcv,
	.release_cb	= quic_release_cb,
	.hash		= quic_sock_hash,
	.no_autobind	= true,
	.unhash		= quic_sock_unhash,
	.obj_size	= sizeof(struct quic6_sock),
	.ipv6_pinfo_offset = offsetof(struct quic6_sock, inet6),
};

static const struct proto_ops quic_proto_ops = {
	.family		= PF_INET,
	.owner		= THIS_MODULE,
	.release	= inet_release,
	.bind		= quic_inet_bind,
	.connect	= quic_inet_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= quic_inet_accept,
	.getname	= quic_inet_getname,
	.poll		= quic_inet_poll,
	.ioctl		= inet_ioctl,
	.gettstamp	= sock_gettstamp,
	.listen		= quic_inet_listen,
	.shutdown	= quic_inet_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= inet_sendmsg,
	.recvmsg	= inet_recvmsg,
	.mmap		= sock_no_mmap,
};

static const struct proto_ops quicv6_proto_ops = {
	.family		= PF_INET6,
	.owner		= THIS_MODULE,
	.release	= inet6_release,
	.bind		= quic_inet_bind,
	.connect	= quic_inet_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= quic_inet_accept,
	.getname	= quic_inet_getname,
	.poll		= quic_inet_poll,
	.ioctl		= inet6_ioctl,
	.gettstamp	= sock_gettstamp,
	.listen		= quic_inet_listen,
	.shutdown	= quic_inet_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= inet_sendmsg,
	.recvmsg	= inet_recvmsg,
	.mmap		= sock_no_mmap,
};

static struct inet_protosw quic_protosw[] = {
	{
		.type		= SOCK_STREAM,
		.protocol	= IPPROTO_QUIC,
		.prot		= &quic_prot,
		.ops		= &quic_proto_ops,
	},
	{
		.type		= SOCK_DGRAM,
		.protocol	= IPPROTO_QUIC,
		.prot		= &quic_prot,
		.ops		= &quic_proto_ops,
	},
};

static struct inet_protosw quicv6_protosw[] = {
	{
		.type		= SOCK_STREAM,
		.protocol	= IPPROTO_QUIC,
		.prot		= &quicv6_prot,
		.ops		= &quicv6_proto_ops,
	},
	{
		.type		= SOCK_DGRAM,
		.protocol	= IPPROTO_QUIC,
		.prot		= &quicv6_prot,
		.ops		= &quicv6_proto_ops,
	},
};

static void quic_protosw_unregister(struct inet_protosw *sw, int n, bool v6)
{
	while (n--) {
		if (v6)
			inet6_unregister_protosw(&sw[n]);
		else
			inet_unregister_protosw(&sw[n]);
	}
}

static int __init quic_init(void)
{
	int err, i, j;

	err = quic_crypto_init();
	if (err)
		return err;
	err = quic_selftest_run();
	if (err)
		goto err_crypto;

	err = quic_timer_wq_init();
	if (err)
		goto err_crypto;
	err = quic_sysctl_init();
	if (err)
		goto err_wq;
	err = quic_proc_init();
	if (err)
		goto err_sysctl;
	err = quic_cid_table_init();
	if (err)
		goto err_proc;
	err = quic_early_data_init();
	if (err)
		goto err_cid;
	err = quic_txcache_init();
	if (err)
		goto err_early;
	err = proto_register(&quic_prot, 1);
	if (err)
		goto err_txcache;
	err = proto_register(&quicv6_prot, 1);
	if (err)
		goto err_proto;

	for (i = 0; i < ARRAY_SIZE(quic_protosw); i++)
		inet_register_protosw(&quic_protosw[i]);
	for (j = 0; j < ARRAY_SIZE(quicv6_protosw); j++) {
		err = inet6_register_protosw(&quicv6_protosw[j]);
		if (err)
			goto err_protosw;
	}

	pr_info("quic: IPPROTO_QUIC sockets registered\n");
	return 0;

err_protosw:
	quic_protosw_unregister(quicv6_protosw, j, true);
	quic_protosw_unregister(quic_protosw, i, false);
	proto_unregister(&quicv6_prot);
err_proto:
	proto_unregister(&quic_prot);
err_txcache:
	quic_txcache_exit();
err_early:
	quic_early_data_exit();
err_cid:
	quic_cid_table_exit();
err_proc:
	quic_proc_exit();
err_sysctl:
	quic_sysctl_exit();
err_wq:
	quic_timer_wq_exit();
err_crypto:
	quic_crypto_exit();
	return err;
}

static void __exit quic_exit(void)
{
	/* Sockets hold module references, so none exist at this point. */
	WARN_ON(atomic_long_read(&quic_stats[QUIC_STAT_PENDING]));
	quic_protosw_unregister(quicv6_protosw, ARRAY_SIZE(quicv6_protosw), true);
	quic_protosw_unregister(quic_protosw, ARRAY_SIZE(quic_protosw), false);
	proto_unregister(&quicv6_prot);
	proto_unregister(&quic_prot);
	quic_txcache_exit();
	quic_early_data_exit();
	quic_cid_table_exit();
	quic_proc_exit();
	quic_sysctl_exit();
	quic_timer_wq_exit();
	quic_crypto_exit();
	pr_info("quic: unloaded\n");
}

module_init(quic_init);
module_exit(quic_exit);

MODULE_ALIAS("net-pf-" __stringify(PF_INET) "-proto-261");
MODULE_ALIAS("net-pf-" __stringify(PF_INET6) "-proto-261");
MODULE_DESCRIPTION("QUIC: RFC 9000 transport over UDP, TLS 1.3 handshake in userspace");
MODULE_LICENSE("GPL");

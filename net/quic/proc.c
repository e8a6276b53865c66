// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/quic_stats: counters of the whole module, one "name value"
 * line each: packets and recovery events, then every silent receive drop
 * by its reason (see enum quic_drop_reason).  For debugging and for tests
 * that must see, say, that loss was recovered and not avoided.  One line is
 * a gauge, not a counter: pending_connections, the server connections of
 * all listeners whose handshake has not completed (socket.c).
 *
 * /proc/net/quic: one line per QUIC socket of the namespace, like
 * /proc/net/tcp: addresses, state and the recovery and flow-control state
 * of its connection.  Read without the socket lock: each number is a
 * snapshot, the line as a whole may mix moments.
 */

#include <linux/list.h>
#include <linux/proc_fs.h>
#include <linux/spinlock.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "socket.h"

atomic_long_t quic_stats[QUIC_STAT_MAX];

static const char *const quic_stat_names[QUIC_STAT_MAX] = {
	[QUIC_STAT_PKT_SENT]		= "packets_sent",
	[QUIC_STAT_PKT_RECV]		= "packets_received",
	[QUIC_STAT_PKT_LOST]		= "packets_lost",
	[QUIC_STAT_PTO]			= "pto_expired",
	[QUIC_STAT_PERSISTENT]		= "persistent_congestion",
	[QUIC_STAT_STREAM_RETX]		= "stream_frames_retransmitted",
	[QUIC_STAT_PKT_SPURIOUS]	= "packets_lost_spuriously",
	[QUIC_STAT_CONG_UNDO]		= "congestion_events_undone",
	[QUIC_STAT_KEY_UPDATE]		= "key_updates",
	[QUIC_STAT_PENDING]		= "pending_connections",
	[QUIC_STAT_REFUSED]		= "connections_refused",
	[QUIC_STAT_DATA_BLOCKED_RX]	= "data_blocked_received",
	[QUIC_STAT_STREAM_BLOCKED_RX]	= "stream_data_blocked_received",
	[QUIC_STAT_RETRY_SENT]		= "retry_sent",
	[QUIC_STAT_RETRY_RECV]		= "retry_received",
	[QUIC_STAT_TOKEN_OK]		= "tokens_accepted",
	[QUIC_STAT_TOKEN_BAD]		= "tokens_rejected",
	[QUIC_STAT_NEW_TOKEN_SENT]	= "new_token_sent",
	[QUIC_STAT_VN_SENT]		= "version_negotiation_sent",
	[QUIC_STAT_VN_RECV]		= "version_negotiation_received",
	[QUIC_STAT_GREASED]		= "packets_greased",
	[QUIC_STAT_EARLY_SENT]		= "zero_rtt_packets_sent",
	[QUIC_STAT_EARLY_RECV]		= "zero_rtt_packets_received",
	[QUIC_STAT_EARLY_REJECTED]	= "zero_rtt_rejected",
	[QUIC_STAT_EARLY_REPLAY]	= "zero_rtt_replays_refused",
	[QUIC_STAT_COMPAT_VN]		= "compatible_negotiations",
	[QUIC_STAT_ECN_ECT0_SENT]	= "ecn_ect0_sent",
	[QUIC_STAT_ECN_CE_RECV]		= "ecn_ce_received",
	[QUIC_STAT_ECN_CE_EVENT]	= "ecn_ce_congestion_events",
	[QUIC_STAT_ECN_FAILED]		= "ecn_validation_failed",
	[QUIC_STAT_DGRAM_SENT]		= "datagrams_sent",
	[QUIC_STAT_DGRAM_RECV]		= "datagrams_received",
	[QUIC_STAT_DGRAM_LOST]		= "datagrams_lost",
	[QUIC_STAT_DGRAM_TX_DROPPED]	= "datagrams_tx_dropped",
	[QUIC_STAT_DGRAM_RX_DROPPED]	= "datagrams_rx_dropped",
	[QUIC_STAT_PATH_CHANGE]		= "path_changes",
	[QUIC_STAT_PATH_VALID]		= "paths_validated",
	[QUIC_STAT_GSO_TRAINS]		= "gso_trains",
	[QUIC_STAT_GSO_SEGS]		= "gso_datagrams",
	[QUIC_STAT_GRO_TRAINS]		= "rx_trains",
	[QUIC_STAT_GRO_SEGS]		= "rx_train_datagrams",
	[QUIC_STAT_RX_DEFERRED]		= "rx_deferred",
	[QUIC_STAT_RX_LATE]		= "rx_deferred_late",
	[QUIC_STAT_RX_WAKES_SAVED]	= "rx_wakeups_saved",
	[QUIC_STAT_RX_SKBS_MERGED]	= "rx_skbs_merged",
};

static int quic_stats_show(struct seq_file *seq, void *v)
{
	int i;

	for (i = 0; i < QUIC_STAT_MAX; i++)
		seq_printf(seq, "%s %ld\n", quic_stat_names[i],
			   atomic_long_read(&quic_stats[i]));
	for (i = 0; i < QUIC_DROP_MAX; i++)
		seq_printf(seq, "drop_%s %ld\n", quic_drop_names[i],
			   atomic_long_read(&quic_drops[i]));
	return 0;
}

static LIST_HEAD(quic_sock_list);		/* every QUIC socket */
static DEFINE_SPINLOCK(quic_sock_list_lock);

void quic_proc_add(struct sock *sk)
{
	spin_lock_bh(&quic_sock_list_lock);
	list_add_tail(&quic_sk(sk)->proc_node, &quic_sock_list);
	spin_unlock_bh(&quic_sock_list_lock);
}

void quic_proc_del(struct sock *sk)
{
	spin_lock_bh(&quic_sock_list_lock);
	list_del(&quic_sk(sk)->proc_node);
	spin_unlock_bh(&quic_sock_list_lock);
}

/* For each QUIC socket of @net, @fn(sk, @arg), list lock held (pmtud.c). */
void quic_proc_for_each(struct net *net, void (*fn)(struct sock *sk, void *arg),
			void *arg)
{
	struct quic_sock *qs;

	spin_lock_bh(&quic_sock_list_lock);
	list_for_each_entry(qs, &quic_sock_list, proc_node)
		if (net_eq(sock_net(&qs->inet.sk), net))
			fn(&qs->inet.sk, arg);
	spin_unlock_bh(&quic_sock_list_lock);
}

static void quic_conn_show(struct seq_file *seq, struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *app = &qs->space[QUIC_PN_SPACE_APP];
	struct quic_streams *st = &qs->streams;
	const struct quic_cong_ops *ops;

	if (qs->local.sa.sa_family)
		seq_printf(seq, "%pISpc ", &qs->local.sa);
	else
		seq_puts(seq, "- ");
	if (qs->peer.sa.sa_family)
		seq_printf(seq, "%pISpc ", &qs->peer.sa);
	else
		seq_puts(seq, "- ");
	seq_printf(seq, "%d %d %llu %llu %llu %u %u %u %llu %llu %llu %llu %d %d %llu %lld %u %u %d",
		   READ_ONCE(sk->sk_state),
		   qs->is_server, READ_ONCE(qs->cong.cwnd),
		   READ_ONCE(qs->cong.bytes_in_flight),
		   READ_ONCE(qs->rtt.smoothed), READ_ONCE(qs->ld.pto_count),
		   READ_ONCE(qs->max_datagram), READ_ONCE(st->count),
		   READ_ONCE(st->written) - READ_ONCE(st->sent),
		   READ_ONCE(st->send_max), READ_ONCE(st->rx.max),
		   READ_ONCE(st->rx_read), READ_ONCE(sk->sk_wmem_queued),
		   atomic_read(&sk->sk_rmem_alloc), READ_ONCE(app->next_pn),
		   READ_ONCE(app->largest_acked),
		   /* each update flips the phase: no crypto state unlocked */
		   READ_ONCE(qs->key_phase.updates) & 1,
		   READ_ONCE(qs->key_phase.updates),
		   atomic_read(&sk->sk_omem_alloc));
	quic_ecn_proc_show(seq, sk);
	seq_printf(seq, " %u %u", READ_ONCE(qs->pmtud.search.state),
		   READ_ONCE(qs->pmtud.search.black_holes));
	/*
	 * The levels holding keys, a bit per enum quic_crypto_level: 1 (APP
	 * only) once Initial and Handshake are discarded and freed.  Before
	 * cong and cong_state, which scripts read as the last two columns.
	 */
	seq_printf(seq, " %u", quic_crypto_levels(&qs->crypto));
	/* cong.h; read unlocked (a connect() may be re-initializing it) */
	ops = READ_ONCE(qs->cong.ops);
	seq_printf(seq, " %s %s\n", ops ? ops->name : "-",
		   quic_cong_state_name(&qs->cong));
}

static int quic_conns_show(struct seq_file *seq, void *v)
{
	struct net *net = seq_file_single_net(seq);
	struct quic_sock *qs;

	seq_puts(seq, "local remote state server cwnd in_flight srtt_us pto_count datagram streams unsent peer_max_data max_data read wmem_queued rmem_alloc next_pn largest_acked key_phase key_updates omem_alloc ecn ect0_sent ce_received ce_events ecn_failures pmtud_state pmtud_black_holes key_levels cong cong_state\n");
	spin_lock_bh(&quic_sock_list_lock);
	list_for_each_entry(qs, &quic_sock_list, proc_node)
		if (net_eq(sock_net(&qs->inet.sk), net))
			quic_conn_show(seq, &qs->inet.sk);
	spin_unlock_bh(&quic_sock_list_lock);
	return 0;
}

static int __net_init quic_proc_net_init(struct net *net)
{
	if (!proc_create_net_single("quic", 0444, net->proc_net,
				    quic_conns_show, NULL))
		return -ENOMEM;
	return 0;
}

static void __net_exit quic_proc_net_exit(struct net *net)
{
	remove_proc_entry("quic", net->proc_net);
}

static struct pernet_operations quic_proc_net_ops = {
	.init = quic_proc_net_init,
	.exit = quic_proc_net_exit,
};

int quic_proc_init(void)
{
	int err;

	if (!proc_create_single("quic_stats", 0444, init_net.proc_net,
				quic_stats_show))
		return -ENOMEM;
	err = register_pernet_subsys(&quic_proc_net_ops);
	if (err)
		remove_proc_entry("quic_stats", init_net.proc_net);
	return err;
}

void quic_proc_exit(void)
{
	unregister_pernet_subsys(&quic_proc_net_ops);
	remove_proc_entry("quic_stats", init_net.proc_net);
}

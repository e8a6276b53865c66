// SPDX-License-Identifier: GPL-2.0
/*
 * ECN of a QUIC socket: the hooks of the transmit, receive and ACK paths
 * into the pure state of ecn.c, the net.quic.ecn sysctl and the /proc
 * columns.  The rules are in ecn.h.  struct quic_ecn starts zeroed with
 * the socket, which is its initial state (testing).
 */

#include <linux/seq_file.h>
#include <net/inet_ecn.h>

#include "ecn.h"
#include "frame.h"
#include "socket.h"

/* net.quic.ecn: 1 (default) marks ECT(0) as ecn.h says; 0 never marks. */
int sysctl_quic_ecn = 1;

bool quic_ecn_marking(struct sock *sk)
{
	return READ_ONCE(sysctl_quic_ecn) &&
	       quic_ecn_state_marks(&quic_sk(sk)->ecn);
}

u8 quic_ecn_tos(struct sock *sk)
{
	return quic_ecn_marking(sk) ? INET_ECN_ECT_0 : INET_ECN_NOT_ECT;
}

void quic_ecn_on_sent(struct sock *sk, u8 space)
{
	bool marked = quic_ecn_marking(sk);

	quic_ecn_sent(&quic_sk(sk)->ecn, space, marked,
		      READ_ONCE(sysctl_quic_ecn));
	if (marked)
		QUIC_INC_STATS(ECN_ECT0_SENT, 1);
}

bool quic_ecn_on_rcv(struct sock *sk, u8 space, const struct sk_buff *skb)
{
	if (!quic_ecn_received(&quic_sk(sk)->ecn, space,
			       QUIC_INPUT_CB(skb)->ecn))
		return false;
	QUIC_INC_STATS(ECN_CE_RECV, 1);
	return true;
}

const u64 *quic_ecn_ack(struct sock *sk, u8 space)
{
	return quic_ecn_ack_counts(&quic_sk(sk)->ecn, space);
}

void quic_ecn_on_ack(struct sock *sk, u8 id, const struct quic_frame_ack *ack,
		     u64 now)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_space *space = &qs->space[id];
	struct quic_ecn *e = &qs->ecn;
	u64 marked = 0, unmarked = 0, sent_time = 0, counts[3];
	u32 episode, failures = e->failures;
	struct quic_sent_pkt *sp;

	/* RFC 9000 §13.4.2.1: never from an ACK that is not the newest. */
	if (space->largest_acked != QUIC_PN_NONE &&
	    ack->largest <= space->largest_acked)
		return;
	list_for_each_entry(sp, &space->acked, list) {
		if (sp->ect0)
			marked++;
		else
			unmarked++;
		/* Appendix B.7: the largest acknowledged one's send time. */
		sent_time = max(sent_time, sp->meta.sent_time);
	}
	counts[QUIC_ECN_IDX_ECT0] = ack->ect0;
	counts[QUIC_ECN_IDX_ECT1] = ack->ect1;
	counts[QUIC_ECN_IDX_CE] = ack->ce;
	if (!quic_ecn_validate(e, id, ack->ecn ? counts : NULL, marked,
			       unmarked)) {
		if (e->failures != failures)
			QUIC_INC_STATS(ECN_FAILED, 1);
		return;
	}
	episode = qs->cong.episode;
	if (quic_cong_on_ecn(&qs->cong, &e->peer[id][QUIC_ECN_IDX_CE],
			     ack->ce, sent_time, now) &&
	    qs->cong.episode != episode) {
		e->ce_events++;
		QUIC_INC_STATS(ECN_CE_EVENT, 1);
	}
}

void quic_ecn_reset(struct sock *sk)
{
	quic_ecn_new_path(&quic_sk(sk)->ecn);
}

void quic_ecn_proc_show(struct seq_file *seq, struct sock *sk)
{
	struct quic_ecn *e = &quic_sk(sk)->ecn;

	seq_printf(seq, " %s %llu %llu %u %u",
		   quic_ecn_state_name(READ_ONCE(e->state)),
		   READ_ONCE(e->ect0_sent), READ_ONCE(e->ce_rcvd),
		   READ_ONCE(e->ce_events), READ_ONCE(e->failures));
}

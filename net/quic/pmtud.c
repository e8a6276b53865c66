// SPDX-License-Identifier: GPL-2.0
/*
 * Datagram PLPMTU discovery of a connection: see pmtud.h.  Everything
 * here but quic_pmtud_icmp() runs with the socket lock held.
 */

#include <linux/icmp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/uaccess.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "frame.h"
#include "socket.h"
#include "udp.h"

/* IP and UDP headers around a datagram of @sk's peer. */
static u32 quic_pmtud_overhead(const struct quic_sock *qs)
{
	return qs->peer.sa.sa_family == AF_INET6 ?
	       sizeof(struct ipv6hdr) + sizeof(struct udphdr) :
	       sizeof(struct iphdr) + sizeof(struct udphdr);
}

/* MAX_PLPMTU: what the route carries and the peer accepts. */
static u32 quic_pmtud_max(struct sock *sk, u32 cap)
{
	struct quic_sock *qs = quic_sk(sk);
	u64 size = min_t(u64, cap, quic_udp_path_payload(sk));

	if (qs->peer_tp_set)
		size = min(size, qs->peer_tp.max_udp_payload_size);
	return max_t(u64, size, QUIC_BASE_PLPMTU);
}

/* The datagram size in use becomes @size. */
static void quic_pmtud_apply(struct sock *sk, u32 size)
{
	struct quic_sock *qs = quic_sk(sk);

	if (size == qs->max_datagram)
		return;
	WRITE_ONCE(qs->max_datagram, size);
	quic_cong_set_mss(&qs->cong, size);
}

void quic_pmtud_init(struct sock *sk)
{
	struct quic_pmtud *pm = &quic_sk(sk)->pmtud;

	quic_plpmtud_init(&pm->search, 0, QUIC_BASE_PLPMTU);
	pm->building = false;
	spin_lock_init(&pm->lock);
	pm->ptb_size = 0;
}

void quic_pmtud_start(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_plpmtud *p = &qs->pmtud.search;
	u64 interval = qs->config.plpmtud_probe_interval;

	if (!interval) {
		/* Off: the route's size, as before DPLPMTUD (pmtud.h). */
		quic_plpmtud_init(p, 0, quic_pmtud_max(sk, QUIC_MAX_DATAGRAM));
		quic_pmtud_apply(sk, p->plpmtu);
		return;
	}
	quic_plpmtud_init(p, interval, QUIC_BASE_PLPMTU);
	quic_plpmtud_start(p, quic_pmtud_max(sk, QUIC_MAX_PLPMTU));
	quic_pmtud_apply(sk, p->plpmtu);
}

void quic_pmtud_reset(struct sock *sk)
{
	if (quic_sk(sk)->handshake_done)
		quic_pmtud_start(sk);
}

void quic_pmtud_config(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_plpmtud *p = &qs->pmtud.search;
	u64 interval = qs->config.plpmtud_probe_interval;

	if (p->state == QUIC_PLPMTUD_DISABLED)
		quic_pmtud_reset(sk);	/* turned on: search from 1200 */
	else
		quic_plpmtud_set_interval(p, interval, quic_now());
}

/* Does the quoted start of a packet we sent carry our DCID? */
static bool quic_pmtud_quote_ok(struct sock *sk, const u8 *q, u32 len)
{
	const struct quic_cid *dcid = quic_cid_active_dcid(&quic_sk(sk)->cids);

	return dcid && quic_plpmtud_quote_match(q, len, dcid->data, dcid->len);
}

/* An ICMP hint the error handler left, if it quotes one of our packets. */
static void quic_pmtud_take_ptb(struct sock *sk)
{
	struct quic_pmtud *pm = &quic_sk(sk)->pmtud;
	u8 quote[QUIC_PMTUD_QUOTE];
	u32 size, len;

	if (!READ_ONCE(pm->ptb_size))
		return;
	spin_lock_bh(&pm->lock);
	size = pm->ptb_size;
	len = pm->ptb_quote_len;
	memcpy(quote, pm->ptb_quote, len);
	pm->ptb_size = 0;
	spin_unlock_bh(&pm->lock);
	if (size && quic_pmtud_quote_ok(sk, quote, len))
		quic_pmtud_apply(sk, quic_plpmtud_on_ptb(&pm->search, size));
}

void quic_pmtud_output(struct sock *sk, u64 now)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_plpmtud *p = &qs->pmtud.search;
	u64 pn = qs->space[QUIC_PN_SPACE_APP].next_pn;
	u32 size;

	quic_pmtud_take_ptb(sk);
	/* §14.3.1 and RFC 9001 §4.1.2: 1-RTT probes once confirmed. */
	if (p->state == QUIC_PLPMTUD_DISABLED || !qs->handshake_confirmed ||
	    sk->sk_state != QUIC_SS_ESTABLISHED)
		return;
	/* Searching again after the raise interval: the route may differ. */
	if (p->state == QUIC_PLPMTUD_COMPLETE && now >= p->raise_at)
		quic_plpmtud_set_max(p, quic_pmtud_max(sk, QUIC_MAX_PLPMTU));
	size = quic_plpmtud_probe_size(p, now);
	quic_pmtud_apply(sk, p->plpmtu);
	/* Probes take congestion window (RFC 9000 §14.4) and wait for it. */
	if (!size || quic_cong_window_left(&qs->cong) < size)
		return;
	qs->pmtud.building = true;
	if (quic_output_probe(sk, size, now))
		quic_plpmtud_probe_sent(p, pn, size);
	qs->pmtud.building = false;
}

bool quic_pmtud_fill(struct sock *sk, struct quic_wr *wr)
{
	if (!quic_sk(sk)->pmtud.building)
		return false;
	/* The rest of the probe is PADDING (output.c pads it). */
	return !quic_wr_u8(wr, QUIC_FRAME_PING);
}

void quic_pmtud_acked(struct sock *sk, u8 space, const struct quic_sent_meta *m)
{
	struct quic_plpmtud *p = &quic_sk(sk)->pmtud.search;

	if (space == QUIC_PN_SPACE_APP)
		quic_pmtud_apply(sk, quic_plpmtud_on_acked(p, m->pn, m->size,
							   quic_now()));
}

bool quic_pmtud_lost(struct sock *sk, u8 space, const struct quic_sent_meta *m)
{
	struct quic_plpmtud *p = &quic_sk(sk)->pmtud.search;
	bool probe;

	if (space != QUIC_PN_SPACE_APP)
		return false;
	quic_pmtud_take_ptb(sk);	/* a hint explains losses first */
	probe = quic_plpmtud_is_probe(p, m->pn);
	quic_pmtud_apply(sk, quic_plpmtud_on_lost(p, m->pn, m->size,
						  quic_now()));
	return probe;
}

void quic_pmtud_pto(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	quic_pmtud_take_ptb(sk);
	if (qs->handshake_confirmed)
		quic_pmtud_apply(sk, quic_plpmtud_on_pto(&qs->pmtud.search,
							 qs->ld.pto_count));
}

/* What the ICMP error handler hands each connection to check. */
struct quic_pmtud_ptb {
	const struct quic_udp_sock *us;
	union quic_addr peer;		/* where the quoted packet went */
	u32 size;
	u32 quote_len;
	u8 quote[QUIC_PMTUD_QUOTE];
};

static bool quic_pmtud_peer_eq(const union quic_addr *a,
			       const union quic_addr *b)
{
	if (a->sa.sa_family == AF_INET && b->sa.sa_family == AF_INET)
		return a->v4.sin_port == b->v4.sin_port &&
		       a->v4.sin_addr.s_addr == b->v4.sin_addr.s_addr;
	/* An AF_INET6 socket's IPv4 peer, v4-mapped. */
	if (a->sa.sa_family == AF_INET6 && b->sa.sa_family == AF_INET)
		return a->v6.sin6_port == b->v4.sin_port &&
		       ipv6_addr_v4mapped(&a->v6.sin6_addr) &&
		       a->v6.sin6_addr.s6_addr32[3] == b->v4.sin_addr.s_addr;
	if (a->sa.sa_family == AF_INET6 && b->sa.sa_family == AF_INET6)
		return a->v6.sin6_port == b->v6.sin6_port &&
		       ipv6_addr_equal(&a->v6.sin6_addr, &b->v6.sin6_addr);
	return false;
}

/*
 * proc.c's walk over every socket: a connection of this tunnel socket to
 * the address the quoted packet went to keeps the hint for its next
 * output, which checks the quoted DCID (RFC 9000 §14.2.1).  Reads of
 * @udp, @peer and the state are snapshots, as /proc's.
 */
static void quic_pmtud_ptb_one(struct sock *sk, void *arg)
{
	const struct quic_pmtud_ptb *h = arg;
	struct quic_sock *qs = quic_sk(sk);
	struct quic_pmtud *pm = &qs->pmtud;
	union quic_addr peer;

	if (READ_ONCE(qs->udp) != h->us ||
	    READ_ONCE(sk->sk_state) != QUIC_SS_ESTABLISHED)
		return;
	memcpy(&peer, &qs->peer, sizeof(peer));
	if (!quic_pmtud_peer_eq(&peer, &h->peer))
		return;
	spin_lock(&pm->lock);
	pm->ptb_size = h->size;
	pm->ptb_quote_len = h->quote_len;
	memcpy(pm->ptb_quote, h->quote, h->quote_len);
	spin_unlock(&pm->lock);
}

/*
 * The kernel's UDP error handler found our tunnel socket for an ICMP
 * error quoting one of its datagrams (net/ipv4/udp.c, net/ipv6/udp.c):
 * skb->data is the quoted IP header, @payload the quoted UDP payload,
 * @info the next-hop MTU of a Packet Too Big / Fragmentation Needed
 * (then @err is EMSGSIZE).  Softirq, RCU.
 */
void quic_pmtud_icmp(struct sock *usk, struct sk_buff *skb, int err,
		     __be16 port, u32 info, u8 *payload)
{
	struct quic_udp_sock *us = rcu_dereference_sk_user_data(usk);
	int off = payload - skb->data;
	struct quic_pmtud_ptb h = {};

	if (err != EMSGSIZE || !us || off <= 0 || off >= skb->len)
		return;
	h.us = us;
	if ((skb->data[0] >> 4) == 4) {
		const struct iphdr *iph = (const struct iphdr *)skb->data;

		h.peer.v4.sin_family = AF_INET;
		h.peer.v4.sin_addr.s_addr = iph->daddr;
		h.peer.v4.sin_port = port;
	} else {
		const struct ipv6hdr *ip6h = (const struct ipv6hdr *)skb->data;

		h.peer.v6.sin6_family = AF_INET6;
		h.peer.v6.sin6_addr = ip6h->daddr;
		h.peer.v6.sin6_port = port;
	}
	/* @off: the quoted IP (and extension) headers and UDP's. */
	if (info <= off || info - off < QUIC_BASE_PLPMTU)
		return;		/* RFC 9000 §14.2.1: under 1200, ignored */
	h.size = info - off;
	h.quote_len = min_t(u32, skb->len - off, sizeof(h.quote));
	if (skb_copy_bits(skb, off, h.quote, h.quote_len) ||
	    !quic_ratelimit_take(&us->ptb, QUIC_PTB_RATE, QUIC_PTB_BURST))
		return;
	quic_proc_for_each(sock_net(usk), quic_pmtud_ptb_one, &h);
}

bool quic_pmtud_is_mtu_opt(int level, int optname)
{
	return (level == SOL_IP && optname == IP_MTU) ||
	       (level == SOL_IPV6 && optname == IPV6_MTU);
}

/*
 * The path MTU the connection uses: its largest datagram with the IP and
 * UDP headers, as IP_MTU reports a connected UDP socket's route MTU.
 * ENOTCONN before the connection has a peer.
 */
int quic_pmtud_get_mtu(struct sock *sk, char __user *optval,
		       int __user *optlen)
{
	struct quic_sock *qs = quic_sk(sk);
	int len, val;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < (int)sizeof(int))
		return -EINVAL;
	lock_sock(sk);
	val = qs->peer.sa.sa_family ?
	      qs->max_datagram + quic_pmtud_overhead(qs) : -1;
	release_sock(sk);
	if (val < 0)
		return -ENOTCONN;
	len = sizeof(int);
	if (put_user(len, optlen) || copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
}

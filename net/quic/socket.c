// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC socket core: life cycle, bind, connect, listen and accept, the
 * handshake data path of sendmsg/recvmsg (QUIC_HANDSHAKE_INFO), poll and
 * address reporting.  One socket is one connection; a listener hands out a
 * new socket per connection on accept().
 */

#include <linux/capability.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "retry.h"
#include "socket.h"
#include "udp.h"

atomic_long_t quic_drops[QUIC_DROP_MAX];
const char *const quic_drop_names[QUIC_DROP_MAX] = {
	[QUIC_DROP_BAD_HEADER]	= "bad_header",
	[QUIC_DROP_UNSUPPORTED]	= "unsupported_packet",
	[QUIC_DROP_NO_KEYS]	= "no_keys",
	[QUIC_DROP_HOLD_FULL]	= "hold_queue_full",
	[QUIC_DROP_DECRYPT]	= "decrypt_failed",
	[QUIC_DROP_DUPLICATE]	= "duplicate",
	[QUIC_DROP_NO_SOCKET]	= "no_socket",
	[QUIC_DROP_LISTEN]	= "listener_refused",
	[QUIC_DROP_BACKLOG]	= "backlog_full",
	[QUIC_DROP_XMIT]	= "xmit_failed",
	[QUIC_DROP_RCVBUF]	= "receive_buffer_full",
	[QUIC_DROP_PENDING]	= "pending_full",
	[QUIC_DROP_OOO_OVERHEAD] = "out_of_order_overhead",
	[QUIC_DROP_CRYPTO_GAPS]	= "crypto_gaps_full",
	[QUIC_DROP_DISPATCH]	= "dispatch_expired",
	[QUIC_DROP_RETRY]	= "retry_ignored",
	[QUIC_DROP_TOKEN]	= "retry_token_invalid",
	[QUIC_DROP_VN_RATE]	= "vn_rate_limited",
	[QUIC_DROP_EARLY]	= "zero_rtt",
	[QUIC_DROP_PATH]	= "path",
	[QUIC_DROP_TRAIN]	= "train",
	[QUIC_DROP_CSUM]	= "checksum",
	[QUIC_DROP_DISPATCH_STALE] = "dispatch_stale",
	[QUIC_DROP_OTHER_SCID] = "other_scid",
	[QUIC_DROP_RETRY_SUPERSEDED] = "retry_superseded",
};

/*
 * Pending connections.
 *
 * A server connection is pending from the moment its first Initial is
 * queued on the listener until its handshake completes (both 1-RTT keys
 * in: quic_conn_established()) or its socket is freed.  The count lives on
 * the UDP tunnel socket that the listener and the connections it accepted
 * share (us->pending): the queued Initial holds the connection's slot
 * first, then the accepted socket (qs->pending).  An Initial is refused
 * when the count has reached min(listen() backlog,
 * net.quic.max_pending_connections), or when the Initials queued would take
 * more than the listener's receive buffer; a refusal allocates nothing (the
 * datagram is freed and counted as drop_pending_full or
 * drop_receive_buffer_full) and takes no lock when quic_udp_deliver()
 * sees the cap reached already.
 *
 * A pending connection closed by its user keeps its slot for its closing
 * period (three PTOs, RFC 9000 section 10.2), since its memory is freed only
 * then: the memory of a listener's pending connections is bounded by the
 * cap times the cost of one.  Measured with /proc/slabinfo in the guest
 * (Debian 6.12, x86_64, 200 connections, pending_test): a queued Initial
 * takes its skb, 2.3 kB for a 1200-byte datagram; an accepted connection
 * 36 kB before the server application writes its handshake flight: the
 * socket (7 kB of quic_sock, 1.2 kB of inode, file and dentry), the Initial
 * keys of both directions (2 x 4 kB of GHASH tables of the synchronous gcm
 * transform, and about 3 kB of other transforms and key state), their
 * request pool (3 slots of 2 kB per direction, crypto.c), the ClientHello
 * queued for the application and the connection IDs.  At the default cap,
 * 256, that is 9 MB per listener.
 */
unsigned int quic_pending_cap(const struct sock *lsk)
{
	return min_t(unsigned int, READ_ONCE(lsk->sk_max_ack_backlog),
		     READ_ONCE(sysctl_quic_max_pending_connections));
}

/* Must the listener @lsk of @us refuse new connections?  No lock needed. */
bool quic_pending_full(const struct quic_udp_sock *us, const struct sock *lsk)
{
	return atomic_read(&us->pending) >= quic_pending_cap(lsk);
}

static void quic_pending_get(struct quic_udp_sock *us)
{
	atomic_inc(&us->pending);
	QUIC_INC_STATS(PENDING, 1);
}

/*
 * A slot for the ALPN dispatcher (dispatch.c), taken without a listener's
 * lock: the increment comes first, so that racing callers never pass @cap
 * together.  False if the count is at @cap.
 */
bool quic_pending_try_get(struct quic_udp_sock *us, unsigned int cap)
{
	if ((unsigned int)atomic_inc_return(&us->pending) > cap) {
		atomic_dec(&us->pending);
		return false;
	}
	QUIC_INC_STATS(PENDING, 1);
	return true;
}

void quic_pending_put(struct quic_udp_sock *us)
{
	WARN_ON_ONCE(atomic_dec_return(&us->pending) < 0);
	QUIC_INC_STATS(PENDING, -1);
}

/*
 * An accepted connection stops being pending: its handshake is complete,
 * or its socket is being freed.  Socket lock held, or the last reference.
 */
void quic_pending_done(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	if (!qs->pending)
		return;
	qs->pending = false;
	quic_pending_put(qs->udp);
}

/*
 * Queue the first Initial of a new connection on the listener @sk (socket
 * lock held), charged to its receive buffer and holding a pending slot.
 * Consumes @skb.
 */
int quic_accept_enqueue(struct sock *sk, struct sk_buff *skb)
{
	struct quic_sock *qs = quic_sk(sk);

	if (quic_pending_full(qs->udp, sk)) {
		QUIC_DROP(sk, PENDING);
		kfree_skb(skb);
		return 0;
	}
	quic_pending_get(qs->udp);
	quic_accept_enqueue_slot(sk, skb);
	return 0;
}

/*
 * Queue an Initial that holds a pending slot already (quic_accept_enqueue(),
 * or the ALPN dispatcher's, whose listeners share the slots of their UDP
 * socket: there, a listener's queue is bounded by its own cap).  Socket
 * lock held.  Consumes @skb.
 */
void quic_accept_enqueue_slot(struct sock *sk, struct sk_buff *skb)
{
	struct quic_sock *qs = quic_sk(sk);

	if (sk->sk_state != QUIC_SS_LISTENING ||
	    skb_queue_len(&qs->accept_queue) >= quic_pending_cap(sk)) {
		QUIC_DROP(sk, PENDING);
		goto drop;
	}
	if ((unsigned int)atomic_read(&sk->sk_rmem_alloc) + skb->truesize >
	    (unsigned int)READ_ONCE(sk->sk_rcvbuf)) {
		QUIC_DROP(sk, RCVBUF);
		goto drop;
	}
	skb_set_owner_r(skb, sk);
	__skb_queue_tail(&qs->accept_queue, skb);
	sk->sk_data_ready(sk);
	return;
drop:
	quic_pending_put(qs->udp);
	kfree_skb(skb);
}

/*
 * The next queued Initial, uncharged from the listener's receive buffer;
 * its pending slot passes to the caller.  Socket lock held.
 */
static struct sk_buff *quic_accept_dequeue(struct sock *sk)
{
	struct sk_buff *skb = __skb_dequeue(&quic_sk(sk)->accept_queue);

	if (skb)
		skb_orphan(skb);
	return skb;
}

/* The listener is going: its queued Initials and their slots with it. */
static void quic_accept_queue_purge(struct sock *sk)
{
	struct sk_buff *skb;

	while ((skb = quic_accept_dequeue(sk))) {
		quic_pending_put(quic_sk(sk)->udp);
		kfree_skb(skb);
	}
}

void quic_obj_charge(struct sock *sk, int delta)
{
	struct quic_sock *qs = quic_sk(sk);

	WRITE_ONCE(qs->omem, qs->omem + delta);
	atomic_add(delta, &sk->sk_omem_alloc);
}

void *quic_obj_alloc(struct sock *sk, size_t size, gfp_t gfp)
{
	void *obj = kzalloc(size, gfp);

	if (obj)
		quic_obj_charge(sk, size);
	return obj;
}

void quic_obj_free(struct sock *sk, void *obj, size_t size)
{
	if (!obj)
		return;
	kfree(obj);
	quic_obj_charge(sk, -(int)size);
}

/*
 * The session ticket (or, on a server, the ticket key) becomes @buf, a
 * kmalloc()ed buffer of @len bytes, or nothing; the old one is wiped.
 */
void quic_ticket_set(struct sock *sk, u8 *buf, u32 len)
{
	struct quic_sock *qs = quic_sk(sk);

	kfree_sensitive(qs->ticket);
	quic_obj_charge(sk, (int)len - (int)qs->ticket_len);
	qs->ticket = buf;
	qs->ticket_len = len;
}

/*
 * A server's ticket key for GnuTLS session tickets, made of random bytes
 * if the user set none, so that getsockopt(QUIC_SOCKOPT_SESSION_TICKET)
 * always gives libquic one.  Process context, socket lock held.
 */
int quic_ticket_key_make(struct sock *sk)
{
	u8 *key;

	if (quic_sk(sk)->ticket_len)
		return 0;
	key = kmalloc(QUIC_TICKET_KEY_LEN, GFP_KERNEL);
	if (!key)
		return -ENOMEM;
	get_random_bytes(key, QUIC_TICKET_KEY_LEN);
	quic_ticket_set(sk, key, QUIC_TICKET_KEY_LEN);
	return 0;
}

/*
 * The ALPN list becomes a copy of @alpn (NULL or "": none).  An idle
 * connection keeps its list in a small object rather than 128 bytes of
 * the socket.  Socket lock held, or the socket not reachable yet.
 */
int quic_alpn_set(struct sock *sk, const char *alpn)
{
	struct quic_sock *qs = quic_sk(sk);
	size_t len = alpn ? strnlen(alpn, QUIC_ALPN_MAX - 1) : 0;
	char *copy = NULL;

	if (len) {
		/* Zeroed: its last byte is the NUL. */
		copy = quic_obj_alloc(sk, len + 1, GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, alpn, len);
	}
	if (qs->alpn)
		quic_obj_free(sk, qs->alpn, strlen(qs->alpn) + 1);
	qs->alpn = copy;
	return 0;
}

/* A client's token (QUIC_SOCKOPT_TOKEN) becomes @buf, or nothing. */
void quic_token_set(struct sock *sk, u8 *buf, u32 len)
{
	struct quic_sock *qs = quic_sk(sk);

	kfree(qs->token);
	quic_obj_charge(sk, (int)len - (int)qs->token_len);
	qs->token = buf;
	qs->token_len = len;
}

int quic_sock_init(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	/* Receive-path lookups run under RCU only (conn_id.c, udp.c). */
	sock_set_flag(sk, SOCK_RCU_FREE);
	WRITE_ONCE(sk->sk_sndbuf, READ_ONCE(sysctl_quic_wmem_default));
	WRITE_ONCE(sk->sk_rcvbuf, READ_ONCE(sysctl_quic_rmem_default));
	memset(&qs->local, 0, sizeof(qs->local));
	memset(&qs->peer, 0, sizeof(qs->peer));
	qs->udp = NULL;
	qs->route_mark = 0;
	qs->route_oif = 0;
	qs->ticket = NULL;
	qs->ticket_len = 0;
	qs->token = NULL;
	qs->token_len = 0;
	qs->peer_tp_saved = NULL;
	qs->local_tp_sent = false;
	qs->omem = 0;
	qs->events = 0;
	qs->close_set = false;
	qs->alpn = NULL;
	memset(&qs->close_info, 0, sizeof(qs->close_info));
	skb_queue_head_init(&qs->hold_queue);
	skb_queue_head_init(&qs->accept_queue);
	qs->pending = false;
	quic_datagram_init(sk);
	quic_conn_init(sk);
	quic_proc_add(sk);
	return dst_cache_init(&qs->dst_cache, GFP_KERNEL);
}

/*
 * The backlog is empty by now: a closed socket defers nothing, and every
 * release_sock() processed it (input.c).  Should that ever not hold, its
 * datagrams are freed rather than lost with the socket.
 */
static void quic_rx_backlog_purge(struct sock *sk)
{
	struct sk_buff *skb, *next;

	spin_lock_bh(&sk->sk_lock.slock);
	skb = quic_rx_backlog_detach(sk);
	spin_unlock_bh(&sk->sk_lock.slock);
	for (; skb; skb = next) {
		next = skb->next;
		skb_mark_not_on_list(skb);
		kfree_skb(skb);
	}
}

void quic_sock_destroy(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);

	quic_proc_del(sk);
	quic_conn_free(sk);
	quic_rx_backlog_purge(sk);
	quic_datagram_free(sk);
	dst_cache_destroy(&qs->dst_cache);
	skb_queue_purge(&qs->hold_queue);
	quic_ticket_set(sk, NULL, 0);
	quic_token_set(sk, NULL, 0);
	quic_alpn_set(sk, NULL);
	quic_obj_free(sk, qs->peer_tp_saved, sizeof(*qs->peer_tp_saved));
	qs->peer_tp_saved = NULL;
	/* Every charged object is gone with the connection. */
	WARN_ON_ONCE(qs->omem);
	if (qs->udp) {
		/* Pending slots go back before the tunnel they count on. */
		quic_accept_queue_purge(sk);
		quic_pending_done(sk);
		quic_udp_sock_put(qs->udp);
		qs->udp = NULL;
	}
}

void quic_sock_close(struct sock *sk, long timeout)
{
	struct quic_sock *qs = quic_sk(sk);

	lock_sock(sk);
	/* No reader any more: nothing is left for one (input.c). */
	clear_bit(QUIC_RX_WAIT_RECV, &qs->deferred);
	clear_bit(QUIC_RX_WAIT_POLL, &qs->deferred);
	if (sk->sk_state == QUIC_SS_LISTENING && qs->udp)
		quic_udp_set_listener(qs->udp, sk, false);
	/*
	 * As with TCP, data written before close() is still delivered: the
	 * connection sends it, then closes (quic_conn_close_pending()); the
	 * idle timeout bounds how long.  SO_LINGER with a zero timeout closes
	 * at once.
	 */
	if (sk->sk_state == QUIC_SS_ESTABLISHED && quic_streams_unacked(sk) &&
	    !(sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime)) {
		qs->close_pending = true;
		sk->sk_shutdown = SHUTDOWN_MASK;
		sock_orphan(sk);
		release_sock(sk);
		return;
	}
	quic_conn_close_user(sk);
	sk->sk_shutdown = SHUTDOWN_MASK;
	if (sk->sk_state == QUIC_SS_CLOSING ||
	    sk->sk_state == QUIC_SS_DRAINING) {
		/*
		 * The closing or draining period (RFC 9000 §10.2) outlives the
		 * user's socket: the connection stays findable by its IDs and
		 * answers with CONNECTION_CLOSE; the close timer releases it.
		 */
		sock_orphan(sk);
		release_sock(sk);
		return;
	}
	quic_set_state(sk, QUIC_SS_CLOSED);
	release_sock(sk);

	/* Calls ->destroy(), ->unhash() and drops the last reference. */
	sk_common_release(sk);
}

/* QUIC sockets are found by connection ID, not by the inet hash tables. */
int quic_sock_hash(struct sock *sk)
{
	return 0;
}

void quic_sock_unhash(struct sock *sk)
{
}

/*
 * Validate a user address for this socket's family and copy it into @out.
 * The rules follow inet_bind() and inet6_bind(): short lengths are -EINVAL,
 * a foreign family is -EAFNOSUPPORT.  As on TCP's dual-stack sockets, an
 * AF_INET6 socket also takes a struct sockaddr_in, as its v4-mapped
 * address, unless it is IPV6_V6ONLY (-EAFNOSUPPORT, as a v4-mapped
 * address is -EINVAL there).
 */
static int quic_addr_from_user(struct sock *sk, const struct sockaddr *addr,
			       int addr_len, union quic_addr *out)
{
	struct sockaddr_in sin;

	memset(out, 0, sizeof(*out));

	if (!addr || addr_len < (int)sizeof(addr->sa_family))
		return -EINVAL;

	if (sk->sk_family == AF_INET || addr->sa_family == AF_INET) {
		if (addr_len < (int)sizeof(struct sockaddr_in))
			return -EINVAL;
		if (addr->sa_family != AF_INET)
			return -EAFNOSUPPORT;
		memcpy(&sin, addr, sizeof(sin));
		if (sk->sk_family == AF_INET) {
			out->v4.sin_family = AF_INET;
			out->v4.sin_port = sin.sin_port;
			out->v4.sin_addr = sin.sin_addr;
			return 0;
		}
		if (ipv6_only_sock(sk))
			return -EAFNOSUPPORT;
		out->v6.sin6_family = AF_INET6;
		out->v6.sin6_port = sin.sin_port;
		ipv6_addr_set_v4mapped(sin.sin_addr.s_addr, &out->v6.sin6_addr);
		return 0;
	}

	if (addr_len < SIN6_LEN_RFC2133)
		return -EINVAL;
	if (addr->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	memcpy(&out->v6, addr, SIN6_LEN_RFC2133);
	if (ipv6_addr_v4mapped(&out->v6.sin6_addr) && ipv6_only_sock(sk))
		return -EINVAL;
	return 0;
}

/*
 * A dual-stack socket's peer at a v4-mapped address is an IPv4 peer, as
 * an accepted connection's is (its packets leave over IPv4).
 */
static void quic_addr_unmap(union quic_addr *a)
{
	__be16 port;
	__be32 v4;

	if (a->sa.sa_family != AF_INET6 || !ipv6_addr_v4mapped(&a->v6.sin6_addr))
		return;
	port = a->v6.sin6_port;
	v4 = a->v6.sin6_addr.s6_addr32[3];
	memset(a, 0, sizeof(*a));
	a->v4.sin_family = AF_INET;
	a->v4.sin_port = port;
	a->v4.sin_addr.s_addr = v4;
}

static int __quic_sock_bind(struct sock *sk, union quic_addr *addr)
{
	struct quic_sock *qs = quic_sk(sk);
	struct net *net = sock_net(sk);
	struct quic_udp_sock *us;
	unsigned short port;

	sock_owned_by_me(sk);

	if (quic_is_bound(sk))
		return -EINVAL;

	/* The UDP socket is a kernel socket, so it skips this check for us. */
	port = ntohs(quic_addr_port(addr));
	if (port && inet_port_requires_bind_service(net, port) &&
	    !ns_capable(net->user_ns, CAP_NET_BIND_SERVICE))
		return -EACCES;

	us = quic_udp_sock_get(sk, addr);
	if (IS_ERR(us))
		return PTR_ERR(us);

	qs->udp = us;
	qs->local = us->addr;
	inet_sk(sk)->inet_sport = quic_addr_port(&us->addr);
	inet_sk(sk)->inet_num = ntohs(inet_sk(sk)->inet_sport);
	return 0;
}

int quic_sock_bind(struct sock *sk, struct sockaddr *addr, int addr_len)
{
	union quic_addr a;
	int err;

	err = quic_addr_from_user(sk, addr, addr_len, &a);
	if (err)
		return err;

	lock_sock(sk);
	err = __quic_sock_bind(sk, &a);
	release_sock(sk);
	return err;
}

/*
 * A server socket of no listener, on @us: the ALPN dispatcher's refusals.
 * Nothing else reaches @sk yet.  -ENOENT if @us is going.
 */
int quic_sock_attach_udp(struct sock *sk, struct quic_udp_sock *us)
{
	struct quic_sock *qs = quic_sk(sk);

	if (!refcount_inc_not_zero(&us->refcnt))
		return -ENOENT;
	qs->udp = us;
	qs->local = us->addr;
	inet_sk(sk)->inet_sport = quic_addr_port(&us->addr);
	inet_sk(sk)->inet_num = ntohs(inet_sk(sk)->inet_sport);
	return 0;
}

/* connect() and listen() on an unbound socket: wildcard address, any port. */
int quic_sock_bind_any(struct sock *sk)
{
	union quic_addr a = {};

	if (quic_is_bound(sk))
		return 0;
	a.sa.sa_family = sk->sk_family;
	return __quic_sock_bind(sk, &a);
}

static bool quic_is_live(const struct sock *sk)
{
	return sk->sk_state == QUIC_SS_CONNECTING ||
	       sk->sk_state == QUIC_SS_ESTABLISHED;
}

/*
 * The sendmsg() flags taken: the stream flags and MSG_QUIC_DATAGRAM (also
 * in QUIC_STREAM_INFO), MSG_DONTWAIT, MSG_NOSIGNAL (this socket never
 * raises SIGPIPE) and MSG_WAITALL (io_uring passes it; a blocking send
 * takes all anyway).  The kernel's own callers add MSG_SPLICE_PAGES and
 * MSG_MORE (splice(2), sendfile(2), kernel_sendmsg() users), MSG_BATCH
 * (sendmmsg(2)) and MSG_CMSG_COMPAT: the data is copied from the pages
 * as from any iterator, and the two hints leave the coalescing of
 * small writes as it is (stream_send.c).  Anything else (MSG_OOB,
 * MSG_EOR, MSG_ZEROCOPY, MSG_DONTROUTE ...) is not done: -EOPNOTSUPP.
 */
#define QUIC_SEND_FLAGS							\
	(MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN | MSG_QUIC_STREAM_UNI |	\
	 MSG_QUIC_STREAM_DONTWAIT | MSG_QUIC_STREAM_SNDBLOCK |		\
	 MSG_QUIC_DATAGRAM | MSG_DONTWAIT | MSG_NOSIGNAL | MSG_WAITALL |	\
	 MSG_MORE | MSG_SPLICE_PAGES | MSG_BATCH | MSG_CMSG_COMPAT)

/*
 * The cmsgs of a sendmsg(); -EINVAL for anything malformed, and for any
 * but the two of SOL_QUIC: what other levels ask (IP_TOS, SO_MARK,
 * SCM_RIGHTS, SOL_TLS record types ...) is not done per message here.
 */
static int quic_parse_cmsgs(struct msghdr *msg, int *level,
			    struct quic_stream_info *sinfo, bool *has_sinfo)
{
	struct cmsghdr *cmsg;

	*level = -1;
	*has_sinfo = false;
	for_each_cmsghdr(cmsg, msg) {
		if (!CMSG_OK(msg, cmsg) || cmsg->cmsg_level != SOL_QUIC)
			return -EINVAL;
		switch (cmsg->cmsg_type) {
		case QUIC_HANDSHAKE_INFO: {
			struct quic_handshake_info *hi = CMSG_DATA(cmsg);

			if (cmsg->cmsg_len != CMSG_LEN(sizeof(*hi)))
				return -EINVAL;
			*level = hi->crypto_level;
			break;
		}
		case QUIC_STREAM_INFO:
			if (cmsg->cmsg_len != CMSG_LEN(sizeof(*sinfo)))
				return -EINVAL;
			memcpy(sinfo, CMSG_DATA(cmsg), sizeof(*sinfo));
			/* The flags sendmsg() takes, and no others. */
			if (sinfo->stream_flags & ~QUIC_SEND_FLAGS)
				return -EINVAL;
			*has_sinfo = true;
			break;
		default:
			return -EINVAL;
		}
	}
	return 0;
}

int quic_sock_sendmsg(struct sock *sk, struct msghdr *msg, size_t len)
{
	struct quic_stream_info sinfo;
	bool has_sinfo;
	int level, err;
	u32 flags;

	if (msg->msg_flags & ~QUIC_SEND_FLAGS)
		return -EOPNOTSUPP;
	err = quic_parse_cmsgs(msg, &level, &sinfo, &has_sinfo);
	if (err)
		return err;
	/* The stream flags and the message flags, ORed together. */
	flags = msg->msg_flags | (has_sinfo ? sinfo.stream_flags : 0);

	lock_sock(sk);
	err = sock_error(sk);
	if (err)
		goto out;
	err = -ENOTCONN;
	if (qs_never_connected(sk))
		goto out;
	err = -EPIPE;
	if (!quic_is_live(sk))
		goto out;
	if (level >= 0) {
		err = quic_crypto_frames_write(sk, level, msg, len);
		if (err >= 0)
			quic_output(sk);
		goto out;
	}
	if (flags & MSG_QUIC_DATAGRAM) {
		err = quic_datagram_sendmsg(sk, msg, len, flags);
		goto out;
	}
	/* Streams wait for 1-RTT, unless 0-RTT (early_data.c). */
	err = quic_early_data_send_check(sk);
	if (err)
		goto out;
	err = -EPIPE;
	if (sk->sk_shutdown & SEND_SHUTDOWN)
		goto out;
	/* No QUIC_STREAM_INFO: the stream of the last send, or a new one. */
	if (!has_sinfo)
		sinfo.stream_id = quic_sk(sk)->streams.last_send_id;
	err = quic_stream_sendmsg(sk, msg, len, sinfo.stream_id, flags);
out:
	release_sock(sk);
	return err;
}

static int quic_put_rcv_cmsg(struct msghdr *msg, const struct quic_rcv_cb *cb)
{
	if (cb->kind == QUIC_RCV_HANDSHAKE) {
		struct quic_handshake_info hi = { .crypto_level = cb->level };

		return put_cmsg(msg, SOL_QUIC, QUIC_HANDSHAKE_INFO,
				sizeof(hi), &hi);
	}
	if (cb->kind == QUIC_RCV_EVENT)
		msg->msg_flags |= MSG_QUIC_NOTIFICATION;
	if (cb->kind == QUIC_RCV_DATAGRAM)
		msg->msg_flags |= MSG_QUIC_DATAGRAM;
	return 0;
}

/* Anything for recvmsg(): handshake data and events, or stream data? */
static bool quic_rcv_ready(const struct sock *sk)
{
	return !skb_queue_empty_lockless(&sk->sk_receive_queue) ||
	       quic_early_data_stream_readable(sk);
}

/*
 * The peer's CONNECTION_CLOSE event is the last thing a reader gets: the
 * stream data that arrived before it is read first, as TCP's data comes
 * before its end of file, although events otherwise go ahead of data.
 */
static bool quic_rcv_close_event(const struct sk_buff *skb)
{
	return QUIC_RCV_CB(skb)->kind == QUIC_RCV_EVENT && skb->len &&
	       skb->data[0] == QUIC_EVENT_CONNECTION_CLOSE;
}

int quic_sock_recvmsg(struct sock *sk, struct msghdr *msg, size_t len,
		      int flags, int *addr_len)
{
	struct sk_buff *skb;
	bool event;
	long timeo;
	int err, copy;

	/*
	 * MSG_CMSG_CLOEXEC is for SCM_RIGHTS, which never comes here: the
	 * socket layer may pass it, and it changes nothing.
	 */
	if (flags & ~(MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC | MSG_CMSG_COMPAT |
		      MSG_WAITALL | MSG_NOSIGNAL | MSG_CMSG_CLOEXEC))
		return -EOPNOTSUPP;

	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	for (;;) {
		/* What was left to the reader, first (input.c). */
		sk_flush_backlog(sk);
		skb = skb_peek(&sk->sk_receive_queue);
		if (skb && quic_rcv_close_event(skb) &&
		    quic_early_data_stream_readable(sk))
			skb = NULL;
		if (skb || quic_early_data_stream_readable(sk))
			break;
		err = sock_error(sk);
		if (err)
			goto out;
		if (!quic_is_live(sk) || (sk->sk_shutdown & RCV_SHUTDOWN)) {
			/* Never connected: ENOTCONN; the connection ended: EOF. */
			err = qs_never_connected(sk) ? -ENOTCONN : 0;
			goto out;
		}
		err = -EAGAIN;
		if (!timeo)
			goto out;
		quic_rx_wait(sk, &timeo);
		err = sock_intr_errno(timeo);
		if (signal_pending(current))
			goto out;
	}
	if (!skb) {
		err = quic_stream_recvmsg(sk, msg, len, flags);
		goto out;
	}

	copy = min_t(size_t, len, skb->len);
	err = skb_copy_datagram_msg(skb, 0, msg, copy);
	if (err)
		goto out;
	err = quic_put_rcv_cmsg(msg, QUIC_RCV_CB(skb));
	if (err)
		goto out;
	/*
	 * An event or an RFC 9221 datagram is a record, read as a UDP
	 * datagram is: a buffer too short
	 * for it gets its start, MSG_TRUNC in msg_flags, and the rest is
	 * dropped; with MSG_TRUNC in @flags the call returns its full length.
	 * Handshake data is a byte stream per level: what does not fit stays
	 * for the next call, with no MSG_TRUNC.
	 */
	event = QUIC_RCV_CB(skb)->kind == QUIC_RCV_EVENT ||
		QUIC_RCV_CB(skb)->kind == QUIC_RCV_DATAGRAM;
	err = copy;
	if (event && copy < skb->len) {
		msg->msg_flags |= MSG_TRUNC;
		if (flags & MSG_TRUNC)
			err = skb->len;
	}
	if (!(flags & MSG_PEEK)) {
		if (copy < skb->len && !event) {
			/* The rest stays for the next call. */
			skb_pull(skb, copy);
			QUIC_RCV_CB(skb)->offset += copy;
		} else {
			__skb_unlink(skb, &sk->sk_receive_queue);
			kfree_skb(skb);
		}
	}
out:
	release_sock(sk);
	return err;
}

int quic_inet_bind(struct socket *sock, struct sockaddr *addr, int addr_len)
{
	return quic_sock_bind(sock->sk, addr, addr_len);
}

int quic_inet_connect(struct socket *sock, struct sockaddr *addr,
		      int addr_len, int flags)
{
	struct sock *sk = sock->sk;
	union quic_addr peer;
	int err;

	err = quic_addr_from_user(sk, addr, addr_len, &peer);
	if (err)
		return err;
	quic_addr_unmap(&peer);

	lock_sock(sk);
	err = -EISCONN;
	if (quic_is_live(sk))
		goto out;
	err = -EINVAL;
	if (sk->sk_state == QUIC_SS_LISTENING || qs_was_connected(sk))
		goto out;
	/*
	 * A server's settings taken before connect() (sockopt.c): a client
	 * may not send a stateless_reset_token (RFC 9000 §18.2), and has no
	 * peers' addresses to validate with a Retry.
	 */
	if (quic_tp_has(&quic_sk(sk)->local_tp, QUIC_TPB_STATELESS_RESET_TOKEN) ||
	    quic_sk(sk)->config.validate_peer_address)
		goto out;
	err = quic_sock_bind_any(sk);
	if (err)
		goto out;
	err = quic_conn_connect(sk, &peer);
	if (!err)
		sock->state = SS_CONNECTING;
out:
	release_sock(sk);
	return err;
}

int quic_inet_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;
	int err;

	lock_sock(sk);
	err = -EINVAL;
	if (quic_is_live(sk) || qs_was_connected(sk))
		goto out;
	WRITE_ONCE(sk->sk_max_ack_backlog, max(backlog, 1));
	if (sk->sk_state == QUIC_SS_LISTENING) {
		err = 0;
		goto out;
	}
	err = quic_sock_bind_any(sk);
	if (err)
		goto out;
	err = quic_udp_set_listener(quic_sk(sk)->udp, sk, true);
	if (!err)
		quic_set_state(sk, QUIC_SS_LISTENING);
out:
	release_sock(sk);
	return err;
}

/* A new QUIC socket, of the listener's kind, grafted onto @newsock. */
static struct sock *quic_accept_sock(struct sock *lsk, struct socket *newsock,
				     bool kern)
{
	struct socket *tmp;
	struct sock *newsk;
	int err;

	err = __sock_create(sock_net(lsk), lsk->sk_family, lsk->sk_type,
			    IPPROTO_QUIC, &tmp, kern);
	if (err)
		return ERR_PTR(err);
	/*
	 * Move the new sock to @newsock before the temporary socket goes, so
	 * its wait queue and sk_socket never point at freed memory.
	 */
	newsk = tmp->sk;
	sock_graft(newsk, newsock);
	tmp->sk = NULL;
	sock_release(tmp);
	return newsk;
}

/*
 * Make @newsk the connection whose first Initial is @skb, which holds a
 * pending slot.  Called with the listener @lsk locked; returns with it
 * released, so that the new socket's lock is never taken inside the
 * listener's (see LOCKING).  Consumes @skb.
 */
static int quic_accept_one(struct sock *lsk, struct sock *newsk,
			   struct sk_buff *skb, struct socket *newsock)
{
	int err;

	/*
	 * Nothing else reaches the new socket yet (no connection ID in the
	 * table, no timer armed, no file descriptor), so it takes the
	 * listener's settings and the Initial's pending slot without its
	 * own lock.
	 */
	err = quic_conn_inherit(lsk, newsk);
	quic_sk(newsk)->pending = true;
	release_sock(lsk);

	if (err) {
		kfree_skb(skb);
	} else {
		lock_sock(newsk);
		err = quic_conn_accept(newsk, skb);
		release_sock(newsk);
	}
	if (err) {
		/* Its slot goes back when the socket is freed. */
		newsock->sk = NULL;
		newsk->sk_prot->close(newsk, 0);
		return err;
	}
	newsock->state = SS_CONNECTED;
	return 0;
}

/*
 * Wait for a queued Initial; the listener's lock is held, and released
 * while sleeping.  The Initial comes with its pending slot.
 */
static struct sk_buff *quic_accept_wait(struct sock *sk, long *timeo)
{
	struct quic_sock *qs = quic_sk(sk);
	struct sk_buff *skb;

	for (;;) {
		DEFINE_WAIT_FUNC(wait, woken_wake_function);

		if (sk->sk_state != QUIC_SS_LISTENING)
			return ERR_PTR(-EINVAL);
		skb = quic_accept_dequeue(sk);
		if (skb)
			return skb;
		if (!*timeo)
			return ERR_PTR(-EAGAIN);
		add_wait_queue(sk_sleep(sk), &wait);
		sk_wait_event(sk, timeo,
			      !skb_queue_empty(&qs->accept_queue) ||
			      sk->sk_state != QUIC_SS_LISTENING, &wait);
		remove_wait_queue(sk_sleep(sk), &wait);
		if (signal_pending(current))
			return ERR_PTR(sock_intr_errno(*timeo));
	}
}

/*
 * The connection a queued Initial belongs to, if it was accepted since the
 * Initial was queued (a retransmission, or the next datagram of a long
 * ClientHello): with a reference, or NULL.
 */
static struct sock *quic_accept_owner(struct sock *sk, struct sk_buff *skb,
				      struct quic_cid *dcid)
{
	struct quic_hdr hdr;
	struct sock *owner;

	dcid->len = 0;
	if (quic_hdr_parse(skb->data, skb->len, QUIC_SCID_LEN, &hdr))
		return NULL;
	*dcid = hdr.dcid;
	rcu_read_lock();
	owner = quic_cid_lookup(sock_net(sk), hdr.dcid.data, hdr.dcid.len);
	rcu_read_unlock();
	return owner;
}

/*
 * Move the Initials with @dcid queued on the listener @sk (the copies of
 * one accept() took: retransmissions, or the rest of a long ClientHello)
 * to @q, their pending slots given back.  Socket lock held.
 */
static void quic_accept_take_copies(struct sock *sk,
				    const struct quic_cid *dcid,
				    struct sk_buff_head *q)
{
	struct sk_buff *skb, *tmp;
	struct quic_hdr hdr;

	skb_queue_walk_safe(&quic_sk(sk)->accept_queue, skb, tmp) {
		if (quic_hdr_parse(skb->data, skb->len, QUIC_SCID_LEN, &hdr) ||
		    !quic_cid_eq(&hdr.dcid, dcid))
			continue;
		__skb_unlink(skb, &quic_sk(sk)->accept_queue);
		skb_orphan(skb);
		quic_pending_put(quic_sk(sk)->udp);
		__skb_queue_tail(q, skb);
	}
}

/*
 * Must the Initial with @dcid that accept() on @sk took, of no connection,
 * make none?  A stale copy of one accept() made and that ended
 * (dispatch.c) must not, nor one a Retry superseded (retry.c), whose
 * copies still queued go with it.  Counted as dropped.  Socket lock held.
 */
static bool quic_accept_superseded(struct sock *sk,
				   const struct quic_cid *dcid)
{
	struct quic_udp_sock *us = quic_sk(sk)->udp;
	struct sk_buff_head q;
	struct sk_buff *skb;

	if (quic_dispatch_stale(&us->dispatch, sk, dcid)) {
		QUIC_DROP(sk, DISPATCH_STALE);
		return true;
	}
	if (!quic_retry_superseded(us, dcid))
		return false;
	QUIC_DROP(sk, RETRY_SUPERSEDED);
	__skb_queue_head_init(&q);
	quic_accept_take_copies(sk, dcid, &q);
	while ((skb = __skb_dequeue(&q))) {
		QUIC_DROP(sk, RETRY_SUPERSEDED);
		kfree_skb(skb);
	}
	return true;
}

/*
 * Is the connection @newsk just accepted from the listener @sk still
 * alive, once it has the datagrams queued behind its first one (the
 * client's close, if it gave up before accept())?  Neither lock is held;
 * they are taken one after the other.  A connection the peer closed is
 * not handed out (API.md): accept() drops it and waits for the next.
 */
static bool quic_accept_alive(struct sock *sk, struct sock *newsk)
{
	struct sk_buff_head q;
	struct sk_buff *skb;
	bool alive;

	__skb_queue_head_init(&q);
	lock_sock(sk);
	quic_early_data_accepting(sk, NULL);
	quic_accept_take_copies(sk, &quic_sk(newsk)->odcid, &q);
	release_sock(sk);

	lock_sock(newsk);
	while ((skb = __skb_dequeue(&q)))
		quic_input(newsk, skb);
	alive = quic_is_live(newsk);
	release_sock(newsk);
	return alive;
}

int quic_inet_accept(struct socket *sock, struct socket *newsock,
		     struct proto_accept_arg *arg)
{
	struct sock *sk = sock->sk, *owner, *newsk;
	struct quic_cid dcid;
	struct sk_buff *skb;
	long timeo;

	timeo = sock_rcvtimeo(sk, arg->flags & O_NONBLOCK);
	for (;;) {
		lock_sock(sk);
		skb = quic_accept_wait(sk, &timeo);
		if (IS_ERR(skb)) {
			release_sock(sk);
			return PTR_ERR(skb);
		}
		owner = quic_accept_owner(sk, skb, &dcid);
		if (!owner && dcid.len && quic_accept_superseded(sk, &dcid)) {
			quic_pending_put(quic_sk(sk)->udp);
			release_sock(sk);
			kfree_skb(skb);
			continue;
		}
		if (!owner) {
			newsk = quic_accept_sock(sk, newsock, arg->kern);
			if (IS_ERR(newsk)) {
				quic_pending_put(quic_sk(sk)->udp);
				release_sock(sk);
				kfree_skb(skb);
				return PTR_ERR(newsk);
			}
			quic_early_data_accepting(sk, skb);
			if (!quic_accept_one(sk, newsk, skb, newsock)) {
				/* Copies of its Initial still to come are stale. */
				quic_dispatch_accepted(&quic_sk(sk)->udp->dispatch,
						       sk, &dcid);
				if (quic_accept_alive(sk, newsk))
					return 0;
				/* The client gave up first: wait for another. */
				newsock->sk = NULL;
				newsock->state = SS_UNCONNECTED;
				newsk->sk_prot->close(newsk, 0);
			}
			/* That Initial was bad; the next may be fine. */
			continue;
		}
		/* Not a new connection: its slot goes back. */
		quic_pending_put(quic_sk(sk)->udp);
		release_sock(sk);
		lock_sock(owner);
		quic_input(owner, skb);
		release_sock(owner);
		sock_put(owner);
	}
}

int quic_inet_getname(struct socket *sock, struct sockaddr *addr, int peer)
{
	struct sock *sk = sock->sk;
	const union quic_addr *a;
	int len;

	lock_sock(sk);
	if (peer && !quic_is_live(sk)) {
		release_sock(sk);
		return -ENOTCONN;
	}
	a = peer ? &quic_sk(sk)->peer : &quic_sk(sk)->local;
	if (sk->sk_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)addr;

		len = sizeof(*sin);
		memset(sin, 0, len);
		sin->sin_family = AF_INET;
		if (a->sa.sa_family == AF_INET) {
			sin->sin_addr = a->v4.sin_addr;
			sin->sin_port = a->v4.sin_port;
		}
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)addr;

		len = sizeof(*sin6);
		memset(sin6, 0, len);
		sin6->sin6_family = AF_INET6;
		if (a->sa.sa_family == AF_INET6) {
			sin6->sin6_addr = a->v6.sin6_addr;
			sin6->sin6_port = a->v6.sin6_port;
			sin6->sin6_scope_id = a->v6.sin6_scope_id;
		} else if (a->sa.sa_family == AF_INET) {
			ipv6_addr_set_v4mapped(a->v4.sin_addr.s_addr,
					       &sin6->sin6_addr);
			sin6->sin6_port = a->v4.sin_port;
		}
	}
	release_sock(sk);
	return len;
}

__poll_t quic_inet_poll(struct file *file, struct socket *sock,
			struct poll_table_struct *wait)
{
	struct sock *sk = sock->sk;
	__poll_t mask = 0;
	int state;

	sock_poll_wait(file, sock, wait);
	/* What was left to the reader is processed first (input.c). */
	quic_rx_poll_drain(sk);
	state = inet_sk_state_load(sk);

	if (state == QUIC_SS_LISTENING)
		return skb_queue_empty_lockless(&quic_sk(sk)->accept_queue) ?
		       0 : EPOLLIN | EPOLLRDNORM;

	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (quic_rcv_ready(sk))
		mask |= EPOLLIN | EPOLLRDNORM;
	else if (state == QUIC_SS_CONNECTING || state == QUIC_SS_ESTABLISHED)
		quic_rx_poll_wait(sk, wait);	/* the next datagram is ours */
	if (state == QUIC_SS_CLOSED && qs_never_connected(sk))
		return mask | EPOLLHUP;
	if (state == QUIC_SS_CONNECTING ||
	    (state == QUIC_SS_ESTABLISHED && quic_streams_writable(sk)))
		return mask | EPOLLOUT | EPOLLWRNORM;
	if (state == QUIC_SS_ESTABLISHED &&
	    !(READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN)) {
		if (sk->sk_socket) {
			set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
			/*
			 * Send buffer freed after the test above, before the
			 * bit was set, woke nobody (quic_stream_free_acked()
			 * wakes only on the bit): look again, as tcp_poll().
			 */
			smp_mb__after_atomic();
			if (quic_streams_writable(sk))
				mask |= EPOLLOUT | EPOLLWRNORM;
		}
		return mask;
	}
	/*
	 * The connection is over (closed by either end, or timed out): as
	 * on a TCP socket whose both directions are shut down, reads end
	 * (EOF or the error) and writes fail at once (EPIPE), so pollers of
	 * either kind wake and learn it: POLLHUP with POLLIN and POLLOUT.
	 */
	return mask | EPOLLIN | EPOLLRDNORM | EPOLLRDHUP | EPOLLHUP |
	       EPOLLOUT | EPOLLWRNORM;
}

/*
 * shutdown(): QUIC has no half-close of a connection (streams have FIN),
 * so any direction closes the connection as close() would, with the code
 * of QUIC_SOCKOPT_CONNECTION_CLOSE, while the socket stays open to read
 * what was received.
 */
int quic_inet_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	int err = 0;

	how++;
	if (!how || (how & ~SHUTDOWN_MASK))
		return -EINVAL;
	lock_sock(sk);
	if (!quic_is_live(sk)) {
		err = -ENOTCONN;
		goto out;
	}
	quic_conn_close_user(sk);
	sk->sk_shutdown = SHUTDOWN_MASK;
	sk->sk_state_change(sk);
	sk->sk_write_space(sk);
out:
	release_sock(sk);
	return err;
}

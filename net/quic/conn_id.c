// SPDX-License-Identifier: GPL-2.0
/*
 * Connection IDs (RFC 9000 §5.1).
 *
 * The table.  Received packets find their socket by Destination
 * Connection ID, in an rhashtable looked up under RCU from the UDP receive
 * path.  Its key holds the network namespace, so that two namespaces may
 * use the same CID bytes; a zero-length CID is keyed by its UDP port
 * instead, which then serves that one connection.  Entries belong to a
 * socket's quic_cid_set; they leave the table and are freed after a grace
 * period when the socket stops using them.
 *
 * Length.  The CIDs we issue have the length of the UDP port the socket
 * is bound to, fixed when the port is created from the sysctl
 * net.quic.cid_len (0..20, default 8), since a short header does not
 * carry it.  Length 0 is for clients: a port without CIDs cannot listen.
 *
 * Issuing.  Once the handshake is done we keep min(the peer's
 * active_connection_id_limit, QUIC_CID_ISSUE_MAX) CIDs active for the
 * peer, each sent in a NEW_CONNECTION_ID with its stateless reset token
 * (stateless_reset.c) and sent again when lost (output.c's control
 * frames).  A RETIRE_CONNECTION_ID takes the CID out of the table and a
 * replacement is issued.  The application may supply the CIDs (and their
 * tokens) with QUIC_SOCKOPT_CONNECTION_ID_LIST, for QUIC-LB style routing:
 * once it did, only supplied CIDs are issued.  QUIC_SOCKOPT_CONNECTION_ID
 * with dest 0 raises our retire_prior_to: new CIDs are issued, and the old
 * ones stay until the peer retires them (at most 3 * QUIC_CID_ISSUE_MAX).
 *
 * Receiving.  The peer's CIDs are kept, in sequence order, up to our
 * active_connection_id_limit (more is CONNECTION_ID_LIMIT_ERROR after its
 * retire_prior_to was applied, §5.1.1).  retire_prior_to retires the ones
 * below it with RETIRE_CONNECTION_ID; if that was the active one, the
 * lowest remaining becomes active.  quic_cid_next_dcid() moves to the next
 * unused one (migration), retiring the old.  QUIC_EVENT_CONNECTION_ID
 * (dest 1, the active sequence number and the peer's retire_prior_to)
 * tells of each new CID of the peer and each change of the active one.
 */

#include <linux/random.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>

#include "conn_id.h"
#include "frame.h"
#include "socket.h"
#include "udp.h"

int sysctl_quic_cid_len = QUIC_SCID_LEN;

static struct rhashtable quic_cid_table;

static const struct rhashtable_params quic_cid_params = {
	.head_offset		= offsetof(struct quic_scid, node),
	.key_offset		= offsetof(struct quic_scid, key),
	.key_len		= sizeof(struct quic_cid_key),
	.automatic_shrinking	= true,
};

int quic_cid_table_init(void)
{
	int err;

	err = rhashtable_init(&quic_cid_table, &quic_cid_params);
	if (err)
		return err;
	err = quic_sr_init();
	if (err)
		rhashtable_destroy(&quic_cid_table);
	return err;
}

/* Sockets hold module references, so the table is empty by now. */
void quic_cid_table_exit(void)
{
	quic_sr_exit();
	rhashtable_destroy(&quic_cid_table);
}

void quic_cid_set_init(struct quic_cid_set *set)
{
	memset(set, 0, sizeof(*set));
	INIT_LIST_HEAD(&set->scids);
	INIT_LIST_HEAD(&set->dcids);
}

static void quic_cid_scid_del(struct quic_cid_set *set, struct quic_scid *s)
{
	rhashtable_remove_fast(&quic_cid_table, &s->node, quic_cid_params);
	list_del(&s->list);
	set->n_scids--;
	quic_obj_charge(s->sk, -(int)sizeof(*s));
	kfree_rcu(s, rcu);
}

static void quic_cid_dcid_del(struct sock *sk, struct quic_cid_set *set,
			      struct quic_dcid *d)
{
	if (set->active == d)
		set->active = NULL;
	quic_sr_del(d->sr);
	list_del(&d->list);
	set->n_dcids--;
	quic_obj_free(sk, d, sizeof(*d));
}

void quic_cid_set_free(struct sock *sk, struct quic_cid_set *set)
{
	struct quic_scid *s, *stmp;
	struct quic_dcid *d, *dtmp;

	list_for_each_entry_safe(s, stmp, &set->scids, list)
		quic_cid_scid_del(set, s);
	list_for_each_entry_safe(d, dtmp, &set->dcids, list)
		quic_cid_dcid_del(sk, set, d);
	kfree_sensitive(set->supplied);
	set->supplied = NULL;
	set->n_supplied = 0;
}

void quic_cid_random(struct quic_cid *cid, u8 len)
{
	memset(cid, 0, sizeof(*cid));
	cid->len = len;
	get_random_bytes(cid->data, len);
}

/* The CID length of @sk's port (sysctl net.quic.cid_len if unbound). */
u8 quic_cid_port_len(const struct sock *sk)
{
	const struct quic_udp_sock *us = quic_sk(sk)->udp;

	return us ? us->cid_len : READ_ONCE(sysctl_quic_cid_len);
}

static void quic_cid_key(struct quic_cid_key *key, const struct net *net,
			 const struct quic_udp_sock *us, const u8 *cid, u8 len)
{
	memset(key, 0, sizeof(*key));
	key->scope = len ? (const void *)net : (const void *)us;
	key->cid.len = len;
	memcpy(key->cid.data, cid, len);
}

/* Put @cid in the table for @sk.  -EEXIST if another connection has it. */
static struct quic_scid *quic_cid_insert(struct sock *sk,
					 struct quic_cid_set *set,
					 const struct quic_cid *cid, u64 seq)
{
	struct quic_scid *s;
	int err;

	if (cid->len > QUIC_CID_MAX_LEN)
		return ERR_PTR(-EINVAL);
	s = kzalloc(sizeof(*s), GFP_ATOMIC);
	if (!s)
		return ERR_PTR(-ENOMEM);
	quic_cid_key(&s->key, sock_net(sk), quic_sk(sk)->udp, cid->data,
		     cid->len);
	s->sk = sk;
	s->seq = seq;
	err = rhashtable_lookup_insert_fast(&quic_cid_table, &s->node,
					    quic_cid_params);
	if (err) {
		kfree(s);
		return ERR_PTR(err);
	}
	quic_obj_charge(sk, sizeof(*s));
	list_add_tail(&s->list, &set->scids);
	set->n_scids++;
	return s;
}

/*
 * Make @cid (the client's original DCID, on a server) find @sk too.  It is
 * no CID we issued: it has no sequence number and is never retired.
 */
int quic_cid_add_scid(struct sock *sk, struct quic_cid_set *set,
		      const struct quic_cid *cid)
{
	return PTR_ERR_OR_ZERO(quic_cid_insert(sk, set, cid,
					       QUIC_CID_SEQ_ALIAS));
}

/*
 * Issue our next CID: the next one the application supplied, or a random
 * one (retried on the rare collision).  Returns it, or an ERR_PTR:
 * -ENOSPC when the supplied ones ran out.
 */
static struct quic_scid *quic_cid_issue(struct sock *sk,
					struct quic_cid_set *set)
{
	struct quic_scid *s = ERR_PTR(-EEXIST);
	struct quic_cid cid;
	int tries;

	while (set->supplied && PTR_ERR(s) == -EEXIST) {
		if (!set->n_supplied)
			return ERR_PTR(-ENOSPC);
		cid = set->supplied[0].cid;
		s = quic_cid_insert(sk, set, &cid, set->next_scid_seq);
		if (PTR_ERR(s) == -ENOMEM)
			return s;
		if (!IS_ERR(s))
			memcpy(s->reset_token, set->supplied[0].reset_token,
			       QUIC_STATELESS_RESET_TOKEN_LEN);
		/* Used, or taken by another connection: either way, gone. */
		set->n_supplied--;
		memmove(&set->supplied[0], &set->supplied[1],
			set->n_supplied * sizeof(set->supplied[0]));
		if (!IS_ERR(s))
			goto done;
	}
	for (tries = 0; tries < 4 && PTR_ERR(s) == -EEXIST; tries++) {
		quic_cid_random(&cid, set->scid_len);
		s = quic_cid_insert(sk, set, &cid, set->next_scid_seq);
	}
	if (IS_ERR(s))
		return s;
	if (cid.len)
		quic_sr_token(sock_net(sk), &cid, s->reset_token);
done:
	set->next_scid_seq++;
	set->n_active++;
	return s;
}

/*
 * The first CID of a connection (sequence number 0).  A server announces
 * its token in the stateless_reset_token transport parameter.
 */
int quic_cid_new_scid(struct sock *sk, struct quic_cid_set *set,
		      struct quic_cid *out)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_scid *s;

	set->scid_len = quic_cid_port_len(sk);
	s = quic_cid_issue(sk, set);
	if (IS_ERR(s))
		return PTR_ERR(s);
	*out = s->key.cid;
	if (qs->is_server && out->len) {
		memcpy(qs->local_tp.stateless_reset_token, s->reset_token,
		       QUIC_STATELESS_RESET_TOKEN_LEN);
		quic_tp_mark(&qs->local_tp, QUIC_TPB_STATELESS_RESET_TOKEN);
	}
	return 0;
}

/*
 * A server's CID for its preferred address (RFC 9000 §9.6, sequence
 * number 1): issued like the others, but announced in the
 * preferred_address transport parameter rather than a NEW_CONNECTION_ID.
 */
int quic_cid_issue_pref(struct sock *sk, struct quic_cid *cid, u8 *token)
{
	struct quic_scid *s = quic_cid_issue(sk, &quic_sk(sk)->cids);

	if (IS_ERR(s))
		return PTR_ERR(s);
	*cid = s->key.cid;
	memcpy(token, s->reset_token, QUIC_STATELESS_RESET_TOKEN_LEN);
	return 0;
}

/* Give @d its reset token, findable by the receive path. */
static void quic_cid_dcid_token(struct sock *sk, struct quic_dcid *d,
				const u8 *token)
{
	memcpy(d->reset_token, token, QUIC_STATELESS_RESET_TOKEN_LEN);
	d->has_token = true;
	d->sr = quic_sr_add(sk, token);
}

int quic_cid_add_dcid(struct sock *sk, struct quic_cid_set *set,
		      const struct quic_cid *cid, u64 seq,
		      const u8 *reset_token)
{
	struct quic_dcid *d, *pos;

	d = quic_obj_alloc(sk, sizeof(*d), GFP_ATOMIC);
	if (!d)
		return -ENOMEM;
	d->cid = *cid;
	d->seq = seq;
	if (reset_token)
		quic_cid_dcid_token(sk, d, reset_token);
	/* In sequence order. */
	list_for_each_entry(pos, &set->dcids, list)
		if (pos->seq > seq)
			break;
	list_add_tail(&d->list, &pos->list);
	set->n_dcids++;
	if (!set->active)
		set->active = d;
	return 0;
}

/* RFC 9000 §7.2: the client switches to the CID the server chose. */
void quic_cid_set_first_dcid(struct quic_cid_set *set,
			     const struct quic_cid *cid)
{
	struct quic_dcid *d;

	d = list_first_entry_or_null(&set->dcids, struct quic_dcid, list);
	if (d && !d->seq)
		d->cid = *cid;
}

const struct quic_cid *quic_cid_active_dcid(struct quic_cid_set *set)
{
	return set->active ? &set->active->cid : NULL;
}

const struct quic_cid *quic_cid_first_scid(struct quic_cid_set *set)
{
	struct quic_scid *s;

	list_for_each_entry(s, &set->scids, list)
		if (s->seq != QUIC_CID_SEQ_ALIAS)
			return &s->key.cid;
	return NULL;
}

static struct sock *quic_cid_find(const struct quic_cid_key *key)
{
	struct quic_scid *s;
	struct sock *sk;

	s = rhashtable_lookup(&quic_cid_table, key, quic_cid_params);
	if (!s)
		return NULL;
	/* QUIC sockets are SOCK_RCU_FREE, so @sk is still memory here. */
	sk = s->sk;
	if (!refcount_inc_not_zero(&sk->sk_refcnt))
		return NULL;
	return sk;
}

/*
 * Find the socket a packet with this Destination CID belongs to, with a
 * reference held.  Called under RCU from the receive path.  Not for
 * zero-length CIDs, which only their port knows (quic_cid_lookup_port()).
 */
struct sock *quic_cid_lookup(const struct net *net, const u8 *cid, u8 len)
{
	struct quic_cid_key key;

	if (!len || len > QUIC_CID_MAX_LEN)
		return NULL;
	quic_cid_key(&key, net, NULL, cid, len);
	return quic_cid_find(&key);
}

/* The same, for a packet that came to @us. */
struct sock *quic_cid_lookup_port(const struct quic_udp_sock *us,
				  const u8 *cid, u8 len)
{
	struct quic_cid_key key;

	if (len > QUIC_CID_MAX_LEN)
		return NULL;
	quic_cid_key(&key, us->net, us, cid, len);
	return quic_cid_find(&key);
}

static void quic_cid_event(struct sock *sk)
{
	struct quic_cid_set *set = &quic_sk(sk)->cids;
	struct quic_connection_id_info info = {
		.dest = 1,
		.active = set->active ? (u32)set->active->seq : 0,
		.prior_to = (u32)set->dcid_prior_to,
	};

	quic_event_queue(sk, QUIC_EVENT_CONNECTION_ID, &info, sizeof(info));
}

/* Queue a NEW_CONNECTION_ID or RETIRE_CONNECTION_ID frame. */
static int quic_cid_send_frame(struct sock *sk, const struct quic_frame *f)
{
	u8 raw[64];
	int len;

	len = quic_frame_encode(raw, sizeof(raw), f);
	if (len < 0)
		return len;
	return quic_output_ctrl(sk, QUIC_CRYPTO_APP, raw, len, f->type);
}

static void quic_cid_send_retire(struct sock *sk, u64 seq)
{
	struct quic_frame f = {
		.type = QUIC_FRAME_RETIRE_CONNECTION_ID,
		.retire_seq = seq,
	};

	quic_cid_send_frame(sk, &f);
}

/*
 * Client: the token of the server's first CID, from its transport
 * parameters, once they are in.
 */
static void quic_cid_first_token(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_dcid *d;

	d = list_first_entry_or_null(&qs->cids.dcids, struct quic_dcid, list);
	if (qs->is_server || !d || d->seq || d->has_token ||
	    !quic_tp_has(&qs->peer_tp, QUIC_TPB_STATELESS_RESET_TOKEN))
		return;
	quic_cid_dcid_token(sk, d, qs->peer_tp.stateless_reset_token);
}

/*
 * Before each send: issue CIDs until the peer has as many as it takes.
 * Socket lock held.
 */
void quic_cid_output(struct sock *sk)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_cid_set *set = &qs->cids;
	struct quic_frame f = { .type = QUIC_FRAME_NEW_CONNECTION_ID };
	struct quic_scid *s;
	u64 want;

	if (!qs->handshake_done || !qs->peer_tp_set ||
	    sk->sk_state != QUIC_SS_ESTABLISHED)
		return;
	quic_cid_first_token(sk);
	want = min_t(u64, qs->peer_tp.active_connection_id_limit,
		     QUIC_CID_ISSUE_MAX);
	if (!set->scid_len)
		return;		/* no CIDs to give */
	while (set->n_active < want &&
	       set->n_scids < 3 * QUIC_CID_ISSUE_MAX) {
		s = quic_cid_issue(sk, set);
		if (IS_ERR(s))
			return;
		f.new_cid.seq = s->seq;
		f.new_cid.retire_prior_to = set->scid_prior_to;
		f.new_cid.cid = s->key.cid;
		memcpy(f.new_cid.token, s->reset_token,
		       QUIC_STATELESS_RESET_TOKEN_LEN);
		if (quic_cid_send_frame(sk, &f)) {
			/* Not announced: the peer cannot use it. */
			set->n_active--;
			quic_cid_scid_del(set, s);
			return;
		}
	}
}

/* Retire the peer's CIDs below @prior_to; true if the active one went. */
static bool quic_cid_retire_dcids(struct sock *sk, u64 prior_to)
{
	struct quic_cid_set *set = &quic_sk(sk)->cids;
	struct quic_dcid *d, *tmp;
	bool active = false;

	list_for_each_entry_safe(d, tmp, &set->dcids, list) {
		if (d->seq >= prior_to)
			break;
		quic_cid_send_retire(sk, d->seq);
		active |= set->active == d;
		quic_cid_dcid_del(sk, set, d);
	}
	if (active)
		set->active = list_first_entry_or_null(&set->dcids,
						       struct quic_dcid, list);
	return active;
}

/*
 * §5.1.2: RETIRE_CONNECTION_ID frames waiting to be sent are bounded: a
 * peer that makes us retire faster than we can send (NEW_CONNECTION_ID
 * frames whose retire_prior_to keeps rising) closes with
 * CONNECTION_ID_LIMIT_ERROR.  Those in flight are bounded by the
 * congestion window.
 */
#define QUIC_CID_RETIRE_BACKLOG	64

static bool quic_cid_retire_flood(struct sock *sk)
{
	struct quic_space *space = &quic_sk(sk)->space[QUIC_PN_SPACE_APP];
	struct quic_frame_tx *f;
	unsigned int n = 0;

	list_for_each_entry(f, &space->frames, list)
		if (f->type == QUIC_FRAME_RETIRE_CONNECTION_ID &&
		    ++n > QUIC_CID_RETIRE_BACKLOG)
			return true;
	return false;
}

/* A NEW_CONNECTION_ID frame (RFC 9000 §19.15).  Socket lock held. */
int quic_cid_new_cid_rcv(struct sock *sk, const u64 seq, u64 prior_to,
			 const struct quic_cid *cid, const u8 *token,
			 u32 *terr)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_cid_set *set = &qs->cids;
	struct quic_dcid *d;
	int err;

	/* Not to an endpoint that uses no connection ID. */
	if (set->active && !set->active->cid.len)
		goto violation;
	/* Already retired: retire it again (it was sent before). */
	if (seq < set->dcid_prior_to) {
		quic_cid_send_retire(sk, seq);
		goto check_flood;
	}
	list_for_each_entry(d, &set->dcids, list) {
		/* Sent again: the same; anything else is a violation. */
		if (d->seq == seq) {
			if (!quic_cid_eq(&d->cid, cid) ||
			    (d->has_token &&
			     memcmp(d->reset_token, token,
				    QUIC_STATELESS_RESET_TOKEN_LEN)))
				goto violation;
			return 0;
		}
		if (quic_cid_eq(&d->cid, cid))
			goto violation;
	}
	err = quic_cid_add_dcid(sk, set, cid, seq, token);
	if (err)
		return err;
	if (prior_to > set->dcid_prior_to) {
		set->dcid_prior_to = prior_to;
		quic_cid_retire_dcids(sk, prior_to);
	}
	/* §5.1.1: counted once retire_prior_to took what it retires. */
	if (set->n_dcids > qs->local_tp.active_connection_id_limit)
		goto limit;
	/* A new CID, and maybe a new active one. */
	quic_cid_event(sk);
check_flood:
	if (!quic_cid_retire_flood(sk))
		return 0;
limit:
	*terr = QUIC_TRANSPORT_ERROR_CONNECTION_ID_LIMIT;
	return -EPROTO;

violation:
	*terr = QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
	return -EPROTO;
}

/* A RETIRE_CONNECTION_ID frame (RFC 9000 §19.16).  Socket lock held. */
int quic_cid_retire_rcv(struct sock *sk, u64 seq, u32 *terr)
{
	struct quic_cid_set *set = &quic_sk(sk)->cids;
	struct quic_scid *s;

	/* Only what we issued. */
	if (seq >= set->next_scid_seq) {
		*terr = QUIC_TRANSPORT_ERROR_PROTOCOL_VIOLATION;
		return -EPROTO;
	}
	list_for_each_entry(s, &set->scids, list) {
		if (s->seq != seq)
			continue;
		if (seq >= set->scid_prior_to)
			set->n_active--;
		quic_cid_scid_del(set, s);
		break;
	}
	/* The replacement goes out with what quic_input() sends next. */
	return 0;
}

/*
 * Move to the peer's next unused CID (migration, RFC 9000 §9.5), retiring
 * the one used so far.  Returns the new active CID, or NULL if the peer
 * gave no other (nothing changes then).  Socket lock held.
 */
const struct quic_cid *quic_cid_next_dcid(struct sock *sk)
{
	struct quic_cid_set *set = &quic_sk(sk)->cids;
	struct quic_dcid *old = set->active, *next;

	if (!old || list_is_last(&old->list, &set->dcids))
		return NULL;
	next = list_next_entry(old, list);
	set->active = next;
	quic_cid_send_retire(sk, old->seq);
	quic_cid_dcid_del(sk, set, old);
	quic_cid_event(sk);
	return &next->cid;
}

/* QUIC_SOCKOPT_CONNECTION_ID get.  Socket lock held. */
int quic_cid_sockopt_get(struct sock *sk, struct quic_connection_id_info *i)
{
	struct quic_cid_set *set = &quic_sk(sk)->cids;
	struct quic_scid *s;

	if (!set->active)
		return -ENOTCONN;
	if (i->dest) {
		i->active = set->active->seq;
		i->prior_to = set->dcid_prior_to;
		return 0;
	}
	/* Ours: the lowest one not being retired. */
	i->active = U32_MAX;
	list_for_each_entry(s, &set->scids, list)
		if (s->seq != QUIC_CID_SEQ_ALIAS &&
		    s->seq >= set->scid_prior_to)
			i->active = min_t(u64, i->active, s->seq);
	if (i->active == U32_MAX)
		i->active = set->scid_prior_to;
	i->prior_to = set->scid_prior_to;
	return 0;
}

/* dest 1: use the peer's CID @seq, retiring the one used so far. */
static int quic_cid_switch_dcid(struct sock *sk, u64 seq, u64 prior_to)
{
	struct quic_cid_set *set = &quic_sk(sk)->cids;
	struct quic_dcid *d, *old = set->active;

	if (seq < prior_to)
		return -EINVAL;
	list_for_each_entry(d, &set->dcids, list) {
		if (d->seq != seq)
			continue;
		if (d == old && prior_to <= old->seq)
			return 0;
		set->active = d;
		if (d != old && old->seq >= prior_to) {
			quic_cid_send_retire(sk, old->seq);
			quic_cid_dcid_del(sk, set, old);
		}
		quic_cid_retire_dcids(sk, prior_to);
		quic_cid_event(sk);
		return 0;
	}
	return -EINVAL;
}

/*
 * Use the peer's CID @seq from now on (the preferred address's, 1),
 * retiring the one used so far.  -EINVAL if we have no such CID.
 */
int quic_cid_use_dcid(struct sock *sk, u64 seq)
{
	return quic_cid_switch_dcid(sk, seq, 0);
}

/* QUIC_SOCKOPT_CONNECTION_ID set.  Socket lock held. */
int quic_cid_sockopt_set(struct sock *sk,
			 const struct quic_connection_id_info *i)
{
	struct quic_sock *qs = quic_sk(sk);
	struct quic_cid_set *set = &qs->cids;
	struct quic_scid *s;
	int err;

	if (!qs->handshake_done || sk->sk_state != QUIC_SS_ESTABLISHED)
		return -ENOTCONN;
	if (i->dest) {
		err = quic_cid_switch_dcid(sk, i->active, i->prior_to);
		if (!err)
			quic_output(sk);	/* the RETIRE_CONNECTION_IDs */
		return err;
	}
	/* dest 0: retire ours below prior_to, issue new ones. */
	if (!set->scid_len)
		return -EINVAL;		/* we have none to retire */
	if (i->prior_to <= set->scid_prior_to)
		return i->prior_to == set->scid_prior_to ? 0 : -EINVAL;
	if (i->prior_to > set->next_scid_seq)
		return -EINVAL;
	if (set->n_scids >= 2 * QUIC_CID_ISSUE_MAX)
		return -EBUSY;		/* the peer has not retired the last */
	set->scid_prior_to = i->prior_to;
	set->n_active = 0;
	list_for_each_entry(s, &set->scids, list)
		if (s->seq != QUIC_CID_SEQ_ALIAS && s->seq >= set->scid_prior_to)
			set->n_active++;
	quic_output(sk);
	return 0;
}

/*
 * QUIC_SOCKOPT_CONNECTION_ID_LIST: the CIDs to issue from now on, with
 * their reset tokens, each of the port's CID length; none goes back to
 * random ones.  The socket must be bound.  Socket lock held.
 */
int quic_cid_list_set(struct sock *sk, sockptr_t optval, unsigned int optlen)
{
	struct quic_cid_set *set = &quic_sk(sk)->cids;
	struct quic_connection_id e;
	struct quic_cid_supplied *list = NULL;
	unsigned int i, n;
	u8 len;

	if (optlen % sizeof(e))
		return -EINVAL;
	n = optlen / sizeof(e);
	if (n > QUIC_CID_LIST_MAX)
		return -EINVAL;
	/* A listener issues none: set it on each connection. */
	if (!quic_is_bound(sk) || sk->sk_state == QUIC_SS_LISTENING)
		return -EINVAL;
	len = quic_cid_port_len(sk);
	if (n) {
		list = kcalloc(QUIC_CID_LIST_MAX, sizeof(*list), GFP_KERNEL);
		if (!list)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (copy_from_sockptr_offset(&e, optval, i * sizeof(e),
					     sizeof(e))) {
			kfree_sensitive(list);
			return -EFAULT;
		}
		if (e.len != len || !len || memchr_inv(e.reserved, 0,
						       sizeof(e.reserved))) {
			kfree_sensitive(list);
			return -EINVAL;
		}
		list[i].cid.len = e.len;
		memcpy(list[i].cid.data, e.data, e.len);
		memcpy(list[i].reset_token, e.reset_token,
		       QUIC_STATELESS_RESET_TOKEN_LEN);
	}
	kfree_sensitive(set->supplied);
	set->supplied = list;
	set->n_supplied = n;
	if (qs_was_connected(sk))
		quic_output(sk);
	return 0;
}

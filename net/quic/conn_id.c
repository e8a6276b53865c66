// SPDX-License-Identifier: GPL-2.0
/*
 * Connection-ID table.
 *
 * Received packets find their socket by Destination Connection ID, in an
 * rhashtable looked up under RCU from the UDP receive path.  Entries belong
 * to a socket's quic_cid_set; they leave the table and are freed after a
 * grace period when the socket stops using them.
 */

#include <linux/random.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>

#include "conn_id.h"
#include "socket.h"

static struct rhashtable quic_cid_table;

static const struct rhashtable_params quic_cid_params = {
	.head_offset		= offsetof(struct quic_scid, node),
	.key_offset		= offsetof(struct quic_scid, cid),
	.key_len		= sizeof(struct quic_cid),
	.automatic_shrinking	= true,
};

int quic_cid_table_init(void)
{
	return rhashtable_init(&quic_cid_table, &quic_cid_params);
}

/* Sockets hold module references, so the table is empty by now. */
void quic_cid_table_exit(void)
{
	rhashtable_destroy(&quic_cid_table);
}

void quic_cid_set_init(struct quic_cid_set *set)
{
	INIT_LIST_HEAD(&set->scids);
	INIT_LIST_HEAD(&set->dcids);
	set->next_scid_seq = 0;
	set->n_scids = 0;
	set->n_dcids = 0;
}

void quic_cid_set_free(struct sock *sk, struct quic_cid_set *set)
{
	struct quic_scid *s, *stmp;
	struct quic_dcid *d, *dtmp;

	list_for_each_entry_safe(s, stmp, &set->scids, list) {
		rhashtable_remove_fast(&quic_cid_table, &s->node,
				       quic_cid_params);
		list_del(&s->list);
		kfree_rcu(s, rcu);
	}
	list_for_each_entry_safe(d, dtmp, &set->dcids, list) {
		list_del(&d->list);
		quic_obj_free(sk, d, sizeof(*d));
	}
	set->n_scids = 0;
	set->n_dcids = 0;
}

void quic_cid_random(struct quic_cid *cid, u8 len)
{
	memset(cid, 0, sizeof(*cid));
	cid->len = len;
	get_random_bytes(cid->data, len);
}

/*
 * Make @cid (issued by us, or the client's original DCID on a server) find
 * @sk.  -EEXIST if another connection already uses it.
 */
int quic_cid_add_scid(struct sock *sk, struct quic_cid_set *set,
		      const struct quic_cid *cid)
{
	struct quic_scid *s;
	int err;

	s = kzalloc(sizeof(*s), GFP_ATOMIC);
	if (!s)
		return -ENOMEM;
	s->cid.len = cid->len;
	memcpy(s->cid.data, cid->data, cid->len);
	s->sk = sk;
	s->seq = set->next_scid_seq++;

	err = rhashtable_lookup_insert_fast(&quic_cid_table, &s->node,
					    quic_cid_params);
	if (err) {
		kfree(s);
		return err;
	}
	list_add_tail(&s->list, &set->scids);
	set->n_scids++;
	return 0;
}

/* Issue a fresh random source CID; retried on the rare collision. */
int quic_cid_new_scid(struct sock *sk, struct quic_cid_set *set,
		      struct quic_cid *out)
{
	int tries, err = -EEXIST;

	for (tries = 0; tries < 4 && err == -EEXIST; tries++) {
		quic_cid_random(out, QUIC_SCID_LEN);
		err = quic_cid_add_scid(sk, set, out);
	}
	return err;
}

int quic_cid_add_dcid(struct sock *sk, struct quic_cid_set *set,
		      const struct quic_cid *cid, u64 seq,
		      const u8 *reset_token)
{
	struct quic_dcid *d;

	/* A NEW_CONNECTION_ID sent again takes no second entry. */
	list_for_each_entry(d, &set->dcids, list)
		if (d->seq == seq)
			return 0;
	d = quic_obj_alloc(sk, sizeof(*d), GFP_ATOMIC);
	if (!d)
		return -ENOMEM;
	d->cid = *cid;
	d->seq = seq;
	if (reset_token) {
		memcpy(d->reset_token, reset_token, sizeof(d->reset_token));
		d->has_token = true;
	}
	list_add_tail(&d->list, &set->dcids);
	set->n_dcids++;
	return 0;
}

/* RFC 9000 §7.2: the client switches to the CID the server chose. */
void quic_cid_set_first_dcid(struct quic_cid_set *set,
			     const struct quic_cid *cid)
{
	struct quic_dcid *d;

	d = list_first_entry_or_null(&set->dcids, struct quic_dcid, list);
	if (d)
		d->cid = *cid;
}

const struct quic_cid *quic_cid_active_dcid(struct quic_cid_set *set)
{
	struct quic_dcid *d;

	d = list_first_entry_or_null(&set->dcids, struct quic_dcid, list);
	return d ? &d->cid : NULL;
}

const struct quic_cid *quic_cid_first_scid(struct quic_cid_set *set)
{
	struct quic_scid *s;

	s = list_first_entry_or_null(&set->scids, struct quic_scid, list);
	return s ? &s->cid : NULL;
}

/*
 * Find the socket a packet with this Destination CID belongs to, with a
 * reference held.  Called under RCU from the receive path.
 */
struct sock *quic_cid_lookup(const struct net *net, const u8 *cid, u8 len)
{
	struct quic_cid key;
	struct quic_scid *s;
	struct sock *sk;

	if (len > QUIC_CID_MAX_LEN)
		return NULL;
	memset(&key, 0, sizeof(key));
	key.len = len;
	memcpy(key.data, cid, len);

	s = rhashtable_lookup(&quic_cid_table, &key, quic_cid_params);
	if (!s)
		return NULL;
	/* QUIC sockets are SOCK_RCU_FREE, so @sk is still memory here. */
	sk = s->sk;
	if (!refcount_inc_not_zero(&sk->sk_refcnt))
		return NULL;
	if (!net_eq(sock_net(sk), net)) {
		sock_put(sk);
		return NULL;
	}
	return sk;
}

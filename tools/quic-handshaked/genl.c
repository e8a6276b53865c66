// SPDX-License-Identifier: GPL-2.0
/*
 * The "handshake" generic netlink family (Documentation/netlink/specs/
 * handshake.yaml) over a raw netlink socket: resolve the family and its
 * "tlshd" multicast group, HANDSHAKE_CMD_ACCEPT to take the next request
 * (the kernel installs the socket in our descriptor table and links the
 * request's keyring into our process keyring), HANDSHAKE_CMD_DONE to give
 * it back with the result.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>
#include <linux/handshake.h>

#include "hsd.h"

#define NLA_ALIGNED(len)	NLA_ALIGN(len)
#define HSD_NL_BUF		8192

struct hsd_msg {
	char *buf;
	size_t cap, len;
};

static struct nlattr *put_attr(struct hsd_msg *m, uint16_t type,
			       const void *data, size_t len)
{
	struct nlattr *a;

	if (m->len + NLA_HDRLEN + NLA_ALIGNED(len) > m->cap)
		return NULL;
	a = (struct nlattr *)(m->buf + m->len);
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	memset((char *)a + NLA_HDRLEN + len, 0, NLA_ALIGNED(len) - len);
	m->len += NLA_HDRLEN + NLA_ALIGNED(len);
	return a;
}

static void msg_start(struct hsd_msg *m, void *buf, size_t cap,
		      uint16_t type, uint16_t flags, uint32_t seq, uint8_t cmd)
{
	struct nlmsghdr *nh = buf;
	struct genlmsghdr *gh;

	memset(buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nh->nlmsg_type = type;
	nh->nlmsg_flags = flags;
	nh->nlmsg_seq = seq;
	gh = (struct genlmsghdr *)((char *)buf + NLMSG_HDRLEN);
	gh->cmd = cmd;
	gh->version = 1;
	m->buf = buf;
	m->cap = cap;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
}

static size_t msg_end(struct hsd_msg *m)
{
	((struct nlmsghdr *)m->buf)->nlmsg_len = (uint32_t)m->len;
	return m->len;
}

/* Walk attributes: calls @fn for each well-formed one.  -EINVAL if the
 * run of attributes is malformed.
 */
static int for_each_attr(const char *p, size_t len,
			 int (*fn)(const struct nlattr *a, void *arg), void *arg)
{
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const void *)p;
		size_t alen = a->nla_len, step;
		int err;

		if (alen < NLA_HDRLEN || alen > len)
			return -EINVAL;
		err = fn(a, arg);
		if (err)
			return err;
		step = NLA_ALIGNED(alen);
		if (step >= len)
			return 0;
		p += step;
		len -= step;
	}
	return len ? -EINVAL : 0;
}

static const void *attr_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static size_t attr_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

static int attr_u32(const struct nlattr *a, uint32_t *v)
{
	if (attr_len(a) < 4)
		return -EINVAL;
	memcpy(v, attr_data(a), 4);
	return 0;
}

/* ---- ACCEPT reply ---- */

static int x509_attr(const struct nlattr *a, void *arg)
{
	struct hsd_req *req = arg;
	uint32_t v;

	switch (a->nla_type & NLA_TYPE_MASK) {
	case HANDSHAKE_A_X509_CERT:
		if (attr_u32(a, &v))
			return -EINVAL;
		req->cert = (int32_t)v;
		break;
	case HANDSHAKE_A_X509_PRIVKEY:
		if (attr_u32(a, &v))
			return -EINVAL;
		req->privkey = (int32_t)v;
		break;
	}
	return 0;
}

static int accept_attr(const struct nlattr *a, void *arg)
{
	struct hsd_req *req = arg;
	uint32_t v = 0;
	size_t len;

	switch (a->nla_type & NLA_TYPE_MASK) {
	case HANDSHAKE_A_ACCEPT_SOCKFD:
		if (attr_u32(a, &v))
			return -EINVAL;
		req->sockfd = (int32_t)v;
		break;
	case HANDSHAKE_A_ACCEPT_MESSAGE_TYPE:
		if (attr_u32(a, &req->msg_type))
			return -EINVAL;
		break;
	case HANDSHAKE_A_ACCEPT_TIMEOUT:
		if (attr_u32(a, &req->timeout_ms))
			return -EINVAL;
		break;
	case HANDSHAKE_A_ACCEPT_AUTH_MODE:
		if (attr_u32(a, &req->auth))
			return -EINVAL;
		break;
	case HANDSHAKE_A_ACCEPT_PEER_IDENTITY:
		if (attr_u32(a, &v))
			return -EINVAL;
		if (req->n_peerids < HSD_MAX_PEERIDS)
			req->peerids[req->n_peerids++] = (int32_t)v;
		break;
	case HANDSHAKE_A_ACCEPT_CERTIFICATE:
		/* one certificate is all net/handshake sends */
		return for_each_attr(attr_data(a), attr_len(a), x509_attr, req);
	case HANDSHAKE_A_ACCEPT_PEERNAME:
		len = strnlen(attr_data(a), attr_len(a));
		if (len >= sizeof(req->peername))
			return -EINVAL;
		memcpy(req->peername, attr_data(a), len);
		req->peername[len] = 0;
		req->has_peername = len > 0;
		break;
	}
	return 0;
}

int hsd_parse_accept(const void *payload, size_t len, struct hsd_req *req)
{
	const struct genlmsghdr *gh = payload;
	int err;

	memset(req, 0, sizeof(*req));
	req->sockfd = -1;
	if (len < GENL_HDRLEN || gh->cmd != HANDSHAKE_CMD_ACCEPT)
		return -EINVAL;
	err = for_each_attr((const char *)payload + GENL_HDRLEN,
			    len - GENL_HDRLEN, accept_attr, req);
	if (err)
		return err;
	return req->sockfd >= 0 ? 0 : -EINVAL;
}

int hsd_is_ready(const void *payload, size_t len)
{
	const struct genlmsghdr *gh = payload;

	return len >= GENL_HDRLEN && gh->cmd == HANDSHAKE_CMD_READY;
}

/* ---- DONE ---- */

size_t hsd_genl_build_done(void *buf, size_t cap, uint16_t family,
			   uint32_t seq, int sockfd, unsigned int status,
			   const int32_t *peerids, unsigned int n)
{
	struct hsd_msg m;
	int32_t fd = sockfd;
	uint32_t st = status;
	unsigned int i;

	msg_start(&m, buf, cap, family, NLM_F_REQUEST | NLM_F_ACK, seq,
		  HANDSHAKE_CMD_DONE);
	if (!put_attr(&m, HANDSHAKE_A_DONE_STATUS, &st, 4) ||
	    !put_attr(&m, HANDSHAKE_A_DONE_SOCKFD, &fd, 4))
		return 0;
	for (i = 0; i < n; i++)
		if (!put_attr(&m, HANDSHAKE_A_DONE_REMOTE_AUTH, &peerids[i], 4))
			return 0;
	return msg_end(&m);
}

/* ---- the socket ---- */

static int nl_send(struct hsd_genl *g, const void *buf, size_t len)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	ssize_t n;

	do {
		n = sendto(g->fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to));
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : 0;
}

/*
 * Receive the answer to @seq: a reply of our family (copied to @reply,
 * *reply_len set), or an NLMSG_ERROR (0 for an ACK, else its error).
 * Multicast messages met on the way are skipped.
 */
static int nl_wait(struct hsd_genl *g, uint32_t seq, void *reply,
		   size_t *reply_len)
{
	char buf[HSD_NL_BUF] __attribute__((aligned(8)));

	for (;;) {
		struct nlmsghdr *nh;
		ssize_t n;
		size_t left;

		n = recv(g->fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		left = (size_t)n;
		for (nh = (void *)buf; NLMSG_OK(nh, left); nh = NLMSG_NEXT(nh, left)) {
			if (nh->nlmsg_seq != seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EPROTO;
				return e->error;
			}
			if (reply && reply_len) {
				size_t plen = nh->nlmsg_len - NLMSG_HDRLEN;

				if (plen > *reply_len)
					return -EMSGSIZE;
				memcpy(reply, NLMSG_DATA(nh), plen);
				*reply_len = plen;
				return 1;
			}
		}
	}
}

struct family_info {
	uint16_t id;
	uint32_t grp;
	int have_grp;
};

struct grp_entry {
	uint32_t id;
	int have_id, is_tlshd;
};

static int grp_field(const struct nlattr *a, void *arg)
{
	struct grp_entry *e = arg;

	switch (a->nla_type & NLA_TYPE_MASK) {
	case CTRL_ATTR_MCAST_GRP_ID:
		if (!attr_u32(a, &e->id))
			e->have_id = 1;
		break;
	case CTRL_ATTR_MCAST_GRP_NAME:
		e->is_tlshd = attr_len(a) >= sizeof(HANDSHAKE_MCGRP_TLSHD) &&
			!strcmp(attr_data(a), HANDSHAKE_MCGRP_TLSHD);
		break;
	}
	return 0;
}

static int grp_list_entry(const struct nlattr *a, void *arg)
{
	struct family_info *fi = arg;
	struct grp_entry e = { 0, 0, 0 };

	if (for_each_attr(attr_data(a), attr_len(a), grp_field, &e))
		return -EINVAL;
	if (e.have_id && e.is_tlshd) {
		fi->grp = e.id;
		fi->have_grp = 1;
	}
	return 0;
}

static int family_attr(const struct nlattr *a, void *arg)
{
	struct family_info *fi = arg;

	switch (a->nla_type & NLA_TYPE_MASK) {
	case CTRL_ATTR_FAMILY_ID:
		if (attr_len(a) < 2)
			return -EINVAL;
		memcpy(&fi->id, attr_data(a), 2);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		return for_each_attr(attr_data(a), attr_len(a), grp_list_entry, fi);
	}
	return 0;
}

int hsd_genl_open(struct hsd_genl *g)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	char buf[256] __attribute__((aligned(8)));
	char reply[HSD_NL_BUF] __attribute__((aligned(8)));
	size_t rlen = sizeof(reply), len;
	struct family_info fi = { 0, 0, 0 };
	struct hsd_msg m;
	int err;

	memset(g, 0, sizeof(*g));
	g->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (g->fd < 0)
		return -errno;
	if (bind(g->fd, (struct sockaddr *)&me, sizeof(me)) < 0)
		goto fail;
	g->seq = (uint32_t)getpid() << 8;

	msg_start(&m, buf, sizeof(buf), GENL_ID_CTRL, NLM_F_REQUEST, ++g->seq,
		  CTRL_CMD_GETFAMILY);
	put_attr(&m, CTRL_ATTR_FAMILY_NAME, HANDSHAKE_FAMILY_NAME,
		 sizeof(HANDSHAKE_FAMILY_NAME));
	len = msg_end(&m);
	err = nl_send(g, buf, len);
	if (!err)
		err = nl_wait(g, g->seq, reply, &rlen);
	if (err <= 0) {
		hsd_genl_close(g);
		return err == 0 || err == -ENOENT ? -ENOENT : err;
	}
	if (rlen < GENL_HDRLEN ||
	    for_each_attr(reply + GENL_HDRLEN, rlen - GENL_HDRLEN, family_attr, &fi) ||
	    !fi.id) {
		hsd_genl_close(g);
		return -EPROTO;
	}
	g->family = fi.id;
	g->mcgrp = fi.have_grp ? fi.grp : 0;
	return 0;
fail:
	err = -errno;
	hsd_genl_close(g);
	return err;
}

int hsd_genl_join(struct hsd_genl *g)
{
	int grp = (int)g->mcgrp;

	if (!g->mcgrp)
		return -ENOENT;
	if (setsockopt(g->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp,
		       sizeof(grp)) < 0)
		return -errno;
	return 0;
}

void hsd_genl_close(struct hsd_genl *g)
{
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
}

int hsd_genl_accept(struct hsd_genl *g, struct hsd_req *req)
{
	char buf[64] __attribute__((aligned(8)));
	char reply[HSD_NL_BUF] __attribute__((aligned(8)));
	size_t rlen = sizeof(reply);
	uint32_t class = HANDSHAKE_HANDLER_CLASS_TLSHD;
	struct hsd_msg m;
	int err;

	msg_start(&m, buf, sizeof(buf), g->family, NLM_F_REQUEST, ++g->seq,
		  HANDSHAKE_CMD_ACCEPT);
	put_attr(&m, HANDSHAKE_A_ACCEPT_HANDLER_CLASS, &class, 4);
	err = nl_send(g, buf, msg_end(&m));
	if (err)
		return err;
	err = nl_wait(g, g->seq, reply, &rlen);
	if (err < 0)
		return err;
	if (err == 0)
		return -EPROTO;		/* an ACK without a reply */
	err = hsd_parse_accept(reply, rlen, req);
	if (err && req->sockfd >= 0) {
		close(req->sockfd);
		req->sockfd = -1;
	}
	return err;
}

int hsd_genl_done(struct hsd_genl *g, int sockfd, unsigned int status,
		  const int32_t *peerids, unsigned int n)
{
	char buf[128] __attribute__((aligned(8)));
	size_t len;
	int err;

	len = hsd_genl_build_done(buf, sizeof(buf), g->family, ++g->seq, sockfd,
				  status, peerids, n);
	if (!len)
		return -EMSGSIZE;
	err = nl_send(g, buf, len);
	if (err)
		return err;
	return nl_wait(g, g->seq, NULL, NULL);
}

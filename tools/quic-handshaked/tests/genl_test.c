// SPDX-License-Identifier: GPL-2.0
/* The handshake family's messages: DONE built, ACCEPT replies parsed. */
#include <errno.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>
#include <linux/handshake.h>
#include "hsd.h"
#include "tap.h"

void hsd_log(const char *fmt, ...)
{
	(void)fmt;
}

static char msg[512] __attribute__((aligned(8)));
static size_t len;

static void start(uint8_t cmd)
{
	struct genlmsghdr *gh = (void *)msg;

	memset(msg, 0, sizeof(msg));
	gh->cmd = cmd;
	gh->version = 1;
	len = GENL_HDRLEN;
}

static struct nlattr *attr(uint16_t type, const void *data, size_t dlen)
{
	struct nlattr *a = (void *)(msg + len);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + dlen);
	memcpy(a + 1, data, dlen);
	len += NLA_ALIGN(NLA_HDRLEN + dlen);
	return a;
}

static void u32(uint16_t type, uint32_t v)
{
	attr(type, &v, 4);
}

/* Find attribute @type in a DONE message; its u32 in *v.  Counts them. */
static int done_attr(const char *buf, size_t blen, uint16_t type, uint32_t *v)
{
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;
	int n = 0;

	while (off + NLA_HDRLEN <= blen) {
		const struct nlattr *a = (const void *)(buf + off);

		if (a->nla_type == type) {
			if (!n)
				memcpy(v, a + 1, 4);
			n++;
		}
		off += NLA_ALIGN(a->nla_len);
	}
	return n;
}

int main(void)
{
	char buf[128] __attribute__((aligned(8)));
	int32_t ids[3] = { 11, 22, 33 };
	struct nlmsghdr *nh = (void *)buf;
	struct genlmsghdr *gh = (void *)(buf + NLMSG_HDRLEN);
	struct hsd_req req;
	struct nlattr *nest;
	uint32_t v = 0;
	size_t n, nest_start;
	int i;

	n = hsd_genl_build_done(buf, sizeof(buf), 0x1c, 7, 5, ETIMEDOUT, ids, 3);
	CHECK(n && nh->nlmsg_len == n && nh->nlmsg_type == 0x1c && nh->nlmsg_seq == 7 &&
	      (nh->nlmsg_flags & NLM_F_REQUEST) && gh->cmd == HANDSHAKE_CMD_DONE,
	      "DONE: header");
	CHECK(done_attr(buf, n, HANDSHAKE_A_DONE_STATUS, &v) == 1 && v == ETIMEDOUT,
	      "DONE: status");
	CHECK(done_attr(buf, n, HANDSHAKE_A_DONE_SOCKFD, &v) == 1 && v == 5, "DONE: sockfd");
	CHECK(done_attr(buf, n, HANDSHAKE_A_DONE_REMOTE_AUTH, &v) == 3 && v == 11,
	      "DONE: every remote-auth serial, in order");
	CHECK(hsd_genl_build_done(buf, 40, 0x1c, 7, 5, 0, ids, 3) == 0,
	      "DONE: too small a buffer refused");

	start(HANDSHAKE_CMD_ACCEPT);
	u32(HANDSHAKE_A_ACCEPT_SOCKFD, 9);
	u32(HANDSHAKE_A_ACCEPT_MESSAGE_TYPE, HANDSHAKE_MSG_TYPE_CLIENTHELLO);
	attr(HANDSHAKE_A_ACCEPT_PEERNAME, "server.test", 12);
	u32(HANDSHAKE_A_ACCEPT_TIMEOUT, 4000);
	u32(HANDSHAKE_A_ACCEPT_AUTH_MODE, HANDSHAKE_AUTH_X509);
	nest_start = len;
	nest = attr(HANDSHAKE_A_ACCEPT_CERTIFICATE | NLA_F_NESTED, "", 0);
	u32(HANDSHAKE_A_X509_CERT, 1234);
	u32(HANDSHAKE_A_X509_PRIVKEY, 5678);
	nest->nla_len = (uint16_t)(len - nest_start);
	CHECK(hsd_parse_accept(msg, len, &req) == 0 && req.sockfd == 9 &&
	      req.msg_type == HANDSHAKE_MSG_TYPE_CLIENTHELLO && req.timeout_ms == 4000 &&
	      req.auth == HANDSHAKE_AUTH_X509 && req.cert == 1234 && req.privkey == 5678 &&
	      req.has_peername && !strcmp(req.peername, "server.test"),
	      "ACCEPT: an x509 client request");

	start(HANDSHAKE_CMD_ACCEPT);
	u32(HANDSHAKE_A_ACCEPT_SOCKFD, 3);
	u32(HANDSHAKE_A_ACCEPT_MESSAGE_TYPE, HANDSHAKE_MSG_TYPE_SERVERHELLO);
	u32(HANDSHAKE_A_ACCEPT_AUTH_MODE, HANDSHAKE_AUTH_PSK);
	for (i = 0; i < 7; i++)
		u32(HANDSHAKE_A_ACCEPT_PEER_IDENTITY, 100 + i);
	u32(99, 1);	/* an attribute from a newer kernel: ignored */
	CHECK(hsd_parse_accept(msg, len, &req) == 0 && req.sockfd == 3 &&
	      req.auth == HANDSHAKE_AUTH_PSK && req.n_peerids == HSD_MAX_PEERIDS &&
	      req.peerids[0] == 100 && req.peerids[4] == 104 && !req.has_peername &&
	      !req.timeout_ms && !req.cert, "ACCEPT: psk server, peer ids capped at 5");

	start(HANDSHAKE_CMD_ACCEPT);
	u32(HANDSHAKE_A_ACCEPT_MESSAGE_TYPE, 1);
	CHECK(hsd_parse_accept(msg, len, &req) == -EINVAL, "ACCEPT: no sockfd refused");

	start(HANDSHAKE_CMD_ACCEPT);
	u32(HANDSHAKE_A_ACCEPT_SOCKFD, 3);
	((struct nlattr *)(msg + GENL_HDRLEN))->nla_len = 200;
	CHECK(hsd_parse_accept(msg, len, &req) == -EINVAL, "ACCEPT: attribute past the end refused");

	start(HANDSHAKE_CMD_ACCEPT);
	u32(HANDSHAKE_A_ACCEPT_SOCKFD, 3);
	attr(HANDSHAKE_A_ACCEPT_TIMEOUT, "ab", 2);
	CHECK(hsd_parse_accept(msg, len, &req) == -EINVAL, "ACCEPT: short u32 refused");

	start(HANDSHAKE_CMD_ACCEPT);
	u32(HANDSHAKE_A_ACCEPT_SOCKFD, 3);
	{
		char longname[300];

		memset(longname, 'a', sizeof(longname));
		attr(HANDSHAKE_A_ACCEPT_PEERNAME, longname, sizeof(longname));
	}
	CHECK(hsd_parse_accept(msg, len, &req) == -EINVAL, "ACCEPT: peer name too long refused");

	start(HANDSHAKE_CMD_DONE);
	u32(HANDSHAKE_A_ACCEPT_SOCKFD, 3);
	CHECK(hsd_parse_accept(msg, len, &req) == -EINVAL, "ACCEPT: other command refused");
	CHECK(hsd_parse_accept(msg, 2, &req) == -EINVAL, "ACCEPT: truncated header refused");

	start(HANDSHAKE_CMD_READY);
	u32(HANDSHAKE_A_ACCEPT_HANDLER_CLASS, HANDSHAKE_HANDLER_CLASS_TLSHD);
	CHECK(hsd_is_ready(msg, len) && !hsd_is_ready(msg, 2), "READY recognised");
	return tap_end();
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * For test programs that make libquic's handshake steps themselves instead
 * of a kernel (libquic/tests/handshake_test.c, tests/hostile/peer.c): the
 * crypto level of a SENDMSG step's msghdr, and a RECVMSG step's msghdr
 * filled as recvmsg() on a QUIC socket would.
 */

#ifndef LIBQUIC_TESTS_STEP_MSG_H
#define LIBQUIC_TESTS_STEP_MSG_H

#include <string.h>
#include <sys/socket.h>
#include <linux/quic.h>

/* The level of the QUIC_HANDSHAKE_INFO cmsg of @msg, or -1. */
static inline int step_msg_level(const struct msghdr *msg)
{
	struct cmsghdr *cmsg = CMSG_FIRSTHDR((struct msghdr *)msg);
	struct quic_handshake_info info;

	if (msg->msg_iovlen != 1 || !cmsg || cmsg->cmsg_level != SOL_QUIC ||
	    cmsg->cmsg_type != QUIC_HANDSHAKE_INFO ||
	    cmsg->cmsg_len != CMSG_LEN(sizeof(info)))
		return -1;
	memcpy(&info, CMSG_DATA(cmsg), sizeof(info));
	return info.crypto_level < QUIC_CRYPTO_MAX ? info.crypto_level : -1;
}

/*
 * @len bytes of @data at @level into @msg, with the QUIC_HANDSHAKE_INFO
 * cmsg: the byte count, or -1 if they do not fit.
 */
static inline ssize_t step_msg_fill(struct msghdr *msg, const void *data,
				    size_t len, int level)
{
	struct quic_handshake_info info = { .crypto_level = (__u8)level };
	struct cmsghdr *cmsg;

	if (msg->msg_iovlen != 1 || len > msg->msg_iov[0].iov_len ||
	    msg->msg_controllen < CMSG_SPACE(sizeof(info)))
		return -1;
	memcpy(msg->msg_iov[0].iov_base, data, len);
	cmsg = CMSG_FIRSTHDR(msg);
	cmsg->cmsg_level = SOL_QUIC;
	cmsg->cmsg_type = QUIC_HANDSHAKE_INFO;
	cmsg->cmsg_len = CMSG_LEN(sizeof(info));
	memcpy(CMSG_DATA(cmsg), &info, sizeof(info));
	msg->msg_controllen = CMSG_SPACE(sizeof(info));
	msg->msg_flags = 0;
	return (ssize_t)len;
}

#endif /* LIBQUIC_TESTS_STEP_MSG_H */

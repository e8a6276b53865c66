/* SPDX-License-Identifier: GPL-2.0 */
/* sendmsg() with a SOL_QUIC cmsg, for the selftests with or without libquic. */
#ifndef QUIC_SELFTEST_CMSG_H
#define QUIC_SELFTEST_CMSG_H

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/quic.h>

/*
 * sendmsg() with one SOL_QUIC cmsg of @type carrying @dlen bytes of @data
 * (at most a struct quic_stream_info), and @flags as the message flags.
 * Returns what sendmsg() returns (-1 with errno).
 */
static inline ssize_t qsend_cmsg(int fd, const void *buf, size_t len,
				 int type, const void *data, size_t dlen,
				 int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct quic_stream_info))];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf.buf, .msg_controllen = CMSG_SPACE(dlen),
	};
	struct cmsghdr *cmsg;

	if (dlen > sizeof(struct quic_stream_info)) {
		errno = EINVAL;
		return -1;
	}
	memset(&cbuf, 0, sizeof(cbuf));
	cmsg = CMSG_FIRSTHDR(&mh);
	cmsg->cmsg_level = SOL_QUIC;
	cmsg->cmsg_type = type;
	cmsg->cmsg_len = CMSG_LEN(dlen);
	memcpy(CMSG_DATA(cmsg), data, dlen);
	return sendmsg(fd, &mh, flags);
}

#endif

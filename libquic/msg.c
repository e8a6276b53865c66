// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * quic_sendmsg()/quic_recvmsg(): stream data with the QUIC_STREAM_INFO cmsg.
 * Like sendmsg()/recvmsg(), they return -1 with errno set on failure.
 */

#include <errno.h>
#include <string.h>

#include "internal.h"

/* The bits of quic_sendmsg()'s flags that go in the QUIC_STREAM_INFO cmsg;
 * the rest are sendmsg() flags.
 */
#define QUIC_STREAM_FLAGS	(MSG_QUIC_STREAM_NEW | MSG_QUIC_STREAM_FIN | \
				 MSG_QUIC_STREAM_UNI | MSG_QUIC_STREAM_DONTWAIT | \
				 MSG_QUIC_STREAM_SNDBLOCK)

QUIC_EXPORT ssize_t quic_sendmsg(int sockfd, const void *msg, size_t len,
				 int64_t sid, uint32_t flags)
{
	struct quic_stream_info info = {
		.stream_id = sid,
		.stream_flags = flags & QUIC_STREAM_FLAGS,
	};
	union {
		char buf[CMSG_SPACE(sizeof(struct quic_stream_info))];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { (void *)msg, len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf),
	};
	struct cmsghdr *cmsg;

	memset(&cbuf, 0, sizeof(cbuf));
	cmsg = CMSG_FIRSTHDR(&mh);
	cmsg->cmsg_level = SOL_QUIC;
	cmsg->cmsg_type = QUIC_STREAM_INFO;
	cmsg->cmsg_len = CMSG_LEN(sizeof(info));
	memcpy(CMSG_DATA(cmsg), &info, sizeof(info));

	return sendmsg(sockfd, &mh, (int)(flags & ~QUIC_STREAM_FLAGS));
}

QUIC_EXPORT ssize_t quic_recvmsg(int sockfd, void *msg, size_t len,
				 int64_t *sid, uint32_t *flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct quic_stream_info)) +
			 CMSG_SPACE(sizeof(struct quic_handshake_info))];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { msg, len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf),
	};
	struct quic_stream_info info = { .stream_id = -1, .stream_flags = 0 };
	struct cmsghdr *cmsg;
	ssize_t n;

	n = recvmsg(sockfd, &mh, flags ? (int)*flags : 0);
	if (n < 0)
		return -1;	/* errno from recvmsg() */
	for (cmsg = CMSG_FIRSTHDR(&mh); cmsg; cmsg = CMSG_NXTHDR(&mh, cmsg)) {
		if (cmsg->cmsg_level == SOL_QUIC &&
		    cmsg->cmsg_type == QUIC_STREAM_INFO &&
		    cmsg->cmsg_len >= CMSG_LEN(sizeof(info)))
			memcpy(&info, CMSG_DATA(cmsg), sizeof(info));
	}
	if (sid)
		*sid = info.stream_id;
	if (flags)
		*flags = (uint32_t)mh.msg_flags | info.stream_flags;
	return n;
}

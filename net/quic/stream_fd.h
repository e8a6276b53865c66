/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC stream file descriptors: QUIC_SOCKOPT_STREAM_PEELOFF gives one
 * stream of a connection a file of its own (quic(7), STREAM FILE
 * DESCRIPTORS).
 */

#ifndef _NET_QUIC_STREAM_FD_H
#define _NET_QUIC_STREAM_FD_H

#include <linux/compiler_types.h>

struct sock;

/* getsockopt(QUIC_SOCKOPT_STREAM_PEELOFF); socket lock held. */
int quic_stream_peeloff(struct sock *sk, char __user *optval,
			int __user *optlen, int len);

#endif /* _NET_QUIC_STREAM_FD_H */

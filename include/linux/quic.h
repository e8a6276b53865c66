/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC: the in-kernel consumer API (grows as kernel users such as SMB and
 * NFS need it).  The user ABI lives in <uapi/linux/quic.h>.
 */

#ifndef _LINUX_QUIC_H
#define _LINUX_QUIC_H

#include <uapi/linux/quic.h>

#endif /* _LINUX_QUIC_H */

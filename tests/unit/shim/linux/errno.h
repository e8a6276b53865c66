/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim.  Not <errno.h>: glibc's errno.h includes <linux/errno.h>,
 * which would be this file again; the E* numbers come from asm/errno.h.
 */
#ifndef _SHIM_LINUX_ERRNO_H
#define _SHIM_LINUX_ERRNO_H
#include <asm/errno.h>
#endif

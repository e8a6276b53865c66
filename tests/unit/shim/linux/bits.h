/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_BITS_H
#define _SHIM_LINUX_BITS_H
#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#endif

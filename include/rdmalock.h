/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock: the in-kernel API for client modules.
 *
 * A client (a cluster filesystem, say) finds a lock domain by name and
 * takes and releases locks on u64 ids homed on the domain's nodes. The
 * functions arrive with the fabric and lock layers; until then this
 * header carries only what the module and its clients already share.
 */
#ifndef _RDMALOCK_H
#define _RDMALOCK_H

#include <linux/rdmalock.h>

#endif /* _RDMALOCK_H */

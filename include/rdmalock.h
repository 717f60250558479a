/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock: the in-kernel API for client modules.
 *
 * A client (a cluster filesystem, say) finds a lock domain by name and
 * takes and releases locks on u64 ids homed on the domain's nodes.
 * Domains are created by the administrator (rdmalockctl domain create);
 * a client holds one for as long as it uses it.
 */
#ifndef _RDMALOCK_H
#define _RDMALOCK_H

#include <linux/rdmalock.h>

struct rdmalock_domain;

struct rdmalock_domain *rdmalock_domain_get(const char *name);
void rdmalock_domain_put(struct rdmalock_domain *dom);

#endif /* _RDMALOCK_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A home node's table of the lock names in use: each name its own slot.
 * See restable.c and Documentation/dlm.rst ("Names and distinct locks").
 */
#ifndef _RDMALOCK_RESTABLE_H
#define _RDMALOCK_RESTABLE_H

#include <linux/bits.h>
#include <linux/gfp.h>
#include <linux/rdmalock.h>
#include <linux/types.h>

struct rdmalock_restable;

struct rdmalock_restable *rdmalock_restable_alloc(u32 nslots, u32 num_nodes,
						  gfp_t gfp);
void rdmalock_restable_free(struct rdmalock_restable *t);
/* A lock name's length is 1 to RDMALOCK_LOCK_NAME_MAX bytes. */
static inline bool rdmalock_lock_name_len_valid(u32 len)
{
	return len && len <= RDMALOCK_LOCK_NAME_MAX;
}

/* What rdmalock_restable_ref() did. */
#define RDMALOCK_RES_FRESH	BIT(0)	/* gave the name a free slot */
#define RDMALOCK_RES_ADDED	BIT(1)	/* the node references it anew */

int rdmalock_restable_ref(struct rdmalock_restable *t, u32 node, u32 inc,
			  const void *name, u32 len, u32 *slot,
			  unsigned int *how);
int rdmalock_restable_lookup(struct rdmalock_restable *t, const void *name,
			     u32 len, u32 *slot);
int rdmalock_restable_unref(struct rdmalock_restable *t, u32 node, u32 inc,
			    u32 slot, const void *name, u32 len);
u32 rdmalock_restable_drop(struct rdmalock_restable *t, unsigned long nodes);
u32 rdmalock_restable_used(struct rdmalock_restable *t);

#endif /* _RDMALOCK_RESTABLE_H */

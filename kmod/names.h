/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Named locks: each name its own slot at its home, resolved by message
 * and cached by every node that uses it. See names.c and
 * Documentation/dlm.rst ("Names and distinct locks").
 */
#ifndef _RDMALOCK_NAMES_H
#define _RDMALOCK_NAMES_H

#include <linux/list.h>
#include <linux/types.h>

#include "blocking.h"
#include "fabric.h"
#include "restable.h"

/*
 * The lock layer's message types, after the algorithm's eight
 * (RDMALOCK_MSG_USER_FIRST to RDMALOCK_MSG_USER_FIRST + 7).
 */
#define RDMALOCK_NAMES_MSG_RESOLVE	(RDMALOCK_MSG_USER_FIRST + 8)
#define RDMALOCK_NAMES_MSG_RESOLVED	(RDMALOCK_MSG_USER_FIRST + 9)
#define RDMALOCK_NAMES_MSG_UNREF	(RDMALOCK_MSG_USER_FIRST + 10)

/* How long a node waits for a name's home to answer. */
#define RDMALOCK_NAMES_RESOLVE_MS	5000
/*
 * How long, in all, a resolution that met view changes waits for the
 * views to open and asks again: a view change that waits out a departed
 * node's lease takes seconds.
 */
#define RDMALOCK_NAMES_VIEW_WAIT_MS	30000

struct rdmalock_lockspace;
struct rdmalock_names;

/**
 * struct rdmalock_name - a node's resolution of a name, shared by its handles
 * @hash: in the node's cache, while @hashed
 * @hashed: in the cache: the node references the name at its home
 * @state: RDMALOCK_NAME_*
 * @err: why it failed, in state FAILED
 * @refs: handles using it
 * @natural: the name's home when every node is a member
 * @home: its home in the view it was resolved in (rdmalock_home_in())
 * @slot: its slot there, once resolved
 * @inc: the home's incarnation when it was resolved (see names.c)
 * @idle_since: jiffies when @refs last fell to 0
 * @interest: this node's holders and waiters (blocking.c)
 * @len: bytes of @name
 * @name: the name, not terminated
 *
 * Everything but @natural, @home, @interest, @len and @name is under the
 * cache's lock.
 */
struct rdmalock_name {
	struct hlist_node hash;
	bool hashed;
	u8 state;
	int err;
	u32 refs;
	u32 natural;
	u32 home;
	u32 slot;
	u32 inc;
	unsigned long idle_since;
	struct rdmalock_interest interest;
	u8 len;
	u8 name[RDMALOCK_LOCK_NAME_MAX];
};

#define RDMALOCK_NAME_RESOLVING	0
#define RDMALOCK_NAME_READY	1
#define RDMALOCK_NAME_FAILED	2

extern unsigned int rdmalock_names_idle_ms;

u32 rdmalock_name_home(const void *name, u32 len, u32 num_nodes);
u32 rdmalock_home_in(u32 natural, u32 members, u32 num_nodes);

struct rdmalock_names *rdmalock_names_alloc(struct rdmalock_lockspace *ls);
void rdmalock_names_attach(struct rdmalock_names *nm);
void rdmalock_names_close(struct rdmalock_names *nm);
void rdmalock_names_stop(struct rdmalock_names *nm);
void rdmalock_names_press(struct rdmalock_names *nm);
void rdmalock_names_free(struct rdmalock_names *nm);

int rdmalock_name_get(struct rdmalock_names *nm, const void *name, u32 len,
		      struct rdmalock_name **entp);
void rdmalock_name_hold(struct rdmalock_names *nm, struct rdmalock_name *ent);
void rdmalock_name_put(struct rdmalock_names *nm, struct rdmalock_name *ent);
bool rdmalock_name_stale(struct rdmalock_names *nm,
			 const struct rdmalock_name *ent);
int rdmalock_name_lookup(struct rdmalock_names *nm, const void *name, u32 len,
			 u32 *slot);

struct rdmalock_lockspace *rdmalock_names_ls(struct rdmalock_names *nm);
struct workqueue_struct *rdmalock_names_cb_wq(struct rdmalock_names *nm);
void rdmalock_names_blocked(struct rdmalock_names *nm, u32 node, const void *name,
			    u32 len, u32 slot, u32 level);

void rdmalock_names_view(struct rdmalock_names *nm, u32 members, u32 restarted);
void rdmalock_names_fence(struct rdmalock_names *nm);
u32 rdmalock_names_used(struct rdmalock_names *nm);
u32 rdmalock_names_cached(struct rdmalock_names *nm);

#if IS_ENABLED(CONFIG_KUNIT)
void rdmalock_names_give_back(struct rdmalock_names *nm);
#endif

#endif /* _RDMALOCK_NAMES_H */

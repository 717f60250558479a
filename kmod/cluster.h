/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock domains: named sets of nodes sharing an algorithm and a lock
 * table geometry, each with its fabric.
 */
#ifndef RDMALOCK_CLUSTER_H
#define RDMALOCK_CLUSTER_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/workqueue.h>
#include <rdmalock.h>

#include "fabric.h"
#include "floor.h"
#include "locks.h"
#include "membership.h"
#include "viewclient.h"

struct rdmalock_lockspace;
struct rdmalock_name;

/* &rdmalock_domain.state */
enum rdmalock_domain_state {
	RDMALOCK_DOM_CREATING,		/* name taken, fabric starting */
	RDMALOCK_DOM_LIVE,		/* found by name */
	RDMALOCK_DOM_STOPPING,		/* being destroyed, name still taken */
};

struct rdmalock_domain {
	struct kref ref;
	struct list_head entry;		/* in the domain list, under its mutex */
	enum rdmalock_domain_state state; /* under the domain list's mutex */
	atomic_t active;		/* calls between enter and leave */
	u32 algo;
	u32 locks_per_node;
	struct rdmalock_fabric_attr attr;
	struct rdmalock_fabric *fabric;
	struct rdmalock_lockspace *ls;
	struct rdmalock_membership *mb;
	u32 node_lease_ms;
	struct rdmalock_floor_echo echo;
	struct rdmalock_view_client view_client;
	struct dentry *debugfs;
};

/*
 * A lock handle (include/rdmalock.h): @w is the acquisition while the
 * handle waits for or holds its lock. The blocking callback's fields are
 * blocking.c's: @holding and @blocked under the interest's lock of @ent.
 */
struct rdmalock_lock {
	struct rdmalock_domain *dom;
	u64 id;
	u32 home;
	u64 slot_off;
	struct rdmalock_name *ent;	/* a named lock's resolution */
	/*
	 * Guards @ent, and the interest it points to, against a view
	 * change's move of a held lock to its new home, for the owner's
	 * calls that use them outside the gate; before the interest's lock.
	 */
	spinlock_t ent_lock;
	struct rdmalock_waiter *w;
	unsigned int mode;		/* RDMALOCK_MODE_*, while it holds */
	bool nl;			/* holds NL: no lock word */
	bool values;			/* grants read the value (values.c) */
	bool lvb_valid;
	u8 lvb_len;
	void *lvb;
	u64 token;
	rdmalock_blocking_fn *blocking;
	void *blocking_arg;
	struct list_head holding;	/* in the interest's holders */
	struct work_struct blocking_work; /* once @blocking_armed */
	bool blocking_armed;
	u8 cls;				/* the class it waits or holds in */
	bool waits;			/* counted as waiting */
	u8 blocked;			/* level told since the grant */
	struct work_struct request_work; /* once @request_armed (request.c) */
	bool request_armed;
	unsigned long request_busy;
	unsigned int request_mode;
	bool request_convert;
	unsigned int request_flags;	/* RDMALOCK_REQ_* */
	rdmalock_complete_fn *done;
	void *done_arg;
	struct rdmalock_cancel cancel;
};

void rdmalock_lock_init(struct rdmalock_lock *lk, struct rdmalock_domain *dom,
			u64 id);
int rdmalock_lock_setup(struct rdmalock_lock *lk, struct rdmalock_domain *dom,
			u64 id);
int rdmalock_lock_setup_name(struct rdmalock_lock *lk, struct rdmalock_domain *dom,
			     const void *name, u32 len);
void rdmalock_lock_teardown(struct rdmalock_lock *lk);
/* Does @lk hold its lock, in any mode (NL too)? */
static inline bool rdmalock_lock_holds(const struct rdmalock_lock *lk)
{
	return lk->w || lk->nl;
}

int rdmalock_acquire(struct rdmalock_lock *lk, unsigned int mode,
		     const struct rdmalock_how *how);
int rdmalock_acquire_nofs(struct rdmalock_lock *lk, unsigned int mode,
			  const struct rdmalock_how *how);
int rdmalock_convert(struct rdmalock_lock *lk, unsigned int mode,
		     const struct rdmalock_how *how);
int rdmalock_give_back(struct rdmalock_lock *lk);
int rdmalock_lock_claim_moved(struct rdmalock_lockspace *ls,
			      struct rdmalock_waiter *w);
int rdmalock_release_value(struct rdmalock_lock *lk, unsigned int to);
bool rdmalock_request_busy(const struct rdmalock_lock *lk);
void rdmalock_request_forget(struct rdmalock_lock *lk);

#if IS_ENABLED(CONFIG_KUNIT)
int rdmalock_domain_check(const struct rdmalock_domain_create *req,
			  struct rdmalock_fabric_attr *attr);
#endif
int rdmalock_domain_create(const struct rdmalock_domain_create *req,
			   const u8 *key);
int rdmalock_domain_destroy(const char *name);
int rdmalock_domain_enter(struct rdmalock_domain *dom);
void rdmalock_domain_leave(struct rdmalock_domain *dom);
bool rdmalock_domain_closed(struct rdmalock_domain *dom);
u32 rdmalock_domain_names(char *names, u32 max);
int rdmalock_domain_status(struct rdmalock_domain_status *st);
int rdmalock_domain_view(struct rdmalock_domain_view *v);
int rdmalock_domain_fence_ack(const char *name, u32 node);
void rdmalock_domains_exit(void);

/* stats.c: debugfs */
void rdmalock_stats_domain_add(struct rdmalock_domain *dom);
void rdmalock_stats_domain_remove(struct rdmalock_domain *dom);

#endif /* RDMALOCK_CLUSTER_H */

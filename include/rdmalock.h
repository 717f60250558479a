/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock: the in-kernel API for client modules.
 *
 * A client (a cluster filesystem, say) finds a lock domain by name and
 * takes and releases locks on u64 ids homed on the domain's nodes.
 * Domains are created by the administrator (rdmalockctl domain create);
 * a client holds one for as long as it uses it.
 *
 * A lock handle is one holder's hold on one lock id, in one of DLM's six
 * modes (RDMALOCK_MODE_*), which it may convert; like a DLM lock status
 * block: a task that holds several locks uses one handle for
 * each, and two tasks that want the same lock each use their own handle.
 * Ids map to a home node (id modulo the number of nodes) and a slot in
 * its lock table; ids that share a slot are one lock, so a client must
 * not hold two of them at once (Documentation/api.rst). In a domain
 * created with named locks, a lock is a name of up to
 * RDMALOCK_LOCK_NAME_MAX bytes (an id is the name of its eight big-endian
 * bytes), and distinct names are distinct locks.
 *
 * A destroyed domain grants nothing more: its waiters fail and new lock
 * calls fail at once with -ESHUTDOWN, and rdmalock_unlock() of a lock
 * held across the destruction returns -ESHUTDOWN. The domain's memory
 * stays until rdmalock_domain_put(). See Documentation/api.rst.
 */
#ifndef _RDMALOCK_H
#define _RDMALOCK_H

#include <linux/rdmalock.h>
#include <linux/types.h>

struct rdmalock_domain;
struct rdmalock_lock;

struct rdmalock_domain *rdmalock_domain_get(const char *name);
void rdmalock_domain_put(struct rdmalock_domain *dom);
bool rdmalock_domain_member(struct rdmalock_domain *dom);
bool rdmalock_domain_named(struct rdmalock_domain *dom);

/**
 * struct rdmalock_recovery_ops - what a client hears of membership views
 * @recover_prep: a view change started on this node: lock calls are held
 *	up until it ends; no member's locks are recovered before every
 *	member ran this
 * @recover_slot: node @slot - 1 left the view: its locks were recovered
 *	(after it was fenced) and it holds nothing
 * @recover_done: this node is a member of a new view: @slots (@num_slots
 *	of them, increasing) are its members' slots, @our_slot this node's,
 *	and @generation the view's epoch, the same on every member and
 *	increasing
 *
 * A node's slot is its id plus one: stable, unique, from 1. Every
 * callback is optional. See rdmalock_domain_recovery_register().
 */
struct rdmalock_recovery_ops {
	void (*recover_prep)(void *arg);
	void (*recover_slot)(void *arg, u32 slot);
	void (*recover_done)(void *arg, const u32 *slots, u32 num_slots,
			     u32 our_slot, u64 generation);
};

int rdmalock_domain_recovery_register(struct rdmalock_domain *dom,
				      const struct rdmalock_recovery_ops *ops,
				      void *arg);
void rdmalock_domain_recovery_unregister(struct rdmalock_domain *dom);

/**
 * typedef rdmalock_blocking_fn - a holder's blocking callback
 * @arg: the argument given with it
 * @mode: RDMALOCK_MODE_EX or RDMALOCK_MODE_SH: the mode a request that
 *	this holder blocks waits for (or a stronger one)
 *
 * Called from a work queue, not in the lock call's task. It must not
 * wait for what a lock call may wait for, nor free its handle. See
 * rdmalock_lock_set_blocking().
 */
typedef void rdmalock_blocking_fn(void *arg, unsigned int mode);

/**
 * typedef rdmalock_complete_fn - the end of an asynchronous request
 * @arg: the argument given with it
 * @status: 0 when the handle holds its lock, else why not
 *
 * See rdmalock_lock_async().
 */
typedef void rdmalock_complete_fn(void *arg, int status);

/*
 * Flags of an asynchronous request (rdmalock_lock_async(),
 * rdmalock_lock_convert_async()). RDMALOCK_REQ_NOQUEUE: a request that
 * cannot be granted at once ends with -EAGAIN instead of waiting, as
 * DLM_LKF_NOQUEUE; it tells no holder it waits, unless it is refused
 * conversion up (rdmalock_lock_convert()). RDMALOCK_REQ_NOQUEUE_ASK, with
 * NOQUEUE: a request refused tells the holders in its way all the same,
 * once, as DLM_LKF_NOQUEUEBAST, so that they may let go before it is
 * asked again.
 */
#define RDMALOCK_REQ_NOQUEUE		0x1
#define RDMALOCK_REQ_NOQUEUE_ASK	0x2
#define RDMALOCK_REQ_FLAGS		(RDMALOCK_REQ_NOQUEUE | RDMALOCK_REQ_NOQUEUE_ASK)

struct rdmalock_lock *rdmalock_lock_get(struct rdmalock_domain *dom, u64 id);
struct rdmalock_lock *rdmalock_lock_get_name(struct rdmalock_domain *dom,
					     const void *name, u32 len);
int rdmalock_lock_set_value(struct rdmalock_lock *lk, void *lvb, u32 lvb_len);
int rdmalock_lock_set_blocking(struct rdmalock_lock *lk,
			       rdmalock_blocking_fn *fn, void *arg);
u64 rdmalock_lock_token(const struct rdmalock_lock *lk);
bool rdmalock_lock_lvb_valid(const struct rdmalock_lock *lk);
unsigned int rdmalock_lock_mode(const struct rdmalock_lock *lk);
void rdmalock_lock_put(struct rdmalock_lock *lk);

int rdmalock_lock(struct rdmalock_lock *lk, unsigned int mode);
int rdmalock_lock_killable(struct rdmalock_lock *lk, unsigned int mode);
int rdmalock_lock_timeout(struct rdmalock_lock *lk, unsigned int mode,
			  unsigned long timeout);
int rdmalock_trylock(struct rdmalock_lock *lk, unsigned int mode);
int rdmalock_lock_async(struct rdmalock_lock *lk, unsigned int mode,
			unsigned int flags, rdmalock_complete_fn *done, void *arg);
int rdmalock_lock_convert(struct rdmalock_lock *lk, unsigned int mode);
int rdmalock_lock_convert_async(struct rdmalock_lock *lk, unsigned int mode,
				unsigned int flags, rdmalock_complete_fn *done,
				void *arg);
int rdmalock_lock_cancel(struct rdmalock_lock *lk);
int rdmalock_unlock(struct rdmalock_lock *lk);

#endif /* _RDMALOCK_H */

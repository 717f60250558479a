// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: the exported lock API (include/rdmalock.h), over whichever
 * algorithm the domain was created with.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "blocking.h"
#include "cluster.h"
#include "locks.h"
#include "names.h"
#include "values.h"

/**
 * rdmalock_lock_init() - set up a lock handle that lives in the caller's memory
 * @lk: the handle
 * @dom: the domain, held by the caller for as long as @lk is used
 * @id: the lock id
 *
 * For a domain whose ids map to slots; rdmalock_lock_setup() serves both.
 */
void rdmalock_lock_init(struct rdmalock_lock *lk, struct rdmalock_domain *dom,
			u64 id)
{
	u64 rest = id;
	u32 home = do_div(rest, dom->attr.num_nodes);

	*lk = (struct rdmalock_lock){
		.dom = dom,
		.id = id,
		.home = home,
		.slot_off = rdmalock_table_offset(do_div(rest, dom->locks_per_node)),
	};
	rdmalock_blocking_init(lk);
}

static struct rdmalock_names *rdmalock_lock_names(const struct rdmalock_lock *lk)
{
	return lk->dom->ls->names;
}

/*
 * Points @lk at a new resolution of @name, giving back the old one. An
 * answer that met a view change (a home not yet reset refuses with
 * -ENOTCONN) is asked again once the view is open here, within @how (a
 * lock call's; NULL for a handle's set-up) and RDMALOCK_NAMES_VIEW_WAIT_MS.
 */
static int rdmalock_lock_resolve(struct rdmalock_lock *lk, const void *name,
				 u32 len, const struct rdmalock_how *how)
{
	struct rdmalock_how wait = how ? *how : (struct rdmalock_how){ .killable = true };
	unsigned long deadline = jiffies + msecs_to_jiffies(RDMALOCK_NAMES_VIEW_WAIT_MS);
	struct rdmalock_lockspace *ls = lk->dom->ls;
	struct rdmalock_name *ent;
	bool was_open;
	int ret, gen;

	if (!wait.timed || time_before(deadline, wait.deadline)) {
		wait.deadline = deadline;
		wait.timed = true;
	}
	ret = rdmalock_domain_enter(lk->dom);
	if (ret)
		return ret;
	do {
		gen = atomic_read(&ls->gate_gen);
		was_open = !rdmalock_gate_shut(ls);
		ret = rdmalock_name_get(rdmalock_lock_names(lk), name, len, &ent);
	} while (ret == -ENOTCONN &&
		 rdmalock_gate_await_view(ls, gen, was_open, &wait));
	rdmalock_domain_leave(lk->dom);
	if (ret)
		return ret;
	if (lk->ent)
		rdmalock_name_put(rdmalock_lock_names(lk), lk->ent);
	lk->ent = ent;
	lk->home = ent->home;
	lk->slot_off = rdmalock_table_offset(ent->slot);
	return 0;
}

/*
 * The handle of @w, still holding through it, moves to @ent: its
 * resolution, and its place among this node's holders, which the caller
 * posts again once the lock is claimed. Its owner may be releasing it
 * meanwhile, outside the gate: the old resolution is given back once the
 * owner can no longer reach it. Return: whether it had a place.
 */
static bool rdmalock_lock_move(struct rdmalock_lock *lk, struct rdmalock_name *ent)
{
	struct rdmalock_name *old = lk->ent;
	bool holder;

	spin_lock_bh(&lk->ent_lock);
	holder = rdmalock_blocking_move(lk, ent);
	lk->ent = ent;
	lk->home = ent->home;
	lk->slot_off = rdmalock_table_offset(ent->slot);
	spin_unlock_bh(&lk->ent_lock);
	rdmalock_name_put(lk->dom->ls->names, old);
	return holder;
}

/**
 * rdmalock_lock_claim_moved() - claim a held named lock at its new home
 * @ls: the lockspace, every member's table reset
 * @w: a descriptor holding a named lock whose name a view change homed
 *	elsewhere (its handle's resolution is stale)
 *
 * In a view change's claims: resolves the name at its home in the new
 * view, moves the descriptor there and claims the lock. The handle that
 * holds through @w moves too, and is posted among this node's holders
 * again, so that requests at the new home tell its callback; its token
 * and LVB writer go with it (rdmalock_value_moved()). A handle that is
 * releasing @w (its release waits at the gate) let go of its place
 * already, and releases at the new home.
 *
 * Context: process context, in a view change; sleeps.
 * Return: 0; or the resolution's, the claim's or the post's error: the
 * lock is lost (a claim may have half happened).
 */
int rdmalock_lock_claim_moved(struct rdmalock_lockspace *ls,
			      struct rdmalock_waiter *w)
{
	struct rdmalock_lock *lk = w->lk;
	bool holding = READ_ONCE(lk->w) == w, holder = false;
	struct rdmalock_name *ent;
	int ret;

	ret = rdmalock_name_get(ls->names, lk->ent->name, lk->ent->len, &ent);
	if (ret)
		return ret;
	w->home = ent->home;
	w->slot_off = rdmalock_table_offset(ent->slot);
	if (holding)
		holder = rdmalock_lock_move(lk, ent);
	else
		rdmalock_name_put(ls->names, ent);
	ret = ls->algo->recover_hold(ls, w);
	if (!ret && holding && lk->values)
		ret = rdmalock_value_moved(lk);
	if (!ret && holder)
		ret = rdmalock_blocking_granted(lk);
	return ret;
}

/**
 * rdmalock_lock_setup_name() - set up a handle on a named lock, in the caller's memory
 * @lk: the handle
 * @dom: a domain with named locks, held by the caller for as long as @lk
 *	is used
 * @name: the lock's name
 * @len: its bytes, 1 to %RDMALOCK_LOCK_NAME_MAX
 *
 * Resolves the name at its home; rdmalock_lock_teardown() gives it back.
 *
 * Context: process context; sleeps.
 * Return: 0; -EOPNOTSUPP when @dom's ids map to slots; -ESHUTDOWN when it
 * was destroyed; or as rdmalock_name_get().
 */
int rdmalock_lock_setup_name(struct rdmalock_lock *lk, struct rdmalock_domain *dom,
			     const void *name, u32 len)
{
	rdmalock_lock_init(lk, dom, 0);
	if (!dom->ls->names)
		return -EOPNOTSUPP;
	return rdmalock_lock_resolve(lk, name, len, NULL);
}

/**
 * rdmalock_lock_setup() - set up a handle on a lock id, in the caller's memory
 * @lk: the handle
 * @dom: the domain, held by the caller for as long as @lk is used
 * @id: the lock id; in a domain with named locks, the name of its eight
 *	big-endian bytes
 *
 * Context: process context; sleeps in a domain with named locks.
 * Return: 0, or as rdmalock_lock_setup_name().
 */
int rdmalock_lock_setup(struct rdmalock_lock *lk, struct rdmalock_domain *dom,
			u64 id)
{
	__be64 name = cpu_to_be64(id);
	int ret;

	if (!dom->ls->names) {
		rdmalock_lock_init(lk, dom, id);
		return 0;
	}
	ret = rdmalock_lock_setup_name(lk, dom, &name, sizeof(name));
	lk->id = id;
	return ret;
}

/**
 * rdmalock_lock_teardown() - give back what rdmalock_lock_setup() took
 * @lk: the handle, set up and not holding its lock
 *
 * Waits for its blocking callback, if one runs.
 *
 * Context: process context; not from the handle's blocking callback.
 */
void rdmalock_lock_teardown(struct rdmalock_lock *lk)
{
	rdmalock_request_forget(lk);
	rdmalock_blocking_cancel(lk);
	if (lk->ent)
		rdmalock_name_put(rdmalock_lock_names(lk), lk->ent);
	lk->ent = NULL;
}

static struct rdmalock_lock *rdmalock_lock_ready(struct rdmalock_lock *lk, int ret)
{
	if (ret) {
		kfree(lk);
		return ERR_PTR(ret);
	}
	kref_get(&lk->dom->ref);
	return lk;
}

/**
 * rdmalock_lock_get() - a handle on a lock of a domain
 * @dom: the domain, from rdmalock_domain_get()
 * @id: the lock's id; its home node is @id modulo the number of nodes. In
 *	a domain with named locks (%RDMALOCK_DOMAIN_F_NAMED) it is the name
 *	of its eight big-endian bytes, and resolved here
 *
 * A handle is one holder's hold on one lock: a task that holds several
 * locks uses a handle for each, and tasks that want the same lock each use
 * their own. It holds a reference to @dom until rdmalock_lock_put().
 *
 * Context: process context; sleeps in a domain with named locks.
 * Return: the handle, or ERR_PTR(-ENOMEM), or in a domain with named
 * locks an error of rdmalock_lock_get_name().
 */
struct rdmalock_lock *rdmalock_lock_get(struct rdmalock_domain *dom, u64 id)
{
	struct rdmalock_lock *lk = kzalloc(sizeof(*lk), GFP_NOFS);

	if (!lk)
		return ERR_PTR(-ENOMEM);
	return rdmalock_lock_ready(lk, rdmalock_lock_setup(lk, dom, id));
}
EXPORT_SYMBOL_GPL(rdmalock_lock_get);

/**
 * rdmalock_lock_get_name() - a handle on a named lock
 * @dom: a domain with named locks (%RDMALOCK_DOMAIN_F_NAMED)
 * @name: the lock's name, any bytes; distinct names are distinct locks
 * @len: its length, 1 to %RDMALOCK_LOCK_NAME_MAX
 *
 * The name's home (a hash of it, modulo the number of nodes; for eight
 * bytes, their big-endian value modulo it, as the id's) gives it a slot
 * of its own while some node references it. This node references the
 * names its handles use, and for a while after (Documentation/api.rst).
 *
 * Context: process context; sleeps: a name this node does not reference
 * yet costs a message to its home and one back.
 * Return: the handle; ERR_PTR() of -EINVAL for a bad length, -ENOMEM,
 * -EOPNOTSUPP when @dom maps ids to slots, -ESHUTDOWN when it was
 * destroyed, -ENOSPC when the home has no free slot, -ENOTCONN when the
 * home is not reachable or not in the view, -EAGAIN when its send queue
 * is full, -ETIMEDOUT when it did not answer.
 */
struct rdmalock_lock *rdmalock_lock_get_name(struct rdmalock_domain *dom,
					     const void *name, u32 len)
{
	struct rdmalock_lock *lk = kzalloc(sizeof(*lk), GFP_NOFS);

	if (!lk)
		return ERR_PTR(-ENOMEM);
	return rdmalock_lock_ready(lk, rdmalock_lock_setup_name(lk, dom, name, len));
}
EXPORT_SYMBOL_GPL(rdmalock_lock_get_name);

/**
 * rdmalock_lock_put() - free a handle from rdmalock_lock_get()
 * @lk: the handle; it must not hold its lock nor ask for it (if it does,
 *	that is a bug, warned about: the request is cancelled, and the lock
 *	released)
 *
 * Waits for its blocking callback, if one runs.
 *
 * Context: process context; may sleep; not from the handle's callbacks.
 */
void rdmalock_lock_put(struct rdmalock_lock *lk)
{
	/* A request that ends with a grant leaves @lk->w behind it. */
	rdmalock_request_forget(lk);
	if (WARN_ON_ONCE(rdmalock_lock_holds(lk)))
		rdmalock_unlock(lk);
	rdmalock_lock_teardown(lk);
	rdmalock_domain_put(lk->dom);
	kfree(lk);
}
EXPORT_SYMBOL_GPL(rdmalock_lock_put);

static bool rdmalock_lock_stale(const void *arg)
{
	const struct rdmalock_lock *lk = arg;

	return rdmalock_name_stale(rdmalock_lock_names(lk), lk->ent);
}

/*
 * A named lock's request that is not granted at once waits counted at
 * the lock's home, where holders with a blocking callback hear of it.
 * Its first try sleeps through a failed verb's view change as the wait
 * would: GFS2 takes every glock this way, and a failed verb, which the
 * view change repairs, must not fail the request.
 */
static int rdmalock_acquire_named(struct rdmalock_lock *lk, unsigned int mode,
				  const struct rdmalock_how *how)
{
	struct rdmalock_lockspace *ls = lk->dom->ls;
	struct rdmalock_how try = *how;
	int ret;

	try.try = true;
	try.may_sleep = !how->try;
	ret = rdmalock_ls_acquire(ls, lk->home, lk->slot_off, mode, &try, &lk->w);
	if (ret != -EAGAIN || how->try)
		return ret;
	ret = rdmalock_blocking_wait(lk, how);
	if (ret)
		return ret;
	ret = rdmalock_ls_acquire(ls, lk->home, lk->slot_off, mode, how, &lk->w);
	rdmalock_blocking_unwait(lk);
	if (ret)
		rdmalock_blocking_settle(lk);
	return ret;
}

/*
 * One acquisition at the lock's slot; a named lock's slot is resolved
 * again when its home left the view since, before or while it waits.
 */
static int rdmalock_acquire_slot(struct rdmalock_lock *lk, unsigned int mode,
				 const struct rdmalock_how *how)
{
	struct rdmalock_how named;
	int ret;

	if (!lk->ent)
		return rdmalock_ls_acquire(lk->dom->ls, lk->home, lk->slot_off,
					   mode, how, &lk->w);
	named = *how;
	named.stale = rdmalock_lock_stale;
	named.stale_arg = lk;
	named.lk = lk;
	do {
		ret = 0;
		if (rdmalock_lock_stale(lk))
			ret = rdmalock_lock_resolve(lk, lk->ent->name,
						    lk->ent->len, how);
		if (!ret)
			ret = rdmalock_acquire_named(lk, mode, &named);
	} while (ret == -ESTALE);
	return ret;
}

/**
 * rdmalock_lock_set_value() - have a handle's grants read its lock's value
 * @lk: a handle on a lock of a domain with named locks, not holding it
 * @lvb: the caller's lock value block, @lvb_len bytes, or NULL
 * @lvb_len: 0 (the fencing token only), 32 or 64
 *
 * From the next grant on, every grant fills @lvb with the home's copy
 * and says whether it is valid (rdmalock_lock_lvb_valid()); an exclusive
 * grant takes the lock's next fencing token (rdmalock_lock_token()), and
 * its release writes @lvb back. This costs the grant a round trip to the
 * home, and an exclusive one another; the release one more with an LVB.
 * The LVB lives as long as some node references the lock's name; a slot
 * given to a new name starts with zeros.
 *
 * Context: process context.
 * Return: 0; -EOPNOTSUPP in a domain whose ids map to slots; -EINVAL for
 * another length, or while @lk holds its lock.
 */
int rdmalock_lock_set_value(struct rdmalock_lock *lk, void *lvb, u32 lvb_len)
{
	if (!lk->ent)
		return -EOPNOTSUPP;
	if (rdmalock_lock_holds(lk) ||
	    (lvb_len && lvb_len != 32 && lvb_len != RDMALOCK_LVB_MAX) ||
	    !lvb != !lvb_len)
		return -EINVAL;
	lk->values = true;
	lk->lvb = lvb;
	lk->lvb_len = lvb_len;
	return 0;
}
EXPORT_SYMBOL_GPL(rdmalock_lock_set_value);

/**
 * rdmalock_lock_set_blocking() - have a handle told when it blocks a request
 * @lk: a handle on a lock of a domain with named locks, not holding it
 * @fn: its blocking callback, or NULL for none
 * @arg: @fn's argument
 *
 * From the next grant on, while @lk holds its lock, @fn is called when a
 * request that its mode blocks, of another handle on any node, waits for
 * the lock: an exclusive holder hears of every request, a shared one of
 * exclusive ones. It comes within one message of the wait, once per
 * grant and mode asked for, and may come when the request was granted
 * or given up meanwhile: it asks the holder to release the lock or
 * convert it down soon, and forces nothing. A request that may be
 * granted at once (a trylock, too) tells nobody.
 *
 * A holder with a callback costs its grant a round trip to the lock's
 * home, and its release another when it was its node's last one.
 *
 * The callback runs on a work queue; like DLM's, it must not wait for
 * anything that a lock call may wait for (it may queue work that
 * releases the lock, or release it when that cannot block on others).
 * A handle with a callback must not live on the stack.
 *
 * Context: process context; not from @lk's callback.
 * Return: 0; -EOPNOTSUPP in a domain whose ids map to slots; -EINVAL
 * while @lk holds its lock.
 */
int rdmalock_lock_set_blocking(struct rdmalock_lock *lk,
			       rdmalock_blocking_fn *fn, void *arg)
{
	if (!lk->ent)
		return -EOPNOTSUPP;
	if (rdmalock_lock_holds(lk))
		return -EINVAL;
	rdmalock_blocking_set(lk, fn, arg);
	return 0;
}
EXPORT_SYMBOL_GPL(rdmalock_lock_set_blocking);

/**
 * rdmalock_lock_token() - the fencing token of a handle's exclusive grant
 * @lk: a handle holding its lock exclusive, with rdmalock_lock_set_value()
 *
 * The tokens of a lock increase with every exclusive grant, also across
 * the recovery of a holder's node and the lock's name being forgotten and
 * used again, as long as its home's real-time clock does not step back:
 * storage that refuses a token below the highest it has seen refuses a
 * holder whose lock was taken from it.
 *
 * Return: the token, or 0 when @lk holds no exclusive grant with a value:
 * the token of its last writing grant (PW or EX) while it holds a writing
 * mode.
 */
u64 rdmalock_lock_token(const struct rdmalock_lock *lk)
{
	return lk->w && rdmalock_value_writes(lk->mode) ? lk->token : 0;
}
EXPORT_SYMBOL_GPL(rdmalock_lock_token);

/**
 * rdmalock_lock_lvb_valid() - did the last grant find the LVB valid?
 * @lk: a handle with rdmalock_lock_set_value()
 *
 * An LVB is not valid after a view change that came while an exclusive
 * holder with an LVB held its lock: the holder may have died, or lost the
 * lock, before writing it back, and what it described may have changed.
 * The next exclusive release makes it valid again.
 *
 * Return: true when valid.
 */
bool rdmalock_lock_lvb_valid(const struct rdmalock_lock *lk)
{
	return lk->lvb_valid;
}
EXPORT_SYMBOL_GPL(rdmalock_lock_lvb_valid);

/**
 * rdmalock_lock_mode() - the mode a handle holds its lock in
 * @lk: a handle with no request under way
 *
 * After a conversion that failed, this tells whether it changed nothing
 * or left the handle holding NL (rdmalock_lock_convert()).
 *
 * Context: the handle's owner, between its calls.
 * Return: RDMALOCK_MODE_*, the mode of the grant or conversion that
 * holds; RDMALOCK_MODE_NL also for a handle holding nothing.
 */
unsigned int rdmalock_lock_mode(const struct rdmalock_lock *lk)
{
	return rdmalock_lock_holds(lk) ? lk->mode : RDMALOCK_MODE_NL;
}
EXPORT_SYMBOL_GPL(rdmalock_lock_mode);

/* A named lock's grant, inside the gate: its holder and its value. */
static int rdmalock_granted_named(struct rdmalock_lock *lk)
{
	int ret;

	/* Lost to a view change already: the slot may be another's. */
	ret = READ_ONCE(lk->w->gone) ?: rdmalock_blocking_granted(lk);
	if (!ret && lk->values)
		ret = rdmalock_value_on_grant(lk, RDMALOCK_MODE_NL);
	return ret;
}

/**
 * rdmalock_give_back() - release what @lk holds, as a failed call or a release must
 * @lk: a handle holding its lock word
 *
 * Context: process context, in a call of the domain; sleeps.
 * Return: as rdmalock_ls_release().
 */
int rdmalock_give_back(struct rdmalock_lock *lk)
{
	struct rdmalock_waiter *w = lk->w;
	int ret;

	rdmalock_blocking_unhold(lk);
	lk->w = NULL;
	ret = rdmalock_ls_release(lk->dom->ls, w);
	if (lk->ent)
		rdmalock_blocking_settle(lk);
	return ret;
}

/*
 * A grant's part at the lock's home, inside the gate: a node fenced
 * since the grant, or a lock lost since to a view change, holds nothing,
 * and must not touch it. The lock is given back when that fails, or when
 * a view change under way outlasts what @how may wait.
 */
static int rdmalock_acquire_granted(struct rdmalock_lock *lk,
				    const struct rdmalock_how *how)
{
	struct rdmalock_lockspace *ls = lk->dom->ls;
	int ret;

	ret = rdmalock_gate_enter(ls, how);
	if (!ret) {
		ret = rdmalock_granted_named(lk);
		rdmalock_gate_leave(ls);
	} else if (ret == -ENOTCONN) {
		ret = -ENOLCK;
	}
	if (ret)
		rdmalock_give_back(lk);
	return ret;
}

/**
 * rdmalock_release_value() - a writing holder's LVB goes back, inside the gate
 * @lk: a handle holding its lock word in @lk->mode
 * @to: the mode it will hold once it lets go: RDMALOCK_MODE_NL, or a
 *	weaker one it converts to
 *
 * Context: process context, in a call of the domain; sleeps.
 * Return: 0, also when @lk writes nothing back or lost its lock (its
 * release reports that), or the write-back's error.
 */
int rdmalock_release_value(struct rdmalock_lock *lk, unsigned int to)
{
	struct rdmalock_lockspace *ls = lk->dom->ls;
	int ret;

	if (!lk->lvb || !rdmalock_value_writes(lk->mode))
		return 0;
	ret = rdmalock_gate_enter(ls, &rdmalock_forever);
	if (ret)
		return 0;	/* fenced: the release reports the loss */
	if (!READ_ONCE(lk->w->gone))
		ret = rdmalock_value_write_back(lk, to);
	rdmalock_gate_leave(ls);
	if (ret)
		pr_err_ratelimited("%s: lock %llu: the LVB was not written back: %d\n",
				   lk->dom->attr.name, lk->id, ret);
	return ret;
}

/*
 * A destroyed domain grants nothing: a call that starts after the
 * destruction fails at once; one under way fails, whatever ended it,
 * since the destruction is what did; and a grant that came meanwhile is
 * released again while the destruction waits for this call to leave.
 */
int rdmalock_acquire_nofs(struct rdmalock_lock *lk, unsigned int mode,
			  const struct rdmalock_how *how)
{
	struct rdmalock_domain *dom = lk->dom;
	int ret;

	if (rdmalock_lkmode_of(mode) == RDMALOCK_LK_IV)
		return -EINVAL;
	if (rdmalock_lock_holds(lk))
		return -EBUSY;
	ret = rdmalock_domain_enter(dom);
	if (ret)
		return ret;
	lk->mode = mode;
	/* NL takes no word: it keeps the name, and blocks nobody. */
	if (mode == RDMALOCK_MODE_NL) {
		lk->nl = true;
		rdmalock_domain_leave(dom);
		return 0;
	}
	ret = rdmalock_acquire_slot(lk, rdmalock_word_mode(dom->ls, mode), how);
	if (!ret && lk->ent)
		ret = rdmalock_acquire_granted(lk, how);
	if (rdmalock_domain_closed(dom)) {
		if (!ret)
			rdmalock_give_back(lk);
		lk->w = NULL;
		ret = -ESHUTDOWN;
	}
	rdmalock_domain_leave(dom);
	return ret;
}

/*
 * Lock calls come from filesystems, on their writeback path too: nothing
 * they allocate, here or in the fabric, may enter a filesystem's reclaim.
 */
int rdmalock_acquire(struct rdmalock_lock *lk, unsigned int mode,
		     const struct rdmalock_how *how)
{
	unsigned int nofs = memalloc_nofs_save();
	int ret = rdmalock_acquire_nofs(lk, mode, how);

	memalloc_nofs_restore(nofs);
	return ret;
}

/* The synchronous calls: not while the handle has a request under way. */
static int rdmalock_acquire_sync(struct rdmalock_lock *lk, unsigned int mode,
				 const struct rdmalock_how *how)
{
	if (rdmalock_request_busy(lk))
		return -EBUSY;
	return rdmalock_acquire(lk, mode, how);
}

/**
 * rdmalock_lock() - take a lock, sleeping until it is granted
 * @lk: the handle
 * @mode: RDMALOCK_MODE_*: one of DLM's six. NL is granted at once, takes
 *	no lock word and blocks nobody; the others are served with the lock
 *	word held shared or exclusive, never weaker than DLM's matrix needs
 *	(Documentation/dlm.rst): algorithms without a shared mode (alock,
 *	cas, mcs) serve every mode but NL exclusive
 *
 * Waiters sleep; so may the holder, in its critical section, for as long
 * as it likes: a lock is taken from a holder only when its node leaves the
 * domain's membership view (Documentation/membership.rst), except in a
 * ShiftLock or DSLR domain created with lease recovery, where a holder
 * slower than the domain's lease may lose it (see rdmalock_unlock()).
 *
 * Context: process context; sleeps, not interruptibly.
 * Return: 0; -ENOTCONN when the lock's home node is lost or not in the
 * view, or this node is not a member of it; -ENOLCK when this node was
 * fenced (it lost its node lease) while the call waited; -ESHUTDOWN when
 * the domain is or was destroyed: a destroyed domain grants nothing more,
 * and waiters fail at its destruction; -EINVAL for a bad mode; -EBUSY
 * when @lk already holds its lock (in any mode: rdmalock_lock_convert()
 * changes it), or has a request under way (rdmalock_lock_async()). A
 * node whose queue descriptors (the domain's
 * &rdmalock_domain_create.descriptors) are all taken by acquisitions under
 * way makes the call wait for one, and tells its holders of named locks
 * with a blocking callback that a request waits for their locks. Under
 * ShiftLock with lease recovery only: -ENOTCONN also when the node of the
 * waiter queued before this one is lost. ShiftLock or DSLR with lease
 * recovery only: -ECONNRESET when the lock was reset, after a holder
 * failed, while this one waited: try again; -ETIME when the grant came
 * after this holder's lease had run out (or, under DSLR, two polls of
 * the waiter came more than half a lease apart): the lock is not held,
 * and is free again once a waiter has it reset.
 */
int rdmalock_lock(struct rdmalock_lock *lk, unsigned int mode)
{
	return rdmalock_acquire_sync(lk, mode, &rdmalock_forever);
}
EXPORT_SYMBOL_GPL(rdmalock_lock);

/**
 * rdmalock_lock_killable() - take a lock unless a fatal signal comes first
 * @lk: the handle
 * @mode: as for rdmalock_lock()
 *
 * Context: process context; sleeps.
 * Return: as rdmalock_lock(), or -EINTR.
 */
int rdmalock_lock_killable(struct rdmalock_lock *lk, unsigned int mode)
{
	static const struct rdmalock_how killable = { .killable = true };

	return rdmalock_acquire_sync(lk, mode, &killable);
}
EXPORT_SYMBOL_GPL(rdmalock_lock_killable);

/**
 * rdmalock_lock_timeout() - take a lock unless @timeout passes first
 * @lk: the handle
 * @mode: as for rdmalock_lock()
 * @timeout: in jiffies
 *
 * Context: process context; sleeps.
 * Return: as rdmalock_lock(), or -ETIMEDOUT.
 */
int rdmalock_lock_timeout(struct rdmalock_lock *lk, unsigned int mode,
			  unsigned long timeout)
{
	struct rdmalock_how how = {
		.deadline = jiffies + timeout,
		.timed = true,
	};

	return rdmalock_acquire_sync(lk, mode, &how);
}
EXPORT_SYMBOL_GPL(rdmalock_lock_timeout);

/**
 * rdmalock_trylock() - take a lock if that needs no waiting
 * @lk: the handle
 * @mode: as for rdmalock_lock()
 *
 * It still takes RDMA round trips when the lock is homed elsewhere.
 *
 * Context: process context; sleeps.
 * Return: as rdmalock_lock(), or -EAGAIN when the lock is taken.
 */
int rdmalock_trylock(struct rdmalock_lock *lk, unsigned int mode)
{
	static const struct rdmalock_how try = { .try = true };

	return rdmalock_acquire_sync(lk, mode, &try);
}
EXPORT_SYMBOL_GPL(rdmalock_trylock);

/* rdmalock_unlock(), in a scope where no allocation enters a filesystem. */
static int rdmalock_unlock_nofs(struct rdmalock_lock *lk)
{
	struct rdmalock_domain *dom = lk->dom;
	struct rdmalock_waiter *w = lk->w;
	int ret, value_ret;

	if (lk->nl) {
		lk->nl = false;
		return 0;
	}
	if (WARN_ON_ONCE(!w))
		return -EINVAL;
	/* No blocking callback once the release began. */
	rdmalock_blocking_unhold(lk);
	ret = rdmalock_domain_enter(dom);
	if (ret) {
		/* Nothing of the domain grants any more: only the memory is left. */
		lk->w = NULL;
		rdmalock_desc_free(dom->ls, w);
		return ret;
	}
	value_ret = rdmalock_release_value(lk, RDMALOCK_MODE_NL);
	ret = rdmalock_give_back(lk);
	rdmalock_domain_leave(dom);
	if (ret)
		pr_err_ratelimited("%s: lock %llu: release failed: %d\n",
				   lk->dom->attr.name, lk->id, ret);
	return ret ?: value_ret;
}

/**
 * rdmalock_unlock() - release a lock taken through @lk
 * @lk: the handle
 *
 * The handle is free again whatever this returns.
 *
 * Context: process context; sleeps.
 * Return: 0; -ENOLCK when this node was fenced while @lk held the lock,
 * and -ENOTCONN when the lock's home node left the view meanwhile: the
 * lock was lost, and others may have been granted it since; -ESHUTDOWN
 * when the domain was destroyed while @lk held the lock: likewise;
 * -EINVAL when @lk holds nothing. Under ShiftLock or DSLR with lease
 * recovery only: -ETIME when the lease had expired before the release
 * (or, under DSLR, the release found the lock reset past it): the lock
 * may have been taken from this holder meanwhile, so its critical
 * section may not have been exclusive. Under ShiftLock with lease
 * recovery only: -ECONNRESET when the lock was found reset. With an LVB
 * (rdmalock_lock_set_value()) after an exclusive grant, also the error of
 * its write-back: the lock is released all the same, and the LVB keeps
 * its old contents.
 */
int rdmalock_unlock(struct rdmalock_lock *lk)
{
	unsigned int nofs = memalloc_nofs_save();
	int ret = rdmalock_unlock_nofs(lk);

	memalloc_nofs_restore(nofs);
	return ret;
}
EXPORT_SYMBOL_GPL(rdmalock_unlock);

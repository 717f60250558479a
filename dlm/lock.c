// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock_dlm: DLM locks as rdmalock lock handles.
 *
 * A DLM lock, named by the lock id dlm_lock() writes into its lksb, is
 * one rdmalock handle on the named lock, kept from its first request to
 * its unlock. dlm_lock() asks for it with rdmalock_lock_async(), or
 * converts it with rdmalock_lock_convert_async(), or, for a conversion
 * that waits for nobody (to NL, from PW or EX), rdmalock_lock_convert()
 * on the lockspace's own work queue, so that a demote never waits for a
 * worker of the request queue, whose requests may wait for other nodes'
 * demotes (but one that lost its lock, and asks for it again there); the
 * request's end fills the lksb and calls the ast, 100 ms later for a
 * failed request without NOQUEUE (RDMALOCK_DLM_AST_DELAY_MS), which GFS2
 * would ask for again at once, and cancel then. A conversion that waits
 * for nobody never fails, as in DLM: GFS2 takes a failed one from EX for
 * a bug. While this node is a member, one that failed is asked for again
 * until granted (rdmalock_dlm_convert_again()), and it cannot be
 * cancelled, as DLM's cannot; once this node is not a member, or the
 * lockspace is being released, one that lost the lock, as a fenced
 * node's do, is told as done (rdmalock_dlm_ended()). The handle's
 * blocking callback is the bast. dlm_unlock() releases the lock
 * on the lockspace's work queue, and that ends with the ast, status
 * -DLM_EUNLOCK; with DLM_LKF_CANCEL it cancels the request under way,
 * whose ast then says -DLM_ECANCEL, or 0 when the grant came first, as
 * DLM allows. A new lock whose first request fails is gone after its
 * ast, as in DLM; so is one whose name could not be resolved (its home
 * not reachable, this node fenced, the home's table full): dlm_lock()
 * fails at once only for bad arguments and memory, as DLM's does.
 *
 * DLM's six modes are rdmalock's (PR is RDMALOCK_MODE_SH), served as
 * Documentation/api.rst says for the domain's algorithm. DLM_LKF_NOQUEUE
 * is RDMALOCK_REQ_NOQUEUE, and NOQUEUEBAST RDMALOCK_REQ_NOQUEUE_ASK: the
 * holders in the way of a refused request hear of it, which GFS2's
 * deletes rely on. A ShiftLock request cancelled after its first atomic
 * stays in the lock's queue until it is let in, where DLM takes it out
 * (Documentation/gfs2.rst). VALBLK asks
 * for the LVB at lksb.sb_lvbptr on the lock's first request: the handle
 * keeps it for every grant and release.
 * QUECVT, ALTPR, ALTCW, HEADQUE, NOORDER and EXPEDITE change nothing:
 * the alternate mode is never granted. A bast says EX for a waiting
 * request that excludes every holder, PR for one that excludes writers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/slab.h>

#include "shim.h"

/* &rdmalock_dlm_lkb.busy */
#define RDMALOCK_DLM_BUSY	0

/*
 * struct rdmalock_dlm_lkb - one DLM lock
 * @ls: its lockspace
 * @lk: the handle; NULL for a new lock whose name was not resolved
 * @lksb: the caller's status block
 * @ast: the completion callback of the request under way, or of the unlock
 * @bast: the blocking callback, or NULL
 * @astarg: their argument
 * @lkid: the lock's id, in @ls->lkbs until its unlock
 * @mode: the DLM mode it holds, once @held
 * @req_mode: the mode the request under way asks for
 * @busy: RDMALOCK_DLM_BUSY while a request is under way, until its ast,
 *	and from the end of a first request that failed, or from its unlock
 * @held: a request of it was granted once: the lock exists until unlocked
 * @unlocking: @work releases the lock and calls @ast; else it only frees
 * @noqueue: the request under way was asked with DLM_LKF_NOQUEUE
 * @reacquire: the conversion under way, which waits for nobody, lost the
 *	lock: its mode is asked for from NL, on the request queue
 * @failure: why its request under way failed before it started
 * @work: the end of the lock, out of the caller's context
 * @convert_down: a conversion that waits for nobody, out of the caller's
 *	context but not on the request queue, and again after a failure
 *	that changed nothing
 * @failed: the end, through the ast, of the request that failed for @failure
 * @delayed_ast: the ast of a failed request, RDMALOCK_DLM_AST_DELAY_MS
 *	after its end
 */
struct rdmalock_dlm_lkb {
	struct rdmalock_dlm_ls *ls;
	struct rdmalock_lock *lk;
	struct dlm_lksb *lksb;
	void (*ast)(void *astarg);
	void (*bast)(void *astarg, int mode);
	void *astarg;
	u32 lkid;
	int mode;
	int req_mode;
	unsigned long busy;
	bool held;
	bool unlocking;
	bool noqueue;
	bool reacquire;
	int failure;
	struct work_struct work;
	struct delayed_work convert_down;
	struct work_struct failed;
	struct delayed_work delayed_ast;
};

/*
 * How long the ast of a failed request waits, for one that did not ask
 * NOQUEUE. GFS2 asks again at once for a lock it was refused, and for
 * one whose request failed when it has no holder to tell (a demote): a
 * failure that lasts until a view change (a home lost), or as long as
 * this node is out of the view, or longer (a home's full table), would
 * otherwise be asked for again tens of thousands of times a second.
 */
#define RDMALOCK_DLM_AST_DELAY_MS	100

static const unsigned int rdmalock_dlm_modes[] = {
	[DLM_LOCK_NL] = RDMALOCK_MODE_NL,
	[DLM_LOCK_CR] = RDMALOCK_MODE_CR,
	[DLM_LOCK_CW] = RDMALOCK_MODE_CW,
	[DLM_LOCK_PR] = RDMALOCK_MODE_PR,
	[DLM_LOCK_PW] = RDMALOCK_MODE_PW,
	[DLM_LOCK_EX] = RDMALOCK_MODE_EX,
};

static void rdmalock_dlm_bast(void *arg, unsigned int mode)
{
	struct rdmalock_dlm_lkb *lkb = arg;
	void (*bast)(void *astarg, int mode) = READ_ONCE(lkb->bast);

	if (bast)
		bast(READ_ONCE(lkb->astarg),
		     mode == RDMALOCK_MODE_EX ? DLM_LOCK_EX : DLM_LOCK_PR);
}

/*
 * A request's end as DLM says it; GFS2 takes no status but these. GFS2
 * asks again at once for a lock it was refused (-EAGAIN); that suits a
 * failure that a view change ends (the home lost, a name not resolved
 * yet, a claim that failed), once the ast is delayed
 * (RDMALOCK_DLM_AST_DELAY_MS). While this node is out of the view (it
 * fenced itself, or the domain was destroyed) every request fails at
 * once: such a failure ends the request as one that timed out, which
 * GFS2 takes for an I/O error of the request, and a withdraw waits for
 * these requests to end.
 */
static int rdmalock_dlm_status(struct rdmalock_dlm_lkb *lkb, int status)
{
	switch (status) {
	case 0:
	case -EAGAIN:
	case -EDEADLK:
		return status;
	case -ECANCELED:
		return -DLM_ECANCEL;
	}
	pr_err_ratelimited("lock %u: request failed: %d\n", lkb->lkid, status);
	if (!rdmalock_domain_member(lkb->ls->dom))
		return -ETIMEDOUT;
	return -EAGAIN;
}

/* Tells @lkb's caller that its request ended, as the lksb says. */
static void rdmalock_dlm_tell(struct rdmalock_dlm_lkb *lkb)
{
	struct rdmalock_dlm_ls *ls = lkb->ls;
	void (*ast)(void *astarg) = lkb->ast;
	void *astarg = lkb->astarg;

	if (lkb->held) {
		clear_bit_unlock(RDMALOCK_DLM_BUSY, &lkb->busy);
	} else {
		/* Never granted: the lock is gone once its ast is told. */
		xa_erase(&ls->lkbs, lkb->lkid);
		queue_work(ls->wq, &lkb->work);
	}
	ast(astarg);
	if (atomic_dec_and_test(&ls->requests))
		wake_up(&ls->idle);
}

static void rdmalock_dlm_tell_delayed(struct work_struct *work)
{
	rdmalock_dlm_tell(container_of(to_delayed_work(work),
				       struct rdmalock_dlm_lkb, delayed_ast));
}

/*
 * Does a conversion from @from to @to wait for other holders? Not to NL,
 * which is a release, nor from PW or EX, which every algorithm serves
 * exclusive, so that the conversion keeps the word or converts it down.
 */
static bool rdmalock_dlm_may_wait(int from, int to)
{
	return to != DLM_LOCK_NL && from != DLM_LOCK_PW && from != DLM_LOCK_EX;
}

/*
 * A conversion that waits for nobody failed with @err while this node is
 * a member: as DLM's, it does not fail. One that changed nothing (a
 * verb's error writing the LVB back), its lock still held in the old
 * mode, is asked for again; one that left the handle in NL asks for its
 * mode again from NL, an acquisition (@lkb->reacquire), until granted.
 *
 * Return: true when asked for again: the ast comes later.
 */
static bool rdmalock_dlm_convert_again(struct rdmalock_dlm_lkb *lkb, int err)
{
	/* The domain's or the caller's errors, which no retry changes. */
	if (err == -EOPNOTSUPP || err == -EINVAL || err == -EBUSY ||
	    READ_ONCE(lkb->ls->dropping) || !rdmalock_domain_member(lkb->ls->dom))
		return false;
	if (rdmalock_lock_mode(lkb->lk) != RDMALOCK_MODE_NL) {
		pr_err_ratelimited("lock %u: conversion from %d to %d: %d, asked again\n",
				   lkb->lkid, lkb->mode, lkb->req_mode, err);
	} else if (lkb->req_mode != DLM_LOCK_NL) {
		pr_err_ratelimited("lock %u: conversion from %d to %d lost the lock: %d, asked for from NL\n",
				   lkb->lkid, lkb->mode, lkb->req_mode, err);
		WRITE_ONCE(lkb->reacquire, true);
	} else {
		return false;
	}
	queue_delayed_work(lkb->ls->wq, &lkb->convert_down,
			   msecs_to_jiffies(RDMALOCK_DLM_AST_DELAY_MS));
	return true;
}

/* The completion of rdmalock_lock_async() and _convert_async(). */
static void rdmalock_dlm_ended(void *arg, int status)
{
	struct rdmalock_dlm_lkb *lkb = arg;
	struct dlm_lksb *lksb = lkb->lksb;

	if (status && lkb->held && !rdmalock_dlm_may_wait(lkb->mode, lkb->req_mode)) {
		if (rdmalock_dlm_convert_again(lkb, status))
			return;
		/*
		 * DLM never fails such a conversion, and GFS2 would take the
		 * mode it held for an answer, from EX a bug. What failed left
		 * the handle in NL, as a release to NL does, or this node is
		 * out of the view, or its lockspace is being released: the
		 * lock is lost, as every lock of a fenced node is, its storage
		 * cut off (Documentation/gfs2.rst). (-EOPNOTSUPP, which keeps
		 * the word, is for domains with lease recovery, never named.)
		 */
		pr_err_ratelimited("lock %u: conversion from %d to %d: %d, told as done\n",
				   lkb->lkid, lkb->mode, lkb->req_mode, status);
		status = 0;
	}
	lkb->reacquire = false;
	lksb->sb_flags = 0;
	if (!status) {
		lkb->held = true;
		lkb->mode = lkb->req_mode;
		if (lksb->sb_lvbptr && !rdmalock_lock_lvb_valid(lkb->lk))
			lksb->sb_flags = DLM_SBF_VALNOTVALID;
	}
	lksb->sb_status = rdmalock_dlm_status(lkb, status);
	/*
	 * The lksb is read by the ast only. A NOQUEUE request's caller backs
	 * off itself, and a withdraw's try of its "live" lock must not wait.
	 */
	if (!lkb->noqueue && !READ_ONCE(lkb->ls->dropping) &&
	    (lksb->sb_status == -EAGAIN || lksb->sb_status == -ETIMEDOUT))
		queue_delayed_work(lkb->ls->wq, &lkb->delayed_ast,
				   msecs_to_jiffies(RDMALOCK_DLM_AST_DELAY_MS));
	else
		rdmalock_dlm_tell(lkb);
}

/* @lkb's unlock, or its end after a first request that failed. */
static void rdmalock_dlm_finish(struct work_struct *work)
{
	struct rdmalock_dlm_lkb *lkb = container_of(work, struct rdmalock_dlm_lkb,
						    work);
	int ret;

	if (lkb->unlocking) {
		ret = rdmalock_unlock(lkb->lk);
		if (ret)
			pr_err_ratelimited("lock %u: unlock: %d\n", lkb->lkid, ret);
		lkb->lksb->sb_flags = 0;
		lkb->lksb->sb_status = -DLM_EUNLOCK;
	}
	if (lkb->lk)
		rdmalock_lock_put(lkb->lk);
	/* The ast may free the lksb and the LVB with it: nothing uses them after. */
	if (lkb->unlocking)
		lkb->ast(lkb->astarg);
	kfree(lkb);
}

/*
 * A conversion that waits for nobody; or, once it lost the lock, its mode
 * asked for from NL on the request queue, unless the lockspace is being
 * released: under the lock its release takes to cancel every request.
 */
static void rdmalock_dlm_convert_down(struct work_struct *work)
{
	struct rdmalock_dlm_lkb *lkb = container_of(to_delayed_work(work),
						    struct rdmalock_dlm_lkb,
						    convert_down);
	unsigned int mode = rdmalock_dlm_modes[lkb->req_mode];
	struct rdmalock_dlm_ls *ls = lkb->ls;
	int ret = -ECANCELED;

	if (!lkb->reacquire) {
		rdmalock_dlm_ended(lkb, rdmalock_lock_convert(lkb->lk, mode));
		return;
	}
	xa_lock(&ls->lkbs);
	if (!READ_ONCE(ls->dropping))
		ret = rdmalock_lock_convert_async(lkb->lk, mode, 0,
						  rdmalock_dlm_ended, lkb);
	xa_unlock(&ls->lkbs);
	if (ret)
		rdmalock_dlm_ended(lkb, ret);
}

static void rdmalock_dlm_fail(struct work_struct *work)
{
	struct rdmalock_dlm_lkb *lkb = container_of(work, struct rdmalock_dlm_lkb,
						    failed);

	rdmalock_dlm_ended(lkb, lkb->failure);
}

/*
 * Ends @lkb's request under way for @err through its ast, out of the
 * caller's context, as a failure after dlm_lock() does. GFS2 of 6.1 takes
 * an error of dlm_lock() itself for a bug (6.12 for an I/O error): the
 * withdraw of a fenced node waited for ever for the ast of its "live"
 * lock, whose name no home resolved any more.
 */
static void rdmalock_dlm_fail_later(struct rdmalock_dlm_lkb *lkb, int err)
{
	lkb->failure = err;
	queue_work(lkb->ls->wq, &lkb->failed);
}

static int rdmalock_dlm_ask(struct rdmalock_dlm_lkb *lkb, int mode,
			    u32 flags, bool convert)
{
	unsigned int req_flags = 0;
	int ret;

	if (flags & DLM_LKF_NOQUEUE)
		req_flags = flags & DLM_LKF_NOQUEUEBAST ?
			    RDMALOCK_REQ_NOQUEUE | RDMALOCK_REQ_NOQUEUE_ASK :
			    RDMALOCK_REQ_NOQUEUE;

	lkb->req_mode = mode;
	lkb->noqueue = flags & DLM_LKF_NOQUEUE;
	atomic_inc(&lkb->ls->requests);
	/*
	 * The request queue's workers may all wait for locks that other
	 * nodes hold, which they give up by converting down: those
	 * conversions never wait behind them.
	 */
	if (convert && !rdmalock_dlm_may_wait(lkb->mode, mode)) {
		queue_delayed_work(lkb->ls->wq, &lkb->convert_down, 0);
		return 0;
	}
	if (!lkb->lk)
		ret = lkb->failure;	/* a new lock's name, not resolved */
	else if (convert)
		ret = rdmalock_lock_convert_async(lkb->lk, rdmalock_dlm_modes[mode],
						  req_flags, rdmalock_dlm_ended, lkb);
	else
		ret = rdmalock_lock_async(lkb->lk, rdmalock_dlm_modes[mode],
					  req_flags, rdmalock_dlm_ended, lkb);
	/* Only the caller's mistakes fail dlm_lock() itself, as in DLM. */
	if (ret && ret != -EINVAL && ret != -EBUSY) {
		rdmalock_dlm_fail_later(lkb, ret);
		ret = 0;
	}
	if (ret) {
		atomic_dec(&lkb->ls->requests);
		clear_bit_unlock(RDMALOCK_DLM_BUSY, &lkb->busy);
	}
	return ret;
}

/*
 * A new lock: its handle, its id in the lksb, and its first request; a
 * name that could not be resolved leaves it without a handle, and its
 * request fails through its ast (rdmalock_dlm_ask()).
 */
static int rdmalock_dlm_new(struct rdmalock_dlm_ls *ls, struct rdmalock_dlm_lkb *lkb,
			    int mode, u32 flags, const void *name,
			    unsigned int namelen)
{
	int ret = 0;

	lkb->lk = rdmalock_lock_get_name(ls->dom, name, namelen);
	if (IS_ERR(lkb->lk)) {
		lkb->failure = PTR_ERR(lkb->lk);
		lkb->lk = NULL;
		if (lkb->failure == -EINVAL || lkb->failure == -ENOMEM)
			return lkb->failure;
	} else if (flags & DLM_LKF_VALBLK) {
		ret = lkb->lksb->sb_lvbptr ?
		      rdmalock_lock_set_value(lkb->lk, lkb->lksb->sb_lvbptr, ls->lvblen) :
		      -EINVAL;
	}
	if (!ret && lkb->lk && lkb->bast)
		ret = rdmalock_lock_set_blocking(lkb->lk, rdmalock_dlm_bast, lkb);
	if (!ret)
		ret = xa_alloc(&ls->lkbs, &lkb->lkid, lkb, xa_limit_32b, GFP_NOFS);
	if (ret)
		goto put;
	lkb->lksb->sb_lkid = lkb->lkid;
	set_bit(RDMALOCK_DLM_BUSY, &lkb->busy);
	ret = rdmalock_dlm_ask(lkb, mode, flags, false);
	if (!ret)
		return 0;
	lkb->lksb->sb_lkid = 0;
	xa_erase(&ls->lkbs, lkb->lkid);
put:
	if (lkb->lk)
		rdmalock_lock_put(lkb->lk);
	return ret;
}

/*
 * The lock @lkid, whose status block is @lksb unless that is NULL, made
 * busy for a conversion, or for its release when @release, which takes
 * it out of @ls->lkbs too. Under the lock of @ls->lkbs, where the end of
 * a failed first request cannot free it meanwhile.
 */
static int rdmalock_dlm_take(struct rdmalock_dlm_ls *ls, u32 lkid,
			     struct dlm_lksb *lksb, bool release,
			     struct rdmalock_dlm_lkb **lkbp)
{
	struct rdmalock_dlm_lkb *lkb;
	int ret = 0;

	xa_lock(&ls->lkbs);
	lkb = xa_load(&ls->lkbs, lkid);
	if (!lkb || (lksb && lksb != lkb->lksb))
		ret = -EINVAL;
	else if (test_and_set_bit_lock(RDMALOCK_DLM_BUSY, &lkb->busy))
		ret = -EBUSY;
	else if (release)
		__xa_erase(&ls->lkbs, lkid);
	xa_unlock(&ls->lkbs);
	*lkbp = lkb;
	return ret;
}

/**
 * dlm_lock() - ask for a lock, or convert one
 * @lockspace: from dlm_new_lockspace()
 * @mode: DLM_LOCK_NL to DLM_LOCK_EX
 * @lksb: the lock's status block: its lock id is set here for a new
 *	lock, and read for a conversion; its status and flags at the ast
 * @flags: DLM_LKF_*: CONVERT, NOQUEUE, VALBLK; the rest change nothing
 * @name: a new lock's name
 * @namelen: its length, at most 64
 * @parent_lkid: 0: DLM's parent locks are not built
 * @ast: called once the request ended, from a work queue; 100 ms after
 *	the end of a failed request without NOQUEUE
 * @astarg: the argument of @ast and @bast
 * @bast: called when a waiting request needs the lock, or NULL
 *
 * Context: process context; may sleep.
 * Return: 0, and @ast will be called; -EBUSY when the lock has a request
 * under way; -EINVAL; -ENOMEM.
 */
int dlm_lock(dlm_lockspace_t *lockspace, int mode, struct dlm_lksb *lksb,
	     u32 flags, const void *name, unsigned int namelen,
	     u32 parent_lkid, void (*ast)(void *astarg), void *astarg,
	     void (*bast)(void *astarg, int mode))
{
	struct rdmalock_dlm_ls *ls = lockspace;
	struct rdmalock_dlm_lkb *lkb;
	int ret;

	/* NULL: a withdrawn GFS2 demotes its glocks after leaving. */
	if (!ls || mode < DLM_LOCK_NL || mode > DLM_LOCK_EX || !lksb || !ast ||
	    parent_lkid)
		return -EINVAL;
	if (flags & DLM_LKF_CONVERT) {
		ret = rdmalock_dlm_take(ls, lksb->sb_lkid, lksb, false, &lkb);
		if (ret)
			return ret;
		WRITE_ONCE(lkb->astarg, astarg);
		WRITE_ONCE(lkb->bast, bast);
		lkb->ast = ast;
		return rdmalock_dlm_ask(lkb, mode, flags, true);
	}
	lkb = kzalloc(sizeof(*lkb), GFP_NOFS);
	if (!lkb)
		return -ENOMEM;
	lkb->ls = ls;
	lkb->lksb = lksb;
	lkb->ast = ast;
	lkb->bast = bast;
	lkb->astarg = astarg;
	INIT_WORK(&lkb->work, rdmalock_dlm_finish);
	INIT_DELAYED_WORK(&lkb->convert_down, rdmalock_dlm_convert_down);
	INIT_WORK(&lkb->failed, rdmalock_dlm_fail);
	INIT_DELAYED_WORK(&lkb->delayed_ast, rdmalock_dlm_tell_delayed);
	ret = rdmalock_dlm_new(ls, lkb, mode, flags, name, namelen);
	if (ret)
		kfree(lkb);
	return ret;
}
EXPORT_SYMBOL_GPL(dlm_lock);

/*
 * Under the lock of @lkb's lockspace's lkbs: the ast of @lkb's failed
 * request, if it waits, is called now; a refusal is told as cancelled
 * when @cancel, as it would have been while under way: GFS2 waits for
 * the end of a request it cancels.
 *
 * Return: true when the ast waited.
 */
static bool rdmalock_dlm_ast_now(struct rdmalock_dlm_lkb *lkb, bool cancel)
{
	if (!cancel_delayed_work(&lkb->delayed_ast))
		return false;
	if (cancel && lkb->lksb->sb_status == -EAGAIN)
		lkb->lksb->sb_status = -DLM_ECANCEL;
	queue_delayed_work(lkb->ls->wq, &lkb->delayed_ast, 0);
	return true;
}

/* Cancels the request under way of the lock @lkid. */
static int rdmalock_dlm_cancel(struct rdmalock_dlm_ls *ls, u32 lkid)
{
	struct rdmalock_dlm_lkb *lkb;
	int ret;

	/* Under the lock, the end of a request frees no lock used here. */
	xa_lock(&ls->lkbs);
	lkb = xa_load(&ls->lkbs, lkid);
	if (!lkb)
		ret = -EINVAL;
	else if (rdmalock_dlm_ast_now(lkb, true))
		ret = 0;
	else if (READ_ONCE(lkb->reacquire))
		ret = -EBUSY;	/* a conversion down, which DLM does not cancel */
	else if (!lkb->lk || rdmalock_lock_cancel(lkb->lk))
		ret = -EBUSY;	/* none, or one without a handle, ending */
	else
		ret = 0;
	xa_unlock(&ls->lkbs);
	if (!ret)
		pr_debug("lock %u: request cancelled\n", lkid);
	return ret;
}

/**
 * dlm_unlock() - release a lock, or cancel its request
 * @lockspace: from dlm_new_lockspace()
 * @lkid: the lock's id
 * @flags: DLM_LKF_CANCEL: cancel the request under way; VALBLK changes
 *	nothing (an LVB asked for is written back from PW and EX)
 * @lksb: NULL, or the lock's status block
 * @astarg: the argument of the unlock's ast, or NULL for the lock's
 *
 * Context: process context; does not sleep.
 * Return: 0; -EINVAL for no such lock; -ENODEV for no lockspace; -EBUSY
 * for a release while a request is under way, or a cancel with no
 * request under way.
 */
int dlm_unlock(dlm_lockspace_t *lockspace, u32 lkid, u32 flags,
	       struct dlm_lksb *lksb, void *astarg)
{
	struct rdmalock_dlm_ls *ls = lockspace;
	struct rdmalock_dlm_lkb *lkb;
	int ret;

	/* As after a withdraw: the lockspace was left, nothing to unlock. */
	if (!ls)
		return -ENODEV;
	if (flags & DLM_LKF_CANCEL)
		return rdmalock_dlm_cancel(ls, lkid);
	ret = rdmalock_dlm_take(ls, lkid, lksb, true, &lkb);
	if (ret)
		return ret;
	if (astarg)
		lkb->astarg = astarg;
	lkb->unlocking = true;
	queue_work(ls->wq, &lkb->work);
	return 0;
}
EXPORT_SYMBOL_GPL(dlm_unlock);

/**
 * rdmalock_dlm_drop_locks() - release every lock of a lockspace being released
 * @ls: the lockspace, whose client makes no more calls
 *
 * Requests under way are cancelled and waited for, with their asts, and
 * failed ones get theirs at once; the locks left are released without
 * one.
 *
 * Context: process context; sleeps.
 */
void rdmalock_dlm_drop_locks(struct rdmalock_dlm_ls *ls)
{
	struct rdmalock_dlm_lkb *lkb;
	unsigned long lkid;

	/* Under the lock, no request's end erases and frees its lock. */
	xa_lock(&ls->lkbs);
	WRITE_ONCE(ls->dropping, true);
	xa_for_each(&ls->lkbs, lkid, lkb) {
		if (!rdmalock_dlm_ast_now(lkb, false) && lkb->lk)
			rdmalock_lock_cancel(lkb->lk);
	}
	xa_unlock(&ls->lkbs);
	wait_event(ls->idle, !atomic_read(&ls->requests));
	flush_workqueue(ls->wq);
	xa_for_each(&ls->lkbs, lkid, lkb) {
		xa_erase(&ls->lkbs, lkid);
		rdmalock_unlock(lkb->lk);
		rdmalock_lock_put(lkb->lk);
		kfree(lkb);
	}
}

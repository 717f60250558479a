// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: converting a held lock from one mode to another.
 *
 * A conversion asks of the lock word what the word modes of the two lock
 * modes differ by (lkmode.c, Documentation/dlm.rst):
 *
 * - nothing, between modes served alike (EX and PW; or PR and EX where
 *   every mode is exclusive): granted at once, the LVB moving as DLM
 *   moves it;
 * - an acquisition, from NL, which holds no word: it waits as a request
 *   does, and the handle holds NL until it is granted;
 * - a release that keeps the handle, to NL;
 * - from exclusive to shared, the algorithm's downgrade, which never lets
 *   go of the word (rdmalock_ls_convert()): no writer is granted between
 *   the two holds;
 * - from shared to exclusive, the algorithm's upgrade, which takes the
 *   word in one atomic when this holder is its only one and nobody waits.
 *   Otherwise the conversion is refused with -EDEADLK: a ShiftLock reader
 *   queued as a writer would wait for its own release, and letting go
 *   first would be a release and a new acquisition reported as a
 *   conversion. The handle keeps its mode, as after DLM's conversion
 *   deadlock, and its owner may let go and ask again. The other holders
 *   hear a blocking callback, as from an exclusive request that waits,
 *   so that an owner that asks again, as GFS2 does, finds them gone.
 *
 * A conversion that fails changed nothing, or left the handle in NL: it
 * never leaves a handle holding its word in a mode it did not ask for.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched/mm.h>

#include "blocking.h"
#include "cluster.h"
#include "locks.h"
#include "values.h"

/* @lk holds NL from now on, its word, if any, given back: as its release says. */
static int rdmalock_hold_nl(struct rdmalock_lock *lk)
{
	int ret = lk->w ? rdmalock_give_back(lk) : 0;

	lk->mode = RDMALOCK_MODE_NL;
	lk->nl = true;
	return ret;
}

/* A step that may have cost @lk its word failed: it holds NL. */
static int rdmalock_convert_fail(struct rdmalock_lock *lk, int err)
{
	rdmalock_hold_nl(lk);
	return err;
}

/* Between modes served alike: only the value moves, inside the gate. */
static int rdmalock_convert_keep(struct rdmalock_lock *lk, unsigned int to)
{
	struct rdmalock_lockspace *ls = lk->dom->ls;
	unsigned int from = lk->mode;
	int ret;

	lk->mode = to;
	if (lk->nl || !lk->values)
		return 0;
	ret = rdmalock_gate_enter(ls, &rdmalock_forever);
	if (ret)
		return rdmalock_convert_fail(lk, ret == -ENOTCONN ? -ENOLCK : ret);
	ret = READ_ONCE(lk->w->gone) ?: rdmalock_value_on_convert(lk, from);
	rdmalock_gate_leave(ls);
	return ret ? rdmalock_convert_fail(lk, ret) : 0;
}

/* From NL: an acquisition, which leaves the handle in NL if it fails. */
static int rdmalock_convert_from_nl(struct rdmalock_lock *lk, unsigned int to,
				    const struct rdmalock_how *how)
{
	int ret;

	lk->nl = false;
	ret = rdmalock_acquire_nofs(lk, to, how);
	return ret ? rdmalock_convert_fail(lk, ret) : 0;
}

/* To NL: a release, as rdmalock_unlock()'s, that keeps the handle. */
static int rdmalock_convert_to_nl(struct rdmalock_lock *lk)
{
	int value_ret = rdmalock_release_value(lk, RDMALOCK_MODE_NL);

	return rdmalock_hold_nl(lk) ?: value_ret;
}

/*
 * Inside the gate, once the word changed mode: the holder's new class,
 * told at once of the requests that wait for it, and, when @value, the
 * value's move from @from.
 */
static int rdmalock_convert_settle(struct rdmalock_lock *lk, unsigned int from,
				   bool value)
{
	struct rdmalock_lockspace *ls = lk->dom->ls;
	int ret;

	if (!lk->ent)
		return 0;
	ret = rdmalock_gate_enter(ls, &rdmalock_forever);
	if (ret)
		return rdmalock_convert_fail(lk, ret == -ENOTCONN ? -ENOLCK : ret);
	ret = READ_ONCE(lk->w->gone);
	if (!ret && value && lk->values)
		ret = rdmalock_value_on_convert(lk, from);
	if (!ret)
		ret = rdmalock_blocking_granted(lk);
	rdmalock_gate_leave(ls);
	return ret ? rdmalock_convert_fail(lk, ret) : 0;
}

/*
 * From an exclusive word to a shared one. The LVB goes back first, while
 * the word still excludes every other holder.
 */
static int rdmalock_convert_downgrade(struct rdmalock_lock *lk, unsigned int to)
{
	struct rdmalock_lockspace *ls = lk->dom->ls;
	unsigned int from = lk->mode;
	int ret;

	if (!rdmalock_ls_can_convert(ls))
		return -EOPNOTSUPP;
	ret = rdmalock_release_value(lk, to);
	if (ret)
		return ret;
	rdmalock_blocking_unhold(lk);
	ret = rdmalock_ls_convert(ls, lk->w, false);
	if (ret)
		return rdmalock_convert_fail(lk, ret);
	lk->mode = to;
	return rdmalock_convert_settle(lk, from, false);
}

/*
 * From a shared word to an exclusive one, when the algorithm can take it
 * now; the value is then read, and a new writer takes a token.
 */
static int rdmalock_convert_upgrade(struct rdmalock_lock *lk, unsigned int to)
{
	struct rdmalock_lockspace *ls = lk->dom->ls;
	unsigned int from = lk->mode;
	int ret;

	if (!rdmalock_ls_can_convert(ls))
		return -EDEADLK;
	ret = rdmalock_ls_convert(ls, lk->w, true);
	if (ret == -EAGAIN) {
		rdmalock_blocking_ask(lk, RDMALOCK_MODE_EX);
		return -EDEADLK;
	}
	if (ret)
		return rdmalock_convert_fail(lk, ret);
	rdmalock_blocking_unhold(lk);
	lk->mode = to;
	return rdmalock_convert_settle(lk, from, true);
}

static int rdmalock_convert_nofs(struct rdmalock_lock *lk, unsigned int mode,
				 const struct rdmalock_how *how)
{
	struct rdmalock_domain *dom = lk->dom;
	enum rdmalock_lkmode to = rdmalock_lkmode_of(mode);
	int ret;

	if (to == RDMALOCK_LK_IV || !rdmalock_lock_holds(lk))
		return -EINVAL;
	ret = rdmalock_domain_enter(dom);
	if (ret)
		return ret;
	switch (rdmalock_lkmode_convert(dom->ls->algo->shared,
					rdmalock_lkmode_of(lk->mode), to)) {
	case RDMALOCK_CONV_KEEP:
		ret = rdmalock_convert_keep(lk, mode);
		break;
	case RDMALOCK_CONV_UP:
		ret = lk->nl ? rdmalock_convert_from_nl(lk, mode, how) :
		      rdmalock_convert_upgrade(lk, mode);
		break;
	default:
		ret = to == RDMALOCK_LK_NL ? rdmalock_convert_to_nl(lk) :
		      rdmalock_convert_downgrade(lk, mode);
	}
	rdmalock_domain_leave(dom);
	return ret;
}

/**
 * rdmalock_convert() - convert @lk's lock to @mode, waiting as @how says
 * @lk: a handle holding its lock
 * @mode: RDMALOCK_MODE_*
 * @how: how an acquisition from NL may wait
 *
 * Context: process context; sleeps.
 * Return: as rdmalock_lock_convert().
 */
int rdmalock_convert(struct rdmalock_lock *lk, unsigned int mode,
		     const struct rdmalock_how *how)
{
	unsigned int nofs = memalloc_nofs_save();
	int ret = rdmalock_convert_nofs(lk, mode, how);

	memalloc_nofs_restore(nofs);
	return ret;
}

/**
 * rdmalock_lock_convert() - change the mode a handle holds its lock in
 * @lk: a handle holding its lock, in any mode (NL too), with no request
 *	under way
 * @mode: the mode wanted, RDMALOCK_MODE_*
 *
 * The lock is never let go of in between. Between modes that the domain's
 * algorithm serves alike (Documentation/dlm.rst) the conversion is
 * granted at once. From NL it is an acquisition, which waits as
 * rdmalock_lock() does; to NL, a release that keeps the handle. From a
 * mode served exclusive to one served shared (EX to PR in a ShiftLock
 * domain) the algorithm converts its lock word down without letting go:
 * no exclusive request is granted in between, and waiting shared ones
 * are granted with it. The other way (PR to EX), it converts the word up
 * in one step when @lk is its only holder and no request waits, and
 * refuses otherwise, telling the other holders (their blocking callbacks
 * hear EX) so that a conversion asked again may be granted once they let
 * go. The LVB moves as DLM moves it: a PW or EX holder
 * converting down writes its LVB back; a holder converting up reads the
 * home's, and an exclusive one takes a new fencing token. The handle's
 * blocking callback hears, from then on, of the requests its new mode
 * blocks.
 *
 * Context: process context; sleeps.
 * Return: 0, and @lk holds its lock in @mode; -EINVAL for a bad mode or
 * a handle holding nothing; -EBUSY when a request of @lk is under way;
 * -EDEADLK from a mode served shared to one served exclusive, which the
 * algorithm cannot grant now without letting go (others hold the lock or
 * wait for it; or a ShiftLock domain with lease recovery): @lk keeps its
 * mode; -EOPNOTSUPP from exclusive to shared in a ShiftLock domain with
 * lease recovery: likewise; -ESHUTDOWN when the domain was destroyed
 * (before the conversion began: after it, @lk holds NL). From NL,
 * an error of rdmalock_lock(): @lk still holds NL. Otherwise the
 * error that lost the lock, as rdmalock_unlock() reports it (-ENOLCK,
 * -ENOTCONN), or of a verb: @lk holds NL then, and, from PW or EX with an
 * LVB, the LVB may not have been written back; but for a verb's error
 * writing the LVB back before an exclusive word is converted down to a
 * shared one, which changed nothing. rdmalock_lock_mode() says which.
 */
int rdmalock_lock_convert(struct rdmalock_lock *lk, unsigned int mode)
{
	if (rdmalock_request_busy(lk))
		return -EBUSY;
	return rdmalock_convert(lk, mode, &rdmalock_forever);
}
EXPORT_SYMBOL_GPL(rdmalock_lock_convert);

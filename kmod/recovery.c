// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock recovery: what a view change does to the locks of a domain
 * whose algorithm recovers through membership (&rdmalock_algo.recover_hold).
 *
 * The gate. Every lock call passes it: open, the call goes on; closed (a
 * view change is under way), it waits; out (this node is not a member),
 * it fails. Closing it wakes every waiter, which leaves its queue without
 * a verb (-ERESTART: the queue is about to be reset) and waits at the
 * gate to start again. Calls inside are counted, so a view change knows
 * when no verb of this node is under way any more (quiesced).
 *
 * Once every member has quiesced, each resets the lock words of its own
 * table and forgets every descriptor that holds nothing (waiters that
 * left, lost and abandoned ones); once every table is reset, each member
 * claims, at their homes, the locks its live holders hold. A holder keeps
 * its lock through any number of view changes; a waiter starts again in
 * the new view; nothing a departed node held or queued survives it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "cluster.h"
#include "locks.h"
#include "names.h"
#include "rdmalock-pri.h"
#include "values.h"

static void rdmalock_gate_wake_waiters(struct rdmalock_lockspace *ls)
{
	rdmalock_wake_waiters(ls);
	wake_up_all(&ls->gate_wq);
	wake_up_all(&ls->pool_wq);
}

/**
 * rdmalock_gate_shut() - must a waiter leave its queue for a view change?
 * @ls: the lockspace
 *
 * Return: true when the gate is not open, for an algorithm that recovers
 * through the view; such a waiter returns -ERESTART.
 */
bool rdmalock_gate_shut(struct rdmalock_lockspace *ls)
{
	return ls->gated && READ_ONCE(ls->gate) != RDMALOCK_GATE_OPEN;
}

/**
 * rdmalock_gate_leave() - end a call that rdmalock_gate_enter() let in
 * @ls: the lockspace
 */
void rdmalock_gate_leave(struct rdmalock_lockspace *ls)
{
	if (ls->gated && atomic_dec_and_test(&ls->ops))
		wake_up_all(&ls->gate_wq);
}

/* Counts the call in; true when the gate was open. */
static bool rdmalock_gate_try(struct rdmalock_lockspace *ls, int *gate)
{
	atomic_inc(&ls->ops);
	/* Counted before the gate is read; pairs with rdmalock_gate_set(). */
	smp_mb__after_atomic();
	/* Acquire: the view's members, written before the gate opened. */
	*gate = smp_load_acquire(&ls->gate);
	if (*gate == RDMALOCK_GATE_OPEN)
		return true;
	rdmalock_gate_leave(ls);
	return false;
}

/* A call waiting at the closed gate goes on: it opened or shut, or the domain went. */
static bool rdmalock_gate_moved(struct rdmalock_lockspace *ls)
{
	return READ_ONCE(ls->gate) != RDMALOCK_GATE_CLOSED || READ_ONCE(ls->closed);
}

/**
 * rdmalock_gate_enter() - let a lock call in, once no view change is under way
 * @ls: the lockspace
 * @how: how the call may wait
 *
 * Context: process context; sleeps while the gate is closed.
 * Return: 0, the call is counted until rdmalock_gate_leave(); -ENOTCONN
 * when this node is not a member of the view; -EAGAIN for a trylock,
 * -ETIMEDOUT, -EINTR, or -ESHUTDOWN when the domain was destroyed.
 */
int rdmalock_gate_enter(struct rdmalock_lockspace *ls,
			const struct rdmalock_how *how)
{
	long left;
	int gate;

	if (!ls->gated)
		return 0;
	for (;;) {
		if (rdmalock_gate_try(ls, &gate))
			return 0;
		if (gate == RDMALOCK_GATE_OUT)
			return -ENOTCONN;
		if (how->try)
			return -EAGAIN;
		left = rdmalock_how_left(how);
		if (left <= 0)
			return -ETIMEDOUT;
		if (!how->killable)
			wait_event_timeout(ls->gate_wq, rdmalock_gate_moved(ls) ||
					   rdmalock_how_cancelled(how), left);
		else if (wait_event_killable_timeout(ls->gate_wq,
						     rdmalock_gate_moved(ls) ||
						     rdmalock_how_cancelled(how),
						     left) < 0)
			return -EINTR;
		if (READ_ONCE(ls->closed))
			return -ESHUTDOWN;
	}
}

/**
 * rdmalock_gate_await_view() - wait out the view change that an answer met
 * @ls: the lockspace
 * @gen: &rdmalock_lockspace.gate_gen when the request was made
 * @was_open: whether the gate was open then
 * @how: how the wait may go, as rdmalock_gate_enter()'s
 *
 * A peer answers by its own view, which lags this node's while a view
 * change is under way: a home that has not reset yet does not count in
 * a member that comes back, and one that comes back does not count in
 * the others. Once the gate opens here, every member has reset, and the
 * request may be made again.
 *
 * Context: process context, outside the gate and outside a view change's
 * steps; sleeps.
 * Return: true once the gate is open after a view change that began
 * since @gen or was under way; false when the view stood throughout, or
 * rdmalock_gate_enter() failed.
 */
bool rdmalock_gate_await_view(struct rdmalock_lockspace *ls, int gen,
			      bool was_open, const struct rdmalock_how *how)
{
	if (!ls->gated ||
	    (was_open && atomic_read(&ls->gate_gen) == gen && !rdmalock_gate_shut(ls)))
		return false;
	if (rdmalock_gate_enter(ls, how))
		return false;
	rdmalock_gate_leave(ls);
	return true;
}

/**
 * rdmalock_gate_try_enter() - let a call in only if the gate is open now
 * @ls: the lockspace
 *
 * For the passing on of an abandoned grant, which never waits: while a
 * view change is under way the queue it would pass on is being reset.
 *
 * Return: true when the call is counted until rdmalock_gate_leave().
 */
bool rdmalock_gate_try_enter(struct rdmalock_lockspace *ls)
{
	int gate;

	return !ls->gated || rdmalock_gate_try(ls, &gate);
}

/**
 * rdmalock_gate_try_enter_view() - let in work for the queues of @view
 * @ls: the lockspace
 * @view: the view the work is for, from its request
 *
 * A request of a peer that has opened its gate in @view may reach this
 * node before this node has opened its own: its queues are in @view once
 * it has claimed, and the work goes on. Counted like any call, so that
 * the quiesce of a newer view change waits for it; refused once that
 * view change has begun (rdmalock_set_queue_view(ls, 0)).
 *
 * Return: true when the work is counted until rdmalock_gate_leave().
 */
bool rdmalock_gate_try_enter_view(struct rdmalock_lockspace *ls, u64 view)
{
	if (!ls->gated)
		return true;
	atomic_inc(&ls->ops);
	/* Counted before the view is read; pairs with rdmalock_set_queue_view(). */
	smp_mb__after_atomic();
	if (view && READ_ONCE(ls->queue_view) == view)
		return true;
	rdmalock_gate_leave(ls);
	return false;
}

/**
 * rdmalock_set_queue_view() - the queues are now in @view, or in none
 * @ls: the lockspace
 * @view: the epoch of the view this node has claimed in, 0 when a view
 *	change begins
 *
 * Context: any; under the membership's lock.
 */
void rdmalock_set_queue_view(struct rdmalock_lockspace *ls, u64 view)
{
	WRITE_ONCE(ls->queue_view, view);
	/* Set before calls are counted; pairs with rdmalock_gate_try_enter_view(). */
	smp_mb();
}

/**
 * rdmalock_gate_set() - open, close or shut the gate
 * @ls: the lockspace
 * @gate: RDMALOCK_GATE_*
 * @members: the view's members, for an open gate
 *
 * Closing or shutting it wakes every waiter, which leaves its queue.
 *
 * Context: any; does not sleep.
 */
void rdmalock_gate_set(struct rdmalock_lockspace *ls, int gate, u32 members)
{
	if (!ls->gated)
		return;
	if (gate == RDMALOCK_GATE_OPEN)
		WRITE_ONCE(ls->members, members);
	else
		atomic_inc(&ls->gate_gen);
	/* Release: the members before the gate; pairs with rdmalock_gate_try(). */
	smp_store_release(&ls->gate, gate);
	/* The gate is set before calls are counted; pairs with rdmalock_gate_try(). */
	smp_mb();
	rdmalock_gate_wake_waiters(ls);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_gate_set);

/**
 * rdmalock_recovery_quiesce() - wait until no lock call of this node is inside
 * @ls: the lockspace, its gate closed or out
 * @stale: ends the wait early when it returns true
 * @arg: its argument
 *
 * Waiters have left their queues; calls in a verb finish it, which the
 * fabric bounds.
 *
 * Context: process context; sleeps.
 * Return: true when quiesced, false when @stale ended the wait.
 */
bool rdmalock_recovery_quiesce(struct rdmalock_lockspace *ls,
			       bool (*stale)(void *arg), void *arg)
{
	if (!ls->gated)
		return true;
	while (!wait_event_timeout(ls->gate_wq, !atomic_read(&ls->ops) || stale(arg),
				   HZ))
		;
	if (stale(arg))
		return false;
	/* Abandoned grants queued before the gate closed see it closed. */
	rdmalock_abandoned_flush(ls);
	flush_workqueue(ls->wq);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_recovery_quiesce);

/* A descriptor that holds a lock nobody has taken from its holder. */
static bool rdmalock_desc_holds(struct rdmalock_lockspace *ls, u32 idx)
{
	struct rdmalock_waiter *w = &ls->waiters[idx];

	return test_bit(idx, ls->used) && READ_ONCE(w->held) && !READ_ONCE(w->gone);
}

/**
 * rdmalock_recovery_reset() - reset this node's lock table and descriptors
 * @ls: the lockspace, quiesced on every member
 * @members: the new view's members
 * @restarted: those of them that come back holding nothing of before
 *
 * Every lock homed here becomes free, its queue empty; a live holder
 * claims its lock again in the next step. Descriptors that hold nothing
 * are free again: no queue names them once every table is reset. Holders
 * forget their successors, which have left. Names forget the nodes that
 * left (names.c), and LVBs that a holder was to write back are not valid
 * (values.c).
 *
 * Context: process context; sleeps.
 */
void rdmalock_recovery_reset(struct rdmalock_lockspace *ls, u32 members,
			     u32 restarted)
{
	struct rdmalock_waiter *w;
	u32 slot, idx;

	if (!ls->gated)
		return;
	if (ls->names) {
		rdmalock_names_view(ls->names, members, restarted);
		rdmalock_values_recover(ls, members & ~restarted);
		if (restarted & BIT(ls->self))
			rdmalock_values_rejoined(ls);
	}
	/*
	 * Abandoned grants that came in after this node quiesced, before the
	 * others did, see the gate closed and free their descriptors.
	 */
	rdmalock_abandoned_flush(ls);
	flush_workqueue(ls->wq);
	for (slot = 0; slot < ls->locks_per_node; slot++) {
		/* Only the algorithm's words: the torture's stay. */
		memset(rdmalock_slot_word(ls, rdmalock_table_offset(slot), 0), 0,
		       RDMALOCK_SLOT_READERS);
		if (!(slot % 1024))
			cond_resched();
	}
	if (ls->algo->recover_reset)
		ls->algo->recover_reset(ls);
	spin_lock_bh(&ls->pool_lock);
	for_each_set_bit(idx, ls->used, ls->descs) {
		w = &ls->waiters[idx];
		if (rdmalock_desc_holds(ls, idx)) {
			clear_bit(RDMALOCK_EV_LINK, &w->events);
			WRITE_ONCE(*rdmalock_desc_word(ls, idx, RDMALOCK_DESC_NEXT), 0);
			continue;
		}
		if (READ_ONCE(w->held))
			continue;	/* gone: its holder's unlock frees it */
		/* Abandoned no more: no late event queues work for it. */
		atomic_set(&w->state, RDMALOCK_W_GRANTED);
		__clear_bit(idx, ls->used);
		if (w->lost)
			atomic_inc(&ls->recovered);
	}
	spin_unlock_bh(&ls->pool_lock);
	rdmalock_desc_freed(ls);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_recovery_reset);

/**
 * rdmalock_recovery_claim() - claim this node's held locks at their homes
 * @ls: the lockspace; every member's table is reset
 * @members: the new view's members
 *
 * A holder of a named lock whose name is homed elsewhere in the new view
 * claims it at its new home (rdmalock_lock_claim_moved()). A holder of an
 * id's slot whose home is not a member lost its lock with its home
 * (-ENOTCONN at unlock). One whose claim fails is told it lost it
 * (-ENOLCK). The requests of acquisitions abandoned in queues that the
 * reset emptied stop waiting at their homes.
 *
 * Context: process context; sleeps in verbs.
 * Return: 0, or the first claim's error: a claim may have half
 * happened, and a new view change must reset it.
 */
int rdmalock_recovery_claim(struct rdmalock_lockspace *ls, u32 members)
{
	struct rdmalock_waiter *w;
	int ret, err = 0;
	u32 idx;

	if (!ls->gated)
		return 0;
	rdmalock_abandoned_waits_end(ls, true);
	for (idx = 0; idx < ls->descs; idx++) {
		if (!rdmalock_desc_holds(ls, idx))
			continue;
		w = &ls->waiters[idx];
		if (w->lk && rdmalock_name_stale(ls->names, w->lk->ent)) {
			ret = rdmalock_lock_claim_moved(ls, w);
		} else if (!(members & BIT(w->home))) {
			WRITE_ONCE(w->gone, -ENOTCONN);
			continue;
		} else {
			ret = ls->algo->recover_hold(ls, w);
		}
		if (ret) {
			pr_err_ratelimited("%s: descriptor %u: cannot claim its lock at node %u: %d\n",
					   ls->name, idx, w->home, ret);
			WRITE_ONCE(w->gone, -ENOLCK);
			err = err ?: ret;
		}
	}
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_recovery_claim);

/**
 * rdmalock_recovery_fence() - this node lost its lease: it holds nothing
 * @ls: the lockspace
 *
 * The gate is shut, waiters fail with -ENOLCK, and every holder learns at
 * unlock that its lock was lost; the survivors recover them once the
 * lease has run out on their clocks too.
 *
 * Context: any; does not sleep.
 */
void rdmalock_recovery_fence(struct rdmalock_lockspace *ls)
{
	u32 idx;

	if (!ls->gated)
		return;
	rdmalock_set_queue_view(ls, 0);
	rdmalock_gate_set(ls, RDMALOCK_GATE_OUT, 0);
	if (ls->names)
		rdmalock_names_fence(ls->names);
	spin_lock_bh(&ls->pool_lock);
	for_each_set_bit(idx, ls->used, ls->descs)
		if (READ_ONCE(ls->waiters[idx].held))
			WRITE_ONCE(ls->waiters[idx].gone, -ENOLCK);
	spin_unlock_bh(&ls->pool_lock);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_recovery_fence);

/**
 * rdmalock_recover_word0() - claim a lock whose word 0 names its holder
 * @ls: the lockspace
 * @w: the holder
 *
 * The CAS spinlock's word and the MCS tail (and ALock's remote tail) name
 * their sole holder once its queue is gone; the table was reset, so the
 * word is 0 unless another claims it, which would be a second holder.
 *
 * Context: process context; sleeps.
 * Return: 0, -EBUSY when the word was claimed already, or the verb's error.
 */
int rdmalock_recover_word0(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w)
{
	u64 old;
	int ret;

	ret = rdmalock_fabric_cas(ls->fabric, w->home, w->slot_off, 0, w->me, &old);
	if (ret)
		return ret;
	return old ? -EBUSY : 0;
}

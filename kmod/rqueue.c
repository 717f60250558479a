// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: an MCS queue over RDMA, the remote cohort of ALock and the
 * whole of the MCS baseline.
 *
 * The tail word, at the lock's home node, holds the last waiter's
 * descriptor pointer and is changed only by RDMA compare-and-swap: RDMA
 * has no swap, so enqueueing is a CAS loop that starts from "empty" and
 * retries with the value each failure returns. A waiter links itself by
 * writing its pointer into its predecessor's NEXT word and sleeps until
 * the predecessor writes its BUDGET word; both writes carry an immediate,
 * so each wakes the descriptor's owner (struct rdmalock_waiter).
 */
#include "locks.h"
#include "rdmalock_trace.h"

/**
 * rdmalock_rqueue_enqueue() - swap this acquisition onto a queue's tail
 * @ls: the lockspace
 * @w: the acquisition; its descriptor is reset
 * @tail_off: the tail word's offset at @w->home
 * @how: a trylock makes one attempt, at an empty queue
 * @pred: set to the previous tail, 0 when the queue was empty
 *
 * Context: process context; sleeps.
 * Return: 0; -EAGAIN for a trylock that found the queue busy, and then
 * nothing was published; or a verb's error, after which it is unknown
 * whether it was.
 */
int rdmalock_rqueue_enqueue(struct rdmalock_lockspace *ls,
			    struct rdmalock_waiter *w, u64 tail_off,
			    const struct rdmalock_how *how, u64 *pred)
{
	u64 expected = 0, old;
	int ret;

	for (;;) {
		ret = rdmalock_cas(ls, w->home, tail_off, expected, w->me, &old);
		if (ret)
			return ret;
		if (old == expected)
			break;
		if (how->try)
			return -EAGAIN;
		expected = old;
	}
	trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_QUEUED);
	*pred = old;
	return 0;
}

/**
 * rdmalock_rqueue_wait() - link behind a predecessor and wait for the lock
 * @ls: the lockspace
 * @w: the acquisition, enqueued
 * @pred: its predecessor
 * @shortcut: a predecessor on this node is written with a store, not
 *	through the NIC
 * @how: deadline and signal policy
 * @granted: set to the budget handed over
 *
 * On failure the acquisition is over: abandoned (its grant will be passed
 * on), passed on, or lost.
 *
 * Context: process context; sleeps.
 * Return: 0, or -ETIMEDOUT, -EINTR, -ENOTCONN, a verb's error.
 */
int rdmalock_rqueue_wait(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w,
			 u64 pred, bool shortcut, const struct rdmalock_how *how,
			 s64 *granted)
{
	u32 node, idx, gen;
	int ret;

	if (!rdmalock_desc_decode(pred, ls->num_nodes, ls->descs, &node, &idx, &gen))
		w->watch = node;
	trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_LINKED);
	ret = rdmalock_desc_signal(ls, pred, RDMALOCK_EV_LINK, w->me, !shortcut);
	if (ret)
		return rdmalock_acq_fail(ls, w, ret == -EAGAIN ? -EIO : ret);
	ret = rdmalock_wait_event(ls, w, BIT(RDMALOCK_EV_GRANT), how);
	if (ret)
		return rdmalock_wait_cancel(ls, w, ret);
	*granted = READ_ONCE(*rdmalock_desc_word(ls, w->idx, RDMALOCK_DESC_BUDGET));
	return 0;
}

/**
 * rdmalock_rqueue_release() - leave the queue, handing over to a successor
 * @ls: the lockspace
 * @w: the acquisition, at the head of the queue
 * @tail_off: the tail word's offset at @w->home
 * @shortcut: as for rdmalock_rqueue_wait()
 * @pass: the budget handed to the successor
 *
 * A successor that has linked already is handed over to at once; else one
 * CAS tries to empty the queue, and if it fails a successor is between
 * its enqueue and its link, which is waited for.
 *
 * Context: process context; sleeps.
 * Return: 0 or a verb's error.
 */
int rdmalock_rqueue_release(struct rdmalock_lockspace *ls,
			    struct rdmalock_waiter *w, u64 tail_off,
			    bool shortcut, s64 pass)
{
	u64 old, next;
	int ret;

	if (!test_bit(RDMALOCK_EV_LINK, &w->events)) {
		ret = rdmalock_cas(ls, w->home, tail_off, w->me, 0, &old);
		if (ret)
			return ret;
		if (old == w->me)
			return 0;
		ret = rdmalock_wait_event(ls, w, BIT(RDMALOCK_EV_LINK), &rdmalock_forever);
		if (ret)
			return ret;
	}
	next = rdmalock_desc_next(ls, w);
	trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_HANDOVER);
	return rdmalock_desc_signal(ls, next, RDMALOCK_EV_GRANT, pass, !shortcut);
}

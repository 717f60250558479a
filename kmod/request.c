// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: asynchronous lock requests, and their cancellation.
 *
 * A request runs the same acquisition as rdmalock_lock(), on the
 * domain's request work queue instead of in the caller's task, and ends
 * with a completion callback. A cancellation ends its waits as a deadline
 * that passed would (struct rdmalock_cancel): the acquisition leaves its
 * queue the way a timed-out one does, and the callback gets -ECANCELED.
 * A request that is being granted, or waits where an algorithm cannot
 * give up, is granted all the same, as DLM allows.
 *
 * The queue is reclaim-safe, for filesystems that lock on the writeback
 * path. Each request waiting for its lock occupies a worker of the
 * queue; releases never need one (rdmalock_unlock() is synchronous), so
 * a waiting request never waits for another to get a worker.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/workqueue.h>

#include "blocking.h"
#include "cluster.h"
#include "locks.h"

/* &rdmalock_lock.request_busy */
#define RDMALOCK_REQUEST_BUSY	0

/* A NOQUEUE acquisition was refused: tell the holders in its way. */
static void rdmalock_request_ask(struct rdmalock_lock *lk)
{
	if (rdmalock_domain_enter(lk->dom))
		return;
	rdmalock_blocking_ask(lk, lk->request_mode);
	rdmalock_domain_leave(lk->dom);
}

static void rdmalock_request_run(struct work_struct *work)
{
	struct rdmalock_lock *lk = container_of(work, struct rdmalock_lock,
						request_work);
	const struct rdmalock_how how = {
		.try = lk->request_flags & RDMALOCK_REQ_NOQUEUE,
		.cancel = &lk->cancel,
	};
	rdmalock_complete_fn *done = lk->done;
	void *arg = lk->done_arg;
	int ret;

	if (lk->request_convert)
		ret = rdmalock_convert(lk, lk->request_mode, &how);
	else
		ret = rdmalock_acquire(lk, lk->request_mode, &how);
	if (ret == -ETIMEDOUT && READ_ONCE(lk->cancel.requested))
		ret = -ECANCELED;
	/* A refused conversion up asked already; an acquisition asks now. */
	if (ret == -EAGAIN && (lk->request_flags & RDMALOCK_REQ_NOQUEUE_ASK))
		rdmalock_request_ask(lk);
	/* A conversion that would wait for other holders, as DLM says it. */
	if (ret == -EDEADLK && (lk->request_flags & RDMALOCK_REQ_NOQUEUE))
		ret = -EAGAIN;
	/* The handle is the caller's again: @done may use it. */
	clear_bit_unlock(RDMALOCK_REQUEST_BUSY, &lk->request_busy);
	done(arg, ret);
}

/* Queues @lk's request: an acquisition, or a conversion when @convert. */
static int rdmalock_request_queue(struct rdmalock_lock *lk, unsigned int mode,
				  unsigned int flags, bool convert,
				  rdmalock_complete_fn *done, void *arg)
{
	struct rdmalock_domain *dom = lk->dom;
	int ret;

	if (rdmalock_lkmode_of(mode) == RDMALOCK_LK_IV || !done ||
	    (flags & ~RDMALOCK_REQ_FLAGS) ||
	    (flags & (RDMALOCK_REQ_NOQUEUE | RDMALOCK_REQ_NOQUEUE_ASK)) ==
	    RDMALOCK_REQ_NOQUEUE_ASK)
		return -EINVAL;
	if (rdmalock_lock_holds(lk) != convert)
		return convert ? -EINVAL : -EBUSY;
	if (test_and_set_bit_lock(RDMALOCK_REQUEST_BUSY, &lk->request_busy))
		return -EBUSY;
	/* A destroyed domain's queue is gone once no call is inside. */
	ret = rdmalock_domain_enter(dom);
	if (ret) {
		clear_bit_unlock(RDMALOCK_REQUEST_BUSY, &lk->request_busy);
		return ret;
	}
	if (!lk->request_armed) {
		INIT_WORK(&lk->request_work, rdmalock_request_run);
		lk->request_armed = true;
	}
	lk->request_mode = mode;
	lk->request_convert = convert;
	lk->request_flags = flags;
	lk->done = done;
	lk->done_arg = arg;
	lk->cancel = (struct rdmalock_cancel){};
	queue_work(dom->ls->request_wq, &lk->request_work);
	rdmalock_domain_leave(dom);
	return 0;
}

/**
 * rdmalock_lock_async() - ask for a lock, and be called back when it is granted
 * @lk: the handle, holding nothing and asking for nothing
 * @mode: as for rdmalock_lock()
 * @flags: RDMALOCK_REQ_*: with RDMALOCK_REQ_NOQUEUE, the request does not
 *	wait, as rdmalock_trylock() does not; with RDMALOCK_REQ_NOQUEUE_ASK
 *	too, one that is refused tells the holders in its way, as one that
 *	waits would, and ends
 * @done: called once, on the domain's request work queue, with 0 when
 *	@lk holds its lock, -ECANCELED when rdmalock_lock_cancel() ended
 *	the request, -EAGAIN when a NOQUEUE request could not be granted
 *	at once, or an error of rdmalock_lock()
 * @arg: @done's argument
 *
 * The request waits as rdmalock_lock() does, not killable, and its grant
 * is the same: with the handle's value (rdmalock_lock_set_value()) and
 * blocking callback (rdmalock_lock_set_blocking()). @done may release the
 * lock, or ask again, but must not put the handle. A handle with a
 * request must not live on the stack; rdmalock_lock_put() waits for its
 * request to end.
 *
 * Context: process context; does not sleep.
 * Return: 0 when queued: @done will be called; -EBUSY when @lk holds its
 * lock or a request of it is under way; -EINVAL for a bad mode or flag;
 * -ESHUTDOWN when the domain was destroyed.
 */
int rdmalock_lock_async(struct rdmalock_lock *lk, unsigned int mode,
			unsigned int flags, rdmalock_complete_fn *done, void *arg)
{
	return rdmalock_request_queue(lk, mode, flags, false, done, arg);
}
EXPORT_SYMBOL_GPL(rdmalock_lock_async);

/**
 * rdmalock_lock_convert_async() - ask for a conversion, and be called back at its end
 * @lk: the handle, holding its lock and asking for nothing
 * @mode: as for rdmalock_lock_convert()
 * @flags: RDMALOCK_REQ_*: with RDMALOCK_REQ_NOQUEUE, a conversion from
 *	NL does not wait, and one that cannot be granted at once ends with
 *	-EAGAIN, the handle's mode kept (where it would end with -EDEADLK)
 * @done: called once, on the domain's request work queue, with the
 *	result rdmalock_lock_convert() would return, or -ECANCELED when
 *	rdmalock_lock_cancel() ended a conversion from NL (the handle still
 *	holds NL)
 * @arg: @done's argument
 *
 * As rdmalock_lock_async(), for rdmalock_lock_convert().
 *
 * Context: process context; does not sleep.
 * Return: 0 when queued: @done will be called; -EINVAL for a bad mode or
 * flag, or a handle holding nothing; -EBUSY when a request of @lk is
 * under way; -ESHUTDOWN when the domain was destroyed.
 */
int rdmalock_lock_convert_async(struct rdmalock_lock *lk, unsigned int mode,
				unsigned int flags, rdmalock_complete_fn *done,
				void *arg)
{
	return rdmalock_request_queue(lk, mode, flags, true, done, arg);
}
EXPORT_SYMBOL_GPL(rdmalock_lock_convert_async);

/**
 * rdmalock_lock_cancel() - cancel a handle's request
 * @lk: the handle
 *
 * The request ends soon: its callback gets -ECANCELED, or 0 when it was
 * granted all the same; a granted lock is the caller's to release. A
 * cancellation that crosses the request's end cancels nothing.
 *
 * Context: any.
 * Return: 0, or -ENOENT when @lk has no request under way.
 */
int rdmalock_lock_cancel(struct rdmalock_lock *lk)
{
	if (!test_bit(RDMALOCK_REQUEST_BUSY, &lk->request_busy))
		return -ENOENT;
	rdmalock_cancel_request(lk->dom->ls, &lk->cancel);
	return 0;
}
EXPORT_SYMBOL_GPL(rdmalock_lock_cancel);

/**
 * rdmalock_request_busy() - has @lk a request under way?
 * @lk: the handle
 *
 * Return: true from rdmalock_lock_async() until its completion callback.
 */
bool rdmalock_request_busy(const struct rdmalock_lock *lk)
{
	return test_bit(RDMALOCK_REQUEST_BUSY, &lk->request_busy);
}

/**
 * rdmalock_request_forget() - no request of @lk runs after this
 * @lk: a handle being put; a request under way is a bug, warned about,
 *	and cancelled
 *
 * Context: process context; sleeps; not from @lk's completion callback.
 */
void rdmalock_request_forget(struct rdmalock_lock *lk)
{
	if (!lk->request_armed)
		return;
	if (WARN_ON_ONCE(test_bit(RDMALOCK_REQUEST_BUSY, &lk->request_busy)))
		rdmalock_lock_cancel(lk);
	flush_work(&lk->request_work);
}

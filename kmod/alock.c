// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: ALock, the asymmetric lock (Baran, Nelson-Slivon, Tseng and
 * Palmieri, SPAA '24; see shared/specs/alock.md).
 *
 * Two MCS cohorts per lock: the home node's threads queue on TAIL_L with
 * CPU atomics and never touch the NIC; other nodes' threads queue on
 * TAIL_R with RDMA CAS (rqueue.c). A cohort's flag in Peterson's lock is
 * its tail being non-null, so only a cohort's head arbitrates, through
 * VICTIM, which both sides only read and write: TAIL_R is changed only by
 * the NIC, TAIL_L only by the home node's CPU, since the two kinds of
 * atomics are not atomic with each other. A head that receives the lock
 * enters directly while its cohort's budget lasts; the one that receives
 * budget 0 must win Peterson's lock again, which lets a waiting head of
 * the other cohort in.
 *
 * Errata of the printed pseudocode, fixed here (each has a KUnit test):
 * Peterson waits while the other tail is set AND the victim is us (SPAA
 * Alg. 4 prints OR, which never lets a lone thread in); the remote
 * enqueue is a CAS loop, not one CAS (Alg. 3 prints one); the home node
 * reads TAIL_R and VICTIM with loads, never through loopback.
 */
#include <linux/atomic.h>

#include "locks.h"
#include "rdmalock-pri.h"
#include "rdmalock_trace.h"

/* Words of an ALock's slot, as in the paper's Figure 3. */
#define ALOCK_TAIL_R		0	/* word 0: see rdmalock_recover_word0() */
#define ALOCK_TAIL_L		16
#define ALOCK_VICTIM		32
#define ALOCK_LINE_LEN		(ALOCK_VICTIM + sizeof(u64))

#define ALOCK_LOCAL		1
#define ALOCK_REMOTE		2

#define ALOCK_POLL_MAX_US	1000

/**
 * struct rdmalock_alock - an ALock acquisition's own state
 * @budget: the budget this holder passes on, less one
 * @local: it is in the home node's cohort
 */
struct rdmalock_alock {
	s64 budget;
	bool local;
};

/**
 * struct rdmalock_alock_ls - ALock's state of a lockspace
 * @budget_local: the budget of the home node's cohort
 * @budget_remote: the budget of the peers' cohort
 */
struct rdmalock_alock_ls {
	u32 budget_local;
	u32 budget_remote;
};

static struct rdmalock_alock_ls *alock_ls(struct rdmalock_lockspace *ls)
{
	return rdmalock_algo_data(ls);
}

static struct rdmalock_alock *alock_w(struct rdmalock_waiter *w)
{
	return rdmalock_waiter_priv(w);
}

/**
 * rdmalock_alock_must_wait() - Peterson's wait condition
 * @other_tail: the other cohort's tail
 * @victim: the victim word
 * @us: ALOCK_LOCAL or ALOCK_REMOTE, the waiter's cohort
 *
 * Return: true while the other cohort wants the lock and we yielded last.
 */
VISIBLE_IF_KUNIT bool rdmalock_alock_must_wait(u64 other_tail, u64 victim, u64 us)
{
	return other_tail && victim == us;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_alock_must_wait);

static int rdmalock_alock_peterson_local(struct rdmalock_lockspace *ls,
					 struct rdmalock_waiter *w,
					 const struct rdmalock_how *how)
{
	u64 *victim = rdmalock_slot_word(ls, w->slot_off, ALOCK_VICTIM);
	u64 *tail_r = rdmalock_slot_word(ls, w->slot_off, ALOCK_TAIL_R);
	unsigned int us = 1;
	int ret;

	WRITE_ONCE(*victim, ALOCK_LOCAL);
	/* Peterson: our victim store is visible before we read their flag. */
	smp_mb();
	while (rdmalock_alock_must_wait(READ_ONCE(*tail_r), READ_ONCE(*victim),
					ALOCK_LOCAL)) {
		ret = rdmalock_backoff(ls, how, &us, ALOCK_POLL_MAX_US);
		if (ret)
			return ret;
	}
	/* Acquire: the critical section starts after the wait. */
	smp_mb();
	return 0;
}

static int rdmalock_alock_peterson_remote(struct rdmalock_lockspace *ls,
					  struct rdmalock_waiter *w,
					  const struct rdmalock_how *how)
{
	u64 line[ALOCK_LINE_LEN / sizeof(u64)], victim = ALOCK_REMOTE;
	unsigned int us = 1;
	int ret;

	/* Completes before the read below is posted: the order Peterson needs. */
	ret = rdmalock_fabric_write(ls->fabric, w->home, w->slot_off + ALOCK_VICTIM,
				    &victim, sizeof(victim));
	if (ret)
		return ret;
	for (;;) {
		/* TAIL_L and VICTIM from one READ of the slot. */
		ret = rdmalock_fabric_read(ls->fabric, w->home, w->slot_off, line,
					   sizeof(line));
		if (ret)
			return ret;
		if (!rdmalock_alock_must_wait(line[ALOCK_TAIL_L / 8],
					      line[ALOCK_VICTIM / 8], ALOCK_REMOTE))
			return 0;
		ret = rdmalock_backoff(ls, how, &us, ALOCK_POLL_MAX_US);
		if (ret)
			return ret;
	}
}

/*
 * The head of its cohort enters: with the budget it was handed, or, when
 * it found its queue empty or was handed 0, by winning Peterson's lock.
 */
static int rdmalock_alock_enter(struct rdmalock_lockspace *ls,
				struct rdmalock_waiter *w,
				const struct rdmalock_how *how, s64 granted)
{
	struct rdmalock_alock_ls *als = alock_ls(ls);
	struct rdmalock_alock *a = alock_w(w);
	int ret;

	if (granted > 0) {
		a->budget = granted;
		return 0;
	}
	if (a->local)
		ret = rdmalock_alock_peterson_local(ls, w, how);
	else
		ret = rdmalock_alock_peterson_remote(ls, w, how);
	if (!ret) {
		a->budget = a->local ? als->budget_local : als->budget_remote;
		return 0;
	}
	if (!rdmalock_gave_up(ret))
		return rdmalock_acq_fail(ls, w, ret);
	/* Leave the queue so that the next head must arbitrate too. */
	return rdmalock_pass_on(ls, w, 0, ret);
}

static int rdmalock_alock_acquire_local(struct rdmalock_lockspace *ls,
					struct rdmalock_waiter *w,
					const struct rdmalock_how *how)
{
	u64 *tail_l = rdmalock_slot_word(ls, w->slot_off, ALOCK_TAIL_L);
	u64 pred;
	int ret;

	if (how->try) {
		pred = cmpxchg(tail_l, 0, w->me);
		if (pred) {
			atomic64_inc(&ls->cas_failed);
			return rdmalock_acq_fail(ls, w, -EAGAIN);
		}
	} else {
		pred = xchg(tail_l, w->me);
	}
	trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_QUEUED);
	if (!pred)
		return rdmalock_alock_enter(ls, w, how, 0);

	trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_LINKED);
	ret = rdmalock_desc_signal(ls, pred, RDMALOCK_EV_LINK, w->me, false);
	if (ret)
		return rdmalock_acq_fail(ls, w, ret);
	ret = rdmalock_wait_event(ls, w, BIT(RDMALOCK_EV_GRANT), how);
	if (ret)
		return rdmalock_wait_cancel(ls, w, ret);
	return rdmalock_alock_enter(ls, w, how,
				    READ_ONCE(*rdmalock_desc_word(ls, w->idx,
								  RDMALOCK_DESC_BUDGET)));
}

static int rdmalock_alock_acquire_remote(struct rdmalock_lockspace *ls,
					 struct rdmalock_waiter *w,
					 const struct rdmalock_how *how)
{
	s64 granted;
	u64 pred;
	int ret;

	ret = rdmalock_rqueue_enqueue(ls, w, w->slot_off + ALOCK_TAIL_R, how, &pred);
	if (ret)
		return rdmalock_acq_fail(ls, w, ret);
	if (!pred)
		return rdmalock_alock_enter(ls, w, how, 0);
	ret = rdmalock_rqueue_wait(ls, w, pred, true, how, &granted);
	if (ret)
		return ret;
	return rdmalock_alock_enter(ls, w, how, granted);
}

static int rdmalock_alock_acquire(struct rdmalock_lockspace *ls,
				  struct rdmalock_waiter *w,
				  const struct rdmalock_how *how)
{
	struct rdmalock_alock *a = alock_w(w);

	a->local = w->home == ls->self;
	if (a->local)
		return rdmalock_alock_acquire_local(ls, w, how);
	return rdmalock_alock_acquire_remote(ls, w, how);
}

static int rdmalock_alock_release_local(struct rdmalock_lockspace *ls,
					struct rdmalock_waiter *w)
{
	u64 *tail_l = rdmalock_slot_word(ls, w->slot_off, ALOCK_TAIL_L);
	int ret;

	/* Release: the critical section is over before anyone can enter. */
	smp_mb();
	if (!test_bit(RDMALOCK_EV_LINK, &w->events)) {
		if (cmpxchg(tail_l, w->me, 0) == w->me)
			return 0;
		atomic64_inc(&ls->cas_failed);
		ret = rdmalock_wait_event(ls, w, BIT(RDMALOCK_EV_LINK), &rdmalock_forever);
		if (ret)
			return ret;
	}
	trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_HANDOVER);
	return rdmalock_desc_signal(ls, rdmalock_desc_next(ls, w), RDMALOCK_EV_GRANT,
				    alock_w(w)->budget - 1, false);
}

static int rdmalock_alock_release(struct rdmalock_lockspace *ls,
				  struct rdmalock_waiter *w)
{
	if (alock_w(w)->local)
		return rdmalock_alock_release_local(ls, w);
	return rdmalock_rqueue_release(ls, w, w->slot_off + ALOCK_TAIL_R, true,
				       alock_w(w)->budget - 1);
}

/*
 * Passing on never lets the next waiter skip arbitration it would
 * otherwise do: it hands over the budget it received, less one, and at
 * least a budget of 0, which makes the successor win Peterson's lock
 * before it enters.
 */
static int rdmalock_alock_pass_on(struct rdmalock_lockspace *ls,
				  struct rdmalock_waiter *w, s64 granted)
{
	alock_w(w)->budget = max_t(s64, granted, 1);
	return rdmalock_alock_release(ls, w);
}

/*
 * A view change has reset the lock: its holder heads its cohort's queue
 * again, alone. VICTIM is 0, so whoever arrives next arbitrates against
 * the holder's tail. A named lock may have moved home meanwhile: the
 * holder is of the cohort of its new home's node, and releases as such.
 */
static int rdmalock_alock_recover_hold(struct rdmalock_lockspace *ls,
				       struct rdmalock_waiter *w)
{
	u64 *tail_l = rdmalock_slot_word(ls, w->slot_off, ALOCK_TAIL_L);
	struct rdmalock_alock *a = alock_w(w);
	bool local = w->home == ls->self;

	if (a->local != local) {
		a->local = local;
		a->budget = local ? alock_ls(ls)->budget_local :
			    alock_ls(ls)->budget_remote;
	}
	if (!a->local)
		return rdmalock_recover_word0(ls, w);
	return cmpxchg(tail_l, 0, w->me) ? -EBUSY : 0;
}

static const char *rdmalock_alock_check_params(const struct rdmalock_ls_params *params,
					       bool mine)
{
	if (!mine)
		return params->budget_local || params->budget_remote ?
		       "budgets are for alock" : NULL;
	if (params->budget_local > RDMALOCK_ALOCK_BUDGET_MAX ||
	    params->budget_remote > RDMALOCK_ALOCK_BUDGET_MAX)
		return "budget out of range";
	return NULL;
}

static void rdmalock_alock_init(struct rdmalock_lockspace *ls,
				const struct rdmalock_ls_params *params)
{
	struct rdmalock_alock_ls *als = alock_ls(ls);

	als->budget_local = params->budget_local ?: RDMALOCK_ALOCK_BUDGET_LOCAL;
	als->budget_remote = params->budget_remote ?: RDMALOCK_ALOCK_BUDGET_REMOTE;
}

const struct rdmalock_algo rdmalock_alock_algo = {
	.id = RDMALOCK_ALGO_ALOCK,
	.name = "alock",
	.cpu_at_home = true,
	.ls_size = sizeof(struct rdmalock_alock_ls),
	.waiter_size = sizeof(struct rdmalock_alock),
	.check_params = rdmalock_alock_check_params,
	.init = rdmalock_alock_init,
	.acquire = rdmalock_alock_acquire,
	.release = rdmalock_alock_release,
	.pass_on = rdmalock_alock_pass_on,
	.recover_hold = rdmalock_alock_recover_hold,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: the MCS baseline. One RDMA MCS queue per lock, its tail in
 * word 0 of the lock's slot; every acquisition goes through the NIC, the
 * home node's own through loopback, as the ALock paper's competitor did.
 * No shared mode: shared is granted as exclusive.
 */
#include "locks.h"

static int rdmalock_mcs_acquire(struct rdmalock_lockspace *ls,
				struct rdmalock_waiter *w,
				const struct rdmalock_how *how)
{
	s64 granted;
	u64 pred;
	int ret;

	ret = rdmalock_rqueue_enqueue(ls, w, w->slot_off, how, &pred);
	if (ret)
		return rdmalock_acq_fail(ls, w, ret);
	if (!pred)
		return 0;
	return rdmalock_rqueue_wait(ls, w, pred, false, how, &granted);
}

static int rdmalock_mcs_release(struct rdmalock_lockspace *ls,
				struct rdmalock_waiter *w)
{
	/* MCS has no budget; any value that is not -1 hands over. */
	return rdmalock_rqueue_release(ls, w, w->slot_off, false, 1);
}

const struct rdmalock_algo rdmalock_mcs_algo = {
	.id = RDMALOCK_ALGO_MCS,
	.name = "mcs",
	.acquire = rdmalock_mcs_acquire,
	.release = rdmalock_mcs_release,
	.recover_hold = rdmalock_recover_word0,
};

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock_dlm: Linux's DLM interface (<linux/dlm.h>) served by rdmalock,
 * for cluster filesystems that know only DLM (Documentation/gfs2.rst).
 */
#ifndef RDMALOCK_DLM_SHIM_H
#define RDMALOCK_DLM_SHIM_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/dlm.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <rdmalock.h>

/*
 * struct rdmalock_dlm_ls - a DLM lockspace: an rdmalock domain of the same
 * name, with named locks
 * @dom: the domain, held
 * @lvblen: the LVB length of every lock, 32 or 64
 * @ops: the client's recovery callbacks, or NULL
 * @ops_arg: their argument
 * @joined: completed at the first recover_done: this node is a member
 * @lkbs: lock ids (lksb.sb_lkid) to their &struct rdmalock_dlm_lkb
 * @requests: requests under way, until their asts
 * @idle: woken when @requests falls to 0
 * @dropping: rdmalock_dlm_drop_locks() runs: no ast is delayed
 * @wq: where unlocks run and end, and delayed asts are called
 * @slots: recover_done's slots, as DLM gives them
 */
struct rdmalock_dlm_ls {
	struct rdmalock_domain *dom;
	int lvblen;
	const struct dlm_lockspace_ops *ops;
	void *ops_arg;
	struct completion joined;
	struct xarray lkbs;
	atomic_t requests;
	wait_queue_head_t idle;
	bool dropping;
	struct workqueue_struct *wq;
	struct dlm_slot slots[RDMALOCK_MAX_NODES];
};

void rdmalock_dlm_drop_locks(struct rdmalock_dlm_ls *ls);

#endif /* RDMALOCK_DLM_SHIM_H */

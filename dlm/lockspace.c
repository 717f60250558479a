// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock_dlm: DLM lockspaces as rdmalock domains.
 *
 * A lockspace is the domain of the same name, which the administrator
 * created with named locks on every node (rdmalockctl domain create
 * --named), as dlm_controld would have set up a lockspace's nodes. The
 * domain's membership views are the lockspace's recoveries: a node's
 * slot is its id plus one, stable and unique, and the view's epoch is
 * the generation every member is told.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "shim.h"

/* How long a new lockspace waits for this node to be a member of a view. */
#define RDMALOCK_DLM_JOIN_MS	60000

static char *cluster_name = "";
module_param(cluster_name, charp, 0444);
MODULE_PARM_DESC(cluster_name,
		 "The cluster a lockspace must name, as DLM's cluster_name (default: any)");

static void rdmalock_dlm_prep(void *arg)
{
	struct rdmalock_dlm_ls *ls = arg;

	if (ls->ops && ls->ops->recover_prep)
		ls->ops->recover_prep(ls->ops_arg);
}

static void rdmalock_dlm_slot(void *arg, u32 slot)
{
	struct rdmalock_dlm_ls *ls = arg;
	struct dlm_slot gone = { .nodeid = slot, .slot = slot };

	if (ls->ops && ls->ops->recover_slot)
		ls->ops->recover_slot(ls->ops_arg, &gone);
}

static void rdmalock_dlm_done(void *arg, const u32 *slots, u32 num_slots,
			      u32 our_slot, u64 generation)
{
	struct rdmalock_dlm_ls *ls = arg;
	u32 i;

	for (i = 0; i < num_slots && i < ARRAY_SIZE(ls->slots); i++) {
		ls->slots[i].nodeid = slots[i];
		ls->slots[i].slot = slots[i];
	}
	if (ls->ops && ls->ops->recover_done)
		ls->ops->recover_done(ls->ops_arg, ls->slots, i, our_slot,
				      (u32)generation);
	complete_all(&ls->joined);
}

static const struct rdmalock_recovery_ops rdmalock_dlm_recovery = {
	.recover_prep = rdmalock_dlm_prep,
	.recover_slot = rdmalock_dlm_slot,
	.recover_done = rdmalock_dlm_done,
};

/* Waits until this node is a member of a view of the lockspace's domain. */
static int rdmalock_dlm_join(struct rdmalock_dlm_ls *ls, const char *name)
{
	long left;

	left = wait_for_completion_killable_timeout(&ls->joined,
						    msecs_to_jiffies(RDMALOCK_DLM_JOIN_MS));
	if (left > 0)
		return 0;
	if (!left)
		pr_err("lockspace %s: this node is in no view of its domain after %u ms\n",
		       name, RDMALOCK_DLM_JOIN_MS);
	return left ?: -ETIMEDOUT;
}

static int rdmalock_dlm_check(const char *name, const char *cluster,
			      int lvblen)
{
	if (!name)
		return -EINVAL;
	if (lvblen != 32 && lvblen != 64) {
		pr_err("lockspace %s: LVBs of %d bytes; rdmalock has 32 or 64\n",
		       name, lvblen);
		return -EINVAL;
	}
	if (*cluster_name && (!cluster || strcmp(cluster, cluster_name))) {
		pr_err("lockspace %s: cluster \"%s\" is not ours, \"%s\"\n",
		       name, cluster ?: "", cluster_name);
		return -EBADR;
	}
	return 0;
}

/**
 * dlm_new_lockspace() - join the lockspace of rdmalock domain @name
 * @name: the lockspace: an rdmalock domain with named locks
 * @cluster: the cluster's name, checked against the cluster_name
 *	parameter when that is set
 * @flags: DLM_LSFL_*; each lockspace is exclusive here, and callbacks
 *	run in process context
 * @lvblen: the LVB length of every lock: 32 or 64
 * @ops: recovery callbacks, or NULL
 * @ops_arg: their argument
 * @ops_result: set to 0: @ops are called
 * @lockspace: set to the lockspace
 *
 * Returns once this node is a member of a view of the domain, after
 * @ops->recover_done told it its slot.
 *
 * Context: process context; sleeps.
 * Return: 0; -ENOENT when there is no such domain; -EEXIST when it is
 * another lockspace already; -EBADR for another cluster; -EINVAL for a
 * bad name or LVB length, or a domain without named locks; -ETIMEDOUT,
 * -EINTR, -ENOMEM.
 */
int dlm_new_lockspace(const char *name, const char *cluster, uint32_t flags,
		      int lvblen, const struct dlm_lockspace_ops *ops,
		      void *ops_arg, int *ops_result,
		      dlm_lockspace_t **lockspace)
{
	struct rdmalock_dlm_ls *ls;
	int ret;

	ret = rdmalock_dlm_check(name, cluster, lvblen);
	if (ret)
		return ret;
	ls = kzalloc(sizeof(*ls), GFP_NOFS);
	if (!ls)
		return -ENOMEM;
	ls->lvblen = lvblen;
	ls->ops = ops;
	ls->ops_arg = ops_arg;
	init_completion(&ls->joined);
	init_waitqueue_head(&ls->idle);
	xa_init_flags(&ls->lkbs, XA_FLAGS_ALLOC1);
	ls->dom = rdmalock_domain_get(name);
	if (!ls->dom) {
		pr_err("lockspace %s: no rdmalock domain of that name (rdmalockctl domain create %s --named ...)\n",
		       name, name);
		ret = -ENOENT;
		goto free;
	}
	if (!rdmalock_domain_named(ls->dom)) {
		pr_err("lockspace %s: its rdmalock domain has no named locks (created without --named)\n",
		       name);
		ret = -EINVAL;
		goto put;
	}
	ls->wq = alloc_workqueue("rdmalock-dlm-%s", WQ_MEM_RECLAIM, 0, name);
	if (!ls->wq) {
		ret = -ENOMEM;
		goto put;
	}
	ret = rdmalock_domain_recovery_register(ls->dom, &rdmalock_dlm_recovery, ls);
	if (ret) {
		ret = ret == -EBUSY ? -EEXIST : ret;
		goto wq;
	}
	ret = rdmalock_dlm_join(ls, name);
	if (ret)
		goto unregister;
	if (ops_result)
		*ops_result = 0;
	*lockspace = ls;
	return 0;

unregister:
	rdmalock_domain_recovery_unregister(ls->dom);
wq:
	destroy_workqueue(ls->wq);
put:
	rdmalock_domain_put(ls->dom);
free:
	kfree(ls);
	return ret;
}
EXPORT_SYMBOL_GPL(dlm_new_lockspace);

/**
 * dlm_release_lockspace() - leave a lockspace
 * @lockspace: from dlm_new_lockspace()
 * @force: 0: refuse while locks exist; more: release them
 *
 * Context: process context; sleeps.
 * Return: 0, or -EBUSY when @force is 0 and locks exist.
 */
int dlm_release_lockspace(dlm_lockspace_t *lockspace, int force)
{
	struct rdmalock_dlm_ls *ls = lockspace;

	if (!force && !xa_empty(&ls->lkbs))
		return -EBUSY;
	rdmalock_dlm_drop_locks(ls);
	rdmalock_domain_recovery_unregister(ls->dom);
	destroy_workqueue(ls->wq);
	rdmalock_domain_put(ls->dom);
	xa_destroy(&ls->lkbs);
	kfree(ls);
	return 0;
}
EXPORT_SYMBOL_GPL(dlm_release_lockspace);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Linux's DLM interface on rdmalock, for GFS2");

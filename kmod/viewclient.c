// SPDX-License-Identifier: GPL-2.0
/*
 * Recovery callbacks: a client such as a cluster filesystem learns of
 * every membership view change (membership.rst) in the order DLM gives
 * its users. recover_prep when a view change starts on this node (its
 * lock calls have stopped); recover_slot for each node that left, once
 * the new view is committed, which is after the node was fenced and
 * every member ran its recover_prep, since no member's lock table is
 * reset before every member prepared; then recover_done with the
 * members' slots, this node's, and the view's epoch as the generation,
 * which every member shares. A node's slot is its id plus one: stable,
 * unique, from 1.
 *
 * The callbacks run on the membership's reclaim-safe work queue, one at
 * a time, never beside a registration: they may sleep, but must not wait
 * for a lock of the domain, which the view change holds up.
 */
#include <linux/bitops.h>
#include <linux/export.h>

#include <rdmalock.h>
#include "cluster.h"
#include "viewclient.h"

/**
 * rdmalock_view_client_init() - no client yet
 * @vc: the domain's callbacks
 * @self: this node's id
 */
void rdmalock_view_client_init(struct rdmalock_view_client *vc, u32 self)
{
	mutex_init(&vc->lock);
	vc->self = self;
}

/**
 * rdmalock_view_client_prep() - a view change started on this node
 * @vc: the domain's callbacks
 *
 * Context: process context, from the membership's work queue.
 */
void rdmalock_view_client_prep(struct rdmalock_view_client *vc)
{
	mutex_lock(&vc->lock);
	if (vc->ops && vc->ops->recover_prep)
		vc->ops->recover_prep(vc->arg);
	mutex_unlock(&vc->lock);
}

/* Under @vc->lock: tells the client of the view @vc holds. */
static void rdmalock_view_client_tell(struct rdmalock_view_client *vc)
{
	u32 slots[RDMALOCK_MAX_NODES], n = 0;
	unsigned long bits = vc->members;
	u32 node;

	for_each_set_bit(node, &bits, RDMALOCK_MAX_NODES)
		slots[n++] = node + 1;
	vc->ops->recover_done(vc->arg, slots, n, vc->self + 1, vc->epoch);
}

/**
 * rdmalock_view_client_done() - this node committed a view as a member
 * @vc: the domain's callbacks
 * @members: the view's members
 * @restarted: those of them that left and came back since the last view
 *	(fenced, or reloaded), holding nothing of before: for the client,
 *	they left, and joined again
 * @epoch: its epoch
 *
 * Context: process context, from the membership's work queue.
 */
void rdmalock_view_client_done(struct rdmalock_view_client *vc, u32 members,
			       u32 restarted, u64 epoch)
{
	unsigned long gone;
	u32 node;

	mutex_lock(&vc->lock);
	gone = vc->members & (~members | restarted) & ~BIT(vc->self);
	vc->members = members;
	vc->epoch = epoch;
	if (vc->ops) {
		if (vc->ops->recover_slot)
			for_each_set_bit(node, &gone, RDMALOCK_MAX_NODES)
				vc->ops->recover_slot(vc->arg, node + 1);
		if (vc->ops->recover_done)
			rdmalock_view_client_tell(vc);
	}
	mutex_unlock(&vc->lock);
}

/**
 * rdmalock_domain_recovery_register() - hear of the domain's view changes
 * @dom: the domain, held by the caller until it unregisters
 * @ops: the callbacks, each optional; they must live until unregistered
 * @arg: their first argument
 *
 * When this node is a member of a view already, @ops->recover_done is
 * called before this returns, so that the client knows its slot; then on
 * every view change, recover_prep as it starts, recover_slot (with the
 * node's id plus one) for each node that left, and recover_done with the
 * members' slots, this node's and the view's epoch, the same on every
 * member. The callbacks run one at a time, in process context; they may
 * sleep but must not wait for a lock of @dom, since the view change they
 * report holds lock calls up.
 *
 * Context: process context; sleeps.
 * Return: 0, or -EBUSY when the domain has a client already.
 */
int rdmalock_domain_recovery_register(struct rdmalock_domain *dom,
				      const struct rdmalock_recovery_ops *ops,
				      void *arg)
{
	struct rdmalock_view_client *vc = &dom->view_client;
	int ret = 0;

	mutex_lock(&vc->lock);
	if (vc->ops) {
		ret = -EBUSY;
	} else {
		vc->ops = ops;
		vc->arg = arg;
		if (vc->epoch && ops->recover_done)
			rdmalock_view_client_tell(vc);
	}
	mutex_unlock(&vc->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(rdmalock_domain_recovery_register);

/**
 * rdmalock_domain_recovery_unregister() - hear no more
 * @dom: the domain
 *
 * No callback runs once this returns.
 *
 * Context: process context; sleeps.
 */
void rdmalock_domain_recovery_unregister(struct rdmalock_domain *dom)
{
	struct rdmalock_view_client *vc = &dom->view_client;

	mutex_lock(&vc->lock);
	vc->ops = NULL;
	vc->arg = NULL;
	mutex_unlock(&vc->lock);
}
EXPORT_SYMBOL_GPL(rdmalock_domain_recovery_unregister);

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an in-kernel client hears of its domain's membership views: the
 * recovery callbacks of include/rdmalock.h. See viewclient.c.
 */
#ifndef _RDMALOCK_VIEWCLIENT_H
#define _RDMALOCK_VIEWCLIENT_H

#include <linux/mutex.h>
#include <linux/types.h>

struct rdmalock_recovery_ops;

/**
 * struct rdmalock_view_client - a domain's recovery callbacks
 * @lock: orders the callbacks with registration, and with each other
 * @ops: the client's callbacks, or NULL
 * @arg: their argument
 * @epoch: the last view this node committed as a member, 0 before it
 * @members: that view's members
 * @self: this node's id
 */
struct rdmalock_view_client {
	struct mutex lock;	/* see above */
	const struct rdmalock_recovery_ops *ops;
	void *arg;
	u64 epoch;
	u32 members;
	u32 self;
};

void rdmalock_view_client_init(struct rdmalock_view_client *vc, u32 self);
void rdmalock_view_client_prep(struct rdmalock_view_client *vc);
void rdmalock_view_client_done(struct rdmalock_view_client *vc, u32 members,
			       u32 restarted, u64 epoch);

#endif /* _RDMALOCK_VIEWCLIENT_H */

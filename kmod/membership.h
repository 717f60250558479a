/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock membership: the view of a domain's live nodes that every
 * member agrees on, the node leases that keep a cut-off node from
 * granting, and the view changes that recover a departed node's locks.
 * See Documentation/membership.rst.
 */
#ifndef RDMALOCK_MEMBERSHIP_H
#define RDMALOCK_MEMBERSHIP_H

#include <linux/types.h>
#include <linux/rdmalock.h>

struct rdmalock_fabric;
struct rdmalock_fabric_attr;
struct rdmalock_lockspace;
struct rdmalock_membership;
struct rdmalock_view_client;

/* The phases of a view change, in order (membership.c). */
enum rdmalock_mb_phase {
	MB_NONE,
	MB_PREPARE,
	MB_RESET,
	MB_CLAIM,
	MB_COMMIT,
};

/* Message types, at the top of the user's range (floor.c has the last). */
#define RDMALOCK_MB_MSG_FENCED		(RDMALOCK_MSG_TYPES - 6)
#define RDMALOCK_MB_MSG_RECOVER		(RDMALOCK_MSG_TYPES - 5)
#define RDMALOCK_MB_MSG_PROPOSE		(RDMALOCK_MSG_TYPES - 4)
#define RDMALOCK_MB_MSG_ACK		(RDMALOCK_MSG_TYPES - 3)
#define RDMALOCK_MB_MSG_LEASE		(RDMALOCK_MSG_TYPES - 2)

/* Survivors wait this long past a departed node's lease: clock drift. */
#define RDMALOCK_LEASE_MARGIN_MS	1000
/* A lease is renewed every eighth of it, and looked at every 100 ms. */
#define RDMALOCK_NODE_LEASE_MIN_MS	1000
#define RDMALOCK_NODE_LEASE_MAX_MS	600000

int rdmalock_membership_create(struct rdmalock_fabric *fabric,
			       const struct rdmalock_fabric_attr *attr,
			       u32 lease_ms, struct rdmalock_lockspace *ls,
			       struct rdmalock_view_client *vc,
			       struct rdmalock_membership **mbp);
void rdmalock_membership_stop(struct rdmalock_membership *mb);
void rdmalock_membership_free(struct rdmalock_membership *mb);
int rdmalock_membership_fence_ack(struct rdmalock_membership *mb, u32 node);
void rdmalock_membership_view(struct rdmalock_membership *mb,
			      struct rdmalock_domain_view *v);
struct seq_file;
void rdmalock_membership_show(struct seq_file *m, struct rdmalock_membership *mb);

#if IS_ENABLED(CONFIG_KUNIT)
bool rdmalock_mb_quorum(u32 set, u32 num_nodes);
u32 rdmalock_mb_clique(u32 self, u32 candidates, const u32 *up, u32 num_nodes);
bool rdmalock_mb_newer(u64 epoch, u32 coord, u64 cur_epoch, u32 cur_coord);
bool rdmalock_mb_outranked(u32 coord, u32 view, u32 up);
#endif

#endif /* RDMALOCK_MEMBERSHIP_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Blocking callbacks on named locks: a holder hears that a request it
 * blocks is waiting. See blocking.c.
 */
#ifndef _RDMALOCK_BLOCKING_H
#define _RDMALOCK_BLOCKING_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <rdmalock.h>

#include "fabric.h"

/* After the names' three (names.h). */
#define RDMALOCK_BLOCKING_MSG		(RDMALOCK_MSG_USER_FIRST + 11)

/**
 * struct rdmalock_blocking_req - payload of %RDMALOCK_BLOCKING_MSG
 * @slot: the name's slot at its home, as the sender resolved it
 * @level: the waiting request's level, 1 or 2
 * @len: bytes of @name
 * @pad: zero
 * @name: the lock's name
 */
struct rdmalock_blocking_req {
	__be32 slot;
	u8 level;
	u8 len;
	u8 pad[2];
	u8 name[RDMALOCK_LOCK_NAME_MAX];
};

/*
 * What a node holds or waits for, as the lock word serves it: shared
 * (only where the algorithm has a shared mode) or exclusive. A level is a
 * class plus one, 0 for none: how strong a blocked request is.
 */
#define RDMALOCK_CLASS_SH	0
#define RDMALOCK_CLASS_EX	1
#define RDMALOCK_CLASSES	2
#define RDMALOCK_LEVEL_EX	(RDMALOCK_CLASS_EX + 1)

/*
 * The interest word of a named lock, at its home beside its value
 * (struct rdmalock_value): per node, four bits, each in a field of
 * RDMALOCK_MAX_NODES bits.
 */
#define RDMALOCK_INTEREST_FIELD		16
#define RDMALOCK_INTEREST_HOLD_SH	0	/* holds shared, with a callback */
#define RDMALOCK_INTEREST_HOLD_EX	1	/* holds exclusive, with one */
#define RDMALOCK_INTEREST_WAIT_SH	2	/* waits for it shared */
#define RDMALOCK_INTEREST_WAIT_EX	3	/* waits for it exclusive */

static_assert(RDMALOCK_MAX_NODES <= RDMALOCK_INTEREST_FIELD);

/* The bits of the nodes of @nodes in every field. */
static inline u64 rdmalock_interest_nodes(u32 nodes)
{
	u64 n = nodes & GENMASK(RDMALOCK_INTEREST_FIELD - 1, 0);

	return n | n << 16 | n << 32 | n << 48;
}

/* The nodes set in field @field of @word. */
static inline u32 rdmalock_interest_field(u64 word, u32 field)
{
	return (word >> (field * RDMALOCK_INTEREST_FIELD)) &
	       GENMASK(RDMALOCK_INTEREST_FIELD - 1, 0);
}

/**
 * struct rdmalock_interest - one node's interest in a named lock
 * @lock: guards @holding, @waiting, @holders and their handles' @blocked
 * @post: one update of the home's word at a time; guards @posted, @seen
 * @holding: this node's holders with a blocking callback, per class
 * @waiting: this node's requests waiting, per class
 * @holders: those holders' handles
 * @posted: this node's bits in the home's word, as last written
 * @seen: the home's word, as last seen
 *
 * In the node's resolution of the name (struct rdmalock_name), shared by
 * its handles.
 */
struct rdmalock_interest {
	spinlock_t lock;	/* see above */
	struct mutex post;	/* see above */
	u16 holding[RDMALOCK_CLASSES];
	u16 waiting[RDMALOCK_CLASSES];
	struct list_head holders;
	u64 posted;
	u64 seen;
};

struct rdmalock_how;
struct rdmalock_lock;
struct rdmalock_name;
struct rdmalock_names;
struct rdmalock_waiter;

void rdmalock_interest_init(struct rdmalock_interest *in);
void rdmalock_interest_tell(struct rdmalock_interest *in, u32 level);

u64 rdmalock_interest_bits(const struct rdmalock_interest *in, u32 node);
u32 rdmalock_interest_blocks(u64 others, u32 held);
u32 rdmalock_interest_blocked_by(u64 others, u32 wanted);

void rdmalock_blocking_init(struct rdmalock_lock *lk);
void rdmalock_blocking_set(struct rdmalock_lock *lk, rdmalock_blocking_fn *fn,
			   void *arg);
int rdmalock_blocking_wait(struct rdmalock_lock *lk, const struct rdmalock_how *how);
void rdmalock_blocking_unwait(struct rdmalock_lock *lk);
void rdmalock_blocking_ask(struct rdmalock_lock *lk, unsigned int mode);
int rdmalock_blocking_granted(struct rdmalock_lock *lk);
bool rdmalock_blocking_unhold(struct rdmalock_lock *lk);
bool rdmalock_blocking_move(struct rdmalock_lock *lk, struct rdmalock_name *to);
void rdmalock_blocking_settle(struct rdmalock_lock *lk);
void rdmalock_blocking_cancel(struct rdmalock_lock *lk);
void rdmalock_blocking_carry(struct rdmalock_waiter *w);
void rdmalock_blocking_carried_end(struct rdmalock_waiter *w, bool post);
void rdmalock_blocking_attach(struct rdmalock_names *nm);
#if IS_ENABLED(CONFIG_KUNIT)
u32 rdmalock_blocking_level(u32 held, u32 asked, u32 level);
void rdmalock_blocking_msg(struct rdmalock_fabric *fabric, u32 node, u8 type,
			   const void *payload, u32 len, void *ctx);
#endif

#endif /* _RDMALOCK_BLOCKING_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lock values of named locks: fencing token and LVB. See values.c.
 */
#ifndef _RDMALOCK_VALUES_H
#define _RDMALOCK_VALUES_H

#include <linux/rdmalock.h>
#include <linux/types.h>

struct rdmalock_lock;
struct rdmalock_lockspace;

/* The LVB is not valid: a holder that could have written it left. */
#define RDMALOCK_VALUE_F_NOT_VALID	BIT(0)

/**
 * struct rdmalock_value - a named lock's value, at its home
 * @token: the fencing token of its last exclusive grant
 * @flags: RDMALOCK_VALUE_F_*
 * @writer: the id plus one of the node of an exclusive holder that will
 *	write the LVB back, or 0
 * @lvb: the lock value block
 * @interest: who holds or waits for the lock, for blocking callbacks
 *	(blocking.h); changed by RDMA atomics only, outside view changes
 *
 * In the home's region, RDMALOCK_VALUE_SIZE bytes a slot; native byte
 * order, as the lock words.
 */
struct rdmalock_value {
	u64 token;
	u32 flags;
	u32 writer;
	u8 lvb[RDMALOCK_LVB_MAX];
	u64 interest;
};

void rdmalock_value_fresh(struct rdmalock_lockspace *ls, u32 slot);
void rdmalock_value_forget(struct rdmalock_lockspace *ls, u32 slot);
void rdmalock_values_recover(struct rdmalock_lockspace *ls, u32 members);
void rdmalock_values_rejoined(struct rdmalock_lockspace *ls);
int rdmalock_value_moved(struct rdmalock_lock *lk);
int rdmalock_value_on_grant(struct rdmalock_lock *lk, unsigned int from);
int rdmalock_value_write_back(struct rdmalock_lock *lk, unsigned int to);
int rdmalock_value_on_convert(struct rdmalock_lock *lk, unsigned int from);
bool rdmalock_value_writes(unsigned int mode);

#endif /* _RDMALOCK_VALUES_H */

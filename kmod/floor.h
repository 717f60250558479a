/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock floors (floor.c): what a domain's locks cannot beat, measured
 * on its fabric. The message floor needs an echo on every node: each
 * domain has one, which answers its peers' pings.
 */
#ifndef RDMALOCK_FLOOR_H
#define RDMALOCK_FLOOR_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

struct rdmalock_fabric;

/**
 * struct rdmalock_floor_echo - a domain's pings and their answers
 * @lock: one measurement at a time on this node: it owns @sent
 * @sent: the sequence number of the last ping sent
 * @answered: that of the last answer received
 * @wq: where the measurement waits for its answer
 */
struct rdmalock_floor_echo {
	struct mutex lock;		/* see @lock above */
	u64 sent;
	atomic64_t answered;
	wait_queue_head_t wq;
};

void rdmalock_floor_echo_init(struct rdmalock_floor_echo *echo);
int rdmalock_floor_echo_attach(struct rdmalock_fabric *fabric,
			       struct rdmalock_floor_echo *echo);

#endif /* RDMALOCK_FLOOR_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The torture's threads and critical sections (torture.c), shared with
 * its lock-caching mode (lockcache.c).
 */
#ifndef _RDMALOCK_TORTURE_H
#define _RDMALOCK_TORTURE_H

#include <linux/atomic.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/types.h>

/* Latency histogram: 16 linear buckets per power of two. */
#define RDMALOCK_HIST_SUB_BITS	4
#define RDMALOCK_HIST_SUB	BIT(RDMALOCK_HIST_SUB_BITS)
#define RDMALOCK_HIST_LEN	(64 * RDMALOCK_HIST_SUB)
/*
 * An acquisition that waits longer than this is an error, unless the run
 * ends meanwhile: then the waits still under way end within
 * RDMALOCK_RUN_DRAIN of it, and are not counted.
 */
#define RDMALOCK_RUN_LOCK_TIMEOUT	(30 * HZ)
/*
 * With a cache, a request waits for holders that keep their locks until
 * their blocking callbacks ask for them: one that waits this long was not
 * heard, and is counted, within the run.
 */
#define RDMALOCK_RUN_CACHE_TIMEOUT	(5 * HZ)
#define RDMALOCK_RUN_DRAIN		(2 * HZ)
/* Between reading and writing the guarded counter on the home node. */
#define RDMALOCK_RUN_PAUSE_US	2

struct rdmalock_lock;
struct rdmalock_run_cached;
struct rdmalock_run_ctx;

struct rdmalock_run_thread {
	struct rdmalock_run_ctx *run;
	struct task_struct *task;
	struct rnd_state rnd;
	u32 index;
	u64 acquisitions;
	u64 violations;
	u64 errors;
	int first_error;
	u64 cpu_ns;
	u64 cached;
	u32 cancelled;
	struct rdmalock_run_cached *cache;	/* RDMALOCK_RUN_F_CACHE */
	u64 hist[RDMALOCK_HIST_LEN];
};

struct rdmalock_run_ctx {
	struct rdmalock_domain *dom;
	const struct rdmalock_run *req;
	u32 *zipf_cdf;
	atomic64_t *counts;
	atomic64_t blocked;		/* blocking callbacks, with a cache */
	atomic_t converted;		/* conversions down, with CONVERT */
	long lock_timeout;		/* jiffies a lock call may wait */
	unsigned long end;		/* jiffies when the run ends */
	struct rdmalock_run_thread *threads;
};

int rdmalock_word_read(struct rdmalock_lock *lk, u32 word, u64 *val);
int rdmalock_run_cs(struct rdmalock_run_thread *t, struct rdmalock_lock *lk);
int rdmalock_run_cs_shared(struct rdmalock_run_thread *t,
			   struct rdmalock_lock *lk);
void rdmalock_run_error(struct rdmalock_run_thread *t, int err);
int rdmalock_run_lock(struct rdmalock_run_thread *t, struct rdmalock_lock *lk,
		      unsigned int mode);

/* lockcache.c */
int rdmalock_run_cache_alloc(struct rdmalock_run_thread *t);
void rdmalock_run_cache_take(struct rdmalock_run_thread *t, u64 id,
			     unsigned int mode);
void rdmalock_run_cache_free(struct rdmalock_run_thread *t);

#endif /* _RDMALOCK_TORTURE_H */

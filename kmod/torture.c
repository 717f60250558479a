// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: the in-kernel torture test and benchmark (RDMALOCK_IOC_RUN).
 *
 * Kernel threads take and release locks of a domain for a while, through
 * the exported API. The torture's critical section checks and sets the
 * lock's owner word, then increments its guarded counter non-atomically:
 * it reads the counter, pauses, and writes it back plus one, at the home
 * node (over RDMA from other nodes). Two holders at once show up as an
 * owner word that is not theirs, or, once every node has finished, as a
 * counter below the acquisitions of its lock summed over the nodes. Under
 * an algorithm with a shared mode, shared holders count themselves in a
 * readers word and check that no writer's owner word is set, and writers
 * check that no reader is counted; the counter counts writers only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cluster.h"
#include "locks.h"
#include "names.h"
#include "rdmalock-pri.h"
#include "torture.h"
#include "values.h"

static u32 rdmalock_hist_bucket(u64 ns)
{
	u32 shift;

	if (ns < RDMALOCK_HIST_SUB)
		return ns;
	shift = ilog2(ns) - RDMALOCK_HIST_SUB_BITS;
	return min_t(u32, ((shift + 1) << RDMALOCK_HIST_SUB_BITS) |
			  ((ns >> shift) & (RDMALOCK_HIST_SUB - 1)),
		     RDMALOCK_HIST_LEN - 1);
}

static u64 rdmalock_hist_value(u32 bucket)
{
	u32 shift;

	if (bucket < RDMALOCK_HIST_SUB)
		return bucket;
	shift = (bucket >> RDMALOCK_HIST_SUB_BITS) - 1;
	return (u64)(RDMALOCK_HIST_SUB | (bucket & (RDMALOCK_HIST_SUB - 1))) << shift;
}

/* The smallest latency that at least @permille of @total are at or below. */
static u64 rdmalock_hist_percentile(const u64 *hist, u64 total, u32 permille)
{
	u64 want = DIV_ROUND_UP_ULL(total * permille, 1000), seen = 0;
	u32 i;

	for (i = 0; i < RDMALOCK_HIST_LEN; i++) {
		seen += hist[i];
		if (seen && seen >= want)
			return rdmalock_hist_value(i);
	}
	return 0;
}

static u32 rdmalock_run_rank(struct rdmalock_run_thread *t)
{
	const struct rdmalock_run *req = t->run->req;
	u32 u = prandom_u32_state(&t->rnd), lo = 0, hi = req->num_locks - 1;

	if (req->dist != RDMALOCK_DIST_ZIPF)
		return u % req->num_locks;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (t->run->zipf_cdf[mid] >= u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* A key homed here with probability local_pct, else homed on another node. */
static u64 rdmalock_run_key(struct rdmalock_run_thread *t)
{
	const struct rdmalock_run *req = t->run->req;
	u32 nodes = t->run->dom->attr.num_nodes, self = t->run->dom->attr.node_id;
	u32 node = self, homed;

	if (nodes > 1 && prandom_u32_state(&t->rnd) % 100 >= req->local_pct) {
		node = prandom_u32_state(&t->rnd) % (nodes - 1);
		if (node >= self)
			node++;
	}
	homed = node < req->num_locks ? (req->num_locks - node - 1) / nodes + 1 : 0;
	if (!homed)
		return rdmalock_run_rank(t);
	return (u64)(rdmalock_run_rank(t) % homed) * nodes + node;
}

int rdmalock_word_read(struct rdmalock_lock *lk, u32 word, u64 *val)
{
	struct rdmalock_lockspace *ls = lk->dom->ls;

	if (lk->home == ls->self) {
		*val = READ_ONCE(*rdmalock_slot_word(ls, lk->slot_off, word));
		return 0;
	}
	return rdmalock_fabric_read(ls->fabric, lk->home, lk->slot_off + word,
				    val, sizeof(*val));
}

static int rdmalock_word_write(struct rdmalock_lock *lk, u32 word, u64 val)
{
	struct rdmalock_lockspace *ls = lk->dom->ls;

	if (lk->home == ls->self) {
		WRITE_ONCE(*rdmalock_slot_word(ls, lk->slot_off, word), val);
		return 0;
	}
	return rdmalock_fabric_write(ls->fabric, lk->home, lk->slot_off + word,
				     &val, sizeof(val));
}

/*
 * Readers inside, for locks with a shared mode: every node counts itself
 * in and out with atomics, which go through the NIC on the home node too.
 */
static int rdmalock_readers_add(struct rdmalock_lock *lk, s64 add, u64 *old)
{
	return rdmalock_fabric_faa(lk->dom->ls->fabric, lk->home,
				   lk->slot_off + RDMALOCK_SLOT_READERS, add, old);
}

/* A reader's critical section: no writer may be inside at any point of it. */
int rdmalock_run_cs_shared(struct rdmalock_run_thread *t,
			   struct rdmalock_lock *lk)
{
	u64 owner, old;
	int ret;

	ret = rdmalock_readers_add(lk, 1, &old);
	if (!ret)
		ret = rdmalock_word_read(lk, RDMALOCK_SLOT_OWNER, &owner);
	if (ret)
		return ret;
	if (owner)
		t->violations++;
	udelay(RDMALOCK_RUN_PAUSE_US);
	ret = rdmalock_word_read(lk, RDMALOCK_SLOT_OWNER, &owner);
	if (ret)
		return ret;
	if (owner)
		t->violations++;
	return rdmalock_readers_add(lk, -1, &old);
}

/* Nonzero when a lock with a shared mode has readers inside. */
static int rdmalock_run_readers(struct rdmalock_lock *lk, u64 *readers)
{
	*readers = 0;
	if (!lk->dom->ls->algo->shared)
		return 0;
	return rdmalock_word_read(lk, RDMALOCK_SLOT_READERS, readers);
}

/* The torture's critical section; the return is a verb's error. */
int rdmalock_run_cs(struct rdmalock_run_thread *t, struct rdmalock_lock *lk)
{
	u64 tag = ((u64)(t->run->dom->attr.node_id + 1) << 32) | (t->index + 1);
	u64 owner, counter, readers;
	int ret;

	ret = rdmalock_word_read(lk, RDMALOCK_SLOT_OWNER, &owner);
	if (!ret)
		ret = rdmalock_run_readers(lk, &readers);
	if (ret)
		return ret;
	if (owner || readers)
		t->violations++;
	ret = rdmalock_word_write(lk, RDMALOCK_SLOT_OWNER, tag);
	if (!ret)
		ret = rdmalock_word_read(lk, RDMALOCK_SLOT_COUNTER, &counter);
	if (ret)
		return ret;
	udelay(RDMALOCK_RUN_PAUSE_US);
	ret = rdmalock_word_write(lk, RDMALOCK_SLOT_COUNTER, counter + 1);
	if (!ret)
		ret = rdmalock_word_read(lk, RDMALOCK_SLOT_OWNER, &owner);
	if (!ret)
		ret = rdmalock_run_readers(lk, &readers);
	if (ret)
		return ret;
	if (owner != tag || readers)
		t->violations++;
	return rdmalock_word_write(lk, RDMALOCK_SLOT_OWNER, 0);
}

void rdmalock_run_error(struct rdmalock_run_thread *t, int err)
{
	t->errors++;
	if (!t->first_error)
		t->first_error = err;
}

/**
 * rdmalock_run_lock() - take a lock for a critical section of the run
 * @t: the thread
 * @lk: the handle
 * @mode: RDMALOCK_MODE_*
 *
 * Its wait goes into the latency histogram; a failure is counted, unless
 * the run ended while it waited.
 *
 * Return: 0, or the failure.
 */
int rdmalock_run_lock(struct rdmalock_run_thread *t, struct rdmalock_lock *lk,
		      unsigned int mode)
{
	long timeout;
	u64 start;
	int ret;

	timeout = min_t(long, t->run->lock_timeout,
			(long)(t->run->end + RDMALOCK_RUN_DRAIN - jiffies));
	start = ktime_get_ns();
	ret = rdmalock_lock_timeout(lk, mode, max(timeout, 1L));
	if (ret == -ETIMEDOUT && time_after(jiffies, t->run->end))
		return ret;
	if (ret) {
		rdmalock_run_error(t, ret);
		/* A lost node or a destroyed domain fails fast; do not spin on it. */
		if (ret == -ENOTCONN || ret == -ESHUTDOWN)
			usleep_range(1000, 2000);
		return ret;
	}
	t->hist[rdmalock_hist_bucket(ktime_get_ns() - start)]++;
	return 0;
}

/* One acquisition of @lk, its critical section and its release. */
static void rdmalock_run_take(struct rdmalock_run_thread *t,
			      struct rdmalock_lock *lk, u64 id, unsigned int mode)
{
	const struct rdmalock_run *req = t->run->req;
	bool shared;
	int ret;

	/* Shared holders leave the counter alone: it counts exclusive ones. */
	shared = rdmalock_mode_shared(t->run->dom->ls, mode);
	if (rdmalock_run_lock(t, lk, mode))
		return;
	if (req->op == RDMALOCK_RUN_TORTURE) {
		ret = shared ? rdmalock_run_cs_shared(t, lk) : rdmalock_run_cs(t, lk);
		if (ret)
			rdmalock_run_error(t, ret);
	}
	ret = rdmalock_unlock(lk);
	if (ret)
		rdmalock_run_error(t, ret);
	t->acquisitions++;
	if (t->run->counts && !shared)
		atomic64_inc(&t->run->counts[id]);
}

static void rdmalock_run_one(struct rdmalock_run_thread *t)
{
	const struct rdmalock_run *req = t->run->req;
	struct rdmalock_lock lk;
	unsigned int mode;
	u64 id;
	int ret;

	id = rdmalock_run_key(t);
	mode = prandom_u32_state(&t->rnd) % 100 < req->read_pct ?
	       RDMALOCK_MODE_SH : RDMALOCK_MODE_EX;
	/* DLM's other writing mode, which excludes what EX does here. */
	if ((req->flags & RDMALOCK_RUN_F_CONVERT) && mode == RDMALOCK_MODE_EX &&
	    prandom_u32_state(&t->rnd) % 2)
		mode = RDMALOCK_MODE_PW;
	if (t->cache) {
		rdmalock_run_cache_take(t, id, mode);
		return;
	}
	/* Named locks: resolved once, then found in this node's cache. */
	ret = rdmalock_lock_setup(&lk, t->run->dom, id);
	if (ret) {
		rdmalock_run_error(t, ret);
		usleep_range(1000, 2000);
		return;
	}
	rdmalock_run_take(t, &lk, id, mode);
	rdmalock_lock_teardown(&lk);
}

static int rdmalock_run_thread_fn(void *data)
{
	struct rdmalock_run_thread *t = data;
	u64 cpu = current->se.sum_exec_runtime;

	while (!kthread_should_stop()) {
		rdmalock_run_one(t);
		cond_resched();
	}
	t->cpu_ns = current->se.sum_exec_runtime - cpu;
	return 0;
}

static void rdmalock_verbs_posted(struct rdmalock_domain *dom, u64 *verbs)
{
	struct rdmalock_peer_status st;
	u32 i, v;

	memset(verbs, 0, sizeof(u64) * RDMALOCK_VERB_MAX);
	for (i = 0; i < dom->attr.num_nodes; i++) {
		rdmalock_fabric_peer_status(dom->fabric, i, &st);
		for (v = 0; v < RDMALOCK_VERB_MAX; v++)
			verbs[v] += st.verbs[v].posted;
	}
}

static void rdmalock_verbs_since(struct rdmalock_domain *dom, const u64 *before,
				 u64 *since)
{
	u32 v;

	rdmalock_verbs_posted(dom, since);
	for (v = 0; v < RDMALOCK_VERB_MAX; v++)
		since[v] -= before[v];
}

static void rdmalock_run_collect(struct rdmalock_run_ctx *run,
				 struct rdmalock_run *req)
{
	u64 *hist = run->threads[0].hist;
	u32 i, b;

	for (i = 0; i < req->threads; i++) {
		struct rdmalock_run_thread *t = &run->threads[i];

		req->acquisitions += t->acquisitions;
		req->violations += t->violations;
		req->errors += t->errors;
		req->cpu_ns += t->cpu_ns;
		req->cached += t->cached;
		req->cancelled += t->cancelled;
		if (!req->first_error)
			req->first_error = t->first_error;
		if (i)
			for (b = 0; b < RDMALOCK_HIST_LEN; b++)
				hist[b] += t->hist[b];
	}
	req->lat_p50_ns = rdmalock_hist_percentile(hist, req->acquisitions, 500);
	req->lat_p99_ns = rdmalock_hist_percentile(hist, req->acquisitions, 990);
	req->lat_p999_ns = rdmalock_hist_percentile(hist, req->acquisitions, 999);
	req->lat_max_ns = rdmalock_hist_percentile(hist, req->acquisitions, 1000);
}

static int rdmalock_run_threads(struct rdmalock_run_ctx *run,
				struct rdmalock_run *req)
{
	u64 verbs[RDMALOCK_VERB_MAX], failed, failed_release, delegated, start;
	struct rdmalock_lockspace *ls = run->dom->ls;
	u32 i, started;
	int ret = 0;

	run->threads = kvcalloc(req->threads, sizeof(*run->threads), GFP_KERNEL);
	if (!run->threads)
		return -ENOMEM;
	rdmalock_verbs_posted(run->dom, verbs);
	failed = atomic64_read(&ls->cas_failed);
	failed_release = atomic64_read(&ls->cas_failed_release);
	delegated = atomic64_read(&ls->delegated);
	start = ktime_get_ns();
	run->end = jiffies + msecs_to_jiffies(req->duration_ms);
	run->lock_timeout = req->flags & RDMALOCK_RUN_F_CACHE ?
			    RDMALOCK_RUN_CACHE_TIMEOUT : RDMALOCK_RUN_LOCK_TIMEOUT;
	for (started = 0; started < req->threads; started++) {
		struct rdmalock_run_thread *t = &run->threads[started];
		struct task_struct *task;

		t->run = run;
		t->index = started;
		prandom_seed_state(&t->rnd, get_random_u64());
		if (req->flags & RDMALOCK_RUN_F_CACHE) {
			ret = rdmalock_run_cache_alloc(t);
			if (ret)
				break;
		}
		task = kthread_create(rdmalock_run_thread_fn, t, "rdmalock-run/%u",
				      started);
		if (IS_ERR(task)) {
			ret = PTR_ERR(task);
			break;
		}
		t->task = get_task_struct(task);
		wake_up_process(task);
	}
	if (!ret)
		msleep_interruptible(req->duration_ms);
	for (i = 0; i < started; i++) {
		kthread_stop(run->threads[i].task);
		put_task_struct(run->threads[i].task);
		/* Once it has stopped, the locks it kept go. */
		rdmalock_run_cache_free(&run->threads[i]);
	}
	if (ret) {
		/* The thread whose start failed. */
		if (started < req->threads)
			rdmalock_run_cache_free(&run->threads[started]);
		goto out;
	}
	if (fatal_signal_pending(current)) {
		ret = -EINTR;
		goto out;
	}
	req->wall_ns = ktime_get_ns() - start;
	rdmalock_run_collect(run, req);
	req->cas_failed = atomic64_read(&ls->cas_failed) - failed;
	req->cas_failed_release = atomic64_read(&ls->cas_failed_release) -
				  failed_release;
	req->delegated = atomic64_read(&ls->delegated) - delegated;
	req->blocked = atomic64_read(&run->blocked);
	req->converted = atomic_read(&run->converted);
	rdmalock_verbs_since(run->dom, verbs, req->verbs);
out:
	kvfree(run->threads);
	return ret;
}

/*
 * The slot of a lock homed here, without resolving it: in a domain with
 * named locks, a name no node references has no slot (its counter is
 * 0, and a slot is given to a name with its counter zeroed); *@slot is
 * set for named locks only.
 */
static bool rdmalock_run_homed_here(struct rdmalock_run_ctx *run, u64 id,
				    struct rdmalock_lock *lk, u32 *slot)
{
	struct rdmalock_names *names = run->dom->ls->names;
	__be64 name = cpu_to_be64(id);

	rdmalock_lock_init(lk, run->dom, id);
	if (lk->home != run->dom->attr.node_id)
		return false;
	if (!names)
		return true;
	if (rdmalock_name_lookup(names, &name, sizeof(name), slot))
		return false;
	lk->slot_off = rdmalock_table_offset(*slot);
	return true;
}

/* COUNTERS and RESET: the guarded counters of the locks homed here. */
static void rdmalock_run_counters(struct rdmalock_run_ctx *run, bool reset)
{
	struct rdmalock_lock lk;
	u32 slot;
	u64 id;

	for (id = 0; id < run->req->num_locks; id++) {
		if (!rdmalock_run_homed_here(run, id, &lk, &slot))
			continue;
		if (reset) {
			rdmalock_word_write(&lk, RDMALOCK_SLOT_OWNER, 0);
			rdmalock_word_write(&lk, RDMALOCK_SLOT_COUNTER, 0);
			/* An LVB that carried the counter describes it no more. */
			if (run->dom->ls->names)
				rdmalock_value_forget(run->dom->ls, slot);
			/* Nobody runs now; a broken lock may have wedged itself. */
			if (run->dom->ls->algo->broken)
				rdmalock_word_write(&lk, 0, 0);
		} else if (run->counts) {
			u64 v;

			rdmalock_word_read(&lk, RDMALOCK_SLOT_COUNTER, &v);
			atomic64_set(&run->counts[id], v);
		}
	}
}

static int rdmalock_run_check(const struct rdmalock_run *req,
			      const struct rdmalock_domain *dom)
{
	bool runs = req->op == RDMALOCK_RUN_TORTURE || req->op == RDMALOCK_RUN_BENCH;

	if (req->converted || req->cancelled ||
	    (req->flags & ~(RDMALOCK_RUN_F_CACHE | RDMALOCK_RUN_F_DEAF |
			    RDMALOCK_RUN_F_ASYNC | RDMALOCK_RUN_F_CONVERT |
			    RDMALOCK_RUN_F_GAP)) ||
	    req->op < RDMALOCK_RUN_TORTURE || req->op > RDMALOCK_RUN_RESET ||
	    !req->num_locks || req->num_locks > RDMALOCK_RUN_MAX_LOCKS ||
	    req->local_pct > 100 || req->read_pct > 100 ||
	    req->dist > RDMALOCK_DIST_ZIPF)
		return -EINVAL;
	if (runs && (!req->threads || req->threads > RDMALOCK_RUN_MAX_THREADS ||
		     !req->duration_ms || req->duration_ms > RDMALOCK_RUN_MAX_MS))
		return -EINVAL;
	if (req->flags &&
	    (!(req->flags & RDMALOCK_RUN_F_CACHE) || req->op != RDMALOCK_RUN_TORTURE ||
	     !dom->ls->names || req->num_locks > RDMALOCK_RUN_CACHE_MAX_LOCKS)) {
		pr_err_ratelimited("%s: a run that caches locks is a torture of at most %u named locks\n",
				   dom->attr.name, RDMALOCK_RUN_CACHE_MAX_LOCKS);
		return -EINVAL;
	}
	if (req->num_locks > (u64)dom->attr.num_nodes * dom->locks_per_node) {
		pr_err_ratelimited("%s: %u locks would share table slots\n",
				   dom->attr.name, req->num_locks);
		return -EINVAL;
	}
	return 0;
}

static int rdmalock_run_copy_in(struct rdmalock_run_ctx *run,
				const struct rdmalock_run *req)
{
	u32 i;

	if (req->counts) {
		run->counts = kvcalloc(req->num_locks, sizeof(*run->counts), GFP_KERNEL);
		if (!run->counts)
			return -ENOMEM;
	}
	if (req->dist != RDMALOCK_DIST_ZIPF)
		return 0;
	run->zipf_cdf = vmemdup_user(u64_to_user_ptr(req->zipf_cdf),
				     array_size(req->num_locks, sizeof(u32)));
	if (IS_ERR(run->zipf_cdf)) {
		int ret = PTR_ERR(run->zipf_cdf);

		run->zipf_cdf = NULL;
		return ret;
	}
	for (i = 1; i < req->num_locks; i++)
		if (run->zipf_cdf[i] < run->zipf_cdf[i - 1])
			return -EINVAL;
	return 0;
}

static int rdmalock_run_copy_out(struct rdmalock_run_ctx *run,
				 const struct rdmalock_run *req)
{
	u64 __user *out = u64_to_user_ptr(req->counts);
	u32 i;

	if (!run->counts)
		return 0;
	for (i = 0; i < req->num_locks; i++)
		if (put_user(atomic64_read(&run->counts[i]), &out[i]))
			return -EFAULT;
	return 0;
}

/**
 * rdmalock_run() - RDMALOCK_IOC_RUN: torture or benchmark a domain's locks
 * @req: the request; results are written into it
 *
 * Context: process context; sleeps for @req->duration_ms.
 * Return: 0, -EINVAL, -ENOENT, -EFAULT, -ENOMEM, -EINTR, -ESHUTDOWN (the
 * domain is being destroyed).
 */
int rdmalock_run(struct rdmalock_run *req)
{
	struct rdmalock_run_ctx run = { .req = req };
	int ret;

	run.dom = rdmalock_domain_get(req->name);
	if (!run.dom)
		return -ENOENT;
	/*
	 * The critical sections use the fabric outside the lock calls: the
	 * domain's destruction waits for the run, whose locks fail meanwhile.
	 */
	ret = rdmalock_domain_enter(run.dom);
	if (ret)
		goto out_put;
	ret = rdmalock_run_check(req, run.dom);
	if (!ret)
		ret = rdmalock_run_copy_in(&run, req);
	if (ret)
		goto out;
	switch (req->op) {
	case RDMALOCK_RUN_COUNTERS:
	case RDMALOCK_RUN_RESET:
		rdmalock_run_counters(&run, req->op == RDMALOCK_RUN_RESET);
		break;
	default:
		ret = rdmalock_run_threads(&run, req);
		break;
	}
	if (!ret)
		ret = rdmalock_run_copy_out(&run, req);
out:
	kvfree(run.zipf_cdf);
	kvfree(run.counts);
	rdmalock_domain_leave(run.dom);
out_put:
	rdmalock_domain_put(run.dom);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock fabric test: kernel threads that exercise a domain's fabric
 * from this node, for an operator checking a new cluster and for our own
 * cluster tests (RDMALOCK_IOC_FABRIC_TEST, `rdmalockctl fabric-test`).
 *
 * With RDMALOCK_FTEST_F_ASYNC every operation goes through the
 * asynchronous verbs, each waited for on its completion callback, so both
 * interfaces are checked by the same results.
 *
 * The test words are the fabric's, at the start of every node's region.
 * Each operation's result can be checked exactly from outside: a pattern
 * reads back what was written; a fetch-and-add storm from T threads on
 * each of N nodes, M adds each, leaves N*T*M; a compare-and-swap
 * ping-pong between all N nodes, M rounds, leaves N*M; a read returns
 * the word. INVALIDATE, a hostile act, checks that the target survives
 * it: the cluster tests check its log and the exact operations after it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "cluster.h"
#include "rdmalock-pri.h"

#define RDMALOCK_FTEST_MAX_THREADS	64
#define RDMALOCK_FTEST_MAX_ITERATIONS	1000000
#define RDMALOCK_FTEST_WORDS		RDMALOCK_FABRIC_TEST_WORDS
/* How long a CAS ping-pong waits for the other nodes to take their turn. */
#define RDMALOCK_FTEST_TURN_TIMEOUT	(30 * HZ)

struct rdmalock_ftest {
	struct rdmalock_domain *dom;
	struct rdmalock_fabric *fabric;
	const struct rdmalock_fabric_test *req;
	bool async;
	u32 self;
	u32 num_nodes;
	u64 offset;
	atomic_t running;
	bool stop;
	atomic64_t done;
	atomic64_t errors;
	atomic_t first_error;
	struct completion finished;
};

/*
 * A thread's state: its asynchronous operation, whose buffer is @word,
 * and the operation's outcome.
 */
struct rdmalock_ftest_thread {
	struct rdmalock_ftest *t;
	struct rdmalock_fabric_op *op;
	struct completion done;
	int status;
	u64 *word;
};

static void rdmalock_ftest_op_done(void *ctx, int status)
{
	struct rdmalock_ftest_thread *th = ctx;

	th->status = status;
	complete(&th->done);
}

/*
 * Waits for an asynchronous verb that @posted says was started. The wait
 * is bounded by the fabric: a dead connection is failed (RC retries,
 * heartbeats), which flushes the verb.
 */
static int rdmalock_ftest_wait(struct rdmalock_ftest_thread *th, int posted)
{
	if (posted)
		return posted;
	wait_for_completion(&th->done);
	return th->status;
}

static void rdmalock_ftest_op_init(struct rdmalock_ftest_thread *th)
{
	reinit_completion(&th->done);
}

static int rdmalock_ftest_read(struct rdmalock_ftest_thread *th, u64 *val)
{
	struct rdmalock_ftest *t = th->t;
	int ret;

	if (!t->async)
		return rdmalock_fabric_read(t->fabric, t->req->target, t->offset,
					    val, sizeof(*val));
	rdmalock_ftest_op_init(th);
	ret = rdmalock_fabric_read_async(t->fabric, t->req->target, t->offset,
					 th->op);
	ret = rdmalock_ftest_wait(th, ret);
	*val = *th->word;
	return ret;
}

static int rdmalock_ftest_write(struct rdmalock_ftest_thread *th, u64 val)
{
	struct rdmalock_ftest *t = th->t;

	if (!t->async)
		return rdmalock_fabric_write(t->fabric, t->req->target, t->offset,
					     &val, sizeof(val));
	rdmalock_ftest_op_init(th);
	*th->word = val;
	return rdmalock_ftest_wait(th, rdmalock_fabric_write_async(t->fabric, t->req->target,
								   t->offset, th->op));
}

static int rdmalock_ftest_cas(struct rdmalock_ftest_thread *th, u64 expected,
			      u64 desired, u64 *old)
{
	struct rdmalock_ftest *t = th->t;
	int ret;

	if (!t->async)
		return rdmalock_fabric_cas(t->fabric, t->req->target, t->offset,
					   expected, desired, old);
	rdmalock_ftest_op_init(th);
	ret = rdmalock_fabric_cas_async(t->fabric, t->req->target, t->offset,
					expected, desired, th->op);
	ret = rdmalock_ftest_wait(th, ret);
	*old = *th->word;
	return ret;
}

static int rdmalock_ftest_faa(struct rdmalock_ftest_thread *th, u64 add)
{
	struct rdmalock_ftest *t = th->t;

	if (!t->async)
		return rdmalock_fabric_faa(t->fabric, t->req->target, t->offset,
					   add, NULL);
	rdmalock_ftest_op_init(th);
	return rdmalock_ftest_wait(th, rdmalock_fabric_faa_async(t->fabric, t->req->target,
								 t->offset, add, th->op));
}

static void rdmalock_ftest_error(struct rdmalock_ftest *t, int err)
{
	atomic64_inc(&t->errors);
	atomic_cmpxchg(&t->first_error, 0, err);
}

static int rdmalock_ftest_pattern(struct rdmalock_ftest_thread *th, u64 i)
{
	u64 want = ((u64)th->t->self << 56) ^ (i * 0x9e3779b97f4a7c15ULL), got;
	int ret;

	ret = rdmalock_ftest_write(th, want);
	if (!ret)
		ret = rdmalock_ftest_read(th, &got);
	if (!ret && got != want)
		ret = -EILSEQ;
	return ret;
}

/* Stopped by a fatal signal, or by the domain's destruction. */
static bool rdmalock_ftest_stopped(struct rdmalock_ftest *t)
{
	return READ_ONCE(t->stop) || rdmalock_domain_closed(t->dom);
}

/* This node's turn in round @i is to move the word from N*i+self on. */
static int rdmalock_ftest_pingpong(struct rdmalock_ftest_thread *th, u64 i)
{
	struct rdmalock_ftest *t = th->t;
	u64 want = t->num_nodes * i + t->self, old;
	unsigned long deadline = jiffies + RDMALOCK_FTEST_TURN_TIMEOUT;
	int ret;

	for (;;) {
		ret = rdmalock_ftest_cas(th, want, want + 1, &old);
		if (ret || old == want)
			return ret;
		if (rdmalock_ftest_stopped(t))
			return -EINTR;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		cond_resched();
	}
}

static int rdmalock_ftest_thread(void *arg)
{
	struct rdmalock_ftest_thread *th = arg;
	struct rdmalock_ftest *t = th->t;
	u64 i, val;
	int ret;

	for (i = 0; i < t->req->iterations && !rdmalock_ftest_stopped(t); i++) {
		switch (t->req->op) {
		case RDMALOCK_FTEST_PATTERN:
			ret = rdmalock_ftest_pattern(th, i);
			break;
		case RDMALOCK_FTEST_FAA_STORM:
			ret = rdmalock_ftest_faa(th, 1);
			break;
		case RDMALOCK_FTEST_READ:
			ret = rdmalock_ftest_read(th, &val);
			break;
		default:
			ret = rdmalock_ftest_pingpong(th, i);
			break;
		}
		if (ret)
			rdmalock_ftest_error(t, ret);
		else
			atomic64_inc(&t->done);
		cond_resched();
	}
	rdmalock_fabric_op_free(th->op);
	kfree(th);
	if (atomic_dec_and_test(&t->running))
		complete(&t->finished);
	/* The ioctl may return, and the module go, before we are gone. */
	module_put_and_kthread_exit(0);
}

static int rdmalock_ftest_check(const struct rdmalock_fabric_test *req,
				u32 self, u32 num_nodes)
{
	if ((req->flags & ~RDMALOCK_FTEST_F_ASYNC) || req->pad || req->pad2 ||
	    memchr_inv(req->reserved, 0, sizeof(req->reserved)))
		return -EINVAL;
	if (req->op < RDMALOCK_FTEST_PATTERN || req->op > RDMALOCK_FTEST_INVALIDATE)
		return -EINVAL;
	if (req->target >= num_nodes || req->word >= RDMALOCK_FTEST_WORDS)
		return -EINVAL;
	if (!req->threads || req->threads > RDMALOCK_FTEST_MAX_THREADS ||
	    !req->iterations || req->iterations > RDMALOCK_FTEST_MAX_ITERATIONS)
		return -EINVAL;
	/* One writer of a pattern, one player per node in a ping-pong. */
	if (req->op != RDMALOCK_FTEST_FAA_STORM && req->threads != 1)
		return -EINVAL;
	if ((req->op == RDMALOCK_FTEST_READ || req->op == RDMALOCK_FTEST_INVALIDATE) &&
	    req->iterations != 1)
		return -EINVAL;
	if (req->op == RDMALOCK_FTEST_INVALIDATE) {
		if (req->target == self || req->word)
			return -EINVAL;
		if (!rdmalock_allow_broken) {
			pr_err_ratelimited("the invalidate fabric test needs allow_broken=1\n");
			return -EPERM;
		}
	}
	return 0;
}

/* Starts the threads; returns how many are running. */
static struct rdmalock_ftest_thread *rdmalock_ftest_thread_alloc(struct rdmalock_ftest *t)
{
	struct rdmalock_ftest_thread *th;

	th = kzalloc(sizeof(*th), GFP_KERNEL);
	if (!th)
		return NULL;
	th->op = rdmalock_fabric_op_alloc(sizeof(*th->word),
					  rdmalock_ftest_op_done, th);
	if (!th->op) {
		kfree(th);
		return NULL;
	}
	th->word = rdmalock_fabric_op_buf(th->op);
	th->t = t;
	init_completion(&th->done);
	return th;
}

static u32 rdmalock_ftest_start(struct rdmalock_ftest *t)
{
	struct rdmalock_ftest_thread *th;
	struct task_struct *task;
	u32 i, started = 0;

	atomic_set(&t->running, t->req->threads + 1);
	for (i = 0; i < t->req->threads; i++) {
		th = rdmalock_ftest_thread_alloc(t);
		if (!th) {
			rdmalock_ftest_error(t, -ENOMEM);
			break;
		}
		__module_get(THIS_MODULE);
		task = kthread_run(rdmalock_ftest_thread, th, "rdmalock-ft/%u", i);
		if (IS_ERR(task)) {
			module_put(THIS_MODULE);
			rdmalock_fabric_op_free(th->op);
			kfree(th);
			rdmalock_ftest_error(t, PTR_ERR(task));
			break;
		}
		started++;
	}
	/* Drop the threads that did not start, and the starter's own count. */
	if (atomic_sub_and_test(t->req->threads - started + 1, &t->running))
		complete(&t->finished);
	return started;
}

/**
 * rdmalock_fabric_test() - run RDMALOCK_IOC_FABRIC_TEST on a domain
 * @req: in: the test; out: its results
 *
 * Context: process context; sleeps until the threads are done. A fatal
 * signal stops them early.
 * Return: 0 (failures of single operations are counted in @req), -ENOENT
 * for an unknown domain, -ESHUTDOWN for one being destroyed, -EINVAL for bad parameters.
 */
int rdmalock_fabric_test(struct rdmalock_fabric_test *req)
{
	struct rdmalock_domain *dom;
	struct rdmalock_ftest *t;
	int ret;

	dom = rdmalock_domain_get(req->name);
	if (!dom)
		return -ENOENT;
	/* The domain's destruction stops the test and waits for it. */
	ret = rdmalock_domain_enter(dom);
	if (ret)
		goto out_put;
	ret = rdmalock_ftest_check(req, dom->attr.node_id, dom->attr.num_nodes);
	if (ret)
		goto out_leave;
	if (req->op == RDMALOCK_FTEST_INVALIDATE) {
		ret = rdmalock_fabric_invalidate_peer(dom->fabric, req->target);
		req->value = 0;
		req->done = !ret;
		req->errors = !!ret;
		req->first_error = ret;
		ret = 0;
		goto out_leave;
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		ret = -ENOMEM;
		goto out_leave;
	}
	t->dom = dom;
	t->fabric = dom->fabric;
	t->req = req;
	t->async = req->flags & RDMALOCK_FTEST_F_ASYNC;
	t->self = dom->attr.node_id;
	t->num_nodes = dom->attr.num_nodes;
	t->offset = (u64)req->word * sizeof(u64);
	init_completion(&t->finished);

	rdmalock_ftest_start(t);
	if (wait_for_completion_killable(&t->finished)) {
		WRITE_ONCE(t->stop, true);
		wait_for_completion(&t->finished);
	}

	req->value = 0;
	if (req->op != RDMALOCK_FTEST_PATTERN) {
		ret = rdmalock_fabric_read(t->fabric, req->target, t->offset,
					   &req->value, sizeof(req->value));
		if (ret)
			rdmalock_ftest_error(t, ret);
		ret = 0;
	}
	req->done = atomic64_read(&t->done);
	req->errors = atomic64_read(&t->errors);
	req->first_error = atomic_read(&t->first_error);
	kfree(t);
out_leave:
	rdmalock_domain_leave(dom);
out_put:
	rdmalock_domain_put(dom);
	return ret;
}

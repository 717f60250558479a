// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock_example: a small client of the rdmalock in-kernel API.
 *
 * It does all its work in its init function, so that the outcome is the
 * outcome of insmod:
 *
 *  - it finds the domain named by the "domain" parameter and holds it;
 *  - it gets one lock handle for each id from first_id to
 *    first_id + count - 1 and keeps them for every round: a handle is one
 *    holder's hold on one id, so a task that holds several locks at once
 *    has one handle for each;
 *  - each round takes every lock exclusive, in increasing id order, with a
 *    timeout (timeout_ms), then releases them in the reverse order. Taking the
 *    locks in one global order is what keeps nodes that run this at the
 *    same time from deadlocking;
 *  - it takes the first id with rdmalock_lock_killable(), and checks that
 *    rdmalock_trylock() on a second handle for the same id finds it taken;
 *  - it takes the first id shared and tries it shared from the second
 *    handle, which is granted only where the algorithm has a shared mode;
 *  - in a domain with named locks, it caches a lock as a filesystem does:
 *    the first handle takes it and keeps it, with a blocking callback
 *    that releases it; the second asks for it asynchronously, without
 *    queueing (refused at once), then queueing, and that request is
 *    granted once the callback has let the lock go; where PR is shared,
 *    the first keeps PR, and the second's PR converted up to EX is
 *    refused until the first's callback, told of it, lets its PR go;
 *  - it puts the handles and the domain, and reports what it did;
 *  - with watch=1 it keeps the domain and logs its recovery callbacks
 *    (membership view changes) until it is unloaded.
 *
 * Usage: insmod rdmalock_example.ko domain=NAME [first_id=I] [count=C]
 * [rounds=R] [watch=1]. See Documentation/api.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <rdmalock.h>

#define EXAMPLE_MAX_COUNT	1024

static char *domain;
module_param(domain, charp, 0444);
MODULE_PARM_DESC(domain, "Name of the lock domain (required)");

static unsigned long long first_id;
module_param(first_id, ullong, 0444);
MODULE_PARM_DESC(first_id, "First lock id (default 0)");

static unsigned int count = 8;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "Locks held at once, 1 to 1024 (default 8)");

static unsigned int rounds = 100;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "Times all of them are taken and released (default 100)");

static unsigned int timeout_ms = 10000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "Longest wait for one lock, in ms (default 10000)");

static bool watch;
module_param(watch, bool, 0444);
MODULE_PARM_DESC(watch, "Log the domain's recovery callbacks until unloaded (default no)");

static struct rdmalock_domain *watched;

struct example {
	struct rdmalock_domain *dom;
	struct rdmalock_lock **lks;	/* lks[i]: the handle of first_id + i */
	struct rdmalock_lock *other;	/* a second handle for first_id */
	u64 acquired;			/* acquisitions granted */
};

static int example_get_handles(struct example *ex)
{
	struct rdmalock_lock *lk;
	unsigned int i;

	ex->lks = kcalloc(count, sizeof(*ex->lks), GFP_KERNEL);
	if (!ex->lks)
		return -ENOMEM;	/* the allocator has said so in the log */
	for (i = 0; i < count; i++) {
		lk = rdmalock_lock_get(ex->dom, first_id + i);
		if (IS_ERR(lk)) {
			pr_err("%s: getting a handle for id %llu: %ld\n",
			       domain, first_id + i, PTR_ERR(lk));
			return PTR_ERR(lk);
		}
		ex->lks[i] = lk;
	}
	lk = rdmalock_lock_get(ex->dom, first_id);
	if (IS_ERR(lk)) {
		pr_err("%s: getting a second handle for id %llu: %ld\n",
		       domain, first_id, PTR_ERR(lk));
		return PTR_ERR(lk);
	}
	ex->other = lk;
	return 0;
}

/* None of them may be held: rdmalock_lock_put() would warn. */
static void example_put_handles(struct example *ex)
{
	unsigned int i;

	if (ex->other)
		rdmalock_lock_put(ex->other);
	for (i = 0; ex->lks && i < count; i++) {
		if (ex->lks[i])
			rdmalock_lock_put(ex->lks[i]);
	}
	kfree(ex->lks);
}

/* Release lks[n - 1] down to lks[0], the reverse of the order taken. */
static void example_unlock_all(struct rdmalock_lock **lks, unsigned int n)
{
	while (n--)
		rdmalock_unlock(lks[n]);
}

static int example_rounds(struct example *ex)
{
	unsigned int r, i;
	int err;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < count; i++) {
			err = rdmalock_lock_timeout(ex->lks[i],
						    RDMALOCK_MODE_EX,
						    msecs_to_jiffies(timeout_ms));
			if (err) {
				pr_err("%s: round %u: locking id %llu exclusive: %d\n",
				       domain, r, first_id + i, err);
				example_unlock_all(ex->lks, i);
				return err;
			}
			ex->acquired++;
		}
		/* All count locks are held: the critical section goes here. */
		example_unlock_all(ex->lks, count);
		cond_resched();
	}
	return 0;
}

static int example_trylock(struct example *ex)
{
	struct rdmalock_lock *lk = ex->lks[0];
	int err;

	err = rdmalock_lock_killable(lk, RDMALOCK_MODE_EX);
	if (err) {
		pr_err("%s: locking id %llu exclusive, killable: %d\n",
		       domain, first_id, err);
		return err;
	}
	ex->acquired++;

	/* lk holds the lock, so another handle must not get it. */
	err = rdmalock_trylock(ex->other, RDMALOCK_MODE_EX);
	if (err == -EAGAIN) {
		err = 0;
	} else if (!err) {
		rdmalock_unlock(ex->other);
		err = -EPROTO;
		pr_err("%s: trylock of id %llu granted while another handle held it: %d\n",
		       domain, first_id, err);
	} else {
		pr_err("%s: trylock of id %llu: %d\n", domain, first_id, err);
	}
	rdmalock_unlock(lk);
	return err;
}

static int example_shared(struct example *ex)
{
	struct rdmalock_lock *lk = ex->lks[0];
	int err;

	err = rdmalock_lock_timeout(lk, RDMALOCK_MODE_SH, msecs_to_jiffies(timeout_ms));
	if (err) {
		pr_err("%s: locking id %llu shared: %d\n",
		       domain, first_id, err);
		return err;
	}
	ex->acquired++;

	/*
	 * A second reader gets in where the algorithm has a shared mode. ALock,
	 * cas and mcs grant shared as exclusive, and a writer may be waiting
	 * on another node, so -EAGAIN is a correct answer too.
	 */
	err = rdmalock_trylock(ex->other, RDMALOCK_MODE_SH);
	if (!err) {
		ex->acquired++;
		rdmalock_unlock(ex->other);
	} else if (err == -EAGAIN) {
		err = 0;
	} else {
		pr_err("%s: trylock of id %llu shared: %d\n",
		       domain, first_id, err);
	}
	rdmalock_unlock(lk);
	return err;
}

/*
 * struct example_cache - a lock kept until someone else wants it
 * @kept: the handle that keeps it
 * @release: lets it go, outside the callback, as a filesystem would
 * @released: bit 0: it did
 * @let_go: completed when it did
 * @asked: the mode the blocked request wants, +1; 0 until the callback
 * @granted: the other handle's request ended
 * @status: how
 */
struct example_cache {
	struct rdmalock_lock *kept;
	struct work_struct release;
	unsigned long released;
	struct completion let_go;
	unsigned int asked;
	struct completion granted;
	int status;
};

static void example_release(struct work_struct *work)
{
	struct example_cache *c = container_of(work, struct example_cache, release);

	if (!test_and_set_bit(0, &c->released)) {
		rdmalock_unlock(c->kept);
		complete(&c->let_go);
	}
}

/* A blocking callback must not wait for the lock: it queues the release. */
static void example_blocked(void *arg, unsigned int mode)
{
	struct example_cache *c = arg;

	WRITE_ONCE(c->asked, mode + 1);
	schedule_work(&c->release);
}

static void example_granted(void *arg, int status)
{
	struct example_cache *c = arg;

	c->status = status;
	complete(&c->granted);
}

/* Lets the kept lock go, if its callback did not, and waits for that. */
static void example_let_go(struct example_cache *c)
{
	schedule_work(&c->release);
	flush_work(&c->release);
}

/*
 * While @c->kept holds the lock, a request of the other handle that may
 * not queue (DLM's NOQUEUE, with @flags) ends at once with -EAGAIN.
 */
static int example_noqueue(struct example *ex, struct example_cache *c,
			   unsigned int flags)
{
	int err;

	err = rdmalock_lock_async(ex->other, RDMALOCK_MODE_EX,
				  RDMALOCK_REQ_NOQUEUE | flags, example_granted, c);
	if (err)
		return err;
	if (!wait_for_completion_timeout(&c->granted, msecs_to_jiffies(timeout_ms))) {
		rdmalock_lock_cancel(ex->other);
		wait_for_completion(&c->granted);
	}
	reinit_completion(&c->granted);
	if (!c->status) {
		rdmalock_unlock(ex->other);
		pr_err("%s: a NOQUEUE request was granted beside the kept lock\n",
		       domain);
		return -EPROTO;
	}
	if (c->status != -EAGAIN)
		return c->status;
	pr_info("%s: a NOQUEUE request for the kept lock ended at once: -EAGAIN\n",
		domain);
	return 0;
}

/* Keeps the lock with @c->kept again, its callback not heard yet. */
static int example_keep(struct example_cache *c, unsigned int mode)
{
	int err;

	clear_bit(0, &c->released);
	reinit_completion(&c->let_go);
	WRITE_ONCE(c->asked, 0);
	err = rdmalock_lock_timeout(c->kept, mode, msecs_to_jiffies(timeout_ms));
	/* Nothing to let go. */
	if (err)
		set_bit(0, &c->released);
	return err;
}

/*
 * A NOQUEUE request that asks (DLM's NOQUEUEBAST) is refused too, but
 * the kept handle's callback hears of it and lets the lock go, as it
 * would for a request that waits. The lock is then kept again.
 */
static int example_noqueue_ask(struct example *ex, struct example_cache *c)
{
	int err;

	err = example_noqueue(ex, c, RDMALOCK_REQ_NOQUEUE_ASK);
	if (err)
		return err;
	if (!wait_for_completion_timeout(&c->let_go, msecs_to_jiffies(timeout_ms))) {
		pr_err("%s: a refused NOQUEUE request that asks was not heard\n",
		       domain);
		return -ETIMEDOUT;
	}
	pr_info("%s: a refused NOQUEUE request that asks was heard by the callback of the kept lock (mode %s)\n",
		domain, READ_ONCE(c->asked) == RDMALOCK_MODE_EX + 1 ? "EX" : "SH");
	flush_work(&c->release);
	return example_keep(c, RDMALOCK_MODE_EX);
}

/* Returns with neither handle holding, and the release work done. */
static int example_cache_run(struct example *ex, struct example_cache *c)
{
	int err;

	err = example_keep(c, RDMALOCK_MODE_EX);
	if (err) {
		pr_err("%s: keeping id %llu: %d\n", domain, first_id, err);
		return err;
	}
	ex->acquired++;
	err = example_noqueue(ex, c, 0) ?: example_noqueue_ask(ex, c) ?:
	      rdmalock_lock_async(ex->other, RDMALOCK_MODE_EX, 0, example_granted, c);
	if (err) {
		pr_err("%s: asking for id %llu: %d\n", domain, first_id, err);
		example_let_go(c);
		return err;
	}
	if (!wait_for_completion_timeout(&c->granted, msecs_to_jiffies(timeout_ms))) {
		/* The callback never came: let the lock go, and the request end. */
		rdmalock_lock_cancel(ex->other);
		schedule_work(&c->release);
		wait_for_completion(&c->granted);
		if (!c->status)
			rdmalock_unlock(ex->other);
		c->status = -ETIMEDOUT;
	}
	flush_work(&c->release);
	if (!c->status) {
		ex->acquired++;
		rdmalock_unlock(ex->other);
		pr_info("%s: a kept lock was let go at its blocking callback (mode %s) and the waiting request granted\n",
			domain, READ_ONCE(c->asked) == RDMALOCK_MODE_EX + 1 ? "EX" : "SH");
	} else {
		pr_err("%s: the request for a kept lock: %d\n", domain, c->status);
	}
	return c->status;
}

/*
 * Where PR is shared: beside the kept handle's PR, the other handle's PR
 * converted up to EX is refused (-EDEADLK), and the kept handle's
 * blocking callback hears EX; asked again, as GFS2 asks, the conversion
 * is granted once the callback has let the PR go.
 */
static int example_upgrade(struct example *ex, struct example_cache *c)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);
	int err;

	err = example_keep(c, RDMALOCK_MODE_PR);
	if (err)
		return err;
	err = rdmalock_trylock(ex->other, RDMALOCK_MODE_PR);
	if (err) {
		example_let_go(c);
		/* -EAGAIN: PR is served exclusive here, no conversion up. */
		return err == -EAGAIN ? 0 : err;
	}
	ex->acquired += 2;
	err = rdmalock_lock_convert(ex->other, RDMALOCK_MODE_EX);
	if (err == -EDEADLK) {
		do {
			usleep_range(10000, 20000);
			err = rdmalock_lock_convert(ex->other, RDMALOCK_MODE_EX);
		} while (err == -EDEADLK && time_before(jiffies, end));
		if (!err)
			pr_info("%s: a conversion up refused beside a kept PR was granted once its blocking callback let the PR go (mode %s)\n",
				domain, READ_ONCE(c->asked) == RDMALOCK_MODE_EX + 1 ? "EX" : "SH");
	} else if (!err) {
		pr_err("%s: a conversion up was granted beside a kept PR\n", domain);
		err = -EPROTO;
	}
	if (err)
		pr_err("%s: converting up beside a kept PR: %d\n", domain, err);
	rdmalock_unlock(ex->other);
	example_let_go(c);
	return err;
}

static int example_cache(struct example *ex)
{
	struct example_cache *c = kzalloc(sizeof(*c), GFP_KERNEL);
	int err;

	if (!c)
		return -ENOMEM;
	c->kept = ex->lks[0];
	INIT_WORK(&c->release, example_release);
	init_completion(&c->granted);
	init_completion(&c->let_go);
	err = rdmalock_lock_set_blocking(c->kept, example_blocked, c);
	if (err == -EOPNOTSUPP) {
		pr_info("%s: ids map to slots: no blocking callbacks to cache locks with\n",
			domain);
		kfree(c);
		return 0;
	}
	if (!err)
		err = example_cache_run(ex, c);
	if (!err)
		err = example_upgrade(ex, c);
	/* No callback of the handle runs once it is put. */
	rdmalock_lock_set_blocking(c->kept, NULL, NULL);
	kfree(c);
	return err;
}

static void example_recover_prep(void *arg)
{
	pr_info("%s: recover_prep\n", domain);
}

static void example_recover_slot(void *arg, u32 slot)
{
	pr_info("%s: recover_slot %u\n", domain, slot);
}

static void example_recover_done(void *arg, const u32 *slots, u32 num_slots,
				 u32 our_slot, u64 generation)
{
	char list[RDMALOCK_MAX_NODES * 4] = "";
	size_t len = 0;
	u32 i;

	for (i = 0; i < num_slots; i++)
		len += scnprintf(list + len, sizeof(list) - len, "%s%u",
				 i ? "," : "", slots[i]);
	pr_info("%s: recover_done: our slot %u, generation %llu, slots %s\n",
		domain, our_slot, generation, list);
}

static const struct rdmalock_recovery_ops example_recovery_ops = {
	.recover_prep = example_recover_prep,
	.recover_slot = example_recover_slot,
	.recover_done = example_recover_done,
};

static int __init example_init(void)
{
	struct example ex = {};
	int err;

	if (!domain || !*domain) {
		pr_err("the domain parameter is required: %d\n", -EINVAL);
		return -EINVAL;
	}
	if (count < 1 || count > EXAMPLE_MAX_COUNT) {
		pr_err("count must be 1 to %d, not %u: %d\n",
		       EXAMPLE_MAX_COUNT, count, -EINVAL);
		return -EINVAL;
	}

	ex.dom = rdmalock_domain_get(domain);
	if (!ex.dom) {
		pr_err("%s: no such domain: %d\n", domain, -ENOENT);
		return -ENOENT;
	}

	err = example_get_handles(&ex);
	if (!err)
		err = example_rounds(&ex);
	if (!err)
		err = example_trylock(&ex);
	if (!err)
		err = example_shared(&ex);
	if (!err)
		err = example_cache(&ex);

	example_put_handles(&ex);
	if (!err && watch) {
		err = rdmalock_domain_recovery_register(ex.dom, &example_recovery_ops,
							NULL);
		if (err)
			pr_err("%s: registering recovery callbacks: %d\n",
			       domain, err);
		else
			watched = ex.dom;
	}
	if (!watched)
		rdmalock_domain_put(ex.dom);
	if (err)
		return err;

	pr_info("%s: %llu acquisitions of %u locks, ok\n",
		domain, ex.acquired, count);
	return 0;
}

static void __exit example_exit(void)
{
	if (watched) {
		rdmalock_domain_recovery_unregister(watched);
		rdmalock_domain_put(watched);
	}
	pr_info("unloaded\n");
}

module_init(example_init);
module_exit(example_exit);

MODULE_DESCRIPTION("rdmalock sample client: takes and releases locks of a domain");
MODULE_LICENSE("GPL");

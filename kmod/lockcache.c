// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: the torture's lock-caching mode (RDMALOCK_RUN_F_CACHE).
 *
 * Each thread keeps every lock it took after its critical section, as a
 * cluster filesystem keeps its locks, and gives one up only when its
 * blocking callback says that a request waits for it, or when it wants
 * exclusive a lock it keeps shared. Requests for a kept lock are granted
 * only because of the callbacks: a callback that does not come shows as
 * requests that time out. RDMALOCK_RUN_F_DEAF ignores the callbacks: the
 * negative control that shows that.
 *
 * With RDMALOCK_RUN_F_ASYNC, every lock is asked for with an asynchronous
 * request, and one request in four is cancelled as soon as it is made:
 * it ends without the lock (-ECANCELED), or with it when the grant came
 * first, and either way exclusion and the counters must hold.
 *
 * With RDMALOCK_RUN_F_CONVERT, exclusive sections take EX or PW, shared
 * ones PR; a lock kept exclusive that only shared requests wait for is
 * converted down to PR, written LVB and all, where the algorithm shares,
 * and kept; one kept shared and wanted exclusive is converted up, or
 * given up and taken again where that is refused (-EDEADLK). A conversion
 * that let go of the lock would let a writer in between, whose increment
 * the converted holder's LVB would not have. RDMALOCK_RUN_F_GAP is such a
 * conversion, the negative control that shows it: the lock is let go, and
 * taken again when the thread next uses it, trusting the LVB it had, as a
 * filesystem trusts its cache across a conversion. (Taken again in the
 * callback, it would wait there for holders whose callbacks wait behind
 * it.)
 *
 * Each lock's LVB carries its guarded counter: an exclusive critical
 * section adds one to both, and every critical section, shared or
 * exclusive, first checks that they are equal. An LVB lost or left
 * behind, or a lock kept after another was granted it, shows as a
 * violation. An LVB that is not valid is rebuilt from the counter, as a
 * DLM user rebuilds it from what it protects.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "cluster.h"
#include "locks.h"
#include "torture.h"

/* &rdmalock_run_cached.asked */
#define RDMALOCK_RUN_ASKED	0	/* a request waits */
#define RDMALOCK_RUN_ASKED_EX	1	/* an exclusive one among them */

/*
 * struct rdmalock_run_cached - a thread's handle on one lock, kept
 * @lk: the handle
 * @use: held by the thread while it uses the lock, or by a callback that
 *	releases it; a callback never waits for it
 * @t: the thread
 * @asked: RDMALOCK_RUN_ASKED*: a blocking callback came, not yet answered
 * @set_up: @lk is set up
 * @held: @lk holds its lock
 * @shared: in a shared mode of the algorithm
 * @lvb_ok: @lvb carries the counter: it was valid, or was rebuilt
 * @gap: GAP: let go at a conversion, to be taken again with @kept
 * @kept: GAP: the counter the LVB had then
 * @errors: releases of the callbacks that failed
 * @first_error: the first of them
 * @requested: an asynchronous request of @lk ended
 * @status: how
 * @lvb: the lock value block; its first word, the lock's counter
 */
struct rdmalock_run_cached {
	struct rdmalock_lock lk;
	struct mutex use;	/* see above */
	struct rdmalock_run_thread *t;
	unsigned long asked;
	bool set_up;
	bool held;
	bool shared;
	bool lvb_ok;
	bool gap;
	u64 kept;
	u64 errors;
	int first_error;
	struct completion requested;
	int status;
	u64 lvb[RDMALOCK_LVB_MAX / sizeof(u64)];
};

/* Counts a failed call of a callback's answer, the first one kept. */
static void rdmalock_run_cache_error(struct rdmalock_run_cached *c, int err)
{
	if (err && !c->errors++)
		c->first_error = err;
}

/* Under @c->use: give the kept lock up. */
static void rdmalock_run_cache_release(struct rdmalock_run_cached *c)
{
	if (!c->held)
		return;
	c->held = false;
	rdmalock_run_cache_error(c, rdmalock_unlock(&c->lk));
}

/* Under @c->use: GAP's conversion down lets go, and remembers. */
static void rdmalock_run_cache_gap(struct rdmalock_run_cached *c)
{
	c->kept = c->lvb[0];
	c->gap = true;
	atomic_inc(&c->t->run->converted);
	rdmalock_run_cache_release(c);
}

/* Under @c->use: a lock kept exclusive is kept as PR instead. */
static void rdmalock_run_cache_downgrade(struct rdmalock_run_cached *c)
{
	int ret;

	if (c->t->run->req->flags & RDMALOCK_RUN_F_GAP) {
		rdmalock_run_cache_gap(c);
		return;
	}
	ret = rdmalock_lock_convert(&c->lk, RDMALOCK_MODE_PR);
	if (!ret) {
		c->shared = true;
		atomic_inc(&c->t->run->converted);
		return;
	}
	rdmalock_run_cache_error(c, ret);
	/* It holds its old mode, or NL: let go. */
	rdmalock_run_cache_release(c);
}

/* May the callback's answer be to keep the lock as PR? */
static bool rdmalock_run_cache_may_downgrade(struct rdmalock_run_cached *c,
					     bool asked_ex)
{
	return !asked_ex && c->held && !c->shared &&
	       (c->t->run->req->flags & RDMALOCK_RUN_F_CONVERT) &&
	       rdmalock_mode_shared(c->t->run->dom->ls, RDMALOCK_MODE_PR);
}

/*
 * Releases a kept lock a callback asked for, or converts it down when
 * only shared requests wait, unless its thread uses it: the thread calls
 * this again when it is done. Whichever of the two comes last sees the
 * request.
 */
static void rdmalock_run_cache_answer(struct rdmalock_run_cached *c)
{
	bool asked_ex;

	if (!test_bit(RDMALOCK_RUN_ASKED, &c->asked) || !mutex_trylock(&c->use))
		return;
	if (test_and_clear_bit(RDMALOCK_RUN_ASKED, &c->asked)) {
		asked_ex = test_and_clear_bit(RDMALOCK_RUN_ASKED_EX, &c->asked);
		if (rdmalock_run_cache_may_downgrade(c, asked_ex))
			rdmalock_run_cache_downgrade(c);
		else
			rdmalock_run_cache_release(c);
	}
	mutex_unlock(&c->use);
}

static void rdmalock_run_blocked(void *arg, unsigned int mode)
{
	struct rdmalock_run_cached *c = arg;

	atomic64_inc(&c->t->run->blocked);
	if (c->t->run->req->flags & RDMALOCK_RUN_F_DEAF)
		return;
	if (mode == RDMALOCK_MODE_EX)
		set_bit(RDMALOCK_RUN_ASKED_EX, &c->asked);
	set_bit(RDMALOCK_RUN_ASKED, &c->asked);
	rdmalock_run_cache_answer(c);
}

static int rdmalock_run_cache_setup(struct rdmalock_run_thread *t,
				    struct rdmalock_run_cached *c, u64 id)
{
	int ret;

	ret = rdmalock_lock_setup(&c->lk, t->run->dom, id);
	if (!ret)
		ret = rdmalock_lock_set_value(&c->lk, c->lvb, sizeof(c->lvb));
	if (!ret)
		ret = rdmalock_lock_set_blocking(&c->lk, rdmalock_run_blocked, c);
	if (ret) {
		rdmalock_lock_teardown(&c->lk);
		return ret;
	}
	c->set_up = true;
	return 0;
}

/* The critical section of a kept lock, checked against its LVB. */
static int rdmalock_run_cache_cs(struct rdmalock_run_thread *t,
				 struct rdmalock_run_cached *c)
{
	u64 counter;
	int ret;

	ret = rdmalock_word_read(&c->lk, RDMALOCK_SLOT_COUNTER, &counter);
	if (ret)
		return ret;
	if (!c->lvb_ok)
		c->lvb[0] = counter;
	else if (c->lvb[0] != counter)
		t->violations++;
	c->lvb_ok = true;
	if (c->shared)
		return rdmalock_run_cs_shared(t, &c->lk);
	ret = rdmalock_run_cs(t, &c->lk);
	if (ret)
		c->lvb_ok = false;	/* the counter may have moved or not */
	else
		c->lvb[0]++;
	return ret;
}

static void rdmalock_run_requested(void *arg, int status)
{
	struct rdmalock_run_cached *c = arg;

	c->status = status;
	complete(&c->requested);
}

/*
 * Under @c->use: an asynchronous request, cancelled at once one time in
 * four. One that has not ended within the run's lock timeout is
 * cancelled then, and counts as an error unless the run ended meanwhile.
 * Return: 0 with the lock, or why not.
 */
static int rdmalock_run_request(struct rdmalock_run_thread *t,
				struct rdmalock_run_cached *c, unsigned int mode)
{
	bool late = false;
	int ret;

	reinit_completion(&c->requested);
	ret = rdmalock_lock_async(&c->lk, mode, 0, rdmalock_run_requested, c);
	if (ret) {
		rdmalock_run_error(t, ret);
		return ret;
	}
	if (!(prandom_u32_state(&t->rnd) % 4))
		rdmalock_lock_cancel(&c->lk);
	if (!wait_for_completion_timeout(&c->requested, t->run->lock_timeout)) {
		late = true;
		rdmalock_lock_cancel(&c->lk);
		wait_for_completion(&c->requested);
	}
	ret = c->status;
	if (ret == -ECANCELED && !late)
		t->cancelled++;
	else if (ret && time_before(jiffies, t->run->end))
		rdmalock_run_error(t, late ? -ETIMEDOUT : ret);
	return ret;
}

/* Under @c->use: hold @c's lock for a section in @mode, kept or taken. */
static int rdmalock_run_cache_hold(struct rdmalock_run_thread *t,
				   struct rdmalock_run_cached *c,
				   unsigned int mode)
{
	bool shared = rdmalock_mode_shared(t->run->dom->ls, mode);
	int ret;

	/* Kept shared, wanted exclusive: converted up, or let go. */
	if (c->held && c->shared && !shared) {
		ret = -EDEADLK;
		if (t->run->req->flags & RDMALOCK_RUN_F_CONVERT)
			ret = rdmalock_lock_convert(&c->lk, mode);
		if (ret) {
			rdmalock_run_cache_release(c);
		} else {
			c->shared = false;
			/* It read the home's LVB, which may not be valid. */
			c->lvb_ok = rdmalock_lock_lvb_valid(&c->lk);
		}
	}
	if (c->held) {
		t->cached++;
		return 0;
	}
	if (t->run->req->flags & RDMALOCK_RUN_F_ASYNC)
		ret = rdmalock_run_request(t, c, mode);
	else
		ret = rdmalock_run_lock(t, &c->lk, mode);
	if (ret)
		return ret;
	c->held = true;
	c->shared = shared;
	c->lvb_ok = rdmalock_lock_lvb_valid(&c->lk);
	if (c->gap) {
		c->lvb[0] = c->kept;
		c->lvb_ok = true;
		c->gap = false;
	}
	return 0;
}

/**
 * rdmalock_run_cache_take() - one critical section under a kept lock
 * @t: the thread, with a cache
 * @id: the lock
 * @mode: RDMALOCK_MODE_*: an exclusive lock kept serves a shared section
 *	too, as an exclusive one
 */
void rdmalock_run_cache_take(struct rdmalock_run_thread *t, u64 id,
			     unsigned int mode)
{
	struct rdmalock_run_cached *c = &t->cache[id];
	int ret;

	mutex_lock(&c->use);
	ret = c->set_up ? 0 : rdmalock_run_cache_setup(t, c, id);
	if (ret) {
		rdmalock_run_error(t, ret);
		usleep_range(1000, 2000);
	} else if (!rdmalock_run_cache_hold(t, c, mode)) {
		ret = rdmalock_run_cache_cs(t, c);
		if (ret)
			rdmalock_run_error(t, ret);
		t->acquisitions++;
		if (t->run->counts && !c->shared)
			atomic64_inc(&t->run->counts[id]);
	}
	mutex_unlock(&c->use);
	rdmalock_run_cache_answer(c);
}

/**
 * rdmalock_run_cache_alloc() - a thread's cache: a handle for every lock
 * @t: the thread
 *
 * Return: 0 or -ENOMEM.
 */
int rdmalock_run_cache_alloc(struct rdmalock_run_thread *t)
{
	u32 i, n = t->run->req->num_locks;

	t->cache = kvcalloc(n, sizeof(*t->cache), GFP_KERNEL);
	if (!t->cache)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		mutex_init(&t->cache[i].use);
		init_completion(&t->cache[i].requested);
		t->cache[i].t = t;
	}
	return 0;
}

/**
 * rdmalock_run_cache_free() - the thread is done: give every lock up
 * @t: the thread, or one whose cache was never allocated
 *
 * The callbacks' failed releases count as the thread's errors.
 */
void rdmalock_run_cache_free(struct rdmalock_run_thread *t)
{
	struct rdmalock_run_cached *c;
	u32 i;

	if (!t->cache)
		return;
	for (i = 0; i < t->run->req->num_locks; i++) {
		c = &t->cache[i];
		if (!c->set_up)
			continue;
		mutex_lock(&c->use);
		rdmalock_run_cache_release(c);
		mutex_unlock(&c->use);
		rdmalock_lock_teardown(&c->lk);
		if (c->errors) {
			t->errors += c->errors;
			if (!t->first_error)
				t->first_error = c->first_error;
		}
	}
	kvfree(t->cache);
	t->cache = NULL;
}

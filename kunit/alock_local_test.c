// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: ALock's local cohort alone, with N kernel threads on one lock.
 *
 * The lockspace has a region and no fabric at all, so a local acquisition
 * that posted any RDMA verb would oops on the NULL fabric: these tests
 * also show that the home node's threads never touch the NIC. The remote
 * cohort's head is played by the test itself, with the loads and stores
 * its RDMA READ and WRITE would make, to show the budget handing the
 * lock over. test-none, which excludes nothing, runs through the same
 * harness as the negative control: the harness must catch it. A waiter
 * whose acquisition is cancelled leaves the queue whole. A node out of
 * descriptors makes acquisitions wait for one; a verb out of room does not.
 * A failed verb fails a trylock, but not the first try of a request that
 * waits, which the view change the verb asks for lets try again.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>

#include "locks.h"

/* Words of an ALock slot (alock.c), as the remote cohort's head sees them. */
#define TAIL_R		0
#define TAIL_L		16
#define VICTIM		32
#define ALOCK_LOCAL	1
#define ALOCK_REMOTE	2

#define THREADS		4
#define LOCKS		4
#define SMALL_POOL	64
#define WAIT_MS		10000

static const struct rdmalock_how forever;

struct cohort {
	struct kunit *test;
	struct rdmalock_fabric_attr attr;
	struct rdmalock_ls_params params;
	struct rdmalock_lockspace *ls;
	void *region;
	u64 slot_off;
	atomic_t inside;		/* threads in the critical section */
	atomic_t violations;		/* times another thread was inside too */
	atomic64_t entries;		/* critical sections entered */
	u64 counter;			/* guarded: updated non-atomically */
	bool stop;			/* hammering threads return */
	int order[2 * THREADS];		/* thread ids, in the order they entered */
	int entered;
};

struct cohort_thread {
	struct cohort *c;
	struct task_struct *task;
	struct completion done;
	int id;
	int loops;			/* 0: until c->stop */
	struct rdmalock_cancel *cancel;	/* NULL: not cancellable */
	int ret;
};

static struct cohort *cohort_create_pool(struct kunit *test, u32 algo,
					 u32 budget_local, u32 descs)
{
	struct cohort *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->test = test;
	c->attr = (struct rdmalock_fabric_attr){
		.name = "kunit-alock",
		.node_id = 0,
		.num_nodes = 1,
	};
	c->region = kunit_kzalloc(test, rdmalock_desc_offset(LOCKS, descs),
				  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->region);
	c->params = (struct rdmalock_ls_params){
		.algo = algo,
		.num_nodes = 1,
		.locks_per_node = LOCKS,
		.descs = descs,
		.budget_local = budget_local,
	};
	c->ls = rdmalock_lockspace_alloc(&c->attr, c->region, &c->params);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->ls);
	c->slot_off = rdmalock_table_offset(1);
	return c;
}

static struct cohort *cohort_create(struct kunit *test, u32 algo,
				    u32 budget_local)
{
	return cohort_create_pool(test, algo, budget_local,
				  RDMALOCK_DEFAULT_DESCRIPTORS);
}

/* Every acquisition has ended: no descriptor left in use, none lost. */
static void cohort_destroy(struct cohort *c)
{
	struct rdmalock_lockspace *ls = c->ls;

	KUNIT_EXPECT_TRUE(c->test, bitmap_empty(ls->used, ls->descs));
	KUNIT_EXPECT_EQ(c->test, atomic_read(&ls->lost), 0);
	rdmalock_lockspace_stop(ls);
	rdmalock_lockspace_free(ls);
}

static u64 *cohort_word(struct cohort *c, u32 word)
{
	return c->region + c->slot_off + word;
}

/*
 * The critical section: a check of who else is inside, and a counter
 * incremented by a load and a later store, sometimes with a sleep
 * between them so that a lock that does not exclude is caught whatever
 * the number of CPUs.
 */
static void cohort_critical(struct cohort *c, int id, int i)
{
	int n;
	u64 v;

	if (atomic_inc_return(&c->inside) != 1)
		atomic_inc(&c->violations);
	atomic64_inc(&c->entries);
	/* Racy only when the lock is broken; the index is checked anyway. */
	n = c->entered++;
	if (n < ARRAY_SIZE(c->order))
		c->order[n] = id;
	v = READ_ONCE(c->counter);
	if (i % 16 == 0)
		usleep_range(5, 10);
	else
		udelay(1);
	WRITE_ONCE(c->counter, v + 1);
	atomic_dec(&c->inside);
}

static int cohort_thread_fn(void *data)
{
	struct cohort_thread *t = data;
	struct cohort *c = t->c;
	const struct rdmalock_how how = { .cancel = t->cancel };
	struct rdmalock_waiter *w;
	int i;

	for (i = 0; !t->loops || i < t->loops; i++) {
		if (!t->loops && READ_ONCE(c->stop))
			break;
		t->ret = rdmalock_ls_acquire(c->ls, 0, c->slot_off,
					     RDMALOCK_MODE_EX, &how, &w);
		if (t->ret)
			break;
		cohort_critical(c, t->id, i);
		t->ret = rdmalock_ls_release(c->ls, w);
		if (t->ret)
			break;
		cond_resched();
	}
	complete(&t->done);
	return 0;
}

static struct cohort_thread *
cohort_start_cancellable(struct cohort *c, int id, int loops,
			 struct rdmalock_cancel *cancel)
{
	struct cohort_thread *t = kunit_kzalloc(c->test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(c->test, t);
	t->c = c;
	t->id = id;
	t->loops = loops;
	t->cancel = cancel;
	init_completion(&t->done);
	t->task = kthread_run(cohort_thread_fn, t, "rdmalock-kunit/%d", id);
	KUNIT_ASSERT_FALSE(c->test, IS_ERR(t->task));
	return t;
}

static struct cohort_thread *cohort_start(struct cohort *c, int id, int loops)
{
	return cohort_start_cancellable(c, id, loops, NULL);
}

static void cohort_join(struct cohort_thread *t)
{
	struct kunit *test = t->c->test;

	/* A thread that never ends is a hang: report it rather than wait. */
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&t->done,
								msecs_to_jiffies(6 * WAIT_MS)),
			      "thread %d still waiting for the lock", t->id);
	KUNIT_EXPECT_EQ_MSG(test, t->ret, 0, "thread %d", t->id);
}

/* Polls @cond for up to WAIT_MS; false if it never became true. */
#define cohort_wait_for(cond) ({					\
	unsigned long __end = jiffies + msecs_to_jiffies(WAIT_MS);	\
	bool __ok;							\
	while (!(__ok = (cond)) && time_before(jiffies, __end))		\
		usleep_range(20, 50);					\
	__ok;								\
})

static int cohort_hammer(struct cohort *c, int loops)
{
	struct cohort_thread *t[THREADS];
	int i;

	for (i = 0; i < THREADS; i++)
		t[i] = cohort_start(c, i, loops);
	for (i = 0; i < THREADS; i++)
		cohort_join(t[i]);
	return atomic_read(&c->violations);
}

/* N threads, each taking the lock many times: never two inside. */
static void local_cohort_excludes(struct kunit *test)
{
	struct cohort *c = cohort_create(test, RDMALOCK_ALGO_ALOCK, 2);
	const int loops = 1000;

	KUNIT_EXPECT_EQ(test, cohort_hammer(c, loops), 0);
	KUNIT_EXPECT_EQ(test, c->counter, (u64)THREADS * loops);
	KUNIT_EXPECT_EQ(test, atomic64_read(&c->ls->acquisitions), (s64)THREADS * loops);
	/* Nobody queued, nobody arbitrating. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(*cohort_word(c, TAIL_L)), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*cohort_word(c, TAIL_R)), 0);
	cohort_destroy(c);
}

/* The negative control: the same harness catches a lock that excludes nothing. */
static void harness_catches_no_exclusion(struct kunit *test)
{
	struct cohort *c = cohort_create(test, RDMALOCK_ALGO_TEST_NONE, 0);
	const int loops = 1000;

	KUNIT_EXPECT_GT(test, cohort_hammer(c, loops), 0);
	KUNIT_EXPECT_LT(test, c->counter, (u64)THREADS * loops);
	cohort_destroy(c);
}

/*
 * Waiters enter in the order they queued, across budget renewals: the
 * test holds the lock while 2 * THREADS threads queue one at a time
 * (each seen swapping itself into TAIL_L), then lets them in.
 */
static void local_cohort_is_fifo(struct kunit *test)
{
	struct cohort *c = cohort_create(test, RDMALOCK_ALGO_ALOCK, 3);
	struct cohort_thread *t[2 * THREADS];
	struct rdmalock_waiter *w;
	u64 *tail_l = cohort_word(c, TAIL_L);
	u64 tail;
	int i, n;

	KUNIT_ASSERT_EQ(test, rdmalock_ls_acquire(c->ls, 0, c->slot_off,
						  RDMALOCK_MODE_EX, &forever, &w), 0);
	for (n = 0; n < ARRAY_SIZE(t); n++) {
		tail = READ_ONCE(*tail_l);
		t[n] = cohort_start(c, n, 1);
		if (!cohort_wait_for(READ_ONCE(*tail_l) != tail)) {
			KUNIT_FAIL(test, "thread %d never queued", n);
			break;
		}
	}
	KUNIT_EXPECT_EQ(test, rdmalock_ls_release(c->ls, w), 0);
	for (i = 0; i < n; i++)
		cohort_join(t[i]);
	KUNIT_ASSERT_EQ(test, c->entered, (int)ARRAY_SIZE(t));
	for (i = 0; i < ARRAY_SIZE(t); i++)
		KUNIT_EXPECT_EQ_MSG(test, c->order[i], i, "entry %d", i);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->violations), 0);
	cohort_destroy(c);
}

/*
 * The remote cohort's head, played by the test: it queues (TAIL_R set),
 * yields the victim to itself, and waits, as rdmalock_alock_peterson_remote()
 * does through RDMA, while the local cohort is queued and the victim is
 * still REMOTE. Returns the local entries it had to wait through, or -1
 * if it never got in.
 */
static s64 remote_head_enters(struct cohort *c)
{
	u64 *tail_r = cohort_word(c, TAIL_R), *tail_l = cohort_word(c, TAIL_L);
	u64 *victim = cohort_word(c, VICTIM);
	s64 before;

	WRITE_ONCE(*tail_r, rdmalock_desc_encode(0, c->ls->descs - 1, 1));
	WRITE_ONCE(*victim, ALOCK_REMOTE);
	/* An RDMA WRITE completes before the READ that follows it is posted. */
	smp_mb();
	before = atomic64_read(&c->entries);
	if (!cohort_wait_for(!rdmalock_alock_must_wait(READ_ONCE(*tail_l),
						       READ_ONCE(*victim),
						       ALOCK_REMOTE)))
		return -1;
	/* Acquire: entries counted after the wait, as a critical section would. */
	smp_mb();
	return atomic64_read(&c->entries) - before;
}

/*
 * Local threads hammer one lock while the remote cohort's head asks for
 * it, round after round: it gets in after at most budget_local local
 * critical sections, and while it holds the lock no local thread enters.
 */
static void local_budget_yields_to_remote(struct kunit *test)
{
	const u32 budget = 3;
	struct cohort *c = cohort_create(test, RDMALOCK_ALGO_ALOCK, budget);
	struct cohort_thread *t[THREADS];
	s64 waited, held;
	int i, round;

	for (i = 0; i < THREADS; i++)
		t[i] = cohort_start(c, i, 0);
	for (round = 0; round < 20; round++) {
		held = atomic64_read(&c->entries);
		if (!cohort_wait_for(atomic64_read(&c->entries) > held + 2 * budget)) {
			KUNIT_FAIL(test, "round %d: the local threads stopped", round);
			break;
		}
		waited = remote_head_enters(c);
		KUNIT_EXPECT_GE_MSG(test, waited, 0, "round %d: never got in", round);
		KUNIT_EXPECT_LE_MSG(test, waited, (s64)budget, "round %d", round);
		held = atomic64_read(&c->entries);
		usleep_range(2000, 3000);
		KUNIT_EXPECT_EQ_MSG(test, atomic64_read(&c->entries), held,
				    "round %d: a local thread entered", round);
		KUNIT_EXPECT_EQ(test, atomic_read(&c->inside), 0);
		/*
		 * The remote head leaves (release: after its critical section);
		 * its queue is empty, so TAIL_R goes back to null.
		 */
		smp_mb();
		WRITE_ONCE(*cohort_word(c, TAIL_R), 0);
	}
	WRITE_ONCE(c->stop, true);
	for (i = 0; i < THREADS; i++)
		cohort_join(t[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->violations), 0);
	KUNIT_EXPECT_EQ(test, c->counter, (u64)atomic64_read(&c->entries));
	cohort_destroy(c);
}

/* A view change that is never outdated. */
static bool never_stale(void *arg)
{
	return false;
}

/*
 * One view change around a holder and a waiter queued behind it, as
 * recovery.c does it on every member; @claim false leaves out the claim,
 * the negative control: then the waiter gets the lock from its holder.
 * Return: whether the waiter entered while the holder held.
 */
static bool view_change_around_holder(struct kunit *test, bool claim)
{
	struct cohort *c = cohort_create(test, RDMALOCK_ALGO_ALOCK, 2);
	u64 *tail_l = cohort_word(c, TAIL_L);
	struct rdmalock_waiter *h;
	struct cohort_thread *t;
	bool stolen;

	KUNIT_ASSERT_EQ(test, rdmalock_ls_acquire(c->ls, 0, c->slot_off,
						  RDMALOCK_MODE_EX, &forever, &h), 0);
	t = cohort_start(c, 1, 1);
	KUNIT_ASSERT_TRUE(test, cohort_wait_for(READ_ONCE(*tail_l) != h->me));

	rdmalock_gate_set(c->ls, RDMALOCK_GATE_CLOSED, 0);
	KUNIT_ASSERT_TRUE(test, rdmalock_recovery_quiesce(c->ls, never_stale, NULL));
	/* The waiter left without a verb: its descriptor is still named. */
	KUNIT_EXPECT_NE(test, READ_ONCE(*tail_l), h->me);
	rdmalock_recovery_reset(c->ls, BIT(0), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*tail_l), 0);
	KUNIT_EXPECT_EQ(test, bitmap_weight(c->ls->used, c->ls->descs), 1);
	if (claim) {
		KUNIT_EXPECT_EQ(test, rdmalock_recovery_claim(c->ls, BIT(0)), 0);
		KUNIT_EXPECT_EQ(test, READ_ONCE(*tail_l), h->me);
	}
	rdmalock_gate_set(c->ls, RDMALOCK_GATE_OPEN, BIT(0));

	/* The waiter queues again; it must not get in while the holder holds. */
	cohort_wait_for(READ_ONCE(*tail_l) != h->me && READ_ONCE(*tail_l));
	msleep(50);
	stolen = atomic64_read(&c->entries) != 0;
	if (!claim) {
		/* The holder's release needs the claim it was denied. */
		cohort_join(t);
		WRITE_ONCE(*tail_l, h->me);
	}
	KUNIT_EXPECT_EQ(test, rdmalock_ls_release(c->ls, h), 0);
	if (claim)
		cohort_join(t);
	KUNIT_EXPECT_EQ(test, atomic64_read(&c->entries), 1);
	cohort_destroy(c);
	return stolen;
}

/* A view change keeps a live holder's lock; its waiter starts again. */
static void view_change_keeps_holder(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, view_change_around_holder(test, true));
}

/* The negative control: without the claim, the check sees the lock stolen. */
static void view_change_without_claim_is_caught(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, view_change_around_holder(test, false));
}

/*
 * A node that lost its lease: its waiter fails with -ENOLCK, its holder
 * learns at unlock that the lock was lost, and neither leaves a
 * descriptor behind.
 */
static void fence_loses_holder_and_waiter(struct kunit *test)
{
	struct cohort *c = cohort_create(test, RDMALOCK_ALGO_ALOCK, 2);
	u64 *tail_l = cohort_word(c, TAIL_L);
	struct rdmalock_waiter *h;
	struct cohort_thread *t;

	KUNIT_ASSERT_EQ(test, rdmalock_ls_acquire(c->ls, 0, c->slot_off,
						  RDMALOCK_MODE_EX, &forever, &h), 0);
	t = cohort_start(c, 1, 1);
	KUNIT_ASSERT_TRUE(test, cohort_wait_for(READ_ONCE(*tail_l) != h->me));
	rdmalock_recovery_fence(c->ls);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&t->done,
							    msecs_to_jiffies(WAIT_MS)));
	KUNIT_EXPECT_EQ(test, t->ret, -ENOLCK);
	KUNIT_EXPECT_EQ(test, rdmalock_ls_release(c->ls, h), -ENOLCK);
	KUNIT_EXPECT_EQ(test, atomic64_read(&c->entries), 0);
	/* Nothing is granted until a view takes this node back. */
	KUNIT_EXPECT_EQ(test, rdmalock_ls_acquire(c->ls, 0, c->slot_off,
						  RDMALOCK_MODE_EX, &forever, &h),
			-ENOTCONN);
	cohort_destroy(c);
}

/*
 * A cancelled waiter gives up as a timed-out one does, and leaves the
 * queue whole: the holder's release and later acquisitions go on. Until
 * the cancellation it waits: the cancellation is what ends it.
 */
static void a_cancelled_waiter_leaves_the_queue(struct kunit *test)
{
	struct cohort *c = cohort_create(test, RDMALOCK_ALGO_ALOCK, 2);
	u64 *tail_l = cohort_word(c, TAIL_L);
	struct rdmalock_cancel cancel = {};
	struct rdmalock_waiter *h;
	struct cohort_thread *t;

	KUNIT_ASSERT_EQ(test, rdmalock_ls_acquire(c->ls, 0, c->slot_off,
						  RDMALOCK_MODE_EX, &forever, &h), 0);
	t = cohort_start_cancellable(c, 1, 1, &cancel);
	KUNIT_ASSERT_TRUE(test, cohort_wait_for(READ_ONCE(*tail_l) != h->me));
	msleep(100);
	KUNIT_EXPECT_FALSE(test, completion_done(&t->done));
	rdmalock_cancel_request(c->ls, &cancel);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&t->done,
							    msecs_to_jiffies(WAIT_MS)));
	KUNIT_EXPECT_EQ(test, t->ret, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, atomic64_read(&c->entries), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_ls_release(c->ls, h), 0);
	cohort_join(cohort_start(c, 2, 10));
	KUNIT_EXPECT_EQ(test, atomic64_read(&c->entries), 10);
	cohort_destroy(c);
}

/*
 * Every descriptor of the pool is held (test-none grants every
 * acquisition, so one thread holds them all): a trylock is refused, a
 * timed acquisition waits until its deadline, a cancelled one ends, and
 * one that may wait for ever waits, and is granted once a holder lets
 * go. A pool that refused at once, as it did, fails all but the first.
 */
static void an_empty_pool_makes_acquisitions_wait(struct kunit *test)
{
	struct cohort *c = cohort_create_pool(test, RDMALOCK_ALGO_TEST_NONE, 0,
					      SMALL_POOL);
	struct rdmalock_waiter **held, *w;
	struct rdmalock_how how = { .try = true };
	struct rdmalock_cancel cancel = {};
	struct cohort_thread *t;
	int i;

	held = kunit_kcalloc(test, SMALL_POOL, sizeof(*held), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, held);
	for (i = 0; i < SMALL_POOL; i++)
		KUNIT_ASSERT_EQ(test, rdmalock_ls_acquire(c->ls, 0, c->slot_off,
							  RDMALOCK_MODE_EX, &forever,
							  &held[i]), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_ls_acquire(c->ls, 0, c->slot_off,
						  RDMALOCK_MODE_EX, &how, &w), -EAGAIN);
	how = (struct rdmalock_how){
		.timed = true,
		.deadline = jiffies + msecs_to_jiffies(50),
	};
	KUNIT_EXPECT_EQ(test, rdmalock_ls_acquire(c->ls, 0, c->slot_off,
						  RDMALOCK_MODE_EX, &how, &w), -ETIMEDOUT);
	KUNIT_EXPECT_FALSE(test, time_before(jiffies, how.deadline));
	/* A cancellation ends a wait for a descriptor, as any other. */
	t = cohort_start_cancellable(c, 1, 1, &cancel);
	msleep(100);
	KUNIT_EXPECT_FALSE(test, completion_done(&t->done));
	rdmalock_cancel_request(c->ls, &cancel);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&t->done,
							    msecs_to_jiffies(WAIT_MS)));
	KUNIT_EXPECT_EQ(test, t->ret, -ETIMEDOUT);
	t = cohort_start(c, 2, 1);
	msleep(100);
	KUNIT_EXPECT_FALSE(test, completion_done(&t->done));
	KUNIT_EXPECT_EQ(test, rdmalock_ls_release(c->ls, held[0]), 0);
	cohort_join(t);
	KUNIT_EXPECT_EQ(test, atomic64_read(&c->entries), 1);
	for (i = 1; i < SMALL_POOL; i++)
		KUNIT_EXPECT_EQ(test, rdmalock_ls_release(c->ls, held[i]), 0);
	cohort_destroy(c);
}

/* An algorithm whose verb found its send queue full. */
static int nobufs_acquire(struct rdmalock_lockspace *ls,
			  struct rdmalock_waiter *w,
			  const struct rdmalock_how *how)
{
	rdmalock_desc_free(ls, w);
	return -ENOBUFS;
}

/*
 * A verb's -ENOBUFS fails the acquisition as any failed verb's error does.
 * Taken for an empty pool, as it was, it was waited out as one and the
 * acquisition made again, until the deadline.
 */
static void a_verb_without_room_is_not_an_empty_pool(struct kunit *test)
{
	struct cohort *c = cohort_create(test, RDMALOCK_ALGO_TEST_NONE, 0);
	const struct rdmalock_algo *none = c->ls->algo;
	struct rdmalock_algo nobufs = *none;
	struct rdmalock_how how = {
		.timed = true,
		.deadline = jiffies + msecs_to_jiffies(WAIT_MS),
	};
	struct rdmalock_waiter *w;

	nobufs.acquire = nobufs_acquire;
	c->ls->algo = &nobufs;
	KUNIT_EXPECT_EQ(test, rdmalock_ls_acquire(c->ls, 0, c->slot_off,
						  RDMALOCK_MODE_EX, &how, &w), -EIO);
	c->ls->algo = none;
	cohort_destroy(c);
}

static const struct rdmalock_algo *alock_algo;
static atomic_t verbs_to_fail;

/* ALock, whose next verbs_to_fail acquisitions fail a verb at once. */
static int failing_acquire(struct rdmalock_lockspace *ls,
			   struct rdmalock_waiter *w,
			   const struct rdmalock_how *how)
{
	if (atomic_dec_if_positive(&verbs_to_fail) < 0)
		return alock_algo->acquire(ls, w, how);
	rdmalock_desc_free(ls, w);
	return -EIO;
}

/* The view change a failed verb asks for, made at once. */
static void view_change_now(void *ctx)
{
	struct rdmalock_lockspace *ls = ctx;

	rdmalock_gate_set(ls, RDMALOCK_GATE_CLOSED, 0);
	rdmalock_gate_set(ls, RDMALOCK_GATE_OPEN, BIT(0));
}

/*
 * The first try of a request that waits, as a named lock makes it, sleeps
 * through the view change its failed verb asks for and tries again. It
 * returned the verb's -EIO, as a trylock does: GFS2's glock failed where
 * the view change would have repaired the queue.
 */
static void a_first_try_sleeps_through_a_failed_verb(struct kunit *test)
{
	struct cohort *c = cohort_create(test, RDMALOCK_ALGO_ALOCK, 2);
	struct rdmalock_algo failing = *c->ls->algo;
	struct rdmalock_how how = { .try = true };
	struct rdmalock_waiter *w;
	int gen = atomic_read(&c->ls->gate_gen);

	alock_algo = c->ls->algo;
	failing.acquire = failing_acquire;
	c->ls->algo = &failing;
	c->ls->want_view_change = view_change_now;
	c->ls->view_ctx = c->ls;
	atomic_set(&verbs_to_fail, 1);
	KUNIT_EXPECT_EQ(test, rdmalock_ls_acquire(c->ls, 0, c->slot_off,
						  RDMALOCK_MODE_EX, &how, &w), -EIO);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->ls->gate_gen), gen + 1);
	atomic_set(&verbs_to_fail, 1);
	how.may_sleep = true;
	KUNIT_ASSERT_EQ(test, rdmalock_ls_acquire(c->ls, 0, c->slot_off,
						  RDMALOCK_MODE_EX, &how, &w), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->ls->gate_gen), gen + 2);
	KUNIT_EXPECT_EQ(test, rdmalock_ls_release(c->ls, w), 0);
	c->ls->want_view_change = NULL;
	c->ls->algo = alock_algo;
	cohort_destroy(c);
}

static struct kunit_case rdmalock_alock_local_cases[] = {
	KUNIT_CASE(local_cohort_excludes),
	KUNIT_CASE(harness_catches_no_exclusion),
	KUNIT_CASE(local_cohort_is_fifo),
	KUNIT_CASE(local_budget_yields_to_remote),
	KUNIT_CASE(view_change_keeps_holder),
	KUNIT_CASE(view_change_without_claim_is_caught),
	KUNIT_CASE(fence_loses_holder_and_waiter),
	KUNIT_CASE(a_cancelled_waiter_leaves_the_queue),
	KUNIT_CASE(an_empty_pool_makes_acquisitions_wait),
	KUNIT_CASE(a_verb_without_room_is_not_an_empty_pool),
	KUNIT_CASE(a_first_try_sleeps_through_a_failed_verb),
	{}
};

static struct kunit_suite rdmalock_alock_local_suite = {
	.name = "rdmalock_alock_local",
	.test_cases = rdmalock_alock_local_cases,
};

kunit_test_suite(rdmalock_alock_local_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: the CAS spinlock baseline, and the two broken locks that the
 * torture test must catch.
 *
 * The spinlock's word is word 0 of the lock's slot: 0 when free, else the
 * holder's descriptor pointer. Acquiring retries an RDMA CAS from 0 with
 * truncated exponential backoff, sleeping between attempts; releasing
 * writes 0. Every node goes through the NIC, the home node through
 * loopback. No shared mode: shared is granted as exclusive.
 */
#include "locks.h"

#define RDMALOCK_CAS_BACKOFF_MAX_US	1000
/*
 * The naive mixed lock spins: it backs off to no more than a few
 * microseconds, so that its two kinds of CAS meet often enough for the
 * torture to catch them within seconds.
 */
#define RDMALOCK_MIXED_BACKOFF_MAX_US	2

/**
 * rdmalock_cas_spin() - take a CAS spinlock
 * @ls: the lockspace
 * @w: the acquisition
 * @how: deadline and signal policy
 * @cpu_at_home: on the home node, use a CPU CAS instead of loopback. That
 *	is wrong, since the NIC's CAS from peers is not atomic with it; only
 *	the negative control of the torture test asks for it.
 * @max_us: the longest sleep between two attempts
 *
 * Context: process context; sleeps.
 * Return: 0, or an error after which the acquisition is over.
 */
static int rdmalock_cas_spin(struct rdmalock_lockspace *ls,
			     struct rdmalock_waiter *w,
			     const struct rdmalock_how *how, bool cpu_at_home,
			     unsigned int max_us)
{
	bool cpu = cpu_at_home && w->home == ls->self;
	u64 *word = rdmalock_slot_word(ls, w->slot_off, 0);
	unsigned int us = 1;
	u64 old;
	int ret;

	for (;;) {
		if (cpu) {
			old = cmpxchg(word, 0, w->me);
			if (old)
				atomic64_inc(&ls->cas_failed);
		} else {
			ret = rdmalock_cas(ls, w->home, w->slot_off, 0, w->me, &old);
			if (ret)
				return rdmalock_acq_fail(ls, w, ret);
		}
		if (!old)
			return 0;
		ret = rdmalock_backoff(ls, how, &us, max_us);
		if (ret)
			return rdmalock_acq_fail(ls, w, ret);
	}
}

static int rdmalock_caslock_acquire(struct rdmalock_lockspace *ls,
				    struct rdmalock_waiter *w,
				    const struct rdmalock_how *how)
{
	return rdmalock_cas_spin(ls, w, how, false, RDMALOCK_CAS_BACKOFF_MAX_US);
}

static int rdmalock_caslock_release(struct rdmalock_lockspace *ls,
				    struct rdmalock_waiter *w)
{
	u64 zero = 0;

	return rdmalock_fabric_write(ls->fabric, w->home, w->slot_off, &zero,
				     sizeof(zero));
}

const struct rdmalock_algo rdmalock_cas_algo = {
	.id = RDMALOCK_ALGO_CAS,
	.name = "cas",
	.acquire = rdmalock_caslock_acquire,
	.release = rdmalock_caslock_release,
	.recover_hold = rdmalock_recover_word0,
};

/* Broken on purpose: a lock that excludes nobody. */
static int rdmalock_test_none_acquire(struct rdmalock_lockspace *ls,
				      struct rdmalock_waiter *w,
				      const struct rdmalock_how *how)
{
	return 0;
}

static int rdmalock_test_none_release(struct rdmalock_lockspace *ls,
				      struct rdmalock_waiter *w)
{
	return 0;
}

const struct rdmalock_algo rdmalock_test_none_algo = {
	.id = RDMALOCK_ALGO_TEST_NONE,
	.name = "test-none",
	.broken = true,
	.acquire = rdmalock_test_none_acquire,
	.release = rdmalock_test_none_release,
};

/*
 * Broken on purpose: the naive mixed lock that ALock exists to fix. The
 * home node takes the word with CPU CAS, peers with RDMA CAS; a NIC
 * executes its CAS as a load, a compare and a store, between which the
 * home node's CAS can succeed, and then both hold the lock.
 */
static int rdmalock_test_mixed_acquire(struct rdmalock_lockspace *ls,
				       struct rdmalock_waiter *w,
				       const struct rdmalock_how *how)
{
	return rdmalock_cas_spin(ls, w, how, true, RDMALOCK_MIXED_BACKOFF_MAX_US);
}

static int rdmalock_test_mixed_release(struct rdmalock_lockspace *ls,
				       struct rdmalock_waiter *w)
{
	if (w->home == ls->self) {
		/* Release: the critical section before the word is free. */
		smp_store_release(rdmalock_slot_word(ls, w->slot_off, 0), 0);
		return 0;
	}
	return rdmalock_caslock_release(ls, w);
}

const struct rdmalock_algo rdmalock_test_mixed_algo = {
	.id = RDMALOCK_ALGO_TEST_MIXED,
	.name = "test-mixed",
	.broken = true,
	.acquire = rdmalock_test_mixed_acquire,
	.release = rdmalock_test_mixed_release,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the lock layer's encodings, and ALock's errata.
 *
 * Descriptor pointers name a node and a descriptor across the domain and
 * are never 0 (null); immediates carry an event, a descriptor and the low
 * bits of its generation. Peterson's wait condition is tested against
 * the SPAA '24 paper's printed Alg. 4, whose OR makes a lone thread wait
 * for ever: the printed condition fails these tests.
 */
#include <kunit/test.h>
#include <linux/random.h>

#include "locks.h"

static void pointers_round_trip(struct kunit *test)
{
	u32 node, idx, gen, i;

	for (i = 0; i < 1000; i++) {
		u32 n = get_random_u32() % RDMALOCK_MAX_NODES;
		u32 d = get_random_u32() % RDMALOCK_DESC_COUNT;
		u32 g = get_random_u32();
		u64 ptr = rdmalock_desc_encode(n, d, g);

		KUNIT_ASSERT_NE(test, ptr, 0ULL);
		KUNIT_ASSERT_EQ(test, rdmalock_desc_decode(ptr, RDMALOCK_MAX_NODES,
							   &node, &idx, &gen), 0);
		KUNIT_EXPECT_EQ(test, node, n);
		KUNIT_EXPECT_EQ(test, idx, d);
		KUNIT_EXPECT_EQ(test, gen, g);
	}
}

static void bad_pointers_are_rejected(struct kunit *test)
{
	u32 node, idx, gen;

	/* Null: an empty queue, never a descriptor. */
	KUNIT_EXPECT_EQ(test, rdmalock_desc_decode(0, 3, &node, &idx, &gen), -EINVAL);
	/* Node 3 of a three-node domain. */
	KUNIT_EXPECT_EQ(test, rdmalock_desc_decode(rdmalock_desc_encode(3, 0, 1), 3,
						   &node, &idx, &gen), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_desc_decode(rdmalock_desc_encode(2, 0, 1), 3,
						   &node, &idx, &gen), 0);
	/* A descriptor index past the pool. */
	KUNIT_EXPECT_EQ(test, rdmalock_desc_decode(rdmalock_desc_encode(0, 0, 0) |
						   RDMALOCK_DESC_COUNT, 3,
						   &node, &idx, &gen), -EINVAL);
	/* Garbage in the node bits. */
	KUNIT_EXPECT_EQ(test, rdmalock_desc_decode(U64_MAX, 3, &node, &idx, &gen),
			-EINVAL);
}

static void immediates_round_trip(struct kunit *test)
{
	unsigned int event, e;
	u32 idx, gen, i;

	for (i = 0; i < 1000; i++) {
		u32 d = get_random_u32() % RDMALOCK_DESC_COUNT;
		u32 g = get_random_u32();

		e = i & 1 ? RDMALOCK_EV_LINK : RDMALOCK_EV_GRANT;
		rdmalock_imm_decode(rdmalock_imm_encode(e, d, g), &event, &idx, &gen);
		KUNIT_EXPECT_EQ(test, event, e);
		KUNIT_EXPECT_EQ(test, idx, d);
		/* Only the low 21 bits of the generation travel. */
		KUNIT_EXPECT_EQ(test, gen, g & GENMASK(20, 0));
		KUNIT_EXPECT_EQ(test, rdmalock_imm_encode(e, d, g),
				rdmalock_imm_encode(e, d, gen));
	}
}

#define ALOCK_LOCAL	1
#define ALOCK_REMOTE	2

/*
 * Erratum 1: a lone thread has just set the victim to its own cohort and
 * the other cohort's tail is null; it must enter. The printed
 * "tail set OR victim = us" would keep it waiting for ever.
 */
static void peterson_lone_thread_enters(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, rdmalock_alock_must_wait(0, ALOCK_LOCAL, ALOCK_LOCAL));
	KUNIT_EXPECT_FALSE(test, rdmalock_alock_must_wait(0, ALOCK_REMOTE, ALOCK_REMOTE));
}

/* The paper's Figure 2: the other cohort is queued but yielded last. */
static void peterson_enters_when_the_other_yielded(struct kunit *test)
{
	u64 tail = rdmalock_desc_encode(1, 7, 1);

	KUNIT_EXPECT_FALSE(test, rdmalock_alock_must_wait(tail, ALOCK_REMOTE, ALOCK_LOCAL));
	KUNIT_EXPECT_FALSE(test, rdmalock_alock_must_wait(tail, ALOCK_LOCAL, ALOCK_REMOTE));
}

/* Both cohorts want the lock and we yielded last: we wait. */
static void peterson_waits_when_we_yielded(struct kunit *test)
{
	u64 tail = rdmalock_desc_encode(0, 3, 1);

	KUNIT_EXPECT_TRUE(test, rdmalock_alock_must_wait(tail, ALOCK_LOCAL, ALOCK_LOCAL));
	KUNIT_EXPECT_TRUE(test, rdmalock_alock_must_wait(tail, ALOCK_REMOTE, ALOCK_REMOTE));
}

static struct kunit_case rdmalock_lock_cases[] = {
	KUNIT_CASE(pointers_round_trip),
	KUNIT_CASE(bad_pointers_are_rejected),
	KUNIT_CASE(immediates_round_trip),
	KUNIT_CASE(peterson_lone_thread_enters),
	KUNIT_CASE(peterson_enters_when_the_other_yielded),
	KUNIT_CASE(peterson_waits_when_we_yielded),
	{}
};

static struct kunit_suite rdmalock_lock_suite = {
	.name = "rdmalock_lock",
	.test_cases = rdmalock_lock_cases,
};

kunit_test_suite(rdmalock_lock_suite);

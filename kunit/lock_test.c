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
		u32 d = get_random_u32() % RDMALOCK_MAX_DESCRIPTORS;
		u32 g = get_random_u32();
		u64 ptr = rdmalock_desc_encode(n, d, g);

		KUNIT_ASSERT_NE(test, ptr, 0ULL);
		KUNIT_ASSERT_EQ(test, rdmalock_desc_decode(ptr, RDMALOCK_MAX_NODES,
							   RDMALOCK_MAX_DESCRIPTORS,
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
	KUNIT_EXPECT_EQ(test, rdmalock_desc_decode(0, 3, 64, &node, &idx, &gen),
			-EINVAL);
	/* Node 3 of a three-node domain. */
	KUNIT_EXPECT_EQ(test, rdmalock_desc_decode(rdmalock_desc_encode(3, 0, 1), 3,
						   64, &node, &idx, &gen), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_desc_decode(rdmalock_desc_encode(2, 0, 1), 3,
						   64, &node, &idx, &gen), 0);
	/* A descriptor index past the domain's pool, and the last one in it. */
	KUNIT_EXPECT_EQ(test, rdmalock_desc_decode(rdmalock_desc_encode(0, 64, 0), 3,
						   64, &node, &idx, &gen), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_desc_decode(rdmalock_desc_encode(0, 63, 0), 3,
						   64, &node, &idx, &gen), 0);
	/* Garbage in the node bits. */
	KUNIT_EXPECT_EQ(test, rdmalock_desc_decode(U64_MAX, 3, 64, &node, &idx, &gen),
			-EINVAL);
}

static void immediates_round_trip(struct kunit *test)
{
	static const u32 pools[] = { 64, 1024, 1088, RDMALOCK_MAX_DESCRIPTORS };
	unsigned int event, e;
	u32 idx, gen, i, bits;

	for (i = 0; i < 4000; i++) {
		u32 descs = pools[i % ARRAY_SIZE(pools)];
		u32 d = get_random_u32() % descs;
		u32 g = get_random_u32();

		bits = rdmalock_imm_idx_bits(descs);
		e = i & 4 ? RDMALOCK_EV_LINK : RDMALOCK_EV_GRANT;
		rdmalock_imm_decode(rdmalock_imm_encode(e, d, g, bits), bits,
				    &event, &idx, &gen);
		KUNIT_EXPECT_EQ(test, event, e);
		KUNIT_EXPECT_EQ(test, idx, d);
		/* Only the generation's low bits travel, below the event's. */
		KUNIT_EXPECT_EQ(test, gen, g & GENMASK(30 - bits, 0));
		KUNIT_EXPECT_EQ(test, rdmalock_imm_encode(e, d, g, bits),
				rdmalock_imm_encode(e, d, gen, bits));
	}
}

/*
 * A pool takes as few of an immediate's bits as its indexes need, and
 * never fewer than a pool of 1024 did: the generation keeps 21 bits
 * unless the pool is larger.
 */
static void immediates_keep_generation_bits(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rdmalock_imm_idx_bits(64), 10);
	KUNIT_EXPECT_EQ(test, rdmalock_imm_idx_bits(1024), 10);
	KUNIT_EXPECT_EQ(test, rdmalock_imm_idx_bits(1088), 11);
	KUNIT_EXPECT_EQ(test, rdmalock_imm_idx_bits(RDMALOCK_MAX_DESCRIPTORS), 13);
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
	KUNIT_CASE(immediates_keep_generation_bits),
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

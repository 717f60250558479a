// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the rules a membership view change decides by (membership.c):
 * which sets of nodes may act for a domain, which members of a proposal
 * see each other, and which proposal a member follows.
 */
#include <kunit/test.h>

#include "membership.h"

/* Any two sets that pass share a node: there is never a split brain. */
static void quorums_intersect(struct kunit *test)
{
	u32 n, a, b;

	for (n = 1; n <= 6; n++)
		for (a = 0; a < BIT(n); a++)
			for (b = 0; b < BIT(n); b++)
				if (rdmalock_mb_quorum(a, n) && rdmalock_mb_quorum(b, n))
					KUNIT_EXPECT_NE_MSG(test, a & b, 0,
							    "%u nodes: %#x and %#x", n, a, b);
}

static void quorum_tie_break(struct kunit *test)
{
	/* Two nodes: node 0 goes on alone, node 1 alone does not. */
	KUNIT_EXPECT_TRUE(test, rdmalock_mb_quorum(BIT(0), 2));
	KUNIT_EXPECT_FALSE(test, rdmalock_mb_quorum(BIT(1), 2));
	KUNIT_EXPECT_TRUE(test, rdmalock_mb_quorum(BIT(0), 1));
	/* Three: any two, never one. */
	KUNIT_EXPECT_TRUE(test, rdmalock_mb_quorum(BIT(1) | BIT(2), 3));
	KUNIT_EXPECT_FALSE(test, rdmalock_mb_quorum(BIT(0), 3));
	KUNIT_EXPECT_FALSE(test, rdmalock_mb_quorum(0, 3));
	/* Four: half with node 0. */
	KUNIT_EXPECT_TRUE(test, rdmalock_mb_quorum(BIT(0) | BIT(3), 4));
	KUNIT_EXPECT_FALSE(test, rdmalock_mb_quorum(BIT(1) | BIT(2), 4));
}

static void clique_drops_who_does_not_see(struct kunit *test)
{
	u32 all[3] = { 0x7, 0x7, 0x7 };
	/* Nodes 1 and 2 do not see each other; 0 sees both. */
	u32 split[3] = { 0x7, 0x3, 0x5 };
	/* Node 2 sees 0, but 0 does not see 2: one way is not enough. */
	u32 oneway[3] = { 0x3, 0x7, 0x7 };

	KUNIT_EXPECT_EQ(test, rdmalock_mb_clique(0, 0x7, all, 3), 0x7);
	KUNIT_EXPECT_EQ(test, rdmalock_mb_clique(0, 0x7, split, 3), 0x3);
	/* The coordinator itself never leaves. */
	KUNIT_EXPECT_EQ(test, rdmalock_mb_clique(2, 0x6, split, 3), 0x4);
	KUNIT_EXPECT_EQ(test, rdmalock_mb_clique(0, 0x7, oneway, 3), 0x3);
	/* Only candidates are considered. */
	KUNIT_EXPECT_EQ(test, rdmalock_mb_clique(0, 0x5, split, 3), 0x5);
}

static void newer_orders_by_epoch_then_coordinator(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, rdmalock_mb_newer(2, 0, 1, 2));
	KUNIT_EXPECT_TRUE(test, rdmalock_mb_newer(2, 1, 2, 0));
	KUNIT_EXPECT_FALSE(test, rdmalock_mb_newer(2, 0, 2, 0));
	KUNIT_EXPECT_FALSE(test, rdmalock_mb_newer(1, 2, 2, 0));
}

/*
 * Node 1, back from a fence, sees node 2 only and proposes: node 2, whose
 * view has node 0, up, may refuse it; not once node 0 is down or out of
 * the view, nor when node 1 is in the view (its coordinator died).
 * Node 0's proposals are never refused.
 */
static void a_lower_member_up_outranks_a_coordinator(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, rdmalock_mb_outranked(1, 0x5, 0x7));
	KUNIT_EXPECT_FALSE(test, rdmalock_mb_outranked(1, 0x5, 0x6));
	KUNIT_EXPECT_FALSE(test, rdmalock_mb_outranked(1, 0x6, 0x7));
	KUNIT_EXPECT_FALSE(test, rdmalock_mb_outranked(1, 0x7, 0x7));
	KUNIT_EXPECT_FALSE(test, rdmalock_mb_outranked(0, 0x6, 0x7));
	KUNIT_EXPECT_TRUE(test, rdmalock_mb_outranked(2, 0x3, 0x6));
}

static struct kunit_case rdmalock_membership_cases[] = {
	KUNIT_CASE(quorums_intersect),
	KUNIT_CASE(quorum_tie_break),
	KUNIT_CASE(clique_drops_who_does_not_see),
	KUNIT_CASE(newer_orders_by_epoch_then_coordinator),
	KUNIT_CASE(a_lower_member_up_outranks_a_coordinator),
	{}
};

static struct kunit_suite rdmalock_membership_suite = {
	.name = "rdmalock_membership",
	.test_cases = rdmalock_membership_cases,
};

kunit_test_suite(rdmalock_membership_suite);

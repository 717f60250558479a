// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: who hears of whom through the interest word of a named lock.
 *
 * A request tells a holder by two routes: the waiter, from the word as
 * its swap found it, sends to the nodes it waits for; a holder, from the
 * word its own swap found, tells itself. Both must tell exactly the
 * holders whose class the request's class cannot be held beside. The
 * check runs over every holder class, request class and node, and a
 * route that forgets shared requests is its negative control.
 */
#include <kunit/test.h>

#include "blocking.h"
#include "lkmode.h"

#define NODES	RDMALOCK_MAX_NODES

static enum rdmalock_served served(u32 class)
{
	return class == RDMALOCK_CLASS_EX ? RDMALOCK_SERVED_EX : RDMALOCK_SERVED_SH;
}

/* The word with one node holding in @held and another waiting in @wanted. */
static u64 word_of(u32 holder, u32 held, u32 waiter, u32 wanted)
{
	struct rdmalock_interest in = {};
	u64 word;

	in.holding[held] = 1;
	word = rdmalock_interest_bits(&in, holder);
	in.holding[held] = 0;
	in.waiting[wanted] = 3;
	return word | rdmalock_interest_bits(&in, waiter);
}

typedef u32 (*blocks_fn)(u64 others, u32 held);

/* Mismatches of both routes against the served modes' compatibility. */
static unsigned int mismatches(blocks_fn blocks)
{
	unsigned int bad = 0;
	u32 held, wanted, holder, waiter;

	for (held = 0; held < RDMALOCK_CLASSES; held++)
		for (wanted = 0; wanted < RDMALOCK_CLASSES; wanted++)
			for (holder = 0; holder < NODES; holder++) {
				bool must = !rdmalock_served_compatible(served(held),
									served(wanted));
				u64 word;
				bool by_waiter, by_holder;

				waiter = (holder + 1) % NODES;
				word = word_of(holder, held, waiter, wanted);
				by_waiter = rdmalock_interest_blocked_by(word, wanted) &
					    BIT(holder);
				/* One request: its own level, or none. */
				by_holder = blocks(word, held) == wanted + 1;
				bad += by_waiter != must;
				bad += by_holder != must;
			}
	return bad;
}

static void both_routes_tell_exactly_the_blockers(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mismatches(rdmalock_interest_blocks), 0);
}

/* A holder's route that hears only of exclusive requests. */
static u32 deaf_to_shared(u64 others, u32 held)
{
	return rdmalock_interest_field(others, RDMALOCK_INTEREST_WAIT_EX) ?
	       RDMALOCK_CLASS_EX + 1 : 0;
}

static void a_route_deaf_to_shared_requests_is_caught(struct kunit *test)
{
	/* An exclusive holder never told of shared waiters, on every node. */
	KUNIT_EXPECT_EQ(test, mismatches(deaf_to_shared), NODES);
}

static void the_strongest_request_wins(struct kunit *test)
{
	u64 word = word_of(0, RDMALOCK_CLASS_EX, 1, RDMALOCK_CLASS_SH) |
		   word_of(0, RDMALOCK_CLASS_EX, 2, RDMALOCK_CLASS_EX);

	KUNIT_EXPECT_EQ(test, rdmalock_interest_blocks(word, RDMALOCK_CLASS_EX),
			RDMALOCK_CLASS_EX + 1);
	KUNIT_EXPECT_EQ(test, rdmalock_interest_blocks(word, RDMALOCK_CLASS_SH),
			RDMALOCK_CLASS_EX + 1);
	KUNIT_EXPECT_EQ(test, rdmalock_interest_blocks(0, RDMALOCK_CLASS_EX), 0);
}

#define LEVEL_SH	(RDMALOCK_CLASS_SH + 1)

/*
 * What the callback hears: the request's level where the word is held in
 * the class of the holder's mode; nothing of a shared request where both
 * are shared; and of an exclusive request where a conversion down kept
 * the word exclusive under a shared mode, whatever the request: told of
 * a shared one, an owner at a shared mode (GFS2 at PR) gives nothing up,
 * and the request waits as long as it keeps the lock.
 */
static void a_word_kept_exclusive_hears_of_an_exclusive_request(struct kunit *test)
{
	const u32 sh = RDMALOCK_CLASS_SH, ex = RDMALOCK_CLASS_EX;

	KUNIT_EXPECT_EQ(test, rdmalock_blocking_level(ex, ex, LEVEL_SH), LEVEL_SH);
	KUNIT_EXPECT_EQ(test, rdmalock_blocking_level(ex, ex, RDMALOCK_LEVEL_EX),
			RDMALOCK_LEVEL_EX);
	KUNIT_EXPECT_EQ(test, rdmalock_blocking_level(sh, sh, LEVEL_SH), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_blocking_level(sh, sh, RDMALOCK_LEVEL_EX),
			RDMALOCK_LEVEL_EX);
	KUNIT_EXPECT_EQ(test, rdmalock_blocking_level(ex, sh, LEVEL_SH),
			RDMALOCK_LEVEL_EX);
	KUNIT_EXPECT_EQ(test, rdmalock_blocking_level(ex, sh, 0), 0);
}

static void a_node_owns_four_bits(struct kunit *test)
{
	struct rdmalock_interest in = {};
	u64 mine = rdmalock_interest_nodes(BIT(5));
	u32 f;

	KUNIT_EXPECT_EQ(test, hweight64(mine), 4);
	for (f = RDMALOCK_INTEREST_HOLD_SH; f <= RDMALOCK_INTEREST_WAIT_EX; f++)
		KUNIT_EXPECT_EQ(test, rdmalock_interest_field(mine, f), BIT(5));
	/* Counts become bits: any number of holders or waiters is one bit. */
	in.holding[RDMALOCK_CLASS_SH] = 2;
	in.waiting[RDMALOCK_CLASS_EX] = 7;
	KUNIT_EXPECT_EQ(test, rdmalock_interest_bits(&in, 5),
			BIT_ULL(RDMALOCK_INTEREST_HOLD_SH * 16 + 5) |
			BIT_ULL(RDMALOCK_INTEREST_WAIT_EX * 16 + 5));
}

static struct kunit_case rdmalock_blocking_cases[] = {
	KUNIT_CASE(both_routes_tell_exactly_the_blockers),
	KUNIT_CASE(a_route_deaf_to_shared_requests_is_caught),
	KUNIT_CASE(the_strongest_request_wins),
	KUNIT_CASE(a_word_kept_exclusive_hears_of_an_exclusive_request),
	KUNIT_CASE(a_node_owns_four_bits),
	{}
};

static struct kunit_suite rdmalock_blocking_suite = {
	.name = "rdmalock_blocking",
	.test_cases = rdmalock_blocking_cases,
};

kunit_test_suite(rdmalock_blocking_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the home's table of lock names.
 *
 * Names in use at once get distinct slots, whatever their bytes; a name
 * keeps its slot while any node references it and frees it with the last
 * one; a full table refuses a new name rather than share a slot; stale or
 * forged unreferences change nothing; departed nodes' references go. A
 * random run is checked against a model after every step. The negative
 * control: the distinctness check, given the arithmetic mapping of lock
 * ids to slots used so far, must find two ids on one slot.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/random.h>

#include "restable.h"

#define SLOTS 8
#define NODES 3

static struct rdmalock_restable *table(struct kunit *test, u32 nslots)
{
	struct rdmalock_restable *t = rdmalock_restable_alloc(nslots, NODES, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	return t;
}

/* Names that a careless hash or compare would confuse. */
static const char * const confusable[SLOTS] = {
	"a", "ab", "abcdefgh", "abcdefgh1", "abcdefgh2", "ABCDEFGH1",
	"inode:0000000000000001", "inode:0000000000000010",
};

static int ref(struct rdmalock_restable *t, u32 node, const char *name, u32 *slot)
{
	return rdmalock_restable_ref(t, node, 0, name, strlen(name), slot, NULL);
}

static int unref(struct rdmalock_restable *t, u32 node, u32 slot, const char *name)
{
	return rdmalock_restable_unref(t, node, 0, slot, name, strlen(name));
}

/*
 * The first index whose slot an earlier index has too, or -1: @slot_of
 * maps index i of @n to a slot.
 */
static int first_shared_slot(u32 (*slot_of)(void *ctx, u32 i), void *ctx, u32 n)
{
	u32 i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (slot_of(ctx, i) == slot_of(ctx, j))
				return i;
	return -1;
}

static u32 table_slot_of(void *ctx, u32 i)
{
	u32 *slots = ctx;

	return slots[i];
}

static void distinct_names_distinct_slots(struct kunit *test)
{
	struct rdmalock_restable *t = table(test, SLOTS);
	u32 slots[SLOTS], again, i;

	for (i = 0; i < SLOTS; i++)
		KUNIT_ASSERT_EQ(test, ref(t, i % NODES, confusable[i], &slots[i]), 0);
	KUNIT_EXPECT_EQ(test, first_shared_slot(table_slot_of, slots, SLOTS), -1);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_used(t), SLOTS);
	/* A name's bytes, not a prefix, name it: "a" and "a\0" differ. */
	KUNIT_EXPECT_EQ(test, rdmalock_restable_ref(t, 0, 0, "a", 2, &again, NULL),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, ref(t, 2, "a", &again), 0);
	KUNIT_EXPECT_EQ(test, again, slots[0]);
	rdmalock_restable_free(t);
}

/* Lock ids as the lock layer maps them: slot (id / N) % K of home id % N. */
static u32 modulo_slot_of(void *ctx, u32 i)
{
	u64 id = 7 + (u64)i * NODES * SLOTS;

	return (id / NODES) % SLOTS;
}

static void negative_control_modulo_mapping_shares_slots(struct kunit *test)
{
	/* Ids 7 and 7 + N x K, both homed on node 1: one slot, one lock. */
	KUNIT_EXPECT_EQ(test, first_shared_slot(modulo_slot_of, NULL, 2), 1);
}

static void a_slot_lives_while_referenced(struct kunit *test)
{
	struct rdmalock_restable *t = table(test, SLOTS);
	u32 s0, s1, s2, found;
	unsigned int how;

	KUNIT_EXPECT_EQ(test, rdmalock_restable_lookup(t, "x", 1, &found), -ENOENT);
	KUNIT_ASSERT_EQ(test, rdmalock_restable_ref(t, 0, 0, "x", 1, &s0, &how), 0);
	KUNIT_EXPECT_EQ(test, how, RDMALOCK_RES_FRESH | RDMALOCK_RES_ADDED);
	KUNIT_ASSERT_EQ(test, rdmalock_restable_ref(t, 1, 0, "x", 1, &s1, &how), 0);
	KUNIT_EXPECT_EQ(test, how, RDMALOCK_RES_ADDED);
	/* Once per node: a second reference from node 1 is the same one. */
	KUNIT_ASSERT_EQ(test, rdmalock_restable_ref(t, 1, 0, "x", 1, &s2, &how), 0);
	KUNIT_EXPECT_EQ(test, how, 0);
	KUNIT_EXPECT_EQ(test, s0, s1);
	KUNIT_EXPECT_EQ(test, s1, s2);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_lookup(t, "x", 1, &found), 0);
	KUNIT_EXPECT_EQ(test, found, s0);
	KUNIT_EXPECT_EQ(test, unref(t, 0, s0, "x"), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_used(t), 1);
	KUNIT_EXPECT_EQ(test, unref(t, 0, s0, "x"), -ENOENT);
	KUNIT_EXPECT_EQ(test, unref(t, 1, s0, "x"), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_used(t), 0);
	KUNIT_EXPECT_EQ(test, unref(t, 1, s0, "x"), -ENOENT);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_lookup(t, "x", 1, &found), -ENOENT);
	/* Free again, the slot comes back fresh to the next name. */
	KUNIT_ASSERT_EQ(test, rdmalock_restable_ref(t, 1, 0, "x", 1, &s2, &how), 0);
	KUNIT_EXPECT_TRUE(test, how & RDMALOCK_RES_FRESH);
	rdmalock_restable_free(t);
}

static void a_full_table_refuses_new_names(struct kunit *test)
{
	struct rdmalock_restable *t = table(test, 2);
	u32 a, b, c;

	KUNIT_ASSERT_EQ(test, ref(t, 0, "a", &a), 0);
	KUNIT_ASSERT_EQ(test, ref(t, 0, "b", &b), 0);
	KUNIT_EXPECT_EQ(test, ref(t, 1, "c", &c), -ENOSPC);
	/* A name in use still resolves. */
	KUNIT_EXPECT_EQ(test, ref(t, 1, "b", &c), 0);
	KUNIT_EXPECT_EQ(test, c, b);
	KUNIT_EXPECT_EQ(test, unref(t, 0, a, "a"), 0);
	KUNIT_EXPECT_EQ(test, ref(t, 1, "c", &c), 0);
	KUNIT_EXPECT_EQ(test, c, a);
	rdmalock_restable_free(t);
}

static void stale_and_forged_requests_change_nothing(struct kunit *test)
{
	struct rdmalock_restable *t = table(test, SLOTS);
	u32 s, other;

	KUNIT_ASSERT_EQ(test, ref(t, 0, "x", &s), 0);
	KUNIT_EXPECT_EQ(test, unref(t, 1, s, "x"), -ENOENT);
	KUNIT_EXPECT_EQ(test, unref(t, 0, s, "y"), -ENOENT);
	KUNIT_EXPECT_EQ(test, unref(t, 0, (s + 1) % SLOTS, "x"), -ENOENT);
	KUNIT_EXPECT_EQ(test, unref(t, 0, SLOTS, "x"), -ENOENT);
	KUNIT_EXPECT_EQ(test, unref(t, NODES, s, "x"), -ENOENT);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_used(t), 1);
	/* The slot freed and given to another name: the old unref misses. */
	KUNIT_ASSERT_EQ(test, unref(t, 0, s, "x"), 0);
	KUNIT_ASSERT_EQ(test, ref(t, 0, "y", &other), 0);
	KUNIT_EXPECT_EQ(test, other, s);
	KUNIT_EXPECT_EQ(test, unref(t, 0, s, "x"), -ENOENT);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_used(t), 1);
	/* Bad arguments. */
	KUNIT_EXPECT_EQ(test, rdmalock_restable_ref(t, 0, 0, "x", 0, &s, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_ref(t, 0, 0, confusable[0],
						    RDMALOCK_LOCK_NAME_MAX + 1, &s, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ref(t, NODES, "x", &s), -EINVAL);
	KUNIT_EXPECT_NULL(test, rdmalock_restable_alloc(0, NODES, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, rdmalock_restable_alloc(SLOTS, BITS_PER_LONG + 1,
							GFP_KERNEL));
	rdmalock_restable_free(t);
}

static void departed_nodes_references_go(struct kunit *test)
{
	struct rdmalock_restable *t = table(test, SLOTS);
	u32 shared, own, again;

	KUNIT_ASSERT_EQ(test, ref(t, 0, "shared", &shared), 0);
	KUNIT_ASSERT_EQ(test, ref(t, 2, "shared", &shared), 0);
	KUNIT_ASSERT_EQ(test, ref(t, 2, "own", &own), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_drop(t, BIT(2)), 1);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_used(t), 1);
	KUNIT_EXPECT_EQ(test, unref(t, 2, shared, "shared"), -ENOENT);
	KUNIT_EXPECT_EQ(test, ref(t, 1, "shared", &again), 0);
	KUNIT_EXPECT_EQ(test, again, shared);
	rdmalock_restable_free(t);
}

/*
 * A node whose incarnation of the home moved referenced nothing since: its
 * older references go with its first newer one, and an unreference of
 * another incarnation changes nothing.
 */
static void a_new_incarnation_replaces_the_old(struct kunit *test)
{
	struct rdmalock_restable *t = table(test, SLOTS);
	u32 a, shared, b;

	KUNIT_ASSERT_EQ(test, ref(t, 1, "a", &a), 0);
	KUNIT_ASSERT_EQ(test, ref(t, 1, "shared", &shared), 0);
	KUNIT_ASSERT_EQ(test, ref(t, 2, "shared", &shared), 0);
	/* Node 1, in its next incarnation: "a" was only its, and goes. */
	KUNIT_ASSERT_EQ(test, rdmalock_restable_ref(t, 1, 1, "b", 1, &b, NULL), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_used(t), 2);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_lookup(t, "a", 1, &a), -ENOENT);
	/* Its old unreference of "shared" comes late: nothing changes. */
	KUNIT_EXPECT_EQ(test, rdmalock_restable_unref(t, 1, 0, shared, "shared", 6),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, unref(t, 2, shared, "shared"), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_used(t), 1);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_unref(t, 1, 1, b, "b", 1), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_restable_used(t), 0);
	rdmalock_restable_free(t);
}

/* The model: which nodes reference each of a few names, and their slots. */
#define NAMES 12

struct model {
	unsigned long nodes[NAMES];
	u32 slot[NAMES];
};

static u32 model_used(const struct model *m)
{
	u32 i, used = 0;

	for (i = 0; i < NAMES; i++)
		used += !!m->nodes[i];
	return used;
}

static void model_check_step(struct kunit *test, struct rdmalock_restable *t,
			     struct model *m)
{
	u32 i, j;

	KUNIT_ASSERT_EQ(test, rdmalock_restable_used(t), model_used(m));
	for (i = 0; i < NAMES; i++)
		for (j = 0; j < i; j++)
			if (m->nodes[i] && m->nodes[j])
				KUNIT_ASSERT_NE(test, m->slot[i], m->slot[j]);
}

static void random_run_matches_model(struct kunit *test)
{
	static const char * const names[NAMES] = {
		"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9",
		"n10", "n11",
	};
	struct rdmalock_restable *t = table(test, SLOTS);
	struct model m = {};
	u32 step, slot;
	int ret;

	for (step = 0; step < 5000; step++) {
		u32 i = get_random_u32_below(NAMES);
		u32 node = get_random_u32_below(NODES);
		u32 op = get_random_u32_below(8);

		if (op < 4) {
			bool in_use = m.nodes[i];

			ret = ref(t, node, names[i], &slot);
			if (!in_use && model_used(&m) == SLOTS) {
				KUNIT_ASSERT_EQ(test, ret, -ENOSPC);
				continue;
			}
			KUNIT_ASSERT_EQ(test, ret, 0);
			if (in_use)
				KUNIT_ASSERT_EQ(test, slot, m.slot[i]);
			m.slot[i] = slot;
			m.nodes[i] |= BIT(node);
		} else if (op < 7) {
			ret = unref(t, node, m.slot[i], names[i]);
			KUNIT_ASSERT_EQ(test, ret, m.nodes[i] & BIT(node) ? 0 : -ENOENT);
			m.nodes[i] &= ~BIT(node);
		} else {
			u32 freed = 0;

			for (i = 0; i < NAMES; i++) {
				freed += m.nodes[i] == BIT(node);
				m.nodes[i] &= ~BIT(node);
			}
			KUNIT_ASSERT_EQ(test, rdmalock_restable_drop(t, BIT(node)), freed);
		}
		model_check_step(test, t, &m);
	}
	rdmalock_restable_free(t);
}

static struct kunit_case rdmalock_restable_cases[] = {
	KUNIT_CASE(distinct_names_distinct_slots),
	KUNIT_CASE(negative_control_modulo_mapping_shares_slots),
	KUNIT_CASE(a_slot_lives_while_referenced),
	KUNIT_CASE(a_full_table_refuses_new_names),
	KUNIT_CASE(stale_and_forged_requests_change_nothing),
	KUNIT_CASE(departed_nodes_references_go),
	KUNIT_CASE(a_new_incarnation_replaces_the_old),
	KUNIT_CASE(random_run_matches_model),
	{}
};

static struct kunit_suite rdmalock_restable_suite = {
	.name = "rdmalock_restable",
	.test_cases = rdmalock_restable_cases,
};

kunit_test_suite(rdmalock_restable_suite);

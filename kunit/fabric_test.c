// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the fabric's checks on what it is asked and what it is sent:
 * remote ranges (bounds, alignment, overflow) and the private data of
 * connect requests and replies (valid, truncated, corrupted, random).
 */
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/string.h>

#include "fabric.h"

#define REGION_LEN	8192

static void range_inside_is_accepted(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_check_range(REGION_LEN, 0, 1, 1), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_check_range(REGION_LEN, 0, REGION_LEN, 1), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_check_range(REGION_LEN, REGION_LEN - 8, 8, 8), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_check_range(REGION_LEN, 64, 8, 8), 0);
}

static void range_outside_is_rejected(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_check_range(REGION_LEN, 0, 0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_check_range(REGION_LEN, 0, REGION_LEN + 1, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_check_range(REGION_LEN, REGION_LEN - 7, 8, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_check_range(REGION_LEN, REGION_LEN, 1, 1),
			-EINVAL);
	/* offset + len would wrap around to a small number. */
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_check_range(REGION_LEN, U64_MAX - 3, 8, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_check_range(REGION_LEN, 8, U64_MAX, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_check_range(0, 0, 8, 8), -EINVAL);
}

static void atomics_must_be_aligned(struct kunit *test)
{
	u64 off;

	for (off = 1; off < 8; off++)
		KUNIT_EXPECT_EQ_MSG(test, rdmalock_fabric_check_range(REGION_LEN, off, 8, 8),
				    -EINVAL, "offset %llu", off);
}

static const struct rdmalock_fabric_attr test_attr = {
	.name = "test-domain",
	.node_id = 0,
	.num_nodes = 3,
};

static void fill_valid(struct rdmalock_cm_pdata *pd, u16 node)
{
	memset(pd, 0, sizeof(*pd));
	pd->magic = cpu_to_be32(RDMALOCK_CM_MAGIC);
	pd->version = RDMALOCK_CM_VERSION;
	pd->node_id = cpu_to_be16(node);
	pd->region_addr = cpu_to_be64(0x1000);
	pd->region_rkey = cpu_to_be32(0x1234);
	pd->region_len = cpu_to_be32(REGION_LEN);
	strscpy(pd->name, test_attr.name, sizeof(pd->name));
}

static int check(const void *data, u8 len, u32 *node)
{
	return rdmalock_cm_pdata_check(&test_attr, REGION_LEN, data, len, node);
}

static void pdata_valid_is_accepted(struct kunit *test)
{
	u8 buf[sizeof(struct rdmalock_cm_pdata) + 8] = {};
	struct rdmalock_cm_pdata pd;
	u32 node = U32_MAX;

	fill_valid(&pd, 2);
	KUNIT_EXPECT_EQ(test, check(&pd, sizeof(pd), &node), 0);
	KUNIT_EXPECT_EQ(test, node, 2);
	/* The CM may hand over more bytes than were sent: that is fine. */
	memcpy(buf, &pd, sizeof(pd));
	node = U32_MAX;
	KUNIT_EXPECT_EQ(test, check(buf, sizeof(buf), &node), 0);
	KUNIT_EXPECT_EQ(test, node, 2);
}

static void pdata_truncated_is_rejected(struct kunit *test)
{
	struct rdmalock_cm_pdata pd;
	u32 node;
	u8 len;

	fill_valid(&pd, 1);
	for (len = 0; len < sizeof(pd); len++)
		KUNIT_EXPECT_EQ_MSG(test, check(&pd, len, &node), -EPROTO,
				    "length %u", len);
	KUNIT_EXPECT_EQ(test, check(NULL, sizeof(pd), &node), -EPROTO);
}

static void pdata_each_bad_field_is_rejected(struct kunit *test)
{
	struct rdmalock_cm_pdata pd;
	u32 node;

	fill_valid(&pd, 1);
	pd.magic = cpu_to_be32(RDMALOCK_CM_MAGIC + 1);
	KUNIT_EXPECT_EQ(test, check(&pd, sizeof(pd), &node), -EPROTO);
	fill_valid(&pd, 1);
	pd.version = RDMALOCK_CM_VERSION + 1;
	KUNIT_EXPECT_EQ(test, check(&pd, sizeof(pd), &node), -EPROTO);
	fill_valid(&pd, 3);	/* one past the last node */
	KUNIT_EXPECT_EQ(test, check(&pd, sizeof(pd), &node), -EPROTO);
	fill_valid(&pd, 0xffff);
	KUNIT_EXPECT_EQ(test, check(&pd, sizeof(pd), &node), -EPROTO);
	fill_valid(&pd, 1);
	pd.region_len = cpu_to_be32(REGION_LEN * 2);
	KUNIT_EXPECT_EQ(test, check(&pd, sizeof(pd), &node), -EPROTO);
	fill_valid(&pd, 1);
	pd.name[0] = 'X';
	KUNIT_EXPECT_EQ(test, check(&pd, sizeof(pd), &node), -EPROTO);
	/* A prefix of our name is another domain. */
	fill_valid(&pd, 1);
	pd.name[4] = '\0';
	KUNIT_EXPECT_EQ(test, check(&pd, sizeof(pd), &node), -EPROTO);
}

/* Random bytes of every length: all rejected, nothing read out of bounds. */
static void pdata_random_is_rejected(struct kunit *test)
{
	u8 *buf;
	u32 node;
	int i;

	for (i = 0; i < 1000; i++) {
		u8 len = get_random_u32_below(sizeof(struct rdmalock_cm_pdata) + 8);

		/* Exactly @len bytes, so KASAN sees any read beyond them. */
		buf = kunit_kmalloc(test, len ?: 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, buf);
		get_random_bytes(buf, len);
		KUNIT_EXPECT_EQ(test, check(buf, len, &node), -EPROTO);
		kunit_kfree(test, buf);
	}
}

static struct kunit_case rdmalock_fabric_cases[] = {
	KUNIT_CASE(range_inside_is_accepted),
	KUNIT_CASE(range_outside_is_rejected),
	KUNIT_CASE(atomics_must_be_aligned),
	KUNIT_CASE(pdata_valid_is_accepted),
	KUNIT_CASE(pdata_truncated_is_rejected),
	KUNIT_CASE(pdata_each_bad_field_is_rejected),
	KUNIT_CASE(pdata_random_is_rejected),
	{}
};

static struct kunit_suite rdmalock_fabric_suite = {
	.name = "rdmalock_fabric",
	.test_cases = rdmalock_fabric_cases,
};

kunit_test_suite(rdmalock_fabric_suite);

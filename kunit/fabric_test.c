// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the fabric's checks on what it is asked and what it is sent:
 * remote ranges (bounds, alignment, overflow), the private data of
 * connect requests and replies, and the header of messages between
 * nodes (each valid, truncated, corrupted field by field, and random),
 * the atomics probe's checks and decision against a fake device, the
 * statuses an emulated atomic's answer may carry, the heartbeat
 * parameters, the queue that holds messages back until their
 * connection is up, which receive completions invalidated our region,
 * which message types the fabric's user may send and handle, whose
 * failure a failing connection is, and which sends count as failed.
 */
#include <kunit/test.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/swab.h>

/* Also for struct rdmalock_msg_fifo, the held messages' queue. */
#include "fabric-pri.h"

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
	pd->name_hash = cpu_to_be32(jhash(test_attr.name,
					  strlen(test_attr.name), 0));
	pd->region_len = cpu_to_be32(REGION_LEN);
	memset(pd->nonce, 0x5a, sizeof(pd->nonce));
}

static int check(const void *data, u8 len, u32 *node)
{
	return rdmalock_cm_pdata_check(&test_attr, REGION_LEN, 0, data, len,
				       node);
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
	pd.flags = 0x80;	/* a flag nobody defined */
	KUNIT_EXPECT_EQ(test, check(&pd, sizeof(pd), &node), -EPROTO);
	fill_valid(&pd, 1);
	pd.region_len = cpu_to_be32(REGION_LEN * 2);
	KUNIT_EXPECT_EQ(test, check(&pd, sizeof(pd), &node), -EPROTO);
	fill_valid(&pd, 1);
	pd.name_hash = cpu_to_be32(jhash(test_attr.name, 4, 0));
	KUNIT_EXPECT_EQ(test, check(&pd, sizeof(pd), &node), -EPROTO);
}

/*
 * A node with @flag and one without refuse each other with @err,
 * whichever asks; two with it agree.
 */
static void expect_flag_must_match(struct kunit *test, u8 flag, int err)
{
	struct rdmalock_cm_pdata pd;
	u32 node;

	fill_valid(&pd, 1);
	pd.flags = flag;
	KUNIT_EXPECT_EQ(test, check(&pd, sizeof(pd), &node), err);
	KUNIT_EXPECT_EQ(test, rdmalock_cm_pdata_check(&test_attr, REGION_LEN,
						      flag, &pd, sizeof(pd),
						      &node), 0);
	pd.flags = 0;
	KUNIT_EXPECT_EQ(test, rdmalock_cm_pdata_check(&test_attr, REGION_LEN,
						      flag, &pd, sizeof(pd),
						      &node), err);
}

/* A keyless node and a keyed one refuse each other, whichever asks. */
static void pdata_key_or_no_key_must_match(struct kunit *test)
{
	expect_flag_must_match(test, RDMALOCK_CM_F_KEYLESS, -EKEYREJECTED);
}

/* Nodes that do atomics differently must not share words. */
static void pdata_atomics_mode_must_match(struct kunit *test)
{
	expect_flag_must_match(test, RDMALOCK_CM_F_EMULATED, -EPROTONOSUPPORT);
}

/*
 * The home node's CPU must give what an RDMA CAS or FAA would: the old
 * value always, the swap only on a match, the sum modulo 2^64.
 */
static void rmw_execute_acts_like_rdma_atomics(struct kunit *test)
{
	u64 *region = kunit_kzalloc(test, 64, GFP_KERNEL);
	u64 old;

	KUNIT_ASSERT_NOT_NULL(test, region);
	region[1] = 5;
	KUNIT_EXPECT_EQ(test, rdmalock_rmw_execute(region, 64, RDMALOCK_VERB_CAS,
						   8, 5, 9, &old), 0);
	KUNIT_EXPECT_EQ(test, old, 5);
	KUNIT_EXPECT_EQ(test, region[1], 9);
	KUNIT_EXPECT_EQ(test, rdmalock_rmw_execute(region, 64, RDMALOCK_VERB_CAS,
						   8, 5, 7, &old), 0);
	KUNIT_EXPECT_EQ(test, old, 9);
	KUNIT_EXPECT_EQ(test, region[1], 9);
	region[2] = U64_MAX;
	KUNIT_EXPECT_EQ(test, rdmalock_rmw_execute(region, 64, RDMALOCK_VERB_FAA,
						   16, 2, 0, &old), 0);
	KUNIT_EXPECT_EQ(test, old, U64_MAX);
	KUNIT_EXPECT_EQ(test, region[2], 1);
	/* Neighbours untouched. */
	KUNIT_EXPECT_EQ(test, region[0], 0);
	KUNIT_EXPECT_EQ(test, region[3], 0);
}

static void rmw_execute_refuses_bad_requests(struct kunit *test)
{
	u64 *region = kunit_kzalloc(test, 64, GFP_KERNEL);
	u64 old;

	KUNIT_ASSERT_NOT_NULL(test, region);
	KUNIT_EXPECT_EQ(test, rdmalock_rmw_execute(region, 64, RDMALOCK_VERB_FAA,
						   4, 1, 0, &old), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_rmw_execute(region, 64, RDMALOCK_VERB_FAA,
						   64, 1, 0, &old), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_rmw_execute(region, 64, RDMALOCK_VERB_FAA,
						   U64_MAX - 3, 1, 0, &old), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_rmw_execute(region, 64, RDMALOCK_VERB_READ,
						   0, 1, 0, &old), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_rmw_execute(region, 64, 0xff, 0, 1, 0, &old),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, memchr_inv(region, 0, 64));
}

/*
 * A device under the probe: the home node's CPU executor, made to
 * misbehave as a NIC might.
 */
enum fake_nic_fault {
	NIC_WORKS,
	NIC_REFUSES,		/* cannot post atomics from a kernel QP */
	NIC_CAS_ALWAYS_SWAPS,
	NIC_CAS_NEVER_SWAPS,
	NIC_FAA_IGNORES_ADDEND,
	NIC_RESULT_BYTE_SWAPPED,
};

struct fake_nic {
	u64 word;
	enum fake_nic_fault fault;
};

static int fake_nic_atomic(void *ctx, u8 verb, u64 compare_add, u64 swap,
			   u64 *old)
{
	struct fake_nic *nic = ctx;
	int ret;

	switch (nic->fault) {
	case NIC_REFUSES:
		return -EOPNOTSUPP;
	case NIC_CAS_ALWAYS_SWAPS:
		if (verb == RDMALOCK_VERB_CAS)
			compare_add = nic->word;
		break;
	case NIC_CAS_NEVER_SWAPS:
		if (verb == RDMALOCK_VERB_CAS)
			compare_add = ~nic->word;
		break;
	case NIC_FAA_IGNORES_ADDEND:
		if (verb == RDMALOCK_VERB_FAA)
			compare_add = 0;
		break;
	default:
		break;
	}
	ret = rdmalock_rmw_execute(&nic->word, sizeof(nic->word), verb, 0,
				   compare_add, swap, old);
	if (nic->fault == NIC_RESULT_BYTE_SWAPPED)
		*old = swab64(*old);
	return ret;
}

/* Whatever the word held before, working atomics pass, and pass again. */
static void probe_passes_working_atomics(struct kunit *test)
{
	static const u64 starts[] = { 0, 1, 0x0123456789abcdefULL, U64_MAX - 2 };
	struct fake_nic nic = { .fault = NIC_WORKS };
	int i;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		nic.word = starts[i];
		KUNIT_EXPECT_EQ_MSG(test, rdmalock_atomics_check(fake_nic_atomic, &nic),
				    0, "word %llx", starts[i]);
		KUNIT_EXPECT_EQ(test, rdmalock_atomics_check(fake_nic_atomic, &nic), 0);
	}
}

static void probe_catches_broken_atomics(struct kunit *test)
{
	static const struct {
		enum fake_nic_fault fault;
		int ret;
	} cases[] = {
		{ NIC_REFUSES, -EOPNOTSUPP },
		{ NIC_CAS_ALWAYS_SWAPS, -EIO },
		{ NIC_CAS_NEVER_SWAPS, -EIO },
		{ NIC_FAA_IGNORES_ADDEND, -EIO },
		{ NIC_RESULT_BYTE_SWAPPED, -EIO },
	};
	struct fake_nic nic;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		nic.word = 0x0123456789abcdefULL;
		nic.fault = cases[i].fault;
		KUNIT_EXPECT_EQ_MSG(test, rdmalock_atomics_check(fake_nic_atomic, &nic),
				    cases[i].ret, "fault %d", cases[i].fault);
	}
}

/*
 * The decision for every mode asked, probe outcome and emulate_atomics:
 * "auto" falls back to emulation, "native" refuses to run without them.
 */
static void probe_decides_native_or_emulated(struct kunit *test)
{
	static const struct {
		u32 mode;
		int probe;
		bool force;
		int ret;
		bool emulated;
	} cases[] = {
		{ RDMALOCK_ATOMICS_AUTO, 0, false, 0, false },
		{ RDMALOCK_ATOMICS_AUTO, 0, true, 0, true },
		{ RDMALOCK_ATOMICS_AUTO, -EOPNOTSUPP, false, 0, true },
		{ RDMALOCK_ATOMICS_AUTO, -EIO, false, 0, true },
		{ RDMALOCK_ATOMICS_NATIVE, 0, false, 0, false },
		{ RDMALOCK_ATOMICS_NATIVE, 0, true, 0, false },
		{ RDMALOCK_ATOMICS_NATIVE, -EOPNOTSUPP, false, -EOPNOTSUPP, false },
		{ RDMALOCK_ATOMICS_NATIVE, -EIO, true, -EOPNOTSUPP, false },
		{ RDMALOCK_ATOMICS_EMULATED, 0, false, 0, true },
		{ RDMALOCK_ATOMICS_EMULATED, -EIO, false, 0, true },
	};
	bool emulated;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		emulated = !cases[i].emulated;
		KUNIT_EXPECT_EQ_MSG(test,
				    rdmalock_atomics_decide(cases[i].mode, cases[i].probe,
							    cases[i].force, &emulated),
				    cases[i].ret, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, emulated, cases[i].emulated, "case %d", i);
	}
}

/* A device that refuses atomics: "auto" ends up emulating, as a whole. */
static void probe_of_refusing_device_emulates(struct kunit *test)
{
	struct fake_nic nic = { .fault = NIC_REFUSES };
	bool emulated = false;
	int probe = rdmalock_atomics_check(fake_nic_atomic, &nic);

	KUNIT_EXPECT_EQ(test, rdmalock_atomics_decide(RDMALOCK_ATOMICS_AUTO, probe,
						      false, &emulated), 0);
	KUNIT_EXPECT_TRUE(test, emulated);
	nic.fault = NIC_WORKS;
	probe = rdmalock_atomics_check(fake_nic_atomic, &nic);
	KUNIT_EXPECT_EQ(test, rdmalock_atomics_decide(RDMALOCK_ATOMICS_AUTO, probe,
						      false, &emulated), 0);
	KUNIT_EXPECT_FALSE(test, emulated);
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

#define DOMAIN_HASH	0x12345678
#define SRC_NODE	2
#define SEQ		41

/* A valid message of @len payload bytes in @buf; returns its size. */
static u32 fill_msg(u8 *buf, u32 len)
{
	struct rdmalock_msg_hdr *hdr = (struct rdmalock_msg_hdr *)buf;

	memset(buf, 0xab, RDMALOCK_MSG_SIZE);
	hdr->magic = cpu_to_be16(RDMALOCK_MSG_MAGIC);
	hdr->version = RDMALOCK_MSG_VERSION;
	hdr->type = RDMALOCK_MSG_USER_FIRST;
	hdr->len = cpu_to_be16(len);
	hdr->src_node = cpu_to_be16(SRC_NODE);
	hdr->domain = cpu_to_be32(DOMAIN_HASH);
	hdr->seq = cpu_to_be32(SEQ);
	return sizeof(*hdr) + len;
}

static int msg_check(const u8 *buf, u32 byte_len, u8 *type, u32 *len)
{
	return rdmalock_msg_check(buf, byte_len, DOMAIN_HASH, SRC_NODE, SEQ,
				  type, len);
}

static void msg_valid_is_accepted(struct kunit *test)
{
	u8 buf[RDMALOCK_MSG_SIZE], type = 0;
	u32 len = U32_MAX;

	KUNIT_EXPECT_EQ(test, msg_check(buf, fill_msg(buf, 0), &type, &len), 0);
	KUNIT_EXPECT_EQ(test, type, RDMALOCK_MSG_USER_FIRST);
	KUNIT_EXPECT_EQ(test, len, 0);
	KUNIT_EXPECT_EQ(test, msg_check(buf, fill_msg(buf, RDMALOCK_MSG_MAX_PAYLOAD),
					&type, &len), 0);
	KUNIT_EXPECT_EQ(test, len, RDMALOCK_MSG_MAX_PAYLOAD);
}

static void msg_truncated_or_oversized_is_rejected(struct kunit *test)
{
	u8 buf[RDMALOCK_MSG_SIZE], type;
	u32 full = fill_msg(buf, 40), n, len;

	for (n = 0; n < full; n++)
		KUNIT_EXPECT_EQ_MSG(test, msg_check(buf, n, &type, &len), -EBADMSG,
				    "%u of %u bytes", n, full);
	/* Longer than its header says, or than any receive buffer. */
	KUNIT_EXPECT_EQ(test, msg_check(buf, full + 1, &type, &len), -EBADMSG);
	KUNIT_EXPECT_EQ(test, msg_check(buf, RDMALOCK_MSG_SIZE + 1, &type, &len),
			-EBADMSG);
}

static void msg_each_bad_field_is_rejected(struct kunit *test)
{
	struct rdmalock_msg_hdr *hdr;
	u8 buf[RDMALOCK_MSG_SIZE], type;
	u32 size, len;

	hdr = (struct rdmalock_msg_hdr *)buf;
#define EXPECT_BAD(stmt) do {						\
		size = fill_msg(buf, 8);				\
		stmt;							\
		KUNIT_EXPECT_EQ_MSG(test, msg_check(buf, size, &type, &len), \
				    -EBADMSG, "%s", #stmt);		\
	} while (0)
	EXPECT_BAD(hdr->magic = 0);
	EXPECT_BAD(hdr->version++);
	EXPECT_BAD(hdr->type = 0);
	EXPECT_BAD(hdr->type = RDMALOCK_MSG_TYPES);
	EXPECT_BAD(hdr->type = 0xff);
	/* Reserved for the fabric, and none of its types. */
	EXPECT_BAD(hdr->type = RDMALOCK_MSG_AUTH + 1);
	EXPECT_BAD(hdr->type = RDMALOCK_MSG_USER_FIRST - 1);
	EXPECT_BAD(hdr->len = cpu_to_be16(9));
	EXPECT_BAD(hdr->len = cpu_to_be16(0xffff));
	EXPECT_BAD(hdr->src_node = cpu_to_be16(SRC_NODE + 1));
	EXPECT_BAD(hdr->domain = cpu_to_be32(DOMAIN_HASH ^ 1));
	EXPECT_BAD(hdr->seq = cpu_to_be32(SEQ + 1));
	EXPECT_BAD(hdr->seq = cpu_to_be32(SEQ - 1));
#undef EXPECT_BAD
}

static void msg_random_is_rejected(struct kunit *test)
{
	u32 len;
	u8 type;
	int i;

	for (i = 0; i < 1000; i++) {
		u32 n = get_random_u32_below(RDMALOCK_MSG_SIZE + 1);
		u8 *buf = kunit_kmalloc(test, n ?: 1, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, buf);
		get_random_bytes(buf, n);
		KUNIT_EXPECT_EQ(test, msg_check(buf, n, &type, &len), -EBADMSG);
		kunit_kfree(test, buf);
	}
}

static void rmw_status_only_what_atomics_give(struct kunit *test)
{
	static const s32 bad[] = {
		1, -EINVAL, -ENOMEM, -EAGAIN, -ETIMEDOUT, -EPROTO, S32_MIN, S32_MAX,
	};
	unsigned int i;

	KUNIT_EXPECT_TRUE(test, rdmalock_rmw_status_valid(0));
	KUNIT_EXPECT_TRUE(test, rdmalock_rmw_status_valid(-ENOTCONN));
	KUNIT_EXPECT_TRUE(test, rdmalock_rmw_status_valid(-EIO));
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_FALSE_MSG(test, rdmalock_rmw_status_valid(bad[i]),
				       "status %d", bad[i]);
}

static void heartbeat_parameters_are_checked(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rdmalock_heartbeat_check(1000, 5000), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_heartbeat_check(1, 2), 0);
	/* No heartbeats: nobody is timed out, whatever the timeout. */
	KUNIT_EXPECT_EQ(test, rdmalock_heartbeat_check(0, 0), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_heartbeat_check(0, 5000), 0);
	/* An idle peer is heard every interval: the timeout must be longer. */
	KUNIT_EXPECT_EQ(test, rdmalock_heartbeat_check(1000, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_heartbeat_check(1000, 999), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_heartbeat_check(1000, 1000), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_heartbeat_check(U32_MAX, U32_MAX), -EINVAL);
}

/* Takes out everything held, expecting @want in that order. */
static void fifo_expect(struct kunit *test, struct rdmalock_msg_fifo *f,
			const u8 *want, unsigned int n)
{
	unsigned int k;
	u8 i;

	for (k = 0; k < n; k++) {
		KUNIT_ASSERT_TRUE(test, rdmalock_msg_fifo_first(f, &i));
		KUNIT_EXPECT_EQ_MSG(test, i, want[k], "message %u", k);
		/* Until it is popped, it stays first. */
		KUNIT_ASSERT_TRUE(test, rdmalock_msg_fifo_first(f, &i));
		KUNIT_EXPECT_EQ(test, i, want[k]);
		rdmalock_msg_fifo_pop(f);
	}
	KUNIT_EXPECT_FALSE(test, rdmalock_msg_fifo_first(f, &i));
}

static void held_messages_come_out_in_order(struct kunit *test)
{
	struct rdmalock_msg_fifo f = {};
	const u8 want[] = { 5, 0, 31, 7 };
	unsigned int k;

	/* Up from the start: nothing is held. */
	KUNIT_EXPECT_FALSE(test, rdmalock_msg_fifo_hold(&f, 3));

	rdmalock_msg_fifo_start(&f);
	for (k = 0; k < ARRAY_SIZE(want); k++)
		KUNIT_EXPECT_TRUE(test, rdmalock_msg_fifo_hold(&f, want[k]));
	fifo_expect(test, &f, want, ARRAY_SIZE(want));
	/* All handed over: holding stopped with the last one. */
	KUNIT_EXPECT_FALSE(test, f.holding);
	KUNIT_EXPECT_FALSE(test, rdmalock_msg_fifo_hold(&f, 9));
}

static void arrivals_during_hand_over_wait_their_turn(struct kunit *test)
{
	struct rdmalock_msg_fifo f = {};
	const u8 want[] = { 1, 2, 3 };
	u8 i;

	rdmalock_msg_fifo_start(&f);
	KUNIT_EXPECT_TRUE(test, rdmalock_msg_fifo_hold(&f, 1));
	KUNIT_EXPECT_TRUE(test, rdmalock_msg_fifo_first(&f, &i));
	KUNIT_EXPECT_EQ(test, i, 1);
	/* Arrives while 1 is being handled: must not overtake what is held. */
	KUNIT_EXPECT_TRUE(test, rdmalock_msg_fifo_hold(&f, 2));
	rdmalock_msg_fifo_pop(&f);
	/* 1 is done, 2 is not: still held, so 3 waits too. */
	KUNIT_EXPECT_TRUE(test, rdmalock_msg_fifo_hold(&f, 3));
	fifo_expect(test, &f, want + 1, 2);
	KUNIT_EXPECT_FALSE(test, rdmalock_msg_fifo_hold(&f, 4));
}

static void unanswered_message_stays_first(struct kunit *test)
{
	struct rdmalock_msg_fifo f = {};
	const u8 want[] = { 8, 4, 6 };

	/* Handled at once, but its answer found no room. */
	KUNIT_EXPECT_FALSE(test, rdmalock_msg_fifo_hold(&f, 8));
	rdmalock_msg_fifo_hold_first(&f, 8);
	KUNIT_EXPECT_TRUE(test, rdmalock_msg_fifo_hold(&f, 4));
	KUNIT_EXPECT_TRUE(test, rdmalock_msg_fifo_hold(&f, 6));
	fifo_expect(test, &f, want, ARRAY_SIZE(want));
}

static void whole_ring_held_in_order(struct kunit *test)
{
	struct rdmalock_msg_fifo f = {};
	u8 want[RDMALOCK_RECV_DEPTH];
	unsigned int k;

	/* Start mid-way, so that the queue wraps around. */
	f.head = RDMALOCK_RECV_DEPTH - 3;
	rdmalock_msg_fifo_start(&f);
	for (k = 0; k < RDMALOCK_RECV_DEPTH - 1; k++) {
		want[k + 1] = (k * 7 + 1) % RDMALOCK_RECV_DEPTH;
		KUNIT_EXPECT_TRUE(test, rdmalock_msg_fifo_hold(&f, want[k + 1]));
	}
	want[0] = 0;
	rdmalock_msg_fifo_hold_first(&f, want[0]);
	KUNIT_EXPECT_EQ(test, f.count, RDMALOCK_RECV_DEPTH);
	fifo_expect(test, &f, want, RDMALOCK_RECV_DEPTH);
}

#define OUR_RKEY	0x12345607

static void invalidation_of_our_rkey_is_seen(struct kunit *test)
{
	struct ib_wc wc = {
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV,
		.wc_flags = IB_WC_WITH_INVALIDATE,
		.ex.invalidate_rkey = OUR_RKEY,
	};

	KUNIT_EXPECT_TRUE(test, rdmalock_wc_invalidates(&wc, OUR_RKEY));
}

static void other_completions_are_no_invalidation(struct kunit *test)
{
	struct ib_wc wc = {
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV,
		.wc_flags = IB_WC_WITH_INVALIDATE,
		.ex.invalidate_rkey = OUR_RKEY,
	};

	/* Another key, or ours from an older registration (key byte). */
	wc.ex.invalidate_rkey = OUR_RKEY + 0x100;
	KUNIT_EXPECT_FALSE(test, rdmalock_wc_invalidates(&wc, OUR_RKEY));
	wc.ex.invalidate_rkey = OUR_RKEY - 1;
	KUNIT_EXPECT_FALSE(test, rdmalock_wc_invalidates(&wc, OUR_RKEY));
	/* Immediate data shares the union: equal to the rkey, it is data. */
	wc.ex.invalidate_rkey = OUR_RKEY;
	wc.wc_flags = IB_WC_WITH_IMM;
	wc.opcode = IB_WC_RECV_RDMA_WITH_IMM;
	KUNIT_EXPECT_FALSE(test, rdmalock_wc_invalidates(&wc, OUR_RKEY));
	wc.wc_flags = 0;
	wc.opcode = IB_WC_RECV;
	KUNIT_EXPECT_FALSE(test, rdmalock_wc_invalidates(&wc, OUR_RKEY));
	/* A failed receive invalidated nothing. */
	wc.wc_flags = IB_WC_WITH_INVALIDATE;
	wc.status = IB_WC_WR_FLUSH_ERR;
	KUNIT_EXPECT_FALSE(test, rdmalock_wc_invalidates(&wc, OUR_RKEY));
}

static void ignore_msg(struct rdmalock_fabric *fabric, u32 node, u8 type,
		       const void *payload, u32 len, void *ctx)
{
}

/*
 * The fabric's own message types are its alone: its user can neither
 * send nor handle one. A fabric of two nodes, never started: node 1 has
 * no connection, which is as far as a user's message can get.
 */
static void user_gets_only_its_message_types(struct kunit *test)
{
	struct rdmalock_fabric *fabric;
	u8 type;

	fabric = kunit_kzalloc(test, sizeof(*fabric), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fabric);
	spin_lock_init(&fabric->lock);
	fabric->attr.num_nodes = 2;
	fabric->peers[1].fabric = fabric;

	for (type = 0; type < RDMALOCK_MSG_USER_FIRST; type++) {
		KUNIT_EXPECT_EQ(test, rdmalock_fabric_send(fabric, 1, type, NULL, 0),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, rdmalock_fabric_set_handler(fabric, type,
								  ignore_msg, NULL),
				-EINVAL);
	}
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_send(fabric, 1, RDMALOCK_MSG_TYPES,
						   NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_set_handler(fabric, RDMALOCK_MSG_TYPES,
							  ignore_msg, NULL), -EINVAL);

	KUNIT_EXPECT_EQ(test, rdmalock_fabric_send(fabric, 1, RDMALOCK_MSG_USER_FIRST,
						   NULL, 0), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_send(fabric, 1, RDMALOCK_MSG_TYPES - 1,
						   NULL, 0), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_set_handler(fabric, RDMALOCK_MSG_USER_FIRST,
							  ignore_msg, NULL), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_fabric_set_handler(fabric, RDMALOCK_MSG_USER_FIRST,
							  ignore_msg, NULL), -EBUSY);
}

/*
 * A fabric of three nodes, never started, as node 1 sees it: it connects
 * to node 2 and to itself, node 0 and its own loopback connect to it.
 */
static struct rdmalock_fabric *fail_fabric(struct kunit *test)
{
	struct rdmalock_fabric *fabric;
	u32 i;

	fabric = kunit_kzalloc(test, sizeof(*fabric), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fabric);
	fabric->attr.node_id = 1;
	fabric->attr.num_nodes = 3;
	for (i = 0; i < fabric->attr.num_nodes; i++) {
		fabric->peers[i].fabric = fabric;
		fabric->peers[i].node = i;
	}
	return fabric;
}

/* A connection to or from @peer (NULL: the loopback's passive end). */
static struct rdmalock_conn *fail_conn(struct kunit *test,
				       struct rdmalock_fabric *fabric,
				       struct rdmalock_peer *peer, bool active,
				       enum rdmalock_conn_state state)
{
	struct rdmalock_conn *conn;

	conn = kunit_kzalloc(test, sizeof(*conn), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, conn);
	conn->fabric = fabric;
	conn->peer = peer;
	conn->active = active;
	conn->state = state;
	return conn;
}

static void expect_fail_kind(struct kunit *test, struct rdmalock_conn *conn,
			     enum rdmalock_fail_kind kind, const char *what)
{
	KUNIT_EXPECT_EQ_MSG(test, rdmalock_conn_fail_kind(conn), kind, "%s", what);
}

/*
 * Someone claims to be node 0, which is connected: its attempt, failing
 * before it proved the key, is refused on its own account and leaves
 * node 0's failures alone; so is one superseded by a newer claim, one
 * claiming a node that is down, and one claiming to be this node.
 */
static void claimed_node_is_not_charged_with_refusal(struct kunit *test)
{
	struct rdmalock_fabric *fabric = fail_fabric(test);
	struct rdmalock_peer *node0 = &fabric->peers[0];
	struct rdmalock_conn *live, *claim, *older, *down, *loop;

	live = fail_conn(test, fabric, node0, false, RDMALOCK_CONN_READY);
	node0->conn = live;
	claim = fail_conn(test, fabric, node0, false, RDMALOCK_CONN_CONNECTING);
	node0->pending = claim;
	older = fail_conn(test, fabric, node0, false, RDMALOCK_CONN_CONNECTING);
	expect_fail_kind(test, claim, RDMALOCK_FAIL_REFUSED, "pending claim");
	expect_fail_kind(test, older, RDMALOCK_FAIL_REFUSED, "superseded claim");
	expect_fail_kind(test, live, RDMALOCK_FAIL_PEER, "the node's own");

	node0->conn = NULL;
	down = fail_conn(test, fabric, node0, false, RDMALOCK_CONN_CONNECTING);
	node0->pending = down;
	expect_fail_kind(test, down, RDMALOCK_FAIL_REFUSED, "claiming a node down");

	fabric->loop_passive = fail_conn(test, fabric, NULL, false,
					 RDMALOCK_CONN_READY);
	loop = fail_conn(test, fabric, NULL, false, RDMALOCK_CONN_CONNECTING);
	expect_fail_kind(test, loop, RDMALOCK_FAIL_REFUSED, "claiming this node");
}

/*
 * What is, or was, a node's connection counts against it, as before:
 * our attempts to connect to it, its accepted connection once it proved
 * the key (up or not yet), and one it replaced by a newer one. The
 * loopback's passive end never does: the active end speaks for it.
 */
static void node_own_connection_failures_count(struct kunit *test)
{
	struct rdmalock_fabric *fabric = fail_fabric(test);
	struct rdmalock_peer *node0 = &fabric->peers[0];
	struct rdmalock_peer *node2 = &fabric->peers[2];
	struct rdmalock_conn *old;

	node2->conn = fail_conn(test, fabric, node2, true, RDMALOCK_CONN_CONNECTING);
	expect_fail_kind(test, node2->conn, RDMALOCK_FAIL_PEER, "our attempt");
	node2->conn->state = RDMALOCK_CONN_READY;
	expect_fail_kind(test, node2->conn, RDMALOCK_FAIL_PEER, "ours, ready");

	old = fail_conn(test, fabric, node0, false, RDMALOCK_CONN_CONNECTING);
	node0->conn = old;
	expect_fail_kind(test, old, RDMALOCK_FAIL_PEER, "proved, not up yet");
	old->state = RDMALOCK_CONN_UP;
	node0->conn = fail_conn(test, fabric, node0, false, RDMALOCK_CONN_CONNECTING);
	expect_fail_kind(test, old, RDMALOCK_FAIL_PEER, "replaced");

	fabric->loop_passive = fail_conn(test, fabric, NULL, false,
					 RDMALOCK_CONN_CONNECTING);
	expect_fail_kind(test, fabric->loop_passive, RDMALOCK_FAIL_QUIET,
			 "loopback's passive end");
	fabric->loop_passive->state = RDMALOCK_CONN_READY;
	expect_fail_kind(test, fabric->loop_passive, RDMALOCK_FAIL_QUIET,
			 "loopback's passive end, ready");
}

/* A domain being destroyed says only which connections it lost. */
static void stopping_domain_reports_only_lost_connections(struct kunit *test)
{
	struct rdmalock_fabric *fabric = fail_fabric(test);
	struct rdmalock_peer *node0 = &fabric->peers[0];
	struct rdmalock_peer *node2 = &fabric->peers[2];
	struct rdmalock_conn *claim;

	fabric->stopping = true;
	node2->conn = fail_conn(test, fabric, node2, true, RDMALOCK_CONN_CONNECTING);
	expect_fail_kind(test, node2->conn, RDMALOCK_FAIL_QUIET, "our attempt");
	node0->conn = fail_conn(test, fabric, node0, false, RDMALOCK_CONN_READY);
	expect_fail_kind(test, node0->conn, RDMALOCK_FAIL_PEER, "the node's own");
	claim = fail_conn(test, fabric, node0, false, RDMALOCK_CONN_CONNECTING);
	node0->pending = claim;
	expect_fail_kind(test, claim, RDMALOCK_FAIL_QUIET, "a claim");
}

/* Only a message that its sender gives up is a failed send. */
static void send_lost_only_when_given_up(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, rdmalock_msg_send_lost(-ENOBUFS, true));
	KUNIT_EXPECT_FALSE(test, rdmalock_msg_send_lost(-ENOMEM, true));
	KUNIT_EXPECT_TRUE(test, rdmalock_msg_send_lost(-ENOTCONN, true));
	KUNIT_EXPECT_TRUE(test, rdmalock_msg_send_lost(-EIO, true));
	KUNIT_EXPECT_TRUE(test, rdmalock_msg_send_lost(-ENOBUFS, false));
	KUNIT_EXPECT_TRUE(test, rdmalock_msg_send_lost(-ENOMEM, false));
	KUNIT_EXPECT_TRUE(test, rdmalock_msg_send_lost(-ENOTCONN, false));
}

/*
 * A connection to node 1 of a fabric never started, its send queue full:
 * an answer the fabric owes finds no room, is kept and sent again, and
 * none of that is a failed send; a user's message is lost (its sender
 * gets -ENOBUFS), and so is an answer on a failed connection.
 */
static void answer_waiting_for_room_is_no_failed_send(struct kunit *test)
{
	struct rdmalock_msg_answer ans = { .type = RDMALOCK_MSG_RMW_RESP, .len = 16 };
	struct rdmalock_verb_counters *cnt;
	struct rdmalock_fabric *fabric;
	struct rdmalock_conn *conn;
	int i;

	fabric = kunit_kzalloc(test, sizeof(*fabric), GFP_KERNEL);
	conn = kunit_kzalloc(test, sizeof(*conn), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fabric);
	KUNIT_ASSERT_NOT_NULL(test, conn);
	/* Read, never used: nothing is posted. */
	fabric->pd = kunit_kzalloc(test, sizeof(*fabric->pd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fabric->pd);
	KUNIT_ASSERT_EQ(test, rdmalock_msg_pool_create(fabric), 0);
	fabric->attr.num_nodes = 2;
	fabric->peers[1].fabric = fabric;
	fabric->peers[1].node = 1;
	kref_init(&conn->ref);
	conn->fabric = fabric;
	conn->peer = &fabric->peers[1];
	conn->state = RDMALOCK_CONN_READY;
	spin_lock_init(&conn->post_lock);
	atomic_set(&conn->sq_used, RDMALOCK_SQ_DEPTH - 1);
	cnt = &fabric->peers[1].verbs[RDMALOCK_VERB_SEND];

	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, rdmalock_msg_send_answer(conn, &ans), -ENOBUFS);
	KUNIT_EXPECT_EQ(test, atomic64_read(&cnt->posted), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&cnt->failed), 0);

	/* A user's message its sender sends again is no send either. */
	KUNIT_EXPECT_EQ(test, rdmalock_msg_conn_send(conn, RDMALOCK_MSG_USER_FIRST,
						     NULL, 0, true), -ENOBUFS);
	KUNIT_EXPECT_EQ(test, atomic64_read(&cnt->posted), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&cnt->failed), 0);

	KUNIT_EXPECT_EQ(test, rdmalock_msg_conn_send(conn, RDMALOCK_MSG_USER_FIRST,
						     NULL, 0, false), -ENOBUFS);
	KUNIT_EXPECT_EQ(test, atomic64_read(&cnt->posted), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&cnt->failed), 1);

	conn->state = RDMALOCK_CONN_FAILED;
	KUNIT_EXPECT_EQ(test, rdmalock_msg_send_answer(conn, &ans), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, atomic64_read(&cnt->posted), 2);
	KUNIT_EXPECT_EQ(test, atomic64_read(&cnt->failed), 2);
	KUNIT_EXPECT_EQ(test, kref_read(&conn->ref), 1);
	rdmalock_msg_exit(fabric);
}

static struct kunit_case rdmalock_fabric_cases[] = {
	KUNIT_CASE(range_inside_is_accepted),
	KUNIT_CASE(range_outside_is_rejected),
	KUNIT_CASE(atomics_must_be_aligned),
	KUNIT_CASE(pdata_valid_is_accepted),
	KUNIT_CASE(pdata_truncated_is_rejected),
	KUNIT_CASE(pdata_each_bad_field_is_rejected),
	KUNIT_CASE(pdata_random_is_rejected),
	KUNIT_CASE(pdata_atomics_mode_must_match),
	KUNIT_CASE(pdata_key_or_no_key_must_match),
	KUNIT_CASE(rmw_execute_acts_like_rdma_atomics),
	KUNIT_CASE(rmw_execute_refuses_bad_requests),
	KUNIT_CASE(probe_passes_working_atomics),
	KUNIT_CASE(probe_catches_broken_atomics),
	KUNIT_CASE(probe_decides_native_or_emulated),
	KUNIT_CASE(probe_of_refusing_device_emulates),
	KUNIT_CASE(msg_valid_is_accepted),
	KUNIT_CASE(msg_truncated_or_oversized_is_rejected),
	KUNIT_CASE(msg_each_bad_field_is_rejected),
	KUNIT_CASE(msg_random_is_rejected),
	KUNIT_CASE(rmw_status_only_what_atomics_give),
	KUNIT_CASE(heartbeat_parameters_are_checked),
	KUNIT_CASE(held_messages_come_out_in_order),
	KUNIT_CASE(arrivals_during_hand_over_wait_their_turn),
	KUNIT_CASE(unanswered_message_stays_first),
	KUNIT_CASE(whole_ring_held_in_order),
	KUNIT_CASE(invalidation_of_our_rkey_is_seen),
	KUNIT_CASE(other_completions_are_no_invalidation),
	KUNIT_CASE(user_gets_only_its_message_types),
	KUNIT_CASE(claimed_node_is_not_charged_with_refusal),
	KUNIT_CASE(node_own_connection_failures_count),
	KUNIT_CASE(stopping_domain_reports_only_lost_connections),
	KUNIT_CASE(send_lost_only_when_given_up),
	KUNIT_CASE(answer_waiting_for_room_is_no_failed_send),
	{}
};

static struct kunit_suite rdmalock_fabric_suite = {
	.name = "rdmalock_fabric",
	.test_cases = rdmalock_fabric_cases,
};

kunit_test_suite(rdmalock_fabric_suite);

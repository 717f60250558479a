// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: validation of RDMALOCK_IOC_DOMAIN_CREATE requests. Every field
 * userspace controls is tried with a bad value; each must be refused
 * with -EINVAL, and a good request must become the right attributes.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/string.h>

#include "cluster.h"
#include "locks.h"

static void fill_valid(struct rdmalock_domain_create *req)
{
	u32 i;

	memset(req, 0, sizeof(*req));
	req->size = sizeof(*req);
	strscpy(req->name, "dom-1_a.b", sizeof(req->name));
	req->node_id = 1;
	req->num_nodes = 3;
	req->algo = RDMALOCK_ALGO_ALOCK;
	req->locks_per_node = 100;
	req->key_len = RDMALOCK_KEY_MIN;
	req->key = 0x1000;	/* the ioctl copies the key; not read here */
	for (i = 0; i < 3; i++) {
		req->nodes[i].family = AF_INET;
		req->nodes[i].addr[0] = 10;
		req->nodes[i].addr[3] = i + 1;
	}
}

static struct rdmalock_fabric_attr *attr_for(struct kunit *test)
{
	struct rdmalock_fabric_attr *attr;

	attr = kunit_kzalloc(test, sizeof(*attr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, attr);
	return attr;
}

static void valid_request_becomes_attributes(struct kunit *test)
{
	struct rdmalock_fabric_attr *attr = attr_for(test);
	struct rdmalock_domain_create req;
	struct sockaddr_in *sin;

	fill_valid(&req);
	KUNIT_ASSERT_EQ(test, rdmalock_domain_check(&req, attr), 0);
	KUNIT_EXPECT_STREQ(test, attr->name, "dom-1_a.b");
	KUNIT_EXPECT_EQ(test, attr->node_id, 1);
	KUNIT_EXPECT_EQ(test, attr->num_nodes, 3);
	KUNIT_EXPECT_EQ(test, attr->user_len,
			rdmalock_locks_len(100, RDMALOCK_DEFAULT_DESCRIPTORS, false));
	KUNIT_EXPECT_EQ(test, attr->port, RDMALOCK_DEFAULT_PORT);
	sin = (struct sockaddr_in *)&attr->addrs[2];
	KUNIT_EXPECT_EQ(test, sin->sin_family, AF_INET);
	KUNIT_EXPECT_EQ(test, ntohs(sin->sin_port), RDMALOCK_DEFAULT_PORT);
	KUNIT_EXPECT_EQ(test, ntohl(sin->sin_addr.s_addr), 0x0a000003);

	req.port = 9999;
	req.nodes[0].family = AF_INET6;
	memset(req.nodes[0].addr, 0, sizeof(req.nodes[0].addr));
	req.nodes[0].addr[0] = 0xfd;
	req.nodes[0].addr[15] = 1;
	KUNIT_ASSERT_EQ(test, rdmalock_domain_check(&req, attr), 0);
	KUNIT_EXPECT_EQ(test, attr->addrs[0].ss_family, AF_INET6);
	KUNIT_EXPECT_EQ(test, attr->port, 9999);

	/* ShiftLock's writer CAS: up to its maximum, or "only" beyond it. */
	req.algo = RDMALOCK_ALGO_SHIFTLOCK;
	req.writer_cas = RDMALOCK_SHIFTLOCK_WRITER_CAS_MAX;
	KUNIT_EXPECT_EQ(test, rdmalock_domain_check(&req, attr), 0);
	req.writer_cas = RDMALOCK_SHIFTLOCK_WRITER_CAS_ONLY;
	KUNIT_EXPECT_EQ(test, rdmalock_domain_check(&req, attr), 0);
	/* The most descriptors, which three ShiftLock nodes can name. */
	req.descriptors = RDMALOCK_MAX_DESCRIPTORS;
	KUNIT_EXPECT_EQ(test, rdmalock_domain_check(&req, attr), 0);
	KUNIT_EXPECT_EQ(test, attr->user_len,
			rdmalock_locks_len(100, RDMALOCK_MAX_DESCRIPTORS, false));
	req.descriptors = RDMALOCK_DESCRIPTORS_STEP;
	KUNIT_EXPECT_EQ(test, rdmalock_domain_check(&req, attr), 0);
	req.descriptors = 0;

	/* No key, asked for explicitly. */
	req.flags = RDMALOCK_DOMAIN_F_INSECURE;
	req.key_len = 0;
	req.key = 0;
	KUNIT_EXPECT_EQ(test, rdmalock_domain_check(&req, attr), 0);
	req.flags = 0;
	req.key_len = RDMALOCK_KEY_MAX;
	req.key = 0x1000;
	KUNIT_EXPECT_EQ(test, rdmalock_domain_check(&req, attr), 0);
	/* Named locks, with membership recovery, and room for their values. */
	req.flags = RDMALOCK_DOMAIN_F_NAMED;
	KUNIT_EXPECT_EQ(test, rdmalock_domain_check(&req, attr), 0);
	KUNIT_EXPECT_EQ(test, attr->user_len,
			rdmalock_locks_len(100, RDMALOCK_DEFAULT_DESCRIPTORS, false) +
			100 * RDMALOCK_VALUE_SIZE);
}

/* One bad field at a time; the name of the case says which. */
struct bad_case {
	const char *what;
	void (*spoil)(struct rdmalock_domain_create *req);
};

#define BAD(name, stmt) \
	static void spoil_##name(struct rdmalock_domain_create *req) { stmt; }

BAD(flags, req->flags = 8)
BAD(descriptors_not_a_step, req->descriptors = RDMALOCK_DESCRIPTORS_STEP + 1)
BAD(too_many_descriptors, req->descriptors = RDMALOCK_MAX_DESCRIPTORS +
					     RDMALOCK_DESCRIPTORS_STEP)
/* Four ShiftLock nodes of 8192 descriptors: 32768 TailIds and readers. */
BAD(descriptors_past_shiftlock_word, {
	req->algo = RDMALOCK_ALGO_SHIFTLOCK;
	req->num_nodes = 4;
	req->nodes[3] = req->nodes[2];
	req->nodes[3].addr[3] = 4;
	req->descriptors = RDMALOCK_MAX_DESCRIPTORS;
})
BAD(no_key, { req->key_len = 0; req->key = 0; })
BAD(key_too_short, req->key_len = RDMALOCK_KEY_MIN - 1)
BAD(key_too_long, req->key_len = RDMALOCK_KEY_MAX + 1)
BAD(insecure_with_key, req->flags = RDMALOCK_DOMAIN_F_INSECURE)
BAD(insecure_with_key_address, { req->flags = RDMALOCK_DOMAIN_F_INSECURE;
				  req->key_len = 0; })
BAD(empty_name, req->name[0] = '\0')
BAD(unterminated_name, memset(req->name, 'a', sizeof(req->name)))
BAD(name_with_slash, req->name[1] = '/')
BAD(name_with_space, req->name[1] = ' ')
BAD(name_padding_not_zero, req->name[RDMALOCK_NAME_MAX - 1] = 'x')
BAD(zero_nodes, req->num_nodes = 0)
BAD(too_many_nodes, req->num_nodes = RDMALOCK_MAX_NODES + 1)
BAD(node_id_out_of_range, req->node_id = 3)
BAD(algo_zero, req->algo = 0)
BAD(algo_unknown, req->algo = RDMALOCK_ALGO_DSLR + 1)
BAD(no_locks, req->locks_per_node = 0)
BAD(too_many_locks, req->locks_per_node = RDMALOCK_MAX_LOCKS_PER_NODE + 1)
BAD(atomics_unknown, req->atomics = RDMALOCK_ATOMICS_EMULATED + 1)
BAD(bad_family, req->nodes[1].family = AF_UNIX)
BAD(addr_pad, req->nodes[1].pad = 1)
BAD(ipv4_trailing_bytes, req->nodes[1].addr[4] = 1)
BAD(ipv4_any, memset(req->nodes[1].addr, 0, 4))
BAD(ipv4_multicast, req->nodes[1].addr[0] = 224)
BAD(ipv4_broadcast, memset(req->nodes[1].addr, 0xff, 4))
BAD(duplicate_address, req->nodes[2] = req->nodes[0])
BAD(address_beyond_count, req->nodes[5].family = AF_INET)
BAD(budget_too_big, req->budget_remote = RDMALOCK_ALOCK_BUDGET_MAX + 1)
BAD(budget_not_alock, { req->algo = RDMALOCK_ALGO_CAS; req->budget_local = 3; })
BAD(lease_not_shiftlock_or_dslr, req->lease_ms = 100)
BAD(dslr_lease_without_lease_recovery, { req->algo = RDMALOCK_ALGO_DSLR;
					 req->lease_ms = 100; })
BAD(writer_batch_not_shiftlock, req->writer_batch = 4)
BAD(lease_too_long, { req->algo = RDMALOCK_ALGO_SHIFTLOCK;
		      req->lease_ms = RDMALOCK_LEASE_MS_MAX + 1; })
BAD(writer_batch_too_big, { req->algo = RDMALOCK_ALGO_SHIFTLOCK;
			    req->writer_batch = RDMALOCK_SHIFTLOCK_WRITERS_MAX + 1; })
BAD(writer_cas_not_shiftlock, req->writer_cas = 2)
BAD(writer_cas_too_big, { req->algo = RDMALOCK_ALGO_SHIFTLOCK;
			  req->writer_cas = RDMALOCK_SHIFTLOCK_WRITER_CAS_MAX + 1; })
/* The module is not loaded with allow_broken=1 under KUnit. */
BAD(broken_lock_not_allowed, req->algo = RDMALOCK_ALGO_TEST_MIXED)
BAD(lease_recovery_not_shiftlock_or_dslr, {
	req->flags |= RDMALOCK_DOMAIN_F_LEASE_RECOVERY; })
BAD(named_with_lease_recovery, { req->algo = RDMALOCK_ALGO_SHIFTLOCK;
				 req->flags |= RDMALOCK_DOMAIN_F_LEASE_RECOVERY |
					       RDMALOCK_DOMAIN_F_NAMED; })

#define CASE(name) { #name, spoil_##name }

static const struct bad_case bad_cases[] = {
	CASE(flags), CASE(descriptors_not_a_step), CASE(too_many_descriptors),
	CASE(descriptors_past_shiftlock_word), CASE(no_key), CASE(key_too_short),
	CASE(key_too_long), CASE(insecure_with_key),
	CASE(insecure_with_key_address), CASE(empty_name),
	CASE(unterminated_name), CASE(name_with_slash), CASE(name_with_space),
	CASE(name_padding_not_zero),
	CASE(zero_nodes), CASE(too_many_nodes), CASE(node_id_out_of_range),
	CASE(algo_zero), CASE(algo_unknown), CASE(no_locks),
	CASE(too_many_locks), CASE(atomics_unknown), CASE(bad_family),
	CASE(addr_pad),
	CASE(ipv4_trailing_bytes), CASE(ipv4_any), CASE(ipv4_multicast),
	CASE(ipv4_broadcast), CASE(duplicate_address),
	CASE(address_beyond_count), CASE(budget_too_big), CASE(budget_not_alock),
	CASE(lease_not_shiftlock_or_dslr), CASE(dslr_lease_without_lease_recovery),
	CASE(writer_batch_not_shiftlock),
	CASE(lease_too_long), CASE(writer_batch_too_big),
	CASE(writer_cas_not_shiftlock), CASE(writer_cas_too_big),
	CASE(broken_lock_not_allowed), CASE(lease_recovery_not_shiftlock_or_dslr),
	CASE(named_with_lease_recovery),
};

static void bad_requests_are_einval(struct kunit *test)
{
	struct rdmalock_fabric_attr *attr = attr_for(test);
	struct rdmalock_domain_create req;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		fill_valid(&req);
		bad_cases[i].spoil(&req);
		KUNIT_EXPECT_EQ_MSG(test, rdmalock_domain_check(&req, attr),
				    -EINVAL, "%s", bad_cases[i].what);
	}
}

#define PARAM(name, stmt) \
	static void set_##name(struct rdmalock_ls_params *p) { stmt; }

PARAM(budget_local, p->budget_local = 3)
PARAM(budget_remote, p->budget_remote = 3)
PARAM(lease_ms, { p->lease_ms = 100; p->lease_recovery = true; })
PARAM(writer_batch, p->writer_batch = 4)
PARAM(writer_cas, p->writer_cas = 2)
PARAM(lease_recovery, p->lease_recovery = true)

/* A parameter, valid for the algorithms that own it, and why others refuse it. */
struct algo_param {
	const char *what;
	void (*set)(struct rdmalock_ls_params *p);
	u32 owner;
	u32 other_owner;
	const char *why;
};

static const struct algo_param algo_params[] = {
	{ "budget_local", set_budget_local, RDMALOCK_ALGO_ALOCK,
	  RDMALOCK_ALGO_ALOCK, "budgets are for alock" },
	{ "budget_remote", set_budget_remote, RDMALOCK_ALGO_ALOCK,
	  RDMALOCK_ALGO_ALOCK, "budgets are for alock" },
	{ "lease_ms", set_lease_ms, RDMALOCK_ALGO_SHIFTLOCK, RDMALOCK_ALGO_DSLR,
	  "lease and lease recovery are for shiftlock and dslr" },
	{ "writer_batch", set_writer_batch, RDMALOCK_ALGO_SHIFTLOCK,
	  RDMALOCK_ALGO_SHIFTLOCK, "writer batch and writer CAS are for shiftlock" },
	{ "writer_cas", set_writer_cas, RDMALOCK_ALGO_SHIFTLOCK,
	  RDMALOCK_ALGO_SHIFTLOCK, "writer batch and writer CAS are for shiftlock" },
	{ "lease_recovery", set_lease_recovery, RDMALOCK_ALGO_SHIFTLOCK,
	  RDMALOCK_ALGO_DSLR, "lease and lease recovery are for shiftlock and dslr" },
};

/* Every algorithm, those without parameters of their own too. */
static const u32 all_algos[] = {
	RDMALOCK_ALGO_ALOCK, RDMALOCK_ALGO_CAS, RDMALOCK_ALGO_MCS,
	RDMALOCK_ALGO_SHIFTLOCK, RDMALOCK_ALGO_DSLR, RDMALOCK_ALGO_TEST_NONE,
	RDMALOCK_ALGO_TEST_MIXED,
};

/*
 * Each algorithm's parameter is accepted for a domain of that algorithm
 * and refused for any other, with the reason the log has always given.
 */
static void each_algo_refuses_the_others_params(struct kunit *test)
{
	const struct algo_param *ap;
	struct rdmalock_ls_params p;
	const char *why;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(algo_params); i++) {
		ap = &algo_params[i];
		for (j = 0; j < ARRAY_SIZE(all_algos); j++) {
			p = (struct rdmalock_ls_params){
				.algo = all_algos[j],
				.locks_per_node = 1,
			};
			ap->set(&p);
			why = rdmalock_algo_check_params(&p);
			if (all_algos[j] == ap->owner || all_algos[j] == ap->other_owner)
				KUNIT_EXPECT_NULL_MSG(test, why, "%s for algorithm %u",
						      ap->what, all_algos[j]);
			else
				KUNIT_EXPECT_STREQ_MSG(test, why ?: "(accepted)", ap->why,
						       "%s for algorithm %u", ap->what,
						       all_algos[j]);
		}
	}
}

static struct kunit_case rdmalock_domain_cases[] = {
	KUNIT_CASE(valid_request_becomes_attributes),
	KUNIT_CASE(bad_requests_are_einval),
	KUNIT_CASE(each_algo_refuses_the_others_params),
	{}
};

static struct kunit_suite rdmalock_domain_suite = {
	.name = "rdmalock_domain",
	.test_cases = rdmalock_domain_cases,
};

kunit_test_suite(rdmalock_domain_suite);

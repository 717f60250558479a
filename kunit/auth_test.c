// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the proofs of the connection handshake (kmod/fabric-auth.c).
 * The expected proofs were computed apart from the kernel, with Python's
 * hmac module on the same inputs:
 *
 *   key = bytes(range(1, 33)); name = b"test-domain"
 *   nreq = bytes(0xa0 + i for i in range(16))
 *   nacc = bytes(0xb0 + i for i in range(16))
 *   msg = label + b"\0" + bytes([len(name)]) + name +
 *         struct.pack(">HH", 1, 2) + nreq + nacc
 *   hmac.new(key, msg, hashlib.sha256).digest()
 *
 * with label b"rdmalock-v2 acceptor" and b"rdmalock-v2 requester".
 */
#include <crypto/hash.h>
#include <kunit/test.h>
#include <linux/string.h>

#include "fabric-pri.h"

#define REQ_NODE	1
#define ACC_NODE	2

static const char name[RDMALOCK_NAME_MAX] = "test-domain";

static const u8 acceptor_proof[RDMALOCK_PROOF_LEN] = {
	0x83, 0xe1, 0xe2, 0xd6, 0x06, 0x3b, 0xa8, 0x5b, 0xfb, 0xf3, 0xf4,
	0x75, 0x5e, 0x61, 0x07, 0x7a, 0x8b, 0x09, 0x06, 0xac, 0x6a, 0xda,
	0x8d, 0x1e, 0x0c, 0x76, 0xe4, 0xc4, 0x86, 0x98, 0x93, 0xc1,
};

static const u8 requester_proof[RDMALOCK_PROOF_LEN] = {
	0xb4, 0x70, 0xe0, 0xe5, 0x31, 0xad, 0xd9, 0xa7, 0xcc, 0xb8, 0xd9,
	0xe5, 0xf8, 0x10, 0x50, 0xb1, 0x9f, 0x74, 0x35, 0x3e, 0x3d, 0x9a,
	0x26, 0x4e, 0xdc, 0x34, 0x1c, 0x5a, 0xe4, 0xfb, 0x7e, 0xb4,
};

struct auth_fixture {
	struct crypto_shash *tfm;
	u8 nonce_req[RDMALOCK_NONCE_LEN];
	u8 nonce_acc[RDMALOCK_NONCE_LEN];
};

static struct crypto_shash *keyed_tfm(struct kunit *test, u8 first)
{
	struct crypto_shash *tfm;
	u8 key[32];
	size_t i;

	for (i = 0; i < sizeof(key); i++)
		key[i] = first + i;
	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(tfm));
	KUNIT_ASSERT_EQ(test, crypto_shash_setkey(tfm, key, sizeof(key)), 0);
	return tfm;
}

static int auth_init(struct kunit *test)
{
	struct auth_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	for (i = 0; i < RDMALOCK_NONCE_LEN; i++) {
		f->nonce_req[i] = 0xa0 + i;
		f->nonce_acc[i] = 0xb0 + i;
	}
	f->tfm = keyed_tfm(test, 1);
	test->priv = f;
	return 0;
}

static void auth_exit(struct kunit *test)
{
	struct auth_fixture *f = test->priv;

	crypto_free_shash(f->tfm);
}

/* Does @proof pass as @requester's, for the fixture's pair and nonces? */
static bool ok(struct auth_fixture *f, struct crypto_shash *tfm, bool requester,
	       const u8 *proof)
{
	return rdmalock_auth_proof_ok(tfm, requester, name, REQ_NODE, ACC_NODE,
				      f->nonce_req, f->nonce_acc, proof);
}

static void proofs_match_the_fixed_vectors(struct kunit *test)
{
	struct auth_fixture *f = test->priv;
	u8 proof[RDMALOCK_PROOF_LEN];

	KUNIT_ASSERT_EQ(test, rdmalock_auth_proof(f->tfm, false, name, REQ_NODE,
						  ACC_NODE, f->nonce_req,
						  f->nonce_acc, proof), 0);
	KUNIT_EXPECT_MEMEQ(test, proof, acceptor_proof, sizeof(proof));
	KUNIT_ASSERT_EQ(test, rdmalock_auth_proof(f->tfm, true, name, REQ_NODE,
						  ACC_NODE, f->nonce_req,
						  f->nonce_acc, proof), 0);
	KUNIT_EXPECT_MEMEQ(test, proof, requester_proof, sizeof(proof));
	KUNIT_EXPECT_TRUE(test, ok(f, f->tfm, false, acceptor_proof));
	KUNIT_EXPECT_TRUE(test, ok(f, f->tfm, true, requester_proof));
}

static void a_wrong_key_is_rejected(struct kunit *test)
{
	struct auth_fixture *f = test->priv;
	struct crypto_shash *other = keyed_tfm(test, 2);
	u8 proof[RDMALOCK_PROOF_LEN];

	KUNIT_ASSERT_EQ(test, rdmalock_auth_proof(other, true, name, REQ_NODE,
						  ACC_NODE, f->nonce_req,
						  f->nonce_acc, proof), 0);
	KUNIT_EXPECT_FALSE(test, ok(f, f->tfm, true, proof));
	KUNIT_EXPECT_FALSE(test, ok(f, other, true, requester_proof));
	crypto_free_shash(other);
}

/* A proof made for other challenges cannot be replayed. */
static void a_swapped_or_changed_nonce_is_rejected(struct kunit *test)
{
	struct auth_fixture *f = test->priv;

	KUNIT_EXPECT_FALSE(test, rdmalock_auth_proof_ok(f->tfm, true, name,
							REQ_NODE, ACC_NODE,
							f->nonce_acc, f->nonce_req,
							requester_proof));
	f->nonce_acc[RDMALOCK_NONCE_LEN - 1] ^= 1;
	KUNIT_EXPECT_FALSE(test, ok(f, f->tfm, true, requester_proof));
	f->nonce_acc[RDMALOCK_NONCE_LEN - 1] ^= 1;
	f->nonce_req[0] ^= 0x80;
	KUNIT_EXPECT_FALSE(test, ok(f, f->tfm, false, acceptor_proof));
}

/* The acceptor's proof cannot be sent back as the requester's. */
static void a_reflected_proof_is_rejected(struct kunit *test)
{
	struct auth_fixture *f = test->priv;

	KUNIT_EXPECT_FALSE(test, ok(f, f->tfm, true, acceptor_proof));
	KUNIT_EXPECT_FALSE(test, ok(f, f->tfm, false, requester_proof));
	/* Nor a proof made by the same node in the other role. */
	KUNIT_EXPECT_FALSE(test, rdmalock_auth_proof_ok(f->tfm, true, name,
							ACC_NODE, REQ_NODE,
							f->nonce_req, f->nonce_acc,
							acceptor_proof));
}

static void a_wrong_node_or_domain_is_rejected(struct kunit *test)
{
	struct auth_fixture *f = test->priv;
	static const char other[RDMALOCK_NAME_MAX] = "test-domaiN";

	KUNIT_EXPECT_FALSE(test, rdmalock_auth_proof_ok(f->tfm, true, name,
							REQ_NODE + 2, ACC_NODE,
							f->nonce_req, f->nonce_acc,
							requester_proof));
	KUNIT_EXPECT_FALSE(test, rdmalock_auth_proof_ok(f->tfm, false, name,
							REQ_NODE, ACC_NODE + 1,
							f->nonce_req, f->nonce_acc,
							acceptor_proof));
	KUNIT_EXPECT_FALSE(test, rdmalock_auth_proof_ok(f->tfm, true, other,
							REQ_NODE, ACC_NODE,
							f->nonce_req, f->nonce_acc,
							requester_proof));
}

/* Every single flipped bit of a proof is noticed. */
static void a_changed_proof_is_rejected(struct kunit *test)
{
	struct auth_fixture *f = test->priv;
	u8 proof[RDMALOCK_PROOF_LEN];
	int bit;

	for (bit = 0; bit < RDMALOCK_PROOF_LEN * 8; bit++) {
		memcpy(proof, requester_proof, sizeof(proof));
		proof[bit / 8] ^= BIT(bit % 8);
		KUNIT_EXPECT_FALSE_MSG(test, ok(f, f->tfm, true, proof), "bit %d", bit);
	}
}

/*
 * A keyless domain's proofs are zeros, which a keyed node never takes:
 * it refuses the keyless hello first, and zeros are not its proof.
 */
static void keyless_proofs_are_zeros(struct kunit *test)
{
	struct auth_fixture *f = test->priv;
	u8 proof[RDMALOCK_PROOF_LEN];

	memset(proof, 0xff, sizeof(proof));
	KUNIT_ASSERT_EQ(test, rdmalock_auth_proof(NULL, true, name, REQ_NODE,
						  ACC_NODE, f->nonce_req,
						  f->nonce_acc, proof), 0);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(proof, 0, sizeof(proof)), NULL);
	KUNIT_EXPECT_FALSE(test, ok(f, f->tfm, true, proof));
}

static struct kunit_case rdmalock_auth_cases[] = {
	KUNIT_CASE(proofs_match_the_fixed_vectors),
	KUNIT_CASE(a_wrong_key_is_rejected),
	KUNIT_CASE(a_swapped_or_changed_nonce_is_rejected),
	KUNIT_CASE(a_reflected_proof_is_rejected),
	KUNIT_CASE(a_wrong_node_or_domain_is_rejected),
	KUNIT_CASE(a_changed_proof_is_rejected),
	KUNIT_CASE(keyless_proofs_are_zeros),
	{}
};

static struct kunit_suite rdmalock_auth_suite = {
	.name = "rdmalock_auth",
	.init = auth_init,
	.exit = auth_exit,
	.test_cases = rdmalock_auth_cases,
};

kunit_test_suite(rdmalock_auth_suite);

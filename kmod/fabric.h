/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock fabric: RC connections between the nodes of a domain, the
 * memory each node exposes to the others, and the verbs that reach it.
 *
 * A fabric knows nodes by index and memory by offset into a node's
 * region; it knows nothing of locks. Every verb is bounded: it returns
 * -ENOTCONN at once when the peer is not up, and -ETIMEDOUT (after which
 * the connection is torn down and re-established) when a completion does
 * not arrive in time, so no caller can wait forever.
 */
#ifndef RDMALOCK_FABRIC_H
#define RDMALOCK_FABRIC_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/dma-direction.h>
#include <linux/mm.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <linux/rdmalock.h>
#include <rdma/ib_verbs.h>

struct rdmalock_fabric;
struct rdmalock_conn;
struct rdmalock_verb_counters;

/*
 * Layout of the region every node registers and exposes:
 *
 *   0                      RDMALOCK_REGION_SCRATCH_LEN  scratch: test words
 *                                                       (0-63), probe words
 *                                                       (64 + 8 * node id)
 *   table_off              locks_per_node * 64          the lock table
 *   desc_off               RDMALOCK_DESC_COUNT * 64     queue descriptors
 *
 * Every part is 64-byte aligned, the whole is a multiple of PAGE_SIZE.
 */
#define RDMALOCK_SLOT_SIZE		64
#define RDMALOCK_REGION_SCRATCH_LEN	256
#define RDMALOCK_TEST_WORDS		8
#define RDMALOCK_PROBE_OFFSET		64
#define RDMALOCK_DESC_COUNT		1024

#define RDMALOCK_CM_MAGIC		0x52444c4b	/* "RDLK" */
#define RDMALOCK_CM_VERSION		2
/* &rdmalock_cm_pdata.flags: the sender's domain emulates atomics. */
#define RDMALOCK_CM_F_EMULATED		0x01
/* &rdmalock_cm_pdata.flags: the sender's domain has no key. */
#define RDMALOCK_CM_F_KEYLESS		0x02

#define RDMALOCK_NONCE_LEN		16
#define RDMALOCK_PROOF_LEN		32	/* HMAC-SHA256 */

/**
 * struct rdmalock_cm_pdata - private data of a connect request
 * @magic: %RDMALOCK_CM_MAGIC
 * @version: %RDMALOCK_CM_VERSION
 * @flags: RDMALOCK_CM_F_*
 * @node_id: the sender's index in the domain
 * @name_hash: jhash of the domain's name, seed 0, as in message headers
 * @region_len: the length of the sender's region, which must equal the
 *	receiver's
 * @nonce: fresh random bytes, the sender's challenge
 *
 * Who is speaking, for which domain, and its challenge; nothing secret,
 * and no address or key of memory, which go only to a peer that has
 * proved the domain key (Documentation/fabric.rst, "Handshake"). All
 * fields big-endian. At most 56 bytes fit in a request on the TCP port
 * space.
 */
struct rdmalock_cm_pdata {
	__be32 magic;
	u8 version;
	u8 flags;
	__be16 node_id;
	__be32 name_hash;
	__be32 region_len;
	u8 nonce[RDMALOCK_NONCE_LEN];
};

static_assert(sizeof(struct rdmalock_cm_pdata) == 32);

/**
 * struct rdmalock_cm_rep - private data of a connect reply
 * @pd: the acceptor's own, its challenge in @pd.nonce
 * @proof: the acceptor's proof of the key over both challenges
 *
 * At most 196 bytes fit in a reply.
 */
struct rdmalock_cm_rep {
	struct rdmalock_cm_pdata pd;
	u8 proof[RDMALOCK_PROOF_LEN];
};

static_assert(sizeof(struct rdmalock_cm_rep) <= 196);

/**
 * struct rdmalock_auth_msg - payload of an %RDMALOCK_MSG_AUTH message
 * @proof: the requester's proof of the key; zero from the acceptor
 * @region_addr: where the sender's region is, for RDMA
 * @region_rkey: its remote key
 * @region_len: its length, which must equal the receiver's
 *
 * The first message each way on a connection, and only that one. All
 * fields big-endian.
 */
struct rdmalock_auth_msg {
	u8 proof[RDMALOCK_PROOF_LEN];
	__be64 region_addr;
	__be32 region_rkey;
	__be32 region_len;
};

/**
 * struct rdmalock_fabric_attr - what a fabric is made of
 * @name: the domain's name; peers must present the same
 * @node_id: this node's index in @addrs
 * @num_nodes: nodes in the domain
 * @port: rdma_cm port every node listens on
 * @atomics: RDMALOCK_ATOMICS_*, as asked for
 * @locks_per_node: lock table slots in each region
 * @addrs: every node's address, port included
 */
struct rdmalock_fabric_attr {
	char name[RDMALOCK_NAME_MAX];
	u32 node_id;
	u32 num_nodes;
	u16 port;
	u16 atomics;
	u32 locks_per_node;
	struct sockaddr_storage addrs[RDMALOCK_MAX_NODES];
};

/*
 * Messages. Every connection has RDMALOCK_RECV_DEPTH receives posted, of
 * RDMALOCK_MSG_SIZE bytes each. A message is a header and a payload; the
 * receiver checks the header (struct rdmalock_msg_hdr) and hands the
 * payload to the handler registered for its type.
 */
#define RDMALOCK_MSG_MAGIC		0x524c		/* "RL" */
#define RDMALOCK_MSG_VERSION		1
#define RDMALOCK_MSG_SIZE		256
#define RDMALOCK_MSG_TYPES		32
#define RDMALOCK_MSG_HEARTBEAT		1
#define RDMALOCK_MSG_RMW_REQ		2	/* emulated atomics */
#define RDMALOCK_MSG_RMW_RESP		3
#define RDMALOCK_MSG_AUTH		4	/* the handshake's last step */
/* Types from here to RDMALOCK_MSG_TYPES - 1 are the lock algorithms'. */
#define RDMALOCK_MSG_FIRST_FREE		8

/**
 * struct rdmalock_msg_hdr - header of every message between nodes
 * @magic: %RDMALOCK_MSG_MAGIC
 * @version: %RDMALOCK_MSG_VERSION
 * @type: RDMALOCK_MSG_*, below %RDMALOCK_MSG_TYPES
 * @len: payload bytes after the header
 * @src_node: the sender's node id
 * @domain: hash of the domain's name (jhash, seed 0)
 * @seq: per connection and direction, from 0; RC delivers in order, so
 *	the receiver expects exactly the next one
 *
 * All fields big-endian.
 */
struct rdmalock_msg_hdr {
	__be16 magic;
	u8 version;
	u8 type;
	__be16 len;
	__be16 src_node;
	__be32 domain;
	__be32 seq;
};

static_assert(sizeof(struct rdmalock_msg_hdr) == 16);

#define RDMALOCK_MSG_MAX_PAYLOAD \
	(RDMALOCK_MSG_SIZE - sizeof(struct rdmalock_msg_hdr))

/*
 * A message handler runs in softirq context (or with bottom halves
 * disabled), in order per sending node, never two at once for one
 * connection, and only once that connection is up: what arrives before is
 * held until then. It must not sleep. @payload is valid only during the
 * call.
 */
typedef void rdmalock_msg_fn(struct rdmalock_fabric *fabric, u32 node,
			     const void *payload, u32 len, void *ctx);

struct rdmalock_msg_handler {
	rdmalock_msg_fn *fn;
	void *ctx;
};

int rdmalock_fabric_set_handler(struct rdmalock_fabric *fabric, u8 type,
				rdmalock_msg_fn *fn, void *ctx);

/*
 * Called when a peer's WRITE with immediate has placed its data in this
 * node's region; in the same context and order as the message handlers,
 * and with the messages from that node; must not sleep.
 */
typedef void rdmalock_imm_fn(struct rdmalock_fabric *fabric, u32 node,
			     u32 imm, void *ctx);

struct rdmalock_imm_handler {
	rdmalock_imm_fn *fn;
	void *ctx;
};

int rdmalock_fabric_set_imm_handler(struct rdmalock_fabric *fabric,
				    rdmalock_imm_fn *fn, void *ctx);
int rdmalock_fabric_send(struct rdmalock_fabric *fabric, u32 node, u8 type,
			 const void *payload, u32 len);

int rdmalock_fabric_create(const struct rdmalock_fabric_attr *attr,
			   const u8 *key, u32 key_len,
			   struct rdmalock_fabric **fabricp);
void rdmalock_fabric_destroy(struct rdmalock_fabric *fabric);
void rdmalock_fabric_remove_device(struct ib_device *device);

size_t rdmalock_fabric_region_len(const struct rdmalock_fabric *fabric);
void *rdmalock_fabric_local(struct rdmalock_fabric *fabric, u64 offset, u32 len);
bool rdmalock_fabric_node_up(struct rdmalock_fabric *fabric, u32 node);

/* Offsets, in every node's region, of the lock table and the descriptors. */
static inline u64 rdmalock_table_offset(u32 slot)
{
	return RDMALOCK_REGION_SCRATCH_LEN + (u64)slot * RDMALOCK_SLOT_SIZE;
}

static inline u64 rdmalock_desc_offset(u32 locks_per_node, u32 desc)
{
	return rdmalock_table_offset(locks_per_node) +
	       (u64)desc * RDMALOCK_SLOT_SIZE;
}

/* The whole region: scratch, lock table and descriptor pool. */
static inline size_t rdmalock_region_len(u32 locks_per_node)
{
	return PAGE_ALIGN(rdmalock_desc_offset(locks_per_node, RDMALOCK_DESC_COUNT));
}

bool rdmalock_fabric_emulated(const struct rdmalock_fabric *fabric);
bool rdmalock_fabric_keyed(const struct rdmalock_fabric *fabric);
void rdmalock_fabric_peer_status(struct rdmalock_fabric *fabric, u32 node,
				 struct rdmalock_peer_status *st);

int rdmalock_fabric_read(struct rdmalock_fabric *fabric, u32 node, u64 offset,
			 void *buf, u32 len);
int rdmalock_fabric_write(struct rdmalock_fabric *fabric, u32 node, u64 offset,
			  const void *buf, u32 len);
int rdmalock_fabric_write_imm(struct rdmalock_fabric *fabric, u32 node,
			      u64 offset, const void *buf, u32 len, u32 imm);
int rdmalock_fabric_cas(struct rdmalock_fabric *fabric, u32 node, u64 offset,
			u64 expected, u64 desired, u64 *old);
int rdmalock_fabric_check_range(u64 region_len, u64 offset, u64 len, u64 align);
const char *rdmalock_verb_name(unsigned int verb);

/* One RDMALOCK_VERB_CAS or _FAA on a fixed word; see rdmalock_atomics_check(). */
typedef int (*rdmalock_atomic_fn)(void *ctx, u8 verb, u64 compare_add,
				  u64 swap, u64 *old);

#if IS_ENABLED(CONFIG_KUNIT)
int rdmalock_rmw_execute(void *region, u64 region_len, u8 verb, u64 offset,
			 u64 compare_add, u64 swap, u64 *old);
int rdmalock_msg_check(const void *buf, u32 byte_len, u32 domain_hash,
		       u32 src_node, u32 seq, u8 *type, u32 *len);
int rdmalock_atomics_check(rdmalock_atomic_fn atomic, void *ctx);
bool rdmalock_rmw_status_valid(s32 status);
int rdmalock_heartbeat_check(unsigned int interval_ms,
			     unsigned int timeout_ms);
bool rdmalock_wc_invalidates(const struct ib_wc *wc, u32 rkey);
#endif
int rdmalock_atomics_decide(u32 mode, int probe, bool force, bool *emulated);

int rdmalock_fabric_faa(struct rdmalock_fabric *fabric, u32 node, u64 offset,
			u64 add, u64 *old);
int rdmalock_fabric_invalidate_peer(struct rdmalock_fabric *fabric, u32 node);

/**
 * struct rdmalock_fabric_op - an asynchronous one-sided verb
 * @done: called once, when the verb has completed or failed, in softirq
 *	context; must not sleep. The operation is the caller's again then.
 * @status: set before @done: 0, -ENOTCONN (flushed: the connection
 *	failed), or -EIO (completed in error)
 * @buf: the local buffer; DMA-able (kmalloc'ed, not on a stack)
 * @len: its length; atomics set it to 8 themselves
 * @cqe: private to the fabric
 * @conn: private to the fabric
 * @cnt: private to the fabric
 * @dma: private to the fabric
 * @dir: private to the fabric
 */
struct rdmalock_fabric_op {
	void (*done)(struct rdmalock_fabric_op *op);
	int status;
	void *buf;
	u32 len;
	struct ib_cqe cqe;
	struct rdmalock_conn *conn;
	struct rdmalock_verb_counters *cnt;
	u64 dma;
	enum dma_data_direction dir;
};

int rdmalock_fabric_read_async(struct rdmalock_fabric *fabric, u32 node,
			       u64 offset, struct rdmalock_fabric_op *op);
int rdmalock_fabric_write_async(struct rdmalock_fabric *fabric, u32 node,
				u64 offset, struct rdmalock_fabric_op *op);
int rdmalock_fabric_cas_async(struct rdmalock_fabric *fabric, u32 node,
			      u64 offset, u64 expected, u64 desired,
			      struct rdmalock_fabric_op *op);
int rdmalock_fabric_faa_async(struct rdmalock_fabric *fabric, u32 node,
			      u64 offset, u64 add, struct rdmalock_fabric_op *op);

#endif /* RDMALOCK_FABRIC_H */

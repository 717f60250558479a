/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock fabric: RC connections between the nodes of a domain, the
 * memory each node exposes to the others, and the verbs that reach it.
 * This header is the fabric's whole interface; everything else of it is
 * in the fabric-*.c files and fabric-pri.h.
 *
 * A fabric knows nodes by index and memory by offset into a node's
 * region; it knows nothing of locks. Its user gives it the size of its
 * part of the region and registers handlers for the message types it
 * picks, for writes with immediate, and for the loss of a node; the
 * fabric calls up only through those. Every verb is bounded: it returns -ENOTCONN at once when the
 * peer is not up, and -ETIMEDOUT (after which the connection is torn down
 * and re-established) when a completion does not arrive in time, so no
 * caller can wait forever.
 */
#ifndef RDMALOCK_FABRIC_H
#define RDMALOCK_FABRIC_H

#include <linux/socket.h>
#include <linux/types.h>
#include <linux/rdmalock.h>

struct dentry;
struct rdmalock_fabric;
struct rdmalock_fabric_op;

/*
 * The region every node registers and exposes: the fabric's own words
 * first (RDMALOCK_FABRIC_TEST_WORDS test words, then the atomics probe's),
 * then its user's part, &rdmalock_fabric_attr.user_len bytes from
 * RDMALOCK_FABRIC_USER_OFFSET, which the fabric never touches; the whole
 * rounded up to a multiple of PAGE_SIZE. Offsets passed to the verbs are
 * from the start of the region.
 */
#define RDMALOCK_FABRIC_TEST_WORDS	8
#define RDMALOCK_FABRIC_USER_OFFSET	256

/**
 * struct rdmalock_fabric_attr - what a fabric is made of
 * @name: the domain's name; peers must present the same
 * @node_id: this node's index in @addrs
 * @num_nodes: nodes in the domain
 * @port: rdma_cm port every node listens on
 * @atomics: RDMALOCK_ATOMICS_*, as asked for
 * @user_len: bytes of the region for the fabric's user, from
 *	%RDMALOCK_FABRIC_USER_OFFSET; every node's must be the same
 * @heartbeat_ms: period of the heartbeats to connected peers, 0 for none
 * @heartbeat_timeout_ms: a peer silent for this long is taken down
 * @emulate_atomics: with %RDMALOCK_ATOMICS_AUTO, emulate atomics even
 *	where native ones work, for testing
 * @addrs: every node's address, port included
 */
struct rdmalock_fabric_attr {
	char name[RDMALOCK_NAME_MAX];
	u32 node_id;
	u32 num_nodes;
	u16 port;
	u16 atomics;
	u32 user_len;
	u32 heartbeat_ms;
	u32 heartbeat_timeout_ms;
	bool emulate_atomics;
	struct sockaddr_storage addrs[RDMALOCK_MAX_NODES];
};

int rdmalock_fabric_create(const struct rdmalock_fabric_attr *attr,
			   const u8 *key, u32 key_len,
			   struct rdmalock_fabric **fabricp);
void rdmalock_fabric_destroy(struct rdmalock_fabric *fabric);

size_t rdmalock_fabric_region_len(const struct rdmalock_fabric *fabric);
void *rdmalock_fabric_local(struct rdmalock_fabric *fabric, u64 offset, u32 len);
bool rdmalock_fabric_node_up(struct rdmalock_fabric *fabric, u32 node);
void rdmalock_fabric_disconnect(struct rdmalock_fabric *fabric, u32 node);
bool rdmalock_fabric_emulated(const struct rdmalock_fabric *fabric);
bool rdmalock_fabric_keyed(const struct rdmalock_fabric *fabric);
void rdmalock_fabric_peer_status(struct rdmalock_fabric *fabric, u32 node,
				 struct rdmalock_peer_status *st);

/*
 * Messages: a header and at most RDMALOCK_MSG_MAX_PAYLOAD bytes of
 * payload, handed to the handler registered for the message's type. The
 * fabric's own types are below RDMALOCK_MSG_USER_FIRST; its user picks
 * its types from there to RDMALOCK_MSG_TYPES - 1, and the fabric knows
 * nothing of what they mean.
 */
#define RDMALOCK_MSG_TYPES		32
#define RDMALOCK_MSG_USER_FIRST		8
#define RDMALOCK_MSG_MAX_PAYLOAD	240

/*
 * A message handler runs in softirq context (or with bottom halves
 * disabled), in order per sending node, never two at once for one
 * connection, and only once that connection is ready (offered to users):
 * what arrives before is held until then. It must not sleep. @payload is valid only during the
 * call.
 */
typedef void rdmalock_msg_fn(struct rdmalock_fabric *fabric, u32 node,
			     u8 type, const void *payload, u32 len, void *ctx);

int rdmalock_fabric_set_handler(struct rdmalock_fabric *fabric, u8 type,
				rdmalock_msg_fn *fn, void *ctx);
int rdmalock_fabric_send(struct rdmalock_fabric *fabric, u32 node, u8 type,
			 const void *payload, u32 len);
int rdmalock_fabric_send_wait(struct rdmalock_fabric *fabric, u32 node, u8 type,
			      const void *payload, u32 len, u64 wait_ns);

/*
 * Called when a peer's WRITE with immediate has placed its data in this
 * node's region; in the same context and order as the message handlers,
 * and with the messages from that node; must not sleep.
 */
typedef void rdmalock_imm_fn(struct rdmalock_fabric *fabric, u32 node,
			     u32 imm, void *ctx);

int rdmalock_fabric_set_imm_handler(struct rdmalock_fabric *fabric,
				    rdmalock_imm_fn *fn, void *ctx);

/*
 * Called when a node is lost: the connection to it that was offered to
 * users has failed, and rdmalock_fabric_node_up() says so already. From
 * any context, interrupts disabled included; must not sleep.
 */
typedef void rdmalock_node_fn(struct rdmalock_fabric *fabric, u32 node,
			      void *ctx);

int rdmalock_fabric_set_lost_handler(struct rdmalock_fabric *fabric,
				     rdmalock_node_fn *fn, void *ctx);

/* One-sided verbs, synchronous: they sleep until the verb completes. */
int rdmalock_fabric_read(struct rdmalock_fabric *fabric, u32 node, u64 offset,
			 void *buf, u32 len);
int rdmalock_fabric_write(struct rdmalock_fabric *fabric, u32 node, u64 offset,
			  const void *buf, u32 len);
int rdmalock_fabric_write_imm(struct rdmalock_fabric *fabric, u32 node,
			      u64 offset, const void *buf, u32 len, u32 imm);
int rdmalock_fabric_cas(struct rdmalock_fabric *fabric, u32 node, u64 offset,
			u64 expected, u64 desired, u64 *old);
int rdmalock_fabric_faa(struct rdmalock_fabric *fabric, u32 node, u64 offset,
			u64 add, u64 *old);

/*
 * One-sided verbs, asynchronous, on an operation the fabric allocates:
 * @done is called once per started verb, in softirq context, with 0,
 * -ENOTCONN (flushed: the connection failed) or -EIO (completed in
 * error); it must not sleep. The operation's buffer is the verb's local
 * memory, DMA-able.
 */
typedef void rdmalock_op_done_fn(void *ctx, int status);

struct rdmalock_fabric_op *rdmalock_fabric_op_alloc(u32 len,
						    rdmalock_op_done_fn *done,
						    void *ctx);
void *rdmalock_fabric_op_buf(struct rdmalock_fabric_op *op);
void rdmalock_fabric_op_free(struct rdmalock_fabric_op *op);
int rdmalock_fabric_read_async(struct rdmalock_fabric *fabric, u32 node,
			       u64 offset, struct rdmalock_fabric_op *op);
int rdmalock_fabric_write_async(struct rdmalock_fabric *fabric, u32 node,
				u64 offset, struct rdmalock_fabric_op *op);
int rdmalock_fabric_cas_async(struct rdmalock_fabric *fabric, u32 node,
			      u64 offset, u64 expected, u64 desired,
			      struct rdmalock_fabric_op *op);
int rdmalock_fabric_faa_async(struct rdmalock_fabric *fabric, u32 node,
			      u64 offset, u64 add, struct rdmalock_fabric_op *op);

/* The hostile act of the fabric test: see rdmalock_fabric_invalidate_peer(). */
int rdmalock_fabric_invalidate_peer(struct rdmalock_fabric *fabric, u32 node);
const char *rdmalock_verb_name(unsigned int verb);

/* fabric-devices.c: the RDMA devices this module sees. */
int rdmalock_devices_init(void);
void rdmalock_devices_exit(void);
u32 rdmalock_devices_snapshot(struct rdmalock_device_info *info, u32 max);

/*
 * fabric-fault.c: fault injection's debugfs knobs, under @parent; built
 * only where the kernel has the framework's (see fabric-fault.h).
 */
#if IS_ENABLED(CONFIG_FAULT_INJECTION_DEBUG_FS)
void rdmalock_fault_init(struct dentry *parent);
void rdmalock_fault_exit(void);
#else
static inline void rdmalock_fault_init(struct dentry *parent)
{
}

static inline void rdmalock_fault_exit(void)
{
}
#endif

#endif /* RDMALOCK_FABRIC_H */

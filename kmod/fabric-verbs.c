// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock fabric: one-sided verbs (READ, WRITE, CAS, FAA) to any
 * (node, offset), synchronous and asynchronous.
 *
 * Every work request goes through rdmalock_conn_post_op(): it maps the
 * operation's buffer, posts under the connection's post_lock if the
 * connection is up, and arranges for rdmalock_op_done() to unmap, count
 * and call the operation's @done once the request completes or is
 * flushed. The asynchronous interface is that, on an operation the
 * fabric allocates, so that its layout stays the fabric's own.
 *
 * The synchronous verbs wait on the same path, bounded: if the completion
 * does not come in RDMALOCK_VERB_TIMEOUT_MS, the waiter fails the
 * connection, which moves its QP to the error state and so flushes every
 * outstanding request; the waiter's own completion is then certain to
 * come, and it waits for it before its buffers go. An asynchronous verb is
 * bounded the same way by whatever fails a dead connection: the RC retry
 * limit, or the heartbeat timeout.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "fabric-fault.h"
#include "fabric-pri.h"

#define RDMALOCK_VERB_TIMEOUT_MS	5000

static const char * const rdmalock_verb_names[RDMALOCK_VERB_MAX] = {
	[RDMALOCK_VERB_READ] = "read",
	[RDMALOCK_VERB_WRITE] = "write",
	[RDMALOCK_VERB_CAS] = "cas",
	[RDMALOCK_VERB_FAA] = "faa",
	[RDMALOCK_VERB_SEND] = "send",
	[RDMALOCK_VERB_RECV] = "recv",
	[RDMALOCK_VERB_WRITE_IMM] = "write_imm",
};

/**
 * rdmalock_verb_name() - the name of a counted verb, for logs and stats
 * @verb: RDMALOCK_VERB_*
 *
 * Return: its name, or "?" for a value out of range.
 */
const char *rdmalock_verb_name(unsigned int verb)
{
	return verb < RDMALOCK_VERB_MAX ? rdmalock_verb_names[verb] : "?";
}

/**
 * rdmalock_fabric_check_range() - may [@offset, @offset + @len) be accessed?
 * @region_len: length of the remote region
 * @offset: first byte
 * @len: bytes, at least 1
 * @align: required alignment of @offset (1, or 8 for atomics)
 *
 * Return: 0 or -EINVAL.
 */
int rdmalock_fabric_check_range(u64 region_len, u64 offset, u64 len, u64 align)
{
	if (!len || len > region_len || offset > region_len - len)
		return -EINVAL;
	if (!IS_ALIGNED(offset, align))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_fabric_check_range);

/**
 * rdmalock_conn_sq_get() - take a send queue entry, keeping one for drain
 * @conn: the connection; called under its post_lock
 *
 * Bounds what is posted, so the CQ, sized for a full send queue and the
 * receives, cannot overflow, and ib_drain_qp() finds room for its own.
 *
 * Return: false when the send queue is full.
 */
bool rdmalock_conn_sq_get(struct rdmalock_conn *conn)
{
	lockdep_assert_held(&conn->post_lock);
	if (atomic_read(&conn->sq_used) >= RDMALOCK_SQ_DEPTH - 1)
		return false;
	atomic_inc(&conn->sq_used);
	return true;
}

/**
 * rdmalock_conn_sq_put() - give back an entry once its send completed
 * @conn: the connection
 *
 * Context: any.
 */
void rdmalock_conn_sq_put(struct rdmalock_conn *conn)
{
	atomic_dec(&conn->sq_used);
}

/**
 * rdmalock_conn_post_send() - post on a connection if it is still up
 * @conn: the connection
 * @wr: the work request chain
 *
 * One signalled work request; its completion must call
 * rdmalock_conn_sq_put().
 *
 * Context: any.
 * Return: 0, -ENOTCONN, -ENOBUFS, or ib_post_send()'s error.
 */
int rdmalock_conn_post_send(struct rdmalock_conn *conn, const struct ib_send_wr *wr)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&conn->post_lock, flags);
	if (!rdmalock_conn_state_up(READ_ONCE(conn->state))) {
		ret = -ENOTCONN;
	} else if (!rdmalock_conn_sq_get(conn)) {
		ret = -ENOBUFS;
	} else {
		ret = ib_post_send(conn->cm_id->qp, wr, NULL);
		if (ret)
			rdmalock_conn_sq_put(conn);
	}
	spin_unlock_irqrestore(&conn->post_lock, flags);
	return ret;
}

/* A verb's completion; @cq is NULL when fault injection held it. */
static void rdmalock_op_complete(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdmalock_fabric_op *op = container_of(wc->wr_cqe,
						     struct rdmalock_fabric_op, cqe);
	struct rdmalock_conn *conn = op->conn;

	rdmalock_conn_sq_put(conn);
	if (op->len)
		ib_dma_unmap_single(conn->fabric->device, op->dma, op->len, op->dir);
	switch (wc->status) {
	case IB_WC_SUCCESS:
		op->status = 0;
		break;
	case IB_WC_WR_FLUSH_ERR:
	case IB_WC_RETRY_EXC_ERR:
	case IB_WC_RNR_RETRY_EXC_ERR:
		/* The connection failed, or the peer stopped answering. */
		rdmalock_conn_wc_failed(conn, wc);
		op->status = -ENOTCONN;
		break;
	default:
		pr_err_ratelimited("%s: %s\n", conn->fabric->attr.name,
				   ib_wc_status_msg(wc->status));
		rdmalock_conn_wc_failed(conn, wc);
		op->status = -EIO;
		break;
	}
	if (op->cnt) {
		if (op->status) {
			atomic64_inc(&op->cnt->failed);
		} else {
			atomic64_inc(&op->cnt->completed);
			atomic64_add(op->len, &op->cnt->bytes);
		}
	}
	op->conn = NULL;
	rdmalock_conn_put(conn);
	op->done(op);
}

static void rdmalock_op_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdmalock_fabric_op *op = container_of(wc->wr_cqe,
						     struct rdmalock_fabric_op, cqe);

	if (!rdmalock_fault_hold_wc(op->conn, wc, rdmalock_op_complete))
		rdmalock_op_complete(cq, wc);
}

/**
 * rdmalock_conn_post_op() - post a work request for an operation
 * @conn: the connection, held by the caller
 * @op: the operation; @op->done, @op->buf and @op->len are set
 * @wr: the work request, with opcode and remote fields set
 *
 * Maps @op->buf and posts @wr signalled. On success the operation holds a
 * reference to @conn until rdmalock_op_done() has called @op->done.
 *
 * Context: any.
 * Return: 0 when posted (@op->done will be called), else a negative errno
 * (it will not).
 */
int rdmalock_conn_post_op(struct rdmalock_conn *conn,
			  struct rdmalock_fabric_op *op, struct ib_send_wr *wr)
{
	struct ib_device *dev = conn->fabric->device;
	struct ib_sge sge;
	int ret;

	if (op->len) {
		op->dma = ib_dma_map_single(dev, op->buf, op->len, op->dir);
		ret = ib_dma_mapping_error(dev, op->dma);
		if (ret)
			return ret;
		sge.addr = op->dma;
		sge.length = op->len;
		sge.lkey = conn->fabric->pd->local_dma_lkey;
		wr->sg_list = &sge;
		wr->num_sge = 1;
	}
	op->cqe.done = rdmalock_op_done;
	wr->wr_cqe = &op->cqe;
	wr->send_flags |= IB_SEND_SIGNALED;
	op->conn = conn;
	kref_get(&conn->ref);
	if (op->cnt)
		atomic64_inc(&op->cnt->posted);

	ret = rdmalock_fault_verb_post(conn, wr) ?: rdmalock_conn_post_send(conn, wr);
	if (ret) {
		op->conn = NULL;
		rdmalock_conn_put(conn);
		if (op->len)
			ib_dma_unmap_single(dev, op->dma, op->len, op->dir);
		if (op->cnt)
			atomic64_inc(&op->cnt->failed);
		return ret == -ENOMEM ? -ENOBUFS : ret;
	}
	return 0;
}

void rdmalock_sync_done(struct rdmalock_fabric_op *op)
{
	complete(&container_of(op, struct rdmalock_sync_op, op)->done);
}

/**
 * rdmalock_conn_post_wait() - post a work request and wait, bounded
 * @conn: the connection, held by the caller
 * @sync: the operation, its buffer and length set
 * @wr: the work request
 *
 * When the completion does not come in time the peer is taken for gone:
 * the connection is failed, which flushes the request, and its status is
 * returned like any other: -ENOTCONN, or 0 if it completed meanwhile.
 *
 * Context: process context; sleeps.
 * Return: the operation's status, -ETIMEDOUT when the send queue stayed
 * full, or a posting error.
 */
int rdmalock_conn_post_wait(struct rdmalock_conn *conn,
			    struct rdmalock_sync_op *sync, struct ib_send_wr *wr)
{
	unsigned long timeout = msecs_to_jiffies(RDMALOCK_VERB_TIMEOUT_MS);
	struct rdmalock_fabric_op *op = &sync->op;
	int ret;

	init_completion(&sync->done);
	op->done = rdmalock_sync_done;
	if (down_timeout(&conn->sq_slots, timeout))
		return -ETIMEDOUT;
	ret = rdmalock_conn_post_op(conn, op, wr);
	if (!ret) {
		if (!wait_for_completion_timeout(&sync->done, timeout)) {
			rdmalock_conn_fail(conn, "verb timed out");
			wait_for_completion(&sync->done);
		}
		ret = op->status;
	}
	up(&conn->sq_slots);
	return ret;
}

/* Builds the work request of a verb; shared by both interfaces. */
struct rdmalock_verb_wr {
	union {
		struct ib_send_wr wr;
		struct ib_rdma_wr rdma;
		struct ib_atomic_wr atomic;
	};
	int verb;
	u64 *remote_addr;
	u32 *rkey;
	u64 align;
};

static void rdmalock_rdma_wr(struct rdmalock_verb_wr *v, enum ib_wr_opcode opcode,
			     struct rdmalock_fabric_op *op)
{
	memset(&v->rdma, 0, sizeof(v->rdma));
	v->rdma.wr.opcode = opcode;
	if (opcode == IB_WR_RDMA_READ)
		v->verb = RDMALOCK_VERB_READ;
	else if (opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		v->verb = RDMALOCK_VERB_WRITE_IMM;
	else
		v->verb = RDMALOCK_VERB_WRITE;
	v->remote_addr = &v->rdma.remote_addr;
	v->rkey = &v->rdma.rkey;
	v->align = 1;
	op->dir = opcode == IB_WR_RDMA_READ ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

static void rdmalock_atomic_wr(struct rdmalock_verb_wr *v, enum ib_wr_opcode opcode,
			       u64 compare_add, u64 swap,
			       struct rdmalock_fabric_op *op)
{
	memset(&v->atomic, 0, sizeof(v->atomic));
	v->atomic.wr.opcode = opcode;
	v->atomic.compare_add = compare_add;
	v->atomic.swap = swap;
	v->verb = opcode == IB_WR_ATOMIC_CMP_AND_SWP ? RDMALOCK_VERB_CAS :
						       RDMALOCK_VERB_FAA;
	v->remote_addr = &v->atomic.remote_addr;
	v->rkey = &v->atomic.rkey;
	v->align = sizeof(u64);
	op->len = sizeof(u64);
	op->dir = DMA_FROM_DEVICE;
}

/*
 * Aims @v at @offset of @conn's region after checking the range, and
 * counts the verb against the node the connection is with.
 */
static int rdmalock_conn_target(struct rdmalock_conn *conn, u32 node,
				struct rdmalock_verb_wr *v, u64 offset,
				struct rdmalock_fabric_op *op)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	int ret;

	op->cnt = &fabric->peers[node].verbs[v->verb];
	ret = rdmalock_fabric_check_range(conn->remote_len, offset, op->len, v->align);
	if (ret) {
		pr_err_ratelimited("%s: %s of %u bytes at node %u offset %llu is out of bounds or misaligned\n",
				   fabric->attr.name, rdmalock_verb_name(v->verb),
				   op->len, node, offset);
		atomic64_inc(&op->cnt->failed);
		return ret;
	}
	*v->remote_addr = conn->remote_addr + offset;
	*v->rkey = conn->remote_rkey;
	return 0;
}

/* The node's connection for a verb, or NULL after counting the failure. */
static struct rdmalock_conn *rdmalock_verb_conn(struct rdmalock_fabric *fabric,
						u32 node, int verb)
{
	struct rdmalock_conn *conn = rdmalock_peer_get_conn(&fabric->peers[node]);

	if (!conn)
		atomic64_inc(&fabric->peers[node].verbs[verb].failed);
	return conn;
}

static int rdmalock_verb_async(struct rdmalock_fabric *fabric, u32 node,
			       u64 offset, struct rdmalock_verb_wr *v,
			       struct rdmalock_fabric_op *op)
{
	struct rdmalock_conn *conn;
	int ret;

	if (node >= fabric->attr.num_nodes)
		return -EINVAL;
	conn = rdmalock_verb_conn(fabric, node, v->verb);
	if (!conn)
		return -ENOTCONN;
	ret = rdmalock_conn_target(conn, node, v, offset, op);
	if (!ret)
		ret = rdmalock_conn_post_op(conn, op, &v->wr);
	rdmalock_conn_put(conn);
	return ret;
}

/*
 * Synchronous verbs bounce through buffers of a pool: lock calls post
 * them on filesystems' writeback path, where an allocation must neither
 * fail nor enter a filesystem; the pool's reserve serves when the
 * allocator has nothing. Longer ones, which no lock path posts, are
 * allocated.
 */
#define RDMALOCK_BOUNCE_SIZE		128
#define RDMALOCK_BOUNCE_RESERVE		16

/**
 * rdmalock_verbs_init() - the bounce buffers of a new fabric
 * @fabric: the fabric
 *
 * Return: 0 or -ENOMEM.
 */
int rdmalock_verbs_init(struct rdmalock_fabric *fabric)
{
	fabric->bounce_pool = mempool_create_kmalloc_pool(RDMALOCK_BOUNCE_RESERVE,
							  RDMALOCK_BOUNCE_SIZE);
	return fabric->bounce_pool ? 0 : -ENOMEM;
}

/**
 * rdmalock_verbs_exit() - free them
 * @fabric: a fabric without connections, or one that never had any
 */
void rdmalock_verbs_exit(struct rdmalock_fabric *fabric)
{
	mempool_destroy(fabric->bounce_pool);
}

static void *rdmalock_bounce_alloc(struct rdmalock_fabric *fabric, u32 len)
{
	if (len <= RDMALOCK_BOUNCE_SIZE)
		return mempool_alloc(fabric->bounce_pool, GFP_NOIO);
	return kmalloc(len, GFP_NOIO);
}

static void rdmalock_bounce_free(struct rdmalock_fabric *fabric, void *buf,
				 u32 len)
{
	if (len <= RDMALOCK_BOUNCE_SIZE)
		mempool_free(buf, fabric->bounce_pool);
	else
		kfree(buf);
}

/*
 * The synchronous form on a given connection: through a bounce buffer,
 * since the caller's may be on its stack, which is not DMA-able.
 */
static int rdmalock_conn_verb_sync(struct rdmalock_conn *conn, u32 node,
				   u64 offset, struct rdmalock_verb_wr *v,
				   struct rdmalock_sync_op *sync, void *buf)
{
	struct rdmalock_fabric_op *op = &sync->op;
	int ret;

	ret = rdmalock_conn_target(conn, node, v, offset, op);
	if (ret)
		return ret;
	op->buf = rdmalock_fault_alloc(conn, node, v->verb, 0) ? NULL :
		  rdmalock_bounce_alloc(conn->fabric, op->len ?: 1);
	if (!op->buf) {
		atomic64_inc(&op->cnt->failed);
		return -ENOMEM;
	}
	if (op->dir == DMA_TO_DEVICE)
		memcpy(op->buf, buf, op->len);
	ret = rdmalock_conn_post_wait(conn, sync, &v->wr);
	if (!ret && op->dir == DMA_FROM_DEVICE)
		memcpy(buf, op->buf, op->len);
	rdmalock_bounce_free(conn->fabric, op->buf, op->len ?: 1);
	return ret;
}

static int rdmalock_verb_sync(struct rdmalock_fabric *fabric, u32 node,
			      u64 offset, struct rdmalock_verb_wr *v,
			      struct rdmalock_sync_op *sync, void *buf)
{
	struct rdmalock_conn *conn;
	int ret;

	if (node >= fabric->attr.num_nodes)
		return -EINVAL;
	conn = rdmalock_verb_conn(fabric, node, v->verb);
	if (!conn)
		return -ENOTCONN;
	ret = rdmalock_conn_verb_sync(conn, node, offset, v, sync, buf);
	rdmalock_conn_put(conn);
	return ret;
}

/**
 * rdmalock_conn_atomic() - a native RDMA atomic on a given connection
 * @conn: the connection, held by the caller; need not be offered to users
 * @node: the node it is with, for the counters
 * @offset: the word's offset in that node's region
 * @opcode: IB_WR_ATOMIC_CMP_AND_SWP or IB_WR_ATOMIC_FETCH_AND_ADD
 * @compare_add: the compare value, or the addend
 * @swap: the swap value
 * @old: set to the word's previous value
 *
 * For the atomics probe, which must test a connection before it is used.
 *
 * Context: process context; sleeps.
 * Return: as rdmalock_fabric_cas().
 */
int rdmalock_conn_atomic(struct rdmalock_conn *conn, u32 node, u64 offset,
			 enum ib_wr_opcode opcode, u64 compare_add, u64 swap,
			 u64 *old)
{
	struct rdmalock_sync_op sync = {};
	struct rdmalock_verb_wr v;

	rdmalock_atomic_wr(&v, opcode, compare_add, swap, &sync.op);
	return rdmalock_conn_verb_sync(conn, node, offset, &v, &sync, old);
}

/**
 * rdmalock_fabric_read() - RDMA READ from a node's region
 * @fabric: the domain's fabric
 * @node: node to read from (this node's own id reads through loopback)
 * @offset: byte offset in the node's region
 * @buf: destination, @len bytes; need not be DMA-able
 * @len: bytes to read, at least 1
 *
 * Context: process context; sleeps until the read completes, at most
 * RDMALOCK_VERB_TIMEOUT_MS (then the peer is taken for gone).
 * Return: 0; -EINVAL for a range outside the region; -ENOTCONN when
 * @node is not connected, stopped answering, or its connection failed
 * meanwhile; -ETIMEDOUT when the send queue stayed full; -EIO when the
 * read completed in error.
 */
int rdmalock_fabric_read(struct rdmalock_fabric *fabric, u32 node, u64 offset,
			 void *buf, u32 len)
{
	struct rdmalock_sync_op sync = { .op.len = len };
	struct rdmalock_verb_wr v;

	rdmalock_rdma_wr(&v, IB_WR_RDMA_READ, &sync.op);
	return rdmalock_verb_sync(fabric, node, offset, &v, &sync, buf);
}

/**
 * rdmalock_fabric_write() - RDMA WRITE to a node's region
 * @fabric: the domain's fabric
 * @node: node to write to
 * @offset: byte offset in the node's region
 * @buf: source, @len bytes; need not be DMA-able
 * @len: bytes to write, at least 1
 *
 * Context: process context; sleeps until the write completes, which on
 * RC means the target's NIC has the data.
 * Return: as rdmalock_fabric_read().
 */
int rdmalock_fabric_write(struct rdmalock_fabric *fabric, u32 node, u64 offset,
			  const void *buf, u32 len)
{
	struct rdmalock_sync_op sync = { .op.len = len };
	struct rdmalock_verb_wr v;

	rdmalock_rdma_wr(&v, IB_WR_RDMA_WRITE, &sync.op);
	return rdmalock_verb_sync(fabric, node, offset, &v, &sync, (void *)buf);
}

/**
 * rdmalock_fabric_write_imm() - RDMA WRITE with immediate to a node's region
 * @fabric: the domain's fabric
 * @node: node to write to; this node's own id goes through loopback
 * @offset: byte offset in the node's region
 * @buf: source, @len bytes; need not be DMA-able
 * @len: bytes to write, at least 1
 * @imm: 32 bits handed, once the data is in place, to the target's
 *	immediate handler (rdmalock_fabric_set_imm_handler())
 *
 * The target learns of the write from a completion that follows the
 * placement of the data, so it may trust every byte of it then, unlike
 * a word it polls while a plain WRITE lands.
 *
 * Context: process context; sleeps until the write completes.
 * Return: as rdmalock_fabric_read().
 */
int rdmalock_fabric_write_imm(struct rdmalock_fabric *fabric, u32 node,
			      u64 offset, const void *buf, u32 len, u32 imm)
{
	struct rdmalock_sync_op sync = { .op.len = len };
	struct rdmalock_verb_wr v;

	rdmalock_rdma_wr(&v, IB_WR_RDMA_WRITE_WITH_IMM, &sync.op);
	v.rdma.wr.ex.imm_data = cpu_to_be32(imm);
	return rdmalock_verb_sync(fabric, node, offset, &v, &sync, (void *)buf);
}

static int rdmalock_fabric_atomic(struct rdmalock_fabric *fabric, u32 node,
				  u64 offset, enum ib_wr_opcode opcode,
				  u64 compare_add, u64 swap, u64 *old)
{
	struct rdmalock_sync_op sync = {};
	struct rdmalock_verb_wr v;
	u64 result;
	int ret;

	rdmalock_atomic_wr(&v, opcode, compare_add, swap, &sync.op);
	if (fabric->emulated)
		ret = rdmalock_rmw_sync(fabric, node, offset, v.verb, compare_add,
					swap, &sync, &result);
	else
		ret = rdmalock_verb_sync(fabric, node, offset, &v, &sync, &result);
	if (!ret && old)
		*old = result;
	return ret;
}

/**
 * rdmalock_fabric_cas() - RDMA compare-and-swap on a word of a node
 * @fabric: the domain's fabric
 * @node: node whose word it is
 * @offset: byte offset of the 8-byte word, 8-byte aligned
 * @expected: value the word must hold for the swap to happen
 * @desired: value written if it does
 * @old: set to the word's value before the operation (equal to
 *	@expected if and only if the swap happened); may be NULL
 *
 * The operation is atomic only against other RMWs through the fabric on
 * the same word: never mix it with CPU atomics on that word. In a domain
 * with emulated atomics it is executed by the home node's CPU.
 *
 * Context: process context; sleeps until the CAS completes.
 * Return: as rdmalock_fabric_read(); a CAS that did not swap is success.
 */
int rdmalock_fabric_cas(struct rdmalock_fabric *fabric, u32 node, u64 offset,
			u64 expected, u64 desired, u64 *old)
{
	return rdmalock_fabric_atomic(fabric, node, offset,
				      IB_WR_ATOMIC_CMP_AND_SWP, expected,
				      desired, old);
}

/**
 * rdmalock_fabric_faa() - RDMA fetch-and-add on a word of a node
 * @fabric: the domain's fabric
 * @node: node whose word it is
 * @offset: byte offset of the 8-byte word, 8-byte aligned
 * @add: value added, modulo 2^64
 * @old: set to the word's value before the addition; may be NULL
 *
 * Atomic only against other RMWs through the fabric on the same word.
 *
 * Context: process context; sleeps until the FAA completes.
 * Return: as rdmalock_fabric_read().
 */
int rdmalock_fabric_faa(struct rdmalock_fabric *fabric, u32 node, u64 offset,
			u64 add, u64 *old)
{
	return rdmalock_fabric_atomic(fabric, node, offset,
				      IB_WR_ATOMIC_FETCH_AND_ADD, add, 0, old);
}

/**
 * rdmalock_fabric_invalidate_peer() - invalidate a peer's region, as an attacker would
 * @fabric: the domain's fabric
 * @node: a peer, not this node
 *
 * Sends @node an empty SEND_WITH_INVALIDATE naming the rkey it gave us,
 * which rxe obeys. For the fabric test only, which shows that the peer
 * notices, drops this node and registers its region again.
 *
 * Context: process context; sleeps until the send completes.
 * Return: 0 once the peer has received it; -EINVAL for this node or one
 * out of range; otherwise as rdmalock_fabric_read().
 */
int rdmalock_fabric_invalidate_peer(struct rdmalock_fabric *fabric, u32 node)
{
	struct rdmalock_sync_op sync = {};
	struct ib_send_wr wr = { .opcode = IB_WR_SEND_WITH_INV };
	struct rdmalock_conn *conn;
	int ret;

	if (node >= fabric->attr.num_nodes || node == fabric->attr.node_id)
		return -EINVAL;
	conn = rdmalock_peer_get_conn(&fabric->peers[node]);
	if (!conn)
		return -ENOTCONN;
	wr.ex.invalidate_rkey = conn->remote_rkey;
	ret = rdmalock_conn_post_wait(conn, &sync, &wr);
	rdmalock_conn_put(conn);
	return ret;
}

/* An allocated operation's completion: its user's callback. */
static void rdmalock_op_notify(struct rdmalock_fabric_op *op)
{
	op->notify(op->ctx, op->status);
}

/**
 * rdmalock_fabric_op_alloc() - an operation for the asynchronous verbs
 * @len: bytes of its buffer, at least 1; 8 for the atomics
 * @done: called with @ctx and the verb's status each time a verb started
 *	on it has completed or failed (see rdmalock_op_done_fn)
 * @ctx: passed to @done
 *
 * Its buffer, rdmalock_fabric_op_buf(), is zeroed and DMA-able. It may
 * be used for one verb at a time, again and again.
 *
 * Context: process context.
 * Return: the operation, or NULL when out of memory or @len is 0.
 */
struct rdmalock_fabric_op *rdmalock_fabric_op_alloc(u32 len,
						    rdmalock_op_done_fn *done,
						    void *ctx)
{
	struct rdmalock_fabric_op *op;

	if (!len)
		return NULL;
	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op)
		return NULL;
	op->buf = kzalloc(len, GFP_KERNEL);
	if (!op->buf) {
		kfree(op);
		return NULL;
	}
	op->size = len;
	op->done = rdmalock_op_notify;
	op->notify = done;
	op->ctx = ctx;
	return op;
}

/**
 * rdmalock_fabric_op_buf() - an operation's buffer
 * @op: from rdmalock_fabric_op_alloc()
 *
 * Return: the local memory its verbs read into or write from.
 */
void *rdmalock_fabric_op_buf(struct rdmalock_fabric_op *op)
{
	return op->buf;
}

/**
 * rdmalock_fabric_op_free() - free an operation and its buffer
 * @op: from rdmalock_fabric_op_alloc(), with no verb in flight; or NULL
 */
void rdmalock_fabric_op_free(struct rdmalock_fabric_op *op)
{
	if (!op)
		return;
	kfree(op->buf);
	kfree(op);
}

/**
 * rdmalock_fabric_read_async() - start an RDMA READ
 * @fabric: the domain's fabric
 * @node: node to read from
 * @offset: byte offset in the node's region
 * @op: from rdmalock_fabric_op_alloc(), no verb in flight on it; its
 *	buffer receives as many bytes as it has
 *
 * Context: any.
 * Return: 0 when started (@op's callback will be called), else -EINVAL,
 * -ENOTCONN or -ENOBUFS (it will not).
 */
int rdmalock_fabric_read_async(struct rdmalock_fabric *fabric, u32 node,
			       u64 offset, struct rdmalock_fabric_op *op)
{
	struct rdmalock_verb_wr v;

	op->len = op->size;
	rdmalock_rdma_wr(&v, IB_WR_RDMA_READ, op);
	return rdmalock_verb_async(fabric, node, offset, &v, op);
}

/**
 * rdmalock_fabric_write_async() - start an RDMA WRITE
 * @fabric: the domain's fabric
 * @node: node to write to
 * @offset: byte offset in the node's region
 * @op: as for rdmalock_fabric_read_async(); its whole buffer is written
 *
 * Context: any.
 * Return: as rdmalock_fabric_read_async().
 */
int rdmalock_fabric_write_async(struct rdmalock_fabric *fabric, u32 node,
				u64 offset, struct rdmalock_fabric_op *op)
{
	struct rdmalock_verb_wr v;

	op->len = op->size;
	rdmalock_rdma_wr(&v, IB_WR_RDMA_WRITE, op);
	return rdmalock_verb_async(fabric, node, offset, &v, op);
}

/**
 * rdmalock_fabric_cas_async() - start an RDMA compare-and-swap
 * @fabric: the domain's fabric
 * @node: node whose word it is
 * @offset: byte offset of the word, 8-byte aligned
 * @expected: value the word must hold for the swap to happen
 * @desired: value written if it does
 * @op: as for rdmalock_fabric_read_async(), of at least 8 bytes; its
 *	buffer's first 8 receive the old value
 *
 * Context: any.
 * Return: as rdmalock_fabric_read_async().
 */
int rdmalock_fabric_cas_async(struct rdmalock_fabric *fabric, u32 node,
			      u64 offset, u64 expected, u64 desired,
			      struct rdmalock_fabric_op *op)
{
	struct rdmalock_verb_wr v;

	if (op->size < sizeof(u64))
		return -EINVAL;
	rdmalock_atomic_wr(&v, IB_WR_ATOMIC_CMP_AND_SWP, expected, desired, op);
	if (fabric->emulated)
		return rdmalock_rmw_async(fabric, node, offset, v.verb, expected,
					  desired, op);
	return rdmalock_verb_async(fabric, node, offset, &v, op);
}

/**
 * rdmalock_fabric_faa_async() - start an RDMA fetch-and-add
 * @fabric: the domain's fabric
 * @node: node whose word it is
 * @offset: byte offset of the word, 8-byte aligned
 * @add: value added
 * @op: as for rdmalock_fabric_cas_async()
 *
 * Context: any.
 * Return: as rdmalock_fabric_read_async().
 */
int rdmalock_fabric_faa_async(struct rdmalock_fabric *fabric, u32 node,
			      u64 offset, u64 add, struct rdmalock_fabric_op *op)
{
	struct rdmalock_verb_wr v;

	if (op->size < sizeof(u64))
		return -EINVAL;
	rdmalock_atomic_wr(&v, IB_WR_ATOMIC_FETCH_AND_ADD, add, 0, op);
	if (fabric->emulated)
		return rdmalock_rmw_async(fabric, node, offset, v.verb, add, 0, op);
	return rdmalock_verb_async(fabric, node, offset, &v, op);
}

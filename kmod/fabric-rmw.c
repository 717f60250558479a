// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock fabric: the atomics probe, and emulated atomics.
 *
 * A device may claim atomics and still refuse them from kernel QPs (mlx5
 * does), so the fabric tries them for real. A domain's atomics are either
 * native (the NICs execute every CAS and FAA) or emulated (the home
 * node's CPU does), for every node and every word, decided when the
 * domain is created and never changed while it lives: RDMA atomics are
 * not atomic with CPU atomics, so a word must never see both.
 *
 * Native: in "auto" mode a node probes its own loopback before it accepts
 * peers; if that fails it emulates instead. Every connection to a peer is
 * probed before it is offered to users; one that fails the probe is taken
 * down. Emulated: a CAS or FAA becomes an RMW_REQ message to the home node,
 * whose message handler executes it with a CPU atomic on its region and
 * answers with RMW_RESP on the connection the request came on; requests to
 * this node go through the loopback too, so their completion comes as a
 * callback like any other. A request waits in the table of the connection
 * it went out on until its answer comes back on that connection, or that
 * connection is torn down, or a synchronous request gives up waiting,
 * which fails that connection and no other (-ENOTCONN: the outcome is
 * then unknown, as it is for a native atomic whose completion was lost).
 * Whoever takes a request out of the table, under its lock, completes
 * it. An answer may only carry the statuses a native atomic can end
 * with, 0, -ENOTCONN or -EIO; anything else, an answer to an id this
 * connection never issued, or a request for a word outside the region,
 * is a protocol error that fails the connection. An answer to a request
 * given up already is late, and dropped. A domain with native atomics
 * takes every RMW message for one.
 *
 * The probe uses a word of its own per probing node (RDMALOCK_PROBE_OFFSET
 * + 8 * node id), which nothing else modifies.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/xarray.h>

#include "fabric-pri.h"

#define RDMALOCK_RMW_TIMEOUT_MS		5000

/**
 * rdmalock_rmw_execute() - execute an emulated atomic on this node's region
 * @region: the region
 * @region_len: its length
 * @verb: RDMALOCK_VERB_CAS or RDMALOCK_VERB_FAA
 * @offset: the word's offset, 8-byte aligned
 * @compare_add: the compare value (CAS) or the addend (FAA)
 * @swap: the value a CAS writes
 * @old: set to the word's previous value
 *
 * Gives the results an RDMA CAS or FAA on the word would give.
 *
 * Context: any.
 * Return: 0, or -EINVAL for a bad verb or range.
 */
VISIBLE_IF_KUNIT int rdmalock_rmw_execute(void *region, u64 region_len, u8 verb,
					  u64 offset, u64 compare_add, u64 swap,
					  u64 *old)
{
	atomic64_t *word;

	if (rdmalock_fabric_check_range(region_len, offset, sizeof(u64), sizeof(u64)))
		return -EINVAL;
	word = region + offset;
	switch (verb) {
	case RDMALOCK_VERB_CAS:
		*old = atomic64_cmpxchg(word, compare_add, swap);
		return 0;
	case RDMALOCK_VERB_FAA:
		*old = atomic64_fetch_add(compare_add, word);
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_rmw_execute);

/**
 * rdmalock_rmw_add() - put a request in its connection's table
 * @conn: the connection it goes out on
 * @op: the request
 * @id: set to its id on @conn
 *
 * The table is used from any context, interrupts disabled included, so
 * always with the irqsave lock: xa_*_irq() would enable them again.
 *
 * Context: any.
 * Return: 0, or -ENOMEM.
 */
VISIBLE_IF_KUNIT int rdmalock_rmw_add(struct rdmalock_conn *conn,
				      struct rdmalock_fabric_op *op, u32 *id)
{
	unsigned long flags;
	int ret;

	/* Ids go round, so a late answer cannot match a new request. */
	xa_lock_irqsave(&conn->rmw_pending, flags);
	ret = __xa_alloc_cyclic(&conn->rmw_pending, id, op, xa_limit_32b,
				&conn->rmw_next, GFP_ATOMIC);
	/* The allocator sets rmw_next to the id + 1: 0 after U32_MAX. */
	if (ret >= 0 && !conn->rmw_next)
		conn->rmw_wrapped = true;
	xa_unlock_irqrestore(&conn->rmw_pending, flags);
	return ret < 0 ? ret : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_rmw_add);

/*
 * Takes out the request an answer names. NULL when none waits under @id:
 * @late then tells a request that this connection did send and that was
 * given up meanwhile (its connection's teardown, its timeout) from an id
 * never issued here. Until they go round, ids are issued in order from 0,
 * so those below rmw_next are the issued ones.
 */
static struct rdmalock_fabric_op *
rdmalock_rmw_take_answered(struct rdmalock_conn *conn, u32 id, bool *late)
{
	struct rdmalock_fabric_op *op;
	unsigned long flags;

	xa_lock_irqsave(&conn->rmw_pending, flags);
	op = __xa_erase(&conn->rmw_pending, id);
	*late = !op && (conn->rmw_wrapped || id < conn->rmw_next);
	xa_unlock_irqrestore(&conn->rmw_pending, flags);
	return op;
}

/*
 * Whoever takes an entry out completes it: the answer, the teardown, or
 * the timeout.
 */
static struct rdmalock_fabric_op *rdmalock_rmw_take(struct rdmalock_conn *conn,
						    u32 id)
{
	bool late;

	return rdmalock_rmw_take_answered(conn, id, &late);
}

static void rdmalock_rmw_complete(struct rdmalock_fabric_op *op, int status,
				  u64 old)
{
	if (status) {
		atomic64_inc(&op->cnt->failed);
	} else {
		*(u64 *)op->buf = old;
		atomic64_inc(&op->cnt->completed);
		atomic64_add(sizeof(u64), &op->cnt->bytes);
	}
	op->status = status;
	op->done(op);
}

/*
 * Sends @op's request to @node. On success @op waits in the table of the
 * connection it went out on, *@connp, held for the caller, under *@id.
 * When @again, the caller tries again if there is no room or no memory,
 * and such an attempt counts as no verb.
 */
static int rdmalock_rmw_send(struct rdmalock_fabric *fabric, u32 node,
			     u64 offset, int verb, u64 compare_add, u64 swap,
			     struct rdmalock_fabric_op *op, bool again,
			     struct rdmalock_conn **connp, u32 *id)
{
	struct rdmalock_rmw_req req = {
		.verb = verb,
		.offset = cpu_to_be64(offset),
		.compare_add = cpu_to_be64(compare_add),
		.swap = cpu_to_be64(swap),
	};
	struct rdmalock_conn *conn;
	int ret;

	if (node >= fabric->attr.num_nodes)
		return -EINVAL;
	op->cnt = &fabric->peers[node].verbs[verb];
	atomic64_inc(&op->cnt->posted);
	conn = rdmalock_peer_get_conn(&fabric->peers[node]);
	if (!conn) {
		ret = -ENOTCONN;
		goto err;
	}
	/* The home node would take it for a protocol error. */
	ret = rdmalock_fabric_check_range(conn->remote_len, offset, sizeof(u64),
					  sizeof(u64));
	if (!ret)
		ret = rdmalock_rmw_add(conn, op, id);
	if (ret)
		goto err_put;
	req.id = cpu_to_be32(*id);
	/*
	 * Once sent, the answer may complete @op before this returns. A
	 * send that fails takes it back, unless the connection's teardown
	 * has taken it first and called @op->done.
	 */
	ret = rdmalock_msg_conn_send(conn, RDMALOCK_MSG_RMW_REQ, &req, sizeof(req),
				     again);
	if (ret && rdmalock_rmw_take(conn, *id) == op)
		goto err_put;
	*connp = conn;
	return 0;

err_put:
	rdmalock_conn_put(conn);
err:
	if (again && rdmalock_no_room(ret))
		atomic64_dec(&op->cnt->posted);
	else
		atomic64_inc(&op->cnt->failed);
	return ret;
}

/**
 * rdmalock_rmw_async() - start an emulated atomic
 * @fabric: a fabric with emulated atomics
 * @node: the home node of the word
 * @offset: the word's offset there
 * @verb: RDMALOCK_VERB_CAS or RDMALOCK_VERB_FAA
 * @compare_add: the compare value or the addend
 * @swap: the value a CAS writes
 * @op: as for rdmalock_fabric_cas_async()
 *
 * Context: any.
 * Return: 0 when started (@op->done will be called), else a negative
 * errno (it will not): -EINVAL for a bad node or a word outside its
 * region, -ENOTCONN, -ENOBUFS, -ENOMEM.
 */
int rdmalock_rmw_async(struct rdmalock_fabric *fabric, u32 node, u64 offset,
		       int verb, u64 compare_add, u64 swap,
		       struct rdmalock_fabric_op *op)
{
	struct rdmalock_conn *conn;
	u32 id;
	int ret;

	ret = rdmalock_rmw_send(fabric, node, offset, verb, compare_add, swap,
				op, false, &conn, &id);
	if (!ret)
		rdmalock_conn_put(conn);
	return ret;
}

/**
 * rdmalock_rmw_timeout() - give up waiting for a request's answer
 * @conn: the connection the request went out on
 * @id: its id there
 *
 * Fails the request with -ENOTCONN, then @conn, which lost its answer:
 * @conn and no other. The node may be on a newer connection by now,
 * which has nothing to do with it. A request that its answer or @conn's
 * teardown has taken out already is theirs to complete, and then @conn
 * is either well or failed already: it is left alone.
 *
 * Context: any.
 */
VISIBLE_IF_KUNIT void rdmalock_rmw_timeout(struct rdmalock_conn *conn, u32 id)
{
	struct rdmalock_fabric_op *op;

	/* Taken first, so that a late answer finds it gone (and is late). */
	op = rdmalock_rmw_take(conn, id);
	if (!op)
		return;
	rdmalock_rmw_complete(op, -ENOTCONN, 0);
	rdmalock_conn_fail(conn, "emulated atomic timed out");
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_rmw_timeout);

/**
 * rdmalock_rmw_sync() - an emulated atomic, waited for
 * @fabric: a fabric with emulated atomics
 * @node: the home node of the word
 * @offset: the word's offset there
 * @verb: RDMALOCK_VERB_CAS or RDMALOCK_VERB_FAA
 * @compare_add: the compare value or the addend
 * @swap: the value a CAS writes
 * @sync: the operation to wait on
 * @old: set to the word's previous value
 *
 * Bounded like the native verbs: when the answer does not come in time,
 * the request fails with -ENOTCONN and the connection it went out on is
 * failed (rdmalock_rmw_timeout()), unless its answer came meanwhile.
 *
 * Context: process context; sleeps.
 * Return: as rdmalock_fabric_cas(); -ETIMEDOUT when the send queue stayed
 * full, or memory short, for as long.
 */
int rdmalock_rmw_sync(struct rdmalock_fabric *fabric, u32 node, u64 offset,
		      int verb, u64 compare_add, u64 swap,
		      struct rdmalock_sync_op *sync, u64 *old)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(RDMALOCK_RMW_TIMEOUT_MS);
	struct rdmalock_fabric_op *op = &sync->op;
	struct rdmalock_conn *conn;
	bool again;
	u32 id;
	int ret;

	init_completion(&sync->done);
	op->done = rdmalock_sync_done;
	op->buf = old;
	/*
	 * A full send queue drains as the peer acknowledges, and the message
	 * pool's reserve and the table's memory come back as requests
	 * complete: wait for them, rather than fail a lock's atomic. The
	 * last attempt is the one that counts.
	 */
	for (;;) {
		again = time_before(jiffies, deadline);
		ret = rdmalock_rmw_send(fabric, node, offset, verb, compare_add,
					swap, op, again, &conn, &id);
		if (!again || !rdmalock_no_room(ret))
			break;
		usleep_range(50, 200);
	}
	if (rdmalock_no_room(ret))
		return -ETIMEDOUT;
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&sync->done,
					 msecs_to_jiffies(RDMALOCK_RMW_TIMEOUT_MS))) {
		rdmalock_rmw_timeout(conn, id);
		/* Whoever took the request completes it. */
		wait_for_completion(&sync->done);
	}
	rdmalock_conn_put(conn);
	return op->status;
}

/**
 * rdmalock_rmw_conn_init() - prepare a new connection's table of requests
 * @conn: the connection
 */
void rdmalock_rmw_conn_init(struct rdmalock_conn *conn)
{
	xa_init_flags(&conn->rmw_pending, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_rmw_conn_init);

/**
 * rdmalock_rmw_fail_conn() - fail the requests sent on a connection
 * @conn: a failed connection whose QP is drained: no answer can come
 *
 * A request added later fails to be sent and is taken back by its
 * sender, so none is left behind.
 *
 * Context: any.
 */
void rdmalock_rmw_fail_conn(struct rdmalock_conn *conn)
{
	struct rdmalock_fabric_op *op;
	unsigned long id;

	xa_for_each(&conn->rmw_pending, id, op) {
		op = rdmalock_rmw_take(conn, id);
		if (op)
			rdmalock_rmw_complete(op, -ENOTCONN, 0);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_rmw_fail_conn);

/**
 * rdmalock_rmw_request() - execute a peer's emulated atomic
 * @fabric: a fabric with emulated atomics
 * @payload: the request
 * @len: its length
 * @answer: set to the answer to send back on the request's connection
 *
 * Context: the message handlers'.
 * Return: 0, or -EBADMSG for a malformed request (length, verb, or a word
 * outside the region, which a requester checks before it asks).
 */
int rdmalock_rmw_request(struct rdmalock_fabric *fabric, const void *payload,
			 u32 len, struct rdmalock_msg_answer *answer)
{
	const struct rdmalock_rmw_req *req = payload;
	struct rdmalock_rmw_resp resp = {};
	u64 old = 0;

	BUILD_BUG_ON(sizeof(resp) > sizeof(answer->payload));
	if (len != sizeof(*req) ||
	    rdmalock_rmw_execute(fabric->region, fabric->region_len, req->verb,
				 be64_to_cpu(req->offset),
				 be64_to_cpu(req->compare_add),
				 be64_to_cpu(req->swap), &old))
		return -EBADMSG;
	resp.id = req->id;
	resp.old = cpu_to_be64(old);
	answer->type = RDMALOCK_MSG_RMW_RESP;
	answer->len = sizeof(resp);
	memcpy(answer->payload, &resp, sizeof(resp));
	return 0;
}

/**
 * rdmalock_rmw_status_valid() - may a peer answer an RMW with this status?
 * @status: the status in its answer
 *
 * Only what a native atomic can end with (see struct rdmalock_fabric_op):
 * users are told nothing else.
 *
 * Return: true for 0, -ENOTCONN and -EIO.
 */
VISIBLE_IF_KUNIT bool rdmalock_rmw_status_valid(s32 status)
{
	return !status || status == -ENOTCONN || status == -EIO;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_rmw_status_valid);

/**
 * rdmalock_rmw_response() - complete a request with its answer
 * @conn: the connection the answer came on
 * @payload: the answer
 * @len: its length
 *
 * An answer to a request that @conn sent but gave up on (its timeout, or
 * the teardown, which may race with the last answers) is late, not
 * malformed: it is dropped.
 *
 * Context: the message handlers'.
 * Return: 0, or -EBADMSG for an answer that is malformed, to an id never
 * issued on @conn, or with a status no atomic has; a request it names is
 * then completed with -EIO.
 */
int rdmalock_rmw_response(struct rdmalock_conn *conn, const void *payload,
			  u32 len)
{
	const struct rdmalock_rmw_resp *resp = payload;
	struct rdmalock_fabric_op *op;
	s32 status;
	bool late;

	if (len != sizeof(*resp))
		return -EBADMSG;
	status = (s32)be32_to_cpu(resp->status);
	/* Looked up and taken out in one step: the teardown may race. */
	op = rdmalock_rmw_take_answered(conn, be32_to_cpu(resp->id), &late);
	if (!op)
		return late && rdmalock_rmw_status_valid(status) ? 0 : -EBADMSG;
	if (!rdmalock_rmw_status_valid(status)) {
		rdmalock_rmw_complete(op, -EIO, 0);
		return -EBADMSG;
	}
	rdmalock_rmw_complete(op, status, be64_to_cpu(resp->old));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_rmw_response);

/**
 * rdmalock_atomics_check() - the probe's sequence, on any executor
 * @atomic: executes one RDMALOCK_VERB_CAS or RDMALOCK_VERB_FAA on the
 *	probe word, with rdmalock_rmw_execute()'s arguments and results
 * @ctx: passed to @atomic
 *
 * Fetch-and-adds and compare-and-swaps, one of which must fail, each
 * result checked against what the previous ones imply. Whatever was in
 * the word before does not matter, so a node probing again after a
 * reconnect needs no reset.
 *
 * Context: as @atomic.
 * Return: 0 when every result is right, -EIO when one is wrong, or the
 * first error of @atomic (a device that refuses atomics fails to post).
 */
VISIBLE_IF_KUNIT int rdmalock_atomics_check(rdmalock_atomic_fn atomic, void *ctx)
{
	u64 o, old;
	int ret;

	ret = atomic(ctx, RDMALOCK_VERB_FAA, 1, 0, &o);
	if (ret)
		return ret;
	ret = atomic(ctx, RDMALOCK_VERB_CAS, o + 1, o + 2, &old);
	if (ret || old != o + 1)
		return ret ?: -EIO;
	ret = atomic(ctx, RDMALOCK_VERB_CAS, o, o + 5, &old);
	if (ret || old != o + 2)
		return ret ?: -EIO;
	ret = atomic(ctx, RDMALOCK_VERB_FAA, 0, 0, &old);
	if (ret || old != o + 2)
		return ret ?: -EIO;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_atomics_check);

/**
 * rdmalock_atomics_decide() - native or emulated atomics, for a domain
 * @mode: RDMALOCK_ATOMICS_AUTO, _NATIVE or _EMULATED, as asked
 * @probe: what rdmalock_atomics_check() gave on the loopback; ignored
 *	when @mode is RDMALOCK_ATOMICS_EMULATED, which needs no probe
 * @force: the emulate_atomics module parameter
 * @emulated: set to the decision
 *
 * Context: any.
 * Return: 0, or -EOPNOTSUPP when native atomics were asked for and the
 * probe failed.
 */
int rdmalock_atomics_decide(u32 mode, int probe, bool force, bool *emulated)
{
	switch (mode) {
	case RDMALOCK_ATOMICS_EMULATED:
		*emulated = true;
		return 0;
	case RDMALOCK_ATOMICS_NATIVE:
		*emulated = false;
		return probe ? -EOPNOTSUPP : 0;
	default:
		*emulated = probe || force;
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_atomics_decide);

struct rdmalock_probe_ctx {
	struct rdmalock_conn *conn;
	u32 node;
	u64 offset;
};

static int rdmalock_probe_atomic(void *ctx, u8 verb, u64 compare_add,
				 u64 swap, u64 *old)
{
	struct rdmalock_probe_ctx *p = ctx;

	return rdmalock_conn_atomic(p->conn, p->node, p->offset,
				    verb == RDMALOCK_VERB_CAS ?
				    IB_WR_ATOMIC_CMP_AND_SWP :
				    IB_WR_ATOMIC_FETCH_AND_ADD,
				    compare_add, swap, old);
}

/**
 * rdmalock_atomics_probe() - do native RDMA atomics work on a connection?
 * @conn: the connection, up, held by the caller
 * @node: the node it is with
 *
 * Runs rdmalock_atomics_check() with real RDMA atomics on this node's
 * probe word at @node.
 *
 * Context: process context; sleeps.
 * Return: as rdmalock_atomics_check().
 */
int rdmalock_atomics_probe(struct rdmalock_conn *conn, u32 node)
{
	struct rdmalock_probe_ctx p = {
		.conn = conn,
		.node = node,
		.offset = RDMALOCK_PROBE_OFFSET +
			  8 * (u64)conn->fabric->attr.node_id,
	};

	return rdmalock_atomics_check(rdmalock_probe_atomic, &p);
}

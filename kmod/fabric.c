// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock fabric: rdma_cm connections, registered memory and verbs.
 *
 * Connections. Every node listens on its own address. Between two nodes
 * there is exactly one RC connection, opened by the node with the lower
 * index; every node also connects to itself (loopback), because an RMW on
 * a word that peers reach through the NIC must go through the NIC for
 * local callers too. A connector retries every RDMALOCK_RECONNECT_MS
 * until its peer is there, and again whenever the connection fails.
 *
 * Memory. Each node exposes one region (layout in fabric.h), physically
 * contiguous, registered with a fast-registration work request that grants
 * remote read, write and atomic access to that region alone. Posting the
 * registration needs a connected QP, so a fabric first connects to itself,
 * registers its region on the loopback QP, and only then accepts peers.
 * The connect request and its reply carry each side's region address and
 * rkey (struct rdmalock_cm_pdata).
 *
 * Verbs. A synchronous verb posts one signalled work request and sleeps
 * on its completion. If the completion does not come in time, the caller
 * fails the connection: that moves the QP to the error state, which
 * flushes every outstanding request, so the caller's own completion is
 * certain to arrive and the caller waits for it before its buffers go.
 *
 * Lifetime. A connection (struct rdmalock_conn) is referenced by its peer
 * slot while it is current and by every verb in flight on it. Failing it
 * marks it failed and takes it out of its slot, under fabric->lock, and
 * queues its teardown. Every post happens under conn->post_lock after
 * checking that the connection is up; the teardown takes post_lock once
 * after the failure is marked, so no post is in progress or can follow,
 * and only then drains and destroys the QP, CQ and cm_id.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/rwsem.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "fabric-pri.h"
#include "rdmalock-pri.h"

#define RDMALOCK_RD_ATOMIC		16
#define RDMALOCK_RESOLVE_TIMEOUT_MS	2000
#define RDMALOCK_RECONNECT_MS		500
#define RDMALOCK_LOOPBACK_TIMEOUT_MS	10000
#define RDMALOCK_VERB_TIMEOUT_MS	5000

static const char * const rdmalock_verb_names[RDMALOCK_VERB_MAX] = {
	[RDMALOCK_VERB_READ] = "READ",
	[RDMALOCK_VERB_WRITE] = "WRITE",
	[RDMALOCK_VERB_CAS] = "CAS",
	[RDMALOCK_VERB_FAA] = "FAA",
	[RDMALOCK_VERB_SEND] = "SEND",
	[RDMALOCK_VERB_RECV] = "RECV",
};

static int rdmalock_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);

static u32 rdmalock_self(const struct rdmalock_fabric *fabric)
{
	return fabric->attr.node_id;
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
VISIBLE_IF_KUNIT int rdmalock_fabric_check_range(u64 region_len, u64 offset,
						 u64 len, u64 align)
{
	if (!len || len > region_len || offset > region_len - len)
		return -EINVAL;
	if (!IS_ALIGNED(offset, align))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_fabric_check_range);

/* Connections ---------------------------------------------------------- */

static struct rdmalock_conn *rdmalock_conn_alloc(struct rdmalock_fabric *fabric,
						 struct rdmalock_peer *peer,
						 bool active)
{
	struct rdmalock_conn *conn;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return NULL;
	kref_init(&conn->ref);
	conn->fabric = fabric;
	conn->peer = peer;
	conn->active = active;
	conn->state = RDMALOCK_CONN_CONNECTING;
	spin_lock_init(&conn->post_lock);
	sema_init(&conn->sq_slots, RDMALOCK_SQ_DEPTH);
	init_completion(&conn->up);
	atomic_inc(&fabric->nconns);
	return conn;
}

static void rdmalock_conn_release(struct kref *ref)
{
	struct rdmalock_conn *conn = container_of(ref, struct rdmalock_conn, ref);
	struct rdmalock_fabric *fabric = conn->fabric;

	kfree(conn);
	if (atomic_dec_and_test(&fabric->nconns))
		wake_up(&fabric->conns_gone);
}

void rdmalock_conn_put(struct rdmalock_conn *conn)
{
	kref_put(&conn->ref, rdmalock_conn_release);
}

/*
 * Runs in process context once a connection has failed: nothing can be
 * posted any more (state is FAILED), so flush what is outstanding and
 * free the verbs resources, then let a connector try again.
 */
static void rdmalock_conn_teardown(struct work_struct *work)
{
	struct rdmalock_conn *conn = container_of(work, struct rdmalock_conn,
						  teardown_work);
	struct rdmalock_fabric *fabric = conn->fabric;
	struct rdmalock_peer *peer = conn->peer;
	bool reconnect;

	/* Wait out any post that saw the connection up; none can follow. */
	spin_lock_irq(&conn->post_lock);
	spin_unlock_irq(&conn->post_lock);
	if (conn->cm_id->qp) {
		rdma_disconnect(conn->cm_id);
		/* Every posted request completes, flushed, before this returns. */
		ib_drain_qp(conn->cm_id->qp);
		rdma_destroy_qp(conn->cm_id);
	}
	if (conn->cq)
		ib_free_cq(conn->cq);
	conn->cq = NULL;
	rdmalock_msg_ring_free(conn);
	rdma_destroy_id(conn->cm_id);

	spin_lock_irq(&fabric->lock);
	reconnect = conn->active && !fabric->stopping;
	spin_unlock_irq(&fabric->lock);
	if (reconnect)
		queue_delayed_work(fabric->wq, &peer->connect_work,
				   msecs_to_jiffies(RDMALOCK_RECONNECT_MS));
	rdmalock_conn_put(conn);
}

/*
 * Takes @conn out of service, once; the teardown runs in process context.
 * May be called from any context, the cm handler of @conn's own cm_id
 * included.
 */
void rdmalock_conn_fail(struct rdmalock_conn *conn, const char *why)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	struct rdmalock_peer *peer = conn->peer;
	unsigned long flags;
	bool was_up;

	spin_lock_irqsave(&fabric->lock, flags);
	if (conn->state == RDMALOCK_CONN_FAILED) {
		spin_unlock_irqrestore(&fabric->lock, flags);
		return;
	}
	was_up = conn->state == RDMALOCK_CONN_UP;
	WRITE_ONCE(conn->state, RDMALOCK_CONN_FAILED);
	if (peer && peer->conn == conn)
		peer->conn = NULL;
	if (fabric->loop_passive == conn)
		fabric->loop_passive = NULL;
	spin_unlock_irqrestore(&fabric->lock, flags);

	if (peer && (was_up || !READ_ONCE(fabric->stopping)))
		pr_info("%s: node %u: connection %s: %s\n", fabric->attr.name,
			peer->node, was_up ? "lost" : "failed", why);
	INIT_WORK(&conn->teardown_work, rdmalock_conn_teardown);
	queue_work(fabric->wq, &conn->teardown_work);
}

static void rdmalock_qp_event(struct ib_event *event, void *context)
{
	struct rdmalock_conn *conn = context;

	switch (event->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		rdmalock_conn_fail(conn, ib_event_msg(event->event));
		break;
	default:
		break;
	}
}

static int rdmalock_conn_create_qp(struct rdmalock_conn *conn)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	struct ib_qp_init_attr init = {
		.event_handler = rdmalock_qp_event,
		.qp_context = conn,
		.cap = {
			.max_send_wr = RDMALOCK_SQ_DEPTH,
			/* One more of each for ib_drain_qp(). */
			.max_recv_wr = RDMALOCK_RECV_DEPTH + 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	int ret;

	if (conn->cm_id->device != fabric->device) {
		pr_err_ratelimited("%s: connection on another RDMA device\n",
				   fabric->attr.name);
		return -EXDEV;
	}
	conn->cq = ib_alloc_cq(fabric->device, conn, RDMALOCK_CQ_DEPTH, 0,
			       IB_POLL_SOFTIRQ);
	if (IS_ERR(conn->cq)) {
		ret = PTR_ERR(conn->cq);
		conn->cq = NULL;
		return ret;
	}
	init.send_cq = conn->cq;
	init.recv_cq = conn->cq;
	ret = rdma_create_qp(conn->cm_id, fabric->pd, &init);
	if (ret)
		goto err_cq;
	/* Receives are posted before the peer can send: before connecting. */
	ret = rdmalock_msg_ring_alloc(conn);
	if (ret)
		goto err_qp;
	return 0;

err_qp:
	rdma_destroy_qp(conn->cm_id);
err_cq:
	ib_free_cq(conn->cq);
	conn->cq = NULL;
	return ret;
}

static void rdmalock_fill_pdata(struct rdmalock_fabric *fabric,
				struct rdmalock_cm_pdata *pd)
{
	memset(pd, 0, sizeof(*pd));
	pd->magic = cpu_to_be32(RDMALOCK_CM_MAGIC);
	pd->version = RDMALOCK_CM_VERSION;
	pd->node_id = cpu_to_be16(rdmalock_self(fabric));
	pd->region_addr = cpu_to_be64(fabric->mr->iova);
	pd->region_rkey = cpu_to_be32(fabric->mr->rkey);
	pd->region_len = cpu_to_be32(fabric->region_len);
	memcpy(pd->name, fabric->attr.name, sizeof(pd->name));
}

/**
 * rdmalock_cm_pdata_check() - validate the private data a node sent us
 * @attr: our domain
 * @region_len: the length of our region, which every node's must equal
 * @data: the bytes received, possibly fewer than a whole pdata, or NULL
 * @len: their number
 * @node: set to the sender's node id when valid
 *
 * Return: 0, or -EPROTO for anything not from a node of this domain.
 */
VISIBLE_IF_KUNIT int rdmalock_cm_pdata_check(const struct rdmalock_fabric_attr *attr,
					     u32 region_len, const void *data,
					     u8 len, u32 *node)
{
	const struct rdmalock_cm_pdata *pd = data;

	if (!data || len < sizeof(*pd) ||
	    be32_to_cpu(pd->magic) != RDMALOCK_CM_MAGIC ||
	    pd->version != RDMALOCK_CM_VERSION ||
	    memcmp(pd->name, attr->name, sizeof(pd->name)) ||
	    be16_to_cpu(pd->node_id) >= attr->num_nodes ||
	    be32_to_cpu(pd->region_len) != region_len)
		return -EPROTO;
	*node = be16_to_cpu(pd->node_id);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_cm_pdata_check);

static void rdmalock_conn_set_remote(struct rdmalock_conn *conn,
				     const struct rdmalock_cm_pdata *pd)
{
	conn->remote_addr = be64_to_cpu(pd->region_addr);
	conn->remote_rkey = be32_to_cpu(pd->region_rkey);
	conn->remote_len = be32_to_cpu(pd->region_len);
}

static int rdmalock_cm_route_resolved(struct rdmalock_conn *conn)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	struct rdmalock_cm_pdata pd;
	struct rdma_conn_param param = {
		.private_data = &pd,
		.private_data_len = sizeof(pd),
		.responder_resources = min_t(int, RDMALOCK_RD_ATOMIC,
					     fabric->device->attrs.max_qp_rd_atom),
		.initiator_depth = min_t(int, RDMALOCK_RD_ATOMIC,
					 fabric->device->attrs.max_qp_init_rd_atom),
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	int ret;

	ret = rdmalock_conn_create_qp(conn);
	if (ret)
		return ret;
	/*
	 * Only the loopback connects before the region is registered, and
	 * its acceptor, this node, ignores the region fields.
	 */
	rdmalock_fill_pdata(fabric, &pd);
	return rdma_connect_locked(conn->cm_id, &param);
}

/*
 * A connect request from another node (or from ourselves): accept it if
 * it comes from a node of this domain that is meant to connect to us.
 * A non-zero return makes the cm core destroy @id.
 */
static int rdmalock_cm_connect_request(struct rdmalock_fabric *fabric,
				       struct rdma_cm_id *id,
				       struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *req = &ev->param.conn;
	struct rdmalock_conn *conn, *old = NULL;
	struct rdmalock_peer *peer = NULL;
	struct rdmalock_cm_pdata pd;
	struct rdma_conn_param param = {
		.private_data = &pd,
		.private_data_len = sizeof(pd),
	};
	u32 node, self = rdmalock_self(fabric);
	bool loopback;
	int ret;

	if (rdmalock_cm_pdata_check(&fabric->attr, fabric->region_len,
				    req->private_data, req->private_data_len,
				    &node)) {
		pr_err_ratelimited("%s: connect request that is not from this domain\n",
				   fabric->attr.name);
		return -EPROTO;
	}
	loopback = node == self;
	/* Only lower nodes connect to us; a higher one is misconfigured. */
	if (node > self || (!loopback && !READ_ONCE(fabric->accepting)) ||
	    READ_ONCE(fabric->stopping))
		return -ECONNREFUSED;
	if (!loopback)
		peer = &fabric->peers[node];

	conn = rdmalock_conn_alloc(fabric, peer, false);
	if (!conn)
		return -ENOMEM;
	conn->cm_id = id;
	id->context = &conn->cm_ctx;
	ret = rdmalock_conn_create_qp(conn);
	if (ret)
		goto err_free;
	if (!loopback)
		rdmalock_conn_set_remote(conn, req->private_data);

	rdmalock_fill_pdata(fabric, &pd);
	param.responder_resources = min_t(int, req->initiator_depth,
					  fabric->device->attrs.max_qp_rd_atom);
	param.initiator_depth = min_t(int, req->responder_resources,
				      fabric->device->attrs.max_qp_init_rd_atom);

	/* A new request from a node means its old connection is dead. */
	spin_lock_irq(&fabric->lock);
	if (loopback) {
		old = fabric->loop_passive;
		fabric->loop_passive = conn;
	} else {
		old = peer->conn;
		peer->conn = conn;
	}
	if (old)
		kref_get(&old->ref);
	spin_unlock_irq(&fabric->lock);
	if (old) {
		rdmalock_conn_fail(old, "replaced by a new connection");
		rdmalock_conn_put(old);
	}

	ret = rdma_accept(id, &param);
	if (ret) {
		rdmalock_conn_fail(conn, "accept failed");
		return 0;	/* the teardown destroys @id */
	}
	return 0;

err_free:
	id->context = &fabric->cm_ctx;
	rdmalock_conn_put(conn);
	return ret;
}

static void rdmalock_cm_established(struct rdmalock_conn *conn,
				    struct rdma_cm_event *ev)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	struct rdmalock_peer *peer = conn->peer;
	u32 node;

	/*
	 * The loopback's first connection is made before the region is
	 * registered and gets it from rdmalock_region_register(); a
	 * reconnected one is given it here.
	 */
	if (conn->active && peer->node == rdmalock_self(fabric) &&
	    READ_ONCE(fabric->accepting)) {
		conn->remote_addr = fabric->mr->iova;
		conn->remote_rkey = fabric->mr->rkey;
		conn->remote_len = fabric->region_len;
	} else if (conn->active && peer->node != rdmalock_self(fabric)) {
		if (rdmalock_cm_pdata_check(&fabric->attr, fabric->region_len,
					    ev->param.conn.private_data,
					    ev->param.conn.private_data_len, &node) ||
		    node != peer->node) {
			rdmalock_conn_fail(conn, "bad reply from peer");
			return;
		}
		rdmalock_conn_set_remote(conn, ev->param.conn.private_data);
	}

	if (peer)
		WRITE_ONCE(peer->last_heard, jiffies);
	spin_lock_irq(&fabric->lock);
	if (conn->state == RDMALOCK_CONN_CONNECTING) {
		WRITE_ONCE(conn->state, RDMALOCK_CONN_UP);
		if (peer)
			peer->connects++;
	}
	spin_unlock_irq(&fabric->lock);
	if (peer && peer->node != rdmalock_self(fabric))
		pr_info("%s: node %u: connected\n", fabric->attr.name, peer->node);
	complete_all(&conn->up);
}

static int rdmalock_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rdmalock_cm_ctx *ctx = id->context;
	struct rdmalock_conn *conn;
	int ret;

	if (ctx->listener) {
		struct rdmalock_fabric *fabric =
			container_of(ctx, struct rdmalock_fabric, cm_ctx);

		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			return rdmalock_cm_connect_request(fabric, id, ev);
		pr_warn_ratelimited("%s: listener: %s\n", fabric->attr.name,
				    rdma_event_msg(ev->event));
		return 0;
	}

	conn = container_of(ctx, struct rdmalock_conn, cm_ctx);
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(id, RDMALOCK_RESOLVE_TIMEOUT_MS);
		if (ret)
			rdmalock_conn_fail(conn, "route resolution failed");
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = rdmalock_cm_route_resolved(conn);
		if (ret)
			rdmalock_conn_fail(conn, "connect failed");
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		rdmalock_cm_established(conn, ev);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		rdmalock_conn_fail(conn, rdma_event_msg(ev->event));
		break;
	default:
		break;
	}
	return 0;
}

static void rdmalock_peer_connect(struct work_struct *work)
{
	struct rdmalock_peer *peer = container_of(to_delayed_work(work),
						  struct rdmalock_peer,
						  connect_work);
	struct rdmalock_fabric *fabric = peer->fabric;
	struct sockaddr_storage src;
	struct rdmalock_conn *conn;
	struct rdma_cm_id *id;
	int ret;

	conn = rdmalock_conn_alloc(fabric, peer, true);
	if (!conn)
		goto retry;
	id = rdma_create_id(&init_net, rdmalock_cm_handler, &conn->cm_ctx,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		rdmalock_conn_put(conn);
		goto retry;
	}
	conn->cm_id = id;

	spin_lock_irq(&fabric->lock);
	if (fabric->stopping || peer->conn) {
		spin_unlock_irq(&fabric->lock);
		rdma_destroy_id(id);
		rdmalock_conn_put(conn);
		return;
	}
	peer->conn = conn;
	spin_unlock_irq(&fabric->lock);

	/* Our address, but any port: the listener holds ours. */
	src = fabric->attr.addrs[rdmalock_self(fabric)];
	if (src.ss_family == AF_INET)
		((struct sockaddr_in *)&src)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&src)->sin6_port = 0;
	ret = rdma_resolve_addr(id, (struct sockaddr *)&src,
				(struct sockaddr *)&fabric->attr.addrs[peer->node],
				RDMALOCK_RESOLVE_TIMEOUT_MS);
	if (ret)
		rdmalock_conn_fail(conn, "address resolution failed");
	return;

retry:
	if (!READ_ONCE(fabric->stopping))
		queue_delayed_work(fabric->wq, &peer->connect_work,
				   msecs_to_jiffies(RDMALOCK_RECONNECT_MS));
}

/* Verbs ---------------------------------------------------------------- */

/* The peer's current connection if it is up, with a reference, or NULL. */
struct rdmalock_conn *rdmalock_peer_get_conn(struct rdmalock_peer *peer)
{
	struct rdmalock_fabric *fabric = peer->fabric;
	struct rdmalock_conn *conn;

	spin_lock_irq(&fabric->lock);
	conn = peer->conn;
	if (conn && conn->state == RDMALOCK_CONN_UP)
		kref_get(&conn->ref);
	else
		conn = NULL;
	spin_unlock_irq(&fabric->lock);
	return conn;
}

/**
 * rdmalock_conn_post_send() - post on a connection if it is still up
 * @conn: the connection
 * @wr: the work request chain
 *
 * Context: any.
 * Return: 0, -ENOTCONN, or ib_post_send()'s error.
 */
int rdmalock_conn_post_send(struct rdmalock_conn *conn, const struct ib_send_wr *wr)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&conn->post_lock, flags);
	if (READ_ONCE(conn->state) != RDMALOCK_CONN_UP)
		ret = -ENOTCONN;
	else
		ret = ib_post_send(conn->cm_id->qp, wr, NULL);
	spin_unlock_irqrestore(&conn->post_lock, flags);
	return ret;
}

struct rdmalock_sync_op {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
};

static void rdmalock_sync_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdmalock_sync_op *op = container_of(wc->wr_cqe,
						   struct rdmalock_sync_op, cqe);

	op->status = wc->status;
	complete(&op->done);
}

/*
 * Posts @wr on @conn, signalled, and waits for its completion; see the
 * comment at the top for why the wait after a timeout is bounded.
 */
static int rdmalock_conn_post_sync(struct rdmalock_conn *conn,
				   struct ib_send_wr *wr)
{
	unsigned long timeout = msecs_to_jiffies(RDMALOCK_VERB_TIMEOUT_MS);
	struct rdmalock_sync_op op;
	int ret;

	op.cqe.done = rdmalock_sync_done;
	init_completion(&op.done);
	wr->wr_cqe = &op.cqe;
	wr->send_flags |= IB_SEND_SIGNALED;

	if (down_timeout(&conn->sq_slots, timeout))
		return -ETIMEDOUT;
	ret = rdmalock_conn_post_send(conn, wr);
	if (ret) {
		up(&conn->sq_slots);
		return ret;
	}

	if (!wait_for_completion_timeout(&op.done, timeout)) {
		rdmalock_conn_fail(conn, "verb timed out");
		wait_for_completion(&op.done);
		ret = -ETIMEDOUT;
	} else if (op.status == IB_WC_WR_FLUSH_ERR) {
		ret = -ENOTCONN;
	} else if (op.status != IB_WC_SUCCESS) {
		/* An RC QP that completes in error is in the error state. */
		pr_err_ratelimited("%s: %s\n", conn->fabric->attr.name,
				   ib_wc_status_msg(op.status));
		rdmalock_conn_fail(conn, ib_wc_status_msg(op.status));
		ret = -EIO;
	}
	up(&conn->sq_slots);
	return ret;
}

/*
 * One verb to @node's region at @offset, using @buf (@len bytes, DMA
 * mapped here) as the local buffer. Checks the range, counts the verb,
 * and fails with -ENOTCONN when the peer is not up.
 */
static int rdmalock_fabric_verb(struct rdmalock_fabric *fabric, u32 node,
				int verb, struct ib_send_wr *wr, u64 *remote_addr,
				u32 *rkey, u64 offset, void *buf, u32 len,
				enum dma_data_direction dir, u64 align)
{
	struct rdmalock_verb_counters *cnt;
	struct rdmalock_conn *conn;
	struct ib_sge sge;
	u64 dma;
	int ret;

	if (node >= fabric->attr.num_nodes)
		return -EINVAL;
	cnt = &fabric->peers[node].verbs[verb];
	conn = rdmalock_peer_get_conn(&fabric->peers[node]);
	if (!conn) {
		atomic64_inc(&cnt->failed);
		return -ENOTCONN;
	}
	ret = rdmalock_fabric_check_range(conn->remote_len, offset, len, align);
	if (ret) {
		pr_err_ratelimited("%s: %s of %u bytes at node %u offset %llu is out of bounds or misaligned\n",
				   fabric->attr.name, rdmalock_verb_names[verb],
				   len, node, offset);
		goto out_put;
	}

	dma = ib_dma_map_single(fabric->device, buf, len, dir);
	ret = ib_dma_mapping_error(fabric->device, dma);
	if (ret)
		goto out_put;
	sge.addr = dma;
	sge.length = len;
	sge.lkey = fabric->pd->local_dma_lkey;
	wr->sg_list = &sge;
	wr->num_sge = 1;
	*remote_addr = conn->remote_addr + offset;
	*rkey = conn->remote_rkey;

	atomic64_inc(&cnt->posted);
	ret = rdmalock_conn_post_sync(conn, wr);
	ib_dma_unmap_single(fabric->device, dma, len, dir);
	if (!ret) {
		atomic64_inc(&cnt->completed);
		atomic64_add(len, &cnt->bytes);
	}
out_put:
	if (ret)
		atomic64_inc(&cnt->failed);
	rdmalock_conn_put(conn);
	return ret;
}

/* One-sided transfers go through a kmalloc'ed bounce buffer: @buf may be
 * on the caller's stack, which is not DMA-able.
 */
static int rdmalock_fabric_rw(struct rdmalock_fabric *fabric, u32 node,
			      u64 offset, void *buf, u32 len, bool write)
{
	struct ib_rdma_wr wr = {
		.wr.opcode = write ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ,
	};
	void *bounce;
	int ret;

	bounce = kmalloc(len ?: 1, GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;
	if (write)
		memcpy(bounce, buf, len);
	ret = rdmalock_fabric_verb(fabric, node,
				   write ? RDMALOCK_VERB_WRITE : RDMALOCK_VERB_READ,
				   &wr.wr, &wr.remote_addr, &wr.rkey, offset,
				   bounce, len,
				   write ? DMA_TO_DEVICE : DMA_FROM_DEVICE, 1);
	if (!ret && !write)
		memcpy(buf, bounce, len);
	kfree(bounce);
	return ret;
}

/**
 * rdmalock_fabric_read() - RDMA READ from a node's region
 * @fabric: the domain's fabric
 * @node: node to read from (this node's own id reads through loopback)
 * @offset: byte offset in the node's region
 * @buf: destination, @len bytes; need not be DMA-able
 * @len: bytes to read, at least 1
 *
 * Context: process context; sleeps until the read completes.
 * Return: 0; -EINVAL for a range outside the region; -ENOTCONN when
 * @node is not connected or the connection failed meanwhile; -ETIMEDOUT;
 * -EIO when the read completed in error.
 */
int rdmalock_fabric_read(struct rdmalock_fabric *fabric, u32 node, u64 offset,
			 void *buf, u32 len)
{
	return rdmalock_fabric_rw(fabric, node, offset, buf, len, false);
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
	return rdmalock_fabric_rw(fabric, node, offset, (void *)buf, len, true);
}

static int rdmalock_fabric_atomic(struct rdmalock_fabric *fabric, u32 node,
				  u64 offset, enum ib_wr_opcode opcode,
				  u64 compare_add, u64 swap, u64 *old)
{
	struct ib_atomic_wr wr = {
		.wr.opcode = opcode,
		.compare_add = compare_add,
		.swap = swap,
	};
	u64 *result;
	int ret;

	result = kmalloc(sizeof(*result), GFP_KERNEL);
	if (!result)
		return -ENOMEM;
	ret = rdmalock_fabric_verb(fabric, node,
				   opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
				   RDMALOCK_VERB_CAS : RDMALOCK_VERB_FAA,
				   &wr.wr, &wr.remote_addr, &wr.rkey, offset,
				   result, sizeof(*result), DMA_FROM_DEVICE,
				   sizeof(u64));
	if (!ret && old)
		*old = *result;
	kfree(result);
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
 * The operation is atomic only against other RDMA atomics on the same
 * word: never mix it with CPU atomics on that word.
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
 * Atomic only against other RDMA atomics on the same word.
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

/* Memory and set-up ---------------------------------------------------- */

static size_t rdmalock_region_len(u32 locks_per_node)
{
	return PAGE_ALIGN(RDMALOCK_REGION_SCRATCH_LEN +
			  (size_t)locks_per_node * RDMALOCK_SLOT_SIZE +
			  RDMALOCK_DESC_COUNT * RDMALOCK_SLOT_SIZE);
}

static int rdmalock_region_alloc(struct rdmalock_fabric *fabric)
{
	struct scatterlist sg;
	int ret, n;

	fabric->region_len = rdmalock_region_len(fabric->attr.locks_per_node);
	fabric->region = alloc_pages_exact(fabric->region_len,
					   GFP_KERNEL | __GFP_ZERO);
	if (!fabric->region)
		return -ENOMEM;
	fabric->region_dma = ib_dma_map_single(fabric->device, fabric->region,
					       fabric->region_len,
					       DMA_BIDIRECTIONAL);
	ret = ib_dma_mapping_error(fabric->device, fabric->region_dma);
	if (ret)
		goto err_free;

	fabric->mr = ib_alloc_mr(fabric->pd, IB_MR_TYPE_MEM_REG,
				 fabric->region_len >> PAGE_SHIFT);
	if (IS_ERR(fabric->mr)) {
		ret = PTR_ERR(fabric->mr);
		goto err_unmap;
	}
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = fabric->region_dma;
	sg_dma_len(&sg) = fabric->region_len;
	n = ib_map_mr_sg(fabric->mr, &sg, 1, NULL, PAGE_SIZE);
	if (n != 1) {
		ret = n < 0 ? n : -EINVAL;
		goto err_mr;
	}
	return 0;

err_mr:
	ib_dereg_mr(fabric->mr);
err_unmap:
	ib_dma_unmap_single(fabric->device, fabric->region_dma,
			    fabric->region_len, DMA_BIDIRECTIONAL);
err_free:
	free_pages_exact(fabric->region, fabric->region_len);
	return ret;
}

static void rdmalock_region_free(struct rdmalock_fabric *fabric)
{
	ib_dereg_mr(fabric->mr);
	ib_dma_unmap_single(fabric->device, fabric->region_dma,
			    fabric->region_len, DMA_BIDIRECTIONAL);
	free_pages_exact(fabric->region, fabric->region_len);
}

/*
 * Registers the region on the loopback QP, granting peers exactly what
 * the lock protocols need of it and nothing beyond its length.
 */
static int rdmalock_region_register(struct rdmalock_fabric *fabric,
				    struct rdmalock_conn *loop)
{
	struct ib_reg_wr wr = {
		.wr.opcode = IB_WR_REG_MR,
		.mr = fabric->mr,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC,
	};
	int ret;

	ib_update_fast_reg_key(fabric->mr, ib_inc_rkey(fabric->mr->rkey));
	wr.key = fabric->mr->rkey;
	ret = rdmalock_conn_post_sync(loop, &wr.wr);
	if (ret)
		return ret;
	loop->remote_addr = fabric->mr->iova;
	loop->remote_rkey = fabric->mr->rkey;
	loop->remote_len = fabric->region_len;
	return 0;
}

static int rdmalock_fabric_listen(struct rdmalock_fabric *fabric)
{
	struct sockaddr *addr = (struct sockaddr *)&fabric->attr.addrs[rdmalock_self(fabric)];
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, rdmalock_cm_handler, &fabric->cm_ctx,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_bind_addr(id, addr);
	if (ret) {
		pr_err_ratelimited("%s: cannot bind to %pISpc: %d\n",
				   fabric->attr.name, addr, ret);
		goto err;
	}
	if (!id->device) {
		pr_err_ratelimited("%s: no RDMA device has address %pISc\n",
				   fabric->attr.name, addr);
		ret = -ENODEV;
		goto err;
	}
	ret = rdma_listen(id, RDMALOCK_MAX_NODES);
	if (ret)
		goto err;
	fabric->listen_id = id;
	fabric->device = id->device;
	return 0;
err:
	rdma_destroy_id(id);
	return ret;
}

/* Connects to ourselves and registers the region on that connection. */
static int rdmalock_fabric_bootstrap(struct rdmalock_fabric *fabric)
{
	struct rdmalock_peer *self = &fabric->peers[rdmalock_self(fabric)];
	struct rdmalock_conn *loop;
	int ret;

	queue_delayed_work(fabric->wq, &self->connect_work, 0);
	flush_delayed_work(&self->connect_work);

	spin_lock_irq(&fabric->lock);
	loop = self->conn;
	if (loop)
		kref_get(&loop->ref);
	spin_unlock_irq(&fabric->lock);
	if (!loop)
		return -ENOTCONN;

	if (!wait_for_completion_timeout(&loop->up,
					 msecs_to_jiffies(RDMALOCK_LOOPBACK_TIMEOUT_MS)))
		ret = -ETIMEDOUT;
	else if (READ_ONCE(loop->state) != RDMALOCK_CONN_UP)
		ret = -ENOTCONN;
	else
		ret = rdmalock_region_register(fabric, loop);
	rdmalock_conn_put(loop);
	if (ret)
		pr_err_ratelimited("%s: loopback connection failed: %d\n",
				   fabric->attr.name, ret);
	return ret;
}

/* Fails every connection and waits until all are torn down and freed. */
static void rdmalock_fabric_stop(struct rdmalock_fabric *fabric)
{
	struct rdmalock_conn *conns[RDMALOCK_MAX_NODES + 1];
	unsigned int i, n = 0;

	spin_lock_irq(&fabric->lock);
	WRITE_ONCE(fabric->stopping, true);
	spin_unlock_irq(&fabric->lock);
	rdmalock_msg_stop(fabric);

	for (i = 0; i < fabric->attr.num_nodes; i++)
		cancel_delayed_work_sync(&fabric->peers[i].connect_work);
	if (fabric->listen_id)
		rdma_destroy_id(fabric->listen_id);
	fabric->listen_id = NULL;

	spin_lock_irq(&fabric->lock);
	for (i = 0; i < fabric->attr.num_nodes; i++)
		if (fabric->peers[i].conn)
			conns[n++] = fabric->peers[i].conn;
	if (fabric->loop_passive)
		conns[n++] = fabric->loop_passive;
	for (i = 0; i < n; i++)
		kref_get(&conns[i]->ref);
	spin_unlock_irq(&fabric->lock);

	for (i = 0; i < n; i++) {
		rdmalock_conn_fail(conns[i], "domain destroyed");
		rdmalock_conn_put(conns[i]);
	}
	wait_event(fabric->conns_gone, !atomic_read(&fabric->nconns));
	/*
	 * A teardown that ran before stopping was set may have queued a
	 * reconnect after the first cancel; none can be queued after this.
	 */
	for (i = 0; i < fabric->attr.num_nodes; i++)
		cancel_delayed_work_sync(&fabric->peers[i].connect_work);
	flush_workqueue(fabric->wq);
}

/**
 * rdmalock_fabric_create() - listen, register memory, connect to peers
 * @attr: the domain's nodes and geometry, already validated
 * @fabricp: set to the new fabric
 *
 * Returns once this node listens, is connected to itself and has its
 * region registered; connections to peers are made in the background and
 * retried until the peers are there.
 *
 * Context: process context; sleeps.
 * Return: 0; -ENODEV when no RDMA device has this node's address;
 * -ETIMEDOUT or -ENOTCONN when the loopback connection cannot be made;
 * -EADDRINUSE when another domain listens on the same address and port;
 * -ENOMEM.
 */
int rdmalock_fabric_create(const struct rdmalock_fabric_attr *attr,
			   struct rdmalock_fabric **fabricp)
{
	struct rdmalock_fabric *fabric;
	u32 i;
	int ret;

	fabric = kzalloc(sizeof(*fabric), GFP_KERNEL);
	if (!fabric)
		return -ENOMEM;
	fabric->cm_ctx.listener = true;
	fabric->attr = *attr;
	rdmalock_msg_init(fabric);
	spin_lock_init(&fabric->lock);
	atomic_set(&fabric->nconns, 0);
	init_waitqueue_head(&fabric->conns_gone);
	for (i = 0; i < attr->num_nodes; i++) {
		fabric->peers[i].fabric = fabric;
		fabric->peers[i].node = i;
		INIT_DELAYED_WORK(&fabric->peers[i].connect_work,
				  rdmalock_peer_connect);
	}
	fabric->wq = alloc_workqueue("rdmalock-%s", WQ_UNBOUND | WQ_MEM_RECLAIM,
				     0, attr->name);
	if (!fabric->wq) {
		ret = -ENOMEM;
		goto err_free;
	}

	ret = rdmalock_fabric_listen(fabric);
	if (ret)
		goto err_wq;
	fabric->pd = ib_alloc_pd(fabric->device, 0);
	if (IS_ERR(fabric->pd)) {
		ret = PTR_ERR(fabric->pd);
		goto err_listen;
	}
	ret = rdmalock_region_alloc(fabric);
	if (ret)
		goto err_pd;
	ret = rdmalock_fabric_bootstrap(fabric);
	if (ret)
		goto err_stop;

	WRITE_ONCE(fabric->accepting, true);
	for (i = rdmalock_self(fabric) + 1; i < attr->num_nodes; i++)
		queue_delayed_work(fabric->wq, &fabric->peers[i].connect_work, 0);
	rdmalock_msg_start(fabric);
	*fabricp = fabric;
	return 0;

err_stop:
	rdmalock_fabric_stop(fabric);
	rdmalock_region_free(fabric);
err_pd:
	ib_dealloc_pd(fabric->pd);
err_listen:
	if (fabric->listen_id)
		rdma_destroy_id(fabric->listen_id);
err_wq:
	destroy_workqueue(fabric->wq);
err_free:
	kfree(fabric);
	return ret;
}

/**
 * rdmalock_fabric_destroy() - disconnect from every node and free it all
 * @fabric: the fabric; no verb may be in flight or started on it
 *
 * Context: process context; sleeps until every connection is torn down.
 */
void rdmalock_fabric_destroy(struct rdmalock_fabric *fabric)
{
	rdmalock_fabric_stop(fabric);
	rdmalock_region_free(fabric);
	ib_dealloc_pd(fabric->pd);
	destroy_workqueue(fabric->wq);
	kfree(fabric);
}

/**
 * rdmalock_fabric_region_len() - bytes this node exposes to its peers
 * @fabric: the fabric
 *
 * Return: the length of the registered region.
 */
size_t rdmalock_fabric_region_len(const struct rdmalock_fabric *fabric)
{
	return fabric->region_len;
}

/**
 * rdmalock_fabric_peer_status() - connection state and counters of a node
 * @fabric: the fabric
 * @node: the node, below the domain's node count
 * @st: filled in
 *
 * Context: any; takes fabric->lock.
 */
void rdmalock_fabric_peer_status(struct rdmalock_fabric *fabric, u32 node,
				 struct rdmalock_peer_status *st)
{
	struct rdmalock_peer *peer = &fabric->peers[node];
	struct rdmalock_conn *conn;
	int v;

	memset(st, 0, sizeof(*st));
	st->node_id = node;
	spin_lock_irq(&fabric->lock);
	conn = peer->conn;
	if (conn && conn->state == RDMALOCK_CONN_UP) {
		st->state = RDMALOCK_PEER_UP;
		st->qp_num = conn->cm_id->qp ? conn->cm_id->qp->qp_num : 0;
	} else if (conn) {
		st->state = RDMALOCK_PEER_CONNECTING;
	} else {
		st->state = RDMALOCK_PEER_DOWN;
	}
	st->connects = peer->connects;
	spin_unlock_irq(&fabric->lock);

	for (v = 0; v < RDMALOCK_VERB_MAX; v++) {
		st->verbs[v].posted = atomic64_read(&peer->verbs[v].posted);
		st->verbs[v].completed = atomic64_read(&peer->verbs[v].completed);
		st->verbs[v].failed = atomic64_read(&peer->verbs[v].failed);
		st->verbs[v].bytes = atomic64_read(&peer->verbs[v].bytes);
	}
}

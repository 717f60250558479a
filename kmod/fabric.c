// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock fabric: rdma_cm connections, registered memory and verbs.
 *
 * Connections. Every node listens on its own address. Between two nodes
 * there is exactly one RC connection, opened by the node with the lower
 * index; every node also connects to itself (loopback), because an RMW on
 * a word that peers reach through the NIC must go through the NIC for
 * local callers too. A connector tries again, for as long as the fabric
 * exists, whenever an attempt or a connection fails, whatever failed: after
 * RDMALOCK_RECONNECT_MIN_MS, doubling up to RDMALOCK_RECONNECT_MAX_MS, back
 * to the minimum once a connection is ready. A connection, on either side,
 * that is not up RDMALOCK_CONNECT_TIMEOUT_MS after it started is failed:
 * no event may ever come for it (a CM request lost while a link was down
 * is only retried by the CM seconds later, up to 15 times).
 *
 * Memory. Each node exposes one region (layout in fabric.h), contiguous
 * coherent memory, registered with a fast-registration work request that
 * grants remote read and write access, and atomic access in a domain with
 * native atomics, to that region alone. Posting the registration needs a
 * connected QP, so a fabric first connects to itself, registers its
 * region on the loopback QP, and only then accepts peers. Peers prove the
 * domain key to each other before they exchange their regions' addresses
 * and rkeys (fabric-auth.c); an accepted connection replaces a node's
 * current one only once its peer has proved the key. When a peer
 * invalidates the region, it is registered again under a new rkey and
 * every peer reconnects to learn it.
 *
 * Devices. A fabric lives on the RDMA device its address is on. When that
 * device goes away, the ib_client's remove callback detaches every fabric
 * on it: connections, listener, region registration and protection domain
 * go at once, as rdma_cm waits for every cm_id on the device to be
 * destroyed before the device can go. The fabric stays, with every node
 * down, until it is destroyed; it does not come back with a new device.
 *
 * Verbs are in fabric-verbs.c, messages and heartbeats in fabric-msg.c.
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

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/rwsem.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "fabric-fault.h"
#include "fabric-pri.h"

#define RDMALOCK_RD_ATOMIC		16
#define RDMALOCK_RESOLVE_TIMEOUT_MS	2000
#define RDMALOCK_RECONNECT_MIN_MS	250
#define RDMALOCK_RECONNECT_MAX_MS	4000
/* Address and route resolution, and one retry of a lost CM request. */
#define RDMALOCK_CONNECT_TIMEOUT_MS	10000
#define RDMALOCK_LOOPBACK_TIMEOUT_MS	10000
#define RDMALOCK_FAILURE_LOG_MS		60000
#define RDMALOCK_PORT_POLL_MS		250

static int rdmalock_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);

/* Every fabric created; detaching one from its device takes the mutex. */
static LIST_HEAD(rdmalock_fabrics);
static DEFINE_MUTEX(rdmalock_fabrics_mutex);

static u32 rdmalock_self(const struct rdmalock_fabric *fabric)
{
	return fabric->attr.node_id;
}

/* Connections ---------------------------------------------------------- */

/* Fails @conn and drops the reference the caller took to do so. */
static void rdmalock_conn_fail_put(struct rdmalock_conn *conn, const char *why)
{
	rdmalock_conn_fail(conn, why);
	rdmalock_conn_put(conn);
}

/* The node slot an accepted connection belongs to; the loopback's is ours. */
static struct rdmalock_peer *rdmalock_conn_slot(struct rdmalock_conn *conn)
{
	return conn->peer ?: &conn->fabric->peers[rdmalock_self(conn->fabric)];
}

/*
 * Offers @conn to users; the connecting succeeded, so the next failure
 * retries soon again. Called under fabric->lock.
 */
static void rdmalock_conn_ready_locked(struct rdmalock_conn *conn)
{
	WRITE_ONCE(conn->state, RDMALOCK_CONN_READY);
	if (conn->peer)
		conn->peer->backoff_ms = RDMALOCK_RECONNECT_MIN_MS;
}

/* Offers a connection whose atomics work to users. */
static void rdmalock_conn_set_ready(struct rdmalock_conn *conn)
{
	spin_lock_irq(&conn->fabric->lock);
	if (rdmalock_conn_state_up(conn->state))
		rdmalock_conn_ready_locked(conn);
	spin_unlock_irq(&conn->fabric->lock);
}

/* Tells the user that @node, which was offered to it, is lost. */
static void rdmalock_node_lost(struct rdmalock_fabric *fabric, u32 node)
{
	/* Pairs with the release in rdmalock_fabric_set_lost_handler(). */
	rdmalock_node_fn *fn = smp_load_acquire(&fabric->lost_handler.fn);

	if (fn)
		fn(fabric, node, fabric->lost_handler.ctx);
}

/**
 * rdmalock_fabric_set_lost_handler() - who hears of nodes lost
 * @fabric: the fabric
 * @fn: called each time a node's connection that was offered to users
 *	fails (see rdmalock_node_fn)
 * @ctx: passed to @fn
 *
 * It is never replaced while the fabric lives.
 *
 * Context: any.
 * Return: 0, or -EBUSY when one is set.
 */
int rdmalock_fabric_set_lost_handler(struct rdmalock_fabric *fabric,
				     rdmalock_node_fn *fn, void *ctx)
{
	struct rdmalock_node_handler *h = &fabric->lost_handler;

	if (READ_ONCE(h->fn))
		return -EBUSY;
	h->ctx = ctx;
	/* Publish ctx before fn; pairs with rdmalock_node_lost(). */
	smp_store_release(&h->fn, fn);
	return 0;
}

/* Schedules the next attempt to connect to @peer, unless the fabric stops. */
static void rdmalock_peer_retry(struct rdmalock_peer *peer)
{
	struct rdmalock_fabric *fabric = peer->fabric;
	unsigned int ms;

	/* Under the lock: rdmalock_fabric_stop() cancels what is queued. */
	spin_lock_irq(&fabric->lock);
	if (!fabric->stopping) {
		ms = peer->backoff_ms;
		peer->backoff_ms = min_t(unsigned int, 2 * ms,
					 RDMALOCK_RECONNECT_MAX_MS);
		queue_delayed_work(fabric->wq, &peer->connect_work,
				   msecs_to_jiffies(ms));
	}
	spin_unlock_irq(&fabric->lock);
}

/* A connection not up within its bound will never be: fail it. */
static void rdmalock_conn_timeout(struct work_struct *work)
{
	struct rdmalock_conn *conn = container_of(to_delayed_work(work),
						  struct rdmalock_conn,
						  timeout_work);

	if (READ_ONCE(conn->state) == RDMALOCK_CONN_CONNECTING)
		rdmalock_conn_fail(conn, "connect timed out");
	rdmalock_conn_put(conn);
}

/* Starts @conn's bound; the pending work holds a reference. */
static void rdmalock_conn_arm_timeout(struct rdmalock_conn *conn)
{
	kref_get(&conn->ref);
	queue_delayed_work(conn->fabric->wq, &conn->timeout_work,
			   msecs_to_jiffies(RDMALOCK_CONNECT_TIMEOUT_MS));
}

static void rdmalock_conn_probe(struct work_struct *work)
{
	struct rdmalock_conn *conn = container_of(work, struct rdmalock_conn,
						  probe_work);
	int ret;

	ret = rdmalock_atomics_probe(conn, conn->peer->node);
	if (ret) {
		pr_err_ratelimited("%s: node %u: RDMA atomics do not work (%d); create the domain with --atomics emulated on every node\n",
				   conn->fabric->attr.name, conn->peer->node, ret);
		rdmalock_conn_fail(conn, "atomics probe failed");
	} else {
		rdmalock_fault_delay_ready(conn);
		rdmalock_conn_set_ready(conn);
	}
	rdmalock_conn_put(conn);
}

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
	mutex_init(&conn->setup_lock);
	atomic_set(&conn->sq_used, 0);
	sema_init(&conn->sq_slots, RDMALOCK_SYNC_SLOTS);
	init_completion(&conn->up);
	INIT_WORK(&conn->probe_work, rdmalock_conn_probe);
	rdmalock_rmw_conn_init(conn);
	INIT_DELAYED_WORK(&conn->timeout_work, rdmalock_conn_timeout);
	atomic_inc(&fabric->nconns);
	return conn;
}

static void rdmalock_conn_release(struct kref *ref)
{
	struct rdmalock_conn *conn = container_of(ref, struct rdmalock_conn, ref);
	struct rdmalock_fabric *fabric = conn->fabric;
	unsigned long flags;

	kfree(conn);
	/* Under the queue's lock: see rdmalock_fabric_stop(). */
	spin_lock_irqsave(&fabric->conns_gone.lock, flags);
	if (atomic_dec_and_test(&fabric->nconns))
		wake_up_locked(&fabric->conns_gone);
	spin_unlock_irqrestore(&fabric->conns_gone.lock, flags);
}

void rdmalock_conn_put(struct rdmalock_conn *conn)
{
	kref_put(&conn->ref, rdmalock_conn_release);
}

/*
 * Can @id's port send now? The port's state alone is late: as a link goes
 * down, its routes go before Soft-RoCE marks the port down, and a
 * connection that failed on the way (its requests flushed) is torn down
 * in between. Its netdevice, stopped first, says so in time.
 */
static bool rdmalock_port_usable(struct rdma_cm_id *id)
{
	int ifindex = id->route.addr.dev_addr.bound_dev_if;
	enum ib_port_state state;
	struct net_device *ndev;
	bool up;

	if (ib_get_cached_port_state(id->device, id->port_num, &state))
		return true;
	if (state != IB_PORT_ACTIVE)
		return false;
	ndev = ifindex ? dev_get_by_index(&init_net, ifindex) : NULL;
	if (!ndev)
		return true;
	up = netif_running(ndev) && netif_carrier_ok(ndev);
	dev_put(ndev);
	return up;
}

/*
 * Destroying a cm_id whose exchange has started sends a CM message (a
 * disconnect request or a reject). Soft-RoCE, sending one with no route
 * (the link is down), puts its CM QP (QP1) in the error state, which
 * flushes its receives, and the MAD layer never posts them again: the
 * node could never connect again. So that message waits until the port
 * can send again, or until the fabric stops.
 */
static void rdmalock_conn_wait_port(struct rdmalock_conn *conn)
{
	while (!READ_ONCE(conn->fabric->stopping) &&
	       !rdmalock_port_usable(conn->cm_id))
		msleep(RDMALOCK_PORT_POLL_MS);
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
	struct rdmalock_peer *peer = conn->peer;

	if (cancel_delayed_work_sync(&conn->timeout_work))
		rdmalock_conn_put(conn);
	/* Wait out any post that saw the connection up; none can follow. */
	spin_lock_irq(&conn->post_lock);
	spin_unlock_irq(&conn->post_lock);
	/* A cm handler making the QP now finishes first, or sees FAILED. */
	mutex_lock(&conn->setup_lock);
	/* Every posted request completes, flushed, before this returns. */
	if (conn->cm_id->qp)
		ib_drain_qp(conn->cm_id->qp);
	/* Their answers would have come on this connection. */
	rdmalock_rmw_fail_conn(conn);
	if (conn->cm_id->qp) {
		rdmalock_conn_wait_port(conn);
		rdma_disconnect(conn->cm_id);
		rdma_destroy_qp(conn->cm_id);
	}
	if (conn->cq)
		ib_free_cq(conn->cq);
	conn->cq = NULL;
	rdmalock_msg_ring_free(conn);
	mutex_unlock(&conn->setup_lock);
	rdma_destroy_id(conn->cm_id);

	if (conn->active)
		rdmalock_peer_retry(peer);
	rdmalock_conn_put(conn);
}

/*
 * Should a failure of @peer's connection be logged? Under fabric->lock.
 * An absent peer fails every reconnect attempt: say so when it starts
 * failing, then once every RDMALOCK_FAILURE_LOG_MS at most; establishing
 * a connection says it is back (rdmalock_cm_established()).
 */
static bool rdmalock_peer_failure_logged(struct rdmalock_peer *peer,
					 bool was_up)
{
	if (was_up) {
		/* Lost, not failed: its reconnect attempts count from here. */
		peer->failures = 0;
		peer->failure_logged = jiffies;
		return true;
	}
	if (peer->failures++ &&
	    time_before(jiffies, peer->failure_logged +
				 msecs_to_jiffies(RDMALOCK_FAILURE_LOG_MS)))
		return false;
	peer->failure_logged = jiffies;
	return true;
}

/**
 * rdmalock_conn_fail_kind() - what a failure of @conn is to its node
 * @conn: a connection that has not failed yet
 *
 * A connection that is, or was, its node's own counts against the node:
 * one of ours, which is in the node's slot from its start, or an accepted
 * one once its peer has proved the key, which puts it there (no other
 * comes up). Its failure is the node's failed attempt or its lost
 * connection. An accepted one that never got there, pending or refused,
 * is only a claim to be that node, which anyone who reaches our port can
 * make: it must not count as the node's attempt nor hide in the node's
 * once-a-minute log line, and is logged by itself, with its reason. Once
 * the domain stops, a connection that was not up is not worth a line.
 *
 * Context: under fabric->lock.
 * Return: RDMALOCK_FAIL_PEER, _REFUSED or _QUIET.
 */
VISIBLE_IF_KUNIT enum rdmalock_fail_kind
rdmalock_conn_fail_kind(const struct rdmalock_conn *conn)
{
	const struct rdmalock_fabric *fabric = conn->fabric;
	bool was_up = rdmalock_conn_state_up(conn->state);
	bool in_slot = conn->peer ? conn->peer->conn == conn :
				    fabric->loop_passive == conn;

	if (!in_slot && !was_up)
		return fabric->stopping ? RDMALOCK_FAIL_QUIET :
					  RDMALOCK_FAIL_REFUSED;
	/* The loopback's passive end: its active end speaks for the node. */
	if (!conn->peer || (fabric->stopping && !was_up))
		return RDMALOCK_FAIL_QUIET;
	return RDMALOCK_FAIL_PEER;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_conn_fail_kind);

/*
 * Takes @conn out of service, once; the teardown runs in process context.
 * May be called from any context, the cm handler of @conn's own cm_id
 * included.
 */
void rdmalock_conn_fail(struct rdmalock_conn *conn, const char *why)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	struct rdmalock_peer *peer = conn->peer;
	enum rdmalock_fail_kind kind;
	unsigned long flags;
	bool was_up, was_ready, log = false;
	u32 failures = 0;

	spin_lock_irqsave(&fabric->lock, flags);
	if (conn->state == RDMALOCK_CONN_FAILED) {
		spin_unlock_irqrestore(&fabric->lock, flags);
		return;
	}
	kind = rdmalock_conn_fail_kind(conn);
	was_up = rdmalock_conn_state_up(conn->state);
	was_ready = conn->state == RDMALOCK_CONN_READY;
	WRITE_ONCE(conn->state, RDMALOCK_CONN_FAILED);
	if (peer && peer->conn == conn)
		peer->conn = NULL;
	if (rdmalock_conn_slot(conn)->pending == conn)
		rdmalock_conn_slot(conn)->pending = NULL;
	if (fabric->loop_passive == conn)
		fabric->loop_passive = NULL;
	if (kind == RDMALOCK_FAIL_PEER) {
		log = rdmalock_peer_failure_logged(peer, was_up);
		failures = peer->failures;
	}
	spin_unlock_irqrestore(&fabric->lock, flags);
	/* Whoever waits for it to come up learns that it will not. */
	complete_all(&conn->up);
	if (peer && was_ready)
		rdmalock_node_lost(fabric, peer->node);

	if (kind == RDMALOCK_FAIL_REFUSED)
		pr_warn_ratelimited("%s: refused a connection claiming node %u from %pISc: %s\n",
				    fabric->attr.name,
				    rdmalock_conn_slot(conn)->node, &conn->src,
				    why);
	else if (log && failures > 1)
		pr_info("%s: node %u: still not connected, %u attempts failed: %s\n",
			fabric->attr.name, peer->node, failures, why);
	else if (log)
		pr_info("%s: node %u: connection %s: %s\n", fabric->attr.name,
			peer->node, was_up ? "lost" : "failed", why);
	INIT_WORK(&conn->teardown_work, rdmalock_conn_teardown);
	queue_work(fabric->wq, &conn->teardown_work);
}

/**
 * rdmalock_conn_wc_failed() - a request on @conn completed in error
 * @conn: the connection
 * @wc: the completion, whose status is not IB_WC_SUCCESS
 *
 * An RC QP that completes a request in error is in the error state, and
 * so is its connection, whatever the status. A flush is most often the
 * echo of our own rdmalock_conn_fail(), which makes this a no-op; but rxe
 * reports every request, the one that failed included, as flushed when
 * its requester moves the QP to the error state itself (a packet it could
 * not build or send while the link was down). Unless that flush fails the
 * connection, it stays "up" on a dead QP for ever: the loopback above all,
 * which no heartbeat watches.
 *
 * Context: any.
 */
void rdmalock_conn_wc_failed(struct rdmalock_conn *conn, const struct ib_wc *wc)
{
	rdmalock_conn_fail(conn, ib_wc_status_msg(wc->status));
}

static void rdmalock_qp_event(struct ib_event *event, void *context)
{
	struct rdmalock_conn *conn = context;

	switch (event->event) {
	case IB_EVENT_COMM_EST:
		/*
		 * A message arrived before the CM's "ready to use": tell the
		 * CM, so that the connection is established now and a reply
		 * to that message can be sent.
		 */
		rdma_notify(conn->cm_id, IB_EVENT_COMM_EST);
		break;
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

	mutex_lock(&conn->setup_lock);
	if (READ_ONCE(conn->state) == RDMALOCK_CONN_FAILED) {
		/* Its teardown has run or waits for us: make nothing. */
		mutex_unlock(&conn->setup_lock);
		return 0;
	}
	ret = rdmalock_conn_create_qp(conn);
	if (!ret) {
		rdmalock_auth_hello(conn, &pd);
		ret = rdma_connect_locked(conn->cm_id, &param);
	}
	mutex_unlock(&conn->setup_lock);
	return ret;
}

/* Do two socket addresses name the same IP address (ports aside)? */
static bool rdmalock_same_ip(const struct sockaddr_storage *a,
			     const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr);
}

/*
 * The address the requester's packets came from, as far as the CM tells:
 * over iWARP, the TCP connection's peer. Over IB and RoCE, the passive
 * id's dst_addr is copied from the rdma_cm header in the request's
 * private data, which the requester writes as it likes; the path's
 * destination GID is where this node's REP and QP will send, so a node
 * that claims another's address there gets no answer.
 */
static int rdmalock_cm_peer_addr(struct rdma_cm_id *id,
				 struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (rdma_protocol_iwarp(id->device, id->port_num)) {
		*ss = id->route.addr.dst_addr;
		return 0;
	}
	if (!id->route.path_rec)
		return -EPROTO;
	rdma_gid2ip((struct sockaddr *)ss, &id->route.path_rec[0].dgid);
	return 0;
}

/*
 * A connect request from another node (or from ourselves): answer it if
 * it comes from a node of this domain that is meant to connect to us.
 * The new connection waits in its node's pending slot until the peer has
 * proved the key (fabric-auth.c); the node's current one is left alone
 * until then. A non-zero return makes the cm core destroy @id.
 */
static int rdmalock_cm_connect_request(struct rdmalock_fabric *fabric,
				       struct rdma_cm_id *id,
				       struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *req = &ev->param.conn;
	struct rdmalock_conn *conn, *old;
	struct rdmalock_peer *peer = NULL;
	struct sockaddr_storage src;
	struct rdmalock_cm_rep rep;
	struct rdma_conn_param param = {
		.private_data = &rep,
		.private_data_len = sizeof(rep),
	};
	u32 node = U32_MAX, self = rdmalock_self(fabric);
	bool loopback;
	int ret;

	ret = rdmalock_cm_pdata_check(&fabric->attr, fabric->region_len,
				      rdmalock_cm_flags(fabric), req->private_data,
				      req->private_data_len, &node);
	if (ret) {
		rdmalock_log_pdata_error(fabric, ret, node);
		return ret;
	}
	if (rdmalock_cm_peer_addr(id, &src) ||
	    !rdmalock_same_ip(&src, &fabric->attr.addrs[node])) {
		pr_err_ratelimited("%s: %pISc says it is node %u, which is %pISc\n",
				   fabric->attr.name, &src, node,
				   &fabric->attr.addrs[node]);
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
	conn->src = src;
	id->context = &conn->cm_ctx;
	/*
	 * Once it is pending, anything may fail it: its teardown waits for
	 * the QP to be accepted and closed to remote access first.
	 */
	mutex_lock(&conn->setup_lock);
	ret = rdmalock_conn_create_qp(conn);
	if (ret)
		goto err_free;
	rdmalock_conn_arm_timeout(conn);
	ret = rdmalock_auth_accept(conn, req->private_data, &rep);
	if (ret) {
		rdmalock_conn_fail(conn, "cannot compute a proof");
		goto out_unlock;	/* the teardown destroys @id */
	}

	/* The reply sets the connecting side's RNR retries: wait, do not fail. */
	param.rnr_retry_count = 7;
	param.responder_resources = min_t(int, req->initiator_depth,
					  fabric->device->attrs.max_qp_rd_atom);
	param.initiator_depth = min_t(int, req->responder_resources,
				      fabric->device->attrs.max_qp_init_rd_atom);

	/*
	 * A newer request from a node supersedes its older one that has not
	 * proved the key yet; its current connection stays.
	 */
	spin_lock_irq(&fabric->lock);
	old = rdmalock_conn_slot(conn)->pending;
	rdmalock_conn_slot(conn)->pending = conn;
	if (old)
		kref_get(&old->ref);
	spin_unlock_irq(&fabric->lock);
	if (old)
		rdmalock_conn_fail_put(old, "superseded by a newer attempt");

	/* Failed meanwhile: its teardown destroys @id. */
	if (READ_ONCE(conn->state) == RDMALOCK_CONN_FAILED)
		goto out_unlock;
	ret = rdma_accept(id, &param);
	if (!ret)
		ret = rdmalock_auth_restrict(conn);
	if (ret)
		rdmalock_conn_fail(conn, "accept failed");
out_unlock:
	mutex_unlock(&conn->setup_lock);
	return 0;	/* on failure, the teardown destroys @id */

err_free:
	mutex_unlock(&conn->setup_lock);
	id->context = &fabric->cm_ctx;
	rdmalock_conn_put(conn);
	return ret;
}

/**
 * rdmalock_conn_install() - make an accepted connection its node's own
 * @conn: a passive connection whose peer has just proved the key
 *
 * The node's current connection, if any, is failed: a node that proved
 * the key and connects again has lost the old one.
 *
 * Context: process context.
 * Return: 0, or -ENOTCONN when @conn has failed meanwhile.
 */
int rdmalock_conn_install(struct rdmalock_conn *conn)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	struct rdmalock_peer *slot = rdmalock_conn_slot(conn);
	struct rdmalock_conn *old;

	spin_lock_irq(&fabric->lock);
	if (conn->state == RDMALOCK_CONN_FAILED) {
		spin_unlock_irq(&fabric->lock);
		return -ENOTCONN;
	}
	if (slot->pending == conn)
		slot->pending = NULL;
	if (conn->peer) {
		old = slot->conn;
		slot->conn = conn;
	} else {
		old = fabric->loop_passive;
		fabric->loop_passive = conn;
	}
	if (old)
		kref_get(&old->ref);
	spin_unlock_irq(&fabric->lock);
	if (old)
		rdmalock_conn_fail_put(old, "replaced by a new connection");
	return 0;
}

/*
 * Is the rkey that @conn's handshake gave the peer the region's
 * registration now? A connection that gave an older one (the region was
 * re-registered while it connected) must not come up: its peer would use
 * a key that no longer works. Every connection that passes this is in its
 * peer's slot, so a later re-registration fails it. The loopback is given
 * the rkey by the registration itself. Called under fabric->lock.
 */
static bool rdmalock_conn_rkey_current(struct rdmalock_conn *conn)
{
	struct rdmalock_fabric *fabric = conn->fabric;

	if (!conn->peer || conn->peer->node == rdmalock_self(fabric))
		return true;
	return fabric->accepting && conn->sent_rkey == fabric->region_rkey;
}

/* Counts @conn up and decides whether it is probed; under fabric->lock. */
static bool rdmalock_conn_set_up_locked(struct rdmalock_conn *conn,
					u32 *failures)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	struct rdmalock_peer *peer = conn->peer;

	WRITE_ONCE(conn->state, RDMALOCK_CONN_UP);
	if (!peer)
		return false;
	peer->connects++;
	*failures = peer->failures;
	peer->failures = 0;
	/*
	 * Native atomics are tried before users get the connection. The
	 * loopback's first connection is probed, or not, by the bootstrap,
	 * which decides how the domain does atomics.
	 */
	if (!fabric->accepting)
		return false;
	if (fabric->emulated)
		rdmalock_conn_ready_locked(conn);
	return !fabric->emulated;
}

/**
 * rdmalock_conn_up() - one of the two things a connection waits for
 * @conn: the connection
 * @established: the CM established it; else its handshake ended
 *
 * Once both have happened, in whichever order, the connection is up:
 * counted, and probed or offered to users. Messages that came before the
 * CM's event are handled from that event on.
 *
 * Context: any.
 */
void rdmalock_conn_up(struct rdmalock_conn *conn, bool established)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	struct rdmalock_peer *peer = conn->peer;
	unsigned long flags;
	u32 failures = 0;
	bool probe;

	spin_lock_irqsave(&fabric->lock, flags);
	if (established) {
		conn->auth.established = true;
		if (conn->state == RDMALOCK_CONN_CONNECTING)
			rdmalock_msg_conn_up(conn);
	} else {
		conn->auth.done = true;
		WRITE_ONCE(conn->auth.step, RDMALOCK_AUTH_DONE);
	}
	if (conn->state != RDMALOCK_CONN_CONNECTING || !conn->auth.established ||
	    !conn->auth.done) {
		spin_unlock_irqrestore(&fabric->lock, flags);
		return;
	}
	if (!rdmalock_conn_rkey_current(conn)) {
		spin_unlock_irqrestore(&fabric->lock, flags);
		rdmalock_conn_fail(conn, "region re-registered meanwhile");
		return;
	}
	probe = rdmalock_conn_set_up_locked(conn, &failures);
	spin_unlock_irqrestore(&fabric->lock, flags);

	if (peer)
		WRITE_ONCE(peer->last_heard, jiffies);
	if (probe) {
		kref_get(&conn->ref);
		queue_work(fabric->wq, &conn->probe_work);
	}
	if (peer && peer->node != rdmalock_self(fabric) && failures)
		pr_info("%s: node %u: connected, after %u failed attempts\n",
			fabric->attr.name, peer->node, failures);
	else if (peer && peer->node != rdmalock_self(fabric))
		pr_info("%s: node %u: connected\n", fabric->attr.name, peer->node);
	complete_all(&conn->up);
}

static void rdmalock_cm_established(struct rdmalock_conn *conn,
				    struct rdma_cm_event *ev)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	struct rdmalock_peer *peer = conn->peer;
	const char *why;

	/*
	 * The loopback's first connection is made before the region is
	 * registered and gets it from rdmalock_region_register(); a
	 * reconnected one is given it here.
	 */
	if (conn->active && peer->node == rdmalock_self(fabric) &&
	    READ_ONCE(fabric->accepting)) {
		conn->remote_addr = fabric->mr->iova;
		conn->remote_rkey = READ_ONCE(fabric->region_rkey);
		conn->remote_len = fabric->region_len;
	}
	if (conn->active) {
		why = rdmalock_auth_reply(conn, ev->param.conn.private_data,
					  ev->param.conn.private_data_len);
		if (why) {
			rdmalock_conn_fail(conn, why);
			return;
		}
	}
	rdmalock_conn_up(conn, true);
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
	case RDMA_CM_EVENT_DISCONNECTED:
		rdmalock_conn_fail(conn, !conn->active &&
				   READ_ONCE(conn->auth.step) != RDMALOCK_AUTH_DONE ?
				   "closed by the peer before it proved the domain key" :
				   rdma_event_msg(ev->event));
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
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

	conn = rdmalock_conn_alloc(fabric, peer, true);
	if (!conn) {
		rdmalock_peer_retry(peer);
		return;
	}
	id = rdma_create_id(&init_net, rdmalock_cm_handler, &conn->cm_ctx,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		rdmalock_conn_put(conn);
		rdmalock_peer_retry(peer);
		return;
	}
	conn->cm_id = id;

	spin_lock_irq(&fabric->lock);
	if (fabric->stopping || peer->conn) {
		spin_unlock_irq(&fabric->lock);
		rdma_destroy_id(id);
		rdmalock_conn_put(conn);
		return;
	}
	/* Published, it may be failed and torn down at once: hold it. */
	kref_get(&conn->ref);
	peer->conn = conn;
	spin_unlock_irq(&fabric->lock);
	rdmalock_conn_arm_timeout(conn);

	/* Our address, but any port: the listener holds ours. */
	src = fabric->attr.addrs[rdmalock_self(fabric)];
	if (src.ss_family == AF_INET)
		((struct sockaddr_in *)&src)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&src)->sin6_port = 0;
	/* The teardown destroys @id only after this, or instead of it. */
	mutex_lock(&conn->setup_lock);
	if (READ_ONCE(conn->state) != RDMALOCK_CONN_FAILED &&
	    rdma_resolve_addr(id, (struct sockaddr *)&src,
			      (struct sockaddr *)&fabric->attr.addrs[peer->node],
			      RDMALOCK_RESOLVE_TIMEOUT_MS))
		rdmalock_conn_fail(conn, "address resolution failed");
	mutex_unlock(&conn->setup_lock);
	rdmalock_conn_put(conn);
}

/* Verbs ---------------------------------------------------------------- */

/* The peer's current connection if it is up, with a reference, or NULL. */
struct rdmalock_conn *rdmalock_peer_get_conn(struct rdmalock_peer *peer)
{
	struct rdmalock_fabric *fabric = peer->fabric;
	struct rdmalock_conn *conn;
	unsigned long flags;

	spin_lock_irqsave(&fabric->lock, flags);
	conn = peer->conn;
	if (conn && conn->state == RDMALOCK_CONN_READY)
		kref_get(&conn->ref);
	else
		conn = NULL;
	spin_unlock_irqrestore(&fabric->lock, flags);
	return conn;
}

/* Memory and set-up ---------------------------------------------------- */

/*
 * The CPU (emulated atomics, rdmalock_fabric_local()) and the NIC both
 * touch the region at any time, so it is coherent memory: a streaming
 * mapping would need a sync call around every CPU access, and under
 * swiotlb the NIC would work on a bounce buffer the CPU never sees. A
 * device that does DMA by kernel virtual address (rxe, siw) has no
 * mapping at all and takes the pages as they are. Both come zeroed.
 */
static int rdmalock_region_mem_alloc(struct rdmalock_fabric *fabric)
{
	struct ib_device *dev = fabric->device;

	if (ib_uses_virt_dma(dev)) {
		fabric->region = alloc_pages_exact(fabric->region_len,
						   GFP_KERNEL | __GFP_ZERO);
		fabric->region_dma = (uintptr_t)fabric->region;
		return fabric->region ? 0 : -ENOMEM;
	}
	fabric->region = dma_alloc_coherent(dev->dma_device, fabric->region_len,
					    &fabric->region_dma, GFP_KERNEL);
	if (!fabric->region)
		return -ENOMEM;
	/*
	 * The memory outlives a detach from the device (its users still
	 * read it), and so must the device it was allocated for.
	 */
	fabric->region_dma_dev = get_device(dev->dma_device);
	return 0;
}

static void rdmalock_region_mem_free(struct rdmalock_fabric *fabric)
{
	if (!fabric->region_dma_dev) {
		free_pages_exact(fabric->region, fabric->region_len);
		return;
	}
	dma_free_coherent(fabric->region_dma_dev, fabric->region_len,
			  fabric->region, fabric->region_dma);
	put_device(fabric->region_dma_dev);
	fabric->region_dma_dev = NULL;
}

static int rdmalock_region_alloc(struct rdmalock_fabric *fabric)
{
	struct scatterlist sg;
	int ret, n;

	fabric->region_len = rdmalock_region_len_for(fabric->attr.user_len);
	ret = rdmalock_region_mem_alloc(fabric);
	if (ret)
		return ret;

	fabric->mr = ib_alloc_mr(fabric->pd, IB_MR_TYPE_MEM_REG,
				 fabric->region_len >> PAGE_SHIFT);
	if (IS_ERR(fabric->mr)) {
		ret = PTR_ERR(fabric->mr);
		goto err_free;
	}
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = fabric->region_dma;
	sg_dma_len(&sg) = fabric->region_len;
	n = ib_map_mr_sg(fabric->mr, &sg, 1, NULL, PAGE_SIZE);
	if (n != 1) {
		ret = n < 0 ? n : -EINVAL;
		goto err_mr;
	}
	/* Not registered yet: the first registration takes the next key. */
	fabric->region_rkey = fabric->mr->rkey;
	return 0;

err_mr:
	ib_dereg_mr(fabric->mr);
err_free:
	rdmalock_region_mem_free(fabric);
	return ret;
}

/* What of the region is the device's; the memory stays for the CPU. */
static void rdmalock_region_unmap(struct rdmalock_fabric *fabric)
{
	ib_dereg_mr(fabric->mr);
}

static void rdmalock_region_free(struct rdmalock_fabric *fabric)
{
	rdmalock_region_unmap(fabric);
	rdmalock_region_mem_free(fabric);
}

/*
 * What peers may do to the region: read and write it, and atomics only
 * when the NICs execute them. Until the domain has decided, they are
 * granted, for the probe on the loopback.
 */
static int rdmalock_region_access(const struct rdmalock_fabric *fabric)
{
	int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
		     IB_ACCESS_REMOTE_WRITE;

	if (!fabric->emulated)
		access |= IB_ACCESS_REMOTE_ATOMIC;
	return access;
}

/*
 * The key byte of the next registration: one that a peer that saw the
 * last rkey cannot predict, so that a stolen rkey is no use for the next
 * (rxe's rkeys are an index and this byte).
 */
static u8 rdmalock_next_key(u32 rkey)
{
	u8 key;

	do
		key = get_random_u8();
	while (key == (rkey & 0xff));
	return key;
}

/*
 * Registers the region on the loopback QP under a new rkey, granting
 * peers exactly what the lock protocols need of it and nothing beyond
 * its length. A REG_MR needs a free MR (rxe refuses any other, as the
 * IB spec says), so a registered one is invalidated first; invalidating
 * one that a peer already invalidated is harmless. A stale rkey, which
 * differs in its key byte, reaches nothing afterwards.
 */
static int rdmalock_region_register(struct rdmalock_fabric *fabric,
				    struct rdmalock_conn *loop)
{
	struct rdmalock_sync_op sync = {};
	struct ib_send_wr inv = {
		.opcode = IB_WR_LOCAL_INV,
		.ex.invalidate_rkey = fabric->region_rkey,
	};
	struct ib_reg_wr wr = {
		.wr.opcode = IB_WR_REG_MR,
		.mr = fabric->mr,
		.access = rdmalock_region_access(fabric),
	};
	int ret;

	if (fabric->region_registered) {
		ret = rdmalock_conn_post_wait(loop, &sync, &inv);
		if (ret)
			return ret;
		memset(&sync, 0, sizeof(sync));
	}
	ib_update_fast_reg_key(fabric->mr, rdmalock_next_key(fabric->region_rkey));
	wr.key = fabric->mr->rkey;
	ret = rdmalock_conn_post_wait(loop, &sync, &wr.wr);
	if (ret)
		return ret;
	fabric->region_registered = true;
	/* Peers get it only once accepting is set again, under the lock. */
	WRITE_ONCE(fabric->region_rkey, wr.key);
	loop->remote_addr = fabric->mr->iova;
	loop->remote_rkey = wr.key;
	loop->remote_len = fabric->region_len;
	return 0;
}

/**
 * rdmalock_wc_invalidates() - did a receive invalidate this rkey?
 * @wc: a receive completion
 * @rkey: the rkey
 *
 * Return: true when @wc completed a SEND_WITH_INVALIDATE naming @rkey.
 */
VISIBLE_IF_KUNIT bool rdmalock_wc_invalidates(const struct ib_wc *wc, u32 rkey)
{
	/* ex is a union: only the flag says it is not immediate data. */
	return wc->status == IB_WC_SUCCESS &&
	       (wc->wc_flags & IB_WC_WITH_INVALIDATE) &&
	       wc->ex.invalidate_rkey == rkey;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_wc_invalidates);

/*
 * Our region no longer works (a peer invalidated it): refuse peers until
 * it is registered again, under a new rkey, in process context.
 */
static void rdmalock_region_revoke(struct rdmalock_fabric *fabric)
{
	unsigned long flags;
	bool renew;

	spin_lock_irqsave(&fabric->lock, flags);
	/* Not accepting: being set up, re-registered, or destroyed. */
	renew = fabric->accepting && !fabric->stopping;
	if (renew)
		WRITE_ONCE(fabric->accepting, false);
	spin_unlock_irqrestore(&fabric->lock, flags);
	/*
	 * Not on fabric->wq: the renewal flushes the loopback's connect
	 * work there, which a work of that (reclaim) queue must not wait for.
	 */
	if (renew)
		queue_delayed_work(system_long_wq, &fabric->region_work, 0);
}

/**
 * rdmalock_conn_invalidated() - a peer sent us a SEND_WITH_INVALIDATE
 * @conn: the connection it came on
 * @wc: its receive completion
 *
 * No node of a domain sends one, so the peer is hostile or broken: its
 * connection is failed. rxe obeys one that names any rkey of the device,
 * whatever its protection domain; if it named our region's, every peer
 * is disconnected and the region re-registered under a new rkey, which
 * peers learn when they connect again.
 *
 * Context: any.
 */
void rdmalock_conn_invalidated(struct rdmalock_conn *conn, const struct ib_wc *wc)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	bool ours = rdmalock_wc_invalidates(wc, READ_ONCE(fabric->region_rkey));

	pr_warn_ratelimited("%s: node %u invalidated %s (rkey %#x)\n",
			    fabric->attr.name,
			    conn->peer ? conn->peer->node : rdmalock_self(fabric),
			    ours ? "this node's region" : "a key", wc->ex.invalidate_rkey);
	rdmalock_conn_fail(conn, "sent with invalidate");
	if (ours)
		rdmalock_region_revoke(fabric);
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
	/*
	 * Known to our ib_client, so that its removal finds this fabric or
	 * is seen by rdmalock_fabric_publish(); and pinned until the PD is
	 * gone, so that a removal that did not find it waits for that.
	 */
	if (!rdmalock_device_present(id->device) ||
	    !ib_device_try_get(id->device)) {
		pr_err_ratelimited("%s: RDMA device %s is going or not set up yet\n",
				   fabric->attr.name, dev_name(&id->device->dev));
		ret = -ENODEV;
		goto err;
	}
	ret = rdma_listen(id, RDMALOCK_MAX_NODES);
	if (ret) {
		ib_device_put(id->device);
		goto err;
	}
	fabric->listen_id = id;
	fabric->device = id->device;
	return 0;
err:
	rdma_destroy_id(id);
	return ret;
}

/*
 * Decides, once and for the domain's life, whether this node does atomics
 * natively or emulates them, trying native ones on the loopback. Peers
 * that decided otherwise are refused when they connect.
 */
static int rdmalock_fabric_choose_atomics(struct rdmalock_fabric *fabric,
					  struct rdmalock_conn *loop)
{
	u32 mode = fabric->attr.atomics;
	int probe = 0, ret;

	if (mode != RDMALOCK_ATOMICS_EMULATED)
		probe = rdmalock_atomics_probe(loop, rdmalock_self(fabric));
	ret = rdmalock_atomics_decide(mode, probe, fabric->attr.emulate_atomics,
				      &fabric->emulated);
	if (ret)
		pr_err_ratelimited("%s: native atomics asked for, but they do not work here (%d)\n",
				   fabric->attr.name, probe);
	else if (fabric->emulated && mode == RDMALOCK_ATOMICS_AUTO)
		pr_info("%s: emulating atomics (%s)\n", fabric->attr.name,
			probe ? "the device refuses them" : "emulate_atomics is set");
	return ret;
}

/*
 * Connects to ourselves, then, on that loopback connection, registers the
 * region under a new rkey (@first: and decides how the domain does
 * atomics) and offers the connection to users.
 */
static int rdmalock_fabric_bootstrap(struct rdmalock_fabric *fabric, bool first)
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
	else if (!rdmalock_conn_state_up(READ_ONCE(loop->state)))
		ret = -ENOTCONN;
	else
		ret = rdmalock_region_register(fabric, loop);
	if (!ret && first) {
		ret = rdmalock_fabric_choose_atomics(fabric, loop);
		/* The probe needed remote atomics; emulating, grant none. */
		if (!ret && fabric->emulated)
			ret = rdmalock_region_register(fabric, loop);
	}
	if (!ret) {
		rdmalock_fault_delay_ready(loop);
		rdmalock_conn_set_ready(loop);
	}
	rdmalock_conn_put(loop);
	if (ret)
		pr_err_ratelimited("%s: loopback connection failed: %d\n",
				   fabric->attr.name, ret);
	return ret;
}

/*
 * Lets peers in, and connects to the higher nodes now: each learns the
 * rkey registered now from its connection's handshake.
 */
static void rdmalock_fabric_accept(struct rdmalock_fabric *fabric)
{
	u32 i;

	/* Under the lock, so that a connection that sees it sees emulated. */
	spin_lock_irq(&fabric->lock);
	if (!fabric->stopping)
		WRITE_ONCE(fabric->accepting, true);
	spin_unlock_irq(&fabric->lock);
	for (i = rdmalock_self(fabric) + 1; i < fabric->attr.num_nodes; i++)
		mod_delayed_work(fabric->wq, &fabric->peers[i].connect_work, 0);
}

/* Fails every connection, the loopback's two ends included. */
static void rdmalock_fabric_fail_all(struct rdmalock_fabric *fabric,
				     const char *why)
{
	struct rdmalock_conn *conns[2 * RDMALOCK_MAX_NODES + 1];
	unsigned int i, n = 0;

	spin_lock_irq(&fabric->lock);
	for (i = 0; i < fabric->attr.num_nodes; i++) {
		if (fabric->peers[i].conn)
			conns[n++] = fabric->peers[i].conn;
		if (fabric->peers[i].pending)
			conns[n++] = fabric->peers[i].pending;
	}
	if (fabric->loop_passive)
		conns[n++] = fabric->loop_passive;
	for (i = 0; i < n; i++)
		kref_get(&conns[i]->ref);
	spin_unlock_irq(&fabric->lock);

	for (i = 0; i < n; i++)
		rdmalock_conn_fail_put(conns[i], why);
}

/*
 * Re-registers the region after rdmalock_region_revoke(). Every
 * connection goes, so that no peer keeps a key that works again once the
 * region is registered (they differ only in the key byte) and each learns
 * the new one from a new handshake; verbs in flight fail with -ENOTCONN
 * or -EIO. The loopback is made again and carries the registration, and
 * only then are peers let in again. Tried again until it works or the
 * domain is destroyed.
 */
static void rdmalock_region_renew(struct work_struct *work)
{
	struct rdmalock_fabric *fabric = container_of(to_delayed_work(work),
						      struct rdmalock_fabric,
						      region_work);
	int ret;

	rdmalock_fabric_fail_all(fabric, "region re-registered");
	ret = rdmalock_fabric_bootstrap(fabric, false);
	if (ret) {
		if (!READ_ONCE(fabric->stopping))
			queue_delayed_work(system_long_wq, &fabric->region_work,
					   msecs_to_jiffies(RDMALOCK_RECONNECT_MIN_MS));
		return;
	}
	rdmalock_fabric_accept(fabric);
	pr_info("%s: region re-registered under a new rkey; peers reconnect\n",
		fabric->attr.name);
}

/* Fails every connection and waits until all are torn down and freed. */
static void rdmalock_fabric_stop(struct rdmalock_fabric *fabric, const char *why)
{
	unsigned int i;

	spin_lock_irq(&fabric->lock);
	WRITE_ONCE(fabric->stopping, true);
	spin_unlock_irq(&fabric->lock);
	rdmalock_msg_stop(fabric);

	for (i = 0; i < fabric->attr.num_nodes; i++)
		cancel_delayed_work_sync(&fabric->peers[i].connect_work);
	if (fabric->listen_id)
		rdma_destroy_id(fabric->listen_id);
	fabric->listen_id = NULL;

	rdmalock_fabric_fail_all(fabric, why);
	/* A re-registration sees its loopback fail, and stops. */
	cancel_delayed_work_sync(&fabric->region_work);
	wait_event(fabric->conns_gone, !atomic_read(&fabric->nconns));
	/*
	 * The last reference may be dropped off the fabric's queue (a
	 * message held by fault injection): wait until its release is done
	 * with the fabric too.
	 */
	spin_lock_irq(&fabric->conns_gone.lock);
	spin_unlock_irq(&fabric->conns_gone.lock);
	flush_workqueue(fabric->wq);
}

/*
 * Puts a fabric just made on the list that device removal walks, unless
 * its device is already going: the removal did not see it, and would
 * wait for its cm_ids for ever. Then it is destroyed.
 * Return: 0, or -ENODEV when @fabric was destroyed.
 */
static int rdmalock_fabric_publish(struct rdmalock_fabric *fabric)
{
	bool present;

	mutex_lock(&rdmalock_fabrics_mutex);
	list_add_tail(&fabric->entry, &rdmalock_fabrics);
	/* Under the mutex: a removal after this finds it on the list. */
	present = rdmalock_device_present(fabric->device);
	mutex_unlock(&rdmalock_fabrics_mutex);
	if (present)
		return 0;
	pr_err_ratelimited("%s: RDMA device %s removed while the domain was being created\n",
			   fabric->attr.name, dev_name(&fabric->device->dev));
	rdmalock_fabric_destroy(fabric);
	return -ENODEV;
}

/**
 * rdmalock_fabric_create() - listen, register memory, connect to peers
 * @attr: the domain's nodes and geometry, already validated
 * @key: the domain's key, which peers must prove they hold; NULL for a
 *	domain that admits anyone, asked for as such
 * @key_len: bytes at @key
 * @fabricp: set to the new fabric
 *
 * Returns once this node listens, is connected to itself and has its
 * region registered; connections to peers are made in the background and
 * retried until the peers are there.
 *
 * Context: process context; sleeps.
 * Return: 0; -ENODEV when no RDMA device has this node's address, or
 * when its device is being removed; -ETIMEDOUT or -ENOTCONN when the
 * loopback connection cannot be made; -EADDRINUSE when another domain
 * listens on the same address and port; -EINVAL for heartbeat
 * attributes that cannot work; -ENOMEM; the crypto API's errors.
 */
int rdmalock_fabric_create(const struct rdmalock_fabric_attr *attr,
			   const u8 *key, u32 key_len,
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
	ret = rdmalock_msg_init(fabric);
	if (!ret)
		ret = rdmalock_verbs_init(fabric);
	if (!ret)
		ret = rdmalock_auth_init(fabric, key, key_len);
	if (ret)
		goto err_free;
	spin_lock_init(&fabric->lock);
	atomic_set(&fabric->nconns, 0);
	init_waitqueue_head(&fabric->conns_gone);
	INIT_DELAYED_WORK(&fabric->region_work, rdmalock_region_renew);
	for (i = 0; i < attr->num_nodes; i++) {
		fabric->peers[i].fabric = fabric;
		fabric->peers[i].node = i;
		fabric->peers[i].backoff_ms = RDMALOCK_RECONNECT_MIN_MS;
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
	ret = rdmalock_fabric_bootstrap(fabric, true);
	if (ret)
		goto err_stop;
	rdmalock_fabric_accept(fabric);
	rdmalock_msg_start(fabric);
	ret = rdmalock_fabric_publish(fabric);
	if (ret)
		return ret;
	*fabricp = fabric;
	return 0;

err_stop:
	rdmalock_fabric_stop(fabric, "domain destroyed");
	rdmalock_region_free(fabric);
err_pd:
	ib_dealloc_pd(fabric->pd);
err_listen:
	if (fabric->listen_id)
		rdma_destroy_id(fabric->listen_id);
	ib_device_put(fabric->device);
err_wq:
	destroy_workqueue(fabric->wq);
err_free:
	rdmalock_auth_free(fabric);
	rdmalock_verbs_exit(fabric);
	rdmalock_msg_exit(fabric);
	kfree(fabric);
	return ret;
}

/*
 * Lets go of everything @fabric has on its device, once: after this every
 * node is down for good and every verb fails with -ENOTCONN. Called under
 * rdmalock_fabrics_mutex.
 */
static void rdmalock_fabric_detach(struct rdmalock_fabric *fabric,
				   const char *why)
{
	if (fabric->detached)
		return;
	rdmalock_fabric_stop(fabric, why);
	rdmalock_region_unmap(fabric);
	ib_dealloc_pd(fabric->pd);
	/* Taken in rdmalock_fabric_listen(); the device may go now. */
	ib_device_put(fabric->device);
	fabric->detached = true;
}

/**
 * rdmalock_fabric_remove_device() - detach every fabric from a departing device
 * @device: the RDMA device being unregistered
 *
 * Every fabric on @device loses its connections, listener, registration
 * and protection domain before this returns, so that the device's
 * unregistration does not wait for the domains to be destroyed. The
 * fabrics stay, with every node down, until rdmalock_fabric_destroy().
 *
 * Context: process context (the ib_client's remove callback); sleeps
 * until the connections are torn down.
 */
void rdmalock_fabric_remove_device(struct ib_device *device)
{
	struct rdmalock_fabric *fabric;

	mutex_lock(&rdmalock_fabrics_mutex);
	list_for_each_entry(fabric, &rdmalock_fabrics, entry) {
		if (fabric->device != device || fabric->detached)
			continue;
		pr_warn("%s: RDMA device %s removed: every node is down until the domain is destroyed\n",
			fabric->attr.name, dev_name(&device->dev));
		rdmalock_fabric_detach(fabric, "device removed");
	}
	mutex_unlock(&rdmalock_fabrics_mutex);
}

/**
 * rdmalock_fabric_destroy() - disconnect from every node and free it all
 * @fabric: the fabric; no verb may be in flight or started on it
 *
 * Context: process context; sleeps until every connection is torn down.
 */
void rdmalock_fabric_destroy(struct rdmalock_fabric *fabric)
{
	/* Under the mutex: a device removal meanwhile waits for the detach. */
	mutex_lock(&rdmalock_fabrics_mutex);
	list_del(&fabric->entry);
	rdmalock_fabric_detach(fabric, "domain destroyed");
	mutex_unlock(&rdmalock_fabrics_mutex);
	rdmalock_region_mem_free(fabric);
	destroy_workqueue(fabric->wq);
	rdmalock_auth_free(fabric);
	rdmalock_verbs_exit(fabric);
	rdmalock_msg_exit(fabric);
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
 * rdmalock_fabric_local() - this node's own region, for its CPU
 * @fabric: the fabric
 * @offset: byte offset in the region
 * @len: bytes the caller will touch
 *
 * Peers reach the same bytes with RDMA; see the atomicity rules in
 * Documentation/fabric.rst before mixing the two on one word.
 *
 * Return: the address, or NULL for a range outside the region.
 */
void *rdmalock_fabric_local(struct rdmalock_fabric *fabric, u64 offset, u32 len)
{
	if (!len || rdmalock_fabric_check_range(fabric->region_len, offset, len, 1))
		return NULL;
	return fabric->region + offset;
}

/**
 * rdmalock_fabric_node_up() - may verbs to @node be expected to work now?
 * @fabric: the fabric
 * @node: a node of the domain; this node's own id asks about loopback
 *
 * Context: any.
 * Return: true when its connection is established and probed.
 */
bool rdmalock_fabric_node_up(struct rdmalock_fabric *fabric, u32 node)
{
	struct rdmalock_conn *conn;
	unsigned long flags;
	bool up;

	if (node >= fabric->attr.num_nodes)
		return false;
	spin_lock_irqsave(&fabric->lock, flags);
	conn = fabric->peers[node].conn;
	up = conn && conn->state == RDMALOCK_CONN_READY;
	spin_unlock_irqrestore(&fabric->lock, flags);
	return up;
}

/**
 * rdmalock_fabric_disconnect() - fail the connection to a node now
 * @fabric: the domain's fabric
 * @node: a peer; this node and nodes out of range are ignored
 *
 * For a user that stopped trusting the node (a membership view left it
 * out): what the node posted on the connection and has not landed yet
 * never will. The fabric connects to it again as after any failure.
 *
 * Context: process context.
 */
void rdmalock_fabric_disconnect(struct rdmalock_fabric *fabric, u32 node)
{
	struct rdmalock_conn *conn;

	if (node >= fabric->attr.num_nodes || node == rdmalock_self(fabric))
		return;
	conn = rdmalock_peer_get_conn(&fabric->peers[node]);
	if (!conn)
		return;
	rdmalock_conn_fail(conn, "left out of the membership view");
	rdmalock_conn_put(conn);
}

/**
 * rdmalock_fabric_emulated() - does this fabric emulate atomics?
 * @fabric: the fabric
 *
 * Return: true when the home nodes' CPUs execute every CAS and FAA.
 */
bool rdmalock_fabric_emulated(const struct rdmalock_fabric *fabric)
{
	return fabric->emulated;
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
	if (conn && conn->state == RDMALOCK_CONN_READY) {
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

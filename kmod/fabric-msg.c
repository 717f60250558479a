// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock fabric: messages between nodes, and heartbeats.
 *
 * Each connection keeps RDMALOCK_RECV_DEPTH receive buffers posted, in one
 * DMA-mapped block, from before it connects until its teardown has
 * drained it. A received message is checked (struct rdmalock_msg_hdr:
 * magic, version, type, length, sender, domain, sequence) before its
 * handler sees it; a malformed message breaks the protocol, so it fails
 * the connection, and the peer reconnects. Sends are asynchronous: the
 * message is copied into its own buffer, freed when the send completes.
 *
 * Held messages. The accepting side may receive a message before its
 * cm handler hears that the connection is established (the first message
 * is what establishes it, at the QP); a handler that answered it then
 * would find no connection to answer on. So whatever arrives before that
 * event, WRITE-with-immediate notifications included, is held in its
 * receive slot, in arrival order (struct rdmalock_msg_fifo), and handed
 * over by a work item, with bottom halves disabled, from that event on;
 * what arrives meanwhile queues behind. A connection that fails first
 * drops them with its ring. Of what is handed over, only the handshake's
 * message is handled before the connection is ready, offered to users
 * (native atomics are probed in between): a handler could not answer on
 * it before, and the peer's side may be ready first. The rest is checked
 * and then held the same way, and the work item tries it every jiffy.
 *
 * Answers owed. The fabric's own requests (emulated atomics) are answered
 * on the connection they came in on. An answer that finds the send queue
 * full, or no memory, is not lost and does not fail the connection: it
 * stays in its request's receive slot, which is not given back to the NIC
 * until the answer has been sent, and everything that arrives after it is
 * held behind it, so answers keep the order of their requests. The same
 * work item retries it every jiffy. That bounds what is kept to the
 * receive ring itself: once every slot is held, the peer's further sends
 * wait in its NIC on receiver-not-ready retries, which are unlimited. An
 * answer whose connection is failing is dropped: the teardown on the
 * other side fails the request.
 * Only an answer that is dropped counts as a failed send; one that waits
 * for room counts when it is sent.
 *
 * Heartbeats. Every heartbeat_ms each node sends an empty message to
 * every peer it is connected to; a peer from which nothing at all has
 * been received for heartbeat_timeout_ms is failed, so a silent node is
 * noticed without waiting for traffic to it. Both are the domain's
 * attributes, fixed when it is created.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "fabric-fault.h"
#include "fabric-pri.h"

struct rdmalock_msg_slot {
	struct ib_cqe cqe;
	struct rdmalock_msg_ring *ring;
	u32 index;
	/* What its completion said, for when it is handled. */
	u32 byte_len;
	u32 imm;
	bool with_imm;
	bool checked;			/* counted posted; only its handler is left */
	u8 type;			/* what the check found */
	u32 len;
	bool answering;			/* @answer is owed, not yet sent */
	struct rdmalock_msg_answer answer;
};

struct rdmalock_msg_ring {
	struct rdmalock_conn *conn;
	void *bufs;
	u64 dma;
	u32 rx_seq;	/* messages are handled one at a time */
	spinlock_t hold_lock;
	struct rdmalock_msg_fifo held;	/* under hold_lock */
	struct delayed_work release_work;
	struct rdmalock_msg_slot slots[RDMALOCK_RECV_DEPTH];
};

/* Message buffers in reserve for when the allocator has none. */
#define RDMALOCK_SEND_RESERVE	64

struct rdmalock_msg_send {
	struct ib_cqe cqe;
	struct rdmalock_conn *conn;
	struct rdmalock_verb_counters *cnt;
	u64 dma;
	u32 size;
	u8 buf[RDMALOCK_MSG_SIZE];
};

static void rdmalock_msg_recv_done(struct ib_cq *cq, struct ib_wc *wc);
static void rdmalock_msg_send_free(struct rdmalock_fabric *fabric,
				   struct rdmalock_msg_send *s);
static void rdmalock_msg_release(struct work_struct *work);

/**
 * rdmalock_msg_fifo_start() - hold whatever arrives from now on
 * @f: the held messages
 */
void rdmalock_msg_fifo_start(struct rdmalock_msg_fifo *f)
{
	f->holding = true;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_msg_fifo_start);

/**
 * rdmalock_msg_fifo_hold() - hold a message that just arrived, if holding
 * @f: the held messages
 * @i: its receive slot
 *
 * Return: true when it is held, false when it may be handled at once.
 */
bool rdmalock_msg_fifo_hold(struct rdmalock_msg_fifo *f, u8 i)
{
	if (!f->holding)
		return false;
	/* A slot is held once at most, and there are no more slots. */
	if (WARN_ON_ONCE(f->count >= RDMALOCK_RECV_DEPTH))
		return true;
	f->idx[(f->head + f->count) % RDMALOCK_RECV_DEPTH] = i;
	f->count++;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_msg_fifo_hold);

/**
 * rdmalock_msg_fifo_hold_first() - hold a message before all held ones
 * @f: the held messages
 * @i: its receive slot: a message being handled that cannot be finished yet
 */
void rdmalock_msg_fifo_hold_first(struct rdmalock_msg_fifo *f, u8 i)
{
	if (WARN_ON_ONCE(f->count >= RDMALOCK_RECV_DEPTH))
		return;
	f->holding = true;
	f->head = (f->head + RDMALOCK_RECV_DEPTH - 1) % RDMALOCK_RECV_DEPTH;
	f->idx[f->head] = i;
	f->count++;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_msg_fifo_hold_first);

/**
 * rdmalock_msg_fifo_first() - the oldest held message
 * @f: the held messages
 * @i: set to its receive slot
 *
 * The message stays held until rdmalock_msg_fifo_pop(). When none is
 * left, holding stops, in the same step: what arrives next is handled
 * at once.
 *
 * Return: true when @i is set, false when nothing is held.
 */
bool rdmalock_msg_fifo_first(struct rdmalock_msg_fifo *f, u8 *i)
{
	if (!f->count) {
		f->holding = false;
		return false;
	}
	*i = f->idx[f->head];
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_msg_fifo_first);

/**
 * rdmalock_msg_fifo_pop() - let go of the oldest held message, now done
 * @f: the held messages, at least one
 */
void rdmalock_msg_fifo_pop(struct rdmalock_msg_fifo *f)
{
	if (WARN_ON_ONCE(!f->count))
		return;
	f->head = (f->head + 1) % RDMALOCK_RECV_DEPTH;
	f->count--;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_msg_fifo_pop);

/**
 * rdmalock_msg_check() - validate a received message
 * @buf: the bytes received
 * @byte_len: their number, as the completion reports it
 * @domain_hash: our domain's hash
 * @src_node: the node the connection is with
 * @seq: the sequence number expected next
 * @type: set to the message's type when valid
 * @len: set to its payload length when valid
 *
 * Return: 0, or -EBADMSG for a message that is truncated, does not
 * match its length, is of a version, type, domain or sender we do not
 * expect, or is out of sequence.
 */
VISIBLE_IF_KUNIT int rdmalock_msg_check(const void *buf, u32 byte_len,
					u32 domain_hash, u32 src_node, u32 seq,
					u8 *type, u32 *len)
{
	const struct rdmalock_msg_hdr *hdr = buf;

	if (byte_len < sizeof(*hdr) || byte_len > RDMALOCK_MSG_SIZE)
		return -EBADMSG;
	if (be16_to_cpu(hdr->magic) != RDMALOCK_MSG_MAGIC ||
	    hdr->version != RDMALOCK_MSG_VERSION ||
	    !hdr->type || hdr->type >= RDMALOCK_MSG_TYPES ||
	    (hdr->type > RDMALOCK_MSG_AUTH &&
	     hdr->type < RDMALOCK_MSG_USER_FIRST) ||
	    be16_to_cpu(hdr->len) != byte_len - sizeof(*hdr) ||
	    be16_to_cpu(hdr->src_node) != src_node ||
	    be32_to_cpu(hdr->domain) != domain_hash ||
	    be32_to_cpu(hdr->seq) != seq)
		return -EBADMSG;
	*type = hdr->type;
	*len = be16_to_cpu(hdr->len);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_msg_check);

/**
 * rdmalock_conn_node() - the node a connection is with
 * @conn: the connection
 *
 * Return: the peer's node id; this node's for either end of the loopback.
 */
u32 rdmalock_conn_node(const struct rdmalock_conn *conn)
{
	/* The loopback's passive end has no peer slot: it is us. */
	return conn->peer ? conn->peer->node : conn->fabric->attr.node_id;
}

static int rdmalock_msg_post_recv(struct rdmalock_msg_slot *slot)
{
	struct rdmalock_msg_ring *ring = slot->ring;
	struct rdmalock_conn *conn = ring->conn;
	struct ib_sge sge = {
		.addr = ring->dma + slot->index * RDMALOCK_MSG_SIZE,
		.length = RDMALOCK_MSG_SIZE,
		.lkey = conn->fabric->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &slot->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(conn->cm_id->qp, &wr, NULL);
}

/**
 * rdmalock_msg_ring_alloc() - allocate and post a connection's receives
 * @conn: a connection whose QP exists and is not yet connected
 *
 * Context: process context (the cm handler); may sleep.
 * Return: 0 or a negative errno; on error nothing is left allocated.
 */
int rdmalock_msg_ring_alloc(struct rdmalock_conn *conn)
{
	struct ib_device *dev = conn->fabric->device;
	struct rdmalock_msg_ring *ring;
	u32 i;
	int ret;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return -ENOMEM;
	ring->conn = conn;
	spin_lock_init(&ring->hold_lock);
	/* Until the connection is up: see "Held messages" above. */
	rdmalock_msg_fifo_start(&ring->held);
	INIT_DELAYED_WORK(&ring->release_work, rdmalock_msg_release);
	ring->bufs = kcalloc(RDMALOCK_RECV_DEPTH, RDMALOCK_MSG_SIZE, GFP_KERNEL);
	if (!ring->bufs) {
		ret = -ENOMEM;
		goto err_ring;
	}
	ring->dma = ib_dma_map_single(dev, ring->bufs,
				      RDMALOCK_RECV_DEPTH * RDMALOCK_MSG_SIZE,
				      DMA_FROM_DEVICE);
	ret = ib_dma_mapping_error(dev, ring->dma);
	if (ret)
		goto err_bufs;
	conn->ring = ring;
	/* The QP is not connected: nothing can complete before we return. */
	for (i = 0; i < RDMALOCK_RECV_DEPTH; i++) {
		ring->slots[i].cqe.done = rdmalock_msg_recv_done;
		ring->slots[i].ring = ring;
		ring->slots[i].index = i;
		ret = rdmalock_msg_post_recv(&ring->slots[i]);
		if (ret)
			goto err_unmap;
	}
	return 0;

err_unmap:
	/* The caller destroys the QP, which drops the posted receives. */
	conn->ring = NULL;
	ib_dma_unmap_single(dev, ring->dma, RDMALOCK_RECV_DEPTH * RDMALOCK_MSG_SIZE,
			    DMA_FROM_DEVICE);
err_bufs:
	kfree(ring->bufs);
err_ring:
	kfree(ring);
	return ret;
}

/**
 * rdmalock_msg_ring_free() - free a connection's receive buffers
 * @conn: a failed connection whose QP has been drained and destroyed, or
 *	one that never got its ring
 *
 * Messages still held are dropped with it.
 *
 * Context: process context; waits for the hand-over of held messages.
 */
void rdmalock_msg_ring_free(struct rdmalock_conn *conn)
{
	struct rdmalock_msg_ring *ring = conn->ring;

	if (!ring)
		return;
	/*
	 * Nothing queues it again: the connection is no longer up and the
	 * drained CQ calls no more completions.
	 */
	cancel_delayed_work_sync(&ring->release_work);
	ib_dma_unmap_single(conn->fabric->device, ring->dma,
			    RDMALOCK_RECV_DEPTH * RDMALOCK_MSG_SIZE, DMA_FROM_DEVICE);
	kfree(ring->bufs);
	kfree(ring);
	conn->ring = NULL;
}

/*
 * The fabric's own types first: emulated atomics exist only in domains
 * that emulate them, anywhere else they are malformed. Their requests
 * leave the answer in @slot.
 */
/**
 * rdmalock_msg_handle() - act on a valid message that needs no answer
 * @conn: the connection it came on
 * @type: its type: an emulated atomic's answer, or a handler's
 * @payload: its payload
 * @len: the payload's length
 *
 * Context: softirq, or bottom halves disabled; per connection, one at a
 * time and in order of arrival.
 * Return: 0, or -EBADMSG for a malformed answer (rdmalock_rmw_response()).
 */
int rdmalock_msg_handle(struct rdmalock_conn *conn, u8 type,
			const void *payload, u32 len)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	u32 node = rdmalock_conn_node(conn);
	struct rdmalock_msg_handler *h;
	rdmalock_msg_fn *fn;

	if (type == RDMALOCK_MSG_RMW_RESP)
		return rdmalock_rmw_response(conn, payload, len);
	h = &fabric->handlers[type];
	/* Pairs with the release in rdmalock_fabric_set_handler(). */
	fn = smp_load_acquire(&h->fn);
	if (fn)
		fn(fabric, node, type, payload, len, h->ctx);
	else
		pr_warn_ratelimited("%s: node %u: message of type %u, which nothing handles\n",
				    fabric->attr.name, node, type);
	return 0;
}

static int rdmalock_msg_dispatch(struct rdmalock_msg_slot *slot, u8 type,
				 const void *payload, u32 len)
{
	struct rdmalock_conn *conn = slot->ring->conn;
	struct rdmalock_fabric *fabric = conn->fabric;
	int ret;

	switch (type) {
	case RDMALOCK_MSG_HEARTBEAT:
		return 0;
	case RDMALOCK_MSG_RMW_REQ:
		/* Answered from this slot: fault injection never holds it. */
		if (!fabric->emulated)
			return -EBADMSG;
		ret = rdmalock_rmw_request(fabric, payload, len, &slot->answer);
		slot->answering = !ret;
		return ret;
	case RDMALOCK_MSG_RMW_RESP:
		if (!fabric->emulated)
			return -EBADMSG;
		break;
	}
	if (rdmalock_fault_hold_msg(conn, rdmalock_conn_node(conn), type,
				    payload, len))
		return 0;
	return rdmalock_msg_handle(conn, type, payload, len);
}

/* Gives a consumed receive back to the NIC, unless the connection failed. */
static void rdmalock_msg_repost(struct rdmalock_msg_slot *slot)
{
	struct rdmalock_conn *conn = slot->ring->conn;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&conn->post_lock, flags);
	if (READ_ONCE(conn->state) != RDMALOCK_CONN_FAILED)
		ret = rdmalock_msg_post_recv(slot);
	spin_unlock_irqrestore(&conn->post_lock, flags);
	/* A ring that shrinks would end in the peer's RNR failures: fail now. */
	if (ret)
		rdmalock_conn_fail(conn, "cannot repost a receive");
}

/**
 * rdmalock_imm_dispatch() - hand a WRITE with immediate to its handler
 * @fabric: the fabric
 * @node: the writer
 * @imm: the immediate data
 *
 * The write has landed: its data is in our region, its receive buffer
 * holds nothing. It carries no sequence number, so it does not disturb
 * the messages' order check.
 *
 * Context: as rdmalock_msg_handle().
 */
void rdmalock_imm_dispatch(struct rdmalock_fabric *fabric, u32 node, u32 imm)
{
	/* Pairs with the release in rdmalock_fabric_set_imm_handler(). */
	rdmalock_imm_fn *fn = smp_load_acquire(&fabric->imm_handler.fn);

	atomic64_inc(&fabric->peers[node].verbs[RDMALOCK_VERB_RECV].posted);
	atomic64_inc(&fabric->peers[node].verbs[RDMALOCK_VERB_RECV].completed);
	WRITE_ONCE(fabric->peers[node].last_heard, jiffies);
	if (fn)
		fn(fabric, node, imm, fabric->imm_handler.ctx);
	else
		pr_warn_ratelimited("%s: node %u: write with immediate, which nothing handles\n",
				    fabric->attr.name, node);
}

static void rdmalock_msg_count(struct rdmalock_verb_counters *cnt, u32 bytes)
{
	atomic64_inc(&cnt->completed);
	atomic64_add(bytes, &cnt->bytes);
}

/* A message that breaks the protocol fails its connection. */
static void rdmalock_msg_malformed(struct rdmalock_conn *conn, u8 type,
				   u32 byte_len)
{
	pr_err_ratelimited("%s: node %u: malformed message (type %u, %u bytes)\n",
			   conn->fabric->attr.name, rdmalock_conn_node(conn), type,
			   byte_len);
	rdmalock_conn_fail(conn, "malformed message");
}

/*
 * Checks a received message, and takes the handshake's.
 * Return: 1 when a handler is to have it, 0 when nothing more is to be
 * done, or -EPROTO when it failed @conn.
 */
static int rdmalock_msg_check_slot(struct rdmalock_msg_slot *slot)
{
	struct rdmalock_msg_ring *ring = slot->ring;
	struct rdmalock_conn *conn = ring->conn;
	struct rdmalock_fabric *fabric = conn->fabric;
	u32 node = rdmalock_conn_node(conn), len;
	struct rdmalock_verb_counters *cnt;
	void *buf = ring->bufs + slot->index * RDMALOCK_MSG_SIZE;
	const void *payload = buf + sizeof(struct rdmalock_msg_hdr);
	u8 type = 0;
	int ret;

	cnt = &fabric->peers[node].verbs[RDMALOCK_VERB_RECV];
	atomic64_inc(&cnt->posted);
	ib_dma_sync_single_for_cpu(fabric->device,
				   ring->dma + slot->index * RDMALOCK_MSG_SIZE,
				   RDMALOCK_MSG_SIZE, DMA_FROM_DEVICE);
	ret = rdmalock_msg_check(buf, slot->byte_len, fabric->domain_hash, node,
				 ring->rx_seq, &type, &len);
	if (ret) {
		atomic64_inc(&cnt->failed);
		rdmalock_msg_malformed(conn, type, slot->byte_len);
		return -EPROTO;
	}
	ring->rx_seq++;
	/* The handshake's messages, or anything out of its order. */
	if (rdmalock_auth_recv(conn, type, payload, len)) {
		rdmalock_msg_count(cnt, slot->byte_len);
		return READ_ONCE(conn->state) == RDMALOCK_CONN_FAILED ? -EPROTO : 0;
	}
	slot->type = type;
	slot->len = len;
	return 1;
}

/* Hands a checked message to its handler; false when it failed @conn. */
static bool rdmalock_msg_receive(struct rdmalock_msg_slot *slot)
{
	struct rdmalock_msg_ring *ring = slot->ring;
	struct rdmalock_conn *conn = ring->conn;
	struct rdmalock_fabric *fabric = conn->fabric;
	void *buf = ring->bufs + slot->index * RDMALOCK_MSG_SIZE;
	u32 node = rdmalock_conn_node(conn);
	struct rdmalock_verb_counters *cnt;

	cnt = &fabric->peers[node].verbs[RDMALOCK_VERB_RECV];
	WRITE_ONCE(fabric->peers[node].last_heard, jiffies);
	if (rdmalock_msg_dispatch(slot, slot->type,
				  buf + sizeof(struct rdmalock_msg_hdr),
				  slot->len)) {
		atomic64_inc(&cnt->failed);
		rdmalock_msg_malformed(conn, slot->type, slot->byte_len);
		return false;
	}
	rdmalock_msg_count(cnt, slot->byte_len);
	return READ_ONCE(conn->state) != RDMALOCK_CONN_FAILED;
}

/* A WRITE with immediate may only come once the handshake has ended. */
static int rdmalock_msg_check_imm(struct rdmalock_msg_slot *slot)
{
	struct rdmalock_conn *conn = slot->ring->conn;

	if (READ_ONCE(conn->auth.step) != RDMALOCK_AUTH_DONE) {
		rdmalock_conn_fail(conn, "write with immediate before the handshake");
		return -EPROTO;
	}
	return 1;
}

/* Fault injection may hold a WRITE with immediate like a message. */
static bool rdmalock_msg_receive_imm(struct rdmalock_msg_slot *slot)
{
	struct rdmalock_conn *conn = slot->ring->conn;
	u32 node = rdmalock_conn_node(conn);

	if (!rdmalock_fault_hold_msg(conn, node, 0, &slot->imm,
				     sizeof(slot->imm)))
		rdmalock_imm_dispatch(conn->fabric, node, slot->imm);
	return true;
}

/*
 * May @conn's messages go to their handlers? Once it is offered to users.
 * The loopback's passive end never is, since users send to this node on
 * its active end, which is offered first: that end once it is up.
 */
static bool rdmalock_msg_conn_ready(const struct rdmalock_conn *conn)
{
	enum rdmalock_conn_state state = READ_ONCE(conn->state);

	return conn->peer ? state == RDMALOCK_CONN_READY :
			    rdmalock_conn_state_up(state);
}

/*
 * Checks what @slot received, once, and hands it to its handler once the
 * connection is ready (see "Held messages").
 * Return: 0 when done with (or when it failed @conn: *@reposting false),
 * -EAGAIN when it must wait.
 */
static int rdmalock_msg_take(struct rdmalock_msg_slot *slot, bool *reposting)
{
	struct rdmalock_conn *conn = slot->ring->conn;
	int ret;

	*reposting = false;
	/* A failed connection's late messages answer nothing any more. */
	if (READ_ONCE(conn->state) == RDMALOCK_CONN_FAILED) {
		/* Counted posted when checked: it will never be handled. */
		if (slot->checked && !slot->with_imm)
			atomic64_inc(&conn->fabric->peers[rdmalock_conn_node(conn)]
				     .verbs[RDMALOCK_VERB_RECV].failed);
		return 0;
	}
	if (!slot->checked) {
		ret = slot->with_imm ? rdmalock_msg_check_imm(slot) :
				       rdmalock_msg_check_slot(slot);
		if (ret <= 0) {
			*reposting = !ret;
			return 0;
		}
		slot->checked = true;
	}
	if (!rdmalock_msg_conn_ready(conn))
		return -EAGAIN;
	slot->checked = false;
	*reposting = slot->with_imm ? rdmalock_msg_receive_imm(slot) :
				      rdmalock_msg_receive(slot);
	return 0;
}

/*
 * Handles what @slot received and sends the answer it owes. Messages of
 * one connection come here one at a time, in order, with bottom halves
 * disabled.
 *
 * Return: 1 when @slot is to be given back to the NIC, 0 when it is not
 * (its connection failed), or -EAGAIN when it must wait: its connection
 * is not ready, or its answer found no room. It then stays in @slot and
 * must be done before anything received after it.
 */
static int rdmalock_msg_deliver(struct rdmalock_msg_slot *slot)
{
	struct rdmalock_conn *conn = slot->ring->conn;
	bool reposting;
	int ret;

	if (!slot->answering) {
		ret = rdmalock_msg_take(slot, &reposting);
		if (ret || !reposting)
			return ret;
	}
	if (slot->answering) {
		ret = rdmalock_msg_send_answer(conn, &slot->answer);
		if (ret == -ENOBUFS || ret == -ENOMEM)
			return -EAGAIN;
		/*
		 * Sent, or -ENOTCONN: the request was handled on a ready
		 * connection, so this one is failing now, and the
		 * requester's teardown fails the request. Nothing else can
		 * fail: the fabric built the answer.
		 */
		WARN_ON_ONCE(ret && ret != -ENOTCONN);
		slot->answering = false;
	}
	return 1;
}

/* Gives @slot back to the NIC, once nothing holds it any more. */
static void rdmalock_msg_give_back(struct rdmalock_msg_slot *slot)
{
	struct rdmalock_msg_ring *ring = slot->ring;

	ib_dma_sync_single_for_device(ring->conn->fabric->device,
				      ring->dma + slot->index * RDMALOCK_MSG_SIZE,
				      RDMALOCK_MSG_SIZE, DMA_FROM_DEVICE);
	rdmalock_msg_repost(slot);
}

/* Hands the held messages over in order, as the connection allows. */
static void rdmalock_msg_release(struct work_struct *work)
{
	struct rdmalock_msg_ring *ring = container_of(to_delayed_work(work),
						      struct rdmalock_msg_ring,
						      release_work);
	int ret;
	u8 i;

	for (;;) {
		spin_lock_bh(&ring->hold_lock);
		if (!rdmalock_msg_fifo_first(&ring->held, &i)) {
			spin_unlock_bh(&ring->hold_lock);
			return;
		}
		spin_unlock_bh(&ring->hold_lock);

		/* As if from the CQ: handlers count on it. */
		local_bh_disable();
		ret = rdmalock_msg_deliver(&ring->slots[i]);
		local_bh_enable();
		if (ret == -EAGAIN) {
			/* The send queue drains as the peer acknowledges. */
			queue_delayed_work(ring->conn->fabric->wq,
					   &ring->release_work, 1);
			return;
		}
		/* Out of the queue before the NIC can fill the slot again. */
		spin_lock_bh(&ring->hold_lock);
		rdmalock_msg_fifo_pop(&ring->held);
		spin_unlock_bh(&ring->hold_lock);
		if (ret)
			rdmalock_msg_give_back(&ring->slots[i]);
	}
}

/**
 * rdmalock_msg_conn_up() - start handing over what a connection held back
 * @conn: a connection the CM has just established, with its ring
 *
 * Context: any; called under fabric->lock, in the step that records the
 * CM's event, so that its teardown, which waits for the hand-over, comes
 * after.
 */
void rdmalock_msg_conn_up(struct rdmalock_conn *conn)
{
	queue_delayed_work(conn->fabric->wq, &conn->ring->release_work, 0);
}

static void rdmalock_msg_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdmalock_msg_slot *slot = container_of(wc->wr_cqe,
						      struct rdmalock_msg_slot, cqe);
	struct rdmalock_msg_ring *ring = slot->ring;
	bool held;
	int ret;

	if (wc->status != IB_WC_SUCCESS) {
		rdmalock_conn_wc_failed(ring->conn, wc);
		return;
	}
	/* Even on a failed connection: our region may be what it invalidated. */
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE) {
		rdmalock_conn_invalidated(ring->conn, wc);
		return;
	}
	slot->byte_len = wc->byte_len;
	slot->with_imm = wc->opcode == IB_WC_RECV_RDMA_WITH_IMM;
	slot->imm = slot->with_imm ? be32_to_cpu(wc->ex.imm_data) : 0;

	spin_lock(&ring->hold_lock);
	held = rdmalock_msg_fifo_hold(&ring->held, slot->index);
	spin_unlock(&ring->hold_lock);
	if (held)
		return;
	ret = rdmalock_msg_deliver(slot);
	if (ret == 1)
		rdmalock_msg_give_back(slot);
	if (ret != -EAGAIN)
		return;
	/* Nothing is held now: this one waits first, the rest behind it. */
	spin_lock(&ring->hold_lock);
	rdmalock_msg_fifo_hold_first(&ring->held, slot->index);
	spin_unlock(&ring->hold_lock);
	queue_delayed_work(ring->conn->fabric->wq, &ring->release_work, 1);
}

static void rdmalock_msg_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdmalock_msg_send *s = container_of(wc->wr_cqe,
						   struct rdmalock_msg_send, cqe);
	struct rdmalock_conn *conn = s->conn;

	rdmalock_conn_sq_put(conn);
	ib_dma_unmap_single(conn->fabric->device, s->dma, s->size, DMA_TO_DEVICE);
	if (wc->status == IB_WC_SUCCESS) {
		atomic64_inc(&s->cnt->completed);
		atomic64_add(s->size, &s->cnt->bytes);
	} else {
		atomic64_inc(&s->cnt->failed);
		rdmalock_conn_wc_failed(conn, wc);
	}
	rdmalock_msg_send_free(conn->fabric, s);
	rdmalock_conn_put(conn);
}

/*
 * Numbers, maps and posts @s on its connection, all under post_lock: the
 * sequence numbers must reach the QP in the order they are given out.
 * The handshake's message goes on a connection not up yet.
 */
static int rdmalock_msg_post_send(struct rdmalock_msg_send *s, bool handshake)
{
	struct rdmalock_conn *conn = s->conn;
	struct ib_device *dev = conn->fabric->device;
	struct rdmalock_msg_hdr *hdr = (struct rdmalock_msg_hdr *)s->buf;
	struct ib_sge sge = {
		.length = s->size,
		.lkey = conn->fabric->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &s->cqe,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.sg_list = &sge,
		.num_sge = 1,
	};
	enum rdmalock_conn_state state;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&conn->post_lock, flags);
	state = READ_ONCE(conn->state);
	if (!rdmalock_conn_state_up(state) &&
	    (!handshake || state != RDMALOCK_CONN_CONNECTING)) {
		ret = -ENOTCONN;
		goto out;
	}
	if (!rdmalock_conn_sq_get(conn)) {
		ret = -ENOBUFS;
		goto out;
	}
	hdr->seq = cpu_to_be32(conn->tx_seq);
	s->dma = ib_dma_map_single(dev, s->buf, s->size, DMA_TO_DEVICE);
	ret = ib_dma_mapping_error(dev, s->dma);
	if (ret) {
		rdmalock_conn_sq_put(conn);
		goto out;
	}
	sge.addr = s->dma;
	sge.lkey = rdmalock_fault_msg_lkey(conn, hdr->type, sge.lkey);
	ret = ib_post_send(conn->cm_id->qp, &wr, NULL);
	if (ret) {
		ib_dma_unmap_single(dev, s->dma, s->size, DMA_TO_DEVICE);
		rdmalock_conn_sq_put(conn);
	} else {
		conn->tx_seq++;
	}
out:
	spin_unlock_irqrestore(&conn->post_lock, flags);
	return ret;
}

/* What a message is, for rdmalock_msg_send(). */
#define RDMALOCK_SEND_HANDSHAKE	BIT(0)	/* may go on a connection not up yet */
#define RDMALOCK_SEND_RETRIED	BIT(1)	/* sent again when there was no room */

/**
 * rdmalock_msg_send_lost() - is a message that was not posted lost?
 * @ret: why it was not: the sender's error
 * @retried: its sender sends it again when there was no room or memory
 *
 * Decides whether it counts as a failed send. One that will be sent
 * again is not a send yet, failed or not: the attempt that posts it, or
 * that gives it up, is what counts.
 *
 * Return: true when it is lost.
 */
VISIBLE_IF_KUNIT bool rdmalock_msg_send_lost(int ret, bool retried)
{
	return !retried || !rdmalock_no_room(ret);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_msg_send_lost);

/* Copies, numbers and posts one message on @conn; RDMALOCK_SEND_* @flags. */
static int rdmalock_msg_send(struct rdmalock_conn *conn, u8 type,
			     const void *payload, u32 len, unsigned int flags)
{
	bool retried = flags & RDMALOCK_SEND_RETRIED;
	struct rdmalock_fabric *fabric = conn->fabric;
	u32 node = rdmalock_conn_node(conn);
	struct rdmalock_verb_counters *cnt;
	struct rdmalock_msg_hdr *hdr;
	struct rdmalock_msg_send *s;
	int ret;

	cnt = &fabric->peers[node].verbs[RDMALOCK_VERB_SEND];
	s = rdmalock_fault_alloc(NULL, node, RDMALOCK_VERB_SEND, type) ? NULL :
	    mempool_alloc(fabric->send_pool, GFP_ATOMIC);
	if (!s) {
		if (rdmalock_msg_send_lost(-ENOMEM, retried))
			atomic64_inc(&cnt->failed);
		return -ENOMEM;
	}
	s->cnt = cnt;
	kref_get(&conn->ref);
	s->conn = conn;
	s->cqe.done = rdmalock_msg_send_done;
	s->size = sizeof(*hdr) + len;
	hdr = (struct rdmalock_msg_hdr *)s->buf;
	hdr->magic = cpu_to_be16(RDMALOCK_MSG_MAGIC);
	hdr->version = RDMALOCK_MSG_VERSION;
	hdr->type = type;
	hdr->len = cpu_to_be16(len);
	hdr->src_node = cpu_to_be16(fabric->attr.node_id);
	hdr->domain = cpu_to_be32(fabric->domain_hash);
	if (len)
		memcpy(s->buf + sizeof(*hdr), payload, len);

	/* Before the post: its completion may come at once. */
	atomic64_inc(&cnt->posted);
	ret = rdmalock_msg_post_send(s, flags & RDMALOCK_SEND_HANDSHAKE);
	if (!ret)
		return 0;
	rdmalock_msg_send_free(fabric, s);
	rdmalock_conn_put(conn);
	if (ret == -ENOMEM)
		ret = -ENOBUFS;
	if (rdmalock_msg_send_lost(ret, retried))
		atomic64_inc(&cnt->failed);
	else
		atomic64_dec(&cnt->posted);
	return ret;
}

/**
 * rdmalock_msg_conn_send() - send a message on a given connection
 * @conn: the connection, held by the caller; it need not be offered to
 *	users yet, only up
 * @type: a valid message type
 * @payload: @len bytes, copied before this returns
 * @len: at most %RDMALOCK_MSG_MAX_PAYLOAD
 * @retried: the caller sends it again if there is no room or no buffer:
 *	such an attempt counts as no send (rdmalock_msg_send_lost())
 *
 * For what must go on one connection and no other: a request whose
 * answer is awaited there, an answer to a request that came on it.
 *
 * Context: any; does not sleep.
 * Return: 0 once posted; -ENOTCONN when @conn is not up; -ENOMEM; -ENOBUFS
 * when its send queue is full.
 */
int rdmalock_msg_conn_send(struct rdmalock_conn *conn, u8 type,
			   const void *payload, u32 len, bool retried)
{
	return rdmalock_msg_send(conn, type, payload, len,
				 retried ? RDMALOCK_SEND_RETRIED : 0);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_msg_conn_send);

/**
 * rdmalock_msg_send_answer() - send an answer the fabric owes
 * @conn: the connection its request came on, held by the caller
 * @answer: the answer, copied before this returns
 *
 * The caller keeps an answer that finds no room or no memory and sends
 * it again (see "Answers owed" above): that is not counted as a failed
 * send, as one that is lost is.
 *
 * Context: any; does not sleep.
 * Return: as rdmalock_msg_conn_send().
 */
int rdmalock_msg_send_answer(struct rdmalock_conn *conn,
			     const struct rdmalock_msg_answer *answer)
{
	return rdmalock_msg_send(conn, answer->type, answer->payload,
				 answer->len, RDMALOCK_SEND_RETRIED);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_msg_send_answer);

/**
 * rdmalock_msg_send_handshake() - send the handshake's message
 * @conn: the connection, up or still connecting
 * @payload: @len bytes, copied before this returns
 * @len: at most %RDMALOCK_MSG_MAX_PAYLOAD
 *
 * Context: any; does not sleep.
 * Return: as rdmalock_msg_conn_send().
 */
int rdmalock_msg_send_handshake(struct rdmalock_conn *conn, const void *payload,
				u32 len)
{
	return rdmalock_msg_send(conn, RDMALOCK_MSG_AUTH, payload, len,
				 RDMALOCK_SEND_HANDSHAKE);
}

/**
 * rdmalock_fabric_send() - send a message to a node
 * @fabric: the domain's fabric
 * @node: the destination; this node's own id sends through the loopback
 * @type: the message type, from %RDMALOCK_MSG_USER_FIRST to
 *	%RDMALOCK_MSG_TYPES - 1: the fabric's own are its alone
 * @payload: @len bytes, copied before this returns
 * @len: at most %RDMALOCK_MSG_MAX_PAYLOAD
 *
 * Messages to one node arrive in the order they were sent. Delivery is
 * not confirmed: a message in flight when the connection fails is lost,
 * and the connection's failure is how the sender learns it.
 *
 * Context: any; does not sleep.
 * Return: 0 once posted; -EINVAL for a bad node, type or length;
 * -ENOTCONN when @node is not connected; -ENOMEM; -ENOBUFS when the send
 * queue is full.
 */
int rdmalock_fabric_send(struct rdmalock_fabric *fabric, u32 node, u8 type,
			 const void *payload, u32 len)
{
	return rdmalock_fabric_send_wait(fabric, node, type, payload, len, 0);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_fabric_send);

/**
 * rdmalock_fabric_send_wait() - send a message to a node, waiting a while for room
 * @fabric: the domain's fabric
 * @node: as for rdmalock_fabric_send()
 * @type: as for rdmalock_fabric_send()
 * @payload: as for rdmalock_fabric_send()
 * @len: as for rdmalock_fabric_send()
 * @wait_ns: how long a full send queue, or an empty pool of message
 *	buffers whose reserve the messages in flight hold, is waited out
 *
 * The attempts that find no room or no buffer before @wait_ns is over
 * are no sends, in the peer's counters; the last one counts, posted or
 * failed.
 *
 * Context: process context, sleeps; with a @wait_ns of 0, any.
 * Return: as rdmalock_fabric_send(); -ENOBUFS or -ENOMEM when there was
 * no room or no buffer for @wait_ns.
 */
int rdmalock_fabric_send_wait(struct rdmalock_fabric *fabric, u32 node, u8 type,
			      const void *payload, u32 len, u64 wait_ns)
{
	ktime_t end = ktime_add_ns(ktime_get(), wait_ns);
	struct rdmalock_conn *conn;
	bool again;
	int ret;

	if (node >= fabric->attr.num_nodes || type < RDMALOCK_MSG_USER_FIRST ||
	    type >= RDMALOCK_MSG_TYPES || len > RDMALOCK_MSG_MAX_PAYLOAD)
		return -EINVAL;
	for (;;) {
		conn = rdmalock_peer_get_conn(&fabric->peers[node]);
		if (!conn) {
			atomic64_inc(&fabric->peers[node].verbs[RDMALOCK_VERB_SEND].failed);
			return -ENOTCONN;
		}
		again = wait_ns && ktime_before(ktime_get(), end);
		ret = rdmalock_msg_conn_send(conn, type, payload, len, again);
		rdmalock_conn_put(conn);
		if (!again || !rdmalock_no_room(ret))
			return ret;
		usleep_range(50, 100);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_fabric_send_wait);

/**
 * rdmalock_fabric_set_handler() - route messages of a type to a function
 * @fabric: the domain's fabric
 * @type: %RDMALOCK_MSG_USER_FIRST to %RDMALOCK_MSG_TYPES - 1
 * @fn: called for each message of @type (see rdmalock_msg_fn)
 * @ctx: passed to @fn
 *
 * Set a handler before any node can send that type; a handler is never
 * replaced or removed while the fabric lives.
 *
 * Context: any.
 * Return: 0, -EINVAL for a type of the fabric's own, -EBUSY when one is
 * set.
 */
int rdmalock_fabric_set_handler(struct rdmalock_fabric *fabric, u8 type,
				rdmalock_msg_fn *fn, void *ctx)
{
	struct rdmalock_msg_handler *h;

	if (type < RDMALOCK_MSG_USER_FIRST || type >= RDMALOCK_MSG_TYPES)
		return -EINVAL;
	h = &fabric->handlers[type];
	if (READ_ONCE(h->fn))
		return -EBUSY;
	h->ctx = ctx;
	/* Publish ctx before fn; pairs with rdmalock_msg_dispatch(). */
	smp_store_release(&h->fn, fn);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_fabric_set_handler);

/**
 * rdmalock_fabric_set_imm_handler() - who hears of WRITEs with immediate
 * @fabric: the fabric
 * @fn: called for each one that lands in this node's region
 * @ctx: passed to @fn
 *
 * Set it before any node can write with immediate here; it is never
 * replaced while the fabric lives.
 *
 * Context: any.
 * Return: 0, or -EBUSY when one is set.
 */
int rdmalock_fabric_set_imm_handler(struct rdmalock_fabric *fabric,
				    rdmalock_imm_fn *fn, void *ctx)
{
	struct rdmalock_imm_handler *h = &fabric->imm_handler;

	if (READ_ONCE(h->fn))
		return -EBUSY;
	h->ctx = ctx;
	/* Publish ctx before fn; pairs with rdmalock_imm_dispatch(). */
	smp_store_release(&h->fn, fn);
	return 0;
}

static void rdmalock_heartbeat(struct work_struct *work)
{
	struct rdmalock_fabric *fabric = container_of(to_delayed_work(work),
						      struct rdmalock_fabric,
						      heartbeat_work);
	unsigned long timeout = msecs_to_jiffies(fabric->attr.heartbeat_timeout_ms);
	struct rdmalock_conn *conn;
	u32 i;

	for (i = 0; i < fabric->attr.num_nodes; i++) {
		struct rdmalock_peer *peer = &fabric->peers[i];

		if (i == fabric->attr.node_id)
			continue;
		conn = rdmalock_peer_get_conn(peer);
		if (!conn)
			continue;
		if (time_after(jiffies, READ_ONCE(peer->last_heard) + timeout))
			rdmalock_conn_fail(conn, "no heartbeat");
		else
			rdmalock_msg_conn_send(conn, RDMALOCK_MSG_HEARTBEAT, NULL, 0, false);
		rdmalock_conn_put(conn);
	}
	queue_delayed_work(fabric->wq, &fabric->heartbeat_work,
			   msecs_to_jiffies(fabric->attr.heartbeat_ms));
}

/**
 * rdmalock_heartbeat_check() - are these heartbeat parameters usable?
 * @interval_ms: the period of heartbeats, 0 for none
 * @timeout_ms: how long a peer may stay silent
 *
 * A peer is only heard from every @interval_ms when idle, so a timeout
 * that is not longer than that would fail every idle peer.
 *
 * Return: 0, or -EINVAL.
 */
VISIBLE_IF_KUNIT int rdmalock_heartbeat_check(unsigned int interval_ms,
					      unsigned int timeout_ms)
{
	if (interval_ms && timeout_ms <= interval_ms)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_heartbeat_check);

/**
 * rdmalock_msg_pool_create() - the message buffers of a new fabric
 * @fabric: the fabric
 *
 * Sends are made in any context, lock calls' and hand-overs' among them:
 * when the allocator has nothing, the pool's reserve still serves.
 *
 * Return: 0 or -ENOMEM.
 */
VISIBLE_IF_KUNIT int rdmalock_msg_pool_create(struct rdmalock_fabric *fabric)
{
	fabric->send_pool = mempool_create_kmalloc_pool(RDMALOCK_SEND_RESERVE,
							sizeof(struct rdmalock_msg_send));
	return fabric->send_pool ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_msg_pool_create);

/**
 * rdmalock_msg_init() - prepare a new fabric for messages
 * @fabric: the fabric, before it makes or accepts any connection
 *
 * Return: 0, -EINVAL for heartbeat parameters that cannot work, or
 * -ENOMEM.
 */
int rdmalock_msg_init(struct rdmalock_fabric *fabric)
{
	if (rdmalock_heartbeat_check(fabric->attr.heartbeat_ms,
				     fabric->attr.heartbeat_timeout_ms)) {
		pr_err_ratelimited("%s: heartbeat_timeout_ms (%u) must be larger than heartbeat_ms (%u)\n",
				   fabric->attr.name, fabric->attr.heartbeat_timeout_ms,
				   fabric->attr.heartbeat_ms);
		return -EINVAL;
	}
	fabric->domain_hash = jhash(fabric->attr.name,
				    strnlen(fabric->attr.name, RDMALOCK_NAME_MAX), 0);
	INIT_DELAYED_WORK(&fabric->heartbeat_work, rdmalock_heartbeat);
	return rdmalock_msg_pool_create(fabric);
}

/**
 * rdmalock_msg_exit() - free what rdmalock_msg_init() made
 * @fabric: a fabric without connections, or one that never had any
 */
void rdmalock_msg_exit(struct rdmalock_fabric *fabric)
{
	mempool_destroy(fabric->send_pool);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_msg_exit);

/* The handshake's message carried the region's rkey. */
static void rdmalock_msg_send_free(struct rdmalock_fabric *fabric,
				   struct rdmalock_msg_send *s)
{
	memzero_explicit(s, sizeof(*s));
	mempool_free(s, fabric->send_pool);
}

/**
 * rdmalock_msg_start() - start the heartbeats of a fabric
 * @fabric: a fabric that accepts peers
 */
void rdmalock_msg_start(struct rdmalock_fabric *fabric)
{
	if (fabric->attr.heartbeat_ms)
		queue_delayed_work(fabric->wq, &fabric->heartbeat_work,
				   msecs_to_jiffies(fabric->attr.heartbeat_ms));
}

/**
 * rdmalock_msg_stop() - stop the heartbeats of a fabric
 * @fabric: the fabric
 *
 * Context: process context; waits for a heartbeat in progress.
 */
void rdmalock_msg_stop(struct rdmalock_fabric *fabric)
{
	cancel_delayed_work_sync(&fabric->heartbeat_work);
}

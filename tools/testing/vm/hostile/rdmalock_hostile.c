// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock_hostile: a test-only module that plays a hostile peer against
 * a node of an rdmalock domain, for the fabric-hostile VM scenario.
 *
 * It speaks rdma_cm to the node's port and builds the connect data and
 * the messages from the fabric's wire format (kmod/fabric.h,
 * Documentation/fabric.rst, "Handshake"), wrongly on purpose. One attack
 * runs per line written to /sys/kernel/debug/rdmalock_hostile/attack:
 *
 *   ATTACK SRC DST PORT DOMAIN NODE LOCKS [RKEY]
 *
 * SRC and DST are IPv4 addresses (ours and the target's), NODE the node
 * id this peer claims, LOCKS the domain's locks per node (the hello must
 * announce the region's length), RKEY (hex) a remote key of the target
 * that the scenario stole for us. The attacks:
 *
 *   nokey      a hello that says this peer has no key
 *   forged-id  a well-formed hello, from an address that is not NODE's
 *   wrong-key  the handshake's message with a proof made without the key
 *   early      a heartbeat before the handshake's message
 *   malformed  a message whose header has the wrong magic
 *   oversized  a message larger than the receive buffers
 *   read       an RDMA READ of the target's region (with RKEY) before the
 *              handshake
 *   invalidate a SEND_WITH_INVALIDATE naming RKEY, before the handshake
 *   replay     connect twice; on the second connection, the proof the
 *              target sent on the first one, as ours
 *   join       the handshake's message with a proof of zeros, which only a
 *              domain without a key takes, from a hello that says we have
 *              no key
 *
 * The write returns once the attack is over (at most ~25 s); the outcome
 * is then in /sys/kernel/debug/rdmalock_hostile/result, one line:
 *
 *   refused: WHY      the target would not have us (rejected the request,
 *                     or dropped the connection)
 *   joined: ...       the target sent us its region, and we read it
 *   error: WHY        the attack could not be carried out (ours)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <rdma/rdma_cm.h>

#include "fabric-wire.h"
#include "locks.h"

#define HOSTILE_RECVS		4
/* Twice a receive buffer of the fabric, for the oversized message. */
#define HOSTILE_BUF_LEN		(2 * RDMALOCK_MSG_SIZE)
#define HOSTILE_RESOLVE_MS	5000
/* Longer than the fabric's bound on a connection's setup (10 s). */
#define HOSTILE_WAIT		(12 * HZ)

/* Events of the connection, set by the cm handler, under hostile.lock. */
enum {
	EV_ADDR = BIT(0),
	EV_ROUTE = BIT(1),
	EV_ESTABLISHED = BIT(2),
	EV_REJECTED = BIT(3),
	EV_FAILED = BIT(4),	/* unreachable, connect/address/route error */
	EV_DISCONNECTED = BIT(5),
	EV_RECV = BIT(6),	/* a message from the target */
	EV_RECV_ERR = BIT(7),	/* a receive that completed in error */
	EV_READ = BIT(8),	/* our RDMA READ completed, well or not */
	EV_SEND_ERR = BIT(9),	/* one of our sends completed in error */
};

struct hostile_buf {
	struct ib_cqe cqe;
	void *data;
	u64 dma;
	enum dma_data_direction dir;
};

/* One connection to the target, and the attack's parameters. */
struct hostile_conn {
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool qp;
	struct hostile_buf recv[HOSTILE_RECVS];
	struct hostile_buf send;
	struct hostile_buf read;
	wait_queue_head_t wq;
	spinlock_t lock;		/* events, rep, msg */
	unsigned long events;
	int reject_status;
	enum ib_wc_status read_status;
	struct rdmalock_cm_rep rep;
	u8 msg[RDMALOCK_MSG_SIZE];
};

struct hostile_attack {
	char name[16];
	struct sockaddr_in src, dst;
	char domain[RDMALOCK_NAME_MAX];
	u32 node;
	u32 locks;
	u32 rkey;
	u32 seq;		/* the next message's */
	u8 acc_proof[RDMALOCK_PROOF_LEN];	/* replay: the first one's */
};

static DEFINE_MUTEX(hostile_mutex);	/* one attack at a time; result */
static char hostile_result[160];
static struct dentry *hostile_dir;

static void hostile_event(struct hostile_conn *hc, unsigned long ev)
{
	unsigned long flags;

	spin_lock_irqsave(&hc->lock, flags);
	hc->events |= ev;
	spin_unlock_irqrestore(&hc->lock, flags);
	wake_up(&hc->wq);
}

static unsigned long hostile_events(struct hostile_conn *hc)
{
	unsigned long flags, ev;

	spin_lock_irqsave(&hc->lock, flags);
	ev = hc->events;
	spin_unlock_irqrestore(&hc->lock, flags);
	return ev;
}

/* Waits for any of @mask; returns the events seen so far. */
static unsigned long hostile_wait(struct hostile_conn *hc, unsigned long mask)
{
	wait_event_timeout(hc->wq, hostile_events(hc) & mask, HOSTILE_WAIT);
	return hostile_events(hc);
}

static int hostile_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct hostile_conn *hc = id->context;
	unsigned long flags;
	u8 len;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		hostile_event(hc, EV_ADDR);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		hostile_event(hc, EV_ROUTE);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		len = min_t(u8, ev->param.conn.private_data_len, sizeof(hc->rep));
		spin_lock_irqsave(&hc->lock, flags);
		if (ev->param.conn.private_data)
			memcpy(&hc->rep, ev->param.conn.private_data, len);
		spin_unlock_irqrestore(&hc->lock, flags);
		hostile_event(hc, EV_ESTABLISHED);
		break;
	case RDMA_CM_EVENT_REJECTED:
		hc->reject_status = ev->status;
		hostile_event(hc, EV_REJECTED);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		hostile_event(hc, EV_DISCONNECTED);
		break;
	default:
		hostile_event(hc, EV_FAILED);
		break;
	}
	return 0;
}

static void hostile_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hostile_buf *b = container_of(wc->wr_cqe, struct hostile_buf, cqe);
	struct hostile_conn *hc = cq->cq_context;
	unsigned long flags;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			hostile_event(hc, EV_RECV_ERR);
		return;
	}
	spin_lock_irqsave(&hc->lock, flags);
	if (!(hc->events & EV_RECV)) {
		ib_dma_sync_single_for_cpu(cq->device, b->dma, HOSTILE_BUF_LEN,
					   DMA_FROM_DEVICE);
		memcpy(hc->msg, b->data,
		       min_t(u32, wc->byte_len, sizeof(hc->msg)));
	}
	spin_unlock_irqrestore(&hc->lock, flags);
	hostile_event(hc, EV_RECV);
}

static void hostile_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		hostile_event(cq->cq_context, EV_SEND_ERR);
}

static void hostile_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hostile_conn *hc = cq->cq_context;

	hc->read_status = wc->status;
	hostile_event(hc, EV_READ);
}

static int hostile_buf_map(struct hostile_conn *hc, struct hostile_buf *b,
			   enum dma_data_direction dir)
{
	struct ib_device *dev = hc->id->device;

	b->data = kzalloc(HOSTILE_BUF_LEN, GFP_KERNEL);
	if (!b->data)
		return -ENOMEM;
	b->dma = ib_dma_map_single(dev, b->data, HOSTILE_BUF_LEN, dir);
	if (ib_dma_mapping_error(dev, b->dma)) {
		kfree(b->data);
		b->data = NULL;
		return -ENOMEM;
	}
	b->dir = dir;
	return 0;
}

static void hostile_buf_unmap(struct hostile_conn *hc, struct hostile_buf *b)
{
	if (!b->data)
		return;
	ib_dma_unmap_single(hc->id->device, b->dma, HOSTILE_BUF_LEN, b->dir);
	kfree(b->data);
	b->data = NULL;
}

static int hostile_post_recvs(struct hostile_conn *hc)
{
	int i, ret;

	for (i = 0; i < HOSTILE_RECVS; i++) {
		struct hostile_buf *b = &hc->recv[i];
		struct ib_sge sge = {
			.addr = b->dma, .length = HOSTILE_BUF_LEN,
			.lkey = hc->pd->local_dma_lkey,
		};
		struct ib_recv_wr wr = {
			.wr_cqe = &b->cqe, .sg_list = &sge, .num_sge = 1,
		};

		b->cqe.done = hostile_recv_done;
		ret = ib_post_recv(hc->id->qp, &wr, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

/* PD, CQ, QP and buffers for @hc, whose route is resolved. */
static int hostile_conn_setup(struct hostile_conn *hc)
{
	struct ib_qp_init_attr attr = {
		.cap = {
			.max_send_wr = 8, .max_recv_wr = HOSTILE_RECVS,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	int i, ret;

	hc->pd = ib_alloc_pd(hc->id->device, 0);
	if (IS_ERR(hc->pd)) {
		ret = PTR_ERR(hc->pd);
		hc->pd = NULL;
		return ret;
	}
	hc->cq = ib_alloc_cq(hc->id->device, hc, 16, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(hc->cq)) {
		ret = PTR_ERR(hc->cq);
		hc->cq = NULL;
		return ret;
	}
	attr.send_cq = hc->cq;
	attr.recv_cq = hc->cq;
	ret = rdma_create_qp(hc->id, hc->pd, &attr);
	if (ret)
		return ret;
	hc->qp = true;
	for (i = 0; i < HOSTILE_RECVS && !ret; i++)
		ret = hostile_buf_map(hc, &hc->recv[i], DMA_FROM_DEVICE);
	ret = ret ?: hostile_buf_map(hc, &hc->send, DMA_TO_DEVICE);
	ret = ret ?: hostile_buf_map(hc, &hc->read, DMA_FROM_DEVICE);
	return ret ?: hostile_post_recvs(hc);
}

static void hostile_conn_free(struct hostile_conn *hc)
{
	int i;

	/* As the fabric's teardown: flush what is posted, then go. */
	if (hc->qp) {
		ib_drain_qp(hc->id->qp);
		rdma_disconnect(hc->id);
		rdma_destroy_qp(hc->id);
	}
	for (i = 0; i < HOSTILE_RECVS; i++)
		hostile_buf_unmap(hc, &hc->recv[i]);
	hostile_buf_unmap(hc, &hc->send);
	hostile_buf_unmap(hc, &hc->read);
	if (hc->cq)
		ib_free_cq(hc->cq);
	if (hc->pd)
		ib_dealloc_pd(hc->pd);
	rdma_destroy_id(hc->id);
	kfree(hc);
}

/* The region's length that the domain's nodes (ids map to slots) announce. */
static u32 hostile_region_len(const struct hostile_attack *a)
{
	return rdmalock_region_len_for(rdmalock_locks_len(a->locks,
							  RDMALOCK_DEFAULT_DESCRIPTORS,
							  false));
}

/* Our hello: what a node of the domain would say, but for @flags. */
static void hostile_hello(const struct hostile_attack *a, u8 flags,
			  struct rdmalock_cm_pdata *pd)
{
	memset(pd, 0, sizeof(*pd));
	pd->magic = cpu_to_be32(RDMALOCK_CM_MAGIC);
	pd->version = RDMALOCK_CM_VERSION;
	pd->flags = flags;
	pd->node_id = cpu_to_be16(a->node);
	pd->name_hash = cpu_to_be32(jhash(a->domain, strlen(a->domain), 0));
	pd->region_len = cpu_to_be32(hostile_region_len(a));
	get_random_bytes(pd->nonce, sizeof(pd->nonce));
}

/*
 * Connects to the target with a hello carrying @flags; *@hcp is the
 * connection, established or not (its events say). Returns 0 or why it
 * could not even try.
 */
static int hostile_connect(struct hostile_attack *a, u8 flags,
			   struct hostile_conn **hcp)
{
	struct rdmalock_cm_pdata pd;
	struct rdma_conn_param param = {
		.private_data = &pd, .private_data_len = sizeof(pd),
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 3, .rnr_retry_count = 3,
	};
	struct hostile_conn *hc;
	int ret;

	hc = kzalloc(sizeof(*hc), GFP_KERNEL);
	if (!hc)
		return -ENOMEM;
	init_waitqueue_head(&hc->wq);
	spin_lock_init(&hc->lock);
	hc->id = rdma_create_id(&init_net, hostile_cm_handler, hc, RDMA_PS_TCP,
				IB_QPT_RC);
	if (IS_ERR(hc->id)) {
		ret = PTR_ERR(hc->id);
		kfree(hc);
		return ret;
	}
	*hcp = hc;
	a->seq = 0;
	ret = rdma_resolve_addr(hc->id, (struct sockaddr *)&a->src,
				(struct sockaddr *)&a->dst, HOSTILE_RESOLVE_MS);
	if (ret || !(hostile_wait(hc, EV_ADDR | EV_FAILED) & EV_ADDR))
		return ret ?: -EHOSTUNREACH;
	ret = rdma_resolve_route(hc->id, HOSTILE_RESOLVE_MS);
	if (ret || !(hostile_wait(hc, EV_ROUTE | EV_FAILED) & EV_ROUTE))
		return ret ?: -ENETUNREACH;
	ret = hostile_conn_setup(hc);
	if (ret)
		return ret;
	hostile_hello(a, flags, &pd);
	ret = rdma_connect(hc->id, &param);
	if (ret)
		return ret;
	hostile_wait(hc, EV_ESTABLISHED | EV_REJECTED | EV_FAILED |
			 EV_DISCONNECTED);
	return 0;
}

/* Posts @len bytes of the send buffer, as @opcode (a SEND of some kind). */
static int hostile_post_send(struct hostile_conn *hc, u32 len,
			     enum ib_wr_opcode opcode, u32 rkey)
{
	struct ib_sge sge = {
		.addr = hc->send.dma, .length = len,
		.lkey = hc->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &hc->send.cqe, .sg_list = &sge, .num_sge = 1,
		.opcode = opcode, .send_flags = IB_SEND_SIGNALED,
	};

	if (opcode == IB_WR_SEND_WITH_INV)
		wr.ex.invalidate_rkey = rkey;
	hc->send.cqe.done = hostile_send_done;
	ib_dma_sync_single_for_device(hc->id->device, hc->send.dma,
				      HOSTILE_BUF_LEN, DMA_TO_DEVICE);
	return ib_post_send(hc->id->qp, &wr, NULL);
}

/*
 * Writes a message into the send buffer as a node of the domain would:
 * header, then @len bytes of @payload. Returns its length on the wire.
 */
static u32 hostile_msg(struct hostile_attack *a, struct hostile_conn *hc,
		       u8 type, const void *payload, u32 len)
{
	struct rdmalock_msg_hdr *hdr = hc->send.data;

	hdr->magic = cpu_to_be16(RDMALOCK_MSG_MAGIC);
	hdr->version = RDMALOCK_MSG_VERSION;
	hdr->type = type;
	hdr->len = cpu_to_be16(len);
	hdr->src_node = cpu_to_be16(a->node);
	hdr->domain = cpu_to_be32(jhash(a->domain, strlen(a->domain), 0));
	hdr->seq = cpu_to_be32(a->seq++);
	memcpy(hdr + 1, payload, len);
	return sizeof(*hdr) + len;
}

/* The handshake's message, with @proof (NULL: a proof of zeros). */
static u32 hostile_auth_msg(struct hostile_attack *a, struct hostile_conn *hc,
			    const u8 *proof)
{
	struct rdmalock_auth_msg msg = {
		.region_addr = cpu_to_be64(0x10000),
		.region_rkey = cpu_to_be32(0x1234),
		.region_len = cpu_to_be32(hostile_region_len(a)),
	};

	if (proof)
		memcpy(msg.proof, proof, sizeof(msg.proof));
	return hostile_msg(a, hc, RDMALOCK_MSG_AUTH, &msg, sizeof(msg));
}

/* One RDMA READ of 8 bytes at @addr of the target's region. */
static int hostile_read(struct hostile_conn *hc, u64 addr, u32 rkey)
{
	struct ib_sge sge = {
		.addr = hc->read.dma, .length = 8,
		.lkey = hc->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &hc->read.cqe, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_RDMA_READ, .send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = addr,
		.rkey = rkey,
	};
	int ret;

	hc->read.cqe.done = hostile_read_done;
	ret = ib_post_send(hc->id->qp, &wr.wr, NULL);
	if (ret)
		return ret;
	if (!(hostile_wait(hc, EV_READ) & EV_READ))
		return -ETIMEDOUT;
	return hc->read_status == IB_WC_SUCCESS ? 0 : -EACCES;
}

/*
 * What came of an established connection on which we sent something:
 * the target's region (we read a word of it), or its refusal.
 */
static void hostile_outcome(struct hostile_conn *hc)
{
	unsigned long ev = hostile_wait(hc, EV_RECV | EV_RECV_ERR |
					    EV_SEND_ERR | EV_DISCONNECTED);
	const struct rdmalock_msg_hdr *hdr = (const void *)hc->msg;
	const struct rdmalock_auth_msg *am = (const void *)(hdr + 1);
	u64 addr;
	u32 rkey;
	int ret;

	if (!(ev & EV_RECV)) {
		snprintf(hostile_result, sizeof(hostile_result),
			 "refused: %s\n", ev & EV_DISCONNECTED ? "disconnected" :
			 ev & (EV_SEND_ERR | EV_RECV_ERR) ? "connection failed" :
			 "no answer");
		return;
	}
	if (hdr->type != RDMALOCK_MSG_AUTH) {
		snprintf(hostile_result, sizeof(hostile_result),
			 "joined: the target sent a message of type %u\n",
			 hdr->type);
		return;
	}
	addr = be64_to_cpu(am->region_addr);
	rkey = be32_to_cpu(am->region_rkey);
	ret = hostile_read(hc, addr, rkey);
	snprintf(hostile_result, sizeof(hostile_result),
		 "joined: region %#llx rkey %#x, read %s\n", addr, rkey,
		 ret ? "failed" : "ok");
}

/* The target's answer to a hello; false when it did not establish. */
static bool hostile_established(struct hostile_conn *hc, int err)
{
	unsigned long ev = err ? 0 : hostile_events(hc);

	if (err)
		snprintf(hostile_result, sizeof(hostile_result),
			 "error: cannot connect: %d\n", err);
	else if (ev & EV_REJECTED)
		snprintf(hostile_result, sizeof(hostile_result),
			 "refused: rejected (status %d)\n", hc->reject_status);
	else if (!(ev & EV_ESTABLISHED))
		snprintf(hostile_result, sizeof(hostile_result),
			 "refused: %s\n", ev ? "connection failed" : "no answer");
	return !err && (ev & EV_ESTABLISHED) && !(ev & EV_REJECTED);
}

/* The replay's first connection: keep the proof the target gave. */
static int hostile_capture(struct hostile_attack *a)
{
	struct hostile_conn *hc = NULL;
	int ret = hostile_connect(a, 0, &hc);

	if (!hostile_established(hc, ret)) {
		if (hc)
			hostile_conn_free(hc);
		return -ECONNREFUSED;
	}
	memcpy(a->acc_proof, hc->rep.proof, sizeof(a->acc_proof));
	hostile_conn_free(hc);
	return 0;
}

/* Runs attack @a once it is connected on @hc; sets the result. */
static void hostile_attack_conn(struct hostile_attack *a,
				struct hostile_conn *hc)
{
	u8 proof[RDMALOCK_PROOF_LEN];
	struct rdmalock_msg_hdr *hdr = hc->send.data;
	enum ib_wr_opcode op = IB_WR_SEND;
	u32 len;
	int ret;

	if (!strcmp(a->name, "read")) {
		ret = hostile_read(hc, 0, a->rkey);
		snprintf(hostile_result, sizeof(hostile_result), "%s\n",
			 ret ? "refused: read failed" : "joined: read ok");
		return;
	}
	if (!strcmp(a->name, "wrong-key")) {
		/* An HMAC under another key: as good as random bytes. */
		get_random_bytes(proof, sizeof(proof));
		len = hostile_auth_msg(a, hc, proof);
	} else if (!strcmp(a->name, "replay")) {
		len = hostile_auth_msg(a, hc, a->acc_proof);
	} else if (!strcmp(a->name, "join")) {
		len = hostile_auth_msg(a, hc, NULL);
	} else if (!strcmp(a->name, "early")) {
		len = hostile_msg(a, hc, RDMALOCK_MSG_HEARTBEAT, NULL, 0);
	} else if (!strcmp(a->name, "malformed")) {
		len = hostile_auth_msg(a, hc, NULL);
		hdr->magic = cpu_to_be16(~RDMALOCK_MSG_MAGIC);
	} else if (!strcmp(a->name, "oversized")) {
		len = hostile_msg(a, hc, RDMALOCK_MSG_HEARTBEAT, NULL, 0);
		len = HOSTILE_BUF_LEN;
	} else {	/* invalidate */
		len = hostile_auth_msg(a, hc, NULL);
		op = IB_WR_SEND_WITH_INV;
	}
	ret = hostile_post_send(hc, len, op, a->rkey);
	if (ret) {
		snprintf(hostile_result, sizeof(hostile_result),
			 "error: cannot send: %d\n", ret);
		return;
	}
	hostile_outcome(hc);
}

static void hostile_run(struct hostile_attack *a)
{
	static const char * const attacks[] = {
		"nokey", "forged-id", "wrong-key", "early", "malformed",
		"oversized", "read", "invalidate", "replay", "join",
	};
	bool keyless = !strcmp(a->name, "nokey") || !strcmp(a->name, "join");
	struct hostile_conn *hc = NULL;
	int ret;

	if (match_string(attacks, ARRAY_SIZE(attacks), a->name) < 0) {
		snprintf(hostile_result, sizeof(hostile_result),
			 "error: no attack %s\n", a->name);
		return;
	}
	if (!strcmp(a->name, "replay") && hostile_capture(a)) {
		snprintf(hostile_result, sizeof(hostile_result),
			 "error: the replay's first connection was refused\n");
		return;
	}
	ret = hostile_connect(a, keyless ? RDMALOCK_CM_F_KEYLESS : 0, &hc);
	if (hostile_established(hc, ret))
		hostile_attack_conn(a, hc);
	if (hc)
		hostile_conn_free(hc);
	pr_info("%s: %s", a->name, hostile_result);
}

static int hostile_parse(const char *line, struct hostile_attack *a)
{
	char src[16], dst[16];
	u16 port;

	a->rkey = 0;
	if (sscanf(line, "%15s %15s %15s %hu %31s %u %u %x", a->name, src, dst,
		   &port, a->domain, &a->node, &a->locks, &a->rkey) < 7)
		return -EINVAL;
	a->src.sin_family = AF_INET;
	a->dst.sin_family = AF_INET;
	a->dst.sin_port = htons(port);
	if (!in4_pton(src, -1, (u8 *)&a->src.sin_addr.s_addr, -1, NULL) ||
	    !in4_pton(dst, -1, (u8 *)&a->dst.sin_addr.s_addr, -1, NULL) ||
	    !a->locks)
		return -EINVAL;
	return 0;
}

static ssize_t hostile_attack_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct hostile_attack *a;
	char line[160];
	int ret;

	if (count >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, count))
		return -EFAULT;
	line[count] = '\0';
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	ret = hostile_parse(line, a);
	if (!ret) {
		mutex_lock(&hostile_mutex);
		hostile_run(a);
		mutex_unlock(&hostile_mutex);
	}
	kfree(a);
	return ret ?: count;
}

static ssize_t hostile_result_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&hostile_mutex);
	ret = simple_read_from_buffer(ubuf, count, ppos, hostile_result,
				      strlen(hostile_result));
	mutex_unlock(&hostile_mutex);
	return ret;
}

static const struct file_operations hostile_attack_fops = {
	.owner = THIS_MODULE,
	.write = hostile_attack_write,
};

static const struct file_operations hostile_result_fops = {
	.owner = THIS_MODULE,
	.read = hostile_result_read,
};

static int __init hostile_init(void)
{
	hostile_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("attack", 0200, hostile_dir, NULL,
			    &hostile_attack_fops);
	debugfs_create_file("result", 0400, hostile_dir, NULL,
			    &hostile_result_fops);
	return 0;
}

static void __exit hostile_exit(void)
{
	debugfs_remove_recursive(hostile_dir);
}

module_init(hostile_init);
module_exit(hostile_exit);
MODULE_DESCRIPTION("rdmalock test: a hostile peer of a lock domain");
MODULE_LICENSE("GPL");

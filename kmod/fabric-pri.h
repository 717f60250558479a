/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock fabric: what the fabric's own files share (fabric.c:
 * connections and memory; fabric-verbs.c: one-sided verbs; fabric-msg.c:
 * messages and heartbeats; fabric-rmw.c: emulated atomics; fabric-auth.c:
 * the handshake; fabric-fault.c: fault injection; fabric-devices.c: RDMA
 * devices). Nothing outside the fabric includes this but the fabric's
 * KUnit suites.
 */
#ifndef RDMALOCK_FABRIC_PRI_H
#define RDMALOCK_FABRIC_PRI_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "fabric.h"
#include "fabric-wire.h"

/* As in rdmalock-pri.h: internals the KUnit suites call. */
#ifndef VISIBLE_IF_KUNIT
#include <kunit/visibility.h>
#endif

struct crypto_shash;

/*
 * Where the atomics probe's words are: one per probing node, after the
 * test words (fabric-rmw.c).
 */
#define RDMALOCK_PROBE_OFFSET		64
static_assert(RDMALOCK_FABRIC_TEST_WORDS * 8 <= RDMALOCK_PROBE_OFFSET);
static_assert(RDMALOCK_PROBE_OFFSET + RDMALOCK_MAX_NODES * 8 <=
	      RDMALOCK_FABRIC_USER_OFFSET);

struct rdmalock_msg_handler {
	rdmalock_msg_fn *fn;
	void *ctx;
};

struct rdmalock_imm_handler {
	rdmalock_imm_fn *fn;
	void *ctx;
};

struct rdmalock_node_handler {
	rdmalock_node_fn *fn;
	void *ctx;
};

/**
 * struct rdmalock_fabric_op - a one-sided verb
 * @done: called once, when the verb has completed or failed, in softirq
 *	context; must not sleep. The operation is the caller's again then.
 * @status: set before @done: 0, -ENOTCONN (flushed: the connection
 *	failed), or -EIO (completed in error)
 * @buf: the local buffer; DMA-able (kmalloc'ed, not on a stack)
 * @len: its length; atomics set it to 8 themselves
 * @cqe: the completion's
 * @conn: the connection it is posted on, while it is
 * @cnt: the counters it is counted in
 * @dma: @buf's mapping, while it is posted
 * @dir: the mapping's direction
 * @size: for an operation of rdmalock_fabric_op_alloc(), @buf's size
 * @notify: ditto, its user's completion callback, called by @done
 * @ctx: ditto, passed to @notify
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
	u32 size;
	rdmalock_op_done_fn *notify;
	void *ctx;
};

/*
 * Deep enough that sends never wait on the peer's acknowledgements, which
 * a NIC may coalesce (rxe asks for one every 128 packets).
 */
#define RDMALOCK_SQ_DEPTH		512
#define RDMALOCK_RECV_DEPTH		32
#define RDMALOCK_CQ_DEPTH		(RDMALOCK_SQ_DEPTH + RDMALOCK_RECV_DEPTH + 2)
/* Synchronous verbs in flight per connection; the rest of the send queue
 * is for asynchronous verbs and messages, which cannot wait for room.
 */
#define RDMALOCK_SYNC_SLOTS		(RDMALOCK_SQ_DEPTH / 2)

/*
 * What a cm_id's context points to. The listener's child ids start out
 * with the listener's context, so the handler needs to tell them apart.
 */
struct rdmalock_cm_ctx {
	bool listener;
};

/*
 * Where a connection's handshake is (Documentation/fabric.rst,
 * "Handshake"): waiting for the peer's proof of the key; the requester,
 * the requester proved to and waiting for the acceptor's region (the
 * acceptor: checking the requester's proof); done.
 */
enum rdmalock_auth_step {
	RDMALOCK_AUTH_PROOF,
	RDMALOCK_AUTH_REGION,
	RDMALOCK_AUTH_DONE,
};

/**
 * struct rdmalock_conn_auth - a connection's handshake
 * @step: RDMALOCK_AUTH_*, which messages the connection takes; moves
 *	forward in the cm handler, the receive completions and the
 *	acceptor's check, which the protocol orders
 * @established: the CM reported the connection established; under
 *	fabric->lock
 * @done: the handshake is over, this side's last message sent; under
 *	fabric->lock
 * @nonce_req: the requester's challenge
 * @nonce_acc: the acceptor's challenge
 * @msg: the acceptor's copy of the requester's proof, checked in @work
 * @work: checks it in process context
 */
struct rdmalock_conn_auth {
	enum rdmalock_auth_step step;
	bool established;
	bool done;
	u8 nonce_req[RDMALOCK_NONCE_LEN];
	u8 nonce_acc[RDMALOCK_NONCE_LEN];
	struct rdmalock_auth_msg msg;
	struct work_struct work;
};

/*
 * A connection's life, forward only: connecting (the CM's establishment
 * and the handshake both awaited); up (verbs and messages go, but users
 * are not offered it until the atomics probe, if any, has passed); ready
 * (offered to users); failed (torn down, never used again).
 */
enum rdmalock_conn_state {
	RDMALOCK_CONN_CONNECTING,
	RDMALOCK_CONN_UP,
	RDMALOCK_CONN_READY,
	RDMALOCK_CONN_FAILED,
};

/*
 * What a connection's failure is to the node at its other end
 * (rdmalock_conn_fail_kind()): nothing to say; one of the node's own
 * attempts, or its lost connection, counted in its failures; an accepted
 * connection that never became the node's, refused and logged alone.
 */
enum rdmalock_fail_kind {
	RDMALOCK_FAIL_QUIET,
	RDMALOCK_FAIL_PEER,
	RDMALOCK_FAIL_REFUSED,
};

/* May verbs and messages be posted on a connection in @state? */
static inline bool rdmalock_conn_state_up(enum rdmalock_conn_state state)
{
	return state == RDMALOCK_CONN_UP || state == RDMALOCK_CONN_READY;
}

struct rdmalock_conn {
	struct rdmalock_cm_ctx cm_ctx;
	struct kref ref;
	struct rdmalock_fabric *fabric;
	struct rdmalock_peer *peer;	/* NULL for the loopback's passive end */
	struct rdma_cm_id *cm_id;
	/* Accepted: where its request came from, for the log. */
	struct sockaddr_storage src;
	struct ib_cq *cq;
	bool active;
	enum rdmalock_conn_state state;	/* under fabric->lock */
	struct work_struct probe_work;
	u64 remote_addr;
	u32 remote_rkey;
	u32 remote_len;
	u32 sent_rkey;			/* ours, as our handshake gave it */
	spinlock_t post_lock;		/* see "Lifetime" in fabric.c */
	u32 tx_seq;			/* under post_lock */
	atomic_t sq_used;		/* posted sends not yet completed */
	/*
	 * Serializes creating the QP (cm handler) with the teardown, which
	 * may otherwise look for the QP before the handler has made it.
	 */
	struct mutex setup_lock;
	struct rdmalock_msg_ring *ring;	/* posted receives */
	/* Emulated atomics sent on this connection, awaiting their answers. */
	struct xarray rmw_pending;
	u32 rmw_next;			/* next id, under rmw_pending's lock */
	bool rmw_wrapped;		/* every id was issued; ditto */
	struct semaphore sq_slots;
	struct completion up;
	struct delayed_work timeout_work;	/* bounds the connecting */
	struct work_struct teardown_work;
	struct rdmalock_conn_auth auth;
};

struct rdmalock_verb_counters {
	atomic64_t posted;
	atomic64_t completed;
	atomic64_t failed;
	atomic64_t bytes;
};

struct rdmalock_peer {
	struct rdmalock_fabric *fabric;
	u32 node;
	unsigned long last_heard;	/* jiffies of the last message received */
	struct rdmalock_conn *conn;	/* current connection, under fabric->lock */
	/* Accepted from this node, not yet proved the key; ditto. */
	struct rdmalock_conn *pending;
	u32 connects;
	/* Failures since it was last up, and when one was last logged;
	 * under fabric->lock.
	 */
	u32 failures;
	unsigned long failure_logged;
	struct delayed_work connect_work;
	unsigned int backoff_ms;	/* before the next attempt; fabric->lock */
	struct rdmalock_verb_counters verbs[RDMALOCK_VERB_MAX];
};

struct rdmalock_fabric {
	struct rdmalock_cm_ctx cm_ctx;
	struct rdmalock_fabric_attr attr;
	struct list_head entry;		/* rdmalock_fabrics, see fabric.c */
	bool detached;			/* from its device; rdmalock_fabrics_mutex */
	struct workqueue_struct *wq;
	mempool_t *send_pool;		/* message buffers (fabric-msg.c) */
	mempool_t *bounce_pool;		/* synchronous verbs' (fabric-verbs.c) */
	struct rdma_cm_id *listen_id;
	struct ib_device *device;
	struct ib_pd *pd;
	void *region;
	size_t region_len;
	dma_addr_t region_dma;
	struct device *region_dma_dev;	/* coherent region's; NULL: pages */
	struct ib_mr *mr;
	/*
	 * The rkey of the region's current or last registration, which a
	 * LOCAL_INV must name; peers are given it while accepting is set.
	 */
	u32 region_rkey;
	bool region_registered;		/* once: re-registering invalidates first */
	struct delayed_work region_work;	/* re-registers, see region_revoke */
	spinlock_t lock;		/* conn states, peer->conn, flags below; irq-safe */
	bool accepting;			/* and the region registered under region_rkey */
	bool stopping;
	bool emulated;			/* atomics: set before accepting */
	struct rdmalock_conn *loop_passive;
	atomic_t nconns;
	wait_queue_head_t conns_gone;
	u32 domain_hash;
	struct crypto_shash *auth_tfm;	/* HMAC-SHA256 with the key; NULL: keyless */
	struct rdmalock_msg_handler handlers[RDMALOCK_MSG_TYPES];
	struct rdmalock_imm_handler imm_handler;
	struct rdmalock_node_handler lost_handler;
	struct delayed_work heartbeat_work;
	struct rdmalock_peer peers[RDMALOCK_MAX_NODES];
};

/**
 * struct rdmalock_msg_fifo - received messages held back, oldest first
 * @idx: the indices of their receive slots, from @head on, circularly
 * @head: where the oldest one is
 * @count: how many are held
 * @holding: whatever arrives now must be held too: the connection is not
 *	up yet, or a message before it is not done
 *
 * Each held message keeps its receive slot until it is done, so no more
 * than %RDMALOCK_RECV_DEPTH can ever be held. The caller serializes.
 */
struct rdmalock_msg_fifo {
	u8 idx[RDMALOCK_RECV_DEPTH];
	u8 head;
	u8 count;
	bool holding;
};

/*
 * An answer that a message owes its sender, kept with the message while
 * the send queue has no room for it (fabric-msg.c).
 */
#define RDMALOCK_MSG_ANSWER_MAX		16

struct rdmalock_msg_answer {
	u8 type;
	u8 len;
	u8 payload[RDMALOCK_MSG_ANSWER_MAX];
};

struct rdmalock_sync_op {
	struct rdmalock_fabric_op op;
	struct completion done;
};

/* fabric-verbs.c */
int rdmalock_fabric_check_range(u64 region_len, u64 offset, u64 len, u64 align);
bool rdmalock_conn_sq_get(struct rdmalock_conn *conn);
void rdmalock_conn_sq_put(struct rdmalock_conn *conn);
void rdmalock_sync_done(struct rdmalock_fabric_op *op);
int rdmalock_conn_atomic(struct rdmalock_conn *conn, u32 node, u64 offset,
			 enum ib_wr_opcode opcode, u64 compare_add, u64 swap,
			 u64 *old);
int rdmalock_conn_post_send(struct rdmalock_conn *conn, const struct ib_send_wr *wr);
int rdmalock_conn_post_op(struct rdmalock_conn *conn,
			  struct rdmalock_fabric_op *op, struct ib_send_wr *wr);
int rdmalock_conn_post_wait(struct rdmalock_conn *conn,
			    struct rdmalock_sync_op *sync, struct ib_send_wr *wr);

/* fabric.c */
void rdmalock_fabric_remove_device(struct ib_device *device);
bool rdmalock_device_present(struct ib_device *ibdev);
void rdmalock_conn_fail(struct rdmalock_conn *conn, const char *why);
void rdmalock_conn_wc_failed(struct rdmalock_conn *conn, const struct ib_wc *wc);
void rdmalock_conn_up(struct rdmalock_conn *conn, bool established);
int rdmalock_conn_install(struct rdmalock_conn *conn);
void rdmalock_conn_put(struct rdmalock_conn *conn);
void rdmalock_conn_invalidated(struct rdmalock_conn *conn, const struct ib_wc *wc);
struct rdmalock_conn *rdmalock_peer_get_conn(struct rdmalock_peer *peer);

/* fabric-rmw.c */
/* One RDMALOCK_VERB_CAS or _FAA on a fixed word; see rdmalock_atomics_check(). */
typedef int (*rdmalock_atomic_fn)(void *ctx, u8 verb, u64 compare_add,
				  u64 swap, u64 *old);

int rdmalock_atomics_decide(u32 mode, int probe, bool force, bool *emulated);
void rdmalock_rmw_conn_init(struct rdmalock_conn *conn);
void rdmalock_rmw_fail_conn(struct rdmalock_conn *conn);
int rdmalock_rmw_request(struct rdmalock_fabric *fabric, const void *payload,
			 u32 len, struct rdmalock_msg_answer *answer);
int rdmalock_rmw_response(struct rdmalock_conn *conn, const void *payload,
			  u32 len);
int rdmalock_rmw_async(struct rdmalock_fabric *fabric, u32 node, u64 offset,
		       int verb, u64 compare_add, u64 swap,
		       struct rdmalock_fabric_op *op);
int rdmalock_rmw_sync(struct rdmalock_fabric *fabric, u32 node, u64 offset,
		      int verb, u64 compare_add, u64 swap,
		      struct rdmalock_sync_op *sync, u64 *old);
int rdmalock_atomics_probe(struct rdmalock_conn *conn, u32 node);

/*
 * Did a send or a request find no room in the send queue, no message
 * buffer, or no memory for its id? Each comes back as others complete.
 */
static inline bool rdmalock_no_room(int ret)
{
	return ret == -ENOBUFS || ret == -ENOMEM;
}

/* fabric-msg.c */
u32 rdmalock_conn_node(const struct rdmalock_conn *conn);
int rdmalock_msg_handle(struct rdmalock_conn *conn, u8 type,
			const void *payload, u32 len);
void rdmalock_imm_dispatch(struct rdmalock_fabric *fabric, u32 node, u32 imm);
int rdmalock_msg_ring_alloc(struct rdmalock_conn *conn);
void rdmalock_msg_ring_free(struct rdmalock_conn *conn);
void rdmalock_msg_conn_up(struct rdmalock_conn *conn);
int rdmalock_msg_conn_send(struct rdmalock_conn *conn, u8 type,
			   const void *payload, u32 len, bool retried);
int rdmalock_msg_send_answer(struct rdmalock_conn *conn,
			     const struct rdmalock_msg_answer *answer);
int rdmalock_msg_init(struct rdmalock_fabric *fabric);
void rdmalock_msg_exit(struct rdmalock_fabric *fabric);
#if IS_ENABLED(CONFIG_KUNIT)
int rdmalock_msg_pool_create(struct rdmalock_fabric *fabric);
#endif
int rdmalock_verbs_init(struct rdmalock_fabric *fabric);
void rdmalock_verbs_exit(struct rdmalock_fabric *fabric);
void rdmalock_msg_start(struct rdmalock_fabric *fabric);
void rdmalock_msg_stop(struct rdmalock_fabric *fabric);
void rdmalock_msg_fifo_start(struct rdmalock_msg_fifo *f);
bool rdmalock_msg_fifo_hold(struct rdmalock_msg_fifo *f, u8 i);
void rdmalock_msg_fifo_hold_first(struct rdmalock_msg_fifo *f, u8 i);
bool rdmalock_msg_fifo_first(struct rdmalock_msg_fifo *f, u8 *i);
void rdmalock_msg_fifo_pop(struct rdmalock_msg_fifo *f);
int rdmalock_msg_send_handshake(struct rdmalock_conn *conn, const void *payload,
				u32 len);

/* fabric-auth.c */
int rdmalock_auth_init(struct rdmalock_fabric *fabric, const u8 *key,
		       u32 key_len);
void rdmalock_auth_free(struct rdmalock_fabric *fabric);
u8 rdmalock_cm_flags(const struct rdmalock_fabric *fabric);
void rdmalock_auth_hello(struct rdmalock_conn *conn,
			 struct rdmalock_cm_pdata *pd);
int rdmalock_auth_accept(struct rdmalock_conn *conn,
			 const struct rdmalock_cm_pdata *req,
			 struct rdmalock_cm_rep *rep);
const char *rdmalock_auth_reply(struct rdmalock_conn *conn, const void *data,
				u8 len);
bool rdmalock_auth_recv(struct rdmalock_conn *conn, u8 type,
			const void *payload, u32 len);
int rdmalock_auth_restrict(struct rdmalock_conn *conn);
int rdmalock_cm_pdata_check(const struct rdmalock_fabric_attr *attr,
			    u32 region_len, u8 flags, const void *data,
			    u8 len, u32 *node);
void rdmalock_log_pdata_error(struct rdmalock_fabric *fabric, int err,
			      u32 node);
#if IS_ENABLED(CONFIG_KUNIT)
int rdmalock_rmw_execute(void *region, u64 region_len, u8 verb, u64 offset,
			 u64 compare_add, u64 swap, u64 *old);
int rdmalock_msg_check(const void *buf, u32 byte_len, u32 domain_hash,
		       u32 src_node, u32 seq, u8 *type, u32 *len);
int rdmalock_atomics_check(rdmalock_atomic_fn atomic, void *ctx);
bool rdmalock_rmw_status_valid(s32 status);
int rdmalock_rmw_add(struct rdmalock_conn *conn, struct rdmalock_fabric_op *op,
		     u32 *id);
void rdmalock_rmw_timeout(struct rdmalock_conn *conn, u32 id);
bool rdmalock_msg_send_lost(int ret, bool retried);
int rdmalock_heartbeat_check(unsigned int interval_ms,
			     unsigned int timeout_ms);
bool rdmalock_wc_invalidates(const struct ib_wc *wc, u32 rkey);
enum rdmalock_fail_kind rdmalock_conn_fail_kind(const struct rdmalock_conn *conn);
int rdmalock_auth_proof(struct crypto_shash *tfm, bool requester,
			const char *name, u32 req_node, u32 acc_node,
			const u8 *nonce_req, const u8 *nonce_acc, u8 *proof);
bool rdmalock_auth_proof_ok(struct crypto_shash *tfm, bool requester,
			    const char *name, u32 req_node, u32 acc_node,
			    const u8 *nonce_req, const u8 *nonce_acc,
			    const u8 *proof);
#endif

#endif /* RDMALOCK_FABRIC_PRI_H */

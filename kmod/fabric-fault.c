// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock fabric: fault injection on verbs and messages, for testing.
 *
 * Each fault is a struct fault_attr of the kernel's framework, with its
 * usual knobs (probability, interval, times, space, verbose) in a
 * directory of /sys/kernel/debug/rdmalock/fault/, and our own filters
 * beside them: the peer nodes it applies to, the verbs, the message
 * types. A fault changes what happens the way a real failure would show
 * itself, so that callers meet nothing a real fabric would not give them:
 *
 * fail_verb   A one-sided verb fails at post time: the post returns -EIO
 *             and nothing is posted, as when a provider refuses a work
 *             request; the connection stays up. With "completion" set it
 *             is posted instead with a remote key the responder refuses,
 *             so it completes in error (-EIO) and its connection fails
 *             and reconnects, as after any error completion on RC.
 * delay_verb  A one-sided verb's completion is held for delay_ms.
 * delay_msg   A received message, or a WRITE with immediate's
 *             notification (type 0 in the filter), is held for delay_ms
 *             before its handler sees it.
 * drop_msg    A message is lost. RC never loses one silently: a loss
 *             ends the connection. So the message is posted with a local
 *             key the NIC refuses: it never leaves, and its QP fails as
 *             after exhausted retries. (rxe reports that error as a flush
 *             of the send and of all after it; the peer then notices the
 *             silence by its heartbeat timeout. Either way the connection
 *             goes down on both sides and is made again.)
 * fail_alloc  A message buffer, or a synchronous verb's bounce buffer,
 *             cannot be allocated; with verb recv, nor can a job for a
 *             received request beyond its writer's own (ShiftLock).
 * delay_ready A connection's atomics probe takes delay_ms longer, as on
 *             a slow responder: the connection is up, and its peer may be
 *             ready, for that long before it is offered to users here.
 *             For this node's own id, the loopback's probe when a domain
 *             is created: the creation takes that much longer.
 *
 * Held completions and messages keep their order: once one of a
 * connection's verb completions (or messages) is held, every later one of
 * that connection waits behind it, held or not, since RC completes and
 * delivers in order and callers may count on it. All wait in one queue
 * whose release times never decrease, handled by one work item with
 * bottom halves disabled, as the completion queue's softirq would. A held
 * item keeps its connection referenced, so a fabric's destruction waits
 * for it; a held message whose connection has failed meanwhile is dropped,
 * as one received then would be.
 *
 * Faults apply only to connections offered to users, never to the
 * atomics probe or the region's registration, which decide how a domain
 * works and would otherwise turn an injected failure into "this device
 * cannot do atomics". delay_ready only makes a successful probe slower.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/bottom_half.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fault-inject.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "fabric-fault.h"
#include "fabric-pri.h"

/* Which filter files a fault has. */
#define RDMALOCK_FAULT_F_VERBS		BIT(0)
#define RDMALOCK_FAULT_F_TYPES		BIT(1)
#define RDMALOCK_FAULT_F_DELAY		BIT(2)
#define RDMALOCK_FAULT_F_COMPLETION	BIT(3)

/* A work request that the responder refuses: another key, same MR index. */
#define RDMALOCK_FAULT_KEY_FLIP		0x80

enum {
	RDMALOCK_FAULT_FAIL_VERB,
	RDMALOCK_FAULT_DELAY_VERB,
	RDMALOCK_FAULT_DELAY_MSG,
	RDMALOCK_FAULT_DROP_MSG,
	RDMALOCK_FAULT_FAIL_ALLOC,
	RDMALOCK_FAULT_DELAY_READY,
	RDMALOCK_FAULT_MAX,
};

/**
 * struct rdmalock_fault - one kind of fault and its filters
 * @attr: the framework's knobs; faults only when should_fail() says so
 * @name: its directory in debugfs
 * @files: RDMALOCK_FAULT_F_*, the filters it has
 * @nodes: peer node ids it applies to, one bit each
 * @verbs: RDMALOCK_VERB_* it applies to, one bit each
 * @types: message types it applies to, one bit each; bit 0 is a WRITE
 *	with immediate's notification
 * @delay_ms: how long a delay holds
 * @completion: fail_verb: fail by an error completion, not at post time
 * @injected: how many times it was injected, for tests to compare with
 *	the counters
 */
struct rdmalock_fault {
	struct fault_attr attr;
	const char *name;
	u32 files;
	u32 nodes;
	u32 verbs;
	u32 types;
	u32 delay_ms;
	bool completion;
	atomic_t injected;
};

#define RDMALOCK_FAULT(_name, _files) {					\
	.attr = FAULT_ATTR_INITIALIZER,					\
	.name = _name,							\
	.files = _files,						\
	.nodes = U32_MAX,						\
	.verbs = U32_MAX,						\
	.types = U32_MAX,						\
	.delay_ms = 10,							\
}

static struct rdmalock_fault rdmalock_faults[RDMALOCK_FAULT_MAX] = {
	[RDMALOCK_FAULT_FAIL_VERB] = RDMALOCK_FAULT("fail_verb",
		RDMALOCK_FAULT_F_VERBS | RDMALOCK_FAULT_F_COMPLETION),
	[RDMALOCK_FAULT_DELAY_VERB] = RDMALOCK_FAULT("delay_verb",
		RDMALOCK_FAULT_F_VERBS | RDMALOCK_FAULT_F_DELAY),
	[RDMALOCK_FAULT_DELAY_MSG] = RDMALOCK_FAULT("delay_msg",
		RDMALOCK_FAULT_F_TYPES | RDMALOCK_FAULT_F_DELAY),
	[RDMALOCK_FAULT_DROP_MSG] = RDMALOCK_FAULT("drop_msg",
		RDMALOCK_FAULT_F_TYPES),
	[RDMALOCK_FAULT_FAIL_ALLOC] = RDMALOCK_FAULT("fail_alloc",
		RDMALOCK_FAULT_F_VERBS | RDMALOCK_FAULT_F_TYPES),
	[RDMALOCK_FAULT_DELAY_READY] = RDMALOCK_FAULT("delay_ready",
		RDMALOCK_FAULT_F_DELAY),
};

/**
 * struct rdmalock_fault_held - a completion or a message being held
 * @entry: in rdmalock_fault_queue
 * @due: when it may be released, in jiffies
 * @conn: its connection, referenced
 * @msg: a message, not a completion
 * @done: a completion's handler
 * @wc: a completion, as polled
 * @node: a message's sender
 * @type: its type
 * @len: its payload's length
 * @payload: its payload
 */
struct rdmalock_fault_held {
	struct list_head entry;
	unsigned long due;
	struct rdmalock_conn *conn;
	bool msg;
	union {
		struct {
			void (*done)(struct ib_cq *cq, struct ib_wc *wc);
			struct ib_wc wc;
		};
		struct {
			u32 node;
			u8 type;
			u32 len;
			u8 payload[RDMALOCK_MSG_MAX_PAYLOAD];
		};
	};
};

static LIST_HEAD(rdmalock_fault_queue);
static DEFINE_SPINLOCK(rdmalock_fault_lock);
static unsigned long rdmalock_fault_last_due;	/* under rdmalock_fault_lock */
/* Items queued or being released; lets the hooks skip the lock when 0. */
static atomic_t rdmalock_fault_nheld = ATOMIC_INIT(0);
static void rdmalock_fault_release(struct work_struct *work);
static DECLARE_DELAYED_WORK(rdmalock_fault_work, rdmalock_fault_release);
static struct dentry *rdmalock_fault_dir;

/*
 * Does @f apply here, and does the framework say fail? @verbs and @types
 * are the bits of the verb and of the message type, 0 where they do not
 * apply.
 */
static bool rdmalock_fault_should(struct rdmalock_fault *f, u32 node,
				  u32 verbs, u32 types)
{
	if (!(READ_ONCE(f->nodes) & BIT(node)) ||
	    (verbs && !(READ_ONCE(f->verbs) & verbs)) ||
	    (types && !(READ_ONCE(f->types) & types)))
		return false;
	return should_fail(&f->attr, 1);
}

/* A connection is offered to users once probed; see the top comment. */
static bool rdmalock_fault_conn_used(struct rdmalock_conn *conn)
{
	return READ_ONCE(conn->state) == RDMALOCK_CONN_READY;
}

static int rdmalock_fault_wr_verb(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_RDMA_READ:
		return RDMALOCK_VERB_READ;
	case IB_WR_RDMA_WRITE:
		return RDMALOCK_VERB_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return RDMALOCK_VERB_WRITE_IMM;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return RDMALOCK_VERB_CAS;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return RDMALOCK_VERB_FAA;
	default:
		return -1;	/* the region's registration */
	}
}

/* The verbs a successful completion may be of; 0 for none of ours. */
static u32 rdmalock_fault_wc_verbs(const struct ib_wc *wc)
{
	if (wc->status != IB_WC_SUCCESS)
		return 0;	/* the opcode of an error completion is undefined */
	switch (wc->opcode) {
	case IB_WC_RDMA_READ:
		return BIT(RDMALOCK_VERB_READ);
	case IB_WC_RDMA_WRITE:
		return BIT(RDMALOCK_VERB_WRITE) | BIT(RDMALOCK_VERB_WRITE_IMM);
	case IB_WC_COMP_SWAP:
		return BIT(RDMALOCK_VERB_CAS);
	case IB_WC_FETCH_ADD:
		return BIT(RDMALOCK_VERB_FAA);
	default:
		return 0;
	}
}

/**
 * rdmalock_fault_verb_post() - fail a one-sided verb about to be posted?
 * @conn: its connection
 * @wr: its work request, remote key set
 *
 * Context: any.
 * Return: 0 to post @wr (possibly changed to complete in error), or -EIO
 * to fail the post.
 */
int rdmalock_fault_verb_post(struct rdmalock_conn *conn, struct ib_send_wr *wr)
{
	struct rdmalock_fault *f = &rdmalock_faults[RDMALOCK_FAULT_FAIL_VERB];
	int verb = rdmalock_fault_wr_verb(wr->opcode);

	if (verb < 0 || !rdmalock_fault_conn_used(conn) ||
	    !rdmalock_fault_should(f, rdmalock_conn_node(conn), BIT(verb), 0))
		return 0;
	atomic_inc(&f->injected);
	if (!READ_ONCE(f->completion))
		return -EIO;
	if (verb == RDMALOCK_VERB_CAS || verb == RDMALOCK_VERB_FAA)
		container_of(wr, struct ib_atomic_wr, wr)->rkey ^= RDMALOCK_FAULT_KEY_FLIP;
	else
		container_of(wr, struct ib_rdma_wr, wr)->rkey ^= RDMALOCK_FAULT_KEY_FLIP;
	return 0;
}

/**
 * rdmalock_fault_delay_ready() - stretch a successful atomics probe?
 * @conn: the connection it probed, not yet ready
 *
 * Context: process context; sleeps for delay_ms when it applies.
 */
void rdmalock_fault_delay_ready(struct rdmalock_conn *conn)
{
	struct rdmalock_fault *f = &rdmalock_faults[RDMALOCK_FAULT_DELAY_READY];

	if (!rdmalock_fault_should(f, rdmalock_conn_node(conn), 0, 0))
		return;
	atomic_inc(&f->injected);
	msleep(READ_ONCE(f->delay_ms));
}

/* Is anything of @conn's completions (or messages, @msg) held? */
static bool rdmalock_fault_stream_held(struct rdmalock_conn *conn, bool msg)
{
	struct rdmalock_fault_held *h;

	lockdep_assert_held(&rdmalock_fault_lock);
	list_for_each_entry(h, &rdmalock_fault_queue, entry)
		if (h->conn == conn && h->msg == msg)
			return true;
	return false;
}

/* Jiffies from now until @due, 0 when it is past. */
static unsigned long rdmalock_fault_wait(unsigned long due)
{
	return time_after(due, jiffies) ? due - jiffies : 0;
}

/*
 * Queues @h, filled in but for its due time, when @delay says to hold it
 * or an earlier item of its connection's completions (or messages) is
 * held. Return: true when queued; false when not, @h then unused.
 */
static bool rdmalock_fault_enqueue(struct rdmalock_fault_held *h, bool delay)
{
	struct rdmalock_fault *f = &rdmalock_faults[h->msg ? RDMALOCK_FAULT_DELAY_MSG :
						     RDMALOCK_FAULT_DELAY_VERB];
	unsigned long flags, due;

	spin_lock_irqsave(&rdmalock_fault_lock, flags);
	if (!delay && !rdmalock_fault_stream_held(h->conn, h->msg)) {
		spin_unlock_irqrestore(&rdmalock_fault_lock, flags);
		return false;
	}
	due = jiffies;
	if (delay) {
		atomic_inc(&f->injected);
		due += msecs_to_jiffies(READ_ONCE(f->delay_ms));
	}
	/* Never before an earlier item: that keeps every stream in order. */
	if (!list_empty(&rdmalock_fault_queue) &&
	    time_before(due, rdmalock_fault_last_due))
		due = rdmalock_fault_last_due;
	rdmalock_fault_last_due = due;
	h->due = due;
	kref_get(&h->conn->ref);
	if (list_empty(&rdmalock_fault_queue))
		mod_delayed_work(system_wq, &rdmalock_fault_work,
				 rdmalock_fault_wait(due));
	list_add_tail(&h->entry, &rdmalock_fault_queue);
	atomic_inc(&rdmalock_fault_nheld);
	spin_unlock_irqrestore(&rdmalock_fault_lock, flags);
	return true;
}

/*
 * No memory to hold an item: fine when nothing of its stream is held,
 * it is handled now; otherwise it would overtake the held ones, and only
 * failing the connection first makes that look like anything real.
 * Return: true when the connection was failed.
 */
static bool rdmalock_fault_no_memory(struct rdmalock_conn *conn, bool msg)
{
	unsigned long flags;
	bool behind;

	spin_lock_irqsave(&rdmalock_fault_lock, flags);
	behind = rdmalock_fault_stream_held(conn, msg);
	spin_unlock_irqrestore(&rdmalock_fault_lock, flags);
	if (behind)
		rdmalock_conn_fail(conn, "no memory to keep the fault queue in order");
	return behind;
}

/**
 * rdmalock_fault_hold_wc() - hold a one-sided verb's completion?
 * @conn: the verb's connection
 * @wc: the completion
 * @done: what handles it; called later, with a NULL CQ, when held
 *
 * Context: the completion queue's softirq.
 * Return: true when @wc is held; false to handle it now.
 */
bool rdmalock_fault_hold_wc(struct rdmalock_conn *conn, struct ib_wc *wc,
			    void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	struct rdmalock_fault *f = &rdmalock_faults[RDMALOCK_FAULT_DELAY_VERB];
	u32 verbs = rdmalock_fault_wc_verbs(wc);
	struct rdmalock_fault_held *h;
	bool delay;

	delay = verbs && rdmalock_fault_conn_used(conn) &&
		rdmalock_fault_should(f, rdmalock_conn_node(conn), verbs, 0);
	if (!delay && !atomic_read_acquire(&rdmalock_fault_nheld))
		return false;
	h = kmalloc(sizeof(*h), GFP_ATOMIC);
	if (!h) {
		rdmalock_fault_no_memory(conn, false);
		return false;	/* a verb completes exactly once */
	}
	h->conn = conn;
	h->msg = false;
	h->done = done;
	h->wc = *wc;
	if (rdmalock_fault_enqueue(h, delay))
		return true;
	kfree(h);
	return false;
}

/**
 * rdmalock_fault_hold_msg() - hold a received message?
 * @conn: the connection it came on
 * @node: its sender
 * @type: its type; 0 for a WRITE with immediate's notification, which
 *	stays in order with the messages as it does on the wire
 * @payload: its payload (the immediate data for type 0), valid only
 *	during the call
 * @len: the payload's length
 *
 * Context: the completion queue's softirq.
 * Return: true when the message is held, or lost with its connection
 * because it could not wait behind the held ones; false to dispatch it
 * now.
 */
bool rdmalock_fault_hold_msg(struct rdmalock_conn *conn, u32 node, u8 type,
			     const void *payload, u32 len)
{
	struct rdmalock_fault *f = &rdmalock_faults[RDMALOCK_FAULT_DELAY_MSG];
	struct rdmalock_fault_held *h;
	bool delay;

	delay = rdmalock_fault_should(f, node, 0, BIT(type));
	if (!delay && !atomic_read_acquire(&rdmalock_fault_nheld))
		return false;
	h = kmalloc(sizeof(*h), GFP_ATOMIC);
	if (!h)
		return rdmalock_fault_no_memory(conn, true);
	h->conn = conn;
	h->msg = true;
	h->node = node;
	h->type = type;
	h->len = len;
	memcpy(h->payload, payload, len);
	if (rdmalock_fault_enqueue(h, delay))
		return true;
	kfree(h);
	return false;
}

static void rdmalock_fault_dispatch(struct rdmalock_fault_held *h)
{
	u32 imm;

	/* A failed connection's messages are dropped, as on arrival. */
	if (READ_ONCE(h->conn->state) == RDMALOCK_CONN_FAILED)
		return;
	if (h->type) {
		if (rdmalock_msg_handle(h->conn, h->type, h->payload, h->len))
			rdmalock_conn_fail(h->conn, "malformed message");
	} else {
		memcpy(&imm, h->payload, sizeof(imm));
		rdmalock_imm_dispatch(h->conn->fabric, h->node, imm);
	}
}

/* As the completion queue's softirq would: bottom halves disabled. */
static void rdmalock_fault_deliver(struct rdmalock_fault_held *h)
{
	local_bh_disable();
	if (h->msg)
		rdmalock_fault_dispatch(h);
	else
		h->done(NULL, &h->wc);	/* the CQ may be freed by now */
	local_bh_enable();
}

/*
 * Releases every item that is due, in order. An item stays on the queue
 * while it is delivered, so that a newer one of its connection queues
 * behind it instead of overtaking it.
 */
static void rdmalock_fault_release(struct work_struct *work)
{
	struct rdmalock_fault_held *h;
	unsigned long flags;

	spin_lock_irqsave(&rdmalock_fault_lock, flags);
	while ((h = list_first_entry_or_null(&rdmalock_fault_queue,
					     struct rdmalock_fault_held, entry))) {
		if (time_before(jiffies, h->due)) {
			mod_delayed_work(system_wq, &rdmalock_fault_work,
					 rdmalock_fault_wait(h->due));
			break;
		}
		spin_unlock_irqrestore(&rdmalock_fault_lock, flags);
		rdmalock_fault_deliver(h);
		spin_lock_irqsave(&rdmalock_fault_lock, flags);
		list_del(&h->entry);
		/* Pairs with the hooks' acquire: delivered before counted out. */
		atomic_dec_return_release(&rdmalock_fault_nheld);
		spin_unlock_irqrestore(&rdmalock_fault_lock, flags);
		rdmalock_conn_put(h->conn);
		kfree(h);
		spin_lock_irqsave(&rdmalock_fault_lock, flags);
	}
	spin_unlock_irqrestore(&rdmalock_fault_lock, flags);
}

/**
 * rdmalock_fault_msg_lkey() - the local key to post a message with
 * @conn: its connection
 * @type: its type
 * @lkey: the right key
 *
 * A dropped message gets a key the NIC refuses (see drop_msg above).
 *
 * Context: any; called under @conn's post_lock.
 * Return: @lkey, or a key that makes the send complete in error.
 */
u32 rdmalock_fault_msg_lkey(struct rdmalock_conn *conn, u8 type, u32 lkey)
{
	struct rdmalock_fault *f = &rdmalock_faults[RDMALOCK_FAULT_DROP_MSG];

	if (!rdmalock_fault_should(f, rdmalock_conn_node(conn), 0, BIT(type)))
		return lkey;
	atomic_inc(&f->injected);
	return lkey ^ RDMALOCK_FAULT_KEY_FLIP;
}

/**
 * rdmalock_fault_alloc() - fail an allocation on a verb's or message's path?
 * @conn: the verb's connection, or NULL for a message (sent only on
 *	connections in use)
 * @node: the peer
 * @verb: RDMALOCK_VERB_*; RDMALOCK_VERB_SEND for a message
 * @type: a message's type, or 0
 *
 * Context: any.
 * Return: true when the caller must behave as if the allocation failed.
 */
bool rdmalock_fault_alloc(struct rdmalock_conn *conn, u32 node, int verb, u8 type)
{
	struct rdmalock_fault *f = &rdmalock_faults[RDMALOCK_FAULT_FAIL_ALLOC];

	if ((conn && !rdmalock_fault_conn_used(conn)) ||
	    !rdmalock_fault_should(f, node, BIT(verb), type ? BIT(type) : 0))
		return false;
	atomic_inc(&f->injected);
	return true;
}

static void rdmalock_fault_debugfs(struct rdmalock_fault *f, struct dentry *parent)
{
	struct dentry *dir;

	dir = fault_create_debugfs_attr(f->name, parent, &f->attr);
	if (IS_ERR(dir))
		return;
	debugfs_create_x32("nodes", 0600, dir, &f->nodes);
	if (f->files & RDMALOCK_FAULT_F_VERBS)
		debugfs_create_x32("verbs", 0600, dir, &f->verbs);
	if (f->files & RDMALOCK_FAULT_F_TYPES)
		debugfs_create_x32("types", 0600, dir, &f->types);
	if (f->files & RDMALOCK_FAULT_F_DELAY)
		debugfs_create_u32("delay_ms", 0600, dir, &f->delay_ms);
	if (f->files & RDMALOCK_FAULT_F_COMPLETION)
		debugfs_create_bool("completion", 0600, dir, &f->completion);
	debugfs_create_atomic_t("injected", 0600, dir, &f->injected);
}

/**
 * rdmalock_fault_init() - create the faults' knobs
 * @parent: the module's debugfs directory
 *
 * Every fault starts off (probability 0) and quiet: verbose 0, since the
 * framework's default prints a stack trace per fault, which a test
 * harness takes for a kernel splat; "injected" counts them instead.
 */
void rdmalock_fault_init(struct dentry *parent)
{
	int i;

	rdmalock_fault_dir = debugfs_create_dir("fault", parent);
	for (i = 0; i < RDMALOCK_FAULT_MAX; i++) {
		rdmalock_faults[i].attr.verbose = 0;
		rdmalock_fault_debugfs(&rdmalock_faults[i], rdmalock_fault_dir);
	}
}

/**
 * rdmalock_fault_exit() - remove the knobs, once every domain is gone
 *
 * Nothing is held by then: a held item references its connection, and a
 * domain's destruction waits for all of them.
 */
void rdmalock_fault_exit(void)
{
	debugfs_remove_recursive(rdmalock_fault_dir);
	cancel_delayed_work_sync(&rdmalock_fault_work);
	WARN_ON(!list_empty(&rdmalock_fault_queue));
}

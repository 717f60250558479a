// SPDX-License-Identifier: GPL-2.0
/*
 * Blocking callbacks on named locks.
 *
 * A cluster filesystem keeps the locks it took until another node needs
 * them, and needs to hear when that is: a holder with a blocking callback
 * (rdmalock_lock_set_blocking()) is called when a request that its mode
 * blocks waits for the lock, with the mode that request wants.
 *
 * Each named lock has an interest word at its home, beside its value:
 * which nodes hold it with a callback, and which wait for it, shared or
 * exclusive (blocking.h). A node changes only its own bits, with an RDMA
 * compare-and-swap (through the loopback at the home, since the NIC's
 * atomics are not atomic with the CPU's), and the swap returns the word
 * as it found it. A request that is not granted at once sets its node's
 * waiting bit and sends one message to each node whose holders it waits
 * for; a holder with a callback sets its node's holding bit after its
 * grant, and learns which requests already wait. The swaps on the word
 * are ordered, so of a waiter and a holder, the later one sees the
 * earlier: either the waiter's message reaches the holder's node, or the
 * holder finds the waiter's bit. On one node, its interest's lock orders
 * them the same way. The callback comes within one message of the wait,
 * for holders of every kind: exclusive, shared, on the home node.
 *
 * A node's bits are per class, not per holder: the first holder or waiter
 * of a class sets them and the last clears them, after its release. Bits
 * that stay behind (a node that left, a swap that failed) cost at most a
 * message nobody needs, or a callback to a holder nobody waits for; a view
 * change clears the bits of the nodes that left (values.c). A request
 * whose caller gave up while it stays in its queue is counted until the
 * workqueue lets go for it (rdmalock_blocking_carry()).
 *
 * Callbacks run on the names' work queue, never on the message path, and
 * once per holder and strength of the request: a holder told that an
 * exclusive request waits is not told again until its next grant.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/workqueue.h>

#include "blocking.h"
#include "cluster.h"
#include "locks.h"
#include "names.h"
#include "rdmalock-pri.h"
#include "values.h"

static_assert(sizeof(struct rdmalock_blocking_req) <= RDMALOCK_MSG_MAX_PAYLOAD);

/**
 * rdmalock_interest_init() - a new resolution's interest: none
 * @in: the interest
 */
void rdmalock_interest_init(struct rdmalock_interest *in)
{
	spin_lock_init(&in->lock);
	mutex_init(&in->post);
	INIT_LIST_HEAD(&in->holders);
}

/**
 * rdmalock_interest_bits() - a node's bits in the interest word
 * @in: the node's interest, under its lock
 * @node: the node's id
 *
 * Return: the bits, at @node's place in each field.
 */
u64 rdmalock_interest_bits(const struct rdmalock_interest *in, u32 node)
{
	u64 bits = 0;
	u32 c;

	for (c = 0; c < RDMALOCK_CLASSES; c++) {
		if (in->holding[c])
			bits |= BIT_ULL((RDMALOCK_INTEREST_HOLD_SH + c) *
					RDMALOCK_INTEREST_FIELD + node);
		if (in->waiting[c])
			bits |= BIT_ULL((RDMALOCK_INTEREST_WAIT_SH + c) *
					RDMALOCK_INTEREST_FIELD + node);
	}
	return bits;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_interest_bits);

/**
 * rdmalock_interest_blocks() - the strongest waiting request a holder blocks
 * @others: an interest word
 * @held: the holder's class
 *
 * Return: that request's level, or 0 when the holder blocks none.
 */
u32 rdmalock_interest_blocks(u64 others, u32 held)
{
	if (rdmalock_interest_field(others, RDMALOCK_INTEREST_WAIT_EX))
		return RDMALOCK_LEVEL_EX;
	if (held == RDMALOCK_CLASS_EX &&
	    rdmalock_interest_field(others, RDMALOCK_INTEREST_WAIT_SH))
		return RDMALOCK_CLASS_SH + 1;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_interest_blocks);

/**
 * rdmalock_interest_blocked_by() - the nodes a request waits for
 * @others: an interest word
 * @wanted: the request's class
 *
 * Return: the nodes with holders, of those that have a callback, in a
 * class that blocks @wanted.
 */
u32 rdmalock_interest_blocked_by(u64 others, u32 wanted)
{
	u32 nodes = rdmalock_interest_field(others, RDMALOCK_INTEREST_HOLD_EX);

	if (wanted == RDMALOCK_CLASS_EX)
		nodes |= rdmalock_interest_field(others, RDMALOCK_INTEREST_HOLD_SH);
	return nodes;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_interest_blocked_by);

/* The class @lk's lock word serves @mode in. */
static u32 rdmalock_mode_class(const struct rdmalock_lock *lk, unsigned int mode)
{
	return rdmalock_mode_shared(lk->dom->ls, mode) ?
	       RDMALOCK_CLASS_SH : RDMALOCK_CLASS_EX;
}

/*
 * The class @lk holds its lock word in: its mode's, or exclusive where a
 * conversion down kept the word so (DSLR behind a writer).
 */
static u32 rdmalock_lock_class(const struct rdmalock_lock *lk)
{
	if (lk->w && lk->w->mode == RDMALOCK_MODE_EX)
		return RDMALOCK_CLASS_EX;
	return rdmalock_mode_class(lk, lk->mode);
}

/**
 * rdmalock_blocking_level() - what a holder hears of a waiting request
 * @held: the class the holder holds its word in
 * @asked: the class of the mode it asked for
 * @level: the request's level
 *
 * A holder whose word is exclusive, though its mode is shared (a
 * conversion down kept it so), lets even a shared request in only by
 * letting go: it hears of an exclusive one, which its owner cannot keep a
 * shared mode through.
 *
 * Return: the level its callback is told, or 0 when the request does not
 * wait for it.
 */
VISIBLE_IF_KUNIT u32 rdmalock_blocking_level(u32 held, u32 asked, u32 level)
{
	if (level && held == RDMALOCK_CLASS_EX && asked == RDMALOCK_CLASS_SH)
		level = RDMALOCK_LEVEL_EX;
	if (held == RDMALOCK_CLASS_SH && level != RDMALOCK_LEVEL_EX)
		return 0;
	return level;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_blocking_level);

/* Under its interest's lock: call @lk's callback, unless told as much already. */
static void rdmalock_tell_holder(struct rdmalock_lock *lk, u32 level)
{
	level = rdmalock_blocking_level(lk->cls, rdmalock_mode_class(lk, lk->mode),
					level);
	if (!level || lk->blocked >= level)
		return;
	WRITE_ONCE(lk->blocked, level);
	queue_work(rdmalock_names_cb_wq(lk->dom->ls->names), &lk->blocking_work);
}

/**
 * rdmalock_interest_tell() - a request at @level waits for this node's holders
 * @in: the node's interest in the lock, under its lock
 * @level: the request's level
 *
 * Context: any.
 */
void rdmalock_interest_tell(struct rdmalock_interest *in, u32 level)
{
	struct rdmalock_lock *lk;

	lockdep_assert_held(&in->lock);
	list_for_each_entry(lk, &in->holders, holding)
		rdmalock_tell_holder(lk, level);
}

static void rdmalock_blocking_run(struct work_struct *work)
{
	struct rdmalock_lock *lk = container_of(work, struct rdmalock_lock,
						blocking_work);
	u32 level = READ_ONCE(lk->blocked);

	/* Released meanwhile: nobody to tell. */
	if (level)
		lk->blocking(lk->blocking_arg, level == RDMALOCK_LEVEL_EX ?
				RDMALOCK_MODE_EX : RDMALOCK_MODE_SH);
}

/**
 * rdmalock_blocking_init() - a new handle holds nothing and was told nothing
 * @lk: the handle
 */
void rdmalock_blocking_init(struct rdmalock_lock *lk)
{
	INIT_LIST_HEAD(&lk->holding);
	spin_lock_init(&lk->ent_lock);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_blocking_init);

/**
 * rdmalock_blocking_set() - give @lk a blocking callback
 * @lk: a handle on a named lock, holding nothing
 * @fn: the callback, or NULL
 * @arg: its argument
 *
 * Only a handle with a callback has a work item: handles without one may
 * live on the stack.
 */
void rdmalock_blocking_set(struct rdmalock_lock *lk, rdmalock_blocking_fn *fn,
			   void *arg)
{
	if (!lk->blocking_armed) {
		INIT_WORK(&lk->blocking_work, rdmalock_blocking_run);
		lk->blocking_armed = true;
	}
	cancel_work_sync(&lk->blocking_work);
	lk->blocking = fn;
	lk->blocking_arg = arg;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_blocking_set);

static struct rdmalock_interest *rdmalock_lock_interest(struct rdmalock_lock *lk)
{
	return &lk->ent->interest;
}

/*
 * Inside the gate: write this node's bits of @ent into the home's word
 * when they changed, or @always, and set *@others to the other nodes'
 * bits as the swap found them. Return: 0; -ESTALE when the resolution is
 * stale, and its slot maybe another name's; or the verb's error.
 */
static int rdmalock_interest_post(struct rdmalock_lockspace *ls,
				  struct rdmalock_name *ent, bool always,
				  u64 *others)
{
	struct rdmalock_interest *in = &ent->interest;
	u64 mine = rdmalock_interest_nodes(BIT(ls->self));
	u64 off = rdmalock_value_offset(ls->locks_per_node, ls->descs, ent->slot) +
		  offsetof(struct rdmalock_value, interest);
	u64 bits, expected, old;
	int ret = 0;

	if (rdmalock_name_stale(ls->names, ent))
		return -ESTALE;
	mutex_lock(&in->post);
	spin_lock_bh(&in->lock);
	bits = rdmalock_interest_bits(in, ls->self);
	spin_unlock_bh(&in->lock);
	if (always || bits != in->posted) {
		/* Lock-free: a swap that fails found another node's success. */
		for (expected = in->seen;; expected = old) {
			ret = rdmalock_fabric_cas(ls->fabric, ent->home, off, expected,
						  (expected & ~mine) | bits, &old);
			if (ret || old == expected || (old & mine) == bits)
				break;
		}
		if (!ret) {
			in->seen = old == expected ? (expected & ~mine) | bits : old;
			in->posted = bits;
		}
	}
	*others = in->seen & ~mine;
	mutex_unlock(&in->post);
	return ret;
}

/* Tell the nodes of @nodes that @lk waits for their holders, at @level. */
static int rdmalock_blocking_send(struct rdmalock_lock *lk, u32 nodes, u32 level)
{
	struct rdmalock_lockspace *ls = lk->dom->ls;
	struct rdmalock_blocking_req req = {
		.slot = cpu_to_be32(lk->ent->slot),
		.level = level,
		.len = lk->ent->len,
	};
	unsigned long bits = nodes & ~BIT(ls->self);
	u32 node;
	int ret;

	memcpy(req.name, lk->ent->name, lk->ent->len);
	for_each_set_bit(node, &bits, ls->num_nodes) {
		ret = rdmalock_fabric_send(ls->fabric, node, RDMALOCK_BLOCKING_MSG,
					   &req, sizeof(req));
		/* A node that cannot be reached leaves, and its holders with it. */
		if (ret == -ENOBUFS)
			return -EAGAIN;
	}
	return 0;
}

/*
 * Inside the gate: post this node's bits, and tell the nodes whose
 * holders block a request of class @cls that one waits.
 */
static int rdmalock_blocking_tell_nodes(struct rdmalock_lock *lk, u32 cls,
					const struct rdmalock_how *how)
{
	struct rdmalock_lockspace *ls = lk->dom->ls;
	u64 others;
	int ret;

	ret = rdmalock_gate_enter(ls, how);
	if (ret)
		return ret;
	ret = rdmalock_interest_post(ls, lk->ent, true, &others);
	if (!ret)
		ret = rdmalock_blocking_send(lk, rdmalock_interest_blocked_by(others, cls),
					     cls + 1);
	rdmalock_gate_leave(ls);
	return ret;
}

/**
 * rdmalock_blocking_wait() - a request of @lk was not granted at once
 * @lk: a handle on a named lock, not holding it, with @lk->mode set
 * @how: how it may wait
 *
 * Counts it as waiting, and tells the holders it waits for, on this node
 * and the others. rdmalock_blocking_unwait() ends the wait.
 *
 * Context: process context; sleeps.
 * Return: 0; or the gate's error, -ESTALE, a verb's error or -EAGAIN
 * when a message could not be queued: the request is not waiting then.
 */
int rdmalock_blocking_wait(struct rdmalock_lock *lk, const struct rdmalock_how *how)
{
	struct rdmalock_interest *in = rdmalock_lock_interest(lk);
	int ret;

	lk->cls = rdmalock_lock_class(lk);
	spin_lock_bh(&in->lock);
	in->waiting[lk->cls]++;
	lk->waits = true;
	rdmalock_interest_tell(in, lk->cls + 1);
	spin_unlock_bh(&in->lock);
	ret = rdmalock_blocking_tell_nodes(lk, lk->cls, how);
	if (ret) {
		rdmalock_blocking_unwait(lk);
		rdmalock_blocking_settle(lk);
	}
	return ret;
}

/**
 * rdmalock_blocking_ask() - tell the holders in the way of a request that does not wait
 * @lk: a handle on a named lock whose request for @mode was refused
 *	because others hold the lock: a conversion up from a shared mode, or
 *	a NOQUEUE request
 * @mode: the mode it asked for
 *
 * Such a request does not wait (a shared holder queued as a writer would
 * wait for itself), so nothing would ever ask the other holders to let
 * go, and an owner that asks again, as GFS2 does at once, would be
 * refused for as long as they keep the lock. So they are told now what a
 * request for @mode that waits would tell them: the other holders on this
 * node, and every node with holders, whom it blocks. Best effort, as the
 * notices of a waiting request are.
 *
 * Context: process context; sleeps.
 */
void rdmalock_blocking_ask(struct rdmalock_lock *lk, unsigned int mode)
{
	u32 cls = rdmalock_mode_class(lk, mode);
	struct rdmalock_interest *in;
	struct rdmalock_lock *h;

	if (!lk->ent)
		return;
	spin_lock_bh(&lk->ent_lock);
	in = rdmalock_lock_interest(lk);
	spin_lock(&in->lock);
	list_for_each_entry(h, &in->holders, holding)
		if (h != lk)
			rdmalock_tell_holder(h, cls + 1);
	spin_unlock(&in->lock);
	spin_unlock_bh(&lk->ent_lock);
	rdmalock_blocking_tell_nodes(lk, cls, &rdmalock_forever);
}

/**
 * rdmalock_blocking_unwait() - the wait that rdmalock_blocking_wait() began ended
 * @lk: the handle
 *
 * Its node's bits follow with the next post: rdmalock_blocking_granted()
 * or rdmalock_blocking_settle().
 */
void rdmalock_blocking_unwait(struct rdmalock_lock *lk)
{
	struct rdmalock_interest *in;

	if (!lk->waits)
		return;
	/* Granted, it may meet a view change that moves it. */
	spin_lock_bh(&lk->ent_lock);
	in = rdmalock_lock_interest(lk);
	spin_lock(&in->lock);
	in->waiting[lk->cls]--;
	lk->waits = false;
	spin_unlock(&in->lock);
	spin_unlock_bh(&lk->ent_lock);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_blocking_unwait);

/**
 * rdmalock_blocking_granted() - @lk was granted its named lock
 * @lk: the handle, inside the gate
 *
 * A handle with a callback becomes one of its node's holders, and is told
 * at once of requests that already wait for it.
 *
 * Context: process context; sleeps.
 * Return: 0; or -ESTALE or the verb's error, for a handle with a
 * callback: no request could tell it, so it must not keep the lock.
 */
int rdmalock_blocking_granted(struct rdmalock_lock *lk)
{
	struct rdmalock_interest *in = rdmalock_lock_interest(lk);
	bool hold = lk->blocking;
	u64 others;
	int ret;

	lk->cls = rdmalock_lock_class(lk);
	if (hold) {
		spin_lock_bh(&in->lock);
		in->holding[lk->cls]++;
		list_add_tail(&lk->holding, &in->holders);
		WRITE_ONCE(lk->blocked, 0);
		/* This node's waiters: where every field has bit 0. */
		rdmalock_tell_holder(lk, rdmalock_interest_blocks(rdmalock_interest_bits(in, 0),
								  lk->cls));
		spin_unlock_bh(&in->lock);
	}
	ret = rdmalock_interest_post(lk->dom->ls, lk->ent, hold, &others);
	if (!hold)
		return 0;	/* best effort, as rdmalock_blocking_settle() */
	if (ret) {
		rdmalock_blocking_unhold(lk);
		return ret;
	}
	spin_lock_bh(&in->lock);
	rdmalock_tell_holder(lk, rdmalock_interest_blocks(others, lk->cls));
	spin_unlock_bh(&in->lock);
	return 0;
}

/* Under @lk's ent_lock. */
static bool rdmalock_blocking_unhold_locked(struct rdmalock_lock *lk)
{
	struct rdmalock_interest *in = rdmalock_lock_interest(lk);
	bool held;

	lockdep_assert_held(&lk->ent_lock);
	spin_lock(&in->lock);
	held = !list_empty(&lk->holding);
	if (held) {
		in->holding[lk->cls]--;
		list_del_init(&lk->holding);
		WRITE_ONCE(lk->blocked, 0);
	}
	spin_unlock(&in->lock);
	return held;
}

/**
 * rdmalock_blocking_unhold() - @lk is about to release its lock
 * @lk: the handle
 *
 * It is told nothing more; a callback already queued finds nothing to
 * tell. Its node's bits follow with rdmalock_blocking_settle().
 *
 * Return: whether it was one of its node's holders.
 */
bool rdmalock_blocking_unhold(struct rdmalock_lock *lk)
{
	bool held;

	if (list_empty(&lk->holding))
		return false;
	/* Again under the locks: a view change's move may unhold it too. */
	spin_lock_bh(&lk->ent_lock);
	held = rdmalock_blocking_unhold_locked(lk);
	spin_unlock_bh(&lk->ent_lock);
	return held;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_blocking_unhold);

/**
 * rdmalock_blocking_move() - a view change moves @lk's held lock to @to
 * @lk: a handle holding a named lock whose home left, under its
 *	&rdmalock_lock.ent_lock
 * @to: the name's resolution at its new home
 *
 * It stops being one of its node's holders at the old home (the caller
 * posts it again at the new one), and a wait it has not ended yet (its
 * grant raced the view change) is counted at the new home, where its
 * rdmalock_blocking_unwait() will look.
 *
 * Return: whether it was one of its node's holders.
 */
bool rdmalock_blocking_move(struct rdmalock_lock *lk, struct rdmalock_name *to)
{
	struct rdmalock_interest *from = rdmalock_lock_interest(lk);
	bool held = rdmalock_blocking_unhold_locked(lk);

	if (lk->waits) {
		spin_lock(&from->lock);
		from->waiting[lk->cls]--;
		spin_unlock(&from->lock);
		spin_lock(&to->interest.lock);
		to->interest.waiting[lk->cls]++;
		spin_unlock(&to->interest.lock);
	}
	return held;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_blocking_move);

/**
 * rdmalock_blocking_settle() - write this node's bits, after a wait or hold ended
 * @lk: a handle on a named lock, not holding it
 *
 * Best effort: bits left behind cost a message or a callback nobody
 * needs, until the next post of this node or the next view change.
 *
 * Context: process context; sleeps.
 */
void rdmalock_blocking_settle(struct rdmalock_lock *lk)
{
	struct rdmalock_lockspace *ls = lk->dom->ls;
	u64 others;

	if (rdmalock_gate_enter(ls, &rdmalock_forever))
		return;
	rdmalock_interest_post(ls, lk->ent, false, &others);
	rdmalock_gate_leave(ls);
}

/**
 * rdmalock_blocking_carry() - an acquisition left in its queue keeps its request waiting
 * @w: an acquisition inside the gate, which its caller leaves in the
 *	queue or counted in the lock word: abandoned
 *
 * Those queued behind @w are not let in before it, so the holders ahead
 * of it must go on hearing that it waits: its handle's wait
 * (rdmalock_blocking_wait()) stays counted at the home, carried by @w
 * until the workqueue has let go for it or a view change has reset it
 * (rdmalock_blocking_carried_end()). The handle, which its caller may
 * reuse or free from now on, is @w's no more.
 *
 * Context: process context.
 */
void rdmalock_blocking_carry(struct rdmalock_waiter *w)
{
	struct rdmalock_lock *lk = w->lk;

	w->lk = NULL;
	if (!lk || !lk->waits)
		return;
	/* Inside the gate: no view change moves @lk->ent meanwhile. */
	WARN_ON_ONCE(w->carried);
	rdmalock_name_hold(w->ls->names, lk->ent);
	w->carried_cls = lk->cls;
	spin_lock_bh(&lk->ent_lock);
	lk->waits = false;
	spin_unlock_bh(&lk->ent_lock);
	/* The class is set before; pairs with the xchg() that ends it. */
	smp_store_release(&w->carried, lk->ent);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_blocking_carry);

/**
 * rdmalock_blocking_carried_end() - the wait that @w carried is over
 * @w: an acquisition that rdmalock_blocking_carry() left abandoned, let
 *	go of or reset; or any other, which carries nothing
 * @post: inside the gate, or in a view change's claims: write this
 *	node's bits now; else they stay at the home until this node's next
 *	post of the name, as a failed post leaves them
 *	(rdmalock_blocking_settle())
 *
 * Context: process context; sleeps if @post.
 */
void rdmalock_blocking_carried_end(struct rdmalock_waiter *w, bool post)
{
	struct rdmalock_name *ent = xchg(&w->carried, NULL);
	struct rdmalock_lockspace *ls = w->ls;
	u64 others;

	if (!ent)
		return;
	spin_lock_bh(&ent->interest.lock);
	ent->interest.waiting[w->carried_cls]--;
	spin_unlock_bh(&ent->interest.lock);
	if (post)
		rdmalock_interest_post(ls, ent, false, &others);
	rdmalock_name_put(ls->names, ent);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_blocking_carried_end);

/**
 * rdmalock_blocking_cancel() - no callback of @lk runs after this
 * @lk: the handle, holding nothing
 *
 * Context: process context; sleeps, unless called from @lk's callback,
 * which must not.
 */
void rdmalock_blocking_cancel(struct rdmalock_lock *lk)
{
	if (lk->blocking_armed)
		cancel_work_sync(&lk->blocking_work);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_blocking_cancel);

/*
 * A BLOCKING message from @node; one that is malformed, from a buggy or
 * hostile peer, tells nobody.
 */
VISIBLE_IF_KUNIT void rdmalock_blocking_msg(struct rdmalock_fabric *fabric, u32 node,
					    u8 type, const void *payload, u32 len,
					    void *ctx)
{
	const struct rdmalock_blocking_req *req = payload;
	struct rdmalock_names *nm = ctx;

	if (len != sizeof(*req) || !rdmalock_lock_name_len_valid(req->len) ||
	    !req->level || req->level > RDMALOCK_CLASSES) {
		pr_err_ratelimited("%s: malformed blocking message from node %u\n",
				   rdmalock_names_ls(nm)->name, node);
		return;
	}
	rdmalock_names_blocked(nm, node, req->name, req->len,
			       be32_to_cpu(req->slot), req->level);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_blocking_msg);

/**
 * rdmalock_blocking_attach() - serve blocking messages
 * @nm: the named locks of a lockspace with a fabric
 *
 * Context: process context.
 */
void rdmalock_blocking_attach(struct rdmalock_names *nm)
{
	WARN_ON_ONCE(rdmalock_fabric_set_handler(rdmalock_names_ls(nm)->fabric,
						 RDMALOCK_BLOCKING_MSG,
						 rdmalock_blocking_msg, nm));
}

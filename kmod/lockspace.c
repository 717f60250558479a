// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock lock layer: the descriptor pool of a domain, the events that
 * wake an acquisition, and how acquisitions wait and give up.
 *
 * Giving up. An acquisition that stops waiting (timeout, fatal signal,
 * lost node) may still be in a queue, where a predecessor is about to hand
 * it the lock. It marks itself abandoned; whichever of it and the grant
 * comes second passes the lock on, so the queue never stalls on a waiter
 * that left. Passing on never lets the next waiter skip arbitration it
 * would otherwise do: the algorithm's pass_on decides what the grant it
 * received becomes. An algorithm whose waiter cannot leave its queue
 * before it is granted (ShiftLock) leaves it abandoned: the workqueue
 * takes each next step of its wait as its events come, and lets go once
 * granted, never sleeping on the wait itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "blocking.h"
#include "locks.h"
#include "names.h"
#include "rdmalock-pri.h"
#include "rdmalock_trace.h"

/* How long a waiter spins on its event before it sleeps. */
#define RDMALOCK_SPIN_LOOPS		200

/*
 * A call whose verb failed waits this long for the view change it asked
 * for, and starts again at most this many times.
 */
#define RDMALOCK_VIEW_CHANGE_WAIT_MS	30000
#define RDMALOCK_VERB_RESTARTS		3

#define RDMALOCK_PTR_NODE		GENMASK_ULL(63, 48)
#define RDMALOCK_PTR_GEN		GENMASK_ULL(47, 16)
#define RDMALOCK_PTR_IDX		GENMASK_ULL(15, 0)
/*
 * An immediate is the event, then the generation's low bits above the
 * index. The index takes as few bits as the pool needs, and at least
 * RDMALOCK_IMM_IDX_MIN: the more the generation keeps, the older the
 * stale event it still recognises.
 */
#define RDMALOCK_IMM_EVENT		BIT(31)
#define RDMALOCK_IMM_IDX_MIN		10

/* The index is the pointer's low bits. */
static_assert(RDMALOCK_MAX_DESCRIPTORS - 1 <= RDMALOCK_PTR_IDX);

const struct rdmalock_how rdmalock_forever;

/**
 * rdmalock_cancel_request() - cancel an acquisition that may be waiting
 * @ls: its lockspace
 * @cancel: its &rdmalock_how.cancel
 *
 * The acquisition gives up where it waits, as a timed-out one does. One
 * that is being granted, or waits where it cannot give up (ShiftLock's
 * under leases), is granted.
 *
 * Context: any.
 */
void rdmalock_cancel_request(struct rdmalock_lockspace *ls,
			     struct rdmalock_cancel *cancel)
{
	struct rdmalock_waiter *w;

	WRITE_ONCE(cancel->requested, true);
	/*
	 * Pairs with the barrier of the waiter's sleep, between publishing
	 * its descriptor and looking at @cancel: either it sees the request
	 * or this sees the descriptor, and wakes it. A descriptor lives as
	 * long as @ls: one reused meanwhile is only woken for nothing.
	 */
	smp_mb();
	w = READ_ONCE(cancel->w);
	if (w)
		wake_up(&w->wq);
	/* Or it waits at the gate, or for a descriptor, with none yet. */
	wake_up_all(&ls->gate_wq);
	wake_up_all(&ls->pool_wq);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_cancel_request);

/**
 * rdmalock_desc_encode() - name a descriptor across the domain
 * @node: the node whose pool it is in
 * @idx: its index there
 * @gen: its allocation's generation
 *
 * Return: a pointer for a queue's tail or a NEXT word; never 0, which is
 * the null pointer.
 */
VISIBLE_IF_KUNIT u64 rdmalock_desc_encode(u32 node, u32 idx, u32 gen)
{
	return FIELD_PREP(RDMALOCK_PTR_NODE, node + 1) |
	       FIELD_PREP(RDMALOCK_PTR_GEN, gen) |
	       FIELD_PREP(RDMALOCK_PTR_IDX, idx);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_desc_encode);

/**
 * rdmalock_desc_decode() - check and take apart a descriptor pointer
 * @ptr: the pointer, as read from a tail or NEXT word
 * @num_nodes: nodes in the domain
 * @descs: descriptors per node
 * @node: set to its node
 * @idx: set to its index
 * @gen: set to its generation
 *
 * Return: 0, or -EINVAL for null or a node or index out of range.
 */
int rdmalock_desc_decode(u64 ptr, u32 num_nodes, u32 descs, u32 *node, u32 *idx,
			 u32 *gen)
{
	u32 n = FIELD_GET(RDMALOCK_PTR_NODE, ptr);

	*idx = FIELD_GET(RDMALOCK_PTR_IDX, ptr);
	*gen = FIELD_GET(RDMALOCK_PTR_GEN, ptr);
	if (!n || n > num_nodes || *idx >= descs)
		return -EINVAL;
	*node = n - 1;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_desc_decode);

/**
 * rdmalock_imm_idx_bits() - bits of an immediate that name a descriptor
 * @descs: descriptors per node
 *
 * Return: at least RDMALOCK_IMM_IDX_MIN, and enough for @descs indexes.
 */
VISIBLE_IF_KUNIT u32 rdmalock_imm_idx_bits(u32 descs)
{
	return max_t(u32, RDMALOCK_IMM_IDX_MIN, order_base_2(descs));
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_imm_idx_bits);

/* The generation's bits an immediate carries, as a mask. */
static u32 rdmalock_imm_gen_mask(u32 idx_bits)
{
	return GENMASK(30 - idx_bits, 0);
}

/**
 * rdmalock_imm_encode() - the immediate of a write that signals an event
 * @event: RDMALOCK_EV_*
 * @idx: the target descriptor
 * @gen: its generation; only the low bits travel
 * @idx_bits: rdmalock_imm_idx_bits() of the target's pool
 *
 * Return: the 32-bit immediate.
 */
VISIBLE_IF_KUNIT u32 rdmalock_imm_encode(unsigned int event, u32 idx, u32 gen,
					 u32 idx_bits)
{
	return (event == RDMALOCK_EV_LINK ? RDMALOCK_IMM_EVENT : 0) |
	       (gen & rdmalock_imm_gen_mask(idx_bits)) << idx_bits | idx;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_imm_encode);

/**
 * rdmalock_imm_decode() - take apart an immediate from rdmalock_imm_encode()
 * @imm: the immediate
 * @idx_bits: as it was encoded with
 * @event: set to its event
 * @idx: set to its descriptor
 * @gen: set to the low bits of the generation
 */
VISIBLE_IF_KUNIT void rdmalock_imm_decode(u32 imm, u32 idx_bits,
					  unsigned int *event, u32 *idx, u32 *gen)
{
	*event = imm & RDMALOCK_IMM_EVENT ? RDMALOCK_EV_LINK : RDMALOCK_EV_GRANT;
	*idx = imm & GENMASK(idx_bits - 1, 0);
	*gen = (imm >> idx_bits) & rdmalock_imm_gen_mask(idx_bits);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_imm_decode);

u64 *rdmalock_desc_word(struct rdmalock_lockspace *ls, u32 idx, u32 word)
{
	return ls->region + rdmalock_desc_offset(ls->locks_per_node, idx) + word;
}

u64 *rdmalock_slot_word(struct rdmalock_lockspace *ls, u64 slot_off, u32 word)
{
	return ls->region + slot_off + word;
}

/*
 * Did the algorithm fail on a verb, rather than give up or find the lock
 * taken? A deadline that has passed is the caller's -ETIMEDOUT.
 */
static bool rdmalock_verb_failed(int err, const struct rdmalock_how *how)
{
	if (err == -ETIMEDOUT)
		return !rdmalock_how_over(how);
	return err == -EIO || err == -ENOTCONN;
}

/**
 * rdmalock_queue_abandoned() - have the workqueue pass on what @w is granted
 * @ls: the lockspace
 * @w: an acquisition whose caller left: &rdmalock_waiter.state is
 *	RDMALOCK_W_ABANDONED or _ABANDONED_GRANTED, else nothing is queued
 * @delay: in jiffies
 *
 * The work calls &rdmalock_algo.pass_on inside the gate if it is open;
 * else a view change is under way, which resets @w's queue, and @w is
 * freed. A view change's reset and the domain's stop flush the work of
 * every descriptor before they go on (rdmalock_abandoned_flush()), so it
 * never runs in a later view than @w's, nor once @w is freed.
 *
 * Context: any.
 */
void rdmalock_queue_abandoned(struct rdmalock_lockspace *ls,
			      struct rdmalock_waiter *w, unsigned long delay)
{
	unsigned long flags;

	spin_lock_irqsave(&ls->stop_lock, flags);
	if (!ls->stopping && rdmalock_abandoned_state(atomic_read(&w->state)))
		queue_delayed_work(ls->wq, &w->abandon_work, delay);
	spin_unlock_irqrestore(&ls->stop_lock, flags);
}

/*
 * @w, abandoned, is about to be freed: no work may be queued for it from
 * now on, nor stay queued.
 */
static void rdmalock_abandon_end(struct rdmalock_lockspace *ls,
				 struct rdmalock_waiter *w)
{
	unsigned long flags;

	spin_lock_irqsave(&ls->stop_lock, flags);
	atomic_set(&w->state, RDMALOCK_W_GRANTED);
	cancel_delayed_work(&w->abandon_work);
	spin_unlock_irqrestore(&ls->stop_lock, flags);
}

/**
 * rdmalock_abandoned_flush() - run every abandoned acquisition's work now
 * @ls: the lockspace, whose gate is shut or which is stopping: the work
 *	frees what it finds abandoned, or passes on what it was granted,
 *	and queues itself no more
 *
 * Context: process context; sleeps.
 */
void rdmalock_abandoned_flush(struct rdmalock_lockspace *ls)
{
	u32 idx;

	for (idx = 0; idx < ls->descs; idx++)
		flush_delayed_work(&ls->waiters[idx].abandon_work);
}

/**
 * rdmalock_abandoned_waits_end() - end the waits that abandoned acquisitions carried
 * @ls: the lockspace, in a view change's claims, every queue reset and
 *	the gate shut; or stopping, every abandoned acquisition's work done
 * @post: write this node's bits at the homes (the claims): else a view
 *	change would leave the bits of a request that no longer waits at
 *	its home, telling every later holder to let go
 *
 * For the acquisitions that the reset freed, or lost, without letting go
 * (rdmalock_blocking_carry()).
 *
 * Context: process context; sleeps if @post.
 */
void rdmalock_abandoned_waits_end(struct rdmalock_lockspace *ls, bool post)
{
	u32 idx;

	if (!ls->names)
		return;
	for (idx = 0; idx < ls->descs; idx++)
		rdmalock_blocking_carried_end(&ls->waiters[idx], post);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_abandoned_waits_end);

/*
 * A grant settles the state in one step: to GRANTED for a waiter, to
 * ABANDONED_GRANTED for one whose caller left, whose work may then pass
 * the lock on and free the descriptor at once. Return: the state before.
 */
static int rdmalock_grant_settle(struct rdmalock_waiter *w)
{
	int old = atomic_read(&w->state);

	do {
		if (old != RDMALOCK_W_WAITING && old != RDMALOCK_W_ABANDONED)
			return old;
	} while (!atomic_try_cmpxchg(&w->state, &old,
				     old == RDMALOCK_W_ABANDONED ?
				     RDMALOCK_W_ABANDONED_GRANTED :
				     RDMALOCK_W_GRANTED));
	return old;
}

/**
 * rdmalock_event() - an event happened to one of this node's descriptors
 * @ls: the lockspace
 * @idx: the descriptor
 * @gen: the generation the event was meant for (low bits suffice)
 * @event: RDMALOCK_EV_*
 *
 * The word that goes with the event is in place before this is called.
 *
 * Context: any; softirq for events that came over the network.
 */
void rdmalock_event(struct rdmalock_lockspace *ls, u32 idx, u32 gen,
		    unsigned int event)
{
	struct rdmalock_waiter *w = &ls->waiters[idx];
	u32 mask = rdmalock_imm_gen_mask(rdmalock_imm_idx_bits(ls->descs));

	if ((READ_ONCE(w->gen) & mask) != (gen & mask)) {
		pr_warn_ratelimited("descriptor %u: event %u for an old acquisition\n",
				    idx, event);
		return;
	}
	/* The word is written before the bit; pairs with the waiter's smp_rmb(). */
	smp_mb__before_atomic();
	set_bit(event, &w->events);
	/* The bit is set before the state is read, as the waiter's cmpxchg. */
	smp_mb__after_atomic();
	if (event == RDMALOCK_EV_GRANT)
		trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_GRANTED);
	if (event == RDMALOCK_EV_GRANT &&
	    rdmalock_grant_settle(w) == RDMALOCK_W_ABANDONED)
		rdmalock_queue_abandoned(ls, w, 0);
	else
		wake_up(&w->wq);
}

static void rdmalock_imm(struct rdmalock_fabric *fabric, u32 node, u32 imm,
			 void *ctx)
{
	struct rdmalock_lockspace *ls = ctx;
	unsigned int event;
	u32 idx, gen;

	rdmalock_imm_decode(imm, rdmalock_imm_idx_bits(ls->descs), &event, &idx,
			    &gen);
	if (idx >= ls->descs) {
		pr_err_ratelimited("node %u: event for descriptor %u, out of range\n",
				   node, idx);
		return;
	}
	rdmalock_event(ls, idx, gen, event);
}

/**
 * rdmalock_desc_signal() - write a descriptor's word and wake its owner
 * @ls: the lockspace
 * @ptr: the descriptor, wherever it is
 * @event: RDMALOCK_EV_GRANT writes its BUDGET word, _LINK its NEXT word
 * @val: the value written
 * @via_nic: even when the descriptor is on this node, go through the NIC
 *	(the baselines do, as the papers' competitors did)
 *
 * Context: process context; sleeps until a write to a peer completes.
 * Return: 0, -EIO for a corrupt pointer, or the write's error.
 */
int rdmalock_desc_signal(struct rdmalock_lockspace *ls, u64 ptr,
			 unsigned int event, s64 val, bool via_nic)
{
	u32 word = event == RDMALOCK_EV_GRANT ? RDMALOCK_DESC_BUDGET : RDMALOCK_DESC_NEXT;
	u32 node, idx, gen;

	if (rdmalock_desc_decode(ptr, ls->num_nodes, ls->descs, &node, &idx, &gen)) {
		pr_err_ratelimited("corrupt queue pointer %#llx\n", ptr);
		return -EIO;
	}
	if (node == ls->self && !via_nic) {
		WRITE_ONCE(*rdmalock_desc_word(ls, idx, word), val);
		rdmalock_event(ls, idx, gen, event);
		return 0;
	}
	return rdmalock_fabric_write_imm(ls->fabric, node,
					 rdmalock_desc_offset(ls->locks_per_node, idx) + word,
					 &val, sizeof(val),
					 rdmalock_imm_encode(event, idx, gen,
							     rdmalock_imm_idx_bits(ls->descs)));
}

static bool rdmalock_node_alive(struct rdmalock_lockspace *ls, u32 node)
{
	return node == RDMALOCK_NO_NODE || node == ls->self ||
	       rdmalock_fabric_node_up(ls->fabric, node);
}

/*
 * Has one of @events happened? A grant counts once the event has settled
 * the state, not when its bit is set: the event's state change is then
 * the last it does to the acquisition (but a wake-up), so it cannot land
 * on the next acquisition of the descriptor, which the waiter, going on
 * at once, may have started meanwhile (found by tools/models/alock.pml).
 */
static bool rdmalock_happened(struct rdmalock_waiter *w, unsigned long events)
{
	int state = atomic_read(&w->state);

	if ((events & BIT(RDMALOCK_EV_GRANT)) &&
	    (state == RDMALOCK_W_GRANTED ||
	     state == RDMALOCK_W_ABANDONED_GRANTED))
		return true;
	return READ_ONCE(w->events) & events & ~BIT(RDMALOCK_EV_GRANT);
}

/*
 * A node this waiter depends on was lost. Where the algorithm recovers
 * through the view, the view change that follows restarts the waiter
 * instead: it ends up with the lock.
 */
static bool rdmalock_depends_on_lost(struct rdmalock_lockspace *ls,
				     struct rdmalock_waiter *w)
{
	return !ls->gated && (!rdmalock_node_alive(ls, w->home) ||
			      !rdmalock_node_alive(ls, w->watch));
}

/*
 * A sleeping waiter wakes for its event, for the domain's destruction,
 * for a view change, or for the loss of a node it depends on
 * (rdmalock_ls_node_lost()).
 */
static bool rdmalock_wake_cond(struct rdmalock_lockspace *ls,
			       struct rdmalock_waiter *w, unsigned long events)
{
	return rdmalock_happened(w, events) || READ_ONCE(ls->closed) ||
	       rdmalock_gate_shut(ls) || rdmalock_depends_on_lost(ls, w);
}

/**
 * rdmalock_wake_waiters() - wake every acquisition to look at why it sleeps
 * @ls: the lockspace
 *
 * One whose descriptor is allocated after its bit was read here looks
 * before it sleeps.
 *
 * Context: any.
 */
void rdmalock_wake_waiters(struct rdmalock_lockspace *ls)
{
	unsigned long idx;

	for_each_set_bit(idx, ls->used, ls->descs)
		wake_up(&ls->waiters[idx].wq);
}

/*
 * The fabric lost @node: wake every waiter, so that those that depend on
 * it see so; the others sleep on.
 */
static void rdmalock_ls_node_lost(struct rdmalock_fabric *fabric, u32 node,
				  void *ctx)
{
	struct rdmalock_lockspace *ls = ctx;

	rdmalock_wake_waiters(ls);
	/*
	 * What was in flight on the connection is lost unseen (a message,
	 * a grant): a view change resets the queues it may have left
	 * stalled, even if the node comes back before any view leaves it out.
	 */
	if (ls->gated && ls->node_lost)
		ls->node_lost(ls->view_ctx, node);
}

/**
 * rdmalock_wait_event() - wait for an event of this acquisition
 * @ls: the lockspace
 * @w: the acquisition
 * @events: a mask of RDMALOCK_EV_*: any of them ends the wait
 * @how: its deadline and whether signals end it
 *
 * Spins briefly, then sleeps until an event wakes it, or the loss of a
 * node it depends on.
 *
 * Context: process context.
 * Return: 0 when the event happened; -ETIMEDOUT, -EINTR, -ENOTCONN
 * when the lock's home node or @w->watch was lost, -ERESTART when a view
 * change is under way (the waiter leaves its queue without a verb: see
 * recovery.c), or -ESHUTDOWN when the domain was destroyed.
 */
int rdmalock_wait_event(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w,
			unsigned long events, const struct rdmalock_how *how)
{
	unsigned int i;
	long slice;

	for (i = 0; i < RDMALOCK_SPIN_LOOPS; i++) {
		if (rdmalock_happened(w, events))
			goto happened;
		cpu_relax();
	}
	for (;;) {
		slice = rdmalock_how_left(how);
		if (slice <= 0)
			return -ETIMEDOUT;
		if (!how->killable)
			wait_event_timeout(w->wq, rdmalock_wake_cond(ls, w, events) ||
					   rdmalock_how_cancelled(how), slice);
		else if (wait_event_killable_timeout(w->wq,
						     rdmalock_wake_cond(ls, w, events) ||
						     rdmalock_how_cancelled(how),
						     slice) < 0)
			return -EINTR;
		if (rdmalock_happened(w, events))
			goto happened;
		if (READ_ONCE(ls->closed))
			return -ESHUTDOWN;
		if (rdmalock_gate_shut(ls))
			return -ERESTART;
		if (rdmalock_depends_on_lost(ls, w))
			return -ENOTCONN;
	}
happened:
	/* Pairs with rdmalock_event(): the word is read after the bit. */
	smp_rmb();
	if (events & BIT(RDMALOCK_EV_GRANT) && test_bit(RDMALOCK_EV_GRANT, &w->events))
		trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_WOKEN);
	return 0;
}

/**
 * rdmalock_desc_next() - the successor that linked itself behind @w
 * @ls: the lockspace
 * @w: the acquisition, whose LINK event was seen
 *
 * The event's bit is set after the NEXT word is written (rdmalock_event());
 * the word is read after the bit was, wherever the bit was seen, as
 * mcs_spinlock.h pairs its release and acquire.
 *
 * Return: the successor's descriptor pointer.
 */
u64 rdmalock_desc_next(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w)
{
	/* Pairs with smp_mb__before_atomic() in rdmalock_event(). */
	smp_rmb();
	return READ_ONCE(*rdmalock_desc_word(ls, w->idx, RDMALOCK_DESC_NEXT));
}

/**
 * rdmalock_gave_up() - did an acquisition stop by choice, not by failure?
 * @err: what ended it
 *
 * Return: true for a timeout, a signal or a trylock that found the lock
 * taken: the lock's state is known, and the caller can put it back.
 */
bool rdmalock_gave_up(int err)
{
	return err == -ETIMEDOUT || err == -EINTR || err == -EAGAIN;
}

/**
 * rdmalock_acq_fail() - end an acquisition that is in no queue
 * @ls: the lockspace
 * @w: the acquisition
 * @err: why; a failed verb leaves it unknown whether the acquisition was
 *	published, so its descriptor is never reused
 *
 * Return: @err.
 */
int rdmalock_acq_fail(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w,
		      int err)
{
	/* A view change resets every queue it may be in: -ERESTART loses nothing. */
	if (!rdmalock_gave_up(err) && err != -ERESTART)
		w->lost = true;
	rdmalock_desc_free(ls, w);
	return err;
}

/**
 * rdmalock_pass_on() - release a lock nobody wants any more
 * @ls: the lockspace
 * @w: the acquisition, which heads its queue, or waits on abandoned
 * @granted: the budget it received, or 0 for none
 * @err: returned
 *
 * A lock that a failed verb kept from being passed on leaves its queue
 * broken: where views recover the lock, a view change is asked for,
 * which resets it.
 *
 * Context: process context.
 * Return: @err.
 */
int rdmalock_pass_on(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w,
		     s64 granted, int err)
{
	const struct rdmalock_algo *algo = ls->algo;
	int ret;

	ret = algo->pass_on ? algo->pass_on(ls, w, granted) : algo->release(ls, w);
	if (ret == -EINPROGRESS)
		return err;
	if (ret) {
		pr_err_ratelimited("descriptor %u: cannot pass on a lock\n", w->idx);
		w->lost = true;
		if (rdmalock_verb_failed(ret, &rdmalock_forever))
			rdmalock_ls_want_view_change(ls);
	}
	/* A lost one keeps it until the view change's claims post it. */
	if (!w->lost)
		rdmalock_blocking_carried_end(w, true);
	rdmalock_abandon_end(ls, w);
	rdmalock_desc_free(ls, w);
	return err;
}

static void rdmalock_abandoned(struct work_struct *work)
{
	struct rdmalock_waiter *w = container_of(to_delayed_work(work),
						 struct rdmalock_waiter,
						 abandon_work);
	struct rdmalock_lockspace *ls = w->ls;

	/*
	 * A view change is under way: it resets the queue instead, and its
	 * claims end the wait @w carries (rdmalock_abandoned_waits_end()).
	 */
	if (!rdmalock_gate_try_enter(ls)) {
		rdmalock_abandon_end(ls, w);
		rdmalock_desc_free(ls, w);
		return;
	}
	rdmalock_pass_on(ls, w,
			 READ_ONCE(*rdmalock_desc_word(ls, w->idx, RDMALOCK_DESC_BUDGET)),
			 0);
	rdmalock_gate_leave(ls);
}

/**
 * rdmalock_abandon() - the caller of @w leaves it where it waits
 * @ls: the lockspace
 * @w: an acquisition inside the gate, queued or counted in the lock word
 *
 * Counts it, and has it carry its named lock's wait until it is let go
 * of (rdmalock_blocking_carry()).
 *
 * Context: process context.
 * Return: its state before: RDMALOCK_W_WAITING, and it is
 * RDMALOCK_W_ABANDONED now; or RDMALOCK_W_GRANTED, which the grant
 * settled, and the caller passes the lock on.
 */
int rdmalock_abandon(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w)
{
	atomic64_inc(&ls->abandoned);
	rdmalock_blocking_carry(w);
	return atomic_cmpxchg(&w->state, RDMALOCK_W_WAITING, RDMALOCK_W_ABANDONED);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_abandon);

/**
 * rdmalock_wait_cancel() - stop waiting for a grant
 * @ls: the lockspace
 * @w: the acquisition, queued behind a predecessor
 * @err: why it stops
 *
 * Either the grant comes later and the workqueue passes it on, or it came
 * just now and is passed on here. For a view change (-ERESTART) neither:
 * the queue is about to be reset, and the descriptor is simply free.
 *
 * Context: process context.
 * Return: @err.
 */
int rdmalock_wait_cancel(struct rdmalock_lockspace *ls,
			 struct rdmalock_waiter *w, int err)
{
	if (err == -ERESTART) {
		rdmalock_desc_free(ls, w);
		return err;
	}
	if (rdmalock_abandon(ls, w) == RDMALOCK_W_WAITING)
		return err;
	/* The grant's BUDGET word is read after its state; pairs with the event. */
	smp_rmb();
	return rdmalock_pass_on(ls, w,
				READ_ONCE(*rdmalock_desc_word(ls, w->idx,
							      RDMALOCK_DESC_BUDGET)),
				err);
}

/**
 * rdmalock_backoff() - wait a little before polling again
 * @ls: the lockspace
 * @how: the acquisition's deadline and signal policy
 * @us: the current delay; doubled, up to @max_us
 * @max_us: the longest delay
 *
 * Context: process context; sleeps.
 * Return: 0 to poll again, or -EAGAIN (a trylock), -ETIMEDOUT, -EINTR,
 * -ERESTART (a view change is under way) or -ESHUTDOWN (the domain was
 * destroyed).
 */
int rdmalock_backoff(struct rdmalock_lockspace *ls, const struct rdmalock_how *how,
		     unsigned int *us, unsigned int max_us)
{
	if (how->try)
		return -EAGAIN;
	if (READ_ONCE(ls->closed))
		return -ESHUTDOWN;
	if (rdmalock_gate_shut(ls))
		return -ERESTART;
	if (rdmalock_how_over(how))
		return -ETIMEDOUT;
	if (how->killable && fatal_signal_pending(current))
		return -EINTR;
	usleep_range(*us, *us * 2);
	*us = min(*us * 2, max_us);
	return 0;
}

/**
 * rdmalock_cas() - RDMA compare-and-swap, counting the ones that fail
 * @ls: the lockspace
 * @node: the word's node
 * @off: its offset there
 * @expected: compare value
 * @desired: swap value
 * @old: set to the word's previous value
 *
 * Context: process context; sleeps.
 * Return: as rdmalock_fabric_cas().
 */
int rdmalock_cas(struct rdmalock_lockspace *ls, u32 node, u64 off, u64 expected,
		 u64 desired, u64 *old)
{
	int ret = rdmalock_fabric_cas(ls->fabric, node, off, expected, desired, old);

	if (!ret && *old != expected)
		atomic64_inc(&ls->cas_failed);
	return ret;
}

/**
 * rdmalock_desc_alloc() - a descriptor for a new acquisition
 * @ls: the lockspace
 *
 * Its words are reset (BUDGET -1, NEXT null) before anyone can see it.
 *
 * Context: any.
 * Return: the acquisition, or NULL when all &rdmalock_lockspace.descs are
 * in use.
 */
struct rdmalock_waiter *rdmalock_desc_alloc(struct rdmalock_lockspace *ls)
{
	struct rdmalock_waiter *w;
	unsigned long idx;

	spin_lock_bh(&ls->pool_lock);
	idx = find_first_zero_bit(ls->used, ls->descs);
	if (idx < ls->descs)
		__set_bit(idx, ls->used);
	spin_unlock_bh(&ls->pool_lock);
	if (idx >= ls->descs)
		return NULL;

	w = &ls->waiters[idx];
	WRITE_ONCE(w->gen, w->gen + 1);
	w->events = 0;
	atomic_set(&w->state, RDMALOCK_W_WAITING);
	w->me = rdmalock_desc_encode(ls->self, idx, w->gen);
	w->watch = RDMALOCK_NO_NODE;
	w->lost = false;
	w->held = false;
	w->gone = 0;
	if (ls->algo->waiter_size)
		memset(w->priv, 0, ls->algo->waiter_size);
	WRITE_ONCE(*rdmalock_desc_word(ls, idx, RDMALOCK_DESC_BUDGET), (u64)-1);
	WRITE_ONCE(*rdmalock_desc_word(ls, idx, RDMALOCK_DESC_NEXT), 0);
	return w;
}

/**
 * rdmalock_desc_free() - the acquisition is over
 * @ls: the lockspace
 * @w: the acquisition; a lost one keeps its descriptor until a view change
 *	resets every queue (or for good, where the algorithm has no views)
 */
void rdmalock_desc_free(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w)
{
	if (w->lost) {
		atomic_inc(&ls->lost);
		/* Held no more: the next view change frees it. */
		spin_lock_bh(&ls->pool_lock);
		w->held = false;
		spin_unlock_bh(&ls->pool_lock);
		return;
	}
	if (ls->algo->end)
		ls->algo->end(ls, w);
	/* With the bit, where a view change's reset looks for both. */
	spin_lock_bh(&ls->pool_lock);
	w->held = false;
	__clear_bit(w->idx, ls->used);
	spin_unlock_bh(&ls->pool_lock);
	rdmalock_desc_freed(ls);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_desc_free);

/**
 * rdmalock_desc_freed() - descriptors were freed: wake who waits for one
 * @ls: the lockspace
 *
 * Context: any.
 */
void rdmalock_desc_freed(struct rdmalock_lockspace *ls)
{
	/* Pairs with the barrier of the sleep, after it queued itself. */
	if (wq_has_sleeper(&ls->pool_wq))
		wake_up(&ls->pool_wq);
}

/**
 * rdmalock_lockspace_alloc() - lock state over a region
 * @attr: the domain's attributes
 * @region: this node's region: its lock table and descriptor pool
 * @params: the algorithm and its parameters
 *
 * With no fabric yet: enough for locks homed on this node, which is how
 * KUnit tests ALock's local cohort without any RDMA. The algorithm's
 * state of the lockspace and of each descriptor is allocated here, and
 * set up by its init.
 *
 * Context: process context.
 * Return: the lockspace, or ERR_PTR(-EOPNOTSUPP) for an algorithm not
 * implemented yet, ERR_PTR(-ENOMEM).
 */
VISIBLE_IF_KUNIT struct rdmalock_lockspace *
rdmalock_lockspace_alloc(const struct rdmalock_fabric_attr *attr, void *region,
			 const struct rdmalock_ls_params *params)
{
	const struct rdmalock_algo *ops = rdmalock_algo_find(params->algo);
	struct rdmalock_lockspace *ls;
	u32 i;

	if (!ops) {
		pr_err_ratelimited("domain %s: algorithm %u is not implemented yet\n",
				   attr->name, params->algo);
		return ERR_PTR(-EOPNOTSUPP);
	}
	ls = kvzalloc(sizeof(*ls), GFP_KERNEL);
	if (!ls)
		return ERR_PTR(-ENOMEM);
	if (ops->ls_size) {
		ls->algo_data = kvzalloc(ops->ls_size, GFP_KERNEL);
		if (!ls->algo_data)
			goto err_free;
	}
	ls->descs = params->descs;
	ls->used = bitmap_zalloc(ls->descs, GFP_KERNEL);
	ls->waiters = kvcalloc(ls->descs, sizeof(*ls->waiters), GFP_KERNEL);
	if (!ls->used || !ls->waiters)
		goto err_free;
	if (ops->waiter_size) {
		ls->waiter_data = kvcalloc(ls->descs, ops->waiter_size, GFP_KERNEL);
		if (!ls->waiter_data)
			goto err_free;
	}
	/*
	 * Reclaim-safe: a view change's step, on a reclaim-safe queue,
	 * flushes it (recovery.c), and lock calls may come from writeback.
	 */
	ls->wq = alloc_workqueue("rdmalock-%s", WQ_UNBOUND | WQ_MEM_RECLAIM, 0,
				 attr->name);
	if (!ls->wq)
		goto err_free;
	ls->request_wq = alloc_workqueue("rdmalock-rq-%s",
					 WQ_UNBOUND | WQ_MEM_RECLAIM, 0, attr->name);
	if (!ls->request_wq)
		goto err_free;
	ls->name = attr->name;
	ls->region = region;
	ls->algo = ops;
	ls->self = attr->node_id;
	ls->num_nodes = attr->num_nodes;
	ls->locks_per_node = params->locks_per_node;
	spin_lock_init(&ls->pool_lock);
	spin_lock_init(&ls->stop_lock);
	/* Open to every node until a membership shuts it (KUnit has none). */
	ls->gated = ops->recover_hold && !params->lease_recovery;
	ls->gate = RDMALOCK_GATE_OPEN;
	ls->members = GENMASK(attr->num_nodes - 1, 0);
	ls->queue_view = 1;
	init_waitqueue_head(&ls->gate_wq);
	init_waitqueue_head(&ls->pool_wq);
	for (i = 0; i < ls->descs; i++) {
		ls->waiters[i].ls = ls;
		ls->waiters[i].idx = i;
		if (ops->waiter_size)
			ls->waiters[i].priv = ls->waiter_data + i * ops->waiter_size;
		init_waitqueue_head(&ls->waiters[i].wq);
		INIT_DELAYED_WORK(&ls->waiters[i].abandon_work, rdmalock_abandoned);
	}
	if (ops->init)
		ops->init(ls, params);
	return ls;

err_free:
	if (ls->wq)
		destroy_workqueue(ls->wq);
	kvfree(ls->waiter_data);
	kvfree(ls->waiters);
	bitmap_free(ls->used);
	kvfree(ls->algo_data);
	kvfree(ls);
	return ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_lockspace_alloc);

/**
 * rdmalock_lockspace_create() - the lock state of a new domain
 * @fabric: the domain's fabric, created
 * @attr: its attributes
 * @params: the algorithm and its parameters
 * @lsp: set to the lockspace
 *
 * On failure no handler of the lockspace is left installed on @fabric:
 * the algorithm's attach installs its message handlers only once nothing
 * of it can fail, and the immediate-data and lost-node handlers are
 * installed after it.
 *
 * Context: process context.
 * Return: 0, or as rdmalock_lockspace_alloc(), or the algorithm's attach
 * error.
 */
int rdmalock_lockspace_create(struct rdmalock_fabric *fabric,
			      const struct rdmalock_fabric_attr *attr,
			      const struct rdmalock_ls_params *params,
			      struct rdmalock_lockspace **lsp)
{
	struct rdmalock_lockspace *ls;
	int ret;

	ls = rdmalock_lockspace_alloc(attr, rdmalock_fabric_local(fabric, 0, 1),
				      params);
	if (IS_ERR(ls))
		return PTR_ERR(ls);
	ls->fabric = fabric;
	/* Nothing is granted before this node is a member of a view. */
	ls->gate = RDMALOCK_GATE_OUT;
	ls->members = 0;
	ls->queue_view = 0;
	if (params->named) {
		ls->names = rdmalock_names_alloc(ls);
		if (!ls->names) {
			ret = -ENOMEM;
			goto err;
		}
	}
	ret = ls->algo->attach ? ls->algo->attach(ls) : 0;
	if (ret)
		goto err;
	/*
	 * Last, once nothing can fail: a handler cannot be removed from the
	 * live fabric, which would call it on the freed lockspace. It goes
	 * with the fabric, which is destroyed before the lockspace is freed.
	 */
	rdmalock_fabric_set_imm_handler(fabric, rdmalock_imm, ls);
	rdmalock_fabric_set_lost_handler(fabric, rdmalock_ls_node_lost, ls);
	if (ls->names)
		rdmalock_names_attach(ls->names);
	*lsp = ls;
	return 0;

err:
	rdmalock_lockspace_stop(ls);
	rdmalock_lockspace_free(ls);
	return ret;
}

/**
 * rdmalock_lockspace_close() - the domain is destroyed: wake every waiter
 * @ls: the lockspace
 *
 * Waits and polls see it closed and fail with -ESHUTDOWN; the fabric is
 * still up, so that they can leave their queues as after a timeout.
 *
 * Context: any.
 */
void rdmalock_lockspace_close(struct rdmalock_lockspace *ls)
{
	WRITE_ONCE(ls->closed, true);
	/* Closed before calls are counted; pairs with rdmalock_domain_enter(). */
	smp_mb();
	rdmalock_wake_waiters(ls);
	/* And calls waiting at the gate, for a view change or a descriptor. */
	wake_up_all(&ls->gate_wq);
	wake_up_all(&ls->pool_wq);
	if (ls->names)
		rdmalock_names_close(ls->names);
}

/**
 * rdmalock_lockspace_stop() - finish the hand-overs still under way
 * @ls: the lockspace; no acquisition may be running
 *
 * Before the fabric goes, since they use it. Grants that arrive later
 * are dropped: the domain is going away.
 */
void rdmalock_lockspace_stop(struct rdmalock_lockspace *ls)
{
	spin_lock_irq(&ls->stop_lock);
	ls->stopping = true;
	spin_unlock_irq(&ls->stop_lock);
	if (ls->names)
		rdmalock_names_stop(ls->names);
	rdmalock_abandoned_flush(ls);
	rdmalock_abandoned_waits_end(ls, false);
	/* Requests still queued fail: the domain is closed. */
	destroy_workqueue(ls->request_wq);
	destroy_workqueue(ls->wq);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_lockspace_stop);

/**
 * rdmalock_lockspace_free() - free it, once the fabric is gone
 * @ls: the lockspace, stopped
 *
 * The algorithm's detach frees what its init and attach made.
 */
void rdmalock_lockspace_free(struct rdmalock_lockspace *ls)
{
	if (ls->algo->detach)
		ls->algo->detach(ls);
	if (ls->names)
		rdmalock_names_free(ls->names);
	kvfree(ls->waiter_data);
	kvfree(ls->waiters);
	bitmap_free(ls->used);
	kvfree(ls->algo_data);
	kvfree(ls);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_lockspace_free);

/* Whether the fabric reaches @home, whatever the view. */
static bool rdmalock_home_up(struct rdmalock_lockspace *ls, u32 home)
{
	/* Through the loopback, unless the home node's CPU does it all. */
	if (home == ls->self)
		return ls->algo->cpu_at_home || !ls->fabric ||
		       rdmalock_fabric_node_up(ls->fabric, home);
	return rdmalock_fabric_node_up(ls->fabric, home);
}

static bool rdmalock_home_reachable(struct rdmalock_lockspace *ls, u32 home)
{
	if (home != ls->self && ls->gated && !(READ_ONCE(ls->members) & BIT(home)))
		return false;
	return rdmalock_home_up(ls, home);
}

static bool rdmalock_view_moved(struct rdmalock_lockspace *ls, int gen)
{
	return atomic_read(&ls->gate_gen) != gen || READ_ONCE(ls->closed);
}

/*
 * A verb failed while every node may be alive: a queue may be broken
 * (a waiter lost in it, a grant that never landed) until a view change
 * resets it. Asks for one and waits, within @how, until it has started.
 * Return: 0 once it started, else @err.
 */
static int rdmalock_await_view_change(struct rdmalock_lockspace *ls, int gen,
				      const struct rdmalock_how *how, int err)
{
	long left = msecs_to_jiffies(RDMALOCK_VIEW_CHANGE_WAIT_MS);

	if (!rdmalock_ls_want_view_change(ls))
		return err;
	if (how->try && !how->may_sleep)
		return err;
	left = min(left, rdmalock_how_left(how));
	if (left <= 0)
		return err;
	if (how->killable)
		wait_event_killable_timeout(ls->gate_wq,
					    rdmalock_view_moved(ls, gen) ||
					    rdmalock_how_cancelled(how), left);
	else
		wait_event_timeout(ls->gate_wq, rdmalock_view_moved(ls, gen) ||
				   rdmalock_how_cancelled(how), left);
	return atomic_read(&ls->gate_gen) != gen ? 0 : err;
}

/* One attempt, inside the gate: -ENOBUFS when every descriptor is in use. */
static int rdmalock_ls_acquire_once(struct rdmalock_lockspace *ls, u32 home,
				    u64 slot_off, unsigned int mode,
				    const struct rdmalock_how *how,
				    struct rdmalock_waiter **wp)
{
	struct rdmalock_waiter *w;
	int ret;

	w = rdmalock_desc_alloc(ls);
	if (!w)
		return -ENOBUFS;
	w->mode = mode;
	w->home = home;
	w->slot_off = slot_off;
	w->lk = how->lk;
	if (how->cancel)
		WRITE_ONCE(how->cancel->w, w);
	trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_ASK);
	/* On failure the algorithm has ended the acquisition itself. */
	ret = ls->algo->acquire(ls, w, how);
	if (how->cancel)
		WRITE_ONCE(how->cancel->w, NULL);
	/*
	 * A verb that found its send queue full failed as any other: its
	 * -ENOBUFS is not the pool's, which has a descriptor to wait for.
	 */
	if (ret == -ENOBUFS)
		return -EIO;
	if (ret)
		return ret;
	/*
	 * Under the pool lock, where a fence looks for holders after it shut
	 * the gate: a fence either finds this holder or was seen here.
	 */
	spin_lock_bh(&ls->pool_lock);
	w->held = true;
	if (ls->gated && READ_ONCE(ls->gate) == RDMALOCK_GATE_OUT)
		w->gone = -ENOLCK;
	spin_unlock_bh(&ls->pool_lock);
	atomic64_inc(&ls->acquisitions);
	trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_HELD);
	*wp = w;
	return 0;
}

/* A descriptor is free, or the wait for one is over for another reason. */
static bool rdmalock_desc_wait_over(struct rdmalock_lockspace *ls,
				    const struct rdmalock_how *how)
{
	return find_first_zero_bit(ls->used, ls->descs) < ls->descs ||
	       READ_ONCE(ls->closed) || rdmalock_gate_shut(ls) ||
	       rdmalock_how_cancelled(how);
}

/*
 * Every descriptor of the pool is in use: wait for one, outside the gate,
 * as long as @how lets the acquisition wait. Holders of named locks are
 * asked to give theirs up. Return: 0 to try again, or why not.
 */
static int rdmalock_await_desc(struct rdmalock_lockspace *ls,
			       const struct rdmalock_how *how)
{
	long left = rdmalock_how_left(how);

	pr_warn_ratelimited("%s: all %u queue descriptors are in use\n",
			    ls->name, ls->descs);
	if (how->try)
		return -EAGAIN;
	if (ls->names)
		rdmalock_names_press(ls->names);
	if (left <= 0)
		return -ETIMEDOUT;
	if (how->killable)
		left = wait_event_killable_timeout(ls->pool_wq,
						   rdmalock_desc_wait_over(ls, how),
						   left);
	else
		left = wait_event_timeout(ls->pool_wq,
					  rdmalock_desc_wait_over(ls, how), left);
	if (left == -ERESTARTSYS)
		return -EINTR;
	if (READ_ONCE(ls->closed))
		return -ESHUTDOWN;
	return rdmalock_how_over(how) ? -ETIMEDOUT : 0;
}

/**
 * rdmalock_ls_acquire() - take a lock of this lockspace
 * @ls: the lockspace
 * @home: the lock's home node
 * @slot_off: its slot, as an offset in the home node's region
 * @mode: RDMALOCK_MODE_EX or _SH
 * @how: how it may wait
 * @wp: set to the acquisition, which the release needs
 *
 * A view change under way restarts it, in the new view; so does a failed
 * verb, after the view change it asks for.
 *
 * Context: process context; sleeps unless @how is a trylock.
 * An acquisition that finds every descriptor of the pool in use waits
 * for one, as it would for the lock.
 *
 * Return: 0; -ENOTCONN when @home is down or not in the view, or this
 * node is not a member; -ENOLCK when this node was fenced while it
 * waited; -EAGAIN when a trylock found the lock taken, every descriptor
 * in use, or a view change under way; -ETIMEDOUT or -EINTR when @how's
 * wait ended first;
 * -ESTALE when @how's stale() says so; or the algorithm's error.
 */
int rdmalock_ls_acquire(struct rdmalock_lockspace *ls, u32 home, u64 slot_off,
			unsigned int mode, const struct rdmalock_how *how,
			struct rdmalock_waiter **wp)
{
	unsigned int verb_restarts = 0;
	bool restarted = false;
	int ret, gen;

	for (;;) {
		/*
		 * A home the fabric lost fails at once, not behind the view
		 * change that will only confirm it; but a name is resolved
		 * again after it, at its new home. A home that is up but out
		 * of the view may come back in the view change under way:
		 * its names move to it before this node's view does.
		 */
		if (!how->stale && !rdmalock_home_up(ls, home))
			return -ENOTCONN;
		ret = rdmalock_gate_enter(ls, how);
		if (ret)
			return ret == -ENOTCONN && restarted ? -ENOLCK : ret;
		/* A name whose home left is resolved again, at its new home. */
		if (how->stale && how->stale(how->stale_arg)) {
			rdmalock_gate_leave(ls);
			return -ESTALE;
		}
		if (!rdmalock_home_reachable(ls, home)) {
			rdmalock_gate_leave(ls);
			return -ENOTCONN;
		}
		gen = atomic_read(&ls->gate_gen);
		ret = rdmalock_ls_acquire_once(ls, home, slot_off, mode, how, wp);
		rdmalock_gate_leave(ls);
		if (ret == -ENOBUFS)
			ret = rdmalock_await_desc(ls, how) ?: -ERESTART;
		if (ls->gated && rdmalock_verb_failed(ret, how) &&
		    verb_restarts++ < RDMALOCK_VERB_RESTARTS)
			ret = rdmalock_await_view_change(ls, gen, how, ret) ?: -ERESTART;
		if (ret != -ERESTART)
			return ret;
		restarted = true;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_ls_acquire);

/* One release, inside the gate. */
static int rdmalock_ls_release_once(struct rdmalock_lockspace *ls,
				    struct rdmalock_waiter *w)
{
	int ret = ls->algo->release(ls, w);

	if (ret && ret != -ERESTART && ls->gated &&
	    rdmalock_verb_failed(ret, &rdmalock_forever)) {
		/*
		 * Whether the lock is free or its queue broken, the view
		 * change asked for frees it: @w claims it no more.
		 */
		pr_err_ratelimited("%s: descriptor %u: release failed (%d): the lock is left to a view change\n",
				   ls->name, w->idx, ret);
		w->lost = true;
		rdmalock_ls_want_view_change(ls);
		ret = 0;
	}
	return ret;
}

/*
 * A holder enters the gate, after a view change under way: 0, or why not,
 * which says it lost its lock: @w's gone, or -ENOLCK when this node was
 * fenced.
 */
static int rdmalock_holder_enter(struct rdmalock_lockspace *ls,
				 struct rdmalock_waiter *w)
{
	int ret = READ_ONCE(w->gone);

	if (ret)
		return ret;
	ret = rdmalock_gate_enter(ls, &rdmalock_forever);
	if (ret == -ENOTCONN)
		ret = READ_ONCE(w->gone) ?: -ENOLCK;	/* fenced */
	return ret;
}

/* The release is over, whatever it returns: @w holds nothing any more. */
static void rdmalock_release_end(struct rdmalock_lockspace *ls,
				 struct rdmalock_waiter *w, int ret)
{
	/* After -ETIME the algorithm knows whether the descriptor is named. */
	if (ret && ret != -ETIME && !READ_ONCE(w->gone))
		w->lost = true;
	trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_RELEASED);
	rdmalock_desc_free(ls, w);
}

/**
 * rdmalock_ls_release() - release a lock taken by rdmalock_ls_acquire()
 * @ls: the lockspace
 * @w: the acquisition; over when this returns, whatever it returns
 *
 * A view change under way is waited for: the holder still holds its lock
 * in the new view, and releases it there.
 *
 * Context: process context.
 * Return: 0; -ENOLCK when this node was fenced, -ENOTCONN when the lock's
 * home left the view, while it held the lock: it was lost; -ETIME when
 * the holder's lease had expired (ShiftLock, DSLR): the lock was left for
 * recovery; or the algorithm's error: the lock may then be wedged (until
 * the next view change, where the algorithm recovers through the view).
 * After any error the descriptor is not reused before a view change.
 */
int rdmalock_ls_release(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w)
{
	int ret;

	trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_RELEASE);
	for (;;) {
		ret = rdmalock_holder_enter(ls, w);
		if (ret)
			break;
		ret = rdmalock_ls_release_once(ls, w);
		if (ret != -ERESTART) {
			/* Inside the gate: no reset frees it under us. */
			rdmalock_release_end(ls, w, ret);
			rdmalock_gate_leave(ls);
			return ret;
		}
		rdmalock_gate_leave(ls);
	}
	rdmalock_release_end(ls, w, ret);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_ls_release);

/**
 * rdmalock_ls_can_convert() - can @ls change a held lock's word mode in place?
 * @ls: the lockspace
 *
 * Return: true where the algorithm converts (&rdmalock_algo.downgrade and
 * .upgrade) and the domain recovers its locks through membership views.
 */
bool rdmalock_ls_can_convert(const struct rdmalock_lockspace *ls)
{
	return ls->algo->downgrade && ls->gated;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_ls_can_convert);

/**
 * rdmalock_ls_convert() - hold a lock in the other word mode, without letting go
 * @ls: the lockspace
 * @w: an acquisition that holds its lock
 * @up: from shared to exclusive; else from exclusive to shared
 *
 * A view change under way is waited for, and the conversion done in the
 * new view, where @w holds the lock as before again. A verb that fails
 * may leave the word half converted: a view change is asked for, which
 * resets it, and the conversion is tried again in the new view.
 *
 * Context: process context; sleeps.
 * Return: 0, and @w holds the lock in the other mode, or, converted down,
 * maybe still exclusive (&rdmalock_algo.downgrade); -EOPNOTSUPP when
 * rdmalock_ls_can_convert() says no; -EAGAIN when @up cannot be done now
 * (others hold or wait); or as rdmalock_ls_release(), and @w still holds
 * it as before, or lost it: its release says which.
 */
int rdmalock_ls_convert(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w,
			bool up)
{
	unsigned int verb_restarts = 0;
	int ret, gen;

	if (!rdmalock_ls_can_convert(ls))
		return -EOPNOTSUPP;
	for (;;) {
		ret = rdmalock_holder_enter(ls, w);
		if (ret)
			return ret;
		gen = atomic_read(&ls->gate_gen);
		ret = up ? ls->algo->upgrade(ls, w) : ls->algo->downgrade(ls, w);
		rdmalock_gate_leave(ls);
		/* Only where views recover the lock (rdmalock_ls_can_convert()). */
		if (rdmalock_verb_failed(ret, &rdmalock_forever) &&
		    verb_restarts++ < RDMALOCK_VERB_RESTARTS)
			ret = rdmalock_await_view_change(ls, gen, &rdmalock_forever,
							 ret) ?: -ERESTART;
		if (ret != -ERESTART)
			return ret;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_ls_convert);

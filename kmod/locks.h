/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock lock layer: what the lock algorithms share.
 *
 * Every acquisition, of any algorithm, owns a queue descriptor from this
 * node's pool for as long as it waits and holds: a 64-byte slot of the
 * registered region that peers may write (struct rdmalock_waiter is its
 * CPU-side twin, in ordinary memory). A descriptor is named across the
 * domain by an encoded pointer, which the queue locks store in their
 * tail words. A successor links itself to its predecessor by writing the
 * predecessor's NEXT word, and a predecessor hands the lock over by
 * writing its successor's BUDGET word; either write is an event for the
 * descriptor's owner, which is sleeping, and wakes it: an RDMA WRITE with
 * immediate from another node, or a store and a wake-up on this one.
 */
#ifndef RDMALOCK_LOCKS_H
#define RDMALOCK_LOCKS_H

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/build_bug.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "fabric.h"
#include "lkmode.h"

/*
 * The lock layer's part of every node's region, from the fabric's
 * RDMALOCK_FABRIC_USER_OFFSET:
 *
 *   table_off              locks_per_node * 64          the lock table
 *   desc_off               descs * 64                   queue descriptors
 *   value_off              locks_per_node * 128         named locks only:
 *                                                       each lock's value
 *
 * Every part is 64-byte aligned. descs, the domain's descriptors per node,
 * is at most RDMALOCK_MAX_DESCRIPTORS: a descriptor's index fits the 16
 * bits that pointers to it keep for it.
 */
#define RDMALOCK_SLOT_SIZE	64
#define RDMALOCK_VALUE_SIZE	128

static_assert(RDMALOCK_FABRIC_USER_OFFSET % RDMALOCK_SLOT_SIZE == 0);

/* Offsets, in every node's region, of the lock table and the descriptors. */
static inline u64 rdmalock_table_offset(u32 slot)
{
	return RDMALOCK_FABRIC_USER_OFFSET + (u64)slot * RDMALOCK_SLOT_SIZE;
}

static inline u64 rdmalock_desc_offset(u32 locks_per_node, u32 desc)
{
	return rdmalock_table_offset(locks_per_node) +
	       (u64)desc * RDMALOCK_SLOT_SIZE;
}

/* The value of the lock of @slot, in a domain with named locks. */
static inline u64 rdmalock_value_offset(u32 locks_per_node, u32 descs, u32 slot)
{
	return rdmalock_desc_offset(locks_per_node, descs) +
	       (u64)slot * RDMALOCK_VALUE_SIZE;
}

/* The lock layer's part: lock table, descriptor pool and values, in bytes. */
static inline u32 rdmalock_locks_len(u32 locks_per_node, u32 descs, bool named)
{
	return rdmalock_value_offset(locks_per_node, descs,
				     named ? locks_per_node : 0) -
	       RDMALOCK_FABRIC_USER_OFFSET;
}

/* Words of a descriptor. */
#define RDMALOCK_DESC_BUDGET	0	/* s64: -1 while waiting, then handed over */
#define RDMALOCK_DESC_NEXT	8	/* encoded pointer to the successor */

/* Words of a lock's table slot that every algorithm leaves to the torture. */
#define RDMALOCK_SLOT_READERS	40
#define RDMALOCK_SLOT_OWNER	48
#define RDMALOCK_SLOT_COUNTER	56

/* Events of a descriptor, bits of &rdmalock_waiter.events. */
#define RDMALOCK_EV_GRANT	0	/* BUDGET was written: the lock is ours */
#define RDMALOCK_EV_LINK	1	/* NEXT was written: a successor queued */
#define RDMALOCK_EV_ALGO	2	/* and up: the algorithm's own events */

/**
 * enum rdmalock_step - what the rdmalock_lock_step tracepoint marks of an
 *	acquisition and its release, in their order: the breakdown of a
 *	lock's latency by phase (tools/testing/vm/scenarios/bench.sh)
 * @RDMALOCK_STEP_ASK: the acquisition starts
 * @RDMALOCK_STEP_QUEUED: the atomic that puts it in line (a queue's tail
 *	swapped, a lock word changed) returned
 * @RDMALOCK_STEP_LINKED: it tells its predecessor of itself, now: before
 *	the grant, which may come as soon as the predecessor knows
 * @RDMALOCK_STEP_GRANTED: the grant reached this node (softirq, for one
 *	that came over the network)
 * @RDMALOCK_STEP_WOKEN: the waiting task saw the grant
 * @RDMALOCK_STEP_HELD: the acquisition holds the lock
 * @RDMALOCK_STEP_RELEASE: its release starts
 * @RDMALOCK_STEP_HANDOVER: the release tells the successor, now
 * @RDMALOCK_STEP_RELEASED: the release is over
 *
 * An algorithm marks the steps it has: a CAS spinlock only the first
 * and last of each half.
 */
enum rdmalock_step {
	RDMALOCK_STEP_ASK,
	RDMALOCK_STEP_QUEUED,
	RDMALOCK_STEP_LINKED,
	RDMALOCK_STEP_GRANTED,
	RDMALOCK_STEP_WOKEN,
	RDMALOCK_STEP_HELD,
	RDMALOCK_STEP_RELEASE,
	RDMALOCK_STEP_HANDOVER,
	RDMALOCK_STEP_RELEASED,
};

/* &rdmalock_waiter.state */
#define RDMALOCK_W_WAITING	0
#define RDMALOCK_W_GRANTED	1
#define RDMALOCK_W_ABANDONED	2	/* its caller left; the grant passes it on */
#define RDMALOCK_W_ABANDONED_GRANTED 3	/* ... and the grant came: passed on for it */

/* Its caller left, and its work passes on what it is granted. */
static inline bool rdmalock_abandoned_state(int state)
{
	return state == RDMALOCK_W_ABANDONED ||
	       state == RDMALOCK_W_ABANDONED_GRANTED;
}

#define RDMALOCK_NO_NODE	U32_MAX

struct rdmalock_lock;
struct rdmalock_lockspace;
struct rdmalock_ls_params;
struct rdmalock_name;
struct rdmalock_names;

/**
 * struct rdmalock_waiter - one acquisition, and its descriptor
 * @ls: the lockspace
 * @idx: the descriptor's index in the pool
 * @gen: bumped at each allocation; stale events are ignored
 * @events: RDMALOCK_EV_* that happened to this acquisition
 * @state: RDMALOCK_W_*
 * @wq: where its owner sleeps
 * @abandon_work: passes on a grant that arrived after its caller left, or
 *	takes the next step of a wait its caller left (ShiftLock)
 * @me: the descriptor's encoded pointer
 * @mode: RDMALOCK_MODE_EX or _SH, as asked
 * @home: the lock's home node
 * @slot_off: the lock's slot, as an offset in the home node's region
 * @watch: a node, other than @home, whose loss dooms the wait
 * @lost: its descriptor may still be named by a broken queue: never reuse
 *	until a view change resets every queue
 * @held: it holds its lock; under the pool lock when it changes
 * @gone: 0, or why its holder lost the lock without releasing it
 *	(-ENOLCK: this node was fenced; -ENOTCONN: the home left the view),
 *	which its unlock returns
 * @lk: the handle of a named lock, which a view change that moves the
 *	name's home moves too (&rdmalock_how.lk); NULL for an id's slot,
 *	and once its caller left it abandoned
 * @carried: the resolution of the named lock whose wait the acquisition,
 *	abandoned, keeps counted at the home (rdmalock_blocking_carry()),
 *	or NULL
 * @carried_cls: that wait's class
 * @priv: the algorithm's own state of the acquisition; see
 *	rdmalock_waiter_priv()
 */
struct rdmalock_waiter {
	struct rdmalock_lockspace *ls;
	u32 idx;
	u32 gen;
	unsigned long events;
	atomic_t state;
	wait_queue_head_t wq;
	struct delayed_work abandon_work;
	u64 me;
	unsigned int mode;
	u32 home;
	u64 slot_off;
	u32 watch;
	bool lost;
	bool held;
	int gone;
	struct rdmalock_lock *lk;
	struct rdmalock_name *carried;
	u32 carried_cls;
	void *priv;
};

/**
 * struct rdmalock_cancel - an acquisition that may be cancelled
 * @requested: set by rdmalock_cancel_request(): the acquisition gives up
 *	as a timed-out one does, where it waits
 * @w: its descriptor while it runs, so that the canceller can wake it
 */
struct rdmalock_cancel {
	bool requested;
	struct rdmalock_waiter *w;
};

/**
 * struct rdmalock_how - how an acquisition may wait
 * @deadline: jiffies after which it gives up, if @timed
 * @timed: it has a deadline
 * @killable: a fatal signal ends it
 * @try: it must not wait at all
 * @may_sleep: with @try, it must not wait for the lock but may sleep: the
 *	first try of a request that waits if the lock is taken. A failed
 *	verb then waits for the view change it asks for, and tries again,
 *	as a request that waits would.
 * @stale: if set, tells whether the lock's slot may no longer be the
 *	lock's (a named lock whose home left the view since it was
 *	resolved); asked inside the gate, where no view change moves, and
 *	true ends the acquisition with -ESTALE
 * @stale_arg: its argument
 * @cancel: if set, a cancellation ends its waits (-ETIMEDOUT)
 * @lk: the handle, for a named lock: its descriptor's &rdmalock_waiter.lk
 */
struct rdmalock_how {
	unsigned long deadline;
	bool timed;
	bool killable;
	bool try;
	bool may_sleep;
	bool (*stale)(const void *arg);
	const void *stale_arg;
	struct rdmalock_cancel *cancel;
	struct rdmalock_lock *lk;
};

static inline bool rdmalock_how_cancelled(const struct rdmalock_how *how)
{
	return how->cancel && READ_ONCE(how->cancel->requested);
}

/* Jiffies left before @how's deadline, which is over at 0 or less. */
static inline long rdmalock_how_left(const struct rdmalock_how *how)
{
	if (rdmalock_how_cancelled(how))
		return 0;
	return how->timed ? (long)(how->deadline - jiffies) : MAX_SCHEDULE_TIMEOUT;
}

/* Has @how's deadline passed, or was it cancelled? */
static inline bool rdmalock_how_over(const struct rdmalock_how *how)
{
	return rdmalock_how_left(how) <= 0;
}

/**
 * struct rdmalock_algo - a lock algorithm
 * @id: RDMALOCK_ALGO_*
 * @name: for logs
 * @shared: grants RDMALOCK_MODE_SH to several holders at once
 * @cpu_at_home: the home node's acquisitions use its CPU alone, never
 *	the loopback
 * @broken: a deliberately broken test lock, which may wedge itself: the
 *	torture's RDMALOCK_RUN_RESET clears its word too, between rounds
 * @leases: takes &rdmalock_ls_params.lease_ms and .lease_recovery
 * @ls_size: bytes of its state of a lockspace, zeroed, at
 *	rdmalock_algo_data(); 0 for none
 * @waiter_size: bytes of its state of an acquisition, zeroed as the
 *	descriptor is allocated, at rdmalock_waiter_priv(); 0 for none
 * @check_params: for a domain of this algorithm (@mine), are its
 *	parameters in range? For a domain of another (!@mine), are they all
 *	unset? Return: NULL, or why not, for the log. Optional: the
 *	algorithm has no parameters.
 * @init: sets up its state of the lockspace from the domain's parameters,
 *	which are valid; there is no fabric yet. Optional.
 * @attach: called once the lockspace has its fabric; optional. It installs
 *	its message handlers only after everything that can fail: on failure
 *	the lockspace is freed while the fabric lives on.
 * @detach: frees what @init and @attach made, once the fabric is gone;
 *	called whether or not @attach ran or failed. Optional.
 * @end: the acquisition is over and its descriptor is about to be freed:
 *	nothing that comes later may take it for this acquisition; not
 *	called for a lost descriptor, which stays this acquisition's.
 *	Optional.
 * @acquire: take the lock for @w. On failure the descriptor is freed by
 *	the caller unless @w is abandoned (its grant will be passed on) or
 *	lost. Process context.
 * @release: release it, or pass on a grant nobody wants. Process context.
 *	-ETIME: the holder's lease had expired and the lock was left alone.
 * @pass_on: release a lock nobody wants any more, which was handed to @w
 *	with @granted in its BUDGET word (0 for none): the next waiter must
 *	not skip the arbitration it would otherwise do. For an acquisition
 *	the algorithm itself left abandoned while it waited, the next step of
 *	its wait, which never sleeps for long: -EINPROGRESS when it still
 *	waits, and the algorithm queues the work again, with
 *	rdmalock_queue_abandoned(), when it can go on. Process context,
 *	inside the gate. Optional: @release, for algorithms with nothing to
 *	pass on.
 * @downgrade: @w holds the lock exclusive: hold it shared from now on,
 *	without letting go in between, or, where readers cannot be let in
 *	now, keep it exclusive (@w's mode says which). Called only where
 *	views recover the lock (&rdmalock_lockspace.gated), inside the gate;
 *	-ERESTART when a view change came meanwhile (it claimed @w's lock
 *	exclusive again). Optional: algorithms without a shared mode need
 *	none. Process context.
 * @upgrade: @w holds the lock shared: hold it exclusive from now on,
 *	without letting go, or -EAGAIN when that cannot be done now; as
 *	@downgrade otherwise (a view change claimed it shared again). Given
 *	with @downgrade.
 * @recover_hold: during a view change, once every member's table is
 *	reset, make @w's lock held by @w again at its home, with an empty
 *	queue. An algorithm that has it recovers through the membership view
 *	(recovery.c); one without keeps its own recovery. Process context.
 * @recover_reset: during a view change, once every member is quiesced and
 *	this node's lock words are reset: forget what the algorithm's state
 *	of the lockspace knows of them. Optional. Process context.
 */
struct rdmalock_algo {
	u32 id;
	const char *name;
	bool shared;
	bool cpu_at_home;
	bool broken;
	bool leases;
	size_t ls_size;
	size_t waiter_size;
	const char *(*check_params)(const struct rdmalock_ls_params *params,
				    bool mine);
	void (*init)(struct rdmalock_lockspace *ls,
		     const struct rdmalock_ls_params *params);
	int (*attach)(struct rdmalock_lockspace *ls);
	void (*detach)(struct rdmalock_lockspace *ls);
	void (*end)(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w);
	int (*acquire)(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w,
		       const struct rdmalock_how *how);
	int (*release)(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w);
	int (*downgrade)(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w);
	int (*upgrade)(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w);
	int (*pass_on)(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w,
		       s64 granted);
	int (*recover_hold)(struct rdmalock_lockspace *ls,
			    struct rdmalock_waiter *w);
	void (*recover_reset)(struct rdmalock_lockspace *ls);
};

extern const struct rdmalock_algo rdmalock_alock_algo;
extern const struct rdmalock_algo rdmalock_cas_algo;
extern const struct rdmalock_algo rdmalock_mcs_algo;
extern const struct rdmalock_algo rdmalock_shiftlock_algo;
extern const struct rdmalock_algo rdmalock_dslr_algo;
extern const struct rdmalock_algo rdmalock_test_none_algo;
extern const struct rdmalock_algo rdmalock_test_mixed_algo;

/**
 * struct rdmalock_ls_params - a domain's lock parameters
 * @algo: RDMALOCK_ALGO_*
 * @num_nodes: nodes in the domain
 * @locks_per_node: lock table slots in each node's region
 * @descs: queue descriptors in each node's region: at most this many
 *	acquisitions wait or hold at once on a node
 * @budget_local: ALock's budget for the home node's cohort; 0 for default
 * @budget_remote: ALock's budget for the peers' cohort; 0 for default
 * @lease_ms: the lease of an algorithm with leases; 0 for its default
 * @writer_batch: ShiftLock's consecutive writers before readers; 0 for default
 * @writer_cas: ShiftLock's CAS a writer tries before it asks the home
 *	node; 0, the default, for none
 * @lease_recovery: recover by the lock lease, not by views (leases only)
 * @named: each lock name gets a slot of its own (names.c)
 */
struct rdmalock_ls_params {
	u32 algo;
	u32 num_nodes;
	u32 locks_per_node;
	u32 descs;
	u32 budget_local;
	u32 budget_remote;
	u32 lease_ms;
	u32 writer_batch;
	u32 writer_cas;
	bool lease_recovery;
	bool named;
};

/* algo.c */
const struct rdmalock_algo *rdmalock_algo_find(u32 id);
const char *rdmalock_algo_check_params(const struct rdmalock_ls_params *params);

/**
 * struct rdmalock_lockspace - the lock state of one domain on this node
 * @name: the domain's name, for logs
 * @fabric: the domain's fabric; NULL in KUnit tests of one node's locks
 * @region: this node's region, for its CPU
 * @algo: the domain's algorithm
 * @algo_data: its state of the lockspace; see rdmalock_algo_data()
 * @waiter_data: its state of every acquisition, @algo->waiter_size bytes
 *	per descriptor
 * @self: this node's id
 * @num_nodes: nodes in the domain
 * @locks_per_node: lock table slots per node
 * @descs: descriptors in the pool
 * @wq: runs abandoned acquisitions' hand-overs
 * @request_wq: runs asynchronous lock requests (request.c)
 * @stop_lock: orders queueing on @wq with its destruction
 * @stopping: the domain is going; queue nothing more
 * @closed: the domain was destroyed: acquisitions fail with -ESHUTDOWN
 * @pool_lock: protects @used
 * @used: descriptors allocated, a bitmap of @descs bits
 * @pool_wq: acquisitions waiting for a descriptor
 * @acquisitions: locks granted on this node
 * @cas_failed: compare-and-swaps that found another value
 * @cas_failed_release: those of them posted to release a lock
 * @delegated: ShiftLock: writers' CAS loops that the home node finished
 * @abandoned: acquisitions whose callers gave up once they had queued:
 *	whatever they are granted is passed on for them
 * @lost: descriptors given up until the next view change
 * @recovered: of them, those a view change has freed again
 * @gated: the algorithm recovers through the view: lock calls pass @gate
 * @gate: RDMALOCK_GATE_*
 * @members: the view's members while @gate is open
 * @ops: lock calls inside the gate
 * @gate_wq: calls waiting for the gate, and view changes for @ops to drain
 * @gate_gen: bumped each time the gate closes or shuts
 * @queue_view: the epoch of the view whose queues this node's locks and
 *	holders are in: set once this node has claimed its holders' locks in
 *	a view change, before its gate opens; 0 while a newer one resets
 *	them. Messages between queue members carry it (ShiftLock).
 * @want_view_change: asks for a view change, which resets every queue:
 *	a verb failed, and a queue may be broken; set by the membership
 * @node_lost: the same, from any context, when the connection to a node
 *	was lost
 * @view_ctx: their argument
 * @names: the named locks (names.c), or NULL when ids map to slots
 * @waiters: one per descriptor, @descs of them
 */
struct rdmalock_lockspace {
	const char *name;
	struct rdmalock_fabric *fabric;
	void *region;
	const struct rdmalock_algo *algo;
	void *algo_data;
	void *waiter_data;
	u32 self;
	u32 num_nodes;
	u32 locks_per_node;
	u32 descs;
	struct workqueue_struct *wq;
	struct workqueue_struct *request_wq;
	spinlock_t stop_lock;		/* see @stop_lock above */
	bool stopping;
	bool closed;
	spinlock_t pool_lock;		/* see @pool_lock above */
	unsigned long *used;
	wait_queue_head_t pool_wq;
	atomic64_t acquisitions;
	atomic64_t cas_failed;
	atomic64_t cas_failed_release;
	atomic64_t delegated;
	atomic64_t abandoned;
	atomic_t lost;
	atomic_t recovered;
	bool gated;
	int gate;
	u32 members;
	atomic_t ops;
	wait_queue_head_t gate_wq;
	atomic_t gate_gen;
	u64 queue_view;
	void (*want_view_change)(void *ctx);
	void (*node_lost)(void *ctx, u32 node);
	void *view_ctx;
	struct rdmalock_names *names;
	struct rdmalock_waiter *waiters;
};

/*
 * Asks for a view change, which resets every queue, where views recover
 * the lock: a verb failed, and a queue may be broken. Elsewhere nothing.
 * Return: whether one was asked for.
 */
static inline bool rdmalock_ls_want_view_change(struct rdmalock_lockspace *ls)
{
	if (!ls->gated || !ls->want_view_change)
		return false;
	ls->want_view_change(ls->view_ctx);
	return true;
}

/*
 * Does @ls's algorithm hold its word shared for @mode, a valid
 * RDMALOCK_MODE_* other than NL? Else exclusive (lkmode.c).
 */
static inline bool rdmalock_mode_shared(const struct rdmalock_lockspace *ls,
					unsigned int mode)
{
	return rdmalock_lkmode_served(ls->algo->shared, rdmalock_lkmode_of(mode)) ==
	       RDMALOCK_SERVED_SH;
}

/* The word mode, RDMALOCK_MODE_SH or _EX, that @ls serves @mode with. */
static inline unsigned int rdmalock_word_mode(const struct rdmalock_lockspace *ls,
					      unsigned int mode)
{
	return rdmalock_mode_shared(ls, mode) ? RDMALOCK_MODE_SH : RDMALOCK_MODE_EX;
}

/* The algorithm's state of a lockspace: &rdmalock_algo.ls_size bytes. */
static inline void *rdmalock_algo_data(struct rdmalock_lockspace *ls)
{
	return ls->algo_data;
}

/* The algorithm's state of an acquisition: &rdmalock_algo.waiter_size bytes. */
static inline void *rdmalock_waiter_priv(struct rdmalock_waiter *w)
{
	return w->priv;
}

/* lockspace.c */
int rdmalock_lockspace_create(struct rdmalock_fabric *fabric,
			      const struct rdmalock_fabric_attr *attr,
			      const struct rdmalock_ls_params *params,
			      struct rdmalock_lockspace **lsp);
void rdmalock_lockspace_close(struct rdmalock_lockspace *ls);
void rdmalock_lockspace_stop(struct rdmalock_lockspace *ls);
void rdmalock_lockspace_free(struct rdmalock_lockspace *ls);
int rdmalock_ls_acquire(struct rdmalock_lockspace *ls, u32 home, u64 slot_off,
			unsigned int mode, const struct rdmalock_how *how,
			struct rdmalock_waiter **wp);
int rdmalock_ls_release(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w);
bool rdmalock_ls_can_convert(const struct rdmalock_lockspace *ls);
int rdmalock_ls_convert(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w,
			bool up);
struct rdmalock_waiter *rdmalock_desc_alloc(struct rdmalock_lockspace *ls);
void rdmalock_desc_free(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w);
void rdmalock_desc_freed(struct rdmalock_lockspace *ls);
void rdmalock_wake_waiters(struct rdmalock_lockspace *ls);
u64 *rdmalock_desc_word(struct rdmalock_lockspace *ls, u32 idx, u32 word);
u64 *rdmalock_slot_word(struct rdmalock_lockspace *ls, u64 slot_off, u32 word);
int rdmalock_desc_signal(struct rdmalock_lockspace *ls, u64 ptr,
			 unsigned int event, s64 val, bool via_nic);
int rdmalock_wait_event(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w,
			unsigned long events, const struct rdmalock_how *how);
int rdmalock_abandon(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w);
int rdmalock_wait_cancel(struct rdmalock_lockspace *ls,
			 struct rdmalock_waiter *w, int err);
int rdmalock_pass_on(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w,
		     s64 granted, int err);
void rdmalock_queue_abandoned(struct rdmalock_lockspace *ls,
			      struct rdmalock_waiter *w, unsigned long delay);

void rdmalock_abandoned_flush(struct rdmalock_lockspace *ls);
void rdmalock_abandoned_waits_end(struct rdmalock_lockspace *ls, bool post);
int rdmalock_acq_fail(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w,
		      int err);
bool rdmalock_gave_up(int err);
u64 rdmalock_desc_next(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w);
int rdmalock_backoff(struct rdmalock_lockspace *ls, const struct rdmalock_how *how,
		     unsigned int *us, unsigned int max_us);
int rdmalock_cas(struct rdmalock_lockspace *ls, u32 node, u64 off, u64 expected,
		 u64 desired, u64 *old);
void rdmalock_event(struct rdmalock_lockspace *ls, u32 idx, u32 gen,
		    unsigned int event);
extern const struct rdmalock_how rdmalock_forever;
void rdmalock_cancel_request(struct rdmalock_lockspace *ls,
			     struct rdmalock_cancel *cancel);

int rdmalock_desc_decode(u64 ptr, u32 num_nodes, u32 descs, u32 *node, u32 *idx,
			 u32 *gen);
#if IS_ENABLED(CONFIG_KUNIT)
struct rdmalock_lockspace *
rdmalock_lockspace_alloc(const struct rdmalock_fabric_attr *attr, void *region,
			 const struct rdmalock_ls_params *params);
u64 rdmalock_desc_encode(u32 node, u32 idx, u32 gen);
u32 rdmalock_imm_idx_bits(u32 descs);
u32 rdmalock_imm_encode(unsigned int event, u32 idx, u32 gen, u32 idx_bits);
void rdmalock_imm_decode(u32 imm, u32 idx_bits, unsigned int *event, u32 *idx,
			 u32 *gen);
bool rdmalock_alock_must_wait(u64 other_tail, u64 victim, u64 us);
#endif

/* &rdmalock_lockspace.gate */
#define RDMALOCK_GATE_OUT	0	/* not a member of the view: calls fail */
#define RDMALOCK_GATE_CLOSED	1	/* a view change is under way: calls wait */
#define RDMALOCK_GATE_OPEN	2

/* recovery.c */
bool rdmalock_gate_shut(struct rdmalock_lockspace *ls);
int rdmalock_gate_enter(struct rdmalock_lockspace *ls,
			const struct rdmalock_how *how);
bool rdmalock_gate_await_view(struct rdmalock_lockspace *ls, int gen,
			      bool was_open, const struct rdmalock_how *how);
bool rdmalock_gate_try_enter(struct rdmalock_lockspace *ls);
bool rdmalock_gate_try_enter_view(struct rdmalock_lockspace *ls, u64 view);
void rdmalock_set_queue_view(struct rdmalock_lockspace *ls, u64 view);
void rdmalock_gate_leave(struct rdmalock_lockspace *ls);
void rdmalock_gate_set(struct rdmalock_lockspace *ls, int gate, u32 members);
bool rdmalock_recovery_quiesce(struct rdmalock_lockspace *ls,
			       bool (*stale)(void *arg), void *arg);
void rdmalock_recovery_reset(struct rdmalock_lockspace *ls, u32 members,
			     u32 restarted);
int rdmalock_recovery_claim(struct rdmalock_lockspace *ls, u32 members);
void rdmalock_recovery_fence(struct rdmalock_lockspace *ls);
int rdmalock_recover_word0(struct rdmalock_lockspace *ls,
			   struct rdmalock_waiter *w);

/* rqueue.c: an MCS queue whose tail peers swap with RDMA CAS. */
int rdmalock_rqueue_enqueue(struct rdmalock_lockspace *ls,
			    struct rdmalock_waiter *w, u64 tail_off,
			    const struct rdmalock_how *how, u64 *pred);
int rdmalock_rqueue_wait(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w,
			 u64 pred, bool shortcut, const struct rdmalock_how *how,
			 s64 *granted);
int rdmalock_rqueue_release(struct rdmalock_lockspace *ls,
			    struct rdmalock_waiter *w, u64 tail_off,
			    bool shortcut, s64 pass);

#endif /* RDMALOCK_LOCKS_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: ShiftLock, the one-sided reader-writer lock whose writers
 * queue and hand the lock over to each other (Gao, Wang and Shu, FAST '25;
 * shared/specs/shiftlock.md), on one 8-byte word and plain CAS and FAA
 * (shiftlock.h).
 *
 * A reader adds itself to RdrCnt; it holds at once if no writer is queued,
 * else when the epoch changes. A writer swaps itself into TailId with a
 * CAS loop. Behind a writer it tells it so (Successor) and sleeps until
 * it is handed the lock (Handover) or told to wait for the readers first
 * (ModeChanged); behind readers only, it waits until RelCnt shows they
 * have all released. A writer that releases with no successor clears the
 * tail and flips the epoch in one CAS, admitting every waiting reader;
 * the writer_batch-th writer in a row flips the epoch for the readers
 * even though a writer is queued.
 *
 * Both of a writer's CAS loops fail whenever a reader's FAA lands within
 * their round trip. So, by default (writer_cas 0), a writer asks the
 * lock's home node to change TailId for it (the spec's §2.9 fallback, a
 * server RPC, with no CAS first): the home node changes it for nobody
 * else, one change at a time, so it knows TailId, and an FAA, which no
 * FAA of a reader can fail, does what the CAS would have. With writer_cas
 * N, a writer posts up to N CAS itself (none on a lock it last saw busy),
 * then asks, and the home node finishes the loop with CAS that expect a
 * word it just loaded; "only" keeps the plain loop. Every word operation,
 * on the home node too, goes through the NIC: the reset is an RDMA CAS
 * like the others.
 *
 * Recovery through membership views, the default (the lockspace is gated:
 * membership.rst, recovery.c). No holder has a lease: a holder keeps its
 * lock however long it holds, and no caller is told -ECONNRESET or
 * -ETIME. A lock whose holder's node left the view comes back by the view
 * change:
 * - Closing the gate wakes every waiter; each wait and poll of ShiftLock
 *   (a writer's wait for Handover, ModeChanged or the home node's Done, a
 *   poll of RelCnt or the epoch) ends with -ERESTART and leaves without a
 *   verb; its descriptor is simply freed, and the lock layer starts the
 *   call again in the new view. A release that waits (for a successor's
 *   Successor, or for the home node's Done) leaves the lock to the view
 *   change and returns 0: the reset frees it, and the holder, which no
 *   longer holds it, claims nothing. That is safe whether or not its
 *   request landed; -ERESTART would not be, for a Release the home node
 *   did would leave two holders to claim the lock.
 * - The home node does a writer's request (Enqueue, Try, Release) only
 *   counted like a call (rdmalock_gate_try_enter_view()), so the
 *   quiesce, which waits for every call inside and flushes the jobs
 *   queued, knows that none touches a word after it; a request that
 *   arrives while a view change resets the queues is dropped unanswered:
 *   its writer leaves by its own gate.
 * - Every message carries the low bits of the view its sender's queues
 *   are in (&rdmalock_lockspace.queue_view); one of another view, or that
 *   arrives while a view change resets the queues, is dropped. One of
 *   the view this node has claimed in is taken even before its gate
 *   opens: a peer that opened first may already queue behind a holder
 *   here, or ask this home node. A writer's descriptor generation
 *   already protects Handover, ModeChanged and Done within a view.
 * - Once every member is quiesced, each zeroes its table (words 0..39 of
 *   each slot), and rdmalock_sl_recover_reset() forgets this node's
 *   guesses of the words, which the home node's TailId knowledge and
 *   writers' CAS come from: the home node knows TailId from the word in
 *   its memory, which is zero, and has no job pending.
 * - rdmalock_sl_recover_hold() then claims, through the NIC like every
 *   ShiftLock word operation, each live holder's lock: a writer CASes
 *   0 into sl_claim_word(), TailId its own, and takes RelCnt 0, epoch 0
 *   and no writer before it as what its release expects; a reader adds
 *   itself to RdrCnt, which its release's FAA takes off again. Readers
 *   and writers never hold together, so a claim that finds the other
 *   kind (or a writer another writer) reports it, undone, as a second
 *   holder: that holder is told at unlock that its lock was lost.
 * - Without a lease, a message that cannot be posted (the node is not
 *   connected, or its send queue stays full, or the fabric has no message
 *   buffer, for %SL_SEND_GATED_MS) would leave a queue stalled: the call
 *   that sent it fails as a verb does (-EIO), and the lock layer asks for
 *   a view change, which resets the queue; a home node whose Done cannot
 *   be posted asks for one itself.
 *   A message posted and then lost with its connection is not reported
 *   to its sender: if the connection comes back before a view leaves the
 *   node out, the queue waits for the next view change (a limit).
 * A timeout, a fatal signal or a cancel ends a call wherever it waits.
 * Once its atomic is done, though, the acquisition cannot leave the lock
 * (§3.10): a counted reader is in RelCnt's targets, a queued writer is
 * some writer's successor. Its caller leaves it abandoned, and the
 * workqueue takes each next step of its wait, as its messages or a poll
 * allow, and lets go as soon as it is let in (rdmalock_sl_give_up()):
 * those behind it wait that much longer, and no more.
 *
 * Failure with lease recovery (RDMALOCK_DOMAIN_F_LEASE_RECOVERY, the
 * paper's): a holder has a lease. A waiter that sees RelCnt stand still
 * for three leases asks the home node to reset the lock; the home node
 * does it once per era, and only if RelCnt is still what the waiter saw.
 * Waiters that see the leap give up with -ECONNRESET; a holder past its
 * lease leaves the lock alone and its unlock says -ETIME; one granted
 * past it does not hold it, and its lock says -ETIME. A lease starts
 * no later than the atomic or the READ that showed the lock free, or,
 * for a writer handed the lock, when its node processed the message: the
 * paper takes the NIC's receive timestamp, which in-kernel verbs do not
 * give, and a waiter that sleeps has no "last empty poll" close to the
 * receipt (the spec's H4). The processing time is later than the receipt
 * by the completion's delay, which the other waiters' three leases cover
 * while it stays under two leases.
 *
 * Choices where the spec leaves them open (its §3.12, §7): messages carry
 * the epoch (E4); a hand-over adds 1 to RelCnt (E5), which the failure
 * detector needs; the writer_batch-th writer in a row flips (E8); pollers
 * test for a reset before they trust the epoch or RelCnt (E9). An
 * acquisition whose caller leaves after its atomic is finished by the
 * workqueue, as above, where views recover the lock; under leases, as in
 * the paper (§3.10), timeouts and signals end no wait after the atomic.
 * A trylock is a conditional CAS for a writer, and a READ of the tail
 * before the FAA for a reader, which gives up, as above, if a writer
 * queued in between.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "fabric-fault.h"
#include "locks.h"
#include "rdmalock-pri.h"
#include "rdmalock_trace.h"
#include "shiftlock.h"

#define SL_POLL_MAX_US		1000
#define SL_TRY_CAS		4

/* How long a send waits for room in a full send queue, without a lease. */
#define SL_SEND_GATED_MS	1000

/* Locks homed here whose words the home node changes one at a time. */
#define SL_HOME_LOCKS		256
/* Requests beyond one per writer the home node can take without memory. */
#define SL_JOB_RESERVE		64

/**
 * struct rdmalock_sl - a ShiftLock acquisition's own state
 * @writer: it queued as a writer (messages for it are accepted)
 * @epoch: the lock's epoch while it holds
 * @cur_rel: the lock's RelCnt while it holds (no one else changes it)
 * @cons: consecutive writers before it since readers last had the lock
 * @succ: the successor's descriptor, from its Successor message
 * @msg_rel: from Handover, RelCnt; from ModeChanged, the RelCnt to wait for
 * @msg_cons: from Handover, @cons
 * @msg_epoch: from Handover or ModeChanged, the epoch
 * @msg_time: when the last message for it was processed
 * @lease_start: no later than the moment it got the lock
 * @seen_rel: RelCnt as last seen while waiting
 * @rel_known: @seen_rel has been seen; until then no leap can be told
 * @era: the lock's era when @seen_rel was first seen
 * @era_known: @era has been read
 * @changed: when @seen_rel was first seen
 * @checked: when the lock was last looked at
 * @done_word: from Done, the word the home node's last atomic returned
 * @done_err: from Done, 0 or the error of the home node's work
 * @turn: what it waits for since its atomic, SL_TURN_*; where the wait of
 *	an acquisition its caller left goes on
 * @target: for SL_TURN_READERS, the RelCnt to wait for; for
 *	SL_TURN_EPOCH, the epoch that does not admit it
 */
struct rdmalock_sl {
	bool writer;
	bool epoch;
	u32 cur_rel;
	u32 cons;
	u64 succ;
	u32 msg_rel;
	u32 msg_cons;
	bool msg_epoch;
	ktime_t msg_time;
	ktime_t lease_start;
	u32 seen_rel;
	bool rel_known;
	u64 era;
	bool era_known;
	ktime_t changed;
	ktime_t checked;
	u64 done_word;
	int done_err;
	u8 turn;
	u32 target;
};

/* &rdmalock_sl.turn: what an acquisition waits for once counted or queued. */
enum {
	SL_TURN_NONE,		/* nothing yet, or it holds */
	SL_TURN_DONE,		/* the home node's Done of its Enqueue */
	SL_TURN_WRITER,		/* Handover or ModeChanged, from its predecessor */
	SL_TURN_READERS,	/* RelCnt at @target: the readers before it left */
	SL_TURN_EPOCH,		/* a reader: the epoch no longer @target */
	SL_TURN_LINK,		/* let in, and let go: its successor's Successor */
};

/**
 * struct rdmalock_sl_ls - ShiftLock's state of a lockspace
 * @lease: the lease, in nanoseconds
 * @writer_batch: consecutive writers before readers
 * @writer_cas: CAS a writer tries before it asks the home node; 0: none,
 *	and only the home node changes TailId
 * @guess: each lock's word as this node last saw it, the guess for its
 *	next compare-and-swap
 * @home_lock: one change at a time by this home node to the word of a
 *	lock homed here (a reset, a writer's request), by slot modulo
 *	%SL_HOME_LOCKS
 * @slots: the home node's jobs for other nodes' writers, one per node and
 *	descriptor (indexed node * descs + descriptor): a writer has one
 *	request at a time, which so never waits for memory in the softirq
 *	context its message comes in
 * @slot_busy: which of @slots are queued or running, a bit each
 * @jobs: the other requests (a reset asked for in lease mode, or a
 *	writer's request that comes while its request of an earlier view is
 *	still queued): a reserve serves them when the allocator has nothing
 */
struct rdmalock_sl_ls {
	u64 lease;
	u32 writer_batch;
	u32 writer_cas;
	u64 *guess;
	struct rdmalock_sl_job *slots;
	unsigned long *slot_busy;
	mempool_t *jobs;
	struct mutex home_lock[SL_HOME_LOCKS]; /* see above */
};

static struct rdmalock_sl_ls *sl_ls(struct rdmalock_lockspace *ls)
{
	return rdmalock_algo_data(ls);
}

static struct rdmalock_sl *sl_w(struct rdmalock_waiter *w)
{
	return rdmalock_waiter_priv(w);
}

/* A request from another node, done by the home node in process context. */
struct rdmalock_sl_job {
	struct work_struct work;
	struct rdmalock_lockspace *ls;
	u32 from;
	u8 type;
	bool slot;
	struct rdmalock_sl_msg m;
};

/* Pure decisions, each tested by KUnit against the printed pseudocode. */

/**
 * rdmalock_sl_after_enqueue() - what a writer waits for after its swap
 * @old: the word its swap replaced
 * @target: set, for %SL_BEHIND_READERS, to the RelCnt that shows every
 *	reader counted in @old has released
 *
 * Return: %SL_BEHIND_WRITER when a writer was queued (whatever RdrCnt
 * says: that writer deals with the readers), %SL_BEHIND_READERS when only
 * readers were there, or %SL_FREE.
 */
VISIBLE_IF_KUNIT int rdmalock_sl_after_enqueue(u64 old, u32 *target)
{
	if (sl_tail(old))
		return SL_BEHIND_WRITER;
	if (sl_rdr(old)) {
		*target = sl_rel(old) + sl_rdr(old);
		return SL_BEHIND_READERS;
	}
	return SL_FREE;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_sl_after_enqueue);

/**
 * rdmalock_sl_release_outcome() - what a writer's release CAS found
 * @old: the word the CAS returned
 * @rel: RelCnt as the holder knows it
 * @epoch: the epoch as the holder knows it
 * @me: the holder's TailId
 *
 * Return: %SL_RESET when RelCnt or the epoch moved (only a reset moves
 * them under a holder), %SL_QUEUED when a writer queued behind it, else
 * %SL_MINE: the word is the one it holds, whatever RdrCnt says.
 */
VISIBLE_IF_KUNIT int rdmalock_sl_release_outcome(u64 old, u32 rel, bool epoch,
						 u32 me)
{
	if (sl_rel(old) != rel || sl_epoch(old) != epoch)
		return SL_RESET;
	return sl_tail(old) != me ? SL_QUEUED : SL_MINE;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_sl_release_outcome);

/**
 * rdmalock_sl_reader_poll() - has a waiting reader been admitted?
 * @cur: the word as just read
 * @epoch: the epoch its FAA returned
 * @prev_rel: RelCnt as it last saw it
 *
 * A reset clears the epoch too, so it is tested for first.
 *
 * Return: %SL_RESET, %SL_ADMITTED or %SL_WAIT.
 */
VISIBLE_IF_KUNIT int rdmalock_sl_reader_poll(u64 cur, bool epoch, u32 prev_rel)
{
	if (sl_leaped(sl_rel(cur), prev_rel))
		return SL_RESET;
	return sl_epoch(cur) != epoch ? SL_ADMITTED : SL_WAIT;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_sl_reader_poll);

/**
 * rdmalock_sl_writer_poll() - have the readers a writer waits for left?
 * @cur: the word as just read
 * @target: RelCnt once they have; readers that came later may be in
 *	RdrCnt already, waiting for this writer
 * @prev_rel: RelCnt as it last saw it
 *
 * Return: %SL_RESET, %SL_ADMITTED or %SL_WAIT.
 */
VISIBLE_IF_KUNIT int rdmalock_sl_writer_poll(u64 cur, u32 target, u32 prev_rel)
{
	if (sl_leaped(sl_rel(cur), prev_rel))
		return SL_RESET;
	return sl_rel(cur) == target ? SL_ADMITTED : SL_WAIT;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_sl_writer_poll);

/**
 * rdmalock_sl_must_flip() - must this writer give the lock to readers?
 * @cons: writers in a row before it
 * @batch: the domain's writer_batch
 *
 * Return: true for the @batch-th writer in a row.
 */
VISIBLE_IF_KUNIT bool rdmalock_sl_must_flip(u32 cons, u32 batch)
{
	return cons + 1 >= batch;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_sl_must_flip);

/**
 * rdmalock_sl_reset_ok() - may the home node reset a lock now?
 * @era: the lock's era now
 * @req_era: the era the asking waiter saw when RelCnt last moved
 * @cur: the word now
 * @req_rel: the RelCnt that stood still
 *
 * Return: true when nobody reset it since, and RelCnt has not moved.
 */
VISIBLE_IF_KUNIT bool rdmalock_sl_reset_ok(u64 era, u64 req_era, u64 cur,
					   u32 req_rel)
{
	return era == req_era && sl_rel(cur) == req_rel;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_sl_reset_ok);

/**
 * rdmalock_sl_msg_check() - check a ShiftLock message before using it
 * @ls: the lockspace it came to: its nodes, lock table and descriptors
 *	bound the message's, and Reset, Enqueue, Try and Release must be for
 *	a lock homed on its node
 * @type: its type
 * @payload: its payload
 * @len: the payload's length
 *
 * Return: 0, or -EINVAL.
 */
VISIBLE_IF_KUNIT int rdmalock_sl_msg_check(const struct rdmalock_lockspace *ls,
					   u8 type, const void *payload, u32 len)
{
	u32 num_nodes = ls->num_nodes, self = ls->self;
	const struct rdmalock_sl_msg *m = payload;
	u64 slot_off, first = rdmalock_table_offset(0);
	u32 home, node, idx, gen;

	if (len != sizeof(*m) || m->pad || m->epoch > 1)
		return -EINVAL;
	slot_off = be64_to_cpu(m->slot_off);
	home = be32_to_cpu(m->home);
	if (home >= num_nodes || slot_off < first ||
	    slot_off >= rdmalock_table_offset(ls->locks_per_node) ||
	    (slot_off - first) % RDMALOCK_SLOT_SIZE)
		return -EINVAL;
	switch (type) {
	case SL_MSG_RESET:
		return home == self ? 0 : -EINVAL;
	case SL_MSG_ENQUEUE:
	case SL_MSG_TRY:
	case SL_MSG_RELEASE:
	case SL_MSG_UPGRADE:
		if (home != self)
			return -EINVAL;
		fallthrough;
	case SL_MSG_DONE:
		return be32_to_cpu(m->desc) < ls->descs ? 0 : -EINVAL;
	case SL_MSG_SUCCESSOR:
		if (rdmalock_desc_decode(be64_to_cpu(m->who), num_nodes,
					 ls->descs, &node, &idx, &gen))
			return -EINVAL;
		fallthrough;
	case SL_MSG_HANDOVER:
	case SL_MSG_MODE_CHANGED:
		return be32_to_cpu(m->desc) < ls->descs ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_sl_msg_check);

/**
 * rdmalock_sl_msg_current() - is a message for the queues of this view?
 * @gated: the lock recovers through membership views
 * @shut: the receiver's queues are in no view: a view change is resetting
 *	them, or it is out of the view
 * @view: the view the message carries
 * @mine: the low bits of the receiver's view's epoch
 *
 * Return: true to use it. Without views, always: the leases deal with
 * old messages.
 */
VISIBLE_IF_KUNIT bool rdmalock_sl_msg_current(bool gated, bool shut, u16 view,
					      u16 mine)
{
	return !gated || (!shut && view == mine);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_sl_msg_current);

/**
 * rdmalock_sl_claim_outcome() - did a holder's claim find the lock its own?
 * @old: the word the claim's atomic returned: for a writer, its CAS
 *	expecting 0; for a reader, its FAA adding itself to RdrCnt
 * @writer: the claim is a writer's
 *
 * Return: 0, or -EBUSY when another holder claimed the lock first: a
 * writer, for a reader; anyone, for a writer.
 */
VISIBLE_IF_KUNIT int rdmalock_sl_claim_outcome(u64 old, bool writer)
{
	if (writer)
		return old ? -EBUSY : 0;
	return sl_tail(old) ? -EBUSY : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_sl_claim_outcome);

/* The lock word: verbs, and this node's guess of it. */

static u64 rdmalock_sl_slot(u64 slot_off)
{
	return (slot_off - rdmalock_table_offset(0)) / RDMALOCK_SLOT_SIZE;
}

static u64 *rdmalock_sl_guess(struct rdmalock_lockspace *ls, u32 home,
			      u64 slot_off)
{
	return &sl_ls(ls)->guess[(u64)home * ls->locks_per_node +
			     rdmalock_sl_slot(slot_off)];
}

/* Serializes the home node's own changes to the word of a lock homed here. */
static struct mutex *rdmalock_sl_home_lock(struct rdmalock_lockspace *ls,
					   u64 slot_off)
{
	return &sl_ls(ls)->home_lock[rdmalock_sl_slot(slot_off) %
				 SL_HOME_LOCKS];
}

/*
 * What a CAS on the word should expect: on its home node a load of it, a
 * moment old; elsewhere this node's last view of it, a round trip old or
 * more. The load is no atomic, only a guess: the CAS, which the NIC
 * executes, is what decides.
 */
static u64 rdmalock_sl_expect(struct rdmalock_lockspace *ls, u32 home,
			      u64 slot_off)
{
	if (home == ls->self)
		return READ_ONCE(*rdmalock_slot_word(ls, slot_off, SL_WORD));
	return READ_ONCE(*rdmalock_sl_guess(ls, home, slot_off));
}

static int rdmalock_sl_faa(struct rdmalock_lockspace *ls, u32 home,
			   u64 slot_off, u64 add, u64 *old)
{
	int ret = rdmalock_fabric_faa(ls->fabric, home, slot_off + SL_WORD,
				      add, old);

	if (!ret)
		WRITE_ONCE(*rdmalock_sl_guess(ls, home, slot_off), *old + add);
	return ret;
}

static int rdmalock_sl_cas(struct rdmalock_lockspace *ls, u32 home,
			   u64 slot_off, u64 expected, u64 desired, u64 *old)
{
	int ret = rdmalock_cas(ls, home, slot_off + SL_WORD, expected, desired,
			       old);

	if (!ret)
		WRITE_ONCE(*rdmalock_sl_guess(ls, home, slot_off),
			   *old == expected ? desired : *old);
	return ret;
}

/*
 * Swaps TailId @me into the word, with at most @tries CAS
 * (%RDMALOCK_SHIFTLOCK_WRITER_CAS_ONLY: no limit). Return: 0 with @old
 * the word it replaced, -EAGAIN after @tries failed, or a verb's error.
 */
static int rdmalock_sl_swap_tail(struct rdmalock_lockspace *ls, u32 home,
				 u64 slot_off, u32 me, u32 tries, u64 *old)
{
	u64 expected;
	int ret;

	for (; tries; tries--) {
		expected = rdmalock_sl_expect(ls, home, slot_off);
		ret = rdmalock_sl_cas(ls, home, slot_off, expected,
				      (expected & ~SL_TAIL) | me, old);
		if (ret || *old == expected)
			return ret;
	}
	return -EAGAIN;
}

/*
 * A writer's release with no successor known: if TailId is still @me,
 * clear it, count the release and flip the epoch, admitting every
 * waiting reader, in one CAS; at most @tries of them. Return: 0 with @old
 * the last word a CAS returned, for rdmalock_sl_release_outcome();
 * -EAGAIN after @tries found only RdrCnt moved; or a verb's error.
 */
static int rdmalock_sl_clear_tail(struct rdmalock_lockspace *ls, u32 home,
				  u64 slot_off, u32 rel, bool epoch, u32 me,
				  u32 tries, u64 *old)
{
	u64 expected;
	u32 rdr;
	int ret;

	for (; tries; tries--) {
		rdr = sl_rdr(rdmalock_sl_expect(ls, home, slot_off));
		expected = sl_word(rel, epoch, rdr, me);
		ret = rdmalock_sl_cas(ls, home, slot_off, expected,
				      sl_word(rel + 1, !epoch, rdr, 0), old);
		if (ret || *old == expected)
			return ret;
		atomic64_inc(&ls->cas_failed_release);
		if (rdmalock_sl_release_outcome(*old, rel, epoch, me) != SL_MINE)
			return 0;
	}
	return -EAGAIN;
}

/*
 * Takes the lock for writer @me only if it is free. Return: 0 with @old
 * the word it replaced, -EAGAIN when it is taken, or a verb's error.
 */
static int rdmalock_sl_take_free(struct rdmalock_lockspace *ls, u32 home,
				 u64 slot_off, u32 me, u64 *old)
{
	u64 guess = rdmalock_sl_expect(ls, home, slot_off) & ~(SL_TAIL | SL_RDR);
	int ret, i;

	for (i = 0; i < SL_TRY_CAS; i++) {
		ret = rdmalock_sl_cas(ls, home, slot_off, guess, guess | me, old);
		if (ret || *old == guess)
			return ret;
		if (sl_tail(*old) || sl_rdr(*old))
			break;
		guess = *old;
	}
	return -EAGAIN;
}

/*
 * Takes the word from one reader and no TailId to no reader and TailId
 * @me, RelCnt + 1: a lone reader's release and its enqueue as a writer on
 * the free word, in one CAS; again while only RelCnt or the epoch moved,
 * at most SL_TRY_CAS times. Return: 0 with @old the word it replaced,
 * -EAGAIN when another holder or a waiter is there, or a verb's error.
 */
static int rdmalock_sl_take_alone(struct rdmalock_lockspace *ls, u32 home,
				  u64 slot_off, u32 me, u64 *old)
{
	u64 guess = (rdmalock_sl_expect(ls, home, slot_off) & ~(SL_TAIL | SL_RDR)) |
		    SL_RDR_ONE;
	int ret, i;

	for (i = 0; i < SL_TRY_CAS; i++) {
		ret = rdmalock_sl_cas(ls, home, slot_off, guess,
				      sl_word(sl_rel(guess) + 1, sl_epoch(guess), 0, me),
				      old);
		if (ret || *old == guess)
			return ret;
		if (sl_tail(*old) || sl_rdr(*old) != 1)
			break;
		guess = *old;
	}
	return -EAGAIN;
}

/* The home node's side of a writer's request. */

static int rdmalock_sl_corrupt(struct rdmalock_lockspace *ls, u64 slot_off,
			       u64 old)
{
	pr_err_ratelimited("%s: lock slot %#llx: TailId changed behind its home node (word %#llx); do all nodes have the same writer_cas?\n",
			   ls->name, slot_off, old);
	return -EIO;
}

/*
 * With writer_cas 0, TailId changes only here, under the home lock: the
 * TailId the CPU loads is the one the FAA will find.
 */
static int rdmalock_sl_home_enqueue(struct rdmalock_lockspace *ls,
				    u64 slot_off, u32 me, u64 *old)
{
	u32 tail;
	int ret;

	if (sl_ls(ls)->writer_cas)
		return rdmalock_sl_swap_tail(ls, ls->self, slot_off, me,
					     RDMALOCK_SHIFTLOCK_WRITER_CAS_ONLY, old);
	tail = sl_tail(rdmalock_sl_expect(ls, ls->self, slot_off));
	ret = rdmalock_sl_faa(ls, ls->self, slot_off, sl_add_enqueue(tail, me),
			      old);
	if (!ret && sl_tail(*old) != tail)
		ret = rdmalock_sl_corrupt(ls, slot_off, *old);
	return ret;
}

/*
 * With writer_cas 0, under a holder only the home lock's holders change
 * TailId, RelCnt and the epoch: the load tells what a CAS would find.
 */
static int rdmalock_sl_home_release(struct rdmalock_lockspace *ls,
				    u64 slot_off, u32 rel, bool epoch, u32 me,
				    u64 *old)
{
	int ret;

	if (sl_ls(ls)->writer_cas)
		return rdmalock_sl_clear_tail(ls, ls->self, slot_off, rel, epoch,
					      me, RDMALOCK_SHIFTLOCK_WRITER_CAS_ONLY,
					      old);
	*old = rdmalock_sl_expect(ls, ls->self, slot_off);
	if (rdmalock_sl_release_outcome(*old, rel, epoch, me) != SL_MINE)
		return 0;
	ret = rdmalock_sl_faa(ls, ls->self, slot_off, sl_add_release(epoch, me),
			      old);
	if (!ret && rdmalock_sl_release_outcome(*old, rel, epoch, me) != SL_MINE)
		ret = rdmalock_sl_corrupt(ls, slot_off, *old);
	return ret;
}

/*
 * Does writer @me's request @type (Enqueue, Try or Release, with @rel and
 * @epoch) on a lock homed here, for a writer of this node or another.
 * Return: 0 with @old the word the last atomic returned or, for a release
 * that must not clear TailId, the word loaded; -EAGAIN from Try; or an
 * error.
 */
static int rdmalock_sl_home_do(struct rdmalock_lockspace *ls, u8 type,
			       u64 slot_off, u32 me, u32 rel, bool epoch,
			       u64 *old)
{
	struct mutex *lock = rdmalock_sl_home_lock(ls, slot_off);
	int ret;

	mutex_lock(lock);
	switch (type) {
	case SL_MSG_ENQUEUE:
		ret = rdmalock_sl_home_enqueue(ls, slot_off, me, old);
		break;
	case SL_MSG_TRY:
		/* Busy as loaded is busy: no CAS that would surely fail. */
		*old = rdmalock_sl_expect(ls, ls->self, slot_off);
		ret = sl_tail(*old) || sl_rdr(*old) ? -EAGAIN :
			rdmalock_sl_take_free(ls, ls->self, slot_off, me, old);
		break;
	case SL_MSG_UPGRADE:
		*old = rdmalock_sl_expect(ls, ls->self, slot_off);
		ret = sl_tail(*old) || sl_rdr(*old) != 1 ? -EAGAIN :
			rdmalock_sl_take_alone(ls, ls->self, slot_off, me, old);
		break;
	default:
		ret = rdmalock_sl_home_release(ls, slot_off, rel, epoch, me, old);
	}
	mutex_unlock(lock);
	return ret;
}

/* The word and the era, in one READ. */
static int rdmalock_sl_read(struct rdmalock_lockspace *ls,
			    struct rdmalock_waiter *w, u64 line[2])
{
	return rdmalock_fabric_read(ls->fabric, w->home, w->slot_off + SL_WORD,
				    line, 2 * sizeof(u64));
}

static u32 rdmalock_sl_me(struct rdmalock_lockspace *ls,
			  struct rdmalock_waiter *w)
{
	return sl_tail_id(ls->descs, ls->self, w->idx);
}

/* Messages. */

/*
 * The low bits of the epoch of the view this node's queues are in (from
 * its claim on, before its gate opens: a peer that opened first may ask
 * already), where the lock recovers through views, for messages to carry
 * and to be checked against; else 0.
 */
static u16 rdmalock_sl_view(struct rdmalock_lockspace *ls)
{
	return ls->gated ? (u16)READ_ONCE(ls->queue_view) : 0;
}

/* Is message @m for the queues of this node's view? */
static bool rdmalock_sl_current(struct rdmalock_lockspace *ls,
				const struct rdmalock_sl_msg *m)
{
	return rdmalock_sl_msg_current(ls->gated, !READ_ONCE(ls->queue_view),
				       be16_to_cpu(m->view),
				       rdmalock_sl_view(ls));
}

/*
 * Sends, waiting a little for room in a full send queue, or for a buffer
 * when the fabric's pool of them is empty (-ENOMEM: its reserve is taken
 * by messages in flight, whose completions give them back). Not long:
 * the receiver of a hand-over starts its lease when it gets it, and the
 * other waiters' clocks started at the hand-over's atomic, which the top
 * of this file allows two leases of delay. Without leases, longer: a lost
 * message costs a view change.
 */
static int rdmalock_sl_send(struct rdmalock_lockspace *ls, u32 node, u8 type,
			    const struct rdmalock_sl_msg *m)
{
	u64 wait = ls->gated ? SL_SEND_GATED_MS * NSEC_PER_MSEC :
		   sl_ls(ls)->lease / 4;
	int ret;

	ret = rdmalock_fabric_send_wait(ls->fabric, node, type, m, sizeof(*m), wait);
	if (ret)
		pr_err_ratelimited("%s: node %u: ShiftLock message %u lost: %d\n",
				   ls->name, node, type, ret);
	return ret;
}

/* A message about @w's lock, for descriptor @idx (generation @gen, or 0). */
static void rdmalock_sl_msg_init(struct rdmalock_sl_msg *m,
				 struct rdmalock_waiter *w, u32 idx, u32 gen)
{
	memset(m, 0, sizeof(*m));
	m->slot_off = cpu_to_be64(w->slot_off);
	m->home = cpu_to_be32(w->home);
	m->desc = cpu_to_be32(idx);
	m->gen = cpu_to_be32(gen);
	m->view = cpu_to_be16(rdmalock_sl_view(w->ls));
}

/*
 * Tells the queued writer before us, named by its TailId, that we follow.
 * Return: 0, or -EIO where views recover the lock: the message is lost.
 */
static int rdmalock_sl_tell_pred(struct rdmalock_lockspace *ls,
				 struct rdmalock_waiter *w, u32 tail)
{
	struct rdmalock_sl_msg m;
	u32 node, idx;

	sl_tail_desc(ls->descs, tail, &node, &idx);
	rdmalock_sl_msg_init(&m, w, idx, 0);
	m.who = cpu_to_be64(w->me);
	/*
	 * If it is lost, the lock stands still: the watch resets it, or,
	 * without leases, the view change that the failed call asks for.
	 */
	trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_LINKED);
	if (rdmalock_sl_send(ls, node, SL_MSG_SUCCESSOR, &m) && ls->gated)
		return -EIO;
	return 0;
}

/* Resets a lock that a waiter on node @from saw stand still (Reset). */
static void rdmalock_sl_reset(struct rdmalock_lockspace *ls, u32 from,
			      const struct rdmalock_sl_msg *m)
{
	u64 slot_off = be64_to_cpu(m->slot_off), req_era = be64_to_cpu(m->who);
	u64 *era = rdmalock_slot_word(ls, slot_off, SL_ERA);
	struct mutex *lock = rdmalock_sl_home_lock(ls, slot_off);
	u32 rel = be32_to_cpu(m->rel);
	u64 cur, old;
	int ret, i;

	mutex_lock(lock);
	ret = rdmalock_fabric_read(ls->fabric, ls->self, slot_off + SL_WORD,
				   &cur, sizeof(cur));
	if (ret || !rdmalock_sl_reset_ok(READ_ONCE(*era), req_era, cur, rel))
		goto out;
	/*
	 * Odd while the reset may land, even again after it: a waiter that
	 * sees the era move knows of a reset even if two leaps, 2^32, left
	 * RelCnt where it was.
	 */
	WRITE_ONCE(*era, req_era + 1);
	/* Visible before the CAS, which the NIC executes, can land. */
	smp_wmb();
	for (i = 0; i < SL_TRY_CAS; i++) {
		ret = rdmalock_fabric_cas(ls->fabric, ls->self, slot_off + SL_WORD,
					  cur, sl_reset_word(cur), &old);
		if (ret)
			break;
		if (old == cur) {
			WRITE_ONCE(*era, req_era + 2);
			pr_warn_ratelimited("%s: lock slot %#llx reset for node %u: RelCnt stood at %u\n",
					    ls->name, slot_off, from, rel);
			goto out;
		}
		/* New readers may bump RdrCnt meanwhile; RelCnt is what must not move. */
		if (sl_rel(old) != rel)
			break;
		cur = old;
	}
	WRITE_ONCE(*era, req_era);
out:
	mutex_unlock(lock);
}

/* Does the request of a writer on node @from (Enqueue, Try, Release, Upgrade). */
static void rdmalock_sl_finish(struct rdmalock_lockspace *ls, u32 from, u8 type,
			       const struct rdmalock_sl_msg *req)
{
	struct rdmalock_sl_msg done = *req;
	u64 old = 0;
	int ret;

	ret = rdmalock_sl_home_do(ls, type, be64_to_cpu(req->slot_off),
				  sl_tail_id(ls->descs, from, be32_to_cpu(req->desc)),
				  be32_to_cpu(req->rel), req->epoch, &old);
	done.who = cpu_to_be64(old);
	done.cons = cpu_to_be32(-ret);
	/*
	 * Lost, it leaves the writer waiting, and the lock standing still:
	 * without leases, until the view change asked for here.
	 */
	if (rdmalock_sl_send(ls, from, SL_MSG_DONE, &done))
		rdmalock_ls_want_view_change(ls);
}

/*
 * A job for a request from node @from: its writer's own slot, free unless
 * a request of an earlier view is still queued in it, else the pool.
 */
static struct rdmalock_sl_job *rdmalock_sl_job_get(struct rdmalock_lockspace *ls,
						   u32 from, u8 type,
						   const struct rdmalock_sl_msg *m)
{
	struct rdmalock_sl_ls *sls = sl_ls(ls);
	struct rdmalock_sl_job *job;
	size_t i;

	/* A reset's descriptor field is not a writer's; a request's is checked. */
	if (type != SL_MSG_RESET) {
		i = (size_t)from * ls->descs + be32_to_cpu(m->desc);
		if (!test_and_set_bit_lock(i, sls->slot_busy)) {
			job = &sls->slots[i];
			job->slot = true;
			return job;
		}
	}
	job = rdmalock_fault_alloc(NULL, from, RDMALOCK_VERB_RECV, type) ? NULL :
	      mempool_alloc(sls->jobs, GFP_ATOMIC);
	if (job)
		job->slot = false;
	return job;
}

static void rdmalock_sl_job_put(struct rdmalock_sl_job *job)
{
	struct rdmalock_sl_ls *sls = sl_ls(job->ls);

	if (job->slot)
		clear_bit_unlock(job - sls->slots, sls->slot_busy);
	else
		mempool_free(job, sls->jobs);
}

static void rdmalock_sl_job_fn(struct work_struct *work)
{
	struct rdmalock_sl_job *job = container_of(work, struct rdmalock_sl_job,
						   work);
	struct rdmalock_lockspace *ls = job->ls;
	struct rdmalock_sl_msg m = job->m;
	u32 from = job->from;
	u8 type = job->type;

	/* Free before the answer: its writer's next request may come at once. */
	rdmalock_sl_job_put(job);
	if (!ls->gated) {
		if (type == SL_MSG_RESET)
			rdmalock_sl_reset(ls, from, &m);
		else
			rdmalock_sl_finish(ls, from, type, &m);
		return;
	}
	/*
	 * Counted, where the quiesce of a view change waits for it: no word
	 * changes once a view change resets the queues. A request of another
	 * view, or one that comes while they are reset, is dropped: its
	 * writer leaves by its own gate. There are no resets without leases.
	 */
	if (rdmalock_gate_try_enter_view(ls, READ_ONCE(ls->queue_view))) {
		if (type != SL_MSG_RESET && rdmalock_sl_current(ls, &m))
			rdmalock_sl_finish(ls, from, type, &m);
		rdmalock_gate_leave(ls);
	}
}

/* Messages arrive in softirq context; verbs that sleep run from @ls->wq. */
static void rdmalock_sl_job_queue(struct rdmalock_lockspace *ls, u32 from,
				  u8 type, const struct rdmalock_sl_msg *m)
{
	struct rdmalock_sl_job *job = rdmalock_sl_job_get(ls, from, type, m);
	unsigned long flags;

	if (!job) {
		pr_err_ratelimited("%s: node %u: ShiftLock request %u dropped: no memory\n",
				   ls->name, from, type);
		/* Its writer waits for an answer only a view change now gives. */
		rdmalock_ls_want_view_change(ls);
		return;
	}
	INIT_WORK(&job->work, rdmalock_sl_job_fn);
	job->ls = ls;
	job->from = from;
	job->type = type;
	job->m = *m;
	spin_lock_irqsave(&ls->stop_lock, flags);
	if (ls->stopping)
		rdmalock_sl_job_put(job);
	else
		queue_work(ls->wq, &job->work);
	spin_unlock_irqrestore(&ls->stop_lock, flags);
}

/* Delivers a message to the writer it is for, if it is still that writer. */
static void rdmalock_sl_deliver(struct rdmalock_lockspace *ls, u8 type,
				const struct rdmalock_sl_msg *m)
{
	u32 idx = be32_to_cpu(m->desc), gen = be32_to_cpu(m->gen);
	struct rdmalock_waiter *w = &ls->waiters[idx];
	u32 cur_gen = READ_ONCE(w->gen);
	unsigned int event;

	if (!rdmalock_sl_current(ls, m))
		return;	/* for a queue a view change has reset */
	if (!test_bit(idx, ls->used) || !READ_ONCE(sl_w(w)->writer) ||
	    READ_ONCE(w->home) != be32_to_cpu(m->home) ||
	    READ_ONCE(w->slot_off) != be64_to_cpu(m->slot_off) ||
	    (gen && gen != cur_gen)) {
		pr_warn_ratelimited("%s: ShiftLock message %u for descriptor %u, which is not that writer\n",
				    ls->name, type, idx);
		return;
	}
	switch (type) {
	case SL_MSG_SUCCESSOR:
		sl_w(w)->succ = be64_to_cpu(m->who);
		event = RDMALOCK_EV_LINK;
		break;
	case SL_MSG_DONE:
		sl_w(w)->done_word = be64_to_cpu(m->who);
		sl_w(w)->done_err = -(int)be32_to_cpu(m->cons);
		event = SL_EV_DONE;
		break;
	case SL_MSG_HANDOVER:
		sl_w(w)->msg_cons = be32_to_cpu(m->cons);
		fallthrough;
	default:
		/* Stands in for the NIC's receive timestamp, which verbs do not give. */
		sl_w(w)->msg_time = ktime_get();
		sl_w(w)->msg_rel = be32_to_cpu(m->rel);
		sl_w(w)->msg_epoch = m->epoch;
		event = type == SL_MSG_HANDOVER ? RDMALOCK_EV_GRANT : SL_EV_MODE;
		break;
	}
	rdmalock_event(ls, idx, cur_gen, event);
	/* A Handover's event does it itself. */
	if (event != RDMALOCK_EV_GRANT)
		rdmalock_queue_abandoned(ls, w, 0);
}

/* The handler of every ShiftLock message type; see rdmalock_msg_fn. */
static void rdmalock_sl_msg_handle(struct rdmalock_fabric *fabric, u32 node,
				   u8 type, const void *payload, u32 len,
				   void *ctx)
{
	struct rdmalock_lockspace *ls = ctx;

	if (rdmalock_sl_msg_check(ls, type, payload, len)) {
		pr_err_ratelimited("%s: node %u: malformed ShiftLock message %u\n",
				   ls->name, node, type);
		return;
	}
	switch (type) {
	case SL_MSG_RESET:
	case SL_MSG_ENQUEUE:
	case SL_MSG_TRY:
	case SL_MSG_RELEASE:
	case SL_MSG_UPGRADE:
		rdmalock_sl_job_queue(ls, node, type, payload);
		break;
	default:
		rdmalock_sl_deliver(ls, type, payload);
	}
}

/* Failure detection. */

/*
 * A waiter or a holder found the lock reset. Without leases nothing
 * resets a lock under its queue but a view change, which every waiter
 * leaves before: the word is corrupt, and a view change, which the lock
 * layer asks for after a failed verb, resets it.
 */
static int rdmalock_sl_reset_seen(struct rdmalock_lockspace *ls,
				  struct rdmalock_waiter *w)
{
	if (!ls->gated)
		return -ECONNRESET;
	pr_err_ratelimited("%s: lock slot %#llx at node %u: RelCnt leapt with no lease\n",
			   ls->name, w->slot_off, w->home);
	return -EIO;
}

/* Starts watching the lock for progress, from the word an atomic returned. */
static void rdmalock_sl_watch_start(struct rdmalock_waiter *w, u64 word)
{
	sl_w(w)->seen_rel = sl_rel(word);
	sl_w(w)->rel_known = true;
	sl_w(w)->era_known = false;
	sl_w(w)->changed = ktime_get();
	sl_w(w)->checked = sl_w(w)->changed;
}

/*
 * Starts watching with no word to start from: this node's guess may be
 * from before a reset, or none, and would pass for a leap.
 */
static void rdmalock_sl_watch_blind(struct rdmalock_waiter *w)
{
	rdmalock_sl_watch_start(w, 0);
	sl_w(w)->rel_known = false;
}

static void rdmalock_sl_ask_reset(struct rdmalock_lockspace *ls,
				  struct rdmalock_waiter *w)
{
	struct rdmalock_sl_msg m;

	rdmalock_sl_msg_init(&m, w, 0, 0);
	m.who = cpu_to_be64(sl_w(w)->era);
	m.rel = cpu_to_be32(sl_w(w)->seen_rel);
	rdmalock_sl_send(ls, w->home, SL_MSG_RESET, &m);
}

/**
 * rdmalock_sl_watch() - look at the lock while waiting for it
 * @ls: the lockspace
 * @w: the waiter
 * @word: set to the word
 *
 * RelCnt that stands still for three leases means a failed holder: ask
 * the home node for a reset, and again each lease while nothing moves. A
 * waiter that was itself stalled for two leases between two looks has no
 * evidence, and starts over; not one lease, which a wait of half a lease
 * rounded up to whole jiffies, and the READ after it, can take when the
 * lease is a few jiffies long.
 *
 * Without leases (views recover the lock) it only reads the word.
 *
 * Return: 0, -ECONNRESET when the lock was reset, or a verb's error.
 */
static int rdmalock_sl_watch(struct rdmalock_lockspace *ls,
			     struct rdmalock_waiter *w, u64 *word)
{
	ktime_t now = ktime_get();
	u64 line[2];
	int ret;

	ret = rdmalock_sl_read(ls, w, line);
	if (ret)
		return ret;
	*word = line[0];
	WRITE_ONCE(*rdmalock_sl_guess(ls, w->home, w->slot_off), line[0]);
	if (ls->gated)
		return 0;
	/* An odd era is a reset under way, which may yet fail: wait for it. */
	if (!(line[1] & 1)) {
		if (sl_w(w)->era_known && line[1] != sl_w(w)->era)
			return -ECONNRESET;
		sl_w(w)->era = line[1];
		sl_w(w)->era_known = true;
	}
	if (!sl_w(w)->rel_known) {
		sl_w(w)->seen_rel = sl_rel(line[0]);
		sl_w(w)->rel_known = true;
	}
	if (sl_leaped(sl_rel(line[0]), sl_w(w)->seen_rel))
		return -ECONNRESET;
	if (ktime_sub(now, sl_w(w)->checked) > 2 * sl_ls(ls)->lease)
		sl_w(w)->changed = now;
	sl_w(w)->checked = now;
	if (sl_rel(line[0]) != sl_w(w)->seen_rel) {
		sl_w(w)->seen_rel = sl_rel(line[0]);
		sl_w(w)->changed = now;
	} else if (sl_w(w)->era_known &&
		   ktime_sub(now, sl_w(w)->changed) > 3 * sl_ls(ls)->lease) {
		rdmalock_sl_ask_reset(ls, w);
		sl_w(w)->changed = ktime_sub(now, 2 * sl_ls(ls)->lease);
	}
	return 0;
}

/*
 * Polls the word until @poll, given &rdmalock_sl.target, admits the
 * waiter. Its lease starts no later than the READ before the one that
 * admitted it, since the change came after that one; or when it started
 * waiting, if the first READ admits it. Between two READs, a view change
 * (the gate shut) ends it with -ERESTART, and so does @how.
 */
static int rdmalock_sl_poll(struct rdmalock_lockspace *ls,
			    struct rdmalock_waiter *w,
			    int (*poll)(u64 cur, u32 arg, u32 prev_rel),
			    const struct rdmalock_how *how)
{
	ktime_t issued = sl_w(w)->lease_start, prev;
	unsigned int us = 1;
	u32 prev_rel;
	u64 cur;
	int ret;

	for (;;) {
		prev = issued;
		issued = ktime_get();
		prev_rel = sl_w(w)->seen_rel;
		ret = rdmalock_sl_watch(ls, w, &cur);
		if (ret)
			return ret;
		switch (poll(cur, sl_w(w)->target, prev_rel)) {
		case SL_RESET:
			return rdmalock_sl_reset_seen(ls, w);
		case SL_ADMITTED:
			sl_w(w)->lease_start = prev;
			return 0;
		}
		ret = rdmalock_backoff(ls, how, &us, SL_POLL_MAX_US);
		if (ret)
			return ret;
	}
}

static int rdmalock_sl_reader_poll_fn(u64 cur, u32 epoch, u32 prev_rel)
{
	return rdmalock_sl_reader_poll(cur, epoch, prev_rel);
}

/* A reader counted while a writer was queued: wait for the epoch to flip. */
static int rdmalock_sl_await_epoch(struct rdmalock_lockspace *ls,
				   struct rdmalock_waiter *w,
				   const struct rdmalock_how *how)
{
	int ret;

	ret = rdmalock_sl_poll(ls, w, rdmalock_sl_reader_poll_fn, how);
	if (!ret)
		sl_w(w)->turn = SL_TURN_NONE;
	return ret;
}

/*
 * Sleeps until one of @events, looking at the lock each half lease;
 * without leases, until one of them, a view change (-ERESTART) or the end
 * of @how's wait.
 */
static int rdmalock_sl_wait_msg(struct rdmalock_lockspace *ls,
				struct rdmalock_waiter *w, unsigned long events,
				const struct rdmalock_how *how)
{
	struct rdmalock_how half_lease = { .timed = true };
	long half = nsecs_to_jiffies(sl_ls(ls)->lease / 2) + 1;
	u64 cur;
	int ret;

	if (ls->gated)
		return rdmalock_wait_event(ls, w, events, how);
	for (;;) {
		half_lease.deadline = jiffies + half;
		ret = rdmalock_wait_event(ls, w, events, &half_lease);
		if (ret != -ETIMEDOUT)
			return ret;
		ret = rdmalock_sl_watch(ls, w, &cur);
		if (ret)
			return ret;
	}
}

/*
 * How a wait that follows the acquisition's atomic may end: as the caller
 * asked where views recover the lock, since an acquisition that leaves is
 * then finished by the workqueue (rdmalock_sl_give_up()); under leases,
 * never, as the paper's: its lease machinery knows of no such waiter.
 */
static const struct rdmalock_how *rdmalock_sl_wait_how(struct rdmalock_lockspace *ls,
						       const struct rdmalock_how *how)
{
	return ls->gated ? how : &rdmalock_forever;
}

/*
 * Ends an acquisition that failed, other than by a trylock finding the
 * lock taken. A writer may be in the queue and named by a successor's
 * message: its descriptor is never reused. A reader is named nowhere.
 * For a view change (-ERESTART) neither matters: the queue is reset, and
 * messages of the old view are dropped.
 */
static int rdmalock_sl_fail(struct rdmalock_lockspace *ls,
			    struct rdmalock_waiter *w, int err)
{
	if (err == -ERESTART)
		return rdmalock_acq_fail(ls, w, err);
	w->lost = sl_w(w)->writer;
	rdmalock_desc_free(ls, w);
	return err;
}

/*
 * Did the caller choose to leave a wait that followed the atomic (a
 * timeout, a fatal signal, a cancel, a trylock that met a writer queued
 * between its READ and its FAA), rather than a verb fail?
 */
static bool rdmalock_sl_left(struct rdmalock_lockspace *ls,
			     struct rdmalock_waiter *w,
			     const struct rdmalock_how *how, int err)
{
	if (!ls->gated || sl_w(w)->turn == SL_TURN_NONE)
		return false;
	switch (err) {
	case -ETIMEDOUT:
		return rdmalock_how_over(how);
	case -EAGAIN:
		return how->try;
	}
	return err == -EINTR;
}

/*
 * Ends an acquisition whose wait ended. One whose caller left is counted
 * or queued, and others may wait behind it: it is left abandoned, and the
 * workqueue takes each next step of its wait as a message or a poll
 * allows, and lets go as soon as it is let in (rdmalock_sl_pass_on()).
 */
static int rdmalock_sl_give_up(struct rdmalock_lockspace *ls,
			       struct rdmalock_waiter *w,
			       const struct rdmalock_how *how, int err)
{
	if (!rdmalock_sl_left(ls, w, how, err))
		return rdmalock_sl_fail(ls, w, err);
	/*
	 * Fully ordered, as rdmalock_event(): a message's event set before is
	 * seen by the first step, one set after sees the state and queues
	 * the next. A Handover that came first has settled the state, and
	 * changes it no more.
	 */
	if (rdmalock_abandon(ls, w) == RDMALOCK_W_GRANTED)
		atomic_set(&w->state, RDMALOCK_W_ABANDONED_GRANTED);
	rdmalock_queue_abandoned(ls, w, 0);
	return err;
}

/* Readers. */

static int rdmalock_sl_acquire_read(struct rdmalock_lockspace *ls,
				    struct rdmalock_waiter *w,
				    const struct rdmalock_how *how)
{
	ktime_t t0;
	u64 old;
	int ret;

	if (how->try) {
		ret = rdmalock_fabric_read(ls->fabric, w->home, w->slot_off + SL_WORD,
					   &old, sizeof(old));
		if (ret)
			return rdmalock_sl_fail(ls, w, ret);
		if (sl_tail(old))
			return rdmalock_acq_fail(ls, w, -EAGAIN);
	}
	t0 = ktime_get();
	ret = rdmalock_sl_faa(ls, w->home, w->slot_off, SL_ADD_READER, &old);
	if (ret)
		return rdmalock_sl_fail(ls, w, ret);
	trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_QUEUED);
	sl_w(w)->lease_start = t0;
	if (!sl_tail(old))
		return 0;
	rdmalock_sl_watch_start(w, old);
	sl_w(w)->turn = SL_TURN_EPOCH;
	sl_w(w)->target = sl_epoch(old);
	how = rdmalock_sl_wait_how(ls, how);
	ret = rdmalock_sl_await_epoch(ls, w, how);
	if (ret)
		return rdmalock_sl_give_up(ls, w, how, ret);
	return 0;
}

/* Without leases (views recover the lock), never. */
static bool rdmalock_sl_lease_over(struct rdmalock_lockspace *ls,
				   struct rdmalock_waiter *w)
{
	return !ls->gated &&
	       ktime_sub(ktime_get(), sl_w(w)->lease_start) > sl_ls(ls)->lease;
}

static int rdmalock_sl_release_read(struct rdmalock_lockspace *ls,
				    struct rdmalock_waiter *w)
{
	u64 old;

	if (rdmalock_sl_lease_over(ls, w))
		return -ETIME;
	return rdmalock_sl_faa(ls, w->home, w->slot_off, SL_ADD_READER_DONE, &old);
}

/* Writers. */

/* Waits for the home node's Done, and takes the word and error it returns. */
static int rdmalock_sl_await_done(struct rdmalock_lockspace *ls,
				  struct rdmalock_waiter *w, u64 *old,
				  const struct rdmalock_how *how)
{
	int ret;

	ret = rdmalock_sl_wait_msg(ls, w, BIT(SL_EV_DONE), how);
	if (ret)
		return ret;
	sl_w(w)->turn = SL_TURN_NONE;
	/* Pairs with rdmalock_event(): the answer is read after its event. */
	smp_rmb();
	*old = sl_w(w)->done_word;
	return sl_w(w)->done_err;
}

/*
 * Asks the home node to do a request (Enqueue, Try, Release or Upgrade),
 * and waits for the word its last atomic returned; -ERESTART when a view
 * change comes first, whether or not the home node did it. Only an
 * Enqueue's wait may end otherwise, as @how says; it is then at
 * SL_TURN_DONE, and its Done may still come.
 */
static int rdmalock_sl_delegate(struct rdmalock_lockspace *ls,
				struct rdmalock_waiter *w, u8 type, u64 *old,
				const struct rdmalock_how *how)
{
	struct rdmalock_sl_msg m;
	int ret;

	rdmalock_sl_msg_init(&m, w, w->idx, w->gen);
	m.rel = cpu_to_be32(sl_w(w)->cur_rel);
	m.epoch = sl_w(w)->epoch;
	/* A writer's enqueue and its release may each ask: one at a time. */
	clear_bit(SL_EV_DONE, &w->events);
	ret = rdmalock_sl_send(ls, w->home, type, &m);
	/* Without leases, as a failed verb: a view change is asked for. */
	if (ret)
		return ls->gated ? -EIO : ret;
	atomic64_inc(&ls->delegated);
	/*
	 * A reset before the home node does the request is no concern of
	 * this wait: what Done returns shows it.
	 */
	rdmalock_sl_watch_blind(w);
	return rdmalock_sl_await_done(ls, w, old, how);
}

/*
 * A writer's request @type (Try or Upgrade) on the word: by the home node,
 * this one or, with writer_cas 0, another by message; else by @cas, this
 * node's own CAS. Return: 0 with @old the word it replaced, -EAGAIN when
 * the word does not allow it, or an error.
 */
static int rdmalock_sl_ask(struct rdmalock_lockspace *ls, struct rdmalock_waiter *w,
			   u8 type, int (*cas)(struct rdmalock_lockspace *ls, u32 home,
					       u64 slot_off, u32 me, u64 *old),
			   u64 *old)
{
	u32 me = rdmalock_sl_me(ls, w);

	if (w->home == ls->self)
		return rdmalock_sl_home_do(ls, type, w->slot_off, me, 0, false, old);
	if (!sl_ls(ls)->writer_cas)
		return rdmalock_sl_delegate(ls, w, type, old, &rdmalock_forever);
	return cas(ls, w->home, w->slot_off, me, old);
}

/* A writer trylock: take the lock only if it is free, and never queue. */
static int rdmalock_sl_try_write(struct rdmalock_lockspace *ls,
				 struct rdmalock_waiter *w)
{
	u64 old;
	int ret;

	/* No later than whichever atomic, here or at the home node, lands. */
	sl_w(w)->lease_start = ktime_get();
	ret = rdmalock_sl_ask(ls, w, SL_MSG_TRY, rdmalock_sl_take_free, &old);
	if (ret == -EAGAIN)
		return rdmalock_acq_fail(ls, w, ret);
	if (ret)
		return rdmalock_sl_fail(ls, w, ret);
	sl_w(w)->cur_rel = sl_rel(old);
	sl_w(w)->epoch = sl_epoch(old);
	return 0;
}

/*
 * Swaps this writer into TailId; @old is the word it replaced. A CAS
 * expecting a word a round trip old, or older, mostly fails on a lock
 * last seen busy: then ask the home node at once, and wait for its Done
 * as @how allows.
 */
static int rdmalock_sl_enqueue(struct rdmalock_lockspace *ls,
			       struct rdmalock_waiter *w, u64 *old,
			       const struct rdmalock_how *how)
{
	u32 me = rdmalock_sl_me(ls, w), tries = sl_ls(ls)->writer_cas;
	u64 seen;
	int ret;

	sl_w(w)->lease_start = ktime_get();
	if (w->home == ls->self)
		return rdmalock_sl_home_do(ls, SL_MSG_ENQUEUE, w->slot_off, me,
					   0, false, old);
	seen = rdmalock_sl_expect(ls, w->home, w->slot_off);
	if (tries != RDMALOCK_SHIFTLOCK_WRITER_CAS_ONLY &&
	    (sl_tail(seen) || sl_rdr(seen)))
		tries = 0;
	ret = rdmalock_sl_swap_tail(ls, w->home, w->slot_off, me, tries, old);
	if (ret != -EAGAIN)
		return ret;
	/* From the message on, the home node may queue it at any moment. */
	sl_w(w)->turn = SL_TURN_DONE;
	return rdmalock_sl_delegate(ls, w, SL_MSG_ENQUEUE, old, how);
}

/* Queued behind readers: wait until RelCnt shows they have all left. */
static int rdmalock_sl_await_readers(struct rdmalock_lockspace *ls,
				     struct rdmalock_waiter *w,
				     const struct rdmalock_how *how)
{
	struct rdmalock_sl *sl = sl_w(w);
	int ret;

	ret = rdmalock_sl_poll(ls, w, rdmalock_sl_writer_poll, how);
	if (ret)
		return ret;
	sl->cur_rel = sl->target;
	sl->cons = 0;
	sl->turn = SL_TURN_NONE;
	return 0;
}

/* Queued behind a writer: wait to be handed the lock, or told to wait more. */
static int rdmalock_sl_wait_pred(struct rdmalock_lockspace *ls,
				 struct rdmalock_waiter *w,
				 const struct rdmalock_how *how)
{
	struct rdmalock_sl *sl = sl_w(w);
	int ret;

	ret = rdmalock_sl_wait_msg(ls, w, BIT(RDMALOCK_EV_GRANT) |
				   BIT(SL_EV_MODE), how);
	if (ret)
		return ret;
	/* It starts when the message was received (the top of this file). */
	sl->lease_start = sl->msg_time;
	sl->epoch = sl->msg_epoch;
	if (test_bit(RDMALOCK_EV_GRANT, &w->events)) {
		sl->cur_rel = sl->msg_rel;
		sl->cons = sl->msg_cons;
		sl->turn = SL_TURN_NONE;
		return 0;
	}
	/* The readers admitted by the flip release; RelCnt tells when. */
	sl->turn = SL_TURN_READERS;
	sl->target = sl->msg_rel;
	return rdmalock_sl_await_readers(ls, w, how);
}

/*
 * Waits for the lock once queued, TailId swapped from @old: for the
 * writer before it, after telling it so, or for the readers before it.
 */
static int rdmalock_sl_queued(struct rdmalock_lockspace *ls,
			      struct rdmalock_waiter *w, u64 old,
			      const struct rdmalock_how *how)
{
	struct rdmalock_sl *sl = sl_w(w);
	u32 target = 0;
	int ret;

	trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_QUEUED);
	sl->cur_rel = sl_rel(old);
	sl->epoch = sl_epoch(old);
	rdmalock_sl_watch_start(w, old);
	sl->turn = SL_TURN_NONE;
	switch (rdmalock_sl_after_enqueue(old, &target)) {
	case SL_BEHIND_WRITER:
		ret = rdmalock_sl_tell_pred(ls, w, sl_tail(old));
		if (ret)
			return ret;
		sl->turn = SL_TURN_WRITER;
		return rdmalock_sl_wait_pred(ls, w, how);
	case SL_BEHIND_READERS:
		sl->turn = SL_TURN_READERS;
		sl->target = target;
		return rdmalock_sl_await_readers(ls, w, how);
	}
	return 0;
}

/*
 * Waits for the lock from where the acquisition's wait stands (@turn),
 * which may be where a caller that left stopped.
 */
static int rdmalock_sl_await_turn(struct rdmalock_lockspace *ls,
				  struct rdmalock_waiter *w,
				  const struct rdmalock_how *how)
{
	u64 old;
	int ret;

	switch (sl_w(w)->turn) {
	case SL_TURN_DONE:
		ret = rdmalock_sl_await_done(ls, w, &old, how);
		return ret ?: rdmalock_sl_queued(ls, w, old, how);
	case SL_TURN_WRITER:
		return rdmalock_sl_wait_pred(ls, w, how);
	case SL_TURN_READERS:
		return rdmalock_sl_await_readers(ls, w, how);
	case SL_TURN_EPOCH:
		return rdmalock_sl_await_epoch(ls, w, how);
	}
	return 0;
}

static int rdmalock_sl_acquire_write(struct rdmalock_lockspace *ls,
				     struct rdmalock_waiter *w,
				     const struct rdmalock_how *how)
{
	u64 old;
	int ret;

	WRITE_ONCE(sl_w(w)->writer, true);
	if (how->try)
		return rdmalock_sl_try_write(ls, w);
	how = rdmalock_sl_wait_how(ls, how);
	ret = rdmalock_sl_enqueue(ls, w, &old, how) ?:
	      rdmalock_sl_queued(ls, w, old, how);
	return ret ? rdmalock_sl_give_up(ls, w, how, ret) : 0;
}

/* No successor known: clear the tail and flip the epoch, in one atomic. */
static int rdmalock_sl_release_alone(struct rdmalock_lockspace *ls,
				     struct rdmalock_waiter *w, bool *queued)
{
	struct rdmalock_sl *sl = sl_w(w);
	u32 me = rdmalock_sl_me(ls, w);
	u64 old;
	int ret;

	if (w->home == ls->self)
		ret = rdmalock_sl_home_do(ls, SL_MSG_RELEASE, w->slot_off, me,
					  sl->cur_rel, sl->epoch, &old);
	else
		ret = rdmalock_sl_clear_tail(ls, w->home, w->slot_off,
					     sl->cur_rel, sl->epoch, me,
					     sl_ls(ls)->writer_cas, &old);
	if (ret == -EAGAIN)
		ret = rdmalock_sl_delegate(ls, w, SL_MSG_RELEASE, &old,
					   &rdmalock_forever);
	if (ret)
		return ret;
	switch (rdmalock_sl_release_outcome(old, sl->cur_rel, sl->epoch, me)) {
	case SL_RESET:
		return rdmalock_sl_reset_seen(ls, w);
	case SL_QUEUED:
		*queued = true;
		break;
	}
	return 0;
}

/*
 * Gives the lock to the successor: to it directly, or to the readers
 * first, as the writer batch says or @to_readers asks.
 */
static int rdmalock_sl_pass(struct rdmalock_lockspace *ls,
			    struct rdmalock_waiter *w, bool to_readers)
{
	struct rdmalock_sl *sl = sl_w(w);
	bool flip = to_readers ||
		    rdmalock_sl_must_flip(sl->cons, sl_ls(ls)->writer_batch);
	u32 node = RDMALOCK_NO_NODE, idx, gen;
	struct rdmalock_sl_msg m;
	u64 old;
	int ret;

	/* The wait for the successor may have taken what was left of it. */
	if (rdmalock_sl_lease_over(ls, w)) {
		w->lost = true;
		return -ETIME;
	}

	ret = rdmalock_sl_faa(ls, w->home, w->slot_off,
			      flip ? sl_add_flip(sl->epoch) : SL_ADD_HANDOVER, &old);
	if (ret)
		return ret;
	if (sl_rel(old) != sl->cur_rel || sl_epoch(old) != sl->epoch) {
		pr_err_ratelimited("%s: lock slot %#llx was reset under a holder in its lease\n",
				   ls->name, w->slot_off);
		return rdmalock_sl_reset_seen(ls, w);
	}
	/* Checked when its Successor came; a NO_NODE would fail the send. */
	rdmalock_desc_decode(sl->succ, ls->num_nodes, ls->descs, &node, &idx, &gen);
	rdmalock_sl_msg_init(&m, w, idx, gen);
	m.epoch = flip ? !sl->epoch : sl->epoch;
	if (flip) {
		/* Itself, and the readers it admitted, must release first. */
		m.rel = cpu_to_be32(sl_rel(old) + sl_rdr(old) + 1);
	} else {
		m.rel = cpu_to_be32(sl->cur_rel + 1);
		m.cons = cpu_to_be32(sl->cons + 1);
	}
	/*
	 * Lost, it leaves the lock standing still, and the watch resets it;
	 * without leases, the view change the lock layer asks for after
	 * this failed release.
	 */
	trace_rdmalock_lock_step(ls, w, RDMALOCK_STEP_HANDOVER);
	if (rdmalock_sl_send(ls, node, flip ? SL_MSG_MODE_CHANGED : SL_MSG_HANDOVER,
			     &m) && ls->gated)
		return -EIO;
	return 0;
}

/*
 * Hands the lock on: to the successor, or, with none known, by clearing
 * the tail; a successor between its enqueue and its Successor message is
 * waited for, within @how, at SL_TURN_LINK, where a wait that ended
 * leaves it (an abandoned writer's next step starts there). Its Successor
 * message is on the way; a failed one never sends. Without leases, a
 * failed one asks for a view change, which, like any, frees the lock, the
 * successor gone.
 */
static int rdmalock_sl_hand_on(struct rdmalock_lockspace *ls,
			       struct rdmalock_waiter *w, bool to_readers,
			       const struct rdmalock_how *how)
{
	bool queued = false;
	int ret;

	if (sl_w(w)->turn != SL_TURN_LINK &&
	    !test_bit(RDMALOCK_EV_LINK, &w->events)) {
		ret = rdmalock_sl_release_alone(ls, w, &queued);
		if (ret || !queued)
			return ret;
		sl_w(w)->turn = SL_TURN_LINK;
	}
	ret = rdmalock_wait_event(ls, w, BIT(RDMALOCK_EV_LINK), how);
	if (ret)
		return ret;
	sl_w(w)->turn = SL_TURN_NONE;
	/* Pairs with rdmalock_event(): the successor is read after its event. */
	smp_rmb();
	return rdmalock_sl_pass(ls, w, to_readers);
}

/*
 * A writer lets go of the lock, to the readers whatever its batch says
 * when @to_readers; -ERESTART when a view change came meanwhile. Under
 * leases a successor's Successor is waited for a lease at most: then the
 * lock is left to the others' reset.
 */
static int rdmalock_sl_let_go(struct rdmalock_lockspace *ls,
			      struct rdmalock_waiter *w, bool to_readers)
{
	struct rdmalock_how how = {
		.deadline = jiffies + nsecs_to_jiffies(sl_ls(ls)->lease) + 1,
		.timed = true,
	};
	int ret;

	if (rdmalock_sl_lease_over(ls, w)) {
		w->lost = true;
		return -ETIME;
	}
	/* Only an abandoned writer's step starts at a wait it left. */
	sl_w(w)->turn = SL_TURN_NONE;
	ret = rdmalock_sl_hand_on(ls, w, to_readers,
				  ls->gated ? &rdmalock_forever : &how);
	if (!ret || ls->gated || sl_w(w)->turn != SL_TURN_LINK)
		return ret;
	w->lost = true;
	return ret == -ETIMEDOUT ? 0 : ret;
}

static int rdmalock_sl_release_write(struct rdmalock_lockspace *ls,
				     struct rdmalock_waiter *w)
{
	int ret = rdmalock_sl_let_go(ls, w, false);

	/*
	 * A view change came while the home node may have done the release,
	 * or not: the view change frees the lock either way (the top of this
	 * file).
	 */
	return ret == -ERESTART ? READ_ONCE(w->gone) : ret;
}

/*
 * @w is about to hold the lock as a writer with nobody behind it: no
 * writers in a row before it, no successor, no message of a queue it was
 * in before. Called before the atomic that makes it TailId, never after:
 * from that atomic on, a successor may name itself at any moment, and a
 * Successor message forgotten here would leave @w's release waiting for
 * it forever.
 */
static void rdmalock_sl_writer_fresh(struct rdmalock_waiter *w)
{
	struct rdmalock_sl *sl = sl_w(w);

	sl->cons = 0;
	sl->succ = 0;
	clear_bit(RDMALOCK_EV_LINK, &w->events);
	clear_bit(SL_EV_MODE, &w->events);
	clear_bit(SL_EV_DONE, &w->events);
}

/*
 * From writer to reader without letting go (Documentation/dlm.rst, and
 * DOWNGRADE in tools/models/shiftlock.pml): counted among the readers
 * while its TailId still keeps every writer out and every reader waiting,
 * then gone as a writer to the readers, whose flip admits it with them.
 * Its release is then a reader's, which a successor's RelCnt target
 * counts. Only where views recover the lock: under leases a reset between
 * the two atomics would leave its reader count in the new epoch.
 */
static int rdmalock_sl_downgrade(struct rdmalock_lockspace *ls,
				 struct rdmalock_waiter *w)
{
	u64 old;
	int ret;

	ret = rdmalock_sl_faa(ls, w->home, w->slot_off, SL_ADD_READER, &old);
	if (ret)
		return ret;
	/* Inside the gate nothing resets the word under its holder. */
	if (rdmalock_sl_release_outcome(old, sl_w(w)->cur_rel, sl_w(w)->epoch,
					rdmalock_sl_me(ls, w)) == SL_RESET) {
		pr_err_ratelimited("%s: lock slot %#llx: a writer converting down found word %#llx, not the one it holds\n",
				   ls->name, w->slot_off, old);
		return -EIO;
	}
	ret = rdmalock_sl_let_go(ls, w, true);
	if (ret)
		return ret;
	WRITE_ONCE(sl_w(w)->writer, false);
	w->mode = RDMALOCK_MODE_SH;
	return 0;
}

/*
 * From reader to writer without letting go, when it is the lock's only
 * holder and nobody waits (UPGRADE in tools/models/shiftlock.pml): one
 * CAS, its own or the home node's, takes the word from one reader and no
 * TailId to no reader and TailId itself, counting its reader's release.
 * Otherwise -EAGAIN: queued as a writer, it would wait for its own
 * release. -ERESTART when a view change came: it claimed the lock as a
 * reader again.
 */
static int rdmalock_sl_upgrade(struct rdmalock_lockspace *ls,
			       struct rdmalock_waiter *w)
{
	struct rdmalock_sl *sl = sl_w(w);
	u64 old;
	int ret;

	/* The home node's Done, and later a successor's messages, are a writer's. */
	WRITE_ONCE(sl->writer, true);
	rdmalock_sl_writer_fresh(w);
	ret = rdmalock_sl_ask(ls, w, SL_MSG_UPGRADE, rdmalock_sl_take_alone, &old);
	if (ret) {
		WRITE_ONCE(sl->writer, false);
		return ret;
	}
	sl->cur_rel = sl_rel(old) + 1;
	sl->epoch = sl_epoch(old);
	w->mode = RDMALOCK_MODE_EX;
	return 0;
}

static int rdmalock_sl_acquire(struct rdmalock_lockspace *ls,
			       struct rdmalock_waiter *w,
			       const struct rdmalock_how *how)
{
	int ret;

	if (w->mode == RDMALOCK_MODE_SH)
		ret = rdmalock_sl_acquire_read(ls, w, how);
	else
		ret = rdmalock_sl_acquire_write(ls, w, how);
	/*
	 * A grant that came after the lease (a slow answer from the home
	 * node, a long poll) is no grant: a waiter may be resetting the lock
	 * already, and no critical section may start on it.
	 */
	if (!ret && rdmalock_sl_lease_over(ls, w))
		return rdmalock_sl_fail(ls, w, -ETIME);
	return ret;
}

static int rdmalock_sl_release(struct rdmalock_lockspace *ls,
			       struct rdmalock_waiter *w)
{
	if (sl_w(w)->writer)
		return rdmalock_sl_release_write(ls, w);
	return rdmalock_sl_release_read(ls, w);
}

/*
 * The next step, on the workqueue and inside the gate, of an acquisition
 * whose caller left (rdmalock_sl_give_up()): once it is let in, it lets
 * go at once. It never waits for a message or a poll, which would take a
 * worker for as long as a holder holds, and a worker may be what a
 * holder's release needs (the home node's jobs, other abandoned
 * acquisitions' steps): -EINPROGRESS, and the next step comes with the
 * next message for it (Done, Handover, ModeChanged, Successor) or, while
 * it polls RelCnt or the epoch, a jiffy later. A view change, or the
 * domain's end, ends it: the queue it is in is reset.
 */
static int rdmalock_sl_pass_on(struct rdmalock_lockspace *ls,
			       struct rdmalock_waiter *w, s64 granted)
{
	struct rdmalock_how now = { .deadline = jiffies, .timed = true };
	int ret = 0;
	u8 turn;

	if (READ_ONCE(ls->closed))
		return 0;
	if (sl_w(w)->turn != SL_TURN_LINK)
		ret = rdmalock_sl_await_turn(ls, w, &now);
	if (!ret && sl_w(w)->writer)
		ret = rdmalock_sl_hand_on(ls, w, false, &now);
	else if (!ret)
		ret = rdmalock_sl_release_read(ls, w);
	turn = sl_w(w)->turn;
	if (ret == -ETIMEDOUT && turn != SL_TURN_NONE) {
		if (turn == SL_TURN_READERS || turn == SL_TURN_EPOCH)
			rdmalock_queue_abandoned(ls, w, 1);
		return -EINPROGRESS;
	}
	return ret == -ERESTART || ret == -ESHUTDOWN ? 0 : ret;
}

static const char *rdmalock_sl_check_params(const struct rdmalock_ls_params *params,
					    bool mine)
{
	if (!mine)
		return params->writer_batch || params->writer_cas ?
		       "writer batch and writer CAS are for shiftlock" : NULL;
	if (params->writer_batch > RDMALOCK_SHIFTLOCK_WRITERS_MAX ||
	    (params->writer_cas > RDMALOCK_SHIFTLOCK_WRITER_CAS_MAX &&
	     params->writer_cas != RDMALOCK_SHIFTLOCK_WRITER_CAS_ONLY))
		return "writer batch or writer CAS out of range";
	if ((u64)params->num_nodes * params->descs > SL_DESCS_MAX)
		return "shiftlock: nodes times descriptors above 32767";
	return NULL;
}

static void rdmalock_sl_init(struct rdmalock_lockspace *ls,
			     const struct rdmalock_ls_params *params)
{
	struct rdmalock_sl_ls *sls = sl_ls(ls);
	int i;

	sls->lease = (u64)(params->lease_ms ?: RDMALOCK_SHIFTLOCK_LEASE_MS) *
		     NSEC_PER_MSEC;
	sls->writer_batch = params->writer_batch ?: RDMALOCK_SHIFTLOCK_WRITERS;
	sls->writer_cas = params->writer_cas;
	for (i = 0; i < SL_HOME_LOCKS; i++)
		mutex_init(&sls->home_lock[i]);
}

static int rdmalock_sl_attach(struct rdmalock_lockspace *ls)
{
	struct rdmalock_sl_ls *sls = sl_ls(ls);
	u8 type;

	sls->guess = kvcalloc((size_t)ls->num_nodes * ls->locks_per_node,
			      sizeof(*sls->guess), GFP_KERNEL);
	sls->slots = kvcalloc((size_t)ls->num_nodes * ls->descs,
			      sizeof(*sls->slots), GFP_KERNEL);
	sls->slot_busy = bitmap_zalloc(ls->num_nodes * ls->descs, GFP_KERNEL);
	sls->jobs = mempool_create_kmalloc_pool(SL_JOB_RESERVE,
						sizeof(struct rdmalock_sl_job));
	if (!sls->guess || !sls->slots || !sls->slot_busy || !sls->jobs)
		return -ENOMEM;
	/*
	 * Nothing may fail once a handler is set: the lockspace would be
	 * freed while the fabric, still up, can call it. These types are the
	 * domain's algorithm's alone, so setting them cannot fail.
	 */
	for (type = SL_MSG_SUCCESSOR; type <= SL_MSG_LAST; type++)
		WARN_ON_ONCE(rdmalock_fabric_set_handler(ls->fabric, type,
							 rdmalock_sl_msg_handle,
							 ls));
	WARN_ON_ONCE(rdmalock_fabric_set_handler(ls->fabric, SL_MSG_UPGRADE,
						 rdmalock_sl_msg_handle, ls));
	return 0;
}

static void rdmalock_sl_detach(struct rdmalock_lockspace *ls)
{
	struct rdmalock_sl_ls *sls = sl_ls(ls);
	int i;

	for (i = 0; i < SL_HOME_LOCKS; i++)
		mutex_destroy(&sls->home_lock[i]);
	mempool_destroy(sls->jobs);
	bitmap_free(sls->slot_busy);
	kvfree(sls->slots);
	kvfree(sls->guess);
}

/*
 * A view change reset this node's table: every word of a lock homed here
 * is 0, and no request of a writer is under way or queued (the quiesce
 * flushed them; later ones find the gate shut). What this node knows of
 * the words, its guesses, goes too: a guess of 0 is what a CAS should now
 * expect, here and, once the other homes have reset theirs, elsewhere.
 */
static void rdmalock_sl_recover_reset(struct rdmalock_lockspace *ls)
{
	struct rdmalock_sl_ls *sls = sl_ls(ls);
	u64 i, n = (u64)ls->num_nodes * ls->locks_per_node;

	for (i = 0; i < n; i++)
		WRITE_ONCE(sls->guess[i], 0);
}

/*
 * Claims @w's lock, which it holds, at its home once every table is
 * reset: as if it had just taken it with nobody else about. A writer
 * swaps itself in as TailId and knows the word it installed, which its
 * release's CAS or FAA expects; a reader counts itself in RdrCnt, which
 * its release's FAA counts out. Its successor, if it had one, has left.
 */
static int rdmalock_sl_recover_hold(struct rdmalock_lockspace *ls,
				    struct rdmalock_waiter *w)
{
	bool writer = w->mode != RDMALOCK_MODE_SH;
	u64 old;
	int ret;

	if (!writer) {
		ret = rdmalock_sl_faa(ls, w->home, w->slot_off, SL_ADD_READER, &old);
		if (ret)
			return ret;
		ret = rdmalock_sl_claim_outcome(old, false);
		/* A writer claimed it: take this reader out again. */
		if (ret)
			rdmalock_sl_faa(ls, w->home, w->slot_off, -SL_ADD_READER,
					&old);
		return ret;
	}
	rdmalock_sl_writer_fresh(w);
	ret = rdmalock_sl_cas(ls, w->home, w->slot_off, 0,
			      sl_claim_word(rdmalock_sl_me(ls, w)), &old);
	if (ret)
		return ret;
	ret = rdmalock_sl_claim_outcome(old, true);
	if (ret)
		return ret;
	sl_w(w)->cur_rel = sl_rel(sl_claim_word(0));
	sl_w(w)->epoch = sl_epoch(sl_claim_word(0));
	return 0;
}

/* A late message must not find a writer here once the descriptor is free. */
static void rdmalock_sl_end(struct rdmalock_lockspace *ls,
			    struct rdmalock_waiter *w)
{
	WRITE_ONCE(sl_w(w)->writer, false);
}

const struct rdmalock_algo rdmalock_shiftlock_algo = {
	.id = RDMALOCK_ALGO_SHIFTLOCK,
	.name = "shiftlock",
	.shared = true,
	.leases = true,
	.ls_size = sizeof(struct rdmalock_sl_ls),
	.waiter_size = sizeof(struct rdmalock_sl),
	.check_params = rdmalock_sl_check_params,
	.init = rdmalock_sl_init,
	.attach = rdmalock_sl_attach,
	.detach = rdmalock_sl_detach,
	.end = rdmalock_sl_end,
	.acquire = rdmalock_sl_acquire,
	.release = rdmalock_sl_release,
	.pass_on = rdmalock_sl_pass_on,
	.downgrade = rdmalock_sl_downgrade,
	.upgrade = rdmalock_sl_upgrade,
	.recover_hold = rdmalock_sl_recover_hold,
	.recover_reset = rdmalock_sl_recover_reset,
};

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock: ShiftLock's lock word, packed into 8 bytes for plain RDMA
 * CAS and FAA (shared/specs/shiftlock.md §2.9):
 *
 *   63 ........ 32 | 31    | 30 ...... 16 | 15 ....... 0
 *   RelCnt (32)    | Epoch | RdrCnt (15)  | TailId (16), 0 = no writer
 *
 * RelCnt counts releases modulo 2^32 and sits on top, so its carry leaves
 * the word; a reset makes it leap by 2^31, which no run of releases
 * between two samples can imitate. RdrCnt counts readers admitted or
 * waiting: at most every descriptor of every node, which fits. TailId
 * names the last queued writer's descriptor.
 */
#ifndef RDMALOCK_SHIFTLOCK_H
#define RDMALOCK_SHIFTLOCK_H

#include <linux/bitfield.h>
#include <linux/bits.h>

#include "locks.h"

#define SL_TAIL			GENMASK_ULL(15, 0)
#define SL_RDR			GENMASK_ULL(30, 16)
#define SL_EPOCH		BIT_ULL(31)
#define SL_REL			GENMASK_ULL(63, 32)
#define SL_RDR_ONE		BIT_ULL(16)
#define SL_REL_ONE		BIT_ULL(32)
#define SL_LEAP			BIT(31)

/* rdmalock_sl_after_enqueue(): what a writer queued behind */
#define SL_FREE			0
#define SL_BEHIND_READERS	1
#define SL_BEHIND_WRITER	2

/* rdmalock_sl_release_outcome(): what a writer's release CAS found */
#define SL_MINE			0
#define SL_QUEUED		1
/* ... or SL_RESET, below */

/* rdmalock_sl_reader_poll(), rdmalock_sl_writer_poll() */
#define SL_WAIT			0
#define SL_ADMITTED		1
#define SL_RESET		2

/* Its own events of a descriptor, bits of &rdmalock_waiter.events. */
#define SL_EV_MODE		(RDMALOCK_EV_ALGO + 0)	/* readers have the lock first */
#define SL_EV_DONE		(RDMALOCK_EV_ALGO + 1)	/* the home node answered */

/* Messages between nodes. */
#define SL_MSG_SUCCESSOR	(RDMALOCK_MSG_USER_FIRST + 0)
#define SL_MSG_HANDOVER		(RDMALOCK_MSG_USER_FIRST + 1)
#define SL_MSG_MODE_CHANGED	(RDMALOCK_MSG_USER_FIRST + 2)
#define SL_MSG_RESET		(RDMALOCK_MSG_USER_FIRST + 3)
#define SL_MSG_ENQUEUE		(RDMALOCK_MSG_USER_FIRST + 4)
#define SL_MSG_RELEASE		(RDMALOCK_MSG_USER_FIRST + 5)
#define SL_MSG_DONE		(RDMALOCK_MSG_USER_FIRST + 6)
#define SL_MSG_TRY		(RDMALOCK_MSG_USER_FIRST + 7)
#define SL_MSG_LAST		SL_MSG_TRY
/* A reader's conversion up, done by the home node; after the names' and blocking's. */
#define SL_MSG_UPGRADE		(RDMALOCK_MSG_USER_FIRST + 12)

static_assert(SL_MSG_LAST < RDMALOCK_MSG_TYPES);
static_assert(SL_MSG_UPGRADE < RDMALOCK_MSG_TYPES);

/**
 * struct rdmalock_sl_msg - a ShiftLock message (all fields big-endian)
 * @slot_off: the lock's slot at its home node
 * @who: Successor: the sender's descriptor; Reset: the era the sender saw;
 *	Done: the word the home node's last atomic returned, or loaded
 * @home: the lock's home node
 * @desc: the descriptor it is for, on the receiving node; Enqueue, Try
 *	and Release: the sending writer's, on the sending node
 * @gen: that descriptor's generation, or 0 when the sender cannot know it
 * @rel: Handover: RelCnt; ModeChanged: RelCnt to wait for; Reset: the
 *	RelCnt that stood still; Release: RelCnt as its holder knows it
 * @cons: Handover: consecutive writers so far; Done: 0, or the errno of
 *	the home node's work (EAGAIN: Try found the lock taken)
 * @epoch: Handover, ModeChanged, Release: the lock's epoch
 * @pad: zero
 * @view: where the lock recovers through membership views, the low bits
 *	of the sender's view's epoch, else 0: a message from an older view
 *	is for queues that view changes have reset, and is dropped
 *
 * Enqueue, Try and Release ask the lock's home node to change TailId for
 * a writer: swap it in, swap it in only if the lock is free, or clear it
 * from there; Done answers them.
 */
struct rdmalock_sl_msg {
	__be64 slot_off;
	__be64 who;
	__be32 home;
	__be32 desc;
	__be32 gen;
	__be32 rel;
	__be32 cons;
	u8 epoch;
	u8 pad;
	__be16 view;
};

static_assert(sizeof(struct rdmalock_sl_msg) == 40);

/* Words of a ShiftLock slot. */
#define SL_WORD			0
#define SL_ERA			8	/* resets so far; written by the home CPU */

/*
 * Every descriptor of the domain, as a TailId or a reader, must fit the
 * word: a domain's nodes times its descriptors per node is at most this.
 */
#define SL_DESCS_MAX		(SL_RDR >> 16)

/* TailId is the word's low bits. */
static_assert(SL_DESCS_MAX < SL_TAIL);

static inline u32 sl_tail(u64 word)
{
	return FIELD_GET(SL_TAIL, word);
}

static inline u32 sl_rdr(u64 word)
{
	return FIELD_GET(SL_RDR, word);
}

static inline bool sl_epoch(u64 word)
{
	return word & SL_EPOCH;
}

static inline u32 sl_rel(u64 word)
{
	return FIELD_GET(SL_REL, word);
}

static inline u64 sl_word(u32 rel, bool epoch, u32 rdr, u32 tail)
{
	return FIELD_PREP(SL_REL, rel) | (epoch ? SL_EPOCH : 0) |
	       FIELD_PREP(SL_RDR, rdr) | FIELD_PREP(SL_TAIL, tail);
}

/* Did RelCnt leap (a reset) going from @before to @now, modulo 2^32? */
static inline bool sl_leaped(u32 now, u32 before)
{
	return now - before >= SL_LEAP;
}

/*
 * A descriptor as a TailId, in a domain of @descs descriptors per node:
 * never 0, which is "no writer".
 */
static inline u32 sl_tail_id(u32 descs, u32 node, u32 idx)
{
	return node * descs + idx + 1;
}

/* The descriptor a non-zero TailId names: the inverse of sl_tail_id(). */
static inline void sl_tail_desc(u32 descs, u32 tail, u32 *node, u32 *idx)
{
	*node = (tail - 1) / descs;
	*idx = (tail - 1) % descs;
}

/* The FAA addends; the reader release borrows nothing since RdrCnt >= 1. */
#define SL_ADD_READER		SL_RDR_ONE
#define SL_ADD_READER_DONE	(SL_REL_ONE - SL_RDR_ONE)
#define SL_ADD_HANDOVER		SL_REL_ONE

/* Flips the epoch the holder knows, and counts its release. */
static inline u64 sl_add_flip(bool epoch)
{
	return epoch ? SL_REL_ONE - SL_EPOCH : SL_REL_ONE + SL_EPOCH;
}

/*
 * The home node's FAA when it alone changes TailId (writer_cas 0), so
 * knows it: swap @tail for @me; clear @me, counting its release and
 * flipping the epoch @epoch.
 */
static inline u64 sl_add_enqueue(u32 tail, u32 me)
{
	return (u64)me - tail;
}

static inline u64 sl_add_release(bool epoch, u32 me)
{
	return sl_add_flip(epoch) - me;
}

/*
 * What a writer holder claims at the lock's home in a view change, the
 * table reset (all zero): itself as TailId, nobody queued, no reader.
 */
static inline u64 sl_claim_word(u32 me)
{
	return sl_word(0, false, 0, me);
}

/* What a reset leaves: RelCnt leapt, nothing else. */
static inline u64 sl_reset_word(u64 word)
{
	return sl_word(sl_rel(word) + SL_LEAP, false, 0, 0);
}

#if IS_ENABLED(CONFIG_KUNIT)
int rdmalock_sl_writer_poll(u64 cur, u32 target, u32 prev_rel);
int rdmalock_sl_after_enqueue(u64 old, u32 *target);
int rdmalock_sl_reader_poll(u64 cur, bool epoch, u32 prev_rel);
int rdmalock_sl_release_outcome(u64 old, u32 rel, bool epoch, u32 me);
bool rdmalock_sl_must_flip(u32 cons, u32 batch);
bool rdmalock_sl_reset_ok(u64 era, u64 req_era, u64 cur, u32 req_rel);
int rdmalock_sl_msg_check(const struct rdmalock_lockspace *ls, u8 type,
			  const void *payload, u32 len);
bool rdmalock_sl_msg_current(bool gated, bool shut, u16 view, u16 mine);
int rdmalock_sl_claim_outcome(u64 old, bool writer);
#endif

#endif /* RDMALOCK_SHIFTLOCK_H */

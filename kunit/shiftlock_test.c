// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: ShiftLock's 8-byte lock word, its modular RelCnt, the decisions
 * its waiters take, each erratum of the spec (shared/specs/shiftlock.md
 * §3.12, §4.8, §8) against what the printed version would do, and the
 * checks on its messages.
 */
#include <kunit/test.h>
#include <linux/random.h>

#include "locks.h"
#include "shiftlock.h"

#define NODES		3
#define LOCKS		8
#define DESCS		RDMALOCK_DEFAULT_DESCRIPTORS

static void word_fields_round_trip(struct kunit *test)
{
	int i;

	for (i = 0; i < 1000; i++) {
		u32 rel = get_random_u32(), rdr = get_random_u32() & 0x7fff;
		u32 tail = get_random_u32() & 0xffff;
		bool epoch = get_random_u32() & 1;
		u64 w = sl_word(rel, epoch, rdr, tail);

		KUNIT_EXPECT_EQ(test, sl_rel(w), rel);
		KUNIT_EXPECT_EQ(test, sl_epoch(w), epoch);
		KUNIT_EXPECT_EQ(test, sl_rdr(w), rdr);
		KUNIT_EXPECT_EQ(test, sl_tail(w), tail);
	}
	/*
	 * No writer is TailId 0; every descriptor of every node is another,
	 * in a domain as large as the word allows.
	 */
	for (i = 0; i < 1000; i++) {
		u32 nodes = 1 + get_random_u32() % RDMALOCK_MAX_NODES, node;
		u32 descs = SL_DESCS_MAX / nodes, idx;
		u32 n = get_random_u32() % nodes;
		u32 d = get_random_u32() % descs;

		sl_tail_desc(descs, sl_tail_id(descs, n, d), &node, &idx);
		KUNIT_EXPECT_EQ(test, node, n);
		KUNIT_EXPECT_EQ(test, idx, d);
		KUNIT_EXPECT_LE(test, sl_tail_id(descs, nodes - 1, descs - 1),
				SL_DESCS_MAX);
	}
	KUNIT_EXPECT_EQ(test, sl_tail_id(DESCS, 0, 0), 1);
	KUNIT_EXPECT_EQ(test, sl_tail_id(DESCS, RDMALOCK_MAX_NODES - 1, DESCS - 1),
			RDMALOCK_MAX_NODES * DESCS);
}

/* Plain 8-byte FAA does each step with no carry into a neighbour field. */
static void faa_addends_touch_their_fields_only(struct kunit *test)
{
	static const u32 rels[] = { 0, 1, 0x7fffffff, 0xfffffffe, 0xffffffff };
	int i, e;

	for (i = 0; i < ARRAY_SIZE(rels); i++) {
		for (e = 0; e < 2; e++) {
			u64 w = sl_word(rels[i], e, 1, 77), r;

			r = w + SL_ADD_READER;
			KUNIT_EXPECT_EQ(test, r, sl_word(rels[i], e, 2, 77));
			/* The last reader leaves: RdrCnt 0, RelCnt wraps modulo 2^32. */
			r = w + SL_ADD_READER_DONE;
			KUNIT_EXPECT_EQ(test, r, sl_word(rels[i] + 1, e, 0, 77));
			r = w + SL_ADD_HANDOVER;
			KUNIT_EXPECT_EQ(test, r, sl_word(rels[i] + 1, e, 1, 77));
			r = w + sl_add_flip(e);
			KUNIT_EXPECT_EQ(test, r, sl_word(rels[i] + 1, !e, 1, 77));
		}
	}
}

/*
 * The home node's FAA when it alone changes TailId: whatever RdrCnt the
 * readers' FAAs left, only TailId changes, or for the release RelCnt and
 * the epoch too, as the CAS it stands for would have changed them.
 */
static void home_addends_at(struct kunit *test, u32 tail, u32 me, u32 rdr)
{
	const u32 rel = 0xffffffff;
	int e;

	for (e = 0; e < 2; e++) {
		u64 w = sl_word(rel, e, rdr, tail);

		KUNIT_EXPECT_EQ(test, w + sl_add_enqueue(tail, me), sl_word(rel, e, rdr, me));
		KUNIT_EXPECT_EQ(test, w + sl_add_release(e, tail), sl_word(rel + 1, !e, rdr, 0));
	}
}

static void home_addends_match_the_cas(struct kunit *test)
{
	static const u32 tails[] = { 0, 1, 2, 77, SL_TAIL - 1, SL_TAIL };
	static const u32 rdrs[] = { 0, 1, (SL_RDR >> 16) - 1 };
	int i, j, k;

	for (i = 0; i < ARRAY_SIZE(tails); i++)
		for (j = 0; j < ARRAY_SIZE(tails); j++)
			for (k = 0; k < ARRAY_SIZE(rdrs); k++)
				home_addends_at(test, tails[i], tails[j], rdrs[k]);
}

static void relcnt_compares_modulo_2_32(struct kunit *test)
{
	u32 base;
	int i;

	for (i = 0; i < 1000; i++) {
		base = i < 3 ? (u32)-i : get_random_u32();
		/* Every reader of a lock releasing between two looks: no leap. */
		KUNIT_EXPECT_FALSE(test, sl_leaped(base + SL_DESCS_MAX, base));
		KUNIT_EXPECT_FALSE(test, sl_leaped(base, base));
		/* A reset, wherever RelCnt stood, and across the wrap. */
		KUNIT_EXPECT_TRUE(test, sl_leaped(sl_rel(sl_reset_word(sl_word(base, 1, 5, 9))),
						  base));
		KUNIT_EXPECT_EQ(test, sl_reset_word(sl_word(base, 1, 5, 9)),
				sl_word(base + SL_LEAP, 0, 0, 0));
	}
}

/*
 * Spec E2: the printed Alg. 2 nests "else if RdrCnt != 0" under the
 * Handover branch, so a writer that finds readers and no writer would
 * enter at once, with the readers inside. It must wait until RelCnt
 * shows them gone; behind a writer, the readers are that writer's care.
 */
static void writer_behind_readers_waits_for_them(struct kunit *test)
{
	u32 target = 0;

	KUNIT_EXPECT_EQ(test, rdmalock_sl_after_enqueue(sl_word(7, 0, 3, 0), &target),
			SL_BEHIND_READERS);
	KUNIT_EXPECT_EQ(test, target, 10);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_after_enqueue(sl_word(U32_MAX, 1, 2, 0), &target),
			SL_BEHIND_READERS);
	KUNIT_EXPECT_EQ(test, target, 1);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_after_enqueue(sl_word(7, 0, 3, 5), &target),
			SL_BEHIND_WRITER);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_after_enqueue(sl_word(7, 1, 0, 0), &target),
			SL_FREE);
}

/*
 * Spec E10: the paper's proof says a writer waits until RdrCnt is zero,
 * but readers that came after it wait in RdrCnt for it; it is admitted
 * when RelCnt reaches its target.
 */
static void writer_admitted_by_relcnt_not_rdrcnt(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rdmalock_sl_writer_poll(sl_word(10, 0, 4, 5), 10, 9),
			SL_ADMITTED);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_writer_poll(sl_word(9, 0, 0, 5), 10, 9),
			SL_WAIT);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_writer_poll(sl_word(9 + SL_LEAP, 0, 0, 0), 10, 9),
			SL_RESET);
}

/*
 * Spec E9: a reset clears the epoch, so a reader that waits for the
 * epoch to change from 1 would take the reset for its admission. The
 * leap is tested first.
 */
static void reader_sees_reset_before_epoch(struct kunit *test)
{
	u64 reset = sl_reset_word(sl_word(41, 1, 6, 3));

	KUNIT_EXPECT_EQ(test, rdmalock_sl_reader_poll(reset, 1, 41), SL_RESET);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_reader_poll(sl_word(42, 0, 6, 3), 1, 41),
			SL_ADMITTED);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_reader_poll(sl_word(41, 1, 7, 3), 1, 41),
			SL_WAIT);
}

/*
 * Spec E4: W0 holds, W1 and W2 queue, W2's swap returns epoch 0; W0 is
 * the batch's last writer and flips to 1 for the readers, which come and
 * go; W1 then W2 get the lock. The printed Handover carries no epoch, so
 * W2 would release with its stale 0 and "flip" to 1, no change at all:
 * the readers that queued since W0's flip would never be admitted. With
 * the epoch from the message, W2's release flips to 0 and admits them.
 */
static void handover_carries_the_epoch(struct kunit *test)
{
	bool swap_epoch = false, msg_epoch = true;
	u32 rel = 100;
	u64 entry = sl_word(rel, msg_epoch, 4, sl_tail_id(DESCS, 1, 2));
	u64 released = sl_word(rel + 1, !msg_epoch, sl_rdr(entry), 0);
	u64 printed = sl_word(rel + 1, !swap_epoch, sl_rdr(entry), 0);

	KUNIT_EXPECT_EQ(test, rdmalock_sl_reader_poll(released, sl_epoch(entry), rel),
			SL_ADMITTED);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_reader_poll(printed, sl_epoch(entry), rel),
			SL_WAIT);
}

/*
 * Spec E5: the artifact hands over without touching RelCnt, so a chain of
 * healthy writers looks like a stalled lock to the failure detector. The
 * hand-over adds one, and the successor's RelCnt is the word's.
 */
static void handover_moves_relcnt(struct kunit *test)
{
	u64 w = sl_word(500, 0, 0, 7);

	KUNIT_EXPECT_NE(test, SL_ADD_HANDOVER, 0);
	KUNIT_EXPECT_EQ(test, sl_rel(w + SL_ADD_HANDOVER), 501);
	KUNIT_EXPECT_TRUE(test, sl_rel(w + SL_ADD_HANDOVER) != sl_rel(w));
}

/* Spec E7/E8: the batch-th writer in a row flips (the artifact's count). */
static void batch_th_writer_flips(struct kunit *test)
{
	u32 cons;

	for (cons = 0; cons < 15; cons++)
		KUNIT_EXPECT_FALSE_MSG(test, rdmalock_sl_must_flip(cons, 16), "cons %u", cons);
	KUNIT_EXPECT_TRUE(test, rdmalock_sl_must_flip(15, 16));
	KUNIT_EXPECT_TRUE(test, rdmalock_sl_must_flip(0, 1));
}

/*
 * Spec H2: the artifact reads the era after the window in which RelCnt
 * stood still, so a request can carry the era of another waiter's reset
 * and reset a lock that is held again. The home node resets only in the
 * era the waiter saw when RelCnt last moved, and only if RelCnt has not
 * moved since; readers arriving meanwhile do not stop it.
 */
static void reset_needs_same_era_and_relcnt(struct kunit *test)
{
	u64 stuck = sl_word(33, 1, 2, 9);

	KUNIT_EXPECT_TRUE(test, rdmalock_sl_reset_ok(4, 4, stuck, 33));
	KUNIT_EXPECT_TRUE(test, rdmalock_sl_reset_ok(4, 4, stuck + SL_ADD_READER, 33));
	KUNIT_EXPECT_FALSE(test, rdmalock_sl_reset_ok(5, 4, stuck, 33));
	KUNIT_EXPECT_FALSE(test, rdmalock_sl_reset_ok(4, 4, stuck + SL_ADD_HANDOVER, 33));
	KUNIT_EXPECT_FALSE(test, rdmalock_sl_reset_ok(4, 4, sl_reset_word(stuck), 33));
}

/*
 * The writer's release CAS of §2.9 stops when TailId is no longer its
 * own, or when RelCnt or the epoch moved (a reset). A reset also clears
 * TailId, so a release that tests TailId first takes a reset for a
 * successor and waits for a Successor message that never comes. Readers
 * that arrived meanwhile (RdrCnt) leave the lock its holder's.
 */
static void release_sees_reset_before_successor(struct kunit *test)
{
	u32 me = sl_tail_id(DESCS, 1, 4);
	u64 held = sl_word(70, 0, 3, me);

	KUNIT_EXPECT_EQ(test, rdmalock_sl_release_outcome(held, 70, 0, me), SL_MINE);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_release_outcome(held + 5 * SL_ADD_READER,
							  70, 0, me), SL_MINE);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_release_outcome(sl_word(70, 0, 3, me + 1),
							  70, 0, me), SL_QUEUED);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_release_outcome(sl_reset_word(held), 70, 0, me),
			SL_RESET);
	KUNIT_EXPECT_NE(test, sl_tail(sl_reset_word(held)), me);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_release_outcome(sl_word(70, 1, 3, me), 70, 0, me),
			SL_RESET);
}

static void msg_fill(struct rdmalock_sl_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->slot_off = cpu_to_be64(rdmalock_table_offset(LOCKS - 1));
	m->who = cpu_to_be64(rdmalock_desc_encode(2, 5, 7));
	m->home = cpu_to_be32(1);
	m->desc = cpu_to_be32(DESCS - 1);
	m->epoch = 1;
}

/* Node 1 of a domain of NODES nodes, LOCKS slots and DESCS descriptors. */
static const struct rdmalock_lockspace msg_ls = {
	.num_nodes = NODES,
	.locks_per_node = LOCKS,
	.descs = DESCS,
	.self = 1,
};

static int msg_check(u8 type, const struct rdmalock_sl_msg *m, u32 len)
{
	return rdmalock_sl_msg_check(&msg_ls, type, m, len);
}

static void msg_valid_is_accepted(struct kunit *test)
{
	struct rdmalock_sl_msg m;
	u8 type;

	msg_fill(&m);
	for (type = SL_MSG_SUCCESSOR; type <= SL_MSG_TRY; type++)
		KUNIT_EXPECT_EQ_MSG(test, msg_check(type, &m, sizeof(m)), 0, "type %u", type);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_UPGRADE, &m, sizeof(m)), 0);
}

static void msg_each_bad_field_is_rejected(struct kunit *test)
{
	struct rdmalock_sl_msg m;

	msg_fill(&m);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_HANDOVER, &m, sizeof(m) - 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_RESET - 4, &m, sizeof(m)), -EINVAL);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_TRY + 1, &m, sizeof(m)), -EINVAL);
	m.pad = 1;
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_HANDOVER, &m, sizeof(m)), -EINVAL);
	/* Any view passes the check; the receiver compares it with its own. */
	msg_fill(&m);
	m.view = cpu_to_be16(U16_MAX);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_HANDOVER, &m, sizeof(m)), 0);
	msg_fill(&m);
	m.epoch = 2;
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_HANDOVER, &m, sizeof(m)), -EINVAL);
	msg_fill(&m);
	m.home = cpu_to_be32(NODES);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_HANDOVER, &m, sizeof(m)), -EINVAL);
	msg_fill(&m);
	m.slot_off = cpu_to_be64(rdmalock_table_offset(LOCKS));
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_MODE_CHANGED, &m, sizeof(m)), -EINVAL);
	m.slot_off = cpu_to_be64(rdmalock_table_offset(0) - RDMALOCK_SLOT_SIZE);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_MODE_CHANGED, &m, sizeof(m)), -EINVAL);
	m.slot_off = cpu_to_be64(rdmalock_table_offset(1) + 8);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_MODE_CHANGED, &m, sizeof(m)), -EINVAL);
	msg_fill(&m);
	m.desc = cpu_to_be32(DESCS);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_HANDOVER, &m, sizeof(m)), -EINVAL);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_ENQUEUE, &m, sizeof(m)), -EINVAL);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_TRY, &m, sizeof(m)), -EINVAL);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_UPGRADE, &m, sizeof(m)), -EINVAL);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_DONE, &m, sizeof(m)), -EINVAL);
	msg_fill(&m);
	m.who = cpu_to_be64(rdmalock_desc_encode(NODES, 5, 7));
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_SUCCESSOR, &m, sizeof(m)), -EINVAL);
	m.who = 0;
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_SUCCESSOR, &m, sizeof(m)), -EINVAL);
	/* Requests are for the lock's home node only. */
	msg_fill(&m);
	m.home = cpu_to_be32(2);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_RESET, &m, sizeof(m)), -EINVAL);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_ENQUEUE, &m, sizeof(m)), -EINVAL);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_TRY, &m, sizeof(m)), -EINVAL);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_RELEASE, &m, sizeof(m)), -EINVAL);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_UPGRADE, &m, sizeof(m)), -EINVAL);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_HANDOVER, &m, sizeof(m)), 0);
	KUNIT_EXPECT_EQ(test, msg_check(SL_MSG_DONE, &m, sizeof(m)), 0);
}

/*
 * Recovery through views: a message of another view, or one that comes
 * while the gate is shut, is for a queue the view change reset; under
 * leases there are no views, and every message counts.
 */
static void msg_of_another_view_is_dropped(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, rdmalock_sl_msg_current(true, false, 7, 7));
	KUNIT_EXPECT_FALSE(test, rdmalock_sl_msg_current(true, false, 6, 7));
	KUNIT_EXPECT_FALSE(test, rdmalock_sl_msg_current(true, false, 8, 7));
	KUNIT_EXPECT_FALSE(test, rdmalock_sl_msg_current(true, true, 7, 7));
	/* The epoch's low bits wrap; only equality counts. */
	KUNIT_EXPECT_TRUE(test, rdmalock_sl_msg_current(true, false, 0, 0));
	KUNIT_EXPECT_FALSE(test, rdmalock_sl_msg_current(true, false, U16_MAX, 0));
	KUNIT_EXPECT_TRUE(test, rdmalock_sl_msg_current(false, false, 6, 7));
	KUNIT_EXPECT_TRUE(test, rdmalock_sl_msg_current(false, true, 6, 7));
}

/*
 * A writer holder claims, on the reset (zero) word, itself as TailId with
 * RelCnt 0 and epoch 0, which its release expects: a release with no
 * successor clears TailId, counts itself and flips the epoch, whichever
 * readers came meanwhile; one with a successor finds it queued.
 */
static void claimed_writer_releases_as_it_expects(struct kunit *test)
{
	const u32 me = sl_tail_id(DESCS, 2, 9), other = sl_tail_id(DESCS, 0, 3);
	u64 w = sl_claim_word(me);
	u32 target = 0;

	KUNIT_EXPECT_EQ(test, sl_tail(w), me);
	KUNIT_EXPECT_EQ(test, sl_rdr(w), 0);
	KUNIT_EXPECT_EQ(test, sl_rel(w), 0);
	KUNIT_EXPECT_FALSE(test, sl_epoch(w));
	KUNIT_EXPECT_EQ(test, rdmalock_sl_claim_outcome(0, true), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_release_outcome(w, 0, false, me), SL_MINE);
	/* Readers that came after the claim wait for it; its release admits them. */
	w += 3 * SL_ADD_READER;
	KUNIT_EXPECT_EQ(test, rdmalock_sl_release_outcome(w, 0, false, me), SL_MINE);
	KUNIT_EXPECT_EQ(test, w + sl_add_release(false, me), sl_word(1, true, 3, 0));
	KUNIT_EXPECT_EQ(test, rdmalock_sl_reader_poll(w + sl_add_release(false, me),
						      false, 0), SL_ADMITTED);
	/* A writer that queued after it waits for its hand-over. */
	KUNIT_EXPECT_EQ(test, rdmalock_sl_after_enqueue(w, &target), SL_BEHIND_WRITER);
	w += sl_add_enqueue(me, other);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_release_outcome(w, 0, false, me), SL_QUEUED);
	KUNIT_EXPECT_EQ(test, w + SL_ADD_HANDOVER, sl_word(1, false, 3, other));
}

/*
 * Reader holders claim by counting themselves in RdrCnt; their releases
 * count them out, and a writer that queues behind them waits for exactly
 * those releases.
 */
static void claimed_readers_release_as_they_expect(struct kunit *test)
{
	u64 w = 0, old;
	u32 target = 0;
	int i;

	for (i = 0; i < 3; i++) {
		old = w;
		w += SL_ADD_READER;
		KUNIT_EXPECT_EQ(test, rdmalock_sl_claim_outcome(old, false), 0);
	}
	KUNIT_EXPECT_EQ(test, w, sl_word(0, false, 3, 0));
	KUNIT_EXPECT_EQ(test, rdmalock_sl_after_enqueue(w, &target), SL_BEHIND_READERS);
	KUNIT_EXPECT_EQ(test, target, 3);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, rdmalock_sl_writer_poll(w, target, sl_rel(w)), SL_WAIT);
		w += SL_ADD_READER_DONE;
	}
	KUNIT_EXPECT_EQ(test, rdmalock_sl_writer_poll(w, target, 0), SL_ADMITTED);
	KUNIT_EXPECT_EQ(test, w, sl_word(3, false, 0, 0));
}

/*
 * Readers and writers never hold together, nor two writers: a claim that
 * finds the other kind reports a second holder (and a reader's is undone).
 */
static void claim_finds_a_second_holder(struct kunit *test)
{
	const u32 me = sl_tail_id(DESCS, 1, 4);
	u64 w;

	KUNIT_EXPECT_EQ(test, rdmalock_sl_claim_outcome(sl_claim_word(me), true), -EBUSY);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_claim_outcome(sl_word(0, false, 1, 0), true),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_claim_outcome(sl_claim_word(me), false), -EBUSY);
	KUNIT_EXPECT_EQ(test, rdmalock_sl_claim_outcome(sl_word(0, false, 2, 0), false), 0);
	/* The undo: the reader's FAA taken back leaves the writer's word. */
	w = sl_claim_word(me) + SL_ADD_READER;
	KUNIT_EXPECT_EQ(test, w + (u64)-SL_ADD_READER, sl_claim_word(me));
}

static void msg_random_never_crashes(struct kunit *test)
{
	u8 *buf = kunit_kmalloc(test, 2 * sizeof(struct rdmalock_sl_msg), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < 2000; i++) {
		u32 len = get_random_u32() % (2 * sizeof(struct rdmalock_sl_msg) + 1);

		get_random_bytes(buf, len);
		rdmalock_sl_msg_check(&msg_ls, SL_MSG_SUCCESSOR + i % 8, buf, len);
	}
}

static struct kunit_case rdmalock_shiftlock_cases[] = {
	KUNIT_CASE(word_fields_round_trip),
	KUNIT_CASE(faa_addends_touch_their_fields_only),
	KUNIT_CASE(home_addends_match_the_cas),
	KUNIT_CASE(relcnt_compares_modulo_2_32),
	KUNIT_CASE(writer_behind_readers_waits_for_them),
	KUNIT_CASE(writer_admitted_by_relcnt_not_rdrcnt),
	KUNIT_CASE(reader_sees_reset_before_epoch),
	KUNIT_CASE(handover_carries_the_epoch),
	KUNIT_CASE(handover_moves_relcnt),
	KUNIT_CASE(batch_th_writer_flips),
	KUNIT_CASE(reset_needs_same_era_and_relcnt),
	KUNIT_CASE(release_sees_reset_before_successor),
	KUNIT_CASE(msg_valid_is_accepted),
	KUNIT_CASE(msg_each_bad_field_is_rejected),
	KUNIT_CASE(msg_random_never_crashes),
	KUNIT_CASE(msg_of_another_view_is_dropped),
	KUNIT_CASE(claimed_writer_releases_as_it_expects),
	KUNIT_CASE(claimed_readers_release_as_they_expect),
	KUNIT_CASE(claim_finds_a_second_holder),
	{}
};

static struct kunit_suite rdmalock_shiftlock_suite = {
	.name = "rdmalock_shiftlock",
	.test_cases = rdmalock_shiftlock_cases,
};

kunit_test_suite(rdmalock_shiftlock_suite);

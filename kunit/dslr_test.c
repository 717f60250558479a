// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: DSLR's lock word, the decisions its requesters take, each erratum
 * of the spec (shared/specs/dslr.md §8) that a view-recovered DSLR meets,
 * against what the printed pseudocode would do, conversions in place, the
 * stall resets of lease recovery on a clock of the test's own, and the
 * protocol of dslr.c run by threads on a word in memory, whose overflow
 * resets often, converting as they hold.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/random.h>

#include "dslr.h"

/* A lock word in memory; the CPU's atomics stand in for the NIC's. */
struct mem_word {
	atomic64_t word;
	/* Called before each CAS: a test's way to act between two verbs. */
	void (*before_cas)(struct mem_word *m);
	/* What ticket_slips_in() adds. */
	u64 slip;
	/* A ticket's FAA that lies: every ticket looks granted at once. */
	bool lying_ticket;
	atomic_t zeroed;
	/* The clock at the last zeroing. */
	u64 zeroed_at;
	/* Lease recovery's clock, in ns: each pause moves it on, if timed. */
	u64 clock;
	bool timed;
	/* Pauses before one fails with -ETIMEDOUT; 0 for no limit. */
	unsigned int pauses_left;
	/* Called at each pause: a test's way to move the word meanwhile. */
	void (*at_pause)(struct mem_word *m);
	/* Tickets at_pause works on, and how far it got. */
	u64 *line;
	unsigned int line_len;
	unsigned int line_next;
	/* Pauses so far. */
	atomic_t pauses;
	atomic_t xholders;
	atomic_t sholders;
	atomic_t violations;
};

static int mem_faa(void *ctx, u64 add, u64 *old)
{
	struct mem_word *m = ctx;

	*old = atomic64_fetch_add(add, &m->word);
	if (m->lying_ticket && (add == dslr_ticket_add(true) ||
				add == dslr_ticket_add(false)))
		*old = dslr_word(dslr_mx(*old), dslr_ms(*old), dslr_mx(*old),
				 dslr_ms(*old));
	return 0;
}

static int mem_cas(void *ctx, u64 expected, u64 desired, u64 *old)
{
	struct mem_word *m = ctx;

	if (m->before_cas)
		m->before_cas(m);
	*old = atomic64_cmpxchg(&m->word, expected, desired);
	if (*old == expected && !desired) {
		atomic_inc(&m->zeroed);
		m->zeroed_at = m->clock;
	}
	return 0;
}

static int mem_read(void *ctx, u64 *val)
{
	struct mem_word *m = ctx;

	*val = atomic64_read(&m->word);
	return 0;
}

static int mem_pause(void *ctx, unsigned int us, bool bounced)
{
	struct mem_word *m = ctx;

	atomic_inc(&m->pauses);
	if (m->pauses_left && !--m->pauses_left)
		return -ETIMEDOUT;
	if (m->timed)
		m->clock += us * NSEC_PER_USEC;
	if (m->at_pause)
		m->at_pause(m);
	else
		usleep_range(1, 2);
	return 0;
}

static u64 mem_now(void *ctx)
{
	return ((struct mem_word *)ctx)->clock;
}

static struct rdmalock_dslr_io mem_io(struct mem_word *m)
{
	return (struct rdmalock_dslr_io){
		.faa = mem_faa, .cas = mem_cas, .read = mem_read,
		.pause = mem_pause, .now = mem_now, .ctx = m,
	};
}

/* The lease of the lease recovery tests, on the test's clock. */
#define TEST_LEASE_NS	(10 * NSEC_PER_MSEC)

static struct rdmalock_dslr_io lease_io(struct mem_word *m)
{
	struct rdmalock_dslr_io io = mem_io(m);

	m->timed = true;
	io.stall = 2 * TEST_LEASE_NS;
	return io;
}

/* INV-6, INV-8: no n field above its max field, no field wrapped. */
static bool well_formed(u64 v, u32 count_max)
{
	return dslr_nx(v) <= dslr_mx(v) && dslr_ns(v) <= dslr_ms(v) &&
	       dslr_nx(v) <= count_max && dslr_ns(v) <= count_max;
}

static void word_fields_and_addends(struct kunit *test)
{
	int i;

	for (i = 0; i < 1000; i++) {
		u16 nx = get_random_u32(), ns = get_random_u32();
		u16 mx = get_random_u32(), ms = get_random_u32();
		u64 v = dslr_word(nx, ns, mx, ms);

		KUNIT_EXPECT_EQ(test, dslr_nx(v), nx);
		KUNIT_EXPECT_EQ(test, dslr_ns(v), ns);
		KUNIT_EXPECT_EQ(test, dslr_mx(v), mx);
		KUNIT_EXPECT_EQ(test, dslr_ms(v), ms);
	}
	/* §3.3: each fetch-and-add moves its own field by one. */
	KUNIT_EXPECT_EQ(test, dslr_ticket_add(true), dslr_word(0, 0, 0, 1));
	KUNIT_EXPECT_EQ(test, dslr_ticket_add(false), dslr_word(0, 0, 1, 0));
	KUNIT_EXPECT_EQ(test, dslr_release_add(true), dslr_word(0, 1, 0, 0));
	KUNIT_EXPECT_EQ(test, dslr_release_add(false), dslr_word(1, 0, 0, 0));
}

/* §4.4's figure 4: an exclusive ticket behind three readers. */
static void exclusive_waits_for_readers_before_it(struct kunit *test)
{
	u64 prev = dslr_word(1, 1, 1, 4);

	KUNIT_EXPECT_EQ(test, rdmalock_dslr_ticket(prev, false, DSLR_COUNT_MAX),
			DSLR_TICKET_WAIT);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_ahead(prev, prev), 3);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_poll(prev, false, dslr_word(1, 3, 2, 4)),
			DSLR_POLL_WAIT);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_poll(prev, false, dslr_word(1, 4, 2, 5)),
			DSLR_POLL_GRANTED);
	/* A reader behind the same readers is granted at once. */
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_ticket(prev, true, DSLR_COUNT_MAX),
			DSLR_TICKET_GRANTED);
}

/* The printed Alg. 1 l. 12/26, reached after a bounce (D1). */
static enum rdmalock_dslr_ticket printed_ticket(u64 prev, bool sh, u32 count_max)
{
	bool granted = dslr_nx(prev) == dslr_mx(prev) &&
		       (sh || dslr_ns(prev) == dslr_ms(prev));

	return granted ? DSLR_TICKET_GRANTED : DSLR_TICKET_WAIT;
}

/* D1: a ticket from a frozen word is none, however free the word looks. */
static bool d1_holds(enum rdmalock_dslr_ticket (*decide)(u64, bool, u32))
{
	u64 drained = dslr_word(4, 2, 4, 2);

	return decide(drained, false, 4) == DSLR_TICKET_FROZEN &&
	       decide(drained, true, 4) == DSLR_TICKET_FROZEN;
}

static void d1_a_frozen_ticket_is_no_ticket(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, d1_holds(rdmalock_dslr_ticket));
	KUNIT_EXPECT_FALSE(test, d1_holds(printed_ticket));
}

/* The printed Alg. 2 l. 3-10: one skip test for both modes (D2). */
static enum rdmalock_dslr_poll printed_poll(u64 prev, bool sh, u64 val)
{
	if (dslr_mx(prev) < dslr_nx(val) || dslr_ms(prev) < dslr_ns(val))
		return DSLR_POLL_SKIPPED;
	if (dslr_nx(val) == dslr_mx(prev) && (sh || dslr_ns(val) == dslr_ms(prev)))
		return DSLR_POLL_GRANTED;
	return DSLR_POLL_WAIT;
}

/*
 * D2's trace (shared_skip_trace.py): E holds X, S1 and S2 queue shared, E
 * releases, S2 is granted and releases before S1 polls. S1 must be
 * granted, not failed: failed, it never releases, and the next writer
 * waits for its slot for ever.
 */
static bool d2_holds(enum rdmalock_dslr_poll (*poll)(u64, bool, u64))
{
	struct mem_word m = { .word = ATOMIC64_INIT(0) };
	struct rdmalock_dslr_io io = mem_io(&m);
	u64 e, s1, s2;

	mem_faa(&m, dslr_ticket_add(false), &e);
	mem_faa(&m, dslr_ticket_add(true), &s1);
	mem_faa(&m, dslr_ticket_add(true), &s2);
	if (rdmalock_dslr_give(&io, false, DSLR_COUNT_MAX, e) ||
	    poll(s2, true, atomic64_read(&m.word)) != DSLR_POLL_GRANTED ||
	    rdmalock_dslr_give(&io, true, DSLR_COUNT_MAX, s2))
		return false;
	return poll(s1, true, atomic64_read(&m.word)) == DSLR_POLL_GRANTED;
}

static void d2_a_reader_passed_by_later_readers_is_granted(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, d2_holds(rdmalock_dslr_poll));
	KUNIT_EXPECT_FALSE(test, d2_holds(printed_poll));
}

/* D11: a max field below the ticket's own increment: the word was zeroed. */
static void d11_a_zeroed_word_skips_the_ticket(struct kunit *test)
{
	u64 prev = dslr_word(3, 1, 5, 2);

	KUNIT_EXPECT_EQ(test, rdmalock_dslr_poll(prev, false, dslr_word(0, 0, 1, 0)),
			DSLR_POLL_SKIPPED);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_poll(prev, true, dslr_word(0, 0, 0, 0)),
			DSLR_POLL_SKIPPED);
	/* Its own increment, and nothing else, is no regression. */
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_poll(prev, false, dslr_word(3, 1, 6, 2)),
			DSLR_POLL_WAIT);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_poll(prev, true, dslr_word(3, 1, 5, 3)),
			DSLR_POLL_WAIT);
}

/* The word is zeroed between a bouncer's increment and its undo. */
static void zero_under_the_bouncer(struct mem_word *m)
{
	m->before_cas = NULL;
	atomic64_set(&m->word, 0);
}

/*
 * D3: the printed undo, FA(-1), of a bounce whose word was zeroed in
 * between borrows from every field above; dslr.c's undo by CAS finds the
 * word changed and no longer frozen, leaves it alone, and takes a real
 * ticket from it.
 */
static void d3_an_undo_never_borrows(struct kunit *test)
{
	struct mem_word m = { .word = ATOMIC64_INIT(dslr_word(1, 0, 4, 0)),
			      .before_cas = zero_under_the_bouncer };
	struct rdmalock_dslr_io io = mem_io(&m);
	u64 prev, printed = 0;

	KUNIT_EXPECT_EQ(test, rdmalock_dslr_take(&io, false, 4, false, &prev), 0);
	KUNIT_EXPECT_EQ(test, prev, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), dslr_ticket_add(false));

	printed -= dslr_ticket_add(false);
	KUNIT_EXPECT_FALSE(test, well_formed(printed, 4));
}

/*
 * The overflow reset: the release that drains a frozen word zeroes it; a
 * release that leaves a ticket behind does not.
 */
static void the_drained_frozen_word_is_zeroed(struct kunit *test)
{
	struct mem_word m = { .word = ATOMIC64_INIT(0) };
	struct rdmalock_dslr_io io = mem_io(&m);
	u64 e1, e2, nope;

	KUNIT_ASSERT_EQ(test, rdmalock_dslr_take(&io, false, 2, false, &e1), 0);
	mem_faa(&m, dslr_ticket_add(false), &e2);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_ticket(e2, false, 2), DSLR_TICKET_WAIT);
	/* Frozen now: a trylock is refused at once, and takes nothing. */
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_take(&io, true, 2, true, &nope), -EAGAIN);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_give(&io, false, 2, e1), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), dslr_word(1, 0, 2, 0));
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_poll(e2, false, atomic64_read(&m.word)),
			DSLR_POLL_GRANTED);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_give(&io, false, 2, e2), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&m.zeroed), 1);
}

/* The last release comes while a bouncer's increment is in the word. */
static void release_under_the_bouncer(struct mem_word *m)
{
	struct rdmalock_dslr_io io = mem_io(m);

	m->before_cas = NULL;
	rdmalock_dslr_give(&io, false, 2, dslr_word(0, 0, 1, 0));
}

/*
 * That release cannot zero the word (the bouncer's increment keeps it
 * from draining); the bouncer's undo drains it and zeroes it, and its
 * retry gets the first ticket of the new epoch.
 */
static void the_last_undo_zeroes_the_word(struct kunit *test)
{
	struct mem_word m = { .word = ATOMIC64_INIT(dslr_word(1, 0, 2, 0)),
			      .before_cas = release_under_the_bouncer };
	struct rdmalock_dslr_io io = mem_io(&m);
	u64 prev;

	KUNIT_EXPECT_EQ(test, rdmalock_dslr_take(&io, true, 2, false, &prev), 0);
	KUNIT_EXPECT_EQ(test, prev, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&m.zeroed), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), dslr_ticket_add(true));
}

/*
 * D10: a release that finds its slot accounted already says so, and
 * takes its count back: the word is as it was.
 */
static void d10_a_release_checks_its_own_slot(struct kunit *test)
{
	struct mem_word m = { .word = ATOMIC64_INIT(dslr_word(2, 1, 3, 1)) };
	struct rdmalock_dslr_io io = mem_io(&m);

	KUNIT_EXPECT_TRUE(test, rdmalock_dslr_own_slot(dslr_word(0, 0, 2, 1), false,
						       dslr_word(2, 1, 3, 1)));
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_give(&io, false, DSLR_COUNT_MAX,
						 dslr_word(0, 0, 1, 1)), -ETIME);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), dslr_word(2, 1, 3, 1));
}

/* A ticket taken by a bare FAA, for a requester that would wait. */
static u64 raw_ticket(struct mem_word *m, bool sh)
{
	return atomic64_fetch_add(dslr_ticket_add(sh), &m->word);
}

static enum rdmalock_dslr_poll poll_now(struct mem_word *m, u64 prev, bool sh)
{
	return rdmalock_dslr_poll(prev, sh, atomic64_read(&m->word));
}

/*
 * A writer converted down shares the lock with the readers queued behind
 * it, at once; a writer that comes later waits for all of them.
 */
static void downgrade_admits_the_readers_behind(struct kunit *test)
{
	struct mem_word m = { .word = ATOMIC64_INIT(0) };
	struct rdmalock_dslr_io io = mem_io(&m);
	u64 prev, reader, writer;

	KUNIT_ASSERT_EQ(test, rdmalock_dslr_take(&io, false, DSLR_COUNT_MAX, false,
						 &prev), 0);
	reader = raw_ticket(&m, true);
	KUNIT_EXPECT_EQ(test, poll_now(&m, reader, true), DSLR_POLL_WAIT);
	KUNIT_ASSERT_EQ(test, rdmalock_dslr_convert(&io, true, DSLR_COUNT_MAX, &prev), 0);
	KUNIT_EXPECT_EQ(test, poll_now(&m, reader, true), DSLR_POLL_GRANTED);
	writer = raw_ticket(&m, false);
	KUNIT_EXPECT_EQ(test, poll_now(&m, writer, false), DSLR_POLL_WAIT);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_give(&io, true, DSLR_COUNT_MAX, prev), 0);
	KUNIT_EXPECT_EQ(test, poll_now(&m, writer, false), DSLR_POLL_WAIT);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_give(&io, true, DSLR_COUNT_MAX, reader), 0);
	KUNIT_EXPECT_EQ(test, poll_now(&m, writer, false), DSLR_POLL_GRANTED);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_give(&io, false, DSLR_COUNT_MAX, writer), 0);
	KUNIT_EXPECT_TRUE(test, rdmalock_dslr_drained(atomic64_read(&m.word)));
}

/*
 * Behind a waiting writer a shared ticket taken now would come after it:
 * the writer would be granted while the converted holder still reads.
 * The downgrade keeps its exclusive ticket instead, and the word as it
 * was; the unguarded CAS shows what it avoids.
 */
static void downgrade_behind_a_writer_keeps_the_exclusive_ticket(struct kunit *test)
{
	struct mem_word m = { .word = ATOMIC64_INIT(0) };
	struct rdmalock_dslr_io io = mem_io(&m);
	u64 prev, kept, writer, before;

	KUNIT_ASSERT_EQ(test, rdmalock_dslr_take(&io, false, DSLR_COUNT_MAX, false,
						 &prev), 0);
	writer = raw_ticket(&m, false);
	raw_ticket(&m, true);
	before = atomic64_read(&m.word);
	kept = prev;
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_convert(&io, true, DSLR_COUNT_MAX, &prev), -EAGAIN);
	KUNIT_EXPECT_EQ(test, prev, kept);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), before);
	KUNIT_EXPECT_EQ(test, poll_now(&m, writer, false), DSLR_POLL_WAIT);

	atomic64_add(dslr_release_add(false) + dslr_ticket_add(true), &m.word);
	KUNIT_EXPECT_EQ(test, poll_now(&m, writer, false), DSLR_POLL_GRANTED);
}

/*
 * COUNT_MAX 2. A frozen word takes no ticket, a converted one included:
 * the readers that come later would not join ours, only wait for its
 * release. Frozen by max_X (our own ticket) or by max_S (the readers
 * queued behind), the exclusive ticket is kept, the word as it was.
 */
static void downgrade_in_a_frozen_word_keeps_the_exclusive_ticket(struct kunit *test)
{
	u64 starts[] = { dslr_word(1, 0, 1, 0), 0 };
	struct mem_word m;
	u64 prev, before;
	struct rdmalock_dslr_io io = mem_io(&m);
	int i;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		m = (struct mem_word){ .word = ATOMIC64_INIT(starts[i]) };
		KUNIT_ASSERT_EQ(test, rdmalock_dslr_take(&io, false, 2, false, &prev), 0);
		if (!rdmalock_dslr_frozen(atomic64_read(&m.word), 2)) {
			raw_ticket(&m, true);
			raw_ticket(&m, true);
		}
		before = atomic64_read(&m.word);
		KUNIT_ASSERT_TRUE(test, rdmalock_dslr_frozen(before, 2));
		KUNIT_EXPECT_EQ(test, rdmalock_dslr_convert(&io, true, 2, &prev), -EAGAIN);
		KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), before);
	}
}

/* The lone reader whose ticket froze the word takes no exclusive one from it. */
static void upgrade_in_a_frozen_word_is_refused(struct kunit *test)
{
	struct mem_word m = { .word = ATOMIC64_INIT(dslr_word(0, 1, 0, 1)) };
	struct rdmalock_dslr_io io = mem_io(&m);
	u64 prev, before;

	KUNIT_ASSERT_EQ(test, rdmalock_dslr_take(&io, true, 2, false, &prev), 0);
	before = atomic64_read(&m.word);
	KUNIT_ASSERT_TRUE(test, rdmalock_dslr_frozen(before, 2));
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_convert(&io, false, 2, &prev), -EAGAIN);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), before);
}

/* A ticket taken between a conversion's READ and its CAS, once. */
static void ticket_slips_in(struct mem_word *m)
{
	m->before_cas = NULL;
	atomic64_add(m->slip, &m->word);
}

/*
 * The CAS that fails is tried again on the word it found, under the same
 * guard: a reader slipping in does not stop a downgrade and is let in
 * with it; a writer slipping in does, as does a reader an upgrade.
 */
static void a_conversion_looks_again_at_what_its_cas_found(struct kunit *test)
{
	struct mem_word m = { .word = ATOMIC64_INIT(0) };
	struct rdmalock_dslr_io io = mem_io(&m);
	u64 prev, reader, before;

	KUNIT_ASSERT_EQ(test, rdmalock_dslr_take(&io, false, DSLR_COUNT_MAX, false,
						 &prev), 0);
	reader = atomic64_read(&m.word);
	m.slip = dslr_ticket_add(true);
	m.before_cas = ticket_slips_in;
	KUNIT_ASSERT_EQ(test, rdmalock_dslr_convert(&io, true, DSLR_COUNT_MAX, &prev), 0);
	KUNIT_EXPECT_EQ(test, poll_now(&m, reader, true), DSLR_POLL_GRANTED);
	KUNIT_ASSERT_EQ(test, rdmalock_dslr_give(&io, true, DSLR_COUNT_MAX, reader), 0);

	m.slip = dslr_ticket_add(true);
	m.before_cas = ticket_slips_in;
	before = atomic64_read(&m.word);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_convert(&io, false, DSLR_COUNT_MAX, &prev), -EAGAIN);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), before + dslr_ticket_add(true));
	KUNIT_ASSERT_EQ(test, rdmalock_dslr_give(&io, true, DSLR_COUNT_MAX, before), 0);
	KUNIT_ASSERT_EQ(test, rdmalock_dslr_give(&io, true, DSLR_COUNT_MAX, prev), 0);

	KUNIT_ASSERT_EQ(test, rdmalock_dslr_take(&io, false, DSLR_COUNT_MAX, false,
						 &prev), 0);
	m.slip = dslr_ticket_add(false);
	m.before_cas = ticket_slips_in;
	before = atomic64_read(&m.word);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_convert(&io, true, DSLR_COUNT_MAX, &prev), -EAGAIN);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), before + dslr_ticket_add(false));
}

/*
 * A lone reader converted up excludes every later requester; with another
 * reader holding, or a writer waiting, it is refused and nothing moves.
 */
static void upgrade_only_for_the_one_holder(struct kunit *test)
{
	struct mem_word m = { .word = ATOMIC64_INIT(0) };
	struct rdmalock_dslr_io io = mem_io(&m);
	u64 prev, other, reader, writer, before;

	KUNIT_ASSERT_EQ(test, rdmalock_dslr_take(&io, true, DSLR_COUNT_MAX, false,
						 &prev), 0);
	KUNIT_ASSERT_EQ(test, rdmalock_dslr_take(&io, true, DSLR_COUNT_MAX, false,
						 &other), 0);
	before = atomic64_read(&m.word);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_convert(&io, false, DSLR_COUNT_MAX, &prev), -EAGAIN);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), before);
	KUNIT_ASSERT_EQ(test, rdmalock_dslr_give(&io, true, DSLR_COUNT_MAX, other), 0);

	KUNIT_ASSERT_EQ(test, rdmalock_dslr_convert(&io, false, DSLR_COUNT_MAX, &prev), 0);
	reader = raw_ticket(&m, true);
	KUNIT_EXPECT_EQ(test, poll_now(&m, reader, true), DSLR_POLL_WAIT);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_give(&io, false, DSLR_COUNT_MAX, prev), 0);
	KUNIT_EXPECT_EQ(test, poll_now(&m, reader, true), DSLR_POLL_GRANTED);

	writer = raw_ticket(&m, false);
	before = atomic64_read(&m.word);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_convert(&io, false, DSLR_COUNT_MAX, &reader), -EAGAIN);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), before);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_give(&io, true, DSLR_COUNT_MAX, reader), 0);
	KUNIT_EXPECT_EQ(test, poll_now(&m, writer, false), DSLR_POLL_GRANTED);
}

#define STRESS_THREADS	4
#define STRESS_ROUNDS	1000
#define STRESS_COUNT_MAX 4

struct stress {
	struct mem_word *m;
	u32 count_max;
	struct completion done;
	int err;
};

static void stress_cs(struct mem_word *m, bool sh)
{
	atomic_t *mine = sh ? &m->sholders : &m->xholders;

	atomic_inc(mine);
	if (atomic_read(&m->xholders) > 1 ||
	    (atomic_read(&m->xholders) && atomic_read(&m->sholders)))
		atomic_inc(&m->violations);
	/* Long enough for a waiter that polls meanwhile to get in, if let. */
	usleep_range(50, 100);
	atomic_dec(mine);
}

/* Every other holder converts its ticket to the other mode, where it can. */
static int stress_convert(const struct rdmalock_dslr_io *io, u32 count_max,
			  u64 *prev, bool *sh)
{
	int ret;

	if (get_random_u32() & 1)
		return 0;
	ret = rdmalock_dslr_convert(io, !*sh, count_max, prev);
	if (ret == -EAGAIN)
		return 0;
	if (!ret)
		*sh = !*sh;
	return ret;
}

/* Stops at the first error, but where the tickets lie: it goes on. */
static int stress_fn(void *data)
{
	struct stress *s = data;
	struct rdmalock_dslr_io io = mem_io(s->m);
	int i, ret = 0;
	u64 prev;

	for (i = 0; i < STRESS_ROUNDS && (!ret || s->m->lying_ticket); i++) {
		bool sh = get_random_u32() & 1;

		ret = rdmalock_dslr_take(&io, sh, s->count_max, false, &prev);
		if (ret)
			break;
		stress_cs(s->m, sh);
		ret = stress_convert(&io, s->count_max, &prev, &sh);
		if (ret)
			break;
		stress_cs(s->m, sh);
		ret = rdmalock_dslr_give(&io, sh, s->count_max, prev);
		cond_resched();
	}
	s->err = ret;
	complete(&s->done);
	return 0;
}

/* Threads in both modes, each taking and releasing the lock in turn. */
static void run_stress(struct kunit *test, struct mem_word *m, u32 count_max)
{
	struct stress s[STRESS_THREADS];
	int i;

	for (i = 0; i < STRESS_THREADS; i++) {
		s[i].m = m;
		s[i].count_max = count_max;
		s[i].err = 0;
		init_completion(&s[i].done);
		KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(stress_fn, &s[i],
							    "dslr-stress/%d", i)));
	}
	for (i = 0; i < STRESS_THREADS; i++) {
		wait_for_completion(&s[i].done);
		if (!m->lying_ticket)
			KUNIT_EXPECT_EQ(test, s[i].err, 0);
	}
}

/*
 * Lease recovery: E1 takes the lock and dies; E2, behind it, resets the
 * word past both tickets once it stood still for two leases, gives up
 * (-ECONNRESET), and its next ticket is granted at once. Without leases
 * the same waiter still waits when its pauses run out, the word as it was.
 */
static void a_dead_holder_is_reset_past_after_two_leases(struct kunit *test)
{
	struct mem_word m = { .word = ATOMIC64_INIT(0) };
	struct rdmalock_dslr_io io = lease_io(&m);
	u64 e1, e2;

	KUNIT_ASSERT_EQ(test, rdmalock_dslr_take(&io, false, DSLR_COUNT_MAX, false,
						 &e1), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_take(&io, false, DSLR_COUNT_MAX, false,
						 &e2), -ECONNRESET);
	KUNIT_EXPECT_GT(test, m.clock, 2 * TEST_LEASE_NS);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), dslr_word(2, 0, 2, 0));
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_take(&io, false, DSLR_COUNT_MAX, false,
						 &e2), 0);
	/* The dead holder's release, had it come late, takes nothing. */
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_give(&io, false, DSLR_COUNT_MAX, e1),
			-ETIME);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), dslr_word(2, 0, 3, 0));

	m = (struct mem_word){ .word = ATOMIC64_INIT(0), .pauses_left = 1000 };
	io = mem_io(&m);
	KUNIT_ASSERT_EQ(test, rdmalock_dslr_take(&io, false, DSLR_COUNT_MAX, false,
						 &e1), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_take(&io, false, DSLR_COUNT_MAX, false,
						 &e2), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), dslr_word(0, 0, 2, 0));
}

/* The head of the line, an exclusive ticket, releases; if any is left. */
static void head_lets_go(struct mem_word *m)
{
	struct rdmalock_dslr_io io = mem_io(m);

	if (m->line_next < m->line_len)
		rdmalock_dslr_give(&io, false, DSLR_COUNT_MAX, m->line[m->line_next++]);
}

/* Each pause is a quarter lease; at every sixth, the head of the line lets go. */
static void line_moves_on(struct mem_word *m)
{
	m->clock += TEST_LEASE_NS / 4;
	if (!(atomic_read(&m->pauses) % 6))
		head_lets_go(m);
}

/*
 * D9: a reader behind eight writers, each of which holds for about 1.6
 * leases, is granted after them, never resetting: n_X moves while n_S
 * stands still, and the stall clock restarts whenever the pair moves. A
 * clock that watched n_S alone would reset under a writer in its lease.
 */
static void d9_a_moving_word_is_never_reset(struct kunit *test)
{
	u64 writers[8], reader;
	struct mem_word m = { .word = ATOMIC64_INIT(0), .at_pause = line_moves_on,
			      .line = writers, .line_len = ARRAY_SIZE(writers) };
	struct rdmalock_dslr_io io = lease_io(&m);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(writers); i++)
		writers[i] = raw_ticket(&m, false);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_take(&io, true, DSLR_COUNT_MAX, false,
						 &reader), 0);
	KUNIT_EXPECT_EQ(test, m.line_next, ARRAY_SIZE(writers));
	KUNIT_EXPECT_GT(test, m.clock, ARRAY_SIZE(writers) * TEST_LEASE_NS);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_give(&io, true, DSLR_COUNT_MAX, reader), 0);
	KUNIT_EXPECT_TRUE(test, rdmalock_dslr_drained(atomic64_read(&m.word)));
}

/* The printed Alg. 2 l. 14-16: a shared resetter claims n_S up to its ticket. */
static u64 printed_stall_word(u64 prev, bool sh, u64 val)
{
	if (sh)
		return dslr_word(dslr_mx(prev), dslr_ms(prev) + 1, dslr_mx(val),
				 dslr_ms(val));
	return rdmalock_dslr_stall_word(prev, sh, val);
}

/*
 * D2's second trace (stall_reset_sim.py succfirst): E dies holding X; S1
 * and T queue shared, E2 exclusive; T resets the stalled word. S1 is then
 * granted; E2 must still wait for it.
 */
static bool d2_reset_holds(u64 (*stall_word)(u64, bool, u64))
{
	struct mem_word m = { .word = ATOMIC64_INIT(0) };
	u64 e, s1, t, e2, reset;

	e = raw_ticket(&m, false);
	s1 = raw_ticket(&m, true);
	t = raw_ticket(&m, true);
	e2 = raw_ticket(&m, false);
	reset = stall_word(t, true, atomic64_read(&m.word));
	return e == 0 && rdmalock_dslr_poll(s1, true, reset) == DSLR_POLL_GRANTED &&
	       rdmalock_dslr_poll(e2, false, reset) == DSLR_POLL_WAIT;
}

static void d2_a_shared_stall_reset_claims_its_own_slot(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, d2_reset_holds(rdmalock_dslr_stall_word));
	KUNIT_EXPECT_FALSE(test, d2_reset_holds(printed_stall_word));
}

/*
 * D4: COUNT_MAX 2, E2 dies holding the frozen word's last ticket, with
 * nobody behind it. A requester bounces off it, zeroes it once it stood
 * still for four leases, and takes the first ticket of the new epoch.
 * Without leases it still waits for the word to thaw when its pauses run
 * out.
 */
static void d4_a_stalled_frozen_word_is_zeroed(struct kunit *test)
{
	struct mem_word m = { .word = ATOMIC64_INIT(0) };
	struct rdmalock_dslr_io io = lease_io(&m);
	u64 e1, e2, e3;

	KUNIT_ASSERT_EQ(test, rdmalock_dslr_take(&io, false, 2, false, &e1), 0);
	e2 = raw_ticket(&m, false);
	KUNIT_ASSERT_EQ(test, rdmalock_dslr_give(&io, false, 2, e1), 0);
	KUNIT_ASSERT_EQ(test, poll_now(&m, e2, false), DSLR_POLL_GRANTED);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_take(&io, true, 2, false, &e3), 0);
	KUNIT_EXPECT_EQ(test, e3, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&m.zeroed), 1);
	KUNIT_EXPECT_GT(test, m.zeroed_at, 4 * TEST_LEASE_NS);

	m = (struct mem_word){ .word = ATOMIC64_INIT(dslr_word(1, 0, 2, 0)),
			       .pauses_left = 1000 };
	io = mem_io(&m);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_take(&io, true, 2, false, &e3), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), dslr_word(1, 0, 2, 0));
}

/*
 * A waiter's pause that lasts three quarters of a lease: a vCPU held up,
 * say. Meanwhile the holder ahead of it lets go.
 */
static void held_up(struct mem_word *m)
{
	m->clock += TEST_LEASE_NS * 3 / 4;
	head_lets_go(m);
}

/*
 * The stale waiter's rule: a waiter whose two polls come more than half a
 * lease apart gives up (-ETIME), taking nothing and trusting no READ,
 * here one that would have granted it.
 */
static void a_waiter_polling_too_late_gives_up(struct kunit *test)
{
	u64 e1;
	struct mem_word m = { .word = ATOMIC64_INIT(0), .line = &e1, .line_len = 1 };
	struct rdmalock_dslr_io io = lease_io(&m);
	u64 e2;

	KUNIT_ASSERT_EQ(test, rdmalock_dslr_take(&io, false, DSLR_COUNT_MAX, false,
						 &e1), 0);
	m.at_pause = held_up;
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_take(&io, false, DSLR_COUNT_MAX, false,
						 &e2), -ETIME);
	KUNIT_EXPECT_EQ(test, m.line_next, 1);
	KUNIT_EXPECT_EQ(test, poll_now(&m, e2, false), DSLR_POLL_GRANTED);
}

/*
 * D10, with lease recovery: a release posted in its lease lands after a
 * reset passed it and the word drained and was zeroed; its count, in the
 * new epoch's word, is taken back, and the new epoch's holder keeps its
 * lock.
 */
static void a_late_release_into_a_new_epoch_is_taken_back(struct kunit *test)
{
	struct mem_word m = { .word = ATOMIC64_INIT(dslr_word(0, 0, 1, 0)) };
	struct rdmalock_dslr_io io = lease_io(&m);

	KUNIT_EXPECT_EQ(test, rdmalock_dslr_give(&io, false, DSLR_COUNT_MAX,
						 dslr_word(0, 0, 2, 0)), -ETIME);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), dslr_word(0, 0, 1, 0));
}

/* What the stale waiter of the trace below sees while the zeroer waits. */
static void stale_waiter_polls(struct mem_word *m)
{
	if (poll_now(m, m->line[0], true) == DSLR_POLL_SKIPPED)
		m->line_next = 1;
}

/*
 * The stale waiter (models.rst's trace), COUNT_MAX 3: A holds, R waits
 * shared, W and H exclusive, H's ticket freezing the word. A dies; W's
 * stall reset passes A's slot and R's, R not yet looking; H is granted
 * and its release drains the word. It zeroes it only two leases later,
 * when R has polled and seen that it was passed: R can no longer take
 * the next epoch for its own. Without leases the zero is at once.
 */
static void a_drained_word_is_zeroed_two_leases_later(struct kunit *test)
{
	u64 r;
	struct mem_word m = { .word = ATOMIC64_INIT(0), .line = &r };
	struct rdmalock_dslr_io io = lease_io(&m);
	u64 a, w, h, before;

	a = raw_ticket(&m, false);
	r = raw_ticket(&m, true);
	w = raw_ticket(&m, false);
	h = raw_ticket(&m, false);
	KUNIT_ASSERT_TRUE(test, rdmalock_dslr_frozen(atomic64_read(&m.word), 3));
	atomic64_set(&m.word, rdmalock_dslr_stall_word(w, false, atomic64_read(&m.word)));
	KUNIT_ASSERT_EQ(test, poll_now(&m, h, false), DSLR_POLL_GRANTED);
	m.at_pause = stale_waiter_polls;
	before = m.clock;
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_give(&io, false, 3, h), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), 0);
	KUNIT_EXPECT_GE(test, m.clock - before, 2 * TEST_LEASE_NS);
	KUNIT_EXPECT_EQ(test, m.line_next, 1);
	KUNIT_EXPECT_EQ(test, a, 0);

	m = (struct mem_word){ .word = ATOMIC64_INIT(dslr_word(2, 1, 3, 1)) };
	io = mem_io(&m);
	KUNIT_EXPECT_EQ(test, rdmalock_dslr_give(&io, false, 3, h), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&m.word), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&m.pauses), 0);
}

/*
 * COUNT_MAX 4: the word freezes every few acquisitions, requesters
 * bounce off it, and whoever drains it zeroes it. Nobody shares the lock
 * with a writer, the word is drained at the end, and it was zeroed at
 * least once per 7 acquisitions (an epoch has at most 4 tickets of one
 * mode and 3 of the other).
 */
static void overflow_resets_under_concurrent_requesters(struct kunit *test)
{
	struct mem_word m = { .word = ATOMIC64_INIT(0) };
	u64 end;

	run_stress(test, &m, STRESS_COUNT_MAX);
	end = atomic64_read(&m.word);
	KUNIT_EXPECT_EQ(test, atomic_read(&m.violations), 0);
	KUNIT_EXPECT_TRUE(test, rdmalock_dslr_drained(end));
	KUNIT_EXPECT_TRUE(test, well_formed(end, STRESS_COUNT_MAX));
	KUNIT_EXPECT_GE(test, atomic_read(&m.zeroed),
			STRESS_THREADS * STRESS_ROUNDS / 7);
}

/*
 * The negative control: with tickets that all look granted at once, the
 * same threads share the lock with writers, and the stress sees it.
 * (COUNT_MAX is the paper's, so that the word, broken, never freezes.)
 */
static void the_stress_catches_lying_tickets(struct kunit *test)
{
	struct mem_word m = { .word = ATOMIC64_INIT(0), .lying_ticket = true };

	run_stress(test, &m, DSLR_COUNT_MAX);
	KUNIT_EXPECT_GT(test, atomic_read(&m.violations), 0);
}

static struct kunit_case rdmalock_dslr_cases[] = {
	KUNIT_CASE(word_fields_and_addends),
	KUNIT_CASE(exclusive_waits_for_readers_before_it),
	KUNIT_CASE(d1_a_frozen_ticket_is_no_ticket),
	KUNIT_CASE(d2_a_reader_passed_by_later_readers_is_granted),
	KUNIT_CASE(d3_an_undo_never_borrows),
	KUNIT_CASE(d10_a_release_checks_its_own_slot),
	KUNIT_CASE(d11_a_zeroed_word_skips_the_ticket),
	KUNIT_CASE(the_drained_frozen_word_is_zeroed),
	KUNIT_CASE(the_last_undo_zeroes_the_word),
	KUNIT_CASE(downgrade_admits_the_readers_behind),
	KUNIT_CASE(downgrade_behind_a_writer_keeps_the_exclusive_ticket),
	KUNIT_CASE(downgrade_in_a_frozen_word_keeps_the_exclusive_ticket),
	KUNIT_CASE(upgrade_in_a_frozen_word_is_refused),
	KUNIT_CASE(a_conversion_looks_again_at_what_its_cas_found),
	KUNIT_CASE(upgrade_only_for_the_one_holder),
	KUNIT_CASE(a_dead_holder_is_reset_past_after_two_leases),
	KUNIT_CASE(d9_a_moving_word_is_never_reset),
	KUNIT_CASE(d2_a_shared_stall_reset_claims_its_own_slot),
	KUNIT_CASE(d4_a_stalled_frozen_word_is_zeroed),
	KUNIT_CASE(a_waiter_polling_too_late_gives_up),
	KUNIT_CASE(a_late_release_into_a_new_epoch_is_taken_back),
	KUNIT_CASE(a_drained_word_is_zeroed_two_leases_later),
	KUNIT_CASE(overflow_resets_under_concurrent_requesters),
	KUNIT_CASE(the_stress_catches_lying_tickets),
	{}
};

static struct kunit_suite rdmalock_dslr_suite = {
	.name = "rdmalock_dslr",
	.test_cases = rdmalock_dslr_cases,
};

kunit_test_suite(rdmalock_dslr_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: DSLR, the fetch-and-add ticket lock of Yoon, Chowdhury and
 * Mozafari (SIGMOD'18), with shared and exclusive modes
 * (shared/specs/dslr.md; tools/models/dslr.pml checks this protocol).
 *
 * Each lock is one word of four 16-bit counters at its home: max_X and
 * max_S hand out tickets, n_X and n_S count the slots accounted for. An
 * acquisition is one FAA on its max field, whose result is its ticket: an
 * exclusive ticket is granted once n_X and n_S reach the ticket's max_X
 * and max_S, a shared one once n_X reaches its max_X. A waiter polls the
 * word with READ, sleeping between polls for as long as the tickets ahead
 * of it suggest (§4.6). A release is one FAA on its n field. Every node
 * goes through the NIC, the home node through loopback: the NIC's atomics
 * are atomic only with each other (INV-1).
 *
 * The overflow reset (§4.9, §5). Once a max field reaches COUNT_MAX the
 * word is frozen: a ticket taken from it is no ticket, and its taker takes
 * it back and tries again (D1) once a READ shows the word reset. It takes
 * it back by CAS on the word as it saw it, never by a blind FAA (D3b), so
 * that an undo can never borrow from a word that a reset zeroed. A frozen
 * word is zeroed from its drained value only, when every ticket of its
 * epoch has been released and no requester's increment is in it: so no
 * waiter of the old epoch can be left to mistake the new one for its own
 * (the "stale waiter" of models.rst). The paper's designated resetter
 * waits for the drain, possibly for as long as a filesystem caches a
 * lock; here whoever drains the word, the last release or the last
 * requester to take its increment back, sees the drained value in its
 * atomic's result and zeroes it with one CAS. A CAS that fails found the
 * word changed by someone whose own atomic then sees what to do.
 *
 * Recovery follows the membership view (membership.rst): a view change
 * zeroes every lock word of its members and the live holders claim theirs
 * again, so a dead node's tickets vanish with it and no lease is needed:
 * a holder keeps its lock however long it holds it, and no waiter is
 * ever skipped. Once its ticket is taken an acquisition cannot be
 * withdrawn (a ticket behind others cannot be taken back), so from then
 * on only a view change or the domain's end stops its wait, not a
 * deadline or a signal; a trylock takes a ticket only where a READ shows
 * it would be granted.
 *
 * The paper's lease recovery instead, for comparison
 * (RDMALOCK_DOMAIN_F_LEASE_RECOVERY; §6, with the fixes of §8): no view
 * change touches the words. A holder has a lease, from no later than its
 * grant appeared in the word; past it, its release leaves the slot alone
 * and says -ETIME, and a grant that came after it is none (-ETIME too). A
 * waiter that sees (n_X, n_S) stand still for two leases resets the word
 * past its own ticket by one CAS and gives up (-ECONNRESET), as do the
 * waiters ahead of it that the reset passed; a bouncer zeroes a frozen
 * word that stood still for four (D4). A drained word is zeroed two
 * leases after it was seen drained, and a waiter whose polls come more
 * than half a lease apart gives up (-ETIME), so that no waiter a reset
 * passed unseen mistakes the next epoch for its own (models.rst, the
 * stale waiter). A release whose FAA finds its slot accounted for by a
 * reset takes its count back (D10). This takes a lock from a live holder
 * slower than its lease, and assumes that a verb lands within a third of
 * a lease of its posting: under contention on Soft-RoCE in QEMU, a
 * waiter's polls came more than 100 ms apart, so a lease must be several
 * times that there.
 *
 * Conversions are in place, by one CAS that accounts the slot held and
 * takes the other mode's ticket, granted at once: up only for the one
 * holder with nobody waiting, down while no writer waits behind and the
 * word is not frozen (else the exclusive ticket is kept until the
 * release, and a request that waits, in either mode, asks for it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>

#include "dslr.h"
#include "locks.h"
#include "rdmalock-pri.h"

/*
 * ω, the poll interval per ticket ahead (§4.6): the paper's 5 µs fits
 * its NICs; a READ over Soft-RoCE costs tens of microseconds on hardware
 * and more in an emulated guest. The longest sleep keeps a waiter whose
 * queue emptied at once from sleeping long.
 */
#define DSLR_OMEGA_US		20
#define DSLR_POLL_MAX_US	2000
/* The backoff off a frozen word (A.3): R = 10 µs, capped at 10 ms. */
#define DSLR_BOUNCE_MIN_US	10
#define DSLR_BOUNCE_MAX_US	10000
/* Longer sleeps than this are msleep()'s (timers-howto.rst). */
#define DSLR_USLEEP_MAX_US	20000

static unsigned int rdmalock_dslr_count_max = DSLR_COUNT_MAX;

static int rdmalock_dslr_count_max_set(const char *val,
				       const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, DSLR_COUNT_MAX_MIN, DSLR_COUNT_MAX);
}

static const struct kernel_param_ops rdmalock_dslr_count_max_ops = {
	.set = rdmalock_dslr_count_max_set,
	.get = param_get_uint,
};

module_param_cb(dslr_count_max, &rdmalock_dslr_count_max_ops,
		&rdmalock_dslr_count_max, 0644);
MODULE_PARM_DESC(dslr_count_max,
		 "DSLR's COUNT_MAX for domains created from now on, 2 to 32768: small values reset the lock words often, for tests; every node of a domain must agree (default 32768)");

/**
 * rdmalock_dslr_frozen() - has a max field of @v reached COUNT_MAX?
 * @v: a lock word
 * @count_max: COUNT_MAX
 *
 * Return: true when @v hands out no ticket until it is reset.
 */
VISIBLE_IF_KUNIT bool rdmalock_dslr_frozen(u64 v, u32 count_max)
{
	return dslr_mx(v) >= count_max || dslr_ms(v) >= count_max;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_dslr_frozen);

/**
 * rdmalock_dslr_drained() - was every ticket @v handed out accounted for?
 * @v: a lock word
 *
 * Return: true when nobody holds, waits or has an increment in @v.
 */
VISIBLE_IF_KUNIT bool rdmalock_dslr_drained(u64 v)
{
	return dslr_nx(v) == dslr_mx(v) && dslr_ns(v) == dslr_ms(v);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_dslr_drained);

static bool rdmalock_dslr_granted(u64 prev, bool sh, u64 val)
{
	return dslr_nx(val) == dslr_mx(prev) && (sh || dslr_ns(val) == dslr_ms(prev));
}

/**
 * rdmalock_dslr_ticket() - what the ticket's fetch-and-add found
 * @prev: the word before it
 * @sh: a shared ticket
 * @count_max: COUNT_MAX
 *
 * A frozen word is tested first: drained, it looks free, but the ticket
 * taken from it is none (D1).
 *
 * Return: DSLR_TICKET_FROZEN, _GRANTED or _WAIT.
 */
VISIBLE_IF_KUNIT enum rdmalock_dslr_ticket
rdmalock_dslr_ticket(u64 prev, bool sh, u32 count_max)
{
	if (rdmalock_dslr_frozen(prev, count_max))
		return DSLR_TICKET_FROZEN;
	return rdmalock_dslr_granted(prev, sh, prev) ? DSLR_TICKET_GRANTED :
						       DSLR_TICKET_WAIT;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_dslr_ticket);

/*
 * Was the word zeroed since ticket @prev was taken? Within an epoch no
 * max field falls below what the ticket's own increment made it (D11).
 */
static bool rdmalock_dslr_zeroed_since(u64 prev, bool sh, u64 val)
{
	return dslr_mx(val) < dslr_mx(prev) + !sh ||
	       dslr_ms(val) < dslr_ms(prev) + sh;
}

/**
 * rdmalock_dslr_poll() - what a READ of the word says of a waiting ticket
 * @prev: the ticket: the word before its fetch-and-add
 * @sh: a shared ticket
 * @val: the word read
 *
 * A reader is passed only when n_X moves beyond its ticket: later readers
 * may be granted with it and release before it polls (D2). A max field
 * below the ticket's own increment means the word was zeroed (D11).
 * Neither happens while views recover the locks: a ticket is never
 * skipped, and the word is zeroed only once drained. With lease recovery
 * both do: a waiter behind a stalled word resets it past the tickets
 * ahead of it, a bouncer zeroes a frozen one.
 *
 * Return: DSLR_POLL_GRANTED, _WAIT, or _SKIPPED when the word moved past
 * the ticket.
 */
VISIBLE_IF_KUNIT enum rdmalock_dslr_poll
rdmalock_dslr_poll(u64 prev, bool sh, u64 val)
{
	if (dslr_nx(val) > dslr_mx(prev) ||
	    (!sh && dslr_ns(val) > dslr_ms(prev)) ||
	    rdmalock_dslr_zeroed_since(prev, sh, val))
		return DSLR_POLL_SKIPPED;
	return rdmalock_dslr_granted(prev, sh, val) ? DSLR_POLL_GRANTED :
						      DSLR_POLL_WAIT;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_dslr_poll);

/**
 * rdmalock_dslr_own_slot() - did a release account its own slot?
 * @prev: the holder's ticket
 * @sh: a shared one
 * @released: the word before the release's fetch-and-add
 *
 * The word must still grant the ticket (D10): else the slot was accounted
 * by someone else, and the release counted a slot twice.
 *
 * Return: true when it did.
 */
VISIBLE_IF_KUNIT bool rdmalock_dslr_own_slot(u64 prev, bool sh, u64 released)
{
	return rdmalock_dslr_granted(prev, sh, released);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_dslr_own_slot);

/**
 * rdmalock_dslr_ahead() - tickets ahead of a waiting one
 * @prev: the ticket
 * @val: the word as last seen
 *
 * Return: the holders and waiters of both modes the word has not yet
 * accounted for before @prev, as Alg. 2 l. 20 counts them.
 */
VISIBLE_IF_KUNIT unsigned int rdmalock_dslr_ahead(u64 prev, u64 val)
{
	int x = dslr_mx(prev) - dslr_nx(val), s = dslr_ms(prev) - dslr_ns(val);

	return max(x, 0) + max(s, 0);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_dslr_ahead);

/**
 * rdmalock_dslr_stall_word() - the word a waiter's stall reset leaves
 * @prev: the waiter's ticket
 * @sh: a shared one
 * @val: the word that stood still
 *
 * Every exclusive ticket before the waiter's is accounted for, and the
 * waiter's own slot, which it gives up (§6.2). An exclusive waiter
 * accounts the shared tickets before it too, as printed. A shared one
 * accounts only its own shared slot (D2): the readers ahead of it may
 * hold beside it, and a writer behind them must still wait for them.
 *
 * Return: the word to CAS in for @val.
 */
VISIBLE_IF_KUNIT u64 rdmalock_dslr_stall_word(u64 prev, bool sh, u64 val)
{
	if (sh)
		return dslr_word(dslr_mx(prev), dslr_ns(val) + 1, dslr_mx(val),
				 dslr_ms(val));
	return dslr_word(dslr_mx(prev) + 1, dslr_ms(prev), dslr_mx(val),
			 dslr_ms(val));
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_dslr_stall_word);

/*
 * With lease recovery: has the word's (n_X, n_S) stood still for longer
 * than @limit? The clock restarts whenever the pair moves (D9): a waiter
 * behind a stream of holders that release never resets. Without, never.
 */
static bool rdmalock_dslr_stood_still(const struct rdmalock_dslr_io *io,
				      u64 val, u64 *seen, u64 *since, u64 limit)
{
	u64 now;

	if (!io->stall)
		return false;
	now = io->now(io->ctx);

	if ((val ^ *seen) >> DSLR_NS_SHIFT) {
		*seen = val;
		*since = now;
		return false;
	}
	return now - *since > limit;
}

/*
 * The stale waiter (models.rst): with lease recovery a waiter's ticket
 * may be accounted for by a reset before the waiter has seen it, and a
 * word zeroed meanwhile could grant it in the next epoch. So a drained
 * word is zeroed only two leases (the stall time) after its zeroer saw
 * it drained, and a waiter that posts two verbs more than half a lease
 * apart trusts neither and gives up: one of its READs found the word not
 * yet zeroed, or it gave up, as long as a READ lands within a lease of
 * its posting. Its polls are spaced by no more than a quarter of one.
 */
static u64 rdmalock_dslr_zero_wait(const struct rdmalock_dslr_io *io)
{
	return io->stall;
}

static u64 rdmalock_dslr_poll_gap(const struct rdmalock_dslr_io *io)
{
	return io->stall / 4;
}

static unsigned int rdmalock_dslr_poll_cap(const struct rdmalock_dslr_io *io)
{
	if (!io->stall)
		return DSLR_POLL_MAX_US;
	return clamp_t(u64, div_u64(io->stall, 8 * NSEC_PER_USEC), DSLR_OMEGA_US,
		       DSLR_POLL_MAX_US);
}

/*
 * A bouncer's forced reset (D4) waits four leases: a live waiter of the
 * word sees the pair move within half a lease and a verb (or gives up),
 * and its own stall reset lands within two leases, half a lease and two
 * verbs of that: first, as long as a verb lands within a third of a
 * lease of its posting.
 */
static u64 rdmalock_dslr_force_wait(const struct rdmalock_dslr_io *io)
{
	return io->stall * 2;
}

/*
 * Zero a frozen word that @v, the result of our own atomic, shows
 * drained. A pause that fails (the domain's end) leaves the word frozen,
 * for a bouncer's forced reset.
 */
static int rdmalock_dslr_zero(const struct rdmalock_dslr_io *io, u32 count_max,
			      u64 v)
{
	u64 old;

	if (!rdmalock_dslr_frozen(v, count_max) || !rdmalock_dslr_drained(v))
		return 0;
	if (io->stall &&
	    io->pause(io->ctx, div_u64(rdmalock_dslr_zero_wait(io), NSEC_PER_USEC),
		      false))
		return 0;
	return io->cas(io->ctx, v, 0, &old);
}

/*
 * Take back the increment of a ticket that found the word frozen: by CAS
 * on the word as seen (@cur, our increment in it), until one succeeds.
 * Our increment keeps the word from draining, so it stays frozen and
 * nobody else zeroes it meanwhile (only a view change does, and it waits
 * for us to leave).
 */
static int rdmalock_dslr_bounce(const struct rdmalock_dslr_io *io, bool sh,
				u32 count_max, u64 cur)
{
	u64 add = dslr_ticket_add(sh), old;
	int ret;

	for (;;) {
		ret = io->cas(io->ctx, cur, cur - add, &old);
		if (ret)
			return ret;
		if (old == cur)
			return rdmalock_dslr_zero(io, count_max, cur - add);
		if (!rdmalock_dslr_frozen(old, count_max))
			return 0;
		cur = old;
	}
}

/*
 * After a bounce off @cur: READ the word, backing off, until it is no
 * longer frozen, and only then take a ticket again. Requesters that kept
 * taking tickets from a frozen word would keep their increments in it,
 * and the word could drain, and be zeroed, only in a gap between them:
 * with slow verbs, hardly ever. With lease recovery, a frozen word that
 * stood still for four leases is zeroed (D4): a holder of its last
 * ticket died, or holds past its lease, and nobody waits behind it to
 * reset it. A live waiter would have reset it first, or given up for a
 * gap between its polls; a waiter a reset passed has seen it since, or
 * given up (the stale waiter, above).
 */
static int rdmalock_dslr_thaw(const struct rdmalock_dslr_io *io, u32 count_max,
			      u64 cur)
{
	unsigned int us = DSLR_BOUNCE_MIN_US;
	u64 val, seen = cur, since = io->stall ? io->now(io->ctx) : 0, old;
	int ret;

	for (;;) {
		ret = io->pause(io->ctx, us, true);
		if (ret)
			return ret;
		ret = io->read(io->ctx, &val);
		if (ret)
			return ret;
		if (!rdmalock_dslr_frozen(val, count_max))
			return 0;
		if (rdmalock_dslr_stood_still(io, val, &seen, &since,
					      rdmalock_dslr_force_wait(io))) {
			ret = io->cas(io->ctx, val, 0, &old);
			if (ret)
				return ret;
		}
		us = min(us * 2, DSLR_BOUNCE_MAX_US);
	}
}

/*
 * With lease recovery, a waiter whose word stood still resets it past
 * its own ticket, and gives up: -ECONNRESET once its reset is in.
 */
static int rdmalock_dslr_stall_reset(const struct rdmalock_dslr_io *io, bool sh,
				     u32 count_max, u64 prev, u64 val)
{
	u64 reset = rdmalock_dslr_stall_word(prev, sh, val), old;
	int ret;

	ret = io->cas(io->ctx, val, reset, &old);
	if (ret || old != val)
		return ret;
	return rdmalock_dslr_zero(io, count_max, reset) ?: -ECONNRESET;
}

/*
 * With lease recovery, before each READ of a waiter: -ETIME when it comes
 * more than the poll gap after the verb before it (the stale waiter,
 * above): the ticket is left to a stall reset.
 */
static int rdmalock_dslr_poll_in_time(const struct rdmalock_dslr_io *io,
				      u64 *posted)
{
	u64 now;

	if (!io->stall)
		return 0;
	now = io->now(io->ctx);
	if (now - *posted > rdmalock_dslr_poll_gap(io))
		return -ETIME;
	*posted = now;
	return 0;
}

/* @posted: with lease recovery, when the ticket's FAA was posted */
static int rdmalock_dslr_await(const struct rdmalock_dslr_io *io, bool sh,
			       u32 count_max, u64 prev, u64 posted)
{
	u64 val = prev, seen = prev, since = posted;
	unsigned int us, cap = rdmalock_dslr_poll_cap(io);
	int ret;

	for (;;) {
		us = clamp(rdmalock_dslr_ahead(prev, val) * DSLR_OMEGA_US,
			   DSLR_OMEGA_US, cap);
		ret = io->pause(io->ctx, us, false) ?:
		      rdmalock_dslr_poll_in_time(io, &posted);
		if (ret)
			return ret;
		ret = io->read(io->ctx, &val);
		if (ret)
			return ret;
		switch (rdmalock_dslr_poll(prev, sh, val)) {
		case DSLR_POLL_GRANTED:
			return 0;
		case DSLR_POLL_SKIPPED:
			return -ECONNRESET;
		case DSLR_POLL_WAIT:
			break;
		}
		if (rdmalock_dslr_stood_still(io, val, &seen, &since, io->stall)) {
			ret = rdmalock_dslr_stall_reset(io, sh, count_max, prev, val);
			if (ret)
				return ret;
		}
	}
}

/**
 * rdmalock_dslr_take() - take a ticket and wait for its grant
 * @io: the lock word
 * @sh: a shared ticket
 * @count_max: COUNT_MAX
 * @try: take one only if a READ shows it would be granted at once
 * @prev: set to the ticket: the word before its fetch-and-add
 *
 * Return: 0 once granted; -EAGAIN for a trylock that would wait or that
 * found the word frozen; -ECONNRESET when the word was moved past the
 * ticket: with lease recovery, by this waiter's reset or another's (the
 * ticket is accounted for, and the caller may try again), without, only
 * by a defect; with lease recovery only, -ETIME when two of the waiter's
 * polls came too far apart to be trusted (the ticket is left to a stall
 * reset; the caller may try again); else what @io returned. With lease
 * recovery, a request whose undo drains a frozen word waits two leases
 * to zero it, whatever its deadline (a signal ends that wait, and leaves
 * the word to the next request that drains it).
 * A deadline or a signal ends the acquisition only before its ticket is
 * taken (&rdmalock_dslr_io.pause).
 */
VISIBLE_IF_KUNIT int rdmalock_dslr_take(const struct rdmalock_dslr_io *io, bool sh,
					u32 count_max, bool try, u64 *prev)
{
	u64 add = dslr_ticket_add(sh), val, posted = 0;
	int ret;

	if (try) {
		ret = io->read(io->ctx, &val);
		if (ret)
			return ret;
		if (rdmalock_dslr_ticket(val, sh, count_max) != DSLR_TICKET_GRANTED)
			return -EAGAIN;
	}
	for (;;) {
		if (io->stall)
			posted = io->now(io->ctx);
		ret = io->faa(io->ctx, add, prev);
		if (ret)
			return ret;
		switch (rdmalock_dslr_ticket(*prev, sh, count_max)) {
		case DSLR_TICKET_GRANTED:
			return 0;
		case DSLR_TICKET_WAIT:
			return rdmalock_dslr_await(io, sh, count_max, *prev, posted);
		case DSLR_TICKET_FROZEN:
			break;
		}
		ret = rdmalock_dslr_bounce(io, sh, count_max, *prev + add);
		if (ret)
			return ret;
		if (try)
			return -EAGAIN;
		ret = rdmalock_dslr_thaw(io, count_max, *prev);
		if (ret)
			return ret;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_dslr_take);

/*
 * Was the word zeroed since it was @landed? Outside a frozen word no max
 * field falls; a frozen one thaws only by a zeroing, and its bouncers
 * take back no more than they added. (A word zeroed and frozen again
 * meanwhile, with a tiny COUNT_MAX, is taken for the same: an undo then
 * takes a count that was not ours, which can stall a waiter, never
 * grant one.)
 */
static bool rdmalock_dslr_zeroed_after(u64 landed, u32 count_max, u64 cur)
{
	if (rdmalock_dslr_frozen(landed, count_max))
		return !rdmalock_dslr_frozen(cur, count_max);
	return dslr_mx(cur) < dslr_mx(landed) || dslr_ms(cur) < dslr_ms(landed);
}

/*
 * D10: a release found its slot accounted for already, by a waiter's
 * stall reset (or in a word zeroed since: a release posted in its lease
 * that landed late): take its count back, by CAS on the word as seen
 * (@cur), unless the word was zeroed after the count landed in @landed,
 * the count gone with it. The count may have let a later ticket in early
 * meanwhile, and a stall reset that set the n fields may have absorbed
 * it, so that taking it back costs a waiter a stall: the lease the reset
 * waited out is what keeps either from happening to a holder that keeps
 * to it.
 */
static int rdmalock_dslr_unaccount(const struct rdmalock_dslr_io *io, bool sh,
				   u32 count_max, u64 landed, u64 cur)
{
	u64 add = dslr_release_add(sh), old;
	int ret;

	for (;;) {
		if (rdmalock_dslr_zeroed_after(landed, count_max, cur) ||
		    !(sh ? dslr_ns(cur) : dslr_nx(cur)))
			return -ETIME;
		ret = io->cas(io->ctx, cur, cur - add, &old);
		if (ret)
			return ret;
		if (old == cur)
			return rdmalock_dslr_zero(io, count_max, cur - add) ?: -ETIME;
		cur = old;
	}
}

/**
 * rdmalock_dslr_give() - release a granted ticket
 * @io: the lock word
 * @sh: a shared ticket
 * @count_max: COUNT_MAX
 * @prev: the ticket
 *
 * Return: 0; -ETIME when the release found its slot accounted for already
 * (a waiter reset the word: lease recovery only) and took its count back;
 * or what @io returned.
 */
VISIBLE_IF_KUNIT int rdmalock_dslr_give(const struct rdmalock_dslr_io *io, bool sh,
					u32 count_max, u64 prev)
{
	u64 add = dslr_release_add(sh), old;
	int ret;

	ret = io->faa(io->ctx, add, &old);
	if (ret)
		return ret;
	if (!rdmalock_dslr_own_slot(prev, sh, old))
		return rdmalock_dslr_unaccount(io, sh, count_max, old, old + add);
	return rdmalock_dslr_zero(io, count_max, old + add);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_dslr_give);

/*
 * May the holder of ticket @prev convert it in one CAS on @cur, the new
 * ticket granted at once? Down, only while no exclusive ticket came after
 * ours: a writer waiting behind would be granted once the shared tickets
 * before its own are accounted, and ours would come after it. Up, only
 * when ours is the one shared slot not accounted for and no exclusive
 * ticket is outstanding: else it would wait, if only for our own release.
 * Neither in a frozen word, where later readers could not join a shared
 * holder, only wait for its release.
 */
static bool rdmalock_dslr_may_convert(u64 prev, u64 cur, bool to_sh,
				      u32 count_max)
{
	if (rdmalock_dslr_frozen(cur, count_max))
		return false;
	if (to_sh)
		return dslr_mx(cur) == dslr_mx(prev) + 1;
	return dslr_nx(cur) == dslr_mx(cur) && dslr_ns(cur) + 1 == dslr_ms(cur);
}

/**
 * rdmalock_dslr_convert() - hold in the other mode what is held, in place
 * @io: the lock word
 * @to_sh: from exclusive to shared; else from shared to exclusive
 * @count_max: COUNT_MAX
 * @prev: the ticket held; the new one, if taken
 *
 * One CAS accounts the slot held and takes a ticket of the other mode,
 * granted at once; a CAS that fails is tried again on the word it found,
 * while rdmalock_dslr_may_convert() says yes. A holder that cannot convert
 * down keeps its exclusive ticket until the release: it excludes more
 * than it asked for, never less, and no writer comes in between; every
 * request that waits then asks it to let go (blocking.c).
 *
 * Return: 0; -EAGAIN when the conversion cannot be done now, the word as
 * it was; or what @io returned, the word as it was.
 */
VISIBLE_IF_KUNIT int rdmalock_dslr_convert(const struct rdmalock_dslr_io *io,
					   bool to_sh, u32 count_max, u64 *prev)
{
	u64 release = dslr_release_add(!to_sh), cur, old;
	int ret;

	ret = io->read(io->ctx, &cur);
	while (!ret) {
		if (!rdmalock_dslr_may_convert(*prev, cur, to_sh, count_max))
			return -EAGAIN;
		ret = io->cas(io->ctx, cur, cur + release + dslr_ticket_add(to_sh),
			      &old);
		if (!ret && old == cur) {
			*prev = cur + release;
			return 0;
		}
		cur = old;
	}
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_dslr_convert);

/* The lock layer's side: a lockspace's words, reached through the fabric. */

/* @lease: with lease recovery, a holder's lease in ns; 0 where views recover */
struct rdmalock_dslr_ls {
	u32 count_max;
	u64 lease;
};

/*
 * An acquisition: its ticket, how it may wait while it takes it, and,
 * with lease recovery, when its lease starts (@since) and when its last
 * verb was posted (@posted).
 */
struct rdmalock_dslr {
	u64 prev;
	struct rdmalock_lockspace *ls;
	struct rdmalock_waiter *w;
	const struct rdmalock_how *how;
	u64 since;
	u64 posted;
};

static struct rdmalock_dslr *dslr_w(struct rdmalock_waiter *w)
{
	return rdmalock_waiter_priv(w);
}

static struct rdmalock_dslr_ls *dslr_ls(struct rdmalock_lockspace *ls)
{
	return rdmalock_algo_data(ls);
}

static u32 dslr_count_max(struct rdmalock_lockspace *ls)
{
	return dslr_ls(ls)->count_max;
}

/* Survives a suspend, which a lease must not outlive (O-5). */
static u64 rdmalock_dslr_now(void *ctx)
{
	return ktime_get_boottime_ns();
}

/*
 * With lease recovery, before each FAA or READ, either of which may show
 * the grant: a lease starts no later than the grant appeared in the word
 * (INV-9), which the waiters behind time their stall from. An FAA that
 * finds the word free starts it as it is posted; a READ that finds it
 * granted, as the verb before it was, which still found it not.
 */
static void rdmalock_dslr_posting(struct rdmalock_dslr *d, bool read)
{
	u64 now;

	if (!dslr_ls(d->ls)->lease)
		return;
	now = rdmalock_dslr_now(d);
	d->since = read ? d->posted : now;
	d->posted = now;
}

/* Never where views recover the lock: a holder keeps it however long. */
static bool rdmalock_dslr_lease_over(struct rdmalock_lockspace *ls,
				     struct rdmalock_waiter *w)
{
	u64 lease = dslr_ls(ls)->lease;

	return lease && rdmalock_dslr_now(NULL) - dslr_w(w)->since >= lease;
}

static int rdmalock_dslr_faa(void *ctx, u64 add, u64 *old)
{
	struct rdmalock_dslr *d = ctx;

	rdmalock_dslr_posting(d, false);
	return rdmalock_fabric_faa(d->ls->fabric, d->w->home, d->w->slot_off, add,
				   old);
}

static int rdmalock_dslr_cas(void *ctx, u64 expected, u64 desired, u64 *old)
{
	struct rdmalock_dslr *d = ctx;

	return rdmalock_cas(d->ls, d->w->home, d->w->slot_off, expected, desired,
			    old);
}

static int rdmalock_dslr_read(void *ctx, u64 *val)
{
	struct rdmalock_dslr *d = ctx;

	rdmalock_dslr_posting(d, true);
	return rdmalock_fabric_read(d->ls->fabric, d->w->home, d->w->slot_off,
				    val, sizeof(*val));
}

static int rdmalock_dslr_pause(void *ctx, unsigned int us, bool bounced)
{
	struct rdmalock_dslr *d = ctx;
	struct rdmalock_lockspace *ls = d->ls;

	if (bounced)
		return rdmalock_backoff(ls, d->how, &us, us);
	if (READ_ONCE(ls->closed))
		return -ESHUTDOWN;
	if (rdmalock_gate_shut(ls))
		return -ERESTART;
	/*
	 * A zeroing's wait may be long (two leases): no hrtimer for it, and
	 * a signal ends it, the word left to the next one to drain it.
	 */
	if (us <= DSLR_USLEEP_MAX_US)
		usleep_range(us, us + us / 4);
	else if (msleep_interruptible(DIV_ROUND_UP(us, USEC_PER_MSEC)))
		return -EINTR;
	return 0;
}

static const struct rdmalock_dslr_io rdmalock_dslr_fabric_io = {
	.faa = rdmalock_dslr_faa,
	.cas = rdmalock_dslr_cas,
	.read = rdmalock_dslr_read,
	.pause = rdmalock_dslr_pause,
	.now = rdmalock_dslr_now,
};

static struct rdmalock_dslr_io rdmalock_dslr_io_of(struct rdmalock_lockspace *ls,
						   struct rdmalock_waiter *w,
						   const struct rdmalock_how *how)
{
	struct rdmalock_dslr_io io = rdmalock_dslr_fabric_io;
	struct rdmalock_dslr *d = dslr_w(w);

	d->ls = ls;
	d->w = w;
	d->how = how;
	io.ctx = d;
	io.stall = 2 * dslr_ls(ls)->lease;
	return io;
}

static int rdmalock_dslr_acquire(struct rdmalock_lockspace *ls,
				 struct rdmalock_waiter *w,
				 const struct rdmalock_how *how)
{
	struct rdmalock_dslr_io io = rdmalock_dslr_io_of(ls, w, how);
	int ret;

	ret = rdmalock_dslr_take(&io, w->mode == RDMALOCK_MODE_SH,
				 dslr_count_max(ls), how->try, &dslr_w(w)->prev);
	/* A grant past the lease is none: a waiter may be resetting it. */
	if (!ret && rdmalock_dslr_lease_over(ls, w))
		ret = -ETIME;
	if (dslr_ls(ls)->lease && (ret == -ECONNRESET || ret == -ETIME)) {
		/*
		 * The ticket is accounted for, or left to a stall reset; the
		 * descriptor was never published, and may serve again.
		 */
		rdmalock_desc_free(ls, w);
		return ret;
	}
	if (ret == -ECONNRESET) {
		pr_err_ratelimited("%s: lock slot %#llx moved past a waiting ticket\n",
				   ls->name, w->slot_off);
		ret = -EIO;
	}
	return ret ? rdmalock_acq_fail(ls, w, ret) : 0;
}

static int rdmalock_dslr_release(struct rdmalock_lockspace *ls,
				 struct rdmalock_waiter *w)
{
	struct rdmalock_dslr_io io = rdmalock_dslr_io_of(ls, w, &rdmalock_forever);
	int ret;

	/* Past its lease, the slot is left to the waiters' stall reset. */
	if (rdmalock_dslr_lease_over(ls, w))
		return -ETIME;
	ret = rdmalock_dslr_give(&io, w->mode == RDMALOCK_MODE_SH,
				 dslr_count_max(ls), dslr_w(w)->prev);
	if (ret == -ETIME && !dslr_ls(ls)->lease) {
		pr_err_ratelimited("%s: lock slot %#llx was accounted under a holder\n",
				   ls->name, w->slot_off);
		ret = -EIO;
	}
	return ret;
}

/*
 * Inside the gate (rdmalock_ls_convert()): no view change zeroes the
 * word meanwhile. A verb that fails leaves the ticket as it was, or the
 * word converted; the view change then asked for claims the lock again
 * in the mode @w had. A downgrade that kept the exclusive ticket leaves
 * @w exclusive, as its release and a view change's claim must see it.
 */
static int rdmalock_dslr_downgrade(struct rdmalock_lockspace *ls,
				   struct rdmalock_waiter *w)
{
	struct rdmalock_dslr_io io = rdmalock_dslr_io_of(ls, w, &rdmalock_forever);
	int ret;

	ret = rdmalock_dslr_convert(&io, true, dslr_count_max(ls), &dslr_w(w)->prev);
	if (ret == -EAGAIN)
		return 0;
	if (!ret)
		w->mode = RDMALOCK_MODE_SH;
	return ret;
}

/* After a downgrade that kept the exclusive ticket, there is nothing to take. */
static int rdmalock_dslr_upgrade(struct rdmalock_lockspace *ls,
				 struct rdmalock_waiter *w)
{
	struct rdmalock_dslr_io io = rdmalock_dslr_io_of(ls, w, &rdmalock_forever);
	int ret = 0;

	if (w->mode == RDMALOCK_MODE_SH)
		ret = rdmalock_dslr_convert(&io, false, dslr_count_max(ls),
					    &dslr_w(w)->prev);
	if (ret)
		return ret;
	w->mode = RDMALOCK_MODE_EX;
	return 0;
}

static const char *rdmalock_dslr_check_params(const struct rdmalock_ls_params *params,
					      bool mine)
{
	if (!mine)
		return NULL;
	if (params->lease_ms && !params->lease_recovery)
		return "dslr: a lease without lease recovery";
	/* Room above COUNT_MAX for every descriptor's bounce at once (INV-8). */
	if ((u64)params->num_nodes * params->descs > U16_MAX - DSLR_COUNT_MAX)
		return "dslr: nodes times descriptors above 32767";
	return NULL;
}

static void rdmalock_dslr_init(struct rdmalock_lockspace *ls,
			       const struct rdmalock_ls_params *params)
{
	struct rdmalock_dslr_ls *dls = dslr_ls(ls);

	dls->count_max = READ_ONCE(rdmalock_dslr_count_max);
	if (params->lease_recovery)
		dls->lease = (u64)(params->lease_ms ?: RDMALOCK_DSLR_LEASE_MS) *
			     NSEC_PER_MSEC;
}

/*
 * A view change zeroed every word; @w held its lock: take a ticket that
 * is granted at once, as if nobody else were about. An exclusive holder
 * finds the word 0; shared holders find each other only.
 */
static int rdmalock_dslr_recover_hold(struct rdmalock_lockspace *ls,
				      struct rdmalock_waiter *w)
{
	bool sh = w->mode == RDMALOCK_MODE_SH;
	struct rdmalock_dslr *d = dslr_w(w);
	u64 old;
	int ret;

	if (!sh) {
		ret = rdmalock_fabric_cas(ls->fabric, w->home, w->slot_off, 0,
					  dslr_ticket_add(false), &old);
		if (ret)
			return ret;
		d->prev = 0;
		return old ? -EBUSY : 0;
	}
	ret = rdmalock_fabric_faa(ls->fabric, w->home, w->slot_off,
				  dslr_ticket_add(true), &d->prev);
	if (ret)
		return ret;
	if (dslr_mx(d->prev)) {
		/* A writer claimed it: take this reader out again. */
		rdmalock_fabric_faa(ls->fabric, w->home, w->slot_off,
				    -dslr_ticket_add(true), &old);
		return -EBUSY;
	}
	return 0;
}

const struct rdmalock_algo rdmalock_dslr_algo = {
	.id = RDMALOCK_ALGO_DSLR,
	.name = "dslr",
	.shared = true,
	.leases = true,
	.ls_size = sizeof(struct rdmalock_dslr_ls),
	.waiter_size = sizeof(struct rdmalock_dslr),
	.check_params = rdmalock_dslr_check_params,
	.init = rdmalock_dslr_init,
	.acquire = rdmalock_dslr_acquire,
	.release = rdmalock_dslr_release,
	.downgrade = rdmalock_dslr_downgrade,
	.upgrade = rdmalock_dslr_upgrade,
	.recover_hold = rdmalock_dslr_recover_hold,
};

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
 * ever skipped. The paper's lease and stall resets (§6) are not built.
 * Once its ticket is taken an acquisition cannot be withdrawn (a ticket
 * behind others cannot be taken back), so from then on only a view change
 * or the domain's end stops its wait, not a deadline or a signal; a
 * trylock takes a ticket only where a READ shows it would be granted.
 *
 * Conversions are in place, by one CAS that accounts the slot held and
 * takes the other mode's ticket, granted at once: up only for the one
 * holder with nobody waiting, down while no writer waits behind and the
 * word is not frozen (else the exclusive ticket is kept until the
 * release, and a request that waits, in either mode, asks for it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
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
 * skipped, and the word is zeroed only once drained.
 *
 * Return: DSLR_POLL_GRANTED, _WAIT, or _SKIPPED when the word moved past
 * the ticket.
 */
VISIBLE_IF_KUNIT enum rdmalock_dslr_poll
rdmalock_dslr_poll(u64 prev, bool sh, u64 val)
{
	if (dslr_nx(val) > dslr_mx(prev) ||
	    (!sh && dslr_ns(val) > dslr_ms(prev)) ||
	    dslr_mx(val) < dslr_mx(prev) + !sh ||
	    dslr_ms(val) < dslr_ms(prev) + sh)
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

/* Zero a frozen word that @v, the result of our own atomic, shows drained. */
static int rdmalock_dslr_zero(const struct rdmalock_dslr_io *io, u32 count_max,
			      u64 v)
{
	u64 old;

	if (!rdmalock_dslr_frozen(v, count_max) || !rdmalock_dslr_drained(v))
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
 * After a bounce: READ the word, backing off, until it is no longer
 * frozen, and only then take a ticket again. Requesters that kept taking
 * tickets from a frozen word would keep their increments in it, and the
 * word could drain, and be zeroed, only in a gap between them: with
 * slow verbs, hardly ever.
 */
static int rdmalock_dslr_thaw(const struct rdmalock_dslr_io *io, u32 count_max)
{
	unsigned int us = DSLR_BOUNCE_MIN_US;
	u64 val;
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
		us = min(us * 2, DSLR_BOUNCE_MAX_US);
	}
}

static int rdmalock_dslr_await(const struct rdmalock_dslr_io *io, bool sh,
			       u64 prev)
{
	unsigned int us;
	u64 val = prev;
	int ret;

	for (;;) {
		us = clamp(rdmalock_dslr_ahead(prev, val) * DSLR_OMEGA_US,
			   DSLR_OMEGA_US, DSLR_POLL_MAX_US);
		ret = io->pause(io->ctx, us, false);
		if (ret)
			return ret;
		ret = io->read(io->ctx, &val);
		if (ret)
			return ret;
		switch (rdmalock_dslr_poll(prev, sh, val)) {
		case DSLR_POLL_GRANTED:
			return 0;
		case DSLR_POLL_SKIPPED:
			return -EIO;
		case DSLR_POLL_WAIT:
			break;
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
 * found the word frozen; -EIO when the word was moved past the ticket;
 * else what @io returned. A deadline or a signal ends the acquisition
 * only before its ticket is taken (&rdmalock_dslr_io.pause).
 */
VISIBLE_IF_KUNIT int rdmalock_dslr_take(const struct rdmalock_dslr_io *io, bool sh,
					u32 count_max, bool try, u64 *prev)
{
	u64 add = dslr_ticket_add(sh), val;
	int ret;

	if (try) {
		ret = io->read(io->ctx, &val);
		if (ret)
			return ret;
		if (rdmalock_dslr_ticket(val, sh, count_max) != DSLR_TICKET_GRANTED)
			return -EAGAIN;
	}
	for (;;) {
		ret = io->faa(io->ctx, add, prev);
		if (ret)
			return ret;
		switch (rdmalock_dslr_ticket(*prev, sh, count_max)) {
		case DSLR_TICKET_GRANTED:
			return 0;
		case DSLR_TICKET_WAIT:
			return rdmalock_dslr_await(io, sh, *prev);
		case DSLR_TICKET_FROZEN:
			break;
		}
		ret = rdmalock_dslr_bounce(io, sh, count_max, *prev + add);
		if (ret)
			return ret;
		if (try)
			return -EAGAIN;
		ret = rdmalock_dslr_thaw(io, count_max);
		if (ret)
			return ret;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_dslr_take);

/**
 * rdmalock_dslr_give() - release a granted ticket
 * @io: the lock word
 * @sh: a shared ticket
 * @count_max: COUNT_MAX
 * @prev: the ticket
 *
 * Return: 0; -EIO when the release found its slot accounted already; or
 * what @io returned.
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
		return -EIO;
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

struct rdmalock_dslr_ls {
	u32 count_max;
};

/* An acquisition: its ticket, and how it may wait while it takes it. */
struct rdmalock_dslr {
	u64 prev;
	struct rdmalock_lockspace *ls;
	struct rdmalock_waiter *w;
	const struct rdmalock_how *how;
};

static struct rdmalock_dslr *dslr_w(struct rdmalock_waiter *w)
{
	return rdmalock_waiter_priv(w);
}

static u32 dslr_count_max(struct rdmalock_lockspace *ls)
{
	return ((struct rdmalock_dslr_ls *)rdmalock_algo_data(ls))->count_max;
}

static int rdmalock_dslr_faa(void *ctx, u64 add, u64 *old)
{
	struct rdmalock_dslr *d = ctx;

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
	usleep_range(us, us + us / 4);
	return 0;
}

static const struct rdmalock_dslr_io rdmalock_dslr_fabric_io = {
	.faa = rdmalock_dslr_faa,
	.cas = rdmalock_dslr_cas,
	.read = rdmalock_dslr_read,
	.pause = rdmalock_dslr_pause,
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
	if (ret == -EIO)
		pr_err_ratelimited("%s: lock slot %#llx moved past a waiting ticket\n",
				   ls->name, w->slot_off);
	return ret ? rdmalock_acq_fail(ls, w, ret) : 0;
}

static int rdmalock_dslr_release(struct rdmalock_lockspace *ls,
				 struct rdmalock_waiter *w)
{
	struct rdmalock_dslr_io io = rdmalock_dslr_io_of(ls, w, &rdmalock_forever);
	int ret;

	ret = rdmalock_dslr_give(&io, w->mode == RDMALOCK_MODE_SH,
				 dslr_count_max(ls), dslr_w(w)->prev);
	if (ret == -EIO)
		pr_err_ratelimited("%s: lock slot %#llx was accounted under a holder\n",
				   ls->name, w->slot_off);
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
	/* Room above COUNT_MAX for every descriptor's bounce at once (INV-8). */
	if ((u64)params->num_nodes * params->descs > U16_MAX - DSLR_COUNT_MAX)
		return "dslr: nodes times descriptors above 32767";
	return NULL;
}

static void rdmalock_dslr_init(struct rdmalock_lockspace *ls,
			       const struct rdmalock_ls_params *params)
{
	struct rdmalock_dslr_ls *dls = rdmalock_algo_data(ls);

	dls->count_max = READ_ONCE(rdmalock_dslr_count_max);
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

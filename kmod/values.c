// SPDX-License-Identifier: GPL-2.0
/*
 * Lock values: a fencing token and a lock value block (LVB) per named
 * lock, kept at its home beside its slot (struct rdmalock_value).
 *
 * Only a holder touches them, and only under its lock: exclusive holders
 * exclude each other, so plain RDMA READs and WRITEs (CPU copies at the
 * home) are enough, without atomics. A handle asks for them with
 * rdmalock_lock_set_value(). A grant in a writing mode (PW, EX) reads the
 * value and writes back the token advanced by one; with an LVB it also
 * names itself the value's writer, and its release writes the LVB back
 * and clears the writer, before the lock is released. Any other grant
 * reads the value; a conversion moves it as DLM does
 * (rdmalock_value_on_convert()).
 *
 * A view change marks not valid the LVB of every lock that has a writer:
 * the writer may have left, been fenced, or lost its lock to the view
 * change, between its grant and its write-back, and the data the LVB
 * describes may have moved on without it. A writer that keeps its lock
 * through the view change writes the LVB back at its release, which
 * makes it valid again, as any exclusive holder's write-back does.
 *
 * The token of a slot given to a new name starts at the home's real-time
 * clock in nanoseconds, and every exclusive grant adds one. Grants are
 * far slower than one a nanosecond, so a name given a slot again later
 * starts above any token it had before, and storage that refuses tokens
 * below the highest it saw refuses a writer whose lock was recovered, as
 * long as the homes' clocks do not step back and agree to within the
 * time between grants. A writer that moves with its name to another home
 * (names.c) takes its token there, and its part as the LVB's writer.
 *
 * A home that comes back into a view after it left one (fenced, or
 * restarted) may still have slots for names that lived at another home
 * meanwhile: their LVBs are not valid, and their tokens start again at
 * its clock, unless above it.
 *
 * The value ops run inside the lock layer's gate, so a node fenced
 * meanwhile writes nothing: it holds nothing any more.
 */
#include <linux/string.h>
#include <linux/ktime.h>

#include "blocking.h"
#include "cluster.h"
#include "locks.h"
#include "names.h"
#include "rdmalock-pri.h"
#include "values.h"

static_assert(sizeof(struct rdmalock_value) <= RDMALOCK_VALUE_SIZE);

static struct rdmalock_value *rdmalock_value_local(struct rdmalock_lockspace *ls,
						   u32 slot)
{
	return ls->region + rdmalock_value_offset(ls->locks_per_node, ls->descs, slot);
}

/**
 * rdmalock_value_fresh() - a slot is given to a new name: its value starts
 * @ls: the home's lockspace
 * @slot: the slot, referenced by no node until now
 *
 * Context: any; no node accesses the value.
 */
void rdmalock_value_fresh(struct rdmalock_lockspace *ls, u32 slot)
{
	struct rdmalock_value *v = rdmalock_value_local(ls, slot);

	memset(v, 0, sizeof(*v));
	v->token = ktime_get_real_ns();
}

/**
 * rdmalock_value_forget() - what a slot's LVB describes was reset
 * @ls: the home's lockspace
 * @slot: the slot of a named lock
 *
 * The LVB is not valid: its next holder rebuilds it. The token stays.
 *
 * Context: any; nobody holds the lock (the torture's counters reset).
 */
void rdmalock_value_forget(struct rdmalock_lockspace *ls, u32 slot)
{
	rdmalock_value_local(ls, slot)->flags |= RDMALOCK_VALUE_F_NOT_VALID;
}

/**
 * rdmalock_values_recover() - a view change: LVBs with a writer are not valid
 * @ls: the home's lockspace, quiesced on every member
 * @members: the new view's members: the others hold and wait for nothing
 *
 * Context: process context.
 */
void rdmalock_values_recover(struct rdmalock_lockspace *ls, u32 members)
{
	u64 gone = rdmalock_interest_nodes(~members);
	struct rdmalock_value *v;
	u32 slot;

	for (slot = 0; slot < ls->locks_per_node; slot++) {
		v = rdmalock_value_local(ls, slot);
		v->interest &= ~gone;
		if (v->writer) {
			v->flags |= RDMALOCK_VALUE_F_NOT_VALID;
			v->writer = 0;
		}
	}
}

/**
 * rdmalock_values_rejoined() - this home is back in a view after it left one
 * @ls: the home's lockspace, quiesced on every member
 *
 * Context: process context.
 */
void rdmalock_values_rejoined(struct rdmalock_lockspace *ls)
{
	u64 now = ktime_get_real_ns();
	struct rdmalock_value *v;
	u32 slot;

	for (slot = 0; slot < ls->locks_per_node; slot++) {
		v = rdmalock_value_local(ls, slot);
		v->flags |= RDMALOCK_VALUE_F_NOT_VALID;
		v->token = max(v->token, now);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_values_rejoined);

/* A named lock's handle: its resolution gives the slot. */
static u64 rdmalock_lock_value_off(const struct rdmalock_lock *lk, u32 field)
{
	return rdmalock_value_offset(lk->dom->locks_per_node, lk->dom->ls->descs,
				     lk->ent->slot) + field;
}

static int rdmalock_value_read(struct rdmalock_lock *lk, struct rdmalock_value *v)
{
	struct rdmalock_lockspace *ls = lk->dom->ls;
	u64 off = rdmalock_lock_value_off(lk, 0);

	if (lk->home == ls->self) {
		memcpy(v, ls->region + off, sizeof(*v));
		return 0;
	}
	return rdmalock_fabric_read(ls->fabric, lk->home, off, v, sizeof(*v));
}

/* Writes @len bytes of @v from @field on. */
static int rdmalock_value_write(struct rdmalock_lock *lk,
				const struct rdmalock_value *v, u32 field, u32 len)
{
	struct rdmalock_lockspace *ls = lk->dom->ls;
	u64 off = rdmalock_lock_value_off(lk, field);

	if (lk->home == ls->self) {
		memcpy(ls->region + off, (const u8 *)v + field, len);
		return 0;
	}
	return rdmalock_fabric_write(ls->fabric, lk->home, off, (const u8 *)v + field,
				     len);
}

/**
 * rdmalock_value_writes() - does a holder in @mode write the LVB and take tokens?
 * @mode: RDMALOCK_MODE_*
 *
 * Return: true for PW and EX.
 */
bool rdmalock_value_writes(unsigned int mode)
{
	return rdmalock_lvb_on_unlock(rdmalock_lkmode_of(mode)) == RDMALOCK_LVB_WRITE;
}

/**
 * rdmalock_value_on_grant() - a holder's part of its lock's value at its grant
 * @lk: a handle that was just granted its lock in @lk->mode, with a value
 *	asked for
 * @from: the mode it held before: RDMALOCK_MODE_NL for a new grant
 *
 * Reads the value. A grant in a writing mode (PW, EX) that did not write
 * before takes the next fencing token and, with an LVB, names this node
 * the LVB's writer; one that did (PW to EX) keeps both.
 *
 * Context: process context, inside the gate; sleeps.
 * Return: 0, or the verb's error: the handle then does not know the value.
 */
int rdmalock_value_on_grant(struct rdmalock_lock *lk, unsigned int from)
{
	struct rdmalock_value v;
	int ret;

	ret = rdmalock_value_read(lk, &v);
	if (ret)
		return ret;
	if (lk->lvb)
		memcpy(lk->lvb, v.lvb, lk->lvb_len);
	lk->lvb_valid = !(v.flags & RDMALOCK_VALUE_F_NOT_VALID);
	if (!rdmalock_value_writes(lk->mode) || rdmalock_value_writes(from))
		return 0;
	v.token++;
	if (lk->lvb)
		v.writer = lk->dom->attr.node_id + 1;
	/* token, flags and writer: 16 bytes */
	ret = rdmalock_value_write(lk, &v, 0, offsetof(struct rdmalock_value, lvb));
	if (!ret)
		lk->token = v.token;
	return ret;
}

/**
 * rdmalock_value_moved() - a holder moved with its name to a new home
 * @lk: a handle holding its lock, with a value asked for, claimed at the
 *	new home of its name in a view change
 *
 * The new home's value started at its own clock: a writing holder (PW,
 * EX) takes its token there if it is higher, and, with an LVB, is named
 * its writer, as at its grant.
 *
 * Context: process context, in a view change; sleeps.
 * Return: 0, or the verb's error.
 */
int rdmalock_value_moved(struct rdmalock_lock *lk)
{
	struct rdmalock_value v;
	int ret;

	if (!rdmalock_value_writes(lk->mode))
		return 0;
	ret = rdmalock_value_read(lk, &v);
	if (ret)
		return ret;
	v.token = max(v.token, lk->token);
	if (lk->lvb)
		v.writer = lk->dom->attr.node_id + 1;
	/* token, flags and writer: 16 bytes */
	return rdmalock_value_write(lk, &v, 0, offsetof(struct rdmalock_value, lvb));
}

/**
 * rdmalock_value_write_back() - a writing holder writes its LVB back
 * @lk: a handle holding its lock in PW or EX, with an LVB, about to
 *	release it or convert
 * @to: the mode it will hold then: RDMALOCK_MODE_NL for a release
 *
 * The LVB is valid again. Its writer is cleared, unless @to writes too.
 *
 * Context: process context, inside the gate; sleeps.
 * Return: 0, or the verb's error.
 */
int rdmalock_value_write_back(struct rdmalock_lock *lk, unsigned int to)
{
	struct rdmalock_value v = {};
	u32 from = offsetof(struct rdmalock_value, flags);

	if (rdmalock_value_writes(to))
		v.writer = lk->dom->attr.node_id + 1;
	memcpy(v.lvb, lk->lvb, lk->lvb_len);
	/*
	 * flags, writer and this handle's bytes of the LVB: the token stays
	 * as the grant left it, and a longer LVB's tail as others wrote it.
	 */
	return rdmalock_value_write(lk, &v, from,
				    offsetof(struct rdmalock_value, lvb) - from +
				    lk->lvb_len);
}

/**
 * rdmalock_value_on_convert() - the value's move as a holder converts
 * @lk: a handle that converted from @from to @lk->mode without letting go
 *	of its lock word, with a value asked for
 * @from: the mode it held
 *
 * As DLM moves it (rdmalock_lvb_on_grant()): a writer converting down
 * writes its LVB back, a holder converting up reads the home's.
 *
 * Context: process context, inside the gate; sleeps.
 * Return: 0, or the verb's error.
 */
int rdmalock_value_on_convert(struct rdmalock_lock *lk, unsigned int from)
{
	switch (rdmalock_lvb_on_grant(rdmalock_lkmode_of(from),
				      rdmalock_lkmode_of(lk->mode))) {
	case RDMALOCK_LVB_READ:
		return rdmalock_value_on_grant(lk, from);
	case RDMALOCK_LVB_WRITE:
		return lk->lvb ? rdmalock_value_write_back(lk, lk->mode) : 0;
	default:
		return 0;
	}
}

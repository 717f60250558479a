// SPDX-License-Identifier: GPL-2.0
/*
 * DLM's lock modes on rdmalock's algorithms.
 *
 * An algorithm holds its lock word in one of two modes, shared or
 * exclusive, or only exclusive. DLM has six, which this maps onto them:
 * every mode is served by the weakest word mode that excludes everything
 * the DLM mode excludes, never by a weaker one, so that two DLM modes that
 * must not be held together never get word modes that may be. NL takes
 * no word at all. What a DLM user sees of the stronger mode is only that
 * some compatible requests wait (CR beside CW, say); nothing it relies on
 * for exclusion is lost.
 *
 * The lock value block moves as DLM moves it: a grant returns the home's
 * copy unless the requester converts down; a holder in PW or EX writes
 * its copy back as it converts down or unlocks.
 */
#include <linux/bits.h>
#include <linux/rdmalock.h>

#include "lkmode.h"
#include "rdmalock-pri.h"

/* For each mode, the modes that may be held beside it: DLM's matrix. */
static const u8 rdmalock_lkmode_compat[RDMALOCK_LK_MODES] = {
	[RDMALOCK_LK_NL] = GENMASK(RDMALOCK_LK_EX, RDMALOCK_LK_NL),
	[RDMALOCK_LK_CR] = GENMASK(RDMALOCK_LK_PW, RDMALOCK_LK_NL),
	[RDMALOCK_LK_CW] = GENMASK(RDMALOCK_LK_CW, RDMALOCK_LK_NL),
	[RDMALOCK_LK_PR] = BIT(RDMALOCK_LK_NL) | BIT(RDMALOCK_LK_CR) |
			   BIT(RDMALOCK_LK_PR),
	[RDMALOCK_LK_PW] = BIT(RDMALOCK_LK_NL) | BIT(RDMALOCK_LK_CR),
	[RDMALOCK_LK_EX] = BIT(RDMALOCK_LK_NL),
};

/* The API's modes (RDMALOCK_MODE_*) as DLM numbers them. */
static const s8 rdmalock_lkmode_api[RDMALOCK_MODES] = {
	[RDMALOCK_MODE_EX] = RDMALOCK_LK_EX,
	[RDMALOCK_MODE_PR] = RDMALOCK_LK_PR,
	[RDMALOCK_MODE_NL] = RDMALOCK_LK_NL,
	[RDMALOCK_MODE_CR] = RDMALOCK_LK_CR,
	[RDMALOCK_MODE_CW] = RDMALOCK_LK_CW,
	[RDMALOCK_MODE_PW] = RDMALOCK_LK_PW,
};

/**
 * rdmalock_lkmode_of() - the DLM mode of an API mode
 * @mode: RDMALOCK_MODE_*, from a caller
 *
 * Return: the mode, or RDMALOCK_LK_IV when @mode is none.
 */
enum rdmalock_lkmode rdmalock_lkmode_of(unsigned int mode)
{
	return mode < RDMALOCK_MODES ? rdmalock_lkmode_api[mode] : RDMALOCK_LK_IV;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_lkmode_of);

/**
 * rdmalock_lkmode_valid() - is @mode one of DLM's six?
 * @mode: a mode from a caller
 *
 * Return: true for RDMALOCK_LK_NL to RDMALOCK_LK_EX.
 */
bool rdmalock_lkmode_valid(int mode)
{
	return mode >= RDMALOCK_LK_NL && mode < RDMALOCK_LK_MODES;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_lkmode_valid);

/**
 * rdmalock_lkmode_compatible() - may one node hold @a while another holds @b?
 * @a: a valid mode
 * @b: a valid mode
 *
 * Return: true if DLM grants them together.
 */
bool rdmalock_lkmode_compatible(enum rdmalock_lkmode a, enum rdmalock_lkmode b)
{
	return rdmalock_lkmode_compat[a] & BIT(b);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_lkmode_compatible);

/**
 * rdmalock_lkmode_served() - the word mode an algorithm serves @mode with
 * @shared: the algorithm has a shared mode (&rdmalock_algo.shared)
 * @mode: a valid mode
 *
 * CR and PR are shared where the algorithm shares, since each excludes
 * only writers of some kind; CW, PW and EX are exclusive: CW excludes PR,
 * and two CW holders may not share a word that a PR holder could join.
 * Without a shared mode every mode but NL is exclusive.
 *
 * Return: the word mode.
 */
enum rdmalock_served rdmalock_lkmode_served(bool shared, enum rdmalock_lkmode mode)
{
	if (mode == RDMALOCK_LK_NL)
		return RDMALOCK_SERVED_NONE;
	if (shared && (mode == RDMALOCK_LK_CR || mode == RDMALOCK_LK_PR))
		return RDMALOCK_SERVED_SH;
	return RDMALOCK_SERVED_EX;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_lkmode_served);

/**
 * rdmalock_served_compatible() - may two holders hold a word in @a and @b?
 * @a: a word mode
 * @b: a word mode
 *
 * Return: true unless one of them is exclusive and the other holds it.
 */
bool rdmalock_served_compatible(enum rdmalock_served a, enum rdmalock_served b)
{
	if (a == RDMALOCK_SERVED_NONE || b == RDMALOCK_SERVED_NONE)
		return true;
	return a == RDMALOCK_SERVED_SH && b == RDMALOCK_SERVED_SH;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_served_compatible);

/**
 * rdmalock_lkmode_convert() - what converting from @from to @to needs
 * @shared: the algorithm has a shared mode
 * @from: the valid mode held
 * @to: the valid mode wanted
 *
 * A conversion between modes served alike changes nothing at the word
 * and is granted at once; EX to CW, say, or PR to CR.
 *
 * Return: RDMALOCK_CONV_KEEP, _UP or _DOWN.
 */
enum rdmalock_conversion rdmalock_lkmode_convert(bool shared,
						 enum rdmalock_lkmode from,
						 enum rdmalock_lkmode to)
{
	enum rdmalock_served held = rdmalock_lkmode_served(shared, from);
	enum rdmalock_served wanted = rdmalock_lkmode_served(shared, to);

	if (wanted == held)
		return RDMALOCK_CONV_KEEP;
	return wanted > held ? RDMALOCK_CONV_UP : RDMALOCK_CONV_DOWN;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_lkmode_convert);

static bool rdmalock_lkmode_writes(enum rdmalock_lkmode mode)
{
	return mode == RDMALOCK_LK_PW || mode == RDMALOCK_LK_EX;
}

/**
 * rdmalock_lvb_on_grant() - how the value block moves when @to is granted
 * @from: the mode held until then, RDMALOCK_LK_IV for a new request
 * @to: the valid mode granted
 *
 * A writer (PW, EX) that converts down, or to its own mode, leaves its
 * value at the home; PW converting up to EX, and every other holder
 * converting up or to its own mode, learns the home's. A reader that
 * converts down learns nothing new.
 *
 * Return: RDMALOCK_LVB_NONE, _READ or _WRITE.
 */
enum rdmalock_lvb_move rdmalock_lvb_on_grant(enum rdmalock_lkmode from,
					     enum rdmalock_lkmode to)
{
	if (rdmalock_lkmode_writes(from))
		return from == RDMALOCK_LK_PW && to == RDMALOCK_LK_EX ?
		       RDMALOCK_LVB_READ : RDMALOCK_LVB_WRITE;
	return to >= from ? RDMALOCK_LVB_READ : RDMALOCK_LVB_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_lvb_on_grant);

/**
 * rdmalock_lvb_on_unlock() - how the value block moves when @held is let go
 * @held: the valid mode held
 *
 * Return: RDMALOCK_LVB_WRITE from PW and EX, else RDMALOCK_LVB_NONE.
 */
enum rdmalock_lvb_move rdmalock_lvb_on_unlock(enum rdmalock_lkmode held)
{
	return rdmalock_lkmode_writes(held) ? RDMALOCK_LVB_WRITE : RDMALOCK_LVB_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_lvb_on_unlock);

/**
 * rdmalock_lvb_at_risk() - does a holder in @mode lost with its node spoil
 *	the value block?
 * @mode: the valid mode the lost node held
 *
 * It may have changed the value without writing it back: the home's copy
 * is then marked not valid, for the next holder to rebuild.
 *
 * Return: true for PW and EX.
 */
bool rdmalock_lvb_at_risk(enum rdmalock_lkmode mode)
{
	return rdmalock_lkmode_writes(mode);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_lvb_at_risk);

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DLM's six lock modes on rdmalock's algorithms: which modes may be held
 * together, what an algorithm serves each with, what a conversion needs
 * of it, and which way a lock value block moves. See Documentation/dlm.rst.
 */
#ifndef _RDMALOCK_LKMODE_H
#define _RDMALOCK_LKMODE_H

#include <linux/types.h>

/**
 * enum rdmalock_lkmode - DLM's lock modes, numbered as <linux/dlm.h> does
 * @RDMALOCK_LK_IV: not held: what a new request converts from
 * @RDMALOCK_LK_NL: null: held by anyone at once, blocks nobody
 * @RDMALOCK_LK_CR: concurrent read
 * @RDMALOCK_LK_CW: concurrent write
 * @RDMALOCK_LK_PR: protected read
 * @RDMALOCK_LK_PW: protected write
 * @RDMALOCK_LK_EX: exclusive
 * @RDMALOCK_LK_MODES: how many there are
 */
enum rdmalock_lkmode {
	RDMALOCK_LK_IV = -1,
	RDMALOCK_LK_NL,
	RDMALOCK_LK_CR,
	RDMALOCK_LK_CW,
	RDMALOCK_LK_PR,
	RDMALOCK_LK_PW,
	RDMALOCK_LK_EX,
	RDMALOCK_LK_MODES
};

/**
 * enum rdmalock_served - what an algorithm's lock word is held in
 * @RDMALOCK_SERVED_NONE: not held at all (NL)
 * @RDMALOCK_SERVED_SH: RDMALOCK_MODE_SH
 * @RDMALOCK_SERVED_EX: RDMALOCK_MODE_EX
 *
 * Ordered: a greater value excludes at least what a smaller one does.
 */
enum rdmalock_served {
	RDMALOCK_SERVED_NONE,
	RDMALOCK_SERVED_SH,
	RDMALOCK_SERVED_EX,
};

/**
 * enum rdmalock_conversion - what converting a held lock asks of its algorithm
 * @RDMALOCK_CONV_KEEP: the word stays held as it is: granted at once
 * @RDMALOCK_CONV_UP: the word must be held in a stronger mode; the old
 *	one is kept until the new one is granted
 * @RDMALOCK_CONV_DOWN: the word may be held in a weaker mode, without
 *	being let go of in between
 */
enum rdmalock_conversion {
	RDMALOCK_CONV_KEEP,
	RDMALOCK_CONV_UP,
	RDMALOCK_CONV_DOWN,
};

/**
 * enum rdmalock_lvb_move - what happens to a lock value block
 * @RDMALOCK_LVB_NONE: nothing
 * @RDMALOCK_LVB_READ: the home's copy is returned to the requester
 * @RDMALOCK_LVB_WRITE: the holder's copy replaces the home's
 */
enum rdmalock_lvb_move {
	RDMALOCK_LVB_NONE,
	RDMALOCK_LVB_READ,
	RDMALOCK_LVB_WRITE,
};

enum rdmalock_lkmode rdmalock_lkmode_of(unsigned int mode);
bool rdmalock_lkmode_valid(int mode);
bool rdmalock_lkmode_compatible(enum rdmalock_lkmode a, enum rdmalock_lkmode b);
enum rdmalock_served rdmalock_lkmode_served(bool shared, enum rdmalock_lkmode mode);
bool rdmalock_served_compatible(enum rdmalock_served a, enum rdmalock_served b);
enum rdmalock_conversion rdmalock_lkmode_convert(bool shared,
						 enum rdmalock_lkmode from,
						 enum rdmalock_lkmode to);
enum rdmalock_lvb_move rdmalock_lvb_on_grant(enum rdmalock_lkmode from,
					     enum rdmalock_lkmode to);
enum rdmalock_lvb_move rdmalock_lvb_on_unlock(enum rdmalock_lkmode held);
bool rdmalock_lvb_at_risk(enum rdmalock_lkmode mode);

#endif /* _RDMALOCK_LKMODE_H */

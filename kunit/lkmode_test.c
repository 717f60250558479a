// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: DLM's modes on rdmalock's algorithms.
 *
 * The compatibility matrix is checked against DLM's, written out here
 * from its documentation; the word modes an algorithm serves DLM modes
 * with are checked to keep every exclusion DLM promises, with a broken
 * mapping as the negative control that the check must catch; then the
 * conversions and the value block's rules.
 */
#include <kunit/test.h>

#include "locks.h"

#define NL RDMALOCK_LK_NL
#define CR RDMALOCK_LK_CR
#define CW RDMALOCK_LK_CW
#define PR RDMALOCK_LK_PR
#define PW RDMALOCK_LK_PW
#define EX RDMALOCK_LK_EX

/* DLM's compatibility, row against column, NL to EX. */
static const bool dlm_compat[RDMALOCK_LK_MODES][RDMALOCK_LK_MODES] = {
	/*         NL CR CW PR PW EX */
	[NL] = { 1, 1, 1, 1, 1, 1 },
	[CR] = { 1, 1, 1, 1, 1, 0 },
	[CW] = { 1, 1, 1, 0, 0, 0 },
	[PR] = { 1, 1, 0, 1, 0, 0 },
	[PW] = { 1, 1, 0, 0, 0, 0 },
	[EX] = { 1, 0, 0, 0, 0, 0 },
};

static void modes_are_dlms(struct kunit *test)
{
	int m;

	KUNIT_EXPECT_FALSE(test, rdmalock_lkmode_valid(RDMALOCK_LK_IV));
	KUNIT_EXPECT_FALSE(test, rdmalock_lkmode_valid(RDMALOCK_LK_MODES));
	for (m = NL; m <= EX; m++)
		KUNIT_EXPECT_TRUE(test, rdmalock_lkmode_valid(m));
	/* The numbers DLM users pass: <linux/dlm.h>'s DLM_LOCK_*. */
	KUNIT_EXPECT_EQ(test, RDMALOCK_LK_IV, -1);
	KUNIT_EXPECT_EQ(test, NL, 0);
	KUNIT_EXPECT_EQ(test, PR, 3);
	KUNIT_EXPECT_EQ(test, EX, 5);
}

/* The API's modes are DLM's, each once; EX and SH are what they were. */
static void api_modes_are_dlms(struct kunit *test)
{
	static const int want[RDMALOCK_MODES] = {
		[RDMALOCK_MODE_NL] = NL, [RDMALOCK_MODE_CR] = CR,
		[RDMALOCK_MODE_CW] = CW, [RDMALOCK_MODE_PR] = PR,
		[RDMALOCK_MODE_PW] = PW, [RDMALOCK_MODE_EX] = EX,
	};
	unsigned int m;

	KUNIT_EXPECT_EQ(test, RDMALOCK_MODE_EX, 0);
	KUNIT_EXPECT_EQ(test, RDMALOCK_MODE_SH, 1);
	KUNIT_EXPECT_EQ(test, RDMALOCK_MODE_SH, RDMALOCK_MODE_PR);
	for (m = 0; m < RDMALOCK_MODES; m++)
		KUNIT_EXPECT_EQ_MSG(test, rdmalock_lkmode_of(m), want[m], "mode %u", m);
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_of(RDMALOCK_MODES), RDMALOCK_LK_IV);
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_of(UINT_MAX), RDMALOCK_LK_IV);
}

/* The word mode a lockspace asks its algorithm for, per API mode. */
static void api_modes_take_their_words(struct kunit *test)
{
	static const struct rdmalock_algo rw = { .shared = true }, ex_only = {};
	struct rdmalock_lockspace ls = { .algo = &rw };
	unsigned int m;

	for (m = 0; m < RDMALOCK_MODES; m++) {
		if (m == RDMALOCK_MODE_NL)
			continue;
		ls.algo = &rw;
		KUNIT_EXPECT_EQ_MSG(test, rdmalock_word_mode(&ls, m),
				    m == RDMALOCK_MODE_PR || m == RDMALOCK_MODE_CR ?
				    RDMALOCK_MODE_SH : RDMALOCK_MODE_EX, "mode %u", m);
		ls.algo = &ex_only;
		KUNIT_EXPECT_EQ_MSG(test, rdmalock_word_mode(&ls, m), RDMALOCK_MODE_EX,
				    "mode %u", m);
	}
}

static void compatibility_is_dlms(struct kunit *test)
{
	int a, b;

	for (a = NL; a <= EX; a++)
		for (b = NL; b <= EX; b++)
			KUNIT_EXPECT_EQ_MSG(test, rdmalock_lkmode_compatible(a, b),
					    dlm_compat[a][b], "modes %d and %d", a, b);
}

/*
 * The first pair of modes that DLM keeps apart and @served lets share a
 * word, as a*RDMALOCK_LK_MODES+b; -1 if none.
 */
static int first_exclusion_lost(enum rdmalock_served (*served)(bool, enum rdmalock_lkmode),
				bool shared)
{
	int a, b;

	for (a = NL; a <= EX; a++)
		for (b = NL; b <= EX; b++)
			if (!rdmalock_lkmode_compatible(a, b) &&
			    rdmalock_served_compatible(served(shared, a),
						       served(shared, b)))
				return a * RDMALOCK_LK_MODES + b;
	return -1;
}

static void serving_keeps_every_exclusion(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, first_exclusion_lost(rdmalock_lkmode_served, true), -1);
	KUNIT_EXPECT_EQ(test, first_exclusion_lost(rdmalock_lkmode_served, false), -1);
}

/* The negative control's mappings: each serves one mode too weakly. */
static enum rdmalock_served cw_as_shared(bool shared, enum rdmalock_lkmode mode)
{
	return mode == CW ? RDMALOCK_SERVED_SH : rdmalock_lkmode_served(shared, mode);
}

static enum rdmalock_served cr_as_nothing(bool shared, enum rdmalock_lkmode mode)
{
	return mode == CR ? RDMALOCK_SERVED_NONE : rdmalock_lkmode_served(shared, mode);
}

static void a_weak_serving_is_caught(struct kunit *test)
{
	/* CW beside PR, both shared. */
	KUNIT_EXPECT_EQ(test, first_exclusion_lost(cw_as_shared, true),
			CW * RDMALOCK_LK_MODES + PR);
	/* CR beside EX, with nothing held for CR. */
	KUNIT_EXPECT_EQ(test, first_exclusion_lost(cr_as_nothing, false),
			CR * RDMALOCK_LK_MODES + EX);
}

static void serving_is_as_weak_as_allowed(struct kunit *test)
{
	int m;

	/* Readers really share where the algorithm can: GFS2 mounts need it. */
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_served(true, PR), RDMALOCK_SERVED_SH);
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_served(true, CR), RDMALOCK_SERVED_SH);
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_served(true, CW), RDMALOCK_SERVED_EX);
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_served(true, PW), RDMALOCK_SERVED_EX);
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_served(true, EX), RDMALOCK_SERVED_EX);
	for (m = CR; m <= EX; m++)
		KUNIT_EXPECT_EQ(test, rdmalock_lkmode_served(false, m), RDMALOCK_SERVED_EX);
	/* NL blocks nobody, with either kind of algorithm. */
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_served(true, NL), RDMALOCK_SERVED_NONE);
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_served(false, NL), RDMALOCK_SERVED_NONE);
	KUNIT_EXPECT_TRUE(test, rdmalock_served_compatible(RDMALOCK_SERVED_NONE,
							   RDMALOCK_SERVED_EX));
	KUNIT_EXPECT_FALSE(test, rdmalock_served_compatible(RDMALOCK_SERVED_SH,
							    RDMALOCK_SERVED_EX));
}

static void conversions(struct kunit *test)
{
	int from, to, shared;

	for (shared = 0; shared <= 1; shared++)
		for (from = NL; from <= EX; from++)
			for (to = NL; to <= EX; to++) {
				enum rdmalock_served f = rdmalock_lkmode_served(shared, from);
				enum rdmalock_served t = rdmalock_lkmode_served(shared, to);
				enum rdmalock_conversion c;

				c = rdmalock_lkmode_convert(shared, from, to);
				KUNIT_EXPECT_EQ(test, c == RDMALOCK_CONV_KEEP, f == t);
				KUNIT_EXPECT_EQ(test, c == RDMALOCK_CONV_UP, t > f);
			}
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_convert(true, EX, CW), RDMALOCK_CONV_KEEP);
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_convert(true, PR, CR), RDMALOCK_CONV_KEEP);
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_convert(true, PR, EX), RDMALOCK_CONV_UP);
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_convert(true, NL, PR), RDMALOCK_CONV_UP);
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_convert(true, EX, PR), RDMALOCK_CONV_DOWN);
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_convert(true, EX, NL), RDMALOCK_CONV_DOWN);
	/* Numbered "up", yet a shared mode from an exclusive one. */
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_convert(true, CW, PR), RDMALOCK_CONV_DOWN);
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_convert(false, EX, PR), RDMALOCK_CONV_KEEP);
	KUNIT_EXPECT_EQ(test, rdmalock_lkmode_convert(false, PR, NL), RDMALOCK_CONV_DOWN);
}

#define RD RDMALOCK_LVB_READ
#define WR RDMALOCK_LVB_WRITE
#define NO RDMALOCK_LVB_NONE

/* DLM's value block on a grant: held (IV for none) against granted. */
static const enum rdmalock_lvb_move dlm_lvb[RDMALOCK_LK_MODES + 1][RDMALOCK_LK_MODES] = {
	/*          NL  CR  CW  PR  PW  EX */
	[0]      = { RD, RD, RD, RD, RD, RD },	/* a new request */
	[1 + NL] = { RD, RD, RD, RD, RD, RD },
	[1 + CR] = { NO, RD, RD, RD, RD, RD },
	[1 + CW] = { NO, NO, RD, RD, RD, RD },
	[1 + PR] = { NO, NO, NO, RD, RD, RD },
	[1 + PW] = { WR, WR, WR, WR, WR, RD },
	[1 + EX] = { WR, WR, WR, WR, WR, WR },
};

static void value_block_moves(struct kunit *test)
{
	int from, to;

	for (from = RDMALOCK_LK_IV; from <= EX; from++)
		for (to = NL; to <= EX; to++)
			KUNIT_EXPECT_EQ_MSG(test, rdmalock_lvb_on_grant(from, to),
					    dlm_lvb[1 + from][to], "from %d to %d",
					    from, to);
	for (from = NL; from <= EX; from++) {
		KUNIT_EXPECT_EQ(test, rdmalock_lvb_on_unlock(from),
				from == PW || from == EX ? WR : NO);
		KUNIT_EXPECT_EQ(test, rdmalock_lvb_at_risk(from),
				from == PW || from == EX);
	}
}

static struct kunit_case rdmalock_lkmode_cases[] = {
	KUNIT_CASE(modes_are_dlms),
	KUNIT_CASE(api_modes_are_dlms),
	KUNIT_CASE(api_modes_take_their_words),
	KUNIT_CASE(compatibility_is_dlms),
	KUNIT_CASE(serving_keeps_every_exclusion),
	KUNIT_CASE(a_weak_serving_is_caught),
	KUNIT_CASE(serving_is_as_weak_as_allowed),
	KUNIT_CASE(conversions),
	KUNIT_CASE(value_block_moves),
	{}
};

static struct kunit_suite rdmalock_lkmode_suite = {
	.name = "rdmalock_lkmode",
	.test_cases = rdmalock_lkmode_cases,
};

kunit_test_suite(rdmalock_lkmode_suite);

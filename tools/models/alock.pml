/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ALock as kmod/alock.c and kmod/rqueue.c ship it, at the level of single
 * verbs (see Documentation/models.rst for the map to those functions).
 *
 * Processes 1..NL run on the lock's home node (the local cohort, CPU
 * atomics on TAIL_L); NL+1..NP each run on a node of their own (the
 * remote cohort, RDMA CAS on TAIL_R), so every hand-over between them
 * goes through the NIC as a write with immediate, whose event the
 * receiving node handles later (the nic process). A descriptor is named
 * by its owner's number; 0 is null.
 *
 * -DABANDON lets a waiter give up where kmod's may (a timeout, a signal,
 * a trylock), so the abandon/grant race of lockspace.c is checked.
 * -DROUNDS=n bounds each process to n acquisitions, so a process that
 * waits for ever is an invalid end state; ROUNDS=0 runs for ever, for
 * the LTL properties.
 *
 * Negative cases, each the printed pseudocode of an erratum in
 * shared/specs/alock.md:
 *   PRINTED_PETERSON_OR  SPAA Alg. 4 waits while other tail OR victim = us
 *   PRINTED_SINGLE_CAS   SPAA Alg. 3 enqueues with one rCAS from null
 *   PROSE_QLOCK_RETURN   TR 3.1's prose: the empty-queue leader enters,
 *                        the one handed the lock runs Peterson
 */
#include "verbs.pml"

#ifndef NL
#define NL 1
#endif
#ifndef NR
#define NR 2
#endif
#define NP (NL + NR)
#ifndef BL
#define BL 1
#endif
#ifndef BR
#define BR 2
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

#define LOCAL	1
#define REMOTE	2
#define W_WAITING	0
#define W_GRANTED	1
#define W_ABANDONED	2

/* The lock's slot at its home node. */
byte tail_r, tail_l, victim;
/*
 * Descriptors: BUDGET and NEXT words, events, the waiter's state, and
 * the generation that rdmalock_desc_alloc() bumps. A pointer is
 * PTR(d, gen), as rdmalock_desc_encode() makes it.
 */
short budget[NP + 1];
byte next[NP + 1];
bit ev_grant[NP + 1], ev_link[NP + 1], work[NP + 1];
byte wstate[NP + 1], gen[NP + 1];
/* Immediates in flight (their generation), per descriptor and event. */
chan grant_imm[5] = [1] of { byte };
chan link_imm[5] = [1] of { byte };

/*
 * Generations tell a stale event from a current one; the LTL runs, in
 * which nobody gives up and no event is stale, use one (-DGENS=1).
 */
#ifndef GENS
#define GENS	4
#endif
#define PTR(d, g)	((d) * 4 + (g))
#define DESC(p)		((p) / 4)
#define GEN(p)		((p) % 4)

byte holders;
bit incs[NP + 1], queued[NP + 1];

/*
 * kmod's waiter goes on when the state says granted, the handler's last
 * access to the descriptor (rdmalock_happened()). -DWAIT_ON_BIT models
 * kmod before that fix, going on when the GRANT bit is set: see
 * Documentation/models.rst, "the stale grant".
 */
#ifdef WAIT_ON_BIT
#define GRANTED(d)	ev_grant[d]
#else
#define GRANTED(d)	(wstate[d] == W_GRANTED)
#endif

#ifdef PRINTED_PETERSON_OR
#define MUST_WAIT(t, v, us)	(t != 0 || v == us)
#else
#define MUST_WAIT(t, v, us)	(t != 0 && v == us)
#endif

/*
 * rdmalock_event(): drop an event for an older acquisition, else set its
 * bit, then settle the grant/abandon race. Three steps, as in kmod: the
 * owner may see the bit and go on before the third.
 */
inline event(d, g, grant)
{
	if
	:: gen[d] != g
	:: else ->
		if
		:: grant ->
			ev_grant[d] = 1;
			atomic {
				if
				:: wstate[d] == W_WAITING -> wstate[d] = W_GRANTED
				:: wstate[d] == W_ABANDONED -> work[d] = 1
				:: else
				fi
			}
		:: else -> ev_link[d] = 1
		fi
	fi
}

/*
 * rdmalock_desc_signal(): the home node's threads store and wake each
 * other; a peer's write with immediate lands its word at once and its
 * event when the receiving node gets to it.
 */
inline signal_grant(p, val)
{
	if
	:: athome -> budget[DESC(p)] = val; event(DESC(p), GEN(p), 1)
	:: else -> atomic { budget[DESC(p)] = val; grant_imm[DESC(p)] ! GEN(p) }
	fi
}

inline signal_link(p)
{
	if
	:: athome -> next[DESC(p)] = myptr; event(DESC(p), GEN(p), 0)
	:: else -> atomic { next[DESC(p)] = myptr; link_imm[DESC(p)] ! GEN(p) }
	fi
}

/* The receiving nodes' completion handlers, in any order. */
active proctype nic()
{
	byte g;
end:
	do
	:: grant_imm[1] ? g -> event(1, g, 1)
	:: grant_imm[2] ? g -> event(2, g, 1)
	:: grant_imm[3] ? g -> event(3, g, 1)
	:: grant_imm[4] ? g -> event(4, g, 1)
	:: link_imm[1] ? g -> event(1, g, 0)
	:: link_imm[2] ? g -> event(2, g, 0)
	:: link_imm[3] ? g -> event(3, g, 0)
	:: link_imm[4] ? g -> event(4, g, 0)
	od
}

proctype proc(byte me; bit athome)
{
	byte myptr, pred, old, t, v, n, round;
	short granted, mybudget;
	bit abandoned, try;

	do
	:: ROUNDS > 0 && round == ROUNDS -> break
	:: ROUNDS == 0 || round < ROUNDS ->
#if ROUNDS > 0
		round++;
#endif
		/* rdmalock_desc_alloc(): reset before anyone can see it. */
		atomic {
			gen[me] = (gen[me] + 1) % GENS; myptr = PTR(me, gen[me]);
			budget[me] = -1; next[me] = 0; ev_grant[me] = 0;
			ev_link[me] = 0; wstate[me] = W_WAITING;
			/* Dead locals are zeroed, so states differ only in what matters. */
			pred = 0; old = 0; t = 0; v = 0; n = 0; granted = 0;
			mybudget = 0; abandoned = 0; try = 0
		};
#ifdef ABANDON
		if
		:: try = 1
		:: skip
		fi;
#endif
		if
		:: athome ->
			if
			:: try -> CPU_CAS(tail_l, 0, myptr, pred);
				if
				:: pred != 0 -> goto done
				:: else
				fi
			:: else -> CPU_XCHG(tail_l, myptr, pred)
			fi
		:: else ->
			/* rdmalock_rqueue_enqueue(): a CAS loop from "empty". */
			t = 0;
			do
			:: RDMA_CAS(tail_r, t, myptr, old);
				if
				:: old == t -> break
				:: old != t && try -> goto done
				:: old != t && !try ->
#ifdef PRINTED_SINGLE_CAS
					break
#else
					t = old
#endif
				fi
			od;
			pred = old
		fi;
		queued[me] = 1;
		if
		:: pred == 0 -> granted = 0; goto enter
		:: else
		fi;
		/* rdmalock_rqueue_wait() / the local twin: link, wait for a grant. */
		signal_link(pred);
		if
		:: GRANTED(me) -> granted = budget[me]; goto enter
#ifdef ABANDON
		:: !try ->
			/* rdmalock_wait_cancel() */
			atomic {
				if
				:: wstate[me] == W_WAITING ->
					wstate[me] = W_ABANDONED; abandoned = 1
				:: else
				fi
			};
			if
			:: abandoned -> work[me]; work[me] = 0
			:: else
			fi;
			granted = budget[me];
			goto pass_on
#endif
		fi;
enter:
		/* rdmalock_alock_enter() */
#ifdef PROSE_QLOCK_RETURN
		if
		:: pred == 0 -> mybudget = (athome -> BL : BR); goto cs
		:: else
		fi;
#else
		if
		:: granted > 0 -> mybudget = granted; goto cs
		:: else
		fi;
#endif
		/* Peterson's lock, _peterson_local() or _peterson_remote(). */
		victim = (athome -> LOCAL : REMOTE);
		do
		:: if
		   :: athome -> t = tail_r; v = victim
		   :: athome -> v = victim; t = tail_r
		   :: !athome -> t = tail_l; v = victim
		   :: !athome -> v = victim; t = tail_l
		   fi;
		   if
		   :: !MUST_WAIT(t, v, (athome -> LOCAL : REMOTE)) -> break
		   :: else ->
			/* Polling the same values again changes nothing. */
			if
			:: athome && (tail_r != t || victim != v) -> skip
			:: !athome && (tail_l != t || victim != v) -> skip
#ifdef ABANDON
			/* rdmalock_backoff() gave up: pass on a budget of 0. */
			:: granted = 0; goto pass_on
#endif
			fi
		   fi
		od;
		mybudget = (athome -> BL : BR);
cs:
		queued[me] = 0;
		CS_ENTER(me);
		CS_LEAVE(me);
		goto release;
pass_on:
		/* rdmalock_pass_on() */
		queued[me] = 0;
		mybudget = (granted > 1 -> granted : 1);
release:
		/* _alock_release_local() / rdmalock_rqueue_release() */
		if
		:: !ev_link[me] ->
			if
			:: athome -> CPU_CAS(tail_l, myptr, 0, old)
			:: else -> RDMA_CAS(tail_r, myptr, 0, old)
			fi;
			if
			:: old == myptr -> goto done
			:: else -> ev_link[me]
			fi
		:: else
		fi;
		n = next[me];
		signal_grant(n, mybudget - 1);
done:
		skip
	od
}

init
{
	byte i;

	atomic {
		for (i : 1 .. NP) {
			run proc(i, i <= NL)
		}
	}
}

#ifdef LIVENESS
#define SF(p)	([] (queued[p] -> <> incs[p]))
#if NP == 2
ltl starvation { SF(1) && SF(2) }
#elif NP == 3
ltl starvation { SF(1) && SF(2) && SF(3) }
#else
ltl starvation { SF(1) && SF(2) && SF(3) && SF(4) }
#endif
#endif

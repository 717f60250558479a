/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ShiftLock's 8-byte port (shared/specs/shiftlock.md 2.9, 3.4, 4), at
 * the level of single verbs. kmod/shiftlock.c implements it; the map
 * from model steps to the spec and to kmod is in Documentation/models.rst.
 *
 * One 8-byte word at the lock server holds RelCnt (modulo M here, with
 * its reset leap M/2), Epoch, RdrCnt and TailId; every access to it is
 * an RDMA verb (I14), so each is one step. Writers 1..NW queue by a CAS
 * loop and tell each other by messages (channels, delivered whenever the
 * receiver polls); readers NW+1..NP FAA and poll the word.
 *
 * -DFAULTS: any process may crash at any step, and a waiter that has
 * seen RelCnt stand still may have the server reset the lock (through
 * its NIC, conditional on the RelCnt it saw: 4.8 H2). That it stood
 * still for 3 leases is the timing argument of 4.3, which the model
 * takes as: every holder's lease has expired by the reset, so every
 * holder, and a writer handed the lock but not yet aware of it, stops
 * using the lock and does not release it (H1, H4). A writer restarts
 * under a new mailbox name, so late messages to the old one are dropped
 * (H5). RESET_NEEDS_CRASH allows a reset only after a crash, so that a
 * deadlock check is not fooled by resets spent on slow holders (that
 * check does not pass yet: see Documentation/models.rst).
 *
 * Negative cases, each the printed form of an erratum of the spec:
 *   SRC_EPOCH_FIRST         E9: a waiting reader tests the epoch before
 *                           the RelCnt leap
 *   PRINTED_HANDOVER_EPOCH  E4: Handover and ModeChanged carry no epoch;
 *                           the writer keeps its enqueue's
 *
 * -DBYPASS: starvation freedom as a safety property, bounded bypass (the
 * comment at byp[] below). Its negative cases:
 *   NO_BATCH                writers never flip for the readers while one
 *                           is queued: no writer_batch (X6 never true)
 *   BYPASS_UNDER=1          the bound asserted one lower
 */
#include "verbs.pml"

#ifndef NW
#define NW 2
#endif
#ifndef NRD
#define NRD 1
#endif
#define NP (NW + NRD)
/* A writer handed the lock THRESH times in a row passes it to readers. */
#ifndef THRESH
#define THRESH 1
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif
/* Readers' rounds. */
#ifndef RROUNDS
#define RROUNDS 1
#endif
#ifndef MAXRESETS
#define MAXRESETS 1
#endif
#ifndef M
#define M 16
#endif
#define LEAP(a, b)	((((a) + M - (b)) % M) >= M / 2)
/* Writer w's mailbox name in incarnation i, and back. */
#define WID(w, i)	((w) + NW * (i))
#define MBOX(id)	(((id) - 1) % NW + 1)

mtype = { SUCC, HANDOVER, MODECHANGED };

byte rel, rdr, tail;
bit ep;
/* type, addressee's name, payload a, payload b, epoch */
chan mbox[NW + 1] = [3] of { mtype, byte, byte, byte, bit };

byte wholders, rholders, resets, i;
bit incs[NP + 1], queued[NP + 1], want[NP + 1];
/*
 * holding[p]: p has the lock, whether or not it has entered its critical
 * section yet, set by the verb that gave it; pending[p]: a Handover to p
 * is on its way. Both are what a reset expires.
 */
bit expired[NP + 1], pending[NP + 1], holding[NP + 1], crashed;

/*
 * Bounded bypass (-DBYPASS, without FAULTS): from the atomic that queues
 * p (a writer's successful tail CAS, W2; a reader's FAA, R2) until p
 * enters, byp[p] counts the entries of the processes p conflicts with:
 * every other process for a writer, the writers for a reader (readers
 * share, and one that is admitted already waits for nobody). Each such
 * entry asserts byp[p] <= its bound. Let WB = THRESH + 1, kmod's
 * writer_batch: the writers in a row before a flip (the one handed the
 * lock THRESH times flips, or releases with X2, which flips too).
 *
 * A reader r. If its FAA finds TailId 0, R3 admits it at once, and a
 * writer that queues after it waits for its release (W17-W20): no writer
 * enters first. Else r waits for the next flip. The writers hand the
 * lock on in FIFO order, each Handover one more in the row, so at most
 * WB of them enter, the first of the row included, before one of them
 * flips (X7 if it has a successor, X2 if not). The flip admits r, and
 * the next writer's RelCnt target includes r's release. So BR = WB.
 *
 * A writer w. Once its CAS is done, TailId is not 0 until w releases,
 * so no reader is admitted by R3, and no later writer comes before it
 * (FIFO): only the k <= NW - 1 writers queued ahead of it enter, once
 * each, and readers. Each reader enters at most once per batch: after
 * its release its FAA finds TailId set and it waits for a flip. The
 * batches: the one admitted before w's CAS (by a flip, or by R3), whose
 * readers may still be to enter, and one per flip by a writer ahead.
 * A batch still open means that the first writer ahead, if any, comes
 * after readers and so is the first of its row; then the writers ahead
 * flip at most floor(k / WB) times. Without an open batch they flip at
 * most ceil(k / WB) times. Either way at most 1 + floor(k / WB) batches,
 * so BW = (NW - 1) + NRD * (1 + (NW - 1) / WB).
 *
 * NW = 2, NRD = 1, THRESH = 1: WB = 2, BR = 2, BW = 1 + 1 * (1 + 0) = 2.
 * Each is reached: BYPASS_UNDER=1 asserts B - 1 and fails, for either
 * (each tried alone). THRESH = 0 (BR 1, BW 3) and 2 (BR 3, BW 2) pass
 * too, and fail with BYPASS_UNDER=1; make models does not run them.
 *
 * make models runs it with unbounded rounds (ROUNDS=0, RROUNDS=0), so the
 * bound holds on every run, at every length, with no fairness assumed.
 * The same run finds no invalid end state: nothing blocks everyone. With
 * weak fairness the two give starvation freedom from the queueing atomic
 * (Documentation/models.rst).
 *
 * Without FAULTS nothing resets the word, so a leap would be false: a
 * waiter that saw RelCnt move by M/2 between two reads. It is asserted
 * not to happen (NO_LEAP). The run uses M = 8: between its queueing and
 * its entry a waiter sees RelCnt move once per release, at most B + 1 = 3
 * times (for the B entries and the holder it queued behind), under 4,
 * and every RelCnt a process compares with is within NRD + 1 = 2 of it,
 * so M = 8 and M = 16 decide every test alike, and the state space is
 * four times smaller.
 */
#ifdef BYPASS
#ifdef FAULTS
#error BYPASS holds without FAULTS only: a reset restarts the waiters
#endif
#ifdef PRINTED_HANDOVER_EPOCH
#error BYPASS forgets g_ep, which PRINTED_HANDOVER_EPOCH reads
#endif
#ifndef BYPASS_UNDER
#define BYPASS_UNDER 0
#endif
#define WB	(THRESH + 1)
#define BR	(WB - BYPASS_UNDER)
#define BW	((NW - 1) + NRD * (1 + (NW - 1) / WB) - BYPASS_UNDER)
byte byp[NP + 1], bq, bmax;
bit bwait[NP + 1];
/*
 * These expand to nothing without BYPASS, so that the other checks run
 * the model unchanged. At the end of the queueing atomic:
 */
#define BYP_QUEUED(p)	; bwait[p] = 1; byp[p] = 0
/* At the end of the entry's atomic: one more for each conflicting waiter. */
#define BYP_ENTER(p) \
	; for (bq : 1 .. NP) { \
		if \
		:: bq != p && bwait[bq] && (bq <= NW || p <= NW) -> \
			byp[bq]++; \
			bmax = (bq <= NW -> BW : BR); \
			assert(byp[bq] <= bmax) \
		:: else \
		fi \
	}; \
	bq = 0; bmax = 0; bwait[p] = 0; byp[p] = 0
/* No reset, so a leap would be false: M too small. */
#define NO_LEAP		assert(false);
/*
 * Zero dead locals (as spin's own dead-variable reset does where it can
 * see them dead), so that a stale RelCnt does not multiply the states.
 */
#define FORGET(s)	d_step { s };
#else
#define BYP_QUEUED(p)
#define BYP_ENTER(p)
#define NO_LEAP
#define FORGET(s)
#endif

#ifdef RESET_NEEDS_CRASH
#define RESET_OK	(crashed && resets < MAXRESETS)
#else
#define RESET_OK	(resets < MAXRESETS)
#endif

/*
 * The server's reset (4.4, 4.6): RelCnt leaps, the rest is zeroed. Every
 * holder's lease has run out (see above), so it leaves the lock alone.
 */
inline reset(obs)
{
	atomic {
		RESET_OK && rel == obs ->
		rel = (rel + M / 2) % M; ep = 0; rdr = 0; tail = 0; resets++;
		for (i : 1 .. NP) {
			if
			:: holding[i] || pending[i] ->
				expired[i] = 1; pending[i] = 0; holding[i] = 0;
				if
				:: incs[i] && i <= NW -> wholders--
				:: incs[i] && i > NW -> rholders--
				:: else
				fi;
				incs[i] = 0
			:: else
			fi
		}
	}
}

#ifdef FAULTS
#define RESET_REQ(obs)	:: reset(obs)
#else
#define RESET_REQ(obs)
#endif

#ifdef FAULTS
bit kill[NP + 1];
#define FAULTS_KILL(p)	kill[p] -> crash(p)
/* A crash: the process stops; its lock, if any, is left to the reset. */
inline crash(p)
{
	atomic {
		crashed = 1;
		if
		:: incs[p] && p <= NW -> wholders--
		:: incs[p] && p > NW -> rholders--
		:: else
		fi;
		incs[p] = 0; holding[p] = 0
	}
}
#else
#define FAULTS_KILL(p)	false
#endif

/* The 8-byte flip by FAA of +-2^31: a wrong epoch carries into RelCnt. */
inline flip(e)
{
	if
	:: e == 0 && ep == 0 -> ep = 1
	:: e == 0 && ep == 1 -> ep = 0; rel = (rel + 1) % M
	:: e == 1 && ep == 1 -> ep = 0
	:: e == 1 && ep == 0 -> ep = 1; rel = (rel + M - 1) % M
	fi
}

/* Poll RelCnt until it reaches target (W15, W19), keeping Successors. */
#define WAIT_REL(target) \
	do \
	:: atomic { x = rel; \
		if :: !LEAP(x, obs) && x == target -> holding[me] = 1 :: else fi }; \
	   if \
	   :: LEAP(x, obs) -> goto restart \
	   :: x == target -> break \
	   :: else -> obs = x; \
		if \
		:: rel != x \
		:: mbox[me] ? SUCC, y, z, u, b -> \
			if :: y == myid -> succ = z :: else fi \
		RESET_REQ(obs) \
		fi \
	   fi \
	od

proctype writer(byte me)
{
	byte g_rel, g_rdr, g_tail, cur, cons, succ, x, y, z, u, obs, myid, tgt;
	byte round;
	bit g_ep, e, b, inc;

	{
	do
	:: ROUNDS > 0 && round == ROUNDS -> break
	:: else ->
#if ROUNDS > 0
		round++;
#endif
		goto start;
restart:
		NO_LEAP
		/* A new mailbox name: late messages to the old one are dropped. */
		inc = 1 - inc;
start:
		skip;
		d_step {
			g_rel = 0; g_ep = 0; g_rdr = 0; g_tail = 0; succ = 0;
			cons = 0; x = 0; y = 0; z = 0; u = 0; b = 0; tgt = 0;
			expired[me] = 0; myid = WID(me, inc)
		};
		FORGET(cur = 0; e = 0; obs = 0)
		/* W2: FETCHANDSTORE of TailId as a CAS loop from a guess. */
		do
		:: atomic {
			if
			:: rel == g_rel && ep == g_ep && rdr == g_rdr && tail == g_tail ->
				tail = myid; x = 1; holding[me] = (g_tail == 0 && g_rdr == 0)
				BYP_QUEUED(me)
			:: else ->
				g_rel = rel; g_ep = ep; g_rdr = rdr; g_tail = tail; x = 0
			fi
		   };
		   if
		   :: x -> break
		   :: else
		   fi
		od;
		queued[me] = 1;
		cur = g_rel; e = g_ep; obs = g_rel;
		if
		:: g_tail != 0 ->
			/* W5: Successor to the predecessor; W6-W12: wait for it. */
			mbox[MBOX(g_tail)] ! SUCC, g_tail, myid, 0, 0;
			/* cur and e come with the Handover or ModeChanged. */
			FORGET(g_rel = 0; g_ep = 0; g_rdr = 0; g_tail = 0; cur = 0; e = 0)
			do
			:: mbox[me] ? SUCC, y, z, u, b ->
				if :: y == myid -> succ = z :: else fi
			:: atomic {
				mbox[me] ? HANDOVER, y, z, u, b ->
				if
				:: y == myid ->
					pending[me] = 0; holding[me] = !expired[me]; x = 1
				:: else -> x = 0
				fi
			   };
			   if
			   :: x ->
				/* H4: its lease began before it was reset. */
				if :: expired[me] -> goto restart :: else fi;
				cur = z; cons = u;
#ifndef PRINTED_HANDOVER_EPOCH
				e = b;
#endif
				goto held
			   :: else
			   fi
			:: mbox[me] ? MODECHANGED, y, z, u, b ->
				if
				:: y == myid ->
#ifdef PRINTED_HANDOVER_EPOCH
					e = 1 - g_ep;
#else
					e = b;
#endif
					break
				:: else
				fi
			/* W13: RelCnt is watched while waiting. */
			:: rel != obs ->
				atomic { x = rel };
				if
				:: LEAP(x, obs) -> goto restart
				:: else -> obs = x
				fi
			RESET_REQ(obs)
			od;
			tgt = z;
			WAIT_REL(tgt);
			cur = tgt; cons = 0
		:: g_tail == 0 && g_rdr != 0 ->
			/* W17-W20: wait for the readers it saw to leave. */
			tgt = (g_rel + g_rdr) % M;
			FORGET(g_rel = 0; g_rdr = 0; cur = 0)
			WAIT_REL(tgt);
			cur = tgt
		:: else
		fi;
held:
		queued[me] = 0;
		FORGET(g_rel = 0; g_ep = 0; g_rdr = 0; g_tail = 0; obs = 0; tgt = 0;
			x = 0; y = 0; z = 0; u = 0; b = 0)
		{
			atomic {
				wholders++; incs[me] = 1;
				assert(wholders == 1 && rholders == 0)
				BYP_ENTER(me)
			};
			atomic { wholders--; incs[me] = 0 };
			/* X0a: a Successor may be waiting already. */
			do
			:: mbox[me] ? SUCC, y, z, u, b ->
				if :: y == myid -> succ = z :: else fi
			:: mbox[me] ? HANDOVER, y, z, u, b
			:: mbox[me] ? MODECHANGED, y, z, u, b
			:: empty(mbox[me]) -> break
			od;
			if
			:: succ == 0 ->
				/* X2 as a CAS that predicts all but RdrCnt. */
				atomic {
					if
					:: tail == myid && rel == cur && ep == e ->
						tail = 0; rel = (cur + 1) % M; ep = 1 - e;
						x = 1; holding[me] = 0
					:: tail != myid -> x = 0
					:: else -> x = 2; holding[me] = 0
					fi
				};
				if
				:: x == 1 -> goto done
				:: x == 2 -> goto done	/* reset under us: abandon */
				:: else
				fi;
				/* X4: wait for the Successor. */
				do
				:: mbox[me] ? SUCC, y, z, u, b ->
					if :: y == myid -> succ = z; break :: else fi
#ifdef FAULTS
				/*
				 * X5: none came in a lease: drop the lock and retire the
				 * mailbox (H5). A live successor sends at once, so only
				 * after a crash.
				 */
				:: crashed -> holding[me] = 0; inc = 1 - inc; goto done
#endif
				:: mbox[me] ? HANDOVER, y, z, u, b
				:: mbox[me] ? MODECHANGED, y, z, u, b
				od
			:: else
			fi
		} unless { expired[me] -> goto restart_round };
		/*
		 * The releasing verbs, each with its lease check (X0): the margin
		 * of 4.8 H1 lets a verb that passed the check land in the lease.
		 */
		if
#ifdef NO_BATCH
		:: false ->
#else
		:: cons >= THRESH ->
#endif
			/* X7-X9: flip, admit the readers, send ModeChanged. */
			atomic {
				if
				:: expired[me] -> goto restart_round
				:: else ->
#ifndef PRINTED_HANDOVER_EPOCH
					assert(ep == e);	/* I9 */
#endif
					x = (rel + rdr + 1) % M; flip(e); rel = (rel + 1) % M
				fi
			};
			atomic {
				if
				:: !expired[me] ->
					mbox[MBOX(succ)] ! MODECHANGED, succ, x, 0, 1 - e
				:: else
				fi;
				holding[me] = 0
			}
		:: else ->
			/* X11-X12: writer-to-writer hand-over. */
			atomic {
				if
				:: expired[me] -> goto restart_round
				:: else -> rel = (rel + 1) % M
				fi
			};
			atomic {
				if
				:: !expired[me] ->
					mbox[MBOX(succ)] ! HANDOVER, succ, (cur + 1) % M, cons + 1, e;
					pending[MBOX(succ)] = 1
				:: else
				fi;
				holding[me] = 0
			}
		fi;
		goto done;
restart_round:
		goto restart;
done:
		skip
	od
	} unless { FAULTS_KILL(me) }
end_crashed:
	skip
}

/* R8 before R9: a reset zeroes the epoch, which is no admission. */
#ifdef SRC_EPOCH_FIRST
#define ADMIT(r, e)	(e != r_ep)
#else
#define ADMIT(r, e)	(!LEAP(r, obs) && e != r_ep)
#endif

proctype reader(byte me)
{
	byte r_rel, r_tail, obs, c_rel, round;
	bit r_ep, c_ep;

	{
	do
	:: RROUNDS > 0 && round == RROUNDS -> break
	:: else ->
#if RROUNDS > 0
		round++;
#endif
restart:
		want[me] = 1;
		expired[me] = 0;
		/* R2: FAA RdrCnt + 1. */
		atomic {
			r_rel = rel; r_ep = ep; r_tail = tail; rdr++;
			holding[me] = (tail == 0)
			BYP_QUEUED(me)
		};
		if
		:: r_tail == 0 -> goto held
		:: else
		fi;
		obs = r_rel;
		FORGET(r_rel = 0; r_tail = 0)
		do
		:: /* R7: READ the word. */
		   atomic {
			c_rel = rel; c_ep = ep;
			if :: ADMIT(c_rel, c_ep) -> holding[me] = 1 :: else fi
		   };
		   if
		   :: ADMIT(c_rel, c_ep) -> break	/* R9: admitted */
		   :: LEAP(c_rel, obs) -> NO_LEAP goto restart	/* R8 */
		   :: else -> obs = c_rel;
			if
			:: rel != c_rel || ep != c_ep
			RESET_REQ(obs)
			fi
		   fi
		od;
held:
		want[me] = 0;
		FORGET(r_rel = 0; r_tail = 0; obs = 0; c_rel = 0; r_ep = 0; c_ep = 0)
		{
			atomic {
				rholders++; incs[me] = 1; assert(wholders == 0)
				BYP_ENTER(me)
			};
			atomic { rholders--; incs[me] = 0 }
		} unless { expired[me] -> goto restart };
		/* R14-R15: FAA RdrCnt - 1, RelCnt + 1, in the lease. */
		atomic {
			if
			:: !expired[me] -> rdr--; rel = (rel + 1) % M
			:: else
			fi;
			holding[me] = 0
		}
	od
	} unless { FAULTS_KILL(me) }
end_crashed:
	skip
}

init
{
	byte j;

	atomic {
		for (j : 1 .. NW) {
			run writer(j)
		}
		for (j : NW + 1 .. NP) {
			run reader(j)
		}
	}
#ifdef FAULTS
	/* At most one process crashes, at a step of its own choosing. */
	if
	:: select(j : 1 .. NP); kill[j] = 1
	:: skip
	fi
#endif
}

/*
 * Under weak fairness (pan -a -f) this does not finish in 4 GB. With
 * BYPASS's reductions (-DBYPASS -DROUNDS=0 -DRROUNDS=0 -DM=8) it passes,
 * in 29 million states and 2.8 GB: too big for make models, which checks
 * starvation freedom as bounded bypass instead.
 */
#ifdef LIVENESS
#define SFW(p)	([] (queued[p] -> <> incs[p]))
#define SFR(p)	([] (want[p] -> <> incs[p]))
#if NW == 2 && NRD == 1
ltl starvation { SFW(1) && SFW(2) && SFR(3) }
#endif
#endif

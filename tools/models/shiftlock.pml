/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ShiftLock's 8-byte port (shared/specs/shiftlock.md 2.9, 3.4, 4), at
 * the level of single verbs. Not implemented in kmod/ yet; the map to
 * the spec's steps is in Documentation/models.rst.
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
#define M 16
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
		/* A new mailbox name: late messages to the old one are dropped. */
		inc = 1 - inc;
start:
		skip;
		d_step {
			g_rel = 0; g_ep = 0; g_rdr = 0; g_tail = 0; succ = 0;
			cons = 0; x = 0; y = 0; z = 0; u = 0; b = 0; tgt = 0;
			expired[me] = 0; myid = WID(me, inc)
		};
		/* W2: FETCHANDSTORE of TailId as a CAS loop from a guess. */
		do
		:: atomic {
			if
			:: rel == g_rel && ep == g_ep && rdr == g_rdr && tail == g_tail ->
				tail = myid; x = 1; holding[me] = (g_tail == 0 && g_rdr == 0)
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
			WAIT_REL(tgt);
			cur = tgt
		:: else
		fi;
held:
		queued[me] = 0;
		{
			atomic {
				wholders++; incs[me] = 1;
				assert(wholders == 1 && rholders == 0)
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
		:: cons >= THRESH ->
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
		};
		if
		:: r_tail == 0 -> goto held
		:: else
		fi;
		obs = r_rel;
		do
		:: /* R7: READ the word. */
		   atomic {
			c_rel = rel; c_ep = ep;
			if :: ADMIT(c_rel, c_ep) -> holding[me] = 1 :: else fi
		   };
		   if
		   :: ADMIT(c_rel, c_ep) -> break	/* R9: admitted */
		   :: LEAP(c_rel, obs) -> goto restart	/* R8 */
		   :: else -> obs = c_rel;
			if
			:: rel != c_rel || ep != c_ep
			RESET_REQ(obs)
			fi
		   fi
		od;
held:
		want[me] = 0;
		{
			atomic { rholders++; incs[me] = 1; assert(wholders == 0) };
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

#ifdef LIVENESS
#define SFW(p)	([] (queued[p] -> <> incs[p]))
#define SFR(p)	([] (want[p] -> <> incs[p]))
#if NW == 2 && NRD == 1
ltl starvation { SFW(1) && SFW(2) && SFR(3) }
#endif
#endif

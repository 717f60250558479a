/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ShiftLock's 8-byte port (shared/specs/shiftlock.md 2.9, 3.4, 4), at
 * the level of single verbs. kmod/shiftlock.c implements it; the map
 * from model steps to the spec and to kmod is in Documentation/models.rst.
 *
 * One 8-byte word at the lock server holds RelCnt (modulo M here, with
 * its reset leap M/2), Epoch, RdrCnt and TailId; every access to it is
 * an RDMA verb (I14), so each is one step. Writers 1..NW queue by a CAS
 * loop (HOME_FAA: by the home node's FAA, below) and tell each other by
 * messages (channels, delivered whenever the receiver polls); readers
 * NW+1..NP FAA and poll the word.
 *
 * -DFAULTS: any process may crash at any step, and a waiter that has
 * seen RelCnt stand still may have the server reset the lock (through
 * its NIC, conditional on the RelCnt it saw: 4.8 H2). That it stood
 * still for 3 leases is the timing argument of 4.3, which the model
 * takes as: every holder's lease has expired by the reset, so every
 * holder, and a writer handed the lock but not yet aware of it, stops
 * using the lock and does not release it (H1, H4). A writer restarts
 * under a new mailbox name, so late messages to the old one are dropped
 * (H5). RESET_NEEDS_CRASH allows a reset only after a crash, and
 * RESET_WHEN_STUCK only when the lock is stuck (see there), so that a
 * deadlock check is not fooled by resets spent on slow holders.
 *
 * Negative cases, each the printed form of an erratum of the spec:
 *   SRC_EPOCH_FIRST         E9: a waiting reader tests the epoch before
 *                           the RelCnt leap
 *   PRINTED_HANDOVER_EPOCH  E4: Handover and ModeChanged carry no epoch;
 *                           the writer keeps its enqueue's
 *   PRINTED_READERS_NESTED  E2: the extraction's Alg. 2 l. 23 read as it
 *                           is indented: a writer that finds no tail but
 *                           readers does not wait for them
 *   PRINTED_RELEASE_NESTED  E3: the extraction's Alg. 3 l. 11-14 read as
 *                           they are indented: a writer that knows its
 *                           successor waits for its Successor again
 *   PRINTED_STALE_MESSAGES  D24: a writer keeps its mailbox name when it
 *                           starts again, so a late message still finds it
 *
 * -DBYPASS: starvation freedom as a safety property, bounded bypass (the
 * comment at byp[] below). Its negative cases:
 *   NO_BATCH                writers never flip for the readers while one
 *                           is queued: no writer_batch (X6 never true)
 *   BYPASS_UNDER=1          the bound asserted one lower
 *
 * -DHOME_FAA: kmod's default, writer_cas 0. No writer posts a CAS on the
 * word: its W2 and its X2 (release with no successor known) are requests
 * to the lock's home node (Enqueue, Release), each answered by Done with
 * the word the home node's atomic returned, or loaded. The home node does
 * one request at a time, and no reset meanwhile (its mutex), so nothing
 * else changes TailId, and it knows it: it loads the word with its CPU,
 * then posts one FAA that swaps TailId for the writer's (Enqueue), or
 * clears it, counts the release and flips the epoch (Release). Readers'
 * FAAs and holders' hand-over FAAs may land between the load and the FAA.
 * Requests and Done may be delayed. Each FAA asserts the check kmod makes
 * of the word it returns, answered with -EIO if it fails. With it:
 *   HOME_TRY                a writer may take a round as a trylock: Try,
 *                           done by the home node with a CAS on the free
 *                           word, or EAGAIN
 *   HOME_LOCAL              every writer is on the home node and does the
 *                           home node's two steps itself, no message (kmod's
 *                           path for home == self); without FAULTS the same
 *                           runs as with messages (Documentation/models.rst)
 * and its negative cases:
 *   MIXED_WRITER            writer 1 still posts its own CAS on TailId (a
 *                           node whose writer_cas differs): the check of
 *                           the word the home node's FAA returned fails
 *   RESET_NO_MUTEX          the reset does not take the home node's mutex:
 *                           the same check fails (with FAULTS)
 *
 * -DDOWNGRADE: a writer that holds may convert to a reader without letting
 * go (Documentation/dlm.rst, kmod's rdmalock_sl_downgrade()): it counts
 * itself in RdrCnt with a reader's FAA, then releases as a writer to the
 * readers, flipping the epoch whatever cons is, and later releases as a
 * reader. It holds all along: a writer from its entry, a reader from its
 * FAA, which the exclusion asserts check. Without FAULTS and BYPASS (views,
 * not resets, recover a downgraded holder in kmod). Its negative cases:
 *   DOWNGRADE_RELEASE_FIRST the FAA after the release: a writer enters
 *                           beside the converted reader
 *   DOWNGRADE_NO_FLIP       a writer with a successor hands it the lock as
 *                           its cons says, not to the readers
 *
 * -DUPGRADE: a writer may start a round as a reader instead, and convert
 * up (kmod's rdmalock_sl_upgrade()): one atomic takes the word from "one
 * reader, no TailId" to "no reader, TailId itself", counting the reader's
 * release, as a reader's release and a writer's enqueue on the free word
 * would, with nothing between them. Refused otherwise: it releases as a
 * reader. The CAS is its own, or with HOME_FAA the home node's (Upgrade,
 * and Done), which changes TailId only in its mutex. Not with FAULTS,
 * BYPASS or HOME_LOCAL. Its negative case:
 *   UPGRADE_ANY_READERS     the atomic does not require the reader to be
 *                           alone: a writer beside other readers
 */
#include "verbs.pml"

#if defined(DOWNGRADE) && (defined(FAULTS) || defined(BYPASS))
#error DOWNGRADE: a model without resets and without the bypass counts
#endif
#if defined(UPGRADE) && (defined(FAULTS) || defined(BYPASS) || defined(HOME_LOCAL))
#error UPGRADE: a model without resets, the bypass counts and HOME_LOCAL
#endif
/* The upgrade's condition on RdrCnt: the converter alone, or (wrongly) any. */
#ifdef UPGRADE_ANY_READERS
#define UP_READERS(n)	((n) >= 1)
#else
#define UP_READERS(n)	((n) == 1)
#endif

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
/*
 * Writer w's mailbox name in incarnation i, and back. A writer takes the
 * next of NAMES names whenever it starts again, after a reset or an X5.
 * kmod's descriptor generations do not wrap within a run, so a check
 * whose writers may start again NAMES times while a message to an old
 * name is out needs more names, or it reports a wrap kmod cannot have.
 */
#ifndef NAMES
#define NAMES	2
#endif
#if NAMES < 2
#error NAMES: a writer that starts again needs a name of its own
#endif
#define WID(w, i)	((w) + NW * (i))
#ifdef PRINTED_STALE_MESSAGES
#define NEXT_NAME	skip
#else
#define NEXT_NAME	inc = (inc + 1) % NAMES
#endif
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
 * p (a writer's successful tail CAS, W2, or with HOME_FAA the home
 * node's FAA for it; a reader's FAA, R2) until p
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
#else
#define BYP_QUEUED(p)
#define BYP_ENTER(p)
#define NO_LEAP
#endif
/*
 * Zero dead locals (as spin's own dead-variable reset does where it can
 * see them dead), so that a stale RelCnt does not multiply the states.
 * HOME_FAA, whose runs have no earlier counts to keep, always does.
 */
#if defined(BYPASS) || defined(HOME_FAA)
#define FORGET(s)	d_step { s };
#else
#define FORGET(s)
#endif

#ifdef RESET_WHEN_STUCK
/*
 * RESET_WHEN_STUCK asks whether one crash can leave the lock stuck for
 * good. RelCnt "stands still for 3 leases" only as it would in a run
 * where every live process keeps its lease: after the crash, with no
 * live holder and no live writer handed the lock. A live process that
 * can never go on keeps the reset away, and the deadlock check reports
 * it.
 */
#define BUSY(i)	(!kill[i] && (holding[i] || pending[i]))
#if NP == 2
#define ANY_BUSY	(BUSY(1) || BUSY(2))
#elif NP == 3
#define ANY_BUSY	(BUSY(1) || BUSY(2) || BUSY(3))
#elif NP == 4
#define ANY_BUSY	(BUSY(1) || BUSY(2) || BUSY(3) || BUSY(4))
#else
#error RESET_WHEN_STUCK: 2 to 4 processes
#endif
/*
 * HOME_FAA: nor while a request waits for the home node, or a Done for a
 * live writer. Each is done within a lease, so it is done before a timer
 * of 3 leases fires, unless it was sent in that timer's last lease: that
 * race, which may make its writer give up, is left out (models.rst).
 */
#ifdef HOME_FAA
#define DONE_OUT(w)	(!kill[w] && len(hdone[w]) > 0)
#if NW == 1
#define ANY_OUT	(!HOME_NO_REQUEST || DONE_OUT(1))
#elif NW == 2
#define ANY_OUT	(!HOME_NO_REQUEST || DONE_OUT(1) || DONE_OUT(2))
#else
#define ANY_OUT	(!HOME_NO_REQUEST || DONE_OUT(1) || DONE_OUT(2) || DONE_OUT(3))
#endif
#else
#define ANY_OUT	false
#endif
#define RESET_OK	(crashed && resets < MAXRESETS && !ANY_BUSY && !ANY_OUT)
/*
 * X5's lease runs out only if the Successor will never come: nxt[n] is
 * the name that queued behind name n, and sdead[n] says that name n will
 * send no Successor: its writer crashed or started again (a writer that
 * gave its request up starts again). Otherwise X5 would fire on any slow
 * Successor after the crash and spend a reset on each. A writer that
 * starts again holds nothing and is handed nothing.
 */
byte nxt[NAMES * NW + 1], wname[NW + 1];
bit sdead[NAMES * NW + 1];
#define SUCC_LOST(n)	sdead[nxt[n]]
#define NOTE_BEHIND(pred, n)	nxt[pred] = ((pred) != 0 -> (n) : 0)
#define NEW_NAME(w, n)	wname[w] = n; nxt[n] = 0; sdead[n] = 0
#define NAME_DEAD(n)	sdead[n] = ((n) != 0)
#define RETIRE_NAME(n)	atomic { NAME_DEAD(n); holding[me] = 0; pending[me] = 0 }
#else
#ifdef RESET_NEEDS_CRASH
#define RESET_OK	(crashed && resets < MAXRESETS)
#else
#define RESET_OK	(resets < MAXRESETS)
#endif
#define SUCC_LOST(n)	crashed
#define NOTE_BEHIND(pred, n)	skip
#define NEW_NAME(w, n)	skip
#define NAME_DEAD(n)	skip
#define RETIRE_NAME(n)	skip
#endif

#ifdef HOME_FAA
#if NW * NAMES > 6
#error HOME_FAA picks among at most 6 mailbox names
#endif
#if defined(HOME_LOCAL) && defined(FAULTS)
#error HOME_LOCAL: a writer on the home node that crashes is a home node that does
#endif
#if defined(HOME_TRY) && (defined(HOME_LOCAL) || defined(BYPASS))
#error HOME_TRY: a request to the home node, outside the bypass bound
#endif
#elif defined(HOME_LOCAL) || defined(HOME_TRY) || defined(MIXED_WRITER) || defined(RESET_NO_MUTEX)
#error HOME_LOCAL, HOME_TRY, MIXED_WRITER and RESET_NO_MUTEX are variants of HOME_FAA
#endif

#ifdef HOME_FAA
/* Requests: Enqueue, Release, Try, Upgrade (SL_MSG_ENQUEUE, ...). */
#define HENQ	1
#define HREL	2
#define HTRY	3
#define HUPG	4
/*
 * The requests sent and not yet taken by the home node, as a bag: one
 * slot per mailbox name (an incarnation has one request out at a time),
 * taken in any order, as ls->wq, a workqueue that is not ordered, runs
 * them. The type, and for Release the RelCnt and epoch the holder knows.
 */
byte rq[NAMES * NW + 1], rqrel[NAMES * NW + 1];
bit rqep[NAMES * NW + 1];
#if NW * NAMES == 2
#define HOME_NO_REQUEST	(rq[1] + rq[2] == 0)
#elif NW * NAMES == 3
#define HOME_NO_REQUEST	(rq[1] + rq[2] + rq[3] == 0)
#elif NW * NAMES == 4
#define HOME_NO_REQUEST	(rq[1] + rq[2] + rq[3] + rq[4] == 0)
#elif NW * NAMES == 5
#define HOME_NO_REQUEST	(rq[1] + rq[2] + rq[3] + rq[4] + rq[5] == 0)
#else
#define HOME_NO_REQUEST	(rq[1] + rq[2] + rq[3] + rq[4] + rq[5] + rq[6] == 0)
#endif
/*
 * Done: the addressee's name, then the word: RelCnt, RdrCnt, TailId,
 * Epoch. hname[w] is the name under which writer w waits for a Done, 0
 * once it has it or gave up on it. rdmalock_sl_deliver() drops a Done
 * for a descriptor given up when it arrives; the model drops it when it
 * would be sent, and a writer that gives up drops one already sent, so a
 * channel holds one Done at most. A request of a name given up makes no
 * process a holder: nobody is there to expire, or to release.
 */
chan hdone[NW + 1] = [1] of { byte, byte, byte, byte, bit };
byte hname[NW + 1];
/* The home node's mutex (rdmalock_sl_home_lock()) is held. */
bit hbusy;
/* The reset takes the mutex too; RESET_NO_MUTEX: it does not. */
#ifdef RESET_NO_MUTEX
#define HOME_FREE
#else
#define HOME_FREE	&& !hbusy
#endif
/* Writer 1 of MIXED_WRITER keeps the CAS loops of writer_cas "only". */
#ifdef MIXED_WRITER
#define HOMED(p)	((p) != 1)
#else
#define HOMED(p)	1
#endif
#else
#define HOME_FREE
#endif

/*
 * The server's reset (4.4, 4.6): RelCnt leaps, the rest is zeroed. Every
 * holder's lease has run out (see above), so it leaves the lock alone.
 */
inline reset(obs)
{
	atomic {
		RESET_OK && rel == obs HOME_FREE ->
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
		incs[p] = 0; holding[p] = 0;
		if :: p <= NW -> NAME_DEAD(wname[p]) :: else fi
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

/*
 * X6: the writer gives the lock to the readers rather than hand it over:
 * the writer_batch-th in a row, or one that converts down.
 */
#if defined(NO_BATCH) && defined(DOWNGRADE_NO_FLIP)
#define TO_READERS	false
#elif defined(NO_BATCH)
#define TO_READERS	dg
#elif defined(DOWNGRADE_NO_FLIP)
#define TO_READERS	(cons >= THRESH)
#else
#define TO_READERS	(cons >= THRESH || dg)
#endif

/* The downgrade's FAA (RdrCnt + 1): before the release, or after it. */
#ifdef DOWNGRADE_RELEASE_FIRST
#define DG_COUNT
#define DG_LATE_COUNT	rdr++;
#else
#define DG_COUNT	rdr++;
#define DG_LATE_COUNT
#endif

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

#ifdef HOME_FAA
/*
 * Waits for the Done of its request (rdmalock_sl_delegate()). kmod
 * watches the lock meanwhile (FAULTS). Waiting for the Done of an Enqueue
 * or a Try, HOME_WATCH, it may give up once the lock was reset after it
 * sent the request (rs: the resets then), which leaves the request out;
 * and it may ask for a reset, of whatever RelCnt now is: it may have seen
 * that stand still, and tracking what it saw (obs, as W13 does) would
 * only multiply the states. Waiting for a Release's Done, it may ask for
 * a reset of the lock it holds itself (RelCnt stands at cur).
 */
#ifdef FAULTS
#define HOME_WATCH \
	:: atomic { resets != rs -> hname[me] = 0 }; goto restart \
	RESET_REQ(rel)
#else
#define HOME_WATCH
#endif
#define HOME_DONE(watch) \
	do \
	:: atomic { hdone[me] ? y, g_rel, g_rdr, g_tail, g_ep -> \
		assert(y == myid); y = 0; hname[me] = 0; rs = 0 }; \
		break \
	watch \
	od
/* It gives up (restart): no Done may come for its name any more. */
#define HOME_GIVE_UP \
	atomic { \
		hname[me] = 0; \
		if \
		:: nempty(hdone[me]) -> hdone[me] ? y, g_rel, g_rdr, g_tail, g_ep \
		:: empty(hdone[me]) \
		fi; \
		y = 0; g_rel = 0; g_rdr = 0; g_tail = 0; g_ep = 0 \
	};
#else
#define HOME_GIVE_UP
#endif

#ifdef UPGRADE
#ifdef HOME_FAA
/*
 * Upgrade by the home node (rdmalock_sl_upgrade(), writer_cas 0), and
 * Done with the word its CAS replaced: it took the lock if that was one
 * reader and no TailId. The home node moves the ghosts at its CAS.
 */
#define UP_STEP \
	atomic { \
		assert(rq[myid] == 0); \
		rq[myid] = HUPG; hname[me] = myid; rs = resets \
	}; \
	HOME_DONE(HOME_WATCH); \
	atomic { \
		x = g_tail == 0 && UP_READERS(g_rdr); \
		if :: x -> cur = (g_rel + 1) % M; e = g_ep :: else fi; \
		g_rel = 0; g_ep = 0; g_rdr = 0; g_tail = 0 \
	}
#else
/* Upgrade by its own CAS, which predicts one reader and no TailId. */
#define UP_STEP \
	atomic { \
		if \
		:: tail == 0 && UP_READERS(rdr) -> \
			rdr--; rel = (rel + 1) % M; tail = myid; \
			cur = rel; e = ep; x = 1; holding[me] = 1; \
			rholders--; wholders++; \
			assert(wholders == 1 && rholders == 0) \
		:: else -> x = 0 \
		fi \
	}
#endif
#endif

proctype writer(byte me)
{
	byte g_rel, g_rdr, g_tail, cur, cons, succ, x, y, z, u, obs, myid, tgt;
	byte round;
	bit g_ep, e, b, dg;
	byte inc;
#ifdef HOME_FAA
	byte rs;
#endif

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
		HOME_GIVE_UP
		RETIRE_NAME(myid);
		/* A new mailbox name: late messages to the old one are dropped. */
		NEXT_NAME;
start:
		skip;
		d_step {
			g_rel = 0; g_ep = 0; g_rdr = 0; g_tail = 0; succ = 0;
			cons = 0; x = 0; y = 0; z = 0; u = 0; b = 0; tgt = 0;
			dg = 0; expired[me] = 0; myid = WID(me, inc); NEW_NAME(me, myid)
		};
		FORGET(cur = 0; e = 0; obs = 0)
#ifdef UPGRADE
		/* Or a round as a reader that converts up. */
		if
		:: goto as_reader
		:: true
		fi;
#endif
#ifdef HOME_TRY
		/*
		 * Or a writer trylock, by the home node: Try, and Done with the
		 * word its CAS replaced, free, or the word that showed the lock
		 * taken (rdmalock_sl_try_write(): EAGAIN, and this round ends).
		 */
		if
		:: HOMED(me) ->
			atomic {
				assert(rq[myid] == 0);
				rq[myid] = HTRY; hname[me] = myid; rs = resets
			};
			HOME_DONE(HOME_WATCH);
			if
			:: g_tail == 0 && g_rdr == 0 -> cur = g_rel; e = g_ep; goto held
			:: else -> FORGET(g_rel = 0; g_ep = 0; g_rdr = 0; g_tail = 0) goto done
			fi
		:: true
		fi;
#endif
#ifdef HOME_FAA
		if
		:: HOMED(me) ->
			/*
			 * W2 by the home node: Enqueue, and Done with the word its
			 * FAA replaced (rdmalock_sl_enqueue(), writer_cas 0, and
			 * rdmalock_sl_delegate()).
			 */
#ifdef HOME_LOCAL
			/* rdmalock_sl_home_do() itself: the mutex, the CPU's load */
			atomic { !hbusy -> hbusy = 1; x = tail };
			/* the FAA, then mutex_unlock() */
			atomic {
				assert(tail == x);	/* -EIO */
				g_rel = rel; g_ep = ep; g_rdr = rdr; g_tail = tail;
				holding[me] = (tail == 0 && rdr == 0);
				tail = tail + myid - x
				BYP_QUEUED(me);
				hbusy = 0; x = 0
			}
#else
			atomic {
				assert(rq[myid] == 0);
				rq[myid] = HENQ; hname[me] = myid; rs = resets
			};
			HOME_DONE(HOME_WATCH)
#endif
		:: else ->
#endif
		/* W2: FETCHANDSTORE of TailId as a CAS loop from a guess. */
		do
		:: atomic {
			if
			:: rel == g_rel && ep == g_ep && rdr == g_rdr && tail == g_tail ->
				tail = myid; x = 1; holding[me] = (g_tail == 0 && g_rdr == 0);
				NOTE_BEHIND(g_tail, myid)
				BYP_QUEUED(me)
			:: else ->
				g_rel = rel; g_ep = ep; g_rdr = rdr; g_tail = tail; x = 0
			fi
		   };
		   if
		   :: x -> break
		   :: else
		   fi
		od
#ifdef HOME_FAA
		fi
#endif
		;
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
#ifdef PRINTED_READERS_NESTED
			/* E2: the extraction's l. 23 under the Handover branch. */
			holding[me] = 1; cur = g_rel
#else
			/* W17-W20: wait for the readers it saw to leave. */
			tgt = (g_rel + g_rdr) % M;
			FORGET(g_rel = 0; g_rdr = 0; cur = 0)
			WAIT_REL(tgt);
			cur = tgt
#endif
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
#ifdef UPGRADE
upgraded:
#endif
#ifdef DOWNGRADE
			if
			:: atomic { wholders--; rholders++; dg = 1; DG_COUNT }
			:: atomic { wholders--; incs[me] = 0 }
			fi;
#else
			atomic { wholders--; incs[me] = 0 };
#endif
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
#ifdef HOME_FAA
				if
				:: HOMED(me) ->
					/*
					 * X2 by the home node: Release with the RelCnt and
					 * epoch it holds at, and Done with the word its FAA
					 * replaced, or the one it loaded if it posted none
					 * (rdmalock_sl_release_alone(), writer_cas 0, and
					 * rdmalock_sl_delegate()).
					 */
#ifdef HOME_LOCAL
					/* The load's rdmalock_sl_release_outcome() */
					atomic {
						!hbusy -> hbusy = 1;
						if
						:: rel != cur || ep != e -> x = 2; hbusy = 0
						:: tail != myid -> x = 0; hbusy = 0
						:: else -> x = 3
						fi
					};
					if
					:: x == 3 ->
						atomic {
							assert(rel == cur && ep == e && tail == myid);
							flip(e); rel = (rel + 1) % M; tail = tail - myid;
							holding[me] = 0; hbusy = 0; x = 1
						}
					:: else
					fi
#else
					atomic {
						assert(rq[myid] == 0);
						rq[myid] = HREL; rqrel[myid] = cur; rqep[myid] = e;
						hname[me] = myid
					};
					HOME_DONE(RESET_REQ(cur));
					/* rdmalock_sl_release_outcome(): MINE 1, QUEUED 0, RESET 2 */
					atomic {
						if
						:: g_rel != cur || g_ep != e -> x = 2
						:: else -> x = (g_tail == myid)
						fi;
						g_rel = 0; g_ep = 0; g_rdr = 0; g_tail = 0; y = 0
					}
#endif
				:: else ->
#endif
				/* X2 as a CAS that predicts all but RdrCnt. */
				atomic {
					if
					:: tail == myid && rel == cur && ep == e ->
						tail = 0; rel = (cur + 1) % M; ep = 1 - e;
						x = 1; holding[me] = 0
					:: tail != myid -> x = 0
					:: else -> x = 2; holding[me] = 0
					fi
				}
#ifdef HOME_FAA
				fi
#endif
				;
				if
				:: x == 1 -> goto done
				:: x == 2 -> goto done	/* reset under us: abandon */
				:: else
				fi;
				/* X4: wait for the Successor. */
wait_succ:
				do
				:: mbox[me] ? SUCC, y, z, u, b ->
					if :: y == myid -> succ = z; break :: else fi
#ifdef FAULTS
				/*
				 * X5: none came in a lease: drop the lock and retire the
				 * mailbox (H5). A live successor sends at once, so only
				 * after a crash.
				 */
				:: SUCC_LOST(myid) ->
					holding[me] = 0; NEXT_NAME; goto done
#endif
				:: mbox[me] ? HANDOVER, y, z, u, b
				:: mbox[me] ? MODECHANGED, y, z, u, b
				od
#ifdef PRINTED_RELEASE_NESTED
			/*
			 * E3: the extraction's l. 11-14 outside "if succ = 0": l. 11
			 * finds its own enqueue's TailPtr, never itself, and l. 13
			 * waits for a Successor it has already had.
			 */
			:: else -> succ = 0; goto wait_succ
#else
			:: else
#endif
			fi
		} unless { expired[me] -> goto restart_round };
		/*
		 * The releasing verbs, each with its lease check (X0): the margin
		 * of 4.8 H1 lets a verb that passed the check land in the lease.
		 */
		if
		:: TO_READERS ->
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
#ifdef UPGRADE
as_reader:
		/* R2, and R7-R9 without resets: admitted at once, or by the flip. */
		atomic { g_ep = ep; g_tail = tail; rdr++ };
		if
		:: g_tail != 0 -> ep != g_ep
		:: else
		fi;
		atomic { rholders++; incs[me] = 1; assert(wholders == 0) };
		UP_STEP;
		if
		:: x -> goto upgraded
		:: else ->
			/* Refused: R14-R15, a reader's release. */
			atomic { rholders--; incs[me] = 0 };
			atomic { rdr--; rel = (rel + 1) % M; g_ep = 0; g_tail = 0; x = 0 }
		fi;
		goto done;
#endif
restart_round:
		goto restart;
done:
		/* A downgraded writer releases as a reader (R14-R15). */
		if
		:: dg ->
			DG_LATE_COUNT
			atomic { rholders--; incs[me] = 0 };
			atomic { rdr--; rel = (rel + 1) % M }
		:: else
		fi
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

#ifdef HOME_FAA
#define HPICK(k)	:: rq[k] != 0 -> n = k
/* mutex_unlock(), and the job's locals dead */
#define HOME_UNLOCK	hbusy = 0; n = 0; k = 0; w = 0; r = 0; e = 0; lt = 0
/* Done with the word as it is, unless its addressee gave up. */
#define HOME_ANSWER \
	if \
	:: hname[w] == n -> assert(len(hdone[w]) == 0); hdone[w] ! n, rel, rdr, tail, ep \
	:: else \
	fi
/*
 * The lock's home node: rdmalock_sl_job_fn(), rdmalock_sl_finish(),
 * rdmalock_sl_home_do(). One step takes any request, locks the mutex and
 * loads the word with the CPU (rdmalock_sl_expect()): a later load, still
 * in the mutex, would show the same TailId, which only the mutex's holder
 * changes. A Release whose load shows a reset or a successor
 * (rdmalock_sl_release_outcome() not MINE), or a Try whose load shows the
 * lock taken, posts nothing, and Done has the load. Otherwise the next
 * step is the atomic, one verb at the home NIC, after whatever FAAs of
 * readers and holders landed since the load; the mutex is unlocked and
 * Done sent in the same step (a Done in its channel, unread, is one not
 * yet sent). Each FAA checks the word it returns, as kmod does, which
 * answers -EIO if the check fails: TailId changed behind the home node.
 */
proctype home()
{
	byte n, k, w, r, lt;
	bit e;

end_idle:
	do
	:: atomic {
		if
		HPICK(1) HPICK(2)
#if NW * NAMES >= 3
		HPICK(3)
#endif
#if NW * NAMES >= 4
		HPICK(4)
#endif
#if NW * NAMES >= 5
		HPICK(5)
#endif
#if NW * NAMES >= 6
		HPICK(6)
#endif
		fi;
		k = rq[n]; r = rqrel[n]; e = rqep[n];
		rq[n] = 0; rqrel[n] = 0; rqep[n] = 0;
		w = MBOX(n); hbusy = 1; lt = tail;
		if
		:: k == HREL && !(rel == r && ep == e && tail == n) ||
		   k == HTRY && (tail != 0 || rdr != 0) ||
		   k == HUPG && (tail != 0 || !UP_READERS(rdr)) ->
			HOME_ANSWER;
			HOME_UNLOCK
		:: k == HTRY || k == HUPG ->
			/* rdmalock_sl_take_free()'s guess: the free word */
			r = rel; e = ep
		:: else
		fi
	   };
	   if
	   :: k == HENQ ->
		/* FAA(me - TailId as loaded): sl_add_enqueue(). */
		atomic {
			assert(tail == lt);	/* rdmalock_sl_home_enqueue()'s -EIO */
			HOME_ANSWER;
			if
			:: hname[w] == n && tail == 0 && rdr == 0 -> holding[w] = 1
			:: else
			fi;
			NOTE_BEHIND(lt, n);
			tail = tail + n - lt
			BYP_QUEUED(w);
			HOME_UNLOCK
		}
	   :: k == HREL ->
		/* FAA(flip(epoch) - me): sl_add_release(). */
		atomic {
			/* rdmalock_sl_home_release()'s -EIO */
			assert(rel == r && ep == e && tail == n);
			HOME_ANSWER;
			flip(e); rel = (rel + 1) % M; tail = tail - n;
			if :: hname[w] == n -> holding[w] = 0 :: else fi;
			HOME_UNLOCK
		}
	   :: k == HTRY ->
		/*
		 * CAS(the free word, with TailId me), again while only RelCnt or
		 * the epoch moved (kmod: at most SL_TRY_CAS times). The three
		 * options are the three outcomes of one CAS.
		 */
		do
		:: atomic {
			rel == r && ep == e && rdr == 0 && tail == 0 ->
			HOME_ANSWER;
			if :: hname[w] == n -> holding[w] = 1 :: else fi;
			tail = n;
			HOME_UNLOCK; break
		   }
		:: atomic { tail != 0 || rdr != 0 -> HOME_ANSWER; HOME_UNLOCK; break }
		:: atomic {
			(rel != r || ep != e) && rdr == 0 && tail == 0 -> r = rel; e = ep
		   }
		od
	   :: k == HUPG ->
		/*
		 * CAS(one reader, no TailId; no reader, TailId the converter,
		 * RelCnt + 1), again while only RelCnt or the epoch moved:
		 * rdmalock_sl_home_upgrade().
		 */
		do
		:: atomic {
			rel == r && ep == e && UP_READERS(rdr) && tail == 0 ->
			HOME_ANSWER;
			tail = n; rdr--; rel = (rel + 1) % M;
			holding[w] = 1; rholders--; wholders++;
			assert(wholders == 1 && rholders == 0);
			HOME_UNLOCK; break
		   }
		:: atomic { tail != 0 || !UP_READERS(rdr) -> HOME_ANSWER; HOME_UNLOCK; break }
		:: atomic {
			(rel != r || ep != e) && UP_READERS(rdr) && tail == 0 -> r = rel; e = ep
		   }
		od
	   :: k == 0
	   fi
	od
}
#endif

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
#if defined(HOME_FAA) && !defined(HOME_LOCAL)
		run home();
#endif
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

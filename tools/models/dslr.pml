/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DSLR (shared/specs/dslr.md) at the level of single verbs: the §11
 * pseudocode, which is the paper's Algorithms 1-3 with the fixes of §8;
 * with ZERO_ON_DRAIN and CONVERT, kmod/dslr.c's protocol.
 * Documentation/models.rst maps its steps to the spec.
 *
 * The lock word is one variable holding n_X, n_S, max_X, max_S as digits
 * of base B, so an FA carries and borrows across fields as the 64-bit
 * add does (§3.2, D3). COUNT_MAX is CM, tiny, so that the overflow reset
 * is reached in a few rounds; B leaves room above CM for one transient
 * increment per process (INV-8), as 2^15 does in the paper. Every client
 * may bounce at once: a designated resetter that failed by its own stall
 * reset bounces like the others.
 *
 * Each client takes a shared or an exclusive ticket each round. Only the
 * NIC changes the word (INV-1): FA and CAS are one step each, READ too.
 *
 * -DFAULTS: one client may crash at any step, and a waiter may reset the
 * counters (Alg. 2 l. 11-16 with D2's values) by CAS from the word it
 * read. That the pair (n_X, n_S) stood still for 2 x lease is the timing
 * argument of §6.2 and INV-9, which the model takes as an oracle: by the
 * reset, every holder's lease has run out, and so has the lease of every
 * waiter that the word already grants (its lease began at a poll before
 * the pair changed). Such a client stops using the lock and does not
 * release it (INV-4, INV-11). A release checks the lease atomically with
 * its FA: that is the margin of INV-9.
 *
 * With FAULTS a bouncer may also zero a frozen word whose pair stood
 * still for 2 x lease across its bounces (D4's forced reset): the same
 * oracle ends every lease, and the word need not be drained. That is how
 * a word frozen by a dead or expired designated resetter comes back.
 *
 * -DZERO_ON_DRAIN: kmod/dslr.c's overflow reset. There is no designated
 * resetter: a release, or an undo, whose atomic leaves the word frozen
 * and drained (every ticket of its epoch accounted, no increment of a
 * requester in it) zeroes it with one CAS from that value; so does a
 * stall reset that drains it. Without FAULTS, that is, as the views
 * recover the lock, no ticket is ever skipped, so none can be left
 * behind in the old epoch; with FAULTS (kmod's lease recovery), the
 * zeroing waits for ZERO_OK as the others do.
 *
 * The overflow reset and the forced one zero the word only when no waiter
 * still holds a ticket of the old epoch (ZERO_OK). That is a timing rule
 * §11 lacks; see models.rst "the stale waiter" for why it is needed and
 * how a kernel can meet it. -DNO_ZERO_GUARD drops it.
 *
 * -DCONVERT (with ZERO_ON_DRAIN): kmod/dslr.c's conversions in place. A
 * holder may convert once it has been in its critical section, then is in
 * it again in the mode it holds. Each conversion is one CAS from a READ,
 * retried while its guard holds: down, the exclusive slot accounted and a
 * shared ticket taken, while no exclusive ticket came after ours (else
 * the exclusive ticket is kept); up, the shared slot accounted and an
 * exclusive ticket taken, when ours is the one shared slot outstanding
 * and no exclusive one is (else it is refused). Neither in a frozen word.
 * -DUNGUARDED_DOWNGRADE converts down whoever waits behind.
 *
 * A monitor asserts that the word stays well formed: no n field above its
 * max field or above COUNT_MAX. An undo that borrows, or a release of a
 * slot that was never issued in this epoch, breaks that at once.
 *
 * Negative cases: the printed pseudocode of an erratum of §8, or a
 * variant the spec discusses (models.rst says which ones have a check):
 *   PRINTED_FALLTHROUGH   D1: after a bounce, Alg. 1 goes on to the grant
 *                         test with the withdrawn ticket
 *   PRINTED_SKIP          D2: Alg. 2 l. 3, one skip test for both modes
 *   PRINTED_SHARED_RESET  D2: Alg. 2 l. 13, a shared reset claims every
 *                         shared slot up to its own
 *   PRINTED_STALL_ZERO    D5: Alg. 2 l. 18, a stall resetter of a frozen
 *                         word zeroes it
 *   GRANT_FIRST           D2: the "obvious repair", grant before skip
 *   LATE_RELEASE          D10: lease check, then FA, as two steps, with
 *                         §11's revoked-check and CAS undo
 *   PRINTED_UNDO          D3, D4: a bouncer undoes its ticket with FA(-1),
 *                         beside the forced reset
 *   PRINTED_ZERO_LOOP     D6: Alg. 3 l. 7, the designated resetter tries
 *                         its CAS until it succeeds
 *   PRINTED_RESETTER_RELEASE
 *                         D8: Alg. 3 l. 1, the designated resetter
 *                         releases after its lease ran out, and does not
 *                         look at what its FA returned
 *   NO_ZERO_GUARD         D11: §11's zeroing with only the max-regression
 *                         check to protect waiters of the old epoch
 *   ZERO_UNDRAINED        with ZERO_ON_DRAIN: a frozen word zeroed by a
 *                         release or an undo whether drained or not
 */
#ifndef GLOBAL_ATOMICS
#define GLOBAL_ATOMICS	/* one-step RDMA_CAS: nothing but the NIC RMWs the word */
#endif
#include "verbs.pml"

#ifndef NP
#define NP 2
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif
/* Clients 1 and 2's rounds, when only they need more. */
#ifndef ROUNDS1
#define ROUNDS1 ROUNDS
#endif
#ifndef ROUNDS2
#define ROUNDS2 ROUNDS
#endif
#define MYROUNDS	(me == 1 -> ROUNDS1 : (me == 2 -> ROUNDS2 : ROUNDS))
#ifndef CM
#define CM 2
#endif
#ifndef MAXRESETS
#define MAXRESETS 1
#endif
#define B	(CM + NP + 1)

#define F_MX	B
#define F_NS	(B * B)
#define F_NX	(B * B * B)
#define WMOD	(B * B * B * B)
#define MS(v)	((v) % B)
#define MX(v)	((v) / F_MX % B)
#define NS(v)	((v) / F_NS % B)
#define NX(v)	((v) / F_NX)
#define WORD(nx, ns, mx, ms)	((nx) * F_NX + (ns) * F_NS + (mx) * F_MX + (ms))

#define SH	0
#define EX	1
#define TICKET(m)	((m) == EX -> F_MX : 1)
#define SERVED(m)	((m) == EX -> F_NX : F_NS)

/* INV-8, §5.6: every ticket served was issued, and n never passes CM. */
#define WELL_FORMED(v) \
	(NX(v) <= MX(v) && NS(v) <= MS(v) && NX(v) <= CM && NS(v) <= CM)

/* Alg. 1 l. 4/18: tested on the word before our own increment. */
#define FROZEN(v)	(MX(v) >= CM || MS(v) >= CM)
#define GRANTED(p, m, v) \
	(NX(v) == MX(p) && ((m) == SH || NS(v) == MS(p)))
#ifdef PRINTED_SKIP
#define SKIPPED(p, m, v)	(NX(v) > MX(p) || NS(v) > MS(p))
#else
/* D2: by mode; D11: a max field below our ticket means a zeroing. */
#define SKIPPED(p, m, v) \
	(NX(v) > MX(p) || ((m) == EX && NS(v) > MS(p)) || \
	 MX(v) < MX(p) + (m) || MS(v) < MS(p) + 1 - (m))
#endif
#ifdef GRANT_FIRST
#define FIRST_TEST \
	(!GRANTED(tk[me], md[me], val) && SKIPPED(tk[me], md[me], val))
#else
#define FIRST_TEST	SKIPPED(tk[me], md[me], val)
#endif
/* Alg. 1 l. 10/24: our FA took the field to COUNT_MAX. */
#define DESIGNATED(p, m) \
	(((m) == SH && MS(p) == CM - 1) || ((m) == EX && MX(p) == CM - 1))
#ifdef ZERO_UNDRAINED
#define DRAINED(v)	true
#else
#define DRAINED(v)	(NX(v) == MX(v) && NS(v) == MS(v))
#endif
#define RESET_FROM(p, m) \
	((m) == SH -> WORD(MX(p), CM, MX(p), CM) : WORD(CM, MS(p), CM, MS(p)))
#ifdef PRINTED_SHARED_RESET
#define SH_RESET(p, v)	WORD(MX(p), MS(p) + 1, MX(v), MS(v))
#else
/* D2: a shared resetter claims one slot, its own. */
#define SH_RESET(p, v)	WORD(MX(p), NS(v) + 1, MX(v), MS(v))
#endif
#define STALL_RESET(p, m, v) \
	((m) == SH -> SH_RESET(p, v) : WORD(MX(p) + 1, MS(p), MX(v), MS(v)))

#define IDLE	0
#define WAITING	1
#define HOLDING	2
#define CRASHED	3

short L;
/* Each client's ticket (the FA's prev), mode and state, for the oracle. */
short tk[NP + 1];
bit md[NP + 1];
byte st[NP + 1];
bit expired[NP + 1];
byte sholders, xholders, resets, i;
bit incs[NP + 1], want[NP + 1];

/* Ghost: zeroings so far, and the one each ticket was taken in. */
byte gen;
byte tep[NP + 1];
#ifdef FAULTS
#define NOTE_EPOCH(p)	tep[p] = gen
#define NEW_EPOCH	gen++
/*
 * RESET_NEEDS_CRASH: the lock stands still only after a crash, so that
 * the deadlock check is not fooled by resets spent on slow holders or by
 * a resetter giving up on a word that bouncers keep busy.
 */
#ifdef RESET_NEEDS_CRASH
#define STUCK_OK	crashed
#else
#define STUCK_OK	true
#endif
#define RESET_OK	(STUCK_OK && resets < MAXRESETS)
#else
#define NOTE_EPOCH(p)	skip
#define NEW_EPOCH	skip
#define RESET_OK	false
#endif

#define STALE(p)	(st[p] == WAITING && tep[p] == gen)
#if !defined(FAULTS) || defined(NO_ZERO_GUARD)
#define ZERO_OK	true
#elif NP == 2
#define ZERO_OK	(!STALE(1) && !STALE(2))
#else
#define ZERO_OK	(!STALE(1) && !STALE(2) && !STALE(3))
#endif

#if defined(CONVERT) && defined(FAULTS)
#error "CONVERT models the views' recovery: no FAULTS"
#endif
#ifdef UNGUARDED_DOWNGRADE
#define MAY_DOWNGRADE(p, v)	(!FROZEN(v))
#else
#define MAY_DOWNGRADE(p, v)	(MX(v) == MX(p) + 1 && !FROZEN(v))
#endif
#define MAY_UPGRADE(v)	(NX(v) == MX(v) && NS(v) + 1 == MS(v) && !FROZEN(v))

/*
 * ZERO_ON_DRAIN: @v, what our own atomic left, is frozen and drained:
 * zero it by CAS from @v, once no waiter of its epoch is stale (kmod
 * waits a lease, and a waiter gives up on two polls too far apart).
 */
inline zero_drained(v)
{
	if
	:: FROZEN(v) && DRAINED(v) ->
		atomic { ZERO_OK -> RDMA_CAS(L, v, 0, old); if :: old == v -> NEW_EPOCH :: else fi }
	:: else
	fi
}

/* A client that stops using the lock: out of the critical section. */
inline leave_cs(p)
{
	if
	:: incs[p] && md[p] == EX -> xholders--
	:: incs[p] && md[p] == SH -> sholders--
	:: else
	fi;
	incs[p] = 0
}

/*
 * The oracle at a reset from word v: every lease that has run out by now
 * (see the top) is over, so its client leaves the lock alone.
 */
inline expire(v)
{
	for (i : 1 .. NP) {
		if
		:: st[i] == HOLDING || (STALE(i) && GRANTED(tk[i], md[i], v)) ->
			expired[i] = 1; leave_cs(i)
		:: else
		fi
	}
}

#ifdef FAULTS
bit kill[NP + 1];
bit crashed;
#define FAULTS_KILL(p)	kill[p] -> atomic { leave_cs(p); st[p] = CRASHED; crashed = 1 }
#else
#define FAULTS_KILL(p)	false
#endif

proctype client(byte me)
{
	short val, old, cur, rf;
	byte round;
	bit own_slot;

	{
	do
	:: ROUNDS > 0 && round == MYROUNDS -> break
	:: else ->
#if ROUNDS > 0
		round++;
#endif
		if
		:: md[me] = SH
		:: md[me] = EX
		fi;
		want[me] = 1;
acquire:
		skip;
		d_step { val = 0; old = 0; cur = 0; rf = 0; expired[me] = 0 };
		/* Alg. 1 l. 3/17: the ticket; l. 12/26: granted by it at once. */
		atomic {
			RDMA_FAA(L, TICKET(md[me]), WMOD, tk[me]);
			NOTE_EPOCH(me);
			if
			:: FROZEN(tk[me]) -> st[me] = IDLE
			/* A drained frozen word looks granted: it is not. */
			:: !FROZEN(tk[me]) && GRANTED(tk[me], md[me], tk[me]) ->
				st[me] = HOLDING
			:: else -> st[me] = WAITING
			fi
		};
		if
		:: FROZEN(tk[me]) ->
#ifdef PRINTED_UNDO
			RDMA_FAA(L, WMOD - TICKET(md[me]), WMOD, old);
			cur = (old + WMOD - TICKET(md[me])) % WMOD;
#else
			/*
			 * D3b: undo by CAS on the word as seen, so an undo can never
			 * borrow from a word that a reset has zeroed under us.
			 */
			cur = (tk[me] + TICKET(md[me])) % WMOD;
			do
			:: RDMA_CAS(L, cur, cur - TICKET(md[me]), old);
			   if
			   :: old == cur -> cur = old - TICKET(md[me]); break
			   :: !FROZEN(old) -> cur = old; break
			   :: else -> cur = old
			   fi
			od;
#ifdef ZERO_ON_DRAIN
			/* Our undo drained the frozen word: zero it. */
			zero_drained(cur);
#endif
#endif
			/*
			 * The random backoff (A.3): retrying on a frozen word that
			 * has not changed since our undo would bounce again.
			 */
			if
			:: L != cur || !FROZEN(cur)
#ifdef FAULTS
			/*
			 * D4: the pair stood still for 2 x lease across our bounces,
			 * so every ticket ahead of ours is dead or expired: zero the
			 * word by CAS from a READ of it, drained or not.
			 */
			:: atomic {
				RESET_OK && ZERO_OK && FROZEN(L) ->
				val = L;
				expire(val);
				RDMA_CAS(L, val, 0, old);
				NEW_EPOCH;
				resets++
			   }
#endif
			fi;
#ifdef PRINTED_FALLTHROUGH
			if
			:: GRANTED(tk[me], md[me], tk[me]) -> st[me] = HOLDING; goto held
			:: else
			fi;
#endif
			goto acquire
		:: else
		fi;
#ifndef ZERO_ON_DRAIN
		if
		:: DESIGNATED(tk[me], md[me]) -> rf = RESET_FROM(tk[me], md[me])
		:: else
		fi;
#endif
		/* Alg. 2: poll with READ. */
		do
		:: st[me] == HOLDING -> break
		:: else ->
			atomic {
				val = L;
				if
				:: FIRST_TEST -> st[me] = IDLE
				:: else ->
					if
					:: GRANTED(tk[me], md[me], val) ->
						/* Granted after its lease ran out: lost, never released. */
						st[me] = (expired[me] -> IDLE : HOLDING)
					:: else
					fi
				fi
			};
			if
			:: st[me] == HOLDING -> break
			/* Failure: the caller drops its locks and retries (§4.7). */
			:: st[me] == IDLE -> goto acquire
			:: else ->
				if
				/* Polling an unchanged word changes nothing. */
				:: L != val
				/* Alg. 2 l. 11-16: the stall reset; the resetter fails too. */
				:: atomic {
					RESET_OK && L == val ->
					expire(val);
					RDMA_CAS(L, val, STALL_RESET(tk[me], md[me], val), old);
					resets++; st[me] = IDLE
				   };
#ifdef ZERO_ON_DRAIN
				   /* kmod: a stall reset that drained the frozen word zeroes it. */
				   cur = STALL_RESET(tk[me], md[me], val);
				   zero_drained(cur);
#endif
#ifdef PRINTED_STALL_ZERO
				   /* Alg. 2 l. 17-18 "Reset L to zero" as Alg. 3 l. 7 does. */
				   cur = STALL_RESET(tk[me], md[me], val);
				   if
				   :: FROZEN(cur) -> atomic { L == cur -> RDMA_CAS(L, cur, 0, old); NEW_EPOCH }
				   :: else
				   fi;
#endif
				   goto acquire
				fi
			fi
		od;
held:
		want[me] = 0;
		{
			atomic {
				if
				:: md[me] == EX -> xholders++
				:: else -> sholders++
				fi;
				incs[me] = 1;
				assert(xholders + sholders == 1 || xholders == 0)
			};
			atomic { leave_cs(me) }
		} unless { expired[me] };
#ifdef CONVERT
		/* One conversion try: a READ, then CAS while the guard holds. */
		if
		:: md[me] == EX -> val = L;
			do
			:: MAY_DOWNGRADE(tk[me], val) ->
				atomic {
					RDMA_CAS(L, val, val + F_NX + 1, old);
					if
					:: old == val -> tk[me] = val + F_NX; md[me] = SH
					:: else -> val = old
					fi
				};
				if
				:: md[me] == SH -> break
				:: else
				fi
			:: else -> break
			od
		:: md[me] == SH -> val = L;
			do
			:: MAY_UPGRADE(val) ->
				atomic {
					RDMA_CAS(L, val, val + F_NS + F_MX, old);
					if
					:: old == val -> tk[me] = val + F_NS; md[me] = EX
					:: else -> val = old
					fi
				};
				if
				:: md[me] == EX -> break
				:: else
				fi
			:: else -> break
			od
		:: skip
		fi;
		atomic {
			if
			:: md[me] == EX -> xholders++
			:: else -> sholders++
			fi;
			incs[me] = 1;
			assert(xholders + sholders == 1 || xholders == 0)
		};
		atomic { leave_cs(me) };
#endif
		/* Alg. 3, with INV-9's margin: the lease check and the FA are one. */
#ifdef LATE_RELEASE
		expired[me] == 0;
		atomic {
			RDMA_FAA(L, SERVED(md[me]), WMOD, old);
			st[me] = IDLE
		};
		/* D10 (§11): a revoked release is undone by CAS. */
		cur = (old + SERVED(md[me])) % WMOD;
		do
		:: NX(old) == MX(tk[me]) && (md[me] == SH || NS(old) == MS(tk[me])) -> break
		:: else ->
			RDMA_CAS(L, cur, cur - SERVED(md[me]), old);
			if
			:: old == cur -> break
			:: else -> cur = old
			fi
		od;
#else
		atomic {
			if
#ifdef PRINTED_RESETTER_RELEASE
			:: expired[me] && rf != 0 ->
				RDMA_FAA(L, SERVED(md[me]), WMOD, old)
#endif
			:: !expired[me] ->
				RDMA_FAA(L, SERVED(md[me]), WMOD, old);
				/* D10: with the margin, no release is ever revoked. */
				own_slot = (NX(old) == MX(tk[me]) &&
					    (md[me] == SH || NS(old) == MS(tk[me])));
				assert(own_slot)
			:: else
			fi;
			st[me] = IDLE
		};
#ifdef ZERO_ON_DRAIN
		/* Our release drained the frozen word: zero it. */
		cur = (old + SERVED(md[me])) % WMOD;
		if
		:: !expired[me] -> zero_drained(cur)
		:: else
		fi;
#endif
#endif
		/* Alg. 3 l. 6-7, D5, D6: zero the drained word, and only that. */
		if
#ifdef PRINTED_RESETTER_RELEASE
		:: rf != 0 ->
#else
		:: rf != 0 && !expired[me] ->
#endif
			do
			:: atomic {
				ZERO_OK -> RDMA_CAS(L, rf, 0, old);
				if
				:: old == rf -> NEW_EPOCH
				:: else
				fi
			   };
			   if
			   :: old == rf -> break
#ifdef PRINTED_ZERO_LOOP
			   :: else -> L != old
			   fi
#else
			   :: !FROZEN(old) -> break
			   :: else ->
				if
				:: L != old
#ifdef FAULTS
				/*
				 * D6: the tries are bounded. A word that never
				 * drains (a later ticket's holder died) is left
				 * to D4's forced reset.
				 */
				:: STUCK_OK -> break
#endif
				fi
			   fi
#endif
			od
		:: else
		fi
	od
	} unless { FAULTS_KILL(me) }
end_crashed:
	skip
}

bit well_formed = 1;

active proctype word_monitor()
{
end_monitor:
	atomic { !WELL_FORMED(L) -> well_formed = 0; assert(well_formed) }
}

init
{
	byte j;

	atomic {
		for (j : 1 .. NP) {
			run client(j)
		}
	}
#ifdef FAULTS
	/* At most one client crashes, at a step of its own choosing. */
	if
	:: select(j : 1 .. NP); kill[j] = 1
	:: skip
	fi
#endif
}

#ifdef LIVENESS
/*
 * Theorem 3 is about tickets: a client whose ticket FA did not bounce
 * gets the lock. From the call, a client can bounce for ever (see
 * models.rst); the paper leaves that to the random backoff.
 */
#define SF_TICKET(p)	([] (st[p] == WAITING -> <> incs[p]))
#define SF_CALL(p)	([] (want[p] -> <> incs[p]))
#if NP == 2
ltl starvation { SF_TICKET(1) && SF_TICKET(2) }
ltl from_call { SF_CALL(1) && SF_CALL(2) }
#else
ltl starvation { SF_TICKET(1) && SF_TICKET(2) && SF_TICKET(3) }
ltl from_call { SF_CALL(1) && SF_CALL(2) && SF_CALL(3) }
#endif
#endif

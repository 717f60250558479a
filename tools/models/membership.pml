/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Membership: the view change and recovery of kmod/membership.c and
 * kmod/recovery.c, with node leases in discrete time and a fabric whose
 * links are cut and restored (see Documentation/models.rst for the map to
 * those functions and what is abstracted).
 *
 * Three nodes, one lock homed on node 0 (HOME), a client on nodes 1 and 2
 * (CLIENTS, a bit per node), each taking the lock once. The lock is one
 * word at its home: 0 free, n + 1 held by node n; the claim (recover_hold,
 * here rdmalock_recover_word0()) is a CAS of it from 0. Every action of a node is one atomic step:
 * messages are delivered at once when their link is up and lost when it
 * is down, and every sender resends (the coordinator its phase, every
 * member its leases and acknowledgments).
 *
 * Time is a tick of the environment. A lease is L ticks, the margin
 * MARGIN ticks; each node keeps, per peer, the ticks since that peer last
 * renewed it (renewed_by) and since it last renewed that peer
 * (renewed_to), saturating at L + MARGIN. A node notices that its lease
 * ran out before the next tick (the tick waits for it): the margin stands
 * for the lag of the lease check and for clock drift.
 *
 * Properties (assertions):
 *   - exclusion: a grant finds no other client inside its critical
 *     section (from its grant until its unlock starts) that still holds
 *     its lock; with -DSTRICT, no other client inside at all, lost or
 *     not (which the lease cannot give: see models.rst);
 *   - claims: a member committing a view in which a holder that has not
 *     lost its lock and the lock's home are members finds the holder's
 *     claim in the word; a claim finds the word free (never -EBUSY); a
 *     release that has not lost its lock finds its own claim;
 *   - with -DPROGRESS (no cuts, no time): every run ends with every node
 *     a member of one view of all three and every client done (no
 *     invalid end state).
 *
 * Negative cases: -DNO_LEASE (node_lease_ms=0: nobody fences, survivors
 * do not wait), -DNO_CLAIM (CLAIM does nothing), -DMARGIN=0, and -DSTRICT,
 * which the lease cannot give. -DEXCLUSION_ONLY turns the claims'
 * assertions off, so that a run stops at exclusion.
 */

#define N	3
#ifndef HOME
#define HOME	0
#endif
#ifndef L
#define L	2
#endif
#ifndef MARGIN
#define MARGIN	1
#endif
#define CAP	(L + MARGIN)
/* Proposals after the first view, and link cuts or restores. */
#ifndef MAXP
#define MAXP	2
#endif
#ifndef EVENTS
#define EVENTS	1
#endif
/* -DPROGRESS: views asked for by failed verbs (rdmalock_mb_want()). */
#ifndef WANTS
#define WANTS	1
#endif
/* The nodes with a client, a bit each. */
#ifndef CLIENTS
#define CLIENTS	6
#endif

#define NONE	0
#define PREPARE	1
#define RESET	2
#define CLAIM	3
#define COMMIT	4

#define G_OUT		0
#define G_CLOSED	1
#define G_OPEN		2

#define ENOLCK		1
#define ENOTCONN	2

/* A proposal: (epoch, coordinator), ordered as rdmalock_mb_newer(). */
#define PID(e, c)	((e) * N + (c))
#define EPOCH(p)	((p) / N)
#define COORD(p)	((p) % N)
#define B(i)		(1 << (i))
#define ALL		7
#define POP(s)		(((s) & 1) + (((s) >> 1) & 1) + (((s) >> 2) & 1))
/* rdmalock_mb_quorum() */
#define QUORUM(s)	(2 * POP(s) > N || (2 * POP(s) == N && ((s) & 1)))

/* The links 0-1, 0-2, 1-2. */
bit link[3];
#define LK(i, j)	((i) == (j) || link[(i) + (j) - 1])
/* rdmalock_mb_up() */
#define UP(n)		(LK(n, 0) | (LK(n, 1) << 1) | (LK(n, 2) << 2))
#define LOWEST(s)	((s) & 1 -> 0 : ((s) & 2 -> 1 : 2))

/* struct rdmalock_membership, per node */
byte fp[N], pmem[N], want[N], done[N];
bit poisoned[N], stepq[N];
byte vprop[N], vmem[N];
bit member[N];
/* may_hold: the view's members and those of proposals claimed since */
byte mayhold[N];
byte gate[N];
byte seen[N];
byte cprop[N], cmem[N], cphase[N], cacked[N], cup[N * N];
bit cwanted[N], wantp[N], fenced_once[N];
byte suspect[N];
/* Ages in ticks: rb[n*N+i] since i renewed n, rt[n*N+i] since n renewed i. */
byte rb[N * N], rt[N * N];
byte props, events, wants;

/* The lock and its clients: 0 idle, 1 inside, 2 unlocking, 3 done. */
byte lk;
byte cs[N], gone[N];
bit held[N];

/* -DEXCLUSION_ONLY: the claims' assertions off, so a run stops at exclusion. */
#ifdef EXCLUSION_ONLY
#define CLAIM_ASSERT(x)	skip
#else
#define CLAIM_ASSERT(x)	assert(x)
#endif

#ifdef NO_LEASE
#define LEASE_ON	0
#else
#define LEASE_ON	1
#endif

/* rdmalock_mb_leased() */
#define RBSET(n)	(B(n) | (rb[(n) * N] < L) | ((rb[(n) * N + 1] < L) << 1) | \
			 ((rb[(n) * N + 2] < L) << 2))
#define LEASED(n)	QUORUM(RBSET(n))
/*
 * rdmalock_mb_leased_out() != 0: a node left out of m may still hold its
 * lease, and may hold locks as far as n can tell: a member with its lease
 * skips the nodes outside may_hold. -DMAYHOLD_UNLEASED trusts may_hold
 * without that condition.
 */
#ifdef MAYHOLD_UNLEASED
#define KNOWS(n)	1
#else
#define KNOWS(n)	(member[n] && LEASED(n))
#endif
#define OUTW(n, m, j) \
	(!((m) & B(j)) && rt[(n) * N + (j)] < CAP && \
	 (!KNOWS(n) || (mayhold[n] & B(j))))
#define WAITS(n, m)	(LEASE_ON && (OUTW(n, m, 0) || OUTW(n, m, 1) || OUTW(n, m, 2)))
/*
 * Time moves only while a member's PREPARE waits for it, unless
 * -DFREE_TIME: until then a node cut off keeps its lease, which only
 * puts its fence off.
 */
#define WAITING(i) \
	(stepq[i] && !poisoned[i] && want[i] == PREPARE && done[i] == NONE && \
	 WAITS(i, pmem[i]))
#ifdef FREE_TIME
#define TIME_OK	1
#else
#define TIME_OK	(WAITING(0) || WAITING(1) || WAITING(2))
#endif
/* A member whose lease ran out and that has not fenced yet holds up time. */
#define OVERDUE(n)	(LEASE_ON && member[n] && !LEASED(n))

/* rdmalock_home_reachable(), and the verb to the home. */
#define REACH(n)	((n) == HOME || ((vmem[n] & B(HOME)) && LK(n, HOME)))

/* rdmalock_mb_on_lease() at i, from n following p */
#define LEASE_CHG(i, n, p) \
	(seen[i] < EPOCH(p) || \
	 (fp[i] == (p) && (pmem[i] & B(n)) && rb[(i) * N + (n)] > 0) || \
	 (cprop[i] && EPOCH(p) >= EPOCH(cprop[i]) && COORD(p) != (i)))
inline on_lease(li, ln, lp)
{
	if
	:: seen[li] < EPOCH(lp) -> seen[li] = EPOCH(lp)
	:: else
	fi;
	if
	:: fp[li] == (lp) && (pmem[li] & B(ln)) -> rb[(li) * N + (ln)] = 0
	:: else
	fi;
	/* A proposal of this node's that no one will follow: outbid it. */
	if
	:: cprop[li] && EPOCH(lp) >= EPOCH(cprop[li]) && COORD(lp) != (li) -> cprop[li] = 0
	:: else
	fi
}

/* rdmalock_mb_renew(): leases to the followed members that are up. */
inline renew(rn)
{
	j = 0;
	do
	:: j == N -> break
	:: j < N ->
		if
		:: j != rn && (pmem[rn] & B(j)) && LK(rn, j) ->
			rt[rn * N + j] = 0;
			on_lease(j, rn, fp[rn])
		:: else
		fi;
		j++
	od
}

/* rdmalock_mb_check_lease() and rdmalock_recovery_fence() */
inline fence(fn)
{
	member[fn] = 0;
	poisoned[fn] = 1;
	fenced_once[fn] = 1;
	gate[fn] = G_OUT;
	if
	:: held[fn] -> gone[fn] = ENOLCK
	:: else
	fi
}

/* rdmalock_mb_clique() */
inline clique(qc, qset)
{
	j = 0;
	k = 0;
	do
	:: j == N - 1 -> break
	:: j < N - 1 ->
		k = j + 1;
		do
		:: k == N -> break
		:: k < N ->
			if
			:: (qset & B(j)) && (qset & B(k)) &&
			   !((cup[qc * N + j] & B(k)) && (cup[qc * N + k] & B(j))) ->
				if
				:: k == qc -> qset = qset & ~B(j)
				:: else -> qset = qset & ~B(k)
				fi
			:: else
			fi;
			k++
		od;
		j++
	od
}

/* rdmalock_mb_propose(), with the max3() of the epochs */
inline propose(pc, pm)
{
	e = seen[pc];
	if
	:: EPOCH(fp[pc]) > e -> e = EPOCH(fp[pc])
	:: else
	fi;
	if
	:: EPOCH(vprop[pc]) > e -> e = EPOCH(vprop[pc])
	:: else
	fi;
	e++;
	seen[pc] = e;
	cprop[pc] = PID(e, pc);
	cmem[pc] = pm;
	cphase[pc] = PREPARE;
	cacked[pc] = 0;
	cup[pc * N] = 0;
	cup[pc * N + 1] = 0;
	cup[pc * N + 2] = 0;
	props++
}

/* rdmalock_mb_advance(): every member acknowledged the phase. */
inline advance(ac)
{
	if
	:: cphase[ac] == PREPARE ->
		s = cmem[ac];
		clique(ac, s);
		if
		:: s != cmem[ac] ->
			suspect[ac] = suspect[ac] | (cmem[ac] & ~s);
			cprop[ac] = 0;
			if
			:: QUORUM(s) && props < MAXP -> propose(ac, s)
			:: else
			fi;
			goto advanced
		:: else
		fi
	:: else
	fi;
	if
	:: cphase[ac] == COMMIT -> cprop[ac] = 0
	:: else -> cphase[ac]++; cacked[ac] = 0
	fi;
advanced:
	skip
}

/* rdmalock_mb_on_ack() at c, from i, of phase ph of p, i seeing up u */
inline on_ack(kc, ki, kp, kph, ku)
{
	if
	:: cprop[kc] == (kp) && cphase[kc] == (kph) && (cmem[kc] & B(ki)) ->
		if
		:: fp[kc] == (kp) -> rb[kc * N + ki] = 0
		:: else
		fi;
		cacked[kc] = cacked[kc] | B(ki);
		if
		:: kph == PREPARE -> cup[kc * N + ki] = ku | B(ki)
		:: else
		fi;
		if
		:: cacked[kc] == cmem[kc] -> advance(kc)
		:: else
		fi
	:: else
	fi
}

/* rdmalock_mb_on_propose() at i, from c: phase ph of proposal p of m */
#define NEWER(i, p)	((p) > fp[i])
#define PROP_CHG(i, c, p, m, ph) \
	(seen[i] < EPOCH(p) || \
	 (NEWER(i, p) && (ph) == PREPARE) || \
	 ((p) == fp[i] && (!stepq[i] || want[i] != (ph) || rb[(i) * N + (c)] > 0)) || \
	 (!NEWER(i, p) && (p) != fp[i] && LEASE_CHG(c, i, fp[i])))
inline on_propose(oi, oc, op, om, oph)
{
	if
	:: seen[oi] < EPOCH(op) -> seen[oi] = EPOCH(op)
	:: else
	fi;
	if
	:: NEWER(oi, op) && (oph) == PREPARE ->
		/* rdmalock_mb_adopt() */
		fp[oi] = op;
		pmem[oi] = om;
		done[oi] = NONE;
		poisoned[oi] = 0;
		if
		:: member[oi] -> gate[oi] = G_CLOSED
		:: else
		fi;
		rb[oi * N + oc] = 0;
		want[oi] = oph;
		stepq[oi] = 1
	:: NEWER(oi, op) && (oph) != PREPARE	/* joined too late */
	:: !NEWER(oi, op) && (op) != fp[oi] ->
		/* an older one: tell its coordinator the one followed here */
		on_lease(oc, oi, fp[oi])
	:: (op) == fp[oi] ->
		rb[oi * N + oc] = 0;
		want[oi] = oph;
		stepq[oi] = 1
	fi
}

/*
 * rdmalock_mb_send_phase(), to one member: sent, or sent again, while the
 * link is up; the send renews the member's lease (renewed_to).
 */
#define SEND_OK(c, i) \
	(cprop[c] && (cmem[c] & B(i)) && !(cacked[c] & B(i)) && LK(c, i) && \
	 (rt[(c) * N + (i)] > 0 || PROP_CHG(i, c, cprop[c], cmem[c], cphase[c])))
inline send_phase(sc, si)
{
	rt[sc * N + si] = 0;
	on_propose(si, sc, cprop[sc], cmem[sc], cphase[sc])
}

/* The holders' claims: rdmalock_recovery_claim(), recover_word0(). */
inline claim(ci)
{
#ifndef NO_CLAIM
	if
	:: held[ci] && !gone[ci] ->
		if
		:: !(pmem[ci] & B(HOME)) -> gone[ci] = ENOTCONN
		:: (pmem[ci] & B(HOME)) && !LK(ci, HOME) ->
			/* the verb failed: lost, and a view change asked for */
			gone[ci] = ENOLCK;
			wantp[ci] = 1
		:: (pmem[ci] & B(HOME)) && LK(ci, HOME) ->
			CLAIM_ASSERT(lk == 0);	/* -EBUSY: claimed already */
			lk = ci + 1
		fi
	:: else
	fi
#else
	skip
#endif
}

/* rdmalock_mb_commit(), and what a member of the view must find. */
inline commit(mi)
{
	vprop[mi] = fp[mi];
	vmem[mi] = pmem[mi];
	member[mi] = 1;
	mayhold[mi] = pmem[mi];
	gate[mi] = G_OPEN;
	j = 0;
	do
	:: j == N -> break
	:: j < N ->
		CLAIM_ASSERT(!((vmem[mi] & B(j)) && (vmem[mi] & B(HOME)) && held[j] &&
			 !gone[j]) || lk == j + 1);
		j++
	od
}

/* rdmalock_mb_step() and rdmalock_mb_do_phase(), then the acknowledgment. */
#define STEP_OK(i) \
	(stepq[i] && (poisoned[i] || want[i] != PREPARE || done[i] != NONE || \
		      !WAITS(i, pmem[i])))
inline step(ti)
{
	stepq[ti] = 0;
	if
	:: poisoned[ti] || want[ti] == NONE || want[ti] > done[ti] + 1
	:: else ->
		if
		:: want[ti] == done[ti] + 1 ->
			if
			:: want[ti] == PREPARE	/* quiesced; leases waited out */
			:: want[ti] == RESET ->
				if
				:: ti == HOME -> lk = 0	/* rdmalock_recovery_reset() */
				:: else
				fi
			:: want[ti] == CLAIM -> claim(ti); mayhold[ti] = mayhold[ti] | pmem[ti]
			:: want[ti] == COMMIT -> commit(ti)
			fi;
			done[ti] = want[ti]
		:: else	/* done already: acknowledged again */
		fi;
		c = COORD(fp[ti]);
		rt[ti * N + c] = 0;
		if
		:: LK(ti, c) -> on_ack(c, ti, fp[ti], want[ti], UP(ti))
		:: else	/* lost: acknowledged again on the resend */
		fi
	fi
}

/* rdmalock_mb_coordinate() */
#define SILENT		(poisoned[0] | (poisoned[1] << 1) | (poisoned[2] << 2))
#define TARGET(n)	(UP(n) & ~suspect[n])
#define LOWER_UP(n)	(UP(n) & (B(n) - 1))
#define SETTLED(n) \
	(member[n] && vprop[n] == fp[n] && vmem[n] == TARGET(n) && !cwanted[n])

/* rdmalock_mb_ask_view_change() and rdmalock_mb_on_recover() */
#define ASK_TO(n)	LOWEST(UP(n))
#define ASK_OK(n) \
	(wantp[n] || (!member[n] && fenced_once[n] && member[ASK_TO(n)] && \
		      (vmem[ASK_TO(n)] & B(n)) && !cwanted[ASK_TO(n)]))
inline ask(an)
{
	wantp[an] = 0;
	c = ASK_TO(an);
	if
	:: member[c] && (vmem[c] & B(an)) -> cwanted[c] = 1
	:: else
	fi
}

/* -DPROGRESS: a view of every node, committed everywhere, and no client left. */
#define ALL_DONE \
	(cs[0] == 3 && cs[1] == 3 && cs[2] == 3 && SETTLED(0) && SETTLED(1) && \
	 SETTLED(2) && vmem[0] == ALL && vprop[1] == vprop[0] && \
	 vprop[2] == vprop[0] && !cprop[0] && !cprop[1] && !cprop[2] && \
	 !wantp[0] && !wantp[1] && !wantp[2])

proctype node(byte n)
{
	byte c, e, j, k, s;

	do
	/* rdmalock_mb_tick(): leases, the lease check, the coordinator */
	:: atomic { OVERDUE(n) -> fence(n) }
	:: atomic { LOWER_UP(n) && (cprop[n] || cwanted[n]) -> cprop[n] = 0; cwanted[n] = 0 }
	:: atomic { !LOWER_UP(n) && cprop[n] && (cmem[n] & ~TARGET(n)) ->
		cprop[n] = 0 }	/* a member went down: start again */
	:: atomic { !LOWER_UP(n) && !cprop[n] && !SETTLED(n) && QUORUM(TARGET(n)) &&
		    props < MAXP -> cwanted[n] = 0; propose(n, TARGET(n)); e = 0 }
#ifndef PROGRESS
	/*
	 * A phase not acknowledged for ten seconds: a member that fenced
	 * while it followed the proposal (it completes none of it) is left
	 * out for a while (past the end of the run).
	 */
	:: atomic { !LOWER_UP(n) && cprop[n] && (cmem[n] & ~cacked[n] & SILENT) ->
		suspect[n] = suspect[n] | (cmem[n] & ~cacked[n] & ~B(n));
		cprop[n] = 0 }
#endif
	:: atomic { ASK_OK(n) -> ask(n); c = 0 }
	/* The coordinator's phase to each member, sent or resent */
	:: atomic { SEND_OK(n, 0) -> send_phase(n, 0) }
	:: atomic { SEND_OK(n, 1) -> send_phase(n, 1) }
	:: atomic { SEND_OK(n, 2) -> send_phase(n, 2) }
	/* This node's part of the phase asked for, then its acknowledgment */
	:: atomic { STEP_OK(n) -> step(n); c = 0; e = 0; j = 0; k = 0; s = 0 }
	/* The client: rdmalock_ls_acquire(), then rdmalock_ls_release() */
	:: atomic { cs[n] == 0 && gate[n] == G_OPEN && REACH(n) && lk == 0 ->
		lk = n + 1;
		held[n] = 1;
		gone[n] = 0;
		cs[n] = 1;
		j = 0;
		do
		:: j == N -> break
		:: j < N ->
#ifdef STRICT
			assert(j == n || cs[j] != 1);
#else
			assert(j == n || cs[j] != 1 || gone[j]);
#endif
			j++
		od;
		j = 0 }
	:: atomic { cs[n] == 1 -> cs[n] = 2 }
	:: atomic { cs[n] == 2 && (gone[n] || gate[n] != G_CLOSED) ->
		if
		:: gone[n]
		:: !gone[n] && gate[n] == G_OUT -> gone[n] = ENOLCK
		:: !gone[n] && gate[n] == G_OPEN && LK(n, HOME) ->
			CLAIM_ASSERT(lk == n + 1);
			lk = 0
		:: !gone[n] && gate[n] == G_OPEN && !LK(n, HOME) ->
			wantp[n] = 1	/* the lock is left to a view change */
		fi;
		held[n] = 0;
		cs[n] = 3 }
#ifdef PROGRESS
	:: atomic { wants < WANTS && member[n] && !wantp[n] && !ALL_DONE ->
		wants++;
		wantp[n] = 1 }
	:: ALL_DONE -> break
#endif
	od
}

/* Time, and the fabric's links. */
active proctype env()
{
	byte n, j;

#ifndef PROGRESS
end:
	do
	/*
	 * A tick: every lease a tick older, then every node's
	 * rdmalock_mb_renew(), which runs more often than once a tick.
	 */
	:: atomic { LEASE_ON && !OVERDUE(0) && !OVERDUE(1) && !OVERDUE(2) && TIME_OK ->
		j = 0;
		do
		:: j == N * N -> break
		:: j < N * N ->
			if
			:: rb[j] < CAP && j % (N + 1) != 0 -> rb[j]++
			:: else
			fi;
			if
			:: rt[j] < CAP && j % (N + 1) != 0 -> rt[j]++
			:: else
			fi;
			j++
		od;
		renew(0);
		renew(1);
		renew(2);
		j = 0 }
	:: atomic { events < EVENTS -> events++;
		if
		:: link[0] = 1 - link[0]
		:: link[1] = 1 - link[1]
		:: link[2] = 1 - link[2]
		fi }
	od
#endif
}

init {
	byte n;

	atomic {
		link[0] = 1;
		link[1] = 1;
		link[2] = 1;
		/* The first view: epoch 1, coordinator 0, every node. */
		n = 0;
		do
		:: n == N -> break
		:: n < N ->
			fp[n] = PID(1, 0);
			pmem[n] = ALL;
			done[n] = COMMIT;
			want[n] = COMMIT;
			vprop[n] = PID(1, 0);
			vmem[n] = ALL;
			member[n] = 1;
			mayhold[n] = ALL;
			gate[n] = G_OPEN;
			seen[n] = 1;
			if
			:: !(CLIENTS & B(n)) -> cs[n] = 3
			:: else
			fi;
			n++
		od;
		n = 0;
		run node(0);
		run node(1);
		run node(2)
	}
}

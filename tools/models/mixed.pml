/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The naive mixed-atomics lock, kmod/caslock.c's test-mixed: one word at
 * the home node, taken by the home node's threads with a CPU CAS and by
 * peers with an RDMA CAS, released with a store or an RDMA WRITE of 0.
 * It must fail: to the CPU the NIC's CAS is a load and a store, and a CPU
 * CAS that lands between them takes the word the NIC is about to take.
 * With -DGLOBAL_ATOMICS (a NIC whose atomics are atomic with the CPU's)
 * the same lock is correct, which shows the failure is Table 1's.
 */
#include "verbs.pml"

#define NP 2
#ifndef ROUNDS
#define ROUNDS 1
#endif

byte word;
byte holders;
bit incs[NP + 1];

/* caslock.c: rdmalock_cas_spin(), then the test-mixed release. */
proctype proc(byte me; bit athome)
{
	byte old, round;

	do
	:: ROUNDS > 0 && round == ROUNDS -> break
	:: else ->
		round++;
		do
		:: if
		   :: athome -> CPU_CAS(word, 0, me, old)
		   :: else -> RDMA_CAS(word, 0, me, old)
		   fi;
		   if
		   :: old == 0 -> break
		   /* Backing off and retrying a held word changes nothing. */
		   :: else -> word == 0
		   fi
		od;
		CS_ENTER(me);
		CS_LEAVE(me);
		word = 0
	od
}

/* One home-node thread and one peer are enough to break it. */
init
{
	atomic { run proc(1, 1); run proc(2, 0) }
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every model shares: the atomicity of the verbs, per seed 000's
 * Table 1, and the critical-section bookkeeping the properties read.
 *
 * A word of a home node's memory is one Promela variable, and an 8-byte
 * RDMA READ or WRITE of it is one step: Table 1 says those are atomic
 * with every CPU access. RDMA RMWs are atomic among themselves, which
 * the home NIC's atomics unit (nic_busy, rxe's atomic_ops_lock) gives,
 * but to the CPU an RDMA CAS is a load, then a store: a CPU RMW can land
 * between the two. A model whose words see only one kind of RMW loses
 * nothing by this split, and one that mixes them fails, as it should.
 */
#ifndef VERBS_PML
#define VERBS_PML

bit nic_busy;

/* RDMA CAS of word w at the home node: old is what the NIC read. */
#ifdef GLOBAL_ATOMICS
/* IB_ATOMIC_GLOB: a NIC whose RMWs are atomic with the CPU's too. */
#define RDMA_CAS(w, cmp, swp, old) \
	atomic { old = w; if :: old == cmp -> w = swp :: else fi }
#else
#define RDMA_CAS(w, cmp, swp, old) \
	atomic { !nic_busy -> nic_busy = 1; old = w }; \
	atomic { if :: old == cmp -> w = swp :: else fi; nic_busy = 0 }
#endif

/*
 * RDMA fetch-and-add of word w, which wraps at mod as a 64-bit word wraps
 * at 2^64, so a field's carry or borrow reaches the field above it. One
 * step: the models that use it keep CPU RMWs off the word.
 */
#define RDMA_FAA(w, add, mod, old) \
	atomic { !nic_busy -> old = w; w = (w + (add)) % (mod) }

/* A CPU compare-and-swap (cmpxchg) or swap (xchg): one step. */
#define CPU_CAS(w, cmp, swp, old) \
	atomic { old = w; if :: old == cmp -> w = swp :: else fi }
#define CPU_XCHG(w, swp, old)	atomic { old = w; w = swp }

/*
 * The properties' view: holders counts the processes in their critical
 * sections; incs[p] and want[p] are what the LTL formulas read.
 */
#define CS_ENTER(p)	atomic { holders++; incs[p] = 1; assert(holders == 1) }
#define CS_LEAVE(p)	atomic { holders--; incs[p] = 0 }

#endif

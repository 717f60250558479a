// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: the lock algorithms a domain may use, and the check of a
 * domain's parameters against all of them. Each algorithm validates its
 * own parameters and refuses them for a domain of another algorithm, so a
 * new algorithm adds its entry here and nothing elsewhere.
 */
#include "locks.h"
#include "rdmalock-pri.h"

/* In the order their parameters are checked; see rdmalock_algo_check_params(). */
static const struct rdmalock_algo *const rdmalock_algos[] = {
	&rdmalock_alock_algo,
	&rdmalock_cas_algo,
	&rdmalock_mcs_algo,
	&rdmalock_shiftlock_algo,
	&rdmalock_dslr_algo,
	&rdmalock_test_none_algo,
	&rdmalock_test_mixed_algo,
};

/**
 * rdmalock_algo_find() - the implementation of an algorithm
 * @id: RDMALOCK_ALGO_*
 *
 * Return: it, or NULL for an algorithm not implemented (yet).
 */
const struct rdmalock_algo *rdmalock_algo_find(u32 id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rdmalock_algos); i++)
		if (rdmalock_algos[i]->id == id)
			return rdmalock_algos[i];
	return NULL;
}

/**
 * rdmalock_algo_check_params() - are a domain's parameters valid?
 * @params: the domain's algorithm and its parameters
 *
 * A lease and lease recovery are for the algorithms that have leases.
 * Then every algorithm looks at them: the domain's own validates its
 * parameters, the others refuse theirs if set. An algorithm not
 * implemented has none of its own.
 *
 * Return: NULL, or why not, for the log.
 */
const char *rdmalock_algo_check_params(const struct rdmalock_ls_params *params)
{
	const struct rdmalock_algo *algo = rdmalock_algo_find(params->algo);
	const char *why;
	size_t i;

	if ((params->lease_ms || params->lease_recovery) && !(algo && algo->leases))
		return "lease and lease recovery are for shiftlock and dslr";
	if (params->lease_ms > RDMALOCK_LEASE_MS_MAX)
		return "lease out of range";

	for (i = 0; i < ARRAY_SIZE(rdmalock_algos); i++) {
		algo = rdmalock_algos[i];
		if (!algo->check_params)
			continue;
		why = algo->check_params(params, algo->id == params->algo);
		if (why)
			return why;
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_algo_check_params);

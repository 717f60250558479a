#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dslr: DSLR's reader-writer torture at read shares of 0, 50 and 95%, on
# one lock (every requester on one word, whose counters wrap) and on 100;
# no violation, and every lock's guarded counter equal to the
# acquisitions of every node. What else DSLR must survive, membership
# checks beside the other locks: a small COUNT_MAX that forces many
# overflow resets (dom-wrap), a holder and a waiter lost with their node,
# a link cut.
#
# Then the paper's lease recovery, for comparison (--lease-recovery, on
# dom-dlease, a lease of LEASE_MS): node 1 holds a lock for LEASE_HOLD_S
# s, many leases, as a failed holder would; the others take it from it
# meanwhile (a waiter resets the word once it stood still for two leases:
# ECONNRESET, and its next try is granted), and node 1's unlock says ETIME.
# A torture round on that domain, whose holders keep to their lease, has
# no violation and exact counters.
. ./lib.sh

: "${TORTURE_MS:=1500}"
THREADS=4
READS="0 50 95"
LOCK_ALGOS=dslr
# Long enough for every verb to land within it: on one lock hammered by
# every node, a waiter's polls came more than 100 ms apart.
LEASE_MS=1000
LEASE_HOLD_S=30
LEASE_LOCK=3

create_lease_domain() {
	rdmalockctl domain create dom-dlease --node-id "$VMTEST_NODE" \
		--nodes "$VMTEST_NODES" --key-file "$(key_file)" --algo dslr \
		--port 7202 --locks-per-node 8 --lease-ms $LEASE_MS --lease-recovery
}

# shellcheck disable=SC2119 # dom-dslr at the default table size
create_domains() { create_lock_domains && create_lease_domain; }

# The holder: it holds until the others have the lock, LEASE_HOLD_S s at
# most; its unlock then finds its lease over.
lease_holder() {
	local rc=0

	hold_lock lease dom-dlease $LEASE_LOCK
	hold_started lease 30 || rc=1
	barrier lease-held || rc=1
	barrier lease-taken $LEASE_HOLD_S || rc=1
	hold_timed_out lease && [ "$rc" -eq 0 ]
}

# A waiter: granted while the holder holds, after one reset at least
# (by itself or by the other waiter).
lease_waiter() {
	local rc=0

	barrier lease-held || return 1
	lock_after_reset dom-dlease $LEASE_LOCK || rc=1
	barrier lease-taken $LEASE_HOLD_S || rc=1
	return $rc
}

lease_recovery() {
	if [ "$VMTEST_NODE" -eq 1 ]; then
		tap_check "dom-dlease: node 1 holds lock $LEASE_LOCK past its lease; its unlock says ETIME" \
			lease_holder
	else
		tap_check "dom-dlease: while node 1 holds lock $LEASE_LOCK past its lease, this node is granted it" \
			lease_waiter
	fi
	barrier lease-released
	tap_check "dom-dlease: lock $LEASE_LOCK free afterwards" \
		timeout 60 rdmalockctl lock dom-dlease $LEASE_LOCK --timeout 30000 -- true
	tap_check "dom-dlease: torture, 1 lock, 50% reads: no violation" \
		torture_round dom-dlease lease --threads "$THREADS" \
		--duration "$TORTURE_MS" --locks 1 --read 50
	tap_check "dom-dlease: torture, 1 lock, 50% reads: counters exact" \
		counters_exact dom-dlease lease 1
}

tap_plan $((10 + $(torture_matrix_tests)))
kmemleak_forget
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "domains dom-dslr and dom-dlease created" create_domains
tap_check "every node up, full view" retry 60 lock_domains_full
tap_check "dom-dlease: every node up" retry 60 domain_up dom-dlease
barrier up
torture_matrix dom-dslr dslr
barrier tortured
lease_recovery
barrier leased
tap_check "domains destroyed, rdmalock.ko unloads" sh -c \
	"timeout 60 rdmalockctl domain destroy dom-dslr &&
	 timeout 60 rdmalockctl domain destroy dom-dlease && rmmod rdmalock"
tap_kmemleak

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# alock: one domain per algorithm (alock, and the cas and mcs baselines);
# on every node at once, the torture at 100, 90, 50 and 0% local (not 90
# on the debug kernel), on one lock and on 100 locks, four threads per
# node: no violation, no error, and every guarded counter exactly the
# acquisitions of its lock summed over the nodes. Then: the exact RDMA
# verbs of a local and of an uncontended remote ALock acquisition; locks
# held by an open file, and released by closing it; the sample client
# module; on the stock kernel, the lock-caching torture on domains with
# named locks (the names scenario runs the same on the debug kernel):
# threads keep their locks until a blocking callback asks for them, and
# each LVB carries its lock's counter; no violation, counters exact, on
# ALock and on ShiftLock with readers; with asynchronous requests, some
# cancelled; with conversions, locks kept exclusive converted down; and
# their negative controls: with the callbacks ignored requests for kept
# locks time out, and conversions that let go a moment let writers in.
# Last, the last node dies, holding a named lock exclusive with an LVB
# to write back (stock kernel): the others get ENOTCONN for its locks
# and keep the rest, and that LVB is not valid after the view change.
. ./lib.sh

: "${TORTURE_MS:=1500}"
THREADS=4
PCTS="100 90 50 0"
# On the debug kernel, one of each path: home-node threads only, both
# cohorts (Peterson's arbitration), peers only; 90% takes no other code.
[ ! -e "$KMEMLEAK" ] || PCTS="100 50 0"
TORTURE_TESTS=$((3 * 2 * 2 * $(echo "$PCTS" | wc -w)))
# Lock caching, on the stock kernel only: names-debug has it on debug,
# but for the conversions' negative control (gap_round);
# with it, the dead holder's LVB (LVB=1): two checks on node 0, one on
# the victim.
CACHE_TESTS=12
LVB=1
[ ! -e "$KMEMLEAK" ] || { CACHE_TESTS=0; LVB=0; }
# dom-cache's id 9, homed on node 0, outside the tortures' ids.
LVB_ID=9
n=$(num_nodes)
victim=$((n - 1))

ctl() { rdmalockctl "$@"; }


torture_all() {
	local algo pct locks

	for algo in alock cas mcs; do
		for locks in 1 100; do
			# shellcheck disable=SC2086 # a list of words
			for pct in $PCTS; do
				tap_check "$algo torture, $locks locks, $pct% local: no violation" \
					torture_round "dom-$algo" "$algo-$locks-$pct" \
					--threads $THREADS --duration "$TORTURE_MS" \
					--locks "$locks" --local "$pct" --read 20
				tap_check "$algo torture, $locks locks, $pct% local: counters exact" \
					counters_exact "dom-$algo" "$algo-$locks-$pct" "$locks"
			done
		done
	done
}

# verbs_of_one_lock ID READ WRITE CAS WRITE_IMM: taking and dropping lock
# ID posts exactly these verbs (the domain is otherwise idle).
verbs_of_one_lock() {
	local before after v want

	before=$(verbs_posted dom-alock)
	ctl lock dom-alock "$1" -- true || return 1
	after=$(verbs_posted dom-alock)
	shift
	for v in read write cas write_imm; do
		want=$1
		shift
		got=$(verb_delta "$before" "$after" $v)
		echo "$v: $got, want $want" >&2
		[ "$got" -eq "$want" ] || return 1
	done
}

# Locks belong to the open file: a second file cannot take one the
# first holds, and can once the first is closed. Every node runs this at
# once, so each uses lock ids (and table slots) of its own.
file_holds_locks() {
	local a=$((100 + VMTEST_NODE)) b=$((103 + VMTEST_NODE)) out

	out=$(printf 'lock dom-alock %s\nlock dom-alock %s\nunlock dom-alock %s\n' \
		$a $b $a | ctl session) || return 1
	echo "$out" >&2
	# The session's file closed with lock $b held: it is free again.
	ctl lock dom-alock $b --try -- true
}

try_fails_while_held() {
	local out

	out=$(ctl lock dom-alock 11 -- rdmalockctl lock dom-alock 11 --try -- true 2>&1)
	echo "$out" >&2
	echo "$out" | grep -q 'Resource temporarily unavailable'
}

timeout_while_held() {
	local out

	out=$(ctl lock dom-alock 14 -- rdmalockctl lock dom-alock 14 --timeout 300 -- true 2>&1)
	echo "$out" >&2
	echo "$out" | grep -q 'Connection timed out'
}

example_client() {
	# Every node runs it on the same locks; on the debug kernel a wait
	# behind the others' rounds can exceed the default 10 s.
	insmod /lib/rdmalock/rdmalock_example.ko domain=dom-alock first_id=20 \
		count=8 rounds=20 timeout_ms=60000 || return 1
	dmesg | grep 'rdmalock_example: dom-alock: .* acquisitions of 8 locks, ok' &&
		rmmod rdmalock_example
}

lock_refused() {
	local out rc=0

	out=$(timeout 10 rdmalockctl lock dom-alock "$1" --timeout 3000 -- true 2>&1) || rc=$?
	echo "$out" >&2
	[ "$rc" -eq 1 ] && echo "$out" | grep -q 'Transport endpoint is not connected'
}

create_cache_domains() {
	ctl domain create dom-cache --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" \
		--key-file "$(key_file)" --algo alock --port 7209 --locks-per-node 8 \
		--named &&
		ctl domain create dom-cshift --node-id "$VMTEST_NODE" \
			--nodes "$VMTEST_NODES" --key-file "$(key_file)" \
			--algo shiftlock --port 7210 --locks-per-node 8 --named
}

cache_domains_up() { domain_up dom-cache && domain_up dom-cshift; }

unload() {
	if [ "$CACHE_TESTS" -gt 0 ]; then
		destroy_lock_domains cache cshift
	else
		# shellcheck disable=SC2119 # no domain beyond create_lock_domains's
		destroy_lock_domains
	fi && rmmod rdmalock
}

victim_not_up() {
	! ctl domain status dom-alock | grep -q "^  node $victim: up,"
}

# Each node runs one of the verb-count tests; the victim stops early.
if [ "$VMTEST_NODE" -eq "$victim" ]; then
	tap_plan $((8 + CACHE_TESTS + LVB + TORTURE_TESTS))
elif [ "$VMTEST_NODE" -eq 0 ]; then
	tap_plan $((14 + CACHE_TESTS + 2 * LVB + TORTURE_TESTS))
else
	tap_plan $((14 + CACHE_TESTS + TORTURE_TESTS))
fi
kmemleak_forget
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "domains alock, cas and mcs created" create_lock_domains
tap_check "every node of every domain is up" retry 60 lock_domains_up
barrier up
torture_all

# One node at a time, the others idle, for exact counts.
barrier verbs-0
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "a local ALock acquire and release post no RDMA verb" \
		verbs_of_one_lock 0 0 0 0 0
barrier verbs-1
# Lock 0 is homed on node 0. Acquire: CAS on the tail, WRITE of the
# victim, READ of the slot; release: one CAS.
[ "$VMTEST_NODE" -ne 1 ] ||
	tap_check "an uncontended remote ALock acquire and release: 1 read, 1 write, 2 cas" \
		verbs_of_one_lock 0 1 1 2 0
barrier verbs-2
[ "$VMTEST_NODE" -ne 0 ] && [ "$VMTEST_NODE" -ne 1 ] &&
	tap_check "a third node's verbs are its own" verbs_of_one_lock 1 1 1 2 0
barrier verbs-done
tap_check "a trylock of a lock another file holds fails (EAGAIN)" try_fails_while_held
barrier try-done
if [ "$CACHE_TESTS" -gt 0 ]; then
	tap_check "domains dom-cache (alock) and dom-cshift (shiftlock), named locks, created" \
		create_cache_domains
	tap_check "every node of them is up" retry 60 cache_domains_up
	barrier cache-up
	lockcache_rounds dom-cache dom-cshift
	tap_check "conversions that let go a moment let writers in: violations" \
		gap_round dom-cshift
fi
if [ "$LVB" -eq 1 ]; then
	# Node 0 keeps referencing the name through the death: a name that
	# nobody references loses its LVB, as a DLM resource nobody holds.
	[ "$VMTEST_NODE" -ne 0 ] || set_idle 600000
	[ "$VMTEST_NODE" -ne 0 ] ||
		tap_check "an exclusive holder writes the LVB of dom-cache's id $LVB_ID back" \
			ctl lock dom-cache $LVB_ID --lvb doomed-before -- true
	barrier lvb-written
	[ "$VMTEST_NODE" -ne "$victim" ] ||
		tap_check "the last node holds it exclusive, with an LVB to write back" \
			doomed_hold dom-cache $LVB_ID
	barrier doomed-held
	[ "$VMTEST_NODE" -ne 0 ] ||
		wget -q -O /tmp/doomed-token "$(peer_url "$victim" "doomed-token")"
fi

if [ "$VMTEST_NODE" -eq "$victim" ]; then
	tap_check "locks are released when their file is closed" file_holds_locks
	tap_check "the example client module takes and drops locks" example_client
	tap_check "a timed lock of a held lock times out (ETIMEDOUT)" timeout_while_held
	die_after victim-ready
fi
tap_check "locks are released when their file is closed" file_holds_locks
tap_check "the example client module takes and drops locks" example_client
tap_check "a timed lock of a held lock times out (ETIMEDOUT)" timeout_while_held
# The victim waits for us, then dies; we do not wait for it.
VMTEST_GONE=$victim
tap_check "all nodes ready for the kill" barrier victim-ready
tap_check "the dead node is reported not up" retry 20 victim_not_up
tap_check "its locks fail with ENOTCONN" lock_refused "$victim"
tap_check "locks homed on the survivors still work" sh -c \
	"rdmalockctl lock dom-alock 0 -- true && rdmalockctl lock dom-alock 1 -- true"
[ "$LVB" -eq 0 ] || [ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "the dead holder's LVB is not valid, the next token higher" \
		value_after dom-cache $LVB_ID /tmp/doomed-token \
		'value: token [0-9]*, lvb not valid: doomed-before' --timeout 60000
barrier survivors-done 120
tap_check "domains destroyed, rdmalock.ko unloads" unload
tap_kmemleak

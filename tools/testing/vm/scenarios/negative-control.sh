#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# negative-control: the torture test must catch broken locks, or its
# passes prove nothing. Two deliberately broken locks (allowed only with
# allow_broken=1) go through the same torture as the real ones:
#  - test-none, whose acquire excludes nobody: caught on every run;
#  - test-mixed, the naive mixed lock ALock exists to fix: CPU CAS on the
#    home node and RDMA CAS from peers on one word. rxe executes a remote
#    CAS as a load, a compare and a store, so a home-node CAS can slip in
#    between. Home-node and remote threads hammer one lock, in rounds,
#    until the torture catches it or the rounds run out; node 0 reports
#    how many acquisitions that took. Both kinds of CAS spin (caslock.c):
#    with the baseline's backoff, a peer's CAS met a home-node CAS so
#    seldom that six rounds of 5 s sometimes passed without a catch. The
#    same race can also leave the word held by nobody, and the lock then
#    grants no more: each round's counters-reset clears the word of these
#    broken locks.
# Caught means: a violation seen in the owner word on any node, or the
# guarded counter of lock 0 (homed on node 0) short of the acquisitions.
. ./lib.sh

: "${MIXED_ROUNDS:=10}"
: "${MIXED_MS:=5000}"
n=$(num_nodes)

ctl() { rdmalockctl "$@"; }

create() {
	ctl domain create "$1" --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" \
		--key-file "$(key_file)" --algo "$1" --port "$2" --locks-per-node 4
}

# broken_round DOMAIN TAG ARGS...: run the torture everywhere; publish
# this node's violations; on node 0 also whether lock 0's counter is short.
broken_round() {
	local dom="$1" tag="$2" out

	shift 2
	ctl counters-reset "$dom" --locks 1 || return 1
	barrier "reset-$tag" || return 1
	out=$(ctl torture "$dom" --locks 1 --counts "/tmp/counts-$tag" "$@" 2>&1)
	echo "$out" >&2
	echo "$out" | sed -n 's/^violations: //p' >"$WWW/violations-$tag"
	echo "$out" | sed -n 's/^acquisitions: //p' >"$WWW/acquisitions-$tag"
	mv "/tmp/counts-$tag" "$WWW/counts-$tag"
	barrier "done-$tag"
}

# caught DOMAIN TAG: node 0's verdict over every node's results.
caught() {
	local dom="$1" tag="$2" p v a total_v=0 total_a=0 short=0

	for p in $(seq 0 $((n - 1))); do
		v=$(wget -q -O - "$(peer_url "$p" "violations-$tag")") || return 2
		a=$(wget -q -O - "$(peer_url "$p" "acquisitions-$tag")") || return 2
		total_v=$((total_v + ${v:-0}))
		total_a=$((total_a + ${a:-0}))
	done
	counters_exact "$dom" "$tag" 1 >&2 || short=1
	echo "$tag: $total_a acquisitions, $total_v violations, counter short: $short" >&2
	echo "$total_a" >"/tmp/acq-$tag"
	[ "$total_v" -gt 0 ] || [ "$short" -eq 1 ]
}

# catch_mixed: rounds of torture on the mixed lock until it is caught.
catch_mixed() {
	local r=1 sum=0 verdict

	while [ "$r" -le "$MIXED_ROUNDS" ]; do
		broken_round test-mixed "mixed-$r" --threads 4 --duration "$MIXED_MS" \
			--local 50 || return 1
		if [ "$VMTEST_NODE" -eq 0 ]; then
			verdict=no
			caught test-mixed "mixed-$r" && verdict=yes
			sum=$((sum + $(cat "/tmp/acq-mixed-$r")))
			echo "$verdict" >"$WWW/verdict-mixed-$r"
		fi
		barrier "judged-mixed-$r" || return 1
		verdict=$(wget -q -O - "$(peer_url 0 "verdict-mixed-$r")") || return 1
		if [ "$verdict" = yes ]; then
			echo "# test-mixed caught in round $r of $MIXED_ROUNDS, after $sum acquisitions over all nodes" >/tmp/mixed-report
			return 0
		fi
		r=$((r + 1))
	done
	echo "# test-mixed NOT caught in $MIXED_ROUNDS rounds of ${MIXED_MS} ms: $sum acquisitions" >/tmp/mixed-report
	return 1
}

if [ "$VMTEST_NODE" -eq 0 ]; then
	tap_plan 9
else
	tap_plan 8
fi
kmemleak_forget
tap_check "rdmalock.ko loads with allow_broken=1" load_rdmalock allow_broken=1
tap_check "test-none domain" create test-none 7301
tap_check "test-mixed domain" create test-mixed 7302
tap_check "the mixed lock's domain does native atomics" \
	sh -c "rdmalockctl domain status test-mixed | grep -q ', native atomics,'"
both_up() { domain_up test-none && domain_up test-mixed; }
tap_check "every node is up" retry 60 both_up
barrier up
broken_round test-none none --threads 4 --duration 1500 --local 50
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "the torture catches a lock that excludes nobody" caught test-none none
barrier none-done
tap_check "the torture catches the naive mixed CPU/RDMA CAS lock" catch_mixed
[ "$VMTEST_NODE" -ne 0 ] || cat /tmp/mixed-report
tap_check "domains destroyed, rdmalock.ko unloads" sh -c \
	"rdmalockctl domain destroy test-none && rdmalockctl domain destroy test-mixed &&
	 rmmod rdmalock"
tap_kmemleak

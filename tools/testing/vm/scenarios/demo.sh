#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# demo: what `make demo` shows. Each node loads rdmalock and joins one
# lock domain with the others, runs a small fetch-and-add storm on every
# node's memory, and reports, as TAP diagnostics, its address, its RDMA
# link and what rdmalock sees, the domain's connections and counters
# included.
. ./lib.sh

DOMAIN=demo
n=$(num_nodes)

storm_everywhere() {
	local t=0

	while [ "$t" -lt "$n" ]; do
		rdmalockctl fabric-test $DOMAIN faa-storm --target "$t" --word 7 --threads 2 \
			--iterations 25 >&2 || return 1
		t=$((t + 1))
	done
}

report() {
	echo "node $VMTEST_NODE at $(node_addr "$VMTEST_NODE"), kernel $(uname -r)"
	rdma link show
	rdmalockctl version
	rdmalockctl status
	rdmalockctl domain status $DOMAIN
	echo "test word 7 of every node (each node added $((2 * 25)) to each):"
	t=0
	while [ "$t" -lt "$n" ]; do
		rdmalockctl fabric-test $DOMAIN read --target "$t" --word 7
		t=$((t + 1))
	done
}

# locks_demo ALGO PORT: every node tortures 10 locks of an ALGO domain at
# once; the guarded counters of the locks homed here are then shown.
locks_demo() {
	local dom="demo-$1"

	rdmalockctl domain create "$dom" --node-id "$VMTEST_NODE" \
		--nodes "$VMTEST_NODES" --key-file "$(key_file)" --algo "$1" \
		--port "$2" --locks-per-node 8 &&
		retry 60 domain_up "$dom" &&
		torture_round "$dom" "demo-$1" --threads 4 --duration 2000 \
			--locks 10 --local 50 &&
		echo "# $1: every lock's guarded counter against its acquisitions on all nodes:" &&
		counters_exact "$dom" "demo-$1" 10 | sed 's/^/#   /' &&
		rdmalockctl domain destroy "$dom"
}

tap_plan 9
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "domain $DOMAIN created" \
	rdmalockctl domain create $DOMAIN --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" \
		--key-file "$(key_file)"
tap_check "every node of the domain is up" retry 60 domain_up $DOMAIN
barrier demo-up
tap_check "a fetch-and-add storm on every node" storm_everywhere
tap_check "every node has stormed" barrier demo-stormed
report 2>&1 | sed 's/^/# /'
barrier demo-reported
for algo_port in alock:7211 cas:7212 mcs:7213; do
	locks_demo "${algo_port%:*}" "${algo_port#*:}" >/tmp/locks-demo 2>&1
	tap_check "${algo_port%:*} locks taken on every node, counters exact" \
		grep -q ", 0 wrong" /tmp/locks-demo
	grep '^#' /tmp/locks-demo
done
rdmalockctl domain destroy $DOMAIN
tap_check "rdmalock.ko unloads" rmmod rdmalock

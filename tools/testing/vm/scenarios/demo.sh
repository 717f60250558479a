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

tap_plan 6
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "domain $DOMAIN created" \
	rdmalockctl domain create $DOMAIN --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES"
tap_check "every node of the domain is up" retry 60 domain_up $DOMAIN
barrier demo-up
tap_check "a fetch-and-add storm on every node" storm_everywhere
tap_check "every node has stormed" barrier demo-stormed
report 2>&1 | sed 's/^/# /'
barrier demo-reported
rdmalockctl domain destroy $DOMAIN
tap_check "rdmalock.ko unloads" rmmod rdmalock

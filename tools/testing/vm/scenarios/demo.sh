#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# demo: what `make demo` shows. Each node loads rdmalock and reports, as
# TAP diagnostics, its address, its RDMA link and what rdmalock sees;
# then it checks that every peer answers and waits for all of them.
. ./lib.sh

report() {
	echo "node $VMTEST_NODE at $(node_addr "$VMTEST_NODE"), kernel $(uname -r)"
	rdma link show
	rdmalockctl version
	rdmalockctl status
}

reach_all_peers() {
	local p

	for p in $(peers); do
		retry 60 ping -c 1 -W 1 "$(node_addr "$p")" >/dev/null || return 1
	done
}

tap_plan 4
tap_check "rdmalock.ko loads" load_rdmalock
report 2>&1 | sed 's/^/# /'
tap_check "every peer answers over the bridge" reach_all_peers
tap_check "every node is up at once" barrier demo-up
tap_check "rdmalock.ko unloads" rmmod rdmalock

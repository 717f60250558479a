#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fabric: all nodes join one domain; each node writes and reads back a
# pattern on every node, itself included; a fetch-and-add storm from
# every node on one word of every node ends at exactly
# NODES * THREADS * ADDS; a compare-and-swap ping-pong through all nodes
# ends at NODES * ROUNDS; the verb counters agree; bad requests are
# refused with clear errors; the domain is destroyed, the module unloads
# and nothing leaked.
. ./lib.sh

DOMAIN=fab
THREADS=4
ADDS=50
ROUNDS=10
STORM_WORD=7
PINGPONG_WORD=6
n=$(num_nodes)

ctl() { rdmalockctl "$@"; }

all_peers_up() {
	[ "$(ctl domain status $DOMAIN | grep -c ': up,')" -eq "$n" ]
}

# on_every_node CMD...: CMD with --target set to each node in turn.
on_every_node() {
	local t=0

	while [ "$t" -lt "$n" ]; do
		"$@" --target "$t" || return 1
		t=$((t + 1))
	done
}

# word_is TARGET WORD VALUE
word_is() {
	local out

	out=$(ctl fabric-test $DOMAIN read --target "$1" --word "$2") || return 1
	echo "$out" >&2
	echo "$out" | grep -q " value $3\$"
}

every_word_is() {
	local t=0

	while [ "$t" -lt "$n" ]; do
		word_is "$t" "$1" "$2" || return 1
		t=$((t + 1))
	done
}

# No verb failed, and every posted verb completed.
counters_agree() {
	ctl domain status $DOMAIN >&2
	ctl domain status $DOMAIN | awk '
		$2 == "posted" && ($3 != $5 || $7 != 0) { bad = 1 }
		$2 == "posted" { seen = 1 }
		END { exit !(seen && !bad) }'
}

# expect_refused ERRNO-TEXT CMD...: CMD exits 1 and prints ERRNO-TEXT.
expect_refused() {
	local want="$1" out rc=0

	shift
	out=$("$@" 2>&1) || rc=$?
	echo "$out" >&2
	[ "$rc" -eq 1 ] && echo "$out" | grep -q "$want"
}

create() {
	ctl domain create $DOMAIN --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" \
		--algo cas --locks-per-node 64
}

tap_plan 17
kmemleak_forget
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "domain create" create
tap_check "every node is up, loopback included" retry 60 all_peers_up
tap_check "all nodes joined" barrier fabric-up
tap_check "pattern written and read back on every node" \
	on_every_node ctl fabric-test $DOMAIN pattern --word "$VMTEST_NODE" --iterations 20
barrier storm-start
tap_check "fetch-and-add storm on every node: no verb failed" \
	on_every_node ctl fabric-test $DOMAIN faa-storm --word $STORM_WORD \
		--threads $THREADS --iterations $ADDS
barrier storm-done
tap_check "every storm word is exactly $((n * THREADS * ADDS))" \
	every_word_is $STORM_WORD $((n * THREADS * ADDS))
tap_check "compare-and-swap ping-pong through all nodes on node 0" \
	ctl fabric-test $DOMAIN cas-pingpong --target 0 --word $PINGPONG_WORD \
		--iterations $ROUNDS
barrier pingpong-done
tap_check "ping-pong word is exactly $((n * ROUNDS))" \
	word_is 0 $PINGPONG_WORD $((n * ROUNDS))
tap_check "every posted verb completed, none failed" counters_agree
tap_check "a second domain with the same name is refused (EEXIST)" \
	expect_refused "File exists" create
tap_check "a node id beyond the node list is refused (EINVAL)" \
	expect_refused "Invalid argument" \
	ctl domain create bad --node-id "$n" --nodes "$VMTEST_NODES"
tap_check "duplicate addresses are refused (EINVAL)" \
	expect_refused "Invalid argument" \
	ctl domain create bad --node-id 0 --nodes "$(node_addr 0),$(node_addr 0)"
tap_check "an address this node does not have is refused" \
	expect_refused "domain create: " \
	ctl domain create bad --node-id 0 --nodes 10.77.0.250
barrier checks-done
tap_check "domain destroy; no domain left" \
	sh -c "rdmalockctl domain destroy $DOMAIN && [ -z \"\$(rdmalockctl domain list)\" ]"
tap_check "rdmalock.ko unloads" rmmod rdmalock
tap_kmemleak

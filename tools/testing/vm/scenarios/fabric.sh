#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fabric: all nodes join one domain; each node writes and reads back a
# pattern on every node, itself included; a fetch-and-add storm from
# every node on one word of every node ends at exactly
# NODES * THREADS * ADDS; a compare-and-swap ping-pong through all nodes
# ends at NODES * ROUNDS; the verb counters agree; bad requests are
# refused with clear errors; a node with a wrong key, then with none, is
# refused by the others without disturbing their connection, and joins
# once it has the key; the domain is destroyed, the module unloads and
# nothing leaked.
. ./lib.sh

# fabric-emulated.sh runs this with every atomic emulated, and the main
# domain without a key.
: "${RDMALOCK_PARAMS:=}"
: "${EXPECT_ATOMICS:=native}"
: "${INSECURE:=}"
DOMAIN=fab
THREADS=4
ADDS=50
ROUNDS=10
STORM_WORD=7
PINGPONG_WORD=6
ASYNC_PINGPONG_WORD=5
n=$(num_nodes)

ctl() { rdmalockctl "$@"; }

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

# After node 1 destroyed and recreated its domain: everyone is up, and
# the others have connected to node 1 twice.
back_again() {
	domain_up $DOMAIN || return 1
	[ "$VMTEST_NODE" -eq 1 ] ||
		ctl domain status $DOMAIN | grep -q '^  node 1: up, .* connected 2 times'
}

# debugfs shows the same counters as domain status.
debugfs_agrees() {
	local f=/sys/kernel/debug/rdmalock/$DOMAIN/peers

	[ -r $f ] || return 1
	cat $f >&2
	grep -q "^node $VMTEST_NODE (self): up " $f &&
		[ "$(grep -c '^node [0-9]*.*: up ' $f)" -eq "$n" ]
}

# Nothing failed, and every one-sided verb posted has completed. (Sends
# are not compared: a heartbeat may be in flight.)
counters_agree() {
	local st

	st=$(ctl domain status $DOMAIN) || return 1
	echo "$st" >&2
	echo "$st" | awk '
		$2 == "posted" && $7 != 0 { bad = 1 }
		$2 == "posted" && $1 ~ /^(read|write|cas|faa)$/ && $3 != $5 { bad = 1 }
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

patterns_sync_and_async() {
	on_every_node ctl fabric-test $DOMAIN pattern --word "$VMTEST_NODE" \
		--iterations 20 &&
		on_every_node ctl fabric-test $DOMAIN pattern --word "$VMTEST_NODE" \
			--iterations 20 --async
}

# Destroyed while a storm runs on it: the domain is gone from the list at
# once, yet stays alive for the storm, which holds it; once the storm is
# stopped (its process killed) the domain is freed, and the rmmod that
# follows shows nothing was left behind.
storm_running() {
	ctl fabric-test $DOMAIN read --target "$VMTEST_NODE" --word 4 |
		grep -qv ' value 0$'
}

destroy_during_storm() {
	local pid freed

	# Node 1 already destroyed one "$DOMAIN" when it left and came back.
	freed=$(dmesg | grep -c "domain $DOMAIN destroyed")
	# The binary itself, not ctl: $! must be the process in the ioctl.
	rdmalockctl fabric-test $DOMAIN faa-storm --target "$VMTEST_NODE" --word 4 \
		--threads 2 --iterations 1000000 >&2 &
	pid=$!
	retry 30 storm_running || return 1
	ctl domain destroy $DOMAIN || return 1
	[ -z "$(ctl domain list)" ] || return 1
	kill -0 $pid || { echo "storm over before the destroy" >&2; return 1; }
	[ "$(dmesg | grep -c "domain $DOMAIN destroyed")" -eq "$freed" ] || return 1
	kill -KILL $pid
	wait $pid
	retry 30 sh -c "[ \$(dmesg | grep -c 'domain $DOMAIN destroyed') -gt $freed ]"
}

# The main domain's key, or --insecure.
domain_auth() {
	if [ -n "$INSECURE" ]; then
		echo --insecure
	else
		echo --key-file "$(key_file)"
	fi
}

create() {
	# shellcheck disable=SC2046 # the option and its file are two words
	ctl domain create $DOMAIN --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" \
		--algo cas --locks-per-node 64 $(domain_auth)
}

auth_is() {
	ctl domain status $DOMAIN | grep -q ", $1\$"
}

# Authentication: node 0 joins "auth" with a wrong key, then with none,
# then with the right one; nodes 1 and up have the right key throughout.
AUTH=auth
BAD_KEY=/tmp/rdmalock-wrong.key

auth_create() {
	ctl domain create $AUTH --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" \
		--port 7301 --algo cas --locks-per-node 8 "$@"
}

# The other good nodes that are up, with their connect counts, as this
# node sees them (its own line says "(self, loopback)").
good_connects() {
	ctl domain status $AUTH |
		sed -n "s/^  node \([1-9][0-9]*\): up, .* connected \([0-9]*\) times$/\1 \2/p"
}

node0_not_up() {
	! ctl domain status $AUTH | grep -q '^  node 0: up,'
}

# logged_times N PATTERN: dmesg has PATTERN at least N times.
logged_times() {
	[ "$(dmesg | grep -c "$2")" -ge "$1" ]
}

good_peers_up() {
	[ "$(good_connects | wc -l)" -eq $((n - 2)) ]
}

wrong_key_refused() {
	if [ "$VMTEST_NODE" -eq 0 ]; then
		printf '%s' 'not the key the other nodes have' >$BAD_KEY
		auth_create --key-file $BAD_KEY &&
			retry 30 logged_times 1 "$AUTH: node 1 did not prove the domain key" &&
			[ "$(ctl domain status $AUTH | grep -c ': up,')" -eq 1 ]
		return
	fi
	auth_create --key-file "$(key_file)" && retry 60 good_peers_up || return 1
	GOOD_CONNECTS=$(good_connects)
	echo "good connections: $GOOD_CONNECTS" >&2
	# Node 0 tries again and again; each attempt is refused.
	retry 30 logged_times 3 \
		"$AUTH: node 0: connection failed: closed by the peer before it proved the domain key" &&
		node0_not_up && [ "$(good_connects)" = "$GOOD_CONNECTS" ]
}

keyless_refused() {
	if [ "$VMTEST_NODE" -eq 0 ]; then
		ctl domain destroy $AUTH && auth_create --insecure &&
			ctl domain status $AUTH | grep -q ', INSECURE: no key, anyone may join$' &&
			retry 30 logged_times 1 "$AUTH: node 1: connection failed: rejected"
		return
	fi
	retry 30 logged_times 1 "$AUTH: node 0 refused: it has no key and this node has one" &&
		node0_not_up && [ "$(good_connects)" = "$GOOD_CONNECTS" ]
}

right_key_joins() {
	if [ "$VMTEST_NODE" -eq 0 ]; then
		ctl domain destroy $AUTH && auth_create --key-file "$(key_file)"
	fi
	retry 60 domain_up $AUTH || return 1
	[ "$VMTEST_NODE" -eq 0 ] || [ "$(good_connects)" = "$GOOD_CONNECTS" ]
}

tap_plan 30
kmemleak_forget
# shellcheck disable=SC2086 # the parameters are words
tap_check "rdmalock.ko loads" load_rdmalock $RDMALOCK_PARAMS
tap_check "domain create" create
tap_check "every node is up, loopback included" retry 60 domain_up $DOMAIN
tap_check "the domain does atomics: $EXPECT_ATOMICS" \
	sh -c "rdmalockctl domain status $DOMAIN | grep -q ', $EXPECT_ATOMICS atomics,'"
tap_check "all nodes joined" barrier fabric-up
if [ -n "$INSECURE" ]; then
	tap_check "the domain says it is insecure" auth_is "INSECURE: no key, anyone may join"
else
	tap_check "the domain says its peers prove the key" auth_is "peers prove the key"
fi
tap_check "pattern written and read back on every node, sync and async" \
	patterns_sync_and_async
barrier storm-start
tap_check "fetch-and-add storm on every node: no verb failed" \
	on_every_node ctl fabric-test $DOMAIN faa-storm --word $STORM_WORD \
		--threads $THREADS --iterations $ADDS
barrier storm-done
tap_check "every storm word is exactly $((n * THREADS * ADDS))" \
	every_word_is $STORM_WORD $((n * THREADS * ADDS))
barrier async-start
tap_check "the same storm through the asynchronous verbs" \
	on_every_node ctl fabric-test $DOMAIN faa-storm --word $STORM_WORD \
		--threads $THREADS --iterations $ADDS --async
barrier async-done
tap_check "every storm word is exactly $((2 * n * THREADS * ADDS)) now" \
	every_word_is $STORM_WORD $((2 * n * THREADS * ADDS))
tap_check "compare-and-swap ping-pong through all nodes on node 0" \
	ctl fabric-test $DOMAIN cas-pingpong --target 0 --word $PINGPONG_WORD \
		--iterations $ROUNDS
barrier pingpong-done
tap_check "ping-pong word is exactly $((n * ROUNDS))" \
	word_is 0 $PINGPONG_WORD $((n * ROUNDS))
tap_check "the same ping-pong through the asynchronous verbs" \
	ctl fabric-test $DOMAIN cas-pingpong --target 0 --word $ASYNC_PINGPONG_WORD \
		--iterations $ROUNDS --async
barrier async-pingpong-done
tap_check "async ping-pong word is exactly $((n * ROUNDS))" \
	word_is 0 $ASYNC_PINGPONG_WORD $((n * ROUNDS))
tap_check "every posted verb completed, none failed" counters_agree
tap_check "debugfs shows every node up" debugfs_agrees
barrier restart
[ "$VMTEST_NODE" -ne 1 ] || { ctl domain destroy $DOMAIN && create; }
tap_check "node 1 left and came back: every node up, node 1 reconnected" \
	retry 30 back_again
barrier restarted
tap_check "a second domain with the same name is refused (EEXIST)" \
	expect_refused "File exists" create
tap_check "a node id beyond the node list is refused (EINVAL)" \
	expect_refused "Invalid argument" \
	ctl domain create bad --node-id "$n" --nodes "$VMTEST_NODES" --key-file "$(key_file)"
tap_check "duplicate addresses are refused (EINVAL)" \
	expect_refused "Invalid argument" \
	ctl domain create bad --node-id 0 --nodes "$(node_addr 0),$(node_addr 0)" --insecure
tap_check "an address this node does not have is refused" \
	expect_refused "domain create: " \
	ctl domain create bad --node-id 0 --nodes 10.77.0.250 --key-file "$(key_file)"
tap_check "without CAP_SYS_ADMIN, domain create is refused (EPERM)" \
	expect_refused "Operation not permitted" \
	dropcap rdmalockctl domain create capless --node-id 0 --nodes "$(node_addr 0)" --insecure
tap_check "without CAP_SYS_ADMIN, domain status still works" \
	dropcap rdmalockctl domain status $DOMAIN
barrier checks-done
tap_check "a node with a wrong key is refused, the others say why, their connection stays" \
	wrong_key_refused
barrier auth-wrong-key
tap_check "a node without a key is refused by keyed ones, their connection stays" \
	keyless_refused
barrier auth-no-key
tap_check "the node with the right key joins; the others' connection never dropped" \
	right_key_joins
barrier auth-joined
ctl domain destroy $AUTH
tap_check "domain destroy during a storm: gone at once, freed when the storm stops" \
	destroy_during_storm
tap_check "rdmalock.ko unloads" rmmod rdmalock
tap_kmemleak

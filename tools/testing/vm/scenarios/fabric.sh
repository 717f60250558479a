#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fabric: all nodes join one domain; each node writes and reads back a
# pattern on every node, itself included; a fetch-and-add storm from
# every node on one word of every node ends at exactly
# NODES * THREADS * ADDS; a compare-and-swap ping-pong through all nodes
# ends at NODES * ROUNDS; the verb counters agree; each node measures
# the floors toward the next (see "rdmalockctl floor"); bad requests are
# refused with clear errors; a node with a wrong key, then with none, is
# refused by the others without disturbing their connection, and joins
# once it has the key; node 1 invalidates node 0's region as a hostile
# peer would, node 0 registers it again and the exact results hold after
# it; the domain is destroyed, the module unloads and nothing leaked.
# With emulated atomics, node 1 also leaves and comes back under a storm
# of them from node 0, and no connection fails for it; on the debug
# kernel a storm of them runs short of message buffers, and waits for
# them: none fails (NOMEM).
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
FLOOR_SAMPLES=200
STORM_WORD=7
PINGPONG_WORD=6
ASYNC_PINGPONG_WORD=5
REJOIN_WORD=3
REJOINS=5
# Node 0's word 3: the patterns (word = node id) and the storm during the
# destroy (word 4, which sees it move) leave it alone, the rejoins use
# node 1's.
ATTACK_PINGPONG_WORD=3
# With emulated atomics on the debug kernel: a storm on word 4 (the one
# the storm during the destroy takes later) while every third request of
# an emulated atomic finds no message buffer, up to 60 times a node
# (fault fail_alloc, verb send, type RMW_REQ). Each waits for one; none
# may fail, and the attempts that found none count as no verb (the
# counters' check follows).
NOMEM_WORD=4
VERB_SEND=4
MSG_RMW_REQ=2
NOMEM=0
[ "$EXPECT_ATOMICS" != emulated ] || [ ! -e "$KMEMLEAK" ] || NOMEM=1
n=$(num_nodes)

ctl() { rdmalockctl "$@"; }

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

# nomem_storm: the storm on NOMEM_WORD of every node, its requests short
# of message buffers: no verb failed, and the fault was injected.
nomem_storm() {
	local i0 rc=0

	i0=$(injected fail_alloc)
	fault fail_alloc verbs=$((1 << VERB_SEND)) types=$((1 << MSG_RMW_REQ)) \
		interval=3 times=60 verbose=0 probability=100 || return 1
	on_every_node ctl fabric-test $DOMAIN faa-storm --word $NOMEM_WORD \
		--threads $THREADS --iterations $ADDS || rc=1
	faults_off || rc=1
	echo "requests without a buffer at first: $(($(injected fail_alloc) - i0))" >&2
	[ "$rc" -eq 0 ] && [ "$(injected fail_alloc)" -gt "$i0" ]
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

# floors_measured: this node's floors toward the next node, each taken
# FLOOR_SAMPLES times, with a positive median and a 99th percentile at
# or above it. No floor is compared with another: under load any order
# can happen.
floors_measured() {
	local out

	out=$(ctl floor $DOMAIN --peer $(((VMTEST_NODE + 1) % n)) \
		--samples $FLOOR_SAMPLES) || return 1
	echo "$out" >&2
	echo "$out" | awk -v want=$FLOOR_SAMPLES '
		NR == 1 { next }
		{ rows++ }
		!($2 > 0 && $3 >= $2 && $4 == want) { bad++ }
		END { exit !(rows == 4 && !bad) }'
}

# Destroyed while a storm runs on it: the domain is gone from the list at
# once, yet stays alive for the storm, which holds it; once the storm is
# stopped (its process killed) the domain is freed, and the rmmod that
# follows shows nothing was left behind.
# word4: this node's word 4.
word4() {
	ctl fabric-test $DOMAIN read --target "$VMTEST_NODE" --word 4 |
		sed -n 's/.* value \([0-9]*\)$/\1/p'
}

# storm_running BEFORE: this node's word 4, read, moved from BEFORE.
storm_running() {
	local w

	w=$(word4)
	[ -n "$w" ] && [ "$w" != "$1" ]
}

# A destroyed domain stops at once: a storm on it ends by itself, and
# when destroy returns the domain's fabric is gone.
destroy_during_storm() {
	local pid freed before

	# Node 1 already destroyed one "$DOMAIN" when it left and came back.
	freed=$(logged_count "domain $DOMAIN destroyed")
	before=$(word4)
	[ -n "$before" ] || return 1
	# The binary itself, not ctl: $! must be the process in the ioctl.
	rdmalockctl fabric-test $DOMAIN faa-storm --target "$VMTEST_NODE" --word 4 \
		--threads 2 --iterations 1000000 >&2 &
	pid=$!
	retry 30 storm_running "$before" || return 1
	ctl domain destroy $DOMAIN || return 1
	[ -z "$(ctl domain list)" ] || return 1
	[ "$(logged_count "domain $DOMAIN destroyed")" -gt "$freed" ] || return 1
	# Stopped with its domain, not after its million iterations.
	wait $pid
}

# A domain destroyed while an open file holds one of its locks and
# another waits for it: the waiter fails with ESHUTDOWN, the holder's
# unlock reports ESHUTDOWN, and the name is free again at once, on the
# same port, for a domain that grants that lock.
HELD=held
HELD_PORT=7180
held_create() {
	ctl domain create $HELD --node-id 0 --nodes "$(node_addr "$VMTEST_NODE")" \
		--port $HELD_PORT --algo cas --locks-per-node 8 --insecure
}
# Up, and a member of its view: a lock call before that is refused.
held_up() {
	ctl domain status $HELD | grep -q '^  node 0 (self, loopback): up,' &&
		view_is $HELD 0
}
held_locked() { grep -q "^locked $HELD 1" /tmp/held.out; }
# The cas baseline goes through the NIC even at home: a waiter posts a
# CAS at every try, the holder posted one.
held_waited() {
	[ "$(verb_delta "$1" "$(verbs_posted $HELD)" cas)" -ge 3 ]
}
destroy_while_held() {
	local before holder waiter rc=0

	held_create && retry 30 held_up || return 1
	rm -f /tmp/held.fifo && mkfifo /tmp/held.fifo || return 1
	rdmalockctl lock $HELD 1 </tmp/held.fifo >/tmp/held.out 2>&1 &
	holder=$!
	exec 3>/tmp/held.fifo
	retry 30 held_locked || return 1
	before=$(verbs_posted $HELD)
	rdmalockctl lock $HELD 1 --timeout 60000 -- true >/tmp/waiter.out 2>&1 &
	waiter=$!
	retry 30 held_waited "$before" || return 1
	ctl domain destroy $HELD || return 1
	wait $waiter || rc=$?
	exec 3>&-
	wait $holder
	cat /tmp/waiter.out /tmp/held.out >&2
	[ "$rc" -eq 1 ] || return 1
	grep -q 'lock: Cannot send after transport endpoint shutdown' /tmp/waiter.out &&
		grep -q 'unlock: Cannot send after transport endpoint shutdown' \
			/tmp/held.out || return 1
	held_create && retry 30 held_up &&
		ctl lock $HELD 1 --try -- true && ctl domain destroy $HELD
}

# connects_with NODE: how many times this node has connected with NODE,
# another node.
connects_with() {
	ctl domain status $DOMAIN |
		sed -n "s/^  node $1: .* connected \([0-9]*\) times\$/\1/p"
}

# Node 1 sends node 0 a SEND_WITH_INVALIDATE naming node 0's rkey, which
# rxe obeys. Node 0 must notice it, drop node 1 and register its region
# again under a new rkey.
invalidate_region_of_0() {
	case "$VMTEST_NODE" in
	0) retry 30 sh -c "dmesg | grep -q '$DOMAIN: node 1 invalidated this node.s region'" &&
		retry 30 sh -c "dmesg | grep -q '$DOMAIN: region re-registered'" ;;
	1) invalidate_node_0 ;;
	esac
}

# Node 0 drops the connection as the SEND_WITH_INVALIDATE arrives, which
# may fail its completion here: either way, node 0 says what it did.
invalidate_node_0() {
	local out

	out=$(ctl fabric-test $DOMAIN invalidate --target 0 2>&1) && return
	echo "$out" >&2
	echo "$out" | grep -q 'first: Transport endpoint is not connected$'
}

# Every node is up, and has connected with node 0 again since $1 (node 0:
# after its region was registered again, so every connection is new).
reconnected_to_0() {
	domain_up $DOMAIN || return 1
	[ "$VMTEST_NODE" -eq 0 ] || [ "$(connects_with 0)" -gt "$1" ]
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

# logged_count PATTERN: the lines of the whole kernel log (busybox's
# dmesg reads only its last 16 KiB by default) that match PATTERN.
logged_count() { dmesg -s 1048576 | grep -c "$1"; }

# logged_times N PATTERN: the kernel log has PATTERN at least N times.
logged_times() {
	[ "$(logged_count "$2")" -ge "$1" ]
}

good_peers_up() {
	[ "$(good_connects | wc -l)" -eq $((n - 2)) ]
}

wrong_key_refused() {
	if [ "$VMTEST_NODE" -eq 0 ]; then
		printf '%s' 'not the key the other nodes have' >$BAD_KEY
		# It tries again and again; each attempt is refused.
		auth_create --key-file $BAD_KEY &&
			retry 30 logged_times 3 "$AUTH: node 1 did not prove the domain key" &&
			[ "$(ctl domain status $AUTH | grep -c ': up,')" -eq 1 ]
		return
	fi
	auth_create --key-file "$(key_file)" && retry 60 good_peers_up || return 1
	GOOD_CONNECTS=$(good_connects)
	echo "good connections: $GOOD_CONNECTS" >&2
	# Each attempt is refused on its own account, not as node 0's.
	retry 30 logged_times 1 \
		"$AUTH: refused a connection claiming node 0 from $(node_addr 0): closed by the peer before it proved the domain key" &&
		node0_not_up && [ "$(good_connects)" = "$GOOD_CONNECTS" ]
}

# On node 0, its connections to the keyed nodes fail, counted from the
# keyless domain's creation (the wrong key's failed too), and no keyed
# node is up. Why each failed is a race: the keyed node's reject, or the
# flush of node 0's receives when the reject moved its QP to error,
# whichever node 0 handles first ("rejected" or "WR flushed").
keyless_refused() {
	local failed="$AUTH: node [1-9][0-9]*: connection failed: " before

	if [ "$VMTEST_NODE" -eq 0 ]; then
		before=$(logged_count "$failed")
		ctl domain destroy $AUTH && auth_create --insecure &&
			ctl domain status $AUTH | grep -q ', INSECURE: no key, anyone may join$' &&
			retry 30 logged_times $((before + 1)) "$failed" &&
			! ctl domain status $AUTH | grep -q '^  node [1-9][0-9]*: up,'
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

# Emulated atomics from node 0 to node 1, over and over until $1 exists;
# while node 1 is away they fail at once, which is expected.
storm_node1_until() {
	while [ ! -e "$1" ]; do
		rdmalockctl fabric-test $DOMAIN faa-storm --target 1 --word $REJOIN_WORD \
			--threads 4 --iterations 200 >/dev/null 2>&1
	done
}

# Node 1 leaves and comes back REJOINS times while node 0 storms it. Node
# 0 sends as soon as it sees each new connection up, which node 1, the
# accepting side, often hears of only after those requests: they must
# wait for it there, not fail the new connection.
rejoin_under_storm() {
	local i=0

	while [ "$i" -lt "$REJOINS" ]; do
		ctl domain destroy $DOMAIN && create || return 1
		retry 30 domain_up $DOMAIN || return 1
		i=$((i + 1))
	done
}

# Every connection to node 1 was made once per time it came back.
no_extra_connects() {
	ctl domain status $DOMAIN | grep -q "^  node 1: up, .* connected $1 times"
}

rejoins() {
	local stop=/tmp/rejoins-done pid='' rc=0

	[ "$VMTEST_NODE" -ne 0 ] || { storm_node1_until $stop & pid=$!; }
	barrier rejoin-start
	[ "$VMTEST_NODE" -ne 1 ] || rejoin_under_storm || rc=1
	barrier rejoin-done
	[ -z "$pid" ] || { : >$stop; wait $pid; }
	# Two: the first connection, and node 1's first return above.
	[ "$VMTEST_NODE" -eq 1 ] || retry 10 no_extra_connects $((2 + REJOINS)) || rc=1
	return $rc
}

if [ "$EXPECT_ATOMICS" = emulated ]; then
	tap_plan $((43 + 2 * NOMEM + SMOKE_CHECKS))
else
	tap_plan $((42 + SMOKE_CHECKS))
fi
kmemleak_forget
# shellcheck disable=SC2086 # the parameters are words
tap_check "rdmalock.ko loads" load_rdmalock allow_broken=1 $RDMALOCK_PARAMS
smoke_checks
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
if [ "$NOMEM" -eq 1 ]; then
	barrier nomem-start
	tap_check "a storm whose emulated atomics find no message buffer at first (every third, 60 times): none failed" \
		nomem_storm
	barrier nomem-done
	tap_check "every word of that storm is exactly $((n * THREADS * ADDS))" \
		every_word_is $NOMEM_WORD $((n * THREADS * ADDS))
fi
tap_check "every posted verb completed, none failed" counters_agree
tap_check "debugfs shows every node up" debugfs_agrees
tap_check "the floors toward the next node: $FLOOR_SAMPLES samples each, all positive" \
	floors_measured
tap_check "a floor toward this node itself is refused (EINVAL)" \
	expect_refused "Invalid argument" ctl floor $DOMAIN --peer "$VMTEST_NODE"
barrier restart
[ "$VMTEST_NODE" -ne 1 ] || { ctl domain destroy $DOMAIN && create; }
tap_check "node 1 left and came back: every node up, node 1 reconnected" \
	retry 30 back_again
barrier restarted
[ "$EXPECT_ATOMICS" != emulated ] ||
	tap_check "node 1 left and came back $REJOINS times under emulated atomics: no connection failed" \
		rejoins
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
tap_check "domain create with a read-only argument succeeds or has no effect" \
	roarg create roarg "$(node_addr "$VMTEST_NODE")" 7181
tap_check "lock with a read-only argument succeeds or has no effect" \
	roarg lock $DOMAIN $((200 + VMTEST_NODE))
tap_check "destroy while a file holds a lock and one waits: both told, name free" \
	destroy_while_held
tap_check "two LOCKs of one lock on one file at once: the second is EDEADLK" \
	ctl lock $DOMAIN $((210 + VMTEST_NODE)) -- \
	timeout 60 fdrace $DOMAIN $((210 + VMTEST_NODE))
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
before=$(connects_with 0)
barrier invalidate
tap_check "node 1 invalidates node 0's region; node 0 registers it again" \
	invalidate_region_of_0
tap_check "every node is connected with node 0 again" \
	retry 60 reconnected_to_0 "$before"
barrier reconnected
tap_check "after it, a storm from every node on node 0: no verb failed" \
	ctl fabric-test $DOMAIN faa-storm --target 0 --word $STORM_WORD \
		--threads $THREADS --iterations $ADDS
barrier storm-again-done
tap_check "node 0's storm word is exactly $((3 * n * THREADS * ADDS)) now" \
	word_is 0 $STORM_WORD $((3 * n * THREADS * ADDS))
tap_check "and a ping-pong through all nodes on node 0" \
	ctl fabric-test $DOMAIN cas-pingpong --target 0 --word $ATTACK_PINGPONG_WORD \
		--iterations $ROUNDS
barrier pingpong-again-done
tap_check "that ping-pong word is exactly $((n * ROUNDS))" \
	word_is 0 $ATTACK_PINGPONG_WORD $((n * ROUNDS))
# Every node has read node 0's word before any domain goes.
barrier pingpong-checked
tap_check "domain destroy during a storm: stops it, fabric gone at once" \
	destroy_during_storm
tap_check "rdmalock.ko unloads" rmmod rdmalock
tap_kmemleak

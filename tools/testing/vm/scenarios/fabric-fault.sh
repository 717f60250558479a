#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fabric-fault: the fabric under injected faults (kmod/fabric-fault.c),
# on the debug kernel, the only one of ours with CONFIG_FAULT_INJECTION.
# Each node aims its faults at the next node, "peer", and checks its own
# counters: one in a few FAAs failing at post time shows up exactly in
# the FAA "failed" count and the storm's errors, the connection up; a
# verb failed by an error completion takes the connection down, and it
# comes back; failed message and bounce buffer allocations are counted
# failed; a dropped message takes the connection down and it comes back;
# with every verb completion and message delayed, storms on every node
# and a ShiftLock torture stay exact; with the faults off again, a storm
# is exact; links and grants of an MCS torture failing at post time, with
# every node alive, wedge no lock, nor do DSLR's tickets and releases
# failing; a request that reaches a node whose connection is up but not
# yet ready is answered once it is, not into a connection it cannot send
# on; rxe0 removed while a domain is being created returns, and the
# creation fails. The harness fails the run on any splat.
. ./lib.sh

DOMAIN=flt
F=$FAULTS
n=$(num_nodes)
peer=$(((VMTEST_NODE + 1) % n))
prev=$(((VMTEST_NODE + n - 1) % n))
PEER_BIT=$((1 << peer))
# RDMALOCK_VERB_* and message types as filter bits.
VERB_READ=1
VERB_FAA=8
VERB_SEND=16
MSG_HEARTBEAT=2
THREADS=2

ctl() { rdmalockctl "$@"; }

# failed VERB NODE: this node's "failed" count of VERB to NODE.
failed() {
	ctl domain status $DOMAIN | awk -v node="$2" -v verb="$1" '
		$1 == "node" { cur = $2; sub(":", "", cur) }
		$1 == verb && $2 == "posted" && cur == node { v = $7 }
		END { print v + 0 }'
}

# connects NODE [DOMAIN]: how many times this node's connection to NODE
# was made.
connects() {
	ctl domain status "${2:-$DOMAIN}" |
		sed -n "s/^  node $1: .*connected \([0-9]*\) times/\1/p"
}

# more_connects NODE N [DOMAIN]: the connection to NODE was made more
# than N times.
more_connects() { [ "$(connects "$1" "$3")" -gt "$2" ]; }

# node_ready DOMAIN NODE: this node's connection to NODE is offered to
# users.
node_ready() { ctl domain status "$1" | grep -q "^  node $2: up,"; }

# injected_past NAME N: fault NAME was injected more than N times.
injected_past() { [ "$(injected "$1")" -gt "$2" ]; }

# field NAME OUTPUT: NAME's number in a fabric-test result line.
field() { echo "$2" | sed -n "s/.* $1 \([0-9]*\).*/\1/p"; }

# One in five FAAs to the peer fails at post time: the storm's errors,
# the injections and the FAA "failed" count all agree, the successful
# ones are exactly what the word holds, and the connection stays up.
fail_one_in_five() {
	local f0 i0 out good errs

	f0=$(failed faa $peer) i0=$(injected fail_verb)
	fault fail_verb nodes=$PEER_BIT verbs=$VERB_FAA completion=0 \
		interval=5 times=-1 probability=100 || return 1
	out=$(ctl fabric-test $DOMAIN faa-storm --target $peer --word 7 \
		--threads $THREADS --iterations 50)
	faults_off || return 1
	echo "$out; injected $(($(injected fail_verb) - i0));" \
		"failed $(($(failed faa $peer) - f0))" >&2
	good=$(field "done" "$out") errs=$(field errors "$out")
	[ "$errs" -gt 0 ] && [ $((good + errs)) -eq $((THREADS * 50)) ] &&
		[ "$errs" -eq $(($(injected fail_verb) - i0)) ] &&
		[ "$errs" -eq $(($(failed faa $peer) - f0)) ] &&
		[ "$(field value "$out")" -eq "$good" ] &&
		ctl domain status $DOMAIN | grep -q "^  node $peer: up,"
}

# One FAA completes in error: its connection fails, every verb that
# then fails (the FAAs, and the storm's final READ of the word) is
# counted, and the connection is made again.
fail_by_completion() {
	local c0 f0 r0 i0 out

	c0=$(connects $peer) f0=$(failed faa $peer) r0=$(failed read $peer)
	i0=$(injected fail_verb)
	fault fail_verb nodes=$PEER_BIT verbs=$VERB_FAA completion=1 \
		interval=1 times=1 probability=100 || return 1
	out=$(ctl fabric-test $DOMAIN faa-storm --target $peer --word 6 \
		--threads 1 --iterations 5 2>&1)
	faults_off || return 1
	echo "$out; injected $(($(injected fail_verb) - i0))" >&2
	[ $(($(injected fail_verb) - i0)) -eq 1 ] &&
		[ "$(field errors "$out")" -ge 1 ] &&
		[ "$(field errors "$out")" -eq \
			$(($(failed faa $peer) - f0 + $(failed read $peer) - r0)) ] &&
		retry 60 more_connects $peer "$c0"
}

# Every other heartbeat to the peer, three times, finds no memory for
# its buffer (never two in a row: the peer would be taken for silent);
# then the bounce buffers of two READs: each one is counted failed.
fail_allocs() {
	local s0 r0 i0 ok=0

	s0=$(failed send $peer) r0=$(failed read $peer) i0=$(injected fail_alloc)
	fault fail_alloc nodes=$PEER_BIT verbs=$VERB_SEND types=$MSG_HEARTBEAT \
		interval=2 times=3 probability=100 || return 1
	retry 30 injected_past fail_alloc $((i0 + 2)) || return 1
	[ $(($(failed send $peer) - s0)) -eq 3 ] || ok=1
	fault fail_alloc verbs=$VERB_READ interval=1 times=2 || return 1
	# Each reads twice: the test's READ, then its read of the result.
	for _ in 1 2; do
		ctl fabric-test $DOMAIN read --target $peer --word 0 >&2
	done
	faults_off || return 1
	echo "send failed +$(($(failed send $peer) - s0)), read failed" \
		"+$(($(failed read $peer) - r0)), injected +$(($(injected fail_alloc) - i0))" >&2
	[ "$ok" -eq 0 ] && [ $(($(failed read $peer) - r0)) -eq 2 ] &&
		[ $(($(injected fail_alloc) - i0)) -eq 5 ]
}

# A heartbeat to the peer is lost: the send fails, the connection goes
# down on both sides and is made again.
drop_heartbeat() {
	local c0 s0 i0

	c0=$(connects $peer) s0=$(failed send $peer) i0=$(injected drop_msg)
	fault drop_msg nodes=$PEER_BIT types=$MSG_HEARTBEAT interval=1 times=1 \
		probability=100 || return 1
	retry 30 injected_past drop_msg "$i0" || return 1
	faults_off || return 1
	retry 60 more_connects $peer "$c0" &&
		[ $(($(failed send $peer) - s0)) -ge 1 ]
}

# Every completion of a verb and every message, from every node, held
# for DELAY ms.
delay_all() {
	fault delay_verb delay_ms="$1" interval=1 times=-1 probability=100 &&
		fault delay_msg delay_ms="$1" interval=1 times=-1 probability=100
}

delayed_storms() {
	local i0

	i0=$(injected delay_verb)
	on_every_node ctl fabric-test $DOMAIN faa-storm --word 5 \
		--threads $THREADS --iterations 10 &&
		on_every_node ctl fabric-test $DOMAIN faa-storm --word 5 \
			--threads $THREADS --iterations 10 --async &&
		[ "$(injected delay_verb)" -gt "$i0" ]
}

create() {
	ctl domain create $DOMAIN --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" \
		--key-file "$(key_file)" --algo cas --locks-per-node 8
}

# In the paper's lease mode: ready_late takes every node's connections
# down at once for longer than the node lease, after which a membership
# domain's nodes have fenced themselves (rightly) and refuse the lock until
# a view takes them back; what it checks is the fabric's holding of the
# request, not membership (the membership and shiftlock scenarios are).
create_shift() {
	ctl domain create flt-shift --node-id "$VMTEST_NODE" \
		--nodes "$VMTEST_NODES" --key-file "$(key_file)" --algo shiftlock --port 7221 \
		--locks-per-node 8 --lease-ms 15000 --lease-recovery
}

delayed_torture() {
	torture_round flt-shift delayed --threads $THREADS --duration 1500 \
		--locks 1 --read 50 &&
		counters_exact flt-shift delayed 1
}

# The peer's word 4 is this node's alone.
exact_storm() {
	ctl fabric-test $DOMAIN faa-storm --target $peer --word 4 \
		--threads $THREADS --iterations 20 |
		grep -q " errors 0 value $((THREADS * 20))\$"
}

knobs_off() {
	[ -e $F/fail_verb/probability ] && [ -e $F/delay_msg/delay_ms ] &&
		[ "$(cat $F/*/probability | sort -u)" = 0 ] &&
		[ "$(cat $F/*/verbose | sort -u)" = 0 ]
}

# Each node's atomics probe toward its peer takes 3 s more (less than
# the heartbeat timeout, 5 s: a node sends no heartbeat on a connection
# that is not ready), and the connection to the peer is made again;
# this node, ready toward the node
# before it at once, takes a ShiftLock write lock homed there, which
# asks that node to enqueue it and waits for its answer. That node must
# hold the request until its connection is ready, and then answer: no
# ShiftLock message may be lost, and the lock comes.
ready_late() {
	local c0

	lost >/tmp/lost-before || return 1
	c0=$(connects $prev flt-shift)
	fault delay_ready nodes=$PEER_BIT delay_ms=3000 interval=1 times=-1 \
		probability=100 || return 1
	barrier ready-late-armed || return 1
	fault drop_msg nodes=$PEER_BIT types=$MSG_HEARTBEAT interval=1 times=1 \
		probability=100 || return 1
	retry 30 more_connects $prev "$c0" flt-shift &&
		retry 5 node_ready flt-shift $prev &&
		ctl lock flt-shift $prev --timeout 30000 -- true &&
		injected_past delay_ready 0
}

lost() { dmesg | grep -c 'ShiftLock message .* lost' || :; }

no_message_lost() { [ "$(lost)" -eq "$(cat /tmp/lost-before)" ]; }

gone() { ! kill -0 "$1" 2>/dev/null; }

# rxe0 is removed while a domain is being created on it (its loopback's
# probe stretched to 3 s): the removal returns, the creation fails. rxe0
# is then added again, for a scenario that shares the boot.
remove_during_create() {
	local pid i0 rc=0

	i0=$(injected delay_ready)
	fault delay_ready nodes=$((1 << VMTEST_NODE)) delay_ms=3000 interval=1 \
		times=1 probability=100 || return 1
	ctl domain create flt-gone --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" \
		--key-file "$(key_file)" --algo cas --locks-per-node 8 --port 7222 &
	pid=$!
	sleep 1
	# In the background: a removal that waits for ever cannot be killed.
	rdma link delete rxe0 &
	retry 30 gone $! || rc=1
	wait $pid && rc=1
	rdma link add rxe0 type rxe netdev eth0 || rc=1
	injected_past delay_ready "$i0" && [ $rc -eq 0 ]
}

# A link or grant of a queue lock that fails with every node alive must
# not wedge the lock (issue 16, defect 4): the node whose verb failed asks
# for a view change, which resets every queue, and its call starts again.
# Every fourth WRITE with immediate (a link or a grant), three times per
# node, fails at post time, the connection staying up, during an MCS
# torture (whose queue writes go through the NIC even to this node): the torture sees
# no error and its counters are exact; with the faults off, so is the next
# round. Before the fix the releaser of a waiter whose link failed waited
# for it for ever.
VERB_WRITE_IMM=64

create_mcs() {
	ctl domain create flt-mcs --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" \
		--key-file "$(key_file)" --algo mcs --port 7222 --locks-per-node 4
}

# torture_failing DOMAIN TAG VERBS TORTURE-ARGS...: a torture round of
# DOMAIN's lock 0 while every fourth of VERBS fails at post time, three
# times per node: no error, exact counters, and faults injected.
torture_failing() {
	local dom="$1" tag="$2" verbs="$3" i0 rc=0

	shift 3
	i0=$(injected fail_verb)
	fault fail_verb verbs="$verbs" completion=0 \
		interval=4 times=3 probability=100 || return 1
	torture_round "$dom" "$tag" --threads $THREADS --duration 3000 --locks 1 "$@" ||
		rc=1
	faults_off || return 1
	echo "injected $(($(injected fail_verb) - i0))" >&2
	counters_exact "$dom" "$tag" 1 && [ "$(injected fail_verb)" -gt "$i0" ] &&
		[ $rc -eq 0 ]
}

# torture_exact DOMAIN TAG TORTURE-ARGS...: the next round, faults off.
torture_exact() {
	local dom="$1" tag="$2"

	shift 2
	torture_round "$dom" "$tag" --threads $THREADS --duration 1500 --locks 1 "$@" &&
		counters_exact "$dom" "$tag" 1
}

# The same for DSLR: every fourth FAA (a ticket, a release) fails at post
# time, three times per node, during a writers' torture. A slot whose
# release failed is never accounted: the node asks for a view change,
# which zeroes the words, the live holders claim theirs again, and the
# calls start again in the new view. No error, counters exact, and exact
# again with the faults off. Writers only, and no READ failing: the
# torture's own bookkeeping (the readers it counts in and out by FAA, the
# owner it READs) would fail too, and its count of readers stay wrong.
create_dslr() {
	ctl domain create flt-dslr --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" \
		--key-file "$(key_file)" --algo dslr --port 7223 --locks-per-node 4
}

# regain: with every node alive, only the last node's connection to node
# 0, the coordinator, fails (an FAA completes in error) while it holds a
# lock of flt-mcs. Node 0 proposes a view without it at once; it is back
# before the members have waited out its lease (4 s, and 1 s of margin),
# and node 0 takes it back in: a view change, no fence, and its unlock
# returns 0. (Before, the view went on without it, which was fenced for a
# connection that came straight back.) Node 1 must not be the one: it
# would see node 0 down, propose a view of its own, and make node 0
# outbid it with a new proposal, which would hide the fault.
REGAIN_NODE=$((n - 1))
REGAIN_LOCK=5

regain_before() {
	local line

	line=$(view_line flt-mcs) || return 1
	echo "$line" | epoch_of >/tmp/regain-epoch
	echo "$line" | fences_of >/tmp/regain-fences
}

regain_fail_connection() {
	hold_lock regain flt-mcs $REGAIN_LOCK || return 1
	hold_started regain 30 || return 1
	fault fail_verb nodes=1 verbs=$VERB_FAA completion=1 \
		interval=1 times=1 probability=100 || return 1
	ctl fabric-test flt-mcs faa-storm --target 0 --word 6 --threads 1 \
		--iterations 5 >&2
	faults_off
}

regained() {
	local line rc=0

	line=$(view_line flt-mcs) || rc=1
	echo "flt-mcs: $line; before: epoch $(cat /tmp/regain-epoch), fences $(cat /tmp/regain-fences)" >&2
	[ "$(echo "$line" | epoch_of)" -gt "$(cat /tmp/regain-epoch)" ] || rc=1
	[ "$(echo "$line" | fences_of)" -eq "$(cat /tmp/regain-fences)" ] || rc=1
	return $rc
}

regain() {
	local rc=0

	regain_before || return 1
	barrier regain-start || return 1
	if [ "$VMTEST_NODE" -eq "$REGAIN_NODE" ]; then
		regain_fail_connection || rc=1
	fi
	barrier regain-failed || return 1
	# Past the lease and its margin: a fence would have come by now.
	sleep 8
	retry 60 view_full flt-mcs || rc=1
	regained || rc=1
	# Before anyone destroys the domain, which would fence the holder.
	if [ "$VMTEST_NODE" -eq "$REGAIN_NODE" ]; then
		hold_unlocked regain || rc=1
	fi
	barrier regain-done || return 1
	return $rc
}

unload() { ctl domain destroy flt-shift && rmmod rdmalock; }

tap_plan 33
kmemleak_forget
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "the fault knobs are in debugfs, every fault off and quiet" knobs_off
tap_check "domain create" create
tap_check "every node is up" retry 60 domain_up $DOMAIN
barrier up
tap_check "one in five FAAs to node $peer fails at post: errors = injected = failed, word exact" \
	fail_one_in_five
barrier posted
tap_check "an FAA to node $peer completes in error: counted, its connection comes back" \
	fail_by_completion
tap_check "every node is up again" retry 60 domain_up $DOMAIN
barrier completion
tap_check "failed allocations of 3 message and 2 bounce buffers are counted failed" \
	fail_allocs
barrier allocs
tap_check "a heartbeat to node $peer is dropped: its connection goes down, and comes back" \
	drop_heartbeat
tap_check "every node is up again" retry 60 domain_up $DOMAIN
barrier dropped
tap_check "ShiftLock domain create" create_shift
tap_check "every node is up in it" retry 60 domain_up flt-shift
barrier shift-up
delay_all 5
tap_check "every verb and message delayed 5 ms: storms from every node, sync and async, no error" \
	delayed_storms
barrier delayed-storms
tap_check "every storm word is exactly $((2 * n * THREADS * 10))" \
	every_word_is 5 $((2 * n * THREADS * 10))
tap_check "ShiftLock torture with every verb and message delayed: exact" \
	delayed_torture
faults_off
barrier faults-off
tap_check "faults off: a storm on node $peer is exact again" exact_storm
barrier storm-exact
tap_check "mcs domain create" create_mcs
tap_check "every node is up in it" retry 60 domain_up flt-mcs
tap_check "MCS torture with links and grants failing: no error, exact" \
	torture_failing flt-mcs links $VERB_WRITE_IMM
tap_check "faults off: the next MCS round is exact, no lock wedged" \
	torture_exact flt-mcs after-links
tap_check "node $REGAIN_NODE's connection to the coordinator fails and comes straight back: a view change, nobody fenced, its lock still its own" \
	regain
tap_check "mcs domain destroyed" ctl domain destroy flt-mcs
tap_check "dslr domain create" create_dslr
tap_check "every node is up in it" retry 60 domain_up flt-dslr
tap_check "DSLR torture with tickets and releases failing: no error, exact" \
	torture_failing flt-dslr dslr-verbs $VERB_FAA --read 0
tap_check "faults off: the next DSLR round is exact, no lock wedged" \
	torture_exact flt-dslr after-dslr --read 0
tap_check "dslr domain destroyed" ctl domain destroy flt-dslr
tap_check "cas domain destroyed" ctl domain destroy $DOMAIN
tap_check "a lock asked of a node whose connection is not ready yet comes" \
	ready_late
faults_off
barrier ready-late
tap_check "and no ShiftLock message was lost" no_message_lost
barrier remove
tap_check "rxe0 removed while a domain is created: the removal returns, the creation fails" \
	remove_during_create
faults_off
barrier finished
tap_check "domains destroyed, rdmalock.ko unloads" unload
tap_kmemleak

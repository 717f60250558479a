#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fabric-kill: all nodes join a domain. First the last node's link is
# cut twice during a storm on it, for longer and for shorter than the
# heartbeat timeout: every node must see every peer up again by itself,
# and an exact storm must then add up. Then that node's RDMA device is
# removed under its live domain during a storm: the removal returns, the
# domain reports every peer down and refuses verbs with ENOTCONN, and once
# the device is back the domain is destroyed and created again. Last, the
# survivors start a long fetch-and-add storm on that node, which powers
# off in the middle of it. The survivors' storm must end with errors
# instead of hanging, the dead node must be reported not up within the
# heartbeat timeout, verbs to it must fail at once with ENOTCONN, the
# survivors' failed attempts to reconnect to it must be logged once, not
# every attempt, and the
# survivors must go on working with each other.
. ./lib.sh

DOMAIN=victimdom
n=$(num_nodes)
victim=$((n - 1))

ctl() { rdmalockctl "$@"; }

victim_not_up() {
	! ctl domain status $DOMAIN | grep -q "^  node $victim: up,"
}

# The storm must fail, with the errno of a dead peer, not hang.
storm_fails() {
	local out rc=0

	out=$(ctl fabric-test $DOMAIN faa-storm --target $victim --threads 2 \
		--iterations 100000 2>&1) || rc=$?
	echo "$out" >&2
	[ "$rc" -eq 1 ] && echo "$out" | grep -q 'first: Transport endpoint is not connected'
}

read_refused_at_once() {
	local out rc=0

	out=$(timeout 2 rdmalockctl fabric-test $DOMAIN read --target $victim 2>&1) || rc=$?
	echo "$out" >&2
	[ "$rc" -eq 1 ] && echo "$out" | grep -q 'Transport endpoint is not connected'
}

# Every reconnect attempt to the dead node fails; the log says so once.
# Before the check, time for a few attempts, each of which logged a line
# before (every 500 ms plus the 2 s address resolution); the next line
# is due only a minute after the first.
failed_lines() { dmesg | grep -c "$DOMAIN: node $victim: connection failed" || :; }

# Since the kill: the cuts and the device removal before it log their own.
failure_logged_once() {
	sleep 6
	dmesg | grep "$DOMAIN: node $victim: " >&2
	[ "$(($(failed_lines) - $(cat /tmp/failed-before)))" -le 1 ]
}

create() {
	ctl domain create $DOMAIN --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" --key-file "$(key_file)"
}

# A storm on the last node in the background, whose failures are
# expected: the load under which its link is cut or its device removed.
STORM_PID=
storm_start() {
	rdmalockctl fabric-test $DOMAIN faa-storm --target $victim --word 3 \
		--threads 2 --iterations 100000000 >/dev/null 2>&1 &
	STORM_PID=$!
}

storm_stop() {
	kill -KILL $STORM_PID 2>/dev/null
	wait $STORM_PID 2>/dev/null
	:
}

# cut_link NAME SECONDS: once every node has reached NAME, the last node
# takes its link down for SECONDS; every node returns after it is back.
cut_link() {
	barrier "$1" || return 1
	if [ "$VMTEST_NODE" -eq "$victim" ]; then
		ip link set eth0 down
		sleep "$2"
		ip link set eth0 up
	else
		# The cut starts when the last node leaves the barrier, within
		# a second (its polling) of this node.
		sleep $(($2 + 2))
	fi
}

# The bound of Documentation/fabric.rst ("Reconnection") for every peer
# to be up again after a cut, with room for emulated CPUs.
HEAL_SECONDS=40

# How many times this node connected with each node.
connect_counts() {
	ctl domain status $DOMAIN | grep -o 'connected [0-9]* times' | tr '\n' ' '
}

# settled: every node up, and no connection made again for longer than
# the heartbeat timeout (5 s): a connection that lived through a short
# cut may still be lost seconds after the link is back, once its
# retransmissions or heartbeats give up, and then come back.
settled() {
	local before

	before=$(connect_counts)
	sleep 6
	domain_up $DOMAIN && [ "$(connect_counts)" = "$before" ]
}

# healed: every node of the domain is up again within the bound, and
# stays up; if not, what rdma_cm and the QPs of this node are stuck in,
# for the console.
healed() {
	retry $HEAL_SECONDS domain_up $DOMAIN && retry 45 settled && return
	ctl domain status $DOMAIN
	rdma res show qp
	rdma res show cm_id
	rdma statistic show link rxe0/1
	return 1
}

# exact_storm TAG: every node adds on the last node's word 2; the word
# ends exactly at the sum.
exact_storm() {
	local rc=0

	barrier "storm-$1" || return 1
	ctl fabric-test $DOMAIN faa-storm --target $victim --word 2 \
		--threads 2 --iterations 50 || rc=1
	barrier "storm-$1-done" || return 1
	ctl fabric-test $DOMAIN read --target $victim --word 2 |
		grep " value $((n * 2 * 50))\$" && [ $rc -eq 0 ]
}

# rxe0 removed under the live domain while a storm runs on it: the
# removal must return (no wait for the domain's destruction).
remove_device() {
	storm_start
	sleep 1
	timeout 30 rdma link delete rxe0
}

every_peer_down() {
	local st

	st=$(ctl domain status $DOMAIN) || return 1
	echo "$st" >&2
	[ "$(echo "$st" | grep -c '^  node [0-9].*: down,')" -eq "$n" ]
}

device_back_and_domain_again() {
	storm_stop
	rdma link add rxe0 type rxe netdev eth0 &&
		ctl domain destroy $DOMAIN && create
}

# heal_and_remove: the checks every node runs before the last one dies.
heal_and_remove() {
	storm_start
	cut_link cut-long 8
	tap_check "every peer up again after an 8 s cut of node $victim's link" \
		healed
	cut_link cut-short 2
	tap_check "every peer up again after a 2 s cut of node $victim's link" \
		healed
	storm_stop
	tap_check "after the cuts, an exact storm on node $victim" exact_storm cuts
	barrier remove-device
	if [ "$VMTEST_NODE" -eq "$victim" ]; then
		tap_check "rdma link delete under a live domain returns" remove_device
		tap_check "without its device, the domain reports every node down" \
			retry 10 every_peer_down
		tap_check "without its device, a verb fails at once (ENOTCONN)" \
			read_refused_at_once
		# The others see it down before it can come back.
		barrier device-gone
		tap_check "device added again; the domain destroyed and created again" \
			device_back_and_domain_again
	else
		tap_check "node $victim reported not up once its device is gone" \
			retry 15 victim_not_up
		barrier device-gone
	fi
	tap_check "every node is up again with node $victim's new domain" \
		retry 60 domain_up $DOMAIN
	tap_check "then an exact storm on node $victim" exact_storm removed
}

if [ "$VMTEST_NODE" -eq "$victim" ]; then
	tap_plan 12
	tap_check "rdmalock.ko loads" load_rdmalock
	tap_check "domain create" create
	tap_check "every node is up" retry 60 domain_up $DOMAIN
	heal_and_remove
	# Let the survivors' storm get going, then vanish.
	die_after kill-up 120 2
fi

tap_plan 17
kmemleak_forget
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "domain create" create
tap_check "every node is up" retry 60 domain_up $DOMAIN
heal_and_remove
failed_lines >/tmp/failed-before
tap_check "all nodes joined" barrier kill-up
tap_check "a storm on the node that dies ends in errors, not a hang" storm_fails
tap_check "the dead node is reported not up" retry 15 victim_not_up
tap_check "a verb to the dead node fails at once (ENOTCONN)" read_refused_at_once
tap_check "the failed reconnect attempts are logged once" failure_logged_once
other=0
[ "$VMTEST_NODE" -ne 0 ] || other=1
tap_check "the survivors still reach each other" \
	ctl fabric-test $DOMAIN pattern --target $other --word "$VMTEST_NODE" --iterations 10
VMTEST_GONE=$victim
barrier survivors-done 120
tap_check "domain destroy and rmmod" sh -c "rdmalockctl domain destroy $DOMAIN && rmmod rdmalock"
tap_kmemleak

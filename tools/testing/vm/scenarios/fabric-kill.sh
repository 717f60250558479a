#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fabric-kill: all nodes join a domain; the survivors start a long
# fetch-and-add storm on the last node, which powers off in the middle of
# it. The survivors' storm must end with errors instead of hanging, the
# dead node must be reported not up within the heartbeat timeout, verbs
# to it must fail at once with ENOTCONN, the survivors' failed attempts
# to reconnect to it must be logged once, not every attempt, and the
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
failure_logged_once() {
	sleep 6
	dmesg | grep "$DOMAIN: node $victim: " >&2
	[ "$(dmesg | grep -c "$DOMAIN: node $victim: connection failed")" -le 1 ]
}

create() {
	ctl domain create $DOMAIN --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES"
}

if [ "$VMTEST_NODE" -eq "$victim" ]; then
	tap_plan 3
	tap_check "rdmalock.ko loads" load_rdmalock
	tap_check "domain create" create
	tap_check "every node is up" retry 60 domain_up $DOMAIN
	barrier kill-up
	# Let the survivors' storm get going, then vanish.
	sleep 2
	die_now
fi

tap_plan 11
kmemleak_forget
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "domain create" create
tap_check "every node is up" retry 60 domain_up $DOMAIN
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

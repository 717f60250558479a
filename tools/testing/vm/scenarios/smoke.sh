#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smoke: the module loads, /dev/rdmalock is there and closed to other
# users, rdmalockctl sees rxe0 ACTIVE with atomics and reports usage
# errors, every peer is reachable over the bridge, and the module unloads.
. ./lib.sh

device_is_private() {
	[ -c /dev/rdmalock ] && [ "$(stat -c %a /dev/rdmalock)" = 600 ]
}

version_matches() {
	rdmalockctl version | tee /dev/stderr | grep -q '^module ABI 1,'
}

rxe0_active_with_atomics() {
	local out

	out=$(rdmalockctl status) || return 1
	echo "$out" >&2
	echo "$out" | grep -Eq '^  rxe0 .* atomics (HCA|GLOB) ' &&
		echo "$out" | grep -A1 '^  rxe0 ' | grep -q 'port 1: ACTIVE '
}

# The tool's exit status and message for a user the device's mode 0600 keeps out.
unprivileged_refused() {
	local out rc=0

	out=$(su -s /bin/sh nobody -c 'rdmalockctl status' 2>&1) || rc=$?
	echo "$out" >&2
	[ "$rc" -eq 1 ] && echo "$out" | grep -q '^rdmalockctl: /dev/rdmalock: Permission denied'
}

usage_error_exits_2() {
	local rc=0

	rdmalockctl frobnicate || rc=$?
	[ "$rc" -eq 2 ]
}

unload_rdmalock() { rmmod rdmalock && [ ! -e /dev/rdmalock ]; }

tap_plan $((7 + $(num_nodes) - 1))
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "/dev/rdmalock is a character device, mode 0600" device_is_private
tap_check "rdmalockctl version reports ABI 1" version_matches
tap_check "rdmalockctl status: rxe0 ACTIVE with atomics" rxe0_active_with_atomics
tap_check "an unprivileged user cannot open /dev/rdmalock" unprivileged_refused
tap_check "rdmalockctl: an unknown command exits 2" usage_error_exits_2
for p in $(peers); do
	tap_check "node $p reachable over the bridge" \
		retry 60 ping -c 1 -W 1 "$(node_addr "$p")"
done
tap_check "rmmod rdmalock, /dev/rdmalock gone" unload_rdmalock

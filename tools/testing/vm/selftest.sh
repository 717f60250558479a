#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# selftest.sh: the harness must catch failure. A scenario that fails a
# test, one that panics a guest and one that hangs must each make vmtest
# exit non-zero with a message saying what happened, and leave no QEMU
# process, tap, bridge or network namespace behind.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

out=$RDMALOCK_TOP/out/selftest
rm -rf "$out" && mkdir -p "$out"
# Anything a vmtest run creates carries "rdmalock-vt-" in its name: the
# namespace (which holds the bridge and the taps) and QEMU's -name.
leftovers() {
	ip netns list | grep 'rdmalock-vt-' || true
	ip -o link show | grep -E 'rdmalock-vt-|tap[0-9]' || true
	pgrep -a -f 'qemu-system-x86_64 -name rdmalock-vt-' || true
}

# expect_failure SCENARIO MESSAGE-RE VMTEST-ARGS...
expect_failure() {
	local scenario=$1 re=$2 log=$out/$1.log rc=0

	shift 2
	"$here/vmtest.sh" --scenario "$scenario" --outdir "$out/$scenario" "$@" \
		>"$log" 2>&1 || rc=$?
	sed 's/^/    /' "$log"
	[ "$rc" -ne 0 ]
	result "$scenario: vmtest exits non-zero (rc $rc)" $?
	grep -Eq "$re" "$log"
	result "$scenario: says what happened (/$re/)" $?
	[ -z "$(leftovers)" ]
	result "$scenario: no QEMU process, tap, bridge or namespace left" $?
}

# Ctrl-C while the guests run: vmtest must stop them and clean up.
interrupt_run() {
	local log=$out/interrupt.log pid rc=0

	# Job control, so that the background run does not ignore SIGINT;
	# and SIGINT's default action, which a script cannot restore itself,
	# in case this one was started ignoring it (in the background).
	set -m
	env --default-signal=INT "$here/vmtest.sh" --scenario selftest-hang --nodes 2 \
		--outdir "$out/interrupt" >"$log" 2>&1 &
	pid=$!
	set +m
	for _ in $(seq 120); do
		grep -qs 'Run /init' "$out/interrupt/node1.console" && break
		sleep 1
	done
	# To the whole process group, as a terminal's Ctrl-C does.
	kill -INT -- "-$pid"
	wait "$pid" || rc=$?
	sed 's/^/    /' "$log"
	[ "$rc" -eq 130 ] && grep -q 'interrupted' "$log"
	result "Ctrl-C: vmtest stops with status 130 (rc $rc)" $?
	[ -z "$(leftovers)" ]
	result "Ctrl-C: no QEMU process, tap, bridge or namespace left" $?
}

set +e
interrupt_run
expect_failure selftest-fail '^node0: not ok 2 - this test fails on purpose$' --nodes 2
expect_failure selftest-panic 'node1: FAILED: guest died before finishing: .*Kernel panic' --nodes 2
expect_failure selftest-hang '^node0: FAILED: timed out after 30s$' --nodes 2 --timeout 30
grep -q '^node0: last result: none$' "$out/selftest-hang.log"
result "selftest-hang: tells the node's last result" $?
set -e

summary

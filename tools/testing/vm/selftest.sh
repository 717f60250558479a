#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# selftest.sh: the harness must catch failure. A scenario that fails a
# test, one that panics a guest and one that hangs must each make vmtest
# exit non-zero with a message saying what happened, and leave no QEMU
# process, tap, bridge or network namespace behind; and a run killed
# outright, which cleans nothing up, must be seen to leave them. The
# splat filter must let through GFS2's own withdraw dump only on a node
# that fenced itself and is not back in a view.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

out=$RDMALOCK_TOP/out/selftest
rm -rf "$out" && mkdir -p "$out"
# What a vmtest run left: its network namespace (which holds the bridge
# and the taps) and its QEMU processes, all named rdmalock-vt-<its pid>.
# Only this script's runs are looked at: another run on the machine is
# none of its business.
leftovers() {
	local tag=rdmalock-vt-$1

	ip netns list | grep -w -- "$tag" || true
	pgrep -a -f "qemu-system-x86_64 -name $tag-" || true
}

# no_leftovers WHAT PID: the check that run PID left nothing; what it
# left, if anything, is in the result's line.
no_leftovers() {
	local left

	left=$(leftovers "$2" | cut -c1-60 | tr '\n' ';')
	[ -z "$left" ]
	result "$1: no QEMU process, tap, bridge or namespace left${left:+ (left: $left)}" $?
}

# run_vmtest LOG VMTEST-ARGS...: vmtest in the background, so that its
# pid, which names what it creates, is known; sets pid and rc.
run_vmtest() {
	local log=$1

	shift
	rc=0
	"$here/vmtest.sh" "$@" >"$log" 2>&1 &
	pid=$!
	wait "$pid" || rc=$?
}

# expect_failure SCENARIO MESSAGE-RE VMTEST-ARGS...
expect_failure() {
	local scenario=$1 re=$2 log=$out/$1.log

	shift 2
	run_vmtest "$log" --scenario "$scenario" --outdir "$out/$scenario" "$@"
	sed 's/^/    /' "$log"
	[ "$rc" -ne 0 ]
	result "$scenario: vmtest exits non-zero (rc $rc)" $?
	grep -Eq "$re" "$log"
	result "$scenario: says what happened (/$re/)" $?
	no_leftovers "$scenario" "$pid"
}

# guests_started OUTDIR: the run's last guest is running its init.
guests_started() {
	for _ in $(seq 120); do
		grep -qs 'Run /init' "$1/node1.console" && return 0
		sleep 1
	done
	return 1
}

# The control of no_leftovers: a run killed outright cleans nothing up,
# and the check must see it. What it left is then removed here.
killed_run() {
	local pid left

	"$here/vmtest.sh" --scenario selftest-hang --nodes 2 --outdir "$out/killed" \
		>"$out/killed.log" 2>&1 &
	pid=$!
	guests_started "$out/killed"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	left=$(leftovers "$pid")
	printf '    left: %s\n' "$left"
	[ -n "$left" ]
	result "control: a vmtest killed by SIGKILL is seen to leave its guests and namespace" $?
	pkill -KILL -f "qemu-system-x86_64 -name rdmalock-vt-$pid-"
	ip netns del "rdmalock-vt-$pid" 2>/dev/null
	for _ in $(seq 10); do
		[ -n "$(leftovers "$pid")" ] || break
		sleep 1
	done
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
	guests_started "$out/interrupt"
	# To the whole process group, as a terminal's Ctrl-C does.
	kill -INT -- "-$pid"
	wait "$pid" || rc=$?
	sed 's/^/    /' "$log"
	[ "$rc" -eq 130 ] && grep -q 'interrupted' "$log"
	result "Ctrl-C: vmtest stops with status 130 (rc $rc)" $?
	no_leftovers Ctrl-C "$pid"
}

# withdraw_console FENCED REJOINED: a guest's console with GFS2's own
# withdraw dump (an I/O error's, not one asked for), after this node
# fenced itself when FENCED is 1, and rejoined a view since when
# REJOINED is 1.
withdraw_console() {
	echo "[    1.000000] Run /init as init process"
	[ "$1" -eq 0 ] ||
		echo "[   50.952466] rdmalock: gfs0: no quorum renewed this node's lease for 4000 ms: fenced, its locks are lost"
	[ "$2" -eq 0 ] ||
		echo "[   52.000000] rdmalock: gfs0: view 5: members 0-2, coordinator 0"
	echo "[   56.076602] gfs2: fsid=rdmalock:gfs0.2: File system withdrawn"
	echo "[   56.077640] Call Trace:"
	echo "[   56.078173]  <TASK>"
	echo "[   56.078594]  gfs2_withdraw+0x347/0x590 [gfs2]"
	echo "[   56.078748]  gfs2_logd+0x1f6/0x350 [gfs2]"
	echo "[   56.078929]  </TASK>"
}

# withdraw_splat FENCED REJOINED: the harness sees a splat in that console.
withdraw_splat() {
	withdraw_console "$1" "$2" >"$out/withdraw.console"
	[ -n "$(rdmalock_splats "$out/withdraw.console" 1)" ]
}

set +e
withdraw_splat 1 0
result "splat filter: the withdraw of a node that fenced itself is no splat" $((!$?))
withdraw_splat 0 0
result "splat filter: GFS2's own withdraw on a node not fenced is one" $?
withdraw_splat 1 1
result "splat filter: so is one on a node back in a view since its fence" $?
killed_run
interrupt_run
expect_failure selftest-fail '^node0: not ok 2 - this test fails on purpose$' --nodes 2
grep -q '^node0: # | the reason it gives$' "$out/selftest-fail.log"
result "selftest-fail: reports the failed check's output" $?
expect_failure selftest-panic 'node1: FAILED: guest died before finishing: .*Kernel panic' --nodes 2
expect_failure selftest-hang '^node0: FAILED: timed out after 30s$' --nodes 2 --timeout 30
grep -q '^node0: last result: none$' "$out/selftest-hang.log"
result "selftest-hang: tells the node's last result" $?
set -e

summary

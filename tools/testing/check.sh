#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: the whole test suite, as `make check` runs it. One line per
# group, then "N passed, N failed" over every test of every group; exits
# non-zero if anything failed. Each group's full output is in out/check/.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

testing=$RDMALOCK_TOP/tools/testing
out=$RDMALOCK_TOP/out/check
rm -rf "$out" && mkdir -p "$out"
total_passed=0 total_failed=0 total_skipped=0

# group NAME COMMAND...: run a group; its last line is its own summary.
group() {
	local name=$1 log=$out/$1.log start=$SECONDS rc=0 summary p f s skips

	# RDMALOCK_CHECK_GROUPS=a,b runs only those, to check a fix again.
	if [ -n "${RDMALOCK_CHECK_GROUPS:-}" ] &&
		[[ ",$RDMALOCK_CHECK_GROUPS," != *",$name,"* ]]; then
		return 0
	fi
	shift
	"$@" >"$log" 2>&1 || rc=$?
	summary=$(tail -n 1 "$log")
	if [[ "$summary" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
	else
		p=0 f=0 s=0
	fi
	# A group that failed without saying so still counts as a failure.
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || f=1
	total_passed=$((total_passed + p))
	total_failed=$((total_failed + f))
	total_skipped=$((total_skipped + s))
	skips=
	[ "$s" -eq 0 ] || skips=", $s skipped"
	printf '%-12s %s passed, %s failed%s (%ss)\n' "$name:" "$p" "$f" \
		"$skips" $((SECONDS - start))
	if [ "$rc" -ne 0 ]; then
		grep -E '^(not ok|node[0-9]+: (not ok|FAILED|# \|))|error' "$log" |
			grep -vE '^(node[0-9]+: )?ok ' | head -n 60 | sed 's/^/    /'
		echo "    (full output: $log)"
	fi
}

"$testing/kernels.sh" resolve >"$out/kernels.log" 2>&1 ||
	{ cat "$out/kernels.log"; echo "0 passed, 1 failed"; exit 1; }
sed -n 's/^\([A-Z_]*\)=/kernels:     \1 /p' "$RDMALOCK_KERNELS_ENV"

group builds "$testing/builds.sh"
group lint "$testing/lint.sh"
group kunit "$testing/kunit.sh"
group models "$testing/models.sh"
# The stock kernel's scenarios without a death of their own share one
# boot with alock, whose victim dies last. fabric begins with smoke's
# checks. On the debug kernel, membership-debug shows DSLR's paths to
# lockdep and KASAN (its torture, the overflow resets, the holder and
# waiter lost with their node), and ALock's, cas's and mcs's too, with
# names-debug (ALock's cohorts, locks held by a file, the sample client)
# and kunit (the home-node cohort): no dslr-debug, no alock-debug.
# The quick eval rides on the same boot; eval-quick then draws its plots.
group stock "$testing/vm/vmtest.sh" --scenario fabric+dslr+negative-control+eval+alock \
	--kernel stock --timeout 1200 --set EVAL=quick --outdir "$out/stock"
group eval-quick "$testing/eval.sh" --check "$out/stock/node0.tap" "$out/eval-quick"
# The fabric's debug-kernel scenarios share one boot (a debug boot and
# its set-up cost about a minute), in this order since fabric-kill ends
# with a node's death:
# - fabric-emulated: emulated atomics are messages, whose path
#   the stock group takes on 6.1; what is their own (the request table, its
#   locking) lockdep and KASAN check here, with the rest of fabric's
#   paths: there is no fabric-debug of native atomics;
# - fabric-fault: only the debug kernel has the fault-injection framework;
# - fabric-hostile: the paths that refuse a hostile peer, which no
#   well-behaved peer takes; they parse our own wire format, the same on
#   every kernel;
# - fabric-kill: cuts, a device's removal and a death, for the paths that
#   tear connections down and make them again; membership-stock cuts
#   links and kills a node on 6.1.
group fabric-debug "$testing/vm/vmtest.sh" \
	--scenario fabric-emulated+fabric-fault+fabric-hostile+fabric-kill \
	--kernel debug --timeout 2400 --outdir "$out/fabric-debug"
group membership-stock "$testing/vm/vmtest.sh" --scenario membership \
	--kernel stock --timeout 900 --outdir "$out/membership-stock"
# Fencing and lock recovery run only on failures: lockdep and KASAN there.
group membership-debug "$testing/vm/vmtest.sh" --scenario membership \
	--kernel debug --timeout 1500 --outdir "$out/membership-debug"
# Named locks take new locks (a node's cache, a home's table) in message
# handlers, lock calls and view changes: lockdep and KASAN look at them.
# It took 590 s in CI and 690 s here on a slower day: the timeout leaves
# room for that, and costs only a run that hangs.
group names-debug "$testing/vm/vmtest.sh" --scenario names --kernel debug \
	--timeout 1200 --outdir "$out/names-debug"
# Debian's gfs2.ko on the kernel's dlm.ko, then on rdmalock_dlm.ko, with
# a quick benchmark of both; Debian's kernels have GFS2, the debug one
# not. On 6.12 (bpo), whose GFS2 takes the lock manager's errors
# otherwise, rdmalock alone: dlm.ko is the benchmark's baseline.
group gfs2-stock "$testing/vm/vmtest.sh" --scenario gfs2 --kernel stock \
	--disk 256 --timeout 600 --set GFS2_BENCH=quick --outdir "$out/gfs2-stock"
group gfs2-bpo "$testing/vm/vmtest.sh" --scenario gfs2 --kernel bpo \
	--disk 256 --timeout 600 --set GFS2_LMS=rdmalock --outdir "$out/gfs2-bpo"
group gfs2-negative "$testing/vm/gfs2-negative.sh"
group shiftlock-stock "$testing/vm/vmtest.sh" --scenario shiftlock \
	--kernel stock --timeout 900 --outdir "$out/shiftlock-stock"
group shiftlock-debug "$testing/vm/vmtest.sh" --scenario shiftlock \
	--kernel debug --timeout 1500 --outdir "$out/shiftlock-debug"
group harness "$testing/vm/selftest.sh"

if [ "$total_skipped" -gt 0 ]; then
	echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
else
	echo "$total_passed passed, $total_failed failed"
fi
[ "$total_failed" -eq 0 ]

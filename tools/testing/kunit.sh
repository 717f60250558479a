#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh: run the KUnit suites of kunit/ in the debug kernel (KASAN,
# lockdep; built once and cached by kernels.sh), in one QEMU guest with
# Soft-RoCE up, and parse their KTAP with the kernel's kunit.py. A splat
# in the guest's console fails the run even if every test passed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$RDMALOCK_TOP/out/kunit
vm_rc=0
"$RDMALOCK_TOP/tools/testing/vm/vmtest.sh" --nodes 1 --kernel debug \
	--scenario kunit --outdir "$out" >"$out.vmtest" 2>&1 || vm_rc=$?
mkdir -p "$out" && mv "$out.vmtest" "$out/vmtest.log"
grep -v ' passed, .* failed$' "$out/vmtest.log" || true

# The module's KTAP starts at the last top-level header; the kernel's
# own (empty) built-in run prints one earlier.
console=$out/node0.console
start=$(grep -n '\] KTAP version 1' "$console" | tail -n 1 | cut -d: -f1)
[ -n "$start" ] || start=$(wc -l <"$console")
tail -n +"$start" "$console" | tr -d '\r' >"$out/ktap.log"

source_tree=$("$RDMALOCK_TOP/tools/testing/kernels.sh" debug)/source-tree
kunit_rc=0
"$source_tree/tools/testing/kunit/kunit.py" parse "$out/ktap.log" \
	>"$out/kunit.txt" 2>&1 || kunit_rc=$?
sed 's/^\[[0-9:]*\] //' "$out/kunit.txt"

count() {
	sed -n "s/.*Testing complete\..*[ ,]$1: \([0-9]*\).*/\1/p" "$out/kunit.txt" |
		tail -n 1
}
passed=$(count passed) failed=$(count failed)
crashed=$(count crashed) errors=$(count errors)
passed=${passed:-0}
failed=$((${failed:-0} + ${crashed:-0} + ${errors:-0}))
[ "$kunit_rc" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
# The guest's own checks: modules loaded and unloaded, no splat.
vm_failed=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p' "$out/vmtest.log")
[ "$vm_rc" -eq 0 ] || failed=$((failed + ${vm_failed:-1}))
[ "$passed" -gt 0 ] || { log "no KUnit test ran"; failed=$((failed + 1)); }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh [NODES]: boot a cluster of QEMU guests (default three) with
# Soft-RoCE and rdmalock, and print what each node reports.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

nodes=${1:-3}
out=$RDMALOCK_TOP/out/demo
rc=0
"$RDMALOCK_TOP/tools/testing/vm/vmtest.sh" --nodes "$nodes" --scenario demo \
	--outdir "$out" >"$out.log" 2>&1 || rc=$?

echo "rdmalock demo: $nodes QEMU guests, Soft-RoCE (rxe0) on a private bridge"
for tap in "$out"/node*.tap; do
	echo
	sed -n 's/^# \{0,1\}//p' "$tap" | grep -Ev '^(vmtest-done|took [0-9]+ s$)'
done
echo
grep -v '^vmtest.sh: logs' "$out.log"
rm -f "$out.log"
exit "$rc"

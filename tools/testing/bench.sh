#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: alock, shiftlock and the cas and mcs baselines on a
# three-node Soft-RoCE cluster (the bench scenario), printing node 0's
# tables of results.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$RDMALOCK_TOP/tools/testing/vm/vmtest.sh" --scenario bench --kernel stock \
	--timeout 900 >&2 || die "the benchmark run failed; see out/vmtest/bench-stock/"
grep '^# |' "$RDMALOCK_TOP/out/vmtest/bench-stock/node0.tap" | sed 's/^# //'

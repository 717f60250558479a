#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-gfs2.sh: Debian's GFS2 on three guests sharing one disk, on
# rdmalock_dlm.ko and then on the kernel's dlm.ko, in one boot (the gfs2
# scenario with GFS2_BENCH=full), printing node 0's table of both.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$RDMALOCK_TOP/out/vmtest/gfs2-bench
"$RDMALOCK_TOP/tools/testing/vm/vmtest.sh" --scenario gfs2 --kernel stock \
	--disk 512 --timeout 900 --set GFS2_BENCH=full --outdir "$out" >&2 ||
	die "the benchmark run failed; see $out/"
grep '^# |' "$out/node0.tap" | sed 's/^# //'

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# gfs2-negative.sh: the negative control of the gfs2 scenario, which
# proves nothing unless it can see a broken lock manager. The same
# scenario runs with its lockspace's domain on test-none, a lock that
# grants every request at once (allowed with allow_broken=1): nobody
# waits, so no holder is ever asked to give a lock up, and each node
# trusts what it cached. vmtest must fail, by a check of the filesystem
# work (mount, writes, cross-node work, the oracle's check, unmount,
# fsck), not by the harness alone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

out=$RDMALOCK_TOP/out/gfs2-negative
rm -rf "$out" && mkdir -p "$out"
log=$out/vmtest.log
rc=0
"$here/vmtest.sh" --scenario gfs2 --kernel stock --disk 256 --timeout 400 \
	--set GFS2_ALGO=test-none --set GFS2_LMS=rdmalock --outdir "$out/run" >"$log" 2>&1 || rc=$?
sed 's/^/    /' "$log"
caught=0
[ "$rc" -ne 0 ] || caught=1
result "GFS2 on a lock that excludes nobody fails the gfs2 scenario (rc $rc)" $caught
caught=0
grep -Eq '^node[0-9]+: not ok [0-9]+ - rdmalock: (every node mounts|each node writes|renames and unlinks|every node finds|every node unmounts|fsck)' "$log" ||
	caught=1
result "a check of the filesystem's work is what fails" $caught
summary

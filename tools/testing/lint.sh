#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh: checkpatch --strict on every C source and header, sparse (C=2)
# and W=1 on the module against the stock headers, shellcheck on the
# scripts. Prints one line per check and "N passed, N failed"; any
# finding fails its check.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RDMALOCK_TOP"

out=$RDMALOCK_TOP/out/lint
rm -rf "$out" && mkdir -p "$out"
c_files=$(git ls-files -co --exclude-standard -- '*.c' '*.h')
src=$(tools/testing/kernels.sh source)

rc=0
# shellcheck disable=SC2086
"$src/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES -f $c_files >"$out/checkpatch.log" 2>&1 || rc=$?
result "checkpatch --strict ($(echo "$c_files" | wc -w) files)" "$rc" "$out/checkpatch.log"

rc=0
MODULE_MAKEFLAGS="C=2" tools/testing/build-module.sh stock \
	>"$out/sparse.log" 2>&1 || rc=$?
# build-module.sh fails on any warning, which includes sparse's.
result "sparse (C=2) and W=1 against the stock headers" "$rc" "$out/sparse.log"

rc=0
# shellcheck disable=SC2046
shellcheck -x $(git ls-files -co --exclude-standard -- '*.sh' .ci/run \
	tools/testing/vm/guest/init) \
	>"$out/shellcheck.log" 2>&1 || rc=$?
result "shellcheck" "$rc" "$out/shellcheck.log"

summary

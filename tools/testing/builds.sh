#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# builds.sh: build rdmalock.ko with W=1 against Debian's stock 6.1 and
# 6.12 backport headers (newest of each, see kernels.sh) and the static
# rdmalockctl. Any warning fails its build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

passed=0 failed=0
out=$RDMALOCK_TOP/out/builds
rm -rf "$out" && mkdir -p "$out"
"$(dirname "$0")/kernels.sh" resolve >/dev/null
# shellcheck source=/dev/null
. "$RDMALOCK_KERNELS_ENV"

check() {
	local name=$1

	shift
	if "$@" >"$out/$name.log" 2>&1; then
		echo "ok - $name"
		passed=$((passed + 1))
	else
		echo "not ok - $name"
		sed 's/^/    /' "$out/$name.log" | tail -n 30
		failed=$((failed + 1))
	fi
}

check "rdmalock.ko, W=1, linux-headers-$STOCK_ABI" \
	"$(dirname "$0")/build-module.sh" stock
check "rdmalock.ko, W=1, linux-headers-$BPO_ABI" \
	"$(dirname "$0")/build-module.sh" bpo
check "rdmalockctl, static, -Wall -Wextra -Werror" \
	sh -c "rm -f '$RDMALOCK_TOP/tools/rdmalockctl/rdmalockctl' &&
	       make -s -C '$RDMALOCK_TOP' tool &&
	       ! ldd '$RDMALOCK_TOP/tools/rdmalockctl/rdmalockctl' 2>/dev/null"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

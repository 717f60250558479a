#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# builds.sh: build rdmalock.ko with W=1 against Debian's stock 6.1 and
# 6.12 backport headers (newest of each, see kernels.sh) and the static
# rdmalockctl. Any warning fails its build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$RDMALOCK_TOP/out/builds
rm -rf "$out" && mkdir -p "$out"
"$(dirname "$0")/kernels.sh" resolve >/dev/null
# shellcheck source=/dev/null
. "$RDMALOCK_KERNELS_ENV"

check() {
	local name=$1 log

	shift
	log=$out/$(echo "$name" | tr -c 'a-zA-Z0-9.\n' _).log
	"$@" >"$log" 2>&1
	result "$name" $? "$log"
}

check "rdmalock.ko, W=1, linux-headers-$STOCK_ABI" \
	"$(dirname "$0")/build-module.sh" stock
check "rdmalock.ko, W=1, linux-headers-$BPO_ABI" \
	"$(dirname "$0")/build-module.sh" bpo
check "rdmalockctl, static, -Wall -Wextra -Werror" \
	sh -c "rm -f '$RDMALOCK_TOP/tools/rdmalockctl/rdmalockctl' &&
	       make -s -C '$RDMALOCK_TOP' tool &&
	       ! ldd '$RDMALOCK_TOP/tools/rdmalockctl/rdmalockctl' 2>/dev/null"

summary

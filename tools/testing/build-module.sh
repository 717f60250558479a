#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-module.sh stock|bpo|debug: build rdmalock.ko (and, for the debug
# kernel, the KUnit module) with W=1 against that kernel, in a build tree
# in the cache, the test-only hostile peer (vm/hostile/) in its hostile/
# folder and the test-only DLM client (vm/dlmprobe/) in dlmprobe/; print
# the tree. Any compiler or modpost warning fails.
# The same sources built against the same kernel are built once.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

target=${1:-}
case "$target" in
stock | bpo)
	kdir=$("$(dirname "$0")/kernels.sh" kdir "$target")
	make_args=(-C "$kdir")
	symvers=$kdir/Module.symvers
	;;
debug)
	build=$("$(dirname "$0")/kernels.sh" debug)
	make_args=(-C "$build/source-tree" O="$build")
	symvers=$build/Module.symvers
	;;
*) die "usage: build-module.sh stock|bpo|debug" ;;
esac

# Keyed by the work tree too, so that two checkouts never share one.
out=$RDMALOCK_CACHE/build/$(echo "$RDMALOCK_TOP" | sha256sum | cut -c1-12)/$target
sources=(Kbuild kmod include uapi kunit samples dlm tools/testing/vm/hostile
	tools/testing/vm/dlmprobe)

# What the build is made of: every source file, the kernel it is built
# against, the compiler and the flags. A build of the same is reused.
build_key() {
	(
		cd "$RDMALOCK_TOP" &&
			find "${sources[@]}" -type f -print0 | sort -z |
			xargs -0 sha256sum &&
			echo "${make_args[*]} ${MODULE_MAKEFLAGS:-}" &&
			gcc --version | head -n 1
	) | sha256sum | cut -c1-16
}

key=$(build_key)
if [ "$(cat "$out/.key" 2>/dev/null)" = "$key" ]; then
	echo "$out"
	exit 0
fi
rm -rf "$out" && mkdir -p "$out"
(cd "$RDMALOCK_TOP" && cp -a Kbuild kmod include uapi kunit samples dlm "$out/")
cp -a "$RDMALOCK_TOP/tools/testing/vm/hostile" "$RDMALOCK_TOP/tools/testing/vm/dlmprobe" \
	"$out/"

log="$out/build.log"
if ! make "${make_args[@]}" M="$out" W=1 ${MODULE_MAKEFLAGS:+"$MODULE_MAKEFLAGS"} \
	-j"$(nproc)" modules >"$log" 2>&1 ||
	! make "${make_args[@]}" M="$out/hostile" W=1 \
		${MODULE_MAKEFLAGS:+"$MODULE_MAKEFLAGS"} -j"$(nproc)" modules \
		>>"$log" 2>&1 ||
	! make "${make_args[@]}" M="$out/dlmprobe" W=1 \
		KBUILD_EXTRA_SYMBOLS="$out/Module.symvers" \
		${MODULE_MAKEFLAGS:+"$MODULE_MAKEFLAGS"} -j"$(nproc)" modules \
		>>"$log" 2>&1; then
	cat "$log" >&2
	die "module build against $target failed"
fi
if grep -E 'warning:|error:|WARNING:' "$log" >&2; then
	die "module build against $target has warnings"
fi
# dlm_crcs_differ: rdmalock_dlm.ko stands in for the kernel's dlm.ko only
# if it has each of the exports GFS2 imports, with dlm.ko's CRC
# (Documentation/gfs2.rst). Kernels without dlm.ko have nothing to match.
# Succeeds when one differs, after naming each that does.
dlm_crcs_differ() {
	local sym want ours differ=1

	grep -q $'\tfs/dlm/dlm\t' "$symvers" || return 1
	for sym in dlm_new_lockspace dlm_release_lockspace dlm_lock dlm_unlock \
		dlm_posix_lock dlm_posix_unlock dlm_posix_get dlm_posix_cancel; do
		want=$(awk -v s="$sym" '$2 == s && $3 == "fs/dlm/dlm" { print $1 }' "$symvers")
		[ -n "$want" ] || continue
		ours=$(awk -v s="$sym" '$2 == s { print $1 }' "$out/Module.symvers")
		if [ "$ours" != "$want" ]; then
			echo "rdmalock_dlm.ko: $sym has CRC ${ours:-none}, the kernel's dlm.ko $want" >&2
			differ=0
		fi
	done
	return $differ
}

if dlm_crcs_differ; then
	die "rdmalock_dlm.ko against $target: CRCs that are not dlm.ko's"
fi
echo "$key" >"$out/.key"
echo "$out"

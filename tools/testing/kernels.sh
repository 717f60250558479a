#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernels we build against and boot, resolved from Debian's archive.
#
#   kernels.sh resolve        newest versions -> $RDMALOCK_KERNELS_ENV
#   kernels.sh kdir stock|bpo print a header tree (installs the headers)
#   kernels.sh stock|bpo      print the unpacked image tree, with its modules
#   kernels.sh source         print the unpacked linux-source-6.12 tree
#   kernels.sh debug          print the KUnit/debug kernel build tree
#
# One file, $RDMALOCK_KERNELS_ENV, records the versions in use; every
# other step reads it, so the module, the headers and the image match.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The dependency of a Debian meta package that names a versioned package.
meta_dep() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n "s/^ *Depends: $2\([^ ]*\)$/\1/p" | head -n 1
}

resolve() {
	local stock bpo src
	stock=$(meta_dep linux-image-amd64 linux-image-)
	bpo=$(meta_dep linux-headers-6.12-amd64 linux-headers-)
	src=$(apt-cache policy linux-source-6.12 2>/dev/null |
	      sed -n 's/^ *Candidate: //p')
	if [ -z "$stock" ] || [ -z "$bpo" ] || [ -z "$src" ] || [ "$src" = "(none)" ]; then
		die "cannot resolve kernel versions (run apt-get update?)"
	fi
	mkdir -p "$RDMALOCK_CACHE"
	cat >"$RDMALOCK_KERNELS_ENV.tmp" <<EOT
# Written by tools/testing/kernels.sh resolve; newest in the archive.
STOCK_ABI=$stock
BPO_ABI=$bpo
DEBUG_SRC_VERSION=$src
EOT
	mv "$RDMALOCK_KERNELS_ENV.tmp" "$RDMALOCK_KERNELS_ENV"
	cat "$RDMALOCK_KERNELS_ENV"
}

load_versions() {
	[ -f "$RDMALOCK_KERNELS_ENV" ] || resolve >/dev/null
	# shellcheck source=/dev/null
	. "$RDMALOCK_KERNELS_ENV"
}

apt_install() {
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2 ||
		die "apt-get install $* failed"
}

kdir() {
	local abi
	load_versions
	case "$1" in
	stock) abi=$STOCK_ABI ;;
	bpo) abi=$BPO_ABI ;;
	*) die "kdir: unknown header set '$1' (stock or bpo)" ;;
	esac
	[ -f "/usr/src/linux-headers-$abi/Makefile" ] ||
		apt_install "linux-headers-$abi"
	echo "/usr/src/linux-headers-$abi"
}

# image ABI: Debian's linux-image-ABI, unpacked with its modules.
image() {
	local abi=$1 dir deb

	dir=$RDMALOCK_CACHE/image/$abi
	if [ ! -f "$dir/.done" ]; then
		rm -rf "$dir" && mkdir -p "$dir/deb"
		(cd "$dir/deb" && apt-get download -q "linux-image-$abi" >&2) ||
			die "apt-get download linux-image-$abi failed"
		for deb in "$dir"/deb/*.deb; do dpkg -x "$deb" "$dir/root"; done
		depmod -b "$dir/root" "$abi"
		rm -rf "$dir/deb"
		touch "$dir/.done"
	fi
	echo "$dir/root"
}

# The source of Debian's linux-source-6.12, unpacked in the cache.
source_tree() {
	local src

	load_versions
	src=$RDMALOCK_CACHE/src/linux-source-$DEBUG_SRC_VERSION
	if [ ! -f "$src/.done" ]; then
		[ "$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)" = \
		  "$DEBUG_SRC_VERSION" ] || apt_install "linux-source-6.12=$DEBUG_SRC_VERSION"
		rm -rf "$src" && mkdir -p "$src"
		tar -xf /usr/src/linux-source-6.12.tar.xz -C "$src" --strip-components=1
		touch "$src/.done"
	fi
	echo "$src"
}

debug() {
	local key src build

	load_versions
	src=$(source_tree)
	key=$(sha256sum <"$RDMALOCK_TOP/kunit/.kunitconfig" | cut -c1-16)
	build=$RDMALOCK_CACHE/debug/$DEBUG_SRC_VERSION-$key
	if [ -f "$build/.done" ]; then
		echo "$build"
		return
	fi
	log "building the debug/KUnit kernel in $build (once; several minutes)"
	mkdir -p "$build"
	"$src/tools/testing/kunit/kunit.py" build --arch=x86_64 \
		--kunitconfig="$RDMALOCK_TOP/kunit/.kunitconfig" \
		--build_dir="$build" --jobs="$(nproc)" >"$build/build.log" 2>&1 ||
		{ tail -n 30 "$build/build.log" >&2; die "debug kernel build failed"; }
	ln -sfn "$src" "$build/source-tree"
	touch "$build/.done"
	echo "$build"
}

case "${1:-}" in
resolve) resolve ;;
kdir) kdir "${2:-}" ;;
stock) load_versions && image "$STOCK_ABI" ;;
bpo) load_versions && image "$BPO_ABI" ;;
source) source_tree ;;
debug) debug ;;
*) die "usage: kernels.sh resolve | kdir stock|bpo | stock|bpo | source | debug" ;;
esac

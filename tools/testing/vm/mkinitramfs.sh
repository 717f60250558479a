#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT MODBUILD [MODTREE]
#
# Writes a busybox initramfs (newc cpio) for a test guest to OUT: our init,
# the scenarios, rdmalockctl, dropcap, roarg, fdrace, iproute2's rdma tool
# with its libraries, every .ko of our build tree MODBUILD, and, when the
# kernel keeps them as modules (MODTREE, a depmod'ed /lib/modules/<version>),
# the chain that rxe, virtio-net and our modules need, in load order.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

out=$1 modbuild=$2 modtree=${3:-}
stage=$(mktemp -d)
chmod 755 "$stage"	# it becomes the guest's /
trap 'rm -rf "$stage"' EXIT

# copy_binary PATH: PATH and the shared libraries it loads, same paths.
copy_binary() {
	local f

	for f in "$1" $(ldd "$1" | grep -o '/[^ ]*'); do
		mkdir -p "$stage$(dirname "$f")"
		cp -L "$f" "$stage$f"
	done
}

declare -A mod_deps=() mod_path=() mod_seen=()
mod_order=()

mod_name() { local b=${1##*/}; b=${b%%.ko*}; echo "${b//-/_}"; }

load_modules_dep() {
	local key rest

	while IFS=: read -r key rest; do
		mod_deps[$key]=$rest
		mod_path[$(mod_name "$key")]=$key
	done <"$modtree/modules.dep"
}

# Depth first, so every module comes after the ones it depends on.
visit_module() {
	local key=$1 dep

	[ -z "${mod_seen[$key]:-}" ] || return 0
	mod_seen[$key]=1
	for dep in ${mod_deps[$key]}; do
		visit_module "$dep"
	done
	mod_order+=("$key")
}

add_module_chain() {
	local roots=(crc32_generic virtio_pci virtio_net rdma_rxe) deps ko name key

	for ko in "$modbuild"/*.ko "$modbuild"/*/*.ko; do
		[ -f "$ko" ] || continue
		IFS=, read -ra deps <<<"$(modinfo -F depends "$ko")"
		roots+=("${deps[@]}")
	done
	load_modules_dep
	for name in "${roots[@]}"; do
		name=${name//-/_}
		key=${mod_path[$name]:-}
		# Our own modules are in MODBUILD, not in the kernel's tree.
		[ -n "$key" ] || [ -n "$(find "$modbuild" -name "$name.ko")" ] ||
			die "module $name not found in $modtree"
		[ -z "$key" ] || visit_module "$key"
	done
	mkdir -p "$stage/lib/modules/infra"
	for key in "${mod_order[@]}"; do
		case "$key" in
		*.ko) cp "$modtree/$key" "$stage/lib/modules/infra/" ;;
		*.ko.xz) xz -dc "$modtree/$key" >"$stage/lib/modules/infra/$(mod_name "$key").ko" ;;
		*.ko.zst) zstd -qdc "$modtree/$key" >"$stage/lib/modules/infra/$(mod_name "$key").ko" ;;
		esac
		basename "${key%.xz}" | sed 's/\.zst$//' >>"$stage/lib/modules/infra/order"
	done
}

mkdir -p "$stage"/{bin,etc,lib/rdmalock,scenarios}
# An unprivileged user, for the scenarios that check permissions.
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' \
	>"$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"
cp /bin/busybox "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
cp "$here/guest/init" "$stage/init"
cp "$RDMALOCK_TOP/tools/rdmalockctl/rdmalockctl" "$stage/bin/"
cc -static -O2 -Wall -Wextra -Werror -o "$stage/bin/dropcap" "$here/dropcap.c"
cc -static -O2 -Wall -Wextra -Werror -I"$RDMALOCK_TOP/uapi" -o "$stage/bin/roarg" \
	"$here/roarg.c"
cc -static -O2 -Wall -Wextra -Werror -pthread -I"$RDMALOCK_TOP/uapi" \
	-o "$stage/bin/fdrace" "$here/fdrace.c"
cp "$here"/scenarios/*.sh "$stage/scenarios/"
copy_binary "$(command -v rdma)"
find "$modbuild" -name '*.ko' -exec cp {} "$stage/lib/rdmalock/" \;
[ -z "$modtree" ] || add_module_chain

(cd "$stage" && find . | cpio -o -H newc --quiet) >"$out"

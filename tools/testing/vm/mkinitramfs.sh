#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT MODBUILD [MODTREE]
#
# Writes a busybox initramfs (newc cpio) for a test guest to OUT: our init,
# the scenarios, rdmalockctl, dropcap, roarg, fdrace, fsbench, iproute2's
# rdma tool with its libraries, every .ko of our build tree MODBUILD, and,
# when the kernel keeps them as modules (MODTREE, a depmod'ed
# /lib/modules/<version>), the chain that rxe, virtio-net and our modules
# need, in load order, GFS2's with mkfs.gfs2, fsck.gfs2, flock and
# device-mapper's dmsetup, and the kernel's dlm.ko.
#
# The image is kept in MODBUILD, with a key of what went into it: every
# group of `make check` boots the same one, and building it cost each
# about 20 s of forks and static links.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

out=$1 modbuild=$2 modtree=${3:-}
cached=$modbuild/initramfs.cpio

# What the image is made of: this script and what it copies or compiles,
# the modules, the kernel's module tree and the host's tools.
image_key() {
	local tool

	{
		find "$here/mkinitramfs.sh" "$here/guest" "$here/scenarios" \
			"$here"/*.c "$RDMALOCK_TOP/uapi" -type f -print0 |
			sort -z | xargs -0 sha256sum
		find "$modbuild" -name '*.ko' -print0 | sort -z | xargs -0 sha256sum
		sha256sum "$RDMALOCK_TOP/tools/rdmalockctl/rdmalockctl"
		for tool in busybox rdma mkfs.gfs2 fsck.gfs2 flock dmsetup; do
			sha256sum "$(command -v "$tool")"
		done
		echo "$modtree"
		[ -z "$modtree" ] || sha256sum "$modtree/modules.dep"
		cc --version | head -n 1
	} | sha256sum | cut -c1-16
}

key=$(image_key)
if [ -f "$cached" ] && [ "$(cat "$cached.key" 2>/dev/null)" = "$key" ]; then
	cp "$cached" "$out"
	exit 0
fi

stage=$(mktemp -d)
tmp=$(mktemp "$modbuild/initramfs.XXXXXX")
chmod 755 "$stage"	# it becomes the guest's /
trap 'rm -rf "$stage" "$tmp"' EXIT

# copy_binary PATH: PATH and the shared libraries it loads, same paths.
copy_binary() {
	local f

	for f in "$1" $(ldd "$1" | grep -o '/[^ ]*'); do
		mkdir -p "$stage$(dirname "$f")"
		cp -L "$f" "$stage$f"
	done
}

declare -A mod_deps=() mod_path=() mod_seen=() mod_builtin=()
mod_order=()

mod_name() { local b=${1##*/}; b=${b%%.ko*}; echo "${b//-/_}"; }

load_modules_dep() {
	local key rest

	while IFS=: read -r key rest; do
		mod_deps[$key]=$rest
		mod_path[$(mod_name "$key")]=$key
	done <"$modtree/modules.dep"
	while read -r key; do
		mod_builtin[$(mod_name "$key")]=1
	done <"$modtree/modules.builtin"
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

# visit_named NAME: module NAME of the kernel's tree, after those it
# depends on, unless the kernel has it built in (6.12: virtio_pci).
visit_named() {
	local key=${mod_path[$1]:-}

	if [ -n "$key" ]; then
		visit_module "$key"
	elif [ -z "${mod_builtin[$1]:-}" ]; then
		die "module $1 not found in $modtree"
	fi
}

add_module_chain() {
	local roots=(crc32_generic virtio_pci virtio_net rdma_rxe) deps ko name

	for ko in "$modbuild"/*.ko "$modbuild"/*/*.ko; do
		[ -f "$ko" ] || continue
		IFS=, read -ra deps <<<"$(modinfo -F depends "$ko")"
		roots+=("${deps[@]}")
	done
	load_modules_dep
	for name in "${roots[@]}"; do
		name=${name//-/_}
		# Our own modules are in MODBUILD, not in the kernel's tree.
		[ -n "${mod_path[$name]:-}" ] ||
			[ -z "$(find "$modbuild" -name "$name.ko")" ] || continue
		visit_named "$name"
	done
	copy_modules infra
}

# copy_modules DIR: the modules of mod_order into /lib/modules/DIR, with
# their load order in its file "order".
copy_modules() {
	local dir=$stage/lib/modules/$1 key ko

	mkdir -p "$dir"
	for key in "${mod_order[@]}"; do
		ko=$(basename "${key%.xz}" | sed 's/\.zst$//')
		case "$key" in
		*.ko) cp "$modtree/$key" "$dir/" ;;
		*.ko.xz) xz -dc "$modtree/$key" >"$dir/$ko" ;;
		*.ko.zst) zstd -qdc "$modtree/$key" >"$dir/$ko" ;;
		esac
		echo "$ko" >>"$dir/order"
	done
}

# GFS2, whose dlm.ko rdmalock_dlm.ko stands in for, the disk it mounts
# and device-mapper, through which it does (a fence can cut it), with
# what they need that the boot did not load: for the scenarios that load
# them (/lib/modules/gfs2), not at boot.
add_gfs2_chain() {
	local name

	mod_order=()
	[ -z "${mod_path[dlm]:-}" ] || mod_seen[${mod_path[dlm]}]=1
	for name in crc32c_generic virtio_blk gfs2 dm_mod; do
		visit_named "$name"
	done
	copy_modules gfs2
}

# The kernel's own dlm.ko and what it needs, for the scenarios that run
# GFS2 on it as the baseline (/lib/modules/dlm, loaded before the chain
# above).
add_dlm_chain() {
	local key=${mod_path[dlm]:-}

	[ -n "$key" ] || die "module dlm not found in $modtree"
	mod_order=()
	unset "mod_seen[$key]"
	visit_module "$key"
	copy_modules dlm
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
cc -static -O2 -Wall -Wextra -Werror -o "$stage/bin/fsbench" "$here/fsbench.c"
cp "$here"/scenarios/*.sh "$stage/scenarios/"
copy_binary "$(command -v rdma)"
find "$modbuild" -name '*.ko' -exec cp {} "$stage/lib/rdmalock/" \;
copy_binary "$(command -v mkfs.gfs2)"
copy_binary "$(command -v fsck.gfs2)"
# util-linux's: busybox's static build has no flock.
copy_binary "$(command -v flock)"
copy_binary "$(command -v dmsetup)"
if [ -n "$modtree" ]; then
	add_module_chain
	add_gfs2_chain
	add_dlm_chain
fi

(cd "$stage" && find . | cpio -o -H newc --quiet) >"$tmp"
mv "$tmp" "$cached"
echo "$key" >"$cached.key"
cp "$cached" "$out"

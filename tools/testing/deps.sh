#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh: install, with apt-get, what building and testing rdmalock needs
# on a Debian 12 machine. Does nothing when all of it is there. Kernel
# headers and images are fetched later, by kernels.sh, for the versions
# it resolves.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

packages=(
	# module, tool, kernel builds
	build-essential bc bison flex libelf-dev libssl-dev dwarves
	xz-utils zstd kmod python3 perl linux-source-6.12
	# lint
	sparse shellcheck
	# model checking
	spin
	# the QEMU cluster
	qemu-system-x86 qemu-system-data busybox-static cpio iproute2
	# GFS2 on a disk the guests share (mkfs.gfs2 and fsck.gfs2 run in them),
	# through device-mapper, which a fence cuts
	gfs2-utils dmsetup
	# make eval's plots and tables (column)
	gnuplot-nox bsdextrautils
)

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

missing=()
for p in "${packages[@]}"; do
	installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}); run as root to install them"
log "installing: ${missing[*]}"
apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"${missing[@]}" >&2

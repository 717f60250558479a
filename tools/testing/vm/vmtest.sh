#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vmtest.sh [--nodes N] [--scenario NAME[+NAME...]] [--kernel stock|bpo|debug]
#           [--timeout SECONDS] [--outdir DIR] [--disk MB] [--smp CPUS]
#           [--set NAME=VALUE]...
#
# Boots N QEMU guests (TCG, -smp CPUS) on a bridge in a private network
# namespace, each with Soft-RoCE on its virtio NIC, runs the scenario
# tools/testing/vm/scenarios/NAME.sh on every node, merges the nodes' TAP
# and prints "N passed, N failed". A guest that dies, hangs past the
# timeout or prints a kernel splat fails the run. QEMU processes and the
# namespace (with its bridge and taps) are removed on every exit path.
# Scenarios joined by + run one after the other in the same boot; only
# the last may power a node off.
# With --disk, the guests also share one raw disk of MB megabytes
# (/dev/vda in each), as a cluster filesystem's storage. --set puts NAME
# in the scenario's environment on every node.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

nodes=3 scenario=smoke kernel=stock timeout='' outdir='' disk_mb='' disk=() smp=
settings=''

usage() {
	sed -n '4,5s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--nodes) nodes=$2; shift 2 ;;
	--scenario) scenario=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--outdir) outdir=$2; shift 2 ;;
	--disk) disk_mb=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--set)
		[[ "$2" =~ ^[A-Z][A-Z0-9_]*=[A-Za-z0-9_.,=-]*$ ]] ||
			die "--set takes NAME=VALUE: capitals for NAME, no spaces"
		settings="$settings vmtest.set.$2"
		shift 2 ;;
	*) usage ;;
	esac
done
[[ "$nodes" =~ ^[1-8]$ ]] || die "--nodes must be 1 to 8"
[ -z "$smp" ] || [[ "$smp" =~ ^[1-4]$ ]] || die "--smp must be 1 to 4"
[ -z "$disk_mb" ] || [[ "$disk_mb" =~ ^[1-9][0-9]{0,4}$ ]] ||
	die "--disk must be 1 to 99999 (MB)"
for part in ${scenario//+/ }; do
	[ -f "$here/scenarios/$part.sh" ] ||
		die "no scenario '$part' (see $here/scenarios/)"
done
case "$kernel" in
stock | bpo) timeout=${timeout:-300} mem=1024 ;;
debug) timeout=${timeout:-900} mem=2048 ;;
*) die "--kernel must be stock, bpo or debug" ;;
esac
# Two CPUs a guest, for the races between them. A cluster of debug guests
# gets one each: lockdep and KASAN judge paths, not interleavings (the
# stock runs race), and three guests' six busy vCPU threads on this
# host's two cores mostly waited for one another (spinning on a lock
# whose holder's vCPU was not running, IPIs, RCU): shiftlock took a
# quarter less time on one.
if [ -z "$smp" ]; then
	smp=2
	[ "$kernel" != debug ] || [ "$nodes" -eq 1 ] || smp=1
fi
[ "$(id -u)" -eq 0 ] || die "needs root (network namespace, taps)"

outdir=${outdir:-$RDMALOCK_TOP/out/vmtest/$scenario-$kernel}
tag=rdmalock-vt-$$
ns=$tag
pids=()

alive() {
	local state

	state=$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null) &&
		[ -n "$state" ] && [ "$state" != Z ]
}

any_alive() {
	local pid

	for pid in "${pids[@]}"; do
		alive "$pid" && return 0
	done
	return 1
}

# SIGTERM lets QEMU exit cleanly; one that does not within 5s is killed.
stop_guests() {
	local pid tries=50

	for pid in "${pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	while any_alive && [ "$tries" -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
	for pid in "${pids[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	pids=()
}

cleanup() {
	stop_guests
	ip netns del "$ns" 2>/dev/null || true
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

prepare() {
	local modtree=''

	make -s -C "$RDMALOCK_TOP" tool >&2
	if [ "$kernel" != debug ]; then
		local root abi
		root=$("$here/../kernels.sh" "$kernel")
		# shellcheck source=/dev/null
		. "$RDMALOCK_KERNELS_ENV"
		abi=$STOCK_ABI
		[ "$kernel" = stock ] || abi=$BPO_ABI
		vmlinuz=$root/boot/vmlinuz-$abi
		modtree=$root/lib/modules/$abi
		kernel_name=$abi
	else
		local build
		build=$("$here/../kernels.sh" debug)
		vmlinuz=$build/arch/x86/boot/bzImage
		kernel_name="debug $(basename "$build")"
	fi
	modbuild=$("$here/../build-module.sh" "$kernel")
	"$here/mkinitramfs.sh" "$outdir/initramfs.cpio" "$modbuild" "$modtree"
}

node_addr() { echo "10.77.0.$(($1 + 1))"; }

# The disk every guest shares. cache=none: a guest's write reaches the
# file, not the host's page cache, before another guest reads; share-rw
# and no image locking, since QEMU otherwise refuses a second writer.
make_disk() {
	local img=$outdir/shared.img

	truncate -s "${disk_mb}M" "$img"
	disk=(-drive "file=$img,if=none,id=shared,format=raw,cache=none,file.locking=off"
		-device "virtio-blk-pci,drive=shared,share-rw=on")
}

setup_network() {
	local i

	ip netns add "$ns"
	ip -n "$ns" link set lo up
	ip -n "$ns" link add br0 type bridge
	ip -n "$ns" link set br0 up
	for i in $(seq 0 $((nodes - 1))); do
		ip -n "$ns" tuntap add dev "tap$i" mode tap
		ip -n "$ns" link set "tap$i" master br0 up
	done
}

# Emulated CPUs shared by several guests run far slower than the kernel's
# stall detectors expect; a stall report there says nothing about our code.
# Their thresholds are raised to the maximum; a real hang still ends in the
# harness's timeout.
# acpi=noirq: the debug kernel's ACPI interpreter ran the PCI routing
# method (_PRT) into its 30 s loop timeout at every boot, half its boot
# time; virtio's interrupts are MSI-X, which need no routing table.
guest_cmdline="console=ttyS0 panic=-1 rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60 acpi=noirq"

# In a session of its own, out of the terminal's reach: a Ctrl-C is for
# vmtest, which stops the guests and says it was interrupted, rather than
# reporting them dead. setsid and ip exec, so $! is QEMU's.
start_node() {
	local i=$1 addrs=$2

	setsid ip netns exec "$ns" qemu-system-x86_64 -name "$tag-node$i" \
		-machine pc -accel tcg,thread=multi -cpu max -smp "$smp" -m "$mem" \
		-bios qboot.rom -display none -monitor none -no-reboot \
		-kernel "$vmlinuz" -initrd "$outdir/initramfs.cpio" \
		-append "$guest_cmdline vmtest.node=$i vmtest.nodes=$addrs vmtest.scenario=$scenario vmtest.deadline=$((timeout + 60))$settings" \
		-serial "file:$outdir/node$i.console" \
		-serial "file:$outdir/node$i.tap" \
		"${disk[@]}" \
		-netdev "tap,id=net0,ifname=tap$i,script=no,downscript=no" \
		-device "virtio-net-pci,netdev=net0,mac=52:54:00:77:00:$(printf %02x $((i + 1)))" \
		>"$outdir/node$i.qemu" 2>&1 &
	pids[i]=$!
}

node_done() { grep -q '^# vmtest-done' "$outdir/node$1.tap" 2>/dev/null; }

# Sets ended[i] to finished, died or unfinished; returns when all are done,
# one died (its peers would only wait for it), or the timeout passed.
wait_nodes() {
	local deadline=$((SECONDS + timeout)) i finished dead

	while :; do
		finished=0 dead=0
		for i in $(seq 0 $((nodes - 1))); do
			if node_done "$i"; then
				ended[i]=finished
				finished=$((finished + 1))
			elif ! alive "${pids[i]}"; then
				ended[i]=died
				dead=1
			else
				ended[i]=unfinished
			fi
		done
		[ "$finished" -lt "$nodes" ] && [ "$dead" -eq 0 ] &&
			[ "$SECONDS" -lt "$deadline" ] || return 0
		sleep 1
	done
}

passed=0 failed=0 skipped=0

node_fail() {
	echo "node$1: FAILED: $2"
	failed=$((failed + 1))
}

first_splat() { rdmalock_splats "$outdir/node$1.console" 1; }

# show_stuck I: where node I timed out: the last result it reported, and
# its tasks that waited in rdmalock shortly before (guest/init).
show_stuck() {
	local last

	last=$(grep -E '^(not )?ok ' "$outdir/node$1.tap" 2>/dev/null | tail -n 1 | tr -d '\r' ||
		true)
	echo "node$1: last result: ${last:-none}"
	{ grep -a '^vmtest: stuck: ' "$outdir/node$1.console" 2>/dev/null || true; } |
		tr -d '\r' | head -n 8 | sed "s/^vmtest: /node$1: /" || true
}

# plan_mismatches TAP: a line for each scenario whose plan and results
# disagree. The scenarios that shared a boot are counted apart, so that
# neither one that ran nothing nor two that missed by opposite counts
# hide in the sum.
plan_mismatches() {
	awk '/^# part / { part = $3; parts[++n] = part; next }
		/^1\.\.[0-9]+$/ { plan[part] += substr($0, 4); planned[part] = 1 }
		/^(not )?ok / { res[part]++ }
		END {
			if (!n)
				parts[++n] = ""
			for (i = 1; i <= n; i++) {
				p = parts[i]
				if (planned[p] && plan[p] == res[p] + 0)
					continue
				printf "%splanned %s tests, reported %d\n", (p == "" ? "" : p ": "),
					(planned[p] ? plan[p] : "no"), res[p]
			}
		}' "$1"
}

# Prints node I's results; counts them into passed and failed.
report_node() {
	local i=$1 tap=$outdir/node$1.tap ok notok todo splat line

	case "${ended[i]}" in
	died)
		node_fail "$i" "guest died before finishing: $(first_splat "$i" || true)$(rdmalock_boot_splats "$outdir/node$i.console" 1 || true)" ;;
	unfinished)
		if [ "$why" = timeout ]; then
			node_fail "$i" "timed out after ${timeout}s"
			show_stuck "$i"
		else
			node_fail "$i" "stopped unfinished: $why"
		fi ;;
	esac
	[ -f "$tap" ] || return 0
	# The guest wrote through a serial port: strip its CRs.
	sed -i 's/\r$//' "$tap"
	# Results of a scenario that shared its boot carry its name; a
	# failure's last lines of output follow it ("# | ...").
	awk -v node="node$i: " '/^# part / { part = $3 ": "; next }
		/^(not )?ok / { sub(/ - /, " - " part); print node $0 }
		/^# \| / { print node $0 }' "$tap"
	ok=$(grep -c '^ok ' "$tap" || true)
	notok=$(grep -c '^not ok ' "$tap" || true)
	# A known failure, marked "# TODO" by the scenario, is reported and
	# counted as skipped, not failed (TAP's TODO directive).
	todo=$(grep -c '^not ok .* # TODO ' "$tap" || true)
	notok=$((notok - todo))
	skipped=$((skipped + todo))
	passed=$((passed + ok))
	failed=$((failed + notok))
	if [ "${ended[i]}" = finished ]; then
		while read -r line; do
			node_fail "$i" "$line"
		done < <(plan_mismatches "$tap")
	fi
	splat=$(first_splat "$i" || true)
	if [ -n "$splat" ] && [ "${ended[i]}" != died ]; then
		node_fail "$i" "kernel splat in console: $splat"
	fi
	splat=$(rdmalock_boot_splats "$outdir/node$i.console" 1 || true)
	[ -z "$splat" ] || echo "node$i: note: splat while the kernel booted, before init: $splat"
}

main() {
	local i addrs='' why
	declare -ga ended

	rm -rf "$outdir" && mkdir -p "$outdir"
	prepare
	[ -z "$disk_mb" ] || make_disk
	for i in $(seq 0 $((nodes - 1))); do
		addrs=${addrs:+$addrs,}$(node_addr "$i")
	done
	log "scenario $scenario, kernel $kernel_name, $nodes nodes of $smp CPUs, timeout ${timeout}s"
	setup_network
	for i in $(seq 0 $((nodes - 1))); do
		start_node "$i" "$addrs"
	done
	wait_nodes
	cleanup

	why=timeout
	for i in $(seq 0 $((nodes - 1))); do
		[ "${ended[i]}" != died ] || why="node$i died"
	done
	for i in $(seq 0 $((nodes - 1))); do
		report_node "$i"
	done
	log "logs in $outdir"
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}

main

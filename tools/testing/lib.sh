# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared by the test and demo scripts: where things live, how we log.
# Slow artefacts (kernels, kernel sources, build trees) go in the cache
# directory, outside the work tree, so that a second run is fast.

# shellcheck disable=SC2034 # these are for the scripts that source us
RDMALOCK_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RDMALOCK_CACHE=${RDMALOCK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rdmalock}
# shellcheck disable=SC2034
RDMALOCK_KERNELS_ENV=$RDMALOCK_CACHE/kernels.env

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Guest console logs are scanned for these; any match fails the run.
RDMALOCK_SPLAT_RE='BUG:|WARNING:|Oops|Kernel panic|general protection fault|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|KASAN:|UBSAN:|kmemleak: [1-9][0-9]* new suspected|INFO: task .* blocked|sleeping function called from invalid context|Call Trace:'

# A splat of the kernel's own code that a baseline run hits and that is
# no bug: Debian 6.1's dlm.ko copies a message into a struct that ends in
# a message, which FORTIFY_SOURCE takes for a field-spanning write (the
# gfs2 scenario's dlm.ko phase). Its whole block, from "cut here" to "end
# trace", is left out; nothing else is.
RDMALOCK_SPLAT_BENIGN='at fs/dlm/requestqueue.c:[0-9]+ dlm_add_requestqueue'

# GFS2 dumps its stack once a withdraw is over. One asked for by a write
# to its sysfs "withdraw" (withdraw_store), as the gfs2 scenario's fenced
# node does, is no bug; nor is any withdraw of a node that fenced itself
# and has not rejoined a view since: its fence took its disk away, and
# an I/O that fails then (quotad's statfs, the log flush) may start the
# withdraw before the write does. Its dump, up to its "</TASK>", is left
# out too.
RDMALOCK_SPLAT_WITHDRAW='gfs2: fsid=[^ ]*: File system withdrawn'
RDMALOCK_SPLAT_WITHDRAW_ASKED='withdraw_store'
RDMALOCK_SPLAT_FENCED="rdmalock: [^ ]*: no quorum renewed this node's lease .*: fenced"
RDMALOCK_SPLAT_REJOINED='rdmalock: [^ ]*: view [0-9]+: members'

# rdmalock_unbenign: a console log without the benign splats' blocks.
rdmalock_unbenign() {
	awk -v benign="$RDMALOCK_SPLAT_BENIGN" \
	    -v withdrawn="$RDMALOCK_SPLAT_WITHDRAW" \
	    -v asked="$RDMALOCK_SPLAT_WITHDRAW_ASKED" \
	    -v fenced="$RDMALOCK_SPLAT_FENCED" -v rejoined="$RDMALOCK_SPLAT_REJOINED" '
		$0 ~ fenced { cut_off = 1 }
		$0 ~ rejoined { cut_off = 0 }
		/-+\[ cut here \]-+/ { block = $0 "\n"; inblock = 1; drop = 0; end = "---\\[ end trace"; next }
		!inblock && $0 ~ withdrawn { print; block = ""; inblock = 1; drop = cut_off; end = "</TASK>"; next }
		inblock {
			block = block $0 "\n"
			if (end == "</TASK>" ? $0 ~ asked : $0 ~ benign)
				drop = 1
			if ($0 ~ end) {
				if (!drop)
					printf "%s", block
				inblock = 0
			}
			next
		}
		{ print }
		END { if (inblock && !drop) printf "%s", block }'
}

# Print the console lines that look like a kernel splat, at most $2,
# from the moment the kernel starts init: nothing of ours runs before.
# The debug kernel under TCG has been seen to report an interrupt taken
# in cpu_detect() as a KASAN wild access; rdmalock_boot_splats shows such
# splats of the kernel's own boot, which do not fail a run.
rdmalock_splats() {
	sed -n '/Run \/init as init process/,$p' "$1" 2>/dev/null | rdmalock_unbenign |
		grep -E "$RDMALOCK_SPLAT_RE" | head -n "${2:-5}"
}

rdmalock_boot_splats() {
	sed -n '1,/Run \/init as init process/p' "$1" 2>/dev/null |
		grep -E "$RDMALOCK_SPLAT_RE" | head -n "${2:-5}"
}

# Host-side check scripts report one "ok"/"not ok" line per check and
# end with summary(), whose "N passed, N failed" make check adds up.
checks_passed=0
checks_failed=0

# result DESCRIPTION STATUS [LOG]: report a check; on failure show LOG's tail.
result() {
	if [ "$2" -eq 0 ]; then
		echo "ok - $1"
		checks_passed=$((checks_passed + 1))
	else
		echo "not ok - $1${3:+ (see $3)}"
		[ -z "${3:-}" ] || tail -n 40 "$3" | sed 's/^/    /'
		checks_failed=$((checks_failed + 1))
	fi
}

summary() {
	echo "$checks_passed passed, $checks_failed failed"
	[ "$checks_failed" -eq 0 ]
}

# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for scenarios, which run in the guests under busybox sh.
# Set by the guest's init:
#   VMTEST_NODE      this node's id, from 0
#   VMTEST_NODES     comma-separated addresses of all nodes, by id
# A scenario prints TAP on stdout: a plan ("1..N") and one "ok"/"not ok"
# line per test. Diagnostics go to stderr (the guest console).

TAP_N=0

tap_plan() { echo "1..$1"; }

tap_ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $*"
}

tap_not_ok() {
	TAP_N=$((TAP_N + 1))
	echo "not ok $TAP_N - $*"
}

# tap_check DESCRIPTION COMMAND...: one test, passing when COMMAND does.
# The command's output goes to stderr, so the console log keeps it.
tap_check() {
	local desc="$1"

	shift
	if "$@" >&2; then
		tap_ok "$desc"
	else
		tap_not_ok "$desc"
	fi
}

node_addr() { echo "$VMTEST_NODES" | cut -d, -f$(($1 + 1)); }

num_nodes() { echo "$VMTEST_NODES" | tr ',' '\n' | wc -l; }

# Ids of the other nodes.
peers() {
	local i=0 n

	n=$(num_nodes)
	while [ "$i" -lt "$n" ]; do
		[ "$i" -ne "$VMTEST_NODE" ] && echo "$i"
		i=$((i + 1))
	done
}

# retry SECONDS COMMAND...: run COMMAND once a second until it succeeds.
retry() {
	local left="$1"

	shift
	until "$@"; do
		left=$((left - 1))
		[ "$left" -gt 0 ] || return 1
		sleep 1
	done
}

# barrier NAME [SECONDS]: wait until every node has reached NAME. Each
# node publishes the names it reached through its httpd; guests boot at
# different speeds, so peers that are not up yet are simply retried.
# Nodes listed in VMTEST_GONE (ids, space-separated) are not waited for.
barrier() {
	local name="$1" secs="${2:-120}" p

	: >"/www/$name"
	for p in $(peers); do
		case " ${VMTEST_GONE:-} " in *" $p "*) continue ;; esac
		retry "$secs" wget -q -O /dev/null "http://$(node_addr "$p")/$name" ||
			return 1
	done
}

# die_now: report this node finished, then power off at once, with no
# clean-up: to its peers, as if the node had crashed. Printed results
# stay counted; the harness expects no more from this node.
die_now() {
	echo "# vmtest-done rc=0"
	poweroff -f
}

# domain_up NAME: every node of domain NAME, this one included, is up.
domain_up() {
	[ "$(rdmalockctl domain status "$1" | grep -c ': up,')" -eq "$(num_nodes)" ]
}

load_rdmalock() { insmod /lib/rdmalock/rdmalock.ko "$@"; }

KMEMLEAK=/sys/kernel/debug/kmemleak

# kmemleak_forget: what kmemleak suspects so far (boot, the rxe set-up)
# is not ours; only what it finds after this counts.
kmemleak_forget() { [ ! -e $KMEMLEAK ] || echo clear >$KMEMLEAK; }

# tap_kmemleak: a test that no new leak is suspected, or a skip on a
# kernel without kmemleak. Objects must be unreferenced for 5s before
# kmemleak reports them, hence the wait.
tap_kmemleak() {
	local leaks

	if [ ! -e $KMEMLEAK ]; then
		tap_ok "no memory leaked # SKIP kernel without kmemleak"
		return
	fi
	sleep 6
	echo scan >$KMEMLEAK
	leaks=$(cat $KMEMLEAK)
	echo "$leaks" >&2
	if [ -z "$leaks" ]; then
		tap_ok "no memory leaked (kmemleak)"
	else
		tap_not_ok "no memory leaked (kmemleak)"
	fi
}

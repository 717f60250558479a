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
TAP_LAST=0

# Uptime in hundredths of a second.
uptime_cs() { tr -d . </proc/uptime | cut -d' ' -f1; }

tap_plan() {
	echo "1..$1"
	TAP_LAST=$(uptime_cs)
}

# tap_result ok|"not ok" DESCRIPTION: the line, then a TAP comment with
# the seconds since the previous one, to find where a scenario's time goes.
tap_result() {
	local now

	now=$(uptime_cs)
	TAP_N=$((TAP_N + 1))
	echo "$1 $TAP_N - $2"
	[ "$TAP_LAST" -eq 0 ] || echo "# took $(((now - TAP_LAST) / 100)) s"
	TAP_LAST=$now
}

tap_ok() { tap_result ok "$*"; }

tap_not_ok() { tap_result "not ok" "$*"; }

# The output of the check that runs.
TAP_OUT=/tmp/tap-check.out

# tap_check DESCRIPTION COMMAND...: one test, passing when COMMAND does.
# The command's output goes to stderr, so that the console log keeps it;
# a failure's last lines also go into the TAP, as comments "# | ...",
# because the TAP is all that a run of the suite elsewhere reports.
tap_check() {
	local desc="$1" rc=0

	shift
	"$@" >"$TAP_OUT" 2>&1 || rc=1
	cat "$TAP_OUT" >&2
	if [ "$rc" -eq 0 ]; then
		tap_ok "$desc"
	else
		tap_not_ok "$desc"
		tail -n 12 "$TAP_OUT" | tr -d '\r' | sed 's/^/# | /'
	fi
}

node_addr() { echo "$VMTEST_NODES" | cut -d, -f$(($1 + 1)); }

# What a node publishes, its httpd serves to the peers. A scenario that
# shares its boot with others (vmtest --scenario A+B) publishes in a
# directory of its own, VMTEST_PART, which guest/init makes: every
# scenario publishes in WWW and fetches from peer_url.
WWW=/www${VMTEST_PART:+/$VMTEST_PART}
export WWW

# peer_url NODE NAME: where NODE publishes NAME.
peer_url() { echo "http://$(node_addr "$1")/${VMTEST_PART:+$VMTEST_PART/}$2"; }

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

# A poll looks five times a second for its first two seconds, then once
# a second: a barrier or a condition met soon costs a fifth of a second,
# not one, and a run has hundreds of them; a long wait loads neither this
# guest (one vCPU on the debug kernel) nor the peer it asks.
POLL_FAST=10

# retry_until TIME COMMAND...: run COMMAND until it succeeds; fail once
# the clock (date +%s) has reached TIME.
retry_until() {
	local end="$1" polls=0

	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		if [ "$polls" -lt "$POLL_FAST" ]; then
			polls=$((polls + 1))
			usleep 200000
		else
			sleep 1
		fi
	done
}

# retry SECONDS COMMAND...: run COMMAND until it succeeds, for SECONDS at
# least.
retry() {
	local end

	end=$(($(date +%s) + $1 + 1))
	shift
	retry_until "$end" "$@"
}

# sleep_until TIME: sleep until the clock (date +%s) reaches TIME.
sleep_until() {
	local left

	left=$(($1 - $(date +%s)))
	[ "$left" -le 1 ] || sleep $((left - 1))
	while [ "$(date +%s)" -lt "$1" ]; do
		usleep 200000
	done
}

# The fabric tests' helpers, on domain $DOMAIN of $n nodes.
#
# on_every_node CMD...: CMD with --target set to each node in turn.
on_every_node() {
	local t=0

	while [ "$t" -lt "$n" ]; do
		"$@" --target "$t" || return 1
		t=$((t + 1))
	done
}

# word_is TARGET WORD VALUE
word_is() {
	local out

	out=$(rdmalockctl fabric-test "$DOMAIN" read --target "$1" --word "$2") || return 1
	echo "$out" >&2
	echo "$out" | grep -q " value $3\$"
}

every_word_is() {
	local t=0

	while [ "$t" -lt "$n" ]; do
		word_is "$t" "$1" "$2" || return 1
		t=$((t + 1))
	done
}

# barrier NAME [SECONDS]: wait until every node has reached NAME. Each
# node publishes the names it reached through its httpd; guests boot at
# different speeds, so peers that are not up yet are simply retried.
# Nodes listed in VMTEST_GONE (ids, space-separated) are not waited for.
# A node that passed says so in NAME.passed, for a victim (die_after).
barrier() {
	local name="$1" secs="${2:-120}"

	: >"$WWW/$name"
	peers_published "$name" "$secs" || return 1
	: >"$WWW/$name.passed"
}

# peers_published NAME SECONDS: every peer not in VMTEST_GONE publishes NAME.
peers_published() {
	local name="$1" secs="$2" p

	for p in $(peers); do
		case " ${VMTEST_GONE:-} " in *" $p "*) continue ;; esac
		retry "$secs" published_by "$p" "$name" || {
			echo "node $p did not publish $name within $secs s:" >&2
			wget -q -O /dev/null "$(peer_url "$p" "$name")"
			return 1
		}
	done
}

# published_by NODE NAME: node NODE publishes NAME.
published_by() { wget -q -O /dev/null "$(peer_url "$1" "$2")" 2>/dev/null; }

# measured_barrier NAME [SECONDS]: barrier NAME at the end of a
# measurement that nodes may still be running, which polls five times a
# second would disturb.
measured_barrier() {
	local POLL_FAST=0

	barrier "$@"
}

# die_after NAME [SECONDS [LINGER]]: the victim's last barrier, then its
# death, LINGER seconds after every peer passed NAME too. Passing a
# barrier does not mean the others saw this node reach it: one still
# asking a node that died would wait for it until its own timeout.
die_after() {
	barrier "$1" "${2:-120}" || true
	peers_published "$1.passed" "${2:-120}" || true
	sleep "${3:-0}"
	die_now
}

# die_now: report this node finished, then power off at once, with no
# clean-up: to its peers, as if the node had crashed. Printed results
# stay counted; the harness expects no more from this node.
die_now() {
	echo "# vmtest-done rc=0"
	poweroff -f
}

# domain_up NAME: every node of domain NAME, this one included, is up.
# key_file: the domain key the nodes of every scenario share, written on
# first use: the same bytes on every node.
key_file() {
	local f=/tmp/rdmalock-vmtest.key

	[ -s $f ] || printf '%s' 'rdmalock vmtest: shared domain key' >$f
	echo $f
}

# domain_up DOMAIN: every node connected and, where the module has views,
# this node a member of a view of every node: only then are locks granted.
domain_up() {
	local status

	status=$(rdmalockctl domain status "$1") || return 1
	[ "$(echo "$status" | grep -c ': up,')" -eq "$(num_nodes)" ] || return 1
	! echo "$status" | grep -q 'view: epoch' || view_full "$1"
}

load_rdmalock() { insmod /lib/rdmalock/rdmalock.ko "$@"; }

# The node's set-up, checked with the module loaded: /dev/rdmalock is
# there and closed to other users, rdmalockctl sees rxe0 ACTIVE with
# atomics and reports usage errors, every peer is reachable over the
# bridge. SMOKE_CHECKS of them.
device_is_private() {
	[ -c /dev/rdmalock ] && [ "$(stat -c %a /dev/rdmalock)" = 600 ]
}

version_matches() {
	rdmalockctl version | tee /dev/stderr | grep -q '^module ABI 1,'
}

rxe0_active_with_atomics() {
	local out

	out=$(rdmalockctl status) || return 1
	echo "$out" >&2
	echo "$out" | grep -Eq '^  rxe0 .* atomics (HCA|GLOB) ' &&
		echo "$out" | grep -A1 '^  rxe0 ' | grep -q 'port 1: ACTIVE '
}

# The tool's exit status and message for a user the device's mode 0600 keeps out.
unprivileged_refused() {
	local out rc=0

	out=$(su -s /bin/sh nobody -c 'rdmalockctl status' 2>&1) || rc=$?
	echo "$out" >&2
	[ "$rc" -eq 1 ] && echo "$out" | grep -q '^rdmalockctl: /dev/rdmalock: Permission denied'
}

usage_error_exits_2() {
	local rc=0

	rdmalockctl frobnicate || rc=$?
	[ "$rc" -eq 2 ]
}

smoke_checks() {
	local p

	tap_check "/dev/rdmalock is a character device, mode 0600" device_is_private
	tap_check "rdmalockctl version reports ABI 1" version_matches
	tap_check "rdmalockctl status: rxe0 ACTIVE with atomics" rxe0_active_with_atomics
	tap_check "an unprivileged user cannot open /dev/rdmalock" unprivileged_refused
	tap_check "rdmalockctl: an unknown command exits 2" usage_error_exits_2
	for p in $(peers); do
		tap_check "node $p reachable over the bridge" \
			retry 60 ping -c 1 -W 1 "$(node_addr "$p")"
	done
}

# shellcheck disable=SC2034 # for the scenarios that source this
SMOKE_CHECKS=$((5 + $(num_nodes) - 1))

KMEMLEAK=/sys/kernel/debug/kmemleak

# kmemleak_forget: what kmemleak suspects so far (boot, the rxe set-up)
# is not ours; only what it finds after this counts. Its own scans (a
# minute after boot, then every ten minutes) stop: tap_kmemleak scans
# when it must, and a scan takes a debug guest's vCPU for about 15 s.
kmemleak_forget() {
	[ -e $KMEMLEAK ] || return 0
	echo scan=off >$KMEMLEAK
	echo clear >$KMEMLEAK
}

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

# Torture helpers: every node runs the same torture of domain $1 at once.
# Each publishes its acquisitions per lock through its httpd; the guarded
# counter of every lock must then equal the sum over the nodes.

# torture_round DOMAIN TAG TORTURE-ARGS...: reset this node's counters,
# run the torture with the others, publish the counts. Fails on any
# violation or error the torture reports.
torture_round() {
	local dom="$1" tag="$2" locks rc=0

	shift 2
	locks=$(echo "$*" | sed -n 's/.*--locks \([0-9]*\).*/\1/p')
	rdmalockctl counters-reset "$dom" --locks "${locks:-1}" || return 1
	barrier "reset-$tag" || return 1
	rdmalockctl torture "$dom" --counts "/tmp/counts-$tag" "$@" || rc=1
	mv "/tmp/counts-$tag" "$WWW/counts-$tag" 2>/dev/null || rc=1
	barrier "done-$tag" || return 1
	return $rc
}

# torture_matrix DOMAIN ALGO: the reader-writer torture of DOMAIN on one
# lock and on 100, at each read share of READS (percent), TORTURE_MS each
# with THREADS threads a node; checked for violations and by the counters.
torture_matrix() {
	local locks read

	for locks in 1 100; do
		for read in $READS; do
			tap_check "$2 torture, $locks locks, $read% reads: no violation" \
				torture_round "$1" "$2-$locks-$read" \
				--threads "$THREADS" --duration "$TORTURE_MS" \
				--locks "$locks" --read "$read"
			tap_check "$2 torture, $locks locks, $read% reads: counters exact" \
				counters_exact "$1" "$2-$locks-$read" "$locks"
		done
	done
}

# torture_matrix_tests: how many results torture_matrix gives.
torture_matrix_tests() { echo $((2 * 2 * $(echo "$READS" | wc -w))); }

# cached_round DOMAIN TAG ARGS...: a torture round with lock caching that
# passes, where blocking callbacks came.
cached_round() {
	local dom="$1" tag="$2" rc=0

	shift 2
	torture_round "$dom" "$tag" --cache "$@" >"/tmp/out-$tag" || rc=1
	cat "/tmp/out-$tag" >&2
	[ "$rc" -eq 0 ] && grep -q '^blocked: [1-9]' "/tmp/out-$tag"
}

# deaf_round DOMAIN: with the callbacks ignored, a torture on DOMAIN
# (ALock, named locks) fails, by requests for kept locks that time out,
# and by nothing else: the negative control of cached_round.
deaf_round() {
	local out rc=0

	out=$(torture_round "$1" deaf --deaf --threads 4 --duration 7000 \
		--locks 6 --local 50 2>&1) || rc=$?
	echo "$out" >&2
	[ "$rc" -ne 0 ] && echo "$out" | grep -q '^violations: 0$' &&
		echo "$out" | grep -q '^errors: [1-9]' &&
		echo "$out" | grep -q '^first_error: Connection timed out$'
}

# torture_pair ROUND WHAT DOMAIN TAG LOCKS ARGS...: a round of ROUND
# (torture_round, cached_round or convert_round) on LOCKS named locks of
# DOMAIN, which checks WHAT, then its counters.
torture_pair() {
	local round="$1" what="$2" dom="$3" tag="$4" locks="$5" kind=torture

	shift 5
	[ "$round" = torture_round ] || kind="caching torture"
	tap_check "$dom $kind on $locks named locks: $what" \
		"$round" "$dom" "$tag" --threads 4 --duration "$TORTURE_MS" \
		--locks "$locks" "$@"
	tap_check "$dom $kind on $locks named locks: counters exact" \
		counters_exact "$dom" "$tag" "$locks"
}

# nodes_sum TAG VALUE: VALUE summed over the nodes, each giving its own.
nodes_sum() {
	local p n sum="${2:-0}"

	echo "$sum" >"$WWW/value-$1"
	barrier "sum-$1" || return 1
	for p in $(peers); do
		n=$(wget -q -O - "$(peer_url "$p" "value-$1")") || return 1
		sum=$((sum + ${n:-0}))
	done
	echo "$1 summed over the nodes: $sum" >&2
	echo "$sum"
}

# convert_round DOMAIN TAG ARGS...: lock caching with conversions, some
# locks converted down (on some node: a node may have too few).
convert_round() {
	local rc=0 sum

	cached_round "$@" --convert || rc=1
	sum=$(nodes_sum "$2" "$(sed -n 's/^converted: //p' "/tmp/out-$2")") || rc=1
	[ "$rc" -eq 0 ] && [ "$sum" -gt 0 ]
}

# async_round DOMAIN: lock caching on 6 named ALock locks of DOMAIN with
# asynchronous requests, some cancelled. A node whose few requests were
# all granted before their cancels is no fault: the cancels are counted
# over the cluster. Its counters are those of tag "async".
async_round() {
	local rc=0 sum

	cached_round "$1" async --async --threads 4 \
		--duration $((2 * TORTURE_MS)) --locks 6 --local 50 || rc=1
	sum=$(nodes_sum async "$(sed -n 's/^cancelled: //p' /tmp/out-async)") || rc=1
	[ "$rc" -eq 0 ] && [ "$sum" -gt 0 ]
}

# gap_round DOMAIN: on ShiftLock's named locks of DOMAIN, conversions that
# let go are caught: violations, summed over the nodes, in one round or,
# where a slow guest converted too few locks to see one, in up to two
# more (every node sees the same sums). The negative control of
# convert_round.
gap_round() {
	local i=0 out sum=0

	while [ "$i" -lt 3 ] && [ "$sum" -eq 0 ]; do
		out=$(torture_round "$1" "gap$i" --convert-gap --threads 4 \
			--duration $((2 * TORTURE_MS)) --locks 6 --local 50 --read 50 2>&1)
		echo "$out" >&2
		sum=$(nodes_sum "gap$i" "$(echo "$out" | sed -n 's/^violations: //p')") ||
			return 1
		i=$((i + 1))
	done
	[ "$sum" -gt 0 ]
}

# set_idle MS: a node references a name its handles no longer use for MS
# more (module parameter names_idle_ms); a name nobody references loses
# its slot, and its LVB with it.
set_idle() { echo "$1" >/sys/module/rdmalock/parameters/names_idle_ms; }

# lockcache_rounds ALOCK-DOMAIN SHIFTLOCK-DOMAIN: the lock-caching
# tortures on 6 named locks of each domain, nine checks: ALock's and
# ShiftLock's caching rounds, asynchronous requests, conversions, and the
# negative control of the callbacks ignored. That of the conversions,
# gap_round, takes no path of its own: the stock run's alock has it.
lockcache_rounds() {
	torture_pair cached_round "no violation, callbacks heard" "$1" cache-alock 6 \
		--local 50
	torture_pair cached_round "no violation, callbacks heard" "$2" cache-shift 6 \
		--local 50 --read 50
	tap_check "caching torture with async requests: no violation, some cancelled in the cluster" \
		async_round "$1"
	tap_check "caching torture with async requests: counters exact" \
		counters_exact "$1" async 6
	torture_pair convert_round "no violation, callbacks heard, locks converted down" \
		"$2" convert 6 --local 50 --read 50 --duration $((2 * TORTURE_MS))
	tap_check "with the callbacks ignored, requests for kept locks time out" \
		deaf_round "$1"
}

# Lock values: rdmalockctl lock --value prints
#   value: token T, lvb valid: TEXT  (or "lvb not valid: TEXT")
token_of() { sed -n 's/^value: token \([0-9]*\),.*/\1/p'; }

# doomed_hold DOMAIN ID: hold ID exclusive, with an LVB ("doomed-after")
# to write back at a release that never comes, for the holder dies; its
# grant's token is published as doomed-token.
doomed_hold() {
	hold_lock doomed "$1" "$2" --lvb doomed-after
	hold_started doomed 30 && token_of </tmp/hold-doomed.out >"$WWW/doomed-token" &&
		[ -s "$WWW/doomed-token" ]
}

# value_after DOMAIN ID FILE LINE [LOCK-OPTIONS...]: an exclusive lock of
# ID prints a value line that is LINE (a grep pattern), with a token
# above the one in FILE.
value_after() {
	local dom="$1" id="$2" line="$4" out t t0

	t0=$(cat "$3")
	shift 4
	out=$(rdmalockctl lock "$dom" "$id" --value "$@" -- true) || return 1
	echo "$out" >&2
	t=$(echo "$out" | token_of)
	echo "token before $t0, now $t" >&2
	echo "$out" | grep -qx "$line" && [ -n "$t0" ] && [ "$t" -gt "$t0" ]
}

# counters_exact DOMAIN TAG LOCKS: every lock homed here has a guarded
# counter equal to its acquisitions summed over every node's published
# counts (nodes in VMTEST_GONE are not asked).
counters_exact() {
	local dom="$1" tag="$2" locks="$3" p

	cp "$WWW/counts-$tag" "/tmp/all-$tag"
	for p in $(peers); do
		case " ${VMTEST_GONE:-} " in *" $p "*) continue ;; esac
		wget -q -O - "$(peer_url "$p" "counts-$tag")" >>"/tmp/all-$tag" ||
			return 1
	done
	rdmalockctl counters "$dom" --locks "$locks" --counts "/tmp/ctr-$tag" || return 1
	awk -v n="$(num_nodes)" -v self="$VMTEST_NODE" '
		FNR == NR { want[$1] += $2; next }
		$1 % n == self {
			checked++
			if ($2 != want[$1]) {
				printf "lock %s: counter %s, acquisitions %s\n", $1, $2, want[$1]
				bad++
			}
		}
		END { printf "%d locks homed here checked, %d wrong\n", checked, bad; exit bad > 0 }' \
		"/tmp/all-$tag" "/tmp/ctr-$tag"
}

# verbs_posted DOMAIN: "VERB COUNT" for every verb this node posted, over
# all peers.
verbs_posted() {
	rdmalockctl domain status "$1" |
		awk '$2 == "posted" { s[$1] += $3 } END { for (v in s) print v, s[v] }'
}

# verb_delta BEFORE AFTER VERB: how many more VERB AFTER has.
verb_delta() {
	local a b

	a=$(echo "$1" | awk -v v="$3" '$1 == v { print $2 }')
	b=$(echo "$2" | awk -v v="$3" '$1 == v { print $2 }')
	echo $((${b:-0} - ${a:-0}))
}

# bench_lease ALGO: ShiftLock's lease in benchmarks. Its default, 10 ms,
# is the paper's, for hardware NICs; under TCG a message or a work item
# can take that long, and a holder whose lease ran out leaves its lock to
# be reset. Any other algorithm has none.
bench_lease() {
	[ "$1" != shiftlock ] || echo "--lease-ms 500"
}

# The algorithms of create_lock_domains, lock_domains_up and _full.
: "${LOCK_ALGOS:=alock cas mcs}"

# create_lock_domains [LOCKS-PER-NODE]: this node joins dom-ALGO for each
# of LOCK_ALGOS (ports from 7201, 64 locks per node), as the alock
# scenario uses them; given a table size, dom-shiftlock too (the next
# port), all of that size, as the bench scenario uses them.
create_lock_domains() {
	local algo port=7201

	for algo in $LOCK_ALGOS ${1:+shiftlock}; do
		# shellcheck disable=SC2046 # no lease is no word
		rdmalockctl domain create "dom-$algo" --node-id "$VMTEST_NODE" \
			--nodes "$VMTEST_NODES" --key-file "$(key_file)" \
			--algo "$algo" --port "$port" \
			--locks-per-node "${1:-64}" $(bench_lease "$algo") || return 1
		port=$((port + 1))
	done
}

lock_domains_up() {
	local algo

	for algo in $LOCK_ALGOS; do
		domain_up "dom-$algo" || return 1
	done
	! rdmalockctl domain status dom-shiftlock >/dev/null 2>&1 ||
		domain_up dom-shiftlock
}

# destroy_lock_domains [ALGO...]: this node leaves what create_lock_domains
# made, dom-shiftlock where it exists, and dom-ALGO for each ALGO given.
destroy_lock_domains() {
	local algo

	for algo in $LOCK_ALGOS "$@"; do
		rdmalockctl domain destroy "dom-$algo" || return 1
	done
	! rdmalockctl domain status dom-shiftlock >/dev/null 2>&1 ||
		rdmalockctl domain destroy dom-shiftlock
}

# Membership views. rdmalockctl domain status prints a domain's view as
#   view: epoch E, members 0,1,2, coordinator C; this node: member; N view changes, F fences, lease L ms
# (members "none" when empty; this node: member, changing or out).
#
# view_line DOMAIN: that line.
view_line() { rdmalockctl domain status "$1" | grep 'view: epoch'; }

# On a view line on stdin: its epoch, its members ("0,1,2"), this node's
# state, this node's fences, the views it committed.
epoch_of() { sed -n 's/.*view: epoch \([0-9]*\),.*/\1/p'; }
members_of() { sed -n 's/.*, members \([^ ]*\), coordinator .*/\1/p'; }
state_of() { sed -n 's/.*; this node: \([a-z]*\);.*/\1/p'; }
fences_of() { sed -n 's/.*[ ,]\([0-9][0-9]*\) fences*,.*/\1/p'; }
view_changes_of() { sed -n 's/.*; \([0-9]*\) view changes*,.*/\1/p'; }

# count_view_changes DOMAIN TAG: remember DOMAIN's view changes so far.
count_view_changes() {
	view_line "$1" | view_changes_of >"/tmp/view-changes-$2-$1"
}

# view_changes_since DOMAIN TAG N: DOMAIN committed exactly N views here
# since count_view_changes DOMAIN TAG.
view_changes_since() {
	local before now

	before=$(cat "/tmp/view-changes-$2-$1") || return 1
	now=$(view_line "$1" | view_changes_of) || return 1
	echo "$1: $((now - before)) view changes since $2, $3 expected" >&2
	[ $((now - before)) -eq "$3" ]
}

# all_nodes: every node's id, as a view lists its members ("0,1,2").
all_nodes() { seq 0 $(($(num_nodes) - 1)) | tr '\n' , | sed 's/,$//'; }

# view_is DOMAIN MEMBERS: this node is a member of DOMAIN's view, whose
# members are exactly MEMBERS ("0,1").
view_is() {
	local line

	line=$(view_line "$1") || return 1
	echo "$1: $line" >&2
	[ "$(echo "$line" | members_of)" = "$2" ] &&
		[ "$(echo "$line" | state_of)" = member ]
}

# view_full DOMAIN: this node is a member of a view of every node.
view_full() { view_is "$1" "$(all_nodes)"; }

# fenced DOMAIN [FENCES]: this node is out of DOMAIN's view, having
# fenced itself: more than FENCES times (0 by default) so far.
fenced() {
	local line

	line=$(view_line "$1") || return 1
	echo "$1: $line" >&2
	[ "$(echo "$line" | state_of)" = out ] &&
		[ "$(echo "$line" | fences_of)" -gt "${2:-0}" ]
}

# lock_domains_full: lock_domains_up, and this node a member of a full
# view of each of those domains.
lock_domains_full() {
	local d

	lock_domains_up || return 1
	for d in $LOCK_ALGOS; do
		view_full "dom-$d" || return 1
	done
	! rdmalockctl domain status dom-shiftlock >/dev/null 2>&1 ||
		view_full dom-shiftlock
}

# The fault injection of a debug kernel (Documentation/fabric.rst).
FAULTS=/sys/kernel/debug/rdmalock/fault

# fault NAME KNOB=VALUE...: set knobs of fault NAME.
fault() {
	local name="$1" kv

	shift
	for kv in "$@"; do
		echo "${kv#*=}" >"$FAULTS/$name/${kv%%=*}" || return 1
	done
}

# Every fault off, and its filters back to "everything".
faults_off() {
	local d f

	for d in "$FAULTS"/*/; do
		echo 0 >"$d/probability" || return 1
		for f in nodes verbs types; do
			[ ! -e "$d/$f" ] || echo 0xffffffff >"$d/$f" || return 1
		done
	done
}

injected() { cat "$FAULTS/$1/injected"; }

# dlmprobe_convert MODE: rdmalock_dlmprobe.ko (tools/testing/vm/dlmprobe/)
# converts its lock to DLM mode MODE (NL 0, CR 1, CW 2, PR 3, PW 4, EX 5)
# and prints the sb_status its ast read.
DLMPROBE=/sys/module/rdmalock_dlmprobe/parameters
dlmprobe_convert() { echo "$1" >$DLMPROBE/convert && cat $DLMPROBE/status; }

# Holders and waiters in the background, each named by a TAG; their
# output and exit status are in /tmp/hold-TAG.* and /tmp/wait-TAG.*.
#
# hold_lock TAG DOMAIN ID [LOCK-OPTIONS...]: take lock ID of DOMAIN and
# hold it until hold_end TAG (or for HOLD_MAX seconds, 600 by default).
hold_lock() {
	local tag="$1" f="/tmp/hold-$1"

	shift
	rm -f "$f.out" "$f.rc" "$f.release"
	{
		# rdmalockctl lock holds until the end of its input.
		(until [ -e "$f.release" ]; do usleep 500000; done) |
			timeout "${HOLD_MAX:-600}" rdmalockctl lock "$@" >"$f.out" 2>&1
		echo $? >"$f.rc"
	} &
}

# hold_started TAG SECONDS: holder TAG got its lock within SECONDS; if
# not, it is told to end.
hold_started() {
	local f="/tmp/hold-$1"

	retry "$2" grep -qs '^locked ' "$f.out" && return 0
	: >"$f.release"
	cat "$f.out" >&2
	return 1
}

# hold_let_go TAG: tell holder TAG to unlock, without waiting for it.
hold_let_go() { : >"/tmp/hold-$1.release"; }

# hold_end TAG: tell holder TAG to unlock, wait (60 s at most) for it to
# exit, print its output; its exit status.
hold_end() {
	local f="/tmp/hold-$1"

	hold_let_go "$1"
	retry 60 test -s "$f.rc" || { echo "holder $1 did not end" >&2; return 1; }
	echo "holder $1, exit status $(cat "$f.rc"):" >&2
	cat "$f.out" >&2
	return "$(cat "$f.rc")"
}

# hold_unlocked TAG: holder TAG ended, and its unlock returned 0.
hold_unlocked() { hold_end "$1" && grep -q '^unlocked ' "/tmp/hold-$1.out"; }

# abandoned_of DOMAIN: acquisitions of this node whose callers left them.
abandoned_of() {
	sed -n 's/^abandoned: //p' "/sys/kernel/debug/rdmalock/$1/locks"
}

# abandoned_grew DOMAIN BEFORE BY: since abandoned_of DOMAIN said BEFORE,
# exactly BY more acquisitions were left to the workqueue.
abandoned_grew() {
	local now

	now=$(abandoned_of "$1")
	echo "$1 abandoned: $2 before, ${now:-?} now" >&2
	[ "$now" = $(($2 + $3)) ]
}

# descs_in_use DOMAIN: this node's queue descriptors in use.
descs_in_use() {
	sed -n 's/^descriptors: \([0-9]*\) in use.*/\1/p' \
		"/sys/kernel/debug/rdmalock/$1/locks"
}

# descs_all_free DOMAIN: no descriptor of this node in use, none lost.
descs_all_free() {
	grep -q 'descriptors: 0 in use of [0-9]*, 0 lost' \
		"/sys/kernel/debug/rdmalock/$1/locks"
}

# lock_times_out DOMAIN ID MS [ARG...]: a lock of ID with a timeout of MS
# (and rdmalockctl lock's ARGs) fails with ETIMEDOUT.
lock_times_out() {
	local dom="$1" id="$2" ms="$3" out rc=0

	shift 3
	out=$(timeout 30 rdmalockctl lock "$dom" "$id" --timeout "$ms" "$@" -- true 2>&1) || rc=$?
	echo "$out" >&2
	[ "$rc" -eq 1 ] && echo "$out" | grep -q 'Connection timed out'
}

# lock_after_reset DOMAIN ID [MIN-RESETS]: take the write lock ID of a
# domain with lease recovery, trying again while it is reset under us
# (ECONNRESET) or granted past its lease (ETIME: no grant, as a node
# slowed down by the debug kernel may see); prints how long that took,
# and fails if it saw fewer than MIN-RESETS resets.
lock_after_reset() {
	local start end tries=0 resets=0 out

	start=$(date +%s)
	until out=$(rdmalockctl lock "$1" "$2" -- true 2>&1); do
		echo "$out" >&2
		case $out in
		*'Connection reset'*) resets=$((resets + 1)) ;;
		*'Timer expired'*) ;;
		*) return 1 ;;
		esac
		tries=$((tries + 1))
		[ "$tries" -lt 20 ] || return 1
	done
	end=$(date +%s)
	echo "granted after $((end - start)) s, $resets resets and $((tries - resets)) grants past the lease" >&2
	[ "$resets" -ge "${3:-0}" ]
}

# hold_unlock_failed TAG STRERROR: holder TAG ended, its unlock failing
# with STRERROR.
hold_unlock_failed() {
	local rc=0

	hold_end "$1" || rc=$?
	[ "$rc" -eq 1 ] && grep -q "^rdmalockctl: unlock: $2" "/tmp/hold-$1.out"
}

# hold_timed_out TAG: its unlock failed with ETIME: it held past its lease
# (lease recovery), and the lock was left to others.
hold_timed_out() { hold_unlock_failed "$1" 'Timer expired'; }

# hold_lost TAG: its unlock failed with ENOLCK: the lock had been taken
# from this node.
hold_lost() { hold_unlock_failed "$1" 'No locks available'; }

# grant_note DOMAIN: what a waiter notes while it holds its lock, briefly,
# since others may wait behind it: when, and this node's view of DOMAIN.
grant_note() {
	echo "granted at $(date +%s), uptime $(cut -d ' ' -f 1 /proc/uptime)"
	view_line "$1"
}

# reach_note NODE: whether node NODE answers a ping (within 1 s).
reach_note() {
	if ping -c 1 -W 1 "$(node_addr "$1")" >/dev/null 2>&1; then
		echo "node $1 reachable"
	else
		echo "node $1 unreachable"
	fi
}

# wait_lock TAG DOMAIN ID SECONDS NODE: in the background, wait up to
# SECONDS for lock ID of DOMAIN; once granted, note it (grant_note) and
# unlock; then note whether node NODE answers (reach_note). On the debug
# kernel a ping of a node cut off, inside the hold, made the holder keep
# the lock for seconds, which the next waiter had to wait out.
wait_lock() {
	local f="/tmp/wait-$1" dom="$2" id="$3" secs="$4" node="$5"

	rm -f "$f.out" "$f.rc"
	# shellcheck disable=SC2016 # expanded by the held command's sh
	{
		timeout $((secs + 30)) rdmalockctl lock "$dom" "$id" \
			--timeout $((secs * 1000)) -- \
			sh -c '. ./lib.sh && grant_note "$0"' "$dom" >"$f.out" 2>&1
		rc=$?
		reach_note "$node" >>"$f.out"
		echo $rc >"$f.rc"
	} &
}

# waited TAG SECONDS: waiter TAG ended within SECONDS; its output is
# printed; its exit status.
waited() {
	local f="/tmp/wait-$1"

	retry "$2" test -s "$f.rc" || { echo "waiter $1 did not end" >&2; return 1; }
	echo "waiter $1, exit status $(cat "$f.rc"):" >&2
	cat "$f.out" >&2
	return "$(cat "$f.rc")"
}

# Benchmarks (the bench and eval scenarios).
#
# start_barrier NAME: barrier NAME, polled every 20 ms rather than every
# second, so that the nodes of a run start within tens of milliseconds
# of each other; gives up after two minutes, as barrier does.
start_barrier() {
	local p tries

	: >"$WWW/$1"
	for p in $(peers); do
		tries=6000
		until published_by "$p" "$1"; do
			tries=$((tries - 1))
			[ "$tries" -gt 0 ] || return 1
			usleep 20000
		done
	done
}

# bench_node_ids: every node's id, space-separated.
bench_node_ids() { all_nodes | tr , ' '; }

# bench_on NODES ALGO RUN BENCH-ARGS...: one run of "rdmalockctl bench"
# on dom-ALGO by the nodes in NODES (ids, space-separated) while the
# others wait; each runner publishes its results as bench-ALGO-RUN. A
# runner whose run failed still meets the others at its end, so that
# they go on to the next run together.
bench_on() {
	local nodes="$1" algo="$2" tag="bench-$2-$3" rc=0

	shift 3
	start_barrier "start-$tag" || return 1
	case " $nodes " in
	*" $VMTEST_NODE "*)
		if rdmalockctl bench "dom-$algo" "$@" >"/tmp/$tag"; then
			cat "/tmp/$tag" >&2
			mv "/tmp/$tag" "$WWW/$tag"
		else
			rc=1
		fi
		;;
	esac
	measured_barrier "done-$tag" || return 1
	return $rc
}

# bench_gather NAME [NODES]: the published NAME of every node (or of
# those in NODES), one after the other, into /tmp/gathered-NAME, whose
# name it prints; fails when one is missing.
bench_gather() {
	local p f="/tmp/gathered-$1"

	: >"$f"
	for p in ${2:-$(bench_node_ids)}; do
		wget -q -O - "$(peer_url "$p" "$1")" >>"$f" || return 1
	done
	echo "$f"
}

# bench_totals: of every node's results of one run (bench_gather), one
# line of 16 fields: acquisitions per second, summed; the worst node's
# p50, p99 and p99.9 in us; READ, WRITE, CAS, FAA, WRITE_IMM and SEND
# per acquisition, failed CAS and the part of them posted by releases,
# and requests delegated to a home node, per acquisition over every
# node's; CPU %, summed; each node's share of the acquisitions in %, by
# node id, joined by "/"; and fairness, the smallest of a node's share
# over its share of the threads (1 when every node got its threads'
# share).
bench_totals() {
	awk -F': ' '
		$1 == "threads" { node++; thr[node] = $2; threads += $2 }
		$1 == "acquisitions" { acq += $2; a = $2; nacq[node] = $2 }
		$1 == "throughput_per_s" { tput += $2 }
		$1 == "lat_p50_us" && $2 > p50 { p50 = $2 }
		$1 == "lat_p99_us" && $2 > p99 { p99 = $2 }
		$1 == "lat_p999_us" && $2 > p999 { p999 = $2 }
		$1 ~ /^verbs_per_acq_/ { v[substr($1, 15)] += $2 * a }
		$1 == "cas_failed_per_acq" { fail += $2 * a }
		$1 == "cas_failed_release_per_acq" { relfail += $2 * a }
		$1 == "delegated_per_acq" { deleg += $2 * a }
		$1 == "cpu_pct" { cpu += $2 }
		END {
			if (!acq)
				acq = 1
			fair = -1
			for (i = 1; i <= node; i++) {
				share = nacq[i] / acq
				shares = shares (i > 1 ? "/" : "") sprintf("%.0f", 100 * share)
				if (thr[i] && (fair < 0 || share * threads / thr[i] < fair))
					fair = share * threads / thr[i]
			}
			printf "%.1f %.1f %.1f %.1f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.1f %s %.3f\n",
				tput, p50, p99, p999, v["read"] / acq, v["write"] / acq,
				v["cas"] / acq, v["faa"] / acq, v["write_imm"] / acq,
				v["send"] / acq, fail / acq, relfail / acq, deleg / acq,
				cpu, shares, fair
		}'
}

# Tracing the steps of every acquisition and release (the
# rdmalock:rdmalock_lock_step tracepoint; enum rdmalock_step in locks.h).
TRACING=/sys/kernel/tracing
STEP_EVENT=$TRACING/events/rdmalock/rdmalock_lock_step

# steps_on: an empty trace buffer, recording the steps from now on.
# The event, once enabled, stays so for the boot: steps_off stops only
# the recording. Each enabling and disabling patches the kernel's text on
# every CPU, and once a disabling waited for ever on a vCPU that had
# stopped (TCG, a loaded host).
steps_on() {
	[ -d "$TRACING/events" ] || mount -t tracefs nodev "$TRACING" || return 1
	# One clock for every CPU: an acquisition's steps come from several.
	echo 0 >"$TRACING/tracing_on" &&
		echo mono >"$TRACING/trace_clock" &&
		echo 4096 >"$TRACING/buffer_size_kb" &&
		: >"$TRACING/trace" &&
		echo 1 >"$STEP_EVENT/enable" &&
		echo 1 >"$TRACING/tracing_on"
}

steps_off() { echo 0 >"$TRACING/tracing_on"; }

# steps_breakdown: of the trace buffer's steps, a "FROM>TO SUM-US
# COUNT" line for each pair of consecutive steps of an acquisition (its
# descriptor and generation), and "acquisitions N" and "releases N".
# The steps of an acquisition count once it holds the lock, those of
# its release once it is over: one that failed or restarted (a new
# descriptor) counts nothing.
steps_breakdown() {
	awk '
		{
			t = -1
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^[0-9]+\.[0-9]+:$/)
					t = substr($i, 1, length($i) - 1) * 1000000
				else if ($i ~ /^desc=/)
					k = substr($i, 6)
				else if ($i ~ /^gen=/)
					k = k "." substr($i, 5)
				else if ($i ~ /^step=/)
					s = substr($i, 6)
			}
		}
		t < 0 || $0 !~ /rdmalock_lock_step:/ { next }
		s == "ask" { chain[k] = "" }
		s != "ask" && k in last {
			chain[k] = chain[k] " " last[k] ">" s "=" (t - at[k])
		}
		{ last[k] = s; at[k] = t }
		s == "held" || s == "released" {
			n = split(chain[k], c, " ")
			for (i = 1; i <= n; i++) {
				split(c[i], tv, "=")
				sum[tv[1]] += tv[2]
				cnt[tv[1]]++
			}
			chain[k] = ""
			if (s == "held")
				acq++
			else
				rel++
		}
		s == "released" { delete last[k]; delete chain[k] }
		END {
			printf "acquisitions %d\nreleases %d\n", acq, rel
			for (tr in sum)
				printf "%s %.1f %d\n", tr, sum[tr], cnt[tr]
		}' "$TRACING/trace"
}

# bench_traced NODES ALGO RUN BENCH-ARGS...: bench_on, its runners
# tracing the steps; each publishes their breakdown as steps-ALGO-RUN,
# whole, before any node goes on.
bench_traced() {
	local nodes="$1" algo="$2" run="$3" mine='' f="steps-$2-$3"

	shift 3
	case " $nodes " in *" $VMTEST_NODE "*) mine=1 ;; esac
	if [ -n "$mine" ]; then
		steps_on || return 1
	fi
	bench_on "$nodes" "$algo" "$run" "$@" || return 1
	if [ -n "$mine" ]; then
		steps_off && steps_breakdown >"/tmp/$f" && mv "/tmp/$f" "$WWW/$f" ||
			return 1
	fi
	# A barrier's own name is a file: not the one just published.
	barrier "published-$f"
}

# steps_phases NODES ALGO RUN: the breakdown of run RUN's acquisitions,
# over the nodes of NODES: "PHASE MEAN-US" lines, where the phase of a
# step is the time from the step before it (whichever it was) to it,
# summed over the acquisitions (or releases) and divided by their
# number: to_queued to_linked to_granted to_woken to_held, which add up
# to the mean acquisition; holding (held to release); to_handover and
# to_released, which add up to the mean release; and "acquisitions N".
steps_phases() {
	local f

	f=$(bench_gather "steps-$2-$3" "$1") || return 1
	awk '
		$1 == "acquisitions" { acq += $2; next }
		$1 == "releases" { rel += $2; next }
		{ split($1, ft, ">"); to[ft[2]] += $2; if ($1 == "held>release") hold += $2 }
		END {
			if (!acq || !rel)
				exit 1
			n = split("queued linked granted woken held", a, " ")
			for (i = 1; i <= n; i++)
				printf "to_%s %.1f\n", a[i], to[a[i]] / acq
			printf "holding %.1f\n", hold / rel
			printf "to_handover %.1f\nto_released %.1f\n", to["handover"] / rel,
				to["released"] / rel
			printf "acquisitions %d\n", acq
		}' "$f"
}

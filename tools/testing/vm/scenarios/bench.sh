#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench: node 0 gathers every node's results into four tables, printed
# as TAP comments ("# |"), which "make bench" shows:
#
# - the floors, which node 0 measures on dom-cas toward node 1 before
#   the algorithms run and after them: one RDMA CAS to node 1, one to
#   node 0 through its loopback, a message to node 1 and its answer, a
#   CPU CAS (median and 99th percentile of FLOOR_SAMPLES each; see
#   "rdmalockctl floor");
# - for each algorithm, its floors, measured the same way on its own
#   domain just before its runs (ALGO_FLOOR_SAMPLES each), and its
#   uncontended acquisition and its hand-over, each beside its multiple
#   of its floor: node 0's median
#   acquisition with one thread while the other nodes idle, of a lock
#   homed on node 0 (against the loopback and the CPU CAS) and of locks
#   homed on the others (against the remote CAS); and the hand-over
#   interval, while one thread on node 1 and one on node 2 contend for a
#   lock homed on node 0 with empty critical sections: their run's
#   length over their acquisitions summed, the mean time from one grant
#   to the next while the lock is never free, a holder's release
#   included (against the message's round trip). A lock that grants
#   twice in a row to one node counts that as a hand-over too;
#
# and then, every node running BENCH_THREADS threads at once:
#
# - alock against the cas and mcs baselines on 20 locks, at 95% and 50%
#   local, exclusive only;
# - shiftlock against alock, cas and mcs on ShiftLock's microbenchmarks:
#   Zipf 0.99 over 1000 locks at 50% and 95% reads, and one hot lock at
#   50% reads. alock, cas and mcs grant reads as writes. shiftlock's
#   writers ask the home node to change the queue's tail (the default,
#   --writer-cas 0); shiftlock-cas1's post one CAS of their own first
#   (--writer-cas 1); shiftlock-cas's never ask (--writer-cas only): the
#   plain CAS loop of the spec's §2.9. dslr runs them too: its tickets
#   serve readers together, and its p99.9 beside cas's shows what FIFO
#   tickets do to the tail under contention.
#
# Throughput is summed over the nodes; latency percentiles are the worst
# node's; verbs (all of which arrive at some lock's home node) and failed
# CAS per acquisition are over all nodes' acquisitions (heartbeats are in
# "send"); "relcas" is the part of "badcas" posted by releases, "deleg"
# the writers' requests to a home node (both per acquisition);
# CPU is the threads' CPU time over the run's length, summed; "shares"
# each node's share of the acquisitions, by node id, and "fair" the
# smallest of a node's share over its share of the threads (1 when every
# node got as much as its threads' share).
# Only ratios between rows mean anything: the NIC is software and the
# CPUs are emulated.
. ./lib.sh

LOCK_ALGOS="alock cas mcs dslr"
: "${BENCH_MS:=5000}"
: "${BENCH_THREADS:=4}"
: "${LAT_MS:=3000}"
: "${FLOOR_SAMPLES:=1000}"
: "${ALGO_FLOOR_SAMPLES:=300}"
n=$(num_nodes)
ALL_NODES=$(seq 0 $((n - 1)) | tr '\n' ' ')

ctl() { rdmalockctl "$@"; }

# start_barrier NAME: barrier NAME, polled every 20 ms rather than every
# second, so that the nodes of a run start within tens of milliseconds
# of each other; gives up after two minutes, as barrier does.
start_barrier() {
	local p tries

	: >"$WWW/$1"
	for p in $(peers); do
		tries=6000
		until wget -q -O /dev/null "$(peer_url "$p" "$1")"; do
			tries=$((tries - 1))
			[ "$tries" -gt 0 ] || return 1
			usleep 20000
		done
	done
}

# bench_on NODES ALGO WORKLOAD BENCH-ARGS...: one run by the nodes in
# NODES (ids, space-separated) while the others wait; each runner's
# results are published as bench-ALGO-WORKLOAD.
bench_on() {
	local nodes="$1" algo="$2" tag="bench-$2-$3"

	shift 3
	start_barrier "start-$tag" || return 1
	case " $nodes " in
	*" $VMTEST_NODE "*)
		ctl bench "dom-$algo" "$@" >"/tmp/$tag" || return 1
		cat "/tmp/$tag" >&2
		mv "/tmp/$tag" "$WWW/$tag"
		;;
	esac
	barrier "done-$tag"
}

# bench_one ALGO WORKLOAD BENCH-ARGS...: a run on every node.
bench_one() {
	local algo="$1" load="$2"

	shift 2
	bench_on "$ALL_NODES" "$algo" "$load" --threads "$BENCH_THREADS" \
		--duration "$BENCH_MS" "$@"
}

# bench_latency ALGO: the floors on ALGO's domain, then the runs set
# against them, at once: the host's load, which moves the floors by half
# between the first and the last, moves little in between. Locks 0, 1
# and 2 are homed on nodes 0, 1 and 2: --local 100 takes lock 0 alone,
# and --local 0 locks 1 and 2.
bench_latency() {
	floor_run "$1" "$1" "$ALGO_FLOOR_SAMPLES" &&
		bench_on 0 "$1" solo-local --threads 1 --duration "$LAT_MS" \
			--locks 3 --local 100 &&
		bench_on 0 "$1" solo-remote --threads 1 --duration "$LAT_MS" \
			--locks 3 --local 0 &&
		bench_on "1 2" "$1" handover --threads 1 --duration "$LAT_MS" \
			--locks 1
}

# floor_run ALGO TAG SAMPLES: node 0 measures the floors on dom-ALGO
# toward node 1, published as floor-TAG.
floor_run() {
	local tag="floor-$2"

	start_barrier "start-$tag" || return 1
	if [ "$VMTEST_NODE" -eq 0 ]; then
		ctl floor "dom-$1" --peer 1 --samples "$3" >"/tmp/$tag" || return 1
		cat "/tmp/$tag" >&2
		mv "/tmp/$tag" "$WWW/$tag"
	fi
	barrier "done-$tag"
}

# On node 0: the floors on dom-cas before and after every run, side by side.
floor_table() {
	echo "# | floor (node 0 to node 1, $FLOOR_SAMPLES samples) | p50 us before | p99 us before | p50 us after | p99 us after |"
	awk 'FNR == 1 { next }
		NR == FNR { b50[$1] = $2; b99[$1] = $3; name[++k] = $1; next }
		{ a50[$1] = $2; a99[$1] = $3 }
		END {
			for (i = 1; i <= k; i++)
				printf "# | %-41s | %13.3f | %13.3f | %12.3f | %12.3f |\n",
					name[i], b50[name[i]], b99[name[i]],
					a50[name[i]], a99[name[i]]
		}' "$WWW/floor-before" "$WWW/floor-after"
}

ratio_head() {
	echo "# | algo           | floors us: rem/lo/msg | local us | x lo cas | x cpu cas | remote us | x rem cas | hand-over us | x message |"
}

# ratio_row ALGO: ALGO's floors (medians), node 0's acquisitions alone,
# nodes 1 and 2's hand-overs, and their multiples of those floors.
ratio_row() {
	local algo="$1" p

	{
		sed 's/^/floor /' "$WWW/floor-$algo"
		sed 's/^/local /' "$WWW/bench-$algo-solo-local"
		sed 's/^/remote /' "$WWW/bench-$algo-solo-remote"
		for p in 1 2; do
			wget -q -O - "$(peer_url "$p" "bench-$algo-handover")" ||
				return 1
		done | sed 's/^/handover /'
	} | awk -v algo="$algo" '
		function x(a, b) { return b > 0 ? a / b : 0 }
		$1 == "floor" { f[$2] = $3 }
		$1 == "local" && $2 == "lat_p50_us:" { loc = $3 }
		$1 == "remote" && $2 == "lat_p50_us:" { rem = $3 }
		$1 == "handover" && $2 == "throughput_per_s:" { tput += $3 }
		END {
			ho = x(1e6, tput)
			floors = sprintf("%.0f/%.0f/%.0f", f["remote_cas"],
					 f["loopback_cas"], f["message"])
			printf "# | %-14s | %-21s | %8.1f | %8.2f | %9.0f | %9.1f | %9.2f | %12.1f | %9.2f |\n",
				algo, floors, loc, x(loc, f["loopback_cas"]), x(loc, f["cpu_cas"]),
				rem, x(rem, f["remote_cas"]), ho, x(ho, f["message"])
		}'
}

# table_row ALGO WORKLOAD: one row from every node's results.
table_row() {
	local tag="bench-$1-$2" p

	for p in $ALL_NODES; do
		wget -q -O - "$(peer_url "$p" "$tag")" || return 1
	done | awk -v algo="$1" -v load="$2" -F': ' '
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
			if (!acq) acq = 1
			fair = -1
			for (i = 1; i <= node; i++) {
				share = nacq[i] / acq
				shares = shares (i > 1 ? "/" : "") sprintf("%.0f", 100 * share)
				if (thr[i] && (fair < 0 || share * threads / thr[i] < fair))
					fair = share * threads / thr[i]
			}
			printf "# | %-14s | %-10s | %9.0f | %9.1f | %9.1f | %9.1f | %5.2f | %5.2f | %5.2f | %5.2f | %5.2f | %5.2f | %6.2f | %6.2f | %5.2f | %5.0f%% | %-10s | %4.2f |\n",
				algo, load, tput, p50, p99, p999, v["read"] / acq,
				v["write"] / acq, v["cas"] / acq, v["faa"] / acq,
				v["write_imm"] / acq, v["send"] / acq, fail / acq,
				relfail / acq, deleg / acq, cpu, shares, fair
		}'
}

table_head() {
	echo "# | algo           | workload   | acq/s     | p50 us    | p99 us    | p99.9 us  | read  | write | cas   | faa   | wimm  | send  | badcas | relcas | deleg | cpu    | shares %   | fair |"
}

LOCAL_LOADS="local95 local50"
PAPER_LOADS="zipf-r50 zipf-r95 hot-r50"
PAPER_ALGOS="shiftlock shiftlock-cas1 shiftlock-cas dslr alock cas mcs"

# bench_args WORKLOAD: the benchmark's arguments for it.
bench_args() {
	case $1 in
	local95) echo "--locks 20 --local 95" ;;
	local50) echo "--locks 20 --local 50" ;;
	zipf-r50) echo "--locks 1000 --zipf 0.99 --read 50" ;;
	zipf-r95) echo "--locks 1000 --zipf 0.99 --read 95" ;;
	hot-r50) echo "--locks 1 --read 50" ;;
	esac
}

print_tables() {
	local load algo

	floor_table
	echo "# |"
	ratio_head
	for algo in $PAPER_ALGOS; do
		ratio_row "$algo" || return 1
	done
	echo "# |"
	table_head
	for load in $LOCAL_LOADS; do
		for algo in alock cas mcs; do
			table_row "$algo" "$load" || return 1
		done
	done
	echo "# |"
	table_head
	for load in $PAPER_LOADS; do
		for algo in $PAPER_ALGOS; do
			table_row "$algo" "$load" || return 1
		done
	done
}

# create_shiftlock_variant NAME WRITER-CAS PORT
create_shiftlock_variant() {
	# shellcheck disable=SC2046 # the lease is two words
	rdmalockctl domain create "dom-$1" --node-id "$VMTEST_NODE" \
		--nodes "$VMTEST_NODES" --key-file "$(key_file)" --algo shiftlock --port "$3" \
		--locks-per-node 512 --writer-cas "$2" $(bench_lease shiftlock)
}

bench_domains_up() {
	lock_domains_up && domain_up dom-shiftlock-cas1 &&
		domain_up dom-shiftlock-cas
}

tap_plan 42
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "domains alock, cas, mcs, dslr and shiftlock created" create_lock_domains 512
tap_check "domain shiftlock-cas1 created" create_shiftlock_variant shiftlock-cas1 1 7206
tap_check "domain shiftlock-cas created" create_shiftlock_variant shiftlock-cas only 7207
tap_check "every node of every domain is up" retry 60 bench_domains_up
barrier up
tap_check "floors measured before" floor_run cas before "$FLOOR_SAMPLES"
for algo in $PAPER_ALGOS; do
	tap_check "bench $algo: alone, and a hand-over" bench_latency "$algo"
done
for load in $LOCAL_LOADS; do
	for algo in alock cas mcs; do
		# shellcheck disable=SC2046 # the arguments are words
		tap_check "bench $algo, $load" bench_one "$algo" "$load" $(bench_args "$load")
	done
done
for load in $PAPER_LOADS; do
	for algo in $PAPER_ALGOS; do
		# shellcheck disable=SC2046
		tap_check "bench $algo, $load" bench_one "$algo" "$load" $(bench_args "$load")
	done
done
tap_check "floors measured after" floor_run cas after "$FLOOR_SAMPLES"
if [ "$VMTEST_NODE" -eq 0 ]; then
	print_tables >/tmp/table && cat /tmp/table
fi
barrier printed
tap_check "domains destroyed, rdmalock.ko unloads" sh -c \
	"for a in alock cas mcs dslr shiftlock shiftlock-cas1 shiftlock-cas; do
	     rdmalockctl domain destroy dom-\$a || exit 1
	 done && rmmod rdmalock"

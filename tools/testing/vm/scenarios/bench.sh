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
#   interval, while HANDOVER_THREADS (2) threads on node 1 and as many on
#   node 2 contend for a lock homed on node 0 with empty critical
#   sections: their run's length over their acquisitions summed, the
#   mean time from one grant to the next while the lock is never free, a
#   holder's release included (against the message's round trip). With
#   more than one contender besides the holder, the next is mostly
#   queued already when the holder lets go, as a hand-over means. A lock
#   that grants twice in a row to one node counts that as a hand-over
#   too;
# - for each algorithm, where the time of an acquisition and of a
#   hand-over goes, from the rdmalock_lock_step tracepoint (steps_on and
#   steps_phases in lib.sh) in a second, traced, run of each: node 0's
#   remote acquisitions alone, and nodes 1 and 2's hand-overs. The time
#   to each step from the step before it, per acquisition (or release):
#   queued (the tail or word atomic), linked (the predecessor told),
#   granted (the grant arrived: the wait for it), woken (the task ran),
#   held (arbitration, polls); holding; handover (the release's work
#   before it tells the successor) and released. "rest" is the hand-over
#   interval less what the steps of a grant's receiver and of its
#   holding and release account for: the grant's trip to the next holder
#   and any time the lock lay free, no one queued yet; only for the
#   algorithms whose grant is an event (not cas and dslr, whose waiters
#   poll). Tracing slows every step a little;
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
: "${HANDOVER_THREADS:=2}"
: "${STEPS_MS:=1500}"

# bench_one ALGO WORKLOAD BENCH-ARGS...: a run on every node.
bench_one() {
	local algo="$1" load="$2"

	shift 2
	bench_on "$(bench_node_ids)" "$algo" "$load" --threads "$BENCH_THREADS" \
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
		bench_on "1 2" "$1" handover --threads "$HANDOVER_THREADS" \
			--duration "$LAT_MS" --locks 1
}

# bench_steps ALGO: bench_latency's remote and hand-over runs again,
# traced; node 0 checks that it has the steps of both.
bench_steps() {
	bench_traced 0 "$1" solo-remote-steps --threads 1 --duration "$STEPS_MS" \
		--locks 3 --local 0 &&
		bench_traced "1 2" "$1" handover-steps --threads "$HANDOVER_THREADS" \
			--duration "$STEPS_MS" --locks 1 || return 1
	[ "$VMTEST_NODE" -ne 0 ] ||
		{ steps_phases 0 "$1" solo-remote-steps && steps_phases "1 2" "$1" handover-steps; }
}

steps_head() {
	echo "# | algo           | run         | to queued | to linked | to granted | to woken | to held | = acq us | holding | to handover | to released | interval |     rest |"
}

# steps_row ALGO: the breakdown of ALGO's traced runs, in us.
steps_row() {
	local algo="$1" run nodes runs

	for run in solo-remote handover; do
		nodes=0
		[ "$run" = solo-remote ] || nodes="1 2"
		steps_phases "$nodes" "$algo" "$run-steps" >/tmp/phases &&
			runs=$(bench_gather "bench-$algo-$run-steps" "$nodes") || return 1
		cat /tmp/phases "$runs" | awk -v algo="$algo" -v run="$run" '
			$1 == "throughput_per_s:" { tput += $2; next }
			{ v[$1] = $2 }
			END {
				acq = v["to_queued"] + v["to_linked"] + v["to_granted"] +
				      v["to_woken"] + v["to_held"]
				# Without a grant step, the wait is all in to_held.
				if (run == "handover" && tput > 0 && v["to_granted"] > 0) {
					iv = sprintf("%8.1f", 1e6 / tput)
					dl = sprintf("%8.1f", 1e6 / tput - v["to_woken"] - v["to_held"] -
						     v["holding"] - v["to_handover"])
				} else {
					iv = dl = sprintf("%8s", "-")
				}
				printf "# | %-14s | %-11s | %9.1f | %9.1f | %10.1f | %8.1f | %7.1f | %8.1f | %7.1f | %11.1f | %11.1f | %s | %s |\n",
					algo, run, v["to_queued"], v["to_linked"], v["to_granted"],
					v["to_woken"], v["to_held"], acq, v["holding"],
					v["to_handover"], v["to_released"], iv, dl
			}'
	done
}

# floor_run ALGO TAG SAMPLES: node 0 measures the floors on dom-ALGO
# toward node 1, published as floor-TAG.
floor_run() {
	local tag="floor-$2"

	start_barrier "start-$tag" || return 1
	if [ "$VMTEST_NODE" -eq 0 ]; then
		rdmalockctl floor "dom-$1" --peer 1 --samples "$3" >"/tmp/$tag" || return 1
		cat "/tmp/$tag" >&2
		mv "/tmp/$tag" "$WWW/$tag"
	fi
	measured_barrier "done-$tag"
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
	local algo="$1" handovers

	handovers=$(bench_gather "bench-$algo-handover" "1 2") || return 1
	{
		sed 's/^/floor /' "$WWW/floor-$algo"
		sed 's/^/local /' "$WWW/bench-$algo-solo-local"
		sed 's/^/remote /' "$WWW/bench-$algo-solo-remote"
		sed 's/^/handover /' "$handovers"
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
	local f

	f=$(bench_gather "bench-$1-$2") || return 1
	bench_totals <"$f" | awk -v algo="$1" -v load="$2" '
		{
			printf "# | %-14s | %-10s | %9.0f | %9.1f | %9.1f | %9.1f |", algo, load, $1, $2, $3, $4
			printf " %5.2f | %5.2f | %5.2f | %5.2f | %5.2f | %5.2f |", $5, $6, $7, $8, $9, $10
			printf " %6.2f | %6.2f | %5.2f | %5.0f%% | %-10s | %4.2f |\n", $11, $12, $13, $14, $15, $16
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
	steps_head
	for algo in $PAPER_ALGOS; do
		steps_row "$algo" || return 1
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

tap_plan 49
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "domains alock, cas, mcs, dslr and shiftlock created" create_lock_domains 512
tap_check "domain shiftlock-cas1 created" create_shiftlock_variant shiftlock-cas1 1 7206
tap_check "domain shiftlock-cas created" create_shiftlock_variant shiftlock-cas only 7207
tap_check "every node of every domain is up" retry 60 bench_domains_up
barrier up
tap_check "floors measured before" floor_run cas before "$FLOOR_SAMPLES"
for algo in $PAPER_ALGOS; do
	tap_check "bench $algo: alone, and a hand-over" bench_latency "$algo"
	tap_check "bench $algo: the same, traced" bench_steps "$algo"
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
unload() { destroy_lock_domains shiftlock-cas1 shiftlock-cas && rmmod rdmalock; }
tap_check "domains destroyed, rdmalock.ko unloads" unload

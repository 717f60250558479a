#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench: every node runs the benchmark at once, and node 0 gathers every
# node's results into two tables, printed as TAP comments ("# |"), which
# "make bench" shows:
#
# - alock against the cas and mcs baselines on 20 locks, at 95% and 50%
#   local, exclusive only;
# - shiftlock against alock, cas and mcs on ShiftLock's microbenchmarks:
#   Zipf 0.99 over 1000 locks at 50% and 95% reads, and one hot lock at
#   50% reads. alock, cas and mcs grant reads as writes. shiftlock's
#   writers ask the home node to change the queue's tail (the default,
#   --writer-cas 0); shiftlock-cas1's post one CAS of their own first
#   (--writer-cas 1); shiftlock-cas's never ask (--writer-cas only): the
#   plain CAS loop of the spec's §2.9.
#
# Throughput is summed over the nodes; latency percentiles are the worst
# node's; verbs (all of which arrive at some lock's home node) and failed
# CAS per acquisition are over all nodes' acquisitions (heartbeats are in
# "send"); "relcas" is the part of "badcas" posted by releases, "deleg"
# the writers' requests to a home node (both per acquisition);
# CPU is the threads' CPU time over the run's length, summed.
# Only ratios between rows mean anything: the NIC is software and the
# CPUs are emulated.
. ./lib.sh

: "${BENCH_MS:=5000}"
: "${BENCH_THREADS:=4}"
n=$(num_nodes)

ctl() { rdmalockctl "$@"; }

# bench_one ALGO WORKLOAD BENCH-ARGS...: one run, published as
# /www/bench-ALGO-WORKLOAD.
bench_one() {
	local algo="$1" tag="bench-$1-$2"

	shift 2
	barrier "start-$tag" || return 1
	ctl bench "dom-$algo" --threads "$BENCH_THREADS" --duration "$BENCH_MS" \
		"$@" >"/tmp/$tag" || return 1
	cat "/tmp/$tag" >&2
	mv "/tmp/$tag" "/www/$tag"
	barrier "done-$tag"
}

# table_row ALGO WORKLOAD: one row from every node's results.
table_row() {
	local tag="bench-$1-$2" p

	for p in $(seq 0 $((n - 1))); do
		wget -q -O - "http://$(node_addr "$p")/$tag" || return 1
	done | awk -v algo="$1" -v load="$2" -F': ' '
		$1 == "acquisitions" { acq += $2; a = $2 }
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
			printf "# | %-14s | %-10s | %9.0f | %9.1f | %9.1f | %9.1f | %5.2f | %5.2f | %5.2f | %5.2f | %5.2f | %5.2f | %6.2f | %6.2f | %5.2f | %5.0f%% |\n",
				algo, load, tput, p50, p99, p999, v["read"] / acq,
				v["write"] / acq, v["cas"] / acq, v["faa"] / acq,
				v["write_imm"] / acq, v["send"] / acq, fail / acq,
				relfail / acq, deleg / acq, cpu
		}'
}

table_head() {
	echo "# | algo           | workload   | acq/s     | p50 us    | p99 us    | p99.9 us  | read  | write | cas   | faa   | wimm  | send  | badcas | relcas | deleg | cpu    |"
}

LOCAL_LOADS="local95 local50"
PAPER_LOADS="zipf-r50 zipf-r95 hot-r50"
PAPER_ALGOS="shiftlock shiftlock-cas1 shiftlock-cas alock cas mcs"

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

tap_plan 30
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "domains alock, cas, mcs and shiftlock created" create_lock_domains 512
tap_check "domain shiftlock-cas1 created" create_shiftlock_variant shiftlock-cas1 1 7206
tap_check "domain shiftlock-cas created" create_shiftlock_variant shiftlock-cas only 7205
tap_check "every node of every domain is up" retry 60 bench_domains_up
barrier up
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
if [ "$VMTEST_NODE" -eq 0 ]; then
	print_tables >/tmp/table && cat /tmp/table
fi
barrier printed
tap_check "domains destroyed, rdmalock.ko unloads" sh -c \
	"for a in alock cas mcs shiftlock shiftlock-cas1 shiftlock-cas; do
	     rdmalockctl domain destroy dom-\$a || exit 1
	 done && rmmod rdmalock"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench: alock against the cas and mcs baselines, every node running the
# benchmark at once, on 20 locks, at 95% and 50% local. Node 0 gathers
# every node's results and prints one table as TAP comments ("# |"),
# which "make bench" shows. Throughput is summed over the nodes; latency
# percentiles are the worst node's; verbs and failed CAS per acquisition
# are over all nodes' acquisitions; CPU is the threads' CPU time over the
# run's length, summed. Only ratios between rows mean anything: the NIC
# is software and the CPUs are emulated.
. ./lib.sh

: "${BENCH_MS:=5000}"
: "${BENCH_THREADS:=4}"
n=$(num_nodes)

ctl() { rdmalockctl "$@"; }


bench_one() {
	local algo="$1" pct="$2" tag="bench-$1-$2"

	barrier "start-$tag" || return 1
	ctl bench "dom-$algo" --threads "$BENCH_THREADS" --duration "$BENCH_MS" \
		--locks 20 --local "$pct" >"/tmp/$tag" || return 1
	cat "/tmp/$tag" >&2
	mv "/tmp/$tag" "/www/$tag"
	barrier "done-$tag"
}

# table_row ALGO PCT: one row from every node's results.
table_row() {
	local tag="bench-$1-$2" p

	for p in $(seq 0 $((n - 1))); do
		wget -q -O - "http://$(node_addr "$p")/$tag" || return 1
	done | awk -v algo="$1" -v pct="$2" -F': ' '
		$1 == "acquisitions" { acq += $2; a = $2 }
		$1 == "throughput_per_s" { tput += $2 }
		$1 == "lat_p50_us" && $2 > p50 { p50 = $2 }
		$1 == "lat_p99_us" && $2 > p99 { p99 = $2 }
		$1 == "lat_p999_us" && $2 > p999 { p999 = $2 }
		$1 ~ /^verbs_per_acq_/ { v[substr($1, 15)] += $2 * a }
		$1 == "cas_failed_per_acq" { fail += $2 * a }
		$1 == "cpu_pct" { cpu += $2 }
		END {
			if (!acq) acq = 1
			printf "# | %-5s | %3s%% | %9.0f | %9.1f | %9.1f | %9.1f | %5.2f | %5.2f | %5.2f | %5.2f | %6.2f | %5.0f%% |\n",
				algo, pct, tput, p50, p99, p999, v["read"] / acq,
				v["write"] / acq, v["cas"] / acq, v["write_imm"] / acq,
				fail / acq, cpu
		}'
}

print_table() {
	local pct algo

	echo "# | algo  | local | acq/s     | p50 us    | p99 us    | p99.9 us  | read  | write | cas   | wimm  | badcas | cpu    |"
	for pct in 95 50; do
		for algo in alock cas mcs; do
			table_row $algo $pct || return 1
		done
	done
}

tap_plan 9
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "domains alock, cas and mcs created" create_lock_domains
tap_check "every node of every domain is up" retry 60 lock_domains_up
barrier up
for pct in 95 50; do
	for algo in alock cas mcs; do
		tap_check "bench $algo at $pct% local, 20 locks" bench_one $algo $pct
	done
done
if [ "$VMTEST_NODE" -eq 0 ]; then
	print_table >/tmp/table && cat /tmp/table
fi
barrier printed

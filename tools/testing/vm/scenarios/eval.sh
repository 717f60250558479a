#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# eval: the papers' workload matrix, scaled to this bed, on one boot:
# every node runs "rdmalockctl bench" at each point at once, and node 0
# prints one CSV row per point as a TAP comment ("# eval: "), which
# tools/testing/eval.sh turns into tables and plots. Three series:
#
# - local: ALock's evaluation: every algorithm, exclusive only, on 20,
#   100 and 1000 locks, 100, 95, 90, 85 and 50% of the acquisitions of
#   locks homed on the acquiring node;
# - threads-local90, threads-zipf-r50: every algorithm, 1, 2, 4 and 8
#   threads per node, on 20 locks at 90% local (exclusive), and on 1000
#   locks of Zipf 0.99 keys at 50% reads, every lock remote;
# - reads: every algorithm, ShiftLock's and DSLR's evaluations: 1000
#   remote locks, 0, 50 and 95% reads, Zipf 0.99 and uniform keys.
#
# Threads per node are EVAL_THREADS (4) but in the threads series;
# each point runs EVAL_MS (2000) ms. EVAL=quick runs a few points of
# every series, short, as make check does to see the plots made: what
# it measures means nothing.
#
# A CSV row: series, algo, locks, local %, read %, keys (zipf or
# uniform), threads per node, then bench_totals' 16 fields (lib.sh).
. ./lib.sh

LOCK_ALGOS="alock cas mcs dslr"
: "${EVAL:=full}"
: "${EVAL_THREADS:=4}"
if [ "$EVAL" = quick ]; then
	: "${EVAL_MS:=300}"
else
	: "${EVAL_MS:=2000}"
fi

EVAL_CSV_HEAD="series,algo,locks,local,read,keys,threads,acq_per_s,p50_us,p99_us,p999_us,read_per_acq,write_per_acq,cas_per_acq,faa_per_acq,wimm_per_acq,send_per_acq,badcas_per_acq,relcas_per_acq,deleg_per_acq,cpu_pct,shares,fair"

# eval_points: one line per point, "series algo locks local read keys
# threads", in the order they run.
eval_points() {
	local locks pct t r keys algo all_algos="alock cas mcs shiftlock dslr"

	if [ "$EVAL" = quick ]; then
		for pct in 100 50; do
			for algo in alock cas; do
				echo "local $algo 20 $pct 0 uniform $EVAL_THREADS"
			done
		done
		for t in 1 2; do
			for algo in alock cas; do
				echo "threads-local90 $algo 20 90 0 uniform $t"
			done
		done
		for r in 0 95; do
			for algo in shiftlock dslr; do
				echo "reads $algo 1000 0 $r zipf $EVAL_THREADS"
			done
		done
		return
	fi
	for locks in 20 100 1000; do
		for pct in 100 95 90 85 50; do
			for algo in $all_algos; do
				echo "local $algo $locks $pct 0 uniform $EVAL_THREADS"
			done
		done
	done
	for t in 1 2 4 8; do
		for algo in $all_algos; do
			echo "threads-local90 $algo 20 90 0 uniform $t"
			echo "threads-zipf-r50 $algo 1000 0 50 zipf $t"
		done
	done
	for keys in zipf uniform; do
		for r in 0 50 95; do
			for algo in $all_algos; do
				echo "reads $algo 1000 0 $r $keys $EVAL_THREADS"
			done
		done
	done
}

# eval_point N SERIES ALGO LOCKS LOCAL% READ% KEYS THREADS: the point's run
# on every node; node 0 then prints its CSV row.
eval_point() {
	local n="$1" series="$2" algo="$3" locks="$4" pct="$5" read="$6"
	local keys="$7" threads="$8" zipf='' f

	[ "$keys" = uniform ] || zipf="--zipf 0.99"
	# shellcheck disable=SC2086 # no Zipf is no word
	bench_on "$(bench_node_ids)" "$algo" "p$n" --threads "$threads" \
		--duration "$EVAL_MS" --locks "$locks" --local "$pct" \
		--read "$read" $zipf || return 1
	[ "$VMTEST_NODE" -eq 0 ] || return 0
	f=$(bench_gather "bench-$algo-p$n") || return 1
	bench_totals <"$f" | tr ' ' , |
		sed "s/^/# eval: $series,$algo,$locks,$pct,$read,$keys,$threads,/"
}

# eval_run: every point; a point that fails is left out of the CSV and
# counted, and the run goes on.
eval_run() {
	local n=0 failed=0 line

	eval_points >/tmp/eval-points
	if [ "$VMTEST_NODE" -eq 0 ]; then
		echo "# eval-planned: $(wc -l </tmp/eval-points)"
		echo "# eval: $EVAL_CSV_HEAD"
	fi
	while read -r line; do
		n=$((n + 1))
		# shellcheck disable=SC2086 # the point's fields are words
		eval_point "$n" $line || {
			echo "eval: point $n ($line) failed" >&2
			failed=$((failed + 1))
		}
	done </tmp/eval-points
	echo "eval: $n points, $failed failed" >&2
	[ "$failed" -eq 0 ]
}

# steps_traced: a traced MCS hand-over run on nodes 1 and 2 (bench_traced),
# whose trace node 0 checks: every acquisition the runs counted held the
# lock in the trace (held), and each step of an MCS hand-over, from
# queued to the release's handover, took its share of the time.
steps_traced() {
	local acq f

	bench_traced "1 2" mcs steps --threads 2 --duration 500 --locks 1 || return 1
	[ "$VMTEST_NODE" -eq 0 ] || return 0
	steps_phases "1 2" mcs steps >/tmp/phases &&
		f=$(bench_gather bench-mcs-steps "1 2") || return 1
	cat /tmp/phases
	acq=$(awk -F': ' '$1 == "acquisitions" { n += $2 } END { print n + 0 }' "$f")
	awk -v acq="$acq" '
		$1 == "acquisitions" { held = $2 }
		$1 ~ /^to_(queued|linked|granted|woken|held|handover)$/ && $2 > 0 { seen++ }
		END { exit !(acq > 0 && held == acq && seen == 6) }' /tmp/phases
}

tap_plan 6
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "domains alock, cas, mcs, dslr and shiftlock created" create_lock_domains 512
tap_check "every node of every domain is up" retry 60 lock_domains_up
barrier up
tap_check "the steps of MCS hand-overs traced, every acquisition's" steps_traced
# The rows go to stdout, between the TAP lines, where eval.sh finds them.
if eval_run; then tap_ok "eval ($EVAL): every point ran"; else tap_not_ok "eval ($EVAL): every point ran"; fi
# shellcheck disable=SC2119 # no domain beyond create_lock_domains's
unload() { destroy_lock_domains && rmmod rdmalock; }
tap_check "domains destroyed, rdmalock.ko unloads" unload

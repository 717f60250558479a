#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# eval.sh [--quick]: the eval scenario (the papers' workload matrix,
# scaled to this bed) on one boot of a three-node stock cluster, then its
# report in out/eval/: eval.csv, the tables (tables.txt, also printed)
# and the plots (*.png, gnuplot).
# eval.sh --report TAP DIR: the report of a run's node 0 TAP, in DIR.
# eval.sh --check TAP DIR: the report, then TAP lines checking that the
# CSV has every point and that the plots were drawn, and "N passed,
# N failed": what make check does with the stock group's quick eval.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The columns of eval.csv (the scenario's, and the verbs summed).
col_names() { head -n 1 "$1" | tr , '\n' | cat -n; }

# csv_from TAP CSV: the scenario's "# eval: " rows, plus a column of all
# verbs per acquisition.
csv_from() {
	tr -d '\r' <"$1" | sed -n 's/^# eval: //p' | awk -F, -v OFS=, '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; print $0, "verbs_per_acq"; next }
		{
			v = 0
			for (c in col)
				if (c ~ /^(read|write|cas|faa|wimm|send)_per_acq$/)
					v += $col[c]
			print $0, v
		}' >"$2"
}

# dat CSV DIR NAME SERIES X Y [COLUMN=VALUE...]: for each algorithm, the
# rows of SERIES that match every COLUMN=VALUE, as "X Y" lines in
# DIR/NAME-ALGO.dat, in the order they ran.
dat() {
	local csv=$1 dir=$2 name=$3 series=$4 x=$5 y=$6

	shift 6
	awk -F, -v dir="$dir" -v name="$name" -v series="$series" -v x="$x" \
		-v y="$y" -v conds="$*" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; n = split(conds, c, " "); next }
		$col["series"] != series { next }
		{
			for (i = 1; i <= n; i++) {
				split(c[i], kv, "=")
				if ($col[kv[1]] != kv[2])
					next
			}
			print $col[x], $col[y] >(dir "/" name "-" $col["algo"] ".dat")
		}' "$csv"
}

# panel DIR NAME TITLE XLABEL YLABEL [log]: gnuplot's commands for one
# panel, a line for each algorithm's DIR/NAME-*.dat; nothing when there
# is none (a quick run has no point of it).
panel() {
	local dir=$1 name=$2 title=$3 xl=$4 yl=$5 log=${6:-} f a sep='' plot=''

	for f in "$dir/$name"-*.dat; do
		[ -e "$f" ] || return 0
		a=${f##*/"$name"-}
		plot="$plot$sep '$f' using 1:2 with linespoints title '${a%.dat}'"
		sep=,
	done
	echo "set title '$title'; set xlabel '$xl'; set ylabel '$yl'"
	if [ -n "$log" ]; then echo "set logscale y"; else echo "unset logscale y"; fi
	echo "plot$plot"
}

# figure PNG PANEL-COMMANDS: the panels side by side in PNG.
figure() {
	local png=$1 panels=$2 n

	n=$(grep -c '^plot' <<<"$panels" || true)
	[ "$n" -gt 0 ] || return 0
	gnuplot <<-EOF
		set terminal png size $((520 * n)),420
		set output '$png'
		set grid
		set key top left
		set multiplot layout 1,$n
		$panels
		unset multiplot
	EOF
}

# plots CSV DIR: the data files in DIR/data, the PNGs in DIR.
plots() {
	local csv=$1 dir=$2 d=$2/data p locks

	rm -rf "$d" && mkdir -p "$d"
	for p in threads-local90 threads-zipf-r50; do
		dat "$csv" "$d" "$p" "$p" threads acq_per_s
		dat "$csv" "$d" "fair-$p" "$p" threads fair
	done
	for locks in 20 100 1000; do
		dat "$csv" "$d" "local-$locks" local local acq_per_s "locks=$locks"
	done
	dat "$csv" "$d" verbs-local local local verbs_per_acq locks=20
	for p in p50 p99 p999; do
		dat "$csv" "$d" "lat-$p" reads read "${p}_us" keys=zipf
	done
	dat "$csv" "$d" tput-reads reads read acq_per_s keys=zipf
	dat "$csv" "$d" tput-reads-uniform reads read acq_per_s keys=uniform
	dat "$csv" "$d" verbs-reads reads read verbs_per_acq keys=zipf

	figure "$dir/throughput-threads.png" "$(
		panel "$d" threads-local90 '20 locks, 90% local, exclusive' 'threads per node' 'acquisitions/s' log
		panel "$d" threads-zipf-r50 '1000 remote locks, Zipf 0.99, 50% read' 'threads per node' 'acquisitions/s' log)"
	figure "$dir/throughput-local.png" "$(
		for locks in 20 100 1000; do
			panel "$d" "local-$locks" "$locks locks, exclusive" '% local' 'acquisitions/s' log
		done)"
	figure "$dir/throughput-reads.png" "$(
		panel "$d" tput-reads '1000 remote locks, Zipf 0.99' '% read' 'acquisitions/s' log
		panel "$d" tput-reads-uniform '1000 remote locks, uniform' '% read' 'acquisitions/s' log)"
	figure "$dir/latency.png" "$(
		panel "$d" lat-p50 'p50, 1000 remote locks, Zipf 0.99' '% read' 'us' log
		panel "$d" lat-p99 'p99' '% read' 'us' log
		panel "$d" lat-p999 'p99.9' '% read' 'us' log)"
	figure "$dir/verbs.png" "$(
		panel "$d" verbs-local '20 locks, exclusive' '% local' 'verbs per acquisition'
		panel "$d" verbs-reads '1000 remote locks, Zipf 0.99' '% read' 'verbs per acquisition')"
	figure "$dir/fairness.png" "$(
		panel "$d" fair-threads-local90 '20 locks, 90% local (1 = fair)' 'threads per node' 'least node share / thread share'
		panel "$d" fair-threads-zipf-r50 '1000 remote locks, Zipf, 50% read' 'threads per node' 'least node share / thread share')"
}

# tables CSV: each series as a table of its main columns.
tables() {
	local s

	awk -F, 'NR > 1 && !seen[$1]++ { print $1 }' "$1" | while read -r s; do
		echo "$s:"
		awk -F, -v s="$s" -v OFS=, '
			NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
			NR == 1 || $1 == s {
				print $col["algo"], $col["locks"], $col["local"], $col["read"],
					$col["keys"], $col["threads"], $col["acq_per_s"],
					$col["p50_us"], $col["p99_us"], $col["p999_us"],
					$col["verbs_per_acq"], $col["shares"], $col["fair"]
			}' "$1" | column -t -s,
		echo
	done
}

# report TAP DIR
report() {
	mkdir -p "$2"
	csv_from "$1" "$2/eval.csv"
	[ -s "$2/eval.csv" ] || die "no eval rows in $1"
	tables "$2/eval.csv" >"$2/tables.txt"
	plots "$2/eval.csv" "$2"
}

# rows_are CSV N: CSV has N rows (N > 0), each of which took locks.
rows_are() {
	[ "$2" -gt 0 ] && awk -F, -v want="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		!($col["acq_per_s"] > 0) { bad = 1 }
		END { exit bad || NR - 1 != want }' "$1"
}

is_png() {
	[ "$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}

# check TAP DIR: the quick run's report, checked: a row for every point
# the scenario planned, each of which took locks, and every plot a PNG.
check() {
	local tap=$1 dir=$2 planned png rc

	rm -rf "$dir"
	(report "$tap" "$dir") || true
	planned=$(tr -d '\r' <"$tap" | sed -n 's/^# eval-planned: \([0-9]*\)$/\1/p')
	rc=0
	rows_are "$dir/eval.csv" "${planned:-0}" || rc=$?
	result "eval.csv: a row for each of the ${planned:-?} points planned, each with locks taken" "$rc"
	for png in throughput-threads throughput-local throughput-reads latency verbs fairness; do
		rc=0
		is_png "$dir/$png.png" || rc=$?
		result "$png.png drawn" "$rc"
	done
	summary
}

case "${1:-}" in
--report)
	[ $# -eq 3 ] || die "usage: eval.sh --report TAP DIR"
	report "$2" "$3"
	;;
--check)
	[ $# -eq 3 ] || die "usage: eval.sh --check TAP DIR"
	check "$2" "$3"
	;;
--quick | '')
	out=$RDMALOCK_TOP/out/eval
	set=()
	[ "${1:-}" != --quick ] || set=(--set EVAL=quick)
	"$RDMALOCK_TOP/tools/testing/vm/vmtest.sh" --scenario eval --kernel stock \
		--timeout 2400 --outdir "$RDMALOCK_TOP/out/vmtest/eval-stock" \
		"${set[@]}" >&2 || die "the eval run failed; see out/vmtest/eval-stock/"
	report "$RDMALOCK_TOP/out/vmtest/eval-stock/node0.tap" "$out"
	cat "$out/tables.txt"
	log "CSV, tables and plots in $out"
	;;
*)
	die "usage: eval.sh [--quick] | --report TAP DIR | --check TAP DIR"
	;;
esac

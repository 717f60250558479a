#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# models.sh: model-check the lock protocols with spin, as `make models`
# runs it (Documentation/models.rst says what each model covers). One
# line per check with the states explored, then "N passed, N failed".
# A negative case passes when spin finds the counterexample it must.
# Build products and trails go to out/models/, one directory per check.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

models=$RDMALOCK_TOP/tools/models
out=$RDMALOCK_TOP/out/models
# Bounds for every run: search depth, and memory in MB, so a model that
# grows past what the bounds were chosen for fails instead of swapping.
depth=${RDMALOCK_MODEL_DEPTH:-2000000}
memlim=${RDMALOCK_MODEL_MEMLIM:-4096}
# Checks run side by side, one per CPU, each within memlim; their lines
# are printed in the order below.
jobs_max=${RDMALOCK_MODEL_JOBS:-$(nproc)}
# The checks started and not yet reported: EXPECT|NAME|DIR each.
pending=()

command -v spin >/dev/null || die "spin is not installed; run make deps"
rm -rf "$out" && mkdir -p "$out"

# check EXPECT NAME MODEL PROPERTY [SPIN_DEFINE...]
#   EXPECT   pass, or fail for a negative case
#   PROPERTY safety (assertions: exclusion), deadlock (invalid end
#            states), both (the two in one run), or ltl:NAME (that
#            formula, under weak fairness)
check() {
	local expect=$1 name=$2 model=$3 prop=$4 dir log start rc=0
	local -a cflags=(-O2 -w "-DMEMLIM=$memlim" -DCOLLAPSE) run=("-m$depth")
	shift 4

	dir=$out/$(printf '%s' "$name" | tr -cs 'A-Za-z0-9' '-')
	log=$dir/pan.log
	mkdir -p "$dir"
	case $prop in
	safety) cflags+=(-DSAFETY) run+=(-E) ;;
	deadlock) cflags+=(-DSAFETY) run+=(-A) ;;
	both) cflags+=(-DSAFETY) ;;
	ltl:*) cflags+=(-DNFAIR=4) run+=(-a -f -N "${prop#ltl:}") ;;
	*) die "unknown property $prop" ;;
	esac
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n || true
	done
	(
		start=$SECONDS
		(
			cd "$dir"
			spin -a "$@" "$models/$model.pml" &&
				gcc "${cflags[@]}" -o pan pan.c &&
				./pan "${run[@]}"
		) >"$log" 2>&1 || rc=$?
		echo "$rc $((SECONDS - start))" >"$dir/status"
	) &
	pending+=("$expect|$name|$dir")
	report_done
}

# report_done: report the checks at the head of pending that have ended.
report_done() {
	local expect name dir rc secs

	while [ ${#pending[@]} -gt 0 ]; do
		IFS='|' read -r expect name dir <<<"${pending[0]}"
		[ -f "$dir/status" ] || return 0
		read -r rc secs <"$dir/status"
		report "$expect" "$name" "$dir/pan.log" "$rc" "$secs"
		pending=("${pending[@]:1}")
	done
}

# deep DEPTH CHECK_ARGS...: check with a search depth of at least DEPTH.
# A model whose processes loop for ever (ROUNDS=0) and that is searched
# without fairness has a depth-first stack as deep as its longest path
# of new states: millions of steps, for a few million states.
deep() {
	local depth=$(($1 > depth ? $1 : depth))
	shift
	check "$@"
}

# report EXPECT NAME LOG RC SECONDS: one line from pan's output.
report() {
	local expect=$1 name=$2 log=$3 rc=$4 secs=$5 states errors what

	states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$log" | tail -n 1)
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$log" | tail -n 1)
	what=$(sed -n 's/^pan:1: \(.*\) (at depth \([0-9]*\))$/\1, depth \2/p' "$log" |
		head -n 1)
	if [ "$rc" -ne 0 ] || [ -z "$errors" ] || [ -z "$states" ]; then
		result "$name: spin or pan did not run to the end" 1 "$log"
	elif grep -qiE '^spin: .*warning' "$log"; then
		# A warned-of construct (an else beside i/o, say) may not mean
		# what the model's author meant, whatever the search found.
		result "$name: spin warned of the model ($states states)" 1 "$log"
	elif grep -qE 'reached -DMEMLIM bound|max search depth too small' "$log"; then
		result "$name: search incomplete, bounds too small ($states states)" 1 "$log"
	elif [ "$expect" = pass ] && [ "$errors" -eq 0 ]; then
		result "$name ($states states, ${secs}s)" 0
	elif [ "$expect" = pass ]; then
		result "$name: counterexample: $what ($states states)" 1 "$log"
	elif [ "$errors" -gt 0 ]; then
		result "$name: counterexample found: $what ($states states, ${secs}s)" 0
	else
		result "$name: no counterexample ($states states)" 1 "$log"
	fi
}

# ALock, as kmod ships it: one home-node thread, two peers on nodes of
# their own (and two home-node threads, one peer), two rounds each.
check pass "alock: mutual exclusion, no deadlock" alock both
check pass "alock 2 local + 1 remote: mutual exclusion" alock safety -DNL=2 -DNR=1
check pass "alock: starvation freedom from enqueue (weak fairness)" alock ltl:starvation \
	-DLIVENESS -DROUNDS=0 -DGENS=1
check pass "alock, waiters give up: mutual exclusion, no deadlock" alock both -DABANDON
# kmod before the fix of the stale grant (models.rst).
check fail "alock negative: waiters give up, grant awaited on its bit" \
	alock safety -DABANDON -DWAIT_ON_BIT
check fail "alock negative: printed Peterson OR (SPAA Alg. 4)" alock deadlock \
	-DPRINTED_PETERSON_OR
check fail "alock negative: printed single rCAS enqueue (SPAA Alg. 3)" alock deadlock \
	-DPRINTED_SINGLE_CAS
check fail "alock negative: qLock return as TR 3.1's prose" alock safety \
	-DPROSE_QLOCK_RETURN
check fail "mixed negative: home CPU CAS + peer RDMA CAS on one word" mixed safety
check pass "mixed with globally atomic RDMA CAS: mutual exclusion" mixed safety \
	-DGLOBAL_ATOMICS

# ShiftLock's 8-byte port: two writers (two rounds each), one reader.
check pass "shiftlock: mutual exclusion, readers/writers, no deadlock" shiftlock both
check pass "shiftlock, a crash and the server's reset: mutual exclusion" shiftlock safety \
	-DFAULTS -DROUNDS=1
check fail "shiftlock negative: reader tests the epoch before the leap (E9)" shiftlock \
	safety -DFAULTS -DSRC_EPOCH_FIRST -DROUNDS=1
check fail "shiftlock negative: Handover without the epoch (E4), 3 writers" shiftlock \
	deadlock -DPRINTED_HANDOVER_EPOCH -DNW=3
check fail "shiftlock negative: Alg. 2 l. 23 as the extraction indents it (E2)" shiftlock \
	safety -DPRINTED_READERS_NESTED
check fail "shiftlock negative: Alg. 3 l. 11-14 as the extraction indents them (E3)" \
	shiftlock deadlock -DPRINTED_RELEASE_NESTED
# Recovery: after a crash, the lock reset only when it is stuck
# (RESET_WHEN_STUCK, models.rst); three mailbox names, since a writer may
# start again twice (a reset and an X5) with two rounds.
check pass "shiftlock, a crash and a reset when stuck: no deadlock" shiftlock deadlock \
	-DFAULTS -DRESET_WHEN_STUCK -DNAMES=3
check pass "shiftlock, one round, a crash and a reset when stuck: no deadlock" shiftlock \
	deadlock -DFAULTS -DRESET_WHEN_STUCK -DROUNDS=1
check fail "shiftlock negative: no stale-message handling (D24, H5)" shiftlock deadlock \
	-DFAULTS -DRESET_WHEN_STUCK -DROUNDS=1 -DPRINTED_STALE_MESSAGES
# Starvation freedom as bounded bypass, rounds unbounded, RelCnt modulo 8
# (models.rst): the bound B = 2 for a writer and for the reader.
bypass=(-DBYPASS -DROUNDS=0 -DRROUNDS=0 -DM=8)
deep 10000000 pass "shiftlock, rounds unbounded: bounded bypass (B = 2), no deadlock" \
	shiftlock both "${bypass[@]}"
deep 10000000 fail "shiftlock negative: no writer batch, the reader bypassed for ever" \
	shiftlock safety "${bypass[@]}" -DNO_BATCH
deep 10000000 fail "shiftlock negative: bypass bound B - 1" shiftlock safety \
	"${bypass[@]}" -DBYPASS_UNDER=1
# writer_cas 0, kmod's default: the home node does every writer's enqueue,
# release with no successor known, and trylock, by a load then one FAA (or
# CAS) under its mutex, asked and answered by messages (models.rst). The
# crash + reset run allows resets after a crash only: without that bound
# it does not finish in 4 GB. Bounded bypass with every writer on the home
# node, which without crashes runs the same as with messages.
check pass "shiftlock, the home node's FAA (writer_cas 0), trylocks: mutual exclusion, no deadlock" \
	shiftlock both -DHOME_FAA -DHOME_TRY
check pass "shiftlock, the home node's FAA, a crash and resets after it: mutual exclusion" \
	shiftlock safety -DHOME_FAA -DFAULTS -DROUNDS=1 -DRESET_NEEDS_CRASH
check fail "shiftlock negative: a writer's own CAS beside the home node's FAA (-EIO)" \
	shiftlock safety -DHOME_FAA -DMIXED_WRITER
check fail "shiftlock negative: the reset outside the home node's mutex (-EIO)" shiftlock \
	safety -DHOME_FAA -DFAULTS -DROUNDS=1 -DRESET_NEEDS_CRASH -DRESET_NO_MUTEX
check pass "shiftlock, the home node's FAA, a crash and a reset when stuck: no deadlock" \
	shiftlock deadlock -DHOME_FAA -DFAULTS -DRESET_WHEN_STUCK -DNAMES=3
deep 10000000 pass "shiftlock, the home node's FAA, rounds unbounded: bounded bypass (B = 2), no deadlock" \
	shiftlock both "${bypass[@]}" -DHOME_FAA -DHOME_LOCAL
# Conversion from writer to reader without letting go (dlm.rst).
check pass "shiftlock, writers convert down to readers: mutual exclusion, no deadlock" \
	shiftlock both -DDOWNGRADE
check pass "shiftlock, the home node's FAA, trylocks, conversions down and up: mutual exclusion, no deadlock" \
	shiftlock both -DHOME_FAA -DHOME_TRY -DDOWNGRADE -DUPGRADE
check fail "shiftlock negative: a conversion down that releases, then counts itself a reader" \
	shiftlock safety -DDOWNGRADE -DDOWNGRADE_RELEASE_FIRST
check fail "shiftlock negative: a conversion down that hands the lock to a writer" \
	shiftlock safety -DDOWNGRADE -DDOWNGRADE_NO_FLIP
# Conversion from reader to writer, when the reader is alone.
check pass "shiftlock, a lone reader converts up: mutual exclusion, no deadlock" \
	shiftlock both -DUPGRADE
check fail "shiftlock negative: a conversion up beside other readers" \
	shiftlock safety -DUPGRADE -DUPGRADE_ANY_READERS

# DSLR as shared/specs/dslr.md §11 has it, COUNT_MAX 2 so that the
# overflow reset runs: three clients one round each, two clients two.
check pass "dslr: mutual exclusion, readers/writers, overflow reset, no deadlock" dslr \
	both -DNP=3 -DROUNDS=1
check pass "dslr 2 clients x 2 rounds: mutual exclusion, no deadlock" dslr both
check pass "dslr, a crash and lease resets: mutual exclusion" dslr safety \
	-DFAULTS -DNP=3 -DROUNDS=1
check pass "dslr 2 clients x 2 rounds, a crash and a lease reset: mutual exclusion" \
	dslr safety -DFAULTS
# Recovery: resets only once a client has crashed, two of them, since a
# designated resetter that fails by its own stall reset leaves the drained
# word to D4's forced reset (models.rst).
check pass "dslr, a crash and the resets after it: no deadlock" dslr deadlock \
	-DFAULTS -DRESET_NEEDS_CRASH -DMAXRESETS=2 -DNP=3 -DROUNDS=1
check pass "dslr 2 clients x 2 rounds, a crash and the resets after it: no deadlock" \
	dslr deadlock -DFAULTS -DRESET_NEEDS_CRASH -DMAXRESETS=2
check pass "dslr: starvation freedom from the ticket (weak fairness)" dslr ltl:starvation \
	-DLIVENESS -DROUNDS=0
check fail "dslr negative: starvation freedom from the call, a bouncer lapped" dslr \
	ltl:from_call -DLIVENESS -DROUNDS=0
check fail "dslr negative: printed fall-through after a bounce (D1)" dslr safety \
	-DPRINTED_FALLTHROUGH
check fail "dslr negative: printed skip test, Alg. 2 l. 3 (D2)" dslr deadlock \
	-DPRINTED_SKIP -DNP=3 -DROUNDS=1
check fail "dslr negative: printed shared reset value, Alg. 2 l. 13 (D2)" dslr safety \
	-DFAULTS -DPRINTED_SHARED_RESET -DNP=3 -DROUNDS=1 -DROUNDS1=2 -DCM=3
check fail "dslr negative: stall resetter zeroes, Alg. 2 l. 18 (D5)" dslr safety \
	-DFAULTS -DPRINTED_STALL_ZERO -DNP=3 -DROUNDS=1
check fail "dslr negative: release check-then-FA with the revoked check (D10)" dslr \
	safety -DFAULTS -DLATE_RELEASE
check fail "dslr negative: printed undo FA(-1) beside the forced reset (D3, D4)" dslr \
	safety -DFAULTS -DPRINTED_UNDO
check fail "dslr negative: expired designated resetter releases, Alg. 3 l. 1 (D8)" \
	dslr safety -DFAULTS -DPRINTED_RESETTER_RELEASE
check fail "dslr negative: printed zeroing loop, Alg. 3 l. 7 (D6)" dslr deadlock \
	-DFAULTS -DRESET_NEEDS_CRASH -DMAXRESETS=2 -DPRINTED_ZERO_LOOP
check fail "dslr negative: one reset after a crash is not enough" dslr deadlock \
	-DFAULTS -DRESET_NEEDS_CRASH
# DSLR as kmod/dslr.c runs it: views recover the lock (no faults, no
# lease), and whoever drains a frozen word zeroes it.
check pass "dslr as kmod runs it, zeroed on drain: mutual exclusion, no deadlock" \
	dslr both -DZERO_ON_DRAIN -DNP=3 -DROUNDS=1
check pass "dslr as kmod runs it, 2 clients x 2 rounds: mutual exclusion, no deadlock" \
	dslr both -DZERO_ON_DRAIN
check pass "dslr as kmod runs it: starvation freedom from the ticket (weak fairness)" \
	dslr ltl:starvation -DZERO_ON_DRAIN -DLIVENESS -DROUNDS=0
check fail "dslr negative: zeroed on drain, but a frozen word zeroed undrained" dslr \
	both -DZERO_ON_DRAIN -DZERO_UNDRAINED -DNP=3 -DROUNDS=1
# kmod's lease recovery (--lease-recovery): the same zeroings, a stall
# reset's too, each once no waiter of the old epoch is stale, beside the
# stall and forced resets of the spec.
check pass "dslr as kmod runs it with leases, a crash and lease resets: mutual exclusion" \
	dslr safety -DFAULTS -DZERO_ON_DRAIN -DNP=3 -DROUNDS=1
check pass "dslr as kmod runs it with leases, 2 clients x 2 rounds: mutual exclusion" \
	dslr safety -DFAULTS -DZERO_ON_DRAIN
check pass "dslr as kmod runs it with leases, a crash and the resets after it: no deadlock" \
	dslr deadlock -DFAULTS -DZERO_ON_DRAIN -DRESET_NEEDS_CRASH -DMAXRESETS=2 -DNP=3 -DROUNDS=1
# Its conversions in place, each holder converting once per round. With
# COUNT_MAX 2 a second writer's ticket freezes the word, so a writer
# waits behind one converting down only with COUNT_MAX 3.
check pass "dslr as kmod runs it, with conversions, COUNT_MAX 3: mutual exclusion, no deadlock" \
	dslr both -DZERO_ON_DRAIN -DCONVERT -DNP=3 -DROUNDS=1 -DCM=3
check pass "dslr as kmod runs it, with conversions, 2 clients x 2 rounds: mutual exclusion, no deadlock" \
	dslr both -DZERO_ON_DRAIN -DCONVERT
check fail "dslr negative: a downgrade taken behind a waiting writer" dslr \
	safety -DZERO_ON_DRAIN -DCONVERT -DUNGUARDED_DOWNGRADE -DCM=3

# Membership: the view change and recovery of kmod/membership.c and
# kmod/recovery.c, three nodes, the lock homed on node 0, node leases in
# ticks, one link cut, two proposals (models.rst). Exclusion is among the
# holders that have not lost their lock; STRICT counts a fenced holder
# still inside too, which no lease can keep out.
check pass "membership, a link cut: exclusion, claims kept" membership safety
check pass "membership, three clients, a link cut: exclusion, claims kept" membership \
	safety -DCLIENTS=7
check pass "membership, no partition, two view changes asked for: no deadlock" membership \
	deadlock -DPROGRESS -DEVENTS=0 -DCLIENTS=7 -DWANTS=2
check fail "membership negative: no lease (node_lease_ms=0), survivors do not wait" \
	membership safety -DNO_LEASE -DEXCLUSION_ONLY
check fail "membership negative: CLAIM skipped" membership safety -DNO_CLAIM
check fail "membership negative: no margin" membership safety -DMARGIN=0 -DEXCLUSION_ONLY
check fail "membership negative: a fenced holder still inside (STRICT: what the lease cannot do)" \
	membership safety -DSTRICT -DEXCLUSION_ONLY

wait
report_done
summary

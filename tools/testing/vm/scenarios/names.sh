#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# names: domains with named locks (--named), where each lock name, an id
# being the name of its 8 big-endian bytes, gets a slot of its own at its
# home. With 2 slots per node and 3 nodes, ids 0, 6 and 9 are all homed
# on node 0, and 0 and 6 share a slot when ids map to slots:
#  - the control: in a domain without --named, node 2 cannot take id 6
#    while node 1 holds id 0 (one lock); with --named it can (two), and
#    id 0 itself still excludes;
#  - a home with every slot referenced refuses a new name (ENOSPC), and
#    takes it once the idle names are given back;
#  - the torture on named locks, ALock (home-node threads on the CPU, the
#    others through the NIC, on the slot their resolutions agree on) and
#    ShiftLock at 50% reads: no violation, counters exact;
#  - lock caching (--cache) on 6 named locks: every thread keeps the
#    locks it took until a blocking callback asks for them, so that a lock
#    changes hands only through the callbacks, and each lock's LVB carries
#    its counter, checked by every critical section: no violation,
#    counters exact, callbacks heard on every node; with the callbacks
#    ignored (--deaf, the negative control), requests for kept locks time
#    out; with asynchronous requests (--async), a quarter of them cancelled
#    as soon as made: the same, and requests were cancelled;
#  - a node out of queue descriptors: in nm-pool, 64 descriptors a node,
#    node 0 alone runs one caching thread on the 100 named locks homed on
#    it, which keeps every lock it took: the pool runs dry, its waits for
#    a descriptor make the node ask its kept locks back through their
#    blocking callbacks, and the thread goes on without an error, every
#    descriptor free again at the end (debugfs); with the callbacks
#    ignored (the negative control), the wait for a descriptor times out;
#  - conversions on ShiftLock, through one session's open file: EX
#    converted down to PR admits a PR beside it and no EX; PR to EX is
#    refused (EDEADLK) while the other PR holds, and the lock stays PR;
#    once alone, PR converts up to EX, and admits no PR; converted to NL,
#    it admits EX; from NL up to EX, then PW, and unlocked; the same file holds id
#    21 with --notify and id 22 without: a request of node 1 for 22 tells
#    it nothing, one for 21 a blocking event it reads (poll, read); and
#    a lock named by a byte string (--lock-name): held once per file
#    (EDEADLK), excluding on node 1, while another name is free; names
#    refused where locks are not named (EOPNOTSUPP) or too long (EINVAL);
#  - a writer that gives up keeps asking (ShiftLock, id 23): node 0 holds
#    it EX, node 1 queues PR with --notify, the last node EX behind both,
#    timing out; node 0 converts down to PR, which lets node 1's PR in
#    ahead of that writer: it is told of its EX request, which the
#    workqueue finishes once both let go;
#  - lock caching with conversions (--convert): a lock kept exclusive that
#    only shared requests wait for is converted down to PR and kept; the
#    same checks as the caching torture, and locks were converted (its
#    negative control, --convert-gap, takes no path of its own for
#    lockdep or KASAN: the stock run's alock scenario has it);
#  - the last node dies holding a reference: the view change without it
#    frees its slot at the home, and the survivors go on resolving;
#  - node 0 holds id 50, homed on the last node, in nm-alock and nm-shift
#    when it dies: the name moves to a survivor, where node 0 claims it in
#    the view change; node 1 is refused it (EAGAIN) until node 0, which
#    kept it, releases it without error, and then takes it; node 1's
#    requests for it, queued at the last node when it died, are resolved
#    at the new home and granted there once node 0 let go (a home the
#    fabric lost once failed them with ENOTCONN);
#  - lock values: an exclusive holder writes its LVB back, a shared grant
#    reads it, exclusive grants take consecutive fencing tokens; the LVB
#    of a holder that dies before its write-back is not valid after the
#    view change, the next token is higher, and the next write-back makes
#    the LVB valid again;
#  - a home cut off: node 1, home of ids 1 and 4, takes its link down for
#    longer than its node lease and fences itself; it comes back with
#    the view change's steps held 2 s each (debug kernel), and the last
#    node, which has reset its tables in it, resolves a name homed on
#    node 1, mostly before node 1 has: refused there, asked again once
#    the view is open, granted; and another once node 1 has reset, before
#    its own view takes node 1 back: resolved, its acquisition waits for
#    the view, granted. Once it is back in full views, node 0's lock of
#    id 1, cached from before, is resolved anew: a fresh slot, its LVB
#    empty and its token above the last one (with the cached slot it
#    would read the LVB written before the cut);
#  - the sample client caches a lock: one handle keeps it with a blocking
#    callback, another asks for it asynchronously, refused at once with
#    NOQUEUE, and granted once the callback let it go without; under
#    ShiftLock, a PR converted up beside a kept PR is refused (EDEADLK),
#    the kept one's callback hears EX, and, asked again, it is granted;
#  - the survivors' sample clients, registered for the recovery callbacks,
#    hear recover_done with their slot at once; the last node destroys
#    and creates nm-ids again at once, back before its lease ran out: the
#    clients hear it leave (recover_slot, its id plus one) and come back
#    (recover_done with every slot), since it holds nothing of before;
#    when it dies, recover_prep, recover_slot of the dead node and
#    recover_done with the new members and a newer generation, in that
#    order;
#  - rdmalock_dlm.ko, for a test module's DLM lock (rdmalock_dlmprobe.ko):
#    a conversion down from EX whose LVB write-back fails once is asked
#    for again, and one whose interest post fails once is asked for again
#    from NL: each ends done, not failed.
. ./lib.sh

: "${TORTURE_MS:=2000}"
# Past the node lease (4 s), the heartbeat timeout (5 s) and a margin.
CUT_S=15
[ ! -e "$KMEMLEAK" ] || CUT_S=25
n=$(num_nodes)
victim=$((n - 1))

ctl() { rdmalockctl "$@"; }

# create DOMAIN PORT ALGO SLOTS [FLAGS...]
create() {
	local dom="$1" port="$2" algo="$3" slots="$4"

	shift 4
	ctl domain create "$dom" --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" \
		--key-file "$(key_file)" --port "$port" --algo "$algo" \
		--locks-per-node "$slots" "$@"
}

create_all() {
	create nm-ids 7401 alock 2 &&
		create nm-named 7402 alock 2 --named &&
		create nm-alock 7403 alock 16 --named &&
		create nm-shift 7404 shiftlock 16 --named
}

all_up() {
	domain_up nm-ids && domain_up nm-named && domain_up nm-alock &&
		domain_up nm-shift
}

# named_status DOMAIN: "USED CACHED" of this node's named locks.
named_status() {
	ctl domain status "$1" |
		sed -n 's/^named locks: \([0-9]*\) homed here in use, \([0-9]*\) referenced.*/\1 \2/p'
}

status_says_named() {
	[ -n "$(named_status nm-named)" ] && [ -z "$(named_status nm-ids)" ]
}

# try_says MESSAGE DOMAIN ID: a trylock of ID fails with MESSAGE.
try_says() {
	local out rc=0

	out=$(ctl lock "$2" "$3" --try -- true 2>&1) || rc=$?
	echo "$out" >&2
	[ "$rc" -eq 1 ] && echo "$out" | grep -q "$1"
}

# A lock homed on the victim, held by node 0 through the victim's death:
# its name moves to a survivor, where node 0 claims it. Without the claim
# it would be free there, and node 0's unlock would fail.
MOVED_ID=50

moved_held() { hold_started moved-alock 30 && hold_started moved-shift 30; }

moved_refused() {
	try_says 'Resource temporarily unavailable' nm-alock $MOVED_ID &&
		try_says 'Resource temporarily unavailable' nm-shift $MOVED_ID
}

moved_released() { hold_unlocked moved-alock && hold_unlocked moved-shift; }

# moved_queued: node 1 asks for id MOVED_ID in both domains, in the
# background (waiters moved-DOMAIN), and queues behind node 0's holds at
# the last node.
moved_queued() {
	local dom before f

	retry 60 published_by 0 moved-held || return 1
	for dom in nm-alock nm-shift; do
		f=/tmp/wait-moved-$dom
		before=$(descs_in_use $dom)
		{
			ctl lock $dom $MOVED_ID --timeout 120000 -- true >$f.out 2>&1
			echo $? >$f.rc
		} &
		retry 30 more_descs_in_use $dom "$before" && sleep 1 &&
			more_descs_in_use $dom "$before" || return 1
	done
}

# moved_waited: those requests were granted once node 0 let go.
moved_waited() { waited moved-nm-alock 60 && waited moved-nm-shift 60; }

moved_taken() {
	ctl lock nm-alock $MOVED_ID --try -- true &&
		ctl lock nm-shift $MOVED_ID --try -- true
}

# used_here_is DOMAIN COUNT: names homed on this node in use.
used_here_is() {
	local s

	s=$(named_status "$1")
	echo "named: $s" >&2
	[ "${s%% *}" -eq "$2" ]
}

# sample_caches: the sample client, on a lock homed on the next node,
# keeps it with one handle and asks for it asynchronously with another:
# without queueing, refused at once (EAGAIN); without queueing but asking
# (NOQUEUE_ASK), refused too, and the blocking callback lets it go;
# queued, the callback lets it go, and the request is granted. Under
# ShiftLock, where PR is shared, it also keeps a PR, and the other
# handle's PR converted up is refused until the callback lets the kept
# PR go.
sample_caches() {
	insmod /lib/rdmalock/rdmalock_example.ko domain=nm-alock \
		first_id=$((40 + VMTEST_NODE)) count=1 rounds=1 &&
		rmmod rdmalock_example &&
		dmesg | grep 'rdmalock_example: nm-alock: a NOQUEUE request for the kept lock ended at once: -EAGAIN$' &&
		dmesg | grep 'rdmalock_example: nm-alock: a refused NOQUEUE request that asks was heard by the callback of the kept lock (mode EX)$' &&
		dmesg | grep 'rdmalock_example: nm-alock: a kept lock was let go at its blocking callback (mode EX)' &&
		insmod /lib/rdmalock/rdmalock_example.ko domain=nm-shift \
			first_id=$((40 + VMTEST_NODE)) count=1 rounds=1 &&
		rmmod rdmalock_example &&
		dmesg | grep 'rdmalock_example: nm-shift: a conversion up refused beside a kept PR was granted once its blocking callback let the PR go (mode EX)$'
}

# watch_views: the sample client, registered for nm-ids' recovery
# callbacks, is told this node's slot in a view of every node.
watch_views() {
	insmod /lib/rdmalock/rdmalock_example.ko domain=nm-ids \
		first_id=$((30 + VMTEST_NODE)) count=1 rounds=1 watch=1 || return 1
	dmesg | grep "rdmalock_example: nm-ids: recover_done: our slot $((VMTEST_NODE + 1)), generation [0-9]*, slots 1,2,3\$"
}

told_lines() { dmesg | grep 'rdmalock_example: nm-ids: recover_'; }

# mark_told NAME: how many callback lines the client has logged so far.
mark_told() { told_lines | wc -l >"/tmp/told-mark-$1"; }

# told_in_order NAME SLOT SLOTS: since mark NAME, the client heard
# recover_prep, recover_slot SLOT and recover_done with SLOTS and a newer
# generation than the last before the mark, in that order.
told_in_order() {
	told_lines | tee /dev/stderr |
		awk -v from="$(cat "/tmp/told-mark-$1")" -v slot="$2" -v slots="$3" '
		function gen() { s = $0; sub(/.*generation /, "", s); sub(/,.*/, "", s); return s + 0 }
		NR <= from { if (/recover_done/) gen0 = gen(); next }
		/recover_prep$/ && state <= 1 { state = 1; next }
		$0 ~ ("recover_slot " slot "$") && state == 1 { state = 2; next }
		/recover_done/ && state == 2 && $0 ~ ("slots " slots "$") && gen() > gen0 { ok = 1 }
		END { exit !ok }'
}

# views_told: once nm-ids has a view without the victim, the client was
# told recover_prep, recover_slot of the victim, and recover_done with
# the survivors' slots and a newer generation, in that order.
views_told() {
	retry 60 view_is nm-ids 0,1 && told_in_order death $((victim + 1)) 1,2
}

# restart_ids: the victim destroys nm-ids and creates it again at once,
# within its node lease: back before the others could leave it out of a
# view, but holding nothing of before.
restart_ids() {
	ctl domain destroy nm-ids && create nm-ids 7401 alock 2 &&
		retry 60 domain_up nm-ids
}

# lvb_seen: id 1's LVB, "hello", read by a shared grant (no token), and
# two exclusive grants' tokens, one apart.
lvb_seen() {
	local out t1 t2

	out=$(ctl lock nm-named 1 --shared --value -- true) || return 1
	echo "$out" >&2
	echo "$out" | grep -qx 'value: token 0, lvb valid: hello' || return 1
	t1=$(ctl lock nm-named 1 --value -- true | token_of)
	t2=$(ctl lock nm-named 1 --value -- true | token_of)
	echo "tokens $t1, $t2" >&2
	[ -n "$t1" ] && [ "$t2" = "$((t1 + 1))" ]
}

lvb_valid_again() {
	local out

	ctl lock nm-named 4 --lvb fixed -- true || return 1
	out=$(ctl lock nm-named 4 --shared --value -- true) || return 1
	echo "$out" >&2
	echo "$out" | grep -q 'lvb valid: fixed$'
}

# A membership message type as a fault's filter bit (kmod/membership.h).
MSG_MB_PROPOSE=$((1 << 28))
# Homed on node 1 (70 and 73 modulo 3), and resolved by no node before.
JOIN_ID=70
CLAIM_ID=73

# cut_home: node 1 takes its link down for CUT_S seconds, and fences
# itself meanwhile. With fault injection it comes back with the
# coordinator's proposals held 2 s each: every step of the view change
# that takes it back comes to it 2 s after the others.
cut_home() {
	local fences end rc=0

	fences=$(view_line nm-named | fences_of)
	ip link set eth0 down
	end=$(($(date +%s) + CUT_S))
	retry_until $((end - 1)) fenced nm-named "$fences" || rc=1
	sleep_until "$end"
	if [ -d "$FAULTS" ]; then
		injected delay_msg >/tmp/join-injected &&
			fault delay_msg nodes=1 types=$MSG_MB_PROPOSE delay_ms=2000 \
				interval=1 times=-1 verbose=0 probability=100 || rc=1
	fi
	ip link set eth0 up
	return $rc
}

# join_held: the view change that took node 1 back came to it late.
join_held() {
	[ -d "$FAULTS" ] || return 0
	faults_off &&
		[ "$(injected delay_msg)" -gt "$(cat /tmp/join-injected)" ]
}

# lock_in_step STEP ID: once this node is done with STEP of the view
# change that takes node 1 back, lock ID of nm-alock, in the background:
# waiter join-STEP (see waited).
# Node 1's steps come 2 s late, so that this node waits in each step for
# about 2 s. Without fault injection the steps are not held, and the
# lock is taken at once.
lock_in_step() {
	local view=/sys/kernel/debug/rdmalock/nm-alock/view f="/tmp/wait-join-$1" end

	rm -f "$f.rc"
	end=$(($(date +%s) + CUT_S + 60))
	while [ -d "$FAULTS" ] && ! grep -q "members 0-2, done $1" $view; do
		if [ "$(date +%s)" -ge "$end" ]; then
			echo "never done with step $1 of the view change" >"$f.out"
			echo 1 >"$f.rc"
			return
		fi
		sleep 0.1
	done
	cat $view >"$f.out"
	{
		ctl lock nm-alock "$2" --timeout 30000 -- true >>"$f.out" 2>&1
		echo $? >"$f.rc"
	} &
}

note_token() {
	ctl lock nm-named 1 --lvb before-cut -- true | token_of >/tmp/token-before-cut &&
		test -s /tmp/token-before-cut
}

pool_up() {
	create nm-pool 7405 alock 128 --named --descriptors 64 &&
		retry 60 domain_up nm-pool
}

dmesg_says() { dmesg -s 1048576 | grep -qF "$1"; }

# pool_round [--deaf]: node 0 alone, one thread caching up to 100 locks of
# nm-pool, those of 300 homed here (no message, and quick: the pool runs
# dry early). Without --deaf: no error, no violation, and callbacks came
# (nobody else wants the locks: the pool asked for them). With it: it
# fails, on a wait that timed out, and nothing else.
pool_round() {
	local out rc=0 ms=8000

	# Deaf, the thread must take 64 locks before the run ends: on a
	# loaded debug guest, 8 s were once not enough.
	[ "${1:-}" != --deaf ] || ms=16000
	out=$(ctl torture nm-pool --cache --threads 1 --locks 300 --local 100 \
		--duration $ms "$@" 2>&1) || rc=$?
	echo "$out" >&2
	echo "$out" | grep -q '^violations: 0$' || return 1
	if [ "${1:-}" = --deaf ]; then
		[ "$rc" -ne 0 ] && echo "$out" | grep -q '^errors: [1-9]' &&
			echo "$out" | grep -q '^first_error: Connection timed out$'
	else
		[ "$rc" -eq 0 ] && echo "$out" | grep -q '^errors: 0$' &&
			echo "$out" | grep -q '^blocked: [1-9]'
	fi
}

# session_open: an rdmalockctl session on one open file, its commands
# written to fd 7, its answers in /tmp/sess.out.
session_open() {
	rm -f /tmp/sess.in && mkfifo /tmp/sess.in
	rdmalockctl session </tmp/sess.in >/tmp/sess.out 2>&1 &
	exec 7>/tmp/sess.in
}

# session_ask LINE: the session on fd 7 is given LINE, whose answer
# session_answer awaits.
session_ask() {
	echo $(($(wc -l </tmp/sess.out) + 1)) >/tmp/sess.next
	echo "$1" >&7
}

# session_answer ANSWER: the session's answer to the line it was given
# last is ANSWER ("ok", or "error: " and the error).
session_answer() {
	local n

	n=$(cat /tmp/sess.next)
	retry 30 sh -c "[ \$(wc -l </tmp/sess.out) -ge $n ]" || return 1
	sed -n "${n}p" /tmp/sess.out | tee /dev/stderr | grep -qx "$1"
}

# session_says LINE ANSWER: the session runs LINE, and answers ANSWER.
session_says() { session_ask "$1" && session_answer "$2"; }

# pr_refused DOMAIN ID: a PR trylock of ID fails with EAGAIN.
pr_refused() {
	local out rc=0

	out=$(ctl lock "$1" "$2" --mode pr --try -- true 2>&1) || rc=$?
	echo "$out" >&2
	[ "$rc" -eq 1 ] && echo "$out" | grep -q 'Resource temporarily unavailable'
}

# conv_down: node 0's session takes id 20 EX, then converts it to PR.
conv_down() {
	session_says "lock nm-shift 20 --mode ex" ok &&
		session_says "convert nm-shift 20 pr" ok
}

# conv_up: from NL, the session converts id 20 up to EX, to PW, and
# unlocks it.
conv_up() {
	session_says "convert nm-shift 20 ex --try" ok &&
		session_says "convert nm-shift 20 pw" ok &&
		session_says "unlock nm-shift 20" ok
}

# A ShiftLock message type as a fault's filter bit (kmod/shiftlock.h).
MSG_SL_DONE=$((1 << 14))

# late_up_asked: node 0's session takes id 20 PR, alone, and asks to
# convert it up to EX, with the home node's answer (Done) to come 3 s
# late: whoever queues behind the new writer meanwhile tells it so
# before it hears that it is one. A kernel without fault injection (the
# stock one) cannot hold the answer: the conversion goes on without,
# and the two checks say SKIP.
late_up_asked() {
	session_says "lock nm-shift 20 --mode pr" ok || return 1
	if [ -d "$FAULTS" ]; then
		injected delay_msg >/tmp/late-injected &&
			fault delay_msg nodes=$((1 << victim)) types=$MSG_SL_DONE \
				delay_ms=3000 interval=1 times=1 verbose=0 probability=100 ||
			return 1
	fi
	session_ask "convert nm-shift 20 ex"
}

# late_up_granted: the conversion is granted, its answer held.
late_up_granted() {
	local rc=0

	session_answer ok || rc=1
	[ -d "$FAULTS" ] || return $rc
	faults_off || rc=1
	[ "$rc" -eq 0 ] && [ "$(injected delay_msg)" -gt "$(cat /tmp/late-injected)" ]
}



notify_hold() {
	session_says "lock nm-shift 21 --notify" ok &&
		session_says "lock nm-shift 22" ok
}

# notify_heard: node 0's session reads id 21's blocking event (node 1
# asks for it shared), then lets go of 21 and 22.
notify_heard() {
	session_says "blocked 30000" "ok: nm-shift 21 sh" &&
		session_says "unlock nm-shift 21" ok &&
		session_says "unlock nm-shift 22" ok
}

# session_waits: the session has not answered its last line yet.
session_waits() { [ "$(wc -l </tmp/sess.out)" -lt "$(cat /tmp/sess.next)" ]; }

# more_descs_in_use DOMAIN COUNT: more than COUNT descriptors in use.
more_descs_in_use() { [ "$(descs_in_use "$1")" -gt "$2" ]; }

# reader_queued: node 1's session asks for id 23 PR with --notify, and
# waits: a descriptor more in use, still so a second later, no answer.
reader_queued() {
	local used

	used=$(descs_in_use nm-shift)
	session_ask "lock nm-shift 23 --mode pr --notify"
	retry 30 more_descs_in_use nm-shift "$used" && sleep 1 &&
		more_descs_in_use nm-shift "$used" && session_waits
}

# writer_gave_up BEFORE: since abandoned_of nm-shift said BEFORE, an EX
# request of id 23 timed out after it queued, left to the workqueue.
writer_gave_up() {
	lock_times_out nm-shift 23 5000 && abandoned_grew nm-shift "$1" 1
}

# reader_told: node 1's PR is granted, and told of an EX request.
reader_told() {
	local rc=0

	session_answer ok || return 1
	session_says "blocked 30000" "ok: nm-shift 23 ex" || rc=1
	session_says "unlock nm-shift 23" ok && [ "$rc" -eq 0 ]
}

# name_held: node 0's session takes the lock named inode:42, and may not
# take it twice.
name_held() {
	session_says "lock nm-shift --lock-name inode:42" ok &&
		session_says "lock nm-shift --lock-name inode:42" \
			"error: Resource deadlock avoided"
}

# name_excludes: on node 1, inode:42 is taken, inode:43 is not.
name_excludes() {
	local out rc=0

	out=$(ctl lock nm-shift --lock-name inode:42 --try -- true 2>&1) || rc=$?
	echo "$out" >&2
	[ "$rc" -eq 1 ] && echo "$out" | grep -q 'Resource temporarily unavailable' &&
		ctl lock nm-shift --lock-name inode:43 --try -- true
}

# name_refused: node 0's session lets inode:42 go; a name where locks
# are ids, and one of 65 bytes, are refused.
name_refused() {
	session_says "unlock nm-shift --lock-name inode:42" ok &&
		session_says "lock nm-ids --lock-name inode:42" \
			"error: Operation not supported" &&
		session_says "lock nm-shift --lock-name $(printf '%065d' 0)" \
			"error: Invalid argument"
}
# converted_down_with_fault VERBS LINE: rdmalock_dlmprobe.ko's lock,
# held EX, converted down to PR (DLM_LOCK_PR, 3) while the first verb of
# VERBS (a mask of 1 << RDMALOCK_VERB_*) to node 1 fails at post: its
# ast says 0, and the kernel logged LINE.
converted_down_with_fault() {
	local i0 rc=0 status

	i0=$(injected fail_verb)
	fault fail_verb nodes=0x2 verbs="$1" completion=0 interval=1 times=1 verbose=0 \
		probability=100 || rc=1
	status=$(dlmprobe_convert 3) || rc=1
	faults_off || rc=1
	echo "down to PR: status $status, $(($(injected fail_verb) - i0)) injected" >&2
	[ "$rc" -eq 0 ] && [ "$status" = 0 ] && [ $(($(injected fail_verb) - i0)) -eq 1 ] &&
		dmesg | grep -q "$2"
}

# told_done: how many conversions rdmalock_dlm.ko told as done.
told_done() { dmesg | grep -c 'rdmalock_dlm: lock [0-9]*: conversion .*, told as done$'; }

# dlm_converts_again: rdmalock_dlm.ko's conversions down from EX that
# fail are not failed, while this node is a member: GFS2 was told
# -EAGAIN and would have reached a GLOCK_BUG_ON (Documentation/gfs2.rst).
# The lock, id DLM_ID of nm-shift, is homed on node 1. When the LVB's
# write-back (an RDMA WRITE) fails, the conversion changed nothing and
# is asked for again. The lone PR converts up again. When the post of
# the holder's interest at the home (a CAS) fails once the word is
# converted, the handle is left in NL, and PR is asked for again from
# NL: held again, it refuses a writer and admits a reader. Neither was
# told as done. Under lockdep and KASAN, and kmemleak's last scan, as
# GFS2 is not here.
DLM_ID=$((10 * n + 1))
dlm_converts_again() {
	local rc=0 told

	told=$(told_done)
	insmod /lib/rdmalock/rdmalock_dlm.ko || return 1
	insmod /lib/rdmalock/rdmalock_dlmprobe.ko lockspace=nm-shift id=$DLM_ID || {
		rmmod rdmalock_dlm
		return 1
	}
	converted_down_with_fault 0x2 \
		'rdmalock_dlm: lock [0-9]*: conversion from 5 to 3: -[0-9]*, asked again$' || rc=1
	[ "$(dlmprobe_convert 5)" = 0 ] || rc=1
	converted_down_with_fault 0x4 \
		'rdmalock_dlm: lock [0-9]*: conversion from 5 to 3 lost the lock: -[0-9]*, asked for from NL$' ||
		rc=1
	try_says 'Resource temporarily unavailable' nm-shift $DLM_ID || rc=1
	ctl lock nm-shift $DLM_ID --shared --try -- true || rc=1
	[ "$(told_done)" -eq "$told" ] || rc=1
	rmmod rdmalock_dlmprobe && rmmod rdmalock_dlm || rc=1
	return $rc
}

if [ "$VMTEST_NODE" -eq 0 ]; then
	tap_plan 60
elif [ "$VMTEST_NODE" -eq "$victim" ]; then
	tap_plan 37
else
	tap_plan 46
fi
kmemleak_forget
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "four domains created, three with named locks" create_all
tap_check "every node of every domain is up" retry 60 all_up
tap_check "the status tells named locks" status_says_named
barrier up

# Node 1 holds id 0 in both domains; node 2 probes.
if [ "$VMTEST_NODE" -eq 1 ]; then
	hold_lock ids nm-ids 0
	hold_lock named nm-named 0
	tap_check "node 1 holds id 0 in both domains" sh -c \
		". ./lib.sh && hold_started ids 30 && hold_started named 30"
fi
barrier held
if [ "$VMTEST_NODE" -eq "$victim" ]; then
	tap_check "ids 0 and 6 share a slot without --named: one lock (EAGAIN)" \
		try_says 'Resource temporarily unavailable' nm-ids 6
	tap_check "with --named, id 6 is a lock of its own" \
		ctl lock nm-named 6 --try -- true
	tap_check "with --named, id 0 still excludes (EAGAIN)" \
		try_says 'Resource temporarily unavailable' nm-named 0
fi
barrier probed
# Node 1 holds id 6 too: both slots of node 0 are referenced.
if [ "$VMTEST_NODE" -eq 1 ]; then
	hold_lock named6 nm-named 6
	tap_check "node 1 holds id 6 too" hold_started named6 30
fi
barrier full
if [ "$VMTEST_NODE" -eq "$victim" ]; then
	tap_check "a home with every slot referenced refuses a new name (ENOSPC)" \
		try_says 'No space left on device' nm-named 9
fi
barrier refused
if [ "$VMTEST_NODE" -eq 1 ]; then
	tap_check "node 1 lets go of its locks" sh -c \
		". ./lib.sh && hold_unlocked ids && hold_unlocked named && hold_unlocked named6"
fi
set_idle 300
barrier released
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "idle names are given back: no slot of node 0 in use" \
		retry 30 used_here_is nm-named 0
barrier given-back
[ "$VMTEST_NODE" -ne "$victim" ] ||
	tap_check "the refused name now gets a slot" ctl lock nm-named 9 -- true
barrier took-9
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "and gives it back once idle" retry 30 used_here_is nm-named 0
barrier gave-back-9
# From here on, nothing idles out.
set_idle 600000
barrier torture

torture_pair torture_round "no violation" nm-alock alock-50 24 --local 50
torture_pair torture_round "no violation" nm-shift shift-50 24 --local 50 --read 50
lockcache_rounds nm-alock nm-shift
tap_check "nm-pool, 64 descriptors a node, created and up" pool_up
barrier pool-up
if [ "$VMTEST_NODE" -eq 0 ]; then
	tap_check "one caching thread on 100 locks, 64 descriptors: no error, kept locks asked back" \
		pool_round
	tap_check "and the pool did run dry" dmesg_says \
		'rdmalock: nm-pool: all 64 queue descriptors are in use'
	tap_check "and every descriptor is free again (debugfs)" grep -qx \
		'descriptors: 0 in use of 64, 0 lost' /sys/kernel/debug/rdmalock/nm-pool/locks
	tap_check "with its callbacks ignored, the wait for a descriptor times out" \
		pool_round --deaf
fi
barrier pool-done 300
tap_check "nm-pool destroyed" ctl domain destroy nm-pool

# Conversions of nm-shift's id 20 (homed on the last node) by node 0's
# session, probed by the others.
if [ "$VMTEST_NODE" -eq 0 ]; then
	session_open
	tap_check "node 0 takes id 20 EX and converts it down to PR" conv_down
fi
barrier conv-pr
if [ "$VMTEST_NODE" -eq 1 ]; then
	hold_lock pr20 nm-shift 20 --mode pr --try
	tap_check "beside the PR converted down from EX, PR is granted" \
		hold_started pr20 30
fi
[ "$VMTEST_NODE" -ne "$victim" ] ||
	tap_check "and EX is not (EAGAIN)" \
		try_says 'Resource temporarily unavailable' nm-shift 20
barrier conv-probed
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "PR to EX beside another PR is refused (EDEADLK)" \
		session_says "convert nm-shift 20 ex" "error: Resource deadlock avoided"
barrier conv-refused
[ "$VMTEST_NODE" -ne "$victim" ] ||
	tap_check "and the lock stays PR: EX is not granted (EAGAIN)" \
		try_says 'Resource temporarily unavailable' nm-shift 20
barrier conv-kept
[ "$VMTEST_NODE" -ne 1 ] ||
	tap_check "node 1 lets its PR go" hold_unlocked pr20
barrier conv-alone
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "alone, PR converts up to EX" session_says "convert nm-shift 20 ex" ok
barrier conv-up
[ "$VMTEST_NODE" -ne 1 ] ||
	tap_check "and PR is not granted beside it (EAGAIN)" pr_refused nm-shift 20
barrier conv-up-probed
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "node 0 converts it to NL" session_says "convert nm-shift 20 nl" ok
barrier conv-nl
[ "$VMTEST_NODE" -ne "$victim" ] ||
	tap_check "beside NL, EX is granted" ctl lock nm-shift 20 --try -- true
barrier conv-ex
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "from NL up to EX, to PW, and unlocked" conv_up
# The writer converted up is told of its successor before its answer.
late_skip=
[ -d "$FAULTS" ] || late_skip=" # SKIP the answer is not held: no fault injection"
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "node 0 converts a lone PR up, the answer held$late_skip" late_up_asked
barrier late-asked
[ "$VMTEST_NODE" -ne 1 ] || hold_lock late20 nm-shift 20
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "the conversion is granted, the answer late$late_skip" late_up_granted
barrier late-granted
[ "$VMTEST_NODE" -ne 1 ] ||
	tap_check "an EX request made meanwhile is not granted beside it" \
		sh -c "! grep -s '^locked ' /tmp/hold-late20.out"
barrier late-queued
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "its release hands the lock over" \
		session_says "unlock nm-shift 20" ok
[ "$VMTEST_NODE" -ne 1 ] ||
	tap_check "to the request that queued behind it" sh -c \
		". ./lib.sh && hold_started late20 30 && hold_unlocked late20"
barrier late-done
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "node 0 holds id 21 with --notify, id 22 without" notify_hold
barrier nt-held
[ "$VMTEST_NODE" -ne 1 ] || hold_lock n22 nm-shift 22 --shared
barrier nt-22
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "a request for the lock held without --notify tells the file nothing" \
		session_says "blocked 3000" "error: Connection timed out"
barrier nt-quiet
[ "$VMTEST_NODE" -ne 1 ] || hold_lock n21 nm-shift 21 --shared
barrier nt-21
if [ "$VMTEST_NODE" -eq 0 ]; then
	tap_check "one for the lock held with --notify is read as its event" notify_heard
fi
barrier nt-done
[ "$VMTEST_NODE" -ne 1 ] ||
	tap_check "node 1 gets both once node 0 lets go" sh -c \
		". ./lib.sh && hold_started n22 30 && hold_started n21 30 &&
		 hold_unlocked n22 && hold_unlocked n21"
# Id 23: node 0's session holds it EX; node 1's session asks for it PR
# with --notify, and the last node EX, queued behind both, until it gives
# up. Node 0 converts down to PR, which lets the readers queued in ahead
# of the writer that gave up (a writer's release would hand the lock to
# that writer first, within the writer batch). That writer's request
# still waits at the home until the workqueue can let go for it: node 1
# is told of it. (A wait withdrawn when its caller left would leave node
# 1 untold, and everyone queued behind that writer waiting for as long
# as node 1 keeps its PR.)
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "node 0 holds id 23 EX" session_says "lock nm-shift 23 --mode ex" ok
barrier ab-held
if [ "$VMTEST_NODE" -eq 1 ]; then
	session_open
	tap_check "node 1 queues a PR request for it, with --notify" reader_queued
fi
barrier ab-queued
if [ "$VMTEST_NODE" -eq "$victim" ]; then
	abandoned=$(abandoned_of nm-shift)
	tap_check "the last node's EX request, queued behind them, times out and is left to the workqueue" \
		writer_gave_up "${abandoned:-0}"
fi
barrier ab-gave-up
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "node 0 converts id 23 down to PR, letting the readers in" \
		session_says "convert nm-shift 23 pr" ok
if [ "$VMTEST_NODE" -eq 1 ]; then
	tap_check "node 1's PR, let in ahead of the writer that gave up, hears of its EX request" \
		reader_told
	exec 7>&-
fi
barrier ab-told
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "node 0 lets id 23 go" session_says "unlock nm-shift 23" ok
barrier ab-released
[ "$VMTEST_NODE" -ne "$victim" ] ||
	tap_check "and the workqueue lets go for that writer: no descriptor of the last node in use, none lost" \
		retry 30 descs_all_free nm-shift
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "node 0 holds the lock named inode:42, once (EDEADLK)" name_held
barrier name-held
[ "$VMTEST_NODE" -ne 1 ] ||
	tap_check "on node 1, inode:42 is taken (EAGAIN), inode:43 is not" name_excludes
barrier name-probed
if [ "$VMTEST_NODE" -eq 0 ]; then
	tap_check "names refused where ids map to slots (EOPNOTSUPP), or too long" \
		name_refused
	exec 7>&-
fi

[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "node 0 writes id 1's LVB and notes its token" note_token
barrier before-cut
join_skip=
[ -d "$FAULTS" ] || join_skip=" # SKIP node 1's steps are not held: no fault injection"
# Not before every node passed the barrier: one still asking node 1
# would otherwise wait for its link, and miss the rejoin it watches.
[ "$VMTEST_NODE" -ne 1 ] || peers_published before-cut.passed 120 ||
	echo "a peer did not pass before-cut" >&2
[ "$VMTEST_NODE" -ne 1 ] ||
	tap_check "node 1, cut off for $CUT_S s, fences itself" cut_home
# Once this node has reset its tables in the view change that takes
# node 1 back, node 1 mostly has not yet, and does not count this node
# in: a name homed on it, resolved then, is refused there (ENOTCONN), and
# asked again once the view is open here. Once node 1 has reset too
# (this node's claims come after every member's reset), a name homed on
# it is resolved at once, and its acquisition waits here for the view to
# open, although node 1 is not yet in this node's view. Both are granted.
if [ "$VMTEST_NODE" -eq "$victim" ]; then
	lock_in_step reset $JOIN_ID
	lock_in_step claim $CLAIM_ID
	tap_check "a name homed on node 1, resolved once this node has reset, is granted$join_skip" \
		waited join-reset 60
	tap_check "one resolved once node 1 has reset, before this node's view takes it back, is granted$join_skip" \
		waited join-claim 60
fi
tap_check "after the cut, every node is back in full views" retry 90 all_up
[ "$VMTEST_NODE" -ne 1 ] ||
	tap_check "node 1 came back with its steps held$join_skip" join_held
barrier after-cut
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "a name homed on the node that came back is resolved anew" \
		value_after nm-named 1 /tmp/token-before-cut 'value: token [0-9]*, lvb valid: '
barrier resolved-anew

tap_check "the sample client caches a lock until its blocking callback" sample_caches
[ "$VMTEST_NODE" -eq "$victim" ] ||
	tap_check "the sample client hears its slot at registration" watch_views
mark_told restart
barrier watching
[ "$VMTEST_NODE" -ne "$victim" ] ||
	tap_check "the last node recreates nm-ids at once" restart_ids
[ "$VMTEST_NODE" -eq "$victim" ] ||
	tap_check "the client hears the node that restarted leave and come back" \
		retry 60 told_in_order restart $((victim + 1)) 1,2,3
barrier restarted

# Lock values on ids homed on node 1, whose slots the checks above do not
# count. Node 0 references id 4, so that its name outlives the victim.
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "an exclusive holder writes its LVB back" sh -c \
		"rdmalockctl lock nm-named 1 --lvb hello -- true &&
		 rdmalockctl lock nm-named 4 --lvb doomed-before -- true"
barrier lvb-written
[ "$VMTEST_NODE" -ne "$victim" ] ||
	tap_check "a shared grant reads the LVB; exclusive ones take consecutive tokens" \
		lvb_seen
barrier lvb-read


# The victim references id 12 (homed on node 0), then dies.
if [ "$VMTEST_NODE" -eq "$victim" ]; then
	tap_check "the last node references id 12" ctl lock nm-named 12 -- true
	tap_check "and holds id 4 exclusive, with an LVB to write back" \
		doomed_hold nm-named 4
fi
barrier victim-ref
if [ "$VMTEST_NODE" -eq 0 ]; then
	tap_check "node 0 gave the name a slot" used_here_is nm-named 1
	wget -q -O /tmp/doomed-token "$(peer_url "$victim" "doomed-token")"
	# Id 50 is homed on the victim; ALock and ShiftLock claim it apart.
	hold_lock moved-alock nm-alock $MOVED_ID
	hold_lock moved-shift nm-shift $MOVED_ID
	tap_check "node 0 holds id $MOVED_ID, homed on the last node, in nm-alock and nm-shift" \
		moved_held
	: >"$WWW/moved-held"
fi
[ "$VMTEST_NODE" -ne 1 ] ||
	tap_check "node 1 queues for it behind node 0, in both" moved_queued
mark_told death
if [ "$VMTEST_NODE" -eq "$victim" ]; then
	die_after victim-ready
fi
# The victim waits for us, then dies; we do not wait for it.
VMTEST_GONE=$victim
barrier victim-ready
tap_check "the view goes on without the dead node" retry 60 view_is nm-named 0,1
tap_check "the client heard recover_prep, recover_slot, recover_done in order" \
	views_told
if [ "$VMTEST_NODE" -eq 0 ]; then
	tap_check "the view change freed the dead node's slot" used_here_is nm-named 0
	tap_check "the dead holder's LVB is not valid, the next token higher" \
		value_after nm-named 4 /tmp/doomed-token \
		'value: token [0-9]*, lvb not valid: doomed-before'
	tap_check "the next exclusive write-back makes it valid again" lvb_valid_again
fi
# Not before node 0 has counted its slots: the survivors take id 12.
barrier slots-counted
[ "$VMTEST_NODE" -ne 1 ] ||
	tap_check "the dead node's id $MOVED_ID is homed on a survivor, where node 0's holds exclude (EAGAIN)" \
		moved_refused
barrier moved-refused
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "node 0 kept them through the view change, and releases them" \
		moved_released
barrier moved-released
if [ "$VMTEST_NODE" -eq 1 ]; then
	tap_check "node 1's requests, queued at the dead node, are granted at the new home" \
		moved_waited
	tap_check "then node 1 takes them at their new home" moved_taken
fi
tap_check "the survivors still resolve and take names" sh -c \
	"rdmalockctl lock nm-named $((3 + VMTEST_NODE)) -- true &&
	 rdmalockctl lock nm-named 12 -- true"
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "rdmalock_dlm: conversions down whose verbs fail are asked again, then done" \
		dlm_converts_again
barrier survivors-done 120
tap_check "domains destroyed, rdmalock.ko unloads" sh -c \
	"rmmod rdmalock_example && rdmalockctl domain destroy nm-ids && rdmalockctl domain destroy nm-named &&
	 rdmalockctl domain destroy nm-alock && rdmalockctl domain destroy nm-shift &&
	 rmmod rdmalock"
tap_kmemleak

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# gfs2: Debian's own gfs2.ko, unmodified, on guests that share one disk
# (vmtest --disk), with each lock manager of GFS2_LMS in turn:
# rdmalock_dlm.ko in dlm.ko's place, and the kernel's own dlm.ko, the
# baseline, set up as dlm_controld would (configfs), on the same guests.
# With each:
#  - gfs2.ko loads against the lock manager's exports (rdmalock_dlm.ko's
#    CRCs are dlm.ko's: build-module.sh checks them);
#  - on rdmalock, node 0 first mounts on a domain without named locks,
#    which must fail, and converts a lock down from EX in a domain
#    destroyed under it, which must be told done, as GFS2 needs;
#  - node 0 makes the filesystem (lock_dlm, table rdmalock:gfs0, a journal
#    for each node); every node mounts it, with the journal of its slot;
#  - each node writes a file into a directory of its own and one into a
#    shared directory; then each renames the next node's shared file and
#    unlinks the next node's own file, and appends lines to one shared
#    log under flock(), all at once;
#  - every node then checks every file's content, the log's lines and the
#    directories' listings against what the nodes did, computed again
#    here, not read back from the filesystem's view;
#  - unless GFS2_HELD=0, node 0 unlinks a file that node 1 holds open
#    (unlink_held);
#  - with GFS2_BENCH quick or full, the benchmark: file creates in a
#    directory per node, one cold listing and stat of node 0's directory
#    by every node, appends by every node to one file; node 0 prints both
#    lock managers' rates side by side, with GFS2's own mean DLM round
#    trips of inode glocks (its sbstats);
#  - on rdmalock, unless GFS2_CUT=0, the last node syncs a file, writes
#    another, stops and syncs, and its link is cut for CUT_S seconds: it
#    fences itself, and the uevent that says so cuts it off from the disk
#    and withdraws its GFS2, as the udev rule of
#    Documentation/membership.rst would (with gfs2-utils' own rule's
#    acknowledgment); the others go on in a view without it and replay
#    its journal, its synced file reads back as written; its link back,
#    it rejoins the view, unmounts the withdrawn filesystem, is given the
#    disk back, mounts it again and reads what the others wrote
#    meanwhile. GFS2_FENCE=withdraw leaves the disk to it, which the
#    checks must catch: the withdrawn filesystem's unmount writes what
#    its journal held over what the others changed since;
#  - on rdmalock, unless GFS2_DEATH=0, the last node syncs a file, keeps
#    writing another, and dies (powered off): the others go on in a view
#    without it, GFS2 replays its journal on one of them (recover_slot),
#    its synced file reads back as written, and they write and read on.
#    The locks homed on it move to the survivors, and those the survivors
#    held are claimed there. The death comes last: rdmalock is the last
#    of GFS2_LMS (dlm.ko would need dlm_controld's part in a node's death
#    too);
#  - every node unmounts; fsck.gfs2 -n finds nothing wrong.
# GFS2_ALGO picks the rdmalock domain's algorithm; gfs2-negative.sh sets
# test-none, a lock that excludes nobody, which these checks must see.
# GFS2_DESCRIPTORS, its queue descriptors a node: fewer than the glocks
# GFS2 keeps make the nodes ask GFS2 for them back (blocking callbacks).
# Settings come from vmtest --set, whose values have no spaces: GFS2_LMS
# is comma-separated.
. ./lib.sh

: "${GFS2_ALGO:=shiftlock}"
: "${GFS2_LMS:=dlm,rdmalock}"
: "${GFS2_BENCH:=none}"
: "${GFS2_DESCRIPTORS:=8192}"
: "${GFS2_FENCE:=storage}"
case "$GFS2_FENCE" in
storage | withdraw) ;;
*) echo "GFS2_FENCE must be storage or withdraw, not $GFS2_FENCE" >&2; exit 1 ;;
esac
# A lock that excludes nobody has no recovery to show, and a file held
# open and unlinked on it leaves GFS2 hanging, not failing.
case "$GFS2_ALGO" in
test-*) : "${GFS2_DEATH:=0}" "${GFS2_CUT:=0}" "${GFS2_HELD:=0}" ;;
*) : "${GFS2_DEATH:=1}" "${GFS2_CUT:=1}" "${GFS2_HELD:=1}" ;;
esac
case ",$GFS2_LMS" in *,rdmalock) ;; *) GFS2_DEATH=0 ;; esac
case ",$GFS2_LMS," in *,rdmalock,*) ;; *) GFS2_CUT=0 ;; esac
# Longer than the node lease (4 s) and the victim's withdraw, which waits
# up to 5 s for its log: the withdraw was over 9 s into the cut.
CUT_S=20
FS=gfs0
MNT=/mnt/gfs2
# The disk, through a device-mapper device that a fence can cut, named
# after the lockspace as membership.rst's udev rule has it.
DM=gfs2-$FS
DEV=/dev/mapper/$DM
# No udev in the guests: libdevmapper makes the nodes itself.
export DM_DISABLE_UDEV=1
n=$(num_nodes)
victim=$((n - 1))

# insmod_chain DIR: the modules of /lib/modules/DIR, in order, but those
# already loaded.
insmod_chain() {
	local m

	while read -r m; do
		[ -d "/sys/module/$(echo "${m%.ko}" | tr - _)" ] ||
			insmod "/lib/modules/$1/$m" || return 1
	done <"/lib/modules/$1/order"
}

# disk_table: the device-mapper table that maps the whole disk.
disk_table() { echo "0 $(cat /sys/block/vda/size) linear /dev/vda 0"; }

# map_disk: DEV, once; it stays for every lock manager.
map_disk() { [ -e $DEV ] || dmsetup create $DM --table "$(disk_table)"; }

# unfence_disk: DEV maps the disk again after a fence cut it.
unfence_disk() { dmsetup load $DM --table "$(disk_table)" && dmsetup resume $DM; }

load_rdmalock_lm() {
	case "$GFS2_ALGO" in
	test-*) insmod /lib/rdmalock/rdmalock.ko allow_broken=1 ;;
	*) insmod /lib/rdmalock/rdmalock.ko ;;
	esac || return 1
	insmod /lib/rdmalock/rdmalock_dlm.ko cluster_name=rdmalock &&
		insmod_chain gfs2 && map_disk
}

load_dlm_lm() { insmod_chain dlm && insmod_chain gfs2 && map_disk; }

# unload_dlm_lm: configfs emptied, as dlm.ko's subsystem must be to go.
unload_dlm_lm() {
	rmmod gfs2 &&
		rmdir $DLMCFG/spaces/$FS/nodes/* $DLMCFG/spaces/$FS $DLMCFG/comms/* $DLMCFG &&
		rmmod dlm
}

DLMCFG=/sys/kernel/config/dlm/cluster

# dlm_addr NODE: NODE's address as the sockaddr_storage dlm's configfs
# takes, in one write of its 128 bytes (AF_INET, dlm sets the port).
dlm_addr() {
	local a b c d

	IFS=. read -r a b c d <<EOA
$(node_addr "$1")
EOA
	# shellcheck disable=SC2059
	printf "\\002\\000\\000\\000\\$(printf %o "$a")\\$(printf %o "$b")\\$(printf %o "$c")\\$(printf %o "$d")" \
		>/tmp/addr && head -c 120 /dev/zero >>/tmp/addr &&
		dd if=/tmp/addr bs=128 count=1 2>/dev/null
}

# configure_dlm: dlm_controld's part of the cluster's set-up, by hand:
# the cluster's name, each node's id (its vmtest id + 1) and address,
# which one is this node, and the lockspace's members.
configure_dlm() {
	local p=0 id dir

	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs none /sys/kernel/config || return 1
	# No newline: dlm.ko compares the name as written.
	mkdir $DLMCFG && printf rdmalock >$DLMCFG/cluster_name &&
		echo 1 >$DLMCFG/recover_callbacks || return 1
	while [ $p -lt "$n" ]; do
		id=$((p + 1))
		dir=$DLMCFG/comms/$id
		mkdir "$dir" && echo $id >"$dir/nodeid" || return 1
		[ $p -ne "$VMTEST_NODE" ] || echo 1 >"$dir/local" || return 1
		dlm_addr $p >"$dir/addr" || return 1
		dir=$DLMCFG/spaces/$FS/nodes/$id
		mkdir -p "$dir" && echo $id >"$dir/nodeid" && echo 1 >"$dir/weight" ||
			return 1
		p=$((p + 1))
	done
}

# join_dlm_lockspace: once the mount has made the lockspace, start it
# and end the uevent that the mount waits for, as dlm_controld would.
# Leaving, the unmount waits for one too: ended before it is sent.
join_dlm_lockspace() {
	retry 120 test -e /sys/kernel/dlm/$FS/event_done &&
		echo 1 >/sys/kernel/dlm/$FS/control &&
		echo 0 >/sys/kernel/dlm/$FS/event_done
}

# create_fs_domain named|unnamed: the domain that is GFS2's lockspace.
create_fs_domain() {
	local named=--named

	[ "$1" = named ] || named=
	# shellcheck disable=SC2086 # no argument when empty
	rdmalockctl domain create $FS --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" \
		--key-file "$(key_file)" --port 7501 --algo "$GFS2_ALGO" \
		--locks-per-node 4096 --descriptors "$GFS2_DESCRIPTORS" $named
}

# unnamed_refused: on a domain without named locks, a mount fails at
# once, with a line that says why, not on the first lock. The lock table
# is given: there may be no filesystem yet.
unnamed_refused() {
	local rc=0

	create_fs_domain unnamed && mkdir -p $MNT || return 1
	if timeout 60 mount -t gfs2 -o lockproto=lock_dlm,locktable=rdmalock:$FS \
		$DEV $MNT; then
		umount $MNT
		rc=1
	fi
	rdmalockctl domain destroy $FS || rc=1
	[ $rc -eq 0 ] && kmsg | grep -q "lockspace $FS: its rdmalock domain has no named locks"
}

# converted_down_after_destroy: rdmalock_dlm never fails a conversion
# down from EX, which GFS2 would take for a bug (Documentation/gfs2.rst).
# rdmalock_dlmprobe.ko holds a lock EX in a one-node domain of its own,
# destroyed under it, as every lock of a fenced node is lost; converted
# down to PR (DLM_LOCK_PR, 3), its ast must say 0, not -ETIMEDOUT.
converted_down_after_destroy() {
	local status rc=0

	rdmalockctl domain create probe --node-id 0 --nodes "${VMTEST_NODES%%,*}" \
		--key-file "$(key_file)" --port 7502 --algo "$GFS2_ALGO" --named ||
		return 1
	insmod /lib/rdmalock/rdmalock_dlmprobe.ko lockspace=probe || rc=1
	rdmalockctl domain destroy probe || rc=1
	[ $rc -eq 0 ] || return 1
	status=$(dlmprobe_convert 3) || rc=1
	rmmod rdmalock_dlmprobe || rc=1
	echo "its conversion from EX to PR ended with status $status"
	[ $rc -eq 0 ] && [ "$status" = 0 ]
}

make_fs() {
	mkfs.gfs2 -O -p lock_dlm -t rdmalock:$FS -j "$n" -J 8 $DEV
}

mount_fs() {
	local joiner=

	mkdir -p $MNT || return 1
	if [ "$1" = dlm ]; then
		join_dlm_lockspace &
		joiner=$!
	fi
	if ! mount -t gfs2 $DEV $MNT; then
		[ -z "$joiner" ] || kill "$joiner" 2>/dev/null
		return 1
	fi
	[ -z "$joiner" ] || wait "$joiner"
}

# dlm_forget NODE: the lockspace goes on without NODE, which leaves it,
# as dlm_controld would have it: stopped on every node that stays, then
# NODE taken out of its members, and started again, which recovers
# (NODE's resources mastered anew).
dlm_forget() {
	echo 0 >/sys/kernel/dlm/$FS/control && barrier "stopped-$1" 300 &&
		rmdir "$DLMCFG/spaces/$FS/nodes/$(($1 + 1))" &&
		echo 1 >/sys/kernel/dlm/$FS/control
}

leaving_lines() { kmsg | grep -c "dlm: $FS: leaving the lockspace group" || true; }

# leaving_since COUNT: this node's lockspace said it leaves since there
# were COUNT such lines.
leaving_since() { [ "$(leaving_lines)" -gt "$1" ]; }

# dlm_leave: this node's unmount, whose lockspace, once it has let go of
# its locks, waits for the others to forget it (dlm_controld's part):
# then its uevent ends, and its connections close.
dlm_leave() {
	local before helper

	before=$(leaving_lines)
	(retry 300 leaving_since "$before" && barrier "leaving-$VMTEST_NODE" 300 &&
		barrier "stopped-$VMTEST_NODE" 300 && barrier "forgot-$VMTEST_NODE" 300 &&
		echo 0 >/sys/kernel/dlm/$FS/event_done) &
	helper=$!
	if ! umount $MNT; then
		kill $helper 2>/dev/null
		return 1
	fi
	wait $helper
}

# umount_dlm: on dlm.ko, the nodes leave one at a time, the last first;
# the others forget each one as it leaves.
umount_dlm() {
	local p=$((n - 1))

	while [ $p -gt "$VMTEST_NODE" ]; do
		barrier "leaving-$p" 300 && dlm_forget $p && barrier "forgot-$p" 300 ||
			return 1
		p=$((p - 1))
	done
	dlm_leave || return 1
	while [ $p -gt 0 ]; do
		p=$((p - 1))
		barrier "leaving-$p" 300 && barrier "stopped-$p" 300 &&
			barrier "forgot-$p" 300 || return 1
	done
}

# lock_state SECONDS: what an unmount that has waited SECONDS waits for:
# this node's glocks and lock module state, its lock manager's resources
# and locks (the hung-task reports that follow show the blocked tasks).
lock_state() {
	local f

	echo "# node $VMTEST_NODE's unmount has waited for $1 s:"
	for f in /sys/kernel/debug/gfs2/*/glocks /sys/fs/gfs2/*/lock_module/* \
		/sys/kernel/debug/dlm/$FS /sys/kernel/debug/dlm/${FS}_waiters \
		/sys/kernel/debug/rdmalock/$FS/locks; do
		[ ! -f "$f" ] || { echo "# $f:" && cat "$f"; }
	done
}

# umount_fs LM: every node's unmount, which waits for the others' on
# dlm.ko. If it takes UMOUNT_WATCH_S, the lock state goes to the console:
# the node whose unmount hangs may wait for what another one holds.
UMOUNT_WATCH_S=90
umount_fs() {
	local watch rc=0

	(sleep $UMOUNT_WATCH_S && lock_state $UMOUNT_WATCH_S) >/dev/console 2>&1 &
	watch=$!
	if [ "$1" = dlm ]; then
		umount_dlm || rc=1
	else
		umount $MNT || rc=1
	fi
	kill $watch 2>/dev/null
	return $rc
}

APPENDS=20

# content NODE: what node NODE writes into its files.
content() { seq 1 3000 | sed "s/^/node $1, line /"; }

next_node() { echo $((($1 + 1) % n)); }

write_own() {
	mkdir -p $MNT/dir"$VMTEST_NODE" $MNT/shared &&
		content "$VMTEST_NODE" >$MNT/dir"$VMTEST_NODE"/a &&
		content "$VMTEST_NODE" >$MNT/dir"$VMTEST_NODE"/b &&
		content "$VMTEST_NODE" >$MNT/shared/file"$VMTEST_NODE"
}

# cross_node: rename the next node's shared file, unlink the next node's
# file b, and append to the shared log under flock, one line at a time.
cross_node() {
	local next i=1

	next=$(next_node "$VMTEST_NODE")
	mv $MNT/shared/file"$next" $MNT/shared/moved"$next" &&
		rm $MNT/dir"$next"/b || return 1
	while [ $i -le $APPENDS ]; do
		flock $MNT/shared/log.lock sh -c \
			"echo 'node $VMTEST_NODE, entry $i' >>$MNT/shared/log" || return 1
		i=$((i + 1))
	done
}

# listing_is DIR NAMES...: DIR holds exactly NAMES.
listing_is() {
	local dir="$1" got want

	shift
	got=$(find "$dir" -mindepth 1 -maxdepth 1 -exec basename {} \; | sort |
		tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	[ "$got" = "$want" ] || { echo "$dir: $got, not $want" >&2; return 1; }
}

# log_is_whole: each node's entries, in its order, and nothing else.
log_is_whole() {
	local p=0 i

	[ "$(wc -l <$MNT/shared/log)" -eq $((n * APPENDS)) ] || return 1
	while [ $p -lt "$n" ]; do
		i=$(sed -n "s/^node $p, entry //p" $MNT/shared/log | tr '\n' ' ')
		[ "$i" = "$(seq 1 $APPENDS | tr '\n' ' ')" ] || return 1
		p=$((p + 1))
	done
}

# hold_open LM: node 1's part of unlink_held: it writes a file and holds
# it open on descriptor 3, in a shell of its own, while node 0 unlinks
# it; then it reads it whole from that descriptor, and closes it.
hold_open() {
	(
		ok=1
		mkdir $MNT/held && content 1 >$MNT/held/file &&
			exec 3<$MNT/held/file && ok=0
		barrier "held-open-$1" 300 && barrier "held-unlinked-$1" 300 &&
			[ $ok -eq 0 ] && [ ! -e $MNT/held/file ] &&
			cat <&3 >/tmp/held-read && content 1 | cmp - /tmp/held-read
	)
}

# cancels: the requests rdmalock_dlm cancelled, by its debug lines.
cancels() { kmsg | grep -c 'rdmalock_dlm: lock [0-9]*: request cancelled' || true; }

# unlink_by_node0 LM: node 0's part of unlink_held. On rdmalock, GFS2's
# cancel of its iopen request is logged, and seen.
unlink_by_node0() {
	local before

	[ "$1" = rdmalock ] &&
		echo 'module rdmalock_dlm format "request cancelled" +p' \
			>/sys/kernel/debug/dynamic_debug/control
	before=$(cancels)
	barrier "held-open-$1" 300 && rm $MNT/held/file || return 1
	[ "$1" != rdmalock ] || [ "$(cancels)" -gt "$before" ] ||
		{ echo "no request was cancelled" >&2; return 1; }
}

# unlink_held LM: node 0 unlinks a file that node 1 holds open. GFS2 on
# node 0 asks for the file's iopen lock, which node 1 holds, and cancels
# the request once node 1 says it cannot let go (or 5 s on): the inode is
# left to its holder. Its name is gone from every node's view; its holder
# reads it whole, closes it, and, dropping the inode from its caches,
# frees it (fsck would find it unlinked and in use). Every node reaches
# every barrier, whatever failed.
unlink_held() {
	local rc=0

	case "$VMTEST_NODE" in
	0) unlink_by_node0 "$1" || rc=1 ;;
	1) hold_open "$1" || rc=1 ;;
	*) barrier "held-open-$1" 300 || rc=1 ;;
	esac
	[ "$VMTEST_NODE" -eq 1 ] || barrier "held-unlinked-$1" 300 || rc=1
	[ "$VMTEST_NODE" -ne 1 ] || echo 2 >/proc/sys/vm/drop_caches || rc=1
	barrier "held-closed-$1" 300 && [ -z "$(ls -A $MNT/held)" ] && [ $rc -eq 0 ]
}

check_all() {
	local p=0 names='log log.lock'

	while [ $p -lt "$n" ]; do
		content $p | cmp - $MNT/dir$p/a &&
			content $p | cmp - $MNT/shared/moved$p &&
			listing_is $MNT/dir$p a || return 1
		names="$names moved$p"
		p=$((p + 1))
	done
	# shellcheck disable=SC2086
	listing_is $MNT/shared $names && log_is_whole
}

fsck_clean() { fsck.gfs2 -n $DEV; }

# fsck_clean_but_statfs: after a node's death, fsck.gfs2 -n finds nothing
# wrong but, at most, the master statfs totals, which it reports without
# any other finding. They were seen off by the dead node's own changes in
# two runs of four: GFS2's replay writes them without the master statfs'
# glock, which a survivor's next sync can undo, or a lost update under
# that glock; until that is told apart (Documentation/gfs2.rst), only
# that finding is let through, and it is logged.
fsck_clean_but_statfs() {
	local out rc=0

	out=$(fsck.gfs2 -n $DEV 2>&1) || rc=$?
	echo "$out"
	[ "$rc" -eq 0 ] && return 0
	echo "$out" | grep -q '^The statfs file is wrong' || return 1
	echo "$out" | sed '/^The statfs file is wrong/,/^The statfs file was not fixed/d' |
		grep -Eiq 'wrong|inconsistent|error|invalid|bad |not fixed|unlinked|duplicate|corrupt|found' &&
		return 1
	echo "fsck: only the master statfs is off, after the death" >&2
}

# bench_run LM: this node's part of the benchmark, its rates published
# for node 0 as bench-LM: "OPERATION OPS SECONDS" lines, then GFS2's
# mean DLM round trips (ns) of inode glocks, non-blocking and blocking.
bench_run() {
	local lm="$1" creates=50 secs=2 out="/tmp/bench-$1"

	[ "$GFS2_BENCH" = quick ] || creates=300 secs=10
	mkdir $MNT/bench"$VMTEST_NODE" &&
		fsbench create $MNT/bench"$VMTEST_NODE" $creates >"$out" || return 1
	barrier "created-$lm" 300 || return 1
	fsbench stat $MNT/bench0 1 >>"$out" || return 1
	barrier "listed-$lm" 300 || return 1
	fsbench append $MNT/hot $secs >>"$out" || return 1
	awk '$1 == "inode" && ($2 == "srtt:" || $2 == "srttb:") {
		s = 0; k = 0
		for (i = 3; i <= NF; i++) if ($i > 0) { s += $i; k++ }
		print substr($2, 1, length($2) - 1), k ? s / k : 0
	}' /sys/kernel/debug/gfs2/rdmalock:$FS/sbstats >>"$out" || return 1
	cat "$out"
	cp "$out" "$WWW/bench-$lm"
}

# bench_gather LM: node 0 keeps every node's results, before one dies.
bench_gather() {
	local p=0

	while [ $p -lt "$n" ]; do
		timeout 10 wget -q -O "/tmp/bench-$1-$p" "$(peer_url "$p" "bench-$1")" ||
			return 1
		p=$((p + 1))
	done
}

# bench_value LM NODE KEY: field 2 over field 3 (or field 2 alone) of the
# line KEY of NODE's results.
bench_value() {
	awk -v k="$3" '$1 == k { print (NF > 2 ? $2 / $3 : $2) }' "/tmp/bench-$1-$2"
}

# bench_total LM KEY: the sum of every node's rate (ops/s), or the mean
# of their round trips (us).
bench_total() {
	local p=0

	while [ $p -lt "$n" ]; do
		bench_value "$1" $p "$2" || return 1
		p=$((p + 1))
	done | awk -v k="$2" '{ s += $1 } END {
		if (k ~ /^srtt/) printf "%.0f", s / NR / 1000; else printf "%.0f", s }'
}

# bench_table: one row per operation, every lock manager's figure in a
# column, and rdmalock's over dlm's.
bench_table() {
	local lms key row lm v ours theirs

	lms=$(echo "$GFS2_LMS" | tr , ' ')
	# shellcheck disable=SC2086
	printf '# | %-34s |%s rdmalock/dlm |\n' "GFS2 on $n nodes ($GFS2_BENCH)" \
		"$(printf ' %10s |' $lms)"
	for key in create stat append srtt srttb; do
		case $key in
		create) row="file creates, own directory, ops/s" ;;
		stat) row="cold stats of node 0's files, /s" ;;
		append) row="appends to one shared file, ops/s" ;;
		srtt) row="inode glock DLM round trip, us" ;;
		srttb) row="same, blocking requests, us" ;;
		esac
		printf '# | %-34s |' "$row"
		ours=0 theirs=0
		for lm in $lms; do
			v=$(bench_total "$lm" $key) || return 1
			printf ' %10s |' "$v"
			[ "$lm" != rdmalock ] || ours=$v
			[ "$lm" != dlm ] || theirs=$v
		done
		awk -v a="$ours" -v b="$theirs" \
			'BEGIN { printf " %12s |\n", (b > 0 ? sprintf("%.2f", a / b) : "-") }'
	done
}

# survivors: the nodes but the victim, as a view lists them ("0,1").
survivors() { seq -s, 0 $((victim - 1)); }

# doom_victim TAG: the victim syncs a file TAG-kept, and keeps writing
# another, until a write fails, in a process whose pid is in
# /tmp/writer-TAG.
doom_victim() {
	content "$victim" >"$MNT/dir$victim/$1-kept" && sync || return 1
	(while content "$victim" >>"$MNT/dir$victim/$1-growing"; do :; done) &
	echo $! >"/tmp/writer-$1"
	sleep 2
}

# kmsg: the kernel's log, all of it (busybox keeps its last 16 KiB).
kmsg() { dmesg -s 1048576; }

# replays: how many times this node's GFS2 said it replayed the victim's
# journal (its slot is its id plus one, its journal its id).
replays() { kmsg | grep -c ": jid=$victim: Done" || true; }

# mark_replays TAG: the count that journal_replayed TAG starts from.
mark_replays() { replays >"/tmp/replays-before-$1"; }

# journal_replayed TAG: one survivor or another replayed it since the
# mark TAG.
journal_replayed() {
	local p=0 sum=0 c

	echo $(($(replays) - $(cat "/tmp/replays-before-$1"))) >"$WWW/replayed-$1"
	while [ $p -lt "$victim" ]; do
		c=$(timeout 10 wget -q -O - "$(peer_url "$p" "replayed-$1")") || c=0
		sum=$((sum + ${c:-0}))
		p=$((p + 1))
	done
	[ "$sum" -gt 0 ]
}

# read_on TAG: each survivor's file TAG-NODE, and the victim's synced
# file TAG-kept, read as written.
read_on() {
	local p=0

	while [ $p -lt "$victim" ]; do
		content $p | cmp - "$MNT/shared/$1-$p" || return 1
		p=$((p + 1))
	done
	content "$victim" | cmp - "$MNT/dir$victim/$1-kept"
}

# go_on TAG: each survivor writes its file TAG-NODE, then reads them all,
# and the victim's synced file.
go_on() {
	content "$VMTEST_NODE" >"$MNT/shared/$1-$VMTEST_NODE" && sync &&
		barrier "$1-written" 300 && read_on "$1"
}

# fence_listener: the cluster manager's part of a fence, as udev rules
# would play it: on a domain it fenced itself in, this node is cut off
# from the disk (its device-mapper table fails every I/O from then on,
# once the I/O under way is done), and its GFS2 is withdrawn; the
# withdraw that GFS2 announces is acknowledged. The write that withdraws
# returns only then: it runs apart. With GFS2_FENCE=withdraw, the
# withdraw only.
fence_listener() {
	# shellcheck disable=SC2016 # expanded by the handler's shell
	uevent sh -c 'case "$ACTION:$SUBSYSTEM:$RDMALOCK_EVENT" in
	change:misc:fenced)
		echo "fenced $RDMALOCK_DOMAIN" >>/tmp/gfs2-events
		if [ "$1" = storage ]; then
			dmsetup wipe_table --nolockfs "gfs2-$RDMALOCK_DOMAIN" &&
				echo "disk cut" >>/tmp/gfs2-events
		fi
		for f in /sys/fs/gfs2/*:"$RDMALOCK_DOMAIN"/withdraw; do
			[ ! -e "$f" ] || echo 1 >"$f" &
		done ;;
	offline:gfs2:*)
		echo "offline $DEVPATH" >>/tmp/gfs2-events
		echo 1 >"/sys$DEVPATH/lock_module/withdraw" ;;
	esac' sh "$GFS2_FENCE" &
}

# disk_cut: DEV fails every I/O: its table is the error target.
disk_cut() { dmsetup table $DM | grep -qw error; }

# fenced_off: told it fenced itself, this node was cut off from the disk
# (unless GFS2_FENCE=withdraw), and its GFS2 withdrew to the end, its
# offline event acknowledged.
fenced_off() {
	cat /tmp/gfs2-events >&2
	grep -q "^fenced $FS\$" /tmp/gfs2-events &&
		{ [ "$GFS2_FENCE" != storage ] ||
			{ grep -q "^disk cut\$" /tmp/gfs2-events && disk_cut; }; } &&
		grep -q "^offline " /tmp/gfs2-events &&
		kmsg | grep -q "fsid=rdmalock:$FS\.[0-9]*: File system withdrawn"
}

# writes_fail: a write into the withdrawn filesystem fails.
writes_fail() { ! content "$victim" >$MNT/dir$victim/after-withdraw; }

# remount: the filesystem unmounted, which writes in place what this node
# changed and lets go of its locks, and mounted again; on the victim,
# withdrawn, with the disk given back between (its fence undone).
remount() {
	umount $MNT || return 1
	[ "$VMTEST_NODE" -ne "$victim" ] || unfence_disk || return 1
	mount_fs rdmalock
}

# cut_victim: the victim syncs a file, writes another, stops and syncs,
# and is cut off for CUT_S s, in which it fences itself, loses the disk
# and withdraws its GFS2; its link back, it rejoins the view, and mounts
# the filesystem anew. Stopped and synced, its last changes are in its
# journal but not all in place yet: the others replay them, change those
# blocks on and write them in place. Were this node still writing to the
# disk, the unmount of its withdrawn GFS2 would write its older copies
# over them (GFS2_FENCE=withdraw).
cut_victim() {
	local end

	tap_check "rdmalock: the last node syncs a file, and writes another" \
		doom_victim cut
	barrier cut-doomed 300
	# The survivors poll the barrier: it must not be gone from their view.
	peers_published cut-doomed.passed 300
	# Its last pipeline ends within the second.
	kill "$(cat /tmp/writer-cut)"
	sleep 1
	sync
	echo "# link down for $CUT_S s" >&2
	ip link set eth0 down
	end=$(($(date +%s) + CUT_S))
	tap_check "rdmalock: cut off, it fences itself, loses the disk, its GFS2 withdraws" \
		retry_until $((end - 1)) fenced_off
	tap_check "rdmalock: writes into the withdrawn filesystem fail" writes_fail
	sleep_until "$end"
	ip link set eth0 up
	echo "# link up" >&2
	tap_check "rdmalock: its link back, it rejoins the view" retry 90 view_full $FS
	barrier cut-settled 300
	tap_check "rdmalock: it unmounts the withdrawn filesystem, gets the disk back, mounts it" \
		remount
	barrier cut-back 300
}

# link_cut: the victim's link is cut while it writes; the survivors go
# on, then read, with the victim back, what each wrote meanwhile.
link_cut() {
	mark_replays cut
	if [ "$VMTEST_NODE" -eq "$victim" ]; then
		cut_victim
	else
		barrier cut-doomed 300
		tap_check "rdmalock: the others go on in a view without the node cut off" \
			retry 90 view_is $FS "$(survivors)"
		tap_check "rdmalock: GFS2 on one of them replays its journal" \
			retry 120 journal_replayed cut
		# The survivors meet without the node cut off.
		VMTEST_GONE=$victim
		tap_check "rdmalock: they write and read on; its synced file reads as written" \
			go_on cut
		tap_check "rdmalock: they unmount and mount again, all they wrote in place" \
			remount
		VMTEST_GONE=
		barrier cut-settled 300
		barrier cut-back 300
	fi
	tap_check "rdmalock: with the node back, every node reads what the others wrote" \
		read_on cut
	barrier cut-read 300
}

# death: the victim dies mounted and writing; the survivors go on.
death() {
	mark_replays death
	if [ "$VMTEST_NODE" -eq "$victim" ]; then
		tap_check "rdmalock: the last node syncs a file, and dies writing another" \
			doom_victim death
		die_after doomed 300
	fi
	VMTEST_GONE=$victim
	barrier doomed 300
	tap_check "rdmalock: the others go on in a view without it" \
		retry 90 view_is $FS "$(survivors)"
	tap_check "rdmalock: GFS2 on one of them replays its journal" \
		retry 120 journal_replayed death
	tap_check "rdmalock: they write and read on; its synced file reads as written" \
		go_on death
	barrier went-on 300
}

# phase LM: the checks on lock manager LM, from loading it to unloading
# GFS2 from it.
phase() {
	local lm="$1"

	if [ "$lm" = rdmalock ]; then
		tap_check "rdmalock: rdmalock.ko, rdmalock_dlm.ko and Debian's gfs2.ko load" \
			load_rdmalock_lm
		# Alone: the others' domains are made after it is gone.
		[ "$VMTEST_NODE" -ne 0 ] ||
			tap_check "rdmalock: a mount on a domain without named locks fails" \
				unnamed_refused
		[ "$VMTEST_NODE" -ne 0 ] ||
			tap_check "rdmalock: a conversion down from EX in a destroyed domain is done" \
				converted_down_after_destroy
		barrier unnamed-refused
		tap_check "rdmalock: a domain with named locks for lockspace $FS" \
			create_fs_domain named
		tap_check "rdmalock: every node of it is up" retry 60 domain_up $FS
	else
		tap_check "dlm: the kernel's dlm.ko and Debian's gfs2.ko load" load_dlm_lm
		tap_check "dlm: configfs names the cluster, its nodes and the lockspace's" \
			configure_dlm
	fi
	barrier "up-$lm"
	[ "$VMTEST_NODE" -ne 0 ] ||
		tap_check "$lm: node 0 makes a GFS2 filesystem with a journal per node" make_fs
	barrier "made-$lm"
	tap_check "$lm: every node mounts it" mount_fs "$lm"
	barrier "mounted-$lm" 300
	tap_check "$lm: each node writes files into its own directory and a shared one" \
		write_own
	barrier "written-$lm" 300
	tap_check "$lm: renames and unlinks across nodes, appends under flock" cross_node
	barrier "crossed-$lm" 300
	tap_check "$lm: every node finds every file, listing and log as the nodes left them" \
		check_all
	barrier "checked-$lm" 300
	[ "$GFS2_HELD" != 1 ] ||
		tap_check "$lm: a file open on one node, unlinked on another: gone, read whole, freed" \
			unlink_held "$lm"
	if [ "$GFS2_BENCH" != none ]; then
		tap_check "$lm: the benchmark runs" bench_run "$lm"
		measured_barrier "benched-$lm" 300
		[ "$VMTEST_NODE" -ne 0 ] || bench_gather "$lm"
	fi
	[ "$lm" != rdmalock ] || [ "$GFS2_CUT" != 1 ] || link_cut
	[ "$lm" != rdmalock ] || [ "$GFS2_DEATH" != 1 ] || death
	tap_check "$lm: every node unmounts" umount_fs "$lm"
	barrier "unmounted-$lm" 300
	if [ "$VMTEST_NODE" -ne 0 ]; then
		:
	elif [ "$lm" = rdmalock ] && [ "$GFS2_DEATH" = 1 ]; then
		tap_check "$lm: fsck.gfs2 -n finds nothing wrong but, at most, statfs totals" \
			fsck_clean_but_statfs
	else
		tap_check "$lm: fsck.gfs2 -n finds nothing wrong" fsck_clean
	fi
	barrier "fscked-$lm" 300
	if [ "$lm" = rdmalock ]; then
		tap_check "rdmalock: gfs2, rdmalock_dlm and rdmalock unload" sh -c \
			". ./lib.sh && rmmod gfs2 && rmmod rdmalock_dlm &&
			rdmalockctl domain destroy $FS && rmmod rdmalock"
	else
		tap_check "dlm: gfs2 and dlm unload" unload_dlm_lm
	fi
}

# Per lock manager: 7 checks (8 with GFS2_HELD), 2 more on node 0, 2
# more for rdmalock (its domain; 4 on node 0, which tries one without
# named locks and a conversion in a destroyed domain first), 1 for dlm
# (configfs), 1 for the benchmark; with a cut, 6 on the victim and 5 on the others; with a death, 3 more on the
# survivors, and the victim's 2 last ones become 1. Node 0 checks the
# benchmark's table.
plan=0
for lm in $(echo "$GFS2_LMS" | tr , ' '); do
	plan=$((plan + 7))
	[ "$GFS2_HELD" != 1 ] || plan=$((plan + 1))
	[ "$VMTEST_NODE" -ne 0 ] || plan=$((plan + 2))
	if [ "$lm" = rdmalock ]; then
		plan=$((plan + 2))
		[ "$VMTEST_NODE" -ne 0 ] || plan=$((plan + 2))
		if [ "$GFS2_CUT" != 1 ]; then
			:
		elif [ "$VMTEST_NODE" -eq "$victim" ]; then
			plan=$((plan + 6))
		else
			plan=$((plan + 5))
		fi
		if [ "$GFS2_DEATH" != 1 ]; then
			:
		elif [ "$VMTEST_NODE" -eq "$victim" ]; then
			plan=$((plan - 1))
		else
			plan=$((plan + 3))
		fi
	else
		plan=$((plan + 1))
	fi
	[ "$GFS2_BENCH" = none ] || plan=$((plan + 1))
done
[ "$GFS2_BENCH" = none ] || [ "$VMTEST_NODE" -ne 0 ] || plan=$((plan + 1))
tap_plan $plan
if [ "$GFS2_CUT" = 1 ]; then
	: >/tmp/gfs2-events
	fence_listener
fi
for lm in $(echo "$GFS2_LMS" | tr , ' '); do
	phase "$lm"
done
if [ "$GFS2_BENCH" != none ] && [ "$VMTEST_NODE" -eq 0 ]; then
	bench_table >/tmp/bench-table
	cat /tmp/bench-table
	tap_check "the benchmark gives every lock manager a figure for each row" \
		sh -c "! grep -q '|  *|' /tmp/bench-table && [ \$(wc -l </tmp/bench-table) -eq 6 ]"
fi

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# gfs2: Debian's own gfs2.ko, unmodified, with rdmalock_dlm.ko in dlm.ko's
# place, on guests that share one disk (vmtest --disk):
#  - gfs2.ko loads against rdmalock_dlm.ko's exports, whose CRCs are
#    dlm.ko's (build-module.sh checks them);
#  - node 0 makes the filesystem (lock_dlm, table rdmalock:gfs0, a journal
#    for each node); every node mounts it, with the journal of its slot;
#  - each node writes a file into a directory of its own and one into a
#    shared directory; then each renames the next node's shared file and
#    unlinks the next node's own file, and appends lines to one shared
#    log under flock(), all at once;
#  - every node then checks every file's content, the log's lines and the
#    directories' listings against what the nodes did, computed again
#    here, not read back from the filesystem's view;
#  - every node unmounts; fsck.gfs2 -n finds nothing wrong.
# GFS2_ALGO (vmtest --set) picks the domain's algorithm; gfs2-negative.sh
# sets test-none, a lock that excludes nobody, which these checks must see.
. ./lib.sh

: "${GFS2_ALGO:=shiftlock}"
FS=gfs0
MNT=/mnt/gfs2
n=$(num_nodes)

load_gfs2() {
	local m

	case "$GFS2_ALGO" in
	test-*) insmod /lib/rdmalock/rdmalock.ko allow_broken=1 ;;
	*) insmod /lib/rdmalock/rdmalock.ko ;;
	esac || return 1
	insmod /lib/rdmalock/rdmalock_dlm.ko cluster_name=rdmalock || return 1
	while read -r m; do
		insmod "/lib/modules/gfs2/$m" || return 1
	done </lib/modules/gfs2/order
}

create_fs_domain() {
	rdmalockctl domain create $FS --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" \
		--key-file "$(key_file)" --port 7501 --algo "$GFS2_ALGO" \
		--locks-per-node 4096 --named
}

make_fs() {
	mkfs.gfs2 -O -p lock_dlm -t rdmalock:$FS -j "$n" -J 8 /dev/vda
}

mount_fs() { mkdir -p $MNT && mount -t gfs2 /dev/vda $MNT; }

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

fsck_clean() { fsck.gfs2 -n /dev/vda; }

unload() {
	rmmod gfs2 && rmmod rdmalock_dlm && rdmalockctl domain destroy $FS &&
		rmmod rdmalock
}

if [ "$VMTEST_NODE" -eq 0 ]; then
	tap_plan 11
else
	tap_plan 9
fi
tap_check "rdmalock.ko, rdmalock_dlm.ko and Debian's gfs2.ko load" load_gfs2
tap_check "a domain with named locks for lockspace $FS" create_fs_domain
tap_check "every node of it is up" retry 60 domain_up $FS
barrier up
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "node 0 makes a GFS2 filesystem with a journal per node" make_fs
barrier made
tap_check "every node mounts it" mount_fs
barrier mounted 300
tap_check "each node writes files into its own directory and a shared one" write_own
barrier written 300
tap_check "renames and unlinks across nodes, appends under flock" cross_node
barrier crossed 300
tap_check "every node finds every file, listing and log as the nodes left them" \
	check_all
barrier checked 300
tap_check "every node unmounts" umount $MNT
barrier unmounted 300
[ "$VMTEST_NODE" -ne 0 ] ||
	tap_check "fsck.gfs2 -n finds nothing wrong" fsck_clean
tap_check "gfs2, rdmalock_dlm and rdmalock unload" unload

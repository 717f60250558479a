#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fabric-hostile: a hostile peer against a keyed domain. Every node joins
# an ALock domain with the key, and an insecure one. Node 0 also loads
# rdmalock_hostile.ko (vm/hostile/), which speaks rdma_cm to the last
# node's port from node 0's address, as a peer without the key: a hello
# that says it has none, one from an address that is not the node it
# claims, a handshake with a wrong proof, a message before the handshake,
# a malformed and an oversized one, an RDMA READ with the region's rkey
# (stolen from the last node's `rdma res show mr`) before the handshake,
# and the target's own proof replayed on a new connection. All of it
# while every node runs the lock torture: the torture is exact, every
# attack is refused, the last node says why, and no member's connection
# changed. Then a SEND_WITH_INVALIDATE with the stolen rkey: the last
# node registers its region again under a new rkey, every node connects
# again, and the torture is exact. Then node 1's link is cut three times,
# each time followed by the replay: every connection comes back, every
# attack is refused, the torture is exact. Last, the negative control:
# the same handshake with a proof of zeros, refused by the keyed domain,
# joins the insecure one and is given its region, so the checks above can
# fail.
. ./lib.sh

DOMAIN=hostdom
PORT=7301
LOCKS=64
OPEN=opendom
OPEN_PORT=7302
OPEN_LOCKS=8
: "${TORTURE_MS:=30000}"
n=$(num_nodes)
target=$((n - 1))
H=/sys/kernel/debug/rdmalock_hostile

ctl() { rdmalockctl "$@"; }

create() {
	ctl domain create $DOMAIN --node-id "$VMTEST_NODE" --nodes "$VMTEST_NODES" \
		--key-file "$(key_file)" --port $PORT --locks-per-node $LOCKS &&
		ctl domain create $OPEN --node-id "$VMTEST_NODE" \
			--nodes "$VMTEST_NODES" --insecure --port $OPEN_PORT \
			--algo cas --locks-per-node $OPEN_LOCKS
}

both_up() { domain_up $DOMAIN && domain_up $OPEN; }

# The nodes' lines of a domain's status: state, QP and connection count.
# A connection that dropped, or was replaced, changes them.
conn_lines() { ctl domain status "$1" | grep '^  node '; }

# The rkey of this node's region of $DOMAIN, as root sees it in the RDMA
# resources: the "stolen" rkey. The regions of the two domains differ in
# length.
region_rkey() {
	local len

	len=$(( ((256 + LOCKS * 64 + 1024 * 64) + 4095) / 4096 * 4096 ))
	rdma res show mr | awk -v len="$len" '
		{
			for (i = 1; i < NF; i++) {
				if ($i == "rkey") k = $(i + 1)
				if ($i == "mrlen") l = $(i + 1)
			}
			if (l == len) print k
		}' | grep .
}

conns_unchanged() {
	conn_lines $DOMAIN >/tmp/conns-after
	diff /tmp/conns-before /tmp/conns-after
}

publish_rkey() { region_rkey >"$WWW/rkey-$1"; }

stolen_rkey() { wget -q -O - "$(peer_url $target "rkey-$1")"; }

# attack NAME DOMAIN PORT NODE LOCKS [RKEY]: one attack by the hostile
# peer on the last node, claiming to be NODE; prints its outcome.
attack() {
	echo "$1 $(node_addr 0) $(node_addr $target) $3 $2 $4 $5 ${6:-0}" >$H/attack &&
		cat $H/result
}

# refused NAME ...: the attack was refused (rejected, or disconnected
# before the target gave its region).
refused() {
	local out

	out=$(attack "$@") || return 1
	echo "# $1 on $2: $out" >&2
	case "$out" in refused:*) return 0 ;; esac
	return 1
}

# The attacks made during the torture, as a peer without the key; node 0
# claims to be itself (its address is right), or node 1 (it is not).
ATTACKS="nokey forged-id wrong-key early malformed oversized read replay"

# Three rounds, spread over the torture; an attack that gets in once
# fails its test.
run_attacks() {
	local a claim rkey round

	rkey=$(stolen_rkey 1) || return 1
	for a in $ATTACKS; do
		echo ok >"/tmp/res-$a"
	done
	for round in 1 2 3; do
		for a in $ATTACKS; do
			claim=0
			[ "$a" != forged-id ] || claim=1
			refused "$a" $DOMAIN $PORT $claim $LOCKS "$rkey" ||
				echo failed >"/tmp/res-$a"
		done
		[ "$round" -eq 3 ] || sleep $((TORTURE_MS / 4000))
	done
}

attack_result() { [ "$(cat "/tmp/res-$1")" = ok ]; }

# Why the last node refused each attack, in its log.
# reason_logged ERE: the target logged it, for this domain.
reason_logged() { dmesg | grep -Eq "$DOMAIN: $1"; }

# refusal WHY: the line of a connection that claimed node 0, from node
# 0's address, refused before it proved the key, each on its own.
refusal() { echo "refused a connection claiming node 0 from $(node_addr 0): $1"; }

torture() {
	torture_round $DOMAIN "$1" --threads 2 --duration "$2" --locks 10 \
		--local 50
}

# Node 0 attacks in the background while every node tortures.
torture_under_attack() {
	local pid=0 rc=0

	if [ "$VMTEST_NODE" -eq 0 ]; then
		(sleep 3; run_attacks) &
		pid=$!
	fi
	torture attacked "$TORTURE_MS" || rc=1
	[ "$pid" -eq 0 ] || wait "$pid" || rc=1
	return $rc
}

# The invalidation: node 0 sends it, the last node re-registers.
invalidate() {
	barrier invalidate || return 1
	if [ "$VMTEST_NODE" -eq 0 ]; then
		refused invalidate $DOMAIN $PORT 0 $LOCKS "$(stolen_rkey 1)" || return 1
	fi
	barrier invalidated || return 1
	[ "$VMTEST_NODE" -ne "$target" ] ||
		retry 30 sh -c "dmesg | grep -q '$DOMAIN: region re-registered'"
}

# ib_inc_rkey(): the stolen rkey's low byte plus one.
next_rkey() { printf '%#x' $((($1 & ~0xff) | (($1 + 1) & 0xff))); }

# A peer that stole the rkey once guesses the next one as ib_inc_rkey()
# would make it. The fabric draws the key byte at random, so the guess
# is right once in 255 runs; that run has nothing to show and skips it.
invalidate_next() {
	local guess

	barrier invalidate-next || return 1
	if [ "$VMTEST_NODE" -eq 0 ]; then
		guess=$(next_rkey "$(stolen_rkey 1)") || return 1
		[ "$((guess))" -eq "$(($(stolen_rkey 2)))" ] ||
			refused invalidate $DOMAIN $PORT 0 $LOCKS "$guess" ||
			return 1
	fi
	barrier invalidated-next
}

invalidated_once() {
	[ "$(dmesg | grep -c "$DOMAIN: node 0 invalidated this node's region")" -eq 1 ]
}

new_rkey() {
	local old

	old=$(cat "$WWW/rkey-1") && publish_rkey 2 &&
		[ "$(cat "$WWW/rkey-2")" != "$old" ]
}

HEAL_SECONDS=40

# cut_link NAME: once every node is there, node 1's link is down for 3 s.
cut_link() {
	barrier "$1" || return 1
	if [ "$VMTEST_NODE" -eq 1 ]; then
		ip link set eth0 down
		sleep 3
		ip link set eth0 up
	else
		sleep 5
	fi
}

healed() {
	retry $HEAL_SECONDS both_up && return
	conn_lines $DOMAIN
	conn_lines $OPEN
	return 1
}

# After a reconnect: the proof node 0 saw on an earlier connection, and
# a wrong one, refused.
replay_after() {
	refused replay $DOMAIN $PORT 0 $LOCKS && refused wrong-key $DOMAIN $PORT 0 $LOCKS
}

# Negative control: the attack the keyed domain refuses joins the
# insecure one, which hands it its region's address and key. Whether the
# peer's READ then gets through is a race: once up, the domain probes
# atomics on the region the peer announced, which is not there, and
# drops the connection.
negative_control() {
	refused join $DOMAIN $PORT 0 $LOCKS || return 1
	refused join $OPEN $OPEN_PORT 0 $OPEN_LOCKS && return 1
	grep -q '^joined: region ' $H/result
}

cuts() {
	local i

	for i in 1 2 3; do
		cut_link "cut-$i" || return 1
		healed || return 1
		if [ "$VMTEST_NODE" -eq 0 ]; then
			replay_after || return 1
		fi
	done
}

case "$VMTEST_NODE" in
0) tap_plan $((19 + $(echo "$ATTACKS" | wc -w))) ;;
"$target") tap_plan 27 ;;
*) tap_plan 17 ;;
esac
kmemleak_forget
tap_check "rdmalock.ko loads" load_rdmalock
if [ "$VMTEST_NODE" -eq 0 ]; then
	tap_check "rdmalock_hostile.ko loads" insmod /lib/rdmalock/rdmalock_hostile.ko
fi
tap_check "a keyed and an insecure domain" create
tap_check "every node is up in both" retry 60 both_up
if [ "$VMTEST_NODE" -eq "$target" ]; then
	tap_check "the region's rkey, from rdma res show mr" publish_rkey 1
fi
barrier rkey
conn_lines $DOMAIN >/tmp/conns-before
tap_check "torture under attack: no violation, no error" torture_under_attack
tap_check "torture under attack: counters exact" counters_exact $DOMAIN attacked 10
tap_check "no member's connection dropped or was replaced" conns_unchanged
if [ "$VMTEST_NODE" -eq 0 ]; then
	for a in $ATTACKS; do
		tap_check "hostile peer: $a refused" attack_result "$a"
	done
fi
if [ "$VMTEST_NODE" -eq "$target" ]; then
	tap_check "log: a hello without the key" \
		reason_logged "node 0 refused: it has no key and this node has one"
	tap_check "log: a hello from another node's address" \
		reason_logged "$(node_addr 0) says it is node 1, which is $(node_addr 1)"
	tap_check "log: a wrong or replayed proof" \
		reason_logged "node 0 did not prove the domain key"
	tap_check "log: a message before the handshake" \
		reason_logged "$(refusal "message out of the handshake's order")"
	tap_check "log: a malformed message" \
		reason_logged "node 0: malformed message"
	# rxe reports it as a length error on 6.12, a QP error on 6.1.
	tap_check "log: an oversized message" \
		reason_logged "$(refusal "local (length|QP operation) error")"
fi
tap_check "SEND_WITH_INVALIDATE with the stolen rkey" invalidate
if [ "$VMTEST_NODE" -eq "$target" ]; then
	tap_check "log: the invalidation" \
		reason_logged "node 0 invalidated this node's region"
	tap_check "the region has a new rkey" new_rkey
fi
tap_check "every node is up again after the invalidation" healed
tap_check "SEND_WITH_INVALIDATE with the next rkey the fabric makes" invalidate_next
if [ "$VMTEST_NODE" -eq "$target" ]; then
	tap_check "the next rkey was not guessed" invalidated_once
fi
tap_check "every node is up again" healed
tap_check "then the torture is exact" torture invalidated 5000
tap_check "then the counters are exact" counters_exact $DOMAIN invalidated 10
tap_check "node 1's link cut three times, every connection back each time" cuts
tap_check "after the cuts the torture is exact" torture cuts 5000
tap_check "after the cuts the counters are exact" counters_exact $DOMAIN cuts 10
barrier negative
if [ "$VMTEST_NODE" -eq 0 ]; then
	tap_check "negative control: the keyed domain refuses a proof of zeros, the insecure one takes it and gives its region" \
		negative_control
	rmmod rdmalock_hostile
fi
barrier teardown
tap_check "domains destroyed, rdmalock.ko unloads" \
	sh -c "rdmalockctl domain destroy $DOMAIN && rdmalockctl domain destroy $OPEN &&
	       rmmod rdmalock"
tap_kmemleak

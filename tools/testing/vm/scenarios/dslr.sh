#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dslr: DSLR's reader-writer torture at read shares of 0, 50 and 95%, on
# one lock (every requester on one word, whose counters wrap) and on 100;
# no violation, and every lock's guarded counter equal to the
# acquisitions of every node. What else DSLR must survive, membership
# checks beside the other locks: a small COUNT_MAX that forces many
# overflow resets (dom-wrap), a holder and a waiter lost with their node,
# a link cut.
. ./lib.sh

: "${TORTURE_MS:=1500}"
THREADS=4
READS="0 50 95"
LOCK_ALGOS=dslr

tap_plan $((5 + $(torture_matrix_tests)))
kmemleak_forget
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "domain dom-dslr created" create_lock_domains
tap_check "every node up, full view" retry 60 lock_domains_full
barrier up
torture_matrix dom-dslr dslr
barrier tortured
tap_check "domain destroyed, rdmalock.ko unloads" sh -c \
	"timeout 60 rdmalockctl domain destroy dom-dslr && rmmod rdmalock"
tap_kmemleak

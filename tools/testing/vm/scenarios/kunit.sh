#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kunit: load rdmalock.ko and the KUnit module, whose suites run at load
# and print KTAP to the kernel log (tools/testing/kunit.sh parses it from
# the console), then unload both. Needs a kernel with KUnit: KERNEL=debug.
. ./lib.sh

unload_both() { rmmod rdmalock_kunit && rmmod rdmalock; }

tap_plan 3
tap_check "rdmalock.ko loads" load_rdmalock
tap_check "rdmalock_kunit.ko loads (its suites run)" insmod /lib/rdmalock/rdmalock_kunit.ko
tap_check "both modules unload" unload_both

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: the last node panics while the others wait for it at
# a barrier; vmtest must notice the dead guest and stop at once.
. ./lib.sh

tap_plan 1
if [ "$VMTEST_NODE" -eq $(($(num_nodes) - 1)) ]; then
	echo 1 >/proc/sys/kernel/sysrq
	echo c >/proc/sysrq-trigger
fi
tap_check "every node reaches the barrier" barrier selftest-panic 600

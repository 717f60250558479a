#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smoke: the module loads, the node's set-up is as the other scenarios
# need it (smoke_checks in lib.sh, which fabric runs too), and the module
# unloads. The quickest check of a guest image.
. ./lib.sh

unload_rdmalock() { rmmod rdmalock && [ ! -e /dev/rdmalock ]; }

tap_plan $((2 + SMOKE_CHECKS))
tap_check "rdmalock.ko loads" load_rdmalock
smoke_checks
tap_check "rmmod rdmalock, /dev/rdmalock gone" unload_rdmalock

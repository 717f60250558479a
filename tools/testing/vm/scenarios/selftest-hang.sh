#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: node 0 never finishes; vmtest must time out.
. ./lib.sh

tap_plan 1
[ "$VMTEST_NODE" -ne 0 ] || while :; do sleep 60; done
tap_ok "node $VMTEST_NODE finishes"

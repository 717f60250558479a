#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: one test fails on purpose; vmtest must exit non-zero,
# and report the failed check's output with it.
. ./lib.sh

tap_plan 2
tap_ok "a passing test is counted as passed"
tap_check "this test fails on purpose" sh -c 'echo "the reason it gives"; false'

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: one test fails on purpose; vmtest must exit non-zero.
. ./lib.sh

tap_plan 2
tap_ok "a passing test is counted as passed"
tap_not_ok "this test fails on purpose"

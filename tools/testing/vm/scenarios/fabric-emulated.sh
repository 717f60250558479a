#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fabric-emulated: the fabric scenario with emulate_atomics=1, so that
# every CAS and FAA is a message executed by the home node's CPU. The
# same exact results show that emulated and native atomics agree.
RDMALOCK_PARAMS="emulate_atomics=1"
EXPECT_ATOMICS=emulated
. ./fabric.sh

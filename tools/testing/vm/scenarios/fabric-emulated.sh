#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fabric-emulated: the fabric scenario with emulate_atomics=1, so that
# every CAS and FAA is a message executed by the home node's CPU. The
# same exact results show that emulated and native atomics agree. Its
# main domain has no key, asked for with --insecure, so that the keyless
# handshake runs too.
RDMALOCK_PARAMS="emulate_atomics=1"
EXPECT_ATOMICS=emulated
INSECURE=1
. ./fabric.sh

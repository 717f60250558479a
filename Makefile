# SPDX-License-Identifier: GPL-2.0
#
# make             rdmalock.ko and rdmalockctl, against the running kernel
#                  or KDIR=/path/to/kernel/build
# make check       the whole test suite (see README.md)
# make demo        a three-node Soft-RoCE cluster in QEMU, showing its state
#
# The test targets install what they need (apt-get, as root) and keep
# kernels and build trees in $(RDMALOCK_CACHE), outside this tree.

KDIR ?= /lib/modules/$(shell uname -r)/build
NODES ?= 3
SCENARIO ?= smoke
KERNEL ?= stock

TOOL := tools/rdmalockctl/rdmalockctl
TOOL_SRCS := $(TOOL).c tools/rdmalockctl/domain.c tools/rdmalockctl/floor.c \
	tools/rdmalockctl/locks.c
TOOL_CFLAGS := -O2 -Wall -Wextra -Werror -std=gnu11 -Iuapi -static
TOOL_LDLIBS := -lm
TESTING := tools/testing

.PHONY: all module tool clean deps builds lint kunit models vmtest check demo bench \
	bench-gfs2 eval

all: module tool

module:
	@test -f $(KDIR)/Makefile || { \
		echo "rdmalock: no kernel build tree at $(KDIR);" \
		     "install its headers or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tool: $(TOOL)

$(TOOL): $(TOOL_SRCS) tools/rdmalockctl/rdmalockctl.h uapi/linux/rdmalock.h
	$(CC) $(TOOL_CFLAGS) -o $@ $(TOOL_SRCS) $(TOOL_LDLIBS)

clean:
	@if test -f $(KDIR)/Makefile; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -f $(TOOL)

deps:
	@$(TESTING)/deps.sh

builds: deps
	@$(TESTING)/builds.sh

lint: deps
	@$(TESTING)/lint.sh

kunit: deps
	@$(TESTING)/kunit.sh

models: deps
	@$(TESTING)/models.sh

vmtest: deps
	@$(TESTING)/vm/vmtest.sh --nodes $(NODES) --scenario $(SCENARIO) --kernel $(KERNEL)

check: deps
	@$(TESTING)/check.sh

demo: deps
	@$(TESTING)/demo.sh

bench: deps
	@$(TESTING)/bench.sh

bench-gfs2: deps
	@$(TESTING)/bench-gfs2.sh

eval: deps
	@$(TESTING)/eval.sh $(if $(QUICK),--quick)

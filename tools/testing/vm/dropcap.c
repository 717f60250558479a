// SPDX-License-Identifier: GPL-2.0
/*
 * dropcap: run a command as root without CAP_SYS_ADMIN, to check that
 * rdmalock refuses state-changing commands to such a caller. busybox has
 * no tool for it. The capability is dropped from the bounding set and
 * from the effective, permitted and inheritable sets, so the command
 * cannot get it back by exec.
 *
 * usage: dropcap COMMAND [ARGS...]
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: dropcap COMMAND [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0) ||
	    syscall(SYS_capget, &hdr, data)) {
		fprintf(stderr, "dropcap: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < 2; i++) {
		unsigned int bit = CAP_SYS_ADMIN - 32 * i;

		if (bit < 32) {
			data[i].effective &= ~(1U << bit);
			data[i].permitted &= ~(1U << bit);
			data[i].inheritable &= ~(1U << bit);
		}
	}
	if (syscall(SYS_capset, &hdr, data)) {
		fprintf(stderr, "dropcap: capset: %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "dropcap: %s: %s\n", argv[1], strerror(errno));
	return 127;
}

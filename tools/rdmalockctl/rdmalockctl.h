/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RDMALOCKCTL_H
#define RDMALOCKCTL_H

#include <linux/rdmalock.h>

#define EXIT_USAGE	2
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

int open_device(void);
int do_ioctl(int fd, unsigned long cmd, void *arg, const char *what);
int parse_u32(const char *s, const char *what, unsigned int max, unsigned int *out);
int copy_name(char *dst, const char *name);

/* Each returns the process's exit status; argv[0] is the command. */
int cmd_domain(int argc, char **argv);
int cmd_fabric_test(int argc, char **argv);

#endif /* RDMALOCKCTL_H */

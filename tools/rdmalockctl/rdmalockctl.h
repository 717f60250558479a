/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RDMALOCKCTL_H
#define RDMALOCKCTL_H

#include <linux/rdmalock.h>

#define EXIT_USAGE	2
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

int open_device(void);
int do_ioctl(int fd, unsigned long cmd, void *arg, const char *what);
/* Parse an unsigned number from min to max; print what is wrong with it. */
int parse_u64(const char *s, const char *what, unsigned long long min,
	      unsigned long long max, unsigned long long *out);
int parse_u32_range(const char *s, const char *what, unsigned int min, unsigned int max,
		    unsigned int *out);
int parse_u32(const char *s, const char *what, unsigned int max, unsigned int *out);
int copy_name(char *dst, const char *name);

/* Names of RDMALOCK_VERB_*, as domain status prints them. */
extern const char * const verb_names[RDMALOCK_VERB_MAX];

/* Each returns the process's exit status; argv[0] is the command. */
int cmd_domain(int argc, char **argv);
int cmd_fabric_test(int argc, char **argv);
int cmd_floor(int argc, char **argv);
int cmd_lock(int argc, char **argv);
int cmd_session(int argc, char **argv);
/* torture, bench, counters and counters-reset, by argv[0] */
int cmd_run(int argc, char **argv);

#endif /* RDMALOCKCTL_H */

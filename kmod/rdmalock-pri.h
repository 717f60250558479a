/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock: declarations private to the module, shared between its files.
 */
#ifndef RDMALOCK_PRI_H
#define RDMALOCK_PRI_H

#include <linux/fs.h>
#include <linux/rdmalock.h>

/*
 * Internals that the KUnit suites call are exported to them, and only to
 * them, when the kernel has KUnit; otherwise they stay static. Kernels
 * older than 6.2 lack this header and get its two macros from Kbuild.
 */
#ifndef VISIBLE_IF_KUNIT
#include <kunit/visibility.h>
#endif

/* main.c: module parameters. */
extern unsigned int rdmalock_heartbeat_ms;
extern unsigned int rdmalock_heartbeat_timeout_ms;
extern unsigned int rdmalock_node_lease_ms;
extern bool rdmalock_emulate_atomics;

/* stats.c: the debugfs root. */
void rdmalock_stats_init(void);
void rdmalock_stats_exit(void);

/* ftest.c: RDMALOCK_IOC_FABRIC_TEST. */
int rdmalock_fabric_test(struct rdmalock_fabric_test *req);

/* fdlocks.c: locks held by an open file. */
int rdmalock_file_open(struct file *file);
void rdmalock_file_release(struct file *file);
ssize_t rdmalock_file_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos);
__poll_t rdmalock_file_poll(struct file *file, struct poll_table_struct *wait);
long rdmalock_ioc_lock(struct file *file, void *arg);
long rdmalock_ioc_unlock(struct file *file, void *arg);

/* torture.c: RDMALOCK_IOC_RUN. */
int rdmalock_run(struct rdmalock_run *req);

/* floor.c: RDMALOCK_IOC_FLOOR. */
int rdmalock_floor(struct rdmalock_floor *req);

/* main.c: test-only locks allowed */
extern bool rdmalock_allow_broken;

/* chardev.c: /dev/rdmalock. */
int rdmalock_chardev_init(void);
void rdmalock_chardev_exit(void);
void rdmalock_chardev_uevent(char *envp[]);
#if IS_ENABLED(CONFIG_KUNIT)
long rdmalock_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
#endif

#endif /* RDMALOCK_PRI_H */

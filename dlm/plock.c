// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock_dlm: cluster-wide POSIX locks, which rdmalock does not provide.
 *
 * GFS2 imports these calls, so they must exist for it to load; with the
 * mount option localflocks it never makes them, and fcntl() locks are
 * then node-local (Documentation/gfs2.rst). Without it, a lock is refused
 * with -ENOLCK rather than granted on this node alone, which would let
 * two nodes hold the same range.
 *
 * Each export's modversions CRC covers the type graph of struct file and
 * struct file_lock as this file's headers define it: they are fs/dlm's
 * own list for plock.c, so that the CRCs are dlm.ko's (build-module.sh
 * compares them with the kernel's Module.symvers).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
/* Where file locks have a header of their own, plock.c has these too. */
#ifdef RDMALOCK_DLM_FILELOCK_H
#include <linux/filelock.h>
#include <linux/static_call.h>
#include <linux/tracepoint.h>
#endif
#include <linux/miscdevice.h>
#include <linux/poll.h>
#include <linux/dlm.h>
#include <linux/dlm_plock.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/ctype.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/list.h>
#include <linux/errno.h>
#include <linux/random.h>
#include <linux/delay.h>
#include <linux/socket.h>
#include <linux/kthread.h>
#include <linux/kobject.h>
#include <linux/kref.h>
#include <linux/kernel.h>
#include <linux/jhash.h>
#include <linux/mutex.h>
#include <linux/idr.h>
#include <linux/ratelimit.h>
#include <linux/uaccess.h>

/**
 * dlm_posix_lock() - refuse a cluster-wide POSIX lock
 * @lockspace: the lockspace
 * @number: the inode's number
 * @file: the file
 * @cmd: F_SETLK, F_SETLKW...
 * @fl: the range
 *
 * Return: -ENOLCK.
 */
int dlm_posix_lock(dlm_lockspace_t *lockspace, u64 number, struct file *file,
		   int cmd, struct file_lock *fl)
{
	pr_err_ratelimited("fcntl() locks across nodes are not provided: mount GFS2 with localflocks\n");
	return -ENOLCK;
}
EXPORT_SYMBOL_GPL(dlm_posix_lock);

/**
 * dlm_posix_unlock() - release a POSIX lock, of which none was granted
 * @lockspace: the lockspace
 * @number: the inode's number
 * @file: the file
 * @fl: the range
 *
 * Return: 0: nothing was held.
 */
int dlm_posix_unlock(dlm_lockspace_t *lockspace, u64 number, struct file *file,
		     struct file_lock *fl)
{
	return 0;
}
EXPORT_SYMBOL_GPL(dlm_posix_unlock);

/**
 * dlm_posix_get() - refuse to test a cluster-wide POSIX lock
 * @lockspace: the lockspace
 * @number: the inode's number
 * @file: the file
 * @fl: the range
 *
 * Return: -ENOLCK: the answer would only be this node's.
 */
int dlm_posix_get(dlm_lockspace_t *lockspace, u64 number, struct file *file,
		  struct file_lock *fl)
{
	return -ENOLCK;
}
EXPORT_SYMBOL_GPL(dlm_posix_get);

#ifdef RDMALOCK_DLM_POSIX_CANCEL
/**
 * dlm_posix_cancel() - cancel a POSIX lock request, of which none waits
 * @lockspace: the lockspace
 * @number: the inode's number
 * @file: the file
 * @fl: the range
 *
 * Return: -ENOENT: no request waits.
 */
int dlm_posix_cancel(dlm_lockspace_t *lockspace, u64 number, struct file *file,
		     struct file_lock *fl)
{
	return -ENOENT;
}
EXPORT_SYMBOL_GPL(dlm_posix_cancel);
#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock_dlmprobe: a test-only DLM client of rdmalock_dlm.ko, asking
 * what GFS2 asks where GFS2 cannot be made to ask it on demand.
 *
 * At load it joins the lockspace @lockspace and holds the lock @id EX,
 * with an LVB and a blocking callback, as GFS2 holds a glock. A DLM mode
 * written to its parameter "convert" converts the lock, as GFS2's demotes
 * do, and "status" then reads the sb_status of the conversion's ast:
 * what GFS2's gdlm_ast() would read. Unloading leaves the lockspace, which releases
 * the lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <asm/byteorder.h>
#include <linux/completion.h>
#include <linux/dlm.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

/* Longer than any wait of rdmalock_dlm's for a lock nobody else holds. */
#define DLMPROBE_AST_WAIT_MS	30000

static char *lockspace = "probe";
module_param(lockspace, charp, 0444);
MODULE_PARM_DESC(lockspace, "The lockspace to join: an rdmalock domain with named locks");

/* An eight-byte name is homed as the id it spells (names.c): on id % nodes. */
static ulong id;
module_param(id, ulong, 0444);
MODULE_PARM_DESC(id, "The lock's name, as eight big-endian bytes");

static char *cluster = "rdmalock";
module_param(cluster, charp, 0444);
MODULE_PARM_DESC(cluster, "The cluster name given to dlm_new_lockspace()");

static int status;
module_param(status, int, 0444);
MODULE_PARM_DESC(status, "The sb_status of the last request's ast");

/* Set and read under the parameters' lock, which "convert" is written under. */
static dlm_lockspace_t *dlmprobe_ls;
static struct dlm_lksb dlmprobe_lksb;
static char dlmprobe_lvb[32];
static DECLARE_COMPLETION(dlmprobe_ast_done);

static void dlmprobe_ast(void *arg)
{
	complete(&dlmprobe_ast_done);
}

/* A holder with a blocking callback must be heard by requesters: GFS2's are. */
static void dlmprobe_bast(void *arg, int mode)
{
	pr_info("%s: blocking callback, mode %d\n", lockspace, mode);
}

/* Asks @ls for @mode, converting with DLM_LKF_CONVERT; waits for the ast. */
static int dlmprobe_request(dlm_lockspace_t *ls, int mode, u32 flags)
{
	__be64 name = cpu_to_be64(id);
	int ret;

	reinit_completion(&dlmprobe_ast_done);
	ret = dlm_lock(ls, mode, &dlmprobe_lksb, flags | DLM_LKF_VALBLK,
		       &name, sizeof(name), 0, dlmprobe_ast, NULL, dlmprobe_bast);
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&dlmprobe_ast_done,
					 msecs_to_jiffies(DLMPROBE_AST_WAIT_MS)))
		return -ETIMEDOUT;
	status = dlmprobe_lksb.sb_status;
	pr_info("%s: mode %d: ast status %d\n", lockspace, mode, status);
	return 0;
}

static int dlmprobe_convert(const char *val, const struct kernel_param *kp)
{
	int mode, ret;

	/* Also called for a value given at load, and in exit: no lock then. */
	if (!dlmprobe_ls)
		return -EINVAL;
	ret = kstrtoint(val, 0, &mode);
	if (ret)
		return ret;
	return dlmprobe_request(dlmprobe_ls, mode, DLM_LKF_CONVERT);
}

static const struct kernel_param_ops dlmprobe_convert_ops = {
	.set = dlmprobe_convert,
};
module_param_cb(convert, &dlmprobe_convert_ops, NULL, 0200);
MODULE_PARM_DESC(convert, "A DLM mode to convert the lock to; its ast's status in \"status\"");

static int __init dlmprobe_init(void)
{
	dlm_lockspace_t *ls;
	int ret;

	dlmprobe_lksb.sb_lvbptr = dlmprobe_lvb;
	ret = dlm_new_lockspace(lockspace, cluster, 0, sizeof(dlmprobe_lvb),
				NULL, NULL, NULL, &ls);
	if (ret)
		return ret;
	ret = dlmprobe_request(ls, DLM_LOCK_EX, 0);
	if (!ret && status)
		ret = status < 0 ? status : -EPROTO;
	if (ret) {
		dlm_release_lockspace(ls, 2);
		return ret;
	}
	kernel_param_lock(THIS_MODULE);
	dlmprobe_ls = ls;
	kernel_param_unlock(THIS_MODULE);
	return 0;
}

static void __exit dlmprobe_exit(void)
{
	dlm_lockspace_t *ls;

	kernel_param_lock(THIS_MODULE);
	ls = dlmprobe_ls;
	dlmprobe_ls = NULL;
	kernel_param_unlock(THIS_MODULE);
	dlm_release_lockspace(ls, 2);
}

module_init(dlmprobe_init);
module_exit(dlmprobe_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test-only DLM client of rdmalock_dlm.ko");

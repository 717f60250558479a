// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: /dev/rdmalock and its ioctl ABI (uapi/linux/rdmalock.h).
 *
 * Every command is described once in rdmalock_ioctls[]: its number, which
 * encodes the direction and the size of its argument, whether it changes
 * state, and its handler. The dispatcher does everything the commands
 * have in common (lookup, privilege, copying in, the size field, copying
 * out), so a handler sees a kernel copy of a structure of the right size
 * and only checks the fields it owns.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cluster.h"
#include "rdmalock-pri.h"

#define RDMALOCK_FEATURES	(RDMALOCK_FEAT_DEVICE_STATUS | RDMALOCK_FEAT_DOMAINS | \
				 RDMALOCK_FEAT_LOCKS | RDMALOCK_FEAT_DOMAIN_KEY | \
				 RDMALOCK_FEAT_FLOOR | RDMALOCK_FEAT_VIEW | \
				 RDMALOCK_FEAT_FENCE | RDMALOCK_FEAT_NAMED | \
				 RDMALOCK_FEAT_RUN_CACHE | RDMALOCK_FEAT_MODES | \
				 RDMALOCK_FEAT_NOTIFY | RDMALOCK_FEAT_LOCK_NAMES | \
				 RDMALOCK_FEAT_FENCED)

/* The command changes state: CAP_SYS_ADMIN is required. */
#define RDMALOCK_IOCF_ADMIN	BIT(0)
/*
 * The command returns nothing in its argument, which is not written back:
 * a copy out that failed after the command's change (a domain created, a
 * lock taken) would report an error for a change that stays made.
 */
#define RDMALOCK_IOCF_NO_OUT	BIT(1)

struct rdmalock_ioctl_desc {
	unsigned int cmd;
	unsigned int flags;
	long (*handler)(struct file *file, void *arg);
	const char *name;
};

/* A name field from userspace must be NUL-terminated within its array. */
static bool rdmalock_name_terminated(const char *name)
{
	return strnlen(name, RDMALOCK_NAME_MAX) < RDMALOCK_NAME_MAX;
}

static long rdmalock_ioc_version(struct file *file, void *arg)
{
	struct rdmalock_version *v = arg;

	if (memchr_inv(v->reserved, 0, sizeof(v->reserved)))
		return -EINVAL;

	v->abi_version = RDMALOCK_ABI_VERSION;
	v->features = RDMALOCK_FEATURES;
	return 0;
}

static long rdmalock_ioc_status(struct file *file, void *arg)
{
	struct rdmalock_status *s = arg;
	struct rdmalock_device_info *info = NULL;
	u32 n;

	if (s->flags || s->pad || memchr_inv(s->reserved, 0, sizeof(s->reserved)))
		return -EINVAL;
	if (s->max_devices > RDMALOCK_MAX_DEVICES)
		return -EINVAL;

	if (s->max_devices) {
		info = kcalloc(s->max_devices, sizeof(*info), GFP_KERNEL);
		if (!info)
			return -ENOMEM;
	}
	s->num_devices = rdmalock_devices_snapshot(info, s->max_devices);
	n = min(s->num_devices, s->max_devices);
	if (n && copy_to_user(u64_to_user_ptr(s->devices), info,
			      array_size(n, sizeof(*info)))) {
		kfree(info);
		return -EFAULT;
	}
	kfree(info);
	s->num_domains = rdmalock_domain_names(NULL, 0);
	return 0;
}

/*
 * The key is copied here, the one place that reads user memory, and
 * wiped once the fabric has derived its HMAC state from it.
 */
static long rdmalock_ioc_domain_create(struct file *file, void *arg)
{
	struct rdmalock_domain_create *req = arg;
	u8 *key = NULL;
	long ret;

	if (req->key_len > RDMALOCK_KEY_MAX)
		return -EINVAL;
	if (req->key_len) {
		key = memdup_user(u64_to_user_ptr(req->key), req->key_len);
		if (IS_ERR(key))
			return PTR_ERR(key);
	}
	ret = rdmalock_domain_create(req, key);
	kfree_sensitive(key);
	return ret;
}

static long rdmalock_ioc_domain_destroy(struct file *file, void *arg)
{
	struct rdmalock_domain_name *d = arg;

	if (d->flags || memchr_inv(d->reserved, 0, sizeof(d->reserved)) ||
	    !rdmalock_name_terminated(d->name))
		return -EINVAL;
	return rdmalock_domain_destroy(d->name);
}

static long rdmalock_ioc_domain_list(struct file *file, void *arg)
{
	struct rdmalock_domain_list *l = arg;
	char *names = NULL;
	u32 n;

	if (l->flags || memchr_inv(l->reserved, 0, sizeof(l->reserved)))
		return -EINVAL;
	if (l->max_names > RDMALOCK_MAX_DOMAINS)
		return -EINVAL;
	if (l->max_names) {
		names = kcalloc(l->max_names, RDMALOCK_NAME_MAX, GFP_KERNEL);
		if (!names)
			return -ENOMEM;
	}
	l->num_names = rdmalock_domain_names(names, l->max_names);
	n = min(l->num_names, l->max_names);
	if (n && copy_to_user(u64_to_user_ptr(l->names), names,
			      array_size(n, RDMALOCK_NAME_MAX))) {
		kfree(names);
		return -EFAULT;
	}
	kfree(names);
	return 0;
}

static long rdmalock_ioc_domain_status(struct file *file, void *arg)
{
	struct rdmalock_domain_status *st = arg;

	if (st->flags || !rdmalock_name_terminated(st->name))
		return -EINVAL;
	return rdmalock_domain_status(st);
}

static long rdmalock_ioc_domain_view(struct file *file, void *arg)
{
	struct rdmalock_domain_view *v = arg;

	if (v->flags || v->pad ||
	    memchr_inv(v->reserved, 0, sizeof(v->reserved)) ||
	    !rdmalock_name_terminated(v->name))
		return -EINVAL;
	return rdmalock_domain_view(v);
}

static long rdmalock_ioc_fence_ack(struct file *file, void *arg)
{
	struct rdmalock_fence_ack *a = arg;

	if (a->flags || a->pad ||
	    memchr_inv(a->reserved, 0, sizeof(a->reserved)) ||
	    !rdmalock_name_terminated(a->name))
		return -EINVAL;
	return rdmalock_domain_fence_ack(a->name, a->node);
}

static long rdmalock_ioc_run(struct file *file, void *arg)
{
	struct rdmalock_run *r = arg;

	if (!rdmalock_name_terminated(r->name))
		return -EINVAL;
	return rdmalock_run(r);
}

static long rdmalock_ioc_fabric_test(struct file *file, void *arg)
{
	struct rdmalock_fabric_test *t = arg;

	if (!rdmalock_name_terminated(t->name))
		return -EINVAL;
	return rdmalock_fabric_test(t);
}

static long rdmalock_ioc_floor(struct file *file, void *arg)
{
	struct rdmalock_floor *f = arg;

	if (!rdmalock_name_terminated(f->name))
		return -EINVAL;
	return rdmalock_floor(f);
}

static const struct rdmalock_ioctl_desc rdmalock_ioctls[] = {
	{ RDMALOCK_IOC_VERSION, 0, rdmalock_ioc_version, "VERSION" },
	{ RDMALOCK_IOC_STATUS, 0, rdmalock_ioc_status, "STATUS" },
	{ RDMALOCK_IOC_DOMAIN_LIST, 0, rdmalock_ioc_domain_list, "DOMAIN_LIST" },
	{ RDMALOCK_IOC_DOMAIN_STATUS, 0, rdmalock_ioc_domain_status,
	  "DOMAIN_STATUS" },
	{ RDMALOCK_IOC_DOMAIN_VIEW, 0, rdmalock_ioc_domain_view,
	  "DOMAIN_VIEW" },
	{ RDMALOCK_IOC_DOMAIN_CREATE, RDMALOCK_IOCF_ADMIN | RDMALOCK_IOCF_NO_OUT,
	  rdmalock_ioc_domain_create, "DOMAIN_CREATE" },
	{ RDMALOCK_IOC_DOMAIN_DESTROY, RDMALOCK_IOCF_ADMIN | RDMALOCK_IOCF_NO_OUT,
	  rdmalock_ioc_domain_destroy, "DOMAIN_DESTROY" },
	{ RDMALOCK_IOC_FABRIC_TEST, RDMALOCK_IOCF_ADMIN,
	  rdmalock_ioc_fabric_test, "FABRIC_TEST" },
	{ RDMALOCK_IOC_LOCK, RDMALOCK_IOCF_ADMIN | RDMALOCK_IOCF_NO_OUT,
	  rdmalock_ioc_lock, "LOCK" },
	{ RDMALOCK_IOC_UNLOCK, RDMALOCK_IOCF_ADMIN | RDMALOCK_IOCF_NO_OUT,
	  rdmalock_ioc_unlock, "UNLOCK" },
	{ RDMALOCK_IOC_RUN, RDMALOCK_IOCF_ADMIN, rdmalock_ioc_run, "RUN" },
	{ RDMALOCK_IOC_FLOOR, RDMALOCK_IOCF_ADMIN, rdmalock_ioc_floor, "FLOOR" },
	{ RDMALOCK_IOC_FENCE_ACK, RDMALOCK_IOCF_ADMIN | RDMALOCK_IOCF_NO_OUT,
	  rdmalock_ioc_fence_ack, "FENCE_ACK" },
};

static const struct rdmalock_ioctl_desc *rdmalock_ioctl_lookup(unsigned int cmd)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rdmalock_ioctls); i++)
		if (rdmalock_ioctls[i].cmd == cmd)
			return &rdmalock_ioctls[i];
	return NULL;
}

/**
 * rdmalock_ioctl() - dispatch an ioctl on /dev/rdmalock
 * @file: the open device
 * @cmd: RDMALOCK_IOC_*
 * @arg: user address of the command's argument structure
 *
 * Context: process context; may sleep.
 * Return: 0, the handler's negative errno, or -ENOTTY, -EPERM, -EFAULT,
 * -EINVAL as described in uapi/linux/rdmalock.h.
 */
VISIBLE_IF_KUNIT long rdmalock_ioctl(struct file *file, unsigned int cmd,
				     unsigned long arg)
{
	const struct rdmalock_ioctl_desc *desc = rdmalock_ioctl_lookup(cmd);
	void __user *uarg = (void __user *)arg;
	unsigned int size = _IOC_SIZE(cmd);
	void *karg;
	long ret;

	if (!desc)
		return -ENOTTY;
	if ((desc->flags & RDMALOCK_IOCF_ADMIN) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	/* Every command is _IOWR: it reads its argument, and most write it back. */
	karg = memdup_user(uarg, size);
	if (IS_ERR(karg))
		return PTR_ERR(karg);
	/* Every argument structure starts with its size. */
	if (*(u32 *)karg != size) {
		pr_err_ratelimited("%s: size %u, expected %u\n",
				   desc->name, *(u32 *)karg, size);
		ret = -EINVAL;
		goto out;
	}

	ret = desc->handler(file, karg);
	if (!ret && !(desc->flags & RDMALOCK_IOCF_NO_OUT) &&
	    copy_to_user(uarg, karg, size))
		ret = -EFAULT;
out:
	kfree(karg);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_ioctl);

static int rdmalock_open(struct inode *inode, struct file *file)
{
	return rdmalock_file_open(file);
}

static int rdmalock_release(struct inode *inode, struct file *file)
{
	rdmalock_file_release(file);
	return 0;
}

static const struct file_operations rdmalock_fops = {
	.owner = THIS_MODULE,
	.open = rdmalock_open,
	.release = rdmalock_release,
	.read = rdmalock_file_read,
	.poll = rdmalock_file_poll,
	.unlocked_ioctl = rdmalock_ioctl,
	/* The ABI has the same layout for 32-bit callers: no translation. */
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice rdmalock_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "rdmalock",
	.fops = &rdmalock_fops,
	.mode = 0600,
};

/* Uevents go out only while the device is registered. */
static DEFINE_MUTEX(rdmalock_uevent_mutex);
static bool rdmalock_registered;

/**
 * rdmalock_chardev_uevent() - tell userspace, through the device, of an event
 * @envp: NULL-terminated "KEY=value" strings
 *
 * Context: process context; may sleep.
 */
void rdmalock_chardev_uevent(char *envp[])
{
	mutex_lock(&rdmalock_uevent_mutex);
	if (rdmalock_registered)
		kobject_uevent_env(&rdmalock_miscdev.this_device->kobj, KOBJ_CHANGE,
				   envp);
	mutex_unlock(&rdmalock_uevent_mutex);
}

/**
 * rdmalock_chardev_init() - create /dev/rdmalock
 *
 * Context: process context; may sleep.
 * Return: 0 or a negative errno from misc_register().
 */
int rdmalock_chardev_init(void)
{
	int ret = misc_register(&rdmalock_miscdev);

	if (!ret) {
		mutex_lock(&rdmalock_uevent_mutex);
		rdmalock_registered = true;
		mutex_unlock(&rdmalock_uevent_mutex);
	}
	return ret;
}

/**
 * rdmalock_chardev_exit() - remove /dev/rdmalock
 *
 * Context: process context; may sleep.
 */
void rdmalock_chardev_exit(void)
{
	mutex_lock(&rdmalock_uevent_mutex);
	rdmalock_registered = false;
	mutex_unlock(&rdmalock_uevent_mutex);
	misc_deregister(&rdmalock_miscdev);
}

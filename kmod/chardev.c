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

#include "rdmalock-pri.h"

#define RDMALOCK_FEATURES	RDMALOCK_FEAT_DEVICE_STATUS

/* The command changes state: CAP_SYS_ADMIN is required. */
#define RDMALOCK_IOCF_ADMIN	BIT(0)

struct rdmalock_ioctl_desc {
	unsigned int cmd;
	unsigned int flags;
	long (*handler)(struct file *file, void *arg);
	const char *name;
};

/* Every argument structure starts with its size; see the uapi header. */
union rdmalock_ioctl_arg {
	__u32 size;
	struct rdmalock_version version;
	struct rdmalock_status status;
};

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

	/* Lock domains arrive with the fabric; until then there are none. */
	s->num_domains = 0;
	return 0;
}

static const struct rdmalock_ioctl_desc rdmalock_ioctls[] = {
	{ RDMALOCK_IOC_VERSION, 0, rdmalock_ioc_version, "VERSION" },
	{ RDMALOCK_IOC_STATUS, 0, rdmalock_ioc_status, "STATUS" },
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
	union rdmalock_ioctl_arg karg;
	unsigned int size = _IOC_SIZE(cmd);
	long ret;

	if (!desc)
		return -ENOTTY;
	if ((desc->flags & RDMALOCK_IOCF_ADMIN) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	/* Every command is _IOWR: it reads its argument and writes it back. */
	BUILD_BUG_ON(sizeof(karg) > 256);
	if (WARN_ON_ONCE(size > sizeof(karg)))
		return -EINVAL;
	if (copy_from_user(&karg, uarg, size))
		return -EFAULT;
	if (karg.size != size) {
		pr_err_ratelimited("%s: size %u, expected %u\n",
				   desc->name, karg.size, size);
		return -EINVAL;
	}

	ret = desc->handler(file, &karg);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &karg, size))
		return -EFAULT;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_ioctl);

static const struct file_operations rdmalock_fops = {
	.owner = THIS_MODULE,
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

/**
 * rdmalock_chardev_init() - create /dev/rdmalock
 *
 * Context: process context; may sleep.
 * Return: 0 or a negative errno from misc_register().
 */
int rdmalock_chardev_init(void)
{
	return misc_register(&rdmalock_miscdev);
}

/**
 * rdmalock_chardev_exit() - remove /dev/rdmalock
 *
 * Context: process context; may sleep.
 */
void rdmalock_chardev_exit(void)
{
	misc_deregister(&rdmalock_miscdev);
}

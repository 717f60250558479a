// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: argument validation of the /dev/rdmalock ioctls.
 *
 * Commands go through rdmalock_ioctl() with their arguments in real user
 * memory (kunit_vm_mmap()), so the copies in and out, and the -EFAULT
 * paths, run as they do for a process.
 */
#include <kunit/test.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "fabric.h"
#include "rdmalock-pri.h"

static void __user *user_page(struct kunit *test)
{
	unsigned long addr;

	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0, "kunit_vm_mmap failed");
	return (void __user *)addr;
}

/* Issues @cmd on a user copy of @arg and copies the result back. */
static long ioctl_copy(struct kunit *test, unsigned int cmd, void *arg,
		       size_t len)
{
	void __user *u = user_page(test);
	long ret;

	KUNIT_ASSERT_EQ(test, copy_to_user(u, arg, len), 0);
	ret = rdmalock_ioctl(NULL, cmd, (unsigned long)u);
	KUNIT_ASSERT_EQ(test, copy_from_user(arg, u, len), 0);
	return ret;
}

static long version_ioctl(struct kunit *test, struct rdmalock_version *v)
{
	return ioctl_copy(test, RDMALOCK_IOC_VERSION, v, sizeof(*v));
}

static long status_ioctl(struct kunit *test, struct rdmalock_status *s)
{
	return ioctl_copy(test, RDMALOCK_IOC_STATUS, s, sizeof(*s));
}

static void version_reports_abi_and_features(struct kunit *test)
{
	struct rdmalock_version v = { .size = sizeof(v) };

	KUNIT_ASSERT_EQ(test, version_ioctl(test, &v), 0);
	KUNIT_EXPECT_EQ(test, v.abi_version, RDMALOCK_ABI_VERSION);
	KUNIT_EXPECT_TRUE(test, v.features & RDMALOCK_FEAT_DEVICE_STATUS);
	KUNIT_EXPECT_TRUE(test, v.features & RDMALOCK_FEAT_FLOOR);
	KUNIT_EXPECT_TRUE(test, v.features & RDMALOCK_FEAT_VIEW);
	KUNIT_EXPECT_TRUE(test, v.features & RDMALOCK_FEAT_FENCE);
	KUNIT_EXPECT_TRUE(test, v.features & RDMALOCK_FEAT_NAMED);
	KUNIT_EXPECT_TRUE(test, v.features & RDMALOCK_FEAT_RUN_CACHE);
}

static void version_rejects_bad_size(struct kunit *test)
{
	static const u32 sizes[] = { 0, 1, sizeof(struct rdmalock_version) - 8,
				     sizeof(struct rdmalock_version) + 8, U32_MAX };
	struct rdmalock_version v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		memset(&v, 0, sizeof(v));
		v.size = sizes[i];
		KUNIT_EXPECT_EQ_MSG(test, version_ioctl(test, &v), -EINVAL,
				    "size %u", sizes[i]);
		/* A rejected command writes nothing back. */
		KUNIT_EXPECT_EQ(test, v.abi_version, 0);
	}
}

static void version_rejects_reserved(struct kunit *test)
{
	struct rdmalock_version v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v.reserved); i++) {
		memset(&v, 0, sizeof(v));
		v.size = sizeof(v);
		v.reserved[i] = 1;
		KUNIT_EXPECT_EQ_MSG(test, version_ioctl(test, &v), -EINVAL,
				    "reserved[%zu]", i);
	}
}

/*
 * Unknown commands are refused before the argument is looked at, so a
 * NULL argument must still give -ENOTTY, not -EFAULT.
 */
static void unknown_commands_are_enotty(struct kunit *test)
{
	static const unsigned int cmds[] = {
		_IOWR(RDMALOCK_IOC_MAGIC, 0x7f, struct rdmalock_version),
		_IOWR('x', 0x00, struct rdmalock_version),
		/* The right number with the wrong direction or size. */
		_IOR(RDMALOCK_IOC_MAGIC, 0x00, struct rdmalock_version),
		_IOW(RDMALOCK_IOC_MAGIC, 0x00, struct rdmalock_version),
		_IOWR(RDMALOCK_IOC_MAGIC, 0x00, struct rdmalock_status),
		_IOWR(RDMALOCK_IOC_MAGIC, 0x01, struct rdmalock_version),
		_IO(RDMALOCK_IOC_MAGIC, 0x01),
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		KUNIT_EXPECT_EQ_MSG(test, rdmalock_ioctl(NULL, cmds[i], 0),
				    -ENOTTY, "cmd %#x", cmds[i]);
}

static void bad_argument_pointers_are_efault(struct kunit *test)
{
	struct rdmalock_version v = { .size = sizeof(v) };
	char __user *page = user_page(test);

	KUNIT_EXPECT_EQ(test, rdmalock_ioctl(NULL, RDMALOCK_IOC_VERSION, 0),
			-EFAULT);
	/* A kernel address is not a user address. */
	KUNIT_EXPECT_EQ(test, rdmalock_ioctl(NULL, RDMALOCK_IOC_VERSION,
					     (unsigned long)&v), -EFAULT);
	/* An argument running off the end of the mapping. */
	KUNIT_ASSERT_EQ(test, copy_to_user(page + PAGE_SIZE - 8, &v, 8), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_ioctl(NULL, RDMALOCK_IOC_VERSION,
					     (unsigned long)(page + PAGE_SIZE - 8)),
			-EFAULT);
}

/* @s has one bad field set by the caller; it is cleared for the next. */
static void expect_status_einval(struct kunit *test, struct rdmalock_status *s,
				 const char *what)
{
	s->size = sizeof(*s);
	KUNIT_EXPECT_EQ_MSG(test, status_ioctl(test, s), -EINVAL, "%s", what);
	memset(s, 0, sizeof(*s));
}

static void status_rejects_bad_fields(struct kunit *test)
{
	struct rdmalock_status s = {};
	size_t i;

	s.flags = 1;
	expect_status_einval(test, &s, "flags 1");
	s.flags = BIT(31);
	expect_status_einval(test, &s, "flags bit 31");
	s.pad = 1;
	expect_status_einval(test, &s, "pad");
	s.max_devices = RDMALOCK_MAX_DEVICES + 1;
	expect_status_einval(test, &s, "max_devices over the limit");
	s.max_devices = U32_MAX;
	expect_status_einval(test, &s, "max_devices U32_MAX");
	for (i = 0; i < ARRAY_SIZE(s.reserved); i++) {
		s.reserved[i] = 1;
		expect_status_einval(test, &s, "reserved");
	}
}

static void status_counts_without_an_array(struct kunit *test)
{
	struct rdmalock_status s = { .size = sizeof(s) };

	KUNIT_ASSERT_EQ(test, status_ioctl(test, &s), 0);
	KUNIT_EXPECT_GE(test, s.num_devices, 1);
	KUNIT_EXPECT_EQ(test, s.num_domains, 0);
}

static void status_rejects_bad_device_array(struct kunit *test)
{
	struct rdmalock_device_info info;
	struct rdmalock_status s = { .size = sizeof(s), .max_devices = 1 };

	/* With a device to report, a bad array must be noticed. */
	KUNIT_ASSERT_GE(test, rdmalock_devices_snapshot(NULL, 0), 1);
	s.devices = 0;
	KUNIT_EXPECT_EQ(test, status_ioctl(test, &s), -EFAULT);
	s.devices = (unsigned long)&info;
	KUNIT_EXPECT_EQ(test, status_ioctl(test, &s), -EFAULT);
}

/* The kernel writes the devices it has and not one byte more. */
static void status_fills_only_what_it_reports(struct kunit *test)
{
	struct rdmalock_device_info *info;
	struct rdmalock_status s = { .size = sizeof(s) };
	char __user *u = user_page(test);
	u32 n, max = PAGE_SIZE / sizeof(*info);

	info = kunit_kmalloc_array(test, max, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	memset(info, 0xa5, max * sizeof(*info));
	KUNIT_ASSERT_EQ(test, copy_to_user(u, info, max * sizeof(*info)), 0);

	s.devices = (unsigned long)u;
	s.max_devices = max;
	KUNIT_ASSERT_EQ(test, status_ioctl(test, &s), 0);
	n = s.num_devices;
	KUNIT_ASSERT_GE(test, n, 1);
	KUNIT_ASSERT_LT(test, n, max);
	KUNIT_ASSERT_EQ(test, copy_from_user(info, u, max * sizeof(*info)), 0);

	KUNIT_EXPECT_NE(test, info[0].name[0], 0);
	KUNIT_EXPECT_NOT_NULL(test, memchr(info[0].name, 0, sizeof(info[0].name)));
	KUNIT_EXPECT_NULL(test, memchr_inv(info[0].reserved, 0,
					   sizeof(info[0].reserved)));
	KUNIT_EXPECT_NULL(test, memchr_inv(&info[n], 0xa5,
					   (max - n) * sizeof(*info)));
}

static long floor_ioctl(struct kunit *test, struct rdmalock_floor *f)
{
	return ioctl_copy(test, RDMALOCK_IOC_FLOOR, f, sizeof(*f));
}

static void floor_init(struct rdmalock_floor *f)
{
	memset(f, 0, sizeof(*f));
	f->size = sizeof(*f);
	strscpy(f->name, "nosuch", sizeof(f->name));
	f->peer = 1;
	f->samples = 1;
}

/* Its own fields are checked before the domain is looked for. */
static void floor_rejects_bad_fields(struct kunit *test)
{
	struct rdmalock_floor f;
	size_t i;

	floor_init(&f);
	KUNIT_EXPECT_EQ(test, floor_ioctl(test, &f), -ENOENT);
	f.samples = 0;
	KUNIT_EXPECT_EQ(test, floor_ioctl(test, &f), -EINVAL);
	f.samples = RDMALOCK_FLOOR_MAX_SAMPLES + 1;
	KUNIT_EXPECT_EQ(test, floor_ioctl(test, &f), -EINVAL);
	floor_init(&f);
	f.flags = 1;
	KUNIT_EXPECT_EQ(test, floor_ioctl(test, &f), -EINVAL);
	floor_init(&f);
	memset(f.name, 'a', sizeof(f.name));
	KUNIT_EXPECT_EQ(test, floor_ioctl(test, &f), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(f.reserved); i++) {
		floor_init(&f);
		f.reserved[i] = 1;
		KUNIT_EXPECT_EQ_MSG(test, floor_ioctl(test, &f), -EINVAL,
				    "reserved[%zu]", i);
	}
}

static long view_ioctl(struct kunit *test, struct rdmalock_domain_view *v)
{
	return ioctl_copy(test, RDMALOCK_IOC_DOMAIN_VIEW, v, sizeof(*v));
}

static void view_init(struct rdmalock_domain_view *v)
{
	memset(v, 0, sizeof(*v));
	v->size = sizeof(*v);
	strscpy(v->name, "nosuch", sizeof(v->name));
}

/* Its own fields are checked before the domain is looked for. */
static void domain_view_rejects_bad_fields(struct kunit *test)
{
	static const u32 sizes[] = { 0, sizeof(struct rdmalock_domain_view) - 8,
				     sizeof(struct rdmalock_domain_view) + 8 };
	struct rdmalock_domain_view v;
	size_t i;

	view_init(&v);
	KUNIT_EXPECT_EQ(test, view_ioctl(test, &v), -ENOENT);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		view_init(&v);
		v.size = sizes[i];
		KUNIT_EXPECT_EQ_MSG(test, view_ioctl(test, &v), -EINVAL,
				    "size %u", sizes[i]);
	}
	view_init(&v);
	v.flags = 1;
	KUNIT_EXPECT_EQ(test, view_ioctl(test, &v), -EINVAL);
	view_init(&v);
	v.flags = BIT(31);
	KUNIT_EXPECT_EQ(test, view_ioctl(test, &v), -EINVAL);
	view_init(&v);
	v.pad = 1;
	KUNIT_EXPECT_EQ(test, view_ioctl(test, &v), -EINVAL);
	view_init(&v);
	memset(v.name, 'a', sizeof(v.name));
	KUNIT_EXPECT_EQ(test, view_ioctl(test, &v), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(v.reserved); i++) {
		view_init(&v);
		v.reserved[i] = 1;
		KUNIT_EXPECT_EQ_MSG(test, view_ioctl(test, &v), -EINVAL,
				    "reserved[%zu]", i);
	}
}

static long fence_ack_ioctl(struct kunit *test, struct rdmalock_fence_ack *a)
{
	return ioctl_copy(test, RDMALOCK_IOC_FENCE_ACK, a, sizeof(*a));
}

static void fence_ack_init(struct rdmalock_fence_ack *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	strscpy(a->name, "nosuch", sizeof(a->name));
}

/* As for the view: its fields first, then the domain. */
static void fence_ack_rejects_bad_fields(struct kunit *test)
{
	struct rdmalock_fence_ack a;
	size_t i;

	fence_ack_init(&a);
	KUNIT_EXPECT_EQ(test, fence_ack_ioctl(test, &a), -ENOENT);
	fence_ack_init(&a);
	a.size = sizeof(a) - 8;
	KUNIT_EXPECT_EQ(test, fence_ack_ioctl(test, &a), -EINVAL);
	fence_ack_init(&a);
	a.flags = 1;
	KUNIT_EXPECT_EQ(test, fence_ack_ioctl(test, &a), -EINVAL);
	fence_ack_init(&a);
	a.pad = 1;
	KUNIT_EXPECT_EQ(test, fence_ack_ioctl(test, &a), -EINVAL);
	fence_ack_init(&a);
	memset(a.name, 'a', sizeof(a.name));
	KUNIT_EXPECT_EQ(test, fence_ack_ioctl(test, &a), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(a.reserved); i++) {
		fence_ack_init(&a);
		a.reserved[i] = 1;
		KUNIT_EXPECT_EQ_MSG(test, fence_ack_ioctl(test, &a), -EINVAL,
				    "reserved[%zu]", i);
	}
}

static struct kunit_case rdmalock_ioctl_cases[] = {
	KUNIT_CASE(version_reports_abi_and_features),
	KUNIT_CASE(fence_ack_rejects_bad_fields),
	KUNIT_CASE(version_rejects_bad_size),
	KUNIT_CASE(version_rejects_reserved),
	KUNIT_CASE(unknown_commands_are_enotty),
	KUNIT_CASE(bad_argument_pointers_are_efault),
	KUNIT_CASE(status_rejects_bad_fields),
	KUNIT_CASE(status_counts_without_an_array),
	KUNIT_CASE(status_rejects_bad_device_array),
	KUNIT_CASE(status_fills_only_what_it_reports),
	KUNIT_CASE(floor_rejects_bad_fields),
	KUNIT_CASE(domain_view_rejects_bad_fields),
	{}
};

static struct kunit_suite rdmalock_ioctl_suite = {
	.name = "rdmalock_ioctl",
	.test_cases = rdmalock_ioctl_cases,
};

kunit_test_suite(rdmalock_ioctl_suite);

MODULE_DESCRIPTION("KUnit suites for rdmalock");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the list of RDMA devices kept by rdmalock's ib_client.
 *
 * The test guest creates a Soft-RoCE device on its virtio NIC before
 * loading us (tools/testing/vm/guest/init); its name is a parameter.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>

#include "fabric.h"
#include "rdmalock-pri.h"

static char *expect_device = "rxe0";
module_param(expect_device, charp, 0444);
MODULE_PARM_DESC(expect_device, "RDMA device the test guest created (default rxe0)");

static const struct rdmalock_device_info *
find_device(const struct rdmalock_device_info *info, u32 n, const char *name)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (!strcmp(info[i].name, name))
			return &info[i];
	return NULL;
}

static struct rdmalock_device_info *snapshot(struct kunit *test, u32 *n)
{
	struct rdmalock_device_info *info;

	info = kunit_kcalloc(test, RDMALOCK_MAX_DEVICES, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	*n = rdmalock_devices_snapshot(info, RDMALOCK_MAX_DEVICES);
	KUNIT_ASSERT_LE(test, *n, RDMALOCK_MAX_DEVICES);
	return info;
}

static void sees_the_soft_roce_device(struct kunit *test)
{
	const struct rdmalock_device_info *dev;
	const struct rdmalock_port_info *port;
	struct rdmalock_device_info *info;
	u32 n;

	info = snapshot(test, &n);
	dev = find_device(info, n, expect_device);
	KUNIT_ASSERT_NOT_NULL_MSG(test, dev, "%s not among %u devices",
				  expect_device, n);
	KUNIT_EXPECT_NE(test, dev->atomic_cap, RDMALOCK_ATOMIC_NONE);
	KUNIT_EXPECT_NE(test, dev->node_guid, 0);
	KUNIT_ASSERT_EQ(test, dev->num_ports, 1);

	port = &dev->ports[0];
	KUNIT_EXPECT_EQ(test, port->port_num, 1);
	KUNIT_EXPECT_EQ(test, port->state, RDMALOCK_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, port->link_layer, RDMALOCK_LINK_ETHERNET);
	KUNIT_EXPECT_GE(test, port->active_mtu, 256);
	KUNIT_EXPECT_LE(test, port->active_mtu, 4096);
	KUNIT_EXPECT_TRUE(test, is_power_of_2(port->active_mtu));
	/* Only the ports the device has are filled in. */
	KUNIT_EXPECT_NULL(test, memchr_inv(&dev->ports[1], 0, sizeof(dev->ports[1])));
}

static void snapshot_respects_capacity(struct kunit *test)
{
	struct rdmalock_device_info *info;
	u32 n;

	/* No room at all: the count alone, and @info is never touched. */
	n = rdmalock_devices_snapshot(NULL, 0);
	KUNIT_ASSERT_GE(test, n, 1);

	info = kunit_kcalloc(test, 2, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	memset(&info[1], 0x5a, sizeof(info[1]));
	KUNIT_EXPECT_EQ(test, rdmalock_devices_snapshot(info, 1), n);
	KUNIT_EXPECT_NE(test, info[0].name[0], 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(&info[1], 0x5a, sizeof(info[1])));
}

/*
 * Unregistering our ib_client removes every device from the list (its
 * remove callback ran for each); registering it again adds them back.
 */
static void client_reregistration_rebuilds_the_list(struct kunit *test)
{
	struct rdmalock_device_info *info;
	u32 before, during, after;
	int ret;

	before = rdmalock_devices_snapshot(NULL, 0);
	rdmalock_devices_exit();
	during = rdmalock_devices_snapshot(NULL, 0);
	ret = rdmalock_devices_init();

	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_GE(test, before, 1);
	KUNIT_EXPECT_EQ(test, during, 0);
	info = snapshot(test, &after);
	KUNIT_EXPECT_EQ(test, after, before);
	KUNIT_EXPECT_NOT_NULL(test, find_device(info, after, expect_device));
}

static struct kunit_case rdmalock_devices_cases[] = {
	KUNIT_CASE(sees_the_soft_roce_device),
	KUNIT_CASE(snapshot_respects_capacity),
	KUNIT_CASE(client_reregistration_rebuilds_the_list),
	{}
};

static struct kunit_suite rdmalock_devices_suite = {
	.name = "rdmalock_devices",
	.test_cases = rdmalock_devices_cases,
};

kunit_test_suite(rdmalock_devices_suite);

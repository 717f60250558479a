// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock fabric: the RDMA devices this module sees.
 *
 * ib_core tells an ib_client about every RDMA device as it is registered
 * and before it is unregistered. We keep our own list of them so that a
 * status query (and, later, the fabric choosing a device for a domain)
 * walks a list we own. ib_core calls remove() before a device goes away;
 * there every domain on it is first detached from it (its connections,
 * listener and registration dropped: rdma_cm would otherwise wait for
 * them), then we unlink it under rdmalock_devices_mutex; a reader that
 * needs a device after dropping the mutex holds a reference to it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "fabric-pri.h"

struct rdmalock_device {
	struct list_head entry;
	struct ib_device *ibdev;
};

static LIST_HEAD(rdmalock_devices);
static DEFINE_MUTEX(rdmalock_devices_mutex);
static struct ib_client rdmalock_ib_client;

static int rdmalock_add_device(struct ib_device *ibdev)
{
	struct rdmalock_device *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;

	mutex_lock(&rdmalock_devices_mutex);
	list_add_tail(&dev->entry, &rdmalock_devices);
	mutex_unlock(&rdmalock_devices_mutex);

	ib_set_client_data(ibdev, &rdmalock_ib_client, dev);
	pr_info("RDMA device %s added\n", dev_name(&ibdev->dev));
	return 0;
}

/**
 * rdmalock_device_present() - is a device still ours to use?
 * @ibdev: a device a fabric has resolved its address to
 *
 * False before our ib_client has seen the device (rdma_cm may hear of a
 * new device first) and from the start of its removal: a fabric being
 * created on it that did not make the list of fabrics in time must give
 * it up.
 *
 * Context: process context.
 */
bool rdmalock_device_present(struct ib_device *ibdev)
{
	struct rdmalock_device *dev;
	bool present = false;

	mutex_lock(&rdmalock_devices_mutex);
	list_for_each_entry(dev, &rdmalock_devices, entry)
		if (dev->ibdev == ibdev)
			present = true;
	mutex_unlock(&rdmalock_devices_mutex);
	return present;
}

static void rdmalock_remove_device(struct ib_device *ibdev, void *client_data)
{
	struct rdmalock_device *dev = client_data;

	/* First: a fabric created from now on sees that it is going. */
	mutex_lock(&rdmalock_devices_mutex);
	list_del(&dev->entry);
	mutex_unlock(&rdmalock_devices_mutex);

	/* rdma_cm waits for our cm_ids on it before the device can go. */
	rdmalock_fabric_remove_device(ibdev);

	pr_info("RDMA device %s removed\n", dev_name(&ibdev->dev));
	kfree(dev);
}

static struct ib_client rdmalock_ib_client = {
	.name = "rdmalock",
	.add = rdmalock_add_device,
	.remove = rdmalock_remove_device,
};

static u32 rdmalock_atomic_cap(enum ib_atomic_cap cap)
{
	switch (cap) {
	case IB_ATOMIC_HCA:
		return RDMALOCK_ATOMIC_HCA;
	case IB_ATOMIC_GLOB:
		return RDMALOCK_ATOMIC_GLOB;
	default:
		return RDMALOCK_ATOMIC_NONE;
	}
}

static u8 rdmalock_link_layer(enum rdma_link_layer ll)
{
	switch (ll) {
	case IB_LINK_LAYER_INFINIBAND:
		return RDMALOCK_LINK_INFINIBAND;
	case IB_LINK_LAYER_ETHERNET:
		return RDMALOCK_LINK_ETHERNET;
	default:
		return RDMALOCK_LINK_UNSPECIFIED;
	}
}

/* A port that cannot be queried is reported as NOP: not usable. */
static void rdmalock_fill_port(struct ib_device *ibdev, u32 port,
			       struct rdmalock_port_info *pi)
{
	struct ib_port_attr attr;

	pi->port_num = port;
	pi->link_layer = rdmalock_link_layer(rdma_port_get_link_layer(ibdev, port));
	if (ib_query_port(ibdev, port, &attr)) {
		pi->state = RDMALOCK_PORT_NOP;
		return;
	}
	pi->state = attr.state;
	pi->phys_state = attr.phys_state;
	pi->active_mtu = ib_mtu_enum_to_int(attr.active_mtu);
}

/*
 * Port queries may sleep and may take locks of their own (rxe takes the
 * RTNL to read the link speed), so they run without our mutex, under a
 * reference that keeps the device from being unregistered meanwhile.
 */
static void rdmalock_fill_device(struct ib_device *ibdev,
				 struct rdmalock_device_info *info)
{
	u32 port, n = 0;

	strscpy(info->name, dev_name(&ibdev->dev), sizeof(info->name));
	info->node_guid = be64_to_cpu(ibdev->node_guid);
	info->atomic_cap = rdmalock_atomic_cap(ibdev->attrs.atomic_cap);
	info->num_ports = rdma_end_port(ibdev) - rdma_start_port(ibdev) + 1;
	rdma_for_each_port(ibdev, port) {
		if (n == RDMALOCK_MAX_PORTS)
			break;
		rdmalock_fill_port(ibdev, port, &info->ports[n++]);
	}
}

/**
 * rdmalock_devices_snapshot() - describe the RDMA devices we see
 * @info: zeroed array of @max entries to fill in
 * @max: capacity of @info, at most %RDMALOCK_MAX_DEVICES
 *
 * Context: process context; may sleep. Takes rdmalock_devices_mutex.
 * Return: the number of devices seen, which may exceed @max; the first
 * min(return, @max) entries of @info are filled in.
 */
u32 rdmalock_devices_snapshot(struct rdmalock_device_info *info, u32 max)
{
	struct ib_device *held[RDMALOCK_MAX_DEVICES];
	struct rdmalock_device *dev;
	u32 total = 0, nheld = 0, i;

	if (WARN_ON_ONCE(max > RDMALOCK_MAX_DEVICES))
		max = RDMALOCK_MAX_DEVICES;

	mutex_lock(&rdmalock_devices_mutex);
	list_for_each_entry(dev, &rdmalock_devices, entry) {
		/* A device being unregistered has no references left to take. */
		if (!ib_device_try_get(dev->ibdev))
			continue;
		if (nheld < max)
			held[nheld++] = dev->ibdev;
		else
			ib_device_put(dev->ibdev);
		total++;
	}
	mutex_unlock(&rdmalock_devices_mutex);

	for (i = 0; i < nheld; i++) {
		rdmalock_fill_device(held[i], &info[i]);
		ib_device_put(held[i]);
	}
	return total;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_devices_snapshot);

/**
 * rdmalock_devices_init() - start watching RDMA devices
 *
 * Context: process context; may sleep. The add callback runs for every
 * device already registered before this returns.
 * Return: 0 or a negative errno from ib_register_client().
 */
int rdmalock_devices_init(void)
{
	return ib_register_client(&rdmalock_ib_client);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_devices_init);

/**
 * rdmalock_devices_exit() - stop watching RDMA devices and forget them all
 *
 * Context: process context; may sleep.
 */
void rdmalock_devices_exit(void)
{
	ib_unregister_client(&rdmalock_ib_client);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_devices_exit);

// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock: distributed locks over RDMA for in-kernel clients.
 *
 * Module entry and exit. Bring-up order is: watch RDMA devices, then open
 * the control device to userspace; tear-down closes the device first, so
 * that no ioctl can run against a half-torn-down module, then destroys
 * the domains userspace created, then stops watching devices.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "cluster.h"
#include "names.h"
#include "rdmalock-pri.h"

unsigned int rdmalock_heartbeat_ms = 1000;
module_param_named(heartbeat_ms, rdmalock_heartbeat_ms, uint, 0644);
MODULE_PARM_DESC(heartbeat_ms,
		 "Heartbeat period to connected peers in ms, 0 for none; taken when a domain is created (default 1000)");

bool rdmalock_emulate_atomics;
module_param_named(emulate_atomics, rdmalock_emulate_atomics, bool, 0644);
MODULE_PARM_DESC(emulate_atomics,
		 "Domains created with --atomics auto emulate atomics even where native ones work, for testing (default no)");

unsigned int rdmalock_heartbeat_timeout_ms = 5000;
module_param_named(heartbeat_timeout_ms, rdmalock_heartbeat_timeout_ms, uint, 0644);
MODULE_PARM_DESC(heartbeat_timeout_ms,
		 "A peer silent for this long (ms) is taken down (default 5000)");

unsigned int rdmalock_node_lease_ms = 4000;
module_param_named(node_lease_ms, rdmalock_node_lease_ms, uint, 0644);
MODULE_PARM_DESC(node_lease_ms,
		 "A member not renewed by a quorum for this long (ms) fences itself, and survivors recover its locks only after it; 0 switches node leases off, for tests only: a cut-off node then goes on granting (default 4000)");

module_param_named(names_idle_ms, rdmalock_names_idle_ms, uint, 0644);
MODULE_PARM_DESC(names_idle_ms,
		 "Named locks: a node gives back a name none of its handles used for this long (ms), freeing its slot at its home once no node references it (default 10000)");

bool rdmalock_allow_broken;
module_param_named(allow_broken, rdmalock_allow_broken, bool, 0444);
MODULE_PARM_DESC(allow_broken,
		 "Allow domains with the deliberately broken test-none and test-mixed locks, for the torture test's negative control (default no)");

static int __init rdmalock_init(void)
{
	int ret;

	rdmalock_stats_init();
	ret = rdmalock_devices_init();
	if (ret)
		goto err_stats;

	ret = rdmalock_chardev_init();
	if (ret)
		goto err_devices;

	pr_info("loaded, ABI version %d\n", RDMALOCK_ABI_VERSION);
	return 0;

err_devices:
	rdmalock_devices_exit();
err_stats:
	rdmalock_stats_exit();
	return ret;
}

static void __exit rdmalock_exit(void)
{
	rdmalock_chardev_exit();
	rdmalock_domains_exit();
	rdmalock_devices_exit();
	rdmalock_stats_exit();
	pr_info("unloaded\n");
}

module_init(rdmalock_init);
module_exit(rdmalock_exit);

MODULE_DESCRIPTION("Distributed locks over RDMA (ALock, ShiftLock, DSLR)");
MODULE_LICENSE("GPL");

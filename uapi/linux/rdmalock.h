/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * rdmalock: distributed locks over RDMA, userspace ABI of /dev/rdmalock.
 *
 * Every argument is a fixed-size structure whose first field, @size, the
 * caller sets to sizeof() of the structure it was compiled with; the
 * kernel rejects a size it does not know with -EINVAL. Structures only
 * ever grow at the end, so a later ABI version can accept older sizes.
 * All __u64 fields are naturally aligned, padding is explicit, and every
 * field named "reserved" or "pad" must be zero on input (-EINVAL
 * otherwise) and is zeroed on output.
 *
 * Errors common to every command: -ENOTTY for an unknown command, -EFAULT
 * for an unreadable or unwritable argument, -EINVAL for a bad size, an
 * unknown flag or a non-zero reserved field, -EPERM for a command that
 * changes state issued without CAP_SYS_ADMIN.
 */
#ifndef _UAPI_LINUX_RDMALOCK_H
#define _UAPI_LINUX_RDMALOCK_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define RDMALOCK_DEVICE_PATH	"/dev/rdmalock"

/* Bumped on every incompatible change; additions use feature bits. */
#define RDMALOCK_ABI_VERSION	1

/* Feature bits reported by RDMALOCK_IOC_VERSION. */
#define RDMALOCK_FEAT_DEVICE_STATUS	_BITULL(0)

/**
 * struct rdmalock_version - ABI version and features of the loaded module
 * @size: in: sizeof(struct rdmalock_version)
 * @abi_version: out: %RDMALOCK_ABI_VERSION of the module
 * @features: out: mask of RDMALOCK_FEAT_* the module implements
 * @reserved: must be zero
 */
struct rdmalock_version {
	__u32 size;
	__u32 abi_version;
	__u64 features;
	__u64 reserved[4];
};

/* Values of &rdmalock_port_info.state, as in the InfiniBand spec. */
#define RDMALOCK_PORT_NOP		0
#define RDMALOCK_PORT_DOWN		1
#define RDMALOCK_PORT_INIT		2
#define RDMALOCK_PORT_ARMED		3
#define RDMALOCK_PORT_ACTIVE		4
#define RDMALOCK_PORT_ACTIVE_DEFER	5

/* Values of &rdmalock_port_info.link_layer. */
#define RDMALOCK_LINK_UNSPECIFIED	0
#define RDMALOCK_LINK_INFINIBAND	1
#define RDMALOCK_LINK_ETHERNET		2

/* Values of &rdmalock_device_info.atomic_cap, as the device reports it. */
#define RDMALOCK_ATOMIC_NONE		0
#define RDMALOCK_ATOMIC_HCA		1
#define RDMALOCK_ATOMIC_GLOB		2

/* Ports reported per device; a device with more reports the first ones. */
#define RDMALOCK_MAX_PORTS		2
#define RDMALOCK_DEVICE_NAME_MAX	64
/* Largest &rdmalock_status.max_devices the kernel accepts. */
#define RDMALOCK_MAX_DEVICES		64

/**
 * struct rdmalock_port_info - state of one port of an RDMA device
 * @port_num: port number, from 1
 * @state: RDMALOCK_PORT_*
 * @phys_state: physical state as in the InfiniBand spec (5 is LinkUp)
 * @link_layer: RDMALOCK_LINK_*
 * @active_mtu: active path MTU in bytes
 */
struct rdmalock_port_info {
	__u8 port_num;
	__u8 state;
	__u8 phys_state;
	__u8 link_layer;
	__u32 active_mtu;
};

/**
 * struct rdmalock_device_info - an RDMA device the module sees
 * @name: device name, NUL-terminated (e.g. "rxe0")
 * @node_guid: node GUID, in host byte order
 * @atomic_cap: RDMALOCK_ATOMIC_*, as the device claims. A claim is not
 *	proof: some devices claim atomics they refuse from kernel QPs.
 * @num_ports: ports of the device; at most %RDMALOCK_MAX_PORTS are in @ports
 * @ports: the first ports of the device
 * @reserved: zero
 */
struct rdmalock_device_info {
	char name[RDMALOCK_DEVICE_NAME_MAX];
	__u64 node_guid;
	__u32 atomic_cap;
	__u32 num_ports;
	struct rdmalock_port_info ports[RDMALOCK_MAX_PORTS];
	__u64 reserved[2];
};

/**
 * struct rdmalock_status - what the module sees
 * @size: in: sizeof(struct rdmalock_status)
 * @flags: in: must be zero
 * @devices: in: user address of an array of @max_devices
 *	&struct rdmalock_device_info, filled in by the kernel; may be 0
 *	when @max_devices is 0
 * @max_devices: in: capacity of @devices, at most %RDMALOCK_MAX_DEVICES
 * @num_devices: out: RDMA devices the module sees. When larger than
 *	@max_devices only the first @max_devices were written; call again
 *	with a larger array.
 * @num_domains: out: lock domains configured on this node
 * @pad: must be zero
 * @reserved: must be zero
 */
struct rdmalock_status {
	__u32 size;
	__u32 flags;
	__u64 devices;
	__u32 max_devices;
	__u32 num_devices;
	__u32 num_domains;
	__u32 pad;
	__u64 reserved[4];
};

#define RDMALOCK_IOC_MAGIC	0xDA

/* Read-only commands; any user who can open the device may issue them. */
#define RDMALOCK_IOC_VERSION	_IOWR(RDMALOCK_IOC_MAGIC, 0x00, struct rdmalock_version)
#define RDMALOCK_IOC_STATUS	_IOWR(RDMALOCK_IOC_MAGIC, 0x01, struct rdmalock_status)

#endif /* _UAPI_LINUX_RDMALOCK_H */

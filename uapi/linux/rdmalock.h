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
 * The commands that change state and return nothing (DOMAIN_CREATE,
 * DOMAIN_DESTROY, LOCK, UNLOCK) never write their argument back, so they
 * cannot fail after their change: when one fails, it had no effect.
 *
 * Errors common to every command: -ENOTTY for an unknown command, -EFAULT
 * for an unreadable argument, or an unwritable one of a command that
 * returns results in it, -EINVAL for a bad size, an
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
#define RDMALOCK_FEAT_DOMAINS		_BITULL(1)
#define RDMALOCK_FEAT_LOCKS		_BITULL(2)	/* LOCK, UNLOCK, RUN */
/* Domains have keys (&rdmalock_domain_create.key, _F_INSECURE). */
#define RDMALOCK_FEAT_DOMAIN_KEY	_BITULL(3)
/* RDMALOCK_IOC_FLOOR: the fabric's floors, measured by the kernel. */
#define RDMALOCK_FEAT_FLOOR		_BITULL(4)
/* RDMALOCK_IOC_DOMAIN_VIEW: membership views, node leases, recovery. */
#define RDMALOCK_FEAT_VIEW		_BITULL(5)
/* RDMALOCK_IOC_FENCE_ACK, and the "fence" uevent of the device. */
#define RDMALOCK_FEAT_FENCE		_BITULL(6)
/*
 * Named locks (RDMALOCK_DOMAIN_F_NAMED), their counts in the domain's
 * status, and lock values (&rdmalock_lock_req.value).
 */
#define RDMALOCK_FEAT_NAMED		_BITULL(7)
/*
 * RDMALOCK_IOC_RUN's lock caching: flags RDMALOCK_RUN_F_CACHE, _DEAF and
 * _ASYNC, and the cached, blocked and cancelled counts. (With
 * RDMALOCK_FEAT_MODES: _CONVERT and the converted count.)
 */
#define RDMALOCK_FEAT_RUN_CACHE		_BITULL(8)
/* DLM's six modes (RDMALOCK_MODE_NL to _PW) and RDMALOCK_LOCK_F_CONVERT */
#define RDMALOCK_FEAT_MODES		_BITULL(9)
/* RDMALOCK_LOCK_F_NOTIFY: blocking events, by read(2) and poll(2) */
#define RDMALOCK_FEAT_NOTIFY		_BITULL(10)
/* &rdmalock_lock_req.lock_name: locks named by byte strings */
#define RDMALOCK_FEAT_LOCK_NAMES	_BITULL(11)
/*
 * The "fenced" uevent of the device: this node fenced itself, its locks
 * are lost (struct rdmalock_fence_ack tells the variables).
 */
#define RDMALOCK_FEAT_FENCED		_BITULL(12)

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

#define RDMALOCK_NAME_MAX		32
#define RDMALOCK_MAX_NODES		16
#define RDMALOCK_DEFAULT_PORT		7174
#define RDMALOCK_MAX_LOCKS_PER_NODE	16384
/*
 * Queue descriptors per node (&rdmalock_domain_create.descriptors): each
 * acquisition that waits or holds takes one. A multiple of
 * %RDMALOCK_DESCRIPTORS_STEP.
 */
#define RDMALOCK_DEFAULT_DESCRIPTORS	1024
#define RDMALOCK_MAX_DESCRIPTORS	8192
#define RDMALOCK_DESCRIPTORS_STEP	64
/* Largest &rdmalock_domain_list.max_names the kernel accepts. */
#define RDMALOCK_MAX_DOMAINS		256

/* How a domain does atomics (&rdmalock_domain_create.atomics). */
#define RDMALOCK_ATOMICS_AUTO		0	/* native if they work here */
#define RDMALOCK_ATOMICS_NATIVE		1	/* the NICs execute CAS and FAA */
#define RDMALOCK_ATOMICS_EMULATED	2	/* the home node's CPU does */

/* Lock algorithms a domain may be configured with. */
#define RDMALOCK_ALGO_ALOCK		1
#define RDMALOCK_ALGO_CAS		2
#define RDMALOCK_ALGO_MCS		3
#define RDMALOCK_ALGO_SHIFTLOCK		4
#define RDMALOCK_ALGO_DSLR		5
/*
 * Deliberately broken locks, for the negative control of the torture
 * test only; refused unless the module is loaded with allow_broken=1.
 * NONE does not exclude at all; MIXED takes one word with CPU CAS on its
 * home node and RDMA CAS from peers, which RDMA NICs do not make atomic.
 */
#define RDMALOCK_ALGO_TEST_NONE		100
#define RDMALOCK_ALGO_TEST_MIXED	101

/* ALock's default budgets (&rdmalock_domain_create.budget_local, _remote). */
#define RDMALOCK_ALOCK_BUDGET_LOCAL	5
#define RDMALOCK_ALOCK_BUDGET_REMOTE	20
#define RDMALOCK_ALOCK_BUDGET_MAX	1000000
/* The longest lease (&rdmalock_domain_create.lease_ms) of any algorithm. */
#define RDMALOCK_LEASE_MS_MAX		60000
/* ShiftLock: a holder's lease, and writers in a row before readers. */
#define RDMALOCK_SHIFTLOCK_LEASE_MS	10
#define RDMALOCK_SHIFTLOCK_LEASE_MS_MAX	RDMALOCK_LEASE_MS_MAX
#define RDMALOCK_SHIFTLOCK_WRITERS	16
#define RDMALOCK_SHIFTLOCK_WRITERS_MAX	65536
#define RDMALOCK_SHIFTLOCK_WRITER_CAS_MAX	64
#define RDMALOCK_SHIFTLOCK_WRITER_CAS_ONLY	0xffffffffU
/* DSLR with lease recovery: a holder's lease, the paper's default. */
#define RDMALOCK_DSLR_LEASE_MS		10

/*
 * Lock modes: DLM's six, with DLM's compatibility (Documentation/dlm.rst).
 * EX and SH came first; SH is DLM's PR. An algorithm serves each mode with
 * its lock word held shared or exclusive, never weaker than the mode
 * needs: without a shared mode (alock, cas, mcs), every mode but NL is
 * served exclusive.
 */
#define RDMALOCK_MODE_EX		0	/* exclusive */
#define RDMALOCK_MODE_SH		1	/* protected read */
#define RDMALOCK_MODE_PR		RDMALOCK_MODE_SH
#define RDMALOCK_MODE_NL		2	/* null: granted at once, blocks nobody */
#define RDMALOCK_MODE_CR		3	/* concurrent read */
#define RDMALOCK_MODE_CW		4	/* concurrent write */
#define RDMALOCK_MODE_PW		5	/* protected write */
#define RDMALOCK_MODES			6

/**
 * struct rdmalock_addr - the IP address of a node
 * @family: AF_INET or AF_INET6
 * @pad: must be zero
 * @addr: the address in network byte order; an IPv4 address uses the
 *	first four bytes and the rest must be zero
 */
struct rdmalock_addr {
	__u16 family;
	__u16 pad;
	__u8 addr[16];
};

/* The longest lock name, as DLM's (DLM_RESNAME_MAXLEN). */
#define RDMALOCK_LOCK_NAME_MAX		64
/* The longest lock value block; 32 and 64 bytes are the sizes served. */
#define RDMALOCK_LVB_MAX		64

/* Flags of &rdmalock_domain_create: a domain without a key, on purpose. */
#define RDMALOCK_DOMAIN_F_INSECURE	_BITUL(0)
/*
 * ShiftLock and DSLR: recover a lock whose holder seems to have failed by
 * the paper's lock lease (@lease_ms), which takes it from any holder
 * slower than that, instead of by membership views; for comparison.
 */
#define RDMALOCK_DOMAIN_F_LEASE_RECOVERY	_BITUL(1)
/*
 * Named locks: each lock name (a u64 id is the name of its eight
 * big-endian bytes) gets a slot of its own at its home while it is in
 * use, so distinct names are distinct locks; a home with every slot in
 * use refuses a new name with -ENOSPC. Without it a lock id maps to a
 * slot, and ids that share one are one lock. Needs membership recovery;
 * every node of a domain must agree.
 */
#define RDMALOCK_DOMAIN_F_NAMED		_BITUL(2)

/* Bytes of a domain key (&rdmalock_domain_create.key_len). */
#define RDMALOCK_KEY_MIN		16
#define RDMALOCK_KEY_MAX		64

/**
 * struct rdmalock_domain_create - join this node to a lock domain
 * @size: in: sizeof(struct rdmalock_domain_create)
 * @flags: %RDMALOCK_DOMAIN_F_INSECURE, %RDMALOCK_DOMAIN_F_LEASE_RECOVERY
 *	(ShiftLock and DSLR), %RDMALOCK_DOMAIN_F_NAMED, or zero
 * @name: NUL-terminated name, unique on this node; letters, digits, '-',
 *	'_' and '.'; the bytes after the NUL must be zero
 * @node_id: this node's index in @nodes
 * @num_nodes: entries used in @nodes, 1 to %RDMALOCK_MAX_NODES
 * @algo: RDMALOCK_ALGO_*; every node of a domain must agree
 * @locks_per_node: lock table slots on each node, 1 to
 *	%RDMALOCK_MAX_LOCKS_PER_NODE
 * @port: rdma_cm port every node listens on; 0 for %RDMALOCK_DEFAULT_PORT
 * @atomics: RDMALOCK_ATOMICS_*; every node of a domain must end up doing
 *	atomics the same way, or its peers refuse it
 * @descriptors: queue descriptors on each node: how many of its
 *	acquisitions may wait or hold at once; a multiple of
 *	%RDMALOCK_DESCRIPTORS_STEP up to %RDMALOCK_MAX_DESCRIPTORS, or 0 for
 *	%RDMALOCK_DEFAULT_DESCRIPTORS. Under ShiftLock, @num_nodes times
 *	this is at most 32767. Every node of a domain must agree (with
 *	4 KiB pages, its peers refuse a node that does not). A node out of
 *	descriptors makes new acquisitions wait for one, and asks its
 *	holders of named locks that have a blocking callback to give them
 *	up.
 * @nodes: every node's address, in the same order on every node; no
 *	duplicates
 * @budget_local: ALock: hand-overs within the home node's cohort before
 *	it must yield to waiting peers; 0 for %RDMALOCK_ALOCK_BUDGET_LOCAL.
 *	Must be 0 for other algorithms.
 * @budget_remote: ALock: the same for the peers' cohort; 0 for
 *	%RDMALOCK_ALOCK_BUDGET_REMOTE
 * @lease_ms: ShiftLock, and DSLR with %RDMALOCK_DOMAIN_F_LEASE_RECOVERY:
 *	how long a holder may keep a lock before the others may take it
 *	from it, if it seems to have failed, up to %RDMALOCK_LEASE_MS_MAX;
 *	0 for %RDMALOCK_SHIFTLOCK_LEASE_MS or %RDMALOCK_DSLR_LEASE_MS. Must
 *	be 0 otherwise.
 * @writer_batch: ShiftLock: writers that may take a lock one after the
 *	other while readers wait; 0 for %RDMALOCK_SHIFTLOCK_WRITERS
 * @writer_cas: ShiftLock: compare-and-swaps a writer posts to queue
 *	itself, or to release, before it asks the lock's home node to do it.
 *	0, the default: none; the home node alone changes the queue's tail,
 *	with fetch-and-adds that cannot fail. 1 to
 *	%RDMALOCK_SHIFTLOCK_WRITER_CAS_MAX: that many (none to queue for a
 *	lock it last saw busy), then the home node finishes the CAS loop,
 *	expecting the word a moment old rather than a round trip.
 *	%RDMALOCK_SHIFTLOCK_WRITER_CAS_ONLY: never ask. Every node of a
 *	domain must agree.
 * @key_len: bytes at @key, %RDMALOCK_KEY_MIN to %RDMALOCK_KEY_MAX; 0
 *	only with %RDMALOCK_DOMAIN_F_INSECURE
 * @key: user address of the domain's secret key, the same bytes on every
 *	node; 0 when @key_len is. Peers prove to each other that they have
 *	it (HMAC-SHA256 challenge and response) before they are given this
 *	node's memory. The kernel keeps only the HMAC state derived from it.
 *
 * A domain without a key must be asked for with
 * %RDMALOCK_DOMAIN_F_INSECURE: anyone who reaches its port can then join
 * it. Keyed and keyless nodes refuse each other.
 *
 * Requires CAP_SYS_ADMIN. Returns once the node listens and its own
 * memory is registered; connections to peers are made in the background
 * and retried until the peers are there (see RDMALOCK_IOC_DOMAIN_STATUS).
 */
struct rdmalock_domain_create {
	__u32 size;
	__u32 flags;
	char name[RDMALOCK_NAME_MAX];
	__u32 node_id;
	__u32 num_nodes;
	__u32 algo;
	__u32 locks_per_node;
	__u16 port;
	__u16 atomics;
	__u32 descriptors;
	struct rdmalock_addr nodes[RDMALOCK_MAX_NODES];
	__u32 budget_local;
	__u32 budget_remote;
	__u32 lease_ms;
	__u32 writer_batch;
	__u32 writer_cas;
	__u32 key_len;
	__u64 key;
};

/**
 * struct rdmalock_domain_name - names a domain
 * @size: in: sizeof(struct rdmalock_domain_name)
 * @flags: must be zero
 * @name: NUL-terminated name of the domain
 * @reserved: must be zero
 */
struct rdmalock_domain_name {
	__u32 size;
	__u32 flags;
	char name[RDMALOCK_NAME_MAX];
	__u64 reserved[2];
};

/**
 * struct rdmalock_domain_list - the names of the domains on this node
 * @size: in: sizeof(struct rdmalock_domain_list)
 * @flags: must be zero
 * @names: in: user address of @max_names arrays of %RDMALOCK_NAME_MAX chars
 * @max_names: in: capacity of @names, at most %RDMALOCK_MAX_DOMAINS
 * @num_names: out: domains on this node; at most @max_names were written
 * @reserved: must be zero
 */
struct rdmalock_domain_list {
	__u32 size;
	__u32 flags;
	__u64 names;
	__u32 max_names;
	__u32 num_names;
	__u64 reserved[2];
};

/* Values of &rdmalock_domain_status.auth. */
#define RDMALOCK_AUTH_NONE		0	/* anyone may join */
#define RDMALOCK_AUTH_KEY		1	/* peers prove the domain key */

/* Values of &rdmalock_peer_status.state. */
#define RDMALOCK_PEER_DOWN		0
#define RDMALOCK_PEER_CONNECTING	1
#define RDMALOCK_PEER_UP		2

/* Verbs counted per peer, indexing &rdmalock_peer_status.verbs. */
#define RDMALOCK_VERB_READ		0
#define RDMALOCK_VERB_WRITE		1
#define RDMALOCK_VERB_CAS		2
#define RDMALOCK_VERB_FAA		3
#define RDMALOCK_VERB_SEND		4	/* messages sent */
/* Messages received: posted, all that arrived; failed, the malformed. */
#define RDMALOCK_VERB_RECV		5
/* RDMA WRITE with immediate: a write whose arrival wakes the target. */
#define RDMALOCK_VERB_WRITE_IMM		6
#define RDMALOCK_VERB_MAX		7

/**
 * struct rdmalock_verb_stats - counters of one kind of verb to one peer
 * @posted: work requests posted
 * @completed: completed successfully
 * @failed: completed in error, flushed, or refused before posting
 * @bytes: payload bytes of the successful ones
 */
struct rdmalock_verb_stats {
	__u64 posted;
	__u64 completed;
	__u64 failed;
	__u64 bytes;
};

/**
 * struct rdmalock_peer_status - this node's view of one node of a domain
 * @node_id: the node's index; this node's own entry is its loopback
 * @state: RDMALOCK_PEER_*
 * @qp_num: local QP number of the connection, 0 when there is none
 * @connects: connections established with this peer so far
 * @verbs: counters by RDMALOCK_VERB_*
 */
struct rdmalock_peer_status {
	__u32 node_id;
	__u32 state;
	__u32 qp_num;
	__u32 connects;
	struct rdmalock_verb_stats verbs[RDMALOCK_VERB_MAX];
};

/**
 * struct rdmalock_domain_status - a domain and its peers
 * @size: in: sizeof(struct rdmalock_domain_status)
 * @flags: must be zero
 * @name: in: NUL-terminated name of the domain
 * @node_id: out: this node's index
 * @num_nodes: out: nodes in the domain; @peers[0..num_nodes-1] are valid
 * @algo: out: RDMALOCK_ALGO_*
 * @locks_per_node: out: lock table slots per node
 * @region_len: out: bytes of this node's memory exposed to its peers
 * @port: out: rdma_cm port
 * @atomics: out: RDMALOCK_ATOMICS_NATIVE or RDMALOCK_ATOMICS_EMULATED
 * @peers: out: one entry per node, by node id
 * @auth: out: %RDMALOCK_AUTH_KEY when peers must prove the domain's key,
 *	%RDMALOCK_AUTH_NONE for a domain created with
 *	%RDMALOCK_DOMAIN_F_INSECURE
 * @named: out: 1 for a domain with named locks (%RDMALOCK_DOMAIN_F_NAMED)
 * @names_used: out: names homed on this node that some node references,
 *	each with its own slot
 * @names_cached: out: names this node references
 */
struct rdmalock_domain_status {
	__u32 size;
	__u32 flags;
	char name[RDMALOCK_NAME_MAX];
	__u32 node_id;
	__u32 num_nodes;
	__u32 algo;
	__u32 locks_per_node;
	__u32 region_len;
	__u16 port;
	__u16 atomics;
	struct rdmalock_peer_status peers[RDMALOCK_MAX_NODES];
	__u32 auth;
	__u32 named;
	__u32 names_used;
	__u32 names_cached;
};

/* Values of &rdmalock_domain_view.state. */
#define RDMALOCK_VIEW_OUT		0	/* not a member: not joined, or fenced */
#define RDMALOCK_VIEW_CHANGING		1	/* a member; a view change is under way */
#define RDMALOCK_VIEW_MEMBER		2	/* a member; locks are granted */

/**
 * struct rdmalock_domain_view - this node's membership of a domain
 * @size: in: sizeof(struct rdmalock_domain_view)
 * @flags: must be zero
 * @name: in: NUL-terminated name of the domain
 * @epoch: out: the last view this node committed, 0 before the first
 * @members: out: bit n is set when node n is a member of that view
 * @state: out: RDMALOCK_VIEW_*
 * @coordinator: out: the node that proposed that view
 * @view_changes: out: views this node has committed
 * @fences: out: times this node fenced itself: it lost its node lease,
 *	and with it every lock it held
 * @lease_ms: out: the domain's node lease, 0 when leases are off
 * @pad: must be zero
 * @reserved: must be zero
 *
 * Every member of a view agrees on its epoch and members; a node that is
 * not a member grants nothing. See Documentation/membership.rst.
 */
struct rdmalock_domain_view {
	__u32 size;
	__u32 flags;
	char name[RDMALOCK_NAME_MAX];
	__u64 epoch;
	__u64 members;
	__u32 state;
	__u32 coordinator;
	__u64 view_changes;
	__u64 fences;
	__u32 lease_ms;
	__u32 pad;
	__u64 reserved[2];
};

/**
 * struct rdmalock_fence_ack - a cluster manager has stopped a node
 * @size: in: sizeof(struct rdmalock_fence_ack)
 * @flags: must be zero
 * @name: in: NUL-terminated name of the domain
 * @node: in: the node that was fenced: powered off, or cut off from all
 *	it could write, by the cluster manager. It must not be a member of
 *	this node's view that is still connected (-EBUSY).
 * @pad: must be zero
 * @reserved: must be zero
 *
 * Without it, the survivors recover a departed node's locks only once its
 * node lease has run out on their clocks (RDMALOCK_IOC_DOMAIN_VIEW's
 * @lease_ms, plus a margin). With it, they go on at once. It does not
 * make a quorum of the survivors: a view still needs one. The
 * acknowledgment reaches every member; giving it for a node that is not
 * stopped allows a split brain. When a view change has to wait for a node's lease, each
 * member's device sends a KOBJ_CHANGE uevent with RDMALOCK_EVENT=fence,
 * RDMALOCK_DOMAIN, RDMALOCK_NODE and RDMALOCK_EPOCH. A node that fences
 * itself (its lease ran out) sends one with RDMALOCK_EVENT=fenced, its
 * own id as RDMALOCK_NODE, and the epoch of the view it leaves, so that
 * what writes under its locks can stop (RDMALOCK_FEAT_FENCED). Requires
 * CAP_SYS_ADMIN. See Documentation/membership.rst.
 */
struct rdmalock_fence_ack {
	__u32 size;
	__u32 flags;
	char name[RDMALOCK_NAME_MAX];
	__u32 node;
	__u32 pad;
	__u64 reserved[2];
};

/* Flags of &rdmalock_fabric_test: use the asynchronous verbs. */
#define RDMALOCK_FTEST_F_ASYNC		_BITUL(0)

/* Operations of &rdmalock_fabric_test.op. */
#define RDMALOCK_FTEST_PATTERN		1
#define RDMALOCK_FTEST_FAA_STORM	2
#define RDMALOCK_FTEST_CAS_PINGPONG	3
#define RDMALOCK_FTEST_READ		4
#define RDMALOCK_FTEST_INVALIDATE	5

/**
 * struct rdmalock_fabric_test - exercise the fabric of a domain
 * @size: in: sizeof(struct rdmalock_fabric_test)
 * @flags: in: RDMALOCK_FTEST_F_*
 * @name: in: NUL-terminated name of the domain
 * @op: in: RDMALOCK_FTEST_*
 * @target: in: node whose memory is used
 * @threads: in: kernel threads running the operation, 1 to 64
 * @iterations: in: operations per thread, 1 to 1000000
 * @word: in: index of the 8-byte test word at @target, 0 to 7
 * @pad: must be zero
 * @value: out: PATTERN: 0; otherwise the word's value after this node's
 *	threads finished
 * @done: out: operations completed
 * @errors: out: operations failed or, for PATTERN, mismatches read back
 * @first_error: out: the first negative errno seen, or 0
 * @pad2: zero
 * @reserved: must be zero
 *
 * Requires CAP_SYS_ADMIN. PATTERN writes a pattern into the target's
 * test words and reads it back; FAA_STORM adds 1 to the word @iterations
 * times per thread; CAS_PINGPONG, run by every node of the domain at
 * once, moves the word from N*i + this node to N*i + this node + 1 for i
 * from 0 to @iterations - 1, waiting for the other nodes' turns; READ
 * (one thread, one iteration) only reads the word. INVALIDATE (one
 * thread, one iteration, @target another node, @word 0) attacks @target
 * as a hostile peer would: it sends it a SEND_WITH_INVALIDATE naming the
 * rkey of its region; refused (EPERM) unless the module is loaded with
 * allow_broken=1.
 */
struct rdmalock_fabric_test {
	__u32 size;
	__u32 flags;
	char name[RDMALOCK_NAME_MAX];
	__u32 op;
	__u32 target;
	__u32 threads;
	__u32 iterations;
	__u32 word;
	__u32 pad;
	__u64 value;
	__u64 done;
	__u64 errors;
	__s32 first_error;
	__u32 pad2;
	__u64 reserved[2];
};

/* Flags of &rdmalock_lock_req. */
#define RDMALOCK_LOCK_F_TRY		_BITUL(0)	/* do not wait */
#define RDMALOCK_LOCK_F_CONVERT		_BITUL(1)	/* change a held lock's mode */
#define RDMALOCK_LOCK_F_NOTIFY		_BITUL(2)	/* blocking events to read(2) */

/**
 * struct rdmalock_lock_req - take or release a lock for this open file
 * @size: in: sizeof(struct rdmalock_lock_req)
 * @flags: in: RDMALOCK_LOCK_F_*; must be zero for UNLOCK
 * @name: in: NUL-terminated name of the domain
 * @id: in: the lock's id
 * @mode: in: RDMALOCK_MODE_*; ignored by UNLOCK
 * @timeout_ms: in: give up after this long with -ETIMEDOUT; 0 waits until
 *	the lock is granted or the lock's home node is lost (-ENOTCONN); a
 *	fatal signal ends the wait either way (-EINTR). ShiftLock honours it only until its
 *	acquisition has queued (its first atomic): from then on it cannot
 *	leave the queue without breaking the lock for the others, and waits
 *	for its grant or a view change
 * @value: in: user address of a &struct rdmalock_lock_value, or 0. LOCK
 *	in a domain with named locks then reads the lock's value into it
 *	(-EOPNOTSUPP elsewhere), and the lock's exclusive release writes
 *	the LVB back: the one UNLOCK gives in its own @value, or else the
 *	one LOCK read
 * @lock_name: in: user address of a &struct rdmalock_lock_name, or 0.
 *	In a domain with named locks (-EOPNOTSUPP elsewhere), the lock is
 *	then the one of that name, and @id must be zero; a lock id is the
 *	name of its eight big-endian bytes
 *
 * Locks belong to the open file: closing it releases every lock it
 * still holds. A file holds a given lock (domain, and id or name) at most
 * once: LOCK of a held one fails with -EDEADLK, UNLOCK of one not held
 * with -ENOENT.
 * TRY that finds the lock taken fails with -EAGAIN.
 *
 * LOCK with %RDMALOCK_LOCK_F_CONVERT converts a lock the file holds to
 * @mode without letting go of it (the in-kernel rdmalock_lock_convert();
 * Documentation/api.rst): -ENOENT when the file does not hold it (or
 * another call of the file is converting it), -EDEADLK when the
 * algorithm cannot grant the conversion without letting go, and the lock
 * keeps its mode. With @value, the LVB in it is written back when the
 * conversion is down from PW or EX (the value must then be the lock's own,
 * as LOCK read it, or changed), and the value as the conversion leaves it
 * is read back into it. TRY and @timeout_ms apply to a conversion from NL.
 *
 * LOCK with %RDMALOCK_LOCK_F_NOTIFY, in a domain with named locks
 * (-EOPNOTSUPP elsewhere), has the file told when a request that the
 * lock's hold blocks waits for it: read(2) of the file returns a &struct
 * rdmalock_blocking_event for it, and poll(2) says the file is readable,
 * until the lock is released. Not with %RDMALOCK_LOCK_F_CONVERT.
 */
struct rdmalock_lock_req {
	__u32 size;
	__u32 flags;
	char name[RDMALOCK_NAME_MAX];
	__u64 id;
	__u32 mode;
	__u32 timeout_ms;
	__u64 value;
	__u64 lock_name;
};

/**
 * struct rdmalock_lock_name - a lock's name (&rdmalock_lock_req.lock_name)
 * @len: in: its length, 1 to %RDMALOCK_LOCK_NAME_MAX
 * @pad: must be zero
 * @name: in: its bytes, any; those past @len are ignored
 */
struct rdmalock_lock_name {
	__u32 len;
	__u32 pad;
	__u8 name[RDMALOCK_LOCK_NAME_MAX];
};

/**
 * struct rdmalock_blocking_event - what read(2) of /dev/rdmalock returns
 * @name: the domain of a lock the file holds with %RDMALOCK_LOCK_F_NOTIFY
 * @id: the lock's id; 0 for one taken by its name
 * @mode: RDMALOCK_MODE_EX or RDMALOCK_MODE_SH: a request for that mode
 *	(or a stronger one) waits for the lock, and the file's hold blocks
 *	it
 * @pad: zero
 * @lock_name: the lock's name, for one taken by its name; else its
 *	@len is 0
 *
 * A lock has at most one event to read at a time: a later request for a
 * stronger mode makes its @mode RDMALOCK_MODE_EX. read(2) returns as many
 * whole events as fit, waiting for one unless the file is O_NONBLOCK
 * (then -EAGAIN); a buffer smaller than one event is -EINVAL.
 */
struct rdmalock_blocking_event {
	char name[RDMALOCK_NAME_MAX];
	__u64 id;
	__u32 mode;
	__u32 pad;
	struct rdmalock_lock_name lock_name;
};

/* Flags of &rdmalock_lock_value. */
#define RDMALOCK_LVB_F_VALID		_BITUL(0)

/**
 * struct rdmalock_lock_value - a named lock's value (&rdmalock_lock_req.value)
 * @token: out: LOCK in exclusive mode: the grant's fencing token, which
 *	increases with every exclusive grant of the lock; 0 for a shared one
 * @flags: out: LOCK: %RDMALOCK_LVB_F_VALID when the LVB is valid: no
 *	node that held the lock exclusive, with an LVB to write back, left
 *	the membership view since the last write-back
 * @lvb_len: in: LOCK: 0 (the token only), 32 or 64 bytes of LVB
 * @pad: must be zero
 * @lvb: out: LOCK: the LVB as granted; in: UNLOCK of an exclusive hold:
 *	the LVB to write back
 */
struct rdmalock_lock_value {
	__u64 token;
	__u32 flags;
	__u32 lvb_len;
	__u32 pad[2];
	__u8 lvb[RDMALOCK_LVB_MAX];
};

/* Operations of &rdmalock_run.op. */
#define RDMALOCK_RUN_TORTURE		1	/* run, checking exclusion */
#define RDMALOCK_RUN_BENCH		2	/* run, measuring */
#define RDMALOCK_RUN_COUNTERS		3	/* read the guarded counters */
#define RDMALOCK_RUN_RESET		4	/* zero the guarded counters */

/* Key distributions of &rdmalock_run.dist. */
#define RDMALOCK_DIST_UNIFORM		0
#define RDMALOCK_DIST_ZIPF		1

/* Flags of &rdmalock_run. */
#define RDMALOCK_RUN_F_CACHE		_BITUL(0)	/* keep locks until asked */
#define RDMALOCK_RUN_F_DEAF		_BITUL(1)	/* ... and never hear it */
#define RDMALOCK_RUN_F_ASYNC		_BITUL(2)	/* ask asynchronously */
#define RDMALOCK_RUN_F_CONVERT		_BITUL(3)	/* convert down when asked */
#define RDMALOCK_RUN_F_GAP		_BITUL(4)	/* ... by letting go a moment */

#define RDMALOCK_RUN_MAX_THREADS	64
#define RDMALOCK_RUN_MAX_LOCKS		65536
#define RDMALOCK_RUN_MAX_MS		600000
/* Locks of a run with RDMALOCK_RUN_F_CACHE: each thread may keep all. */
#define RDMALOCK_RUN_CACHE_MAX_LOCKS	1024

/**
 * struct rdmalock_run - torture or benchmark the locks of a domain
 * @size: in: sizeof(struct rdmalock_run)
 * @flags: in: RDMALOCK_RUN_F_*, for TORTURE in a domain with named locks
 *	only: with CACHE, each thread keeps every lock it took after its
 *	critical section, as a filesystem caches locks, and releases it
 *	only when its blocking callback asks for it (or to take it
 *	exclusive); the lock value block carries the guarded counter, which
 *	every critical section checks against it. DEAF also: the callbacks
 *	are ignored, so that requests for a kept lock wait until they time
 *	out: the negative control of CACHE. ASYNC also: every lock is
 *	asked for with an asynchronous request, and one request in four is
 *	cancelled as soon as it is made. CONVERT also: exclusive sections
 *	take EX or PW, shared ones PR; a lock kept exclusive that only
 *	shared requests wait for is converted down to PR, keeping it, and
 *	one kept shared and wanted exclusive is converted up, or given up
 *	and taken again where the conversion is refused. GAP also: the
 *	conversion down lets go of the lock, which the thread takes again
 *	at its next use, trusting the LVB it had: the negative control of
 *	CONVERT, whose violations show writers granted in between. Else
 *	zero
 * @name: in: NUL-terminated name of the domain
 * @op: in: RDMALOCK_RUN_*
 * @threads: in: TORTURE, BENCH: kernel threads, 1 to
 *	%RDMALOCK_RUN_MAX_THREADS
 * @duration_ms: in: TORTURE, BENCH: how long they run, 1 to
 *	%RDMALOCK_RUN_MAX_MS
 * @num_locks: in: the lock ids used are 0 to @num_locks - 1, 1 to
 *	%RDMALOCK_RUN_MAX_LOCKS (%RDMALOCK_RUN_CACHE_MAX_LOCKS with CACHE);
 *	no two may share a lock table slot
 * @local_pct: in: percentage of acquisitions of locks homed on this node
 * @read_pct: in: percentage of acquisitions in shared mode
 * @dist: in: RDMALOCK_DIST_*: how a key is drawn among the local (or
 *	remote) ones
 * @converted: in: zero. Out: CONVERT: conversions down that kept a lock
 * @zipf_cdf: in: ZIPF: user address of @num_locks __u32, the cumulative
 *	distribution of ranks scaled to 2^32 - 1, non-decreasing
 * @counts: in: user address of @num_locks __u64, or 0. Out: TORTURE,
 *	BENCH: this node's acquisitions of each lock; COUNTERS: the guarded
 *	counter of each lock homed here (0 for the others)
 * @acquisitions: out: locks taken and released by this node's threads
 * @violations: out: TORTURE: acquisitions that found another owner, or
 *	lost theirs, in the lock's owner word
 * @errors: out: acquisitions that failed (timed out, node lost, ...)
 * @first_error: out: the first negative errno of those, or 0
 * @cancelled: in: zero. Out: ASYNC: requests a cancellation ended
 * @lat_p50_ns: out: median time from asking for a lock to holding it
 * @lat_p99_ns: out: its 99th percentile
 * @lat_p999_ns: out: its 99.9th percentile
 * @lat_max_ns: out: its maximum
 * @verbs: out: RDMA work requests this node posted during the run, by
 *	RDMALOCK_VERB_* (heartbeats included in SEND)
 * @cas_failed: out: compare-and-swaps (RDMA or CPU) that found another
 *	value than expected, posted by this node for its threads or, as a
 *	ShiftLock home node, for other nodes' writers
 * @cas_failed_release: out: those of @cas_failed that were posted to
 *	release a lock
 * @delegated: out: ShiftLock: queueings and releases of this node's
 *	writers that it asked the lock's home node to finish
 * @wall_ns: out: how long the run took
 * @cpu_ns: out: CPU time the threads used, summed
 * @cached: out: CACHE: critical sections under a lock kept from before
 * @blocked: out: CACHE: blocking callbacks the threads' locks received
 *
 * Requires CAP_SYS_ADMIN. Each acquisition of TORTURE checks and sets the
 * lock's owner word, then increments its guarded counter at the home
 * node non-atomically (read, pause, write); when every node's run has
 * ended, each counter must equal the acquisitions of its lock summed over
 * the nodes (with CACHE, its exclusive critical sections). BENCH takes
 * and releases locks with an empty critical section.
 */
struct rdmalock_run {
	__u32 size;
	__u32 flags;
	char name[RDMALOCK_NAME_MAX];
	__u32 op;
	__u32 threads;
	__u32 duration_ms;
	__u32 num_locks;
	__u32 local_pct;
	__u32 read_pct;
	__u32 dist;
	__u32 converted;
	__u64 zipf_cdf;
	__u64 counts;
	__u64 acquisitions;
	__u64 violations;
	__u64 errors;
	__s32 first_error;
	__u32 cancelled;
	__u64 lat_p50_ns;
	__u64 lat_p99_ns;
	__u64 lat_p999_ns;
	__u64 lat_max_ns;
	__u64 verbs[RDMALOCK_VERB_MAX];
	__u64 cas_failed;
	__u64 wall_ns;
	__u64 cpu_ns;
	__u64 cas_failed_release;
	__u64 delegated;
	__u64 cached;
	__u64 blocked;
};

/* The floors &rdmalock_floor measures, indexing its arrays. */
#define RDMALOCK_FLOOR_REMOTE_CAS	0	/* RDMA CAS on @peer's word */
#define RDMALOCK_FLOOR_LOOPBACK_CAS	1	/* the same on this node's */
#define RDMALOCK_FLOOR_MESSAGE		2	/* to @peer and back */
#define RDMALOCK_FLOOR_CPU_CAS		3	/* cmpxchg on a local word */
#define RDMALOCK_FLOOR_KINDS		4

#define RDMALOCK_FLOOR_MAX_SAMPLES	100000

/**
 * struct rdmalock_floor - the fabric's floors, measured on a domain
 * @size: in: sizeof(struct rdmalock_floor)
 * @flags: in: must be zero
 * @name: in: NUL-terminated name of the domain
 * @peer: in: the other node of REMOTE_CAS and MESSAGE; not this node
 * @samples: in: samples of each floor, 1 to %RDMALOCK_FLOOR_MAX_SAMPLES
 * @p50_ns: out: by RDMALOCK_FLOOR_*, the median of its samples
 * @p99_ns: out: their 99th percentile
 * @done: out: samples taken of each: @samples when the command succeeds
 * @reserved: must be zero
 *
 * Requires CAP_SYS_ADMIN. The floors are what no lock of the domain can
 * beat, measured one sample after the other, each timed by the kernel's
 * monotonic clock. REMOTE_CAS: one RDMA compare-and-swap to @peer, its
 * completion waited for (0 for 0 on one of the fabric's test words,
 * which never changes it); LOOPBACK_CAS: the same to this node, through
 * its loopback connection; MESSAGE: a message to @peer, which the kernel
 * there answers at once, until the answer has woken the sender; CPU_CAS:
 * one cmpxchg on a word of this node's memory, each sample the mean of a
 * batch (a single one is shorter than the clock's own cost). Under
 * emulated atomics the CAS floors are the emulation's: a message to the
 * word's node and its answer.
 *
 * Fails with -EINVAL for a bad @peer or @samples, -ENOTCONN when @peer
 * (or the loopback) is not up, -ETIMEDOUT when @peer does not answer a
 * message, -EINTR on a fatal signal, or a verb's error; nothing is
 * returned then.
 */
struct rdmalock_floor {
	__u32 size;
	__u32 flags;
	char name[RDMALOCK_NAME_MAX];
	__u32 peer;
	__u32 samples;
	__u64 p50_ns[RDMALOCK_FLOOR_KINDS];
	__u64 p99_ns[RDMALOCK_FLOOR_KINDS];
	__u64 done[RDMALOCK_FLOOR_KINDS];
	__u64 reserved[4];
};

#define RDMALOCK_IOC_MAGIC	0xDA

/* Read-only commands; any user who can open the device may issue them. */
#define RDMALOCK_IOC_VERSION	_IOWR(RDMALOCK_IOC_MAGIC, 0x00, struct rdmalock_version)
#define RDMALOCK_IOC_STATUS	_IOWR(RDMALOCK_IOC_MAGIC, 0x01, struct rdmalock_status)
#define RDMALOCK_IOC_DOMAIN_LIST \
	_IOWR(RDMALOCK_IOC_MAGIC, 0x02, struct rdmalock_domain_list)
#define RDMALOCK_IOC_DOMAIN_STATUS \
	_IOWR(RDMALOCK_IOC_MAGIC, 0x03, struct rdmalock_domain_status)
#define RDMALOCK_IOC_DOMAIN_VIEW \
	_IOWR(RDMALOCK_IOC_MAGIC, 0x04, struct rdmalock_domain_view)

/* Commands that change state; they require CAP_SYS_ADMIN. */
#define RDMALOCK_IOC_DOMAIN_CREATE \
	_IOWR(RDMALOCK_IOC_MAGIC, 0x10, struct rdmalock_domain_create)
#define RDMALOCK_IOC_DOMAIN_DESTROY \
	_IOWR(RDMALOCK_IOC_MAGIC, 0x11, struct rdmalock_domain_name)
#define RDMALOCK_IOC_FABRIC_TEST \
	_IOWR(RDMALOCK_IOC_MAGIC, 0x12, struct rdmalock_fabric_test)
#define RDMALOCK_IOC_LOCK	_IOWR(RDMALOCK_IOC_MAGIC, 0x13, struct rdmalock_lock_req)
#define RDMALOCK_IOC_UNLOCK	_IOWR(RDMALOCK_IOC_MAGIC, 0x14, struct rdmalock_lock_req)
#define RDMALOCK_IOC_RUN	_IOWR(RDMALOCK_IOC_MAGIC, 0x15, struct rdmalock_run)
#define RDMALOCK_IOC_FLOOR	_IOWR(RDMALOCK_IOC_MAGIC, 0x16, struct rdmalock_floor)
#define RDMALOCK_IOC_FENCE_ACK \
	_IOWR(RDMALOCK_IOC_MAGIC, 0x17, struct rdmalock_fence_ack)

#endif /* _UAPI_LINUX_RDMALOCK_H */

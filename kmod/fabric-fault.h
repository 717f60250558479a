/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock fabric: fault injection on verbs and messages, for testing.
 *
 * Built on the kernel's fault-injection framework, and only into a kernel
 * that has its debugfs knobs (CONFIG_FAULT_INJECTION_DEBUG_FS); elsewhere
 * every hook below is an inline that injects nothing, and fabric-fault.c
 * is not built. The knobs are in /sys/kernel/debug/rdmalock/fault/ (see
 * Documentation/fabric.rst); fabric.h declares their setup.
 */
#ifndef RDMALOCK_FABRIC_FAULT_H
#define RDMALOCK_FABRIC_FAULT_H

#include <linux/types.h>

struct ib_cq;
struct ib_send_wr;
struct ib_wc;
struct rdmalock_conn;

#if IS_ENABLED(CONFIG_FAULT_INJECTION_DEBUG_FS)

int rdmalock_fault_verb_post(struct rdmalock_conn *conn, struct ib_send_wr *wr);
bool rdmalock_fault_hold_wc(struct rdmalock_conn *conn, struct ib_wc *wc,
			    void (*done)(struct ib_cq *cq, struct ib_wc *wc));
bool rdmalock_fault_hold_msg(struct rdmalock_conn *conn, u32 node, u8 type,
			     const void *payload, u32 len);
u32 rdmalock_fault_msg_lkey(struct rdmalock_conn *conn, u8 type, u32 lkey);
bool rdmalock_fault_alloc(struct rdmalock_conn *conn, u32 node, int verb,
			  u8 type);
void rdmalock_fault_delay_ready(struct rdmalock_conn *conn);

#else

static inline int rdmalock_fault_verb_post(struct rdmalock_conn *conn,
					   struct ib_send_wr *wr)
{
	return 0;
}

static inline bool rdmalock_fault_hold_wc(struct rdmalock_conn *conn,
					  struct ib_wc *wc,
					  void (*done)(struct ib_cq *cq,
						       struct ib_wc *wc))
{
	return false;
}

static inline bool rdmalock_fault_hold_msg(struct rdmalock_conn *conn, u32 node,
					   u8 type, const void *payload, u32 len)
{
	return false;
}

static inline u32 rdmalock_fault_msg_lkey(struct rdmalock_conn *conn, u8 type,
					  u32 lkey)
{
	return lkey;
}

static inline bool rdmalock_fault_alloc(struct rdmalock_conn *conn, u32 node,
					int verb, u8 type)
{
	return false;
}

static inline void rdmalock_fault_delay_ready(struct rdmalock_conn *conn)
{
}

#endif /* CONFIG_FAULT_INJECTION_DEBUG_FS */

#endif /* RDMALOCK_FABRIC_FAULT_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdmalock fabric: the wire formats, what goes between nodes in the
 * connection manager's private data and in messages
 * (Documentation/fabric.rst, "Handshake" and "Messages"). The fabric's
 * files include it through fabric-pri.h; a test-only peer that speaks
 * the protocol (tools/testing/vm/hostile/) includes it alone.
 */
#ifndef RDMALOCK_FABRIC_WIRE_H
#define RDMALOCK_FABRIC_WIRE_H

#include <linux/build_bug.h>
#include <linux/mm.h>
#include <linux/types.h>

#include "fabric.h"

/*
 * The length of every node's region for a user part of @user_len bytes;
 * a hello carries it, and the receiver's must be the same.
 */
static inline u32 rdmalock_region_len_for(u32 user_len)
{
	return PAGE_ALIGN((size_t)RDMALOCK_FABRIC_USER_OFFSET + user_len);
}

#define RDMALOCK_CM_MAGIC		0x52444c4b	/* "RDLK" */
#define RDMALOCK_CM_VERSION		2
/* &rdmalock_cm_pdata.flags: the sender's domain emulates atomics. */
#define RDMALOCK_CM_F_EMULATED		0x01
/* &rdmalock_cm_pdata.flags: the sender's domain has no key. */
#define RDMALOCK_CM_F_KEYLESS		0x02

#define RDMALOCK_NONCE_LEN		16
#define RDMALOCK_PROOF_LEN		32	/* HMAC-SHA256 */

/**
 * struct rdmalock_cm_pdata - private data of a connect request
 * @magic: %RDMALOCK_CM_MAGIC
 * @version: %RDMALOCK_CM_VERSION
 * @flags: RDMALOCK_CM_F_*
 * @node_id: the sender's index in the domain
 * @name_hash: jhash of the domain's name, seed 0, as in message headers
 * @region_len: the length of the sender's region, which must equal the
 *	receiver's
 * @nonce: fresh random bytes, the sender's challenge
 *
 * Who is speaking, for which domain, and its challenge; nothing secret,
 * and no address or key of memory, which go only to a peer that has
 * proved the domain key (Documentation/fabric.rst, "Handshake"). All
 * fields big-endian. At most 56 bytes fit in a request on the TCP port
 * space.
 */
struct rdmalock_cm_pdata {
	__be32 magic;
	u8 version;
	u8 flags;
	__be16 node_id;
	__be32 name_hash;
	__be32 region_len;
	u8 nonce[RDMALOCK_NONCE_LEN];
};

static_assert(sizeof(struct rdmalock_cm_pdata) == 32);

/**
 * struct rdmalock_cm_rep - private data of a connect reply
 * @pd: the acceptor's own, its challenge in @pd.nonce
 * @proof: the acceptor's proof of the key over both challenges
 *
 * At most 196 bytes fit in a reply.
 */
struct rdmalock_cm_rep {
	struct rdmalock_cm_pdata pd;
	u8 proof[RDMALOCK_PROOF_LEN];
};

static_assert(sizeof(struct rdmalock_cm_rep) <= 196);

/**
 * struct rdmalock_auth_msg - payload of an %RDMALOCK_MSG_AUTH message
 * @proof: the requester's proof of the key; zero from the acceptor
 * @region_addr: where the sender's region is, for RDMA
 * @region_rkey: its remote key
 * @region_len: its length, which must equal the receiver's
 *
 * The first message each way on a connection, and only that one. All
 * fields big-endian.
 */
struct rdmalock_auth_msg {
	u8 proof[RDMALOCK_PROOF_LEN];
	__be64 region_addr;
	__be32 region_rkey;
	__be32 region_len;
};

/*
 * Messages. Every connection has RDMALOCK_RECV_DEPTH receives posted, of
 * RDMALOCK_MSG_SIZE bytes each. A message is a header and a payload; the
 * receiver checks the header (struct rdmalock_msg_hdr) and hands the
 * payload to the handler registered for its type.
 */
#define RDMALOCK_MSG_MAGIC		0x524c		/* "RL" */
#define RDMALOCK_MSG_VERSION		1
#define RDMALOCK_MSG_SIZE		256
/*
 * The fabric's own types, 1 to RDMALOCK_MSG_AUTH; the rest below
 * RDMALOCK_MSG_USER_FIRST are reserved, and malformed on the wire.
 */
#define RDMALOCK_MSG_HEARTBEAT		1
#define RDMALOCK_MSG_RMW_REQ		2	/* emulated atomics */
#define RDMALOCK_MSG_RMW_RESP		3
#define RDMALOCK_MSG_AUTH		4	/* the handshake's last step */

/**
 * struct rdmalock_msg_hdr - header of every message between nodes
 * @magic: %RDMALOCK_MSG_MAGIC
 * @version: %RDMALOCK_MSG_VERSION
 * @type: RDMALOCK_MSG_*, below %RDMALOCK_MSG_TYPES
 * @len: payload bytes after the header
 * @src_node: the sender's node id
 * @domain: hash of the domain's name (jhash, seed 0)
 * @seq: per connection and direction, from 0; RC delivers in order, so
 *	the receiver expects exactly the next one
 *
 * All fields big-endian.
 */
struct rdmalock_msg_hdr {
	__be16 magic;
	u8 version;
	u8 type;
	__be16 len;
	__be16 src_node;
	__be32 domain;
	__be32 seq;
};

static_assert(sizeof(struct rdmalock_msg_hdr) == 16);
static_assert(RDMALOCK_MSG_MAX_PAYLOAD ==
	      RDMALOCK_MSG_SIZE - sizeof(struct rdmalock_msg_hdr));

/**
 * struct rdmalock_rmw_req - payload of %RDMALOCK_MSG_RMW_REQ
 * @id: the request's id on its connection
 * @verb: RDMALOCK_VERB_CAS or RDMALOCK_VERB_FAA
 * @pad: zeros
 * @offset: the word's offset in the receiver's region
 * @compare_add: the compare value (CAS) or the addend (FAA)
 * @swap: the value a CAS writes
 *
 * All fields big-endian.
 */
struct rdmalock_rmw_req {
	__be32 id;
	u8 verb;
	u8 pad[3];
	__be64 offset;
	__be64 compare_add;
	__be64 swap;
};

/**
 * struct rdmalock_rmw_resp - payload of %RDMALOCK_MSG_RMW_RESP
 * @id: the id of the request it answers, on the same connection
 * @status: 0, -ENOTCONN or -EIO
 * @old: the word's previous value
 *
 * All fields big-endian.
 */
struct rdmalock_rmw_resp {
	__be32 id;
	__be32 status;
	__be64 old;
};

#endif /* RDMALOCK_FABRIC_WIRE_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock fabric: the connection handshake, in which two nodes prove to
 * each other that they hold the domain's key before either learns where
 * the other's memory is (Documentation/fabric.rst, "Handshake"):
 *
 *   REQ   requester's hello: node id, domain, flags, its challenge
 *   REP   acceptor's hello, its challenge, and its proof
 *   AUTH  requester -> acceptor: its proof, and its region
 *   AUTH  acceptor -> requester: its region, once that proof checked out
 *
 * A proof is an HMAC-SHA256, with the key, of the role, the domain's
 * name, both node ids and both challenges: it cannot be replayed (the
 * other side's challenge is fresh), reflected (the roles differ) or
 * moved to another pair of nodes. A keyless domain, asked for as such,
 * runs the same steps with proofs of zeros, and keyed nodes refuse it by
 * the flag in its hello.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/string.h>

#include "fabric-pri.h"

static u32 rdmalock_self_id(const struct rdmalock_fabric *fabric)
{
	return fabric->attr.node_id;
}

/* The node at the other end of @conn; the loopback's passive end is us. */
static u32 rdmalock_auth_peer(const struct rdmalock_conn *conn)
{
	return conn->peer ? conn->peer->node : rdmalock_self_id(conn->fabric);
}

static bool rdmalock_conn_is_loop(const struct rdmalock_conn *conn)
{
	return rdmalock_auth_peer(conn) == rdmalock_self_id(conn->fabric);
}

/**
 * rdmalock_auth_init() - key a new fabric
 * @fabric: the fabric, before it makes or accepts any connection
 * @key: @key_len bytes, or NULL for a domain without a key
 * @key_len: 0 with a NULL @key
 *
 * The HMAC transform is made here, in process context, so that receive
 * completions can compute proofs without allocating. It keeps the key's
 * derived state, which the crypto API wipes when it is freed.
 *
 * Context: process context; may sleep.
 * Return: 0, or the crypto API's error (-ENOENT without HMAC-SHA256).
 */
int rdmalock_auth_init(struct rdmalock_fabric *fabric, const u8 *key,
		       u32 key_len)
{
	struct crypto_shash *tfm;
	int ret;

	if (!key_len)
		return 0;
	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	ret = crypto_shash_setkey(tfm, key, key_len);
	if (ret) {
		crypto_free_shash(tfm);
		return ret;
	}
	fabric->auth_tfm = tfm;
	return 0;
}

/**
 * rdmalock_auth_free() - forget a fabric's key
 * @fabric: a fabric with no connection left
 */
void rdmalock_auth_free(struct rdmalock_fabric *fabric)
{
	crypto_free_shash(fabric->auth_tfm);
	fabric->auth_tfm = NULL;
}

/**
 * rdmalock_fabric_keyed() - must peers prove a key to join?
 * @fabric: the fabric
 *
 * Return: false for a domain created without a key, on purpose.
 */
bool rdmalock_fabric_keyed(const struct rdmalock_fabric *fabric)
{
	return fabric->auth_tfm;
}

/**
 * rdmalock_cm_flags() - what this node says of itself in its hello
 * @fabric: the fabric
 *
 * Return: RDMALOCK_CM_F_* for this node's domain.
 */
u8 rdmalock_cm_flags(const struct rdmalock_fabric *fabric)
{
	return (fabric->emulated ? RDMALOCK_CM_F_EMULATED : 0) |
	       (fabric->auth_tfm ? 0 : RDMALOCK_CM_F_KEYLESS);
}

/**
 * rdmalock_auth_proof() - one side's proof of the domain key
 * @tfm: HMAC-SHA256 keyed with the domain key; NULL in a keyless domain
 * @requester: the requester's proof, else the acceptor's
 * @name: the domain's name, NUL-terminated within %RDMALOCK_NAME_MAX
 * @req_node: the requester's node id
 * @acc_node: the acceptor's node id
 * @nonce_req: the requester's challenge, %RDMALOCK_NONCE_LEN bytes
 * @nonce_acc: the acceptor's challenge, as many
 * @proof: set to %RDMALOCK_PROOF_LEN bytes: HMAC(key, label, NUL, the
 *	name's length in one byte, the name, @req_node and @acc_node as
 *	big-endian 16-bit numbers, @nonce_req, @nonce_acc), where the label
 *	is "rdmalock-v2 requester" or "rdmalock-v2 acceptor"; zeros when
 *	there is no key
 *
 * Context: any; does not sleep.
 * Return: 0, or the crypto API's error.
 */
VISIBLE_IF_KUNIT int rdmalock_auth_proof(struct crypto_shash *tfm, bool requester,
					 const char *name, u32 req_node, u32 acc_node,
					 const u8 *nonce_req, const u8 *nonce_acc,
					 u8 *proof)
{
	const char *label = requester ? "rdmalock-v2 requester" :
					"rdmalock-v2 acceptor";
	__be16 nodes[2] = { cpu_to_be16(req_node), cpu_to_be16(acc_node) };
	u8 name_len = strnlen(name, RDMALOCK_NAME_MAX);
	int ret;

	if (!tfm) {
		memset(proof, 0, RDMALOCK_PROOF_LEN);
		return 0;
	}
	{
		SHASH_DESC_ON_STACK(desc, tfm);

		desc->tfm = tfm;
		ret = crypto_shash_init(desc) ?:
		      crypto_shash_update(desc, label, strlen(label) + 1) ?:
		      crypto_shash_update(desc, &name_len, 1) ?:
		      crypto_shash_update(desc, name, name_len) ?:
		      crypto_shash_update(desc, (const u8 *)nodes, sizeof(nodes)) ?:
		      crypto_shash_update(desc, nonce_req, RDMALOCK_NONCE_LEN) ?:
		      crypto_shash_update(desc, nonce_acc, RDMALOCK_NONCE_LEN) ?:
		      crypto_shash_final(desc, proof);
		shash_desc_zero(desc);
	}
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_auth_proof);

/**
 * rdmalock_auth_proof_ok() - is @proof the one that side would make?
 * @tfm: as for rdmalock_auth_proof()
 * @requester: ditto
 * @name: ditto
 * @req_node: ditto
 * @acc_node: ditto
 * @nonce_req: ditto
 * @nonce_acc: ditto
 * @proof: %RDMALOCK_PROOF_LEN bytes received
 *
 * Compares in constant time, so that a forger learns nothing from how
 * long a wrong guess took.
 *
 * Context: any; does not sleep.
 * Return: true when @proof is right.
 */
VISIBLE_IF_KUNIT bool rdmalock_auth_proof_ok(struct crypto_shash *tfm, bool requester,
					     const char *name, u32 req_node,
					     u32 acc_node, const u8 *nonce_req,
					     const u8 *nonce_acc, const u8 *proof)
{
	u8 want[RDMALOCK_PROOF_LEN];
	bool ok;

	ok = !rdmalock_auth_proof(tfm, requester, name, req_node, acc_node,
				  nonce_req, nonce_acc, want) &&
	     !crypto_memneq(want, proof, sizeof(want));
	memzero_explicit(want, sizeof(want));
	return ok;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_auth_proof_ok);

/* The proof of the side of @conn named by @requester, for this pair. */
static int rdmalock_conn_proof(struct rdmalock_conn *conn, bool requester,
			       u8 *proof)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	u32 self = rdmalock_self_id(fabric), peer = rdmalock_auth_peer(conn);

	return rdmalock_auth_proof(fabric->auth_tfm, requester, fabric->attr.name,
				   conn->active ? self : peer,
				   conn->active ? peer : self,
				   conn->auth.nonce_req, conn->auth.nonce_acc, proof);
}

static bool rdmalock_conn_proof_ok(struct rdmalock_conn *conn, bool requester,
				   const u8 *proof)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	u32 self = rdmalock_self_id(fabric), peer = rdmalock_auth_peer(conn);

	return rdmalock_auth_proof_ok(fabric->auth_tfm, requester,
				      fabric->attr.name,
				      conn->active ? self : peer,
				      conn->active ? peer : self,
				      conn->auth.nonce_req, conn->auth.nonce_acc,
				      proof);
}

/**
 * rdmalock_auth_hello() - this node's hello, with a fresh challenge
 * @conn: the connection it is for; its challenge is kept there
 * @pd: filled in
 *
 * Context: any.
 */
void rdmalock_auth_hello(struct rdmalock_conn *conn, struct rdmalock_cm_pdata *pd)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	u8 *nonce = conn->active ? conn->auth.nonce_req : conn->auth.nonce_acc;

	get_random_bytes(nonce, RDMALOCK_NONCE_LEN);
	memset(pd, 0, sizeof(*pd));
	pd->magic = cpu_to_be32(RDMALOCK_CM_MAGIC);
	pd->version = RDMALOCK_CM_VERSION;
	pd->flags = rdmalock_cm_flags(fabric);
	pd->node_id = cpu_to_be16(rdmalock_self_id(fabric));
	pd->name_hash = cpu_to_be32(fabric->domain_hash);
	pd->region_len = cpu_to_be32(fabric->region_len);
	memcpy(pd->nonce, nonce, RDMALOCK_NONCE_LEN);
}

/**
 * rdmalock_cm_pdata_check() - validate the hello a node sent us
 * @attr: our domain
 * @region_len: the length of our region, which every node's must equal
 * @flags: our own RDMALOCK_CM_F_*, which every node's must equal
 * @data: the bytes received, possibly fewer than a whole hello, or NULL
 * @len: their number
 * @node: set to the sender's node id when it is one of ours
 *
 * Return: 0; -EPROTO for anything not from a node of this domain;
 * -EPROTONOSUPPORT from one that does atomics the other way;
 * -EKEYREJECTED from one that has no key when we have one, or the
 * other way round.
 */
int rdmalock_cm_pdata_check(const struct rdmalock_fabric_attr *attr,
			    u32 region_len, u8 flags, const void *data, u8 len,
			    u32 *node)
{
	const struct rdmalock_cm_pdata *pd = data;
	u32 hash = jhash(attr->name, strnlen(attr->name, RDMALOCK_NAME_MAX), 0);
	u8 diff;

	if (!data || len < sizeof(*pd) ||
	    be32_to_cpu(pd->magic) != RDMALOCK_CM_MAGIC ||
	    pd->version != RDMALOCK_CM_VERSION ||
	    (pd->flags & ~(RDMALOCK_CM_F_EMULATED | RDMALOCK_CM_F_KEYLESS)) ||
	    be32_to_cpu(pd->name_hash) != hash ||
	    be16_to_cpu(pd->node_id) >= attr->num_nodes ||
	    be32_to_cpu(pd->region_len) != region_len)
		return -EPROTO;
	*node = be16_to_cpu(pd->node_id);
	diff = pd->flags ^ flags;
	if (diff & RDMALOCK_CM_F_KEYLESS)
		return -EKEYREJECTED;
	if (diff & RDMALOCK_CM_F_EMULATED)
		return -EPROTONOSUPPORT;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_cm_pdata_check);

/**
 * rdmalock_log_pdata_error() - say why a node's hello was refused
 * @fabric: the fabric
 * @err: what rdmalock_cm_pdata_check() returned
 * @node: the node it found, when @err is not -EPROTO
 */
void rdmalock_log_pdata_error(struct rdmalock_fabric *fabric, int err, u32 node)
{
	if (err == -EPROTONOSUPPORT)
		pr_err_ratelimited("%s: node %u does atomics %s, this node %s: every node of a domain must use the same --atomics\n",
				   fabric->attr.name, node,
				   fabric->emulated ? "natively" : "emulated",
				   fabric->emulated ? "emulated" : "natively");
	else if (err == -EKEYREJECTED)
		pr_err_ratelimited("%s: node %u refused: it has %s key and this node %s\n",
				   fabric->attr.name, node,
				   fabric->auth_tfm ? "no" : "a",
				   fabric->auth_tfm ? "has one" : "has none");
	else
		pr_err_ratelimited("%s: connection data that is not from this domain\n",
				   fabric->attr.name);
}

/*
 * Until the peer has proved the key, its QP may not touch our memory:
 * the rkey is not a secret a guess cannot find (rxe's are an index and
 * an 8-bit key).
 */
static int rdmalock_auth_remote_access(struct rdmalock_conn *conn, bool allow)
{
	struct ib_qp_attr attr = {
		.qp_access_flags = allow ? IB_ACCESS_REMOTE_READ |
					   IB_ACCESS_REMOTE_WRITE |
					   IB_ACCESS_REMOTE_ATOMIC : 0,
	};

	return ib_modify_qp(conn->cm_id->qp, &attr, IB_QP_ACCESS_FLAGS);
}

/**
 * rdmalock_auth_accept() - answer a requester's hello
 * @conn: the new, passive connection; its QP exists
 * @req: the requester's hello, checked
 * @rep: filled in with our hello and our proof
 *
 * Context: the cm handler; process context.
 * Return: 0 or the crypto API's error.
 */
int rdmalock_auth_accept(struct rdmalock_conn *conn,
			 const struct rdmalock_cm_pdata *req,
			 struct rdmalock_cm_rep *rep)
{
	memcpy(conn->auth.nonce_req, req->nonce, RDMALOCK_NONCE_LEN);
	rdmalock_auth_hello(conn, &rep->pd);
	return rdmalock_conn_proof(conn, false, rep->proof);
}

/*
 * The first message each way: a proof (or zeros) and the sender's region.
 * The rkey given is noted: see rdmalock_conn_rkey_current().
 */
static int rdmalock_auth_send(struct rdmalock_conn *conn, bool with_proof)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	struct rdmalock_auth_msg msg = {
		.region_addr = cpu_to_be64(fabric->mr->iova),
		.region_len = cpu_to_be32(fabric->region_len),
	};
	int ret = 0;

	conn->sent_rkey = READ_ONCE(fabric->region_rkey);
	msg.region_rkey = cpu_to_be32(conn->sent_rkey);

	if (with_proof)
		ret = rdmalock_conn_proof(conn, true, msg.proof);
	if (!ret)
		ret = rdmalock_msg_send_handshake(conn, &msg, sizeof(msg));
	memzero_explicit(&msg, sizeof(msg));
	return ret;
}

/**
 * rdmalock_auth_reply() - check the acceptor's reply, then prove ourselves
 * @conn: an active connection the CM has just established
 * @data: the reply's private data
 * @len: its length
 *
 * Context: the cm handler; process context.
 * Return: NULL, or why @conn must fail.
 */
const char *rdmalock_auth_reply(struct rdmalock_conn *conn, const void *data,
				u8 len)
{
	struct rdmalock_fabric *fabric = conn->fabric;
	const struct rdmalock_cm_rep *rep = data;
	u32 node = U32_MAX;
	int ret;

	ret = rdmalock_cm_pdata_check(&fabric->attr, fabric->region_len,
				      rdmalock_cm_flags(fabric), data, len, &node);
	if (!ret && (len < sizeof(*rep) || node != conn->peer->node))
		ret = -EPROTO;
	if (ret) {
		rdmalock_log_pdata_error(fabric, ret, node);
		return "bad reply from peer";
	}
	memcpy(conn->auth.nonce_acc, rep->pd.nonce, RDMALOCK_NONCE_LEN);
	if (!rdmalock_conn_proof_ok(conn, false, rep->proof)) {
		pr_err_ratelimited("%s: node %u did not prove the domain key: the keys differ, or it is not node %u\n",
				   fabric->attr.name, node, node);
		return "the acceptor did not prove the key";
	}
	WRITE_ONCE(conn->auth.step, RDMALOCK_AUTH_REGION);
	if (rdmalock_auth_send(conn, true))
		return "cannot send the handshake";
	return NULL;
}

static const char *rdmalock_auth_region(struct rdmalock_conn *conn,
					const struct rdmalock_auth_msg *msg)
{
	if (be32_to_cpu(msg->region_len) != conn->fabric->region_len)
		return "handshake with a region of another length";
	/* The loopback's ends use the region this node registered itself. */
	if (!rdmalock_conn_is_loop(conn)) {
		conn->remote_addr = be64_to_cpu(msg->region_addr);
		conn->remote_rkey = be32_to_cpu(msg->region_rkey);
		conn->remote_len = be32_to_cpu(msg->region_len);
	}
	return NULL;
}

/* The acceptor has the requester's proof and region. */
static const char *rdmalock_auth_check_proof(struct rdmalock_conn *conn)
{
	const struct rdmalock_auth_msg *msg = &conn->auth.msg;
	struct rdmalock_fabric *fabric = conn->fabric;
	const char *why;

	if (!rdmalock_conn_proof_ok(conn, true, msg->proof)) {
		pr_err_ratelimited("%s: node %u did not prove the domain key: the keys differ, or it is not node %u\n",
				   fabric->attr.name, rdmalock_auth_peer(conn),
				   rdmalock_auth_peer(conn));
		return "the requester did not prove the key";
	}
	why = rdmalock_auth_region(conn, msg);
	if (why)
		return why;
	if (rdmalock_auth_remote_access(conn, true))
		return "cannot open the QP to the peer";
	if (rdmalock_conn_install(conn))
		return "failed during the handshake";	/* already said why */
	/*
	 * The requester may send as soon as it has our answer; but nothing
	 * of ours may go before it, so the connection is not up until after.
	 */
	WRITE_ONCE(conn->auth.step, RDMALOCK_AUTH_DONE);
	if (rdmalock_auth_send(conn, false))
		return "cannot send the handshake";
	return NULL;
}

/*
 * Process context, because changing a QP's access may sleep; under
 * setup_lock, so that the teardown does not destroy the QP meanwhile.
 */
static void rdmalock_auth_work(struct work_struct *work)
{
	struct rdmalock_conn *conn = container_of(work, struct rdmalock_conn,
						  auth.work);
	const char *why = NULL;

	mutex_lock(&conn->setup_lock);
	if (READ_ONCE(conn->state) != RDMALOCK_CONN_FAILED)
		why = rdmalock_auth_check_proof(conn);
	mutex_unlock(&conn->setup_lock);
	if (why)
		rdmalock_conn_fail(conn, why);
	else
		rdmalock_conn_up(conn, false);
	memzero_explicit(&conn->auth.msg, sizeof(conn->auth.msg));
	rdmalock_conn_put(conn);
}

/*
 * The acceptor checks the requester's proof in process context (see
 * rdmalock_auth_work()); anything more before its answer is out of order.
 */
static bool rdmalock_auth_defer(struct rdmalock_conn *conn,
				const struct rdmalock_auth_msg *msg)
{
	WRITE_ONCE(conn->auth.step, RDMALOCK_AUTH_REGION);
	memcpy(&conn->auth.msg, msg, sizeof(*msg));
	kref_get(&conn->ref);
	INIT_WORK(&conn->auth.work, rdmalock_auth_work);
	queue_work(conn->fabric->wq, &conn->auth.work);
	return true;
}

/**
 * rdmalock_auth_recv() - take a connection's handshake message
 * @conn: the connection it arrived on
 * @type: its type
 * @payload: its payload
 * @len: the payload's length
 *
 * The first message each way must be the handshake's, and no later one
 * may be: anything else fails @conn, and only @conn.
 *
 * Context: receive completion; softirq.
 * Return: true when the message was the handshake's or failed @conn;
 * false when it is for the message handlers.
 */
bool rdmalock_auth_recv(struct rdmalock_conn *conn, u8 type,
			const void *payload, u32 len)
{
	enum rdmalock_auth_step step = READ_ONCE(conn->auth.step);
	const struct rdmalock_auth_msg *msg = payload;
	const char *why;

	if (step == RDMALOCK_AUTH_DONE && type != RDMALOCK_MSG_AUTH)
		return false;
	if (type != RDMALOCK_MSG_AUTH ||
	    step != (conn->active ? RDMALOCK_AUTH_REGION : RDMALOCK_AUTH_PROOF))
		why = "message out of the handshake's order";
	else if (len != sizeof(*msg))
		why = "malformed handshake message";
	else if (!conn->active)
		return rdmalock_auth_defer(conn, msg);
	else if (memchr_inv(msg->proof, 0, sizeof(msg->proof)))
		why = "malformed handshake message";
	else
		why = rdmalock_auth_region(conn, msg);
	if (why)
		rdmalock_conn_fail(conn, why);
	else
		rdmalock_conn_up(conn, false);
	return true;
}

/**
 * rdmalock_auth_restrict() - keep a new passive QP away from our memory
 * @conn: an accepted connection whose peer has not proved the key
 *
 * Context: the cm handler; process context.
 * Return: 0 or the verbs error.
 */
int rdmalock_auth_restrict(struct rdmalock_conn *conn)
{
	return rdmalock_auth_remote_access(conn, false);
}

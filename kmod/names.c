// SPDX-License-Identifier: GPL-2.0
/*
 * Named locks: a name is its own lock.
 *
 * In a domain created with named locks, every lock is a name of up to
 * RDMALOCK_LOCK_NAME_MAX bytes (a u64 id is the name of its eight
 * big-endian bytes). Its home gives it a slot of its own in its lock
 * table (restable.c) for as long as some node references it; a node
 * references the names its handles use, and keeps referencing one for
 * names_idle_ms after its last handle went, so that a lock taken again
 * and again is resolved once.
 *
 * Resolution is one message to the home and one back. RESOLVE asks for
 * the name's slot and references it; RESOLVED answers with the slot or
 * an error (-ENOSPC: no slot is free); UNREF gives the reference back.
 * Messages to one node arrive in the order they were sent, and a node
 * sends them for one name under its cache's lock: an UNREF is never
 * overtaken by the RESOLVE of a handle that came after it.
 *
 * A view change forgets what departed nodes referenced, on every member.
 * Each node counts, per home, the times the home left its view or it
 * left the view itself (fenced): its incarnation of the home. A
 * resolution made in an earlier incarnation is stale, and the lock call
 * that finds it resolves the name again; lock calls check that inside
 * the lock layer's gate (lockspace.c), where no view change can move
 * under them. Requests carry the incarnation, and a home that sees a
 * node's newer one drops what the node referenced in older ones: the node
 * forgot those resolutions, and holds none of their locks any more. A
 * node that is not a member resolves nothing and serves nobody.
 *
 * A name whose home is not a member is homed on the next member after it
 * (rdmalock_home_in()), and goes back when its home is a member again:
 * every view change that moves a name makes its resolutions stale. Its
 * holders keep it: in the view change, each resolves the name at its new
 * home and claims its lock there (rdmalock_lock_claim_moved()), before
 * any other request is granted. Its LVB stayed with the old home: at a
 * home it was moved to, it starts not valid; a home that comes back holds
 * the LVBs it kept not valid (values.c), and one that restarted starts
 * them valid and zeroed (Documentation/membership.rst).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "locks.h"
#include "names.h"
#include "rdmalock-pri.h"
#include "values.h"

unsigned int rdmalock_names_idle_ms = 10000;
EXPORT_SYMBOL_IF_KUNIT(rdmalock_names_idle_ms);

#define RDMALOCK_NAMES_HASH_BITS	10
/* How often the cache gives back names no handle used for a while. */
#define RDMALOCK_NAMES_REAP_MS		1000

/*
 * struct rdmalock_names - one node's named locks
 * @ls: the domain's lockspace
 * @table: the names homed here, each with its slot
 * @lock: guards the cache, @members and @inc; taken with bottom halves
 *	off, since message handlers resolve names
 * @members: nodes whose requests this home serves: the view's members
 * @inc: per home node, how many times it left this node's view
 * @cached: entries in @buckets
 * @wq: handles waiting for a resolution
 * @cb_wq: runs blocking callbacks (blocking.c)
 * @reap: gives back idle names
 * @press: asks this node's holders to give their locks up (pool pressure)
 * @buckets: the cache, by name
 */
struct rdmalock_names {
	struct rdmalock_lockspace *ls;
	struct rdmalock_restable *table;
	spinlock_t lock;	/* see above */
	u32 members;
	u32 inc[RDMALOCK_MAX_NODES];
	u32 cached;
	wait_queue_head_t wq;
	struct workqueue_struct *cb_wq;
	struct delayed_work reap;
	struct work_struct press;
	struct hlist_head buckets[1 << RDMALOCK_NAMES_HASH_BITS];
};

/* struct rdmalock_names_req - payload of RESOLVE and UNREF */
struct rdmalock_names_req {
	__be32 slot;		/* UNREF: the slot the name was given */
	__be32 inc;		/* the sender's incarnation of the home */
	u8 len;
	u8 pad[3];
	u8 name[RDMALOCK_LOCK_NAME_MAX];
};

/* struct rdmalock_names_resp - payload of RESOLVED */
struct rdmalock_names_resp {
	__be32 status;		/* 0 or a negative errno */
	__be32 slot;
	u8 len;
	u8 pad[3];
	u8 name[RDMALOCK_LOCK_NAME_MAX];
};

static_assert(sizeof(struct rdmalock_names_resp) <= RDMALOCK_MSG_MAX_PAYLOAD);

/**
 * rdmalock_name_home() - the home node of a name
 * @name: its bytes
 * @len: how many, 1 to %RDMALOCK_LOCK_NAME_MAX
 * @num_nodes: nodes of the domain
 *
 * An eight-byte name is a u64 id, homed as ids are, on its value modulo
 * the number of nodes; other names by their hash.
 *
 * Return: the node.
 */
u32 rdmalock_name_home(const void *name, u32 len, u32 num_nodes)
{
	__be64 be;
	u64 id;

	if (len != sizeof(id))
		return jhash(name, len, 0) % num_nodes;
	memcpy(&be, name, sizeof(be));
	id = be64_to_cpu(be);
	return do_div(id, num_nodes);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_name_home);

/**
 * rdmalock_home_in() - where a name is homed in a view
 * @natural: its home when every node is a member (rdmalock_name_home())
 * @members: the view's members
 * @num_nodes: nodes of the domain
 *
 * Return: @natural when it is a member, or the first member after it, in
 * the order of node ids, wrapping; @natural when there is no member.
 */
u32 rdmalock_home_in(u32 natural, u32 members, u32 num_nodes)
{
	u32 i, node;

	for (i = 0; i < num_nodes; i++) {
		node = (natural + i) % num_nodes;
		if (members & BIT(node))
			return node;
	}
	return natural;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_home_in);

static u32 rdmalock_name_bucket(const void *name, u32 len)
{
	return hash_32(jhash(name, len, 0), RDMALOCK_NAMES_HASH_BITS);
}

static bool rdmalock_name_is(const struct rdmalock_name *ent, const void *name,
			     u32 len)
{
	return ent->len == len && !memcmp(ent->name, name, len);
}

/* Under @nm->lock. */
static struct rdmalock_name *rdmalock_name_find(struct rdmalock_names *nm,
						const void *name, u32 len)
{
	struct rdmalock_name *ent;

	hlist_for_each_entry(ent, &nm->buckets[rdmalock_name_bucket(name, len)], hash)
		if (rdmalock_name_is(ent, name, len))
			return ent;
	return NULL;
}

/* Under @nm->lock: later handles resolve the name anew. */
static void rdmalock_name_unhash(struct rdmalock_names *nm,
				 struct rdmalock_name *ent)
{
	hlist_del_init(&ent->hash);
	ent->hashed = false;
	nm->cached--;
}

/* Under @nm->lock: the entry is over; freed once no handle uses it. */
static void rdmalock_name_fail(struct rdmalock_names *nm,
			       struct rdmalock_name *ent, int err)
{
	ent->err = err;
	WRITE_ONCE(ent->state, RDMALOCK_NAME_FAILED);
	if (ent->hashed)
		rdmalock_name_unhash(nm, ent);
	if (!ent->refs)
		kfree(ent);
}

/**
 * rdmalock_name_stale() - was @ent resolved in an earlier life of its home?
 * @nm: the node's named locks
 * @ent: a resolution
 *
 * Return: true when its home left the view since, or the name is homed
 * elsewhere now: the slot is no longer the name's.
 */
bool rdmalock_name_stale(struct rdmalock_names *nm,
			 const struct rdmalock_name *ent)
{
	return READ_ONCE(nm->inc[ent->home]) != ent->inc ||
	       rdmalock_home_in(ent->natural, READ_ONCE(nm->members),
				nm->ls->num_nodes) != ent->home;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_name_stale);

static void rdmalock_names_send(struct rdmalock_names *nm, u32 node, u8 type,
				const void *msg, u32 len)
{
	int ret = rdmalock_fabric_send(nm->ls->fabric, node, type, msg, len);

	if (ret)
		pr_debug("%s: names: message %u to node %u not sent: %d\n",
			 nm->ls->name, type, node, ret);
}

/*
 * Under @nm->lock: give back the reference of a resolved entry. Return:
 * 0, or the send's error.
 */
static int rdmalock_name_unref(struct rdmalock_names *nm,
			       const struct rdmalock_name *ent)
{
	struct rdmalock_names_req req = {
		.slot = cpu_to_be32(ent->slot),
		.inc = cpu_to_be32(ent->inc),
		.len = ent->len,
	};

	if (ent->home == nm->ls->self) {
		rdmalock_restable_unref(nm->table, ent->home, ent->inc, ent->slot,
					ent->name, ent->len);
		return 0;
	}
	memcpy(req.name, ent->name, ent->len);
	return rdmalock_fabric_send(nm->ls->fabric, ent->home,
				    RDMALOCK_NAMES_MSG_UNREF, &req, sizeof(req));
}

/*
 * Under @nm->lock: a stale entry is to leave the cache. Its home forgot
 * this node's reference when it left the view; one still a member, which
 * is no longer the name's home, is given its reference back. Return: 0,
 * or the send's error.
 */
static int rdmalock_name_drop_stale(struct rdmalock_names *nm,
				    const struct rdmalock_name *ent)
{
	if (ent->state == RDMALOCK_NAME_READY && nm->inc[ent->home] == ent->inc)
		return rdmalock_name_unref(nm, ent);
	return 0;
}

/*
 * A slot given to a new name: the torture's words (its counter counts
 * that name's exclusive holders) and the lock's value start afresh. The
 * algorithm's words are at rest, since no node references the slot: a
 * lock nobody holds or waits for. A name moved here from its own home,
 * which is not a member, left its LVB there.
 */
static void rdmalock_names_fresh_slot(struct rdmalock_names *nm, u32 slot,
				      const void *name, u32 len)
{
	struct rdmalock_lockspace *ls = nm->ls;
	u64 off = rdmalock_table_offset(slot);

	memset(rdmalock_slot_word(ls, off, RDMALOCK_SLOT_READERS), 0,
	       RDMALOCK_SLOT_SIZE - RDMALOCK_SLOT_READERS);
	rdmalock_value_fresh(ls, slot);
	if (rdmalock_name_home(name, len, ls->num_nodes) != ls->self)
		rdmalock_value_forget(ls, slot);
}

/*
 * The home's part, under @nm->lock: @node references @name. Under the
 * lock, so that a view change that drops a departed node's references
 * cannot pass between the check of its membership and its reference.
 */
static int rdmalock_names_ref(struct rdmalock_names *nm, u32 node, u32 inc,
			      const void *name, u32 len, u32 *slot,
			      unsigned int *how)
{
	int ret;

	lockdep_assert_held(&nm->lock);
	if (!(nm->members & BIT(node)))
		return -ENOTCONN;
	ret = rdmalock_restable_ref(nm->table, node, inc, name, len, slot, how);
	if (!ret && (*how & RDMALOCK_RES_FRESH))
		rdmalock_names_fresh_slot(nm, *slot, name, len);
	return ret;
}

/* Under @nm->lock: ask the home for a new entry's slot. */
static void rdmalock_name_resolve(struct rdmalock_names *nm,
				  struct rdmalock_name *ent)
{
	struct rdmalock_names_req req = {
		.inc = cpu_to_be32(ent->inc),
		.len = ent->len,
	};
	unsigned int how;
	int ret;

	if (ent->home == nm->ls->self) {
		ret = rdmalock_names_ref(nm, ent->home, ent->inc, ent->name,
					 ent->len, &ent->slot, &how);
		if (ret)
			rdmalock_name_fail(nm, ent, ret);
		else
			WRITE_ONCE(ent->state, RDMALOCK_NAME_READY);
		return;
	}
	memcpy(req.name, ent->name, ent->len);
	ret = rdmalock_fabric_send(nm->ls->fabric, ent->home,
				   RDMALOCK_NAMES_MSG_RESOLVE, &req, sizeof(req));
	if (ret)
		rdmalock_name_fail(nm, ent, ret == -ENOBUFS ? -EAGAIN : ret);
}

static struct rdmalock_name *rdmalock_name_new(struct rdmalock_names *nm,
					       const void *name, u32 len)
{
	struct rdmalock_name *ent = kzalloc(sizeof(*ent), GFP_NOFS);

	if (!ent)
		return NULL;
	INIT_HLIST_NODE(&ent->hash);
	rdmalock_interest_init(&ent->interest);
	ent->natural = rdmalock_name_home(name, len, nm->ls->num_nodes);
	ent->len = len;
	memcpy(ent->name, name, len);
	return ent;
}

/*
 * Under @nm->lock: the cache's entry for @name, unless stale. A stale one
 * is dropped without an UNREF: its home forgot this node's reference
 * when it left.
 */
static struct rdmalock_name *rdmalock_name_find_live(struct rdmalock_names *nm,
						     const void *name, u32 len)
{
	struct rdmalock_name *ent = rdmalock_name_find(nm, name, len);

	if (ent && rdmalock_name_stale(nm, ent)) {
		rdmalock_name_drop_stale(nm, ent);
		rdmalock_name_fail(nm, ent, -ENOTCONN);
		ent = NULL;
	}
	return ent;
}

/* Under @nm->lock: the cache's entry for @new's name, or @new made it. */
static struct rdmalock_name *rdmalock_name_find_or_add(struct rdmalock_names *nm,
						       struct rdmalock_name *new)
{
	struct rdmalock_name *ent = rdmalock_name_find_live(nm, new->name, new->len);

	if (ent) {
		ent->refs++;
		return ent;
	}
	new->refs = 1;
	new->home = rdmalock_home_in(new->natural, nm->members, nm->ls->num_nodes);
	new->inc = nm->inc[new->home];
	new->hashed = true;
	hlist_add_head(&new->hash, &nm->buckets[rdmalock_name_bucket(new->name, new->len)]);
	nm->cached++;
	rdmalock_name_resolve(nm, new);
	return new;
}

/* Waits until @ent is resolved or failed; its error, or 0. */
static int rdmalock_name_wait(struct rdmalock_names *nm,
			      struct rdmalock_name *ent)
{
	long left;
	int ret;

	left = wait_event_timeout(nm->wq,
				  READ_ONCE(ent->state) != RDMALOCK_NAME_RESOLVING ||
				  rdmalock_name_stale(nm, ent) ||
				  READ_ONCE(nm->ls->closed),
				  msecs_to_jiffies(RDMALOCK_NAMES_RESOLVE_MS));
	spin_lock_bh(&nm->lock);
	if (ent->state == RDMALOCK_NAME_RESOLVING)
		rdmalock_name_fail(nm, ent, !left ? -ETIMEDOUT :
				   READ_ONCE(nm->ls->closed) ? -ESHUTDOWN : -ENOTCONN);
	ret = ent->state == RDMALOCK_NAME_FAILED ? ent->err : 0;
	spin_unlock_bh(&nm->lock);
	return ret;
}

/**
 * rdmalock_name_get() - resolve a name, for a handle
 * @nm: the node's named locks
 * @name: the name's bytes
 * @len: how many, 1 to %RDMALOCK_LOCK_NAME_MAX
 * @entp: set to the resolution, which rdmalock_name_put() gives back
 *
 * A name this node references already costs nothing; another costs a
 * message to its home and one back.
 *
 * Context: process context; sleeps. Allocates with GFP_NOFS.
 * Return: 0; -EINVAL for a bad length; -ENOMEM; -ENOSPC when the home
 * has no free slot; -ENOTCONN when the home is not reachable or not in
 * the view; -EAGAIN when its send queue is full; -ETIMEDOUT when it did
 * not answer within %RDMALOCK_NAMES_RESOLVE_MS.
 */
int rdmalock_name_get(struct rdmalock_names *nm, const void *name, u32 len,
		      struct rdmalock_name **entp)
{
	struct rdmalock_name *new, *ent;
	int ret;

	if (!rdmalock_lock_name_len_valid(len))
		return -EINVAL;
	/* Not while out of the view: a home may forget it at any time. */
	if (!(READ_ONCE(nm->members) & BIT(nm->ls->self)))
		return -ENOTCONN;
	spin_lock_bh(&nm->lock);
	ent = rdmalock_name_find_live(nm, name, len);
	if (ent)
		ent->refs++;
	spin_unlock_bh(&nm->lock);
	if (!ent) {
		new = rdmalock_name_new(nm, name, len);
		if (!new)
			return -ENOMEM;
		spin_lock_bh(&nm->lock);
		ent = rdmalock_name_find_or_add(nm, new);
		spin_unlock_bh(&nm->lock);
		if (ent != new)
			kfree(new);
	}
	ret = rdmalock_name_wait(nm, ent);
	if (ret) {
		rdmalock_name_put(nm, ent);
		return ret;
	}
	*entp = ent;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_name_get);

/**
 * rdmalock_name_hold() - one more reference on a resolution
 * @nm: the node's named locks
 * @ent: a resolution referenced already, by the caller's handle
 *
 * Given back with rdmalock_name_put().
 *
 * Context: any but hard interrupt.
 */
void rdmalock_name_hold(struct rdmalock_names *nm, struct rdmalock_name *ent)
{
	spin_lock_bh(&nm->lock);
	ent->refs++;
	spin_unlock_bh(&nm->lock);
}

/**
 * rdmalock_name_put() - a handle is done with a resolution
 * @nm: the node's named locks
 * @ent: from rdmalock_name_get()
 *
 * The node keeps referencing the name for names_idle_ms more.
 *
 * Context: any but hard interrupt.
 */
void rdmalock_name_put(struct rdmalock_names *nm, struct rdmalock_name *ent)
{
	spin_lock_bh(&nm->lock);
	if (!--ent->refs) {
		if (ent->hashed)
			ent->idle_since = jiffies;
		else
			kfree(ent);
	}
	spin_unlock_bh(&nm->lock);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_name_put);

/**
 * rdmalock_name_lookup() - the slot of a name homed here, if in use
 * @nm: the node's named locks
 * @name: its bytes
 * @len: how many
 * @slot: set to its slot
 *
 * References nothing: for the torture's counters, read once no handle
 * uses the names.
 *
 * Return: 0, or -ENOENT when no node references the name here.
 */
int rdmalock_name_lookup(struct rdmalock_names *nm, const void *name, u32 len,
			 u32 *slot)
{
	return rdmalock_restable_lookup(nm->table, name, len, slot);
}

/*
 * RESOLVE from @node: reference the name for it, and answer. A reference
 * made for an answer that could not be sent is undone: the requester
 * will not know of it.
 */
static void rdmalock_names_on_resolve(struct rdmalock_names *nm, u32 node,
				      const struct rdmalock_names_req *req)
{
	struct rdmalock_names_resp resp = { .len = req->len };
	u32 inc = be32_to_cpu(req->inc), slot = 0;
	unsigned int how = 0;
	int ret;

	spin_lock_bh(&nm->lock);
	ret = rdmalock_names_ref(nm, node, inc, req->name, req->len, &slot, &how);
	spin_unlock_bh(&nm->lock);
	resp.status = cpu_to_be32(ret);
	resp.slot = cpu_to_be32(slot);
	memcpy(resp.name, req->name, req->len);
	if (rdmalock_fabric_send(nm->ls->fabric, node, RDMALOCK_NAMES_MSG_RESOLVED,
				 &resp, sizeof(resp)) &&
	    !ret && (how & RDMALOCK_RES_ADDED))
		rdmalock_restable_unref(nm->table, node, inc, slot, req->name,
					req->len);
}

/* An answer's status, or -EPROTO for one no home sends. */
static int rdmalock_names_status(const struct rdmalock_names *nm,
				 const struct rdmalock_names_resp *resp)
{
	int status = (s32)be32_to_cpu(resp->status);

	switch (status) {
	case 0:
		return be32_to_cpu(resp->slot) < nm->ls->locks_per_node ? 0 : -EPROTO;
	case -ENOSPC:
	case -ENOTCONN:
	case -EINVAL:
		return status;
	default:
		return -EPROTO;
	}
}

/*
 * RESOLVED from the home @node. An answer nobody waits for any more (the
 * wait timed out) references the name all the same: give it back, unless
 * a newer entry uses that reference (a node references a name once).
 */
static void rdmalock_names_on_resolved(struct rdmalock_names *nm, u32 node,
				       const struct rdmalock_names_resp *resp)
{
	struct rdmalock_name *ent;
	int status = rdmalock_names_status(nm, resp);

	if (status == -EPROTO)
		pr_err_ratelimited("%s: names: node %u answered a resolution with %d, slot %u\n",
				   nm->ls->name, node, (s32)be32_to_cpu(resp->status),
				   be32_to_cpu(resp->slot));
	spin_lock_bh(&nm->lock);
	ent = rdmalock_name_find(nm, resp->name, resp->len);
	if (ent && ent->home != node)
		ent = NULL;
	if (ent && ent->state == RDMALOCK_NAME_RESOLVING) {
		if (status) {
			rdmalock_name_fail(nm, ent, status);
		} else {
			ent->slot = be32_to_cpu(resp->slot);
			WRITE_ONCE(ent->state, RDMALOCK_NAME_READY);
		}
	} else if (!ent && !status) {
		struct rdmalock_names_req req = {
			.slot = resp->slot,
			.inc = cpu_to_be32(nm->inc[node]),
			.len = resp->len,
		};

		memcpy(req.name, resp->name, resp->len);
		rdmalock_names_send(nm, node, RDMALOCK_NAMES_MSG_UNREF, &req,
				    sizeof(req));
	}
	spin_unlock_bh(&nm->lock);
	wake_up_all(&nm->wq);
}

/* UNREF from @node: a stale or forged one changes nothing. */
static void rdmalock_names_on_unref(struct rdmalock_names *nm, u32 node,
				    const struct rdmalock_names_req *req)
{
	if (rdmalock_restable_unref(nm->table, node, be32_to_cpu(req->inc),
				    be32_to_cpu(req->slot), req->name, req->len))
		pr_debug("%s: names: node %u gave back a name it did not hold\n",
			 nm->ls->name, node);
}

/**
 * rdmalock_names_blocked() - a request of @node waits for this node's holders
 * @nm: the node's named locks
 * @node: the requester's node, a member
 * @name: the lock's name
 * @len: its bytes, valid
 * @slot: its slot, as the requester resolved it
 * @level: how strong the request is (blocking.h)
 *
 * A request for an older or newer resolution of the name than this
 * node's is another lock's, or this node's holders learn of it when they
 * post their interest.
 *
 * Context: any.
 */
void rdmalock_names_blocked(struct rdmalock_names *nm, u32 node, const void *name,
			    u32 len, u32 slot, u32 level)
{
	struct rdmalock_name *ent;

	spin_lock_bh(&nm->lock);
	ent = nm->members & BIT(node) ? rdmalock_name_find(nm, name, len) : NULL;
	if (ent && ent->state == RDMALOCK_NAME_READY && ent->slot == slot &&
	    !rdmalock_name_stale(nm, ent)) {
		spin_lock(&ent->interest.lock);
		rdmalock_interest_tell(&ent->interest, level);
		spin_unlock(&ent->interest.lock);
	}
	spin_unlock_bh(&nm->lock);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_names_blocked);

/* Tell every holder of a cached name, a bucket at a time. */
static void rdmalock_names_press_run(struct work_struct *work)
{
	struct rdmalock_names *nm = container_of(work, struct rdmalock_names,
						 press);
	struct rdmalock_name *ent;
	u32 b;

	for (b = 0; b < ARRAY_SIZE(nm->buckets); b++) {
		spin_lock_bh(&nm->lock);
		hlist_for_each_entry(ent, &nm->buckets[b], hash) {
			if (ent->state != RDMALOCK_NAME_READY)
				continue;
			spin_lock(&ent->interest.lock);
			rdmalock_interest_tell(&ent->interest,
					       RDMALOCK_LEVEL_EX);
			spin_unlock(&ent->interest.lock);
		}
		spin_unlock_bh(&nm->lock);
		cond_resched();
	}
}

/**
 * rdmalock_names_press() - this node ran out of queue descriptors
 * @nm: the node's named locks
 *
 * Each lock a node holds takes one of its descriptors for as long as it
 * holds it, and a filesystem keeps the locks it took until another node
 * asks for them. So once none is left, every handle of this node that
 * holds a lock and has a blocking callback is told that an exclusive
 * request waits, as a peer's would tell it: the locks it no longer uses
 * it gives back, and the acquisitions waiting for a descriptor go on.
 * Calls while the last is under way add nothing.
 *
 * Context: any.
 */
void rdmalock_names_press(struct rdmalock_names *nm)
{
	queue_work(nm->cb_wq, &nm->press);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_names_press);

/**
 * rdmalock_names_ls() - the lockspace of named locks
 * @nm: the named locks
 *
 * Return: it.
 */
struct rdmalock_lockspace *rdmalock_names_ls(struct rdmalock_names *nm)
{
	return nm->ls;
}

/**
 * rdmalock_names_cb_wq() - where blocking callbacks run
 * @nm: the named locks
 *
 * Return: the work queue, which lives as long as @nm.
 */
struct workqueue_struct *rdmalock_names_cb_wq(struct rdmalock_names *nm)
{
	return nm->cb_wq;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_names_cb_wq);

static void rdmalock_names_msg(struct rdmalock_fabric *fabric, u32 node,
			       u8 type, const void *payload, u32 len, void *ctx)
{
	const struct rdmalock_names_resp *resp = payload;
	const struct rdmalock_names_req *req = payload;
	bool answer = type == RDMALOCK_NAMES_MSG_RESOLVED;
	struct rdmalock_names *nm = ctx;

	if (len != (answer ? sizeof(*resp) : sizeof(*req)) ||
	    !rdmalock_lock_name_len_valid(answer ? resp->len : req->len)) {
		pr_err_ratelimited("%s: names: malformed message %u from node %u\n",
				   nm->ls->name, type, node);
		return;
	}
	switch (type) {
	case RDMALOCK_NAMES_MSG_RESOLVE:
		rdmalock_names_on_resolve(nm, node, req);
		break;
	case RDMALOCK_NAMES_MSG_RESOLVED:
		rdmalock_names_on_resolved(nm, node, resp);
		break;
	case RDMALOCK_NAMES_MSG_UNREF:
		rdmalock_names_on_unref(nm, node, req);
		break;
	}
}

/*
 * Under @nm->lock: an entry no handle used for names_idle_ms is given
 * back; kept when the UNREF cannot be sent, to be tried again, unless it
 * is stale.
 */
static bool rdmalock_name_idle_out(struct rdmalock_names *nm,
				   struct rdmalock_name *ent, unsigned long idle)
{
	if (ent->refs || ent->state != RDMALOCK_NAME_READY)
		return false;
	/* Kept when its reference cannot be given back yet, as below. */
	if (rdmalock_name_stale(nm, ent))
		return !rdmalock_name_drop_stale(nm, ent);
	if (time_before(jiffies, ent->idle_since + idle))
		return false;
	return !rdmalock_name_unref(nm, ent);
}

/**
 * rdmalock_names_give_back() - give back the names idle for names_idle_ms
 * @nm: the node's named locks
 *
 * Context: process context.
 */
VISIBLE_IF_KUNIT void rdmalock_names_give_back(struct rdmalock_names *nm)
{
	unsigned long idle = msecs_to_jiffies(READ_ONCE(rdmalock_names_idle_ms));
	struct rdmalock_name *ent;
	struct hlist_node *tmp;
	u32 b;

	for (b = 0; b < ARRAY_SIZE(nm->buckets); b++) {
		spin_lock_bh(&nm->lock);
		hlist_for_each_entry_safe(ent, tmp, &nm->buckets[b], hash) {
			if (!rdmalock_name_idle_out(nm, ent, idle))
				continue;
			rdmalock_name_unhash(nm, ent);
			kfree(ent);
		}
		spin_unlock_bh(&nm->lock);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_names_give_back);

static void rdmalock_names_reap(struct work_struct *work)
{
	struct rdmalock_names *nm = container_of(to_delayed_work(work),
						 struct rdmalock_names, reap);

	rdmalock_names_give_back(nm);
	queue_delayed_work(nm->ls->wq, &nm->reap,
			   msecs_to_jiffies(RDMALOCK_NAMES_REAP_MS));
}

/*
 * Under @nm->lock: this node's resolutions at the homes of @stale are
 * stale. It holds none of their locks any more: each left the view, or
 * this node did.
 */
static void rdmalock_names_forget(struct rdmalock_names *nm, u32 stale)
{
	unsigned long bits = stale;
	u32 node;

	for_each_set_bit(node, &bits, nm->ls->num_nodes)
		WRITE_ONCE(nm->inc[node], nm->inc[node] + 1);
}

/**
 * rdmalock_names_view() - a view change resets the lock tables
 * @nm: the node's named locks
 * @members: the new view's members
 * @restarted: those of them that come back holding nothing of before
 *
 * Called on every member with the domain quiesced: what departed and
 * restarted nodes referenced here is forgotten, and this node's
 * resolutions at departed homes are stale. A restarted home kept what
 * the others referenced (rdmalock_names_fence()).
 *
 * Context: process context.
 */
void rdmalock_names_view(struct rdmalock_names *nm, u32 members, u32 restarted)
{
	u32 gone = GENMASK(nm->ls->num_nodes - 1, 0) & ~members;

	spin_lock_bh(&nm->lock);
	rdmalock_restable_drop(nm->table, gone | restarted);
	rdmalock_names_forget(nm, gone);
	nm->members = members;
	spin_unlock_bh(&nm->lock);
	wake_up_all(&nm->wq);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_names_view);

/**
 * rdmalock_names_fence() - this node left the view: it starts clean
 * @nm: the node's named locks
 *
 * Every resolution of this node is stale, and it serves nobody until it
 * is a member again. It keeps the others' references: it may be taken
 * back into a view without ever having left theirs, and then they still
 * use their resolutions here. Its own older references, here and at the
 * other homes, go with its first request of its next incarnation.
 *
 * Context: any; does not sleep.
 */
void rdmalock_names_fence(struct rdmalock_names *nm)
{
	spin_lock_bh(&nm->lock);
	rdmalock_names_forget(nm, GENMASK(nm->ls->num_nodes - 1, 0));
	nm->members = 0;
	spin_unlock_bh(&nm->lock);
	wake_up_all(&nm->wq);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_names_fence);

/**
 * rdmalock_names_used() - names homed here that some node references
 * @nm: the node's named locks
 *
 * Return: the count, at once stale.
 */
u32 rdmalock_names_used(struct rdmalock_names *nm)
{
	return rdmalock_restable_used(nm->table);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_names_used);

/**
 * rdmalock_names_cached() - names this node references
 * @nm: the node's named locks
 *
 * Return: the count, at once stale.
 */
u32 rdmalock_names_cached(struct rdmalock_names *nm)
{
	return READ_ONCE(nm->cached);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_names_cached);

/**
 * rdmalock_names_alloc() - named locks for a lockspace
 * @ls: the lockspace; its lock table is the names' slots
 *
 * Requests are served once the first view change tells who the members
 * are (rdmalock_names_view()), or at once without a membership.
 *
 * Context: process context.
 * Return: the named locks, or NULL.
 */
struct rdmalock_names *rdmalock_names_alloc(struct rdmalock_lockspace *ls)
{
	struct rdmalock_names *nm = kvzalloc(sizeof(*nm), GFP_KERNEL);

	if (!nm)
		return NULL;
	nm->table = rdmalock_restable_alloc(ls->locks_per_node, ls->num_nodes,
					    GFP_KERNEL);
	/* Callbacks may release locks, on the writeback path too. */
	nm->cb_wq = alloc_workqueue("rdmalock-cb-%s", WQ_UNBOUND | WQ_MEM_RECLAIM,
				    0, ls->name);
	if (!nm->table || !nm->cb_wq) {
		if (nm->cb_wq)
			destroy_workqueue(nm->cb_wq);
		rdmalock_restable_free(nm->table);
		kvfree(nm);
		return NULL;
	}
	nm->ls = ls;
	nm->members = ls->gated ? 0 : GENMASK(ls->num_nodes - 1, 0);
	spin_lock_init(&nm->lock);
	init_waitqueue_head(&nm->wq);
	INIT_DELAYED_WORK(&nm->reap, rdmalock_names_reap);
	INIT_WORK(&nm->press, rdmalock_names_press_run);
	return nm;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_names_alloc);

/**
 * rdmalock_names_attach() - serve and send name messages
 * @nm: the named locks of a lockspace with a fabric
 *
 * Nothing may fail after: the handlers stay as long as the fabric.
 *
 * Context: process context.
 */
void rdmalock_names_attach(struct rdmalock_names *nm)
{
	struct rdmalock_fabric *fabric = nm->ls->fabric;
	u8 type;

	for (type = RDMALOCK_NAMES_MSG_RESOLVE; type <= RDMALOCK_NAMES_MSG_UNREF; type++)
		WARN_ON_ONCE(rdmalock_fabric_set_handler(fabric, type,
							 rdmalock_names_msg, nm));
	rdmalock_blocking_attach(nm);
	queue_delayed_work(nm->ls->wq, &nm->reap,
			   msecs_to_jiffies(RDMALOCK_NAMES_REAP_MS));
}

/**
 * rdmalock_names_close() - the domain is destroyed: resolutions fail
 * @nm: the named locks
 *
 * Context: any.
 */
void rdmalock_names_close(struct rdmalock_names *nm)
{
	wake_up_all(&nm->wq);
}

/**
 * rdmalock_names_stop() - give nothing back any more
 * @nm: the named locks
 *
 * Before the lockspace's work queue goes. Handles still in use keep
 * their entries until they are put.
 */
void rdmalock_names_stop(struct rdmalock_names *nm)
{
	cancel_delayed_work_sync(&nm->reap);
	cancel_work_sync(&nm->press);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_names_stop);

/**
 * rdmalock_names_free() - free them, once the fabric is gone
 * @nm: the named locks, stopped, every handle put
 */
void rdmalock_names_free(struct rdmalock_names *nm)
{
	struct rdmalock_name *ent;
	struct hlist_node *tmp;
	u32 b;

	for (b = 0; b < ARRAY_SIZE(nm->buckets); b++)
		hlist_for_each_entry_safe(ent, tmp, &nm->buckets[b], hash) {
			WARN_ON_ONCE(ent->refs);
			hlist_del(&ent->hash);
			kfree(ent);
		}
	destroy_workqueue(nm->cb_wq);
	rdmalock_restable_free(nm->table);
	kvfree(nm);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_names_free);

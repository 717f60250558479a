// SPDX-License-Identifier: GPL-2.0
/*
 * A home node's table of the lock names in use.
 *
 * A slot of the home's lock table is one lock. Mapping names onto slots
 * by arithmetic makes two names that land on one slot one lock, and a
 * task holding one deadlocks taking the other. Instead the home gives
 * each name in use a slot of its own for as long as some node references
 * the name, and takes it back when none does: names are distinct locks,
 * and a filesystem may have far more names than slots as long as it does
 * not use more than the slots at once. A node references a name at most
 * once here; its own handles on the name are counted by the node.
 *
 * Memory is allocated once, with the table: a name is resolved with no
 * allocation, in any context, and the table never holds more than its
 * slots. A name that finds no free slot is refused, never given a shared
 * one. Names come from peers, which are authenticated members but may be
 * buggy: the hash is keyed per table, and an unreference must name the
 * slot, the name and a node that references it.
 *
 * Every request carries the requester's incarnation of this home: how
 * many times the home left its view, or it left the view itself. A node
 * forgets its resolutions at a home each time that count moves, and holds
 * none of the home's locks any more (they were lost with the view); so a
 * reference with a newer count replaces everything the node referenced
 * with older ones, which is how references whose unreference the node
 * never sent are collected.
 */
#include <linux/bits.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "rdmalock-pri.h"
#include "restable.h"

/*
 * struct rdmalock_res - a slot and the name it serves
 * @hash: in the table's bucket of the name, while in use
 * @nodes: the nodes that reference the name; 0 while the slot is free
 * @next_free: the next free slot, while free
 * @len: bytes of @name
 * @name: the name, not terminated
 */
struct rdmalock_res {
	struct hlist_node hash;
	unsigned long nodes;
	u32 next_free;
	u8 len;
	u8 name[RDMALOCK_LOCK_NAME_MAX];
};

/*
 * struct rdmalock_restable - the names of one home's slots
 * @lock: guards everything below; taken with bottom halves off, since
 *	message handlers resolve names
 * @nslots: slots of the home's lock table
 * @num_nodes: nodes of the domain, which may reference names
 * @used: slots in use
 * @free: the first free slot, U32_MAX when none is
 * @seed: the hash's key
 * @hash_bits: log2 of the number of buckets
 * @buckets: names in use, by hash
 * @inc: per node, the incarnation its references are of
 * @res: one per slot
 */
struct rdmalock_restable {
	spinlock_t lock;	/* see above */
	u32 nslots;
	u32 num_nodes;
	u32 used;
	u32 free;
	u32 seed;
	u32 hash_bits;
	struct hlist_head *buckets;
	u32 inc[BITS_PER_LONG];
	struct rdmalock_res res[];
};

static u32 rdmalock_res_bucket(const struct rdmalock_restable *t,
			       const void *name, u32 len)
{
	return hash_32(jhash(name, len, t->seed), t->hash_bits);
}

static bool rdmalock_res_is(const struct rdmalock_res *r, const void *name, u32 len)
{
	return r->len == len && !memcmp(r->name, name, len);
}

/* The slot free next; the table has one. Under t->lock. */
static void rdmalock_res_put_free(struct rdmalock_restable *t,
				  struct rdmalock_res *r)
{
	hlist_del_init(&r->hash);
	r->nodes = 0;
	r->next_free = t->free;
	t->free = r - t->res;
	t->used--;
}

/* Under t->lock: @nodes reference nothing any more. Return: slots freed. */
static u32 rdmalock_res_drop(struct rdmalock_restable *t, unsigned long nodes)
{
	u32 i, freed = 0;

	for (i = 0; i < t->nslots; i++) {
		struct rdmalock_res *r = &t->res[i];

		if (!(r->nodes & nodes))
			continue;
		r->nodes &= ~nodes;
		if (!r->nodes) {
			rdmalock_res_put_free(t, r);
			freed++;
		}
	}
	return freed;
}

/**
 * rdmalock_restable_alloc() - a table for a home with @nslots slots
 * @nslots: slots of the home's lock table, at least 1
 * @num_nodes: nodes of the domain, 1 to BITS_PER_LONG
 * @gfp: for the table, which is all the memory it will use
 *
 * Return: the table, every slot free, or NULL.
 */
struct rdmalock_restable *rdmalock_restable_alloc(u32 nslots, u32 num_nodes,
						  gfp_t gfp)
{
	struct rdmalock_restable *t;
	u32 i;

	if (!nslots || !num_nodes || num_nodes > BITS_PER_LONG)
		return NULL;
	t = kvzalloc(struct_size(t, res, nslots), gfp);
	if (!t)
		return NULL;
	t->nslots = nslots;
	/* At most one name per bucket on average, with the table full. */
	t->hash_bits = order_base_2(nslots);
	t->buckets = kvcalloc(1U << t->hash_bits, sizeof(*t->buckets), gfp);
	if (!t->buckets) {
		kvfree(t);
		return NULL;
	}
	spin_lock_init(&t->lock);
	t->num_nodes = num_nodes;
	t->seed = get_random_u32();
	for (i = 0; i < nslots; i++) {
		INIT_HLIST_NODE(&t->res[i].hash);
		t->res[i].next_free = i + 1 < nslots ? i + 1 : U32_MAX;
	}
	t->free = 0;
	return t;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_restable_alloc);

/**
 * rdmalock_restable_free() - free a table
 * @t: the table, or NULL
 */
void rdmalock_restable_free(struct rdmalock_restable *t)
{
	if (!t)
		return;
	kvfree(t->buckets);
	kvfree(t);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_restable_free);

/**
 * rdmalock_restable_ref() - @node references @name: its slot
 * @t: the table
 * @node: the node, below the table's number of nodes
 * @inc: the node's incarnation of this home: a new one first drops
 *	everything @node referenced before
 * @name: the name's bytes
 * @len: how many, 1 to %RDMALOCK_LOCK_NAME_MAX
 * @slot: set to the name's slot
 * @how: if not NULL, set to RDMALOCK_RES_FRESH when the slot was free
 *	until now, and RDMALOCK_RES_ADDED when @node did not reference the
 *	name yet
 *
 * A name in use keeps its slot; another gets a free one. A node that
 * references a name already is not counted twice.
 *
 * Context: any; takes the table's lock with bottom halves off.
 * Return: 0; -EINVAL for a bad node or length; -ENOSPC when the name is
 * not in use and no slot is free.
 */
int rdmalock_restable_ref(struct rdmalock_restable *t, u32 node, u32 inc,
			  const void *name, u32 len, u32 *slot,
			  unsigned int *how)
{
	unsigned int flags = 0;
	struct rdmalock_res *r;
	u32 bucket;
	int ret = 0;

	if (node >= t->num_nodes || !rdmalock_lock_name_len_valid(len))
		return -EINVAL;
	bucket = rdmalock_res_bucket(t, name, len);
	spin_lock_bh(&t->lock);
	if (t->inc[node] != inc) {
		rdmalock_res_drop(t, BIT(node));
		t->inc[node] = inc;
	}
	hlist_for_each_entry(r, &t->buckets[bucket], hash)
		if (rdmalock_res_is(r, name, len))
			goto found;
	if (t->free == U32_MAX) {
		ret = -ENOSPC;
		goto out;
	}
	r = &t->res[t->free];
	t->free = r->next_free;
	t->used++;
	r->len = len;
	memcpy(r->name, name, len);
	hlist_add_head(&r->hash, &t->buckets[bucket]);
	flags |= RDMALOCK_RES_FRESH;
found:
	if (!(r->nodes & BIT(node)))
		flags |= RDMALOCK_RES_ADDED;
	r->nodes |= BIT(node);
	*slot = r - t->res;
	if (how)
		*how = flags;
out:
	spin_unlock_bh(&t->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_restable_ref);

/**
 * rdmalock_restable_lookup() - the slot of a name in use, referencing nothing
 * @t: the table
 * @name: the name's bytes
 * @len: how many
 * @slot: set to its slot
 *
 * Context: any; takes the table's lock with bottom halves off.
 * Return: 0, or -ENOENT when no node references the name.
 */
int rdmalock_restable_lookup(struct rdmalock_restable *t, const void *name,
			     u32 len, u32 *slot)
{
	struct rdmalock_res *r;
	int ret = -ENOENT;

	if (!rdmalock_lock_name_len_valid(len))
		return -ENOENT;
	spin_lock_bh(&t->lock);
	hlist_for_each_entry(r, &t->buckets[rdmalock_res_bucket(t, name, len)], hash)
		if (rdmalock_res_is(r, name, len)) {
			*slot = r - t->res;
			ret = 0;
			break;
		}
	spin_unlock_bh(&t->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_restable_lookup);

/**
 * rdmalock_restable_unref() - @node no longer references the name of @slot
 * @t: the table
 * @node: the node
 * @inc: the node's incarnation of this home, as its reference's
 * @slot: the slot it was given for the name
 * @name: the name's bytes
 * @len: how many
 *
 * The slot is free again once no node references its name.
 *
 * Context: any; takes the table's lock with bottom halves off.
 * Return: 0; -ENOENT when @slot does not serve @name, @node does not
 * reference it, or did in another incarnation (a stale or forged request,
 * which changes nothing).
 */
int rdmalock_restable_unref(struct rdmalock_restable *t, u32 node, u32 inc,
			    u32 slot, const void *name, u32 len)
{
	struct rdmalock_res *r;
	int ret = 0;

	if (node >= t->num_nodes || slot >= t->nslots || !rdmalock_lock_name_len_valid(len))
		return -ENOENT;
	r = &t->res[slot];
	spin_lock_bh(&t->lock);
	if (t->inc[node] != inc || !(r->nodes & BIT(node)) ||
	    !rdmalock_res_is(r, name, len)) {
		ret = -ENOENT;
	} else {
		r->nodes &= ~BIT(node);
		if (!r->nodes)
			rdmalock_res_put_free(t, r);
	}
	spin_unlock_bh(&t->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_restable_unref);

/**
 * rdmalock_restable_drop() - forget what departed nodes referenced
 * @t: the table
 * @nodes: a mask of the nodes that left the view
 *
 * Context: any; takes the table's lock with bottom halves off, for a walk
 * of every slot: once per view change.
 * Return: how many slots were freed.
 */
u32 rdmalock_restable_drop(struct rdmalock_restable *t, unsigned long nodes)
{
	u32 freed;

	spin_lock_bh(&t->lock);
	freed = rdmalock_res_drop(t, nodes);
	spin_unlock_bh(&t->lock);
	return freed;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_restable_drop);

/**
 * rdmalock_restable_used() - how many slots serve a name now
 * @t: the table
 *
 * Return: the count, at once stale.
 */
u32 rdmalock_restable_used(struct rdmalock_restable *t)
{
	u32 used;

	spin_lock_bh(&t->lock);
	used = t->used;
	spin_unlock_bh(&t->lock);
	return used;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_restable_used);

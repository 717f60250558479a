// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a node's named locks, on a domain of one node, whose names are
 * all homed on it and resolved without a message: distinct names get
 * distinct slots and one name one entry; a full home refuses a new name;
 * idle names are given back; a fence makes every resolution stale, and
 * the name is resolved anew, its old reference dropped by the new
 * incarnation's request, to a slot whose value starts afresh. That case
 * is also the negative control of the stale check: without it, the old
 * entry, and the old slot's LVB, would come back. A blocking message
 * reaches the holders of its name that block it, once per strength, and
 * none of another slot's or a sender's out of the view; a malformed one,
 * from a buggy peer, none at all. An acquisition left abandoned in its
 * queue keeps its request counted, and the name referenced, until its
 * descriptor lets go.
 *
 * On node 0 of three, alone in its view: a name whose home is not a
 * member is homed on the next member, here, with an LVB that is not valid
 * (it stayed with its home); once its home is a member again, its
 * resolution here is stale, and its reference is given back. Without the
 * home that follows the view, the name could not be resolved at all. A
 * home back in a view holds the LVBs of the slots it kept not valid, its
 * tokens raised to its clock.
 */
#include <kunit/test.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "blocking.h"
#include "cluster.h"
#include "locks.h"
#include "names.h"
#include "values.h"

#define SLOTS	2

struct names_ctx {
	struct rdmalock_fabric_attr attr;
	struct rdmalock_ls_params params;
	struct rdmalock_lockspace *ls;
	struct rdmalock_names *nm;
	void *region;
};

/* Node 0 of @num_nodes, a member of a view of itself alone. */
static int names_ctx_init(struct kunit *test, u32 num_nodes)
{
	struct names_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	if (!c)
		return -ENOMEM;
	c->attr = (struct rdmalock_fabric_attr){
		.name = "kunit-names",
		.node_id = 0,
		.num_nodes = num_nodes,
	};
	c->params = (struct rdmalock_ls_params){
		.algo = RDMALOCK_ALGO_ALOCK,
		.num_nodes = num_nodes,
		.locks_per_node = SLOTS,
		.descs = RDMALOCK_DEFAULT_DESCRIPTORS,
		.named = true,
	};
	c->region = kunit_kzalloc(test, rdmalock_value_offset(SLOTS,
							      RDMALOCK_DEFAULT_DESCRIPTORS,
							      SLOTS),
				  GFP_KERNEL);
	if (!c->region)
		return -ENOMEM;
	c->ls = rdmalock_lockspace_alloc(&c->attr, c->region, &c->params);
	if (IS_ERR(c->ls))
		return PTR_ERR(c->ls);
	c->nm = rdmalock_names_alloc(c->ls);
	if (!c->nm) {
		rdmalock_lockspace_stop(c->ls);
		rdmalock_lockspace_free(c->ls);
		return -ENOMEM;
	}
	/* This node is a member: it serves its own requests. */
	rdmalock_names_view(c->nm, BIT(0), 0);
	test->priv = c;
	return 0;
}

static int names_test_init(struct kunit *test)
{
	return names_ctx_init(test, 1);
}

static int names_test_init_3(struct kunit *test)
{
	return names_ctx_init(test, 3);
}

static void names_test_exit(struct kunit *test)
{
	struct names_ctx *c = test->priv;

	/* A case that failed before names_done() left them attached. */
	c->ls->names = NULL;
	rdmalock_names_stop(c->nm);
	rdmalock_names_free(c->nm);
	rdmalock_lockspace_stop(c->ls);
	rdmalock_lockspace_free(c->ls);
}

static struct rdmalock_name *get(struct kunit *test, const char *name)
{
	struct names_ctx *c = test->priv;
	struct rdmalock_name *ent = NULL;

	KUNIT_ASSERT_EQ(test, rdmalock_name_get(c->nm, name, strlen(name), &ent), 0);
	KUNIT_ASSERT_NOT_NULL(test, ent);
	KUNIT_EXPECT_EQ(test, ent->state, RDMALOCK_NAME_READY);
	KUNIT_EXPECT_LT(test, ent->slot, SLOTS);
	return ent;
}

static struct rdmalock_value *value_of(struct kunit *test, u32 slot)
{
	struct names_ctx *c = test->priv;

	return c->region + rdmalock_value_offset(SLOTS, RDMALOCK_DEFAULT_DESCRIPTORS,
						 slot);
}

static void distinct_names_distinct_slots(struct kunit *test)
{
	struct names_ctx *c = test->priv;
	struct rdmalock_name *a, *b, *again;

	a = get(test, "a");
	b = get(test, "b");
	KUNIT_EXPECT_NE(test, a->slot, b->slot);
	again = get(test, "a");
	KUNIT_EXPECT_PTR_EQ(test, again, a);
	KUNIT_EXPECT_EQ(test, a->refs, 2);
	KUNIT_EXPECT_EQ(test, rdmalock_names_used(c->nm), 2);
	KUNIT_EXPECT_EQ(test, rdmalock_names_cached(c->nm), 2);
	rdmalock_name_put(c->nm, again);
	rdmalock_name_put(c->nm, a);
	rdmalock_name_put(c->nm, b);
	/* Put, but cached: still referenced at the home. */
	KUNIT_EXPECT_EQ(test, rdmalock_names_used(c->nm), 2);
}

static void a_full_home_refuses_a_name(struct kunit *test)
{
	struct names_ctx *c = test->priv;
	struct rdmalock_name *a, *b, *x = NULL;

	a = get(test, "a");
	b = get(test, "b");
	KUNIT_EXPECT_EQ(test, rdmalock_name_get(c->nm, "c", 1, &x), -ENOSPC);
	KUNIT_EXPECT_NULL(test, x);
	KUNIT_EXPECT_EQ(test, rdmalock_names_cached(c->nm), 2);
	KUNIT_EXPECT_EQ(test, rdmalock_name_get(c->nm, "c", 0, &x), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmalock_name_get(c->nm, "c",
						RDMALOCK_LOCK_NAME_MAX + 1, &x),
			-EINVAL);
	rdmalock_name_put(c->nm, a);
	rdmalock_name_put(c->nm, b);
}

static void idle_names_are_given_back(struct kunit *test)
{
	unsigned int idle = rdmalock_names_idle_ms;
	struct names_ctx *c = test->priv;
	struct rdmalock_name *a, *b, *x;

	a = get(test, "a");
	b = get(test, "b");
	rdmalock_name_put(c->nm, a);
	rdmalock_names_idle_ms = 0;
	rdmalock_names_give_back(c->nm);
	/* "b" is still used by a handle: it stays. */
	KUNIT_EXPECT_EQ(test, rdmalock_names_used(c->nm), 1);
	KUNIT_EXPECT_EQ(test, rdmalock_names_cached(c->nm), 1);
	x = get(test, "c");
	rdmalock_name_put(c->nm, x);
	rdmalock_name_put(c->nm, b);
	rdmalock_names_give_back(c->nm);
	rdmalock_names_idle_ms = idle;
	KUNIT_EXPECT_EQ(test, rdmalock_names_used(c->nm), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_names_cached(c->nm), 0);
}

static void a_fence_makes_resolutions_stale(struct kunit *test)
{
	struct names_ctx *c = test->priv;
	struct rdmalock_name *old, *new;
	struct rdmalock_value *v;
	u64 token;

	old = get(test, "a");
	v = value_of(test, old->slot);
	memcpy(v->lvb, "old", 4);
	token = v->token;
	KUNIT_EXPECT_NE(test, token, 0);
	KUNIT_EXPECT_FALSE(test, rdmalock_name_stale(c->nm, old));

	rdmalock_names_fence(c->nm);
	KUNIT_EXPECT_TRUE(test, rdmalock_name_stale(c->nm, old));
	/* The table keeps references until their node's next request. */
	KUNIT_EXPECT_EQ(test, rdmalock_names_used(c->nm), 1);
	/* Out of the view: the node resolves nothing, and serves nobody. */
	KUNIT_EXPECT_EQ(test, rdmalock_name_get(c->nm, "a", 1, &new), -ENOTCONN);

	/*
	 * Back in: the new incarnation's request drops the old reference,
	 * and the name gets a slot afresh.
	 */
	rdmalock_names_view(c->nm, BIT(0), 0);
	new = get(test, "a");
	KUNIT_EXPECT_PTR_NE(test, new, old);
	KUNIT_EXPECT_EQ(test, rdmalock_names_used(c->nm), 1);
	KUNIT_EXPECT_FALSE(test, rdmalock_name_stale(c->nm, new));
	v = value_of(test, new->slot);
	KUNIT_EXPECT_EQ(test, v->lvb[0], 0);
	KUNIT_EXPECT_GE(test, v->token, token);
	rdmalock_name_put(c->nm, new);
	rdmalock_name_put(c->nm, old);
	KUNIT_EXPECT_EQ(test, rdmalock_names_cached(c->nm), 1);
}

static void a_fresh_slot_starts_a_new_value(struct kunit *test)
{
	unsigned int idle = rdmalock_names_idle_ms;
	struct names_ctx *c = test->priv;
	struct rdmalock_name *a, *b;
	struct rdmalock_value *v;
	u32 slot;

	a = get(test, "a");
	slot = a->slot;
	v = value_of(test, slot);
	KUNIT_EXPECT_EQ(test, v->flags, 0);
	v->token = 5;
	v->flags = RDMALOCK_VALUE_F_NOT_VALID;
	memcpy(v->lvb, "x", 2);
	rdmalock_name_put(c->nm, a);
	rdmalock_names_idle_ms = 0;
	rdmalock_names_give_back(c->nm);
	rdmalock_names_idle_ms = idle;
	/* The slot free again, the next name takes it, with a new value. */
	b = get(test, "b");
	KUNIT_EXPECT_EQ(test, b->slot, slot);
	KUNIT_EXPECT_EQ(test, v->lvb[0], 0);
	KUNIT_EXPECT_EQ(test, v->flags, 0);
	KUNIT_EXPECT_GT(test, v->token, 5);
	rdmalock_name_put(c->nm, b);
}

static void ids_are_homed_as_ids(struct kunit *test)
{
	__be64 id = cpu_to_be64(7);

	/* Eight bytes: the id's value modulo the nodes, as without names. */
	KUNIT_EXPECT_EQ(test, rdmalock_name_home(&id, sizeof(id), 3), 1);
	KUNIT_EXPECT_EQ(test, rdmalock_name_home(&id, sizeof(id), 7), 0);
	KUNIT_EXPECT_LT(test, rdmalock_name_home("inode:1", 7, 3), 3);
}

struct told {
	unsigned int calls;
	unsigned int mode;
};

static void tell(void *arg, unsigned int mode)
{
	struct told *t = arg;

	t->calls++;
	t->mode = mode;
}

static void expect_told(struct kunit *test, const struct told *t,
			unsigned int calls, unsigned int mode)
{
	KUNIT_EXPECT_EQ(test, t->calls, calls);
	KUNIT_EXPECT_EQ(test, t->mode, mode);
}

/*
 * A domain around the names' lockspace, for handles, and the name "a";
 * names_done() gives them back.
 */
static struct rdmalock_name *names_domain(struct kunit *test,
					  struct rdmalock_domain **domp)
{
	struct names_ctx *c = test->priv;
	struct rdmalock_domain *dom = kunit_kzalloc(test, sizeof(*dom), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dom);
	dom->ls = c->ls;
	c->ls->names = c->nm;
	*domp = dom;
	return get(test, "a");
}

static void names_done(struct kunit *test, struct rdmalock_name *ent)
{
	struct names_ctx *c = test->priv;

	rdmalock_name_put(c->nm, ent);
	/* The exit frees the names, not the lockspace. */
	c->ls->names = NULL;
}

/* A handle holding @ent in @cls, with a callback that fills @t. */
static struct rdmalock_lock *holder(struct kunit *test, struct rdmalock_domain *dom,
				    struct rdmalock_name *ent, u32 cls,
				    struct told *t)
{
	struct rdmalock_lock *lk = kunit_kzalloc(test, sizeof(*lk), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, lk);
	lk->dom = dom;
	lk->ent = ent;
	lk->cls = cls;
	rdmalock_blocking_init(lk);
	rdmalock_blocking_set(lk, tell, t);
	/* What a grant does, but the post to the home's word. */
	spin_lock_bh(&ent->interest.lock);
	ent->interest.holding[cls]++;
	list_add_tail(&lk->holding, &ent->interest.holders);
	spin_unlock_bh(&ent->interest.lock);
	return lk;
}

/* A blocking message from @node, and the callbacks it queued, run. */
static void blocked(struct kunit *test, u32 node, struct rdmalock_name *ent,
		    u32 slot, u32 level)
{
	struct names_ctx *c = test->priv;

	rdmalock_names_blocked(c->nm, node, ent->name, ent->len, slot, level);
	flush_workqueue(rdmalock_names_cb_wq(c->nm));
}

static void a_blocked_request_tells_the_holders_it_blocks(struct kunit *test)
{
	struct rdmalock_lock *ex, *sh;
	struct told tex = {}, tsh = {};
	struct rdmalock_domain *dom;
	struct rdmalock_name *ent;

	ent = names_domain(test, &dom);
	ex = holder(test, dom, ent, RDMALOCK_CLASS_EX, &tex);
	sh = holder(test, dom, ent, RDMALOCK_CLASS_SH, &tsh);

	/* A shared request: the exclusive holder only, once. */
	blocked(test, 0, ent, ent->slot, RDMALOCK_CLASS_SH + 1);
	blocked(test, 0, ent, ent->slot, RDMALOCK_CLASS_SH + 1);
	KUNIT_EXPECT_EQ(test, tex.calls, 1);
	KUNIT_EXPECT_EQ(test, tex.mode, RDMALOCK_MODE_SH);
	KUNIT_EXPECT_EQ(test, tsh.calls, 0);
	/* Another slot's, or from a node out of the view: nobody. */
	blocked(test, 0, ent, ent->slot + 1, RDMALOCK_CLASS_EX + 1);
	blocked(test, 1, ent, ent->slot, RDMALOCK_CLASS_EX + 1);
	KUNIT_EXPECT_EQ(test, tex.calls + tsh.calls, 1);
	/* An exclusive one: both, the exclusive holder again. */
	blocked(test, 0, ent, ent->slot, RDMALOCK_CLASS_EX + 1);
	expect_told(test, &tex, 2, RDMALOCK_MODE_EX);
	expect_told(test, &tsh, 1, RDMALOCK_MODE_EX);
	/* Released: told nothing more, until its next grant. */
	rdmalock_blocking_unhold(ex);
	rdmalock_blocking_unhold(sh);
	blocked(test, 0, ent, ent->slot, RDMALOCK_CLASS_EX + 1);
	KUNIT_EXPECT_EQ(test, tex.calls + tsh.calls, 3);
	KUNIT_EXPECT_EQ(test, ent->interest.holding[RDMALOCK_CLASS_EX] +
			ent->interest.holding[RDMALOCK_CLASS_SH], 0);
	rdmalock_blocking_cancel(ex);
	rdmalock_blocking_cancel(sh);
	names_done(test, ent);
}

/* Delivers @req, @len bytes of it, as the fabric would, and runs the callbacks. */
static void blocking_msg(struct kunit *test, const struct rdmalock_blocking_req *req,
			 u32 len)
{
	struct names_ctx *c = test->priv;

	rdmalock_blocking_msg(NULL, 0, RDMALOCK_BLOCKING_MSG, req, len, c->nm);
	flush_workqueue(rdmalock_names_cb_wq(c->nm));
}

static void malformed_blocking_messages_tell_nobody(struct kunit *test)
{
	struct rdmalock_blocking_req req = {};
	struct rdmalock_domain *dom;
	struct told tex = {};
	struct rdmalock_lock *ex;
	struct rdmalock_name *ent;

	ent = names_domain(test, &dom);
	ex = holder(test, dom, ent, RDMALOCK_CLASS_EX, &tex);
	req.slot = cpu_to_be32(ent->slot);
	req.level = RDMALOCK_CLASS_EX + 1;
	req.len = 1;
	req.name[0] = 'a';

	blocking_msg(test, &req, sizeof(req) - 1);
	blocking_msg(test, &req, sizeof(req) + 1);
	req.level = 0;
	blocking_msg(test, &req, sizeof(req));
	req.level = RDMALOCK_CLASSES + 1;
	blocking_msg(test, &req, sizeof(req));
	req.level = RDMALOCK_CLASS_EX + 1;
	req.len = 0;
	blocking_msg(test, &req, sizeof(req));
	req.len = RDMALOCK_LOCK_NAME_MAX + 1;
	blocking_msg(test, &req, sizeof(req));
	KUNIT_EXPECT_EQ(test, tex.calls, 0);
	/* The same, well formed: the control that the holder can be told. */
	req.len = 1;
	blocking_msg(test, &req, sizeof(req));
	KUNIT_EXPECT_EQ(test, tex.calls, 1);

	rdmalock_blocking_unhold(ex);
	rdmalock_blocking_cancel(ex);
	names_done(test, ent);
}

/* The pool ran out: the press, then the callbacks it queued, run. */
static void pressed(struct rdmalock_names *nm)
{
	rdmalock_names_press(nm);
	flush_workqueue(rdmalock_names_cb_wq(nm));
	flush_workqueue(rdmalock_names_cb_wq(nm));
}

/*
 * A node out of descriptors asks every lock kept on it back, as an
 * exclusive request would: the shared holder too, of another name, and
 * each once.
 */
static void the_pool_asks_every_kept_lock_back(struct kunit *test)
{
	struct names_ctx *c = test->priv;
	struct told tex = {}, tsh = {};
	struct rdmalock_lock *ex, *sh;
	struct rdmalock_name *ent, *other;
	struct rdmalock_domain *dom;

	ent = names_domain(test, &dom);
	other = get(test, "b");
	ex = holder(test, dom, ent, RDMALOCK_CLASS_EX, &tex);
	sh = holder(test, dom, other, RDMALOCK_CLASS_SH, &tsh);

	pressed(c->nm);
	pressed(c->nm);
	expect_told(test, &tex, 1, RDMALOCK_MODE_EX);
	expect_told(test, &tsh, 1, RDMALOCK_MODE_EX);

	rdmalock_blocking_unhold(ex);
	rdmalock_blocking_unhold(sh);
	rdmalock_blocking_cancel(ex);
	rdmalock_blocking_cancel(sh);
	rdmalock_name_put(c->nm, other);
	names_done(test, ent);
}

/*
 * A view change moves a held lock whose grant raced it, before its owner
 * ended the wait: the wait is counted at the new home, where the owner's
 * unwait ends it, and the hold leaves the old home. Without the move of
 * the wait the new home's count would wrap below zero.
 */
static void a_move_carries_the_wait_of_a_racing_grant(struct kunit *test)
{
	struct names_ctx *c = test->priv;
	struct rdmalock_name *ent, *to;
	struct rdmalock_domain *dom;
	struct rdmalock_lock *lk;
	struct told t = {};

	ent = names_domain(test, &dom);
	to = get(test, "b");
	lk = holder(test, dom, ent, RDMALOCK_CLASS_EX, &t);
	/* What rdmalock_blocking_wait() counted before the grant. */
	ent->interest.waiting[RDMALOCK_CLASS_EX]++;
	lk->waits = true;

	spin_lock_bh(&lk->ent_lock);
	KUNIT_EXPECT_TRUE(test, rdmalock_blocking_move(lk, to));
	lk->ent = to;
	spin_unlock_bh(&lk->ent_lock);
	KUNIT_EXPECT_EQ(test, ent->interest.holding[RDMALOCK_CLASS_EX], 0);
	KUNIT_EXPECT_EQ(test, ent->interest.waiting[RDMALOCK_CLASS_EX], 0);
	KUNIT_EXPECT_EQ(test, to->interest.waiting[RDMALOCK_CLASS_EX], 1);
	rdmalock_blocking_unwait(lk);
	KUNIT_EXPECT_EQ(test, to->interest.waiting[RDMALOCK_CLASS_EX], 0);
	KUNIT_EXPECT_EQ(test, ent->interest.waiting[RDMALOCK_CLASS_EX], 0);
	KUNIT_EXPECT_FALSE(test, lk->waits);

	rdmalock_blocking_cancel(lk);
	rdmalock_name_put(c->nm, to);
	names_done(test, ent);
}

/*
 * An acquisition whose caller gave up may stay queued (ShiftLock's
 * cannot leave before it is let in), and those queued behind it are not
 * let in before it: its wait stays counted, and the name referenced,
 * until its descriptor is done, so that holders let in ahead of it are
 * still told of it. Its handle's own end of the wait changes nothing; a
 * view change's end of the descriptor's, once, ends it.
 */
static void an_abandoned_acquisition_carries_its_wait(struct kunit *test)
{
	struct names_ctx *c = test->priv;
	struct rdmalock_waiter *w = &c->ls->waiters[0];
	struct rdmalock_domain *dom;
	struct rdmalock_name *ent;
	struct rdmalock_lock *lk;
	u32 refs;

	ent = names_domain(test, &dom);
	lk = kunit_kzalloc(test, sizeof(*lk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lk);
	lk->dom = dom;
	lk->ent = ent;
	lk->cls = RDMALOCK_CLASS_EX;
	rdmalock_blocking_init(lk);
	/* What rdmalock_blocking_wait() counted, and the acquisition's handle. */
	ent->interest.waiting[RDMALOCK_CLASS_EX]++;
	lk->waits = true;
	w->lk = lk;
	refs = ent->refs;

	KUNIT_EXPECT_EQ(test, rdmalock_abandon(c->ls, w), RDMALOCK_W_WAITING);
	rdmalock_blocking_unwait(lk);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->state), RDMALOCK_W_ABANDONED);
	KUNIT_EXPECT_NULL(test, w->lk);
	KUNIT_EXPECT_FALSE(test, lk->waits);
	KUNIT_EXPECT_PTR_EQ(test, w->carried, ent);
	KUNIT_EXPECT_EQ(test, ent->refs, refs + 1);
	/* A reader granted now hears of it. */
	KUNIT_EXPECT_EQ(test, rdmalock_interest_blocks(rdmalock_interest_bits(&ent->interest, 0),
						       RDMALOCK_CLASS_SH),
			RDMALOCK_LEVEL_EX);

	rdmalock_abandoned_waits_end(c->ls, false);
	rdmalock_abandoned_waits_end(c->ls, false);
	KUNIT_EXPECT_EQ(test, ent->interest.waiting[RDMALOCK_CLASS_EX], 0);
	KUNIT_EXPECT_EQ(test, ent->refs, refs);
	KUNIT_EXPECT_NULL(test, w->carried);
	names_done(test, ent);
}

static void homes_follow_the_view(struct kunit *test)
{
	/* A member is its names' home; the next member is a departed one's. */
	KUNIT_EXPECT_EQ(test, rdmalock_home_in(1, 0x7, 3), 1);
	KUNIT_EXPECT_EQ(test, rdmalock_home_in(1, 0x5, 3), 2);
	KUNIT_EXPECT_EQ(test, rdmalock_home_in(2, 0x3, 3), 0);
	KUNIT_EXPECT_EQ(test, rdmalock_home_in(1, 0x0, 3), 1);
}

static struct rdmalock_name *get_id(struct kunit *test, u64 id)
{
	struct names_ctx *c = test->priv;
	struct rdmalock_name *ent = NULL;
	__be64 be = cpu_to_be64(id);

	KUNIT_ASSERT_EQ(test, rdmalock_name_get(c->nm, &be, sizeof(be), &ent), 0);
	KUNIT_ASSERT_NOT_NULL(test, ent);
	return ent;
}

static void a_departed_homes_names_move_and_come_back(struct kunit *test)
{
	unsigned int idle = rdmalock_names_idle_ms;
	struct names_ctx *c = test->priv;
	struct rdmalock_name *moved, *own;

	/* Id 1's home is node 1, not a member: it is homed here. */
	moved = get_id(test, 1);
	KUNIT_EXPECT_EQ(test, moved->natural, 1);
	KUNIT_EXPECT_EQ(test, moved->home, 0);
	KUNIT_EXPECT_EQ(test, value_of(test, moved->slot)->flags,
			RDMALOCK_VALUE_F_NOT_VALID);
	own = get_id(test, 3);
	KUNIT_EXPECT_EQ(test, own->home, 0);
	KUNIT_EXPECT_EQ(test, value_of(test, own->slot)->flags, 0);
	KUNIT_EXPECT_FALSE(test, rdmalock_name_stale(c->nm, moved));

	/* Node 1 is back: id 1 goes home, id 3 stays. */
	rdmalock_names_view(c->nm, BIT(0) | BIT(1), 0);
	KUNIT_EXPECT_TRUE(test, rdmalock_name_stale(c->nm, moved));
	KUNIT_EXPECT_FALSE(test, rdmalock_name_stale(c->nm, own));
	rdmalock_name_put(c->nm, moved);
	rdmalock_name_put(c->nm, own);
	/* Not idle yet, but stale: its reference here is given back. */
	rdmalock_names_give_back(c->nm);
	KUNIT_EXPECT_EQ(test, rdmalock_names_used(c->nm), 1);
	KUNIT_EXPECT_EQ(test, rdmalock_names_cached(c->nm), 1);
	rdmalock_names_idle_ms = 0;
	rdmalock_names_give_back(c->nm);
	rdmalock_names_idle_ms = idle;
	KUNIT_EXPECT_EQ(test, rdmalock_names_used(c->nm), 0);
}

static void a_home_back_holds_its_values_not_valid(struct kunit *test)
{
	struct names_ctx *c = test->priv;
	struct rdmalock_name *a;
	struct rdmalock_value *v;

	a = get(test, "a");
	v = value_of(test, a->slot);
	KUNIT_EXPECT_EQ(test, v->flags, 0);
	v->token = 5;
	memcpy(v->lvb, "kept", 5);
	rdmalock_values_rejoined(c->ls);
	KUNIT_EXPECT_EQ(test, v->flags, RDMALOCK_VALUE_F_NOT_VALID);
	KUNIT_EXPECT_GT(test, v->token, 5);
	KUNIT_EXPECT_STREQ(test, (char *)v->lvb, "kept");
	rdmalock_name_put(c->nm, a);
}

static struct kunit_case rdmalock_names_cases[] = {
	KUNIT_CASE(distinct_names_distinct_slots),
	KUNIT_CASE(a_full_home_refuses_a_name),
	KUNIT_CASE(idle_names_are_given_back),
	KUNIT_CASE(a_fence_makes_resolutions_stale),
	KUNIT_CASE(a_fresh_slot_starts_a_new_value),
	KUNIT_CASE(a_home_back_holds_its_values_not_valid),
	KUNIT_CASE(ids_are_homed_as_ids),
	KUNIT_CASE(a_blocked_request_tells_the_holders_it_blocks),
	KUNIT_CASE(malformed_blocking_messages_tell_nobody),
	KUNIT_CASE(the_pool_asks_every_kept_lock_back),
	KUNIT_CASE(a_move_carries_the_wait_of_a_racing_grant),
	KUNIT_CASE(an_abandoned_acquisition_carries_its_wait),
	{}
};

static struct kunit_suite rdmalock_names_suite = {
	.name = "rdmalock_names",
	.init = names_test_init,
	.exit = names_test_exit,
	.test_cases = rdmalock_names_cases,
};

static struct kunit_case rdmalock_names_3_cases[] = {
	KUNIT_CASE(homes_follow_the_view),
	KUNIT_CASE(a_departed_homes_names_move_and_come_back),
	{}
};

static struct kunit_suite rdmalock_names_3_suite = {
	.name = "rdmalock_names_3",
	.init = names_test_init_3,
	.exit = names_test_exit,
	.test_cases = rdmalock_names_3_cases,
};

kunit_test_suites(&rdmalock_names_suite, &rdmalock_names_3_suite);

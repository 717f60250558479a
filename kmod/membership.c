// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock membership: which nodes of a domain are live, agreed on by all
 * of them, and what every member does when that changes.
 *
 * Views. A view is an epoch and a set of members. The coordinator, the
 * lowest node that sees no lower node up, proposes one whenever the nodes
 * it sees up differ from the view, and takes every member through the
 * same phases, each only once every member has acknowledged the one
 * before: PREPARE (block new grants, leave queues, quiesce), RESET (each
 * member resets the lock words of its own table), CLAIM (live holders
 * claim their locks at their homes again), COMMIT (the new view; grants
 * resume). A proposal is named by its epoch and coordinator; a member
 * follows the newest it has seen and ignores the rest, so a coordinator
 * that dies, or a second one that believed itself lowest, only costs a
 * new proposal. (A member waits a while before it follows a coordinator
 * from outside its view while a lower member is up: see
 * rdmalock_mb_outranked().) A view is proposed only for a quorum: more
 * than half of the domain's nodes, or exactly half with node 0 among
 * them, which is the tie-break of a two-node domain (node 0 goes on
 * alone; node 1 alone does not).
 *
 * Node leases. Members renew each other: a lease message, or a proposal,
 * from a node that follows the same proposal. A member that has not been
 * renewed by a quorum (itself included) within the lease fences itself:
 * it grants nothing more and its holders learn at unlock that their locks
 * are lost. A member stops renewing the nodes a new proposal leaves out,
 * and acknowledges PREPARE only once the lease plus a margin has passed,
 * on its clock, since it last renewed one of them. Since any two quorums
 * share a node, a node left out has fenced itself before any member
 * resets a lock it may hold, and there is never a split brain. A member
 * with its lease skips the nodes that cannot hold (see may_hold). With the
 * lease off (node_lease_ms=0, for tests) there is no such guarantee.
 *
 * A member whose verb failed with its peers alive may have left a queue
 * broken (a waiter lost in it, a grant that never landed): it asks the
 * coordinator for a view change of the same members, which resets every
 * queue; at most one a second per member. Any view change whose members
 * have not reset yet when the request comes answers it: a death is one
 * view change, not a second for the survivors' lost connections.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/jiffies.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "fabric.h"
#include "locks.h"
#include "membership.h"
#include "rdmalock-pri.h"
#include "viewclient.h"

#define CREATE_TRACE_POINTS
#include "rdmalock_trace.h"

/* How often the coordinator looks at the fabric and resends a phase. */
#define MB_TICK_MS		100
#define MB_RESEND_MS		1000
/* A phase not acknowledged in this long leaves the silent nodes out. */
#define MB_PHASE_TIMEOUT_MS	10000
/* A node left out for silence is not proposed again for this long. */
#define MB_SUSPECT_MS		20000
/*
 * PREPARE waits this long at most for every member's connection to be up
 * here: longer than the fabric's longest reconnect backoff (4 s).
 */
#define MB_CONNECT_WAIT_MS	5000
/* &rdmalock_mb_msg.phase of a LEASE that renews (else it only tells the epoch). */
#define MB_LEASE_RENEWS		1
/* A member asks for a view change after a failed verb at most this often. */
#define MB_RECOVER_MS		1000
/* &rdmalock_mb_msg.phase of a RECOVER from a node out of its view, to be taken back. */
#define MB_RECOVER_TAKE_BACK	1

/* On the wire, little-endian. */
struct rdmalock_mb_msg {
	__le64 epoch;
	__le32 coord;
	__le32 members;		/* PROPOSE; FENCED: the node fenced */
	/* PROPOSE, ACK; LEASE: MB_LEASE_RENEWS or 0; RECOVER: MB_RECOVER_TAKE_BACK or 0 */
	__le32 phase;
	/* ACK, LEASE: the nodes the sender sees up; PROPOSE: its lease, ms */
	__le32 up;
	/* PROPOSE: the members that restarted; ACK: the sender, if it did */
	__le32 restarted;
};

/**
 * struct rdmalock_membership - one domain's membership, on this node
 * @fabric: the domain's fabric
 * @ls: its lockspace
 * @vc: the domain's recovery callbacks
 * @name: the domain's name, for logs
 * @self: this node
 * @num_nodes: nodes in the domain
 * @lease: the node lease in jiffies, 0 when off
 * @lock: protects what follows, up to the work items
 * @epoch: the proposal this node follows: its epoch, ...
 * @coord: ... its coordinator ...
 * @members: ... and its members
 * @restarted: ... and those of them that restarted: they left a view, by
 *	a fence or a reload, and come back holding nothing of it
 * @want: the phase of it the coordinator asked for last
 * @done: the last phase of it this node has completed
 * @poisoned: this node fenced itself while following it: it completes no
 *	more of it, and waits for a newer one
 * @view_epoch: the view committed last, 0 before the first
 * @view_coord: its coordinator
 * @view_members: its members
 * @view_restarted: those of them that restarted
 * @view_committed: when this node committed it
 * @view_connects: per node, the fabric's count of connections to it when
 *	the view was committed
 * @member: this node is a member of that view and has not fenced since
 * @may_hold: the nodes that may hold locks, as far as this node knows:
 *	the members of that view, and of every proposal since whose CLAIM
 *	this node completed (its COMMIT, which needs this node's CLAIM
 *	first, may have reached them). Meaningful only while this node is
 *	a member with its lease: see rdmalock_mb_leased_out()
 * @seen: the highest epoch seen in any message
 * @view_changes: views committed
 * @fences: times this node fenced itself
 * @renewed_by: per node, when it last renewed this node's lease
 * @renewed_to: per node, when this node last renewed its lease
 * @renewed_here: the nodes this incarnation of the domain has renewed:
 *	only those a cluster manager is asked to fence; the others are
 *	waited for only because an earlier incarnation may have renewed them
 * @lease_sent: when this node last sent its leases
 * @c_epoch: as coordinator: the proposal under way, 0 for none
 * @c_members: its members
 * @c_restarted: those that restarted, from their PREPARE acknowledgment
 * @c_phase: its phase
 * @c_acked: the members that acknowledged that phase
 * @c_up: the nodes each member saw up, from its PREPARE acknowledgment
 * @c_sent: when that phase was sent last
 * @c_started: when that phase started
 * @suspect_until: per node, until when it is not proposed
 * @c_wanted: as coordinator: a member asked for a view change
 * @c_regained: as coordinator: a proposal was begun again to take back a
 *	node it had left out; not again until one commits
 * @want_pending: this node has a view change to ask for
 * @lost: the nodes the fabric lost a connection to, a bit each: one of
 *	the view's asks for one
 * @fenced: nodes a cluster manager fenced, until they are members again
 * @fence_acks: bumped by each fence acknowledgment, for a waiting step
 * @asked: when this node last asked for one
 * @refused_epoch: the proposal this node refused to follow last, ...
 * @refused_coord: ... its coordinator ...
 * @refused_at: ... and when it first refused it
 * @tick_wq: runs @tick: leases must not wait behind a view change's step
 * @step_wq: runs @step, one phase at a time, in order
 * @tick: leases, the lease check, the coordinator's work
 * @step: this node's part of a phase
 * @wq: a step waiting for quiescence or a lease wakes here when outdated
 * @stopping: the domain is going: queue nothing more
 */
struct rdmalock_membership {
	struct rdmalock_fabric *fabric;
	struct rdmalock_lockspace *ls;
	struct rdmalock_view_client *vc;
	const char *name;
	u32 self;
	u32 num_nodes;
	unsigned long lease;

	spinlock_t lock;	/* see @lock above */
	u64 epoch;
	u32 coord;
	u32 members;
	u32 restarted;
	unsigned int want;
	unsigned int done;
	bool poisoned;
	u64 view_epoch;
	u32 view_coord;
	u32 view_members;
	u32 view_restarted;
	unsigned long view_committed;
	u32 view_connects[RDMALOCK_MAX_NODES];
	bool member;
	u32 may_hold;
	u64 seen;
	u64 view_changes;
	u64 fences;
	unsigned long renewed_by[RDMALOCK_MAX_NODES];
	unsigned long renewed_to[RDMALOCK_MAX_NODES];
	u32 renewed_here;
	unsigned long lease_sent;
	u64 c_epoch;
	u32 c_members;
	u32 c_restarted;
	unsigned int c_phase;
	u32 c_acked;
	u32 c_up[RDMALOCK_MAX_NODES];
	unsigned long c_sent;
	unsigned long c_started;
	unsigned long suspect_until[RDMALOCK_MAX_NODES];
	bool c_wanted;
	bool c_regained;
	bool want_pending;
	unsigned long lost;
	u32 fenced;
	unsigned int fence_acks;
	unsigned long asked;
	u64 refused_epoch;
	u32 refused_coord;
	unsigned long refused_at;

	struct workqueue_struct *tick_wq;
	struct workqueue_struct *step_wq;
	struct delayed_work tick;
	struct work_struct step;
	wait_queue_head_t wq;
	bool stopping;
};

/**
 * rdmalock_mb_quorum() - may a set of nodes act for the domain?
 * @set: the nodes, a bit each
 * @num_nodes: nodes in the domain
 *
 * Return: true for more than half of the nodes, or exactly half with
 * node 0 among them: any two sets that pass share a node.
 */
VISIBLE_IF_KUNIT bool rdmalock_mb_quorum(u32 set, u32 num_nodes)
{
	u32 n = hweight32(set);

	return 2 * n > num_nodes || (2 * n == num_nodes && (set & BIT(0)));
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_mb_quorum);

/**
 * rdmalock_mb_clique() - the members that all see each other
 * @self: the coordinator, which stays
 * @candidates: the nodes proposed
 * @up: per node, the nodes it sees up (itself included)
 * @num_nodes: nodes in the domain
 *
 * Of two candidates that do not see each other both ways, the higher one
 * leaves, unless it is @self.
 *
 * Return: the candidates that remain.
 */
VISIBLE_IF_KUNIT u32 rdmalock_mb_clique(u32 self, u32 candidates, const u32 *up,
					u32 num_nodes)
{
	u32 set = candidates, i, j;

	for (i = 0; i < num_nodes; i++) {
		for (j = i + 1; j < num_nodes; j++) {
			if (!(set & BIT(i)) || !(set & BIT(j)))
				continue;
			if ((up[i] & BIT(j)) && (up[j] & BIT(i)))
				continue;
			set &= ~BIT(j == self ? i : j);
		}
	}
	return set;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_mb_clique);

/**
 * rdmalock_mb_newer() - is a proposal newer than the one followed?
 * @epoch: its epoch
 * @coord: its coordinator
 * @cur_epoch: the followed one's epoch
 * @cur_coord: its coordinator
 *
 * Return: true when (@epoch, @coord) orders after (@cur_epoch, @cur_coord).
 */
VISIBLE_IF_KUNIT bool rdmalock_mb_newer(u64 epoch, u32 coord, u64 cur_epoch,
					u32 cur_coord)
{
	return epoch > cur_epoch || (epoch == cur_epoch && coord > cur_coord);
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_mb_newer);

/**
 * rdmalock_mb_outranked() - may a member refuse a proposal's coordinator?
 * @coord: the proposal's coordinator
 * @view: the members of the member's view
 * @up: the nodes up from the member, itself included
 *
 * A node outside the view, such as one back from a fence, that reached
 * this member before a lower member believes itself the coordinator.
 * Followed, it would take this member away from a view whose members it
 * still reaches, and whose leases it would stop renewing: the lower
 * member, alive, might then fence itself.
 *
 * Return: true when @coord is not in @view and a member of @view lower
 * than @coord is up.
 */
VISIBLE_IF_KUNIT bool rdmalock_mb_outranked(u32 coord, u32 view, u32 up)
{
	return !(view & BIT(coord)) && (view & up & (BIT(coord) - 1));
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_mb_outranked);

/* The nodes this node sees up, itself included. */
static u32 rdmalock_mb_up(struct rdmalock_membership *mb)
{
	u32 set = BIT(mb->self), i;

	for (i = 0; i < mb->num_nodes; i++)
		if (i != mb->self && rdmalock_fabric_node_up(mb->fabric, i))
			set |= BIT(i);
	return set;
}

static void rdmalock_mb_send(struct rdmalock_membership *mb, u32 node, u8 type,
			     u64 epoch, u32 coord, u32 members, u32 phase, u32 up,
			     u32 restarted)
{
	struct rdmalock_mb_msg msg = {
		.epoch = cpu_to_le64(epoch),
		.coord = cpu_to_le32(coord),
		.members = cpu_to_le32(members),
		.phase = cpu_to_le32(phase),
		.up = cpu_to_le32(up),
		.restarted = cpu_to_le32(restarted),
	};

	/* A lost message is sent again: the phase or lease is resent. */
	rdmalock_fabric_send(mb->fabric, node, type, &msg, sizeof(msg));
}

/* Under @mb->lock: a proposal reaching @node renews its lease. */
static void rdmalock_mb_renewing(struct rdmalock_membership *mb, u32 node)
{
	mb->renewed_to[node] = jiffies;
	mb->renewed_here |= BIT(node);
}

/* Under @mb->lock: does this node still hold its lease? */
static bool rdmalock_mb_leased(struct rdmalock_membership *mb)
{
	u32 set = BIT(mb->self), i;

	for (i = 0; i < mb->num_nodes; i++)
		if (i != mb->self &&
		    time_before(jiffies, mb->renewed_by[i] + mb->lease))
			set |= BIT(i);
	return rdmalock_mb_quorum(set, mb->num_nodes);
}

/* Is the step for (@epoch, @coord) outdated by a newer proposal? */
static bool rdmalock_mb_outdated(struct rdmalock_membership *mb, u64 epoch,
				 u32 coord)
{
	bool ret;

	spin_lock_bh(&mb->lock);
	ret = mb->epoch != epoch || mb->coord != coord || mb->poisoned ||
	      READ_ONCE(mb->stopping);
	spin_unlock_bh(&mb->lock);
	return ret;
}

struct rdmalock_mb_step_ctx {
	struct rdmalock_membership *mb;
	u64 epoch;
	u32 coord;
	u32 restarted;
};

static bool rdmalock_mb_step_stale(void *arg)
{
	struct rdmalock_mb_step_ctx *c = arg;

	return rdmalock_mb_outdated(c->mb, c->epoch, c->coord);
}

/*
 * Under @mb->lock: the nodes left out of @members whose lease, as this
 * node gave it, has not run out yet, and when the last of them runs out.
 * A node a cluster manager fenced has stopped already.
 *
 * A member with its lease skips the nodes outside @may_hold too: a node
 * it has neither committed with nor claimed beside since its own view
 * holds nothing (the induction over views of membership.rst, "Node
 * leases"). That is a joiner whose proposal was given up before its
 * CLAIM: its lease, renewed by that proposal, protects nothing, and
 * waiting it out would stall the view change for a whole lease and ask
 * to fence a node that never held. A node that is not such a member
 * cannot tell, and waits for every one.
 */
static u32 rdmalock_mb_leased_out(struct rdmalock_membership *mb, u32 members,
				  unsigned long *until)
{
	u32 skip = members | mb->fenced, set = 0, i;
	unsigned long t;

	if (mb->member && rdmalock_mb_leased(mb))
		skip |= ~mb->may_hold;
	*until = jiffies;
	for (i = 0; i < mb->num_nodes; i++) {
		if (skip & BIT(i))
			continue;
		t = mb->renewed_to[i] + mb->lease +
		    msecs_to_jiffies(RDMALOCK_LEASE_MARGIN_MS);
		if (!time_after(t, jiffies))
			continue;
		set |= BIT(i);
		if (time_after(t, *until))
			*until = t;
	}
	return set;
}

/* Tells a cluster manager, if there is one, of @event (uapi: its name). */
static void rdmalock_mb_uevent(struct rdmalock_membership *mb, char *event,
			       u32 node, u64 epoch)
{
	char domain[16 + RDMALOCK_NAME_MAX], nodestr[32], epochstr[40];
	char *envp[5];

	snprintf(domain, sizeof(domain), "RDMALOCK_DOMAIN=%s", mb->name);
	snprintf(nodestr, sizeof(nodestr), "RDMALOCK_NODE=%u", node);
	snprintf(epochstr, sizeof(epochstr), "RDMALOCK_EPOCH=%llu", epoch);
	envp[0] = event;
	envp[1] = domain;
	envp[2] = nodestr;
	envp[3] = epochstr;
	envp[4] = NULL;
	rdmalock_chardev_uevent(envp);
}

/* Asks a cluster manager, if there is one, to fence @node. */
static void rdmalock_mb_ask_fence(struct rdmalock_membership *mb, u32 node,
				  u64 epoch)
{
	rdmalock_mb_uevent(mb, "RDMALOCK_EVENT=fence", node, epoch);
}

/*
 * Before PREPARE is acknowledged: every member's connection up here, or
 * MB_CONNECT_WAIT_MS gone. The acknowledgment tells the coordinator which
 * members this node sees, and it leaves out of the view, for
 * MB_SUSPECT_MS, a member that not all see. A node that has just come
 * (back) is proposed as soon as the coordinator sees it, while the other
 * members' connections to it are still coming up: without this wait it
 * would be left out for nothing, and the view changed twice more.
 */
static void rdmalock_mb_await_members(struct rdmalock_membership *mb,
				      struct rdmalock_mb_step_ctx *c,
				      u32 members)
{
	unsigned long end = jiffies + msecs_to_jiffies(MB_CONNECT_WAIT_MS);

	/* The fabric tells nobody when a node comes up: look each tick. */
	while ((rdmalock_mb_up(mb) & members) != members &&
	       time_before(jiffies, end) &&
	       !wait_event_timeout(mb->wq, rdmalock_mb_step_stale(c),
				   msecs_to_jiffies(MB_TICK_MS)))
		;
}

/*
 * PREPARE: no call of this node is inside the gate any more, every member
 * is up here or given its time (rdmalock_mb_await_members()), and every
 * node the proposal leaves out has lost the lease this node gave it, or
 * was fenced by a cluster manager, which is asked to.
 */
static bool rdmalock_mb_prepare(struct rdmalock_membership *mb,
				struct rdmalock_mb_step_ctx *c, u32 members)
{
	u32 waiting, here, gone, i, connects[RDMALOCK_MAX_NODES];
	struct rdmalock_peer_status st;
	bool asked = false;
	unsigned long until;
	unsigned int acks;

	if (!rdmalock_recovery_quiesce(mb->ls, rdmalock_mb_step_stale, c))
		return false;
	rdmalock_view_client_prep(mb->vc);
	rdmalock_mb_await_members(mb, c, members);
	/* Outdated meanwhile: ask no fence, disconnect nobody, for it. */
	if (rdmalock_mb_step_stale(c))
		return false;
	for (;;) {
		spin_lock_bh(&mb->lock);
		waiting = mb->lease ? rdmalock_mb_leased_out(mb, members, &until) : 0;
		here = mb->renewed_here;
		acks = mb->fence_acks;
		spin_unlock_bh(&mb->lock);
		if (!waiting)
			break;
		for (i = 0; !asked && i < mb->num_nodes; i++)
			if (waiting & here & BIT(i))
				rdmalock_mb_ask_fence(mb, i, c->epoch);
		asked = true;
		wait_event_timeout(mb->wq, rdmalock_mb_step_stale(c) ||
				   READ_ONCE(mb->fence_acks) != acks,
				   max_t(long, (long)(until - jiffies), 1));
		if (rdmalock_mb_step_stale(c))
			return false;
	}
	/*
	 * The members of the last view left out have stopped by now; what
	 * they posted before and has not landed yet must not land after the
	 * reset. A node that was never a member posted nothing to the locks,
	 * and what one posted on a connection that failed since died with it.
	 */
	spin_lock_bh(&mb->lock);
	gone = mb->view_members & ~members;
	memcpy(connects, mb->view_connects, sizeof(connects));
	spin_unlock_bh(&mb->lock);
	for (i = 0; i < mb->num_nodes; i++) {
		if (!(gone & BIT(i)))
			continue;
		rdmalock_fabric_peer_status(mb->fabric, i, &st);
		if (st.connects == connects[i])
			rdmalock_fabric_disconnect(mb->fabric, i);
	}
	return true;
}

/*
 * The gate opens under @mb->lock, as every change of it does, with the
 * proposal checked: a newer one adopted, or a fence, just before, is not
 * undone by this commit.
 */
static bool rdmalock_mb_commit(struct rdmalock_membership *mb,
			       struct rdmalock_mb_step_ctx *c, u32 members)
{
	u32 connects[RDMALOCK_MAX_NODES], i;
	struct rdmalock_peer_status st;
	unsigned long bits = members;

	/* Which connection each member is on: see rdmalock_mb_prepare(). */
	for (i = 0; i < mb->num_nodes; i++) {
		rdmalock_fabric_peer_status(mb->fabric, i, &st);
		connects[i] = st.connects;
	}
	spin_lock_bh(&mb->lock);
	if (mb->epoch != c->epoch || mb->coord != c->coord || mb->poisoned ||
	    mb->stopping) {
		spin_unlock_bh(&mb->lock);
		return false;
	}
	mb->view_epoch = c->epoch;
	mb->view_coord = c->coord;
	mb->view_members = members;
	mb->view_restarted = c->restarted;
	mb->view_committed = jiffies;
	memcpy(mb->view_connects, connects, sizeof(connects));
	mb->member = true;
	mb->may_hold = members;
	mb->view_changes++;
	mb->fenced &= ~members;
	rdmalock_gate_set(mb->ls, RDMALOCK_GATE_OPEN, members);
	spin_unlock_bh(&mb->lock);
	trace_rdmalock_view_commit(mb->name, c->epoch, c->coord, members);
	pr_info("%s: view %llu: members %*pbl, coordinator %u\n", mb->name,
		c->epoch, mb->num_nodes, &bits, c->coord);
	rdmalock_view_client_done(mb->vc, members, c->restarted, c->epoch);
	return true;
}

/* Does this node's part of @phase; false when outdated meanwhile. */
static bool rdmalock_mb_do_phase(struct rdmalock_membership *mb,
				 struct rdmalock_mb_step_ctx *c,
				 unsigned int phase, u32 members)
{
	bool ok = true;

	switch (phase) {
	case MB_PREPARE:
		ok = rdmalock_mb_prepare(mb, c, members);
		break;
	case MB_RESET:
		rdmalock_recovery_reset(mb->ls, members, c->restarted);
		break;
	case MB_CLAIM:
		/* A claim that failed may have half happened: reset it later. */
		if (rdmalock_recovery_claim(mb->ls, members)) {
			spin_lock_bh(&mb->lock);
			mb->want_pending = true;
			spin_unlock_bh(&mb->lock);
		}
		break;
	case MB_COMMIT:
		ok = rdmalock_mb_commit(mb, c, members);
		break;
	}
	spin_lock_bh(&mb->lock);
	ok = ok && mb->epoch == c->epoch && mb->coord == c->coord && !mb->poisoned;
	if (ok)
		mb->done = phase;
	/*
	 * Reset: what this node wanted a view change for came before, and is
	 * answered. A node back from a fence would otherwise ask for one
	 * more, for the connections its cut broke.
	 */
	if (ok && phase == MB_RESET)
		mb->want_pending = false;
	/* Claimed: the queues are this view's, whatever peers ask of them. */
	if (ok && phase == MB_CLAIM) {
		rdmalock_set_queue_view(mb->ls, c->epoch);
		mb->may_hold |= members;
	}
	spin_unlock_bh(&mb->lock);
	if (ok)
		trace_rdmalock_view_phase(mb->name, c->epoch, c->coord, phase);
	return ok;
}

/*
 * This node's part of the phase asked for last, then its acknowledgment,
 * which renews the coordinator's lease; a phase done already is only
 * acknowledged again.
 */
static void rdmalock_mb_step(struct work_struct *work)
{
	struct rdmalock_membership *mb = container_of(work, struct rdmalock_membership,
						      step);
	struct rdmalock_mb_step_ctx c = { .mb = mb };
	unsigned int phase, done;
	u32 members, restarted;
	bool poisoned;

	if (READ_ONCE(mb->stopping))
		return;
	spin_lock_bh(&mb->lock);
	c.epoch = mb->epoch;
	c.coord = mb->coord;
	c.restarted = mb->restarted;
	members = mb->members;
	/* Not a member of the last view it knew: it holds nothing of it. */
	restarted = mb->member ? 0 : BIT(mb->self);
	phase = mb->want;
	done = mb->done;
	poisoned = mb->poisoned;
	spin_unlock_bh(&mb->lock);
	if (poisoned || phase > done + 1 || phase == MB_NONE)
		return;
	if (phase == done + 1 && !rdmalock_mb_do_phase(mb, &c, phase, members))
		return;
	spin_lock_bh(&mb->lock);
	rdmalock_mb_renewing(mb, c.coord);
	spin_unlock_bh(&mb->lock);
	rdmalock_mb_send(mb, c.coord, RDMALOCK_MB_MSG_ACK, c.epoch, c.coord, 0,
			 phase, rdmalock_mb_up(mb),
			 phase == MB_PREPARE ? restarted : 0);
}

static void rdmalock_mb_queue_step(struct rdmalock_membership *mb)
{
	if (!READ_ONCE(mb->stopping))
		queue_work(mb->step_wq, &mb->step);
}

/* Under @mb->lock: follow a newer proposal. */
static void rdmalock_mb_adopt(struct rdmalock_membership *mb, u64 epoch,
			      u32 coord, u32 members)
{
	mb->epoch = epoch;
	mb->coord = coord;
	mb->members = members;
	mb->restarted = 0;
	mb->done = MB_NONE;
	mb->poisoned = false;
	/* A step of an older one stops waiting. */
	wake_up_all(&mb->wq);
	wake_up_all(&mb->ls->gate_wq);
}

/*
 * Under @mb->lock: refuse an outranked proposal for a while only, long
 * enough for the lower member to see its coordinator up and propose
 * itself. It may never: it may not see a quorum, or may suspect this
 * node; and the coordinator, refused past its phase timeout, would.
 */
static bool rdmalock_mb_refusing(struct rdmalock_membership *mb, u64 epoch,
				 u32 coord)
{
	if (epoch != mb->refused_epoch || coord != mb->refused_coord) {
		mb->refused_epoch = epoch;
		mb->refused_coord = coord;
		mb->refused_at = jiffies;
	}
	return time_before(jiffies, mb->refused_at +
			   msecs_to_jiffies(MB_CONNECT_WAIT_MS));
}

static void rdmalock_mb_on_propose(struct rdmalock_membership *mb, u32 node,
				   const struct rdmalock_mb_msg *msg)
{
	u64 epoch = le64_to_cpu(msg->epoch);
	u32 coord = le32_to_cpu(msg->coord);
	u32 members = le32_to_cpu(msg->members);
	u32 phase = le32_to_cpu(msg->phase);
	bool step = false;

	if (coord != node || phase < MB_PREPARE || phase > MB_COMMIT ||
	    members & ~GENMASK(mb->num_nodes - 1, 0)) {
		pr_err_ratelimited("%s: node %u: malformed view proposal\n",
				   mb->name, node);
		return;
	}
	/* Leases protect only if every member counts the same. */
	if (le32_to_cpu(msg->up) != jiffies_to_msecs(mb->lease)) {
		pr_err_ratelimited("%s: node %u proposes with node_lease_ms %u, this node has %u: not following it\n",
				   mb->name, node, le32_to_cpu(msg->up),
				   jiffies_to_msecs(mb->lease));
		return;
	}
	spin_lock_bh(&mb->lock);
	mb->seen = max(mb->seen, epoch);
	/* One that leaves this node out is not for it to follow. */
	if (!(members & BIT(mb->self)))
		goto out;
	if (rdmalock_mb_newer(epoch, coord, mb->epoch, mb->coord)) {
		if (phase != MB_PREPARE)
			goto out;	/* joined too late: wait for the next */
		if (mb->member &&
		    rdmalock_mb_outranked(coord, mb->view_members, rdmalock_mb_up(mb)) &&
		    rdmalock_mb_refusing(mb, epoch, coord)) {
			pr_info_ratelimited("%s: node %u proposes view %llu, but a lower member is up here: not following it yet\n",
					    mb->name, node, epoch);
			goto out;
		}
		rdmalock_mb_adopt(mb, epoch, coord, members);
		rdmalock_set_queue_view(mb->ls, 0);
		if (mb->member)
			rdmalock_gate_set(mb->ls, RDMALOCK_GATE_CLOSED, 0);
	} else if (epoch != mb->epoch || coord != mb->coord) {
		/*
		 * An older one: its coordinator (new, or back) has not seen
		 * the epochs since. Tell it the one followed here.
		 */
		rdmalock_mb_send(mb, node, RDMALOCK_MB_MSG_LEASE, mb->epoch,
				 mb->coord, 0, 0, 0, 0);
		goto out;
	}
	mb->renewed_by[node] = jiffies;
	/* Known once every member has acknowledged PREPARE. */
	if (phase != MB_PREPARE)
		mb->restarted = le32_to_cpu(msg->restarted) & members;
	mb->want = phase;
	step = true;
out:
	spin_unlock_bh(&mb->lock);
	if (step)
		rdmalock_mb_queue_step(mb);
}

/* Under @mb->lock, as coordinator: send the current phase to who lacks it. */
static void rdmalock_mb_send_phase(struct rdmalock_membership *mb)
{
	u32 i;

	for (i = 0; i < mb->num_nodes; i++) {
		if (!(mb->c_members & BIT(i)) || (mb->c_acked & BIT(i)))
			continue;
		rdmalock_mb_renewing(mb, i);
		rdmalock_mb_send(mb, i, RDMALOCK_MB_MSG_PROPOSE, mb->c_epoch,
				 mb->self, mb->c_members, mb->c_phase,
				 jiffies_to_msecs(mb->lease),
				 mb->c_phase == MB_PREPARE ? 0 : mb->c_restarted);
	}
	mb->c_sent = jiffies;
}

/* Under @mb->lock, as coordinator: propose a view of @members. */
static void rdmalock_mb_propose(struct rdmalock_membership *mb, u32 members)
{
	unsigned long bits = members;

	mb->c_epoch = max3(mb->seen, mb->epoch, mb->view_epoch) + 1;
	mb->seen = mb->c_epoch;
	mb->c_members = members;
	mb->c_restarted = mb->member ? 0 : BIT(mb->self);
	mb->c_phase = MB_PREPARE;
	mb->c_acked = 0;
	mb->c_started = jiffies;
	memset(mb->c_up, 0, sizeof(mb->c_up));
	trace_rdmalock_view_propose(mb->name, mb->c_epoch, mb->self, members);
	pr_info("%s: proposing view %llu: members %*pbl\n", mb->name,
		mb->c_epoch, mb->num_nodes, &bits);
	rdmalock_mb_send_phase(mb);
}

/* Under @mb->lock, as coordinator: leave @nodes out of proposals a while. */
static void rdmalock_mb_suspect(struct rdmalock_membership *mb, u32 nodes)
{
	u32 i;

	for (i = 0; i < mb->num_nodes; i++)
		if ((nodes & BIT(i)) && i != mb->self)
			mb->suspect_until[i] = jiffies + msecs_to_jiffies(MB_SUSPECT_MS);
}

/* Under @mb->lock, as coordinator: every member acknowledged the phase. */
static void rdmalock_mb_advance(struct rdmalock_membership *mb)
{
	u32 clique;

	if (mb->c_phase == MB_PREPARE) {
		clique = rdmalock_mb_clique(mb->self, mb->c_members, mb->c_up,
					    mb->num_nodes);
		if (clique != mb->c_members) {
			/* Not proposed again until the fabric has settled. */
			rdmalock_mb_suspect(mb, mb->c_members & ~clique);
			mb->c_epoch = 0;
			if (rdmalock_mb_quorum(clique, mb->num_nodes))
				rdmalock_mb_propose(mb, clique);
			return;
		}
	}
	if (mb->c_phase == MB_COMMIT) {
		mb->c_epoch = 0;
		mb->c_regained = false;
		return;
	}
	/*
	 * Every member resets its queues after this, so the view change a
	 * member asked for so far is this one: asking meant its failure came
	 * first. Without this, each death cost two view changes, the second
	 * asked for by the survivors that lost their connection to the dead.
	 */
	if (mb->c_phase == MB_PREPARE)
		mb->c_wanted = false;
	mb->c_phase++;
	mb->c_acked = 0;
	mb->c_started = jiffies;
	rdmalock_mb_send_phase(mb);
}

static void rdmalock_mb_on_ack(struct rdmalock_membership *mb, u32 node,
			       const struct rdmalock_mb_msg *msg)
{
	u64 epoch = le64_to_cpu(msg->epoch);

	spin_lock_bh(&mb->lock);
	if (le32_to_cpu(msg->coord) == mb->self && epoch && epoch == mb->c_epoch &&
	    le32_to_cpu(msg->phase) == mb->c_phase && (mb->c_members & BIT(node))) {
		/* It follows this proposal: its acknowledgment renews too. */
		if (epoch == mb->epoch && mb->coord == mb->self)
			mb->renewed_by[node] = jiffies;
		mb->c_acked |= BIT(node);
		if (mb->c_phase == MB_PREPARE) {
			mb->c_up[node] = le32_to_cpu(msg->up) | BIT(node);
			mb->c_restarted |= le32_to_cpu(msg->restarted) & BIT(node);
		}
		if (mb->c_acked == mb->c_members)
			rdmalock_mb_advance(mb);
	}
	spin_unlock_bh(&mb->lock);
}

static void rdmalock_mb_on_lease(struct rdmalock_membership *mb, u32 node,
				 const struct rdmalock_mb_msg *msg)
{
	u64 epoch = le64_to_cpu(msg->epoch);

	spin_lock_bh(&mb->lock);
	mb->seen = max(mb->seen, epoch);
	/*
	 * A member renews only the nodes its proposal has, and records it;
	 * whichever proposal that is, the survivors' wait covers it. Not
	 * asking for the same proposal keeps a view change that takes
	 * longer than the lease from fencing its members.
	 */
	if (le32_to_cpu(msg->phase) == MB_LEASE_RENEWS)
		mb->renewed_by[node] = jiffies;
	/* A proposal of this node's that no one will follow: outbid it. */
	if (mb->c_epoch && epoch >= mb->c_epoch && le32_to_cpu(msg->coord) != mb->self)
		mb->c_epoch = 0;
	spin_unlock_bh(&mb->lock);
}

/* Under @mb->lock: run the tick now, unless the membership stops. */
static void rdmalock_mb_kick(struct rdmalock_membership *mb)
{
	if (!mb->stopping)
		mod_delayed_work(mb->tick_wq, &mb->tick, 0);
}

/* Under @mb->lock: a cluster manager fenced @node. */
static void rdmalock_mb_fenced(struct rdmalock_membership *mb, u32 node)
{
	mb->fenced |= BIT(node);
	mb->fence_acks++;
	wake_up_all(&mb->wq);
}

/* A member passes on a fence acknowledgment it was given. */
static void rdmalock_mb_on_fenced(struct rdmalock_membership *mb, u32 from,
				  const struct rdmalock_mb_msg *msg)
{
	u32 node = le32_to_cpu(msg->members);

	if (node >= mb->num_nodes || node == mb->self) {
		pr_err_ratelimited("%s: node %u: fence acknowledgment for node %u\n",
				   mb->name, from, node);
		return;
	}
	spin_lock_bh(&mb->lock);
	if (mb->view_members & BIT(from))
		rdmalock_mb_fenced(mb, node);
	spin_unlock_bh(&mb->lock);
}

/**
 * rdmalock_membership_fence_ack() - a cluster manager stopped @node
 * @mb: the membership
 * @node: the node, not this one and not a connected member of the view
 *
 * Every member is told, and none waits for @node's lease any more; see
 * &struct rdmalock_fence_ack.
 *
 * Context: process context.
 * Return: 0, -EINVAL for a bad node, -EBUSY for a member still connected.
 */
int rdmalock_membership_fence_ack(struct rdmalock_membership *mb, u32 node)
{
	u32 up = rdmalock_mb_up(mb), i;
	int ret = 0;

	if (node >= mb->num_nodes || node == mb->self)
		return -EINVAL;
	spin_lock_bh(&mb->lock);
	if ((mb->view_members & BIT(node)) && (up & BIT(node))) {
		ret = -EBUSY;
	} else {
		rdmalock_mb_fenced(mb, node);
		for (i = 0; i < mb->num_nodes; i++)
			if (i != mb->self && i != node && (up & BIT(i)))
				rdmalock_mb_send(mb, i, RDMALOCK_MB_MSG_FENCED, 0, 0,
						 node, 0, 0, 0);
	}
	if (!ret)
		rdmalock_mb_kick(mb);
	spin_unlock_bh(&mb->lock);
	if (!ret)
		pr_info("%s: node %u fenced by a cluster manager\n", mb->name, node);
	return ret;
}

/*
 * Under @mb->lock: a request of @node to be taken back that the view it
 * came back in answered already. The node asks once a second until it
 * has committed that view, so one may still be on its way here; one that
 * is not answered is asked again after this window.
 */
static bool rdmalock_mb_taken_back(struct rdmalock_membership *mb, u32 node)
{
	return (mb->view_restarted & BIT(node)) &&
	       time_before(jiffies, mb->view_committed +
			   msecs_to_jiffies(2 * MB_RECOVER_MS));
}

/* A member asks the coordinator for a view change: see rdmalock_mb_want(). */
static void rdmalock_mb_on_recover(struct rdmalock_membership *mb, u32 node,
				   const struct rdmalock_mb_msg *msg)
{
	bool take_back = le32_to_cpu(msg->phase) == MB_RECOVER_TAKE_BACK;

	spin_lock_bh(&mb->lock);
	if (mb->member && (mb->view_members & BIT(node)) &&
	    !(take_back && rdmalock_mb_taken_back(mb, node))) {
		mb->c_wanted = true;
		rdmalock_mb_kick(mb);
	}
	spin_unlock_bh(&mb->lock);
}

static void rdmalock_mb_msg(struct rdmalock_fabric *fabric, u32 node, u8 type,
			    const void *payload, u32 len, void *ctx)
{
	struct rdmalock_membership *mb = ctx;

	if (len != sizeof(struct rdmalock_mb_msg) || node >= mb->num_nodes) {
		pr_err_ratelimited("%s: node %u: membership message of %u bytes\n",
				   mb->name, node, len);
		return;
	}
	switch (type) {
	case RDMALOCK_MB_MSG_PROPOSE:
		rdmalock_mb_on_propose(mb, node, payload);
		break;
	case RDMALOCK_MB_MSG_ACK:
		rdmalock_mb_on_ack(mb, node, payload);
		break;
	case RDMALOCK_MB_MSG_LEASE:
		rdmalock_mb_on_lease(mb, node, payload);
		break;
	case RDMALOCK_MB_MSG_RECOVER:
		rdmalock_mb_on_recover(mb, node, payload);
		break;
	case RDMALOCK_MB_MSG_FENCED:
		rdmalock_mb_on_fenced(mb, node, payload);
		break;
	}
}

/* Under @mb->lock: the lease messages due, to every node followed. */
static void rdmalock_mb_renew(struct rdmalock_membership *mb, u32 up)
{
	u32 i;

	if (!mb->lease || time_before(jiffies, mb->lease_sent + mb->lease / 8))
		return;
	mb->lease_sent = jiffies;
	for (i = 0; i < mb->num_nodes; i++) {
		if (i == mb->self || !(mb->members & BIT(i)) || !(up & BIT(i)))
			continue;
		rdmalock_mb_renewing(mb, i);
		rdmalock_mb_send(mb, i, RDMALOCK_MB_MSG_LEASE, mb->epoch,
				 mb->coord, 0, MB_LEASE_RENEWS, up, 0);
	}
}

/* Under @mb->lock: a member without its lease stops being one. */
static bool rdmalock_mb_check_lease(struct rdmalock_membership *mb)
{
	if (!mb->lease || !mb->member || rdmalock_mb_leased(mb))
		return false;
	mb->member = false;
	mb->poisoned = true;
	mb->fences++;
	/* Under the lock: no commit can open the gate again behind it. */
	rdmalock_recovery_fence(mb->ls);
	wake_up_all(&mb->wq);
	return true;
}

/*
 * Under @mb->lock: a view change this node asked for (a failed verb or
 * claim), or this node, fenced while still connected, asking to be taken
 * back: sent to the coordinator, the lowest node up, once a second.
 */
static void rdmalock_mb_ask_view_change(struct rdmalock_membership *mb, u32 up)
{
	bool take_back = !mb->member && mb->fences;

	if ((!mb->want_pending && !take_back) ||
	    time_before(jiffies, mb->asked + msecs_to_jiffies(MB_RECOVER_MS)))
		return;
	mb->asked = jiffies;
	mb->want_pending = false;
	rdmalock_mb_send(mb, __ffs(up), RDMALOCK_MB_MSG_RECOVER, 0, 0, 0,
			 take_back ? MB_RECOVER_TAKE_BACK : 0, 0, 0);
}

/* Under @mb->lock: the nodes a proposal of this coordinator would have. */
static u32 rdmalock_mb_target(struct rdmalock_membership *mb, u32 up)
{
	u32 set = up, i;

	for (i = 0; i < mb->num_nodes; i++)
		if (i != mb->self && time_before(jiffies, mb->suspect_until[i]))
			set &= ~BIT(i);
	return set;
}

/* Under @mb->lock: the coordinator's part of a tick. */
/*
 * Under @mb->lock, as coordinator: begin the proposal under way again to
 * take in a node it left out, which is up again before the members have
 * waited out its lease (a connection that failed and came straight back,
 * a node whose connection came up just after the proposal)? Otherwise the
 * view fences a live node for nothing. Once only until a view commits, so
 * that a flapping node cannot keep a view change from ending.
 */
static bool rdmalock_mb_regain(struct rdmalock_membership *mb, u32 target)
{
	if (mb->c_phase != MB_PREPARE || !(target & ~mb->c_members) ||
	    mb->c_regained)
		return false;
	mb->c_regained = true;
	return true;
}

static void rdmalock_mb_coordinate(struct rdmalock_membership *mb, u32 up)
{
	u32 target = rdmalock_mb_target(mb, up);
	bool settled;

	/* Only the lowest node that sees no lower one up coordinates. */
	if (up & GENMASK(mb->self, 0) & ~BIT(mb->self)) {
		mb->c_epoch = 0;
		mb->c_wanted = false;
		mb->c_regained = false;
		return;
	}
	if (mb->c_epoch) {
		if (time_after(jiffies, mb->c_started +
			       msecs_to_jiffies(MB_PHASE_TIMEOUT_MS) +
			       (mb->c_phase == MB_PREPARE ? 2 * mb->lease : 0))) {
			rdmalock_mb_suspect(mb, mb->c_members & ~mb->c_acked);
			mb->c_epoch = 0;
		} else if (mb->c_members & ~target) {
			mb->c_epoch = 0;	/* a member went down: start again */
		} else if (rdmalock_mb_regain(mb, target)) {
			mb->c_epoch = 0;
		} else {
			if (time_after(jiffies, mb->c_sent + msecs_to_jiffies(MB_RESEND_MS)))
				rdmalock_mb_send_phase(mb);
			return;
		}
	}
	settled = mb->member && mb->view_epoch == mb->epoch &&
		  mb->view_coord == mb->coord && mb->view_members == target &&
		  !mb->c_wanted;
	if (!settled && rdmalock_mb_quorum(target, mb->num_nodes)) {
		mb->c_wanted = false;
		rdmalock_mb_propose(mb, target);
	}
}

static void rdmalock_mb_tick(struct work_struct *work)
{
	struct rdmalock_membership *mb = container_of(to_delayed_work(work),
						      struct rdmalock_membership,
						      tick);
	u32 up, coord, members;
	bool fenced, stopping;
	u64 epoch;

	spin_lock_bh(&mb->lock);
	stopping = mb->stopping;
	spin_unlock_bh(&mb->lock);
	if (stopping)
		return;	/* the fabric may be gone */
	up = rdmalock_mb_up(mb);
	spin_lock_bh(&mb->lock);
	if (mb->stopping) {
		spin_unlock_bh(&mb->lock);
		return;
	}
	/*
	 * A node the view left out is sent nothing of its queues: its
	 * connection, lost after that view's reset, took nothing with it.
	 */
	if ((xchg(&mb->lost, 0) & mb->view_members) && mb->member)
		mb->want_pending = true;
	rdmalock_mb_renew(mb, up);
	fenced = rdmalock_mb_check_lease(mb);
	/* The view that a fence leaves, read where nothing changes it. */
	epoch = mb->view_epoch;
	coord = mb->view_coord;
	members = mb->view_members;
	rdmalock_mb_coordinate(mb, up);
	rdmalock_mb_ask_view_change(mb, up);
	queue_delayed_work(mb->tick_wq, &mb->tick, msecs_to_jiffies(MB_TICK_MS));
	spin_unlock_bh(&mb->lock);
	if (fenced) {
		trace_rdmalock_fence(mb->name, epoch, coord, members);
		pr_warn("%s: no quorum renewed this node's lease for %u ms: fenced, its locks are lost\n",
			mb->name, jiffies_to_msecs(mb->lease));
		/* What this node's holders protect must stop now (GFS2: withdraw). */
		rdmalock_mb_uevent(mb, "RDMALOCK_EVENT=fenced", mb->self, epoch);
	}
}

/*
 * &rdmalock_lockspace.want_view_change: asks the coordinator of the view
 * for a new one, through the loopback when it is this node.
 */
static void rdmalock_mb_want(void *ctx)
{
	struct rdmalock_membership *mb = ctx;

	spin_lock_bh(&mb->lock);
	mb->want_pending = true;
	rdmalock_mb_kick(mb);
	spin_unlock_bh(&mb->lock);
}

/*
 * &rdmalock_lockspace.node_lost, from any context: the tick, which runs
 * at once, asks for the view change (rdmalock_mb_want()). A tick queued
 * after the membership stopped returns before it touches the fabric.
 */
static void rdmalock_mb_lost(void *ctx, u32 node)
{
	struct rdmalock_membership *mb = ctx;

	set_bit(node, &mb->lost);
	if (!READ_ONCE(mb->stopping))
		mod_delayed_work(mb->tick_wq, &mb->tick, 0);
}

/**
 * rdmalock_membership_create() - start following the views of a domain
 * @fabric: the domain's fabric
 * @attr: its attributes
 * @lease_ms: the node lease, 0 for none
 * @ls: its lockspace, whose gate the views open and close
 * @vc: the domain's recovery callbacks, told of each view change
 * @mbp: set to the membership
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int rdmalock_membership_create(struct rdmalock_fabric *fabric,
			       const struct rdmalock_fabric_attr *attr,
			       u32 lease_ms, struct rdmalock_lockspace *ls,
			       struct rdmalock_view_client *vc,
			       struct rdmalock_membership **mbp)
{
	struct rdmalock_membership *mb;
	u32 i;

	mb = kzalloc(sizeof(*mb), GFP_KERNEL);
	if (!mb)
		return -ENOMEM;
	mb->fabric = fabric;
	mb->ls = ls;
	mb->vc = vc;
	mb->name = attr->name;
	mb->self = attr->node_id;
	mb->num_nodes = attr->num_nodes;
	mb->lease = msecs_to_jiffies(lease_ms);
	spin_lock_init(&mb->lock);
	init_waitqueue_head(&mb->wq);
	/*
	 * Renewed by nobody. But the domain's last incarnation on this node,
	 * destroyed or unloaded a moment ago, may have renewed any node: its
	 * first view waits for those it leaves out, as if they had just been
	 * renewed here (see &rdmalock_membership.renewed_here).
	 */
	for (i = 0; i < RDMALOCK_MAX_NODES; i++) {
		mb->renewed_by[i] = jiffies - mb->lease - 1;
		mb->renewed_to[i] = jiffies;
		mb->suspect_until[i] = jiffies;
	}
	mb->lease_sent = jiffies - mb->lease;
	mb->asked = jiffies - msecs_to_jiffies(MB_RECOVER_MS) - 1;
	INIT_DELAYED_WORK(&mb->tick, rdmalock_mb_tick);
	INIT_WORK(&mb->step, rdmalock_mb_step);
	mb->tick_wq = alloc_workqueue("rdmalock-mbt-%s", WQ_MEM_RECLAIM | WQ_HIGHPRI,
				      1, attr->name);
	mb->step_wq = alloc_ordered_workqueue("rdmalock-mbs-%s", WQ_MEM_RECLAIM,
					      attr->name);
	if (!mb->tick_wq || !mb->step_wq) {
		rdmalock_membership_free(mb);
		return -ENOMEM;
	}
	ls->view_ctx = mb;
	ls->want_view_change = rdmalock_mb_want;
	ls->node_lost = rdmalock_mb_lost;
	/* Last: handlers cannot be removed from the live fabric. */
	rdmalock_fabric_set_handler(fabric, RDMALOCK_MB_MSG_FENCED, rdmalock_mb_msg, mb);
	rdmalock_fabric_set_handler(fabric, RDMALOCK_MB_MSG_RECOVER, rdmalock_mb_msg, mb);
	rdmalock_fabric_set_handler(fabric, RDMALOCK_MB_MSG_PROPOSE, rdmalock_mb_msg, mb);
	rdmalock_fabric_set_handler(fabric, RDMALOCK_MB_MSG_ACK, rdmalock_mb_msg, mb);
	rdmalock_fabric_set_handler(fabric, RDMALOCK_MB_MSG_LEASE, rdmalock_mb_msg, mb);
	queue_delayed_work(mb->tick_wq, &mb->tick, 0);
	*mbp = mb;
	return 0;
}

/**
 * rdmalock_membership_stop() - stop following views, before the fabric goes
 * @mb: the membership
 *
 * Messages that still arrive queue nothing.
 *
 * Context: process context; sleeps.
 */
void rdmalock_membership_stop(struct rdmalock_membership *mb)
{
	spin_lock_bh(&mb->lock);
	WRITE_ONCE(mb->stopping, true);
	spin_unlock_bh(&mb->lock);
	wake_up_all(&mb->wq);
	wake_up_all(&mb->ls->gate_wq);
	cancel_delayed_work_sync(&mb->tick);
	cancel_work_sync(&mb->step);
}

/**
 * rdmalock_membership_free() - free it, once the fabric is gone
 * @mb: the membership, stopped, or never started
 */
void rdmalock_membership_free(struct rdmalock_membership *mb)
{
	if (mb->tick_wq)
		destroy_workqueue(mb->tick_wq);
	if (mb->step_wq)
		destroy_workqueue(mb->step_wq);
	kfree(mb);
}

static const char * const rdmalock_mb_phases[] = {
	[MB_NONE] = "none",
	[MB_PREPARE] = "prepare",
	[MB_RESET] = "reset",
	[MB_CLAIM] = "claim",
	[MB_COMMIT] = "commit",
};

static const char * const rdmalock_gates[] = {
	[RDMALOCK_GATE_OUT] = "out",
	[RDMALOCK_GATE_CLOSED] = "closed",
	[RDMALOCK_GATE_OPEN] = "open",
};

/* Milliseconds since @t, for the debugfs file. */
static unsigned int rdmalock_mb_ago(unsigned long t)
{
	return jiffies_to_msecs(jiffies - t);
}

/**
 * rdmalock_membership_show() - the debugfs file "view" of a domain
 * @m: the file
 * @mb: the membership
 *
 * The view, the proposal followed and how far this node got in it, the
 * coordinator's proposal, the leases, and the lock gate: where a view
 * change stands.
 */
void rdmalock_membership_show(struct seq_file *m, struct rdmalock_membership *mb)
{
	struct rdmalock_lockspace *ls = mb->ls;
	unsigned long bits;
	u32 i;

	spin_lock_bh(&mb->lock);
	bits = mb->view_members;
	seq_printf(m, "view %llu: members %*pbl, coordinator %u; %s; %llu view changes, %llu fences\n",
		   mb->view_epoch, mb->num_nodes, &bits, mb->view_coord,
		   mb->member ? "member" : "out", mb->view_changes, mb->fences);
	bits = mb->members;
	seq_printf(m, "following proposal %llu of node %u: members %*pbl, done %s%s\n",
		   mb->epoch, mb->coord, mb->num_nodes, &bits,
		   rdmalock_mb_phases[mb->done], mb->poisoned ? ", fenced in it" : "");
	bits = mb->c_members;
	if (mb->c_epoch)
		seq_printf(m, "coordinating proposal %llu: members %*pbl, phase %s, acknowledged by %#x\n",
			   mb->c_epoch, mb->num_nodes, &bits,
			   rdmalock_mb_phases[mb->c_phase], mb->c_acked);
	if (mb->lease)
		for (i = 0; i < mb->num_nodes; i++)
			if (i != mb->self)
				seq_printf(m, "node %u: renewed this node %u ms ago, renewed by it %u ms ago\n",
					   i, rdmalock_mb_ago(mb->renewed_by[i]),
					   rdmalock_mb_ago(mb->renewed_to[i]));
	spin_unlock_bh(&mb->lock);
	if (ls->gated)
		seq_printf(m, "gate %s, %d calls inside, %d descriptors lost, %d freed by view changes\n",
			   rdmalock_gates[READ_ONCE(ls->gate)], atomic_read(&ls->ops),
			   atomic_read(&ls->lost), atomic_read(&ls->recovered));
}

/**
 * rdmalock_membership_view() - this node's membership, for userspace
 * @mb: the membership
 * @v: filled in but for its header and name
 */
void rdmalock_membership_view(struct rdmalock_membership *mb,
			      struct rdmalock_domain_view *v)
{
	spin_lock_bh(&mb->lock);
	v->epoch = mb->view_epoch;
	v->members = mb->view_members;
	v->coordinator = mb->view_coord;
	if (!mb->member)
		v->state = RDMALOCK_VIEW_OUT;
	else if (mb->epoch != mb->view_epoch || mb->coord != mb->view_coord)
		v->state = RDMALOCK_VIEW_CHANGING;
	else
		v->state = RDMALOCK_VIEW_MEMBER;
	v->view_changes = mb->view_changes;
	v->fences = mb->fences;
	v->lease_ms = jiffies_to_msecs(mb->lease);
	spin_unlock_bh(&mb->lock);
}

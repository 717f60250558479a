// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock domains: the named sets of nodes, like a DLM lockspace, that
 * userspace configures and in-kernel clients find by name.
 *
 * A domain's name is on the list from the start of its creation until
 * its fabric is gone, so no two domains of one name ever listen at once;
 * lookups see only a LIVE domain. The list's mutex is never held across
 * the fabric's creation or tear-down, which take seconds.
 *
 * Destroying a domain stops it at once: its lock calls fail with
 * -ESHUTDOWN, the calls under way (counted in @active) are waited for,
 * and its fabric is destroyed; then the name is free again. References
 * (the list's own, and one per rdmalock_domain_get() and lock handle)
 * only keep the memory, which the last one frees.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait_bit.h>
#include <net/ipv6.h>

#include <rdmalock.h>
#include "cluster.h"
#include "locks.h"
#include "names.h"
#include "rdmalock-pri.h"

static LIST_HEAD(rdmalock_domains);
static DEFINE_MUTEX(rdmalock_domains_mutex);

/*
 * A name is canonical: its padding after the NUL is zero too. Peers
 * compare all RDMALOCK_NAME_MAX bytes of it in the connection data while
 * message headers carry a hash of the string, so two requests that spell
 * the same name must be the same bytes.
 */
static bool rdmalock_name_valid(const char *name)
{
	size_t i, len = strnlen(name, RDMALOCK_NAME_MAX);

	if (!len || len == RDMALOCK_NAME_MAX ||
	    memchr_inv(name + len, 0, RDMALOCK_NAME_MAX - len))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("-_.", name[i]))
			return false;
	return true;
}

/* Converts one address; -EINVAL for anything but a unicast IP address. */
static int rdmalock_addr_to_sockaddr(const struct rdmalock_addr *a, u16 port,
				     struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (a->pad)
		return -EINVAL;
	switch (a->family) {
	case AF_INET:
		if (memchr_inv(a->addr + 4, 0, sizeof(a->addr) - 4))
			return -EINVAL;
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		memcpy(&sin->sin_addr, a->addr, 4);
		if (ipv4_is_zeronet(sin->sin_addr.s_addr) ||
		    ipv4_is_multicast(sin->sin_addr.s_addr) ||
		    ipv4_is_lbcast(sin->sin_addr.s_addr))
			return -EINVAL;
		return 0;
	case AF_INET6:
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		memcpy(&sin6->sin6_addr, a->addr, sizeof(a->addr));
		if (ipv6_addr_any(&sin6->sin6_addr) ||
		    ipv6_addr_is_multicast(&sin6->sin6_addr))
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

/* The lock layer's part of a request. */
static void rdmalock_req_params(const struct rdmalock_domain_create *req,
				struct rdmalock_ls_params *params)
{
	*params = (struct rdmalock_ls_params){
		.algo = req->algo,
		.num_nodes = req->num_nodes,
		.locks_per_node = req->locks_per_node,
		.descs = req->descriptors ?: RDMALOCK_DEFAULT_DESCRIPTORS,
		.budget_local = req->budget_local,
		.budget_remote = req->budget_remote,
		.lease_ms = req->lease_ms,
		.writer_batch = req->writer_batch,
		.writer_cas = req->writer_cas,
		.lease_recovery = !!(req->flags & RDMALOCK_DOMAIN_F_LEASE_RECOVERY),
		.named = !!(req->flags & RDMALOCK_DOMAIN_F_NAMED),
	};
}

/**
 * rdmalock_domain_check() - validate a domain request, build its attributes
 * @req: the request as userspace gave it
 * @attr: filled in when the request is valid
 *
 * Return: 0, or -EINVAL for a bad name (non-zero bytes after its NUL
 * included), node count or id, algorithm, table size, flag, padding, key
 * length (or a key missing without %RDMALOCK_DOMAIN_F_INSECURE, or given
 * with it), the algorithm's parameters (rdmalock_algo_check_params()), or
 * a bad, unused-but-set or duplicate address. The reason is logged,
 * rate-limited.
 */
VISIBLE_IF_KUNIT int rdmalock_domain_check(const struct rdmalock_domain_create *req,
					   struct rdmalock_fabric_attr *attr)
{
	static const struct rdmalock_addr unused;
	u16 port = req->port ?: RDMALOCK_DEFAULT_PORT;
	struct rdmalock_ls_params params;
	const char *why = NULL;
	u32 i, j;

	rdmalock_req_params(req, &params);

	if ((req->flags & ~(RDMALOCK_DOMAIN_F_INSECURE |
			    RDMALOCK_DOMAIN_F_LEASE_RECOVERY |
			    RDMALOCK_DOMAIN_F_NAMED)))
		why = "unknown flags";
	else if ((req->flags & RDMALOCK_DOMAIN_F_NAMED) &&
		 (req->flags & RDMALOCK_DOMAIN_F_LEASE_RECOVERY))
		why = "named locks need membership recovery, not lease recovery";
	else if (!(req->flags & RDMALOCK_DOMAIN_F_INSECURE) && !req->key_len)
		why = "no key: give one, or ask for an insecure domain";
	else if ((req->flags & RDMALOCK_DOMAIN_F_INSECURE) &&
		 (req->key_len || req->key))
		why = "a key for an insecure domain";
	else if (req->key_len && (req->key_len < RDMALOCK_KEY_MIN ||
				  req->key_len > RDMALOCK_KEY_MAX))
		why = "key length out of range";
	else if (!rdmalock_name_valid(req->name))
		why = "bad name";
	else if (!req->num_nodes || req->num_nodes > RDMALOCK_MAX_NODES)
		why = "node count out of range";
	else if (req->node_id >= req->num_nodes)
		why = "node id out of range";
	else if ((req->algo < RDMALOCK_ALGO_ALOCK || req->algo > RDMALOCK_ALGO_DSLR) &&
		 req->algo != RDMALOCK_ALGO_TEST_NONE &&
		 req->algo != RDMALOCK_ALGO_TEST_MIXED)
		why = "unknown algorithm";
	else if (req->algo >= RDMALOCK_ALGO_TEST_NONE && !rdmalock_allow_broken)
		why = "broken test locks need allow_broken=1";
	else if (req->descriptors % RDMALOCK_DESCRIPTORS_STEP ||
		 req->descriptors > RDMALOCK_MAX_DESCRIPTORS)
		why = "descriptors out of range, or not a multiple of 64";
	else
		why = rdmalock_algo_check_params(&params);
	if (why)
		goto invalid;
	if (!req->locks_per_node ||
	    req->locks_per_node > RDMALOCK_MAX_LOCKS_PER_NODE)
		why = "locks per node out of range";
	else if (req->atomics > RDMALOCK_ATOMICS_EMULATED)
		why = "unknown atomics mode";
	if (why)
		goto invalid;

	memset(attr, 0, sizeof(*attr));
	for (i = 0; i < RDMALOCK_MAX_NODES; i++) {
		if (i >= req->num_nodes) {
			if (memcmp(&req->nodes[i], &unused, sizeof(unused))) {
				why = "address set beyond the node count";
				goto invalid;
			}
			continue;
		}
		if (rdmalock_addr_to_sockaddr(&req->nodes[i], port, &attr->addrs[i])) {
			why = "bad address";
			goto invalid;
		}
		for (j = 0; j < i; j++)
			if (!memcmp(&req->nodes[i], &req->nodes[j], sizeof(req->nodes[i]))) {
				why = "duplicate address";
				goto invalid;
			}
	}
	memcpy(attr->name, req->name, sizeof(attr->name));
	attr->node_id = req->node_id;
	attr->num_nodes = req->num_nodes;
	attr->port = port;
	attr->atomics = req->atomics;
	/*
	 * Descriptors come in 4 KiB steps of the region: with 4 KiB pages,
	 * nodes that disagree on their number disagree on its length, which
	 * their hellos carry, and refuse each other.
	 */
	attr->user_len = rdmalock_locks_len(req->locks_per_node, params.descs,
					    req->flags & RDMALOCK_DOMAIN_F_NAMED);
	return 0;

invalid:
	pr_err_ratelimited("domain create: %s\n", why);
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(rdmalock_domain_check);

/* Under rdmalock_domains_mutex; in any state. */
static struct rdmalock_domain *rdmalock_domain_find(const char *name)
{
	struct rdmalock_domain *dom;

	list_for_each_entry(dom, &rdmalock_domains, entry)
		if (!strncmp(dom->attr.name, name, RDMALOCK_NAME_MAX))
			return dom;
	return NULL;
}

/* Under rdmalock_domains_mutex. */
static struct rdmalock_domain *rdmalock_domain_find_live(const char *name)
{
	struct rdmalock_domain *dom = rdmalock_domain_find(name);

	return dom && dom->state == RDMALOCK_DOM_LIVE ? dom : NULL;
}

static void rdmalock_domain_release(struct kref *ref)
{
	struct rdmalock_domain *dom = container_of(ref, struct rdmalock_domain, ref);

	rdmalock_membership_free(dom->mb);
	rdmalock_lockspace_free(dom->ls);
	kfree(dom);
}

/**
 * rdmalock_domain_enter() - start a call that uses the domain's fabric
 * @dom: the domain, held
 *
 * The fabric stays up until the matching rdmalock_domain_leave(). Calls
 * may nest.
 *
 * Context: any.
 * Return: 0, or -ESHUTDOWN when the domain is being or was destroyed.
 */
int rdmalock_domain_enter(struct rdmalock_domain *dom)
{
	atomic_inc(&dom->active);
	/* Pairs with the barrier in rdmalock_lockspace_close(). */
	smp_mb__after_atomic();
	if (rdmalock_domain_closed(dom)) {
		rdmalock_domain_leave(dom);
		return -ESHUTDOWN;
	}
	return 0;
}

/**
 * rdmalock_domain_leave() - end a call started by rdmalock_domain_enter()
 * @dom: the domain
 *
 * Context: any.
 */
void rdmalock_domain_leave(struct rdmalock_domain *dom)
{
	if (atomic_dec_and_test(&dom->active))
		wake_up_var(&dom->active);
}

/**
 * rdmalock_domain_closed() - has the domain been destroyed?
 * @dom: the domain, held
 *
 * Return: true from the start of its destruction on.
 */
bool rdmalock_domain_closed(struct rdmalock_domain *dom)
{
	return READ_ONCE(dom->ls->closed);
}

/*
 * Stops a domain that no lookup finds any more: fails its waiters and
 * refuses new calls, waits for the calls under way, which end soon since
 * their waits see the domain closed, and destroys its fabric, after which
 * nothing of it can grant a lock or answer a peer.
 */
static void rdmalock_domain_stop(struct rdmalock_domain *dom)
{
	rdmalock_lockspace_close(dom->ls);
	wait_var_event(&dom->active, !atomic_read(&dom->active));
	rdmalock_stats_domain_remove(dom);
	rdmalock_membership_stop(dom->mb);
	rdmalock_lockspace_stop(dom->ls);
	rdmalock_fabric_destroy(dom->fabric);
	dom->fabric = NULL;
	pr_info("domain %s destroyed\n", dom->attr.name);
}

/* Frees a domain's name: its fabric is gone, or never started. */
static void rdmalock_domain_unlist(struct rdmalock_domain *dom)
{
	mutex_lock(&rdmalock_domains_mutex);
	list_del(&dom->entry);
	mutex_unlock(&rdmalock_domains_mutex);
}

/**
 * rdmalock_domain_create() - create a domain and start joining its nodes
 * @req: the request; validated here
 * @key: @req->key_len bytes of the domain's key, or NULL for a domain
 *	without one; not kept
 *
 * The name is reserved first, so that it is created once; the fabric
 * starts without the domain list's mutex, so lookups of other domains go
 * on meanwhile; the domain is found by name once it has started.
 *
 * Context: process context; sleeps while the fabric starts.
 * Return: 0; -EINVAL for a bad request; -EEXIST when the name is taken,
 * or still being created or destroyed; the fabric's errors (-ENODEV,
 * -EADDRINUSE, -ETIMEDOUT, ...).
 */
int rdmalock_domain_create(const struct rdmalock_domain_create *req,
			   const u8 *key)
{
	struct rdmalock_ls_params params;
	struct rdmalock_domain *dom;
	int ret;

	dom = kzalloc(sizeof(*dom), GFP_KERNEL);
	if (!dom)
		return -ENOMEM;
	ret = rdmalock_domain_check(req, &dom->attr);
	if (ret)
		goto err_free;
	rdmalock_req_params(req, &params);
	/*
	 * Taken once: the module's parameters are writable at run time, and
	 * a domain's peers must not see its timeout change under them.
	 */
	dom->attr.heartbeat_ms = READ_ONCE(rdmalock_heartbeat_ms);
	dom->attr.heartbeat_timeout_ms = READ_ONCE(rdmalock_heartbeat_timeout_ms);
	dom->attr.emulate_atomics = READ_ONCE(rdmalock_emulate_atomics);
	dom->node_lease_ms = READ_ONCE(rdmalock_node_lease_ms);
	if (dom->node_lease_ms &&
	    (dom->node_lease_ms < RDMALOCK_NODE_LEASE_MIN_MS ||
	     dom->node_lease_ms > RDMALOCK_NODE_LEASE_MAX_MS)) {
		pr_err_ratelimited("domain create: node_lease_ms %u is neither 0 nor %u to %u\n",
				   dom->node_lease_ms, RDMALOCK_NODE_LEASE_MIN_MS,
				   RDMALOCK_NODE_LEASE_MAX_MS);
		ret = -EINVAL;
		goto err_free;
	}
	kref_init(&dom->ref);
	atomic_set(&dom->active, 0);
	dom->algo = req->algo;
	dom->locks_per_node = req->locks_per_node;
	dom->state = RDMALOCK_DOM_CREATING;
	rdmalock_floor_echo_init(&dom->echo);

	mutex_lock(&rdmalock_domains_mutex);
	if (rdmalock_domain_find(dom->attr.name)) {
		mutex_unlock(&rdmalock_domains_mutex);
		ret = -EEXIST;
		goto err_free;
	}
	list_add_tail(&dom->entry, &rdmalock_domains);
	mutex_unlock(&rdmalock_domains_mutex);

	ret = rdmalock_fabric_create(&dom->attr, key, req->key_len, &dom->fabric);
	if (ret)
		goto err_unlist;
	/* Lives in @dom, past the fabric: destroying the fabric undoes it. */
	ret = rdmalock_floor_echo_attach(dom->fabric, &dom->echo);
	if (!ret)
		ret = rdmalock_lockspace_create(dom->fabric, &dom->attr, &params,
						&dom->ls);
	if (ret) {
		rdmalock_fabric_destroy(dom->fabric);
		goto err_unlist;
	}
	rdmalock_view_client_init(&dom->view_client, dom->attr.node_id);
	ret = rdmalock_membership_create(dom->fabric, &dom->attr,
					 dom->node_lease_ms, dom->ls,
					 &dom->view_client, &dom->mb);
	if (ret) {
		rdmalock_lockspace_stop(dom->ls);
		rdmalock_fabric_destroy(dom->fabric);
		rdmalock_lockspace_free(dom->ls);
		goto err_unlist;
	}
	rdmalock_stats_domain_add(dom);
	mutex_lock(&rdmalock_domains_mutex);
	dom->state = RDMALOCK_DOM_LIVE;
	mutex_unlock(&rdmalock_domains_mutex);
	pr_info("domain %s created: node %u of %u%s\n", dom->attr.name,
		dom->attr.node_id, dom->attr.num_nodes,
		key ? "" : ", insecure: without a key, anyone may join");
	return 0;

err_unlist:
	rdmalock_domain_unlist(dom);
err_free:
	kfree(dom);
	return ret;
}

/**
 * rdmalock_domain_destroy() - stop a domain and free its name
 * @name: the domain's name
 *
 * When this returns, the domain's fabric is gone and the name can be
 * created again. Its lock calls under way fail with -ESHUTDOWN and are
 * waited for, as are a torture run or fabric test on it; its holders are
 * told at unlock, with -ESHUTDOWN. Its memory stays until its last user
 * puts it.
 *
 * Context: process context; sleeps.
 * Return: 0, or -ENOENT (no such domain, or it is still being created
 * or already being destroyed).
 */
int rdmalock_domain_destroy(const char *name)
{
	struct rdmalock_domain *dom;

	mutex_lock(&rdmalock_domains_mutex);
	dom = rdmalock_domain_find_live(name);
	if (dom)
		dom->state = RDMALOCK_DOM_STOPPING;
	mutex_unlock(&rdmalock_domains_mutex);
	if (!dom)
		return -ENOENT;
	rdmalock_domain_stop(dom);
	rdmalock_domain_unlist(dom);
	kref_put(&dom->ref, rdmalock_domain_release);
	return 0;
}

/**
 * rdmalock_domain_names() - the names of the domains on this node
 * @names: room for @max names of %RDMALOCK_NAME_MAX bytes each, or NULL
 * @max: capacity of @names
 *
 * Context: process context; takes the domain list's mutex.
 * Return: the number of domains, which may exceed @max.
 */
u32 rdmalock_domain_names(char *names, u32 max)
{
	struct rdmalock_domain *dom;
	u32 n = 0;

	mutex_lock(&rdmalock_domains_mutex);
	list_for_each_entry(dom, &rdmalock_domains, entry) {
		if (dom->state != RDMALOCK_DOM_LIVE)
			continue;
		if (n < max)
			memcpy(names + n * RDMALOCK_NAME_MAX, dom->attr.name,
			       RDMALOCK_NAME_MAX);
		n++;
	}
	mutex_unlock(&rdmalock_domains_mutex);
	return n;
}

/*
 * The domain called @name, held and entered for a control call that reads
 * or changes its state; NULL if there is none or it is being destroyed.
 * End the call with rdmalock_domain_unuse().
 */
static struct rdmalock_domain *rdmalock_domain_use(const char *name)
{
	struct rdmalock_domain *dom = rdmalock_domain_get(name);

	if (dom && rdmalock_domain_enter(dom)) {
		rdmalock_domain_put(dom);
		dom = NULL;
	}
	return dom;
}

static void rdmalock_domain_unuse(struct rdmalock_domain *dom)
{
	rdmalock_domain_leave(dom);
	rdmalock_domain_put(dom);
}

/**
 * rdmalock_domain_status() - describe the domain named in @st->name
 * @st: in: the name; out: every other field but @size, @flags, @reserved
 *
 * Context: process context; may sleep.
 * Return: 0 or -ENOENT.
 */
int rdmalock_domain_status(struct rdmalock_domain_status *st)
{
	struct rdmalock_domain *dom;
	u32 i;

	dom = rdmalock_domain_use(st->name);
	if (!dom)
		return -ENOENT;
	st->node_id = dom->attr.node_id;
	st->num_nodes = dom->attr.num_nodes;
	st->algo = dom->algo;
	st->locks_per_node = dom->locks_per_node;
	st->port = dom->attr.port;
	st->atomics = rdmalock_fabric_emulated(dom->fabric) ?
		RDMALOCK_ATOMICS_EMULATED : RDMALOCK_ATOMICS_NATIVE;
	st->region_len = rdmalock_fabric_region_len(dom->fabric);
	st->auth = rdmalock_fabric_keyed(dom->fabric) ? RDMALOCK_AUTH_KEY :
							RDMALOCK_AUTH_NONE;
	memset(st->peers, 0, sizeof(st->peers));
	for (i = 0; i < dom->attr.num_nodes; i++)
		rdmalock_fabric_peer_status(dom->fabric, i, &st->peers[i]);
	st->named = !!dom->ls->names;
	st->names_used = st->named ? rdmalock_names_used(dom->ls->names) : 0;
	st->names_cached = st->named ? rdmalock_names_cached(dom->ls->names) : 0;
	rdmalock_domain_unuse(dom);
	return 0;
}

/**
 * rdmalock_domain_view() - this node's membership of the domain in @v->name
 * @v: in: the name; out: every other field but @size, @flags, @pad,
 *	@reserved
 *
 * Context: process context; may sleep.
 * Return: 0 or -ENOENT.
 */
int rdmalock_domain_view(struct rdmalock_domain_view *v)
{
	struct rdmalock_domain *dom;

	dom = rdmalock_domain_use(v->name);
	if (!dom)
		return -ENOENT;
	rdmalock_membership_view(dom->mb, v);
	rdmalock_domain_unuse(dom);
	return 0;
}

/**
 * rdmalock_domain_fence_ack() - a cluster manager stopped a node of a domain
 * @name: the domain's name
 * @node: the node it stopped
 *
 * Context: process context; may sleep.
 * Return: 0, -ENOENT, or as rdmalock_membership_fence_ack().
 */
int rdmalock_domain_fence_ack(const char *name, u32 node)
{
	struct rdmalock_domain *dom;
	int ret;

	dom = rdmalock_domain_use(name);
	if (!dom)
		return -ENOENT;
	ret = rdmalock_membership_fence_ack(dom->mb, node);
	rdmalock_domain_unuse(dom);
	return ret;
}

/**
 * rdmalock_domains_exit() - destroy every domain, at module unload
 *
 * No user can hold a reference then, nor can a domain be half created or
 * destroyed: in-kernel clients depend on our symbols and are unloaded
 * first, and ioctls hold the module.
 *
 * Context: process context; sleeps.
 */
void rdmalock_domains_exit(void)
{
	struct rdmalock_domain *dom, *tmp;
	LIST_HEAD(doomed);

	mutex_lock(&rdmalock_domains_mutex);
	list_splice_init(&rdmalock_domains, &doomed);
	mutex_unlock(&rdmalock_domains_mutex);
	list_for_each_entry_safe(dom, tmp, &doomed, entry) {
		rdmalock_domain_stop(dom);
		kref_put(&dom->ref, rdmalock_domain_release);
	}
}

/**
 * rdmalock_domain_get() - find a lock domain by name and hold it
 * @name: the name given to ``rdmalockctl domain create``
 *
 * The domain's memory stays valid until the matching
 * rdmalock_domain_put(). If the domain is destroyed meanwhile, it grants
 * nothing more: its lock calls fail with -ESHUTDOWN.
 *
 * Context: process context; takes a mutex.
 * Return: the domain, or NULL when no domain has that name.
 */
struct rdmalock_domain *rdmalock_domain_get(const char *name)
{
	struct rdmalock_domain *dom;

	mutex_lock(&rdmalock_domains_mutex);
	dom = rdmalock_domain_find_live(name);
	if (dom)
		kref_get(&dom->ref);
	mutex_unlock(&rdmalock_domains_mutex);
	return dom;
}
EXPORT_SYMBOL_GPL(rdmalock_domain_get);

/**
 * rdmalock_domain_put() - release a domain found with rdmalock_domain_get()
 * @dom: the domain
 *
 * Context: process context; may sleep.
 */
void rdmalock_domain_put(struct rdmalock_domain *dom)
{
	kref_put(&dom->ref, rdmalock_domain_release);
}
EXPORT_SYMBOL_GPL(rdmalock_domain_put);

/**
 * rdmalock_domain_member() - is this node a member of the domain's view?
 * @dom: the domain, held
 *
 * Out of the view (before the first view that takes this node in, or
 * from its fence, its node lease run out, until a view takes it back),
 * every lock call fails at once, however often it is made: a client that
 * would make a refused call again at once can tell that refusal from one
 * that a view change ends. A domain without views has every node in it.
 *
 * Context: any.
 * Return: false from the domain's destruction on, and while this node is
 * out of its view; else true.
 */
bool rdmalock_domain_member(struct rdmalock_domain *dom)
{
	struct rdmalock_lockspace *ls = dom->ls;

	return !rdmalock_domain_closed(dom) &&
	       (!ls->gated || READ_ONCE(ls->gate) != RDMALOCK_GATE_OUT);
}
EXPORT_SYMBOL_GPL(rdmalock_domain_member);

/**
 * rdmalock_domain_named() - are the domain's locks named?
 * @dom: the domain, held
 *
 * Context: any.
 * Return: true for a domain created with %RDMALOCK_DOMAIN_F_NAMED, whose
 * locks rdmalock_lock_get_name() gives; false for one that maps lock ids
 * to slots (rdmalock_lock_get()).
 */
bool rdmalock_domain_named(struct rdmalock_domain *dom)
{
	return dom->ls->names;
}
EXPORT_SYMBOL_GPL(rdmalock_domain_named);

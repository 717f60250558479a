// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalock statistics in debugfs: /sys/kernel/debug/rdmalock/<domain>/peers
 * shows, per node of the domain, its connection and the counters of every
 * verb and message to it, as `rdmalockctl domain status` does; .../view
 * shows where the domain's membership stands (membership.c); .../locks
 * how many of the node's queue descriptors are in use, to size a
 * domain's pool (lockspace.c).
 *
 * debugfs waits for readers of a file it removes, and a domain's files
 * are removed before the domain is freed, so a reader never sees a freed
 * domain.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "cluster.h"
#include "rdmalock-pri.h"

static struct dentry *rdmalock_debugfs_root;

static const char * const rdmalock_peer_states[] = {
	[RDMALOCK_PEER_DOWN] = "down",
	[RDMALOCK_PEER_CONNECTING] = "connecting",
	[RDMALOCK_PEER_UP] = "up",
};

static int rdmalock_peers_show(struct seq_file *m, void *unused)
{
	struct rdmalock_domain *dom = m->private;
	struct rdmalock_peer_status st;
	u32 i, v;

	for (i = 0; i < dom->attr.num_nodes; i++) {
		rdmalock_fabric_peer_status(dom->fabric, i, &st);
		seq_printf(m, "node %u%s: %s qp %u connects %u\n", i,
			   i == dom->attr.node_id ? " (self)" : "",
			   rdmalock_peer_states[st.state], st.qp_num, st.connects);
		for (v = 0; v < RDMALOCK_VERB_MAX; v++)
			seq_printf(m, "  %-5s posted %llu completed %llu failed %llu bytes %llu\n",
				   rdmalock_verb_name(v), st.verbs[v].posted,
				   st.verbs[v].completed, st.verbs[v].failed,
				   st.verbs[v].bytes);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rdmalock_peers);

static int rdmalock_view_show(struct seq_file *m, void *unused)
{
	struct rdmalock_domain *dom = m->private;

	rdmalock_membership_show(m, dom->mb);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rdmalock_view);

static int rdmalock_locks_show(struct seq_file *m, void *unused)
{
	struct rdmalock_lockspace *ls = ((struct rdmalock_domain *)m->private)->ls;

	/* A moment's picture: the pool changes under the reader. */
	seq_printf(m, "descriptors: %u in use of %u, %d lost\n",
		   bitmap_weight(ls->used, ls->descs), ls->descs,
		   atomic_read(&ls->lost) - atomic_read(&ls->recovered));
	seq_printf(m, "acquisitions: %lld\n", atomic64_read(&ls->acquisitions));
	seq_printf(m, "abandoned: %lld\n", atomic64_read(&ls->abandoned));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rdmalock_locks);

/**
 * rdmalock_stats_domain_add() - create a domain's debugfs files
 * @dom: the domain, with its fabric
 *
 * debugfs failures are not errors: the domain works without its files.
 */
void rdmalock_stats_domain_add(struct rdmalock_domain *dom)
{
	dom->debugfs = debugfs_create_dir(dom->attr.name, rdmalock_debugfs_root);
	debugfs_create_file("peers", 0400, dom->debugfs, dom, &rdmalock_peers_fops);
	debugfs_create_file("view", 0400, dom->debugfs, dom, &rdmalock_view_fops);
	debugfs_create_file("locks", 0400, dom->debugfs, dom, &rdmalock_locks_fops);
}

/**
 * rdmalock_stats_domain_remove() - remove a domain's debugfs files
 * @dom: the domain
 *
 * Context: process context; waits for readers of the files.
 */
void rdmalock_stats_domain_remove(struct rdmalock_domain *dom)
{
	debugfs_remove_recursive(dom->debugfs);
}

void rdmalock_stats_init(void)
{
	rdmalock_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	rdmalock_fault_init(rdmalock_debugfs_root);
}

void rdmalock_stats_exit(void)
{
	rdmalock_fault_exit();
	debugfs_remove_recursive(rdmalock_debugfs_root);
}

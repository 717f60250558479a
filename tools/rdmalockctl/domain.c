// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalockctl: lock domains and their fabric test.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rdmalockctl.h"

static const char * const algo_names[] = {
	[RDMALOCK_ALGO_ALOCK] = "alock",
	[RDMALOCK_ALGO_CAS] = "cas",
	[RDMALOCK_ALGO_MCS] = "mcs",
	[RDMALOCK_ALGO_SHIFTLOCK] = "shiftlock",
	[RDMALOCK_ALGO_DSLR] = "dslr",
	[RDMALOCK_ALGO_TEST_NONE] = "test-none",
	[RDMALOCK_ALGO_TEST_MIXED] = "test-mixed",
};

static const char * const atomics_names[] = {
	[RDMALOCK_ATOMICS_AUTO] = "auto",
	[RDMALOCK_ATOMICS_NATIVE] = "native",
	[RDMALOCK_ATOMICS_EMULATED] = "emulated",
};

static const char * const ftest_names[] = {
	[RDMALOCK_FTEST_PATTERN] = "pattern",
	[RDMALOCK_FTEST_FAA_STORM] = "faa-storm",
	[RDMALOCK_FTEST_CAS_PINGPONG] = "cas-pingpong",
	[RDMALOCK_FTEST_READ] = "read",
	[RDMALOCK_FTEST_INVALIDATE] = "invalidate",
};

static const char * const view_states[] = {
	[RDMALOCK_VIEW_OUT] = "out",
	[RDMALOCK_VIEW_CHANGING] = "changing",
	[RDMALOCK_VIEW_MEMBER] = "member",
};

static const char * const peer_states[] = {
	[RDMALOCK_PEER_DOWN] = "down",
	[RDMALOCK_PEER_CONNECTING] = "connecting",
	[RDMALOCK_PEER_UP] = "up",
};

const char * const verb_names[RDMALOCK_VERB_MAX] = {
	[RDMALOCK_VERB_READ] = "read",
	[RDMALOCK_VERB_WRITE] = "write",
	[RDMALOCK_VERB_CAS] = "cas",
	[RDMALOCK_VERB_FAA] = "faa",
	[RDMALOCK_VERB_SEND] = "send",
	[RDMALOCK_VERB_RECV] = "recv",
	[RDMALOCK_VERB_WRITE_IMM] = "write_imm",
};

/* The index of @name in @names, or 0 (never a valid value) if absent. */
static unsigned int lookup(const char * const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return i;
	return 0;
}

static const char *name_of(const char * const *names, size_t n, unsigned int i)
{
	return i < n && names[i] ? names[i] : "?";
}

static int parse_addr(const char *s, struct rdmalock_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->addr) == 1) {
		a->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->addr) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	fprintf(stderr, "rdmalockctl: bad address '%s'\n", s);
	return -1;
}

static int parse_nodes(char *list, struct rdmalock_domain_create *req)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (req->num_nodes == RDMALOCK_MAX_NODES) {
			fprintf(stderr, "rdmalockctl: more than %d nodes\n",
				RDMALOCK_MAX_NODES);
			return -1;
		}
		if (parse_addr(tok, &req->nodes[req->num_nodes]))
			return -1;
		req->num_nodes++;
	}
	return 0;
}

/*
 * Reads a domain key: the file's bytes as they are, RDMALOCK_KEY_MIN to
 * RDMALOCK_KEY_MAX of them (head -c 32 /dev/urandom makes one).
 */
static int read_key(const char *path, unsigned char *key, __u32 *len)
{
	ssize_t n, more = 0;
	char c;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "rdmalockctl: %s: %s\n", path, strerror(errno));
		return -1;
	}
	n = read(fd, key, RDMALOCK_KEY_MAX);
	if (n == RDMALOCK_KEY_MAX)
		more = read(fd, &c, 1);
	close(fd);
	if (n < 0) {
		fprintf(stderr, "rdmalockctl: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (n < RDMALOCK_KEY_MIN || more) {
		fprintf(stderr, "rdmalockctl: %s: a key is %d to %d bytes\n", path,
			RDMALOCK_KEY_MIN, RDMALOCK_KEY_MAX);
		return -1;
	}
	*len = n;
	return 0;
}

static int domain_create(int argc, char **argv)
{
	static const struct option options[] = {
		{ "node-id", required_argument, NULL, 'i' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "port", required_argument, NULL, 'p' },
		{ "algo", required_argument, NULL, 'a' },
		{ "locks-per-node", required_argument, NULL, 'k' },
		{ "descriptors", required_argument, NULL, 'D' },
		{ "atomics", required_argument, NULL, 'x' },
		{ "budget-local", required_argument, NULL, 'b' },
		{ "budget-remote", required_argument, NULL, 'B' },
		{ "lease-ms", required_argument, NULL, 'l' },
		{ "writer-batch", required_argument, NULL, 'w' },
		{ "writer-cas", required_argument, NULL, 'c' },
		{ "key-file", required_argument, NULL, 'K' },
		{ "insecure", no_argument, NULL, 'I' },
		{ "lease-recovery", no_argument, NULL, 'L' },
		{ "named", no_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};
	struct rdmalock_domain_create req = {
		.size = sizeof(req),
		.algo = RDMALOCK_ALGO_ALOCK,
		.locks_per_node = 1024,
	};
	unsigned char key[RDMALOCK_KEY_MAX];
	const char *key_file = NULL;
	unsigned int port = 0;
	int opt, fd, ret, have_id = 0;

	optind = 0;	/* glibc: start a new scan */
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			if (parse_u32(optarg, "node id", RDMALOCK_MAX_NODES - 1, &req.node_id))
				return EXIT_USAGE;
			have_id = 1;
			break;
		case 'n':
			if (parse_nodes(optarg, &req))
				return EXIT_USAGE;
			break;
		case 'p':
			if (parse_u32(optarg, "port", 65535, &port))
				return EXIT_USAGE;
			req.port = port;
			break;
		case 'a':
			req.algo = lookup(algo_names, ARRAY_SIZE(algo_names), optarg);
			if (!req.algo) {
				fprintf(stderr, "rdmalockctl: unknown algorithm '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'k':
			if (parse_u32(optarg, "locks per node",
				      RDMALOCK_MAX_LOCKS_PER_NODE, &req.locks_per_node))
				return EXIT_USAGE;
			break;
		case 'D':
			if (parse_u32(optarg, "descriptors", RDMALOCK_MAX_DESCRIPTORS,
				      &req.descriptors))
				return EXIT_USAGE;
			break;
		case 'x':
			/* "auto" is 0, which lookup() cannot tell from absent. */
			if (!strcmp(optarg, "auto")) {
				req.atomics = RDMALOCK_ATOMICS_AUTO;
				break;
			}
			req.atomics = lookup(atomics_names, ARRAY_SIZE(atomics_names), optarg);
			if (!req.atomics) {
				fprintf(stderr, "rdmalockctl: unknown atomics mode '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'b':
			if (parse_u32(optarg, "local budget", RDMALOCK_ALOCK_BUDGET_MAX,
				      &req.budget_local))
				return EXIT_USAGE;
			break;
		case 'B':
			if (parse_u32(optarg, "remote budget", RDMALOCK_ALOCK_BUDGET_MAX,
				      &req.budget_remote))
				return EXIT_USAGE;
			break;
		case 'l':
			if (parse_u32(optarg, "lease", RDMALOCK_LEASE_MS_MAX,
				      &req.lease_ms))
				return EXIT_USAGE;
			break;
		case 'w':
			if (parse_u32(optarg, "writer batch", RDMALOCK_SHIFTLOCK_WRITERS_MAX,
				      &req.writer_batch))
				return EXIT_USAGE;
			break;
		case 'c':
			if (!strcmp(optarg, "only")) {
				req.writer_cas = RDMALOCK_SHIFTLOCK_WRITER_CAS_ONLY;
				break;
			}
			if (parse_u32(optarg, "writer CAS", RDMALOCK_SHIFTLOCK_WRITER_CAS_MAX,
				      &req.writer_cas))
				return EXIT_USAGE;
			break;
		case 'K':
			key_file = optarg;
			break;
		case 'L':
			req.flags |= RDMALOCK_DOMAIN_F_LEASE_RECOVERY;
			break;
		case 'I':
			req.flags |= RDMALOCK_DOMAIN_F_INSECURE;
			break;
		case 'N':
			req.flags |= RDMALOCK_DOMAIN_F_NAMED;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (!key_file == !(req.flags & RDMALOCK_DOMAIN_F_INSECURE)) {
		fprintf(stderr, "rdmalockctl: domain create needs either --key-file F or %s\n",
			"--insecure (anyone who reaches the port may join)");
		return EXIT_USAGE;
	}
	if (optind != argc - 1 || !have_id || !req.num_nodes) {
		fprintf(stderr, "rdmalockctl: domain create needs NAME, --node-id I and %s\n",
			"--nodes ADDR,...");
		return EXIT_USAGE;
	}
	if (copy_name(req.name, argv[optind]))
		return EXIT_USAGE;

	if (key_file) {
		if (read_key(key_file, key, &req.key_len))
			return 1;
		req.key = (unsigned long)key;
	}

	fd = open_device();
	ret = fd < 0 ? -1 : do_ioctl(fd, RDMALOCK_IOC_DOMAIN_CREATE, &req, "domain create");
	if (fd >= 0)
		close(fd);
	explicit_bzero(key, sizeof(key));
	return ret ? 1 : 0;
}

static int domain_destroy(const char *name)
{
	struct rdmalock_domain_name req = { .size = sizeof(req) };
	int fd, ret;

	if (copy_name(req.name, name))
		return EXIT_USAGE;
	fd = open_device();
	if (fd < 0)
		return 1;
	ret = do_ioctl(fd, RDMALOCK_IOC_DOMAIN_DESTROY, &req, "domain destroy");
	close(fd);
	return ret ? 1 : 0;
}

/* A cluster manager stopped NODE: the survivors need not wait its lease out. */
static int domain_fence_ack(const char *name, const char *node)
{
	struct rdmalock_fence_ack req = { .size = sizeof(req) };
	int fd, ret;

	if (copy_name(req.name, name) ||
	    parse_u32(node, "node", RDMALOCK_MAX_NODES - 1, &req.node))
		return EXIT_USAGE;
	fd = open_device();
	if (fd < 0)
		return 1;
	ret = do_ioctl(fd, RDMALOCK_IOC_FENCE_ACK, &req, "domain fence-ack");
	close(fd);
	return ret ? 1 : 0;
}

static int domain_list(void)
{
	char names[RDMALOCK_MAX_DOMAINS][RDMALOCK_NAME_MAX];
	struct rdmalock_domain_list req = {
		.size = sizeof(req),
		.names = (unsigned long)names,
		.max_names = RDMALOCK_MAX_DOMAINS,
	};
	unsigned int i;
	int fd = open_device();

	if (fd < 0 || do_ioctl(fd, RDMALOCK_IOC_DOMAIN_LIST, &req, "domain list"))
		return 1;
	close(fd);
	for (i = 0; i < req.num_names && i < req.max_names; i++)
		printf("%.*s\n", RDMALOCK_NAME_MAX, names[i]);
	return 0;
}

static void print_peer(const struct rdmalock_peer_status *p, unsigned int self)
{
	unsigned int v;

	printf("  node %u%s: %s, qp %u, connected %u times\n", p->node_id,
	       p->node_id == self ? " (self, loopback)" : "",
	       name_of(peer_states, ARRAY_SIZE(peer_states), p->state),
	       p->qp_num, p->connects);
	for (v = 0; v < RDMALOCK_VERB_MAX; v++) {
		const struct rdmalock_verb_stats *s = &p->verbs[v];

		if (!s->posted)
			continue;
		printf("    %-9s posted %llu completed %llu failed %llu bytes %llu\n",
		       verb_names[v], (unsigned long long)s->posted,
		       (unsigned long long)s->completed,
		       (unsigned long long)s->failed, (unsigned long long)s->bytes);
	}
}

/*
 * This node's membership view of the domain: 1 when @v holds it, 0 when
 * the module is from before views and does not know the command
 * (ENOTTY), -1 on any other error, which is printed.
 */
static int get_view(int fd, const char *name, struct rdmalock_domain_view *v)
{
	memset(v, 0, sizeof(*v));
	v->size = sizeof(*v);
	if (copy_name(v->name, name))
		return -1;
	if (ioctl(fd, RDMALOCK_IOC_DOMAIN_VIEW, v) == 0)
		return 1;
	if (errno == ENOTTY)
		return 0;
	fprintf(stderr, "rdmalockctl: domain view: %s\n", strerror(errno));
	return -1;
}

static void print_view(const struct rdmalock_domain_view *v)
{
	const char *sep = "";
	unsigned int n;

	printf("view: epoch %llu, members ", (unsigned long long)v->epoch);
	if (!v->members)
		printf("none");
	for (n = 0; n < 8 * sizeof(v->members); n++) {
		if (!(v->members & (1ULL << n)))
			continue;
		printf("%s%u", sep, n);
		sep = ",";
	}
	printf(", coordinator %u; this node: %s; ", v->coordinator,
	       name_of(view_states, ARRAY_SIZE(view_states), v->state));
	printf("%llu view changes, %llu fences, ", (unsigned long long)v->view_changes,
	       (unsigned long long)v->fences);
	if (v->lease_ms)
		printf("lease %u ms\n", v->lease_ms);
	else
		printf("lease off\n");
}

static int domain_status(const char *name)
{
	struct rdmalock_domain_status st = { .size = sizeof(st) };
	struct rdmalock_domain_view v;
	unsigned int i;
	int fd, have_view;

	if (copy_name(st.name, name))
		return EXIT_USAGE;
	fd = open_device();
	if (fd < 0 || do_ioctl(fd, RDMALOCK_IOC_DOMAIN_STATUS, &st, "domain status"))
		return 1;
	have_view = get_view(fd, name, &v);
	close(fd);
	if (have_view < 0)
		return 1;
	printf("domain %s: node %u of %u, algo %s, %s atomics, ",
	       st.name, st.node_id, st.num_nodes,
	       name_of(algo_names, ARRAY_SIZE(algo_names), st.algo),
	       name_of(atomics_names, ARRAY_SIZE(atomics_names), st.atomics));
	printf("%u locks per node, port %u, %u bytes exposed, %s\n",
	       st.locks_per_node, st.port, st.region_len,
	       st.auth == RDMALOCK_AUTH_KEY ? "peers prove the key" :
	       "INSECURE: no key, anyone may join");
	if (st.named)
		printf("named locks: %u homed here in use, %u referenced by this node\n",
		       st.names_used, st.names_cached);
	for (i = 0; i < st.num_nodes && i < RDMALOCK_MAX_NODES; i++)
		print_peer(&st.peers[i], st.node_id);
	if (have_view)
		print_view(&v);
	return 0;
}

int cmd_domain(int argc, char **argv)
{
	const char *sub = argv[1];

	if (!strcmp(sub, "create"))
		return domain_create(argc - 1, argv + 1);
	if (!strcmp(sub, "destroy") && argc == 3)
		return domain_destroy(argv[2]);
	if (!strcmp(sub, "list") && argc == 2)
		return domain_list();
	if (!strcmp(sub, "status") && argc == 3)
		return domain_status(argv[2]);
	if (!strcmp(sub, "fence-ack") && argc == 4)
		return domain_fence_ack(argv[2], argv[3]);
	fprintf(stderr, "rdmalockctl: domain create|destroy NAME|list|status NAME|%s\n",
		"fence-ack NAME NODE");
	return EXIT_USAGE;
}

int cmd_fabric_test(int argc, char **argv)
{
	static const struct option options[] = {
		{ "target", required_argument, NULL, 't' },
		{ "threads", required_argument, NULL, 'T' },
		{ "iterations", required_argument, NULL, 'm' },
		{ "word", required_argument, NULL, 'w' },
		{ "async", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	struct rdmalock_fabric_test req = {
		.size = sizeof(req),
		.threads = 1,
		.iterations = 1,
	};
	int opt, fd, ret, have_target = 0;

	optind = 0;	/* glibc: start a new scan */
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (parse_u32(optarg, "target", RDMALOCK_MAX_NODES - 1, &req.target))
				return EXIT_USAGE;
			have_target = 1;
			break;
		case 'T':
			if (parse_u32(optarg, "threads", 64, &req.threads))
				return EXIT_USAGE;
			break;
		case 'm':
			if (parse_u32(optarg, "iterations", 1000000, &req.iterations))
				return EXIT_USAGE;
			break;
		case 'w':
			if (parse_u32(optarg, "word", 7, &req.word))
				return EXIT_USAGE;
			break;
		case 'A':
			req.flags |= RDMALOCK_FTEST_F_ASYNC;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 2 || !have_target) {
		fprintf(stderr, "rdmalockctl: fabric-test NAME OP --target N is required\n");
		return EXIT_USAGE;
	}
	if (copy_name(req.name, argv[optind]))
		return EXIT_USAGE;
	req.op = lookup(ftest_names, ARRAY_SIZE(ftest_names), argv[optind + 1]);
	if (!req.op) {
		fprintf(stderr, "rdmalockctl: unknown fabric test '%s'\n", argv[optind + 1]);
		return EXIT_USAGE;
	}

	fd = open_device();
	if (fd < 0)
		return 1;
	ret = do_ioctl(fd, RDMALOCK_IOC_FABRIC_TEST, &req, "fabric-test");
	close(fd);
	if (ret)
		return 1;
	printf("%s on node %u: done %llu errors %llu value %llu\n",
	       ftest_names[req.op], req.target, (unsigned long long)req.done,
	       (unsigned long long)req.errors, (unsigned long long)req.value);
	if (req.errors) {
		fprintf(stderr, "rdmalockctl: fabric-test: %llu operations failed, first: %s\n",
			(unsigned long long)req.errors, strerror(-req.first_error));
		return 1;
	}
	return 0;
}

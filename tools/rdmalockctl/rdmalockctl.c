// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalockctl: configure and inspect rdmalock through /dev/rdmalock.
 *
 * Exit status: 0 on success, 1 when the kernel refused or failed the
 * request (the errno is printed), 2 on a usage error.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "rdmalockctl.h"

static const char *device_path = RDMALOCK_DEVICE_PATH;

static void print_usage(FILE *out)
{
	fprintf(out,
		"usage: rdmalockctl [-d DEVICE] COMMAND [ARGS]\n"
		"\n"
		"commands:\n"
		"  version   ABI version and features of the loaded module\n"
		"  status    RDMA devices (port state, atomics) and lock domains\n"
		"  domain create NAME --node-id I --nodes ADDR0,ADDR1,...\n"
		"                --key-file F | --insecure\n"
		"                [--port P] [--algo ALGO] [--locks-per-node K]\n"
		"                [--descriptors D] [--atomics auto|native|emulated]\n"
		"                [--budget-local N] [--budget-remote N]\n"
		"                [--lease-ms MS] [--writer-batch N] [--writer-cas N|only]\n"
		"                [--lease-recovery] [--named]\n"
		"            ALGO: alock|cas|mcs|shiftlock|dslr|test-none|test-mixed\n"
		"            F: the domain's key, 16 to 64 bytes, the same file on\n"
		"            every node; --insecure: no key, anyone may join;\n"
		"            --lease-recovery (shiftlock, dslr): a holder slower\n"
		"            than the lease loses its lock, as in the paper, instead\n"
		"            of recovery by membership; --named: each lock name (an\n"
		"            id is its 8 big-endian bytes) gets a slot of its own\n"
		"  domain destroy NAME\n"
		"  domain list\n"
		"  domain status NAME\n"
		"            the domain, each node's connection and verb counters,\n"
		"            and this node's membership view (epoch, members, lease)\n"
		"  domain fence-ack NAME NODE\n"
		"            a cluster manager has stopped NODE (powered off): the\n"
		"            survivors recover its locks without waiting its lease\n"
		"  fabric-test NAME pattern|faa-storm|cas-pingpong|read|invalidate\n"
		"                --target N [--threads T] [--iterations M] [--word W]\n"
		"                [--async]\n"
		"  floor NAME --peer N [--samples S]\n"
		"            the fabric's floors: an RDMA CAS to node N and to this\n"
		"            node, a message to N and back, a CPU CAS (S each, 1000)\n"
		"  lock NAME ID [--shared | --mode MODE] [--timeout MS] [--try] [--value]\n"
		"                [--lvb TEXT] [-- CMD [ARGS...]]\n"
		"            hold the lock while CMD runs, or until end of input;\n"
		"            --lock-name TEXT instead of ID (named locks, in every\n"
		"            command that takes an ID): the lock of that name;\n"
		"            MODE: nl, cr, cw, pr (--shared), pw or ex (the default);\n"
		"            --value (named locks): print its fencing token and LVB;\n"
		"            --lvb TEXT: and write TEXT back as its LVB (pw, ex)\n"
		"  session   read lock, convert, unlock, sleep and blocked commands\n"
		"            from stdin, one a line, and run them on one open file:\n"
		"              lock NAME ID [--shared | --mode MODE] [--timeout MS] [--try]\n"
		"                   [--notify]\n"
		"              convert NAME ID MODE [--timeout MS] [--try]\n"
		"              unlock NAME ID\n"
		"              blocked MS   (wait for a --notify lock to block a request:\n"
		"                            ok: NAME ID ex|sh)\n"
		"              sleep MS\n"
		"  torture NAME [--threads T] [--duration MS] [--locks N] [--local PCT]\n"
		"                [--read PCT] [--zipf THETA] [--counts FILE]\n"
		"                [--cache | --deaf | --async | --convert | --convert-gap]\n"
		"  bench NAME [the options of torture, but the caching ones]\n"
		"  counters NAME --locks N [--counts FILE]\n"
		"  counters-reset NAME --locks N\n"
		"\n"
		"options:\n"
		"  -d, --device PATH   control device (default %s)\n"
		"  -h, --help          this text\n",
		RDMALOCK_DEVICE_PATH);
}

int open_device(void)
{
	int fd = open(device_path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "rdmalockctl: %s: %s%s\n", device_path,
			strerror(errno),
			errno == ENOENT ? " (is rdmalock.ko loaded?)" : "");
	return fd;
}

int do_ioctl(int fd, unsigned long cmd, void *arg, const char *what)
{
	if (ioctl(fd, cmd, arg) == 0)
		return 0;
	fprintf(stderr, "rdmalockctl: %s: %s\n", what, strerror(errno));
	return -1;
}

int parse_u64(const char *s, const char *what, unsigned long long min,
	      unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	/* strtoull() would take " -1" as ULLONG_MAX: only digits may lead. */
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || !isdigit((unsigned char)*s) || v < min || v > max) {
		fprintf(stderr, "rdmalockctl: bad %s '%s' (%llu to %llu)\n", what, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int parse_u32_range(const char *s, const char *what, unsigned int min, unsigned int max,
		    unsigned int *out)
{
	unsigned long long v;

	if (parse_u64(s, what, min, max, &v))
		return -1;
	*out = v;
	return 0;
}

int parse_u32(const char *s, const char *what, unsigned int max, unsigned int *out)
{
	return parse_u32_range(s, what, 0, max, out);
}

int copy_name(char *dst, const char *name)
{
	if (strlen(name) >= RDMALOCK_NAME_MAX) {
		fprintf(stderr, "rdmalockctl: name '%s' is longer than %d characters\n",
			name, RDMALOCK_NAME_MAX - 1);
		return -1;
	}
	memcpy(dst, name, strlen(name) + 1);
	return 0;
}

static const char *port_state_name(unsigned int state)
{
	static const char * const names[] = {
		[RDMALOCK_PORT_NOP] = "NOP",
		[RDMALOCK_PORT_DOWN] = "DOWN",
		[RDMALOCK_PORT_INIT] = "INIT",
		[RDMALOCK_PORT_ARMED] = "ARMED",
		[RDMALOCK_PORT_ACTIVE] = "ACTIVE",
		[RDMALOCK_PORT_ACTIVE_DEFER] = "ACTIVE_DEFER",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "?";
}

static const char *phys_state_name(unsigned int state)
{
	static const char * const names[] = {
		[1] = "Sleep",
		[2] = "Polling",
		[3] = "Disabled",
		[4] = "Training",
		[5] = "LinkUp",
		[6] = "LinkErrorRecovery",
		[7] = "PhyTest",
	};

	return state < ARRAY_SIZE(names) && names[state] ? names[state] : "?";
}

static const char *link_layer_name(unsigned int ll)
{
	switch (ll) {
	case RDMALOCK_LINK_INFINIBAND:
		return "InfiniBand";
	case RDMALOCK_LINK_ETHERNET:
		return "Ethernet";
	default:
		return "unspecified";
	}
}

static const char *atomic_cap_name(unsigned int cap)
{
	switch (cap) {
	case RDMALOCK_ATOMIC_HCA:
		return "HCA";
	case RDMALOCK_ATOMIC_GLOB:
		return "GLOB";
	default:
		return "none";
	}
}

static int cmd_version(int argc, char **argv)
{
	struct rdmalock_version v = { .size = sizeof(v) };
	int fd = open_device();

	(void)argc;
	(void)argv;
	if (fd < 0 || do_ioctl(fd, RDMALOCK_IOC_VERSION, &v, "VERSION"))
		return 1;
	close(fd);
	printf("module ABI %u, rdmalockctl ABI %u\n", v.abi_version,
	       RDMALOCK_ABI_VERSION);
	printf("features:%s%s%s%s%s%s%s%s%s%s%s%s\n",
	       v.features & RDMALOCK_FEAT_DEVICE_STATUS ? " device-status" : "",
	       v.features & RDMALOCK_FEAT_DOMAINS ? " domains" : "",
	       v.features & RDMALOCK_FEAT_DOMAIN_KEY ? " domain-key" : "",
	       v.features & RDMALOCK_FEAT_FLOOR ? " floor" : "",
	       v.features & RDMALOCK_FEAT_VIEW ? " view" : "",
	       v.features & RDMALOCK_FEAT_FENCE ? " fence" : "",
	       v.features & RDMALOCK_FEAT_NAMED ? " named" : "",
	       v.features & RDMALOCK_FEAT_RUN_CACHE ? " run-cache" : "",
	       v.features & RDMALOCK_FEAT_MODES ? " modes" : "",
	       v.features & RDMALOCK_FEAT_NOTIFY ? " notify" : "",
	       v.features & RDMALOCK_FEAT_LOCK_NAMES ? " lock-names" : "",
	       v.features & RDMALOCK_FEAT_FENCED ? " fenced" : "");
	if (v.abi_version != RDMALOCK_ABI_VERSION) {
		fprintf(stderr, "rdmalockctl: ABI mismatch; rebuild the tool\n");
		return 1;
	}
	return 0;
}

static void print_device(const struct rdmalock_device_info *d)
{
	unsigned long long g = d->node_guid;
	unsigned int p, nports;

	printf("  %s  guid %04llx:%04llx:%04llx:%04llx  atomics %s  ports %u\n",
	       d->name, g >> 48, (g >> 32) & 0xffff, (g >> 16) & 0xffff,
	       g & 0xffff, atomic_cap_name(d->atomic_cap), d->num_ports);
	nports = d->num_ports < RDMALOCK_MAX_PORTS ? d->num_ports : RDMALOCK_MAX_PORTS;
	for (p = 0; p < nports; p++) {
		const struct rdmalock_port_info *pi = &d->ports[p];

		printf("    port %u: %s (%s) %s mtu %u\n", pi->port_num,
		       port_state_name(pi->state), phys_state_name(pi->phys_state),
		       link_layer_name(pi->link_layer), pi->active_mtu);
	}
}

static int cmd_status(int argc, char **argv)
{
	struct rdmalock_device_info devs[RDMALOCK_MAX_DEVICES];
	struct rdmalock_status s = {
		.size = sizeof(s),
		.devices = (unsigned long)devs,
		.max_devices = RDMALOCK_MAX_DEVICES,
	};
	unsigned int i, n;
	int fd = open_device();

	(void)argc;
	(void)argv;
	if (fd < 0 || do_ioctl(fd, RDMALOCK_IOC_STATUS, &s, "STATUS"))
		return 1;
	close(fd);
	n = s.num_devices < s.max_devices ? s.num_devices : s.max_devices;
	printf("devices: %u\n", s.num_devices);
	for (i = 0; i < n; i++)
		print_device(&devs[i]);
	if (n < s.num_devices)
		printf("  (%u more not shown)\n", s.num_devices - n);
	printf("domains: %u\n", s.num_domains);
	return 0;
}

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	int min_args;
	int max_args;
} commands[] = {
	{ "version", cmd_version, 0, 0 },
	{ "status", cmd_status, 0, 0 },
	{ "domain", cmd_domain, 1, 64 },
	{ "fabric-test", cmd_fabric_test, 2, 64 },
	{ "floor", cmd_floor, 1, 64 },
	{ "lock", cmd_lock, 2, INT_MAX },
	{ "session", cmd_session, 0, 0 },
	{ "torture", cmd_run, 1, 64 },
	{ "bench", cmd_run, 1, 64 },
	{ "counters", cmd_run, 1, 64 },
	{ "counters-reset", cmd_run, 1, 64 },
};

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd = NULL;
	size_t i;
	int opt;

	while ((opt = getopt_long(argc, argv, "+d:h", options, NULL)) != -1) {
		switch (opt) {
		case 'd':
			device_path = optarg;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[optind], commands[i].name))
			cmd = &commands[i];
	if (!cmd) {
		fprintf(stderr, "rdmalockctl: unknown command '%s'\n", argv[optind]);
		print_usage(stderr);
		return EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	if (argc - 1 < cmd->min_args || argc - 1 > cmd->max_args) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	return cmd->run(argc, argv);
}

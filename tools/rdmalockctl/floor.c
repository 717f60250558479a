// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalockctl floor: the fabric's floors on a domain (RDMALOCK_IOC_FLOOR),
 * printed as a table: one line per floor, its median and 99th percentile
 * in microseconds and the samples taken.
 */
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "rdmalockctl.h"

/* Names of RDMALOCK_FLOOR_*, as the table prints them. */
static const char * const floor_names[RDMALOCK_FLOOR_KINDS] = {
	[RDMALOCK_FLOOR_REMOTE_CAS] = "remote_cas",
	[RDMALOCK_FLOOR_LOOPBACK_CAS] = "loopback_cas",
	[RDMALOCK_FLOOR_MESSAGE] = "message",
	[RDMALOCK_FLOOR_CPU_CAS] = "cpu_cas",
};

static int parse_floor_args(int argc, char **argv, struct rdmalock_floor *req)
{
	static const struct option options[] = {
		{ "peer", required_argument, NULL, 'p' },
		{ "samples", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, have_peer = 0;

	optind = 0;	/* glibc: start a new scan */
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (parse_u32(optarg, "peer", RDMALOCK_MAX_NODES - 1,
				      &req->peer))
				return -1;
			have_peer = 1;
			break;
		case 's':
			if (parse_u32_range(optarg, "samples", 1,
					    RDMALOCK_FLOOR_MAX_SAMPLES, &req->samples))
				return -1;
			break;
		default:
			return -1;
		}
	}
	if (optind != argc - 1 || !have_peer) {
		fprintf(stderr, "rdmalockctl: floor needs NAME and --peer N\n");
		return -1;
	}
	return copy_name(req->name, argv[optind]);
}

int cmd_floor(int argc, char **argv)
{
	struct rdmalock_floor req = { .size = sizeof(req), .samples = 1000 };
	unsigned int k;
	int fd;

	if (parse_floor_args(argc, argv, &req))
		return EXIT_USAGE;
	fd = open_device();
	if (fd < 0)
		return 1;
	if (do_ioctl(fd, RDMALOCK_IOC_FLOOR, &req, "floor")) {
		close(fd);
		return 1;
	}
	close(fd);
	printf("%-13s %10s %10s %8s\n", "floor", "p50_us", "p99_us", "samples");
	for (k = 0; k < RDMALOCK_FLOOR_KINDS; k++)
		printf("%-13s %10.3f %10.3f %8llu\n", floor_names[k],
		       req.p50_ns[k] / 1000.0, req.p99_ns[k] / 1000.0,
		       (unsigned long long)req.done[k]);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * roarg: issue an rdmalock command whose argument is in a read-only page,
 * which the kernel can read but not write back, and check the rule that
 * a command that fails has had no effect: the domain it creates, or the
 * lock it takes, exists exactly when it returned 0. Each is undone at
 * once, with its argument in ordinary memory, and the undoing must
 * succeed exactly when the command did.
 *
 * usage: roarg create NAME ADDR PORT	a one-node keyless domain on IPv4 ADDR
 *        roarg lock NAME ID		a trylock on an open file
 *
 * Exit status 0 when the rule holds, 1 when it does not, 2 for a usage
 * or setup error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/rdmalock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

/* A read-only copy of @arg, in a page of its own. */
static void *read_only(const void *arg, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, arg, len);
	if (mprotect(p, page, PROT_READ))
		return NULL;
	return p;
}

static int issue(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static int bad_usage(void)
{
	fprintf(stderr, "usage: roarg create NAME ADDR PORT | roarg lock NAME ID\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct rdmalock_domain_create c = { .size = sizeof(c) };
	struct rdmalock_domain_name d = { .size = sizeof(d) };
	struct rdmalock_lock_req r = { .size = sizeof(r) };
	int fd, done, undone;
	void *ro;

	if (argc < 4 || strlen(argv[2]) >= RDMALOCK_NAME_MAX)
		return bad_usage();
	fd = open(RDMALOCK_DEVICE_PATH, O_RDWR);
	if (fd < 0) {
		perror(RDMALOCK_DEVICE_PATH);
		return 2;
	}
	if (!strcmp(argv[1], "create") && argc == 5) {
		snprintf(c.name, sizeof(c.name), "%s", argv[2]);
		c.num_nodes = 1;
		c.flags = RDMALOCK_DOMAIN_F_INSECURE;
		c.algo = RDMALOCK_ALGO_CAS;
		c.locks_per_node = 64;
		c.port = atoi(argv[4]);
		c.nodes[0].family = AF_INET;
		if (inet_pton(AF_INET, argv[3], c.nodes[0].addr) != 1)
			return bad_usage();
		snprintf(d.name, sizeof(d.name), "%s", argv[2]);
		ro = read_only(&c, sizeof(c));
		if (!ro)
			return 2;
		done = issue(fd, RDMALOCK_IOC_DOMAIN_CREATE, ro);
		undone = issue(fd, RDMALOCK_IOC_DOMAIN_DESTROY, &d);
	} else if (!strcmp(argv[1], "lock") && argc == 4) {
		snprintf(r.name, sizeof(r.name), "%s", argv[2]);
		r.id = strtoull(argv[3], NULL, 0);
		r.flags = RDMALOCK_LOCK_F_TRY;
		ro = read_only(&r, sizeof(r));
		if (!ro)
			return 2;
		done = issue(fd, RDMALOCK_IOC_LOCK, ro);
		r.flags = 0;
		undone = issue(fd, RDMALOCK_IOC_UNLOCK, &r);
	} else {
		return bad_usage();
	}
	printf("%s with a read-only argument: %s; undoing it: %s\n", argv[1],
	       strerror(-done), strerror(-undone));
	close(fd);
	return (done == 0) == (undone == 0) ? 0 : 1;
}

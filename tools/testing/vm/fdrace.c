// SPDX-License-Identifier: GPL-2.0
/*
 * fdrace: two threads LOCK the same lock on one open file of
 * /dev/rdmalock while another file holds it, so that both wait. The file
 * may hold or wait for a lock once: whichever comes second must be
 * refused with EDEADLK at once, however the two interleave.
 *
 * usage: rdmalockctl lock NAME ID -- timeout 60 fdrace NAME ID
 *
 * Exit status 0 when the first LOCK to return was refused with EDEADLK,
 * 1 otherwise, 2 for a usage or setup error. Without the refusal both
 * wait for good, and timeout(1) ends them. Exiting ends the LOCK still
 * waiting: its wait is killable.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/rdmalock.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int fd;
static struct rdmalock_lock_req req = {
	.size = sizeof(req),
	.mode = RDMALOCK_MODE_EX,
};

static pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;

static void *lock_once(void *name)
{
	struct rdmalock_lock_req r = req;
	int err = ioctl(fd, RDMALOCK_IOC_LOCK, &r) ? errno : 0;

	pthread_mutex_lock(&first);
	printf("%s: LOCK: %s\n", (char *)name, strerror(err));
	exit(err == EDEADLK ? 0 : 1);
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 3 || strlen(argv[1]) >= RDMALOCK_NAME_MAX) {
		fprintf(stderr, "usage: fdrace NAME ID\n");
		return 2;
	}
	snprintf(req.name, sizeof(req.name), "%s", argv[1]);
	req.id = strtoull(argv[2], NULL, 0);
	fd = open(RDMALOCK_DEVICE_PATH, O_RDWR);
	if (fd < 0) {
		perror(RDMALOCK_DEVICE_PATH);
		return 2;
	}
	if (pthread_create(&t, NULL, lock_once, "thread")) {
		fprintf(stderr, "fdrace: pthread_create failed\n");
		return 2;
	}
	lock_once("main");
	return 2;
}

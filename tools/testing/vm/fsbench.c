// SPDX-License-Identifier: GPL-2.0
/*
 * fsbench: the filesystem operations of the GFS2 benchmark, timed here
 * rather than by a shell that forks per file:
 *
 *   fsbench create DIR COUNT    creates COUNT new empty files in DIR
 *   fsbench stat DIR PASSES     lists DIR and stats each entry, PASSES
 *                               times
 *   fsbench append FILE SECONDS opens FILE, appends a line and closes it,
 *                               again and again, for SECONDS
 *
 * Each prints "OPERATION OPS SECONDS", SECONDS to the microsecond, and
 * exits non-zero on the first failing call.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "fsbench: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

static int create_files(const char *dir, long count, long *done)
{
	char path[4096];
	int fd;

	for (*done = 0; *done < count; (*done)++) {
		snprintf(path, sizeof(path), "%s/f%ld", dir, *done);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			return fail("create", path);
		close(fd);
	}
	return 0;
}

/* One listing of @dir with a stat of each entry; adds the stats to @done. */
static int stat_listing(const char *dir, long *done)
{
	char path[4096];
	struct dirent *de;
	struct stat st;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return fail("opendir", dir);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st)) {
			closedir(d);
			return fail("stat", path);
		}
		(*done)++;
	}
	closedir(d);
	return 0;
}

static int append_line(const char *file, long *done)
{
	static const char line[] = "fsbench\n";
	int fd;

	fd = open(file, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd < 0)
		return fail("open", file);
	if (write(fd, line, sizeof(line) - 1) != sizeof(line) - 1) {
		close(fd);
		return fail("write", file);
	}
	close(fd);
	(*done)++;
	return 0;
}

int main(int argc, char **argv)
{
	double start, end;
	long arg, done = 0;
	int ret = 0;

	arg = argc == 4 ? strtol(argv[3], NULL, 10) : 0;
	if (arg <= 0) {
		fprintf(stderr,
			"usage: fsbench create DIR COUNT | stat DIR PASSES | append FILE SECONDS\n");
		return 2;
	}
	start = now();
	end = start + arg;
	if (!strcmp(argv[1], "create")) {
		ret = create_files(argv[2], arg, &done);
	} else if (!strcmp(argv[1], "stat")) {
		while (!ret && arg--)
			ret = stat_listing(argv[2], &done);
	} else if (!strcmp(argv[1], "append")) {
		while (!ret && now() < end)
			ret = append_line(argv[2], &done);
	} else {
		fprintf(stderr, "fsbench: no operation %s\n", argv[1]);
		return 2;
	}
	if (!ret)
		printf("%s %ld %.6f\n", argv[1], done, now() - start);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * rdmalockctl: taking locks, and the torture and benchmark runs.
 *
 * Locks belong to the open file of /dev/rdmalock, so lock and session
 * keep theirs open for as long as the locks are to be held; closing it,
 * or exiting, releases whatever is still held.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rdmalockctl.h"

/* Most words a line of a session may have. */
#define SESSION_MAX_WORDS	16

/* The lock command's value options. */
struct value_opts {
	int value;		/* --value or --lvb: read the lock's value */
	const char *lvb;	/* --lvb TEXT: the LVB to write back */
};

/* DLM's names of the modes, indexed by RDMALOCK_MODE_*. */
static const char *const mode_names[RDMALOCK_MODES] = {
	[RDMALOCK_MODE_EX] = "ex",
	[RDMALOCK_MODE_PR] = "pr",
	[RDMALOCK_MODE_NL] = "nl",
	[RDMALOCK_MODE_CR] = "cr",
	[RDMALOCK_MODE_CW] = "cw",
	[RDMALOCK_MODE_PW] = "pw",
};

static int parse_mode(const char *s, __u32 *mode)
{
	__u32 m;

	for (m = 0; m < RDMALOCK_MODES; m++) {
		if (!strcmp(s, mode_names[m])) {
			*mode = m;
			return 0;
		}
	}
	fprintf(stderr, "rdmalockctl: bad mode '%s' (nl, cr, cw, pr, pw or ex)\n", s);
	return -1;
}

/*
 * Fills @req from "lock NAME ID [--shared | --mode MODE] [--timeout MS]
 * [--try]" (and, with @vo, "[--value] [--lvb TEXT]"; without, "[--notify]"),
 * "convert NAME ID MODE [--timeout MS] [--try]" or "unlock NAME ID" in
 * @argv, options and operands in any order; "--lock-name TEXT" instead of
 * ID names the lock by the bytes of TEXT, in @ln. Prints what is wrong
 * with them.
 */
static int parse_lock_args(int argc, char **argv, struct rdmalock_lock_req *req,
			   struct value_opts *vo, struct rdmalock_lock_name *ln)
{
	int convert = !strcmp(argv[0], "convert");
	int lock = convert || !strcmp(argv[0], "lock");
	unsigned long long id = 0;
	char *operands[3];
	int i, want, n = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--lock-name") && i + 1 < argc && !req->lock_name) {
			/* The module checks the length: it may be too long. */
			ln->len = strlen(argv[++i]);
			memcpy(ln->name, argv[i], ln->len < sizeof(ln->name) ?
			       ln->len : sizeof(ln->name));
			req->lock_name = (uintptr_t)ln;
			continue;
		}
		if (lock && vo && !strcmp(argv[i], "--value")) {
			vo->value = 1;
		} else if (lock && vo && !strcmp(argv[i], "--lvb") && i + 1 < argc) {
			vo->value = 1;
			vo->lvb = argv[++i];
		} else if (lock && !convert && !strcmp(argv[i], "--shared")) {
			req->mode = RDMALOCK_MODE_SH;
		} else if (lock && !convert && !strcmp(argv[i], "--mode") && i + 1 < argc) {
			if (parse_mode(argv[++i], &req->mode))
				return -1;
		} else if (lock && !convert && !vo && !strcmp(argv[i], "--notify")) {
			req->flags |= RDMALOCK_LOCK_F_NOTIFY;
		} else if (lock && !strcmp(argv[i], "--try")) {
			req->flags |= RDMALOCK_LOCK_F_TRY;
		} else if (lock && !strcmp(argv[i], "--timeout") && i + 1 < argc) {
			if (parse_u32(argv[++i], "timeout", UINT_MAX, &req->timeout_ms))
				return -1;
		} else if (strncmp(argv[i], "--", 2) && n < (int)ARRAY_SIZE(operands)) {
			operands[n++] = argv[i];
		} else {
			break;
		}
	}
	want = 2 + convert - !!req->lock_name;
	if (i < argc || n != want) {
		fprintf(stderr, "rdmalockctl: usage: %s NAME {ID | --lock-name TEXT}%s%s%s\n",
			argv[0], convert ? " MODE" : "",
			lock && !convert ? " [--shared | --mode MODE]" : "",
			lock ? " [--timeout MS] [--try]" : "");
		return -1;
	}
	if (copy_name(req->name, operands[0]) ||
	    (!req->lock_name &&
	     parse_u64(operands[1], "lock id", 0, ULLONG_MAX, &id)) ||
	    (convert && parse_mode(operands[want - 1], &req->mode)))
		return -1;
	req->id = id;
	if (convert)
		req->flags |= RDMALOCK_LOCK_F_CONVERT;
	return 0;
}

/* Runs @cmd and waits for it: its exit status, as a shell reports it. */
static int run_holding(char **cmd)
{
	pid_t parent = getpid(), pid;
	int status;

	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rdmalockctl: fork: %s\n", strerror(errno));
		return 1;
	}
	if (!pid) {
		/* The lock goes with the parent: CMD must not run on without it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		execvp(cmd[0], cmd);
		fprintf(stderr, "rdmalockctl: %s: %s\n", cmd[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	/* As system() does: ^C is for CMD, and we unlock after it. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "rdmalockctl: wait: %s\n", strerror(errno));
			return 1;
		}
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void wait_for_eof(void)
{
	char buf[256];
	ssize_t n;

	do
		n = read(STDIN_FILENO, buf, sizeof(buf));
	while (n > 0 || (n < 0 && errno == EINTR));
}

/* The value a grant read: its token, and the LVB as text. */
static void print_value(const struct rdmalock_lock_value *val)
{
	unsigned int i;

	printf("value: token %llu, lvb %s: ", (unsigned long long)val->token,
	       val->flags & RDMALOCK_LVB_F_VALID ? "valid" : "not valid");
	for (i = 0; i < val->lvb_len && val->lvb[i]; i++)
		putchar(val->lvb[i] >= ' ' && val->lvb[i] < 127 ? val->lvb[i] : '.');
	putchar('\n');
}

/* How "locked" and "unlocked" name the lock: its id, or its name. */
static void print_done(const char *what, const struct rdmalock_lock_req *req,
		       const struct rdmalock_lock_name *ln)
{
	if (req->lock_name)
		printf("%s %s %.*s\n", what, req->name, (int)ln->len, ln->name);
	else
		printf("%s %s %llu\n", what, req->name, (unsigned long long)req->id);
}

int cmd_lock(int argc, char **argv)
{
	struct rdmalock_lock_req req = { .size = sizeof(req) };
	struct rdmalock_lock_name ln = {};
	struct rdmalock_lock_value val = { .lvb_len = RDMALOCK_LVB_MAX };
	struct value_opts vo = {};
	char **cmd = NULL;
	int i, fd, ret = 0;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		;
	if (i < argc) {
		cmd = argv + i + 1;
		if (!*cmd) {
			fprintf(stderr, "rdmalockctl: lock: no command after --\n");
			return EXIT_USAGE;
		}
	}
	if (parse_lock_args(i, argv, &req, &vo, &ln))
		return EXIT_USAGE;
	if (vo.lvb && strlen(vo.lvb) > RDMALOCK_LVB_MAX) {
		fprintf(stderr, "rdmalockctl: lock: an LVB is at most %d bytes\n",
			RDMALOCK_LVB_MAX);
		return EXIT_USAGE;
	}
	if (vo.value)
		req.value = (uintptr_t)&val;

	fd = open_device();
	if (fd < 0 || do_ioctl(fd, RDMALOCK_IOC_LOCK, &req, "lock"))
		return 1;
	print_done("locked", &req, &ln);
	if (vo.value)
		print_value(&val);
	fflush(stdout);
	if (cmd)
		ret = run_holding(cmd);
	else
		wait_for_eof();
	req.flags = 0;
	req.timeout_ms = 0;
	req.value = 0;
	if (vo.lvb) {
		memset(val.lvb, 0, sizeof(val.lvb));
		memcpy(val.lvb, vo.lvb, strlen(vo.lvb));
		req.value = (uintptr_t)&val;
	}
	if (do_ioctl(fd, RDMALOCK_IOC_UNLOCK, &req, "unlock"))
		ret = ret ? ret : 1;
	else
		print_done("unlocked", &req, &ln);
	close(fd);
	return ret;
}

/*
 * Splits @line into at most @max words, up to a word that starts with
 * '#'. Returns how many, or -1 if there are more.
 */
static int split_words(char *line, char **words, int max)
{
	static const char blanks[] = " \t\r\n";
	char *save = NULL, *w;
	int n = 0;

	for (w = strtok_r(line, blanks, &save); w && *w != '#';
	     w = strtok_r(NULL, blanks, &save)) {
		if (n == max)
			return -1;
		words[n++] = w;
	}
	return n;
}

static int sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (ms % 1000) * 1000000L,
	};

	while (nanosleep(&ts, &ts))
		if (errno != EINTR)
			return -errno;
	return 0;
}

/*
 * Waits up to @ms for a blocking event of @fd's locks, and describes it
 * in @note: 0, or -ETIMEDOUT, or the -errno of poll or read.
 */
static int session_blocked(int fd, unsigned int ms, char *note, size_t size)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct rdmalock_blocking_event ev;
	int n;

	n = poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms);
	if (n < 0)
		return -errno;
	if (!n)
		return -ETIMEDOUT;
	if (read(fd, &ev, sizeof(ev)) != sizeof(ev))
		return -errno;
	if (ev.lock_name.len)
		snprintf(note, size, "%.*s %.*s %s", RDMALOCK_NAME_MAX, ev.name,
			 (int)ev.lock_name.len, ev.lock_name.name,
			 ev.mode == RDMALOCK_MODE_EX ? "ex" : "sh");
	else
		snprintf(note, size, "%.*s %llu %s", RDMALOCK_NAME_MAX, ev.name,
			 (unsigned long long)ev.id,
			 ev.mode == RDMALOCK_MODE_EX ? "ex" : "sh");
	return 0;
}

/*
 * Runs one command of a session on @fd: 0, or the -errno it failed with.
 * What it has to say goes in @note.
 */
static int session_command(int fd, int argc, char **argv, char *note,
			   size_t size)
{
	struct rdmalock_lock_req req = { .size = sizeof(req) };
	struct rdmalock_lock_name ln = {};
	int lock = !strcmp(argv[0], "lock") || !strcmp(argv[0], "convert");
	unsigned int ms;

	if (lock || !strcmp(argv[0], "unlock")) {
		if (parse_lock_args(argc, argv, &req, NULL, &ln))
			return -EINVAL;
		if (ioctl(fd, lock ? RDMALOCK_IOC_LOCK : RDMALOCK_IOC_UNLOCK, &req))
			return -errno;
		return 0;
	}
	if (!strcmp(argv[0], "sleep") && argc == 2) {
		if (parse_u32(argv[1], "sleep", UINT_MAX, &ms))
			return -EINVAL;
		return sleep_ms(ms);
	}
	if (!strcmp(argv[0], "blocked") && argc == 2) {
		if (parse_u32(argv[1], "blocked", UINT_MAX, &ms))
			return -EINVAL;
		return session_blocked(fd, ms, note, size);
	}
	fprintf(stderr, "rdmalockctl: session: want lock NAME ID [OPTIONS], %s\n",
		"convert NAME ID MODE [OPTIONS], unlock NAME ID, sleep MS or blocked MS");
	return -EINVAL;
}

int cmd_session(int argc, char **argv)
{
	char *words[SESSION_MAX_WORDS], *line = NULL;
	char note[RDMALOCK_NAME_MAX + RDMALOCK_LOCK_NAME_MAX + 32];
	size_t cap = 0;
	int fd, n, err, failed = 0;

	(void)argc;
	(void)argv;
	fd = open_device();
	if (fd < 0)
		return 1;
	while (getline(&line, &cap, stdin) > 0) {
		n = split_words(line, words, SESSION_MAX_WORDS);
		if (!n)
			continue;
		if (n < 0) {
			fprintf(stderr, "rdmalockctl: session: more than %d words\n",
				SESSION_MAX_WORDS);
			err = -EINVAL;
		} else {
			note[0] = '\0';
			err = session_command(fd, n, words, note, sizeof(note));
		}
		if (err)
			printf("error: %s\n", strerror(-err));
		else if (note[0])
			printf("ok: %s\n", note);
		else
			printf("ok\n");
		fflush(stdout);
		failed |= !!err;
	}
	free(line);
	close(fd);
	return failed ? 1 : 0;
}

/* The commands that issue RDMALOCK_IOC_RUN. */
static const struct run_cmd {
	const char *name;
	unsigned int op;
	const char *opts;	/* the options it takes, by their short name */
} run_cmds[] = {
	{ "torture", RDMALOCK_RUN_TORTURE, "TDNLRZCKFAVG" },
	{ "bench", RDMALOCK_RUN_BENCH, "TDNLRZC" },
	{ "counters", RDMALOCK_RUN_COUNTERS, "NC" },
	{ "counters-reset", RDMALOCK_RUN_RESET, "N" },
};

struct run_args {
	struct rdmalock_run req;
	double theta;			/* 0 for a uniform distribution */
	const char *counts_file;	/* NULL: none, or stdout for counters */
};

/* Whether @op runs threads, rather than handling the counters. */
static int op_runs(unsigned int op)
{
	return op == RDMALOCK_RUN_TORTURE || op == RDMALOCK_RUN_BENCH;
}

static int parse_theta(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	/* Written so that NaN fails too. */
	if (errno || end == s || *end || !(v > 0 && v < 10)) {
		fprintf(stderr, "rdmalockctl: bad zipf theta '%s' (0 < theta < 10)\n", s);
		return -1;
	}
	*out = v;
	return 0;
}

/* Fills @a from the command line of @rc; the options @rc does not take are refused. */
static int parse_run_args(int argc, char **argv, const struct run_cmd *rc,
			  struct run_args *a)
{
	static const struct option options[] = {
		{ "threads", required_argument, NULL, 'T' },
		{ "duration", required_argument, NULL, 'D' },
		{ "locks", required_argument, NULL, 'N' },
		{ "local", required_argument, NULL, 'L' },
		{ "read", required_argument, NULL, 'R' },
		{ "zipf", required_argument, NULL, 'Z' },
		{ "counts", required_argument, NULL, 'C' },
		{ "cache", no_argument, NULL, 'K' },
		{ "deaf", no_argument, NULL, 'F' },
		{ "async", no_argument, NULL, 'A' },
		{ "convert", no_argument, NULL, 'V' },
		{ "convert-gap", no_argument, NULL, 'G' },
		{ NULL, 0, NULL, 0 },
	};
	struct rdmalock_run *req = &a->req;
	int opt, idx, have_locks = 0;

	optind = 0;	/* glibc: start a new scan */
	while ((opt = getopt_long(argc, argv, "", options, &idx)) != -1) {
		if (opt != '?' && !strchr(rc->opts, opt)) {
			fprintf(stderr, "rdmalockctl: %s does not take --%s\n",
				rc->name, options[idx].name);
			return -1;
		}
		switch (opt) {
		case 'T':
			if (parse_u32_range(optarg, "threads", 1, RDMALOCK_RUN_MAX_THREADS,
					    &req->threads))
				return -1;
			break;
		case 'D':
			if (parse_u32_range(optarg, "duration", 1, RDMALOCK_RUN_MAX_MS,
					    &req->duration_ms))
				return -1;
			break;
		case 'N':
			if (parse_u32_range(optarg, "number of locks", 1, RDMALOCK_RUN_MAX_LOCKS,
					    &req->num_locks))
				return -1;
			have_locks = 1;
			break;
		case 'L':
			if (parse_u32(optarg, "local percentage", 100, &req->local_pct))
				return -1;
			break;
		case 'R':
			if (parse_u32(optarg, "read percentage", 100, &req->read_pct))
				return -1;
			break;
		case 'Z':
			if (parse_theta(optarg, &a->theta))
				return -1;
			break;
		case 'C':
			a->counts_file = optarg;
			break;
		case 'K':
			req->flags |= RDMALOCK_RUN_F_CACHE;
			break;
		case 'F':
			req->flags |= RDMALOCK_RUN_F_CACHE | RDMALOCK_RUN_F_DEAF;
			break;
		case 'A':
			req->flags |= RDMALOCK_RUN_F_CACHE | RDMALOCK_RUN_F_ASYNC;
			break;
		case 'V':
			req->flags |= RDMALOCK_RUN_F_CACHE | RDMALOCK_RUN_F_CONVERT;
			break;
		case 'G':
			req->flags |= RDMALOCK_RUN_F_CACHE | RDMALOCK_RUN_F_CONVERT |
				      RDMALOCK_RUN_F_GAP;
			break;
		default:
			return -1;
		}
	}
	if (optind != argc - 1 || (!op_runs(rc->op) && !have_locks)) {
		fprintf(stderr, "rdmalockctl: %s needs NAME%s\n", rc->name,
			op_runs(rc->op) ? "" : " and --locks N");
		return -1;
	}
	return copy_name(req->name, argv[optind]);
}

/*
 * The cumulative Zipf distribution of @n ranks, scaled to 2^32 - 1: the
 * rank of k has the weight k^-theta.
 */
static __u32 *zipf_cdf(unsigned int n, double theta)
{
	__u32 *cdf = calloc(n, sizeof(*cdf));
	double total = 0, sum = 0;
	unsigned int i;

	if (!cdf)
		return NULL;
	/* Summed in the same order twice, so that the last sum is total. */
	for (i = 0; i < n; i++)
		total += pow(i + 1, -theta);
	for (i = 0; i < n; i++) {
		sum += pow(i + 1, -theta);
		cdf[i] = fmin(round(sum / total * 4294967295.0), 4294967295.0);
	}
	cdf[n - 1] = 4294967295U;
	return cdf;
}

static double ratio(double a, double b)
{
	return b ? a / b : 0;
}

static void print_result(const struct rdmalock_run *r)
{
	static const unsigned int verbs[] = {
		RDMALOCK_VERB_READ, RDMALOCK_VERB_WRITE, RDMALOCK_VERB_CAS,
		RDMALOCK_VERB_FAA, RDMALOCK_VERB_WRITE_IMM, RDMALOCK_VERB_SEND,
	};
	double acq = r->acquisitions;
	size_t i;

	printf("threads: %u\n", r->threads);
	printf("acquisitions: %llu\n", (unsigned long long)r->acquisitions);
	printf("violations: %llu\n", (unsigned long long)r->violations);
	printf("errors: %llu\n", (unsigned long long)r->errors);
	printf("first_error: %s\n", r->first_error ? strerror(-r->first_error) : "0");
	printf("lat_p50_us: %.1f\n", r->lat_p50_ns / 1000.0);
	printf("lat_p99_us: %.1f\n", r->lat_p99_ns / 1000.0);
	printf("lat_p999_us: %.1f\n", r->lat_p999_ns / 1000.0);
	printf("lat_max_us: %.1f\n", r->lat_max_ns / 1000.0);
	for (i = 0; i < ARRAY_SIZE(verbs); i++)
		printf("verbs_per_acq_%s: %.3f\n", verb_names[verbs[i]],
		       ratio(r->verbs[verbs[i]], acq));
	printf("cas_failed_per_acq: %.3f\n", ratio(r->cas_failed, acq));
	printf("cas_failed_release_per_acq: %.3f\n",
	       ratio(r->cas_failed_release, acq));
	printf("delegated_per_acq: %.3f\n", ratio(r->delegated, acq));
	if (r->flags & RDMALOCK_RUN_F_CACHE) {
		printf("cached: %llu\n", (unsigned long long)r->cached);
		printf("blocked: %llu\n", (unsigned long long)r->blocked);
	}
	if (r->flags & RDMALOCK_RUN_F_ASYNC)
		printf("cancelled: %u\n", r->cancelled);
	if (r->flags & RDMALOCK_RUN_F_CONVERT)
		printf("converted: %u\n", r->converted);
	printf("throughput_per_s: %.1f\n", ratio(acq * 1e9, r->wall_ns));
	printf("cpu_pct: %.1f\n", ratio(100.0 * r->cpu_ns, r->wall_ns));
}

/* Writes "ID COUNT" lines to @file, or to stdout if it is NULL. */
static int write_counts(const char *file, const __u64 *counts, unsigned int n)
{
	FILE *f = file ? fopen(file, "w") : stdout;
	unsigned int i;
	int err;

	if (!f) {
		fprintf(stderr, "rdmalockctl: %s: %s\n", file, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%u %llu\n", i, (unsigned long long)counts[i]);
	err = ferror(f);
	err |= file ? fclose(f) : fflush(f);
	if (err) {
		fprintf(stderr, "rdmalockctl: %s: %s\n", file ? file : "stdout",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Prints what a successful RUN returned: the exit status. */
static int run_report(const struct run_args *a, const __u64 *counts)
{
	const struct rdmalock_run *r = &a->req;
	int ret = 0;

	if (op_runs(r->op))
		print_result(r);
	if (counts && write_counts(a->counts_file, counts, r->num_locks))
		ret = 1;
	if (r->op == RDMALOCK_RUN_TORTURE && (r->violations || r->errors)) {
		fflush(stdout);
		fprintf(stderr, "rdmalockctl: torture failed: %llu violations, %llu errors%s%s\n",
			(unsigned long long)r->violations, (unsigned long long)r->errors,
			r->errors ? ", the first: " : "",
			r->errors ? strerror(-r->first_error) : "");
		ret = 1;
	}
	return ret;
}

int cmd_run(int argc, char **argv)
{
	struct run_args a = { .req = { .size = sizeof(a.req) } };
	const struct run_cmd *rc = &run_cmds[0];
	__u64 *counts = NULL;
	__u32 *cdf = NULL;
	int fd, ret = 1;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(run_cmds); i++)
		if (!strcmp(argv[0], run_cmds[i].name))
			rc = &run_cmds[i];
	a.req.op = rc->op;
	if (op_runs(rc->op)) {
		a.req.threads = 4;
		a.req.duration_ms = 5000;
		a.req.num_locks = 1;
		a.req.local_pct = 50;
	}
	if (parse_run_args(argc, argv, rc, &a))
		return EXIT_USAGE;

	if (a.theta) {
		cdf = zipf_cdf(a.req.num_locks, a.theta);
		if (!cdf)
			goto nomem;
		a.req.dist = RDMALOCK_DIST_ZIPF;
		a.req.zipf_cdf = (unsigned long)cdf;
	}
	if (a.counts_file || rc->op == RDMALOCK_RUN_COUNTERS) {
		counts = calloc(a.req.num_locks, sizeof(*counts));
		if (!counts)
			goto nomem;
		a.req.counts = (unsigned long)counts;
	}
	fd = open_device();
	if (fd >= 0 && !do_ioctl(fd, RDMALOCK_IOC_RUN, &a.req, rc->name))
		ret = run_report(&a, counts);
	if (fd >= 0)
		close(fd);
	free(cdf);
	free(counts);
	return ret;

nomem:
	fprintf(stderr, "rdmalockctl: %s\n", strerror(ENOMEM));
	free(cdf);
	return 1;
}

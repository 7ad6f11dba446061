// SPDX-License-Identifier: GPL-2.0
/*
 * The init of pan-kunit's kselftest boots (tools/pan_kunit/matrix/kselftests.py):
 * runs the arm64 kselftests packed into the initramfs and prints their
 * results as one KTAP document, which the tree's kunit_parser reads.
 * Unlike the other inits it is linked with the static glibc of
 * libc6-dev-arm64-cross: it needs ptys, poll() and timers, which sys.h
 * does not give.
 *
 * Mounts proc, sysfs, devtmpfs (if the kernel has it), devpts, tmpfs, reads
 * /ksft/list ("collection binary [timeout_s]" per line, binaries live in
 * /ksft/<collection>/), runs each binary in its collection directory in a
 * process group of its own on a pty (so stdio is line buffered as on a
 * terminal), with a timeout, and prints one KTAP document to the console:
 *
 *   KTAP version 1
 *   1..<collections>
 *       KTAP version 1
 *       # Subtest: kselftest.arm64.<collection>
 *       1..<binaries>
 *           <the binary's own TAP, indented, when it is complete>
 *       ok 1 <collection>/<binary>   (exit 0 ok, 4 SKIP, else not ok)
 *   ok 1 kselftest.arm64.<collection>
 *
 * A binary whose output is not one complete TAP document (no version line,
 * a plan it did not keep, killed by a signal or the timeout) is reported as a
 * leaf: its output as "# " diagnostic lines, then its result line.
 *
 * Kernel command line (unknown parameters reach init's environment, and
 * so every test's):
 *   ksft_only=abi,signal,fp-stress   collections or binaries to run
 *   ksft_skip=fp-stress,...           collections or binaries to leave out
 *   ksft_timeout=N                    default per-binary timeout (45 s)
 *   ksft_timeout_max=N                no binary's timeout above N s, its
 *                                     list's own included (0: no cap)
 * Then powers the machine off.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#define MAXT 512
struct entry { char coll[64]; char bin[128]; int timeout; };
static struct entry list[MAXT];
static int nlist;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Waits up to @secs for @pid to end: true when it did (its status in
 * *@status). Never longer: a process stuck in the kernel after an oops
 * must not stop the other tests.
 */
static int reap(pid_t pid, int *status, double secs)
{
	double end = now() + secs;
	pid_t w;

	while ((w = waitpid(pid, status, WNOHANG)) == 0 && now() < end)
		usleep(5000);
	return w == pid;
}

static int in_csv(const char *csv, const char *a, const char *b)
{
	char buf[1024], *tok, *save;
	if (!csv || !*csv)
		return 0;
	snprintf(buf, sizeof(buf), "%s", csv);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, a) || (b && !strcmp(tok, b)))
			return 1;
	return 0;
}

/* Grow-able output buffer of one binary. */
struct buf { char *p; size_t n, cap; };
static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

static int is_result(const char *l, int *num)
{
	const char *s = l;
	if (!strncmp(s, "ok ", 3))
		s += 3;
	else if (!strncmp(s, "not ok ", 7))
		s += 7;
	else
		return 0;
	if (!isdigit((unsigned char)*s))
		return 0;
	*num = atoi(s);
	return 1;
}

/*
 * Is @out one complete top-level TAP document: a version line, a plan
 * 1..N and results 1..N at column 0 (nested documents are indented)?
 */
static int complete_tap(char *out, int *planp, char *reason, size_t rlen)
{
	int have_version = 0, plan = -1, next = 1, num, broken = 0;
	char *line, *save, *copy = strdup(out), *r;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/*
		 * The first skip's text is the reason, if the binary ends
		 * skipped: "1..0 # SKIP why", "# SKIP: why" (6.12's
		 * ksft_exit_skip() before a plan), "ok 2 # SKIP why".
		 */
		r = strstr(line, "# SKIP");
		if (!*reason && r && (!strncmp(line, "1..", 3) || !strncmp(line, "# SKIP", 6) ||
				      is_result(line, &num))) {
			r += 6;
			while (*r == ':' || *r == ' ')
				r++;
			snprintf(reason, rlen, "%s", r);
		}
		if (!strncmp(line, "TAP version ", 12) || !strncmp(line, "KTAP version ", 13)) {
			broken |= have_version;	/* a second document */
			have_version = 1;
		} else if (!strncmp(line, "1..", 3) && plan < 0) {
			plan = atoi(line + 3);
		} else if (is_result(line, &num)) {
			broken |= num != next;
			next++;
		} else if (!*reason && (strstr(line, "NOT supported") || strstr(line, "not supported") ||
					strstr(line, "not available") || strstr(line, "Skipping"))) {
			snprintf(reason, rlen, "%s", line + (line[0] == '#' ? 2 : 0));
		}
	}
	free(copy);
	*planp = plan;
	return !broken && have_version && plan >= 0 && next - 1 == plan;
}

/* One line of a nested document.  A result line without a name, as
 * ksft_test_result_skip() prints it ("ok 3 # SKIP sigbus_AES"), gets its
 * directive's text as its name: 6.1's and 6.12's kunit_parser need a name
 * (a space then a non-'#' character after the number) to see a result. */
static void print_result_line(const char *l, int len)
{
	const char *s = l, *end = l + len;
	int n = 0;
	if (len > 3 && !strncmp(s, "ok ", 3))
		s += 3;
	else if (len > 7 && !strncmp(s, "not ok ", 7))
		s += 7;
	else
		goto plain;
	if (s >= end || !isdigit((unsigned char)*s))
		goto plain;
	while (s < end && isdigit((unsigned char)*s))
		s++, n++;
	if (s == end) {		/* "ok 5" */
		printf("        %.*s case_%.*s\n", len, l, n, s - n);
		return;
	}
	if (end - s >= 3 && !strncmp(s, " # ", 3)) {
		const char *d = s + 3, *why = d;
		if (!strncmp(d, "SKIP", 4))
			why = d + 4 + (d[4] == ' ');
		if (why == end)
			why = "skipped", end = why + 7;
		printf("        %.*s %.*s%.*s\n", (int)(s - l), l, (int)(end - why), why,
		       (int)(l + len - s), s);
		return;
	}
plain:
	printf("        %.*s\n", len, l);
}

/* The binary's complete TAP document as a KTAP subtest named @name: the
 * version line, "# Subtest:" and the plan first (the order 6.1's and 6.12's
 * kunit_parser need), then every other line in its order. */
static void print_nested(const char *out, const char *name, int plan)
{
	const char *l = out, *e;
	int seen_version = 0, seen_plan = 0;
	printf("        KTAP version 1\n        # Subtest: %s\n        1..%d\n", name, plan);
	while (*l) {
		e = strchr(l, '\n');
		if (!e)
			e = l + strlen(l);
		if (!seen_version && (!strncmp(l, "TAP version ", 12) || !strncmp(l, "KTAP version ", 13)))
			seen_version = 1;
		else if (!seen_plan && !strncmp(l, "1..", 3))
			seen_plan = 1;
		else
			print_result_line(l, (int)(e - l));
		l = *e ? e + 1 : e;
	}
}

static void print_prefixed(const char *out, const char *prefix)
{
	const char *l = out, *e;
	while (*l) {
		e = strchr(l, '\n');
		if (!e)
			e = l + strlen(l);
		printf("%s%.*s\n", prefix, (int)(e - l), l);
		l = *e ? e + 1 : e;
	}
}

/* Runs one binary; returns its TAP result line suffix in @verdict. */
static int run_one(const struct entry *t, int num, int def_timeout, int max_timeout)
{
	char dir[256], path[512];
	int master = -1, slave = -1, pfd[2] = { -1, -1 }, status = 0, timed_out = 0, exited = 0;
	struct buf out = { 0 };
	int timeout = t->timeout ? t->timeout : def_timeout;
	double t0, deadline;
	pid_t pid;

	if (max_timeout > 0 && timeout > max_timeout)
		timeout = max_timeout;
	t0 = now();
	deadline = t0 + timeout;

	snprintf(dir, sizeof(dir), "/ksft/%s", t->coll);
	snprintf(path, sizeof(path), "./%s", t->bin);
	printf("        # ksft: running %s/%s (timeout %d s)\n", t->coll, t->bin, timeout);
	fflush(stdout);

	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0) {
		slave = open(ptsname(master), O_RDWR | O_NOCTTY);
		if (slave >= 0) {
			struct termios tio;
			tcgetattr(slave, &tio);
			cfmakeraw(&tio);
			tcsetattr(slave, TCSANOW, &tio);
		}
	}
	if (slave < 0) {
		if (master >= 0)
			close(master);
		if (pipe(pfd))
			pfd[0] = pfd[1] = -1;
		master = pfd[0];
		slave = pfd[1];
	}
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		setsid();
		/* stdin is /dev/null, not the pty: mte_common_util.c's
		 * create_temp_file() returns 0 on failure and the test then
		 * reads its "file", stdin, forever. */
		dup2(null >= 0 ? null : slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		if (slave > 2)
			close(slave);
		close(master);
		if (chdir(dir))
			_exit(127);
		execl(path, path, (char *)NULL);
		printf("exec %s/%s: %s\n", dir, t->bin, strerror(errno));
		_exit(127);
	}
	close(slave);
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		double left;
		char chunk[4096];
		ssize_t n;

		/*
		 * The binary ended: what it left behind in its group (a child
		 * a killed test never reaped) must not keep the pty open until
		 * the deadline, and the binary's own status is its verdict.
		 */
		if (!exited && !timed_out && waitpid(pid, &status, WNOHANG) == pid) {
			exited = 1;
			kill(-pid, SIGKILL);
			deadline = now() + 2;	/* grace to drain */
		}
		left = deadline - now();
		if (left <= 0 && !timed_out && !exited) {
			timed_out = 1;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			deadline = now() + 2;	/* grace to drain */
			continue;
		}
		if (left <= 0)
			break;
		/* a tenth of a second at most: the exit is looked for between */
		if (poll(&p, 1, left < 0.1 ? (int)(left * 1000) + 1 : 100) <= 0)
			continue;
		n = read(master, chunk, sizeof(chunk));
		if (n <= 0)	/* EOF, or EIO on a pty whose slave side closed */
			break;
		for (ssize_t i = 0; i < n; i++)	/* drop CRs */
			if (chunk[i] != '\r')
				buf_add(&out, &chunk[i], 1);
	}
	close(master);
	if (!exited && !timed_out && !reap(pid, &status, deadline - now())) {
		/* Output closed, and no exit by the deadline. */
		timed_out = 1;
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	if (timed_out && !reap(pid, &status, 5))
		fprintf(stderr, "ksft init: %s/%s does not die of SIGKILL\n", t->coll, t->bin);
	kill(-pid, SIGKILL);	/* anything left in its group */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;

	double secs = now() - t0;
	char reason[200] = "";
	int plan = -1;
	int ok_tap = out.p && !timed_out && WIFEXITED(status) &&
		     complete_tap(out.p, &plan, reason, sizeof(reason)) && plan > 0;
	if (out.p && out.n && out.p[out.n - 1] != '\n')
		buf_add(&out, "\n", 1);
	/* The binary's name, "abi/hwcap", differs from its cases' names: a case
	 * named like its parent (seccomp_ptrace_x0_bypass's one case) would
	 * otherwise end the parent early in kunit_parser. */
	char name[200];
	snprintf(name, sizeof(name), "%s/%s", t->coll, t->bin);
	if (ok_tap)
		print_nested(out.p, name, plan);
	else if (out.p)
		print_prefixed(out.p, "        # ");
	printf("        # ksft: %s/%s took %.2f s\n", t->coll, t->bin, secs);
	int verdict = 2;
	if (timed_out)
		printf("    not ok %d %s # timeout after %d s\n", num, name, timeout);
	else if (WIFSIGNALED(status))
		printf("    not ok %d %s # killed by signal %d\n", num, name, WTERMSIG(status));
	else if (WEXITSTATUS(status) == 4)
		printf("    ok %d %s # SKIP %s\n", num, name, *reason ? reason : "exit 4 (KSFT_SKIP)"), verdict = 1;
	else if (WEXITSTATUS(status) == 0)
		printf("    ok %d %s\n", num, name), verdict = 0;
	else
		printf("    not ok %d %s # exit %d\n", num, name, WEXITSTATUS(status));
	fflush(stdout);
	free(out.p);
	return verdict;
}

int main(void)
{
	const char *only = getenv("ksft_only"), *skip = getenv("ksft_skip");
	const char *tos = getenv("ksft_timeout");
	int def_timeout = tos ? atoi(tos) : 45;
	const char *maxs = getenv("ksft_timeout_max");
	int max_timeout = maxs ? atoi(maxs) : 0;
	char line[512], colls[32][64];
	int ncoll = 0, i, j;
	FILE *f;
	double t0;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL))
		fprintf(stderr, "ksft init: no devtmpfs (%s)\n", strerror(errno));
	mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3));
	mknod("/dev/zero", S_IFCHR | 0666, makedev(1, 5));
	mkdir("/dev/pts", 0755);
	if (mount("devpts", "/dev/pts", "devpts", 0, "ptmxmode=0666"))
		fprintf(stderr, "ksft init: no devpts (%s)\n", strerror(errno));
	symlink("pts/ptmx", "/dev/ptmx");
	/* MTE's file-backed cases map files of /dev/shm: shmem is the one
	 * filesystem whose pages can hold tags. */
	mkdir("/dev/shm", 01777);
	if (mount("tmpfs", "/dev/shm", "tmpfs", 0, NULL))
		fprintf(stderr, "ksft init: no tmpfs on /dev/shm (%s)\n", strerror(errno));
	if (mount("tmpfs", "/tmp", "tmpfs", 0, NULL))
		fprintf(stderr, "ksft init: no tmpfs on /tmp (%s)\n", strerror(errno));
	setenv("PATH", "/ksft/bin:/bin", 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);

	f = fopen("/ksft/list", "r");
	while (f && fgets(line, sizeof(line), f)) {
		struct entry *e = &list[nlist];

		if (nlist == MAXT) {
			fprintf(stderr, "ksft init: more than %d tests in /ksft/list: the rest not run\n",
				MAXT);
			break;
		}
		/* a line left out must not leave its timeout to the next */
		memset(e, 0, sizeof(*e));
		if (line[0] == '#' || sscanf(line, "%63s %127s %d", e->coll, e->bin, &e->timeout) < 2)
			continue;
		if (only && *only && !in_csv(only, e->coll, e->bin))
			continue;
		if (in_csv(skip, e->coll, e->bin))
			continue;
		nlist++;
	}
	for (i = 0; i < nlist; i++) {
		for (j = 0; j < ncoll && strcmp(colls[j], list[i].coll); j++)
			;
		if (j == ncoll && ncoll == 32) {
			fprintf(stderr, "ksft init: more than 32 collections: %s not run\n",
				list[i].coll);
			continue;
		}
		if (j == ncoll)
			snprintf(colls[ncoll++], 64, "%s", list[i].coll);
	}
	t0 = now();
	printf("KTAP version 1\n1..%d\n", ncoll);
	for (j = 0; j < ncoll; j++) {
		int n = 0, k = 0, fails = 0, skips = 0, v;
		double c0 = now();
		for (i = 0; i < nlist; i++)
			n += !strcmp(list[i].coll, colls[j]);
		printf("    KTAP version 1\n    # Subtest: kselftest.arm64.%s\n    1..%d\n", colls[j], n);
		for (i = 0; i < nlist; i++)
			if (!strcmp(list[i].coll, colls[j]))
				v = run_one(&list[i], ++k, def_timeout, max_timeout), fails += v == 2, skips += v == 1;
		printf("    # ksft: collection %s took %.2f s\n", colls[j], now() - c0);
		/* The collection's own result: bubbled up by the parser anyway. */
		if (fails)
			printf("not ok %d kselftest.arm64.%s\n", j + 1, colls[j]);
		else if (skips == n)
			printf("ok %d kselftest.arm64.%s # SKIP all skipped\n", j + 1, colls[j]);
		else
			printf("ok %d kselftest.arm64.%s\n", j + 1, colls[j]);
	}
	printf("# ksft: all collections took %.2f s\n", now() - t0);
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}

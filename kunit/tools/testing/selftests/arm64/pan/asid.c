// SPDX-License-Identifier: GPL-2.0-only
/*
 * Processes that fork, exec and exit across an ASID rollover, each still
 * seeing only its own memory.
 *
 * Every address space that runs takes an ASID; arm64 hands them out from
 * a bitmap and starts a new generation (a rollover) when it is full, at
 * most every 2^16 new address spaces (2^8 with 8-bit ASIDs, half as many
 * with kpti, which uses them in pairs). A process that lives across the
 * rollover must get an ASID no other live process has, and a TLB entry
 * left by a process that is gone must never translate for a new one; if
 * either fails, a process reads or writes another's memory at the same
 * virtual address.
 *
 * So: "resident" processes, some pinned to each CPU, check the page they
 * all map at the same address (each has its own copy, with its own
 * pattern) every millisecond or so, while the test creates and exits
 * enough address spaces for a rollover (clone(CLONE_VFORK) children that
 * check the page they inherited, write their own pattern and check it,
 * then exit; one in 256 exec()s this program, which does the same with
 * fresh memory). The parent checks its own copy after every child. Any
 * pattern that is not the reader's own is a failure.
 *
 * EL0 cannot read ID_AA64MMFR0_EL1.ASIDBits, so the test assumes 16 bits:
 * 2^16 + 2^10 address spaces, or 2^15 + 2^10 when the kernel reports
 * "Mitigation: PTI" for meltdown (kpti). ARM64_PAN_ASID_ALLOCS=N changes
 * the count. Under emulation this takes minutes: the test measures how
 * long an address space takes here and skips, saying so, when the whole
 * would exceed ARM64_PAN_ASID_BUDGET seconds (default 60); it gives up,
 * skipping, as soon as the storm's own rate says the same, and at twice
 * the budget at the latest. The two short storms before it (256 address
 * spaces each, a few seconds under emulation) skip after CALIBRATION_S.
 * The settings file gives each program of this directory 300 s, which
 * covers the three; with a larger budget, raise run_kselftest.sh's
 * timeout with it (--override-timeout). With one CPU the residents take
 * turns with the test instead of running beside it: the test says how
 * many CPUs it had.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "kselftest_harness.h"
#include "pan_util.h"

#define EXEC_ENV	"ARM64_PAN_ASID_EXEC"
/* Address spaces between two looks at the storm's rate: a multiple of 256. */
#define STORM_STEP	2048
#define WORDS		64
/* The most a short storm of 256 address spaces may take, in seconds. */
#define CALIBRATION_S	60

struct shared {
	atomic_int stop;
	atomic_int failures;
	atomic_long checks;		/* checks done by residents */
	atomic_long children_ok;	/* children whose check passed */
	char first[256];		/* the first failure, said once */
	atomic_int said;
};

static struct shared *sh;
static uint64_t *page;	/* the page at the same address in all */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t pattern_of(pid_t pid, int i)
{
	return ((uint64_t)pid << 32) ^ (0x9e3779b97f4a7c15ull * (i + 1));
}

static void fail(const char *who, int i, uint64_t want, uint64_t got)
{
	atomic_fetch_add(&sh->failures, 1);
	if (!atomic_exchange(&sh->said, 1))
		snprintf(sh->first, sizeof(sh->first),
			 "%s %d: word %d is %#llx, its own is %#llx", who,
			 (int)getpid(), i, (unsigned long long)got,
			 (unsigned long long)want);
}

static void fill(pid_t pid)
{
	for (int i = 0; i < WORDS; i++)
		pan_str64(&page[i * 8], pattern_of(pid, i));
}

static int check(const char *who, pid_t pid)
{
	for (int i = 0; i < WORDS; i++) {
		uint64_t v = pan_ldr64(&page[i * 8]);

		if (v != pattern_of(pid, i)) {
			fail(who, i, pattern_of(pid, i), v);
			return -1;
		}
	}
	return 0;
}

/* An exec()ed child: fresh memory of its own, written and checked. */
static void __attribute__((constructor)) exec_child(void)
{
	const char *s = getenv(EXEC_ENV);
	uint64_t *mine;
	pid_t me;

	if (!s)
		return;
	me = getpid();
	mine = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mine == MAP_FAILED)
		_exit(2);
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < WORDS; i++)
			pan_str64(&mine[i * 8], pattern_of(me, i + round));
		sched_yield();
		for (int i = 0; i < WORDS; i++)
			if (pan_ldr64(&mine[i * 8]) != pattern_of(me, i + round))
				_exit(1);
	}
	_exit(0);
}

static void resident(int cpu)
{
	pid_t me = getpid();

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	fill(me);
	while (!atomic_load(&sh->stop)) {
		if (check("resident", me))
			_exit(1);
		fill(me);
		atomic_fetch_add(&sh->checks, 1);
		usleep(1000);
	}
	_exit(check("resident", me) ? 1 : 0);
}

static long clone_vfork(void)
{
	return syscall(SYS_clone, CLONE_VFORK | SIGCHLD, 0, NULL, NULL, 0);
}

/* A child of the storm: its inheritance, then its own pattern. */
static void storm_child(pid_t parent)
{
	pid_t me = getpid();

	if (check("child (inherited)", parent))
		_exit(1);
	fill(me);
	if (check("child", me))
		_exit(1);
	atomic_fetch_add(&sh->children_ok, 1);
	_exit(0);
}

static long env_long(const char *name, long def)
{
	const char *s = getenv(name);

	return s && *s ? strtol(s, NULL, 0) : def;
}

static bool kpti(void)
{
	char buf[128] = "";
	int fd = open("/sys/devices/system/cpu/vulnerabilities/meltdown", O_RDONLY);

	if (fd < 0)
		return false;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return strstr(buf, "PTI");
}

FIXTURE(asid) {
	pid_t residents[16];
	int nr_residents;
	char *map;
};

FIXTURE_SETUP(asid)
{
	long psz = page_size();
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	memset(sh, 0, sizeof(*sh));
	self->map = mmap(NULL, psz, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	page = (uint64_t *)self->map;
	fill(getpid());

	if (ncpus > 7)
		ncpus = 7;
	self->nr_residents = 0;
	for (int i = 0; i < 2 * ncpus + 2; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (pid == 0)
			resident(i < 2 * ncpus ? i % ncpus : -1);
		self->residents[self->nr_residents++] = pid;
	}
}

FIXTURE_TEARDOWN(asid)
{
	if (sh)
		atomic_store(&sh->stop, 1);
	for (int i = 0; i < self->nr_residents; i++)
		waitpid(self->residents[i], NULL, 0);
}

/*
 * The storm: @n address spaces; false if it ran out of time (the deadline
 * is looked at after every one: a clock read is nothing beside a fork).
 */
static bool storm(struct __test_metadata *_metadata, long n, double deadline,
		  long *done)
{
	pid_t me = getpid();
	static char *const argv[] = { "asid", NULL };
	static char *const envp[] = { EXEC_ENV "=1", NULL };

	for (*done = 0; *done < n; (*done)++) {
		int status;
		pid_t pid;

		if (*done % 256 == 255) {
			pid = fork();
			ASSERT_LE(0, pid);
			if (pid == 0) {
				execve("/proc/self/exe", argv, envp);
				_exit(3);
			}
		} else {
			pid = clone_vfork();
			ASSERT_LE(0, pid);
			if (pid == 0)
				storm_child(me);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			atomic_fetch_add(&sh->failures, 1);
			TH_LOG("child %d of %ld: %s %d", (int)pid, *done,
			       WIFEXITED(status) ? "exit" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) :
			       WTERMSIG(status));
		}
		if (check("parent", me) || atomic_load(&sh->failures))
			return true;
		fill(me);
		if (*done + 1 < n && now() > deadline) {
			(*done)++;
			return false;
		}
	}
	return true;
}

/*
 * Stops the residents and checks what they and the storm saw: true when
 * all is well, so that a skip (which the harness reports over an earlier
 * failure) is taken only then.
 */
static bool check_residents(struct __test_metadata *_metadata,
			    struct _test_data_asid *self)
{
	bool ok = true;

	atomic_store(&sh->stop, 1);
	for (int i = 0; i < self->nr_residents; i++) {
		bool exited;
		int status;

		ASSERT_EQ(self->residents[i], waitpid(self->residents[i], &status, 0));
		exited = WIFEXITED(status) && WEXITSTATUS(status) == 0;
		EXPECT_TRUE(exited)
			TH_LOG("resident %d: status %#x", (int)self->residents[i], status);
		ok = ok && exited;
	}
	self->nr_residents = 0;
	EXPECT_EQ(0, atomic_load(&sh->failures)) TH_LOG("%s", sh->first);
	EXPECT_LT(0, atomic_load(&sh->checks));
	return ok && !atomic_load(&sh->failures) && atomic_load(&sh->checks) > 0;
}

/* A short run that cannot claim a rollover: the checks themselves work. */
TEST_F_TIMEOUT(asid, isolation_short, CALIBRATION_S + 30)
{
	long done;

	if (!storm(_metadata, 256, now() + CALIBRATION_S, &done)) {
		if (check_residents(_metadata, self))
			SKIP(return, "%ld of 256 address spaces in %d s here: too slow to check",
			     done, CALIBRATION_S);
		return;
	}
	EXPECT_EQ(256, done);
	EXPECT_EQ(255, atomic_load(&sh->children_ok));
	check_residents(_metadata, self);
}

/*
 * The harness's own limit covers a budget raised to 1500 s; the runner's
 * (the settings file's 300 s) covers the default one: a larger budget
 * needs run_kselftest.sh's --override-timeout too.
 */
TEST_F_TIMEOUT(asid, across_rollover, 3600)
{
	bool pti = kpti();
	long n = env_long("ARM64_PAN_ASID_ALLOCS",
			  (pti ? 1L << 15 : 1L << 16) + 1024);
	long budget = env_long("ARM64_PAN_ASID_BUDGET", 60);
	double t0, per, estimate;
	long done;

	/* what one address space costs here */
	t0 = now();
	if (!storm(_metadata, 256, t0 + CALIBRATION_S, &done)) {
		if (check_residents(_metadata, self))
			SKIP(return,
			     "%ld of 256 address spaces in %d s here: a rollover is out of reach",
			     done, CALIBRATION_S);
		return;
	}
	per = (now() - t0) / 256;
	estimate = per * n;
	TH_LOG("%ld address spaces (%s), %.2f ms each here: ~%.0f s; %d residents on %ld CPUs",
	       n, pti ? "16-bit ASIDs in kpti pairs" : "16-bit ASIDs",
	       per * 1e3, estimate, self->nr_residents, sysconf(_SC_NPROCESSORS_ONLN));
	if (estimate > budget) {
		if (check_residents(_metadata, self))
			SKIP(return,
			     "an ASID rollover needs up to %ld new address spaces; at %.2f ms each here that is ~%.0f s, over ARM64_PAN_ASID_BUDGET=%ld s",
			     n, per * 1e3, estimate, budget);
		return;
	}
	/*
	 * The first 256 can be several times faster than the storm, once
	 * the residents and the page cache are busy: every STORM_STEP, the
	 * storm's own rate decides again, and it gives up as soon as the
	 * whole would exceed the budget.
	 */
	t0 = now();
	for (done = 0; done < n && !atomic_load(&sh->failures); ) {
		long step = n - done < STORM_STEP ? n - done : STORM_STEP;
		long stepped;
		bool whole = storm(_metadata, step, t0 + 2.0 * budget, &stepped);

		done += stepped;
		if (atomic_load(&sh->failures))
			break;	/* check_residents() says what was seen */
		estimate = (now() - t0) / done * n;
		if (!whole || (done < n && estimate > budget)) {
			if (check_residents(_metadata, self))
				SKIP(return,
				     "gave up after %ld of %ld address spaces (%.0f s): at %.2f ms each in the storm the whole is ~%.0f s, over ARM64_PAN_ASID_BUDGET=%ld s; no rollover can be claimed",
				     done, n, now() - t0, (now() - t0) / done * 1e3, estimate,
				     budget);
			return;
		}
	}
	TH_LOG("%ld address spaces in %.1f s, %ld resident checks",
	       done, now() - t0, (long)atomic_load(&sh->checks));
	if (!atomic_load(&sh->failures))
		EXPECT_EQ(n, done);
	check_residents(_metadata, self);
}

TEST_HARNESS_MAIN

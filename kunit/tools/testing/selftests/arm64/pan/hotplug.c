// SPDX-License-Identifier: GPL-2.0-only
/*
 * User access from a CPU that was taken offline and brought back while
 * processes ran on it.
 *
 * A CPU that comes back online sets up its translation and PAN state
 * again (TCR_EL1, SCTLR_EL1, TTBR0_EL1): a process pinned to it must see
 * the same user access behaviour as before, and as on any other CPU:
 *  - a read(2) into a buffer that ends at a guard page: exactly the
 *    accessible bytes (see partial_copy.c);
 *  - a write(2) from the guard page: EFAULT;
 *  - an execute-only page (see execonly.c): EL0 and write(2) agree;
 *  - FUTEX_WAKE_OP on a read-only page: EFAULT;
 *  - a store to a read-only page: SIGSEGV/SEGV_ACCERR, a write
 *    permission fault in the ESR;
 *  - EL0 and system call access through a tagged pointer (when the
 *    tagged address ABI is available);
 *  - memory above 2^48 (when mmap() hands it out, with 52-bit VAs).
 * CPUs are taken offline through /sys/devices/system/cpu/cpuN/online
 * (Documentation/core-api/cpu_hotplug.rst); the test needs root, two
 * CPUs or more and a kernel with CONFIG_HOTPLUG_CPU, and skips, saying
 * which it lacks, without them. It waits up to 20 s for its worker to
 * start and up to 60 s for it after each of three cycles, within the
 * 300 s the settings file gives each program of this directory.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <time.h>

#include "kselftest_harness.h"
#include "pan_util.h"

#ifndef PR_SET_TAGGED_ADDR_CTRL
#define PR_SET_TAGGED_ADDR_CTRL	55
#endif
#ifndef PR_TAGGED_ADDR_ENABLE
#define PR_TAGGED_ADDR_ENABLE	1UL	/* bit 0 */
#endif

/* What a CPU shows a process. */
struct ua_state {
	ssize_t partial;	/* read() count, 37 accessible */
	int efault;		/* write() from the guard page: errno */
	bool xo_el0;		/* EL0 reads the execute-only page */
	bool xo_kernel;		/* write() from it succeeds */
	int futex_ro;		/* FUTEX_WAKE_OP on read-only: errno */
	int ro_code;		/* si_code of a store to read-only */
	bool ro_wnr;
	bool ro_perm;
	int tagged;		/* -1: no ABI; else 1 when all tagged accesses worked */
	int high;		/* -1: no high VA; else 1 when it worked */
};

struct ua_maps {
	char *guarded;	/* 1 page + guard */
	char *xo;	/* execute-only */
	char *ro;	/* read-only, written before */
	char *high;	/* above 2^48, or NULL */
	int fd;		/* a file of 1 page */
};

static int setup_maps(struct ua_maps *m)
{
	long psz = page_size();
	char *p;

	m->guarded = map_with_guard(1);
	if (!m->guarded)
		return -1;
	p = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	memset(p, 0x77, psz);
	if (mprotect(p, psz, PROT_EXEC))
		return -1;
	m->xo = p;
	p = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	memset(p, 0x66, psz);
	if (mprotect(p, psz, PROT_READ))
		return -1;
	m->ro = p;
	/* a hint above 2^48 asks for the 52-bit address space, if any */
	p = mmap((void *)(1ul << 50), psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	m->high = (p != MAP_FAILED && (uintptr_t)p >= (1ul << 48)) ? p : NULL;
	m->fd = tmpfile_fd();
	if (m->fd < 0)
		return -1;
	{
		char buf[4096];

		memset(buf, 0x42, sizeof(buf));
		if (pwrite(m->fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
			return -1;
	}
	return 0;
}

static void probe_state(struct ua_maps *m, struct ua_state *s, bool tagged_abi)
{
	char *edge = m->guarded + page_size() - 37;
	uint32_t v = 0, w = 0;
	int pfd[2];

	memset(s, 0, sizeof(*s));
	memset(edge, 0, 37);
	s->partial = pread(m->fd, edge, 100, 0);
	if (pipe(pfd))
		return;
	errno = 0;
	s->efault = write(pfd[1], m->guarded + page_size(), 4) < 0 ? errno : 0;
	s->xo_el0 = probe_read(m->xo, &v);
	s->xo_kernel = write(pfd[1], m->xo, 4) == 4;
	errno = 0;
	s->futex_ro = syscall(SYS_futex, &w, FUTEX_WAKE_OP_PRIVATE, 1, 1, m->ro + 64,
			      FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0)) < 0 ? errno : 0;
	if (!probe_write(m->ro + 8, 1)) {
		s->ro_code = pan_last.code;
		s->ro_wnr = pan_last.has_esr && (pan_last.esr & ESR_WNR);
		s->ro_perm = pan_last.has_esr && fsc_is_permission(ESR_FSC(pan_last.esr));
	}
	s->tagged = -1;
	if (tagged_abi) {
		char *t = (char *)((uintptr_t)(m->guarded + 128) | (0x5aul << 56));
		char got[8] = "";

		s->tagged = probe_write(t, 0x01020304) &&
			    write(pfd[1], t, 4) == 4 &&
			    read(pfd[0], got, 8) > 0 &&
			    *(uint32_t *)(m->guarded + 128) == 0x01020304;
	}
	s->high = -1;
	if (m->high) {
		/*
		 * In a child on the same CPU, with a deadline: with a wrong
		 * TCR_EL1.T0SZ the access faults again and again.
		 */
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			alarm(10);
			_exit(probe_write(m->high + 64, 0xabcd) &&
			      probe_read(m->high + 64, &v) && v == 0xabcd &&
			      write(pfd[1], m->high + 64, 4) == 4 ? 0 : 1);
		}
		s->high = pid > 0 && waitpid(pid, &status, 0) == pid &&
			  WIFEXITED(status) && !WEXITSTATUS(status);
	}
	close(pfd[0]);
	close(pfd[1]);
}

static bool same_state(const struct ua_state *a, const struct ua_state *b)
{
	return a->partial == b->partial && a->efault == b->efault &&
	       a->xo_el0 == b->xo_el0 && a->xo_kernel == b->xo_kernel &&
	       a->futex_ro == b->futex_ro && a->ro_code == b->ro_code &&
	       a->ro_wnr == b->ro_wnr && a->ro_perm == b->ro_perm &&
	       a->tagged == b->tagged && a->high == b->high;
}

#define STATE_FMT \
	"read %zd/37, write(guard) errno %d, exec-only EL0 %d kernel %d, FUTEX_WAKE_OP(ro) errno %d, store(ro) si_code %d WnR %d perm %d, tagged %d, high VA %d"

static void log_state(struct __test_metadata *_metadata, const char *what,
		      const struct ua_state *s)
{
	TH_LOG("%s: " STATE_FMT,
	       what, s->partial, s->efault, s->xo_el0, s->xo_kernel, s->futex_ro,
	       s->ro_code, s->ro_wnr, s->ro_perm, s->tagged, s->high);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int cpu_online_path(int cpu, char *path, size_t n)
{
	snprintf(path, n, "/sys/devices/system/cpu/cpu%d/online", cpu);
	return access(path, W_OK);
}

static int set_online(int cpu, bool on)
{
	char path[128];
	int fd, r;

	cpu_online_path(cpu, path, sizeof(path));
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	r = write(fd, on ? "1" : "0", 1) == 1 ? 0 : -errno;
	close(fd);
	return r;
}

static int is_online(int cpu)
{
	char path[128], c = '?';
	int fd;

	cpu_online_path(cpu, path, sizeof(path));
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (read(fd, &c, 1) != 1)
		c = '?';
	close(fd);
	return c == '1';
}

struct shared {
	atomic_int stop;
	atomic_int epoch;		/* bumped by the parent after each online */
	atomic_int seen_epoch;		/* the last epoch the worker checked on the CPU */
	atomic_long rounds;
	atomic_long mismatches;
	char first[512];
	atomic_int said;
};

/*
 * The worker: pinned to @cpu, it checks again and again that it sees
 * what it saw first. While the CPU is offline the scheduler moves it
 * elsewhere; it pins itself back as soon as it can.
 */
static void worker(struct shared *sh, int cpu, bool tagged_abi)
{
	struct ua_maps m;
	struct ua_state first, now;

	if (setup_maps(&m) || pan_catch_faults(false))
		_exit(2);
	pin(cpu);
	probe_state(&m, &first, tagged_abi);
	while (!atomic_load(&sh->stop)) {
		int epoch = atomic_load(&sh->epoch);

		if (sched_getcpu() != cpu) {
			pin(cpu);	/* EINVAL while it is offline */
			usleep(1000);
			continue;
		}
		probe_state(&m, &now, tagged_abi);
		if (!same_state(&first, &now)) {
			atomic_fetch_add(&sh->mismatches, 1);
			if (!atomic_exchange(&sh->said, 1))
				snprintf(sh->first, sizeof(sh->first),
					 "on CPU %d: read %zd (was %zd), efault %d (%d), xo %d/%d (%d/%d), futex %d (%d), ro %d/%d/%d (%d/%d/%d), tagged %d (%d), high %d (%d)",
					 cpu, now.partial, first.partial, now.efault, first.efault,
					 now.xo_el0, now.xo_kernel, first.xo_el0, first.xo_kernel,
					 now.futex_ro, first.futex_ro, now.ro_code, now.ro_wnr,
					 now.ro_perm, first.ro_code, first.ro_wnr, first.ro_perm,
					 now.tagged, first.tagged, now.high, first.high);
		}
		atomic_fetch_add(&sh->rounds, 1);
		atomic_store(&sh->seen_epoch, epoch);
	}
	_exit(0);
}

FIXTURE(hotplug) {
	int cpu;
	bool tagged_abi;
	struct shared *sh;
	pid_t worker;
	struct ua_maps m;
};

FIXTURE_SETUP(hotplug)
{
	char path[128];
	int ncpus = sysconf(_SC_NPROCESSORS_CONF);

	self->worker = 0;
	self->sh = NULL;
	self->cpu = -1;
	if (geteuid())
		SKIP(return, "needs root to take a CPU offline");
	if (ncpus < 2)
		SKIP(return, "needs two CPUs or more, one to take offline: %d CPU", ncpus);
	/* the last CPU that can go offline and is online */
	for (int cpu = ncpus - 1; cpu > 0; cpu--) {
		if (!cpu_online_path(cpu, path, sizeof(path)) && is_online(cpu) == 1) {
			self->cpu = cpu;
			break;
		}
	}
	if (self->cpu < 0)
		SKIP(return,
		     "no online CPU other than CPU 0 has a writable %s: no CONFIG_HOTPLUG_CPU, or the others offline",
		     "/sys/devices/system/cpu/cpuN/online");
	self->tagged_abi = !prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 0, 0, 0);
	ASSERT_EQ(0, setup_maps(&self->m));
	ASSERT_EQ(0, pan_catch_faults(false));
	self->sh = mmap(NULL, sizeof(*self->sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sh);
	memset(self->sh, 0, sizeof(*self->sh));
}

FIXTURE_TEARDOWN(hotplug)
{
	if (self->sh)
		atomic_store(&self->sh->stop, 1);
	if (self->worker > 0)
		waitpid(self->worker, NULL, 0);
	if (self->cpu > 0 && is_online(self->cpu) == 0)
		set_online(self->cpu, true);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Its waits (20 s for the worker, then up to 60 s after each of three
 * cycles) and the children of its probes and of the worker's last one
 * (10 s each at most) add up to about 265 s, under 280 s: the harness
 * names a hung case before the runner's 300 s end it.
 */
TEST_F_TIMEOUT(hotplug, offline_online_pinned, 280)
{
	struct ua_state before, other, after;
	int cycles = 3, r;

	if (self->cpu < 0 || !self->sh)
		return;	/* skipped in setup */
	/* what the CPU shows before, and what another CPU shows */
	ASSERT_EQ(0, pin(0));
	probe_state(&self->m, &other, self->tagged_abi);
	ASSERT_EQ(0, pin(self->cpu));
	ASSERT_EQ(self->cpu, sched_getcpu());
	probe_state(&self->m, &before, self->tagged_abi);
	log_state(_metadata, "before", &before);
	EXPECT_TRUE(same_state(&other, &before)) log_state(_metadata, "CPU 0", &other);
	EXPECT_EQ(37, before.partial);
	EXPECT_EQ(EFAULT, before.efault);
	EXPECT_EQ(before.xo_el0, before.xo_kernel);
	EXPECT_EQ(EFAULT, before.futex_ro);
	EXPECT_EQ(SEGV_ACCERR, before.ro_code);
	EXPECT_TRUE(before.ro_wnr && before.ro_perm);
	EXPECT_NE(0, before.tagged);
	EXPECT_NE(0, before.high);

	self->worker = fork();
	ASSERT_LE(0, self->worker);
	if (self->worker == 0)
		worker(self->sh, self->cpu, self->tagged_abi);

	/* let the worker settle on the CPU */
	for (double t = now_s(); now_s() < t + 20 && atomic_load(&self->sh->rounds) < 3;)
		usleep(10000);
	ASSERT_LT(0, atomic_load(&self->sh->rounds)) TH_LOG("the worker never ran");
	ASSERT_EQ(0, pin(0));

	for (int c = 0; c < cycles; c++) {
		long rounds;
		double t;

		r = set_online(self->cpu, false);
		if (r == -EBUSY || r == -EPERM || r == -EINVAL)
			SKIP(return, "CPU %d cannot go offline: %s", self->cpu, strerror(-r));
		ASSERT_EQ(0, r) TH_LOG("offline: %s", strerror(-r));
		EXPECT_EQ(0, is_online(self->cpu));
		/* the worker runs elsewhere meanwhile */
		usleep(50000);
		ASSERT_EQ(0, set_online(self->cpu, true));
		EXPECT_EQ(1, is_online(self->cpu));
		atomic_fetch_add(&self->sh->epoch, 1);
		/* until the worker has checked on the CPU since it came back */
		rounds = atomic_load(&self->sh->rounds);
		for (t = now_s(); now_s() < t + 60; usleep(5000))
			if (atomic_load(&self->sh->seen_epoch) == c + 1 &&
			    atomic_load(&self->sh->rounds) > rounds + 2)
				break;
		EXPECT_EQ(c + 1, atomic_load(&self->sh->seen_epoch))
			TH_LOG("the worker did not get back to CPU %d", self->cpu);
		/* and the test itself, pinned to it */
		ASSERT_EQ(0, pin(self->cpu));
		ASSERT_EQ(self->cpu, sched_getcpu());
		probe_state(&self->m, &after, self->tagged_abi);
		EXPECT_TRUE(same_state(&before, &after)) log_state(_metadata, "after", &after);
		ASSERT_EQ(0, pin(0));
	}
	atomic_store(&self->sh->stop, 1);
	{
		int status;

		ASSERT_EQ(self->worker, waitpid(self->worker, &status, 0));
		self->worker = 0;
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	EXPECT_EQ(0, atomic_load(&self->sh->mismatches)) TH_LOG("%s", self->sh->first);
	TH_LOG("%d offline/online cycles of CPU %d, %ld worker rounds", cycles, self->cpu,
	       (long)atomic_load(&self->sh->rounds));
}

TEST_HARNESS_MAIN

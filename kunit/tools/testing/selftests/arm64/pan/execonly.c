// SPDX-License-Identifier: GPL-2.0-only
/*
 * Execute-only mappings, read from EL0 and by the kernel on EL0's behalf.
 *
 * A mapping made with PROT_EXEC and without PROT_READ is execute-only
 * when the CPU has FEAT_PAN3 (EPAN): user space cannot read it, and
 * neither can the kernel when a system call reads user memory for it.
 * Without EPAN the kernel cannot stop its own privileged accesses to a
 * page user space may execute, so such a mapping stays readable ("exec
 * implies read"). Whichever applies, user space and the kernel acting
 * for it must agree: a system call must not read what a load at EL0
 * cannot, and must read what a load at EL0 can.
 *
 * EL0 cannot read ID_AA64MMFR1_EL1.PAN (the field is not exposed by the
 * ID register emulation, Documentation/arch/arm64/cpu-feature-registers.rst),
 * so the tests check agreement by default, and check which of the two
 * applies only when told what to expect: --epan=yes|no on the command
 * line, or ARM64_PAN_EPAN=yes|no in the environment (yes: the CPU
 * implements FEAT_PAN3, so PROT_EXEC alone must not be readable).
 *
 * The kernel reads user memory here through write() (copy_from_user()),
 * FUTEX_WAIT (get_user()), writev()'s iovec array (unsafe_get_user())
 * and rt_sigprocmask() (a fixed-size copy_from_user()). Where those
 * routines use unprivileged loads (LDTR, or the unprivileged CPY*RT/WT
 * forms with FEAT_MOPS: arch/arm64/lib/'s do), the agreement is
 * the page tables' and the fault handler's; where they use privileged
 * ones with PAN, it is PAN's and EPAN's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/futex.h>
#include <sys/uio.h>
#include <time.h>

#include "kselftest_harness.h"
#include "pan_util.h"

static int epan_expected = -1;	/* -1 unknown, 0 no, 1 yes */

static int parse_epan(const char *s)
{
	if (!s || !*s || !strcmp(s, "auto"))
		return -1;
	if (!strcmp(s, "yes") || !strcmp(s, "1") || !strcmp(s, "y"))
		return 1;
	if (!strcmp(s, "no") || !strcmp(s, "0") || !strcmp(s, "n"))
		return 0;
	fprintf(stderr, "execonly: bad EPAN expectation '%s' (yes|no|auto)\n", s);
	exit(KSFT_FAIL);
}

/* A RET instruction, then data. */
#define A64_RET		0xd65f03c0u
#define PATTERN		0x5a17e0c5u
#define IOV_OFFSET	16

enum backing { ANON_WRITTEN, ANON_FRESH, FILE_FRESH, SHARED_WRITTEN, SHARED_FILE_FRESH };

FIXTURE(execonly) {
	char *page;		/* the PROT_EXEC-only page */
	unsigned char expect[128];/* what it holds, when readable */
	int fd;
};

FIXTURE_VARIANT(execonly) {
	enum backing backing;
};

/* Written through a read-write mapping, then made execute-only. */
FIXTURE_VARIANT_ADD(execonly, anon_written) { .backing = ANON_WRITTEN };
/* Anonymous, never touched: no page table entry yet. */
FIXTURE_VARIANT_ADD(execonly, anon_fresh) { .backing = ANON_FRESH };
/* The first page of this program's own file, never touched. */
FIXTURE_VARIANT_ADD(execonly, file_fresh) { .backing = FILE_FRESH };
/* MAP_SHARED: anonymous written then made execute-only, and the file. */
FIXTURE_VARIANT_ADD(execonly, shared_written) { .backing = SHARED_WRITTEN };
FIXTURE_VARIANT_ADD(execonly, shared_file_fresh) { .backing = SHARED_FILE_FRESH };

FIXTURE_SETUP(execonly)
{
	long psz = page_size();
	struct iovec *iov;
	uint32_t *w;

	self->fd = -1;
	memset(self->expect, 0, sizeof(self->expect));
	switch (variant->backing) {
	case ANON_WRITTEN:
	case SHARED_WRITTEN:
		self->page = mmap(NULL, psz, PROT_READ | PROT_WRITE,
				  (variant->backing == ANON_WRITTEN ? MAP_PRIVATE : MAP_SHARED) |
				  MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, self->page);
		w = (uint32_t *)self->page;
		for (int i = 0; i < psz / 4; i++)
			w[i] = PATTERN ^ i;
		/* code: a RET to call */
		w[0] = A64_RET;
		/* an iovec for writev() to fetch, pointing into the page */
		iov = (struct iovec *)(self->page + IOV_OFFSET);
		iov->iov_base = self->page + 64;
		iov->iov_len = 16;
		memcpy(self->expect, self->page, sizeof(self->expect));
		__builtin___clear_cache(self->page, self->page + psz);
		ASSERT_EQ(0, mprotect(self->page, psz, PROT_EXEC));
		break;
	case ANON_FRESH:
		self->page = mmap(NULL, psz, PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, self->page);
		break;
	case FILE_FRESH:
	case SHARED_FILE_FRESH:
		self->fd = open("/proc/self/exe", O_RDONLY);
		ASSERT_LE(0, self->fd);
		ASSERT_EQ(sizeof(self->expect),
			  pread(self->fd, self->expect, sizeof(self->expect), 0));
		self->page = mmap(NULL, psz, PROT_EXEC,
				  variant->backing == FILE_FRESH ? MAP_PRIVATE : MAP_SHARED,
				  self->fd, 0);
		ASSERT_NE(MAP_FAILED, self->page);
		break;
	}
	ASSERT_EQ(0, pan_catch_faults(false));
}

FIXTURE_TEARDOWN(execonly)
{
	munmap(self->page, page_size());
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * The ways the kernel reads the page for us: true when it could (and got
 * what is there), false when the call failed with EFAULT. Anything else
 * fails the test.
 */
static bool kernel_reads_write(struct __test_metadata *_metadata,
			       const char *p, const unsigned char *expect)
{
	unsigned char got[16];
	int pfd[2];
	ssize_t n;

	ASSERT_EQ(0, pipe(pfd));
	n = write(pfd[1], p, sizeof(got));
	if (n < 0) {
		ASSERT_EQ(EFAULT, errno);
	} else {
		ASSERT_EQ(sizeof(got), n);
		ASSERT_EQ(n, read(pfd[0], got, sizeof(got)));
		ASSERT_EQ(0, memcmp(got, expect, sizeof(got)));
	}
	close(pfd[0]);
	close(pfd[1]);
	return n >= 0;
}

static bool kernel_reads_futex(struct __test_metadata *_metadata,
			       const char *p, const unsigned char *expect)
{
	struct timespec ts = { 0, 0 };
	uint32_t word;
	long r;

	memcpy(&word, expect, 4);
	/* never the value there: a readable word gives EAGAIN at once */
	r = syscall(SYS_futex, p, FUTEX_WAIT_PRIVATE, ~word, &ts, NULL, 0);
	ASSERT_EQ(-1, r);
	if (errno == EFAULT)
		return false;
	ASSERT_EQ(EAGAIN, errno);
	return true;
}

static bool kernel_reads_sigmask(struct __test_metadata *_metadata,
				 const char *p)
{
	sigset_t old;
	long r;

	ASSERT_EQ(0, sigprocmask(SIG_SETMASK, NULL, &old));
	r = syscall(SYS_rt_sigprocmask, SIG_BLOCK, p + 8, NULL, 8);
	ASSERT_EQ(0, sigprocmask(SIG_SETMASK, &old, NULL));
	if (r)
		ASSERT_EQ(EFAULT, errno);
	return r == 0;
}

TEST_F(execonly, el0_and_kernel_agree)
{
	bool el0, by_write, by_futex, by_sigmask;
	uint32_t v = 0;

	el0 = probe_read(self->page, &v);
	if (el0) {
		EXPECT_EQ(*(uint32_t *)self->expect, v);
	} else {
		/* ABI: SIGSEGV/SEGV_ACCERR at the address, a read fault */
		EXPECT_EQ(SIGSEGV, pan_last.signo);
		EXPECT_EQ(SEGV_ACCERR, pan_last.code);
		EXPECT_EQ((uintptr_t)self->page, pan_last.addr);
		ASSERT_TRUE(pan_last.has_esr);
		EXPECT_EQ(ESR_EC_DABT_LOW, ESR_EC(pan_last.esr));
		EXPECT_EQ(0, pan_last.esr & ESR_WNR);
		if (variant->backing == ANON_WRITTEN ||
		    variant->backing == SHARED_WRITTEN) {
			/* the page is mapped: only the permissions refuse */
			EXPECT_TRUE(fsc_is_permission(ESR_FSC(pan_last.esr)))
				TH_LOG("DFSC 0x%llx (%s)",
				       (unsigned long long)ESR_FSC(pan_last.esr),
				       fsc_class(ESR_FSC(pan_last.esr)));
		} else {
			EXPECT_TRUE(fsc_is_translation(ESR_FSC(pan_last.esr)) ||
				    fsc_is_permission(ESR_FSC(pan_last.esr)))
				TH_LOG("DFSC 0x%llx (%s)",
				       (unsigned long long)ESR_FSC(pan_last.esr),
				       fsc_class(ESR_FSC(pan_last.esr)));
		}
	}

	by_write = kernel_reads_write(_metadata, self->page, self->expect);
	by_futex = kernel_reads_futex(_metadata, self->page, self->expect);
	by_sigmask = kernel_reads_sigmask(_metadata, self->page);

	TH_LOG("EL0 %s, write() %s, FUTEX_WAIT %s, rt_sigprocmask() %s",
	       el0 ? "reads" : "faults", by_write ? "reads" : "EFAULT",
	       by_futex ? "reads" : "EFAULT", by_sigmask ? "reads" : "EFAULT");
	EXPECT_EQ(el0, by_write);
	EXPECT_EQ(el0, by_futex);
	EXPECT_EQ(el0, by_sigmask);

	/* EL0 once more: the kernel's accesses changed nothing */
	EXPECT_EQ(el0, probe_read(self->page, &v));
}

/*
 * Which of the two applies, when the caller says whether the CPU has
 * FEAT_PAN3: with it, PROT_EXEC alone is not readable from EL0; without
 * it, PROT_EXEC implies PROT_READ.
 */
TEST_F(execonly, el0_reads_as_epan_says)
{
	uint32_t v = 0;
	bool el0;

	if (epan_expected < 0)
		SKIP(return,
		     "no --epan=yes|no or ARM64_PAN_EPAN=yes|no: whether PROT_EXEC alone is readable is not known here");
	el0 = probe_read(self->page, &v);
	EXPECT_EQ(!epan_expected, el0)
		TH_LOG("%s", epan_expected ?
		       "EPAN expected: PROT_EXEC alone must not be readable" :
		       "no EPAN expected: PROT_EXEC implies PROT_READ");
}

/*
 * An iovec array on the page, pointing into the page: writev() fetches
 * the array with unsafe_get_user() and the data with copy_from_user().
 */
TEST_F(execonly, iovec_array)
{
	unsigned char got[16];
	int pfd[2];
	uint32_t v;
	ssize_t n;
	bool el0;

	if (variant->backing != ANON_WRITTEN && variant->backing != SHARED_WRITTEN)
		SKIP(return, "the page holds no iovec");

	el0 = probe_read(self->page, &v);
	ASSERT_EQ(0, pipe(pfd));
	n = writev(pfd[1], (struct iovec *)(self->page + IOV_OFFSET), 1);
	if (n < 0) {
		EXPECT_EQ(EFAULT, errno);
	} else {
		EXPECT_EQ(16, n);
		EXPECT_EQ(16, read(pfd[0], got, sizeof(got)));
		EXPECT_EQ(0, memcmp(got, self->expect + 64, sizeof(got)));
	}
	EXPECT_EQ(el0, n >= 0);
	close(pfd[0]);
	close(pfd[1]);
}

/* Executable, whatever EPAN: PROT_EXEC must never be lost. */
TEST_F(execonly, el0_exec)
{
	if (variant->backing != ANON_WRITTEN && variant->backing != SHARED_WRITTEN)
		SKIP(return, "no code on this page");
	EXPECT_TRUE(probe_exec(self->page))
		TH_LOG("signal %d code %d", pan_last.signo, pan_last.code);
}

/* PROT_READ|PROT_EXEC is readable by both; PROT_NONE by neither. */
TEST_F(execonly, read_exec_and_none)
{
	long psz = page_size();
	uint32_t v;

	ASSERT_EQ(0, mprotect(self->page, psz, PROT_READ | PROT_EXEC));
	EXPECT_TRUE(probe_read(self->page, &v));
	EXPECT_TRUE(kernel_reads_write(_metadata, self->page, self->expect));
	EXPECT_TRUE(kernel_reads_futex(_metadata, self->page, self->expect));

	ASSERT_EQ(0, mprotect(self->page, psz, PROT_NONE));
	EXPECT_FALSE(probe_read(self->page, &v));
	EXPECT_EQ(SEGV_ACCERR, pan_last.code);
	EXPECT_FALSE(kernel_reads_write(_metadata, self->page, self->expect));
	EXPECT_FALSE(kernel_reads_futex(_metadata, self->page, self->expect));

	/* and back to execute-only: the same answer as the first time */
	ASSERT_EQ(0, mprotect(self->page, psz, PROT_EXEC));
	EXPECT_EQ(probe_read(self->page, &v),
		  kernel_reads_write(_metadata, self->page, self->expect));
}

int main(int argc, char **argv)
{
	int i, j;

	epan_expected = parse_epan(getenv("ARM64_PAN_EPAN"));
	for (i = 1, j = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--epan=", 7))
			epan_expected = parse_epan(argv[i] + 7);
		else
			argv[j++] = argv[i];
	}
	argv[j] = NULL;
	return test_harness_run(j, argv);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tagged addresses from EL0, through system calls and through faults.
 *
 * The contract (Documentation/arch/arm64/tagged-pointers.rst and
 * tagged-address-abi.rst):
 *  - TCR_EL1.TBI0 is set: EL0 loads and stores through a pointer with a
 *    non-zero top byte reach the same memory as the untagged pointer;
 *  - with PR_SET_TAGGED_ADDR_CTRL(PR_TAGGED_ADDR_ENABLE), a system call
 *    given a valid tagged pointer behaves as with the untagged pointer
 *    (here: write(), read(), readv() and its iovec array, futex() loads,
 *    stores and PI operations, uname(), partial copies up to a guard
 *    page, EFAULT past one, on pages the kernel must fault in itself);
 *    the control is per thread, inherited on fork() and cleared on exec();
 *  - a fault at a tagged address reports si_addr without its tag unless
 *    the handler was installed with SA_EXPOSE_TAGBITS, and with its tag
 *    if it was; sigcontext.fault_address never holds the tag.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>

#include "kselftest_harness.h"
#include "pan_util.h"

#ifndef PR_SET_TAGGED_ADDR_CTRL
#define PR_SET_TAGGED_ADDR_CTRL	55
#define PR_GET_TAGGED_ADDR_CTRL	56
#endif
#ifndef PR_TAGGED_ADDR_ENABLE
#define PR_TAGGED_ADDR_ENABLE	1UL	/* bit 0 */
#endif

#define TAG_SHIFT	56
#define TAG_MASK	(0xfful << TAG_SHIFT)
#define EXEC_CHECK_ENV	"ARM64_PAN_TAGGED_EXEC_CHECK"

static void *tag(void *p, unsigned long t)
{
	return (void *)(((uintptr_t)p & ~TAG_MASK) | (t << TAG_SHIFT));
}

/*
 * When this program is exec()ed by the exec test, it only reports the
 * tagged address control it started with (as its exit status) and exits.
 */
static void __attribute__((constructor)) exec_check(void)
{
	if (getenv(EXEC_CHECK_ENV))
		_exit(prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0) == 0 ? 0 : 1);
}

static int enable_tagged_abi(void)
{
	if (prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 0, 0, 0))
		return -errno;
	return 0;
}

/* Enables the tagged address ABI; false, the test skipped, where it cannot. */
static bool tagged_abi_or_skip(struct __test_metadata *_metadata)
{
	int r = enable_tagged_abi();

	if (r == -EINVAL)
		SKIP(return false,
		     "tagged address ABI not available (disabled by sysctl abi.tagged_addr_disabled, or not built)");
	ASSERT_EQ(0, r);
	return true;
}

/* EL0 itself: TBI0 lets the top byte through */
TEST(el0_access)
{
	char *p = mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t v = 0;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, pan_catch_faults(false));
	/* the first touch is through the tagged pointer: a fault to handle */
	ASSERT_TRUE(probe_write(tag(p + 64, 0x5a), 0xcafe0001))
		TH_LOG("store through a tagged pointer: signal %d code %d",
		       pan_last.signo, pan_last.code);
	EXPECT_EQ(0xcafe0001, *(uint32_t *)(p + 64));
	ASSERT_TRUE(probe_read(tag(p + 64, 0xff), &v));
	EXPECT_EQ(0xcafe0001, v);
	ASSERT_TRUE(probe_read(tag(p + 64, 0x01), &v));
	EXPECT_EQ(0xcafe0001, v);
	munmap(p, page_size());
}

TEST(prctl_control)
{
	/* default: disabled */
	EXPECT_EQ(0, prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0));
	if (!tagged_abi_or_skip(_metadata))
		return;
	EXPECT_EQ(PR_TAGGED_ADDR_ENABLE,
		  prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0) & PR_TAGGED_ADDR_ENABLE);
	/* arguments 3 to 5 must be 0 */
	errno = 0;
	EXPECT_EQ(-1, prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 1, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, prctl(PR_SET_TAGGED_ADDR_CTRL, 0, 0, 0, 0));
	EXPECT_EQ(0, prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0));
}

/* Without the ABI, a tagged pointer to a system call is not taken as valid. */
TEST(syscall_without_abi)
{
	char *p = mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int pfd[2];

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0));
	ASSERT_EQ(0, pipe(pfd));
	memset(p, 'a', 64);
	errno = 0;
	EXPECT_EQ(-1, write(pfd[1], tag(p, 0x2b), 16));
	EXPECT_EQ(EFAULT, errno);
	close(pfd[0]);
	close(pfd[1]);
	munmap(p, page_size());
}

FIXTURE(tagged) {
	char *map;	/* 2 pages and a guard page, never touched */
	char *guard;
	unsigned long t;
};

FIXTURE_VARIANT(tagged) {
	unsigned long tag;
};

FIXTURE_VARIANT_ADD(tagged, tag_01) { .tag = 0x01 };
FIXTURE_VARIANT_ADD(tagged, tag_5a) { .tag = 0x5a };
FIXTURE_VARIANT_ADD(tagged, tag_80) { .tag = 0x80 };
FIXTURE_VARIANT_ADD(tagged, tag_ff) { .tag = 0xff };

FIXTURE_SETUP(tagged)
{
	self->map = map_with_guard(2);
	ASSERT_NE(NULL, self->map);
	self->guard = self->map + 2 * page_size();
	self->t = variant->tag;
}

FIXTURE_TEARDOWN(tagged)
{
	munmap(self->map, 3 * page_size());
}

/* Into and out of pages the kernel has to fault in, through tagged pointers. */
TEST_F(tagged, read_write_pipe)
{
	char *in = self->map, *out = self->map + page_size();
	char z[32], zero[32] = { 0 };
	int pfd[2];

	if (!tagged_abi_or_skip(_metadata))
		return;
	ASSERT_EQ(0, pipe(pfd));
	/* the kernel stores first, to a page never touched */
	ASSERT_EQ(11, write(pfd[1], "hello, tags", 11));
	ASSERT_EQ(11, read(pfd[0], tag(in, self->t), 64));
	EXPECT_EQ(0, memcmp(in, "hello, tags", 11));
	/* and loads from a page never touched: zeroes */
	ASSERT_EQ(32, write(pfd[1], tag(out + 100, self->t), 32));
	ASSERT_EQ(32, read(pfd[0], z, 32));
	EXPECT_EQ(0, memcmp(z, zero, 32));
	close(pfd[0]);
	close(pfd[1]);
}

TEST_F(tagged, readv_tagged_iovec)
{
	char *buf = self->map + 256;
	struct iovec *iov = (struct iovec *)(self->map + page_size());
	int pfd[2];

	if (!tagged_abi_or_skip(_metadata))
		return;
	ASSERT_EQ(0, pipe(pfd));
	iov[0].iov_base = tag(buf, self->t);
	iov[0].iov_len = 5;
	iov[1].iov_base = tag(buf + 5, self->t ^ 0x0f);
	iov[1].iov_len = 5;
	ASSERT_EQ(10, write(pfd[1], "0123456789", 10));
	ASSERT_EQ(10, readv(pfd[0], tag(iov, self->t), 2));
	EXPECT_EQ(0, memcmp(buf, "0123456789", 10));
	close(pfd[0]);
	close(pfd[1]);
}

/*
 * Up to a guard page: the same byte counts as untagged (see
 * partial_copy.c), then EFAULT, and nothing lost.
 */
TEST_F(tagged, partial_copy)
{
	char *buf = self->guard - 37;
	int pfd[2], fd, z;
	char c = 0;
	ssize_t n;

	if (!tagged_abi_or_skip(_metadata))
		return;
	/* clear_user(): doubleword granular at worst, see partial_copy.c */
	z = open("/dev/zero", O_RDONLY);
	if (z >= 0) {
		memset(buf, 0x11, 37);
		n = read(z, tag(buf, self->t), 100);
		EXPECT_GE(37, n);
		EXPECT_LE(37 - 7, n);
		for (int i = 0; i < n; i++)
			EXPECT_EQ(0, buf[i]);
		close(z);
	}
	/* copy_from_user() into the page cache, then copy_to_user() back */
	fd = tmpfile_fd();
	ASSERT_LE(0, fd);
	for (int i = 0; i < 37; i++)
		buf[i] = i + 1;
	n = write(fd, tag(buf, self->t), 100);
	EXPECT_EQ(37, n);
	memset(buf, 0, 37);
	n = pread(fd, tag(buf, self->t), 100, 0);
	EXPECT_EQ(37, n);
	for (int i = 0; i < 37; i++)
		EXPECT_EQ(i + 1, buf[i]);
	n = pread(fd, tag(buf + 30, self->t), 100, 0);
	EXPECT_EQ(7, n);
	close(fd);
	/* EFAULT at the guard page, and the byte stays in the pipe */
	ASSERT_EQ(0, pipe(pfd));
	errno = 0;
	EXPECT_EQ(-1, write(pfd[1], tag(self->guard, self->t), 1));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(1, write(pfd[1], "x", 1));
	errno = 0;
	EXPECT_EQ(-1, read(pfd[0], tag(self->guard, self->t), 1));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(1, read(pfd[0], tag(&c, 0), 1));
	EXPECT_EQ('x', c);
	close(pfd[0]);
	close(pfd[1]);
}

TEST_F(tagged, futex)
{
	uint32_t *w = (uint32_t *)(self->map + 64), *w2 = (uint32_t *)(self->map + 128);
	uint32_t *pi = (uint32_t *)(self->map + page_size() + 64);
	struct timespec ts = { 0, 0 };
	pid_t tid = syscall(SYS_gettid);

	if (!tagged_abi_or_skip(_metadata))
		return;
	/* get_user() on a page never touched: 0 */
	errno = 0;
	EXPECT_EQ(-1, syscall(SYS_futex, tag(w, self->t), FUTEX_WAIT_PRIVATE, 1,
			      &ts, NULL, 0));
	EXPECT_EQ(EAGAIN, errno);
	/* the atomic op: *w2 += 5 */
	*w2 = 10;
	EXPECT_EQ(0, syscall(SYS_futex, tag(w, self->t), FUTEX_WAKE_OP_PRIVATE, 1, 1,
			     tag(w2, self->t),
			     FUTEX_OP(FUTEX_OP_ADD, 5, FUTEX_OP_CMP_EQ, 0)));
	EXPECT_EQ(15, *w2);
	/* a PI lock on a page never touched: cmpxchg 0 -> tid */
	EXPECT_EQ(0, syscall(SYS_futex, tag(pi, self->t), FUTEX_LOCK_PI_PRIVATE, 0,
			     NULL, NULL, 0));
	EXPECT_EQ((uint32_t)tid, *pi);
	EXPECT_EQ(0, syscall(SYS_futex, tag(pi, self->t), FUTEX_UNLOCK_PI_PRIVATE, 0,
			     NULL, NULL, 0));
	EXPECT_EQ(0, *pi);
	/* the guard page: EFAULT, tagged or not */
	errno = 0;
	EXPECT_EQ(-1, syscall(SYS_futex, tag(self->guard, self->t), FUTEX_WAIT_PRIVATE,
			      0, &ts, NULL, 0));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(tagged, uname)
{
	struct utsname u1, *u2 = (struct utsname *)self->map;

	if (!tagged_abi_or_skip(_metadata))
		return;
	ASSERT_EQ(0, uname(&u1));
	ASSERT_EQ(0, uname(tag(u2, self->t)));
	EXPECT_EQ(0, memcmp(&u1, u2, sizeof(u1)));
}

/* Inherited on fork(), cleared on exec(). */
TEST(fork_and_exec)
{
	char *p = mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int status, pfd[2];
	pid_t pid;

	ASSERT_NE(MAP_FAILED, p);
	if (!tagged_abi_or_skip(_metadata))
		return;
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0) != PR_TAGGED_ADDR_ENABLE)
			_exit(2);
		if (write(pfd[1], tag(p, 0x42), 1) != 1)
			_exit(3);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("the child did not inherit the control");

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		static char *const argv[] = { "tagged", NULL };
		static char *const envp[] = { EXEC_CHECK_ENV "=1", NULL };

		execve("/proc/self/exe", argv, envp);
		_exit(4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_NE(4, WEXITSTATUS(status)) TH_LOG("execve failed");
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("exec kept the tagged address control");
	close(pfd[0]);
	close(pfd[1]);
	munmap(p, page_size());
}

/*
 * Faults at tagged addresses: si_addr without the tag, or with it under
 * SA_EXPOSE_TAGBITS; fault_address and the ESR as for the untagged one.
 */
FIXTURE(tagfault) {
	char *unmapped;
	char *ro;
};

FIXTURE_VARIANT(tagfault) {
	bool expose;
	bool abi;	/* with the tagged address ABI on: no difference */
};

FIXTURE_VARIANT_ADD(tagfault, plain) { .expose = false };
FIXTURE_VARIANT_ADD(tagfault, expose_tagbits) { .expose = true };
FIXTURE_VARIANT_ADD(tagfault, plain_abi) { .expose = false, .abi = true };
FIXTURE_VARIANT_ADD(tagfault, expose_tagbits_abi) { .expose = true, .abi = true };

FIXTURE_SETUP(tagfault)
{
	self->unmapped = unmapped_page();
	ASSERT_NE(NULL, self->unmapped);
	self->ro = mmap(NULL, page_size(), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->ro);
}

FIXTURE_TEARDOWN(tagfault)
{
	munmap(self->ro, page_size());
}

static void check_tagged_fault(struct __test_metadata *_metadata, bool expose,
			       void *untagged, void *tagged, int code, bool write)
{
	EXPECT_EQ(SIGSEGV, pan_last.signo);
	EXPECT_EQ(code, pan_last.code);
	EXPECT_EQ((uintptr_t)(expose ? tagged : untagged), pan_last.addr);
	EXPECT_EQ((uintptr_t)untagged, pan_last.fault_address);
	ASSERT_TRUE(pan_last.has_esr);
	EXPECT_EQ(ESR_EC_DABT_LOW, ESR_EC(pan_last.esr));
	EXPECT_EQ(write ? ESR_WNR : 0, pan_last.esr & ESR_WNR);
	TH_LOG("si_addr %#lx, fault_address %#llx, ESR %#llx",
	       (unsigned long)pan_last.addr,
	       (unsigned long long)pan_last.fault_address,
	       (unsigned long long)pan_last.esr);
}

TEST_F(tagfault, signal_address)
{
	static const unsigned long tags[] = { 0x01, 0x5a, 0x80, 0xff };
	uint32_t v;

	if (variant->abi && !tagged_abi_or_skip(_metadata))
		return;
	ASSERT_EQ(0, pan_catch_faults(variant->expose));
	for (size_t i = 0; i < ARRAY_SIZE(tags); i++) {
		void *u = self->unmapped + 8, *t = tag(u, tags[i]);
		void *ru = self->ro + 16, *rt = tag(ru, tags[i]);

		ASSERT_FALSE(probe_read(t, &v));
		check_tagged_fault(_metadata, variant->expose, u, t, SEGV_MAPERR, false);
		ASSERT_FALSE(probe_write(t, 1));
		check_tagged_fault(_metadata, variant->expose, u, t, SEGV_MAPERR, true);
		ASSERT_FALSE(probe_write(rt, 1));
		check_tagged_fault(_metadata, variant->expose, ru, rt, SEGV_ACCERR, true);
	}
	/* an untagged address: the same with either flag */
	ASSERT_FALSE(probe_read(self->unmapped, &v));
	EXPECT_EQ((uintptr_t)self->unmapped, pan_last.addr);
}

TEST_HARNESS_MAIN

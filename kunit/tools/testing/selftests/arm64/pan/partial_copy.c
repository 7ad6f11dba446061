// SPDX-License-Identifier: GPL-2.0-only
/*
 * System calls that copy to and from user buffers that run into a guard
 * page part-way: how many bytes they report, that the part they did not
 * write is untouched, and that a failed read of user memory leaves
 * nothing behind.
 *
 * The contract, from the documentation of each call:
 *  - read(2), write(2) on a regular file: "the number of bytes read
 *    [written] is returned ... and the file position is advanced by this
 *    number"; fewer bytes than asked is not an error. The bytes reported
 *    must be the file's (read) or land in the file (write), and the file
 *    position and size must say the same number.
 *  - The kernel's user copy contract, above raw_copy_from_user() in
 *    include/linux/uaccess.h: a copy that faults "is permitted to copy
 *    less than had been fetched", reports what it stored, and returns
 *    "nothing copied" only "when nothing could be copied". One copy of a
 *    buffer with @avail accessible bytes thus reports 1 to @avail bytes,
 *    and they are the right ones: what every case below asserts first.
 *  - arm64 without FEAT_MOPS copies in accesses of up to 16 bytes
 *    (arch/arm64/lib/copy_template.S; a pair is two LDTR/STTR), and its
 *    fixups count none of the access that faulted, so one copy may
 *    report up to 15 bytes short of the guard page. The fixups of
 *    copy_to_user.S and copy_from_user.S meet the "nothing only when
 *    nothing could be copied" rule with a one-byte retry when the first
 *    access faulted ("try harder": commit 295cf156231c "arm64: Avoid
 *    premature usercopy failure"), and no more: "to guarantee making
 *    *some* forward progress". With FEAT_MOPS (the CPY*RT/WT path of
 *    copy_from_user.S and copy_to_user.S) the CPY* instructions stop at
 *    the faulting byte.
 *  - The exact count comes from the callers, not from the copy:
 *    copy_page_to_iter() (lib/iov_iter.c; read(2), pread(2) and readv(2)
 *    of a page cache file) copies again after a short copy until one
 *    copies nothing, and generic_perform_write() (mm/filemap.c; write(2))
 *    goes on while a copy makes progress and the fault-in finds a byte to
 *    read. With the progress above, both end at the guard page: every
 *    accessible byte and none after it. That is what the kernel's code
 *    does, not an ABI: read(2) and write(2) promise only "the number of
 *    bytes" transferred. So the cases check it second, and say which of
 *    the two a count breaks. The kernel's own
 *    lib/tests/usercopy_kunit.c checks no partial copy.
 *  - read(2) of /dev/zero (null(4)): the bytes reported read are zero.
 *  - uname(2), getcwd(3), rt_sigaction(2), prctl(2) PR_SET_NAME: EFAULT
 *    when the buffer is not all accessible; a failed call changes nothing
 *    (the name, the disposition), and what it may have stored before the
 *    fault is part of the answer, never other bytes.
 *  - futex(2) FUTEX_WAIT reads one word (get_user()): EFAULT at the guard
 *    page, EAGAIN for a differing word just before it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>

#include "kselftest_harness.h"
#include "pan_util.h"

#define CANARY		0xa5

static unsigned char file_byte(size_t i)
{
	return (unsigned char)(i * 7 + 3 + (i >> 8));
}

/*
 * Two read-write pages and a guard page. Buffers end at the guard page,
 * @avail bytes before it; their length asks for @extra bytes more.
 */
FIXTURE(edge) {
	char *map;
	char *guard;
	int fd;
	size_t file_len;
};

FIXTURE_VARIANT(edge) {
	size_t avail;	/* accessible bytes before the guard page */
};

FIXTURE_VARIANT_ADD(edge, avail_1) { .avail = 1 };
FIXTURE_VARIANT_ADD(edge, avail_7) { .avail = 7 };
FIXTURE_VARIANT_ADD(edge, avail_8) { .avail = 8 };
FIXTURE_VARIANT_ADD(edge, avail_15) { .avail = 15 };
FIXTURE_VARIANT_ADD(edge, avail_16) { .avail = 16 };
FIXTURE_VARIANT_ADD(edge, avail_63) { .avail = 63 };
FIXTURE_VARIANT_ADD(edge, avail_129) { .avail = 129 };
FIXTURE_VARIANT_ADD(edge, avail_4095) { .avail = 4095 };
FIXTURE_VARIANT_ADD(edge, avail_page_plus_37) { .avail = 4096 + 37 };

FIXTURE_SETUP(edge)
{
	long psz = page_size();
	unsigned char *data;

	ASSERT_LE(variant->avail, 2 * psz);
	self->map = map_with_guard(2);
	ASSERT_NE(NULL, self->map);
	self->guard = self->map + 2 * psz;
	memset(self->map, CANARY, 2 * psz);

	self->file_len = 3 * psz;
	data = malloc(self->file_len);
	ASSERT_NE(NULL, data);
	for (size_t i = 0; i < self->file_len; i++)
		data[i] = file_byte(i);
	self->fd = tmpfile_fd();
	ASSERT_LE(0, self->fd) TH_LOG("no temporary file: %s", strerror(errno));
	ASSERT_EQ(self->file_len, pwrite(self->fd, data, self->file_len, 0));
	free(data);
}

FIXTURE_TEARDOWN(edge)
{
	munmap(self->map, 3 * page_size());
	close(self->fd);
}

/* The bytes of the mapping before @from are untouched. */
static void check_canary(struct __test_metadata *_metadata, const char *map,
			 const char *from)
{
	const char *p = map;

	while (p < from && (unsigned char)*p == CANARY)
		p++;
	ASSERT_EQ(from - map, p - map) TH_LOG("byte at offset %ld changed", (long)(p - map));
}

/*
 * @n, what a read or write through a buffer with @avail accessible bytes
 * before the guard page returned: first what the copy contract gives,
 * then the exact count of the callers' loops (see the top of the file).
 */
static void check_count(struct __test_metadata *_metadata, ssize_t n,
			size_t avail)
{
	int err = errno;

	ASSERT_LT(0, n)
		TH_LOG("%zd (%s), %zu accessible: a copy that could copy must copy",
		       n, n < 0 ? strerror(err) : "nothing", avail);
	ASSERT_GE((ssize_t)avail, n)
		TH_LOG("%zd bytes reported, %zu accessible", n, avail);
	EXPECT_EQ((ssize_t)avail, n)
		TH_LOG("%zd bytes of %zu: the callers' loops stopped short",
		       n, avail);
}

TEST_F(edge, read_file)
{
	size_t avail = variant->avail, ask = avail + 100;
	char *buf = self->guard - avail;
	char more[128];
	ssize_t n, i;

	ASSERT_EQ(0, lseek(self->fd, 0, SEEK_SET));
	n = read(self->fd, buf, ask);
	check_count(_metadata, n, avail);
	i = 0;
	while (i < n && (unsigned char)buf[i] == file_byte(i))
		i++;
	ASSERT_EQ(n, i) TH_LOG("byte %zd is %#x, the file's %#x", i,
			       (unsigned char)buf[i], file_byte(i));
	/* nothing written before the buffer */
	check_canary(_metadata, self->map, buf);
	/* the position says the same, and no byte was lost */
	EXPECT_EQ(n, lseek(self->fd, 0, SEEK_CUR));
	ASSERT_EQ(sizeof(more), read(self->fd, more, sizeof(more)));
	for (size_t i = 0; i < sizeof(more); i++)
		ASSERT_EQ(file_byte(n + i), (unsigned char)more[i]);
}

TEST_F(edge, pread_file)
{
	size_t avail = variant->avail;
	char *buf = self->guard - avail;
	off_t off = 1000;
	ssize_t n;

	n = pread(self->fd, buf, avail + 4096, off);
	check_count(_metadata, n, avail);
	for (ssize_t i = 0; i < n; i++)
		ASSERT_EQ(file_byte(off + i), (unsigned char)buf[i]);
	check_canary(_metadata, self->map, buf);
}

TEST_F(edge, readv_file)
{
	size_t avail = variant->avail;
	char *buf = self->guard - avail;
	char first[32];
	struct iovec iov[2] = {
		{ first, sizeof(first) },
		{ buf, avail + 64 },
	};
	ssize_t n;

	ASSERT_EQ(0, lseek(self->fd, 0, SEEK_SET));
	n = readv(self->fd, iov, 2);
	ASSERT_LE((ssize_t)sizeof(first), n) TH_LOG("readv: %s", strerror(errno));
	check_count(_metadata, n - (ssize_t)sizeof(first), avail);
	for (size_t i = 0; i < sizeof(first); i++)
		ASSERT_EQ(file_byte(i), (unsigned char)first[i]);
	for (ssize_t i = 0; i < n - (ssize_t)sizeof(first); i++)
		ASSERT_EQ(file_byte(sizeof(first) + i), (unsigned char)buf[i]);
	EXPECT_EQ(n, lseek(self->fd, 0, SEEK_CUR));
}

TEST_F(edge, write_file)
{
	size_t avail = variant->avail;
	char *buf = self->guard - avail;
	char back[8192 + 64];
	struct stat st;
	ssize_t n, i;

	for (i = 0; i < (ssize_t)avail; i++)
		buf[i] = (char)(i ^ 0x3c);
	ASSERT_EQ(0, ftruncate(self->fd, 0));
	ASSERT_EQ(0, lseek(self->fd, 0, SEEK_SET));
	n = write(self->fd, buf, avail + 100);
	check_count(_metadata, n, avail);
	EXPECT_EQ(n, lseek(self->fd, 0, SEEK_CUR));
	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_EQ(n, st.st_size);
	ASSERT_EQ(n, pread(self->fd, back, sizeof(back), 0));
	i = 0;
	while (i < n && back[i] == (char)(i ^ 0x3c))
		i++;
	ASSERT_EQ(n, i) TH_LOG("byte %zd of the file is %#x, %#x written", i,
			       (unsigned char)back[i], (unsigned char)(i ^ 0x3c));
}

/*
 * write(2) of fewer than 16 bytes from a buffer with fewer than 8 before
 * the guard page. copy_template.S copies under 16 bytes starting with an
 * 8-byte load, which runs into the guard page: only copy_from_user()'s
 * one-byte retry makes progress (write_file's larger copies start with
 * the loads that align the source, which fit). Without it the copy
 * reports nothing while generic_perform_write()'s fault-in finds the
 * first byte readable, and it tries again until the timeout kills it.
 * (read_file's first store, an STTR pair, runs into the guard page for
 * 1 and 7 bytes and needs copy_to_user()'s retry the same way.)
 */
TEST_F_TIMEOUT(edge, write_file_short, 10)
{
	size_t avail = variant->avail;
	char *buf = self->guard - avail;
	char back[16];
	ssize_t n;

	if (avail >= 8)
		SKIP(return, "the first 8-byte load fits");
	for (size_t i = 0; i < avail; i++)
		buf[i] = (char)(i ^ 0x5a);
	ASSERT_EQ(0, ftruncate(self->fd, 0));
	n = pwrite(self->fd, buf, avail + 8, 0);
	check_count(_metadata, n, avail);
	ASSERT_EQ(n, pread(self->fd, back, sizeof(back), 0));
	for (ssize_t i = 0; i < n; i++)
		ASSERT_EQ((char)(i ^ 0x5a), back[i]);
}

/*
 * clear_user() (read(2) of /dev/zero) is not held to byte exactness: it
 * may stop at the doubleword whose store faulted (arm64 clears eight
 * bytes at a time where it lacks FEAT_MOPS, with no byte retry). It must
 * report no more than it cleared, clear what it reports, and report
 * something when a whole doubleword was accessible.
 */
TEST_F(edge, read_dev_zero)
{
	size_t avail = variant->avail;
	char *buf = self->guard - avail;
	ssize_t n;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		SKIP(return, "no /dev/zero: %s", strerror(errno));
	n = read(fd, buf, avail + 100);
	close(fd);
	if (n < 0) {
		EXPECT_EQ(EFAULT, errno);
		EXPECT_GT(8, avail) TH_LOG("EFAULT with %zu bytes accessible", avail);
		n = 0;
	}
	EXPECT_GE(avail, n);
	EXPECT_LE(avail < 8 ? 0 : avail - 7, n)
		TH_LOG("%zd bytes cleared of %zu accessible", n, avail);
	for (ssize_t i = 0; i < n; i++)
		ASSERT_EQ(0, buf[i]);
	check_canary(_metadata, self->map, buf);
}

/*
 * uname(2) into a struct that runs into the guard page: EFAULT, and
 * whatever was stored is the beginning of the true answer.
 */
TEST_F(edge, uname_efault)
{
	size_t avail = variant->avail;
	struct utsname truth;
	char *buf;

	if (avail >= sizeof(truth))
		SKIP(return, "the whole struct fits");
	ASSERT_EQ(0, uname(&truth));
	buf = self->guard - avail;
	errno = 0;
	EXPECT_EQ(-1, syscall(SYS_uname, buf));
	EXPECT_EQ(EFAULT, errno);
	for (size_t i = 0; i < avail; i++) {
		unsigned char c = buf[i];

		ASSERT_TRUE(c == CANARY || c == ((unsigned char *)&truth)[i])
			TH_LOG("byte %zu is %#x: neither the old nor the true one", i, c);
	}
	check_canary(_metadata, self->map, buf);
}

/*
 * prctl(PR_SET_NAME) of a string that runs into the guard page before
 * its NUL: EFAULT, and the name is unchanged. The kernel reads at most 15
 * bytes (a longer name "is silently truncated", prctl(2)): with 15 or
 * more accessible, the call succeeds with the first 15. A string that
 * ends just before the guard page is taken whole.
 */
TEST_F(edge, set_name_at_guard)
{
	char before[32], after[32], want[16];
	size_t avail = variant->avail;
	char *buf = self->guard - avail;

	ASSERT_EQ(0, prctl(PR_SET_NAME, "pan-before", 0, 0, 0));
	ASSERT_EQ(0, prctl(PR_GET_NAME, before, 0, 0, 0));
	memset(buf, 'x', avail);
	errno = 0;
	if (avail < 15) {
		EXPECT_EQ(-1, prctl(PR_SET_NAME, buf, 0, 0, 0));
		EXPECT_EQ(EFAULT, errno);
		ASSERT_EQ(0, prctl(PR_GET_NAME, after, 0, 0, 0));
		EXPECT_STREQ(before, after);
	} else {
		EXPECT_EQ(0, prctl(PR_SET_NAME, buf, 0, 0, 0));
		ASSERT_EQ(0, prctl(PR_GET_NAME, after, 0, 0, 0));
		memset(want, 'x', 15);
		want[15] = '\0';
		EXPECT_STREQ(want, after);
	}

	buf[avail - 1] = '\0';
	EXPECT_EQ(0, prctl(PR_SET_NAME, buf, 0, 0, 0));
	ASSERT_EQ(0, prctl(PR_GET_NAME, after, 0, 0, 0));
	EXPECT_EQ(0, strncmp(buf, after, 15));
}

/*
 * rt_sigaction(2) with a struct sigaction that runs into the guard page:
 * EFAULT, and the disposition is the old one.
 */
static void handler_a(int sig) { (void)sig; }

TEST_F(edge, sigaction_efault)
{
	struct sigaction sa = { 0 }, old;
	/* the kernel's struct sigaction: handler, flags, restorer, mask */
	size_t ksize = 8 + 8 + 8 + 8;
	size_t avail = variant->avail;
	char *buf;

	if (avail >= ksize)
		SKIP(return, "the whole struct fits");
	sa.sa_handler = handler_a;
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	buf = self->guard - avail;
	memset(buf, 0, avail);	/* a zero handler is SIG_DFL */
	errno = 0;
	EXPECT_EQ(-1, syscall(SYS_rt_sigaction, SIGUSR1, buf, NULL, 8));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(0, sigaction(SIGUSR1, NULL, &old));
	EXPECT_EQ((void *)handler_a, (void *)old.sa_handler);
}

/* get_user(): one word, at the guard page and just before it */
TEST_F(edge, futex_word)
{
	struct timespec ts = { 0, 0 };
	uint32_t *last = (uint32_t *)(self->guard - 4);

	if (variant->avail != 8)
		SKIP(return, "one variant is enough");
	*last = 1;
	errno = 0;
	EXPECT_EQ(-1, syscall(SYS_futex, last, FUTEX_WAIT_PRIVATE, 2, &ts, NULL, 0));
	EXPECT_EQ(EAGAIN, errno);
	errno = 0;
	EXPECT_EQ(-1, syscall(SYS_futex, self->guard, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0));
	EXPECT_EQ(EFAULT, errno);
	errno = 0;
	EXPECT_EQ(-1, syscall(SYS_futex, self->guard, FUTEX_WAIT, 0, &ts, NULL, 0));
	EXPECT_EQ(EFAULT, errno);
}

/* getcwd(2) into a buffer one byte short of the guard page */
TEST_F(edge, getcwd_efault)
{
	char truth[4096];
	size_t len, avail = variant->avail;
	char *buf;

	ASSERT_NE(NULL, getcwd(truth, sizeof(truth)));
	len = strlen(truth) + 1;
	if (avail >= len)
		SKIP(return, "the whole path fits");
	buf = self->guard - avail;
	errno = 0;
	EXPECT_EQ(-1, syscall(SYS_getcwd, buf, len));
	EXPECT_EQ(EFAULT, errno);
	for (size_t i = 0; i < avail; i++)
		ASSERT_TRUE((unsigned char)buf[i] == CANARY || buf[i] == truth[i]);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the uaccess windows of Privileged Access Never (PAN):
 * the privileged helpers open user access and close it again; and
 * get_user(), put_user(), copy_{to,from}_user(), clear_user(),
 * strncpy_from_user(), strnlen_user() and the futex helpers keep the
 * uaccess contract and leave user access closed, on a mapped page, on an
 * unmapped one, across the end of a mapping, and on pages they can read
 * but not write. Page faults are disabled, as pant_user_attach() leaves
 * them: a fault ends the access in its fixup at once.
 *
 * How "user access is closed" is seen depends on how PAN is provided:
 * - by the CPU (FEAT_PAN): PSTATE.PAN is 1, and TTBR0_EL1 keeps the
 *   attached mm's tables also in a kernel built with
 *   CONFIG_ARM64_SW_TTBR0_PAN, where the CPU's PAN must win;
 * - by software (CONFIG_ARM64_SW_TTBR0_PAN on a CPU without FEAT_PAN):
 *   TTBR0_EL1 points at reserved_pg_dir, and the ASID of the TTBR that
 *   TCR_EL1.A1 names (TTBR1_EL1) is the reserved one, 0; open, they hold
 *   the mm's pgd and ASID;
 * - not at all: there is no window to open or close (the SPSR's PAN bit
 *   is RES0); the routines must still keep the uaccess contract, and
 *   TTBR0_EL1 holds the mm's tables (with CnP only if the system uses it).
 * In the first two, an interrupt taken on the CPU saves the PAN state of
 * the interrupted context in the PAN bit of its SPSR (emulated by the
 * entry code for TTBR0 PAN), which the tests read from the interrupt
 * handler, where user access must be closed whatever the context had;
 * PSTATE.PAN, TTBR0_EL1 and the ASID are read before the interrupt and
 * again after it returned.
 */

#include <kunit/test.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>
#include <asm/futex.h>

#include "pan_helpers.h"
#include "pan_uaccess_helpers.h"

/*
 * uaccess_enable_privileged() opens user access and
 * uaccess_disable_privileged() closes it again, on a test-owned mm
 * (kunit_vm_mmap()). Before any user access, an assertion that TTBR0_EL1
 * holds what the kind of PAN makes it, so that a kernel installing the
 * wrong tables fails the case instead of faulting for ever.
 */
static void uaccess_privileged_toggles_pan(struct kunit *test)
{
	struct pant_user *u = test->priv;
	struct pant_state open;

	pant_user_attach(test, u);

	pant_expect_closed(test, u->mm, "attaching a user mm");
	/*
	 * With IRQs on, as in a real window: the state must survive an IRQ.
	 * Not preemptible, as no real window is: cpu_switch_to() saves
	 * neither PSTATE.PAN nor TTBR0_EL1, so a schedule() in the window
	 * would leave user access open for the next task on this CPU. Only
	 * sampled while open; checked once closed.
	 */
	preempt_disable();
	uaccess_enable_privileged();
	pant_sample_state(&open, u->mm, true);
	uaccess_disable_privileged();
	preempt_enable();
	pant_check_state(test, &open, "uaccess_enable_privileged()");
	pant_expect_closed(test, u->mm, "uaccess_disable_privileged()");

	pant_user_put(test, u);
}

/*
 * put_user(), get_user(), copy_to_user(), copy_from_user(), clear_user(),
 * arch_futex_atomic_op_inuser() and futex_atomic_cmpxchg_inatomic() on a
 * user page work, and leave user access closed.
 */
static void uaccess_user_page_pan_restored(struct kunit *test)
{
	struct pant_user *u = test->priv;
	u8 out[64], in[64];
	u32 __user *uptr;
	u32 val, oval;
	int ret, i;

	pant_user_attach(test, u);
	uptr = (u32 __user *)u->addr;
	for (i = 0; i < sizeof(out); i++)
		out[i] = 0xa5 ^ i;

	KUNIT_EXPECT_EQ(test, put_user(0x12345678U, uptr), 0);
	pant_expect_closed(test, u->mm, "put_user()");
	val = 0;
	KUNIT_EXPECT_EQ(test, get_user(val, uptr), 0);
	KUNIT_EXPECT_EQ(test, val, 0x12345678U);
	pant_expect_closed(test, u->mm, "get_user()");

	KUNIT_EXPECT_EQ(test, copy_to_user(uptr + 1, out, sizeof(out)), 0UL);
	pant_expect_closed(test, u->mm, "copy_to_user()");
	memset(in, 0, sizeof(in));
	KUNIT_EXPECT_EQ(test, copy_from_user(in, uptr + 1, sizeof(in)), 0UL);
	KUNIT_EXPECT_EQ(test, memcmp(in, out, sizeof(in)), 0);
	pant_expect_closed(test, u->mm, "copy_from_user()");

	KUNIT_EXPECT_EQ(test, clear_user(uptr + 1, sizeof(out)), 0UL);
	pant_expect_closed(test, u->mm, "clear_user()");
	memset(in, 0xff, sizeof(in));
	KUNIT_EXPECT_EQ(test, copy_from_user(in, uptr + 1, sizeof(in)), 0UL);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(in, 0, sizeof(in)), NULL);

	/* As futex_atomic_op_inuser() calls it: with page faults disabled. */
	oval = 0;
	pagefault_disable();
	ret = arch_futex_atomic_op_inuser(FUTEX_OP_ADD, 5, &oval, uptr);
	pagefault_enable();
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, oval, 0x12345678U);
	pant_expect_closed(test, u->mm, "arch_futex_atomic_op_inuser()");
	KUNIT_EXPECT_EQ(test, get_user(val, uptr), 0);
	KUNIT_EXPECT_EQ(test, val, 0x1234567dU);

	oval = 0;
	pagefault_disable();
	ret = futex_atomic_cmpxchg_inatomic(&oval, uptr, 0x1234567dU, 0xcafeU);
	pagefault_enable();
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, oval, 0x1234567dU);
	pant_expect_closed(test, u->mm, "futex_atomic_cmpxchg_inatomic()");
	KUNIT_EXPECT_EQ(test, get_user(val, uptr), 0);
	KUNIT_EXPECT_EQ(test, val, 0xcafeU);

	pant_user_put(test, u);
}

/*
 * The same on an unmapped user address return -EFAULT and leave user
 * access closed.
 */
static void uaccess_unmapped_efault_pan_restored(struct kunit *test)
{
	struct pant_user *u = test->priv;
	u8 buf[16] = { 0 };
	u32 __user *uptr;
	u32 val, oval;
	int ret;

	pant_user_attach(test, u);
	uptr = (u32 __user *)u->unmapped;

	KUNIT_EXPECT_EQ(test, put_user(1U, uptr), -EFAULT);
	pant_expect_closed(test, u->mm, "put_user() to an unmapped address");
	KUNIT_EXPECT_EQ(test, get_user(val, uptr), -EFAULT);
	pant_expect_closed(test, u->mm, "get_user() from an unmapped address");
	KUNIT_EXPECT_EQ(test, copy_to_user(uptr, buf, sizeof(buf)), sizeof(buf));
	pant_expect_closed(test, u->mm, "copy_to_user() to an unmapped address");
	KUNIT_EXPECT_EQ(test, copy_from_user(buf, uptr, sizeof(buf)), sizeof(buf));
	pant_expect_closed(test, u->mm, "copy_from_user() from an unmapped address");
	KUNIT_EXPECT_EQ(test, clear_user(uptr, sizeof(buf)), sizeof(buf));
	pant_expect_closed(test, u->mm, "clear_user() of an unmapped address");

	pagefault_disable();
	ret = arch_futex_atomic_op_inuser(FUTEX_OP_SET, 1, &oval, uptr);
	pagefault_enable();
	KUNIT_EXPECT_EQ(test, ret, -EFAULT);
	pant_expect_closed(test, u->mm, "arch_futex_atomic_op_inuser() on an unmapped address");

	pagefault_disable();
	ret = futex_atomic_cmpxchg_inatomic(&oval, uptr, 0, 1);
	pagefault_enable();
	KUNIT_EXPECT_EQ(test, ret, -EFAULT);
	pant_expect_closed(test, u->mm, "futex_atomic_cmpxchg_inatomic() on an unmapped address");

	pant_user_put(test, u);
}

/*
 * Where a partial access starts: this many bytes before the end of the
 * mapped page, the unmapped page right after it. Less than a word, a
 * word, a pair of words, and neither; each less than PANT_PARTIAL_LEN.
 */
static const unsigned int pant_partial_heads[] = { 1, 3, 8, 15, 16, 17, 40 };
#define PANT_PARTIAL_LEN	64
/* Shorter than 16 bytes: arm64's copy then starts with one doubleword. */
#define PANT_PARTIAL_SHORT	15

/*
 * What a copy of @len bytes from @start, @head of them mapped, that
 * returned @left reports copied: at least one byte, and no more than are
 * mapped. False when it reports more, and its bytes cannot be compared.
 */
static bool pant_expect_partial(struct kunit *test, const char *what, const void __user *start,
				size_t len, unsigned int head, unsigned long left)
{
	unsigned long done = len - left;

	KUNIT_EXPECT_GT_MSG(test, done, 0UL,
			    "%s(%#lx, %zu) with %u bytes mapped: returned %lu, no progress",
			    what, (unsigned long)start, len, head, left);
	KUNIT_EXPECT_LE_MSG(test, done, (unsigned long)head,
			    "%s(%#lx, %zu) with %u bytes mapped: returned %lu",
			    what, (unsigned long)start, len, head, left);
	return done <= head;
}

/*
 * copy_to_user() across the end of the mapping, from each of
 * pant_partial_heads[] bytes before it. The uaccess contract
 * (include/linux/uaccess.h, above raw_copy_from_user()): a copy that
 * returns N has copied the first size - N bytes, and returns size
 * (copies nothing) only when nothing could be copied. So it copies at
 * least one byte and no more than are mapped, and those bytes are the
 * source's. (That the rest is left unmodified is not checked: arm64's
 * copy stores a pair of words with two STTRs, and when the second
 * faults, the first has stored bytes it does not report.)
 */
static void copy_to_user_partial_reports_rest(struct kunit *test)
{
	struct pant_user *u = test->priv;
	u8 src[PANT_PARTIAL_LEN], back[PANT_PARTIAL_LEN];
	unsigned int i, j;

	pant_user_attach(test, u);
	for (i = 0; i < ARRAY_SIZE(pant_partial_heads); i++) {
		unsigned int head = pant_partial_heads[i];
		u8 __user *start = (u8 __user *)(u->unmapped - head);
		unsigned long left, done;

		for (j = 0; j < sizeof(src); j++)
			src[j] = 0x80 | (j + head);
		KUNIT_ASSERT_EQ_MSG(test, clear_user(start, head), 0UL,
				    "clear_user(%#lx, %u) of mapped bytes",
				    (unsigned long)start, head);
		left = copy_to_user(start, src, sizeof(src));
		pant_expect_closed(test, u->mm, "copy_to_user() across the end of the mapping");
		done = sizeof(src) - left;
		if (!pant_expect_partial(test, "copy_to_user", start, sizeof(src), head, left))
			continue;
		memset(back, 0, sizeof(back));
		KUNIT_ASSERT_EQ_MSG(test, copy_from_user(back, start, head), 0UL,
				    "copy_from_user(%#lx, %u) of mapped bytes",
				    (unsigned long)start, head);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(back, src, done), 0,
				    "copy_to_user(%#lx, %zu) with %u bytes mapped: returned %lu, but the first %lu bytes are not the source's",
				    (unsigned long)start, sizeof(src), head, left, done);
	}
	pant_user_put(test, u);
}

/*
 * copy_from_user() across the end of the mapping, of PANT_PARTIAL_LEN and
 * of PANT_PARTIAL_SHORT bytes: as copy_to_user(), at least one byte and
 * no more than are mapped, those the user's; and copy_from_user() zeroes
 * the rest of the destination (include/linux/uaccess.h,
 * _copy_from_user()).
 */
static void copy_from_user_partial_reports_rest(struct kunit *test)
{
	struct pant_user *u = test->priv;
	u8 pattern[PANT_PARTIAL_LEN], dst[PANT_PARTIAL_LEN];
	unsigned int i, j;

	pant_user_attach(test, u);
	for (i = 0; i < 2 * ARRAY_SIZE(pant_partial_heads); i++) {
		unsigned int head = pant_partial_heads[i / 2];
		size_t len = i % 2 ? PANT_PARTIAL_SHORT : PANT_PARTIAL_LEN;
		u8 __user *start = (u8 __user *)(u->unmapped - head);
		unsigned long left, done;

		if (head >= len)
			continue;
		for (j = 0; j < sizeof(pattern); j++)
			pattern[j] = 0x40 | (j + head);
		KUNIT_ASSERT_EQ_MSG(test, copy_to_user(start, pattern, head), 0UL,
				    "copy_to_user(%#lx, %u) of mapped bytes",
				    (unsigned long)start, head);
		memset(dst, 0xa5, sizeof(dst));
		left = copy_from_user(dst, start, len);
		pant_expect_closed(test, u->mm, "copy_from_user() across the end of the mapping");
		done = len - left;
		if (!pant_expect_partial(test, "copy_from_user", start, len, head, left))
			continue;
		KUNIT_EXPECT_EQ_MSG(test, memcmp(dst, pattern, done), 0,
				    "copy_from_user(%#lx, %zu) with %u bytes mapped: returned %lu, but the first %lu bytes are not the user's",
				    (unsigned long)start, len, head, left, done);
		KUNIT_EXPECT_PTR_EQ_MSG(test, memchr_inv(dst + done, 0, left), NULL,
					"copy_from_user(%#lx, %zu) with %u bytes mapped: returned %lu, the rest not zeroed",
					(unsigned long)start, len, head, left);
	}
	pant_user_put(test, u);
}

/*
 * clear_user() across the end of the mapping returns the bytes it could
 * not clear: what it reports cleared is mapped, and zero.
 */
static void clear_user_partial_reports_rest(struct kunit *test)
{
	struct pant_user *u = test->priv;
	u8 ones[PANT_PARTIAL_LEN], back[PANT_PARTIAL_LEN];
	unsigned int i;

	pant_user_attach(test, u);
	memset(ones, 0xff, sizeof(ones));
	for (i = 0; i < ARRAY_SIZE(pant_partial_heads); i++) {
		unsigned int head = pant_partial_heads[i];
		u8 __user *start = (u8 __user *)(u->unmapped - head);
		unsigned long left, done;

		KUNIT_ASSERT_EQ_MSG(test, copy_to_user(start, ones, head), 0UL,
				    "copy_to_user(%#lx, %u) of mapped bytes",
				    (unsigned long)start, head);
		left = clear_user(start, PANT_PARTIAL_LEN);
		pant_expect_closed(test, u->mm, "clear_user() across the end of the mapping");
		done = PANT_PARTIAL_LEN - left;
		KUNIT_EXPECT_LE_MSG(test, done, (unsigned long)head,
				    "clear_user(%#lx, %u) with %u bytes mapped: returned %lu",
				    (unsigned long)start, PANT_PARTIAL_LEN, head, left);
		if (done > head)
			continue;
		memset(back, 0xa5, sizeof(back));
		KUNIT_ASSERT_EQ_MSG(test, copy_from_user(back, start, head), 0UL,
				    "copy_from_user(%#lx, %u) of mapped bytes",
				    (unsigned long)start, head);
		KUNIT_EXPECT_PTR_EQ_MSG(test, memchr_inv(back, 0, done), NULL,
					"clear_user(%#lx, %u) with %u bytes mapped: returned %lu, but the first %lu bytes are not zero",
					(unsigned long)start, PANT_PARTIAL_LEN, head, left, done);
	}
	pant_user_put(test, u);
}

/*
 * strncpy_from_user() and strnlen_user() on strings at the end of the
 * mapping (lib/strncpy_from_user.c, lib/strnlen_user.c): a string whose
 * NUL is mapped is copied and measured; one that runs into the unmapped
 * page is -EFAULT and 0; a count that ends before the unmapped page
 * stops there. Each leaves user access closed (under TTBR0 PAN,
 * user_access_begin() opens the window these close).
 */
static void strncpy_from_user_end_of_mapping(struct kunit *test)
{
	struct pant_user *u = test->priv;
	char str[PANT_PARTIAL_LEN], dst[PANT_PARTIAL_LEN + 1];
	unsigned int i;
	long ret, len;

	pant_user_attach(test, u);
	for (i = 0; i < ARRAY_SIZE(pant_partial_heads); i++) {
		unsigned int head = pant_partial_heads[i];
		char __user *start = (char __user *)(u->unmapped - head);

		/* head - 1 letters and a NUL in the page's last byte */
		memset(str, 'p', head - 1);
		str[head - 1] = '\0';
		KUNIT_ASSERT_EQ_MSG(test, copy_to_user(start, str, head), 0UL,
				    "copy_to_user(%#lx, %u) of mapped bytes",
				    (unsigned long)start, head);
		memset(dst, 'x', sizeof(dst));
		ret = strncpy_from_user(dst, start, PANT_PARTIAL_LEN);
		pant_expect_closed(test, u->mm, "strncpy_from_user()");
		KUNIT_EXPECT_EQ_MSG(test, ret, (long)head - 1,
				    "strncpy_from_user(%#lx, %u), NUL at byte %u",
				    (unsigned long)start, PANT_PARTIAL_LEN, head - 1);
		if (ret == head - 1)
			KUNIT_EXPECT_STREQ_MSG(test, dst, str,
					       "strncpy_from_user(%#lx, %u), NUL at byte %u",
					       (unsigned long)start, PANT_PARTIAL_LEN, head - 1);
		len = strnlen_user(start, PANT_PARTIAL_LEN);
		KUNIT_EXPECT_EQ_MSG(test, len, (long)head,
				    "strnlen_user(%#lx, %u), NUL at byte %u", (unsigned long)start,
				    PANT_PARTIAL_LEN, head - 1);
		pant_expect_closed(test, u->mm, "strnlen_user()");

		/* No NUL before the unmapped page. */
		memset(str, 'p', head);
		KUNIT_ASSERT_EQ_MSG(test, copy_to_user(start, str, head), 0UL,
				    "copy_to_user(%#lx, %u) of mapped bytes",
				    (unsigned long)start, head);
		ret = strncpy_from_user(dst, start, PANT_PARTIAL_LEN);
		pant_expect_closed(test, u->mm, "strncpy_from_user() into the unmapped page");
		KUNIT_EXPECT_EQ_MSG(test, ret, (long)-EFAULT,
				    "strncpy_from_user(%#lx, %u), no NUL in the %u mapped bytes",
				    (unsigned long)start, PANT_PARTIAL_LEN, head);
		len = strnlen_user(start, PANT_PARTIAL_LEN);
		KUNIT_EXPECT_EQ_MSG(test, len, 0L,
				    "strnlen_user(%#lx, %u), no NUL in the %u mapped bytes",
				    (unsigned long)start, PANT_PARTIAL_LEN, head);
		pant_expect_closed(test, u->mm, "strnlen_user() into the unmapped page");

		/* A count that the mapped bytes hold: no fault, no NUL. */
		ret = strncpy_from_user(dst, start, head);
		pant_expect_closed(test, u->mm, "strncpy_from_user() of the mapped bytes");
		KUNIT_EXPECT_EQ_MSG(test, ret, (long)head,
				    "strncpy_from_user(%#lx, %u), no NUL in the %u mapped bytes",
				    (unsigned long)start, head, head);
		len = strnlen_user(start, head);
		KUNIT_EXPECT_GT_MSG(test, len, (long)head,
				    "strnlen_user(%#lx, %u), no NUL in the %u mapped bytes",
				    (unsigned long)start, head, head);
	}
	pant_user_put(test, u);
}

/* The futex operations, as futex_atomic_op_inuser() passes them. */
static const struct {
	const char *name;
	int op;
} pant_futex_ops[] = {
	{ "FUTEX_OP_SET", FUTEX_OP_SET },
	{ "FUTEX_OP_ADD", FUTEX_OP_ADD },
	{ "FUTEX_OP_OR", FUTEX_OP_OR },
	{ "FUTEX_OP_ANDN", FUTEX_OP_ANDN },
	{ "FUTEX_OP_XOR", FUTEX_OP_XOR },
};

/*
 * Every futex operation and futex_atomic_cmpxchg_inatomic(), called as
 * the futex core calls them (page faults disabled), on a page they can
 * read but not write: -EFAULT, the word unchanged, user access closed
 * again. @what names the page.
 */
static void pant_futex_expect_efault(struct kunit *test, struct pant_user *u,
				     unsigned long page, const char *what)
{
	u32 __user *uptr = (u32 __user *)page;
	char after[64];
	u32 oval, val;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(pant_futex_ops); i++) {
		pagefault_disable();
		ret = arch_futex_atomic_op_inuser(pant_futex_ops[i].op, 1, &oval, uptr);
		pagefault_enable();
		KUNIT_EXPECT_EQ_MSG(test, ret, -EFAULT,
				    "arch_futex_atomic_op_inuser(%s, 1) on %s at %#lx",
				    pant_futex_ops[i].name, what, page);
		snprintf(after, sizeof(after), "%s on %s", pant_futex_ops[i].name, what);
		pant_expect_closed(test, u->mm, after);
	}
	pagefault_disable();
	/* The word is 0: the compare succeeds, and the store faults. */
	ret = futex_atomic_cmpxchg_inatomic(&oval, uptr, 0, 1);
	pagefault_enable();
	KUNIT_EXPECT_EQ_MSG(test, ret, -EFAULT,
			    "futex_atomic_cmpxchg_inatomic(0, 1) on %s at %#lx", what, page);
	snprintf(after, sizeof(after), "futex_atomic_cmpxchg_inatomic() on %s", what);
	pant_expect_closed(test, u->mm, after);

	val = 1;
	pagefault_disable();
	ret = get_user(val, uptr);
	pagefault_enable();
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "get_user() of the futex word of %s at %#lx",
			    what, page);
	KUNIT_EXPECT_EQ_MSG(test, val, 0U, "the futex word of %s at %#lx", what, page);
}

/*
 * The futex helpers' privileged window (PSTATE.PAN cleared, or TTBR0
 * opened, around LDXR/STLXR) on pages whose store faults: a read-only
 * VMA, and a writable private VMA whose page is still the zero page
 * (the store is a copy-on-write fault). Both map the zero page
 * read-only, and page faults are disabled, so the store faults the same
 * way on both; what differs is whether the VMA would let the futex core
 * fault the page in writable and try again. The load succeeds and the
 * store faults, so this reaches the fixup of the store, which the
 * unmapped page (whose load faults) does not.
 */
static void arch_futex_atomic_op_inuser_unwritable_efault(struct kunit *test)
{
	struct pant_user *u = test->priv;
	unsigned long ro, cow;
	int ret;

	pant_user_attach(test, u);
	ro = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ, MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(ro), "vm_mmap() of a read-only page: %ld",
			       (long)ro);
	pant_futex_expect_efault(test, u, ro, "a read-only page");
	vm_munmap(ro, PAGE_SIZE);

	cow = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(cow), "vm_mmap() of a private page: %ld",
			       (long)cow);
	/* A read fault, as a user's load takes it: the zero page, read-only. */
	mmap_read_lock(u->mm);
	ret = fixup_user_fault(u->mm, cow, 0, NULL);
	mmap_read_unlock(u->mm);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "fixup_user_fault(read) of a private page");
	pant_futex_expect_efault(test, u, cow, "a private page mapping the zero page");
	vm_munmap(cow, PAGE_SIZE);

	pant_user_put(test, u);
}

static struct kunit_case arm64_pan_uaccess_cases[] = {
	KUNIT_CASE(uaccess_privileged_toggles_pan),
	KUNIT_CASE(uaccess_user_page_pan_restored),
	KUNIT_CASE(uaccess_unmapped_efault_pan_restored),
	KUNIT_CASE(copy_to_user_partial_reports_rest),
	KUNIT_CASE(copy_from_user_partial_reports_rest),
	KUNIT_CASE(clear_user_partial_reports_rest),
	KUNIT_CASE(strncpy_from_user_end_of_mapping),
	KUNIT_CASE(arch_futex_atomic_op_inuser_unwritable_efault),
	{}
};

/* Every case runs without any PAN too: the routines must keep the contract. */
static struct kunit_suite arm64_pan_uaccess_suite = {
	.name = "arm64_pan_uaccess",
	.init = pant_user_suite_init,
	.exit = pant_user_suite_exit,
	.test_cases = arm64_pan_uaccess_cases,
};

kunit_test_suite(arm64_pan_uaccess_suite);

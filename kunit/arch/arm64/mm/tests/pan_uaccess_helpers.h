/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the suites of the uaccess windows of Privileged Access Never (PAN)
 * share: a user mm of the case's own, with one page mapped and the next
 * one unmapped, dropped by the case in its own thread so that it can
 * check what the thread has once it has no mm; the check, in .exit, that
 * the mm is gone, also after a case an assertion ended; and a mapping
 * whose fault handler records what do_page_fault() tells it and refuses
 * the page.
 *
 * A suite's .exit runs in a kernel thread of its own, not in the one that
 * ran the case, so its current->mm says nothing about the case: a case
 * checks "no mm left, user access closed" in its own thread when it drops
 * its mm (pant_user_put()), and pant_user_exit() checks through a
 * reference of its own that the mm is gone, whether the case dropped it
 * or the exit of a thread an assertion ended did.
 */
#ifndef _ARM64_MM_TESTS_PAN_UACCESS_HELPERS_H
#define _ARM64_MM_TESTS_PAN_UACCESS_HELPERS_H

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>

#include "pan_helpers.h"

/*
 * A user mm of the test's, attached to the calling kernel thread, with one
 * mapped read-write page at @addr and an unmapped page right after it.
 */
struct pant_user {
	struct mm_struct *mm;
	struct mm_struct *held;	/* an mmgrab() reference, for pant_user_exit() */
	unsigned long addr;
	unsigned long unmapped;
};

/*
 * kunit_vm_mmap() attaches a new mm to the calling thread, which drops it
 * as it exits; the callers drop it themselves, with pant_user_put().
 */
static inline int pant_user_get(struct kunit *test, struct pant_user *u)
{
	unsigned long addr;
	int ret;

	addr = kunit_vm_mmap(test, NULL, 0, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE, 0);
	if (!addr)
		return -ENOMEM;
	if (IS_ERR_VALUE(addr))
		return (int)addr;
	u->mm = current->mm;
	u->addr = addr;
	u->unmapped = addr + PAGE_SIZE;
	ret = vm_munmap(u->unmapped, PAGE_SIZE);
	if (ret)
		return ret;
	/* For pant_user_exit(): the mm_struct outlives its address space. */
	mmgrab(u->mm);
	u->held = u->mm;
	return 0;
}

/*
 * Attaches the test mm for a case. With the wrong tables in TTBR0_EL1 a
 * user access would fault again each time the fault handler returned,
 * and the case would hang instead of failing. So TTBR0_EL1 must be what
 * the kind of PAN makes it (the reserved tables under TTBR0 PAN, else the
 * mm's) before any access, and the case runs with page faults disabled,
 * on a populated page, until pant_user_put(): a fault then fails the
 * access with -EFAULT at once, also where an interrupt left the wrong
 * tables behind.
 */
static inline void pant_user_attach(struct kunit *test, struct pant_user *u)
{
	enum pant_kind kind = pant_get_kind();
	struct pant_want w = {};
	u64 ttbr0;

	KUNIT_ASSERT_EQ(test, pant_user_get(test, u), 0);
	pant_want_tables(&w, kind, u->mm, false);
	ttbr0 = pant_ttbr0_baddr();
	KUNIT_ASSERT_EQ_MSG(test, ttbr0, w.ttbr0_baddr,
			    "attaching a user mm (%s, CONFIG_ARM64_SW_TTBR0_PAN=%d): TTBR0_EL1.BADDR=%#llx, want %s, %#llx",
			    pant_kind_name(kind), IS_ENABLED(CONFIG_ARM64_SW_TTBR0_PAN), ttbr0,
			    w.tables, w.ttbr0_baddr);
	pagefault_disable();
}

/* Detaches the test mm from the case's thread; @u keeps its reference. */
static inline void pant_user_unuse(struct pant_user *u)
{
	pagefault_enable();
	vm_munmap(u->addr, PAGE_SIZE);
	kthread_unuse_mm(u->mm);
}

/* Then drops the reference: no mm left, user access closed. */
static inline void pant_user_drop(struct kunit *test, struct pant_user *u)
{
	mmput(u->mm);
	u->mm = NULL;
	KUNIT_EXPECT_PTR_EQ_MSG(test, current->mm, NULL, "the case's thread still has an mm");
	pant_expect_closed(test, NULL, "dropping the test mm");
}

/* At the end of a case, in its thread. */
static inline void pant_user_put(struct kunit *test, struct pant_user *u)
{
	pant_user_unuse(u);
	pant_user_drop(test, u);
}

/*
 * Whether the test mm's address space is gone: the case dropped it with
 * pant_user_put(), or an assertion ended the case's thread, whose exit
 * dropped it. That thread's end is signalled to KUnit a little before its
 * mm is dropped, so wait for it a while.
 */
static inline int pant_mm_users_left(struct mm_struct *mm)
{
	int ms;

	for (ms = 0; ms < 1000 && atomic_read(&mm->mm_users); ms++)
		usleep_range(1000, 2000);
	return atomic_read(&mm->mm_users);
}

/*
 * The .exit of a suite whose cases take a pant_user: the test mm is gone,
 * as seen through a reference of its own (also after a case an assertion
 * ended), and user access is closed in the thread .exit runs in.
 */
static inline void pant_user_exit(struct kunit *test, struct pant_user *u)
{
	if (u->held) {
		KUNIT_EXPECT_EQ_MSG(test, pant_mm_users_left(u->held), 0,
				    "the test mm is still in use after the case");
		mmdrop(u->held);
		u->held = NULL;
	}
	pant_exit_closed(test);
}

/* The .init of a suite whose test->priv is a struct pant_user. */
static inline int pant_user_suite_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct pant_user), GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

/* Its .exit, which also runs after .init failed. */
static inline void pant_user_suite_exit(struct kunit *test)
{
	if (test->priv)
		pant_user_exit(test, test->priv);
}

/* The vmf->flags a special mapping's fault handler saw, which refuses the page. */
struct pant_fault_flags {
	struct vm_special_mapping spec;
	unsigned int flags;
	int calls;
};

static inline vm_fault_t pant_record_fault_flags(const struct vm_special_mapping *sm,
						 struct vm_area_struct *vma,
						 struct vm_fault *vmf)
{
	struct pant_fault_flags *seen = container_of(sm, struct pant_fault_flags, spec);

	seen->flags = vmf->flags;
	seen->calls++;
	return VM_FAULT_SIGBUS;
}

/*
 * get_user() from @u's unmapped address, with page faults enabled, once a
 * special mapping with @vm_flags is there, whose fault handler records
 * each call and vmf->flags and refuses the page: whatever do_page_fault()
 * decides, get_user() ends in its fixup (-EFAULT) with user access closed,
 * and no fault can repeat for ever on a page the handler mapped but the
 * read cannot use. The record is static, not the case's resource: the
 * mapping points at it until exit_mmap() closes the mapping, which, when
 * an assertion ended the case's thread, may come after KUnit freed the
 * case's resources. A suite runs one case at a time, and a case maps
 * one such page.
 */
static inline struct pant_fault_flags *
pant_read_refused_mapping(struct kunit *test, struct pant_user *u, vm_flags_t vm_flags,
			  const char *what)
{
	static struct pant_fault_flags record;
	struct pant_fault_flags *seen = &record;
	struct vm_area_struct *vma;
	u32 val = 0;
	int ret;

	memset(seen, 0, sizeof(*seen));
	seen->spec.name = "[fault_flags]";
	seen->spec.fault = pant_record_fault_flags;

	mmap_write_lock(u->mm);
	vma = _install_special_mapping(u->mm, u->unmapped, PAGE_SIZE, vm_flags, &seen->spec);
	mmap_write_unlock(u->mm);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(vma), "_install_special_mapping() at %#lx: %pe",
			       u->unmapped, vma);

	pagefault_enable();
	ret = get_user(val, (u32 __user *)u->unmapped);
	pagefault_disable();
	KUNIT_EXPECT_EQ_MSG(test, ret, -EFAULT,
			    "get_user() from %#lx, %s whose fault handler refuses the page",
			    u->unmapped, what);
	pant_expect_closed(test, u->mm, what);
	return seen;
}

/*
 * Skips a case about SW TTBR0 PAN's windows where there are none: with
 * the CPU's PAN, which the kernel uses instead (@why says what that
 * changes), or without any PAN.
 */
static inline void pant_require_ttbr0_pan(struct kunit *test, const char *why)
{
	if (pant_get_kind() == PANT_HW)
		kunit_skip(test, "PAN by the CPU (ID_AA64MMFR1_EL1.PAN=%u): %s",
			   pant_mmfr1_pan(read_sysreg(id_aa64mmfr1_el1)), why);
	if (pant_get_kind() == PANT_NONE)
		kunit_skip(test, "%s, CONFIG_ARM64_SW_TTBR0_PAN=n: no TTBR0 window",
			   PANT_NO_PAN_REASON);
}

#endif /* _ARM64_MM_TESTS_PAN_UACCESS_HELPERS_H */

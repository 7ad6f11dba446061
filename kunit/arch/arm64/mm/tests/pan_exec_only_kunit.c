// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of execute-only user mappings under Privileged Access Never
 * (PAN): with Enhanced PAN (FEAT_PAN3, ARM64_HAS_EPAN) PAN also stops
 * privileged accesses to user memory that is executable at EL0, so the
 * kernel may map PROT_EXEC without PROT_READ as execute-only, and
 * do_page_fault() refuses a read of such a VMA; without EPAN an
 * execute-only mapping would be a way around PAN, so the kernel makes
 * none, and exec implies read. Whether the kernel must use EPAN is
 * decided from the sanitised ID_AA64MMFR1_EL1.PAN and CONFIG_ARM64_EPAN.
 */

#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/uaccess.h>

#include "pan_helpers.h"
#include "pan_uaccess_helpers.h"

/*
 * "Exec implies read" unless the kernel uses EPAN: without FEAT_PAN3 an
 * execute-only user page could not be kept from a privileged access by
 * PAN, so the kernel never makes one, and do_page_fault() treats a read of
 * a VM_EXEC VMA as allowed; with EPAN (ARM64_HAS_EPAN, decided from the
 * sanitised ID_AA64MMFR1_EL1.PAN) it refuses the read before the VMA's
 * fault handler.
 */
static void do_page_fault_exec_implies_read_without_epan(struct kunit *test)
{
	struct pant_user *u = test->priv;
	bool epan = pant_want_epan();
	bool reached;

	pant_user_attach(test, u);
	reached = pant_read_refused_mapping(test, u, VM_EXEC | VM_MAYEXEC | VM_MAYREAD,
					    "an execute-only mapping")->calls > 0;
	KUNIT_EXPECT_EQ_MSG(test, reached, !epan,
			    "get_user() from %#lx, VM_EXEC without VM_READ: the VMA's fault handler was %s, with EPAN %s (sanitised ID_AA64MMFR1_EL1.PAN=%u, CONFIG_ARM64_EPAN=%d)",
			    u->unmapped, reached ? "called" : "never called",
			    epan ? "in use" : "not in use",
			    pant_mmfr1_pan(read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1)),
			    IS_ENABLED(CONFIG_ARM64_EPAN));
	pant_user_put(test, u);
}

/*
 * The protection vm_get_page_prot() gives a PROT_EXEC mapping: with EPAN,
 * execute-only (stage 1 AP[2:1] = 0b10 with UXN = 0: executable at EL0,
 * no access from it, DDI 0487 M.a.a, D8.4.1.2.1), so that get_user()
 * (LDTR, checked as an access from EL0: C6.2.244 LDTR) takes a
 * permission fault; without EPAN, readable, and get_user() reads the zero
 * page. The page is populated, and read with page faults disabled, as
 * pant_user_attach() leaves them: a fault goes straight to the fixup, so
 * the result is the PTE's alone, and no protection the fault path
 * disagrees with can make the read fault for ever.
 */
static void vm_get_page_prot_exec_only_with_epan(struct kunit *test)
{
	struct pant_user *u = test->priv;
	bool epan = pant_want_epan();
	unsigned long xo;
	u32 val = 1;
	int ret;

	pant_user_attach(test, u);
	xo = vm_mmap(NULL, 0, PAGE_SIZE, PROT_EXEC, MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(xo), "vm_mmap() of an execute-only page: %ld",
			       (long)xo);
	ret = get_user(val, (u32 __user *)xo);
	KUNIT_EXPECT_EQ_MSG(test, ret, epan ? -EFAULT : 0,
			    "get_user() from %#lx, a populated PROT_EXEC page, with EPAN %s (sanitised ID_AA64MMFR1_EL1.PAN=%u, CONFIG_ARM64_EPAN=%d)",
			    xo, epan ? "in use" : "not in use",
			    pant_mmfr1_pan(read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1)),
			    IS_ENABLED(CONFIG_ARM64_EPAN));
	if (!epan)
		KUNIT_EXPECT_EQ_MSG(test, val, 0U, "get_user() from %#lx, a zero page", xo);
	pant_expect_closed(test, u->mm, "get_user() from an execute-only page");
	vm_munmap(xo, PAGE_SIZE);
	pant_user_put(test, u);
}

static struct kunit_case arm64_pan_exec_only_cases[] = {
	KUNIT_CASE(do_page_fault_exec_implies_read_without_epan),
	KUNIT_CASE(vm_get_page_prot_exec_only_with_epan),
	{}
};

static struct kunit_suite arm64_pan_exec_only_suite = {
	.name = "arm64_pan_exec_only",
	.init = pant_user_suite_init,
	.exit = pant_user_suite_exit,
	.test_cases = arm64_pan_exec_only_cases,
};

kunit_test_suite(arm64_pan_exec_only_suite);

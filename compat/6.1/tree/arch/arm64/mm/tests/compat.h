/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the PAN suites use of a newer kernel than 6.1:
 * - SYS_PSTATE_PAN, the MRS/MSR encoding of PSTATE.PAN, from 6.12
 *   (<asm/sysreg.h>);
 * - TCR_EL1_A1: TCR_EL1 came to arch/arm64/tools/sysreg after 6.12; 6.1
 *   names the bit TCR_A1 (<asm/pgtable-hwdef.h>);
 * - kunit_vm_mmap(), from 6.11, and kunit_attach_mm(), which it calls,
 *   exported from 6.17 (lib/kunit/user_alloc.c): a new mm attached to the
 *   calling kernel thread, which drops it as it exits, and a mapping in
 *   it. The resource kunit_vm_mmap() records frees nothing (the mapping
 *   goes with the mm), so none is recorded here;
 * - KUnit's deferred actions, from 6.5 (<kunit/deferred_actions.h>);
 * - KUNIT_EXPECT_MEMEQ_MSG(), from 6.2: here a memcmp() under
 *   KUNIT_EXPECT_TRUE_MSG(), whose message says what differs but not
 *   the bytes.
 */
#ifndef _ARM64_MM_TESTS_COMPAT_H
#define _ARM64_MM_TESTS_COMPAT_H

#include <kunit/deferred_actions.h>
#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <asm/pgtable-hwdef.h>
#include <asm/sysreg.h>

#define SYS_PSTATE_PAN	sys_reg(3, 0, 4, 2, 3)

#define TCR_EL1_A1	TCR_A1

#define KUNIT_EXPECT_MEMEQ_MSG(test, left, right, size, fmt, ...)		\
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(left, right, size), fmt, ##__VA_ARGS__)

static inline int kunit_attach_mm(void)
{
	struct mm_struct *mm;

	if (current->mm)
		return 0;
	mm = mm_alloc();
	if (!mm)
		return -ENOMEM;
	mm->task_size = TASK_SIZE;
	arch_pick_mmap_layout(mm, &current->signal->rlim[RLIMIT_STACK]);
	kthread_use_mm(mm);
	return 0;
}

static inline unsigned long kunit_vm_mmap(struct kunit *test, struct file *file,
					  unsigned long addr, unsigned long len,
					  unsigned long prot, unsigned long flag,
					  unsigned long offset)
{
	if (kunit_attach_mm())
		return 0;
	return vm_mmap(file, addr, len, prot, flag, offset);
}

#endif /* _ARM64_MM_TESTS_COMPAT_H */

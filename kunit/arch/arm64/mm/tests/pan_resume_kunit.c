// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of Privileged Access Never (PAN) on a CPU resumed from a
 * powerdown state. cpu_suspend(), which cpuidle's PSCI CPU_SUSPEND and
 * system suspend call, saves the CPU's context; when firmware wakes the
 * CPU it enters cpu_resume with the MMU off, and the restore code,
 * cpu_resume, cpu_do_resume() and __cpu_suspend_exit(), must give the
 * CPU back its PAN and translation state, with user access closed.
 *
 * QEMU's PSCI never powers a CPU down: its CPU_SUSPEND waits for an
 * interrupt and returns, and cpu_suspend() then fails with -EOPNOTSUPP
 * without running any of the restore code. The suite's suspend finisher
 * plays the firmware's part instead: it turns the MMU off and enters
 * cpu_resume at its physical address, at EL1, as PSCI firmware enters a
 * CPU it woke at the entry point CPU_SUSPEND was given (Arm DEN 0022,
 * CPU_SUSPEND). The CPU then has the boot path's state, not its own:
 * init_kernel_el() returns with PSTATE.PAN clear, __cpu_setup and
 * __enable_mmu() leave SCTLR_EL1.SPAN set and the identity map in
 * TTBR0_EL1. What the CPU had before cpu_suspend() is what it must have
 * after it: the expected values are the registers read before, not a
 * kernel macro.
 */

#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/mmu_context.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <asm/sections.h>
#include <asm/suspend.h>

#include "pan_helpers.h"
#include "pan_uaccess_helpers.h"

/* In pan_resume_kunit_asm.S, in .idmap.text. */
void pan_resume_kunit_wake(unsigned long entry);

/* What the restore code must give back. */
struct pant_resume_regs {
	u64 sctlr;
	u64 tcr;
	u64 pan;	/* PSTATE.PAN, FEAT_PAN only */
	u64 ttbr0_baddr;
	u64 asid;
};

static void pant_resume_read(struct pant_resume_regs *r)
{
	r->sctlr = read_sysreg(sctlr_el1);
	r->tcr = read_sysreg(tcr_el1);
	r->pan = pant_cpu_has_pan() ? pant_read_pan() : 0;
	r->ttbr0_baddr = pant_ttbr0_baddr();
	r->asid = pant_asid();
}

/*
 * The suspend finisher: the firmware's part of a powerdown and wake-up,
 * entering @entry (cpu_resume's physical address) with the MMU off,
 * through the identity map as machine_kexec() enters cpu_soft_restart().
 */
static int pant_resume_powerdown(unsigned long entry)
{
	typeof(pan_resume_kunit_wake) *wake = (void *)__pa_symbol(pan_resume_kunit_wake);

	cpu_install_idmap();
	wake(entry);
	return -EINVAL;	/* not reached: the CPU resumes in cpu_suspend() */
}

/*
 * Suspends and resumes the calling CPU: 0 once it resumed through
 * cpu_resume, with the registers read right before and after.
 */
static int pant_resume_cycle(struct pant_resume_regs *before, struct pant_resume_regs *after)
{
	int ret;

	pant_resume_read(before);
	ret = cpu_suspend(__pa_symbol(cpu_resume), pant_resume_powerdown);
	pant_resume_read(after);
	return ret;
}

/*
 * Every check of @before and @after: expectations only, as callers may
 * hold cpus_read_lock().
 */
static void pant_resume_check(struct kunit *test, const char *where, int ret,
			      const struct pant_resume_regs *before,
			      const struct pant_resume_regs *after)
{
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s: cpu_suspend() did not resume through cpu_resume",
			    where);
	if (ret)
		return;
	KUNIT_EXPECT_EQ_MSG(test, after->sctlr, before->sctlr,
			    "%s: SCTLR_EL1 %#llx after resume, %#llx before (SPAN %d, was %d)",
			    where, after->sctlr, before->sctlr, !!(after->sctlr & SCTLR_EL1_SPAN),
			    !!(before->sctlr & SCTLR_EL1_SPAN));
	KUNIT_EXPECT_EQ_MSG(test, after->tcr, before->tcr,
			    "%s: TCR_EL1 %#llx after resume, %#llx before", where, after->tcr,
			    before->tcr);
	if (pant_cpu_has_pan())
		KUNIT_EXPECT_EQ_MSG(test, after->pan, before->pan,
				    "%s: PSTATE.PAN=%d after resume, %d before", where,
				    !!after->pan, !!before->pan);
	KUNIT_EXPECT_TRUE_MSG(test, after->ttbr0_baddr == before->ttbr0_baddr &&
			      after->asid == before->asid,
			      "%s: TTBR0_EL1.BADDR=%#llx ASID=%#llx after resume, %#llx %#llx before (the identity map: %#llx)",
			      where, after->ttbr0_baddr, after->asid, before->ttbr0_baddr,
			      before->asid, (u64)__pa_symbol(idmap_pg_dir));
}

struct pant_resume_on {
	struct kunit *test;
	int cpu;
	int ret;
	struct pant_resume_regs before;
	struct pant_resume_regs after;
};

static long pant_resume_on_fn(void *arg)
{
	struct pant_resume_on *on = arg;
	char what[64];

	on->cpu = raw_smp_processor_id();
	on->ret = pant_resume_cycle(&on->before, &on->after);
	snprintf(what, sizeof(what), "a work item on CPU%d, resumed", on->cpu);
	pant_expect_closed(on->test, NULL, what);
	return 0;
}

/*
 * On every online CPU, a work item (a thread without a user mm) that
 * suspends and resumes the CPU finds SCTLR_EL1, TCR_EL1, PSTATE.PAN and
 * TTBR0_EL1 with its ASID as they were, and user access closed: the
 * restore code undid the boot path's PSTATE.PAN, SCTLR_EL1.SPAN and
 * identity map.
 */
static void cpu_suspend_restores_pan_and_tables(struct kunit *test)
{
	struct pant_resume_on *on;
	unsigned int cpu;
	char where[32];
	long ret;

	on = kunit_kzalloc(test, sizeof(*on), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, on);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		*on = (struct pant_resume_on) { .test = test, .cpu = -1 };
		ret = work_on_cpu(cpu, pant_resume_on_fn, on);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0L, "CPU%u: work_on_cpu()", cpu);
		KUNIT_EXPECT_EQ_MSG(test, on->cpu, (int)cpu, "CPU%u: the work item ran on CPU%d",
				    cpu, on->cpu);
		snprintf(where, sizeof(where), "CPU%u", cpu);
		pant_resume_check(test, where, on->ret, &on->before, &on->after);
	}
	cpus_read_unlock();
}

/*
 * A thread with a user mm attached suspends and resumes its CPU: the
 * registers are as they were (TTBR0_EL1 back on the mm's tables, or on
 * the reserved ones under TTBR0 PAN), user access is closed, and a
 * uaccess window still reaches the mm's page.
 */
static void cpu_suspend_keeps_the_user_mm(struct kunit *test)
{
	static const u8 pattern[8] = { 0x50, 0x41, 0x4e, 0x20, 0x72, 0x65, 0x73, 0x21 };
	struct pant_user *u = test->priv;
	struct pant_resume_regs before, after;
	u8 back[sizeof(pattern)] = {};
	unsigned long left_to, left_from;
	char where[48];
	int ret, cpu;

	pant_user_attach(test, u);
	migrate_disable();
	cpu = raw_smp_processor_id();
	ret = pant_resume_cycle(&before, &after);
	snprintf(where, sizeof(where), "CPU%d, with a user mm", cpu);
	pant_expect_closed(test, u->mm, where);
	left_to = copy_to_user((void __user *)u->addr, pattern, sizeof(pattern));
	left_from = copy_from_user(back, (const void __user *)u->addr, sizeof(back));
	migrate_enable();

	pant_resume_check(test, where, ret, &before, &after);
	KUNIT_EXPECT_EQ_MSG(test, left_to, 0UL, "%s: copy_to_user(%#lx, %zu bytes) after resume",
			    where, u->addr, sizeof(pattern));
	KUNIT_EXPECT_EQ_MSG(test, left_from, 0UL,
			    "%s: copy_from_user(%#lx, %zu bytes) after resume", where, u->addr,
			    sizeof(back));
	KUNIT_EXPECT_MEMEQ_MSG(test, back, pattern, sizeof(pattern),
			       "%s: the user page read back after resume", where);
	pant_user_put(test, u);
}

static struct kunit_case arm64_pan_resume_cases[] = {
	KUNIT_CASE(cpu_suspend_restores_pan_and_tables),
	KUNIT_CASE(cpu_suspend_keeps_the_user_mm),
	{}
};

static struct kunit_suite arm64_pan_resume_suite = {
	.name = "arm64_pan_resume",
	.init = pant_user_suite_init,
	.exit = pant_user_suite_exit,
	.test_cases = arm64_pan_resume_cases,
};

kunit_test_suite(arm64_pan_resume_suite);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of Privileged Access Never (PAN) on a CPU resumed from a
 * powerdown state. cpu_suspend(), which cpuidle's PSCI CPU_SUSPEND and
 * system suspend call between cpu_pm_enter() and cpu_pm_exit(), saves
 * the CPU's context; when firmware wakes the CPU it enters cpu_resume
 * with the MMU off, and the restore code, cpu_resume, cpu_do_resume()
 * and __cpu_suspend_exit(), must give the CPU back its PAN and
 * translation state, with user access closed.
 *
 * QEMU's PSCI never powers a CPU down: its CPU_SUSPEND waits for an
 * interrupt and returns, and cpu_suspend() then fails with -EOPNOTSUPP
 * without running any of the restore code. The suite's suspend finisher
 * plays the firmware's part instead, as far as the MMU goes: it turns
 * the MMU off and enters cpu_resume at its physical address, at EL1, as
 * PSCI firmware enters a CPU it woke at the entry point CPU_SUSPEND was
 * given (Arm DEN 0022, CPU_SUSPEND). The CPU then has the boot path's
 * state: init_kernel_el() returns with PSTATE.PAN clear, __cpu_setup and
 * __enable_mmu() write SCTLR_EL1 with SPAN set, TCR_EL1, CPACR_EL1,
 * MAIR_EL1 and MDSCR_EL1, and leave the identity map in TTBR0_EL1. What
 * the CPU had before cpu_suspend() is what it must have after it: the
 * expected values are the registers read right before, with interrupts
 * off, not a kernel macro. A register only a real loss of power resets
 * (TPIDR_EL0, CONTEXTIDR_EL1, VBAR_EL1, ...) keeps its value here, so
 * its restore is not checked.
 *
 * A kernel entered at EL2 would be woken at EL2, through init_el2 and
 * finalise_el2, which this wake-up does not do: the suite skips there.
 * 6.1's cpu_suspend() makes no context tracking calls: there RCU keeps
 * watching throughout, and the check that it does after resume holds
 * whatever the code.
 */

#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/cpu_pm.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/mmu_context.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <asm/suspend.h>
#include <asm/virt.h>

#include "pan_helpers.h"
#include "pan_uaccess_helpers.h"

/* In pan_resume_kunit_asm.S, in .idmap.text. */
void __noreturn pan_resume_kunit_wake(void);

/* What the restore code must give back. */
struct pant_resume_regs {
	u64 sctlr;
	u64 tcr;
	u64 cpacr;
	u64 mair;
	u64 mdscr;
	u64 ttbr0;
	u64 ttbr1;
	u64 pan;		/* PSTATE.PAN, FEAT_PAN only */
	bool rcu_watching;
};

static void pant_resume_read(struct pant_resume_regs *r)
{
	r->sctlr = read_sysreg(sctlr_el1);
	r->tcr = read_sysreg(tcr_el1);
	r->cpacr = read_sysreg(cpacr_el1);
	r->mair = read_sysreg(mair_el1);
	r->mdscr = read_sysreg(mdscr_el1);
	r->ttbr0 = read_sysreg(ttbr0_el1);
	r->ttbr1 = read_sysreg(ttbr1_el1);
	r->pan = pant_cpu_has_pan() ? pant_read_pan() : 0;
	r->rcu_watching = rcu_is_watching();
}

/*
 * The suspend finisher, the firmware's part of a powerdown and wake-up:
 * it runs after ct_cpuidle_enter(), with RCU not watching, so nothing in
 * it is instrumented, and the identity map is already installed.
 */
static int noinstr pant_resume_powerdown(unsigned long wake)
{
	typeof(pan_resume_kunit_wake) *wake_fn = (void *)wake;

	wake_fn();
	unreachable();
}

/* One suspend and resume of the calling CPU, as cpuidle makes it. */
struct pant_resume_cycle {
	int pm;			/* cpu_pm_enter()'s */
	int ret;		/* cpu_suspend()'s: 0 once resumed through cpu_resume */
	bool asid_known;	/* TTBR1_EL1.ASID is the current mm's, or the reserved one */
	struct pant_resume_regs before;
	struct pant_resume_regs after;
};

/*
 * With interrupts off, between cpu_pm_enter() and cpu_pm_exit(): nothing
 * switches mm or touches the registers between the two reads but
 * cpu_suspend() and the restore code. In a thread whose active mm is
 * init_mm the ASID in TTBR1_EL1 is whatever mm switched last (efi_mm
 * after an EFI runtime call), which resume need not give back.
 */
static void pant_resume_cycle(struct pant_resume_cycle *c)
{
	unsigned long flags;

	local_irq_save(flags);
	c->asid_known = current->active_mm != &init_mm || pant_get_kind() == PANT_TTBR0;
	c->pm = cpu_pm_enter();
	if (!c->pm) {
		pant_resume_read(&c->before);
		cpu_install_idmap();
		c->ret = cpu_suspend(__pa_symbol(pan_resume_kunit_wake), pant_resume_powerdown);
		/*
		 * Not resumed, which this finisher, never returning, cannot
		 * cause: leave TTBR0_EL1 as __cpu_suspend_exit() would.
		 */
		if (c->ret)
			cpu_uninstall_idmap();
		pant_resume_read(&c->after);
		cpu_pm_exit();
	}
	local_irq_restore(flags);
}

/* Every check of @c: expectations only, as callers may hold cpus_read_lock(). */
static void pant_resume_check(struct kunit *test, const char *where,
			      const struct pant_resume_cycle *c)
{
	const struct pant_resume_regs *b = &c->before, *a = &c->after;
	enum pant_kind kind = pant_get_kind();
	bool reserved = pant_tables_reserved(a->ttbr0 & PANT_TTBR_BADDR,
					     a->ttbr1 >> PANT_TTBR_ASID_SHIFT);

	KUNIT_EXPECT_EQ_MSG(test, c->ret, 0, "%s: cpu_suspend() did not resume through cpu_resume",
			    where);
	if (c->ret)
		return;
	KUNIT_EXPECT_TRUE_MSG(test, a->rcu_watching,
			      "%s: RCU does not watch the CPU once cpu_suspend() returned", where);
	KUNIT_EXPECT_EQ_MSG(test, a->sctlr, b->sctlr,
			    "%s: SCTLR_EL1 %#llx after resume, %#llx before (SPAN %d, was %d)",
			    where, a->sctlr, b->sctlr, !!(a->sctlr & SCTLR_EL1_SPAN),
			    !!(b->sctlr & SCTLR_EL1_SPAN));
	KUNIT_EXPECT_EQ_MSG(test, a->tcr, b->tcr, "%s: TCR_EL1 %#llx after resume, %#llx before",
			    where, a->tcr, b->tcr);
	KUNIT_EXPECT_EQ_MSG(test, a->cpacr, b->cpacr,
			    "%s: CPACR_EL1 %#llx after resume, %#llx before", where, a->cpacr,
			    b->cpacr);
	KUNIT_EXPECT_EQ_MSG(test, a->mair, b->mair, "%s: MAIR_EL1 %#llx after resume, %#llx before",
			    where, a->mair, b->mair);
	KUNIT_EXPECT_EQ_MSG(test, a->mdscr, b->mdscr,
			    "%s: MDSCR_EL1 %#llx after resume, %#llx before", where, a->mdscr,
			    b->mdscr);
	if (pant_cpu_has_pan())
		KUNIT_EXPECT_EQ_MSG(test, a->pan, b->pan,
				    "%s: PSTATE.PAN=%d after resume, %d before", where, !!a->pan,
				    !!b->pan);
	/*
	 * Under TTBR0 PAN, closed, the reserved tables and ASID: the value
	 * uaccess_ttbr0_disable() wrote before may differ from the one
	 * cpu_set_reserved_ttbr0() writes in bits the BADDR field leaves out
	 * (52-bit PAs with 64K pages).
	 */
	if (kind == PANT_TTBR0)
		KUNIT_EXPECT_TRUE_MSG(test, reserved,
				      "%s (TTBR0 PAN): TTBR0_EL1 %#llx, TTBR1_EL1 %#llx after resume; want reserved_pg_dir (%#llx) and the reserved ASID (the identity map: %#llx)",
				      where, a->ttbr0, a->ttbr1, pant_reserved_baddr(),
				      (u64)__pa_symbol(idmap_pg_dir));
	else
		KUNIT_EXPECT_EQ_MSG(test, a->ttbr0, b->ttbr0,
				    "%s: TTBR0_EL1 %#llx after resume, %#llx before (the identity map: %#llx)",
				    where, a->ttbr0, b->ttbr0, (u64)__pa_symbol(idmap_pg_dir));
	KUNIT_EXPECT_EQ_MSG(test, a->ttbr1 & ~PANT_TTBR_ASID, b->ttbr1 & ~PANT_TTBR_ASID,
			    "%s: TTBR1_EL1 %#llx after resume, %#llx before (the ASID aside)",
			    where, a->ttbr1, b->ttbr1);
	if (c->asid_known)
		KUNIT_EXPECT_EQ_MSG(test, a->ttbr1 & PANT_TTBR_ASID, b->ttbr1 & PANT_TTBR_ASID,
				    "%s: TTBR1_EL1 %#llx after resume, %#llx before: another ASID",
				    where, a->ttbr1, b->ttbr1);
}

/* A kernel entered at EL2, on any CPU, would be woken there: the suite skips. */
static int pant_resume_init(struct kunit *test)
{
	if (is_hyp_mode_available() || is_hyp_mode_mismatched())
		kunit_skip(test,
			   "the kernel was entered at EL2, where firmware would wake the CPU; the suite enters cpu_resume at EL1");
	return pant_user_suite_init(test);
}

struct pant_resume_on {
	struct kunit *test;
	int cpu;
	struct pant_resume_cycle c;
};

static long pant_resume_on_fn(void *arg)
{
	struct pant_resume_on *on = arg;
	char what[64];

	on->cpu = raw_smp_processor_id();
	pant_resume_cycle(&on->c);
	snprintf(what, sizeof(what), "a work item on CPU%d, resumed", on->cpu);
	pant_expect_closed(on->test, NULL, what);
	return 0;
}

/*
 * On every online CPU, a work item (a thread without a user mm) that
 * suspends and resumes the CPU finds RCU watching, SCTLR_EL1, TCR_EL1,
 * CPACR_EL1, MAIR_EL1, MDSCR_EL1, PSTATE.PAN, TTBR0_EL1 and TTBR1_EL1
 * as they were, and user access closed: the restore code undid the boot
 * path's PSTATE.PAN, SCTLR_EL1.SPAN and identity map.
 */
static void cpu_suspend_restores_pan_and_tables(struct kunit *test)
{
	struct pant_resume_on *on;
	unsigned int cpu;
	char where[32];
	unsigned int checked = 0;
	int refused = 0;

	on = kunit_kzalloc(test, sizeof(*on), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, on);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		*on = (struct pant_resume_on) { .test = test, .cpu = -1 };
		work_on_cpu(cpu, pant_resume_on_fn, on);
		KUNIT_EXPECT_EQ_MSG(test, on->cpu, (int)cpu, "CPU%u: the work item ran on CPU%d",
				    cpu, on->cpu);
		if (on->c.pm) {
			refused = on->c.pm;
			kunit_info(test, "CPU%u: cpu_pm_enter() refused: %d", cpu, refused);
			continue;
		}
		snprintf(where, sizeof(where), "CPU%u", cpu);
		pant_resume_check(test, where, &on->c);
		checked++;
	}
	cpus_read_unlock();
	/* A skip would hide what failed on another CPU: only when none was checked. */
	if (!checked)
		kunit_skip(test, "cpu_pm_enter() refused on every CPU: %d", refused);
}

/*
 * A thread with a user mm attached suspends and resumes its CPU: the
 * registers are as they were (TTBR0_EL1 back on the mm's tables, or on
 * the reserved ones under TTBR0 PAN, and the mm's ASID), user access is
 * closed, and a uaccess window still reaches the mm's page.
 */
static void cpu_suspend_keeps_the_user_mm(struct kunit *test)
{
	static const u8 pattern[8] = { 0x50, 0x41, 0x4e, 0x20, 0x72, 0x65, 0x73, 0x21 };
	struct pant_user *u = test->priv;
	struct pant_resume_cycle c = {};
	u8 back[sizeof(pattern)] = {};
	unsigned long left_to, left_from;
	char where[48];
	int cpu;

	pant_user_attach(test, u);
	migrate_disable();
	cpu = raw_smp_processor_id();
	pant_resume_cycle(&c);
	if (c.pm) {
		/* Before any expectation, which a skip would hide. */
		migrate_enable();
		pant_user_unuse(u);
		mmput(u->mm);
		u->mm = NULL;
		kunit_skip(test, "CPU%d: cpu_pm_enter() refused: %d", cpu, c.pm);
	}
	snprintf(where, sizeof(where), "CPU%d, with a user mm", cpu);
	pant_expect_closed(test, u->mm, where);
	left_to = copy_to_user((void __user *)u->addr, pattern, sizeof(pattern));
	left_from = copy_from_user(back, (const void __user *)u->addr, sizeof(back));
	migrate_enable();

	pant_resume_check(test, where, &c);
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
	.init = pant_resume_init,
	.exit = pant_user_suite_exit,
	.test_cases = arm64_pan_resume_cases,
};

kunit_test_suite(arm64_pan_resume_suite);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the enabling of Privileged Access Never (PAN) on a CPU
 * with FEAT_PAN: cpu_enable_pan() clears SCTLR_EL1.SPAN and sets
 * PSTATE.PAN on every CPU, so that every exception taken to EL1 sets
 * PSTATE.PAN, and the kernel runs with it set; on a CPU with FEAT_PAN3,
 * the SCTLR_EL1 the kernel's MMU enable writes has EPAN set. With them,
 * what else closes the kernel to EL0: TCR_EL1.E0PD1 with FEAT_E0PD.
 */

#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>

#include "pan_helpers.h"

/* Sets or clears PSTATE.PAN, where the caller puts it between its reads. */
static void pant_write_pan(bool pan)
{
	barrier();
	if (pan)
		set_pstate_pan(1);
	else
		set_pstate_pan(0);
	barrier();
}

/* Without the CPU's PAN there is nothing to enable: every case skips. */
static int pant_enable_init(struct kunit *test)
{
	if (!pant_cpu_has_pan())
		kunit_skip(test, PANT_NO_PAN_REASON);
	return 0;
}

/*
 * PSTATE.PAN is 1 in the KUnit thread, and in a work item on each online
 * CPU SCTLR_EL1.SPAN is 0 and PSTATE.PAN is 1.
 */
static void cpu_enable_pan_every_cpu(struct kunit *test)
{
	unsigned int cpu, checked = 0;

	KUNIT_EXPECT_EQ_MSG(test, pant_read_pan(), (u64)PSR_PAN_BIT,
			    "PSTATE.PAN is 0 in the KUnit thread");
	cpus_read_lock();
	for_each_online_cpu(cpu)
		if (pant_expect_cpu_enabled(test, cpu))
			checked++;
	cpus_read_unlock();
	KUNIT_EXPECT_EQ_MSG(test, checked, num_online_cpus(),
			    "CPUs checked of those online");
}

/*
 * An exception taken to EL1 sets PSTATE.PAN when SCTLR_EL1.SPAN is 0: with
 * PAN cleared, then set, in the test thread, the handler of a self-IPI
 * reads PSTATE.PAN 1, and after it PAN is as before. The thread's own PAN
 * is put back after each probe.
 */
static void el1_exception_sets_pan(struct kunit *test)
{
	static const bool before[] = { false, true };
	struct pant_irq_probe probe;
	u64 after, saved;
	bool taken;
	int i, cpu;

	for (i = 0; i < ARRAY_SIZE(before); i++) {
		preempt_disable();
		cpu = smp_processor_id();
		saved = pant_read_pan();
		pant_write_pan(before[i]);
		taken = pant_take_irq(&probe);
		after = pant_read_pan();
		pant_write_pan(saved);
		preempt_enable();

		KUNIT_ASSERT_TRUE_MSG(test, taken && probe.has_regs,
				      "no IRQ taken with PAN=%d", before[i]);
		KUNIT_EXPECT_EQ(test, probe.cpu, cpu);
		KUNIT_EXPECT_EQ_MSG(test, probe.pan, (u64)PSR_PAN_BIT,
				    "IRQ from PAN=%d: PSTATE.PAN=0 in the handler",
				    before[i]);
		KUNIT_EXPECT_EQ_MSG(test, !!(probe.saved_pstate & PSR_PAN_BIT),
				    before[i], "IRQ from PAN=%d: SPSR_EL1 %#llx",
				    before[i], probe.saved_pstate);
		KUNIT_EXPECT_EQ_MSG(test, !!after, before[i],
				    "PAN=%d before the IRQ, %d after it",
				    before[i], !!after);
	}
}

/*
 * Until apply_alternatives_all() patches it out for ARM64_HAS_PAN, a kernel
 * with SW TTBR0 PAN returns from every exception taken from EL1 through
 * __swpan_exit_el1, also on a CPU with PAN, where cpu_enable_pan() has
 * already run: once SCTLR_EL1.SPAN (bit [23], DDI 0487 M.a.a, D24.2.175) is
 * 0, the PAN bit of the saved SPSR_EL1 (bit [22], C5.2, SPSR_EL1) must be
 * kept, or the interrupted context resumes with PAN off. No interrupt is
 * taken in that window at every boot: the exit code is called here on
 * SPSR values with PAN set, on a CPU with SPAN 0, and must return them as
 * they were.
 */
static void swpan_exit_el1_keeps_pan_once_enabled(struct kunit *test)
{
	static const u64 spsrs[] = {
		PSR_MODE_EL1h | PSR_PAN_BIT,
		PSR_MODE_EL1h | PSR_PAN_BIT | PSR_D_BIT | PSR_A_BIT | PSR_I_BIT |
			PSR_F_BIT,
		PSR_MODE_EL1t | PSR_PAN_BIT | PSR_N_BIT | PSR_C_BIT,
	};
	u64 sctlr, out;
	int i;

	/* Without the option there is no exit code, nor its wrapper, to call. */
	if (!IS_ENABLED(CONFIG_ARM64_SW_TTBR0_PAN)) {
		kunit_skip(test, "CONFIG_ARM64_SW_TTBR0_PAN is not set: no SW TTBR0 PAN exit code");
		return;
	}

	for (i = 0; i < ARRAY_SIZE(spsrs); i++) {
		preempt_disable();
		sctlr = read_sysreg(sctlr_el1);
		out = swpan_exit_el1_kunit(spsrs[i]);
		preempt_enable();

		KUNIT_ASSERT_FALSE_MSG(test, sctlr & SCTLR_EL1_SPAN,
				       "SCTLR_EL1 %#llx: SPAN set, PAN not enabled on this CPU (see cpu_enable_pan_every_cpu)",
				       sctlr);
		KUNIT_EXPECT_EQ_MSG(test, out, spsrs[i],
				    "SPSR_EL1 %#llx returned as %#llx, SCTLR_EL1 %#llx",
				    spsrs[i], out, sctlr);
	}
}

/*
 * The SCTLR_EL1 value __enable_mmu() writes (INIT_SCTLR_EL1_MMU_ON, on the
 * boot CPU and on each secondary) sets EPAN, so that PAN also stops
 * privileged accesses to user memory that is executable at EL0: without
 * it, an execute-only user mapping would be a way around PAN. Checked on
 * every online CPU that has FEAT_PAN3 (its own ID_AA64MMFR1_EL1.PAN is 3
 * or more); on the others the bit is RES0.
 */
static void enable_mmu_sets_epan_every_cpu(struct kunit *test)
{
	struct pant_cpu_state st;
	unsigned int cpu, checked = 0, unread = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		st.cpu = -1;
		/* No assertion here: it would end the thread with the lock held. */
		if (work_on_cpu(cpu, pant_cpu_state_fn, &st) || st.cpu != (int)cpu) {
			KUNIT_FAIL(test, "CPU%u: no work item ran there", cpu);
			unread++;
			continue;
		}
		if (pant_mmfr1_pan(st.mmfr1) < PANT_MMFR1_PAN_PAN3)
			continue;
		KUNIT_EXPECT_TRUE_MSG(test, st.sctlr & SCTLR_EL1_EPAN,
				      "CPU%u: ID_AA64MMFR1_EL1 %#llx (PAN=%u), SCTLR_EL1 %#llx has EPAN clear",
				      cpu, st.mmfr1, pant_mmfr1_pan(st.mmfr1), st.sctlr);
		checked++;
	}
	cpus_read_unlock();
	if (!checked && !unread)
		kunit_skip(test,
			   "none of %u CPUs has FEAT_PAN3 (ID_AA64MMFR1_EL1.PAN<3): SCTLR_EL1.EPAN is RES0",
			   num_online_cpus());
}

/* ID_AA64MMFR2_EL1.E0PD, bits [63:60] (DDI 0487 M.a.a, D24.2.90): 0b0001 FEAT_E0PD. */
#define PANT_MMFR2_E0PD(mmfr2)	(((mmfr2) >> 60) & 0xf)
/* TCR_EL1.E0PD1, bit [56] (D24.2.194): EL0 accesses to TTBR1_EL1's range fault. */
#define PANT_TCR_E0PD1		BIT_ULL(56)

/*
 * When every CPU has FEAT_E0PD (its own ID_AA64MMFR2_EL1.E0PD is 1 or more)
 * the enable pass sets TCR_EL1.E0PD1 on each: an EL0 access to the
 * kernel's half of the address space then faults at level 0 whether or
 * not the kernel maps something there, which is what lets E0PD stand in
 * for KPTI against KASLR leaks. Nothing in the kernel reads the bit back,
 * and user space cannot tell (the fault handler reports every fault on a
 * kernel address as a level 0 translation fault), so only TCR_EL1 shows
 * it. Needs CONFIG_ARM64_E0PD.
 */
static void cpu_enable_e0pd_every_cpu(struct kunit *test)
{
	struct pant_cpu_state *st;
	unsigned int cpu, lacking = 0, unread = 0;

	if (!IS_ENABLED(CONFIG_ARM64_E0PD))
		kunit_skip(test, "CONFIG_ARM64_E0PD is not set");
	st = kunit_kcalloc(test, nr_cpu_ids, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		st[cpu].cpu = -1;
		/* No assertion here: it would end the thread with the lock held. */
		if (work_on_cpu(cpu, pant_cpu_state_fn, &st[cpu]) || st[cpu].cpu != (int)cpu) {
			KUNIT_FAIL(test, "CPU%u: no work item ran there", cpu);
			unread++;
		} else if (PANT_MMFR2_E0PD(st[cpu].mmfr2) < 1) {
			lacking++;
		}
	}
	cpus_read_unlock();
	if (unread)
		return;
	if (lacking)
		kunit_skip(test,
			   "%u of %u CPUs lack FEAT_E0PD (ID_AA64MMFR2_EL1.E0PD=0): the system does not use it",
			   lacking, num_online_cpus());
	for_each_online_cpu(cpu) {
		const struct pant_cpu_state *on = &st[cpu];

		if (on->cpu != (int)cpu)
			continue;	/* came online since */
		KUNIT_EXPECT_TRUE_MSG(test, on->tcr & PANT_TCR_E0PD1,
				      "CPU%u: ID_AA64MMFR2_EL1 %#llx (E0PD=%llu), TCR_EL1 %#llx has E0PD1 clear",
				      cpu, on->mmfr2, PANT_MMFR2_E0PD(on->mmfr2), on->tcr);
	}
}

static struct kunit_case arm64_pan_enable_cases[] = {
	KUNIT_CASE(cpu_enable_pan_every_cpu),
	KUNIT_CASE(el1_exception_sets_pan),
	KUNIT_CASE(swpan_exit_el1_keeps_pan_once_enabled),
	KUNIT_CASE(enable_mmu_sets_epan_every_cpu),
	KUNIT_CASE(cpu_enable_e0pd_every_cpu),
	{}
};

static struct kunit_suite arm64_pan_enable_suite = {
	.name = "arm64_pan_enable",
	.init = pant_enable_init,
	.exit = pant_exit_closed,
	.test_cases = arm64_pan_enable_cases,
};

kunit_test_suite(arm64_pan_enable_suite);

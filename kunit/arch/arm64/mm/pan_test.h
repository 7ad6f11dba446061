/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the PAN suites share: how PAN is provided on this CPU and kernel,
 * PSTATE.PAN read directly, and an interrupt taken on the calling CPU to
 * see the PSTATE it saves.
 *
 * Register layouts are literal numbers from the Arm Architecture
 * Reference Manual for A-profile (DDI 0487 J.a), never the kernel macros
 * under test. What the kernel must do is decided from the raw ID register
 * of the CPU and from the kernel configuration, not from what the kernel
 * says it detected.
 */
#ifndef _ARM64_MM_PAN_TEST_H
#define _ARM64_MM_PAN_TEST_H

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/workqueue.h>
#include <asm/irq_regs.h>
#include <asm/sysreg.h>

/* DDI 0487 J.a, D19.2.65 ID_AA64MMFR1_EL1: PAN, bits [23:20]. */
#define PANT_MMFR1_PAN_SHIFT	20
#define PANT_MMFR1_PAN_MASK	0xfULL
/* FEAT_PAN: PAN >= 0b0001; FEAT_EPAN: PAN >= 0b0011. */
#define PANT_PAN_FEAT_PAN	1
#define PANT_PAN_FEAT_EPAN	3
/* DDI 0487 J.a, C5.2.11 PAN, and D19.2.128 SPSR_EL1: PAN, bit [22]. */
#define PANT_PSTATE_PAN		BIT_ULL(22)
/* DDI 0487 J.a, D19.2.118 SCTLR_EL1: SPAN, bit [23]. */
#define PANT_SCTLR_SPAN		BIT_ULL(23)

/* How this kernel on this CPU keeps the kernel out of user memory. */
enum pant_kind {
	PANT_NONE,	/* no FEAT_PAN, no CONFIG_ARM64_SW_TTBR0_PAN */
	PANT_HW,	/* FEAT_PAN: PSTATE.PAN */
	PANT_TTBR0,	/* CONFIG_ARM64_SW_TTBR0_PAN: TTBR0_EL1 switching */
};

static inline const char *pant_kind_name(enum pant_kind kind)
{
	switch (kind) {
	case PANT_HW:
		return "PAN by the CPU";
	case PANT_TTBR0:
		return "PAN by TTBR0 switching";
	default:
		return "no PAN";
	}
}

static inline unsigned int pant_mmfr1_pan(u64 mmfr1)
{
	return (mmfr1 >> PANT_MMFR1_PAN_SHIFT) & PANT_MMFR1_PAN_MASK;
}

static inline bool pant_cpu_has_pan(void)
{
	return pant_mmfr1_pan(read_sysreg(id_aa64mmfr1_el1)) >= PANT_PAN_FEAT_PAN;
}

static inline enum pant_kind pant_get_kind(void)
{
	if (pant_cpu_has_pan())
		return PANT_HW;
	if (IS_ENABLED(CONFIG_ARM64_SW_TTBR0_PAN))
		return PANT_TTBR0;
	return PANT_NONE;
}

#define PANT_NO_PAN_REASON	"CPU lacks PAN: ID_AA64MMFR1_EL1.PAN=0"

/* Only on a CPU with FEAT_PAN: the register is UNDEFINED without it. */
static inline u64 pant_read_pan(void)
{
	u64 pan;

	/* MRS <Xt>, PAN: op0=3, op1=0, CRn=4, CRm=2, op2=3 (DDI 0487 J.a, C5.2.11) */
	asm volatile("mrs %0, s3_0_c4_c2_3" : "=r" (pan));
	return pan & PANT_PSTATE_PAN;
}

/* An interrupt taken on this CPU, and what its handler saw. */
struct pant_irq_probe {
	struct irq_work work;
	bool read_pan;		/* the CPU has FEAT_PAN: read PSTATE.PAN */
	bool done;
	bool has_regs;
	int cpu;
	u64 pan;		/* PSTATE.PAN in the handler */
	u64 saved_pstate;	/* SPSR_EL1 of the interrupted context */
};

static inline void pant_irq_probe_fn(struct irq_work *work)
{
	struct pant_irq_probe *probe = container_of(work, struct pant_irq_probe, work);
	struct pt_regs *regs = get_irq_regs();

	probe->cpu = smp_processor_id();
	probe->pan = probe->read_pan ? pant_read_pan() : 0;
	probe->has_regs = !!regs;
	probe->saved_pstate = regs ? regs->pstate : 0;
	/* Publishes the fields above to pant_take_irq()'s acquire. */
	smp_store_release(&probe->done, true);
}

/*
 * Raises a self-IPI and waits for it, so that the interrupted context is
 * the caller's: must be called with preemption disabled and interrupts on.
 */
static inline bool pant_take_irq(struct pant_irq_probe *probe)
{
	int us;

	probe->work = IRQ_WORK_INIT_HARD(pant_irq_probe_fn);
	probe->read_pan = pant_cpu_has_pan();
	probe->done = false;
	probe->cpu = -1;
	irq_work_queue(&probe->work);
	for (us = 0; us < USEC_PER_SEC; us++) {
		/* Pairs with the release in pant_irq_probe_fn(). */
		if (smp_load_acquire(&probe->done))
			return true;
		udelay(1);
	}
	irq_work_sync(&probe->work);
	/* Pairs with the release in pant_irq_probe_fn(). */
	return smp_load_acquire(&probe->done);
}

/* SCTLR_EL1.SPAN and PSTATE.PAN in process context on a given CPU. */
struct pant_cpu_state {
	int cpu;
	bool in_task;
	u64 sctlr;
	u64 pan;
};

static inline long pant_cpu_state_fn(void *arg)
{
	struct pant_cpu_state *st = arg;

	st->cpu = raw_smp_processor_id();
	st->in_task = in_task();
	st->sctlr = read_sysreg(sctlr_el1);
	st->pan = pant_read_pan();
	return 0;
}

/* @cpu has PAN enabled: SPAN clear, so that exceptions set PSTATE.PAN, and PAN set. */
static inline void pant_expect_cpu_enabled(struct kunit *test, unsigned int cpu)
{
	struct pant_cpu_state st = { .cpu = -1 };

	KUNIT_ASSERT_EQ(test, work_on_cpu(cpu, pant_cpu_state_fn, &st), 0);
	KUNIT_EXPECT_EQ_MSG(test, st.cpu, (int)cpu, "work item ran on another CPU");
	KUNIT_EXPECT_TRUE(test, st.in_task);
	KUNIT_EXPECT_EQ_MSG(test, st.sctlr & PANT_SCTLR_SPAN, 0ULL,
			    "CPU%u: SCTLR_EL1 %#llx has SPAN set", cpu, st.sctlr);
	KUNIT_EXPECT_EQ_MSG(test, st.pan, PANT_PSTATE_PAN,
			    "CPU%u: PSTATE.PAN is 0 in process context", cpu);
}

#endif /* _ARM64_MM_PAN_TEST_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the PAN suites share: how PAN is provided on this CPU and kernel,
 * PSTATE.PAN read directly, an interrupt taken on the calling CPU to see
 * the PSTATE it saves, and the check that user access is open or closed,
 * which every suite's .exit makes in the thread it runs in.
 *
 * What the kernel must do is decided from the raw ID register of the CPU
 * and from the kernel configuration, not from what the kernel says it
 * detected. The registers are read with the kernel's own names for them
 * (arch/arm64/tools/sysreg, <asm/sysreg.h>, PSR_PAN_BIT): which bit holds
 * PSTATE.PAN or SCTLR_EL1.SPAN is not what these suites test. What SW
 * TTBR0 PAN and switch_mm() write into TTBR0_EL1 and TTBR1_EL1 is: their
 * BADDR, CnP and ASID fields are the Arm Architecture Reference Manual's
 * (DDI 0487 M.a.a), not the kernel macros that code writes them with. So
 * is ID_AA64MMFR1_EL1.PAN, its position and the values that mean FEAT_PAN
 * and FEAT_PAN3, from which every suite decides what the kernel must do:
 * not the generated ID_AA64MMFR1_EL1_PAN_* that the kernel detects with.
 */
#ifndef _ARM64_MM_TESTS_PAN_HELPERS_H
#define _ARM64_MM_TESTS_PAN_HELPERS_H

#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/cpufeature.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/mm_types.h>
#include <linux/pgtable.h>
#include <linux/workqueue.h>
#include <asm/irq_regs.h>
#include <asm/mmu.h>
#include <asm/ptrace.h>
#include <asm/sysreg.h>

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

/*
 * DDI 0487 M.a.a, D24.2.89 ID_AA64MMFR1_EL1: PAN, bits [23:20], unsigned;
 * 0b0001 FEAT_PAN, 0b0010 FEAT_PAN2, 0b0011 FEAT_PAN3. Each value has the
 * features of the ones below it.
 */
#define PANT_MMFR1_PAN		GENMASK_ULL(23, 20)
#define PANT_MMFR1_PAN_PAN	0b0001
#define PANT_MMFR1_PAN_PAN3	0b0011

/* ID_AA64MMFR1_EL1.PAN of @mmfr1. */
static inline unsigned int pant_mmfr1_pan(u64 mmfr1)
{
	return FIELD_GET(PANT_MMFR1_PAN, mmfr1);
}

/*
 * Whether the kernel must use EPAN: built with CONFIG_ARM64_EPAN, and every
 * CPU has FEAT_PAN3 (the sanitised ID_AA64MMFR1_EL1.PAN is 3 or more).
 */
static inline bool pant_want_epan(void)
{
	u64 san = read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1);

	return IS_ENABLED(CONFIG_ARM64_EPAN) &&
	       pant_mmfr1_pan(san) >= PANT_MMFR1_PAN_PAN3;
}

static inline bool pant_cpu_has_pan(void)
{
	return pant_mmfr1_pan(read_sysreg(id_aa64mmfr1_el1)) >= PANT_MMFR1_PAN_PAN;
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

/* PSTATE.PAN, as PSR_PAN_BIT. Only on a CPU with FEAT_PAN: UNDEFINED without. */
static inline u64 pant_read_pan(void)
{
	return read_sysreg_s(SYS_PSTATE_PAN) & PSR_PAN_BIT;
}

/* DDI 0487 M.a.a, D24.2.209 TTBR0_EL1: BADDR, bits [47:1] (48-bit output address). */
#define PANT_TTBR_BADDR		GENMASK_ULL(47, 1)
/* DDI 0487 M.a.a, D24.2.209 TTBR0_EL1: CnP, bit [0] (with FEAT_TTCNP). */
#define PANT_TTBR_CNP		BIT_ULL(0)
/* DDI 0487 M.a.a, D24.2.209 and D24.2.212, TTBR0_EL1 and TTBR1_EL1: ASID, bits [63:48]. */
#define PANT_TTBR_ASID_SHIFT	48
#define PANT_TTBR_ASID		GENMASK_ULL(63, PANT_TTBR_ASID_SHIFT)
/* The ASID that SW TTBR0 PAN installs while user access is closed. */
#define PANT_RESERVED_ASID	0

/* Where TTBR0_EL1 points while user access is closed under TTBR0 PAN. */
static inline u64 pant_reserved_baddr(void)
{
	return __pa_symbol(reserved_pg_dir);
}

/* Whether @ttbr0_baddr and @asid are the tables of closed user access. */
static inline bool pant_tables_reserved(u64 ttbr0_baddr, u64 asid)
{
	return ttbr0_baddr == pant_reserved_baddr() && asid == PANT_RESERVED_ASID;
}

static inline u64 pant_ttbr0_baddr(void)
{
	return read_sysreg(ttbr0_el1) & PANT_TTBR_BADDR;
}

/*
 * The ASID that tags user translations now, from the TTBR that TCR_EL1.A1
 * names: TTBR1_EL1 when it is set, as the kernel sets it.
 */
static inline u64 pant_asid(void)
{
	u64 ttbr = read_sysreg(tcr_el1) & TCR_EL1_A1 ? read_sysreg(ttbr1_el1) :
						       read_sysreg(ttbr0_el1);

	return ttbr >> PANT_TTBR_ASID_SHIFT;
}

/* An interrupt taken on this CPU, and what its handler saw. */
struct pant_irq_probe {
	struct irq_work work;
	bool read_pan;		/* the CPU has FEAT_PAN: read PSTATE.PAN */
	bool done;
	bool has_regs;
	bool nested;		/* it interrupted softirqs, not the caller */
	int cpu;
	u64 pan;		/* PSTATE.PAN in the handler */
	u64 saved_pstate;	/* SPSR_EL1 of the interrupted context */
	u64 ttbr0_baddr;	/* TTBR0_EL1 in the handler */
	u64 asid;		/* and the ASID of user translations there, TCR_EL1.A1's TTBR */
};

static inline void pant_irq_probe_fn(struct irq_work *work)
{
	struct pant_irq_probe *probe = container_of(work, struct pant_irq_probe, work);
	struct pt_regs *regs = get_irq_regs();

	probe->cpu = smp_processor_id();
	probe->pan = probe->read_pan ? pant_read_pan() : 0;
	probe->ttbr0_baddr = pant_ttbr0_baddr();
	probe->asid = pant_asid();
	probe->has_regs = !!regs;
	probe->saved_pstate = regs ? regs->pstate : 0;
	/*
	 * Serving softirqs here, the IRQ came in while the exit of an
	 * earlier one ran them with IRQs unmasked, and regs are theirs.
	 */
	probe->nested = in_serving_softirq();
	/* Publishes the fields above to pant_take_irq()'s acquire. */
	smp_store_release(&probe->done, true);
}

/* Raises a self-IPI and waits for it. */
static inline bool pant_take_irq_once(struct pant_irq_probe *probe)
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

/* Tries at an IRQ that interrupts the caller rather than softirqs. */
#define PANT_IRQ_TRIES	3

/*
 * Takes an IRQ on this CPU whose interrupted context is the caller's:
 * must be called with preemption disabled and interrupts on. False if
 * none came, or each interrupted softirqs instead.
 *
 * A self-IPI (a hard irq_work), raised at the point the caller wants to
 * see and waited for there, interrupts that very point, and its handler
 * reads the caller's saved PSTATE with get_irq_regs().
 * kunit_run_irq_test() (<kunit/run-in-irq-context.h>) cannot do that: its
 * hrtimer fires at times of its own, interrupting the caller's loop, its
 * softirq work or another task, and its function is given no regs.
 */
static inline bool pant_take_irq(struct pant_irq_probe *probe)
{
	int i;

	for (i = 0; i < PANT_IRQ_TRIES; i++) {
		if (!pant_take_irq_once(probe))
			return false;
		if (!probe->nested)
			return true;
	}
	return false;
}

/*
 * SCTLR_EL1, PSTATE.PAN and the CPU's own ID_AA64MMFR1_EL1 in process
 * context on a given CPU.
 */
struct pant_cpu_state {
	int cpu;
	bool in_task;
	u64 sctlr;
	u64 pan;
	u64 mmfr1;
	u64 mmfr2;
	u64 tcr;
};

static inline long pant_cpu_state_fn(void *arg)
{
	struct pant_cpu_state *st = arg;

	st->cpu = raw_smp_processor_id();
	st->in_task = in_task();
	st->sctlr = read_sysreg(sctlr_el1);
	st->pan = pant_read_pan();
	st->mmfr1 = read_sysreg_s(SYS_ID_AA64MMFR1_EL1);
	st->mmfr2 = read_sysreg_s(SYS_ID_AA64MMFR2_EL1);
	st->tcr = read_sysreg(tcr_el1);
	return 0;
}

/*
 * @cpu has PAN enabled: SPAN clear, so that exceptions set PSTATE.PAN, and
 * PAN set. Only expectations, never an assertion, as callers hold
 * cpus_read_lock(): an assertion would end the thread with it held, and
 * the next CPU hotplug would wait for ever. False when no work item ran
 * on @cpu, so nothing could be checked there.
 */
static inline bool pant_expect_cpu_enabled(struct kunit *test, unsigned int cpu)
{
	struct pant_cpu_state st = { .cpu = -1 };
	long ret = work_on_cpu(cpu, pant_cpu_state_fn, &st);

	KUNIT_EXPECT_EQ_MSG(test, ret, 0L, "CPU%u: work_on_cpu()", cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.cpu, (int)cpu, "CPU%u: the work item ran on CPU%d",
			    cpu, st.cpu);
	if (ret || st.cpu != (int)cpu)
		return false;
	KUNIT_EXPECT_TRUE_MSG(test, st.in_task, "CPU%u: the work item ran outside a task",
			      cpu);
	KUNIT_EXPECT_EQ_MSG(test, st.sctlr & SCTLR_EL1_SPAN, 0ULL,
			    "CPU%u: SCTLR_EL1 %#llx has SPAN set", cpu, st.sctlr);
	KUNIT_EXPECT_EQ_MSG(test, st.pan, (u64)PSR_PAN_BIT,
			    "CPU%u: PSTATE.PAN is 0 in process context", cpu);
	return true;
}

/*
 * TTBR0_EL1.CnP of a user mm's tables: set only when every CPU implements
 * FEAT_TTCNP (the sanitised ID_AA64MMFR2_EL1.CnP) and the kernel uses it
 * (ARM64_HAS_CNP: not with CONFIG_ARM64_CNP=n, in a kdump kernel, or
 * under an erratum's workaround); clear when either says no.
 */
static inline u64 pant_mmfr2_cnp(void)
{
	return SYS_FIELD_GET(ID_AA64MMFR2_EL1, CnP,
			     read_sanitised_ftr_reg(SYS_ID_AA64MMFR2_EL1));
}

static inline u64 pant_want_cnp(void)
{
	return pant_mmfr2_cnp() && cpus_have_cap(ARM64_HAS_CNP) ? PANT_TTBR_CNP : 0;
}

/* The PAN state of the calling context, seen directly and by an IRQ. */
struct pant_sample {
	bool irq_taken;
	bool irq_nested;	/* each IRQ tried interrupted softirqs */
	int cpu;
	int irq_cpu;
	u64 pan;		/* PSTATE.PAN, FEAT_PAN only */
	u64 saved_pan;		/* PAN bit of the SPSR saved by the IRQ */
	u64 irq_pan;		/* PSTATE.PAN in the IRQ handler, FEAT_PAN only */
	u64 irq_ttbr0_baddr;	/* TTBR0_EL1 in the IRQ handler */
	u64 irq_asid;
	u64 ttbr0_baddr;
	u64 ttbr0_cnp;
	u64 asid;
	u64 mm_asid;		/* the attached mm's, read with the registers */
	/* Read again once the IRQ has returned: its exit restored them. */
	u64 pan_after;
	u64 ttbr0_baddr_after;
	u64 asid_after;
};

static inline void pant_sample(struct pant_sample *s, struct mm_struct *mm)
{
	struct pant_irq_probe probe;

	preempt_disable();
	s->cpu = smp_processor_id();
	s->pan = pant_cpu_has_pan() ? pant_read_pan() : 0;
	s->ttbr0_baddr = pant_ttbr0_baddr();
	s->ttbr0_cnp = read_sysreg(ttbr0_el1) & PANT_TTBR_CNP;
	s->asid = pant_asid();
	s->mm_asid = mm ? ASID(mm) : 0;
	s->irq_taken = pant_take_irq(&probe) && probe.has_regs;
	s->pan_after = pant_cpu_has_pan() ? pant_read_pan() : 0;
	s->ttbr0_baddr_after = pant_ttbr0_baddr();
	s->asid_after = pant_asid();
	preempt_enable();
	s->irq_cpu = probe.cpu;
	s->irq_nested = probe.nested;
	s->saved_pan = probe.saved_pstate & PSR_PAN_BIT;
	s->irq_pan = probe.pan;
	s->irq_ttbr0_baddr = probe.ttbr0_baddr;
	s->irq_asid = probe.asid;
}

/* What the registers must hold, before an IRQ and after it returned. */
struct pant_want {
	u64 saved_pan;		/* SPSR.PAN saved by the IRQ */
	bool check_pan;		/* FEAT_PAN: PSTATE.PAN can be read */
	u64 pan;
	bool check_tables;	/* TTBR0_EL1 and the ASID are known */
	bool mm_tables;		/* they are the mm's: its ASID, read with them */
	const char *tables;
	u64 ttbr0_baddr;
	u64 asid;
};

/*
 * The tables TTBR0_EL1 must hold while user access is @open or closed, in
 * a thread with the user @mm attached (NULL if none): under TTBR0 PAN,
 * closed, reserved_pg_dir and the reserved ASID; else the mm's, with the
 * ASID the caller reads with the registers. None known without an mm.
 */
static inline void pant_want_tables(struct pant_want *w, enum pant_kind kind,
				    struct mm_struct *mm, bool open)
{
	if (kind == PANT_TTBR0 && !open) {
		w->check_tables = true;
		w->tables = "reserved_pg_dir and the reserved ASID";
		w->ttbr0_baddr = pant_reserved_baddr();
		w->asid = PANT_RESERVED_ASID;
	} else if (mm) {
		w->check_tables = true;
		w->mm_tables = true;
		w->tables = "the mm's pgd and ASID";
		w->ttbr0_baddr = virt_to_phys(mm->pgd);
	}
}

/*
 * What pant_sample_state() and pant_check_state() hold to: user access is
 * open or closed, as @open says, in the calling thread,
 * which has the user @mm attached (NULL if none):
 * - PAN by the CPU: PSTATE.PAN, and the SPSR an IRQ saves, are !@open; the
 *   kernel never switches TTBR0_EL1, also when built with
 *   CONFIG_ARM64_SW_TTBR0_PAN: it holds @mm's tables and ASID;
 * - PAN by TTBR0 switching: closed, TTBR0_EL1 points at reserved_pg_dir
 *   and the ASID (in TTBR1_EL1, as TCR_EL1.A1 is set) is the reserved one;
 *   open, they are @mm's; the SPSR an IRQ saves has the emulated PAN bit;
 * - no PAN: the SPSR's PAN bit is 0.
 * The registers are read before the IRQ and again after it returned: the
 * exception entry and exit code must give the window back as it was. In
 * the IRQ handler itself user access is closed, open window or not: the
 * exception set PSTATE.PAN (SCTLR_EL1.SPAN is 0), or the entry code put
 * reserved_pg_dir and the reserved ASID in place.
 */
struct pant_state {
	enum pant_kind kind;
	bool open;
	struct pant_want w;
	struct pant_sample s;
};

/*
 * The sampling half: what the registers hold, and what they should. It
 * expects nothing, so that it can run inside an open window: a failed
 * expectation allocates, and may sleep, which must not happen with user
 * access open.
 */
static inline void pant_sample_state(struct pant_state *st, struct mm_struct *mm, bool open)
{
	st->kind = pant_get_kind();
	st->open = open;
	st->w = (struct pant_want) {
		.saved_pan = st->kind != PANT_NONE && !open ? PSR_PAN_BIT : 0,
		.check_pan = st->kind == PANT_HW,
		.pan = open ? 0 : PSR_PAN_BIT,
	};
	pant_want_tables(&st->w, st->kind, mm, open);
	pant_sample(&st->s, mm);
	if (st->w.mm_tables)
		st->w.asid = st->s.mm_asid;
}

/* The checking half, once user access is closed again. */
static inline void pant_check_state(struct kunit *test, const struct pant_state *st,
				    const char *what)
{
	enum pant_kind kind = st->kind;
	const char *where = st->open ? "in" : "after";
	const struct pant_want w = st->w;
	const struct pant_sample s = st->s;
	u64 cnp;

	KUNIT_EXPECT_TRUE_MSG(test, s.irq_taken && s.irq_cpu == s.cpu,
			      "%s %s: no IRQ interrupted it on CPU%d (the last ran on %d%s)",
			      where, what, s.cpu, s.irq_cpu,
			      s.irq_nested ? ", interrupting softirqs" : "");
	if (!s.irq_taken || s.irq_cpu != s.cpu)
		return;
	KUNIT_EXPECT_EQ_MSG(test, s.saved_pan, w.saved_pan,
			    "%s %s (%s): SPSR.PAN=%d, want %d", where, what,
			    pant_kind_name(kind), !!s.saved_pan, !!w.saved_pan);
	if (kind == PANT_HW)
		KUNIT_EXPECT_EQ_MSG(test, s.irq_pan, (u64)PSR_PAN_BIT,
				    "%s %s (%s): PSTATE.PAN=0 in an IRQ handler",
				    where, what, pant_kind_name(kind));
	if (kind == PANT_TTBR0)
		KUNIT_EXPECT_TRUE_MSG(test, pant_tables_reserved(s.irq_ttbr0_baddr, s.irq_asid),
				      "%s %s (%s): in an IRQ handler TTBR0_EL1.BADDR=%#llx ASID=%#llx; want reserved_pg_dir and the reserved ASID, %#llx %#x",
				      where, what, pant_kind_name(kind), s.irq_ttbr0_baddr,
				      s.irq_asid, pant_reserved_baddr(), PANT_RESERVED_ASID);
	if (w.check_pan)
		KUNIT_EXPECT_TRUE_MSG(test, s.pan == w.pan && s.pan_after == w.pan,
				      "%s %s (%s): PSTATE.PAN=%d, %d after an IRQ, want %d",
				      where, what, pant_kind_name(kind), !!s.pan,
				      !!s.pan_after, !!w.pan);
	/*
	 * cpu_do_switch_mm() installed the mm's tables, with CnP as the
	 * system has it (never for the reserved ASID). Under TTBR0 PAN it is
	 * uaccess_ttbr0_enable() that installs them, from the thread's saved
	 * TTBR0 value, without CnP: only a kernel without it, or a CPU whose
	 * PAN wins, shows the former.
	 */
	cnp = pant_want_cnp();
	if (w.mm_tables && kind != PANT_TTBR0)
		KUNIT_EXPECT_EQ_MSG(test, s.ttbr0_cnp, cnp,
				    "%s %s: TTBR0_EL1.CnP=%llu with the mm's tables (ASID %#llx), want %llu: sanitised ID_AA64MMFR2_EL1.CnP=%llu, ARM64_HAS_CNP %d",
				    where, what, s.ttbr0_cnp, s.asid, cnp,
				    pant_mmfr2_cnp(), cpus_have_cap(ARM64_HAS_CNP));
	if (w.check_tables)
		KUNIT_EXPECT_TRUE_MSG(test, s.ttbr0_baddr == w.ttbr0_baddr && s.asid == w.asid &&
				      s.ttbr0_baddr_after == w.ttbr0_baddr &&
				      s.asid_after == w.asid,
				      "%s %s (%s, CONFIG_ARM64_SW_TTBR0_PAN=%d): TTBR0_EL1.BADDR=%#llx ASID=%#llx, after an IRQ %#llx %#llx; want %s, %#llx %#llx",
				      where, what, pant_kind_name(kind),
				      IS_ENABLED(CONFIG_ARM64_SW_TTBR0_PAN), s.ttbr0_baddr,
				      s.asid, s.ttbr0_baddr_after, s.asid_after, w.tables,
				      w.ttbr0_baddr, w.asid);
}

/* Called after @what: user access must be closed again. */
static inline void pant_expect_closed(struct kunit *test, struct mm_struct *mm, const char *what)
{
	struct pant_state st;

	pant_sample_state(&st, mm, false);
	pant_check_state(test, &st, what);
}

/*
 * The .exit of a PAN suite: whatever the case did to PAN, the thread .exit
 * runs in, which has no user mm, has user access closed, seen directly and
 * in the SPSR an interrupt saves.
 */
static inline void pant_exit_closed(struct kunit *test)
{
	pant_expect_closed(test, NULL, "the case, in .exit");
}

/*
 * __swpan_exit_el1 run on @spsr with its PAN bit set, as a return to EL1
 * runs it: the SPSR_EL1 value it leaves. Built in entry.S with
 * CONFIG_ARM64_SW_TTBR0_PAN and CONFIG_ARM64_PAN_ENABLE_KUNIT_TEST.
 */
u64 swpan_exit_el1_kunit(u64 spsr);

#endif /* _ARM64_MM_TESTS_PAN_HELPERS_H */

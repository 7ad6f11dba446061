// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of Privileged Access Never (PAN) on the running kernel.
 *
 * This file is included at the end of arch/arm64/mm/fault.c when
 * CONFIG_ARM64_PAN_KUNIT_TEST=y, so that the static
 * is_el1_permission_fault() can be called on synthetic faults.
 *
 * Expected register layouts and encodings are written as literal numbers
 * taken from the Arm Architecture Reference Manual for A-profile (DDI 0487),
 * never from the kernel macros under test. What the kernel must do is
 * decided from the raw ID register of the CPU and from the kernel
 * configuration, not from what the kernel says it detected.
 *
 * How "user access is closed" is seen depends on how PAN is provided:
 * - by the CPU (FEAT_PAN): PSTATE.PAN is 1, and TTBR0_EL1 keeps the
 *   attached mm's tables also in a kernel built with
 *   CONFIG_ARM64_SW_TTBR0_PAN, where the CPU's PAN must win;
 * - by software (CONFIG_ARM64_SW_TTBR0_PAN on a CPU without FEAT_PAN):
 *   TTBR0_EL1 points at reserved_pg_dir;
 * - not at all: there is no window to close, and the uaccess cases skip.
 * In all three cases, an interrupt taken on the CPU saves the PAN state of
 * the interrupted context in bit 22 of its SPSR (emulated by the entry
 * code for TTBR0 PAN), which the tests read from the interrupt handler.
 */

#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/pgtable.h>
#include <linux/sched/mm.h>
#include <linux/version.h>
#include <linux/workqueue.h>
#include <asm/futex.h>
#include <asm/irq_regs.h>

/* Arm ARM D19.2.65 ID_AA64MMFR1_EL1: PAN, bits [23:20]. */
#define PANT_MMFR1_PAN_SHIFT	20
#define PANT_MMFR1_PAN_MASK	0xfULL
/* FEAT_PAN: PAN >= 0b0001; FEAT_EPAN: PAN >= 0b0011. */
#define PANT_PAN_FEAT_PAN	1
#define PANT_PAN_FEAT_EPAN	3
/* Arm ARM D19.2.118 SCTLR_EL1: SPAN, bit [23]. */
#define PANT_SCTLR_SPAN		BIT_ULL(23)
/* Arm ARM C5.2.11 PAN, and D19.2.128 SPSR_EL1: PAN, bit [22]. */
#define PANT_PSTATE_PAN		BIT_ULL(22)
/* Arm ARM C5.2.19 SPSR_EL1: M[3:0] = 0b0101 is EL1h. */
#define PANT_PSTATE_EL1H	0x5ULL
/* Arm ARM D19.2.155 TTBR0_EL1: BADDR, bits [47:1] (48-bit output address). */
#define PANT_TTBR_BADDR		GENMASK_ULL(47, 1)
/* Arm ARM D19.2.155 and D19.2.156, TTBR0_EL1 and TTBR1_EL1: ASID, bits [63:48]. */
#define PANT_TTBR_ASID_SHIFT	48
/*
 * Arm ARM D19.2.139 TCR_EL1: A1, bit [22]: 1 when TTBR1_EL1.ASID defines
 * the ASID, 0 when TTBR0_EL1.ASID does.
 */
#define PANT_TCR_A1		BIT_ULL(22)
/* The ASID that SW TTBR0 PAN installs while user access is closed. */
#define PANT_RESERVED_ASID	0
/*
 * Arm ARM D19.2.40 ESR_EL1: EC, bits [31:26]; IL, bit [25]; ISS [24:0].
 * For aborts ISS.WnR is bit [6] and ISS.DFSC/IFSC bits [5:0].
 */
#define PANT_ESR(ec, iss)	(((u64)(ec) << 26) | BIT_ULL(25) | (iss))
#define PANT_EC_IABT_LOW	0x20	/* instruction abort from a lower EL */
#define PANT_EC_IABT_CUR	0x21	/* instruction abort, same EL */
#define PANT_EC_DABT_LOW	0x24	/* data abort from a lower EL */
#define PANT_EC_DABT_CUR	0x25	/* data abort, same EL */
#define PANT_ISS_WNR		BIT_ULL(6)
#define PANT_FSC_TRANS_L0	0x04	/* 0b000100 translation fault, level 0 */
#define PANT_FSC_TRANS_L3	0x07	/* 0b000111 translation fault, level 3 */
#define PANT_FSC_AF_L3		0x0b	/* 0b001011 access flag fault, level 3 */
#define PANT_FSC_PERM_L1	0x0d	/* 0b001101 permission fault, level 1 */
#define PANT_FSC_PERM_L3	0x0f	/* 0b001111 permission fault, level 3 */
/*
 * DDI 0487 J.a, D19 ESR_EL1, ISS encoding for a Data Abort, DFSC: 0b101011
 * "When FEAT_LPA2 is implemented: Translation fault, level -1" (the same
 * encoding in IFSC). Permission faults have levels 0 to 3 only
 * (0b0011xx); 0b001011 is the access flag fault, level 3.
 */
#define PANT_FSC_TRANS_LM1	0x2b	/* 0b101011 translation fault, level -1 */
/*
 * DDI 0487 J.a, D19 ESR_EL1, DFSC/IFSC: faults with FSC bits [5:4] set,
 * which a check of the type bits [3:2] alone takes for a translation
 * (0b01) or a permission (0b11) fault.
 */
#define PANT_FSC_SEA_TTW_L3	0x17	/* 0b010111 external abort on a table walk, level 3 */
#define PANT_FSC_ECC_TTW_L3	0x1f	/* 0b011111 parity/ECC error on a table walk, level 3 */
#define PANT_FSC_ECC_TTW_L1	0x1d	/* 0b011101 parity/ECC error on a table walk, level 1 */
/*
 * A TTBR0 (user) and a TTBR1 (kernel) address for any VA size the kernel
 * supports: below 2^39 and above 2^64 - 2^39 (VA_BITS = 39, the default
 * with 4K pages, is the smallest).
 */
#define PANT_USER_ADDR		0x0000000012340000UL
#define PANT_KERNEL_ADDR	0xffffffc008000000UL

/*
 * Kernel differences: one #if per difference, named by the release that
 * made it.
 */

/*
 * 6.9: with LPA2 (52-bit addresses on 4K and 16K pages) a table walk can
 * start at level -1, and esr_fsc_is_translation_fault(), which
 * is_el1_permission_fault() uses, also takes the level -1 translation
 * fault. Before, only FSC 0b0001xx (levels 0 to 3) was a translation
 * fault, and 0b101011 was no permission fault under TTBR0 PAN either.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#define PANT_TRANS_LM1_EXPECT	PANT_IF_TTBR0_PAN
#else
#define PANT_TRANS_LM1_EXPECT	PANT_NEVER
#endif

/*
 * No #if: on 6.12, unlike 6.1, a suite's .exit always runs in a kernel
 * thread of its own, not in the one that ran the case, so its current->mm
 * says nothing about the case. Nothing here depends on which thread it
 * is: a case checks "no mm left, user access closed" in its own thread
 * when it drops its mm (pant_user_put()), and pant_exit() checks through
 * a reference of its own that the mm is gone, whether the case dropped it
 * or the exit of a thread an assertion ended did.
 */

/* How this kernel on this CPU keeps the kernel out of user memory. */
enum pant_kind {
	PANT_NONE,	/* no FEAT_PAN, no CONFIG_ARM64_SW_TTBR0_PAN */
	PANT_HW,	/* FEAT_PAN: PSTATE.PAN */
	PANT_TTBR0,	/* CONFIG_ARM64_SW_TTBR0_PAN: TTBR0_EL1 switching */
};

static const char * const pant_kind_name[] = {
	[PANT_NONE] = "no PAN",
	[PANT_HW] = "PAN by the CPU",
	[PANT_TTBR0] = "PAN by TTBR0 switching",
};

static unsigned int pant_mmfr1_pan(u64 mmfr1)
{
	return (mmfr1 >> PANT_MMFR1_PAN_SHIFT) & PANT_MMFR1_PAN_MASK;
}

static bool pant_cpu_has_pan(void)
{
	return pant_mmfr1_pan(read_sysreg(id_aa64mmfr1_el1)) >= PANT_PAN_FEAT_PAN;
}

static enum pant_kind pant_get_kind(void)
{
	if (pant_cpu_has_pan())
		return PANT_HW;
	if (IS_ENABLED(CONFIG_ARM64_SW_TTBR0_PAN))
		return PANT_TTBR0;
	return PANT_NONE;
}

#define PANT_SKIP_NO_PAN(test)						\
	do {								\
		if (!pant_cpu_has_pan())				\
			kunit_skip(test, "CPU lacks PAN: ID_AA64MMFR1_EL1.PAN=0"); \
	} while (0)

/* Only on a CPU with FEAT_PAN: the register is UNDEFINED without it. */
static u64 pant_read_pan(void)
{
	u64 pan;

	/* MRS <Xt>, PAN: op0=3, op1=0, CRn=4, CRm=2, op2=3 (Arm ARM C5.2.11) */
	asm volatile("mrs %0, s3_0_c4_c2_3" : "=r" (pan));
	return pan & PANT_PSTATE_PAN;
}

/* MSR PAN, #<imm>: 0xd500401f | op2=0b100 << 5 | imm << 8 (Arm ARM C6.2.229). */
static void pant_write_pan(bool pan)
{
	if (pan)
		asm volatile(".inst 0xd500419f" : : : "memory");
	else
		asm volatile(".inst 0xd500409f" : : : "memory");
}

static u64 pant_ttbr0_baddr(void)
{
	return read_sysreg(ttbr0_el1) & PANT_TTBR_BADDR;
}

/* The ASID that tags user translations now, from the TTBR that TCR_EL1.A1 names. */
static u64 pant_asid(void)
{
	u64 ttbr = read_sysreg(tcr_el1) & PANT_TCR_A1 ? read_sysreg(ttbr1_el1) :
							read_sysreg(ttbr0_el1);

	return ttbr >> PANT_TTBR_ASID_SHIFT;
}

/* The ASID the kernel gave @mm: the low 16 bits of its context id. */
static u64 pant_mm_asid(struct mm_struct *mm)
{
	return atomic64_read(&mm->context.id) & 0xffff;
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

static void pant_irq_probe_fn(struct irq_work *work)
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
static bool pant_take_irq(struct pant_irq_probe *probe)
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

/* The PAN state of the calling context, seen directly and by an IRQ. */
struct pant_sample {
	bool irq_taken;
	int cpu;
	int irq_cpu;
	u64 pan;		/* PSTATE.PAN, FEAT_PAN only */
	u64 saved_pan;		/* PAN bit of the SPSR saved by the IRQ */
	u64 ttbr0_baddr;
	u64 asid;
	u64 mm_asid;		/* the attached mm's, read with the registers */
	/* Read again once the IRQ has returned: its exit restored them. */
	u64 pan_after;
	u64 ttbr0_baddr_after;
	u64 asid_after;
};

static void pant_sample(struct pant_sample *s, struct mm_struct *mm)
{
	struct pant_irq_probe probe;

	preempt_disable();
	s->cpu = smp_processor_id();
	s->pan = pant_cpu_has_pan() ? pant_read_pan() : 0;
	s->ttbr0_baddr = pant_ttbr0_baddr();
	s->asid = pant_asid();
	s->mm_asid = mm ? pant_mm_asid(mm) : 0;
	s->irq_taken = pant_take_irq(&probe) && probe.has_regs;
	s->pan_after = pant_cpu_has_pan() ? pant_read_pan() : 0;
	s->ttbr0_baddr_after = pant_ttbr0_baddr();
	s->asid_after = pant_asid();
	preempt_enable();
	s->irq_cpu = probe.cpu;
	s->saved_pan = probe.saved_pstate & PANT_PSTATE_PAN;
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
static void pant_want_tables(struct pant_want *w, enum pant_kind kind,
			     struct mm_struct *mm, bool open)
{
	if (kind == PANT_TTBR0 && !open) {
		w->check_tables = true;
		w->tables = "reserved_pg_dir and the reserved ASID";
		w->ttbr0_baddr = __pa_symbol(reserved_pg_dir);
		w->asid = PANT_RESERVED_ASID;
	} else if (mm) {
		w->check_tables = true;
		w->mm_tables = true;
		w->tables = "the mm's pgd and ASID";
		w->ttbr0_baddr = virt_to_phys(mm->pgd);
	}
}

/*
 * User access is open or closed, as @open says, in the calling thread,
 * which has the user @mm attached (NULL if none):
 * - PAN by the CPU: PSTATE.PAN, and the SPSR an IRQ saves, are !@open; the
 *   kernel never switches TTBR0_EL1, also when built with
 *   CONFIG_ARM64_SW_TTBR0_PAN: it holds @mm's tables and ASID;
 * - PAN by TTBR0 switching: closed, TTBR0_EL1 points at reserved_pg_dir
 *   and the ASID (in TTBR1_EL1, as TCR_EL1.A1 is set) is the reserved one;
 *   open, they are @mm's; the SPSR an IRQ saves has the emulated PAN bit;
 * - no PAN: the SPSR's PAN bit is 0.
 * The registers are read before the IRQ and again after it returned: the
 * exception entry and exit code must give the window back as it was.
 */
static void pant_expect_state(struct kunit *test, struct mm_struct *mm, bool open,
			      const char *what)
{
	enum pant_kind kind = pant_get_kind();
	const char *where = open ? "in" : "after";
	struct pant_want w = {
		.saved_pan = kind != PANT_NONE && !open ? PANT_PSTATE_PAN : 0,
		.check_pan = kind == PANT_HW,
		.pan = open ? 0 : PANT_PSTATE_PAN,
	};
	struct pant_sample s;

	pant_want_tables(&w, kind, mm, open);
	pant_sample(&s, mm);
	if (w.mm_tables)
		w.asid = s.mm_asid;
	KUNIT_EXPECT_TRUE_MSG(test, s.irq_taken && s.irq_cpu == s.cpu,
			      "%s %s: no IRQ taken on CPU%d (ran on %d)",
			      where, what, s.cpu, s.irq_cpu);
	if (!s.irq_taken || s.irq_cpu != s.cpu)
		return;
	KUNIT_EXPECT_EQ_MSG(test, s.saved_pan, w.saved_pan,
			    "%s %s (%s): SPSR.PAN=%d, want %d", where, what,
			    pant_kind_name[kind], !!s.saved_pan, !!w.saved_pan);
	if (w.check_pan)
		KUNIT_EXPECT_TRUE_MSG(test, s.pan == w.pan && s.pan_after == w.pan,
				      "%s %s (%s): PSTATE.PAN=%d, %d after an IRQ, want %d",
				      where, what, pant_kind_name[kind], !!s.pan,
				      !!s.pan_after, !!w.pan);
	if (w.check_tables)
		KUNIT_EXPECT_TRUE_MSG(test, s.ttbr0_baddr == w.ttbr0_baddr && s.asid == w.asid &&
				      s.ttbr0_baddr_after == w.ttbr0_baddr &&
				      s.asid_after == w.asid,
				      "%s %s (%s, CONFIG_ARM64_SW_TTBR0_PAN=%d): TTBR0_EL1.BADDR=%#llx ASID=%#llx, after an IRQ %#llx %#llx; want %s, %#llx %#llx",
				      where, what, pant_kind_name[kind],
				      IS_ENABLED(CONFIG_ARM64_SW_TTBR0_PAN), s.ttbr0_baddr,
				      s.asid, s.ttbr0_baddr_after, s.asid_after, w.tables,
				      w.ttbr0_baddr, w.asid);
}

/* Called after @what: user access must be closed again. */
static void pant_expect_closed(struct kunit *test, struct mm_struct *mm, const char *what)
{
	pant_expect_state(test, mm, false, what);
}

/* Called inside a privileged uaccess window on @mm: user access is open. */
static void pant_expect_open(struct kunit *test, struct mm_struct *mm, const char *what)
{
	pant_expect_state(test, mm, true, what);
}

/*
 * A user mm owned by the test, attached to the KUnit kthread, with one
 * mapped read-write page at @addr and an unmapped page right after it.
 */
struct pant_user {
	struct mm_struct *mm;
	struct mm_struct *held;	/* an mmgrab() reference, for pant_exit() */
	unsigned long addr;
	unsigned long unmapped;
};

static int pant_user_get(struct pant_user *u)
{
	int ret;

	u->mm = mm_alloc();
	if (!u->mm)
		return -ENOMEM;
	/* What an mm gets from a process; kunit_attach_mm() (6.12) does the same. */
	u->mm->task_size = TASK_SIZE;
	arch_pick_mmap_layout(u->mm, &current->signal->rlim[RLIMIT_STACK]);
	kthread_use_mm(u->mm);
	u->addr = vm_mmap(NULL, 0, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE,
			  MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE, 0);
	if (IS_ERR_VALUE(u->addr)) {
		ret = (int)u->addr;
		goto out;
	}
	u->unmapped = u->addr + PAGE_SIZE;
	ret = vm_munmap(u->unmapped, PAGE_SIZE);
	if (!ret) {
		/* For pant_exit(): the mm_struct outlives its address space. */
		mmgrab(u->mm);
		u->held = u->mm;
		return 0;
	}
	vm_munmap(u->addr, PAGE_SIZE);
out:
	kthread_unuse_mm(u->mm);
	mmput(u->mm);
	u->mm = NULL;
	return ret;
}

/*
 * Attaches the test mm for a uaccess case, which skips where neither the
 * CPU nor the kernel provides PAN: there is no window to open or close.
 * With the wrong tables in TTBR0_EL1 a user access would fault again each
 * time the fault handler returned, and the case would hang instead of
 * failing. So TTBR0_EL1 must be what the kind of PAN makes it (the
 * reserved tables under TTBR0 PAN, else the mm's) before any access, and
 * the case runs with page faults disabled, on a populated page, until
 * pant_user_put(): a fault then fails the access with -EFAULT at once,
 * also where an interrupt left the wrong tables behind.
 */
static void pant_user_attach(struct kunit *test, struct pant_user *u)
{
	enum pant_kind kind = pant_get_kind();
	struct pant_want w = {};
	u64 ttbr0;

	if (kind == PANT_NONE)
		kunit_skip(test,
			   "CPU lacks PAN: ID_AA64MMFR1_EL1.PAN=0, and CONFIG_ARM64_SW_TTBR0_PAN=n: no uaccess window to open or close");
	KUNIT_ASSERT_EQ(test, pant_user_get(u), 0);
	pant_want_tables(&w, kind, u->mm, false);
	ttbr0 = pant_ttbr0_baddr();
	KUNIT_ASSERT_EQ_MSG(test, ttbr0, w.ttbr0_baddr,
			    "attaching a user mm (%s, CONFIG_ARM64_SW_TTBR0_PAN=%d): TTBR0_EL1.BADDR=%#llx, want %s, %#llx",
			    pant_kind_name[kind], IS_ENABLED(CONFIG_ARM64_SW_TTBR0_PAN), ttbr0,
			    w.tables, w.ttbr0_baddr);
	pagefault_disable();
}

/* At the end of a case, in its thread: no mm left, user access closed. */
static void pant_user_put(struct kunit *test, struct pant_user *u)
{
	pagefault_enable();
	vm_munmap(u->addr, PAGE_SIZE);
	kthread_unuse_mm(u->mm);
	mmput(u->mm);
	u->mm = NULL;
	KUNIT_EXPECT_PTR_EQ_MSG(test, current->mm, NULL, "the case's thread still has an mm");
	pant_expect_closed(test, NULL, "dropping the test mm");
}

/* What the suite must leave as it found it. */
struct pant_ctx {
	unsigned int online_cpus;
	cpumask_t online;
	struct pant_user user;
};

static int pant_init(struct kunit *test)
{
	struct pant_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	cpumask_copy(&ctx->online, cpu_online_mask);
	ctx->online_cpus = num_online_cpus();
	test->priv = ctx;
	return 0;
}

/*
 * Whether the test mm's address space is gone: the case dropped it with
 * pant_user_put(), or an assertion ended the case's thread, whose exit
 * dropped it. That thread's end is signalled to KUnit a little before its
 * mm is dropped, so wait for it a while.
 */
static int pant_mm_users_left(struct mm_struct *mm)
{
	int ms;

	for (ms = 0; ms < 1000 && atomic_read(&mm->mm_users); ms++)
		usleep_range(1000, 2000);
	return atomic_read(&mm->mm_users);
}

static void pant_exit(struct kunit *test)
{
	struct pant_ctx *ctx = test->priv;
	struct mm_struct *held = ctx->user.held;
	unsigned int cpu;

	/* A case that stopped half way: bring its CPU back. */
	for_each_cpu(cpu, &ctx->online)
		if (!cpu_online(cpu))
			KUNIT_EXPECT_EQ_MSG(test, add_cpu(cpu), 0, "CPU%u left offline", cpu);
	KUNIT_EXPECT_EQ(test, num_online_cpus(), ctx->online_cpus);
	if (held) {
		KUNIT_EXPECT_EQ_MSG(test, pant_mm_users_left(held), 0,
				    "the test mm is still in use after the case");
		mmdrop(held);
		ctx->user.held = NULL;
	}
	/* In whatever kernel thread .exit runs: its user access is closed. */
	pant_expect_closed(test, NULL, "the case, in .exit");
}

/* 1. Detection, from the ID register of this CPU and the sanitised one. */
static void has_pan_matches_id_aa64mmfr1(struct kunit *test)
{
	u64 raw = read_sysreg(id_aa64mmfr1_el1);
	u64 san = read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1);
	bool want = pant_mmfr1_pan(raw) >= PANT_PAN_FEAT_PAN;

	KUNIT_EXPECT_EQ_MSG(test, pant_mmfr1_pan(san), pant_mmfr1_pan(raw),
			    "ID_AA64MMFR1_EL1 raw %#llx, sanitised %#llx", raw, san);
	KUNIT_EXPECT_EQ_MSG(test, cpus_have_cap(ARM64_HAS_PAN), want,
			    "ID_AA64MMFR1_EL1 %#llx: PAN=%u", raw, pant_mmfr1_pan(raw));
	KUNIT_EXPECT_EQ_MSG(test, cpus_have_cap(ARM64_HAS_PAN),
			    pant_mmfr1_pan(san) >= PANT_PAN_FEAT_PAN,
			    "sanitised ID_AA64MMFR1_EL1 %#llx: PAN=%u", san,
			    pant_mmfr1_pan(san));
	KUNIT_EXPECT_EQ_MSG(test, system_uses_hw_pan(), want,
			    "ID_AA64MMFR1_EL1 %#llx: PAN=%u", raw, pant_mmfr1_pan(raw));
	KUNIT_EXPECT_EQ_MSG(test, system_uses_ttbr0_pan(),
			    IS_ENABLED(CONFIG_ARM64_SW_TTBR0_PAN) && !want,
			    "ID_AA64MMFR1_EL1 %#llx: PAN=%u, CONFIG_ARM64_SW_TTBR0_PAN=%d",
			    raw, pant_mmfr1_pan(raw),
			    IS_ENABLED(CONFIG_ARM64_SW_TTBR0_PAN));
}

static void has_epan_needs_pan_field_3(struct kunit *test)
{
	u64 san = read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1);
	bool want = IS_ENABLED(CONFIG_ARM64_EPAN) &&
		    pant_mmfr1_pan(san) >= PANT_PAN_FEAT_EPAN;

	KUNIT_EXPECT_EQ_MSG(test, cpus_have_cap(ARM64_HAS_EPAN), want,
			    "sanitised ID_AA64MMFR1_EL1 %#llx: PAN=%u, CONFIG_ARM64_EPAN=%d",
			    san, pant_mmfr1_pan(san), IS_ENABLED(CONFIG_ARM64_EPAN));
}

/* 2. SCTLR_EL1.SPAN and PSTATE.PAN in process context on a given CPU. */
struct pant_cpu_state {
	int cpu;
	bool in_task;
	u64 sctlr;
	u64 pan;
};

static long pant_cpu_state_fn(void *arg)
{
	struct pant_cpu_state *st = arg;

	st->cpu = raw_smp_processor_id();
	st->in_task = in_task();
	st->sctlr = read_sysreg(sctlr_el1);
	st->pan = pant_read_pan();
	return 0;
}

static void pant_expect_cpu_enabled(struct kunit *test, unsigned int cpu)
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

static void cpu_enable_pan_every_cpu(struct kunit *test)
{
	unsigned int cpu, checked = 0;

	PANT_SKIP_NO_PAN(test);
	KUNIT_EXPECT_EQ_MSG(test, pant_read_pan(), PANT_PSTATE_PAN,
			    "PSTATE.PAN is 0 in the KUnit thread");
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		pant_expect_cpu_enabled(test, cpu);
		checked++;
	}
	cpus_read_unlock();
	KUNIT_EXPECT_EQ(test, checked, num_online_cpus());
}

/* An exception taken to EL1 sets PSTATE.PAN when SCTLR_EL1.SPAN is 0. */
static void el1_exception_sets_pan(struct kunit *test)
{
	static const bool before[] = { false, true };
	struct pant_irq_probe probe;
	u64 after;
	bool taken;
	int i, cpu;

	PANT_SKIP_NO_PAN(test);
	for (i = 0; i < ARRAY_SIZE(before); i++) {
		preempt_disable();
		cpu = smp_processor_id();
		pant_write_pan(before[i]);
		taken = pant_take_irq(&probe);
		after = pant_read_pan();
		pant_write_pan(true);
		preempt_enable();

		KUNIT_ASSERT_TRUE_MSG(test, taken && probe.has_regs,
				      "no IRQ taken with PAN=%d", before[i]);
		KUNIT_EXPECT_EQ(test, probe.cpu, cpu);
		KUNIT_EXPECT_EQ_MSG(test, probe.pan, PANT_PSTATE_PAN,
				    "IRQ from PAN=%d: PSTATE.PAN=0 in the handler",
				    before[i]);
		KUNIT_EXPECT_EQ_MSG(test, !!(probe.saved_pstate & PANT_PSTATE_PAN),
				    before[i], "IRQ from PAN=%d: SPSR_EL1 %#llx",
				    before[i], probe.saved_pstate);
		KUNIT_EXPECT_EQ_MSG(test, !!after, before[i],
				    "PAN=%d before the IRQ, %d after it",
				    before[i], !!after);
	}
}

/* 3. uaccess windows. */
static void uaccess_privileged_toggles_pan(struct kunit *test)
{
	struct pant_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;

	pant_user_attach(test, u);

	pant_expect_closed(test, u->mm, "attaching a user mm");
	/* Preemptible, as a real window is: the state must survive an IRQ. */
	uaccess_enable_privileged();
	pant_expect_open(test, u->mm, "uaccess_enable_privileged()");
	uaccess_disable_privileged();
	pant_expect_closed(test, u->mm, "uaccess_disable_privileged()");

	pant_user_put(test, u);
}

static void uaccess_user_page_pan_restored(struct kunit *test)
{
	struct pant_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
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

static void uaccess_unmapped_efault_pan_restored(struct kunit *test)
{
	struct pant_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
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

/* 4. A secondary CPU taken offline and brought back has PAN enabled again. */
static void cpu_hotplug_reenables_pan(struct kunit *test)
{
	unsigned int cpu = cpumask_last(cpu_online_mask);

	PANT_SKIP_NO_PAN(test);
	if (cpu == 0)
		kunit_skip(test, "only CPU0 online: nothing to take offline");

	KUNIT_ASSERT_EQ(test, remove_cpu(cpu), 0);
	KUNIT_EXPECT_FALSE(test, cpu_online(cpu));
	KUNIT_ASSERT_EQ(test, add_cpu(cpu), 0);
	KUNIT_ASSERT_TRUE(test, cpu_online(cpu));
	pant_expect_cpu_enabled(test, cpu);
}

/* 5. is_el1_permission_fault() on synthetic faults. */
enum pant_fault_expect {
	PANT_NEVER,
	PANT_ALWAYS,
	PANT_IF_TTBR0_PAN,	/* only when TTBR0 switching provides PAN */
};

struct pant_fault_row {
	const char *name;
	u64 esr;
	unsigned long addr;
	u64 pstate;
	enum pant_fault_expect expect;
};

/* ESR encodings: Arm ARM D19.2.40 ESR_EL1 and its ISS for aborts. */
static const struct pant_fault_row pant_fault_rows[] = {
	{
		.name = "el1_data_perm_l3_user",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_PERM_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_ALWAYS,
	}, {
		.name = "el1_data_perm_l1_write_user",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_ISS_WNR | PANT_FSC_PERM_L1),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H,
		.expect = PANT_ALWAYS,
	}, {
		.name = "el1_data_perm_l3_kernel",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_PERM_L3),
		.addr = PANT_KERNEL_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_ALWAYS,
	}, {
		.name = "el1_inst_perm_l3_user",
		.esr = PANT_ESR(PANT_EC_IABT_CUR, PANT_FSC_PERM_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_ALWAYS,
	}, {
		.name = "el0_data_perm_l3_user",
		.esr = PANT_ESR(PANT_EC_DABT_LOW, PANT_FSC_PERM_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_PAN,
		.expect = PANT_NEVER,
	}, {
		.name = "el0_inst_perm_l3_user",
		.esr = PANT_ESR(PANT_EC_IABT_LOW, PANT_FSC_PERM_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_PAN,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_data_trans_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_IF_TTBR0_PAN,
	}, {
		.name = "el1_data_trans_l0_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_L0),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_IF_TTBR0_PAN,
	}, {
		.name = "el1_inst_trans_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_IABT_CUR, PANT_FSC_TRANS_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_IF_TTBR0_PAN,
	}, {
		.name = "el1_data_trans_lm1_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_LM1),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_TRANS_LM1_EXPECT,
	}, {
		.name = "el1_inst_trans_lm1_user_pan",
		.esr = PANT_ESR(PANT_EC_IABT_CUR, PANT_FSC_TRANS_LM1),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_TRANS_LM1_EXPECT,
	}, {
		.name = "el1_data_trans_l3_user_no_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_data_trans_l3_kernel_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_L3),
		.addr = PANT_KERNEL_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_data_access_flag_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_AF_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_NEVER,
	}, {
		/*
		 * Bits [3:2] read 0b01, a translation fault: only a TTBR0 PAN
		 * check of bits [3:2] alone takes it for one (6.1's FSC type
		 * test; 6.12 compares the whole FSC).
		 */
		.name = "el1_data_sea_ttw_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_SEA_TTW_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_data_ecc_ttw_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_ECC_TTW_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_inst_ecc_ttw_l1_kernel",
		.esr = PANT_ESR(PANT_EC_IABT_CUR, PANT_FSC_ECC_TTW_L1),
		.addr = PANT_KERNEL_ADDR,
		.pstate = PANT_PSTATE_EL1H,
		.expect = PANT_NEVER,
	}, {
		.name = "el0_data_trans_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_LOW, PANT_FSC_TRANS_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_PAN,
		.expect = PANT_NEVER,
	},
};

static void pant_fault_row_desc(const struct pant_fault_row *row, char *desc)
{
	strscpy(desc, row->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pant_fault, pant_fault_rows, pant_fault_row_desc);

static void is_el1_permission_fault_rows(struct kunit *test)
{
	const struct pant_fault_row *row = test->param_value;
	/* Decided from the CPU and the config, not from system_uses_ttbr0_pan(). */
	bool ttbr0_pan = pant_get_kind() == PANT_TTBR0;
	struct pt_regs regs = { .pstate = row->pstate };
	bool want;

	switch (row->expect) {
	case PANT_ALWAYS:
		want = true;
		break;
	case PANT_IF_TTBR0_PAN:
		want = ttbr0_pan;
		break;
	default:
		want = false;
		break;
	}
	KUNIT_EXPECT_EQ_MSG(test, is_el1_permission_fault(row->addr, row->esr, &regs),
			    want,
			    "%s: addr %#lx, ESR %#llx, PSTATE %#llx (%s)", row->name,
			    row->addr, row->esr, row->pstate, pant_kind_name[pant_get_kind()]);
}

static struct kunit_case arm64_pan_cases[] = {
	KUNIT_CASE(has_pan_matches_id_aa64mmfr1),
	KUNIT_CASE(has_epan_needs_pan_field_3),
	KUNIT_CASE(cpu_enable_pan_every_cpu),
	KUNIT_CASE(el1_exception_sets_pan),
	KUNIT_CASE(uaccess_privileged_toggles_pan),
	KUNIT_CASE(uaccess_user_page_pan_restored),
	KUNIT_CASE(uaccess_unmapped_efault_pan_restored),
	KUNIT_CASE(cpu_hotplug_reenables_pan),
	KUNIT_CASE_PARAM(is_el1_permission_fault_rows, pant_fault_gen_params),
	{}
};

static struct kunit_suite arm64_pan_suite = {
	.name = "arm64_pan",
	.init = pant_init,
	.exit = pant_exit,
	.test_cases = arm64_pan_cases,
};

kunit_test_suite(arm64_pan_suite);

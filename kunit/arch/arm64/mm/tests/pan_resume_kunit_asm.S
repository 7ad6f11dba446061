/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The wake-up half of a powerdown, for pan_resume_kunit.c.
 */

#include <linux/cfi_types.h>
#include <linux/linkage.h>
#include <asm/assembler.h>
#include <asm/sysreg.h>

	.pushsection .idmap.text, "a"

/*
 * void pan_resume_kunit_wake(unsigned long entry): turns the MMU off and
 * branches to @entry, a physical address, at the current EL (EL1 in
 * QEMU's virt machine without virtualization=on): the state in which
 * PSCI firmware enters a CPU it woke from a powerdown state at the
 * entry point CPU_SUSPEND was given. Called at its physical address
 * with the identity map installed, as cpu_soft_restart() is: that
 * routine is only built with CONFIG_KEXEC_CORE.
 */
SYM_TYPED_FUNC_START(pan_resume_kunit_wake)
	mov_q	x12, INIT_SCTLR_EL1_MMU_OFF
	pre_disable_mmu_workaround
	msr	sctlr_el1, x12
	isb
	br	x0
SYM_FUNC_END(pan_resume_kunit_wake)

	.popsection

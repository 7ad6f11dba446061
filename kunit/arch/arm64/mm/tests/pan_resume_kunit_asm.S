/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The wake-up half of a powerdown, for pan_resume_kunit.c.
 */

#include <linux/cfi_types.h>
#include <linux/linkage.h>
#include <asm/assembler.h>
#include <asm/sysreg.h>

	.pushsection .idmap.text, "ax"

/*
 * void pan_resume_kunit_wake(void): turns the MMU off and branches to
 * cpu_resume, at EL1, as PSCI firmware enters a CPU it woke from a
 * powerdown state at the entry point CPU_SUSPEND was given. Only that
 * much: the CPU keeps every other register, its caches and its EL.
 * Called at its physical address with the identity map installed, as
 * cpu_soft_restart() is (that routine is only built with
 * CONFIG_KEXEC_CORE), so that adr_l gives cpu_resume's physical address.
 */
SYM_TYPED_FUNC_START(pan_resume_kunit_wake)
	mov_q	x12, INIT_SCTLR_EL1_MMU_OFF
	pre_disable_mmu_workaround
	msr	sctlr_el1, x12
	isb
	adr_l	x0, cpu_resume
	br	x0
SYM_FUNC_END(pan_resume_kunit_wake)

	.popsection

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The SW TTBR0 PAN exit code, called from pan_enable_kunit.c. entry.S
 * includes this file, with CONFIG_ARM64_SW_TTBR0_PAN and
 * CONFIG_ARM64_PAN_ENABLE_KUNIT_TEST, as fault.c includes its test, so
 * that it reaches the local __swpan_exit_el1.
 */

/*
 * u64 swpan_exit_el1_kunit(u64 spsr): the x22 that __swpan_exit_el1 leaves
 * when it is called, as on a return to EL1, with x22 holding @spsr (the
 * saved SPSR_EL1) with its PAN bit set. With the bit clear the exit code
 * would install the thread's user tables in TTBR0_EL1; set, only its
 * handling of the bit itself runs. __swpan_exit_el1 clobbers x0 and x1;
 * x22, callee-saved, is kept here.
 */
SYM_FUNC_START(swpan_exit_el1_kunit)
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	str	x22, [sp, #16]
	orr	x22, x0, #PSR_PAN_BIT
	bl	__swpan_exit_el1
	mov	x0, x22
	ldr	x22, [sp, #16]
	ldp	x29, x30, [sp], #32
	ret
SYM_FUNC_END(swpan_exit_el1_kunit)

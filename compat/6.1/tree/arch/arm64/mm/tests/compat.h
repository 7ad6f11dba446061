/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the PAN suites use of a newer kernel than 6.1:
 * - SYS_PSTATE_PAN, the MRS/MSR encoding of PSTATE.PAN, from 6.12
 *   (<asm/sysreg.h>);
 * - TCR_EL1_A1: TCR_EL1 came to arch/arm64/tools/sysreg after 6.12; 6.1
 *   names the bit TCR_A1 (<asm/pgtable-hwdef.h>).
 */
#ifndef _ARM64_MM_TESTS_COMPAT_H
#define _ARM64_MM_TESTS_COMPAT_H

#include <asm/pgtable-hwdef.h>
#include <asm/sysreg.h>

#define SYS_PSTATE_PAN	sys_reg(3, 0, 4, 2, 3)

#define TCR_EL1_A1	TCR_A1

#endif /* _ARM64_MM_TESTS_COMPAT_H */

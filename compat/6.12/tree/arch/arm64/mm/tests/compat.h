/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the PAN suites use of a newer kernel than 6.12: TCR_EL1 came to
 * arch/arm64/tools/sysreg after it, and TCR_EL1_A1 with it; 6.12 names
 * the bit TCR_A1 (<asm/pgtable-hwdef.h>).
 */
#ifndef _ARM64_MM_TESTS_COMPAT_H
#define _ARM64_MM_TESTS_COMPAT_H

#include <asm/pgtable-hwdef.h>

#define TCR_EL1_A1	TCR_A1

#endif /* _ARM64_MM_TESTS_COMPAT_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the arm64 kernel suites use of a newer kernel than 6.1:
 * - SYS_PSTATE_PAN, the MRS/MSR encoding of PSTATE.PAN, from 6.12
 *   (<asm/sysreg.h>);
 * - KUnit's deferred actions, from 6.5 (<kunit/deferred_actions.h>).
 */
#ifndef _ARM64_KERNEL_TESTS_COMPAT_H
#define _ARM64_KERNEL_TESTS_COMPAT_H

#include <kunit/deferred_actions.h>
#include <asm/sysreg.h>

#ifndef SYS_PSTATE_PAN
#define SYS_PSTATE_PAN	sys_reg(3, 0, 4, 2, 3)
#endif

#endif /* _ARM64_KERNEL_TESTS_COMPAT_H */

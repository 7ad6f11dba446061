/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ALTERNATIVE() sites of alternative_kunit.c (its C-string sites) and
 * alternative_kunit_asm.S (its assembler sites): functions, and the labels
 * around each site.
 */
#ifndef __ARM64_ARM64_KERNEL_TESTS_ALTERNATIVE_KUNIT_H
#define __ARM64_ARM64_KERNEL_TESTS_ALTERNATIVE_KUNIT_H

#include <linux/types.h>

#define ALT_TEST_DECLARE(name)						\
	int name(void);							\
	extern const u32 name##_begin[], name##_end[]

ALT_TEST_DECLARE(alt_test_c_cfg_4k);
ALT_TEST_DECLARE(alt_test_c_cfg_16k);
ALT_TEST_DECLARE(alt_test_c_cfg_64k);
ALT_TEST_DECLARE(alt_test_c_pan);
ALT_TEST_DECLARE(alt_test_c_always);
ALT_TEST_DECLARE(alt_test_c_epan);
ALT_TEST_DECLARE(alt_test_c_boot);
ALT_TEST_DECLARE(alt_test_asm_cfg_4k);
ALT_TEST_DECLARE(alt_test_asm_cfg_16k);
ALT_TEST_DECLARE(alt_test_asm_cfg_64k);
ALT_TEST_DECLARE(alt_test_asm_insn_off);
ALT_TEST_DECLARE(alt_test_asm_pan);
ALT_TEST_DECLARE(alt_test_asm_if_always);
ALT_TEST_DECLARE(alt_test_asm_if_pan);
ALT_TEST_DECLARE(alt_test_asm_if_not_pan);

/* The ADRP site: the 4KB page of alt_test_adrp_target once patched, else 0. */
unsigned long alt_test_asm_adrp(void);
extern const u64 alt_test_adrp_target;

#endif /* __ARM64_ARM64_KERNEL_TESTS_ALTERNATIVE_KUNIT_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the detection of Privileged Access Never (PAN): the
 * ARM64_HAS_PAN and ARM64_HAS_EPAN capabilities, and which of the CPU's
 * PAN and SW TTBR0 PAN the kernel uses, against the ID register.
 */

#include <kunit/test.h>
#include <linux/cpufeature.h>

#include "pan_helpers.h"

/*
 * ARM64_HAS_PAN, system_uses_hw_pan() and system_uses_ttbr0_pan() against
 * ID_AA64MMFR1_EL1.PAN, raw on this CPU and sanitised.
 */
static void has_pan_matches_id_aa64mmfr1(struct kunit *test)
{
	u64 raw = read_sysreg(id_aa64mmfr1_el1);
	u64 san = read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1);
	bool want = pant_mmfr1_pan(raw) >= PANT_MMFR1_PAN_PAN;
	bool has_pan = cpus_have_cap(ARM64_HAS_PAN);
	bool sw_ttbr0 = IS_ENABLED(CONFIG_ARM64_SW_TTBR0_PAN);

	KUNIT_EXPECT_EQ_MSG(test, pant_mmfr1_pan(san), pant_mmfr1_pan(raw),
			    "ID_AA64MMFR1_EL1 raw %#llx, sanitised %#llx", raw, san);
	KUNIT_EXPECT_EQ_MSG(test, has_pan, want,
			    "ID_AA64MMFR1_EL1 %#llx: PAN=%u", raw, pant_mmfr1_pan(raw));
	KUNIT_EXPECT_EQ_MSG(test, has_pan, pant_mmfr1_pan(san) >= PANT_MMFR1_PAN_PAN,
			    "sanitised ID_AA64MMFR1_EL1 %#llx: PAN=%u", san,
			    pant_mmfr1_pan(san));
	KUNIT_EXPECT_EQ_MSG(test, system_uses_hw_pan(), want,
			    "ID_AA64MMFR1_EL1 %#llx: PAN=%u", raw, pant_mmfr1_pan(raw));
	KUNIT_EXPECT_EQ_MSG(test, system_uses_ttbr0_pan(), sw_ttbr0 && !want,
			    "ID_AA64MMFR1_EL1 %#llx: PAN=%u, CONFIG_ARM64_SW_TTBR0_PAN=%d",
			    raw, pant_mmfr1_pan(raw), sw_ttbr0);
}

/*
 * ARM64_HAS_EPAN only when the field is 3 or more (FEAT_PAN3) on every
 * CPU, and the kernel is built with CONFIG_ARM64_EPAN: a CPU with FEAT_PAN
 * or FEAT_PAN2 (1 or 2) has no EPAN.
 */
static void has_epan_needs_pan_field_3(struct kunit *test)
{
	u64 san = read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1);
	bool has_epan = cpus_have_cap(ARM64_HAS_EPAN);

	KUNIT_EXPECT_EQ_MSG(test, has_epan, pant_want_epan(),
			    "sanitised ID_AA64MMFR1_EL1 %#llx: PAN=%u, CONFIG_ARM64_EPAN=%d",
			    san, pant_mmfr1_pan(san), IS_ENABLED(CONFIG_ARM64_EPAN));
}

static struct kunit_case arm64_pan_detect_cases[] = {
	KUNIT_CASE(has_pan_matches_id_aa64mmfr1),
	KUNIT_CASE(has_epan_needs_pan_field_3),
	{}
};

static struct kunit_suite arm64_pan_detect_suite = {
	.name = "arm64_pan_detect",
	.exit = pant_exit_closed,
	.test_cases = arm64_pan_detect_cases,
};

kunit_test_suite(arm64_pan_detect_suite);

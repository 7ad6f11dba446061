// SPDX-License-Identifier: GPL-2.0-only
/*
 * A stand-in for arch/arm64/kernel/cpufeature.c (pan_kunit_test.py fixture).
 */

#include <asm/cpufeature.h>

static bool
has_cpuid_feature(const struct arm64_cpu_capabilities *entry, int scope)
{
	u64 val = read_sanitised_ftr_reg(entry->sys_reg);

	return feature_matches(val, entry);
}

#ifdef CONFIG_ARM64_PAN
static void cpu_enable_pan(const struct arm64_cpu_capabilities *__unused)
{
	/*
	 * We modify PSTATE. This won't work from irq context as the PSTATE
	 * is discarded once we return from the exception.
	 */
	WARN_ON_ONCE(in_interrupt());

	sysreg_clear_set(sctlr_el1, SCTLR_EL1_SPAN, 0);
	set_pstate_pan(1);
}
#endif /* CONFIG_ARM64_PAN */

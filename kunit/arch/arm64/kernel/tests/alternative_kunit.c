// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for arm64 ALTERNATIVE() and its optional CONFIG_ argument
 * (asm/alternative-macros.h): a site whose option is off emits neither its
 * old nor its new instructions and no .altinstructions entry; a site whose
 * option is on emits its old sequence and an entry for it, which boot
 * patches to the new sequence exactly when the CPU has the capability.
 *
 * Every site is a function that returns 2 when its site is empty, 0 from
 * the old instruction (MOVZ W0, #0) and 1 from the new one (MOVZ W0, #1).
 * What was emitted is measured from labels around the site in the built
 * kernel and from the .altinstructions entries, never by expanding the
 * macro again here.
 *
 * The sites with a CONFIG_ argument take the page size options,
 * CONFIG_ARM64_4K_PAGES, CONFIG_ARM64_16K_PAGES and CONFIG_ARM64_64K_PAGES,
 * a site each, in C and in assembler: a kernel has exactly one of them, so
 * every build has both polarities, whatever else it is built with.
 *
 * The sites are called through a pointer, so each is a function the
 * kernel's branch protection accepts: the C-string sites are C functions
 * (the compiler gives them their BTI landing pad and kCFI type), the
 * assembler ones start with SYM_TYPED_FUNC_START.
 */

#include <kunit/test.h>
#include <linux/cpufeature.h>
#include <linux/init.h>
#include <asm/alternative.h>
#include <asm/insn.h>
#include <asm/sections.h>

#include "alternative_kunit.h"

/* MOVZ W0, #imm16: sf=0 opc=10 100101 hw=00 imm16 Rd=0 (Arm ARM C6.2) */
#define ALT_TEST_MOVZ_W0(imm)	(0x52800000U | ((imm) << 5))

/*
 * Runs a C-string ALTERNATIVE() site placed between the global labels
 * NAME_begin and NAME_end, in the function NAME that uses it once. The
 * site's instructions write W0, the value it yields.
 */
#define ALT_TEST_C_SITE(name, site) ({					\
	register unsigned long x0 asm("x0");				\
									\
	asm volatile("	mov	w0, #2\n"				\
		     "	.globl	" #name "_begin\n"			\
		     #name "_begin:\n"					\
		     site						\
		     "	.globl	" #name "_end\n"			\
		     #name "_end:\n"					\
		     : "=r" (x0));					\
	(int)x0;							\
})

noinline int alt_test_c_cfg_4k(void)
{
	return ALT_TEST_C_SITE(alt_test_c_cfg_4k,
			       ALTERNATIVE("mov w0, #0", "mov w0, #1", ARM64_HAS_PAN,
					   CONFIG_ARM64_4K_PAGES));
}

noinline int alt_test_c_cfg_16k(void)
{
	return ALT_TEST_C_SITE(alt_test_c_cfg_16k,
			       ALTERNATIVE("mov w0, #0", "mov w0, #1", ARM64_HAS_PAN,
					   CONFIG_ARM64_16K_PAGES));
}

noinline int alt_test_c_cfg_64k(void)
{
	return ALT_TEST_C_SITE(alt_test_c_cfg_64k,
			       ALTERNATIVE("mov w0, #0", "mov w0, #1", ARM64_HAS_PAN,
					   CONFIG_ARM64_64K_PAGES));
}

noinline int alt_test_c_pan(void)
{
	return ALT_TEST_C_SITE(alt_test_c_pan,
			       ALTERNATIVE("mov w0, #0", "mov w0, #1", ARM64_HAS_PAN));
}

noinline int alt_test_c_always(void)
{
	return ALT_TEST_C_SITE(alt_test_c_always,
			       ALTERNATIVE("mov w0, #0", "mov w0, #1", ARM64_ALWAYS_SYSTEM));
}

noinline int alt_test_c_epan(void)
{
	return ALT_TEST_C_SITE(alt_test_c_epan,
			       ALTERNATIVE("mov w0, #0", "mov w0, #1", ARM64_HAS_EPAN));
}

/*
 * A capability of boot CPU scope (ARM64_CPUCAP_BOOT_CPU_FEATURE), whose
 * sites apply_boot_alternatives() patches before the secondary CPUs come
 * up, and apply_alternatives_all() leaves out. What is checked here is
 * that the site is patched exactly when the CPU has it; when it was
 * patched is not seen (a kernel without boot patching does not get as far
 * as KUnit: pointer authentication keys, LPA2).
 */
noinline int alt_test_c_boot(void)
{
	return ALT_TEST_C_SITE(alt_test_c_boot,
			       ALTERNATIVE("mov w0, #0", "mov w0, #1", ARM64_HAS_ADDRESS_AUTH));
}

struct alt_test_site {
	const char *name;
	int (*call)(void);
	const u32 *begin, *end;
	u16 cap;
	bool emitted;		/* its CONFIG_ option (or enable) is on */
};

#define ALT_TEST_SITE(fn, capability, on)				\
	{ .name = #fn, .call = fn, .begin = fn##_begin, .end = fn##_end, \
	  .cap = capability, .emitted = on }

static const struct alt_test_site alt_test_sites[] = {
	ALT_TEST_SITE(alt_test_c_cfg_4k, ARM64_HAS_PAN, IS_ENABLED(CONFIG_ARM64_4K_PAGES)),
	ALT_TEST_SITE(alt_test_c_cfg_16k, ARM64_HAS_PAN, IS_ENABLED(CONFIG_ARM64_16K_PAGES)),
	ALT_TEST_SITE(alt_test_c_cfg_64k, ARM64_HAS_PAN, IS_ENABLED(CONFIG_ARM64_64K_PAGES)),
	ALT_TEST_SITE(alt_test_c_pan, ARM64_HAS_PAN, true),
	ALT_TEST_SITE(alt_test_c_always, ARM64_ALWAYS_SYSTEM, true),
	ALT_TEST_SITE(alt_test_c_epan, ARM64_HAS_EPAN, true),
	ALT_TEST_SITE(alt_test_c_boot, ARM64_HAS_ADDRESS_AUTH, true),
	ALT_TEST_SITE(alt_test_asm_cfg_4k, ARM64_ALWAYS_SYSTEM, IS_ENABLED(CONFIG_ARM64_4K_PAGES)),
	ALT_TEST_SITE(alt_test_asm_cfg_16k, ARM64_ALWAYS_SYSTEM,
		      IS_ENABLED(CONFIG_ARM64_16K_PAGES)),
	ALT_TEST_SITE(alt_test_asm_cfg_64k, ARM64_ALWAYS_SYSTEM,
		      IS_ENABLED(CONFIG_ARM64_64K_PAGES)),
	ALT_TEST_SITE(alt_test_asm_insn_off, ARM64_ALWAYS_SYSTEM, false),
	ALT_TEST_SITE(alt_test_asm_pan, ARM64_HAS_PAN, true),
	ALT_TEST_SITE(alt_test_asm_if_always, ARM64_ALWAYS_SYSTEM, true),
	ALT_TEST_SITE(alt_test_asm_if_pan, ARM64_HAS_PAN, true),
	ALT_TEST_SITE(alt_test_asm_if_not_pan, ARM64_HAS_PAN, true),
};

static void alt_test_site_desc(const struct alt_test_site *site, char *desc)
{
	strscpy(desc, site->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(alt_test_site, alt_test_sites, alt_test_site_desc);

/* Where an entry's self-relative offset field points (struct alt_instr). */
static const void *alt_test_target(const s32 *offset)
{
	return (const void *)offset + *offset;
}

/*
 * The .altinstructions entries whose original sequence starts at @begin.
 * They sit in init memory, which is still there when built-in suites run.
 */
static int __init alt_test_entries(const u32 *begin, const struct alt_instr **found)
{
	const struct alt_instr *alt = (const struct alt_instr *)__alt_instructions;
	const struct alt_instr *end = (const struct alt_instr *)__alt_instructions_end;
	int count = 0;

	for (; alt < end; alt++) {
		if (alt_test_target(&alt->orig_offset) != begin)
			continue;
		*found = alt;
		count++;
	}
	return count;
}

/*
 * Every site, written with ALTERNATIVE(old, new, cap, CONFIG_X) in C and
 * in assembler, with alternative_insn ... enable, or as an
 * alternative_if / alternative_if_not block. With its option off (two of
 * the three page sizes, or alternative_insn without enable): the labels
 * around it are 0 bytes apart and no .altinstructions entry points at it.
 * With its option on (the kernel's page size, or no option): one
 * instruction, and exactly one entry points at it, with the site's
 * capability, lengths and replacement (MOVZ W0, #1). The entries are read
 * by walking __alt_instructions .. __alt_instructions_end, init memory:
 * hence an init section suite.
 */
static void __init alternative_emits_site_by_config(struct kunit *test)
{
	const struct alt_test_site *site = test->param_value;
	const struct alt_instr *alt = NULL;
	size_t bytes = (site->end - site->begin) * sizeof(u32);
	int entries = alt_test_entries(site->begin, &alt);

	if (!site->emitted) {
		KUNIT_EXPECT_EQ_MSG(test, bytes, (size_t)0,
				    "%s: the option is off, yet %zu bytes were emitted",
				    site->name, bytes);
		KUNIT_EXPECT_EQ_MSG(test, entries, 0,
				    "%s: the option is off, yet it has an .altinstructions entry",
				    site->name);
		return;
	}

	KUNIT_EXPECT_EQ_MSG(test, bytes, (size_t)AARCH64_INSN_SIZE,
			    "%s: the old sequence is one instruction", site->name);
	KUNIT_ASSERT_EQ_MSG(test, entries, 1,
			    "%s: needs exactly one .altinstructions entry", site->name);
	KUNIT_EXPECT_EQ_MSG(test, alt->cpucap, site->cap, "%s: the entry's capability",
			    site->name);
	KUNIT_EXPECT_EQ_MSG(test, alt->orig_len, AARCH64_INSN_SIZE, "%s: the entry's old length",
			    site->name);
	KUNIT_EXPECT_EQ_MSG(test, alt->alt_len, AARCH64_INSN_SIZE, "%s: the entry's new length",
			    site->name);
	KUNIT_EXPECT_EQ_MSG(test, le32_to_cpu(*(const __le32 *)alt_test_target(&alt->alt_offset)),
			    ALT_TEST_MOVZ_W0(1), "%s: the replacement is not MOVZ W0, #1",
			    site->name);
}

/*
 * Every site with code returns 1, and holds MOVZ W0, #1, exactly when
 * cpus_have_cap() says the CPU has its capability: ARM64_HAS_PAN;
 * ARM64_ALWAYS_SYSTEM, which every CPU has; ARM64_HAS_EPAN, which QEMU
 * 10.0's max CPU has and QEMU 7.2's CPUs lack; ARM64_HAS_ADDRESS_AUTH, a
 * boot CPU capability, whose sites only apply_boot_alternatives() patches
 * (QEMU's max CPU has it). An empty site still returns 2: nothing was
 * patched into it.
 */
static void alternative_patches_by_capability(struct kunit *test)
{
	const struct alt_test_site *site = test->param_value;
	bool have = cpus_have_cap(site->cap);
	int ret = site->call();
	u32 insn;

	if (!site->emitted) {
		KUNIT_EXPECT_EQ_MSG(test, ret, 2,
				    "%s: empty, capability %u %s: it ran an instruction",
				    site->name, site->cap, have ? "present" : "absent");
		return;
	}
	insn = le32_to_cpu(*(const __le32 *)site->begin);
	KUNIT_EXPECT_EQ_MSG(test, ret, have ? 1 : 0,
			    "%s: capability %u is %s", site->name, site->cap,
			    have ? "present" : "absent");
	KUNIT_EXPECT_EQ_MSG(test, insn, ALT_TEST_MOVZ_W0(have ? 1 : 0),
			    "%s: instruction at the site, capability %u %s", site->name,
			    site->cap, have ? "present" : "absent");
}

/*
 * ADRP Xd, label: Xd = the 4KB page of PC plus imm * 4KB (DDI 0487 J.a,
 * C6.2, ADRP), whatever the kernel's page size. The site's ALWAYS_SYSTEM
 * alternative is applied on every CPU, and its ADRP, assembled in
 * .altinstr_replacement, must still name alt_test_adrp_target's page.
 */
static void alternative_relocates_adrp(struct kunit *test)
{
	unsigned long want = (unsigned long)&alt_test_adrp_target & ~0xfffUL;
	unsigned long got = alt_test_asm_adrp();

	KUNIT_EXPECT_EQ_MSG(test, got, want,
			    "ADRP patched into %pS: page %#lx, want %#lx, the page of alt_test_adrp_target (%ld 4KB pages off)",
			    alt_test_asm_adrp, got, want, ((long)got - (long)want) / 4096);
}

/*
 * Boot records the capabilities whose sites it patched: after its two
 * passes (the boot CPU's capabilities, then the rest), each capability
 * of the system is applied, and none the system lacks. What reads the
 * record (alternative_is_applied(); KVM's VHE check) would otherwise take
 * a patched site for an unpatched one.
 */
static void alternative_is_applied_by_capability(struct kunit *test)
{
	static const u16 caps[] = {
		ARM64_ALWAYS_BOOT, ARM64_ALWAYS_SYSTEM, ARM64_HAS_PAN, ARM64_HAS_EPAN,
		ARM64_HAS_ADDRESS_AUTH, ARM64_WORKAROUND_CAVIUM_27456,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(caps); i++)
		KUNIT_EXPECT_EQ_MSG(test, alternative_is_applied(caps[i]), cpus_have_cap(caps[i]),
				    "capability %u: applied %d, the system has it: %d", caps[i],
				    alternative_is_applied(caps[i]), cpus_have_cap(caps[i]));
}

static struct kunit_case __refdata arm64_alternative_cases[] = {
	KUNIT_CASE_PARAM(alternative_emits_site_by_config, alt_test_site_gen_params),
	KUNIT_CASE_PARAM(alternative_patches_by_capability, alt_test_site_gen_params),
	KUNIT_CASE(alternative_relocates_adrp),
	KUNIT_CASE(alternative_is_applied_by_capability),
	{}
};

static struct kunit_suite arm64_alternative_suite = {
	.name = "arm64_alternative",
	.test_cases = arm64_alternative_cases,
};

kunit_test_init_section_suites(&arm64_alternative_suite);

MODULE_DESCRIPTION("KUnit tests for arm64 ALTERNATIVE()");
MODULE_LICENSE("GPL");

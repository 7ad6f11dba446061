// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the idreg overrides of the kernel command line
 * ("arm64.nobti", "id_aa64mmfr2.varange=1" and the like) the kernel
 * booted with: what init_cpu_ftr_reg() made of each on this system's
 * real registers, as every reader of the register sees it, and which
 * user access routines the CPU's FEAT_MOPS and arm64.nomops select.
 *
 * This file is #included at the end of cpufeature.c so that it can call
 * emulate_sys_reg(), which is static.
 */

#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/ctype.h>
#include <linux/init.h>
#include <linux/kstrtox.h>

/*
 * What to expect comes from the command line and from the Arm ARM (field
 * positions and values: DDI 0487 M.a.a, D24.2.86 ID_AA64ISAR2_EL1,
 * D24.2.90 ID_AA64MMFR2_EL1, D24.2.94 ID_AA64PFR1_EL1); an override
 * case skips without its override on the command line, and the uaccess
 * routines' case checks the path of any boot. The cases need a CPU with
 * FEAT_BTI, FEAT_MOPS and FEAT_LVA but not FEAT_PACQARMA3 (QEMU's
 * "max,pauth-impdef=on") booted with
 *
 *   arm64.nobti arm64.nomops id_aa64isar2.gpa3=1 id_aa64mmfr2.varange=1
 *
 * for instance ./tools/testing/kunit/kunit.py run --arch=arm64
 * --kernel_args="arm64.nobti arm64.nomops id_aa64isar2.gpa3=1
 * id_aa64mmfr2.varange=1" --qemu_args="-cpu max,pauth-impdef=on"
 * arm64_cpufeature_override.
 */
#define OVR_PFR1_BT		GENMASK_ULL(3, 0)	/* 0b0001: FEAT_BTI */
#define OVR_ISAR2_GPA3		GENMASK_ULL(11, 8)	/* 0b0001: FEAT_PACQARMA3 */
#define OVR_ISAR2_MOPS		GENMASK_ULL(19, 16)	/* 0b0001: FEAT_MOPS */
#define OVR_MMFR2_VARANGE	GENMASK_ULL(19, 16)	/* 0b0001: 52-bit VA */

/*
 * Where the word of the command line that starts with @opt goes on
 * after @opt, or NULL if no word starts with it.
 */
static const char *ovr_cmdline_find(const char *opt)
{
	const char *cmdline = saved_command_line;
	const char *p = cmdline;
	size_t len = strlen(opt);

	while ((p = strstr(p, opt))) {
		if (p == cmdline || isspace(p[-1]))
			return p + len;
		p += len;
	}
	return NULL;
}

/* Whether the command line holds the word @opt. */
static bool ovr_cmdline_has(const char *opt)
{
	const char *rest = ovr_cmdline_find(opt);

	return rest && (!*rest || isspace(*rest));
}

/*
 * The value of "@opt<digit>" on the command line, one hex digit as the
 * override parser takes it: false (and a skip) without one.
 */
static bool ovr_cmdline_digit(struct kunit *test, const char *opt, u64 *val)
{
	const char *rest = ovr_cmdline_find(opt);
	char digit[2] = { };

	if (!rest) {
		kunit_mark_skipped(test, "no %s on the command line", opt);
		return false;
	}
	digit[0] = rest[0];
	if ((rest[0] && rest[1] && !isspace(rest[1])) || kstrtou64(digit, 16, val)) {
		kunit_mark_skipped(test, "%s on the command line is not one hex digit", opt);
		return false;
	}
	return true;
}

/* What an EL0 MRS of @sys_reg reads, through the kernel's emulation. */
static u64 ovr_el0_view(struct kunit *test, u32 sys_reg)
{
	u64 val = 0;

	KUNIT_ASSERT_EQ_MSG(test, emulate_sys_reg(sys_reg, &val), 0,
			    "sys_reg %#x: no emulation of an EL0 MRS", sys_reg);
	return val;
}

/*
 * An option of the command line that turns a feature off by lowering
 * one field of an ID register to 0 (idreg-override.c's aliases), on a
 * CPU that has the feature.
 */
struct ovr_lower_row {
	const char *option;		/* the word of the command line */
	const char *reg_name;
	u32 sys_reg;
	const char *field_name;
	u64 mask;			/* the field, per the Arm ARM */
	struct arm64_ftr_override *override;
	int cap;
	const char *cap_name;
	unsigned int hwcap;		/* KERNEL_HWCAP_* */
	const char *hwcap_name;
	unsigned long hwcap2;		/* HWCAP2_*, as AT_HWCAP2 gives it */
	const char *hwcap2_name;
};

/*
 * A row: the option, the register and field it lowers (@_mask: the field
 * in the override), the capability and the hwcap it takes away, each
 * name printed as it is spelled here.
 */
#define OVR_LOWER_ROW(_option, _reg, _field, _mask, _override, _cap, _hwcap)	\
	{									\
		.option = _option,						\
		.reg_name = #_reg, .sys_reg = SYS_##_reg,			\
		.field_name = #_field, .mask = _mask,				\
		.override = &(_override),					\
		.cap = _cap, .cap_name = #_cap,					\
		.hwcap = KERNEL_HWCAP_##_hwcap,					\
		.hwcap_name = "KERNEL_HWCAP_" #_hwcap,				\
		.hwcap2 = HWCAP2_##_hwcap, .hwcap2_name = "HWCAP2_" #_hwcap,	\
	}

static const struct ovr_lower_row ovr_lower_rows[] = {
	OVR_LOWER_ROW("arm64.nobti", ID_AA64PFR1_EL1, BT, OVR_PFR1_BT,
		      id_aa64pfr1_override, ARM64_BTI, BTI),
	OVR_LOWER_ROW("arm64.nomops", ID_AA64ISAR2_EL1, MOPS, OVR_ISAR2_MOPS,
		      id_aa64isar2_override, ARM64_HAS_MOPS, MOPS),
};

static void ovr_lower_desc(const struct ovr_lower_row *row, char *desc)
{
	strscpy(desc, row->option, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ovr_lower, ovr_lower_rows, ovr_lower_desc);

/*
 * The CPU's own @sys_reg as an MRS reads it, no override applied, in
 * @raw: read_sysreg_s() takes its encoding as a constant, so one MRS per
 * register of ovr_lower_rows[]. False for any other register.
 */
static bool ovr_read_raw(u32 sys_reg, u64 *raw)
{
	switch (sys_reg) {
	case SYS_ID_AA64PFR1_EL1:
		*raw = read_sysreg_s(SYS_ID_AA64PFR1_EL1);
		return true;
	case SYS_ID_AA64ISAR2_EL1:
		*raw = read_sysreg_s(SYS_ID_AA64ISAR2_EL1);
		return true;
	}
	return false;
}

/*
 * The option on a CPU with the feature: the override is taken and kept
 * (late CPUs are checked with it), and the field reads 0 in the
 * sanitised value, in a CPU's own reading of its registers
 * (__read_sysreg_by_encoding(), which the boot CPU's capabilities and
 * the late CPUs' checks use), in an EL0 MRS, in the capability, in the
 * kernel's hwcap and in AT_HWCAP2. Without the option on the command
 * line, or on a CPU without the feature, the row skips.
 */
static void init_cpu_ftr_reg_option_lowers_field(struct kunit *test)
{
	const struct ovr_lower_row *row = test->param_value;
	u64 raw = 0, cpu_field, san, local, el0, ovr_mask;
	bool cap, named;
	unsigned long at_hwcap2;

	KUNIT_ASSERT_TRUE_MSG(test, ovr_read_raw(row->sys_reg, &raw),
			      "%s: no MRS of %s (%#x) here", row->option, row->reg_name,
			      row->sys_reg);
	cpu_field = (raw & row->mask) >> __ffs64(row->mask);
	if (!ovr_cmdline_has(row->option))
		kunit_skip(test, "no %s on the command line", row->option);
	if (!cpu_field)
		kunit_skip(test, "CPU lacks the feature: %s.%s=0, nothing to lower",
			   row->reg_name, row->field_name);

	san = read_sanitised_ftr_reg(row->sys_reg);
	preempt_disable();
	local = __read_sysreg_by_encoding(row->sys_reg);
	preempt_enable();
	el0 = ovr_el0_view(test, row->sys_reg);
	cap = cpus_have_cap(row->cap);
	named = cpu_have_feature(row->hwcap);
	at_hwcap2 = cpu_get_elf_hwcap2();
	ovr_mask = row->override->mask & row->mask;

	KUNIT_EXPECT_EQ_MSG(test, san & row->mask, 0,
			    "%s, CPU's %s %#018llx (%s=%llu): sanitised %#018llx, want %s=0",
			    row->option, row->reg_name, raw, row->field_name,
			    cpu_field, san, row->field_name);
	KUNIT_EXPECT_EQ_MSG(test, local & row->mask, 0,
			    "%s, CPU's %s %#018llx (%s=%llu): __read_sysreg_by_encoding() %#018llx, want %s=0",
			    row->option, row->reg_name, raw, row->field_name,
			    cpu_field, local, row->field_name);
	KUNIT_EXPECT_EQ_MSG(test, el0 & row->mask, 0,
			    "%s, CPU's %s=%llu: an EL0 MRS of %s reads %#018llx, want %s=0",
			    row->option, row->field_name, cpu_field, row->reg_name,
			    el0, row->field_name);
	KUNIT_EXPECT_FALSE_MSG(test, cap,
			       "%s, CPU's %s=%llu, sanitised %#018llx: %s detected",
			       row->option, row->field_name, cpu_field, san,
			       row->cap_name);
	KUNIT_EXPECT_FALSE_MSG(test, named,
			       "%s, CPU's %s=%llu, sanitised %#018llx: %s set",
			       row->option, row->field_name, cpu_field, san,
			       row->hwcap_name);
	KUNIT_EXPECT_FALSE_MSG(test, at_hwcap2 & row->hwcap2,
			       "%s, CPU's %s=%llu: AT_HWCAP2 %#lx has %s",
			       row->option, row->field_name, cpu_field, at_hwcap2,
			       row->hwcap2_name);
	KUNIT_EXPECT_EQ_MSG(test, ovr_mask, row->mask,
			    "%s: override mask %#llx value %#llx, want %s's mask kept",
			    row->option, row->override->mask, row->override->val,
			    row->field_name);
}

/*
 * id_aa64isar2.gpa3=N above the CPU's GPA3: a system cannot have more of
 * a feature than its CPU, so init_cpu_ftr_reg() refuses it: the sanitised
 * value, an EL0 MRS and the capability keep the CPU's GPA3, and the
 * override's mask and value for the field are cleared.
 */
static void init_cpu_ftr_reg_gpa3_above_cpu_refused(struct kunit *test)
{
	u64 raw = read_sysreg_s(SYS_ID_AA64ISAR2_EL1);
	u64 cpu_gpa3 = FIELD_GET(OVR_ISAR2_GPA3, raw);
	u64 want, san, san_gpa3, el0, el0_gpa3, ovr_mask, ovr_val;
	bool cap;

	if (!ovr_cmdline_digit(test, "id_aa64isar2.gpa3=", &want))
		return;
	if (want <= cpu_gpa3)
		kunit_skip(test,
			   "id_aa64isar2.gpa3=%llx is not above the CPU's GPA3=%llu: nothing to refuse",
			   want, cpu_gpa3);

	san = read_sanitised_ftr_reg(SYS_ID_AA64ISAR2_EL1);
	san_gpa3 = FIELD_GET(OVR_ISAR2_GPA3, san);
	el0 = ovr_el0_view(test, SYS_ID_AA64ISAR2_EL1);
	el0_gpa3 = FIELD_GET(OVR_ISAR2_GPA3, el0);
	cap = cpus_have_cap(ARM64_HAS_GENERIC_AUTH_ARCH_QARMA3);
	ovr_mask = id_aa64isar2_override.mask & OVR_ISAR2_GPA3;
	ovr_val = id_aa64isar2_override.val & OVR_ISAR2_GPA3;

	KUNIT_EXPECT_EQ_MSG(test, san_gpa3, cpu_gpa3,
			    "id_aa64isar2.gpa3=%llx, CPU's ID_AA64ISAR2_EL1 %#018llx: sanitised %#018llx, want the CPU's GPA3=%llu",
			    want, raw, san, cpu_gpa3);
	KUNIT_EXPECT_LE_MSG(test, el0_gpa3, cpu_gpa3,
			    "id_aa64isar2.gpa3=%llx, CPU's GPA3=%llu: an EL0 MRS of ID_AA64ISAR2_EL1 reads %#018llx",
			    want, cpu_gpa3, el0);
	if (!cpu_gpa3)
		KUNIT_EXPECT_FALSE_MSG(test, cap,
				       "id_aa64isar2.gpa3=%llx, CPU's GPA3=0, sanitised %#018llx: QARMA3 generic authentication detected",
				       want, san);
	KUNIT_EXPECT_EQ_MSG(test, ovr_mask, 0,
			    "id_aa64isar2.gpa3=%llx, CPU's GPA3=%llu: override mask %#llx, want GPA3's cleared",
			    want, cpu_gpa3, id_aa64isar2_override.mask);
	KUNIT_EXPECT_EQ_MSG(test, ovr_val, 0,
			    "id_aa64isar2.gpa3=%llx, CPU's GPA3=%llu: override value %#llx, want GPA3's cleared",
			    want, cpu_gpa3, id_aa64isar2_override.val);
}

/*
 * id_aa64mmfr2.varange=N, N != 0: only arm64.nolva's 0 passes VARange's
 * filter, so N is left as an impossible override (no mask), which
 * init_cpu_ftr_reg() drops: no mask and no value for the field remain,
 * and the sanitised value keeps the CPU's VARange. VARange is hidden
 * from user space: an EL0 MRS reads 0 (48-bit VAs) for it.
 */
static void init_cpu_ftr_reg_varange_filtered_dropped(struct kunit *test)
{
	u64 raw = read_sysreg_s(SYS_ID_AA64MMFR2_EL1);
	u64 cpu_varange = FIELD_GET(OVR_MMFR2_VARANGE, raw);
	u64 want, san, san_varange, el0, el0_varange, ovr_mask, ovr_val;

	if (!ovr_cmdline_digit(test, "id_aa64mmfr2.varange=", &want))
		return;
	if (!want)
		kunit_skip(test,
			   "id_aa64mmfr2.varange=0 (arm64.nolva) passes the filter: nothing to drop");

	san = read_sanitised_ftr_reg(SYS_ID_AA64MMFR2_EL1);
	san_varange = FIELD_GET(OVR_MMFR2_VARANGE, san);
	el0 = ovr_el0_view(test, SYS_ID_AA64MMFR2_EL1);
	el0_varange = FIELD_GET(OVR_MMFR2_VARANGE, el0);
	ovr_mask = id_aa64mmfr2_override.mask & OVR_MMFR2_VARANGE;
	ovr_val = id_aa64mmfr2_override.val & OVR_MMFR2_VARANGE;

	KUNIT_EXPECT_EQ_MSG(test, san_varange, cpu_varange,
			    "id_aa64mmfr2.varange=%llx, CPU's ID_AA64MMFR2_EL1 %#018llx: sanitised %#018llx, want the CPU's VARange=%llu",
			    want, raw, san, cpu_varange);
	KUNIT_EXPECT_EQ_MSG(test, el0_varange, 0,
			    "id_aa64mmfr2.varange=%llx, CPU's VARange=%llu: an EL0 MRS of ID_AA64MMFR2_EL1 reads %#018llx, want VARange hidden (0)",
			    want, cpu_varange, el0);
	KUNIT_EXPECT_EQ_MSG(test, ovr_mask, 0,
			    "id_aa64mmfr2.varange=%llx, CPU's VARange=%llu: override mask %#llx, want VARange's clear",
			    want, cpu_varange, id_aa64mmfr2_override.mask);
	KUNIT_EXPECT_EQ_MSG(test, ovr_val, 0,
			    "id_aa64mmfr2.varange=%llx, CPU's VARange=%llu: override value %#llx, want VARange's cleared",
			    want, cpu_varange, id_aa64mmfr2_override.val);
}

/*
 * The Memory Copy and Memory Set instructions, CPY* and SET*: bits
 * [29:27] = 0b011, [25:24] = 0b01, [21] = 0 and [11:10] = 0b01 (DDI 0487
 * M.a.a, C6.2.103 CPYFP, CPYFM, CPYFE to C6.2.134, and the SET* entries
 * of C6.2 that follow the same layout; C3.2.19 lists them). Bit 26 tells
 * a forward-only copy or a SETG* from the others, op1 [23:22] the
 * prologue, main and epilogue.
 */
#define OVR_MOPS_INSN_MASK	0x3b200c00U
#define OVR_MOPS_INSN_VAL	0x19000400U
/* B <label>: bits [31:26] = 0b000101, imm26 in words (C6.2.35 B) */
#define OVR_B_INSN_MASK		0xfc000000U
#define OVR_B_INSN_VAL		0x14000000U
#define OVR_NOP_INSN		0xd503201fU	/* C6.2.298 NOP */
#define OVR_RET_INSN		0xd65f03c0U	/* C6.2.337 RET (x30) */
/* How far into a routine its MOPS prologue may be looked for */
#define OVR_SCAN_INSNS		32

static bool ovr_insn_is_mops(u32 insn)
{
	return (insn & OVR_MOPS_INSN_MASK) == OVR_MOPS_INSN_VAL;
}

struct ovr_uaccess_fn {
	const char *name;
	const void *fn;
};

/*
 * The instruction @fn runs after the alternative site that guards its
 * MOPS prologue (the first CPY* or SET* before its first RET, the site
 * the instruction before it): the site itself when it is not a B or a
 * NOP. NULL when @fn has no CPY* or SET* near its start: a failure
 * when the assembler could build one, else a skip.
 */
static const __le32 *ovr_uaccess_next(struct kunit *test,
				      const struct ovr_uaccess_fn *f,
				      u32 *site_insn)
{
	const __le32 *text = f->fn;
	int i;

	for (i = 1; i < OVR_SCAN_INSNS; i++) {
		u32 insn = le32_to_cpu(text[i]);

		if (insn == OVR_RET_INSN)
			break;
		if (!ovr_insn_is_mops(insn))
			continue;
		*site_insn = le32_to_cpu(text[i - 1]);
		if ((*site_insn & OVR_B_INSN_MASK) == OVR_B_INSN_VAL)
			return &text[i - 1] + sign_extend32(*site_insn & ~OVR_B_INSN_MASK, 25);
		if (*site_insn == OVR_NOP_INSN)
			return &text[i];
		return &text[i - 1];
	}
	if (IS_ENABLED(CONFIG_AS_HAS_MOPS))
		KUNIT_FAIL(test,
			   "%s (%ps): no CPY* or SET* instruction in its first %d instructions before a RET, built with CONFIG_AS_HAS_MOPS",
			   f->name, f->fn, OVR_SCAN_INSNS);
	else
		kunit_mark_skipped(test,
				   "%s: no CPY* or SET* near its start, and no CONFIG_AS_HAS_MOPS: no MOPS path to choose",
				   f->name);
	return NULL;
}

/*
 * The uaccess routines start with an alternative that either branches
 * past their CPY* or SET* prologue or is a NOP that runs it. On a CPU with
 * FEAT_MOPS (ID_AA64ISAR2_EL1.MOPS, read from the CPU) booted without
 * arm64.nomops, the MOPS path; without FEAT_MOPS, or with arm64.nomops,
 * the path without MOPS, whose first instruction is no CPY* or SET*.
 * Checked on the code as patched, routine by routine.
 */
static void arch_uaccess_mops_path_by_cpu_and_override(struct kunit *test)
{
	const struct ovr_uaccess_fn fns[] = {
		{ "__arch_copy_from_user", (const void *)__arch_copy_from_user },
		{ "__arch_copy_to_user", (const void *)__arch_copy_to_user },
		{ "__arch_clear_user", (const void *)__arch_clear_user },
	};
	u64 raw = read_sysreg_s(SYS_ID_AA64ISAR2_EL1);
	u64 cpu_mops = FIELD_GET(OVR_ISAR2_MOPS, raw);
	bool nomops = ovr_cmdline_has("arm64.nomops");
	bool want = cpu_mops && !nomops;
	int i;

	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		const __le32 *next;
		u32 site = 0, insn;

		next = ovr_uaccess_next(test, &fns[i], &site);
		if (!next)
			return;
		insn = le32_to_cpu(*next);
		KUNIT_EXPECT_TRUE_MSG(test, site == OVR_NOP_INSN ||
				      (site & OVR_B_INSN_MASK) == OVR_B_INSN_VAL,
				      "%s: instruction %#010x before its MOPS prologue, want a B or a NOP",
				      fns[i].name, site);
		KUNIT_EXPECT_EQ_MSG(test, ovr_insn_is_mops(insn), want,
				    "%s: CPU's MOPS=%llu, %sarm64.nomops: site %#010x runs %#010x at %ps next, want %s",
				    fns[i].name, cpu_mops, nomops ? "" : "no ", site, insn,
				    next, want ? "a CPY*/SET*" : "no CPY*/SET*");
	}
}

static struct kunit_case arm64_cpufeature_override_cases[] = {
	KUNIT_CASE_PARAM(init_cpu_ftr_reg_option_lowers_field, ovr_lower_gen_params),
	KUNIT_CASE(init_cpu_ftr_reg_gpa3_above_cpu_refused),
	KUNIT_CASE(init_cpu_ftr_reg_varange_filtered_dropped),
	KUNIT_CASE(arch_uaccess_mops_path_by_cpu_and_override),
	{}
};

static struct kunit_suite arm64_cpufeature_override_suite = {
	.name = "arm64_cpufeature_override",
	.test_cases = arm64_cpufeature_override_cases,
};

kunit_test_suite(arm64_cpufeature_override_suite);

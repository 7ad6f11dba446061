// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the capability tables of cpufeature.c: a lint of every
 * ID register row of arm64_features[], arm64_elf_hwcaps[] and
 * compat_elf_hwcaps[] against the feature register descriptions
 * (arm64_ftr_regs[]), the system-wide value that sanitisation makes of
 * two CPUs that disagree, and the PAN row's cpu_enable.
 *
 * This file is #included at the end of cpufeature.c so that it can reach
 * those static tables and update_cpu_ftr_reg().
 *
 * A row that is matched by has_cpuid_feature() or has_user_cpuid_feature()
 * compares one field of one ID register with min_field_value and
 * max_field_value, encodings of the field. The lint checks that this
 * field fits in the register, that the minimum and the maximum can be
 * written in it, the minimum not above the maximum, and that the
 * register's arm64_ftr_bits describe the same field (position, width,
 * sign): sanitisation works on the fields that table describes, so a row
 * naming another one reads a field nobody sanitised, or one sanitised
 * with another sign. A hwcap row must read a
 * field visible to user space, and a system scope row one whose sanitised
 * value is the lowest of the CPUs. The lint is there for whoever adds or
 * edits a row: a mistyped shift, sign or minimum fails here with the
 * row's desc and capability named. Every row of the three tables is a
 * parameter of its own, and is also checked for its type and for where
 * the table ends (the first row without matches()).
 *
 * One case calls the cpu_enable of the PAN row on a CPU with PAN, and
 * checks what it leaves in SCTLR_EL1 and PSTATE: what the kernel's
 * threads inherit afterwards depends on the order they ran in, what the
 * callback leaves in its caller does not.
 *
 * The sanitisation cases take field positions and encodings from the Arm
 * ARM (DDI 0487 M.a.a): ID_AA64MMFR1_EL1.PAN, bits [23:20], unsigned, 0b0000
 * not implemented, 0b0010 FEAT_PAN2; ID_AA64PFR0_EL1.FP, bits [19:16],
 * signed, 0b0000 implemented, 0b1111 not implemented.
 */

#include <kunit/test.h>
#include <asm/daifflags.h>

static bool table_is_cpuid_row(const struct arm64_cpu_capabilities *cap)
{
	return cap->matches == has_cpuid_feature ||
	       cap->matches == has_user_cpuid_feature;
}

/*
 * The value a field of @width (1 to 32) bits holds when its bits are @raw:
 * two's complement when it is signed (DDI 0487 M.a.a, D24.1.3, "Principles
 * of the ID scheme for fields in ID registers"), from the width and sign
 * alone, not from the kernel's macros.
 */
static int table_field_value(unsigned int raw, unsigned int width, bool sign)
{
	if (sign && raw >= (1ULL << (width - 1)))
		return (int)((s64)raw - (s64)(1ULL << width));
	return raw;
}

/*
 * The minimum and the maximum of a row with a field of 1 to 32 bits,
 * encodings of the field: @name names the row in the failure messages.
 */
static void table_check_bounds(struct kunit *test, const char *name,
			       const struct arm64_cpu_capabilities *cap)
{
	unsigned int width = cap->field_width, min = cap->min_field_value;
	unsigned int max = cap->max_field_value;
	u64 encodings = (1ULL << width) - 1;	/* the largest one */
	const char *sign = cap->sign ? "signed" : "unsigned";

	KUNIT_EXPECT_LE_MSG(test, min, encodings,
			    "%s: min_field_value %#x does not fit the %u-bit %s field",
			    name, min, width, sign);
	KUNIT_EXPECT_LE_MSG(test, max, encodings,
			    "%s: max_field_value %#x does not fit the %u-bit %s field",
			    name, max, width, sign);
	if (min > encodings || max > encodings)
		return;
	KUNIT_EXPECT_LE_MSG(test, table_field_value(min, width, cap->sign),
			    table_field_value(max, width, cap->sign),
			    "%s: min_field_value %#x (%d) is above max_field_value %#x (%d) in the %u-bit %s field: no value matches",
			    name, min, table_field_value(min, width, cap->sign),
			    max, table_field_value(max, width, cap->sign), width, sign);
}

static const struct arm64_ftr_bits *
table_find_ftr_bits(const struct arm64_ftr_reg *reg, unsigned int shift)
{
	const struct arm64_ftr_bits *ftrp;

	for (ftrp = reg->ftr_bits; ftrp->width; ftrp++)
		if (ftrp->shift == shift)
			return ftrp;
	return NULL;
}

/*
 * The lint of an ID register row, or of a match_list entry of a row, whose
 * table row has @scope: the field lies inside the register;
 * min_field_value and max_field_value fit the field's width and sign,
 * the minimum not above the maximum; the register has an arm64_ftr_reg
 * whose arm64_ftr_bits describe a field at the same bit with the same
 * width and sign; a hwcap row's field is visible to user space; and a
 * system scope row reads a field whose sanitised value is the lowest
 * (FTR_LOWER_SAFE or FTR_EXACT), so that one CPU with the feature cannot
 * make the whole system claim it.
 *
 * The lint cannot see a row that names another field of the same width and
 * sign that is also lower-safe (the PAN row moved down by 4 bits, onto
 * LO): for the rows it lists, arm64_cpufeature_match checks the positions
 * against the Arm ARM.
 */
static void table_check_cpuid(struct kunit *test, const char *name,
			      const struct arm64_cpu_capabilities *cap, int scope)
{
	unsigned int pos = cap->field_pos, width = cap->field_width;
	const struct arm64_ftr_bits *ftrp;
	const struct arm64_ftr_reg *reg;
	bool lowest;

	KUNIT_EXPECT_TRUE_MSG(test, width >= 1 && pos + width <= 64,
			      "%s: field [%u +: %u] is not inside a 64-bit register",
			      name, pos, width);
	if (width >= 1 && width <= 32)
		table_check_bounds(test, name, cap);

	reg = get_arm64_ftr_reg_nowarn(cap->sys_reg);
	KUNIT_EXPECT_NOT_NULL_MSG(test, reg, "%s: sys_reg %#x has no arm64_ftr_reg",
				  name, cap->sys_reg);
	if (!reg)
		return;

	ftrp = table_find_ftr_bits(reg, pos);
	KUNIT_EXPECT_NOT_NULL_MSG(test, ftrp,
				  "%s: %s describes no field at bit %u", name, reg->name, pos);
	if (!ftrp)
		return;
	KUNIT_EXPECT_EQ_MSG(test, ftrp->width, width,
			    "%s: %s field at bit %u is %u bits wide, the row says %u",
			    name, reg->name, pos, ftrp->width, width);
	KUNIT_EXPECT_EQ_MSG(test, ftrp->sign, cap->sign,
			    "%s: %s field at bit %u is %s, the row says %s",
			    name, reg->name, pos, ftrp->sign ? "signed" : "unsigned",
			    cap->sign ? "signed" : "unsigned");
	/*
	 * has_user_cpuid_feature() only matches a field that is visible to
	 * user space (FTR_VISIBLE, in the register's user_mask).
	 */
	if (cap->matches == has_user_cpuid_feature)
		KUNIT_EXPECT_TRUE_MSG(test, ftrp->visible,
				      "%s: %s field at bit %u is hidden from user space, so the hwcap is never set",
				      name, reg->name, pos);
	/*
	 * A system scope row tests the sanitised value with >= min: that is
	 * the value of the weakest CPU only if sanitisation keeps the lower
	 * value (or a fixed safe one). With a higher-safe field, one CPU
	 * with the feature would make the whole system claim it.
	 */
	lowest = ftrp->type == FTR_LOWER_SAFE || ftrp->type == FTR_EXACT;
	if (scope == SCOPE_SYSTEM)
		KUNIT_EXPECT_TRUE_MSG(test, lowest,
				      "%s: system scope row on %s field at bit %u, whose sanitised value is not the lowest (ftr_type %d)",
				      name, reg->name, pos, ftrp->type);
}

/* The flags of a row's type that the passes and the late CPU check read */
#define TABLE_TYPE_FLAGS	(ARM64_CPUCAP_PERMITTED_FOR_LATE_CPU |		\
				 ARM64_CPUCAP_OPTIONAL_FOR_LATE_CPU |		\
				 ARM64_CPUCAP_PANIC_ON_CONFLICT |		\
				 ARM64_CPUCAP_MATCH_ALL_EARLY_CPUS)

/*
 * The type of a row: exactly one scope, and no bit outside
 * TABLE_TYPE_FLAGS; ARM64_CPUCAP_MATCH_ALL_EARLY_CPUS, which
 * <asm/cpufeature.h> defines for SCOPE_LOCAL_CPU rows only, with that
 * scope.
 */
static void table_check_type(struct kunit *test, const char *name,
			     const struct arm64_cpu_capabilities *cap)
{
	const u16 known = ARM64_CPUCAP_SCOPE_MASK | TABLE_TYPE_FLAGS;
	u16 scope = cap->type & ARM64_CPUCAP_SCOPE_MASK;

	KUNIT_EXPECT_EQ_MSG(test, hweight16(scope), 1,
			    "%s: type %#x has scope bits %#x", name, cap->type, scope);
	KUNIT_EXPECT_EQ_MSG(test, cap->type & ~known, 0,
			    "%s: unknown type bits in %#x", name, cap->type);
	if (cap->type & ARM64_CPUCAP_MATCH_ALL_EARLY_CPUS)
		KUNIT_EXPECT_EQ_MSG(test, scope, (u16)ARM64_CPUCAP_SCOPE_LOCAL_CPU,
				    "%s: type %#x matches all early CPUs without local scope",
				    name, cap->type);
}

#define TABLE_NAME_SIZE	160

/*
 * "arm64_features[12] "Privileged Access Never" (capability 41)"; hwcap
 * rows have a desc (the HWCAP name) and no capability number; an entry
 * without matches() (a table's end) is named by its index alone.
 */
static void table_row_name(const char *table, const struct arm64_cpu_capabilities *caps,
			   const struct arm64_cpu_capabilities *cap, char *buf, size_t len)
{
	if (!cap->matches)
		snprintf(buf, len, "%s[%td], no matches()", table, cap - caps);
	else if (caps == arm64_features)
		snprintf(buf, len, "%s[%td] \"%s\" (capability %u)", table, cap - caps,
			 cap->desc ?: "(no desc)", cap->capability);
	else
		snprintf(buf, len, "%s[%td] %s", table, cap - caps, cap->desc ?: "(no desc)");
}

/*
 * Row @cap of @caps, a table of @nr entries whose last one ends it: a
 * row before the last has matches(), and its type is valid; an ID
 * register row, and each ID register entry of a row's match_list, passes
 * the lint above. The last entry, the table's end, has no matches().
 */
static void table_check_row(struct kunit *test, const char *table,
			    const struct arm64_cpu_capabilities *caps, size_t nr,
			    const struct arm64_cpu_capabilities *cap)
{
	const struct arm64_cpu_capabilities *sub;
	char name[TABLE_NAME_SIZE], entry[TABLE_NAME_SIZE + 32];
	int i = 0;

	table_row_name(table, caps, cap, name, sizeof(name));
	if (cap == caps + nr - 1) {
		KUNIT_EXPECT_TRUE_MSG(test, !cap->matches,
				      "%s: the last entry has matches() %ps: no end to the table",
				      name, cap->matches);
		return;
	}
	KUNIT_ASSERT_TRUE_MSG(test, cap->matches,
			      "%s: no matches(): every loop over %s[] stops here, before its last %td rows",
			      name, table, caps + nr - 2 - cap);

	table_check_type(test, name, cap);
	if (table_is_cpuid_row(cap))
		table_check_cpuid(test, name, cap, cpucap_default_scope(cap));
	if (cap->matches != cpucap_multi_entry_cap_matches)
		return;
	for (sub = cap->match_list; sub->matches; sub++, i++) {
		if (!table_is_cpuid_row(sub))
			continue;
		snprintf(entry, sizeof(entry), "%s, match_list[%d]", name, i);
		table_check_cpuid(test, entry, sub, cpucap_default_scope(cap));
	}
}

static void table_feature_desc(const struct arm64_cpu_capabilities *cap, char *desc)
{
	table_row_name("arm64_features", arm64_features, cap, desc, KUNIT_PARAM_DESC_SIZE);
}

static void table_hwcap_desc(const struct arm64_cpu_capabilities *cap, char *desc)
{
	table_row_name("arm64_elf_hwcaps", arm64_elf_hwcaps, cap, desc, KUNIT_PARAM_DESC_SIZE);
}

static void table_compat_hwcap_desc(const struct arm64_cpu_capabilities *cap, char *desc)
{
	table_row_name("compat_elf_hwcaps", compat_elf_hwcaps, cap, desc,
		       KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(table_feature, arm64_features, table_feature_desc);
KUNIT_ARRAY_PARAM(table_hwcap, arm64_elf_hwcaps, table_hwcap_desc);
KUNIT_ARRAY_PARAM(table_compat_hwcap, compat_elf_hwcaps, table_compat_hwcap_desc);

/* Each entry of arm64_features[], the CPU capabilities */
static void arm64_features_row_is_valid(struct kunit *test)
{
	table_check_row(test, "arm64_features", arm64_features, ARRAY_SIZE(arm64_features),
			test->param_value);
}

/* Each entry of arm64_elf_hwcaps[], the hwcaps of 64-bit tasks */
static void arm64_elf_hwcaps_row_is_valid(struct kunit *test)
{
	table_check_row(test, "arm64_elf_hwcaps", arm64_elf_hwcaps,
			ARRAY_SIZE(arm64_elf_hwcaps), test->param_value);
}

/*
 * Each entry of compat_elf_hwcaps[], the hwcaps of 32-bit tasks. Without
 * CONFIG_COMPAT the table holds only its terminator: nothing to check.
 */
static void compat_elf_hwcaps_row_is_valid(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_COMPAT))
		kunit_skip(test, "CONFIG_COMPAT=n: compat_elf_hwcaps[] is empty");
	table_check_row(test, "compat_elf_hwcaps", compat_elf_hwcaps,
			ARRAY_SIZE(compat_elf_hwcaps), test->param_value);
}

/* The two tables of capabilities */
static const struct {
	const char *name;
	const struct arm64_cpu_capabilities *caps;
} table_tables[] = {
	{ "arm64_features", arm64_features },
	{ "arm64_errata", arm64_errata },
};

/*
 * Capability numbers: every one of arm64_features[] and arm64_errata[] is
 * below ARM64_NCAPS and used by one row of one table.
 */
static void cpucap_tables_capability_unique(struct kunit *test)
{
	static const struct arm64_cpu_capabilities *seen[ARM64_NCAPS];
	const struct arm64_cpu_capabilities *cap;
	int t, rows = 0;

	memset(seen, 0, sizeof(seen));
	for (t = 0; t < ARRAY_SIZE(table_tables); t++) {
		for (cap = table_tables[t].caps; cap->matches; cap++, rows++) {
			if (cap->capability >= ARM64_NCAPS) {
				KUNIT_FAIL(test, "%s row \"%s\": capability %u >= ARM64_NCAPS %d",
					   table_tables[t].name, cap->desc ?: "(no desc)",
					   cap->capability, ARM64_NCAPS);
				continue;
			}
			KUNIT_EXPECT_PTR_EQ_MSG(test, seen[cap->capability], NULL,
						"%s row \"%s\": capability %u is also row \"%s\"",
						table_tables[t].name, cap->desc ?: "(no desc)",
						cap->capability,
						seen[cap->capability] ?
						(seen[cap->capability]->desc ?: "(no desc)") : "");
			seen[cap->capability] = cap;
		}
	}
	KUNIT_EXPECT_GT(test, rows, 0);
}

/*
 * The type of every row of arm64_errata[] (cpu_errata.c, whose size is
 * not known here), as that of the rows of the tables above.
 */
static void arm64_errata_type_is_one_scope(struct kunit *test)
{
	const struct arm64_cpu_capabilities *cap;
	char name[TABLE_NAME_SIZE];

	for (cap = arm64_errata; cap->matches; cap++) {
		snprintf(name, sizeof(name), "arm64_errata[%td] \"%s\" (capability %u)",
			 cap - arm64_errata, cap->desc ?: "(no desc)", cap->capability);
		table_check_type(test, name, cap);
	}
}

static u64 table_set_field(u64 reg, int shift, u64 raw)
{
	return (reg & ~(0xfULL << shift)) | (raw << shift);
}

/*
 * The system-wide value of @sys_reg after a boot CPU reporting @boot and a
 * secondary reporting @secondary, on a local copy of its arm64_ftr_reg:
 * the boot CPU's value is where init_cpu_ftr_reg() starts, and
 * update_cpu_ftr_reg() folds in each secondary.
 */
static u64 table_sanitise(struct kunit *test, u32 sys_reg, u64 boot, u64 secondary)
{
	struct arm64_ftr_reg *live = get_arm64_ftr_reg_nowarn(sys_reg);
	struct arm64_ftr_reg copy;

	KUNIT_ASSERT_NOT_NULL(test, live);
	copy = *live;
	copy.sys_val = boot;
	update_cpu_ftr_reg(&copy, secondary);
	return copy.sys_val;
}

static const struct arm64_cpu_capabilities *table_find_feature(unsigned int capability)
{
	const struct arm64_cpu_capabilities *caps;

	for (caps = arm64_features; caps->matches; caps++)
		if (caps->capability == capability)
			return caps;
	return NULL;
}

/* Boot CPU with PAN = 2 (FEAT_PAN2), secondary without PAN: no PAN */
static void update_cpu_ftr_reg_pan_lowest_wins(struct kunit *test)
{
	const struct arm64_cpu_capabilities *pan;
	u64 base = read_sysreg(id_aa64mmfr1_el1);
	u64 with = table_set_field(base, 20, 2), without = table_set_field(base, 20, 0);
	u64 sys;

	pan = table_find_feature(ARM64_HAS_PAN);
	KUNIT_ASSERT_NOT_NULL_MSG(test, pan, "no arm64_features row for ARM64_HAS_PAN");
	KUNIT_ASSERT_TRUE_MSG(test, feature_matches(with, pan),
			      "the PAN row does not match ID_AA64MMFR1_EL1 = %#018llx", with);

	sys = table_sanitise(test, SYS_ID_AA64MMFR1_EL1, with, without);
	KUNIT_EXPECT_EQ_MSG(test, (sys >> 20) & 0xf, 0ULL,
			    "boot PAN=2, secondary PAN=0: system ID_AA64MMFR1_EL1 = %#018llx",
			    sys);
	KUNIT_EXPECT_FALSE_MSG(test, feature_matches(sys, pan),
			       "boot PAN=2, secondary PAN=0: the PAN row matches %#018llx", sys);

	sys = table_sanitise(test, SYS_ID_AA64MMFR1_EL1, without, with);
	KUNIT_EXPECT_EQ_MSG(test, (sys >> 20) & 0xf, 0ULL,
			    "boot PAN=0, secondary PAN=2: system ID_AA64MMFR1_EL1 = %#018llx",
			    sys);
	KUNIT_EXPECT_FALSE(test, feature_matches(sys, pan));
}

/*
 * DDI 0487 M.a.a: D24.2.175 SCTLR_EL1, SPAN, bit [23] (0: an exception
 * taken to EL1 sets PSTATE.PAN); C5.2.12 PAN, bit [22] of what an MRS of
 * it reads. Which bit SPAN is, is part of what cpu_enable_pan() must get
 * right, so it is the Arm ARM's; PSTATE.PAN is read and set the kernel's
 * way (SYS_PSTATE_PAN, set_pstate_pan()), which is not under test here.
 */
#define TABLE_SCTLR_SPAN	BIT_ULL(23)
#define TABLE_PSTATE_PAN	BIT_ULL(22)

static u64 table_read_pan(void)
{
	return read_sysreg_s(SYS_PSTATE_PAN) & TABLE_PSTATE_PAN;
}

/* DDI 0487 M.a.a, D24.2.89 ID_AA64MMFR1_EL1: PAN, bits [23:20]; 0 without FEAT_PAN. */
static bool table_cpu_has_pan(void)
{
	return (read_sysreg(id_aa64mmfr1_el1) >> 20) & 0xf;
}

/*
 * The PAN row's cpu_enable, called from a context with PSTATE.PAN and
 * SCTLR_EL1.SPAN the other way round, leaves both as the kernel runs with
 * PAN: SPAN clear and PAN set in the context that called it. Every
 * exception is masked (DAIF) from the check of this CPU's ID register to
 * the restore of both values as they were, so that nothing else runs with
 * PAN clear or takes an exception with SPAN set, on this CPU or another.
 * (Under VHE, sctlr_el1 is SCTLR_EL2, whose SPAN is the same bit.)
 */
static void cpu_enable_pan_sets_pstate_pan(struct kunit *test)
{
	const struct arm64_cpu_capabilities *pan;
	unsigned long flags;
	u64 saved_sctlr = 0, saved_pan = 0, sctlr = 0, pstate = 0;
	bool has_pan;

	pan = table_find_feature(ARM64_HAS_PAN);
	KUNIT_ASSERT_NOT_NULL_MSG(test, pan, "no arm64_features row for ARM64_HAS_PAN");
	KUNIT_ASSERT_NOT_NULL_MSG(test, pan->cpu_enable, "the PAN row has no cpu_enable");

	flags = local_daif_save();
	has_pan = table_cpu_has_pan();
	if (has_pan) {
		saved_sctlr = read_sysreg(sctlr_el1);
		saved_pan = table_read_pan();
		sysreg_clear_set(sctlr_el1, 0, TABLE_SCTLR_SPAN);
		set_pstate_pan(0);
		pan->cpu_enable(pan);
		sctlr = read_sysreg(sctlr_el1);
		pstate = table_read_pan();
		write_sysreg(saved_sctlr, sctlr_el1);
		if (saved_pan)
			set_pstate_pan(1);
		else
			set_pstate_pan(0);
		isb();
	}
	local_daif_restore(flags);

	if (!has_pan)
		kunit_skip(test, "CPU lacks PAN: ID_AA64MMFR1_EL1.PAN=0");
	KUNIT_EXPECT_EQ_MSG(test, sctlr & TABLE_SCTLR_SPAN, 0ULL,
			    "called with SPAN set: SCTLR_EL1 %#llx after it", sctlr);
	KUNIT_EXPECT_EQ_MSG(test, pstate, TABLE_PSTATE_PAN,
			    "called with PSTATE.PAN 0: still 0 after it");
}

/* FP is signed: 0b1111 (-1, not implemented) is lower than 0b0000 */
static void update_cpu_ftr_reg_fp_signed_lowest_wins(struct kunit *test)
{
	const struct arm64_cpu_capabilities *fp;
	u64 base = read_sysreg(id_aa64pfr0_el1);
	u64 with = table_set_field(base, 16, 0x0), without = table_set_field(base, 16, 0xf);
	u64 sys;

	for (fp = arm64_elf_hwcaps; fp->matches; fp++)
		if (fp->hwcap_type == CAP_HWCAP && fp->hwcap == KERNEL_HWCAP_FP)
			break;
	KUNIT_ASSERT_NOT_NULL_MSG(test, fp->matches, "no arm64_elf_hwcaps row for HWCAP_FP");
	KUNIT_ASSERT_TRUE_MSG(test, feature_matches(with, fp),
			      "the FP hwcap row does not match ID_AA64PFR0_EL1 = %#018llx", with);

	sys = table_sanitise(test, SYS_ID_AA64PFR0_EL1, with, without);
	KUNIT_EXPECT_EQ_MSG(test, (sys >> 16) & 0xf, 0xfULL,
			    "boot FP=0, secondary FP=0xf: system ID_AA64PFR0_EL1 = %#018llx",
			    sys);
	KUNIT_EXPECT_FALSE(test, feature_matches(sys, fp));

	sys = table_sanitise(test, SYS_ID_AA64PFR0_EL1, without, with);
	KUNIT_EXPECT_EQ_MSG(test, (sys >> 16) & 0xf, 0xfULL,
			    "boot FP=0xf, secondary FP=0: system ID_AA64PFR0_EL1 = %#018llx",
			    sys);
	KUNIT_EXPECT_FALSE(test, feature_matches(sys, fp));
}

/*
 * The system-wide value of a field two CPUs report differently, for each
 * rule the kernel has for one; LOWER_SAFE is above. Fields, from DDI 0487
 * M.a.a, D24.2.42 CTR_EL0 and D24.2.89 ID_AA64MMFR1_EL1, and what is safe
 * for the system when CPUs differ, from what the values mean there:
 * - CTR_EL0.L1Ip, bits [15:14] (0b10 VIPT, 0b11 PIPT): CPUs that disagree
 *   on the instruction cache policy are handled as the most demanding
 *   policy the kernel supports, VIPT;
 * - CTR_EL0.CWG, bits [27:24], and ERG, bits [23:20]: log2 of a size, the
 *   larger the safer, and 0 means "not given: assume the largest";
 * - ID_AA64MMFR1_EL1.SpecSEI, bits [27:24]: 1 means SError interrupts can
 *   come from speculative reads, which one CPU doing so makes true.
 */
struct table_safe_row {
	const char *name;
	u32 sys_reg;
	int shift;
	int width;
	u64 boot;
	u64 secondary;
	u64 want;
};

static const struct table_safe_row table_safe_rows[] = {
	{ .name = "CTR_EL0.L1Ip PIPT and VIPT: VIPT", .sys_reg = SYS_CTR_EL0,
	  .shift = 14, .width = 2, .boot = 0x3, .secondary = 0x2, .want = 0x2 },
	{ .name = "CTR_EL0.L1Ip VIPT and PIPT: VIPT", .sys_reg = SYS_CTR_EL0,
	  .shift = 14, .width = 2, .boot = 0x2, .secondary = 0x3, .want = 0x2 },
	{ .name = "CTR_EL0.CWG 4 and 5: 5", .sys_reg = SYS_CTR_EL0,
	  .shift = 24, .width = 4, .boot = 0x4, .secondary = 0x5, .want = 0x5 },
	{ .name = "CTR_EL0.CWG 5 and 4: 5", .sys_reg = SYS_CTR_EL0,
	  .shift = 24, .width = 4, .boot = 0x5, .secondary = 0x4, .want = 0x5 },
	{ .name = "CTR_EL0.CWG 4 and 0: 0", .sys_reg = SYS_CTR_EL0,
	  .shift = 24, .width = 4, .boot = 0x4, .secondary = 0x0, .want = 0x0 },
	{ .name = "CTR_EL0.ERG 0 and 4: 0", .sys_reg = SYS_CTR_EL0,
	  .shift = 20, .width = 4, .boot = 0x0, .secondary = 0x4, .want = 0x0 },
	{ .name = "ID_AA64MMFR1_EL1.SpecSEI 0 and 1: 1", .sys_reg = SYS_ID_AA64MMFR1_EL1,
	  .shift = 24, .width = 4, .boot = 0x0, .secondary = 0x1, .want = 0x1 },
	{ .name = "ID_AA64MMFR1_EL1.SpecSEI 1 and 0: 1", .sys_reg = SYS_ID_AA64MMFR1_EL1,
	  .shift = 24, .width = 4, .boot = 0x1, .secondary = 0x0, .want = 0x1 },
};

static void table_safe_row_desc(const struct table_safe_row *row, char *desc)
{
	strscpy(desc, row->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(table_safe, table_safe_rows, table_safe_row_desc);

/*
 * Two CPUs that report a field differently, in either order, for each rule
 * above: the system-wide value is the rule's safe one, and the register's
 * other fields are unchanged.
 */
static void update_cpu_ftr_reg_safe_value_rows(struct kunit *test)
{
	const struct table_safe_row *row = test->param_value;
	struct arm64_ftr_reg *live = get_arm64_ftr_reg_nowarn(row->sys_reg);
	u64 mask = GENMASK_ULL(row->shift + row->width - 1, row->shift);
	u64 base, boot, secondary, sys;

	KUNIT_ASSERT_NOT_NULL(test, live);
	/* The live register, with the field of the row set both ways. */
	base = live->sys_val & ~mask;
	boot = base | row->boot << row->shift;
	secondary = base | row->secondary << row->shift;
	sys = table_sanitise(test, row->sys_reg, boot, secondary);
	KUNIT_EXPECT_EQ_MSG(test, (sys & mask) >> row->shift, row->want,
			    "%s: bits [%d:%d], boot CPU %#llx, secondary %#llx: system %#018llx",
			    row->name, row->shift + row->width - 1, row->shift, boot,
			    secondary, sys);
	KUNIT_EXPECT_EQ_MSG(test, sys & ~mask, base,
			    "%s: the other fields changed: %#018llx, want %#018llx",
			    row->name, sys & ~mask, base);
}

static struct kunit_case arm64_cpucap_table_cases[] = {
	KUNIT_CASE_PARAM(arm64_features_row_is_valid, table_feature_gen_params),
	KUNIT_CASE_PARAM(arm64_elf_hwcaps_row_is_valid, table_hwcap_gen_params),
	KUNIT_CASE_PARAM(compat_elf_hwcaps_row_is_valid, table_compat_hwcap_gen_params),
	KUNIT_CASE(cpucap_tables_capability_unique),
	KUNIT_CASE(arm64_errata_type_is_one_scope),
	KUNIT_CASE(update_cpu_ftr_reg_pan_lowest_wins),
	KUNIT_CASE(cpu_enable_pan_sets_pstate_pan),
	KUNIT_CASE(update_cpu_ftr_reg_fp_signed_lowest_wins),
	KUNIT_CASE_PARAM(update_cpu_ftr_reg_safe_value_rows, table_safe_gen_params),
	{}
};

static struct kunit_suite arm64_cpucap_table_suite = {
	.name = "arm64_cpucap_table",
	.test_cases = arm64_cpucap_table_cases,
};

kunit_test_suite(arm64_cpucap_table_suite);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for arm64 CPU capability matching: feature_matches(),
 * has_cpuid_feature() and the ID register rows of arm64_features[] and
 * arm64_elf_hwcaps[].
 *
 * This file is #included at the end of cpufeature.c so that it can reach
 * those static functions and tables.
 *
 * Register encodings, field positions, signedness and the value at which
 * each feature is implemented come from the Arm ARM (DDI 0487 M.a.a), the
 * ID_AA64PFR0_EL1, ID_AA64ISAR0_EL1, ID_AA64ISAR1_EL1 and ID_AA64MMFR1_EL1
 * register descriptions, never from the kernel's own definitions: a row
 * that names the wrong field, sign or minimum must fail here.
 */

#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/smp.h>
#include <linux/stop_machine.h>

/*
 * The largest value of a 4-bit ID field (DDI 0487 M.a.a, D24.1.3,
 * "Principles of the ID scheme for fields in ID registers"): 0b1111
 * unsigned, 0b0111 signed (two's complement: 0b1000-0b1111 are -8 to -1).
 */
#define MATCH_FIELD_MAX(sign)		((sign) ? 0x7 : 0xf)

enum match_id_reg {
	MATCH_ID_AA64PFR0_EL1,
	MATCH_ID_AA64ISAR0_EL1,
	MATCH_ID_AA64ISAR1_EL1,
	MATCH_ID_AA64MMFR1_EL1,
};

static const struct {
	const char *name;
	u32 encoding;		/* sys_reg(op0, op1, CRn, CRm, op2) */
} match_id_regs[] = {
	[MATCH_ID_AA64PFR0_EL1]  = { "ID_AA64PFR0_EL1",  sys_reg(3, 0, 0, 4, 0) },
	[MATCH_ID_AA64ISAR0_EL1] = { "ID_AA64ISAR0_EL1", sys_reg(3, 0, 0, 6, 0) },
	[MATCH_ID_AA64ISAR1_EL1] = { "ID_AA64ISAR1_EL1", sys_reg(3, 0, 0, 6, 1) },
	[MATCH_ID_AA64MMFR1_EL1] = { "ID_AA64MMFR1_EL1", sys_reg(3, 0, 0, 7, 1) },
};

/* Reads the register by its architectural name, on the calling CPU. */
static u64 match_read_id_reg(enum match_id_reg reg)
{
	switch (reg) {
	case MATCH_ID_AA64PFR0_EL1:
		return read_sysreg(id_aa64pfr0_el1);
	case MATCH_ID_AA64ISAR0_EL1:
		return read_sysreg(id_aa64isar0_el1);
	case MATCH_ID_AA64ISAR1_EL1:
		return read_sysreg(id_aa64isar1_el1);
	case MATCH_ID_AA64MMFR1_EL1:
		return read_sysreg(id_aa64mmfr1_el1);
	}
	return 0;
}

/* An ID field decoded with plain arithmetic, not the helpers under test. */
static int match_decode(u64 reg, int shift, bool sign)
{
	int raw = (reg >> shift) & 0xf;

	return (sign && raw >= 8) ? raw - 16 : raw;
}

static u64 match_place(u64 neighbours, int shift, int raw)
{
	return (neighbours & ~(0xfULL << shift)) | ((u64)raw << shift);
}

/*
 * feature_matches() on synthetic registers: a field value one below, at
 * and one above the row's minimum, signed and unsigned, at both ends of
 * the register and with the neighbouring bits clear and set.
 */
struct match_threshold_case {
	const char *name;
	int shift;
	bool sign;
	u8 min;
	u8 raw;
	u64 neighbours;
	bool matches;
};

static const struct match_threshold_case match_threshold_cases[] = {
	{ .name = "unsigned min-1",
	  .shift = 20, .min = 1, .raw = 0x0, .matches = false },
	{ .name = "unsigned min",
	  .shift = 20, .min = 1, .raw = 0x1, .matches = true },
	{ .name = "unsigned min+1",
	  .shift = 20, .min = 1, .raw = 0x2, .matches = true },
	{ .name = "unsigned min 2, min-1",
	  .shift = 20, .min = 2, .raw = 0x1, .matches = false },
	{ .name = "unsigned min 2, min",
	  .shift = 20, .min = 2, .raw = 0x2, .matches = true },
	{ .name = "unsigned min 2, min+1",
	  .shift = 20, .min = 2, .raw = 0x3, .matches = true },
	{ .name = "unsigned 0x8 is 8, matches min 1",
	  .shift = 20, .min = 1, .raw = 0x8, .matches = true },
	{ .name = "unsigned 0xf is 15, matches min 1",
	  .shift = 20, .min = 1, .raw = 0xf, .matches = true },
	{ .name = "unsigned 0xf is 15, matches min 15",
	  .shift = 20, .min = 15, .raw = 0xf, .matches = true },
	{ .name = "unsigned 0xe is 14, below min 15",
	  .shift = 20, .min = 15, .raw = 0xe, .matches = false },
	{ .name = "unsigned bits [3:0] min-1, neighbours set",
	  .shift = 0, .min = 1, .raw = 0x0, .neighbours = ~0ULL, .matches = false },
	{ .name = "unsigned bits [3:0] min, neighbours set",
	  .shift = 0, .min = 1, .raw = 0x1, .neighbours = ~0ULL, .matches = true },
	{ .name = "unsigned bits [63:60] min-1, neighbours set",
	  .shift = 60, .min = 1, .raw = 0x0, .neighbours = ~0ULL, .matches = false },
	{ .name = "unsigned bits [63:60] min",
	  .shift = 60, .min = 1, .raw = 0x1, .matches = true },
	{ .name = "signed min 0, 0x0",
	  .shift = 16, .sign = true, .min = 0, .raw = 0x0, .matches = true },
	{ .name = "signed min 0, 0x1",
	  .shift = 16, .sign = true, .min = 0, .raw = 0x1, .matches = true },
	{ .name = "signed min 0, 0x7 is 7",
	  .shift = 16, .sign = true, .min = 0, .raw = 0x7, .matches = true },
	{ .name = "signed min 0, 0x8 is -8",
	  .shift = 16, .sign = true, .min = 0, .raw = 0x8, .matches = false },
	{ .name = "signed min 0, 0xf is -1 (not implemented)",
	  .shift = 16, .sign = true, .min = 0, .raw = 0xf, .matches = false },
	{ .name = "signed min 0, 0xf is -1, neighbours set",
	  .shift = 16, .sign = true, .min = 0, .raw = 0xf, .neighbours = ~0ULL, .matches = false },
	{ .name = "signed min 1, min-1",
	  .shift = 16, .sign = true, .min = 1, .raw = 0x0, .matches = false },
	{ .name = "signed min 1, min",
	  .shift = 16, .sign = true, .min = 1, .raw = 0x1, .matches = true },
	{ .name = "signed min 1, min+1",
	  .shift = 16, .sign = true, .min = 1, .raw = 0x2, .matches = true },
	{ .name = "signed min 1, 0x9 is -7",
	  .shift = 16, .sign = true, .min = 1, .raw = 0x9, .matches = false },
	{ .name = "signed bits [63:60] 0x8 is -8",
	  .shift = 60, .sign = true, .min = 0, .raw = 0x8, .matches = false },
};

static void match_threshold_desc(const struct match_threshold_case *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(match_threshold, match_threshold_cases, match_threshold_desc);

/*
 * Synthetic rows, a field at min-1, min and min+1, signed and unsigned,
 * with the neighbouring bits clear or set: a signed 0xf (-1, not
 * implemented) never matches min 0, and an unsigned 8..15 still matches
 * min 1.
 */
static void feature_matches_thresholds(struct kunit *test)
{
	const struct match_threshold_case *t = test->param_value;
	/* No upper bound short of the field's own: the minimum alone decides. */
	const struct arm64_cpu_capabilities entry = {
		.desc = t->name,
		.field_pos = t->shift,
		.field_width = 4,
		.sign = t->sign,
		.min_field_value = t->min,
		.max_field_value = MATCH_FIELD_MAX(t->sign),
	};
	u64 reg = match_place(t->neighbours, t->shift, t->raw);

	KUNIT_EXPECT_EQ_MSG(test, feature_matches(reg, &entry), t->matches,
			    "reg %#018llx, %s field at %d = %#x, min %u",
			    reg, t->sign ? "signed" : "unsigned", t->shift,
			    t->raw, t->min);
}

/*
 * feature_matches() with an upper bound: a field value at the row's
 * maximum matches, one above it does not. min and max are raw field
 * values, read as the field is (signed: two's complement, DDI 0487 M.a.a,
 * D24.1.3, "Principles of the ID scheme for fields in ID registers"), as
 * ARM64_CPUID_FIELDS_NEG() writes a row for a feature that is not
 * implemented (ID_AA64PFR0_EL1.FP = 0b1111, -1).
 */
struct match_bound_case {
	const char *name;
	int shift;
	bool sign;
	u8 min;
	u8 max;
	u8 raw;
	u64 neighbours;
	bool matches;
};

static const struct match_bound_case match_bound_cases[] = {
	{ .name = "unsigned [1, 2], 0x2 at max",
	  .shift = 20, .min = 0x1, .max = 0x2, .raw = 0x2, .matches = true },
	{ .name = "unsigned [1, 2], 0x3 above max",
	  .shift = 20, .min = 0x1, .max = 0x2, .raw = 0x3, .matches = false },
	{ .name = "unsigned [1, 1], 0x2 above max, neighbours set",
	  .shift = 0, .min = 0x1, .max = 0x1, .raw = 0x2, .neighbours = ~0ULL,
	  .matches = false },
	{ .name = "unsigned [0, 14], 0xf above max",
	  .shift = 60, .min = 0x0, .max = 0xe, .raw = 0xf, .matches = false },
	{ .name = "signed [0, 7], 0x7 at max",
	  .shift = 16, .sign = true, .min = 0x0, .max = 0x7, .raw = 0x7,
	  .matches = true },
	{ .name = "signed [-8, -1], 0xf is -1, at max",
	  .shift = 16, .sign = true, .min = 0x8, .max = 0xf, .raw = 0xf,
	  .matches = true },
	{ .name = "signed [-8, -1], 0x0 is 0, above max",
	  .shift = 16, .sign = true, .min = 0x8, .max = 0xf, .raw = 0x0,
	  .matches = false },
	{ .name = "signed [-8, -2], 0xf is -1, above max",
	  .shift = 16, .sign = true, .min = 0x8, .max = 0xe, .raw = 0xf,
	  .matches = false },
};

static void match_bound_desc(const struct match_bound_case *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(match_bound, match_bound_cases, match_bound_desc);

/*
 * feature_matches() also checks max_field_value: a field at the row's
 * maximum matches, one above it does not.
 */
static void feature_matches_upper_bound(struct kunit *test)
{
	const struct match_bound_case *t = test->param_value;
	const struct arm64_cpu_capabilities entry = {
		.desc = t->name,
		.field_pos = t->shift,
		.field_width = 4,
		.sign = t->sign,
		.min_field_value = t->min,
		.max_field_value = t->max,
	};
	u64 reg = match_place(t->neighbours, t->shift, t->raw);

	KUNIT_EXPECT_EQ_MSG(test, feature_matches(reg, &entry), t->matches,
			    "reg %#018llx, %s field at %d = %#x, min %#x, max %#x",
			    reg, t->sign ? "signed" : "unsigned", t->shift,
			    t->raw, t->min, t->max);
}

/*
 * Rows of the kernel's own tables, each looked up by the capability or
 * hwcap it grants, against the field the Arm ARM says grants it.
 */
struct match_row {
	const char *name;
	bool hwcap;		/* @id is a KERNEL_HWCAP_ bit of arm64_elf_hwcaps[] */
	unsigned int id;	/* else an ARM64_ capability of arm64_features[] */
	bool configured;
	const char *config;
	enum match_id_reg reg;
	int shift;
	bool sign;
	int min;
};

static const struct match_row match_rows[] = {
	/* ID_AA64MMFR1_EL1.PAN, bits [23:20]: 0b0001 FEAT_PAN */
	{ .name = "ARM64_HAS_PAN", .id = ARM64_HAS_PAN, .configured = true,
	  .reg = MATCH_ID_AA64MMFR1_EL1, .shift = 20, .min = 1 },
	/* ID_AA64MMFR1_EL1.PAN: 0b0011 FEAT_PAN3 (EPAN) */
	{ .name = "ARM64_HAS_EPAN", .id = ARM64_HAS_EPAN,
	  .configured = IS_ENABLED(CONFIG_ARM64_EPAN), .config = "CONFIG_ARM64_EPAN",
	  .reg = MATCH_ID_AA64MMFR1_EL1, .shift = 20, .min = 3 },
	/* ID_AA64ISAR0_EL1.Atomic, bits [23:20]: 0b0010 FEAT_LSE */
	{ .name = "ARM64_HAS_LSE_ATOMICS", .id = ARM64_HAS_LSE_ATOMICS, .configured = true,
	  .reg = MATCH_ID_AA64ISAR0_EL1, .shift = 20, .min = 2 },
	/* ID_AA64ISAR0_EL1.RNDR, bits [63:60]: 0b0001 FEAT_RNG */
	{ .name = "ARM64_HAS_RNG", .id = ARM64_HAS_RNG, .configured = true,
	  .reg = MATCH_ID_AA64ISAR0_EL1, .shift = 60, .min = 1 },
	/* ID_AA64ISAR1_EL1.DPB, bits [3:0]: 0b0001 FEAT_DPB */
	{ .name = "ARM64_HAS_DCPOP", .id = ARM64_HAS_DCPOP,
	  .configured = IS_ENABLED(CONFIG_ARM64_PMEM), .config = "CONFIG_ARM64_PMEM",
	  .reg = MATCH_ID_AA64ISAR1_EL1, .shift = 0, .min = 1 },
	/* ID_AA64PFR0_EL1.FP, bits [19:16], signed: 0b0000 FP, 0b1111 none */
	{ .name = "HWCAP_FP", .hwcap = true, .id = KERNEL_HWCAP_FP, .configured = true,
	  .reg = MATCH_ID_AA64PFR0_EL1, .shift = 16, .sign = true, .min = 0 },
	/* ID_AA64PFR0_EL1.FP: 0b0001 adds half-precision (FEAT_FP16) */
	{ .name = "HWCAP_FPHP", .hwcap = true, .id = KERNEL_HWCAP_FPHP, .configured = true,
	  .reg = MATCH_ID_AA64PFR0_EL1, .shift = 16, .sign = true, .min = 1 },
	/* ID_AA64PFR0_EL1.AdvSIMD, bits [23:20], signed: 0b0000 AdvSIMD */
	{ .name = "HWCAP_ASIMD", .hwcap = true, .id = KERNEL_HWCAP_ASIMD, .configured = true,
	  .reg = MATCH_ID_AA64PFR0_EL1, .shift = 20, .sign = true, .min = 0 },
};

static void match_row_desc(const struct match_row *row, char *desc)
{
	strscpy(desc, row->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(match_row, match_rows, match_row_desc);

static const struct arm64_cpu_capabilities *match_find_row(const struct match_row *row)
{
	const struct arm64_cpu_capabilities *caps;

	caps = row->hwcap ? arm64_elf_hwcaps : arm64_features;
	for (; caps->matches; caps++) {
		if (row->hwcap && caps->hwcap_type == CAP_HWCAP &&
		    caps->hwcap == row->id)
			return caps;
		if (!row->hwcap && caps->capability == row->id)
			return caps;
	}
	return NULL;
}

static const struct arm64_cpu_capabilities *
match_get_row(struct kunit *test, const struct match_row *row)
{
	const struct arm64_cpu_capabilities *cap;

	if (!row->configured)
		kunit_skip(test, "config lacks %s: %s=n", row->name, row->config);
	cap = match_find_row(row);
	KUNIT_ASSERT_NOT_NULL_MSG(test, cap, "no %s row for %s",
				  row->hwcap ? "arm64_elf_hwcaps[]" : "arm64_features[]",
				  row->name);
	return cap;
}

/*
 * The kernel's own rows of match_rows[] (ARM64_HAS_PAN, ARM64_HAS_EPAN,
 * ARM64_HAS_LSE_ATOMICS, ARM64_HAS_RNG, ARM64_HAS_DCPOP, and the FP, FPHP
 * and ASIMD hwcaps), looked up by capability number, against the register
 * encoding and field the Arm ARM gives, for every value of the field with
 * the neighbouring bits clear and set; the row's max_field_value is the
 * field's largest value. A row whose option is off skips.
 */
static void feature_matches_kernel_rows(struct kunit *test)
{
	const struct match_row *row = test->param_value;
	const struct arm64_cpu_capabilities *cap = match_get_row(test, row);
	unsigned int n;
	int raw;

	KUNIT_EXPECT_EQ_MSG(test, cap->sys_reg, match_id_regs[row->reg].encoding,
			    "%s: sys_reg is not %s", row->name,
			    match_id_regs[row->reg].name);
	KUNIT_EXPECT_PTR_EQ(test, cap->matches,
			    row->hwcap ? has_user_cpuid_feature : has_cpuid_feature);
	/*
	 * A higher value of these fields keeps every feature of a lower one
	 * (DDI 0487 M.a.a, D24.1.3, "Principles of the ID scheme for fields in
	 * ID registers"): the row's bound is the field's.
	 */
	KUNIT_EXPECT_EQ_MSG(test, cap->max_field_value >> 4, 0,
			    "%s: max_field_value %#x does not fit the 4-bit field",
			    row->name, cap->max_field_value);
	KUNIT_EXPECT_EQ_MSG(test, (int)cap->max_field_value, MATCH_FIELD_MAX(row->sign),
			    "%s: max_field_value %#x, the %s field's largest value is %#x",
			    row->name, cap->max_field_value,
			    row->sign ? "signed" : "unsigned", MATCH_FIELD_MAX(row->sign));
	KUNIT_EXPECT_LE_MSG(test, row->min,
			    match_decode((u64)cap->max_field_value, 0, row->sign),
			    "%s: min_field_value %d above max_field_value %#x",
			    row->name, row->min, cap->max_field_value);

	for (n = 0; n < 2; n++) {
		for (raw = 0; raw < 16; raw++) {
			u64 reg = match_place(n ? ~0ULL : 0, row->shift, raw);
			bool want = match_decode(reg, row->shift, row->sign) >= row->min;

			KUNIT_EXPECT_EQ_MSG(test, feature_matches(reg, cap), want,
					    "%s: %s = %#018llx (field [%d:%d] = %#x)",
					    row->name, match_id_regs[row->reg].name,
					    reg, row->shift + 3, row->shift, raw);
		}
	}
}

struct match_cpu_read {
	enum match_id_reg reg;
	u64 val;
};

static void match_read_on_cpu(void *info)
{
	struct match_cpu_read *r = info;

	r->val = match_read_id_reg(r->reg);
}

/*
 * The system has a SCOPE_SYSTEM feature when every online CPU has it, so
 * compare the capability with the field read on each CPU.
 */
static void cpus_have_cap_agrees_with_id_registers(struct kunit *test)
{
	const struct match_row *row = test->param_value;
	struct match_cpu_read r = { .reg = row->reg };
	bool want = true, have;
	char values[128] = "";	/* " CPUn 0x...", while they fit */
	size_t len = 0;
	bool cut = false;
	int cpu;

	match_get_row(test, row);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		smp_call_function_single(cpu, match_read_on_cpu, &r, 1);
		if (match_decode(r.val, row->shift, row->sign) < row->min)
			want = false;
		if (len < sizeof(values) - 32)
			len += scnprintf(values + len, sizeof(values) - len, " CPU%d %#llx",
					 cpu, r.val);
		else
			cut = true;
	}
	cpus_read_unlock();

	have = row->hwcap ? cpu_have_feature(row->id) : cpus_have_cap(row->id);
	KUNIT_EXPECT_EQ_MSG(test, have, want,
			    "%s: the kernel %s it, %s field [%d:%d] %s %d on every CPU (%s:%s%s)",
			    row->name, have ? "reports" : "does not report",
			    match_id_regs[row->reg].name, row->shift + 3, row->shift,
			    want ? "is at least" : "is not at least", row->min,
			    match_id_regs[row->reg].name, values, cut ? " ..." : "");
}

/*
 * has_cpuid_feature() on the live registers, with thresholds around the
 * value this CPU reports: SCOPE_LOCAL_CPU on every CPU and SCOPE_SYSTEM
 * on the sanitised value.
 */
struct match_live_field {
	const char *name;
	enum match_id_reg reg;
	int shift;
	bool sign;
};

static const struct match_live_field match_live_fields[] = {
	{ .name = "ID_AA64PFR0_EL1.EL0", .reg = MATCH_ID_AA64PFR0_EL1, .shift = 0 },
	{ .name = "ID_AA64PFR0_EL1.FP", .reg = MATCH_ID_AA64PFR0_EL1, .shift = 16,
	  .sign = true },
	{ .name = "ID_AA64ISAR0_EL1.Atomic", .reg = MATCH_ID_AA64ISAR0_EL1, .shift = 20 },
	{ .name = "ID_AA64MMFR1_EL1.PAN", .reg = MATCH_ID_AA64MMFR1_EL1, .shift = 20 },
};

static void match_live_desc(const struct match_live_field *f, char *desc)
{
	strscpy(desc, f->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(match_live, match_live_fields, match_live_desc);

struct match_local_call {
	const struct arm64_cpu_capabilities *entry;
	u64 reg;
	bool matches;
};

static void match_local_on_cpu(void *info)
{
	struct match_local_call *c = info;

	c->reg = __read_sysreg_by_encoding(c->entry->sys_reg);
	c->matches = has_cpuid_feature(c->entry, SCOPE_LOCAL_CPU);
}

/*
 * has_cpuid_feature() on the live registers, with minimums around the
 * value the CPUs report: for SCOPE_LOCAL_CPU on every CPU, against that
 * CPU's own value, and for SCOPE_SYSTEM, against the lowest. The
 * thresholds are taken around the first online CPU's value; where the
 * CPUs differ in the field, its sanitised value follows the field's own
 * rule, which arm64_cpufeature_ftr_bits checks, and the case skips.
 */
static void has_cpuid_feature_live_thresholds(struct kunit *test)
{
	const struct match_live_field *f = test->param_value;
	struct arm64_cpu_capabilities entry = {
		.desc = f->name,
		.sys_reg = match_id_regs[f->reg].encoding,
		.field_pos = f->shift,
		.field_width = 4,
		.sign = f->sign,
		.max_field_value = MATCH_FIELD_MAX(f->sign),
	};
	struct match_cpu_read r = { .reg = f->reg };
	int val, first, min, cpu;
	bool system;

	/* Online CPUs stay online: a call on one cannot fail. */
	cpus_read_lock();
	first = cpumask_first(cpu_online_mask);
	smp_call_function_single(first, match_read_on_cpu, &r, 1);
	val = match_decode(r.val, f->shift, f->sign);
	for_each_online_cpu(cpu) {
		smp_call_function_single(cpu, match_read_on_cpu, &r, 1);
		if (match_decode(r.val, f->shift, f->sign) != val) {
			cpus_read_unlock();
			kunit_skip(test, "CPUs differ in %s: CPU%d %d, CPU%d %d", f->name, first,
				   val, cpu, match_decode(r.val, f->shift, f->sign));
		}
	}

	for (min = max(val - 1, 0); min <= val + 1; min++) {
		struct match_local_call c = { .entry = &entry };

		entry.min_field_value = min;
		for_each_online_cpu(cpu) {
			smp_call_function_single(cpu, match_local_on_cpu, &c, 1);
			KUNIT_EXPECT_EQ_MSG(test, c.matches,
					    match_decode(c.reg, f->shift, f->sign) >= min,
					    "CPU%d: %s = %d (reg %#018llx), min %d, SCOPE_LOCAL_CPU",
					    cpu, f->name, match_decode(c.reg, f->shift, f->sign),
					    c.reg, min);
		}
		system = has_cpuid_feature(&entry, SCOPE_SYSTEM);
		KUNIT_EXPECT_EQ_MSG(test, system, val >= min,
				    "%s = %d on every CPU, min %d, SCOPE_SYSTEM",
				    f->name, val, min);
	}
	cpus_read_unlock();
}

/*
 * With PAN, the kernel's PAN row matches on every CPU and on the
 * sanitised value, and the capability is set.
 */
static void has_cpuid_feature_pan_every_cpu(struct kunit *test)
{
	const struct match_row *row = &match_rows[0];
	const struct arm64_cpu_capabilities *cap;
	struct match_cpu_read r = { .reg = MATCH_ID_AA64MMFR1_EL1 };
	bool system, has_pan;
	int cpu;

	KUNIT_ASSERT_EQ(test, row->id, ARM64_HAS_PAN);
	KUNIT_ASSERT_EQ(test, smp_call_function_single(cpumask_first(cpu_online_mask),
						       match_read_on_cpu, &r, 1), 0);
	if (match_decode(r.val, 20, false) < 1)
		kunit_skip(test, "CPU lacks PAN: ID_AA64MMFR1_EL1.PAN=0");
	cap = match_get_row(test, row);

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct match_local_call c = { .entry = cap };

		smp_call_function_single(cpu, match_local_on_cpu, &c, 1);
		KUNIT_EXPECT_TRUE_MSG(test, c.matches,
				      "CPU%d: ID_AA64MMFR1_EL1 = %#018llx", cpu, c.reg);
	}
	cpus_read_unlock();
	system = cap->matches(cap, SCOPE_SYSTEM);
	KUNIT_EXPECT_TRUE_MSG(test, system,
			      "matches(SCOPE_SYSTEM): sanitised ID_AA64MMFR1_EL1 = %#018llx",
			      read_sanitised_ftr_reg(cap->sys_reg));
	has_pan = cpus_have_cap(ARM64_HAS_PAN);
	KUNIT_EXPECT_TRUE_MSG(test, has_pan, "cpus_have_cap(ARM64_HAS_PAN)");
}

/*
 * The system-wide view apart from the CPUs' own. On QEMU every CPU
 * reports the same ID registers, so the cases above hold whether
 * has_cpuid_feature() reads the sanitised register for SCOPE_SYSTEM and
 * the calling CPU's for SCOPE_LOCAL_CPU, or the other way round. Here a
 * synthetic second CPU reports one field below every online CPU's: it is
 * folded into a local copy of the register's arm64_ftr_reg by
 * update_cpu_ftr_reg(), as a secondary CPU is at boot. The copy's
 * sys_val is lent to the live arm64_ftr_reg inside stop_machine(), with
 * every online CPU in its stopper with interrupts off, so that nothing
 * else reads it meanwhile: the first CPU lends it, each CPU calls the
 * row's matches() for SCOPE_LOCAL_CPU, the first CPU calls it for
 * SCOPE_SYSTEM and puts the value back. .exit checks that every register
 * of match_id_regs[] is back at the value it had before the case.
 *
 * The expected values are the Arm ARM's (DDI 0487 M.a.a): the field
 * positions and signs of the register descriptions (ID_AA64PFR0_EL1,
 * ID_AA64ISAR0_EL1, ID_AA64MMFR1_EL1 in "AArch64 System Register
 * Descriptions"), where a higher value of these fields has every feature
 * of a lower one ("Principles of the ID scheme for fields in ID
 * registers"; a signed field's 0b1111 is -1, not implemented). The
 * sanitised value is "safe across all the available CPU on the system":
 * one CPU without a feature makes the system report it not implemented
 * (Documentation/arch/arm64/cpu-feature-registers.rst, "Requirements",
 * a), so the system's value of such a field is the lowest of the CPUs'.
 * A row whose minimum is the online CPUs' lowest value then matches on
 * every CPU (SCOPE_LOCAL_CPU) and not on the system (SCOPE_SYSTEM).
 */
struct match_second_cpu {
	const char *name;
	const struct arm64_cpu_capabilities *entry;
	enum match_id_reg reg;
	int shift;
	bool sign;
	int second;	/* the second CPU's field, decoded */
};

/* The lowest value of the field on the online CPUs, and the first one's register */
static int match_lowest_online(const struct match_second_cpu *s, u64 *first_reg)
{
	struct match_cpu_read r = { .reg = s->reg };
	int cpu, val, lowest = INT_MAX;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		smp_call_function_single(cpu, match_read_on_cpu, &r, 1);
		val = match_decode(r.val, s->shift, s->sign);
		if (val < lowest)
			lowest = val;
		if (cpu == cpumask_first(cpu_online_mask))
			*first_reg = r.val;
	}
	cpus_read_unlock();
	return lowest;
}

/* The row's matches() on every CPU while the sanitised value is lent */
struct match_lend {
	const struct arm64_cpu_capabilities *entry;
	struct arm64_ftr_reg *live;
	u64 boot_sys_val, lent;
	int lender;		/* the first online CPU */
	atomic_t lent_out;	/* 1 once lent, 2 once put back */
	atomic_t locals_done;
	bool was_lent;
	bool system;
	u64 reg[NR_CPUS];
	bool local[NR_CPUS];
};

static void match_lend_wait(atomic_t *v, int count)
{
	while (atomic_read(v) < count)
		cpu_relax();
}

static int match_lend_fn(void *arg)
{
	struct match_lend *l = arg;
	int cpu = smp_processor_id();

	if (cpu == l->lender) {
		l->was_lent = READ_ONCE(l->live->sys_val) == l->boot_sys_val;
		if (l->was_lent)
			WRITE_ONCE(l->live->sys_val, l->lent);
		atomic_set(&l->lent_out, 1);
	}
	match_lend_wait(&l->lent_out, 1);
	l->reg[cpu] = __read_sysreg_by_encoding(l->entry->sys_reg);
	l->local[cpu] = l->entry->matches(l->entry, SCOPE_LOCAL_CPU);
	atomic_inc(&l->locals_done);
	if (cpu == l->lender) {
		match_lend_wait(&l->locals_done, num_online_cpus());
		l->system = l->entry->matches(l->entry, SCOPE_SYSTEM);
		if (l->was_lent)
			WRITE_ONCE(l->live->sys_val, l->boot_sys_val);
		atomic_set(&l->lent_out, 2);
	}
	match_lend_wait(&l->lent_out, 2);
	return 0;
}

static void match_expect_second_cpu(struct kunit *test, const struct match_second_cpu *s,
				    int lowest, u64 first_reg)
{
	const char *reg_name = match_id_regs[s->reg].name;
	struct arm64_ftr_reg *live;
	struct arm64_ftr_reg copy;
	struct match_lend *l;
	u64 second_reg, boot_sys_val, lent;
	int field, want, cpu;

	live = get_arm64_ftr_reg_nowarn(match_id_regs[s->reg].encoding);
	KUNIT_ASSERT_NOT_NULL_MSG(test, live, "%s has no arm64_ftr_reg", reg_name);

	/* The second CPU: the first online CPU's register, the field lower. */
	second_reg = match_place(first_reg, s->shift, s->second & 0xf);
	boot_sys_val = READ_ONCE(live->sys_val);
	copy = *live;
	update_cpu_ftr_reg(&copy, second_reg);
	lent = copy.sys_val;

	field = match_decode(lent, s->shift, s->sign);
	want = min(match_decode(boot_sys_val, s->shift, s->sign), s->second);
	KUNIT_ASSERT_EQ_MSG(test, field, want,
			    "%s: system %s = %#018llx, second CPU %#018llx (%d): sanitised %#018llx has %d, not the lower",
			    s->name, reg_name, boot_sys_val, second_reg, s->second, lent, field);
	KUNIT_ASSERT_LT_MSG(test, field, lowest,
			    "%s: sanitised %s = %#018llx has %d, every online CPU %d or more",
			    s->name, reg_name, lent, field, lowest);

	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	l->entry = s->entry;
	l->live = live;
	l->boot_sys_val = boot_sys_val;
	l->lent = lent;
	cpus_read_lock();
	l->lender = cpumask_first(cpu_online_mask);
	stop_machine_cpuslocked(match_lend_fn, l, cpu_online_mask);
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_TRUE_MSG(test, l->local[cpu],
				      "%s: CPU%d: %s = %#018llx (%d), min %d, sanitised %#018llx (%d): SCOPE_LOCAL_CPU does not match",
				      s->name, cpu, reg_name, l->reg[cpu],
				      match_decode(l->reg[cpu], s->shift, s->sign),
				      s->entry->min_field_value, lent, field);
	cpus_read_unlock();

	KUNIT_ASSERT_TRUE_MSG(test, l->was_lent,
			      "%s: sanitised %s changed from %#018llx while the case ran",
			      s->name, reg_name, boot_sys_val);
	KUNIT_EXPECT_FALSE_MSG(test, l->system,
			       "%s: sanitised %s = %#018llx (%d, a second CPU with %d), min %d, online CPUs %d or more: SCOPE_SYSTEM matches",
			       s->name, reg_name, lent, field, s->second,
			       s->entry->min_field_value, lowest);
}

/* A second CPU one below the online CPUs, in a field of each kind */
struct match_second_case {
	const char *name;
	enum match_id_reg reg;
	int shift;
	bool sign;
	int second;
	const char *lacks;	/* what the CPUs lack when not above @second */
};

static const struct match_second_case match_second_cases[] = {
	/* bits [3:0], unsigned: 0b0001 AArch64 only, 0b0010 and AArch32 */
	{ .name = "ID_AA64PFR0_EL1.EL0", .reg = MATCH_ID_AA64PFR0_EL1,
	  .shift = 0, .second = 0, .lacks = "EL0 in AArch64" },
	/* bits [19:16], signed: 0b0000 FP, 0b0001 FP16, 0b1111 (-1) none */
	{ .name = "ID_AA64PFR0_EL1.FP", .reg = MATCH_ID_AA64PFR0_EL1,
	  .shift = 16, .sign = true, .second = -1, .lacks = "FP" },
	/* bits [23:20], unsigned: 0b0010 FEAT_LSE */
	{ .name = "ID_AA64ISAR0_EL1.Atomic", .reg = MATCH_ID_AA64ISAR0_EL1,
	  .shift = 20, .second = 0, .lacks = "LSE atomics" },
	/* bits [23:20], unsigned: 0b0001 FEAT_PAN */
	{ .name = "ID_AA64MMFR1_EL1.PAN", .reg = MATCH_ID_AA64MMFR1_EL1,
	  .shift = 20, .second = 0, .lacks = "PAN" },
};

static void match_second_desc(const struct match_second_case *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(match_second, match_second_cases, match_second_desc);

/*
 * A synthetic row at the online CPUs' lowest value of the field: every
 * CPU has it, the system with the second CPU does not.
 */
static void has_cpuid_feature_second_cpu_below(struct kunit *test)
{
	const struct match_second_case *t = test->param_value;
	struct arm64_cpu_capabilities entry = {
		.desc = t->name,
		.sys_reg = match_id_regs[t->reg].encoding,
		.matches = has_cpuid_feature,
		.field_pos = t->shift,
		.field_width = 4,
		.sign = t->sign,
		.max_field_value = MATCH_FIELD_MAX(t->sign),
	};
	const struct match_second_cpu s = {
		.name = t->name, .entry = &entry, .reg = t->reg,
		.shift = t->shift, .sign = t->sign, .second = t->second,
	};
	u64 first_reg = 0;
	int lowest;

	lowest = match_lowest_online(&s, &first_reg);
	if (lowest <= t->second)
		kunit_skip(test, "CPU lacks %s: %s=%d", t->lacks, t->name, lowest);
	entry.min_field_value = lowest;
	match_expect_second_cpu(test, &s, lowest, first_reg);
}

/*
 * The kernel's own rows, on a system whose online CPUs all have the
 * feature and a second CPU with the field one below the row's minimum
 * (a signed field's minimum 0 gives 0b1111, -1): every CPU matches the
 * row, the system does not, which is what the capability is decided on.
 */
static void has_cpuid_feature_kernel_rows_second_cpu_below(struct kunit *test)
{
	const struct match_row *row = test->param_value;
	const struct arm64_cpu_capabilities *cap = match_get_row(test, row);
	const struct match_second_cpu s = {
		.name = row->name, .entry = cap, .reg = row->reg,
		.shift = row->shift, .sign = row->sign, .second = row->min - 1,
	};
	u64 first_reg = 0;
	int lowest;

	lowest = match_lowest_online(&s, &first_reg);
	if (lowest < row->min)
		kunit_skip(test, "CPU lacks %s: %s field [%d:%d]=%d, min %d", row->name,
			   match_id_regs[row->reg].name, row->shift + 3, row->shift,
			   lowest, row->min);
	match_expect_second_cpu(test, &s, lowest, first_reg);
}

/*
 * Puts back the sanitised values @data holds, one per register of
 * match_id_regs[], where a case left another: a deferred action, so that
 * KUnit runs it after the case however it ended, after .exit has said
 * which changed.
 */
static void match_put_back(void *data)
{
	const u64 *sys_val = data;
	struct arm64_ftr_reg *live;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(match_id_regs); i++) {
		live = get_arm64_ftr_reg_nowarn(match_id_regs[i].encoding);
		if (live && READ_ONCE(live->sys_val) != sys_val[i])
			WRITE_ONCE(live->sys_val, sys_val[i]);
	}
}

/*
 * Each case starts from the ID registers' sanitised values as they are,
 * and leaves them so, even after an assertion ended it.
 */
static int match_init(struct kunit *test)
{
	u64 *sys_val = kunit_kcalloc(test, ARRAY_SIZE(match_id_regs), sizeof(*sys_val),
				     GFP_KERNEL);
	struct arm64_ftr_reg *live;
	unsigned int i;
	int ret;

	if (!sys_val)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(match_id_regs); i++) {
		live = get_arm64_ftr_reg_nowarn(match_id_regs[i].encoding);
		if (live)
			sys_val[i] = READ_ONCE(live->sys_val);
	}
	ret = kunit_add_action_or_reset(test, match_put_back, sys_val);
	if (ret)
		return ret;
	test->priv = sys_val;
	return 0;
}

/* A case that changed a sanitised value fails, whatever else it checked. */
static void match_exit(struct kunit *test)
{
	u64 *sys_val = test->priv;
	struct arm64_ftr_reg *live;
	u64 now;
	unsigned int i;

	if (!sys_val)
		return;
	for (i = 0; i < ARRAY_SIZE(match_id_regs); i++) {
		live = get_arm64_ftr_reg_nowarn(match_id_regs[i].encoding);
		if (!live)
			continue;
		now = READ_ONCE(live->sys_val);
		KUNIT_EXPECT_EQ_MSG(test, now, sys_val[i],
				    "sanitised %s changed from %#018llx to %#018llx; put back after .exit",
				    match_id_regs[i].name, sys_val[i], now);
	}
}

static struct kunit_case arm64_cpufeature_match_cases[] = {
	KUNIT_CASE_PARAM(feature_matches_thresholds, match_threshold_gen_params),
	KUNIT_CASE_PARAM(feature_matches_upper_bound, match_bound_gen_params),
	KUNIT_CASE_PARAM(feature_matches_kernel_rows, match_row_gen_params),
	KUNIT_CASE_PARAM(cpus_have_cap_agrees_with_id_registers, match_row_gen_params),
	KUNIT_CASE_PARAM(has_cpuid_feature_live_thresholds, match_live_gen_params),
	KUNIT_CASE(has_cpuid_feature_pan_every_cpu),
	KUNIT_CASE_PARAM(has_cpuid_feature_second_cpu_below, match_second_gen_params),
	KUNIT_CASE_PARAM(has_cpuid_feature_kernel_rows_second_cpu_below, match_row_gen_params),
	{}
};

static struct kunit_suite arm64_cpufeature_match_suite = {
	.name = "arm64_cpufeature_match",
	.init = match_init,
	.exit = match_exit,
	.test_cases = arm64_cpufeature_match_cases,
};

kunit_test_suite(arm64_cpufeature_match_suite);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the making of the system-wide ("sanitised") ID register
 * values: init_cpu_ftr_reg(), which starts a register from the boot CPU's
 * value and an idreg override, check_update_ftr_reg(), which folds a
 * secondary CPU's value in and says whether it differs in a strict field,
 * and __update_cpu_features(), which does so for every register a
 * secondary CPU's bring-up sanitises and returns whether any differs (on
 * which update_cpu_features() taints the kernel; the tests do not).
 * Every case checks whole 64-bit values: the field a rule writes, and
 * every other bit of the register.
 *
 * This file is #included at the end of cpufeature.c so that it can reach
 * those static functions. They find their register by its encoding in
 * arm64_ftr_regs[]: a case lends them one, ID_AA64DFR1_EL1's, with a
 * description (arm64_ftr_bits) and a state of the case's own, and gives
 * it back as it was, all inside stop_machine(), so that no other CPU and
 * no interrupt reads the register meanwhile.
 *
 * The description has one field of each kind, unlisted bits between
 * them, and a signed field, where 0b1111 is -1, below every value a
 * feature is implemented with (DDI 0487 M.a.a, D24.1.3, "Principles of the
 * ID scheme for fields in ID registers": a signed field reads 0b1111 when
 * the feature is not implemented). What each rule must make of two values is the case's
 * own arithmetic on its own description, not the kernel's helpers.
 *
 * The real descriptions are checked too: a table of every field of CTR_EL0
 * and the ID_AA64*_EL1 registers, written from the Arm ARM, against each
 * field's arm64_ftr_bits, and the same lending on each real register with
 * its own description, two values that differ in one field at a time.
 */

#include <kunit/test.h>
#include <linux/ctype.h>
#include <linux/init.h>
#include <linux/kstrtox.h>
#include <linux/stop_machine.h>
#include <asm/cpu.h>

/* The fields of the lent register, and their masks. */
#define SAN_U0		GENMASK_ULL(3, 0)	/* unsigned, strict, visible, lower safe */
#define SAN_S4		GENMASK_ULL(7, 4)	/* signed, non-strict, hidden, lower safe */
#define SAN_E8		GENMASK_ULL(11, 8)	/* unsigned, strict, hidden, exact, safe 2 */
#define SAN_H12		GENMASK_ULL(15, 12)	/* unsigned, non-strict, visible, higher safe */
#define SAN_Z60		GENMASK_ULL(63, 60)	/* unsigned, strict, hidden, higher or zero safe */
#define SAN_FIELDS	(SAN_U0 | SAN_S4 | SAN_E8 | SAN_H12 | SAN_Z60)
#define SAN_E8_SAFE	2

static const struct arm64_ftr_bits san_bits[] = {
	ARM64_FTR_BITS(FTR_VISIBLE, FTR_STRICT, FTR_LOWER_SAFE, 0, 4, 0),
	S_ARM64_FTR_BITS(FTR_HIDDEN, FTR_NONSTRICT, FTR_LOWER_SAFE, 4, 4, 0),
	ARM64_FTR_BITS(FTR_HIDDEN, FTR_STRICT, FTR_EXACT, 8, 4, SAN_E8_SAFE),
	ARM64_FTR_BITS(FTR_VISIBLE, FTR_NONSTRICT, FTR_HIGHER_SAFE, 12, 4, 0),
	ARM64_FTR_BITS(FTR_HIDDEN, FTR_STRICT, FTR_HIGHER_OR_ZERO_SAFE, 60, 4, 0),
	ARM64_FTR_END,
};

/* The register lent to the functions under test. */
#define SAN_SYS_REG	SYS_ID_AA64DFR1_EL1

/* A register value by its fields' 4-bit encodings, and undescribed bits. */
#define SAN_VAL(u0, s4, e8, h12, z60, unlisted)				\
	((u64)(u0) | (u64)(s4) << 4 | (u64)(e8) << 8 | (u64)(h12) << 12 |	\
	 (u64)(z60) << 60 | ((unlisted) & ~SAN_FIELDS))

/* One call of a function under test on the lent register. */
struct san_call {
	struct arm64_ftr_reg state;	/* in: the case's; out: what the call left */
	struct arm64_ftr_override override;
	bool init;			/* init_cpu_ftr_reg(), else check_update_ftr_reg() */
	u64 val, boot;
	int ret;
	bool found;
};

static int san_call_fn(void *data)
{
	struct san_call *call = data;
	struct arm64_ftr_reg *live = get_arm64_ftr_reg_nowarn(SAN_SYS_REG);
	struct arm64_ftr_reg saved;

	call->found = live;
	if (!live)
		return 0;
	saved = *live;
	*live = call->state;
	live->override = &call->override;
	if (call->init)
		init_cpu_ftr_reg(SAN_SYS_REG, call->val);
	else
		call->ret = check_update_ftr_reg(SAN_SYS_REG, 1, call->val, call->boot);
	call->state = *live;
	*live = saved;
	return 0;
}

static void san_call(struct kunit *test, struct san_call *call)
{
	call->state.name = "KUnit test register";
	call->state.ftr_bits = san_bits;
	KUNIT_ASSERT_EQ(test, stop_machine(san_call_fn, call, NULL), 0);
	KUNIT_ASSERT_TRUE_MSG(test, call->found, "no arm64_ftr_regs[] entry to lend");
}

/*
 * The state of a register lent to a fold, as init_cpu_ftr_reg() leaves
 * it for san_bits[] with @sys_val: strict but for the two non-strict
 * fields, visible to user space in the two visible ones.
 */
static void san_lend(struct arm64_ftr_reg *reg, u64 sys_val,
		     struct arm64_ftr_override *override)
{
	reg->name = "KUnit lent register";
	reg->ftr_bits = san_bits;
	reg->sys_val = sys_val;
	reg->strict_mask = ~(SAN_S4 | SAN_H12);
	reg->user_mask = SAN_U0 | SAN_H12;
	reg->user_val = 0;
	reg->override = override;
}

/*
 * A boot CPU's value: the sanitised value keeps the described fields as
 * they are and clears every other bit; a field is strict unless described
 * non-strict (bits nobody describes stay strict), visible to user space
 * only if described visible; a hidden field reads its safe value in the
 * user's view.
 */
static void init_cpu_ftr_reg_keeps_described_fields(struct kunit *test)
{
	u64 new = SAN_VAL(0x0, 0xf, 0xe, 0xd, 0x1, 0x0aaa555500000000ULL);
	u64 want = new & SAN_FIELDS;
	u64 want_strict = ~(SAN_S4 | SAN_H12), want_user = SAN_U0 | SAN_H12;
	u64 want_user_val = SAN_VAL(0, 0, SAN_E8_SAFE, 0, 0, 0);
	struct san_call call = { .init = true, .val = new };

	call.state.sys_val = ~0ULL;
	call.state.user_val = 0;
	call.state.strict_mask = 0;
	call.state.user_mask = ~0ULL;
	san_call(test, &call);
	KUNIT_EXPECT_EQ_MSG(test, call.state.sys_val, want,
			    "from %#018llx: sanitised %#018llx, want the described fields only",
			    new, call.state.sys_val);
	KUNIT_EXPECT_EQ_MSG(test, call.state.strict_mask, want_strict,
			    "strict mask %#018llx, want all but the two non-strict fields",
			    call.state.strict_mask);
	KUNIT_EXPECT_EQ_MSG(test, call.state.user_mask, want_user,
			    "user mask %#018llx, want the two visible fields",
			    call.state.user_mask);
	KUNIT_EXPECT_EQ_MSG(test, call.state.user_val, want_user_val,
			    "user value %#018llx, want the hidden fields' safe values",
			    call.state.user_val);
}

/*
 * An idreg override (the "id_aa64mmfr1.pan=0" kind of the command line)
 * on field U0, unsigned and lower safe, of a boot CPU reporting 3: taken
 * when it is the safe value of the two, dropped when it is not; a value
 * without its mask (all ones over whole fields, as <asm/cpufeature.h>
 * says an impossible override is) is dropped field by field.
 */
struct san_override_row {
	const char *name;
	u64 mask, val;			/* the override given, of the whole register */
	u64 want_u0;			/* the sanitised field */
	u64 want_mask, want_val;	/* the override after */
};

static const struct san_override_row san_override_rows[] = {
	{ "lower_forced", SAN_U0, 0x1, 0x1, SAN_U0, 0x1 },
	{ "zero_forced", SAN_U0, 0x0, 0x0, SAN_U0, 0x0 },
	{ "same_already_set", SAN_U0, 0x3, 0x3, SAN_U0, 0x3 },
	{ "higher_unsafe_dropped", SAN_U0, 0x5, 0x3, 0, 0 },
	{ "value_without_mask_whole_field_dropped", 0, 0xf, 0x3, 0, 0 },
	{ "value_without_mask_two_fields_dropped", 0, 0xff, 0x3, 0, 0 },
	{ "other_field_already_set", SAN_H12, (0x4ULL << 12), 0x3,
	  SAN_H12, (0x4ULL << 12) },
};

static void san_override_desc(const struct san_override_row *row, char *desc)
{
	strscpy(desc, row->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(san_override, san_override_rows, san_override_desc);

/* Each row of san_override_rows[], on the whole register. */
static void init_cpu_ftr_reg_by_override(struct kunit *test)
{
	const struct san_override_row *row = test->param_value;
	u64 new = SAN_VAL(0x3, 0x2, 0x1, 0x4, 0x5, 0);
	u64 want = (new & ~SAN_U0) | row->want_u0;
	struct san_call call = { .init = true, .val = new };

	call.override.mask = row->mask;
	call.override.val = row->val;
	san_call(test, &call);
	KUNIT_EXPECT_EQ_MSG(test, call.state.sys_val, want,
			    "override mask %#llx value %#llx on %#018llx: sanitised %#018llx",
			    row->mask, row->val, new, call.state.sys_val);
	KUNIT_EXPECT_EQ_MSG(test, call.override.mask, row->want_mask,
			    "override mask %#llx value %#llx: mask left %#llx",
			    row->mask, row->val, call.override.mask);
	KUNIT_EXPECT_EQ_MSG(test, call.override.val, row->want_val,
			    "override mask %#llx value %#llx: value left %#llx",
			    row->mask, row->val, call.override.val);
}

/*
 * A secondary CPU's value folded into a boot CPU's, as
 * update_cpu_features() does for each ID register: each described field
 * becomes the safe value of the two by its rule (lower, the signed
 * lowest, the exact one's safe value, higher, higher or zero), every
 * other bit stays the boot CPU's; the verdict is 1 exactly when the two
 * differ in a strict bit (an undescribed bit is strict).
 */
struct san_update_row {
	const char *name;
	u64 boot, val, want;
	int ret;
};

#define SAN_UNLISTED	0x0123456789ab0000ULL

static const struct san_update_row san_update_rows[] = {
	{ "same_value_kept",
	  SAN_VAL(2, 1, 2, 3, 4, SAN_UNLISTED), SAN_VAL(2, 1, 2, 3, 4, SAN_UNLISTED),
	  SAN_VAL(2, 1, 2, 3, 4, SAN_UNLISTED), 0 },
	{ "non_strict_signed_lowest",
	  SAN_VAL(2, 1, 2, 3, 4, SAN_UNLISTED), SAN_VAL(2, 0xf, 2, 3, 4, SAN_UNLISTED),
	  SAN_VAL(2, 0xf, 2, 3, 4, SAN_UNLISTED), 0 },
	{ "non_strict_signed_minus_one_below_seven",
	  SAN_VAL(2, 0xf, 2, 3, 4, SAN_UNLISTED), SAN_VAL(2, 7, 2, 3, 4, SAN_UNLISTED),
	  SAN_VAL(2, 0xf, 2, 3, 4, SAN_UNLISTED), 0 },
	{ "non_strict_higher",
	  SAN_VAL(2, 1, 2, 3, 4, SAN_UNLISTED), SAN_VAL(2, 1, 2, 5, 4, SAN_UNLISTED),
	  SAN_VAL(2, 1, 2, 5, 4, SAN_UNLISTED), 0 },
	{ "strict_lower",
	  SAN_VAL(2, 1, 2, 3, 4, SAN_UNLISTED), SAN_VAL(1, 1, 2, 3, 4, SAN_UNLISTED),
	  SAN_VAL(1, 1, 2, 3, 4, SAN_UNLISTED), 1 },
	{ "strict_exact_safe",
	  SAN_VAL(2, 1, 2, 3, 4, SAN_UNLISTED), SAN_VAL(2, 1, 3, 3, 4, SAN_UNLISTED),
	  SAN_VAL(2, 1, SAN_E8_SAFE, 3, 4, SAN_UNLISTED), 1 },
	{ "strict_exact_other_safe",
	  SAN_VAL(2, 1, 5, 3, 4, SAN_UNLISTED), SAN_VAL(2, 1, 6, 3, 4, SAN_UNLISTED),
	  SAN_VAL(2, 1, SAN_E8_SAFE, 3, 4, SAN_UNLISTED), 1 },
	{ "strict_higher_or_zero_zero",
	  SAN_VAL(2, 1, 2, 3, 4, SAN_UNLISTED), SAN_VAL(2, 1, 2, 3, 0, SAN_UNLISTED),
	  SAN_VAL(2, 1, 2, 3, 0, SAN_UNLISTED), 1 },
	{ "strict_higher_or_zero_higher",
	  SAN_VAL(2, 1, 2, 3, 4, SAN_UNLISTED), SAN_VAL(2, 1, 2, 3, 6, SAN_UNLISTED),
	  SAN_VAL(2, 1, 2, 3, 6, SAN_UNLISTED), 1 },
	{ "undescribed_bit_strict_boot_kept",
	  SAN_VAL(2, 1, 2, 3, 4, SAN_UNLISTED), SAN_VAL(2, 1, 2, 3, 4, SAN_UNLISTED ^ BIT_ULL(40)),
	  SAN_VAL(2, 1, 2, 3, 4, SAN_UNLISTED), 1 },
	{ "every_field_at_once",
	  SAN_VAL(2, 1, 2, 3, 4, SAN_UNLISTED), SAN_VAL(1, 0xf, 3, 5, 0, SAN_UNLISTED),
	  SAN_VAL(1, 0xf, SAN_E8_SAFE, 5, 0, SAN_UNLISTED), 1 },
};

static void san_update_desc(const struct san_update_row *row, char *desc)
{
	strscpy(desc, row->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(san_update, san_update_rows, san_update_desc);

/* Each row of san_update_rows[]: the whole sanitised value and the verdict. */
static void check_update_ftr_reg_by_rule(struct kunit *test)
{
	const struct san_update_row *row = test->param_value;
	struct san_call call = { .boot = row->boot, .val = row->val };

	san_lend(&call.state, row->boot, &call.override);
	san_call(test, &call);
	KUNIT_EXPECT_EQ_MSG(test, call.state.sys_val, row->want,
			    "boot CPU %#018llx, CPU1 %#018llx: sanitised %#018llx, want %#018llx",
			    row->boot, row->val, call.state.sys_val, row->want);
	KUNIT_EXPECT_EQ_MSG(test, call.ret, row->ret,
			    "boot CPU %#018llx, CPU1 %#018llx: verdict %d, want %d (1: a strict bit differs)",
			    row->boot, row->val, call.ret, row->ret);
}

/*
 * __update_cpu_features(), what update_cpu_features() calls for a
 * secondary CPU with its ID registers and the boot CPU's: it folds each
 * register the kernel sanitises on a secondary into the system-wide
 * value, and returns non-zero on a strict difference, for which
 * update_cpu_features() warns and taints the kernel (the case does
 * neither). Every register of arm64_ftr_regs[] is lent, inside one
 * stop_machine(), the description above and a state of the case's own,
 * and given back as it was. The boot CPU's value of register i has bits
 * [55:48] = i + 1, a secondary's the same, so that a value folded into
 * the wrong register shows. A strict difference prints the kernel's own
 * "SANITY CHECK: Unexpected variation in KUnit lent register" line,
 * one per register that differs: the lent state's, not the CPU's.
 *
 * The values keep the secondary from the registers the kernel folds only
 * under a condition: ID_AA64PFR0_EL1.EL0 (field U0) is never 2, so there
 * is no AArch32 at EL0 and the AArch32 registers are left alone; the
 * fields that say SVE, SME, MPAM and MTE (ID_AA64PFR0_EL1 [35:32],
 * [43:40]; ID_AA64PFR1_EL1 [11:8], [19:16], [27:24]) are 0, so no
 * ZCR_EL1, SMCR_EL1, MPAMIDR_EL1 or GMID_EL1 is read or folded (DDI 0487
 * M.a.a, D24.2.93 ID_AA64PFR0_EL1 and D24.2.94 ID_AA64PFR1_EL1).
 */

/* A register update_cpu_features() folds, and its struct cpuinfo_arm64 field. */
struct san_folded {
	u32 sys_id;
	const char *name;
	size_t offset;
};

#define SAN_FOLDED(reg, field)	\
	{ SYS_##reg, #reg, offsetof(struct cpuinfo_arm64, field) }

static const struct san_folded san_folded[] = {
	SAN_FOLDED(CTR_EL0, reg_ctr),
	SAN_FOLDED(DCZID_EL0, reg_dczid),
	SAN_FOLDED(CNTFRQ_EL0, reg_cntfrq),
	SAN_FOLDED(ID_AA64DFR0_EL1, reg_id_aa64dfr0),
	SAN_FOLDED(ID_AA64DFR1_EL1, reg_id_aa64dfr1),
	SAN_FOLDED(ID_AA64ISAR0_EL1, reg_id_aa64isar0),
	SAN_FOLDED(ID_AA64ISAR1_EL1, reg_id_aa64isar1),
	SAN_FOLDED(ID_AA64ISAR2_EL1, reg_id_aa64isar2),
	SAN_FOLDED(ID_AA64MMFR0_EL1, reg_id_aa64mmfr0),
	SAN_FOLDED(ID_AA64MMFR1_EL1, reg_id_aa64mmfr1),
	SAN_FOLDED(ID_AA64MMFR2_EL1, reg_id_aa64mmfr2),
	SAN_FOLDED(ID_AA64PFR0_EL1, reg_id_aa64pfr0),
	SAN_FOLDED(ID_AA64PFR1_EL1, reg_id_aa64pfr1),
	SAN_FOLDED(ID_AA64ZFR0_EL1, reg_id_aa64zfr0),
	SAN_FOLDED(ID_AA64SMFR0_EL1, reg_id_aa64smfr0),
	SAN_FOLDED(ID_AA64ISAR3_EL1, reg_id_aa64isar3),
	SAN_FOLDED(ID_AA64MMFR3_EL1, reg_id_aa64mmfr3),
	SAN_FOLDED(ID_AA64MMFR4_EL1, reg_id_aa64mmfr4),
	SAN_FOLDED(ID_AA64PFR2_EL1, reg_id_aa64pfr2),
	SAN_FOLDED(ID_AA64FPFR0_EL1, reg_id_aa64fpfr0),
};

/*
 * Registers folded only under a condition no row meets: they stay as they
 * were.
 */
static const u32 san_kept[] = {
	SYS_ID_PFR0_EL1, SYS_ID_PFR1_EL1, SYS_ID_PFR2_EL1, SYS_ID_DFR0_EL1,
	SYS_ID_DFR1_EL1, SYS_ID_MMFR0_EL1, SYS_ID_MMFR1_EL1, SYS_ID_MMFR2_EL1,
	SYS_ID_MMFR3_EL1, SYS_ID_MMFR4_EL1, SYS_ID_MMFR5_EL1, SYS_ID_ISAR0_EL1,
	SYS_ID_ISAR1_EL1, SYS_ID_ISAR2_EL1, SYS_ID_ISAR3_EL1, SYS_ID_ISAR4_EL1,
	SYS_ID_ISAR5_EL1, SYS_ID_ISAR6_EL1, SYS_MVFR0_EL1, SYS_MVFR1_EL1,
	SYS_MVFR2_EL1, SYS_GMID_EL1, SYS_MPAMIDR_EL1,
};

#define SAN_NR_REGS	ARRAY_SIZE(arm64_ftr_regs)
#define SAN_REG_TAG(i)	((u64)((i) + 1) << 48)

/* One call of update_cpu_features() on every register lent. */
struct san_fold_call {
	struct cpuinfo_arm64 boot, info;
	u64 lent[SAN_NR_REGS];		/* each register's boot value */
	u64 after[SAN_NR_REGS];		/* and its sanitised value after */
	struct arm64_ftr_reg saved[SAN_NR_REGS];
	struct arm64_ftr_override override;
	int ret;			/* non-zero: a strict difference */
};

static int san_fold_fn(void *data)
{
	struct san_fold_call *call = data;
	size_t i;

	for (i = 0; i < SAN_NR_REGS; i++) {
		struct arm64_ftr_reg *reg = arm64_ftr_regs[i].reg;

		call->saved[i] = *reg;
		san_lend(reg, call->lent[i], &call->override);
	}
	call->ret = __update_cpu_features(1, &call->info, &call->boot);
	for (i = 0; i < SAN_NR_REGS; i++) {
		call->after[i] = arm64_ftr_regs[i].reg->sys_val;
		*arm64_ftr_regs[i].reg = call->saved[i];
	}
	return 0;
}

static int san_reg_index(u32 sys_id)
{
	int i;

	for (i = 0; i < SAN_NR_REGS; i++)
		if (arm64_ftr_regs[i].sys_id == sys_id)
			return i;
	return -1;
}

static u64 *san_field(struct cpuinfo_arm64 *info, const struct san_folded *f)
{
	return (u64 *)((u8 *)info + f->offset);
}

/*
 * Runs __update_cpu_features() with @boot and @val (patterns without the
 * register tags) for the registers of san_folded[] (all but @only's
 * boot value, if @only), and checks every register: a folded one holds
 * @want (@boot for all but @only), a kept one its boot value; and the
 * verdict is @strict, whether a strict field differed.
 */
static void san_fold_check(struct kunit *test, u64 boot, u64 val, u64 want,
			   const struct san_folded *only, bool strict)
{
	struct san_fold_call *call;
	int i, j;

	call = kunit_kzalloc(test, sizeof(*call), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, call);
	for (i = 0; i < SAN_NR_REGS; i++)
		call->lent[i] = boot | SAN_REG_TAG(i);
	for (j = 0; j < ARRAY_SIZE(san_folded); j++) {
		const struct san_folded *f = &san_folded[j];

		i = san_reg_index(f->sys_id);
		KUNIT_ASSERT_GE_MSG(test, i, 0, "%s: no arm64_ftr_regs[] entry", f->name);
		*san_field(&call->boot, f) = boot | SAN_REG_TAG(i);
		*san_field(&call->info, f) = (only && only != f ? boot : val) | SAN_REG_TAG(i);
	}

	KUNIT_ASSERT_EQ(test, stop_machine(san_fold_fn, call, NULL), 0);

	for (j = 0; j < ARRAY_SIZE(san_folded); j++) {
		const struct san_folded *f = &san_folded[j];
		u64 reg_want;

		i = san_reg_index(f->sys_id);
		reg_want = (only && only != f ? boot : want) | SAN_REG_TAG(i);
		KUNIT_EXPECT_EQ_MSG(test, call->after[i], reg_want,
				    "%s: boot CPU %#018llx, CPU1 %#018llx: sanitised %#018llx, want %#018llx",
				    f->name, *san_field(&call->boot, f), *san_field(&call->info, f),
				    call->after[i], reg_want);
	}
	for (j = 0; j < ARRAY_SIZE(san_kept); j++) {
		i = san_reg_index(san_kept[j]);
		KUNIT_EXPECT_GE_MSG(test, i, 0, "sys_id %#x: no arm64_ftr_regs[] entry",
				    san_kept[j]);
		if (i < 0)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, call->after[i], call->lent[i],
				    "arm64_ftr_regs[%d] (sys_id %#x), folded only under a condition no CPU here meets: sanitised %#018llx, want it kept at %#018llx",
				    i, san_kept[j], call->after[i], call->lent[i]);
	}
	KUNIT_EXPECT_EQ_MSG(test, !!call->ret, strict,
			    "verdict %d, want %s (a strict field differs%s%s)", call->ret,
			    strict ? "non-zero" : "0", only ? " in " : " in no register",
			    only ? only->name : "");
}

/* Whole registers for update_cpu_features(): boot, secondary, sanitised. */
struct san_fold_row {
	const char *name;
	u64 boot, val, want;
	bool strict;		/* a strict field differs */
};

static const struct san_fold_row san_fold_rows[] = {
	{ "same_values_kept",
	  SAN_VAL(3, 1, 0, 3, 4, 0), SAN_VAL(3, 1, 0, 3, 4, 0), SAN_VAL(3, 1, 0, 3, 4, 0), false },
	{ "non_strict_signed_minus_one_and_higher",
	  SAN_VAL(3, 1, 0, 3, 4, 0), SAN_VAL(3, 0xf, 0, 5, 4, 0), SAN_VAL(3, 0xf, 0, 5, 4, 0),
	  false },
	{ "strict_lower",
	  SAN_VAL(3, 1, 0, 3, 4, 0), SAN_VAL(1, 1, 0, 3, 4, 0), SAN_VAL(1, 1, 0, 3, 4, 0), true },
	{ "strict_undescribed_bit_boot_kept",
	  SAN_VAL(3, 1, 0, 3, 4, 0), SAN_VAL(3, 1, 0, 3, 4, BIT_ULL(58)),
	  SAN_VAL(3, 1, 0, 3, 4, 0), true },
};

static void san_fold_desc(const struct san_fold_row *row, char *desc)
{
	strscpy(desc, row->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(san_fold, san_fold_rows, san_fold_desc);

/* Each row of san_fold_rows[], on every register a secondary's bring-up folds. */
static void update_cpu_features_folds_every_register(struct kunit *test)
{
	const struct san_fold_row *row = test->param_value;

	san_fold_check(test, row->boot, row->val, row->want, NULL, row->strict);
}

static void san_folded_desc(const struct san_folded *f, char *desc)
{
	strscpy(desc, f->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(san_folded, san_folded, san_folded_desc);

/*
 * One register of a secondary lower than the boot CPU's in a strict field
 * (U0, lower safe), every other register the same: that register alone
 * is lowered, and the verdict says so, whichever register it is (one that
 * a later register's verdict overwrote would lose the taint).
 */
static void update_cpu_features_one_strict_difference(struct kunit *test)
{
	const struct san_folded *f = test->param_value;

	san_fold_check(test, SAN_VAL(3, 1, 0, 3, 4, 0), SAN_VAL(1, 1, 0, 3, 4, 0),
		       SAN_VAL(1, 1, 0, 3, 4, 0), f, true);
}

/*
 * Every field of the ID registers user space and the capability tables
 * read, as the Arm ARM (DDI 0487 M.a.a) describes it, against the
 * kernel's description of it (arm64_ftr_bits): CTR_EL0 and the
 * ID_AA64{PFR,ZFR,SMFR,DFR,ISAR,MMFR,FPFR}n_EL1 registers of
 * arm64_ftr_regs[]. The table below is written from the Arm ARM, one row
 * a field, the section of the register's table heading its rows:
 *
 * - position, width and sign: the register's field table; a field is
 *   signed where 0b0000 means implemented and 0b1111 not implemented
 *   (D24.1.3, "Principles of the ID scheme for fields in ID registers").
 * - rule, which of two CPUs' values the system may claim: a field where
 *   a higher value means more is lower safe (D24.1.3); signed ones too,
 *   0b1111 being the lowest. The exceptions come from what the values
 *   mean: CTR_EL0.CWG and ERG are log2 of a granule, the larger the safer,
 *   0 meaning "not given, assume the architectural maximum" (higher or
 *   zero safe); ID_AA64MMFR1_EL1.SpecSEI 0b0001 says SError interrupts
 *   may come from speculative reads, which one CPU doing so makes true of
 *   the system (higher safe); CTR_EL0 bit [31] is RES1 (exact, 1).
 * - the safe value: what an exact field reads when CPUs differ, and what
 *   an EL0 MRS reads of a hidden field: "set to indicate the feature is
 *   missing (as defined by the architecture)", rule 3 d) of
 *   Documentation/arch/arm64/cpu-feature-registers.rst, 0b0000 or, for a
 *   signed field, 0b1111. ID_AA64PFR0_EL1.EL0 and EL1 read 0b0001,
 *   AArch64 only: those ELs are always implemented, 0b0000 is no value of
 *   theirs. A visible field that is not exact has no safe value that
 *   anything reads (FLD_NONE, or the "missing" value, unchecked).
 * - visible or hidden to user space: the ABI document, section 4, which
 *   lists every visible field; CTR_EL0, which EL0 reads itself
 *   (SCTLR_EL1.UCT), all visible.
 * - strict or not, whether CPUs that differ taint the kernel: the Arm ARM
 *   has nothing to say about it; the column records the kernel's choice
 *   (with its reasons in cpufeature.c) so that a change of it is seen.
 *
 * A row where the kernel chooses what the Arm ARM does not settle names
 * the choice and the reason in its last column.
 */
enum fld_rule { FLD_LOWER, FLD_HIGHER, FLD_EXACT, FLD_HOZ };

static const char * const fld_rule_name[] = {
	[FLD_LOWER] = "lower safe",
	[FLD_HIGHER] = "higher safe",
	[FLD_EXACT] = "exact",
	[FLD_HOZ] = "higher or zero safe",
};

struct fld_row {
	const char *name;	/* REGISTER.FIELD */
	u32 sys_id;
	u8 shift, width;
	bool sign;
	enum fld_rule rule;
	int safe;		/* FLD_NONE: none that is read */
	bool visible;
	const char *config;	/* visible only with it, or NULL */
	bool strict;		/* the kernel's choice */
	const char *why;	/* what the kernel chooses, or NULL */
};

#define FLD_NONE	-1
#define FLD_U		false
#define FLD_S		true
#define FLD_VIS		true
#define FLD_HID		false
#define FLD_STRICT	true
#define FLD_NONSTRICT	false

/*
 * A row visible or hidden, and one visible only with CONFIG_@cfg; @field
 * is the Arm ARM's name of the field, a string.
 */
#define FLD(reg, field, shift, width, sign, rule, safe, vis, strict, why)	\
	{ #reg "." field, SYS_##reg, (shift), (width), FLD_##sign,	\
	  FLD_##rule, (safe), FLD_##vis, NULL, FLD_##strict, (why) }
#define FLD_IF(reg, field, shift, width, sign, rule, safe, cfg, strict, why)	\
	{ #reg "." field, SYS_##reg, (shift), (width), FLD_##sign,	\
	  FLD_##rule, (safe), IS_ENABLED(CONFIG_##cfg), "CONFIG_" #cfg,	\
	  FLD_##strict, (why) }

/* The kernel's choices, where the Arm ARM does not settle the row. */
#define WHY_L1IP	\
	"the policies have no order: exact, VIPT on a difference, the "	\
	"weakest policy the kernel handles, is its choice"
#define WHY_HID_IMP	\
	"hidden, reads 0b0000 (implemented), not 0b1111 as rule 3 d) of "	\
	"the ABI document says: the kernel's choice"
#define WHY_COUNT	\
	"a count less one, not a feature level (D24.1.3, Note): lower "	\
	"safe (fewer) and 0 when hidden are the kernel's reading"
#define WHY_PMUVER	\
	"D24.1.3.2: 0b1111 is an IMPLEMENTATION DEFINED PMU, outside the "	\
	"order: exact, 0b0000 (none) on a difference, is the kernel's "	\
	"choice"
#define WHY_DEBUGVER	\
	"0b0110 (Armv8.0 debug) is the least value: exact, not lower "	\
	"safe, is the kernel's choice"
#define WHY_PAC	\
	"D24.1.3 would make it lower safe, but a PAC made on one CPU must"	\
	" authenticate on another: exact, 0 (none) on a difference, is "	\
	"the kernel's choice"
#define WHY_TGRAN2	\
	"D24.1.3.3: 0b0000 defers to TGranN, the values have no order: "	\
	"exact, 0b0001 (not at stage 2) on a difference, is the kernel's "	\
	"choice"
#define WHY_SME	\
	"D24.1.3.4: 0 absent, the field's one other value present "	\
	"(SMEver: the standard scheme): lower safe would do; exact, 0 on "	\
	"a difference, is the kernel's choice"
#define WHY_FPFR	\
	"D24.1.3.4: 0b0 absent, 0b1 present: lower safe would do; exact, "	\
	"0 on a difference, is the kernel's choice"
#define WHY_NOT_MAA	\
	"not in M.a.a: position from AARCHMRS 2026-03 (Arm's "	\
	"Registers.json)"
#define WHY_SME_NOT_MAA	WHY_SME "; " WHY_NOT_MAA
#define WHY_FPFR_NOT_MAA	WHY_FPFR "; not in M.a.a nor AARCHMRS "	\
	"2026-03: position from the ABI document"

static const struct fld_row fld_rows[] = {
	/* DDI 0487 M.a.a, D24.2.42 CTR_EL0 */
	FLD(CTR_EL0, "RES1", 31, 1, U, EXACT, 0x1, VIS, STRICT, NULL),
	FLD(CTR_EL0, "DIC", 29, 1, U, LOWER, FLD_NONE, VIS, STRICT, NULL),
	FLD(CTR_EL0, "IDC", 28, 1, U, LOWER, FLD_NONE, VIS, STRICT, NULL),
	FLD(CTR_EL0, "CWG", 24, 4, U, HOZ, FLD_NONE, VIS, STRICT, NULL),
	FLD(CTR_EL0, "ERG", 20, 4, U, HOZ, FLD_NONE, VIS, STRICT, NULL),
	FLD(CTR_EL0, "DminLine", 16, 4, U, LOWER, FLD_NONE, VIS, STRICT, NULL),
	FLD(CTR_EL0, "L1Ip", 14, 2, U, EXACT, 0x2, VIS, NONSTRICT, WHY_L1IP),
	FLD(CTR_EL0, "IminLine", 0, 4, U, LOWER, FLD_NONE, VIS, STRICT, NULL),

	/* DDI 0487 M.a.a, D24.2.93 ID_AA64PFR0_EL1 */
	FLD(ID_AA64PFR0_EL1, "CSV3", 60, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),
	FLD(ID_AA64PFR0_EL1, "CSV2", 56, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),
	FLD(ID_AA64PFR0_EL1, "DIT", 48, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64PFR0_EL1, "AMU", 44, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),
	FLD(ID_AA64PFR0_EL1, "MPAM", 40, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64PFR0_EL1, "SEL2", 36, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),
	FLD_IF(ID_AA64PFR0_EL1, "SVE", 32, 4, U, LOWER, 0x0, ARM64_SVE, STRICT, NULL),
	FLD(ID_AA64PFR0_EL1, "RAS", 28, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64PFR0_EL1, "GIC", 24, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64PFR0_EL1, "AdvSIMD", 20, 4, S, LOWER, 0xf, VIS, STRICT, NULL),
	FLD(ID_AA64PFR0_EL1, "FP", 16, 4, S, LOWER, 0xf, VIS, STRICT, NULL),
	FLD(ID_AA64PFR0_EL1, "EL3", 12, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),
	FLD(ID_AA64PFR0_EL1, "EL2", 8, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),
	FLD(ID_AA64PFR0_EL1, "EL1", 4, 4, U, LOWER, 0x1, HID, NONSTRICT, NULL),
	FLD(ID_AA64PFR0_EL1, "EL0", 0, 4, U, LOWER, 0x1, HID, NONSTRICT, NULL),

	/* DDI 0487 M.a.a, D24.2.94 ID_AA64PFR1_EL1 */
	FLD(ID_AA64PFR1_EL1, "DF2", 56, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD_IF(ID_AA64PFR1_EL1, "GCS", 44, 4, U, LOWER, 0x0, ARM64_GCS, STRICT, NULL),
	FLD(ID_AA64PFR1_EL1, "MTE_frac", 40, 4, S, LOWER, 0x0, HID, STRICT, WHY_HID_IMP),
	FLD_IF(ID_AA64PFR1_EL1, "SME", 24, 4, U, LOWER, 0x0, ARM64_SME, STRICT, NULL),
	FLD(ID_AA64PFR1_EL1, "MPAM_frac", 16, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64PFR1_EL1, "RAS_frac", 12, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD_IF(ID_AA64PFR1_EL1, "MTE", 8, 4, U, LOWER, 0x0, ARM64_MTE, STRICT, NULL),
	FLD(ID_AA64PFR1_EL1, "SSBS", 4, 4, U, LOWER, 0x0, VIS, NONSTRICT, NULL),
	FLD_IF(ID_AA64PFR1_EL1, "BT", 0, 4, U, LOWER, 0x0, ARM64_BTI, STRICT, NULL),

	/* DDI 0487 M.a.a, D24.2.95 ID_AA64PFR2_EL1 */
	FLD(ID_AA64PFR2_EL1, "FPMR", 32, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64PFR2_EL1, "GCIE", 12, 4, U, LOWER, 0x0, HID, STRICT, WHY_NOT_MAA),
	FLD(ID_AA64PFR2_EL1, "MTEFAR", 8, 4, U, LOWER, 0x0, VIS, NONSTRICT, NULL),
	FLD(ID_AA64PFR2_EL1, "MTESTOREONLY", 4, 4, U, LOWER, 0x0, VIS, NONSTRICT, NULL),

	/* DDI 0487 M.a.a, D24.2.97 ID_AA64ZFR0_EL1 */
	FLD_IF(ID_AA64ZFR0_EL1, "F64MM", 56, 4, U, LOWER, 0x0, ARM64_SVE, STRICT, NULL),
	FLD_IF(ID_AA64ZFR0_EL1, "F32MM", 52, 4, U, LOWER, 0x0, ARM64_SVE, STRICT, NULL),
	FLD_IF(ID_AA64ZFR0_EL1, "F16MM", 48, 4, U, LOWER, 0x0, ARM64_SVE, STRICT, NULL),
	FLD_IF(ID_AA64ZFR0_EL1, "I8MM", 44, 4, U, LOWER, 0x0, ARM64_SVE, STRICT, NULL),
	FLD_IF(ID_AA64ZFR0_EL1, "SM4", 40, 4, U, LOWER, 0x0, ARM64_SVE, STRICT, NULL),
	FLD_IF(ID_AA64ZFR0_EL1, "SHA3", 32, 4, U, LOWER, 0x0, ARM64_SVE, STRICT, NULL),
	FLD_IF(ID_AA64ZFR0_EL1, "B16B16", 24, 4, U, LOWER, 0x0, ARM64_SVE, STRICT, NULL),
	FLD_IF(ID_AA64ZFR0_EL1, "BF16", 20, 4, U, LOWER, 0x0, ARM64_SVE, STRICT, NULL),
	FLD_IF(ID_AA64ZFR0_EL1, "BitPerm", 16, 4, U, LOWER, 0x0, ARM64_SVE, STRICT, NULL),
	FLD_IF(ID_AA64ZFR0_EL1, "EltPerm", 12, 4, U, LOWER, 0x0, ARM64_SVE, STRICT, NULL),
	FLD_IF(ID_AA64ZFR0_EL1, "AES", 4, 4, U, LOWER, 0x0, ARM64_SVE, STRICT, NULL),
	FLD_IF(ID_AA64ZFR0_EL1, "SVEver", 0, 4, U, LOWER, 0x0, ARM64_SVE, STRICT, NULL),

	/* DDI 0487 M.a.a, D24.2.96 ID_AA64SMFR0_EL1 */
	FLD_IF(ID_AA64SMFR0_EL1, "FA64", 63, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "LUT6", 61, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME_NOT_MAA),
	FLD_IF(ID_AA64SMFR0_EL1, "LUTv2", 60, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "SMEver", 56, 4, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "I16I64", 52, 4, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "F64F64", 48, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "I16I32", 44, 4, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "B16B16", 43, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "F16F16", 42, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "F8F16", 41, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "F8F32", 40, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "I8I32", 36, 4, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "F16F32", 35, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "B16F32", 34, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "BI32I32", 33, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "F32F32", 32, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "SF8FMA", 30, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "SF8DP4", 29, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "SF8DP2", 28, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "SBitPerm", 25, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "AES", 24, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "SFEXPA", 23, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "STMOP", 16, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),
	FLD_IF(ID_AA64SMFR0_EL1, "SMOP4", 0, 1, U, EXACT, 0x0, ARM64_SME, STRICT, WHY_SME),

	/* DDI 0487 M.a.a, D24.2.80 ID_AA64DFR0_EL1 */
	FLD(ID_AA64DFR0_EL1, "DoubleLock", 36, 4, S, LOWER, 0x0, HID, STRICT, WHY_HID_IMP),
	FLD(ID_AA64DFR0_EL1, "PMSVer", 32, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),
	FLD(ID_AA64DFR0_EL1, "CTX_CMPs", 28, 4, U, LOWER, 0x0, HID, STRICT, WHY_COUNT),
	FLD(ID_AA64DFR0_EL1, "WRPs", 20, 4, U, LOWER, 0x0, HID, STRICT, WHY_COUNT),
	FLD(ID_AA64DFR0_EL1, "BRPs", 12, 4, U, LOWER, 0x0, HID, STRICT, WHY_COUNT),
	FLD(ID_AA64DFR0_EL1, "PMUVer", 8, 4, U, EXACT, 0x0, HID, NONSTRICT, WHY_PMUVER),
	FLD(ID_AA64DFR0_EL1, "DebugVer", 0, 4, U, EXACT, 0x6, HID, STRICT, WHY_DEBUGVER),

	/* DDI 0487 M.a.a, D24.2.84 ID_AA64ISAR0_EL1 */
	FLD(ID_AA64ISAR0_EL1, "RNDR", 60, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR0_EL1, "TLB", 56, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64ISAR0_EL1, "TS", 52, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR0_EL1, "FHM", 48, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR0_EL1, "DP", 44, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR0_EL1, "SM4", 40, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR0_EL1, "SM3", 36, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR0_EL1, "SHA3", 32, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR0_EL1, "RDM", 28, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR0_EL1, "Atomic", 20, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR0_EL1, "CRC32", 16, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR0_EL1, "SHA2", 12, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR0_EL1, "SHA1", 8, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR0_EL1, "AES", 4, 4, U, LOWER, 0x0, VIS, STRICT, NULL),

	/* DDI 0487 M.a.a, D24.2.85 ID_AA64ISAR1_EL1 */
	FLD(ID_AA64ISAR1_EL1, "LS64", 60, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR1_EL1, "XS", 56, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64ISAR1_EL1, "I8MM", 52, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR1_EL1, "DGH", 48, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR1_EL1, "BF16", 44, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR1_EL1, "SPECRES", 40, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64ISAR1_EL1, "SB", 36, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR1_EL1, "FRINTTS", 32, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD_IF(ID_AA64ISAR1_EL1, "GPI", 28, 4, U, LOWER, 0x0, ARM64_PTR_AUTH, STRICT, NULL),
	FLD_IF(ID_AA64ISAR1_EL1, "GPA", 24, 4, U, LOWER, 0x0, ARM64_PTR_AUTH, STRICT, NULL),
	FLD(ID_AA64ISAR1_EL1, "LRCPC", 20, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR1_EL1, "FCMA", 16, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR1_EL1, "JSCVT", 12, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD_IF(ID_AA64ISAR1_EL1, "API", 8, 4, U, EXACT, 0x0, ARM64_PTR_AUTH, STRICT, WHY_PAC),
	FLD_IF(ID_AA64ISAR1_EL1, "APA", 4, 4, U, EXACT, 0x0, ARM64_PTR_AUTH, STRICT, WHY_PAC),
	FLD(ID_AA64ISAR1_EL1, "DPB", 0, 4, U, LOWER, 0x0, VIS, STRICT, NULL),

	/* DDI 0487 M.a.a, D24.2.86 ID_AA64ISAR2_EL1 */
	FLD(ID_AA64ISAR2_EL1, "ATS1A", 60, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64ISAR2_EL1, "LUT", 56, 4, U, LOWER, 0x0, VIS, NONSTRICT, NULL),
	FLD(ID_AA64ISAR2_EL1, "CSSC", 52, 4, U, LOWER, 0x0, VIS, NONSTRICT, NULL),
	FLD(ID_AA64ISAR2_EL1, "RPRFM", 48, 4, U, LOWER, 0x0, VIS, NONSTRICT, NULL),
	FLD(ID_AA64ISAR2_EL1, "CLRBHB", 28, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64ISAR2_EL1, "BC", 20, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64ISAR2_EL1, "MOPS", 16, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD_IF(ID_AA64ISAR2_EL1, "APA3", 12, 4, U, EXACT, 0x0, ARM64_PTR_AUTH, STRICT, WHY_PAC),
	FLD_IF(ID_AA64ISAR2_EL1, "GPA3", 8, 4, U, LOWER, 0x0, ARM64_PTR_AUTH, STRICT, NULL),
	FLD(ID_AA64ISAR2_EL1, "RPRES", 4, 4, U, LOWER, 0x0, VIS, NONSTRICT, NULL),
	FLD(ID_AA64ISAR2_EL1, "WFxT", 0, 4, U, LOWER, 0x0, VIS, NONSTRICT, NULL),

	/* DDI 0487 M.a.a, D24.2.87 ID_AA64ISAR3_EL1 */
	FLD(ID_AA64ISAR3_EL1, "FPRCVT", 28, 4, U, LOWER, 0x0, VIS, NONSTRICT, NULL),
	FLD(ID_AA64ISAR3_EL1, "LSUI", 24, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),
	FLD(ID_AA64ISAR3_EL1, "LSFE", 16, 4, U, LOWER, 0x0, VIS, NONSTRICT, NULL),
	FLD(ID_AA64ISAR3_EL1, "FAMINMAX", 4, 4, U, LOWER, 0x0, VIS, NONSTRICT, NULL),

	/* DDI 0487 M.a.a, D24.2.88 ID_AA64MMFR0_EL1 */
	FLD(ID_AA64MMFR0_EL1, "ECV", 60, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64MMFR0_EL1, "FGT", 56, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR0_EL1, "EXS", 44, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR0_EL1, "TGran4_2", 40, 4, U, EXACT, 0x1, HID, NONSTRICT, WHY_TGRAN2),
	FLD(ID_AA64MMFR0_EL1, "TGran64_2", 36, 4, U, EXACT, 0x1, HID, NONSTRICT, WHY_TGRAN2),
	FLD(ID_AA64MMFR0_EL1, "TGran16_2", 32, 4, U, EXACT, 0x1, HID, NONSTRICT, WHY_TGRAN2),
	FLD(ID_AA64MMFR0_EL1, "TGran4", 28, 4, S, LOWER, 0xf, HID, NONSTRICT, NULL),
	FLD(ID_AA64MMFR0_EL1, "TGran64", 24, 4, S, LOWER, 0xf, HID, NONSTRICT, NULL),
	FLD(ID_AA64MMFR0_EL1, "TGran16", 20, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),
	FLD(ID_AA64MMFR0_EL1, "BigEndEL0", 16, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR0_EL1, "SNSMem", 12, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),
	FLD(ID_AA64MMFR0_EL1, "BigEnd", 8, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR0_EL1, "ASIDBits", 4, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR0_EL1, "PARange", 0, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),

	/* DDI 0487 M.a.a, D24.2.89 ID_AA64MMFR1_EL1 */
	FLD(ID_AA64MMFR1_EL1, "ECBHB", 60, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR1_EL1, "TIDCP1", 52, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),
	FLD(ID_AA64MMFR1_EL1, "AFP", 44, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64MMFR1_EL1, "HCX", 40, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR1_EL1, "ETS", 36, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR1_EL1, "TWED", 32, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR1_EL1, "XNX", 28, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR1_EL1, "SpecSEI", 24, 4, U, HIGHER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR1_EL1, "PAN", 20, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR1_EL1, "LO", 16, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR1_EL1, "HPDS", 12, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR1_EL1, "VH", 8, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR1_EL1, "VMIDBits", 4, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR1_EL1, "HAFDBS", 0, 4, U, LOWER, 0x0, HID, STRICT, NULL),

	/* DDI 0487 M.a.a, D24.2.90 ID_AA64MMFR2_EL1 */
	FLD(ID_AA64MMFR2_EL1, "E0PD", 60, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),
	FLD(ID_AA64MMFR2_EL1, "EVT", 56, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR2_EL1, "BBM", 52, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR2_EL1, "TTL", 48, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR2_EL1, "FWB", 40, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR2_EL1, "IDS", 36, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR2_EL1, "AT", 32, 4, U, LOWER, 0x0, VIS, STRICT, NULL),
	FLD(ID_AA64MMFR2_EL1, "ST", 28, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR2_EL1, "NV", 24, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR2_EL1, "CCIDX", 20, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR2_EL1, "VARange", 16, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR2_EL1, "IESB", 12, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),
	FLD(ID_AA64MMFR2_EL1, "LSM", 8, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR2_EL1, "UAO", 4, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR2_EL1, "CnP", 0, 4, U, LOWER, 0x0, HID, STRICT, NULL),

	/* DDI 0487 M.a.a, D24.2.91 ID_AA64MMFR3_EL1 */
	FLD_IF(ID_AA64MMFR3_EL1, "S1POE", 16, 4, U, LOWER, 0x0, ARM64_POE, NONSTRICT, NULL),
	FLD(ID_AA64MMFR3_EL1, "S1PIE", 8, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),
	FLD(ID_AA64MMFR3_EL1, "SCTLRX", 4, 4, U, LOWER, 0x0, HID, STRICT, NULL),
	FLD(ID_AA64MMFR3_EL1, "TCRX", 0, 4, U, LOWER, 0x0, HID, NONSTRICT, NULL),

	/* DDI 0487 M.a.a, D24.2.92 ID_AA64MMFR4_EL1 */
	FLD(ID_AA64MMFR4_EL1, "E2H0", 24, 4, S, LOWER, 0x0, HID, STRICT, WHY_HID_IMP),
	FLD(ID_AA64MMFR4_EL1, "NV_frac", 20, 4, U, LOWER, 0x0, HID, STRICT, NULL),

	/* DDI 0487 M.a.a, D24.2.83 ID_AA64FPFR0_EL1 */
	FLD(ID_AA64FPFR0_EL1, "F8CVT", 31, 1, U, EXACT, 0x0, VIS, STRICT, WHY_FPFR),
	FLD(ID_AA64FPFR0_EL1, "F8FMA", 30, 1, U, EXACT, 0x0, VIS, STRICT, WHY_FPFR),
	FLD(ID_AA64FPFR0_EL1, "F8DP4", 29, 1, U, EXACT, 0x0, VIS, STRICT, WHY_FPFR),
	FLD(ID_AA64FPFR0_EL1, "F8DP2", 28, 1, U, EXACT, 0x0, VIS, STRICT, WHY_FPFR),
	FLD(ID_AA64FPFR0_EL1, "F8MM8", 27, 1, U, EXACT, 0x0, VIS, STRICT, WHY_FPFR),
	FLD(ID_AA64FPFR0_EL1, "F8MM4", 26, 1, U, EXACT, 0x0, VIS, STRICT, WHY_FPFR),
	FLD(ID_AA64FPFR0_EL1, "F16MM2", 15, 1, U, EXACT, 0x0, VIS, STRICT, WHY_FPFR_NOT_MAA),
	FLD(ID_AA64FPFR0_EL1, "F8E4M3", 1, 1, U, EXACT, 0x0, VIS, STRICT, WHY_FPFR),
	FLD(ID_AA64FPFR0_EL1, "F8E5M2", 0, 1, U, EXACT, 0x0, VIS, STRICT, WHY_FPFR),
};

/* The registers of fld_rows[]: each field they describe needs a row. */
struct fld_reg {
	u32 sys_id;
	const char *name;
};

#define FLD_REG(reg)	{ SYS_##reg, #reg }

static const struct fld_reg fld_regs[] = {
	FLD_REG(CTR_EL0),
	FLD_REG(ID_AA64PFR0_EL1),
	FLD_REG(ID_AA64PFR1_EL1),
	FLD_REG(ID_AA64PFR2_EL1),
	FLD_REG(ID_AA64ZFR0_EL1),
	FLD_REG(ID_AA64SMFR0_EL1),
	FLD_REG(ID_AA64DFR0_EL1),
	FLD_REG(ID_AA64ISAR0_EL1),
	FLD_REG(ID_AA64ISAR1_EL1),
	FLD_REG(ID_AA64ISAR2_EL1),
	FLD_REG(ID_AA64ISAR3_EL1),
	FLD_REG(ID_AA64MMFR0_EL1),
	FLD_REG(ID_AA64MMFR1_EL1),
	FLD_REG(ID_AA64MMFR2_EL1),
	FLD_REG(ID_AA64MMFR3_EL1),
	FLD_REG(ID_AA64MMFR4_EL1),
	FLD_REG(ID_AA64FPFR0_EL1),
};

static void fld_row_desc(const struct fld_row *row, char *desc)
{
	strscpy(desc, row->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fld, fld_rows, fld_row_desc);

static void fld_reg_desc(const struct fld_reg *reg, char *desc)
{
	strscpy(desc, reg->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fld_reg, fld_regs, fld_reg_desc);

/* The kernel's description of the field at bit @shift of @sys_id. */
static const struct arm64_ftr_bits *fld_ftr_bits(u32 sys_id, unsigned int shift)
{
	struct arm64_ftr_reg *reg = get_arm64_ftr_reg_nowarn(sys_id);
	const struct arm64_ftr_bits *ftrp;

	if (!reg)
		return NULL;
	for (ftrp = reg->ftr_bits; ftrp->width; ftrp++)
		if (ftrp->shift == shift)
			return ftrp;
	return NULL;
}

static const enum ftr_type fld_ftr_type[] = {
	[FLD_LOWER] = FTR_LOWER_SAFE,
	[FLD_HIGHER] = FTR_HIGHER_SAFE,
	[FLD_EXACT] = FTR_EXACT,
	[FLD_HOZ] = FTR_HIGHER_OR_ZERO_SAFE,
};

static const char *fld_ftr_type_name(enum ftr_type type)
{
	switch (type) {
	case FTR_EXACT:
		return "exact";
	case FTR_LOWER_SAFE:
		return "lower safe";
	case FTR_HIGHER_SAFE:
		return "higher safe";
	case FTR_HIGHER_OR_ZERO_SAFE:
		return "higher or zero safe";
	}
	return "unknown";
}

/* Whether anything reads the row's safe value: an exact or hidden field. */
static bool fld_safe_read(const struct fld_row *row)
{
	return row->rule == FLD_EXACT || !row->visible;
}

/* The field's top bit. */
static int fld_hi(const struct fld_row *row)
{
	return row->shift + row->width - 1;
}

/* "; not the Arm ARM's: WHY", or nothing. */
static const char *fld_why_sep(const struct fld_row *row)
{
	return row->why ? "; not the Arm ARM's: " : "";
}

/*
 * Each row of fld_rows[] against the kernel's description of the field:
 * position, width, sign, rule, visibility, strictness (the kernel's
 * choice, as recorded), and the safe value where anything reads it.
 */
static void arm64_ftr_bits_field_per_arm_arm(struct kunit *test)
{
	const struct fld_row *row = test->param_value;
	const struct arm64_ftr_bits *ftrp = fld_ftr_bits(row->sys_id, row->shift);
	u64 mask = GENMASK_ULL(row->width - 1, 0);

	KUNIT_ASSERT_TRUE_MSG(test, ftrp,
			      "%s [%d:%d]: arm64_ftr_regs[] describes no field at bit %d",
			      row->name, fld_hi(row), row->shift, row->shift);
	KUNIT_EXPECT_EQ_MSG(test, ftrp->width, row->width,
			    "%s [%d:%d]: described %d bits wide, want %d",
			    row->name, fld_hi(row), row->shift, ftrp->width, row->width);
	KUNIT_EXPECT_EQ_MSG(test, ftrp->sign, row->sign,
			    "%s [%d:%d]: described %s, want %s (D24.1.3: 0b1111 = not implemented)",
			    row->name, fld_hi(row), row->shift,
			    ftrp->sign ? "signed" : "unsigned", row->sign ? "signed" : "unsigned");
	KUNIT_EXPECT_EQ_MSG(test, ftrp->type, fld_ftr_type[row->rule],
			    "%s [%d:%d]: described %s, want %s%s%s",
			    row->name, fld_hi(row), row->shift, fld_ftr_type_name(ftrp->type),
			    fld_rule_name[row->rule], fld_why_sep(row), row->why ?: "");
	KUNIT_EXPECT_EQ_MSG(test, ftrp->visible, row->visible,
			    "%s [%d:%d]: described %s, want %s (the ABI document%s%s)",
			    row->name, fld_hi(row), row->shift,
			    ftrp->visible ? "visible" : "hidden",
			    row->visible ? "visible" : "hidden",
			    row->config ? "; visible only with " : "", row->config ?: "");
	KUNIT_EXPECT_EQ_MSG(test, ftrp->strict, row->strict,
			    "%s [%d:%d]: described %s, the table records %s (a kernel choice: change the row with it)",
			    row->name, fld_hi(row), row->shift,
			    ftrp->strict ? "strict" : "non-strict",
			    row->strict ? "strict" : "non-strict");
	if (!fld_safe_read(row))
		return;
	KUNIT_ASSERT_NE_MSG(test, row->safe, FLD_NONE,
			    "%s: exact or hidden, the row needs a safe value", row->name);
	KUNIT_EXPECT_EQ_MSG(test, (u64)ftrp->safe_val & mask, (u64)row->safe,
			    "%s [%d:%d], %s, %s: safe value %#llx, want %#x%s%s",
			    row->name, fld_hi(row), row->shift, fld_rule_name[row->rule],
			    row->visible ? "visible" : "hidden", (u64)ftrp->safe_val, row->safe,
			    fld_why_sep(row), row->why ?: "");
}

/*
 * Every field the kernel describes in a register of fld_regs[] has a row
 * in fld_rows[]: a field added to arm64_ftr_bits is checked against the
 * Arm ARM before it passes.
 */
static void arm64_ftr_bits_every_field_in_table(struct kunit *test)
{
	const struct fld_reg *reg = test->param_value;
	struct arm64_ftr_reg *live = get_arm64_ftr_reg_nowarn(reg->sys_id);
	const struct arm64_ftr_bits *ftrp;
	size_t i;

	KUNIT_ASSERT_TRUE_MSG(test, live, "%s: no arm64_ftr_regs[] entry", reg->name);
	for (ftrp = live->ftr_bits; ftrp->width; ftrp++) {
		bool found = false;

		for (i = 0; i < ARRAY_SIZE(fld_rows); i++)
			if (fld_rows[i].sys_id == reg->sys_id &&
			    fld_rows[i].shift == ftrp->shift)
				found = true;
		KUNIT_EXPECT_TRUE_MSG(test, found,
				      "%s [%d:%d]: described (%s, %s, %s), but fld_rows[] has no row: check it against the Arm ARM and add one",
				      reg->name, ftrp->shift + ftrp->width - 1, ftrp->shift,
				      ftrp->sign ? "signed" : "unsigned",
				      fld_ftr_type_name(ftrp->type),
				      ftrp->visible ? "visible" : "hidden");
	}
}

/*
 * Two CPUs that differ in one field of a real register, and nowhere else:
 * the register, with its own description, is lent inside stop_machine()
 * a state of the case's own (no override), started from the boot CPU's
 * value by init_cpu_ftr_reg(), CPU1's folded in by
 * check_update_ftr_reg(), read as an EL0 MRS reads it through
 * emulate_sys_reg(), and given back as it was. Two pairs of values a
 * field, in either order and either sign of the top bit, so that each
 * rule gives a value of its own: a 4-bit field 0b0001 and 0b1111, 0b0000
 * and 0b0010; a 2-bit one 0b01 and 0b11, 0b11 and 0b10; a bit 0 and 1,
 * 1 and 0.
 */
#define FLD_PAIRS	2

struct fld_call {
	const struct fld_row *row;
	u64 boot[FLD_PAIRS], val[FLD_PAIRS];	/* in: whole registers */
	u64 sys[FLD_PAIRS], el0[FLD_PAIRS];	/* out: sanitised, EL0's view */
	int ret[FLD_PAIRS], el0_ret[FLD_PAIRS];
	bool found;
};

static int fld_call_fn(void *data)
{
	struct fld_call *call = data;
	u32 sys_id = call->row->sys_id;
	struct arm64_ftr_reg *live = get_arm64_ftr_reg_nowarn(sys_id);
	struct arm64_ftr_override none = { };
	struct arm64_ftr_reg saved;
	int i;

	call->found = live;
	if (!live)
		return 0;
	saved = *live;
	for (i = 0; i < FLD_PAIRS; i++) {
		live->override = &none;
		live->user_val = 0;
		init_cpu_ftr_reg(sys_id, call->boot[i]);
		call->ret[i] = check_update_ftr_reg(sys_id, 1, call->val[i], call->boot[i]);
		call->sys[i] = live->sys_val;
		call->el0_ret[i] = emulate_sys_reg(sys_id, &call->el0[i]);
	}
	*live = saved;
	return 0;
}

static void fld_pair(const struct fld_row *row, int i, u64 *a, u64 *b)
{
	static const u8 pairs[][FLD_PAIRS][2] = {
		[1] = { { 0x0, 0x1 }, { 0x1, 0x0 } },
		[2] = { { 0x1, 0x3 }, { 0x3, 0x2 } },
		[4] = { { 0x1, 0xf }, { 0x0, 0x2 } },
	};

	*a = pairs[row->width][i][0];
	*b = pairs[row->width][i][1];
}

/* The table's rule on two values of the row's field. */
static u64 fld_want(const struct fld_row *row, u64 a, u64 b)
{
	u64 mask = GENMASK_ULL(row->width - 1, 0);
	s64 x = row->sign ? sign_extend64(a, row->width - 1) : (s64)a;
	s64 y = row->sign ? sign_extend64(b, row->width - 1) : (s64)b;

	if (a == b)
		return a;
	switch (row->rule) {
	case FLD_LOWER:
		return min(x, y) & mask;
	case FLD_HIGHER:
		return max(x, y) & mask;
	case FLD_HOZ:
		return a && b ? max(x, y) & mask : 0;
	case FLD_EXACT:
		return row->safe;
	}
	return 0;
}

/*
 * Each row of fld_rows[], both pairs: the sanitised register holds the
 * table's rule's value in the field and nothing elsewhere; the verdict
 * says a strict field differed exactly when the row is strict; an EL0 MRS
 * reads the sanitised field if the field is visible, its safe value if
 * hidden. CTR_EL0 is no register emulate_sys_reg() emulates (EL0 reads it
 * itself, or through ctr_read_handler(), which gives the sanitised
 * value): for it the EL0 view is not checked.
 */
static void check_update_ftr_reg_field_per_arm_arm(struct kunit *test)
{
	const struct fld_row *row = test->param_value;
	struct fld_call call = { .row = row };
	u64 a[FLD_PAIRS], b[FLD_PAIRS];
	int i;

	KUNIT_ASSERT_TRUE_MSG(test, row->width == 1 || row->width == 2 || row->width == 4,
			      "%s: a %d-bit field, no pairs for it", row->name, row->width);
	if (row->rule == FLD_EXACT || !row->visible)
		KUNIT_ASSERT_NE_MSG(test, row->safe, FLD_NONE,
				    "%s: exact or hidden, the row needs a safe value", row->name);
	for (i = 0; i < FLD_PAIRS; i++) {
		fld_pair(row, i, &a[i], &b[i]);
		call.boot[i] = a[i] << row->shift;
		call.val[i] = b[i] << row->shift;
	}

	KUNIT_ASSERT_EQ(test, stop_machine(fld_call_fn, &call, NULL), 0);
	KUNIT_ASSERT_TRUE_MSG(test, call.found, "%s: no arm64_ftr_regs[] entry", row->name);

	for (i = 0; i < FLD_PAIRS; i++) {
		u64 want = fld_want(row, a[i], b[i]);
		u64 el0_want = row->visible ? want : row->safe;
		u64 el0_field = (call.el0[i] >> row->shift) & GENMASK_ULL(row->width - 1, 0);

		KUNIT_EXPECT_EQ_MSG(test, call.sys[i], want << row->shift,
				    "%s [%d:%d], %s %s: boot CPU %#llx, CPU1 %#llx: sanitised %#018llx, want %#018llx%s%s",
				    row->name, fld_hi(row), row->shift,
				    row->sign ? "signed" : "unsigned", fld_rule_name[row->rule],
				    a[i], b[i], call.sys[i], want << row->shift, fld_why_sep(row),
				    row->why ?: "");
		KUNIT_EXPECT_EQ_MSG(test, call.ret[i], row->strict ? 1 : 0,
				    "%s [%d:%d], %s: boot CPU %#llx, CPU1 %#llx: verdict %d, want %d (1: a strict field differs)",
				    row->name, fld_hi(row), row->shift,
				    row->strict ? "strict" : "non-strict", a[i], b[i], call.ret[i],
				    row->strict ? 1 : 0);
		if (row->sys_id == SYS_CTR_EL0)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, call.el0_ret[i], 0,
				    "%s: emulate_sys_reg() %d, want an emulated EL0 MRS",
				    row->name, call.el0_ret[i]);
		KUNIT_EXPECT_EQ_MSG(test, el0_field, el0_want,
				    "%s [%d:%d], %s (config: %s): boot CPU %#llx, CPU1 %#llx, sanitised %#018llx: an EL0 MRS reads %#018llx, want the field %#llx",
				    row->name, fld_hi(row), row->shift,
				    row->visible ? "visible" : "hidden", row->config ?: "any",
				    a[i], b[i], call.sys[i], call.el0[i], el0_want);
	}
}

/*
 * The idreg overrides the kernel booted with, on this system's real
 * registers: what init_cpu_ftr_reg() made of each, as every reader of the
 * register sees it. What to expect comes from the command line and from
 * the Arm ARM (field positions and values: DDI 0487 M.a.a, D24.2.86
 * ID_AA64ISAR2_EL1, D24.2.90 ID_AA64MMFR2_EL1, D24.2.94 ID_AA64PFR1_EL1);
 * without the override on the command line a case skips. The cases need
 * a CPU with FEAT_BTI, FEAT_MOPS and FEAT_LVA but not FEAT_PACQARMA3
 * (QEMU's "max,pauth-impdef=on") booted with
 *
 *   arm64.nobti arm64.nomops id_aa64isar2.gpa3=1 id_aa64mmfr2.varange=1
 *
 * for instance ./tools/testing/kunit/kunit.py run --arch=arm64
 * --kernel_args="arm64.nobti arm64.nomops id_aa64isar2.gpa3=1
 * id_aa64mmfr2.varange=1" --qemu_args="-cpu max,pauth-impdef=on"
 * arm64_cpufeature_sanitise.
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

static struct kunit_case arm64_cpufeature_sanitise_cases[] = {
	KUNIT_CASE(init_cpu_ftr_reg_keeps_described_fields),
	KUNIT_CASE_PARAM(init_cpu_ftr_reg_by_override, san_override_gen_params),
	KUNIT_CASE_PARAM(check_update_ftr_reg_by_rule, san_update_gen_params),
	KUNIT_CASE_PARAM(update_cpu_features_folds_every_register, san_fold_gen_params),
	KUNIT_CASE_PARAM(update_cpu_features_one_strict_difference, san_folded_gen_params),
	KUNIT_CASE_PARAM(init_cpu_ftr_reg_option_lowers_field, ovr_lower_gen_params),
	KUNIT_CASE(init_cpu_ftr_reg_gpa3_above_cpu_refused),
	KUNIT_CASE(init_cpu_ftr_reg_varange_filtered_dropped),
	KUNIT_CASE_PARAM(arm64_ftr_bits_field_per_arm_arm, fld_gen_params),
	KUNIT_CASE_PARAM(arm64_ftr_bits_every_field_in_table, fld_reg_gen_params),
	KUNIT_CASE_PARAM(check_update_ftr_reg_field_per_arm_arm, fld_gen_params),
	KUNIT_CASE(arch_uaccess_mops_path_by_cpu_and_override),
	{}
};

static struct kunit_suite arm64_cpufeature_sanitise_suite = {
	.name = "arm64_cpufeature_sanitise",
	.test_cases = arm64_cpufeature_sanitise_cases,
};

kunit_test_suite(arm64_cpufeature_sanitise_suite);

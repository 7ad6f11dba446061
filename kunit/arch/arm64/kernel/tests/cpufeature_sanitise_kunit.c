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
 * the feature is not implemented). What each rule must make of two values
 * is the case's own arithmetic on its own description, not the kernel's
 * helpers.
 */

#include <kunit/test.h>
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

static struct kunit_case arm64_cpufeature_sanitise_cases[] = {
	KUNIT_CASE(init_cpu_ftr_reg_keeps_described_fields),
	KUNIT_CASE_PARAM(init_cpu_ftr_reg_by_override, san_override_gen_params),
	KUNIT_CASE_PARAM(check_update_ftr_reg_by_rule, san_update_gen_params),
	KUNIT_CASE_PARAM(update_cpu_features_folds_every_register, san_fold_gen_params),
	KUNIT_CASE_PARAM(update_cpu_features_one_strict_difference, san_folded_gen_params),
	{}
};

static struct kunit_suite arm64_cpufeature_sanitise_suite = {
	.name = "arm64_cpufeature_sanitise",
	.test_cases = arm64_cpufeature_sanitise_cases,
};

kunit_test_suite(arm64_cpufeature_sanitise_suite);

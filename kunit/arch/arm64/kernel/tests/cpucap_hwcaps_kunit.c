// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the hwcap rows of cpufeature.c against the Arm ARM: every
 * row of arm64_elf_hwcaps[] and compat_elf_hwcaps[] reads the ID register
 * field, and asks for the minimum value of it, that the Arm ARM gives for
 * the feature the hwcap reports to user space.
 *
 * This file is #included at the end of cpufeature.c so that it can reach
 * those static tables and their static matchers.
 *
 * The expected values are written out below from the Arm ARM, DDI 0487
 * M.a.a, one row per hwcap: the register (its op0, op1, CRn, CRm, op2),
 * the field's lowest bit and width, its sign, and the lowest value of the
 * field that means the feature, which a CPU has when its field holds that
 * value or a higher one (D24.1.3, "Principles of the ID scheme for fields
 * in ID registers"; for ID_AA64SMFR0_EL1 and ID_AA64FPFR0_EL1, whose 1-bit
 * fields read 0b1 when the feature is there and whose 4-bit fields hold
 * one value that does, D24.1.3.4). Of the fields read here, only
 * ID_AA64PFR0_EL1.FP and AdvSIMD are signed (0b0000 implemented, 0b1111
 * not). None of it comes from the kernel's field macros. The registers and
 * the sections of their field tables:
 *
 *   ID_AA64FPFR0_EL1  D24.2.83  S3_0_C0_C4_7   ID_AA64PFR0_EL1   D24.2.93  S3_0_C0_C4_0
 *   ID_AA64ISAR0_EL1  D24.2.84  S3_0_C0_C6_0   ID_AA64PFR1_EL1   D24.2.94  S3_0_C0_C4_1
 *   ID_AA64ISAR1_EL1  D24.2.85  S3_0_C0_C6_1   ID_AA64PFR2_EL1   D24.2.95  S3_0_C0_C4_2
 *   ID_AA64ISAR2_EL1  D24.2.86  S3_0_C0_C6_2   ID_AA64SMFR0_EL1  D24.2.96  S3_0_C0_C4_5
 *   ID_AA64ISAR3_EL1  D24.2.87  S3_0_C0_C6_3   ID_AA64ZFR0_EL1   D24.2.97  S3_0_C0_C4_4
 *   ID_AA64MMFR0_EL1  D24.2.88  S3_0_C0_C7_0   ID_ISAR5_EL1      D24.2.106 S3_0_C0_C2_5
 *   ID_AA64MMFR1_EL1  D24.2.89  S3_0_C0_C7_1   ID_ISAR6_EL1      D24.2.107 S3_0_C0_C2_7
 *   ID_AA64MMFR2_EL1  D24.2.90  S3_0_C0_C7_2   ID_PFR2_EL1       D24.2.116 S3_0_C0_C3_4
 *   ID_AA64MMFR3_EL1  D24.2.91  S3_0_C0_C7_3   MVFR0_EL1         D24.2.139 S3_0_C0_C3_0
 *                                              MVFR1_EL1         D24.2.140 S3_0_C0_C3_1
 *
 * Each row is a parameter of its own, named by the hwcap user space sees
 * ("HWCAP2_SVE2P1", "COMPAT_HWCAP2_AES"): the kernel's row for that hwcap
 * must be the only one, be matched the way the row below says, and read
 * that register, bit, width and sign with that minimum. Another case
 * checks the other way: a kernel row with no row here fails, named.
 *
 * Where the Arm ARM does not settle a row, the kernel's choice is checked
 * as the kernel documents it, and a failure says which choice and why:
 *  - HWCAP_AFTER_MAA: a value of an Armv9.7 feature that M.a.a does not
 *    list yet (its field's table stops below it): the value of
 *    Documentation/arch/arm64/elf_hwcaps.rst;
 *  - HWCAP_ARMARM_SVE and _SME: also gated on the kernel using SVE or SME
 *    (has_sve_feature(), has_sme_feature()): the kernel does not report
 *    an extension of SVE or SME it does not let user space use;
 *  - HWCAP_ARMARM_ANY: PACA and PACG, one of the three pointer
 *    authentication algorithms (FEAT_PAuth, A2.2): a list of rows;
 *  - COMPAT_ARMARM_NEON: no one field means "NEON": compat_has_neon()
 *    asks for MVFR1_EL1.SIMDSP, SIMDInt and SIMDLS, as arch/arm's
 *    vfp_init() does;
 *  - COMPAT_ARMARM_VFP: no one field means "VFP": MVFR0_EL1.FPDP >= 0b0010
 *    stands for it, as Armv8 allows FPDP 0b0000 and 0b0010 only.
 * A row the kernel builds only with a config option off (an #ifdef in the
 * table) is skipped, the option named; without CONFIG_COMPAT, which the
 * kunitconfig leaves off, compat_elf_hwcaps[] has no rows.
 */

#include <kunit/test.h>

/* The registers, from their encodings in the Arm ARM (see above) */
#define HWCAPS_ID_AA64FPFR0_EL1		sys_reg(3, 0, 0, 4, 7)
#define HWCAPS_ID_AA64ISAR0_EL1		sys_reg(3, 0, 0, 6, 0)
#define HWCAPS_ID_AA64ISAR1_EL1		sys_reg(3, 0, 0, 6, 1)
#define HWCAPS_ID_AA64ISAR2_EL1		sys_reg(3, 0, 0, 6, 2)
#define HWCAPS_ID_AA64ISAR3_EL1		sys_reg(3, 0, 0, 6, 3)
#define HWCAPS_ID_AA64MMFR0_EL1		sys_reg(3, 0, 0, 7, 0)
#define HWCAPS_ID_AA64MMFR1_EL1		sys_reg(3, 0, 0, 7, 1)
#define HWCAPS_ID_AA64MMFR2_EL1		sys_reg(3, 0, 0, 7, 2)
#define HWCAPS_ID_AA64MMFR3_EL1		sys_reg(3, 0, 0, 7, 3)
#define HWCAPS_ID_AA64PFR0_EL1		sys_reg(3, 0, 0, 4, 0)
#define HWCAPS_ID_AA64PFR1_EL1		sys_reg(3, 0, 0, 4, 1)
#define HWCAPS_ID_AA64PFR2_EL1		sys_reg(3, 0, 0, 4, 2)
#define HWCAPS_ID_AA64SMFR0_EL1		sys_reg(3, 0, 0, 4, 5)
#define HWCAPS_ID_AA64ZFR0_EL1		sys_reg(3, 0, 0, 4, 4)
#define HWCAPS_ID_ISAR5_EL1		sys_reg(3, 0, 0, 2, 5)
#define HWCAPS_ID_ISAR6_EL1		sys_reg(3, 0, 0, 2, 7)
#define HWCAPS_ID_PFR2_EL1		sys_reg(3, 0, 0, 3, 4)
#define HWCAPS_MVFR0_EL1		sys_reg(3, 0, 0, 3, 0)
#define HWCAPS_MVFR1_EL1		sys_reg(3, 0, 0, 3, 1)

/*
 * The hwcap types of compat_elf_hwcaps[], which <asm/hwcap.h> defines with
 * CONFIG_COMPAT only: without it, two values no row has, so that each
 * compat row is still a case of its own, skipped as there is no row.
 */
#ifdef CONFIG_COMPAT
#define HWCAPS_COMPAT_HWCAP	CAP_COMPAT_HWCAP
#define HWCAPS_COMPAT_HWCAP2	CAP_COMPAT_HWCAP2
#else
#define HWCAPS_COMPAT_HWCAP	0xfe
#define HWCAPS_COMPAT_HWCAP2	0xff
#endif

/* The type of a row's matches() */
typedef bool (*hwcaps_matches_fn)(const struct arm64_cpu_capabilities *cap, int scope);

/* How the kernel's row for a hwcap is to be matched */
enum hwcaps_match {
	HWCAPS_PLAIN,	/* has_user_cpuid_feature(), on the field */
	HWCAPS_SVE,	/* has_sve_feature(): the field, and the kernel uses SVE */
	HWCAPS_SME,	/* has_sme_feature(): the field, and the kernel uses SME */
	HWCAPS_ANY,	/* cpucap_multi_entry_cap_matches(): any of the fields */
	HWCAPS_NEON,	/* compat_has_neon(): all of the fields */
};

/* A field of an ID register and the lowest value that means the feature */
struct hwcaps_field {
	const char *reg_name;
	u32 sys_reg;
	u8 lsb;
	u8 width;
	u8 min;
	bool sign;
};

#define HWCAPS_MAX_FIELDS	3

struct hwcaps_row {
	const char *name;	/* after HWCAP{,2,3}_ or COMPAT_HWCAP{,2}_ */
	u8 hwcap_type;
	unsigned long hwcap;
	bool built;		/* the config option the kernel's row needs is on */
	const char *config;
	enum hwcaps_match match;
	int nr_fields;
	struct hwcaps_field fields[HWCAPS_MAX_FIELDS];
	const char *choice;	/* why the row is a kernel choice, or NULL */
};

#define HWCAPS_FIELD(reg, l, w, m)						\
	{ .reg_name = #reg, .sys_reg = HWCAPS_##reg, .lsb = l, .width = w, .min = m }

/*
 * The register comes in as its name and its encoding, made by the caller
 * from the token: a register whose name is also a macro is not expanded.
 */
#define __HWCAPS_ROW(type, hw, nm, on, cfg, how, s, rn, sr, l, w, m, why)	\
	{									\
		.name = nm, .hwcap_type = type, .hwcap = hw,			\
		.built = on, .config = cfg, .match = how, .nr_fields = 1,	\
		.fields = { { .reg_name = rn, .sys_reg = sr,			\
			      .lsb = l, .width = w, .min = m, .sign = s } },	\
		.choice = why,							\
	}

#define HWCAPS_WHY_SVE	"has_sve_feature(): reported only when the kernel uses SVE"
#define HWCAPS_WHY_SME	"has_sme_feature(): reported only when the kernel uses SME"
#define HWCAPS_CFG_SVE	CONFIG_ARM64_SVE
#define HWCAPS_CFG_SME	CONFIG_ARM64_SME
#define HWCAPS_CFG_PLAIN	CONFIG_ARM64
#define HWCAPS_CFGNAME_SVE	"CONFIG_ARM64_SVE"
#define HWCAPS_CFGNAME_SME	"CONFIG_ARM64_SME"
#define HWCAPS_CFGNAME_PLAIN	"CONFIG_ARM64"
#define HWCAPS_WHY_AFTER_MAA							\
	"an Armv9.7 value DDI 0487 M.a.a does not list: that of elf_hwcaps.rst"

/* An unsigned field of a row of arm64_elf_hwcaps[] */
#define HWCAP_ARMARM(nm, reg, l, w, m)						\
	__HWCAPS_ROW(CAP_HWCAP, KERNEL_HWCAP_##nm, #nm, true, NULL,		\
		     HWCAPS_PLAIN, false, #reg, HWCAPS_##reg, l, w, m, NULL)
/* A signed one */
#define HWCAP_ARMARM_SIGNED(nm, reg, l, w, m)					\
	__HWCAPS_ROW(CAP_HWCAP, KERNEL_HWCAP_##nm, #nm, true, NULL,		\
		     HWCAPS_PLAIN, true, #reg, HWCAPS_##reg, l, w, m, NULL)
/*
 * An unsigned one, whose row the kernel builds with config option @cfg, a
 * bool: IS_BUILTIN() is IS_ENABLED()
 */
#define HWCAP_ARMARM_IN(cfg, nm, reg, l, w, m)					\
	__HWCAPS_ROW(CAP_HWCAP, KERNEL_HWCAP_##nm, #nm, IS_BUILTIN(cfg),	\
		     #cfg, HWCAPS_PLAIN, false, #reg, HWCAPS_##reg, l, w, m, NULL)
/* An unsigned one, also gated on the kernel using SVE */
#define HWCAP_ARMARM_SVE(nm, reg, l, w, m)					\
	__HWCAPS_ROW(CAP_HWCAP, KERNEL_HWCAP_##nm, #nm,				\
		     IS_ENABLED(CONFIG_ARM64_SVE), "CONFIG_ARM64_SVE",		\
		     HWCAPS_SVE, false, #reg, HWCAPS_##reg, l, w, m, HWCAPS_WHY_SVE)
/* An unsigned one, also gated on the kernel using SME */
#define HWCAP_ARMARM_SME(nm, reg, l, w, m)					\
	__HWCAPS_ROW(CAP_HWCAP, KERNEL_HWCAP_##nm, #nm,				\
		     IS_ENABLED(CONFIG_ARM64_SME), "CONFIG_ARM64_SME",		\
		     HWCAPS_SME, false, #reg, HWCAPS_##reg, l, w, m, HWCAPS_WHY_SME)
/* An unsigned one (matched as @how says) whose value M.a.a does not give */
#define HWCAP_AFTER_MAA(how, nm, reg, l, w, m)					\
	__HWCAPS_ROW(CAP_HWCAP, KERNEL_HWCAP_##nm, #nm,				\
		     IS_ENABLED(HWCAPS_CFG_##how),				\
		     HWCAPS_CFGNAME_##how, HWCAPS_##how, false,			\
		     #reg, HWCAPS_##reg, l, w, m, HWCAPS_WHY_AFTER_MAA)
/* Any of three fields, through a match_list, built with @cfg */
#define HWCAP_ARMARM_ANY(cfg, nm, f0, f1, f2)					\
	{									\
		.name = #nm, .hwcap_type = CAP_HWCAP,				\
		.hwcap = KERNEL_HWCAP_##nm, .built = IS_BUILTIN(cfg),		\
		.config = #cfg, .match = HWCAPS_ANY, .nr_fields = 3,		\
		.fields = { f0, f1, f2 },					\
		.choice = "one of three algorithms: a match_list, any of its fields", \
	}
/* An unsigned field of a row of compat_elf_hwcaps[], COMPAT_HWCAP_ */
#define COMPAT_ARMARM(nm, reg, l, w, m)						\
	__HWCAPS_ROW(HWCAPS_COMPAT_HWCAP, COMPAT_HWCAP_##nm, #nm,			\
		     IS_ENABLED(CONFIG_COMPAT), "CONFIG_COMPAT",		\
		     HWCAPS_PLAIN, false, #reg, HWCAPS_##reg, l, w, m, NULL)
/*
 * The same, given the whole constant and its name: checkpatch takes a bare
 * VFPv3 for CamelCase, but not COMPAT_HWCAP_VFPv3, the kernel's own name.
 */
#define COMPAT_ARMARM_NAMED(hw, nm, reg, l, w, m)				\
	__HWCAPS_ROW(HWCAPS_COMPAT_HWCAP, hw, nm,				\
		     IS_ENABLED(CONFIG_COMPAT), "CONFIG_COMPAT",		\
		     HWCAPS_PLAIN, false, #reg, HWCAPS_##reg, l, w, m, NULL)
/* The same, COMPAT_HWCAP2_ */
#define COMPAT2_ARMARM(nm, reg, l, w, m)					\
	__HWCAPS_ROW(HWCAPS_COMPAT_HWCAP2, COMPAT_HWCAP2_##nm, #nm,		\
		     IS_ENABLED(CONFIG_COMPAT), "CONFIG_COMPAT",		\
		     HWCAPS_PLAIN, false, #reg, HWCAPS_##reg, l, w, m, NULL)
/* COMPAT_HWCAP_VFP: a field that stands for the feature */
#define COMPAT_ARMARM_VFP(nm, reg, l, w, m)					\
	__HWCAPS_ROW(HWCAPS_COMPAT_HWCAP, COMPAT_HWCAP_##nm, #nm,			\
		     IS_ENABLED(CONFIG_COMPAT), "CONFIG_COMPAT",		\
		     HWCAPS_PLAIN, false, #reg, HWCAPS_##reg, l, w, m,				\
		     "no field means VFP: MVFR0_EL1.FPDP, 0b0000 or 0b0010 in Armv8")
/* COMPAT_HWCAP_NEON: all of three fields, in compat_has_neon() */
#define COMPAT_ARMARM_NEON(nm, f0, f1, f2)					\
	{									\
		.name = #nm, .hwcap_type = HWCAPS_COMPAT_HWCAP,			\
		.hwcap = COMPAT_HWCAP_##nm, .built = IS_ENABLED(CONFIG_COMPAT),	\
		.config = "CONFIG_COMPAT", .match = HWCAPS_NEON, .nr_fields = 3, \
		.fields = { f0, f1, f2 },					\
		.choice = "no field means NEON: compat_has_neon(), MVFR1_EL1 SIMD*", \
	}

static const struct hwcaps_row hwcaps_rows[] = {
	/* arm64_elf_hwcaps[] */
	/* ID_AA64ISAR0.AES >= 0b0010: FEAT_PMULL */
	HWCAP_ARMARM(PMULL, ID_AA64ISAR0_EL1, 4, 4, 0x2),
	HWCAP_ARMARM(AES, ID_AA64ISAR0_EL1, 4, 4, 0x1),	/* ID_AA64ISAR0.AES >= 0b0001: FEAT_AES */
	/* ID_AA64ISAR0.SHA1 >= 0b0001: FEAT_SHA1 */
	HWCAP_ARMARM(SHA1, ID_AA64ISAR0_EL1, 8, 4, 0x1),
	/* ID_AA64ISAR0.SHA2 >= 0b0001: FEAT_SHA256 */
	HWCAP_ARMARM(SHA2, ID_AA64ISAR0_EL1, 12, 4, 0x1),
	/* ID_AA64ISAR0.SHA2 >= 0b0010: FEAT_SHA512 */
	HWCAP_ARMARM(SHA512, ID_AA64ISAR0_EL1, 12, 4, 0x2),
	/* ID_AA64ISAR0.CRC32 >= 0b0001: FEAT_CRC32 */
	HWCAP_ARMARM(CRC32, ID_AA64ISAR0_EL1, 16, 4, 0x1),
	/* ID_AA64ISAR0.Atomic >= 0b0010: FEAT_LSE */
	HWCAP_ARMARM(ATOMICS, ID_AA64ISAR0_EL1, 20, 4, 0x2),
	/* ID_AA64ISAR0.Atomic >= 0b0011: FEAT_LSE128 */
	HWCAP_ARMARM(LSE128, ID_AA64ISAR0_EL1, 20, 4, 0x3),
	/* ID_AA64ISAR0.RDM >= 0b0001: FEAT_RDM */
	HWCAP_ARMARM(ASIMDRDM, ID_AA64ISAR0_EL1, 28, 4, 0x1),
	/* ID_AA64ISAR0.SHA3 >= 0b0001: FEAT_SHA3 */
	HWCAP_ARMARM(SHA3, ID_AA64ISAR0_EL1, 32, 4, 0x1),
	/* ID_AA64ISAR0.SM3 >= 0b0001: FEAT_SM3 */
	HWCAP_ARMARM(SM3, ID_AA64ISAR0_EL1, 36, 4, 0x1),
	/* ID_AA64ISAR0.SM4 >= 0b0001: FEAT_SM4 */
	HWCAP_ARMARM(SM4, ID_AA64ISAR0_EL1, 40, 4, 0x1),
	/* ID_AA64ISAR0.DP >= 0b0001: FEAT_DotProd */
	HWCAP_ARMARM(ASIMDDP, ID_AA64ISAR0_EL1, 44, 4, 0x1),
	/* ID_AA64ISAR0.FHM >= 0b0001: FEAT_FHM */
	HWCAP_ARMARM(ASIMDFHM, ID_AA64ISAR0_EL1, 48, 4, 0x1),
	/* ID_AA64ISAR0.FHM >= 0b0010: FEAT_F16F32DOT */
	HWCAP_AFTER_MAA(PLAIN, F16F32DOT, ID_AA64ISAR0_EL1, 48, 4, 0x2),
	/* ID_AA64ISAR0.FHM >= 0b0011: FEAT_F16F32MM */
	HWCAP_AFTER_MAA(PLAIN, F16F32MM, ID_AA64ISAR0_EL1, 48, 4, 0x3),
	/* ID_AA64ISAR0.TS >= 0b0001: FEAT_FlagM */
	HWCAP_ARMARM(FLAGM, ID_AA64ISAR0_EL1, 52, 4, 0x1),
	/* ID_AA64ISAR0.TS >= 0b0010: FEAT_FlagM2 */
	HWCAP_ARMARM(FLAGM2, ID_AA64ISAR0_EL1, 52, 4, 0x2),
	/* ID_AA64ISAR0.RNDR >= 0b0001: FEAT_RNG */
	HWCAP_ARMARM(RNG, ID_AA64ISAR0_EL1, 60, 4, 0x1),
	/* ID_AA64ISAR3.FPRCVT >= 0b0001: FEAT_FPRCVT */
	HWCAP_ARMARM(FPRCVT, ID_AA64ISAR3_EL1, 28, 4, 0x1),
	/* ID_AA64PFR0.FP >= 0b0000: FEAT_FP */
	HWCAP_ARMARM_SIGNED(FP, ID_AA64PFR0_EL1, 16, 4, 0x0),
	/* ID_AA64PFR0.FP >= 0b0001: FEAT_FP16 */
	HWCAP_ARMARM_SIGNED(FPHP, ID_AA64PFR0_EL1, 16, 4, 0x1),
	/* ID_AA64PFR0.AdvSIMD >= 0b0000: FEAT_AdvSIMD */
	HWCAP_ARMARM_SIGNED(ASIMD, ID_AA64PFR0_EL1, 20, 4, 0x0),
	/* ID_AA64PFR0.AdvSIMD >= 0b0001: FEAT_FP16 */
	HWCAP_ARMARM_SIGNED(ASIMDHP, ID_AA64PFR0_EL1, 20, 4, 0x1),
	HWCAP_ARMARM(DIT, ID_AA64PFR0_EL1, 48, 4, 0x1),	/* ID_AA64PFR0.DIT >= 0b0001: FEAT_DIT */
	/* ID_AA64PFR2.FPMR >= 0b0001: FEAT_FPMR */
	HWCAP_ARMARM(FPMR, ID_AA64PFR2_EL1, 32, 4, 0x1),
	/* ID_AA64ISAR1.DPB >= 0b0001: FEAT_DPB */
	HWCAP_ARMARM(DCPOP, ID_AA64ISAR1_EL1, 0, 4, 0x1),
	/* ID_AA64ISAR1.DPB >= 0b0010: FEAT_DPB2 */
	HWCAP_ARMARM(DCPODP, ID_AA64ISAR1_EL1, 0, 4, 0x2),
	/* ID_AA64ISAR1.JSCVT >= 0b0001: FEAT_JSCVT */
	HWCAP_ARMARM(JSCVT, ID_AA64ISAR1_EL1, 12, 4, 0x1),
	/* ID_AA64ISAR1.FCMA >= 0b0001: FEAT_FCMA */
	HWCAP_ARMARM(FCMA, ID_AA64ISAR1_EL1, 16, 4, 0x1),
	/* ID_AA64ISAR1.LRCPC >= 0b0001: FEAT_LRCPC */
	HWCAP_ARMARM(LRCPC, ID_AA64ISAR1_EL1, 20, 4, 0x1),
	/* ID_AA64ISAR1.LRCPC >= 0b0010: FEAT_LRCPC2 */
	HWCAP_ARMARM(ILRCPC, ID_AA64ISAR1_EL1, 20, 4, 0x2),
	/* ID_AA64ISAR1.LRCPC >= 0b0011: FEAT_LRCPC3 */
	HWCAP_ARMARM(LRCPC3, ID_AA64ISAR1_EL1, 20, 4, 0x3),
	/* ID_AA64ISAR1.FRINTTS >= 0b0001: FEAT_FRINTTS */
	HWCAP_ARMARM(FRINT, ID_AA64ISAR1_EL1, 32, 4, 0x1),
	HWCAP_ARMARM(SB, ID_AA64ISAR1_EL1, 36, 4, 0x1),	/* ID_AA64ISAR1.SB >= 0b0001: FEAT_SB */
	/* ID_AA64ISAR1.BF16 >= 0b0001: FEAT_BF16 */
	HWCAP_ARMARM(BF16, ID_AA64ISAR1_EL1, 44, 4, 0x1),
	/* ID_AA64ISAR1.BF16 >= 0b0010: FEAT_EBF16 */
	HWCAP_ARMARM(EBF16, ID_AA64ISAR1_EL1, 44, 4, 0x2),
	/* ID_AA64ISAR1.DGH >= 0b0001: FEAT_DGH */
	HWCAP_ARMARM(DGH, ID_AA64ISAR1_EL1, 48, 4, 0x1),
	/* ID_AA64ISAR1.I8MM >= 0b0001: FEAT_I8MM */
	HWCAP_ARMARM(I8MM, ID_AA64ISAR1_EL1, 52, 4, 0x1),
	/* ID_AA64ISAR1.LS64 >= 0b0001: FEAT_LS64 */
	HWCAP_ARMARM(LS64, ID_AA64ISAR1_EL1, 60, 4, 0x1),
	/* ID_AA64ISAR2.LUT >= 0b0001: FEAT_LUT */
	HWCAP_ARMARM(LUT, ID_AA64ISAR2_EL1, 56, 4, 0x1),
	/* ID_AA64ISAR3.FAMINMAX >= 0b0001: FEAT_FAMINMAX */
	HWCAP_ARMARM(FAMINMAX, ID_AA64ISAR3_EL1, 4, 4, 0x1),
	/* ID_AA64ISAR3.LSFE >= 0b0001: FEAT_LSFE */
	HWCAP_ARMARM(LSFE, ID_AA64ISAR3_EL1, 16, 4, 0x1),
	/* ID_AA64MMFR2.AT >= 0b0001: FEAT_LSE2 */
	HWCAP_ARMARM(USCAT, ID_AA64MMFR2_EL1, 32, 4, 0x1),
	/* ID_AA64ISAR2.LUT >= 0b0010: FEAT_LUT6? */
	HWCAP_AFTER_MAA(SVE, SVE_LUT6, ID_AA64ISAR2_EL1, 56, 4, 0x2),
	/* ID_AA64PFR0.SVE >= 0b0001: FEAT_SVE */
	HWCAP_ARMARM_IN(CONFIG_ARM64_SVE, SVE, ID_AA64PFR0_EL1, 32, 4, 0x1),
	/* ID_AA64ZFR0.SVEver >= 0b0100: FEAT_SVE2p3 */
	HWCAP_AFTER_MAA(SVE, SVE2P3, ID_AA64ZFR0_EL1, 0, 4, 0x4),
	/* ID_AA64ZFR0.SVEver >= 0b0011: FEAT_SVE2p2 */
	HWCAP_ARMARM_SVE(SVE2P2, ID_AA64ZFR0_EL1, 0, 4, 0x3),
	/* ID_AA64ZFR0.SVEver >= 0b0010: FEAT_SVE2p1 */
	HWCAP_ARMARM_SVE(SVE2P1, ID_AA64ZFR0_EL1, 0, 4, 0x2),
	/* ID_AA64ZFR0.SVEver >= 0b0001: FEAT_SVE2 */
	HWCAP_ARMARM_SVE(SVE2, ID_AA64ZFR0_EL1, 0, 4, 0x1),
	/* ID_AA64ZFR0.AES >= 0b0001: FEAT_SVE_AES */
	HWCAP_ARMARM_SVE(SVEAES, ID_AA64ZFR0_EL1, 4, 4, 0x1),
	/* ID_AA64ZFR0.AES >= 0b0010: FEAT_SVE_PMULL128 */
	HWCAP_ARMARM_SVE(SVEPMULL, ID_AA64ZFR0_EL1, 4, 4, 0x2),
	/* ID_AA64ZFR0.AES >= 0b0011: FEAT_SVE_AES2 */
	HWCAP_ARMARM_SVE(SVE_AES2, ID_AA64ZFR0_EL1, 4, 4, 0x3),
	/* ID_AA64ZFR0.BitPerm >= 0b0001: FEAT_SVE_BitPerm */
	HWCAP_ARMARM_SVE(SVEBITPERM, ID_AA64ZFR0_EL1, 16, 4, 0x1),
	/* ID_AA64ZFR0.B16B16 >= 0b0001: FEAT_SVE_B16B16 */
	HWCAP_ARMARM_SVE(SVE_B16B16, ID_AA64ZFR0_EL1, 24, 4, 0x1),
	/* ID_AA64ZFR0.B16B16 >= 0b0010: FEAT_SVE_BFSCALE */
	HWCAP_ARMARM_SVE(SVE_BFSCALE, ID_AA64ZFR0_EL1, 24, 4, 0x2),
	/* ID_AA64ZFR0.B16B16 >= 0b0011: FEAT_SVE_B16MM */
	HWCAP_AFTER_MAA(SVE, SVE_B16MM, ID_AA64ZFR0_EL1, 24, 4, 0x3),
	/* ID_AA64ZFR0.BF16 >= 0b0001: FEAT_BF16 */
	HWCAP_ARMARM_SVE(SVEBF16, ID_AA64ZFR0_EL1, 20, 4, 0x1),
	/* ID_AA64ZFR0.BF16 >= 0b0010: FEAT_EBF16 */
	HWCAP_ARMARM_SVE(SVE_EBF16, ID_AA64ZFR0_EL1, 20, 4, 0x2),
	/* ID_AA64ZFR0.SHA3 >= 0b0001: FEAT_SVE_SHA3 */
	HWCAP_ARMARM_SVE(SVESHA3, ID_AA64ZFR0_EL1, 32, 4, 0x1),
	/* ID_AA64ZFR0.SM4 >= 0b0001: FEAT_SVE_SM4 */
	HWCAP_ARMARM_SVE(SVESM4, ID_AA64ZFR0_EL1, 40, 4, 0x1),
	/* ID_AA64ZFR0.I8MM >= 0b0001: FEAT_I8MM */
	HWCAP_ARMARM_SVE(SVEI8MM, ID_AA64ZFR0_EL1, 44, 4, 0x1),
	/* ID_AA64ZFR0.F32MM >= 0b0001: FEAT_F32MM */
	HWCAP_ARMARM_SVE(SVEF32MM, ID_AA64ZFR0_EL1, 52, 4, 0x1),
	/* ID_AA64ZFR0.F64MM >= 0b0001: FEAT_F64MM */
	HWCAP_ARMARM_SVE(SVEF64MM, ID_AA64ZFR0_EL1, 56, 4, 0x1),
	/* ID_AA64ZFR0.F16MM >= 0b0001: FEAT_SVE_F16F32MM */
	HWCAP_ARMARM_SVE(SVE_F16MM, ID_AA64ZFR0_EL1, 48, 4, 0x1),
	/* ID_AA64ZFR0.EltPerm >= 0b0001: (FEAT_SVE2p2/FEAT_SME2p2) */
	HWCAP_ARMARM_SVE(SVE_ELTPERM, ID_AA64ZFR0_EL1, 12, 4, 0x1),
	/* ID_AA64PFR1.GCS >= 0b0001: FEAT_GCS */
	HWCAP_ARMARM_IN(CONFIG_ARM64_GCS, GCS, ID_AA64PFR1_EL1, 44, 4, 0x1),
	HWCAP_ARMARM(SSBS, ID_AA64PFR1_EL1, 4, 4, 0x2),	/* ID_AA64PFR1.SSBS >= 0b0010: FEAT_SSBS2 */
	/* ID_AA64PFR1.BT >= 0b0001: FEAT_BTI */
	HWCAP_ARMARM_IN(CONFIG_ARM64_BTI, BTI, ID_AA64PFR1_EL1, 0, 4, 0x1),
	/* ID_AA64ISAR1.APA, ID_AA64ISAR2.APA3 or ID_AA64ISAR1.API >= 0b0001 */
	HWCAP_ARMARM_ANY(CONFIG_ARM64_PTR_AUTH, PACA,
			 HWCAPS_FIELD(ID_AA64ISAR1_EL1, 4, 4, 0x1),
			 HWCAPS_FIELD(ID_AA64ISAR2_EL1, 12, 4, 0x1),
			 HWCAPS_FIELD(ID_AA64ISAR1_EL1, 8, 4, 0x1)),
	/* ID_AA64ISAR1.GPA, ID_AA64ISAR2.GPA3 or ID_AA64ISAR1.GPI >= 0b0001 */
	HWCAP_ARMARM_ANY(CONFIG_ARM64_PTR_AUTH, PACG,
			 HWCAPS_FIELD(ID_AA64ISAR1_EL1, 24, 4, 0x1),
			 HWCAPS_FIELD(ID_AA64ISAR2_EL1, 8, 4, 0x1),
			 HWCAPS_FIELD(ID_AA64ISAR1_EL1, 28, 4, 0x1)),
	/* ID_AA64PFR1.MTE >= 0b0010: FEAT_MTE2 */
	HWCAP_ARMARM_IN(CONFIG_ARM64_MTE, MTE, ID_AA64PFR1_EL1, 8, 4, 0x2),
	/* ID_AA64PFR1.MTE >= 0b0011: FEAT_MTE3 */
	HWCAP_ARMARM_IN(CONFIG_ARM64_MTE, MTE3, ID_AA64PFR1_EL1, 8, 4, 0x3),
	/* ID_AA64PFR2.MTEFAR >= 0b0001: FEAT_MTE_TAGGED_FAR */
	HWCAP_ARMARM_IN(CONFIG_ARM64_MTE, MTE_FAR, ID_AA64PFR2_EL1, 8, 4, 0x1),
	/* ID_AA64PFR2.MTESTOREONLY >= 0b0001: FEAT_MTE_STORE_ONLY */
	HWCAP_ARMARM_IN(CONFIG_ARM64_MTE, MTE_STORE_ONLY, ID_AA64PFR2_EL1, 4, 4, 0x1),
	/* ID_AA64MMFR0.ECV >= 0b0001: FEAT_ECV */
	HWCAP_ARMARM(ECV, ID_AA64MMFR0_EL1, 60, 4, 0x1),
	/* ID_AA64MMFR1.AFP >= 0b0001: FEAT_AFP */
	HWCAP_ARMARM(AFP, ID_AA64MMFR1_EL1, 44, 4, 0x1),
	/* ID_AA64ISAR2.CSSC >= 0b0001: FEAT_CSSC */
	HWCAP_ARMARM(CSSC, ID_AA64ISAR2_EL1, 52, 4, 0x1),
	/* ID_AA64ISAR2.CSSC >= 0b0010: FEAT_CMPBR */
	HWCAP_ARMARM(CMPBR, ID_AA64ISAR2_EL1, 52, 4, 0x2),
	/* ID_AA64ISAR2.RPRFM >= 0b0001: FEAT_RPRFM */
	HWCAP_ARMARM(RPRFM, ID_AA64ISAR2_EL1, 48, 4, 0x1),
	/* ID_AA64ISAR2.RPRES >= 0b0001: FEAT_RPRES */
	HWCAP_ARMARM(RPRES, ID_AA64ISAR2_EL1, 4, 4, 0x1),
	/* ID_AA64ISAR2.WFxT >= 0b0010: FEAT_WFxT */
	HWCAP_ARMARM(WFXT, ID_AA64ISAR2_EL1, 0, 4, 0x2),
	/* ID_AA64ISAR2.MOPS >= 0b0001: FEAT_MOPS */
	HWCAP_ARMARM(MOPS, ID_AA64ISAR2_EL1, 16, 4, 0x1),
	/* ID_AA64ISAR2.BC >= 0b0001: FEAT_HBC */
	HWCAP_ARMARM(HBC, ID_AA64ISAR2_EL1, 20, 4, 0x1),
	/* ID_AA64PFR1.SME >= 0b0001: FEAT_SME */
	HWCAP_ARMARM_IN(CONFIG_ARM64_SME, SME, ID_AA64PFR1_EL1, 24, 4, 0x1),
	/* ID_AA64SMFR0.FA64 >= 0b1: FEAT_SME_FA64 */
	HWCAP_ARMARM_SME(SME_FA64, ID_AA64SMFR0_EL1, 63, 1, 0x1),
	/* ID_AA64SMFR0.LUT6 >= 0b1: FEAT_SME_LUT6? */
	HWCAP_ARMARM_SME(SME_LUT6, ID_AA64SMFR0_EL1, 61, 1, 0x1),
	/* ID_AA64SMFR0.LUTv2 >= 0b1: FEAT_SME_LUTv2 */
	HWCAP_ARMARM_SME(SME_LUTV2, ID_AA64SMFR0_EL1, 60, 1, 0x1),
	/* ID_AA64SMFR0.SMEver >= 0b0100: FEAT_SME2p3 */
	HWCAP_AFTER_MAA(SME, SME2P3, ID_AA64SMFR0_EL1, 56, 4, 0x4),
	/* ID_AA64SMFR0.SMEver >= 0b0011: FEAT_SME2p2 */
	HWCAP_ARMARM_SME(SME2P2, ID_AA64SMFR0_EL1, 56, 4, 0x3),
	/* ID_AA64SMFR0.SMEver >= 0b0010: FEAT_SME2p1 */
	HWCAP_ARMARM_SME(SME2P1, ID_AA64SMFR0_EL1, 56, 4, 0x2),
	/* ID_AA64SMFR0.SMEver >= 0b0001: FEAT_SME2 */
	HWCAP_ARMARM_SME(SME2, ID_AA64SMFR0_EL1, 56, 4, 0x1),
	/* ID_AA64SMFR0.I16I64 >= 0b1111: FEAT_SME_I16I64 */
	HWCAP_ARMARM_SME(SME_I16I64, ID_AA64SMFR0_EL1, 52, 4, 0xf),
	/* ID_AA64SMFR0.F64F64 >= 0b1: FEAT_SME_F64F64 */
	HWCAP_ARMARM_SME(SME_F64F64, ID_AA64SMFR0_EL1, 48, 1, 0x1),
	/* ID_AA64SMFR0.I16I32 >= 0b0101: (FEAT_SME2) */
	HWCAP_ARMARM_SME(SME_I16I32, ID_AA64SMFR0_EL1, 44, 4, 0x5),
	/* ID_AA64SMFR0.B16B16 >= 0b1: FEAT_SME_B16B16 */
	HWCAP_ARMARM_SME(SME_B16B16, ID_AA64SMFR0_EL1, 43, 1, 0x1),
	/* ID_AA64SMFR0.F16F16 >= 0b1: FEAT_SME_F16F16 */
	HWCAP_ARMARM_SME(SME_F16F16, ID_AA64SMFR0_EL1, 42, 1, 0x1),
	/* ID_AA64SMFR0.F8F16 >= 0b1: FEAT_SME_F8F16 */
	HWCAP_ARMARM_SME(SME_F8F16, ID_AA64SMFR0_EL1, 41, 1, 0x1),
	/* ID_AA64SMFR0.F8F32 >= 0b1: FEAT_SME_F8F32 */
	HWCAP_ARMARM_SME(SME_F8F32, ID_AA64SMFR0_EL1, 40, 1, 0x1),
	/* ID_AA64SMFR0.I8I32 >= 0b1111: (FEAT_SME) */
	HWCAP_ARMARM_SME(SME_I8I32, ID_AA64SMFR0_EL1, 36, 4, 0xf),
	/* ID_AA64SMFR0.F16F32 >= 0b1: (FEAT_SME) */
	HWCAP_ARMARM_SME(SME_F16F32, ID_AA64SMFR0_EL1, 35, 1, 0x1),
	/* ID_AA64SMFR0.B16F32 >= 0b1: (FEAT_SME) */
	HWCAP_ARMARM_SME(SME_B16F32, ID_AA64SMFR0_EL1, 34, 1, 0x1),
	/* ID_AA64SMFR0.BI32I32 >= 0b1: (FEAT_SME2) */
	HWCAP_ARMARM_SME(SME_BI32I32, ID_AA64SMFR0_EL1, 33, 1, 0x1),
	/* ID_AA64SMFR0.F32F32 >= 0b1: (FEAT_SME) */
	HWCAP_ARMARM_SME(SME_F32F32, ID_AA64SMFR0_EL1, 32, 1, 0x1),
	/* ID_AA64SMFR0.SF8FMA >= 0b1: FEAT_SSVE_FP8FMA */
	HWCAP_ARMARM_SME(SME_SF8FMA, ID_AA64SMFR0_EL1, 30, 1, 0x1),
	/* ID_AA64SMFR0.SF8DP4 >= 0b1: FEAT_SSVE_FP8DOT4 */
	HWCAP_ARMARM_SME(SME_SF8DP4, ID_AA64SMFR0_EL1, 29, 1, 0x1),
	/* ID_AA64SMFR0.SF8DP2 >= 0b1: FEAT_SSVE_FP8DOT2 */
	HWCAP_ARMARM_SME(SME_SF8DP2, ID_AA64SMFR0_EL1, 28, 1, 0x1),
	/* ID_AA64SMFR0.SBitPerm >= 0b1: FEAT_SSVE_BitPerm */
	HWCAP_ARMARM_SME(SME_SBITPERM, ID_AA64SMFR0_EL1, 25, 1, 0x1),
	/* ID_AA64SMFR0.AES >= 0b1: FEAT_SSVE_AES */
	HWCAP_ARMARM_SME(SME_AES, ID_AA64SMFR0_EL1, 24, 1, 0x1),
	/* ID_AA64SMFR0.SFEXPA >= 0b1: FEAT_SSVE_FEXPA */
	HWCAP_ARMARM_SME(SME_SFEXPA, ID_AA64SMFR0_EL1, 23, 1, 0x1),
	/* ID_AA64SMFR0.STMOP >= 0b1: FEAT_SME_TMOP */
	HWCAP_ARMARM_SME(SME_STMOP, ID_AA64SMFR0_EL1, 16, 1, 0x1),
	/* ID_AA64SMFR0.SMOP4 >= 0b1: FEAT_SME_MOP4 */
	HWCAP_ARMARM_SME(SME_SMOP4, ID_AA64SMFR0_EL1, 0, 1, 0x1),
	/* ID_AA64FPFR0.F8CVT >= 0b1: FEAT_FP8 */
	HWCAP_ARMARM(F8CVT, ID_AA64FPFR0_EL1, 31, 1, 0x1),
	/* ID_AA64FPFR0.F8FMA >= 0b1: FEAT_FP8FMA */
	HWCAP_ARMARM(F8FMA, ID_AA64FPFR0_EL1, 30, 1, 0x1),
	/* ID_AA64FPFR0.F8DP4 >= 0b1: FEAT_FP8DOT4 */
	HWCAP_ARMARM(F8DP4, ID_AA64FPFR0_EL1, 29, 1, 0x1),
	/* ID_AA64FPFR0.F8DP2 >= 0b1: FEAT_FP8DOT2 */
	HWCAP_ARMARM(F8DP2, ID_AA64FPFR0_EL1, 28, 1, 0x1),
	/* ID_AA64FPFR0.F8MM8 >= 0b1: FEAT_F8F32MM */
	HWCAP_ARMARM(F8MM8, ID_AA64FPFR0_EL1, 27, 1, 0x1),
	/* ID_AA64FPFR0.F8MM4 >= 0b1: FEAT_F8F16MM */
	HWCAP_ARMARM(F8MM4, ID_AA64FPFR0_EL1, 26, 1, 0x1),
	/* ID_AA64FPFR0.F16MM2 >= 0b1: FEAT_F16MM */
	HWCAP_AFTER_MAA(PLAIN, F16MM, ID_AA64FPFR0_EL1, 15, 1, 0x1),
	/* ID_AA64FPFR0.F8E4M3 >= 0b1: (FEAT_FP8) */
	HWCAP_ARMARM(F8E4M3, ID_AA64FPFR0_EL1, 1, 1, 0x1),
	/* ID_AA64FPFR0.F8E5M2 >= 0b1: (FEAT_FP8) */
	HWCAP_ARMARM(F8E5M2, ID_AA64FPFR0_EL1, 0, 1, 0x1),
	/* ID_AA64MMFR3.S1POE >= 0b0001: FEAT_S1POE */
	HWCAP_ARMARM_IN(CONFIG_ARM64_POE, POE, ID_AA64MMFR3_EL1, 16, 4, 0x1),

	/* compat_elf_hwcaps[]: AArch32 ID registers */
	/* MVFR1.SIMDSP >= 0b0001 and MVFR1.SIMDInt >= 0b0001 and MVFR1.SIMDLS >= 0b0001 */
	COMPAT_ARMARM_NEON(NEON,
			   HWCAPS_FIELD(MVFR1_EL1, 16, 4, 0x1),
			   HWCAPS_FIELD(MVFR1_EL1, 12, 4, 0x1),
			   HWCAPS_FIELD(MVFR1_EL1, 8, 4, 0x1)),
	/* MVFR1.SIMDFMAC >= 0b0001: (FEAT_AdvSIMD/FEAT_FP fused MAC) */
	COMPAT_ARMARM_NAMED(COMPAT_HWCAP_VFPv4, "VFPv4", MVFR1_EL1, 28, 4, 0x1),
	/* MVFR0.FPDP >= 0b0010: (FEAT_FP, AArch32) */
	COMPAT_ARMARM_VFP(VFP, MVFR0_EL1, 8, 4, 0x2),
	/* MVFR0.FPDP >= 0b0010: (FEAT_FP, AArch32) */
	COMPAT_ARMARM_NAMED(COMPAT_HWCAP_VFPv3, "VFPv3", MVFR0_EL1, 8, 4, 0x2),
	COMPAT_ARMARM(FPHP, MVFR1_EL1, 24, 4, 0x3),	/* MVFR1.FPHP >= 0b0011: FEAT_FP16 */
	COMPAT_ARMARM(ASIMDHP, MVFR1_EL1, 20, 4, 0x2),	/* MVFR1.SIMDHP >= 0b0010: FEAT_FP16 */
	COMPAT2_ARMARM(PMULL, ID_ISAR5_EL1, 4, 4, 0x2),	/* ID_ISAR5.AES >= 0b0010: FEAT_PMULL */
	COMPAT2_ARMARM(AES, ID_ISAR5_EL1, 4, 4, 0x1),	/* ID_ISAR5.AES >= 0b0001: FEAT_AES */
	COMPAT2_ARMARM(SHA1, ID_ISAR5_EL1, 8, 4, 0x1),	/* ID_ISAR5.SHA1 >= 0b0001: FEAT_SHA1 */
	COMPAT2_ARMARM(SHA2, ID_ISAR5_EL1, 12, 4, 0x1),	/* ID_ISAR5.SHA2 >= 0b0001: FEAT_SHA256 */
	/* ID_ISAR5.CRC32 >= 0b0001: FEAT_CRC32 */
	COMPAT2_ARMARM(CRC32, ID_ISAR5_EL1, 16, 4, 0x1),
	/* ID_ISAR6.DP >= 0b0001: FEAT_DotProd */
	COMPAT_ARMARM(ASIMDDP, ID_ISAR6_EL1, 4, 4, 0x1),
	/* ID_ISAR6.FHM >= 0b0001: FEAT_FHM */
	COMPAT_ARMARM(ASIMDFHM, ID_ISAR6_EL1, 8, 4, 0x1),
	COMPAT2_ARMARM(SB, ID_ISAR6_EL1, 12, 4, 0x1),	/* ID_ISAR6.SB >= 0b0001: FEAT_SB */
	/* ID_ISAR6.BF16 >= 0b0001: FEAT_AA32BF16 */
	COMPAT_ARMARM(ASIMDBF16, ID_ISAR6_EL1, 20, 4, 0x1),
	COMPAT_ARMARM(I8MM, ID_ISAR6_EL1, 24, 4, 0x1),	/* ID_ISAR6.I8MM >= 0b0001: FEAT_AA32I8MM */
	COMPAT2_ARMARM(SSBS, ID_PFR2_EL1, 4, 4, 0x1),	/* ID_PFR2.SSBS >= 0b0001: FEAT_SSBS */
};

/* The name user space knows the hwcap by: HWCAP2_SVE2P1, COMPAT_HWCAP2_AES */
static void hwcaps_row_name(const struct hwcaps_row *row, char *buf, size_t len)
{
	const char *word = "";

	if (row->hwcap_type == HWCAPS_COMPAT_HWCAP)
		word = "COMPAT_HWCAP_";
	else if (row->hwcap_type == HWCAPS_COMPAT_HWCAP2)
		word = "COMPAT_HWCAP2_";
	else if (row->hwcap < 64)	/* KERNEL_HWCAP_x is HWCAP_x's bit, */
		word = "HWCAP_";
	else if (row->hwcap < 128)	/* + 64 for HWCAP2_x, + 128 for HWCAP3_x */
		word = "HWCAP2_";
	else
		word = "HWCAP3_";
	snprintf(buf, len, "%s%s", word, row->name);
}

static void hwcaps_row_desc(const struct hwcaps_row *row, char *desc)
{
	hwcaps_row_name(row, desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hwcaps, hwcaps_rows, hwcaps_row_desc);

static const char *const hwcaps_match_names[] = {
	[HWCAPS_PLAIN] = "has_user_cpuid_feature",
	[HWCAPS_SVE] = "has_sve_feature",
	[HWCAPS_SME] = "has_sme_feature",
	[HWCAPS_ANY] = "cpucap_multi_entry_cap_matches",
	[HWCAPS_NEON] = "compat_has_neon",
};

/* The kernel's matcher for @match, NULL where the kernel builds none */
static hwcaps_matches_fn hwcaps_matcher(enum hwcaps_match match)
{
	switch (match) {
	case HWCAPS_PLAIN:
		return has_user_cpuid_feature;
	case HWCAPS_ANY:
		return cpucap_multi_entry_cap_matches;
	case HWCAPS_SVE:
#ifdef CONFIG_ARM64_SVE
		return has_sve_feature;
#else
		return NULL;
#endif
	case HWCAPS_SME:
#ifdef CONFIG_ARM64_SME
		return has_sme_feature;
#else
		return NULL;
#endif
	case HWCAPS_NEON:
#ifdef CONFIG_COMPAT
		return compat_has_neon;
#else
		return NULL;
#endif
	}
	return NULL;
}

static bool hwcaps_is_compat(u8 hwcap_type)
{
	return hwcap_type == HWCAPS_COMPAT_HWCAP || hwcap_type == HWCAPS_COMPAT_HWCAP2;
}

/* The table that holds the hwcaps of @hwcap_type, and its name */
static const struct arm64_cpu_capabilities *hwcaps_table(u8 hwcap_type, const char **name)
{
	if (hwcaps_is_compat(hwcap_type)) {
		*name = "compat_elf_hwcaps";
		return compat_elf_hwcaps;
	}
	*name = "arm64_elf_hwcaps";
	return arm64_elf_hwcaps;
}

/* "ID_AA64ZFR0_EL1 (sys_reg 0x30024) [0 +: 4] unsigned >= 0x2" */
static void hwcaps_field_str(const struct hwcaps_field *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s (sys_reg %#x) [%u +: %u] %s >= %#x", f->reg_name, f->sys_reg,
		 f->lsb, f->width, f->sign ? "signed" : "unsigned", f->min);
}

/* The same, of a row of the kernel's table or of its match_list */
static void hwcaps_cap_str(const struct arm64_cpu_capabilities *cap, char *buf, size_t len)
{
	snprintf(buf, len, "sys_reg %#x [%u +: %u] %s >= %#x, %ps", cap->sys_reg,
		 cap->field_pos, cap->field_width, cap->sign ? "signed" : "unsigned",
		 cap->min_field_value, cap->matches);
}

static bool hwcaps_field_equal(const struct hwcaps_field *f,
			       const struct arm64_cpu_capabilities *cap)
{
	return cap->sys_reg == f->sys_reg && cap->field_pos == f->lsb &&
	       cap->field_width == f->width && cap->sign == f->sign &&
	       cap->min_field_value == f->min;
}

#define HWCAPS_STR_SIZE	160

/*
 * The field the kernel's row @cap of @where reads, each of register,
 * bit, width, sign and minimum, against field @f of the Arm ARM.
 */
static void hwcaps_check_field(struct kunit *test, const char *hwcap, const char *where,
			       const struct arm64_cpu_capabilities *cap,
			       const struct hwcaps_field *f)
{
	char kernel[HWCAPS_STR_SIZE], armarm[HWCAPS_STR_SIZE];

	hwcaps_cap_str(cap, kernel, sizeof(kernel));
	hwcaps_field_str(f, armarm, sizeof(armarm));
	KUNIT_EXPECT_EQ_MSG(test, cap->sys_reg, f->sys_reg,
			    "%s: %s reads another register: %s; the Arm ARM: %s",
			    hwcap, where, kernel, armarm);
	KUNIT_EXPECT_EQ_MSG(test, cap->field_pos, f->lsb,
			    "%s: %s reads a field at another bit: %s; the Arm ARM: %s",
			    hwcap, where, kernel, armarm);
	KUNIT_EXPECT_EQ_MSG(test, cap->field_width, f->width,
			    "%s: %s reads a field of another width: %s; the Arm ARM: %s",
			    hwcap, where, kernel, armarm);
	KUNIT_EXPECT_EQ_MSG(test, cap->sign, f->sign,
			    "%s: %s reads the field with another sign: %s; the Arm ARM: %s",
			    hwcap, where, kernel, armarm);
	KUNIT_EXPECT_EQ_MSG(test, cap->min_field_value, f->min,
			    "%s: %s asks for another minimum: %s; the Arm ARM: %s",
			    hwcap, where, kernel, armarm);
}

/*
 * The entries of a match_list, any of which sets the hwcap: one for each
 * field of @row, matched by has_user_cpuid_feature(), and no other.
 */
static void hwcaps_check_list(struct kunit *test, const char *hwcap, const char *where,
			      const struct arm64_cpu_capabilities *list,
			      const struct hwcaps_row *row)
{
	const struct arm64_cpu_capabilities *sub;
	char armarm[HWCAPS_STR_SIZE], kernel[HWCAPS_STR_SIZE];
	int i, n = 0, found;

	KUNIT_ASSERT_NOT_NULL_MSG(test, list, "%s: %s has no match_list", hwcap, where);
	for (sub = list; sub->matches; sub++, n++) {
		hwcaps_cap_str(sub, kernel, sizeof(kernel));
		KUNIT_EXPECT_PTR_EQ_MSG(test, (const void *)sub->matches,
					(const void *)has_user_cpuid_feature,
					"%s: %s, match_list[%d]: %s, not has_user_cpuid_feature",
					hwcap, where, n, kernel);
	}
	KUNIT_EXPECT_EQ_MSG(test, n, row->nr_fields,
			    "%s: %s has a match_list of %d entries, the Arm ARM %d fields",
			    hwcap, where, n, row->nr_fields);
	for (i = 0; i < row->nr_fields; i++) {
		found = 0;
		for (sub = list; sub->matches; sub++)
			found += hwcaps_field_equal(&row->fields[i], sub);
		hwcaps_field_str(&row->fields[i], armarm, sizeof(armarm));
		KUNIT_EXPECT_EQ_MSG(test, found, 1,
				    "%s: %s, match_list: %d entries read the Arm ARM's %s",
				    hwcap, where, found, armarm);
	}
}

/*
 * The kernel's row for each hwcap: there is one, it is matched as the row
 * says, and it reads the field and asks for the minimum the Arm ARM gives.
 */
static void elf_hwcaps_row_matches_armarm(struct kunit *test)
{
	const struct hwcaps_row *row = test->param_value;
	hwcaps_matches_fn want = hwcaps_matcher(row->match);
	const struct arm64_cpu_capabilities *caps, *cap, *mine = NULL;
	/* where: a row, its desc and its choice (the longest choice is 69 bytes) */
	char hwcap[KUNIT_PARAM_DESC_SIZE], where[192];
	const char *table;
	int n = 0;

	hwcaps_row_name(row, hwcap, sizeof(hwcap));
	caps = hwcaps_table(row->hwcap_type, &table);
	for (cap = caps; cap->matches; cap++) {
		if (cap->hwcap_type != row->hwcap_type || cap->hwcap != row->hwcap)
			continue;
		if (!n++)
			mine = cap;
	}
	if (!mine && !row->built)
		kunit_skip(test, "%s: %s=n, so %s[] has no row for it", hwcap, row->config, table);
	KUNIT_ASSERT_NOT_NULL_MSG(test, mine, "%s: no row in %s[] (%s=y)", hwcap, table,
				  row->config ?: "always built");
	KUNIT_EXPECT_EQ_MSG(test, n, 1, "%s: %d rows in %s[]", hwcap, n, table);
	snprintf(where, sizeof(where), "%s[%td] \"%s\"%s%s%s", table, mine - caps,
		 mine->desc ?: "(no desc)",
		 row->choice ? " (a kernel choice the Arm ARM does not settle: " : "",
		 row->choice ?: "", row->choice ? ")" : "");

	KUNIT_EXPECT_PTR_EQ_MSG(test, (const void *)mine->matches, (const void *)want,
				"%s: %s is matched by %ps, not %s (%ps)", hwcap, where,
				mine->matches, hwcaps_match_names[row->match], want);
	switch (row->match) {
	case HWCAPS_ANY:
		hwcaps_check_list(test, hwcap, where, mine->match_list, row);
		break;
	case HWCAPS_NEON:
		/* compat_has_neon() reads its fields itself: nothing in the row */
		break;
	default:
		hwcaps_check_field(test, hwcap, where, mine, &row->fields[0]);
		break;
	}
}

/*
 * Every row of both tables, up to the end, has a row above: a hwcap
 * added to the kernel without its Arm ARM field fails here, named.
 */
static void elf_hwcaps_every_row_has_armarm_row(struct kunit *test)
{
	static const struct {
		const char *name;
		const struct arm64_cpu_capabilities *caps;
	} tables[] = {
		{ "arm64_elf_hwcaps", arm64_elf_hwcaps },
		{ "compat_elf_hwcaps", compat_elf_hwcaps },
	};
	const struct arm64_cpu_capabilities *cap;
	int t, i, found, rows = 0;

	for (t = 0; t < ARRAY_SIZE(tables); t++) {
		for (cap = tables[t].caps; cap->matches; cap++, rows++) {
			found = 0;
			for (i = 0; i < ARRAY_SIZE(hwcaps_rows); i++)
				found += hwcaps_rows[i].hwcap_type == cap->hwcap_type &&
					 hwcaps_rows[i].hwcap == cap->hwcap;
			KUNIT_EXPECT_EQ_MSG(test, found, 1,
					    "%s[%td] \"%s\" (hwcap_type %u, hwcap %#lx): %d Arm ARM rows",
					    tables[t].name, cap - tables[t].caps,
					    cap->desc ?: "(no desc)", cap->hwcap_type, cap->hwcap,
					    found);
		}
	}
	KUNIT_EXPECT_GT_MSG(test, rows, 0, "arm64_elf_hwcaps[] has no rows");
}

static struct kunit_case arm64_cpucap_hwcaps_cases[] = {
	KUNIT_CASE_PARAM(elf_hwcaps_row_matches_armarm, hwcaps_gen_params),
	KUNIT_CASE(elf_hwcaps_every_row_has_armarm_row),
	{}
};

static struct kunit_suite arm64_cpucap_hwcaps_suite = {
	.name = "arm64_cpucap_hwcaps",
	.test_cases = arm64_cpucap_hwcaps_cases,
};

kunit_test_suite(arm64_cpucap_hwcaps_suite);

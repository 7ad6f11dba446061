// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the descriptions of the ID register fields
 * (arm64_ftr_bits): every field of the ID registers that user space and
 * the capability tables read, CTR_EL0 and the
 * ID_AA64{PFR,ZFR,SMFR,DFR,ISAR,MMFR,FPFR}n_EL1 registers of
 * arm64_ftr_regs[], against the Arm ARM (DDI 0487 M.a.a); and each field
 * through init_cpu_ftr_reg() and check_update_ftr_reg() on its real
 * register, with two pairs of values that differ in that field alone,
 * read back as an EL0 MRS reads it.
 *
 * A field added to a description without a row here fails
 * arm64_ftr_bits_every_field_in_table, which names the field: its row is
 * the reading of the Arm ARM that the patch adding the field needs. Only
 * the strictness column, and the rows that name a choice, record what the
 * kernel decided where the Arm ARM leaves it open.
 *
 * This file is #included at the end of cpufeature.c so that it can reach
 * arm64_ftr_regs[] and the static get_arm64_ftr_reg_nowarn(),
 * init_cpu_ftr_reg(), check_update_ftr_reg() and emulate_sys_reg().
 */

#include <kunit/test.h>
#include <linux/stop_machine.h>

/*
 * The table below is written from the Arm ARM, one row a field, the
 * section of the register's table heading its rows:
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

static struct kunit_case arm64_cpufeature_ftr_bits_cases[] = {
	KUNIT_CASE_PARAM(arm64_ftr_bits_field_per_arm_arm, fld_gen_params),
	KUNIT_CASE_PARAM(arm64_ftr_bits_every_field_in_table, fld_reg_gen_params),
	KUNIT_CASE_PARAM(check_update_ftr_reg_field_per_arm_arm, fld_gen_params),
	{}
};

static struct kunit_suite arm64_cpufeature_ftr_bits_suite = {
	.name = "arm64_cpufeature_ftr_bits",
	.test_cases = arm64_cpufeature_ftr_bits_cases,
};

kunit_test_suite(arm64_cpufeature_ftr_bits_suite);

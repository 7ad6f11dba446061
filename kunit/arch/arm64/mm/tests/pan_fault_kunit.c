// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the classification of EL1 faults under Privileged Access
 * Never (PAN): is_el1_permission_fault() on synthetic faults.
 *
 * This file is included at the end of arch/arm64/mm/fault.c when
 * CONFIG_ARM64_PAN_FAULT_KUNIT_TEST=y, so that the static
 * is_el1_permission_fault() can be called. Whether a translation fault
 * on a user address is a PAN fault depends on how PAN is provided, which
 * is decided from the CPU's ID register and the kernel configuration.
 */

#include <kunit/test.h>

#include "pan_helpers.h"

/*
 * DDI 0487 M.a.a, D24.2.45 ESR_EL1: EC, bits [31:26]; IL, bit [25]; ISS [24:0].
 * For aborts ISS.WnR is bit [6] and ISS.DFSC/IFSC bits [5:0].
 */
#define PANT_ESR(ec, iss)	(((u64)(ec) << 26) | BIT_ULL(25) | (iss))
#define PANT_EC_IABT_LOW	0x20	/* instruction abort from a lower EL */
#define PANT_EC_IABT_CUR	0x21	/* instruction abort, same EL */
#define PANT_EC_DABT_LOW	0x24	/* data abort from a lower EL */
#define PANT_EC_DABT_CUR	0x25	/* data abort, same EL */
#define PANT_ISS_WNR		BIT_ULL(6)
/*
 * DDI 0487 M.a.a, D24.2.45 ESR_EL1, ISS encoding for an exception from a
 * Data Abort: S1PTW, bit [7], and CM, bit [8] (a cache maintenance or
 * address translation instruction). S1PTW marks a stage 2 fault on a
 * stage 1 table walk, which ESR_EL1 reports only where a hypervisor
 * injects one (pKVM does); an Instruction Abort has S1PTW at bit [7]
 * too, and its bits [6] and [8] are RES0. None of them changes the kind
 * of fault the FSC gives: the rows pin that is_el1_permission_fault()
 * looks at the FSC alone.
 */
#define PANT_ISS_S1PTW		BIT_ULL(7)
#define PANT_ISS_CM		BIT_ULL(8)
#define PANT_FSC_MASK		0x3f	/* DFSC/IFSC, bits [5:0] */
/* 0b101010: translation fault, level -2 (FEAT_D128) */
#define PANT_FSC_TRANS_LM2	0x2a
#define PANT_FSC_TRANS_L0	0x04	/* 0b000100 translation fault, level 0 */
#define PANT_FSC_TRANS_L3	0x07	/* 0b000111 translation fault, level 3 */
#define PANT_FSC_AF_L3		0x0b	/* 0b001011 access flag fault, level 3 */
#define PANT_FSC_PERM_L1	0x0d	/* 0b001101 permission fault, level 1 */
#define PANT_FSC_PERM_L3	0x0f	/* 0b001111 permission fault, level 3 */
/*
 * DDI 0487 M.a.a, D24.2.45 ESR_EL1, ISS encoding for a Data Abort, DFSC: 0b101011
 * "When FEAT_LPA2 is implemented: Translation fault, level -1" (the same
 * encoding in IFSC). Permission faults have levels 0 to 3 only
 * (0b0011xx); 0b001011 is the access flag fault, level 3.
 */
#define PANT_FSC_TRANS_LM1	0x2b	/* 0b101011 translation fault, level -1 */
/*
 * DDI 0487 M.a.a, D24.2.45 ESR_EL1, DFSC/IFSC: faults with FSC bits [5:4] set,
 * which a check of the type bits [3:2] alone takes for a translation
 * (0b01) or a permission (0b11) fault.
 */
#define PANT_FSC_SEA_TTW_L3	0x17	/* 0b010111 external abort on a table walk, level 3 */
#define PANT_FSC_ECC_TTW_L3	0x1f	/* 0b011111 parity/ECC error on a table walk, level 3 */
#define PANT_FSC_ECC_TTW_L1	0x1d	/* 0b011101 parity/ECC error on a table walk, level 1 */
/*
 * A TTBR0 (user) and a TTBR1 (kernel) address for any VA size the kernel
 * supports: below 2^39 and above 2^64 - 2^39 (VA_BITS = 39, the default
 * with 4K pages, is the smallest).
 */
#define PANT_USER_ADDR		0x0000000012340000UL
#define PANT_KERNEL_ADDR	0xffffffc008000000UL

enum pant_fault_expect {
	PANT_NEVER,
	PANT_ALWAYS,
	PANT_IF_TTBR0_PAN,	/* only when TTBR0 switching provides PAN */
};

struct pant_fault_row {
	const char *name;
	u64 esr;
	unsigned long addr;
	u64 pstate;
	enum pant_fault_expect expect;
};

/* ESR encodings: DDI 0487 M.a.a, D24.2.45 ESR_EL1 and its ISS for aborts. */
static const struct pant_fault_row pant_fault_rows[] = {
	{
		.name = "el1_data_perm_l3_user",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_PERM_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_MODE_EL1h | PSR_PAN_BIT,
		.expect = PANT_ALWAYS,
	}, {
		.name = "el1_data_perm_l1_write_user",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_ISS_WNR | PANT_FSC_PERM_L1),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_MODE_EL1h,
		.expect = PANT_ALWAYS,
	}, {
		.name = "el1_data_perm_l3_kernel",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_PERM_L3),
		.addr = PANT_KERNEL_ADDR,
		.pstate = PSR_MODE_EL1h | PSR_PAN_BIT,
		.expect = PANT_ALWAYS,
	}, {
		.name = "el1_inst_perm_l3_user",
		.esr = PANT_ESR(PANT_EC_IABT_CUR, PANT_FSC_PERM_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_MODE_EL1h | PSR_PAN_BIT,
		.expect = PANT_ALWAYS,
	}, {
		.name = "el0_data_perm_l3_user",
		.esr = PANT_ESR(PANT_EC_DABT_LOW, PANT_FSC_PERM_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_PAN_BIT,
		.expect = PANT_NEVER,
	}, {
		.name = "el0_inst_perm_l3_user",
		.esr = PANT_ESR(PANT_EC_IABT_LOW, PANT_FSC_PERM_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_PAN_BIT,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_data_trans_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_MODE_EL1h | PSR_PAN_BIT,
		.expect = PANT_IF_TTBR0_PAN,
	}, {
		.name = "el1_data_trans_l0_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_L0),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_MODE_EL1h | PSR_PAN_BIT,
		.expect = PANT_IF_TTBR0_PAN,
	}, {
		.name = "el1_inst_trans_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_IABT_CUR, PANT_FSC_TRANS_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_MODE_EL1h | PSR_PAN_BIT,
		.expect = PANT_IF_TTBR0_PAN,
	}, {
		.name = "el1_data_trans_lm1_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_LM1),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_MODE_EL1h | PSR_PAN_BIT,
		.expect = PANT_IF_TTBR0_PAN,
	}, {
		.name = "el1_inst_trans_lm1_user_pan",
		.esr = PANT_ESR(PANT_EC_IABT_CUR, PANT_FSC_TRANS_LM1),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_MODE_EL1h | PSR_PAN_BIT,
		.expect = PANT_IF_TTBR0_PAN,
	}, {
		.name = "el1_data_trans_l3_user_no_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_MODE_EL1h,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_data_trans_l3_kernel_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_L3),
		.addr = PANT_KERNEL_ADDR,
		.pstate = PSR_MODE_EL1h | PSR_PAN_BIT,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_data_access_flag_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_AF_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_MODE_EL1h | PSR_PAN_BIT,
		.expect = PANT_NEVER,
	}, {
		/*
		 * Bits [3:2] read 0b01, a translation fault: only a TTBR0 PAN
		 * check of bits [3:2] alone takes it for one.
		 */
		.name = "el1_data_sea_ttw_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_SEA_TTW_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_MODE_EL1h | PSR_PAN_BIT,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_data_ecc_ttw_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_ECC_TTW_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_MODE_EL1h | PSR_PAN_BIT,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_inst_ecc_ttw_l1_kernel",
		.esr = PANT_ESR(PANT_EC_IABT_CUR, PANT_FSC_ECC_TTW_L1),
		.addr = PANT_KERNEL_ADDR,
		.pstate = PSR_MODE_EL1h,
		.expect = PANT_NEVER,
	}, {
		.name = "el0_data_trans_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_LOW, PANT_FSC_TRANS_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PSR_PAN_BIT,
		.expect = PANT_NEVER,
	},
};

static void pant_fault_row_desc(const struct pant_fault_row *row, char *desc)
{
	strscpy(desc, row->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pant_fault, pant_fault_rows, pant_fault_row_desc);

/*
 * Synthetic ESR and PSTATE rows built from the Arm ARM's encodings: EC
 * 0x25/0x21 (same EL) and 0x24/0x20 (lower EL); permission, translation
 * and access flag fault status codes, and codes with FSC bits [5:4] set,
 * an external abort and a parity error on a table walk, which a check of
 * bits [3:2] alone takes for a translation or permission fault. A
 * translation fault at a user address with PAN set in the saved PSTATE
 * counts only with TTBR0 PAN, the level -1 translation fault too (FSC
 * 0b101011, which FEAT_LPA2 brought, and which
 * esr_fsc_is_translation_fault() takes).
 */
static void is_el1_permission_fault_rows(struct kunit *test)
{
	const struct pant_fault_row *row = test->param_value;
	/* Decided from the CPU and the config, not from system_uses_ttbr0_pan(). */
	bool ttbr0_pan = pant_get_kind() == PANT_TTBR0;
	struct pt_regs regs = { .pstate = row->pstate };
	bool want;

	switch (row->expect) {
	case PANT_ALWAYS:
		want = true;
		break;
	case PANT_IF_TTBR0_PAN:
		want = ttbr0_pan;
		break;
	default:
		want = false;
		break;
	}
	KUNIT_EXPECT_EQ_MSG(test, is_el1_permission_fault(row->addr, row->esr, &regs),
			    want,
			    "%s: addr %#lx, ESR %#llx, PSTATE %#llx (%s)", row->name,
			    row->addr, row->esr, row->pstate, pant_kind_name(pant_get_kind()));
}

/*
 * The fault status codes of the four kinds of MMU fault, at every level
 * the architecture defines for each: DDI 0487 M.a.a, D24.2.45 ESR_EL1, ISS
 * encoding for an exception from a Data Abort, DFSC (the same codes in
 * an Instruction Abort's IFSC):
 *   0b0000nn  address size fault, level nn (0 to 3)
 *   0b101001  address size fault, level -1 (FEAT_LPA2)
 *   0b0001nn  translation fault, level nn (0 to 3)
 *   0b101011  translation fault, level -1 (FEAT_LPA2)
 *   0b001000  access flag fault, level 0 (FEAT_LPA2); 0b0010nn, level nn
 *   0b001100  permission fault, level 0 (FEAT_LPA2); 0b0011nn, level nn
 * FEAT_D128's level -2 translation fault (0b101010) is left out: none
 * of the kernels supports 128-bit descriptors. Its level -2 address
 * size fault (0b101100) is among the other codes, no permission fault
 * either way.
 */
enum pant_fsc_kind {
	PANT_FSC_ADDR_SIZE,
	PANT_FSC_TRANSLATION,
	PANT_FSC_ACCESS_FLAG,
	PANT_FSC_PERMISSION,
};

struct pant_fsc_row {
	const char *name;
	u8 fsc;
	enum pant_fsc_kind kind;
	int level;
};

static const struct pant_fsc_row pant_fsc_rows[] = {
	{ "address_size_lm1", 0x29, PANT_FSC_ADDR_SIZE, -1 },
	{ "address_size_l0", 0x00, PANT_FSC_ADDR_SIZE, 0 },
	{ "address_size_l1", 0x01, PANT_FSC_ADDR_SIZE, 1 },
	{ "address_size_l2", 0x02, PANT_FSC_ADDR_SIZE, 2 },
	{ "address_size_l3", 0x03, PANT_FSC_ADDR_SIZE, 3 },
	{ "translation_lm1", 0x2b, PANT_FSC_TRANSLATION, -1 },
	{ "translation_l0", 0x04, PANT_FSC_TRANSLATION, 0 },
	{ "translation_l1", 0x05, PANT_FSC_TRANSLATION, 1 },
	{ "translation_l2", 0x06, PANT_FSC_TRANSLATION, 2 },
	{ "translation_l3", 0x07, PANT_FSC_TRANSLATION, 3 },
	{ "access_flag_l0", 0x08, PANT_FSC_ACCESS_FLAG, 0 },
	{ "access_flag_l1", 0x09, PANT_FSC_ACCESS_FLAG, 1 },
	{ "access_flag_l2", 0x0a, PANT_FSC_ACCESS_FLAG, 2 },
	{ "access_flag_l3", 0x0b, PANT_FSC_ACCESS_FLAG, 3 },
	{ "permission_l0", 0x0c, PANT_FSC_PERMISSION, 0 },
	{ "permission_l1", 0x0d, PANT_FSC_PERMISSION, 1 },
	{ "permission_l2", 0x0e, PANT_FSC_PERMISSION, 2 },
	{ "permission_l3", 0x0f, PANT_FSC_PERMISSION, 3 },
};

static void pant_fsc_row_desc(const struct pant_fsc_row *row, char *desc)
{
	strscpy(desc, row->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pant_fsc, pant_fsc_rows, pant_fsc_row_desc);

/* The row of pant_fsc_rows[] of fault status code @fsc, NULL if none. */
static const struct pant_fsc_row *pant_fsc_row_of(unsigned int fsc)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pant_fsc_rows); i++)
		if (pant_fsc_rows[i].fsc == fsc)
			return &pant_fsc_rows[i];
	return NULL;
}

/*
 * The addresses and saved PSTATEs a fault of each code is tried with:
 * only a user address with PSTATE.PAN set can make a translation fault
 * a PAN fault.
 */
static const struct {
	unsigned long addr;
	u64 pstate;
	bool user_pan;
} pant_fault_places[] = {
	{ PANT_USER_ADDR, PSR_MODE_EL1h | PSR_PAN_BIT, true },
	{ PANT_USER_ADDR, PSR_MODE_EL1h, false },
	{ PANT_KERNEL_ADDR, PSR_MODE_EL1h | PSR_PAN_BIT, false },
};

/*
 * Checks is_el1_permission_fault() on @esr at every place of
 * pant_fault_places[]; @ttbr0_want is what a user address with PAN set
 * gives where TTBR0 switching provides PAN.
 */
static void pant_check_places(struct kunit *test, const char *name, u64 esr,
			      bool always, bool ttbr0_want)
{
	bool ttbr0_pan = pant_get_kind() == PANT_TTBR0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pant_fault_places); i++) {
		struct pt_regs regs = { .pstate = pant_fault_places[i].pstate };
		bool want = always ||
			    (pant_fault_places[i].user_pan && ttbr0_pan && ttbr0_want);

		KUNIT_EXPECT_EQ_MSG(test,
				    is_el1_permission_fault(pant_fault_places[i].addr, esr, &regs),
				    want,
				    "%s: ESR %#llx (EC %#llx, WnR %d, S1PTW %d, CM %d), addr %#lx, PSTATE %#llx (%s)",
				    name, esr, esr >> 26, !!(esr & PANT_ISS_WNR),
				    !!(esr & PANT_ISS_S1PTW), !!(esr & PANT_ISS_CM),
				    pant_fault_places[i].addr, pant_fault_places[i].pstate,
				    pant_kind_name(pant_get_kind()));
	}
}

/*
 * Each kind of MMU fault at every level the Arm ARM defines for it, as a
 * data abort with each of WnR, S1PTW and CM set and clear, and as an
 * instruction abort with S1PTW set and clear: none of those bits changes
 * what the fault is. A permission fault at EL1 is always one; a
 * translation fault only at a user address with PSTATE.PAN set, under
 * TTBR0 PAN, at every level; address size and access flag faults never.
 */
static void is_el1_permission_fault_every_level(struct kunit *test)
{
	const struct pant_fsc_row *row = test->param_value;
	bool always = row->kind == PANT_FSC_PERMISSION;
	bool ttbr0_want = row->kind == PANT_FSC_TRANSLATION;
	unsigned int bits;

	for (bits = 0; bits < 8; bits++) {
		u64 iss = row->fsc;

		if (bits & 1)
			iss |= PANT_ISS_WNR;
		if (bits & 2)
			iss |= PANT_ISS_S1PTW;
		if (bits & 4)
			iss |= PANT_ISS_CM;
		pant_check_places(test, row->name, PANT_ESR(PANT_EC_DABT_CUR, iss),
				  always, ttbr0_want);
	}
	pant_check_places(test, row->name, PANT_ESR(PANT_EC_IABT_CUR, row->fsc),
			  always, ttbr0_want);
	pant_check_places(test, row->name,
			  PANT_ESR(PANT_EC_IABT_CUR, row->fsc | PANT_ISS_S1PTW),
			  always, ttbr0_want);
}

/*
 * Every other fault status code (external aborts, parity and ECC errors,
 * alignment, TLB conflict, granule protection, the level -2 address size
 * fault, IMPLEMENTATION DEFINED and unallocated codes: DDI 0487 M.a.a,
 * D24.2.45 ESR_EL1, DFSC) is no permission fault, at any place, as a data
 * or an instruction abort.
 */
static void is_el1_permission_fault_other_fsc(struct kunit *test)
{
	unsigned int fsc;
	char name[16];

	for (fsc = 0; fsc <= PANT_FSC_MASK; fsc++) {
		if (fsc == PANT_FSC_TRANS_LM2 || pant_fsc_row_of(fsc))
			continue;
		snprintf(name, sizeof(name), "FSC %#04x", fsc);
		pant_check_places(test, name, PANT_ESR(PANT_EC_DABT_CUR, fsc), false, false);
		pant_check_places(test, name, PANT_ESR(PANT_EC_IABT_CUR, fsc), false, false);
	}
}

/*
 * The FSC helpers of <asm/esr.h> against the Arm ARM's codes, for all 64
 * fault status codes, with ISS bits above the FSC (WnR, S1PTW, CM) set:
 * each helper takes its kind at every level and nothing else (but for
 * FEAT_D128's level -2 translation fault: the kernel builds no 128-bit
 * translation tables, and esr_fsc_is_translation_fault() leaves it out).
 */
static void esr_fsc_is_fault_every_code(struct kunit *test)
{
	bool trans, perm, af;
	unsigned int fsc;

	for (fsc = 0; fsc <= PANT_FSC_MASK; fsc++) {
		u64 esr = PANT_ESR(PANT_EC_DABT_CUR,
				   fsc | PANT_ISS_WNR | PANT_ISS_S1PTW | PANT_ISS_CM);
		const struct pant_fsc_row *row = pant_fsc_row_of(fsc);

		if (fsc == PANT_FSC_TRANS_LM2)	/* FEAT_D128 */
			continue;
		trans = esr_fsc_is_translation_fault(esr);
		perm = esr_fsc_is_permission_fault(esr);
		af = esr_fsc_is_access_flag_fault(esr);
		KUNIT_EXPECT_EQ_MSG(test, trans, row && row->kind == PANT_FSC_TRANSLATION,
				    "esr_fsc_is_translation_fault(%#llx), FSC %#04x", esr, fsc);
		KUNIT_EXPECT_EQ_MSG(test, perm, row && row->kind == PANT_FSC_PERMISSION,
				    "esr_fsc_is_permission_fault(%#llx), FSC %#04x", esr, fsc);
		KUNIT_EXPECT_EQ_MSG(test, af, row && row->kind == PANT_FSC_ACCESS_FLAG,
				    "esr_fsc_is_access_flag_fault(%#llx), FSC %#04x", esr, fsc);
	}
}

static struct kunit_case arm64_pan_fault_cases[] = {
	KUNIT_CASE_PARAM(is_el1_permission_fault_rows, pant_fault_gen_params),
	KUNIT_CASE_PARAM(is_el1_permission_fault_every_level, pant_fsc_gen_params),
	KUNIT_CASE(is_el1_permission_fault_other_fsc),
	KUNIT_CASE(esr_fsc_is_fault_every_code),
	{}
};

static struct kunit_suite arm64_pan_fault_suite = {
	.name = "arm64_pan_fault",
	.exit = pant_exit_closed,
	.test_cases = arm64_pan_fault_cases,
};

kunit_test_suite(arm64_pan_fault_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the classification of EL1 faults under Privileged Access
 * Never (PAN): is_el1_permission_fault() on synthetic faults.
 *
 * This file is included at the end of arch/arm64/mm/fault.c when
 * CONFIG_ARM64_PAN_KUNIT_TEST=y, so that the static
 * is_el1_permission_fault() can be called. Whether a translation fault
 * on a user address is a PAN fault depends on how PAN is provided, which
 * is decided from the CPU's ID register and the kernel configuration.
 */

#include <kunit/test.h>
#include <linux/version.h>

#include "pan_kunit.h"

/* DDI 0487 J.a, C5.2 Special-purpose registers: SPSR_EL1.M[3:0] = 0b0101 is EL1h. */
#define PANT_PSTATE_EL1H	0x5ULL
/*
 * DDI 0487 J.a, D19.2.40 ESR_EL1: EC, bits [31:26]; IL, bit [25]; ISS [24:0].
 * For aborts ISS.WnR is bit [6] and ISS.DFSC/IFSC bits [5:0].
 */
#define PANT_ESR(ec, iss)	(((u64)(ec) << 26) | BIT_ULL(25) | (iss))
#define PANT_EC_IABT_LOW	0x20	/* instruction abort from a lower EL */
#define PANT_EC_IABT_CUR	0x21	/* instruction abort, same EL */
#define PANT_EC_DABT_LOW	0x24	/* data abort from a lower EL */
#define PANT_EC_DABT_CUR	0x25	/* data abort, same EL */
#define PANT_ISS_WNR		BIT_ULL(6)
#define PANT_FSC_TRANS_L0	0x04	/* 0b000100 translation fault, level 0 */
#define PANT_FSC_TRANS_L3	0x07	/* 0b000111 translation fault, level 3 */
#define PANT_FSC_AF_L3		0x0b	/* 0b001011 access flag fault, level 3 */
#define PANT_FSC_PERM_L1	0x0d	/* 0b001101 permission fault, level 1 */
#define PANT_FSC_PERM_L3	0x0f	/* 0b001111 permission fault, level 3 */
/*
 * DDI 0487 J.a, D19 ESR_EL1, ISS encoding for a Data Abort, DFSC: 0b101011
 * "When FEAT_LPA2 is implemented: Translation fault, level -1" (the same
 * encoding in IFSC). Permission faults have levels 0 to 3 only
 * (0b0011xx); 0b001011 is the access flag fault, level 3.
 */
#define PANT_FSC_TRANS_LM1	0x2b	/* 0b101011 translation fault, level -1 */
/*
 * DDI 0487 J.a, D19 ESR_EL1, DFSC/IFSC: faults with FSC bits [5:4] set,
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

/*
 * Kernel differences: one #if per difference, named by the release that
 * made it.
 */

/*
 * 6.9: with LPA2 (52-bit addresses on 4K and 16K pages) a table walk can
 * start at level -1, and esr_fsc_is_translation_fault(), which
 * is_el1_permission_fault() uses, also takes the level -1 translation
 * fault. Before, only FSC 0b0001xx (levels 0 to 3) was a translation
 * fault, and 0b101011 was no permission fault under TTBR0 PAN either.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#define PANT_TRANS_LM1_EXPECT	PANT_IF_TTBR0_PAN
#else
#define PANT_TRANS_LM1_EXPECT	PANT_NEVER
#endif

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

/* ESR encodings: DDI 0487 J.a, D19.2.40 ESR_EL1 and its ISS for aborts. */
static const struct pant_fault_row pant_fault_rows[] = {
	{
		.name = "el1_data_perm_l3_user",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_PERM_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_ALWAYS,
	}, {
		.name = "el1_data_perm_l1_write_user",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_ISS_WNR | PANT_FSC_PERM_L1),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H,
		.expect = PANT_ALWAYS,
	}, {
		.name = "el1_data_perm_l3_kernel",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_PERM_L3),
		.addr = PANT_KERNEL_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_ALWAYS,
	}, {
		.name = "el1_inst_perm_l3_user",
		.esr = PANT_ESR(PANT_EC_IABT_CUR, PANT_FSC_PERM_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_ALWAYS,
	}, {
		.name = "el0_data_perm_l3_user",
		.esr = PANT_ESR(PANT_EC_DABT_LOW, PANT_FSC_PERM_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_PAN,
		.expect = PANT_NEVER,
	}, {
		.name = "el0_inst_perm_l3_user",
		.esr = PANT_ESR(PANT_EC_IABT_LOW, PANT_FSC_PERM_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_PAN,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_data_trans_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_IF_TTBR0_PAN,
	}, {
		.name = "el1_data_trans_l0_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_L0),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_IF_TTBR0_PAN,
	}, {
		.name = "el1_inst_trans_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_IABT_CUR, PANT_FSC_TRANS_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_IF_TTBR0_PAN,
	}, {
		.name = "el1_data_trans_lm1_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_LM1),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_TRANS_LM1_EXPECT,
	}, {
		.name = "el1_inst_trans_lm1_user_pan",
		.esr = PANT_ESR(PANT_EC_IABT_CUR, PANT_FSC_TRANS_LM1),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_TRANS_LM1_EXPECT,
	}, {
		.name = "el1_data_trans_l3_user_no_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_data_trans_l3_kernel_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_TRANS_L3),
		.addr = PANT_KERNEL_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_data_access_flag_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_AF_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_NEVER,
	}, {
		/*
		 * Bits [3:2] read 0b01, a translation fault: only a TTBR0 PAN
		 * check of bits [3:2] alone takes it for one (6.1's FSC type
		 * test; 6.12 compares the whole FSC).
		 */
		.name = "el1_data_sea_ttw_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_SEA_TTW_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_data_ecc_ttw_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_CUR, PANT_FSC_ECC_TTW_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_EL1H | PANT_PSTATE_PAN,
		.expect = PANT_NEVER,
	}, {
		.name = "el1_inst_ecc_ttw_l1_kernel",
		.esr = PANT_ESR(PANT_EC_IABT_CUR, PANT_FSC_ECC_TTW_L1),
		.addr = PANT_KERNEL_ADDR,
		.pstate = PANT_PSTATE_EL1H,
		.expect = PANT_NEVER,
	}, {
		.name = "el0_data_trans_l3_user_pan",
		.esr = PANT_ESR(PANT_EC_DABT_LOW, PANT_FSC_TRANS_L3),
		.addr = PANT_USER_ADDR,
		.pstate = PANT_PSTATE_PAN,
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
 * counts only with TTBR0 PAN; from 6.9 that holds for the level -1
 * translation fault too (FSC 0b101011, which LPA2 brought, and which
 * esr_fsc_is_translation_fault() takes), which on 6.1 is no such fault.
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

static struct kunit_case arm64_pan_fault_cases[] = {
	KUNIT_CASE_PARAM(is_el1_permission_fault_rows, pant_fault_gen_params),
	{}
};

static struct kunit_suite arm64_pan_fault_suite = {
	.name = "arm64_pan_fault",
	.exit = pant_exit_closed,
	.test_cases = arm64_pan_fault_cases,
};

kunit_test_suite(arm64_pan_fault_suite);

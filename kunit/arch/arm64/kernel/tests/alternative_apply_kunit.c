// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for __apply_alternatives(), the loop that patches the
 * sites of an .altinstructions region, driven with regions of the test's
 * own. This file is included at the end of arch/arm64/kernel/alternative.c
 * (CONFIG_ARM64_ALTERNATIVE_APPLY_KUNIT_TEST), so that it reaches the
 * static function; a kernel built without it is unchanged.
 *
 * The sites here are data, never run: a region's original instructions
 * are a buffer of the test's, patched as a module's are (is_module: in
 * place, no cache maintenance, and the kernel's record of applied
 * capabilities left alone). So a case can check every instruction the
 * loop wrote: which entries it applied (those of the region, whose
 * capability is in the mask and on every CPU), how many instructions,
 * and how it moved a PC-relative instruction from the replacement to the
 * site. The encodings and the branch arithmetic come from the Arm ARM
 * (DDI 0487 J.a, C6.2: B, BL, B.cond, CBZ, TBZ, ADRP, MOVZ), not from
 * the kernel's instruction helpers the loop uses.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/sizes.h>

/* MOVZ W0, #imm16 (C6.2, MOVZ: sf=0 opc=10 100101 hw=00 imm16 Rd) */
#define ALT_APPLY_MOVZ(imm)	(0x52800000U | ((u32)(imm) << 5))
/* NOP (C6.2, NOP: HINT #0) */
#define ALT_APPLY_NOP		0xd503201fU

#define ALT_APPLY_INSNS		4

/*
 * One region: sites in @orig (the "kernel text" being patched, a buffer
 * here), replacements in @repl, entries in @entries, of which the region
 * is the first @nr; those after it must never be applied.
 */
struct alt_apply_buf {
	__le32 orig[3][ALT_APPLY_INSNS];
	/* Sites and replacements on different 4KB pages, for ADRP. */
	u8 apart[SZ_4K];
	__le32 repl[3][ALT_APPLY_INSNS];
	struct alt_instr entries[3];
};

static struct alt_apply_buf alt_apply_buf;

static void alt_apply_fill(__le32 *insns, int nr, u32 insn)
{
	int i;

	for (i = 0; i < nr; i++)
		insns[i] = cpu_to_le32(insn);
}

/* Entry @i: site orig[i] of @insns instructions, replaced by repl[i] or @cb. */
static void alt_apply_entry(int i, u16 cap, int insns, void *cb)
{
	struct alt_instr *alt = &alt_apply_buf.entries[i];
	void *repl = cb ? cb : (void *)alt_apply_buf.repl[i];

	alt->orig_offset = (s32)((void *)alt_apply_buf.orig[i] - (void *)&alt->orig_offset);
	alt->alt_offset = (s32)(repl - (void *)&alt->alt_offset);
	alt->cpucap = cb ? cap | ARM64_CB_BIT : cap;
	alt->orig_len = insns * AARCH64_INSN_SIZE;
	alt->alt_len = cb ? 0 : insns * AARCH64_INSN_SIZE;
}

/* Fresh sites (NOPs), replacements MOVZ W0, #(10 * entry + instruction). */
static void alt_apply_reset(void)
{
	int i, j;

	memset(&alt_apply_buf, 0, sizeof(alt_apply_buf));
	for (i = 0; i < ARRAY_SIZE(alt_apply_buf.orig); i++) {
		alt_apply_fill(alt_apply_buf.orig[i], ALT_APPLY_INSNS, ALT_APPLY_NOP);
		for (j = 0; j < ALT_APPLY_INSNS; j++)
			alt_apply_buf.repl[i][j] = cpu_to_le32(ALT_APPLY_MOVZ(10 * i + j));
	}
}

/*
 * The first @nr entries, as a module's region, with @mask. A module's
 * patching leaves the record of the capabilities boot applied alone
 * (alternative_is_applied() reads it).
 */
static void alt_apply_region(struct kunit *test, int nr, unsigned long *mask)
{
	struct alt_region region = {
		.begin = alt_apply_buf.entries,
		.end = alt_apply_buf.entries + nr,
	};
	DECLARE_BITMAP(applied, ARM64_NCAPS);
	bool same;

	bitmap_copy(applied, applied_alternatives, ARM64_NCAPS);
	KUNIT_EXPECT_EQ_MSG(test, __apply_alternatives(&region, true, mask), 0,
			    "a module's region of %d entries", nr);
	same = bitmap_equal(applied, applied_alternatives, ARM64_NCAPS);
	KUNIT_EXPECT_TRUE_MSG(test, same,
			      "a module's region changed the applied capabilities: %*pb, were %*pb",
			      ARM64_NCAPS, applied_alternatives, ARM64_NCAPS, applied);
}

static void alt_apply_expect_site(struct kunit *test, int site, int insns, bool patched)
{
	int j;

	for (j = 0; j < ALT_APPLY_INSNS; j++) {
		u32 want = patched && j < insns ? ALT_APPLY_MOVZ(10 * site + j) : ALT_APPLY_NOP;
		u32 got = le32_to_cpu(alt_apply_buf.orig[site][j]);

		KUNIT_EXPECT_EQ_MSG(test, got, want,
				    "site %d (%d instructions, %s), instruction %d: %#010x, want %#010x",
				    site, insns, patched ? "to be patched" : "to be left alone",
				    j, got, want);
	}
}

/* Every instruction of each site of the region, one and three long. */
static void __apply_alternatives_patches_every_instruction(struct kunit *test)
{
	bool always_system = cpus_have_cap(ARM64_ALWAYS_SYSTEM);
	DECLARE_BITMAP(mask, ARM64_NCAPS);

	KUNIT_ASSERT_TRUE(test, always_system);
	bitmap_fill(mask, ARM64_NCAPS);
	alt_apply_reset();
	alt_apply_entry(0, ARM64_ALWAYS_SYSTEM, 1, NULL);
	alt_apply_entry(1, ARM64_ALWAYS_SYSTEM, 3, NULL);
	alt_apply_region(test, 2, mask);
	alt_apply_expect_site(test, 0, 1, true);
	alt_apply_expect_site(test, 1, 3, true);
}

/*
 * Only the entries in [begin, end): a valid entry right after the region
 * stays unapplied, and an empty region patches nothing.
 */
static void __apply_alternatives_stops_at_region_end(struct kunit *test)
{
	DECLARE_BITMAP(mask, ARM64_NCAPS);

	bitmap_fill(mask, ARM64_NCAPS);
	alt_apply_reset();
	alt_apply_entry(0, ARM64_ALWAYS_SYSTEM, 2, NULL);
	alt_apply_entry(1, ARM64_ALWAYS_SYSTEM, 2, NULL);	/* after the region */
	alt_apply_region(test, 1, mask);
	alt_apply_expect_site(test, 0, 2, true);
	alt_apply_expect_site(test, 1, 2, false);

	alt_apply_reset();
	alt_apply_entry(0, ARM64_ALWAYS_SYSTEM, 2, NULL);
	alt_apply_region(test, 0, mask);
	alt_apply_expect_site(test, 0, 2, false);
}

/*
 * Only the capabilities of the caller's mask: apply_boot_alternatives()
 * and apply_alternatives_all() each patch their own share.
 */
static void __apply_alternatives_skips_cap_not_in_mask(struct kunit *test)
{
	bool always_system = cpus_have_cap(ARM64_ALWAYS_SYSTEM);
	bool always_boot = cpus_have_cap(ARM64_ALWAYS_BOOT);
	DECLARE_BITMAP(mask, ARM64_NCAPS);

	KUNIT_ASSERT_TRUE(test, always_system);
	KUNIT_ASSERT_TRUE(test, always_boot);
	bitmap_fill(mask, ARM64_NCAPS);
	clear_bit(ARM64_ALWAYS_SYSTEM, mask);
	alt_apply_reset();
	alt_apply_entry(0, ARM64_ALWAYS_SYSTEM, 2, NULL);
	alt_apply_entry(1, ARM64_ALWAYS_BOOT, 2, NULL);
	alt_apply_region(test, 2, mask);
	alt_apply_expect_site(test, 0, 2, false);
	alt_apply_expect_site(test, 1, 2, true);
}

/* A capability the CPUs lack: no QEMU CPU has Cavium ThunderX erratum 27456. */
static void __apply_alternatives_skips_cap_cpu_lacks(struct kunit *test)
{
	DECLARE_BITMAP(mask, ARM64_NCAPS);

	if (cpus_have_cap(ARM64_WORKAROUND_CAVIUM_27456))
		kunit_skip(test,
			   "this system has ARM64_WORKAROUND_CAVIUM_27456: no capability known absent");
	bitmap_fill(mask, ARM64_NCAPS);
	alt_apply_reset();
	alt_apply_entry(0, ARM64_WORKAROUND_CAVIUM_27456, 2, NULL);
	alt_apply_entry(1, ARM64_ALWAYS_SYSTEM, 2, NULL);
	alt_apply_region(test, 2, mask);
	alt_apply_expect_site(test, 0, 2, false);
	alt_apply_expect_site(test, 1, 2, true);
}

/* What the callback of an entry was called with. */
static struct {
	int calls;
	struct alt_instr *alt;
	__le32 *origptr, *updptr;
	int nr_inst;
} alt_apply_cb_seen;

static void alt_apply_cb(struct alt_instr *alt, __le32 *origptr, __le32 *updptr, int nr_inst)
{
	alt_apply_cb_seen.calls++;
	alt_apply_cb_seen.alt = alt;
	alt_apply_cb_seen.origptr = origptr;
	alt_apply_cb_seen.updptr = updptr;
	alt_apply_cb_seen.nr_inst = nr_inst;
	alt_apply_fill(updptr, nr_inst, ALT_APPLY_MOVZ(99));
}

/*
 * An entry with a callback (ARM64_CB_BIT) is patched by calling it once,
 * with the entry, the site, where to write (the site itself, for a
 * module's region) and the site's length in instructions.
 */
static void __apply_alternatives_calls_callback(struct kunit *test)
{
	DECLARE_BITMAP(mask, ARM64_NCAPS);
	int j;

	bitmap_fill(mask, ARM64_NCAPS);
	alt_apply_reset();
	memset(&alt_apply_cb_seen, 0, sizeof(alt_apply_cb_seen));
	alt_apply_entry(0, ARM64_ALWAYS_SYSTEM, 3, alt_apply_cb);
	alt_apply_region(test, 1, mask);
	KUNIT_EXPECT_EQ(test, alt_apply_cb_seen.calls, 1);
	KUNIT_EXPECT_PTR_EQ(test, alt_apply_cb_seen.alt, &alt_apply_buf.entries[0]);
	KUNIT_EXPECT_PTR_EQ(test, alt_apply_cb_seen.origptr, &alt_apply_buf.orig[0][0]);
	/* A module's region is patched in place. */
	KUNIT_EXPECT_PTR_EQ(test, alt_apply_cb_seen.updptr, &alt_apply_buf.orig[0][0]);
	KUNIT_EXPECT_EQ(test, alt_apply_cb_seen.nr_inst, 3);
	for (j = 0; j < ALT_APPLY_INSNS; j++)
		KUNIT_EXPECT_EQ_MSG(test, le32_to_cpu(alt_apply_buf.orig[0][j]),
				    j < 3 ? ALT_APPLY_MOVZ(99) : ALT_APPLY_NOP,
				    "instruction %d", j);
}

/*
 * Immediate branches (C6.2): each kind's opcode, and where its word
 * offset sits: B and BL imm26 at [25:0]; B.cond, CBZ imm19 at [23:5];
 * TBZ imm14 at [18:5]. The target is the branch's own address plus the
 * offset times 4.
 */
struct alt_apply_branch_kind {
	const char *name;
	u32 opcode;
	int shift, bits;
};

static const struct alt_apply_branch_kind alt_apply_b = { "B", 0x14000000U, 0, 26 };
static const struct alt_apply_branch_kind alt_apply_bl = { "BL", 0x94000000U, 0, 26 };
static const struct alt_apply_branch_kind alt_apply_bcond = { "B.NE", 0x54000001U, 5, 19 };
static const struct alt_apply_branch_kind alt_apply_cbz = { "CBZ X1", 0xb4000001U, 5, 19 };
static const struct alt_apply_branch_kind alt_apply_tbz = { "TBZ W2, #3", 0x36180002U, 5, 14 };

static u32 alt_apply_branch(const struct alt_apply_branch_kind *kind, long bytes)
{
	u32 imm = (u32)(bytes / 4) & (u32)GENMASK(kind->bits - 1, 0);

	return kind->opcode | imm << kind->shift;
}

/*
 * A branch at instruction @at of a two-instruction replacement, to @to
 * bytes from the replacement's start; whether the loop must re-aim it
 * at the same target from the site (outside the replacement), or leave
 * it as it is (inside, both ends included: the kernel's rule for a branch
 * to the instruction after the sequence).
 */
struct alt_apply_branch_row {
	const char *name;
	const struct alt_apply_branch_kind *kind;
	int at;
	long to;
	bool moved;
};

static const struct alt_apply_branch_row alt_apply_branch_rows[] = {
	{ "B_to_start_kept", &alt_apply_b, 0, 0, false },
	{ "B_to_second_kept", &alt_apply_b, 0, 4, false },
	{ "B_to_end_kept", &alt_apply_b, 0, 8, false },
	{ "B_from_second_to_start_kept", &alt_apply_b, 1, 0, false },
	{ "B_past_end_moved", &alt_apply_b, 0, 12, true },
	{ "B_before_start_moved", &alt_apply_b, 0, -4, true },
	{ "B_far_forward_moved", &alt_apply_b, 1, SZ_64K, true },
	{ "BL_far_back_moved", &alt_apply_bl, 0, -SZ_64K, true },
	{ "BL_to_end_kept", &alt_apply_bl, 1, 8, false },
	{ "Bcond_past_end_moved", &alt_apply_bcond, 0, 16, true },
	{ "Bcond_to_start_kept", &alt_apply_bcond, 1, 0, false },
	{ "CBZ_before_start_moved", &alt_apply_cbz, 1, -8, true },
	{ "CBZ_to_end_kept", &alt_apply_cbz, 0, 8, false },
	{ "TBZ_past_end_moved", &alt_apply_tbz, 1, 20, true },
	{ "TBZ_to_second_kept", &alt_apply_tbz, 0, 4, false },
};

static void alt_apply_branch_desc(const struct alt_apply_branch_row *row, char *desc)
{
	strscpy(desc, row->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(alt_apply_branch, alt_apply_branch_rows, alt_apply_branch_desc);

/* Each row of alt_apply_branch_rows[]: the word patched at the site. */
static void get_alt_insn_branch_by_target(struct kunit *test)
{
	const struct alt_apply_branch_row *row = test->param_value;
	DECLARE_BITMAP(mask, ARM64_NCAPS);
	__le32 *repl = alt_apply_buf.repl[0], *orig = alt_apply_buf.orig[0];
	long from_repl = row->to - row->at * AARCH64_INSN_SIZE;
	long target = (long)repl + row->to;
	long from_site = row->moved ? target - (long)&orig[row->at] : from_repl;
	u32 want = alt_apply_branch(row->kind, from_site);
	u32 got;

	bitmap_fill(mask, ARM64_NCAPS);
	alt_apply_reset();
	repl[row->at] = cpu_to_le32(alt_apply_branch(row->kind, from_repl));
	alt_apply_entry(0, ARM64_ALWAYS_SYSTEM, 2, NULL);
	alt_apply_region(test, 1, mask);
	got = le32_to_cpu(orig[row->at]);
	KUNIT_EXPECT_EQ_MSG(test, got, want,
			    "%s at replacement instruction %d to replacement+%ld (site %pS, replacement %pS): patched %#010x, want %#010x (%s)",
			    row->kind->name, row->at, row->to, orig, repl, got, want,
			    row->moved ? "the same target, from the site" : "as it is");
}

/* ADRP X0 (C6.2, ADRP: 1 immlo 10000 immhi Rd, imm = 4KB pages from PC's page) */
static u32 alt_apply_adrp(long pages)
{
	u32 imm = (u32)pages & (u32)GENMASK(20, 0);

	return 0x90000000U | (imm & 3) << 29 | (imm >> 2) << 5;
}

/*
 * An ADRP moved from the replacement to the site (another 4KB page) must
 * still yield the page of its target.
 */
static void get_alt_insn_adrp_by_page(struct kunit *test)
{
	DECLARE_BITMAP(mask, ARM64_NCAPS);
	__le32 *repl = alt_apply_buf.repl[0], *orig = alt_apply_buf.orig[0];
	long target = (long)&alt_apply_cb_seen & ~(long)(SZ_4K - 1);
	long repl_pages = (target - ((long)repl & ~(long)(SZ_4K - 1))) / SZ_4K;
	long want_pages = (target - ((long)orig & ~(long)(SZ_4K - 1))) / SZ_4K;
	u32 want = alt_apply_adrp(want_pages);
	u32 got;

	KUNIT_ASSERT_NE_MSG(test, repl_pages, want_pages,
			    "the site and its replacement share a 4KB page: nothing to move");
	bitmap_fill(mask, ARM64_NCAPS);
	alt_apply_reset();
	repl[0] = cpu_to_le32(alt_apply_adrp(repl_pages));
	alt_apply_entry(0, ARM64_ALWAYS_SYSTEM, 1, NULL);
	alt_apply_region(test, 1, mask);
	got = le32_to_cpu(orig[0]);
	KUNIT_EXPECT_EQ_MSG(test, got, want,
			    "ADRP X0 from replacement %pS to the page of %pS: patched %#010x at %pS, want %#010x (%ld pages)",
			    repl, (void *)target, got, orig, want, want_pages);
}

static struct kunit_case arm64_alternative_apply_cases[] = {
	KUNIT_CASE(__apply_alternatives_patches_every_instruction),
	KUNIT_CASE(__apply_alternatives_stops_at_region_end),
	KUNIT_CASE(__apply_alternatives_skips_cap_not_in_mask),
	KUNIT_CASE(__apply_alternatives_skips_cap_cpu_lacks),
	KUNIT_CASE(__apply_alternatives_calls_callback),
	KUNIT_CASE_PARAM(get_alt_insn_branch_by_target, alt_apply_branch_gen_params),
	KUNIT_CASE(get_alt_insn_adrp_by_page),
	{}
};

static struct kunit_suite arm64_alternative_apply_suite = {
	.name = "arm64_alternative_apply",
	.test_cases = arm64_alternative_apply_cases,
};

kunit_test_suite(arm64_alternative_apply_suite);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the ID register field extractors of <asm/cpufeature.h>:
 * cpuid_feature_extract_{signed,unsigned}_field{,_width}() and
 * cpuid_feature_extract_field{,_width}().
 *
 * Expected values come from the Arm ARM (DDI 0487 J.a, D19.1.3,
 * "Principles of the ID scheme for fields in ID registers"): a field is four bits wide at a
 * four-bit aligned position and holds either an unsigned value or a signed
 * two's complement one, so 0b1000 reads as 8 unsigned but -8 signed, and
 * 0b1111 as 15 unsigned but -1 signed ("not implemented" in a signed field
 * such as ID_AA64PFR0_EL1.FP).  The _width() variants are also used for the
 * narrower and wider fields of CTR_EL0, DCZID_EL0 and friends; for them the
 * same two's complement rule applies at every width.
 */

#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/cpufeature.h>

/* Print this many mismatches per case; the rest are only counted. */
#define FIELD_MAX_REPORTED	8

struct field_nibble {
	u8 raw;
	unsigned int as_unsigned;
	int as_signed;
};

/* Every value a 4-bit ID field can hold, read both ways. */
static const struct field_nibble field_nibbles[] = {
	{ .raw = 0x0, .as_unsigned = 0,  .as_signed = 0 },
	{ .raw = 0x1, .as_unsigned = 1,  .as_signed = 1 },
	{ .raw = 0x2, .as_unsigned = 2,  .as_signed = 2 },
	{ .raw = 0x3, .as_unsigned = 3,  .as_signed = 3 },
	{ .raw = 0x4, .as_unsigned = 4,  .as_signed = 4 },
	{ .raw = 0x5, .as_unsigned = 5,  .as_signed = 5 },
	{ .raw = 0x6, .as_unsigned = 6,  .as_signed = 6 },
	{ .raw = 0x7, .as_unsigned = 7,  .as_signed = 7 },
	{ .raw = 0x8, .as_unsigned = 8,  .as_signed = -8 },
	{ .raw = 0x9, .as_unsigned = 9,  .as_signed = -7 },
	{ .raw = 0xa, .as_unsigned = 10, .as_signed = -6 },
	{ .raw = 0xb, .as_unsigned = 11, .as_signed = -5 },
	{ .raw = 0xc, .as_unsigned = 12, .as_signed = -4 },
	{ .raw = 0xd, .as_unsigned = 13, .as_signed = -3 },
	{ .raw = 0xe, .as_unsigned = 14, .as_signed = -2 },
	{ .raw = 0xf, .as_unsigned = 15, .as_signed = -1 },
};

/* The bits around the field under test: all clear, then all set. */
static const u64 field_neighbours[] = { 0, ~0ULL };

/* Positions 0, 4, ... 60: where the Arm ARM places 4-bit ID fields. */
static const int field_positions[] = {
	0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60,
};

static void field_position_desc(const int *pos, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "bits [%d:%d]", *pos + 3, *pos);
}

KUNIT_ARRAY_PARAM(field_position, field_positions, field_position_desc);

/* Every width the _width() helpers can return in full (they return int). */
static const int field_widths[] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
};

static void field_width_desc(const int *width, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%d-bit fields", *width);
}

KUNIT_ARRAY_PARAM(field_width, field_widths, field_width_desc);

struct field_checker {
	struct kunit *test;
	unsigned int checked;
	unsigned int mismatches;
};

static void field_check(struct field_checker *c, const char *fn, u64 reg,
			int pos, int width, s64 got, s64 want)
{
	c->checked++;
	if (got == want)
		return;
	if (++c->mismatches <= FIELD_MAX_REPORTED)
		KUNIT_FAIL(c->test,
			   "%s(%#018llx, field %d, width %d) = %lld, expected %lld",
			   fn, reg, pos, width, got, want);
}

static void field_check_done(struct field_checker *c)
{
	KUNIT_EXPECT_GT(c->test, c->checked, 0U);
	KUNIT_EXPECT_EQ_MSG(c->test, c->mismatches, 0U,
			    "%u of %u extractions were wrong",
			    c->mismatches, c->checked);
}

/* @raw placed at bits [pos + width - 1:pos] of @neighbours. */
static u64 field_place(u64 neighbours, int pos, int width, u64 raw)
{
	u64 mask = GENMASK_ULL(pos + width - 1, pos);

	return (neighbours & ~mask) | ((raw << pos) & mask);
}

/*
 * Runs @check on every 4-bit value at the position of the test's
 * parameter, with the neighbouring bits clear and then set.
 */
static void field_every_nibble(struct kunit *test,
			       void (*check)(struct field_checker *c, u64 reg,
					     int pos,
					     const struct field_nibble *f))
{
	const int pos = *(const int *)test->param_value;
	struct field_checker c = { .test = test };
	int i, n;

	for (n = 0; n < ARRAY_SIZE(field_neighbours); n++) {
		for (i = 0; i < ARRAY_SIZE(field_nibbles); i++) {
			const struct field_nibble *f = &field_nibbles[i];

			check(&c, field_place(field_neighbours[n], pos, 4, f->raw),
			      pos, f);
		}
	}
	field_check_done(&c);
}

static void field_check_unsigned(struct field_checker *c, u64 reg, int pos,
				 const struct field_nibble *f)
{
	field_check(c, "cpuid_feature_extract_unsigned_field", reg, pos, 4,
		    cpuid_feature_extract_unsigned_field(reg, pos),
		    f->as_unsigned);
	field_check(c, "cpuid_feature_extract_unsigned_field_width", reg, pos, 4,
		    cpuid_feature_extract_unsigned_field_width(reg, pos, 4),
		    f->as_unsigned);
}

static void field_check_signed(struct field_checker *c, u64 reg, int pos,
			       const struct field_nibble *f)
{
	field_check(c, "cpuid_feature_extract_signed_field", reg, pos, 4,
		    cpuid_feature_extract_signed_field(reg, pos),
		    f->as_signed);
	field_check(c, "cpuid_feature_extract_signed_field_width", reg, pos, 4,
		    cpuid_feature_extract_signed_field_width(reg, pos, 4),
		    f->as_signed);
}

static void field_check_either(struct field_checker *c, u64 reg, int pos,
			       const struct field_nibble *f)
{
	field_check(c, "cpuid_feature_extract_field(unsigned)", reg, pos, 4,
		    cpuid_feature_extract_field(reg, pos, false),
		    f->as_unsigned);
	field_check(c, "cpuid_feature_extract_field(signed)", reg, pos, 4,
		    cpuid_feature_extract_field(reg, pos, true),
		    f->as_signed);
	field_check(c, "cpuid_feature_extract_field_width(unsigned)", reg, pos, 4,
		    cpuid_feature_extract_field_width(reg, pos, 4, false),
		    f->as_unsigned);
	field_check(c, "cpuid_feature_extract_field_width(signed)", reg, pos, 4,
		    cpuid_feature_extract_field_width(reg, pos, 4, true),
		    f->as_signed);
}

/*
 * Every 4-bit value at the 4-bit position of the parameter (0..60), with
 * the neighbouring bits all clear and all set, through the unsigned
 * extractors: 0b1000 is 8, 0b1111 is 15.
 */
static void cpuid_feature_extract_unsigned_field_every_position(struct kunit *test)
{
	field_every_nibble(test, field_check_unsigned);
}

/* The same through the signed extractors: 0b1000 is -8, 0b1111 is -1. */
static void cpuid_feature_extract_signed_field_every_position(struct kunit *test)
{
	field_every_nibble(test, field_check_signed);
}

/*
 * The same through the extractors that take the sign as an argument, both
 * ways.
 */
static void cpuid_feature_extract_field_every_position(struct kunit *test)
{
	field_every_nibble(test, field_check_either);
}

static void field_width_check(struct field_checker *c, u64 reg, int pos,
			      int width, u64 as_unsigned, s64 as_signed)
{
	field_check(c, "cpuid_feature_extract_unsigned_field_width",
		    reg, pos, width,
		    cpuid_feature_extract_unsigned_field_width(reg, pos, width),
		    as_unsigned);
	field_check(c, "cpuid_feature_extract_signed_field_width",
		    reg, pos, width,
		    cpuid_feature_extract_signed_field_width(reg, pos, width),
		    as_signed);
	/* An int result: an unsigned value reads back as its bit pattern. */
	field_check(c, "cpuid_feature_extract_field_width(unsigned)",
		    reg, pos, width,
		    (u32)cpuid_feature_extract_field_width(reg, pos, width, false),
		    as_unsigned);
	field_check(c, "cpuid_feature_extract_field_width(signed)",
		    reg, pos, width,
		    cpuid_feature_extract_field_width(reg, pos, width, true),
		    as_signed);
}

/*
 * Every width of the parameter (1 to 32 bits) at every position, with
 * the neighbouring bits clear and set, at the boundaries of a @width-bit
 * field: zero, one, the largest positive and the most negative two's
 * complement values, and all ones (-1 signed). A 1-bit field has only 0
 * and 1, which read as 0 and -1 when signed.
 */
static void cpuid_feature_extract_field_width_every_width(struct kunit *test)
{
	const int width = *(const int *)test->param_value;
	const u64 top = 1ULL << (width - 1);
	const u64 raws[] = { 0, 1, top - 1, top, top + 1, (top << 1) - 1 };
	struct field_checker c = { .test = test };
	int pos, i, n;

	for (pos = 0; pos + width <= 64; pos++) {
		for (n = 0; n < ARRAY_SIZE(field_neighbours); n++) {
			for (i = 0; i < ARRAY_SIZE(raws); i++) {
				u64 raw = raws[i] & GENMASK_ULL(width - 1, 0);
				u64 reg = field_place(field_neighbours[n], pos,
						      width, raw);
				s64 as_signed = raw;

				if (raw & top)
					as_signed -= (s64)(top << 1);
				field_width_check(&c, reg, pos, width, raw,
						  as_signed);
			}
		}
	}
	field_check_done(&c);
}

static struct kunit_case arm64_cpufeature_field_cases[] = {
	KUNIT_CASE_PARAM(cpuid_feature_extract_unsigned_field_every_position,
			 field_position_gen_params),
	KUNIT_CASE_PARAM(cpuid_feature_extract_signed_field_every_position,
			 field_position_gen_params),
	KUNIT_CASE_PARAM(cpuid_feature_extract_field_every_position,
			 field_position_gen_params),
	KUNIT_CASE_PARAM(cpuid_feature_extract_field_width_every_width,
			 field_width_gen_params),
	{}
};

static struct kunit_suite arm64_cpufeature_field_suite = {
	.name = "arm64_cpufeature_field",
	.test_cases = arm64_cpufeature_field_cases,
};

kunit_test_suite(arm64_cpufeature_field_suite);

MODULE_DESCRIPTION("KUnit tests for arm64 ID register field extraction");
MODULE_LICENSE("GPL");

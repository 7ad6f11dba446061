// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the demo: feature_matches() of <asm/cpufeature.h>, with
 * x->y and >= in the text.
 *
 * Each row is one of:
 * - a field at its minimum;
 * - a field below it, which must not
 *   match.
 * What is left after the list.
 */

#include <kunit/test.h>

/* Saves what .exit checks. */
static int demo_init(struct kunit *test)
{
	return 0;
}

static void demo_exit(struct kunit *test)
{
}

/* The rows above, one parameter each. */
static void demo_rows(struct kunit *test)
{
}

static void demo_bare(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, IS_ENABLED(CONFIG_ARM64_DEMO_KUNIT_TEST_NEVER));
}

/*
 * The new rule of 6.17.
 *
 * 2. A second paragraph.
 */
static void demo_new(struct kunit *test)
{
}

static struct kunit_case __refdata arm64_demo_cases[] = {
	KUNIT_CASE_PARAM(demo_rows, demo_gen_params),
	KUNIT_CASE(demo_bare),
	KUNIT_CASE(demo_new),
	{}
};

static struct kunit_suite arm64_demo_suite = {
	.name = "arm64_demo",
	.init = demo_init,
	.exit = demo_exit,
	.test_cases = arm64_demo_cases,
};

kunit_test_suite(arm64_demo_suite);

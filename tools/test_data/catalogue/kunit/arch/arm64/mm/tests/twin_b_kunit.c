// SPDX-License-Identifier: GPL-2.0
/*
 * Twin b.
 */

#include "twin_kunit.h"

/* Twin b's case. */
static void twin_b_case(struct kunit *test)
{
}

static struct kunit_case arm64_twin_b_cases[] = {
	KUNIT_CASE(twin_b_case),
	{}
};

static struct kunit_suite arm64_twin_b_suite = {
	.name = "arm64_twin_b",
	.exit = twin_exit,
	.test_cases = arm64_twin_b_cases,
};

kunit_test_suite(arm64_twin_b_suite);

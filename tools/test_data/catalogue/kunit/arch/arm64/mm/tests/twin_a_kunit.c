// SPDX-License-Identifier: GPL-2.0
/*
 * Twin a.
 */

#include "twin_kunit.h"

/* Twin a's case. */
static void twin_a_case(struct kunit *test)
{
}

static struct kunit_case arm64_twin_a_cases[] = {
	KUNIT_CASE(twin_a_case),
	{}
};

static struct kunit_suite arm64_twin_a_suite = {
	.name = "arm64_twin_a",
	.exit = twin_exit,
	.test_cases = arm64_twin_a_cases,
};

kunit_test_suite(arm64_twin_a_suite);

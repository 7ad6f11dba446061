// SPDX-License-Identifier: GPL-2.0-only
/*
 * A second stand-in KUnit suite (pan_kunit_test.py fixture), #included at
 * the end of the fake cpufeature.c to reach the static cpu_enable_pan().
 */

#include <kunit/test.h>

static void fake_enable_pan(struct kunit *test)
{
	KUNIT_EXPECT_PTR_NE(test, cpu_enable_pan, NULL);
}

static struct kunit_case arm64_cpucap_fake_cases[] = {
	KUNIT_CASE(fake_enable_pan),
	{}
};

static struct kunit_suite arm64_cpucap_fake_suite = {
	.name = "arm64_cpucap_fake",
	.test_cases = arm64_cpucap_fake_cases,
};

kunit_test_suite(arm64_cpucap_fake_suite);

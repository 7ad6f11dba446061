// SPDX-License-Identifier: GPL-2.0-only
/*
 * A stand-in KUnit suite (pan_kunit_test.py fixture): installed into the
 * fake tree as arch/arm64/kernel/cpufeature_fake_test.c.
 */

#include <kunit/test.h>
#include "cpufeature_fake_test.h"

static void fake_pan_field(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, FAKE_PAN_SHIFT, 20);
}

static struct kunit_case arm64_cpufeature_fake_cases[] = {
	KUNIT_CASE(fake_pan_field),
	{}
};

static struct kunit_suite arm64_cpufeature_fake_suite = {
	.name = "arm64_cpufeature_fake",
	.test_cases = arm64_cpufeature_fake_cases,
};

kunit_test_suite(arm64_cpufeature_fake_suite);

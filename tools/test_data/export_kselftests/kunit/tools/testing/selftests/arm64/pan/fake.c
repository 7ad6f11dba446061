// SPDX-License-Identifier: GPL-2.0
/* A fake kselftest (export_test.py fixture). */
#include "kselftest_harness.h"

TEST(fake)
{
	EXPECT_EQ(0, 0);
}

TEST_HARNESS_MAIN

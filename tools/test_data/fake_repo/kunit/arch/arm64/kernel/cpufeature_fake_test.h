/* SPDX-License-Identifier: GPL-2.0-only */
/* A stand-in header of the fake suite (pan_kunit_test.py fixture). */
#define FAKE_PAN_SHIFT	20

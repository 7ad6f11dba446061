/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the twin suites share.
 */

/* The .exit of both twins. */
static inline void twin_exit(struct kunit *test)
{
}

// SPDX-License-Identifier: GPL-2.0
/* What function_ranges() reads: kernel-style definitions. */
static int helper(int x);

static inline int __attribute_const__
helper(int x)
{
	if (x)
		return 1;
	return 0;
}

#ifdef CONFIG_ONE
static inline bool twice(void)
{
	return true;
}
#else
static inline bool twice(void) { return false; }
#endif

static inline bool twice_stub(void)
{
	return twice();
}

int caller(int a,
	   int b)
{
	return helper(a) +
	       helper(b);
}

// SPDX-License-Identifier: GPL-2.0
/* mutagen_test.py fixture: one place for each operator of mutagen.py. */

#define LIMIT(x)	((x) > 7)

static int helper(int a, int b)
{
	return a - b;
}

static void note(int v)
{
	(void)v;
}

int sample(int val, int min, unsigned int bits)
{
	int other = 0x10;

	if (val >= min && bits != 0)
		note(val);
	if (LIMIT(val) || bits < 3)
		other |= bits << 2;
	other = other ^ (bits & 1);
	return helper(val, min) + other;
}

#define CHECK(x)	do { if (x) note(1); } while (0)

int expanded(int val)
{
	CHECK(val != 0);
	return val;
}

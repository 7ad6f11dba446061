// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit test of Privileged Access Never (PAN) on a CPU brought back
 * online: cpu_enable_pan() runs again for it, as for a late CPU.
 */

#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>

#include "pan_kunit.h"

/* The CPUs online before the case, which .exit brings back. */
struct pant_hotplug_ctx {
	unsigned int online_cpus;
	cpumask_t online;
};

/*
 * Without the CPU's PAN the case skips; else the online CPUs are noted for
 * .exit.
 */
static int pant_hotplug_init(struct kunit *test)
{
	struct pant_hotplug_ctx *ctx;

	if (!pant_cpu_has_pan())
		kunit_skip(test, PANT_NO_PAN_REASON);
	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	cpumask_copy(&ctx->online, cpu_online_mask);
	ctx->online_cpus = num_online_cpus();
	test->priv = ctx;
	return 0;
}

/*
 * User access is closed, and every CPU a case left offline is brought
 * back: as many CPUs are online as before.
 */
static void pant_hotplug_exit(struct kunit *test)
{
	struct pant_hotplug_ctx *ctx = test->priv;
	unsigned int cpu;

	pant_exit_closed(test);
	if (!ctx)
		return;
	/* A case that stopped half way: bring its CPU back. */
	for_each_cpu(cpu, &ctx->online)
		if (!cpu_online(cpu))
			KUNIT_EXPECT_EQ_MSG(test, add_cpu(cpu), 0, "CPU%u left offline", cpu);
	KUNIT_EXPECT_EQ(test, num_online_cpus(), ctx->online_cpus);
}

/*
 * The last online CPU, taken offline with remove_cpu() and brought back
 * with add_cpu(), has SPAN 0 and PAN 1.
 */
static void cpu_hotplug_reenables_pan(struct kunit *test)
{
	unsigned int cpu = cpumask_last(cpu_online_mask);

	if (cpu == 0)
		kunit_skip(test, "only CPU0 online: nothing to take offline");

	KUNIT_ASSERT_EQ(test, remove_cpu(cpu), 0);
	KUNIT_EXPECT_FALSE(test, cpu_online(cpu));
	KUNIT_ASSERT_EQ(test, add_cpu(cpu), 0);
	KUNIT_ASSERT_TRUE(test, cpu_online(cpu));
	pant_expect_cpu_enabled(test, cpu);
}

static struct kunit_case arm64_pan_hotplug_cases[] = {
	KUNIT_CASE(cpu_hotplug_reenables_pan),
	{}
};

static struct kunit_suite arm64_pan_hotplug_suite = {
	.name = "arm64_pan_hotplug",
	.init = pant_hotplug_init,
	.exit = pant_hotplug_exit,
	.test_cases = arm64_pan_hotplug_cases,
};

kunit_test_suite(arm64_pan_hotplug_suite);

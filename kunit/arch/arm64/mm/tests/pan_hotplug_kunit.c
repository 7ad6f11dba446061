// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of Privileged Access Never (PAN) on a CPU brought back
 * online: cpu_enable_pan() runs again for it, as for a late CPU, and user
 * access is closed there, whether the CPU or TTBR0 switching provides
 * PAN.
 */

#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>

#include "pan_helpers.h"

/* Without any PAN, neither the CPU's nor TTBR0 switching, every case skips. */
static int pant_hotplug_init(struct kunit *test)
{
	if (pant_get_kind() == PANT_NONE)
		kunit_skip(test, PANT_NO_PAN_REASON ", and CONFIG_ARM64_SW_TTBR0_PAN=n");
	return 0;
}

/* A CPU a case takes offline, and the case, to report on it. */
struct pant_offline_cpu {
	struct kunit *test;
	unsigned int cpu;
};

/*
 * Brings @data's CPU back online if it is not: a deferred action, run by
 * the case itself or, if an assertion or skip ended the case first, when
 * KUnit cleans up after it, so that no CPU stays offline.
 */
static void pant_online_again(void *data)
{
	struct pant_offline_cpu *off = data;

	if (!cpu_online(off->cpu))
		KUNIT_EXPECT_EQ_MSG(off->test, add_cpu(off->cpu), 0, "add_cpu(%u)", off->cpu);
}

/*
 * Takes the last online CPU that can be taken offline (not CPU0, nor one
 * the platform keeps, such as a CPU without PSCI CPU_OFF) offline and
 * brings it back: that CPU. Skips where none can go, or where the kernel
 * refuses (-EBUSY: a housekeeping CPU; -EOPNOTSUPP).
 */
static unsigned int pant_cycle_last_cpu(struct kunit *test)
{
	struct pant_offline_cpu *off;
	unsigned int cpu, found = nr_cpu_ids;
	int err;

	for_each_online_cpu(cpu)
		if (cpu != 0 && cpu_is_hotpluggable(cpu))
			found = cpu;
	if (found >= nr_cpu_ids)
		kunit_skip(test, "no online CPU but CPU0 can be taken offline");

	off = kunit_kzalloc(test, sizeof(*off), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, off);
	off->test = test;
	off->cpu = found;
	err = kunit_add_action_or_reset(test, pant_online_again, off);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "CPU%u: kunit_add_action_or_reset()", found);

	err = remove_cpu(found);
	if (err == -EBUSY || err == -EOPNOTSUPP || err == -EPERM)
		kunit_skip(test, "remove_cpu(%u) refused: %d", found, err);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "remove_cpu(%u)", found);
	KUNIT_EXPECT_FALSE_MSG(test, cpu_online(found), "CPU%u after remove_cpu()", found);
	kunit_release_action(test, pant_online_again, off);
	KUNIT_ASSERT_TRUE_MSG(test, cpu_online(found), "CPU%u after add_cpu()", found);
	return found;
}

/*
 * The last CPU that can go offline, taken offline with remove_cpu() and brought back
 * with add_cpu(), has SPAN 0 and PAN 1. Only with the CPU's PAN: TTBR0
 * PAN has neither bit (cpu_hotplug_closes_user_access checks its tables).
 */
static void cpu_hotplug_reenables_pan(struct kunit *test)
{
	unsigned int cpu;

	if (!pant_cpu_has_pan())
		kunit_skip(test, PANT_NO_PAN_REASON ": no SCTLR_EL1.SPAN or PSTATE.PAN to set");
	cpu = pant_cycle_last_cpu(test);
	pant_expect_cpu_enabled(test, cpu);
}

struct pant_closed_on {
	struct kunit *test;
	int cpu;
};

static long pant_closed_on_fn(void *arg)
{
	struct pant_closed_on *on = arg;
	char what[64];

	on->cpu = raw_smp_processor_id();
	snprintf(what, sizeof(what), "a work item on CPU%d, brought back online", on->cpu);
	pant_expect_closed(on->test, NULL, what);
	return 0;
}

/*
 * On the CPU brought back online, a thread without a user mm (a work
 * item's) has user access closed, seen directly and by an interrupt:
 * PSTATE.PAN set under the CPU's PAN; under TTBR0 PAN, TTBR0_EL1 on
 * reserved_pg_dir with the reserved ASID, as the CPU's boot path leaves
 * it once it is done with the identity map, not on the identity map's
 * tables, which would be left there until the CPU's first uaccess, entry
 * from EL0 or resume from suspend. The suite is built in and runs before
 * any user space, so nothing but the work item runs there first; run
 * again after boot (KUnit's debugfs), another task may, and it skips.
 */
static void cpu_hotplug_closes_user_access(struct kunit *test)
{
	struct pant_closed_on on = { .test = test, .cpu = -1 };
	unsigned int cpu;

	if (system_state == SYSTEM_RUNNING)
		kunit_skip(test, "run after boot: a task may run on the CPU before the work item");
	cpu = pant_cycle_last_cpu(test);

	KUNIT_ASSERT_EQ(test, work_on_cpu(cpu, pant_closed_on_fn, &on), 0);
	KUNIT_EXPECT_EQ_MSG(test, on.cpu, (int)cpu, "work item ran on another CPU");
}

static struct kunit_case arm64_pan_hotplug_cases[] = {
	KUNIT_CASE(cpu_hotplug_reenables_pan),
	KUNIT_CASE(cpu_hotplug_closes_user_access),
	{}
};

static struct kunit_suite arm64_pan_hotplug_suite = {
	.name = "arm64_pan_hotplug",
	.init = pant_hotplug_init,
	.exit = pant_exit_closed,
	.test_cases = arm64_pan_hotplug_cases,
};

kunit_test_suite(arm64_pan_hotplug_suite);

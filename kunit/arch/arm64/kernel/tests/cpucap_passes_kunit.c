// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the capability passes of cpufeature.c: detection
 * (__update_cpu_capabilities()), enabling (__enable_cpu_capabilities(),
 * which calls cpu_enable() directly for the boot CPU scope and through
 * stop_machine() on every online CPU for the other scopes) and the check
 * of a CPU that comes up after the capabilities were finalised
 * (__verify_local_cpu_caps()).
 *
 * This file is #included at the end of cpufeature.c so that it can reach
 * those static functions. Every case runs them over a fake capability
 * table and a private pair of bitmaps (struct cpucap_set), never over the
 * system's: .exit checks that the system's capability bitmaps
 * (system_cpucaps and boot_cpucaps) and elf_hwcap are unchanged. These
 * are global, so the check holds whichever thread .exit runs in.
 *
 * The contract: the enable callbacks run in a pass of their own, after
 * detection: every capability of a pass is detected
 * before any is enabled, so that an enable callback can take the other
 * capabilities into account. The late CPU rules are those of the
 * ARM64_CPUCAP_* type bits in <asm/cpufeature.h>, checked for every type
 * both ways. The fake matches() records the scope it is asked for: the
 * detect pass must ask for the row's own scope, the late CPU check for
 * SCOPE_LOCAL_CPU. The kernel's own PAN row is run through the passes
 * too, with a fake matches(), to show its type makes it a system feature.
 * The late CPU check that the CPU hotplug code runs,
 * check_local_cpu_capabilities(), is run over a fake table too: static
 * stubs give it the case's set, record how it refuses a CPU, and stand in
 * for the checks of the CPU's hwcaps, vector lengths, KVM limits and
 * MPAM, which would park this CPU or rewrite its SVE and SME vector
 * length for real. Nothing in a case parks or panics a CPU.
 *
 * __enable_cpu_capabilities() is __init, so this is an init section
 * suite.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/preempt.h>
#include <linux/smp.h>
#include <linux/stop_machine.h>

/* Fake capability numbers: bits of the private bitmaps only */
#define PASSES_NCAPS		6
#define PASSES_NO_SEQ		INT_MAX

struct passes_log {
	atomic_t seq;			/* one tick per matches() or cpu_enable() */
	int last_match_seq;
	atomic_t first_enable_seq;
	bool has[PASSES_NCAPS];		/* what matches() answers */
	int matches[PASSES_NCAPS];
	u16 match_scopes[PASSES_NCAPS];	/* every scope matches() was asked */
	atomic_t enables[PASSES_NCAPS];
	atomic_t enables_undetected;
	struct cpumask enable_cpus[PASSES_NCAPS];
	/* the private bitmap, seen by each capability's first cpu_enable() */
	unsigned long seen_at_enable[PASSES_NCAPS];
	atomic_t seen_recorded[PASSES_NCAPS];
};

/*
 * A copy of the kernel's own PAN row with fake callbacks, alone in a
 * private set as big as the system's, at its own capability number.
 */
struct passes_pan {
	struct arm64_cpu_capabilities row;
	const struct arm64_cpu_capabilities *ptrs[ARM64_NCAPS];
	DECLARE_BITMAP(caps, ARM64_NCAPS);
	DECLARE_BITMAP(boot_caps, ARM64_NCAPS);
	struct cpucap_set set;
	u16 answers;		/* the scopes for which matches() says yes */
	u16 asked;		/* every scope matches() was asked */
	atomic_t enables;
};

/* How many registers and rows a case of CPUs that differ lends and copies */
#define PASSES_LEND_REGS	2
#define PASSES_REAL_ROWS	3

/* The fields of an ID register a late CPU has of its own */
struct passes_lend_reg {
	u32 sys_id;
	const char *name;
	u64 mask;		/* the fields lent */
	u64 boot, cpu;		/* their values: the boot CPU's, the late CPU's */
};

/*
 * Copies of the kernel's own rows, at their own capability numbers, in a
 * private set as big as the system's; and one check of a late CPU over
 * them, with the registers it lends.
 */
struct passes_real {
	struct arm64_cpu_capabilities rows[PASSES_REAL_ROWS];
	int nr_rows;
	const struct arm64_cpu_capabilities *ptrs[ARM64_NCAPS];
	DECLARE_BITMAP(caps, ARM64_NCAPS);
	DECLARE_BITMAP(boot_caps, ARM64_NCAPS);
	struct cpucap_set set;
	u16 scope_mask;		/* the scopes the late CPU is checked for */
	const struct arm64_cpu_capabilities *conflict;
	struct passes_lend_reg lend[PASSES_LEND_REGS];
	int nr_lend;
	int strict[PASSES_LEND_REGS];	/* check_update_ftr_reg()'s verdict */
};

struct passes_ctx {
	struct arm64_cpu_capabilities rows[PASSES_NCAPS];
	/* Each row's desc, which the kernel prints: "KUnit fake <name>" */
	char descs[PASSES_NCAPS][KUNIT_PARAM_DESC_SIZE + 16];
	const struct arm64_cpu_capabilities *ptrs[PASSES_NCAPS];
	DECLARE_BITMAP(caps, PASSES_NCAPS);
	DECLARE_BITMAP(boot_caps, PASSES_NCAPS);
	struct cpucap_set set;
	struct passes_log log;
	struct passes_pan pan;
	struct passes_real real;
	/* How the late CPU check refused a CPU, instead of doing it */
	atomic_t parked;
	atomic_t panicked;
	/* Calls of the checks beyond the capability rows, not run */
	atomic_t features;
	/* The ASID size the late CPU has */
	const struct passes_asid *asid;
};

/* The context of the running case; the callbacks only get their row. */
static struct passes_ctx *passes_ctx;

static DECLARE_BITMAP(passes_saved_hwcaps, ARM64_NCAPS);
static DECLARE_BITMAP(passes_saved_boot_caps, ARM64_NCAPS);
static DECLARE_BITMAP(passes_saved_elf_hwcap, MAX_CPU_FEATURES);

static bool passes_matches(const struct arm64_cpu_capabilities *cap, int scope)
{
	struct passes_log *log = &passes_ctx->log;

	log->last_match_seq = atomic_inc_return(&log->seq);
	log->matches[cap->capability]++;
	log->match_scopes[cap->capability] |= scope;
	return log->has[cap->capability];
}

/* May run on every online CPU at once, from stop_machine(). */
static void passes_cpu_enable(const struct arm64_cpu_capabilities *cap)
{
	struct passes_log *log = &passes_ctx->log;
	unsigned int num = cap->capability;
	int seq = atomic_inc_return(&log->seq);

	atomic_cmpxchg(&log->first_enable_seq, PASSES_NO_SEQ, seq);
	atomic_inc(&log->enables[num]);
	cpumask_set_cpu(raw_smp_processor_id(), &log->enable_cpus[num]);
	if (!test_bit(num, passes_ctx->caps))
		atomic_inc(&log->enables_undetected);
	if (atomic_xchg(&log->seen_recorded[num], 1) == 0)
		log->seen_at_enable[num] = passes_ctx->caps[0];
}

static void passes_add_row(struct passes_ctx *ctx, unsigned int num, u16 type,
			   const char *desc, bool has)
{
	struct arm64_cpu_capabilities *row = &ctx->rows[num];

	snprintf(ctx->descs[num], sizeof(ctx->descs[num]), "KUnit fake %s", desc);
	row->desc = ctx->descs[num];
	row->capability = num;
	row->type = type;
	row->matches = passes_matches;
	row->cpu_enable = passes_cpu_enable;
	ctx->ptrs[num] = row;
	ctx->log.has[num] = has;
}

/*
 * Each case gets a fresh fake table and private bitmaps; the system's
 * capability bitmaps and elf_hwcap are saved for .exit.
 */
static int passes_init(struct kunit *test)
{
	struct passes_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	int i;

	if (!ctx)
		return -ENOMEM;
	atomic_set(&ctx->log.first_enable_seq, PASSES_NO_SEQ);
	for (i = 0; i < PASSES_NCAPS; i++)
		atomic_set(&ctx->log.enables[i], 0);
	ctx->set.ptrs = ctx->ptrs;
	ctx->set.caps = ctx->caps;
	ctx->set.boot_caps = ctx->boot_caps;
	ctx->set.ncaps = PASSES_NCAPS;
	passes_ctx = ctx;
	test->priv = ctx;

	bitmap_copy(passes_saved_hwcaps, system_cpucaps, ARM64_NCAPS);
	bitmap_copy(passes_saved_boot_caps, boot_cpucaps, ARM64_NCAPS);
	bitmap_copy(passes_saved_elf_hwcap, elf_hwcap, MAX_CPU_FEATURES);
	return 0;
}

/*
 * The system's capability bitmaps and elf_hwcap are as .init found them:
 * the passes ran over the case's private set alone.
 */
static void passes_exit(struct kunit *test)
{
	bool same_caps = bitmap_equal(passes_saved_hwcaps, system_cpucaps, ARM64_NCAPS);
	bool same_boot = bitmap_equal(passes_saved_boot_caps, boot_cpucaps, ARM64_NCAPS);
	bool same_elf = bitmap_equal(passes_saved_elf_hwcap, elf_hwcap, MAX_CPU_FEATURES);

	passes_ctx = NULL;
	KUNIT_EXPECT_TRUE_MSG(test, same_caps,
			      "system_cpucaps changed: was %*pb, now %*pb",
			      ARM64_NCAPS, passes_saved_hwcaps, ARM64_NCAPS, system_cpucaps);
	KUNIT_EXPECT_TRUE_MSG(test, same_boot,
			      "boot_cpucaps changed: was %*pb, now %*pb",
			      ARM64_NCAPS, passes_saved_boot_caps, ARM64_NCAPS, boot_cpucaps);
	KUNIT_EXPECT_TRUE_MSG(test, same_elf,
			      "elf_hwcap changed");
}

/*
 * The two passes as boot runs them for each scope: setup_boot_cpu_capabilities()
 * detects the boot and local CPU scopes and enables the boot scope, then
 * setup_system_capabilities() detects the system scope and enables the
 * rest on every CPU.
 */
struct passes_scope {
	const char *name;
	u16 type;
	u16 detect;
	u16 enable;
	bool every_cpu;		/* enabled through stop_machine() */
};

static const struct passes_scope passes_scopes[] = {
	{ .name = "boot_cpu", .type = ARM64_CPUCAP_BOOT_CPU_FEATURE,
	  .detect = SCOPE_BOOT_CPU | SCOPE_LOCAL_CPU, .enable = SCOPE_BOOT_CPU },
	{ .name = "local_cpu", .type = ARM64_CPUCAP_WEAK_LOCAL_CPU_FEATURE,
	  .detect = SCOPE_BOOT_CPU | SCOPE_LOCAL_CPU,
	  .enable = SCOPE_ALL & ~SCOPE_BOOT_CPU, .every_cpu = true },
	{ .name = "system", .type = ARM64_CPUCAP_SYSTEM_FEATURE,
	  .detect = SCOPE_SYSTEM, .enable = SCOPE_ALL & ~SCOPE_BOOT_CPU,
	  .every_cpu = true },
};

static void passes_scope_desc(const struct passes_scope *s, char *desc)
{
	strscpy(desc, s->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(passes_scope, passes_scopes, passes_scope_desc);

/*
 * A table of one scope in which capabilities 0, 2, 3 and 5 are present and
 * 1 and 4 are not. Capability 0 comes first and 5 last, so 0's enable
 * callback shows whether 5 was detected before it.
 */
static void passes_one_scope_table(struct passes_ctx *ctx, u16 type)
{
	passes_add_row(ctx, 0, type, "first, present", true);
	passes_add_row(ctx, 1, type, "absent", false);
	passes_add_row(ctx, 2, type, "present", true);
	passes_add_row(ctx, 3, type, "present", true);
	passes_add_row(ctx, 4, type, "absent", false);
	passes_add_row(ctx, 5, type, "last, present", true);
}

static void __init passes_run(struct kunit *test, const struct passes_scope *s)
{
	struct passes_ctx *ctx = test->priv;

	__update_cpu_capabilities(&ctx->set, s->detect);
	__enable_cpu_capabilities(&ctx->set, s->enable);
}

/*
 * A table of one scope (boot CPU, local CPU or system) through the two
 * passes as boot runs them: every matches() call comes before the first
 * cpu_enable().
 */
static void __init enable_cpu_capabilities_after_every_match(struct kunit *test)
{
	const struct passes_scope *s = test->param_value;
	struct passes_ctx *ctx = test->priv;
	struct passes_log *log = &ctx->log;
	int first_enable, i;

	passes_one_scope_table(ctx, s->type);
	passes_run(test, s);

	first_enable = atomic_read(&log->first_enable_seq);
	KUNIT_ASSERT_NE_MSG(test, first_enable, PASSES_NO_SEQ,
			    "%s: no cpu_enable() call at all", s->name);
	for (i = 0; i < PASSES_NCAPS; i++)
		KUNIT_EXPECT_EQ_MSG(test, log->matches[i], 1,
				    "%s: matches() calls for capability %d (%s)",
				    s->name, i, ctx->rows[i].desc);
	KUNIT_EXPECT_LT_MSG(test, log->last_match_seq, first_enable,
			    "%s: a matches() call (#%d) came after the first cpu_enable() (#%d)",
			    s->name, log->last_match_seq, first_enable);
}

/*
 * Each detected capability is enabled exactly once per CPU: on the calling
 * CPU for the boot CPU scope, on every online CPU through stop_machine()
 * for the others. An undetected one is never enabled.
 */
static void __init enable_cpu_capabilities_once_per_detected(struct kunit *test)
{
	const struct passes_scope *s = test->param_value;
	struct passes_ctx *ctx = test->priv;
	struct passes_log *log = &ctx->log;
	unsigned int expected_calls;
	int i;

	passes_one_scope_table(ctx, s->type);
	passes_run(test, s);
	expected_calls = s->every_cpu ? num_online_cpus() : 1;

	for (i = 0; i < PASSES_NCAPS; i++) {
		KUNIT_EXPECT_EQ_MSG(test, !!test_bit(i, ctx->caps), log->has[i],
				    "%s: capability %d (%s) detected", s->name, i,
				    ctx->rows[i].desc);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&log->enables[i]),
				    log->has[i] ? expected_calls : 0,
				    "%s: cpu_enable() calls for capability %d (%s), %u CPUs online",
				    s->name, i, ctx->rows[i].desc, num_online_cpus());
		if (log->has[i] && s->every_cpu)
			KUNIT_EXPECT_TRUE_MSG(test, cpumask_equal(&log->enable_cpus[i],
								  cpu_online_mask),
					      "%s: capability %d enabled on CPUs %*pbl, online %*pbl",
					      s->name, i, cpumask_pr_args(&log->enable_cpus[i]),
					      cpumask_pr_args(cpu_online_mask));
	}
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&log->enables_undetected), 0,
			    "%s: cpu_enable() ran for a capability that was not detected",
			    s->name);
}

/*
 * The first row's cpu_enable() already sees the last row detected: the
 * whole table is detected before anything is enabled.
 */
static void __init enable_cpu_capabilities_sees_later_entries(struct kunit *test)
{
	const struct passes_scope *s = test->param_value;
	struct passes_ctx *ctx = test->priv;
	struct passes_log *log = &ctx->log;

	passes_one_scope_table(ctx, s->type);
	passes_run(test, s);

	KUNIT_ASSERT_EQ_MSG(test, atomic_read(&log->seen_recorded[0]), 1,
			    "%s: capability 0 was never enabled", s->name);
	KUNIT_EXPECT_TRUE_MSG(test, test_bit(5, &log->seen_at_enable[0]),
			      "%s: capability 0's cpu_enable() saw detected %*pb, without the later capability 5",
			      s->name, PASSES_NCAPS, &log->seen_at_enable[0]);
}

/*
 * All three scopes in one table, run as boot runs them: the boot CPU pass
 * detects the boot and local CPU scopes and enables only the boot scope,
 * on the calling CPU; the system pass detects the system scope and
 * enables the local CPU and system scopes on every CPU.
 */
static void __init enable_cpu_capabilities_honours_scope(struct kunit *test)
{
	struct passes_ctx *ctx = test->priv;
	struct passes_log *log = &ctx->log;
	unsigned int cpus;
	int i;

	passes_add_row(ctx, 0, ARM64_CPUCAP_BOOT_CPU_FEATURE, "boot, present", true);
	passes_add_row(ctx, 1, ARM64_CPUCAP_BOOT_CPU_FEATURE, "boot, absent", false);
	passes_add_row(ctx, 2, ARM64_CPUCAP_WEAK_LOCAL_CPU_FEATURE, "local, present", true);
	passes_add_row(ctx, 3, ARM64_CPUCAP_WEAK_LOCAL_CPU_FEATURE, "local, absent", false);
	passes_add_row(ctx, 4, ARM64_CPUCAP_SYSTEM_FEATURE, "system, present", true);
	passes_add_row(ctx, 5, ARM64_CPUCAP_SYSTEM_FEATURE, "system, absent", false);

	cpus = num_online_cpus();

	__update_cpu_capabilities(&ctx->set, SCOPE_BOOT_CPU | SCOPE_LOCAL_CPU);
	KUNIT_EXPECT_EQ_MSG(test, ctx->caps[0], BIT(0) | BIT(2),
			    "boot CPU pass detected %*pb, expected the boot and local rows 0,2",
			    PASSES_NCAPS, ctx->caps);
	KUNIT_EXPECT_EQ_MSG(test, ctx->boot_caps[0], BIT(0),
			    "boot CPU pass recorded %*pb as boot capabilities, expected 0",
			    PASSES_NCAPS, ctx->boot_caps);
	KUNIT_EXPECT_EQ(test, log->matches[4], 0);
	KUNIT_EXPECT_EQ(test, log->matches[5], 0);

	__enable_cpu_capabilities(&ctx->set, SCOPE_BOOT_CPU);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&log->enables[0]), 1,
			    "boot pass: cpu_enable() calls for the boot row");
	for (i = 1; i < PASSES_NCAPS; i++)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&log->enables[i]), 0,
				    "boot pass: cpu_enable() calls for capability %d (%s)",
				    i, ctx->rows[i].desc);

	__update_cpu_capabilities(&ctx->set, SCOPE_SYSTEM);
	KUNIT_EXPECT_EQ_MSG(test, ctx->caps[0], BIT(0) | BIT(2) | BIT(4),
			    "system pass detected %*pb, expected 0,2,4",
			    PASSES_NCAPS, ctx->caps);
	KUNIT_EXPECT_EQ_MSG(test, ctx->boot_caps[0], BIT(0),
			    "system pass changed the boot capabilities to %*pb",
			    PASSES_NCAPS, ctx->boot_caps);

	__enable_cpu_capabilities(&ctx->set, SCOPE_ALL & ~SCOPE_BOOT_CPU);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&log->enables[0]), 1,
			    "system pass: the boot row was enabled again");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&log->enables[2]), cpus,
			    "system pass: cpu_enable() calls for the local row, %u CPUs", cpus);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&log->enables[4]), cpus,
			    "system pass: cpu_enable() calls for the system row, %u CPUs", cpus);
	KUNIT_EXPECT_TRUE(test, cpumask_equal(&log->enable_cpus[2], cpu_online_mask));
	KUNIT_EXPECT_TRUE(test, cpumask_equal(&log->enable_cpus[4], cpu_online_mask));
	for (i = 1; i < PASSES_NCAPS; i += 2)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&log->enables[i]), 0,
				    "cpu_enable() calls for absent capability %d (%s)",
				    i, ctx->rows[i].desc);
}

/*
 * Every capability type of <asm/cpufeature.h>, with the scope its
 * matches() must be asked in the detect pass (the row's own scope, not
 * the pass's scope mask) and the scope mask a late CPU is checked with:
 * SCOPE_BOOT_CPU by check_early_cpu_features(), the others by
 * verify_local_cpu_capabilities().
 */
struct passes_type {
	const char *name;
	u16 type;
	u16 scope;
	u16 verify;
};

static const struct passes_type passes_types[] = {
	{ .name = "weak_local_cpu_feature", .type = ARM64_CPUCAP_WEAK_LOCAL_CPU_FEATURE,
	  .scope = SCOPE_LOCAL_CPU, .verify = SCOPE_ALL & ~SCOPE_BOOT_CPU },
	{ .name = "boot_restricted_cpu_local_feature",
	  .type = ARM64_CPUCAP_BOOT_RESTRICTED_CPU_LOCAL_FEATURE,
	  .scope = SCOPE_LOCAL_CPU, .verify = SCOPE_ALL & ~SCOPE_BOOT_CPU },
	{ .name = "local_cpu_erratum", .type = ARM64_CPUCAP_LOCAL_CPU_ERRATUM,
	  .scope = SCOPE_LOCAL_CPU, .verify = SCOPE_ALL & ~SCOPE_BOOT_CPU },
	{ .name = "strict_boot_cpu_feature", .type = ARM64_CPUCAP_STRICT_BOOT_CPU_FEATURE,
	  .scope = SCOPE_BOOT_CPU, .verify = SCOPE_BOOT_CPU },
	{ .name = "boot_cpu_feature", .type = ARM64_CPUCAP_BOOT_CPU_FEATURE,
	  .scope = SCOPE_BOOT_CPU, .verify = SCOPE_BOOT_CPU },
	{ .name = "system_feature", .type = ARM64_CPUCAP_SYSTEM_FEATURE,
	  .scope = SCOPE_SYSTEM, .verify = SCOPE_ALL & ~SCOPE_BOOT_CPU },
	/* SCOPE_LOCAL_CPU | PERMITTED_FOR_LATE_CPU | MATCH_ALL_EARLY_CPUS */
	{ .name = "early_local_cpu_feature", .type = ARM64_CPUCAP_EARLY_LOCAL_CPU_FEATURE,
	  .scope = SCOPE_LOCAL_CPU, .verify = SCOPE_ALL & ~SCOPE_BOOT_CPU },
};

static void passes_type_desc(const struct passes_type *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(passes_type, passes_types, passes_type_desc);

/*
 * A row of each type, through both detect passes as boot runs them: its
 * matches() is asked once, for the row's own scope, written as a literal
 * per type above (not the pass's scope mask).
 */
static void update_cpu_capabilities_matches_row_scope(struct kunit *test)
{
	const struct passes_type *t = test->param_value;
	struct passes_ctx *ctx = test->priv;
	const u16 boot_pass = SCOPE_BOOT_CPU | SCOPE_LOCAL_CPU;

	passes_add_row(ctx, 0, t->type, t->name, true);
	__update_cpu_capabilities(&ctx->set, boot_pass);
	__update_cpu_capabilities(&ctx->set, SCOPE_SYSTEM);

	KUNIT_EXPECT_EQ_MSG(test, ctx->log.matches[0], 1,
			    "%s (type %#x): matches() calls in the passes of scope masks %#x and %#x",
			    t->name, t->type, boot_pass, SCOPE_SYSTEM);
	KUNIT_EXPECT_EQ_MSG(test, ctx->log.match_scopes[0], t->scope,
			    "%s (type %#x): the passes of scope masks %#x and %#x asked matches() for scope %#x, expected %#x",
			    t->name, t->type, boot_pass, SCOPE_SYSTEM,
			    ctx->log.match_scopes[0], t->scope);
}

/* A late CPU is asked about itself, whatever the row's scope */
static void verify_local_cpu_caps_matches_local_scope(struct kunit *test)
{
	const struct passes_type *t = test->param_value;
	struct passes_ctx *ctx = test->priv;
	const struct arm64_cpu_capabilities *conflict;
	const u16 local = SCOPE_LOCAL_CPU;

	passes_add_row(ctx, 0, t->type, t->name, false);
	preempt_disable();
	conflict = __verify_local_cpu_caps(&ctx->set, t->verify);
	preempt_enable();

	KUNIT_EXPECT_PTR_EQ_MSG(test, conflict, NULL,
				"%s (type %#x, scope mask %#x): refused a late CPU that lacks what the system lacks",
				t->name, t->type, t->verify);
	KUNIT_EXPECT_EQ_MSG(test, ctx->log.matches[0], 1,
			    "%s (type %#x): matches() calls in the check of scope mask %#x",
			    t->name, t->type, t->verify);
	KUNIT_EXPECT_EQ_MSG(test, ctx->log.match_scopes[0], local,
			    "%s (type %#x): the check of scope mask %#x asked matches() for scope %#x, expected %#x",
			    t->name, t->type, t->verify, ctx->log.match_scopes[0], local);
}

/*
 * The check of one scope mask leaves the rows of the other scopes alone:
 * a boot CPU scope row is checked by check_early_cpu_features() only, any
 * other by verify_local_cpu_capabilities() only. A row the system has and
 * the late CPU lacks, checked with the mask of the other callers, is
 * neither asked about, nor enabled, nor a conflict.
 */
static void verify_local_cpu_caps_skips_other_scopes(struct kunit *test)
{
	const struct passes_type *t = test->param_value;
	struct passes_ctx *ctx = test->priv;
	const struct arm64_cpu_capabilities *conflict;
	const u16 other = SCOPE_ALL & ~t->verify;

	passes_add_row(ctx, 0, t->type, t->name, false);
	__set_bit(0, ctx->caps);
	preempt_disable();
	conflict = __verify_local_cpu_caps(&ctx->set, other);
	preempt_enable();

	KUNIT_EXPECT_PTR_EQ_MSG(test, conflict, NULL,
				"%s (type %#x): the check of scope mask %#x refused a late CPU for it",
				t->name, t->type, other);
	KUNIT_EXPECT_EQ_MSG(test, ctx->log.matches[0], 0,
			    "%s (type %#x): matches() calls in the check of scope mask %#x",
			    t->name, t->type, other);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ctx->log.enables[0]), 0,
			    "%s (type %#x): cpu_enable() calls in the check of scope mask %#x",
			    t->name, t->type, other);
}

/*
 * A late CPU: the system has capabilities 0 and 2 (system features), not
 * 4; the case then sets what the late CPU has and runs the check of the
 * non-boot scopes, as verify_local_cpu_capabilities() does.
 */
static const struct arm64_cpu_capabilities *
passes_late_cpu(struct kunit *test, bool has0, bool has2, bool has4)
{
	struct passes_ctx *ctx = test->priv;
	const struct arm64_cpu_capabilities *conflict;
	int i;

	passes_add_row(ctx, 0, ARM64_CPUCAP_SYSTEM_FEATURE, "system feature 0", true);
	passes_add_row(ctx, 2, ARM64_CPUCAP_SYSTEM_FEATURE, "system feature 2", true);
	passes_add_row(ctx, 4, ARM64_CPUCAP_SYSTEM_FEATURE, "system feature 4", false);
	__update_cpu_capabilities(&ctx->set, SCOPE_SYSTEM);
	KUNIT_ASSERT_EQ_MSG(test, ctx->caps[0], BIT(0) | BIT(2),
			    "system detected %*pb", PASSES_NCAPS, ctx->caps);

	ctx->log.has[0] = has0;
	ctx->log.has[2] = has2;
	ctx->log.has[4] = has4;
	for (i = 0; i < PASSES_NCAPS; i++)
		ctx->log.matches[i] = 0;
	preempt_disable();
	conflict = __verify_local_cpu_caps(&ctx->set, SCOPE_ALL & ~SCOPE_BOOT_CPU);
	preempt_enable();
	return conflict;
}

/*
 * A late CPU with every system capability is let in and gets each one's
 * cpu_enable(); a capability the system lacks is asked about, not enabled.
 */
static void verify_local_cpu_caps_enables_present(struct kunit *test)
{
	struct passes_ctx *ctx = test->priv;
	const struct arm64_cpu_capabilities *conflict;

	conflict = passes_late_cpu(test, true, true, false);
	KUNIT_EXPECT_PTR_EQ_MSG(test, conflict, NULL,
				"a late CPU with every system capability was refused");
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->log.enables[0]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->log.enables[2]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->log.enables[4]), 0);
	KUNIT_EXPECT_EQ(test, ctx->log.matches[4], 1);
}

/*
 * A late CPU missing a system capability is refused: the check returns
 * that row (the caller parks the CPU, not the test), and the missing
 * capability is not enabled on it.
 */
static void verify_local_cpu_caps_refuses_missing(struct kunit *test)
{
	struct passes_ctx *ctx = test->priv;
	const struct arm64_cpu_capabilities *conflict;

	conflict = passes_late_cpu(test, true, false, false);
	KUNIT_EXPECT_PTR_EQ_MSG(test, conflict, &ctx->rows[2],
				"a late CPU without system capability 2 was not refused for it");
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->log.enables[0]), 1);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ctx->log.enables[2]), 0,
			    "the missing capability was enabled on the refused CPU");
}

/* ARM64_CPUCAP_SYSTEM_FEATURE is permitted on a late CPU the system lacks */
static void verify_local_cpu_caps_permits_extra(struct kunit *test)
{
	struct passes_ctx *ctx = test->priv;
	const struct arm64_cpu_capabilities *conflict;

	conflict = passes_late_cpu(test, true, true, true);
	KUNIT_EXPECT_PTR_EQ_MSG(test, conflict, NULL,
				"a late CPU with an extra, permitted capability was refused");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ctx->log.enables[4]), 0,
			    "a capability the system lacks was enabled on the late CPU");
}

/*
 * Late CPU rules: what __verify_local_cpu_caps() decides for a late CPU
 * that disagrees with the system about one capability, for every type of
 * <asm/cpufeature.h>, and whether the capability's cpu_enable() runs on
 * it. The verdicts are those of the header's comments:
 *
 * - WEAK_LOCAL_CPU_FEATURE: "All possible conflicts for a late CPU are
 *   ignored."
 * - BOOT_RESTRICTED_CPU_LOCAL_FEATURE: "A late CPU is not allowed to have
 *   the capability when the system doesn't have it. It is Ok for a late
 *   CPU to miss the feature."
 * - LOCAL_CPU_ERRATUM: "it is safe to allow any CPU to boot that doesn't
 *   require the workaround. However, it is not safe if a "late" CPU
 *   requires a workaround and the system hasn't enabled it already."
 * - STRICT_BOOT_CPU_FEATURE: "All secondary CPUs must match the state of
 *   the capability as detected by the boot CPU." It is the type with
 *   ARM64_CPUCAP_PANIC_ON_CONFLICT: "If the ARM64_CPUCAP_PANIC_ON_CONFLICT
 *   flag is specified for the capability, then a kernel panic is
 *   triggered"; on any other conflict "the CPU is prevented from
 *   booting".
 * - BOOT_CPU_FEATURE and SYSTEM_FEATURE: "It is safe for a late CPU to
 *   have this feature even though the [boot CPU | system] hasn't enabled
 *   it ... If the [boot CPU | system] has enabled this feature already,
 *   then every late CPU must have it."
 *
 * A CPU that is let in runs cpu_enable() of every capability the system
 * has, "irrespective of whether the CPU has it or not"; a refused CPU
 * does not get that far.
 */
struct passes_late_rule {
	const char *name;
	u16 type;
	u16 verify;		/* the scope mask the late CPU is checked with */
	bool system_has;
	bool cpu_has;
	bool refused;
	bool panics;		/* refused by a kernel panic, not by parking the CPU */
	bool enabled;		/* cpu_enable() ran on the late CPU */
};

#define PASSES_NON_BOOT		(SCOPE_ALL & ~SCOPE_BOOT_CPU)

static const struct passes_late_rule passes_late_rules[] = {
	{ .name = "weak_local_cpu_feature_cpu_lacks",
	  .type = ARM64_CPUCAP_WEAK_LOCAL_CPU_FEATURE, .verify = PASSES_NON_BOOT,
	  .system_has = true, .cpu_has = false, .refused = false, .enabled = true },
	{ .name = "weak_local_cpu_feature_cpu_has",
	  .type = ARM64_CPUCAP_WEAK_LOCAL_CPU_FEATURE, .verify = PASSES_NON_BOOT,
	  .system_has = false, .cpu_has = true, .refused = false, .enabled = false },
	{ .name = "boot_restricted_cpu_local_feature_cpu_lacks",
	  .type = ARM64_CPUCAP_BOOT_RESTRICTED_CPU_LOCAL_FEATURE, .verify = PASSES_NON_BOOT,
	  .system_has = true, .cpu_has = false, .refused = false, .enabled = true },
	{ .name = "boot_restricted_cpu_local_feature_cpu_has",
	  .type = ARM64_CPUCAP_BOOT_RESTRICTED_CPU_LOCAL_FEATURE, .verify = PASSES_NON_BOOT,
	  .system_has = false, .cpu_has = true, .refused = true, .enabled = false },
	{ .name = "local_cpu_erratum_cpu_lacks",
	  .type = ARM64_CPUCAP_LOCAL_CPU_ERRATUM, .verify = PASSES_NON_BOOT,
	  .system_has = true, .cpu_has = false, .refused = false, .enabled = true },
	{ .name = "local_cpu_erratum_cpu_has",
	  .type = ARM64_CPUCAP_LOCAL_CPU_ERRATUM, .verify = PASSES_NON_BOOT,
	  .system_has = false, .cpu_has = true, .refused = true, .enabled = false },
	{ .name = "strict_boot_cpu_feature_cpu_lacks",
	  .type = ARM64_CPUCAP_STRICT_BOOT_CPU_FEATURE, .verify = SCOPE_BOOT_CPU,
	  .system_has = true, .cpu_has = false, .refused = true, .panics = true, .enabled = false },
	{ .name = "strict_boot_cpu_feature_cpu_has",
	  .type = ARM64_CPUCAP_STRICT_BOOT_CPU_FEATURE, .verify = SCOPE_BOOT_CPU,
	  .system_has = false, .cpu_has = true, .refused = true, .panics = true, .enabled = false },
	{ .name = "boot_cpu_feature_cpu_lacks",
	  .type = ARM64_CPUCAP_BOOT_CPU_FEATURE, .verify = SCOPE_BOOT_CPU,
	  .system_has = true, .cpu_has = false, .refused = true, .enabled = false },
	{ .name = "boot_cpu_feature_cpu_has",
	  .type = ARM64_CPUCAP_BOOT_CPU_FEATURE, .verify = SCOPE_BOOT_CPU,
	  .system_has = false, .cpu_has = true, .refused = false, .enabled = false },
	{ .name = "system_feature_cpu_lacks",
	  .type = ARM64_CPUCAP_SYSTEM_FEATURE, .verify = PASSES_NON_BOOT,
	  .system_has = true, .cpu_has = false, .refused = true, .enabled = false },
	{ .name = "system_feature_cpu_has",
	  .type = ARM64_CPUCAP_SYSTEM_FEATURE, .verify = PASSES_NON_BOOT,
	  .system_has = false, .cpu_has = true, .refused = false, .enabled = false },
	/*
	 * EARLY_LOCAL_CPU_FEATURE: "Late CPUs are permitted to have the
	 * feature even if it hasn't been enabled ... If all early CPUs have
	 * the feature, then every late CPU must have it."
	 */
	{ .name = "early_local_cpu_feature_cpu_lacks",
	  .type = ARM64_CPUCAP_EARLY_LOCAL_CPU_FEATURE, .verify = PASSES_NON_BOOT,
	  .system_has = true, .cpu_has = false, .refused = true, .enabled = false },
	{ .name = "early_local_cpu_feature_cpu_has",
	  .type = ARM64_CPUCAP_EARLY_LOCAL_CPU_FEATURE, .verify = PASSES_NON_BOOT,
	  .system_has = false, .cpu_has = true, .refused = false, .enabled = false },
};

static void passes_late_rule_desc(const struct passes_late_rule *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(passes_late_rule, passes_late_rules, passes_late_rule_desc);

static const char *passes_has(bool has)
{
	return has ? "has" : "lacks";
}

static const char *passes_verdict(bool refused)
{
	return refused ? "refused" : "let in";
}

/*
 * Each type both ways, the system has it and the late CPU lacks it, and
 * the reverse: the verdict (refused or let in) and whether cpu_enable()
 * ran, from the rules above. Boot CPU types are checked with
 * SCOPE_BOOT_CPU, as check_early_cpu_features() does. The system's bitmap
 * is set directly: only the check is under test.
 */
static void verify_local_cpu_caps_late_cpu_rules(struct kunit *test)
{
	const struct passes_late_rule *r = test->param_value;
	struct passes_ctx *ctx = test->priv;
	const struct arm64_cpu_capabilities *conflict;

	passes_add_row(ctx, 0, r->type, r->name, r->cpu_has);
	if (r->system_has)
		__set_bit(0, ctx->caps);
	preempt_disable();
	conflict = __verify_local_cpu_caps(&ctx->set, r->verify);
	preempt_enable();

	KUNIT_EXPECT_PTR_EQ_MSG(test, conflict, r->refused ? &ctx->rows[0] : NULL,
				"type %#x, scope mask %#x, system %s it, late CPU %s it: %s, expected %s",
				r->type, r->verify, passes_has(r->system_has),
				passes_has(r->cpu_has), passes_verdict(conflict),
				passes_verdict(r->refused));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ctx->log.enables[0]), r->enabled ? 1 : 0,
			    "type %#x, scope mask %#x, system %s it, late CPU %s it: cpu_enable() calls",
			    r->type, r->verify, passes_has(r->system_has),
			    passes_has(r->cpu_has));
}

/* The static stubs of the late CPU check: the case's set, and a record. */
static const struct cpucap_set *passes_late_cpu_cpucap_set(void)
{
	return &passes_ctx->set;
}

static void passes_late_cpu_refuse(bool fatal)
{
	atomic_inc(fatal ? &passes_ctx->panicked : &passes_ctx->parked);
}

static void passes_local_cpu_features(void)
{
	atomic_inc(&passes_ctx->features);
}

/* The static stub of verify_cpu_asid_bits()'s refusal, a panic */
static void passes_asid_refuse(void)
{
	atomic_inc(&passes_ctx->panicked);
}

/*
 * The same rules through check_local_cpu_capabilities(), which the CPU
 * hotplug code runs on a CPU that comes up late: it checks the boot CPU
 * scope (check_early_cpu_features()) and then the others
 * (verify_local_cpu_capabilities()), each row with the mask of its
 * scope, and on a conflict parks the CPU, or panics the kernel for a
 * STRICT_BOOT_CPU_FEATURE. It runs on this CPU over the case's table,
 * whose row is the only one in conflict: the static stubs of
 * verify_local_cpu_caps() give it the case's set and record the refusal
 * instead of taking it, in this thread only. Those of
 * verify_local_cpu_capabilities() and verify_cpu_asid_bits() record the
 * checks that are not the table's: the first is called once, whatever the
 * table says (the stubbed refusal returns), and the second, which reads
 * this CPU's own ASID size, refuses nothing. Exactly one refusal for a
 * refused CPU, of the kind its type asks for, none for one let in.
 */
static void check_local_cpu_capabilities_late_cpu_rules(struct kunit *test)
{
	const struct passes_late_rule *r = test->param_value;
	struct passes_ctx *ctx = test->priv;
	int parked, panicked;

	passes_add_row(ctx, 0, r->type, r->name, r->cpu_has);
	if (r->system_has)
		__set_bit(0, ctx->caps);
	kunit_activate_static_stub(test, late_cpu_cpucap_set, passes_late_cpu_cpucap_set);
	kunit_activate_static_stub(test, late_cpu_refuse, passes_late_cpu_refuse);
	kunit_activate_static_stub(test, verify_local_cpu_features, passes_local_cpu_features);
	kunit_activate_static_stub(test, asid_bits_kunit_hooks.refuse, passes_asid_refuse);
	preempt_disable();
	check_local_cpu_capabilities();
	preempt_enable();
	kunit_deactivate_static_stub(test, asid_bits_kunit_hooks.refuse);
	kunit_deactivate_static_stub(test, verify_local_cpu_features);
	kunit_deactivate_static_stub(test, late_cpu_refuse);
	kunit_deactivate_static_stub(test, late_cpu_cpucap_set);
	parked = atomic_read(&ctx->parked);
	panicked = atomic_read(&ctx->panicked);

	KUNIT_EXPECT_TRUE_MSG(test, parked == (r->refused && !r->panics) &&
			      panicked == (r->refused && r->panics),
			      "type %#x, system %s it, late CPU %s it: parked %d, panicked %d times; expected %s",
			      r->type, passes_has(r->system_has), passes_has(r->cpu_has),
			      parked, panicked, !r->refused ? "neither" :
			      r->panics ? "a panic" : "the CPU parked");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ctx->log.enables[0]), r->enabled ? 1 : 0,
			    "type %#x, system %s it, late CPU %s it: cpu_enable() calls",
			    r->type, passes_has(r->system_has), passes_has(r->cpu_has));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ctx->features), 1,
			    "type %#x, system %s it, late CPU %s it: verify_local_cpu_features() calls",
			    r->type, passes_has(r->system_has), passes_has(r->cpu_has));
}

/*
 * CPUs that differ from the system, through the checks the CPU hotplug
 * code runs on a CPU that comes up late, over copies of the kernel's own
 * rows with their own matches(). QEMU's CPUs are identical, so the late
 * CPU is this one with ID register fields of the case's own: the
 * system's description of each register involved (arm64_ftr_regs[]) is
 * lent a sanitised value holding the boot CPU's fields, and an override
 * that puts the late CPU's in this CPU's own reading of the register
 * (__read_sysreg_by_encoding(), which every SCOPE_LOCAL_CPU matches()
 * reads) on top of the command line's. As in the sanitise suite, that is
 * done inside stop_machine(), so that no other CPU reads the lent
 * registers meanwhile, and they are given back as they were. The check
 * runs there too: __verify_local_cpu_caps() over the copies, for the
 * scopes of the case's check, which returns the row in conflict and
 * refuses nothing itself (how a conflict is acted on, and which check
 * covers which scope, is check_local_cpu_capabilities_late_cpu_rules's
 * question). The copies have no cpu_enable(): only the verdict is
 * checked. On the lent values, check_update_ftr_reg() also says whether
 * the late CPU differs from the boot CPU in a strict field, for which
 * update_cpu_features() taints the kernel (the case does not).
 */
static const struct arm64_cpu_capabilities *passes_find_feature(u16 num);

static void passes_real_add(struct kunit *test, u16 num, bool system_has)
{
	struct passes_real *real = &((struct passes_ctx *)test->priv)->real;
	const struct arm64_cpu_capabilities *row = passes_find_feature(num);
	struct arm64_cpu_capabilities *copy;

	if (!row)
		kunit_skip(test, "no row for capability %u in arm64_features[]", num);
	KUNIT_ASSERT_LT(test, real->nr_rows, PASSES_REAL_ROWS);
	real->set.ptrs = real->ptrs;
	real->set.caps = real->caps;
	real->set.boot_caps = real->boot_caps;
	real->set.ncaps = ARM64_NCAPS;
	copy = &real->rows[real->nr_rows++];
	/* Not an assignment: the struct has const members */
	memcpy(copy, row, sizeof(*copy));
	copy->cpu_enable = NULL;
	real->ptrs[num] = copy;
	if (system_has)
		__set_bit(num, real->caps);
}

static void passes_real_lend(struct passes_real *real, u32 sys_id, const char *name,
			     u64 mask, u64 boot, u64 cpu)
{
	struct passes_lend_reg *l = &real->lend[real->nr_lend++];

	l->sys_id = sys_id;
	l->name = name;
	l->mask = mask;
	l->boot = boot & mask;
	l->cpu = cpu & mask;
}

static int passes_real_check_fn(void *data)
{
	struct passes_real *real = data;
	struct arm64_ftr_override ovr[PASSES_LEND_REGS];
	struct arm64_ftr_reg saved[PASSES_LEND_REGS];
	int i;

	for (i = 0; i < real->nr_lend; i++) {
		struct passes_lend_reg *l = &real->lend[i];
		struct arm64_ftr_reg *reg = get_arm64_ftr_reg_nowarn(l->sys_id);

		saved[i] = *reg;
		ovr[i].mask = reg->override->mask | l->mask;
		ovr[i].val = (reg->override->val & ~l->mask) | l->cpu;
		reg->sys_val = (reg->sys_val & ~l->mask) | l->boot;
		reg->override = &ovr[i];
	}
	real->conflict = __verify_local_cpu_caps(&real->set, real->scope_mask);
	for (i = real->nr_lend - 1; i >= 0; i--) {
		struct passes_lend_reg *l = &real->lend[i];
		struct arm64_ftr_reg *reg = get_arm64_ftr_reg_nowarn(l->sys_id);
		u64 boot = reg->sys_val;

		real->strict[i] = check_update_ftr_reg(l->sys_id, smp_processor_id(),
						       (boot & ~l->mask) | l->cpu, boot);
		*reg = saved[i];
	}
	return 0;
}

/*
 * Checks the late CPU, on the lent registers, against the copies for the
 * scopes of @scope_mask; returns the row in conflict, NULL if none.
 */
static const struct arm64_cpu_capabilities *
passes_real_check(struct kunit *test, u16 scope_mask)
{
	struct passes_real *real = &((struct passes_ctx *)test->priv)->real;
	int i;

	for (i = 0; i < real->nr_lend; i++)
		KUNIT_ASSERT_NOT_NULL_MSG(test, get_arm64_ftr_reg_nowarn(real->lend[i].sys_id),
					  "%s: no arm64_ftr_regs[] entry to lend",
					  real->lend[i].name);
	real->scope_mask = scope_mask;
	KUNIT_ASSERT_EQ(test, stop_machine(passes_real_check_fn, real, NULL), 0);
	return real->conflict;
}

/* What a refusal of @conflict is: the CPU parked or the kernel panicked */
static const char *passes_refusal(const struct arm64_cpu_capabilities *conflict)
{
	if (!conflict)
		return "neither";
	return cpucap_panic_on_conflict(conflict) ? "a panic" : "the CPU parked";
}

/*
 * Whether @conflict is what the check of a late CPU must give: a conflict,
 * which parks the CPU, when @refused, none otherwise; never a conflict
 * whose row makes the kernel panic.
 */
static bool passes_parked(const struct arm64_cpu_capabilities *conflict, bool refused)
{
	return !!conflict == refused && !(conflict && cpucap_panic_on_conflict(conflict));
}

/*
 * Pointer authentication: ID_AA64ISAR1_EL1.APA [7:4] (QARMA5) and API
 * [11:8] (an IMPLEMENTATION DEFINED algorithm), ID_AA64ISAR2_EL1.APA3
 * [15:12] (QARMA3); 0b0000 none, 0b0001 FEAT_PAuth, 0b0010 FEAT_EPAC,
 * 0b0011 FEAT_PAuth2 (DDI 0487 M.a.a, D24.2.85 ID_AA64ISAR1_EL1, D24.2.86
 * ID_AA64ISAR2_EL1). The three levels compute and insert a PAC
 * differently (C6.2.305 PACIA and the AddPAC() it calls), and each
 * algorithm gives its own PACs: a pointer the kernel signed on the boot
 * CPU does not authenticate on a CPU of another level or algorithm. The
 * kernel signs its own return addresses from the start, so the rows are
 * boot CPU features (ARM64_CPUCAP_BOOT_CPU_FEATURE in
 * <asm/cpufeature.h>: "If the boot CPU has enabled this feature
 * already, then every late CPU must have it", the CPU parked otherwise;
 * a late CPU may have one the boot CPU lacks).
 */
#define PASSES_ISAR1_APA	GENMASK_ULL(7, 4)
#define PASSES_ISAR1_API	GENMASK_ULL(11, 8)
#define PASSES_ISAR2_APA3	GENMASK_ULL(15, 12)

struct passes_pauth {
	const char *name;
	u8 boot_apa, boot_api, boot_apa3;
	u8 cpu_apa, cpu_api, cpu_apa3;
	bool refused;
};

static const struct passes_pauth passes_pauths[] = {
	{ .name = "qarma5_same_level", .boot_apa = 3, .cpu_apa = 3, .refused = false },
	{ .name = "qarma5_lower_level", .boot_apa = 3, .cpu_apa = 1, .refused = true },
	{ .name = "qarma5_higher_level", .boot_apa = 1, .cpu_apa = 3, .refused = true },
	{ .name = "qarma5_epac_on_pauth", .boot_apa = 1, .cpu_apa = 2, .refused = true },
	{ .name = "qarma5_cpu_lacks", .boot_apa = 3, .cpu_apa = 0, .refused = true },
	{ .name = "qarma5_cpu_qarma3", .boot_apa = 3, .cpu_apa3 = 3, .refused = true },
	{ .name = "imp_def_same_level", .boot_api = 3, .cpu_api = 3, .refused = false },
	{ .name = "imp_def_cpu_qarma5", .boot_api = 1, .cpu_apa = 1, .refused = true },
	{ .name = "qarma3_lower_level", .boot_apa3 = 3, .cpu_apa3 = 1, .refused = true },
	{ .name = "boot_cpu_lacks_cpu_has", .cpu_apa = 3, .refused = false },
};

static void passes_pauth_desc(const struct passes_pauth *p, char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(passes_pauth, passes_pauths, passes_pauth_desc);

/*
 * A late CPU whose pointer authentication differs from the boot CPU's in
 * level or algorithm is in conflict with a row of the boot CPU scope,
 * which check_early_cpu_features() checks, and parked; one with the boot
 * CPU's is let in.
 */
static void verify_local_cpu_caps_ptrauth_by_level(struct kunit *test)
{
	const struct passes_pauth *p = test->param_value;
	struct passes_real *real = &((struct passes_ctx *)test->priv)->real;
	u64 isar1_boot = FIELD_PREP(PASSES_ISAR1_APA, p->boot_apa) |
			 FIELD_PREP(PASSES_ISAR1_API, p->boot_api);
	u64 isar1_cpu = FIELD_PREP(PASSES_ISAR1_APA, p->cpu_apa) |
			FIELD_PREP(PASSES_ISAR1_API, p->cpu_api);
	const struct arm64_cpu_capabilities *conflict;

	passes_real_add(test, ARM64_HAS_ADDRESS_AUTH_ARCH_QARMA5, p->boot_apa);
	passes_real_add(test, ARM64_HAS_ADDRESS_AUTH_IMP_DEF, p->boot_api);
	passes_real_add(test, ARM64_HAS_ADDRESS_AUTH_ARCH_QARMA3, p->boot_apa3);
	passes_real_lend(real, SYS_ID_AA64ISAR1_EL1, "ID_AA64ISAR1_EL1",
			 PASSES_ISAR1_APA | PASSES_ISAR1_API, isar1_boot, isar1_cpu);
	passes_real_lend(real, SYS_ID_AA64ISAR2_EL1, "ID_AA64ISAR2_EL1", PASSES_ISAR2_APA3,
			 FIELD_PREP(PASSES_ISAR2_APA3, p->boot_apa3),
			 FIELD_PREP(PASSES_ISAR2_APA3, p->cpu_apa3));
	conflict = passes_real_check(test, SCOPE_BOOT_CPU);

	KUNIT_EXPECT_TRUE_MSG(test, passes_parked(conflict, p->refused),
			      "boot CPU APA=%u API=%u APA3=%u, late CPU APA=%u API=%u APA3=%u, scope mask %#x: %s (%s); expected %s",
			      p->boot_apa, p->boot_api, p->boot_apa3, p->cpu_apa, p->cpu_api,
			      p->cpu_apa3, SCOPE_BOOT_CPU, passes_refusal(conflict),
			      conflict ? conflict->desc : "no conflict",
			      p->refused ? "the CPU parked" : "neither");
}

/*
 * PAN: ID_AA64MMFR1_EL1.PAN [23:20], 0b0001 FEAT_PAN, 0b0010 FEAT_PAN2,
 * 0b0011 FEAT_PAN3 (DDI 0487 M.a.a, D24.2.89 ID_AA64MMFR1_EL1). The
 * kernel's ARM64_HAS_PAN row asks for FEAT_PAN, ARM64_HAS_EPAN for
 * FEAT_PAN3; both are system features (ARM64_CPUCAP_SYSTEM_FEATURE in
 * <asm/cpufeature.h>: "If the system has enabled this feature already,
 * then every late CPU must have it", the CPU parked otherwise, and "It is
 * safe for a late CPU to have this feature even though the system hasn't
 * enabled it"). PAN is a strict field of ID_AA64MMFR1_EL1 in
 * arm64_ftr_regs[] (arm64_cpufeature_ftr_bits records the choice): a
 * late CPU whose PAN differs taints the kernel, which refuses no CPU by
 * itself.
 */
#define PASSES_MMFR1_PAN	GENMASK_ULL(23, 20)

struct passes_pan_cpu {
	const char *name;
	u8 boot, cpu;		/* ID_AA64MMFR1_EL1.PAN */
	bool refused;		/* with the EPAN row built in */
};

static const struct passes_pan_cpu passes_pan_cpus[] = {
	{ .name = "same_pan3", .boot = 3, .cpu = 3, .refused = false },
	{ .name = "cpu_lacks_pan", .boot = 1, .cpu = 0, .refused = true },
	{ .name = "cpu_pan_lacks_epan", .boot = 3, .cpu = 1, .refused = true },
	{ .name = "cpu_pan2_lacks_epan", .boot = 3, .cpu = 2, .refused = true },
	{ .name = "cpu_has_pan_system_lacks", .boot = 0, .cpu = 1, .refused = false },
	{ .name = "cpu_has_epan_system_lacks", .boot = 1, .cpu = 3, .refused = false },
};

static void passes_pan_cpu_desc(const struct passes_pan_cpu *p, char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(passes_pan_cpu, passes_pan_cpus, passes_pan_cpu_desc);

/*
 * A late CPU with less PAN than the system uses is in conflict with a
 * system scope row, which verify_local_cpu_capabilities() checks once the
 * system is up, and parked; one with more is let in; either way, a PAN
 * that differs is a strict difference, a taint.
 */
static void verify_local_cpu_caps_pan_by_cpu(struct kunit *test)
{
	const struct passes_pan_cpu *p = test->param_value;
	struct passes_real *real = &((struct passes_ctx *)test->priv)->real;
	bool epan = passes_find_feature(ARM64_HAS_EPAN);
	bool refused = p->refused && (epan || p->cpu < 1);
	const struct arm64_cpu_capabilities *conflict;

	passes_real_add(test, ARM64_HAS_PAN, p->boot >= 1);
	if (epan)
		passes_real_add(test, ARM64_HAS_EPAN, p->boot >= 3);
	passes_real_lend(real, SYS_ID_AA64MMFR1_EL1, "ID_AA64MMFR1_EL1", PASSES_MMFR1_PAN,
			 FIELD_PREP(PASSES_MMFR1_PAN, p->boot),
			 FIELD_PREP(PASSES_MMFR1_PAN, p->cpu));
	conflict = passes_real_check(test, PASSES_NON_BOOT);

	KUNIT_EXPECT_TRUE_MSG(test, passes_parked(conflict, refused),
			      "system PAN=%u, late CPU PAN=%u (%s EPAN row), scope mask %#x: %s (%s); expected %s",
			      p->boot, p->cpu, epan ? "with the" : "no", PASSES_NON_BOOT,
			      passes_refusal(conflict), conflict ? conflict->desc : "no conflict",
			      refused ? "the CPU parked" : "neither");
	KUNIT_EXPECT_EQ_MSG(test, real->strict[0], p->boot != p->cpu,
			    "system PAN=%u, late CPU PAN=%u: check_update_ftr_reg() says %d, want %d (1: a strict field differs, the kernel tainted)",
			    p->boot, p->cpu, real->strict[0], p->boot != p->cpu);
}

/*
 * ID_AA64MMFR0_EL1.ASIDBits [7:4]: 0b0000 8 bits, 0b0010 16 bits (DDI
 * 0487 M.a.a, D24.2.88 ID_AA64MMFR0_EL1); with 8, the CPU takes ASID
 * [63:56] of TTBRn_EL1 as 0, so two of the system's 16-bit ASIDs would be
 * one on it, and the ASID allocator cannot shrink the ASIDs it hands out.
 * A CPU with fewer ASID bits than the system uses is refused, one with
 * as many let in.
 */
#define PASSES_MMFR0_ASIDBITS	GENMASK_ULL(7, 4)

struct passes_asid {
	const char *name;
	u8 cpu;			/* ID_AA64MMFR0_EL1.ASIDBits */
	unsigned int bits;	/* what it means */
};

static const struct passes_asid passes_asids[] = {
	{ .name = "cpu_8_bits", .cpu = 0, .bits = 8 },
	{ .name = "cpu_16_bits", .cpu = 2, .bits = 16 },
};

static void passes_asid_desc(const struct passes_asid *a, char *desc)
{
	strscpy(desc, a->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(passes_asid, passes_asids, passes_asid_desc);

/* verify_cpu_asid_bits()'s reading of ID_AA64MMFR0_EL1: the case's CPU */
static u64 passes_asid_cpu_mmfr0(void)
{
	const struct passes_asid *a = passes_ctx->asid;

	return (read_sysreg_s(SYS_ID_AA64MMFR0_EL1) & ~PASSES_MMFR0_ASIDBITS) |
	       FIELD_PREP(PASSES_MMFR0_ASIDBITS, a->cpu);
}

/*
 * check_early_cpu_features(), the start of check_local_cpu_capabilities(),
 * on this CPU given an ASID size of the case's own: a CPU with fewer ASID
 * bits than the system's (the boot CPU's, whose ID_AA64MMFR0_EL1 every
 * QEMU CPU shares) is refused, by a panic; one with as many is let in.
 * The static stubs of verify_cpu_asid_bits() give the CPU its
 * ID_AA64MMFR0_EL1 and record the panic instead of taking it; the boot
 * CPU scope rows are checked over the case's empty table.
 */
static void check_early_cpu_features_asid_by_bits(struct kunit *test)
{
	const struct passes_asid *a = test->param_value;
	struct passes_ctx *ctx = test->priv;
	u64 boot = FIELD_GET(PASSES_MMFR0_ASIDBITS, read_sysreg_s(SYS_ID_AA64MMFR0_EL1));
	unsigned int system_bits = boot == 2 ? 16 : 8;
	bool refused = a->bits < system_bits;
	int parked, panicked;

	if (boot != 0 && boot != 2)
		kunit_skip(test, "boot CPU's ASIDBits %#llx is reserved: no ASID size to compare",
			   boot);
	ctx->asid = a;
	kunit_activate_static_stub(test, late_cpu_cpucap_set, passes_late_cpu_cpucap_set);
	kunit_activate_static_stub(test, late_cpu_refuse, passes_late_cpu_refuse);
	kunit_activate_static_stub(test, asid_bits_kunit_hooks.cpu_mmfr0,
				   passes_asid_cpu_mmfr0);
	kunit_activate_static_stub(test, asid_bits_kunit_hooks.refuse, passes_asid_refuse);
	preempt_disable();
	check_early_cpu_features();
	preempt_enable();
	kunit_deactivate_static_stub(test, asid_bits_kunit_hooks.refuse);
	kunit_deactivate_static_stub(test, asid_bits_kunit_hooks.cpu_mmfr0);
	kunit_deactivate_static_stub(test, late_cpu_refuse);
	kunit_deactivate_static_stub(test, late_cpu_cpucap_set);
	parked = atomic_read(&ctx->parked);
	panicked = atomic_read(&ctx->panicked);

	KUNIT_EXPECT_TRUE_MSG(test, panicked == refused && !parked,
			      "system %u ASID bits (boot CPU's ASIDBits %#llx), late CPU ASIDBits %#x (%u bits): parked %d, panicked %d times; expected %s",
			      system_bits, boot, a->cpu, a->bits, parked, panicked,
			      refused ? "a panic" : "neither");
}

/*
 * The kernel's own PAN row. PAN is a system feature: the kernel may use
 * it only if every CPU has it, i.e. if the sanitised ID register says so,
 * and a late CPU without it must be refused once the system uses it. The
 * row's .type says that; the cases check that it does, through the real
 * passes, on a copy whose matches() answers per scope. The copy's
 * cpu_enable() is replaced too: cpu_enable_pan() would change this CPU.
 */
static bool passes_pan_matches(const struct arm64_cpu_capabilities *cap, int scope)
{
	struct passes_pan *pan = &passes_ctx->pan;

	pan->asked |= scope;
	return (scope & pan->answers) == scope;
}

static void passes_pan_cpu_enable(const struct arm64_cpu_capabilities *cap)
{
	atomic_inc(&passes_ctx->pan.enables);
}

static const struct arm64_cpu_capabilities *passes_find_feature(u16 num)
{
	const struct arm64_cpu_capabilities *cap;

	for (cap = arm64_features; cap->matches; cap++)
		if (cap->capability == num)
			return cap;
	return NULL;
}

static struct passes_pan *passes_pan_copy(struct kunit *test, u16 answers)
{
	struct passes_ctx *ctx = test->priv;
	struct passes_pan *pan = &ctx->pan;
	const struct arm64_cpu_capabilities *real;

	real = passes_find_feature(ARM64_HAS_PAN);
	KUNIT_ASSERT_NOT_NULL_MSG(test, real, "no row for ARM64_HAS_PAN (%d) in arm64_features[]",
				  ARM64_HAS_PAN);
	KUNIT_EXPECT_TRUE_MSG(test, real->cpu_enable == cpu_enable_pan,
			      "the PAN row's cpu_enable() is %ps, expected %ps",
			      real->cpu_enable, cpu_enable_pan);
	/* Not an assignment: the struct has const members */
	memcpy(&pan->row, real, sizeof(pan->row));
	/* No "detected: Privileged Access Never" from the private passes. */
	pan->row.desc = NULL;
	pan->row.matches = passes_pan_matches;
	pan->row.cpu_enable = passes_pan_cpu_enable;
	pan->ptrs[ARM64_HAS_PAN] = &pan->row;
	pan->set.ptrs = pan->ptrs;
	pan->set.caps = pan->caps;
	pan->set.boot_caps = pan->boot_caps;
	pan->set.ncaps = ARM64_NCAPS;
	pan->answers = answers;
	return pan;
}

/*
 * Every CPU seen so far says it has PAN (the boot and local scopes), but
 * the sanitised register says one lacks it (the system scope): neither
 * detect pass may claim PAN.
 */
static void update_cpu_capabilities_pan_needs_every_cpu(struct kunit *test)
{
	const u16 answers = SCOPE_BOOT_CPU | SCOPE_LOCAL_CPU;
	const u16 boot_pass = SCOPE_BOOT_CPU | SCOPE_LOCAL_CPU;
	struct passes_pan *pan = passes_pan_copy(test, answers);
	bool claimed;

	__update_cpu_capabilities(&pan->set, boot_pass);
	claimed = test_bit(ARM64_HAS_PAN, pan->caps);
	KUNIT_EXPECT_FALSE_MSG(test, claimed,
			       "PAN row (type %#x) claimed by the pass of scope mask %#x, matches() asked %#x, yes for %#x",
			       pan->row.type, boot_pass, pan->asked, answers);
	__update_cpu_capabilities(&pan->set, SCOPE_SYSTEM);
	claimed = test_bit(ARM64_HAS_PAN, pan->caps);
	KUNIT_EXPECT_FALSE_MSG(test, claimed,
			       "PAN row (type %#x) claimed by the passes of scope masks %#x and %#x, matches() asked %#x, yes for %#x",
			       pan->row.type, boot_pass, SCOPE_SYSTEM, pan->asked, answers);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&pan->enables), 0,
			    "PAN row's cpu_enable() ran in a detect pass");
}

/* The system has PAN; a late CPU without it is refused */
static void verify_local_cpu_caps_pan_refuses_cpu_without(struct kunit *test)
{
	const u16 boot_pass = SCOPE_BOOT_CPU | SCOPE_LOCAL_CPU;
	struct passes_pan *pan = passes_pan_copy(test, SCOPE_ALL);
	const struct arm64_cpu_capabilities *conflict;
	bool claimed;

	__update_cpu_capabilities(&pan->set, boot_pass);
	__update_cpu_capabilities(&pan->set, SCOPE_SYSTEM);
	claimed = test_bit(ARM64_HAS_PAN, pan->caps);
	KUNIT_ASSERT_TRUE_MSG(test, claimed,
			      "PAN row (type %#x) not detected with every CPU having it, matches() asked %#x",
			      pan->row.type, pan->asked);

	pan->answers = 0;
	pan->asked = 0;
	preempt_disable();
	conflict = __verify_local_cpu_caps(&pan->set, PASSES_NON_BOOT);
	preempt_enable();
	KUNIT_EXPECT_PTR_EQ_MSG(test, conflict, &pan->row,
				"PAN row (type %#x), scope mask %#x, system has it, late CPU lacks it (matches() asked %#x): %s, expected refused",
				pan->row.type, PASSES_NON_BOOT, pan->asked,
				passes_verdict(conflict));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&pan->enables), 0,
			    "PAN row's cpu_enable() ran on a late CPU without PAN");
}

/*
 * ARM64_CPUCAP_EARLY_LOCAL_CPU_FEATURE, a local CPU scope type with
 * ARM64_CPUCAP_MATCH_ALL_EARLY_CPUS: set by the boot CPU's detect pass
 * only, probed again on every early secondary and cleared for good by the
 * first that lacks it. Such a capability through the detect passes as
 * boot runs them: the boot CPU's (SCOPE_BOOT_CPU | SCOPE_LOCAL_CPU), then
 * check_local_cpu_capabilities() on each early secondary
 * (SCOPE_LOCAL_CPU), each CPU answering matches() for itself, then
 * setup_system_capabilities() (SCOPE_SYSTEM), which leaves a local scope
 * capability alone.
 */
struct passes_match_all {
	const char *name;
	bool boot;		/* the boot CPU has it */
	int secondaries;	/* early secondaries that come up */
	bool secondary[2];	/* whether each has it */
	bool detected;		/* the system has it at the end */
	int matches;		/* matches() calls: probed again on each early CPU */
};

static const struct passes_match_all passes_match_alls[] = {
	{ .name = "boot_cpu_has", .boot = true, .detected = true, .matches = 1 },
	{ .name = "boot_cpu_lacks", .boot = false, .detected = false, .matches = 1 },
	{ .name = "every_secondary_has", .boot = true, .secondaries = 2,
	  .secondary = { true, true }, .detected = true, .matches = 3 },
	{ .name = "last_secondary_lacks", .boot = true, .secondaries = 2,
	  .secondary = { true, false }, .detected = false, .matches = 3 },
	/* Once cleared, never probed nor set again */
	{ .name = "cleared_stays_cleared", .boot = true, .secondaries = 2,
	  .secondary = { false, true }, .detected = false, .matches = 2 },
	/* Only the boot CPU's pass sets it */
	{ .name = "boot_cpu_lacks_secondaries_have", .boot = false, .secondaries = 2,
	  .secondary = { true, true }, .detected = false, .matches = 1 },
};

static void passes_match_all_desc(const struct passes_match_all *m, char *desc)
{
	strscpy(desc, m->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(passes_match_all, passes_match_alls, passes_match_all_desc);

/*
 * ARM64_CPUCAP_EARLY_LOCAL_CPU_FEATURE through the detect passes, each
 * branch of the rule above: the boot CPU has it or lacks it, every early
 * secondary has it, the last one lacks it, once cleared it stays cleared,
 * and only the boot CPU's pass sets it.
 */
static void update_cpu_capabilities_match_all_early_cpus(struct kunit *test)
{
	const struct passes_match_all *m = test->param_value;
	struct passes_ctx *ctx = test->priv;
	bool detected, no_boot_caps;
	char cpus[64];
	int i;

	snprintf(cpus, sizeof(cpus), "boot CPU %s it", passes_has(m->boot));
	passes_add_row(ctx, 0, ARM64_CPUCAP_EARLY_LOCAL_CPU_FEATURE, m->name, m->boot);
	__update_cpu_capabilities(&ctx->set, SCOPE_BOOT_CPU | SCOPE_LOCAL_CPU);
	for (i = 0; i < m->secondaries; i++) {
		ctx->log.has[0] = m->secondary[i];
		__update_cpu_capabilities(&ctx->set, SCOPE_LOCAL_CPU);
	}
	__update_cpu_capabilities(&ctx->set, SCOPE_SYSTEM);
	if (m->secondaries)
		snprintf(cpus + strlen(cpus), sizeof(cpus) - strlen(cpus),
			 ", secondaries %s, %s", passes_has(m->secondary[0]),
			 passes_has(m->secondary[1]));

	detected = test_bit(0, ctx->caps);
	KUNIT_EXPECT_EQ_MSG(test, detected, m->detected, "type %#x, %s: system %s it",
			    ARM64_CPUCAP_EARLY_LOCAL_CPU_FEATURE, cpus, passes_has(detected));
	KUNIT_EXPECT_EQ_MSG(test, ctx->log.matches[0], m->matches,
			    "type %#x, %s: matches() calls", ARM64_CPUCAP_EARLY_LOCAL_CPU_FEATURE,
			    cpus);
	KUNIT_EXPECT_EQ_MSG(test, ctx->log.match_scopes[0], (u16)SCOPE_LOCAL_CPU,
			    "type %#x, %s: scopes matches() was asked for",
			    ARM64_CPUCAP_EARLY_LOCAL_CPU_FEATURE, cpus);
	no_boot_caps = bitmap_empty(ctx->boot_caps, PASSES_NCAPS);
	KUNIT_EXPECT_TRUE_MSG(test, no_boot_caps,
			      "type %#x, %s: boot CPU capabilities %*pbl",
			      ARM64_CPUCAP_EARLY_LOCAL_CPU_FEATURE, cpus, PASSES_NCAPS,
			      ctx->boot_caps);
}

static struct kunit_case __refdata arm64_cpucap_passes_cases[] = {
	KUNIT_CASE_PARAM(enable_cpu_capabilities_after_every_match, passes_scope_gen_params),
	KUNIT_CASE_PARAM(enable_cpu_capabilities_once_per_detected, passes_scope_gen_params),
	KUNIT_CASE_PARAM(enable_cpu_capabilities_sees_later_entries, passes_scope_gen_params),
	KUNIT_CASE(enable_cpu_capabilities_honours_scope),
	KUNIT_CASE_PARAM(update_cpu_capabilities_matches_row_scope, passes_type_gen_params),
	KUNIT_CASE_PARAM(verify_local_cpu_caps_matches_local_scope, passes_type_gen_params),
	KUNIT_CASE_PARAM(verify_local_cpu_caps_skips_other_scopes, passes_type_gen_params),
	KUNIT_CASE(verify_local_cpu_caps_enables_present),
	KUNIT_CASE(verify_local_cpu_caps_refuses_missing),
	KUNIT_CASE(verify_local_cpu_caps_permits_extra),
	KUNIT_CASE_PARAM(verify_local_cpu_caps_ptrauth_by_level, passes_pauth_gen_params),
	KUNIT_CASE_PARAM(verify_local_cpu_caps_pan_by_cpu, passes_pan_cpu_gen_params),
	KUNIT_CASE_PARAM(check_early_cpu_features_asid_by_bits, passes_asid_gen_params),
	KUNIT_CASE_PARAM(verify_local_cpu_caps_late_cpu_rules, passes_late_rule_gen_params),
	KUNIT_CASE_PARAM(check_local_cpu_capabilities_late_cpu_rules,
			 passes_late_rule_gen_params),
	KUNIT_CASE(update_cpu_capabilities_pan_needs_every_cpu),
	KUNIT_CASE(verify_local_cpu_caps_pan_refuses_cpu_without),
	KUNIT_CASE_PARAM(update_cpu_capabilities_match_all_early_cpus,
			 passes_match_all_gen_params),
	{}
};

static struct kunit_suite arm64_cpucap_passes_suite = {
	.name = "arm64_cpucap_passes",
	.init = passes_init,
	.exit = passes_exit,
	.test_cases = arm64_cpucap_passes_cases,
};

kunit_test_init_section_suites(&arm64_cpucap_passes_suite);

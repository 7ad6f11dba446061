// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the saved TTBR0 value of SW TTBR0 PAN
 * (CONFIG_ARM64_SW_TTBR0_PAN), thread_info.ttbr0: what a thread's uaccess
 * window installs in TTBR0_EL1, with its ASID in TTBR1_EL1 (TCR_EL1.A1 is
 * set). enter_lazy_tlb() gives a thread left without an mm the reserved
 * tables there, and switch_mm() gives the thread it switches to that
 * thread's own mm's tables and ASID. On a CPU with FEAT_PAN the kernel
 * uses the CPU's PAN instead, and every case skips.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>

#include "pan_helpers.h"
#include "pan_uaccess_helpers.h"

/* What a uaccess window shows, and the ASID of the thread's mm then. */
struct pant_window {
	u64 ttbr0_baddr;
	u64 asid;
	u64 mm_asid;
	u64 mm_ctx_id;	/* its context.id: generation and ASID */
};

/*
 * The tables a uaccess window opened now shows, read with IRQs off: the
 * entry and exit of an IRQ in the window would take what the window holds
 * for closed when its ASID is the reserved one, and a task that ran in
 * between could leave other tables behind. With @mm (the thread's), its
 * ASID and context.id, read with them.
 */
static void pant_read_window(struct pant_window *w, struct mm_struct *mm)
{
	unsigned long flags;

	local_irq_save(flags);
	uaccess_enable_privileged();
	w->ttbr0_baddr = pant_ttbr0_baddr();
	w->asid = pant_asid();
	uaccess_disable_privileged();
	w->mm_asid = mm ? ASID(mm) : 0;
	w->mm_ctx_id = mm ? atomic64_read(&mm->context.id) : 0;
	local_irq_restore(flags);
}

/*
 * Under TTBR0 PAN a uaccess window installs the thread's saved TTBR0 value
 * (thread_info.ttbr0). A thread left without an mm gets the reserved
 * tables there from enter_lazy_tlb(): when kthread_unuse_mm() detaches its
 * mm, and each time the scheduler switches it in. A window it opens then
 * shows reserved_pg_dir and the reserved ASID; anything else is the
 * tables of an mm it no longer holds (whose pgd may be freed) or the
 * kernel's. Read right after kthread_unuse_mm() (the mm still held, so
 * that no mmput() comes in between), and again after the mm is dropped
 * and the thread has slept. Nothing is accessed through the window.
 */
static void enter_lazy_tlb_window_reserved(struct kunit *test)
{
	struct pant_user *u = test->priv;
	static const char * const when[] = {
		"right after kthread_unuse_mm()", "after a sleep, without an mm",
	};
	struct pant_window w[ARRAY_SIZE(when)];
	int i;

	pant_require_ttbr0_pan(test, "a uaccess window leaves TTBR0_EL1 as it is");

	pant_user_attach(test, u);
	pant_user_unuse(u);
	pant_read_window(&w[0], NULL);
	pant_user_drop(test, u);
	schedule_timeout_uninterruptible(1);
	pant_read_window(&w[1], NULL);

	for (i = 0; i < ARRAY_SIZE(when); i++)
		KUNIT_EXPECT_TRUE_MSG(test, pant_tables_reserved(w[i].ttbr0_baddr, w[i].asid),
				      "a window opened %s: TTBR0_EL1.BADDR=%#llx ASID=%#llx; want reserved_pg_dir and the reserved ASID, %#llx %#x",
				      when[i], w[i].ttbr0_baddr, w[i].asid, pant_reserved_baddr(),
				      PANT_RESERVED_ASID);
	pant_expect_closed(test, NULL, "the windows opened without an mm");
}

/*
 * Times the case's thread hands its CPU to the other thread: the
 * scheduler usually switches straight from one to the other, but may run
 * a third task in between.
 */
#define PANT_SWITCH_ROUNDS	4

/* Another kernel thread with a user mm of its own, on the case's CPU. */
struct pant_other_mm {
	struct kunit *test;
	struct pant_user user;
	int ret;
	u64 baddr;		/* its pgd, for the message */
	u64 ctx_id;		/* its mm's context.id (generation, ASID), as it ran */
	struct completion attached, go, ran, finished;
};

static int pant_run_with_other_mm(void *data)
{
	struct pant_other_mm *o = data;
	int i;

	o->ret = pant_user_get(o->test, &o->user);
	if (!o->ret)
		o->baddr = virt_to_phys(o->user.mm->pgd);
	complete(&o->attached);
	if (o->ret)
		kthread_complete_and_exit(&o->finished, 0);
	for (i = 0; i < PANT_SWITCH_ROUNDS; i++) {
		wait_for_completion(&o->go);
		/* Runs with this mm attached, the case's thread waiting. */
		o->ctx_id = atomic64_read(&o->user.mm->context.id);
		complete(&o->ran);
	}
	vm_munmap(o->user.addr, PAGE_SIZE);
	kthread_unuse_mm(o->user.mm);
	mmput(o->user.mm);
	mmdrop(o->user.held);
	kthread_complete_and_exit(&o->finished, 0);
}

/*
 * Lets the other thread run to its end and waits for it: a deferred
 * action, run by the case once its rounds are done or, if the case ended
 * before, when KUnit cleans up after it, before @data is freed.
 */
static void pant_other_mm_finish(void *data)
{
	struct pant_other_mm *o = data;

	complete_all(&o->go);
	wait_for_completion(&o->finished);
}

/*
 * switch_mm() updates the saved TTBR0 value of the task it switches to
 * (its @tsk argument), which its next uaccess window installs. The
 * scheduler calls it while the task it switches from is still current:
 * so the case's thread, with its mm attached, lets another thread with an
 * mm of its own run on its CPU, PANT_SWITCH_ROUNDS times, and each time a
 * window it opens once it is back must show its own mm's pgd and ASID,
 * never the other's. Read with IRQs off; nothing is accessed through the
 * window. The two mms, both live, never have one ASID of one generation
 * (mm->context.id): one ASID names one address space, and TLB entries of
 * one would translate for the other.
 */
static void switch_mm_saved_ttbr0_of_next_task(struct kunit *test)
{
	struct pant_user *u = test->priv;
	struct pant_window w[PANT_SWITCH_ROUNDS];
	u64 other_ctx_id[PANT_SWITCH_ROUNDS];
	struct pant_other_mm *o;
	struct task_struct *other;
	u64 want_baddr;
	int i, ret;

	pant_require_ttbr0_pan(test, "a uaccess window leaves TTBR0_EL1 as it is");

	o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	o->test = test;
	init_completion(&o->attached);
	init_completion(&o->go);
	init_completion(&o->ran);
	init_completion(&o->finished);
	pant_user_attach(test, u);
	migrate_disable();
	other = kthread_create(pant_run_with_other_mm, o, "pan_ttbr0_other_mm");
	if (IS_ERR(other)) {
		migrate_enable();
		KUNIT_FAIL(test, "kthread_create(): %pe", other);
		pant_user_put(test, u);
		return;
	}
	kthread_bind(other, smp_processor_id());
	wake_up_process(other);
	ret = kunit_add_action_or_reset(test, pant_other_mm_finish, o);
	if (ret) {
		migrate_enable();
		KUNIT_FAIL(test, "kunit_add_action_or_reset(the other thread): %d", ret);
		pant_user_put(test, u);
		return;
	}
	wait_for_completion(&o->attached);
	for (i = 0; !o->ret && i < PANT_SWITCH_ROUNDS; i++) {
		complete(&o->go);
		wait_for_completion(&o->ran);
		other_ctx_id[i] = o->ctx_id;
		pant_read_window(&w[i], u->mm);
	}
	kunit_release_action(test, pant_other_mm_finish, o);
	migrate_enable();
	KUNIT_ASSERT_EQ_MSG(test, o->ret, 0, "the other thread's mm: %d", o->ret);

	want_baddr = virt_to_phys(u->mm->pgd);
	for (i = 0; i < PANT_SWITCH_ROUNDS; i++)
		KUNIT_EXPECT_TRUE_MSG(test, w[i].ttbr0_baddr == want_baddr &&
				      w[i].asid == w[i].mm_asid,
				      "a window opened after another thread with an mm ran on this CPU (round %d): TTBR0_EL1.BADDR=%#llx ASID=%#llx; want the case's mm's, %#llx %#llx (the other's pgd: %#llx)",
				      i, w[i].ttbr0_baddr, w[i].asid, want_baddr, w[i].mm_asid,
				      o->baddr);
	for (i = 0; i < PANT_SWITCH_ROUNDS; i++)
		KUNIT_EXPECT_NE_MSG(test, w[i].mm_ctx_id, other_ctx_id[i],
				    "round %d: the case's mm (pgd %#llx) and the other thread's (pgd %#llx), both live, share ASID %#llx of one generation (context.id %#llx)",
				    i, want_baddr, o->baddr, w[i].mm_asid, w[i].mm_ctx_id);
	pant_user_put(test, u);
}

static struct kunit_case arm64_pan_saved_ttbr0_cases[] = {
	KUNIT_CASE(enter_lazy_tlb_window_reserved),
	KUNIT_CASE(switch_mm_saved_ttbr0_of_next_task),
	{}
};

static struct kunit_suite arm64_pan_saved_ttbr0_suite = {
	.name = "arm64_pan_saved_ttbr0",
	.init = pant_user_suite_init,
	.exit = pant_user_suite_exit,
	.test_cases = arm64_pan_saved_ttbr0_cases,
};

kunit_test_suite(arm64_pan_saved_ttbr0_suite);

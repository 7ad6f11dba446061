// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the page faults taken inside the uaccess routines under
 * Privileged Access Never (PAN), with page faults enabled as a system
 * call has them: each ends in the routine's fixup with user access
 * closed, or do_page_fault() maps the page and the access, retried,
 * completes; do_page_fault() handles them as faults of the kernel, under
 * the mmap_lock, with user access closed; and the access itself runs with
 * the PAN state of its routine.
 *
 * get_user() and friends access user memory with LDTR/STTR (or, with
 * FEAT_MOPS, copy with the unprivileged CPY*RT/WT forms), unprivileged
 * accesses, checked as if made at EL0 while PSTATE.UAO is 0 (which the
 * kernel never sets), so PAN does not stop them (DDI 0487 M.a.a,
 * C6.2.244 LDTR, C6.2.434 STTR; D8.4.5 Effect of PSTATE on access
 * permission): they must never clear PSTATE.PAN, and whether they did
 * shows only inside the routine. A page fault taken
 * there saves the PSTATE the access ran with, which the software page
 * fault event hands to its overflow handler (CONFIG_PERF_EVENTS). Under
 * SW TTBR0 PAN the routines open a window instead, and a fault inside it
 * must be handled on the reserved tables and give the window back.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/extable.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/perf_event.h>
#include <linux/uaccess.h>

#include "pan_helpers.h"
#include "pan_uaccess_helpers.h"

/*
 * A routine's page faults at EL1, as the software page fault event saw
 * them from inside do_page_fault(): the PAN bit of the SPSR each saved
 * (emulated under TTBR0 PAN: the entry code's reading of the ASID in
 * TTBR0_EL1 when the access faulted), and the tables the handler runs on.
 */
struct pant_faults_seen {
	unsigned long start, end;	/* the user page the routine faults on */
	enum pant_kind kind;
	u64 want_pan;		/* the SPSR.PAN each must have */
	unsigned int faults;	/* at EL1, at an instruction with a fixup, in [start, end) */
	bool wrong_pan;		/* one of them had another SPSR.PAN */
	bool gave_up;		/* too many: page faults disabled, the access fails */
	unsigned long pc;	/* the first with another SPSR.PAN, else the last */
	unsigned long addr;
	u64 pstate;
	bool handler_open;	/* the handler ran with user access open */
	u64 handler_pan;	/* the first such, else the last: PSTATE.PAN (FEAT_PAN), */
	u64 handler_ttbr0_baddr;	/* TTBR0_EL1 and the ASID */
	u64 handler_asid;
	unsigned long other_pc;	/* the last EL1 fault not counted, and its address */
	unsigned long other_addr;
};

struct pant_fault_ctx {
	struct pant_user user;
	struct perf_event *fault_event;	/* until the case releases it */
	struct pant_faults_seen seen;
};

/*
 * Every case runs without any PAN too (neither the CPU's nor SW TTBR0
 * PAN): the routines then run with no window around them, and must still
 * keep the uaccess contract, on the tables cpu_do_switch_mm() installed.
 */
static int pant_uaccess_fault_init(struct kunit *test)
{
	struct pant_fault_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	return 0;
}

/*
 * Checks that the test mm is gone and that user access is closed in the
 * thread .exit runs in. A page fault event that a case left is released
 * after it, by the action that pant_fault_event_start() deferred.
 */
static void pant_uaccess_fault_exit(struct kunit *test)
{
	struct pant_fault_ctx *ctx = test->priv;

	/* .exit also runs after .init failed. */
	if (!ctx)
		return;
	pant_user_exit(test, &ctx->user);
}

/*
 * Retries of one access after which it is taken for one that will never
 * complete: with the wrong tables in TTBR0_EL1, do_page_fault() maps the
 * page in the mm and the access faults again, for ever.
 */
#define PANT_FAULT_RETRIES	8

#ifdef CONFIG_PERF_EVENTS
static void pant_fault_overflow(struct perf_event *event, struct perf_sample_data *data,
				struct pt_regs *regs)
{
	struct pant_faults_seen *seen = event->overflow_handler_context;
	unsigned long pc = instruction_pointer(regs);
	u64 ttbr0_baddr, asid, pan;

	if (user_mode(regs))
		return;
	if (data->addr < seen->start || data->addr >= seen->end ||
	    !search_exception_tables(pc)) {
		seen->other_pc = pc;
		seen->other_addr = data->addr;
		return;
	}
	if (++seen->faults > PANT_FAULT_RETRIES && !seen->gave_up) {
		/* This task's next fault goes to the fixup: -EFAULT. */
		seen->gave_up = true;
		pagefault_disable();
	}
	pan = seen->kind == PANT_HW ? pant_read_pan() : 0;
	ttbr0_baddr = pant_ttbr0_baddr();
	asid = pant_asid();
	if (!seen->handler_open) {
		seen->handler_open = (seen->kind == PANT_HW && !pan) ||
				     (seen->kind == PANT_TTBR0 &&
				      !pant_tables_reserved(ttbr0_baddr, asid));
		seen->handler_pan = pan;
		seen->handler_ttbr0_baddr = ttbr0_baddr;
		seen->handler_asid = asid;
	}
	if (seen->wrong_pan)
		return;
	seen->wrong_pan = (regs->pstate & PSR_PAN_BIT) != seen->want_pan;
	seen->pc = pc;
	seen->addr = data->addr;
	seen->pstate = regs->pstate;
}

KUNIT_DEFINE_ACTION_WRAPPER(pant_fault_event_release, perf_event_release_kernel,
			    struct perf_event *);

/*
 * A software page fault event (PERF_COUNT_SW_PAGE_FAULTS, sample period
 * 1) on the case's thread, whose overflow handler gets the registers
 * do_page_fault() got, and runs in it. It also ends an access that would
 * fault for ever: past PANT_FAULT_RETRIES faults it disables page faults,
 * and the next fault goes to the routine's fixup. Its release is a
 * deferred action: the case runs it with pant_fault_event_stop(), KUnit
 * when an assertion ends the case first. The event goes before @ctx,
 * where its handler writes, which .init allocated before it.
 */
static void pant_fault_event_start(struct kunit *test, struct pant_fault_ctx *ctx)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
	};
	struct perf_event *event;
	int ret;

	memset(&ctx->seen, 0, sizeof(ctx->seen));
	event = perf_event_create_kernel_counter(&attr, -1, current, pant_fault_overflow,
						 &ctx->seen);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(event),
			       "perf_event_create_kernel_counter(page faults): %pe", event);
	ret = kunit_add_action_or_reset(test, pant_fault_event_release, event);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "kunit_add_action_or_reset(page fault event)");
	ctx->fault_event = event;
}

static void pant_fault_event_stop(struct kunit *test, struct pant_fault_ctx *ctx)
{
	if (!ctx->fault_event)
		return;
	kunit_release_action(test, pant_fault_event_release, ctx->fault_event);
	ctx->fault_event = NULL;
}
#else
static void pant_fault_event_start(struct kunit *test, struct pant_fault_ctx *ctx)
{
	kunit_skip(test,
		   "CONFIG_PERF_EVENTS=n: no page fault event to see an access's faults, or to end one that would fault for ever");
}

static void pant_fault_event_stop(struct kunit *test, struct pant_fault_ctx *ctx)
{
}
#endif

/*
 * Before a routine faults on the page at @page, which nothing touched yet:
 * each of its faults must have the SPSR.PAN of an access inside a routine,
 * as the kind of PAN makes it: set by the CPU's PAN, which the routines'
 * unprivileged accesses never clear; clear under TTBR0 PAN, whose routines
 * open a window first (with it closed the fault is a PAN violation); RES0
 * without PAN.
 */
static void pant_faults_watch(struct pant_faults_seen *seen, unsigned long page)
{
	memset(seen, 0, sizeof(*seen));
	seen->start = page;
	seen->end = page + PAGE_SIZE;
	seen->kind = pant_get_kind();
	seen->want_pan = seen->kind == PANT_HW ? PSR_PAN_BIT : 0;
}

/*
 * After @what: it faulted on the page, do_page_fault() mapped it in, and
 * the retried access completed; the SPSR.PAN at each fault was what
 * pant_faults_watch() wants, and the handler ran with user access closed
 * (PSTATE.PAN set by the exception; under TTBR0 PAN, reserved_pg_dir and
 * the reserved ASID: the entry closed the window the access had open, and
 * the exit gave it back). Usually after one fault; up to
 * PANT_FAULT_RETRIES are allowed, since arm64's update_mmu_cache() leaves
 * out the barrier that would make the new PTE visible to the retried
 * access at once: the access may fault again, spuriously.
 */
static void pant_expect_fault_handled(struct kunit *test, struct pant_faults_seen *seen,
				      const char *what)
{
	if (seen->gave_up)
		pagefault_enable();
	KUNIT_EXPECT_FALSE_MSG(test, seen->gave_up,
			       "%s: %u faults at %pS on %#lx, the access never completed: wrong tables in TTBR0_EL1 after the exception return?",
			       what, seen->faults, (void *)seen->pc, seen->addr);
	KUNIT_EXPECT_GT_MSG(test, seen->faults, 0U,
			    "%s: no page fault on [%#lx, %#lx) at an instruction with a fixup (last other EL1 fault: %pS on %#lx)",
			    what, seen->start, seen->end, (void *)seen->other_pc,
			    seen->other_addr);
	KUNIT_EXPECT_FALSE_MSG(test, seen->wrong_pan,
			       "%s (%s): faulted at %pS on %#lx with SPSR %#llx: SPSR.PAN=%d inside the routine, want %d",
			       what, pant_kind_name(seen->kind), (void *)seen->pc, seen->addr,
			       seen->pstate, !!(seen->pstate & PSR_PAN_BIT), !!seen->want_pan);
	if (seen->kind == PANT_HW)
		KUNIT_EXPECT_FALSE_MSG(test, seen->handler_open,
				       "%s (%s): do_page_fault() ran with PSTATE.PAN=%d",
				       what, pant_kind_name(seen->kind), !!seen->handler_pan);
	if (seen->kind == PANT_TTBR0)
		KUNIT_EXPECT_FALSE_MSG(test, seen->handler_open,
				       "%s (%s): do_page_fault() ran with TTBR0_EL1.BADDR=%#llx ASID=%#llx; want reserved_pg_dir and the reserved ASID, %#llx %#x",
				       what, pant_kind_name(seen->kind), seen->handler_ttbr0_baddr,
				       seen->handler_asid, pant_reserved_baddr(),
				       PANT_RESERVED_ASID);
}

/*
 * Faults taken with page faults enabled, as a system call takes them, so
 * that do_page_fault() goes past its faulthandler_disabled() exit: a
 * get_user() before the thread has an mm; a get_user() from the unmapped
 * page, which has no VMA; and a put_user() and a copy_to_user() to a
 * read-only page, each a permission fault at EL1 on a user address, which
 * the exception table makes a uaccess fault rather than a PAN violation.
 * Each ends in its routine's fixup, -EFAULT, with user access closed. None
 * of them can hang on wrong tables: no fault handling makes such a page
 * accessible. Last, a get_user() from an untouched read-only page, which
 * the fault maps.
 */
static void uaccess_fault_handled_efault_pan_restored(struct kunit *test)
{
	struct pant_fault_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
	u8 buf[16] = { 0 };
	unsigned long ro;
	u32 val;

	KUNIT_ASSERT_PTR_EQ_MSG(test, current->mm, NULL, "the case's thread has an mm");
	KUNIT_EXPECT_EQ_MSG(test, get_user(val, (u32 __user *)NULL), -EFAULT,
			    "get_user() from NULL without an mm");
	pant_expect_closed(test, NULL, "get_user() without an mm");

	pant_user_attach(test, u);
	pagefault_enable();
	KUNIT_EXPECT_EQ_MSG(test, get_user(val, (u32 __user *)u->unmapped), -EFAULT,
			    "get_user() from unmapped %#lx, page faults on", u->unmapped);
	pant_expect_closed(test, u->mm, "get_user() from an unmapped address, page faults on");

	/* Mapped after that read: it may well take the unmapped page's place. */
	ro = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ, MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(ro), "vm_mmap() of a read-only page: %ld",
			       (long)ro);
	KUNIT_EXPECT_EQ_MSG(test, put_user(1U, (u32 __user *)ro), -EFAULT,
			    "put_user() to read-only %#lx", ro);
	pant_expect_closed(test, u->mm, "put_user() to a read-only page");
	KUNIT_EXPECT_EQ_MSG(test, copy_to_user((void __user *)ro, buf, sizeof(buf)), sizeof(buf),
			    "copy_to_user(%#lx, %zu) to a read-only page", ro, sizeof(buf));
	pant_expect_closed(test, u->mm, "copy_to_user() to a read-only page");

	vm_munmap(ro, PAGE_SIZE);

	/*
	 * A read of a read-only page that nothing touched yet: a read fault
	 * at EL1, which the VMA's VM_READ allows, so do_page_fault() maps the
	 * page and get_user() reads 0. A read taken for a write (or for a
	 * guarded control stack access) would find no VM_WRITE and fail.
	 * Under TTBR0 PAN, where wrong tables left by the exception return
	 * would make the read fault again on the page the handler mapped, for
	 * ever, the page fault event watches it and ends it (without
	 * CONFIG_PERF_EVENTS, the read is left out); elsewhere TTBR0_EL1
	 * always holds the mm's tables.
	 */
	if (pant_get_kind() == PANT_TTBR0) {
		if (!IS_ENABLED(CONFIG_PERF_EVENTS))
			goto out;
		pant_fault_event_start(test, ctx);
	}
	ro = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(ro), "vm_mmap() of a read-only page: %ld",
			       (long)ro);
	pant_faults_watch(&ctx->seen, ro);
	val = 1;
	KUNIT_EXPECT_EQ_MSG(test, get_user(val, (u32 __user *)ro), 0,
			    "get_user() from an untouched read-only page at %#lx", ro);
	KUNIT_EXPECT_EQ_MSG(test, val, 0U,
			    "get_user() from an untouched read-only page at %#lx", ro);
	if (ctx->fault_event) {
		pant_expect_fault_handled(test, &ctx->seen,
					  "get_user() from an untouched read-only page");
		pant_fault_event_stop(test, ctx);
	}
	pant_expect_closed(test, u->mm, "get_user() from an untouched read-only page");
	vm_munmap(ro, PAGE_SIZE);
out:
	pagefault_disable();
	pant_user_put(test, u);
}

/*
 * What do_page_fault() tells the fault handler of a VMA about a fault
 * that get_user() takes at EL1: not a fault of user mode (FAULT_FLAG_USER,
 * "the fault originated in userspace", include/linux/mm_types.h), nor a
 * write.
 */
static void do_page_fault_uaccess_not_a_user_fault(struct kunit *test)
{
	struct pant_fault_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
	struct pant_fault_flags *seen;

	pant_user_attach(test, u);
	seen = pant_read_refused_mapping(test, u, VM_READ | VM_MAYREAD, "a readable mapping");
	KUNIT_ASSERT_GT_MSG(test, seen->calls, 0,
			    "get_user() from %#lx: the VMA's fault handler was never called",
			    u->unmapped);
	KUNIT_EXPECT_FALSE_MSG(test, seen->flags & FAULT_FLAG_USER,
			       "get_user() from %#lx, a fault at EL1: vmf->flags %#x has FAULT_FLAG_USER",
			       u->unmapped, seen->flags);
	KUNIT_EXPECT_FALSE_MSG(test, seen->flags & FAULT_FLAG_WRITE,
			       "get_user() from %#lx, a read: vmf->flags %#x has FAULT_FLAG_WRITE",
			       u->unmapped, seen->flags);
	pant_user_put(test, u);
}

/* Another thread's hold of an mm's mmap_lock for writing, for a while. */
struct pant_lock_holder {
	struct mm_struct *mm;
	struct completion locked, done, released;
	bool done_while_held;	/* the case's access ended before the release */
};

#define PANT_LOCK_HOLD_MS	500

static int pant_hold_mmap_lock(void *data)
{
	struct pant_lock_holder *h = data;

	mmap_write_lock(h->mm);
	complete(&h->locked);
	h->done_while_held = wait_for_completion_timeout(&h->done,
							 msecs_to_jiffies(PANT_LOCK_HOLD_MS));
	mmap_write_unlock(h->mm);
	complete(&h->released);
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/*
 * A fault that get_user() takes at EL1 is handled under the mm's
 * mmap_lock, never under the lock of its VMA alone (per-VMA locking is
 * for faults of user mode): while another thread holds the mmap_lock for
 * writing, a read of an untouched page cannot end. The holder lets it go after
 * PANT_LOCK_HOLD_MS and notes whether the read ended first. Under TTBR0
 * PAN the fault sleeps inside the window get_user() opened, and the
 * thread is switched out and in again before the exception returns: the
 * page fault event checks that the handler ran on the reserved tables and
 * the window came back, and ends the read if it faults again and again
 * instead of hanging the case.
 */
static void do_page_fault_uaccess_waits_for_mmap_lock(struct kunit *test)
{
	struct pant_fault_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
	struct pant_lock_holder h = {};
	struct task_struct *holder;
	unsigned long page;
	bool ttbr0 = pant_get_kind() == PANT_TTBR0;
	u32 val = 1;
	int ret;

	if (ttbr0)
		pant_fault_event_start(test, ctx);
	pant_user_attach(test, u);
	page = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(page), "vm_mmap() of a read-only page: %ld",
			       (long)page);
	pant_faults_watch(&ctx->seen, page);
	h.mm = u->mm;
	init_completion(&h.locked);
	init_completion(&h.done);
	init_completion(&h.released);
	holder = kthread_run(pant_hold_mmap_lock, &h, "pan_mmap_lock_holder");
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(holder), "kthread_run(): %pe", holder);

	wait_for_completion(&h.locked);
	pagefault_enable();
	ret = get_user(val, (u32 __user *)page);
	pagefault_disable();
	complete(&h.done);
	wait_for_completion(&h.released);
	kthread_stop(holder);

	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "get_user() from an untouched read-only page at %#lx",
			    page);
	KUNIT_EXPECT_EQ_MSG(test, val, 0U, "get_user() from an untouched read-only page at %#lx",
			    page);
	KUNIT_EXPECT_FALSE_MSG(test, h.done_while_held,
			       "get_user() from %#lx, a fault at EL1, ended while another thread held the mmap_lock for writing: it was handled under the VMA's lock alone",
			       page);
	if (ttbr0) {
		pant_expect_fault_handled(test, &ctx->seen, "get_user() waiting for the mmap_lock");
		pant_fault_event_stop(test, ctx);
	}
	pant_expect_closed(test, u->mm, "get_user() waiting for the mmap_lock");
	vm_munmap(page, PAGE_SIZE);
	pant_user_put(test, u);
}

/*
 * get_user(), put_user(), copy_{to,from}_user() and clear_user() each on a
 * page of their own that nothing touched yet, with page faults enabled:
 * each faults, do_page_fault() maps the page in, and the access is retried
 * and completes, as pant_expect_fault_handled() checks, with user access
 * closed after it. Each page is a VMA of its own, so that no fault
 * maps in the next routine's page.
 */
static void pant_routines_fault(struct kunit *test)
{
	struct pant_fault_ctx *ctx = test->priv;
	struct pant_faults_seen *seen = &ctx->seen;
	struct pant_user *u = &ctx->user;
	const size_t len = 64;
	unsigned long pages, page, left;
	u8 out[64], in[64];
	int ret, i;
	u32 val;

	pant_fault_event_start(test, ctx);
	pant_user_attach(test, u);
	pagefault_enable();
	/* Pages 0, 2, 4, 6 and 8 of 9, none touched yet: each access faults. */
	pages = vm_mmap(NULL, 0, 9 * PAGE_SIZE, PROT_READ | PROT_WRITE,
			MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(pages), "vm_mmap() of 9 pages: %ld",
			       (long)pages);
	for (i = 1; i < 9; i += 2) {
		ret = vm_munmap(pages + i * PAGE_SIZE, PAGE_SIZE);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "vm_munmap() of page %d of 9 at %#lx", i, pages);
	}
	memset(out, 0x5a, sizeof(out));

	page = pages;
	pant_faults_watch(seen, page);
	val = 1;
	ret = get_user(val, (u32 __user *)page);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "get_user() from %#lx", page);
	KUNIT_EXPECT_EQ_MSG(test, val, 0U, "get_user() from untouched %#lx", page);
	pant_expect_fault_handled(test, seen, "get_user()");
	pant_expect_closed(test, u->mm, "get_user() from an untouched page");

	page += 2 * PAGE_SIZE;
	pant_faults_watch(seen, page);
	ret = put_user(0x12345678U, (u32 __user *)page);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "put_user() to %#lx", page);
	pant_expect_fault_handled(test, seen, "put_user()");
	pant_expect_closed(test, u->mm, "put_user() to an untouched page");

	page += 2 * PAGE_SIZE;
	pant_faults_watch(seen, page);
	left = copy_to_user((void __user *)page, out, len);
	KUNIT_EXPECT_EQ_MSG(test, left, 0UL, "copy_to_user() to %#lx", page);
	pant_expect_fault_handled(test, seen, "copy_to_user()");
	pant_expect_closed(test, u->mm, "copy_to_user() to an untouched page");

	page += 2 * PAGE_SIZE;
	pant_faults_watch(seen, page);
	memset(in, 0xff, sizeof(in));
	left = copy_from_user(in, (void __user *)page, len);
	KUNIT_EXPECT_EQ_MSG(test, left, 0UL, "copy_from_user() from %#lx", page);
	KUNIT_EXPECT_PTR_EQ_MSG(test, memchr_inv(in, 0, len), NULL,
				"copy_from_user(%zu) from untouched %#lx: not all zero", len, page);
	pant_expect_fault_handled(test, seen, "copy_from_user()");
	pant_expect_closed(test, u->mm, "copy_from_user() from an untouched page");

	page += 2 * PAGE_SIZE;
	pant_faults_watch(seen, page);
	left = clear_user((void __user *)page, len);
	KUNIT_EXPECT_EQ_MSG(test, left, 0UL, "clear_user() of %#lx", page);
	pant_expect_fault_handled(test, seen, "clear_user()");
	pant_expect_closed(test, u->mm, "clear_user() of an untouched page");

	pant_fault_event_stop(test, ctx);
	for (i = 0; i < 9; i += 2)
		vm_munmap(pages + i * PAGE_SIZE, PAGE_SIZE);
	pagefault_disable();
	pant_user_put(test, u);
}

/*
 * get_user(), put_user(), copy_{to,from}_user() and clear_user() each
 * fault on a page nothing touched yet, and complete once do_page_fault()
 * has mapped it (pant_routines_fault(), which watches the faults with a
 * software page fault event). Under the CPU's PAN each fault's saved
 * PSTATE, the one the access ran with, has PAN set: the routines access
 * user memory with unprivileged loads and stores (LDTR/STTR, or with
 * FEAT_MOPS the CPY*RT/WT and SET*T forms), which need no window,
 * so they never clear it; and do_page_fault() runs with PSTATE.PAN set.
 * Without the CPU's PAN there is no PSTATE.PAN to keep and the case skips.
 */
static void uaccess_unprivileged_fault_pan_kept(struct kunit *test)
{
	if (pant_get_kind() == PANT_TTBR0)
		kunit_skip(test,
			   "%s: no PSTATE.PAN for the routines to keep, under TTBR0 PAN (uaccess_fault_in_ttbr0_window_retried checks its window)",
			   PANT_NO_PAN_REASON);
	if (pant_get_kind() == PANT_NONE)
		kunit_skip(test, "%s: no PSTATE.PAN for the routines to keep",
			   PANT_NO_PAN_REASON);
	pant_routines_fault(test);
}

/*
 * The same routines and faults under TTBR0 PAN, where each routine opens
 * a window and faults inside it: the entry code saw the window open (the
 * mm's ASID in TTBR0_EL1) and saved the SPSR with the emulated PAN bit
 * clear; do_page_fault() ran on the reserved tables; and the exception
 * return gave the mm's tables back, so that the retried access completed.
 * Without TTBR0 PAN the routines open no such window and the case skips.
 */
static void uaccess_fault_in_ttbr0_window_retried(struct kunit *test)
{
	pant_require_ttbr0_pan(test, "the routines open no TTBR0 window");
	pant_routines_fault(test);
}

static struct kunit_case arm64_pan_uaccess_fault_cases[] = {
	KUNIT_CASE(uaccess_fault_handled_efault_pan_restored),
	KUNIT_CASE(do_page_fault_uaccess_not_a_user_fault),
	KUNIT_CASE(do_page_fault_uaccess_waits_for_mmap_lock),
	KUNIT_CASE(uaccess_unprivileged_fault_pan_kept),
	KUNIT_CASE(uaccess_fault_in_ttbr0_window_retried),
	{}
};

static struct kunit_suite arm64_pan_uaccess_fault_suite = {
	.name = "arm64_pan_uaccess_fault",
	.init = pant_uaccess_fault_init,
	.exit = pant_uaccess_fault_exit,
	.test_cases = arm64_pan_uaccess_fault_cases,
};

kunit_test_suite(arm64_pan_uaccess_fault_suite);

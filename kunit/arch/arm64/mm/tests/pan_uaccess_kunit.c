// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the uaccess windows of Privileged Access Never (PAN):
 * the privileged helpers open user access and close it again, and
 * get_user(), put_user(), copy_{to,from}_user(), clear_user() and the
 * futex helpers leave it closed, on a mapped page and on an unmapped one;
 * a page fault inside a window is handled with user access closed and
 * the access retried with it open again; a thread without an mm opens its
 * window on reserved_pg_dir; and a read of an execute-only mapping gets
 * what EPAN decides.
 *
 * How "user access is closed" is seen depends on how PAN is provided:
 * - by the CPU (FEAT_PAN): PSTATE.PAN is 1, and TTBR0_EL1 keeps the
 *   attached mm's tables also in a kernel built with
 *   CONFIG_ARM64_SW_TTBR0_PAN, where the CPU's PAN must win;
 * - by software (CONFIG_ARM64_SW_TTBR0_PAN on a CPU without FEAT_PAN):
 *   TTBR0_EL1 points at reserved_pg_dir, and the ASID of the TTBR that
 *   TCR_EL1.A1 names (TTBR1_EL1) is the reserved one, 0; open, they hold
 *   the mm's pgd and ASID;
 * - not at all: there is no window to open or close (the SPSR's PAN bit
 *   is RES0); the routines must still keep the uaccess contract, and
 *   TTBR0_EL1 holds the mm's tables (with CnP only if the system uses it).
 * In the first two, an interrupt taken on the CPU saves the PAN state of
 * the interrupted context in bit 22 of its SPSR (emulated by the entry
 * code for TTBR0 PAN), which the tests read from the interrupt handler,
 * where user access must be closed whatever the context had; PSTATE.PAN,
 * TTBR0_EL1 and the ASID are read before the interrupt and again after it
 * returned.
 *
 * get_user() and friends access user memory with LDTR/STTR (or, with
 * FEAT_MOPS, copy with the unprivileged CPY*RT/WT forms),
 * unprivileged accesses, checked as if made at EL0 while PSTATE.UAO is 0
 * (which these kernels never set), so PAN does not stop them (DDI 0487
 * J.a, C6.2 LDTR, STTR; D8, Privileged Access Never): they must never
 * clear PSTATE.PAN, and whether they did shows only inside the routine. A
 * page fault taken there saves the PSTATE the access ran with, which the
 * software page fault event hands to its overflow handler
 * (CONFIG_PERF_EVENTS).
 *
 * A suite's .exit runs in a kernel thread of its own, not in the one that
 * ran the case, so its current->mm says nothing about the case: a case
 * checks "no mm left, user access closed" in its own thread when it drops
 * its mm (pant_user_put()), and pant_uaccess_exit() checks through a
 * reference of its own that the mm is gone, whether the case dropped it
 * or the exit of a thread an assertion ended did.
 */

#include <kunit/test.h>
#include <linux/extable.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/perf_event.h>
#include <linux/pgtable.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>
#include <asm/futex.h>

#include "pan_helpers.h"

/*
 * A user mm of the test's, attached to the calling kernel thread, with one
 * mapped read-write page at @addr and an unmapped page right after it.
 */
struct pant_user {
	struct mm_struct *mm;
	struct mm_struct *held;	/* an mmgrab() reference, for pant_uaccess_exit() */
	unsigned long addr;
	unsigned long unmapped;
};

/*
 * kunit_vm_mmap() attaches a new mm to the calling thread, which drops it
 * as it exits; the callers drop it themselves, with pant_user_put().
 */
static int pant_user_get(struct kunit *test, struct pant_user *u)
{
	unsigned long addr;
	int ret;

	addr = kunit_vm_mmap(test, NULL, 0, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE, 0);
	if (!addr)
		return -ENOMEM;
	if (IS_ERR_VALUE(addr))
		return (int)addr;
	u->mm = current->mm;
	u->addr = addr;
	u->unmapped = addr + PAGE_SIZE;
	ret = vm_munmap(u->unmapped, PAGE_SIZE);
	if (ret)
		return ret;
	/* For pant_uaccess_exit(): the mm_struct outlives its address space. */
	mmgrab(u->mm);
	u->held = u->mm;
	return 0;
}

/*
 * Attaches the test mm for a uaccess case. With the wrong tables in
 * TTBR0_EL1 a user access would fault again each time the fault handler
 * returned, and the case would hang instead of failing. So TTBR0_EL1
 * must be what the kind of PAN makes it (the reserved tables under TTBR0
 * PAN, else the mm's) before any access, and the case runs with page
 * faults disabled, on a populated page, until pant_user_put(): a fault
 * then fails the access with -EFAULT at once, also where an interrupt
 * left the wrong tables behind.
 */
static void pant_user_attach(struct kunit *test, struct pant_user *u)
{
	enum pant_kind kind = pant_get_kind();
	struct pant_want w = {};
	u64 ttbr0;

	KUNIT_ASSERT_EQ(test, pant_user_get(test, u), 0);
	pant_want_tables(&w, kind, u->mm, false);
	ttbr0 = pant_ttbr0_baddr();
	KUNIT_ASSERT_EQ_MSG(test, ttbr0, w.ttbr0_baddr,
			    "attaching a user mm (%s, CONFIG_ARM64_SW_TTBR0_PAN=%d): TTBR0_EL1.BADDR=%#llx, want %s, %#llx",
			    pant_kind_name(kind), IS_ENABLED(CONFIG_ARM64_SW_TTBR0_PAN), ttbr0,
			    w.tables, w.ttbr0_baddr);
	pagefault_disable();
}

/* Detaches the test mm from the case's thread; @u keeps its reference. */
static void pant_user_unuse(struct pant_user *u)
{
	pagefault_enable();
	vm_munmap(u->addr, PAGE_SIZE);
	kthread_unuse_mm(u->mm);
}

/* Then drops the reference: no mm left, user access closed. */
static void pant_user_drop(struct kunit *test, struct pant_user *u)
{
	mmput(u->mm);
	u->mm = NULL;
	KUNIT_EXPECT_PTR_EQ_MSG(test, current->mm, NULL, "the case's thread still has an mm");
	pant_expect_closed(test, NULL, "dropping the test mm");
}

/* At the end of a case, in its thread. */
static void pant_user_put(struct kunit *test, struct pant_user *u)
{
	pant_user_unuse(u);
	pant_user_drop(test, u);
}

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

struct pant_uaccess_ctx {
	struct pant_user user;
	struct perf_event *fault_event;	/* until released, by the case or .exit */
	struct pant_faults_seen seen;
};

static void pant_fault_event_stop(struct pant_uaccess_ctx *ctx)
{
	if (!ctx->fault_event)
		return;
	perf_event_release_kernel(ctx->fault_event);
	ctx->fault_event = NULL;
}

/*
 * Every case runs without any PAN too (neither the CPU's nor SW TTBR0
 * PAN): the routines then run with no window around them, and must still
 * keep the uaccess contract, on the tables cpu_do_switch_mm() installed.
 */
static int pant_uaccess_init(struct kunit *test)
{
	struct pant_uaccess_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	return 0;
}

/*
 * Whether the test mm's address space is gone: the case dropped it with
 * pant_user_put(), or an assertion ended the case's thread, whose exit
 * dropped it. That thread's end is signalled to KUnit a little before its
 * mm is dropped, so wait for it a while.
 */
static int pant_mm_users_left(struct mm_struct *mm)
{
	int ms;

	for (ms = 0; ms < 1000 && atomic_read(&mm->mm_users); ms++)
		usleep_range(1000, 2000);
	return atomic_read(&mm->mm_users);
}

/*
 * Releases the page fault event a case left, checks through a reference of
 * its own that the test mm is gone (also after a case an assertion ended),
 * and that user access is closed in the thread .exit runs in.
 */
static void pant_uaccess_exit(struct kunit *test)
{
	struct pant_uaccess_ctx *ctx = test->priv;
	struct mm_struct *held = ctx ? ctx->user.held : NULL;

	/* .exit also runs after .init failed. */
	if (!ctx)
		return;
	pant_fault_event_stop(ctx);
	if (held) {
		KUNIT_EXPECT_EQ_MSG(test, pant_mm_users_left(held), 0,
				    "the test mm is still in use after the case");
		mmdrop(held);
		ctx->user.held = NULL;
	}
	pant_exit_closed(test);
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

/*
 * A software page fault event (PERF_COUNT_SW_PAGE_FAULTS, sample period
 * 1) on the case's thread, whose overflow handler gets the registers
 * do_page_fault() got, and runs in it. It also ends an access that would
 * fault for ever: past PANT_FAULT_RETRIES faults it disables page faults,
 * and the next fault goes to the routine's fixup.
 */
static void pant_fault_event_start(struct kunit *test, struct pant_uaccess_ctx *ctx)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
	};
	struct perf_event *event;

	memset(&ctx->seen, 0, sizeof(ctx->seen));
	event = perf_event_create_kernel_counter(&attr, -1, current, pant_fault_overflow,
						 &ctx->seen);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(event),
			       "perf_event_create_kernel_counter(page faults): %pe", event);
	ctx->fault_event = event;
}
#else
static void pant_fault_event_start(struct kunit *test, struct pant_uaccess_ctx *ctx)
{
	kunit_skip(test,
		   "CONFIG_PERF_EVENTS=n: no page fault event to see an access's faults, or to end one that would fault for ever");
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
 * uaccess_enable_privileged() opens user access and
 * uaccess_disable_privileged() closes it again, on a test-owned mm
 * (kunit_vm_mmap()). Before any user access, an assertion that TTBR0_EL1
 * holds what the kind of PAN makes it, so that a kernel installing the
 * wrong tables fails the case instead of faulting for ever.
 */
static void uaccess_privileged_toggles_pan(struct kunit *test)
{
	struct pant_uaccess_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;

	pant_user_attach(test, u);

	pant_expect_closed(test, u->mm, "attaching a user mm");
	/* Preemptible, as a real window is: the state must survive an IRQ. */
	uaccess_enable_privileged();
	pant_expect_open(test, u->mm, "uaccess_enable_privileged()");
	uaccess_disable_privileged();
	pant_expect_closed(test, u->mm, "uaccess_disable_privileged()");

	pant_user_put(test, u);
}

/*
 * put_user(), get_user(), copy_to_user(), copy_from_user(), clear_user(),
 * arch_futex_atomic_op_inuser() and futex_atomic_cmpxchg_inatomic() on a
 * user page work, and leave user access closed.
 */
static void uaccess_user_page_pan_restored(struct kunit *test)
{
	struct pant_uaccess_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
	u8 out[64], in[64];
	u32 __user *uptr;
	u32 val, oval;
	int ret, i;

	pant_user_attach(test, u);
	uptr = (u32 __user *)u->addr;
	for (i = 0; i < sizeof(out); i++)
		out[i] = 0xa5 ^ i;

	KUNIT_EXPECT_EQ(test, put_user(0x12345678U, uptr), 0);
	pant_expect_closed(test, u->mm, "put_user()");
	val = 0;
	KUNIT_EXPECT_EQ(test, get_user(val, uptr), 0);
	KUNIT_EXPECT_EQ(test, val, 0x12345678U);
	pant_expect_closed(test, u->mm, "get_user()");

	KUNIT_EXPECT_EQ(test, copy_to_user(uptr + 1, out, sizeof(out)), 0UL);
	pant_expect_closed(test, u->mm, "copy_to_user()");
	memset(in, 0, sizeof(in));
	KUNIT_EXPECT_EQ(test, copy_from_user(in, uptr + 1, sizeof(in)), 0UL);
	KUNIT_EXPECT_EQ(test, memcmp(in, out, sizeof(in)), 0);
	pant_expect_closed(test, u->mm, "copy_from_user()");

	KUNIT_EXPECT_EQ(test, clear_user(uptr + 1, sizeof(out)), 0UL);
	pant_expect_closed(test, u->mm, "clear_user()");
	memset(in, 0xff, sizeof(in));
	KUNIT_EXPECT_EQ(test, copy_from_user(in, uptr + 1, sizeof(in)), 0UL);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(in, 0, sizeof(in)), NULL);

	/* As futex_atomic_op_inuser() calls it: with page faults disabled. */
	oval = 0;
	pagefault_disable();
	ret = arch_futex_atomic_op_inuser(FUTEX_OP_ADD, 5, &oval, uptr);
	pagefault_enable();
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, oval, 0x12345678U);
	pant_expect_closed(test, u->mm, "arch_futex_atomic_op_inuser()");
	KUNIT_EXPECT_EQ(test, get_user(val, uptr), 0);
	KUNIT_EXPECT_EQ(test, val, 0x1234567dU);

	oval = 0;
	pagefault_disable();
	ret = futex_atomic_cmpxchg_inatomic(&oval, uptr, 0x1234567dU, 0xcafeU);
	pagefault_enable();
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, oval, 0x1234567dU);
	pant_expect_closed(test, u->mm, "futex_atomic_cmpxchg_inatomic()");
	KUNIT_EXPECT_EQ(test, get_user(val, uptr), 0);
	KUNIT_EXPECT_EQ(test, val, 0xcafeU);

	pant_user_put(test, u);
}

/*
 * The same on an unmapped user address return -EFAULT and leave user
 * access closed.
 */
static void uaccess_unmapped_efault_pan_restored(struct kunit *test)
{
	struct pant_uaccess_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
	u8 buf[16] = { 0 };
	u32 __user *uptr;
	u32 val, oval;
	int ret;

	pant_user_attach(test, u);
	uptr = (u32 __user *)u->unmapped;

	KUNIT_EXPECT_EQ(test, put_user(1U, uptr), -EFAULT);
	pant_expect_closed(test, u->mm, "put_user() to an unmapped address");
	KUNIT_EXPECT_EQ(test, get_user(val, uptr), -EFAULT);
	pant_expect_closed(test, u->mm, "get_user() from an unmapped address");
	KUNIT_EXPECT_EQ(test, copy_to_user(uptr, buf, sizeof(buf)), sizeof(buf));
	pant_expect_closed(test, u->mm, "copy_to_user() to an unmapped address");
	KUNIT_EXPECT_EQ(test, copy_from_user(buf, uptr, sizeof(buf)), sizeof(buf));
	pant_expect_closed(test, u->mm, "copy_from_user() from an unmapped address");
	KUNIT_EXPECT_EQ(test, clear_user(uptr, sizeof(buf)), sizeof(buf));
	pant_expect_closed(test, u->mm, "clear_user() of an unmapped address");

	pagefault_disable();
	ret = arch_futex_atomic_op_inuser(FUTEX_OP_SET, 1, &oval, uptr);
	pagefault_enable();
	KUNIT_EXPECT_EQ(test, ret, -EFAULT);
	pant_expect_closed(test, u->mm, "arch_futex_atomic_op_inuser() on an unmapped address");

	pagefault_disable();
	ret = futex_atomic_cmpxchg_inatomic(&oval, uptr, 0, 1);
	pagefault_enable();
	KUNIT_EXPECT_EQ(test, ret, -EFAULT);
	pant_expect_closed(test, u->mm, "futex_atomic_cmpxchg_inatomic() on an unmapped address");

	pant_user_put(test, u);
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
	struct pant_uaccess_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
	u8 buf[16] = { 0 };
	unsigned long ro;
	u32 val;

	KUNIT_ASSERT_PTR_EQ_MSG(test, current->mm, NULL, "the case's thread has an mm");
	KUNIT_EXPECT_EQ(test, get_user(val, (u32 __user *)NULL), -EFAULT);
	pant_expect_closed(test, NULL, "get_user() without an mm");

	pant_user_attach(test, u);
	pagefault_enable();
	KUNIT_EXPECT_EQ(test, get_user(val, (u32 __user *)u->unmapped), -EFAULT);
	pant_expect_closed(test, u->mm, "get_user() from an unmapped address, page faults on");

	/* Mapped after that read: it may well take the unmapped page's place. */
	ro = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ, MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(ro), "vm_mmap() of a read-only page: %ld",
			       (long)ro);
	KUNIT_EXPECT_EQ(test, put_user(1U, (u32 __user *)ro), -EFAULT);
	pant_expect_closed(test, u->mm, "put_user() to a read-only page");
	KUNIT_EXPECT_EQ(test, copy_to_user((void __user *)ro, buf, sizeof(buf)), sizeof(buf));
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
	KUNIT_EXPECT_EQ(test, val, 0U);
	if (ctx->fault_event) {
		pant_expect_fault_handled(test, &ctx->seen,
					  "get_user() from an untouched read-only page");
		pant_fault_event_stop(ctx);
	}
	pant_expect_closed(test, u->mm, "get_user() from an untouched read-only page");
	vm_munmap(ro, PAGE_SIZE);
out:
	pagefault_disable();
	pant_user_put(test, u);
}

/* The vmf->flags a special mapping's fault handler saw, which refuses the page. */
struct pant_fault_flags {
	struct vm_special_mapping spec;
	unsigned int flags;
	int calls;
};

static vm_fault_t pant_record_fault_flags(const struct vm_special_mapping *sm,
					  struct vm_area_struct *vma, struct vm_fault *vmf)
{
	struct pant_fault_flags *seen = container_of(sm, struct pant_fault_flags, spec);

	seen->flags = vmf->flags;
	seen->calls++;
	return VM_FAULT_SIGBUS;
}

/*
 * get_user() from @u's unmapped address, with page faults enabled, once a
 * special mapping with @vm_flags is there, whose fault handler records
 * each call and vmf->flags and refuses the page: whatever do_page_fault()
 * decides, get_user() ends in its fixup (-EFAULT) with user access closed,
 * and no fault can repeat for ever on a page the handler mapped but the
 * read cannot use. The record is the case's resource: the mapping, and
 * its pointer to it, go with the mm, also when an assertion ends the
 * case's thread.
 */
static struct pant_fault_flags *
pant_read_refused_mapping(struct kunit *test, struct pant_user *u, vm_flags_t vm_flags,
			  const char *what)
{
	struct pant_fault_flags *seen;
	struct vm_area_struct *vma;
	u32 val = 0;
	int ret;

	seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, seen);
	seen->spec.name = "[fault_flags]";
	seen->spec.fault = pant_record_fault_flags;

	mmap_write_lock(u->mm);
	vma = _install_special_mapping(u->mm, u->unmapped, PAGE_SIZE, vm_flags, &seen->spec);
	mmap_write_unlock(u->mm);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(vma), "_install_special_mapping() at %#lx: %pe",
			       u->unmapped, vma);

	pagefault_enable();
	ret = get_user(val, (u32 __user *)u->unmapped);
	pagefault_disable();
	KUNIT_EXPECT_EQ_MSG(test, ret, -EFAULT,
			    "get_user() from %#lx, %s whose fault handler refuses the page",
			    u->unmapped, what);
	pant_expect_closed(test, u->mm, what);
	return seen;
}

/*
 * What do_page_fault() tells the fault handler of a VMA about a fault
 * that get_user() takes at EL1: not a fault of user mode (FAULT_FLAG_USER,
 * "the fault originated in userspace", include/linux/mm_types.h), nor a
 * write.
 */
static void do_page_fault_uaccess_not_a_user_fault(struct kunit *test)
{
	struct pant_uaccess_ctx *ctx = test->priv;
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

/*
 * "Exec implies read" unless the kernel uses EPAN: without FEAT_PAN3 an
 * execute-only user page could not be kept from a privileged access by
 * PAN, so the kernel never makes one, and do_page_fault() treats a read of
 * a VM_EXEC VMA as allowed; with EPAN (ARM64_HAS_EPAN, decided from the
 * sanitised ID_AA64MMFR1_EL1.PAN) it refuses the read before the VMA's
 * fault handler.
 */
static void do_page_fault_exec_implies_read_without_epan(struct kunit *test)
{
	struct pant_uaccess_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
	bool epan = pant_want_epan();
	bool reached;

	pant_user_attach(test, u);
	reached = pant_read_refused_mapping(test, u, VM_EXEC | VM_MAYEXEC | VM_MAYREAD,
					    "an execute-only mapping")->calls > 0;
	KUNIT_EXPECT_EQ_MSG(test, reached, !epan,
			    "get_user() from %#lx, VM_EXEC without VM_READ: the VMA's fault handler was %s, with EPAN %s (sanitised ID_AA64MMFR1_EL1.PAN=%u, CONFIG_ARM64_EPAN=%d)",
			    u->unmapped, reached ? "called" : "never called",
			    epan ? "in use" : "not in use",
			    pant_mmfr1_pan(read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1)),
			    IS_ENABLED(CONFIG_ARM64_EPAN));
	pant_user_put(test, u);
}

/*
 * The protection vm_get_page_prot() gives a PROT_EXEC mapping: with EPAN,
 * execute-only (stage 1 AP[2:1] = 0b10 with UXN = 0: executable at EL0,
 * no access from it, DDI 0487 J.a, D8.4), so that get_user() (LDTR,
 * checked as an access from EL0: C6.2, LDTR) takes a permission fault;
 * without EPAN, readable, and get_user() reads the zero page. The page is
 * populated, and read with page faults disabled, as pant_user_attach()
 * leaves them: a fault goes straight to the fixup, so the result is the
 * PTE's alone, and no protection the fault path disagrees with can make
 * the read fault for ever.
 */
static void vm_get_page_prot_exec_only_with_epan(struct kunit *test)
{
	struct pant_uaccess_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
	bool epan = pant_want_epan();
	unsigned long xo;
	u32 val = 1;
	int ret;

	pant_user_attach(test, u);
	xo = vm_mmap(NULL, 0, PAGE_SIZE, PROT_EXEC, MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(xo), "vm_mmap() of an execute-only page: %ld",
			       (long)xo);
	ret = get_user(val, (u32 __user *)xo);
	KUNIT_EXPECT_EQ_MSG(test, ret, epan ? -EFAULT : 0,
			    "get_user() from %#lx, a populated PROT_EXEC page, with EPAN %s (sanitised ID_AA64MMFR1_EL1.PAN=%u, CONFIG_ARM64_EPAN=%d)",
			    xo, epan ? "in use" : "not in use",
			    pant_mmfr1_pan(read_sanitised_ftr_reg(SYS_ID_AA64MMFR1_EL1)),
			    IS_ENABLED(CONFIG_ARM64_EPAN));
	if (!epan)
		KUNIT_EXPECT_EQ_MSG(test, val, 0U, "get_user() from %#lx, a zero page", xo);
	pant_expect_closed(test, u->mm, "get_user() from an execute-only page");
	vm_munmap(xo, PAGE_SIZE);
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
	struct pant_uaccess_ctx *ctx = test->priv;
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
	KUNIT_EXPECT_EQ(test, val, 0U);
	KUNIT_EXPECT_FALSE_MSG(test, h.done_while_held,
			       "get_user() from %#lx, a fault at EL1, ended while another thread held the mmap_lock for writing: it was handled under the VMA's lock alone",
			       page);
	if (ttbr0) {
		pant_expect_fault_handled(test, &ctx->seen, "get_user() waiting for the mmap_lock");
		pant_fault_event_stop(ctx);
	}
	pant_expect_closed(test, u->mm, "get_user() waiting for the mmap_lock");
	vm_munmap(page, PAGE_SIZE);
	pant_user_put(test, u);
}

/*
 * Where a partial access starts: this many bytes before the end of the
 * mapped page, the unmapped page right after it. Less than a word, a
 * word, a pair of words, and neither; each less than PANT_PARTIAL_LEN.
 */
static const unsigned int pant_partial_heads[] = { 1, 3, 8, 15, 16, 17, 40 };
#define PANT_PARTIAL_LEN	64
/* Shorter than 16 bytes: arm64's copy then starts with one doubleword. */
#define PANT_PARTIAL_SHORT	15

/*
 * What a copy of @len bytes from @start, @head of them mapped, that
 * returned @left reports copied: at least one byte, and no more than are
 * mapped. False when it reports more, and its bytes cannot be compared.
 */
static bool pant_expect_partial(struct kunit *test, const char *what, const void __user *start,
				size_t len, unsigned int head, unsigned long left)
{
	unsigned long done = len - left;

	KUNIT_EXPECT_GT_MSG(test, done, 0UL,
			    "%s(%#lx, %zu) with %u bytes mapped: returned %lu, no progress",
			    what, (unsigned long)start, len, head, left);
	KUNIT_EXPECT_LE_MSG(test, done, (unsigned long)head,
			    "%s(%#lx, %zu) with %u bytes mapped: returned %lu",
			    what, (unsigned long)start, len, head, left);
	return done <= head;
}

/*
 * copy_to_user() across the end of the mapping, from each of
 * pant_partial_heads[] bytes before it. The uaccess contract
 * (include/linux/uaccess.h, above raw_copy_from_user()): a copy that
 * returns N has copied the first size - N bytes, and returns size
 * (copies nothing) only when nothing could be copied. So it copies at
 * least one byte and no more than are mapped, and those bytes are the
 * source's. (That the rest is left unmodified is not checked: arm64's
 * copy stores a pair of words with two STTRs, and when the second
 * faults, the first has stored bytes it does not report.)
 */
static void copy_to_user_partial_reports_rest(struct kunit *test)
{
	struct pant_uaccess_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
	u8 src[PANT_PARTIAL_LEN], back[PANT_PARTIAL_LEN];
	unsigned int i, j;

	pant_user_attach(test, u);
	for (i = 0; i < ARRAY_SIZE(pant_partial_heads); i++) {
		unsigned int head = pant_partial_heads[i];
		u8 __user *start = (u8 __user *)(u->unmapped - head);
		unsigned long left, done;

		for (j = 0; j < sizeof(src); j++)
			src[j] = 0x80 | (j + head);
		KUNIT_ASSERT_EQ(test, clear_user(start, head), 0UL);
		left = copy_to_user(start, src, sizeof(src));
		pant_expect_closed(test, u->mm, "copy_to_user() across the end of the mapping");
		done = sizeof(src) - left;
		if (!pant_expect_partial(test, "copy_to_user", start, sizeof(src), head, left))
			continue;
		memset(back, 0, sizeof(back));
		KUNIT_ASSERT_EQ(test, copy_from_user(back, start, head), 0UL);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(back, src, done), 0,
				    "copy_to_user(%#lx, %zu) with %u bytes mapped: returned %lu, but the first %lu bytes are not the source's",
				    (unsigned long)start, sizeof(src), head, left, done);
	}
	pant_user_put(test, u);
}

/*
 * copy_from_user() across the end of the mapping, of PANT_PARTIAL_LEN and
 * of PANT_PARTIAL_SHORT bytes: as copy_to_user(), at least one byte and
 * no more than are mapped, those the user's; and copy_from_user() zeroes
 * the rest of the destination (include/linux/uaccess.h,
 * _copy_from_user()).
 */
static void copy_from_user_partial_reports_rest(struct kunit *test)
{
	struct pant_uaccess_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
	u8 pattern[PANT_PARTIAL_LEN], dst[PANT_PARTIAL_LEN];
	unsigned int i, j;

	pant_user_attach(test, u);
	for (i = 0; i < 2 * ARRAY_SIZE(pant_partial_heads); i++) {
		unsigned int head = pant_partial_heads[i / 2];
		size_t len = i % 2 ? PANT_PARTIAL_SHORT : PANT_PARTIAL_LEN;
		u8 __user *start = (u8 __user *)(u->unmapped - head);
		unsigned long left, done;

		if (head >= len)
			continue;
		for (j = 0; j < sizeof(pattern); j++)
			pattern[j] = 0x40 | (j + head);
		KUNIT_ASSERT_EQ(test, copy_to_user(start, pattern, head), 0UL);
		memset(dst, 0xa5, sizeof(dst));
		left = copy_from_user(dst, start, len);
		pant_expect_closed(test, u->mm, "copy_from_user() across the end of the mapping");
		done = len - left;
		if (!pant_expect_partial(test, "copy_from_user", start, len, head, left))
			continue;
		KUNIT_EXPECT_EQ_MSG(test, memcmp(dst, pattern, done), 0,
				    "copy_from_user(%#lx, %zu) with %u bytes mapped: returned %lu, but the first %lu bytes are not the user's",
				    (unsigned long)start, len, head, left, done);
		KUNIT_EXPECT_PTR_EQ_MSG(test, memchr_inv(dst + done, 0, left), NULL,
					"copy_from_user(%#lx, %zu) with %u bytes mapped: returned %lu, the rest not zeroed",
					(unsigned long)start, len, head, left);
	}
	pant_user_put(test, u);
}

/*
 * clear_user() across the end of the mapping returns the bytes it could
 * not clear: what it reports cleared is mapped, and zero.
 */
static void clear_user_partial_reports_rest(struct kunit *test)
{
	struct pant_uaccess_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
	u8 ones[PANT_PARTIAL_LEN], back[PANT_PARTIAL_LEN];
	unsigned int i;

	pant_user_attach(test, u);
	memset(ones, 0xff, sizeof(ones));
	for (i = 0; i < ARRAY_SIZE(pant_partial_heads); i++) {
		unsigned int head = pant_partial_heads[i];
		u8 __user *start = (u8 __user *)(u->unmapped - head);
		unsigned long left, done;

		KUNIT_ASSERT_EQ(test, copy_to_user(start, ones, head), 0UL);
		left = clear_user(start, PANT_PARTIAL_LEN);
		pant_expect_closed(test, u->mm, "clear_user() across the end of the mapping");
		done = PANT_PARTIAL_LEN - left;
		KUNIT_EXPECT_LE_MSG(test, done, (unsigned long)head,
				    "clear_user(%#lx, %u) with %u bytes mapped: returned %lu",
				    (unsigned long)start, PANT_PARTIAL_LEN, head, left);
		if (done > head)
			continue;
		memset(back, 0xa5, sizeof(back));
		KUNIT_ASSERT_EQ(test, copy_from_user(back, start, head), 0UL);
		KUNIT_EXPECT_PTR_EQ_MSG(test, memchr_inv(back, 0, done), NULL,
					"clear_user(%#lx, %u) with %u bytes mapped: returned %lu, but the first %lu bytes are not zero",
					(unsigned long)start, PANT_PARTIAL_LEN, head, left, done);
	}
	pant_user_put(test, u);
}

/*
 * strncpy_from_user() and strnlen_user() on strings at the end of the
 * mapping (lib/strncpy_from_user.c, lib/strnlen_user.c): a string whose
 * NUL is mapped is copied and measured; one that runs into the unmapped
 * page is -EFAULT and 0; a count that ends before the unmapped page
 * stops there. Each leaves user access closed (under TTBR0 PAN,
 * user_access_begin() opens the window these close).
 */
static void strncpy_from_user_end_of_mapping(struct kunit *test)
{
	struct pant_uaccess_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
	char str[PANT_PARTIAL_LEN], dst[PANT_PARTIAL_LEN + 1];
	unsigned int i;
	long ret, len;

	pant_user_attach(test, u);
	for (i = 0; i < ARRAY_SIZE(pant_partial_heads); i++) {
		unsigned int head = pant_partial_heads[i];
		char __user *start = (char __user *)(u->unmapped - head);

		/* head - 1 letters and a NUL in the page's last byte */
		memset(str, 'p', head - 1);
		str[head - 1] = '\0';
		KUNIT_ASSERT_EQ(test, copy_to_user(start, str, head), 0UL);
		memset(dst, 'x', sizeof(dst));
		ret = strncpy_from_user(dst, start, PANT_PARTIAL_LEN);
		pant_expect_closed(test, u->mm, "strncpy_from_user()");
		KUNIT_EXPECT_EQ_MSG(test, ret, (long)head - 1,
				    "strncpy_from_user(%#lx, %u), NUL at byte %u",
				    (unsigned long)start, PANT_PARTIAL_LEN, head - 1);
		if (ret == head - 1)
			KUNIT_EXPECT_STREQ_MSG(test, dst, str,
					       "strncpy_from_user(%#lx, %u), NUL at byte %u",
					       (unsigned long)start, PANT_PARTIAL_LEN, head - 1);
		len = strnlen_user(start, PANT_PARTIAL_LEN);
		KUNIT_EXPECT_EQ_MSG(test, len, (long)head,
				    "strnlen_user(%#lx, %u), NUL at byte %u", (unsigned long)start,
				    PANT_PARTIAL_LEN, head - 1);
		pant_expect_closed(test, u->mm, "strnlen_user()");

		/* No NUL before the unmapped page. */
		memset(str, 'p', head);
		KUNIT_ASSERT_EQ(test, copy_to_user(start, str, head), 0UL);
		ret = strncpy_from_user(dst, start, PANT_PARTIAL_LEN);
		pant_expect_closed(test, u->mm, "strncpy_from_user() into the unmapped page");
		KUNIT_EXPECT_EQ_MSG(test, ret, (long)-EFAULT,
				    "strncpy_from_user(%#lx, %u), no NUL in the %u mapped bytes",
				    (unsigned long)start, PANT_PARTIAL_LEN, head);
		len = strnlen_user(start, PANT_PARTIAL_LEN);
		KUNIT_EXPECT_EQ_MSG(test, len, 0L,
				    "strnlen_user(%#lx, %u), no NUL in the %u mapped bytes",
				    (unsigned long)start, PANT_PARTIAL_LEN, head);
		pant_expect_closed(test, u->mm, "strnlen_user() into the unmapped page");

		/* A count that the mapped bytes hold: no fault, no NUL. */
		ret = strncpy_from_user(dst, start, head);
		pant_expect_closed(test, u->mm, "strncpy_from_user() of the mapped bytes");
		KUNIT_EXPECT_EQ_MSG(test, ret, (long)head,
				    "strncpy_from_user(%#lx, %u), no NUL in the %u mapped bytes",
				    (unsigned long)start, head, head);
		len = strnlen_user(start, head);
		KUNIT_EXPECT_GT_MSG(test, len, (long)head,
				    "strnlen_user(%#lx, %u), no NUL in the %u mapped bytes",
				    (unsigned long)start, head, head);
	}
	pant_user_put(test, u);
}

/* The futex operations, as futex_atomic_op_inuser() passes them. */
static const struct {
	const char *name;
	int op;
} pant_futex_ops[] = {
	{ "FUTEX_OP_SET", FUTEX_OP_SET },
	{ "FUTEX_OP_ADD", FUTEX_OP_ADD },
	{ "FUTEX_OP_OR", FUTEX_OP_OR },
	{ "FUTEX_OP_ANDN", FUTEX_OP_ANDN },
	{ "FUTEX_OP_XOR", FUTEX_OP_XOR },
};

/*
 * Every futex operation and futex_atomic_cmpxchg_inatomic(), called as
 * the futex core calls them (page faults disabled), on a page they can
 * read but not write: -EFAULT, the word unchanged, user access closed
 * again. @what names the page.
 */
static void pant_futex_expect_efault(struct kunit *test, struct pant_user *u,
				     unsigned long page, const char *what)
{
	u32 __user *uptr = (u32 __user *)page;
	char after[64];
	u32 oval, val;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(pant_futex_ops); i++) {
		pagefault_disable();
		ret = arch_futex_atomic_op_inuser(pant_futex_ops[i].op, 1, &oval, uptr);
		pagefault_enable();
		KUNIT_EXPECT_EQ_MSG(test, ret, -EFAULT,
				    "arch_futex_atomic_op_inuser(%s, 1) on %s at %#lx",
				    pant_futex_ops[i].name, what, page);
		snprintf(after, sizeof(after), "%s on %s", pant_futex_ops[i].name, what);
		pant_expect_closed(test, u->mm, after);
	}
	pagefault_disable();
	/* The word is 0: the compare succeeds, and the store faults. */
	ret = futex_atomic_cmpxchg_inatomic(&oval, uptr, 0, 1);
	pagefault_enable();
	KUNIT_EXPECT_EQ_MSG(test, ret, -EFAULT,
			    "futex_atomic_cmpxchg_inatomic(0, 1) on %s at %#lx", what, page);
	snprintf(after, sizeof(after), "futex_atomic_cmpxchg_inatomic() on %s", what);
	pant_expect_closed(test, u->mm, after);

	val = 1;
	pagefault_disable();
	ret = get_user(val, uptr);
	pagefault_enable();
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "get_user() of the futex word of %s at %#lx",
			    what, page);
	KUNIT_EXPECT_EQ_MSG(test, val, 0U, "the futex word of %s at %#lx", what, page);
}

/*
 * The futex helpers' privileged window (PSTATE.PAN cleared, or TTBR0
 * opened, around LDXR/STLXR) on pages whose store faults: a read-only
 * VMA, and a writable private VMA whose page is still the zero page
 * (the store is a copy-on-write fault). Both map the zero page
 * read-only, and page faults are disabled, so the store faults the same
 * way on both; what differs is whether the VMA would let the futex core
 * fault the page in writable and try again. The load succeeds and the
 * store faults, so this reaches the fixup of the store, which the
 * unmapped page (whose load faults) does not.
 */
static void arch_futex_atomic_op_inuser_unwritable_efault(struct kunit *test)
{
	struct pant_uaccess_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
	unsigned long ro, cow;
	int ret;

	pant_user_attach(test, u);
	ro = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ, MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(ro), "vm_mmap() of a read-only page: %ld",
			       (long)ro);
	pant_futex_expect_efault(test, u, ro, "a read-only page");
	vm_munmap(ro, PAGE_SIZE);

	cow = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(cow), "vm_mmap() of a private page: %ld",
			       (long)cow);
	/* A read fault, as a user's load takes it: the zero page, read-only. */
	mmap_read_lock(u->mm);
	ret = fixup_user_fault(u->mm, cow, 0, NULL);
	mmap_read_unlock(u->mm);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "fixup_user_fault(read) of a private page");
	pant_futex_expect_efault(test, u, cow, "a private page mapping the zero page");
	vm_munmap(cow, PAGE_SIZE);

	pant_user_put(test, u);
}

/*
 * Skips a case about SW TTBR0 PAN's windows where there are none: with
 * the CPU's PAN, which the kernel uses instead (@why says what that
 * changes), or without any PAN.
 */
static void pant_require_ttbr0_pan(struct kunit *test, const char *why)
{
	if (pant_get_kind() == PANT_HW)
		kunit_skip(test, "PAN by the CPU (ID_AA64MMFR1_EL1.PAN=%u): %s",
			   pant_mmfr1_pan(read_sysreg(id_aa64mmfr1_el1)), why);
	if (pant_get_kind() == PANT_NONE)
		kunit_skip(test, "%s, CONFIG_ARM64_SW_TTBR0_PAN=n: no TTBR0 window",
			   PANT_NO_PAN_REASON);
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
	struct pant_uaccess_ctx *ctx = test->priv;
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
		KUNIT_ASSERT_EQ(test, ret, 0);
	}
	memset(out, 0x5a, sizeof(out));

	page = pages;
	pant_faults_watch(seen, page);
	val = 1;
	ret = get_user(val, (u32 __user *)page);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "get_user() from %#lx", page);
	KUNIT_EXPECT_EQ(test, val, 0U);
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
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(in, 0, len), NULL);
	pant_expect_fault_handled(test, seen, "copy_from_user()");
	pant_expect_closed(test, u->mm, "copy_from_user() from an untouched page");

	page += 2 * PAGE_SIZE;
	pant_faults_watch(seen, page);
	left = clear_user((void __user *)page, len);
	KUNIT_EXPECT_EQ_MSG(test, left, 0UL, "clear_user() of %#lx", page);
	pant_expect_fault_handled(test, seen, "clear_user()");
	pant_expect_closed(test, u->mm, "clear_user() of an untouched page");

	pant_fault_event_stop(ctx);
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

/* What a uaccess window shows, and the ASID of the thread's mm then. */
struct pant_window {
	u64 ttbr0_baddr;
	u64 asid;
	u64 mm_asid;
};

/*
 * The tables a uaccess window opened now shows, read with IRQs off: the
 * entry and exit of an IRQ in the window would take what the window holds
 * for closed when its ASID is the reserved one, and a task that ran in
 * between could leave other tables behind. With @mm (the thread's), its
 * ASID, read with them.
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
	struct pant_uaccess_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
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
		complete(&o->ran);
	}
	vm_munmap(o->user.addr, PAGE_SIZE);
	kthread_unuse_mm(o->user.mm);
	mmput(o->user.mm);
	mmdrop(o->user.held);
	kthread_complete_and_exit(&o->finished, 0);
}

/*
 * switch_mm() updates the saved TTBR0 value of the task it switches to
 * (its @tsk argument), which its next uaccess window installs. The
 * scheduler calls it while the task it switches from is still current:
 * so the case's thread, with its mm attached, lets another thread with an
 * mm of its own run on its CPU, PANT_SWITCH_ROUNDS times, and each time a
 * window it opens once it is back must show its own mm's pgd and ASID,
 * never the other's. Read with IRQs off; nothing is accessed through the
 * window.
 */
static void switch_mm_saved_ttbr0_of_next_task(struct kunit *test)
{
	struct pant_uaccess_ctx *ctx = test->priv;
	struct pant_user *u = &ctx->user;
	struct pant_window w[PANT_SWITCH_ROUNDS];
	struct pant_other_mm o = { .test = test };
	struct task_struct *other;
	u64 want_baddr;
	int i;

	pant_require_ttbr0_pan(test, "a uaccess window leaves TTBR0_EL1 as it is");

	pant_user_attach(test, u);
	init_completion(&o.attached);
	init_completion(&o.go);
	init_completion(&o.ran);
	init_completion(&o.finished);
	migrate_disable();
	other = kthread_create(pant_run_with_other_mm, &o, "pan_ttbr0_other_mm");
	if (IS_ERR(other)) {
		migrate_enable();
		KUNIT_FAIL(test, "kthread_create(): %pe", other);
		pant_user_put(test, u);
		return;
	}
	kthread_bind(other, smp_processor_id());
	wake_up_process(other);
	wait_for_completion(&o.attached);
	for (i = 0; !o.ret && i < PANT_SWITCH_ROUNDS; i++) {
		complete(&o.go);
		wait_for_completion(&o.ran);
		pant_read_window(&w[i], u->mm);
	}
	wait_for_completion(&o.finished);
	migrate_enable();
	KUNIT_ASSERT_EQ_MSG(test, o.ret, 0, "the other thread's mm: %d", o.ret);

	want_baddr = virt_to_phys(u->mm->pgd);
	for (i = 0; i < PANT_SWITCH_ROUNDS; i++)
		KUNIT_EXPECT_TRUE_MSG(test, w[i].ttbr0_baddr == want_baddr &&
				      w[i].asid == w[i].mm_asid,
				      "a window opened after another thread with an mm ran on this CPU (round %d): TTBR0_EL1.BADDR=%#llx ASID=%#llx; want the case's mm's, %#llx %#llx (the other's pgd: %#llx)",
				      i, w[i].ttbr0_baddr, w[i].asid, want_baddr, w[i].mm_asid,
				      o.baddr);
	pant_user_put(test, u);
}

static struct kunit_case arm64_pan_uaccess_cases[] = {
	KUNIT_CASE(uaccess_privileged_toggles_pan),
	KUNIT_CASE(uaccess_user_page_pan_restored),
	KUNIT_CASE(uaccess_unmapped_efault_pan_restored),
	KUNIT_CASE(uaccess_fault_handled_efault_pan_restored),
	KUNIT_CASE(do_page_fault_uaccess_not_a_user_fault),
	KUNIT_CASE(do_page_fault_uaccess_waits_for_mmap_lock),
	KUNIT_CASE(do_page_fault_exec_implies_read_without_epan),
	KUNIT_CASE(vm_get_page_prot_exec_only_with_epan),
	KUNIT_CASE(copy_to_user_partial_reports_rest),
	KUNIT_CASE(copy_from_user_partial_reports_rest),
	KUNIT_CASE(clear_user_partial_reports_rest),
	KUNIT_CASE(strncpy_from_user_end_of_mapping),
	KUNIT_CASE(arch_futex_atomic_op_inuser_unwritable_efault),
	KUNIT_CASE(uaccess_unprivileged_fault_pan_kept),
	KUNIT_CASE(uaccess_fault_in_ttbr0_window_retried),
	KUNIT_CASE(enter_lazy_tlb_window_reserved),
	KUNIT_CASE(switch_mm_saved_ttbr0_of_next_task),
	{}
};

static struct kunit_suite arm64_pan_uaccess_suite = {
	.name = "arm64_pan_uaccess",
	.init = pant_uaccess_init,
	.exit = pant_uaccess_exit,
	.test_cases = arm64_pan_uaccess_cases,
};

kunit_test_suite(arm64_pan_uaccess_suite);

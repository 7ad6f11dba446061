// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every futex operation from a real process on a read-only page, on a
 * copy-on-write page after fork() and on the shared zero page.
 *
 * The kernel does a futex operation's loads and stores itself, with
 * privileged atomics on arm64 (PAN opened around them), so a page the
 * process may not write is where a missing fault fixup becomes an oops.
 * The oracle is futex(2) applied to each page:
 *  - on a read-only page, an operation that must store to the word
 *    (FUTEX_WAKE_OP's target, FUTEX_LOCK_PI, FUTEX_LOCK_PI2,
 *    FUTEX_TRYLOCK_PI, FUTEX_UNLOCK_PI, FUTEX_CMP_REQUEUE_PI's target, a
 *    robust futex at exit) fails with EFAULT ("did not point to a valid
 *    user-space address") and the word is unchanged; an operation that
 *    only reads the word behaves exactly as on a writable page, except a
 *    shared (not FUTEX_PRIVATE_FLAG) one on an anonymous page: the futex
 *    core refuses a read-only anonymous page as a shared futex's key
 *    ("will never change and thus doesn't make sense for futex
 *    operations"), with EFAULT;
 *  - on a copy-on-write page, and on the zero page, the process may
 *    write: every operation behaves as on a page of its own, and the
 *    other process's copy is unchanged;
 *  - whatever happens, the process survives and the kernel log gains no
 *    oops (read from /dev/kmsg, else syslog(2); when neither can be read
 *    that part is skipped, and said so).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/futex.h>
#include <pthread.h>
#include <time.h>

#include "kselftest_harness.h"
#include "pan_util.h"

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2	13
#endif

#define V0	0x0f0f00f0u	/* the word's value before an operation */
#define OPARG	0x3c

enum init { INIT_V, INIT_ZERO, INIT_TID };

struct fop {
	const char *name;
	int cmd;		/* with or without FUTEX_PRIVATE_FLAG */
	enum init init;
	bool stores;		/* must store to the word */
	bool target_is_uaddr2;
	uint32_t val;
	uint32_t val3;
	bool timeout_zero_rel;	/* a relative timeout of 0 */
	bool timeout_zero_abs;	/* an absolute timeout in the past */
	unsigned long val2;	/* nr_requeue etc., when no timeout */
};

struct fres {
	long ret;
	int err;
	uint32_t after;
};

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

static uint32_t init_value(enum init init)
{
	switch (init) {
	case INIT_ZERO:
		return 0;
	case INIT_TID:
		return gettid_();
	default:
		return V0;
	}
}

/* Run @op with the word @t (and @w, a writable word of its own). */
static struct fres run_op(const struct fop *op, uint32_t *t, uint32_t *w)
{
	struct timespec ts = { 0, 0 };
	uint32_t *uaddr = op->target_is_uaddr2 ? w : t;
	uint32_t *uaddr2 = op->target_is_uaddr2 ? t : w;
	void *timeout = (void *)op->val2;
	struct fres r;

	if (op->timeout_zero_rel || op->timeout_zero_abs)
		timeout = &ts;
	errno = 0;
	r.ret = syscall(SYS_futex, uaddr, op->cmd, op->val, timeout, uaddr2,
			op->val3);
	r.err = r.ret < 0 ? errno : 0;
	r.after = pan_ldr32(t);
	return r;
}

#define P(c)	((c) | FUTEX_PRIVATE_FLAG)

static const struct fop fops[] = {
	{ "wait_differs", P(FUTEX_WAIT), INIT_V, false, false, V0 + 1, 0, true },
	{ "wait_timeout", P(FUTEX_WAIT), INIT_V, false, false, V0, 0, true },
	{ "wait_shared", FUTEX_WAIT, INIT_V, false, false, V0, 0, true },
	{ "wait_bitset", P(FUTEX_WAIT_BITSET), INIT_V, false, false, V0,
	  FUTEX_BITSET_MATCH_ANY, false, true },
	{ "wake", P(FUTEX_WAKE), INIT_V, false, false, 1 },
	{ "wake_shared", FUTEX_WAKE, INIT_V, false, false, 1 },
	{ "wake_bitset", P(FUTEX_WAKE_BITSET), INIT_V, false, false, 1,
	  FUTEX_BITSET_MATCH_ANY },
	{ "requeue", P(FUTEX_REQUEUE), INIT_V, false, false, 1, 0, false, false, 1 },
	{ "cmp_requeue", P(FUTEX_CMP_REQUEUE), INIT_V, false, false, 1, V0,
	  false, false, 1 },
	{ "cmp_requeue_differs", P(FUTEX_CMP_REQUEUE), INIT_V, false, false, 1,
	  V0 + 1, false, false, 1 },
	{ "wake_op_set", P(FUTEX_WAKE_OP), INIT_V, true, true, 1,
	  FUTEX_OP(FUTEX_OP_SET, OPARG, FUTEX_OP_CMP_EQ, 0), false, false, 1 },
	{ "wake_op_add", P(FUTEX_WAKE_OP), INIT_V, true, true, 1,
	  FUTEX_OP(FUTEX_OP_ADD, OPARG, FUTEX_OP_CMP_EQ, 0), false, false, 1 },
	{ "wake_op_or", P(FUTEX_WAKE_OP), INIT_V, true, true, 1,
	  FUTEX_OP(FUTEX_OP_OR, OPARG, FUTEX_OP_CMP_EQ, 0), false, false, 1 },
	{ "wake_op_andn", P(FUTEX_WAKE_OP), INIT_V, true, true, 1,
	  FUTEX_OP(FUTEX_OP_ANDN, OPARG, FUTEX_OP_CMP_EQ, 0), false, false, 1 },
	{ "wake_op_xor", P(FUTEX_WAKE_OP), INIT_V, true, true, 1,
	  FUTEX_OP(FUTEX_OP_XOR, OPARG, FUTEX_OP_CMP_EQ, 0), false, false, 1 },
	{ "wake_op_add_shift", P(FUTEX_WAKE_OP), INIT_V, true, true, 1,
	  FUTEX_OP((FUTEX_OP_ADD | FUTEX_OP_OPARG_SHIFT), 4, FUTEX_OP_CMP_EQ, 0),
	  false, false, 1 },
	{ "wake_op_shared", FUTEX_WAKE_OP, INIT_V, true, true, 1,
	  FUTEX_OP(FUTEX_OP_ADD, OPARG, FUTEX_OP_CMP_EQ, 0), false, false, 1 },
	{ "lock_pi", P(FUTEX_LOCK_PI), INIT_ZERO, true },
	{ "lock_pi_shared", FUTEX_LOCK_PI, INIT_ZERO, true },
	{ "lock_pi2", P(FUTEX_LOCK_PI2), INIT_ZERO, true },
	{ "trylock_pi", P(FUTEX_TRYLOCK_PI), INIT_ZERO, true },
	{ "unlock_pi", P(FUTEX_UNLOCK_PI), INIT_TID, true },
	{ "unlock_pi_shared", FUTEX_UNLOCK_PI, INIT_TID, true },
	{ "wait_requeue_pi", P(FUTEX_WAIT_REQUEUE_PI), INIT_V, false, true, V0, 0,
	  false, true },
	{ "cmp_requeue_pi_no_waiter", P(FUTEX_CMP_REQUEUE_PI), INIT_ZERO, false,
	  true, 1, V0, false, false, 1 },
};

#define NR_FOPS	ARRAY_SIZE(fops)

/* The documented outcome on a page of the caller's own, for a sanity check. */
static void check_reference(struct __test_metadata *_metadata,
			    const struct fop *op, struct fres r, uint32_t before)
{
	int cmd = op->cmd & FUTEX_CMD_MASK;
	uint32_t tid = gettid_();

	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
	case FUTEX_WAIT_REQUEUE_PI:
		EXPECT_EQ(-1, r.ret);
		EXPECT_EQ(op->val == before ? ETIMEDOUT : EAGAIN, r.err);
		break;
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
	case FUTEX_REQUEUE:
	case FUTEX_WAKE_OP:
	case FUTEX_CMP_REQUEUE_PI:
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
	case FUTEX_TRYLOCK_PI:
	case FUTEX_UNLOCK_PI:
		EXPECT_EQ(0, r.ret) TH_LOG("%s: %s", op->name, strerror(r.err));
		break;
	case FUTEX_CMP_REQUEUE:
		if (op->val3 == before) {
			EXPECT_EQ(0, r.ret);
		} else {
			EXPECT_EQ(-1, r.ret);
			EXPECT_EQ(EAGAIN, r.err);
		}
		break;
	}
	switch (cmd) {
	case FUTEX_WAKE_OP: {
		unsigned int fop = op->val3 >> 28, oparg = (op->val3 >> 12) & 0xfff;
		uint32_t want = before;

		if (fop & FUTEX_OP_OPARG_SHIFT)
			oparg = 1u << oparg;
		switch (fop & 7) {
		case FUTEX_OP_SET:
			want = oparg;
			break;
		case FUTEX_OP_ADD:
			want = before + oparg;
			break;
		case FUTEX_OP_OR:
			want = before | oparg;
			break;
		case FUTEX_OP_ANDN:
			want = before & ~oparg;
			break;
		case FUTEX_OP_XOR:
			want = before ^ oparg;
			break;
		}
		EXPECT_EQ(want, r.after) TH_LOG("%s: %#x -> %#x", op->name, before, r.after);
		break;
	}
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
	case FUTEX_TRYLOCK_PI:
		EXPECT_EQ(tid, r.after);
		break;
	case FUTEX_UNLOCK_PI:
		EXPECT_EQ(0, r.after);
		break;
	default:
		EXPECT_EQ(before, r.after);
	}
}

/* Leaves a PI futex the reference run locked unlocked, for teardown's sake. */
static void unlock_if_locked(uint32_t *t)
{
	if ((*t & FUTEX_TID_MASK) == (uint32_t)gettid_())
		syscall(SYS_futex, t, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
}

static void check_no_oops(struct __test_metadata *_metadata, struct klog_mark *m)
{
	char line[512];
	int r = klog_oopses(m, line, sizeof(line));

	if (r < 0)
		TH_LOG("kernel log not checked: %s", m->why[0] ? m->why : "unreadable");
	EXPECT_EQ(0, r > 0) TH_LOG("the kernel log says: %s", line);
}

FIXTURE(futex) {
	char *pages;		/* [0] the target page, [1] a writable page */
	uint32_t *t, *w;
	struct klog_mark mark;
};

FIXTURE_VARIANT(futex) {
	int op;
};

FIXTURE_VARIANT_ADD(futex, wait_differs) { .op = 0 };
FIXTURE_VARIANT_ADD(futex, wait_timeout) { .op = 1 };
FIXTURE_VARIANT_ADD(futex, wait_shared) { .op = 2 };
FIXTURE_VARIANT_ADD(futex, wait_bitset) { .op = 3 };
FIXTURE_VARIANT_ADD(futex, wake) { .op = 4 };
FIXTURE_VARIANT_ADD(futex, wake_shared) { .op = 5 };
FIXTURE_VARIANT_ADD(futex, wake_bitset) { .op = 6 };
FIXTURE_VARIANT_ADD(futex, requeue) { .op = 7 };
FIXTURE_VARIANT_ADD(futex, cmp_requeue) { .op = 8 };
FIXTURE_VARIANT_ADD(futex, cmp_requeue_differs) { .op = 9 };
FIXTURE_VARIANT_ADD(futex, wake_op_set) { .op = 10 };
FIXTURE_VARIANT_ADD(futex, wake_op_add) { .op = 11 };
FIXTURE_VARIANT_ADD(futex, wake_op_or) { .op = 12 };
FIXTURE_VARIANT_ADD(futex, wake_op_andn) { .op = 13 };
FIXTURE_VARIANT_ADD(futex, wake_op_xor) { .op = 14 };
FIXTURE_VARIANT_ADD(futex, wake_op_add_shift) { .op = 15 };
FIXTURE_VARIANT_ADD(futex, wake_op_shared) { .op = 16 };
FIXTURE_VARIANT_ADD(futex, lock_pi) { .op = 17 };
FIXTURE_VARIANT_ADD(futex, lock_pi_shared) { .op = 18 };
FIXTURE_VARIANT_ADD(futex, lock_pi2) { .op = 19 };
FIXTURE_VARIANT_ADD(futex, trylock_pi) { .op = 20 };
FIXTURE_VARIANT_ADD(futex, unlock_pi) { .op = 21 };
FIXTURE_VARIANT_ADD(futex, unlock_pi_shared) { .op = 22 };
FIXTURE_VARIANT_ADD(futex, wait_requeue_pi) { .op = 23 };
FIXTURE_VARIANT_ADD(futex, cmp_requeue_pi_no_waiter) { .op = 24 };

FIXTURE_SETUP(futex)
{
	long psz = page_size();

	ASSERT_EQ(25, NR_FOPS);
	self->pages = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->pages);
	self->t = (uint32_t *)(self->pages + 256);
	self->w = (uint32_t *)(self->pages + psz + 512);
	*self->w = V0;
	klog_mark(&self->mark);
}

FIXTURE_TEARDOWN(futex)
{
	munmap(self->pages, 2 * page_size());
	klog_release(&self->mark);
}

/* The operation on a page of one's own: what every other page is held to. */
static struct fres reference(struct __test_metadata *_metadata,
			     const struct fop *op, uint32_t *w)
{
	uint32_t *mine = mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t before = init_value(op->init);
	struct fres r;

	ASSERT_NE(MAP_FAILED, mine);
	mine[64] = before;
	r = run_op(op, &mine[64], w);
	check_reference(_metadata, op, r, before);
	unlock_if_locked(&mine[64]);
	munmap(mine, page_size());
	*w = V0;
	return r;
}

TEST_F(futex, read_only)
{
	const struct fop *op = &fops[variant->op];
	uint32_t before = init_value(op->init);
	struct fres ref = reference(_metadata, op, self->w);
	struct fres r;

	*self->t = before;
	ASSERT_EQ(0, mprotect(self->pages, page_size(), PROT_READ));
	r = run_op(op, self->t, self->w);
	if (op->stores || !(op->cmd & FUTEX_PRIVATE_FLAG)) {
		EXPECT_EQ(-1, r.ret);
		EXPECT_EQ(EFAULT, r.err) TH_LOG("%s: %ld (%s)", op->name, r.ret,
						strerror(r.err));
	} else {
		EXPECT_EQ(ref.ret, r.ret);
		EXPECT_EQ(ref.err, r.err) TH_LOG("%s: %s, on a writable page %s",
						 op->name, strerror(r.err),
						 strerror(ref.err));
	}
	EXPECT_EQ(before, r.after);
	check_no_oops(_metadata, &self->mark);
}

/* The child does the operation on the page it shares copy-on-write. */
TEST_F(futex, cow_child)
{
	const struct fop *op = &fops[variant->op];
	int status;
	pid_t pid;
	uint32_t before;

	*self->t = init_value(op->init);
	before = *self->t;
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* the child's reference: its own page with what it inherited */
		uint32_t *mine = mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct fres ref, r;

		if (mine == MAP_FAILED)
			_exit(20);
		mine[64] = before;
		ref = run_op(op, &mine[64], self->w);
		unlock_if_locked(&mine[64]);
		*self->w = V0;
		/* the shared page, untouched from EL0 since the fork */
		r = run_op(op, self->t, self->w);
		unlock_if_locked(self->t);
		if (r.ret != ref.ret)
			_exit(21);
		if (r.err != ref.err)
			_exit(22);
		if (r.after != ref.after)
			_exit(23);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("child killed by signal %d",
					      WTERMSIG(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("%s: child check %d failed",
						 op->name, WEXITSTATUS(status));
	/* the parent's copy is its own */
	EXPECT_EQ(before, *self->t);
	check_no_oops(_metadata, &self->mark);
}

/* The parent does it while its child holds the other copy. */
TEST_F(futex, cow_parent)
{
	const struct fop *op = &fops[variant->op];
	struct fres ref = reference(_metadata, op, self->w);
	int go[2], status;
	uint32_t before;
	struct fres r;
	pid_t pid;

	*self->t = init_value(op->init);
	before = *self->t;
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(30);
		_exit(pan_ldr32(self->t) == before ? 0 : 31);
	}
	close(go[0]);
	r = run_op(op, self->t, self->w);
	EXPECT_EQ(ref.ret, r.ret);
	EXPECT_EQ(ref.err, r.err) TH_LOG("%s: %s, on a page of its own %s",
					 op->name, strerror(r.err), strerror(ref.err));
	EXPECT_EQ(ref.after, r.after);
	unlock_if_locked(self->t);
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("the child's copy changed");
	check_no_oops(_metadata, &self->mark);
}

/* The shared zero page: read once, never written. */
TEST_F(futex, zero_page)
{
	const struct fop *op = &fops[variant->op];
	struct fop zop = *op;
	struct fres ref, r;
	uint32_t *mine;

	/* what was inherited is 0, whatever the operation would like */
	zop.init = INIT_ZERO;
	if (zop.val == V0)
		zop.val = 0;
	if (zop.val3 == V0)
		zop.val3 = 0;
	ASSERT_EQ(0, pan_ldr32(self->t));	/* maps the zero page */
	mine = mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mine);
	mine[64] = 0;
	ref = run_op(&zop, &mine[64], self->w);
	unlock_if_locked(&mine[64]);
	*self->w = V0;
	munmap(mine, page_size());
	r = run_op(&zop, self->t, self->w);
	EXPECT_EQ(ref.ret, r.ret);
	EXPECT_EQ(ref.err, r.err) TH_LOG("%s: %s, on a written page %s",
					 op->name, strerror(r.err), strerror(ref.err));
	EXPECT_EQ(ref.after, r.after);
	unlock_if_locked(self->t);
	check_no_oops(_metadata, &self->mark);
}

/*
 * FUTEX_CMP_REQUEUE_PI with a waiter: the requeue must take the PI
 * futex (uaddr2) for the waiter, a store; on a read-only page EFAULT.
 */
struct requeue_waiter {
	uint32_t *uaddr, *uaddr2;
	int timeout;		/* seconds the waiter waits */
	long ret;
	int err;
	int started;		/* __atomic: the waiter sets it */
};

static void *waiter_fn(void *arg)
{
	struct requeue_waiter *wt = arg;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += wt->timeout;
	__atomic_store_n(&wt->started, 1, __ATOMIC_SEQ_CST);
	errno = 0;
	wt->ret = syscall(SYS_futex, wt->uaddr, FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0,
			  &ts, wt->uaddr2, 0);
	wt->err = errno;
	return NULL;
}

static void requeue_pi_with_waiter(struct __test_metadata *_metadata,
				   uint32_t *cond, uint32_t *pi, bool writable)
{
	/*
	 * Woken at once when the requeue works; else nothing can wake it
	 * (FUTEX_WAKE refuses a requeue-PI waiter, -EINVAL) and it times out.
	 */
	struct requeue_waiter wt = { cond, pi, writable ? 10 : 3 };
	pthread_t th;
	long r = 0;

	*cond = 0;
	ASSERT_EQ(0, pthread_create(&th, NULL, waiter_fn, &wt));
	while (!__atomic_load_n(&wt.started, __ATOMIC_SEQ_CST))
		usleep(1000);
	/* until the waiter is queued: 0 means there was no one to requeue */
	for (int i = 0; i < 2000; i++) {
		errno = 0;
		r = syscall(SYS_futex, cond, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1,
			    (void *)1, pi, 0);
		if (r != 0)
			break;
		usleep(5000);
	}
	if (writable) {
		/* the waiter got the lock at once: woken, one task */
		EXPECT_EQ(1, r) TH_LOG("%s", strerror(errno));
	} else {
		EXPECT_EQ(-1, r);
		EXPECT_EQ(EFAULT, errno);
	}
	pthread_join(th, NULL);
	if (writable) {
		EXPECT_EQ(0, wt.ret) TH_LOG("waiter: %s", strerror(wt.err));
	} else {
		/* never requeued: it waited out its time on uaddr */
		EXPECT_EQ(-1, wt.ret);
		EXPECT_EQ(ETIMEDOUT, wt.err) TH_LOG("waiter: %s", strerror(wt.err));
	}
}

TEST(cmp_requeue_pi_waiter_read_only)
{
	long psz = page_size();
	char *p = mmap(NULL, 2 * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t *pi = (uint32_t *)p, *cond = (uint32_t *)(p + psz);
	struct klog_mark m;

	ASSERT_NE(MAP_FAILED, p);
	klog_mark(&m);
	/* on a writable page first: the waiter is requeued and takes the lock */
	*pi = 0;
	requeue_pi_with_waiter(_metadata, cond, pi, true);
	/* the lock is the waiter's (gone now): start afresh, read-only */
	*pi = 0;
	ASSERT_EQ(0, mprotect(p, psz, PROT_READ));
	requeue_pi_with_waiter(_metadata, cond, pi, false);
	EXPECT_EQ(0, *pi);
	check_no_oops(_metadata, &m);
	klog_release(&m);
}

/*
 * A robust futex on a read-only page, held by a child that exits: the
 * kernel's attempt to mark it FUTEX_OWNER_DIED must fail quietly. On a
 * copy-on-write page it succeeds in the child's copy only.
 */
struct robust_list_head_ {
	void *list_next;
	long futex_offset;
	void *list_op_pending;
};

static void robust_child(uint32_t *word, bool ro, long psz)
{
	/* a list of one entry: the entry is the word's address minus the offset */
	static struct robust_list_head_ head;
	static void *entry[2];

	*word = gettid_();
	if (ro && mprotect((void *)((uintptr_t)word & ~(psz - 1)), psz, PROT_READ))
		_exit(40);
	entry[0] = &head;	/* next: back to the head */
	head.list_next = entry;
	head.futex_offset = (char *)word - (char *)entry;
	head.list_op_pending = NULL;
	if (syscall(SYS_set_robust_list, &head, sizeof(head)))
		_exit(41);
	_exit(0);
}

TEST(robust_futex_exit)
{
	long psz = page_size();
	/* shared with the child: the parent sees what its exit did to the word */
	char *p = mmap(NULL, psz, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint32_t *word = (uint32_t *)(p + 128);
	struct klog_mark m;
	int status;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, p);
	klog_mark(&m);
	for (int ro = 0; ro < 2; ro++) {
		*word = 0;
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			robust_child(word, ro, psz);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status)) TH_LOG("killed by %d", WTERMSIG(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
		if (ro) {
			/* its own mapping read-only: the exit could not mark it */
			EXPECT_EQ((uint32_t)pid, *word) TH_LOG("word %#x", *word);
		} else {
			/* the owner died: its TID gone, FUTEX_OWNER_DIED set */
			EXPECT_EQ(FUTEX_OWNER_DIED, *word) TH_LOG("word %#x, child %d", *word, pid);
		}
	}
	check_no_oops(_metadata, &m);
	klog_release(&m);
}

/*
 * FUTEX_WAKE_OP at a kernel address: EFAULT, never a store there.
 */
TEST(wake_op_kernel_address)
{
	uint32_t w = 0;
	struct klog_mark m;
	static const uintptr_t addrs[] = {
		0xffff000000000000ul, 0xfff0000000000000ul,
		0xffff800000000000ul, 0xfffffffffffff000ul,
	};

	klog_mark(&m);
	for (size_t i = 0; i < ARRAY_SIZE(addrs); i++) {
		errno = 0;
		EXPECT_EQ(-1, syscall(SYS_futex, &w, FUTEX_WAKE_OP_PRIVATE, 1, 1,
				      (void *)addrs[i],
				      FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0)));
		EXPECT_EQ(EFAULT, errno);
		errno = 0;
		EXPECT_EQ(-1, syscall(SYS_futex, (void *)addrs[i],
				      FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0));
		EXPECT_EQ(EFAULT, errno);
	}
	check_no_oops(_metadata, &m);
	klog_release(&m);
}

/*
 * The futex2 system calls (futex_waitv(2) since 5.16; futex_wake(),
 * futex_wait(), futex_requeue() since 6.7) only read the word: on a
 * read-only and a copy-on-write page they behave as on a page
 * of one's own, the futex_waitv array itself on a read-only page too.
 */
#ifndef __NR_futex_waitv
#define __NR_futex_waitv	449
#endif
#ifndef __NR_futex_wake
#define __NR_futex_wake		454
#define __NR_futex_wait		455
#define __NR_futex_requeue	456
#endif
#ifndef FUTEX2_SIZE_U32
#define FUTEX2_SIZE_U32		0x02
#endif

struct waitv_ {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

#define F2	(FUTEX2_SIZE_U32 | FUTEX_PRIVATE_FLAG)

/* Results of the futex2 calls on @word (holding V0), the array in @arr. */
static void futex2_calls(uint32_t *word, struct waitv_ *arr, struct fres *out, bool arr_writable)
{
	struct timespec past = { 0, 0 };
	uint32_t other = V0;

	if (arr_writable) {
		arr[0] = (struct waitv_){ V0 + 1, (uintptr_t)word, F2, 0 };
		arr[1] = (struct waitv_){ V0, (uintptr_t)word, F2, 0 };
		arr[2] = (struct waitv_){ V0, (uintptr_t)word, F2, 0 };
		arr[3] = (struct waitv_){ V0, (uintptr_t)&other, F2, 0 };
	}
	errno = 0;
	out[0].ret = syscall(__NR_futex_waitv, &arr[0], 1, 0, &past, CLOCK_MONOTONIC);
	out[0].err = out[0].ret < 0 ? errno : 0;
	errno = 0;
	out[1].ret = syscall(__NR_futex_waitv, &arr[1], 1, 0, &past, CLOCK_MONOTONIC);
	out[1].err = out[1].ret < 0 ? errno : 0;
	errno = 0;
	out[2].ret = syscall(__NR_futex_wake, word, FUTEX_BITSET_MATCH_ANY, 1, F2);
	out[2].err = out[2].ret < 0 ? errno : 0;
	errno = 0;
	out[3].ret = syscall(__NR_futex_wait, word, V0 + 1, FUTEX_BITSET_MATCH_ANY, F2,
			     &past, CLOCK_MONOTONIC);
	out[3].err = out[3].ret < 0 ? errno : 0;
	errno = 0;
	out[4].ret = syscall(__NR_futex_requeue, &arr[2], 0, 1, 1);
	out[4].err = out[4].ret < 0 ? errno : 0;
	for (int i = 0; i < 5; i++)
		out[i].after = pan_ldr32(word);
}

static const char *const futex2_names[] = {
	"futex_waitv (differs)", "futex_waitv (timeout)", "futex_wake",
	"futex_wait (differs)", "futex_requeue",
};

TEST(futex2_read_only_and_cow)
{
	long psz = page_size();
	char *p = mmap(NULL, 3 * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct waitv_ *mine_arr, *ro_arr;
	uint32_t *mine, *ro;
	struct fres ref[5], r[5];
	struct klog_mark m;
	int status;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, p);
	errno = 0;
	if (syscall(__NR_futex_waitv, NULL, 0, 0, NULL, 0) < 0 && errno == ENOSYS)
		SKIP(return, "no futex_waitv() (before 5.16)");
	if (syscall(__NR_futex_wake, NULL, 0, 0, 0) < 0 && errno == ENOSYS)
		SKIP(return, "no futex_wake()/futex_wait()/futex_requeue() (before 6.7)");
	klog_mark(&m);
	mine = (uint32_t *)(p + 2 * psz);
	mine_arr = (struct waitv_ *)(p + 2 * psz + 256);
	*mine = V0;
	futex2_calls(mine, mine_arr, ref, true);
	EXPECT_EQ(EAGAIN, ref[0].err);
	EXPECT_EQ(ETIMEDOUT, ref[1].err);
	EXPECT_EQ(0, ref[2].ret);
	EXPECT_EQ(EAGAIN, ref[3].err);
	EXPECT_EQ(0, ref[4].ret) TH_LOG("futex_requeue: %s", strerror(ref[4].err));

	/* read-only: the word and the array */
	ro = (uint32_t *)p;
	ro_arr = (struct waitv_ *)(p + 256);
	*ro = V0;
	ro_arr[0] = (struct waitv_){ V0 + 1, (uintptr_t)ro, F2, 0 };
	ro_arr[1] = (struct waitv_){ V0, (uintptr_t)ro, F2, 0 };
	ro_arr[2] = (struct waitv_){ V0, (uintptr_t)ro, F2, 0 };
	ro_arr[3] = (struct waitv_){ V0, (uintptr_t)mine, F2, 0 };
	ASSERT_EQ(0, mprotect(p, psz, PROT_READ));
	futex2_calls(ro, ro_arr, r, false);
	for (int i = 0; i < 5; i++) {
		EXPECT_EQ(ref[i].ret, r[i].ret) TH_LOG("%s, read-only", futex2_names[i]);
		EXPECT_EQ(ref[i].err, r[i].err)
			TH_LOG("%s, read-only: %s", futex2_names[i], strerror(r[i].err));
		EXPECT_EQ(V0, r[i].after);
	}

	/* copy-on-write, in a child: the page at p + psz, written before */
	*(uint32_t *)(p + psz) = V0;
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		futex2_calls((uint32_t *)(p + psz), mine_arr, r, true);
		for (int i = 0; i < 5; i++)
			if (r[i].ret != ref[i].ret || r[i].err != ref[i].err)
				_exit(10 + i);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("copy-on-write: %s differs",
						 WEXITSTATUS(status) >= 10 ?
						 futex2_names[WEXITSTATUS(status) - 10] : "?");
	check_no_oops(_metadata, &m);
	klog_release(&m);
	munmap(p, 3 * psz);
}

TEST_HARNESS_MAIN

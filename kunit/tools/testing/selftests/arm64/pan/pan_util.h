/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the arm64 PAN user ABI tests: catching a fault taken
 * at EL0 together with its siginfo and the ESR the signal frame reports,
 * decoding that ESR, mapping buffers that end in a guard page, and
 * checking that the kernel log gained no oops while a test ran.
 *
 * ESR encodings are those of the Arm ARM (DDI 0487 M.a.a):
 *  - D24.2.45 ESR_EL1: EC is bits [31:26], IL bit [25], ISS bits [24:0];
 *  - D24.2.45, its "ISS encoding for an exception from a Data Abort":
 *    WnR is bit [6], CM bit [8], DFSC bits [5:0];
 *  - "ISS encoding for an exception from an Instruction Abort": IFSC [5:0];
 *  - EC 0b100100 (0x24) is a Data Abort from a lower Exception level,
 *    EC 0b100000 (0x20) an Instruction Abort from a lower Exception level;
 *  - DFSC 0b0001LL is a translation fault at level LL (0b101011 level -1),
 *    0b0010LL an Access flag fault, 0b0011LL a Permission fault at level LL
 *    (0b001100 level 0 only with FEAT_S1PIE/LPA2 tables).
 * The signal frame's esr_context record (ESR_MAGIC) is described in
 * arch/arm64/include/uapi/asm/sigcontext.h.
 */
#ifndef PAN_UTIL_H
#define PAN_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <ucontext.h>

#include <asm/sigcontext.h>

#include "kselftest.h"

#ifndef SA_EXPOSE_TAGBITS
#define SA_EXPOSE_TAGBITS	0x00000800
#endif
#ifndef SEGV_MAPERR
#define SEGV_MAPERR	1
#endif
#ifndef SEGV_ACCERR
#define SEGV_ACCERR	2
#endif

#define ESR_EC_SHIFT		26
#define ESR_EC(esr)		(((esr) >> ESR_EC_SHIFT) & 0x3f)
#define ESR_EC_IABT_LOW		0x20
#define ESR_EC_DABT_LOW		0x24
#define ESR_WNR			0x40UL	/* bit [6] */
#define ESR_CM			0x100UL	/* bit [8] */
#define ESR_FSC(esr)		((esr) & 0x3f)

static inline bool fsc_is_translation(unsigned long fsc)
{
	return (fsc & 0x3c) == 0x04 || fsc == 0x2b;
}

static inline bool fsc_is_permission(unsigned long fsc)
{
	return (fsc & 0x3c) == 0x0c;
}

static inline bool fsc_is_access_flag(unsigned long fsc)
{
	return (fsc & 0x3c) == 0x08;
}

static inline const char *fsc_class(unsigned long fsc)
{
	if (fsc_is_translation(fsc))
		return "translation";
	if (fsc_is_permission(fsc))
		return "permission";
	if (fsc_is_access_flag(fsc))
		return "access flag";
	return "other";
}

/* What the last fault taken under probe_*() looked like. */
struct pan_fault {
	int signo;		/* 0: no fault */
	int code;		/* si_code */
	uintptr_t addr;		/* si_addr */
	uint64_t fault_address;	/* uc_mcontext.fault_address */
	bool has_esr;		/* an esr_context record was in the frame */
	uint64_t esr;
	unsigned int esr_records; /* how many ESR_MAGIC records */
};

static sigjmp_buf pan_jmp;
/*
 * Set around the one access a probe expects to fault. Read by the signal
 * handler, so volatile sig_atomic_t: the one type C (C11 7.14.1.1) lets a
 * handler read that the interrupted code writes; not a kernel variable.
 */
static volatile sig_atomic_t pan_armed;
static struct pan_fault pan_last;

static void pan_parse_frame(ucontext_t *uc, struct pan_fault *f)
{
	struct _aarch64_ctx *head =
		(struct _aarch64_ctx *)uc->uc_mcontext.__reserved;
	size_t off = 0, size = sizeof(uc->uc_mcontext.__reserved);

	f->fault_address = uc->uc_mcontext.fault_address;
	while (off + sizeof(*head) <= size) {
		head = (struct _aarch64_ctx *)
			((char *)uc->uc_mcontext.__reserved + off);
		if (!head->magic || !head->size || head->size > size - off)
			break;
		if (head->magic == ESR_MAGIC) {
			f->has_esr = true;
			f->esr = ((struct esr_context *)head)->esr;
			f->esr_records++;
		}
		off += head->size;
	}
}

static void pan_handler(int sig, siginfo_t *si, void *ctx)
{
	if (!pan_armed) {
		/* Not ours: die of it as if no handler had been installed. */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	memset(&pan_last, 0, sizeof(pan_last));
	pan_last.signo = sig;
	pan_last.code = si->si_code;
	pan_last.addr = (uintptr_t)si->si_addr;
	pan_parse_frame(ctx, &pan_last);
	pan_armed = 0;
	siglongjmp(pan_jmp, 1);
}

/* Catch SIGSEGV and SIGBUS, with or without SA_EXPOSE_TAGBITS. */
static inline int pan_catch_faults(bool expose_tagbits)
{
	struct sigaction sa = { 0 };

	sa.sa_sigaction = pan_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER |
		      (expose_tagbits ? SA_EXPOSE_TAGBITS : 0);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGBUS, &sa, NULL))
		return -1;
	return 0;
}

/*
 * Loads and stores with a known instruction each (LDR/STR of a W
 * register), so that the ESR of a fault is that of one access.
 */
static inline uint32_t pan_ldr32(const void *p)
{
	uint32_t v;

	asm volatile("ldr %w0, [%1]" : "=r"(v) : "r"(p) : "memory");
	return v;
}

static inline void pan_str32(void *p, uint32_t v)
{
	asm volatile("str %w0, [%1]" : : "r"(v), "r"(p) : "memory");
}

static inline uint8_t pan_ldrb(const void *p)
{
	uint8_t v;

	asm volatile("ldrb %w0, [%1]" : "=r"(v) : "r"(p) : "memory");
	return v;
}

static inline uint64_t pan_ldr64(const void *p)
{
	uint64_t v;

	asm volatile("ldr %0, [%1]" : "=r"(v) : "r"(p) : "memory");
	return v;
}

static inline void pan_str64(void *p, uint64_t v)
{
	asm volatile("str %0, [%1]" : : "r"(v), "r"(p) : "memory");
}

/*
 * Read (probe_read) or write (probe_write) 32 bits at @p from EL0.
 * Return true when the access completed; false when it faulted, with
 * the fault in pan_last. The handler must be installed with
 * pan_catch_faults().
 */
static inline bool probe_read(const void *p, uint32_t *val)
{
	memset(&pan_last, 0, sizeof(pan_last));
	if (sigsetjmp(pan_jmp, 1))
		return false;
	pan_armed = 1;
	*val = pan_ldr32(p);
	pan_armed = 0;
	return true;
}

static inline bool probe_write(void *p, uint32_t val)
{
	memset(&pan_last, 0, sizeof(pan_last));
	if (sigsetjmp(pan_jmp, 1))
		return false;
	pan_armed = 1;
	pan_str32(p, val);
	pan_armed = 0;
	return true;
}

/* Call the function at @p (an instruction fetch from EL0). */
static inline bool probe_exec(void *p)
{
	memset(&pan_last, 0, sizeof(pan_last));
	if (sigsetjmp(pan_jmp, 1))
		return false;
	pan_armed = 1;
	((void (*)(void))p)();
	pan_armed = 0;
	return true;
}

static inline long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/*
 * @pages read-write pages followed by one PROT_NONE guard page. Returns
 * the start of the mapping; the guard page starts at start + pages * psz.
 */
static inline char *map_with_guard(int pages)
{
	long psz = page_size();
	char *p = mmap(NULL, (pages + 1) * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + pages * psz, psz, PROT_NONE)) {
		munmap(p, (pages + 1) * psz);
		return NULL;
	}
	return p;
}

/*
 * An address nothing is mapped at: a page mapped then unmapped. The
 * page after it is unmapped too, so that accesses that run past it
 * find nothing either.
 */
static inline char *unmapped_page(void)
{
	long psz = page_size();
	char *p = mmap(NULL, 2 * psz, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p, 2 * psz);
	return p;
}

/* An unnamed temporary file in @dir: O_TMPFILE, else mkstemp(), unlink(). */
static inline int tmpfile_in(const char *dir)
{
	char path[256];
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR, 0600);
	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), "%s/pan-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* An unnamed temporary file: in $TMPDIR, else the first of dirs that works. */
static inline int tmpfile_fd(void)
{
	static const char *const dirs[] = { "/tmp", "/dev/shm", "." };
	const char *tmpdir = getenv("TMPDIR");
	int fd = tmpdir ? tmpfile_in(tmpdir) : -1;

	for (size_t i = 0; fd < 0 && i < ARRAY_SIZE(dirs); i++)
		fd = tmpfile_in(dirs[i]);
	return fd;
}

/*
 * The kernel log: lines that say the kernel oopsed, panicked or warned.
 * klog_mark() remembers how far the log went; klog_oopses() returns the
 * first such line logged since (in @line), 0 if none, -1 when the log
 * cannot be read (neither /dev/kmsg nor syslog(2) available).
 */
struct klog_mark {
	int kmsg_fd;		/* /dev/kmsg, positioned at the end */
	size_t syslog_len;	/* else: bytes of the syslog(2) buffer seen */
	char *syslog_seen;	/* and their copy, to find where new ones start */
	bool usable;
	char why[128];
};

static const char *const klog_bad[] = {
	"Internal error:", "Unable to handle kernel", "Oops", "BUG:",
	"WARNING:", "Kernel panic", "kernel BUG", "Call trace:",
	"general protection", "refcount_t:", "list_del corruption",
};

static inline bool klog_line_bad(const char *l)
{
	for (size_t i = 0; i < ARRAY_SIZE(klog_bad); i++)
		if (strstr(l, klog_bad[i]))
			return true;
	return false;
}

static inline void klog_mark(struct klog_mark *m)
{
	int len;

	memset(m, 0, sizeof(*m));
	m->kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (m->kmsg_fd >= 0) {
		lseek(m->kmsg_fd, 0, SEEK_END);
		m->usable = true;
		return;
	}
	/* SYSLOG_ACTION_SIZE_BUFFER, SYSLOG_ACTION_READ_ALL */
	len = klogctl(10, NULL, 0);
	if (len <= 0) {
		snprintf(m->why, sizeof(m->why),
			 "no /dev/kmsg and syslog(2) refused: %s",
			 strerror(errno));
		return;
	}
	m->syslog_seen = malloc(len + 1);
	if (!m->syslog_seen)
		return;
	len = klogctl(3, m->syslog_seen, len);
	if (len < 0) {
		snprintf(m->why, sizeof(m->why),
			 "no /dev/kmsg and syslog(2) read failed: %s",
			 strerror(errno));
		free(m->syslog_seen);
		m->syslog_seen = NULL;
		return;
	}
	m->syslog_seen[len] = '\0';
	m->syslog_len = len;
	m->usable = true;
}

static inline int klog_oopses(struct klog_mark *m, char *line, size_t n)
{
	char buf[8192], *all, *start, *l, *save;
	int found = 0, size, len;
	size_t keep;

	if (!m->usable)
		return -1;
	if (m->kmsg_fd >= 0) {
		ssize_t r;

		while ((r = read(m->kmsg_fd, buf, sizeof(buf) - 1)) != 0) {
			if (r < 0) {
				if (errno == EPIPE)	/* overwritten: go on */
					continue;
				break;		/* EAGAIN: the end */
			}
			buf[r] = '\0';
			if (!found && klog_line_bad(buf)) {
				snprintf(line, n, "%.*s", (int)n - 1, buf);
				found = 1;
			}
		}
		return found;
	}
	/* syslog(2): read the whole buffer, find where the new lines start */
	size = klogctl(10, NULL, 0);
	if (size <= 0)
		return -1;
	all = malloc(size + 1);
	if (!all)
		return -1;
	len = klogctl(3, all, size);
	if (len < 0) {
		free(all);
		return -1;
	}
	all[len] = '\0';
	/*
	 * The new lines are what follows the end of the old buffer:
	 * find its last 200 bytes in the new one (the buffer may
	 * have wrapped in between).
	 */
	start = all;
	keep = m->syslog_len < 200 ? m->syslog_len : 200;
	if (keep) {
		char *tail = m->syslog_seen + m->syslog_len - keep;
		char *hit = NULL, *p = all;

		while ((p = memmem(p, all + len - p, tail, keep))) {
			hit = p;
			p++;
		}
		start = hit ? hit + keep : all;
	}
	for (l = strtok_r(start, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (klog_line_bad(l)) {
			snprintf(line, n, "%s", l);
			found = 1;
			break;
		}
	}
	free(all);
	return found;
}

static inline void klog_release(struct klog_mark *m)
{
	if (m->kmsg_fd >= 0)
		close(m->kmsg_fd);
	free(m->syslog_seen);
	m->syslog_seen = NULL;
}

/*
 * Run @fn(@arg) in a child process and return its wait status: the
 * child's death by a signal, or an oops that kills it, cannot take the
 * test with it.
 */
static inline int run_in_child(void (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

#endif /* PAN_UTIL_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Faults taken at EL0: the signal, its si_code and si_addr (sigaction(2),
 * signal(7)), sigcontext.fault_address, and the ESR that the signal frame
 * reports in its esr_context record (arch/arm64/include/uapi/asm/sigcontext.h).
 *
 * Expected ESR values come from the Arm ARM (DDI 0487 M.a.a, D24.2.45
 * ESR_EL1 and its ISS encodings for Data and Instruction Aborts):
 *  - a load or store of a user address that faults is a Data Abort from a
 *    lower Exception level, EC 0x24, with WnR = 1 for a store, 0 for a load;
 *  - an instruction fetch that faults is an Instruction Abort from a lower
 *    Exception level, EC 0x20;
 *  - nothing mapped is a translation fault; a mapped page the access is
 *    not allowed to is a permission fault; an unaligned exclusive load is
 *    an alignment fault (DFSC 0b100001).
 * Kernel mappings do not exist as far as user space is concerned, so an
 * access to a kernel address reports what an access to nothing reports:
 * SEGV_MAPERR and a translation fault, the same ESR whether or not the
 * kernel maps something there.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "pan_util.h"

#define FSC_ALIGNMENT	0x21

enum region {
	UNMAPPED,	/* nothing mapped */
	PROT_NONE_FRESH,	/* PROT_NONE, never touched */
	PROT_NONE_WRITTEN,	/* written, then PROT_NONE */
	READ_ONLY_WRITTEN,	/* written, then PROT_READ */
	READ_ONLY_ZERO,	/* PROT_READ, read once: the zero page */
	NO_EXEC_WRITTEN,	/* PROT_READ|PROT_WRITE, written */
	BEYOND_EOF,	/* a file mapping past the end of the file */
	UNALIGNED_EXCL,	/* read-write memory, an unaligned exclusive load */
};

enum access { READ, WRITE, EXEC, LDXR };

enum fsc_kind { TRANSLATION, PERMISSION, TRANSLATION_OR_PERMISSION, ALIGNMENT };

FIXTURE(fault) {
	char *map;
	size_t len;
	char *addr;	/* where the access goes */
	int fd;
};

FIXTURE_VARIANT(fault) {
	enum region region;
	enum access access;
	int signo;
	int code;
	int ec;
	enum fsc_kind fsc;
};

FIXTURE_VARIANT_ADD(fault, read_unmapped) {
	UNMAPPED, READ, SIGSEGV, SEGV_MAPERR, ESR_EC_DABT_LOW, TRANSLATION };
FIXTURE_VARIANT_ADD(fault, write_unmapped) {
	UNMAPPED, WRITE, SIGSEGV, SEGV_MAPERR, ESR_EC_DABT_LOW, TRANSLATION };
FIXTURE_VARIANT_ADD(fault, exec_unmapped) {
	UNMAPPED, EXEC, SIGSEGV, SEGV_MAPERR, ESR_EC_IABT_LOW, TRANSLATION };
FIXTURE_VARIANT_ADD(fault, read_prot_none) {
	PROT_NONE_FRESH, READ, SIGSEGV, SEGV_ACCERR, ESR_EC_DABT_LOW,
	TRANSLATION_OR_PERMISSION };
FIXTURE_VARIANT_ADD(fault, write_prot_none) {
	PROT_NONE_FRESH, WRITE, SIGSEGV, SEGV_ACCERR, ESR_EC_DABT_LOW,
	TRANSLATION_OR_PERMISSION };
FIXTURE_VARIANT_ADD(fault, read_prot_none_written) {
	PROT_NONE_WRITTEN, READ, SIGSEGV, SEGV_ACCERR, ESR_EC_DABT_LOW,
	TRANSLATION_OR_PERMISSION };
FIXTURE_VARIANT_ADD(fault, write_prot_none_written) {
	PROT_NONE_WRITTEN, WRITE, SIGSEGV, SEGV_ACCERR, ESR_EC_DABT_LOW,
	TRANSLATION_OR_PERMISSION };
FIXTURE_VARIANT_ADD(fault, write_read_only) {
	READ_ONLY_WRITTEN, WRITE, SIGSEGV, SEGV_ACCERR, ESR_EC_DABT_LOW,
	PERMISSION };
FIXTURE_VARIANT_ADD(fault, write_zero_page) {
	READ_ONLY_ZERO, WRITE, SIGSEGV, SEGV_ACCERR, ESR_EC_DABT_LOW,
	PERMISSION };
FIXTURE_VARIANT_ADD(fault, exec_no_exec) {
	NO_EXEC_WRITTEN, EXEC, SIGSEGV, SEGV_ACCERR, ESR_EC_IABT_LOW,
	PERMISSION };
FIXTURE_VARIANT_ADD(fault, read_beyond_eof) {
	BEYOND_EOF, READ, SIGBUS, BUS_ADRERR, ESR_EC_DABT_LOW, TRANSLATION };
FIXTURE_VARIANT_ADD(fault, write_beyond_eof) {
	BEYOND_EOF, WRITE, SIGBUS, BUS_ADRERR, ESR_EC_DABT_LOW, TRANSLATION };
FIXTURE_VARIANT_ADD(fault, ldxr_unaligned) {
	UNALIGNED_EXCL, LDXR, SIGBUS, BUS_ADRALN, ESR_EC_DABT_LOW, ALIGNMENT };

FIXTURE_SETUP(fault)
{
	long psz = page_size();

	self->fd = -1;
	self->len = 2 * psz;
	self->map = NULL;
	switch (variant->region) {
	case UNMAPPED:
		self->addr = unmapped_page();
		ASSERT_NE(NULL, self->addr);
		return;
	case BEYOND_EOF:
		self->fd = tmpfile_fd();
		ASSERT_LE(0, self->fd) TH_LOG("no temporary file: %s", strerror(errno));
		ASSERT_EQ(0, ftruncate(self->fd, psz));
		self->map = mmap(NULL, self->len, PROT_READ | PROT_WRITE,
				 MAP_SHARED, self->fd, 0);
		ASSERT_NE(MAP_FAILED, self->map);
		self->addr = self->map + psz + 8;
		return;
	default:
		break;
	}
	self->map = mmap(NULL, self->len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	self->addr = self->map + 64;
	switch (variant->region) {
	case PROT_NONE_FRESH:
		ASSERT_EQ(0, mprotect(self->map, self->len, PROT_NONE));
		break;
	case PROT_NONE_WRITTEN:
		memset(self->map, 0x5a, self->len);
		ASSERT_EQ(0, mprotect(self->map, self->len, PROT_NONE));
		break;
	case READ_ONLY_WRITTEN:
		memset(self->map, 0x5a, self->len);
		ASSERT_EQ(0, mprotect(self->map, self->len, PROT_READ));
		break;
	case READ_ONLY_ZERO:
		ASSERT_EQ(0, mprotect(self->map, self->len, PROT_READ));
		pan_ldrb(self->addr);
		break;
	case NO_EXEC_WRITTEN:
		/* a RET: were it executable, the call would return */
		*(uint32_t *)self->addr = 0xd65f03c0u;
		__builtin___clear_cache(self->addr, self->addr + 4);
		break;
	case UNALIGNED_EXCL:
		memset(self->map, 0, self->len);
		self->addr = self->map + 66;
		break;
	default:
		break;
	}
}

FIXTURE_TEARDOWN(fault)
{
	if (self->map)
		munmap(self->map, self->len);
	if (self->fd >= 0)
		close(self->fd);
}

static bool probe_ldxr(const void *p)
{
	memset(&pan_last, 0, sizeof(pan_last));
	if (sigsetjmp(pan_jmp, 1))
		return false;
	pan_armed = 1;
	{
		uint32_t v;

		asm volatile("ldxr %w0, [%1]\n clrex" : "=r"(v) : "r"(p) : "memory");
	}
	pan_armed = 0;
	return true;
}

static bool do_access(enum access a, char *p)
{
	uint32_t v;

	switch (a) {
	case READ:
		return probe_read(p, &v);
	case WRITE:
		return probe_write(p, 0x12345678);
	case EXEC:
		return probe_exec(p);
	case LDXR:
		return probe_ldxr(p);
	}
	return true;
}

static void check_fault(struct __test_metadata *_metadata,
			const struct _fixture_variant_fault *variant, uintptr_t addr)
{
	unsigned long fsc = ESR_FSC(pan_last.esr);

	EXPECT_EQ(variant->signo, pan_last.signo);
	EXPECT_EQ(variant->code, pan_last.code);
	EXPECT_EQ(addr, pan_last.addr);
	EXPECT_EQ(addr, pan_last.fault_address);
	ASSERT_TRUE(pan_last.has_esr) TH_LOG("no esr_context in the signal frame");
	EXPECT_EQ(1, pan_last.esr_records);
	EXPECT_EQ(variant->ec, ESR_EC(pan_last.esr))
		TH_LOG("ESR 0x%llx", (unsigned long long)pan_last.esr);
	if (variant->ec == ESR_EC_DABT_LOW) {
		EXPECT_EQ(variant->access == WRITE ? ESR_WNR : 0,
			  pan_last.esr & ESR_WNR)
			TH_LOG("ESR 0x%llx", (unsigned long long)pan_last.esr);
		EXPECT_EQ(0, pan_last.esr & ESR_CM);
	}
	switch (variant->fsc) {
	case TRANSLATION:
		EXPECT_TRUE(fsc_is_translation(fsc));
		break;
	case PERMISSION:
		EXPECT_TRUE(fsc_is_permission(fsc));
		break;
	case TRANSLATION_OR_PERMISSION:
		EXPECT_TRUE(fsc_is_translation(fsc) || fsc_is_permission(fsc));
		break;
	case ALIGNMENT:
		EXPECT_EQ(FSC_ALIGNMENT, fsc);
		break;
	}
	TH_LOG("signal %d code %d addr %#lx ESR %#llx (EC %#llx, DFSC %#lx: %s)",
	       pan_last.signo, pan_last.code, (unsigned long)pan_last.addr,
	       (unsigned long long)pan_last.esr,
	       (unsigned long long)ESR_EC(pan_last.esr), fsc, fsc_class(fsc));
}

/*
 * An unaligned exclusive load must raise an Alignment fault (Arm ARM,
 * DDI 0487 M.a.a, B2.8.2 "Alignment of data accesses"), but QEMU's "max"
 * CPU completes it: then there is nothing for
 * the kernel to report.
 */
#define NO_ALIGNMENT_FAULT "the CPU completed an unaligned LDXR: no Alignment fault to report"

TEST_F(fault, signal_and_esr)
{
	ASSERT_EQ(0, pan_catch_faults(false));
	if (variant->access == LDXR && do_access(LDXR, self->addr))
		SKIP(return, NO_ALIGNMENT_FAULT);
	ASSERT_FALSE(do_access(variant->access, self->addr))
		TH_LOG("the access did not fault");
	check_fault(_metadata, variant, (uintptr_t)self->addr);

	/* the same once more: nothing about the first fault stuck */
	ASSERT_FALSE(do_access(variant->access, self->addr));
	check_fault(_metadata, variant, (uintptr_t)self->addr);
}

/* The same fault in a child just forked: a new mm, the same answer. */
TEST_F(fault, after_fork)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, pan_catch_faults(false));
	if (variant->access == LDXR && do_access(LDXR, self->addr))
		SKIP(return, NO_ALIGNMENT_FAULT);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (do_access(variant->access, self->addr))
			_exit(10);
		if (pan_last.signo != variant->signo || pan_last.code != variant->code)
			_exit(11);
		if (pan_last.addr != (uintptr_t)self->addr || !pan_last.has_esr)
			_exit(12);
		if (ESR_EC(pan_last.esr) != (uint64_t)variant->ec)
			_exit(13);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * Kernel addresses, read and written from EL0: SEGV_MAPERR at the
 * address and a translation fault, whether the kernel maps something
 * there (the linear map starts at the bottom of the TTBR1 range, for
 * either 48- or 52-bit kernel VAs) or not: EL0 must learn nothing from
 * the ESR about the kernel's mappings.
 */
static const uintptr_t kernel_addrs[] = {
	0xffff000000000000ul, 0xfff0000000000000ul, 0xffff800000000000ul,
	0xffffffffffff0000ul, 0xfffffffffffff000ul,
};

/*
 * A permission fault on a read-only page, taken before each probe of a
 * kernel address: the thread's saved fault address and ESR then hold
 * another fault's, and a kernel that reported the kernel address's fault
 * without saving its own would show this one's.
 */
static void other_fault(struct __test_metadata *_metadata, char *ro)
{
	ASSERT_FALSE(probe_write(ro, 1));
	ASSERT_EQ(SEGV_ACCERR, pan_last.code);
	ASSERT_EQ((uintptr_t)ro, pan_last.fault_address);
}

TEST(kernel_address)
{
	uint64_t esr[2][ARRAY_SIZE(kernel_addrs)];
	char *ro = mmap(NULL, page_size(), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_EQ(0, pan_catch_faults(false));
	for (int w = 0; w < 2; w++) {
		for (size_t i = 0; i < ARRAY_SIZE(kernel_addrs); i++) {
			void *p = (void *)kernel_addrs[i];
			bool ok;

			other_fault(_metadata, ro);
			ok = w ? probe_write(p, 0) : probe_read(p, &(uint32_t){ 0 });
			ASSERT_FALSE(ok) TH_LOG("%s %p did not fault", w ? "write" : "read", p);
			EXPECT_EQ(SIGSEGV, pan_last.signo);
			EXPECT_EQ(SEGV_MAPERR, pan_last.code) TH_LOG("%p", p);
			EXPECT_EQ(kernel_addrs[i], pan_last.addr);
			EXPECT_EQ(kernel_addrs[i], pan_last.fault_address)
				TH_LOG("%s %p: fault_address %#llx", w ? "write" : "read", p,
				       (unsigned long long)pan_last.fault_address);
			ASSERT_TRUE(pan_last.has_esr);
			esr[w][i] = pan_last.esr;
			EXPECT_EQ(ESR_EC_DABT_LOW, ESR_EC(esr[w][i]));
			EXPECT_EQ(w ? ESR_WNR : 0, esr[w][i] & ESR_WNR)
				TH_LOG("%p ESR %#llx", p, (unsigned long long)esr[w][i]);
			EXPECT_TRUE(fsc_is_translation(ESR_FSC(esr[w][i])))
				TH_LOG("%p ESR %#llx", p, (unsigned long long)esr[w][i]);
			/* the same answer at every kernel address */
			EXPECT_EQ(esr[w][0], esr[w][i])
				TH_LOG("%p ESR %#llx, %p ESR %#llx", (void *)kernel_addrs[0],
				       (unsigned long long)esr[w][0], p,
				       (unsigned long long)esr[w][i]);
		}
	}
}

/* Instruction fetches from kernel addresses: the same, as Instruction Aborts. */
TEST(kernel_address_exec)
{
	uint64_t first = 0;
	char *ro = mmap(NULL, page_size(), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_EQ(0, pan_catch_faults(false));
	for (size_t i = 0; i < ARRAY_SIZE(kernel_addrs); i++) {
		other_fault(_metadata, ro);
		ASSERT_FALSE(probe_exec((void *)kernel_addrs[i]));
		EXPECT_EQ(SIGSEGV, pan_last.signo);
		EXPECT_EQ(SEGV_MAPERR, pan_last.code);
		EXPECT_EQ(kernel_addrs[i], pan_last.addr);
		EXPECT_EQ(kernel_addrs[i], pan_last.fault_address)
			TH_LOG("exec %#lx: fault_address %#llx", (unsigned long)kernel_addrs[i],
			       (unsigned long long)pan_last.fault_address);
		ASSERT_TRUE(pan_last.has_esr);
		EXPECT_EQ(ESR_EC_IABT_LOW, ESR_EC(pan_last.esr));
		EXPECT_TRUE(fsc_is_translation(ESR_FSC(pan_last.esr)))
			TH_LOG("ESR %#llx", (unsigned long long)pan_last.esr);
		if (!i)
			first = pan_last.esr;
		EXPECT_EQ(first, pan_last.esr);
	}
}

/* A fault taken on the way back from a handler is reported afresh. */
TEST(fault_in_a_row)
{
	char *ro = mmap(NULL, page_size(), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *none = unmapped_page();
	uint32_t v;

	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_EQ(0, pan_catch_faults(false));
	for (int i = 0; i < 4; i++) {
		ASSERT_FALSE(probe_write(ro + 8, 1));
		EXPECT_EQ(SEGV_ACCERR, pan_last.code);
		EXPECT_EQ(ESR_WNR, pan_last.esr & ESR_WNR);
		ASSERT_FALSE(probe_read(none, &v));
		EXPECT_EQ(SEGV_MAPERR, pan_last.code);
		EXPECT_EQ(0, pan_last.esr & ESR_WNR);
		EXPECT_EQ((uintptr_t)none, pan_last.addr);
	}
	munmap(ro, page_size());
}

TEST_HARNESS_MAIN

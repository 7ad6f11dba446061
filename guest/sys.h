/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the inits of pan-kunit's own boots (lkdtm_init.c, coverage_init.c)
 * need of a libc, as raw arm64 system calls: they are built with the
 * cross compiler alone, which on Debian comes without arm64 libc headers.
 */
#ifndef PAN_KUNIT_GUEST_SYS_H
#define PAN_KUNIT_GUEST_SYS_H

#define __NR_getdents64	61
#define __NR_ioctl	29
#define __NR_mkdirat	34
#define __NR_mount	40
#define __NR_openat	56
#define __NR_close	57
#define __NR_read	63
#define __NR_write	64
#define __NR_syslog	116
#define __NR_reboot	142
#define AT_FDCWD	(-100)
#define O_RDONLY	0
#define O_WRONLY	1
#define O_DIRECTORY	040000	/* arm64's value, not x86's */
/* ioctl(fd, TCSBRK, 1) is tcdrain(): it returns once the output is sent. */
#define TCSBRK		0x5409

/* reboot(2) magic numbers and LINUX_REBOOT_CMD_POWER_OFF */
#define REBOOT_MAGIC1	0xfee1deadL
#define REBOOT_MAGIC2	672274793L
#define REBOOT_POWER_OFF 0x4321fedcL

/* A system call of up to four arguments; a fifth (mount's data) is 0. */
static inline long syscall4(long nr, long a, long b, long c, long d)
{
	register long x8 asm("x8") = nr;
	register long x0 asm("x0") = a;
	register long x1 asm("x1") = b;
	register long x2 asm("x2") = c;
	register long x3 asm("x3") = d;
	register long x4 asm("x4") = 0;

	asm volatile("svc #0"
		     : "+r" (x0)
		     : "r" (x8), "r" (x1), "r" (x2), "r" (x3), "r" (x4)
		     : "memory");
	return x0;
}

static inline unsigned long length(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	return n;
}

static inline void say(const char *s)
{
	syscall4(__NR_write, 1, (long)s, length(s), 0);
}

/*
 * One line into the kernel's log, in one write to /dev/kmsg (which the
 * initramfs holds): the log keeps it whole and in order with the
 * kernel's own lines, where writes to the console's tty can be cut by a
 * printk that a console thread prints meanwhile. Level 5 (notice), which
 * a console at the default loglevel prints. Falls back to the console.
 */
static inline void tell(const char *what, const char *arg)
{
	char line[256];
	unsigned long n = 3;
	long fd;

	line[0] = '<';
	line[1] = '5';
	line[2] = '>';
	for (; *what && n < sizeof(line) - 2; what++)
		line[n++] = *what;
	for (; arg && *arg && n < sizeof(line) - 2; arg++)
		line[n++] = *arg;
	line[n++] = '\n';
	fd = syscall4(__NR_openat, AT_FDCWD, (long)"/dev/kmsg", O_WRONLY, 0);
	if (fd < 0) {
		syscall4(__NR_write, 1, (long)(line + 3), n - 3, 0);
		return;
	}
	syscall4(__NR_write, fd, (long)line, n, 0);
	syscall4(__NR_close, fd, 0, 0, 0);
}

/*
 * The console's output goes out from a buffer after write() returned; an
 * oops and the panic after it print directly, and the reboot can come
 * before the buffer is sent.
 */
static inline void drain(void)
{
	syscall4(__NR_ioctl, 1, TCSBRK, 1, 0);
}

/* The value of KEY (say "pankunit_crash=") in the environment, or 0. */
static inline const char *getenv_value(char **envp, const char *key)
{
	int i;

	for (; *envp; envp++) {
		for (i = 0; key[i] && (*envp)[i] == key[i]; i++)
			;
		if (!key[i])
			return *envp + i;
	}
	return 0;
}

static inline void __attribute__((noreturn)) power_off(void)
{
	drain();
	syscall4(__NR_reboot, REBOOT_MAGIC1, REBOOT_MAGIC2, REBOOT_POWER_OFF, 0);
	for (;;)
		;
}

/* Mounts debugfs on /debug; 0 or a negative errno. */
static inline long mount_debugfs(void)
{
	syscall4(__NR_mkdirat, AT_FDCWD, (long)"/debug", 0755, 0);
	return syscall4(__NR_mount, (long)"debugfs", (long)"/debug", (long)"debugfs", 0);
}

void __attribute__((noreturn, used)) pankunit_main(long *sp);

/* The kernel enters init with argc, argv[] and envp[] on the stack. */
asm(".globl _start\n"
    "_start:\n"
    "	mov	x0, sp\n"
    "	bl	pankunit_main\n");

#endif /* PAN_KUNIT_GUEST_SYS_H */

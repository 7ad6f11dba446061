// SPDX-License-Identifier: GPL-2.0
/*
 * The init of pan-kunit's LKDTM boots: mounts debugfs, writes the crash
 * type given as pankunit_crash=TYPE on the kernel command line (which the
 * kernel passes to init in its environment) to provoke-crash/DIRECT, and
 * powers the machine off if it survives. No libc: raw arm64 syscalls.
 */

#define __NR_ioctl	29
#define __NR_mkdirat	34
#define __NR_mount	40
#define __NR_openat	56
#define __NR_write	64
#define __NR_reboot	142
#define AT_FDCWD	(-100)
#define O_WRONLY	1
/* ioctl(fd, TCSBRK, 1) is tcdrain(): it returns once the output is sent. */
#define TCSBRK		0x5409

/* reboot(2) magic numbers and LINUX_REBOOT_CMD_POWER_OFF */
#define REBOOT_MAGIC1	0xfee1deadL
#define REBOOT_MAGIC2	672274793L
#define REBOOT_POWER_OFF 0x4321fedcL

static long syscall4(long nr, long a, long b, long c, long d)
{
	register long x8 asm("x8") = nr;
	register long x0 asm("x0") = a;
	register long x1 asm("x1") = b;
	register long x2 asm("x2") = c;
	register long x3 asm("x3") = d;

	asm volatile("svc #0"
		     : "+r" (x0)
		     : "r" (x8), "r" (x1), "r" (x2), "r" (x3)
		     : "memory");
	return x0;
}

static unsigned long length(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	return n;
}

static void say(const char *s)
{
	syscall4(__NR_write, 1, (long)s, length(s), 0);
}

/*
 * The console's output goes out from a buffer after write() returned; an
 * oops and the panic after it print directly, and the reboot can come
 * before the buffer is sent.
 */
static void drain(void)
{
	syscall4(__NR_ioctl, 1, TCSBRK, 1, 0);
}

static const char *crash_type(char **envp)
{
	static const char key[] = "pankunit_crash=";
	int i;

	for (; *envp; envp++) {
		for (i = 0; key[i] && (*envp)[i] == key[i]; i++)
			;
		if (!key[i])
			return *envp + i;
	}
	return 0;
}

static void __attribute__((noreturn)) power_off(void)
{
	syscall4(__NR_reboot, REBOOT_MAGIC1, REBOOT_MAGIC2, REBOOT_POWER_OFF, 0);
	for (;;)
		;
}

void __attribute__((noreturn, used)) pankunit_main(long *sp)
{
	char **envp = (char **)(sp + 1) + sp[0] + 1;
	const char *type = crash_type(envp);
	long fd;

	if (!type) {
		say("pan-kunit init: no pankunit_crash= on the command line\n");
		power_off();
	}
	syscall4(__NR_mkdirat, AT_FDCWD, (long)"/debug", 0755, 0);
	if (syscall4(__NR_mount, (long)"debugfs", (long)"/debug", (long)"debugfs", 0) < 0) {
		say("pan-kunit init: cannot mount debugfs\n");
		power_off();
	}
	fd = syscall4(__NR_openat, AT_FDCWD, (long)"/debug/provoke-crash/DIRECT", O_WRONLY, 0);
	if (fd < 0) {
		say("pan-kunit init: cannot open provoke-crash/DIRECT\n");
		power_off();
	}
	say("pan-kunit init: provoking ");
	say(type);
	say("\n");
	drain();
	syscall4(__NR_write, fd, (long)type, length(type), 0);
	say("pan-kunit init: survived ");
	say(type);
	say("\n");
	power_off();
}

/* The kernel enters init with argc, argv[] and envp[] on the stack. */
asm(".globl _start\n"
    "_start:\n"
    "	mov	x0, sp\n"
    "	bl	pankunit_main\n");

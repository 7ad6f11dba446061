// SPDX-License-Identifier: GPL-2.0
/*
 * The init of pan-kunit's LKDTM boots: mounts debugfs, writes the crash
 * type given as pankunit_crash=TYPE on the kernel command line (which the
 * kernel passes to init in its environment) to provoke-crash/DIRECT, and
 * powers the machine off if it survives. No libc: raw arm64 syscalls.
 */

#include "sys.h"

void __attribute__((noreturn, used)) pankunit_main(long *sp)
{
	char **envp = (char **)(sp + 1) + sp[0] + 1;
	const char *type = getenv_value(envp, "pankunit_crash=");
	long fd;

	if (!type) {
		tell("pan-kunit init: no pankunit_crash= on the command line", 0);
		power_off();
	}
	if (mount_debugfs() < 0) {
		tell("pan-kunit init: cannot mount debugfs", 0);
		power_off();
	}
	fd = syscall4(__NR_openat, AT_FDCWD, (long)"/debug/provoke-crash/DIRECT", O_WRONLY, 0);
	if (fd < 0) {
		tell("pan-kunit init: cannot open provoke-crash/DIRECT", 0);
		power_off();
	}
	tell("pan-kunit init: provoking ", type);
	syscall4(__NR_write, fd, (long)type, length(type), 0);
	tell("pan-kunit init: survived ", type);
	power_off();
}

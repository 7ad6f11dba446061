// SPDX-License-Identifier: GPL-2.0
/*
 * The init of pan-kunit's coverage boots. The kernel has run its KUnit
 * suites before it starts init; init mounts debugfs and writes every
 * gcov data file under gcov/ to the console, in hex, then powers the
 * machine off. tools/pan_kunit/coverage.py reads them back:
 *
 *   pan-kunit gcda: PATH SIZE      PATH as under /sys/kernel/debug/gcov
 *   pan-kunit gcda+ OFFSET HEX     up to LINE_BYTES bytes at OFFSET
 *   pan-kunit gcov: N files        the last line
 *
 * Each data line carries its offset, so that a kernel message printed
 * into the middle of the dump is found rather than read as data.
 */

#include "sys.h"

#define DT_DIR		4
#define DT_REG		8
#define LINE_BYTES	48
#define PATH_MAX	4096

struct dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* The largest gcov data file of the profiled objects is tens of KiB. */
static unsigned char data[4 << 20];
static char path[PATH_MAX];
static unsigned long files;

static void say_number(unsigned long n)
{
	char text[24];
	int i = sizeof(text) - 1;

	text[i] = 0;
	do {
		text[--i] = '0' + n % 10;
		n /= 10;
	} while (n);
	say(text + i);
}

/* No libc, and the compiler's memcpy() and memcmp() would call one. */
static void copy(char *to, const char *from, unsigned long n)
{
	while (n--)
		*to++ = *from++;
}

/* "." and "..": not entries to walk into (".cache" is). */
static int is_dot_or_dotdot(const char *name)
{
	return name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]));
}

static int ends_with(const char *s, const char *tail)
{
	unsigned long n = length(s), t = length(tail);

	if (n < t)
		return 0;
	for (s += n - t; *tail; s++, tail++)
		if (*s != *tail)
			return 0;
	return 1;
}

static void dump_line(unsigned long offset, unsigned long count)
{
	static const char hex[] = "0123456789abcdef";
	char line[2 * LINE_BYTES + 2];
	unsigned long i;

	for (i = 0; i < count; i++) {
		line[2 * i] = hex[data[offset + i] >> 4];
		line[2 * i + 1] = hex[data[offset + i] & 15];
	}
	line[2 * count] = '\n';
	line[2 * count + 1] = 0;
	say("pan-kunit gcda+ ");
	say_number(offset);
	say(" ");
	say(line);
}

/* @name: the file's path under /debug/gcov, which @path holds whole. */
static void dump_file(const char *name)
{
	unsigned long size = 0, offset;
	long fd, n;

	fd = syscall4(__NR_openat, AT_FDCWD, (long)path, O_RDONLY, 0);
	if (fd < 0) {
		say("pan-kunit init: cannot open ");
		say(path);
		say("\n");
		return;
	}
	while ((n = syscall4(__NR_read, fd, (long)(data + size), sizeof(data) - size, 0)) > 0)
		size += n;
	syscall4(__NR_close, fd, 0, 0, 0);
	if (n < 0 || size == sizeof(data)) {
		say("pan-kunit init: cannot read all of ");
		say(path);
		say("\n");
		return;
	}
	say("pan-kunit gcda: ");
	say(name);
	say(" ");
	say_number(size);
	say("\n");
	for (offset = 0; offset < size; offset += LINE_BYTES)
		dump_line(offset, size - offset < LINE_BYTES ? size - offset : LINE_BYTES);
	files++;
}

/* Dumps the .gcda files under @path (of @len characters), depth first. */
static void walk(unsigned long len, unsigned long root)
{
	char entries[4096] __attribute__((aligned(8)));
	long fd, n, at;

	fd = syscall4(__NR_openat, AT_FDCWD, (long)path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0) {
		say("pan-kunit init: cannot open ");
		say(path);
		say("\n");
		return;
	}
	while ((n = syscall4(__NR_getdents64, fd, (long)entries, sizeof(entries), 0)) > 0) {
		for (at = 0; at < n; at += ((struct dirent64 *)(entries + at))->d_reclen) {
			struct dirent64 *d = (struct dirent64 *)(entries + at);
			unsigned long name_len = length(d->d_name);

			if (is_dot_or_dotdot(d->d_name) || len + 1 + name_len >= PATH_MAX)
				continue;
			path[len] = '/';
			copy(path + len + 1, d->d_name, name_len + 1);
			/* Links are the .gcno files of the build: not data. */
			if (d->d_type == DT_DIR)
				walk(len + 1 + name_len, root);
			else if (d->d_type == DT_REG && ends_with(d->d_name, ".gcda"))
				dump_file(path + root);
		}
	}
	if (n < 0) {
		say("pan-kunit init: cannot read the directory ");
		say(path);
		say("\n");
	}
	syscall4(__NR_close, fd, 0, 0, 0);
	path[len] = 0;
}

void __attribute__((noreturn, used)) pankunit_main(long *sp)
{
	static const char root[] = "/debug/gcov";

	(void)sp;

	if (mount_debugfs() < 0) {
		say("pan-kunit init: cannot mount debugfs\n");
		power_off();
	}
	copy(path, root, sizeof(root));
	walk(sizeof(root) - 1, sizeof(root) - 1);
	say("pan-kunit gcov: ");
	say_number(files);
	say(" files\n");
	power_off();
}

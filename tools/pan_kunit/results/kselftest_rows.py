# SPDX-License-Identifier: GPL-2.0
#
# The kselftests of a boot as rows of the one result model: their leaf
# cases, parsed by the tree's kunit_parser from the KTAP document that
# guest/ksft_init.c prints, each in the suite kselftest.arm64.COLLECTION
# (one row per collection in the table), named COLLECTION/BINARY[CASE].
#
# A kselftest that fails on a correct kernel under QEMU, for a reason
# known and named here (KNOWN_FAILURES, the one list), is counted as a
# skip whose reason is "known failure: WHY": seen in every report, never
# hidden, and never a failure of the kernel under test.  A test that
# cannot run on a CPU skips by itself, with its own reason.

import fnmatch
import re
from dataclasses import dataclass
from typing import AbstractSet, Dict, List, Optional, Sequence

from pan_kunit.kunit_tool.ktap import Case, CaseStatus

# The suite of a collection's leaves: kselftest.arm64.COLLECTION.
PREFIX = 'kselftest.arm64.'
# The leaf that stands for a kselftest boot that printed no result.
BOOT = PREFIX + '(boot)'
KNOWN = 'known failure: '

@dataclass(frozen=True)
class KnownFailure:
	"""A kselftest that fails on a correct kernel here, and why."""
	binary: str   # COLLECTION/BINARY, a glob
	case: str     # the case's name, a glob ('*': any, and the binary's own leaf)
	why: str
	log: str = ''         # a line the case's log must hold ('': any log)
	timed_out: bool = False  # only when the init killed the binary at its time limit

# Each failure of a correct kernel under QEMU, with its reason: the KUnit
# kernel config (kconfig/lean.config leaves the options out), or the
# speed of TCG on a loaded host against a test's own time limit.
KNOWN_FAILURES = (
	KnownFailure('abi/seccomp_*', '*',
		     'kernel config: SECCOMP_FILTER depends on NET, which the KUnit '
		     'config has not (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER) is EINVAL)'),
	KnownFailure('mte/check_buffer_fill', '*file*',
		     'kernel config: no TMPFS, and only a shmem file can hold MTE tags'),
	KnownFailure('mte/check_child_memory', '*file*',
		     'kernel config: no TMPFS, and only a shmem file can hold MTE tags'),
	KnownFailure('mte/check_mmap_options', '*file*',
		     'kernel config: no TMPFS, and only a shmem file can hold MTE tags'),
	KnownFailure('mte/check_ksm_options', '*',
		     'kernel config: no KSM (missing /sys/kernel/mm/ksm/run)'),
	KnownFailure('mte/check_hugetlb_options', '*',
		     'kernel config: no HUGETLBFS (missing /proc/sys/vm/nr_hugepages)'),
	KnownFailure('signal/sve_regs', '*',
		     'QEMU TCG on a loaded host: walking the 16 SVE vector lengths of '
		     '"max" outlasts the alarm(3) of every signal test', log='# -- Timeout !'),
	KnownFailure('signal/za_regs', '*',
		     'QEMU TCG on a loaded host: walking the SME vector lengths of '
		     '"max" outlasts the alarm(3) of every signal test', log='# -- Timeout !'),
	KnownFailure('signal/*', '*',
		     'QEMU TCG on a loaded host: the test outlasts its own alarm (3 s for '
		     'most signal tests; -icount shift=auto moves the guest\'s clock on when '
		     'QEMU is kept from running)', log='# -- Timeout !'),
	KnownFailure('fp/fp-ptrace', '*',
		     'QEMU TCG on a loaded host: the traced child outlasts fp-ptrace\'s own '
		     'wait for it', log='# Timed out waiting for child'),
	KnownFailure('fp/fp-stress', '*',
		     'QEMU TCG on a loaded host: 34 stress processes outlast the init\'s '
		     'per-binary limit (30-40 s on an idle host)', timed_out=True),
	KnownFailure('pauth/pac', '*exec_changed_keys*',
		     'QEMU TCG on a loaded host: 1000 fork+exec outlast the harness\'s '
		     '30 s per case'),
)

# A test that skips a case without a reason: ksft_test_result_skip() of
# the case's name only, which the init makes its name and its reason (as
# for "ok 3 # SKIP SVE not supported", where that is a reason), or an
# exit with KSFT_SKIP and no complete TAP, which the init reports as
# EXIT_SKIP.  What the test's source says such a skip means, by binary (a
# glob); a SKIP with no text at all is UNSAID.
EXIT_SKIP = 'exit 4 (KSFT_SKIP)'
UNSAID = 'the test names the case only, and no reason'
UNSAID_BY_BINARY = (
	('abi/hwcap', 'hwcap.c names the case only: no probe of this signal for the hwcap, '
	 'or the hwcap is absent and the signal may be missing, or SIGILL came first'),
	('abi/tpidr2', 'the CPU has no SME (tpidr2.c says "SME support not present" and '
	 'names each case only)'),
	('mte/check_prctl', 'the CPU lacks the MTE hwcaps of this mode (check_prctl.c names '
	 'the mode only)'),
	('signal/*', 'a CPU feature the test requires is absent (test_signals_utils.c exits '
	 'with KSFT_SKIP, naming it only when it is a feature of its list)'),
)

def unsaid(binary: str) -> Optional[str]:
	"""What a skip of @binary that gives no reason means, if its source says."""
	return next((why for glob, why in UNSAID_BY_BINARY if fnmatch.fnmatchcase(binary, glob)), None)

def known_failure(leaf: Case, known: Sequence[KnownFailure]=KNOWN_FAILURES,
		  killed: AbstractSet[str]=frozenset()) -> Optional[KnownFailure]:
	"""The entry of @known that a failed @leaf ([SUITE, BINARY] or [SUITE,
	BINARY, CASE]) is, if any; @killed: the binaries the init killed at
	their time limit (timed_out())."""
	path = leaf.path
	case = path[2] if len(path) > 2 else ''
	for entry in known:
		if not fnmatch.fnmatchcase(path[1], entry.binary) or (
				entry.case != '*' and not fnmatch.fnmatchcase(case, entry.case)):
			continue
		if entry.log and not any(entry.log in line for line in leaf.log):
			continue
		if entry.timed_out and path[1] not in killed:
			continue
		return entry
	return None

# The init's result line of a binary it killed at its time limit.
_TIMED_OUT = re.compile(r'^\s*not ok [0-9]+ (\S+) # timeout after [0-9]+ s\s*$')

def timed_out(console: str) -> AbstractSet[str]:
	"""The binaries (COLLECTION/BINARY) the init killed at their limit."""
	return {m.group(1) for m in map(_TIMED_OUT.match, console.splitlines()) if m}

# What the init prints at the top level of its KTAP document: every other
# line of it is indented.  A line at the top level that is none of these
# is the kernel's, come out in the middle of the document (the console is
# asynchronous: "Run /init as init process" after the init's first
# lines, each CPU hotplug's messages among the hotplug test's).
_TOP_LEVEL = re.compile(r'^(KTAP version [0-9]+|1\.\.[0-9]+|(not )?ok [0-9]+( .*)?|#.*)$')

def init_lines(console: str) -> str:
	"""@console with the kernel's lines left out from the init's KTAP
	document on: kunit_parser, which reads a kernel line after a "KTAP
	version" line as the end of the header, then names the subtest
	nothing."""
	lines = console.splitlines(keepends=True)
	start = next((n for n, line in enumerate(lines) if line.startswith('KTAP version ')),
		     len(lines))
	return ''.join(lines[:start] + [line for line in lines[start:]
					 if line[:1].isspace() or _TOP_LEVEL.match(line.rstrip('\n'))])

def is_kselftest(suite: str) -> bool:
	return suite.startswith(PREFIX)

def suite_of(name: str) -> str:
	"""The suite of a case named SUITE.CASE..., as Case.name() and
	key() name it: a kselftest's has two dots of its own."""
	parts = name.split('.')
	return '.'.join(parts[:3]) if is_kselftest(name) else parts[0]

def rows(cases: List[Case], reasons: Dict[str, str],
	 known: Sequence[KnownFailure]=KNOWN_FAILURES,
	 killed: AbstractSet[str]=frozenset()) -> List[Case]:
	"""The kselftest leaves of @cases (parsed from a kselftest boot's
	console; other documents' are left out), each skip with its reason
	(@reasons: ktap_lines.skip_reasons() of the console), each known
	failure a skip with its reason (@killed: timed_out() of the console)."""
	found = []
	seen: Dict[str, int] = {}
	for case in cases:
		if not is_kselftest(case.suite) or len(case.path) < 2:
			continue
		reason = reasons.get(case.key(), '')
		# A test may name several cases alike (vec-syscfg's "SVE not
		# supported" for each vector length): the second is NAME (2), so
		# that each keeps a key of its own in the JSON and JUnit.
		seen[case.key()] = seen.get(case.key(), 0) + 1
		if seen[case.key()] > 1:
			case = Case(case.path[:-1] + [f'{case.path[-1]} ({seen[case.key()]})'],
				    case.status, case.log)
		entry = known_failure(case, known, killed) if case.failed() else None
		if entry:
			found.append(Case(case.path, CaseStatus.SKIP, case.log, KNOWN + entry.why))
		elif case.status == CaseStatus.SKIP:
			if reason in (case.path[-1], EXIT_SKIP):
				reason = unsaid(case.path[1]) or reason
			reason = reason or UNSAID
			found.append(Case(case.path, case.status, case.log, reason))
		else:
			found.append(Case(case.path, case.status, case.log))
	return found

def boot_failed(why: str, log: List[str]) -> Case:
	"""The one leaf of a kselftest boot that printed no result."""
	return Case([BOOT, why], CaseStatus.ERROR, log)

# SPDX-License-Identifier: GPL-2.0
#
# What pan-kunit reads of a boot's console itself, beside the leaves
# kunit_parser parses from it (ktap.py): its KTAP header, the reason of
# each skip and 6.1's tallies of skipped parameters (which kunit_tool's
# JSON has not: leaves.py resolves them), and where a console cut short
# stopped, with the known suites it never began (suites.known()).

import re
import textwrap
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Tuple

# The line kunit_tool's parser starts from (kunit_parser.KTAP_START and
# TAP_START); a console without one has no KTAP results at all.
KTAP_HEADER = re.compile(r'K?TAP version [0-9]+\s*$')

# kunit_tool's JSON has no skip reasons, so they are read from the console,
# from these KTAP lines of lib/kunit/test.c (after an optional printk
# timestamp):
#     # Subtest: NAME           opens test NAME; its results follow at the
#                               same indentation
#     ok N NAME # SKIP REASON   NAME was skipped ("ok N - NAME" in later
#                               kernels)
# A skipped test is named after the subtests open around it, SUITE.CASE or
# SUITE.CASE.PARAM, as kunit_tool's JSON nests them.  A SKIP without a
# reason is not recorded.
_INDENT = r'^(?:\[\s*[0-9]+\.[0-9]+\] )?(\s*)'
SUBTEST_HEADER = re.compile(_INDENT + r'# Subtest: (.+?)\s*$')
SKIP_RESULT = re.compile(_INDENT + r'(?:not )?ok [0-9]+ (?:- )?(.+?) # SKIP(?: (.*?))?\s*$')
# After the parameters of a case, lib/kunit/test.c prints their tally at
# the case's indentation, within its suite.  6.1 prints none for a case of
# one parameter, whose skip is then still counted as a pass.
CASE_STATS = re.compile(_INDENT + r'# (\S+): pass:[0-9]+ fail:[0-9]+ skip:([0-9]+) total:[0-9]+\s*$')

def _open_tests(console: str) -> Iterator[Tuple[List[Tuple[int, str]], str]]:
	"""Each line of @console but the subtest headers, with the subtests
	open around it: (indentation, name), outermost first."""
	open_tests: List[Tuple[int, str]] = []
	for line in console.splitlines():
		header = SUBTEST_HEADER.match(line)
		if header:
			indent = len(header.group(1))
			open_tests = [t for t in open_tests if t[0] < indent]
			open_tests.append((indent, header.group(2)))
			continue
		yield open_tests, line

def param_skips(console: str) -> Dict[str, int]:
	"""SUITE.CASE of each parameterised case, with how many of its
	parameters its tally line says were skipped."""
	skips = {}
	for open_tests, line in _open_tests(console):
		stats = CASE_STATS.match(line)
		if stats:
			suite = [t[1] for t in open_tests if t[0] == len(stats.group(1))]
			if suite:
				skips[f'{suite[-1]}.{stats.group(2)}'] = int(stats.group(3))
	return skips

def skip_reasons(console: str) -> Dict[str, str]:
	"""The reason of each SKIP line that has one, by SUITE.CASE or
	SUITE.CASE.PARAM (a suite's own SKIP by SUITE)."""
	reasons = {}
	for open_tests, line in _open_tests(console):
		skip = SKIP_RESULT.match(line)
		if skip and skip.group(3):
			indent = len(skip.group(1))
			name = '.'.join([t[1] for t in open_tests if t[0] <= indent] + [skip.group(2)])
			reasons[name] = skip.group(3)
	return reasons

# A KTAP result line, and a plan, after an optional printk timestamp.
_RESULT = re.compile(_INDENT + r'(?:not )?ok [0-9]+ (?:- )?(.+?)(?: # .*)?\s*$')
_PLAN = re.compile(_INDENT + r'1\.\.([0-9]+)\s*$')

@dataclass
class Stop:
	"""Where a console cut short stopped."""
	suite: str             # the last suite that began ('' between suites)
	case: str              # the last case of it that began ('' if unknown)
	case_number: int       # its number in the suite (0 if unknown)
	planned_cases: int     # the suite's plan (0 if unknown)
	after: str             # the last suite that ended, when it stopped between suites
	announced: int         # the suites the console's plan announced
	begun: List[str] = field(default_factory=list)  # the suites that began
	not_begun: List[str] = field(default_factory=list)  # known suites that did not

	def lines(self, width: int=80) -> List[str]:
		"""What a report says of it, in @width columns but for long names."""
		if self.suite:
			number = f'case {self.case_number}' + (
				f' of {self.planned_cases}' if self.planned_cases else '')
			lines = [f'    the kernel stopped in {self.suite}, {number}, the last to begin' +
				 (':' if self.case else '')]
			lines += [f'        {self.case}'] if self.case else []
		else:
			lines = ['    the kernel stopped ' + (f'between suites, after {self.after}'
							 if self.after else 'before any suite')]
		left = []
		if self.case_number < self.planned_cases:
			left.append(f'the {self.planned_cases - self.case_number} cases after it')
		missing = self.announced - len(self.begun)
		if missing > 0:
			left.append(f'{missing} of the {self.announced} suites the console announced')
		if left:
			lines.append('    did not run: ' + ', and '.join(left))
		if missing > 0 and self.not_begun:
			lines.append('    of the suites in kunit/, these did not begin:')
			lines += textwrap.wrap(', '.join(self.not_begun), width,
					       initial_indent=' ' * 8, subsequent_indent=' ' * 8,
					       break_on_hyphens=False)
		return lines

def stopped(console: str, suites: Optional[Dict[str, List[str]]]=None) -> Optional[Stop]:
	"""Where @console stopped, if it stopped short of its plan: in a suite
	that began and did not end, or before all the suites it announced had
	begun; None when it did not.  A parameterised case that began says so
	(its # Subtest line); any other case only ends, so the case that began
	after the last that ended is read from @suites (known())."""
	suite_indent: Optional[int] = None
	announced = 0
	begun: List[str] = []
	suite = after = open_case = last_case = ''
	ended = planned = 0
	for line in console.splitlines():
		header = SUBTEST_HEADER.match(line)
		result = _RESULT.match(line)
		plan = _PLAN.match(line)
		found = header or result or plan
		indent = len(found.group(1)) if found else -1
		if header:
			if suite_indent is None or indent <= suite_indent:
				suite_indent = indent
				suite, open_case, last_case, ended, planned = header.group(2), '', '', 0, 0
				begun.append(suite)
			elif suite:
				open_case = header.group(2)
		elif plan and (suite_indent is None or indent < suite_indent):
			announced = announced or int(plan.group(2))
		elif plan and suite and indent == suite_indent:
			planned = int(plan.group(2))
		elif result and suite_indent is not None and suite:
			if indent == suite_indent:
				last_case, open_case, ended = result.group(2), '', ended + 1
			elif indent < suite_indent:
				after, suite = suite, ''
	if not suite and len(begun) >= announced:
		return None
	case, number = open_case, ended + 1
	cases = (suites or {}).get(suite, [])
	if suite and not case:
		following = cases[cases.index(last_case) + 1:] if last_case in cases else (
			[] if last_case else cases)
		case = following[0] if following else ''
	known_names = sorted(suites or {})
	return Stop(suite=suite, case=case if suite else '', case_number=number if suite else 0,
		    planned_cases=planned if suite else 0, after=after, announced=announced,
		    begun=begun, not_begun=[s for s in known_names if s not in begun])

# The kernel's last words on a console that ends in a crash: its oops or
# panic (arch/arm64/mm/fault.c die_kernel_fault(), arch/arm64/kernel/
# traps.c die(), kernel/panic.c panic()), the registers that say where,
# and the backtrace (dump_backtrace(): "Call trace:", then a frame a
# line).  A kernel that dies before its console starts prints them
# only with earlycon (qemu_configs/*.py).
_TIMESTAMP = re.compile(r'^\[\s*[0-9]+\.[0-9]+\] ')
_LAST_WORDS_START = re.compile(r'^(?:Unable to handle kernel |Internal error: |'
			       r'Kernel panic - not syncing|kernel BUG at |BUG: |Oops)')
_LAST_WORDS = re.compile(r'^(?:Unable to handle kernel |Internal error: |'
			 r'Kernel panic - not syncing|kernel BUG at |BUG: |Oops|pc : |lr : |'
			 r'Call trace:|\s+\S+\+0x[0-9a-f]+/0x[0-9a-f]+|---\[ end )')
# At most this many lines of them: an oops and a backtrace.
LAST_WORDS_LINES = 30

def last_words(console: str) -> List[str]:
	"""The oops or panic of @console, where it was, and the backtrace,
	without their printk timestamps; [] when the console holds none."""
	lines = [_TIMESTAMP.sub('', line, count=1).rstrip() for line in console.splitlines()]
	first = next((i for i, line in enumerate(lines) if _LAST_WORDS_START.match(line)), None)
	if first is None:
		return []
	return [line for line in lines[first:] if _LAST_WORDS.match(line)][:LAST_WORDS_LINES]

# SPDX-License-Identifier: GPL-2.0
#
# The suites and their cases as their sources name them (kunit/**/tests/
# *_kunit.c: a struct kunit_suite's .name, its kunit_case array's
# KUNIT_CASE*() entries), without a tree or a build: what `list` lists, what
# a filter_glob is checked against, and what a console cut short did not
# run.  And kunit/'s files grouped by suite, with what a suite's C file
# says of it and its kernel differences, as `export` writes a patch per
# suite and the catalogue (docs/suites.md) a section.  And where such a
# console stopped: the last suite and case that began, from its KTAP lines
# (see leaves.py for their forms).

import difflib
import fnmatch
import glob
import os
import re
import textwrap
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from pan_kunit import Error
from pan_kunit.leaves import SUBTEST_HEADER
from pan_kunit.sources import TREE_KUNITCONFIG, Sources

SOURCES = os.path.join('kunit', 'arch', 'arm64', '**', 'tests', '*_kunit.c')
# A suite's struct kunit_suite, its name, its kunit_case array and each
# case of it (the KUNIT_CASE variant, '' or _PARAM, and the case): also
# what catalogue.py reads the sources with.
SUITE_STRUCT = re.compile(r'struct kunit_suite\s+\w+\s*=\s*\{(.*?)\n\};', re.S)
_NAME = re.compile(r'\.name\s*=\s*"([^"]+)"')
CASES_ARRAY = re.compile(r'struct kunit_case\s+(?:\w+\s+)*?\w+\[\]\s*=\s*\{(.*?)\n\};', re.S)
CASE = re.compile(r'KUNIT_CASE(\w*)\(\s*(\w+)')

def known(repo: str) -> Dict[str, List[str]]:
	"""Each suite of the repo's sources, by name, with its cases in the
	order of its kunit_case array (those of every kernel: a case under
	#if LINUX_VERSION_CODE is listed too)."""
	found: Dict[str, List[str]] = {}
	for path in sorted(glob.glob(os.path.join(repo, SOURCES), recursive=True)):
		with open(path, errors='replace') as f:
			text = f.read()
		suite = SUITE_STRUCT.search(text)
		name = _NAME.search(suite.group(1)) if suite else None
		cases = CASES_ARRAY.search(text)
		if name:
			found[name.group(1)] = [case for _, case in
						CASE.findall(cases.group(1) if cases else '')]
	return found

def matches(glob_text: str, suites: Dict[str, List[str]]) -> bool:
	"""Whether kunit.py's filter_glob @glob_text (SUITE or SUITE.CASE,
	with * and ?) names a suite or case of @suites, as the kernel's
	kunit_filter_suites() matches it."""
	suite_glob, _, case_glob = glob_text.partition('.')
	return any(fnmatch.fnmatchcase(suite, suite_glob) and
		   (not case_glob or any(fnmatch.fnmatchcase(c, case_glob) for c in cases))
		   for suite, cases in suites.items())

def closest(glob_text: str, suites: Dict[str, List[str]]) -> List[str]:
	"""The names of @suites (SUITE, SUITE.CASE) closest to @glob_text."""
	names = list(suites) + [f'{s}.{c}' for s, cases in suites.items() for c in cases]
	return difflib.get_close_matches(glob_text, names, n=3, cutoff=0.6)

def check_glob(glob_text: str, suites: Dict[str, List[str]]) -> None:
	"""Refuses a filter_glob that names no suite or case of @suites:
	its boots would run nothing, after a build."""
	if not glob_text or not suites or matches(glob_text, suites):
		return
	near = closest(glob_text, suites)
	raise Error(f'filter_glob {glob_text!r} matches no suite or case of kunit/' +
		    (f'; did you mean {" or ".join(near)}?' if near else '') +
		    '\n' + textwrap.fill('the suites: ' + ', '.join(sorted(suites)), 78,
					initial_indent='  ', subsequent_indent='    ') +
		    '\n  (SUITE or SUITE.CASE, with * and ?; the cases: tools/pan-kunit list)')

# A suite's C file names it in its struct kunit_suite.
SUITE_NAME = re.compile(r'\.name\s*=\s*"(arm64_[a-z0-9_]+)"')
# A suite's kernel differences, each at the top level of its file:
#     #if LINUX_VERSION_CODE >= KERNEL_VERSION(A, B, C)
#     ... #else ... #endif
# Upstream has one kernel: export keeps the branch of the kernel it
# exports for; the catalogue names the cases under one.
VERSION_IF = re.compile(rb'#if LINUX_VERSION_CODE >= KERNEL_VERSION\((\d+), *(\d+), *(\d+)\)\s*$')

@dataclass
class Suite:
	"""A suite's files, as export adds them in a patch of their own."""
	name: str           # the KUnit suite, e.g. arm64_alternative
	paths: List[str]    # its files, in the tree
	summary: str        # the first paragraph of its C file's header comment
	# Headers it includes that are no suite's own (pan_kunit.h): the first
	# suite of the series that includes one adds it.
	shared: List[str] = field(default_factory=list)

def _summary(text: str) -> str:
	"""The first paragraph of the first /* */ comment, unwrapped."""
	match = re.search(r'/\*(.*?)\*/', text, re.S)
	if not match:
		return ''
	lines = [line.strip().lstrip('*').strip() for line in match.group(1).splitlines()]
	paragraph: List[str] = []
	for line in lines:
		if not line and paragraph:
			break
		if line:
			paragraph.append(line)
	return ' '.join(paragraph)

def grouped(sources: Sources) -> List[Suite]:
	"""Groups kunit/'s files by stem (foo_kunit.c, foo_kunit.h and
	foo_kunit_asm.S are one suite), named by the suite its C file defines."""
	groups: Dict[Tuple[str, str], List[str]] = {}
	for path in sorted(sources.suites):
		if path == TREE_KUNITCONFIG:
			continue
		stem = os.path.splitext(os.path.basename(path))[0]
		stem = stem[:-len('_asm')] if stem.endswith('_asm') else stem
		groups.setdefault((os.path.dirname(path), stem), []).append(path)
	# A header of no suite's own (the PAN suites' pan_kunit.h) goes with
	# every suite that includes it.
	shared: Dict[Tuple[str, str], List[str]] = {}
	for key, paths in sorted(groups.items()):
		if not all(p.endswith('.h') for p in paths):
			continue
		include = re.compile(r'#include\s+"(?:' + '|'.join(
			re.escape(os.path.basename(p)) for p in paths) + r')"')
		users = [k for k, ps in groups.items() if k != key and any(
			p.endswith('.c') and include.search(sources.suites[p].decode(errors='replace'))
			for p in ps)]
		if len(users) > 1:
			for user in users:
				shared.setdefault(user, []).extend(paths)
			del groups[key]
	found = []
	for (directory, stem), paths in sorted(groups.items()):
		c_files = [p for p in paths if p.endswith('.c')]
		text = sources.suites[c_files[0]].decode(errors='replace') if c_files else ''
		names = SUITE_NAME.findall(text)
		if not names:
			raise Error(f'kunit/{paths[0]}: cannot tell which suite it is (no C file with '
				    '.name = "arm64_..."); export needs one per group of files')
		found.append(Suite(names[0], paths, _summary(text), shared.get((directory, stem), [])))
	return found

def wrap(text: str, width: int=72) -> str:
	"""@text's words in lines of @width at most, as a commit message's
	paragraph (a word longer than @width has a line of its own)."""
	lines: List[str] = []
	for word in text.split():
		if lines and len(lines[-1]) + 1 + len(word) <= width:
			lines[-1] += ' ' + word
		else:
			lines.append(word)
	return '\n'.join(lines)

# A KTAP result line, and a plan, after an optional printk timestamp.
_INDENT = r'^(?:\[\s*[0-9]+\.[0-9]+\] )?(\s*)'
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

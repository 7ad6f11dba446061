# SPDX-License-Identifier: GPL-2.0
#
# The suites and their cases as their sources name them (kunit/**/tests/
# *_kunit.c: a struct kunit_suite's .name, its kunit_case array's
# KUNIT_CASE*() entries), without a tree or a build: what `list` lists, what
# a filter_glob is checked against, and what a console cut short did not
# run.  And kunit/'s files grouped by suite, with what a suite's C file
# says of it and its kernel differences, as `export` writes a patch per
# suite and the catalogue (docs/suites.md) a section.  Where a console
# cut short stopped, and so what of them did not run: console.py.

import difflib
import fnmatch
import glob
import os
import re
import textwrap
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from pan_kunit import Error
from pan_kunit.trees.sources import TREE_KUNITCONFIG, Sources

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

# kunit/'s kselftests (the pan EL0 tests): user space programs, no KUnit
# suite; matrix/kselftest_build.py builds them with the kernel's.
KSELFTESTS_DIR = 'tools/testing/selftests/'

def is_kselftest(path: str) -> bool:
	"""Whether @path, in the tree, is a kselftest's file, not a suite's."""
	return path.startswith(KSELFTESTS_DIR)

def grouped(sources: Sources) -> List[Suite]:
	"""Groups kunit/'s files by stem (foo_kunit.c, foo_kunit.h and
	foo_kunit_asm.S are one suite), named by the suite its C file defines;
	the kselftests' files are no suite's."""
	groups: Dict[Tuple[str, str], List[str]] = {}
	for path in sorted(sources.suites):
		if path == TREE_KUNITCONFIG or path in sources.compat or is_kselftest(path):
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

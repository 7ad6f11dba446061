# SPDX-License-Identifier: GPL-2.0
#
# The KTAP results of a boot's console, parsed by the tree's own
# kunit_parser (tools/testing/kunit/kunit_parser.py, what kunit.py parses
# with), so that pan-kunit reads results as the kernel under test writes
# them: "ok N name" in 6.1, "ok N - name" and SKIP on parameter lines in
# later kernels.  kunit_parser's Test.log holds the lines of each test's own
# log: for a failed case, its EXPECTATION FAILED / ASSERTION FAILED lines.

import io
import re
from dataclasses import dataclass
from types import ModuleType
from typing import Any, List, Tuple

from pan_kunit import StrEnum
from pan_kunit.kunit_tool import modules

PARSER = 'kunit_parser'
PRINTER = 'kunit_printer'
# A leaf that kunit_parser made up for a test that never reported (the
# kernel crashed or hung first) has no name.
UNNAMED = '(unnamed)'

class CaseStatus(StrEnum):
	"""A leaf's status, as kunit_tool's JSON (kunit_json.py) writes it."""
	PASS = 'PASS'
	FAIL = 'FAIL'
	SKIP = 'SKIP'
	ERROR = 'ERROR'   # it crashed

# kunit_parser's TestStatus names as kunit_json.py writes them; every other
# status is FAIL there too.
STATUS_NAMES = {'SUCCESS': CaseStatus.PASS, 'SKIPPED': CaseStatus.SKIP,
		'TEST_CRASHED': CaseStatus.ERROR}

@dataclass
class Case:
	"""A leaf test case: a case, or one parameter of a parameterised case."""
	path: List[str]   # [suite, case] or [suite, case, param]
	status: CaseStatus
	log: List[str]    # the lines of its own log, less its first line's indentation
	reason: str = ''  # why it skipped, if it did and the console says (leaves.resolve())

	@property
	def suite(self) -> str:
		return self.path[0]

	def name(self) -> str:
		"""SUITE.CASE, or SUITE.CASE[PARAM] for a parameter."""
		if len(self.path) < 3:
			return '.'.join(self.path)
		return f'{".".join(self.path[:-1])}[{self.path[-1]}]'

	def key(self) -> str:
		"""SUITE.CASE or SUITE.CASE.PARAM, as ktap_lines.skip_reasons() and
		kunit_json.statuses() name it."""
		return '.'.join(self.path)

	def failed(self) -> bool:
		return self.status in (CaseStatus.FAIL, CaseStatus.ERROR)

def load_parser(kunit_dir: str) -> ModuleType:
	"""Imports @kunit_dir's kunit_parser (and the kunit_printer it imports)
	afresh, as configs.load() imports qemu_config (modules.load())."""
	return modules.load(kunit_dir, PARSER, [PRINTER])

def _indent(line: str) -> int:
	return len(line) - len(line.lstrip(' '))

# "EXPECTATION FAILED at ../../../arch/...": the path is relative to the
# build directory, TREE/.pan-kunit/build/KEY, three levels below the tree.
_FAILED_AT = re.compile(r'((?:EXPECTATION|ASSERTION) FAILED at )(?:\.\./)+')

def _dedent(log: List[str]) -> List[str]:
	"""Without the KTAP indentation of the first line ("    # case:
	EXPECTATION FAILED at ..."), so that the "Expected" lines keep theirs
	relative to it, and a line the test printed unindented stays so; the
	file of a failed expectation relative to the tree, as an editor or a
	terminal opens it from there, not to the build directory."""
	indent = _indent(log[0]) if log else 0
	return [_FAILED_AT.sub(r'\1', line[min(indent, _indent(line)):]) for line in log]

def _leaves(test: Any, path: List[str], found: List[Case]) -> None:
	for sub in test.subtests:
		sub_path = path + [sub.name or UNNAMED]
		if sub.subtests:
			_leaves(sub, sub_path, found)
		else:
			found.append(Case(sub_path, STATUS_NAMES.get(sub.status.name, CaseStatus.FAIL),
					  _dedent(sub.log)))

def parse(console: str, kunit_dir: str) -> Tuple[List[Case], str]:
	"""The leaf cases of @console, as kunit_tool's JSON nests them, and
	what kunit_parser printed while parsing it (kunit.py's own report)."""
	parser = load_parser(kunit_dir)
	printed = io.StringIO()
	if hasattr(parser, 'stdout'):
		# 6.1 and 6.12: kunit_parser prints through the module's `stdout`,
		# a kunit_printer.Printer.
		setattr(parser, 'stdout', type(parser.stdout)(printed))
		args: Tuple[Any, ...] = ()
	else:
		# 7.3: parse_run_tests() prints through the Printer it is given.
		args = (parser.Printer(output=printed),)
	cases: List[Case] = []
	try:
		test = parser.parse_run_tests(console.splitlines(), *args)
	except Exception as e:  # no cases then; the status comes from kunit.py's JSON and exit
		return cases, printed.getvalue() + f'{PARSER} failed on this console: {e!r}\n'
	_leaves(test, [], cases)
	return cases, printed.getvalue()

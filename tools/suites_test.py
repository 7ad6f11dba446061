#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the suites as their sources name them, and of where a console
# cut short stopped (pan_kunit.trees.suites).

import glob
import os
import re
import unittest
from typing import Dict, List

from pan_kunit import Error
from pan_kunit.kunit_tool import ktap_lines
from pan_kunit.trees import suites
from testlib import read, setUpModule, tearDownModule, test_data_path

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def console(name: str) -> str:
	return read(test_data_path('console', name + '.log'))

class KnownTest(unittest.TestCase):

	def test_suites_and_cases_of_the_sources(self) -> None:
		known = suites.known(REPO)
		self.assertIn('arm64_pan_hotplug', known)
		self.assertEqual(known['arm64_cpucap_passes'][:2], [
			'enable_cpu_capabilities_after_every_match',
			'enable_cpu_capabilities_once_per_detected'])
		self.assertTrue(all(name.startswith('arm64_') for name in known))

	def test_globs_as_the_kernel_matches_them(self) -> None:
		known = {'arm64_pan_enable': ['cpu_enable_pan_every_cpu'], 'arm64_pan_fault': ['a']}
		for glob_text in ('arm64_pan_enable', 'arm64_*', 'arm64_pan_?nable.cpu_*',
				  '*.cpu_enable_pan_every_cpu'):
			self.assertTrue(suites.matches(glob_text, known), glob_text)
		for glob_text in ('arm64_pan', 'arm64_pan_enable.a', 'pan_*'):
			self.assertFalse(suites.matches(glob_text, known), glob_text)
		self.assertEqual(suites.closest('arm64_pan_enabel', known)[:1], ['arm64_pan_enable'])
		with self.assertRaisesRegex(Error, "'arm64_pan_enabel' matches no suite or case of "
					    'kunit/; did you mean arm64_pan_enable'):
			suites.check_glob('arm64_pan_enabel', known)
		suites.check_glob('', known)
		suites.check_glob('anything', {})  # no sources: nothing to check against

# An assertion macro, and how many of its arguments after test are the
# condition KUnit prints when it fails.
_ASSERTION = re.compile(r'KUNIT_(?:EXPECT|ASSERT)_([A-Z_]+?)(?:_MSG)?\(')
_ONE = {'TRUE', 'FALSE', 'NULL', 'NOT_NULL', 'NOT_ERR_OR_NULL', 'ERR'}
# A call with a macro constant among its arguments (NULL reads as itself).
_CALL_OF_MACRO = re.compile(r'\w\s*\([^()]*\b(?!NULL\b)[A-Z][A-Z0-9_]{2,}\b')

def _arguments(text: str, start: int) -> List[str]:
	"""The arguments of the call whose '(' ends at @start, split at the
	commas outside brackets."""
	found: List[str] = []
	depth, current = 0, ''
	for c in text[start:]:
		if c == ')' and depth == 0:
			return found + [current]
		depth += (c in '([{') - (c in ')]}')
		if c == ',' and depth == 0:
			found.append(current)
			current = ''
		else:
			current += c
	return found

class SourcesTest(unittest.TestCase):

	def test_no_condition_passes_a_macro_constant_to_a_call(self) -> None:
		# KUnit prints a failed condition as the preprocessor left it:
		# has_cpuid_feature(&entry, SCOPE_SYSTEM) reads
		# has_cpuid_feature(&entry, ((u16)((((1UL))) << (1)))). A suite
		# names the value in a variable (or its message) instead.
		found = []
		for path in sorted(glob.glob(os.path.join(REPO, 'kunit', '**', '*.[ch]'),
					     recursive=True)):
			text = read(path)
			for match in _ASSERTION.finditer(text):
				count = 1 if match.group(1) in _ONE else 2
				for argument in _arguments(text, match.end())[1:1 + count]:
					if _CALL_OF_MACRO.search(argument):
						line = text.count('\n', 0, match.start()) + 1
						found.append(f'{os.path.relpath(path, REPO)}:{line}: '
							     f'{" ".join(argument.split())}')
		self.assertEqual(found, [])

	def test_the_check_sees_a_macro_in_a_call(self) -> None:
		text = 'KUNIT_EXPECT_EQ_MSG(test, has_cpuid_feature(&entry, SCOPE_SYSTEM), want, "x");'
		match = _ASSERTION.search(text)
		assert match is not None
		condition = _arguments(text, match.end())[1]
		self.assertEqual(condition.strip(), 'has_cpuid_feature(&entry, SCOPE_SYSTEM)')
		self.assertIsNotNone(_CALL_OF_MACRO.search(condition))
		self.assertIsNone(_CALL_OF_MACRO.search(' stop_machine(fn, call, NULL)'))

class StoppedTest(unittest.TestCase):

	known: Dict[str, List[str]] = {'arm64_cpucap_passes': ['a', 'b', 'c', 'enable_cpu_capabilities_sees_later_entries',
					 'enable_cpu_capabilities_honours_scope', 'z'],
		 'arm64_other': ['x'], 'arm64_zzz': []}

	def test_a_whole_console_did_not_stop(self) -> None:
		for name in ('7.3_nopan_skips', '6.1_nopan_skips', 'pass', 'fail_two_6.12'):
			self.assertIsNone(ktap_lines.stopped(console(name), self.known), name)

	def test_in_a_case(self) -> None:
		stop = ktap_lines.stopped(console('7.3_cut_short'), self.known)
		assert stop is not None
		self.assertEqual((stop.suite, stop.case, stop.case_number, stop.planned_cases,
				  stop.announced, stop.begun),
				 ('arm64_cpucap_passes', 'enable_cpu_capabilities_honours_scope', 4, 13, 10,
				  ['arm64_cpucap_passes']))
		self.assertEqual(stop.lines(), [
			'    the kernel stopped in arm64_cpucap_passes, case 4 of 13, the last to begin:',
			'        enable_cpu_capabilities_honours_scope',
			'    did not run: the 9 cases after it, and 9 of the 10 suites the console announced',
			'    of the suites in kunit/, these did not begin:',
			'        arm64_other, arm64_zzz'])

	def test_in_a_parameterised_case(self) -> None:
		# Cut after the first parameter of the 3rd case: its header says it began.
		lines = console('7.3_nopan_skips').splitlines()
		stop = ktap_lines.stopped('\n'.join(lines[:136]), self.known)
		assert stop is not None
		self.assertEqual((stop.case, stop.case_number),
				 ('enable_cpu_capabilities_sees_later_entries', 3))

	def test_between_suites(self) -> None:
		lines = console('7.3_nopan_skips').splitlines()
		end = lines.index('ok 1 arm64_cpucap_passes')
		stop = ktap_lines.stopped('\n'.join(lines[:end + 1]), self.known)
		assert stop is not None
		self.assertEqual(stop.lines()[:2], [
			'    the kernel stopped between suites, after arm64_cpucap_passes',
			'    did not run: 9 of the 10 suites the console announced'])

if __name__ == '__main__':
	unittest.main()

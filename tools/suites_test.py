#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the suites as their sources name them, and of where a console
# cut short stopped (pan_kunit.suites).

import os
import unittest
from typing import Dict, List

from pan_kunit import Error, suites
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

class StoppedTest(unittest.TestCase):

	known: Dict[str, List[str]] = {'arm64_cpucap_passes': ['a', 'b', 'c', 'enable_cpu_capabilities_sees_later_entries',
					 'enable_cpu_capabilities_honours_scope', 'z'],
		 'arm64_other': ['x'], 'arm64_zzz': []}

	def test_a_whole_console_did_not_stop(self) -> None:
		for name in ('7.3_nopan_skips', '6.1_nopan_skips', 'pass', 'fail_two_6.12'):
			self.assertIsNone(suites.stopped(console(name), self.known), name)

	def test_in_a_case(self) -> None:
		stop = suites.stopped(console('7.3_cut_short'), self.known)
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
		stop = suites.stopped('\n'.join(lines[:136]), self.known)
		assert stop is not None
		self.assertEqual((stop.case, stop.case_number),
				 ('enable_cpu_capabilities_sees_later_entries', 3))

	def test_between_suites(self) -> None:
		lines = console('7.3_nopan_skips').splitlines()
		end = lines.index('ok 1 arm64_cpucap_passes')
		stop = suites.stopped('\n'.join(lines[:end + 1]), self.known)
		assert stop is not None
		self.assertEqual(stop.lines()[:2], [
			'    the kernel stopped between suites, after arm64_cpucap_passes',
			'    did not run: 9 of the 10 suites the console announced'])

if __name__ == '__main__':
	unittest.main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the one reading of kunit_tool's JSON (pan_kunit.results.kunit_json): its
# leaves, and a status kunit_json.py never writes read as a failure by
# every check that reads the JSON.

import unittest

from pan_kunit.commands import series_bisect, steps
from pan_kunit.kunit_tool.ktap import CaseStatus
from pan_kunit.results import kunit_json
from pan_kunit.results.config_result import Status
from testlib import synthetic_config

class ReadingTest(unittest.TestCase):

	def test_leaves_as_kunit_json_nests_them(self) -> None:
		kunit = {'name': 'KUnit Test Group', 'test_cases': [{'name': '', 'status': 'ERROR'}],
			 'sub_groups': [{'name': 's', 'test_cases': [{'name': 'a', 'status': 'PASS'}],
					 'sub_groups': [{'name': 'p', 'test_cases': [
						 {'name': 'x', 'status': 'SKIP'}]}]}]}
		self.assertEqual([(leaf.path, leaf.status) for leaf in kunit_json.leaves(kunit)],
				 [(['(unnamed)'], CaseStatus.ERROR), (['s', 'a'], CaseStatus.PASS),
				  (['s', 'p', 'x'], CaseStatus.SKIP)])
		self.assertEqual(kunit_json.leaves(None), [])

	def test_a_status_kunit_json_never_writes_is_a_failure(self) -> None:
		kunit = {'name': 'KUnit Test Group', 'test_cases': [], 'sub_groups': [
			{'name': 's', 'test_cases': [{'name': 'a', 'status': 'TIMEOUT'}, {'name': 'b'},
						     {'name': 'c', 'status': 'FAIL'}]}]}
		self.assertEqual(kunit_json.statuses(kunit), {'s.a': CaseStatus.FAIL,
							      's.b': CaseStatus.FAIL,
							      's.c': CaseStatus.FAIL})

	def test_every_check_of_the_json_sees_it_fail(self) -> None:
		before = synthetic_config(Status.PASS, {'a': 'PASS', 'b': 'PASS'})
		after = synthetic_config(Status.FAIL, {'a': 'TIMEOUT', 'b': 'PASS'})
		self.assertEqual(series_bisect.regressions([before], [after]),
				 ['c: arm64_s.a FAIL'])
		self.assertEqual(steps.failed_cases(after), ['arm64_s.a'])
		self.assertEqual(after.totals().cell(), '1/1/0')

if __name__ == '__main__':
	unittest.main()

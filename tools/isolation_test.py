#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the kunit.py exec options pan-kunit passes on: --filter,
# --filter_action and --run_isolated (pan_kunit.matrix.isolation), and of run's
# --summary and --failed, with the fake kunit_tool of testlib.

import contextlib
import io
import json
import os
import unittest
from typing import Any, Dict, List, Tuple
from unittest import mock

from pan_kunit.commands import cli, options
from pan_kunit.host import files
from pan_kunit.matrix import isolation
from pan_kunit.results import kunit_json
from pan_kunit.results.config_result import Exit
from pan_kunit.trees import kernels
from testlib import TEST_DATA, FakeKunitTestCase, read, slow, setUpModule, tearDownModule

class GlobsTest(unittest.TestCase):
	TESTS = ['a_suite.one', 'a_suite.two', 'b_suite.one']

	def test_a_boot_per_suite_or_case_as_kunit_py_makes_them(self) -> None:
		self.assertEqual(isolation.globs(self.TESTS, 'suite', ''), ['a_suite', 'b_suite'])
		self.assertEqual(isolation.globs(self.TESTS, 'suite', '*.one'),
				 ['a_suite.one', 'b_suite.one'])
		self.assertEqual(isolation.globs(self.TESTS, 'test', 'a_*'), self.TESTS)
		self.assertEqual(isolation.globs([], 'suite', ''), [])

	def test_only_suite_case_lines_are_listed(self) -> None:
		log = os.path.join(self.tmp(), 'exec.log')
		with open(log, 'w') as f:
			f.write('booting fake kernel\na_suite.one\n  b_suite.two  \n'
				'[12:00:00] Starting KUnit Kernel (1/1)...\na.b.c\na_suite\n')
		self.assertEqual(isolation.listed(log), ['a_suite.one', 'b_suite.two'])
		self.assertEqual(isolation.listed(log + '.missing'), [])

	def tmp(self) -> str:
		import tempfile
		directory = tempfile.mkdtemp(prefix='pan-kunit-test.')
		self.addCleanup(lambda: __import__('shutil').rmtree(directory))
		return directory

class MergeTest(unittest.TestCase):

	def test_a_suite_of_several_boots_is_one_suite(self) -> None:
		one: files.JsonObj = {'name': 'KUnit Test Group', 'arch': 'arm64', 'test_cases': [],
		       'sub_groups': [{'name': 's', 'test_cases': [{'name': 'a', 'status': 'PASS'}],
				       'sub_groups': []}]}
		two = {'name': 'KUnit Test Group', 'arch': 'x', 'test_cases': [],
		       'sub_groups': [{'name': 's', 'test_cases': [{'name': 'b', 'status': 'FAIL'}],
				       'sub_groups': []},
				      {'name': 't', 'test_cases': [{'name': 'c', 'status': 'SKIP'}]}]}
		merged = isolation.merge_json([one, None, two])
		assert merged is not None
		self.assertEqual(merged['arch'], 'arm64')
		self.assertEqual([g['name'] for g in merged['sub_groups']], ['s', 't'])
		self.assertEqual(kunit_json.statuses(merged),
				 {'s.a': 'PASS', 's.b': 'FAIL', 't.c': 'SKIP'})
		# The boots' own JSON is left as it was.
		self.assertEqual(len(one['sub_groups'][0]['test_cases']), 1)
		self.assertIsNone(isolation.merge_json([None, None]))

	def test_outcome_of_boots_in_a_row(self) -> None:
		merged = isolation.merge_outcomes([Exit(0, False, 100.0), Exit(1, False, 150.0),
						  Exit(2, False, 10.0)])
		self.assertEqual((merged.returncode, merged.elapsed), (1, 260.0))
		# Several boots take longer than the timeout of one, without a hang.
		self.assertFalse(merged.hit_timeout(200))
		self.assertTrue(merged.hit_timeout(150))
		self.assertTrue(isolation.merge_outcomes([Exit(-9, True, 1.0)]).hit_timeout(200))

class RunOptionsTest(FakeKunitTestCase):

	def run_cli(self, *argv: str) -> Tuple[int, str]:
		return self.cli_main('--tree', self.tree, 'run', *argv)

	def execs(self) -> List[List[str]]:
		"""The arguments of every kunit.py exec, in order."""
		return [a[3:] for a in self.traced('argv') if a[1] == 'exec']

	def records(self, path: str) -> Dict[str, Any]:
		with open(path) as f:
			return {c['name']: c for c in json.load(f)['kernels'][0]['configs']}

	@slow  # two runs, each a build and boots
	def test_run_isolated_boots_each_suite_and_keeps_every_result(self) -> None:
		plain = os.path.join(self.tmp, 'plain.json')
		status, output = self.run_cli('--config', 'pass_pan', '--config', 'fail_pan',
					      '--json', plain)
		self.assertEqual(status, 1, output)
		plain_total = output.splitlines()[-1]
		self.open_trace()
		report = os.path.join(self.tmp, 'isolation.json')
		junit_file = os.path.join(self.tmp, 'isolation.xml')
		status, output = self.run_cli('--config', 'pass_pan', '--config', 'fail_pan',
					      '--run_isolated', 'suite', '--json', report,
					      '--junit', junit_file)
		self.assertEqual(status, 1, output)
		# One listing boot per config, then a boot per listed suite.
		self.assertEqual(sorted(a[1] for a in self.traced('list')), ['fail_pan', 'pass_pan'])
		globs = sorted(argv[-1] for argv in self.execs() if '--list_tests' not in argv)
		self.assertEqual(globs, ['arm64_cpufeature_field', 'arm64_cpufeature_match',
					 'arm64_cpufeature_match'])
		# The same counts, failure and total as one boot per config.
		self.assertEqual(output.splitlines()[-1], plain_total)
		# How many boots each config takes, said before they start.
		self.assertIn('booting fail_pan 1 times, pass_pan 2 times: one boot per suite '
			      '(--run_isolated), one after the other on each config\n', output)
		self.assertIn('[FAILED] arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu',
			      output)
		before, after = self.records(plain), self.records(report)
		for name in ('pass_pan', 'fail_pan'):
			self.assertEqual(kunit_json.statuses(after[name]),
					 kunit_json.statuses(before[name]), name)
			self.assertEqual(after[name]['status'], before[name]['status'])
		# Every boot's console is in the config's, after a line naming it.
		console = read(after['pass_pan']['files']['console'])
		self.assertIn('pan-kunit: --run_isolated: boot 1 of 2: arm64_cpufeature_field\n',
			      console)
		# Two top KTAP headers where one boot has one.
		one_boot = read(os.path.join(TEST_DATA, 'console', 'pass.log'))
		self.assertEqual(console.count('KTAP version 1\n'), one_boot.count('KTAP version 1\n') + 1)
		self.assertIn('tests="3" failures="0"', read(junit_file))

	def open_trace(self) -> None:
		with open(self.trace, 'w'):
			pass

	def test_run_isolated_of_a_config_that_lists_nothing(self) -> None:
		with mock.patch.object(isolation, 'listed', return_value=[]):
			status, output = self.run_cli('--config', 'pass_pan', '--run_isolated', 'test')
		self.assertEqual(status, 1, output)
		self.assertIn('pass_pan: no_tests', output)
		self.assertEqual(len(self.execs()), 1)

	def test_filter_is_refused_on_a_kernel_without_attributes(self) -> None:
		status, output = self.run_cli('--config', 'pass_pan', '--filter', 'speed>slow')
		self.assertEqual(status, 2, output)
		self.assertIn("--filter 'speed>slow': the kernel 6.1 has no KUnit attributes", output)
		self.assertEqual(self.traced('argv'), [])  # before any build
		status, output = self.run_cli('--config', 'pass_pan', '--filter_action', 'skip')
		self.assertEqual(status, 2, output)
		self.assertIn('give --filter too', output)

	def test_filter_and_filter_action_are_passed_on(self) -> None:
		with mock.patch.object(kernels, 'has_kunit_attributes', return_value=True):
			status, output = self.run_cli('--config', 'pass_pan', '--filter', 'speed>slow',
						      '--filter_action', 'skip', 'arm64_*')
		self.assertEqual(status, 0, output)
		(argv,) = self.execs()
		self.assertEqual(argv[-3:], ['--filter=speed>slow', '--filter_action=skip', 'arm64_*'])

	def test_bad_filters_are_usage_errors(self) -> None:
		for argv in (['run', '--filter', ''], ['run', '--filter', 'a="b"'],
			     ['run', '--filter_action', 'omit'], ['run', '--run_isolated', 'case'],
			     ['mutants', '--run_isolated', 'suite'], ['coverage', '--run_isolated', 'suite'],
			     ['run', '--summary', '--failed']):
			with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as e:
				cli.parse_args(argv)
			self.assertEqual(e.exception.code, 2, argv)

	@slow  # three runs, each a build and boots
	def test_summary_and_failed_print_less_and_the_same_totals(self) -> None:
		argv = ['--config', 'fail_pan', '--config', 'skip_nopan']
		status, full = self.run_cli(*argv)
		self.assertEqual(status, 1, full)
		totals = full.splitlines()[-1:]
		self.assertIn('suite (passed/failed/skipped)', full)
		self.assertIn('skipped, by reason', full)
		status, summary = self.run_cli(*argv, '--summary')
		self.assertEqual(status, 1, summary)
		self.assertEqual(summary.splitlines()[-1:], totals)
		for shown in ('suite (passed/failed/skipped)', 'skipped, by reason', '[FAILED]'):
			self.assertNotIn(shown, summary)
		status, failed = self.run_cli(*argv, '--failed')
		self.assertEqual(status, 1, failed)
		self.assertEqual(failed.splitlines()[-1:], totals)
		self.assertIn('[FAILED] arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu', failed)
		self.assertNotIn('suite (passed/failed/skipped)', failed)
		self.assertNotIn('skipped, by reason', failed)

class ReadOnlyTreeTest(FakeKunitTestCase):

	def test_a_tree_pan_kunit_cannot_write_is_refused_before_any_work(self) -> None:
		cache = os.path.dirname(self.tree)
		real_access = os.access
		def access(path: str, mode: int) -> bool:  # as on a read-only file system
			return False if os.path.realpath(path).startswith(cache) else real_access(path, mode)
		for tree in (self.tree, os.path.join(cache, 'new', 'linux-source-6.1')):
			with mock.patch.object(os, 'access', access):
				status, output = self.cli_main('--tree', tree, 'run', '--kernel', '6.1')
			self.assertEqual(status, 2, output)
			self.assertIn('read-only or not yours', output)
			self.assertNotIn('Traceback', output)
			self.assertEqual(self.traced('argv'), [])

class HelpTest(unittest.TestCase):

	def test_help_says_how_to_start_what_it_costs_and_the_exit_codes(self) -> None:
		out = io.StringIO()
		with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as e:
			cli.parse_args(['--help'])
		self.assertEqual(e.exception.code, 0)
		for words in ('quick start:', 'what it costs', 'exit status: 0 all passed',
			      '2 bad input', 'tools/pan-kunit run --tree ~/src/linux'):
			self.assertIn(words, out.getvalue())
		self.assertLessEqual(max(len(line) for line in options.EPILOG.splitlines()), 80)

if __name__ == '__main__':
	unittest.main()

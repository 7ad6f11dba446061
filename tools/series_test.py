#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the series of bisect (pan_kunit.trees.series) and the verdicts of its
# steps (pan_kunit.commands.steps, pan_kunit.commands.series_bisect).

import contextlib
import io
import os
import re
import shutil
import tempfile
import time
import unittest
from typing import Dict, List, Optional
from unittest import mock

from pan_kunit import Error
from pan_kunit.commands import cli, series_bisect, steps
from pan_kunit.results import config_result, junit
from pan_kunit.results.config_result import Status
from pan_kunit.trees import series, targets
from testlib import (test_data_path, read, write, synthetic_config, end_to_end, setUpModule,
		     tearDownModule)

DEMO_1 = '0001-arm64-cpufeature-name-the-PAN-field.patch'
DEMO_2 = '0002-arm64-cpufeature-match-with-greater-than.patch'
DEMO_3 = '0003-arm64-cpufeature-name-the-EPAN-level.patch'

class SeriesTest(unittest.TestCase):
	"""SERIES of bisect, loaded without a tree."""

	def setUp(self) -> None:
		self.tmp = tempfile.mkdtemp(prefix='pan-kunit-test-')
		self.addCleanup(shutil.rmtree, self.tmp)

	def series_dir(self, *names: str, series: Optional[str]=None) -> str:
		directory = os.path.join(self.tmp, 'series')
		os.makedirs(directory, exist_ok=True)
		for name in names:
			shutil.copy(test_data_path('series_demo', name) if name.startswith('0') else
				    test_data_path('unusable', name), directory)
		if series is not None:
			write(os.path.join(directory, 'series'), series)
		return directory

	def load(self, spec: str) -> List[str]:
		return [p.name for p in series.load(spec, '', self.tmp)]

	def test_series_file_order_is_kept(self) -> None:
		directory = self.series_dir(DEMO_1, DEMO_2, DEMO_3,
					    series=f'# not by name\n{DEMO_3}\n\n{DEMO_1}  # first\n{DEMO_2}\n')
		patches = series.load(directory, '', self.tmp)
		self.assertEqual([p.name for p in patches], [DEMO_3, DEMO_1, DEMO_2])
		self.assertEqual(patches[0].subject, 'arm64: cpufeature: name the EPAN level')

	def test_encoded_subject_is_decoded(self) -> None:
		directory = self.series_dir()
		text = read(test_data_path('series_demo', DEMO_1))
		encoded = re.sub(r'^Subject: .*$', 'Subject: [PATCH 1/3] =?UTF-8?q?arm64:_cpufeature:'
				 '_name_the_EPAN_level_=E2=80=94_caf=C3=A9?=', text, count=1, flags=re.M)
		self.assertNotEqual(encoded, text)
		write(os.path.join(directory, DEMO_1), encoded)
		(patch,) = series.load(directory, '', self.tmp)
		self.assertEqual(patch.subject, 'arm64: cpufeature: name the EPAN level \u2014 caf\u00e9')

	def test_without_series_file_by_name_and_only_patches(self) -> None:
		directory = self.series_dir(DEMO_2, DEMO_1)
		write(os.path.join(directory, 'README'), 'not a patch\n')
		self.assertEqual(self.load(directory), [DEMO_1, DEMO_2])

	def test_empty_directory_or_series_file(self) -> None:
		directory = self.series_dir()
		with self.assertRaisesRegex(Error, f'no patches in the directory {directory}: it has no '
					    r'series file, and no \*\.patch, \*\.diff, \*\.eml, \*\.mbox'):
			self.load(directory)
		self.series_dir(DEMO_1, series='# nothing yet\n')
		with self.assertRaisesRegex(Error, f'{directory}/series names no patches'):
			self.load(directory)
		self.series_dir(series=f'{DEMO_1}\nnope.patch\n')
		with self.assertRaisesRegex(Error, f'names patches that do not exist: {directory}/nope.patch'):
			self.load(directory)

	def test_what_git_am_cannot_take_is_named(self) -> None:
		directory = self.series_dir(DEMO_1, 'plain.diff', 'no-diff.eml')
		with self.assertRaises(Error) as e:
			self.load(directory)
		self.assertEqual(str(e.exception), f'SERIES {directory}: git am cannot take these patches:\n'
				 f'  {directory}/no-diff.eml: a mail with no diff: git am would stop at it '
				 '("Patch is empty")\n'
				 f'  {directory}/plain.diff: no From: line with an e-mail address: git am '
				 'takes a mail, not a plain diff (git format-patch makes one)')
		mbox = os.path.join(self.tmp, 'series.mbox')
		write(mbox, read(test_data_path('series_demo', DEMO_1)) +
		      read(test_data_path('unusable', 'no-diff.eml')))
		with self.assertRaisesRegex(Error, f'SERIES {mbox}: git am cannot take this patch:\n'
					    f'  mail 2 of {mbox}: a mail with no diff'):
			self.load(mbox)
		with self.assertRaises(Error) as e:
			self.load(test_data_path('unusable', 'plain.diff'))
		self.assertEqual(str(e.exception), f'SERIES {test_data_path("unusable", "plain.diff")}: '
				 'git am cannot take this patch:\n'
				 f'  {test_data_path("unusable", "plain.diff")}: no From: line with an '
				 'e-mail address: git am takes a mail, not a plain diff (git format-patch '
				 'makes one)')
		write(mbox, '')
		with self.assertRaisesRegex(Error, f"error: empty mbox: '{mbox}'"):
			self.load(mbox)
		write(mbox, read(test_data_path('series_demo', DEMO_1)) +
		      read(test_data_path('series_demo', DEMO_2)))
		self.assertEqual(self.load(mbox), ['mbox #1', 'mbox #2'])

	def test_only_ranges_directories_and_files(self) -> None:
		self.assertEqual(series.kind('refs/pan-kunit/prepared..my-series'), series.Kind.GIT_RANGE)
		self.assertEqual(series.kind('HEAD~2..'), series.Kind.GIT_RANGE)
		self.assertEqual(series.kind(self.tmp), series.Kind.DIRECTORY)
		self.assertEqual(series.kind(test_data_path('series_demo', DEMO_1)), series.Kind.MBOX)
		with self.assertRaisesRegex(Error, "SERIES 'my-series' is no directory or file, and no "
					    'git range BASE..TIP; a branch or commit alone would be its '
					    'whole history, the Debian base included \\(for a branch on the '
					    'prepared tree: refs/pan-kunit/prepared..my-series\\)'):
			series.kind('my-series')
		with self.assertRaisesRegex(Error, r"SERIES 'HEAD\.\.\.my-series': A\.\.\.B means"):
			series.kind('HEAD...my-series')
		with self.assertRaisesRegex(Error, 'SERIES /dev/null is neither a directory nor a file'):
			series.kind('/dev/null')

	@end_to_end
	def test_bad_input_fails_before_setup(self) -> None:
		unusable = self.series_dir(DEMO_1, 'plain.diff')
		os.makedirs(os.path.join(self.tmp, 'empty'))
		out = os.path.join(self.tmp, 'out')
		write(os.path.join(out, 'old.patch'), '')
		repo = os.path.join(self.tmp, 'repo')
		shutil.copytree(test_data_path('fake_repo'), repo)
		shutil.copytree(test_data_path('mutants'), os.path.join(repo, 'mutants', '6.1'))
		for argv, message in (
				(['bisect', 'my-series'], "SERIES 'my-series' is no directory or file"),
				(['bisect', 'HEAD...my-series'], 'A...B means the commits of either side'),
				(['bisect', os.path.join(self.tmp, 'empty')], 'no patches in the directory'),
				(['bisect', unusable], 'plain.diff: no From: line with an e-mail address'),
				(['bisect', test_data_path('series_demo'), '--step', '4'],
				 '--step 4: the series has steps 0 to 3'),
				(['bisect', '--step', '3'], '--step 3: the series has steps 0 to 2'),
				(['mutants', '--only', 'nonesuch'], '--only nonesuch: no such mutant (tools/pan-kunit list'),
				(['mutants', '--only', 'kiled'], '--only kiled: no such mutant; did you mean killed?'),
				(['export', out], f'{out} exists and is not an empty directory'),
				(['export', os.path.join(out, 'old.patch', 'x')],
				 f'cannot create {out}/old.patch/x: {out}/old.patch is not a directory')):
			err = io.StringIO()
			start = time.monotonic()
			with mock.patch.object(targets, 'setup') as setup, contextlib.redirect_stderr(err):
				status = cli.main(['--tree', os.path.join(self.tmp, 'tree')] + argv, repo=repo)
			self.assertLess(time.monotonic() - start, 5)
			self.assertEqual(status, 2, argv)
			setup.assert_not_called()
			self.assertIn(message, err.getvalue())

class StepVerdictTest(unittest.TestCase):
	"""first_bad() and regressions() on synthetic steps."""

	def config(self, status: Status, leaves: Dict[str, str]) -> config_result.ConfigResult:
		return synthetic_config(status, leaves)

	def test_first_bad_is_the_first_of_several(self) -> None:
		good = self.config(Status.PASS, {'a': 'PASS'})
		checked = [steps.Step(0, None, configs=[good]),
			   steps.Step(1, None, configs=[good]),
			   steps.Step(2, None, configs=[good], regressions=['c: arm64_s.a FAIL']),
			   steps.Step(3, None, configs=[self.config(Status.BUILD_ERROR, {})]),
			   steps.Step(4, None, configs=[good], regressions=['c: arm64_s.b FAIL'])]
		bad = series_bisect.first_bad(checked)
		self.assertIsNotNone(bad)
		assert bad is not None
		self.assertEqual(bad.number, 2)
		self.assertIsNone(series_bisect.first_bad(checked[:2]))

	def test_crash_or_hang_after_a_pass_is_a_regression(self) -> None:
		before = [self.config(Status.PASS, {'a': 'PASS', 'b': 'PASS'})]
		for status in (Status.CRASH, Status.TIMEOUT):
			after = [self.config(status, {'a': 'PASS'})]
			self.assertEqual(series_bisect.regressions(before, after), [f'c: {status}'])
		# A case that crashed (ERROR) counts as failed, one that vanished does not.
		after = [self.config(Status.CRASH, {'a': 'ERROR'})]
		self.assertEqual(series_bisect.regressions([self.config(Status.CRASH, {'a': 'PASS'})], after),
				 ['c: arm64_s.a ERROR'])
		# What was broken before is no regression when it stays broken.
		self.assertEqual(series_bisect.regressions([self.config(Status.CRASH, {})],
						   [self.config(Status.CRASH, {})]), [])

	def test_no_tests_is_a_junit_error(self) -> None:
		(suite,) = junit.config_suites(synthetic_config(Status.NO_TESTS, {}))
		error = suite.find('testcase/error')
		assert error is not None
		self.assertEqual((error.get('type'), error.get('message')), ('no_tests', 'no test ran'))

	def test_junit_failed_config_without_cases_and_expected_no_tests(self) -> None:
		(suite,) = junit.config_suites(synthetic_config(Status.FAIL, {}))
		self.assertEqual(suite.get('name'), 'linux/c')
		failure = suite.find('testcase/failure')
		assert failure is not None
		self.assertEqual(failure.get('message'), junit.NO_CASE_FAILED[1])
		(suite,) = junit.config_suites(synthetic_config(Status.NO_TESTS, {}),
					       'step-00', no_tests_expected=True)
		self.assertEqual((suite.get('errors'), suite.get('skipped')), ('0', '1'))

	def test_pass_to_no_tests_is_a_regression(self) -> None:
		before = [self.config(Status.PASS, {'a': 'PASS'})]
		after = [self.config(Status.NO_TESTS, {})]
		self.assertEqual(series_bisect.regressions(before, after), ['c: no_tests'])
		self.assertEqual(series_bisect.regressions(after, after), [])


if __name__ == '__main__':
	unittest.main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of tools/pan-kunit bisect, end to end, with the fake kunit_tool.

import contextlib
import json
import os
import re
import shutil
import subprocess
import unittest
import xml.etree.ElementTree as ET
from unittest import mock

from pan_kunit.commands import cli, series_bisect
from pan_kunit.host import summary
from pan_kunit.results.config_result import Status
from pan_kunit.trees import series, targets, worktree
from testlib import (STALE_PATCH, test_data_path, read, write, TtyStringIO, without_status,
		     from_scratch, CheckTestCase, fake_steps, plain_printer,
		     setUpModule, tearDownModule)

class BisectTest(CheckTestCase):

	@from_scratch
	def test_patches_dir_starts_from_base_plus_suites(self) -> None:
		report = os.path.join(self.tmp, 'bisect.json')
		status, output = self.run_cli('bisect', '--json', report)
		self.assertEqual(status, 0, output)
		self.assertIn('step 0/2 start: ok', output)
		self.assertIn("not in this step's Kconfig, left out: "
			      'ARM64_CPUFEATURE_FAKE_KUNIT_TEST', output)
		self.assertIn('bisect: all 2 patches good', output)
		# Quiet builds and boots: a step has a line of its own.
		self.assertNotRegex(output, r'(^|\n)(building|built|booting|boot) ')
		data = json.loads(read(report))
		self.assertIsNone(data['first_bad'])
		self.assertEqual([s['step'] for s in data['steps']], [0, 1, 2])
		self.assertEqual(data['steps'][0]['kunitconfig_left_out'],
				 ['ARM64_CPUFEATURE_FAKE_KUNIT_TEST'])
		self.assertEqual(data['steps'][2]['kunitconfig_left_out'], [])
		wt = self.worktree()
		step_2 = data['steps'][2]
		self.assertEqual([g['name'] for g in step_2['configs'][0]['sub_groups']],
				 ['arm64_cpufeature_field', 'arm64_cpufeature_match'])
		self.assertEqual((step_2['configs'][0]['git_commit'], step_2['configs'][0]['git_branch']),
				 (step_2['commit'], None))
		# Each step's logs and boots in a directory of its own, named.
		for step in data['steps']:
			logs = os.path.join(wt, '.pan-kunit', 'bisect', f'step-{step["step"]:02d}')
			self.assertEqual(step['logs'], logs)
			self.assertIn(f'step {step["step"]}/2 ', output)
			self.assertRegex(output, f'step {step["step"]}/2 .*; logs: {logs}\\)(; about [0-9]+ s left)?\n')
			self.assertEqual(step['configs'][1]['files']['console'],
					 os.path.join(logs, 'exec', 'skip_nopan', 'test.log'))
			self.assertTrue(os.path.isfile(os.path.join(logs, 'logs', 'exec-pass_pan.log')))
		log = subprocess.run(['git', '-C', wt, 'log', '--format=%s', '-3'], check=True,
				     text=True, stdout=subprocess.PIPE).stdout.splitlines()
		self.assertEqual(log[2], worktree.SUITES_FIRST_SUBJECT)
		# One build directory per kconfig, reused by every step.
		builds = {b[2] for b in self.traced('build')}
		self.assertEqual(len(builds), 1)
		self.assertTrue(builds.pop().startswith(os.path.join(wt, '.pan-kunit', 'build')))

	def test_demo_series_names_patch_2_and_leaves_the_user_tree_alone(self) -> None:
		self.setup_tree()
		cpufeature = os.path.join(self.tree, 'arch/arm64/kernel/cpufeature.c')
		write(cpufeature, read(cpufeature) + '/* my uncommitted edit */\n')
		before = self.user_state()
		tally = os.path.join(self.tmp, 'summary')
		with mock.patch.dict(os.environ, {summary.ENV: tally}):
			status, output = self.run_cli('bisect', test_data_path('series_demo'))
		self.assertEqual(status, 1, output)
		self.assertEqual(read(tally), 'bisect: 3 passed, 1 failed\n')
		self.assertIn('step 2/3 0002-arm64-cpufeature-match-with-greater-than.patch: '
			      'REGRESSED: 1', output)
		self.assertIn('bisect: first bad patch: 2 0002-arm64-cpufeature-match-with-'
			      'greater-than.patch: arm64: cpufeature: match with greater-than', output)
		self.assertIn('    pass_pan: arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu '
			      'FAIL', output)
		self.assertIn(f'reproduce that step: tools/pan-kunit --tree {self.tree} bisect '
			      f'{test_data_path("series_demo")} --config=pass_pan '
			      '--config=skip_nopan --step=2', output)
		# Step 3 still fails, but what failed at step 2 is no regression.
		self.assertRegex(output, r'\n3 +0003-\S+ +- +2/2/0 +ok \(fail\)\n')
		# Every step kept its own console: step 1's passed, step 2's failed.
		steps = os.path.join(self.worktree(), '.pan-kunit', 'bisect')
		self.assertEqual(read(os.path.join(steps, 'step-01', 'exec', 'pass_pan', 'test.log')),
				 read(test_data_path('console', 'pass.log')))
		self.assertEqual(read(os.path.join(steps, 'step-02', 'exec', 'pass_pan', 'test.log')),
				 read(test_data_path('console', 'fail.log')))
		self.assertEqual(self.user_state(), before)
		self.assertIn('/* my uncommitted edit */', read(cpufeature))
		self.assertNotIn('greater-than', self.git('log', '--format=%s', '--branches', '--tags'))

	def test_junit_of_patches_dir_has_no_error_at_step_0(self) -> None:
		xml = os.path.join(self.tmp, 'bisect.xml')
		with fake_steps(Status.NO_TESTS, Status.PASS, Status.PASS):
			status, output = self.run_cli('bisect', '--junit', xml)
		self.assertEqual(status, 0, output)
		self.assertIn('step 0/2 start: ok (no_tests)', output)
		top = ET.parse(xml).getroot()
		self.assertEqual(top.get('errors'), '0')
		step_0 = [s for s in top.findall('testsuite')
			  if (s.get('name') or '').startswith('step-00/')]
		self.assertEqual([s.get('skipped') for s in step_0], ['1'])

	def test_progress_on_a_terminal(self) -> None:
		out = TtyStringIO()
		with mock.patch.dict(os.environ, {'COLUMNS': '300'}), contextlib.redirect_stdout(out), \
		     contextlib.redirect_stderr(out):
			status = cli.main(['--tree', self.tree, 'bisect', '--config', 'pass_pan',
					   '--config', 'skip_nopan'], repo=self.repo)
		text = out.getvalue()
		self.assertEqual(status, 0, text)
		# The status line: the step, its build, its boots, the time left,
		# each drawn after a line or after clearing the one before.
		self.assertRegex(text, r'(?:\n|\x1b\[K)step 0/2 start \| building 6.1 pass_pan, skip_nopan: '
				 r'configuring, 0:0[0-9]\r')
		self.assertRegex(text, r'\x1b\[Kstep 1/2 0001-\S+ \| building 6.1 pass_pan, skip_nopan: '
				 r'configuring, 0:0[0-9] \| about [0-9]+ s left\r')
		self.assertRegex(text, r'\x1b\[Kstep 2/2 0002-\S+ \| booting pass_pan, skip_nopan 0:0[0-9] '
				 r'\| about [0-9]+ s left\r')
		# It never mixes with the lines, which say what they say on a log.
		plain = without_status(text)
		self.assertNotIn('\r', plain)
		self.assertNotIn(' | ', plain)
		self.assertRegex(plain, r'\nstep 0/2 start: ok \([0-9.]+ s; logs: [^)]*\); about [0-9]+ s left\n')
		self.assertRegex(plain, r'\nstep 2/2 0002-\S+: ok \([0-9.]+ s; logs: [^)]*\)\n')
		self.assertTrue(text.endswith('bisect: all 2 patches good: every step built, and no '
					      'case that passed stopped passing\n'
					      'bisect: 3 passed, 0 failed\n'), text[-300:])
		self.assertNotRegex(text, r'\d+ \w+ in [0-9.]+ ?s')

	def test_one_step_again(self) -> None:
		status, output = self.run_cli('bisect', test_data_path('series_demo'), '--step', '2')
		self.assertEqual(status, 1, output)
		self.assertNotIn('step 1/3', output)
		self.assertIn('step 2/3 0002-arm64-cpufeature-match-with-greater-than.patch: ok (fail)',
			      output)
		status, output = self.run_cli('bisect', test_data_path('series_demo'), '--step', '4')
		self.assertEqual(status, 2, output)
		self.assertIn('--step 4: the series has steps 0 to 3', output)

	def test_kunit_options_are_passed_on_and_reproduced(self) -> None:
		write(self.trace, '')
		status, output = self.run_cli('bisect', test_data_path('series_demo'), '--step', '1',
					      '--filter_glob', 'arm64_*', '--kconfig_add', 'CONFIG_KASAN=y')
		self.assertEqual(status, 0, output)
		for argv in self.traced('argv'):
			self.assertEqual(argv[-1], 'arm64_*' if argv[1] == 'exec' else
					 '--kconfig_add=CONFIG_KASAN=y')
		args = cli.parse_args(['bisect', 'a..b', '--config', 'pass_pan', '--filter_glob',
				       'arm64_*', '--kconfig_add', '# CONFIG_X is not set',
				       '--make_options', 'W=1'])
		self.assertEqual(series_bisect.reproduce(cli.bisect_request(args), '/t', 2),
				 "tools/pan-kunit --tree /t bisect a..b --config=pass_pan "
				 "'--filter_glob=arm64_*' '--kconfig_add=# CONFIG_X is not set' "
				 '--make_options=W=1 --step=2')

	def test_mbox_and_git_range(self) -> None:
		mbox = os.path.join(self.tmp, 'series.mbox')
		with open(mbox, 'w') as f:
			for name in sorted(os.listdir(test_data_path('series_demo'))):
				if name.endswith('.patch'):
					f.write(read(test_data_path('series_demo', name)))
		status, output = self.run_cli('bisect', mbox)
		self.assertEqual(status, 1, output)
		self.assertIn('bisect: first bad patch: 2 mbox #2: arm64: cpufeature: match with '
			      'greater-than', output)
		self.git('checkout', '-q', '-b', 'my-series')
		for name in ('0001-arm64-cpufeature-name-the-PAN-field.patch',
			     '0002-arm64-cpufeature-match-with-greater-than.patch'):
			self.git('am', '-q', test_data_path('series_demo', name))
		self.git('checkout', '-q', 'pan-kunit')
		status, output = self.run_cli('bisect', 'refs/pan-kunit/prepared..my-series')
		self.assertEqual(status, 1, output)
		self.assertRegex(output, r'bisect: first bad patch: 2 0002-[0-9a-f]{12}.patch: '
				 'arm64: cpufeature: match with greater-than')
		# What git says of a range, before setup and any build.
		write(self.trace, '')
		status, output = self.run_cli('bisect', 'HEAD..nosuchbranch')
		self.assertEqual(status, 2, output)
		self.assertIn("pan-kunit bisect: error: SERIES 'HEAD..nosuchbranch' is no directory or file, "
			      f'and git cannot read it as a range of {self.tree}:\n'
			      "fatal: ambiguous argument 'HEAD..nosuchbranch': unknown revision", output)
		status, output = self.run_cli('bisect', 'my-series..pan-kunit')
		self.assertEqual(status, 2, output)
		self.assertIn(f'the git range my-series..pan-kunit of {self.tree} is empty: no commit '
			      'to check', output)
		status, output = self.run_cli('bisect', 'refs/pan-kunit/prepared..my-series',
					      '--step', '3')
		self.assertEqual(status, 2, output)
		self.assertIn('--step 3: the series has steps 0 to 2', output)
		self.git('checkout', '-q', 'my-series')
		self.git('commit', '-q', '--allow-empty', '-m', 'arm64: nothing')
		empty = self.git('rev-parse', 'HEAD')
		self.git('checkout', '-q', 'pan-kunit')
		status, output = self.run_cli('bisect', 'refs/pan-kunit/prepared..my-series')
		self.assertEqual(status, 2, output)
		self.assertIn('SERIES refs/pan-kunit/prepared..my-series: git am cannot take this '
			      f'commit:\n  commit {empty}: an empty commit, no diff for git am to apply',
			      output)
		self.assertEqual(self.traced('build'), [])

	def test_mistyped_path_or_range_is_refused_before_setup(self) -> None:
		with mock.patch.object(targets, 'setup') as setup:
			for spec in ('../my-series', './my..series', 'my-series/..x', '/tmp/a..b'):
				status, output = self.run_cli('bisect', spec)
				self.assertEqual(status, 2, output)
				self.assertIn(f'SERIES {spec}: no such file or directory', output)
			status, output = self.run_cli('bisect', 'HEAD..nosuchbranch')
			self.assertEqual(status, 2, output)
			self.assertIn("fatal: ambiguous argument 'HEAD..nosuchbranch'", output)
			shutil.rmtree(self.tree)
			status, output = self.run_cli('bisect', 'refs/pan-kunit/prepared..my-series')
			self.assertEqual(status, 2, output)
			self.assertIn('is a git range, and there is no tree', output)
		setup.assert_not_called()

	def test_patch_that_does_not_apply_stops_and_is_named(self) -> None:
		series = os.path.join(self.tmp, 'series')
		os.mkdir(series)
		shutil.copy(test_data_path('series_demo', '0001-arm64-cpufeature-name-the-PAN-field.patch'),
			    series)
		shutil.copy(test_data_path('patches', STALE_PATCH), series)
		status, output = self.run_cli('bisect', series)
		self.assertEqual(status, 2, output)
		self.assertIn(f'patch 2, {os.path.join(series, STALE_PATCH)}, does not apply to '
			      'linux-source-6.1 (on step 1):', output)
		self.assertIn('error: patch failed: arch/arm64/kernel/cpufeature.c', output)
		self.assertIn('nothing was built; is the series written for another kernel? '
			      '(--kernel)', output)
		# Refused before any build: no step was checked.
		self.assertNotIn('step 0/2', output)
		self.assertEqual(self.traced('build'), [])

	def test_one_check_at_a_time(self) -> None:
		self.setup_tree()
		with worktree.locked(plain_printer(), self.tree):
			status, output = self.run_cli('bisect')
		self.assertEqual(status, 2, output)
		self.assertRegex(output, f'pan-kunit bisect: error: pan-kunit pid {os.getpid()} '
				 r'\(.*, since [-0-9]+ [:0-9]+\) is using ' + re.escape(self.worktree()) +
				 '; wait for it to finish, or stop it\n')
		status, output = self.run_cli('bisect')
		self.assertEqual(status, 0, output)

	def test_build_failure_is_a_bad_step(self) -> None:
		series = os.path.join(self.tmp, 'series')
		os.mkdir(series)
		text = read(test_data_path('series_demo',
					   '0002-arm64-cpufeature-match-with-greater-than.patch'))
		write(os.path.join(series, '0001-break-the-build.patch'),
		      text.replace('+fail', '+builderror'))
		report = os.path.join(self.tmp, 'bisect.json')
		xml = os.path.join(self.tmp, 'bisect.xml')
		status, output = self.run_cli('bisect', series, '--json', report, '--junit', xml)
		self.assertEqual(status, 1, output)
		self.assertIn('BUILD FAILED: pass_pan, skip_nopan', output)
		self.assertIn("error: expected ';' before '}' token", output)
		# The step that did not build has no boot to read, and not the step 0's.
		step_1 = json.loads(read(report))['steps'][1]
		for record in step_1['configs']:
			self.assertEqual((record['status'], record['sub_groups']), ('build_error', []))
			self.assertEqual(sorted(record['files']), ['build_log', 'record'])
		self.assertFalse(os.path.exists(os.path.join(step_1['logs'], 'exec', 'pass_pan',
							     'test.log')))
		self.assertIn("error: expected ';' before '}' token",
			      read(step_1['configs'][0]['files']['build_log']))
		suites = {s.get('name'): s for s in ET.parse(xml).getroot().findall('testsuite')}
		self.assertEqual(sorted(suites), [
			'bisect', 'step-00/linux-6.1.192/pass_pan/arm64_cpufeature_field',
			'step-00/linux-6.1.192/pass_pan/arm64_cpufeature_match',
			'step-00/linux-6.1.192/skip_nopan/arm64_cpufeature_field',
			'step-00/linux-6.1.192/skip_nopan/arm64_cpufeature_match',
			'step-01/linux-6.1.192/pass_pan', 'step-01/linux-6.1.192/skip_nopan'])
		steps = suites['bisect'].findall('testcase')
		self.assertEqual([(c.get('name'), c.find('failure') is not None) for c in steps],
				 [('step 0 start', False), ('step 1 0001-break-the-build.patch', True)])
		self.assertEqual(steps[1].find('failure').get('message'),  # type: ignore[union-attr]
				 'BUILD FAILED: pass_pan, skip_nopan')

	def test_broken_start_is_reported_exit_1(self) -> None:
		with fake_steps(Status.BUILD_ERROR, Status.PASS,
				     Status.PASS, Status.PASS):
			status, output = self.run_cli('bisect', test_data_path('series_demo'))
		self.assertEqual(status, 1, output)
		self.assertIn('bisect: the start (step 0) is broken, no patch can be judged '
			      'against it: c: build_error', output)
		self.assertNotIn('step 1/3', output)

	def test_no_tests_is_not_all_good(self) -> None:
		no = Status.NO_TESTS
		# A given series whose start runs no test is refused at once.
		with fake_steps(no, no, no, no):
			status, output = self.run_cli('bisect', test_data_path('series_demo'))
		self.assertEqual(status, 2, output)
		self.assertIn('no case passed at the start (step 0, ok (no_tests))', output)
		self.assertNotIn('step 1/3', output)
		# A pass that becomes no tests is a regression.
		with fake_steps(Status.PASS, no, no, no):
			status, output = self.run_cli('bisect', test_data_path('series_demo'))
		self.assertEqual(status, 1, output)
		self.assertIn('bisect: first bad patch: 1 ', output)
		self.assertIn('    c: no_tests', output)
		# --step N fails on no tests.
		with fake_steps(no, no, no, no):
			status, output = self.run_cli('bisect', test_data_path('series_demo'), '--step', '2')
		self.assertEqual(status, 1, output)
		# patches/ whose steps all run no test is refused; its step 0 alone is fine.
		with fake_steps(no, no, no):
			status, output = self.run_cli('bisect')
		self.assertEqual(status, 2, output)
		self.assertIn('no step passed any case', output)
		with fake_steps(no, Status.PASS, Status.PASS):
			status, output = self.run_cli('bisect')
		self.assertEqual(status, 0, output)
		self.assertIn('step 0/2 start: ok (no_tests)', output)
		with fake_steps(no):
			status, output = self.run_cli('bisect', '--step', '0')
		self.assertEqual(status, 0, output)


if __name__ == '__main__':
	unittest.main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of tools/pan-kunit mutants: end to end with the fake kunit_tool, and
# its verdicts (pan_kunit.commands.mutants.judge*).

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import unittest
import xml.etree.ElementTree as ET
from typing import Any, List, Set
from unittest import mock

from pan_kunit import Error
from pan_kunit.commands import cli, mutants, steps
from pan_kunit.host import summary
from pan_kunit.kunit_tool import configs
from pan_kunit.matrix import pipeline, plan
from pan_kunit.results import config_result
from pan_kunit.results.config_result import Status
from pan_kunit.trees import tree
from testlib import (test_data_path, read, write, from_scratch, TempDirTestCase, CheckTestCase,
		     synthetic_config, setUpModule, tearDownModule, plain_printer, plain_progress,
		     build_settings)

class MutantsTest(CheckTestCase):

	def setUp(self) -> None:
		super().setUp()
		shutil.copytree(test_data_path('mutants'), os.path.join(self.repo, 'mutants', '6.1'))

	def test_verdicts(self) -> None:
		report = os.path.join(self.tmp, 'mutants.json')
		tally = os.path.join(self.tmp, 'summary')
		with mock.patch.dict(os.environ, {summary.ENV: tally}):
			status, output = self.run_cli('mutants', '--json', report)
		self.assertEqual(status, 1, output)
		# Killed mutants pass; survived and stale ones fail; pending ones neither.
		self.assertEqual(read(tally), 'mutants: 2 passed, 3 failed\n')
		self.assertIn('baseline (the prepared tree): ok', output)
		verdicts = {m['name']: m for m in json.loads(read(report))['mutants']}
		self.assertEqual({name: m['verdict'] for name, m in verdicts.items()}, {
			'crash': 'killed', 'half': 'survived', 'killed': 'killed', 'pending': 'pending',
			'stale': 'does not apply', 'survived': 'survived'})
		self.assertEqual(verdicts['killed']['failed_cases'], {
			'pass_pan': ['arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu'],
			'skip_nopan': ['arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu']})
		self.assertEqual(verdicts['crash']['detail'], 'pass_pan: crash; skip_nopan: crash')
		self.assertEqual(verdicts['pending']['detail'], 'not landed yet: arm64_pan')
		self.assertEqual(verdicts['killed']['detail'],
				 'pass_pan: 1 failed: arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu; '
				 'skip_nopan: 1 failed: arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu'
				 ' (not landed yet: arm64_pan)')
		self.assertEqual(verdicts['half']['detail'],
				 'no case of arm64_cpufeature_field failed; failed: '
				 'arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu')
		self.assertIn('error: patch failed: arch/arm64/kernel/cpufeature.c:1',
			      verdicts['stale']['detail'])
		self.assertRegex(output, r'\nsurvived +arm64_cpufeature_match +survived +no case of '
				 r'arm64_cpufeature_match failed\n')
		self.assertIn(': 2 killed, 2 survived, 1 pending, 1 does not apply\n'
			      'mutants: 2 passed, 3 failed\n', output)
		# No line reads as a test runner's `N tests in T s` but the closing one.
		self.assertNotRegex(output, r'\d+ \w+ in [0-9.]+ ?s')
		# The time left, from the steps that built and booted.
		self.assertRegex(output, r'\nmutant 1/6 crash: killed \([0-9.]+ s; logs: [^)]*\); about [0-9]+ s '
				 r'left\n')
		self.assertRegex(output, r'\nmutant 6/6 survived: survived \([0-9.]+ s; logs: [^)]*\)\n')
		# Each mutant was applied alone, and the worktree is clean again.
		# Each mutant's logs and boots, and the baseline's, in a directory of their own.
		wt = self.worktree()
		# Its time, whatever the machine's load (a second or more on a busy one).
		self.assertRegex(output, r'\nbaseline \(the prepared tree\): ok \([0-9]+\.[0-9] s; ')
		# Said before the baseline's build, which takes minutes on a cold tree.
		self.assertLess(output.index('baseline (the prepared tree): building and booting 2 '
					     'configs, which must pass before any mutant is judged ...\n'),
				output.index('baseline (the prepared tree): ok'))
		self.assertIn(f'; logs: {wt}/.pan-kunit/baseline)\n', output)
		self.assertEqual(json.loads(read(report))['baseline']['logs'],
				 os.path.join(wt, '.pan-kunit', 'baseline'))
		for name in ('crash', 'killed', 'survived'):
			logs = os.path.join(wt, '.pan-kunit', 'mutants', name)
			self.assertEqual(verdicts[name]['logs'], logs)
			self.assertRegex(output, f'mutant [0-9]/6 {name}: .*; logs: {logs}\\)(; about [0-9]+ s left)?\n')
		self.assertIn('Kernel panic', read(os.path.join(wt, '.pan-kunit', 'mutants', 'crash',
							       'exec', 'pass_pan', 'test.log')))
		self.assertEqual((verdicts['stale']['logs'], verdicts['pending']['logs']), (None, None))
		# Each mutant was applied alone, and the worktree is clean again.
		self.assertEqual(subprocess.run(['git', '-C', wt, 'status', '--porcelain'],
						check=True, text=True, stdout=subprocess.PIPE).stdout, '')
		self.assertFalse(os.path.exists(os.path.join(wt, 'fake_mode')))

	def test_judged_on_the_largest_kconfig_group_first(self) -> None:
		# pass_pan and skip_nopan share a kernel; pass_ttbr0 has its own.
		out = io.StringIO()
		with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
			status = cli.main(['--tree', self.tree, 'mutants', '--only', 'killed',
					   '--only', 'survived', '--config', 'pass_ttbr0',
					   '--config', 'pass_pan', '--config', 'skip_nopan'], repo=self.repo)
		self.assertEqual(status, 1, out.getvalue())
		ttbr0_builds = [b for b in self.traced('build') if b[1] == 'pass_ttbr0']
		other_builds = [b for b in self.traced('build') if b[1] != 'pass_ttbr0']
		# The baseline builds both; killed needs the first group only;
		# survived is judged on every group.
		self.assertEqual((len(other_builds), len(ttbr0_builds)), (3, 2))
		self.assertRegex(out.getvalue(), r'\nkilled +.* killed +pass_pan: 1 failed: .*'
				 r'\(pass_ttbr0: not needed, not built\)')
		self.assertRegex(out.getvalue(), r'\nsurvived +arm64_cpufeature_match +survived +'
				 r'no case of arm64_cpufeature_match failed\n')

	def test_kill_on_group_first(self) -> None:
		killed = read(os.path.join(self.repo, 'mutants', '6.1', 'killed.patch'))
		write(os.path.join(self.repo, 'mutants', '6.1', 'ttbr0.patch'),
		      killed.replace('Must-Fail: arm64_cpufeature_match, arm64_pan\n',
				     'Must-Fail: arm64_cpufeature_match\nKill-On: pass_ttbr0\n'))
		out = io.StringIO()
		with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
			status = cli.main(['--tree', self.tree, 'mutants', '--only', 'ttbr0',
					   '--config', 'pass_ttbr0', '--config', 'pass_pan',
					   '--config', 'skip_nopan'], repo=self.repo)
		self.assertEqual(status, 0, out.getvalue())
		ttbr0_builds = [b for b in self.traced('build') if b[1] == 'pass_ttbr0']
		other_builds = [b for b in self.traced('build') if b[1] != 'pass_ttbr0']
		# The baseline builds both; the mutant only the group of its Kill-On:,
		# though it is the smaller one.
		self.assertEqual((len(other_builds), len(ttbr0_builds)), (1, 2))
		self.assertRegex(out.getvalue(), r'\nttbr0 +.* killed +pass_ttbr0: 1 failed: .*'
				 r'\(pass_pan, skip_nopan: not needed, not built\)')

	def test_kill_on_unknown_config_is_refused_before_any_work(self) -> None:
		killed = read(os.path.join(self.repo, 'mutants', '6.1', 'killed.patch'))
		write(os.path.join(self.repo, 'mutants', '6.1', 'typo.patch'),
		      killed.replace('Must-Fail:', 'Kill-On: pass_ttbr1\nMust-Fail:'))
		status, output = self.run_cli('mutants', '--only', 'typo')
		self.assertEqual(status, 2, output)
		self.assertIn('typo.patch: Kill-On: names pass_ttbr1, which is no QEMU config; '
			      'the configs are: builderror_pan, ', output)
		self.assertEqual(self.traced('build'), [])

	def test_all_killed_or_pending_passes(self) -> None:
		status, output = self.run_cli('mutants', '--only', 'killed', '--only', 'pending',
					      '--kconfig_add', 'CONFIG_KASAN=y', '--make_options', 'W=1')
		self.assertEqual(status, 0, output)
		builds = [a for a in self.traced('argv') if a[1] == 'build']
		self.assertEqual(len(builds), 2)  # the baseline's and the killed mutant's
		for argv in builds:
			self.assertEqual(argv[-2:], ['--kconfig_add=CONFIG_KASAN=y', '--make_options=W=1'])
		xml = os.path.join(self.tmp, 'mutants.xml')
		status, output = self.run_cli('mutants', '--only', 'killed', '--only', 'pending',
					      '--junit', xml)
		self.assertEqual(status, 0, output)
		top = ET.parse(xml).getroot()
		self.assertEqual((top.get('tests'), top.get('failures'), top.get('errors')), ('17', '0', '0'))
		(verdicts,) = [s for s in top.findall('testsuite') if s.get('name') == 'mutants']
		self.assertEqual([(c.get('name'), [e.tag for e in c]) for c in verdicts], [
			('killed', []), ('pending', ['skipped'])])
		self.assertEqual(sorted(s.get('name') or '' for s in top.findall('testsuite'))[0],
				 'baseline/linux-6.1.192/pass_pan/arm64_cpufeature_field')
		status, output = self.run_cli('mutants', '--only', 'nonesuch')
		self.assertEqual(status, 2, output)
		self.assertIn('--only nonesuch: no such mutant (tools/pan-kunit list names every mutant of', output)
		self.assertLess(max(len(line) for line in output.splitlines()), 300)

	def test_red_baseline_is_an_error(self) -> None:
		# Installed with the suites, at the top of the tree.
		write(os.path.join(self.repo, 'kunit', 'fake_mode'), 'fail\n')
		status, output = self.run_cli('mutants', '--only', 'killed')
		self.assertEqual(status, 2, output)
		self.assertIn('the baseline does not pass (pass_pan: fail, skip_nopan: fail)', output)

	def test_no_header_mutants_leaves_out_those_that_change_a_header(self) -> None:
		killed = read(os.path.join(self.repo, 'mutants', '6.1', 'killed.patch'))
		write(os.path.join(self.repo, 'mutants', '6.1', 'header.patch'),
		      killed.replace('Subject: feature_matches uses >', 'Subject: a header').replace(
			      'diff --git a/fake_mode b/fake_mode\n',
			      'diff --git a/arch/arm64/include/asm/x.h b/arch/arm64/include/asm/x.h\n'))
		self.assertTrue(mutants.load_mutant(os.path.join(
			self.repo, 'mutants', '6.1', 'header.patch')).of_header())
		self.assertFalse(mutants.load_mutant(os.path.join(
			self.repo, 'mutants', '6.1', 'killed.patch')).of_header())
		write(os.path.join(self.repo, 'sysreg.patch'), killed.replace(
			'diff --git a/fake_mode b/fake_mode\n',
			'diff --git a/arch/arm64/tools/sysreg b/arch/arm64/tools/sysreg\n'))
		self.assertTrue(mutants.load_mutant(os.path.join(self.repo, 'sysreg.patch')).of_header())
		status, output = self.run_cli('mutants', '--only', 'killed', '--only', 'header',
					      '--no-header-mutants')
		self.assertEqual(status, 0, output)
		self.assertIn('mutants of 6.1: left out, as they change a header '
			      '(--no-header-mutants): header\n', output)
		self.assertIn('mutant 1/1 killed: killed', output)
		self.assertNotIn('mutant 1/1 header', output)
		status, output = self.run_cli('mutants', '--only', 'header', '--no-header-mutants')
		self.assertEqual(status, 0, output)
		self.assertIn('mutants: none to check on linux-source-6.1', output)
		# A run of their own, outside CI: the header mutants alone.
		status, output = self.run_cli('mutants', '--only', 'killed', '--only', 'header',
					      '--only-header-mutants')
		self.assertIn('mutants of 6.1: left out, as they change no header '
			      '(--only-header-mutants): killed\n', output)
		self.assertIn('mutant 1/1 header: ', output)
		self.assertNotIn('mutant 1/1 killed', output)
		stderr = io.StringIO()
		with contextlib.redirect_stderr(stderr), self.assertRaises(SystemExit) as e:
			cli.parse_args(['mutants', '--no-header-mutants', '--only-header-mutants'])
		self.assertEqual(e.exception.code, 2)
		self.assertIn('argument --only-header-mutants: not allowed with argument '
			      '--no-header-mutants', stderr.getvalue())

	def test_a_seeded_sample_of_the_written_mutants(self) -> None:
		# What CI checks: N of them, the same N for a seed, whatever order
		# the files were read in; all of them without --sample.
		status, output = self.run_cli('mutants', '--sample', '2', '--seed', '3')
		checked = sorted(re.findall(r'^mutant [12]/2 (\S+):', output, re.M))
		self.assertEqual(len(checked), 2, output)
		self.assertIn('mutants of 6.1: checking 2 of 6, drawn with seed 3 '
			      '(--sample 2 --seed 3); without --sample, all\n', output)
		kernel = mock.Mock()
		kernel.name = '6.1'
		found: List[Any] = [mock.Mock() for _ in range(6)]
		for mutant, name in zip(found, ['crash', 'half', 'killed', 'pending', 'stale',
						'survived']):
			mutant.name = name
		request = cli.mutants_request(cli.parse_args(['mutants', '--sample', '2',
							      '--seed', '3']))
		with contextlib.redirect_stdout(io.StringIO()):
			forward = [m.name for m in mutants._sampled(plain_printer(), request, kernel, found)]
			backward = [m.name for m in mutants._sampled(plain_printer(), request, kernel,
								    found[::-1])]
		self.assertEqual(forward, checked)
		self.assertEqual(backward, checked)
		request = cli.mutants_request(cli.parse_args(['mutants']))
		self.assertEqual(mutants._sampled(plain_printer(), request, kernel, found), found)
		for argv, error in ((['--sample', '2', '--only', 'killed'],
				     '--only names the mutants to check; --sample draws them: give one'),
				    (['--seed', '3'], '--seed seeds the sample: give --sample N too')):
			status, output = self.run_cli('mutants', *argv)
			self.assertEqual(status, 2, output)
			self.assertIn(error, output)

	def test_header_mutants_wanted_by_choice(self) -> None:
		want = mutants.HeaderMutants
		self.assertEqual([(c.wants(False), c.wants(True)) for c in want],
				 [(True, True), (True, False), (False, True)])
		self.assertEqual([c.option() for c in want],
				 ['', '--no-header-mutants', '--only-header-mutants'])

	def test_header_is_required(self) -> None:
		write(os.path.join(self.repo, 'mutants', '6.1', 'bare.patch'), 'diff --git a/x b/x\n')
		status, output = self.run_cli('mutants')
		self.assertEqual(status, 2, output)
		self.assertIn('bare.patch: a mutant needs "Subject:" and "Must-Fail: SUITE[, SUITE]"',
			      output)

class TwoKernelsTest(CheckTestCase):

	@from_scratch
	def test_one_json_and_junit_of_both(self) -> None:
		# Each kernel wrote the file in turn: the last kernel's was all it held.
		shutil.copytree(os.path.join(self.repo, 'patches', '6.1'),
				os.path.join(self.repo, 'patches', '6.12'))
		for kernel in ('6.1', '6.12'):
			shutil.copytree(test_data_path('mutants'), os.path.join(self.repo, 'mutants', kernel))
		shutil.copyfile(self.tarball, os.path.join(self.tmp, 'linux-source-6.12.tar.xz'))
		report, xml = os.path.join(self.tmp, 'm.json'), os.path.join(self.tmp, 'm.xml')
		status, output = self.cli_main('mutants', '--config', 'pass_pan', '--only', 'killed',
					       '--json', report, '--junit', xml)
		self.assertEqual(status, 0, output)
		data = json.loads(read(report))
		self.assertEqual([(k['kernel'], [m['name'] for m in k['mutants']]) for k in data['kernels']],
				 [('6.1', ['killed']), ('6.12', ['killed'])])
		suites = [s.get('name') for s in ET.parse(xml).getroot().findall('testsuite')]
		self.assertEqual([s for s in suites if (s or '').startswith('mutants')],
				 ['mutants/6.1', 'mutants/6.12'])
		self.assertEqual(len([s for s in suites if (s or '').startswith('baseline/')]), 4)

class JudgeByGroupsTest(TempDirTestCase):
	"""mutants.judge_by_groups() with pipeline.build_and_boot as a stand-in."""

	def test_each_group_keeps_the_consoles_of_those_before(self) -> None:
		matrix: List[configs.QemuConfig] = [mock.Mock(), mock.Mock()]
		matrix[0].name, matrix[1].name = 'a', 'b'
		def fake_run(run: plan.MatrixPlan, *args: Any) -> List[config_result.ConfigResult]:
			console = os.path.join(run.outputs.exec_dir(run.configs[0]), 'test.log')
			os.makedirs(os.path.dirname(console))
			write(console, 'boot\n')
			return [synthetic_config(Status.PASS, {'a': 'PASS'})]
		checker = steps.Checker(plain_progress(), build_settings(), self.tree, matrix, timeout=1,
					jobs=1)
		mutant = mutants.Mutant(path='m.patch', name='m', subject='s', must_fail=['arm64_s'])
		wt = os.path.join(self.tmp, 'wt')
		with mock.patch.object(steps.Checker, 'groups', return_value=[[matrix[0]], [matrix[1]]]), \
		     mock.patch.object(pipeline, 'build_and_boot', fake_run), \
		     mock.patch.object(tree, 'head', return_value='c0ffee'), \
		     mock.patch.object(steps, 'step_kunitconfig', return_value=[]):
			mutants.judge_by_groups(checker, wt, mutant, 1, {'arm64_s'})
		self.assertEqual(mutant.verdict, mutants.MutantVerdict.SURVIVED)
		assert mutant.logs is not None
		for name in ('a', 'b'):
			self.assertTrue(os.path.exists(os.path.join(mutant.logs, 'exec', name, 'test.log')),
					name)

	def judge_objects(self, mutated_in: Set[str]) -> mutants.Mutant:
		"""A generated mutant of f.c that no case kills, over two groups,
		whose build leaves f.o as the tree's except in @mutated_in."""
		matrix: List[configs.QemuConfig] = [mock.Mock(), mock.Mock()]
		matrix[0].name, matrix[1].name = 'a', 'b'
		dirs = {name: os.path.join(self.tmp, 'build', name) for name in ('a', 'b')}
		for build_dir in dirs.values():
			os.makedirs(build_dir, exist_ok=True)
			write(os.path.join(build_dir, 'f.o'), 'tree')
		before = mutants.object_hashes(list(dirs.values()), ['f.o'])
		built: List[str] = []
		def fake_run(run: plan.MatrixPlan, *args: Any) -> List[config_result.ConfigResult]:
			name = run.configs[0].name
			built.append(name)
			write(os.path.join(dirs[name], 'f.o'), 'mutant' if name in mutated_in else 'tree')
			return [synthetic_config(Status.PASS, {'a': 'PASS'})]
		checker = steps.Checker(plain_progress(), build_settings(), self.tree, matrix, timeout=1,
					jobs=1)
		mutant = mutants.Mutant(path='m.patch', name='m', subject='s',
					must_fail=[mutants.ANY_SUITE], files=['f.c'])
		with mock.patch.object(steps.Checker, 'groups', return_value=[[matrix[0]], [matrix[1]]]), \
		     mock.patch.object(steps.Checker, 'build_dirs',
				       side_effect=lambda wt, group: [dirs[group[0].name]]), \
		     mock.patch.object(pipeline, 'build_and_boot', fake_run), \
		     mock.patch.object(tree, 'head', return_value='c0ffee'), \
		     mock.patch.object(steps, 'step_kunitconfig', return_value=[]):
			mutants.judge_by_groups(checker, os.path.join(self.tmp, 'wt'), mutant, 1, set(),
						before)
		self.assertEqual(built, ['a', 'b'])
		return mutant

	def test_equivalent_only_with_the_same_objects_in_every_group(self) -> None:
		# Compiled away in one group's configuration (IS_ENABLED(CONFIG_...))
		# but not in the other's: judged, not equivalent.
		self.assertEqual(self.judge_objects({'b'}).verdict, mutants.MutantVerdict.SURVIVED)
		self.assertEqual(self.judge_objects({'a'}).verdict, mutants.MutantVerdict.SURVIVED)
		same = self.judge_objects(set())
		self.assertEqual(same.verdict, mutants.MutantVerdict.EQUIVALENT)
		self.assertIn('in every kconfig group', same.detail)

	def judge_flaky(self, boots: int, fail_on: int) -> mutants.Mutant:
		"""A mutant of @boots boots that a single group kills on its
		@fail_on-th boot only (0: never)."""
		matrix: List[configs.QemuConfig] = [mock.Mock()]
		matrix[0].name = 'a'
		calls: List[int] = []
		def fake_run(*args: Any, **kwargs: Any) -> List[config_result.ConfigResult]:
			calls.append(1)
			if len(calls) == fail_on:
				return [synthetic_config(Status.FAIL, {'a': 'FAIL'})]
			return [synthetic_config(Status.PASS, {'a': 'PASS'})]
		checker = steps.Checker(plain_progress(), build_settings(), self.tree, matrix, timeout=1,
					jobs=1)
		mutant = mutants.Mutant(path='m.patch', name='m', subject='s', must_fail=['arm64_s'],
					boots=boots)
		with mock.patch.object(steps.Checker, 'groups', return_value=[matrix]), \
		     mock.patch.object(pipeline, 'build_and_boot', fake_run), \
		     mock.patch.object(tree, 'head', return_value='c0ffee'), \
		     mock.patch.object(steps, 'step_kunitconfig', return_value=[]):
			mutants.judge_by_groups(checker, os.path.join(self.tmp, 'wt'), mutant, 1,
						{'arm64_s'})
		self.assertEqual(len(calls), min(fail_on or boots, boots))
		return mutant

	def test_boots_give_a_timing_dependent_kill_more_chances(self) -> None:
		self.assertEqual(self.judge_flaky(1, 2).verdict, mutants.MutantVerdict.SURVIVED)
		killed = self.judge_flaky(3, 2)
		self.assertEqual(killed.verdict, mutants.MutantVerdict.KILLED)
		self.assertIn('arm64_s.a (boot 2 of up to 3)', killed.detail)
		survived = self.judge_flaky(3, 0)
		self.assertEqual(survived.verdict, mutants.MutantVerdict.SURVIVED)
		self.assertIn('(in none of 3 boots)', survived.detail)

	def test_boots_header(self) -> None:
		path = os.path.join(self.tmp, 'm.patch')
		for value, boots in (('3 (why)', 3), ('', 1)):
			write(path, 'Subject: s\nMust-Fail: arm64_s\n' +
			      (f'Boots: {value}\n' if value else '') + '---\ndiff --git a/x b/x\n')
			self.assertEqual(mutants.load_mutant(path).boots, boots)
		write(path, 'Subject: s\nMust-Fail: arm64_s\nBoots: many\n---\n')
		with self.assertRaises(Error):
			mutants.load_mutant(path)

	def test_a_plain_diff_names_its_files_and_no_diff_is_refused(self) -> None:
		# A diff -u without "diff --git" lines was read as changing no
		# file: a header mutant ran in --no-header-mutants' set.
		path = os.path.join(self.tmp, 'm.patch')
		write(path, 'Subject: s\nMust-Fail: arm64_s\n---\n'
		      '--- a/arch/arm64/include/asm/futex.h\n+++ b/arch/arm64/include/asm/futex.h\n'
		      '@@ -1 +1 @@\n-a\n+b\n')
		mutant = mutants.load_mutant(path)
		self.assertEqual(mutant.files, ['arch/arm64/include/asm/futex.h'])
		self.assertTrue(mutant.of_header())
		write(path, 'Subject: s\nMust-Fail: arm64_s\n---\n')
		with self.assertRaisesRegex(Error, 'no file changed'):
			mutants.load_mutant(path)

class JudgeTest(unittest.TestCase):
	"""mutants.judge() on synthetic configs."""

	def mutant(self) -> mutants.Mutant:
		return mutants.Mutant(path='m.patch', name='m', subject='s', must_fail=['arm64_s'])

	def test_cases_that_failed_before_a_hang_are_named(self) -> None:
		mutant = self.mutant()
		hung = synthetic_config(Status.TIMEOUT, {'a': 'FAIL', 'b': 'PASS'})
		mutants.judge(mutant, [hung], {'arm64_s'})
		self.assertEqual(mutant.verdict, mutants.MutantVerdict.KILLED)
		self.assertEqual(mutant.detail, 'c: 1 failed: arm64_s.a; then c: timeout')

	def test_a_crash_before_any_failure_is_the_kill(self) -> None:
		mutant = self.mutant()
		mutants.judge(mutant, [synthetic_config(Status.CRASH, {'a': 'PASS'})],
			      {'arm64_s'})
		self.assertEqual((mutant.verdict, mutant.detail), (mutants.MutantVerdict.KILLED, 'c: crash'))


if __name__ == '__main__':
	unittest.main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of tools/pan-kunit run, end to end, with the fake kunit_tool.

import contextlib
import io
import json
import os
import re
import shutil
import threading
import time
import unittest
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, Optional, Sequence, Tuple
from unittest import mock

from pan_kunit import Error
from pan_kunit.commands import cli
from pan_kunit.host import packages, summary
from pan_kunit.host.printer import Printer
from pan_kunit.matrix import builds, cost, jobs
from pan_kunit.trees import targets, tree
from testlib import (VERSION, REAL_REQUIRE, FIELD_PARAM_FAILED, MATCH_CASE_FAILED, FAILED_BLOCK_6_1,
		     test_data_path, read, write, process_running, from_scratch, FakeKunitTestCase,
		     setUpModule, tearDownModule, slow)

class TwoKernelsRunTest(FakeKunitTestCase):
	"""run on two kernels: a tree each, one report."""

	@from_scratch
	def test_a_missing_package_of_the_second_kernel_stops_before_the_first(self) -> None:
		shutil.copytree(os.path.join(self.repo, 'patches', '6.1'),
				os.path.join(self.repo, 'patches', '6.12'))
		def ensure(printer: Printer, sources: List[str], extra: Sequence[str]=()) -> None:
			if 'linux-source-6.12' in sources:
				raise Error('missing Debian packages: linux-source-6.12')
		out = io.StringIO()
		with mock.patch.dict(os.environ, {'PAN_KUNIT_CACHE': os.path.join(self.tmp, 'cache')}), \
		     mock.patch.object(packages, 'ensure', side_effect=ensure) as ensured, \
		     contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
			os.environ.pop('PAN_KUNIT_TREE', None)
			status = cli.main(['run', '--config', 'pass_pan'], repo=self.repo)
		self.assertEqual(status, 2, out.getvalue())
		self.assertEqual(out.getvalue(),
				 'pan-kunit run: error: missing Debian packages: linux-source-6.12\n')
		self.assertEqual(ensured.call_args_list,
				 [mock.call(mock.ANY, ['linux-source-6.1', 'linux-source-6.12'], ())])
		self.assertFalse(os.path.exists(os.path.join(self.tmp, 'cache', 'linux-source-6.1')))
		self.assertEqual(self.traced('build'), [])

	@from_scratch
	def test_a_table_per_kernel_the_newest_first_and_a_total_per_kernel(self) -> None:
		shutil.copytree(os.path.join(self.repo, 'patches', '6.1'),
				os.path.join(self.repo, 'patches', '6.12'))
		shutil.copyfile(self.tarball, os.path.join(self.tmp, 'linux-source-6.12.tar.xz'))
		cache = os.path.join(self.tmp, 'cache')
		report = os.path.join(self.tmp, 'report.json')
		out = io.StringIO()
		with mock.patch.dict(os.environ, {'PAN_KUNIT_CACHE': cache}), \
		     contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
			os.environ.pop('PAN_KUNIT_TREE', None)
			status = cli.main(['run', '--config', 'pass_pan', '--config', 'skip_nopan',
					   '--json', report], repo=self.repo)
		output = out.getvalue()
		self.assertEqual(status, 0, output)
		for package in ('linux-source-6.1', 'linux-source-6.12'):
			self.assertIn(f'extracted {self.tmp}/{package}.tar.xz ({package} {VERSION}) into '
				      f'{cache}/{package}\n', output)
		self.assertEqual(len(self.traced('build')), 2)  # one per kernel
		# The newest kernel's table comes as soon as its boots end, before
		# the next kernel is even extracted.
		newest = output.index(f'=== linux-source-6.12 {VERSION}\n')
		self.assertLess(newest, output.index(f'extracting {self.tmp}/linux-source-6.1.tar.xz'))
		self.assertLess(newest, output.index(f'=== linux-source-6.1 {VERSION}\n'))
		self.assertRegex(output[newest:], r'^=== linux-source-6\.12 .*\n\nsuite \(passed')
		self.assertEqual(len(re.findall(r'\nsuite \(passed/failed/skipped\) +pass_pan +'
						r'skip_nopan\n', output)), 2)
		self.assertTrue(output.endswith('total 6.1: 12 passed, 0 failed, 3 skipped\n'
						'total 6.12: 12 passed, 0 failed, 3 skipped\n'
						'run: 24 passed, 0 failed, 6 skipped\n'), output)
		# One closing line per kernel and the run's: no kernel's total twice.
		self.assertEqual(output.count('total 6.1: '), 1)
		self.assertNotIn('\ntotal: ', output)
		data = json.loads(read(report))
		self.assertEqual([(k['tree'], [(c['name'], c['debian_package']) for c in k['configs']])
				  for k in data['kernels']],
				 [(f'{cache}/linux-source-6.1', [('pass_pan', 'linux-source-6.1'),
								  ('skip_nopan', 'linux-source-6.1')]),
				  (f'{cache}/linux-source-6.12', [('pass_pan', 'linux-source-6.12'),
								   ('skip_nopan', 'linux-source-6.12')])])

class RunTest(FakeKunitTestCase):
	"""tools/pan-kunit run, end to end, with the fake kunit_tool."""

	def run_cli(self, *argv: str) -> Tuple[int, str]:
		return self.cli_main('--tree', self.tree, 'run', *argv)

	def test_one_git_status_per_run(self) -> None:
		# It walks every file of the kernel tree: a second of a developer's loop.
		with mock.patch.object(tree, 'changed_files', wraps=tree.changed_files) as status:
			code, output = self.run_cli('--config', 'pass_pan')
		self.assertEqual(code, 0, output)
		self.assertEqual(status.call_count, 1)

	def test_edits_are_noted_while_the_kernels_build(self) -> None:
		# git status is 0.2-0.3 s of a developer's loop: not before the builds.
		building = threading.Event()
		waited: List[bool] = []
		real_status, real_build = tree.changed_files, builds.build_all
		def status(tree_dir: str) -> List[str]:
			waited.append(building.wait(timeout=10))
			return real_status(tree_dir)
		def build_all(*args: Any, **kwargs: Any) -> Dict[str, bool]:
			building.set()
			return real_build(*args, **kwargs)
		write(os.path.join(self.tree, 'arch/arm64/kernel/scratch.c'), '/* mine */\n')
		with mock.patch.object(tree, 'changed_files', status), \
		     mock.patch.object(builds, 'build_all', build_all):
			code, output = self.run_cli('--config', 'pass_pan')
		self.assertEqual(code, 0, output)
		self.assertEqual(waited, [True])
		self.assertIn(f'note: building with uncommitted changes in {self.tree}: '
			      'arch/arm64/kernel/scratch.c\n', output)

	def test_no_git_show_of_the_base_commit(self) -> None:
		# git show diffs a root commit even with -s: the whole tree, a
		# tenth of a second a call, several calls a run.
		with mock.patch.object(tree, 'git', wraps=tree.git) as git:
			code, output = self.run_cli('--config', 'pass_pan')
		self.assertEqual(code, 0, output)
		shows = [c.args for c in git.call_args_list
			 if 'show' in c.args and tree.BASE_REF in c.args]
		self.assertEqual(shows, [])

	@from_scratch
	def test_shared_build_and_parallel_boots(self) -> None:
		# Each boot waits until the other has started too.
		os.environ['FAKE_KUNIT_RENDEZVOUS'] = os.path.join(self.tmp, 'booting') + ':2'
		report = os.path.join(self.tmp, 'report.json')
		status, output = self.run_cli('--config', 'pass_pan', '--config', 'skip_nopan',
					      '--json', report)
		self.assertEqual(status, 0, output)
		builds = self.traced('build')
		self.assertEqual(len(builds), 1)
		execs = {e[1]: (float(e[2]), float(e[3])) for e in self.traced('exec')}
		self.assertEqual(sorted(execs), ['pass_pan', 'skip_nopan'])
		self.assertEqual(sorted(r[1:] for r in self.traced('rendezvous')),
				 [['pass_pan', '2'], ['skip_nopan', '2']], 'the boots did not overlap')
		(start_a, end_a), (start_b, end_b) = execs.values()
		self.assertLess(max(start_a, start_b), min(end_a, end_b), 'the boots did not overlap')
		# One short line each, naming the kernel and the configs; the
		# build's key only in its log's name, relative to the tree.
		(key,) = os.listdir(os.path.join(self.tree, '.pan-kunit', 'build'))[:1] or ['?']
		self.assertIn('\nbuilding 6.1 pass_pan, skip_nopan (log: .pan-kunit/logs/build-'
			      f'{key.replace(".lock", "")}.log) ...\n', output)
		self.assertRegex(output, r'\nbuilt 6.1 pass_pan, skip_nopan in [0-9]+ s '
				 r'\(2 objects compiled\)\n')
		self.assertNotIn(self.tree + '/.pan-kunit/build', output)
		# Before anything, what the builds from scratch will take; after the
		# build, its record, for the next estimate and progress's total.
		self.assertTrue(output.startswith('1 kernel build from scratch (6.1: 1): about '
						  '10 min 00 s before the boots ('), output)
		record = cost.read_record(os.path.join(self.tree, '.pan-kunit', 'build',
						       key.replace('.lock', '')))
		self.assertEqual((record['objects'], record['scratch']), (2, True))
		for config in ('pass_pan', 'skip_nopan'):
			self.assertRegex(output, rf'\nboot {config}: pass \([0-9.]+ s\)\n')
		self.assertIn('suite (passed/failed/skipped)  pass_pan             skip_nopan', output)
		self.assertIn('status                         pass                 pass', output)
		self.assertIn('cpu                            max,pauth-impdef=on  cortex-a57', output)
		# After the table, by reason, each with its count and where: every
		# skip counted, each parameter of a case whose every one skipped
		# (6.1 gives the last one's reason only).
		self.assertIn('\nskipped, by reason (each case with its reason: --json, --junit):\n'
			      '   1  6.1 prints the reason of the last skipped parameter only\n'
			      '        skip_nopan: arm64_cpufeature_match.'
			      'cpus_have_cap_agrees_with_id_registers.ARM64_HAS_EPAN\n'
			      '   1  CPU lacks PAN: ID_AA64MMFR1_EL1.PAN=0\n'
			      '        skip_nopan: arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu\n'
			      '   1  config lacks ARM64_HAS_DCPOP: CONFIG_ARM64_PMEM=n\n'
			      '        skip_nopan: arm64_cpufeature_match.'
			      'cpus_have_cap_agrees_with_id_registers.ARM64_HAS_DCPOP\n', output)
		self.assertLess(output.index('cpu                            max'),
				output.index('skipped, by reason'))
		self.assertTrue(output.endswith('run: 12 passed, 0 failed, 3 skipped\n'), output)
		data = json.loads(read(report))
		# One shape, one kernel or several: what ran it, what it was asked,
		# and the kernels.
		self.assertEqual(sorted(data), ['ccache', 'elapsed', 'kernels', 'pan_kunit', 'request',
						'shard', 'work'])
		self.assertEqual(sorted(data['pan_kunit']), ['commit', 'dirty', 'qemu'])
		self.assertEqual(data['request']['command'], 'run')
		self.assertEqual(data['request']['kernels'], ['6.1'])
		self.assertEqual(data['request']['options']['config'], ['pass_pan', 'skip_nopan'])
		self.assertNotIn('json', data['request']['options'])
		# Not sharded: the one shard, of the one kconfig group.
		self.assertEqual((data['shard']['index'], data['shard']['total'], data['shard']['units']),
				 (1, 1, ['6.1/pass_pan+skip_nopan']))
		self.assertEqual(data['work']['units'], 1)
		(data,) = data['kernels']
		self.assertEqual(data['tree'], self.tree)
		self.assertEqual(data['head'], tree.head(self.tree))
		self.assertEqual((data['kernel'], data['source']['head'], data['source']['head_tree']),
				 ('6.1', tree.head(self.tree), self.git('rev-parse', 'HEAD^{tree}')))
		pan, nopan = data['configs']
		self.assertEqual((pan['name'], pan['status'], nopan['name'], nopan['status']),
				 ('pass_pan', 'pass', 'skip_nopan', 'pass'))
		self.assertEqual(pan['build_environment'], builds[0][2])
		self.assertEqual(nopan['build_environment'], builds[0][2])
		self.assertEqual([g['name'] for g in pan['sub_groups']],
				 ['arm64_cpufeature_field', 'arm64_cpufeature_match'])
		self.assertEqual(len(nopan['skip_reasons']), 3)
		# The kernel that was built and where.
		self.assertEqual({k: pan[k] for k in ('kernel', 'debian_version', 'git_branch',
						      'git_commit', 'defconfig', 'cpu')},
				 {'kernel': '6.1.192', 'debian_version': VERSION, 'git_branch': 'pan-kunit',
				  'git_commit': tree.head(self.tree), 'defconfig': 'pass_pan',
				  'cpu': 'max,pauth-impdef=on'})
		self.assertIn('CONFIG_SERIAL_AMBA_PL011=y', pan['kconfig'])
		exec_dir = os.path.join(self.tree, '.pan-kunit', 'exec', 'pass_pan')
		self.assertEqual(pan['files'], {
			'console': os.path.join(exec_dir, 'test.log'),
			'kunit_json': os.path.join(exec_dir, 'kunit.json'),
			'parsed': os.path.join(exec_dir, 'parsed.log'),
			'record': os.path.join(exec_dir, 'results.json'),
			'exec_log': os.path.join(self.tree, '.pan-kunit', 'logs', 'exec-pass_pan.log'),
			'build_log': os.path.join(self.tree, '.pan-kunit', 'logs',
						  f'build-{os.path.basename(builds[0][2])}.log')})
		self.assertEqual(json.loads(read(pan['files']['record'])), pan)
		self.assertIn('Testing complete. Ran 9 tests: passed: 9', read(pan['files']['parsed']))
		image = os.path.join(self.tree, '.pan-kunit', 'exec', 'skip_nopan', 'arch/arm64/boot/Image.gz')
		self.assertEqual(os.readlink(image), os.path.join(builds[0][2], 'arch/arm64/boot/Image.gz'))
		self.assertEqual(tree.changed_files(self.tree), [])

	def test_fail(self) -> None:
		tally = os.path.join(self.tmp, 'summary')
		with mock.patch.dict(os.environ, {summary.ENV: tally}):
			status, output = self.run_cli('--config', 'fail_pan')
		self.assertEqual(read(tally), 'run: 1 passed, 1 failed, 0 skipped\n')
		self.assertEqual(status, 1, output)
		self.assertRegex(output, r'\nboot fail_pan: fail \([0-9.]+ s\)\n')
		self.assertIn('fail_pan: fail\n    [FAILED] ' + MATCH_CASE_FAILED + '\n        # '
			      'has_cpuid_feature_pan_every_cpu: EXPECTATION FAILED at', output)
		self.assertIn('        Expected cpus_have_cap(ARM64_HAS_PAN) to be true', output)
		self.assertTrue(output.endswith('run: 1 passed, 1 failed, 0 skipped\n'), output)

	def test_failed_cases_named_on_every_config(self) -> None:
		write(os.path.join(self.repo, 'kunit', 'fake_mode'), 'failtwo\n')  # top of the tree
		report = os.path.join(self.tmp, 'report.json')
		xml = os.path.join(self.tmp, 'report.xml')
		tally = os.path.join(self.tmp, 'summary')
		with mock.patch.dict(os.environ, {summary.ENV: tally}):
			status, output = self.run_cli('--config', 'pass_pan', '--config', 'skip_nopan',
						      '--json', report, '--junit', xml)
		self.assertEqual(status, 1, output)
		self.assertEqual(read(tally), 'run: 8 passed, 4 failed, 2 skipped\n')
		table = output.index('\nsuite (passed/failed/skipped)')
		for config in ('pass_pan', 'skip_nopan'):
			# The first three failed cases with their log, the others listed.
			full = FAILED_BLOCK_6_1 if config == 'pass_pan' else FAILED_BLOCK_6_1[:8]
			block = f'{config}: fail\n' + ''.join(line + '\n' for line in full)
			self.assertIn(block, output)
			self.assertIn(f'    {config}: [FAILED] {MATCH_CASE_FAILED}\n        at '
				      'arch/arm64/kernel/cpufeature_match_test.c:416\n', output[table:])
			self.assertLess(output.index(block), table)
			exec_dir = os.path.join(self.tree, '.pan-kunit', 'exec', config)
			for named in (f'    console: {exec_dir}/test.log',
				      f'    parsed by kunit_parser: {exec_dir}/parsed.log',
				      f'    record: {exec_dir}/results.json',
				      f'    kunit.py exec: {self.tree}/.pan-kunit/logs/exec-{config}.log'):
				self.assertIn(named + '\n', output[output.index(block):table])
			self.assertIn('[FAILED] bits [7:4]', read(os.path.join(exec_dir, 'parsed.log')))
		(records,) = [k['configs'] for k in json.loads(read(report))['kernels']]
		self.assertEqual([[f['name'] for f in r['failures']] for r in records],
				 [[FIELD_PARAM_FAILED, MATCH_CASE_FAILED]] * 2)
		suites = ET.parse(xml).getroot().findall('testsuite')
		self.assertEqual([(s.get('name'), s.get('failures')) for s in suites], [
			(f'linux-6.1.192/{config}/{suite}', '1') for config in ('pass_pan', 'skip_nopan')
			for suite in ('arm64_cpufeature_field', 'arm64_cpufeature_match')])
		# The same case of two configs is two cases.
		self.assertEqual(sorted({c.get('classname') or '' for s in suites for c in s.findall('testcase')}), [
			f'{config}.{suite}' for config in ('pass_pan', 'skip_nopan')
			for suite in ('arm64_cpufeature_field', 'arm64_cpufeature_match')])

	@slow  # two runs, each a build and boots
	def test_record_says_the_tree_was_dirty(self) -> None:
		report, xml = os.path.join(self.tmp, 'report.json'), os.path.join(self.tmp, 'r.xml')

		def dirty() -> Tuple[bool, List[Optional[str]]]:
			self.assertEqual(self.run_cli('--config', 'pass_pan', '--json', report,
						      '--junit', xml)[0], 0)
			suites = ET.parse(xml).getroot().findall('testsuite')
			return (json.loads(read(report))['kernels'][0]['configs'][0]['git_dirty'],
				[{p.get('name'): p.get('value') for p in s.iter('property')}.get('git_dirty')
				 for s in suites])
		self.assertEqual(dirty(), (False, [None, None]))
		cpufeature = os.path.join(self.tree, 'arch/arm64/kernel/cpufeature.c')
		write(cpufeature, read(cpufeature) + '/* my uncommitted edit */\n')
		self.assertEqual(dirty(), (True, ['true', 'true']))
		# Each testsuite has its boot's time, the file the boots' sum.
		top = ET.parse(xml).getroot()
		self.assertGreater(float(top.get('time', '0')), 0)
		self.assertEqual({s.get('time') for s in top.findall('testsuite')}, {top.get('time')})

	def test_no_tests_is_a_failure(self) -> None:
		write(os.path.join(self.repo, 'kunit', 'fake_mode'), 'notests\n')
		status, output = self.run_cli('--config', 'pass_pan')
		self.assertEqual(status, 1, output)
		self.assertRegex(output, r'\nboot pass_pan: no_tests \([0-9.]+ s\)\n')

	@from_scratch
	def test_unwritable_destination_is_refused_before_anything_runs(self) -> None:
		missing = os.path.join(self.tmp, 'no-such-dir', 'report.xml')
		for command in ('run', 'bisect', 'mutants'):
			for option, path, why in (('--junit', missing, 'no such directory: ' +
						   os.path.dirname(missing)),
						  ('--json', self.tmp, 'it is a directory')):
				out = io.StringIO()
				with mock.patch.object(targets, 'setup') as setup, \
				     contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
					status = cli.main(['--tree', self.tree, command, option, path],
							  repo=self.repo)
				self.assertEqual(status, 2, out.getvalue())
				self.assertEqual(out.getvalue(), f'pan-kunit {command}: error: cannot write {option} '
						 f'{path}: {why}\n')
				setup.assert_not_called()
		same = os.path.join(self.tmp, 'report')
		for command in ('run', 'bisect', 'mutants'):
			out = io.StringIO()
			with mock.patch.object(targets, 'setup') as setup, \
			     contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
				status = cli.main(['--tree', self.tree, command, '--json', same,
						   '--junit', os.path.join(self.tmp, '.', 'report')],
						  repo=self.repo)
			self.assertEqual(status, 2, out.getvalue())
			self.assertIn('are one file: give each its own', out.getvalue())
			setup.assert_not_called()
		self.assertFalse(os.path.exists(self.tree))

	@slow  # four runs, each a build and boots
	def test_stale_results_are_never_read(self) -> None:
		"""A boot's result comes only from files that boot wrote."""
		exec_dir = os.path.join(self.tree, '.pan-kunit', 'exec', 'pass_pan')
		report = os.path.join(self.tmp, 'report.json')
		self.assertEqual(self.run_cli('--config', 'pass_pan')[0], 0)
		self.assertTrue(os.path.exists(os.path.join(exec_dir, 'test.log')))
		# QEMU does not start: no console, no JSON; the last boot's are not this one's.
		write(os.path.join(self.repo, 'kunit', 'fake_mode'), 'noboot\n')
		status, output = self.run_cli('--config', 'pass_pan', '--json', report)
		self.assertEqual(status, 1, output)
		self.assertIn('pass_pan: crash\n--- kunit.py exec: last 40 lines', output)
		self.assertIn('unable to find CPU model', output)
		self.assertTrue(output.endswith('run: 0 passed, 1 failed, 0 skipped\n'), output)
		(record,) = json.loads(read(report))['kernels'][0]['configs']
		self.assertEqual((record['sub_groups'], record['failures']), ([], []))
		self.assertEqual(sorted(record['files']), ['build_log', 'exec_log', 'record'])
		for name in ('test.log', 'kunit.json', 'parsed.log'):
			self.assertFalse(os.path.exists(os.path.join(exec_dir, name)), name)
		# A build that fails leaves no result of the boot before it to read.
		os.unlink(os.path.join(self.repo, 'kunit', 'fake_mode'))
		self.assertEqual(self.run_cli('--config', 'pass_pan')[0], 0)
		write(os.path.join(self.repo, 'kunit', 'fake_mode'), 'builderror\n')
		status, output = self.run_cli('--config', 'pass_pan', '--json', report)
		self.assertEqual(status, 1, output)
		self.assertRegex(output, r'\nstatus +build_error\n')
		(record,) = json.loads(read(report))['kernels'][0]['configs']
		self.assertEqual((record['status'], record['sub_groups'], record['elapsed']),
				 ('build_error', [], None))
		self.assertEqual(sorted(record['files']), ['build_log', 'record'])
		self.assertEqual(sorted(os.listdir(exec_dir)), ['arch', 'results.json', 'vmlinux'])
		self.assertFalse(os.path.exists(os.path.join(self.tree, '.pan-kunit', 'logs',
							     'exec-pass_pan.log')))

	def test_crash_prints_the_console(self) -> None:
		status, output = self.run_cli('--config', 'crash_pan')
		self.assertEqual(status, 1, output)
		self.assertIn('crash_pan: crash', output)
		self.assertIn("    the kernel's last words:\n"
			      '        Unable to handle kernel paging request at virtual address '
			      '0000ffff8c6a1000\n', output)
		self.assertIn('Kernel panic - not syncing: Oops: Fatal exception', output)
		self.assertTrue(output.endswith('run: 2 passed, 1 failed, 0 skipped\n'), output)

	def argv(self, subcommand: str) -> Dict[str, List[str]]:
		"""What each config's kunit.py @subcommand was given, by config."""
		return {a[2]: a[3:] for a in self.traced('argv') if a[1] == subcommand}

	@slow  # four runs, each a build and boots
	def test_kunit_options_are_passed_on(self) -> None:
		status, output = self.run_cli('--config', 'pass_pan', '--config', 'skip_nopan',
					      'arm64_cpufeature_match.*', '--kconfig_add', 'CONFIG_KASAN=y',
					      '--kconfig_add', '# CONFIG_MODULES is not set',
					      '--make_options', 'W=1', '--make_options', 'LLVM=1')
		self.assertEqual(status, 0, output)
		(build,) = self.argv('build').values()
		# One word each; the user's make options after ccache's CC=, which
		# is clang with LLVM=1.
		self.assertEqual(build[-4:], ['--kconfig_add=CONFIG_KASAN=y',
					      '--kconfig_add=# CONFIG_MODULES is not set',
					      '--make_options=W=1', '--make_options=LLVM=1'])
		# Before them, make builds the image the configs boot, and only it.
		self.assertEqual(build[-6:-4], ['--make_options',
						'KBUILD_IMAGE=arch/arm64/boot/Image.gz'])
		if shutil.which('ccache'):
			self.assertEqual(build[-8:-6], ['--make_options', 'CC=ccache clang'])
		self.assertNotIn('CC=ccache aarch64-linux-gnu-gcc', build)
		execs = self.argv('exec')
		self.assertEqual(sorted(execs), ['pass_pan', 'skip_nopan'])
		for argv in execs.values():
			# The glob is last, after --json=FILE, as kunit.py's filter_glob.
			self.assertEqual(argv[-1], 'arm64_cpufeature_match.*')
			self.assertTrue(argv[-2].startswith('--json='), argv)
			self.assertFalse([a for a in argv if a.startswith(('--kconfig_add', '--make_options'))])
		# --kconfig_add changes the .config: a build directory of its own.
		kasan_dir = self.traced('build')[0][2]
		write(self.trace, '')
		status, output = self.run_cli('--config', 'pass_pan', '--filter_glob', 'arm64_*')
		self.assertEqual(status, 0, output)
		self.assertEqual(self.argv('exec')['pass_pan'][-1], 'arm64_*')
		self.assertNotEqual(self.traced('build')[0][2], kasan_dir)
		self.assertFalse([a for a in self.argv('build')['pass_pan'] if 'kconfig_add' in a])
		# So do make options: run --make_options W=1 and lkdtm do not share one.
		plain_dir = self.traced('build')[0][2]
		write(self.trace, '')
		status, output = self.run_cli('--config', 'pass_pan', '--make_options', 'W=1')
		self.assertEqual(status, 0, output)
		self.assertNotEqual(self.traced('build')[0][2], plain_dir)
		status, output = self.run_cli('--config', 'pass_pan', 'a*', '--filter_glob', 'b*')
		self.assertEqual(status, 2, output)
		self.assertIn("two filter_globs, 'a*' and 'b*': give one", output)

	def test_bad_kunit_options_are_usage_errors(self) -> None:
		for argv in (['run', '--kconfig_add', 'KASAN=y'], ['run', '--filter_glob', '-x'],
			     ['bisect', '--filter_glob', 'a b'], ['mutants', '--filter_glob', 'a'],
			     ['run', '--kconfig_add', 'CONFIG_X=a b']):
			with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as e:
				cli.parse_args(argv)
			self.assertEqual(e.exception.code, 2, argv)

	@slow  # three runs, each a build and boots
	def test_raw_output_prints_every_console(self) -> None:
		status, output = self.run_cli('--config', 'builderror_pan', '--config', 'pass_pan',
					      '--raw_output=all')
		self.assertEqual(status, 1, output)
		console = os.path.join(self.tree, '.pan-kunit', 'exec', 'pass_pan', 'test.log')
		self.assertIn(f'--- builderror_pan: not booted (build_error)\n'
			      f'--- pass_pan: console ({console})\n' +
			      read(test_data_path('console', 'pass.log')), output)
		# Bare, as kunit.py's: from the KTAP header on.
		status, output = self.run_cli('--config', 'pass_pan', '--raw_output')
		self.assertEqual(status, 0, output)
		self.assertNotIn('Booting Linux on physical CPU', output)
		self.assertRegex(output, f'--- pass_pan: console \\({re.escape(console)}\\)\n\\[ *[0-9.]+\\] KTAP version')
		status, output = self.run_cli('--config', 'pass_pan')
		self.assertNotIn('Booting Linux on physical CPU', output)

	def test_build_error(self) -> None:
		status, output = self.run_cli('--config', 'builderror_pan', '--config', 'pass_pan')
		self.assertEqual(status, 1, output)
		self.assertEqual(len(self.traced('build')), 2)
		self.assertEqual([e[1] for e in self.traced('exec')], ['pass_pan'])
		self.assertIn("error: expected ';' before '}' token", output)
		self.assertRegex(output, r'\nstatus +build_error +pass\n')
		self.assertTrue(output.endswith('run: 9 passed, 1 failed, 0 skipped\n'), output)

	def test_hang_is_killed_with_its_qemu(self) -> None:
		start = time.monotonic()
		# The watchdog's margin leaves the fake kunit.py time to start its
		# QEMU; a QEMU that ignores SIGTERM is SIGKILLed after the grace.
		with mock.patch.object(jobs, 'WATCHDOG_MARGIN', 0.5), \
		     mock.patch.object(jobs, 'KILL_GRACE', 0.1):
			status, output = self.run_cli('--config', 'hang_pan', '--timeout', '1')
		self.assertLess(time.monotonic() - start, 20)
		self.assertEqual(status, 1, output)
		self.assertIn('hang_pan: timeout', output)
		(hang,) = self.traced('exec')
		qemu = int(hang[4])
		for _ in range(50):  # it was SIGKILLed; allow its reaping to lag a little
			if not process_running(qemu):
				break
			time.sleep(0.1)
		self.assertFalse(process_running(qemu), f'the fake QEMU {qemu} survived')
		self.assertTrue(output.endswith('run: 0 passed, 1 failed, 0 skipped\n'), output)

	@from_scratch
	def test_no_qemu_is_refused_before_setup_builds_anything(self) -> None:
		no_qemu = lambda c: None if c == 'qemu-system-aarch64' else f'/usr/bin/{c}'
		with mock.patch.object(packages, 'require',
				       lambda tools, purpose: REAL_REQUIRE(tools, purpose, which=no_qemu)):
			status, output = self.run_cli('--config', 'pass_pan')
		self.assertEqual(status, 2, output)
		self.assertIn('pan-kunit run: error: run needs qemu-system-aarch64 (Debian package '
			      'qemu-system-arm), not found on PATH', output)
		self.assertNotIn('crash', output)
		self.assertEqual(self.traced('build'), [])
		self.assertFalse(os.path.exists(self.tree))


if __name__ == '__main__':
	unittest.main()

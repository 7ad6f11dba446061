#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the command line (pan_kunit.commands.cli): arguments, list, parse and the
# signals that end a run.

import contextlib
import dataclasses
import errno
import io
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
from typing import Dict, List, Tuple
from unittest import mock

from pan_kunit import Error
from pan_kunit.commands import cli, listing, mutants, run, score
from pan_kunit.commands.boot_request import BootRequest
from pan_kunit.host import packages
from pan_kunit.kunit_tool import configs, kunit_py
from pan_kunit.trees import kernels, targets
from testlib import (TEST_DATA, REPO, VERSION, test_data_path, kunit_tool_of, read, write,
		     end_to_end, setUpModule, tearDownModule)

class ArgsTest(unittest.TestCase):

	def test_config_repeated_and_defaults(self) -> None:
		args = cli.parse_args(['run', '--config', 'b', '--config', 'a'])
		self.assertEqual(args.config, ['b', 'a'])
		self.assertEqual(args.timeout, 300)
		self.assertEqual(args.jobs, os.cpu_count())
		self.assertIsNone(args.json)

	def test_one_parse_leaves_nothing_to_the_next(self) -> None:
		# The parser is built once; what one command line gave (appended
		# lists included) must not reach the next.
		first = cli.parse_args(['run', '--config', 'b', '--kernel', '6.1', '--json', 'r.json'])
		second = cli.parse_args(['run'])
		self.assertEqual((first.config, first.json), (['b'], 'r.json'))
		self.assertEqual((second.config, second.kernel, second.json), ([], [], None))
		self.assertIs(cli._parser(), cli._parser())

	def test_each_command_gets_a_request_of_its_own(self) -> None:
		args = cli.parse_args(['run', 'arm64_*', '--kconfig_add', 'CONFIG_X=y', '--json', 'r.json',
				       '--config', 'a'])
		self.assertEqual(cli.run_request(args), run.RunRequest(
			configs=['a'], timeout=300, jobs=args.jobs,
			options=kunit_py.KunitOptions('arm64_*', ['CONFIG_X=y'], []), json='r.json',
			junit=None, raw_output=None))
		args = cli.parse_args(['bisect', 'rel/series', '--step', '2', '--timeout', '9'])
		request = cli.bisect_request(args)
		self.assertEqual((request.series, request.step, request.timeout), ('rel/series', 2, 9))
		self.assertEqual(cli.mutants_request(cli.parse_args(['mutants', '--only', 'x'])).timeout,
				 mutants.TIMEOUT)
		# One sample and seed, of the written or the generated mutants.
		for argv, want in ((['mutants'], (False, None, 1)),
				   (['mutants', '--sample', '0'], (False, None, 1)),
				   (['mutants', '--sample', '20', '--seed', '3'], (False, 20, 3)),
				   (['mutants', '--generate'], (True, score.DEFAULT_SAMPLE, 1)),
				   (['mutants', '--generate', '--sample', '0', '--seed', '2'],
				    (True, None, 2)),
				   (['mutants', '--generate', '--no-header-mutants', '--sample', '7'],
				    (True, 7, 1))):
			drawn = cli.mutants_request(cli.parse_args(argv))
			self.assertEqual((drawn.generate, drawn.sample, drawn.seed), want, argv)
		export = cli.export_request(cli.parse_args(['export', 'out', '--no-build']))
		self.assertEqual((export.out, export.no_build, export.options),
				 (os.path.abspath('out'), True, kunit_py.KunitOptions()))

	def test_coverage_takes_what_run_does_but_reports(self) -> None:
		args = cli.parse_args(['coverage', '--kernel', '6.12', '--config', 'a',
				       '--filter_glob', 'arm64_pan', '--kconfig_add', 'CONFIG_X=y'])
		self.assertEqual((args.kernel, cli.boot_request(args)), (['6.12'], BootRequest(
			configs=['a'], timeout=300, jobs=args.jobs,
			options=kunit_py.KunitOptions('arm64_pan', ['CONFIG_X=y'], []))))
		with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
			cli.parse_args(['coverage', '--json', 'x.json'])

	def test_bad_numbers_are_usage_errors(self) -> None:
		for argv in (['run', '--timeout', '0'], ['mutants', '--sample', '-1'],
			     ['mutants', '--generate', '--sample', '-3'], ['run', '--jobs', '-2']):
			err = io.StringIO()
			with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as e:
				cli.parse_args(argv)
			self.assertEqual(e.exception.code, 2, argv)
			self.assertIn(f'argument {argv[-2]}: must be', err.getvalue())

	def test_make_options_are_x_equals_y_as_kconfig_add_is_a_line(self) -> None:
		for option, good, bad in (('--make_options', 'KCFLAGS=-O1 -g', 'FOO'),
					  ('--kconfig_add', 'CONFIG_X=y', 'FOO')):
			self.assertEqual(getattr(cli.parse_args(['run', option, good]), option[2:]), [good])
			for argv in (['run', option, bad], ['mutants', option, bad],
				     ['run', option, '=1']):
				err = io.StringIO()
				with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as e:
					cli.parse_args(argv)
				self.assertEqual(e.exception.code, 2, argv)
				self.assertIn(f'argument {option}: {argv[-1]!r} is no ', err.getvalue())

	def test_a_tree_setup_would_refuse_is_refused_first(self) -> None:
		# One line, before any other output (the cost of the builds).
		tmp = tempfile.mkdtemp(prefix='pan-kunit-test-')
		self.addCleanup(shutil.rmtree, tmp)
		empty, other = os.path.join(tmp, 'empty'), os.path.join(tmp, 'other')
		os.mkdir(empty)
		write(os.path.join(other, 'README'), 'no kernel\n')
		for argv, error in (
				(['run', '--tree', empty], f'the tree {empty} is an empty directory: setup '
				 'extracts the kernel into a tree that does not exist yet, in a directory '
				 f'that does; remove it (rmdir {empty}), or give --tree a path inside it'),
				(['lkdtm', '--tree', other], f'{other} exists but is not a pan-kunit tree'),
				(['run', '--kernel', '6.1', '--tree', other],
				 f'{other} exists but is not a pan-kunit tree')):
			out = io.StringIO()
			with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), \
			     mock.patch.dict(os.environ, {'PAN_KUNIT_CACHE': tmp}):
				status = cli.main(argv)
			self.assertEqual(status, 2, argv)
			self.assertEqual(len(out.getvalue().splitlines()), 1, out.getvalue())
			self.assertIn(error, out.getvalue())

	def test_usage_errors_are_one_line_naming_the_command(self) -> None:
		for argv, error in (
				(['run', '--shard', '3/2'], "argument --shard: '3/2': shard 3 of 2"),
				(['run', '--timeout'], 'argument --timeout: expected one argument'),
				(['run', '--summary', '--failed'], 'argument --failed: not allowed with '
				 'argument --summary'),
				(['run', '--timeout', '-5'], 'argument --timeout: must be at least 1, not -5'),
				(['run', '--jobs', '0'], 'argument --jobs: must be at least 1, not 0'),
				(['mutants', '--mutant', 'nope'], 'unrecognized arguments: --mutant nope'),
				(['list', '--kernel', '9.9'], 'unrecognized arguments: --kernel 9.9'),
				(['bogus'], "argument COMMAND: invalid choice: 'bogus'")):
			err = io.StringIO()
			with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as e:
				cli.parse_args(argv)
			self.assertEqual(e.exception.code, 2, argv)
			command = 'pan-kunit' + (f' {argv[0]}' if argv[0] != 'bogus' else '')
			self.assertEqual(err.getvalue().splitlines(), [
				f'{command}: error: {err.getvalue().split(": error: ")[1].rstrip()}'])
			self.assertIn(f': error: {error}', err.getvalue())
			self.assertTrue(err.getvalue().endswith(f' (see tools/{command} --help)\n'))

	def test_help_keeps_to_80_columns_and_says_the_exit_status(self) -> None:
		out = io.StringIO()
		with contextlib.redirect_stdout(out), self.assertRaises(SystemExit), \
		     mock.patch.dict(os.environ, {'COLUMNS': '80'}):
			cli.parse_args(['--help'])
		lines = out.getvalue().splitlines()
		self.assertEqual([line for line in lines if len(line) > 80], [])
		self.assertIn('usage: pan-kunit [-h] [--tree DIR] COMMAND ...', lines)
		# As proc.Stopped exits, and a full disk, which may come after work.
		help_text = ' '.join(out.getvalue().split())
		self.assertIn(f'128 + the number of the signal that ended it (130 ^C, '
			      f'{128 + signal.SIGTERM} SIGTERM, {128 + signal.SIGHUP} SIGHUP)', help_text)
		self.assertIn('or a full disk;', help_text)

	def test_tree_before_or_after_subcommand(self) -> None:
		self.assertEqual(cli.parse_args(['--tree', '/a', 'run']).tree, '/a')
		self.assertEqual(cli.parse_args(['run', '--tree', '/b']).tree, '/b')
		self.assertEqual(cli.parse_args(['--tree', '/a', 'setup', '--tree', '/b']).tree, '/b')
		self.assertIsNone(cli.parse_args(['setup']).tree)

	def _trees_used(self, argv: List[str], env: Dict[str, str]) -> List[str]:
		# Which trees setup was given: not the machine's packages, which
		# packages_test checks on fakes (the machine's dpkg-query took most
		# of this test's time).
		with mock.patch.dict(os.environ, env), mock.patch.object(targets, 'setup') as setup, \
		     mock.patch.object(targets, 'ensure_packages'):
			if 'PAN_KUNIT_TREE' not in env:
				os.environ.pop('PAN_KUNIT_TREE', None)
			self.assertEqual(cli.main(argv), 0)
		return [c.args[1].tree for c in setup.call_args_list]

	def test_tree_option_then_env_then_default(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			opt, env = os.path.join(tmp, 'opt'), os.path.join(tmp, 'env')
			# A tree that does not exist yet: --kernel says what goes in it.
			self.assertEqual(self._trees_used(['--tree', opt, 'setup', '--kernel', '6.1'],
							  {'PAN_KUNIT_TREE': env}), [opt])
			self.assertEqual(self._trees_used(['setup', '--kernel', '6.1'],
							  {'PAN_KUNIT_TREE': env}), [env])
			# The default trees' directories are created as needed.
			home = os.path.join(tmp, 'home')
			self.assertEqual(self._trees_used(['setup'], {'HOME': home}),
					 [f'{home}/.cache/pan-kunit/{k.package}'
					  for k in kernels.supported(REPO)])

	def test_tree_in_a_directory_that_does_not_exist_is_refused(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			typo = os.path.join(tmp, 'srcc', 'linux')
			write(os.path.join(tmp, 'file'), '')
			for argv, env, message in (
				(['--tree', typo, 'run'], {}, f'the tree {typo} does not exist, nor does its '
				 f'directory {os.path.dirname(typo)}; setup would extract'),
				(['mutants'], {'PAN_KUNIT_TREE': typo}, f'the tree {typo} does not exist'),
				(['setup', '--tree', os.path.join(tmp, 'file', 't')], {},
				 f'cannot create the tree {tmp}/file/t: {tmp}/file is not a directory')):
				err = io.StringIO()
				with mock.patch.dict(os.environ, env), mock.patch.object(targets, 'setup') as setup, \
				     contextlib.redirect_stderr(err):
					self.assertEqual(cli.main(argv, repo=test_data_path('fake_repo')), 2)
				setup.assert_not_called()
				self.assertIn(message, err.getvalue())
			self.assertEqual(sorted(os.listdir(tmp)), ['file'])

	def test_unknown_config_lists_available_before_setup(self) -> None:
		err = io.StringIO()
		with mock.patch.object(targets, 'setup') as setup, contextlib.redirect_stderr(err):
			status = cli.main(['--tree', '/nonexistent', 'run', '--config', 'pass_pan',
					   '--config', 'nope'], repo=test_data_path('fake_repo'))
		self.assertEqual(status, 2)
		setup.assert_not_called()
		self.assertIn('unknown --config nope', err.getvalue())
		self.assertIn('builderror_pan, crash_pan, fail_pan, hang_pan, pass_pan, pass_ttbr0, skip_nopan',
			      err.getvalue())

	def test_filter_glob_of_no_suite_is_refused_before_setup(self) -> None:
		for argv, near in ((['run', 'arm64_pan_hotplg'], 'arm64_pan_hotplug'),
				   (['run', '--filter_glob', 'arm64_pan_enable.cpu_enable_pn'],
				    'arm64_pan_enable.cpu_enable_pan'),
				   (['coverage', '--filter_glob', 'pan_*'], '')):
			err = io.StringIO()
			with mock.patch.object(targets, 'setup') as setup, \
			     mock.patch.object(targets, 'ensure_packages') as ensure, \
			     contextlib.redirect_stderr(err):
				self.assertEqual(cli.main(['--tree', '/nonexistent'] + argv + ['--kernel', '7.3'],
						 repo=REPO), 2)
			setup.assert_not_called()
			ensure.assert_not_called()
			self.assertIn(f'matches no suite or case of kunit/' +
				      (f'; did you mean {near}' if near else '\n'), err.getvalue())
			self.assertIn('\n  the suites: arm64_alternative, ', err.getvalue())
		# A glob of a suite or case of the sources, or one that may name
		# the kernel's own suites (--kconfig_add), passes the check.
		for argv in (['run', 'arm64_pan_*'], ['run', 'arm64_*.cpu_enable_pan*'],
			     ['run', 'list_sort', '--kconfig_add', 'CONFIG_KUNIT_ALL_TESTS=y']):
			err = io.StringIO()
			with mock.patch.object(targets, 'setup', side_effect=Error('setup')), \
			     mock.patch.object(targets, 'ensure_packages'), contextlib.redirect_stderr(err), \
			     contextlib.redirect_stdout(io.StringIO()):
				self.assertEqual(cli.main(['--tree', '/nonexistent'] + argv + ['--kernel', '7.3'],
						 repo=REPO), 2)
			self.assertIn('pan-kunit run: error: setup', err.getvalue())

class ListTest(unittest.TestCase):

	def list(self, repo: str, installed: bool, columns: str='1000') -> str:
		out = io.StringIO()
		# Wide enough that no temporary path folds a line; the width has
		# its own checks, on this repo. No cache of trees: what the
		# user's trees say (a tree older than a patch names that patch's
		# path, one word longer than a narrow line) is no part of the test.
		env = {'PAN_KUNIT_TARBALL_DIR': '/nonexistent', 'COLUMNS': columns,
		       'PAN_KUNIT_CACHE': '/nonexistent'}
		with mock.patch.object(packages, 'is_installed', return_value=installed), \
		     mock.patch.object(packages, 'version', return_value=VERSION), \
		     mock.patch.dict(os.environ, env), contextlib.redirect_stdout(out):
			self.assertEqual(cli.main(['list'], repo=repo), 0)
		return out.getvalue()

	def test_configs_kernels_and_mutants(self) -> None:
		output = self.list(REPO, installed=True)
		key = configs.load(REPO, 'arm64_pan', None).build_key()
		ttbr0 = configs.load(REPO, 'arm64_ttbr0_pan', None).build_key()
		self.assertIn(f'QEMU configs ({REPO}/qemu_configs), one build per kconfig group:\n'
			      '    config               cpu                  kconfig group\n'
			      f'    arm64_nopan          cortex-a57           {key}\n'
			      f'    arm64_pan            max,pauth-impdef=on  {key}\n'
			      f'    arm64_pan_overrides  max,pauth-impdef=on  {key}\n'
			      f'    arm64_pan_sw_ttbr0   neoverse-n1          {ttbr0}\n'
			      f'    arm64_ttbr0_pan      cortex-a57           {ttbr0}\n',
			      output)
		self.assertIn('\nkernels:\n    6.1 (linux-source-6.1): series patches/6.1/series; Debian '
			      'package, 6.1.192-3 installed; /nonexistent/linux-source-6.1.tar.xz '
			      '(missing)\n', output)
		# At 80 columns the configs' table is not folded.
		at_80 = self.list(REPO, installed=True, columns='80')
		self.assertIn(f'\n    arm64_pan_overrides  max,pauth-impdef=on  {key}\n', at_80)
		# At 120 columns, folded at a "; ".
		at_120 = self.list(REPO, installed=True, columns='120')
		self.assertLessEqual(max(map(len, at_120.splitlines())), 120)
		self.assertIn('\nkernels:\n    6.1 (linux-source-6.1): series patches/6.1/series; Debian '
			      'package, 6.1.192-3 installed;\n        /nonexistent/linux-source-6.1.tar.xz '
			      '(missing)\n', at_120)
		self.assertIn('\n    pan-row-field-moved: arm64_pan_detect, arm64_cpufeature_match, '
			      'arm64_cpucap_table\n        cpufeature: the ARM64_HAS_PAN row reads '
			      'ID_AA64MMFR1_EL1 bits [27:24]\n', output)
		narrow = self.list(REPO, installed=True, columns='80')
		self.assertLessEqual(max(map(len, narrow.splitlines())), 80, narrow)
		# Nothing lost; a build's age may have moved on a minute since.
		def words(text: str) -> str:
			return re.sub(r'built (just now|[0-9]+ \w+ ago)', 'built', ' '.join(text.split()))
		self.assertEqual(words(narrow), words(output))
		# The suites and their cases, from their sources.
		self.assertIn('\nsuites (', output)
		self.assertIn('\n    arm64_pan_enable\n        cpu_enable_pan_every_cpu\n', output)
		self.assertIn('\n    6.12 (linux-source-6.12): ', output)
		self.assertIn('\n    pan-span-left-set: arm64_pan_enable, arm64_pan_hotplug\n'
			      '        cpu_enable_pan() leaves SCTLR_EL1.SPAN set\n', output)
		with tempfile.TemporaryDirectory() as tmp:
			repo = os.path.join(tmp, 'repo')
			shutil.copytree(test_data_path('fake_repo'), repo)
			output = self.list(repo, installed=False)
			self.assertIn('(linux-source-6.1): series patches/6.1/series; Debian package, not '
				      'installed', output)
			self.assertIn('6.12 (linux-source-6.12): not supported: no patches/6.12/series', output)
			self.assertTrue(output.endswith(f'mutants of 6.1 ({repo}/mutants/6.1), each with the '
							'suites that must fail:\n    (none)\n'),
					output)
			shutil.copytree(test_data_path('mutants'), os.path.join(repo, 'mutants', '6.1'))
			self.assertIn('\n    half: arm64_cpufeature_match, arm64_cpufeature_field\n'
				      '        a regression one of its two suites misses\n', self.list(repo, False))

	def test_a_build_is_stale_against_what_the_repo_merges_into_it(self) -> None:
		# The kconfig fragments (kconfig/) and the guest's C (guest/),
		# as well as the suites, patches and QEMU configs.
		with tempfile.TemporaryDirectory() as tmp:
			repo, tree_dir = os.path.join(tmp, 'repo'), os.path.join(tmp, 'tree')
			write(os.path.join(tree_dir, 'arch/arm64/kernel/tests/.kunitconfig'), '')
			image = os.path.join(tree_dir, '.pan-kunit', 'build', 'k', 'arch/arm64/boot/Image')
			write(image, 'Image')
			built = os.path.getmtime(image)
			for path in ('kconfig/lean.config', 'guest/lkdtm_init.c', 'kunitconfig',
				     'qemu_configs/arm64_pan.py', 'patches/6.1/series',
				     'kunit/arch/arm64/mm/tests/pan_helpers.h'):
				write(os.path.join(repo, path), '')
				os.utime(os.path.join(repo, path), (built - 5, built - 5))
			self.assertEqual(listing.tree_lines(tree_dir, repo, [])[1:],
					 [f'build k (other options): built just now'])
			for path in ('kconfig/lean.config', 'guest/lkdtm_init.c'):
				os.utime(os.path.join(repo, path), (built + 5, built + 5))
				self.assertEqual(listing.tree_lines(tree_dir, repo, [])[1:], [
					f'build k (other options): built just now; stale: the repo\'s {path} '
					'is newer'])
				os.utime(os.path.join(repo, path), (built - 5, built - 5))

	def test_trees_their_builds_and_a_broken_config(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			repo = os.path.join(tmp, 'repo')
			shutil.copytree(test_data_path('fake_repo'), repo)
			tree_dir = os.path.join(tmp, 'tree')
			write(os.path.join(tree_dir, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 1\n')
			write(os.path.join(tree_dir, 'arch/arm64/kernel/tests/.kunitconfig'), '')
			write(os.path.join(tree_dir, 'arch/arm64/kernel/cpufeature.c'), '')
			pan = configs.load(repo, 'pass_pan', None)
			ttbr0 = configs.load(repo, 'pass_ttbr0', None)
			build = os.path.join(tree_dir, '.pan-kunit', 'build')
			write(os.path.join(build, pan.build_key(), pan.kernel_path), 'Image')
			os.makedirs(os.path.join(build, ttbr0.build_key()))
			# An edit of the tree after the build makes it stale.
			later = os.path.getmtime(os.path.join(build, pan.build_key(), pan.kernel_path)) + 5
			os.utime(os.path.join(tree_dir, 'arch/arm64/kernel/cpufeature.c'), (later, later))
			write(os.path.join(repo, 'qemu_configs', 'broken.py'), 'QEMU_ARCH = None\n')
			out, err = io.StringIO(), io.StringIO()
			with mock.patch.object(packages, 'is_installed', return_value=False), \
			     mock.patch.dict(os.environ, {'COLUMNS': '1000'}), \
			     contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
				self.assertEqual(cli.main(['list', '--tree', tree_dir], repo=repo), 2)
			output = out.getvalue()
			# The broken config named, the others and everything else listed.
			self.assertIn('\n    broken: broken: ', output)
			self.assertIn('\n    pass_pan ', output)
			self.assertIn('broken QEMU configs: broken', err.getvalue())
			# --tree: that tree alone, of the kernel its Makefile names.
			self.assertIn(f'\ntrees:\n    6.1 {tree_dir}: prepared\n', output)
			self.assertRegex(output, r'\n        build [^\n]*pass_pan[^\n]*: built just now; '
					 r'stale: arch/arm64/kernel/cpufeature.c is newer\n')
			self.assertRegex(output, r'\n        build [^\n]*pass_ttbr0[^\n]*: not built\n')
			self.assertNotIn('.cache/pan-kunit', output)
			self.assertIn('\nsuites (0 cases in 0 suites of ', output)
			shutil.rmtree(os.path.join(tree_dir, 'arch'))
			out = io.StringIO()
			with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
			     mock.patch.object(packages, 'is_installed', return_value=False), \
			     mock.patch.dict(os.environ, {'COLUMNS': '1000'}):
				cli.main(['list', '--tree', tree_dir], repo=repo)
			self.assertIn(f'\n    6.1 {tree_dir}: not prepared: tools/pan-kunit setup prepares '
				      'it\n', out.getvalue())

@end_to_end
class ParseTest(unittest.TestCase):
	"""tools/pan-kunit parse, with the fake kunit_tool's parse."""

	def setUp(self) -> None:
		self.tmp = tempfile.mkdtemp(prefix='pan-kunit-test-')
		self.addCleanup(shutil.rmtree, self.tmp)
		self.home = os.path.join(self.tmp, 'home')
		self.trace = os.path.join(self.tmp, 'trace')
		patcher = mock.patch.dict(os.environ, {'HOME': self.home, 'FAKE_KUNIT_DATA': TEST_DATA,
						       'FAKE_KUNIT_TRACE': self.trace})
		patcher.start()
		self.addCleanup(patcher.stop)
		os.environ.pop('PAN_KUNIT_TREE', None)

	def tree_with_kunit_tool(self, tree_dir: str) -> str:
		kunit_dir = os.path.join(tree_dir, 'tools/testing/kunit')
		shutil.copytree(test_data_path('fake_kunit'), kunit_dir,
				ignore=shutil.ignore_patterns('__pycache__'))
		for name in ('kunit_parser.py', 'kunit_printer.py'):
			shutil.copyfile(os.path.join(kunit_tool_of('6.1'), name), os.path.join(kunit_dir, name))
		return tree_dir

	def parse(self, tree_dir: str, name: str) -> Tuple[int, str]:
		log = os.path.join(self.tmp, name)
		shutil.copyfile(test_data_path('console', name), log)
		out = io.StringIO()
		with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
			status = cli.main(['--tree', tree_dir, 'parse', log])
		return status, out.getvalue()

	def test_report_of_a_saved_console(self) -> None:
		tree_dir = self.tree_with_kunit_tool(os.path.join(self.tmp, 'tree'))
		status, output = self.parse(tree_dir, 'skips.log')
		self.assertEqual(status, 0, output)
		self.assertTrue(output.startswith(f'parsing {self.tmp}/skips.log with {tree_dir}/'
						  'tools/testing/kunit/kunit.py\n'), output)
		self.assertRegex(output, r'\n +[0-9]+  config lacks [^\n]*\n +skips\.log: '
				 r'arm64_cpufeature_match\.cpus_have_cap_agrees_with_id_registers')
		# 6.1 prints a skipped parameter as "ok": its case's tally says it skipped.
		self.assertIn('\narm64_cpufeature_match         1/0/3\nstatus                         pass\n',
			      output)
		self.assertTrue(output.endswith('\nparse: 3 passed, 0 failed, 3 skipped\n'), output)
		self.assertNotIn('total:', output)
		status, output = self.parse(tree_dir, 'fail.log')
		self.assertEqual(status, 1, output)
		self.assertIn('fail.log: fail', output)
		self.assertIn('Expected cpus_have_cap(ARM64_HAS_PAN) to be true', output)
		status, output = self.parse(tree_dir, 'panic.log')
		self.assertEqual(status, 1, output)
		self.assertIn('panic.log: crash', output)
		((*_, subcommand, json_file, log),) = [
			a for a in map(shlex.split, read(self.trace).splitlines())
			if a[0] == 'argv' and 'panic.log' in a[-1]]
		self.assertEqual((subcommand, log), ('parse', f'{self.tmp}/panic.log'))
		self.assertTrue(json_file.startswith('--json=/'), json_file)

	def test_console_cut_short_says_where_it_stopped(self) -> None:
		tree_dir = self.tree_with_kunit_tool(os.path.join(self.tmp, 'tree'))
		status, output = self.parse(tree_dir, '7.3_cut_short.log')
		self.assertEqual(status, 1, output)
		# The last suite and case that began (the case from the suite's
		# source), what did not run, and no made-up "(unnamed)" cases.
		self.assertIn('7.3_cut_short.log: crash\n'
			      '    the kernel stopped in arm64_cpucap_passes, case 4 of 13, the last to '
			      'begin:\n'
			      '        enable_cpu_capabilities_honours_scope\n'
			      '    did not run: the 9 cases after it, and 9 of the 10 suites the console '
			      'announced\n'
			      '    of the suites in kunit/, these did not begin:\n'
			      '        arm64_alternative, ', output)
		self.assertIn('\n    7.3_cut_short.log: [CRASHED] 9 suites never began\n', output)
		self.assertIn('\n(suites not begun)  ', output)
		self.assertNotIn('(unnamed)', output)

	def test_kunit_tool_of_the_default_tree_else_an_error(self) -> None:
		missing = os.path.join(self.tmp, 'no-tree')
		default = os.path.join(self.home, '.cache', 'pan-kunit', 'linux-source-6.1')
		log = os.path.join(self.tmp, 'pass.log')
		shutil.copyfile(test_data_path('console', 'pass.log'), log)
		out = io.StringIO()
		with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
			status = cli.main(['parse', log])
		self.assertEqual(status, 2, out.getvalue())
		cache = os.path.dirname(default)
		self.assertIn("pan-kunit parse: error: parse needs kunit_tool's parser, and there is no "
			      f'tools/testing/kunit/kunit.py in {cache}/linux-source-7.3 nor in '
			      f'{default}2 nor in {default}: run tools/pan-kunit setup first',
			      out.getvalue())
		self.tree_with_kunit_tool(default)
		with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
			status = cli.main(['parse', log])
		self.assertEqual(status, 0, out.getvalue())
		self.assertIn(f'with {default}/tools/testing/kunit/kunit.py', out.getvalue())
		# A tree named is the one used, or an error of one line, never
		# the default tree's parser instead.
		os.mkdir(os.path.join(self.tmp, 'empty'))
		for tree_dir, what in ((missing, 'does not exist'),
				       (os.path.join(self.tmp, 'empty'),
					'has no tools/testing/kunit/kunit.py')):
			status, output = self.parse(tree_dir, 'pass.log')
			self.assertEqual((status, output),
					 (2, f'pan-kunit parse: error: the tree {tree_dir} (--tree or '
					  f'PAN_KUNIT_TREE) {what}: name a kernel tree, or leave --tree '
					  "out to use the default trees' kunit_tool\n"))
		out = io.StringIO()
		with contextlib.redirect_stderr(out):
			status = cli.main(['parse', os.path.join(self.tmp, 'none.log')])
		self.assertEqual(status, 2)
		self.assertIn(f'cannot read {self.tmp}/none.log: No such file or directory',
			      out.getvalue())

	def test_no_ktap_is_refused(self) -> None:
		self.tree_with_kunit_tool(os.path.join(self.home, '.cache', 'pan-kunit',
						       'linux-source-6.1'))
		for name, content, why in (('empty.log', b'', 'it is empty'),
					   ('binary.log', bytes(range(256)) * 40, 'it is no text'),
					   ('boot.log', b'Booting Linux\nKernel panic\n',
					    'no "KTAP version 1" or "TAP version 14" line')):
			path = os.path.join(self.tmp, name)
			with open(path, 'wb') as f:
				f.write(content)
			out = io.StringIO()
			with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
				status = cli.main(['parse', path])
			self.assertEqual(status, 2, out.getvalue())
			self.assertIn(f'{path} holds no KTAP output ({why})', out.getvalue())
			self.assertLess(len(out.getvalue()), 300)

class FullDiskTest(unittest.TestCase):

	def test_a_full_disk_no_caller_named_is_exit_2_naming_the_file(self) -> None:
		full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), '/c/linux/.pan-kunit/x')
		for raised, message in ((full, 'pan-kunit list: error: cannot write /c/linux/.pan-kunit/x: '
					   'No space left on device; the disk is full: free space on it, '
					   'then run again\n'),
					 (OSError(errno.EDQUOT, os.strerror(errno.EDQUOT)),
					  'pan-kunit list: error: cannot write a file: Disk quota exceeded; the '
					  'disk is full: free space on it, then run again\n')):
			out = io.StringIO()
			with mock.patch.dict(cli.COMMANDS, {'list': dataclasses.replace(cli.COMMANDS['list'],
					handler=mock.Mock(side_effect=raised))}), \
			     contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
				status = cli.main(['list'])
			self.assertEqual((status, out.getvalue()), (2, message))

@end_to_end
class SignalTest(unittest.TestCase):

	def test_sigterm_ends_the_run_as_interrupt_does_with_its_status(self) -> None:
		# In a child process: without the handler, SIGTERM kills it, not
		# the whole unittest run.
		child = ('import os, signal, sys\n'
			 'from unittest import mock\n'
			 'from pan_kunit.commands import cli, run\n'
			 'def killed(*args):\n'
			 '\tos.kill(os.getpid(), signal.SIGTERM)\n'
			 '\treturn 0\n'
			 'with mock.patch.object(run, "run_tests", side_effect=killed):\n'
			 '\tsys.exit(cli.main(["--tree", "/nonexistent", "run", "--kernel", "6.1"]))\n')
		result = subprocess.run([sys.executable, '-c', child], cwd=os.path.dirname(TEST_DATA),
					stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
					timeout=60, check=False)
		self.assertEqual(result.returncode, 128 + signal.SIGTERM, result.stderr)
		self.assertEqual(result.stderr, 'pan-kunit: stopped by SIGTERM\n')


if __name__ == '__main__':
	unittest.main()

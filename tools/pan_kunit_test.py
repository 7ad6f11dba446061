#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests for tools/pan-kunit:
#   python3 -m unittest discover -s tools -p '*_test.py'
# No kernel build, no QEMU, no network: the tree comes from a tiny tarball
# of test_data/fake_source, and its kunit_tool is test_data/fake_kunit.
# setUpModule() prepares one tree of it; the tests of what comes after a
# setup start from a copy of that tree, not from an extraction of their own.

import contextlib
import fnmatch
import fcntl
import glob
import importlib
import io
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import threading
import time
import types
import unittest
import xml.etree.ElementTree as ET
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple, TypeVar
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pan_kunit import (Error, cli, configs, coverage, export, gitcmd, hooks, initramfs, junit,
		       kernels, ktap, kunit_build, kunit_tool, lcov, lkdtm, mutants, packages, proc,
		       progress, results, runner, selftest, series, series_bisect, sources, steps,
		       summary, targets, tree, worktree)

TEST_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test_data')
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VERSION = '6.1.192-3'
KERNEL = kernels.by_name('6.1')
assert KERNEL is not None
PATCH_1 = '0001-arm64-cpufeature-let-KUnit-suites-call-has_cpuid_fea.patch'
PATCH_2 = '0002-arm64-kernel-build-the-cpufeature-KUnit-suite.patch'
PATCH_3 = '0003-arm64-cpufeature-document-the-PAN-levels.patch'
STALE_PATCH = '0002-arm64-cpufeature-stale-context.patch'
SUITE_C = 'arch/arm64/kernel/cpufeature_fake_test.c'
SUITE_H = 'arch/arm64/kernel/cpufeature_fake_test.h'
# For commits the tests make as a developer would.
USER_GIT_ENV = {
	'GIT_CONFIG_GLOBAL': os.devnull, 'GIT_CONFIG_NOSYSTEM': '1',
	'GIT_AUTHOR_NAME': 'Grace Hopper', 'GIT_AUTHOR_EMAIL': 'grace@example.org',
	'GIT_COMMITTER_NAME': 'Grace Hopper', 'GIT_COMMITTER_EMAIL': 'grace@example.org',
}

module_tmpdir = ''
tarball = ''
# The tree setup makes of the tarball and test_data/fake_repo, made once:
# FakeKunitTestCase copies it (.git and all) for each test.
prepared_tree = ''
# What FakeKunitTestCase gives pan-kunit as sys.executable, to run the fake
# kunit.py with: Python without site-packages, which the fake does not
# need, and whose .pth files can cost more than all that the fake does.
fake_kunit_python = ''
# packages.require, which FakeKunitTestCase replaces: the fake kunit_tool
# needs no cross compiler and no QEMU.
REAL_REQUIRE = packages.require

# What console/fail_two.log fails, and how run prints it.
FIELD_PARAM_FAILED = ('arm64_cpufeature_field.cpuid_feature_extract_signed_field_every_position'
		      '[bits [7:4]]')
MATCH_CASE_FAILED = 'arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu'
MATCH_CASE_LOG = [
	'# has_cpuid_feature_pan_every_cpu: EXPECTATION FAILED at '
	'arch/arm64/kernel/cpufeature_match_test.c:416',
	'Expected cpus_have_cap(ARM64_HAS_PAN) to be true, but is false']
# The KUNIT_FAIL() message and KUNIT_EXPECT_EQ_MSG()'s are printed unindented.
FAILED_BLOCK_6_1 = [
	'    [FAILED] ' + FIELD_PARAM_FAILED,
	'        # cpuid_feature_extract_signed_field_every_position: EXPECTATION FAILED at '
	'arch/arm64/kernel/cpufeature_field_test.c:91',
	'        cpuid_feature_extract_signed_field(0x0000000000000080, field 4, width 4) = 8, '
	'expected -8',
	'        # cpuid_feature_extract_signed_field_every_position: EXPECTATION FAILED at '
	'arch/arm64/kernel/cpufeature_field_test.c:99',
	'        Expected c->mismatches == 0U, but',
	'            c->mismatches == 1',
	'            0U == 0',
	'        1 of 32 extractions were wrong',
	'    [FAILED] ' + MATCH_CASE_FAILED] + ['        ' + line for line in MATCH_CASE_LOG]
COMMIT = 'c0ffee' * 6 + 'c0ff'

def test_data_path(*parts: str) -> str:
	return os.path.join(TEST_DATA, *parts)

def kunit_tool_of(kernel: str) -> str:
	"""A copy of that kernel's kunit_parser.py and kunit_printer.py."""
	return test_data_path('kunit_tool', kernel)

def _no_pycache(info: tarfile.TarInfo) -> Optional[tarfile.TarInfo]:
	return None if '__pycache__' in info.name else info

# The caller's settings of pan-kunit (CI sets PAN_KUNIT_CACHE): the tests
# run without them, and each sets what it tests.
CALLER_SETTINGS = ('PAN_KUNIT_TREE', 'PAN_KUNIT_CACHE', 'PAN_KUNIT_TARBALL_DIR',
		   'PAN_KUNIT_OLDDEFCONFIG')
caller_settings: Dict[str, str] = {}

def setUpModule() -> None:
	"""Packs the fake source, with the fake kunit_tool, as Debian packs its
	tarball, and prepares a tree of it."""
	global module_tmpdir, tarball, prepared_tree, fake_kunit_python
	for name in CALLER_SETTINGS:
		if name in os.environ:
			caller_settings[name] = os.environ.pop(name)
	module_tmpdir = tempfile.mkdtemp(prefix='pan-kunit-test-')
	tarball = os.path.join(module_tmpdir, 'linux-source-6.1.tar.xz')
	with tarfile.open(tarball, 'w:xz') as tar:
		top = 'linux-source-6.1'
		tar.add(test_data_path('fake_source', top), arcname=top)
		tar.add(test_data_path('fake_source', 'debian.gitignore'), arcname=top + '/.gitignore')
		tar.add(test_data_path('fake_kunit'), arcname=top + '/tools/testing/kunit',
			filter=_no_pycache)
		for name in ('kunit_parser.py', 'kunit_printer.py'):
			tar.add(test_data_path('kunit_tool', '6.1', name),
				arcname=f'{top}/tools/testing/kunit/{name}')
	fake_kunit_python = os.path.join(module_tmpdir, 'python3-S')
	write(fake_kunit_python, f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -S "$@"\n')
	os.chmod(fake_kunit_python, 0o755)
	prepared_tree = os.path.join(module_tmpdir, 'prepared', 'linux-source-6.1')
	os.mkdir(os.path.dirname(prepared_tree))
	with contextlib.redirect_stdout(io.StringIO()):
		tree.setup(prepared_tree, KERNEL, sources.load(test_data_path('fake_repo'), KERNEL), tarball, VERSION)
	# One pack, not a directory per object: a copy makes 24 directories, not 63.
	tree.git(prepared_tree, 'repack', '-a', '-d', '-q')
	tree.git(prepared_tree, 'prune-packed')

def tearDownModule() -> None:
	shutil.rmtree(module_tmpdir)
	os.environ.update(caller_settings)

def read(path: str) -> str:
	with open(path) as f:
		return f.read()

def read_bytes(path: str) -> bytes:
	with open(path, 'rb') as f:
		return f.read()

def write(path: str, text: str) -> None:
	os.makedirs(os.path.dirname(path), exist_ok=True)
	with open(path, 'w') as f:
		f.write(text)

def mtimes(directory: str) -> Dict[str, int]:
	found = {}
	for root, dirs, files in os.walk(directory):
		dirs[:] = [d for d in dirs if d != '.git']
		for name in files:
			path = os.path.join(root, name)
			found[path] = os.lstat(path).st_mtime_ns
	return found

def process_running(pid: int) -> bool:
	"""False once pid has exited, even if nobody has reaped it yet."""
	try:
		with open(f'/proc/{pid}/stat') as f:
			state = f.read().rsplit(')', 1)[1].split()[0]
	except FileNotFoundError:
		return False
	return state != 'Z'

class TempDirTestCase(unittest.TestCase):
	"""A fresh copy of test_data/fake_repo, and a tree path beside it."""

	def setUp(self) -> None:
		self.tmp = tempfile.mkdtemp(prefix='pan-kunit-test-')
		self.addCleanup(shutil.rmtree, self.tmp)
		self.repo = os.path.join(self.tmp, 'repo')
		shutil.copytree(test_data_path('fake_repo'), self.repo)
		self.tarball = os.path.join(self.tmp, 'linux-source-6.1.tar.xz')
		shutil.copyfile(tarball, self.tarball)
		self.tree = os.path.join(self.tmp, 'cache', 'linux-source-6.1')
		os.mkdir(os.path.dirname(self.tree))  # as a --tree's directory must exist

	def copy_prepared_tree(self) -> None:
		"""What self.setup_tree() makes of fake_repo, copied from the tree
		setUpModule() made: for the tests of what comes after a setup."""
		shutil.copytree(prepared_tree, self.tree, symlinks=True)

	def setup_tree(self, version: str=VERSION) -> str:
		"""Runs tree.setup() and returns what it printed."""
		out = io.StringIO()
		with contextlib.redirect_stdout(out):
			tree.setup(self.tree, KERNEL, sources.load(self.repo, KERNEL), self.tarball, version)
		return out.getvalue()

	def git(self, *args: str) -> str:
		result = subprocess.run(['git', '-C', self.tree] + list(args), check=True, text=True,
					stdout=subprocess.PIPE, env=dict(os.environ, **USER_GIT_ENV))
		return result.stdout.strip()

	def set_series(self, *names: str) -> None:
		for name in names:
			if not os.path.exists(os.path.join(self.repo, 'patches', '6.1', name)):
				shutil.copy(test_data_path('patches', name),
					    os.path.join(self.repo, 'patches', '6.1'))
		write(os.path.join(self.repo, 'patches', '6.1', 'series'), '\n'.join(names) + '\n')

class ArgsTest(unittest.TestCase):

	def test_config_repeated_and_defaults(self) -> None:
		args = cli.parse_args(['run', '--config', 'b', '--config', 'a'])
		self.assertEqual(args.config, ['b', 'a'])
		self.assertEqual(args.timeout, 300)
		self.assertEqual(args.jobs, os.cpu_count())
		self.assertIsNone(args.json)

	def test_each_command_gets_a_request_of_its_own(self) -> None:
		args = cli.parse_args(['run', 'arm64_*', '--kconfig_add', 'CONFIG_X=y', '--json', 'r.json',
				       '--config', 'a'])
		self.assertEqual(cli.run_request(args), cli.RunRequest(
			configs=['a'], timeout=300, jobs=args.jobs,
			options=runner.KunitOptions('arm64_*', ['CONFIG_X=y'], []), json='r.json',
			junit=None, raw_output=None))
		args = cli.parse_args(['bisect', 'rel/series', '--step', '2', '--timeout', '9'])
		request = cli.bisect_request(args)
		self.assertEqual((request.series, request.step, request.timeout), ('rel/series', 2, 9))
		self.assertEqual(cli.mutants_request(cli.parse_args(['mutants', '--only', 'x'])).timeout,
				 mutants.TIMEOUT)
		request = cli.export_request(cli.parse_args(['export', 'out', '--no-build']))
		self.assertEqual((request.out, request.no_build, request.options),
				 (os.path.abspath('out'), True, runner.KunitOptions()))

	def test_coverage_takes_what_run_does_but_reports(self) -> None:
		args = cli.parse_args(['coverage', '--kernel', '6.12', '--config', 'a',
				       '--filter_glob', 'arm64_pan', '--kconfig_add', 'CONFIG_X=y'])
		self.assertEqual((args.kernel, cli.boot_request(args)), (['6.12'], cli.BootRequest(
			configs=['a'], timeout=300, jobs=args.jobs,
			options=runner.KunitOptions('arm64_pan', ['CONFIG_X=y'], []))))
		with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
			cli.parse_args(['coverage', '--json', 'x.json'])

	def test_bad_numbers_are_usage_errors(self) -> None:
		with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as e:
			cli.parse_args(['run', '--timeout', '0'])
		self.assertEqual(e.exception.code, 2)

	def test_tree_before_or_after_subcommand(self) -> None:
		self.assertEqual(cli.parse_args(['--tree', '/a', 'run']).tree, '/a')
		self.assertEqual(cli.parse_args(['run', '--tree', '/b']).tree, '/b')
		self.assertEqual(cli.parse_args(['--tree', '/a', 'setup', '--tree', '/b']).tree, '/b')
		self.assertIsNone(cli.parse_args(['setup']).tree)

	def _trees_used(self, argv: List[str], env: Dict[str, str]) -> List[str]:
		with mock.patch.dict(os.environ, env), mock.patch.object(targets, 'setup') as setup:
			if 'PAN_KUNIT_TREE' not in env:
				os.environ.pop('PAN_KUNIT_TREE', None)
			self.assertEqual(cli.main(argv), 0)
		return [c.args[0].tree for c in setup.call_args_list]

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

class ListTest(unittest.TestCase):

	def list(self, repo: str, installed: bool) -> str:
		out = io.StringIO()
		with mock.patch.object(packages, 'is_installed', return_value=installed), \
		     mock.patch.object(packages, 'version', return_value=VERSION), \
		     mock.patch.dict(os.environ, {'PAN_KUNIT_TARBALL_DIR': '/nonexistent'}), \
		     contextlib.redirect_stdout(out):
			self.assertEqual(cli.main(['list'], repo=repo), 0)
		return out.getvalue()

	def test_configs_kernels_and_mutants(self) -> None:
		output = self.list(REPO, installed=True)
		key = configs.load(REPO, 'arm64_pan', None).build_key()
		ttbr0 = configs.load(REPO, 'arm64_ttbr0_pan', None).build_key()
		self.assertIn(f'QEMU configs ({REPO}/qemu_configs):\n'
			      '    config              cpu                  kconfig group  shares its build with\n'
			      f'    arm64_nopan         cortex-a57           {key}   arm64_pan\n'
			      f'    arm64_pan           max,pauth-impdef=on  {key}   arm64_nopan\n'
			      f'    arm64_pan_sw_ttbr0  max,pauth-impdef=on  {ttbr0}   arm64_ttbr0_pan\n'
			      f'    arm64_ttbr0_pan     cortex-a57           {ttbr0}   arm64_pan_sw_ttbr0\n',
			      output)
		self.assertIn('\nkernels:\n    6.1 (linux-source-6.1): series patches/6.1/series; Debian '
			      'package, 6.1.192-3 installed; /nonexistent/linux-source-6.1.tar.xz '
			      '(missing); tree ', output)
		self.assertIn('\n    6.12 (linux-source-6.12): ', output)
		self.assertRegex(output, r'\n    pan-span-left-set +arm64_pan_enable, arm64_pan_hotplug +'
				 r'cpu_enable_pan\(\) leaves '
				 r'SCTLR_EL1.SPAN set\n')
		with tempfile.TemporaryDirectory() as tmp:
			repo = os.path.join(tmp, 'repo')
			shutil.copytree(test_data_path('fake_repo'), repo)
			output = self.list(repo, installed=False)
			self.assertIn('(linux-source-6.1): series patches/6.1/series; Debian package, not '
				      'installed', output)
			self.assertIn('6.12 (linux-source-6.12): not supported: no patches/6.12/series', output)
			self.assertTrue(output.endswith(f'mutants of 6.1 ({repo}/mutants/6.1):\n    (none)\n'),
					output)
			shutil.copytree(test_data_path('mutants'), os.path.join(repo, 'mutants', '6.1'))
			self.assertIn('    half      arm64_cpufeature_match, arm64_cpufeature_field  a '
				      'regression one of its two suites misses\n', self.list(repo, False))

def lacking(*names: str) -> Callable[[Sequence[str]], Set[str]]:
	"""A packages.installed() that has every package but @names."""
	return lambda wanted: {p for p in wanted if p not in names}

class PackagesTest(unittest.TestCase):

	def setUp(self) -> None:
		self.apt_calls: List[List[str]] = []

	def apt_get(self, args: List[str]) -> int:
		self.apt_calls.append(args)
		return 0

	def test_missing_as_user_names_the_command(self) -> None:
		with self.assertRaises(Error) as e:
			packages.ensure(installed=lacking('bc', 'qemu-system-arm'),
					euid=lambda: 1000, apt_get=self.apt_get)
		self.assertIn('run as root: apt-get install -y --no-install-recommends '
			      'qemu-system-arm bc', str(e.exception))
		self.assertEqual(self.apt_calls, [])

	def test_missing_as_root_installs_them(self) -> None:
		with contextlib.redirect_stdout(io.StringIO()):
			packages.ensure(installed=lacking('bc', 'qemu-system-arm'),
					euid=lambda: 0, apt_get=self.apt_get)
		self.assertEqual(self.apt_calls, [
			['update'],
			['install', '-y', '--no-install-recommends', 'qemu-system-arm', 'bc']])

	def test_failing_apt_get_is_an_error(self) -> None:
		with contextlib.redirect_stdout(io.StringIO()), self.assertRaises(Error) as e:
			packages.ensure(installed=lacking('flex'), euid=lambda: 0,
					apt_get=lambda args: 100 if args[0] == 'install' else 0)
		self.assertIn('apt-get install -y --no-install-recommends flex failed', str(e.exception))

	def test_a_commands_extra_packages_are_installed_with_the_rest(self) -> None:
		with contextlib.redirect_stdout(io.StringIO()):
			packages.ensure(['linux-source-6.12'], coverage.PACKAGES,
					installed=lambda wanted: set(wanted) & set(packages.NEEDED),
					euid=lambda: 0, apt_get=self.apt_get)
		self.assertEqual(self.apt_calls[-1], ['install', '-y', '--no-install-recommends',
						      'linux-source-6.12', 'lcov'])

	def test_all_present_runs_nothing(self) -> None:
		euid = mock.Mock(return_value=1000)
		packages.ensure(installed=set, euid=euid, apt_get=self.apt_get)
		euid.assert_not_called()
		self.assertEqual(self.apt_calls, [])

	def fake_dpkg(self, **env: str) -> Any:
		fake = test_data_path('fake_dpkg')
		return mock.patch.dict(os.environ, dict(env, PATH=fake + os.pathsep + os.environ['PATH']))

	def test_installed_asks_dpkg_query_once(self) -> None:
		with self.fake_dpkg(), \
		     mock.patch.object(subprocess, 'run', wraps=subprocess.run) as run:
			# flex: removed, its configuration kept; libssl-dev: so for the
			# host's amd64, installed for arm64 only; libc6-dev: amd64 and
			# i386; make: a trigger pending; lcov: unknown to dpkg.
			self.assertEqual(packages.installed(['bc', 'flex', 'libssl-dev', 'libc6-dev',
							     'make', 'linux-source-6.1', 'lcov']),
					 {'bc', 'libc6-dev', 'make', 'linux-source-6.1'})
			self.assertEqual([c.args[0][0] for c in run.call_args_list], ['dpkg', 'dpkg-query'])
			self.assertTrue(packages.is_installed('bc'))
			self.assertFalse(packages.is_installed('lcov'))
		self.assertEqual(packages.installed([]), set())

	def test_a_failing_dpkg_query_is_an_error(self) -> None:
		# Not "every package is missing", which would install them all.
		with self.fake_dpkg(FAKE_DPKG_BROKEN='1'), self.assertRaises(Error) as e:
			packages.ensure(euid=lambda: 0, apt_get=self.apt_get)
		self.assertEqual(str(e.exception), "dpkg-query -W failed (exit 2): dpkg-query: error: "
				 "parsing file '/var/lib/dpkg/status' near line 7: newline in field "
				 "name '#padding'")
		self.assertEqual(self.apt_calls, [])

	def test_no_dpkg_query_is_no_debian_host(self) -> None:
		with tempfile.TemporaryDirectory() as empty, \
		     mock.patch.dict(os.environ, {'PATH': empty}):
			with self.assertRaises(Error) as e:
				packages.ensure(['linux-source-6.1'])
			self.assertIn('no dpkg-query: this is not a Debian host. pan-kunit builds '
				      "Debian's linux-source-6.1 and installs what it needs only on Debian, "
				      'with apt-get; it needs the Debian packages: linux-source-6.1 '
				      'gcc-aarch64-linux-gnu qemu-system-arm', str(e.exception))
			with self.assertRaisesRegex(Error, 'no dpkg-query'):
				packages.version('linux-source-6.1')
			# And from the command line: exit 2 and the message, no traceback.
			err = io.StringIO()
			with contextlib.redirect_stderr(err):
				status = cli.main(['--tree', os.path.join(empty, 'tree'), 'setup'],
						  repo=test_data_path('fake_repo'))
			self.assertEqual(status, 2)
			self.assertTrue(err.getvalue().startswith('pan-kunit: error: no dpkg-query: '),
					err.getvalue())
			self.assertEqual(os.listdir(empty), [])

	def test_missing_tools_are_named_with_their_packages(self) -> None:
		on_path = {'git', 'tar', 'xz', 'make', 'gcc', 'bc', 'bison', 'flex'}
		which = lambda c: f'/usr/bin/{c}' if c in on_path else None
		with self.assertRaises(Error) as e:
			REAL_REQUIRE(packages.SETUP_TOOLS + packages.BUILD_TOOLS + packages.BOOT_TOOLS,
				     'run', which=which)
		self.assertIn('run needs aarch64-linux-gnu-gcc (Debian package gcc-aarch64-linux-gnu), '
			      'qemu-system-aarch64 (Debian package qemu-system-arm), not found on PATH',
			      str(e.exception))
		REAL_REQUIRE(packages.SETUP_TOOLS, 'export', which=which)

	def test_no_git_is_an_error(self) -> None:
		with tempfile.TemporaryDirectory() as empty, \
		     mock.patch.dict(os.environ, {'PATH': empty}), \
		     self.assertRaisesRegex(Error, r'git is not installed \(Debian package git, '):
			tree.git(empty, 'status')

class SourcesTest(TempDirTestCase):

	def test_series_order_and_suites(self) -> None:
		write(os.path.join(self.repo, 'patches', '6.1', 'series'),
		      f'# comment\n\n{PATCH_2}\n{PATCH_1}  # reordered\n')
		loaded = sources.load(self.repo, KERNEL)
		self.assertEqual([os.path.basename(p) for p in loaded.patches], [PATCH_2, PATCH_1])
		self.assertEqual(sorted(loaded.suites),
				 sorted([sources.TREE_KUNITCONFIG, SUITE_C, SUITE_H]))
		self.assertEqual(loaded.suites[sources.TREE_KUNITCONFIG].decode(),
				 read(os.path.join(self.repo, 'kunitconfig')))

	def test_digests_follow_contents(self) -> None:
		before = sources.load(self.repo, KERNEL)
		write(os.path.join(self.repo, 'kunit', SUITE_H), '/* changed */\n')
		after = sources.load(self.repo, KERNEL)
		self.assertEqual(before.patches_digest(), after.patches_digest())
		self.assertNotEqual(before.suites_digest(), after.suites_digest())

	def test_missing_patch(self) -> None:
		write(os.path.join(self.repo, 'patches', '6.1', 'series'), 'nope.patch\n')
		with self.assertRaisesRegex(Error, r'series:1: no such patch: .*nope\.patch'):
			sources.load(self.repo, KERNEL)

class ConfigsTest(unittest.TestCase):

	def test_load_like_kunit_tool(self) -> None:
		kunit_dir = test_data_path('fake_kunit')
		pan = configs.load(test_data_path('fake_repo'), 'pass_pan', kunit_dir)
		nopan = configs.load(test_data_path('fake_repo'), 'skip_nopan', kunit_dir)
		broken = configs.load(test_data_path('fake_repo'), 'builderror_pan', kunit_dir)
		self.assertEqual((pan.cpu, nopan.cpu), ('max,pauth-impdef=on', 'cortex-a57'))
		self.assertEqual(pan.kernel_path, 'arch/arm64/boot/Image.gz')
		self.assertEqual(pan.kconfig, nopan.kconfig)  # same lines, another order
		groups = configs.group_by_kconfig([broken, nopan, pan])
		self.assertEqual([[c.name for c in g] for g in groups.values()],
				 [['builderror_pan'], ['skip_nopan', 'pass_pan']])
		self.assertEqual(len(pan.build_key()), 12)
		# A --kconfig_add is a build of its own; none keeps the build it had.
		self.assertEqual(pan.build_key([]), pan.build_key())
		self.assertNotEqual(pan.build_key(['CONFIG_KASAN=y']), pan.build_key())
		self.assertFalse(os.path.exists(test_data_path('fake_repo', 'qemu_configs', '__pycache__')))

	def test_the_repo_configs_share_a_build(self) -> None:
		loaded = [configs.load(REPO, name, test_data_path('fake_kunit'))
			  for name in configs.select(REPO, [])]
		self.assertEqual({c.name: c.cpu for c in loaded},
				 {'arm64_nopan': 'cortex-a57', 'arm64_pan': 'max,pauth-impdef=on',
				  'arm64_pan_sw_ttbr0': 'max,pauth-impdef=on',
				  'arm64_ttbr0_pan': 'cortex-a57'})
		# Each kconfig is built once, for a CPU with PAN and one without.
		groups = configs.group_by_kconfig(loaded)
		self.assertEqual(sorted([c.name for c in g] for g in groups.values()),
				 [['arm64_nopan', 'arm64_pan'], ['arm64_pan_sw_ttbr0', 'arm64_ttbr0_pan']])
		by_name = {c.name: c for c in loaded}
		ttbr0 = by_name['arm64_ttbr0_pan']
		self.assertIn('CONFIG_ARM64_SW_TTBR0_PAN=y', ttbr0.kconfig.splitlines())
		self.assertEqual(lkdtm.pan_source(ttbr0), lkdtm.PanSource.SW_TTBR0)
		# With SW TTBR0 PAN built in, a CPU with PAN provides it.
		self.assertEqual(lkdtm.pan_source(by_name['arm64_pan_sw_ttbr0']), lkdtm.PanSource.CPU)
		self.assertIsNone(lkdtm.pan_source(by_name['arm64_nopan']))

	def broken_repo(self, tmp: str) -> str:
		"""fake_repo's configs, and one broken config of each kind."""
		repo = os.path.join(tmp, 'repo')
		shutil.copytree(test_data_path('fake_repo', 'qemu_configs'),
				os.path.join(repo, 'qemu_configs'))
		write(os.path.join(repo, 'patches', '6.1', 'series'), '')
		good = read(test_data_path('fake_repo', 'qemu_configs', 'pass_pan.py'))
		broken = {
			'syntax': good.replace('kconfig=', 'kconfig=='),
			'no_arch': good.replace('QEMU_ARCH =', 'ARCH ='),
			'no_cpu': good.replace("'-cpu', 'max,pauth-impdef=on',", ''),
			'no_kernel_path': good.replace("kernel_path='arch/arm64/boot/Image.gz',", ''),
			'not_params': '\nQEMU_ARCH = 1\n',
		}
		for name, text in broken.items():
			write(os.path.join(repo, 'qemu_configs', name + '.py'), text)
		return repo

	def test_checked_without_a_tree(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			repo = self.broken_repo(tmp)
			# The stand-in QemuArchParams reads a config as kunit_tool does.
			for name in ('pass_pan', 'skip_nopan'):
				self.assertEqual(configs.load(repo, name, None),
						 configs.load(repo, name, test_data_path('fake_kunit')))
			path = os.path.join(repo, 'qemu_configs', '{}.py')
			for name, message in (
					('syntax', r'cannot load {}: .*\(syntax\.py, line 16\)'),
					('no_arch', r'{} does not define QEMU_ARCH'),
					('no_cpu', r"{}: no -cpu in extra_qemu_params; pan-kunit needs one"),
					('no_kernel_path', r"cannot load {}: .*missing 1 required .*'kernel_path'"),
					('not_params', r'{}: QEMU_ARCH is no QemuArchParams')):
				with self.assertRaisesRegex(Error, message.format(path.format(name))):
					configs.load(repo, name, None)
			self.assertNotIn(configs.QEMU_CONFIG_MODULE, sys.modules)

	def test_loaded_with_the_given_kunit_tool_not_a_cached_one(self) -> None:
		with tempfile.TemporaryDirectory() as kunit_dir:
			# A kunit_tool whose QemuArchParams needs one more field.
			write(os.path.join(kunit_dir, 'qemu_config.py'),
			      read(test_data_path('fake_kunit', 'qemu_config.py')) + '  extra: str\n')
			repo = test_data_path('fake_repo')
			configs.load(repo, 'pass_pan', None)
			configs.load(repo, 'pass_pan', test_data_path('fake_kunit'))
			with self.assertRaisesRegex(Error, "missing 1 required .*'extra'"):
				configs.load(repo, 'pass_pan', kunit_dir)
			configs.load(repo, 'pass_pan', test_data_path('fake_kunit'))

	def test_broken_config_fails_before_setup(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			repo = self.broken_repo(tmp)
			for command in (['run'], ['lkdtm'], ['bisect'], ['mutants'],
					['export', os.path.join(tmp, 'out')]):
				err = io.StringIO()
				start = time.monotonic()
				with mock.patch.object(targets, 'setup') as setup, contextlib.redirect_stderr(err):
					status = cli.main(['--tree', os.path.join(tmp, 'tree')] + command +
							  ['--config', 'pass_pan', '--config', 'no_cpu'], repo=repo)
				self.assertLess(time.monotonic() - start, 5)
				self.assertEqual(status, 2, command)
				setup.assert_not_called()
				self.assertIn('no_cpu.py: no -cpu in extra_qemu_params', err.getvalue())
			# lkdtm also needs to know whether the CPU has PAN.
			write(os.path.join(repo, 'qemu_configs', 'a64fx.py'),
			      read(os.path.join(repo, 'qemu_configs', 'pass_pan.py')).replace(
				      'max,pauth-impdef=on', 'a64fx'))
			err = io.StringIO()
			with mock.patch.object(targets, 'setup') as setup, contextlib.redirect_stderr(err):
				status = cli.main(['--tree', os.path.join(tmp, 'tree'), 'lkdtm',
						   '--config', 'a64fx'], repo=repo)
			self.assertEqual(status, 2)
			setup.assert_not_called()
			self.assertIn("no known PAN level for QEMU CPU 'a64fx'", err.getvalue())

	def test_select(self) -> None:
		repo = test_data_path('fake_repo')
		self.assertEqual(configs.select(repo, ['skip_nopan', 'pass_pan', 'pass_pan']),
				 ['pass_pan', 'skip_nopan'])
		self.assertEqual(len(configs.select(repo, [])), 7)

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
		self.assertEqual(self.load(directory), [DEMO_3, DEMO_1, DEMO_2])
		patches = series.load(directory, '', self.tmp)
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

class TreeSetupTest(TempDirTestCase):

	def test_fresh_extraction(self) -> None:
		output = self.setup_tree()
		self.assertIn(f'extracting {self.tarball} into {self.tree}, which does not exist yet',
			      output)
		self.assertIn(f'extracted {self.tarball}', output)
		self.assertIn('applied the 2 patches', output)
		self.assertEqual(self.git('rev-parse', '--abbrev-ref', 'HEAD'), 'pan-kunit')
		base = self.git('rev-parse', tree.BASE_REF)
		self.assertEqual(self.git('rev-list', '--max-parents=0', 'HEAD'), base)
		self.assertEqual(self.git('show', '-s', '--format=%s', base),
				 'Debian linux-source-6.1 6.1.192-3')
		sha256 = subprocess.run(['sha256sum', self.tarball], stdout=subprocess.PIPE,
					text=True, check=True).stdout.split()[0]
		self.assertIn(sha256, self.git('show', '-s', '--format=%b', base))
		# Debian's .gitignore ignores everything: the base still has every file.
		files = self.git('ls-tree', '-r', '--name-only', base).splitlines()
		self.assertIn('.gitignore', files)
		self.assertIn('tools/testing/kunit/kunit.py', files)
		with tarfile.open(self.tarball) as tar:
			self.assertEqual(len(files), len([m for m in tar.getmembers() if m.isfile()]))
		log = self.git('log', '--format=%an|%cn <%ce>|%s', tree.BASE_REF + '..HEAD').splitlines()
		self.assertEqual(log, [
			'pan-kunit|pan-kunit <pan-kunit@localhost>|pan-kunit: install KUnit suites',
			'Ada Lovelace|pan-kunit <pan-kunit@localhost>|arm64: kernel: build the cpufeature KUnit suite',
			'Ada Lovelace|pan-kunit <pan-kunit@localhost>|arm64: cpufeature: let KUnit suites call has_cpuid_feature()'])
		self.assertEqual(self.git('rev-parse', tree.PREPARED_REF), self.git('rev-parse', 'HEAD'))
		wanted = sources.load(self.repo, KERNEL)
		trailers = self.git('show', '-s', '--format=%(trailers:only)', 'HEAD')
		self.assertIn(f'Pan-Kunit-Patches: {wanted.patches_digest()}', trailers)
		self.assertIn(f'Pan-Kunit-Suites: {wanted.suites_digest()}', trailers)
		self.assertEqual(sorted(self.git('diff', '--name-only', 'HEAD^', 'HEAD').splitlines()),
				 sorted(wanted.suites))
		self.assertEqual(read(os.path.join(self.tree, sources.TREE_KUNITCONFIG)),
				 read(os.path.join(self.repo, 'kunitconfig')))
		exclude = read(os.path.join(self.tree, '.git', 'info', 'exclude')).splitlines()
		self.assertIn('/.pan-kunit/', exclude)
		self.assertIn('/.kunit/', exclude)
		self.assertEqual(tree.changed_files(self.tree), [])
		self.assertEqual(os.listdir(os.path.dirname(self.tree)), ['linux-source-6.1'])

	def test_second_setup_changes_nothing(self) -> None:
		self.copy_prepared_tree()
		head = self.git('rev-parse', 'HEAD')
		before = mtimes(self.tree)
		os.unlink(self.tarball)  # would fail if it extracted again
		os.makedirs(os.path.join(self.tree, '.pan-kunit', 'build'))  # outputs are fine
		start = time.monotonic()
		output = self.setup_tree()
		self.assertLess(time.monotonic() - start, 5)
		self.assertIn(f'{self.tree}: the patches of 6.1 and the KUnit suites are already '
			      'installed\n', output)
		self.assertNotIn('\nalready up to date', output)
		self.assertEqual(self.git('rev-parse', 'HEAD'), head)
		self.assertEqual(mtimes(self.tree), before)

	def test_changed_suites_replace_only_the_suites_commit(self) -> None:
		self.copy_prepared_tree()
		patch_commits = self.git('rev-parse', 'HEAD^', 'HEAD^^')
		before = mtimes(self.tree)
		write(os.path.join(self.repo, 'kunit', SUITE_C), '/* new suite */\n')
		os.unlink(os.path.join(self.repo, 'kunit', SUITE_H))
		write(os.path.join(self.repo, 'kunit', 'arch/arm64/kernel/extra_test.c'), '/* x */\n')
		os.unlink(self.tarball)
		output = self.setup_tree()
		self.assertIn('updating the suites', output)
		self.assertIn('2 files written, 1 removed', output)
		self.assertEqual(self.git('rev-parse', 'HEAD^', 'HEAD^^'), patch_commits)
		self.assertEqual(self.git('rev-parse', tree.PREPARED_REF), self.git('rev-parse', 'HEAD'))
		self.assertEqual(read(os.path.join(self.tree, SUITE_C)), '/* new suite */\n')
		self.assertFalse(os.path.exists(os.path.join(self.tree, SUITE_H)))
		self.assertEqual(sorted(self.git('diff', '--name-only', 'HEAD^', 'HEAD').splitlines()),
				 sorted([sources.TREE_KUNITCONFIG, SUITE_C, 'arch/arm64/kernel/extra_test.c']))
		after = mtimes(self.tree)
		for unchanged in (sources.TREE_KUNITCONFIG, 'arch/arm64/kernel/cpufeature.c'):
			path = os.path.join(self.tree, unchanged)
			self.assertEqual(after[path], before[path], unchanged)
		self.assertEqual(tree.changed_files(self.tree), [])
		self.assertIn('and the KUnit suites are already installed', self.setup_tree())

	def test_removed_suite_file_restores_the_file_it_replaced(self) -> None:
		write(os.path.join(self.repo, 'kunit', 'Makefile'), '# replaced\n')
		self.setup_tree()
		self.assertEqual(read(os.path.join(self.tree, 'Makefile')), '# replaced\n')
		os.unlink(os.path.join(self.repo, 'kunit', 'Makefile'))
		self.setup_tree()
		self.assertEqual(read(os.path.join(self.tree, 'Makefile')),
				 read(test_data_path('fake_source', 'linux-source-6.1', 'Makefile')))
		self.assertEqual(tree.changed_files(self.tree), [])

	def test_changed_patches_are_applied_again(self) -> None:
		self.copy_prepared_tree()
		base = self.git('rev-parse', tree.BASE_REF)
		self.set_series(PATCH_1, PATCH_2, PATCH_3)
		os.unlink(self.tarball)
		output = self.setup_tree()
		self.assertIn('updating the patches', output)
		self.assertIn('applied the 3 patches', output)
		self.assertEqual(self.git('rev-parse', tree.BASE_REF), base)
		self.assertEqual(self.git('log', '--format=%s', tree.BASE_REF + '..HEAD').splitlines(), [
			'pan-kunit: install KUnit suites',
			'arm64: cpufeature: document the PAN levels',
			'arm64: kernel: build the cpufeature KUnit suite',
			'arm64: cpufeature: let KUnit suites call has_cpuid_feature()'])
		self.assertIn('FEAT_PAN2', read(os.path.join(self.tree, 'arch/arm64/kernel/cpufeature.c')))
		self.assertEqual(tree.changed_files(self.tree), [])

	def test_dirty_tree_is_not_updated(self) -> None:
		self.copy_prepared_tree()
		head = self.git('rev-parse', 'HEAD')
		cpufeature = os.path.join(self.tree, 'arch/arm64/kernel/cpufeature.c')
		with open(cpufeature, 'a') as f:
			f.write('/* my edit */\n')
		write(os.path.join(self.tree, 'arch/arm64/kernel/scratch.c'), '/* mine */\n')
		# Up to date: edits are fine, and run names them.
		self.assertIn('and the KUnit suites are already installed', self.setup_tree())
		writes: List[str] = []
		class Recorder(io.StringIO):
			def write(self, text: str) -> int:
				writes.append(text)
				return len(text)
		with mock.patch.object(progress, '_current', None), \
		     contextlib.redirect_stdout(Recorder()):
			targets.note_edits(self.tree)
		# In one write: run notes them in a thread, while the builds print.
		self.assertEqual(writes, [f'note: building with uncommitted changes in {self.tree}: '
					  'arch/arm64/kernel/cpufeature.c, arch/arm64/kernel/scratch.c\n'])
		# An update would overwrite them: refused.
		write(os.path.join(self.repo, 'kunit', SUITE_H), '/* changed */\n')
		with self.assertRaises(Error) as e:
			self.setup_tree()
		self.assertIn('uncommitted changes:\n  arch/arm64/kernel/cpufeature.c\n'
			      '  arch/arm64/kernel/scratch.c\n', str(e.exception))
		self.assertEqual(self.git('rev-parse', 'HEAD'), head)
		self.assertTrue(read(cpufeature).endswith('/* my edit */\n'))
		self.assertTrue(os.path.exists(os.path.join(self.tree, 'arch/arm64/kernel/scratch.c')))

	def test_am_in_progress_is_not_touched(self) -> None:
		self.copy_prepared_tree()
		head = self.git('rev-parse', 'HEAD')
		am = subprocess.run(['git', '-C', self.tree, 'am', test_data_path('patches', STALE_PATCH)],
				    env=dict(os.environ, **USER_GIT_ENV), stdout=subprocess.PIPE,
				    stderr=subprocess.PIPE, check=False)
		self.assertNotEqual(am.returncode, 0)
		rebase_apply = os.path.join(self.tree, '.git', 'rebase-apply')
		self.assertTrue(os.path.isdir(rebase_apply))
		write(os.path.join(self.repo, 'kunit', SUITE_H), '/* changed */\n')
		with self.assertRaisesRegex(Error, 'has a git am or rebase in progress; finish it or '
					    'abort it'):
			self.setup_tree()
		self.assertTrue(os.path.isdir(rebase_apply))
		self.assertEqual(self.git('rev-parse', 'HEAD'), head)

	def test_user_commits_are_not_discarded(self) -> None:
		self.copy_prepared_tree()
		write(os.path.join(self.tree, 'arch/arm64/kernel/cpufeature.c'), '/* rewritten */\n')
		self.git('commit', '-q', '-a', '-m', 'arm64: my experiment')
		head = self.git('rev-parse', 'HEAD')
		short = self.git('rev-parse', '--short', 'HEAD')
		self.assertIn('and the KUnit suites are already installed', self.setup_tree())  # prepared is an ancestor
		write(os.path.join(self.repo, 'kunit', SUITE_H), '/* changed */\n')
		with self.assertRaises(Error) as e:
			self.setup_tree()
		self.assertIn(f'commits that pan-kunit did not make:\n  {short} arm64: my experiment\n',
			      str(e.exception))
		self.assertEqual(self.git('rev-parse', 'HEAD'), head)

	def test_foreign_directory_is_left_alone(self) -> None:
		write(os.path.join(self.tree, 'notes.txt'), 'mine\n')
		with self.assertRaisesRegex(Error, 'is not a pan-kunit tree'):
			self.setup_tree()
		self.git('init', '-q')
		with self.assertRaisesRegex(Error, 'is not a pan-kunit tree'):
			self.setup_tree()
		self.assertEqual(sorted(os.listdir(self.tree)), ['.git', 'notes.txt'])
		self.assertEqual(read(os.path.join(self.tree, 'notes.txt')), 'mine\n')

	def test_patch_that_does_not_apply_then_fixed(self) -> None:
		self.set_series(PATCH_1, STALE_PATCH, PATCH_2)
		with self.assertRaises(Error) as e:
			self.setup_tree()
		message = str(e.exception)
		self.assertIn(os.path.join(self.repo, 'patches', '6.1', STALE_PATCH) + ' does not apply', message)
		self.assertIn('error: patch failed: arch/arm64/kernel/cpufeature.c:23', message)
		self.assertIn('error: arch/arm64/kernel/cpufeature.c: patch does not apply', message)
		good = self.git('show', '-s', '--format=%h %s', 'HEAD')
		self.assertEqual(good.split(' ', 1)[1],
				 'arm64: cpufeature: let KUnit suites call has_cpuid_feature()')
		self.assertIn(f'is at {good}, the last commit that applied', message)
		self.assertFalse(os.path.exists(os.path.join(self.tree, '.git', 'rebase-apply')))
		self.assertEqual(tree.changed_files(self.tree), [])
		# The fixed series recovers from the partial tree.
		self.set_series(PATCH_1, PATCH_2)
		self.setup_tree()
		self.assertEqual(len(self.git('log', '--format=%s', tree.BASE_REF + '..HEAD').splitlines()), 3)
		self.assertEqual(self.git('rev-parse', tree.PREPARED_REF), self.git('rev-parse', 'HEAD'))

	def test_other_package_version_only_warns(self) -> None:
		self.copy_prepared_tree()
		err = io.StringIO()
		with contextlib.redirect_stderr(err):
			self.assertIn('and the KUnit suites are already installed', self.setup_tree(version='6.1.200-1'))
		self.assertIn('holds linux-source-6.1 6.1.192-3, but 6.1.200-1 is installed',
			      err.getvalue())

	def test_leftover_partial_extraction_is_removed(self) -> None:
		dead = subprocess.Popen(['true'])
		dead.wait()
		leftover = f'{self.tree}.partial-{dead.pid}'
		write(os.path.join(leftover, 'linux-source-6.1', 'Makefile'), 'half\n')
		self.assertIn(f'removing {leftover}', self.setup_tree())
		self.assertEqual(os.listdir(os.path.dirname(self.tree)), ['linux-source-6.1'])

class ResultsTest(unittest.TestCase):

	def kunit(self, name: str) -> results.JsonObj:
		data = results.read_json(test_data_path('kunit_json', name + '.json'))
		assert data is not None
		return data

	def console(self, name: str) -> str:
		return read(test_data_path('console', name + '.log'))

	def test_leaves_are_counted_per_suite(self) -> None:
		cells = {s: c.cell() for s, c in results.suite_counts(self.kunit('pass')).items()}
		# The parameterised cases are sub_groups: their parameters are the leaves.
		self.assertEqual(cells, {'arm64_cpufeature_field': '6/0/0',
					 'arm64_cpufeature_match': '3/0/0'})
		cells = {s: c.cell() for s, c in results.suite_counts(self.kunit('skips')).items()}
		self.assertEqual(cells, {'arm64_cpufeature_field': '2/0/0',
					 'arm64_cpufeature_match': '3/0/1'})
		counts = results.suite_counts(self.kunit('panic'))
		self.assertEqual(counts['arm64_cpufeature_match'],
				 results.Counts(passed=1, errors=1))
		self.assertEqual(counts['arm64_cpufeature_match'].cell(), '1/1/0')

	def classify(self, name: Optional[str], console: Optional[str], returncode: int,
		     timed_out: bool=False, elapsed: float=10.0) -> results.Status:
		return results.classify(self.kunit(name) if name else None,
					self.console(console) if console else None,
					results.Exit(returncode, timed_out, elapsed), 300)

	def test_status_rules(self) -> None:
		self.assertEqual(self.classify('pass', 'pass', 0), results.Status.PASS)
		self.assertEqual(self.classify('skips', 'skips', 0), results.Status.PASS)
		self.assertEqual(self.classify('fail', 'fail', 1), results.Status.FAIL)
		self.assertEqual(self.classify('panic', 'panic', 1), results.Status.CRASH)
		self.assertEqual(self.classify('no_ktap', 'no_ktap', 1), results.Status.CRASH)
		self.assertEqual(self.classify('no_tests', 'no_tests', 1), results.Status.NO_TESTS)
		self.assertEqual(self.classify(None, 'pass', 0), results.Status.CRASH)
		self.assertEqual(self.classify('pass', None, 0), results.Status.CRASH)
		self.assertEqual(self.classify('pass', 'pass', 1), results.Status.CRASH)
		self.assertEqual(self.classify('pass', 'pass', 0, timed_out=True), results.Status.TIMEOUT)
		self.assertEqual(self.classify('pass', 'pass', 0, elapsed=300.0), results.Status.TIMEOUT)

	def test_statuses_are_their_values(self) -> None:
		"""Printed, formatted, in JSON and XML, and as dict keys."""
		status = results.Status.BUILD_ERROR
		self.assertEqual((str(status), f'{status}', f'{status:>12}', '%s' % status),
				 ('build_error', 'build_error', ' build_error', 'build_error'))
		self.assertEqual(json.dumps({status: [results.Status.PASS]}), '{"build_error": ["pass"]}')
		self.assertEqual(ET.tostring(ET.Element('error', type=status)),
				 b'<error type="build_error" />')
		self.assertEqual({'build_error': 1}[status], 1)
		self.assertIn('ERROR', {ktap.CaseStatus.ERROR})
		self.assertEqual(results.Status('pass'), results.Status.PASS)

	def test_crashed_leaf_is_a_crash(self) -> None:
		# Whatever kunit.py's exit status and the other leaves say.
		self.assertEqual(self.classify('panic', 'panic', 0), results.Status.CRASH)
		kunit = self.kunit('fail')
		kunit['sub_groups'][0]['test_cases'].append({'name': '', 'status': 'ERROR'})
		self.assertEqual(results.classify(kunit, self.console('fail'),
						  results.Exit(1, False, 1.0), 300), results.Status.CRASH)

	def test_skip_lines_group_by_reason_within_120_columns(self) -> None:
		def result(name: str, reasons: Dict[str, str]) -> results.ConfigResult:
			found = mock.Mock(spec=results.ConfigResult)
			found.skip_reasons = reasons
			found.title.return_value = name
			found.kernel = mock.Mock(package='linux-source-7.3')
			return found
		long_case = 'arm64_pan_uaccess.' + 'x' * 120
		lines = results.skip_lines([
			result('arm64_nopan', {'a.one': 'CPU lacks PAN', 'a.two': 'CPU lacks PAN',
					       long_case: 'CPU lacks PAN', 'b.one': 'no EPAN'}),
			result('arm64_pan', {'b.one': 'no EPAN'})])
		self.assertEqual(lines[:3], ['', 'skipped, by reason (each case with its reason: '
					     '--json, --junit):', '   3  CPU lacks PAN'])
		self.assertTrue(lines[3].startswith('        arm64_nopan: a.one, a.two, arm64_pan_uaccess.x'))
		self.assertTrue(lines[3].endswith(' ...'))
		self.assertEqual(lines[4:], ['   2  no EPAN', '        arm64_nopan: b.one',
					     '        arm64_pan: b.one'])
		self.assertTrue(all(len(line) <= 120 for line in lines), lines)
		self.assertEqual(results.skip_lines([result('arm64_pan', {})]), [])

	def test_skip_reasons(self) -> None:
		self.assertEqual(results.skip_reasons(self.console('skips')), {
			'arm64_cpufeature_match.cpus_have_cap_agrees_with_id_registers':
				'config lacks ARM64_HAS_DCPOP: CONFIG_ARM64_PMEM=n',
			'arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu':
				'CPU lacks PAN: ID_AA64MMFR1_EL1.PAN=0'})
		# printk timestamps, "ok N - name", parameters, and a SKIP with no reason.
		self.assertEqual(results.skip_reasons(self.console('skips_nested')), {
			'arm64_cpufeature_match.feature_matches_kernel_rows.ARM64_HAS_EPAN':
				'config lacks ARM64_HAS_EPAN: CONFIG_ARM64_EPAN=n',
			'arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu':
				'CPU lacks PAN: ID_AA64MMFR1_EL1.PAN=0',
			'arm64_cpufeature_field.cpuid_feature_extract_field_width_every_width':
				'no narrow fields'})
		self.assertEqual(results.skip_reasons(self.console('pass')), {})

	def result(self, name: str, status: results.Status, kunit: Optional[str],
		   console: Optional[str]=None, kernel: str='6.1') -> results.ConfigResult:
		"""A result as runner would collect it, its cases parsed from
		console/CONSOLE.log with @kernel's kunit_parser."""
		text = self.console(console) if console else ''
		return results.ConfigResult(
			name=name, cpu='cortex-a57', qemu_config=f'/r/qemu_configs/{name}.py',
			build_dir='/t/.pan-kunit/build/0123456789ab', status=status,
			elapsed=None if status == results.Status.BUILD_ERROR else 12.34,
			skip_reasons=results.skip_reasons(text),
			kunit=self.kunit(kunit) if kunit else None,
			console_log='/t/test.log', exec_log='/t/exec.log',
			kernel=tree.Kernel('6.1.192', 'linux-source-6.1', '6.1.192-3', COMMIT, 'pan-kunit'),
			cases=ktap.parse(text, kunit_tool_of(kernel))[0] if console else [])

	def test_table_and_total(self) -> None:
		result_list = [self.result('a_pass', results.Status.PASS, 'pass'),
			       self.result('b_skips', results.Status.PASS, 'skips'),
			       self.result('c_panic', results.Status.CRASH, 'panic'),
			       self.result('d_no_json', results.Status.CRASH, None),
			       self.result('e_broken', results.Status.BUILD_ERROR, None),
			       self.result('f_fail', results.Status.FAIL, 'fail')]
		self.assertEqual(results.table(result_list), [
			'suite (passed/failed/skipped)  a_pass      b_skips     c_panic     d_no_json   e_broken     f_fail',
			'arm64_cpufeature_field         6/0/0       2/0/0       1/0/0       -           -            -',
			'arm64_cpufeature_match         3/0/0       3/0/1       1/1/0       -           -            1/1/0',
			'status                         pass        pass        crash       crash       build_error  fail',
			'cpu                            cortex-a57  cortex-a57  cortex-a57  cortex-a57  cortex-a57   cortex-a57',
			'elapsed (s)                    12.3        12.3        12.3        12.3        -            12.3'])
		# A crash with an ERROR leaf counts it; one with no leaves counts 1.
		self.assertEqual(results.total_line(result_list),
				 'total: 17 passed, 4 failed, 1 skipped')

	def test_unnamed_top_level_leaf(self) -> None:
		kunit = {'name': 'KUnit Test Group', 'sub_groups': [],
			 'test_cases': [{'name': '', 'status': 'ERROR'}]}
		self.assertEqual(list(results.suite_counts(kunit)), [results.UNNAMED])

	def test_json_record_is_kunit_tool_json_filled_in(self) -> None:
		result = self.result('a_fail', results.Status.FAIL, 'fail_two', 'fail_two')
		result.kconfig = 'CONFIG_A=y\nCONFIG_B=y'
		report = json.loads(json.dumps(results.report('/t', 'f00', [result])))
		self.assertEqual((report['tree'], report['head']), ('/t', 'f00'))
		(record,) = report['configs']
		kunit = self.kunit('fail_two')
		common = {'arch': 'arm64', 'defconfig': 'a_fail',
			  'build_environment': '/t/.pan-kunit/build/0123456789ab',
			  'lab_name': socket.gethostname(), 'kernel': '6.1.192', 'job': None,
			  'git_branch': 'pan-kunit', 'git_commit': COMMIT}
		# kunit_tool's nesting, with real values on every group.
		def shape(group: results.JsonObj) -> Any:
			return (group['name'], [shape(g) for g in group['sub_groups']],
				group['test_cases'])
		self.assertEqual(shape(record)[1:], shape(kunit)[1:])
		self.assertEqual(record['name'], 'a_fail')
		groups = [record] + record['sub_groups'] + record['sub_groups'][0]['sub_groups']
		self.assertEqual(len(groups), 4)
		for group in groups:
			self.assertEqual({k: group[k] for k in common}, common, group['name'])
		self.assertNotIn('kselftest', json.dumps(record))
		self.assertEqual({k: record[k] for k in ('status', 'cpu', 'qemu_config', 'kconfig',
							 'debian_package', 'debian_version',
							 'elapsed', 'skip_reasons')}, {
			'status': 'fail', 'cpu': 'cortex-a57', 'qemu_config': '/r/qemu_configs/a_fail.py',
			'kconfig': ['CONFIG_A=y', 'CONFIG_B=y'], 'debian_package': 'linux-source-6.1',
			'debian_version': '6.1.192-3', 'elapsed': 12.34, 'skip_reasons': {
				'arm64_cpufeature_match.cpus_have_cap_agrees_with_id_registers':
				'config lacks ARM64_HAS_DCPOP: CONFIG_ARM64_PMEM=n'}})
		self.assertEqual([(f['name'], f['status']) for f in record['failures']], [
			(FIELD_PARAM_FAILED, 'FAIL'), (MATCH_CASE_FAILED, 'FAIL')])
		self.assertEqual(record['failures'][1]['log'], MATCH_CASE_LOG)
		# A config that did not build is a group too, with no tests.
		broken = self.result('b_broken', results.Status.BUILD_ERROR, None).to_json()
		self.assertEqual((broken['name'], broken['sub_groups'], broken['test_cases'],
				  broken['status'], broken['kernel']),
				 ('b_broken', [], [], 'build_error', '6.1.192'))

	def report(self, result_list: List[results.ConfigResult]) -> List[str]:
		out = io.StringIO()
		with contextlib.redirect_stdout(out):
			results.print_report(result_list)
		return out.getvalue().splitlines()

	def test_every_failed_case_is_named_before_the_table(self) -> None:
		# The failing parameter is in the first suite, not the last.
		lines = self.report([self.result('a_fail', results.Status.FAIL, 'fail_two', 'fail_two'),
				     self.result('b_fail', results.Status.FAIL, 'fail_two', 'fail_two_6.12',
						 kernel='6.12'),
				     self.result('c_pass', results.Status.PASS, 'pass', 'pass')])
		table = [l.startswith('suite (passed/failed/skipped)') for l in lines].index(True)
		for config in ('a_fail', 'b_fail'):
			start = lines.index(f'{config}: fail')
			self.assertLess(start, table)
			got = lines[start + 1:start + 1 + len(FAILED_BLOCK_6_1)]
			if config == 'a_fail':
				self.assertEqual(got, FAILED_BLOCK_6_1)
			else:
				# 6.12 prints the values in hex too.
				self.assertEqual(got[:5] + got[7:], FAILED_BLOCK_6_1[:5] + FAILED_BLOCK_6_1[7:])
				self.assertEqual(got[5:7], ['            c->mismatches == 1 (0x1)',
							    '            0U == 0 (0x0)'])
		self.assertNotIn('c_pass: pass', lines)
		# A failed config's console tail is not needed: its cases say why.
		self.assertFalse([l for l in lines if l.startswith('--- ')], lines)

	def test_crashed_case_and_its_files(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			result = self.result('c_panic', results.Status.CRASH, 'panic', 'panic')
			result.console_log = os.path.join(tmp, 'test.log')
			result.parsed_log = os.path.join(tmp, 'parsed.log')
			result.record = os.path.join(tmp, 'results.json')
			shutil.copy(test_data_path('console', 'panic.log'), result.console_log)
			lines = self.report([result])
		start = lines.index('c_panic: crash')
		self.assertEqual(lines[start + 1:start + 3], [
			'    [CRASHED] arm64_cpufeature_match.(unnamed)',
			'        Unable to handle kernel paging request at virtual address 0000ffff8c6a1000'])
		self.assertIn(f'--- console: last 40 lines of {result.console_log}', lines)
		# The files of the boot that exist, named.
		self.assertIn(f'    console: {result.console_log}', lines)
		self.assertIn(f'    record: {result.record}', lines)
		self.assertNotIn(f'    parsed by kunit_parser: {result.parsed_log}', lines)
		self.assertNotIn('    kunit.py exec: /t/exec.log', lines)

	def test_junit(self) -> None:
		fail = self.result('a_fail', results.Status.FAIL, 'fail_two', 'fail_two_6.12', kernel='6.12')
		(param,) = [c for c in fail.cases if c.name() == FIELD_PARAM_FAILED]
		param.log.append('\x1b[1;31mcoloured\x00')  # XML cannot hold these
		result_list = [fail, self.result('b_skips', results.Status.PASS, 'skips', 'skips'),
			       self.result('c_panic', results.Status.CRASH, 'panic', 'panic'),
			       self.result('d_broken', results.Status.BUILD_ERROR, None),
			       self.result('e_hang', results.Status.TIMEOUT, None)]
		with tempfile.TemporaryDirectory() as tmp:
			path = os.path.join(tmp, 'junit.xml')
			junit.write(path, junit.document('pan-kunit run', [
				s for r in result_list for s in junit.config_suites(r)]))
			top = ET.parse(path).getroot()
		self.assertEqual(top.tag, 'testsuites')
		suites = {s.get('name'): s for s in top.findall('testsuite')}
		self.assertEqual(sorted(suites), ['linux-6.1.192/' + name for name in (
			'a_fail/arm64_cpufeature_field', 'a_fail/arm64_cpufeature_match',
			'b_skips/arm64_cpufeature_field', 'b_skips/arm64_cpufeature_match',
			'c_panic', 'c_panic/arm64_cpufeature_field', 'c_panic/arm64_cpufeature_match',
			'd_broken', 'e_hang')])
		suites = {(name or '')[len('linux-6.1.192/'):]: suite for name, suite in suites.items()}
		def counts(element: ET.Element) -> Tuple[str, ...]:
			return tuple(element.get(a, '') for a in ('tests', 'failures', 'errors', 'skipped'))
		self.assertEqual(counts(top), ('19', '2', '4', '3'))
		field = suites['a_fail/arm64_cpufeature_field']
		self.assertEqual(counts(field), ('4', '1', '0', '1'))
		properties = {p.get('name'): p.get('value') for p in field.iter('property')}
		self.assertEqual(properties, {
			'kernel': '6.1.192', 'debian_version': '6.1.192-3', 'git_commit': COMMIT,
			'git_branch': 'pan-kunit', 'config': 'a_fail', 'cpu': 'cortex-a57',
			'qemu_config': '/r/qemu_configs/a_fail.py', 'status': 'fail'})
		cases = {c.get('name'): c for c in field.findall('testcase')}
		self.assertEqual({c.get('classname') for c in cases.values()}, {'a_fail.arm64_cpufeature_field'})
		self.assertEqual(sorted(cases), [
			'cpuid_feature_extract_field_width_every_width',
			'cpuid_feature_extract_signed_field_every_position.bits [3:0]',
			'cpuid_feature_extract_signed_field_every_position.bits [63:60]',
			'cpuid_feature_extract_signed_field_every_position.bits [7:4]'])
		failure = cases['cpuid_feature_extract_signed_field_every_position.bits [7:4]'].find('failure')
		assert failure is not None and failure.text is not None
		self.assertEqual(failure.get('message'), FAILED_BLOCK_6_1[1].strip())
		self.assertIn('\n    c->mismatches == 1 (0x1)\n', failure.text)
		self.assertTrue(failure.text.endswith('\ufffd[1;31mcoloured\ufffd'), failure.text)
		skipped = cases['cpuid_feature_extract_signed_field_every_position.bits [63:60]']
		self.assertEqual(skipped.find('skipped').get('message'),  # type: ignore[union-attr]
				 'no field at bits [63:60] in this register')
		skipped = [c for c in suites['b_skips/arm64_cpufeature_match'].findall('testcase')
			   if c.get('name') == 'has_cpuid_feature_pan_every_cpu'][0]
		self.assertEqual(skipped.find('skipped').get('message'),  # type: ignore[union-attr]
				 'CPU lacks PAN: ID_AA64MMFR1_EL1.PAN=0')
		crashed = suites['c_panic/arm64_cpufeature_match'].find("testcase[@name='(unnamed)']")
		assert crashed is not None
		self.assertIn('Kernel panic - not syncing', crashed.find('error').text or '')  # type: ignore[union-attr]
		for name, what, status in (('c_panic', 'boot', 'crash'), ('d_broken', 'build', 'build_error'),
					   ('e_hang', 'boot', 'timeout')):
			(testcase,) = suites[name].findall('testcase')
			self.assertEqual((testcase.get('classname'), testcase.get('name')), (name, what))
			self.assertEqual(testcase.find('error').get('type'), status)  # type: ignore[union-attr]
			self.assertEqual(counts(suites[name]), ('1', '0', '1', '0'))

class KtapTest(unittest.TestCase):
	"""Consoles parsed with the kunit_parser of 6.1, 6.12 and 7.3."""

	def parse(self, console: str, kernel: str) -> Tuple[List[ktap.Case], str]:
		return ktap.parse(read(test_data_path('console', console + '.log')), kunit_tool_of(kernel))

	def test_failed_cases_of_every_suite(self) -> None:
		# 6.1 prints "ok N name"; later kernels "ok N - name", with SKIP on
		# a parameter's own line.
		# 7.3's kunit_parser prints through a Printer it is given, not the
		# module's own: parsed here from 6.12's console, which 7.3 prints alike.
		for kernel, console in (('6.1', 'fail_two'), ('6.12', 'fail_two_6.12'),
					('7.3', 'fail_two_6.12')):
			with self.subTest(kernel=kernel):
				cases, printed = self.parse(console, kernel)
				failed = [c for c in cases if c.failed()]
				self.assertEqual([(c.name(), c.status) for c in failed],
						 [(FIELD_PARAM_FAILED, 'FAIL'), (MATCH_CASE_FAILED, 'FAIL')])
				self.assertEqual(failed[0].path, [
					'arm64_cpufeature_field',
					'cpuid_feature_extract_signed_field_every_position', 'bits [7:4]'])
				self.assertEqual(failed[0].log[0], FAILED_BLOCK_6_1[1].strip())
				self.assertEqual(failed[0].log[-1], '1 of 32 extractions were wrong')
				self.assertEqual(failed[1].log, MATCH_CASE_LOG)
				self.assertIn('[FAILED] bits [7:4]', printed)
				self.assertEqual(len(cases), 7)
		statuses = {c.name(): c.status for c in self.parse('fail_two_6.12', '6.12')[0]}
		self.assertEqual(statuses['arm64_cpufeature_field.cpuid_feature_extract_signed_field'
					  '_every_position[bits [63:60]]'], 'SKIP')

	def test_failed_expectations_name_files_of_the_tree(self) -> None:
		# A build with O= prints the file relative to the build directory.
		console = read(test_data_path('console', 'fail_two_6.12.log')).replace(
			'FAILED at arch/', 'FAILED at ../../../arch/')
		self.assertIn('FAILED at ../../../arch/', console)
		cases, _ = ktap.parse(console, kunit_tool_of('6.12'))
		logs = [line for c in cases if c.failed() for line in c.log if 'FAILED at' in line]
		self.assertTrue(logs)
		for line in logs:
			self.assertRegex(line, r'FAILED at arch/arm64/kernel/\S+\.c:\d+$')

	def test_crashed_case_and_no_ktap(self) -> None:
		cases, _ = self.parse('panic', '6.1')
		(crashed,) = [c for c in cases if c.failed()]
		self.assertEqual((crashed.name(), crashed.status),
				 ('arm64_cpufeature_match.(unnamed)', 'ERROR'))
		self.assertEqual(crashed.log[-1],
				 '---[ end Kernel panic - not syncing: Oops: Fatal exception ]---')
		self.assertEqual([(c.name(), c.status, c.log) for c in self.parse('fail', '6.1')[0]], [
			('arm64_cpufeature_match.feature_matches_thresholds', 'PASS', []),
			(MATCH_CASE_FAILED, 'FAIL', [MATCH_CASE_LOG[0].replace(':416', ':393'),
						     MATCH_CASE_LOG[1]])])
		cases, printed = self.parse('no_ktap', '6.1')
		self.assertEqual(cases, [])
		self.assertIn('could not find any KTAP output', printed)

	def test_the_trees_own_parser_is_loaded_and_left_behind(self) -> None:
		stand_in = mock.Mock()
		with mock.patch.dict(sys.modules, {'kunit_parser': stand_in}):
			for kernel in ('6.1', '6.12', '7.3'):
				parser = ktap.load_parser(kunit_tool_of(kernel))
				self.assertEqual(parser.__file__,
						 os.path.join(kunit_tool_of(kernel), 'kunit_parser.py'))
			self.assertIs(sys.modules['kunit_parser'], stand_in)
			self.assertNotIn('kunit_printer', sys.modules)
		self.assertNotIn(kunit_tool_of('6.1'), sys.path)
		for kernel in ('6.1', '6.12', '7.3'):
			self.assertFalse(os.path.exists(os.path.join(kunit_tool_of(kernel), '__pycache__')))
		with tempfile.TemporaryDirectory() as tmp, \
		     self.assertRaisesRegex(Error, f'cannot load kunit_parser from {tmp}: '):
			ktap.load_parser(tmp)

class TtyStringIO(io.StringIO):
	"""A terminal, as far as the Printer can tell."""

	def isatty(self) -> bool:
		return True

class FakeClock:

	def __init__(self) -> None:
		self.now = 1000.0

	def __call__(self) -> float:
		return self.now

CLEAR = progress.CLEAR_LINE

def without_status(text: str) -> str:
	"""What a terminal shows once the status lines are cleared: each is
	drawn at the start of a line and cleared before the next write."""
	return re.sub(r'(?m)^(?:[^\n\r]*\r\x1b\[K)+', '', text)

class ProgressTest(unittest.TestCase):

	def test_status_line_is_cleared_before_every_line(self) -> None:
		out, err = io.StringIO(), io.StringIO()
		printer = progress.Printer(out, err, tty=True, width=lambda: 41)
		printer.status('building a: 3 objects, 0:05')
		printer.stdout.write('built a\n')
		printer.stdout.write('part')
		printer.status('x')          # not in the middle of a line
		printer.stdout.write('ial\n')
		printer.status('y' * 100)    # cut at the terminal's width
		printer.stderr.write('oops\n')
		printer.close()
		self.assertEqual(out.getvalue(), 'building a: 3 objects, 0:05' + CLEAR + 'built a\n' +
				 'building a: 3 objects, 0:05' + CLEAR + 'partial\n' + 'x' + CLEAR +
				 'y' * 40 + CLEAR + 'y' * 40 + CLEAR)
		self.assertEqual(err.getvalue(), 'oops\n')
		self.assertEqual(without_status(out.getvalue()), 'built a\npartial\n')

	def test_no_status_line_when_not_a_terminal(self) -> None:
		out = io.StringIO()
		printer = progress.Printer(out)
		shown = progress.Progress(printer, clock=FakeClock())
		shown.task('step 1/3 x', 'about 1 min 00 s left')
		with tempfile.NamedTemporaryFile('w', prefix='pan-kunit-test-') as log:
			log.write(progress.MAKE_STARTED + '\n')
			log.flush()
			shown.build_started('a', os.path.dirname(log.name), log.name)
			with mock.patch.object(progress, 'count_objects') as count:
				shown.poll()
			count.assert_not_called()  # no reading of the builds for nobody
		shown.boots_started(['a', 'b'])
		shown.boot_ended('a', 'pass', 4.24)
		shown.boot_ended('b', 'crash', 10.0, quiet=True)
		printer.stdout.write('a line\n')
		printer.close()
		self.assertEqual(out.getvalue(), 'boot a: pass (4.2 s)\na line\n')

	def test_builds_boots_and_task_on_the_status_line(self) -> None:
		clock = FakeClock()
		since = 1_700_000_000 * 10**9
		tmp = tempfile.mkdtemp(prefix='pan-kunit-test-')
		self.addCleanup(shutil.rmtree, tmp)
		build, log = os.path.join(tmp, 'build'), os.path.join(tmp, 'build.log')
		for name, age in (('old.o', -10), ('new.o', 1), ('sub/new.o', 2), ('sub/new.c', 3)):
			write(os.path.join(build, name), '')
			os.utime(os.path.join(build, name), ns=(since + age * 10**9,) * 2)
		write(log, 'Populating config with:\n')
		out = io.StringIO()
		shown = progress.Progress(progress.Printer(out, tty=True, width=lambda: 200), clock=clock,
					  wall_ns=lambda: since + progress.MTIME_SLACK_NS)
		shown.task('step 1/3 0001-x', 'about 2 min 00 s left')
		shown.build_started('pan,nopan', build, log)
		clock.now += 65
		shown.poll()
		self.assertEqual(shown.status(), 'step 1/3 0001-x | building pan,nopan: configuring, '
				 '1:05 | about 2 min 00 s left')
		write(log, 'Populating config with:\nBuilding with:\n$ make ARCH=arm64\n')
		shown.poll()
		self.assertEqual(shown.status(), 'step 1/3 0001-x | building pan,nopan: 2 objects, '
				 '1:05 | about 2 min 00 s left')
		self.assertTrue(out.getvalue().endswith(CLEAR + shown.status()), out.getvalue())
		self.assertEqual(shown.build_ended('pan,nopan'), 2)
		shown.boots_started(['pan', 'nopan'])
		clock.now += 3
		shown.boot_ended('pan', 'pass', 2.5)
		self.assertEqual(shown.status(), 'step 1/3 0001-x | booting nopan 0:03 (pan: pass) | '
				 'about 2 min 00 s left')
		shown.boots_ended()
		shown.task('')
		self.assertEqual(shown.status(), '')
		self.assertEqual(without_status(out.getvalue()), 'boot pan: pass (2.5 s)\n')

	def test_time_left_from_the_steps_done(self) -> None:
		eta = progress.Eta(4)
		self.assertEqual(eta.text(), '')
		eta.done(100.0)   # the start: the only step done, so it counts
		self.assertEqual(eta.text(), 'about 5 min 00 s left')
		eta.done(10.0)    # now it does not
		self.assertEqual(eta.text(), 'about 20 s left')
		eta.done(20.0)
		self.assertEqual(eta.text(), 'about 15 s left')
		eta.done(30.0)
		self.assertEqual(eta.text(), '')
		eta = progress.Eta(3)
		eta.done(10.0)
		eta.skip()
		self.assertEqual(eta.text(), 'about 10 s left')
		self.assertEqual([progress.duration(s) for s in (59.4, 61, 3700)],
				 ['59 s', '1 min 01 s', '1 h 01 min'])

	def test_installed_owns_stdout_and_stderr(self) -> None:
		out, err = io.StringIO(), io.StringIO()
		with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
			with progress.installed() as shown:
				self.assertIs(progress.get(), shown)
				print('to stdout')
				print('to stderr', file=sys.stderr)
				self.assertIsNot(sys.stdout, out)
				self.assertIsNot(sys.stderr, err)
			self.assertIs(sys.stdout, out)
			self.assertIs(sys.stderr, err)
		self.assertIsNot(progress.get(), shown)
		self.assertEqual((out.getvalue(), err.getvalue()), ('to stdout\n', 'to stderr\n'))

class JobTest(TempDirTestCase):

	def test_output_reaches_the_log_while_the_job_runs(self) -> None:
		# A kunit.py that prints without flushing, then waits for the test.
		log, go = os.path.join(self.tmp, 'build.log'), os.path.join(self.tmp, 'go')
		script = ('import os, sys, time\n'
			  f'print({progress.MAKE_STARTED!r})\n'
			  'deadline = time.monotonic() + 30\n'
			  f'while not os.path.exists({go!r}) and time.monotonic() < deadline:\n'
			  '    time.sleep(0.01)\n')
		environ = {k: v for k, v in os.environ.items() if k != 'PYTHONUNBUFFERED'}
		with mock.patch.dict(os.environ, environ, clear=True):
			job = runner.Job('build k', [sys.executable, '-S', '-c', script], log)
			job.start()
		try:
			deadline = time.monotonic() + 10
			while not progress._make_started(log) and time.monotonic() < deadline:
				time.sleep(0.01)
			seen = progress._make_started(log)
		finally:
			write(go, '')
			job.wait(60)
		self.assertTrue(seen, 'the line reached the log only when the job ended')
		self.assertEqual(job.outcome and job.outcome.returncode, 0)

	def test_watchdog_says_so_in_one_write(self) -> None:
		class Writes(io.StringIO):
			def __init__(self) -> None:
				super().__init__()
				self.writes: List[str] = []
			def write(self, text: str) -> int:
				self.writes.append(text)
				return super().write(text)
		out = Writes()
		printer = progress.Printer(out, tty=False)
		job = runner.Job('build k', [sys.executable, '-S', '-c', 'import time; time.sleep(60)'],
				 os.path.join(self.tmp, 'build.log'))
		with mock.patch.object(progress, '_current', progress.Progress(printer)), \
		     contextlib.redirect_stdout(printer.stdout):  # type: ignore[type-var]
			job.start()
			job.wait(0.2)
		self.assertIn('build k: still running after 0 s; killing it\n', out.writes)
		self.assertTrue(job.outcome and job.outcome.timed_out)

F = TypeVar('F', bound=Callable[..., None])

def from_scratch(test: F) -> F:
	"""A FakeKunitTestCase test that starts with no tree, as a first run
	does, instead of a copy of the prepared tree."""
	setattr(test, 'from_scratch', True)
	return test

class FakeKunitTestCase(TempDirTestCase):
	"""The commands that build and boot, end to end, with the fake
	kunit_tool tracing its calls into self.trace, on a copy of the
	prepared tree (unless @from_scratch): setup finds it up to date, or
	updates it."""

	def setUp(self) -> None:
		super().setUp()
		if not getattr(getattr(self, self._testMethodName), 'from_scratch', False):
			self.copy_prepared_tree()
		self.trace = os.path.join(self.tmp, 'trace')
		write(self.trace, '')
		patchers: List[Any] = [
			mock.patch.dict(os.environ, {'PAN_KUNIT_TARBALL_DIR': os.path.dirname(self.tarball),
						     'FAKE_KUNIT_DATA': TEST_DATA,
						     'FAKE_KUNIT_TRACE': self.trace}),
			mock.patch.object(packages, 'ensure'),
			mock.patch.object(packages, 'require'),
			mock.patch.object(packages, 'version', return_value=VERSION),
			mock.patch.object(sys, 'executable', fake_kunit_python)]
		for patcher in patchers:
			patcher.start()
			self.addCleanup(patcher.stop)

	def cli_main(self, *argv: str) -> Tuple[int, str]:
		"""cli.main(@argv) on the test's repo: its exit status, and all
		it printed."""
		out = io.StringIO()
		with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
			status = cli.main(list(argv), repo=self.repo)
		return status, out.getvalue()

	def traced(self, kind: str) -> List[List[str]]:
		return [shlex.split(line) for line in read(self.trace).splitlines()
			if line.startswith(kind + ' ')]

class KernelsTest(TempDirTestCase):
	"""--kernel, the supported kernels, and which tree each command uses."""

	def add_kernel(self, name: str) -> None:
		"""Gives the repo a series for kernel @name: fake_repo's."""
		shutil.copytree(os.path.join(self.repo, 'patches', '6.1'),
				os.path.join(self.repo, 'patches', name))

	def targets(self, *argv: str, env: Optional[Dict[str, str]]=None) -> List[Tuple[str, str]]:
		with mock.patch.dict(os.environ, env or {}):
			if not env or 'PAN_KUNIT_TREE' not in env:
				os.environ.pop('PAN_KUNIT_TREE', None)
			found = cli.resolve_targets(cli.parse_args(list(argv)), self.repo)
		return [(t.kernel.name, t.tree) for t in found]

	def test_supported_are_those_with_a_series(self) -> None:
		self.assertEqual([k.name for k in kernels.supported(self.repo)], ['6.1'])
		self.add_kernel('6.12')
		self.assertEqual([k.name for k in kernels.supported(self.repo)], ['6.1', '6.12'])
		self.assertEqual([k.name for k in kernels.select(self.repo, ['6.12', '6.1'])],
				 ['6.1', '6.12'])
		with self.assertRaisesRegex(Error, r'^--kernel 5\.10: unknown; the supported kernels '
					    r'are 6\.1, 6\.12$'):
			kernels.select(self.repo, ['5.10'])
		shutil.rmtree(os.path.join(self.repo, 'patches', '6.12'))
		with self.assertRaisesRegex(Error, r'^--kernel 6\.12: not supported: no '
					    r'patches/6\.12/series; the supported kernels are 6\.1$'):
			kernels.select(self.repo, ['6.12'])

	def test_a_kernels_own_kconfig_is_merged_after_the_common_ones(self) -> None:
		# kunitconfig and lean.config hold what every kernel accepts; a
		# symbol another kernel lacks goes in patches/VERSION/kconfig.
		self.add_kernel('6.12')
		k61, k612 = kernels.select(self.repo, [])
		common = [os.path.join(self.repo, 'lkdtm', 'lkdtm.config'),
			  os.path.join(self.repo, targets.LEAN_KCONFIG)]
		write(os.path.join(self.repo, 'patches', '6.12', 'kconfig'), 'CONFIG_X=y\n')
		self.assertEqual(targets.fragments(self.repo, k61), common)
		self.assertEqual(targets.fragments(self.repo, k612),
				 common + [os.path.join(self.repo, 'patches', '6.12', 'kconfig')])

	def test_the_repos_kconfig_files_hold_only_what_every_kernel_accepts(self) -> None:
		# linux-source-7.3 has no ARM64_PAN, ARM64_USE_LSE_ATOMICS nor
		# SCHED_DEBUG: kunit.py's config check would fail on them.
		for name in ('kunitconfig', targets.LEAN_KCONFIG, os.path.join('lkdtm', 'lkdtm.config')):
			text = read(os.path.join(REPO, name))
			for symbol in ('ARM64_PAN', 'ARM64_USE_LSE_ATOMICS', 'SCHED_DEBUG'):
				self.assertNotRegex(text, rf'CONFIG_{symbol}[= ]', name)

	def test_one_default_tree_per_kernel(self) -> None:
		self.add_kernel('6.12')
		cache = os.path.join(self.tmp, 'cache')
		env = {'PAN_KUNIT_CACHE': cache}
		both = [('6.1', f'{cache}/linux-source-6.1'), ('6.12', f'{cache}/linux-source-6.12')]
		for command in (['setup'], ['run'], ['lkdtm'], ['bisect'], ['mutants']):
			self.assertEqual(self.targets(*command, env=env), both, command)
			self.assertEqual(self.targets(*command, '--kernel', '6.12', env=env), both[1:])
		# One series, against one kernel: the newest, unless --kernel says.
		self.assertEqual(self.targets('export', 'out', env=env), both[1:])
		self.assertEqual(self.targets('bisect', 'my.mbox', env=env), both[1:])
		self.assertEqual(self.targets('bisect', 'my.mbox', '--kernel', '6.1', env=env),
				 both[:1])
		home = os.path.join(self.tmp, 'home')
		self.assertEqual(self.targets('run', '--kernel', '6.1', env={'HOME': home}),
				 [('6.1', f'{home}/.cache/pan-kunit/linux-source-6.1')])

	def test_a_named_tree_is_of_the_kernel_it_holds(self) -> None:
		self.add_kernel('6.12')
		self.copy_prepared_tree()  # a 6.1 tree, by its base commit
		moved = os.path.join(self.tmp, 'linux-source-6.12')  # its path says nothing
		os.rename(self.tree, moved)
		self.assertEqual(self.targets('--tree', moved, 'run'), [('6.1', moved)])
		self.assertEqual(self.targets('run', env={'PAN_KUNIT_TREE': moved}), [('6.1', moved)])
		with self.assertRaisesRegex(Error, f'^{moved} holds linux-source-6.1, not '
					    'linux-source-6.12: give --kernel 6.1, or another tree$'):
			self.targets('--tree', moved, 'run', '--kernel', '6.12')
		# A tree that does not exist yet holds no kernel to read.
		new = os.path.join(self.tmp, 'new')
		with self.assertRaisesRegex(Error, f'the tree {new} does not exist yet, so it holds no '
					    'kernel to read: name the one setup should extract into '
					    r'it with --kernel \(6\.1, 6\.12\)'):
			self.targets('--tree', new, 'setup')
		self.assertEqual(self.targets('--tree', new, 'setup', '--kernel', '6.12'),
				 [('6.12', new)])
		# A Debian tree that is no pan-kunit tree yet: its Makefile's.
		plain = os.path.join(self.tmp, 'plain')
		shutil.copytree(test_data_path('fake_source', 'linux-source-6.1'), plain)
		self.assertEqual(self.targets('--tree', plain, 'run'), [('6.1', plain)])

	def test_setup_refuses_a_tree_of_another_kernel(self) -> None:
		self.add_kernel('6.12')
		self.copy_prepared_tree()
		with self.assertRaisesRegex(Error, f'^{self.tree} holds linux-source-6.1, not '
					    'linux-source-6.12: pan-kunit leaves it alone'):
			tree.setup(self.tree, kernels.by_name('6.12'), sources.load(self.repo, KERNEL),
				   self.tarball, VERSION)

class TwoKernelsRunTest(FakeKunitTestCase):
	"""run on two kernels: a tree each, one report."""

	@from_scratch
	def test_a_missing_package_of_the_second_kernel_stops_before_the_first(self) -> None:
		shutil.copytree(os.path.join(self.repo, 'patches', '6.1'),
				os.path.join(self.repo, 'patches', '6.12'))
		def ensure(sources: List[str], extra: Sequence[str]=()) -> None:
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
				 'pan-kunit: error: missing Debian packages: linux-source-6.12\n')
		self.assertEqual(ensured.call_args_list,
				 [mock.call(['linux-source-6.1', 'linux-source-6.12'], ())])
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
		real_status, real_build = tree.changed_files, runner.build_all
		def status(tree_dir: str) -> List[str]:
			waited.append(building.wait(timeout=10))
			return real_status(tree_dir)
		def build_all(*args: Any, **kwargs: Any) -> Dict[str, bool]:
			building.set()
			return real_build(*args, **kwargs)
		write(os.path.join(self.tree, 'arch/arm64/kernel/scratch.c'), '/* mine */\n')
		with mock.patch.object(tree, 'changed_files', status), \
		     mock.patch.object(runner, 'build_all', build_all):
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
		self.assertRegex(output, r'\nbuilt [0-9a-f]{12} in [0-9]+ s \(2 objects compiled\)\n')
		for config in ('pass_pan', 'skip_nopan'):
			self.assertRegex(output, rf'\nboot {config}: pass \([0-9.]+ s\)\n')
		self.assertIn('suite (passed/failed/skipped)  pass_pan             skip_nopan', output)
		self.assertIn('status                         pass                 pass', output)
		self.assertIn('cpu                            max,pauth-impdef=on  cortex-a57', output)
		# After the table, by reason, each with its count and where.
		self.assertIn('\nskipped, by reason (each case with its reason: --json, --junit):\n'
			      '   1  CPU lacks PAN: ID_AA64MMFR1_EL1.PAN=0\n'
			      '        skip_nopan: arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu\n'
			      '   1  config lacks ARM64_HAS_DCPOP: CONFIG_ARM64_PMEM=n\n'
			      '        skip_nopan: arm64_cpufeature_match.'
			      'cpus_have_cap_agrees_with_id_registers\n', output)
		self.assertLess(output.index('cpu                            max'),
				output.index('skipped, by reason'))
		self.assertTrue(output.endswith('run: 12 passed, 0 failed, 3 skipped\n'), output)
		data = json.loads(read(report))
		self.assertEqual(data['tree'], self.tree)
		self.assertEqual(data['head'], tree.head(self.tree))
		pan, nopan = data['configs']
		self.assertEqual((pan['name'], pan['status'], nopan['name'], nopan['status']),
				 ('pass_pan', 'pass', 'skip_nopan', 'pass'))
		self.assertEqual(pan['build_environment'], builds[0][2])
		self.assertEqual(nopan['build_environment'], builds[0][2])
		self.assertEqual([g['name'] for g in pan['sub_groups']],
				 ['arm64_cpufeature_field', 'arm64_cpufeature_match'])
		self.assertEqual(len(nopan['skip_reasons']), 2)
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
			block = f'{config}: fail\n' + ''.join(line + '\n' for line in FAILED_BLOCK_6_1)
			self.assertIn(block, output)
			self.assertLess(output.index(block), table)
			exec_dir = os.path.join(self.tree, '.pan-kunit', 'exec', config)
			for named in (f'    console: {exec_dir}/test.log',
				      f'    parsed by kunit_parser: {exec_dir}/parsed.log',
				      f'    record: {exec_dir}/results.json',
				      f'    kunit.py exec: {self.tree}/.pan-kunit/logs/exec-{config}.log'):
				self.assertIn(named + '\n', output[output.index(block):table])
			self.assertIn('[FAILED] bits [7:4]', read(os.path.join(exec_dir, 'parsed.log')))
		records = json.loads(read(report))['configs']
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

	def test_record_says_the_tree_was_dirty(self) -> None:
		report = os.path.join(self.tmp, 'report.json')
		self.assertEqual(self.run_cli('--config', 'pass_pan', '--json', report)[0], 0)
		self.assertIs(json.loads(read(report))['configs'][0]['git_dirty'], False)
		cpufeature = os.path.join(self.tree, 'arch/arm64/kernel/cpufeature.c')
		write(cpufeature, read(cpufeature) + '/* my uncommitted edit */\n')
		self.assertEqual(self.run_cli('--config', 'pass_pan', '--json', report)[0], 0)
		self.assertIs(json.loads(read(report))['configs'][0]['git_dirty'], True)

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
				self.assertEqual(out.getvalue(), f'pan-kunit: error: cannot write {option} '
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
		(record,) = json.loads(read(report))['configs']
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
		(record,) = json.loads(read(report))['configs']
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
		self.assertIn('Kernel panic - not syncing: Oops: Fatal exception', output)
		self.assertTrue(output.endswith('run: 2 passed, 1 failed, 0 skipped\n'), output)

	def argv(self, subcommand: str) -> Dict[str, List[str]]:
		"""What each config's kunit.py @subcommand was given, by config."""
		return {a[2]: a[3:] for a in self.traced('argv') if a[1] == subcommand}

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
		with mock.patch.object(runner, 'WATCHDOG_MARGIN', 0.5), \
		     mock.patch.object(runner, 'KILL_GRACE', 0.1):
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
		self.assertIn('pan-kunit: error: run needs qemu-system-aarch64 (Debian package '
			      'qemu-system-arm), not found on PATH', output)
		self.assertNotIn('crash', output)
		self.assertEqual(self.traced('build'), [])
		self.assertFalse(os.path.exists(self.tree))

class CheckTestCase(FakeKunitTestCase):
	"""tools/pan-kunit bisect and mutants, end to end, with the fake
	kunit_tool, on the configs pass_pan and skip_nopan."""

	def run_cli(self, *argv: str) -> Tuple[int, str]:
		return self.cli_main('--tree', self.tree, *argv,
				     '--config', 'pass_pan', '--config', 'skip_nopan')

	def worktree(self) -> str:
		return os.path.join(self.tree, '.pan-kunit', 'check', 'linux')

	def user_state(self) -> Tuple[str, str, str, str]:
		"""HEAD, branch, status (with untracked files), an edited file."""
		return (self.git('rev-parse', 'HEAD'), self.git('symbolic-ref', 'HEAD'),
			self.git('status', '--porcelain') + str(tree.changed_files(self.tree)),
			read(os.path.join(self.tree, 'arch/arm64/kernel/cpufeature.c')))

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
		with self.fake_steps(results.Status.NO_TESTS, results.Status.PASS, results.Status.PASS):
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
		self.assertRegex(text, r'(?:\n|\x1b\[K)step 0/2 start \| building pass_pan,skip_nopan: '
				 r'configuring, 0:0[0-9]\r')
		self.assertRegex(text, r'\x1b\[Kstep 1/2 0001-\S+ \| building pass_pan,skip_nopan: '
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
		self.assertIn("pan-kunit: error: SERIES 'HEAD..nosuchbranch' is no directory or file, "
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
		with worktree.locked(self.tree):
			status, output = self.run_cli('bisect')
		self.assertEqual(status, 2, output)
		self.assertIn(f'another pan-kunit (pid {os.getpid()}) is using {self.worktree()}',
			      output)
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

	def fake_steps(self, *statuses: results.Status) -> Any:
		"""Checker.run_step as a stand-in giving step N one config of
		@statuses[N] (with one passing case if PASS)."""
		def run_step(checker: steps.Checker, wt: str, step: steps.Step, logs: str,
			     configs: Any=None, fresh: bool=True) -> None:
			status = statuses[step.number]
			step.configs = [synthetic_config(status, {'a': 'PASS'} if status ==
							 results.Status.PASS else {})]
		return mock.patch.object(steps.Checker, 'run_step', run_step)

	def test_broken_start_is_reported_exit_1(self) -> None:
		with self.fake_steps(results.Status.BUILD_ERROR, results.Status.PASS,
				     results.Status.PASS, results.Status.PASS):
			status, output = self.run_cli('bisect', test_data_path('series_demo'))
		self.assertEqual(status, 1, output)
		self.assertIn('bisect: the start (step 0) is broken, no patch can be judged '
			      'against it: c: build_error', output)
		self.assertNotIn('step 1/3', output)

	def test_no_tests_is_not_all_good(self) -> None:
		no = results.Status.NO_TESTS
		# A given series whose start runs no test is refused at once.
		with self.fake_steps(no, no, no, no):
			status, output = self.run_cli('bisect', test_data_path('series_demo'))
		self.assertEqual(status, 2, output)
		self.assertIn('no case passed at the start (step 0, ok (no_tests))', output)
		self.assertNotIn('step 1/3', output)
		# A pass that becomes no tests is a regression.
		with self.fake_steps(results.Status.PASS, no, no, no):
			status, output = self.run_cli('bisect', test_data_path('series_demo'))
		self.assertEqual(status, 1, output)
		self.assertIn('bisect: first bad patch: 1 ', output)
		self.assertIn('    c: no_tests', output)
		# --step N fails on no tests.
		with self.fake_steps(no, no, no, no):
			status, output = self.run_cli('bisect', test_data_path('series_demo'), '--step', '2')
		self.assertEqual(status, 1, output)
		# patches/ whose steps all run no test is refused; its step 0 alone is fine.
		with self.fake_steps(no, no, no):
			status, output = self.run_cli('bisect')
		self.assertEqual(status, 2, output)
		self.assertIn('no step passed any case', output)
		with self.fake_steps(no, results.Status.PASS, results.Status.PASS):
			status, output = self.run_cli('bisect')
		self.assertEqual(status, 0, output)
		self.assertIn('step 0/2 start: ok (no_tests)', output)
		with self.fake_steps(no):
			status, output = self.run_cli('bisect', '--step', '0')
		self.assertEqual(status, 0, output)

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
		self.assertIn(f'baseline (the prepared tree): ok (0.', output)
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

	def test_header_is_required(self) -> None:
		write(os.path.join(self.repo, 'mutants', '6.1', 'bare.patch'), 'diff --git a/x b/x\n')
		status, output = self.run_cli('mutants')
		self.assertEqual(status, 2, output)
		self.assertIn('bare.patch: a mutant needs "Subject:" and "Must-Fail: SUITE[, SUITE]"',
			      output)

ZOE = 'Zoë Ångström'
ZOE_EMAIL = 'zoe@example.org'
# How git format-patch writes ZOE in a From: header (RFC 2047).
ZOE_FROM = 'From: =?UTF-8?q?Zo=C3=AB=20=C3=85ngstr=C3=B6m?= <zoe@example.org>'

def read_utf8(path: str) -> str:
	with open(path, encoding='utf-8') as f:
		return f.read()

def write_gitconfig(path: str, name: Optional[str], email: Optional[str]) -> None:
	"""A global git configuration with the user's identity, or without."""
	lines = ['[user]'] + ([f'\tname = {name}'] if name else []) + \
		([f'\temail = {email}'] if email else [])
	with open(path, 'w', encoding='utf-8') as f:
		f.write('\n'.join(lines) + '\n')

def mailinfo(path: str) -> Dict[str, str]:
	"""The headers of a patch mail, as git mailinfo decodes them."""
	with open(path, 'rb') as mail:
		result = subprocess.run(['git', 'mailinfo', os.devnull, os.devnull], stdin=mail,
					stdout=subprocess.PIPE, check=True)
	return dict(line.split(': ', 1) for line in result.stdout.decode().splitlines()
		    if ': ' in line)

def patch_changes(path: str) -> List[hooks.FileChange]:
	"""The changes of a patch file as hooks.changes() reads them from git
	diff -U0, with no tree: a change per hunk, whose context and removed
	lines stand for the old file."""
	found: List[hooks.FileChange] = []
	name = ''
	hunk: Optional[List[str]] = None
	lines = read(path).split('\n')
	for line in lines + ['-- ']:
		if hunk is not None and (line[:1] not in (' ', '+', '-') or line == '-- '):
			found.append(hunk_change(name, hunk))
			hunk = None
		if line.startswith('diff --git '):
			name = line.split(' b/', 1)[1]
		elif line.startswith('@@ '):
			hunk = []
		elif hunk is not None:
			hunk.append(line)
	return hooks.build_order(found)

def hunk_change(name: str, lines: List[str]) -> hooks.FileChange:
	old: List[bytes] = []
	found: List[hooks.Hunk] = []
	added: List[bytes] = []
	removed = 0
	for line in lines + [' ']:
		if line.startswith('+'):
			added.append(line[1:].encode() + b'\n')
			continue
		if line.startswith('-'):
			old.append(line[1:].encode() + b'\n')
			removed += 1
			continue
		if removed:
			found.append(hooks.Hunk(len(old) - removed, removed, [], [hooks.Item(added)]))
		elif added:
			found.append(hooks.Hunk(len(old), 0, *hooks.split_run(name, added)))
		added, removed = [], 0
		old.append(line[1:].encode() + b'\n')
	return hooks.FileChange(name, b''.join(old[:-1]), None, found)

class HooksTest(unittest.TestCase):
	"""What the patches of patches/VERSION/ hook in, and their cut per suite."""

	def setUp(self) -> None:
		self.symbols: Dict[str, str] = {}
		self.suites = {s.name: s.paths for s in export.suites(sources.load(REPO, KERNEL))}

	def changes(self, patch: str, kernel: kernels.KernelSpec=KERNEL) -> List[hooks.FileChange]:
		suites = {s.name: s.paths for s in export.suites(sources.load(REPO, kernel))}
		changes = patch_changes(os.path.join(REPO, kernel.patches_dir(), patch))
		hooks.assign(changes, suites, self.symbols)
		return changes

	def test_every_suite_comes_with_the_patch_that_hooks_it_in(self) -> None:
		for kernel in kernels.supported(REPO):
			with self.subTest(kernel=kernel.name):
				self.symbols = {}
				wanted = sources.load(REPO, kernel)
				suites = {s.name for s in export.suites(wanted)}
				cuts = {name: hooks.hooked(self.changes(name, kernel), name, suites)
					for name in wanted.patches}
				self.assertEqual([cut for _, cut in sorted(cuts.items())], [
					[],   # the fix of the SW TTBR0 PAN exit
					['arm64_cpufeature_field', 'arm64_cpufeature_match'],
					['arm64_alternative', 'arm64_alternative_apply'],
					[],   # the refactor
					# In the order of their Kconfig entries.
					['arm64_cpufeature_sanitise', 'arm64_cpucap_passes',
					 'arm64_cpucap_table'],
					# One symbol builds the five: a Makefile line each.
					['arm64_pan_detect', 'arm64_pan_enable', 'arm64_pan_hotplug',
					 'arm64_pan_uaccess', 'arm64_pan_fault']])
				self.assertEqual(self.symbols, {
					'ARM64_CPUFEATURE_FIELD_KUNIT_TEST': 'arm64_cpufeature_field',
					'ARM64_CPUFEATURE_MATCH_KUNIT_TEST': 'arm64_cpufeature_match',
					'ARM64_ALTERNATIVE_KUNIT_TEST': 'arm64_alternative',
					'ARM64_ALTERNATIVE_APPLY_KUNIT_TEST': 'arm64_alternative_apply',
					'ARM64_CPUFEATURE_SANITISE_KUNIT_TEST': 'arm64_cpufeature_sanitise',
					'ARM64_CPUCAP_PASSES_KUNIT_TEST': 'arm64_cpucap_passes',
					'ARM64_CPUCAP_TABLE_KUNIT_TEST': 'arm64_cpucap_table',
					'ARM64_PAN_KUNIT_TEST': 'arm64_pan_detect'})

	def test_0006_gives_each_pan_suite_its_paragraph_and_symbol(self) -> None:
		pan = ['arm64_pan_detect', 'arm64_pan_enable', 'arm64_pan_hotplug',
		       'arm64_pan_uaccess', 'arm64_pan_fault']
		for kernel in kernels.supported(REPO):
			with self.subTest(kernel=kernel.name):
				self.symbols = {}
				wanted = sources.load(REPO, kernel)
				(patch,) = [p for p in wanted.patches if os.path.basename(p).startswith('0006-')]
				changes = self.changes(os.path.basename(patch), kernel)
				# One symbol builds the five: each patch of the cut names it.
				self.assertEqual({name: symbols for name, symbols in
						  export._item_symbols(changes).items() if name in pan},
						 {name: {'ARM64_PAN_KUNIT_TEST'} for name in pan})
				found = {s.name: s for s in export.suites(wanted)}
				patterns = hooks.file_patterns({name: found[name].paths for name in pan})
				mail = export.mailinfo(patch)
				own = {name: export._own_paragraphs(mail, patterns, self.symbols, name)
				       for name in pan}
				# Why the patch exists goes with the first suite, and each suite's
				# own paragraph with it: a paragraph that names none is lost.
				self.assertEqual([len(own[name]) for name in pan], [1, 1, 1, 1, 1])
				self.assertTrue(own['arm64_pan_detect'][0].startswith('PAN is set up'))
				for name in pan[1:]:
					self.assertTrue(own[name][0].startswith(
						'tests/' + os.path.basename(found[name].paths[-1])), own[name])

	def first_cut(self, change: hooks.FileChange, later: str) -> str:
		data = change.render(lambda item: later not in item.suites)
		assert data is not None
		return data.decode()

	def test_0002_cut_field_then_match(self) -> None:
		makefile, tests_makefile, kconfig, cpufeature = self.changes(
			'0002-arm64-cpufeature-add-KUnit-hooks-for-ID-field-and-ca.patch')
		self.assertEqual([sorted(i.suites) for i in kconfig.items()],
				 [['arm64_cpufeature_field'], ['arm64_cpufeature_match']])
		first = self.first_cut(kconfig, 'arm64_cpufeature_match')
		self.assertTrue(first.startswith('\tdepends on m\n\ttristate "Relocation testing module"\n'
						 '\nconfig ARM64_CPUFEATURE_FIELD_KUNIT_TEST\n'), first)
		# The help text's blank lines are the entry's; the run's last
		# blank line still closes it.
		self.assertTrue(first.endswith('\t  refer to the KUnit documentation in '
					       'Documentation/dev-tools/kunit/.\n\n\t  If unsure, say N.\n'
					       '\nsource "drivers/hwtracing/coresight/Kconfig"\n'), first)
		self.assertNotIn('MATCH', first)
		# The suites' directory comes with the first suite, and its
		# Makefile with its first line (and SPDX header).
		self.assertIn('+= tests/\n', self.first_cut(makefile, 'arm64_cpufeature_match'))
		self.assertEqual(self.first_cut(tests_makefile, 'arm64_cpufeature_match'),
				 '# SPDX-License-Identifier: GPL-2.0\n\n'
				 'obj-$(CONFIG_ARM64_CPUFEATURE_FIELD_KUNIT_TEST)\t+= cpufeature_field_kunit.o\n')
		self.assertEqual(self.first_cut(cpufeature, 'arm64_cpufeature_match'),
				 (cpufeature.old or b'').decode())

	def test_0005_cut_passes_then_table(self) -> None:
		kconfig, cpufeature = self.changes(
			'0005-arm64-cpufeature-add-KUnit-hooks-for-capability-pass.patch')
		first = self.first_cut(cpufeature, 'arm64_cpucap_table')
		# The blank line before each #ifdef goes with it: none is left at the end.
		self.assertTrue(first.endswith('#include "tests/cpufeature_match_kunit.c"\n#endif\n'
					       '\n#ifdef CONFIG_ARM64_CPUCAP_PASSES_KUNIT_TEST\n'
					       '#include "tests/cpucap_passes_kunit.c"\n#endif\n'
					       '\n#ifdef CONFIG_ARM64_CPUFEATURE_SANITISE_KUNIT_TEST\n'
					       '#include "tests/cpufeature_sanitise_kunit.c"\n#endif\n'),
				first)
		first = self.first_cut(kconfig, 'arm64_cpucap_table')
		self.assertIn('config ARM64_CPUCAP_PASSES_KUNIT_TEST', first)
		self.assertNotIn('TABLE', first)
		self.assertTrue(first.endswith('If unsure, say N.\n\nsource "drivers/hwtracing/coresight/'
					       'Kconfig"\n'), first)

	def test_items_of_each_kind_of_file(self) -> None:
		def items(path: str, text: str) -> List[str]:
			lead, found = hooks.split_run(path, [l.encode() for l in hooks_lines(text)])
			return [b''.join(i.lines).decode() for i in found]
		self.assertEqual(items('arch/arm64/kernel/Makefile',
				       'obj-$(CONFIG_A) += a.o \\\n\t\t   a_asm.o\nobj-y += b.o\n'),
				 ['obj-$(CONFIG_A) += a.o \\\n\t\t   a_asm.o\n', 'obj-y += b.o\n'])
		self.assertEqual(items('arch/arm64/kernel/foo.c',
				       '#ifdef CONFIG_A\n#include "a.c"\n#endif\n'
				       'static int f(void)\n{\n\treturn 0;\n}\n'),
				 ['#ifdef CONFIG_A\n#include "a.c"\n#endif\n',
				  'static int f(void)\n{\n\treturn 0;\n}\n'])
		self.assertEqual(items('arch/arm64/Kconfig', 'if A\nconfig B\n\tbool\nendif\n'
				       'config C\n\thelp\n\t  c\n\n\t  d\n'),
				 ['if A\nconfig B\n\tbool\nendif\n', 'config C\n\thelp\n\t  c\n\n\t  d\n'])

	def test_a_line_that_hooks_in_two_suites_is_refused(self) -> None:
		change = hooks.FileChange('arch/arm64/kernel/Makefile', b'', None, [hooks.Hunk(
			0, 0, *hooks.split_run('arch/arm64/kernel/Makefile', [
				b'obj-$(CONFIG_X) += cpucap_passes_kunit.o cpucap_table_kunit.o\n']))])
		hooks.assign([change], self.suites, self.symbols)
		with self.assertRaisesRegex(Error, r'x.patch: one change to arch/arm64/kernel/Makefile '
					    'hooks in both arm64_cpucap_passes and arm64_cpucap_table'):
			hooks.hooked([change], 'x.patch', set(self.suites))

def hooks_lines(text: str) -> List[str]:
	return [l + '\n' for l in text.split('\n')[:-1]]

class ExportMessageTest(unittest.TestCase):

	def test_export_without_git_is_an_error(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			out = io.StringIO()
			with mock.patch.dict(os.environ, {'PATH': tmp}), \
			     contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
				status = cli.main(['--tree', os.path.join(tmp, 'linux'), 'export',
						   os.path.join(tmp, 'out'), '--kernel', '6.1'], repo=REPO)
		self.assertEqual(status, 2, out.getvalue())
		self.assertIn(gitcmd.NO_GIT, out.getvalue())

	def test_subject_prefixes(self) -> None:
		found = export.suites(sources.load(REPO, KERNEL))
		self.assertEqual({s.name: export.area(s) for s in found}, {
			'arm64_alternative': 'alternative', 'arm64_alternative_apply': 'alternative',
			'arm64_cpucap_passes': 'cpucap', 'arm64_cpucap_table': 'cpucap',
			'arm64_cpufeature_field': 'cpufeature', 'arm64_cpufeature_match': 'cpufeature',
			'arm64_cpufeature_sanitise': 'cpufeature', 'arm64_pan_detect': 'mm',
			'arm64_pan_enable': 'mm', 'arm64_pan_hotplug': 'mm', 'arm64_pan_uaccess': 'mm',
			'arm64_pan_fault': 'mm'})
		pan = [s for s in found if s.name == 'arm64_pan_detect'][0]
		# pan_kunit.h is no suite's own: it goes with each suite that includes
		# it, and the first patch that adds one of them adds it.
		self.assertEqual([(s.name, s.shared) for s in found if s.shared],
				 [(name, ['arch/arm64/mm/tests/pan_kunit.h']) for name in (
					 'arm64_pan_detect', 'arm64_pan_enable', 'arm64_pan_fault',
					 'arm64_pan_hotplug', 'arm64_pan_uaccess')])
		self.assertEqual(export.suite_message(pan, ['ARM64_PAN_KUNIT_TEST'], ['Why.'],
						      'Signed-off-by: Z <z@example.org>',
						      pan.shared),
				 'arm64: mm: Add the arm64_pan_detect KUnit suite\n\n'
				 'KUnit tests of the detection of Privileged Access Never (PAN): the\n'
				 'ARM64_HAS_PAN and ARM64_HAS_EPAN capabilities, and which of the CPU\'s\n'
				 'PAN and SW TTBR0 PAN the kernel uses, against the ID register.\n\n'
				 'The suite is arm64_pan_detect, in tests/pan_kunit.h and\n'
				 'tests/pan_detect_kunit.c; CONFIG_ARM64_PAN_KUNIT_TEST builds it.\n\nWhy.\n\n'
				 'Signed-off-by: Z <z@example.org>\n')
		alternative = [s for s in found if s.name == 'arm64_alternative'][0]
		self.assertTrue(export.suite_message(alternative, [], [], '').startswith(
			'arm64: alternative: Add the arm64_alternative KUnit suite\n'))
		self.assertIn('The suite is arm64_alternative, in tests/alternative_kunit.c,\n'
			      'tests/alternative_kunit.h and tests/alternative_kunit_asm.S.\n',
			      export.suite_message(alternative, [], [], ''))

	def test_mailinfo_unfolds_the_subject_and_splits_off_the_trailers(self) -> None:
		mail = export.mailinfo(os.path.join(
			REPO, 'patches', '6.1', '0002-arm64-cpufeature-add-KUnit-hooks-for-ID-field-and-ca.patch'))
		self.assertEqual(mail.subject, 'arm64: cpufeature: add KUnit hooks for ID field and '
				 'capability matching tests')
		self.assertEqual(mail.trailers, ['Signed-off-by: Seed dcc55037 maintainers '
						 '<maintainers@users.noreply.a-seed-dcc55037.example>'])
		self.assertTrue(mail.paragraphs[0].startswith('The ID register field extractors'))
		self.assertEqual(mail.paragraphs[-1], 'Both depend on KUNIT=y and default to '
				 'KUNIT_ALL_TESTS. A kernel built\nwithout them is unchanged.')

	def test_identity_is_the_users_git_config(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			config = os.path.join(tmp, 'gitconfig')
			env = {'HOME': tmp, 'GIT_CONFIG_GLOBAL': config, 'GIT_CONFIG_NOSYSTEM': '1'}
			with mock.patch.dict(os.environ, env):
				write_gitconfig(config, ZOE, ZOE_EMAIL)
				self.assertEqual(export.identity(tmp), export.Identity(ZOE, ZOE_EMAIL))
				write_gitconfig(config, None, ZOE_EMAIL)
				with self.assertRaisesRegex(Error, r'git has no user.name; set it with:\n'
							    '  git config --global user.name "Your Name"\n'
							    '  git config --global user.email you@example.org'):
					export.identity(tmp)

class ExportTest(CheckTestCase):

	def setUp(self) -> None:
		super().setUp()
		self.gitconfig = os.path.join(self.tmp, 'gitconfig')
		write_gitconfig(self.gitconfig, ZOE, ZOE_EMAIL)
		patcher = mock.patch.dict(os.environ, {'HOME': os.path.join(self.tmp, 'home'),
						       'GIT_CONFIG_GLOBAL': self.gitconfig,
						       'GIT_CONFIG_NOSYSTEM': '1'})
		patcher.start()
		self.addCleanup(patcher.stop)
		self.out = os.path.join(self.tmp, 'out')

	def exported(self) -> List[str]:
		return sorted(os.listdir(self.out))

	def assert_from_zoe(self, name: str) -> None:
		path = os.path.join(self.out, name)
		self.assertIn('\n' + ZOE_FROM + '\n', read_utf8(path), name)
		self.assertEqual((mailinfo(path)['Author'], mailinfo(path)['Email']), (ZOE, ZOE_EMAIL))

	def signed_off(self, name: str) -> List[str]:
		return [line for line in read_utf8(os.path.join(self.out, name)).splitlines()
			if line.startswith('Signed-off-by:')]

	def test_a_patch_per_suite_with_its_hooks_from_your_identity(self) -> None:
		status, output = self.run_cli('export', self.out)
		self.assertEqual(status, 0, output)
		names = self.exported()
		self.assertEqual(names, [
			'0000-cover-letter.patch',
			'0001-arm64-cpufeature-let-KUnit-suites-call-has_cpuid_fea.patch',
			'0002-arm64-cpufeature-Add-the-arm64_cpufeature_fake-KUnit.patch',
			'0003-arm64-kernel-Add-a-.kunitconfig-for-the-arm64-KUnit-.patch'])
		for name in names:
			self.assert_from_zoe(name)
		for name in names[1:]:
			self.assertEqual(self.signed_off(name), [f'Signed-off-by: {ZOE} <{ZOE_EMAIL}>'], name)
		cover = read_utf8(os.path.join(self.out, names[0]))
		self.assertIn('Subject: [PATCH 0/3] Subject line here', cover)
		self.assertIn('Body of the fake cover letter.', cover)
		# The patch that hooks in no suite, as it is, with its message.
		refactor = read(os.path.join(self.out, names[1]))
		self.assertIn('\nThe suites check the matcher against the Arm ARM\'s rules, so it must '
			      'not\nbe static when CONFIG_KUNIT is enabled.\n', refactor)
		self.assertIn(' arch/arm64/kernel/cpufeature.c | 3 ++-\n 1 file changed', refactor)
		# The suite, with the lines that build it, and the hook's message.
		suite = read_utf8(os.path.join(self.out, names[2]))
		for line in ('+config ARM64_CPUFEATURE_FAKE_KUNIT_TEST\n',
			     '+obj-$(CONFIG_ARM64_CPUFEATURE_FAKE_KUNIT_TEST)\t+= cpufeature_fake_test.o\n',
			     ' create mode 100644 arch/arm64/kernel/cpufeature_fake.h\n',
			     ' create mode 100644 arch/arm64/kernel/cpufeature_fake_test.c\n',
			     ' create mode 100644 arch/arm64/kernel/cpufeature_fake_test.h\n',
			     'fake tree as arch/arm64/kernel/cpufeature_fake_test.c.\n\n'
			     'The suite is arm64_cpufeature_fake, in cpufeature_fake_test.c and\n'
			     'cpufeature_fake_test.h; CONFIG_ARM64_CPUFEATURE_FAKE_KUNIT_TEST builds\nit.\n'
			     '\nHook cpufeature_fake_test.c into the build behind its own Kconfig'):
			self.assertIn(line, suite)
		self.assertIn('+CONFIG_ARM64_CPUFEATURE_FAKE_KUNIT_TEST=y',
			      read(os.path.join(self.out, names[3])))
		self.assertEqual(output.count('checkpatch --strict: clean'), 3)
		# Every prefix, from the bare base, was built and booted.
		self.assertIn('step 3/3 0003-arm64-kernel-Add-a-.kunitconfig-for-the-arm64-KUnit-.patch: '
			      'ok', output)
		self.assertIn('step 2/3 0002-arm64-cpufeature-Add-the-arm64_cpufeature_fake-KUnit.patch: '
			      'ok', output)
		self.assertIn('step 0/3 start: ok', output)

	def test_kernel_differences_resolved_for_the_kernel_exported_for(self) -> None:
		suite = os.path.join(self.repo, 'kunit', 'arch', 'arm64', 'kernel',
				     'cpufeature_fake_test.c')
		write(suite, read(suite).replace(
			'#include <kunit/test.h>\n',
			'#include <kunit/test.h>\n#include <linux/version.h>\n\n'
			'#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)\n'
			'#define FAKE_CAP(alt)\t((alt)->cpucap)\n'
			'#else\n'
			'#define FAKE_CAP(alt)\t((alt)->cpufeature)\n'
			'#endif\n'))
		status, output = self.run_cli('export', self.out, '--no-build')
		self.assertEqual(status, 0, output)
		exported = read(os.path.join(self.out, self.exported()[2]))
		# The fake tree is 6.1: the 6.1 branch, nothing of the #if.
		self.assertIn('+#define FAKE_CAP(alt)\t((alt)->cpufeature)\n', exported)
		for gone in ('cpucap', 'LINUX_VERSION_CODE', 'linux/version.h', '#else', '#endif'):
			self.assertNotIn(gone, exported)

	def test_a_patch_that_hooks_in_two_suites_is_cut_in_two(self) -> None:
		shutil.copytree(test_data_path('export_two_suites'), self.repo, dirs_exist_ok=True)
		status, output = self.run_cli('export', self.out, '--no-build')
		self.assertEqual(status, 0, output)
		names = self.exported()
		self.assertEqual(names[2:], [
			'0002-arm64-cpufeature-Add-the-arm64_cpufeature_fake-KUnit.patch',
			'0003-arm64-cpucap-Add-the-arm64_cpucap_fake-KUnit-suite.patch',
			'0004-arm64-kernel-Add-a-.kunitconfig-for-the-arm64-KUnit-.patch'])
		fake, cpucap = (read(os.path.join(self.out, n)) for n in names[2:4])
		self.assertNotIn('CPUCAP', fake)
		self.assertIn('\n\nARM64_CPUFEATURE_FAKE_KUNIT_TEST builds cpufeature_fake_test.c, which\n'
			      'calls has_cpuid_feature() through cpufeature_fake.h.\n\nSigned-off-by', fake)
		self.assertIn(' create mode 100644 arch/arm64/kernel/cpufeature_fake.h\n', fake)
		for line in ('+config ARM64_CPUCAP_FAKE_KUNIT_TEST\n',
			     '+#include "cpucap_fake_test.c"\n',
			     ' create mode 100644 arch/arm64/kernel/cpucap_fake_test.c\n',
			     '\n\nARM64_CPUCAP_FAKE_KUNIT_TEST includes cpucap_fake_test.c at the end of\n'
			     'cpufeature.c, so that it can call the static cpu_enable_pan().\n\nSigned'):
			self.assertIn(line, cpucap)
		self.assertNotIn('cpufeature_fake_test', cpucap.split('\n---\n', 1)[1])
		# The first cut: the Kconfig entry of its suite alone, and the
		# base's cpufeature.c; the last ends at the prepared tree.
		wt = self.worktree()
		kconfig = subprocess.run(['git', '-C', wt, 'show', 'HEAD~2:arch/arm64/Kconfig'], check=True,
					 stdout=subprocess.PIPE, text=True).stdout
		self.assertTrue(kconfig.endswith('memory directly.\n\nconfig ARM64_CPUFEATURE_FAKE_KUNIT_TEST\n'
						 '\tbool "KUnit tests for the arm64 cpufeature matcher" if '
						 '!KUNIT_ALL_TESTS\n\tdepends on KUNIT=y\n'
						 '\tdefault KUNIT_ALL_TESTS\n'), kconfig)
		self.assertEqual(subprocess.run(['git', '-C', wt, 'diff', 'HEAD~2', 'HEAD~3', '--',
						 'arch/arm64/kernel/cpufeature.c'], check=True,
						stdout=subprocess.PIPE, text=True).stdout, '')
		self.assertEqual(subprocess.run(['git', '-C', wt, 'diff', 'HEAD', tree.PREPARED_REF],
						check=True, stdout=subprocess.PIPE, text=True).stdout, '')
		self.assertEqual(output.count('checkpatch --strict: clean'), 4)

	@from_scratch
	def test_no_git_identity_is_refused_before_setup(self) -> None:
		write_gitconfig(self.gitconfig, None, None)
		start = time.monotonic()
		status, output = self.run_cli('export', self.out)
		self.assertLess(time.monotonic() - start, 5)
		self.assertEqual(status, 2, output)
		self.assertIn('pan-kunit: error: export writes the series as yours, from your git '
			      'identity, and git has no user.name and no user.email; set it with:\n'
			      '  git config --global user.name "Your Name"\n'
			      '  git config --global user.email you@example.org\n', output)
		self.assertFalse(os.path.exists(self.tree))

	def test_a_suite_no_patch_hooks_in_is_refused(self) -> None:
		write(os.path.join(self.repo, 'kunit', 'arch/arm64/kernel/orphan_test.c'),
		      '/* An orphan. */\nstatic struct kunit_suite s = { .name = "arm64_orphan" };\n')
		status, output = self.run_cli('export', self.out, '--no-build')
		self.assertEqual(status, 2, output)
		self.assertIn('hooks in arm64_orphan (no added line names orphan_test.c); export adds '
			      'each suite with the patch that builds it', output)

	def test_checkpatch_problem_and_non_empty_dir(self) -> None:
		suite = os.path.join(self.repo, 'kunit/arch/arm64/kernel/cpufeature_fake_test.h')
		write(suite, read(suite) + '/* FAKE-CHECKPATCH-ERROR */\n')
		status, output = self.run_cli('export', self.out, '--no-build')
		self.assertEqual(status, 1, output)
		self.assertIn('checkpatch --strict: FAILED', output)
		self.assertIn('ERROR:FAKE: the fixture\'s error', output)
		self.assertIn('export: 1 patches are not checkpatch clean', output)
		self.assertNotIn('step 0/', output)
		# Without builds, export needs no cross compiler and no QEMU; it
		# needs what checkpatch's SPDX check imports, as it runs with the tree.
		self.assertEqual(packages.require.call_args.args[0], packages.SETUP_TOOLS)
		self.assertEqual(list(packages.ensure.call_args.args[1]),
				 ['perl', 'python3-ply', 'python3-git'])
		self.assertNotIn('FAKE_NO_TREE', output)
		self.assertNotIn('FAKE_NOT_TOP', output)
		self.assertNotIn('FAKE_PYTHON', output)
		status, output = self.run_cli('export', self.out, '--no-build')
		self.assertEqual(status, 2, output)
		self.assertIn(f'{self.out} exists and is not an empty directory', output)

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
		self.assertTrue(output.endswith('total: 3 passed, 0 failed, 3 skipped\n'), output)
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

	def test_kunit_tool_of_the_default_tree_else_an_error(self) -> None:
		missing = os.path.join(self.tmp, 'no-tree')
		default = os.path.join(self.home, '.cache', 'pan-kunit', 'linux-source-6.1')
		status, output = self.parse(missing, 'pass.log')
		self.assertEqual(status, 2, output)
		cache = os.path.dirname(default)
		self.assertIn("pan-kunit: error: parse needs kunit_tool's parser, and there is no "
			      f'tools/testing/kunit/kunit.py in {missing} nor in '
			      f'{cache}/linux-source-7.3 nor in {default}2 nor in {default}: run '
			      'tools/pan-kunit setup first', output)
		self.tree_with_kunit_tool(default)
		status, output = self.parse(missing, 'pass.log')
		self.assertEqual(status, 0, output)
		self.assertIn(f'with {default}/tools/testing/kunit/kunit.py', output)
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

class SelftestTest(unittest.TestCase):

	def test_exit_status_follows_the_tests(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			for name, ok in (('selftest_pass', True), ('selftest_fail', False)):
				directory = os.path.join(tmp, name)
				write(os.path.join(directory, name + '_test.py'),
				      'import unittest\n'
				      'class T(unittest.TestCase):\n'
				      f'\tdef test(self):\n\t\tself.assertTrue({ok})\n')
				out = io.StringIO()
				with mock.patch.object(selftest, 'TOOLS_DIR', directory), \
				     contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(out):
					self.assertEqual(selftest.selftest(), 0 if ok else 1)
				# Its closing line, and none that reads as unittest's.
				self.assertTrue(out.getvalue().endswith(
					f'selftest: {int(ok)} passed, {int(not ok)} failed\n'), out.getvalue())
				self.assertNotRegex(out.getvalue(), r'\d+ \w+ in [0-9.]+ ?s')

	def test_the_tests_get_no_git_dir_of_a_hook(self) -> None:
		# As under `git rebase -x 'tools/pan-kunit selftest'`.
		with tempfile.TemporaryDirectory() as tmp:
			directory = os.path.join(tmp, 'selftest_git_env')
			write(os.path.join(directory, 'git_env_test.py'),
			      'import os, unittest\n'
			      'class T(unittest.TestCase):\n'
			      '\tdef test(self):\n'
			      '\t\tself.assertNotIn("GIT_DIR", os.environ)\n'
			      '\t\tself.assertNotIn("GIT_INDEX_FILE", os.environ)\n')
			hook = {'GIT_DIR': os.path.join(tmp, 'x.git'), 'GIT_INDEX_FILE': 'i'}
			with mock.patch.object(selftest, 'TOOLS_DIR', directory), \
			     mock.patch.dict(os.environ, hook), \
			     contextlib.redirect_stderr(io.StringIO()), \
			     contextlib.redirect_stdout(io.StringIO()):
				self.assertEqual(selftest.selftest(), 0)
				self.assertEqual(os.environ['GIT_DIR'], hook['GIT_DIR'])  # given back

class LkdtmRunTest(FakeKunitTestCase):
	"""tools/pan-kunit lkdtm, end to end, with the fake kunit_tool."""

	def run_cli(self, *argv: str) -> Tuple[int, str]:
		out = io.StringIO()
		cpio = os.path.join(self.tmp, 'initramfs.cpio')
		with mock.patch.object(initramfs, 'pack', return_value=cpio), \
		     contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
			status = cli.main(['--tree', self.tree] + list(argv), repo=self.repo)
		return status, out.getvalue()

	def test_boots_the_kernels_run_built_with_kunit_off(self) -> None:
		status, output = self.run_cli('run', '--config', 'pass_pan', '--config', 'skip_nopan')
		self.assertEqual(status, 0, output)
		(run_build,) = self.traced('build')
		def kunitconfigs(argv: List[str]) -> List[str]:
			return [argv[i + 1] for i, word in enumerate(argv) if word == '--kunitconfig']
		(argv,) = self.traced('argv build')
		self.assertEqual(kunitconfigs(argv)[1:], [os.path.join(self.repo, lkdtm.KCONFIG),
							  os.path.join(self.repo, targets.LEAN_KCONFIG)])
		status, output = self.run_cli('lkdtm', '--config', 'pass_pan', '--config', 'skip_nopan')
		self.assertEqual(status, 0, output)
		# The same kunitconfig and fragments as run's: kunit.py finds the
		# build configured, and does not configure it again.
		self.assertEqual([kunitconfigs(a) for a in self.traced('argv build')],
				 [kunitconfigs(argv)] * 2)
		self.assertTrue(output.endswith('lkdtm: 4 passed, 0 failed\n'), output)
		self.assertEqual(output.count('lkdtm: 4 passed'), 1, output)  # the closing line, once
		self.assertIn('pass_pan (max,pauth-impdef=on, PAN by CPU):\n'
			      '    ACCESS_USERSPACE   ok   caught: "Unable to handle kernel access', output)
		self.assertIn('skip_nopan (cortex-a57, no PAN):\n'
			      '    ACCESS_USERSPACE   ok   survived, as without PAN', output)
		# One build, into the directory run built, with LKDTM's kconfig merged in.
		self.assertEqual([b[2] for b in self.traced('build')], [run_build[2]] * 2)
		self.assertIn('CONFIG_LKDTM=y', read(os.path.join(run_build[2], '.kunitconfig')))
		boots = sorted(line[2:] for line in self.traced('qemu_args'))
		cpio = os.path.join(self.tmp, 'initramfs.cpio')
		# The config's own command line, KUnit off and the crash type, in an
		# -append that replaces kunit.py's (and its kunit_shutdown=reboot).
		self.assertEqual(boots, [['-initrd', cpio, '-append',
					  f'console=ttyAMA0 panic=-1 kunit.enable=0 pankunit_crash={crash}']
					 for crash in ('ACCESS_USERSPACE', 'ACCESS_USERSPACE',
						       'EXEC_USERSPACE', 'EXEC_USERSPACE')])
		# A line per boot, as run prints its boots.
		for config in ('pass_pan', 'skip_nopan'):
			for crash in lkdtm.CRASH_TYPES:
				self.assertRegex(output, rf'\nboot {config} {crash}: ok \([0-9.]+ s\)\n')

	def test_initramfs_failure_is_an_error_before_any_build(self) -> None:
		real_run = proc.run
		def _run(argv: List[str], **kwargs: Any) -> Any:
			if argv[0] == runner.CROSS_COMPILE + 'gcc':
				return proc.Result(argv, 1, 'init.c:1: error: oops')
			return real_run(argv, **kwargs)
		out = io.StringIO()
		with mock.patch.object(initramfs.proc, 'run', side_effect=_run), \
		     contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
			status = cli.main(['--tree', self.tree, 'lkdtm', '--config', 'pass_pan'],
					  repo=self.repo)
		self.assertEqual(status, 2, out.getvalue())
		self.assertIn('failed:\ninit.c:1: error: oops', out.getvalue())
		self.assertEqual(self.traced('build'), [])

	def test_fragments_without_lkdtm_are_refused_before_any_work(self) -> None:
		with mock.patch.object(initramfs, 'pack') as pack, \
		     self.assertRaisesRegex(Error, 'built without lkdtm/lkdtm.config'):
			lkdtm.run(self.tree, 'kunit', [], self.repo, 10, 1,
				  fragments=[os.path.join(self.repo, targets.LEAN_KCONFIG)])
		pack.assert_not_called()
		self.assertEqual(self.traced('build'), [])

	def test_initramfs_has_init_and_a_console(self) -> None:
		calls: List[List[str]] = []
		listings: List[str] = []
		def _run(argv: List[str], **kwargs: Any) -> Any:
			calls.append(argv)
			if len(argv) == 2:  # gen_init_cpio LISTING
				listings.append(read(argv[1]))
			return proc.Result(argv, 0)
		with mock.patch.object(initramfs.proc, 'run', side_effect=_run):
			cpio = initramfs.pack(self.tree, os.path.join(self.repo, lkdtm.INIT_SOURCE),
					      'lkdtm')
		work = os.path.join(self.tree, '.pan-kunit', 'lkdtm')
		self.assertEqual(cpio, os.path.join(work, 'initramfs.cpio'))
		self.assertEqual([argv[0] for argv in calls],
				 ['aarch64-linux-gnu-gcc', 'gcc', os.path.join(work, 'gen_init_cpio')])
		self.assertIn(os.path.join(self.repo, lkdtm.INIT_SOURCE), calls[0])
		# guest/sys.h, beside lkdtm/, is on the include path.
		self.assertEqual(calls[0][calls[0].index('-I') + 1],
				 os.path.join(self.repo, initramfs.GUEST_DIR))
		self.assertIn(os.path.join(self.tree, 'usr', 'gen_init_cpio.c'), calls[1])
		self.assertEqual(listings, ['dir /dev 0755 0 0\n'
					    'nod /dev/console 0600 0 0 c 5 1\n'
					    f'file /init {os.path.join(work, "init")} 0755 0 0\n'])

	def test_a_boot_never_reads_an_earlier_boots_console(self) -> None:
		for crash in lkdtm.CRASH_TYPES:  # consoles that would pass
			write(os.path.join(self.tree, '.pan-kunit', 'exec', f'lkdtm-pass_pan-{crash}',
					   'test.log'),
			      read(test_data_path('lkdtm', 'access_caught.log')) +
			      read(test_data_path('lkdtm', 'exec_caught.log')))
		write(os.path.join(self.repo, 'kunit', 'fake_mode'), 'noboot\n')  # no console
		tally = os.path.join(self.tmp, 'summary')
		with mock.patch.dict(os.environ, {summary.ENV: tally}):
			status, output = self.run_cli('lkdtm', '--config', 'pass_pan')
		self.assertEqual(status, 1, output)
		self.assertIn('    ACCESS_USERSPACE   FAIL init never provoked', output)
		self.assertTrue(output.endswith('lkdtm: 0 passed, 2 failed\n'), output)
		self.assertEqual(read(tally), 'lkdtm: 0 passed, 2 failed\n')

	def test_build_failure_fails(self) -> None:
		status, output = self.run_cli('lkdtm', '--config', 'builderror_pan', '--config', 'pass_pan')
		self.assertEqual(status, 1, output)
		self.assertIn('builderror_pan (max,pauth-impdef=on, PAN by CPU):\n'
			      '    ACCESS_USERSPACE   FAIL build failed\n'
			      '    EXEC_USERSPACE     FAIL build failed\n', output)
		self.assertTrue(output.endswith('lkdtm: 2 passed, 2 failed\n'), output)

	def test_timeout_fails_whatever_the_console_says(self) -> None:
		exec_dir = os.path.join(self.tmp, 'exec')
		# Read from runner.CONSOLE, whatever its name.
		with mock.patch.object(runner, 'CONSOLE', 'console.txt'):
			write(os.path.join(exec_dir, 'console.txt'),
			      read(test_data_path('lkdtm', 'access_caught.log')))
			ok = lkdtm._verdict(exec_dir, 'ACCESS_USERSPACE', True,
					    results.Exit(1, False, 3.0), 60)
			late = lkdtm._verdict(exec_dir, 'ACCESS_USERSPACE', True,
					      results.Exit(1, True, 120.0), 60)
		self.assertTrue(ok.ok, ok.summary)
		self.assertFalse(late.ok)
		self.assertTrue(late.summary.startswith('timed out: caught'), late.summary)
		self.assertIsNotNone(late.log)

class LkdtmTest(unittest.TestCase):
	"""The verdicts of `pan-kunit lkdtm`, from console fixtures."""

	def console(self, name: str) -> str:
		return read(test_data_path('lkdtm', name))

	def config(self, cpu: str, kconfig: str = '') -> configs.QemuConfig:
		return configs.QemuConfig(name='c', path='/r/qemu_configs/c.py',
					  kconfig=configs.normalise_kconfig(kconfig),
					  kernel_path='Image', cpu=cpu)

	def test_pan_from_the_cpu_model_not_the_kernel(self) -> None:
		self.assertTrue(lkdtm.has_pan(self.config('max,pauth-impdef=on')))
		self.assertFalse(lkdtm.has_pan(self.config('cortex-a57')))
		with self.assertRaisesRegex(Error, "no known PAN level for QEMU CPU 'a64fx'"):
			lkdtm.has_pan(self.config('a64fx'))

	def test_pan_by_software_from_the_kconfig(self) -> None:
		sw = 'CONFIG_SERIAL_AMBA_PL011=y\n  CONFIG_ARM64_SW_TTBR0_PAN=y\n'
		self.assertTrue(lkdtm.has_pan(self.config('cortex-a57', sw)))
		self.assertEqual(lkdtm.pan_source(self.config('cortex-a57', sw)), 'SW TTBR0')
		self.assertEqual(lkdtm.pan_source(self.config('max', sw)), 'CPU')
		self.assertIsNone(lkdtm.pan_source(self.config('cortex-a57')))
		for off in ('# CONFIG_ARM64_SW_TTBR0_PAN is not set', 'CONFIG_ARM64_SW_TTBR0_PAN=n',
			    'CONFIG_ARM64_SW_TTBR0_PAN_X=y'):
			self.assertFalse(lkdtm.has_pan(self.config('cortex-a57', off)), off)
		with self.assertRaisesRegex(Error, "no known PAN level for QEMU CPU 'a64fx'"):
			lkdtm.has_pan(self.config('a64fx', sw))

	def test_access_userspace_caught_with_pan(self) -> None:
		verdict = lkdtm.judge(self.console('access_caught.log'), 'ACCESS_USERSPACE', True)
		self.assertTrue(verdict.ok)
		self.assertEqual(verdict.summary, 'caught: "Unable to handle kernel access to user '
				 'memory outside uaccess routines at virtual address 0000ffff9c4f0000"')

	def test_init_line_cut_off_by_the_panic(self) -> None:
		# init's line never left the tty's buffer; LKDTM's printk says it ran.
		verdict = lkdtm.judge(self.console('access_caught_unflushed.log'), 'ACCESS_USERSPACE',
				      True)
		self.assertTrue(verdict.ok, verdict.summary)
		self.assertIn('caught: "Unable to handle kernel access to user memory', verdict.summary)
		verdict = lkdtm.judge(self.console('access_caught_unflushed.log'), 'EXEC_USERSPACE',
				      True)
		self.assertEqual(verdict.summary, 'init never provoked EXEC_USERSPACE')

	def test_access_userspace_survives_without_pan(self) -> None:
		verdict = lkdtm.judge(self.console('access_survived.log'), 'ACCESS_USERSPACE', False)
		self.assertTrue(verdict.ok)
		self.assertIn('"lkdtm: FAIL: survived bad read"', verdict.summary)

	def test_access_userspace_surviving_with_pan_fails(self) -> None:
		verdict = lkdtm.judge(self.console('access_survived.log'), 'ACCESS_USERSPACE', True)
		self.assertFalse(verdict.ok)
		self.assertIn('survived; expected "Unable to handle kernel access to user memory',
			      verdict.summary)
		self.assertIn('FAIL: survived bad write', verdict.log or '')

	def test_access_userspace_caught_without_pan_fails(self) -> None:
		verdict = lkdtm.judge(self.console('access_caught.log'), 'ACCESS_USERSPACE', False)
		self.assertFalse(verdict.ok)

	def test_exec_userspace_caught_either_way(self) -> None:
		for pan in (True, False):
			verdict = lkdtm.judge(self.console('exec_caught.log'), 'EXEC_USERSPACE', pan)
			self.assertTrue(verdict.ok, verdict.summary)
			self.assertIn('execution of user memory', verdict.summary)

	def test_wrong_crash_type_or_nothing_provoked_fails(self) -> None:
		verdict = lkdtm.judge(self.console('exec_caught.log'), 'ACCESS_USERSPACE', True)
		self.assertEqual(verdict.summary, 'init never provoked ACCESS_USERSPACE')
		verdict = lkdtm.judge(self.console('no_debugfs.log'), 'EXEC_USERSPACE', True)
		self.assertFalse(verdict.ok)
		self.assertFalse(lkdtm.judge(None, 'EXEC_USERSPACE', True).ok)

	def test_report_lines_and_total(self) -> None:
		cfg = self.config('cortex-a57')
		verdicts = {('c', 'ACCESS_USERSPACE'): lkdtm.BootVerdict(True, 'survived', None),
			    ('c', 'EXEC_USERSPACE'): lkdtm.BootVerdict(False, 'timed out', 'x\ny')}
		out = io.StringIO()
		with contextlib.redirect_stdout(out):
			self.assertFalse(lkdtm.print_report([cfg], verdicts))
		lines = out.getvalue().splitlines()
		self.assertIn('--- c EXEC_USERSPACE: timed out; last 25 console lines:', lines)
		self.assertIn('    y', lines)
		self.assertIn('c (cortex-a57, no PAN):', lines)
		self.assertEqual(lines[-1], '    EXEC_USERSPACE     FAIL timed out')
		out = io.StringIO()
		with contextlib.redirect_stdout(out):
			lkdtm.print_report([self.config('cortex-a57', 'CONFIG_ARM64_SW_TTBR0_PAN=y'),
					    self.config('max')], verdicts)
		self.assertIn('c (cortex-a57, PAN by SW TTBR0):', out.getvalue().splitlines())
		self.assertIn('c (max, PAN by CPU):', out.getvalue().splitlines())

class CoverageTest(unittest.TestCase):
	"""The gcov data out of the guest's console, and what lcov made of it."""

	def setUp(self) -> None:
		self.tmp = tempfile.mkdtemp(prefix='pan-kunit-test-')
		self.addCleanup(shutil.rmtree, self.tmp)

	def test_read_dump_reads_every_file_between_kernel_lines(self) -> None:
		files = coverage.read_dump(read(test_data_path('coverage', 'dump.log')))
		self.assertEqual(files, {'/build/k/arch/arm64/kernel/cpufeature.gcda': bytes(range(100)),
					 '/build/k/arch/arm64/mm/fault.gcda': b'gcda\x00\x01'})

	def test_read_dump_refuses_a_line_a_kernel_message_broke(self) -> None:
		with self.assertRaises(Error) as e:
			coverage.read_dump(read(test_data_path('coverage', 'dump_broken.log')))
		self.assertIn("gcov dump: a broken line after 0 bytes of "
			      "/build/k/arch/arm64/kernel/cpufeature.gcda: 'pan-kunit gcda+ 0 "
			      "000102030405060708090a[    3.5] random: crng init done'", str(e.exception))

	def test_read_dump_refuses_a_dump_cut_short(self) -> None:
		with self.assertRaises(Error) as e:
			coverage.read_dump(read(test_data_path('coverage', 'dump_cut.log')))
		self.assertIn('no end line (pan-kunit gcov: N files): the boot ended before the '
			      'init was done, after 0 files', str(e.exception))

	def test_read_dump_refuses_a_dump_of_no_files(self) -> None:
		with self.assertRaises(Error) as e:
			coverage.read_dump('pan-kunit init: cannot open /debug/gcov\n'
					   'pan-kunit gcov: 0 files\n')
		self.assertIn('gcov dump: no gcov data files', str(e.exception))

	def test_place_dump_puts_each_file_beside_its_objects_gcno(self) -> None:
		build = os.path.join(self.tmp, 'build')
		out = os.path.join(self.tmp, 'gcda')
		name = os.path.join(os.path.realpath(build), 'arch/arm64/mm/fault.gcda')
		placed = coverage.place_dump({name: b'data'}, build, out)
		self.assertEqual(placed, ['arch/arm64/mm/fault.o'])
		self.assertEqual(read_bytes(os.path.join(out, 'arch/arm64/mm/fault.gcda')), b'data')
		self.assertEqual(os.readlink(os.path.join(out, 'arch/arm64/mm/fault.gcno')),
				 os.path.join(os.path.realpath(build), 'arch/arm64/mm/fault.gcno'))
		with self.assertRaises(Error) as e:
			coverage.place_dump({'/elsewhere/fault.gcda': b''}, build, out)
		self.assertIn('/elsewhere/fault.gcda is not of the build in', str(e.exception))

	def functions_in_tree(self, *names: str) -> List[coverage.Function]:
		"""The fixture's functions.c as arch/arm64/kernel/functions.c of a
		tree at self.tmp, and the functions of it called @names."""
		source = os.path.join(self.tmp, 'arch/arm64/kernel/functions.c')
		os.makedirs(os.path.dirname(source))
		shutil.copy(test_data_path('coverage', 'functions.c'), source)
		return [coverage.Function(name, 'arch/arm64/kernel/functions.c', 'area')
			for name in names]

	def tracefile(self, tree: str) -> Dict[str, lcov.SourceData]:
		text = read(test_data_path('coverage', 'functions.info')).replace('TREE', tree)
		return lcov.read_tracefile(text, tree)

	def test_read_tracefile_adds_up_the_records_of_one_source(self) -> None:
		data = self.tracefile('/tree')
		self.assertEqual(list(data), ['arch/arm64/kernel/functions.c'])  # not outside.h
		source = data['arch/arm64/kernel/functions.c']
		self.assertEqual(source.lines, {8: 3, 9: 2, 10: 2, 30: 1, 31: 0})
		self.assertEqual(source.branches, {(8, '0', '0'): 1, (8, '0', '1'): 2,
						   (30, '0', '0'): 4, (30, '0', '1'): 1,
						   (31, '0', '0'): 0})

	def test_suites_only_subtracts_the_boot_without_them(self) -> None:
		# The baseline boot ran line 8 once, 9 twice, 30 once, and line
		# 30's first branch 4 times: only the suites' own runs are left.
		work = os.path.join(self.tmp, 'coverage')
		os.makedirs(work)
		for name, fixture in ((coverage.SUITES_INFO, 'functions.info'),
				      (coverage.BASELINE_INFO, 'functions.baseline.info')):
			write(os.path.join(work, name),
			      read(test_data_path('coverage', fixture)).replace('TREE', self.tmp))
		data = coverage.read_suites_only(work, self.tmp)
		assert data is not None
		source = data['arch/arm64/kernel/functions.c']
		self.assertEqual(source.lines, {8: 2, 9: 0, 10: 2, 30: 0, 31: 0})
		self.assertEqual(source.branches, {(8, '0', '0'): 0, (8, '0', '1'): 2,
						   (30, '0', '0'): 0, (30, '0', '1'): 1,
						   (31, '0', '0'): 0})
		self.assertEqual(lcov.reached_lines(data),
				 {'arch/arm64/kernel/functions.c': {8, 10}})

	def test_suites_only_config_by_config_past_the_noise(self) -> None:
		# The init's own user faults vary by one between boots: 17 against
		# 16 is noise, 19 against 16 is the suites'; a line the boot without
		# the suites never ran counts at once.  Each config has its own
		# baseline, and the results add up.
		work = os.path.join(self.tmp, 'coverage')
		os.makedirs(work)
		def info(counts: Dict[int, int]) -> str:
			return (f'SF:{self.tmp}/arch/arm64/mm/fault.c\n' +
				''.join(f'DA:{n},{c}\n' for n, c in counts.items()) + 'end_of_record\n')
		write(os.path.join(work, coverage.SUITES_INFO), info({600: 34, 554: 53, 700: 1}))
		write(os.path.join(work, 'a.info'), info({600: 17, 554: 31, 700: 1}))
		write(os.path.join(work, 'a.baseline.info'), info({600: 16, 554: 22, 700: 0}))
		write(os.path.join(work, 'b.info'), info({600: 17, 554: 22, 700: 0}))
		write(os.path.join(work, 'b.baseline.info'), info({600: 16, 554: 22, 700: 0}))
		data = coverage.read_suites_only(work, self.tmp)
		assert data is not None
		self.assertEqual(data['arch/arm64/mm/fault.c'].lines, {600: 0, 554: 9, 700: 1})
		self.assertEqual(lcov.reached_lines(data), {'arch/arm64/mm/fault.c': {554, 700}})

	def test_suites_only_without_a_baseline_is_the_whole_boot(self) -> None:
		work = os.path.join(self.tmp, 'coverage')
		self.assertIsNone(coverage.read_suites_only(work, self.tmp))
		os.makedirs(work)
		write(os.path.join(work, coverage.SUITES_INFO),
		      read(test_data_path('coverage', 'functions.info')).replace('TREE', self.tmp))
		data = coverage.read_suites_only(work, self.tmp)
		assert data is not None
		self.assertEqual(lcov.reached_lines(data),
				 {'arch/arm64/kernel/functions.c': {8, 9, 10, 30}})

	def test_function_ranges_finds_each_definition(self) -> None:
		text = read(test_data_path('coverage', 'functions.c'))
		ranges = {name: lcov.function_ranges(text, name)
			  for name in ('helper', 'twice', 'twice_stub', 'caller', 'missing')}
		self.assertEqual(ranges, {'helper': [(6, 11)], 'twice': [(14, 17), (19, 19)],
					  'twice_stub': [(22, 25)], 'caller': [(27, 32)],
					  'missing': []})

	def test_measure_counts_lines_and_branches_in_each_function(self) -> None:
		functions = self.functions_in_tree('helper', 'caller', 'twice')
		got = coverage.measure(functions, self.tracefile(self.tmp), self.tmp)
		self.assertEqual([(c.function.name, c.lines, c.branches, c.missed_lines,
				   c.missed_branches, c.found, c.defined) for c in got],
				 [('helper', (3, 3), (2, 2), [], [], True, True),
				  ('caller', (1, 2), (2, 3), [31], [31], True, True),
				  ('twice', (0, 0), (0, 0), [], [], False, True)])
		self.assertEqual((got[0].ratio(got[0].lines), got[1].ratio(got[1].branches),
				  got[2].ratio(got[2].lines)), ('3/3 100%', '2/3 66%', '-'))

	def test_a_function_no_longer_defined_fails_the_report(self) -> None:
		functions = self.functions_in_tree('helper', 'twice', 'renamed')
		covered = coverage.measure(functions, self.tracefile(self.tmp), self.tmp)
		config = mock.Mock()
		config.name = 'arm64_pan'
		report = coverage.Report([coverage.Boot(config, True, '1 passed')], covered, self.tmp)
		out = io.StringIO()
		with contextlib.redirect_stdout(out):
			self.assertFalse(coverage.print_report('linux-source-6.12', report))
		self.assertIn('twice    not instrumented: inlined whole into its callers', out.getvalue())
		self.assertIn('renamed  FAIL: not defined in arch/arm64/kernel/functions.c', out.getvalue())
		with contextlib.redirect_stdout(io.StringIO()):
			self.assertTrue(coverage.print_report('linux-source-6.12', coverage.Report(
				report.boots, covered[:2], self.tmp)))

	def test_every_function_under_test_is_defined_where_its_entry_says(self) -> None:
		# In the suites' own kernels the names are checked by a coverage run; here,
		# that each source is one of the profiled objects' or a header.
		for function in coverage.FUNCTIONS:
			self.assertTrue(function.source in coverage.PROFILED or
					function.source.endswith('.h'), function)
			self.assertTrue(set(function.kernels) <= {k.name for k in kernels.KNOWN},
					function)

	def test_make_options_profile_each_object_and_no_other(self) -> None:
		self.assertEqual(coverage.make_options()[:2], ['GCOV_PROFILE_cpufeature.o=y',
							      'GCOV_PROFILE_alternative.o=y'])
		self.assertEqual(len(coverage.make_options()), len(coverage.PROFILED))

	def test_boot_cmdline_has_no_kunit_shutdown(self) -> None:
		config = mock.Mock(cmdline='console=ttyAMA0 panic=-1')
		self.assertEqual(coverage.boot_cmdline(config), 'console=ttyAMA0 panic=-1')
		self.assertEqual(coverage.boot_cmdline(config, runner.KunitOptions('arm64_pan.*')),
				 'console=ttyAMA0 panic=-1 kunit.filter_glob=arm64_pan.*')

	def boot(self, console: str, outcome: results.Exit,
		 baseline: bool=False) -> coverage.Boot:
		build = os.path.join(self.tmp, 'build')
		exec_dir = os.path.join(self.tmp, 'exec')
		os.makedirs(exec_dir)
		text = read(test_data_path('coverage', console)).replace('/build/k', os.path.realpath(build))
		write(os.path.join(exec_dir, runner.CONSOLE), text)
		shutil.copy(test_data_path('kunit_json', 'skips.json'),
			    os.path.join(exec_dir, runner.KUNIT_JSON))
		config = mock.Mock()
		config.name = 'arm64_pan'
		with mock.patch.object(lcov, 'capture') as capture:
			boot = coverage._read_boot(config, exec_dir, build, self.tmp, outcome, 300,
						   baseline)
		self.captured = capture.call_args_list
		return boot

	def test_a_boot_gives_its_tally_and_its_tracefile(self) -> None:
		boot = self.boot('dump.log', results.Exit(0, False, 2.0))
		self.assertTrue(boot.ok, boot)
		self.assertRegex(boot.summary, r'^[0-9]+ passed, 0 failed, [1-9][0-9]* skipped$')
		gcda_dir = os.path.join(self.tmp, 'gcda', 'arm64_pan')
		self.assertEqual(self.captured, [mock.call(gcda_dir, boot.tracefile)])
		self.assertTrue(os.path.isfile(os.path.join(gcda_dir, 'arch/arm64/mm/fault.gcda')))

	def test_a_baseline_boot_keeps_its_counters_apart(self) -> None:
		boot = self.boot('dump.log', results.Exit(0, False, 2.0), baseline=True)
		self.assertEqual((boot.ok, boot.summary), (True, 'no suite'))
		gcda_dir = os.path.join(self.tmp, 'gcda', 'arm64_pan.baseline')
		self.assertEqual(self.captured, [mock.call(gcda_dir, boot.tracefile)])
		self.assertEqual(boot.tracefile, os.path.join(self.tmp, 'arm64_pan.baseline.info'))

	def test_the_baseline_boot_runs_no_suite(self) -> None:
		config = mock.Mock(cmdline='console=ttyAMA0')
		line = coverage.boot_cmdline(config, runner.KunitOptions(coverage.BASELINE_GLOB))
		self.assertEqual(line, 'console=ttyAMA0 kunit.filter_glob=' + coverage.BASELINE_GLOB)
		self.assertFalse(any(fnmatch.fnmatch(f'{suite}.x', coverage.BASELINE_GLOB)
				     for suite in ('arm64_pan', 'arm64_cpucap_table', 'arm64_alternative')))

	def test_a_boot_without_its_whole_dump_fails_with_the_reason(self) -> None:
		boot = self.boot('dump_cut.log', results.Exit(0, False, 2.0))
		self.assertFalse(boot.ok)
		self.assertIn('; gcov dump: no end line', boot.summary)
		self.assertIsNone(boot.tracefile)
		self.assertEqual(self.captured, [])

	def test_a_boot_that_timed_out_fails(self) -> None:
		boot = self.boot('dump.log', results.Exit(-9, True, 360.0))
		self.assertEqual((boot.ok, boot.summary), (False, 'timed out after 300 s'))

class CcacheTest(unittest.TestCase):

	def test_builds_go_through_ccache_with_the_tree_as_base_dir(self) -> None:
		started: List[runner.Job] = []
		def _run_jobs(jobs: List[runner.Job], watchdog: Optional[float]) -> None:
			for job in jobs:
				job.outcome = results.Exit(0, False, 1.0)
			started.extend(jobs)
		with tempfile.TemporaryDirectory() as tmp, \
		     mock.patch.object(shutil, 'which', return_value='/usr/bin/ccache'), \
		     mock.patch.object(runner, 'run_jobs', side_effect=_run_jobs):
			config = configs.QemuConfig(name='c', path=os.path.join(tmp, 'c.py'), kconfig='',
						    kernel_path='Image', cpu='max')
			with contextlib.redirect_stdout(io.StringIO()):
				runner.build_all(tmp, '/kunit', [runner.Build('k', [config], '/kc')], 2,
						 quiet=True)
			(job,) = started
			self.assertIn('--make_options', job.cmd)
			self.assertEqual(job.cmd[job.cmd.index('--make_options') + 1],
					 'CC=ccache aarch64-linux-gnu-gcc')
			# A first build of its directory keeps kunit.py's olddefconfig.
			self.assertEqual(job.env, {'CCACHE_BASEDIR': os.path.realpath(tmp),
						   'PAN_KUNIT_OLDDEFCONFIG': '1'})

	def test_the_users_compiler_wins(self) -> None:
		env = {'CCACHE_BASEDIR': os.path.realpath('/t')}
		with mock.patch.object(shutil, 'which', return_value='/usr/bin/ccache'):
			self.assertEqual(runner.ccache_options('/t', ['W=1']),
					 (['--make_options', 'CC=ccache aarch64-linux-gnu-gcc'], env))
			self.assertEqual(runner.ccache_options('/t', ['W=1', 'LLVM=1']),
					 (['--make_options', 'CC=ccache clang'], env))
			for options in (['CC=clang'], ['LLVM=-14'], ['LLVM=/usr/lib/llvm-14/bin/']):
				self.assertEqual(runner.ccache_options('/t', options), ([], {}), options)

	def test_make_options_have_a_build_directory_of_their_own(self) -> None:
		config = configs.QemuConfig(name='c', path='/c.py', kconfig='CONFIG_X=y',
					    kernel_path='Image', cpu='max')
		def key(*make_options: str) -> str:
			(build,) = runner.kconfig_builds('/t', [config], '/kc', make_options=make_options)
			return build.key
		self.assertEqual(key(), config.build_key())  # as before, without any
		self.assertEqual(key('W=1'), key('W=1'))
		self.assertEqual(len({key(), key('W=1'), key('LLVM=1'), key('W=1', 'LLVM=1')}), 4)

	def test_without_ccache_builds_plainly(self) -> None:
		with mock.patch.object(shutil, 'which', return_value=None):
			self.assertEqual(runner.ccache_options('/t'), ([], {}))

class OlddefconfigTest(unittest.TestCase):
	"""The olddefconfig kunit_build.py leaves out: announced, switched off
	by --olddefconfig or PAN_KUNIT_OLDDEFCONFIG=1, and never left out
	after the toolchain changed."""

	def setUp(self) -> None:
		tmp = tempfile.TemporaryDirectory()
		self.addCleanup(tmp.cleanup)
		self.tmp = tmp.name
		self.bin = os.path.join(self.tmp, 'bin')
		os.mkdir(self.bin)
		for tool in ('aarch64-linux-gnu-gcc', 'aarch64-linux-gnu-as', 'aarch64-linux-gnu-ld',
			     'pahole'):
			self.tool(tool, f'{tool} 1.0')
		patcher = mock.patch.dict(os.environ, {'PATH': self.bin + os.pathsep + '/usr/bin:/bin'})
		patcher.start()
		self.addCleanup(patcher.stop)
		os.environ.pop(kunit_tool.OLDDEFCONFIG_ENV, None)
		self.started: List[runner.Job] = []

	def tool(self, name: str, version: str) -> None:
		path = os.path.join(self.bin, name)
		write(path, f'#!/bin/sh\necho "{version}"\necho "more lines"\n')
		os.chmod(path, 0o755)

	def build(self, *argv: str) -> Tuple[Dict[str, str], str]:
		"""A build_all of one build, in a cli.main() of a command with
		@argv: its job's environment and what it printed."""
		def _run_jobs(jobs: List[runner.Job], watchdog: Optional[float]) -> None:
			for job in jobs:
				job.outcome = results.Exit(0, False, 1.0)
			self.started.extend(jobs)
		config = configs.QemuConfig(name='c', path=os.path.join(self.tmp, 'c.py'), kconfig='',
					    kernel_path='Image', cpu='max')
		out = io.StringIO()
		keep = cli.parse_args(['run'] + list(argv)).olddefconfig
		with mock.patch.object(shutil, 'which', return_value=None), \
		     mock.patch.object(runner, 'run_jobs', side_effect=_run_jobs), \
		     kunit_tool.olddefconfig(keep), contextlib.redirect_stdout(out):
			runner.build_all(self.tmp, '/kunit', [runner.Build('k', [config], '/kc')], 2,
					 quiet=True)
		return self.started[-1].env, out.getvalue()

	def test_left_out_while_the_toolchain_is_unchanged_and_said_once(self) -> None:
		announced = ("note: builds leave out kunit.py's make olddefconfig while the toolchain "
			     "is unchanged (--olddefconfig or PAN_KUNIT_OLDDEFCONFIG=1 keep it)\n")
		# The first build of a directory: no toolchain noted, kunit.py's way.
		self.assertEqual(self.build(), ({'PAN_KUNIT_OLDDEFCONFIG': '1'}, announced))
		noted = read(os.path.join(self.tmp, '.pan-kunit', 'build', 'k', '.pan-kunit-toolchain'))
		self.assertEqual(noted, 'aarch64-linux-gnu-gcc: aarch64-linux-gnu-gcc 1.0\n'
				 'aarch64-linux-gnu-as: aarch64-linux-gnu-as 1.0\n'
				 'aarch64-linux-gnu-ld: aarch64-linux-gnu-ld 1.0\n'
				 'pahole: pahole 1.0\n')
		self.assertEqual(self.build(), ({}, announced))
		with kunit_tool.olddefconfig(False), contextlib.redirect_stdout(io.StringIO()) as out:
			self.assertEqual(kunit_tool.build_env(os.path.join(self.tmp, '.pan-kunit', 'build',
									  'k'), noted), {})
			self.assertEqual(kunit_tool.build_env(os.path.join(self.tmp, '.pan-kunit', 'build',
									  'k'), noted), {})
		self.assertEqual(out.getvalue(), announced)  # once a command

	def test_switched_off_by_option_or_environment(self) -> None:
		self.build()
		self.assertEqual(self.build('--olddefconfig'), ({'PAN_KUNIT_OLDDEFCONFIG': '1'}, ''))
		with mock.patch.dict(os.environ, {'PAN_KUNIT_OLDDEFCONFIG': '1'}):
			self.assertEqual(self.build(), ({'PAN_KUNIT_OLDDEFCONFIG': '1'}, ''))
		with mock.patch.dict(os.environ, {'PAN_KUNIT_OLDDEFCONFIG': '0'}):
			self.assertEqual(self.build()[0], {})
		for command in ('run', 'lkdtm', 'coverage', 'bisect', 'mutants'):
			self.assertTrue(cli.parse_args([command, '--olddefconfig']).olddefconfig)
		self.assertTrue(cli.parse_args(['export', 'd', '--olddefconfig']).olddefconfig)
		self.assertFalse(cli.parse_args(['run']).olddefconfig)
		self.assertEqual(kunit_build.OLDDEFCONFIG_ENV, kunit_tool.OLDDEFCONFIG_ENV)

	def test_a_changed_toolchain_reconfigures_and_says_so(self) -> None:
		self.build()
		self.assertEqual(self.build()[0], {})
		self.tool('aarch64-linux-gnu-ld', 'aarch64-linux-gnu-ld 2.0')
		env, printed = self.build()
		self.assertEqual(env, {'PAN_KUNIT_OLDDEFCONFIG': '1'})
		build_dir = os.path.join(self.tmp, '.pan-kunit', 'build', 'k')
		self.assertIn(f'note: the toolchain changed since {build_dir} was configured '
			      '(aarch64-linux-gnu-ld: aarch64-linux-gnu-ld 1.0 -> aarch64-linux-gnu-ld 2.0): '
			      'olddefconfig runs before its make\n', printed)
		self.assertEqual(self.build()[0], {})  # noted once it built
		os.unlink(os.path.join(self.bin, 'pahole'))
		self.assertEqual(self.build()[0], {'PAN_KUNIT_OLDDEFCONFIG': '1'})

	def test_a_failed_build_notes_nothing(self) -> None:
		def _run_jobs(jobs: List[runner.Job], watchdog: Optional[float]) -> None:
			for job in jobs:
				job.outcome = results.Exit(2, False, 1.0)
				write(job.log, 'make: *** [all] Error 2\n')
		config = configs.QemuConfig(name='c', path=os.path.join(self.tmp, 'c.py'), kconfig='',
					    kernel_path='Image', cpu='max')
		with mock.patch.object(shutil, 'which', return_value=None), \
		     mock.patch.object(runner, 'run_jobs', side_effect=_run_jobs), \
		     contextlib.redirect_stdout(io.StringIO()):
			runner.build_all(self.tmp, '/kunit', [runner.Build('k', [config], '/kc')], 2)
		self.assertFalse(os.path.exists(os.path.join(self.tmp, '.pan-kunit', 'build', 'k',
							     '.pan-kunit-toolchain')))

class ImageOptionsTest(unittest.TestCase):

	def config(self, name: str, kernel_path: str) -> configs.QemuConfig:
		return configs.QemuConfig(name=name, path=f'/{name}.py', kconfig='',
					  kernel_path=kernel_path, cpu='max')

	def test_make_builds_the_image_the_group_boots(self) -> None:
		group = [self.config('a', 'arch/arm64/boot/Image'),
			 self.config('b', 'arch/arm64/boot/Image')]
		self.assertEqual(runner.image_options(group),
				 ['--make_options', 'KBUILD_IMAGE=arch/arm64/boot/Image'])
		self.assertEqual(runner.image_options(group, ['W=1']),
				 ['--make_options', 'KBUILD_IMAGE=arch/arm64/boot/Image'])

	def test_two_images_or_the_users_own_are_left_to_make(self) -> None:
		two = [self.config('a', 'arch/arm64/boot/Image'),
		       self.config('b', 'arch/arm64/boot/Image.gz')]
		self.assertEqual(runner.image_options(two), [])
		one = two[:1]
		self.assertEqual(runner.image_options(one, ['KBUILD_IMAGE=arch/arm64/boot/Image.gz']), [])

	def test_the_projects_configs_boot_the_image_make_builds_last(self) -> None:
		# Image.gz is compressed from the Image after it: a config that
		# boots it costs every build that compression.
		for path in sorted(glob.glob(os.path.join(REPO, 'qemu_configs', '*.py'))):
			with open(path) as f:
				self.assertIn("kernel_path='arch/arm64/boot/Image',", f.read(), path)

class KunitBuildTest(unittest.TestCase):
	"""kunit_build.py against the kunit_kernel.py of each kernel
	(test_data/kunit_tool/VERSION), with stand-in make operations."""

	class Ops:
		def __init__(self) -> None:
			self.calls: List[str] = []

		def make_olddefconfig(self, build_dir: str, make_options: Optional[List[str]]) -> None:
			self.calls.append('olddefconfig')

		def make(self, jobs: int, build_dir: str, make_options: Optional[List[str]]) -> None:
			self.calls.append(f'make -j{jobs}')

	def load(self, kernel: str) -> Any:
		"""kunit_kernel of @kernel, imported afresh with its own kunit_config
		and qemu_config."""
		saved = {name: sys.modules.pop(name) for name in ('kunit_kernel', 'kunit_config', 'qemu_config')
			 if name in sys.modules}
		sys.path.insert(0, kunit_tool_of(kernel))
		try:
			return importlib.import_module('kunit_kernel')
		finally:
			sys.path.remove(kunit_tool_of(kernel))
			for name in ('kunit_kernel', 'kunit_config', 'qemu_config'):
				sys.modules.pop(name, None)
			sys.modules.update(saved)

	def test_build_kernel_makes_without_olddefconfig_on_every_kernel(self) -> None:
		for kernel in (k.name for k in kernels.KNOWN):
			with self.subTest(kernel=kernel):
				kunit_kernel = self.load(kernel)
				tree = object.__new__(kunit_kernel.LinuxSourceTree)
				tree._ops = ops = self.Ops()
				tree.validate_config = lambda build_dir: True
				self.assertTrue(tree.build_kernel(2, '/b', []))
				self.assertEqual(ops.calls, ['olddefconfig', 'make -j2'])  # as kunit.py does
				ops.calls.clear()
				self.assertTrue(kunit_build.skip_olddefconfig_before_make(kunit_kernel))
				self.assertTrue(tree.build_kernel(2, '/b', []))
				self.assertEqual(ops.calls, ['make -j2'])
				# Anything else that reconfigures still runs olddefconfig.
				ops.make_olddefconfig('/b', [])
				self.assertEqual(ops.calls, ['make -j2', 'olddefconfig'])

	def test_validate_config_still_judges_the_build(self) -> None:
		for kernel in (k.name for k in kernels.KNOWN):
			with self.subTest(kernel=kernel):
				kunit_kernel = self.load(kernel)
				self.assertTrue(kunit_build.skip_olddefconfig_before_make(kunit_kernel))
				self.assertTrue(kunit_build.skip_olddefconfig_before_make(kunit_kernel))  # once
				tree = object.__new__(kunit_kernel.LinuxSourceTree)
				tree._ops = ops = self.Ops()
				tree.validate_config = lambda build_dir: False
				self.assertFalse(tree.build_kernel(2, '/b', []))
				self.assertEqual(ops.calls, ['make -j2'])

	def test_kunit_py_runs_with_the_patched_kunit_kernel(self) -> None:
		# kunit_build.py imports kunit_kernel, then runs kunit.py, whose
		# own `import kunit_kernel` must find the patched module.
		stand_in = textwrap.dedent('''\
			import json, sys
			import kunit_kernel
			calls = []
			class Ops:
				def make_olddefconfig(self, build_dir, make_options):
					calls.append('olddefconfig')
				def make(self, jobs, build_dir, make_options):
					calls.append('make')
			tree = object.__new__(kunit_kernel.LinuxSourceTree)
			tree._ops = Ops()
			tree.validate_config = lambda build_dir: True
			tree.build_kernel(1, '/b', [])
			with open(sys.argv[2], 'w') as f:
				json.dump([sys.argv[1]] + calls, f)
			''')
		for kernel in (k.name for k in kernels.KNOWN):
			with self.subTest(kernel=kernel), tempfile.TemporaryDirectory() as tmp:
				for name in ('kunit_kernel.py', 'kunit_config.py', 'qemu_config.py'):
					shutil.copy(os.path.join(kunit_tool_of(kernel), name), tmp)
				write(os.path.join(tmp, 'kunit.py'), stand_in)
				out = os.path.join(tmp, 'calls.json')
				subprocess.run([sys.executable, kunit_tool.BUILD, os.path.join(tmp, 'kunit.py'),
						'build', out], check=True)
				self.assertEqual(json.loads(read(out)), ['build', 'make'])
				# Switched off: kunit.py as it is.
				subprocess.run([sys.executable, kunit_tool.BUILD, os.path.join(tmp, 'kunit.py'),
						'build', out], check=True,
					       env=dict(os.environ, PAN_KUNIT_OLDDEFCONFIG='1'))
				self.assertEqual(json.loads(read(out)), ['build', 'olddefconfig', 'make'])

	def test_builds_run_through_kunit_build(self) -> None:
		config = configs.QemuConfig(name='c', path='/c.py', kconfig='', kernel_path='Image',
					    cpu='max')
		cmd = runner.kunit_cmd('/kunit', 'build', '/b', '/kc', config)
		self.assertEqual(cmd[:4], [sys.executable, kunit_tool.BUILD, '/kunit/kunit.py', 'build'])
		self.assertEqual(os.path.basename(kunit_tool.BUILD), 'kunit_build.py')
		self.assertTrue(os.path.isfile(kunit_tool.BUILD))
		cmd = runner.kunit_cmd('/kunit', 'exec', '/b', '/kc', config)
		self.assertEqual(cmd[:3], [sys.executable, '/kunit/kunit.py', 'exec'])

	def test_no_module_hides_one_of_the_standard_library(self) -> None:
		# kunit_build.py starts with pan_kunit/ first on the path.
		names = {os.path.splitext(n)[0] for n in os.listdir(os.path.dirname(kunit_tool.BUILD))}
		self.assertEqual(sorted(names & sys.stdlib_module_names), [])

	def test_another_kunit_kernel_is_left_as_it_is(self) -> None:
		module = types.ModuleType('kunit_kernel')
		self.assertFalse(kunit_build.skip_olddefconfig_before_make(module))
		class LinuxSourceTree:
			def build_kernel(self, jobs: int, build_dir: str, make_options: List[str]) -> bool:
				return True  # no olddefconfig to leave out
		original = LinuxSourceTree.build_kernel
		module.LinuxSourceTree = LinuxSourceTree  # type: ignore[attr-defined]
		self.assertFalse(kunit_build.skip_olddefconfig_before_make(module))
		self.assertIs(module.LinuxSourceTree.build_kernel, original)

class BuildLockTest(unittest.TestCase):

	def test_a_build_directory_in_use_is_waited_for(self) -> None:
		waiting = threading.Event()
		class Out(io.StringIO):
			def write(self, text: str) -> int:
				if text.startswith('waiting for another pan-kunit building in '):
					waiting.set()
				return super().write(text)
		started: List[runner.Job] = []
		def _run_jobs(jobs: List[runner.Job], watchdog: Optional[float]) -> None:
			for job in jobs:
				job.outcome = results.Exit(0, False, 1.0)
			started.extend(jobs)
		with tempfile.TemporaryDirectory() as tmp, \
		     mock.patch.object(shutil, 'which', return_value=None), \
		     mock.patch.object(runner, 'run_jobs', side_effect=_run_jobs), \
		     contextlib.redirect_stdout(Out()):
			config = configs.QemuConfig(name='c', path=os.path.join(tmp, 'c.py'), kconfig='',
						    kernel_path='Image', cpu='max')
			build = runner.Build('k', [config], '/kc')
			os.makedirs(build.build_dir(tmp))
			with open(build.build_dir(tmp) + '.lock', 'w') as other:  # another pan-kunit
				fcntl.flock(other, fcntl.LOCK_EX)
				thread = threading.Thread(target=runner.build_all,
							  args=(tmp, '/kunit', [build], 2), daemon=True)
				thread.start()
				self.assertTrue(waiting.wait(10), 'build_all did not wait for the lock')
				self.assertEqual(started, [])
			thread.join(10)
			self.assertFalse(thread.is_alive())
			self.assertEqual(len(started), 1)

class SignalTest(unittest.TestCase):

	def test_sigterm_ends_the_run_as_interrupt_does(self) -> None:
		# In a child process: without the handler, SIGTERM kills it, not
		# the whole unittest run.
		child = ('import os, signal, sys\n'
			 'from unittest import mock\n'
			 'from pan_kunit import cli, run\n'
			 'def killed(*args):\n'
			 '\tos.kill(os.getpid(), signal.SIGTERM)\n'
			 '\treturn 0\n'
			 'with mock.patch.object(run, "run_tests", side_effect=killed):\n'
			 '\tsys.exit(cli.main(["--tree", "/nonexistent", "run", "--kernel", "6.1"]))\n')
		result = subprocess.run([sys.executable, '-c', child], cwd=os.path.dirname(TEST_DATA),
					stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
					timeout=60, check=False)
		self.assertEqual(result.returncode, 130, result.stderr)
		self.assertEqual(result.stderr, 'pan-kunit: interrupted\n')

def synthetic_config(status: results.Status, leaves: Dict[str, str]) -> results.ConfigResult:
	"""A config "c" of @status whose suite arm64_s has the cases @leaves."""
	kunit = {'name': 'KUnit Test Group', 'sub_groups': [
		{'name': 'arm64_s', 'sub_groups': [], 'test_cases': [
			{'name': case, 'status': leaf} for case, leaf in leaves.items()]}],
		 'test_cases': []}
	return results.ConfigResult(name='c', cpu='max', qemu_config='c.py', build_dir='b',
				    status=status, elapsed=1.0, skip_reasons={}, kunit=kunit,
				    console_log='', exec_log='')

class StepVerdictTest(unittest.TestCase):
	"""first_bad() and regressions() on synthetic steps."""

	def config(self, status: results.Status, leaves: Dict[str, str]) -> results.ConfigResult:
		return synthetic_config(status, leaves)

	def test_first_bad_is_the_first_of_several(self) -> None:
		good = self.config(results.Status.PASS, {'a': 'PASS'})
		checked = [steps.Step(0, None, configs=[good]),
			   steps.Step(1, None, configs=[good]),
			   steps.Step(2, None, configs=[good], regressions=['c: arm64_s.a FAIL']),
			   steps.Step(3, None, configs=[self.config(results.Status.BUILD_ERROR, {})]),
			   steps.Step(4, None, configs=[good], regressions=['c: arm64_s.b FAIL'])]
		bad = series_bisect.first_bad(checked)
		self.assertIsNotNone(bad)
		assert bad is not None
		self.assertEqual(bad.number, 2)
		self.assertIsNone(series_bisect.first_bad(checked[:2]))

	def test_crash_or_hang_after_a_pass_is_a_regression(self) -> None:
		before = [self.config(results.Status.PASS, {'a': 'PASS', 'b': 'PASS'})]
		for status in (results.Status.CRASH, results.Status.TIMEOUT):
			after = [self.config(status, {'a': 'PASS'})]
			self.assertEqual(series_bisect.regressions(before, after), [f'c: {status}'])
		# A case that crashed (ERROR) counts as failed, one that vanished does not.
		after = [self.config(results.Status.CRASH, {'a': 'ERROR'})]
		self.assertEqual(series_bisect.regressions([self.config(results.Status.CRASH, {'a': 'PASS'})], after),
				 ['c: arm64_s.a ERROR'])
		# What was broken before is no regression when it stays broken.
		self.assertEqual(series_bisect.regressions([self.config(results.Status.CRASH, {})],
						   [self.config(results.Status.CRASH, {})]), [])

	def test_no_tests_is_a_junit_error(self) -> None:
		(suite,) = junit.config_suites(synthetic_config(results.Status.NO_TESTS, {}))
		error = suite.find('testcase/error')
		assert error is not None
		self.assertEqual((error.get('type'), error.get('message')), ('no_tests', 'no test ran'))

	def test_junit_failed_config_without_cases_and_expected_no_tests(self) -> None:
		(suite,) = junit.config_suites(synthetic_config(results.Status.FAIL, {}))
		self.assertEqual(suite.get('name'), 'linux/c')
		failure = suite.find('testcase/failure')
		assert failure is not None
		self.assertEqual(failure.get('message'), junit.NO_CASE_FAILED[1])
		(suite,) = junit.config_suites(synthetic_config(results.Status.NO_TESTS, {}),
					       'step-00', no_tests_expected=True)
		self.assertEqual((suite.get('errors'), suite.get('skipped')), ('0', '1'))

	def test_pass_to_no_tests_is_a_regression(self) -> None:
		before = [self.config(results.Status.PASS, {'a': 'PASS'})]
		after = [self.config(results.Status.NO_TESTS, {})]
		self.assertEqual(series_bisect.regressions(before, after), ['c: no_tests'])
		self.assertEqual(series_bisect.regressions(after, after), [])

class JudgeByGroupsTest(TempDirTestCase):
	"""mutants.judge_by_groups() with runner.run as a stand-in."""

	def test_each_group_keeps_the_consoles_of_those_before(self) -> None:
		matrix = [mock.Mock(), mock.Mock()]
		matrix[0].name, matrix[1].name = 'a', 'b'
		def fake_run(wt: str, kunit_dir: str, configs: Any, *args: Any,
			     outputs: runner.Outputs, **kwargs: Any) -> List[results.ConfigResult]:
			console = os.path.join(outputs.exec_dir(configs[0]), 'test.log')
			os.makedirs(os.path.dirname(console))
			write(console, 'boot\n')
			return [synthetic_config(results.Status.PASS, {'a': 'PASS'})]
		checker = steps.Checker(self.tree, matrix, timeout=1, jobs=1)
		mutant = mutants.Mutant(path='m.patch', name='m', subject='s', must_fail=['arm64_s'])
		wt = os.path.join(self.tmp, 'wt')
		with mock.patch.object(steps.Checker, 'groups', return_value=[[matrix[0]], [matrix[1]]]), \
		     mock.patch.object(runner, 'run', fake_run), \
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
		matrix = [mock.Mock(), mock.Mock()]
		matrix[0].name, matrix[1].name = 'a', 'b'
		dirs = {name: os.path.join(self.tmp, 'build', name) for name in ('a', 'b')}
		for build_dir in dirs.values():
			os.makedirs(build_dir, exist_ok=True)
			write(os.path.join(build_dir, 'f.o'), 'tree')
		before = mutants.object_hashes(list(dirs.values()), ['f.o'])
		built: List[str] = []
		def fake_run(wt: str, kunit_dir: str, configs: Any, *args: Any,
			     **kwargs: Any) -> List[results.ConfigResult]:
			name = configs[0].name
			built.append(name)
			write(os.path.join(dirs[name], 'f.o'), 'mutant' if name in mutated_in else 'tree')
			return [synthetic_config(results.Status.PASS, {'a': 'PASS'})]
		checker = steps.Checker(self.tree, matrix, timeout=1, jobs=1)
		mutant = mutants.Mutant(path='m.patch', name='m', subject='s',
					must_fail=[mutants.ANY_SUITE], files=['f.c'])
		with mock.patch.object(steps.Checker, 'groups', return_value=[[matrix[0]], [matrix[1]]]), \
		     mock.patch.object(steps.Checker, 'build_dirs',
				       side_effect=lambda wt, group: [dirs[group[0].name]]), \
		     mock.patch.object(runner, 'run', fake_run), \
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
		matrix = [mock.Mock()]
		matrix[0].name = 'a'
		calls: List[int] = []
		def fake_run(*args: Any, **kwargs: Any) -> List[results.ConfigResult]:
			calls.append(1)
			if len(calls) == fail_on:
				return [synthetic_config(results.Status.FAIL, {'a': 'FAIL'})]
			return [synthetic_config(results.Status.PASS, {'a': 'PASS'})]
		checker = steps.Checker(self.tree, matrix, timeout=1, jobs=1)
		mutant = mutants.Mutant(path='m.patch', name='m', subject='s', must_fail=['arm64_s'],
					boots=boots)
		with mock.patch.object(steps.Checker, 'groups', return_value=[matrix]), \
		     mock.patch.object(runner, 'run', fake_run), \
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

class ForKernelTest(unittest.TestCase):
	"""export.for_kernel(): a suite's kernel differences, resolved."""

	TEXT = (b'#include <kunit/test.h>\n#include <linux/version.h>\n'
		b'#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)\n'
		b'#define NEW 1\n'
		b'#else\n'
		b'#ifdef CONFIG_X\n#define OLD_X 1\n#else\n#define OLD 1\n#endif\n'
		b'#endif\n'
		b'int x;\n')

	def test_each_kernel_keeps_its_branch(self) -> None:
		self.assertEqual(export.for_kernel('t.c', self.TEXT, '6.12.118'),
				 b'#include <kunit/test.h>\n#define NEW 1\nint x;\n')
		self.assertEqual(export.for_kernel('t.c', self.TEXT, '6.1.192'),
				 b'#include <kunit/test.h>\n#ifdef CONFIG_X\n#define OLD_X 1\n#else\n'
				 b'#define OLD 1\n#endif\nint x;\n')
		self.assertEqual(export.for_kernel('t.c', self.TEXT, '6.9.0'),
				 b'#include <kunit/test.h>\n#define NEW 1\nint x;\n')

	def test_what_it_cannot_resolve_is_refused(self) -> None:
		with self.assertRaisesRegex(Error, 't.c: #if LINUX_VERSION_CODE without its #endif'):
			export.for_kernel('t.c', self.TEXT.replace(b'int x;\n', b'').rsplit(b'#endif', 1)[0],
					  '6.1.192')
		with self.assertRaisesRegex(Error, r't.c:5: export resolves'):
			export.for_kernel('t.c', self.TEXT.replace(b'#else\n#ifdef', b'#elif 1\n#ifdef', 1),
					  '6.1.192')
		# A file without differences keeps its <linux/version.h>.
		text = b'#include <linux/version.h>\nint y = LINUX_VERSION_CODE;\n'
		self.assertEqual(export.for_kernel('t.c', text, '6.1.192'), text)

class JudgeTest(unittest.TestCase):
	"""mutants.judge() on synthetic configs."""

	def mutant(self) -> mutants.Mutant:
		return mutants.Mutant(path='m.patch', name='m', subject='s', must_fail=['arm64_s'])

	def test_cases_that_failed_before_a_hang_are_named(self) -> None:
		mutant = self.mutant()
		hung = synthetic_config(results.Status.TIMEOUT, {'a': 'FAIL', 'b': 'PASS'})
		mutants.judge(mutant, [hung], {'arm64_s'})
		self.assertEqual(mutant.verdict, mutants.MutantVerdict.KILLED)
		self.assertEqual(mutant.detail, 'c: 1 failed: arm64_s.a; then c: timeout')

	def test_a_crash_before_any_failure_is_the_kill(self) -> None:
		mutant = self.mutant()
		mutants.judge(mutant, [synthetic_config(results.Status.CRASH, {'a': 'PASS'})],
			      {'arm64_s'})
		self.assertEqual((mutant.verdict, mutant.detail), (mutants.MutantVerdict.KILLED, 'c: crash'))

class SummaryTest(TempDirTestCase):
	"""PAN_KUNIT_SUMMARY and the closing line of .ci/run."""

	def summary_main(self, path: str, status: int) -> Tuple[int, str]:
		out = io.StringIO()
		with contextlib.redirect_stdout(out):
			code = summary.main([path, str(status)])
		return code, out.getvalue()

	def test_tallies_add_up_to_one_plain_line(self) -> None:
		path = os.path.join(self.tmp, 'summary')
		with mock.patch.dict(os.environ, {summary.ENV: path}):
			summary.record(summary.Tally('selftest', 70, 0))
			summary.record(summary.Tally('run', 784, 0, 34))
		summary.record(summary.Tally('mutants', 18, 0), path=path)
		# run's line carries its skips; the sum of the commands does not.
		self.assertEqual([t.line() for t in summary.read(path)],
				 ['selftest: 70 passed, 0 failed', 'run: 784 passed, 0 failed, 34 skipped',
				  'mutants: 18 passed, 0 failed'])
		with open(path, 'a') as f:
			f.write('noise: not a tally\n')
		self.assertEqual(self.summary_main(path, 0), (0, 'ci: 872 passed, 0 failed\n'))
		summary.record(summary.Tally('bisect', 5, 1), path=path)
		self.assertEqual(self.summary_main(path, 1), (1, 'ci: 877 passed, 1 failed\n'))

	def test_failed_tally_fails_even_with_status_zero(self) -> None:
		path = os.path.join(self.tmp, 'summary')
		summary.record(summary.Tally('lkdtm', 5, 1), path=path)
		self.assertEqual(self.summary_main(path, 0), (1, 'ci: 5 passed, 1 failed\n'))

	def test_command_that_ended_badly_counts_once(self) -> None:
		path = os.path.join(self.tmp, 'summary')
		summary.record(summary.Tally('selftest', 70, 0), path=path)
		self.assertEqual(self.summary_main(path, 2), (2, 'ci: 70 passed, 1 failed\n'))
		self.assertEqual(self.summary_main(os.path.join(self.tmp, 'none'), 2),
				 (2, 'ci: 0 passed, 1 failed\n'))

	def test_no_env_records_nothing(self) -> None:
		before = sorted(os.listdir(self.tmp))
		with mock.patch.dict(os.environ, {summary.ENV: ''}):
			summary.record(summary.Tally('run', 1, 0))
		self.assertEqual(sorted(os.listdir(self.tmp)), before)

	def test_selftest_records_itself_not_the_commands_its_tests_run(self) -> None:
		path = os.path.join(self.tmp, 'summary')
		directory = os.path.join(self.tmp, 'selftest_tally')
		write(os.path.join(directory, 'tally_test.py'),
		      'import unittest\n'
		      'from pan_kunit import summary\n'
		      'class T(unittest.TestCase):\n'
		      '\tdef test_a(self):\n\t\tsummary.record(summary.Tally("run", 9, 9))\n'
		      '\tdef test_b(self):\n\t\tself.assertTrue(False)\n'
		      '\t@unittest.skip("x")\n\tdef test_c(self):\n\t\tpass\n')
		with mock.patch.object(selftest, 'TOOLS_DIR', directory), \
		     mock.patch.dict(os.environ, {summary.ENV: path}), \
		     contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
			self.assertEqual(selftest.selftest(), 1)
			self.assertEqual(os.environ[summary.ENV], path)
		self.assertEqual(read(path), 'selftest: 1 passed, 1 failed\n')


if __name__ == '__main__':
	unittest.main()

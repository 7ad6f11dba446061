#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# What the tests of tools/pan-kunit share (tools/*_test.py):
#   python3 -m unittest discover -s tools -p '*_test.py'
# or tools/pan-kunit selftest.  No kernel build, no QEMU, no network: the
# tree comes from a tiny tarball of test_data/fake_source, and its
# kunit_tool is test_data/fake_kunit.  The tarball and one tree of it
# are made once per process, when a test first needs them; the tests of
# what comes after a setup start from a copy of that tree, not from an
# extraction of their own.
#
# @end_to_end marks the tests that run a whole command (cli.main() with
# the fake kunit_tool), set a tree up with git, or start a Python or a
# compiler of their own: `tools/pan-kunit selftest --quick` skips them
# and runs the unit layer.  @slow marks those that run a dozen commands
# each (ended by signals or a full disk at each stage and run again, a
# CI pipeline's every shard): `selftest` skips them too, `selftest --all`
# runs every layer.
#
# Each test module imports setUpModule and tearDownModule from here: its
# tests run without the caller's settings of pan-kunit.

import atexit
import contextlib
import functools
import hashlib
import io
import lzma
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pan_kunit.commands import cli, selftest, sharding, steps
from pan_kunit.host import packages
from pan_kunit.host.printer import Printer
from pan_kunit.host.progress import Progress
from pan_kunit.kunit_tool import configs, toolchains
from pan_kunit.matrix import jobs, plan, shard
from pan_kunit.results import config_result
from pan_kunit.results.config_result import Status, Exit
from pan_kunit.trees import kernels, sources, tree

TEST_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test_data')
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VERSION = '6.1.192-3'
def kernel(name: str) -> kernels.KernelSpec:
	spec = kernels.by_name(name)
	assert spec is not None
	return spec

KERNEL = kernel('6.1')
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

@functools.lru_cache(maxsize=None)
def _fixtures_dir() -> str:
	"""Where the fixtures below are made: once per process, removed when
	it exits."""
	path = tempfile.mkdtemp(prefix='pan-kunit-test-')
	atexit.register(shutil.rmtree, path, True)
	return path

@functools.lru_cache(maxsize=None)
def tarball() -> str:
	"""The fake source, with the fake kunit_tool, packed as Debian packs
	its tarball (xz's fastest preset: the default's encoder takes 60-70
	ms of CPU to set up its 94 MB, for 100 kB of text, before selftest
	starts its workers)."""
	path = os.path.join(_fixtures_dir(), 'linux-source-6.1.tar.xz')
	with lzma.open(path, 'wb', preset=0) as xz, tarfile.open(fileobj=xz, mode='w') as tar:
		top = 'linux-source-6.1'
		tar.add(test_data_path('fake_source', top), arcname=top)
		tar.add(test_data_path('fake_source', 'debian.gitignore'), arcname=top + '/.gitignore')
		tar.add(test_data_path('fake_kunit'), arcname=top + '/tools/testing/kunit',
			filter=_no_pycache)
		for name in ('kunit_parser.py', 'kunit_printer.py'):
			tar.add(test_data_path('kunit_tool', '6.1', name),
				arcname=f'{top}/tools/testing/kunit/{name}')
	return path

@functools.lru_cache(maxsize=None)
def prepared_tree() -> str:
	"""The tree setup makes of the tarball and test_data/fake_repo:
	FakeKunitTestCase copies it (.git and all) for each test."""
	path = os.path.join(_fixtures_dir(), 'prepared', 'linux-source-6.1')
	os.mkdir(os.path.dirname(path))
	tree.setup(Printer(io.StringIO()), path, KERNEL,
		   sources.load(test_data_path('fake_repo'), KERNEL), tarball(), VERSION)
	# One pack, not a directory per object: a copy makes 24 directories, not 63.
	tree.git(path, 'repack', '-a', '-d', '-q')
	tree.git(path, 'prune-packed')
	return path

@functools.lru_cache(maxsize=None)
def fake_kunit_python() -> str:
	"""What FakeKunitTestCase gives pan-kunit as sys.executable, to run
	the fake kunit.py with: Python without site-packages, which the fake
	does not need, and whose .pth files can cost more than all that the
	fake does."""
	path = os.path.join(_fixtures_dir(), 'python3-S')
	write(path, f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -S "$@"\n')
	os.chmod(path, 0o755)
	return path

@functools.lru_cache(maxsize=None)
def fake_qemu() -> str:
	"""What FakeKunitTestCase gives the commands to ask the version of the
	QEMU that booted (sharding.about(), for --json): the fake kunit.py
	boots none, and the machine's qemu-system-aarch64 takes 30-80 ms of
	CPU to say its version, in every command of a test that writes JSON."""
	path = os.path.join(_fixtures_dir(), 'qemu-system-aarch64')
	write(path, '#!/bin/sh\necho "QEMU emulator version 10.0.2 (the tests\' stand-in)"\n')
	os.chmod(path, 0o755)
	return path

def make_fixtures() -> None:
	"""Makes the fixtures above: `selftest` calls it once before it copies
	its process into the workers that run the test files
	(selftest.FIXTURES), so that the files share them instead of making
	them each."""
	prepared_tree()
	fake_kunit_python()
	fake_qemu()

# The caller's settings of pan-kunit (CI sets PAN_KUNIT_CACHE, and a
# GitLab job with `parallel: N` CI_NODE_INDEX, which would shard every
# command the tests run) and of its terminal (COLUMNS, which the reports
# keep to): the tests run without them, and each sets what it tests.
CALLER_SETTINGS = ('PAN_KUNIT_TREE', 'PAN_KUNIT_CACHE', 'PAN_KUNIT_TARBALL_DIR',
		   'PAN_KUNIT_OLDDEFCONFIG', 'COLUMNS', 'LINES') + shard.VARIABLES
caller_settings: Dict[str, str] = {}

T = TypeVar('T', bound=Callable[..., Any])  # a test or a class of them

def end_to_end(test: T) -> T:
	"""Marks a test, or a class of them, as of the end-to-end layer:
	skipped by `selftest --quick`."""
	return unittest.skipIf(selftest.layer_skipped(selftest.Layer.END_TO_END),
			       'end to end: selftest --quick runs the unit layer only')(test)

def slow(test: T) -> T:
	"""Marks a test, or a class of them, as of the slow layer: skipped by
	`selftest` and `selftest --quick`, run by `selftest --all` (and CI)."""
	return unittest.skipIf(selftest.layer_skipped(selftest.Layer.SLOW),
			       'slow: selftest --all runs it')(test)

def setUpModule() -> None:
	"""Takes the caller's settings out of the environment."""
	for name in CALLER_SETTINGS:
		if name in os.environ:
			caller_settings[name] = os.environ.pop(name)

def tearDownModule() -> None:
	os.environ.update(caller_settings)
	caller_settings.clear()

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

# The toolchains the tests' builds probe: once for every command of the
# process, where each command of pan-kunit probes its own.
TOOLCHAINS = toolchains.Toolchains()

def build_settings() -> toolchains.BuildSettings:
	"""What the builds of a command share, as a session has it."""
	return toolchains.BuildSettings(toolchains=TOOLCHAINS)

def plain_printer() -> Printer:
	"""A Printer on the sys.stdout and sys.stderr of the moment (those of
	a test's contextlib.redirect_stdout()), as cli.main() makes one."""
	return Printer(sys.stdout, sys.stderr)

def plain_progress() -> Progress:
	"""A Progress on plain_printer()."""
	return Progress(plain_printer())

def matrix_plan(tree: str, matrix: List[configs.QemuConfig], timeout: int=60,
		make_jobs: int=2, **fields: Any) -> plan.MatrixPlan:
	"""A run of @matrix in @tree with the kunit_tool /kunit and the
	kunitconfig /kc, its files in the tree's .pan-kunit."""
	return plan.MatrixPlan(tree, '/kunit', matrix, timeout, make_jobs, '/kc',
			       plan.Outputs(os.path.join(tree, '.pan-kunit')), **fields)

def qemu_config(directory: str='/r', name: str='c') -> configs.QemuConfig:
	"""A QEMU config @name of @directory, with no kconfig of its own,
	that boots the Image on QEMU's max CPU."""
	return configs.QemuConfig(name=name, path=os.path.join(directory, name + '.py'), kconfig='',
				  kernel_path='Image', cpu='max')

class FakeJobs:
	"""jobs.run_jobs(), faked (patch()): every job ends at once, with
	@returncode and @log written to its log, is kept in @started, and is
	given to run_jobs' @ended, as the real one gives it."""

	def __init__(self, returncode: int=0, log: str='') -> None:
		self.returncode = returncode
		self.log = log
		self.started: List[jobs.Job] = []

	def __call__(self, progress: Progress, job_list: List[jobs.Job], watchdog: Optional[float],
		     ended: Optional[Callable[[jobs.Job], None]]=None) -> None:
		for job in job_list:
			job.outcome = Exit(self.returncode, False, 1.0)
			if self.log:
				write(job.log, self.log)
			self.started.append(job)
			if ended:
				ended(job)

	def patch(self) -> Any:
		return mock.patch.object(jobs, 'run_jobs', side_effect=self)

def mtimes(directory: str) -> Dict[str, int]:
	found = {}
	for root, dirs, files in os.walk(directory):
		dirs[:] = [d for d in dirs if d != '.git']
		for name in files:
			path = os.path.join(root, name)
			found[path] = os.lstat(path).st_mtime_ns
	return found

def ended_pid() -> int:
	"""The pid of a process that has ended and been reaped."""
	child = subprocess.Popen(['true'])
	child.wait()
	return child.pid

def process_running(pid: int) -> bool:
	"""False once pid has exited, even if nobody has reaped it yet."""
	try:
		with open(f'/proc/{pid}/stat') as f:
			state = f.read().rsplit(')', 1)[1].split()[0]
	except FileNotFoundError:
		return False
	return state != 'Z'

# An upstream-like .gitignore: Debian's ignores every top-level entry, so
# that no file of a tree of it is ever untracked.
UPSTREAM_GITIGNORE = '.*\n!.gitignore\n*.o\n'

def user_git(user: str, *args: str) -> str:
	"""git in the user's tree @user, as they would run it."""
	return subprocess.run(['git', '-C', user] + list(args), check=True, text=True,
			      stdout=subprocess.PIPE, env=dict(os.environ, **USER_GIT_ENV)
			      ).stdout.strip()

def edit_file(path: str, old: str, new: str) -> None:
	"""Replaces the first @old in @path (which must hold it) by @new."""
	text = read(path)
	if old not in text:
		raise AssertionError(f'{old!r} not in {path}')
	write(path, text.replace(old, new, 1))

def make_user_tree(tarball: str, user: str, makefile_patchlevel: str='1') -> None:
	"""A kernel tree of the user's own at @user (--tree): @tarball's source
	committed as their base, a branch "topic" with a commit of theirs, an
	upstream-like .gitignore."""
	with tarfile.open(tarball) as tar:
		tar.extractall(os.path.dirname(user))
	os.rename(os.path.join(os.path.dirname(user), 'linux-source-6.1'), user)
	write(os.path.join(user, '.gitignore'), UPSTREAM_GITIGNORE)
	makefile = os.path.join(user, 'Makefile')
	write(makefile, read(makefile).replace('PATCHLEVEL = 1', f'PATCHLEVEL = {makefile_patchlevel}'))
	user_git(user, 'init', '-q', '-b', 'master')
	user_git(user, 'add', '-A')
	user_git(user, 'commit', '-q', '-m', 'my base: Debian linux-source-6.1')
	user_git(user, 'checkout', '-q', '-b', 'topic')
	edit_file(os.path.join(user, 'arch/arm64/kernel/cpufeature.c'), ' * A stand-in',
		  ' * My stand-in')
	user_git(user, 'commit', '-q', '-am', 'arm64: cpufeature: my commit')

def snapshot(user: str) -> Dict[str, str]:
	"""Everything of the user's tree @user a tool must not change: every
	file and directory, .git's included, with its mode, mtime and bytes.
	An object file's mtime is left out: git refreshes it when a repository
	that borrows the objects (the clone's alternates) writes one it
	already holds."""
	found = {}
	for root, dirs, files in os.walk(user):
		for name in dirs + files:
			path = os.path.join(root, name)
			relative = os.path.relpath(path, user)
			info = os.lstat(path)
			digest = ''
			if os.path.isfile(path) and not os.path.islink(path):
				with open(path, 'rb') as f:
					digest = hashlib.sha256(f.read()).hexdigest()
			freshened = relative.startswith('.git/objects/') and digest
			found[relative] = (f'{info.st_mode} ' + ('' if freshened else f'{info.st_mtime_ns} ') +
					   digest)
	return found

class TempDirTestCase(unittest.TestCase):
	"""A fresh copy of test_data/fake_repo, a tree path beside it, and the
	fake tarball (self.tarball)."""

	def setUp(self) -> None:
		self.tmp = tempfile.mkdtemp(prefix='pan-kunit-test-')
		self.addCleanup(shutil.rmtree, self.tmp)
		self.repo = os.path.join(self.tmp, 'repo')
		shutil.copytree(test_data_path('fake_repo'), self.repo)
		self._tarball = ''
		self.tree = os.path.join(self.tmp, 'cache', 'linux-source-6.1')
		os.mkdir(os.path.dirname(self.tree))  # as a --tree's directory must exist

	@property
	def tarball(self) -> str:
		"""A copy of the fake tarball in self.tmp, made the first time a
		test asks for it: most tests never do."""
		if not self._tarball:
			self._tarball = os.path.join(self.tmp, 'linux-source-6.1.tar.xz')
			shutil.copyfile(tarball(), self._tarball)
		return self._tarball

	def copy_prepared_tree(self) -> None:
		"""What self.setup_tree() makes of fake_repo, copied from the tree
		setUpModule() made: for the tests of what comes after a setup."""
		shutil.copytree(prepared_tree(), self.tree, symlinks=True)

	def setup_tree(self, version: str=VERSION) -> str:
		"""Runs tree.setup() and returns what it printed."""
		out = io.StringIO()
		tree.setup(Printer(out, sys.stderr), self.tree, KERNEL, sources.load(self.repo, KERNEL),
			   self.tarball, version)
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

class TtyStringIO(io.StringIO):
	"""A terminal, as far as the Printer can tell."""

	def isatty(self) -> bool:
		return True


def without_status(text: str) -> str:
	"""What a terminal shows once the status lines are cleared: each is
	drawn at the start of a line and cleared before the next write."""
	return re.sub(r'(?m)^(?:[^\n\r]*\r\x1b\[K)+', '', text)

F = TypeVar('F', bound=Callable[..., None])

def from_scratch(test: F) -> F:
	"""A FakeKunitTestCase test that starts with no tree, as a first run
	does, instead of a copy of the prepared tree."""
	setattr(test, 'from_scratch', True)
	return test

@end_to_end
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
		# What packages.ensure() and require() were asked.
		self.ensure, self.require = mock.MagicMock(), mock.MagicMock()
		# The trees a command looks at beside its own (the default trees
		# of the other kernels, for the first run's estimate) are the
		# test's: never the developer's ~/.cache/pan-kunit.
		patchers: List[Any] = [
			mock.patch.dict(os.environ, {'PAN_KUNIT_TARBALL_DIR': os.path.dirname(self.tarball),
						     'PAN_KUNIT_CACHE': os.path.join(self.tmp, 'cache'),
						     'FAKE_KUNIT_DATA': TEST_DATA,
						     'FAKE_KUNIT_TRACE': self.trace}),
			mock.patch.object(packages, 'ensure', self.ensure),
			mock.patch.object(packages, 'require', self.require),
			mock.patch.object(packages, 'version', return_value=VERSION),
			mock.patch.object(sys, 'executable', fake_kunit_python()),
			mock.patch.object(sharding, 'QEMU', fake_qemu())]
		for patcher in patchers:
			patcher.start()
			self.addCleanup(patcher.stop)

	def cli_main(self, *argv: str) -> Tuple[int, str]:
		"""cli.main(@argv) on the test's repo: its exit status, and all
		it printed."""
		out = io.StringIO()
		with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
			status = cli.main(list(argv), repo=self.repo, probed=TOOLCHAINS)
		return status, out.getvalue()

	def traced(self, kind: str) -> List[List[str]]:
		return [shlex.split(line) for line in read(self.trace).splitlines()
			if line.startswith(kind + ' ')]

@slow
class CheckTestCase(FakeKunitTestCase):
	"""tools/pan-kunit bisect, mutants and export, end to end, with the
	fake kunit_tool, on the configs pass_pan and skip_nopan: of the slow
	layer, as each runs a build and boots per step."""

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

def mailinfo(path: str) -> Dict[str, str]:
	"""The headers of a patch mail, as git mailinfo decodes them."""
	with open(path, 'rb') as mail:
		result = subprocess.run(['git', 'mailinfo', os.devnull, os.devnull], stdin=mail,
					stdout=subprocess.PIPE, check=True)
	return dict(line.split(': ', 1) for line in result.stdout.decode().splitlines()
		    if ': ' in line)

def synthetic_config(status: Status, leaves: Dict[str, str]) -> config_result.ConfigResult:
	"""A config "c" of @status whose suite arm64_s has the cases @leaves."""
	kunit = {'name': 'KUnit Test Group', 'sub_groups': [
		{'name': 'arm64_s', 'sub_groups': [], 'test_cases': [
			{'name': case, 'status': leaf} for case, leaf in leaves.items()]}],
		 'test_cases': []}
	return config_result.ConfigResult(name='c', cpu='max', qemu_config='c.py', build_dir='b',
				    status=status, elapsed=1.0, skip_reasons={}, kunit=kunit,
				    console_log='', exec_log='')

def fake_steps(*statuses: Status) -> Any:
	"""Checker.run_step as a stand-in giving step N one config of
	@statuses[N] (with one passing case if PASS)."""
	def run_step(checker: steps.Checker, wt: str, step: steps.Step, logs: str,
		     configs: Any=None, fresh: bool=True) -> None:
		status = statuses[step.number]
		step.configs = [synthetic_config(status, {'a': 'PASS'} if status ==
						 Status.PASS else {})]
	return mock.patch.object(steps.Checker, 'run_step', run_step)


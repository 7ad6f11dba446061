#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the builds of pan_kunit.matrix.builds and kunit_build: ccache,
# the olddefconfig kunit_build.py leaves out, kunit_kernel.py of each
# kernel, the lock of a build directory.

import builtins
import contextlib
import fcntl
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import types
import unittest
from typing import Any, Dict, List, Optional, Tuple
from unittest import mock

from pan_kunit.commands import cli
from pan_kunit.host import lockfile, proc
from pan_kunit.kunit_tool import configs, kunit_build, kunit_py, modules, toolchains
from pan_kunit.matrix import builds, plan
from pan_kunit.trees import kernels, tree
from testlib import (VERSION, FakeJobs, kunit_tool_of, qemu_config, read, write, end_to_end,
		     setUpModule, tearDownModule, plain_printer, plain_progress, build_settings,
		     TOOLCHAINS, matrix_plan)

class CcacheTest(unittest.TestCase):

	def test_builds_go_through_ccache_with_the_tree_as_base_dir(self) -> None:
		fake = FakeJobs()
		with tempfile.TemporaryDirectory() as tmp, \
		     mock.patch.object(builds, 'ccache', return_value='/usr/bin/ccache'), fake.patch():
			with contextlib.redirect_stdout(io.StringIO()):
				builds.build_all(matrix_plan(tmp, [qemu_config(tmp)], quiet=True),
						 plain_progress(), build_settings(),
						 [plan.Build('k', [qemu_config(tmp)], '/kc')])
			(job,) = fake.started
			self.assertIn('--make_options', job.cmd)
			self.assertEqual(job.cmd[job.cmd.index('--make_options') + 1],
					 'CC=ccache aarch64-linux-gnu-gcc')
			# A first build of its directory keeps kunit.py's olddefconfig.
			self.assertEqual(job.env, {'CCACHE_BASEDIR': os.path.realpath(tmp),
						   'PAN_KUNIT_OLDDEFCONFIG': '1'})

	def test_the_users_compiler_wins(self) -> None:
		env = {'CCACHE_BASEDIR': os.path.realpath('/t')}
		with mock.patch.object(builds, 'ccache', return_value='/usr/bin/ccache'):
			self.assertEqual(builds.ccache_options('/t', ['W=1']),
					 (['--make_options', 'CC=ccache aarch64-linux-gnu-gcc'], env))
			self.assertEqual(builds.ccache_options('/t', ['W=1', 'LLVM=1']),
					 (['--make_options', 'CC=ccache clang'], env))
			for options in (['CC=clang'], ['LLVM=-14'], ['LLVM=/usr/lib/llvm-14/bin/']):
				self.assertEqual(builds.ccache_options('/t', options), ([], {}), options)

	def test_make_options_have_a_build_directory_of_their_own(self) -> None:
		config = configs.QemuConfig(name='c', path='/c.py', kconfig='CONFIG_X=y',
					    kernel_path='Image', cpu='max')
		def key(*make_options: str) -> str:
			(build,) = plan.kconfig_builds('/t', [config], '/kc', make_options=make_options)
			return build.key
		self.assertEqual(key(), config.build_key())  # as before, without any
		self.assertEqual(key('W=1'), key('W=1'))
		self.assertEqual(len({key(), key('W=1'), key('LLVM=1'), key('W=1', 'LLVM=1')}), 4)

	def test_without_ccache_builds_plainly(self) -> None:
		with mock.patch.object(builds, 'ccache', return_value=None):
			self.assertEqual(builds.ccache_options('/t'), ([], {}))

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
		os.environ.pop(toolchains.OLDDEFCONFIG_ENV, None)

	def tool(self, name: str, version: str) -> None:
		path = os.path.join(self.bin, name)
		write(path, f'#!/bin/sh\necho "{version}"\necho "more lines"\n')
		os.chmod(path, 0o755)

	def build(self, *argv: str) -> Tuple[Dict[str, str], str]:
		"""A build_all of one build, in a cli.main() of a command with
		@argv: its job's environment and what it printed."""
		fake = FakeJobs()
		out = io.StringIO()
		keep = cli.parse_args(['run'] + list(argv)).olddefconfig
		with mock.patch.object(builds, 'ccache', return_value=None), fake.patch(), \
		     contextlib.redirect_stdout(out):
			builds.build_all(matrix_plan(self.tmp, [qemu_config(self.tmp)], quiet=True),
					 plain_progress(), toolchains.BuildSettings(keep, toolchains=TOOLCHAINS),
					 [plan.Build('k', [qemu_config(self.tmp)], '/kc')])
		return fake.started[-1].env, out.getvalue()

	def test_left_out_while_the_toolchain_is_unchanged_and_said_once(self) -> None:
		announced = ("note: builds leave out kunit.py's make olddefconfig while the toolchain\n"
			     "      is unchanged (--olddefconfig or PAN_KUNIT_OLDDEFCONFIG=1 keep it)\n")
		self.assertLessEqual(max(map(len, announced.splitlines())), 80)
		# The first build of a directory: no toolchain noted, kunit.py's way.
		self.assertEqual(self.build(), ({'PAN_KUNIT_OLDDEFCONFIG': '1'}, announced))
		noted = read(os.path.join(self.tmp, '.pan-kunit', 'build', 'k', '.pan-kunit-toolchain'))
		self.assertEqual(noted, 'aarch64-linux-gnu-gcc: aarch64-linux-gnu-gcc 1.0\n'
				 'aarch64-linux-gnu-as: aarch64-linux-gnu-as 1.0\n'
				 'aarch64-linux-gnu-ld: aarch64-linux-gnu-ld 1.0\n'
				 'pahole: pahole 1.0\n')
		self.assertEqual(self.build(), ({}, announced))
		settings = build_settings()  # one command's
		with contextlib.redirect_stdout(io.StringIO()) as out:
			build_dir = os.path.join(self.tmp, '.pan-kunit', 'build', 'k')
			self.assertEqual(settings.build_env(plain_printer(), build_dir, noted), {})
			self.assertEqual(settings.build_env(plain_printer(), build_dir, noted), {})
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
		self.assertEqual(kunit_build.OLDDEFCONFIG_ENV, toolchains.OLDDEFCONFIG_ENV)

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

	def test_probed_once_while_the_tools_stay_the_same(self) -> None:
		# Across commands too, which share one: the tests run hundreds in
		# one process.
		probed = toolchains.Toolchains()
		with mock.patch.object(proc, 'run', wraps=proc.run) as run:
			first = probed.probe('aarch64-linux-gnu-', [])
			self.assertEqual(toolchains.BuildSettings(toolchains=probed).toolchains.probe(
				'aarch64-linux-gnu-', []), first)
			self.assertEqual(run.call_count, 4)
			time.sleep(0.01)  # a modification time of its own
			self.tool('pahole', 'pahole 1.1')
			self.assertIn('pahole: pahole 1.1\n', probed.probe('aarch64-linux-gnu-', []))
			self.assertEqual(run.call_count, 8)

	def test_a_failed_build_notes_nothing(self) -> None:
		with mock.patch.object(builds, 'ccache', return_value=None), \
		     FakeJobs(2, 'make: *** [all] Error 2\n').patch(), \
		     contextlib.redirect_stdout(io.StringIO()):
			builds.build_all(matrix_plan(self.tmp, [qemu_config(self.tmp)]), plain_progress(),
					 build_settings(), [plan.Build('k', [qemu_config(self.tmp)], '/kc')])
		self.assertFalse(os.path.exists(os.path.join(self.tmp, '.pan-kunit', 'build', 'k',
							     '.pan-kunit-toolchain')))

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
		and qemu_config, as pan-kunit imports a tree's modules: without a
		__pycache__ written into test_data."""
		return modules.load(kunit_tool_of(kernel), 'kunit_kernel',
				       ['kunit_config', 'qemu_config'])

	def test_kunit_py_runs_as_python_runs_a_script(self) -> None:
		# What kunit.py may rely on: its own __main__ module, found in
		# sys.modules as dataclasses look a class's module up, __file__
		# (kunit.py finds the tree from it), and its arguments.
		with tempfile.TemporaryDirectory() as tmp:
			script = os.path.join(tmp, 'kunit.py')
			write(script, textwrap.dedent('''\
				import dataclasses, sys
				@dataclasses.dataclass
				class Request:
					jobs: int
				RAN.update(name=__name__, file=__file__, argv=list(sys.argv),
					   own=sys.modules['__main__'].__dict__ is globals(),
					   request=Request(2).jobs, spec=__spec__)
				'''))
			ran: Dict[str, Any] = {}
			main = sys.modules['__main__']
			with mock.patch.object(sys, 'argv', [script, 'build']), \
			     mock.patch.object(builtins, 'RAN', ran, create=True):
				kunit_build.run_as_main(script)
			self.assertIs(sys.modules['__main__'], main)
		self.assertEqual(ran, {'name': '__main__', 'file': script, 'argv': [script, 'build'],
				       'own': True, 'request': 2, 'spec': None})

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

	@end_to_end
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
				subprocess.run([sys.executable, kunit_py.BUILD, os.path.join(tmp, 'kunit.py'),
						'build', out], check=True)
				self.assertEqual(json.loads(read(out)), ['build', 'make'])
				# Switched off: kunit.py as it is.
				subprocess.run([sys.executable, kunit_py.BUILD, os.path.join(tmp, 'kunit.py'),
						'build', out], check=True,
					       env=dict(os.environ, PAN_KUNIT_OLDDEFCONFIG='1'))
				self.assertEqual(json.loads(read(out)), ['build', 'olddefconfig', 'make'])

	def test_builds_run_through_kunit_build(self) -> None:
		config = configs.QemuConfig(name='c', path='/c.py', kconfig='', kernel_path='Image',
					    cpu='max')
		cmd = kunit_py.kunit_cmd('/kunit', 'build', '/b', '/kc', config.path)
		self.assertEqual(cmd[:4], [sys.executable, kunit_py.BUILD, '/kunit/kunit.py', 'build'])
		self.assertEqual(os.path.basename(kunit_py.BUILD), 'kunit_build.py')
		self.assertTrue(os.path.isfile(kunit_py.BUILD))
		cmd = kunit_py.kunit_cmd('/kunit', 'exec', '/b', '/kc', config.path)
		self.assertEqual(cmd[:3], [sys.executable, '/kunit/kunit.py', 'exec'])

	def test_no_module_hides_one_of_the_standard_library(self) -> None:
		# kunit_build.py starts with pan_kunit/ first on the path.
		names = {os.path.splitext(n)[0] for n in os.listdir(os.path.dirname(kunit_py.BUILD))}
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
				if text.startswith(f'waiting for pan-kunit pid {os.getpid()} ('):
					waiting.set()
				return super().write(text)
		fake = FakeJobs()
		started = fake.started
		with tempfile.TemporaryDirectory() as tmp, \
		     mock.patch.object(builds, 'ccache', return_value=None), fake.patch(), \
		     contextlib.redirect_stdout(Out()):
			build = plan.Build('k', [qemu_config(tmp)], '/kc')
			os.makedirs(build.build_dir(tmp))
			with open(build.build_dir(tmp) + '.lock', 'w') as other:  # another pan-kunit
				fcntl.flock(other, fcntl.LOCK_EX)
				other.write(lockfile.Holder.me().text())
				other.flush()
				thread = threading.Thread(target=builds.build_all,
							  args=(matrix_plan(tmp, [qemu_config(tmp)]),
								plain_progress(), build_settings(),
								[build]), daemon=True)
				thread.start()
				self.assertTrue(waiting.wait(10), 'build_all did not wait for the lock')
				self.assertEqual(started, [])
			thread.join(10)
			self.assertFalse(thread.is_alive())
			self.assertEqual(len(started), 1)


if __name__ == '__main__':
	unittest.main()

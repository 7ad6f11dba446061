#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of tools/pan-kunit selftest (pan_kunit.commands.selftest).

import contextlib
import io
import os
import shutil
import sys
import tempfile
import time
import unittest
from typing import List, Optional, Tuple
from unittest import mock

from pan_kunit.commands import cli, selftest, selftest_times
import testlib
from testlib import write, end_to_end, setUpModule, tearDownModule, plain_printer

@end_to_end
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
					self.assertEqual(selftest.selftest(plain_printer(), typecheck=False),
							 0 if ok else 1)
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
				self.assertEqual(selftest.selftest(plain_printer(), typecheck=False), 0)
				self.assertEqual(os.environ['GIT_DIR'], hook['GIT_DIR'])  # given back

	def test_a_file_that_kills_its_worker_fails_alone(self) -> None:
		# The others still run, in another worker; and one worker runs
		# a file after another (the biggest first), each with the
		# environment, working directory and sys.path it had before.
		files = {'dirty_test.py': 'import os, sys, unittest\n'
					  'class T(unittest.TestCase):\n'
					  '\tdef test(self):\n'
					  '\t\tos.environ["SELFTEST_LEFTOVER"] = "1"\n'
					  '\t\tos.chdir("/")\n'
					  '\t\tsys.path.insert(0, "/leftover")\n',
			 'clean_test.py': 'import os, sys, unittest\n'
					  'class T(unittest.TestCase):\n'
					  '\tdef test(self):\n'
					  '\t\tself.assertNotIn("SELFTEST_LEFTOVER", os.environ)\n'
					  '\t\tself.assertNotEqual(os.getcwd(), "/")\n'
					  '\t\tself.assertNotIn("/leftover", sys.path)\n',
			 'broken_test.py': 'import unittest\nclass T(unittest.TestCase:\n',
			 'dies_test.py': 'import os\nos._exit(3)\n',
			 'lives_test.py': 'import unittest\n'
					  'class T(unittest.TestCase):\n'
					  '\tdef test(self):\n\t\tpass\n'}
		with tempfile.TemporaryDirectory() as tmp:
			for order, (name, text) in enumerate(files.items()):
				write(os.path.join(tmp, name), text + '#' * (1000 - 100 * order) + '\n')
			out, err = io.StringIO(), io.StringIO()
			with mock.patch.object(selftest, 'TOOLS_DIR', tmp), \
			     mock.patch.object(selftest, '_jobs', return_value=1), \
			     contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
				self.assertEqual(selftest.selftest(plain_printer(), typecheck=False), 1)
		self.assertTrue(out.getvalue().endswith('selftest: 3 passed, 2 failed\n'), out.getvalue())
		self.assertIn(', 5 files, 1 at a time\n', out.getvalue())
		self.assertIn('dies_test.py: exited 3 without its result\n', err.getvalue())
		self.assertIn('SyntaxError', err.getvalue())
		self.assertRegex(err.getvalue(), r'(?m)^lives_test.py: [0-9.]+ s, 1 tests$')
		self.assertRegex(err.getvalue(), r'(?m)^clean_test.py: [0-9.]+ s, 1 tests$')

	def test_a_file_no_worker_ran_fails(self) -> None:
		# Workers that die before any file: each file fails, with why,
		# and selftest ends (a bounded number of workers replaced).
		def dies(*args: object) -> int:
			raise RuntimeError('the worker broke')
		with tempfile.TemporaryDirectory() as tmp:
			for name in ('a_test.py', 'b_test.py'):
				write(os.path.join(tmp, name), 'import unittest\n'
				      'class T(unittest.TestCase):\n'
				      '\tdef test(self):\n\t\tpass\n')
			out, err = io.StringIO(), io.StringIO()
			with mock.patch.object(selftest, 'TOOLS_DIR', tmp), \
			     mock.patch.object(selftest, '_worker', dies), \
			     contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
				self.assertEqual(selftest.selftest(plain_printer(), typecheck=False), 1)
		self.assertTrue(out.getvalue().endswith('selftest: 0 passed, 2 failed\n'), out.getvalue())
		self.assertIn('a_test.py: not run: its worker died\n', err.getvalue())
		self.assertIn('b_test.py: not run: its worker died\n', err.getvalue())
		self.assertIn('RuntimeError: the worker broke', err.getvalue())

	def test_each_layer_runs_with_those_before_it(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			write(os.path.join(tmp, 'layers_test.py'),
			      'import unittest\n'
			      'from testlib import end_to_end, slow\n'
			      'class T(unittest.TestCase):\n'
			      '\tdef test_unit(self):\n\t\tpass\n'
			      '\t@end_to_end\n'
			      '\tdef test_whole(self):\n\t\tself.fail()\n'
			      '@slow\n'
			      'class S(unittest.TestCase):\n'
			      '\tdef test_slow(self):\n\t\tself.fail()\n')
			cases: List[Tuple[List[str], int, str, int, str]] = [
				(['--quick'], 0, 'selftest: 1 passed, 0 failed\n', 2,
				 'at a time\nran the unit layer (--all: every layer)\n'),
				([], 1, 'selftest: 1 passed, 1 failed\n', 1,
				 'at a time\nran the unit and end-to-end layers (--all: the slow one too)\n'),
				(['--all'], 1, 'selftest: 1 passed, 2 failed\n', 0, 'at a time\nran every layer\n')]
			for argv, status, tally, skipped, layers in cases:
				out = io.StringIO()
				with mock.patch.object(selftest, 'TOOLS_DIR', tmp), \
				     contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(out):
					layer = cli.parse_args(['selftest'] + argv).layer
					self.assertEqual(selftest.selftest(plain_printer(), layer=layer,
									   typecheck=False), status)
				self.assertTrue(out.getvalue().endswith(tally), out.getvalue())
				self.assertEqual(f'({skipped} skipped)' in out.getvalue(), skipped > 0,
						 out.getvalue())
				self.assertIn(layers, out.getvalue())
		# Without selftest (python3 -m unittest), every layer runs.
		with mock.patch.dict(os.environ):
			os.environ.pop(selftest.LAYER_ENV, None)
			self.assertFalse(any(selftest.layer_skipped(layer) for layer in selftest.Layer))
		with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
			cli.parse_args(['selftest', '--quick', '--all'])

	def test_the_end_to_end_files_share_the_fixtures_made_before_them(self) -> None:
		# testlib.make_fixtures() is called in selftest's process, before
		# the copies: a file finds it called, as it is imported.
		with tempfile.TemporaryDirectory() as tmp:
			os.symlink(os.path.join(selftest.TOOLS_DIR, 'testlib.py'),
				   os.path.join(tmp, 'testlib.py'))
			write(os.path.join(tmp, 'shared_test.py'),
			      'import unittest\n'
			      'import testlib\n'
			      'MADE = testlib.make_fixtures.call_count\n'
			      'class T(unittest.TestCase):\n'
			      '\tdef test(self):\n\t\tself.assertEqual(MADE, 1)\n')
			for layer, status in ((selftest.Layer.END_TO_END, 0), (selftest.Layer.UNIT, 1)):
				with mock.patch.object(selftest, 'TOOLS_DIR', tmp), \
				     mock.patch.object(testlib, 'make_fixtures') as make, \
				     contextlib.redirect_stderr(io.StringIO()), \
				     contextlib.redirect_stdout(io.StringIO()):
					self.assertEqual(selftest.selftest(plain_printer(), layer=layer,
									   typecheck=False), status, layer)
				self.assertEqual(make.call_count, int(layer != selftest.Layer.UNIT))

	def test_the_type_check_is_stopped_when_the_fixtures_cannot_be_made(self) -> None:
		# The type check starts before the fixtures, beside them: when they
		# fail, selftest stops it (and what it started) before it raises.
		with tempfile.TemporaryDirectory() as tmp:
			os.symlink(os.path.join(selftest.TOOLS_DIR, 'testlib.py'),
				   os.path.join(tmp, 'testlib.py'))
			write(os.path.join(tmp, 'one_test.py'), 'import unittest\n')
			pid_file = os.path.join(tmp, 'mypy.pid')
			mypy = [sys.executable, '-c', 'import os, time\n'
				f'open({pid_file!r}, "w").write(str(os.getpid()))\n'
				'time.sleep(60)\n']

			def broken() -> None:
				for _ in range(200):  # till the type check has started
					if os.path.exists(pid_file):
						break
					time.sleep(0.05)
				raise RuntimeError('no fixtures')

			began = time.monotonic()
			with mock.patch.object(selftest, 'TOOLS_DIR', tmp), \
			     mock.patch.object(selftest, 'MYPY', mypy), \
			     mock.patch.object(testlib, 'make_fixtures', side_effect=broken), \
			     contextlib.redirect_stderr(io.StringIO()), \
			     contextlib.redirect_stdout(io.StringIO()), \
			     self.assertRaisesRegex(RuntimeError, 'no fixtures'):
				selftest.selftest(plain_printer())
			self.assertLess(time.monotonic() - began, 30)
			pid = int(testlib.read(pid_file))
			for _ in range(100):  # its copy's guard stops it once the copy is gone
				if not testlib.process_running(pid):
					break
				time.sleep(0.05)
			self.assertFalse(testlib.process_running(pid))

	def test_type_check_beside_the_tests(self) -> None:
		# mypy's errors fail selftest, one failure each, and are printed;
		# a clean check counts once; a missing mypy is one failure that
		# names its package.
		errors = ('a.py:1: error: Name "x" is not defined  [name-defined]\n'
			  'b.py:2: error: Missing return statement  [return]\n'
			  'b.py:2: note: a note is no error\n'
			  'Found 2 errors in 2 files (checked 3 source files)\n')
		fake = [sys.executable, '-c']
		cases: List[Tuple[List[str], int, str, str]] = [
			(fake + [f'print({errors!r}, end=""); raise SystemExit(1)'], 1,
			 'b.py:2: error: Missing return statement', 'mypy took [0-9.]+ s: 2 errors'),
			(fake + ['print("Success: no issues found")'], 0, '', 'mypy took [0-9.]+ s: no errors'),
			(['/nonexistent/mypy'], 1, selftest.NO_MYPY, 'mypy took [0-9.]+ s: 1 error')]
		tallies = ['selftest: 1 passed, 2 failed\n', 'selftest: 2 passed, 0 failed\n',
			   'selftest: 1 passed, 1 failed\n']
		with tempfile.TemporaryDirectory() as tmp:
			write(os.path.join(tmp, 'one_test.py'),
			      'import unittest\n'
			      'class T(unittest.TestCase):\n'
			      '\tdef test(self):\n\t\tpass\n')
			for (mypy, status, printed, line), tally in zip(cases, tallies):
				out, err = io.StringIO(), io.StringIO()
				with mock.patch.object(selftest, 'TOOLS_DIR', tmp), \
				     mock.patch.object(selftest, 'MYPY', mypy), \
				     contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
					self.assertEqual(selftest.selftest(plain_printer()), status)
				self.assertTrue(out.getvalue().endswith(tally), out.getvalue())
				self.assertRegex(out.getvalue(), f'(?m)^{line} \\(tools/mypy.ini\\)$')
				self.assertIn(printed, err.getvalue())

	def test_the_longest_file_of_the_last_run_starts_first(self) -> None:
		# One worker: the files end in the order they start.
		with tempfile.TemporaryDirectory() as tmp:
			for name, size in (('big_test.py', 900), ('small_test.py', 100)):
				write(os.path.join(tmp, name), 'import unittest\n'
				      'class T(unittest.TestCase):\n'
				      '\tdef test(self):\n\t\tpass\n' + '#' * size + '\n')
			ended = []
			for _ in range(2):
				err = io.StringIO()
				with mock.patch.object(selftest, 'TOOLS_DIR', tmp), \
				     mock.patch.object(selftest, '_jobs', return_value=1), \
				     contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
					self.assertEqual(selftest.selftest(plain_printer(), typecheck=False), 0)
				ended.append([line.split(':')[0] for line in err.getvalue().splitlines()
					      if line.endswith(' tests')])
				# What the next run reads: the small file took longer.
				times = testlib.read(os.path.join(tmp, selftest_times.TIMES))
				self.assertIn('"big_test.py"', times)
				selftest_times.record(tmp, selftest.Layer.END_TO_END,
						      {'big_test.py': 0.1, 'small_test.py': 2.0})
		self.assertEqual(ended, [['big_test.py', 'small_test.py'],
					 ['small_test.py', 'big_test.py']])

class OrderTest(unittest.TestCase):
	"""The order in which selftest runs the files (selftest_times)."""

	def setUp(self) -> None:
		self.tmp = tempfile.mkdtemp()
		self.addCleanup(shutil.rmtree, self.tmp)
		self.paths = []
		for name, size in (('a_test.py', 300), ('b_test.py', 200), ('c_test.py', 100),
				   ('d_test.py', 400)):
			self.paths.append(os.path.join(self.tmp, name))
			write(self.paths[-1], '#' * size)

	def order(self, layer: str='unit') -> List[str]:
		return [os.path.basename(p) for p in selftest_times.order(self.tmp, self.paths, layer)]

	def test_the_biggest_first_without_times(self) -> None:
		self.assertEqual(self.order(), ['d_test.py', 'a_test.py', 'b_test.py', 'c_test.py'])
		for broken in ('{', '[1, 2]', '{"unit": 3}', '{"unit": {"c_test.py": "x"}}'):
			write(os.path.join(self.tmp, selftest_times.TIMES), broken)
			self.assertEqual(self.order(), ['d_test.py', 'a_test.py', 'b_test.py', 'c_test.py'],
					 broken)

	def test_the_untimed_then_the_longest_of_the_last_run_of_the_layer(self) -> None:
		selftest_times.record(self.tmp, 'unit', {'c_test.py': 0.5, 'b_test.py': 0.25})
		selftest_times.record(self.tmp, 'end-to-end', {'a_test.py': 9.0, 'b_test.py': 1.0,
							       'c_test.py': 2.0, 'd_test.py': 0.0})
		self.assertEqual(self.order('unit'), ['d_test.py', 'a_test.py', 'c_test.py', 'b_test.py'])
		self.assertEqual(self.order('end-to-end'),
				 ['a_test.py', 'c_test.py', 'b_test.py', 'd_test.py'])
		# A run of a layer replaces its times, and only its own.
		selftest_times.record(self.tmp, 'unit', {'a_test.py': 1.0})
		self.assertEqual(self.order('unit'), ['d_test.py', 'b_test.py', 'c_test.py', 'a_test.py'])
		self.assertEqual(self.order('end-to-end'),
				 ['a_test.py', 'c_test.py', 'b_test.py', 'd_test.py'])
		self.assertEqual(sorted(os.listdir(self.tmp)),
				 [selftest_times.TIMES, 'a_test.py', 'b_test.py', 'c_test.py', 'd_test.py'])

	def test_times_that_cannot_be_written_are_left_out(self) -> None:
		missing = os.path.join(self.tmp, 'missing')
		selftest_times.record(missing, 'unit', {'a_test.py': 1.0})
		self.assertFalse(os.path.exists(missing))
		os.mkdir(os.path.join(self.tmp, selftest_times.TIMES))  # not a file: os.replace fails
		selftest_times.record(self.tmp, 'unit', {'a_test.py': 1.0})
		self.assertEqual(sorted(os.listdir(self.tmp)),
				 [selftest_times.TIMES, 'a_test.py', 'b_test.py', 'c_test.py', 'd_test.py'])
		self.assertEqual(self.order(), ['d_test.py', 'a_test.py', 'b_test.py', 'c_test.py'])

class ScratchDirTest(unittest.TestCase):
	"""Where the test files' temporary directories go."""

	def scratch_dir(self, mounts: str, tmpdir: str='') -> Optional[str]:
		with tempfile.TemporaryDirectory() as tmp:
			write(os.path.join(tmp, 'mounts'), mounts.replace('RAM', tmp))
			with mock.patch.object(selftest, 'MOUNTS', os.path.join(tmp, 'mounts')), \
			     mock.patch.object(selftest, 'RAM_DIR', tmp), \
			     mock.patch.dict(os.environ, {'TMPDIR': tmpdir}):
				found = selftest.scratch_dir()
				return found and found.replace(tmp, 'RAM')

	def test_a_tmpfs_that_runs_programs_unless_the_caller_chose(self) -> None:
		root = '/dev/vda / ext4 rw,relatime 0 0\n'
		self.assertEqual(self.scratch_dir(root + 'tmpfs RAM tmpfs rw,nosuid,nodev 0 0\n'), 'RAM')
		# The last mount of a directory is the one seen there.
		self.assertEqual(self.scratch_dir('tmpfs RAM tmpfs rw,noexec 0 0\n'
						  'tmpfs RAM tmpfs rw 0 0\n'), 'RAM')
		for mounts in (root, root + 'tmpfs RAM tmpfs rw,nosuid,noexec 0 0\n',
			       'tmpfs RAM tmpfs ro 0 0\n', '/dev/vdb RAM ext4 rw 0 0\n'):
			self.assertIsNone(self.scratch_dir(mounts), mounts)
		self.assertIsNone(self.scratch_dir('tmpfs RAM tmpfs rw 0 0\n', tmpdir='/var/tmp'))
		with mock.patch.object(selftest, 'MOUNTS', '/nonexistent/mounts'), \
		     mock.patch.dict(os.environ, {'TMPDIR': ''}):
			self.assertIsNone(selftest.scratch_dir())


if __name__ == '__main__':
	unittest.main()

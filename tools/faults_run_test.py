#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The fault-injection layer (faultlib.py), at the stages of a run: its build,
# its boot, its result files; and of coverage: its boots, and its
# tracefiles and HTML.

import os
import signal
import time
import unittest
from typing import Any, Callable, Dict, List, Sequence
from unittest import mock

from faultlib import FaultTestCase, SIGNALS, kill_self_when
from pan_kunit.commands import coverage, lcov
from pan_kunit.host import files
from pan_kunit.matrix import initramfs
from testlib import read, setUpModule, tearDownModule

class RunFaultTest(FaultTestCase):

	def test_killed_while_it_builds(self) -> None:
		for signum in SIGNALS:
			with self.subTest(signal=signal.Signals(signum).name):
				again = self.check(signum, stall='build')
				os.unlink(os.path.join(self.stall_dir, 'build'))
				if signum == signal.SIGKILL:
					# Its lock names it: cleared, not waited on for ever.
					self.assertRegex(again, r'a stale lock of pan-kunit pid [0-9]+ \(.*\), '
							 'which ended without releasing it: cleared\n')

	def test_killed_while_it_boots(self) -> None:
		for signum in SIGNALS:
			with self.subTest(signal=signal.Signals(signum).name):
				again = self.check(signum, stall='exec')
				os.unlink(os.path.join(self.stall_dir, 'exec'))
				if signum == signal.SIGKILL:
					# The boots hold the build directory's lock too.
					self.assertIn('a stale lock of pan-kunit pid', again)

	def test_killed_while_it_writes_the_result_files(self) -> None:
		real = files.write_with
		for signum, what in ((signal.SIGTERM, '--json'), (signal.SIGHUP, '--junit'),
				     (signal.SIGKILL, '--json'), (signal.SIGKILL, '--junit')):
			def half(path: str, write: Callable[[Any], object], name: str='',
				 signum: int=signum, what: str=what) -> None:
				"""Writes half of @what, then is ended by @signum."""
				def partly(f: Any) -> None:
					if name == what:
						f.write(b'{"half": ')
						f.flush()
						os.kill(os.getpid(), signum)
						time.sleep(1)
					write(f)
				real(path, partly, name)
			# From the second on, the files of the run before it are there:
			# the killed one must not spoil them.
			with self.subTest(signal=signal.Signals(signum).name, file=what):
				self.check(signum, mock.patch.object(files, 'write_with', half))


class CoverageFaultTest(FaultTestCase):
	"""coverage with the fake kunit_tool, whose consoles hold no gcov dump:
	the init, the dump and Debian's lcov are stand-ins that write what
	they would, so that the boots, the tracefiles and the HTML are
	coverage's own, and the report is of has_cpuid_feature() of the fake
	cpufeature.c."""

	def setUp(self) -> None:
		super().setUp()
		def capture(gcda_dir: str, out: str) -> None:
			tree_dir = gcda_dir.split('/.pan-kunit/')[0]
			baseline = os.path.basename(gcda_dir).endswith('.baseline')
			files.write_text(out, f'SF:{tree_dir}/arch/arm64/kernel/cpufeature.c\n' +
					 ''.join(f'DA:{n},{0 if baseline else 1}\n' for n in (11, 13)) +
					 'end_of_record\n')
		def merge(traces: Sequence[str], tree_dir: str, out: str) -> None:
			files.write_text(out, ''.join(read(t) for t in traces))
		def html(tracefile: str, tree_dir: str, out_dir: str, title: str) -> None:
			os.makedirs(out_dir, exist_ok=True)
			files.write_text(os.path.join(out_dir, 'index.html'), f'<title>{title}</title>\n')
		def place_dump(dump: Dict[str, bytes], build_dir: str, out_dir: str) -> List[str]:
			os.makedirs(out_dir, exist_ok=True)
			return []
		patchers: List[Any] = [
			mock.patch.object(initramfs, 'pack', return_value=os.path.join(self.tmp, 'cpio')),
			mock.patch.object(coverage, 'read_dump', return_value={'gcda': b''}),
			mock.patch.object(coverage, 'place_dump', side_effect=place_dump),
			mock.patch.object(lcov, 'capture', side_effect=capture),
			mock.patch.object(lcov, 'merge', side_effect=merge),
			mock.patch.object(lcov, 'html', side_effect=html),
			mock.patch.object(coverage, 'FUNCTIONS', [coverage.Function(
				'has_cpuid_feature', 'arch/arm64/kernel/cpufeature.c', 'matching')])]
		for patcher in patchers:
			patcher.start()
			self.addCleanup(patcher.stop)

	def argv(self) -> List[str]:
		return ['--tree', self.tree, 'coverage', '--config', 'pass_pan']

	def check_next(self, again: str) -> None:
		self.assertIn('pass_pan: ok   9 passed, 0 failed, 0 skipped\n', again)
		self.assertRegex(again, r'\n    has_cpuid_feature +lines 2/2 100%')
		self.assertIn('coverage: 1 passed, 0 failed\n', again)
		work = os.path.join(self.tree, '.pan-kunit', coverage.COVERAGE_DIR)
		self.assertEqual(sorted(n for n in os.listdir(work) if n.endswith('.info')),
				 ['coverage.info', 'pass_pan.baseline.info', 'pass_pan.info'])

	def test_killed_while_it_boots(self) -> None:
		for signum in SIGNALS:
			with self.subTest(signal=signal.Signals(signum).name):
				self.assert_stale_lock_cleared(signum, self.check(signum, stall='exec'))

	def test_killed_while_it_writes_the_tracefiles(self) -> None:
		for signum in SIGNALS:
			with self.subTest(signal=signal.Signals(signum).name):
				self.check(signum, kill_self_when(lcov, 'merge', signum))


if __name__ == '__main__':
	unittest.main()

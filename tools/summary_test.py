#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of PAN_KUNIT_SUMMARY and the closing line of .ci/run (pan_kunit.host.summary).

import contextlib
import io
import os
import shutil
import signal
import subprocess
import time
import unittest
from typing import Tuple
from unittest import mock

from pan_kunit.commands import selftest
from pan_kunit.host import summary
from testlib import (REPO, read, write, TempDirTestCase, end_to_end, process_running,
		     slow, setUpModule, tearDownModule, plain_printer)

# A stand-in for tools/pan-kunit: it says where it runs, then waits, as a
# build does, until a signal ends it.
FAKE_STAGE = """#!/bin/sh
trap 'kill $sleeper; echo TERM > "$MARK"; exit 143' TERM
sleep 60 &
sleeper=$!
echo "$$ $PAN_KUNIT_CACHE" > "$MARK.started"
wait
"""

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

	@end_to_end
	def test_selftest_records_itself_not_the_commands_its_tests_run(self) -> None:
		path = os.path.join(self.tmp, 'summary')
		directory = os.path.join(self.tmp, 'selftest_tally')
		write(os.path.join(directory, 'tally_test.py'),
		      'import unittest\n'
		      'from pan_kunit.host import summary\n'
		      'class T(unittest.TestCase):\n'
		      '\tdef test_a(self):\n\t\tsummary.record(summary.Tally("run", 9, 9))\n'
		      '\tdef test_b(self):\n\t\tself.assertTrue(False)\n'
		      '\t@unittest.skip("x")\n\tdef test_c(self):\n\t\tpass\n')
		with mock.patch.object(selftest, 'TOOLS_DIR', directory), \
		     mock.patch.dict(os.environ, {summary.ENV: path}), \
		     contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
			self.assertEqual(selftest.selftest(plain_printer(), typecheck=False), 1)
			self.assertEqual(os.environ[summary.ENV], path)
		self.assertEqual(read(path), 'selftest: 1 passed, 1 failed\n')

@slow
class CiRunSignalTest(TempDirTestCase):
	""".ci/run ended by a signal ends its running stage first: of the slow
	layer, with the other commands ended by signals (faultlib.py)."""

	def test_a_signal_ends_the_stage_then_ci(self) -> None:
		repo = os.path.join(self.tmp, 'repo')
		os.makedirs(os.path.join(repo, '.ci'))
		shutil.copy(os.path.join(REPO, '.ci', 'run'), os.path.join(repo, '.ci', 'run'))
		write(os.path.join(repo, '.ci', 'command'), 'tools/pan-kunit selftest\n')
		write(os.path.join(repo, 'tools', 'pan-kunit'), FAKE_STAGE)
		os.chmod(os.path.join(repo, 'tools', 'pan-kunit'), 0o755)
		mark = os.path.join(self.tmp, 'mark')
		for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
			with self.subTest(signal=signum.name):
				for path in (mark, mark + '.started'):
					if os.path.exists(path):
						os.remove(path)
				ci = subprocess.Popen([os.path.join(repo, '.ci', 'run')],
						      env=dict(os.environ, MARK=mark),
						      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
				deadline = time.monotonic() + 20
				while not os.path.exists(mark + '.started') and time.monotonic() < deadline:
					time.sleep(0.05)
				pid, work = read(mark + '.started').split()
				ci.send_signal(signum)
				_, err = ci.communicate(timeout=20)
				self.assertEqual(ci.returncode, 128 + signum, err)
				self.assertEqual(read(mark), 'TERM\n')
				self.assertFalse(process_running(int(pid)))
				self.assertFalse(os.path.exists(work), 'its trees are removed')
				self.assertIn(f'ci: stopped by {signum.name}', err.decode())


if __name__ == '__main__':
	unittest.main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the kunit.py processes of the matrix (pan_kunit.matrix.jobs.Job).

import errno
import io
import os
import sys
import time
import unittest
from typing import List
from unittest import mock

from pan_kunit import Error
from pan_kunit.host import progress
from pan_kunit.host.printer import Printer
from pan_kunit.matrix import jobs
from testlib import write, TempDirTestCase, end_to_end, setUpModule, tearDownModule

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
			job = jobs.Job('build k', [sys.executable, '-S', '-c', script], log)
			job.start()
		try:
			deadline = time.monotonic() + 10
			while not progress._make_started(log) and time.monotonic() < deadline:
				time.sleep(0.01)
			seen = progress._make_started(log)
		finally:
			write(go, '')
			job.wait(60, progress.Progress(Printer(io.StringIO())))
		self.assertTrue(seen, 'the line reached the log only when the job ended')
		self.assertEqual(job.outcome and job.outcome.returncode, 0)

	def test_a_job_that_found_the_disk_full_is_an_error_naming_what_it_wrote(self) -> None:
		log = os.path.join(self.tmp, 'build.log')
		line = ('arch/arm64/kernel/cpufeature.c:3512: fatal error: error writing to '
			'/b/arch/arm64/kernel/.tmp_cpufeature.o: No space left on device')
		failed = jobs.Job('build 7.3 arm64_pan', ['sh', '-c', f'echo "  CC  x"; echo "{line}"; '
							 'exit 2'], log)
		with self.assertRaises(Error) as e:
			jobs.run_jobs(progress.Progress(Printer(io.StringIO())), [failed], None)
		self.assertEqual(str(e.exception), f'build 7.3 arm64_pan failed: {line}\n'
				 f'the disk is full: free space on it, then run again (the log: {log})')
		# A job that failed otherwise is its caller's to judge.
		other = jobs.Job('build k', ['sh', '-c', 'echo "error: x"; exit 2'], log)
		jobs.run_jobs(progress.Progress(Printer(io.StringIO())), [other], None)
		self.assertEqual(other.outcome and other.outcome.returncode, 2)

	def test_a_log_it_cannot_create_on_a_full_disk_is_named(self) -> None:
		log = os.path.join(self.tmp, 'logs', 'build.log')
		job = jobs.Job('build k', ['true'], log)
		full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
		with mock.patch('builtins.open', side_effect=full), self.assertRaises(Error) as e:
			job.start()
		self.assertEqual(str(e.exception), f'cannot write the log of build k {log}: No space '
				 'left on device; the disk is full: free space on it, then run again')

	@end_to_end
	def test_watchdog_says_so_in_one_write(self) -> None:
		class Writes(io.StringIO):
			def __init__(self) -> None:
				super().__init__()
				self.writes: List[str] = []
			def write(self, text: str) -> int:
				self.writes.append(text)
				return super().write(text)
		out = Writes()
		job = jobs.Job('build k', [sys.executable, '-S', '-c', 'import time; time.sleep(60)'],
				 os.path.join(self.tmp, 'build.log'))
		job.start()
		job.wait(0.2, progress.Progress(Printer(out, tty=False)))
		self.assertIn('build k: still running after 0 s; killing it\n', out.writes)
		self.assertTrue(job.outcome and job.outcome.timed_out)


if __name__ == '__main__':
	unittest.main()

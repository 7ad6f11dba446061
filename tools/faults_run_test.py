#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The fault-injection layer (faultlib.py), at the stages of a run: its build,
# its boot, its result files.

import os
import signal
import time
import unittest
from typing import Any, Callable
from unittest import mock

from faultlib import FaultTestCase, SIGNALS
from pan_kunit.host import files
from testlib import setUpModule, tearDownModule

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


if __name__ == '__main__':
	unittest.main()

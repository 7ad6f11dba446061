#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of pan_kunit.host.proc's copies of pan-kunit's own process: proc.Fork
# and proc.ended(), which selftest runs its test files in.

import os
import sys
import tempfile
import time
import unittest

from pan_kunit.host import proc
from testlib import read, setUpModule, tearDownModule

class ForkTest(unittest.TestCase):

	def setUp(self) -> None:
		tmp = tempfile.TemporaryDirectory()
		self.addCleanup(tmp.cleanup)
		self.tmp = tmp.name

	def test_status_and_output_of_the_call(self) -> None:
		def call() -> int:
			print('to stdout')
			print('to stderr', file=sys.stderr)
			os.write(1, b'to fd 1\n')
			return 3
		log = os.path.join(self.tmp, 'log')
		fork = proc.Fork(call, log)
		self.assertEqual(proc.ended([fork]), [fork])
		self.assertEqual(fork.wait(), 3)
		self.assertEqual(sorted(read(log).splitlines()), ['to fd 1', 'to stderr', 'to stdout'])

	def test_what_the_call_raises_is_logged_and_fails(self) -> None:
		def call() -> int:
			raise ValueError('broken')
		log = os.path.join(self.tmp, 'log')
		fork = proc.Fork(call, log)
		self.assertEqual(fork.wait(), 1)
		self.assertIn('ValueError: broken', read(log))

	def test_ended_returns_those_that_ended(self) -> None:
		def sleep() -> int:
			time.sleep(30)
			return 0
		slow = proc.Fork(sleep, os.path.join(self.tmp, 'slow'))
		try:
			fast = proc.Fork(lambda: 0, os.path.join(self.tmp, 'fast'))
			self.assertEqual(proc.ended([slow, fast]), [fast])
			self.assertEqual(fast.wait(), 0)
		finally:
			os.kill(slow.pid, 9)
		self.assertEqual(slow.wait(), -9)


if __name__ == '__main__':
	unittest.main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the locks on the directories pan-kunit works in
# (pan_kunit.host.lockfile): the holder named, waited for or refused, and
# a lock its holder did not release named and cleared, never waited on for
# ever.

import contextlib
import fcntl
import io
import os
import signal
import tempfile
import threading
import time
import unittest
from typing import Iterator
from unittest import mock

from pan_kunit import Error
from pan_kunit.host import guard, lockfile, pids, proc
from pan_kunit.host.printer import Printer
from testlib import read, ended_pid, process_running, end_to_end, setUpModule, tearDownModule

class LockTest(unittest.TestCase):

	def setUp(self) -> None:
		tmp = tempfile.TemporaryDirectory()
		self.addCleanup(tmp.cleanup)
		self.path = os.path.join(tmp.name, 'build.lock')
		self.out = io.StringIO()
		self.printer = Printer(self.out)

	def test_a_lock_names_its_holder_while_held_and_no_one_after(self) -> None:
		with lockfile.held(self.printer, self.path, 'builds in b'):
			holder = lockfile.Holder.parse(read(self.path))
			assert holder is not None
			self.assertEqual((holder.pid, holder.start), (os.getpid(), pids.start_time(os.getpid())))
			self.assertTrue(holder.alive())
		self.assertEqual(read(self.path), '')
		self.assertEqual(self.out.getvalue(), '')

	def test_a_stale_lock_is_named_and_cleared(self) -> None:
		stale = lockfile.Holder(ended_pid(), '1', 'pan-kunit run --kernel 7.3', 0.0)
		stale.since = time.mktime((2026, 12, 6, 10, 42, 3, 0, 0, -1))
		with open(self.path, 'w') as f:
			f.write(stale.text())
		with lockfile.held(self.printer, self.path, 'builds in b'):
			pass
		self.assertEqual(self.out.getvalue(), f'{self.path}: a stale lock of pan-kunit pid '
				 f'{stale.pid} (pan-kunit run --kernel 7.3, since 2026-12-06 10:42:03), '
				 'which ended without releasing it: cleared\n')
		self.assertEqual(read(self.path), '')

	@contextlib.contextmanager
	def hold_as(self, holder: lockfile.Holder) -> Iterator[None]:
		"""Holds the lock from another open file, naming @holder."""
		with open(self.path, 'w') as other:
			fcntl.flock(other, fcntl.LOCK_EX)
			other.write(holder.text())
			other.flush()
			yield

	def test_a_live_holder_is_refused_naming_it(self) -> None:
		with self.hold_as(lockfile.Holder.me()):
			with self.assertRaises(Error) as e:
				with lockfile.held(self.printer, self.path, 'is using w', wait=False):
					self.fail('took a lock another holds')
			self.assertRegex(str(e.exception), f'^pan-kunit pid {os.getpid()} \\(.*, since '
					 '[-0-9]+ [:0-9]+\\) is using w; wait for it to finish, or stop it$')

	def test_a_lock_that_no_live_holder_holds_is_waited_for_a_while_then_refused(self) -> None:
		left = lockfile.Holder(ended_pid(), '1', 'pan-kunit run', 0.0)
		clock = iter(range(1000))
		with self.hold_as(left):  # a make the dead pan-kunit left, that never ends
			with mock.patch.object(lockfile, 'POLL_SECONDS', 0), self.assertRaises(Error) as e:
				with lockfile.held(self.printer, self.path, 'builds in b',
						   clock=lambda: float(next(clock))):
					self.fail('took a lock another holds')
		self.assertIn(f'{self.path} is held by what pan-kunit pid {left.pid} (pan-kunit run) '
			      'left running; it ended, and its processes are being stopped: waiting for '
			      'them ...\n', self.out.getvalue())
		self.assertRegex(str(e.exception), f'^{self.path} is still held, 15 s after pan-kunit pid '
				 f'{left.pid} \\(pan-kunit run\\) ended, by processes this user cannot see: stop '
				 'them \\(kill PID\\), then run again$')

@end_to_end
class HolderTest(unittest.TestCase):
	"""A holder that is another process."""

	def setUp(self) -> None:
		tmp = tempfile.TemporaryDirectory()
		self.addCleanup(tmp.cleanup)
		self.tmp = tmp.name
		self.path = os.path.join(self.tmp, 'build.lock')

	def holder(self, session: bool) -> proc.Fork:
		"""A copy of this process that takes the lock and then waits to be
		killed; with @session, a child of its that holds the lock too (a
		build's kunit.py), and ignores SIGTERM."""
		taken = os.path.join(self.tmp, 'taken')
		def call() -> int:
			guard.GUARD.grace = 0.5
			with lockfile.held(Printer(io.StringIO()), self.path, 'builds in b') as fd, \
			     open(os.devnull, 'w') as log:
				if session:
					proc.Session(['sh', '-c', 'trap "" TERM; sleep 60'], log, {}, [fd])
				with open(taken, 'w') as f:
					f.write(f'{os.getpid()}\n')
				time.sleep(60)
			return 0
		fork = proc.Fork(call, os.path.join(self.tmp, 'log'))
		def kill() -> None:
			if process_running(fork.pid):
				os.kill(fork.pid, signal.SIGKILL)
		self.addCleanup(kill)
		deadline = time.monotonic() + 20
		while not (os.path.exists(taken) and read(taken).endswith('\n')):
			self.assertLess(time.monotonic(), deadline, 'the holder did not take the lock')
			time.sleep(0.01)
		return fork

	def test_a_live_holder_is_waited_for_naming_it(self) -> None:
		fork = self.holder(session=False)
		out = io.StringIO()
		def release() -> None:
			while 'waiting for' not in out.getvalue():
				time.sleep(0.01)
			os.kill(fork.pid, signal.SIGTERM)
		threading.Thread(target=release, daemon=True).start()
		with lockfile.held(Printer(out), self.path, 'builds in b'):
			pass
		self.assertRegex(out.getvalue(), f'^waiting for pan-kunit pid {fork.pid} \\(.*, since '
				 '[-0-9]+ [:0-9]+\\), which builds in b ...\n')
		fork.wait()

	def test_what_a_killed_holder_started_holds_it_until_its_guard_stops_it(self) -> None:
		fork = self.holder(session=True)
		os.kill(fork.pid, signal.SIGKILL)
		fork.wait()
		out = io.StringIO()
		start = time.monotonic()
		with lockfile.held(Printer(out), self.path, 'builds in b'):
			waited = time.monotonic() - start
		self.assertIn(f'{self.path} is held by what pan-kunit pid {fork.pid} (', out.getvalue())
		self.assertIn(f'{self.path}: a stale lock of pan-kunit pid {fork.pid} (', out.getvalue())
		self.assertLess(waited, lockfile.LEFT_OVER_SECONDS)


if __name__ == '__main__':
	unittest.main()

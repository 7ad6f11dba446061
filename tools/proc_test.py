#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of pan_kunit.host.proc: the copies of pan-kunit's own process
# (proc.Fork and proc.ended(), which selftest runs its test files in), the
# signals that end a command, and what stops its children when it ends.

import os
import signal
import sys
import tempfile
import threading
import time
import unittest
from unittest import mock
from typing import IO, Callable, List

from pan_kunit.host import guard, pids, proc
from pan_kunit.host.printer import Printer
from testlib import read, process_running, end_to_end, setUpModule, tearDownModule

def wait_for(path: str, seconds: float=20) -> str:
	"""The contents of @path, once something wrote a line into it."""
	deadline = time.monotonic() + seconds
	while time.monotonic() < deadline:
		if os.path.exists(path) and read(path).endswith('\n'):
			return read(path)
		time.sleep(0.01)
	raise AssertionError(f'nothing wrote {path} in {seconds} s')

def gone(pids: List[int], seconds: float=10) -> List[int]:
	"""Those of @pids still running after @seconds (none, as soon as none is)."""
	deadline = time.monotonic() + seconds
	running = list(pids)
	while running and time.monotonic() < deadline:
		time.sleep(0.02)
		running = [pid for pid in running if process_running(pid)]
	return running

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


def signal_when_written(path: str, signum: int) -> None:
	"""In a thread: @signum to this process once something wrote @path."""
	def send() -> None:
		wait_for(path)
		os.kill(os.getpid(), signum)
	threading.Thread(target=send, daemon=True).start()

def in_a_copy(test: unittest.TestCase, call: Callable[[], int], log: str) -> proc.Fork:
	"""@call in a copy of this process, as pan-kunit's own: its signals,
	its children and its guard are its own, not the test's."""
	fork = proc.Fork(call, log)
	test.addCleanup(lambda: (os.kill(fork.pid, signal.SIGKILL) if process_running(fork.pid)
				 else None))
	return fork

@end_to_end
class StopTest(unittest.TestCase):
	"""A signal that ends a command: the children stopped first, each
	with its own signal, and the command's status 128 + the signal's."""

	def setUp(self) -> None:
		tmp = tempfile.TemporaryDirectory()
		self.addCleanup(tmp.cleanup)
		self.tmp = tmp.name

	def test_each_stop_signal_raises_once_and_the_handlers_come_back(self) -> None:
		for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGINT):
			def call() -> int:
				before = signal.getsignal(signum)
				status = 0
				with proc.stopping_on_signals():
					try:
						os.kill(os.getpid(), signum)
						time.sleep(10)
					except proc.Stopped as e:
						# A second signal while the first one's stop runs is ignored.
						os.kill(os.getpid(), signum)
						time.sleep(0.1)
						status = e.status
				print('restored' if signal.getsignal(signum) == before else 'not restored')
				return status
			log = os.path.join(self.tmp, f'{signum}.log')
			fork = in_a_copy(self, call, log)
			self.assertEqual(fork.wait(), 128 + signum, read(log))
			self.assertEqual(read(log), 'restored\n')

	def test_a_stopped_child_gets_its_own_signal_first(self) -> None:
		# git removes its index.lock on SIGTERM, never on SIGKILL.
		marker = os.path.join(self.tmp, 'marker')
		script = f'trap "echo TERM > {marker}; exit 1" TERM; echo $$ > {marker}.pid; ' \
			 'sleep 30 & wait'
		def call() -> int:
			with proc.stopping_on_signals():
				signal_when_written(marker + '.pid', signal.SIGHUP)
				try:
					proc.run(['sh', '-c', script])
				except proc.Stopped as e:
					return e.status
			return 0
		log = os.path.join(self.tmp, 'log')
		fork = in_a_copy(self, call, log)
		self.assertEqual(fork.wait(), 128 + signal.SIGHUP, read(log))
		self.assertEqual(read(marker), 'TERM\n')

	def assert_a_signal_another_thread_took_stops(
		self, wait_for_child: Callable[[List[str], IO[str]], object]) -> None:
		"""Linux may give a signal sent to the process to any of its
		threads (the one that sends it, often); Python notes it there and
		handles it in the main thread, once that looks: @wait_for_child
		(a child's command, a file for its output) must not hold it until
		the child ends."""
		pid_file = os.path.join(self.tmp, 'pid')
		def send() -> None:
			wait_for(pid_file)
			signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
		def call() -> int:
			with proc.stopping_on_signals(), open(os.path.join(self.tmp, 'out'), 'w') as out:
				threading.Thread(target=send, daemon=True).start()
				try:
					wait_for_child(['sh', '-c', f'echo $$ > {pid_file}; exec sleep 30'], out)
				except proc.Stopped as e:
					return e.status
			return 0
		start = time.monotonic()
		fork = in_a_copy(self, call, os.path.join(self.tmp, 'log'))
		self.assertEqual(fork.wait(), 128 + signal.SIGTERM)
		self.assertLess(time.monotonic() - start, 10)
		self.assertEqual(gone([int(read(pid_file))], 1), [])

	def test_a_signal_another_thread_took_stops_the_child_at_once(self) -> None:
		self.assert_a_signal_another_thread_took_stops(lambda cmd, out: proc.run(cmd))

	def test_a_signal_another_thread_took_stops_a_session_at_once(self) -> None:
		self.assert_a_signal_another_thread_took_stops(
			lambda cmd, out: proc.Session(cmd, out, {}).wait_to_end())

	def test_a_signal_another_thread_took_stops_a_wait_for_copies_at_once(self) -> None:
		def wait_for_copy(cmd: List[str], out: IO[str]) -> object:
			fork = proc.Fork(lambda: proc.run(cmd).returncode, os.path.join(self.tmp, 'copy'))
			return proc.ended([fork])
		self.assert_a_signal_another_thread_took_stops(wait_for_copy)

	def test_a_session_is_waited_for_past_the_signal_checks(self) -> None:
		# Shorter checks, so that three of them pass in a tenth of a second.
		with mock.patch.object(proc, 'SIGNAL_CHECK', 0.04), \
		     open(os.path.join(self.tmp, 'out'), 'w') as out:
			long = 3 * proc.SIGNAL_CHECK
			session = proc.Session(['sh', '-c', f'sleep {long}; exit 3'], out, {})
			self.assertFalse(session.wait(proc.SIGNAL_CHECK / 2))
			self.assertEqual(session.wait_to_end(), 3)
			session = proc.Session(['sh', '-c', f'sleep {long}'], out, {})
			self.assertTrue(session.wait(10))  # it ends as soon as the child does

	def test_a_child_that_ignores_its_signal_is_killed_after_the_grace(self) -> None:
		pid_file = os.path.join(self.tmp, 'pid')
		def call() -> int:
			with proc.stopping_on_signals():
				signal_when_written(pid_file, signal.SIGTERM)
				try:
					proc.run(['sh', '-c', f'trap "" TERM; echo $$ > {pid_file}; sleep 30'],
						 grace=0.2)
				except proc.Stopped as e:
					return e.status
			return 0
		fork = in_a_copy(self, call, os.path.join(self.tmp, 'log'))
		self.assertEqual(fork.wait(), 128 + signal.SIGTERM)
		self.assertEqual(gone([int(read(pid_file))], 1), [])

@end_to_end
class GuardTest(unittest.TestCase):
	"""What pan-kunit started, when pan-kunit ends where it cannot act
	(SIGKILL, the OOM killer)."""

	def setUp(self) -> None:
		tmp = tempfile.TemporaryDirectory()
		self.addCleanup(tmp.cleanup)
		self.tmp = tmp.name

	def started(self, start: Callable[[], None]) -> proc.Fork:
		"""A copy of this process that runs @start, then waits to be killed."""
		def call() -> int:
			guard.GUARD.grace = 0.3
			start()
			time.sleep(60)
			return 0
		return in_a_copy(self, call, os.path.join(self.tmp, 'log'))

	def test_a_sessions_whole_group_and_a_plain_child_are_stopped(self) -> None:
		pids = os.path.join(self.tmp, 'pids')
		# kunit.py (the session's leader), with a make or QEMU of its own
		# that ignores SIGTERM; and a git, or a tar, run() waits for.
		leader = ('trap "" TERM; sh -c "trap \\"\\" TERM; echo \\$\\$ >> {0}; exec sleep 60" & '
			  'echo $$ >> {0}; wait').format(pids)
		def start() -> None:
			with open(os.devnull, 'w') as log:
				proc.Session(['sh', '-c', leader], log, {})
			threading.Thread(target=proc.run, args=(
				['sh', '-c', f'echo $$ >> {pids}.plain; exec sleep 60'],), daemon=True).start()
		fork = self.started(start)
		while len(read(pids).split() if os.path.exists(pids) else []) < 2 or \
		      not os.path.exists(pids + '.plain') or not read(pids + '.plain').strip():
			time.sleep(0.01)
		children = [int(pid) for pid in read(pids).split() + read(pids + '.plain').split()]
		self.assertEqual(gone(children, 0.3), children)  # they run
		os.kill(fork.pid, signal.SIGKILL)
		self.assertEqual(fork.wait(), -signal.SIGKILL)
		self.assertEqual(gone(children), [], 'left running after pan-kunit was killed')

	def killed_with(self, start: Callable[[str], None]) -> None:
		"""@start(PIDS) starts, in a copy of this process, children that
		write their pids into the file PIDS; once they run, the copy is
		killed with SIGKILL: none of them may outlive it."""
		pids = os.path.join(self.tmp, 'pids')
		fork = self.started(lambda: start(pids))
		wait_for(pids)
		children = [int(pid) for pid in read(pids).split()]
		self.assertEqual(gone(children, 0.3), children)  # they run
		os.kill(fork.pid, signal.SIGKILL)
		self.assertEqual(fork.wait(), -signal.SIGKILL)
		self.assertEqual(gone(children), [], 'left running after pan-kunit was killed')

	def test_a_child_killed_before_the_guard_heard_of_it_is_stopped(self) -> None:
		# SIGKILL between the fork and the "+" line: here, a line never sent.
		def start(pids: str) -> None:
			guard.GUARD.watch = lambda *args, **kwargs: None  # type: ignore[assignment]
			threading.Thread(target=proc.run, args=(
				['sh', '-c', f'echo $$ > {pids}.tmp; mv {pids}.tmp {pids}; exec sleep 60'],),
					 daemon=True).start()
		self.killed_with(start)

	def test_what_a_child_started_is_stopped(self) -> None:
		# The guard knows the shell; the sleep it starts is its own.
		def start(pids: str) -> None:
			threading.Thread(target=proc.run, args=(
				['sh', '-c', f'sleep 60 & echo $! > {pids}.tmp; mv {pids}.tmp {pids}; wait'],),
					 daemon=True).start()
		self.killed_with(start)

	def test_a_child_is_told_which_pan_kunit_started_it(self) -> None:
		log = os.path.join(self.tmp, 'log')
		def call() -> int:
			print(proc.run(['sh', '-c', f'echo ${guard.GUARD_ENV}']).stdout.strip(),
			      pids.start_time(os.getpid()))
			return 0
		fork = in_a_copy(self, call, log)
		self.assertEqual(fork.wait(), 0)
		token, start = read(log).split()
		self.assertEqual(token, f'{fork.pid}.{start}')

	def test_what_ended_is_not_signalled_and_a_normal_end_leaves_none(self) -> None:
		log = os.path.join(self.tmp, 'log')
		def call() -> int:
			guard.GUARD.grace = 0.3
			for _ in range(3):
				proc.run(['true'])
			print(guard.GUARD._watched, guard.GUARD._pid)
			return 0
		fork = in_a_copy(self, call, log)
		self.assertEqual(fork.wait(), 0)
		watched, its_guard = read(log).rsplit(' ', 1)
		self.assertEqual(watched, '{}')
		self.assertEqual(gone([int(its_guard)], 5), [], 'the guard outlived its pan-kunit')

	def test_a_copy_has_a_guard_of_its_own(self) -> None:
		proc.run(['true'])  # the test's own guard, which the copy must not share
		log = os.path.join(self.tmp, 'log')
		parent = guard.GUARD._pid
		def call() -> int:
			proc.run(['true'])
			print(guard.GUARD._pid)
			return 0
		fork = in_a_copy(self, call, log)
		self.assertEqual(fork.wait(), 0)
		self.assertNotEqual(int(read(log)), parent)


if __name__ == '__main__':
	unittest.main()

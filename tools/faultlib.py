# SPDX-License-Identifier: GPL-2.0
#
# What the tests of the fault-injection layer share (faults_run_test.py,
# faults_setup_test.py, faults_check_test.py): a command (`run`, with the
# fake kunit_tool), ended at each stage that writes by SIGTERM, SIGHUP (a closed terminal) and
# SIGKILL (kill -9, the OOM killer), then run again.  Each time:
#
#   - the command ends with 128 + the signal (SIGKILL: killed);
#   - nothing it started keeps running (the fake kunit.py, and the
#     stand-in for make or QEMU it starts, which ignores SIGTERM);
#   - no --json or --junit file is left half-written as if complete;
#   - the next run completes, passes, with the same counts, naming and
#     clearing a lock the killed one left;
#   - the tree keeps the user's edit, and holds no half-done setup.
#
# The layer is the selftest's slow one (testlib.slow): `selftest --all`
# and CI run it, not the `selftest` of each edit.
#
# The command runs in a copy of this process (proc.Fork) with short
# graces; a stage is reached either by the fake kunit.py stalling there
# (FAKE_KUNIT_STALL: build, boot) or by a function of the stage that
# sends the signal to its own process (the others).

import json
import os
import signal
import time
from typing import Any, Callable, List, Optional, Tuple
from unittest import mock

from pan_kunit.host import guard, proc
from pan_kunit.host.files import read_text
from pan_kunit.trees import tree
from testlib import FakeKunitTestCase, read, process_running, slow

SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGKILL)
# How long the processes a killed command left may take to end: its
# guard's grace (set below), and its shell's pace.
LEFT_OVER_SECONDS = 5.0
# How long a command may take to reach the stage it stalls at: export
# reaches its first build after format-patch, checkpatch and the series'
# commits, which took over 20 s on a machine loaded 12 on 2 CPUs.  Only a
# hang runs into it: a command that ended fails the wait at once.
STALL_SECONDS = 120.0
EDIT = '/* the user\'s edit */\n'

def kill_self_when(module: Any, name: str, signum: int,
		   when: Callable[..., bool]=lambda *a, **k: True, after: bool=False) -> Any:
	"""A patch of @module.@name that, called with arguments @when
	accepts, sends @signum to this process first (@after: once the
	call is done)."""
	real = getattr(module, name)
	def kill() -> None:
		os.kill(os.getpid(), signum)
		time.sleep(1)  # SIGKILL: never returns; the others: raised here
	def call(*args: Any, **kwargs: Any) -> Any:
		killed = when(*args, **kwargs)
		if killed and not after:
			kill()
		result = real(*args, **kwargs)
		if killed:
			kill()
		return result
	return mock.patch.object(module, name, call)

@slow
class FaultTestCase(FakeKunitTestCase):
	"""`run`, ended at a stage by a signal, then run again (check()): of
	the slow layer, as each test runs the command a dozen times."""

	# The exit status of the next run, once the killed one is cleared up.
	next_status = 0

	def setUp(self) -> None:
		super().setUp()
		self.json = os.path.join(self.tmp, 'out', 'results.json')
		self.junit = os.path.join(self.tmp, 'out', 'results.xml')
		os.makedirs(os.path.dirname(self.json))
		self.stall_dir = os.path.join(self.tmp, 'stall')
		os.mkdir(self.stall_dir)

	def argv(self) -> List[str]:
		return ['--tree', self.tree, 'run', '--config', 'pass_pan', '--json', self.json,
			'--junit', self.junit]

	def killed_run(self, signum: int, patch: Optional[Any]=None,
		       stall: str='') -> Tuple[int, str, List[int]]:
		"""`run` in a copy of this process, ended with @signum: by @patch,
		or, with @stall (a stage of FAKE_KUNIT_STALL), from here once the
		fake kunit.py stalls there.  Its exit status, output and the pids
		it left for its guard to stop (kunit.py and its child)."""
		log = os.path.join(self.tmp, f'killed-{signum}.log')
		where = os.path.join(self.stall_dir, stall)
		if stall and os.path.exists(where):
			os.unlink(where)  # an earlier one's: this one has not stalled yet
		def call() -> int:
			guard.GUARD.grace = 0.5
			if stall:
				os.environ['FAKE_KUNIT_STALL'] = f'{stall}:{self.stall_dir}'
			with mock.patch.object(proc, 'GRACE', 0.5), \
			     mock.patch('pan_kunit.matrix.jobs.KILL_GRACE', 0.5):
				if patch is not None:
					patch.start()
				status, output = self.cli_main(*self.argv())
			print(output, end='')
			return status
		fork = proc.Fork(call, log)
		pids: List[int] = []
		try:
			if stall:
				deadline = time.monotonic() + STALL_SECONDS
				while not os.path.exists(where):
					self.assertLess(time.monotonic(), deadline, read_text(log))
					self.assertTrue(process_running(fork.pid), read_text(log))
					time.sleep(0.02)
				pids = [int(p) for p in read(where).split()]
				os.kill(fork.pid, signum)
			status = fork.wait()
		finally:
			if process_running(fork.pid):
				os.kill(fork.pid, signal.SIGKILL)
				fork.wait()
		return status, read_text(log) or '', pids

	def assert_nothing_left(self, pids: List[int]) -> None:
		"""No process the killed command started still runs: neither
		@pids nor any whose command line names the test's files."""
		deadline = time.monotonic() + LEFT_OVER_SECONDS
		while True:
			left = [p for p in pids if process_running(p)] + self.processes_of_tmp()
			if not left or time.monotonic() > deadline:
				break
			time.sleep(0.05)
		self.assertEqual(left, [], 'left running')

	def processes_of_tmp(self) -> List[int]:
		found = []
		for name in os.listdir('/proc'):
			if not name.isdigit() or int(name) == os.getpid():
				continue
			try:
				with open(f'/proc/{name}/cmdline', 'rb') as f:
					cmdline = f.read()
			except OSError:
				continue
			if self.tmp.encode() in cmdline and process_running(int(name)):
				found.append(int(name))
		return found

	def assert_whole_or_absent(self) -> None:
		"""The result files are not there, or whole (as a reader would
		take them), and no temporary file is left beside them once the
		next run wrote them."""
		if os.path.exists(self.json):
			json.loads(read(self.json))
		if os.path.exists(self.junit):
			self.assertTrue(read(self.junit).rstrip().endswith('</testsuites>'))

	def assert_stale_lock_cleared(self, signum: int, again: str) -> None:
		"""After a SIGKILL, the next run (@again) named the lock the killed
		one held (the check worktree's, a build directory's) and cleared
		it: it did not wait on it for ever."""
		if signum == signal.SIGKILL:
			self.assertRegex(again, r'a stale lock of pan-kunit pid [0-9]+ \(.*\), which ended '
					 'without releasing it: cleared\n')

	def check_next(self, again: str) -> None:
		"""What the next run printed (@again) and wrote: a whole run."""
		self.assertIn('run: 9 passed, 0 failed, 0 skipped\n', again)
		self.assertEqual(json.loads(read(self.json))['kernels'][0]['configs'][0]['name'],
				 'pass_pan')
		self.assertTrue(read(self.junit).rstrip().endswith('</testsuites>'))

	def check(self, signum: int, patch: Optional[Any]=None, stall: str='',
		  edit: bool=True) -> str:
		"""Ends `run` with @signum (see killed_run()), checks what it left
		and that the next run passes: the next run's output."""
		mine = os.path.join(self.tree, 'arch/arm64/kernel/cpufeature.c')
		if edit:
			with open(mine, 'a') as f:
				f.write(EDIT)
		status, output, pids = self.killed_run(signum, patch, stall)
		if signum == signal.SIGKILL:
			self.assertEqual(status, -signal.SIGKILL, output)
		else:
			self.assertEqual(status, 128 + signum, output)
			self.assertIn(f'{signal.Signals(signum).name}', output)
			self.assertNotIn('Traceback', output)
		self.assert_nothing_left(pids)
		self.assert_whole_or_absent()
		status, again = self.cli_main(*self.argv())
		self.assertEqual(status, self.next_status, output + '\n---- the next run:\n' + again)
		self.check_next(again)
		self.assertEqual([n for n in os.listdir(os.path.dirname(self.json))
				  if n.endswith('.tmp')], [])
		if edit:
			self.assertTrue(read(mine).endswith(EDIT))
			self.assertEqual(tree.changed_files(self.tree), ['arch/arm64/kernel/cpufeature.c'])
		self.assertEqual(tree.rev(self.tree, tree.PREPARED_REF), tree.rev(self.tree, 'HEAD'))
		self.assertFalse(os.path.exists(os.path.join(self.tree, '.git', tree.SETUP_MARK)))
		self.assertFalse(os.path.exists(os.path.join(self.tree, '.git', 'rebase-apply')))
		return again


# SPDX-License-Identifier: GPL-2.0
#
# The kunit.py processes of the matrix (its builds and its boots), run at
# once: each in a session of its own, with its output in a log, and its
# whole process group killed when it ends (or when pan-kunit ends: ^C, a
# SIGTERM, an error), so that no make or QEMU outlives it.

import os
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence

from pan_kunit import Error
from pan_kunit.host import proc
from pan_kunit.host.files import DISK_FULL_HINT, disk_full_line, read_text, writing
from pan_kunit.host.progress import POLL_SECONDS, Progress
from pan_kunit.results.config_result import Exit

# Seconds past kunit.py's own --timeout before pan-kunit kills it.
WATCHDOG_MARGIN = 60
# Seconds between SIGTERM and SIGKILL to a process group.
KILL_GRACE = 5

class Job:
	"""A kunit.py process, with stdin from /dev/null and its output in a log.
	Its Python is unbuffered, so each line reaches the log when it is
	printed (progress reads kunit.py's "Building with:" there while the
	build runs), not when kunit.py exits."""

	def __init__(self, label: str, cmd: List[str], log: str,
		     env: Optional[Dict[str, str]]=None) -> None:
		self.label = label
		self.cmd = cmd
		self.log = log
		self.env = env or {}
		# What the process holds open while it runs (a build: its lock).
		self.pass_fds: Sequence[int] = ()
		self.outcome: Optional[Exit] = None
		self._session: Optional[proc.Session] = None
		self._start = 0.0

	def start(self) -> None:
		with writing(self.log, f'the log of {self.label}'):
			os.makedirs(os.path.dirname(self.log), exist_ok=True)
			log = open(self.log, 'w')
		with log:
			self._session = proc.Session(self.cmd, log, dict(
				PYTHONDONTWRITEBYTECODE='1', PYTHONUNBUFFERED='1', **self.env),
				self.pass_fds)
		self._start = time.monotonic()

	def wait(self, watchdog: Optional[float], progress: Progress) -> None:
		"""Waits for the process, at most watchdog seconds, then kills its group
		(saying so on @progress)."""
		assert self._session is not None
		timed_out = not self._session.wait(watchdog)
		if timed_out:
			# In a waiting thread: one line, in one write, as the boots' lines.
			progress.line(f'{self.label}: still running after {watchdog:.0f} s; killing it')
		elapsed = time.monotonic() - self._start
		self.kill()
		assert self._session.returncode is not None
		self.outcome = Exit(self._session.returncode, timed_out, elapsed)

	def kill(self) -> None:
		"""SIGTERM to the process group, then SIGKILL to what is left of it."""
		if self._session is not None:
			self._session.kill(KILL_GRACE)

def run_jobs(progress: Progress, jobs: List[Job], watchdog: Optional[float],
	     ended: Optional[Callable[[Job], None]]=None) -> None:
	"""Runs the jobs in parallel, a thread waiting on each, which calls
	@ended when its job ended; polls the progress while they run.  On any
	exception in the main thread (KeyboardInterrupt) kills them all."""
	def wait(job: Job) -> None:
		job.wait(watchdog, progress)
		if ended is not None:
			ended(job)
	threads = []
	try:
		for job in jobs:
			job.start()
			thread = threading.Thread(target=wait, args=(job,), daemon=True)
			thread.start()
			threads.append(thread)
		for thread in threads:
			while thread.is_alive():
				thread.join(POLL_SECONDS)
				progress.poll()
	except BaseException:
		for job in jobs:
			job.kill()
		raise
	for job in jobs:
		check_disk(job)

def check_disk(job: Job) -> None:
	"""Refuses (exit 2) a @job that failed because the disk is full,
	quoting the line of its log that names what it was writing where."""
	if job.outcome is None or job.outcome.returncode == 0:
		return
	full = disk_full_line(read_text(job.log) or '')
	if full:
		raise Error(f'{job.label} failed: {full}\n{DISK_FULL_HINT} (the log: {job.log})')

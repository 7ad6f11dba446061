# SPDX-License-Identifier: GPL-2.0
#
# A lock on a directory pan-kunit works in (a build directory, the check
# worktree): an flock on a file beside it (DIR.lock), which holds, while
# it is held, who holds it: the pid, its start time (which tells it from
# a later process of the same number), the command and since when.
#
#   - free, and naming no one: taken;
#   - free, but naming a holder: that holder ended without releasing it
#     (SIGKILL, the OOM killer, a crash); named, cleared and taken;
#   - held by a pan-kunit that runs: waited for, with a line that names it
#     (held(wait=True): the builds), or refused, exit 2, naming it
#     (wait=False: the check worktree, which one check holds for its
#     whole run);
#   - held, but its holder is gone: what holds it now is what that
#     pan-kunit started and passed the lock to (a build's kunit.py, make
#     and compilers, which its guard is stopping): waited for at most
#     LEFT_OVER_SECONDS, then refused, naming them.  Never waited on for
#     ever.
#
# A lock is released by clearing its holder, then unlocking: a lock file
# that names a holder is one that was not released.

import contextlib
import errno
import fcntl
import json
import os
import shlex
import sys
import time
from dataclasses import dataclass
from typing import Callable, Iterator, List, Optional

from pan_kunit import Error
from pan_kunit.host import guard, pids
from pan_kunit.host.printer import Printer

# How long a lock held by what a dead pan-kunit left is waited for: its
# guard stops them within its grace.
LEFT_OVER_SECONDS = 3 * guard.GRACE
# How often such a lock is tried again.
POLL_SECONDS = 0.1

def command_line() -> str:
	"""This process's command line, as the user typed it for pan-kunit
	(python3 -m pan_kunit ARGS: pan-kunit ARGS)."""
	if sys.argv and sys.argv[0].endswith(os.path.join('pan_kunit', '__main__.py')):
		return shlex.join(['pan-kunit'] + sys.argv[1:])
	return shlex.join(sys.argv)

@dataclass
class Holder:
	"""Who holds (or held) a lock."""
	pid: int
	start: str      # pids.start_time() of the pid
	command: str
	since: float    # time.time() when it took the lock

	@classmethod
	def me(cls) -> 'Holder':
		pid = os.getpid()
		return cls(pid, pids.start_time(pid), command_line(), time.time())

	@classmethod
	def parse(cls, text: str) -> Optional['Holder']:
		"""The holder @text names; an older pan-kunit wrote its pid alone."""
		if text.strip().isdigit():
			return cls(int(text), '', 'an older pan-kunit', 0.0)
		try:
			data = json.loads(text)
			return cls(int(data['pid']), str(data['start']), str(data['command']),
				   float(data['since']))
		except (ValueError, KeyError, TypeError):
			return None

	def text(self) -> str:
		return json.dumps({'pid': self.pid, 'start': self.start, 'command': self.command,
				   'since': self.since}) + '\n'

	def alive(self) -> bool:
		now = pids.start_time(self.pid)
		return bool(now) and (now == self.start or not self.start)

	def describe(self) -> str:
		if not self.since:
			return f'pan-kunit pid {self.pid} ({self.command})'
		since = time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(self.since))
		return f'pan-kunit pid {self.pid} ({self.command}, since {since})'

def _read(fd: int) -> str:
	os.lseek(fd, 0, os.SEEK_SET)
	return os.read(fd, 65536).decode(errors='replace')

def _try(fd: int) -> bool:
	try:
		fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
	except OSError as e:
		if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
			return False
		raise
	return True

def holders(path: str) -> List[str]:
	"""The other processes that have @path open, 'PID (COMMAND)' each (of
	those this user may look at)."""
	found = []
	real = os.path.realpath(path)
	for pid in filter(str.isdigit, os.listdir('/proc')):
		if int(pid) == os.getpid():
			continue
		try:
			fds = os.listdir(f'/proc/{pid}/fd')
			if not any(os.readlink(f'/proc/{pid}/fd/{fd}') == real for fd in fds):
				continue
			with open(f'/proc/{pid}/cmdline', 'rb') as f:
				command = f.read().replace(b'\0', b' ').decode(errors='replace').strip()
		except OSError:
			continue
		found.append(f'{pid} ({command[:80]})')
	return found

def _take(printer: Printer, fd: int, path: str, what: str, wait: bool,
	  clock: Callable[[], float]) -> None:
	"""Takes the lock @fd of @path: see held()."""
	deadline: Optional[float] = None
	while not _try(fd):
		holder = Holder.parse(_read(fd))
		if holder is not None and holder.alive():
			if not wait:
				raise Error(f'{holder.describe()} {what}; wait for it to finish, or stop it')
			printer.print(f'waiting for {holder.describe()}, which {what} ...')
			fcntl.flock(fd, fcntl.LOCK_EX)
			return
		# No live pan-kunit holds it: what a dead one left running does (or
		# one that took it this instant and has not named itself yet).
		who = holder.describe() if holder else 'a pan-kunit'
		if deadline is None:
			printer.print(f'{path} is held by what {who} left running; it ended, and '
				      'its processes are being stopped: waiting for them ...')
			deadline = clock() + LEFT_OVER_SECONDS
		elif clock() >= deadline:
			found = holders(path)
			raise Error(f'{path} is still held, {LEFT_OVER_SECONDS:.0f} s after {who} '
				    'ended, by ' + (', '.join(found) if found else
						    'processes this user cannot see') +
				    ': stop them (kill PID), then run again')
		time.sleep(POLL_SECONDS)

@contextlib.contextmanager
def held(printer: Printer, path: str, what: str, wait: bool=True,
	 clock: Callable[[], float]=time.monotonic) -> Iterator[int]:
	"""Holds the lock file @path for the time of the block, which does
	@what ('builds in DIR'); yields its file descriptor, which a child
	that must hold the lock while it runs is given.  A lock a live
	pan-kunit holds is waited for (@wait) or refused (exit 2), naming the
	holder; one whose holder is gone is named and cleared (see the top)."""
	try:
		fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
	except OSError as e:
		raise Error(f'cannot open the lock {path}: {e.strerror}') from None
	try:
		_take(printer, fd, path, what, wait, clock)
		stale = Holder.parse(_read(fd))
		if stale is not None:
			printer.print(f'{path}: a stale lock of {stale.describe()}, which ended without '
				      'releasing it: cleared')
		os.ftruncate(fd, 0)
		os.lseek(fd, 0, os.SEEK_SET)
		os.write(fd, Holder.me().text().encode())
		try:
			yield fd
		finally:
			os.ftruncate(fd, 0)
			fcntl.flock(fd, fcntl.LOCK_UN)
	finally:
		os.close(fd)

# SPDX-License-Identifier: GPL-2.0
#
# The processes pan-kunit runs: the one place that starts them (git through
# gitcmd.py, kunit.py through kunit_py.py and jobs.py, the rest
# directly), with one rule for what they read and write:
#
#   - what a process writes is read as bytes and decoded as UTF-8: stdout
#     as the caller says (Decoding), stderr always as a message is (TEXT);
#     Result.output keeps stdout's bytes;
#   - the exit status is the caller's to judge: run() never raises for it;
#   - a command that is not installed raises FileNotFoundError, or the
#     caller's Error (@missing) that names its package.
#
# Session is a process in a session of its own (kunit.py, and the make
# and QEMU it starts), killed with its whole process group.
#
# Fork is a copy of pan-kunit's own process that runs a Python function
# (selftest's test files): it starts in a millisecond, with every module
# pan-kunit imported, where a new Python takes a large part of a second.
#
# Nothing pan-kunit starts outlives it:
#
#   - a signal that ends a command (STOP_SIGNALS: ^C, SIGTERM, SIGHUP, a
#     closed terminal or a dropped ssh session, SIGQUIT) raises Stopped in
#     the main thread, once (stopping_on_signals()): what runs is stopped
#     on the way out, a process of run() with its own signal (git removes
#     its lock files on SIGTERM), then SIGKILL after a grace; a second
#     signal does not cut that short;
#   - where pan-kunit cannot act (SIGKILL, the OOM killer), the guard
#     does (guard.py).

import contextlib
import enum
import os
import select
import signal
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from types import FrameType
from typing import IO, Callable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from pan_kunit import Error
from pan_kunit.host.guard import GUARD, GRACE

# The signals that end a command, each as ^C does (stopping_on_signals()).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)

class Stopped(KeyboardInterrupt):
	"""A signal of STOP_SIGNALS ended the command: it exits 128 + the
	signal's number, as a shell reports a process a signal ended."""

	def __init__(self, signum: int) -> None:
		super().__init__(signal.Signals(signum).name)
		self.signum = signum

	@property
	def name(self) -> str:
		return signal.Signals(self.signum).name

	@property
	def status(self) -> int:
		return 128 + self.signum

_stopping = False
# While the main thread starts a child and tells the guard (_starting()), a
# stop signal waits: the child is stopped only once it is known.
_starting_depth = 0
_deferred = 0

def _stop_handler(signum: int, frame: Optional[FrameType]) -> None:
	global _stopping, _deferred
	if _stopping:
		return  # the first one's stop is under way: let it finish
	if _starting_depth:
		_deferred = _deferred or signum
		return
	_stopping = True
	raise Stopped(signum)

@contextlib.contextmanager
def _starting() -> Iterator[None]:
	"""The block starts a child and tells the guard: a stop signal (which
	Python handles in the main thread) waits until _resume(), where the
	child is known and stopped on the way out."""
	global _starting_depth
	if threading.current_thread() is not threading.main_thread():
		yield
		return
	_starting_depth += 1
	try:
		yield
	finally:
		_starting_depth -= 1

def _resume() -> None:
	"""Raises the stop signal that came while a child started, if any (in
	the main thread, which alone raises them)."""
	global _deferred
	if threading.current_thread() is threading.main_thread() and not _starting_depth and \
	   _deferred:
		signum, _deferred = _deferred, 0
		_stop_handler(signum, None)

@contextlib.contextmanager
def stopping_on_signals() -> Iterator[None]:
	"""For the time of the block (a command), each of STOP_SIGNALS raises
	Stopped in the main thread, once: a signal that comes while the first
	one's children are stopped is ignored.  The handlers before are back
	after it."""
	global _stopping, _deferred
	if threading.current_thread() is not threading.main_thread():
		yield  # only the main thread has signal handlers
		return
	before = {signum: signal.signal(signum, _stop_handler) for signum in STOP_SIGNALS}
	_stopping = False
	try:
		yield
	finally:
		for signum, handler in before.items():
			signal.signal(signum, handler)
		_stopping = False
		_deferred = 0


def _after_fork() -> None:
	"""In a copy of this process: its own guard, and it starts nothing yet."""
	global _starting_depth, _deferred
	_starting_depth = _deferred = 0
	GUARD.after_fork()

os.register_at_fork(after_in_child=_after_fork)

class Decoding(enum.Enum):
	"""How a process's stdout becomes text, as UTF-8."""
	TEXT = 'backslashreplace'   # to read and to print: a stray byte shows as \xNN
	EXACT = 'surrogateescape'   # to write back: every byte round-trips

class To(enum.Enum):
	"""Where a process's stream goes (or its stdin comes from)."""
	CAPTURE = subprocess.PIPE     # into the Result
	MERGED = subprocess.STDOUT    # stderr only: into stdout, in order
	TERMINAL = None               # pan-kunit's own, inherited
	NOWHERE = subprocess.DEVNULL  # /dev/null

Stream = Union[To, IO[bytes]]

def _fd(stream: Stream) -> Union[int, IO[bytes], None]:
	return stream.value if isinstance(stream, To) else stream

@dataclass
class Result:
	"""A process that ended."""
	args: List[str]
	returncode: int
	stdout: str = ''      # decoded as asked; '' when not captured
	stderr: str = ''      # decoded as TEXT; '' when not captured
	output: bytes = b''   # stdout as it came

	def ok(self) -> bool:
		return self.returncode == 0

def stop(child: 'subprocess.Popen[bytes]', signum: int, grace: float) -> None:
	"""Stops @child with @signum, then, @grace seconds later, SIGKILL;
	reaps it."""
	try:
		child.send_signal(signum)
		child.wait(grace)
	except subprocess.TimeoutExpired:
		child.kill()
		child.wait()

# How long a wait for a child blocks before Python looks at its signals
# again: a stop signal that comes just before the wait blocks (Python has
# noted it, and checks again only when the wait ends) is raised after at
# most this long, not when the child ends.
SIGNAL_CHECK = 0.25

def _communicate(child: 'subprocess.Popen[bytes]',
		 data: Optional[bytes]) -> Tuple[Optional[bytes], Optional[bytes]]:
	"""child.communicate(@data), its output whole, in waits of
	SIGNAL_CHECK seconds."""
	while True:
		try:
			return child.communicate(data, timeout=SIGNAL_CHECK)
		except subprocess.TimeoutExpired:
			data = None  # Popen keeps what it has not written yet

def run(cmd: Sequence[str], *, cwd: Optional[str]=None, env: Optional[Mapping[str, str]]=None,
	input: Union[str, bytes, None]=None, stdin: Stream=To.TERMINAL,
	stdout: Stream=To.CAPTURE, stderr: To=To.CAPTURE, decoding: Decoding=Decoding.TEXT,
	missing: Optional[str]=None, stop_signal: int=signal.SIGTERM,
	grace: Optional[float]=None) -> Result:
	"""Runs @cmd to its end (in @cwd, with @env, default: pan-kunit's),
	with @input (str: as UTF-8) or @stdin, and @stdout and @stderr where
	they are asked to go; its Result, whatever its exit status.  When
	@cmd[0] is not installed: Error(@missing), if given.  Stopped (a
	signal, an exception while it runs), it is stopped with @stop_signal,
	then SIGKILL after @grace seconds (default GRACE)."""
	data = input.encode('utf-8', 'surrogateescape') if isinstance(input, str) else input
	try:
		GUARD.ready()
		with _starting():
			child = subprocess.Popen(list(cmd), cwd=cwd, env=GUARD.environ(env),
						 stdin=subprocess.PIPE if data is not None else _fd(stdin),
						 stdout=_fd(stdout), stderr=_fd(stderr))
			GUARD.watch(child.pid, stop_signal)
	except FileNotFoundError:
		if missing is None:
			raise
		raise Error(missing) from None
	try:
		_resume()
		out, err = _communicate(child, data)
	except BaseException:
		stop(child, stop_signal, GRACE if grace is None else grace)
		raise
	finally:
		for stream in (child.stdin, child.stdout, child.stderr):
			if stream is not None:
				stream.close()
		if child.returncode is not None:
			GUARD.forget(child.pid)
	output = out or b''
	assert child.returncode is not None
	return Result(list(cmd), child.returncode, output.decode('utf-8', decoding.value),
		      (err or b'').decode('utf-8', Decoding.TEXT.value), output)

class Session:
	"""@cmd in a session of its own, with stdin from /dev/null and
	stdout and stderr into @log, in the environment @env adds to
	pan-kunit's, and the file descriptors @pass_fds open; kill() ends its
	whole process group."""

	def __init__(self, cmd: Sequence[str], log: IO[str], env: Mapping[str, str],
		     pass_fds: Sequence[int]=()) -> None:
		GUARD.ready()
		with _starting():
			self._proc = subprocess.Popen(list(cmd), stdin=subprocess.DEVNULL, stdout=log,
						      stderr=subprocess.STDOUT, start_new_session=True,
						      env=GUARD.environ(dict(os.environ, **env)),
						      pass_fds=tuple(pass_fds))
			GUARD.watch(self._proc.pid, group=True)
		try:
			_resume()
		except BaseException:
			self.kill(GRACE)
			raise

	@property
	def returncode(self) -> Optional[int]:
		return self._proc.returncode

	def wait(self, timeout: Optional[float]) -> bool:
		"""Waits for the process, at most @timeout seconds (in waits of
		SIGNAL_CHECK seconds): whether it ended."""
		deadline = None if timeout is None else time.monotonic() + timeout
		while True:
			left = SIGNAL_CHECK if deadline is None else deadline - time.monotonic()
			try:
				self._proc.wait(timeout=max(0.0, min(SIGNAL_CHECK, left)))
				return True
			except subprocess.TimeoutExpired:
				if deadline is not None and left <= SIGNAL_CHECK:
					return False

	def wait_to_end(self, grace: float=GRACE) -> int:
		"""Waits for the process to end, and returns its exit status; an
		exception while it waits (a stop signal) kills its whole group
		first (kill(), with @grace)."""
		try:
			self.wait(None)
		except BaseException:
			self.kill(grace)
			raise
		assert self._proc.returncode is not None
		return self._proc.returncode

	def kill(self, grace: float) -> None:
		"""SIGTERM to the process group, then, @grace seconds later,
		SIGKILL to what is left of it; reaps the process."""
		group = self._proc.pid
		deadline = time.monotonic() + grace
		try:
			os.killpg(group, signal.SIGTERM)
			while time.monotonic() < deadline:
				time.sleep(0.05)
				self._proc.poll()  # reap the leader, or the group never empties
				os.killpg(group, 0)
			os.killpg(group, signal.SIGKILL)
		except ProcessLookupError:
			pass  # the group is empty
		self._proc.wait()
		GUARD.forget(group, group=True)

class Fork:
	"""@call() in a copy of this process, with its stdout and stderr (the
	file descriptors, sys.stdout and sys.stderr) into the file @log: the
	copy exits with what @call returns, 1 if it raises."""

	def __init__(self, call: Callable[[], int], log: str) -> None:
		sys.stdout.flush()
		sys.stderr.flush()
		GUARD.ready()
		with _starting():
			self.pid = os.fork()
			if self.pid == 0:
				self._child(call, log)
			self._pidfd = os.pidfd_open(self.pid)
			GUARD.watch(self.pid)
		try:
			_resume()
		except BaseException:
			os.kill(self.pid, signal.SIGTERM)
			self.wait()
			raise

	@staticmethod
	def _child(call: Callable[[], int], log: str) -> None:
		status = 1
		try:
			fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
			os.dup2(fd, 1)
			os.dup2(fd, 2)
			os.close(fd)
			sys.stdout = sys.stderr = open(1, 'w', encoding='utf-8', errors='backslashreplace',
						       buffering=1, closefd=False)
			status = call()
		except BaseException:  # what it raised, in the log; never the caller's code
			traceback.print_exc()
		finally:
			sys.stdout.flush()
			GUARD.ends_well()
			os._exit(status)  # not the caller's code after the fork, nor its atexit

	def fileno(self) -> int:
		"""Readable once the copy ended: for ended()."""
		return self._pidfd

	def wait(self) -> int:
		"""Waits for the copy: its exit status."""
		_, status = os.waitpid(self.pid, 0)
		os.close(self._pidfd)
		GUARD.forget(self.pid)
		return os.waitstatus_to_exitcode(status)

def ended(forks: Sequence[Fork]) -> List[Fork]:
	"""Waits until one of @forks ended at least, in waits of SIGNAL_CHECK
	seconds: those that did."""
	while True:
		ready, _, _ = select.select(list(forks), [], [], SIGNAL_CHECK)
		if ready:
			return ready

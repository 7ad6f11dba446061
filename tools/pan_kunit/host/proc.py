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

import enum
import os
import select
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from typing import IO, Callable, List, Mapping, Optional, Sequence, Union

from pan_kunit import Error

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

def run(cmd: Sequence[str], *, cwd: Optional[str]=None, env: Optional[Mapping[str, str]]=None,
	input: Union[str, bytes, None]=None, stdin: Stream=To.TERMINAL,
	stdout: Stream=To.CAPTURE, stderr: To=To.CAPTURE, decoding: Decoding=Decoding.TEXT,
	missing: Optional[str]=None) -> Result:
	"""Runs @cmd to its end (in @cwd, with @env, default: pan-kunit's),
	with @input (str: as UTF-8) or @stdin, and @stdout and @stderr where
	they are asked to go; its Result, whatever its exit status.  When
	@cmd[0] is not installed: Error(@missing), if given."""
	data = input.encode('utf-8', 'surrogateescape') if isinstance(input, str) else input
	try:
		done = subprocess.run(list(cmd), cwd=cwd, env=None if env is None else dict(env),
				      input=data, stdin=None if data is not None else _fd(stdin),
				      stdout=_fd(stdout), stderr=_fd(stderr), check=False)
	except FileNotFoundError:
		if missing is None:
			raise
		raise Error(missing) from None
	output = done.stdout or b''
	return Result(list(cmd), done.returncode, output.decode('utf-8', decoding.value),
		      (done.stderr or b'').decode('utf-8', Decoding.TEXT.value), output)

class Session:
	"""@cmd in a session of its own, with stdin from /dev/null and
	stdout and stderr into @log, in the environment @env adds to
	pan-kunit's; kill() ends its whole process group."""

	def __init__(self, cmd: Sequence[str], log: IO[str], env: Mapping[str, str]) -> None:
		self._proc = subprocess.Popen(list(cmd), stdin=subprocess.DEVNULL, stdout=log,
					      stderr=subprocess.STDOUT, start_new_session=True,
					      env=dict(os.environ, **env))

	@property
	def returncode(self) -> Optional[int]:
		return self._proc.returncode

	def wait(self, timeout: Optional[float]) -> bool:
		"""Waits for the process, at most @timeout seconds: whether it ended."""
		try:
			self._proc.wait(timeout=timeout)
		except subprocess.TimeoutExpired:
			return False
		return True

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

class Fork:
	"""@call() in a copy of this process, with its stdout and stderr (the
	file descriptors, sys.stdout and sys.stderr) into the file @log: the
	copy exits with what @call returns, 1 if it raises."""

	def __init__(self, call: Callable[[], int], log: str) -> None:
		sys.stdout.flush()
		sys.stderr.flush()
		self.pid = os.fork()
		if self.pid == 0:
			self._child(call, log)
		self._pidfd = os.pidfd_open(self.pid)

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
			os._exit(status)  # not the caller's code after the fork, nor its atexit

	def fileno(self) -> int:
		"""Readable once the copy ended: for ended()."""
		return self._pidfd

	def wait(self) -> int:
		"""Waits for the copy: its exit status."""
		_, status = os.waitpid(self.pid, 0)
		os.close(self._pidfd)
		return os.waitstatus_to_exitcode(status)

def ended(forks: Sequence[Fork]) -> List[Fork]:
	"""Waits until one of @forks ended at least: those that did."""
	ready, _, _ = select.select(list(forks), [], [])
	return ready

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
#     does: one small shell per pan-kunit process, in a session of its
#     own, started with the first child, which reads what pan-kunit starts
#     from a pipe (each process, a Session's whole process group) and what
#     ended.  When pan-kunit ends, however it ends, the pipe closes; what
#     it did not see end is stopped then: its signal, and SIGKILL after the
#     grace.  Not PR_SET_PDEATHSIG: the kernel sends that to the child
#     alone (make and QEMU are kunit.py's children), when the thread that
#     forked it ends, and setting it takes a preexec_fn, which makes every
#     child a fork() of this process instead of a vfork(): 30 ms a git
#     where a plain one costs 4, for the 2,700 gits of the selftest.

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
from typing import IO, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from pan_kunit import Error

# The signals that end a command, each as ^C does (stopping_on_signals()).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
# Seconds between the signal that stops a process (its group) and SIGKILL.
GRACE = 5.0

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

def start_time(pid: int) -> str:
	"""When @pid started, in clock ticks since boot (/proc/PID/stat's
	22nd field): with the pid, what tells a process from a later one that
	reuses its number; '' when it is gone."""
	try:
		with open(f'/proc/{pid}/stat', 'rb') as f:
			fields = f.read().rsplit(b')', 1)[1].split()
	except (OSError, IndexError):
		return ''
	return fields[19].decode() if len(fields) > 19 else ''

# The guard (see the top of the file): $1 is the grace in tenths of a
# second; each line of its stdin is "+ ID START SIGNAL" (ID: pPID, or gPGID
# for a process group, which START, the start time of the process or of
# the group's leader, tells from a later one of the same number) or "- ID".
GUARD_SCRIPT = r"""
cd /
ticks=$1
ids=
while read -r op id start sig; do
	case $op in
	+) eval "start_$id=\$start sig_$id=\$sig"; ids="$ids $id" ;;
	-) unset "start_$id" "sig_$id" ;;
	esac
done
left=
for id in $ids; do
	eval "start=\${start_$id-} sig=\${sig_$id-}"
	[ -n "$start" ] || continue
	unset "start_$id"
	pid=${id#?}
	if [ -r "/proc/$pid/stat" ]; then
		read -r stat < "/proc/$pid/stat" || continue
		set -- ${stat##*) }
		[ "${20}" = "$start" ] || continue
	elif [ "$id" = "p$pid" ]; then
		continue
	fi
	case $id in g*) target=-$pid ;; *) target=$pid ;; esac
	kill -s "$sig" -- "$target" 2>/dev/null && left="$left $target"
done
i=0
while [ -n "$left" ] && [ "$i" -lt "$ticks" ]; do
	sleep 0.1
	alive=
	for target in $left; do
		kill -s 0 -- "$target" 2>/dev/null && alive="$alive $target"
	done
	left=$alive
	i=$((i + 1))
done
for target in $left; do
	kill -s KILL -- "$target" 2>/dev/null
done
"""

class Guard:
	"""The guard of this process's children (see the top of the file):
	watch() each, forget() each that ended; started with the first."""

	def __init__(self) -> None:
		self._lock = threading.Lock()
		self._fd: Optional[int] = None
		self._pid = 0
		self._watched: Dict[str, str] = {}  # ID -> its "+" line
		self.grace = GRACE

	def _start(self) -> None:
		read, write = os.pipe()
		try:
			self._pid = os.posix_spawnp('sh', [
				'sh', '-c', GUARD_SCRIPT, 'pan-kunit-guard', str(round(self.grace * 10))],
				os.environ, setsid=True, file_actions=[
					(os.POSIX_SPAWN_DUP2, read, 0),
					(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
					(os.POSIX_SPAWN_DUP2, 1, 2)])
		except BaseException:
			os.close(write)
			raise
		finally:
			os.close(read)
		self._fd = write
		for line in self._watched.values():
			os.write(write, line.encode())

	def ready(self) -> None:
		"""Starts the guard, if it does not run: before a child starts,
		so that a kill while it starts finds the guard there."""
		with self._lock:
			if self._fd is None:
				try:
					self._start()
				except OSError:
					pass  # watch() tries again

	def _send(self, line: str) -> None:
		with self._lock:
			if line.startswith('+'):
				self._watched[line.split()[1]] = line
			else:
				self._watched.pop(line.split()[1], None)
			for _ in range(2):
				try:
					if self._fd is None:
						self._start()  # with what is watched, this line too
					else:
						os.write(self._fd, line.encode())
					return
				except OSError:  # the guard is gone (killed): a new one
					self._close()

	def _close(self) -> None:
		if self._fd is not None:
			os.close(self._fd)
			self._fd = None
		if self._pid:
			try:
				os.waitpid(self._pid, os.WNOHANG)  # reaped, if it is gone
			except ChildProcessError:
				pass
			self._pid = 0

	def watch(self, pid: int, stop: int=signal.SIGTERM, group: bool=False) -> None:
		"""Has process @pid (with @group, its whole process group, which
		it leads) stopped with @stop, then SIGKILL, if pan-kunit ends
		before it forgot it."""
		start = start_time(pid)
		if start:
			kind = 'g' if group else 'p'
			self._send(f'+ {kind}{pid} {start} {signal.Signals(stop).name[3:]}\n')

	def forget(self, pid: int, group: bool=False) -> None:
		"""@pid (its group) ended: nothing for the guard to stop."""
		self._send(f'- {"g" if group else "p"}{pid}\n')

	def after_fork(self) -> None:
		"""In a copy of this process (os.fork()): the parent's guard
		watches the parent's children; the copy starts its own."""
		self._lock = threading.Lock()
		self._watched = {}
		if self._fd is not None:
			os.close(self._fd)
		self._fd = None
		self._pid = 0

GUARD = Guard()

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
			child = subprocess.Popen(list(cmd), cwd=cwd, env=None if env is None else dict(env),
						 stdin=subprocess.PIPE if data is not None else _fd(stdin),
						 stdout=_fd(stdout), stderr=_fd(stderr))
			GUARD.watch(child.pid, stop_signal)
	except FileNotFoundError:
		if missing is None:
			raise
		raise Error(missing) from None
	try:
		_resume()
		out, err = child.communicate(data)
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
						      env=dict(os.environ, **env), pass_fds=tuple(pass_fds))
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
		"""Waits for the process, at most @timeout seconds: whether it ended."""
		try:
			self._proc.wait(timeout=timeout)
		except subprocess.TimeoutExpired:
			return False
		return True

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
	"""Waits until one of @forks ended at least: those that did."""
	ready, _, _ = select.select(list(forks), [], [])
	return ready

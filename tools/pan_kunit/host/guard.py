# SPDX-License-Identifier: GPL-2.0
#
# The guard of what a pan-kunit process starts, for where pan-kunit cannot
# act itself: SIGKILL, the OOM killer (proc.py stops its children on
# every other way out).
#
# One small shell per pan-kunit process, in a session of its own, started
# with the first child, which reads what pan-kunit starts from a pipe
# (each process, a Session's whole process group) and what ended.  When
# pan-kunit ends, however it ends, the pipe closes; what it did not see
# end is stopped then: its signal, and SIGKILL after the grace.  A child
# pan-kunit started but had not yet told the guard of (killed between the
# fork and the line), and what a child of run() started in turn, carry
# GUARD_ENV in their environment, whose value names this pan-kunit: unless
# pan-kunit ended as it should (it says so with a last line, "."), the
# guard stops every process that carries it too.  Not PR_SET_PDEATHSIG:
# the kernel sends that to the child alone (make and QEMU are kunit.py's
# children), when the thread that forked it ends, and setting it takes a
# preexec_fn, which makes every child a fork() of this process instead of
# a vfork(): 30 ms a git where a plain one costs 4, for the 2,700 gits of
# the selftest.

import atexit
import os
import signal
import threading
from typing import Dict, Mapping, Optional

from pan_kunit.host import pids

# Seconds between the signal that stops a process (its group) and SIGKILL.
GRACE = 5.0
# The variable that names, in the environment of what pan-kunit starts, the
# pan-kunit that started it: its pid and start time.
GUARD_ENV = 'PAN_KUNIT_GUARD'

# The guard (see the top of the file): $1 is the grace in tenths of a
# second, $2 GUARD_ENV=VALUE as what its pan-kunit starts has it; each line
# of its stdin is "+ ID START SIGNAL" (ID: pPID, or gPGID for a process
# group, which START, the start time of the process or of the group's
# leader, tells from a later one of the same number), "- ID", or "." (the
# last: pan-kunit ends as it should).  Only SIGKILL ends it before its
# stdin does.
GUARD_SCRIPT = r"""
trap '' HUP INT QUIT TERM
cd /
ticks=$1
token=$2
ids=
clean=
while read -r op id start sig; do
	case $op in
	+) eval "start_$id=\$start sig_$id=\$sig"; ids="$ids $id" ;;
	-) unset "start_$id" "sig_$id" ;;
	.) clean=1 ;;
	esac
done
left=
if [ -z "$clean" ]; then
	for file in $(grep -lzxF "$token" /proc/[0-9]*/environ 2>/dev/null); do
		pid=${file#/proc/}
		pid=${pid%/environ}
		[ "$pid" != $$ ] && kill -s TERM -- "$pid" 2>/dev/null && left="$left $pid"
	done
fi
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
		self._token = ''
		self.grace = GRACE

	def token(self) -> str:
		"""The value of GUARD_ENV in what this pan-kunit starts: its pid
		and start time."""
		if not self._token:
			pid = os.getpid()
			self._token = f'{pid}.{pids.start_time(pid)}'
		return self._token

	def environ(self, env: Optional[Mapping[str, str]]=None) -> Dict[str, str]:
		"""@env (default: pan-kunit's) for a child, with GUARD_ENV."""
		return dict(os.environ if env is None else env, **{GUARD_ENV: self.token()})

	def _start(self) -> None:
		read, write = os.pipe()
		env = {name: value for name, value in os.environ.items() if name != GUARD_ENV}
		try:
			self._pid = os.posix_spawnp('sh', [
				'sh', '-c', GUARD_SCRIPT, 'pan-kunit-guard', str(round(self.grace * 10)),
				f'{GUARD_ENV}={self.token()}'], env, setsid=True, file_actions=[
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

	def ends_well(self) -> None:
		"""This pan-kunit ends as it should (at exit): the guard stops
		what it was told of and did not see end, nothing else."""
		with self._lock:
			if self._fd is not None:
				try:
					os.write(self._fd, b'.\n')
				except OSError:
					pass

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
		start = pids.start_time(pid)
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
		self._token = ''
		if self._fd is not None:
			os.close(self._fd)
		self._fd = None
		self._pid = 0

GUARD = Guard()
atexit.register(GUARD.ends_well)

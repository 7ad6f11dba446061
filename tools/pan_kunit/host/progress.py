# SPDX-License-Identifier: GPL-2.0
#
# Progress of the long runs: builds, boots, and the steps of bisect and
# mutants.
#
# Progress says on the status line of the session's Printer (printer.py)
# what runs: each build with its elapsed time and the objects it wrote so
# far, the boots, and the step of a bisect or mutants run with the time
# left.  kunit.py sends make's output
# to /dev/null, so its build log has no CC lines to count: an object is a
# .o file of the build directory written since the build started.  The
# caller polls (poll(), e.g. once a second while it waits for the jobs),
# so no thread of its own is needed.  When stdout is not a terminal (a CI
# log) there is no status line, only the normal lines: at most one per
# build start and end, per boot end, and per step or mutant end.

import os
import threading
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

from pan_kunit.host.printer import Printer

# kunit.py's line when make starts, after the kconfig was written.
MAKE_STARTED = 'Building with:'
# Seconds between two polls of the builds while jobs run.
POLL_SECONDS = 1.0
# A build's objects are those written since it started, less this: the
# kernel stamps files from a clock that lags time.time() by up to a tick.
MTIME_SLACK_NS = 50_000_000

def duration(seconds: float) -> str:
	seconds = int(round(seconds))
	if seconds < 60:
		return f'{seconds} s'
	if seconds < 3600:
		return f'{seconds // 60} min {seconds % 60:02d} s'
	return f'{seconds // 3600} h {seconds // 60 % 60:02d} min'

def _clock(seconds: float) -> str:
	seconds = int(seconds)
	return f'{seconds // 60}:{seconds % 60:02d}'

@dataclass
class _Build:
	label: str
	build_dir: str
	log: str
	start: float      # on the clock
	since_ns: int     # wall clock, to compare with mtimes
	objects: int = 0
	making: bool = False
	expected: int = 0  # the objects it will write, if known (a build from scratch)
	make_start: float = 0.0  # on the clock, when make started

def count_objects(build_dir: str, since_ns: int) -> int:
	"""The .o files under @build_dir written at or after @since_ns."""
	count = 0
	for root, _, files in os.walk(build_dir):
		for name in files:
			if name.endswith('.o'):
				try:
					if os.stat(os.path.join(root, name)).st_mtime_ns >= since_ns:
						count += 1
				except OSError:
					pass  # removed while we looked
	return count

def _make_started(log: str) -> bool:
	try:
		with open(log, errors='replace') as f:
			return MAKE_STARTED in f.read()
	except OSError:
		return False

# How many objects a build must have written before its time left is told.
MIN_OBJECTS = 20

def build_left(objects: int, expected: int, making: float) -> Optional[float]:
	"""The time a build that wrote @objects of its @expected in @making
	seconds of make has left, at the rate so far; None while unknown."""
	if not expected or objects < MIN_OBJECTS or making <= 0:
		return None
	return max(expected - objects, 0) * making / objects

class Eta:
	"""The time a run of @total steps has left, from the steps done so
	far: the mean of the steps done times the steps left.  The first
	step (the start of a bisect, the baseline of mutants) builds more
	than the others, so once another step is done it no longer counts."""

	def __init__(self, total: int) -> None:
		self.total = total
		self._done: List[float] = []

	def done(self, elapsed: float) -> None:
		self._done.append(elapsed)

	def skip(self) -> None:
		"""A step that will not run after all (a mutant that does not apply)."""
		self.total -= 1

	def left(self) -> Optional[float]:
		if not self._done or len(self._done) >= self.total:
			return None
		counted = self._done[1:] or self._done
		return sum(counted) / len(counted) * (self.total - len(self._done))

	def text(self) -> str:
		"""'about 3 min 20 s left', or '' at the end."""
		left = self.left()
		return '' if left is None else f'about {duration(left)} left'

class Progress:
	"""What runs, on the status line of @printer."""

	def __init__(self, printer: Printer,
		     clock: Callable[[], float]=time.monotonic,
		     wall_ns: Callable[[], int]=time.time_ns) -> None:
		self._printer = printer
		self._clock = clock
		self._wall_ns = wall_ns
		self._lock = threading.RLock()
		self._builds: Dict[str, _Build] = {}
		self._boots: Dict[str, float] = {}    # booting: config -> start
		self._booted: List[str] = []          # "config: status"
		self._task = ''
		self._eta = ''

	@property
	def printer(self) -> Printer:
		return self._printer

	@property
	def live(self) -> bool:
		return self._printer.live

	def line(self, text: str) -> None:
		"""A normal line, in one write: boots end in threads of their own."""
		self._printer.print(text)

	def task(self, text: str, eta: str='') -> None:
		"""What the builds and boots are for, e.g. 'step 3/10 0003-foo',
		and the time left; '' when it is done."""
		with self._lock:
			self._task, self._eta = text, eta
			self._show()

	def build_started(self, label: str, build_dir: str, log: str, expected: int=0) -> None:
		"""A build that writes @expected objects (0: unknown)."""
		with self._lock:
			self._builds[label] = _Build(label, build_dir, log, self._clock(),
						     self._wall_ns() - MTIME_SLACK_NS, expected=expected)
			self._show()

	def build_ended(self, label: str) -> int:
		"""Stops showing the build; returns the objects it wrote."""
		with self._lock:
			build = self._builds.pop(label)
			self._show()
		return count_objects(build.build_dir, build.since_ns)

	def boots_started(self, names: List[str]) -> None:
		with self._lock:
			self._boots = {name: self._clock() for name in names}
			self._booted = []
			self._show()

	def boot_ended(self, name: str, status: str, elapsed: float, quiet: bool=False) -> None:
		"""A line for the boot unless @quiet (a step of bisect or mutants,
		which has a line of its own), and its status on the status line."""
		with self._lock:
			self._boots.pop(name, None)
			self._booted.append(f'{name}: {status}')
			if not quiet:
				self.line(f'boot {name}: {status} ({elapsed:.1f} s)')
			self._show()

	def poll(self) -> None:
		"""Reads how far each build got, and shows it: on a terminal only."""
		if not self.live:
			return
		with self._lock:
			builds = list(self._builds.values())
		for build in builds:
			if not build.making and _make_started(build.log):
				build.making, build.make_start = True, self._clock()
			if build.making:
				build.objects = count_objects(build.build_dir, build.since_ns)
		with self._lock:
			self._show()

	def status(self) -> str:
		"""The status line: the task, each build, the boots, the time left."""
		now = self._clock()
		parts = [self._task] if self._task else []
		for build in self._builds.values():
			what = f'{build.objects} objects' if build.making else 'configuring'
			if build.making and build.expected:
				what = f'{build.objects}/{build.expected} objects'
			left = build_left(build.objects, build.expected, now - build.make_start)
			parts.append(f'building {build.label}: {what}, {_clock(now - build.start)}' +
				     (f', about {duration(left)} left' if left is not None else ''))
		if self._boots:
			start = min(self._boots.values())
			parts.append(f'booting {", ".join(self._boots)} {_clock(now - start)}' +
				     (f' ({", ".join(self._booted)})' if self._booted else ''))
		if self._eta:
			parts.append(self._eta)
		return ' | '.join(parts)

	def boots_ended(self) -> None:
		with self._lock:
			self._boots, self._booted = {}, []
			self._show()

	def _show(self) -> None:
		self._printer.status(self.status())

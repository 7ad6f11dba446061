# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit selftest`: the unit tests of this tool, tools/*_test.py, in
# workers, copies of selftest's process (proc.Fork), two at a time per
# CPU with the type check (the end-to-end files spend a third of their
# time waiting for the gits and fake kunit.py processes they start), as
# the kernel's tools/testing/kunit/run_checks.py runs its checks in
# parallel.  Selftest has imported the tool and unittest.mock once for
# all the workers: a new Python for each would spend more time importing
# them than most files spend testing; for the end-to-end layer it has
# also made the fixtures the files share (FIXTURES: the fake tree, set up
# with git), once for all.  Each worker takes the next file from a queue
# they share, the longest first (as the last run timed them:
# selftest_times.py), and runs it, then the next: not a copy
# of the process per file, which on a virtual machine costs 10-50 ms of
# CPU to make and to end, more than most files spend testing.  A file
# that kills its worker fails, alone: another worker takes the files
# left.
# A file's tests run:
#
#   - without the variables that point git at a repository
#     (gitcmd.GIT_LOCAL_ENV): run from a git hook or `git rebase -x`, the
#     tests' own gits, which make repositories of their own, would
#     otherwise reinitialise and commit into the repository that ran them;
#   - without the caller's summary file: the commands they run must not
#     add to it;
#   - with a temporary directory of their own, removed after them, however
#     the file ended: on a RAM filesystem when the machine has one
#     (scratch_dir()), as they make and remove a few thousand files and
#     directories, and a disk's filesystem makes them wait for its
#     journal, seconds on a busy machine.
#
# Beside the tests, in a copy of its own, selftest runs the type check:
# Debian's mypy on the tool and its tests, as tools/mypy.ini says (its
# cache, tools/.mypy_cache, makes a check after an edit take a second),
# started first, while selftest makes the end-to-end fixtures alone.
# Its time is reported on a line of its own; it counts in the closing
# tally as one passed check, or as one failure per error it finds.
#
# The tests come in three layers (Layer), each costlier than the one
# before it; a run has a layer and those before it, and the test files
# see the last in LAYER_ENV and skip the tests of the layers after it
# (testlib.end_to_end and testlib.slow mark them):
#
#   - unit: functions on file fixtures (`selftest --quick`);
#   - end-to-end: whole commands with the fake kunit_tool, trees set up
#     with git, Pythons and compilers of their own (`selftest`, what a
#     developer runs after each edit);
#   - slow: each command ended at each of its stages by signals or a full
#     disk and run again, bisect, mutants and export end to end, a tree
#     of the user's own, a command's every shard and their merge, the CI
#     pipelines (`selftest --all`, which CI runs): each test many commands.

import argparse
import functools
import gc
import glob
import importlib
import io
import json
import os
import re
import select
import signal
import struct
import sys
import tempfile
import time
import traceback
import unittest
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from pan_kunit import StrEnum
from pan_kunit.commands import selftest_times
from pan_kunit.host import gitcmd, proc, summary
from pan_kunit.host.printer import Printer

class Layer(StrEnum):
	"""A layer of the tests, in the order of their cost: a run of one
	runs the layers before it too."""
	UNIT = 'unit'
	END_TO_END = 'end-to-end'
	SLOW = 'slow'

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# What the closing line says a run of each layer ran.
LAYERS_RUN = {Layer.UNIT: 'the unit layer (--all: every layer)',
	      Layer.END_TO_END: 'the unit and end-to-end layers (--all: the slow one too)',
	      Layer.SLOW: 'every layer'}
# The last layer of the run, which the test files see; unset (python3 -m
# unittest), every layer.
LAYER_ENV = 'PAN_KUNIT_SELFTEST_LAYER'
# What every test file imports, imported once before the copies are made
# (testlib too, with LAYER_ENV set for it: FIXTURES).
PRELOAD = ('unittest.mock', 'pan_kunit.commands.cli')
# The module of TOOLS_DIR that every test file imports, imported before
# the copies too (in each copy, it cost 40-60 ms of CPU, loaded), and its
# function that makes what the end-to-end tests share (the fake source's
# tarball, the tree set up of it with git: half a second of CPU): called
# once, before the copies are made, for the files to share them.
FIXTURES = ('testlib', 'make_fixtures')
# The type check, run in TOOLS_DIR, and its job's name among the test files'.
TYPECHECK = 'mypy'
MYPY = ['mypy', '--config-file', 'mypy.ini']
NO_MYPY = 'mypy is not installed (Debian package mypy, which tools/pan-kunit setup installs)'
_MYPY_ERROR = re.compile(r'^\S[^:\n]*:[0-9]+: error: ', re.M)
# A RAM filesystem, as Debian mounts one, and where to read that it is.
RAM_DIR = '/dev/shm'
MOUNTS = '/proc/mounts'

@dataclass
class FileResult:
	"""What one test file, or the type check, ran."""
	name: str
	tests: int
	failed: int     # failures, errors and unexpected successes
	skipped: int
	elapsed: float
	output: str     # its unittest output, with what its tests printed
	ended: float = 0.0  # time.monotonic() when it ended

def add_opts(parser: argparse.ArgumentParser) -> None:
	layers = parser.add_mutually_exclusive_group()
	layers.add_argument('--quick', dest='layer', action='store_const', const=Layer.UNIT,
			    default=Layer.END_TO_END,
			    help='the unit layer only: skip the end-to-end and slow tests')
	layers.add_argument('--all', dest='layer', action='store_const', const=Layer.SLOW,
			    help='every layer, the slow one too (what CI runs; minutes): commands ended '
			    'by signals or a full disk, bisect, mutants and export end to end, '
			    'sharded commands and their merges, the CI pipelines')

def layer_skipped(layer: Layer) -> bool:
	"""Whether the tests of @layer are skipped in this process: LAYER_ENV
	names a layer before it."""
	last = os.environ.get(LAYER_ENV, '')
	order = [str(each) for each in Layer]
	return last in order and order.index(last) < order.index(layer)

def scratch_dir() -> Optional[str]:
	"""Where the test files' temporary directories go: RAM_DIR when it
	is a tmpfs that runs programs (the tests run scripts of their own),
	unless the caller set TMPDIR; else None, tempfile's choice."""
	if os.environ.get('TMPDIR'):
		return None
	options = None
	try:
		with open(MOUNTS) as f:
			for line in f:
				fields = line.split()
				if len(fields) > 3 and fields[1] == RAM_DIR:
					options = fields[3].split(',') if fields[2] == 'tmpfs' else None
	except OSError:
		return None
	if options is None or 'noexec' in options or 'ro' in options:
		return None
	return RAM_DIR if os.access(RAM_DIR, os.W_OK | os.X_OK) else None

def _jobs() -> int:
	return 2 * (len(os.sched_getaffinity(0)) or 1)

class _Stream(io.StringIO):
	"""sys.stderr, as unittest's results write to it (a TextIO, with
	writeln()), with no `Ran N tests in T s` of a TextTestRunner."""
	def write(self, text: str) -> int:
		return sys.stderr.write(text)

	def writeln(self, text: str='') -> None:
		sys.stderr.write(text + '\n')

	def flush(self) -> None:
		sys.stderr.flush()

def _load(path: str) -> unittest.TestSuite:
	"""The tests of the file @path, imported as a module of its directory,
	as unittest's discover() imports it (without walking the packages
	beside it: pan_kunit/, for each file)."""
	directory, name = os.path.split(path)
	if directory not in sys.path:
		sys.path.insert(0, directory)
	module = importlib.import_module(name[:-len('.py')])
	found = os.path.realpath(getattr(module, '__file__', None) or '')
	if found != os.path.realpath(path):
		raise ImportError(f'{name} was imported from {found}, not {path}')
	return unittest.TestLoader().loadTestsFromModule(module)

def _test_file(path: str, result_file: str, tmp: str, layer: Layer) -> int:
	"""In a worker (_worker()): unittest on the file @path, up to @layer,
	its counts into @result_file, its temporary files in @tmp."""
	os.environ[LAYER_ENV] = layer
	os.environ['TMPDIR'] = tempfile.tempdir = tmp
	result = unittest.TextTestResult(_Stream(), descriptions=True, verbosity=1)
	try:
		suite = _load(path)
	except unittest.SkipTest as skip:  # as discover() counts it
		result.testsRun, result.skipped = 1, [(unittest.TestCase(), str(skip))]
		sys.stderr.write(f'{os.path.basename(path)}: skipped: {skip}\n')
	except Exception:  # as discover() counts it: one error, its traceback
		traceback.print_exc()
		result.testsRun, result.errors = 1, [(unittest.TestCase(), '')]
	else:
		suite.run(result)
		print(file=sys.stderr)
		result.printErrors()
	failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
	with open(result_file, 'w') as f:
		json.dump({'tests': result.testsRun, 'failed': failed, 'skipped': len(result.skipped)}, f)
	return 0 if failed == 0 else 1

# What a worker reads from the queue for each file: its index, in
# QUEUE_FORMAT, and what it says of each in a line of the events pipe:
# its pid, START or DONE, the index.
QUEUE_FORMAT = '<I'
START = 'start'
DONE = 'done'

def _worker(paths: List[str], queue: int, events: int, files: str, layer: Layer) -> int:
	"""In a copy of selftest's process: the test files of @paths whose
	indexes it reads from the pipe @queue (which the other workers read
	too), one after another, till it is empty; each file's output in
	@files/NAME.log, its counts in NAME.json, in a temporary directory
	of its own, @files/NAME.tmp; a line to the pipe @events as each file
	starts and ends (a line is written at once: the workers share it).
	Between the files, what a file may change of the process (the
	environment, the working directory, sys.path) is put back."""
	for name in (summary.ENV,) + gitcmd.GIT_LOCAL_ENV:
		os.environ.pop(name, None)
	environ, cwd, path_before = dict(os.environ), os.getcwd(), list(sys.path)
	size = struct.calcsize(QUEUE_FORMAT)
	while True:
		record = os.read(queue, size)
		if len(record) < size:
			return 0
		index, = struct.unpack(QUEUE_FORMAT, record)
		name = os.path.basename(paths[index])
		os.write(events, f'{os.getpid()} {START} {index}\n'.encode())
		sys.stdout.flush()
		fd = os.open(os.path.join(files, name + '.log'), os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
			     0o600)
		saved = os.dup(1)
		os.dup2(fd, 1)
		os.dup2(fd, 2)
		os.close(fd)
		tmp = os.path.join(files, name + '.tmp')
		os.mkdir(tmp)
		try:
			_test_file(paths[index], os.path.join(files, name + '.json'), tmp, layer)
		except (Exception, SystemExit):  # the file's failure (no counts): not the others'
			traceback.print_exc()
		finally:
			sys.stdout.flush()
			os.dup2(saved, 1)
			os.dup2(saved, 2)
			os.close(saved)
			os.environ.clear()
			os.environ.update(environ)
			os.chdir(cwd)
			sys.path[:] = path_before
			tempfile.tempdir = None
		os.write(events, f'{os.getpid()} {DONE} {index}\n'.encode())

def _typecheck(result_file: str) -> int:
	"""In a copy of selftest's process: MYPY, its output printed, its
	errors counted into @result_file."""
	try:
		done = proc.run(MYPY, cwd=TOOLS_DIR, stdin=proc.To.NOWHERE, stderr=proc.To.MERGED)
		output, ok = done.stdout, done.ok()
	except FileNotFoundError:
		output, ok = NO_MYPY + '\n', False
	sys.stdout.write(output)
	failed = 0 if ok else max(len(_MYPY_ERROR.findall(output)), 1)
	with open(result_file, 'w') as f:
		json.dump({'tests': max(failed, 1), 'failed': failed, 'skipped': 0}, f)
	return 0 if ok else 1

def _result(name: str, files: str, status: int, elapsed: float) -> FileResult:
	try:
		with open(os.path.join(files, name + '.log'), encoding='utf-8',
			  errors='backslashreplace') as f:
			output = f.read()
	except FileNotFoundError:  # never started: its worker died before
		output = ''
	try:
		with open(os.path.join(files, name + '.json')) as f:
			counts: Dict[str, int] = json.load(f)
	except (FileNotFoundError, ValueError):
		# It died before its tally: one failure, whatever it ran.
		return FileResult(name, 1, 1, 0, elapsed,
				  output + f'\n{name}: exited {status} without its result\n')
	return FileResult(name, counts['tests'], counts['failed'], counts['skipped'], elapsed,
			  output)

class _Run:
	"""The type check (_typecheck()) in a copy of this process, and the
	test files of @paths in workers (_worker()), copies too, that take
	them from one queue in the order given, _jobs() at a time with the
	type check: a copy for each file would cost more than most files
	test (on a virtual machine, a copy of this process costs 10-50 ms of
	CPU to make and to end).  A worker that dies fails the file it was
	running, and another takes its place while files are left; a file
	that no worker ran fails too."""

	def __init__(self, printer: Printer, paths: List[str], files: str, layer: Layer) -> None:
		self.printer = printer
		self.paths = paths
		self.files = files
		self.layer = layer
		self.found: List[FileResult] = []
		self.forks: Dict[proc.Fork, str] = {}  # the type check's, and each worker's ''
		self.running: Dict[int, Tuple[int, float]] = {}  # worker's pid: file, its start
		self.begun = 0
		self.workers = 0
		self.at_once = 0  # workers at a time
		self.checking = 0.0  # time.monotonic() when the type check began
		self._events = b''
		self.queue = self.events = self.tell = -1

	def _worker(self) -> None:
		self.workers += 1
		log = os.path.join(self.files, f'worker-{self.workers}.log')
		self.forks[proc.Fork(functools.partial(_worker, self.paths, self.queue, self.tell,
						       self.files, self.layer), log)] = ''

	def _done(self, result: FileResult) -> None:
		result.ended = time.monotonic()
		self.found.append(result)
		if result.name != TYPECHECK:
			self.printer.print_stderr(
				f'{result.name}: {result.elapsed:.1f} s, {result.tests} tests' +
				(f', {result.skipped} skipped' if result.skipped else '') +
				(f', {result.failed} FAILED' if result.failed else ''))

	def _read_events(self) -> None:
		"""What the workers said (all of it, once a worker ended: the
		lines it wrote before)."""
		while select.select([self.events], [], [], 0)[0]:
			self._events += os.read(self.events, 65536)
			*lines, rest = self._events.split(b'\n')
			self._events = rest
			for line in lines:
				pid, event, index = line.decode().split()
				if event == START:
					self.running[int(pid)] = int(index), time.monotonic()
					self.begun += 1
				else:
					number, began = self.running.pop(int(pid))
					self._done(_result(os.path.basename(self.paths[number]), self.files, 0,
							   time.monotonic() - began))

	def typecheck(self) -> None:
		"""Starts the type check, before run(): it needs none of what
		selftest makes for the files, and runs while it makes it."""
		self.checking = time.monotonic()
		self.forks[proc.Fork(functools.partial(
			_typecheck, os.path.join(self.files, TYPECHECK + '.json')),
				     os.path.join(self.files, TYPECHECK + '.log'))] = TYPECHECK

	def abandon(self) -> None:
		"""Stops and reaps what typecheck() started, when run() will not
		(selftest could not make what the files share)."""
		for fork in self.forks:
			os.kill(fork.pid, signal.SIGTERM)
			fork.wait()
		self.forks.clear()

	def run(self) -> List[FileResult]:
		self.queue, feed = os.pipe()
		self.events, self.tell = os.pipe()
		try:
			os.write(feed, b''.join(struct.pack(QUEUE_FORMAT, index)
						for index in range(len(self.paths))))
			os.close(feed)
			self.at_once = min(max(_jobs() - len(self.forks), 1), len(self.paths))
			for _ in range(self.at_once):
				self._worker()
			while self.forks:
				ready = select.select([self.events] + list(self.forks), [], [])[0]
				self._read_events()
				for fork in ready:
					if fork == self.events:
						continue
					assert isinstance(fork, proc.Fork)
					name = self.forks.pop(fork)
					status = fork.wait()
					if name:
						self._done(_result(name, self.files, status,
								   time.monotonic() - self.checking))
						continue
					if fork.pid in self.running:  # died in a file
						number, began = self.running.pop(fork.pid)
						self._done(_result(os.path.basename(self.paths[number]), self.files,
								   status, time.monotonic() - began))
					if (status != 0 and self.begun < len(self.paths) and
					    self.workers < 2 * len(self.paths)):
						self._worker()
		finally:
			for fd in (self.queue, self.events, self.tell):
				os.close(fd)
		ran = {result.name for result in self.found}
		for path in self.paths:
			if os.path.basename(path) not in ran:
				self._done(FileResult(os.path.basename(path), 1, 1, 0, 0.0,
						      f'{os.path.basename(path)}: not run: its worker died\n' +
						      self._worker_logs()))
		return self.found

	def _worker_logs(self) -> str:
		"""What the workers printed outside the files (why one died)."""
		found = ''
		for number in range(1, self.workers + 1):
			with open(os.path.join(self.files, f'worker-{number}.log'), encoding='utf-8',
				  errors='backslashreplace') as f:
				found += f.read()
		return found

def _preload_fixtures(files: str, layer: Layer) -> None:
	"""Imports FIXTURES's module, if TOOLS_DIR has it, and unless @layer
	is the unit layer, calls its function, its fixtures in @files.  The
	module reads LAYER_ENV as it is imported, as the test files do in
	their copies: it sees @layer, as they do (a process that imported it
	before, with another layer, would keep that one's markers: selftest's
	own tests give it no module of that name)."""
	module, function = FIXTURES
	if not os.path.isfile(os.path.join(TOOLS_DIR, module + '.py')):
		return
	saved = os.environ.get(LAYER_ENV), tempfile.tempdir
	os.environ[LAYER_ENV] = layer
	if TOOLS_DIR not in sys.path:
		sys.path.insert(0, TOOLS_DIR)  # as discover() puts it, in the copies
	try:
		tempfile.tempdir = files
		fixtures = importlib.import_module(module)
		if layer != Layer.UNIT:
			getattr(fixtures, function)()
	finally:
		tempfile.tempdir = saved[1]
		if saved[0] is None:
			os.environ.pop(LAYER_ENV, None)
		else:
			os.environ[LAYER_ENV] = saved[0]

def selftest(printer: Printer, layer: Layer=Layer.END_TO_END, typecheck: bool=True) -> int:
	"""Runs the type check (unless not @typecheck) and every test file
	of TOOLS_DIR, the longest first (selftest_times.order()), their tests
	of @layer and the layers before it, and closes with the tally, as the
	other commands do, instead of unittest's `Ran N tests in T s`."""
	paths = selftest_times.order(TOOLS_DIR, glob.glob(os.path.join(TOOLS_DIR, '*_test.py')),
				     layer)
	start = time.monotonic()
	for name in PRELOAD:
		importlib.import_module(name)
	with tempfile.TemporaryDirectory(prefix='pan-kunit-selftest-', dir=scratch_dir()) as files:
		run = _Run(printer, paths, files, layer)
		if typecheck:
			run.typecheck()  # beside the fixtures, which this process alone makes
		try:
			_preload_fixtures(files, layer)
		except BaseException:
			run.abandon()
			raise
		# What the copies share stays out of their garbage collections,
		# which would otherwise touch (and copy) all of it.  A selftest
		# run in a copy (selftest_test.py's, a dozen) finds what its
		# parent froze still frozen, and leaves it so: unfrozen, it
		# would be walked by each collection after, each of these runs'
		# too (75 ms each, most of what such a run cost).
		frozen = gc.get_freeze_count() > 0
		gc.collect()
		gc.freeze()
		try:
			found = run.run()
		finally:
			if not frozen:
				gc.unfreeze()
	checks = [r for r in found if r.name == TYPECHECK]
	found = [r for r in found if r.name != TYPECHECK]
	selftest_times.record(TOOLS_DIR, layer, {r.name: r.elapsed for r in found})
	for done in sorted(found, key=lambda r: r.name) + checks:
		if done.failed:
			printer.print_stderr(done.output, end='')
	tests = sum(r.tests for r in found)
	failed = sum(r.failed for r in found)
	skipped = sum(r.skipped for r in found)
	# Two lines, each within 80 columns whatever the counts.
	printer.print(f'selftest took {max([r.ended for r in found], default=start) - start:.1f} s: '
		      f'{tests} unit tests' + (f' ({skipped} skipped)' if skipped else '') +
		      f', {len(paths)} files, {run.at_once} at a time')
	printer.print(f'ran {LAYERS_RUN[layer]}')
	for check in checks:
		printer.print(f'mypy took {check.elapsed:.1f} s: ' +
			      (f'{check.failed} error{"s" if check.failed > 1 else ""}' if check.failed
			       else 'no errors') + ' (tools/mypy.ini)')
		tests, failed = tests + check.tests, failed + check.failed
	summary.report(printer, summary.Tally('selftest', tests - failed - skipped, failed))
	return 0 if failed == 0 else 1

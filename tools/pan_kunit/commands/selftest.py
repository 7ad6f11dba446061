# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit selftest`: the unit tests of this tool, tools/*_test.py, each
# file in a process of its own, two at a time per CPU (the end-to-end
# files spend a third of their time waiting for the gits and fake
# kunit.py processes they start), as the kernel's
# tools/testing/kunit/run_checks.py runs its checks in parallel.  The
# process is a copy of selftest's (proc.Fork), which has imported the
# tool and unittest.mock once for all the files: a new Python for each
# would spend more time importing them than most files spend testing;
# for the end-to-end layer it has also made the fixtures the files share
# (FIXTURES: the fake tree, set up with git), once for all.
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
# cache, tools/.mypy_cache, makes a check after an edit take a second).
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
import glob
import importlib
import io
import json
import os
import re
import sys
import tempfile
import time
import unittest
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from pan_kunit import StrEnum
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

def _test_file(path: str, result_file: str, tmp: str, layer: Layer) -> int:
	"""In the copy of selftest's process: unittest on the file @path, up
	to @layer, its counts into @result_file."""
	for name in (summary.ENV,) + gitcmd.GIT_LOCAL_ENV:
		os.environ.pop(name, None)
	os.environ[LAYER_ENV] = layer
	os.environ['TMPDIR'] = tempfile.tempdir = tmp
	suite = unittest.TestLoader().discover(os.path.dirname(path),
					       pattern=os.path.basename(path))
	result = unittest.TextTestResult(_Stream(), descriptions=True, verbosity=1)
	suite.run(result)
	print(file=sys.stderr)
	result.printErrors()
	failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
	with open(result_file, 'w') as f:
		json.dump({'tests': result.testsRun, 'failed': failed, 'skipped': len(result.skipped)}, f)
	return 0 if failed == 0 else 1

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
	with open(os.path.join(files, name + '.log'), encoding='utf-8',
		  errors='backslashreplace') as f:
		output = f.read()
	try:
		with open(os.path.join(files, name + '.json')) as f:
			counts: Dict[str, int] = json.load(f)
	except (FileNotFoundError, ValueError):
		# It died before its tally: one failure, whatever it ran.
		return FileResult(name, 1, 1, 0, elapsed,
				  output + f'\n{name}: exited {status} without its result\n')
	return FileResult(name, counts['tests'], counts['failed'], counts['skipped'], elapsed,
			  output)

def _run(printer: Printer, jobs: List[Tuple[str, Callable[[str], int]]],
	 files: str) -> List[FileResult]:
	"""Runs each job of @jobs, a name and a function of the file its
	counts go to, in a copy of this process, at most _jobs() at a time,
	in the order given."""
	found: List[FileResult] = []
	running: Dict[proc.Fork, str] = {}
	started: Dict[str, float] = {}
	pending = list(jobs)
	while pending or running:
		while pending and len(running) < _jobs():
			name, call = pending.pop(0)
			started[name] = time.monotonic()
			running[proc.Fork(functools.partial(call, os.path.join(files, name + '.json')),
					  os.path.join(files, name + '.log'))] = name
		for fork in proc.ended(list(running)):
			name = running.pop(fork)
			status = fork.wait()
			found.append(_result(name, files, status, time.monotonic() - started[name]))
			found[-1].ended = time.monotonic()
			if name != TYPECHECK:
				done = found[-1]
				printer.print_stderr(
					f'{done.name}: {done.elapsed:.1f} s, {done.tests} tests' +
					(f', {done.skipped} skipped' if done.skipped else '') +
					(f', {done.failed} FAILED' if done.failed else ''))
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

def _test_job(path: str, files: str, layer: Layer) -> Tuple[str, Callable[[str], int]]:
	name = os.path.basename(path)
	tmp = os.path.join(files, name + '.tmp')
	os.mkdir(tmp)
	return name, lambda result_file: _test_file(path, result_file, tmp, layer)

def selftest(printer: Printer, layer: Layer=Layer.END_TO_END, typecheck: bool=True) -> int:
	"""Runs the type check (unless not @typecheck) and every test file
	of TOOLS_DIR, the biggest first (they take the longest), their tests
	of @layer and the layers before it, and closes with the tally, as the
	other commands do, instead of unittest's `Ran N tests in T s`."""
	paths = sorted(glob.glob(os.path.join(TOOLS_DIR, '*_test.py')),
		       key=lambda p: (-os.path.getsize(p), p))
	start = time.monotonic()
	for name in PRELOAD:
		importlib.import_module(name)
	with tempfile.TemporaryDirectory(prefix='pan-kunit-selftest-', dir=scratch_dir()) as files:
		_preload_fixtures(files, layer)
		jobs = [(TYPECHECK, _typecheck)] if typecheck else []
		found = _run(printer, jobs + [_test_job(path, files, layer) for path in paths], files)
	checks = [r for r in found if r.name == TYPECHECK]
	found = [r for r in found if r.name != TYPECHECK]
	for done in sorted(found, key=lambda r: r.name) + checks:
		if done.failed:
			printer.print_stderr(done.output, end='')
	tests = sum(r.tests for r in found)
	failed = sum(r.failed for r in found)
	skipped = sum(r.skipped for r in found)
	printer.print(f'selftest took {max([r.ended for r in found], default=start) - start:.1f} s '
		      f'for {tests} unit tests' + (f' ({skipped} skipped)' if skipped else '') +
		      f', {len(paths)} files, {_jobs()} at a time, {LAYERS_RUN[layer]}')
	for check in checks:
		printer.print(f'mypy took {check.elapsed:.1f} s: ' +
			      (f'{check.failed} error{"s" if check.failed > 1 else ""}' if check.failed
			       else 'no errors') + ' (tools/mypy.ini)')
		tests, failed = tests + check.tests, failed + check.failed
	summary.report(printer, summary.Tally('selftest', tests - failed - skipped, failed))
	return 0 if failed == 0 else 1

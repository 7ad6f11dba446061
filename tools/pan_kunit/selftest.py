# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit selftest`: the unit tests of this tool, tools/*_test.py, each
# file in a process of its own, as many at a time as there are CPUs, as
# the kernel's tools/testing/kunit/run_checks.py runs its checks.  The
# process is a copy of selftest's (proc.Fork), which has imported the
# tool and unittest.mock once for all the files: a new Python for each
# would spend more time importing them than most files spend testing.  A file's tests run:
#
#   - without the variables that point git at a repository
#     (gitcmd.GIT_LOCAL_ENV): run from a git hook or `git rebase -x`, the
#     tests' own gits, which make repositories of their own, would
#     otherwise reinitialise and commit into the repository that ran them;
#   - without the caller's summary file: the commands they run must not
#     add to it;
#   - with a temporary directory of their own, removed after them, however
#     the file ended.
#
# `selftest --quick` runs the unit layer alone: the test files see
# QUICK_ENV=1, and skip the tests marked end to end (testlib.end_to_end:
# the ones that run a whole command with the fake kunit_tool, set a tree
# up with git, or start a Python or a compiler of their own).

import argparse
import functools
import glob
import importlib
import io
import json
import os
import sys
import tempfile
import time
import unittest
from dataclasses import dataclass
from typing import Dict, List

from pan_kunit import gitcmd, proc, summary

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUICK_ENV = 'PAN_KUNIT_SELFTEST_QUICK'
# What every test file imports, imported once before the copies are made
# (not testlib: its end_to_end reads QUICK_ENV as the files import it).
PRELOAD = ('unittest.mock', 'pan_kunit.cli')

@dataclass
class FileResult:
	"""What one test file ran."""
	name: str
	tests: int
	failed: int     # failures, errors and unexpected successes
	skipped: int
	elapsed: float
	output: str     # its unittest output, with what its tests printed

def add_opts(parser: argparse.ArgumentParser) -> None:
	parser.add_argument('--quick', action='store_true',
			    help='the unit layer only: skip the end-to-end tests')

def _jobs() -> int:
	return len(os.sched_getaffinity(0)) or 1

class _Stream(io.StringIO):
	"""sys.stderr, as unittest's results write to it (a TextIO, with
	writeln()), with no `Ran N tests in T s` of a TextTestRunner."""
	def write(self, text: str) -> int:
		return sys.stderr.write(text)

	def writeln(self, text: str='') -> None:
		sys.stderr.write(text + '\n')

	def flush(self) -> None:
		sys.stderr.flush()

def _test_file(path: str, result_file: str, tmp: str, quick: bool) -> int:
	"""In the copy of selftest's process: unittest on the file @path,
	its counts into @result_file."""
	for name in (summary.ENV, QUICK_ENV) + gitcmd.GIT_LOCAL_ENV:
		os.environ.pop(name, None)
	if quick:
		os.environ[QUICK_ENV] = '1'
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

def _run_files(paths: List[str], quick: bool, files: str) -> List[FileResult]:
	"""Runs each test file of @paths in a copy of this process, at most
	_jobs() at a time, in the order given."""
	found: List[FileResult] = []
	running: Dict[proc.Fork, str] = {}
	started: Dict[str, float] = {}
	pending = list(paths)
	while pending or running:
		while pending and len(running) < _jobs():
			path = pending.pop(0)
			name = os.path.basename(path)
			tmp = os.path.join(files, name + '.tmp')
			os.mkdir(tmp)
			started[name] = time.monotonic()
			call = functools.partial(_test_file, path, os.path.join(files, name + '.json'),
						 tmp, quick)
			running[proc.Fork(call, os.path.join(files, name + '.log'))] = name
		for fork in proc.ended(list(running)):
			name = running.pop(fork)
			status = fork.wait()
			done = _result(name, files, status, time.monotonic() - started[name])
			found.append(done)
			print(f'{done.name}: {done.elapsed:.1f} s, {done.tests} tests' +
			      (f', {done.skipped} skipped' if done.skipped else '') +
			      (f', {done.failed} FAILED' if done.failed else ''), file=sys.stderr)
	return found

def selftest(quick: bool=False) -> int:
	"""Runs every test file of TOOLS_DIR, the biggest first (they take
	the longest), only their unit layer if @quick, and closes with the
	tally, as the other commands do, instead of unittest's `Ran N tests
	in T s`."""
	paths = sorted(glob.glob(os.path.join(TOOLS_DIR, '*_test.py')),
		       key=lambda p: (-os.path.getsize(p), p))
	start = time.monotonic()
	for name in PRELOAD:
		importlib.import_module(name)
	with tempfile.TemporaryDirectory(prefix='pan-kunit-selftest-') as files:
		found = _run_files(paths, quick, files)
	for done in sorted(found, key=lambda r: r.name):
		if done.failed:
			sys.stderr.write(done.output)
	tests = sum(r.tests for r in found)
	failed = sum(r.failed for r in found)
	skipped = sum(r.skipped for r in found)
	print(f'selftest took {time.monotonic() - start:.1f} s for {tests} unit tests'
	      + (f' ({skipped} skipped)' if skipped else '')
	      + f', {len(paths)} files, {_jobs()} at a time')
	summary.report(summary.Tally('selftest', tests - failed - skipped, failed))
	return 0 if failed == 0 else 1

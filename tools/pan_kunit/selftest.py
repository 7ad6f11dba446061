# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit selftest`: the unit tests of this tool, tools/*_test.py, each
# file in a Python of its own, as many at a time as there are CPUs, as the
# kernel's tools/testing/kunit/run_checks.py runs its checks.  They run
# without the variables that point git at a repository
# (gitcmd.GIT_LOCAL_ENV): run from a git hook or `git rebase -x`, the
# tests' own gits, which make repositories of their own, would otherwise
# reinitialise and commit into the repository that ran them.
#
# `selftest --quick` runs the unit layer alone: the test files see
# QUICK_ENV=1, and skip the tests marked end to end (testlib.end_to_end:
# the ones that run a whole command with the fake kunit_tool, set a tree
# up with git, or start a Python or a compiler of their own).
#
# A test file runs as `python3 -m pan_kunit.selftest FILE RESULT`: unittest
# on FILE, its output on stdout and stderr, which selftest prints only when
# the file failed, and its counts in RESULT (JSON).

import argparse
import concurrent.futures
import glob
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
# Where the pan_kunit package is, for the test files' Pythons: TOOLS_DIR
# unless a test points TOOLS_DIR at files of its own.
PACKAGE_DIR = TOOLS_DIR

@dataclass
class FileResult:
	"""What one test file ran."""
	name: str
	tests: int
	failed: int     # failures, errors and unexpected successes
	skipped: int
	elapsed: float
	output: str     # its unittest output, with what its tests printed

def _jobs() -> int:
	return len(os.sched_getaffinity(0)) or 1

def add_opts(parser: argparse.ArgumentParser) -> None:
	parser.add_argument('--quick', action='store_true',
			    help='the unit layer only: skip the end-to-end tests')

def _environment(quick: bool) -> Dict[str, str]:
	"""Pan-kunit's environment without the caller's summary file (the
	commands the tests run must not add to it) and without GIT_LOCAL_ENV,
	with PACKAGE_DIR on the Python path, and QUICK_ENV if @quick."""
	env = {k: v for k, v in os.environ.items()
	       if k not in (summary.ENV, QUICK_ENV) and k not in gitcmd.GIT_LOCAL_ENV}
	if quick:
		env[QUICK_ENV] = '1'
	env['PYTHONPATH'] = os.pathsep.join([PACKAGE_DIR] + [p for p in [env.get('PYTHONPATH')] if p])
	return env

def _run_file(path: str, result_dir: str, env: Dict[str, str]) -> FileResult:
	name = os.path.basename(path)
	result_file = os.path.join(result_dir, name + '.json')
	start = time.monotonic()
	done = proc.run([sys.executable, '-m', 'pan_kunit.selftest', path, result_file],
			cwd=TOOLS_DIR, env=env, stdin=proc.To.NOWHERE, stderr=proc.To.MERGED)
	elapsed = time.monotonic() - start
	try:
		with open(result_file) as f:
			counts = json.load(f)
	except (FileNotFoundError, ValueError):
		# It died before its tally: one failure, whatever it ran.
		return FileResult(name, 1, 1, 0, elapsed,
				  done.stdout + f'\n{name}: exited {done.returncode} without its result\n')
	return FileResult(name, counts['tests'], counts['failed'], counts['skipped'], elapsed,
			  done.stdout)

def selftest(quick: bool=False) -> int:
	"""Runs every test file of TOOLS_DIR, the biggest first (they take
	the longest), only their unit layer if @quick, and closes with the tally, as the other commands do,
	instead of unittest's `Ran N tests in T s`."""
	files = sorted(glob.glob(os.path.join(TOOLS_DIR, '*_test.py')),
		       key=lambda p: (-os.path.getsize(p), p))
	env = _environment(quick)
	start = time.monotonic()
	found: List[FileResult] = []
	with tempfile.TemporaryDirectory(prefix='pan-kunit-selftest-') as result_dir, \
	     concurrent.futures.ThreadPoolExecutor(_jobs()) as pool:
		pending = [pool.submit(_run_file, path, result_dir, env) for path in files]
		for future in concurrent.futures.as_completed(pending):
			done = future.result()
			found.append(done)
			print(f'{done.name}: {done.elapsed:.1f} s, {done.tests} tests' +
			      (f', {done.skipped} skipped' if done.skipped else '') +
			      (f', {done.failed} FAILED' if done.failed else ''), file=sys.stderr)
	for done in sorted(found, key=lambda r: r.name):
		if done.failed:
			sys.stderr.write(done.output)
	tests = sum(r.tests for r in found)
	failed = sum(r.failed for r in found)
	skipped = sum(r.skipped for r in found)
	print(f'selftest took {time.monotonic() - start:.1f} s for {tests} unit tests'
	      + (f' ({skipped} skipped)' if skipped else '')
	      + f', {len(files)} files, {_jobs()} at a time')
	summary.report(summary.Tally('selftest', tests - failed - skipped, failed))
	return 0 if failed == 0 else 1

class _Stream:
	"""sys.stderr, as unittest's results write to it."""
	def write(self, text: str) -> None:
		sys.stderr.write(text)

	def writeln(self, text: str='') -> None:
		sys.stderr.write(text + '\n')

	def flush(self) -> None:
		sys.stderr.flush()

def _run_one(path: str, result_file: str) -> int:
	"""In a test file's Python: unittest on @path, its counts into
	@result_file."""
	suite = unittest.TestLoader().discover(os.path.dirname(os.path.abspath(path)),
					       pattern=os.path.basename(path))
	result = unittest.TextTestResult(_Stream(), descriptions=True, verbosity=1)
	suite.run(result)
	print(file=sys.stderr)
	result.printErrors()
	failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
	with open(result_file, 'w') as f:
		json.dump({'tests': result.testsRun, 'failed': failed, 'skipped': len(result.skipped)}, f)
	return 0 if failed == 0 else 1

if __name__ == '__main__':
	sys.exit(_run_one(*sys.argv[1:]))

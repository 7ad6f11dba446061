# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit selftest`: the unit tests of this tool, tools/*_test.py, run
# in-process, without the variables that point git at a repository
# (gitcmd.GIT_LOCAL_ENV): run from a git hook or `git rebase -x`, the
# tests' own gits, which make repositories of their own, would otherwise
# reinitialise and commit into the repository that ran them.

import os
import sys
import time
import unittest

from pan_kunit import gitcmd, summary

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

class _Stream:
	"""sys.stderr, as unittest's results write to it."""
	def write(self, text: str) -> None:
		sys.stderr.write(text)

	def writeln(self, text: str='') -> None:
		sys.stderr.write(text + '\n')

	def flush(self) -> None:
		sys.stderr.flush()

def selftest() -> int:
	"""`python3 -m unittest discover -s tools -p '*_test.py'`, in-process;
	it closes with its tally, as the other commands do, instead of
	unittest's `Ran N tests in T s`."""
	# The commands the tests run must not add to the caller's summary.
	summary_file = os.environ.pop(summary.ENV, '')
	git_env = {k: os.environ.pop(k) for k in gitcmd.GIT_LOCAL_ENV if k in os.environ}
	start = time.monotonic()
	try:
		suite = unittest.TestLoader().discover(TOOLS_DIR, pattern='*_test.py')
		result = unittest.TextTestResult(_Stream(), descriptions=True, verbosity=1)
		suite.run(result)
		print(file=sys.stderr)
		result.printErrors()
	finally:
		os.environ.update(git_env)
		if summary_file:
			os.environ[summary.ENV] = summary_file
	failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
	print(f'selftest took {time.monotonic() - start:.1f} s for {result.testsRun} unit tests'
	      + (f' ({len(result.skipped)} skipped)' if result.skipped else ''))
	summary.report(summary.Tally('selftest', result.testsRun - failed - len(result.skipped),
				     failed))
	return 0 if result.wasSuccessful() else 1

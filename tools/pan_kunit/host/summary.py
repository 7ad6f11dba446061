# SPDX-License-Identifier: GPL-2.0
#
# What each command ran, for a caller that runs several: with
# PAN_KUNIT_SUMMARY=FILE, every command appends one line
#
#     COMMAND: N passed, N failed
#
# to FILE (unit tests, KUnit leaf cases, LKDTM boots, bisect steps,
# mutants).  .ci/run ends with
#
#     python3 -m pan_kunit.host.summary FILE STATUS
#
# which prints their total as one line, `ci: N passed, N failed`, and
# exits non-zero when anything failed or STATUS (the exit status of the
# commands) is.

import os
import re
import sys
from dataclasses import dataclass
from typing import List, Optional, Sequence

from pan_kunit.host.files import writing
from pan_kunit.host.printer import Printer

ENV = 'PAN_KUNIT_SUMMARY'
_LINE = re.compile(r'^([a-z-]+): ([0-9]+) passed, ([0-9]+) failed(?:, ([0-9]+) skipped)?$')

@dataclass
class Tally:
	command: str
	passed: int
	failed: int
	skipped: Optional[int] = None   # for a command whose leaves can skip

	def line(self) -> str:
		return (f'{self.command}: {self.passed} passed, {self.failed} failed' +
			('' if self.skipped is None else f', {self.skipped} skipped'))

def record(tally: Tally, path: Optional[str]=None) -> None:
	"""Appends @tally to $PAN_KUNIT_SUMMARY (or @path), if set."""
	path = path if path is not None else os.environ.get(ENV, '')
	if not path:
		return
	# One write of the whole line, appended: a file other commands (and
	# CI) add to is never left with half a line.
	with writing(path, f'the tally ({ENV})'):
		fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
		try:
			os.write(fd, (tally.line() + '\n').encode())
		finally:
			os.close(fd)

def report(printer: Printer, tally: Tally) -> None:
	"""Prints @tally as the command's closing line, and records it.

	It is the only line of a command's output in the `N passed, N
	failed` shape, and no other line reads as a test runner's closing
	one (no `N tests in T s`): a CI that reads closing lines sees what
	the command ran."""
	printer.print(tally.line())
	record(tally)

def read(path: str) -> List[Tally]:
	"""The tallies recorded in @path; lines that are not one are ignored."""
	try:
		with open(path) as f:
			lines = f.read().splitlines()
	except FileNotFoundError:
		return []
	return [Tally(m.group(1), int(m.group(2)), int(m.group(3)),
		      None if m.group(4) is None else int(m.group(4)))
		for m in map(_LINE.match, lines) if m]

def total(tallies: List[Tally], command_failures: int=0) -> Tally:
	"""The sum; @command_failures counts commands that ended badly (a
	setup error, a stage that never ran) as one failure each."""
	return Tally('ci', sum(t.passed for t in tallies),
		     sum(t.failed for t in tallies) + command_failures)

def main(argv: Sequence[str]) -> int:
	if len(argv) != 2 or not argv[1].isdigit():
		print('usage: python3 -m pan_kunit.host.summary FILE STATUS', file=sys.stderr)
		return 2
	tallies = read(argv[0])
	status = int(argv[1])
	ci = total(tallies)
	# A command that ended badly without a failure of its own to show
	# (a setup error) stops the chain: count it once.
	if status != 0 and ci.failed == 0:
		ci = total(tallies, command_failures=1)
	print(ci.line())
	return status if status != 0 else (1 if ci.failed else 0)

if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))

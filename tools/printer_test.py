#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of pan-kunit's output (pan_kunit.host.printer): the status line kept
# apart from the lines, and a command's lines through the printer of its
# session, with sys.stdout and sys.stderr left as they are.

import contextlib
import errno
import io
import signal
import sys
import unittest
from typing import List, Optional, TextIO, Tuple
from unittest import mock

from pan_kunit.commands import cli, listing
from pan_kunit.host import proc
from pan_kunit.host.printer import CLEAR_LINE as CLEAR, Printer
from testlib import without_status, setUpModule, tearDownModule

class PrinterTest(unittest.TestCase):

	def test_status_line_is_cleared_before_every_line(self) -> None:
		out, err = io.StringIO(), io.StringIO()
		printer = Printer(out, err, tty=True, width=lambda: 41)
		printer.status('building a: 3 objects, 0:05')
		printer.print('built a')
		printer.print('part', end='')
		printer.status('x')          # not in the middle of a line
		printer.print('ial')
		printer.status('y' * 100)    # cut at the terminal's width
		printer.print_stderr('oops')
		printer.close()
		self.assertEqual(out.getvalue(), 'building a: 3 objects, 0:05' + CLEAR + 'built a\n' +
				 'building a: 3 objects, 0:05' + CLEAR + 'partial\n' + 'x' + CLEAR +
				 'y' * 40 + CLEAR + 'y' * 40 + CLEAR)
		self.assertEqual(err.getvalue(), 'oops\n')
		self.assertEqual(without_status(out.getvalue()), 'built a\npartial\n')

	def test_a_command_prints_through_its_printer_and_swaps_no_stream(self) -> None:
		out, err = io.StringIO(), io.StringIO()
		seen: List[Tuple[TextIO, TextIO]] = []
		def run_list(printer: Printer, repo: str, given: Optional[str]=None) -> int:
			seen.append((sys.stdout, sys.stderr))
			printer.print('to stdout')
			printer.print_stderr('to stderr')
			return 0
		with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
		     mock.patch.object(listing, 'run_list', run_list):
			self.assertEqual(cli.main(['list']), 0)
		self.assertEqual(seen, [(out, err)])
		self.assertEqual((out.getvalue(), err.getvalue()), ('to stdout\n', 'to stderr\n'))

	def test_a_terminal_that_hung_up_is_given_up_and_the_command_ends_as_it_would(self) -> None:
		class HungUp(io.StringIO):
			"""A terminal after SIGHUP: every write fails with EIO."""
			def write(self, text: str) -> int:
				raise OSError(errno.EIO, 'Input/output error')
		err = io.StringIO()
		printer = Printer(HungUp(), err, tty=True)
		printer.status('building a')
		printer.print('built a')
		printer.print_stderr('pan-kunit: stopped by SIGHUP')
		printer.close()
		self.assertEqual(err.getvalue(), 'pan-kunit: stopped by SIGHUP\n')
		def stopped(*args: object) -> int:
			raise proc.Stopped(signal.SIGHUP)
		with contextlib.redirect_stdout(HungUp()), contextlib.redirect_stderr(HungUp()), \
		     mock.patch.object(listing, 'run_list', stopped):
			self.assertEqual(cli.main(['list']), 128 + signal.SIGHUP)

if __name__ == '__main__':
	unittest.main()

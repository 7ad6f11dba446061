#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of what a run shows while it runs (pan_kunit.host.progress).

import contextlib
import io
import os
import shutil
import sys
import tempfile
import time
import unittest
from typing import List
from unittest import mock

from pan_kunit.host import progress
from pan_kunit.host.printer import CLEAR_LINE as CLEAR, Printer
from testlib import write, TempDirTestCase, without_status, end_to_end, setUpModule, tearDownModule

class FakeClock:

	def __init__(self) -> None:
		self.now = 1000.0

	def __call__(self) -> float:
		return self.now

class ProgressTest(unittest.TestCase):

	def test_no_status_line_when_not_a_terminal(self) -> None:
		out = io.StringIO()
		printer = Printer(out)
		shown = progress.Progress(printer, clock=FakeClock())
		shown.task('step 1/3 x', 'about 1 min 00 s left')
		with tempfile.NamedTemporaryFile('w', prefix='pan-kunit-test-') as log:
			log.write(progress.MAKE_STARTED + '\n')
			log.flush()
			shown.build_started('a', os.path.dirname(log.name), log.name)
			with mock.patch.object(progress, 'count_objects') as count:
				shown.poll()
			count.assert_not_called()  # no reading of the builds for nobody
		shown.boots_started(['a', 'b'])
		shown.boot_ended('a', 'pass', 4.24)
		shown.boot_ended('b', 'crash', 10.0, quiet=True)
		printer.print('a line')
		printer.close()
		self.assertEqual(out.getvalue(), 'boot a: pass (4.2 s)\na line\n')

	def test_builds_boots_and_task_on_the_status_line(self) -> None:
		clock = FakeClock()
		since = 1_700_000_000 * 10**9
		tmp = tempfile.mkdtemp(prefix='pan-kunit-test-')
		self.addCleanup(shutil.rmtree, tmp)
		build, log = os.path.join(tmp, 'build'), os.path.join(tmp, 'build.log')
		for name, age in (('old.o', -10), ('new.o', 1), ('sub/new.o', 2), ('sub/new.c', 3)):
			write(os.path.join(build, name), '')
			os.utime(os.path.join(build, name), ns=(since + age * 10**9,) * 2)
		write(log, 'Populating config with:\n')
		out = io.StringIO()
		shown = progress.Progress(Printer(out, tty=True, width=lambda: 200), clock=clock,
					  wall_ns=lambda: since + progress.MTIME_SLACK_NS)
		shown.task('step 1/3 0001-x', 'about 2 min 00 s left')
		shown.build_started('pan,nopan', build, log)
		clock.now += 65
		shown.poll()
		self.assertEqual(shown.status(), 'step 1/3 0001-x | building pan,nopan: configuring, '
				 '1:05 | about 2 min 00 s left')
		write(log, 'Populating config with:\nBuilding with:\n$ make ARCH=arm64\n')
		shown.poll()
		self.assertEqual(shown.status(), 'step 1/3 0001-x | building pan,nopan: 2 objects, '
				 '1:05 | about 2 min 00 s left')
		self.assertTrue(out.getvalue().endswith(CLEAR + shown.status()), out.getvalue())
		self.assertEqual(shown.build_ended('pan,nopan'), 2)
		# A build from scratch: its objects against what the last one wrote,
		# and the time left at the rate since make started.
		with mock.patch.object(progress, 'MIN_OBJECTS', 1):
			shown.build_started('7.3 pan', build, log, expected=6)
			shown.poll()
			clock.now += 10
			shown.poll()
			self.assertEqual(shown.status(), 'step 1/3 0001-x | building 7.3 pan: 2/6 '
					 'objects, 0:10, about 20 s left | about 2 min 00 s left')
			shown.build_ended('7.3 pan')
		shown.boots_started(['pan', 'nopan'])
		clock.now += 3
		shown.boot_ended('pan', 'pass', 2.5)
		self.assertEqual(shown.status(), 'step 1/3 0001-x | booting nopan 0:03 (pan: pass) | '
				 'about 2 min 00 s left')
		shown.boots_ended()
		shown.task('')
		self.assertEqual(shown.status(), '')
		self.assertEqual(without_status(out.getvalue()), 'boot pan: pass (2.5 s)\n')

	def test_time_left_from_the_steps_done(self) -> None:
		eta = progress.Eta(4)
		self.assertEqual(eta.text(), '')
		eta.done(100.0)   # the start: the only step done, so it counts
		self.assertEqual(eta.text(), 'about 5 min 00 s left')
		eta.done(10.0)    # now it does not
		self.assertEqual(eta.text(), 'about 20 s left')
		eta.done(20.0)
		self.assertEqual(eta.text(), 'about 15 s left')
		eta.done(30.0)
		self.assertEqual(eta.text(), '')
		eta = progress.Eta(3)
		eta.done(10.0)
		eta.skip()
		self.assertEqual(eta.text(), 'about 10 s left')
		self.assertEqual([progress.duration(s) for s in (59.4, 61, 3700)],
				 ['59 s', '1 min 01 s', '1 h 01 min'])


if __name__ == '__main__':
	unittest.main()

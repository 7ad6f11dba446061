#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of processes by number (pan_kunit.host.pids): a start time tells a
# process from a later one of its number, and only a number whose process
# is gone lets what it left be removed.

import os
import unittest

from pan_kunit.host import pids
from testlib import ended_pid

class PidsTest(unittest.TestCase):

	def test_a_running_process_has_a_start_time_and_an_ended_one_none(self) -> None:
		mine = pids.start_time(os.getpid())
		self.assertTrue(mine.isdigit(), mine)
		self.assertEqual(pids.start_time(os.getpid()), mine)
		self.assertLessEqual(int(pids.start_time(os.getppid())), int(mine))
		self.assertEqual(pids.start_time(ended_pid()), '')

	def test_only_the_number_of_an_ended_process_is_gone(self) -> None:
		self.assertTrue(pids.left_by_gone(str(ended_pid())))
		# This process, and another that runs: never gone.
		self.assertFalse(pids.left_by_gone(str(os.getpid())))
		self.assertFalse(pids.left_by_gone(str(os.getppid())))
		# What is no number names no process.
		for text in ('', 'x12', '-1', '12.tmp'):
			self.assertFalse(pids.left_by_gone(text), text)

if __name__ == '__main__':
	unittest.main()

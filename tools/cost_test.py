#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of what a run says it will cost before it starts (pan_kunit.matrix.cost),
# and of a build's objects against its expected total (pan_kunit.host.progress).

import os
import re
import shutil
import tempfile
import unittest

from pan_kunit.commands import options
from pan_kunit.host import progress
from pan_kunit.matrix import cost
from testlib import setUpModule, tearDownModule, write

IMAGE = 'arch/arm64/boot/Image'

class CostTest(unittest.TestCase):

	def setUp(self) -> None:
		self.tmp = tempfile.mkdtemp(prefix='pan-kunit-test-')
		self.addCleanup(shutil.rmtree, self.tmp)

	def build_dir(self, tree: str, key: str, built: bool=False) -> str:
		path = os.path.join(self.tmp, tree, '.pan-kunit', 'build', key)
		os.makedirs(path, exist_ok=True)
		if built:
			write(os.path.join(path, IMAGE), '')
		return path

	def kernel(self, name: str, *dirs: str) -> cost.KernelBuilds:
		return cost.KernelBuilds(name, os.path.join(self.tmp, name), [(d, IMAGE) for d in dirs])

	def test_nothing_to_say_when_every_kernel_is_built(self) -> None:
		kernel = self.kernel('7.3', self.build_dir('7.3', 'a', built=True))
		self.assertEqual(cost.first_run_line([kernel], []), '')

	def test_the_stated_estimate_without_a_build_from_scratch(self) -> None:
		line = cost.first_run_line([
			self.kernel('7.3', self.build_dir('7.3', 'a'), self.build_dir('7.3', 'b')),
			self.kernel('6.12', self.build_dir('6.12', 'a'), self.build_dir('6.12', 'b', True))],
			[])
		self.assertEqual(line, '3 kernel builds from scratch (7.3: 2, 6.12: 1): about 20 min '
				 '00 s before the boots (about 10 min a kernel on 2 cores; a slower '
				 'machine takes up to 3 times as long)')

	def test_the_estimate_agrees_with_the_help(self) -> None:
		low, high = map(int, re.search(r'([0-9]+)-([0-9]+) minutes per kernel',
					       options.EPILOG).groups())  # type: ignore[union-attr]
		self.assertTrue(low * 60 <= cost.KERNEL_ESTIMATE <= high * 60)
		self.assertIn(f'about {3 * cost.KERNEL_ESTIMATE // 60} for all three',
			      ' '.join(options.EPILOG.split()))

	def test_the_last_build_from_scratch_here(self) -> None:
		done = self.build_dir('6.1', 'a', built=True)
		cost.write_record(done, 251.0, 727, scratch=True)
		cost.write_record(self.build_dir('6.1', 'b', built=True), 9.0, 3, scratch=False)
		todo = self.build_dir('7.3', 'a')
		line = cost.first_run_line([self.kernel('7.3', todo)], [os.path.join(self.tmp, '6.1')])
		self.assertEqual(line, '1 kernel build from scratch (7.3: 1): about 4 min 11 s before '
				 'the boots (the last build from scratch here took 4 min 11 s)')
		# Its objects are what a build from scratch will write; an
		# incremental build's are not known.
		self.assertEqual(cost.expected_objects(todo, IMAGE, [os.path.join(self.tmp, '6.1')]), 727)
		self.assertEqual(cost.expected_objects(done, IMAGE, [os.path.join(self.tmp, '6.1')]), 0)
		self.assertEqual(cost.expected_objects(todo, IMAGE, [todo]), 0)

class ProgressTest(unittest.TestCase):

	def test_objects_against_the_expected_total_with_time_left(self) -> None:
		self.assertIsNone(progress.build_left(10, 700, 30.0))   # too few to tell
		self.assertIsNone(progress.build_left(300, 0, 30.0))    # no total known
		self.assertEqual(progress.build_left(100, 700, 30.0), 180.0)
		self.assertEqual(progress.build_left(800, 700, 30.0), 0.0)

if __name__ == '__main__':
	unittest.main()

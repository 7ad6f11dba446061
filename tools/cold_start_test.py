#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of run's cold start: the newest kernel's FIRST_CONFIG built and
# booted alone, and its verdict printed, before the other configs build;
# with the fake kunit_tool of testlib.

import os
from typing import List, Tuple
from unittest import mock

from pan_kunit.commands import run
from pan_kunit.trees import tree
from testlib import FakeKunitTestCase, read, slow, write, setUpModule, tearDownModule

# A matrix of two kconfig groups: pass_pan and skip_nopan share one.
MATRIX = ('pass_pan', 'skip_nopan', 'pass_ttbr0')

class ColdStartTest(FakeKunitTestCase):

	def setUp(self) -> None:
		super().setUp()
		configs = os.path.join(self.repo, 'qemu_configs')
		for name in os.listdir(configs):
			if name[:-len('.py')] not in MATRIX:
				os.unlink(os.path.join(configs, name))
		patcher = mock.patch.object(run, 'FIRST_CONFIG', 'pass_pan')
		patcher.start()
		self.addCleanup(patcher.stop)

	def run_cli(self, *argv: str) -> Tuple[int, str]:
		return self.cli_main('--tree', self.tree, 'run', *argv)

	def events(self) -> List[str]:
		"""The fake kunit.py's builds and boots, in order, by config."""
		return [f'{kind} {self.config_of(fields)}' for kind, *fields in
			(line.split() for line in read(self.trace).splitlines())
			if kind in ('build', 'exec')]

	@staticmethod
	def config_of(fields: List[str]) -> str:
		return fields[0]

	def test_cold_start_builds_and_boots_arm64_pan_first(self) -> None:
		status, output = self.run_cli()
		self.assertEqual(status, 0, output)
		self.assertIn('cold start: pass_pan first, built and booted alone; then the others',
			      output)
		events = self.events()
		# pass_pan's group built, pass_pan booted, and only then the rest.
		self.assertEqual(events[:2], ['build pass_pan', 'exec pass_pan'], events)
		self.assertEqual(sorted(events[2:]), ['build pass_ttbr0', 'build skip_nopan',
						      'exec pass_ttbr0', 'exec skip_nopan'], events)
		first = output.index('=== first verdict: linux-source-6.1 pass_pan: pass')
		self.assertLess(first, output.index('building 6.1 pass_ttbr0 (log:'))
		# The kernel's table has every config once, in the matrix's order,
		# and its total counts pass_pan once.
		table = output[output.rindex('suite (passed/failed/skipped)'):].splitlines()[0]
		self.assertEqual(table.split()[-3:], ['pass_pan', 'pass_ttbr0', 'skip_nopan'])
		self.assertTrue(output.endswith('run: 21 passed, 0 failed, 3 skipped\n'), output)

	def test_one_git_status_for_both_parts(self) -> None:
		# It walks every file of the kernel tree: once per run, cold or not.
		with mock.patch.object(tree, 'changed_files', wraps=tree.changed_files) as status:
			code, output = self.run_cli()
		self.assertEqual(code, 0, output)
		self.assertIn('cold start', output)
		self.assertEqual(status.call_count, 1)

	@slow  # three runs, each a build and boots
	def test_warm_start_and_named_configs_boot_at_once(self) -> None:
		status, output = self.run_cli()
		self.assertEqual(status, 0, output)
		write(self.trace, '')
		status, warm = self.run_cli()
		self.assertEqual(status, 0, warm)
		self.assertNotIn('cold start', warm)
		self.assertNotIn('first verdict', warm)
		self.assertEqual(warm.splitlines()[-2:], output.splitlines()[-2:])
		status, named = self.run_cli('--config', 'pass_ttbr0', '--config', 'pass_pan',
					     '--make_options', 'W=1')  # cold: a build of its own
		self.assertEqual(status, 0, named)
		self.assertNotIn('cold start', named)

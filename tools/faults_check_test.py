#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The fault-injection layer (faultlib.py), at the stages of the commands
# that change pan-kunit's check worktree: a mutant applied and being
# judged.  The user's tree keeps its edit and never holds the mutant; the
# next command finds the worktree as it needs it.

import json
import os
import shutil
import unittest
from typing import Any, List

from faultlib import FaultTestCase, SIGNALS, kill_self_when
from pan_kunit.trees import tree
from testlib import read, test_data_path, setUpModule, tearDownModule

class MutantsFaultTest(FaultTestCase):

	def setUp(self) -> None:
		super().setUp()
		shutil.copytree(test_data_path('mutants'), os.path.join(self.repo, 'mutants', '6.1'))

	def argv(self) -> List[str]:
		return ['--tree', self.tree, 'mutants', '--only', 'killed', '--config', 'pass_pan',
			'--json', self.json, '--junit', self.junit]

	def check_next(self, again: str) -> None:
		self.assertIn('mutants: 1 passed, 0 failed\n', again)
		self.assertIn('baseline (the prepared tree): ok', again)
		verdicts = {m['name']: m['verdict'] for m in json.loads(read(self.json))['mutants']}
		self.assertEqual(verdicts, {'killed': 'killed'})
		self.assertTrue(read(self.junit).rstrip().endswith('</testsuites>'))

	def test_killed_with_a_mutant_applied(self) -> None:
		def mutant_applied(tree_dir: str, *args: str, **kwargs: Any) -> bool:
			return args[:1] == ('apply',)
		before = tree.rev(self.tree, 'HEAD')
		for signum in SIGNALS:
			with self.subTest(signal=signum):
				self.check(signum, kill_self_when(tree, 'git', signum, mutant_applied,
								  after=True))
				self.assertEqual(tree.rev(self.tree, 'HEAD'), before)


if __name__ == '__main__':
	unittest.main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The fault-injection layer (faultlib.py), at the stages of a setup that a run
# does: extraction, the series applied, the suites installed.

import os
import shutil
import signal
import unittest
from typing import Any

from faultlib import FaultTestCase, SIGNALS, kill_self_when
from pan_kunit.trees import tree
from testlib import from_scratch, read, write, setUpModule, tearDownModule

class SetupFaultTest(FaultTestCase):

	@from_scratch
	def test_killed_while_it_extracts_the_tree(self) -> None:
		for signum in SIGNALS:
			shutil.rmtree(self.tree, ignore_errors=True)
			with self.subTest(signal=signal.Signals(signum).name):
				self.check(signum, kill_self_when(tree, '_sha256_file', signum), edit=False)
				self.assertEqual([n for n in os.listdir(os.path.dirname(self.tree))
						  if '.partial-' in n], [])

	@from_scratch
	def test_killed_while_it_applies_the_series(self) -> None:
		calls = []
		def second_am(tree_dir: str, *args: str, **kwargs: Any) -> bool:
			if args[:1] == ('am',):
				calls.append(args)
			return len(calls) == 2 and args[:1] == ('am',)
		for signum in SIGNALS:
			calls.clear()
			shutil.rmtree(self.tree, ignore_errors=True)
			with self.subTest(signal=signal.Signals(signum).name):
				self.check(signum, kill_self_when(tree, 'git', signum, second_am), edit=False)

	def test_killed_while_it_installs_the_suites(self) -> None:
		# The suites changed since the tree was set up: run installs them.
		suite = os.path.join(self.repo, 'kunit', 'arch/arm64/kernel/cpufeature_fake_test.h')
		def commit_of_suites(tree_dir: str, *args: str, **kwargs: Any) -> bool:
			return args[:1] == ('commit',) and tree.SUITES_SUBJECT in args
		for number, signum in enumerate(SIGNALS):
			write(suite, f'/* changed {number} */\n')
			with self.subTest(signal=signal.Signals(signum).name):
				self.check(signum, kill_self_when(tree, 'git', signum, commit_of_suites),
					   edit=False)
				self.assertEqual(read(os.path.join(self.tree, 'arch/arm64/kernel/'
								   'cpufeature_fake_test.h')),
						 f'/* changed {number} */\n')


if __name__ == '__main__':
	unittest.main()

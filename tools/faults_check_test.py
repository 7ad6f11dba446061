#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The fault-injection layer (faultlib.py), at the stages of the commands
# that change pan-kunit's check worktree: a mutant applied and being
# judged (its build started), a bisect step's patch applied and built, export's series written and
# checked.  The user's tree keeps its edit and never holds the mutant or
# the step; the next command finds the worktree as it needs it, and
# export's DIR holds the whole series or nothing.

import json
import os
import shutil
import signal
import unittest
from typing import Any, List
from unittest import mock

from faultlib import FaultTestCase, SIGNALS, kill_self_when
from pan_kunit.commands import checkpatch
from pan_kunit.matrix import jobs
from pan_kunit.trees import tree
from testlib import read, test_data_path, write, setUpModule, tearDownModule

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


	def test_killed_while_a_mutant_is_judged(self) -> None:
		# Once the kunit.py of the mutant's build (in the check worktree,
		# after the baseline's in the user's tree) has started.
		def mutant_job(job: jobs.Job) -> bool:
			return '/.pan-kunit/check/linux/' in job.log
		before = tree.rev(self.tree, 'HEAD')
		for signum in SIGNALS:
			with self.subTest(signal=signal.Signals(signum).name):
				again = self.check(signum, kill_self_when(jobs.Job, 'start', signum, mutant_job,
									  after=True))
				self.assertEqual(tree.rev(self.tree, 'HEAD'), before)
				self.assert_stale_lock_cleared(signum, again)

class BisectFaultTest(FaultTestCase):

	next_status = 1  # the demo series' patch 2 fails a case

	def argv(self) -> List[str]:
		return ['--tree', self.tree, 'bisect', test_data_path('series_demo'), '--config',
			'pass_pan', '--json', self.json, '--junit', self.junit]

	def check_next(self, again: str) -> None:
		self.assertIn('bisect: first bad patch: 2 0002-arm64-cpufeature-match-with-greater-than'
			      '.patch', again)
		self.assertIn('bisect: 3 passed, 1 failed\n', again)
		report = json.loads(read(self.json))
		(kernel,) = report.get('kernels', [report])
		self.assertEqual((kernel['first_bad'], len(kernel['steps'])), (2, 4), report)
		self.assertTrue(read(self.junit).rstrip().endswith('</testsuites>'))
		# The step's patch is in no branch of the user's tree.
		self.assertNotIn('greater-than', tree.git(self.tree, 'log', '--format=%s', '--branches',
							  '--tags').stdout)

	def test_killed_with_a_step_applied(self) -> None:
		# check_applies() applies the three patches once and resets; the
		# fifth git am is step 2's.
		calls: List[str] = []  # in the killed run's process
		killed_at = os.path.join(self.tmp, 'killed-at')
		def step_2_applied(tree_dir: str, *args: str, **kwargs: Any) -> bool:
			if args[:1] != ('am',) or args[1:2] == ('--abort',):
				return False
			calls.append(args[-1])
			write(killed_at, args[-1])
			return len(calls) == 5
		for signum in SIGNALS:
			with self.subTest(signal=signal.Signals(signum).name):
				again = self.check(signum, kill_self_when(tree, 'git', signum, step_2_applied,
									  after=True))
				self.assertIn('0002-arm64-cpufeature-match-with-greater-than', read(killed_at))
				self.assert_stale_lock_cleared(signum, again)

	def test_killed_while_a_step_builds(self) -> None:
		for signum in SIGNALS:
			with self.subTest(signal=signal.Signals(signum).name):
				self.assert_stale_lock_cleared(signum, self.check(signum, stall='build'))

class ExportFaultTest(FaultTestCase):

	def setUp(self) -> None:
		super().setUp()
		self.out = os.path.join(self.tmp, 'series')
		gitconfig = os.path.join(self.tmp, 'gitconfig')
		write(gitconfig, '[user]\n\tname = Zoe Exporter\n\temail = zoe@example.org\n')
		patcher = mock.patch.dict(os.environ, {'HOME': os.path.join(self.tmp, 'home'),
						       'GIT_CONFIG_GLOBAL': gitconfig,
						       'GIT_CONFIG_NOSYSTEM': '1'})
		patcher.start()
		self.addCleanup(patcher.stop)

	def argv(self) -> List[str]:
		return ['--tree', self.tree, 'export', self.out, '--config', 'pass_pan']

	def check_next(self, again: str) -> None:
		self.assertIn(f'wrote 3 patches and a cover letter into {self.out}:', again)
		self.assertEqual(again.count('checkpatch --strict: clean'), 3, again)
		self.assertIn('step 3/3 0003-', again)
		self.assertEqual(len(os.listdir(self.out)), 4)
		self.assertEqual([n for n in os.listdir(self.tmp) if '.pan-kunit-' in n], [])

	def killed(self, signum: int, **how: Any) -> None:
		self.assert_stale_lock_cleared(signum, self.check(signum, **how))
		shutil.rmtree(self.out)

	def test_killed_with_the_series_written_before_its_check(self) -> None:
		for signum in SIGNALS:
			with self.subTest(signal=signal.Signals(signum).name):
				self.killed(signum, patch=kill_self_when(checkpatch, 'run', signum))

	def test_killed_while_a_prefix_of_the_series_builds(self) -> None:
		for signum in SIGNALS:
			with self.subTest(signal=signal.Signals(signum).name):
				self.killed(signum, stall='build')


if __name__ == '__main__':
	unittest.main()

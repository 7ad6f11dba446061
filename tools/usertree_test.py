#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of pan_kunit.trees.usertree: --tree on a kernel checkout of the user's
# own (their branch, commits and uncommitted edits), with the fake
# kunit_tool and fake source of testlib; each test checks that the
# user's tree is left exactly as it was.

import json
import os
from typing import Tuple
from unittest import mock

from pan_kunit.trees import tree, usertree
from testlib import (MATCH_CASE_FAILED, FakeKunitTestCase, edit_file, make_user_tree, read,
		     slow, snapshot, test_data_path, user_git, write, setUpModule, tearDownModule)

MINE = 'arch/arm64/kernel/mine.txt'

@slow
class UserTreeTest(FakeKunitTestCase):
	"""--tree on a tree of the user's own: of the slow layer, as each test
	makes one with git, then runs run, bisect or mutants on it."""

	def setUp(self) -> None:
		super().setUp()
		self.cache = os.path.join(self.tmp, 'cache')
		patcher = mock.patch.dict(os.environ, {'PAN_KUNIT_CACHE': self.cache})
		patcher.start()
		self.addCleanup(patcher.stop)
		self.user = os.path.join(self.tmp, 'work', 'linux')

	def ugit(self, *args: str) -> str:
		return user_git(self.user, *args)

	def make_user_tree(self, makefile_patchlevel: str='1') -> None:
		make_user_tree(self.tarball, self.user, makefile_patchlevel)

	def edit(self, path: str, old: str, new: str) -> None:
		edit_file(os.path.join(self.user, path), old, new)

	def run_cli(self, *argv: str) -> Tuple[int, str]:
		return self.cli_main('--tree', self.user, *argv)

	def clone(self) -> str:
		return usertree.clone_dir(self.cache, self.user)

	def test_run_tests_head_and_edits_and_leaves_the_tree_alone(self) -> None:
		self.make_user_tree()
		self.edit('arch/arm64/kernel/cpufeature.c', 'fixture).', 'fixture), edited.')
		write(os.path.join(self.user, MINE), 'a file of mine, not added\n')
		self.ugit('stash', 'list')  # git itself only reads here
		head = self.ugit('rev-parse', 'HEAD')
		before = snapshot(self.user)
		report = os.path.join(self.tmp, 'report.json')
		status, output = self.run_cli('run', '--config', 'pass_pan', '--json', report)
		self.assertEqual(status, 0, output)
		self.assertEqual(snapshot(self.user), before)
		self.assertIn(f'your tree {self.user}: branch topic at {head[:12]} ("arm64: cpufeature: '
			      'my commit"), with your uncommitted edits of '
			      f'arch/arm64/kernel/cpufeature.c, {MINE}; with 6.1\'s series', output)
		self.assertIn(f'tested your tree {self.user}: branch topic', output)
		# Built in the clone: HEAD, the edits, the series and the suites.
		(build,) = self.traced('build')
		self.assertTrue(build[2].startswith(self.clone() + '/'), build)
		source = read(os.path.join(self.clone(), 'arch/arm64/kernel/cpufeature.c'))
		self.assertIn(' * My stand-in', source)
		self.assertIn('fixture), edited.', source)
		self.assertIn('cpufeature_fake_test.o', read(os.path.join(
			self.clone(), 'arch/arm64/kernel/Makefile')))
		self.assertTrue(os.path.exists(os.path.join(self.clone(), MINE)))
		(record,) = json.loads(read(report))['kernels'][0]['configs']
		self.assertEqual((record['git_commit'], record['git_branch'], record['git_dirty']),
				 (head, 'topic', True))
		# Unchanged, the next run commits nothing and touches no file.
		prepared = tree.rev(self.clone(), tree.PREPARED_REF)
		mtime = os.stat(os.path.join(self.clone(), 'arch/arm64/kernel/cpufeature.c')).st_mtime_ns
		status, output = self.run_cli('run', '--config', 'pass_pan')
		self.assertEqual(status, 0, output)
		self.assertEqual(tree.rev(self.clone(), tree.PREPARED_REF), prepared)
		self.assertEqual(os.stat(os.path.join(
			self.clone(), 'arch/arm64/kernel/cpufeature.c')).st_mtime_ns, mtime)
		self.assertEqual(snapshot(self.user), before)

	def test_an_edit_that_breaks_a_case_fails_it_by_name(self) -> None:
		self.make_user_tree()
		write(os.path.join(self.user, 'fake_mode'), 'fail\n')  # the fake kunit.py's mode
		self.ugit('add', 'fake_mode')  # staged, not committed
		before = snapshot(self.user)
		status, output = self.run_cli('run', '--config', 'pass_pan')
		self.assertEqual(status, 1, output)
		self.assertIn(f'[FAILED] {MATCH_CASE_FAILED}', output)
		self.assertIn('with your uncommitted edits of fake_mode', output)
		after = snapshot(self.user)
		self.assertEqual({k: v for k, v in after.items() if before.get(k) != v}, {})
		self.assertEqual(after, before)

	def test_a_tree_that_holds_the_suites_is_taken_as_it_is(self) -> None:
		self.user = self.tree  # a copy of a prepared tree
		for ref in (tree.BASE_REF, tree.PREPARED_REF):
			self.ugit('update-ref', '-d', ref)
		head = self.ugit('rev-parse', 'HEAD')
		before = snapshot(self.user)
		status, output = self.run_cli('run', '--config', 'pass_pan')
		self.assertEqual(status, 0, output)
		self.assertIn('it holds the suites already: taken as it is', output)
		self.assertEqual(tree.rev(self.clone(), tree.PREPARED_REF), head)
		after = snapshot(self.user)
		self.assertEqual({k: v for k, v in after.items() if before.get(k) != v}, {})

	def test_a_tree_that_holds_some_of_the_suites_is_told_which_it_lacks(self) -> None:
		self.user = self.tree  # a copy of a prepared tree, less one suite file
		for ref in (tree.BASE_REF, tree.PREPARED_REF):
			self.ugit('update-ref', '-d', ref)
		lacking = 'arch/arm64/kernel/cpufeature_fake_test.h'
		self.ugit('rm', '-q', lacking)
		self.ugit('commit', '-q', '-m', 'lose a suite file')
		before = snapshot(self.user)
		status, output = self.run_cli('run', '--config', 'pass_pan')
		self.assertEqual(status, 2, output)
		self.assertIn('does not apply to', output)
		self.assertRegex(output, r'your tree holds ([0-9]+) of the [0-9]+ files of the suites, '
				 f'not {lacking}: a tree that holds them all is taken as it is')
		self.assertNotIn('Traceback', output)
		self.assertEqual(self.traced('build'), [])
		self.assertEqual(snapshot(self.user), before)

	def test_a_series_that_does_not_apply_is_named_before_any_build(self) -> None:
		self.make_user_tree()
		self.edit('arch/arm64/kernel/cpufeature.c', 'u64 val = read_sanitised_ftr_reg',
			  'u64 value = read_sanitised_ftr_reg')
		before = snapshot(self.user)
		status, output = self.run_cli('run', '--config', 'pass_pan')
		self.assertEqual(status, 2, output)
		self.assertIn('pan-kunit run: error: patch 1 of patches/6.1/series, ', output)
		self.assertIn('0001-arm64-cpufeature-let-KUnit-suites-call-has_cpuid_fea.patch, does '
			      f'not apply to {self.user}', output)
		self.assertIn('error: patch failed: arch/arm64/kernel/cpufeature.c:', output)
		self.assertNotIn('Traceback', output)
		self.assertEqual(self.traced('build'), [])
		self.assertEqual(snapshot(self.user), before)

	def test_the_series_is_chosen_by_the_makefile(self) -> None:
		self.make_user_tree(makefile_patchlevel='7')
		status, output = self.run_cli('run', '--config', 'pass_pan')
		self.assertEqual(status, 0, output)
		self.assertIn(f'{self.user} holds Linux 6.7: pan-kunit has no series for it, and uses '
			      "6.1's (patches/6.1/series), the newest below it", output)
		self.edit('Makefile', 'VERSION = 6', 'VERSION = 5')
		status, output = self.run_cli('run', '--config', 'pass_pan')
		self.assertEqual(status, 2, output)
		self.assertIn(f'{self.user} holds Linux 5.7, older than every kernel pan-kunit has a '
			      'series for (6.1)', output)
		status, output = self.run_cli('run', '--kernel', '6.12')
		self.assertEqual(status, 2, output)

	def test_bisect_of_the_users_own_range(self) -> None:
		self.make_user_tree()
		self.ugit('tag', 'mine-base')
		self.edit('arch/arm64/kernel/cpufeature.c', ' * My stand-in', ' * Our stand-in')
		self.ugit('commit', '-q', '-am', 'arm64: cpufeature: a harmless one')
		write(os.path.join(self.user, 'fake_mode'), 'fail\n')
		self.ugit('add', 'fake_mode')
		self.ugit('commit', '-q', '-m', 'arm64: cpufeature: the one that breaks a case')
		self.edit('arch/arm64/kernel/cpufeature.c', 'fixture).', 'fixture), not in the range.')
		before = snapshot(self.user)
		status, output = self.run_cli('bisect', 'mine-base..topic', '--config', 'pass_pan')
		self.assertEqual(status, 1, output)
		self.assertIn('bisect: first bad patch: 2 0002-', output)
		self.assertIn('.patch: arm64: cpufeature: the one that breaks a case', output)
		self.assertIn(f'reproduce that step: tools/pan-kunit --tree {self.user} bisect '
			      'mine-base..topic --config=pass_pan --step=2', output)
		self.assertIn('without your uncommitted edits', output)
		self.assertEqual(snapshot(self.user), before)
		status, output = self.run_cli('bisect', 'nosuch..topic', '--config', 'pass_pan')
		self.assertEqual(status, 2, output)
		self.assertEqual(snapshot(self.user), before)

	def test_a_mutant_not_in_the_users_code_is_not_applicable(self) -> None:
		import shutil
		mutants_dir = os.path.join(self.repo, 'mutants', '6.1')
		os.makedirs(mutants_dir)
		for name in ('killed', 'stale'):
			shutil.copy(test_data_path('mutants', f'{name}.patch'), mutants_dir)
		self.make_user_tree()
		before = snapshot(self.user)
		report = os.path.join(self.tmp, 'mutants.json')
		status, output = self.run_cli('mutants', '--config', 'pass_pan', '--json', report)
		self.assertEqual(status, 0, output)
		verdicts = {m['name']: m for m in json.loads(read(report))['mutants']}
		self.assertEqual(verdicts['stale']['verdict'], 'not applicable')
		self.assertIn('its code is not in your tree: error: patch failed', verdicts['stale']['detail'])
		self.assertEqual(verdicts['killed']['verdict'], 'killed')
		self.assertIn('mutants: 1 passed, 0 failed', output)
		self.assertEqual(snapshot(self.user), before)

	def test_a_new_commit_without_edits_is_built(self) -> None:
		self.make_user_tree()
		status, output = self.run_cli('run', '--config', 'pass_pan')
		self.assertEqual(status, 0, output)
		self.assertIn('without uncommitted edits', output)
		self.edit('arch/arm64/kernel/cpufeature.c', ' * My stand-in', ' * My newer stand-in')
		self.ugit('commit', '-q', '-am', 'arm64: cpufeature: another commit')
		head = self.ugit('rev-parse', 'HEAD')
		status, output = self.run_cli('run', '--config', 'pass_pan')
		self.assertEqual(status, 0, output)
		self.assertEqual(tree.rev(self.clone(), tree.BASE_REF), head)
		self.assertIn(' * My newer stand-in', read(os.path.join(
			self.clone(), 'arch/arm64/kernel/cpufeature.c')))

	def test_git_variables_of_a_hook_do_not_reach_the_users_repository(self) -> None:
		# As in a hook, or git rebase -x 'tools/pan-kunit run ...'.
		self.make_user_tree()
		self.edit('arch/arm64/kernel/cpufeature.c', 'fixture).', 'fixture), edited.')
		before = snapshot(self.user)
		git_dir = os.path.join(self.user, '.git')
		with mock.patch.dict(os.environ, {'GIT_DIR': git_dir, 'GIT_WORK_TREE': self.user,
						  'GIT_INDEX_FILE': os.path.join(git_dir, 'index')}):
			status, output = self.run_cli('run', '--config', 'pass_pan')
		self.assertEqual(status, 0, output)
		self.assertEqual(snapshot(self.user), before)
		self.assertIn('fixture), edited.', read(os.path.join(
			self.clone(), 'arch/arm64/kernel/cpufeature.c')))

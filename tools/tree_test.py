#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the sources of a tree (pan_kunit.trees.sources) and its setup
# (pan_kunit.trees.tree): extraction, patches, suites, and what a developer
# did in it.

import contextlib
import io
import os
import subprocess
import tarfile
import time
import unittest
from typing import List
from unittest import mock

from pan_kunit import Error
from pan_kunit.trees import sources, suites, targets, tree, worktree
from testlib import (KERNEL, PATCH_1, PATCH_2, PATCH_3, STALE_PATCH, SUITE_C, SUITE_H,
		     USER_GIT_ENV, test_data_path, read, write, mtimes, TempDirTestCase,
		     end_to_end, setUpModule, tearDownModule, plain_printer)

class SourcesTest(TempDirTestCase):

	def test_series_order_and_suites(self) -> None:
		write(os.path.join(self.repo, 'patches', '6.1', 'series'),
		      f'# comment\n\n{PATCH_2}\n{PATCH_1}  # reordered\n')
		loaded = sources.load(self.repo, KERNEL)
		self.assertEqual([os.path.basename(p) for p in loaded.patches], [PATCH_2, PATCH_1])
		self.assertEqual(sorted(loaded.suites),
				 sorted([sources.TREE_KUNITCONFIG, SUITE_C, SUITE_H]))
		self.assertEqual(loaded.suites[sources.TREE_KUNITCONFIG].decode(),
				 read(os.path.join(self.repo, 'kunitconfig')))

	def test_digests_follow_contents(self) -> None:
		before = sources.load(self.repo, KERNEL)
		write(os.path.join(self.repo, 'kunit', SUITE_H), '/* changed */\n')
		after = sources.load(self.repo, KERNEL)
		self.assertEqual(before.patches_digest(), after.patches_digest())
		self.assertNotEqual(before.suites_digest(), after.suites_digest())

	def _compat(self, *parts: str) -> str:
		return os.path.join(self.repo, 'compat', '6.1', *parts)

	def test_compat_patches_and_files_backport_the_suites(self) -> None:
		newest = sources.load(self.repo, KERNEL).suites
		old = newest[SUITE_H].decode()
		new = old.replace('\n', '\n/* 6.1 */\n', 1)
		write(self._compat('0001-backport.patch'),
		      f'--- a/{SUITE_H}\n+++ b/{SUITE_H}\n@@ -1,{old.count(chr(10))} +1,{new.count(chr(10))} @@\n' +
		      ''.join(('+' if line == '/* 6.1 */' else ' ') + line + '\n'
			      for line in new.splitlines()))
		write(self._compat('series'), '0001-backport.patch\n')
		write(self._compat('tree', 'include', 'kunit', 'shim.h'), '/* shim */\n')
		loaded = sources.load(self.repo, KERNEL)
		self.assertEqual(loaded.suites[SUITE_H].decode(), new)
		self.assertEqual(loaded.suites['include/kunit/shim.h'], b'/* shim */\n')
		# The shim is installed with the suites, but is no suite's file.
		self.assertEqual(loaded.compat, {'include/kunit/shim.h'})
		self.assertNotIn('include/kunit/shim.h',
				 [p for s in suites.grouped(loaded) for p in s.paths + s.shared])
		self.assertEqual(loaded.suites[SUITE_C], newest[SUITE_C])
		# A tree prepared with the suites alone is not current.
		self.assertNotEqual(loaded.suites_digest(), sources.Sources('', [], newest).suites_digest())
		# The repo's kunit/ is untouched.
		self.assertEqual(read(os.path.join(self.repo, 'kunit', SUITE_H)), old)

	def test_compat_patch_that_does_not_apply_is_named(self) -> None:
		write(self._compat('0001-stale.patch'),
		      f'--- a/{SUITE_H}\n+++ b/{SUITE_H}\n@@ -1,1 +1,1 @@\n-no such line\n+a line\n')
		write(self._compat('series'), '0001-stale.patch\n')
		with self.assertRaisesRegex(Error, r'compat/6\.1/0001-stale\.patch does not apply to '
					    r'the suites of kunit/: (.|\n)*Refresh it'):
			sources.load(self.repo, KERNEL)

	def test_compat_series_applies_in_turn_and_names_the_patch_that_does_not(self) -> None:
		first, second = sources.load(self.repo, KERNEL).suites[SUITE_H].decode().split('\n')[:2]
		def change(name: str, old: str, new: str) -> None:
			write(self._compat(name), f'--- a/{SUITE_H}\n+++ b/{SUITE_H}\n@@ -1,2 +1,2 @@\n'
			      f'-{old}\n+{new}\n {second}\n')
		change('0001-one.patch', first, '/* one */')
		change('0002-two.patch', '/* one */', '/* two */')  # applies after 0001 only
		change('0003-stale.patch', 'no such line', 'a line')
		write(self._compat('series'), '0001-one.patch\n0002-two.patch\n')
		self.assertTrue(sources.load(self.repo, KERNEL).suites[SUITE_H].startswith(b'/* two */\n'))
		for series, stale in (('0002-two.patch\n0001-one.patch\n', '0002-two'),
				      ('0001-one.patch\n0002-two.patch\n0003-stale.patch\n', '0003-stale')):
			write(self._compat('series'), series)
			with self.assertRaisesRegex(Error, rf'^compat/6\.1/{stale}\.patch does not apply'):
				sources.load(self.repo, KERNEL)

	def test_compat_file_may_not_replace_a_suite(self) -> None:
		write(self._compat('tree', SUITE_C), '/* replaced */\n')
		with self.assertRaisesRegex(Error, r'clashes with kunit/'):
			sources.load(self.repo, KERNEL)

	def test_missing_patch(self) -> None:
		write(os.path.join(self.repo, 'patches', '6.1', 'series'), 'nope.patch\n')
		with self.assertRaisesRegex(Error, r'series:1: no such patch: .*nope\.patch'):
			sources.load(self.repo, KERNEL)

@end_to_end
class TreeSetupTest(TempDirTestCase):

	def test_kernel_of_names_commit_and_branch_detached_or_not(self) -> None:
		self.copy_prepared_tree()  # what setup_tree() makes
		with mock.patch.object(tree, 'git', wraps=tree.git) as git:
			on_branch = tree.kernel_of(self.tree, [])
		self.assertEqual(git.call_count, 1)  # and the Makefile
		self.assertEqual((on_branch.commit, on_branch.branch),
				 (self.git('rev-parse', 'HEAD'), 'pan-kunit'))
		self.assertEqual((on_branch.package, on_branch.package_version),
				 ('linux-source-6.1', '6.1.192-3'))
		self.git('branch', 'other', 'HEAD^')  # another branch, not HEAD's
		self.git('checkout', '-q', '--detach')
		self.git('commit', '-q', '--allow-empty', '-m', 'detached')
		detached = tree.kernel_of(self.tree, [])
		self.assertEqual((detached.commit, detached.branch, detached.package),
				 (self.git('rev-parse', 'HEAD'), None, 'linux-source-6.1'))
		self.git('checkout', '-q', 'other')
		other = tree.kernel_of(self.tree, [])
		self.assertEqual((other.commit, other.branch), (self.git('rev-parse', 'HEAD'), 'other'))
		# A worktree's git directory, read from its .git file, is git's.
		wt = os.path.join(self.tmp, 'wt')
		self.git('worktree', 'add', '-q', '--detach', wt)
		in_worktree = tree.kernel_of(wt, [])
		self.assertEqual((in_worktree.commit, in_worktree.branch, in_worktree.package),
				 (self.git('rev-parse', 'HEAD'), None, 'linux-source-6.1'))
		self.assertEqual(worktree._git_dir(wt), tree.git(
			wt, 'rev-parse', '--absolute-git-dir').stdout.strip())
		self.assertEqual(worktree._git_dir(self.tree), os.path.join(self.tree, '.git'))

	def test_fresh_extraction(self) -> None:
		output = self.setup_tree()
		self.assertIn(f'extracting {self.tarball} into {self.tree}, which does not exist yet',
			      output)
		self.assertIn(f'extracted {self.tarball}', output)
		self.assertIn('applied the 2 patches', output)
		self.assertEqual(self.git('rev-parse', '--abbrev-ref', 'HEAD'), 'pan-kunit')
		base = self.git('rev-parse', tree.BASE_REF)
		self.assertEqual(self.git('rev-list', '--max-parents=0', 'HEAD'), base)
		self.assertEqual(self.git('show', '-s', '--format=%s', base),
				 'Debian linux-source-6.1 6.1.192-3')
		sha256 = subprocess.run(['sha256sum', self.tarball], stdout=subprocess.PIPE,
					text=True, check=True).stdout.split()[0]
		self.assertIn(sha256, self.git('show', '-s', '--format=%b', base))
		# Debian's .gitignore ignores everything: the base still has every file.
		files = self.git('ls-tree', '-r', '--name-only', base).splitlines()
		self.assertIn('.gitignore', files)
		self.assertIn('tools/testing/kunit/kunit.py', files)
		with tarfile.open(self.tarball) as tar:
			self.assertEqual(len(files), len([m for m in tar.getmembers() if m.isfile()]))
		log = self.git('log', '--format=%an|%cn <%ce>|%s', tree.BASE_REF + '..HEAD').splitlines()
		self.assertEqual(log, [
			'pan-kunit|pan-kunit <pan-kunit@localhost>|pan-kunit: install KUnit suites',
			'Ada Lovelace|pan-kunit <pan-kunit@localhost>|arm64: kernel: build the cpufeature KUnit suite',
			'Ada Lovelace|pan-kunit <pan-kunit@localhost>|arm64: cpufeature: let KUnit suites call has_cpuid_feature()'])
		self.assertEqual(self.git('rev-parse', tree.PREPARED_REF), self.git('rev-parse', 'HEAD'))
		wanted = sources.load(self.repo, KERNEL)
		trailers = self.git('show', '-s', '--format=%(trailers:only)', 'HEAD')
		self.assertIn(f'Pan-Kunit-Patches: {wanted.patches_digest()}', trailers)
		self.assertIn(f'Pan-Kunit-Suites: {wanted.suites_digest()}', trailers)
		self.assertEqual(sorted(self.git('diff', '--name-only', 'HEAD^', 'HEAD').splitlines()),
				 sorted(wanted.suites))
		self.assertEqual(read(os.path.join(self.tree, sources.TREE_KUNITCONFIG)),
				 read(os.path.join(self.repo, 'kunitconfig')))
		exclude = read(os.path.join(self.tree, '.git', 'info', 'exclude')).splitlines()
		self.assertIn('/.pan-kunit/', exclude)
		self.assertIn('/.kunit/', exclude)
		self.assertEqual(tree.changed_files(self.tree), [])
		self.assertEqual(os.listdir(os.path.dirname(self.tree)), ['linux-source-6.1'])

	def test_refs_of_reads_both_refs_with_one_git(self) -> None:
		self.copy_prepared_tree()
		with mock.patch.object(tree, 'git', wraps=tree.git) as git:
			refs = tree.refs_of(self.tree)
		self.assertEqual(git.call_count, 1)
		self.assertEqual(refs.base, self.git('rev-parse', tree.BASE_REF))
		self.assertEqual(refs.base_subject, 'Debian linux-source-6.1 6.1.192-3')
		self.assertEqual(refs.base_subject, tree.base_subject(self.tree))
		self.assertEqual(refs.prepared, self.git('rev-parse', tree.PREPARED_REF))
		wanted = sources.load(self.repo, KERNEL)
		self.assertEqual(dict(refs.trailers), {'Pan-Kunit-Patches': wanted.patches_digest(),
						       'Pan-Kunit-Suites': wanted.suites_digest()})
		# Reached from a commit: those that are its ancestors, or it.
		self.assertEqual(tree.refs_of(self.tree, reached_from='HEAD'), refs)
		base_only = tree.refs_of(self.tree, reached_from='HEAD^')
		self.assertEqual((base_only.base, base_only.base_subject, base_only.prepared,
				  base_only.trailers), (refs.base, refs.base_subject, None, {}))
		self.assertEqual(tree.refs_of(self.tree, reached_from='no-such-commit'), tree.Refs())
		# A ref that names no commit is none; a missing one too.
		self.git('update-ref', tree.PREPARED_REF, self.git('rev-parse', 'HEAD^{tree}'))
		self.git('update-ref', '-d', tree.BASE_REF)
		self.assertEqual(tree.refs_of(self.tree), tree.Refs())
		self.assertEqual(tree.refs_of(self.tmp), tree.Refs())  # no repository

	def test_second_setup_changes_nothing(self) -> None:
		self.copy_prepared_tree()
		head = self.git('rev-parse', 'HEAD')
		before = mtimes(self.tree)
		os.unlink(self.tarball)  # would fail if it extracted again
		os.makedirs(os.path.join(self.tree, '.pan-kunit', 'build'))  # outputs are fine
		start = time.monotonic()
		with mock.patch.object(tree, 'git', wraps=tree.git) as git:
			output = self.setup_tree()
		self.assertLess(time.monotonic() - start, 5)
		# The refs before the lock and under it (with their ancestry), the
		# description of HEAD: nothing else.
		self.assertEqual([c.args[1] for c in git.call_args_list],
				 ['for-each-ref', 'for-each-ref', 'show'])
		self.assertIn(f'{self.tree}:\n    the patches of 6.1 and the KUnit suites are already '
			      'installed\n', output)
		self.assertLessEqual(max(len(line) for line in output.splitlines()
				     if 'KUnit suites are' in line), 80, output)
		self.assertNotIn('\nalready up to date', output)
		self.assertEqual(self.git('rev-parse', 'HEAD'), head)
		self.assertEqual(mtimes(self.tree), before)

	def test_changed_suites_replace_only_the_suites_commit(self) -> None:
		self.copy_prepared_tree()
		patch_commits = self.git('rev-parse', 'HEAD^', 'HEAD^^')
		before = mtimes(self.tree)
		write(os.path.join(self.repo, 'kunit', SUITE_C), '/* new suite */\n')
		os.unlink(os.path.join(self.repo, 'kunit', SUITE_H))
		write(os.path.join(self.repo, 'kunit', 'arch/arm64/kernel/extra_test.c'), '/* x */\n')
		os.unlink(self.tarball)
		output = self.setup_tree()
		self.assertIn('updating the suites', output)
		self.assertIn('2 files written, 1 removed', output)
		self.assertEqual(self.git('rev-parse', 'HEAD^', 'HEAD^^'), patch_commits)
		self.assertEqual(self.git('rev-parse', tree.PREPARED_REF), self.git('rev-parse', 'HEAD'))
		self.assertEqual(read(os.path.join(self.tree, SUITE_C)), '/* new suite */\n')
		self.assertFalse(os.path.exists(os.path.join(self.tree, SUITE_H)))
		self.assertEqual(sorted(self.git('diff', '--name-only', 'HEAD^', 'HEAD').splitlines()),
				 sorted([sources.TREE_KUNITCONFIG, SUITE_C, 'arch/arm64/kernel/extra_test.c']))
		after = mtimes(self.tree)
		for unchanged in (sources.TREE_KUNITCONFIG, 'arch/arm64/kernel/cpufeature.c'):
			path = os.path.join(self.tree, unchanged)
			self.assertEqual(after[path], before[path], unchanged)
		self.assertEqual(tree.changed_files(self.tree), [])
		self.assertIn('and the KUnit suites are already installed', self.setup_tree())

	def test_removed_suite_file_restores_the_file_it_replaced(self) -> None:
		write(os.path.join(self.repo, 'kunit', 'Makefile'), '# replaced\n')
		self.setup_tree()
		self.assertEqual(read(os.path.join(self.tree, 'Makefile')), '# replaced\n')
		os.unlink(os.path.join(self.repo, 'kunit', 'Makefile'))
		self.setup_tree()
		self.assertEqual(read(os.path.join(self.tree, 'Makefile')),
				 read(test_data_path('fake_source', 'linux-source-6.1', 'Makefile')))
		self.assertEqual(tree.changed_files(self.tree), [])

	def test_changed_patches_are_applied_again(self) -> None:
		self.copy_prepared_tree()
		base = self.git('rev-parse', tree.BASE_REF)
		self.set_series(PATCH_1, PATCH_2, PATCH_3)
		os.unlink(self.tarball)
		output = self.setup_tree()
		self.assertIn('updating the patches', output)
		self.assertIn('applied the 3 patches', output)
		self.assertEqual(self.git('rev-parse', tree.BASE_REF), base)
		self.assertEqual(self.git('log', '--format=%s', tree.BASE_REF + '..HEAD').splitlines(), [
			'pan-kunit: install KUnit suites',
			'arm64: cpufeature: document the PAN levels',
			'arm64: kernel: build the cpufeature KUnit suite',
			'arm64: cpufeature: let KUnit suites call has_cpuid_feature()'])
		self.assertIn('FEAT_PAN2', read(os.path.join(self.tree, 'arch/arm64/kernel/cpufeature.c')))
		self.assertEqual(tree.changed_files(self.tree), [])

	def test_dirty_tree_is_not_updated(self) -> None:
		self.copy_prepared_tree()
		head = self.git('rev-parse', 'HEAD')
		cpufeature = os.path.join(self.tree, 'arch/arm64/kernel/cpufeature.c')
		with open(cpufeature, 'a') as f:
			f.write('/* my edit */\n')
		write(os.path.join(self.tree, 'arch/arm64/kernel/scratch.c'), '/* mine */\n')
		# Up to date: edits are fine, and run names them.
		self.assertIn('and the KUnit suites are already installed', self.setup_tree())
		writes: List[str] = []
		class Recorder(io.StringIO):
			def write(self, text: str) -> int:
				writes.append(text)
				return len(text)
		with contextlib.redirect_stdout(Recorder()):
			targets.note_edits(plain_printer(), self.tree)
		# In one write: run notes them in a thread, while the builds print.
		self.assertEqual(writes, [f'note: building with uncommitted changes in {self.tree}: '
					  'arch/arm64/kernel/cpufeature.c, arch/arm64/kernel/scratch.c\n'])
		# An update would overwrite them: refused.
		write(os.path.join(self.repo, 'kunit', SUITE_H), '/* changed */\n')
		with self.assertRaises(Error) as e:
			self.setup_tree()
		self.assertIn('uncommitted changes:\n  arch/arm64/kernel/cpufeature.c\n'
			      '  arch/arm64/kernel/scratch.c\n', str(e.exception))
		self.assertEqual(self.git('rev-parse', 'HEAD'), head)
		self.assertTrue(read(cpufeature).endswith('/* my edit */\n'))
		self.assertTrue(os.path.exists(os.path.join(self.tree, 'arch/arm64/kernel/scratch.c')))

	def test_am_in_progress_is_not_touched(self) -> None:
		self.copy_prepared_tree()
		head = self.git('rev-parse', 'HEAD')
		am = subprocess.run(['git', '-C', self.tree, 'am', test_data_path('patches', STALE_PATCH)],
				    env=dict(os.environ, **USER_GIT_ENV), stdout=subprocess.PIPE,
				    stderr=subprocess.PIPE, check=False)
		self.assertNotEqual(am.returncode, 0)
		rebase_apply = os.path.join(self.tree, '.git', 'rebase-apply')
		self.assertTrue(os.path.isdir(rebase_apply))
		write(os.path.join(self.repo, 'kunit', SUITE_H), '/* changed */\n')
		with self.assertRaisesRegex(Error, 'has a git am or rebase in progress; finish it or '
					    'abort it'):
			self.setup_tree()
		self.assertTrue(os.path.isdir(rebase_apply))
		self.assertEqual(self.git('rev-parse', 'HEAD'), head)

	def interrupted(self) -> None:
		"""What a setup stopped while it changed the tree leaves."""
		write(os.path.join(self.tree, '.git', tree.SETUP_MARK), 'a setup is changing it\n')

	def test_a_setup_stopped_in_a_git_am_is_done_again(self) -> None:
		self.copy_prepared_tree()
		self.set_series(PATCH_1, PATCH_2, PATCH_3)
		self.git('reset', '-q', '--hard', tree.BASE_REF)
		# pan-kunit's git am of the series, stopped in its second patch.
		tree.git(self.tree, 'am', '-q', test_data_path('fake_repo', 'patches', '6.1', PATCH_1))
		self.interrupted()
		tree.git(self.tree, 'am', '-q', test_data_path('patches', STALE_PATCH), check=False)
		self.assertTrue(os.path.isdir(os.path.join(self.tree, '.git', 'rebase-apply')))
		output = self.setup_tree()
		self.assertIn(f'{self.tree}: the last setup was stopped before it ended, in a git am of '
			      'the series: aborting it; setting the tree up again\n', output)
		self.assertIn('applied the 3 patches', output)
		self.assertEqual(self.git('rev-parse', tree.PREPARED_REF), self.git('rev-parse', 'HEAD'))
		self.assertEqual(tree.changed_files(self.tree), [])
		self.assertFalse(os.path.exists(os.path.join(self.tree, '.git', tree.SETUP_MARK)))
		self.assertIn('already installed', self.setup_tree())

	def test_a_setup_stopped_while_it_wrote_the_suites_is_done_again(self) -> None:
		self.copy_prepared_tree()
		write(os.path.join(self.repo, 'kunit', SUITE_H), '/* changed */\n')
		# Stopped in _install_suites(): its reset --soft done, the new
		# header written, nothing committed.
		self.interrupted()
		self.git('reset', '-q', '--soft', 'HEAD^')
		write(os.path.join(self.tree, SUITE_H), '/* changed */\n')
		mine = os.path.join(self.tree, 'arch/arm64/kernel/cpufeature.c')
		with open(mine, 'a') as f:
			f.write('/* my edit, since */\n')
		# The user's edit is theirs: refused, naming it alone.
		with self.assertRaises(Error) as e:
			self.setup_tree()
		self.assertIn('uncommitted changes:\n  arch/arm64/kernel/cpufeature.c\npan-kunit does',
			      str(e.exception))
		self.git('checkout', '--', 'arch/arm64/kernel/cpufeature.c')
		self.interrupted()
		output = self.setup_tree()
		self.assertIn('the last setup was stopped before it ended; setting the tree up again',
			      output)
		self.assertEqual(read(os.path.join(self.tree, SUITE_H)), '/* changed */\n')
		self.assertEqual(self.git('rev-parse', tree.PREPARED_REF), self.git('rev-parse', 'HEAD'))
		self.assertEqual(tree.changed_files(self.tree), [])

	def test_user_commits_are_not_discarded(self) -> None:
		self.copy_prepared_tree()
		write(os.path.join(self.tree, 'arch/arm64/kernel/cpufeature.c'), '/* rewritten */\n')
		self.git('commit', '-q', '-a', '-m', 'arm64: my experiment')
		head = self.git('rev-parse', 'HEAD')
		short = self.git('rev-parse', '--short', 'HEAD')
		self.assertIn('and the KUnit suites are already installed', self.setup_tree())  # prepared is an ancestor
		write(os.path.join(self.repo, 'kunit', SUITE_H), '/* changed */\n')
		with self.assertRaises(Error) as e:
			self.setup_tree()
		self.assertIn(f'commits that pan-kunit did not make:\n  {short} arm64: my experiment\n',
			      str(e.exception))
		self.assertEqual(self.git('rev-parse', 'HEAD'), head)

	def test_foreign_directory_is_left_alone(self) -> None:
		write(os.path.join(self.tree, 'notes.txt'), 'mine\n')
		with self.assertRaisesRegex(Error, 'is not a pan-kunit tree'):
			self.setup_tree()
		self.git('init', '-q')
		with self.assertRaisesRegex(Error, 'is not a pan-kunit tree'):
			self.setup_tree()
		self.assertEqual(sorted(os.listdir(self.tree)), ['.git', 'notes.txt'])
		self.assertEqual(read(os.path.join(self.tree, 'notes.txt')), 'mine\n')

	def test_patch_that_does_not_apply_then_fixed(self) -> None:
		self.set_series(PATCH_1, STALE_PATCH, PATCH_2)
		with self.assertRaises(Error) as e:
			self.setup_tree()
		message = str(e.exception)
		self.assertIn(os.path.join(self.repo, 'patches', '6.1', STALE_PATCH) + ' does not apply', message)
		self.assertIn('error: patch failed: arch/arm64/kernel/cpufeature.c:23', message)
		self.assertIn('error: arch/arm64/kernel/cpufeature.c: patch does not apply', message)
		good = self.git('show', '-s', '--format=%h %s', 'HEAD')
		self.assertEqual(good.split(' ', 1)[1],
				 'arm64: cpufeature: let KUnit suites call has_cpuid_feature()')
		self.assertIn(f'is at {good}, the last commit that applied', message)
		self.assertFalse(os.path.exists(os.path.join(self.tree, '.git', 'rebase-apply')))
		self.assertEqual(tree.changed_files(self.tree), [])
		# The fixed series recovers from the partial tree.
		self.set_series(PATCH_1, PATCH_2)
		self.setup_tree()
		self.assertEqual(len(self.git('log', '--format=%s', tree.BASE_REF + '..HEAD').splitlines()), 3)
		self.assertEqual(self.git('rev-parse', tree.PREPARED_REF), self.git('rev-parse', 'HEAD'))

	def test_other_package_version_only_warns(self) -> None:
		self.copy_prepared_tree()
		err = io.StringIO()
		with contextlib.redirect_stderr(err):
			self.assertIn('and the KUnit suites are already installed', self.setup_tree(version='6.1.200-1'))
		self.assertIn('holds linux-source-6.1 6.1.192-3, but 6.1.200-1 is installed',
			      err.getvalue())

	def test_leftover_partial_extraction_is_removed(self) -> None:
		dead = subprocess.Popen(['true'])
		dead.wait()
		leftover = f'{self.tree}.partial-{dead.pid}'
		write(os.path.join(leftover, 'linux-source-6.1', 'Makefile'), 'half\n')
		self.assertIn(f'removing {leftover}', self.setup_tree())
		self.assertEqual(os.listdir(os.path.dirname(self.tree)), ['linux-source-6.1'])


if __name__ == '__main__':
	unittest.main()

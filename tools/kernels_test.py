#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of --kernel, the supported kernels (pan_kunit.trees.kernels) and the tree
# of each.

import os
import shutil
import unittest
from typing import Dict, List, Optional, Tuple
from unittest import mock

from pan_kunit import Error
from pan_kunit.commands import cli
from pan_kunit.trees import kernels, sources, targets, tree
from testlib import (REPO, VERSION, KERNEL, kernel, test_data_path, read, write, TempDirTestCase,
		     end_to_end, setUpModule, tearDownModule, plain_printer)

class KernelsTest(TempDirTestCase):
	"""--kernel, the supported kernels, and which tree each command uses."""

	def add_kernel(self, name: str) -> None:
		"""Gives the repo a series for kernel @name: fake_repo's."""
		shutil.copytree(os.path.join(self.repo, 'patches', '6.1'),
				os.path.join(self.repo, 'patches', name))

	def targets(self, *argv: str, env: Optional[Dict[str, str]]=None) -> List[Tuple[str, str]]:
		with mock.patch.dict(os.environ, env or {}):
			if not env or 'PAN_KUNIT_TREE' not in env:
				os.environ.pop('PAN_KUNIT_TREE', None)
			found = cli.resolve_targets(cli.parse_args(list(argv)), self.repo)
		return [(t.kernel.name, t.tree) for t in found]

	def test_supported_are_those_with_a_series(self) -> None:
		self.assertEqual([k.name for k in kernels.supported(self.repo)], ['6.1'])
		self.add_kernel('6.12')
		self.assertEqual([k.name for k in kernels.supported(self.repo)], ['6.1', '6.12'])
		self.assertEqual([k.name for k in kernels.select(self.repo, ['6.12', '6.1'])],
				 ['6.1', '6.12'])
		with self.assertRaisesRegex(Error, r'^--kernel 5\.10: unknown; the supported kernels '
					    r'are 6\.1, 6\.12$'):
			kernels.select(self.repo, ['5.10'])
		shutil.rmtree(os.path.join(self.repo, 'patches', '6.12'))
		with self.assertRaisesRegex(Error, r'^--kernel 6\.12: not supported: no '
					    r'patches/6\.12/series; the supported kernels are 6\.1$'):
			kernels.select(self.repo, ['6.12'])

	def test_a_kernels_own_kconfig_is_merged_after_the_common_ones(self) -> None:
		# kunitconfig and lean.config hold what every kernel accepts; a
		# symbol another kernel lacks goes in kconfig/VERSION.config.
		self.add_kernel('6.12')
		k61, k612 = kernels.select(self.repo, [])
		common = [os.path.join(self.repo, targets.LKDTM_KCONFIG),
			  os.path.join(self.repo, targets.LEAN_KCONFIG)]
		write(os.path.join(self.repo, 'kconfig', '6.12.config'), 'CONFIG_X=y\n')
		self.assertEqual(targets.fragments(self.repo, k61), common)
		self.assertEqual(targets.fragments(self.repo, k612),
				 common + [os.path.join(self.repo, 'kconfig', '6.12.config')])

	def test_the_repos_kconfig_files_hold_only_what_every_kernel_accepts(self) -> None:
		# linux-source-7.3 has no ARM64_PAN, ARM64_USE_LSE_ATOMICS nor
		# SCHED_DEBUG: kunit.py's config check would fail on them.
		for name in ('kunitconfig', targets.LEAN_KCONFIG, targets.LKDTM_KCONFIG):
			text = read(os.path.join(REPO, name))
			for symbol in ('ARM64_PAN', 'ARM64_USE_LSE_ATOMICS', 'SCHED_DEBUG'):
				self.assertNotRegex(text, rf'CONFIG_{symbol}[= ]', name)

	def test_one_default_tree_per_kernel(self) -> None:
		self.add_kernel('6.12')
		cache = os.path.join(self.tmp, 'cache')
		env = {'PAN_KUNIT_CACHE': cache}
		both = [('6.1', f'{cache}/linux-source-6.1'), ('6.12', f'{cache}/linux-source-6.12')]
		for command in (['setup'], ['run'], ['lkdtm'], ['bisect'], ['mutants']):
			self.assertEqual(self.targets(*command, env=env), both, command)
			self.assertEqual(self.targets(*command, '--kernel', '6.12', env=env), both[1:])
		# One series, against one kernel: the newest, unless --kernel says.
		self.assertEqual(self.targets('export', 'out', env=env), both[1:])
		self.assertEqual(self.targets('bisect', 'my.mbox', env=env), both[1:])
		self.assertEqual(self.targets('bisect', 'my.mbox', '--kernel', '6.1', env=env),
				 both[:1])
		home = os.path.join(self.tmp, 'home')
		self.assertEqual(self.targets('run', '--kernel', '6.1', env={'HOME': home}),
				 [('6.1', f'{home}/.cache/pan-kunit/linux-source-6.1')])

	@end_to_end
	def test_a_named_tree_is_of_the_kernel_it_holds(self) -> None:
		self.add_kernel('6.12')
		self.copy_prepared_tree()  # a 6.1 tree, by its base commit
		moved = os.path.join(self.tmp, 'linux-source-6.12')  # its path says nothing
		os.rename(self.tree, moved)
		self.assertEqual(self.targets('--tree', moved, 'run'), [('6.1', moved)])
		self.assertEqual(self.targets('run', env={'PAN_KUNIT_TREE': moved}), [('6.1', moved)])
		with self.assertRaisesRegex(Error, f'^{moved} holds linux-source-6.1, not '
					    'linux-source-6.12: give --kernel 6.1, or another tree$'):
			self.targets('--tree', moved, 'run', '--kernel', '6.12')
		# A tree that does not exist yet holds no kernel to read.
		new = os.path.join(self.tmp, 'new')
		with self.assertRaisesRegex(Error, f'the tree {new} does not exist yet, so it holds no '
					    'kernel to read: name the one setup should extract into '
					    r'it with --kernel \(6\.1, 6\.12\)'):
			self.targets('--tree', new, 'setup')
		self.assertEqual(self.targets('--tree', new, 'setup', '--kernel', '6.12'),
				 [('6.12', new)])
		# In a directory that does not exist either: that first, since
		# --kernel would not do.
		nowhere = os.path.join(self.tmp, 'nowhere', 'new')
		with self.assertRaisesRegex(Error, f'^the tree {nowhere} does not exist, nor does its '
					    'directory'):
			self.targets('--tree', nowhere, 'run')
		# A Debian tree that is no pan-kunit tree yet: its Makefile's.
		plain = os.path.join(self.tmp, 'plain')
		shutil.copytree(test_data_path('fake_source', 'linux-source-6.1'), plain)
		self.assertEqual(self.targets('--tree', plain, 'run'), [('6.1', plain)])

	@end_to_end
	def test_setup_refuses_a_tree_of_another_kernel(self) -> None:
		self.add_kernel('6.12')
		self.copy_prepared_tree()
		with self.assertRaisesRegex(Error, f'^{self.tree} holds linux-source-6.1, not '
					    'linux-source-6.12: pan-kunit leaves it alone'):
			tree.setup(plain_printer(), self.tree, kernel('6.12'),
				   sources.load(self.repo, KERNEL), self.tarball, VERSION)


if __name__ == '__main__':
	unittest.main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The fault-injection layer (faultlib.py), at the stages of a setup that a run
# does: the packages installed (a stand-in for apt-get on PATH), extraction,
# the series applied, the suites installed, and the clone of a tree of the
# user's own (--tree on their git checkout), which is never written.

import os
import shutil
import signal
import unittest
from typing import Any, List, Sequence
from unittest import mock

from faultlib import FaultTestCase, SIGNALS, kill_self_when
from pan_kunit.host import packages
from pan_kunit.host.printer import Printer
from pan_kunit.trees import tree, usertree
from testlib import (edit_file, from_scratch, make_user_tree, read, snapshot, write, setUpModule,
		     tearDownModule)

# packages.ensure(), before FakeKunitTestCase replaces it.
REAL_ENSURE = packages.ensure

# A stand-in for apt-get: traces its arguments; `install` with
# FAKE_KUNIT_STALL=apt:DIR stalls, as an apt-get that waits for dpkg, and
# ignores SIGTERM and SIGHUP (only SIGKILL ends it), once it wrote DIR/apt.
FAKE_APT_GET = """#!/bin/sh
echo "apt-get $*" >> "$FAKE_KUNIT_TRACE"
case "$1 $FAKE_KUNIT_STALL" in
"install apt:"*)
	trap '' TERM HUP
	where="${FAKE_KUNIT_STALL#apt:}/apt"
	echo "$$ $$" > "$where.tmp" && mv "$where.tmp" "$where"
	exec sleep 600;;
esac
"""

class SetupFaultTest(FaultTestCase):

	def test_killed_while_it_installs_the_packages(self) -> None:
		# packages.ensure() as root, with linux-source-6.1 missing, and the
		# fake apt-get first on PATH: never this machine's APT.
		bin_dir = os.path.join(self.tmp, 'bin')
		write(os.path.join(bin_dir, 'apt-get'), FAKE_APT_GET)
		os.chmod(os.path.join(bin_dir, 'apt-get'), 0o755)
		def ensure(printer: Printer, sources: Sequence[str]=(), extra: Sequence[str]=()) -> None:
			REAL_ENSURE(printer, sources, extra,
				    installed=lambda wanted: {p: '1:10.0.2' for p in wanted
							      if p not in sources},
				    euid=lambda: 0, release=lambda: None, older=lambda v, m: False,
				    root=self.tmp)
		with mock.patch.dict(os.environ, {'PATH': bin_dir + os.pathsep + os.environ['PATH']}), \
		     mock.patch.object(packages, 'ensure', ensure):
			for signum in SIGNALS:
				write(self.trace, '')
				with self.subTest(signal=signal.Signals(signum).name):
					self.check(signum, stall='apt')
					os.unlink(os.path.join(self.stall_dir, 'apt'))
					# Both runs asked for the missing package; the next
					# one got it.
					installs = [c for c in self.traced('apt-get') if c[1] == 'install']
					self.assertEqual(len(installs), 2, installs)
					self.assertEqual(installs[-1][-2:], ['--no-upgrade', 'linux-source-6.1'])

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


class UserTreeFaultTest(FaultTestCase):
	"""`run` on a tree of the user's own, killed while it makes and fills
	its clone: the user's tree is untouched (every file's bytes, mode
	and mtime, .git's too), and the next run tests their HEAD and edits."""

	def setUp(self) -> None:
		super().setUp()
		self.user = os.path.join(self.tmp, 'work', 'linux')
		make_user_tree(self.tarball, self.user)
		edit_file(os.path.join(self.user, 'arch/arm64/kernel/cpufeature.c'), 'fixture).',
			  'fixture), edited.')
		self.before = snapshot(self.user)
		self.clone = usertree.clone_dir(os.path.join(self.tmp, 'cache'), self.user)

	def argv(self) -> List[str]:
		return ['--tree', self.user] + super().argv()[2:]

	def check_next(self, again: str) -> None:
		super().check_next(again)
		self.assertIn(f'tested your tree {self.user}: branch topic', again)
		self.assertEqual(snapshot(self.user), self.before)
		self.assertIn('fixture), edited.',
			      read(os.path.join(self.clone, 'arch/arm64/kernel/cpufeature.c')))
		self.assertEqual(tree.rev(self.clone, tree.PREPARED_REF), tree.rev(self.clone, 'HEAD'))
		self.assertEqual([n for n in os.listdir(os.path.dirname(self.clone))
				  if '.partial-' in n], [])

	@from_scratch
	def test_killed_while_it_makes_the_clone(self) -> None:
		def init(tree_dir: str, *args: str, **kwargs: Any) -> bool:
			return args[:1] == ('init',)
		for signum in SIGNALS:
			shutil.rmtree(os.path.dirname(self.clone), ignore_errors=True)
			with self.subTest(signal=signal.Signals(signum).name):
				again = self.check(signum, kill_self_when(tree, 'git', signum, init,
									   after=True), edit=False)
				if signum == signal.SIGKILL:
					self.assertRegex(again, r'removing \S+\.partial-[0-9]+, left by an '
							 'interrupted setup\n')

	@from_scratch
	def test_killed_while_it_applies_the_series_in_the_clone(self) -> None:
		for signum in SIGNALS:
			shutil.rmtree(os.path.dirname(self.clone), ignore_errors=True)
			with self.subTest(signal=signal.Signals(signum).name):
				self.check(signum, kill_self_when(usertree.Clone, 'commit_mail', signum,
								  after=True), edit=False)


if __name__ == '__main__':
	unittest.main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the Debian packages and commands each command needs
# (pan_kunit.packages).

import contextlib
import io
import os
import subprocess
import tempfile
import unittest
from typing import Any, Callable, List, Sequence, Set
from unittest import mock

from pan_kunit import Error, cli, coverage, packages, tree
from testlib import REAL_REQUIRE, test_data_path, setUpModule, tearDownModule

def lacking(*names: str) -> Callable[[Sequence[str]], Set[str]]:
	"""A packages.installed() that has every package but @names."""
	return lambda wanted: {p for p in wanted if p not in names}

class PackagesTest(unittest.TestCase):

	def setUp(self) -> None:
		self.apt_calls: List[List[str]] = []

	def apt_get(self, args: List[str]) -> int:
		self.apt_calls.append(args)
		return 0

	def test_missing_as_user_names_the_command(self) -> None:
		with self.assertRaises(Error) as e:
			packages.ensure(installed=lacking('bc', 'qemu-system-arm'),
					euid=lambda: 1000, apt_get=self.apt_get)
		self.assertIn('run as root: apt-get install -y --no-install-recommends '
			      'qemu-system-arm bc', str(e.exception))
		self.assertEqual(self.apt_calls, [])

	def test_missing_as_root_installs_them(self) -> None:
		with contextlib.redirect_stdout(io.StringIO()):
			packages.ensure(installed=lacking('bc', 'qemu-system-arm'),
					euid=lambda: 0, apt_get=self.apt_get)
		self.assertEqual(self.apt_calls, [
			['update'],
			['install', '-y', '--no-install-recommends', 'qemu-system-arm', 'bc']])

	def test_failing_apt_get_is_an_error(self) -> None:
		with contextlib.redirect_stdout(io.StringIO()), self.assertRaises(Error) as e:
			packages.ensure(installed=lacking('flex'), euid=lambda: 0,
					apt_get=lambda args: 100 if args[0] == 'install' else 0)
		self.assertIn('apt-get install -y --no-install-recommends flex failed', str(e.exception))

	def test_a_commands_extra_packages_are_installed_with_the_rest(self) -> None:
		with contextlib.redirect_stdout(io.StringIO()):
			packages.ensure(['linux-source-6.12'], coverage.PACKAGES,
					installed=lambda wanted: set(wanted) & set(packages.NEEDED),
					euid=lambda: 0, apt_get=self.apt_get)
		self.assertEqual(self.apt_calls[-1], ['install', '-y', '--no-install-recommends',
						      'linux-source-6.12', 'lcov'])

	def test_all_present_runs_nothing(self) -> None:
		euid = mock.Mock(return_value=1000)
		packages.ensure(installed=set, euid=euid, apt_get=self.apt_get)
		euid.assert_not_called()
		self.assertEqual(self.apt_calls, [])

	def fake_dpkg(self, **env: str) -> Any:
		fake = test_data_path('fake_dpkg')
		return mock.patch.dict(os.environ, dict(env, PATH=fake + os.pathsep + os.environ['PATH']))

	def test_installed_asks_dpkg_query_once(self) -> None:
		with self.fake_dpkg(), \
		     mock.patch.object(subprocess, 'run', wraps=subprocess.run) as run:
			# flex: removed, its configuration kept; libssl-dev: so for the
			# host's amd64, installed for arm64 only; libc6-dev: amd64 and
			# i386; make: a trigger pending; lcov: unknown to dpkg.
			self.assertEqual(packages.installed(['bc', 'flex', 'libssl-dev', 'libc6-dev',
							     'make', 'linux-source-6.1', 'lcov']),
					 {'bc', 'libc6-dev', 'make', 'linux-source-6.1'})
			self.assertEqual([c.args[0][0] for c in run.call_args_list], ['dpkg', 'dpkg-query'])
			self.assertTrue(packages.is_installed('bc'))
			self.assertFalse(packages.is_installed('lcov'))
		self.assertEqual(packages.installed([]), set())

	def test_a_failing_dpkg_query_is_an_error(self) -> None:
		# Not "every package is missing", which would install them all.
		with self.fake_dpkg(FAKE_DPKG_BROKEN='1'), self.assertRaises(Error) as e:
			packages.ensure(euid=lambda: 0, apt_get=self.apt_get)
		self.assertEqual(str(e.exception), "dpkg-query -W failed (exit 2): dpkg-query: error: "
				 "parsing file '/var/lib/dpkg/status' near line 7: newline in field "
				 "name '#padding'")
		self.assertEqual(self.apt_calls, [])

	def test_no_dpkg_query_is_no_debian_host(self) -> None:
		with tempfile.TemporaryDirectory() as empty, \
		     mock.patch.dict(os.environ, {'PATH': empty}):
			with self.assertRaises(Error) as e:
				packages.ensure(['linux-source-6.1'])
			self.assertIn('no dpkg-query: this is not a Debian host. pan-kunit builds '
				      "Debian's linux-source-6.1 and installs what it needs only on Debian, "
				      'with apt-get; it needs the Debian packages: linux-source-6.1 '
				      'gcc-aarch64-linux-gnu qemu-system-arm', str(e.exception))
			with self.assertRaisesRegex(Error, 'no dpkg-query'):
				packages.version('linux-source-6.1')
			# And from the command line: exit 2 and the message, no traceback.
			err = io.StringIO()
			with contextlib.redirect_stderr(err):
				status = cli.main(['--tree', os.path.join(empty, 'tree'), 'setup'],
						  repo=test_data_path('fake_repo'))
			self.assertEqual(status, 2)
			self.assertTrue(err.getvalue().startswith('pan-kunit: error: no dpkg-query: '),
					err.getvalue())
			self.assertEqual(os.listdir(empty), [])

	def test_missing_tools_are_named_with_their_packages(self) -> None:
		on_path = {'git', 'tar', 'xz', 'make', 'gcc', 'bc', 'bison', 'flex'}
		which = lambda c: f'/usr/bin/{c}' if c in on_path else None
		with self.assertRaises(Error) as e:
			REAL_REQUIRE(packages.SETUP_TOOLS + packages.BUILD_TOOLS + packages.BOOT_TOOLS,
				     'run', which=which)
		self.assertIn('run needs aarch64-linux-gnu-gcc (Debian package gcc-aarch64-linux-gnu), '
			      'qemu-system-aarch64 (Debian package qemu-system-arm), not found on PATH',
			      str(e.exception))
		REAL_REQUIRE(packages.SETUP_TOOLS, 'export', which=which)

	def test_no_git_is_an_error(self) -> None:
		with tempfile.TemporaryDirectory() as empty, \
		     mock.patch.dict(os.environ, {'PATH': empty}), \
		     self.assertRaisesRegex(Error, r'git is not installed \(Debian package git, '):
			tree.git(empty, 'status')


if __name__ == '__main__':
	unittest.main()

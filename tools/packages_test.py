#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the Debian packages and commands each command needs
# (pan_kunit.host.packages).

import contextlib
import io
import os
import shutil
import tempfile
import unittest
from typing import Any, Callable, Dict, List, Sequence
from unittest import mock

from pan_kunit import Error
from pan_kunit.commands import cli, coverage
from pan_kunit.host import packages, proc
from pan_kunit.trees import tree
from testlib import REAL_REQUIRE, test_data_path, setUpModule, tearDownModule, plain_printer

def lacking(*names: str, qemu: str='1:10.0.2') -> Callable[[Sequence[str]], Dict[str, str]]:
	"""A packages.installed_versions() that has every package but @names,
	QEMU's at version @qemu, the others at 1.0."""
	return lambda wanted: {p: qemu if p in packages.QEMU.packages else '1.0'
			       for p in wanted if p not in names}

# Debian version order, for the versions these tests use.
ORDER = ['1.0', '1:7.2+dfsg-7', '1:10.0', '1:10.0.2']

def older(version: str, minimum: str) -> bool:
	return ORDER.index(version) < ORDER.index(minimum)

APT_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test_data', 'apt')

class PackagesTest(unittest.TestCase):

	def setUp(self) -> None:
		self.apt_calls: List[List[str]] = []
		self.simulated_calls: List[List[str]] = []

	def ensure(self, sources: Sequence[str]=(), extra: Sequence[str]=(), *,
		   installed: Callable[[Sequence[str]], Dict[str, str]], euid: int,
		   release: str='bookworm', root: str='/nowhere') -> str:
		out = io.StringIO()
		with contextlib.redirect_stdout(out):
			packages.ensure(plain_printer(), sources, extra, installed=installed, euid=lambda: euid,
					apt_get=self.apt_get, simulate=self.simulate, release=lambda: release,
					older=older, root=root)
		return out.getvalue()

	def apt_root(self) -> str:
		"""A copy of the bookworm machine of test_data/apt/deb822, as /."""
		tmp = tempfile.mkdtemp()
		self.addCleanup(shutil.rmtree, tmp)
		root = os.path.join(tmp, 'root')
		shutil.copytree(os.path.join(APT_DATA, 'deb822'), root)
		return root

	def apt_get(self, args: List[str]) -> int:
		self.apt_calls.append(args)
		return 0

	def simulate(self, args: List[str]) -> str:
		"""apt-get -s @args: what self.simulated says (the test's)."""
		self.simulated_calls.append(args)
		return getattr(self, 'simulated', '')

	def test_missing_as_user_names_the_command(self) -> None:
		with self.assertRaises(Error) as e:
			self.ensure(installed=lacking('bc', 'gcc'), euid=1000)
		self.assertIn('run as root: apt-get install -y --no-install-recommends '
			      '-o APT::Get::Upgrade-By-Source-Package=false bc gcc', str(e.exception))
		self.assertEqual(self.apt_calls, [])

	def test_missing_as_root_installs_them(self) -> None:
		self.ensure(installed=lacking('bc', 'gcc'), euid=0)
		self.assertEqual(self.apt_calls, [
			['update'],
			['install', '-y', '--no-install-recommends', '-o',
			 'APT::Get::Upgrade-By-Source-Package=false', '--no-upgrade', 'bc', 'gcc']])
		self.assertEqual(self.simulated_calls, self.apt_calls[1:])

	def test_what_apt_get_upgrades_beside_them_is_named_first(self) -> None:
		# apt-get -s install of the compilers on a Debian 12 whose libc6
		# and libssl3 are older than the archive's.
		self.simulated = '\n'.join([
			'NOTE: This is only a simulation!',
			'Inst libc6 [2.36-9+deb12u7] (2.36-9+deb12u14 Debian-Security:12/stable-security '
			'[amd64]) []',
			'Inst libc-dev-bin (2.36-9+deb12u14 Debian-Security:12/stable-security [amd64])',
			'Inst libc6-dev (2.36-9+deb12u14 Debian-Security:12/stable-security [amd64])',
			'Inst libssl3:amd64 [3.0.15-1~deb12u1] (3.0.17-1~deb12u2 Debian:12.11/stable '
			'[amd64])',
			'Inst bc (1.07.1-3+b1 Debian:12.11/stable [amd64])',
			'Conf libc6 (2.36-9+deb12u14 Debian-Security:12/stable-security [amd64])'])
		output = self.ensure(installed=lacking('bc', 'libc6-dev'), euid=0)
		self.assertIn('installing Debian packages: bc libc6-dev\n'
			      'note: apt-get also upgrades libc6 2.36-9+deb12u7 to 2.36-9+deb12u14: a '
			      'package it installs depends on that version\n'
			      'note: apt-get also upgrades libssl3:amd64 3.0.15-1~deb12u1 to '
			      '3.0.17-1~deb12u2: a package it installs depends on that version\n', output)
		self.assertNotIn('libc-dev-bin', output)

	def test_other_packages_of_a_source_package_are_kept(self) -> None:
		# apt-get -s install --no-upgrade linux-source-6.1 on a Debian 12
		# with linux-libc-dev and linux-perf 6.1.187-1 (all three of source
		# package linux), without the option: APT 2.6 upgrades both to the
		# 6.1.192-3 it installs; with it, neither.
		def simulate(args: List[str]) -> str:
			self.simulated_calls.append(args)
			if 'APT::Get::Upgrade-By-Source-Package=false' in args:
				return 'Inst linux-source-6.1 (6.1.192-3 Debian-Security:12 [all])\n'
			return ''.join(f'Inst {name} [6.1.187-1] (6.1.192-3 Debian-Security:12 [amd64])\n'
				       for name in ('linux-libc-dev', 'linux-perf')) + \
				'Inst linux-source-6.1 (6.1.192-3 Debian-Security:12 [all])\n'
		with mock.patch.object(self, 'simulate', simulate):
			output = self.ensure(['linux-source-6.1'], installed=lacking('linux-source-6.1'),
					     euid=0)
		self.assertEqual(output, 'installing Debian packages: linux-source-6.1\n')
		self.assertEqual(self.simulated_calls, self.apt_calls[1:])

	def test_failing_apt_get_is_an_error(self) -> None:
		with contextlib.redirect_stdout(io.StringIO()), self.assertRaises(Error) as e:
			packages.ensure(plain_printer(), installed=lacking('flex'), euid=lambda: 0,
					apt_get=lambda args: 100 if args[0] == 'install' else 0,
					simulate=lambda args: '', release=lambda: 'bookworm', older=older)
		self.assertIn('apt-get install -y --no-install-recommends '
			      '-o APT::Get::Upgrade-By-Source-Package=false --no-upgrade flex failed',
			      str(e.exception))

	def test_a_commands_extra_packages_are_installed_with_the_rest(self) -> None:
		have = lacking()
		self.ensure(['linux-source-6.12'], coverage.PACKAGES, euid=0,
			    installed=lambda wanted: {p: v for p, v in have(wanted).items()
						      if p in packages.NEEDED + list(packages.QEMU.packages)})
		self.assertEqual(self.apt_calls[-1], ['install', '-y', '--no-install-recommends', '-o',
						      'APT::Get::Upgrade-By-Source-Package=false',
						      '--no-upgrade', 'linux-source-6.12', 'lcov'])

	def test_all_present_runs_nothing(self) -> None:
		euid = mock.Mock(return_value=1000)
		packages.ensure(plain_printer(), installed=lacking(), euid=euid, apt_get=self.apt_get,
				release=lambda: 'bookworm', older=older)
		euid.assert_not_called()
		self.assertEqual(self.apt_calls, [])

	def test_root_upgrades_qemu_from_bookworm_backports(self) -> None:
		root = self.apt_root()
		output = self.ensure(installed=lacking(qemu='1:7.2+dfsg-7'), euid=0, root=root)
		pref = os.path.join(root, 'etc/apt/preferences.d/pan-kunit-bookworm-backports.pref')
		with open(pref) as f:
			text = f.read()
		for package in ('qemu-system-arm', 'qemu-system-common', 'qemu-system-data'):
			self.assertIn(f'Package: {package}\nPin: release n=bookworm-backports\n'
				      'Pin-Priority: 500\n', text)
		self.assertIn('Package: *\nPin: release n=bookworm-backports\nPin-Priority: -1\n', text)
		self.assertTrue(os.path.exists(os.path.join(
			root, 'etc/apt/sources.list.d/pan-kunit-bookworm-backports.sources')))
		self.assertEqual(self.apt_calls, [
			['update'],
			['install', '-y', '--no-install-recommends', '-o',
			 'APT::Get::Upgrade-By-Source-Package=false',
			 'qemu-system-arm', 'qemu-system-common', 'qemu-system-data']])
		self.assertIn('installing Debian packages: qemu-system-arm', output)

	def test_only_the_backports_are_upgraded_by_name(self) -> None:
		self.ensure(installed=lacking('bc', qemu='1:7.2+dfsg-7'), euid=0, root=self.apt_root())
		self.assertEqual(self.apt_calls, [
			['update'],
			['install', '-y', '--no-install-recommends', '-o',
			 'APT::Get::Upgrade-By-Source-Package=false', '--no-upgrade', 'bc'],
			['install', '-y', '--no-install-recommends', '-o',
			 'APT::Get::Upgrade-By-Source-Package=false',
			 'qemu-system-arm', 'qemu-system-common', 'qemu-system-data']])

	def test_user_with_an_old_qemu_goes_on_with_the_commands(self) -> None:
		root = self.apt_root()
		output = self.ensure(installed=lacking(qemu='1:7.2+dfsg-7'), euid=1000, root=root)
		self.assertIn('note: qemu-system-arm older than 1:10.0: its max CPU has no FEAT_PAN3, '
			      'and what the kernel does with EPAN goes untested; bookworm-backports has '
			      'a newer one; as root, '
			      'run:\ncat > ' + root + '/etc/apt/sources.list.d/'
			      'pan-kunit-bookworm-backports.sources', output)
		self.assertTrue(output.rstrip().endswith(
			'apt-get update\napt-get install -y --no-install-recommends '
			'-o APT::Get::Upgrade-By-Source-Package=false '
			'qemu-system-arm qemu-system-common qemu-system-data'), output)
		self.assertEqual(self.apt_calls, [])
		self.assertFalse(os.path.exists(os.path.join(root, 'etc/apt/preferences.d')))

	def test_user_missing_qemu_is_told_its_suite_too(self) -> None:
		root = self.apt_root()
		with self.assertRaises(Error) as e:
			self.ensure(installed=lacking('bc', *packages.QEMU.packages), euid=1000, root=root)
		message = str(e.exception)
		self.assertIn('missing Debian packages: qemu-system-arm bc\nrun as root: cat > ',
			      message)
		self.assertTrue(message.endswith('apt-get install -y --no-install-recommends '
						 '-o APT::Get::Upgrade-By-Source-Package=false '
						 'qemu-system-arm bc qemu-system-common qemu-system-data'),
				message)

	def test_a_recent_qemu_is_kept(self) -> None:
		output = self.ensure(installed=lacking(qemu='1:10.0'), euid=0)
		self.assertEqual((output, self.apt_calls), ('', []))

	def test_another_release_keeps_its_qemu_with_a_note(self) -> None:
		output = self.ensure(installed=lacking(qemu='1:7.2+dfsg-7'), euid=0, release='sid')
		self.assertEqual(output, 'note: qemu-system-arm 1:7.2+dfsg-7 is older than 1:10.0: '
				 'its max CPU has no FEAT_PAN3, and what the kernel does with EPAN goes '
				 'untested\n')
		self.assertEqual(self.apt_calls, [])

	def test_older_asks_dpkg(self) -> None:
		self.assertTrue(packages.older('1:7.2+dfsg-7+deb12u18+b3', packages.QEMU.minimum))
		self.assertFalse(packages.older('1:10.0.2+ds-2+deb13u1~bpo12+1', packages.QEMU.minimum))

	def fake_dpkg(self, **env: str) -> Any:
		fake = test_data_path('fake_dpkg')
		return mock.patch.dict(os.environ, dict(env, PATH=fake + os.pathsep + os.environ['PATH']))

	def test_installed_asks_dpkg_query_once(self) -> None:
		with self.fake_dpkg(), \
		     mock.patch.object(proc, 'run', wraps=proc.run) as run:
			# flex: removed, its configuration kept; libssl-dev: so for the
			# host's amd64, installed for arm64 only; libc6-dev: amd64 and
			# i386; make: a trigger pending; lcov: unknown to dpkg.
			self.assertEqual(packages.installed(['bc', 'flex', 'libssl-dev', 'libc6-dev',
							     'make', 'linux-source-6.1', 'lcov']),
					 {'bc', 'libc6-dev', 'make', 'linux-source-6.1'})
			self.assertEqual([c.args[0][0] for c in run.call_args_list], ['dpkg', 'dpkg-query'])
			self.assertTrue(packages.is_installed('bc'))
			self.assertFalse(packages.is_installed('lcov'))
			self.assertEqual(packages.installed_versions(['bc', 'make']),
					 {'bc': '1.07.1-3+b1', 'make': ''})
		self.assertEqual(packages.installed([]), set())

	def test_a_failing_dpkg_query_is_an_error(self) -> None:
		# Not "every package is missing", which would install them all.
		with self.fake_dpkg(FAKE_DPKG_BROKEN='1'), self.assertRaises(Error) as e:
			packages.ensure(plain_printer(), euid=lambda: 0, apt_get=self.apt_get, older=older)
		self.assertEqual(str(e.exception), "dpkg-query -W failed (exit 2): dpkg-query: error: "
				 "parsing file '/var/lib/dpkg/status' near line 7: newline in field "
				 "name '#padding'")
		self.assertEqual(self.apt_calls, [])

	def test_no_dpkg_query_is_no_debian_host(self) -> None:
		with tempfile.TemporaryDirectory() as empty, \
		     mock.patch.dict(os.environ, {'PATH': empty}):
			with self.assertRaises(Error) as e:
				packages.ensure(plain_printer(), ['linux-source-6.1'])
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
			self.assertTrue(err.getvalue().startswith('pan-kunit setup: error: no dpkg-query: '),
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

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of pan_kunit.host.apt_suites: a kernel source package from another
# suite of the machine's Debian archive, on fixture APT configurations
# (test_data/apt/, see test_data/README).

import contextlib
import io
import os
import shutil
import tempfile
import unittest

from pan_kunit import Error
from pan_kunit.host import apt_suites
from pan_kunit.host.printer import Printer
from pan_kunit.trees import kernels

APT_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test_data', 'apt')
K73 = kernels.by_name('7.3')
K612 = kernels.by_name('6.12')

class AptSuitesTest(unittest.TestCase):

	def root(self, name: str) -> str:
		"""A copy of the fixture @name, as / of a machine."""
		tmp = tempfile.mkdtemp()
		self.addCleanup(shutil.rmtree, tmp)
		root = os.path.join(tmp, 'root')
		shutil.copytree(os.path.join(APT_DATA, name), root)
		return root

	def ensure(self, root: str, euid: int=0) -> str:
		out = io.StringIO()
		assert K73 is not None and K612 is not None
		changed = apt_suites.ensure(Printer(out), {'trixie-backports': [K73.package]}, root,
					    euid=lambda: euid)
		return f'{changed}\n{out.getvalue()}'

	def test_7_3_comes_from_trixie_backports(self) -> None:
		assert K73 is not None and K612 is not None
		self.assertEqual(K73.suite, 'trixie-backports')
		self.assertIsNone(K612.suite)

	def test_deb822_archive_is_found_past_other_vendors(self) -> None:
		found = apt_suites.archive(self.root('deb822'))
		assert found is not None
		self.assertEqual((found.uri, found.signed_by),
				 ('http://mirror.invalid/debian',
				  '/usr/share/keyrings/debian-archive-keyring.gpg'))

	def test_one_line_archive_is_found_with_its_key(self) -> None:
		found = apt_suites.archive(self.root('one_line'))
		assert found is not None
		self.assertEqual((found.uri, found.signed_by),
				 ('http://mirror.invalid/debian',
				  '/usr/share/keyrings/debian-archive-keyring.gpg'))

	def test_root_writes_the_suite_and_a_pin_for_the_one_package(self) -> None:
		root = self.root('deb822')
		output = self.ensure(root)
		self.assertTrue(output.startswith('True\n'), output)
		sources = os.path.join(root, 'etc/apt/sources.list.d/pan-kunit-trixie-backports.sources')
		pref = os.path.join(root, 'etc/apt/preferences.d/pan-kunit-trixie-backports.pref')
		with open(sources) as f:
			text = f.read()
		self.assertIn('URIs: http://mirror.invalid/debian\nSuites: trixie-backports\n'
			      'Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n',
			      text)
		with open(pref) as f:
			text = f.read()
		# Everything of the suite at -1, the package at 500: APT reads the
		# package's own stanza first, whatever the order.
		self.assertIn('Package: *\nPin: release n=trixie-backports\nPin-Priority: -1\n', text)
		self.assertIn('Package: linux-source-7.3\nPin: release n=trixie-backports\n'
			      'Pin-Priority: 500\n', text)
		# APT ignores a preferences file whose extension is not .pref
		# (pan-kunit-linux-source-7.3 would end in ".3").
		self.assertTrue(pref.endswith('.pref'))
		self.assertIn(f'wrote {sources}:', output)
		self.assertIn(f'wrote {pref}:', output)
		# Again: nothing to write.
		self.assertEqual(self.ensure(root), 'False\n')

	def test_user_gets_the_commands_and_nothing_is_written(self) -> None:
		root = self.root('one_line')
		with self.assertRaises(Error) as e:
			self.ensure(root, euid=1000)
		message = str(e.exception)
		self.assertIn('linux-source-7.3 comes from trixie-backports, which APT here does not '
			      'install from; as root, run:\n', message)
		self.assertIn(f"cat > {root}/etc/apt/preferences.d/pan-kunit-trixie-backports.pref <<'EOF'\n",
			      message)
		self.assertTrue(message.endswith('apt-get update'), message)
		self.assertFalse(os.path.exists(os.path.join(root, 'etc/apt/preferences.d')))

	def test_no_debian_archive_is_a_clear_error(self) -> None:
		with self.assertRaises(Error) as e:
			self.ensure(self.root('none'))
		self.assertIn('linux-source-7.3 comes from Debian\'s trixie-backports', str(e.exception))
		self.assertIn('names no Debian archive', str(e.exception))

	def test_no_package_of_another_suite_touches_nothing(self) -> None:
		self.assertEqual(apt_suites.files({}, self.root('none')), {})
		self.assertEqual(apt_suites.files({'bookworm-backports': []}, self.root('none')), {})

	def test_the_release_is_read_from_os_release(self) -> None:
		self.assertEqual(apt_suites.codename(self.root('deb822')), 'bookworm')
		self.assertIsNone(apt_suites.codename(self.root('deb822') + '/nowhere'))

if __name__ == '__main__':
	unittest.main()

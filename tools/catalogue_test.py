#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of pan_kunit.commands.catalogue: docs/suites.md is what the suites' own
# comments and Kconfig help make of it now (a stale catalogue fails), and
# on a small fixture (test_data/catalogue/: three suites, two of which
# share a header and a Kconfig symbol) what each part of a suite becomes.

import difflib
import os
import re
import unittest
from typing import List

from pan_kunit.commands import catalogue
from pan_kunit.trees import suites

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test_data', 'catalogue')

def read(path: str) -> str:
	with open(path) as f:
		return f.read()

class CatalogueTest(unittest.TestCase):

	def assertSameText(self, written: str, made: str, name: str, how: str) -> None:
		if written != made:
			diff = difflib.unified_diff(written.splitlines(), made.splitlines(), name,
						    'the suites now', lineterm='', n=1)
			self.fail(f'{name} is stale: {how}\n' + '\n'.join(list(diff)[:40]))

	def test_docs_suites_md_is_current(self) -> None:
		path = os.path.join(catalogue.REPO, catalogue.OUTPUT)
		self.assertSameText(read(path), catalogue.catalogue(), catalogue.OUTPUT,
				    f'run {catalogue.COMMAND}')

	def test_fixture(self) -> None:
		self.assertSameText(read(os.path.join(FIXTURE, 'suites.md')),
				    catalogue.catalogue(FIXTURE), 'test_data/catalogue/suites.md',
				    'if the change is meant, write catalogue.catalogue(FIXTURE) there')

	def test_every_suite_and_case_of_the_repo(self) -> None:
		"""Every suite of kunit/ has a section, and every case of its
		kunit_case array an item, with the comment above its function."""
		text = catalogue.catalogue()
		top = os.path.join(catalogue.REPO, 'kunit')
		for directory, _, names in os.walk(top):
			for name in [n for n in names if n.endswith('_kunit.c')]:
				source = read(os.path.join(directory, name))
				suite = suites.SUITE_NAME.search(source)
				assert suite
				self.assertIn(f'\n## {suite.group(1)}\n', text)
				for case, _ in catalogue._cases(source):
					self.assertIn(f'\n- `{case}`', text)
					self.assertTrue(catalogue.comment_above(source, case),
							f'{name}: {case}() has no comment for the catalogue')

	def test_kconfig_help_less_boilerplate(self) -> None:
		self.assertEqual(catalogue._kconfig(
			'config X\n\tbool "Tests of X"\n\tdepends on KUNIT=y\n\thelp\n'
			'\t  Line one\n\t  two.\n\n\t  For more information on KUnit ...\n\n'
			'\t  If unsure, say N.\n'),
			(' ("Tests of X"; depends on `KUNIT=y`)', ['Line one', 'two.']))

	def test_markdown(self) -> None:
		self.assertEqual(catalogue.markdown(
			['Calls get_user(), then', '- an item', '  on two lines', 'Text.', '',
			 '1. not a list']),
			['Calls `get_user()`, then', '', '- an item on two lines', '', 'Text.', '',
			 '1\\. not a list', ''])

if __name__ == '__main__':
	unittest.main()

class SuiteSourcesTest(unittest.TestCase):
	"""What every file of kunit/ and compat/ holds, as upstream takes it."""

	def files(self) -> List[str]:
		found = []
		for top in ('kunit', 'compat'):
			for root, _, names in os.walk(os.path.join(catalogue.REPO, top)):
				found += [os.path.join(root, n) for n in names
					  if n.endswith(('.c', '.h', '.S', '.patch'))]
		return found

	def test_every_arm_arm_citation_is_one_revision(self) -> None:
		# One revision of DDI 0487 (M.a.a), whose section numbers the
		# citations give: a J.a number is another section in M.a.a.
		for path in self.files():
			text = read(path)
			# A citation may wrap onto a comment's next line.
			for match in re.finditer(r'DDI 0487[\s*+-]*([^\s,:)]*)', text):
				self.assertEqual(match.group(1), 'M.a.a',
						 f'{os.path.relpath(path, catalogue.REPO)}: '
						 f'{match.group(0)!r}')
			self.assertNotRegex(text, r'\bD19\.[12]\.\d', path)

	def test_no_suite_asks_for_a_kernel_version(self) -> None:
		# Suites are written for the newest kernel; compat/VERSION/ adapts.
		for path in self.files():
			if '/kunit/' in path:
				self.assertNotRegex(read(path), r'LINUX_VERSION_CODE|KERNEL_VERSION\(', path)

	def test_every_kernel_patch_is_signed_off(self) -> None:
		# checkpatch --strict: "Missing Signed-off-by: line(s)".
		top = os.path.join(catalogue.REPO, 'patches')
		for version in sorted(os.listdir(top)):
			if not os.path.isdir(os.path.join(top, version)):
				continue
			for name in sorted(os.listdir(os.path.join(top, version))):
				if name.endswith('.patch'):
					message = read(os.path.join(top, version, name)).split('\n---\n')[0]
					self.assertRegex(message, r'\nSigned-off-by: .+ <.+@.+>',
							 f'patches/{version}/{name}')

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of pan_kunit.kunit_tool.modules: importing a tree's kunit_tool modules,
# each tree's own, compiled once per source.

import os
import tempfile
import traceback
import unittest
from unittest import mock

from pan_kunit.kunit_tool import kunit_py, modules
from testlib import setUpModule, tearDownModule, write

PARSER = 'def where():\n\traise ValueError(__file__)\n'

class LoadTest(unittest.TestCase):

	def setUp(self) -> None:
		tmp = tempfile.TemporaryDirectory()
		self.addCleanup(tmp.cleanup)
		self.trees = [os.path.join(tmp.name, name) for name in ('a', 'b', 'c')]
		for tree, source in zip(self.trees, (PARSER, PARSER, PARSER + 'OTHER = 1\n')):
			write(os.path.join(kunit_py.directory(tree), 'fake_parser.py'), source)

	def load(self, tree: str) -> object:
		return modules.load(kunit_py.directory(tree), 'fake_parser')

	def test_each_tree_its_own_module_one_compile_per_source(self) -> None:
		with mock.patch.dict(modules._compiled, clear=True), \
		     mock.patch('builtins.compile', wraps=compile) as compiled:
			loaded = [self.load(tree) for tree in self.trees]
			self.assertEqual(compiled.call_count, 2)
		self.assertEqual(len({id(m) for m in loaded}), 3)
		self.assertFalse(hasattr(loaded[0], 'OTHER'))
		self.assertEqual(getattr(loaded[2], 'OTHER'), 1)
		for tree, module in zip(self.trees, loaded):
			path = os.path.join(kunit_py.directory(tree), 'fake_parser.py')
			self.assertEqual(getattr(module, '__file__'), path)
			# A traceback names the tree the code was loaded from.
			try:
				getattr(module, 'where')()
			except ValueError as e:
				self.assertEqual(str(e), path)
				frames = traceback.extract_tb(e.__traceback__)
			self.assertEqual(frames[-1].filename, path)
		self.assertFalse(os.path.exists(os.path.join(kunit_py.directory(self.trees[0]),
							     '__pycache__')))

	def test_nothing_left_in_sys_modules_or_the_import_system(self) -> None:
		import sys
		meta_path, path = list(sys.meta_path), list(sys.path)
		self.load(self.trees[0])
		self.assertNotIn('fake_parser', sys.modules)
		self.assertEqual((sys.meta_path, sys.path), (meta_path, path))

if __name__ == '__main__':
	unittest.main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of how pan_kunit is laid out: modules small enough to read, one
# process layer (proc.py, which gitcmd.py and kunit_py.py use), and
# fixtures no test writes into.

import ast
import glob
import os
import unittest
from typing import List

PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pan_kunit')
MAX_LINES = 500
PROCESS_LAYER = {'proc.py'}

def _modules() -> List[str]:
	return sorted(glob.glob(os.path.join(PACKAGE, '*.py')))

class LayoutTest(unittest.TestCase):

	def test_no_module_over_500_lines(self) -> None:
		for path in _modules():
			with open(path, encoding='utf-8') as f:
				lines = f.read().count('\n')
			self.assertLessEqual(lines, MAX_LINES, f'{os.path.basename(path)}: {lines} lines')

	def test_subprocess_only_in_the_process_layer(self) -> None:
		for path in _modules():
			with open(path, encoding='utf-8') as f:
				tree = ast.parse(f.read(), path)
			names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
				 for alias in node.names}
			names |= {node.module or '' for node in ast.walk(tree)
				  if isinstance(node, ast.ImportFrom)}
			if os.path.basename(path) not in PROCESS_LAYER:
				self.assertNotIn('subprocess', names, os.path.basename(path))

	def test_no_pycache_in_test_data(self) -> None:
		# The fixtures are packed into tarballs and stand for trees'
		# kunit_tool: no test may write its bytecode there (this finds
		# what an earlier run left).
		data = os.path.join(os.path.dirname(PACKAGE), 'test_data')
		left = [root for root, dirs, _ in os.walk(data) if '__pycache__' in dirs]
		self.assertEqual(left, [])

if __name__ == '__main__':
	unittest.main()

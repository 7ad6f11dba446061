#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of how pan_kunit is laid out: every module in the folder of its
# layer, each layer importing only the layers below it (and the modules of
# its own folder), no import circle, modules small enough to read, one
# process layer (host/proc.py, which host/gitcmd.py and kunit_tool/kunit_py.py
# use), and fixtures no test writes into.  An import counts wherever it
# is: at the top of a module, in a function, under `if TYPE_CHECKING:`.

import ast
import functools
import glob
import os
import unittest
from typing import Dict, List, Set, Tuple

PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pan_kunit')
MAX_LINES = 500
PROCESS_LAYER = {os.path.join('host', 'proc.py')}
# The layers, lowest first: each folder of pan_kunit/ and what it holds
# (its __init__.py says more).  The package's own __init__.py (Error,
# StrEnum) is below them all, its __main__.py above them all.
LAYERS = ('host',        # processes, git, files, packages, the printer and progress
	  'trees',       # kernels, sources, series, the trees, the user's tree
	  'kunit_tool',  # the tree's kunit.py, its modules and configs, KTAP
	  'results',     # kunit_tool's JSON read once, the leaves, the model, renderings
	  'matrix',      # the plan, jobs, builds, boots, isolation, cost, initramfs
	  'commands')    # each command and its request, the command line on top
BASE, TOP = -1, len(LAYERS)

def _modules() -> List[str]:
	return sorted(glob.glob(os.path.join(PACKAGE, '**', '*.py'), recursive=True))

def _relative(path: str) -> str:
	return os.path.relpath(path, PACKAGE)

def module_name(path: str) -> str:
	"""pan_kunit.host.proc of PACKAGE/host/proc.py (a package: its
	__init__.py's directory)."""
	parts = ['pan_kunit'] + _relative(path)[:-len('.py')].split(os.sep)
	return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)

def rank(name: str) -> int:
	"""The layer of the module @name: its folder's index in LAYERS."""
	parts = name.split('.')
	if len(parts) == 1:
		return BASE
	if parts[1] == '__main__':
		return TOP
	return LAYERS.index(parts[1]) if parts[1] in LAYERS else TOP

@functools.lru_cache(maxsize=None)
def import_statements(path: str) -> Tuple[ast.stmt, ...]:
	"""The import statements of the module at @path, wherever they are:
	parsed once for every test of this file, and only statements walked
	(an import is one, in a body of the module, a class, a function or a
	block: never in an expression, which is most of a tree)."""
	with open(path, encoding='utf-8') as f:
		pending: List[ast.AST] = [ast.parse(f.read(), path)]
	found: List[ast.stmt] = []
	while pending:
		node = pending.pop()
		if isinstance(node, (ast.Import, ast.ImportFrom)):
			found.append(node)
		pending += [child for child in ast.iter_child_nodes(node)
			    if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case))]
	return tuple(found)

def imports(path: str, known: Set[str]) -> Set[str]:
	"""The modules of pan_kunit that the module at @path imports, wherever
	the import is; `from X import Y` counts as X.Y when that is a module
	of @known, else as X."""
	found: Set[str] = set()
	for node in import_statements(path):
		if isinstance(node, ast.Import):
			found |= {alias.name for alias in node.names
				  if alias.name.split('.')[0] == 'pan_kunit'}
		elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and \
				node.module.split('.')[0] == 'pan_kunit':
			for alias in node.names:
				sub = f'{node.module}.{alias.name}'
				found.add(sub if sub in known else node.module)
	return found

def graph() -> Dict[str, Set[str]]:
	"""Each module of pan_kunit, with those of pan_kunit it imports."""
	paths = {module_name(path): path for path in _modules()}
	known = set(paths)
	return {name: imports(path, known) - {name} for name, path in paths.items()}

def circles(edges: Dict[str, Set[str]]) -> List[List[str]]:
	"""The import circles of @edges: each strongly connected set of two or
	more modules (Tarjan's algorithm), sorted."""
	index: Dict[str, int] = {}
	low: Dict[str, int] = {}
	stack: List[str] = []
	on_stack: Set[str] = set()
	found: List[List[str]] = []

	def visit(name: str) -> None:
		index[name] = low[name] = len(index)
		stack.append(name)
		on_stack.add(name)
		for other in sorted(edges.get(name, ())):
			if other not in index:
				visit(other)
				low[name] = min(low[name], low[other])
			elif other in on_stack:
				low[name] = min(low[name], index[other])
		if low[name] == index[name]:
			component = []
			while True:
				top = stack.pop()
				on_stack.discard(top)
				component.append(top)
				if top == name:
					break
			if len(component) > 1:
				found.append(sorted(component))

	for name in sorted(edges):
		if name not in index:
			visit(name)
	return sorted(found)

def upward(edges: Dict[str, Set[str]]) -> List[Tuple[str, str]]:
	"""The imports of @edges of a module of a higher layer than the importer's."""
	return sorted((name, other) for name, targets in edges.items() for other in targets
		      if rank(other) > rank(name))

class LayoutTest(unittest.TestCase):

	def test_every_module_in_the_folder_of_its_layer(self) -> None:
		loose = [_relative(path) for path in _modules()
			 if os.path.dirname(_relative(path)) not in LAYERS and
			 _relative(path) not in ('__init__.py', '__main__.py')]
		self.assertEqual(loose, [])
		folders = sorted(d for d in os.listdir(PACKAGE)
				 if os.path.isdir(os.path.join(PACKAGE, d)) and d != '__pycache__')
		self.assertEqual(folders, sorted(LAYERS))
		for layer in LAYERS:
			self.assertTrue(os.path.isfile(os.path.join(PACKAGE, layer, '__init__.py')),
					layer)

	def test_no_import_of_a_higher_layer(self) -> None:
		self.assertEqual([f'{name} imports {other}' for name, other in upward(graph())], [])

	def test_no_import_circle(self) -> None:
		self.assertEqual(circles(graph()), [])

	def test_the_checks_find_a_circle_and_an_upward_import(self) -> None:
		edges: Dict[str, Set[str]] = {
			'pan_kunit.host.a': {'pan_kunit.host.b'},
			'pan_kunit.host.b': {'pan_kunit.commands.c', 'pan_kunit'},
			'pan_kunit.commands.c': {'pan_kunit.host.a'}, 'pan_kunit': set()}
		self.assertEqual(circles(edges), [['pan_kunit.commands.c', 'pan_kunit.host.a',
						   'pan_kunit.host.b']])
		self.assertEqual(upward(edges), [('pan_kunit.host.b', 'pan_kunit.commands.c')])
		self.assertEqual(imports(os.path.join(PACKAGE, '__main__.py'),
					 {'pan_kunit.commands.cli'}), {'pan_kunit.commands.cli'})

	def test_no_module_over_500_lines(self) -> None:
		for path in _modules():
			with open(path, encoding='utf-8') as f:
				lines = f.read().count('\n')
			self.assertLessEqual(lines, MAX_LINES, f'{_relative(path)}: {lines} lines')

	def test_subprocess_only_in_the_process_layer(self) -> None:
		for path in _modules():
			names = {alias.name for node in import_statements(path)
				 if isinstance(node, ast.Import) for alias in node.names}
			names |= {node.module or '' for node in import_statements(path)
				  if isinstance(node, ast.ImportFrom)}
			if _relative(path) not in PROCESS_LAYER:
				self.assertNotIn('subprocess', names, _relative(path))

	def test_no_pycache_in_test_data(self) -> None:
		# The fixtures are packed into tarballs and stand for trees'
		# kunit_tool: no test may write its bytecode there (this finds
		# what an earlier run left).
		data = os.path.join(os.path.dirname(PACKAGE), 'test_data')
		left = [root for root, dirs, _ in os.walk(data) if '__pycache__' in dirs]
		self.assertEqual(left, [])

if __name__ == '__main__':
	unittest.main()

# SPDX-License-Identifier: GPL-2.0
#
# The kunit_tool of a tree (tools/testing/kunit/), which pan-kunit reuses
# rather than copies: where it is, how its kunit.py is run (a build
# through kunit_build.py), and how its modules are imported (kunit_parser,
# qemu_config) without one tree's module standing in for another's.

import contextlib
import importlib
import os
import sys
from types import ModuleType
from typing import Iterator, List, Optional, Sequence

from pan_kunit import Error, proc

# Where a tree (the prepared tree, a worktree of it) has its kunit_tool.
DIR = os.path.join('tools', 'testing', 'kunit')
SCRIPT = 'kunit.py'
# kunit.py build without the olddefconfig before every make (see the file).
BUILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'kunit_build.py')

def directory(tree: str) -> str:
	"""The kunit_tool of @tree, which builds and boots it."""
	return os.path.join(tree, DIR)

def script(kunit_dir: str) -> str:
	"""kunit.py of the kunit_tool in @kunit_dir."""
	return os.path.join(kunit_dir, SCRIPT)

def find(trees: Sequence[str]) -> str:
	"""kunit.py of the first of @trees that has one."""
	for candidate in trees:
		path = script(directory(candidate))
		if os.path.isfile(path):
			return path
	raise Error('parse needs kunit_tool\'s parser, and there is no '
		    f'{os.path.join(DIR, SCRIPT)} in {" nor in ".join(trees)}: '
		    'run tools/pan-kunit setup first')

def command(kunit_dir: str, subcommand: str) -> List[str]:
	"""The start of a kunit.py SUBCOMMAND; a build runs through kunit_build.py."""
	if subcommand == 'build':
		return [sys.executable, BUILD, script(kunit_dir), subcommand]
	return [sys.executable, script(kunit_dir), subcommand]

@contextlib.contextmanager
def importable(kunit_dir: Optional[str], modules: Sequence[str]) -> Iterator[None]:
	"""While in it, the @modules of @kunit_dir's kunit_tool (None: of
	none; the caller provides them) import afresh: no module of another
	tree is reused, none is left in sys.modules after, no __pycache__ is
	written into the tree (or the repo)."""
	saved = {name: sys.modules.pop(name) for name in modules if name in sys.modules}
	if kunit_dir is not None:
		sys.path.insert(0, kunit_dir)
	dont_write_bytecode = sys.dont_write_bytecode
	sys.dont_write_bytecode = True
	try:
		yield
	finally:
		if kunit_dir is not None:
			sys.path.remove(kunit_dir)
		sys.dont_write_bytecode = dont_write_bytecode
		for name in modules:
			sys.modules.pop(name, None)
		sys.modules.update(saved)

def load(kunit_dir: str, name: str, imports: Sequence[str]=()) -> ModuleType:
	"""@kunit_dir's module @name, which imports @imports of its own."""
	with importable(kunit_dir, [name] + list(imports)):
		try:
			return importlib.import_module(name)
		except Exception as e:
			raise Error(f'cannot load {name} from {kunit_dir}: {e}')

def parse(kunit_py: str, console: str, json_path: str) -> proc.Result:
	"""`kunit.py parse --json=@json_path @console`, absolute paths: kunit.py
	works in the tree's top directory."""
	return proc.run([sys.executable, kunit_py, 'parse', '--json=' + json_path, console],
			stdin=proc.To.NOWHERE, stderr=proc.To.MERGED,
			env=dict(os.environ, PYTHONDONTWRITEBYTECODE='1'))

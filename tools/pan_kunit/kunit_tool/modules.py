# SPDX-License-Identifier: GPL-2.0
#
# The modules of a tree's kunit_tool (kunit_parser, qemu_config), imported
# afresh from that tree, without one tree's module standing in for
# another's, none left in sys.modules after, and no __pycache__ written
# into the tree.

import contextlib
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from types import CodeType, ModuleType
from typing import Any, Dict, Iterator, Optional, Sequence

from pan_kunit import Error

# Code compiled from a kunit_tool module, by the SHA-256 of its source:
# the trees of one kernel have the same kunit_parser.py, which need not be
# compiled again in each (no __pycache__ is written into a tree).
_compiled: Dict[bytes, CodeType] = {}

def _named(code: CodeType, path: str) -> CodeType:
	"""@code, with its functions', as compiled from @path (tracebacks)."""
	return code.replace(co_filename=path, co_consts=tuple(
		_named(c, path) if isinstance(c, CodeType) else c for c in code.co_consts))

class _Loader(importlib.machinery.SourceFileLoader):
	"""A kunit_tool module's loader: its code compiled once per source."""
	def get_code(self, fullname: str) -> CodeType:
		source = self.get_data(self.path)
		key = hashlib.sha256(source).digest()
		if key not in _compiled:
			_compiled[key] = compile(source, self.path, 'exec', dont_inherit=True)
		code = _compiled[key]
		return code if code.co_filename == self.path else _named(code, self.path)

class _Finder(importlib.abc.MetaPathFinder):
	"""Finds @modules in @kunit_dir alone, for _Loader to load."""
	def __init__(self, kunit_dir: str, modules: Sequence[str]) -> None:
		self.kunit_dir, self.modules = kunit_dir, set(modules)

	def find_spec(self, name: str, path: Any=None, target: Any=None) -> Any:
		source = os.path.join(self.kunit_dir, name + '.py')
		if name not in self.modules or not os.path.isfile(source):
			return None
		return importlib.util.spec_from_file_location(name, source,
							      loader=_Loader(name, source))

@contextlib.contextmanager
def importable(kunit_dir: Optional[str], modules: Sequence[str]) -> Iterator[None]:
	"""While in it, the @modules of @kunit_dir's kunit_tool (None: of
	none; the caller provides them) import afresh: no module of another
	tree is reused, none is left in sys.modules after, no __pycache__ is
	written into the tree (or the repo)."""
	saved = {name: sys.modules.pop(name) for name in modules if name in sys.modules}
	finder = None
	if kunit_dir is not None:
		sys.path.insert(0, kunit_dir)
		finder = _Finder(kunit_dir, modules)
		sys.meta_path.insert(0, finder)
	dont_write_bytecode = sys.dont_write_bytecode
	sys.dont_write_bytecode = True
	try:
		yield
	finally:
		if finder is not None:
			sys.meta_path.remove(finder)
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


#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Usage: kunit_build.py KUNIT_PY build [kunit.py build options]
#
# Runs KUNIT_PY, a tree's kunit.py, as it is, with one call left out:
# the `make olddefconfig` that LinuxSourceTree.build_kernel() runs before
# every make, 1.5 s of CPU in every incremental build.
#
# kunit.py's own reconfiguration is kept: build_reconfig() runs
# build_config(), and its olddefconfig, whenever the .config is missing,
# lacks an option of the kunitconfig, or the kunitconfig changed.  When
# it does not, make itself runs syncconfig if a Kconfig file, the .config
# or a tool's name (CC, LD, ... in include/config/auto.conf.cmd) changed,
# which sets new options to their defaults as olddefconfig does.  What
# kbuild does not track is what Kconfig reads of the tools: the version
# of the assembler, linker or pahole, and the as-instr/ld-option results.
# So pan-kunit notes the tools' versions beside the .config of each
# build, and sets OLDDEFCONFIG_ENV=1 for a build whose tools are not the
# ones noted (and for a first build), saying so (toolchains.BuildSettings):
# an upgraded toolchain reconfigures, as kunit.py would.  validate_config()
# still checks the .config after make.
#
# With OLDDEFCONFIG_ENV=1 (also --olddefconfig), kunit.py runs as it is;
# and so does a kunit_kernel whose build_kernel() does not call
# self._ops.make_olddefconfig() and self._ops.make(), or a kunit.py
# without kunit_kernel.

from __future__ import annotations

import os
import sys
from types import ModuleType

# Nothing but what main() needs is imported when this script runs (the
# tests run it a hundred times with a fake kunit.py that costs less than
# importing typing and runpy did): typing is for the type check alone, and
# run_as_main() does what runpy.run_path() did.
TYPE_CHECKING = False
if TYPE_CHECKING:
	from typing import Any, List, Optional

PATCHED = '_pan_kunit_without_olddefconfig'
# toolchains.OLDDEFCONFIG_ENV: this script runs without pan_kunit.
OLDDEFCONFIG_ENV = 'PAN_KUNIT_OLDDEFCONFIG'


def _calls_olddefconfig_then_make(build_kernel: Any) -> bool:
	"""Whether @build_kernel is (jobs, build_dir, make_options) and names
	self._ops.make_olddefconfig and make, as in 6.1, 6.12 and 7.3."""
	code = getattr(build_kernel, '__code__', None)
	if code is None or code.co_argcount != 4:
		return False
	return {'_ops', 'make_olddefconfig', 'make'} <= set(code.co_names)


def skip_olddefconfig_before_make(kunit_kernel: ModuleType) -> bool:
	"""Makes LinuxSourceTree.build_kernel() of @kunit_kernel run without
	its make_olddefconfig() call; build_config()'s is kept.  False (and
	nothing changed) when @kunit_kernel is not as expected."""
	tree = getattr(kunit_kernel, 'LinuxSourceTree', None)
	build_kernel: Any = getattr(tree, 'build_kernel', None)
	if getattr(build_kernel, PATCHED, False):
		return True
	if tree is None or not _calls_olddefconfig_then_make(build_kernel):
		return False

	def build_kernel_after_config(self: Any, jobs: int, build_dir: str,
				      make_options: Optional[List[str]]) -> bool:
		ops = self._ops
		saved = vars(ops).get('make_olddefconfig')
		ops.make_olddefconfig = lambda build_dir, make_options: None
		try:
			return build_kernel(self, jobs, build_dir, make_options)  # type: ignore[no-any-return]
		finally:
			if saved is None:
				del ops.make_olddefconfig  # the class's again
			else:
				ops.make_olddefconfig = saved

	setattr(build_kernel_after_config, PATCHED, True)
	setattr(tree, 'build_kernel', build_kernel_after_config)
	return True


def main(argv: List[str]) -> None:
	kunit_py, args = argv[0], argv[1:]
	kunit_dir = os.path.dirname(os.path.abspath(kunit_py))
	# kunit_tool's directory first on the path, in place of this one, as
	# `python3 kunit.py` has it: its modules import each other.
	sys.path[0] = kunit_dir
	if os.environ.get(OLDDEFCONFIG_ENV, '') in ('', '0'):
		try:
			import kunit_kernel  # type: ignore[import]
		except ImportError:
			pass
		else:
			skip_olddefconfig_before_make(kunit_kernel)
	sys.argv = [kunit_py] + args
	run_as_main(kunit_py)


def run_as_main(path: str) -> None:
	"""Runs the script @path as `python3 PATH` would, as
	runpy.run_path(@path, run_name='__main__') does for a file: in a
	module __main__ of its own, which stands in sys.modules while it runs."""
	with open(path, 'rb') as f:
		code = compile(f.read(), path, 'exec')
	module = ModuleType('__main__')
	vars(module).update(__file__=path, __cached__=None, __loader__=None, __package__='',
			    __spec__=None)
	saved = sys.modules['__main__']
	sys.modules['__main__'] = module
	try:
		exec(code, vars(module))
	finally:
		sys.modules['__main__'] = saved


if __name__ == '__main__':
	main(sys.argv[1:])

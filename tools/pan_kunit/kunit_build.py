#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Usage: kunit_build.py KUNIT_DIR build [kunit.py build options]
#
# Runs KUNIT_DIR/kunit.py (6.1 or 6.12) as it is, with one call left out:
# the `make olddefconfig` that LinuxSourceTree.build_kernel() runs before
# every make.  kunit.py has already made the .config by then (build_config()
# runs its own olddefconfig whenever the .config is missing or the
# kunitconfig changed), and an edited Kconfig file or .config is taken in
# by kbuild itself: make runs syncconfig when include/config/auto.conf is
# older than any of them.  So the call changes nothing, and it costs about
# 1.5 s of CPU per incremental build, which is a tenth of the developer's
# loop.  build_kernel()'s validate_config() still checks the .config
# against the kunitconfig after make.
#
# This file imports nothing of pan_kunit: it runs with only KUNIT_DIR on
# its path.  A kunit_tool whose build_kernel() is not as above (or a
# kunit.py without kunit_kernel) is run unchanged.

import os
import runpy
import sys
from types import ModuleType
from typing import Any, List, Optional


def skip_olddefconfig_before_make(kunit_kernel: ModuleType) -> bool:
	"""Makes LinuxSourceTree.build_kernel() of @kunit_kernel run without
	its make_olddefconfig() call; build_config()'s is kept.  False (and
	nothing changed) when @kunit_kernel does not have them."""
	tree = getattr(kunit_kernel, 'LinuxSourceTree', None)
	build_kernel = getattr(tree, 'build_kernel', None)
	if tree is None or build_kernel is None or not hasattr(tree, 'build_config'):
		return False

	def build_kernel_after_config(self: Any, jobs: int, build_dir: str,
				      make_options: Optional[List[str]]) -> bool:
		ops = self._ops
		ops.make_olddefconfig = lambda build_dir, make_options: None
		try:
			return build_kernel(self, jobs, build_dir, make_options)
		finally:
			del ops.make_olddefconfig  # the class's again

	tree.build_kernel = build_kernel_after_config
	return True


def main(argv: List[str]) -> None:
	kunit_dir, args = argv[0], argv[1:]
	kunit_py = os.path.join(kunit_dir, 'kunit.py')
	sys.path.insert(0, os.path.abspath(kunit_dir))
	try:
		import kunit_kernel  # type: ignore[import-not-found]
	except ImportError:
		pass
	else:
		skip_olddefconfig_before_make(kunit_kernel)
	sys.argv = [kunit_py] + args
	runpy.run_path(kunit_py, run_name='__main__')


if __name__ == '__main__':
	main(sys.argv[1:])

# SPDX-License-Identifier: GPL-2.0
#
# What one run of the matrix builds and boots, and where its files go, as
# one object (MatrixPlan): the tree and its kunit_tool, the QEMU configs,
# the kunitconfig and the kconfig fragments merged into it, kunit.py's
# options and timeout, the make jobs, and the directory of its logs and
# boots (Outputs).  Its builds are its configs grouped by kconfig (Build),
# one kunit.py build each; builds.py builds them, boots.py boots them,
# pipeline.py does both and reads the results.

import hashlib
import os
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

from pan_kunit.kunit_tool import kunit_py
from pan_kunit.kunit_tool.configs import QemuConfig, group_by_kconfig
from pan_kunit.kunit_tool.kunit_py import KunitOptions
from pan_kunit.trees.sources import TREE_KUNITCONFIG
from pan_kunit.trees.tree import state_dir

@dataclass
class Outputs:
	"""Where a run of the matrix keeps its logs and each boot's files:
	ROOT/logs/build-KEY.log, ROOT/logs/exec-CONFIG.log, and ROOT/exec/CONFIG,
	kunit.py exec's --build_dir (links to the kernel, config_result.BOOT_FILES).
	`run`'s root is the tree's .pan-kunit; each bisect step and mutant has
	its own."""
	root: str

	def build_log(self, key: str) -> str:
		return os.path.join(self.root, 'logs', f'build-{key}.log')

	def exec_log(self, config: QemuConfig) -> str:
		return os.path.join(self.root, 'logs', f'exec-{config.name}.log')

	def exec_dir(self, config: QemuConfig) -> str:
		return os.path.join(self.root, 'exec', config.name)

def build_key(kconfig_key: str, make_options: Sequence[str]) -> str:
	"""The KEY of a build's directory: its kconfig group's, and, when
	there are any, the make options it is built with (W=1, LLVM=1 and none
	build other objects: each has a directory of its own, so that
	alternating them does not rebuild everything)."""
	if not make_options:
		return kconfig_key
	text = '\n'.join([kconfig_key] + list(make_options))
	return hashlib.sha256(text.encode()).hexdigest()[:12]

@dataclass
class Build:
	"""One kunit.py build: a kconfig group into .pan-kunit/build/KEY."""
	key: str
	group: List[QemuConfig]
	kunitconfig: str
	fragments: Sequence[str] = ()  # kconfig files merged into kunitconfig

	def build_dir(self, tree: str) -> str:
		return state_dir(tree, 'build', self.key)

	def label(self, kernel: str='') -> str:
		"""How every line and the status line name the build: by its
		@kernel (builds.kernel_name()) and its configs, '7.3 arm64_nopan,
		arm64_pan' (its KEY is in its directory's and its log's names)."""
		return ' '.join([kernel] * bool(kernel) + [', '.join(c.name for c in self.group)])

def kconfig_builds(tree: str, configs: List[QemuConfig], kunitconfig: Optional[str]=None,
		   fragments: Sequence[str]=(), kconfig_add: Sequence[str]=(),
		   make_options: Sequence[str]=()) -> List[Build]:
	"""One build per kconfig group of @configs, of @kunitconfig (default:
	the tree's) plus @fragments; a --kconfig_add or --make_options is a
	build of its own."""
	kunitconfig = kunitconfig or os.path.join(tree, TREE_KUNITCONFIG)
	return [Build(build_key(key, make_options), group, kunitconfig, fragments)
		for key, group in group_by_kconfig(configs, list(kconfig_add)).items()]

@dataclass
class MatrixPlan:
	"""A run of the matrix: what to build and boot, how, and where."""
	tree: str
	kunit_dir: str               # the kunit_tool that builds and boots it
	configs: List[QemuConfig]
	timeout: int                 # kunit.py exec's --timeout
	jobs: int                    # make jobs per build
	kunitconfig: str
	outputs: Outputs             # its logs and boots
	options: KunitOptions = field(default_factory=KunitOptions)
	fragments: Sequence[str] = ()  # kconfig files merged into the kunitconfig
	quiet: bool = False          # no line per build and boot (a step has its own)
	# The init of the kselftest boots (guest/ksft_init.c in the repo): each
	# config that built then boots the arm64 kselftests (kselftests.py);
	# None: no kselftest boot.
	kselftest_init: Optional[str] = None
	# The kselftest collections it boots (abi, pan, ...); none: all.
	kselftest_only: Sequence[str] = ()

	@classmethod
	def of_tree(cls, tree: str, configs: List[QemuConfig], timeout: int, jobs: int,
		    options: Optional[KunitOptions]=None, fragments: Sequence[str]=(),
		    kunitconfig: Optional[str]=None, outputs: Optional[Outputs]=None,
		    quiet: bool=False, kselftest_init: Optional[str]=None,
		    kselftest_only: Sequence[str]=()) -> 'MatrixPlan':
		"""The plan of @tree's own kunit_tool and, by default, its
		kunitconfig (TREE_KUNITCONFIG) and its .pan-kunit for the files."""
		return cls(tree, kunit_py.directory(tree), configs, timeout, jobs,
			   kunitconfig or os.path.join(tree, TREE_KUNITCONFIG),
			   outputs or Outputs(state_dir(tree)), options or KunitOptions(), fragments,
			   quiet, kselftest_init, kselftest_only)

	def builds(self) -> List[Build]:
		return kconfig_builds(self.tree, self.configs, self.kunitconfig, self.fragments,
				      self.options.kconfig_add, self.options.make_options)

	def images(self) -> List[Tuple[str, str]]:
		"""The build directory of each of its builds, and the image it
		makes there (relative to it): what tells a build from scratch."""
		return [(b.build_dir(self.tree), b.group[0].kernel_path) for b in self.builds()]
